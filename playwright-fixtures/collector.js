'use strict';
// Collecting a page's DOM record from Node: one `page.evaluate` of the in-page collector
// (`collector-in-page.js`, where the record's shape and the selector rules are), with its
// options checked here first.

const { collectInPage } = require('./collector-in-page');

/**
 * Collects the page's DOM record (see the top of this file) with one `page.evaluate`.
 * @param {import('@playwright/test').Page | import('@playwright/test').Frame} page
 * @param {{styleProperties?: readonly string[], mask?: readonly string[],
 *   scope?: import('@playwright/test').ElementHandle | import('@playwright/test').Locator}} [options]
 *   `styleProperties`: the longhand CSS properties to record, as the core resolved and checked
 *   them (`resolveSettings().styleProperties`; the live tools' lists come from the binary);
 *   `mask`: CSS selectors whose elements (and descendants) are recorded as masked, default none;
 *   `scope`: record only this element and its descendants, boxes relative to its border box (see
 *   "Scoped capture" at the top), default the whole page; `shot`: `{fullPage, clip}` of the
 *   page screenshot the boxes must line up with (see "Boxes" at the top), default a full page;
 *   `scale`: the screenshot's, `css`
 *   records a pixel ratio of 1, default the device's.
 * @returns {Promise<string>} the JSON string, unparsed: it goes to the Rust core as is.
 */
async function collectDom(page, options = {}) {
  const { styleProperties } = options;
  const mask = options.mask ?? [];
  const ignore = options.ignore ?? [];
  if (!Array.isArray(styleProperties) || styleProperties.some((p) => typeof p !== 'string' || p === '')) {
    throw new TypeError('sightline: styleProperties must be an array of CSS property names, e.g. ["color", "margin-top"]');
  }
  for (const [option, list] of [['mask', mask], ['ignore', ignore]]) {
    if (!Array.isArray(list) || list.some((s) => typeof s !== 'string')) {
      throw new TypeError(`sightline: collectDom's ${option} must be an array of CSS selector strings, e.g. [".ad", "#clock"]`);
    }
  }
  const args = { styleProperties: [...styleProperties], mask: [...mask], ignore: [...ignore], scale: options.scale ?? 'device' };
  // Checked by the settings (resolveSettings): boxes in the capture's CSS pixels.
  if (options.ignoreRegions?.length) args.ignoreRegions = options.ignoreRegions.map(({ x, y, width, height }) => ({ x, y, width, height }));
  if (options.shot) args.shot = { fullPage: Boolean(options.shot.fullPage), clip: options.shot.clip ?? null };
  const scope = options.scope;
  if (scope === undefined || scope === null) return page.evaluate(collectInPage, args);
  if (typeof scope.ownerFrame === 'function' && typeof scope.asElement === 'function') {
    return collectScoped(page, scope, args);
  }
  if (typeof scope.elementHandle === 'function') {
    const handle = await scope.elementHandle();
    try {
      return await collectScoped(page, handle, args);
    } finally {
      await handle.dispose();
    }
  }
  throw new TypeError('sightline: scope must be an ElementHandle or a Locator (of one element)');
}

// The scope element may live in a child frame: the collector runs in the frame that owns it
// (a handle can only be passed to its own frame), and climbs to the page for its selector.
async function collectScoped(page, handle, args) {
  const element = handle.asElement();
  if (!element) throw new TypeError('sightline: scope is a JSHandle, not an element');
  const frame = (await element.ownerFrame()) ?? page;
  return frame.evaluate(collectInPage, { ...args, scope: element });
}

module.exports = {
  collectDom,
  collectInPage,
};
