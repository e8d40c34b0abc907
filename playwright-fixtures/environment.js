// Where a page is rendered: the browser and its version, the platform, and the fonts its text
// was drawn with. The same page drawn by another browser build or on another machine differs in
// pixels where nothing on the page changed; the engine reads this to tell the two apart.
'use strict';

const { nodeOf, withDocument } = require('./devtools.js');

/** The attribute that marks, for a moment, one element per family for CDP to find. */
const MARK = 'data-sightline-font';

/**
 * `{ browser, browserVersion, platform, launchArgs }` for `page`, or undefined when Playwright
 * cannot name its browser (a persistent context). `launchArgs` are the project's
 * `launchOptions.args`: the engine keeps those that change how text and edges are rasterised.
 */
function captureEnvironment(page, launchArgs) {
  const browser = page.context().browser();
  if (!browser) return undefined;
  return {
    browser: browser.browserType().name(),
    browserVersion: browser.version(),
    platform: process.platform,
    launchArgs: Array.isArray(launchArgs) ? launchArgs.filter((arg) => typeof arg === 'string') : [],
  };
}

/**
 * For each computed `font-family` of the page's visible text: the faces that drew it, most
 * glyphs first (`CSS.getPlatformFontsForNode`, which names the local font that served a generic
 * or missing family, or the web font). One element per family is asked: a family's text is drawn
 * by the same faces wherever it is, unless its characters need another (a fallback for a script),
 * which that family's first element may not show. `elements` (`[{ family, selector }]`) are the
 * ones the engine chose from the DOM record; without them (a record without `font-family`) the
 * page marks one per family itself. Only Chromium's DevTools protocol can say; in another
 * browser, none. The engine asks only for a capture it will store, so an unchanged page costs no
 * lookup.
 */
async function renderedFonts(page, maxFamilies, elements) {
  if (page.context().browser()?.browserType().name() !== 'chromium') return [];
  if (elements) return elements.length === 0 ? [] : fontsOf(page, elements);
  const families = await page.evaluate(markOnePerFamily, { mark: MARK, max: maxFamilies });
  if (families.length === 0) return [];
  try {
    return await fontsOf(
      page,
      families.map((family, index) => ({ family, selector: `[${MARK}="${index}"]` })),
    );
  } finally {
    await page.evaluate((mark) => {
      for (const element of document.querySelectorAll(`[${mark}]`)) element.removeAttribute(mark);
    }, MARK);
  }
}

/** The faces that drew each `{ family, selector }`'s element; an element not found is left out. */
function fontsOf(page, elements) {
  return withDocument(page, async (cdp, root) => {
    // Asked all at once: the protocol answers in order, without a round trip per element.
    const fonts = await Promise.all(
      elements.map(async ({ family, selector }) => {
        const nodeId = await nodeOf(cdp, root, selector);
        if (!nodeId) return undefined;
        const { fonts: used } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
        const faces = used
          .sort((a, b) => b.glyphCount - a.glyphCount)
          .map((font) => ({ name: font.familyName, web: font.isCustomFont }));
        return { family, faces };
      }),
    );
    return fonts.filter((font) => font !== undefined && font.faces.length > 0);
  });
}

/**
 * In the page: marks the first rendered element holding its own text for each distinct computed
 * `font-family` (`mark="<index>"`), and returns the families in index order.
 */
function markOnePerFamily({ mark, max }) {
  const families = [];
  const seen = new Set();
  const asked = new Set();
  const walker = document.createTreeWalker(document.body ?? document.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node && families.length < max; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!element || asked.has(element) || !node.data.trim()) continue;
    asked.add(element);
    const family = getComputedStyle(element).fontFamily;
    if (seen.has(family) || element.getClientRects().length === 0) continue;
    seen.add(family);
    element.setAttribute(mark, String(families.length));
    families.push(family);
  }
  return families;
}

module.exports = { captureEnvironment, renderedFonts };
