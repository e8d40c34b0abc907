// Types for collector.js (the DOM record from Node) and collector-in-page.js (the in-page collector).
import type { ElementHandle, Frame, Locator, Page } from '@playwright/test';

/** One rendered element, in document order (open shadow roots and same-origin iframes included). */
export interface DomElement {
  /** Index of the parent record; -1 for the top document's `body` (or the `scope` element). */
  parent: number;
  /** Local name: `div`, `x-card`, `svg`, `rect`. */
  tag: string;
  /**
   * Relative to the parent's (version 4): a segment (`li.item:nth-of-type(2)`), `#id` (after its
   * tree's prefix), or `>>> segment` for the first element of a shadow root or an iframe's document;
   * the root's whole path. The core composes the full paths, unique in the capture.
   */
  selector: string;
  /**
   * Border box `[x, y, width, height]` in page CSS px (scroll and iframe offsets applied), 2 decimals;
   * with `scope`, relative to the scope element's border-box top-left (its own box is `[0, 0, w, h]`).
   */
  box: [number, number, number, number];
  /** FNV-1a 64 (16 hex) of the element's own text nodes, whitespace collapsed; absent when empty. */
  text?: string;
  /** FNV-1a 64 of the `<img>` / SVG `<image>` source and the computed `background-image`; absent when none. */
  image?: string;
  /** Index of its row in `styleRows`: the computed values of `styleProperties`, same order. */
  style: number;
  /** Matched by a mask selector, or inside an element that is: the engine paints the top one's box with maskColor; absent when false. */
  masked?: true;
  /** Matched by an ignore selector, or inside an element that is (left out, not painted); absent when false. */
  ignored?: true;
}

/** What `collectDom` returns, once parsed. */
export interface DomCapture {
  version: 4;
  url: string;
  viewport: { width: number; height: number };
  devicePixelRatio: number;
  /** Scrollable size of the top document in CSS px; with `scope`, the scope element's border-box size. */
  document: { width: number; height: number };
  styleProperties: string[];
  /** Each distinct list of computed values once, aligned with `styleProperties`. */
  styleRows: string[][];
  elements: DomElement[];
  /** Each distinct (family, FontFace status) of the walked documents; with `scope`, only families the subtree's `font-family` names. */
  fonts: { family: string; status: 'unloaded' | 'loading' | 'loaded' | 'error' }[];
  /** Rendered `<img>` that finished without pixels (`complete && naturalWidth === 0`). */
  brokenImages: string[];
}

export interface CollectOptions {
  /** Longhand CSS properties to record, in the order `styles` values come in: the core's resolved list (`resolveSettings().styleProperties`). */
  styleProperties: readonly string[];
  /** CSS selectors (not Locators) whose elements and descendants are recorded as masked. Default none. */
  mask?: readonly string[];
  /** CSS selectors whose elements and descendants are recorded as ignored. Default none. */
  ignore?: readonly string[];
  /**
   * Record only this element and its rendered descendants (for an element screenshot): the element is
   * the root (parent -1, full page selector), boxes are relative to its border box, `document` is its
   * size. A Locator must resolve to one element. Default: the whole page.
   */
  scope?: ElementHandle | Locator;
  /** The screenshot's scale: `css` records a pixel ratio of 1 whatever the device's. Default `device`. */
  scale?: 'css' | 'device';
  /**
   * The page screenshot the boxes must line up with: a full page starts at the document's corner, a
   * viewport shot at the scroll position, and `clip` moves the corner by its `x`, `y` (clamped at 0).
   * Default a full page without clip. Not used with `scope`.
   */
  shot?: { fullPage: boolean; clip?: { x: number; y: number } | null };
}

/** Collects the DOM record with one `page.evaluate`; resolves to the JSON text of a `DomCapture`. */
export function collectDom(page: Page | Frame, options: CollectOptions): Promise<string>;

/** The self-contained in-page function `collectDom` evaluates. */
export function collectInPage(args: {
  styleProperties: string[];
  mask: string[];
  ignore?: string[];
  scope?: Element | null;
  scale?: 'css' | 'device';
  shot?: { fullPage: boolean; clip?: { x: number; y: number } | null };
  /** Return only these elements' selectors (a JSON array, null for a disconnected element). */
  selectorsFor?: ArrayLike<Element | null>;
}): string;
