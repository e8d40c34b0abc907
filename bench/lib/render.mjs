// Renders the benchmark page with real Chromium and caches the screenshots.
//
// Rendering takes several seconds, so the PNGs are kept in bench/.work/shots-<hash>/, where the
// hash covers the page source of every variant and the capture settings: edit the page and the
// next run renders again; leave it alone and runs start straight at the timing.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { PAGE_HEIGHT, PAGE_WIDTH, VARIANTS, expectedHeight, pageHtml } from './page.mjs';

/** The shots every run needs: `identical` is a second page load of `base`. */
export const SHOTS = ['base', 'identical', 'recolour', 'shift', 'shift-top'];

// Fixed capture settings; part of the cache key because they change the pixels.
const CAPTURE = {
  viewport: { width: PAGE_WIDTH, height: 800 },
  deviceScaleFactor: 1,
  screenshot: { type: 'png', fullPage: true, animations: 'disabled', caret: 'hide' },
};

function cacheKey() {
  const hash = createHash('sha256');
  for (const variant of VARIANTS) hash.update(pageHtml(variant));
  hash.update(JSON.stringify(CAPTURE));
  return hash.digest('hex').slice(0, 16);
}

/** Writes through a temp file + rename so an interrupted run never leaves half a PNG cached. */
function writeAtomic(file, bytes) {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, bytes);
  renameSync(temp, file);
}

/**
 * Loads one variant in a fresh browser context (no shared cache or layout state between loads)
 * and takes a full-page screenshot. `clipHeight` takes only the top rows, from the same load.
 */
async function capture(browser, variant, clipHeight) {
  const context = await browser.newContext({
    viewport: CAPTURE.viewport,
    deviceScaleFactor: CAPTURE.deviceScaleFactor,
  });
  try {
    const page = await context.newPage();
    await page.setContent(pageHtml(variant), { waitUntil: 'load' });
    await page.evaluate(() => document.fonts.ready.then(() => true));
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    if (height !== expectedHeight(variant)) {
      throw new Error(`bench page "${variant}" is ${height} px tall, expected ${expectedHeight(variant)}: `
        + 'fix the block heights in bench/lib/page.mjs');
    }
    const full = await page.screenshot(CAPTURE.screenshot);
    if (!clipHeight) return [full];
    const top = await page.screenshot({
      ...CAPTURE.screenshot,
      clip: { x: 0, y: 0, width: PAGE_WIDTH, height: clipHeight },
    });
    return [full, top];
  } finally {
    await context.close();
  }
}

async function renderAll(dir, chromiumPath) {
  // Imported here so a cached run never loads Playwright.
  const { chromium } = await import('playwright-core');
  if (!existsSync(chromiumPath)) {
    throw new Error(`no Chromium at ${chromiumPath}: apt-get install -y --no-install-recommends chromium, `
      + 'or point SIGHTLINE_CHROMIUM at one');
  }
  console.log(`rendering the bench page with ${chromiumPath} …`);
  const started = performance.now();
  const browser = await chromium.launch({ executablePath: chromiumPath });
  try {
    const [base] = await capture(browser, 'base');
    const [identical] = await capture(browser, 'base');
    const [recolour] = await capture(browser, 'recolour');
    // The shift page is 24 px taller; tools that need equal sizes compare its top PAGE_HEIGHT
    // rows, which Chromium encodes itself from the same load so every PNG comes from one encoder.
    const [shift, shiftTop] = await capture(browser, 'shift', PAGE_HEIGHT);
    const shots = { base, identical, recolour, shift, 'shift-top': shiftTop };
    mkdirSync(dir, { recursive: true });
    for (const [name, bytes] of Object.entries(shots)) writeAtomic(path.join(dir, `${name}.png`), bytes);
    writeAtomic(path.join(dir, 'meta.json'), JSON.stringify({ chromium: browser.version(), chromiumPath }, null, 2));
    console.log(`rendered ${SHOTS.length} screenshots in ${((performance.now() - started) / 1000).toFixed(1)} s (Chromium ${browser.version()})`);
  } finally {
    await browser.close();
  }
}

/**
 * Returns `{ dir, files: { base: path, … }, chromium }`, rendering first when the cache for the
 * current page source is missing or `fresh` is set.
 */
export async function screenshots(workDir, { chromiumPath, fresh }) {
  const dir = path.join(workDir, `shots-${cacheKey()}`);
  const files = Object.fromEntries(SHOTS.map((name) => [name, path.join(dir, `${name}.png`)]));
  const cached = Object.values(files).every((file) => existsSync(file)) && existsSync(path.join(dir, 'meta.json'));
  if (!cached || fresh) await renderAll(dir, chromiumPath);
  else console.log(`using cached screenshots in ${path.relative(process.cwd(), dir)}`);
  const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  return { dir, files, chromium: meta.chromium };
}
