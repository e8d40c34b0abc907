// toHaveScreenshot's contract, checked the way a user switching over meets it (issue 35): each
// behaviour runs through a real `playwright test` in a fresh project (a temp folder with its own
// config and spec, resolving Playwright and sightline from this checkout) with real Chromium, and
// the exit code, the counts Playwright reports, the files written and the message are asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freshProject, run, skip, specsOf, tempFolders } from './support/playwright-runs.mjs';

const temps = tempFolders();

/** A fresh project of this file (see freshProject). */
const project = (spec, options) => freshProject(temps, spec, options);

/** Every file under `dir` (relative paths), or none when it is absent. */
function filesUnder(dir) {
  return existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))) : [];
}

const page = (color) => `await page.setContent('<body style="margin:0"><div style="width:200px;height:100px;background:${color}"></div></body>');`;

test('contract: .not with no baseline fails, and never writes one, even with -u', { skip }, () => {
  const root = project(`test('not-missing', async ({ page }) => { ${page('teal')} await expect(page).not.toMatchVisual('missing'); });\n`);
  for (const args of [[], ['--update-snapshots=all']]) {
    const r = run(root, args);
    assert.equal(r.status, 1, r.output);
    assert.deepEqual(r.results, { 'not-missing': ['failed'] });
    assert.match(r.output, /toMatchVisual\("missing"\): no baseline at \.sightline\/baselines\/missing\/chromium\.png to differ from; matchers using \.not never write one/);
    assert.ok(!existsSync(path.join(root, '.sightline', 'baselines', 'missing')), `${args}: no baseline written`);
  }
});

test('contract: a passing .not leaves nothing behind; a .not on an unchanged page fails', { skip }, () => {
  const spec = `
test('approve', async ({ page }) => { ${page('teal')} await expect(page).toMatchVisual('home'); });
test('differs', async ({ page }) => { ${page('crimson')} await expect(page).not.toMatchVisual('home'); });
test('same', async ({ page }) => { ${page('teal')} await expect(page).not.toMatchVisual('home'); });
`;
  const root = project(spec);
  const approved = run(root, ['-g', 'approve', '--update-snapshots=all']);
  assert.equal(approved.status, 0, approved.output);
  // This project has no sightline reporter to clear the last run's captures: cleared by hand.
  rmSync(path.join(root, '.sightline', 'temp'), { recursive: true });
  const baseline = readFileSync(path.join(root, '.sightline', 'baselines', 'home', 'chromium.png'));
  const r = run(root, ['-g', 'differs|same', '--update-snapshots=all']);
  assert.equal(r.status, 1, r.output);
  assert.deepEqual(r.results, { differs: ['passed'], same: ['failed'] });
  assert.match(r.output, /toMatchVisual\("home"\): expected a visual change, but Passed: no pixel differs/);
  assert.deepEqual(filesUnder(path.join(root, 'test-results')).filter((f) => f.endsWith('.png')), [], 'no -actual or -diff image');
  assert.ok(readFileSync(path.join(root, '.sightline', 'baselines', 'home', 'chromium.png')).equals(baseline), '-u never writes under .not');
  assert.deepEqual(filesUnder(path.join(root, '.sightline', 'temp')).filter((f) => f.startsWith('home')), [], 'nothing kept for the run');
});

test('contract: a test whose only failure is a new snapshot is not retried, alone or in a serial group', { skip }, () => {
  const spec = `
test('fresh', async ({ page }) => { ${page('teal')} await expect(page).toMatchVisual('fresh'); });
test.describe.serial('group', () => {
  test('first', async ({ page }) => { ${page('navy')} await expect(page).toMatchVisual('first'); });
  test('second', async ({ page }) => { ${page('olive')} });
});
`;
  const root = project(spec, { config: { retries: 2 } });
  const r = run(root);
  assert.equal(r.status, 1, r.output);
  // One attempt each: Playwright counts them failed (not flaky), and the serial group did not
  // run again.
  assert.deepEqual([r.results.fresh, r.results.first, r.results.second.length], [['failed'], ['failed'], 1]);
  assert.equal(r.stats.flaky, 0);
  assert.match(r.errors.fresh, /toMatchVisual\("fresh"\): New snapshot: no baseline yet/);
});

test('contract: writeMissingBaselines writes the new baseline and fails the test, saying so', { skip }, () => {
  const root = project(`test('fresh', async ({ page }) => { ${page('teal')} await expect(page).toMatchVisual('fresh'); });\n`, {
    config: { retries: 1 },
    sightline: { writeMissingBaselines: true },
  });
  const first = run(root);
  assert.equal(first.status, 1, first.output);
  assert.deepEqual(first.results, { fresh: ['failed'] }, 'failed once, not retried');
  assert.match(first.errors.fresh, /toMatchVisual\("fresh"\): no baseline yet; this capture was written as \.sightline\/baselines\/fresh\/chromium\.png \(writeMissingBaselines\): review it and commit it/);
  assert.doesNotMatch(first.output, /--update-snapshots/);
  assert.ok(existsSync(path.join(root, '.sightline', 'baselines', 'fresh', 'chromium.png')));
  const evidence = JSON.parse(readFileSync(path.join(root, '.sightline', 'temp', 'fresh', 'chromium.json'), 'utf8'));
  assert.equal(evidence.verdict, 'Baseline written by writeMissingBaselines: a new snapshot');
  // As toHaveScreenshot's written missing snapshot: what was written and what was shot.
  assert.deepEqual(first.attachments.fresh.filter((a) => a !== 'error-context'), ['fresh-evidence.json', 'fresh-expected.png', 'fresh-actual.png']);
  const second = run(root);
  assert.equal(second.status, 0, second.output);
  assert.deepEqual(second.attachments.fresh, [], 'a passing call attaches nothing');
});

test('contract: an image name other than .png and a subject that is not a Page or Locator are refused, saying why', { skip }, () => {
  const spec = `
test('jpeg name', async ({ page }) => { ${page('teal')} await expect(page).toMatchVisual('hero.jpeg'); });
test('buffer', async () => { await expect(Buffer.from('png?')).toMatchVisual('buffer'); });
`;
  const root = project(spec);
  const r = run(root, ['--update-snapshots=all']);
  assert.equal(r.status, 1, r.output);
  assert.deepEqual(r.results, { 'jpeg name': ['failed'], buffer: ['failed'] });
  assert.match(r.output, /snapshot name "hero\.jpeg" ends in \.jpeg: every baseline is a PNG \(its pixels and its DOM in one file\); name it "hero" or "hero\.png"/);
  assert.match(r.output, /toMatchVisual can be only used with Page or Locator objects, was called with Buffer/);
  assert.deepEqual(filesUnder(path.join(root, '.sightline', 'baselines')), [], 'nothing written');
});

test('contract: an overlay shown with page.screencast is not in the capture', { skip }, () => {
  const spec = `
test('overlay', async ({ page }) => {
  ${page('teal')}
  if (process.env.OVERLAY) await page.screencast.showOverlay('<div style="position:fixed;left:0;top:0;width:120px;height:60px;background:red">overlay</div>');
  await expect(page).toMatchVisual('overlay');
});
`;
  const root = project(spec);
  const approved = run(root, ['--update-snapshots=all']);
  assert.equal(approved.status, 0, approved.output);
  const r = run(root, [], { OVERLAY: '1' });
  assert.equal(r.status, 0, r.output);
});

test('contract: expect.toHaveScreenshot.timeout bounds the call, and a Locator that keeps moving fails at it', { skip }, () => {
  const spec = `
test('ticking', async ({ page }) => {
  await page.setContent('<div id="clock" style="font:20px monospace">0</div>');
  // A new number every frame: no two shots agree (a timer slower than the frames can show one twice).
  await page.evaluate(() => { let n = 0; const tick = () => { document.getElementById('clock').textContent = String(++n); requestAnimationFrame(tick); }; tick(); });
  await expect(page).toMatchVisual('ticking');
});
test('moving', async ({ page }) => {
  await page.setContent('<div id="box" style="position:absolute;left:0;top:0;width:40px;height:40px;background:teal"></div>');
  await page.evaluate(() => { let x = 0; setInterval(() => { x = (x + 7) % 200; document.getElementById('box').style.left = x + 'px'; }, 16); });
  await expect(page.locator('#box')).toMatchVisual('moving', { timeout: 1500 });
});
`;
  // The expect timeout is a minute: a call that used it would outlast the test's 20 s.
  const root = project(spec, { config: { timeout: 20_000, expect: { timeout: 60_000, toHaveScreenshot: { timeout: 1200 } } } });
  const r = run(root, ['--update-snapshots=all']);
  assert.equal(r.status, 1, r.output);
  assert.deepEqual(r.results, { ticking: ['failed'], moving: ['failed'] });
  const waited = Number(/never matched within (\d+) ms/.exec(r.errors.ticking)?.[1]);
  assert.ok(waited >= 1200 && waited < 5000, `the page was shot for the config's 1.2 s: ${r.errors.ticking}`);
  // As toHaveScreenshot: the last two shots, to show what kept changing.
  assert.ok(['ticking-actual.png', 'ticking-previous.png'].every((a) => r.attachments.ticking.includes(a)), `${r.attachments.ticking}`);
  assert.match(r.errors.moving, /toMatchVisual\("moving"\): the element never became visible and stable within the timeout of 1500 ms/);
  assert.doesNotMatch(r.errors.moving, /Test timeout/);
});

test('contract: an aborted signal fails the call like its timeout, at once', { skip }, () => {
  const spec = `
test('aborted', async ({ page }) => {
  await page.setContent('<div id="clock" style="font:20px monospace">0</div>');
  // A new number every frame: no two shots agree (a timer slower than the frames can show one twice).
  await page.evaluate(() => { let n = 0; const tick = () => { document.getElementById('clock').textContent = String(++n); requestAnimationFrame(tick); }; tick(); });
  const controller = new AbortController();
  setTimeout(() => controller.abort('enough'), 500);
  await expect(page).toMatchVisual('aborted', { signal: controller.signal, timeout: 15000 });
});
test('aborted before', async ({ page }) => {
  ${page('teal')}
  await expect(page).toMatchVisual('before', { signal: AbortSignal.abort('never started') });
});
`;
  const root = project(spec, { config: { timeout: 30_000 } });
  const r = run(root, ['--update-snapshots=all']);
  assert.equal(r.status, 1, r.output);
  assert.deepEqual(r.results, { aborted: ['failed'], 'aborted before': ['failed'] });
  assert.match(r.errors.aborted, /toMatchVisual\("aborted"\): aborted by its signal \(enough\)/);
  assert.match(r.errors['aborted before'], /toMatchVisual\("before"\): aborted by its signal \(never started\)/);
  const report = JSON.parse(readFileSync(path.join(root, 'report.json'), 'utf8'));
  const took = specsOf(report).find((s) => s.title === 'aborted').tests[0].results[0].duration;
  assert.ok(took < 10_000, `stopped when aborted, not at the call's 15 s timeout: ${took} ms`);
  assert.ok(!existsSync(path.join(root, '.sightline', 'baselines', 'before')), 'nothing written');
});

test('contract: a call on a page that navigates meanwhile waits for the new page and captures it', { skip }, () => {
  // Page a is long (its walk takes a while) and sends itself to page b 150 ms after it loads:
  // the navigation lands in the middle of the call.
  const spec = `
const A = '<body>' + '<p>row</p>'.repeat(8000) + '<script>setTimeout(() => { location.href = "/b"; }, 150);</script></body>';
const B = '<body style="margin:0"><div style="width:200px;height:100px;background:teal"></div></body>';
test('navigating', async ({ page }) => {
  await page.route('http://127.0.0.1:9/**', (route) => route.fulfill({ contentType: 'text/html', body: route.request().url().endsWith('/b') ? B : A }));
  await page.goto(process.env.START ?? 'http://127.0.0.1:9/b');
  await expect(page).toMatchVisual('navigating');
});
`;
  const root = project(spec);
  const approved = run(root, ['--update-snapshots=all']);
  assert.equal(approved.status, 0, approved.output);
  const r = run(root, [], { START: 'http://127.0.0.1:9/a' });
  assert.equal(r.status, 0, `${r.errors.navigating ?? ''}\n${r.output}`);
  assert.deepEqual(r.results, { navigating: ['passed'] });
});

test('contract: -u never writes through a baseline folder linked out of the project, and the call says which', { skip }, () => {
  const root = project(`test('linked', async ({ page }) => { ${page('teal')} await expect(page).toMatchVisual('home'); });\n`);
  const elsewhere = temps.make('sightline-elsewhere-');
  mkdirSync(path.join(root, '.sightline', 'baselines'), { recursive: true });
  symlinkSync(elsewhere, path.join(root, '.sightline', 'baselines', 'home'));
  const r = run(root, ['--update-snapshots=all']);
  assert.equal(r.status, 1, r.output);
  assert.deepEqual(r.results, { linked: ['failed'] });
  assert.match(r.errors.linked, /toMatchVisual\("home"\): \S+\/\.sightline\/baselines\/home is a symbolic link to \S+, outside the project \S+; nothing was written\. Replace the link with a folder or file of the project \(e\.g\. `git checkout -- \.sightline\/baselines\/home`\)/);
  assert.deepEqual(readdirSync(elsewhere), [], 'nothing written where the link leads');
});

test('contract: each call is a step named after its snapshot, and the page calls it makes sit inside it', { skip }, () => {
  const spec = `
test('two calls', async ({ page }) => {
  ${page('teal')}
  await expect(page).toMatchVisual('first');
  await expect(page.locator('div')).toMatchVisual('second');
});
`;
  // Each step as "parent > step [category]", in the order they began.
  const reporter = `
export default class {
  onStepBegin(test, result, step) {
    if (step.category === 'hook' || step.category === 'fixture') return;
    console.log('step: ' + (step.parent ? step.parent.title + ' > ' : '') + step.title + ' [' + step.category + ']');
  }
}
`;
  const root = project(spec, { config: { reporter: [['./steps.mjs'], ['json', { outputFile: 'report.json' }]] } });
  writeFileSync(path.join(root, 'steps.mjs'), reporter);
  const r = run(root, ['--update-snapshots=all']);
  assert.equal(r.status, 0, r.output);
  const steps = r.output.split('\n').filter((line) => line.startsWith('step: ')).map((line) => line.slice(6));
  const calls = steps.filter((s) => s.includes('> toMatchVisual('));
  assert.deepEqual(calls, ['Expect "toMatchVisual" > toMatchVisual(first) [test.step]', 'Expect "toMatchVisual" > toMatchVisual(second) [test.step]']);
  // The call's page work (its evaluations, its screenshot) is inside its step, not beside it.
  const pageCalls = steps.filter((s) => s.endsWith('[pw:api]'));
  assert.ok(pageCalls.some((s) => s.startsWith('toMatchVisual(first) > ')), steps.join('\n'));
  const beside = pageCalls.filter((s) => s.startsWith('Expect "toMatchVisual" > '));
  assert.deepEqual(beside, [], `page calls beside the named steps:\n${steps.join('\n')}`);
  // A passing call attaches nothing, so it adds no step of its own either.
  assert.deepEqual(steps.filter((s) => /Attach/.test(s)), []);
});

test('contract: a name toHaveScreenshot takes with spaces or brackets is taken, its odd characters as "-"', { skip }, () => {
  const spec = `
test('odd names', async ({ page }) => {
  ${page('teal')}
  await expect(page).toMatchVisual('Login page.png');
  await expect(page).toMatchVisual(['cards', 'Snapshot (1).png']);
});
`;
  const root = project(spec);
  const r = run(root, ['--update-snapshots=all']);
  assert.equal(r.status, 0, r.output);
  assert.deepEqual(filesUnder(path.join(root, '.sightline', 'baselines')).sort(), ['Login-page/chromium.png', 'cards/Snapshot-1-/chromium.png']);
  assert.equal(run(root).status, 0, 'the same names find their baselines again');
});

test('contract: page.addLocatorHandler handlers close what they watch for before the page is captured', { skip }, () => {
  // The overlay covers the page only when OVERLAY is set; its handler removes it. The capture of
  // the covered page passes against the baseline of the plain one only when the handler ran first.
  const spec = `
test('overlay', async ({ page }) => {
  ${page('teal')}
  if (process.env.OVERLAY) {
    await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<div id="consent" style="position:fixed;inset:0;background:red">Accept</div>'));
    await page.addLocatorHandler(page.locator('#consent'), async () => { await page.evaluate(() => document.getElementById('consent').remove()); });
  }
  await expect(page).toMatchVisual('overlay');
});
`;
  const root = project(spec);
  assert.equal(run(root, ['--update-snapshots=all']).status, 0);
  const r = run(root, [], { OVERLAY: '1' });
  assert.equal(r.status, 0, `${r.errors.overlay ?? ''}\n${r.output}`);
  assert.deepEqual(r.results, { overlay: ['passed'] });
});

test('contract: a capture of another size fails naming both sizes', { skip }, () => {
  const spec = `
test('resized', async ({ page }) => {
  await page.setContent('<body style="margin:0"><div style="width:' + (process.env.WIDTH ?? 200) + 'px;height:100px;background:teal"></div></body>');
  await expect(page.locator('div')).toMatchVisual('box');
});
`;
  const root = project(spec);
  assert.equal(run(root, ['--update-snapshots=all']).status, 0);
  const r = run(root, [], { WIDTH: '260' });
  assert.equal(r.status, 1, r.output);
  assert.match(r.errors.resized, /toMatchVisual\("box"\): [^\n]*; the size changed from 200×100 \(baseline\) to 260×100/);
});

test('contract: a failing call attaches the baseline file itself and its images from the test\'s output folder', { skip }, () => {
  const spec = `
test('recoloured', async ({ page }) => {
  ${page("' + (process.env.COLOR ?? 'teal') + '")}
  await expect(page).toMatchVisual('home');
});
`;
  const root = project(spec);
  assert.equal(run(root, ['--update-snapshots=all']).status, 0);
  const r = run(root, [], { COLOR: 'navy' });
  assert.equal(r.status, 1, r.output);
  const report = JSON.parse(readFileSync(path.join(root, 'report.json'), 'utf8'));
  const attachments = specsOf(report)[0].tests[0].results[0].attachments.filter((a) => a.name !== 'error-context');
  const where = Object.fromEntries(attachments.map((a) => [a.name, a.path && path.relative(root, a.path)]));
  assert.deepEqual(Object.keys(where), ['home-evidence.json', 'home-expected.png', 'home-actual.png', 'home-diff.png']);
  assert.equal(where['home-expected.png'], path.join('.sightline', 'baselines', 'home', 'chromium.png'));
  assert.match(where['home-actual.png'], /^test-results\/[^/]+\/home-actual\.png$/);
  assert.match(where['home-diff.png'], /^test-results\/[^/]+\/home-diff\.png$/);
});
