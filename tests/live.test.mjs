// The live-page tools end to end: the built `sightline mcp` over stdio with the official SDK
// client, its browser worker driving real Chromium, and scenario pages served from 127.0.0.1
// (tests/live/pages.mjs) with planted problems. Each tool must name each planted problem's
// element, and the clean page must give no issue at all (false positives are bugs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serve } from './live/pages.mjs';

const repo = new URL('..', import.meta.url).pathname;
// SIGHTLINE_BIN: a binary built elsewhere (CARGO_TARGET_DIR); the default is the checkout's.
const binary = process.env.SIGHTLINE_BIN || path.join(repo, 'target', 'release', 'sightline');
const worker = path.join(repo, 'playwright-fixtures', 'worker.js');
const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const skip = !existsSync(chromium) && `Chromium not found at ${chromium} (set SIGHTLINE_CHROMIUM)`;
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);

// The worker is found from SIGHTLINE_WORKER, as the npm shim sets it.
const env = { ...process.env, SIGHTLINE_WORKER: worker, SIGHTLINE_VERIFY_TTL_MS: '3000' };

let site;
let client;

before(async () => {
  if (skip) return;
  assert.ok(existsSync(binary), `${binary} is missing: cargo build --release -p sightline-cli (or set SIGHTLINE_BIN)`);
  site = await serve();
  const transport = new StdioClientTransport({ command: binary, args: ['--root', repo, 'mcp'], env, stderr: 'pipe' });
  client = new Client({ name: 'sightline-live-test', version: '1.0.0' });
  await client.connect(transport);
});

after(async () => {
  if (client) await client.close();
  if (site) await site.close();
});

async function call(name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  assert.ok(!result.isError, `${name} failed: ${result.content?.[0]?.text}`);
  return JSON.parse(result.content[0].text);
}

const url = (p) => site.origin + p;

/** A port nothing listens on: bound once by the OS, then released. */
function freePort() {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
const pairs = (issues) => issues.map((i) => `${i.kind} ${i.selector}`).sort();

test('live: ping reports the worker, playwright-core and the browser', { skip }, async () => {
  const ping = await call('ping');
  assert.equal(ping.playwrightCore.version, '1.65.1');
  assert.equal(ping.browser.found, true);
  assert.ok(Number.isInteger(ping.worker.pid) && ping.worker.pid > 0);
  assert.equal(ping.worker.script, worker);
});

test('live: visual_check names every planted bug on desktop and nothing else', { skip }, async () => {
  const found = await call('visual_check', { url: url('/bugs') });
  assert.deepEqual(pairs(found.issues), [
    'broken-image #broken',
    'clipped-text #clipped',
    'console-error null',
    'failed-font #title',
    'horizontal-overflow #wide',
    'low-contrast #faint',
    'overlapping-text #over',
  ]);
  const byKind = Object.fromEntries(found.issues.map((i) => [i.kind, i]));
  assert.equal(byKind['horizontal-overflow'].measured.right, 1616);
  assert.equal(byKind['clipped-text'].measured.clippedBy, '#clipped');
  assert.equal(byKind['overlapping-text'].measured.overlaps, '#under');
  assert.match(byKind['console-error'].message, /planted: the cart failed to load/);
  assert.match(byKind['failed-font'].message, /Brand Sans.*\/fonts\/brand\.woff2 \(HTTP 404\)/);
  assert.ok(byKind['low-contrast'].measured.ratio < 2, JSON.stringify(byKind['low-contrast']));
  assert.deepEqual(byKind['broken-image'].box.length, 4);
  assert.ok(existsSync(found.screenshot), found.screenshot);
  assert.match(found.summary, /^7 issues/);
});

test('live: visual_check on mobile adds the tiny tap target; focus narrows to one element', { skip }, async () => {
  const found = await call('visual_check', { url: url('/bugs'), viewport: 'mobile' });
  const tap = found.issues.filter((i) => i.kind === 'small-tap-target');
  assert.deepEqual(tap.map((i) => i.selector), ['#tiny']);
  assert.deepEqual(tap[0].measured, { height: 16, minimum: 24, width: 16 });
  assert.equal(found.viewport.width, 375);

  const focused = await call('visual_check', { url: url('/bugs'), focus: '#stack' });
  assert.deepEqual(pairs(focused.issues), ['console-error null', 'overlapping-text #over']);
});

test('live: the clean page has no issue at any viewport', { skip }, async () => {
  for (const viewport of ['desktop', 'tablet', 'mobile']) {
    const found = await call('visual_check', { url: url('/clean'), viewport });
    assert.deepEqual(found.issues, [], `${viewport}: ${JSON.stringify(found.issues, null, 1)}`);
    assert.equal(found.summary, 'No issues found.');
  }
});

test('live: get_console_logs returns the planted error with its location, filtered by level', { skip }, async () => {
  const all = await call('get_console_logs', { url: url('/bugs'), wait_ms: 200 });
  const planted = all.entries.find((e) => e.text === 'planted: the cart failed to load');
  assert.ok(planted, JSON.stringify(all.entries));
  assert.equal(planted.level, 'error');
  assert.equal(planted.location.url, url('/bugs'));
  assert.ok(planted.location.line > 1);
  assert.ok(all.failedRequests.some((r) => r.url.endsWith('/fonts/brand.woff2') && r.status === 404));
  const warnings = await call('get_console_logs', { url: url('/bugs'), levels: ['warning'], wait_ms: 0 });
  assert.deepEqual(warnings.entries, []);
  const clean = await call('get_console_logs', { url: url('/clean'), wait_ms: 0 });
  assert.deepEqual(clean.entries, []);
  assert.equal(clean.dropped, 0);
  await assert.rejects(call('get_console_logs', { url: url('/clean'), levels: ['fatal'] }), /fatal/);
});

test('live: verify_accessibility names the image without alt and the button without a name', { skip }, async () => {
  const audit = await call('verify_accessibility', { url: url('/a11y') });
  assert.match(audit.axeVersion, /^4\.14\./);
  const byRule = Object.fromEntries(audit.violations.map((v) => [v.id, v]));
  assert.deepEqual(byRule['image-alt'].nodes.map((n) => n.target), ['#nologo']);
  assert.deepEqual(byRule['button-name'].nodes.map((n) => n.target), ['#iconbutton']);
  assert.ok(byRule['image-alt'].helpUrl.startsWith('https://'));
  const part = await call('verify_accessibility', { url: url('/a11y'), selector: '#ok' });
  assert.deepEqual(part.violations, []);
  const clean = await call('verify_accessibility', { url: url('/clean') });
  assert.deepEqual(clean.violations, [], JSON.stringify(clean.violations, null, 1));
});

test('live: detect_layout_shift measures the late banner and names what moved', { skip }, async () => {
  const shifted = await call('detect_layout_shift', { url: url('/shift'), wait_time: 1000 });
  assert.ok(shifted.report.cls > 0.1, JSON.stringify(shifted.report));
  assert.notEqual(shifted.report.rating, 'good');
  const moved = shifted.report.elements.map((e) => e.selector);
  assert.ok(moved.includes('#content'), moved.join(', '));
  const content = shifted.report.elements.find((e) => e.selector === '#content');
  assert.equal(content.maxMovePx, 240);
  const clean = await call('detect_layout_shift', { url: url('/clean'), wait_time: 500 });
  assert.equal(clean.report.cls, 0);
  assert.deepEqual(clean.report.elements, []);
});

test('live: detect_flash names the element shown briefly after load', { skip }, async () => {
  const found = await call('detect_flash', { url: url('/flash'), wait_time: 800 });
  assert.deepEqual(found.flashes.map((f) => [f.selector, f.kind]), [['#flash', 'shown-then-hidden']]);
  assert.ok(found.flashes[0].durationMs < 500);
  const clean = await call('detect_flash', { url: url('/clean'), wait_time: 500 });
  assert.deepEqual(clean.flashes, []);
  // The late banner appears once and stays: a layout shift, not a flicker.
  const shift = await call('detect_flash', { url: url('/shift'), wait_time: 800 });
  assert.deepEqual(shift.flashes, []);
});

test('live: measure_element gives the box model and typography', { skip }, async () => {
  const m = await call('measure_element', { url: url('/clean'), selector: '#buy' });
  assert.equal(m.selector, '#buy');
  assert.deepEqual(m.padding, { top: 8, right: 16, bottom: 8, left: 16 });
  assert.ok(m.box.width >= 48 && m.box.height >= 48, JSON.stringify(m.box));
  assert.equal(m.typography.color, 'rgb(255, 255, 255)');
  assert.equal(m.visibility.rendered, true);
  const missing = await client.callTool({ name: 'measure_element', arguments: { url: url('/clean'), selector: '#nope' } });
  assert.equal(missing.isError, true);
  assert.match(missing.content[0].text, /no element matches #nope/);
});

test('live: test_viewports reports sideways scrolling per breakpoint', { skip }, async () => {
  const bugs = await call('test_viewports', { url: url('/bugs'), selector: '#tiny' });
  assert.deepEqual(bugs.breakpoints.map((b) => [b.width, b.horizontalOverflow]), [[375, true], [768, true], [1920, false]]);
  assert.ok(bugs.breakpoints[0].overflowing.some((o) => o.selector === '#wide'));
  assert.equal(bugs.breakpoints[0].element.rendered, true);
  for (const b of bugs.breakpoints) assert.ok(existsSync(b.screenshot));
  const clean = await call('test_viewports', { url: url('/clean'), breakpoints: [{ width: 320, height: 568 }] });
  assert.equal(clean.breakpoints[0].horizontalOverflow, false);
});

test('live: capture_dom_state + compare_snapshots report the changed heading colour and the added item', { skip }, async () => {
  const before = await call('capture_dom_state', { url: url('/clean') });
  const after = await call('capture_dom_state', { url: url('/changed') });
  assert.match(before.id, /^dom-/);
  assert.ok(before.elements > 5);
  const diff = await call('compare_snapshots', { before_id: before.id, after_id: after.id });
  const text = JSON.stringify(diff.comparison);
  assert.equal(diff.comparison.changed, true);
  assert.ok(text.includes('#title'), text);
  assert.ok(text.includes('rgb(200, 0, 0)'), text);
  assert.ok(text.includes('#list > li:nth-of-type(4)'), text);
  const gone = await client.callTool({ name: 'compare_snapshots', arguments: { before_id: 'dom-0-0', after_id: after.id } });
  assert.equal(gone.isError, true);
  assert.match(gone.content[0].text, /expired .* or was never taken/);
  const shallow = await call('capture_dom_state', { url: url('/clean'), max_depth: 1 });
  assert.ok(shallow.firstElements.every((e) => e.selector.split(' > ').length <= 2 || e.selector.startsWith('#')));
  assert.ok(shallow.elements < before.elements);
});

test('live: capture_visual_state writes a screenshot, the DOM record and a capture artifact', { skip }, async () => {
  const state = await call('capture_visual_state', { url: url('/clean'), selector: '#list' });
  assert.ok(existsSync(state.screenshot));
  const dom = JSON.parse(readFileSync(state.dom, 'utf8'));
  assert.equal(dom.elements[0].selector, '#list');
  assert.equal(dom.elements.length, 4);
  assert.match(state.capture, /\.slcap$/);
  assert.ok(existsSync(state.capture));
});

test('live: visual_verify withholds its answers, rejects wrong ones, accepts right ones and expires', { skip }, async () => {
  const session = await call('visual_verify', {
    url: url('/clean'),
    query: 'Is there a way to buy?',
    criteria: [{ question: 'How many entries does the bulleted list have?', expected: 3 }],
  });
  assert.match(session.sessionId, /^verify-[0-9a-f]{32}$/);
  assert.ok(existsSync(session.screenshot));
  const shown = JSON.stringify(session);
  for (const secret of ['Spring collection', '#1a4d8f', '26, 77, 143']) assert.ok(!shown.includes(secret), `${secret} leaked`);
  assert.match(session.prompt, new RegExp(session.sessionId));
  // The right answers, by what each question asks about the clean page.
  const right = {};
  for (const c of session.challenges) {
    const q = c.question;
    right[c.id] = /exact text/.test(q) ? 'Spring collection'
      : /Where is/.test(q) ? 'top left'
      : /list items|entries/.test(q) ? '3'
      : /images/.test(q) ? 1
      : /background colour/.test(q) ? '#1a4d8f'
      : /Is there a button/.test(q) ? 'yes'
      : assert.fail(`unexpected challenge: ${q}`);
  }
  assert.equal(session.challenges.length, 7);
  const wrong = Object.fromEntries(session.challenges.map((c) => [c.id, 'no idea']));
  const rejected = await call('submit_visual_response', { session_id: session.sessionId, challenge_answers: wrong, query_answer: 'yes' });
  assert.equal(rejected.trusted, false);
  assert.equal(rejected.failed.length, 7);
  const rejectedText = JSON.stringify(rejected);
  for (const secret of ['Spring collection', '#1a4d8f', 'top left']) assert.ok(!rejectedText.includes(secret), `${secret} leaked`);
  const accepted = await call('submit_visual_response', { session_id: session.sessionId, challenge_answers: right, query_answer: 'yes, the Buy now button' });
  assert.equal(accepted.trusted, true, JSON.stringify(accepted));
  assert.equal(accepted.passed, 7);
  assert.equal(accepted.queryAnswer, 'yes, the Buy now button');
  // SIGHTLINE_VERIFY_TTL_MS is 3000 here.
  await new Promise((r) => setTimeout(r, 3200));
  const expired = await client.callTool({
    name: 'submit_visual_response',
    arguments: { session_id: session.sessionId, challenge_answers: right, query_answer: 'yes' },
  });
  assert.equal(expired.isError, true);
  assert.match(expired.content[0].text, /expired/);
  await assert.rejects(call('visual_verify', { url: url('/clean'), query: ' ' }), /query/);
});

test('live: bad urls are invalid params; an unreachable server is a clear tool error', { skip }, async () => {
  await assert.rejects(call('visual_check', { url: 'javascript:alert(1)' }), /only http:\/\/ and https:\/\//);
  await assert.rejects(call('visual_check', { url: 'file:///etc/passwd' }), /SIGHTLINE_ALLOWED_ROOTS/);
  await assert.rejects(call('visual_check', { url: url('/clean'), viewport: 'watch' }), /desktop, tablet, mobile/);
  const closed = await freePort();
  const down = await client.callTool({ name: 'visual_check', arguments: { url: `http://127.0.0.1:${closed}/` } });
  assert.equal(down.isError, true);
  assert.match(down.content[0].text, new RegExp(`cannot reach http://127.0.0.1:${closed}/: .*ERR_CONNECTION_REFUSED.*dev server running`));
});

test('live: killing the worker mid-call fails that call clearly and the next call starts a new one', { skip }, async () => {
  const { worker: first } = await call('ping');
  const pending = client.callTool({ name: 'get_console_logs', arguments: { url: url('/clean'), wait_ms: 8000 } });
  await new Promise((r) => setTimeout(r, 1500));
  process.kill(first.pid, 'SIGKILL');
  const failed = await pending;
  assert.equal(failed.isError, true);
  assert.match(failed.content[0].text, new RegExp(`browser worker \\(pid ${first.pid}\\) exited while handling this call`));
  const { worker: second } = await call('ping');
  assert.notEqual(second.pid, first.pid);
  const found = await call('visual_check', { url: url('/clean') });
  assert.deepEqual(found.issues, []);
});

test('live: a hung page and a frozen worker are bounded by the call timeout', { skip }, async () => {
  // A server of its own with an 8 s call timeout, so the hangs are short (but a loaded machine
  // still loads the clean page within it).
  const transport = new StdioClientTransport({
    command: binary,
    args: ['--root', repo, 'mcp'],
    env: { ...env, SIGHTLINE_LIVE_TIMEOUT_MS: '8000' },
    stderr: 'pipe',
  });
  const quick = new Client({ name: 'sightline-live-timeout', version: '1.0.0' });
  await quick.connect(transport);
  try {
    const hung = await quick.callTool({ name: 'visual_check', arguments: { url: url('/hang') } });
    assert.equal(hung.isError, true);
    assert.match(hung.content[0].text, /check timed out after 8000 ms on http:\/\/127\.0\.0\.1:\d+\/hang/);
    const after = await quick.callTool({ name: 'visual_check', arguments: { url: url('/clean') } });
    assert.ok(!after.isError, after.content[0].text);

    // A worker that stops answering altogether (SIGSTOP) is killed after timeout + grace.
    const ping = JSON.parse((await quick.callTool({ name: 'ping', arguments: {} })).content[0].text);
    process.kill(ping.worker.pid, 'SIGSTOP');
    const frozen = await quick.callTool({ name: 'visual_check', arguments: { url: url('/clean') } });
    assert.equal(frozen.isError, true);
    assert.match(frozen.content[0].text, new RegExp(`worker \\(pid ${ping.worker.pid}\\) did not answer within 10\\.0 s`));
    const next = JSON.parse((await quick.callTool({ name: 'ping', arguments: {} })).content[0].text);
    assert.notEqual(next.worker.pid, ping.worker.pid);
  } finally {
    await quick.close();
  }
});

test('live: sightline check prints the issues and exits 1, 0 on the clean page', { skip }, async () => {
  // Asynchronous: the scenario server runs in this process and must keep answering.
  const run = (...args) =>
    new Promise((resolve) => {
      execFile(binary, ['--root', repo, 'check', ...args], { env, encoding: 'utf8' }, (error, stdout, stderr) =>
        resolve({ status: error ? error.code : 0, stdout, stderr }),
      );
    });
  const bugs = await run(url('/bugs'), '--viewport', 'mobile', '--json');
  assert.equal(bugs.status, 1, bugs.stderr);
  const parsed = JSON.parse(bugs.stdout);
  assert.ok(parsed.issues.some((i) => i.kind === 'small-tap-target' && i.selector === '#tiny'));
  const clean = await run(url('/clean'));
  assert.equal(clean.status, 0, clean.stderr);
  assert.match(clean.stdout, /No issues found\./);
  const bad = await run('ftp://x/');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /only http/);
});

test('live: with SIGHTLINE_ALLOWED_ROOTS set, file:// pages inside open and others are refused', { skip }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sightline-live-file-'));
  writeFileSync(path.join(dir, 'page one.html'), '<!doctype html><title>t</title><h1 style="font: 24px sans-serif">Local page</h1>');
  const transport = new StdioClientTransport({ command: binary, args: ['--root', dir, 'mcp'], env: { ...env, SIGHTLINE_ALLOWED_ROOTS: dir }, stderr: 'pipe' });
  const local = new Client({ name: 'sightline-live-file', version: '1.0.0' });
  await local.connect(transport);
  try {
    const inside = await local.callTool({ name: 'visual_check', arguments: { url: `file://${dir}/page%20one.html` } });
    assert.ok(!inside.isError, inside.content?.[0]?.text);
    assert.deepEqual(JSON.parse(inside.content[0].text).issues, []);
    const outside = await local.callTool({ name: 'visual_check', arguments: { url: 'file:///etc/hostname' } }).then((r) => r.content[0].text, (e) => e.message);
    assert.match(outside, /\/etc\/hostname: outside the folders SIGHTLINE_ALLOWED_ROOTS allows/);
  } finally {
    await local.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
