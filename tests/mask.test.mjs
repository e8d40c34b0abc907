// `mask` hides what toHaveScreenshot's `mask` hides (README "mask"): the masked boxes are painted
// in the stored baseline where the elements show, nothing under a mask is change evidence, and a
// masked clock does not keep the page from settling. Real Playwright runs of tests/mask against
// Debian's Chromium: one with --update-snapshots=all, one where only masked content changed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readPng } from './video/png.mjs';

const repo = new URL('..', import.meta.url).pathname;
const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const skip = !existsSync(chromium) && `Chromium not found at ${chromium} (set SIGHTLINE_CHROMIUM)`;
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);

const base = mkdtempSync(path.join(realpathSync(tmpdir()), 'sightline-mask-'));

function playwright(variant, args = []) {
  const cli = path.join(repo, 'node_modules', '@playwright', 'test', 'cli.js');
  const run = spawnSync(process.execPath, [cli, 'test', '-c', 'tests/mask/playwright.config.mjs', '--output', path.join(base, 'test-results'), ...args], {
    cwd: repo,
    env: { ...process.env, SIGHTLINE_ROOT: base, MASK_BASE: base, MASK_VARIANT: variant },
    encoding: 'utf8',
  });
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}

/** The bounding box `[x0, y0, x1, y1]` and count of the pixels of `png` that are exactly `rgb`. */
function pixelsOf(png, rgb) {
  const image = readPng(png);
  let [x0, y0, x1, y1, count] = [Infinity, Infinity, -1, -1, 0];
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const [r, g, b] = image.pixel(x, y);
      if (r !== rgb[0] || g !== rgb[1] || b !== rgb[2]) continue;
      [x0, y0, x1, y1, count] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y), count + 1];
    }
  }
  return count === 0 ? { count } : { box: [x0, y0, x1, y1], count };
}

const MAGENTA = [255, 0, 255]; // Playwright's maskColor
const RED = [255, 0, 0]; // what each page must hide
const baseline = (name) => path.join(base, name, '.sightline', 'baselines', name, 'chromium.png');
const evidence = (name) => JSON.parse(readFileSync(path.join(base, name, '.sightline', 'temp', name, 'chromium.json'), 'utf8'));

let approveRun;
let changedRun;
let movingRun;
before(() => {
  if (skip) return;
  approveRun = playwright('base', ['--update-snapshots=all', '--grep-invert', 'keeps-moving']);
  changedRun = playwright('changed', ['--grep-invert', 'keeps-moving']);
  movingRun = playwright('base', ['--update-snapshots=all', '--grep', 'keeps-moving']);
  assert.equal(approveRun.status, 0, approveRun.output);
});

// Whether the suite passed or not: what a failure needs is in its messages.
after(() => rmSync(base, { recursive: true, force: true }));

test('mask: a masked ticking clock settles, so -u writes its baseline with the clock painted', { skip }, () => {
  // toHaveScreenshot paints the mask on every shot, so a masked clock agrees from shot to shot;
  // before, the unmasked shots were compared and the call failed as an unstable page naming #clock.
  assert.doesNotMatch(approveRun.output, /Unstable page/);
  assert.equal(approveRun.status, 0, approveRun.output);
  // #clock: 200×20 at 0,40
  assert.deepEqual(pixelsOf(baseline('ticking-clock'), MAGENTA), { box: [0, 40, 199, 59], count: 4000 });
  assert.equal(evidence('ticking-clock').status, 'passed', 'the second run settles too and matches');
});

test('mask: a viewport shot of a scrolled page paints the mask where the element shows', { skip }, () => {
  // the element at page 50,1500 shows at 50,100 of the shot taken at scroll 1400
  assert.deepEqual(pixelsOf(baseline('scrolled-viewport'), MAGENTA), { box: [50, 100, 149, 149], count: 5000 });
  assert.deepEqual(pixelsOf(baseline('scrolled-viewport'), RED), { count: 0 });
});

test('mask: a clipped shot paints the mask where the element shows', { skip }, () => {
  // the element at page 60,40 shows at 10,10 of the shot clipped from 50,30
  assert.deepEqual(pixelsOf(baseline('clipped'), MAGENTA), { box: [10, 10, 109, 59], count: 5000 });
  assert.deepEqual(pixelsOf(baseline('clipped'), RED), { count: 0 });
});

test('mask: Locators into an iframe and a shadow root, and one matching three elements, are all painted', { skip }, () => {
  // #framed 100×50 at 0,0; #shadowed 100×50 at 0,50; three .ad 50×30 from 0,100
  assert.deepEqual(pixelsOf(baseline('iframe-shadow-several'), MAGENTA), { box: [0, 0, 99, 189], count: 5000 + 5000 + 3 * 1500 });
  assert.deepEqual(pixelsOf(baseline('iframe-shadow-several'), RED), { count: 0 });
});

test('mask: an element that moves between the walk of the page and its shot is painted where the shot shows it', { skip }, () => {
  // #secret 100×50, pushed from 0,40 to 0,100 after the walk: walked again after the shot
  assert.deepEqual(pixelsOf(baseline('moved-after-walk'), MAGENTA), { box: [0, 100, 99, 149], count: 5000 });
  assert.deepEqual(pixelsOf(baseline('moved-after-walk'), RED), { count: 0 });
});

test('mask: an element that moves after every walk fails the call as unstable, and nothing is stored', { skip }, () => {
  assert.equal(movingRun.status, 1, movingRun.output);
  // Recorded as an unstable page (no baseline, approval held), naming what kept pushing it.
  assert.match(movingRun.output, /toMatchVisual\("keeps-moving"\): Unstable page: two consecutive screenshots never matched within \d+ ms; the area 100×\d+ at 0,\d+ \(#banner\) kept changing/);
  assert.equal(evidence('keeps-moving').verdictKind, 'unstable');
  assert.equal(existsSync(baseline('keeps-moving')), false, 'no baseline written');
});

test('mask: content that changed only under a mask is no evidence: every snapshot passes with 0 pixels', { skip }, () => {
  assert.equal(changedRun.status, 0, changedRun.output);
  for (const name of ['ticking-clock', 'scrolled-viewport', 'clipped', 'iframe-shadow-several', 'moved-after-walk']) {
    const { status, layers } = evidence(name);
    assert.deepEqual([name, status, layers.pixel.diffPixels, layers.pixel.regions.length, layers.dom.changed], [name, 'passed', 0, 0, false]);
  }
});
