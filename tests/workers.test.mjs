// Concurrency: 48 snapshots captured by 4 Playwright workers at once never mix. Run 1 approves;
// every baseline must hold its own test's DOM, and run 2 (4 workers again, other interleaving)
// must pass every snapshot, which it cannot if any pixels landed under another name.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { SNAPSHOTS, letters } from './workers/cards.mjs';

const addon = createRequire(import.meta.url)('../index.js');
const repo = new URL('..', import.meta.url).pathname;
const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const skip = !existsSync(chromium) && `Chromium not found at ${chromium} (set SIGHTLINE_CHROMIUM)`;
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);

const reporter = path.join(repo, 'playwright-fixtures', 'reporter.js');
const root = mkdtempSync(path.join(tmpdir(), 'sightline-workers-'));

function playwright(extraArgs = []) {
  const cli = path.join(repo, 'node_modules', '@playwright', 'test', 'cli.js');
  const run = spawnSync(process.execPath, [cli, 'test', '-c', 'tests/workers/playwright.config.mjs', `--reporter=line,json,${reporter}`, ...extraArgs], {
    cwd: repo,
    env: { ...process.env, SIGHTLINE_ROOT: root, PLAYWRIGHT_JSON_OUTPUT_NAME: path.join(root, 'playwright-report.json') },
    encoding: 'utf8',
    timeout: 600_000,
  });
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}

/** Every test result in Playwright's JSON report of the last run, with its test's title. */
function reportedResults() {
  const report = JSON.parse(readFileSync(path.join(root, 'playwright-report.json'), 'utf8'));
  return report.suites.flatMap(function all(suite) {
    const own = (suite.specs ?? []).flatMap((spec) => spec.tests.flatMap((t) => t.results.map((result) => ({ title: spec.title, ...result }))));
    return [...own, ...(suite.suites ?? []).flatMap(all)];
  });
}

/** Which worker ran each test. */
function workersUsed() {
  return new Set(reportedResults().map((r) => r.parallelIndex));
}

/** What a failing run says: each failed test's errors whole (the line reporter's output of 48
 * tests is long, and a log that keeps only its ends would cut them), then the output. */
function failures(run) {
  const failed = existsSync(path.join(root, 'playwright-report.json'))
    ? reportedResults().filter((r) => r.status !== 'passed' && r.status !== 'skipped')
    : [];
  const errors = failed.map((r) => `${r.title} (${r.status}, worker ${r.parallelIndex}, ${r.duration} ms):\n${(r.errors ?? []).map((e) => e.stack ?? e.message).join('\n')}`);
  return [...errors, run.output].join('\n\n');
}

let approveRun;
before(() => {
  if (!skip) approveRun = playwright(['--update-snapshots=all']);
});

after(() => rmSync(root, { recursive: true, force: true }));

test('workers: 4 workers approve 48 snapshots, each baseline holding its own test', { skip }, () => {
  assert.equal(approveRun.status, 0, failures(approveRun));
  assert.equal(workersUsed().size, 4, 'the run really used 4 workers at once');
  const names = readdirSync(path.join(root, '.sightline', 'baselines')).sort();
  assert.deepEqual(names, Array.from({ length: SNAPSHOTS }, (_, n) => `card-${n}`).sort());
  const headingTexts = new Set();
  for (let n = 0; n < SNAPSHOTS; n++) {
    const { data } = addon.readBaselineSync(root, `card-${n}`, 'chromium');
    const heading = data.dom.elements.find((element) => element.tag === 'h1');
    // the heading's id is unique on its page, so its selector is just the id
    assert.equal(heading.selector, `#card-${letters(n)}`, `card-${n}`);
    headingTexts.add(heading.text);
  }
  // The collector keeps a digest of each text: 48 headings, 48 different texts.
  assert.equal(headingTexts.size, SNAPSHOTS);
});

test('workers: a second 4-worker run passes all 48 (no pixels under another name)', { skip }, () => {
  const again = playwright();
  assert.equal(again.status, 0, failures(again));
  assert.equal(workersUsed().size, 4);
  const results = JSON.parse(readFileSync(path.join(root, 'visual-report', 'results.json'), 'utf8'));
  assert.deepEqual(results.summary, { total: SNAPSHOTS, passed: SNAPSHOTS, changed: 0, new: 0, missing: 0, autoPassed: 0, written: 0 });
  assert.deepEqual(results.missingBaselines, []);
});
