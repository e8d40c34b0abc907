// `npm run example` on this machine: the bundled shop goes through approve → planted changes, and
// the report it leaves (results.json from the sightline reporter) shows a style-only change, a
// page shift and a pass, with the images of the changed snapshots.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const repo = new URL('..', import.meta.url).pathname;
const shop = path.join(repo, 'examples', 'shop');
const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const skip = !existsSync(chromium) && `Chromium not found at ${chromium} (set SIGHTLINE_CHROMIUM)`;
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);

test('example: npm run example leaves a report with a style-only change, a page shift and a pass', { skip }, () => {
  const run = spawnSync(process.execPath, ['scripts/example.mjs'], { cwd: repo, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /3 snapshots: 1 passed, 2 changed, 0 new, 0 missing/);

  const results = JSON.parse(readFileSync(path.join(shop, 'visual-report', 'results.json'), 'utf8'));
  assert.equal(results.version, 1);
  assert.deepEqual(results.summary, { total: 3, passed: 1, changed: 2, new: 0, missing: 0, autoPassed: 0 });
  assert.deepEqual(results.missingBaselines, []);
  const byName = Object.fromEntries(results.snapshots.map((s) => [s.name, s]));

  const home = byName.home;
  assert.equal(home.verdictKind, 'styleOnly');
  assert.equal(home.layers.dom.styleCheck, 'mismatch');
  assert.ok(home.layers.dom.styleChanges.properties.some((p) => p.from === 'rgb(37, 99, 235)' && p.to === 'rgb(220, 38, 38)'));
  assert.ok(home.layers.dom.styleChanges.elements.includes('body > section.hero > a.btn'));

  const catalogue = byName.catalogue;
  assert.equal(catalogue.verdictKind, 'pageShift', catalogue.verdict);
  assert.deepEqual(catalogue.layers.pixel.shift, { dy: 60, belowY: 284 }, "the hero (64 + 220 px) grew at its bottom edge");
  assert.match(catalogue.verdict, /#catalogue-hero grew by 60 px/);

  assert.equal(byName.about.status, 'passed');

  for (const snap of [home, catalogue]) {
    for (const key of ['baseline', 'current', 'diff']) {
      assert.ok(existsSync(path.join(shop, snap.files[key])), `${snap.name} ${key}: ${snap.files[key]}`);
    }
  }
});
