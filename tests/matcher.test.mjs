// `expect(page).toMatchVisual()` in real Playwright runs against Debian's Chromium: the scenario
// suite runs once with --update-snapshots to approve baselines, then again with one planted
// change per page; the evidence each snapshot leaves in .sightline/temp is asserted. The option
// suite (tests/options) is matcher-options.test.mjs.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { repo, runPlaywright, skip, specsOf, tempFolders } from './support/playwright-runs.mjs';
import { asRead } from './support/dom-record.mjs';

const addon = createRequire(import.meta.url)('../index.js');
const temps = tempFolders();

const root = temps.make('sightline-matcher-');

function playwright(variant, extraArgs = []) {
  const env = { SIGHTLINE_ROOT: root, SCENARIO_VARIANT: variant, PLAYWRIGHT_JSON_OUTPUT_NAME: path.join(root, 'playwright-report.json') };
  return runPlaywright('tests/scenarios/playwright.config.mjs', extraArgs, env);
}

function evidence(name) {
  return JSON.parse(readFileSync(path.join(root, '.sightline', 'temp', name, 'chromium.json'), 'utf8'));
}

let changedRun;
before(() => {
  if (skip) return;
  const approve = playwright('base', ['--update-snapshots=all']);
  assert.equal(approve.status, 0, approve.output);
  // its own output folder: the other runs here clear the default one, and the attachments with it
  changedRun = playwright('changed', ['--reporter=line,json', '--output', path.join(root, 'test-results')]);
});

test('matcher: first run without -u fails a new snapshot and says how to approve', { skip }, () => {
  const fresh = temps.make('sightline-new-');
  const run = runPlaywright('tests/scenarios/playwright.config.mjs', ['-g', 'identical'], { SIGHTLINE_ROOT: fresh, SCENARIO_VARIANT: 'base' });
  assert.equal(run.status, 1, run.output);
  assert.match(
    run.output,
    /^ {4}Error: toMatchVisual\("identical"\): New snapshot: no baseline yet; a human reviews the capture and approves it\n {6}If this is intended: npx sightline approve identical \(or run the tests with -u\)$/m,
  );
  assert.ok(!existsSync(path.join(fresh, '.sightline', 'baselines', 'identical')), 'no baseline written without -u');
});

test('matcher: an output file that cannot be written fails the call, naming the file and the fix', { skip }, () => {
  // Its own project: the shared one's evidence of banner-shift is read by the tests below.
  const own = temps.make('sightline-blocked-');
  const args = ['-g', 'banner-shift$', '--output', path.join(own, 'blocked-results')];
  const approve = runPlaywright('tests/scenarios/playwright.config.mjs', [...args, '--update-snapshots=all'], { SIGHTLINE_ROOT: own, SCENARIO_VARIANT: 'base' });
  assert.equal(approve.status, 0, approve.output);
  const run = runPlaywright('tests/scenarios/playwright.config.mjs', args, { SIGHTLINE_ROOT: own, SCENARIO_VARIANT: 'changed', SCENARIO_BLOCK_ACTUAL: '1' });
  assert.equal(run.status, 1, run.output);
  assert.match(run.output, /Error: toMatchVisual\("banner-shift"\): could not write banner-shift-actual\.png into the test's output folder \(.*blocked-results.*banner-shift-actual\.png\): EISDIR: .*; make the folder writable, free space on its disk, or set another with `outputDir`/);
  assert.match(run.output, /1 failed/);
});

test('matcher: baselines were written as PNG + DOM data', { skip }, () => {
  for (const name of ['identical', 'style-token', 'banner-shift']) {
    assert.ok(existsSync(path.join(root, '.sightline', 'baselines', name, 'chromium.png')), name);
    // one file per baseline: the DOM record rides inside the PNG
    const { data } = addon.readBaselineSync(root, name, 'chromium');
    assert.equal(data.dom.version, 4);
    assert.ok(data.dom.styleRows.length > 0 && data.dom.elements.every((e) => Number.isInteger(e.style)), name);
  }
});

test('matcher: the changed run fails with one-line verdicts', { skip }, () => {
  assert.equal(changedRun.status, 1, changedRun.output);
  // the verdict line, then the top three regions and a count of the rest
  const message = [
    '    Error: toMatchVisual("style-token"): Style-only change: token --accent #2563eb → #dc2626 (<style> in /style-token, line 4), used by 6 restyled elements; 6 elements restyled (#card-lamp > h2, #card-lamp > button, #card-chair > h2, …); color rgb(37, 99, 235) → rgb(220, 38, 38); real, not noise; confirm it was intended before approving',
    '      change 103×18 at 39,98: 405 px — #card-lamp > h2 (changed)',
    '      change 52×14 at 294,98: 194 px — #card-chair > h2 (changed)',
    '      change 50×14 at 551,98: 222 px — #card-plant > h2 (changed)',
    '      … 3 more regions',
  ].join('\n');
  assert.ok(changedRun.output.includes(message), changedRun.output);
  // Playwright's own report: pass/fail per test, and for a failure the comparison (expected /
  // actual / diff images) after the evidence
  const specs = specsOf(JSON.parse(readFileSync(path.join(root, 'playwright-report.json'), 'utf8')));
  assert.deepEqual(Object.fromEntries(specs.map((spec) => [spec.title, spec.tests[0].results[0].status])), {
    identical: 'passed',
    'style-token': 'failed',
    'clipped-card': 'failed',
    'banner-shift': 'failed',
    'added-element': 'failed',
    'font-404': 'failed',
    'element-capture': 'passed',
    'element-style': 'failed',
  });
  const attachments = (title) => specs.find((spec) => spec.title === title).tests[0].results[0].attachments.map((a) => a.name);
  assert.deepEqual(attachments('style-token'), ['style-token-evidence.json', 'style-token-expected.png', 'style-token-actual.png', 'style-token-diff.png', 'error-context']);
  assert.deepEqual(attachments('identical'), [], 'a passing call attaches nothing, as toHaveScreenshot');
  // the actual image is compressed (quickly, within 2× the baseline's size; the browser's
  // uncompressed shot would be ~45×)
  // (the JSON report keeps an attachment by path, or, given as a body, inline in base64)
  const attached = Object.fromEntries(specs.find((spec) => spec.title === 'style-token').tests[0].results[0].attachments.map((a) => [a.name, a]));
  const bytesOf = (a) => (a.path ? readFileSync(a.path) : Buffer.from(a.body, 'base64')).length;
  const [expectedBytes, actualBytes] = ['style-token-expected.png', 'style-token-actual.png'].map((n) => bytesOf(attached[n]));
  assert.ok(actualBytes < 2 * expectedBytes, `actual ${actualBytes} bytes, expected (baseline) ${expectedBytes} bytes`);
  // attached as files, so Playwright's reporters print where they are, as for toHaveScreenshot
  assert.match(changedRun.output, /^ +Expected: \S*\.sightline\/baselines\/style-token\/chromium\.png\n +Received: \S*test-results\/[^/\s]+\/style-token-actual\.png\n +Diff: +\S*test-results\/[^/\s]+\/style-token-diff\.png$/m);
});

test('scenario: identical pages pass', { skip }, () => {
  const e = evidence('identical');
  assert.equal(e.status, 'passed');
  assert.equal(e.verdict, 'Passed: no pixel differs');
});

test('scenario: a CSS custom-property colour change is style-only and names every element using it', { skip }, () => {
  const e = evidence('style-token');
  assert.equal(e.status, 'changed');
  assert.equal(e.verdictKind, 'styleOnly');
  const cards = ['#card-lamp', '#card-chair', '#card-plant'];
  assert.equal(e.layers.dom.styleChanges.count, 6);
  assert.deepEqual(e.layers.dom.styleChanges.elements, cards.flatMap((card) => [`${card} > h2`, `${card} > button`]));
  assert.equal(
    e.verdict,
    'Style-only change: token --accent #2563eb → #dc2626 (<style> in /style-token, line 4), used by 6 restyled elements; 6 elements restyled (#card-lamp > h2, #card-lamp > button, #card-chair > h2, …); color rgb(37, 99, 235) → rgb(220, 38, 38); real, not noise; confirm it was intended before approving',
  );
  assert.equal(e.layers.dom.changed, false);
  // one region per heading, then per button, each naming its restyled element
  assert.deepEqual(
    e.layers.pixel.regions.map((r) => r.elements.map((x) => `${x.selector} ${x.role}`)),
    [...cards.map((card) => [`${card} > h2 changed`]), ...cards.map((card) => [`${card} > button changed`])],
  );
});

test('scenario: max-height + overflow clipping one card is concentrated, names the card and its geometry', { skip }, () => {
  const e = evidence('clipped-card');
  assert.equal(e.verdictKind, 'concentrated', e.verdict);
  assert.equal(e.layers.pixel.shape, 'concentrated');
  assert.equal(
    e.verdict,
    'Not noise: 3336 pixels changed in one area on #card-chair; #card-chair resized 240×137 → 240×86 with DOM and styles identical — a bad capture or a change the style check cannot see (max-height, overflow, transform); compare the images',
  );
  // max-height: 60px + 2 × 12 px padding + 2 × 1 px border = 86 px tall
  assert.deepEqual(e.layers.dom.geometryChanges.resized.map((r) => [r.selector, r.to]), [['#card-chair', [280, 80, 240, 86]]]);
  assert.deepEqual(e.layers.dom.geometryChanges.moved, []);
  assert.deepEqual(
    e.layers.pixel.regions.map((r) => r.elements.map((x) => `${x.selector} ${x.role}`)),
    [['#card-chair moved', '#card-chair > button overlaps']],
  );
});

test('scenario: a banner inserted at the top shifts the page', { skip }, () => {
  const e = evidence('banner-shift');
  assert.equal(e.status, 'changed');
  assert.deepEqual(e.layers.pixel.shift, { dy: 40, belowY: 56 });
  assert.equal(e.verdictKind, 'structural');
  assert.equal(e.verdict, 'Structural change: 1 element added (body > div.banner); content below y=56 moved down 40 px; compare with the intended change');
  assert.deepEqual(e.layers.dom.added, { count: 1, elements: ['body > div.banner'] });
  // the 40 px banner band is the change, everything below it only moved
  assert.deepEqual(
    e.layers.pixel.regions.map((r) => [r.classification, r.x, r.y, r.width, r.height]),
    [['change', 0, 56, 800, 40], ['shift', 0, 96, 800, 930]],
  );
});

test('scenario: an added element is a structural change naming it', { skip }, () => {
  const e = evidence('added-element');
  assert.equal(e.verdictKind, 'structural');
  assert.deepEqual(e.layers.dom.added, { count: 1, elements: ['#promo'] });
  assert.deepEqual(e.layers.dom.removed, { count: 0, elements: [] });
  assert.equal(e.verdict, 'Structural change: 1 element added (#promo); content below y=237 moved down 38 px; compare with the intended change');
});

test('scenario: a web font that fails to load is unhealthy, never noise', { skip }, () => {
  const e = evidence('font-404');
  assert.equal(e.status, 'changed');
  assert.equal(e.verdictKind, 'unhealthy');
  // the FontFace's status, the 404 response and the aborted request are one failed asset, said
  // by its most telling reason
  assert.deepEqual(e.captureHealth, {
    unhealthy: true,
    reasons: [{ kind: 'font', url: 'http://127.0.0.1:9/fonts/brand.woff2', detail: 'HTTP 404' }],
    sameOnBothSides: false,
  });
  assert.equal(e.verdict.split('http://127.0.0.1:9/fonts/brand.woff2').length, 2, `the font is named once: ${e.verdict}`);
});

test('scenario: a locator captures only its element and passes when unchanged', { skip }, () => {
  const e = evidence('element-capture');
  assert.equal(e.status, 'passed', e.verdict);
  // the image is exactly the card's border box as the collector measured it
  const { data } = addon.readBaselineSync(root, 'element-capture', 'chromium');
  const card = data.dom.elements.find((el) => el.selector === '#card-plant');
  assert.deepEqual([e.currentSize.width, e.currentSize.height], [Math.round(card.box[2]), Math.round(card.box[3])]);
});

test('matcher: two tests capturing one snapshot name is an error naming both, with their files and lines', { skip }, () => {
  const fresh = temps.make('sightline-collision-');
  const env = { SIGHTLINE_ROOT: fresh, SCENARIO_COLLISION: '1', SCENARIO_VARIANT: 'base' };
  const run = runPlaywright('tests/scenarios/playwright.config.mjs', ['collision', '--update-snapshots=all'], env);
  assert.equal(run.status, 1, run.output);
  assert.match(
    run.output,
    /snapshot "shared-name" \(chromium\) is captured by two tests in this run: "first user of the name" \(collision\.spec\.mjs:8\) and "second user of the name" \(collision\.spec\.mjs:8\); give each toMatchVisual call its own name/,
  );
});

// A damaged baseline (an interrupted checkout) fails its own test with what is wrong and the fix,
// and never the run: the other test still passes (issue 34).
test('matcher: a truncated baseline fails only its own test, naming the file and how to restore it', { skip }, () => {
  const fresh = temps.make('sightline-damaged-');
  cpSync(path.join(root, '.sightline', 'baselines'), path.join(fresh, '.sightline', 'baselines'), { recursive: true });
  const png = path.join(fresh, '.sightline', 'baselines', 'identical', 'chromium.png');
  const whole = readFileSync(png);
  writeFileSync(png, whole.subarray(0, whole.length >> 1));
  const env = { SIGHTLINE_ROOT: fresh, SCENARIO_VARIANT: 'base', PLAYWRIGHT_JSON_OUTPUT_NAME: path.join(fresh, 'report.json') };
  const run = runPlaywright('tests/scenarios/playwright.config.mjs', ['-g', 'identical|element-capture', '--reporter=line,json'], env);
  assert.equal(run.status, 1, run.output);
  assert.match(
    run.output,
    /^ {4}Error: toMatchVisual\("identical"\): Cannot compare: the baseline \.sightline\/baselines\/identical\/chromium\.png is damaged \(not a readable PNG: [^\n]+\); restore it with `git checkout -- \.sightline\/baselines\/identical\/chromium\.png`, or approve this run's capture to replace it\n {6}To replace it: npx sightline approve identical \(or run the tests with -u\)$/m,
  );
  const specs = specsOf(JSON.parse(readFileSync(path.join(fresh, 'report.json'), 'utf8')));
  assert.deepEqual(Object.fromEntries(specs.map((spec) => [spec.title, spec.tests[0].results[0].status])), { identical: 'failed', 'element-capture': 'passed' });
  const left = JSON.parse(readFileSync(path.join(fresh, '.sightline', 'temp', 'identical', 'chromium.json'), 'utf8'));
  assert.equal(left.status, 'error');
  assert.deepEqual([left.damaged.side, left.damaged.file], ['baseline', '.sightline/baselines/identical/chromium.png']);
  assert.ok(existsSync(path.join(fresh, '.sightline', 'temp', 'identical', 'chromium.slcap')), 'the capture is kept, to approve in its place');
  assert.deepEqual(readFileSync(png), whole.subarray(0, whole.length >> 1), 'the damaged file is left as it was');
});

test('matcher: a capture that cannot be written fails its call, naming the file, though the page is unchanged', { skip }, () => {
  // The capture is written while the call attaches and puts the page back; the call still waits
  // for it and fails when it could not be written (here a folder stands at its path).
  const fresh = temps.make('sightline-unwritable-');
  cpSync(path.join(root, '.sightline', 'baselines'), path.join(fresh, '.sightline', 'baselines'), { recursive: true });
  mkdirSync(path.join(fresh, '.sightline', 'temp', 'identical', 'chromium.slcap'), { recursive: true });
  const env = { SIGHTLINE_ROOT: fresh, SCENARIO_VARIANT: 'base', PLAYWRIGHT_JSON_OUTPUT_NAME: path.join(fresh, 'report.json') };
  const run = runPlaywright('tests/scenarios/playwright.config.mjs', ['-g', 'identical|element-capture', '--reporter=line,json'], env);
  assert.equal(run.status, 1, run.output);
  assert.match(run.output, /Error: toMatchVisual\("identical"\): [^\n]*\.sightline\/temp\/identical\/chromium\.slcap/, run.output);
  const specs = specsOf(JSON.parse(readFileSync(path.join(fresh, 'report.json'), 'utf8')));
  assert.deepEqual(Object.fromEntries(specs.map((spec) => [spec.title, spec.tests[0].results[0].status])), { identical: 'failed', 'element-capture': 'passed' });
});

// The capture session reads the config once per call (issue 33): counted on a real run with
// strace, as a person would check it. The scenario config has no sightline reporter, so every
// open of config.json in the run is the one call's.
const strace = spawnSync('strace', ['-V']).status === 0;
test('matcher: an unchanged call opens .sightline/config.json once', { skip: skip || (!strace && 'strace not installed (scripts/setup.sh installs it)') }, () => {
  const fresh = mkdtempSync(path.join(tmpdir(), 'sightline-opens-'));
  try {
    cpSync(path.join(root, '.sightline', 'baselines', 'identical'), path.join(fresh, '.sightline', 'baselines', 'identical'), { recursive: true });
    writeFileSync(path.join(fresh, '.sightline', 'config.json'), '{"threshold": 0.1}');
    const trace = path.join(fresh, 'openat.trace');
    const cli = path.join(repo, 'node_modules', '@playwright', 'test', 'cli.js');
    const run = spawnSync('strace', ['-f', '-e', 'trace=openat', '-o', trace, process.execPath, cli, 'test', '-c', 'tests/scenarios/playwright.config.mjs', '-g', 'identical$'], {
      cwd: repo,
      env: { ...process.env, SIGHTLINE_ROOT: fresh, SCENARIO_VARIANT: 'base' },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    const config = path.join(fresh, '.sightline', 'config.json');
    const opens = readFileSync(trace, 'utf8').split('\n').filter((line) => line.includes(`"${config}"`));
    assert.equal(opens.length, 1, opens.join('\n'));
    assert.equal(JSON.parse(readFileSync(path.join(fresh, '.sightline', 'temp', 'identical', 'chromium.json'), 'utf8')).status, 'passed');
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
});

test('scenario: a locator capture sees only its element: an accent change is style-only and names only the card', { skip }, () => {
  const e = evidence('element-style');
  assert.equal(e.status, 'changed', e.verdict);
  assert.equal(e.verdictKind, 'styleOnly', e.verdict);
  assert.equal(e.layers.dom.changed, false);
  const inCard = (s) => s === '#card-plant' || s.startsWith('#card-plant > ');
  // only the card's heading and button, though every card on the page was restyled
  assert.deepEqual(e.layers.dom.styleChanges.elements, ['#card-plant > h2', '#card-plant > button']);
  const properties = e.layers.dom.styleChanges.properties;
  assert.deepEqual([...new Set(properties.map((p) => p.selector))], ['#card-plant > h2', '#card-plant > button']);
  assert.equal(
    e.verdict,
    'Style-only change: token --accent #2563eb → #dc2626 (<style> in /element-style, line 4), used by 2 restyled elements; 2 elements restyled (#card-plant > h2, #card-plant > button); color rgb(37, 99, 235) → rgb(220, 38, 38); real, not noise; confirm it was intended before approving',
  );
  // Regions are in the element image's pixels (the heading 15 px from the card's left edge,
  // not the page's 551 px), each naming the restyled element it covers.
  assert.deepEqual(
    e.layers.pixel.regions.map((r) => [r.x, r.y, r.elements.map((x) => `${x.selector} ${x.role}`)]),
    [[15, 18, ['#card-plant > h2 changed']], [13, 93, ['#card-plant > button changed']]],
  );
  // the element's record: the card is the root at 0,0, the size of the image
  const { data } = addon.readBaselineSync(root, 'element-style', 'chromium');
  assert.deepEqual([data.dom.elements[0].selector, data.dom.elements[0].parent], ['#card-plant', -1]);
  assert.deepEqual(data.dom.elements[0].box.slice(0, 2), [0, 0]);
  assert.ok(asRead(data.dom).elements.every((el) => inCard(el.selector)));
  assert.deepEqual([e.currentSize.width, e.currentSize.height], [Math.round(data.dom.document.width), Math.round(data.dom.document.height)]);
});
