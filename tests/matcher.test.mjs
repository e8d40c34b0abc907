// `expect(page).toMatchVisual()` in real Playwright runs against Debian's Chromium: the scenario
// suite runs once with --update-snapshots to approve baselines, then again with one planted
// change per page; the evidence each snapshot leaves in .sightline/temp is asserted.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const addon = createRequire(import.meta.url)('../index.js');

const repo = new URL('..', import.meta.url).pathname;
const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const skip = !existsSync(chromium) && `Chromium not found at ${chromium} (set SIGHTLINE_CHROMIUM)`;
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);

const root = mkdtempSync(path.join(tmpdir(), 'sightline-matcher-'));

function playwright(variant, extraArgs = []) {
  const cli = path.join(repo, 'node_modules', '@playwright', 'test', 'cli.js');
  const run = spawnSync(process.execPath, [cli, 'test', '-c', 'tests/scenarios/playwright.config.mjs', ...extraArgs], {
    cwd: repo,
    env: { ...process.env, SIGHTLINE_ROOT: root, SCENARIO_VARIANT: variant, PLAYWRIGHT_JSON_OUTPUT_NAME: path.join(root, 'playwright-report.json') },
    encoding: 'utf8',
  });
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}

function evidence(name) {
  return JSON.parse(readFileSync(path.join(root, '.sightline', 'temp', name, 'chromium.json'), 'utf8'));
}

let changedRun;
before(() => {
  if (skip) return;
  const approve = playwright('base', ['--update-snapshots=all']);
  assert.equal(approve.status, 0, approve.output);
  changedRun = playwright('changed', ['--reporter=line,json']);
});

test('matcher: first run without -u fails a new snapshot and says how to approve', { skip }, () => {
  const fresh = mkdtempSync(path.join(tmpdir(), 'sightline-new-'));
  const cli = path.join(repo, 'node_modules', '@playwright', 'test', 'cli.js');
  const run = spawnSync(process.execPath, [cli, 'test', '-c', 'tests/scenarios/playwright.config.mjs', '-g', 'identical'], {
    cwd: repo,
    env: { ...process.env, SIGHTLINE_ROOT: fresh, SCENARIO_VARIANT: 'base' },
    encoding: 'utf8',
  });
  assert.equal(run.status, 1);
  assert.match(run.stdout + run.stderr, /New snapshot: no baseline yet.*npx sightline approve identical/);
  assert.ok(!existsSync(path.join(fresh, '.sightline', 'baselines', 'identical')), 'no baseline written without -u');
});

test('matcher: baselines were written as PNG + DOM data', { skip }, () => {
  for (const name of ['identical', 'style-token', 'banner-shift']) {
    assert.ok(existsSync(path.join(root, '.sightline', 'baselines', name, 'chromium.png')), name);
    // one file per baseline: the DOM record rides inside the PNG
    const { data } = addon.readBaselineSync(root, name, 'chromium');
    assert.equal(data.dom.version, 1);
  }
});

test('matcher: the changed run fails with one-line verdicts', { skip }, () => {
  assert.equal(changedRun.status, 1, changedRun.output);
  assert.match(changedRun.output, /toMatchVisual\("style-token"\): Style-only change/);
  // Playwright's own report gets the comparison: expected / actual / diff images + the evidence
  const report = JSON.parse(readFileSync(path.join(root, 'playwright-report.json'), 'utf8'));
  const specs = report.suites.flatMap(function all(suite) {
    return [...(suite.specs ?? []), ...(suite.suites ?? []).flatMap(all)];
  });
  const styleToken = specs.find((spec) => spec.title === 'style-token');
  const attachments = styleToken.tests[0].results[0].attachments.map((a) => a.name);
  for (const name of ['style-token-expected.png', 'style-token-actual.png', 'style-token-diff.png', 'style-token-evidence.json']) {
    assert.ok(attachments.includes(name), `${name} in ${attachments}`);
  }
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
  const restyled = e.layers.dom.styleChanges.elements;
  for (const selector of ['#card-lamp > h2', '#card-chair > h2', '#card-plant > h2']) {
    assert.ok(restyled.some((s) => s === selector), `${selector} in ${restyled}`);
  }
  assert.ok(restyled.some((s) => s.includes('button')), `the buttons too: ${restyled}`);
  assert.match(e.verdict, /rgb\(37, 99, 235\) → rgb\(220, 38, 38\)/);
  assert.equal(e.layers.dom.changed, false);
});

test('scenario: max-height + overflow clipping one card is concentrated, names the card and its geometry', { skip }, () => {
  const e = evidence('clipped-card');
  assert.equal(e.verdictKind, 'concentrated', e.verdict);
  assert.equal(e.layers.pixel.shape, 'concentrated');
  assert.match(e.verdict, /#card-chair/);
  const resized = e.layers.dom.geometryChanges.resized.map((r) => r.selector);
  assert.ok(resized.includes('#card-chair'), resized.join(', '));
  const named = e.layers.pixel.regions.flatMap((r) => r.elements.map((x) => x.selector));
  assert.ok(named.some((s) => s.startsWith('#card-chair')), named.join(', '));
});

test('scenario: a banner inserted at the top shifts the page', { skip }, () => {
  const e = evidence('banner-shift');
  assert.equal(e.status, 'changed');
  assert.deepEqual(e.layers.pixel.shift, { dy: 40, belowY: 56 });
  assert.equal(e.verdictKind, 'structural');
  assert.match(e.verdict, /content below y=56 moved down 40 px/);
  assert.ok(e.layers.dom.added.elements.includes('body > div.banner'), e.layers.dom.added.elements.join(', '));
  assert.ok(e.layers.pixel.regions.some((r) => r.classification === 'shift'));
});

test('scenario: an added element is a structural change naming it', { skip }, () => {
  const e = evidence('added-element');
  assert.equal(e.verdictKind, 'structural');
  assert.deepEqual(e.layers.dom.added.elements, ['#promo']);
  assert.match(e.verdict, /1 element added \(#promo\)/);
});

test('scenario: a web font that fails to load is unhealthy, never noise', { skip }, () => {
  const e = evidence('font-404');
  assert.equal(e.status, 'changed');
  assert.equal(e.verdictKind, 'unhealthy');
  assert.equal(e.captureHealth.unhealthy, true);
  assert.ok(e.captureHealth.reasons.some((r) => r.kind === 'font' && r.url.endsWith('/fonts/brand.woff2') && r.detail === 'HTTP 404'), JSON.stringify(e.captureHealth));
});

test('scenario: a locator captures only its element and passes when unchanged', { skip }, () => {
  const e = evidence('element-capture');
  assert.equal(e.status, 'passed', e.verdict);
  // the image is exactly the card's border box as the collector measured it
  const { data } = addon.readBaselineSync(root, 'element-capture', 'chromium');
  const card = data.dom.elements.find((el) => el.selector === '#card-plant');
  assert.deepEqual([e.currentSize.width, e.currentSize.height], [Math.round(card.box[2]), Math.round(card.box[3])]);
});

test('matcher: two tests capturing one snapshot name is an error naming both', { skip }, () => {
  const fresh = mkdtempSync(path.join(tmpdir(), 'sightline-collision-'));
  const cli = path.join(repo, 'node_modules', '@playwright', 'test', 'cli.js');
  const run = spawnSync(process.execPath, [cli, 'test', '-c', 'tests/scenarios/playwright.config.mjs', 'collision', '--update-snapshots=all'], {
    cwd: repo,
    env: { ...process.env, SIGHTLINE_ROOT: fresh, SCENARIO_COLLISION: '1', SCENARIO_VARIANT: 'base' },
    encoding: 'utf8',
  });
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(
    run.stdout + run.stderr,
    /snapshot "shared-name" \(chromium\) is captured by two tests in this run: "first user of the name" and "second user of the name"; give each toMatchVisual call its own name/,
  );
});

test('scenario: a locator capture sees only its element: an accent change is style-only and names only the card', { skip }, () => {
  const e = evidence('element-style');
  assert.equal(e.status, 'changed', e.verdict);
  assert.equal(e.verdictKind, 'styleOnly', e.verdict);
  assert.equal(e.layers.dom.changed, false);
  const inCard = (s) => s === '#card-plant' || s.startsWith('#card-plant > ');
  const restyled = e.layers.dom.styleChanges.elements;
  assert.ok(restyled.length > 0 && restyled.every(inCard), `only the card is named: ${restyled.join(', ')}`);
  assert.ok(restyled.includes('#card-plant > h2') && restyled.includes('#card-plant > button'), restyled.join(', '));
  const properties = e.layers.dom.styleChanges.properties;
  assert.ok(properties.every((p) => inCard(p.selector)), JSON.stringify(properties));
  assert.match(e.verdict, /rgb\(37, 99, 235\) → rgb\(220, 38, 38\)/);
  // Regions are in the element image's pixels; the elements they meet are the card's, and the
  // changed ones are the restyled heading and button.
  const regions = e.layers.pixel.regions;
  assert.ok(regions.length > 0, e.verdict);
  const named = regions.flatMap((r) => r.elements.map((x) => x.selector));
  assert.ok(named.length > 0 && named.every(inCard), named.join(', '));
  const changed = regions.flatMap((r) => r.elements.filter((x) => x.role === 'changed').map((x) => x.selector));
  assert.ok(changed.includes('#card-plant > h2') && changed.includes('#card-plant > button'), JSON.stringify(regions));
  // the element's record: the card is the root at 0,0, the size of the image
  const { data } = addon.readBaselineSync(root, 'element-style', 'chromium');
  assert.deepEqual([data.dom.elements[0].selector, data.dom.elements[0].parent], ['#card-plant', -1]);
  assert.deepEqual(data.dom.elements[0].box.slice(0, 2), [0, 0]);
  assert.ok(data.dom.elements.every((el) => inCard(el.selector)));
  assert.deepEqual([e.currentSize.width, e.currentSize.height], [Math.round(data.dom.document.width), Math.round(data.dom.document.height)]);
});
