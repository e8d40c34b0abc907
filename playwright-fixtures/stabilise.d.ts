// Types for stabilise.js (making a page repeatable to capture).
import type { Page } from '@playwright/test';

export interface CaptureStyleOptions {
  /** `disabled` (default) stops transitions and CSS animations; `allow` leaves them running. */
  animations?: 'disabled' | 'allow';
  /** `hide` (default) makes the caret transparent; `initial` leaves it. */
  caret?: 'hide' | 'initial';
  /** Hide scrollbars. Default false here (the matcher's `hideScrollbars` setting is true). */
  hideScrollbars?: boolean;
  /** Extra CSS applied while capturing (toHaveScreenshot's `stylePath` files). */
  css?: string;
  /** The properties the DOM walk records: one the sheet sets has it apply to every element. */
  styleProperties?: readonly string[];
}

/** What each frame builds its capture stylesheet from. */
export interface CaptureStyle {
  /** The declarations every named element gets (`!important`). */
  declarations: string;
  /** The first words of the longhands the sheet sets: rules and style attributes setting one are named. */
  overridden: readonly string[];
  /** The focused element's caret is made transparent. */
  caret: boolean;
  hideScrollbars: boolean;
  /** How scrollbars drawn beside the content are hidden. */
  scrollbars: { declaration: string; rule: string };
  /** The walk records a property the sheet sets: the sheet names every element. */
  recorded: boolean;
  css: string;
}

/**
 * Waits, within `timeout` ms, for images to load and decode and for no element to be
 * `aria-busy="true"`, in every frame; throws, naming the element, when one stays busy.
 */
export function waitForContent(page: Page, options: { images: boolean; ariaBusy: boolean; timeout: number }): Promise<void>;

/** What the stylesheet applied while capturing is built from, in each frame. */
export function captureStyle(options?: CaptureStyleOptions): CaptureStyle;


/** Adopts `captureStyle(options)` in every frame and open shadow root, then awaits `document.fonts.ready`. */
export function prepareForCapture(page: Page, options?: CaptureStyleOptions): Promise<void>;

/** Finishes finite animations and cancels infinite ones in every frame, as toHaveScreenshot does. */
export function finishAnimations(page: Page): Promise<{ finished: number; cancelled: number }>;

/** Undoes `prepareForCapture` and `finishAnimations`. */
export function restoreAfterCapture(page: Page): Promise<void>;
