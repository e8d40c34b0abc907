// The Node addon as the Playwright worker calls it: in-process, async and sync twins, exact
// pixelmatch counts, evidence with regions and shift, and errors that name the problem.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { corpus } from './support/shared.mjs';

const require = createRequire(import.meta.url);
const addon = require('../index.js');

/** A white RGBA image with a `color` rectangle. */
function image(width, height, rect, color = [200, 30, 30, 255]) {
  const data = Buffer.alloc(width * height * 4, 255);
  if (rect) {
    const [x0, y0, w, h] = rect;
    for (let y = y0; y < y0 + h; y++) {
      for (let x = x0; x < x0 + w; x++) data.set(color, (y * width + x) * 4);
    }
  }
  return { data, width, height };
}

test('addon: identical buffers give zero, sync and async', async () => {
  const a = image(64, 64);
  assert.equal(addon.comparePixelsSync(a.data, a.data, 64, 64).diffPixels, 0);
  const r = await addon.comparePixels(a.data, Buffer.from(a.data), 64, 64);
  assert.equal(r.diffPixels, 0);
  assert.equal(r.diffImage, undefined);
});

test('addon: a recoloured block is counted exactly and drawn in the diff image', async () => {
  const a = image(100, 80);
  const b = image(100, 80, [10, 20, 30, 15]);
  const r = await addon.comparePixels(a.data, b.data, 100, 80, { diffImage: true });
  assert.equal(r.diffPixels, 30 * 15);
  assert.equal(r.diffImage.length, 100 * 80 * 4);
  const inside = (25 * 100 + 20) * 4;
  assert.deepEqual([...r.diffImage.subarray(inside, inside + 4)], [255, 0, 0, 255]);
  // the background is the faded original: white stays white
  assert.deepEqual([...r.diffImage.subarray(0, 4)], [255, 255, 255, 255]);
});

test('addon: compareImages reports regions, shape and size change', async () => {
  const a = image(200, 300);
  const b = image(200, 320, [50, 60, 40, 20]);
  const { evidence, diffImage } = await addon.compareImages(a, b, { diffImage: true });
  assert.equal(evidence.match, false);
  assert.equal(evidence.sizeChanged, true);
  assert.equal(evidence.totalPixels, 200 * 320);
  assert.equal(evidence.diffPixels, 40 * 20 + 200 * 20);
  const boxes = evidence.regions.map((r) => [r.x, r.y, r.width, r.height]);
  assert.deepEqual(boxes, [[50, 60, 40, 20], [0, 300, 200, 20]]);
  // the two regions span most of the canvas and 7.5 % of pixels differ
  assert.equal(evidence.shape, 'large');
  assert.equal(diffImage.width, 200);
  assert.equal(diffImage.height, 320);
  const sync = addon.compareImagesSync(a, b);
  assert.deepEqual(sync.evidence, evidence);
});

test('addon: wrong buffer sizes are a JS error naming the expected size', () => {
  assert.throws(
    () => addon.comparePixelsSync(Buffer.alloc(12), Buffer.alloc(16), 2, 2),
    { code: 'InvalidArg', message: 'image buffers must be 2×2×4 = 16 bytes (got 12, 16)' },
  );
  assert.throws(() => addon.compareImagesSync({ data: Buffer.alloc(10), width: 2, height: 2 }, image(2, 2)), {
    code: 'InvalidArg',
    message: 'image data is 10 bytes but 2×2 RGBA needs 16',
  });
});

test('addon: a threshold outside 0..1 is rejected, not clamped', async () => {
  const a = image(4, 4);
  await assert.rejects(addon.comparePixels(a.data, a.data, 4, 4, { threshold: 2 }), {
    code: 'InvalidArg',
    message: 'threshold 2 is outside 0..1; use e.g. 0.1 (the default)',
  });
});

// compareCapture: the matcher's engine call, without a browser (the PNGs are pixelmatch corpus
// fixtures: skipped with the reason outside CI when the corpus is absent, an error under CI).
const pixelmatch = corpus('pixelmatch');
const fixtures = pixelmatch.dir && path.join(pixelmatch.dir, 'fixtures');

test('addon: compareCapture records new → approved → passed → changed', { skip: pixelmatch.skip }, async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'sightline-addon-'));
  const a = readFileSync(path.join(fixtures, '1a.png'));
  const b = readFileSync(path.join(fixtures, '1b.png'));
  const input = (screenshot, updateSnapshots) => ({ root, name: 'map', project: 'chromium', screenshot, updateSnapshots });

  const first = await addon.compareCapture(input(a, 'default'));
  assert.equal(first.evidence.status, 'new');
  assert.equal(first.failed, true);
  assert.equal(first.baselineWritten, false);
  assert.deepEqual(first.evidence.files, { baseline: null, current: '.sightline/temp/map/chromium.slcap', diff: null });
  assert.ok(existsSync(path.join(root, '.sightline', 'temp', 'map', 'chromium.slcap')), 'capture stored');
  assert.ok(!existsSync(path.join(root, '.sightline', 'baselines')), 'no baseline without an update mode that writes');

  const approved = addon.compareCaptureSync(input(a, 'changed'));
  assert.equal(approved.baselineWritten, true);
  assert.equal(approved.failed, false);
  assert.ok(existsSync(path.join(root, '.sightline', 'baselines', 'map', 'chromium.png')));

  const same = await addon.compareCapture(input(a, 'default'));
  assert.equal(same.evidence.status, 'passed');
  assert.equal(same.evidence.files.baseline, '.sightline/baselines/map/chromium.png');

  const changed = await addon.compareCapture(input(b, 'default'));
  assert.equal(changed.failed, true);
  assert.equal(changed.baselineWritten, false);
  const { diffPixels, antialiasedPixels, totalPixels, regions } = changed.evidence.layers.pixel;
  assert.deepEqual([diffPixels, antialiasedPixels, totalPixels], [106, 61, 512 * 256]);
  assert.deepEqual(regions.map((r) => [r.x, r.y, r.width, r.height, r.diffPixels]), [[420, 103, 16, 14, 104]]);
  // no DOM data on either side: never called noise
  assert.equal(changed.evidence.verdictKind, 'stylesNotCompared');
  assert.equal(changed.evidence.verdict, '106 pixels differ (0.081 %, concentrated); no DOM data to rule out render noise; look at the images');
  // a diff PNG for the attachment, the size of the images (IHDR width and height)
  assert.equal(changed.diffPng.subarray(1, 4).toString(), 'PNG');
  assert.deepEqual([changed.diffPng.readUInt32BE(16), changed.diffPng.readUInt32BE(20)], [512, 256]);
});

test('addon: writeResultsSync says the counts and the review hint in the core\'s words (Summary::counts, Results::review_hint)', { skip: pixelmatch.skip }, async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'sightline-addon-summary-'));
  const a = readFileSync(path.join(fixtures, '1a.png'));
  const b = readFileSync(path.join(fixtures, '1b.png'));
  const input = (name, screenshot, updateSnapshots) => ({ root, name, project: 'chromium', screenshot, updateSnapshots });
  await addon.compareCapture(input('map', a, 'all'));
  addon.clearRunSync(root);
  // `map` changed, `fresh` new and written by an update run.
  await addon.compareCapture(input('map', b, 'none'));
  await addon.compareCapture(input('fresh', a, 'all'));
  const summary = addon.writeResultsSync({ root });
  assert.deepEqual([summary.total, summary.changed, summary.written], [2, 1, 1]);
  // The reporter prints these as they are; `sightline compare / merge / report` print the same counts.
  assert.equal(summary.counts, '0 passed, 1 changed, 0 new, 1 written, 0 missing');
  assert.equal(summary.reviewHint, 'review and approve in the browser: npx sightline review');
  // A shard's run is reviewed after its merge job.
  assert.equal(addon.writeResultsSync({ root, shard: { current: 1, total: 2 } }).reviewHint, null);
});

test('addon: compareCapture refuses unsafe names and bad modes before writing anything', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'sightline-addon-'));
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
  assert.throws(
    () => addon.compareCaptureSync({ root, name: '../escape', project: 'p', screenshot: png }),
    { code: 'InvalidArg', message: `snapshot name "../escape" contains '..'; use letters, digits, '-', '_' and '.', with '/' between folders, e.g. "checkout-page" or "cards/lamp"` },
  );
  assert.throws(() => addon.compareCaptureSync({ root, name: 'ok', project: 'p', screenshot: png, updateSnapshots: 'sometimes' }), {
    code: 'InvalidArg',
    message: 'updateSnapshots "sometimes" is not one of none, default, missing, changed, all',
  });
  assert.ok(!existsSync(path.join(root, '.sightline')), 'nothing written');
});

test('addon: resolveSettings puts a call\'s overrides over the config file; a bad key is named before any capture', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'sightline-addon-'));
  mkdirSync(path.join(root, '.sightline'));
  writeFileSync(path.join(root, '.sightline', 'config.json'), JSON.stringify({ threshold: 0.2, reportDir: 'out', maxDiffPixels: 10 }));
  const resolved = addon.resolveSettings({ root, overrides: { threshold: 0, clip: { x: 0, y: 0, width: 10, height: 5 }, timeout: undefined } });
  const { styleProperties, ...rest } = resolved;
  assert.deepEqual(rest, {
    reportDir: 'out', threshold: 0, antialiasing: true, maxDiffPixels: 10, noiseAutoPass: false, strictRendering: false, fullPage: true, mask: [],
    ignoreSelectors: [], maskColor: '#FF00FF', mcpApprovalPrompt: true, writeMissingBaselines: false, shardMode: 'compare',
    animations: 'disabled', caret: 'hide', scale: 'css', omitBackground: false,
    waitForImages: true, waitForAriaBusy: true, waitForRequests: true, ignoreRequests: [], hideScrollbars: true, clearHover: false,
    baselinePath: '{name}/{project}',
    clip: { x: 0, y: 0, width: 10, height: 5 }, perceptual: false,
  });
  // Playwright's expect.toHaveScreenshot sits under the config file: its threshold loses to the
  // file's, its caret applies; the call still wins over both.
  const layered = addon.resolveSettings({ root, playwrightDefaults: { threshold: 0.3, caret: 'initial', pathTemplate: '{arg}{ext}' } });
  assert.deepEqual([layered.threshold, layered.caret, layered.maxDiffPixels], [0.2, 'initial', 10]);
  assert.throws(() => addon.resolveSettings({ root, playwrightDefaults: { scale: 'retina' } }), {
    code: 'InvalidArg',
    message: 'playwright.config expect.toHaveScreenshot: "scale" must be "css" or "device", got "retina"',
  });
  // Unset in the config: the spec's 39 longhands, as the capture collects them.
  assert.deepEqual([styleProperties.length, styleProperties[0], styleProperties.at(-1)], [39, 'color', 'box-shadow']);
  assert.deepEqual(addon.resolveSettings({ root, overrides: { styleProperties: ['color'] } }).styleProperties, ['color']);
  assert.throws(() => addon.resolveSettings({ root, overrides: { treshold: 0 } }), {
    code: 'InvalidArg',
    message: 'toMatchVisual options: unknown key "treshold" (did you mean "threshold"?); known keys are threshold, maxDiffPixels, maxDiffPixelRatio, noiseAutoPass, strictRendering, fullPage, mask, ignoreSelectors, ignoreRegions, maskColor, styleProperties, clip, timeout, perceptual, animations, caret, scale, omitBackground, stylePath, waitForImages, waitForAriaBusy, waitForRequests, ignoreRequests, hideScrollbars, clearHover',
  });
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
  assert.throws(() => addon.compareCaptureSync({ root, name: 'ok', project: 'p', screenshot: png, overrides: { maxDiffPixelRatio: 2 } }), {
    code: 'InvalidArg',
    message: 'toMatchVisual options: "maxDiffPixelRatio" must be a number from 0 to 1, got 2',
  });
  writeFileSync(path.join(root, '.sightline', 'config.json'), JSON.stringify({ styleProperties: [] }));
  assert.throws(() => addon.resolveSettings({ root }), {
    code: 'InvalidArg',
    message: `${path.join(root, '.sightline', 'config.json')}: "styleProperties" must be a non-empty array of CSS longhand names, got []`,
  });
  assert.ok(!existsSync(path.join(root, '.sightline', 'temp')), 'nothing captured');
});

test('addon: loading it keeps spare pixel buffers for the next comparison in the worker', () => {
  // Switched on by the addon's module init, before any call: a test worker compares one page
  // after another, and a fresh 50 MB buffer costs a quarter of a comparison's CPU.
  assert.equal(addon.keepsSparePixelBuffers(), true);
});
