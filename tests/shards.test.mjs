// Sharded CI, end to end: the example shop's suite runs as 2 shards into separate checkouts, in
// both shard modes, and the merge job (`sightline merge` / `sightline compare --captures`) gets
// the same results as an unsharded run. Comparing shards upload no capture of an unchanged
// snapshot.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const repo = new URL('..', import.meta.url).pathname;
const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const skip = !existsSync(chromium) && `Chromium not found at ${chromium} (set SIGHTLINE_CHROMIUM)`;
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);
const sightlineBin = path.join(repo, 'target', 'release', 'sightline');

function playwright(root, variant, args = []) {
  const cli = path.join(repo, 'node_modules', '@playwright', 'test', 'cli.js');
  const config = path.join(repo, 'examples', 'shop', 'playwright.config.mjs');
  const run = spawnSync(process.execPath, [cli, 'test', '-c', config, '--fully-parallel', ...args], {
    cwd: repo,
    env: { ...process.env, SIGHTLINE_ROOT: root, EXAMPLE_VARIANT: variant },
    encoding: 'utf8',
  });
  return { status: run.status, output: run.stdout + run.stderr };
}

function sightline(root, args) {
  const run = spawnSync(sightlineBin, ['--root', root, ...args], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

/** A checkout: the approved baselines, plus an optional config. */
function checkout(baselines, config) {
  const root = mkdtempSync(path.join(tmpdir(), 'sightline-shard-'));
  cpSync(path.join(baselines, '.sightline', 'baselines'), path.join(root, '.sightline', 'baselines'), { recursive: true });
  if (config) writeFileSync(path.join(root, '.sightline', 'config.json'), JSON.stringify(config));
  return root;
}

function results(root) {
  const r = JSON.parse(readFileSync(path.join(root, 'visual-report', 'results.json'), 'utf8'));
  return {
    summary: r.summary,
    missing: r.missingBaselines,
    snapshots: r.snapshots.map((s) => ({ name: s.name, status: s.status, kind: s.verdictKind, verdict: s.verdict })),
  };
}

function captures(root) {
  const temp = path.join(root, '.sightline', 'temp');
  return readdirSync(temp, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(path.join(temp, d.name)).filter((f) => f.endsWith('.slcap')).map(() => d.name))
    .sort();
}

let baselines;
let unsharded;
before(() => {
  if (skip) return;
  baselines = mkdtempSync(path.join(tmpdir(), 'sightline-baselines-'));
  const approve = playwright(baselines, 'original', ['--update-snapshots=all']);
  assert.equal(approve.status, 0, approve.output);
  unsharded = checkout(baselines);
  const run = playwright(unsharded, 'changed');
  assert.equal(run.status, 1, run.output);
});

test('shards: compare mode — each shard compares its slice, merge equals the unsharded run', { skip }, () => {
  // Playwright splits the 3 fully-parallel tests in file order: shard 1 runs `home page` and
  // `catalogue` (both changed, so its tests fail: exit 1), shard 2 runs `about` (passed: exit 0).
  const slices = {
    1: { exit: 1, snapshots: [['catalogue', 'changed'], ['home', 'changed']] },
    2: { exit: 0, snapshots: [['about', 'passed']] },
  };
  const shards = [1, 2].map((n) => {
    const root = checkout(baselines);
    const run = playwright(root, 'changed', [`--shard=${n}/2`]);
    assert.equal(run.status, slices[n].exit, run.output);
    const manifest = JSON.parse(readFileSync(path.join(root, '.sightline', 'temp', 'shard.json'), 'utf8'));
    assert.deepEqual([manifest.current, manifest.total, manifest.mode], [n, 2, 'compare']);
    // a shard's own results know they are partial, and hold its slice only
    const own = JSON.parse(readFileSync(path.join(root, 'visual-report', 'results.json'), 'utf8'));
    assert.deepEqual(own.run.shard, { current: n, total: 2 });
    assert.deepEqual(own.snapshots.map((s) => [s.name, s.status]).sort(), slices[n].snapshots);
    return root;
  });
  // the unchanged page's capture is not uploaded; the changed ones are
  const uploaded = shards.flatMap(captures).sort();
  assert.deepEqual(uploaded, ['catalogue', 'home']);

  const merged = checkout(baselines);
  const folders = shards.map((root) => path.join(root, '.sightline', 'temp'));
  const merge = sightline(merged, ['merge', ...folders]);
  assert.equal(merge.status, 1, merge.output);
  assert.match(merge.output, /3 snapshots from 2 shards — 1 passed, 2 changed, 0 new, 0 missing/);
  assert.deepEqual(results(merged), results(unsharded));
  assert.ok(existsSync(path.join(merged, 'visual-report', 'index.html')));

  // one shard alone is not the whole run: nothing is reported missing
  const partial = checkout(baselines);
  const one = sightline(partial, ['merge', folders[0]]);
  // shard 1 holds the two changed snapshots
  assert.equal(one.status, 1, one.output);
  assert.match(one.output, /not every shard is here \(1\/2\): missing baselines are not reported/);
  const partialResults = JSON.parse(readFileSync(path.join(partial, 'visual-report', 'results.json'), 'utf8'));
  assert.equal(partialResults.run.filtered, true);
  assert.deepEqual(partialResults.missingBaselines, []);
});

test('shards: capture-only mode — shards only capture, compare --captures equals the unsharded run', { skip }, () => {
  const shards = [1, 2].map((n) => {
    const root = checkout(baselines, { shardMode: 'capture-only' });
    const run = playwright(root, 'changed', [`--shard=${n}/2`]);
    assert.equal(run.status, 0, `a capture-only shard compares nothing, so it fails nothing\n${run.output}`);
    assert.ok(!existsSync(path.join(root, 'visual-report', 'results.json')), 'no results on a capture-only shard');
    return root;
  });
  assert.deepEqual(shards.flatMap(captures).sort(), ['about', 'catalogue', 'home'], 'every capture uploaded');
  const folders = shards.map((root) => path.join(root, '.sightline', 'temp'));

  const refused = sightline(checkout(baselines), ['merge', ...folders]);
  assert.equal(refused.status, 2);
  assert.match(refused.output, /only captured; compare them with `sightline compare --captures/);

  const merged = checkout(baselines);
  const compare = sightline(merged, ['compare', '--captures', ...folders]);
  assert.equal(compare.status, 1, compare.output);
  // Only the live page can say which rule restyled an element: the merge job, comparing stored
  // captures, names the changed token from the two DOM records, not where it is written.
  const expected = results(unsharded);
  const home = expected.snapshots.find((s) => s.name === 'home');
  assert.ok(home.verdict.includes(' (<style> in /, line 2), used by 13 restyled elements'), home.verdict);
  home.verdict = home.verdict.replace(' (<style> in /, line 2), used by 13 restyled elements', '');
  assert.deepEqual(results(merged), expected);
});
