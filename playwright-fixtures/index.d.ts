// Types for `sightline/playwright`.
import type { Page, Locator, TestType, PlaywrightTestArgs, PlaywrightTestOptions, PlaywrightWorkerArgs, PlaywrightWorkerOptions, Expect, MatcherReturnType } from '@playwright/test';

/** Options of one `toMatchVisual` call; each overrides `.sightline/config.json` for this call. */
export interface ToMatchVisualOptions {
  /** Per-pixel colour tolerance, 0..1 (pixelmatch scale). Default 0.1. */
  threshold?: number;
  /** A change of at most this many pixels passes. */
  maxDiffPixels?: number;
  /** A change of at most this share of pixels (0..1) passes; with both set the smaller wins. */
  maxDiffPixelRatio?: number;
  /** Pass a diff that is likely render noise. Default false. */
  noiseAutoPass?: boolean;
  /** Full-page capture. Default true. */
  fullPage?: boolean;
  /**
   * What to hide, as toHaveScreenshot's `mask`: Locators, CSS selectors, or both. Each element's
   * box is painted with `maskColor` in the capture and, before comparing, in the baseline too;
   * the elements are left out of the DOM/style check. Replaces the config file's `mask`.
   */
  mask?: Array<Locator | string>;
  /** The colour of the masked boxes, any CSS colour. Default `#FF00FF`, as Playwright's. */
  maskColor?: string;
  /** CSS selectors left out of the pixel and DOM/style checks, without painting. */
  ignoreSelectors?: string[];
  /** Computed-style longhands to digest. */
  styleProperties?: string[];
  /** Capture only this area of the page. */
  clip?: { x: number; y: number; width: number; height: number };
  /** How long to wait for two consecutive equal shots, in ms. Default the expect timeout. */
  timeout?: number;
  /** Use the perceptual comparator. Default false. */
  perceptual?: boolean;
  /** `"disabled"` (default) stops CSS animations, transitions and Web Animations while capturing; `"allow"` leaves them. */
  animations?: 'disabled' | 'allow';
  /** `"hide"` (default) hides the text caret while capturing; `"initial"` leaves it. */
  caret?: 'hide' | 'initial';
  /** `"css"` (default): one image pixel per CSS pixel; `"device"`: one per device pixel. */
  scale?: 'css' | 'device';
  /** Capture with a transparent page background. Default false. */
  omitBackground?: boolean;
  /** CSS files applied while capturing (the DOM/style check sees them too), relative to the folder the tests run in. */
  stylePath?: string | string[];
  /** Wait for the page's images to load and decode before capturing. Default true. */
  waitForImages?: boolean;
  /** Wait until no element has `aria-busy="true"`; a page that stays busy fails, naming the element. Default true. */
  waitForAriaBusy?: boolean;
  /** Hide scrollbars while capturing. Default true. */
  hideScrollbars?: boolean;
  /** Move the mouse off the page first, so nothing shows its hover state (the mouse stays there). Default false. */
  clearHover?: boolean;
}

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
    nameOrOptions?: SnapshotName | (ToMatchVisualOptions & { name?: SnapshotName }),
    options?: ToMatchVisualOptions,
  ) => Promise<MatcherReturnType>;
}

export const test: TestType<PlaywrightTestArgs & PlaywrightTestOptions, PlaywrightWorkerArgs & PlaywrightWorkerOptions>;
export const expect: Expect<VisualMatchers>;
