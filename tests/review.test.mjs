// `sightline review` end to end: the real binary serving a real run of the example shop, driven
// by plain HTTP requests (the door: token, Host, Origin, methods, files) and by Chromium (the
// page: approve one, approve a group, reject, the unhealthy confirmation, keys, the aligned diff
// of the catalogue's page shift, the reload after a new run). Every check of what was written
// reads the files on disk.
//
// The shop's suite runs once under two projects with the same settings, so each planted change
// happens twice and the two catalogue page shifts form a group; each test reviews its own copy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { binary, captureAboutUnhealthy, captureAboutUnsettled, chromium as chromiumPath, freePort, playwright, skipWithoutChromium as skip, tempRoot, twoProjectConfig } from './golden/run.mjs';

const temps = [];
let run;
let browser;

function tempDir(tag = 'review') {
  const dir = tempRoot(tag);
  temps.push(dir);
  return dir;
}

before(async () => {
  if (skip) return;
  const port = await freePort();
  run = tempDir();
  const config = twoProjectConfig(run);
  const approved = playwright(run, { variant: 'original', port, config, args: ['--update-snapshots=all'] });
  assert.equal(approved.status, 0, approved.output);
  const changed = playwright(run, { variant: 'changed', port, config });
  assert.equal(changed.status, 1, changed.output);
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: chromiumPath });
});

after(async () => {
  await browser?.close();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the run (baselines, captures, report) to review. */
function copyOfRun() {
  const root = tempDir();
  for (const folder of ['.sightline', 'visual-report']) cpSync(path.join(run, folder), path.join(root, folder), { recursive: true });
  return root;
}

/** Starts `sightline --root root review ...args`; resolves with the URL it prints and a stop function. */
async function startReview(root, { args = [], env = process.env } = {}) {
  const child = spawn(binary, ['--root', root, 'review', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const url = await new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const found = stdout.match(/^sightline review: (http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/)$/m);
      if (found) resolve(found[1]);
    });
    child.on('exit', (code) => reject(new Error(`sightline review exited ${code}: ${stdout}${stderr}`)));
  });
  return { url, stop: () => child.kill(), stderr: () => stderr };
}

/** Runs `fn(review)` with a review server on `root` (started with `options`), then stops it. */
async function withReview(root, fn, options) {
  const review = await startReview(root, options);
  try {
    return await fn(review);
  } finally {
    review.stop();
  }
}

/** A raw HTTP request (no URL normalisation, any Host and Origin): `{ status, body }`. */
function request(url, { method = 'GET', path: rawPath, headers = {}, body } = {}) {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: target.port, method, path: rawPath ?? target.pathname, headers: { host: target.host, ...headers } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Every file under `root` with its SHA-256, to show that nothing was written. */
function tree(root) {
  const out = {};
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else out[path.relative(root, file)] = createHash('sha256').update(readFileSync(file)).digest('hex');
    }
  };
  walk(root);
  return out;
}

const baseline = (root, name, project) => path.join(root, '.sightline', 'baselines', name, `${project}.png`);
const current = (root, name, project) => path.join(root, 'visual-report', 'images', name, `${project}-current.png`);

/** The two images have the same pixels (`sightline diff` exits 0). */
function samePixels(a, b) {
  const diff = spawnSync(binary, ['diff', a, b], { encoding: 'utf8' });
  assert.ok(diff.status === 0 || diff.status === 1, diff.stdout + diff.stderr);
  return diff.status === 0;
}

/** Runs `fn(page)` on the review page of `root` in Chromium; the page must raise no error. */
async function withPage(root, fn) {
  await withReview(root, async ({ url }) => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await page.goto(url);
      await fn(page);
      assert.deepEqual(errors, [], 'the page raised no error');
    } finally {
      await page.close();
    }
  });
}

const card = (page, name, project) => page.locator(`article.card[data-name="${name}"][data-project="${project}"]`);

test('review: the door refuses requests without the token, from another Host or Origin, and files outside the project, writing nothing', { skip }, async () => {
  const root = copyOfRun();
  // A PNG outside the project, linked in where the report keeps an image results.json names.
  const outside = tempDir('review-outside');
  cpSync(current(root, 'home', 'chromium'), path.join(outside, 'secret.png'));
  rmSync(current(root, 'home', 'chromium-copy'));
  symlinkSync(path.join(outside, 'secret.png'), current(root, 'home', 'chromium-copy'));
  const before = tree(root);
  await withReview(root, async ({ url }) => {
    const { port, pathname } = new URL(url);
    const token = pathname.split('/')[1];
    const own = `http://127.0.0.1:${port}`;
    const page = await request(url);
    assert.equal(page.status, 200);
    assert.match(page.body, /<title>Sightline review — 4 to review<\/title>/);
    assert.equal(page.headers['referrer-policy'], 'no-referrer', 'the token never leaves in a Referer');
    const version = page.body.match(/"results":"([0-9a-f]{32})"/)[1];
    const image = await request(url, { path: `/${token}/visual-report/images/home/chromium-current.png` });
    assert.equal(image.status, 200, 'an image results.json names is served');
    assert.equal(image.headers['content-type'], 'image/png');

    const approveHome = JSON.stringify({ results: version, snapshots: [{ name: 'home', project: 'chromium' }] });
    const post = { method: 'POST', path: `/${token}/_/approve`, body: approveHome, headers: { 'content-type': 'application/json', origin: own } };
    const refusals = [
      [{ path: '/' }, 403, /missing or wrong token/],
      [{ path: `/${'0'.repeat(32)}/` }, 403, /missing or wrong token/],
      [{ path: `/${token.slice(0, 31)}/` }, 403, /missing or wrong token/],
      [{ ...post, path: '/_/approve' }, 403, /missing or wrong token/],
      [{ headers: { host: `attacker.example:${port}` } }, 403, /Host "attacker\.example:\d+" is not this review server/],
      [{ ...post, headers: { ...post.headers, host: 'attacker.example' } }, 403, /Host "attacker\.example" is not this review server/],
      [{ ...post, headers: { ...post.headers, origin: 'http://attacker.example' } }, 403, /Origin "http:\/\/attacker\.example" is not this review page/],
      [{ ...post, headers: { ...post.headers, origin: `http://127.0.0.1:${Number(port) + 1}` } }, 403, /is not this review page/],
      [{ ...post, headers: { 'content-type': 'application/json' } }, 403, /a POST must carry the review page's Origin header/],
      [{ ...post, headers: { ...post.headers, 'content-type': 'text/plain' } }, 415, /application\/json/],
      [{ path: `/${token}/_/approve` }, 405, /only a POST changes anything/],
      [{ ...post, method: 'PUT' }, 405, /PUT is not served/],
      [{ ...post, path: `/${token}/visual-report/results.json` }, 405, /only _\/approve, _\/reject, _\/remove and _\/undo accept a POST/],
      [{ ...post, body: JSON.stringify({ results: 'f'.repeat(32), snapshots: [{ name: 'home', project: 'chromium' }] }) }, 409, /changed since this page was loaded .*nothing was written/],
      [{ ...post, body: JSON.stringify({ results: version, snapshots: [{ name: 'home', project: 'chromium' }, { name: 'nowhere', project: 'chromium' }] }) }, 404, /nowhere \(chromium\): not a changed or new snapshot/],
      [{ ...post, body: JSON.stringify({ results: version, snapshots: [{ name: 'about', project: 'chromium' }] }) }, 404, /about \(chromium\): not a changed or new snapshot/],
      [{ ...post, body: '{"results": 1}' }, 400, /not a review decision/],
      [{ ...post, path: `/${token}/_/reject`, body: JSON.stringify({ results: version, snapshots: [{ name: 'home', project: 'chromium' }], asVariant: true }) }, 400, /asVariant goes only with _\/approve/],
      [{ path: `/${token}/../../../etc/passwd` }, 404, /not an image of this run/],
      [{ path: `/${token}/..%2f..%2f..%2fetc%2fpasswd` }, 404, /not an image of this run/],
      [{ path: `/${token}/%2Fetc%2Fpasswd` }, 404, /not an image of this run/],
      [{ path: `/${token}/.sightline/config.json` }, 404, /not an image of this run/],
      [{ path: `/${token}/visual-report/results.json` }, 404, /not an image of this run/],
      [{ path: `/${token}/.sightline/temp/home/chromium.slcap` }, 404, /not an image of this run/],
      [{ path: `/${token}/visual-report/images/home/chromium-copy-current.png` }, 404, /not an image of this run/],
    ];
    // The right token without its final `/` is sent to the page.
    const short = await request(url, { path: `/${token}` });
    assert.equal(short.status, 308, short.body);
    assert.equal(short.headers.location, `/${token}/`);
    for (const [options, status, says] of refusals) {
      const answer = await request(url, options);
      assert.equal(answer.status, status, `${JSON.stringify(options)} → ${answer.body}`);
      assert.match(JSON.parse(answer.body).error, says, JSON.stringify(options));
    }
  });
  assert.deepEqual(tree(root), before, 'no refused request wrote anything');
  assert.ok(!existsSync(path.join(root, '.sightline', 'review.json')));
});

// A fork may commit a symbolic link under .sightline (issue 34): approving through the page never
// writes through one out of the project, nor does recording a rejection; the refusal names it.
test('review: approve and reject never write through a symbolic link out of the project', { skip }, async () => {
  const root = copyOfRun();
  const outside = tempDir('review-linked');
  const folder = path.join(root, '.sightline', 'baselines', 'home');
  cpSync(folder, path.join(outside, 'home'), { recursive: true });
  rmSync(folder, { recursive: true });
  symlinkSync(path.join(outside, 'home'), folder);
  writeFileSync(path.join(outside, 'review.json'), '{"version": 1, "decisions": []}');
  symlinkSync(path.join(outside, 'review.json'), path.join(root, '.sightline', 'review.json'));
  const before = tree(outside);
  await withReview(root, async ({ url }) => {
    const { port, pathname } = new URL(url);
    const token = pathname.split('/')[1];
    const version = (await request(url)).body.match(/"results":"([0-9a-f]{32})"/)[1];
    const decide = (what, name) =>
      request(url, {
        method: 'POST',
        path: `/${token}/_/${what}`,
        headers: { 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` },
        body: JSON.stringify({ results: version, snapshots: [{ name, project: 'chromium' }] }),
      });
    const approved = await decide('approve', 'home');
    assert.ok(approved.status >= 400, approved.body);
    assert.match(JSON.parse(approved.body).error, new RegExp(`^${folder.replaceAll('/', '\\/')} is a symbolic link to .*, outside the project .*; nothing was written`));
    const rejected = await decide('reject', 'catalogue');
    assert.ok(rejected.status >= 400, rejected.body);
    assert.match(JSON.parse(rejected.body).error, /review\.json is a symbolic link to .*, outside the project .*; nothing was written/);
  });
  assert.deepEqual(tree(outside), before, 'nothing outside the project changed');
});

test('review: approve one snapshot, approve a group, reject one; the page says what to commit', { skip }, async () => {
  const root = copyOfRun();
  const rejectedBefore = readFileSync(baseline(root, 'home', 'chromium-copy'));
  const aboutBefore = readFileSync(baseline(root, 'about', 'chromium'));
  await withPage(root, async (page) => {
    await assert.doesNotReject(page.locator('#progress', { hasText: '0 of 4 reviewed' }).waitFor());
    assert.equal(samePixels(baseline(root, 'home', 'chromium'), current(root, 'home', 'chromium')), false);

    await card(page, 'home', 'chromium').getByRole('button', { name: 'Approve' }).click();
    await card(page, 'home', 'chromium').locator('.decision', { hasText: 'Approved: .sightline/baselines/home/chromium.png is now this capture' }).waitFor();
    assert.equal(samePixels(baseline(root, 'home', 'chromium'), current(root, 'home', 'chromium')), true, 'the baseline on disk is the capture');
    // Approved is done: both buttons are off, and a rejection sent anyway (the key) is refused,
    // saying how to take the approval back.
    for (const name of ['Approve', 'Reject']) assert.equal(await card(page, 'home', 'chromium').getByRole('button', { name }).isDisabled(), true, name);
    for (let i = 0; i < 3; i++) await page.keyboard.press('j'); // catalogue ×2, then home (chromium)
    await page.keyboard.press('r');
    await page.locator('#review-error', { hasText: 'home (chromium) was approved in this review: the baseline is now this capture, so it cannot be rejected; nothing was written. To take the approval back, restore the baseline (git checkout -- .sightline/baselines/home/chromium.png) and run the tests again' }).waitFor();
    assert.equal(await card(page, 'home', 'chromium').getAttribute('data-decision'), 'approved');

    await page.locator('section.groups li', { hasText: 'page shift: content below y=284 moved down 60 px' }).getByRole('button', { name: 'Approve group (2)' }).click();
    await page.locator('#progress', { hasText: '3 of 4 reviewed' }).waitFor();
    for (const project of ['chromium', 'chromium-copy']) {
      assert.equal(samePixels(baseline(root, 'catalogue', project), current(root, 'catalogue', project)), true, `catalogue (${project})`);
    }

    await card(page, 'home', 'chromium-copy').getByRole('button', { name: 'Reject' }).click();
    await page.locator('#progress', { hasText: '4 of 4 reviewed' }).waitFor();
    assert.equal(await card(page, 'home', 'chromium-copy').getAttribute('data-decision'), 'rejected');
    assert.ok(readFileSync(baseline(root, 'home', 'chromium-copy')).equals(rejectedBefore), 'a rejected baseline is kept');
    assert.ok(readFileSync(baseline(root, 'about', 'chromium')).equals(aboutBefore), 'a passed snapshot is untouched');
    const state = JSON.parse(readFileSync(path.join(root, '.sightline', 'review.json'), 'utf8'));
    assert.deepEqual(
      state.decisions.map((d) => `${d.name} ${d.project} ${d.decision}`).sort(),
      ['catalogue chromium approved', 'catalogue chromium-copy approved', 'home chromium approved', 'home chromium-copy rejected'],
    );
    assert.equal(
      await page.locator('#commit-command').textContent(),
      'git add .sightline/baselines/catalogue/chromium-copy.png .sightline/baselines/catalogue/chromium.png .sightline/baselines/home/chromium.png',
    );
    assert.equal(await page.locator('#commit').isVisible(), true);

    // The decisions outlive the page.
    await page.reload();
    await page.locator('#progress', { hasText: '4 of 4 reviewed' }).waitFor();
    assert.equal(await card(page, 'home', 'chromium-copy').getAttribute('data-decision'), 'rejected');
  });
});

// Accept as variant (issue 39): a changed snapshot's capture becomes another accepted state
// beside the baseline, which stays; a new snapshot (no baseline) has no such button.
test('review: Accept as variant writes the capture beside the baseline, which stays', { skip }, async () => {
  const root = copyOfRun();
  const before = readFileSync(baseline(root, 'home', 'chromium'));
  const variant = path.join(root, '.sightline', 'baselines', 'home', 'chromium.variant-1.png');
  await withPage(root, async (page) => {
    await card(page, 'home', 'chromium').getByRole('button', { name: 'Accept as variant' }).click();
    await card(page, 'home', 'chromium').locator('.decision', { hasText: 'Accepted as variant 1: .sightline/baselines/home/chromium.variant-1.png is this capture, beside the baseline' }).waitFor();
    assert.ok(readFileSync(baseline(root, 'home', 'chromium')).equals(before), 'the baseline is kept');
    assert.equal(samePixels(variant, current(root, 'home', 'chromium')), true, 'the variant is the capture');
    assert.equal(await page.locator('#commit-command').textContent(), 'git add .sightline/baselines/home/chromium.variant-1.png');
    const changed = await page.locator('article.card[data-needs-review][data-may-become-variant]').count();
    assert.equal(await page.locator('.decide [data-action="accept-variant"]').count(), changed);
  });
});

// Remove baseline (issue 39): a missing snapshot's unused baseline is removed from its card, as
// `sightline prune` removes it, and the page reloads without it; the same refusals hold.
test('review: Remove baseline deletes a missing snapshot\'s unused baseline and the page reloads without it', { skip }, async () => {
  const root = copyOfRun();
  // A baseline whose test (the about page's, which ran to its end) captures it no more.
  const old = baseline(root, 'old-about', 'chromium');
  cpSync(path.dirname(baseline(root, 'about', 'chromium')), path.dirname(old), { recursive: true });
  rmSync(baseline(root, 'old-about', 'chromium-copy'));
  const compare = spawnSync(binary, ['--root', root, 'compare'], { encoding: 'utf8' });
  assert.equal(compare.status, 1, compare.stdout + compare.stderr);
  assert.match(compare.stdout + compare.stderr, /1 missing/);
  await withPage(root, async (page) => {
    const missing = page.locator('article.card.st-missing', { hasText: 'old-about' });
    await missing.getByRole('button', { name: 'Remove baseline' }).click();
    // The server wrote results.json without it: the page reloads and the card is gone.
    await page.locator('article.card.st-missing').waitFor({ state: 'detached' });
    assert.equal(existsSync(old), false, 'the baseline file is deleted');
    assert.equal(existsSync(path.dirname(old)), false, 'and its emptied folder');
    assert.ok(existsSync(baseline(root, 'about', 'chromium')), 'the baseline it was copied from stays');
    const results = JSON.parse(readFileSync(path.join(root, 'visual-report', 'results.json'), 'utf8'));
    assert.deepEqual(results.missingBaselines, []);
  });
  // After a run that left part of the suite out, the page says why and removes nothing.
  cpSync(path.dirname(baseline(root, 'about', 'chromium')), path.dirname(old), { recursive: true });
  rmSync(baseline(root, 'old-about', 'chromium-copy'));
  assert.equal(spawnSync(binary, ['--root', root, 'compare'], { encoding: 'utf8' }).status, 1);
  const resultsFile = path.join(root, 'visual-report', 'results.json');
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  results.run.filtered = true;
  writeFileSync(resultsFile, JSON.stringify(results));
  await withPage(root, async (page) => {
    await page.locator('article.card.st-missing', { hasText: 'old-about' }).getByRole('button', { name: 'Remove baseline' }).click();
    await page.locator('#review-error', { hasText: 'nothing was removed: the last run left part of the suite out' }).waitFor();
    assert.ok(existsSync(old), 'nothing was removed');
  });
});

// A damaged file is its snapshot's result (issue 34): the page lists both as errors; the damaged
// baseline is replaced by approving its capture, the damaged capture offers nothing to approve.
test('review: a damaged baseline is replaced by Approve; a damaged capture has no Approve', { skip }, async () => {
  const root = copyOfRun();
  const cut = (file) => writeFileSync(file, readFileSync(file).subarray(0, 40));
  cut(baseline(root, 'about', 'chromium'));
  const capture = path.join(root, '.sightline', 'temp', 'catalogue', 'chromium.slcap');
  cut(capture);
  const compare = spawnSync(binary, ['--root', root, 'compare'], { encoding: 'utf8' });
  assert.equal(compare.status, 2, compare.stdout + compare.stderr);
  const catalogueBefore = readFileSync(baseline(root, 'catalogue', 'chromium'));
  await withPage(root, async (page) => {
    const broken = card(page, 'catalogue', 'chromium');
    assert.match(await broken.textContent(), /Cannot compare: the capture \.sightline\/temp\/catalogue\/chromium\.slcap is damaged/);
    assert.equal(await broken.getByRole('button', { name: 'Approve', exact: true }).count(), 0, 'nothing to approve');
    const about = card(page, 'about', 'chromium');
    assert.match(await about.textContent(), /Cannot compare: the baseline \.sightline\/baselines\/about\/chromium\.png is damaged/);
    await about.getByRole('button', { name: 'Approve', exact: true }).click();
    await about.locator('.decision', { hasText: 'Approved' }).waitFor();
  });
  assert.equal(samePixels(baseline(root, 'about', 'chromium'), path.join(root, 'visual-report', 'images', 'about', 'chromium-current.png')), true, 'the damaged baseline is now the capture');
  assert.ok(readFileSync(baseline(root, 'catalogue', 'chromium')).equals(catalogueBefore), 'the baseline of the damaged capture is untouched');
});

/**
 * Clicks Approve on the about card (chromium) of the open review page, whose capture the run holds:
 * the page asks for a second confirmation that says `says`, and nothing is written. Returns the
 * confirmation.
 */
async function approveHeldAbout(page, root, says) {
  const before = statSync(baseline(root, 'about', 'chromium')).mtimeMs;
  const about = card(page, 'about', 'chromium');
  await about.getByRole('button', { name: 'Approve', exact: true }).click();
  const confirm = about.getByRole('alertdialog');
  await confirm.waitFor();
  assert.match(await confirm.textContent(), says);
  assert.equal(statSync(baseline(root, 'about', 'chromium')).mtimeMs, before, 'held: nothing written');
  return confirm;
}

test('review: an unhealthy capture is approved only after a second, explicit confirmation; a group is rejected at once', { skip }, async () => {
  const root = copyOfRun();
  captureAboutUnhealthy(root);
  const aboutBefore = statSync(baseline(root, 'about', 'chromium')).mtimeMs;
  await withPage(root, async (page) => {
    const about = card(page, 'about', 'chromium');
    const confirm = await approveHeldAbout(page, root, /Not approved: Unhealthy capture: font http:\/\/127\.0\.0\.1\/brand\.woff2: HTTP 404/);
    // A whole group rejected at once: both baselines kept.
    const catalogue = readFileSync(baseline(root, 'catalogue', 'chromium'));
    await page.locator('section.groups li', { hasText: 'page shift' }).getByRole('button', { name: 'Reject group (2)' }).click();
    await page.locator('#progress', { hasText: '2 of 5 reviewed' }).waitFor();
    assert.equal(await card(page, 'catalogue', 'chromium-copy').getAttribute('data-decision'), 'rejected');
    assert.ok(readFileSync(baseline(root, 'catalogue', 'chromium')).equals(catalogue));
    assert.equal(await about.getAttribute('data-decision'), null);
    await confirm.getByRole('button', { name: 'Approve this capture anyway' }).click();
    await about.locator('.decision', { hasText: 'Approved' }).waitFor();
    assert.ok(statSync(baseline(root, 'about', 'chromium')).mtimeMs > aboutBefore, 'approved once confirmed');
  });
});

test('review: a capture whose page never settled is held as an unhealthy one: Approve asks again and writes nothing', { skip }, async () => {
  const root = copyOfRun();
  captureAboutUnsettled(root);
  const aboutBefore = statSync(baseline(root, 'about', 'chromium')).mtimeMs;
  await withPage(root, async (page) => {
    const says = /Not approved: Unstable page: two consecutive screenshots never matched within 1500 ms; .* never approve this capture as a baseline/;
    const confirm = await approveHeldAbout(page, root, says);
    await confirm.getByRole('button', { name: 'Approve this capture anyway' }).click();
    await card(page, 'about', 'chromium').locator('.decision', { hasText: 'Approved' }).waitFor();
    assert.ok(statSync(baseline(root, 'about', 'chromium')).mtimeMs > aboutBefore, 'approved once confirmed');
  });
});

test('review: keys move between snapshots, approve, reject and switch views', { skip }, async () => {
  const root = copyOfRun();
  await withPage(root, async (page) => {
    await page.locator('#progress', { hasText: '0 of 4 reviewed' }).waitFor();
    const focused = () => page.evaluate(() => {
      const c = document.querySelector('article.card.focused');
      return c && `${c.dataset.name} ${c.dataset.project}`;
    });
    // Changed cards in the report's order: catalogue ×2, then home ×2.
    await page.keyboard.press('j');
    assert.equal(await focused(), 'catalogue chromium');
    await page.keyboard.press('j');
    assert.equal(await focused(), 'catalogue chromium-copy');
    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(), 'home chromium');
    await page.keyboard.press('k');
    assert.equal(await focused(), 'catalogue chromium-copy');
    await page.keyboard.press('v');
    assert.equal(await card(page, 'catalogue', 'chromium-copy').getAttribute('data-view'), 'diff');
    assert.equal(await card(page, 'catalogue', 'chromium-copy').locator('.f-baseline').isVisible(), false, 'the diff view hides the baseline');
    await page.keyboard.press('v');
    assert.equal(await card(page, 'catalogue', 'chromium-copy').getAttribute('data-view'), 'slider');
    await page.keyboard.press('r');
    await page.locator('#progress', { hasText: '1 of 4 reviewed' }).waitFor();
    assert.equal(await card(page, 'catalogue', 'chromium-copy').getAttribute('data-decision'), 'rejected');
    await page.keyboard.press('s');
    assert.equal(await focused(), 'home chromium');
    await page.keyboard.press('a');
    await page.locator('#progress', { hasText: '2 of 4 reviewed' }).waitFor();
    assert.equal(samePixels(baseline(root, 'home', 'chromium'), current(root, 'home', 'chromium')), true);
    assert.equal(samePixels(baseline(root, 'catalogue', 'chromium-copy'), current(root, 'catalogue', 'chromium-copy')), false, 'rejected: not approved');
    // The group filter narrows what j and k walk through.
    await page.selectOption('#group-filter', { label: 'page shift: content below y=284 moved down 60 px (2)' });
    assert.equal(await card(page, 'home', 'chromium').isVisible(), false);
    await page.keyboard.press('j');
    assert.equal(await focused(), 'catalogue chromium');
  });
});

// Issue 40: the page as a daily tool. A card moved to by key stops below the sticky bar (its badge
// and name on screen), the progress, keys and commit box stay in view, a decided card looks
// decided, the last decision can be taken back, a focused group takes a and r, and each region
// is shown at full size.
test('review: a focused card is below the sticky bar, which keeps progress and the commit box in view; a decided card looks decided', { skip }, async () => {
  const root = copyOfRun();
  await withPage(root, async (page) => {
    await page.locator('#progress', { hasText: '0 of 4 reviewed' }).waitFor();
    const barBottom = async () => (await page.locator('#reviewtop').boundingBox()).y + (await page.locator('#reviewtop').boundingBox()).height;
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('j');
      const focused = page.locator('article.card.focused');
      const head = await focused.locator('.head').boundingBox();
      assert.ok(head.y >= (await barBottom()), `card ${i + 1}: its head (y=${head.y}) is below the bar (bottom ${await barBottom()})`);
      // Nothing covers the name: the topmost element at its centre is the card's own.
      const name = await focused.locator('.head h3').boundingBox();
      const onTop = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('article.card')?.dataset.name ?? null, [name.x + 2, name.y + name.height / 2]);
      assert.equal(onTop, await focused.getAttribute('data-name'));
    }
    // home (chromium) is focused: approve it; the card says so in its badge and its buttons are off.
    await page.keyboard.press('a');
    await page.locator('#progress', { hasText: '1 of 4 reviewed' }).waitFor();
    const decided = card(page, 'home', 'chromium');
    // The commit line and the undo button made the bar taller: the card is still below it.
    await page.locator('#commit-command').waitFor({ state: 'visible' });
    await page.waitForFunction(() => {
      const head = document.querySelector('article.card.focused .head').getBoundingClientRect();
      return head.top >= document.getElementById('reviewtop').getBoundingClientRect().bottom;
    });
    assert.equal(await decided.locator('.head .badge').textContent(), 'approved');
    const styles = await decided.evaluate((el) => {
      const button = getComputedStyle(el.querySelector('.decide [data-action="approve"]'));
      const badge = getComputedStyle(el.querySelector('.head .badge'));
      return { cursor: button.cursor, opacity: button.opacity, badge: badge.backgroundColor };
    });
    assert.deepEqual(styles, { cursor: 'default', opacity: '0.4', badge: 'rgb(21, 128, 61)' });
    const open = card(page, 'home', 'chromium-copy');
    assert.equal(await open.locator('.head .badge').textContent(), 'changed');
    assert.equal(await open.evaluate((el) => getComputedStyle(el.querySelector('.decide [data-action="approve"]')).cursor), 'pointer');
    // At the bottom of the page the progress and the commit box are still on screen.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    for (const id of ['#progress', '#commit-command']) {
      const box = await page.locator(id).boundingBox();
      assert.ok(box.y >= 0 && box.y + box.height <= 900, `${id} in view at the bottom (y=${box.y})`);
    }
  });
});

test('review: undo puts back the approved baseline byte for byte, and a rejection; u is the key', { skip }, async () => {
  const root = copyOfRun();
  const before = readFileSync(baseline(root, 'home', 'chromium'));
  await withPage(root, async (page) => {
    await card(page, 'home', 'chromium').getByRole('button', { name: 'Approve' }).click();
    await page.locator('#progress', { hasText: '1 of 4 reviewed' }).waitFor();
    assert.equal(readFileSync(baseline(root, 'home', 'chromium')).equals(before), false);
    await page.getByRole('button', { name: 'Undo last decision' }).click();
    await page.locator('#progress', { hasText: '0 of 4 reviewed' }).waitFor();
    assert.ok(readFileSync(baseline(root, 'home', 'chromium')).equals(before), "the old baseline's bytes are back");
    assert.equal(await card(page, 'home', 'chromium').getAttribute('data-decision'), null);
    assert.equal(await card(page, 'home', 'chromium').getByRole('button', { name: 'Approve' }).isDisabled(), false, 'decidable again');
    assert.equal(await page.getByRole('button', { name: 'Undo last decision' }).isVisible(), false);
    assert.equal(await page.locator('#commit').isVisible(), false, 'nothing to commit');
    // A rejection by key, taken back by key.
    await card(page, 'home', 'chromium-copy').getByRole('button', { name: 'Reject' }).click();
    await page.locator('#progress', { hasText: '1 of 4 reviewed' }).waitFor();
    await page.keyboard.press('u');
    await page.locator('#progress', { hasText: '0 of 4 reviewed' }).waitFor();
    const state = JSON.parse(readFileSync(path.join(root, '.sightline', 'review.json'), 'utf8'));
    assert.deepEqual(state.decisions, []);
    // Once only: nothing left to take back.
    await page.keyboard.press('u');
    await page.locator('#review-error', { hasText: 'nothing to undo' }).waitFor();
  });
});

test('review: a and r on a focused group decide the whole group', { skip }, async () => {
  const root = copyOfRun();
  await withPage(root, async (page) => {
    const group = page.locator('section.groups li', { hasText: 'page shift: content below y=284 moved down 60 px' });
    await group.focus();
    await page.keyboard.press('a');
    await page.locator('#progress', { hasText: '2 of 4 reviewed' }).waitFor();
    for (const project of ['chromium', 'chromium-copy']) {
      assert.equal(await card(page, 'catalogue', project).getAttribute('data-decision'), 'approved', project);
      assert.equal(samePixels(baseline(root, 'catalogue', project), current(root, 'catalogue', project)), true, project);
    }
    assert.equal(await card(page, 'home', 'chromium').getAttribute('data-decision'), null, 'the focused card is not decided');
  });
});

test('review: v shows each region at full size, one image pixel per CSS pixel', { skip }, async () => {
  const root = copyOfRun();
  await withPage(root, async (page) => {
    for (let i = 0; i < 3; i++) await page.keyboard.press('j'); // home (chromium)
    for (let i = 0; i < 3; i++) await page.keyboard.press('v'); // all → diff → slider → regions
    const home = card(page, 'home', 'chromium');
    assert.equal(await home.getAttribute('data-view'), 'regions');
    assert.equal(await home.locator('section.images').isVisible(), false, 'the scaled images give way');
    const crops = home.locator('details.native[open] .crop img');
    assert.ok((await crops.count()) >= 3, 'baseline, current and diff of the first region');
    const sizes = await crops.evaluateAll((imgs) => imgs.map((img) => [img.naturalWidth, img.getBoundingClientRect().width]));
    for (const [natural, shown] of sizes) assert.equal(shown, natural, 'not scaled');
    const results = JSON.parse(readFileSync(path.join(root, 'visual-report', 'results.json'), 'utf8'));
    const region = results.snapshots.find((s) => s.name === 'home' && s.project === 'chromium').layers.pixel.regions[0];
    assert.equal(await home.locator('details.native h4').first().textContent(), `1 · ${region.width}×${region.height} at ${region.x},${region.y}`);
  });
});

test('review: the aligned diff of the catalogue page shift shows only the inserted band', { skip }, async () => {
  const root = copyOfRun();
  const results = JSON.parse(readFileSync(path.join(root, 'visual-report', 'results.json'), 'utf8'));
  const catalogue = results.snapshots.find((s) => s.name === 'catalogue' && s.project === 'chromium');
  assert.deepEqual(catalogue.layers.pixel.shift, { dy: 60, belowY: 284 });
  await withPage(root, async (page) => {
    const figure = card(page, 'catalogue', 'chromium').locator('figure.f-aligned');
    assert.match(await figure.locator('figcaption').textContent(), /baseline moved down 60 px below y=284: only what changed is red/);
    // Count the diff-coloured pixels of the aligned diff and of the plain diff, row by row.
    const count = (selector) => card(page, 'catalogue', 'chromium').locator(selector).evaluate(async (img) => {
      img.loading = 'eager';
      await img.decode();
      const canvas = document.createElement('canvas');
      [canvas.width, canvas.height] = [img.naturalWidth, img.naturalHeight];
      const context = canvas.getContext('2d');
      context.drawImage(img, 0, 0);
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      const rows = new Set();
      let red = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i] === 255 && data[i + 1] === 0 && data[i + 2] === 0 && data[i + 3] === 255) {
          red += 1;
          rows.add(Math.floor(i / 4 / canvas.width));
        }
      }
      const sorted = [...rows].sort((a, b) => a - b);
      return { red, first: sorted[0], last: sorted.at(-1), rows: sorted.length, width: canvas.width, height: canvas.height };
    });
    const aligned = await count('figure.f-aligned img');
    assert.deepEqual(aligned, { red: 1280 * 60, first: 284, last: 343, rows: 60, width: 1280, height: 3340 });
    assert.equal(aligned.red, catalogue.layers.pixel.diffPixelsAfterShift);
    const plain = await count('figure.f-diff img');
    assert.ok(plain.red > 2 * aligned.red && plain.last > 343, `the plain diff is red far below the band: ${JSON.stringify(plain)}`);
  });
});

test('review: a new run reloads the page; a rejection holds until the capture changes', { skip }, async () => {
  const root = copyOfRun();
  const addon = createRequire(import.meta.url)('../addon.js');
  const capture = path.join(root, '.sightline', 'temp', 'home', 'chromium.slcap');
  /** A run in which home (chromium) shows `png`'s pixels: captured through the addon, compared. */
  const newRun = (png) => {
    const outcome = addon.compareCaptureSync({ root, name: 'home', project: 'chromium', screenshot: readFileSync(png), updateSnapshots: 'none' });
    assert.equal(outcome.evidence.status, 'changed');
    const compare = spawnSync(binary, ['--root', root, 'compare'], { encoding: 'utf8' });
    assert.equal(compare.status, 1, compare.stdout + compare.stderr);
  };
  await withPage(root, async (page) => {
    const shown = () => page.evaluate(() => ({ loadedAt: performance.timeOrigin, results: JSON.parse(document.getElementById('review-state').textContent).results }));
    const reloadAfter = async (before) => {
      await page.waitForFunction((t) => performance.timeOrigin !== t, before.loadedAt, { timeout: 15_000 });
      await page.waitForLoadState();
      const now = await shown();
      assert.notEqual(now.results, before.results, 'the page shows the new results.json');
      return now;
    };
    await card(page, 'home', 'chromium').getByRole('button', { name: 'Reject' }).click();
    await page.locator('#progress', { hasText: '1 of 4 reviewed' }).waitFor();
    const first = await shown();

    // The developer runs the tests again: a real Playwright run of the same shop writes a new
    // capture of every page and a new results.json while the page is open.
    const before = readFileSync(capture);
    const rerun = playwright(root, { variant: 'changed', port: await freePort(), config: twoProjectConfig(root) });
    assert.equal(rerun.status, 1, rerun.output);
    assert.ok(!readFileSync(capture).equals(before), 'the capture file was written anew');
    const second = await reloadAfter(first);
    await page.locator('#progress', { hasText: '1 of 4 reviewed' }).waitFor();
    assert.equal(await card(page, 'home', 'chromium').getAttribute('data-decision'), 'rejected', 'same pixels: still rejected');

    // A decision sent from the page as it was before the run is refused, nothing written.
    const answer = await page.evaluate(async (results) => {
      const r = await fetch('_/approve', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ results, snapshots: [{ name: 'home', project: 'chromium-copy' }] }) });
      return { status: r.status, body: await r.json() };
    }, first.results);
    assert.equal(answer.status, 409);
    assert.match(answer.body.error, /changed since this page was loaded/);
    assert.equal(samePixels(baseline(root, 'home', 'chromium-copy'), current(root, 'home', 'chromium-copy')), false);

    // A run whose capture of home looks different: it is up for review again.
    newRun(current(root, 'catalogue', 'chromium'));
    await reloadAfter(second);
    await page.locator('#progress', { hasText: '0 of 4 reviewed' }).waitFor();
    assert.equal(await card(page, 'home', 'chromium').getAttribute('data-decision'), null);
  });
});

test('review: --open hands the printed URL to the desktop opener; without one the page is still served', { skip: skip || (process.platform === 'darwin' && 'the opener test stands in for xdg-open') }, async () => {
  const root = copyOfRun();
  // The desktop's opener as a program on PATH that writes down the URL it was given.
  const bin = tempDir('review-opener');
  const opened = path.join(bin, 'opened.txt');
  // Written aside and renamed (PATH holds only this folder, so mv by its path): the file appears
  // with the whole URL in it, never empty.
  writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}.part' && /bin/mv '${opened}.part' '${opened}'\n`, { mode: 0o755 });
  await withReview(root, async ({ url }) => {
    const deadline = Date.now() + 10_000;
    while (!existsSync(opened) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(readFileSync(opened, 'utf8'), url, 'the opener got the exact URL printed, token and all');
  }, { args: ['--open'], env: { ...process.env, PATH: bin } });

  // No opener at all: a sentence saying to open the URL, and the server goes on.
  const empty = tempDir('review-no-opener');
  await withReview(root, async ({ url, stderr }) => {
    assert.equal((await request(url)).status, 200);
    const deadline = Date.now() + 5_000;
    while (!stderr().includes('--open') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.match(stderr(), /--open could not start xdg-open \(.*\); open the URL above in a browser/);
  }, { args: ['--open'], env: { ...process.env, PATH: empty } });
});

test('review: without a run to review it says how to make one and serves nothing', () => {
  const root = tempDir('review-empty');
  const started = spawnSync(binary, ['--root', root, 'review'], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(started.status, 2, started.stdout + started.stderr);
  assert.equal(started.stdout, '', 'no URL printed');
  assert.equal(started.stderr, `sightline: ${path.join(root, 'visual-report', 'results.json')}: no results yet; run the Playwright tests with the sightline reporter first\n`);
});
