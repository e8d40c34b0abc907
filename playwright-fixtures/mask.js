// `mask` as toHaveScreenshot takes it: Locators, CSS selector strings, or a mix. The engine reads
// selectors (from the call and from .sightline/config.json) and checks the list; a Locator cannot
// travel to it, so its elements are marked in the page for each DOM walk that records them as
// masked, and the mark is removed straight after. The engine then paints every masked box with
// maskColor.
'use strict';

const MARK = 'data-sightline-mask';

/** Whether a mask entry is a Locator (the engine reads only selectors). */
function isMaskLocator(value) {
  return Boolean(value) && typeof value.evaluateAll === 'function' && typeof value.page === 'function';
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

module.exports = { isMaskLocator, markLocators };
