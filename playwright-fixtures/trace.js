// The rules behind restyled elements: for a snapshot that fails with restyled elements, which
// rules each element matched (its own, then its ancestors'), where each declaration is written,
// and the source maps of those stylesheets. Raw records only: the engine decides which
// declaration won, which design token a value reads and the original file and line
// (crates/core/src/dom/trace). Only Chromium's DevTools protocol can say; elsewhere, nothing.
'use strict';

const { nodeOf, withDocument } = require('./devtools.js');

/** Largest source map read, as the engine's MAX_SOURCE_MAP_BYTES. */
const MAX_MAP_BYTES = 16 << 20;
/** Source maps read per snapshot, as the engine's MAX_SOURCE_MAPS. */
const MAX_MAPS = 16;

const ORIGINS = { regular: 'regular', 'user-agent': 'userAgent' };

/**
 * `{ sheets, elements, sourceMaps }` as JSON for the engine, for the elements of `selectors`
 * (selectors of the DOM record) and the declarations named in `names` (and every custom property);
 * undefined where the browser cannot say.
 */
async function styleRules(page, selectors, names) {
  if (page.context().browser()?.browserType().name() !== 'chromium') return undefined;
  return withDocument(page, async (cdp, root, headers) => {
    const wanted = new Set(names);
    const used = new Set();
    const record = (origin, selector, style, sheet) => {
      const applies = (p) =>
        (wanted.has(p.name) || p.name.startsWith('--')) && p.value !== '' && !p.disabled && p.parsedOk !== false;
      // A rule written in a file lists its declarations with their place, then the longhands
      // they expand to (no place): only what was written. A rule made by script has no places.
      const written = style.cssProperties.some((p) => p.range);
      const declarations = style.cssProperties
        .filter((p) => applies(p) && (!written || p.range))
        .map((p) => ({
          name: p.name,
          value: p.value,
          important: Boolean(p.important),
          line: p.range?.startLine,
          column: p.range?.startColumn,
        }));
      if (sheet) used.add(sheet);
      return { origin, selector, sheet: sheet ?? null, declarations };
    };
    const rulesOf = (matched, inlineStyle) => {
      const list = matched.map(({ rule }) =>
        record(ORIGINS[rule.origin] ?? 'injected', rule.selectorList.text, rule.style, rule.styleSheetId),
      );
      if (inlineStyle) list.push(record('attribute', 'style', inlineStyle, undefined));
      return list;
    };
    // Asked all at once: the protocol answers in order, without a round trip per element.
    const answers = await Promise.all(
      selectors.map(async (selector) => {
        const nodeId = await nodeOf(cdp, root, selector);
        if (!nodeId) return { found: false, own: [], inherited: [] };
        const matched = await cdp.send('CSS.getMatchedStylesForNode', { nodeId });
        return {
          found: true,
          own: rulesOf(matched.matchedCSSRules ?? [], matched.inlineStyle),
          inherited: (matched.inherited ?? []).map((entry) => rulesOf(entry.matchedCSSRules ?? [], entry.inlineStyle)),
        };
      }),
    );
    const sheets = [...used].filter((id) => headers.has(id)).map((id) => headers.get(id));
    const sourceMaps = [];
    for (const sheet of sheets.filter((s) => s.sourceMapURL).slice(0, MAX_MAPS)) {
      const url = new URL(sheet.sourceMapURL, sheet.sourceURL || page.url()).href;
      sourceMaps.push({ sheet: sheet.styleSheetId, url, ...(await readMap(page, url)) });
    }
    return JSON.stringify({
      sheets: sheets.map((s) => ({
        id: s.styleSheetId,
        url: s.sourceURL,
        inline: Boolean(s.isInline),
        startLine: s.startLine,
        startColumn: s.startColumn,
      })),
      elements: answers,
      sourceMaps,
    });
  });
}

/**
 * The page's answer to a trace request (`{ selectors, names }`, a `trace` step's or a `rendered`
 * step's `trace`) as the session takes it: `{ rules }` (undefined where the browser cannot say),
 * or `{ error }`, the first line of why asking failed. A page that cannot answer (it navigated,
 * the protocol refused) leaves the verdict as it is, and the evidence says why.
 */
async function tracedRules(page, { selectors, names }) {
  try {
    return { rules: await styleRules(page, selectors, names) };
  } catch (e) {
    return { error: String(e?.message ?? e).split('\n')[0] };
  }
}

/**
 * A source map's text (`{ text }`), or why it could not be read (`{ error }`): read by the page
 * itself, so the page's routes and credentials apply, then by the browser context.
 */
async function readMap(page, url) {
  const inPage = await page
    .evaluate(
      async ({ url, max }) => {
        try {
          const response = await fetch(url);
          if (!response.ok) return { error: `HTTP ${response.status}` };
          const text = await response.text();
          return text.length > max ? { error: `${text.length} bytes, above the limit of ${max}` } : { text };
        } catch (err) {
          return { error: String(err?.message ?? err) };
        }
      },
      { url, max: MAX_MAP_BYTES },
    )
    .catch((err) => ({ error: String(err?.message ?? err) }));
  if (inPage.text !== undefined || !/^https?:/.test(url)) return inPage;
  const response = await page.context().request.get(url).catch((err) => ({ error: err }));
  if (response.error) return inPage;
  if (!response.ok()) return { error: `HTTP ${response.status()}` };
  const body = await response.body();
  return body.length > MAX_MAP_BYTES ? { error: `${body.length} bytes, above the limit of ${MAX_MAP_BYTES}` } : { text: body.toString('utf8') };
}

module.exports = { styleRules, tracedRules };
