// `ignoreRegions` (issue 39): a box of the capture, given as x, y, width, height, is left out of
// the comparison on both sides without being painted, and hatched in the report. Real Playwright
// runs in a fresh project: a ticker inside the box changes and the snapshot passes; a change
// outside it is still caught; overlapping and out-of-page boxes are refused, writing nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freshProject, run, skip, tempFolders } from './support/playwright-runs.mjs';
import { readPng } from './video/png.mjs';

const temps = tempFolders();

// A 400 × 300 page: a ticker in the top-left 160 × 40 box, a heading below it. REGIONS is the
// call's ignoreRegions as JSON.
const spec = `
test('home', async ({ page }) => {
  await page.setContent(\`<style>body { margin: 0; font: 16px sans-serif; } #ticker { position: absolute; left: 8px; top: 8px; width: 140px; height: 24px; background: \${process.env.TICKER || '#0ea5e9'}; }
  h1 { position: absolute; top: 80px; left: 8px; margin: 0; color: \${process.env.INK || '#111827'}; }</style>
  <div id="ticker"></div><h1>Prices</h1>\`);
  await expect(page).toMatchVisual('home', { ignoreRegions: JSON.parse(process.env.REGIONS) });
});
`;

const BOX = [{ x: 0, y: 0, width: 160, height: 40 }];

test('ignoreRegions: changing pixels inside the box pass, are not painted, and are hatched in the report', { skip }, () => {
  const root = freshProject(temps, spec, {
    config: {
      use: { viewport: { width: 400, height: 300 }, launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' } },
      reporter: [['line'], ['json', { outputFile: 'report.json' }], ['sightline/reporter']],
    },
    prefix: 'sightline-ignore-regions-',
  });
  const regions = JSON.stringify(BOX);
  const approved = run(root, ['--update-snapshots=all'], { REGIONS: regions });
  assert.equal(approved.status, 0, approved.output);
  // The baseline shows the ticker: an ignored box is not painted.
  const baseline = readPng(path.join(root, '.sightline', 'baselines', 'home', 'chromium.png'));
  assert.deepEqual(baseline.pixel(20, 20).slice(0, 3), [14, 165, 233]);

  // The ticker changed inside the box: passes with no pixel counted.
  const ticked = run(root, [], { REGIONS: regions, TICKER: '#f97316' });
  assert.equal(ticked.status, 0, ticked.output);
  const evidence = () => JSON.parse(readFileSync(path.join(root, '.sightline', 'temp', 'home', 'chromium.json'), 'utf8'));
  assert.equal(evidence().layers.pixel.diffPixels, 0);
  assert.deepEqual(evidence().layers.pixel.ignored, [[0, 0, 160, 40]]);

  // A change outside the box is caught, and the report hatches the box on each image.
  const inked = run(root, [], { REGIONS: regions, TICKER: '#f97316', INK: '#dc2626' });
  assert.equal(inked.status, 1, inked.output);
  assert.ok(evidence().layers.pixel.diffPixels > 0);
  assert.ok(evidence().layers.pixel.regions.every((r) => r.y >= 40), JSON.stringify(evidence().layers.pixel.regions));
  const html = readFileSync(path.join(root, 'visual-report', 'index.html'), 'utf8');
  const hatched = html.match(/<div class="ig" style="left:0\.0000%;top:0\.0000%;width:40\.0000%;height:13\.3333%"/g) ?? [];
  assert.equal(hatched.length, 3, 'hatched on the baseline, the current image and the diff');
  assert.match(html, /left out of the comparison \(ignoreSelectors, ignoreRegions\): 1 box/);
});

test('ignoreRegions: overlapping or out-of-page boxes are refused, naming the box, and nothing is written', { skip }, () => {
  const root = freshProject(temps, spec, {
    config: { use: { viewport: { width: 400, height: 300 }, launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' } } },
    prefix: 'sightline-ignore-regions-bad-',
  });
  const overlapping = run(root, ['--update-snapshots=all'], {
    REGIONS: JSON.stringify([...BOX, { x: 100, y: 20, width: 100, height: 40 }]),
  });
  assert.equal(overlapping.status, 1, overlapping.output);
  assert.match(
    overlapping.errors.home,
    /toMatchVisual options: "ignoreRegions" must be boxes that do not overlap, got \[1\] \{x: 100, y: 20, width: 100, height: 40\} overlapping \[0\] \{x: 0, y: 0, width: 160, height: 40\}/,
  );
  const outside = run(root, ['--update-snapshots=all'], { REGIONS: JSON.stringify([{ x: 300, y: 250, width: 200, height: 20 }]) });
  assert.equal(outside.status, 1, outside.output);
  assert.match(
    outside.errors.home,
    /toMatchVisual options: "ignoreRegions\[0\]" \{x: 300, y: 250, width: 200, height: 20\} reaches outside the capture, 400×300 CSS pixels/,
  );
  assert.equal(existsSync(path.join(root, '.sightline', 'baselines')), false, 'no baseline written');
  assert.equal(existsSync(path.join(root, '.sightline', 'temp', 'home')), false, 'no capture stored');
});
