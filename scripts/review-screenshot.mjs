// `node scripts/review-screenshot.mjs`: retakes docs/review-page.png, the README's picture of the
// review page, from the bundled example's run (run `npm run example` first). The example's
// catalogue page shift is focused by key and approved, so the picture shows the sticky bar with
// its progress and commit line, a decided card and the aligned diff.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const repo = new URL('..', import.meta.url).pathname;
const shop = path.join(repo, 'examples', 'shop');
const binary = path.join(repo, 'target', 'release', 'sightline');
if (!existsSync(path.join(shop, 'visual-report', 'results.json'))) {
  console.error('review-screenshot: no run of the example to review; run npm run example first');
  process.exit(2);
}

const server = spawn(binary, ['--root', shop, 'review'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (chunk) => {
    out += chunk;
    const found = out.match(/^sightline review: (http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/)$/m);
    if (found) resolve(found[1]);
  });
  server.on('exit', (code) => reject(new Error(`sightline review exited ${code}`)));
});
const browser = await chromium.launch({ executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.locator('#progress').waitFor();
  // The catalogue's card (the page shift): focused by key, then approved.
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('j');
    if ((await page.locator('article.card.focused').getAttribute('data-name')) === 'catalogue') break;
  }
  await page.keyboard.press('a');
  await page.locator('#commit-command').waitFor({ state: 'visible' });
  await page.locator('article.card.focused .f-aligned img').evaluate((img) => img.decode());
  await page.screenshot({ path: path.join(repo, 'docs', 'review-page.png') });
  console.log('review-screenshot: wrote docs/review-page.png');
} finally {
  await browser.close();
  server.kill();
}
// Leave the example as the run left it: the approval is undone by running the example again.
