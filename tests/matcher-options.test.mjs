// `toMatchVisual`'s options in real Playwright runs against Debian's Chromium.
import { test, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { cases, defaultsCases, layoutCases } from './options/cases.mjs';
import { readPng } from './video/png.mjs';
import { repo, runPlaywright, skip, specsOf, tempFolders } from './support/playwright-runs.mjs';
import { asRead } from './support/dom-record.mjs';

const addon = createRequire(import.meta.url)('../index.js');
const temps = tempFolders();

// tests/options: every config key, per-call option and update mode, end to end. Each case is its
// own project root in one temp folder, with its own .sightline/config.json (cases.mjs); the suite
// runs once to approve, once with the planted changes, then once per update mode on copies of the
// approved baselines. Asserted: Playwright's own pass/fail per test (its JSON reporter), the
// evidence each snapshot leaves, and the baselines' bytes on disk.

const reporter = path.join(repo, 'playwright-fixtures', 'reporter.js');
const sightlineBin = path.join(repo, 'target', 'release', 'sightline');

/** Runs the option suite with `base` holding the case roots; returns its exit, output and report. */
function optionsRun(base, variant, args = []) {
  const json = path.join(temps.make('sightline-options-report-'), 'playwright.json');
  // The reporter runs in Playwright's own process: its root is the report-dir case's.
  const env = { OPTIONS_BASE: base, SIGHTLINE_ROOT: path.join(base, 'report-dir'), SCENARIO_VARIANT: variant, PLAYWRIGHT_JSON_OUTPUT_NAME: json };
  const run = runPlaywright('tests/options/playwright.config.mjs', [`--reporter=line,json,${reporter}`, ...args], env);
  const tests = new Map(specsOf(JSON.parse(readFileSync(json, 'utf8'))).map((spec) => [spec.title, spec.tests[0]]));
  return { ...run, tests };
}

/** `passed` / `failed` / `skipped` per test title. */
function statuses(run, titles) {
  return Object.fromEntries(titles.map((title) => [title, run.tests.get(title)?.results[0].status]));
}

const optionsEvidence = (base, root, name = root, project = 'chromium') =>
  JSON.parse(readFileSync(path.join(base, root, '.sightline', 'temp', name, `${project}.json`), 'utf8'));

const baselinePng = (base, root, name = root, project = 'chromium') => path.join(base, root, '.sightline', 'baselines', name, `${project}.png`);

/** Status, verdict kind and the pixel layer's counts and size: what the option cases pin. */
function pixelFacts(e) {
  const p = e.layers.pixel;
  return {
    status: e.status,
    kind: e.verdictKind,
    autoPassed: e.autoPassed,
    diffPixels: p.diffPixels,
    antialiasedPixels: p.antialiasedPixels,
    totalPixels: p.totalPixels,
    size: [e.currentSize.width, e.currentSize.height],
  };
}

describe('matcher options', { skip }, () => {
  const base = temps.make('sightline-options-');
  const pristine = temps.make('sightline-options-approved-');
  let approveRun;
  let changed;
  const UPDATE_MODES = ['none', 'missing', 'changed'];
  const updates = {};

  before(() => {
    for (const [name, { config, files = {} }] of Object.entries({ ...cases, ...defaultsCases, ...layoutCases })) {
      mkdirSync(path.join(base, name, '.sightline'), { recursive: true });
      if (config) writeFileSync(path.join(base, name, '.sightline', 'config.json'), JSON.stringify(config));
      for (const [file, text] of Object.entries(files)) writeFileSync(path.join(base, name, file), text);
    }
    approveRun = optionsRun(base, 'base', ['--update-snapshots=all']);
    // The update-mode runs start from these approved baselines, untouched by later runs.
    for (const name of ['update-passed', 'update-changed']) {
      cpSync(path.join(base, name, '.sightline', 'baselines'), path.join(pristine, name, '.sightline', 'baselines'), { recursive: true });
    }
    // Evidence left by the approve run must not stand in for a capture the changed run missed.
    for (const root of readdirSync(base)) rmSync(path.join(base, root, '.sightline', 'temp'), { recursive: true, force: true });
    changed = optionsRun(base, 'changed');
    for (const mode of UPDATE_MODES) {
      const modeBase = temps.make(`sightline-options-update-${mode}-`);
      cpSync(pristine, modeBase, { recursive: true });
      updates[mode] = { base: modeBase, run: optionsRun(modeBase, 'changed', ['-g', 'update-', `--update-snapshots=${mode}`]) };
    }
  });

  test('options: the approve run passes every case it runs and skips the ones that must start without a baseline', () => {
    assert.equal(approveRun.status, 0, approveRun.output);
    assert.deepEqual(statuses(approveRun, ['write-missing-baselines', 'update-new', 'timeout', 'bad-option', 'mask-other-page', 'style-path-missing', 'name-escapes', 'new-on-retry', 'aria-busy-stuck']), {
      'style-path-missing': 'skipped',
      'name-escapes': 'skipped',
      'new-on-retry': 'skipped',
      'aria-busy-stuck': 'skipped',
      'write-missing-baselines': 'skipped',
      'update-new': 'skipped',
      timeout: 'skipped',
      'bad-option': 'skipped',
      'mask-other-page': 'skipped',
    });
  });

  test('options: threshold 0 in config counts a 4-level grey change the default 0.1 lets pass', () => {
    assert.deepEqual(statuses(changed, ['threshold', 'threshold-default']), { threshold: 'failed', 'threshold-default': 'passed' });
    // the whole 40 × 25 panel
    assert.deepEqual(pixelFacts(optionsEvidence(base, 'threshold')), {
      status: 'changed', kind: 'styleOnly', autoPassed: false, diffPixels: 1000, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
    });
    assert.deepEqual(pixelFacts(optionsEvidence(base, 'threshold-default')), {
      status: 'passed', kind: 'identical', autoPassed: false, diffPixels: 0, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
    });
  });

  test('options: perceptual per call sees the grey change pixelmatch passes, less its anti-aliasing-like rim', () => {
    assert.equal(statuses(changed, ['perceptual']).perceptual, 'failed');
    assert.deepEqual(pixelFacts(optionsEvidence(base, 'perceptual')), {
      status: 'changed', kind: 'styleOnly', autoPassed: false, diffPixels: 874, antialiasedPixels: 126, totalPixels: 20000, size: [200, 100],
    });
  });

  test('options: a perceptual snapshot\'s report diff image is the one the perceptual comparison drew, not a pixelmatch redraw', () => {
    // issue 14, second drift: results.json copies the diff image of the comparison that decided
    // the snapshot. Written here as the reporter writes it, from the case's own root.
    const caseRoot = path.join(base, 'perceptual');
    const summary = addon.writeResultsSync({ root: caseRoot });
    assert.deepEqual([summary.total, summary.changed], [1, 1]);
    const images = path.join(caseRoot, 'visual-report', 'images', 'perceptual');
    const reportDiff = path.join(images, 'chromium-diff.png');
    assert.deepEqual(readFileSync(reportDiff), readFileSync(path.join(caseRoot, '.sightline', 'temp', 'perceptual', 'chromium-diff.png')));
    const results = JSON.parse(readFileSync(path.join(caseRoot, 'visual-report', 'results.json'), 'utf8'));
    assert.equal(results.snapshots[0].files.diff, 'visual-report/images/perceptual/chromium-diff.png');
    // Drawn again from the report's baseline and current: the perceptual comparator's image is
    // the same, pixel for pixel; pixelmatch's finds nothing to mark and differs from it.
    const [baselinePng, currentPng] = ['baseline', 'current'].map((k) => path.join(images, `chromium-${k}.png`));
    const redraw = (flags) => {
      const out = path.join(temps.make('sightline-options-redraw-'), 'diff.png');
      const run = spawnSync(sightlineBin, ['diff', baselinePng, currentPng, '--out', out, '--json', ...flags], { encoding: 'utf8' });
      return { out, diffPixels: JSON.parse(run.stdout).diffPixels };
    };
    const perceptual = redraw(['--perceptual']);
    assert.equal(perceptual.diffPixels, 874);
    const same = spawnSync(sightlineBin, ['diff', perceptual.out, reportDiff, '--threshold', '0', '--json'], { encoding: 'utf8' });
    assert.equal(JSON.parse(same.stdout).diffPixels, 0, same.stderr);
    assert.equal(redraw([]).diffPixels, 0, 'pixelmatch at the default threshold sees no change');
  });

  test('options: antialiasing false in config counts the anti-aliased rim of a disc moved by 1 px', () => {
    assert.deepEqual(statuses(changed, ['antialiasing', 'antialiasing-default']), { antialiasing: 'failed', 'antialiasing-default': 'passed' });
    assert.deepEqual(pixelFacts(optionsEvidence(base, 'antialiasing-default')), {
      status: 'passed', kind: 'identical', autoPassed: false, diffPixels: 0, antialiasedPixels: 236, totalPixels: 20000, size: [200, 100],
    });
    assert.deepEqual(pixelFacts(optionsEvidence(base, 'antialiasing')), {
      status: 'changed', kind: 'concentrated', autoPassed: false, diffPixels: 236, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
    });
  });

  test('options: sightline compare on the antialiasing and perceptual cases\' captures counts what the matcher counted (config and per-call options)', () => {
    // issue 14: the matcher and `sightline compare` resolve `antialiasing` from the same config.
    // compare rewrites the evidence it reads, so it runs on a copy of each case's root (config,
    // baselines and the changed run's captures); the matcher's evidence stays as the run left it.
    const expected = {
      antialiasing: { exit: 1, status: 'changed', diffPixels: 236, antialiasedPixels: 0, totalPixels: 20000 },
      'antialiasing-default': { exit: 0, status: 'passed', diffPixels: 0, antialiasedPixels: 236, totalPixels: 20000 },
      // A per-call option (`perceptual: true`) travels with the capture: compare uses it too.
      perceptual: { exit: 1, status: 'changed', diffPixels: 874, antialiasedPixels: 126, totalPixels: 20000 },
    };
    const counts = (e) => ({ status: e.status, diffPixels: e.layers.pixel.diffPixels, antialiasedPixels: e.layers.pixel.antialiasedPixels, totalPixels: e.layers.pixel.totalPixels });
    for (const [name, { exit, ...pinned }] of Object.entries(expected)) {
      const matcher = counts(optionsEvidence(base, name));
      const copy = path.join(temps.make('sightline-options-compare-'), name);
      cpSync(path.join(base, name), copy, { recursive: true });
      const run = spawnSync(sightlineBin, ['--root', copy, 'compare'], { encoding: 'utf8' });
      assert.equal(run.status, exit, `${name}: ${run.stdout}\n${run.stderr}`);
      const results = JSON.parse(readFileSync(path.join(copy, 'visual-report', 'results.json'), 'utf8'));
      assert.equal(results.run.config.antialiasing, name !== 'antialiasing', name);
      assert.deepEqual(results.snapshots.map((s) => [s.name, s.project]), [[name, 'chromium']]);
      assert.deepEqual(counts(results.snapshots[0]), matcher, `${name}: results.json`);
      assert.deepEqual(counts(optionsEvidence(path.dirname(copy), name)), matcher, `${name}: compare's evidence`);
      assert.deepEqual(matcher, pinned, `${name}: the counts both give`);
    }
  });

  test('options: maxDiffPixels and maxDiffPixelRatio pass a 100-pixel change at the limit and fail it one below; both set, the smaller wins', () => {
    assert.deepEqual(
      statuses(changed, ['max-diff-pixels', 'max-diff-pixels-exceeded', 'max-diff-pixel-ratio', 'max-diff-pixel-ratio-exceeded', 'max-diff-both-ratio-smaller', 'max-diff-both-pixels-smaller']),
      {
        'max-diff-pixels': 'passed',
        'max-diff-pixels-exceeded': 'failed',
        'max-diff-pixel-ratio': 'passed',
        'max-diff-pixel-ratio-exceeded': 'failed',
        'max-diff-both-ratio-smaller': 'failed',
        'max-diff-both-pixels-smaller': 'failed',
      },
    );
    for (const name of ['max-diff-pixels', 'max-diff-pixel-ratio']) {
      const e = optionsEvidence(base, name);
      assert.deepEqual(pixelFacts(e), {
        status: 'passed', kind: 'withinTolerance', autoPassed: false, diffPixels: 100, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
      }, name);
      assert.equal(e.verdict, 'Passed: 100 pixels differ (0.500 %), within the allowed 100', name);
    }
    for (const name of ['max-diff-pixels-exceeded', 'max-diff-pixel-ratio-exceeded', 'max-diff-both-ratio-smaller', 'max-diff-both-pixels-smaller']) {
      assert.deepEqual(pixelFacts(optionsEvidence(base, name)), {
        status: 'changed', kind: 'styleOnly', autoPassed: false, diffPixels: 100, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
      }, name);
    }
  });

  test('options: noiseAutoPass passes four scattered pixels as likely noise, marked autoPassed; without it they fail', () => {
    assert.deepEqual(statuses(changed, ['noise-auto-pass', 'noise-default']), { 'noise-auto-pass': 'passed', 'noise-default': 'failed' });
    const verdict = "Likely render noise: 4 scattered pixels (0.020 %), DOM and styles identical; mention it, don't block";
    const auto = optionsEvidence(base, 'noise-auto-pass');
    assert.deepEqual(pixelFacts(auto), {
      status: 'passed', kind: 'likelyNoise', autoPassed: true, diffPixels: 4, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
    });
    assert.equal(auto.verdict, verdict);
    const plain = optionsEvidence(base, 'noise-default');
    assert.deepEqual(pixelFacts(plain), {
      status: 'changed', kind: 'likelyNoise', autoPassed: false, diffPixels: 4, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
    });
    assert.equal(plain.verdict, verdict);
  });

  test('options: fullPage false captures the 200 × 100 viewport, missing a change at y = 250 the full page shows', () => {
    assert.deepEqual(statuses(changed, ['full-page-off', 'full-page-default']), { 'full-page-off': 'passed', 'full-page-default': 'failed' });
    assert.deepEqual(pixelFacts(optionsEvidence(base, 'full-page-off')), {
      status: 'passed', kind: 'identical', autoPassed: false, diffPixels: 0, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
    });
    const full = optionsEvidence(base, 'full-page-default');
    assert.deepEqual(pixelFacts(full), {
      status: 'changed', kind: 'styleOnly', autoPassed: false, diffPixels: 100, antialiasedPixels: 0, totalPixels: 60000, size: [200, 300],
    });
    assert.deepEqual(full.layers.pixel.regions.map((r) => [r.x, r.y, r.width, r.height, r.diffPixels]), [[120, 250, 10, 10, 100]]);
  });

  test('options: clip per call captures only its 100 × 30 box, so a change outside it passes', () => {
    assert.equal(statuses(changed, ['clip']).clip, 'passed');
    assert.deepEqual(pixelFacts(optionsEvidence(base, 'clip')), {
      status: 'passed', kind: 'identical', autoPassed: false, diffPixels: 0, antialiasedPixels: 0, totalPixels: 3000, size: [100, 30],
    });
  });

  test('options: mask and ignoreSelectors in config take the element out of the pixels and the DOM check', () => {
    assert.deepEqual(statuses(changed, ['mask', 'ignore-selectors', 'mask-none', 'mask-empty-call']), { mask: 'passed', 'ignore-selectors': 'passed', 'mask-none': 'failed', 'mask-empty-call': 'failed' });
    for (const name of ['mask', 'ignore-selectors']) {
      const e = optionsEvidence(base, name);
      assert.deepEqual(pixelFacts(e), {
        status: 'passed', kind: 'identical', autoPassed: false, diffPixels: 0, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
      }, name);
      assert.equal(e.layers.dom.styleChanges.count, 0, name);
    }
    // unmasked, the advert's recolouring is a 100-pixel style-only change naming it
    // and a call's empty mask (replacing the config's) masks nothing either
    for (const name of ['mask-none', 'mask-empty-call']) {
      const unmasked = optionsEvidence(base, name);
      assert.deepEqual(pixelFacts(unmasked), {
        status: 'changed', kind: 'styleOnly', autoPassed: false, diffPixels: 100, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
      }, name);
      assert.deepEqual(unmasked.layers.dom.styleChanges.properties, [{ selector: '#ad', property: 'background-color', from: 'rgb(22, 163, 74)', to: 'rgb(220, 38, 38)' }], name);
    }
  });

  test('options: mask takes Locators, selectors and mixes; a masked advert whose words change passes', () => {
    assert.deepEqual(statuses(changed, ['mask-locator', 'mask-mixed', 'mask-color', 'mask-unmasked']), {
      'mask-locator': 'failed', 'mask-mixed': 'passed', 'mask-color': 'passed', 'mask-unmasked': 'failed',
    });
    // only the advert masked: its words are hidden, the badge's recolouring (400 px) is not
    const locator = optionsEvidence(base, 'mask-locator');
    assert.deepEqual(pixelFacts(locator), {
      status: 'changed', kind: 'styleOnly', autoPassed: false, diffPixels: 400, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
    });
    // the selector masks the badge, the Locator the advert: nothing is left to differ
    for (const root of ['mask-mixed', 'mask-color']) {
      assert.deepEqual(pixelFacts(optionsEvidence(base, root)), {
        status: 'passed', kind: 'identical', autoPassed: false, diffPixels: 0, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
      }, root);
    }
    const unmasked = optionsEvidence(base, 'mask-unmasked');
    assert.equal(unmasked.status, 'changed');
    assert.ok(unmasked.layers.pixel.diffPixels > 400, `the words and the badge differ: ${unmasked.layers.pixel.diffPixels}`);
  });

  test('options: masked boxes are painted with maskColor (Playwright\'s #FF00FF by default) in the capture and the baseline; ignoreSelectors are not', () => {
    const at = (root, x, y) => readPng(baselinePng(base, root)).pixel(x, y);
    // the advert's box is 120..190 × 10..30, the badge's 120..140 × 60..80
    assert.deepEqual(at('mask-locator', 120, 10), [255, 0, 255]);
    assert.deepEqual(at('mask-locator', 189, 29), [255, 0, 255]);
    assert.deepEqual(at('mask-locator', 190, 30), [255, 255, 255], 'just outside the box');
    assert.deepEqual(at('mask-locator', 130, 70), [22, 163, 74], 'the badge is not masked');
    assert.deepEqual(at('mask-color', 150, 20), [0, 255, 0]);
    assert.deepEqual(at('mask-color', 130, 70), [0, 255, 0]);
    assert.deepEqual(at('mask', 125, 45), [255, 0, 255], 'config mask selector');
    assert.deepEqual(at('ignore-selectors', 125, 45), [22, 163, 74], 'ignoreSelectors: left out, not painted');
    // the DOM record keeps the masked elements, marked; the page keeps no mark of its own
    const { data } = addon.readBaselineSync(path.join(base, 'mask-mixed'), 'mask-mixed', 'chromium');
    const byId = (id) => asRead(data.dom).elements.find((e) => e.selector === id);
    assert.deepEqual([byId('#ad').masked, byId('#badge').masked, byId('#content').masked], [true, true, false]);
    const ignored = asRead(addon.readBaselineSync(path.join(base, 'ignore-selectors'), 'ignore-selectors', 'chromium').data.dom);
    assert.deepEqual([ignored.elements.find((e) => e.selector === '#ad').ignored, ignored.elements.find((e) => e.selector === '#ad').masked], [true, false]);
  });

  test('options: a Locator of another page in mask is refused, naming the entry, and nothing is captured', () => {
    assert.deepEqual(statuses(changed, ['mask-other-page']), { 'mask-other-page': 'failed' });
    const message = (title) => changed.tests.get(title).results[0].errors[0].message.split('\n')[0];
    assert.equal(message('mask-other-page'), 'Error: toMatchVisual("mask-other-page"): mask [1] is a Locator of another page: mask only Locators of the page being captured');
    assert.ok(!existsSync(path.join(base, 'mask-other-page', '.sightline')), 'nothing captured');
  });

  test('options: styleProperties in config digests text-decoration-line, so an added underline is a style-only change', () => {
    assert.deepEqual(statuses(changed, ['style-properties', 'style-properties-default']), { 'style-properties': 'failed', 'style-properties-default': 'failed' });
    const listed = optionsEvidence(base, 'style-properties');
    assert.equal(listed.verdictKind, 'styleOnly');
    assert.equal(listed.layers.dom.styleCheck, 'mismatch');
    assert.deepEqual(listed.layers.dom.styleChanges, {
      count: 1,
      elements: ['#label'],
      properties: [{ selector: '#label', property: 'text-decoration-line', from: 'none', to: 'underline' }],
      propertyCount: 1,
      mostCommon: [{ property: 'text-decoration-line', from: 'none', to: 'underline', count: 1 }],
    });
    // the default list has no text-decoration-line: the styles match, the pixels still differ
    const plain = optionsEvidence(base, 'style-properties-default');
    assert.equal(plain.verdictKind, 'concentrated');
    assert.equal(plain.layers.dom.styleCheck, 'match');
    assert.equal(plain.layers.dom.styleChanges.count, 0);
    assert.equal(plain.layers.pixel.diffPixels, listed.layers.pixel.diffPixels);
  });

  test('options: writeMissingBaselines writes a new snapshot\'s baseline on its first run and fails it, as toHaveScreenshot does', () => {
    // an unreviewed baseline never turns a run green (issue 35)
    assert.equal(statuses(changed, ['write-missing-baselines'])['write-missing-baselines'], 'failed');
    const e = optionsEvidence(base, 'write-missing-baselines');
    // written, not new: nothing is left to approve, and the verdict names what wrote it
    assert.equal(e.status, 'written');
    assert.equal(e.verdict, 'Baseline written by writeMissingBaselines: a new snapshot');
    assert.equal(e.files.baseline, '.sightline/baselines/write-missing-baselines/chromium.png');
    const written = addon.readBaselineSync(path.join(base, 'write-missing-baselines'), 'write-missing-baselines', 'chromium');
    assert.deepEqual([written.width, written.height], [200, 100]);
    // without the key the same first run fails and writes nothing (update-new, below)
    assert.equal(statuses(changed, ['update-new'])['update-new'], 'failed');
    assert.ok(!existsSync(baselinePng(base, 'update-new')));
  });

  test('options: omitBackground captures a page without a background of its own as transparent; by default it is white', () => {
    assert.deepEqual(statuses(changed, ['omit-background', 'omit-background-default']), { 'omit-background': 'passed', 'omit-background-default': 'passed' });
    const png = (root) => readPng(baselinePng(base, root));
    assert.deepEqual(png('omit-background').rgba(100, 50)[3], 0, 'transparent where the page paints nothing');
    assert.deepEqual(png('omit-background').rgba(15, 15), [17, 17, 17, 255], 'the block stays opaque');
    assert.deepEqual(png('omit-background-default').rgba(100, 50), [255, 255, 255, 255]);
  });

  test('options: stylePath in the config file is read from the project root and applied while capturing, so a hidden advert\'s change passes', () => {
    assert.equal(statuses(changed, ['style-path'])['style-path'], 'passed');
    assert.deepEqual(pixelFacts(optionsEvidence(base, 'style-path')), {
      status: 'passed', kind: 'identical', autoPassed: false, diffPixels: 0, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
    });
    // the DOM walk saw the stylesheet too: the advert is recorded hidden, so its colour is no style change
    const { data } = addon.readBaselineSync(path.join(base, 'style-path'), 'style-path', 'chromium');
    const ad = data.dom.elements.find((e) => e.selector === '#ad');
    assert.equal(data.dom.styleRows[ad.style][data.dom.styleProperties.indexOf('visibility')], 'hidden');
    assert.equal(readPng(baselinePng(base, 'style-path')).pixel(125, 45).join(), '255,255,255', 'the advert is not in the pixels');
  });

  test('options: a stylePath that cannot be read is refused, naming the file, and nothing is captured', () => {
    assert.equal(statuses(changed, ['style-path-missing'])['style-path-missing'], 'failed');
    const message = changed.tests.get('style-path-missing').results[0].errors[0].message.split('\n')[0];
    assert.equal(message, `Error: toMatchVisual("style-path-missing"): stylePath "no-such-file.css" cannot be read (ENOENT): give the path of a CSS file, relative to ${repo.replace(/\/$/, '')} or absolute`);
    assert.ok(!existsSync(path.join(base, 'style-path-missing', '.sightline')), 'nothing captured');
  });

  test('options: scale is css by default on a 2× device and device when asked, and the mask covers the advert at both', () => {
    assert.deepEqual(statuses(changed, ['scale-css', 'scale-device']), { 'scale-css': 'passed', 'scale-device': 'passed' });
    const size = (root) => { const png = readPng(baselinePng(base, root)); return [png.width, png.height]; };
    assert.deepEqual(size('scale-css'), [200, 100]);
    assert.deepEqual(size('scale-device'), [400, 200]);
    // the advert's box, 120..130 × 40..50 in CSS pixels, painted at each scale
    assert.deepEqual(readPng(baselinePng(base, 'scale-css')).pixel(129, 49), [255, 0, 255]);
    assert.deepEqual(readPng(baselinePng(base, 'scale-device')).pixel(259, 99), [255, 0, 255]);
    assert.deepEqual(readPng(baselinePng(base, 'scale-device')).pixel(261, 101), [255, 255, 255], 'just outside the box at 2×');
    assert.equal(optionsEvidence(base, 'scale-device').layers.pixel.diffPixels, 0);
  });

  test('options: animations are finished by default, so a slow fade is captured solid; with animations: allow it is captured as it runs', () => {
    for (const run of [approveRun, changed]) {
      assert.deepEqual(statuses(run, ['animations-disabled', 'animations-allow']), { 'animations-disabled': 'passed', 'animations-allow': 'passed' });
    }
    assert.deepEqual(readPng(baselinePng(base, 'animations-disabled')).pixel(30, 30), [17, 17, 17]);
    const [r, g, b] = readPng(baselinePng(base, 'animations-allow')).pixel(30, 30);
    assert.ok(Math.min(r, g, b) >= 250, `at the fade's start the block is almost white: ${[r, g, b]}`);
  });

  test('options: a late image is waited for by default and caught missing with waitForImages and waitForRequests false', () => {
    assert.deepEqual(statuses(changed, ['wait-for-images', 'wait-for-images-off']), { 'wait-for-images': 'passed', 'wait-for-images-off': 'passed' });
    assert.deepEqual(readPng(baselinePng(base, 'wait-for-images')).pixel(30, 30), [22, 163, 74]);
    assert.deepEqual(readPng(baselinePng(base, 'wait-for-images-off')).pixel(30, 30), [255, 255, 255]);
  });

  test('options: a feed marked aria-busy is captured once it is ready; one that stays busy fails the call, naming it', () => {
    assert.deepEqual(statuses(changed, ['aria-busy', 'aria-busy-stuck']), { 'aria-busy': 'passed', 'aria-busy-stuck': 'failed' });
    assert.deepEqual(readPng(baselinePng(base, 'aria-busy')).pixel(30, 30), [22, 163, 74]);
    const message = changed.tests.get('aria-busy-stuck').results[0].errors[0].message.split('\n')[0];
    assert.equal(message, 'Error: toMatchVisual("aria-busy-stuck"): the page stayed busy: div#feed.block still has aria-busy="true" after 300 ms; wait for it to finish, or pass waitForAriaBusy: false');
    assert.ok(!existsSync(path.join(base, 'aria-busy-stuck', '.sightline')), 'nothing captured');
  });

  test('options: a hover state left by the test is captured, unless clearHover moves the mouse off the page', () => {
    assert.deepEqual(statuses(changed, ['hover-kept', 'clear-hover']), { 'hover-kept': 'passed', 'clear-hover': 'passed' });
    assert.deepEqual(readPng(baselinePng(base, 'hover-kept')).pixel(100, 50), [220, 38, 38]);
    assert.deepEqual(readPng(baselinePng(base, 'clear-hover')).pixel(100, 50), [29, 78, 216]);
  });

  test('options: playwright.config expect.toHaveScreenshot applies under .sightline/config.json and the call', () => {
    assert.deepEqual(statuses(changed, ['pw-max-diff-pixels', 'pw-under-config', 'pw-under-call', 'pw-style-path']), {
      'pw-max-diff-pixels': 'passed', 'pw-under-config': 'failed', 'pw-under-call': 'failed', 'pw-style-path': 'passed',
    });
    const evidence = (name) => optionsEvidence(base, name, name, 'pw-defaults');
    assert.equal(evidence('pw-max-diff-pixels').verdict, 'Passed: 100 pixels differ (0.500 %), within the allowed 100');
    for (const name of ['pw-under-config', 'pw-under-call']) assert.equal(evidence(name).status, 'changed', name);
    // Playwright's stylePath (relative to its config) hid the badge; the call's mask the advert
    assert.deepEqual(pixelFacts(evidence('pw-style-path')), {
      status: 'passed', kind: 'identical', autoPassed: false, diffPixels: 0, antialiasedPixels: 0, totalPixels: 20000, size: [200, 100],
    });
    // `sightline compare` on the captures resolves the same settings: Playwright's defaults travel with each capture
    for (const [name, exit] of [['pw-max-diff-pixels', 0], ['pw-under-config', 1]]) {
      const copy = path.join(temps.make('sightline-options-compare-'), name);
      cpSync(path.join(base, name), copy, { recursive: true });
      const run = spawnSync(sightlineBin, ['--root', copy, 'compare'], { encoding: 'utf8' });
      assert.equal(run.status, exit, `${name}: ${run.stdout}\n${run.stderr}`);
      const results = JSON.parse(readFileSync(path.join(copy, 'visual-report', 'results.json'), 'utf8'));
      assert.equal(results.snapshots[0].layers.pixel.diffPixels, 100, name);
    }
  });

  test('options: reportDir in config puts results.json and the images in that folder', () => {
    assert.equal(statuses(changed, ['report-dir'])['report-dir'], 'failed');
    const root = path.join(base, 'report-dir');
    assert.match(changed.output, /^sightline: 1 snapshot — 0 passed, 1 changed, 0 new, 0 missing → out\/visual\/results\.json$/m);
    const results = JSON.parse(readFileSync(path.join(root, 'out', 'visual', 'results.json'), 'utf8'));
    assert.deepEqual(results.summary, { total: 1, passed: 0, changed: 1, new: 0, missing: 0, autoPassed: 0, written: 0 });
    assert.deepEqual(results.snapshots.map((s) => [s.name, s.status]), [['report-dir', 'changed']]);
    const images = 'out/visual/images/report-dir';
    const files = { baseline: `${images}/chromium-baseline.png`, current: `${images}/chromium-current.png`, diff: `${images}/chromium-diff.png` };
    assert.deepEqual(results.snapshots[0].files, files);
    for (const file of [...Object.values(files), 'out/visual/index.html']) assert.ok(existsSync(path.join(root, file)), file);
    assert.ok(!existsSync(path.join(root, 'visual-report')), 'nothing in the default folder');
  });

  // Per mode: [test outcome, baseline after the run] for a snapshot within its tolerance
  // (`update-passed`), one that changed (`update-changed`) and one without a baseline (`update-new`).
  // Only `changed` (and `missing`, for new snapshots) may write, and a passed snapshot is matched:
  // never rewritten.
  const expectedUpdates = {
    none: { 'update-passed': ['passed', 'kept'], 'update-changed': ['failed', 'kept'], 'update-new': ['failed', 'absent'] },
    missing: { 'update-passed': ['passed', 'kept'], 'update-changed': ['failed', 'kept'], 'update-new': ['passed', 'written'] },
    changed: { 'update-passed': ['passed', 'kept'], 'update-changed': ['passed', 'rewritten'], 'update-new': ['passed', 'written'] },
  };
  for (const mode of UPDATE_MODES) {
    test(`options: --update-snapshots=${mode} writes only what it should, leaving a passed snapshot's baseline byte for byte`, () => {
      const { base: modeBase, run } = updates[mode];
      const seen = {};
      for (const name of ['update-passed', 'update-changed', 'update-new']) {
        const png = baselinePng(modeBase, name);
        const approved = baselinePng(pristine, name);
        let disk = 'absent';
        if (existsSync(png)) {
          if (!existsSync(approved)) disk = 'written';
          else disk = readFileSync(png).equals(readFileSync(approved)) ? 'kept' : 'rewritten';
        }
        seen[name] = [run.tests.get(name)?.results[0].status, disk];
      }
      assert.deepEqual(seen, expectedUpdates[mode], run.output);
      // the suite's other tests were filtered out by -g
      assert.deepEqual([...run.tests.keys()].sort(), ['update-changed', 'update-new', 'update-passed']);
      // what `changed` wrote is this run's page: the square in its new colour
      if (mode === 'changed') {
        const { data } = addon.readBaselineSync(path.join(modeBase, 'update-changed'), 'update-changed', 'chromium');
        const square = data.dom.elements.find((e) => e.selector === '#square');
        assert.equal(data.dom.styleRows[square.style][data.dom.styleProperties.indexOf('background-color')], 'rgb(220, 38, 38)');
      }
    });
  }

  test('options: a page that changes right after the first shot passes on the settled shot; an unchanged page costs one shot and no comparison', () => {
    assert.deepEqual(statuses(changed, ['reshot', 'reshot-settled']), { reshot: 'passed', 'reshot-settled': 'passed' }, changed.output);
    // the first shot (red) failed against the green baseline (one image comparison), so the
    // matcher shot again until two shots agreed (green, green); the settled shot's bytes are the
    // baseline's shot, so it passed without a second comparison. The settled page passed on its
    // first shot's bytes: one shot, no image comparison (issue 41)
    const shots = (title) => changed.tests.get(title).results[0].annotations;
    assert.deepEqual(shots('reshot'), [{ type: 'comparisons', description: '1' }, { type: 'shots', description: '3' }]);
    assert.deepEqual(shots('reshot-settled'), [{ type: 'comparisons', description: '0' }, { type: 'shots', description: '1' }]);
    for (const name of ['reshot', 'reshot-settled']) {
      const e = optionsEvidence(base, name);
      assert.deepEqual(pixelFacts(e), {
        status: 'passed', kind: 'identical', autoPassed: false, diffPixels: 0, antialiasedPixels: 0, totalPixels: 40000, size: [200, 200],
      }, name);
      assert.equal(e.verdict, 'Passed: no pixel differs', name);
    }
  });

  test('options: a failing snapshot costs one image comparison, a passing one one, a new one none', () => {
    const comparisons = (title) => changed.tests.get(title).results[0].annotations.find((a) => a.type === 'comparisons')?.description;
    const observed = Object.fromEntries(['max-diff-pixels-exceeded', 'mask-none', 'perceptual', 'max-diff-pixels', 'write-missing-baselines'].map((t) => [t, comparisons(t)]));
    assert.deepEqual(statuses(changed, Object.keys(observed)), {
      'max-diff-pixels-exceeded': 'failed', 'mask-none': 'failed', perceptual: 'failed', 'max-diff-pixels': 'passed', 'write-missing-baselines': 'failed',
    });
    // a failing page is shot again until two shots agree; the settled shot is the one compared,
    // so the first comparison stands and draws the diff image
    assert.deepEqual(observed, { 'max-diff-pixels-exceeded': '1', 'mask-none': '1', perceptual: '1', 'max-diff-pixels': '1', 'write-missing-baselines': '0' });
  });

  test('options: a page that never settles fails as unstable, naming what kept changing, and no update mode writes its baseline', () => {
    // timeout 0: the first shot and one more, which differs; a ticking clock: shots for 1.5 s
    for (const run of [approveRun, changed]) {
      assert.deepEqual(statuses(run, ['reshot-timeout', 'ticking-clock']), { 'reshot-timeout': 'failed', 'ticking-clock': 'failed' });
    }
    const message = (title) => changed.tests.get(title).results[0].errors[0].message.split('\n')[0];
    assert.match(
      message('reshot-timeout'),
      /^Error: toMatchVisual\("reshot-timeout"\): Unstable page: two consecutive screenshots never matched within \d+ ms; the area 200×200 at 0,0 \(#light\) kept changing; hide it with mask or wait for it to settle — never approve this capture as a baseline$/,
    );
    // the digits that changed between the last two shots may form one area or several
    assert.match(message('ticking-clock'), /^Error: toMatchVisual\("ticking-clock"\): Unstable page: two consecutive screenshots never matched within (1[5-9]\d\d|[2-9]\d\d\d) ms; the area \d+×\d+ at \d+,\d+ \(#clock\)( and \d+ more areas?)? kept changing;/);
    assert.deepEqual(changed.tests.get('reshot-timeout').results[0].annotations.map(({ type, description }) => ({ type, description })), [
      { type: 'fail', description: 'the page never settles: the call fails as unstable' },
      { type: 'comparisons', description: '1' },
      { type: 'shots', description: '2' },
    ]);
    for (const root of ['reshot-timeout', 'ticking-clock']) {
      assert.ok(!existsSync(baselinePng(base, root)), `${root}: no baseline, even under --update-snapshots=all`);
      const e = optionsEvidence(base, root);
      assert.deepEqual([e.status, e.verdictKind], ['changed', 'unstable'], root);
    }
  });

  test('options: .not.toMatchVisual passes on a changed page and fails on an unchanged one, saying why', () => {
    assert.deepEqual(statuses(changed, ['not-changed', 'not-unchanged']), { 'not-changed': 'passed', 'not-unchanged': 'failed' });
    // as toHaveScreenshot's .not, nothing is kept for the run (issue 35)
    assert.ok(!existsSync(path.join(base, 'not-changed', '.sightline', 'temp', 'not-changed')));
    const [error] = changed.tests.get('not-unchanged').results[0].errors;
    assert.equal(error.message.split('\n')[0], 'Error: toMatchVisual("not-unchanged"): expected a visual change, but Passed: no pixel differs');
  });

  /** The names `sightline list` gives for a case root's baselines. */
  const listedNames = (root) =>
    spawnSync(sightlineBin, ['--root', path.join(base, root), 'list'], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
      .map((line) => line.split('\t')[0]);

  test('options: unnamed calls are named after the spec file and the test, numbered from the second call; the same title in two files keeps two baselines', () => {
    const listed = listedNames('default-names');
    assert.deepEqual(listed, ['names.spec.mjs/default-names', 'options.spec.mjs/default-names', 'options.spec.mjs/default-names-2']);
    for (const name of listed) assert.equal(optionsEvidence(base, 'default-names', name).status, 'passed', name);
    assert.deepEqual(optionsEvidence(base, 'default-names', 'options.spec.mjs/default-names').currentSize, { width: 200, height: 100 });
    // the second call captured the 60 × 60 #content block
    assert.deepEqual(optionsEvidence(base, 'default-names', 'options.spec.mjs/default-names-2').currentSize, { width: 60, height: 60 });
  });

  test('options: names as toHaveScreenshot takes them: arrays are folders, .png is dropped, the name may sit among the options', () => {
    assert.equal(statuses(changed, ['names']).names, 'passed');
    assert.deepEqual(listedNames('names'), ['cards/content', 'cards/lamp', 'hero']);
    assert.ok(existsSync(baselinePng(base, 'names', 'cards/lamp')));
    assert.deepEqual(optionsEvidence(base, 'names', 'cards/content').currentSize, { width: 60, height: 60 });
    // the reporter's results hold the nested names too
    const results = addon.writeResultsSync({ root: path.join(base, 'names') });
    assert.deepEqual([results.total, results.passed], [3, 3]);
  });

  test('options: baselinePath {name}/{project}-{platform} keeps one baseline per operating system, and another system\'s is neither read nor missing', () => {
    const root = path.join(base, 'per-os-layout');
    const written = path.join(root, '.sightline', 'baselines', 'home', `chromium-${process.platform}.png`);
    assert.ok(existsSync(written), 'the approve run wrote the per-OS baseline');
    assert.ok(!existsSync(baselinePng(base, 'per-os-layout', 'home')), 'and not the default layout\'s');
    // the changed run compared against it: a change, not a new snapshot
    const evidence = optionsEvidence(base, 'per-os-layout', 'home');
    assert.deepEqual([evidence.status, evidence.files.baseline], ['changed', `.sightline/baselines/home/chromium-${process.platform}.png`]);
    const other = process.platform === 'darwin' ? 'linux' : 'darwin';
    writeFileSync(path.join(root, '.sightline', 'baselines', 'home', `chromium-${other}.png`), readFileSync(written));
    assert.deepEqual(listedNames('per-os-layout'), ['home']);
    const results = addon.writeResultsSync({ root });
    assert.deepEqual([results.total, results.changed, results.missing], [1, 1, 0]);
  });

  test('options: baselinePath {testFile}/{name}/{project} keeps a given name per spec file, as toHaveScreenshot does', () => {
    assert.deepEqual(listedNames('per-file-names'), ['names.spec.mjs/home', 'options.spec.mjs/home']);
    const at = ['names.spec.mjs/home', 'options.spec.mjs/home'].map((name) => {
      assert.equal(optionsEvidence(base, 'per-file-names', name).status, 'passed', name);
      return readPng(baselinePng(base, 'per-file-names', name)).pixel(25, 25);
    });
    // each file's own page: the advert page's dark content block, the hundred page's blue spot
    assert.deepEqual(at, [[15, 23, 42], [29, 78, 216]]);
  });

  test('options: a test whose only failure is a new snapshot is not retried, as toHaveScreenshot\'s missing snapshot', () => {
    const { results } = changed.tests.get('new-on-retry');
    assert.deepEqual(results.map((r) => r.status), ['failed'], 'retries: 1, one attempt');
    const shots = results.map((r) => Buffer.from(r.attachments.find((a) => a.name === 'shots').body, 'base64').toString());
    assert.deepEqual(shots, ['2'], 'shot until two shots agreed');
    assert.match(results[0].errors[0].message.split('\n')[0], /^Error: toMatchVisual\("new-on-retry"\): New snapshot/);
    assert.equal(optionsEvidence(base, 'new-on-retry').status, 'new');
  });

  test('options: a name that climbs out of the baselines folder is refused before anything is captured', () => {
    assert.equal(statuses(changed, ['name-escapes'])['name-escapes'], 'failed');
    const message = changed.tests.get('name-escapes').results[0].errors[0].message.split('\n')[0];
    assert.equal(message, 'Error: toMatchVisual: snapshot name "../../etc" contains \'..\'; use letters, digits, \'-\', \'_\' and \'.\', with \'/\' between folders, e.g. "checkout-page" or "cards/lamp"');
    assert.ok(!existsSync(path.join(base, 'name-escapes', '.sightline')), 'nothing captured');
  });

  test('options: a bad call option fails the call with the engine\'s message naming the nested key', () => {
    assert.equal(statuses(changed, ['bad-option'])['bad-option'], 'failed');
    const [error] = changed.tests.get('bad-option').results[0].errors;
    assert.equal(error.message.split('\n')[0], 'Error: toMatchVisual options: "clip.width" must be a number above 0, got 0');
    assert.ok(!existsSync(path.join(base, 'bad-option', '.sightline')), 'nothing captured');
  });

  test('options: timeout per call bounds the wait for a locator that matches nothing', () => {
    assert.equal(statuses(changed, ['timeout']).timeout, 'failed');
    const [error] = changed.tests.get('timeout').results[0].errors;
    assert.equal(error.message.split('\n')[0], 'TimeoutError: locator.elementHandle: Timeout 300ms exceeded.');
    assert.ok(!existsSync(path.join(base, 'timeout', '.sightline', 'temp', 'timeout')), 'nothing captured');
  });
});
