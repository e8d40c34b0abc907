// Filtered runs never invent missing baselines (issue 15, item 5): tests/filters (two spec files,
// two projects) is copied to a fresh project and approved, then run every way Playwright can
// select part of a suite. Each filtered run reports nothing missing; a removed call, a renamed
// test and a deleted spec file are still reported, with the reason.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const repo = new URL('..', import.meta.url).pathname;
const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const skip = !existsSync(chromium) && `Chromium not found at ${chromium} (set SIGHTLINE_CHROMIUM)`;
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);

const project = mkdtempSync(path.join(tmpdir(), 'sightline-filters-'));

/** `playwright test …args` in the copied project, with `env` added. */
function run(args, env = {}) {
  const cli = path.join(repo, 'node_modules', '@playwright', 'test', 'cli.js');
  const child = spawnSync(process.execPath, [cli, 'test', ...args], {
    cwd: project,
    env: { ...process.env, SIGHTLINE_ROOT: '', NEW_CALLS: '', DROP_MENU_CALL: '', RENAME_CARD: '', SKIP_FOOTER: '', FAIL_PRICE: '', CHANGE_FOOTER: '', ...env },
    encoding: 'utf8',
  });
  const output = `${child.stdout}\n${child.stderr}`;
  const results = JSON.parse(readFileSync(path.join(project, 'visual-report', 'results.json'), 'utf8'));
  return { status: child.status, output, results, missing: results.missingBaselines.map((m) => `${m.name} (${m.project}): ${m.reason}`) };
}

before(() => {
  if (skip) return;
  cpSync(path.join(repo, 'tests', 'filters'), project, { recursive: true });
  // The project resolves Playwright and sightline from this checkout.
  mkdirSync(path.join(project, 'node_modules', '@playwright'), { recursive: true });
  symlinkSync(path.join(repo, 'node_modules', '@playwright', 'test'), path.join(project, 'node_modules', '@playwright', 'test'));
  for (const dep of ['playwright', 'playwright-core']) symlinkSync(path.join(repo, 'node_modules', dep), path.join(project, 'node_modules', dep));
  symlinkSync(repo, path.join(project, 'node_modules', 'sightline'));
  const approve = run(['--update-snapshots=all']);
  assert.equal(approve.status, 0, approve.output);
  assert.equal(approve.results.summary.total, 10, approve.output);
});

after(() => rmSync(project, { recursive: true, force: true }));

test('filters: a full run after approval reports nothing missing', { skip }, () => {
  const full = run([]);
  assert.equal(full.status, 0, full.output);
  assert.deepEqual(full.missing, []);
  assert.equal(full.results.run.filtered, false);
  assert.match(full.output, /sightline: 10 snapshots — 10 passed, 0 changed, 0 new, 0 missing/);
});

test('filters: every way of running part of the suite reports nothing missing', { skip }, () => {
  const modes = [
    ['a file argument', ['card.spec.mjs']],
    ['a file and line', ['home.spec.mjs:5']],
    ['-g', ['-g', 'hero']],
    ['a tag', ['--grep', '@slow']],
    ['--grep-invert', ['--grep-invert', 'hero']],
    ['--project', ['--project', 'narrow']],
    ['--shard', ['--shard=1/2']],
    ['a flag before a file argument', ['-x', 'card.spec.mjs']],
  ];
  for (const [mode, args] of modes) {
    const filtered = run(args);
    assert.equal(filtered.status, 0, `${mode}: ${filtered.output}`);
    assert.deepEqual(filtered.missing, [], `${mode} reported missing baselines`);
    assert.ok(filtered.results.summary.total > 0 && filtered.results.summary.total < 10, `${mode}: ${filtered.results.summary.total} snapshots`);
    assert.match(filtered.output, /, 0 missing →/, mode);
  }
  // `sightline report` after a filtered run: nothing to review, exit 0
  const report = spawnSync(path.join(repo, 'target', 'release', 'sightline'), ['report'], { cwd: project, encoding: 'utf8' });
  assert.equal(report.status, 0, report.stdout + report.stderr);
});

test('filters: skips, test.only, --last-failed and --only-changed report nothing missing', { skip }, () => {
  const skipped = run([], { SKIP_FOOTER: '1' });
  assert.equal(skipped.status, 0, skipped.output);
  assert.deepEqual(skipped.missing, [], 'a skipped test');

  const failed = run([], { FAIL_PRICE: '1' });
  assert.equal(failed.status, 1, failed.output);
  assert.deepEqual(failed.missing, [], 'a failing test');
  const lastFailed = run(['--last-failed']);
  assert.equal(lastFailed.status, 0, lastFailed.output);
  assert.deepEqual(lastFailed.missing, [], '--last-failed');
  assert.equal(lastFailed.results.summary.total, 2);

  const spec = path.join(project, 'card.spec.mjs');
  const source = readFileSync(spec, 'utf8');
  writeFileSync(spec, source.replace("test('price'", "test.only('price'"));
  try {
    const only = run([]);
    assert.equal(only.status, 0, only.output);
    assert.deepEqual(only.missing, [], 'test.only');
    assert.equal(only.results.summary.total, 2);
  } finally {
    writeFileSync(spec, source);
  }
  const describeOnly = path.join(project, 'home.spec.mjs');
  const home = readFileSync(describeOnly, 'utf8');
  writeFileSync(describeOnly, home.replace("test.describe('home'", "test.describe.only('home'"));
  try {
    const only = run([]);
    assert.deepEqual(only.missing, [], 'test.describe.only');
    assert.equal(only.results.summary.total, 4);
  } finally {
    writeFileSync(describeOnly, home);
  }

  const git = (...args) => spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: project, encoding: 'utf8' });
  writeFileSync(path.join(project, '.gitignore'), 'node_modules\nvisual-report\n.sightline/temp\ntest-results\n');
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'suite');
  writeFileSync(spec, `${source}\n// touched\n`);
  try {
    const changed = run(['--only-changed']);
    assert.equal(changed.status, 0, changed.output);
    assert.deepEqual(changed.missing, [], '--only-changed');
    assert.equal(changed.results.summary.total, 4, changed.output);
  } finally {
    writeFileSync(spec, source);
  }
});

test('filters: --ignore-snapshots skips the visual assertion and reports nothing missing', { skip }, () => {
  const ignored = run(['--ignore-snapshots'], { CHANGE_FOOTER: '1' });
  assert.equal(ignored.status, 0, ignored.output);
  assert.deepEqual(ignored.missing, []);
  assert.equal(ignored.results.summary.total, 0);
  // and without it the change fails
  const compared = run(['-g', 'footer'], { CHANGE_FOOTER: '1' });
  assert.equal(compared.status, 1, compared.output);
});

test('filters: a removed call, a renamed test and a deleted spec file are still missing, with the reason', { skip }, () => {
  const reasonRan = (project) => `menu (${project}): its test home.spec.mjs › home › menu ran to its end without capturing it`;
  const dropped = run([], { DROP_MENU_CALL: '1' });
  // every test passed: the run stays green, the summary and results.json say what is missing
  assert.equal(dropped.status, 0, dropped.output);
  assert.deepEqual(dropped.missing, [reasonRan('desktop'), reasonRan('narrow')]);
  assert.match(dropped.output, /0 new, 2 missing →/);
  // its test ran, so even a run of that test alone knows
  const droppedAlone = run(['-g', 'menu'], { DROP_MENU_CALL: '1' });
  assert.deepEqual(droppedAlone.missing, [reasonRan('desktop'), reasonRan('narrow')]);
  assert.equal(droppedAlone.results.run.filtered, true);

  const gone = (project) => `card (${project}): its test card.spec.mjs › card is no longer in the suite`;
  const renamed = run([], { RENAME_CARD: '1' });
  assert.deepEqual(renamed.missing, [gone('desktop'), gone('narrow')]);
  // the file ran whole (a file argument), so it is known the test is not in it
  assert.deepEqual(run(['card.spec.mjs'], { RENAME_CARD: '1' }).missing, [gone('desktop'), gone('narrow')]);
  // another file only, or -g: not known
  assert.deepEqual(run(['home.spec.mjs'], { RENAME_CARD: '1' }).missing, []);
  assert.deepEqual(run(['-g', 'price'], { RENAME_CARD: '1' }).missing, []);

  renameSync(path.join(project, 'card.spec.mjs'), path.join(project, 'card.spec.bak'));
  try {
    const deleted = run(['home.spec.mjs']);
    const fileGone = (name, project) => `${name} (${project}): its test file card.spec.mjs no longer exists`;
    assert.deepEqual(deleted.missing, [fileGone('card', 'desktop'), fileGone('card', 'narrow'), fileGone('price', 'desktop'), fileGone('price', 'narrow')]);
    // the HTML report and the CLI say why
    const html = readFileSync(path.join(project, 'visual-report', 'index.html'), 'utf8');
    assert.ok(html.includes('its test file card.spec.mjs no longer exists'), 'the report says why');
  } finally {
    renameSync(path.join(project, 'card.spec.bak'), path.join(project, 'card.spec.mjs'));
  }
});

test('filters: new snapshots fail softly, and an update run prints and marks each baseline it wrote', { skip }, () => {
  const fresh = run(['-g', 'hero', '--project', 'desktop'], { NEW_CALLS: '1' });
  assert.equal(fresh.status, 1, fresh.output);
  // both calls ran and are named in the one failure, after the test's end
  for (const name of ['hero-extra-1', 'hero-extra-2']) {
    assert.match(fresh.output, new RegExp(`^ {4}Error: toMatchVisual\\("${name}"\\): New snapshot: no baseline yet|^ {4}toMatchVisual\\("${name}"\\): New snapshot: no baseline yet`, 'm'), fresh.output);
  }
  assert.equal(fresh.results.summary.new, 2);
  assert.equal(fresh.results.summary.passed, 1);

  const written = run(['-g', 'hero', '--project', 'desktop', '--update-snapshots=missing'], { NEW_CALLS: '1' });
  assert.equal(written.status, 0, written.output);
  for (const name of ['hero-extra-1', 'hero-extra-2']) {
    assert.match(written.output, new RegExp(`^sightline: \\.sightline/baselines/${name}/desktop\\.png — Baseline written by --update-snapshots: a new snapshot$`, 'm'));
  }
  assert.match(written.output, /^sightline: 3 snapshots — 1 passed, 0 changed, 0 new, 2 written, 0 missing → /m);
  assert.deepEqual(written.results.snapshots.map((s) => [s.name, s.status]), [['hero', 'passed'], ['hero-extra-1', 'written'], ['hero-extra-2', 'written']]);
  assert.equal(written.results.summary.written, 2);
  const report = readFileSync(path.join(project, 'visual-report', 'index.html'), 'utf8');
  assert.ok(report.includes('data-section="written"'), 'the report lists written baselines apart');
  for (const name of ['hero-extra-1', 'hero-extra-2']) rmSync(path.join(project, '.sightline', 'baselines', name), { recursive: true });

  // a changed snapshot written by -u changed says what it replaced
  const changed = run(['-g', 'footer', '--project', 'desktop', '--update-snapshots=changed'], { CHANGE_FOOTER: '1' });
  assert.equal(changed.status, 0, changed.output);
  const [footer] = changed.results.snapshots;
  assert.equal(footer.status, 'written');
  assert.match(footer.verdict, /^Baseline written by --update-snapshots, replacing the old one: /);
  const restored = run(['-g', 'footer', '--project', 'desktop', '--update-snapshots=changed']);
  assert.equal(restored.results.snapshots[0].status, 'written');
  assert.equal(run(['-g', 'footer']).results.summary.passed, 2);
});

test('filters: prune deletes exactly the unused baselines after a whole run, and refuses after a filtered or failed one', { skip }, () => {
  const bin = path.join(repo, 'target', 'release', 'sightline');
  const prune = (args = [], cwd = project) => {
    const r = spawnSync(bin, ['prune', ...args], { cwd, encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const menu = ['desktop', 'narrow'].map((p) => path.join(project, '.sightline', 'baselines', 'menu', `${p}.png`));
  const exists = () => menu.map((file) => existsSync(file));

  // A filtered run cannot tell: refused, nothing deleted.
  run(['-g', 'hero'], { DROP_MENU_CALL: '1' });
  let r = prune(['--yes']);
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /^sightline: nothing was removed: the last run left part of the suite out .*; run the whole suite \(npx playwright test\), then prune\n$/);
  assert.deepEqual(exists(), [true, true]);

  // A whole run in which a test failed for another reason than a visual change: refused.
  const failed = run([], { DROP_MENU_CALL: '1', FAIL_PRICE: '1' });
  assert.equal(failed.status, 1, failed.output);
  r = prune(['--yes']);
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /nothing was removed: in the last run 2 tests failed for another reason than a visual change \(first: card\.spec\.mjs › price\)/);
  assert.deepEqual(exists(), [true, true]);

  // A whole green run: the dry run lists each unused baseline with the test that made it.
  const whole = run([], { DROP_MENU_CALL: '1' });
  assert.equal(whole.status, 0, whole.output);
  r = prune();
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.match(lines[0], /^2 baselines no test captures any more \(the run of \d{4}-\d\d-\d\dT[\d:]+Z, visual-report\/results\.json\):$/);
  assert.deepEqual(lines.slice(1), [
    '  menu (desktop)  .sightline/baselines/menu/desktop.png, made by home.spec.mjs › home › menu — its test home.spec.mjs › home › menu ran to its end without capturing it',
    '  menu (narrow)  .sightline/baselines/menu/narrow.png, made by home.spec.mjs › home › menu — its test home.spec.mjs › home › menu ran to its end without capturing it',
    'Dry run: nothing was deleted. To delete them: npx sightline prune --yes',
  ]);
  assert.deepEqual(exists(), [true, true]);

  // --yes deletes exactly those (and the emptied folder), and results.json no longer lists them.
  const before = readdirSync(path.join(project, '.sightline', 'baselines')).sort();
  r = prune(['--yes']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'deleted .sightline/baselines/menu/desktop.png\ndeleted .sightline/baselines/menu/narrow.png\n2 baselines deleted; visual-report/results.json no longer lists them. Commit the deletion with your change.\n');
  assert.deepEqual(readdirSync(path.join(project, '.sightline', 'baselines')).sort(), before.filter((name) => name !== 'menu'));
  const results = JSON.parse(readFileSync(path.join(project, 'visual-report', 'results.json'), 'utf8'));
  assert.deepEqual([results.missingBaselines, results.summary.missing], [[], 0]);
  assert.equal(prune().stdout.split('\n')[0].startsWith('No unused baselines'), true);
  // The next whole run is clean.
  assert.deepEqual(run([], { DROP_MENU_CALL: '1' }).missing, []);

  // A project with no run: said, nothing written.
  const empty = mkdtempSync(path.join(tmpdir(), 'sightline-prune-empty-'));
  try {
    r = prune(['--yes'], empty);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /results\.json: no results yet; run the Playwright tests with the sightline reporter first/);
    assert.deepEqual(readdirSync(empty), []);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});
