// The DOM record: what `collectDom` costs and weighs on a 5,000-element page (1000 cards of a
// heading, a paragraph with a link, and a tag), the page tests/collector.test.mjs checks too.
// Timed are the whole call as the matcher makes it (the walk in the page, the JSON string's trip
// through the protocol) and the in-page walk alone.

import { createRequire } from 'node:module';
import path from 'node:path';

import { median } from './measure.mjs';

export const DOM_TITLE = 'DOM record of a 5,000-element page (collectDom, as toMatchVisual calls it)';

/** The 5,000-element page: 1000 cards of four elements, plus main, body and html's body. */
export function cardsPage() {
  let html = '<main>';
  for (let i = 0; i < 1000; i++) {
    const id = i % 50 === 0 ? ` id="s${i}"` : '';
    html += `<div class="card c${i % 7}"${id}><h3>Title ${i}</h3><p>Body <a href="#">link</a></p><span class="tag">t</span></div>`;
  }
  return `${html}</main>`;
}

/** `{ elements, bytes, styleRows, wallMs, inPageMs }` or `{ missing }` / `{ error }`. */
export async function domGroup({ root, chromiumPath, runs, addon }) {
  if (addon.missing) return { missing: addon.missing };
  const require = createRequire(path.join(root, 'package.json'));
  const { chromium } = require('playwright-core');
  const { collectDom, collectInPage } = require(path.join(root, 'playwright-fixtures', 'collector.js'));
  const { styleProperties } = require(root).resolveSettings({ root: path.join(root, 'bench', '.work', 'no-project') });
  const browser = await chromium.launch({ executablePath: chromiumPath });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.setContent(cardsPage());
    const wall = [];
    let raw = '';
    // One untimed call first, as every group warms up.
    for (let k = 0; k <= runs; k++) {
      const started = performance.now();
      raw = await collectDom(page, { styleProperties });
      if (k > 0) wall.push(performance.now() - started);
    }
    const inPage = await page.evaluate(([source, props, n]) => {
      const run = (0, eval)(`(${source})`);
      const times = [];
      for (let k = 0; k <= n; k++) {
        const started = performance.now();
        run({ styleProperties: props, mask: [] });
        if (k > 0) times.push(performance.now() - started);
      }
      return times;
    }, [collectInPage.toString(), styleProperties, runs]);
    const dom = JSON.parse(raw);
    return {
      elements: dom.elements.length,
      properties: dom.styleProperties.length,
      styleRows: dom.styleRows?.length ?? null,
      bytes: Buffer.byteLength(raw),
      wallMs: median(wall),
      inPageMs: median(inPage),
    };
  } catch (error) {
    return { error: error.message };
  } finally {
    await browser.close();
  }
}
