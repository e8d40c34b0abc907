// `mask` as toHaveScreenshot takes it: Locators, CSS selector strings, or a mix. The engine reads
// selectors (from the call and from .sightline/config.json); a Locator cannot travel to it, so
// its elements are marked in the page for the one DOM walk that records them as masked, and the
// mark is removed straight after. The engine then paints every masked box with maskColor.
'use strict';

const MARK = 'data-sightline-mask';

function isLocator(value) {
  return Boolean(value) && typeof value.evaluateAll === 'function' && typeof value.page === 'function';
}

/**
 * Splits a call's options into what the engine checks (`overrides`, mask selectors only) and the
 * mask's Locators. Throws, naming the entry, for an empty list, an entry that is neither a
 * selector nor a Locator, or a Locator of another page.
 */
function splitMask(name, options, page) {
  if (!Object.hasOwn(options, 'mask')) return { overrides: options, locators: [] };
  const { mask } = options;
  const fail = (detail) => new Error(`toMatchVisual("${name}"): mask ${detail}`);
  if (!Array.isArray(mask)) throw fail(`must be an array of Locators or CSS selectors, e.g. [page.locator('#ad'), '.clock']; got ${typeof mask}`);
  if (mask.length === 0) throw fail('is an empty list: leave `mask` out to use .sightline/config.json\'s mask, or list what to hide');
  const selectors = [];
  const locators = [];
  mask.forEach((entry, i) => {
    if (typeof entry === 'string') selectors.push(entry);
    else if (isLocator(entry)) {
      if (entry.page() !== page) throw fail(`[${i}] is a Locator of another page: mask only Locators of the page being captured`);
      locators.push(entry);
    } else {
      throw fail(`[${i}] must be a Locator or a CSS selector string, got ${entry === null ? 'null' : typeof entry}`);
    }
  });
  return { overrides: { ...options, mask: selectors }, locators };
}

let marks = 0;

/**
 * Marks the elements of `locators` in their frames; returns the selector that matches them (for
 * the DOM walk's mask list) and `unmark`, which removes the mark. `null` when there are none.
 */
async function markLocators(locators) {
  if (locators.length === 0) return null;
  const token = `${process.pid}-${++marks}`;
  const set = (elements, [attribute, value]) => elements.forEach((e) => e.setAttribute(attribute, value));
  const unset = (elements, [attribute, value]) => elements.forEach((e) => e.getAttribute(attribute) === value && e.removeAttribute(attribute));
  await Promise.all(locators.map((locator) => locator.evaluateAll(set, [MARK, token])));
  return {
    selector: `[${MARK}="${token}"]`,
    unmark: () => Promise.all(locators.map((locator) => locator.evaluateAll(unset, [MARK, token]).catch(() => {}))),
  };
}

module.exports = { splitMask, markLocators };
