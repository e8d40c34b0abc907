// Generated from crates/core/src/config/mod.rs (the one declaration of the settings): do not edit.
// `cargo test -p sightline-core typescript` checks it; SIGHTLINE_WRITE_TYPES=1 rewrites it.
import type { Locator } from '@playwright/test';

/** Options of one `toMatchVisual` call; each overrides `.sightline/config.json` for this call. */
export interface ToMatchVisualOptions {
  /** Per-pixel colour tolerance, 0..1 (pixelmatch scale). Default 0.1. */
  threshold?: number;
  /** A change of at most this many pixels passes. */
  maxDiffPixels?: number;
  /** A change of at most this share of the page's pixels (0..1) passes; with both set, the smaller wins. */
  maxDiffPixelRatio?: number;
  /** Pass a diff that is likely render noise. Default false. */
  noiseAutoPass?: boolean;
  /**
   * Fail a snapshot that another environment (a browser build, a machine) only drew
   * differently — same DOM, styles, layout and fonts — instead of passing it, to re-approve on
   * every browser upgrade. Default false.
   */
  strictRendering?: boolean;
  /**
   * Capture the whole scrollable page. Default true. Given in the call on a Locator of an
   * element that scrolls, the element's whole scrollable content.
   */
  fullPage?: boolean;
  /**
   * What to hide, as toHaveScreenshot's `mask`: CSS selectors (a call may also give Locators).
   * Each element's box is painted with `maskColor` in the capture and, before comparing, in the
   * baseline too, and left out of the DOM/style check. A call's `mask` replaces the config file's.
   */
  mask?: Array<Locator | string>;
  /** CSS selectors whose elements are left out of the pixel and DOM/style checks, without painting. */
  ignoreSelectors?: string[];
  /**
   * Boxes left out of the pixel check on both sides, without painting (the capture shows them;
   * the report hatches them): `{ x, y, width, height }` in CSS pixels of the capture, from its
   * top-left corner (page pixels for a full-page shot), as a clip is given. At most 64, not
   * overlapping, inside the capture.
   */
  ignoreRegions?: Array<{ x: number; y: number; width: number; height: number }>;
  /** The colour masked boxes are painted with, any CSS colour. Default `#FF00FF`, as Playwright's. */
  maskColor?: string;
  /** Computed-style longhands to digest for each element. Default the spec's 39 longhands. */
  styleProperties?: string[];
  /** Capture only this area of the page, in CSS pixels. */
  clip?: { x: number; y: number; width: number; height: number };
  /**
   * How long to wait for two consecutive equal shots (and for a Locator's element to be
   * stable), in ms. Default Playwright's `expect.toHaveScreenshot.timeout`, else the expect
   * timeout.
   */
  timeout?: number;
  /** Use the perceptual comparator. Default false. */
  perceptual?: boolean;
  /**
   * `"disabled"` (default) stops CSS animations, transitions and Web Animations while
   * capturing; `"allow"` leaves them.
   */
  animations?: 'disabled' | 'allow';
  /** `"hide"` (default) hides the text caret while capturing; `"initial"` leaves it. */
  caret?: 'hide' | 'initial';
  /** `"css"` (default): one image pixel per CSS pixel; `"device"`: one per device pixel. */
  scale?: 'css' | 'device';
  /** Capture with a transparent page background. Default false. */
  omitBackground?: boolean;
  /**
   * CSS files applied while capturing (the DOM/style check sees them too). A call's paths are
   * relative to the folder the tests run in, the config file's to the project root.
   */
  stylePath?: string | string[];
  /** Wait for the page's images to load and decode before capturing. Default true. */
  waitForImages?: boolean;
  /**
   * Wait until no element has `aria-busy="true"`; a page that stays busy fails, naming the
   * element. Default true.
   */
  waitForAriaBusy?: boolean;
  /**
   * Wait until the requests the page started (fetch, XHR, scripts, stylesheets, fonts, images)
   * have finished and its DOM has stopped changing; a request still pending at the timeout
   * makes the capture unhealthy, naming it. Default true.
   */
  waitForRequests?: boolean;
  /**
   * Requests never waited for, as URL globs (`https://api.example.com/events/**`: `*` within
   * a path segment, `**` across them, `{a,b}` either): a long poll or a stream that stays
   * open by design.
   */
  ignoreRequests?: string[];
  /** Hide scrollbars while capturing. Default true. */
  hideScrollbars?: boolean;
  /**
   * Move the mouse off the page first, so nothing shows its hover state (the mouse stays
   * there). Default false: a test that hovers on purpose captures the hover.
   */
  clearHover?: boolean;
}

/** `.sightline/config.json`: every key optional, with the defaults below. */
export interface SightlineConfig {
  /** Where results.json and the report go, relative to the project root. Default `visual-report`. */
  reportDir?: string;
  /** Per-pixel colour tolerance, 0..1 (pixelmatch scale). Default 0.1. */
  threshold?: number;
  /** Ignore pixels detected as anti-aliasing. Default true. */
  antialiasing?: boolean;
  /** A change of at most this many pixels passes. */
  maxDiffPixels?: number;
  /** A change of at most this share of the page's pixels (0..1) passes; with both set, the smaller wins. */
  maxDiffPixelRatio?: number;
  /** Pass a diff that is likely render noise. Default false. */
  noiseAutoPass?: boolean;
  /**
   * Fail a snapshot that another environment (a browser build, a machine) only drew
   * differently — same DOM, styles, layout and fonts — instead of passing it, to re-approve on
   * every browser upgrade. Default false.
   */
  strictRendering?: boolean;
  /**
   * Capture the whole scrollable page. Default true. Given in the call on a Locator of an
   * element that scrolls, the element's whole scrollable content.
   */
  fullPage?: boolean;
  /**
   * What to hide, as toHaveScreenshot's `mask`: CSS selectors (a call may also give Locators).
   * Each element's box is painted with `maskColor` in the capture and, before comparing, in the
   * baseline too, and left out of the DOM/style check. A call's `mask` replaces the config file's.
   */
  mask?: string[];
  /** CSS selectors whose elements are left out of the pixel and DOM/style checks, without painting. */
  ignoreSelectors?: string[];
  /**
   * Boxes left out of the pixel check on both sides, without painting (the capture shows them;
   * the report hatches them): `{ x, y, width, height }` in CSS pixels of the capture, from its
   * top-left corner (page pixels for a full-page shot), as a clip is given. At most 64, not
   * overlapping, inside the capture.
   */
  ignoreRegions?: Array<{ x: number; y: number; width: number; height: number }>;
  /** The colour masked boxes are painted with, any CSS colour. Default `#FF00FF`, as Playwright's. */
  maskColor?: string;
  /** The MCP approve tools ask for a human's confirmation. Default true. */
  mcpApprovalPrompt?: boolean;
  /** Computed-style longhands to digest for each element. Default the spec's 39 longhands. */
  styleProperties?: string[];
  /** Write a baseline on a snapshot's first run. Default false. */
  writeMissingBaselines?: boolean;
  /** What a shard does: `compare` (default) or `capture-only` (the merge job compares). */
  shardMode?: 'compare' | 'capture-only';
  /**
   * `"disabled"` (default) stops CSS animations, transitions and Web Animations while
   * capturing; `"allow"` leaves them.
   */
  animations?: 'disabled' | 'allow';
  /** `"hide"` (default) hides the text caret while capturing; `"initial"` leaves it. */
  caret?: 'hide' | 'initial';
  /** `"css"` (default): one image pixel per CSS pixel; `"device"`: one per device pixel. */
  scale?: 'css' | 'device';
  /** Capture with a transparent page background. Default false. */
  omitBackground?: boolean;
  /**
   * CSS files applied while capturing (the DOM/style check sees them too). A call's paths are
   * relative to the folder the tests run in, the config file's to the project root.
   */
  stylePath?: string | string[];
  /** Wait for the page's images to load and decode before capturing. Default true. */
  waitForImages?: boolean;
  /**
   * Wait until no element has `aria-busy="true"`; a page that stays busy fails, naming the
   * element. Default true.
   */
  waitForAriaBusy?: boolean;
  /**
   * Wait until the requests the page started (fetch, XHR, scripts, stylesheets, fonts, images)
   * have finished and its DOM has stopped changing; a request still pending at the timeout
   * makes the capture unhealthy, naming it. Default true.
   */
  waitForRequests?: boolean;
  /**
   * Requests never waited for, as URL globs (`https://api.example.com/events/**`: `*` within
   * a path segment, `**` across them, `{a,b}` either): a long poll or a stream that stays
   * open by design.
   */
  ignoreRequests?: string[];
  /** Hide scrollbars while capturing. Default true. */
  hideScrollbars?: boolean;
  /**
   * Move the mouse off the page first, so nothing shows its hover state (the mouse stays
   * there). Default false: a test that hovers on purpose captures the hover.
   */
  clearHover?: boolean;
  /**
   * Where approved baselines live under `.sightline/baselines`: a template of `{name}`,
   * `{project}`, `{platform}`, `{testFile}`. Default `{name}/{project}`.
   */
  baselinePath?: string;
}

/** The settings one call resolves to: the defaults, Playwright's `expect.toHaveScreenshot`, the config file and the call, lowest first. */
export interface ResolvedSettings {
  /** Where results.json and the report go, relative to the project root. Default `visual-report`. */
  reportDir: string;
  /** Per-pixel colour tolerance, 0..1 (pixelmatch scale). Default 0.1. */
  threshold: number;
  /** Ignore pixels detected as anti-aliasing. Default true. */
  antialiasing: boolean;
  /** A change of at most this many pixels passes. */
  maxDiffPixels?: number;
  /** A change of at most this share of the page's pixels (0..1) passes; with both set, the smaller wins. */
  maxDiffPixelRatio?: number;
  /** Pass a diff that is likely render noise. Default false. */
  noiseAutoPass: boolean;
  /**
   * Fail a snapshot that another environment (a browser build, a machine) only drew
   * differently — same DOM, styles, layout and fonts — instead of passing it, to re-approve on
   * every browser upgrade. Default false.
   */
  strictRendering: boolean;
  /**
   * Capture the whole scrollable page. Default true. Given in the call on a Locator of an
   * element that scrolls, the element's whole scrollable content.
   */
  fullPage: boolean;
  /**
   * What to hide, as toHaveScreenshot's `mask`: CSS selectors (a call may also give Locators).
   * Each element's box is painted with `maskColor` in the capture and, before comparing, in the
   * baseline too, and left out of the DOM/style check. A call's `mask` replaces the config file's.
   */
  mask: string[];
  /** CSS selectors whose elements are left out of the pixel and DOM/style checks, without painting. */
  ignoreSelectors: string[];
  /**
   * Boxes left out of the pixel check on both sides, without painting (the capture shows them;
   * the report hatches them): `{ x, y, width, height }` in CSS pixels of the capture, from its
   * top-left corner (page pixels for a full-page shot), as a clip is given. At most 64, not
   * overlapping, inside the capture.
   */
  ignoreRegions: Array<{ x: number; y: number; width: number; height: number }>;
  /** The colour masked boxes are painted with, any CSS colour. Default `#FF00FF`, as Playwright's. */
  maskColor: string;
  /** The MCP approve tools ask for a human's confirmation. Default true. */
  mcpApprovalPrompt: boolean;
  /** Computed-style longhands to digest for each element. Default the spec's 39 longhands. */
  styleProperties: string[];
  /** Write a baseline on a snapshot's first run. Default false. */
  writeMissingBaselines: boolean;
  /** What a shard does: `compare` (default) or `capture-only` (the merge job compares). */
  shardMode: 'compare' | 'capture-only';
  /** Capture only this area of the page, in CSS pixels. */
  clip?: { x: number; y: number; width: number; height: number };
  /**
   * How long to wait for two consecutive equal shots (and for a Locator's element to be
   * stable), in ms. Default Playwright's `expect.toHaveScreenshot.timeout`, else the expect
   * timeout.
   */
  timeout?: number;
  /** Use the perceptual comparator. Default false. */
  perceptual: boolean;
  /**
   * `"disabled"` (default) stops CSS animations, transitions and Web Animations while
   * capturing; `"allow"` leaves them.
   */
  animations: 'disabled' | 'allow';
  /** `"hide"` (default) hides the text caret while capturing; `"initial"` leaves it. */
  caret: 'hide' | 'initial';
  /** `"css"` (default): one image pixel per CSS pixel; `"device"`: one per device pixel. */
  scale: 'css' | 'device';
  /** Capture with a transparent page background. Default false. */
  omitBackground: boolean;
  /**
   * CSS files applied while capturing (the DOM/style check sees them too). A call's paths are
   * relative to the folder the tests run in, the config file's to the project root.
   */
  stylePath: string[];
  /** Wait for the page's images to load and decode before capturing. Default true. */
  waitForImages: boolean;
  /**
   * Wait until no element has `aria-busy="true"`; a page that stays busy fails, naming the
   * element. Default true.
   */
  waitForAriaBusy: boolean;
  /**
   * Wait until the requests the page started (fetch, XHR, scripts, stylesheets, fonts, images)
   * have finished and its DOM has stopped changing; a request still pending at the timeout
   * makes the capture unhealthy, naming it. Default true.
   */
  waitForRequests: boolean;
  /**
   * Requests never waited for, as URL globs (`https://api.example.com/events/**`: `*` within
   * a path segment, `**` across them, `{a,b}` either): a long poll or a stream that stays
   * open by design.
   */
  ignoreRequests: string[];
  /** Hide scrollbars while capturing. Default true. */
  hideScrollbars: boolean;
  /**
   * Move the mouse off the page first, so nothing shows its hover state (the mouse stays
   * there). Default false: a test that hovers on purpose captures the hover.
   */
  clearHover: boolean;
  /**
   * Where approved baselines live under `.sightline/baselines`: a template of `{name}`,
   * `{project}`, `{platform}`, `{testFile}`. Default `{name}/{project}`.
   */
  baselinePath: string;
}
