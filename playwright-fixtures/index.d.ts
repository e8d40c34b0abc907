// Types for `sightline/playwright`.
import type { Page, Locator, TestType, PlaywrightTestArgs, PlaywrightTestOptions, PlaywrightWorkerArgs, PlaywrightWorkerOptions, Expect, MatcherReturnType } from '@playwright/test';

import type { ToMatchVisualOptions } from './options';
export type { ToMatchVisualOptions, SightlineConfig, ResolvedSettings } from './options';

/**
 * A snapshot's name, as toHaveScreenshot takes it: a string, or an array of folders and a name
 * (`['cards', 'lamp']` is `cards/lamp`); a trailing `.png` is dropped. Unnamed, a call is named
 * after its spec file and test.
 */
export type SnapshotName = string | string[];

/**
 * `expect(page | locator).toMatchVisual(name?, options?)` (or `toMatchVisual({ name, ...options })`):
 * captures pixels + DOM + styles and compares them with the approved baseline. Typed for a Page
 * or a Locator only, so `expect(buffer).toMatchVisual()` does not type-check.
 */
export interface VisualMatchers {
  toMatchVisual: (
    receiver: Page | Locator,
    nameOrOptions?: SnapshotName | (CallOptions & { name?: SnapshotName }),
    options?: CallOptions,
  ) => Promise<MatcherReturnType>;
}

/** A call's options: the settings, and toHaveScreenshot's `signal`, whose abort fails the call
 *  like its timeout. */
export type CallOptions = ToMatchVisualOptions & { signal?: AbortSignal };

export const test: TestType<PlaywrightTestArgs & PlaywrightTestOptions, PlaywrightWorkerArgs & PlaywrightWorkerOptions>;
export const expect: Expect<VisualMatchers>;
