// Types for stabilise.js (making a page repeatable to capture).
import type { Page } from '@playwright/test';

/** CSS that stops transitions and CSS animations and hides the caret. */
export const stabilisationStyle: string;

/** Adopts `stabilisationStyle` in every frame and open shadow root, then awaits `document.fonts.ready`. */
export function prepareForCapture(page: Page): Promise<void>;

/** Finishes finite animations and cancels infinite ones in every frame, as toHaveScreenshot does. */
export function finishAnimations(page: Page): Promise<{ finished: number; cancelled: number }>;

/** Undoes `prepareForCapture` and `finishAnimations`. */
export function restoreAfterCapture(page: Page): Promise<void>;
