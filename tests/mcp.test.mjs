// `sightline mcp` end to end over stdio with the official SDK client: the tool listing
// (annotations, the approval marker and its switches), the review tools on the example shop's
// run, argument errors that leave the server serving, approval on a copy, and the explanations
// when there is no results.json.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const repo = new URL('..', import.meta.url).pathname;
const shop = path.join(repo, 'examples', 'shop');
const binary = path.join(repo, 'target', 'release', 'sightline');
const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const skip = !existsSync(chromium) && `Chromium not found at ${chromium} (set SIGHTLINE_CHROMIUM); the example run needs it`;
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);

const temps = [];
function tempDir() {
  const dir = mkdtempSync(path.join(tmpdir(), 'sightline-mcp-'));
  temps.push(dir);
  return dir;
}

/** A temp root holding a copy of the example's run (baselines, captures, report). */
function copyOfShop() {
  const root = tempDir();
  cpSync(path.join(shop, '.sightline'), path.join(root, '.sightline'), { recursive: true });
  cpSync(path.join(shop, 'visual-report'), path.join(root, 'visual-report'), { recursive: true });
  return root;
}

async function connect(root, ...flags) {
  assert.ok(existsSync(binary), `${binary} is missing: cargo build --release -p sightline-cli`);
  const transport = new StdioClientTransport({ command: binary, args: ['--root', root, 'mcp', ...flags], stderr: 'pipe' });
  const client = new Client({ name: 'sightline-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function withClient(root, flags, fn) {
  const client = await connect(root, ...flags);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

async function callText(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  assert.ok(!result.isError, `${name} failed: ${result.content?.[0]?.text}`);
  return result.content[0].text;
}

const marker = 'anthropic/requiresUserInteraction';
const approveTools = ['approve_all', 'approve_snapshot'];

before(() => {
  if (skip) return;
  const run = spawnSync(process.execPath, ['scripts/example.mjs'], { cwd: repo, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});

after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

test('mcp: tools/list carries annotations and the approval marker by default', { skip }, async () => {
  await withClient(shop, [], async (client) => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    // The live-page tools (05-live-pages) are tested in tests/live.test.mjs; here only listed.
    const liveTools = [
      'capture_dom_state',
      'capture_visual_state',
      'compare_snapshots',
      'detect_flash',
      'detect_layout_shift',
      'get_console_logs',
      'measure_element',
      'ping',
      'submit_visual_response',
      'test_viewports',
      'verify_accessibility',
      'visual_check',
      'visual_verify',
    ];
    assert.deepEqual(
      Object.keys(byName).sort(),
      [
        'approve_all',
        'approve_snapshot',
        'capture_frames',
        'compare_designs',
        'compare_motion',
        'explain_snapshot',
        'extract_video_frames',
        'get_diff',
        'get_report',
        'get_snapshot_diff',
        'get_visual_results',
        'list_baselines',
        ...liveTools,
      ].sort(),
    );
    for (const name of ['compare_designs', 'compare_motion', 'explain_snapshot', 'get_diff', 'get_report', 'get_snapshot_diff', 'get_visual_results', 'list_baselines', ...liveTools]) {
      assert.equal(byName[name].annotations?.readOnlyHint, true, name);
      assert.equal(byName[name]._meta?.[marker], undefined, name);
    }
    for (const name of approveTools) {
      assert.equal(byName[name].annotations?.destructiveHint, true, name);
      assert.equal(byName[name].annotations?.readOnlyHint, false, name);
      assert.equal(byName[name]._meta?.[marker], true, name);
      assert.match(byName[name].description, /only after a human/i, name);
    }
    assert.deepEqual(byName.explain_snapshot.inputSchema.required, ['name']);
  });
});

test('mcp: --no-approval-prompt and config mcpApprovalPrompt: false drop the marker; the flag wins', { skip }, async () => {
  const markers = async (root, flags) =>
    withClient(root, flags, async (client) => {
      const { tools } = await client.listTools();
      return tools.filter((t) => approveTools.includes(t.name)).map((t) => [t.name, t._meta?.[marker] ?? null, t.description]);
    });
  for (const [, mark, description] of await markers(shop, ['--no-approval-prompt'])) {
    assert.equal(mark, null);
    assert.match(description, /only after a human/i);
  }
  const root = copyOfShop();
  writeFileSync(path.join(root, '.sightline', 'config.json'), JSON.stringify({ mcpApprovalPrompt: false }));
  for (const [name, mark] of await markers(root, [])) assert.equal(mark, null, name);
  for (const [name, mark] of await markers(root, ['--approval-prompt'])) assert.equal(mark, true, name);
});

test('mcp: get_visual_results, explain_snapshot, get_report and list_baselines read the run', { skip }, async () => {
  await withClient(shop, [], async (client) => {
    const summary = await callText(client, 'get_visual_results');
    assert.match(summary, /home \(chromium\) \[changed\]: Style-only change/);
    assert.match(summary, /catalogue \(chromium\) \[changed\]: Page shift/);
    assert.ok(summary.indexOf('- about') > summary.indexOf('- home'), 'changed snapshots come first');
    assert.ok(summary.includes(path.join(shop, 'visual-report', 'index.html')), summary);
    assert.ok(summary.includes(path.join(shop, 'visual-report', 'images', 'home', 'chromium-diff.png')), summary);
    assert.match(summary, /Approve only after a human confirms: call approve_snapshot[^\n]*$/);

    const home = JSON.parse(await callText(client, 'explain_snapshot', { name: 'home' }));
    assert.equal(home.status, 'changed');
    assert.ok(home.layers.dom.styleChanges.count > 0);
    assert.ok(home.guidance.some((g) => /style-only/i.test(g)), home.guidance.join(' '));
    const catalogue = JSON.parse(await callText(client, 'explain_snapshot', { name: 'catalogue', project: 'chromium' }));
    assert.ok(catalogue.guidance.some((g) => /shift/i.test(g)), catalogue.guidance.join(' '));

    const report = JSON.parse(await callText(client, 'get_report'));
    assert.equal(report.version, 1);
    assert.equal(report.snapshots.length, 3);

    const baselines = await callText(client, 'list_baselines');
    assert.match(baselines, /^home\tchromium\t\d+\t\d{4}-\d\d-\d\dT/m);
  });
});

/** Width and height from a base64 PNG's IHDR (bytes 16..24). */
function pngSize(data) {
  const bytes = Buffer.from(data, 'base64');
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The images of a get_diff answer, each with the text block just before it. */
function imagesOf(result) {
  assert.ok(!result.isError, result.content?.[0]?.text);
  return result.content.flatMap((block, i) => {
    if (block.type !== 'image') return [];
    assert.equal(block.mimeType, 'image/png');
    const before = result.content[i - 1];
    assert.equal(before?.type, 'text', `image ${i} is preceded by a text block`);
    return [{ label: before.text, ...pngSize(block.data) }];
  });
}

test('mcp: get_diff sends readable whole-page images, the regions and native-scale crops', { skip }, async () => {
  await withClient(shop, [], async (client) => {
    const result = await client.callTool({ name: 'get_diff', arguments: { name: 'catalogue' } });
    const images = imagesOf(result);
    const whole = images.filter((i) => /whole page/.test(i.label));
    assert.deepEqual(whole.map((i) => i.label.split(',')[0]), ['baseline', 'current', 'diff']);
    for (const image of whole) {
      assert.ok(image.width <= 1568 && image.height <= 1568, JSON.stringify(image));
      assert.ok(image.width * image.height <= 1_150_000, JSON.stringify(image));
      assert.match(image.label, /shown at 0\.\d+ scale/);
    }
    const texts = result.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
    assert.match(texts, /Regions \(\d+ in all/);
    assert.match(texts, /^0: x=0 y=284 1280×60, change, #catalogue-hero$/m);
    const crops = images.filter((i) => !/whole page/.test(i.label));
    assert.ok(crops.length >= 3, 'at least one crop as baseline, current and diff');
    const perKind = { baseline: 0, current: 0, diff: 0 };
    for (const crop of crops) {
      assert.match(crop.label, /native scale/);
      assert.ok(crop.width <= 1280 && crop.height <= 1024, JSON.stringify(crop));
      perKind[crop.label.match(/— (baseline|current|diff)/)[1]] += crop.width * crop.height;
    }
    for (const [kind, pixels] of Object.entries(perKind)) assert.ok(pixels > 0 && pixels <= 2_000_000, `${kind}: ${pixels}`);

    const alias = await client.callTool({ name: 'get_snapshot_diff', arguments: { name: 'catalogue' } });
    assert.equal(imagesOf(alias).length, images.length);
  });
});

test('mcp: get_diff with region or a band returns only that crop', { skip }, async () => {
  await withClient(shop, [], async (client) => {
    const region = imagesOf(await client.callTool({ name: 'get_diff', arguments: { name: 'home', region: 0 } }));
    assert.equal(region.length, 3);
    for (const image of region) {
      assert.doesNotMatch(image.label, /whole page/);
      assert.match(image.label, /Crop of region: .*native scale.*regions 0/);
      assert.equal(image.width, 1280);
      assert.ok(image.height <= 1024);
    }
    const band = imagesOf(await client.callTool({ name: 'get_diff', arguments: { name: 'catalogue', y: 0, height: 500 } }));
    assert.deepEqual(band.map((i) => [i.width, i.height]), [[1280, 500], [1280, 500], [1280, 500]]);
    assert.match(band[0].label, /^Band: page x=0 y=0 1280×500 at native scale — baseline/);

    const outOfRange = await client.callTool({ name: 'get_diff', arguments: { name: 'home', region: 999 } });
    assert.equal(outOfRange.isError, true);
    assert.match(outOfRange.content[0].text, /region 999 does not exist/);
    const unknown = await client.callTool({ name: 'get_diff', arguments: { name: 'nope' } });
    assert.equal(unknown.isError, true);
    assert.match(unknown.content[0].text, /no snapshot named "nope"/);
  });
});

test('mcp: bad arguments are errors and the server keeps serving', { skip }, async () => {
  await withClient(shop, [], async (client) => {
    const unsafe = await client.callTool({ name: 'explain_snapshot', arguments: { name: '../x' } }).then(
      (r) => ({ isError: r.isError, text: r.content?.[0]?.text }),
      (e) => ({ isError: true, text: e.message }),
    );
    assert.equal(unsafe.isError, true);
    assert.match(unsafe.text, /\.\./);
    const missing = await client.callTool({ name: 'approve_snapshot', arguments: {} }).then(
      (r) => r.isError,
      () => true,
    );
    assert.equal(missing, true);
    const unknown = await client.callTool({ name: 'explain_snapshot', arguments: { name: 'nope' } });
    assert.equal(unknown.isError, true);
    assert.match(unknown.content[0].text, /no snapshot named "nope"/);
    // Wrong types are refused naming the argument and its type; an unknown tool is named back
    // with the list of tools.
    const settle = (promise) => promise.then((r) => ({ isError: r.isError, text: r.content?.[0]?.text }), (e) => ({ isError: true, text: e.message }));
    const wrongType = await settle(client.callTool({ name: 'explain_snapshot', arguments: { name: 42 } }));
    assert.equal(wrongType.isError, true);
    assert.match(wrongType.text, /explain_snapshot: argument "name" must be string, got 42/);
    const wrongRegion = await settle(client.callTool({ name: 'get_diff', arguments: { name: 'home', region: 'two' } }));
    assert.equal(wrongRegion.isError, true);
    assert.match(wrongRegion.text, /get_diff: argument "region" must be integer or null, got "two"/);
    const noTool = await settle(client.callTool({ name: 'no_such_tool', arguments: {} }));
    assert.equal(noTool.isError, true);
    assert.match(noTool.text, /unknown tool "no_such_tool"; the tools are .*get_visual_results/);
    assert.match(await callText(client, 'get_visual_results'), /home \(chromium\)/);
  });
});

test('mcp: a malformed results.json is an error naming the file, and nothing is written', { skip }, async () => {
  const root = copyOfShop();
  const results = path.join(root, 'visual-report', 'results.json');
  writeFileSync(results, '{"snapshots": [');
  const before = readFileSync(results, 'utf8');
  await withClient(root, [], async (client) => {
    for (const name of ['get_visual_results', 'get_report']) {
      const result = await client.callTool({ name, arguments: {} });
      assert.equal(result.isError, true, name);
      assert.match(result.content[0].text, /results\.json/, name);
    }
    const approve = await client.callTool({ name: 'approve_all', arguments: {} });
    assert.equal(approve.isError, true);
  });
  assert.equal(readFileSync(results, 'utf8'), before);
});

test('mcp: approve_snapshot writes the baseline', { skip }, async () => {
  const root = copyOfShop();
  const baseline = path.join(root, '.sightline', 'baselines', 'home', 'chromium.png');
  const old = new Date('2020-01-01T00:00:00Z');
  utimesSync(baseline, old, old);
  const before = readFileSync(baseline);
  await withClient(root, [], async (client) => {
    const text = await callText(client, 'approve_snapshot', { name: 'home' });
    assert.match(text, /approved home \(chromium\): replaced/);
  });
  assert.ok(statSync(baseline).mtimeMs > old.getTime());
  assert.ok(!readFileSync(baseline).equals(before), 'the baseline now holds the changed capture');
});

test('mcp: approve_all replaces the baseline of every changed snapshot and leaves the rest', { skip }, async () => {
  const root = copyOfShop();
  const baseline = (name) => path.join(root, '.sightline', 'baselines', name, 'chromium.png');
  const before = Object.fromEntries(['home', 'catalogue', 'about'].map((name) => [name, readFileSync(baseline(name))]));
  await withClient(root, [], async (client) => {
    const text = await callText(client, 'approve_all');
    assert.deepEqual(text.split('\n').sort(), [
      'approved catalogue (chromium): replaced .sightline/baselines/catalogue/chromium.png',
      'approved home (chromium): replaced .sightline/baselines/home/chromium.png',
    ]);
  });
  assert.ok(!readFileSync(baseline('home')).equals(before.home));
  assert.ok(!readFileSync(baseline('catalogue')).equals(before.catalogue));
  assert.ok(readFileSync(baseline('about')).equals(before.about), 'the passed snapshot is untouched');
});

test('mcp: with nothing run, the tools say the tests have not run yet', async () => {
  const root = tempDir();
  await withClient(root, [], async (client) => {
    for (const tool of ['get_visual_results', 'get_report']) {
      assert.match(await callText(client, tool), /tests have not run here yet/);
    }
    const approveAll = await client.callTool({ name: 'approve_all', arguments: {} });
    assert.equal(approveAll.isError, true);
    assert.match(approveAll.content[0].text, /Nothing to approve/);
  });
});

test('mcp: a capture-only shard explains why it has no results', async () => {
  const root = tempDir();
  const temp = path.join(root, '.sightline', 'temp');
  mkdirSync(path.join(temp, 'x'), { recursive: true });
  writeFileSync(path.join(temp, 'shard.json'), JSON.stringify({ current: 2, total: 4, mode: 'capture-only', captures: 1 }));
  writeFileSync(path.join(temp, 'x', 'chromium.slcap'), 'fake');
  await withClient(root, [], async (client) => {
    const text = await callText(client, 'get_visual_results');
    assert.match(text, /capture-only shard 2\/4/);
    assert.match(text, /1 capture is in \.sightline\/temp/);
    assert.match(text, /npx sightline compare/);
  });
});

test('mcp: prompts/list shows both prompts; triage arguments are optional', async () => {
  await withClient(tempDir(), [], async (client) => {
    assert.ok(client.getServerCapabilities()?.prompts, 'prompts capability declared');
    const { prompts } = await client.listPrompts();
    const byName = Object.fromEntries(prompts.map((p) => [p.name, p]));
    assert.deepEqual(Object.keys(byName).sort(), ['review-visual-changes', 'triage-visual-diff']);
    assert.ok(!byName['review-visual-changes'].arguments?.length);
    const args = byName['triage-visual-diff'].arguments;
    assert.deepEqual(args.map((a) => a.name).sort(), ['intent', 'snapshot']);
    for (const arg of args) assert.notEqual(arg.required, true, `${arg.name} must not be required`);
  });
});

test('mcp: prompts/get returns one user message with the rules', async () => {
  await withClient(tempDir(), [], async (client) => {
    const textOf = (result) => {
      assert.equal(result.messages.length, 1);
      assert.equal(result.messages[0].role, 'user');
      return result.messages[0].content.text;
    };
    const review = textOf(await client.getPrompt({ name: 'review-visual-changes' }));
    for (const phrase of [
      'get_visual_results',
      'explain_snapshot for each change',
      'always when styles were not compared',
      'approve, investigate, or likely noise',
      '"Likely noise" only for identical DOM with styles compared and matching and a small scattered diff',
      'A concentrated diff or one over 1% gets its own verdict',
      'the user says so and the client calls approve_snapshot',
    ]) {
      assert.ok(review.includes(phrase), `review prompt lacks "${phrase}"`);
    }

    const all = textOf(await client.getPrompt({ name: 'triage-visual-diff' }));
    for (const phrase of [
      'every changed/new snapshot and every missing baseline',
      'glitch',
      'intended change',
      'possible bug',
      'confidence',
      'Changed DOM or `styleCheck: mismatch` is never a glitch.',
      'Identical DOM with styles not compared is decided by the images, not the DOM.',
      'Noise is small and scattered',
      'A missing baseline is never a glitch',
      'With no intent stated anywhere, a real change is a possible bug.',
      'Never call an approve tool',
    ]) {
      assert.ok(all.includes(phrase), `triage prompt lacks "${phrase}"`);
    }

    const one = textOf(
      await client.getPrompt({ name: 'triage-visual-diff', arguments: { snapshot: 'home', intent: 'rebrand to red' } }),
    );
    assert.match(one, /snapshot "home"/);
    assert.match(one, /rebrand to red/);
    assert.ok(!one.includes('every changed/new snapshot and every missing baseline'));

    await assert.rejects(client.getPrompt({ name: 'triage-visual-diff', arguments: { snapshot: '../x' } }));
    assert.match(await callText(client, 'get_visual_results'), /tests have not run here yet/, 'still serving');
  });
});

test('mcp: a client that hangs up mid-call leaves the server to exit cleanly', { skip }, async () => {
  // A raw client: initialize, then a get_diff (the slowest tool), then stdin closes at once.
  const server = spawn(binary, ['--root', shop, 'mcp'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  server.stderr.on('data', (chunk) => { stderr += chunk; });
  server.stdout.resume();
  const send = (message) => server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hang-up', version: '1' } } });
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/call', params: { name: 'get_diff', arguments: { name: 'catalogue' } } });
  server.stdin.end();
  const code = await new Promise((resolve) => server.on('exit', (exitCode, signal) => resolve(signal ?? exitCode)));
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stderr, /panicked/);
});
