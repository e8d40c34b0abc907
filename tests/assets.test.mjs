// The asset digests the matcher records (playwright-fixtures/assets.js), in real Chromium: every
// image a page loaded, with a SHA-256 of its bytes, and no more than the latest 512 kept however
// many the page loads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { chromium } from '@playwright/test';
import { chromium as executablePath, skip } from './support/playwright-runs.mjs';

const { watchAssets, assetDigests } = createRequire(import.meta.url)('../playwright-fixtures/assets.js');

test('assets: each image a page loaded is digested, the latest 512 kept of 600', { skip }, async () => {
  const browser = await chromium.launch({ executablePath });
  try {
    const page = await browser.newPage();
    watchAssets(page);
    // 600 distinct files: an SVG naming its number.
    const svg = (n) => `<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"><desc>${n}</desc></svg>`;
    await page.route('http://assets.test/**', (route) => {
      const { pathname } = new URL(route.request().url());
      if (pathname === '/') {
        const images = Array.from({ length: 600 }, (_, n) => `<img src="/i${n}.svg">`).join('');
        return route.fulfill({ contentType: 'text/html', body: `<!doctype html>${images}` });
      }
      return route.fulfill({ contentType: 'image/svg+xml', body: svg(pathname.match(/\d+/)[0]) });
    });
    await page.goto('http://assets.test/', { waitUntil: 'load' });
    const all = await assetDigests(page, 1000);
    assert.equal(all.length, 512);
    assert.deepEqual(all.at(-1), { kind: 'image', url: 'http://assets.test/i599.svg', digest: createHash('sha256').update(svg(599)).digest('hex').slice(0, 32) });
    assert.equal(new Set(all.map((a) => a.url)).size, 512);
    assert.equal((await assetDigests(page, 128)).length, 128);
  } finally {
    await browser.close();
  }
});
