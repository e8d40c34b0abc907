// SIGHTLINE_ALLOWED_ROOTS through the real MCP client against the built binary: every tool that
// reads or writes a file works on files inside the allowed folder and refuses, naming the path
// and the fix, a file outside it, a symlink inside that points out, a `..` path that climbs out,
// and an output folder outside; a folder that does not exist yet is created when it is inside.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { toolFailure as failure, withMcp } from './support/mcp.mjs';

const repo = new URL('..', import.meta.url).pathname;
const fixtures = path.join(repo, 'crates', 'core', 'tests', 'fixtures', 'design');
const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const ffmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
const noVideo = !ffmpeg && 'ffmpeg not on PATH (apt-get install --no-install-recommends ffmpeg)';
const noBrowser = !existsSync(chromium) && `Chromium not found at ${chromium}`;
if ((noVideo || noBrowser) && process.env.CI) throw new Error(`${noVideo || noBrowser}; CI must have it (npm test installs it)`);

// realpath: the allowed folder as the server resolves it (a symlinked /tmp stays comparable).
const top = realpathSync(mkdtempSync(path.join(tmpdir(), 'sightline-confinement-')));
const allowed = path.join(top, 'allowed');
const project = path.join(allowed, 'project');
const outside = path.join(top, 'outside');
const elsewhere = path.join(top, 'elsewhere');

before(() => {
  for (const dir of [project, outside, elsewhere, path.join(allowed, 'frames'), path.join(outside, 'frames')]) mkdirSync(dir, { recursive: true });
  for (const dir of [allowed, outside]) {
    copyFileSync(path.join(fixtures, 'reference.png'), path.join(dir, 'reference.png'));
    copyFileSync(path.join(fixtures, 'recoloured.png'), path.join(dir, 'recoloured.png'));
    ['reference.png', 'recoloured.png', 'reference.png'].forEach((file, i) => copyFileSync(path.join(fixtures, file), path.join(dir, 'frames', `frame-${i}.png`)));
  }
  symlinkSync(path.join(outside, 'reference.png'), path.join(allowed, 'link.png'));
  symlinkSync(path.join(outside, 'frames'), path.join(allowed, 'frames-link'));
  writeFileSync(path.join(allowed, 'page.html'), '<body style="margin:0;background:#2878dc"></body>');
  writeFileSync(path.join(outside, 'page.html'), '<body style="margin:0;background:#dc3c3c"></body>');
  symlinkSync(path.join(outside, 'page.html'), path.join(allowed, 'link.html'));
  // Pages inside that pull in a page outside, as a frame and by a refresh; the page outside (and
  // its twin inside, the control) says in the console that it ran.
  for (const [dir, where] of [[allowed, 'inside'], [outside, 'outside']]) {
    writeFileSync(path.join(dir, 'logs.html'), `<body><script>console.log('the page ${where} ran')</script></body>`);
  }
  const pulling = (target) => ({
    frame: `<body><h1>Frame</h1><iframe src="${pathToFileURL(target).href}"></iframe></body>`,
    refresh: `<head><meta http-equiv="refresh" content="0;url=${pathToFileURL(target).href}"></head><body><h1>Refresh</h1></body>`,
  });
  for (const [kind, html] of Object.entries(pulling(path.join(outside, 'logs.html')))) writeFileSync(path.join(allowed, `${kind}-out.html`), html);
  for (const [kind, html] of Object.entries(pulling(path.join(allowed, 'logs.html')))) writeFileSync(path.join(allowed, `${kind}-in.html`), html);
  if (!noVideo) {
    for (const dir of [allowed, outside]) {
      const made = spawnSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=25', '-t', '1', '-c:v', 'mpeg4', path.join(dir, 'clip.mp4')]);
      assert.equal(made.status, 0, String(made.stderr));
    }
    symlinkSync(path.join(outside, 'clip.mp4'), path.join(allowed, 'link.mp4'));
  }
});

after(() => rmSync(top, { recursive: true, force: true }));

const withClient = (root, fn) => withMcp({ root, env: { ...process.env, SIGHTLINE_ALLOWED_ROOTS: allowed }, name: 'sightline-confinement-test' }, fn);

/** The refusal every tool gives for a path outside the allowed folder, naming it as given. */
const refusal = (given) =>
  `${given}: outside the folders SIGHTLINE_ALLOWED_ROOTS allows (${allowed}); move it under one of them or add its folder to SIGHTLINE_ALLOWED_ROOTS`;

async function succeeds(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.ok(!result.isError, `${name}: ${result.content?.[0]?.text}`);
  return JSON.parse(result.content[0].text);
}

// Refused as given: outside, a symlink inside pointing out, and `..` climbing out of the folder.
const ESCAPES = (file) => [path.join(outside, file), path.join(allowed, `link${path.extname(file)}`), path.join(allowed, '..', 'outside', file)];

test('confinement: compare_designs reads files inside the allowed folder and refuses every way out', async () => {
  await withClient(project, async (client) => {
    // Absolute and relative to the project root: both are files inside, read as files.
    const json = await succeeds(client, 'compare_designs', { reference: path.join(allowed, 'reference.png'), candidate: '../recoloured.png', returnVisuals: false });
    assert.equal(json.dimensions.color.score, 46.73);
    for (const escape of ESCAPES('reference.png')) {
      assert.deepEqual(await failure(client, 'compare_designs', { reference: escape, candidate: path.join(allowed, 'recoloured.png') }), { toolError: refusal(escape) }, escape);
    }
  });
});

test('confinement: compare_motion reads frame folders and frame lists inside, and refuses folders, files and links outside', async () => {
  await withClient(project, async (client) => {
    const inside = path.join(allowed, 'frames');
    const files = ['frame-0.png', 'frame-1.png', 'frame-2.png'].map((f) => path.join(inside, f));
    const json = await succeeds(client, 'compare_motion', { reference: inside, candidate: files });
    // Both sides read: the folder's three PNGs and the three files listed.
    assert.deepEqual([json.reference.frames, json.candidate.frames], [3, 3]);
    for (const escape of [path.join(outside, 'frames'), path.join(allowed, 'frames-link'), path.join(allowed, '..', 'outside', 'frames')]) {
      assert.deepEqual(await failure(client, 'compare_motion', { reference: escape, candidate: inside }), { toolError: refusal(escape) }, escape);
    }
    for (const escape of ESCAPES('reference.png')) {
      assert.deepEqual(await failure(client, 'compare_motion', { reference: inside, candidate: [files[0], escape] }), { toolError: refusal(escape) }, escape);
    }
  });
});

test('confinement: extract_video_frames reads a recording inside into a frames folder it creates, and refuses recordings and a frames folder outside', { skip: noVideo }, async () => {
  const frames = path.join(project, '.sightline', 'frames');
  assert.ok(!existsSync(frames), 'the frames folder does not exist yet');
  await withClient(project, async (client) => {
    const manifest = await succeeds(client, 'extract_video_frames', { videoPath: path.join(allowed, 'clip.mp4'), durationMs: 400, fps: 5 });
    assert.equal(path.dirname(manifest.outputDir), frames);
    assert.equal(manifest.files.length, 2);
    for (const escape of ESCAPES('clip.mp4')) {
      assert.deepEqual(await failure(client, 'extract_video_frames', { videoPath: escape, durationMs: 400 }), { toolError: refusal(escape) }, escape);
    }
  });
  // A project outside the allowed folder: its frames folder is an output outside, never created.
  await withClient(elsewhere, async (client) => {
    const out = path.join(elsewhere, '.sightline', 'frames');
    assert.deepEqual(await failure(client, 'extract_video_frames', { videoPath: path.join(allowed, 'clip.mp4'), durationMs: 400 }), { toolError: refusal(out) });
  });
  assert.ok(!existsSync(path.join(elsewhere, '.sightline')), 'nothing was created outside');
});

test('confinement: capture_frames opens file:// pages inside into a frames folder inside, and refuses pages, links and a frames folder outside', { skip: noBrowser }, async () => {
  const shot = { frames: 1, intervalMs: 100, viewport: { width: 100, height: 100 } };
  await withClient(project, async (client) => {
    const captured = await succeeds(client, 'capture_frames', { url: pathToFileURL(path.join(allowed, 'page.html')).href, ...shot });
    assert.equal(path.dirname(captured.outputDir), path.join(project, '.sightline', 'frames'));
    assert.equal(captured.files.length, 1);
    for (const escape of [path.join(outside, 'page.html'), path.join(allowed, 'link.html')]) {
      const url = pathToFileURL(escape).href;
      assert.deepEqual(await failure(client, 'capture_frames', { url, ...shot }), { toolError: `url: ${refusal(escape)}` }, escape);
    }
  });
  await withClient(elsewhere, async (client) => {
    const out = path.join(elsewhere, '.sightline', 'frames');
    assert.deepEqual(await failure(client, 'capture_frames', { url: pathToFileURL(path.join(allowed, 'page.html')).href, ...shot }), { toolError: refusal(out) });
  });
  assert.ok(!existsSync(path.join(elsewhere, '.sightline')), 'nothing was created outside');
});

test('confinement: a file:// page inside cannot pull in a file outside, as a frame or by a refresh', { skip: noBrowser }, async () => {
  await withClient(project, async (client) => {
    const logs = async (file) => {
      const json = await succeeds(client, 'get_console_logs', { url: pathToFileURL(path.join(allowed, file)).href, wait_ms: 500 });
      return { ran: json.entries.map((e) => e.text), failed: json.failedRequests.map((r) => [r.url, r.failure]) };
    };
    // The control: the same pages pulling in a file inside load it and it runs.
    assert.deepEqual((await logs('frame-in.html')).ran, ['the page inside ran']);
    assert.deepEqual((await logs('refresh-in.html')).ran, ['the page inside ran']);
    // Pulling in the file outside is refused like the page itself would be: it never runs.
    const refused = [[pathToFileURL(path.join(outside, 'logs.html')).href, 'net::ERR_ACCESS_DENIED']];
    for (const file of ['frame-out.html', 'refresh-out.html']) {
      const seen = await logs(file);
      assert.deepEqual(seen.ran, [], file);
      assert.deepEqual(seen.failed, refused, file);
    }
  });
});

test('confinement: live-page screenshots are written inside the allowed folders, or refused with nothing written', { skip: noBrowser }, async () => {
  const page = pathToFileURL(path.join(allowed, 'page.html')).href;
  const temp = path.join(tmpdir(), 'sightline-live');
  await withClient(project, async (client) => {
    // The temp folder is outside the allowed one, so the project's .sightline/live holds them.
    const live = path.join(project, '.sightline', 'live');
    const checked = await succeeds(client, 'visual_check', { url: page });
    assert.equal(path.dirname(checked.screenshot), live);
    const state = await succeeds(client, 'capture_visual_state', { url: page });
    assert.deepEqual([state.screenshot, state.dom, state.capture].map((file) => path.dirname(file)), [live, live, live]);
    for (const file of [state.screenshot, state.dom, state.capture]) assert.ok(existsSync(file), file);
  });
  // A project outside the allowed folder: no folder the screenshots may go to.
  await withClient(elsewhere, async (client) => {
    const out = path.join(elsewhere, '.sightline', 'live');
    assert.deepEqual(await failure(client, 'visual_check', { url: page }), {
      toolError: `screenshots: live pages are shot into ${temp} or, when SIGHTLINE_ALLOWED_ROOTS does not hold it, into ${out}; neither is inside the folders it allows (${allowed}): add one of them to SIGHTLINE_ALLOWED_ROOTS`,
    });
  });
  assert.ok(!existsSync(path.join(elsewhere, '.sightline')), 'nothing was created outside');
});
