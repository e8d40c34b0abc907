// The HTML report of `npm run example`, opened from file:// in Chromium: self-contained (no
// request leaves file://), the summary counts, the style-only change with its style table, the
// page shift with its region boxes, the images of a changed card, and the status filters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const repo = new URL('..', import.meta.url).pathname;
const report = path.join(repo, 'examples', 'shop', 'visual-report', 'index.html');
const chromiumPath = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const skip = !existsSync(chromiumPath) && `Chromium not found at ${chromiumPath} (set SIGHTLINE_CHROMIUM)`;
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);

test('report: the example report opens from file:// and shows the changes it found', { skip }, async () => {
  const run = spawnSync(process.execPath, ['scripts/example.mjs'], { cwd: repo, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.ok(existsSync(report), `no report at ${report}`);

  const { chromium } = await import('@playwright/test');
  const browser = await chromium.launch({ executablePath: chromiumPath });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const requests = [];
    const errors = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(report).href, { waitUntil: 'load' });

    // Summary: totals per status.
    const totals = await page.locator('.totals').innerText();
    assert.match(totals, /1 passed/);
    assert.match(totals, /2 changed/);
    assert.match(totals, /0 new/);
    assert.match(totals, /0 missing/);

    // The style-only change: its verdict and its style table, old → new colour.
    const home = page.locator('article.card[data-name="home"]');
    assert.equal(await home.getAttribute('data-status'), 'changed');
    assert.match(await home.locator('.verdict').innerText(), /^Style-only change: 13 elements restyled/);
    const styles = await home.locator('section.styles table').innerText();
    assert.match(styles, /body > section\.hero > a\.btn\s+background-color\s+rgb\(37, 99, 235\)\s*→\s*rgb\(220, 38, 38\)/);
    assert.ok(styles.includes('rgb(37, 99, 235)') && styles.includes('rgb(220, 38, 38)'));
    assert.ok((await home.locator('section.styles .sw').count()) > 0, 'colour swatches');

    // The page shift: region boxes drawn over the current image, scaled with it.
    const catalogue = page.locator('article.card[data-name="catalogue"]');
    assert.match(await catalogue.locator('.verdict').innerText(), /^Page shift: content below y=284 moved down 60 px/);
    const boxes = catalogue.locator('figure.f-current .rg');
    assert.ok((await boxes.count()) > 0, 'no region boxes on the catalogue card');
    const hero = catalogue.locator('figure.f-current .rg', { hasText: '#catalogue-hero' }).first();
    const box = await hero.boundingBox();
    const img = await catalogue.locator('figure.f-current img').boundingBox();
    assert.ok(box && box.width > 0 && box.height > 0, 'the #catalogue-hero box has a size');
    assert.ok(box.x >= img.x - 2 && box.x + box.width <= img.x + img.width + 2, 'the box lies on the image');

    // The three images of a changed card load (relative srcs next to index.html).
    for (const kind of ['baseline', 'current', 'diff']) {
      const width = await home.locator(`figure.f-${kind} img`).evaluate(async (el) => {
        if (!el.complete) await new Promise((resolve) => el.addEventListener('load', resolve, { once: true }));
        return el.naturalWidth;
      });
      assert.ok(width > 0, `home ${kind} image did not load`);
    }

    // Filters: "passed" hides the changed cards and shows the passed one.
    await page.click('.toolbar [data-filter="passed"]');
    assert.equal(await home.isVisible(), false);
    assert.equal(await catalogue.isVisible(), false);
    assert.equal(await page.locator('article.card[data-name="about"]').isVisible(), true);
    await page.click('.toolbar [data-filter="all"]');
    assert.equal(await home.isVisible(), true);

    await page.screenshot({ path: '/tmp/report.png', fullPage: true });
    assert.deepEqual(errors, []);
    const outside = requests.filter((url) => !url.startsWith('file://'));
    assert.deepEqual(outside, [], 'the report must not reach the network');
    assert.ok(requests.length > 1, 'the report loaded its images');
  } finally {
    await browser.close();
  }
});
