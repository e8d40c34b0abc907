// Motion through the MCP server: extract_video_frames samples the .webm of a recorded Playwright
// test, capture_frames screenshots a live page at an interval, and compare_motion tells the
// animated sequences from the still ones.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const repo = new URL('..', import.meta.url).pathname;
const binary = path.join(repo, 'target', 'release', 'sightline');
const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const ffmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
const skip = (!existsSync(chromium) && `Chromium not found at ${chromium}`) || (!ffmpeg && 'ffmpeg not on PATH (apt-get install --no-install-recommends ffmpeg)');
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);

const root = mkdtempSync(path.join(tmpdir(), 'sightline-video-'));
const videos = {};

/** The .webm Playwright left for the test whose title contains `title`. */
function videoOf(results, title) {
  const dir = readdirSync(results).find((name) => name.includes(title));
  assert.ok(dir, `no test-results folder for "${title}" in ${readdirSync(results)}`);
  const file = readdirSync(path.join(results, dir)).find((name) => name.endsWith('.webm'));
  assert.ok(file, `no video for "${title}"`);
  return path.join(results, dir, file);
}

before(() => {
  if (skip) return;
  const results = path.join(root, 'test-results');
  const cli = path.join(repo, 'node_modules', '@playwright', 'test', 'cli.js');
  const run = spawnSync(process.execPath, [cli, 'test', '-c', 'tests/video/playwright.config.mjs', '--output', results], { cwd: repo, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  videos.animated = videoOf(results, 'animated');
  videos.still = videoOf(results, 'still');
});

after(() => rmSync(root, { recursive: true, force: true }));

async function withClient(fn) {
  const transport = new StdioClientTransport({ command: binary, args: ['--root', root, 'mcp'], stderr: 'pipe' });
  const client = new Client({ name: 'sightline-video-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

async function extract(client, args) {
  const result = await client.callTool({ name: 'extract_video_frames', arguments: args });
  assert.ok(!result.isError, result.content?.[0]?.text);
  return JSON.parse(result.content[0].text);
}

test('video: extract_video_frames samples a Playwright test video by the decoder timestamps', { skip }, async () => {
  await withClient(async (client) => {
    const manifest = await extract(client, { videoPath: videos.animated, durationMs: 1000, fps: 30 });
    assert.equal(manifest.source.codec.startsWith('vp'), true, manifest.source.codec);
    assert.deepEqual([manifest.source.width, manifest.source.height], [320, 240]);
    assert.match(manifest.source.hash, /^[0-9a-f]{32}$/);
    assert.equal(manifest.frames.length, 30);
    // Playwright records at 25 fps: sampling at 30 fps serves some times with the same frame.
    const shared = manifest.frames.filter((f) => f.status === 'shared').length;
    assert.ok(shared > 0, 'some times share a source frame');
    assert.equal(manifest.files.length + shared, 30);
    assert.equal(manifest.timeline.length, 30);
    for (const frame of manifest.frames) assert.ok(frame.sourceMs <= frame.requestedMs + 0.001, JSON.stringify(frame));
    for (const file of manifest.files) assert.equal(statSync(file).mode & 0o222, 0, `${file} is read-only`);
    assert.equal(manifest.tools.length, 2);
    assert.match(manifest.tools[0], /^ffmpeg version/);
    // A second call never reuses the first one's folder.
    const again = await extract(client, { videoPath: videos.animated, durationMs: 1000, fps: 30 });
    assert.notEqual(again.outputDir, manifest.outputDir);
  });
});

test('video: compare_motion on extracted frames tells the animation from the still page', { skip }, async () => {
  await withClient(async (client) => {
    const animated = await extract(client, { videoPath: videos.animated, startMs: 200, durationMs: 1000, fps: 10 });
    const still = await extract(client, { videoPath: videos.still, startMs: 200, durationMs: 1000, fps: 10 });
    const motion = async (reference, candidate) => {
      const result = await client.callTool({ name: 'compare_motion', arguments: { reference, candidate } });
      assert.ok(!result.isError, result.content?.[0]?.text);
      return JSON.parse(result.content[0].text);
    };
    const same = await motion(animated.timeline, animated.timeline);
    assert.equal(same.motionStatus, 'compared');
    assert.equal(same.score, 100);
    const oneMoves = await motion(animated.timeline, still.timeline);
    assert.equal(oneMoves.motionStatus, 'compared');
    assert.equal(oneMoves.score, 0);
    assert.equal(oneMoves.reference.moves, true);
    assert.equal(oneMoves.candidate.moves, false);
  });
});

test('video: .mp4 and .mov recordings are sampled like the webm', { skip }, async () => {
  // The same recording re-encoded by ffmpeg (mpeg4, built into every ffmpeg) into both containers.
  const sources = {};
  for (const ext of ['mp4', 'mov']) {
    sources[ext] = path.join(root, `animated.${ext}`);
    const made = spawnSync('ffmpeg', ['-v', 'error', '-y', '-i', videos.animated, '-c:v', 'mpeg4', '-q:v', '3', sources[ext]]);
    assert.equal(made.status, 0, String(made.stderr));
  }
  await withClient(async (client) => {
    for (const [ext, file] of Object.entries(sources)) {
      const manifest = await extract(client, { videoPath: file, durationMs: 1000, fps: 5 });
      assert.equal(manifest.source.codec, 'mpeg4', ext);
      assert.equal(manifest.frames.length, 5, ext);
      assert.equal(manifest.frames.filter((f) => f.status === 'selected').length, 5, `${ext}: 5 distinct frames at 200 ms steps`);
    }
  });
});

test('video: windows past the end, too many samples and non-videos are clear errors that write nothing', { skip }, async () => {
  const notVideo = path.join(root, 'notes.txt');
  writeFileSync(notVideo, 'not a video');
  await withClient(async (client) => {
    const call = (args) => client.callTool({ name: 'extract_video_frames', arguments: args }).then((r) => r.content[0].text, (e) => e.message);
    const before = existsSync(path.join(root, '.sightline', 'frames')) ? readdirSync(path.join(root, '.sightline', 'frames')).length : 0;
    assert.match(await call({ videoPath: videos.still, startMs: 60_000, durationMs: 1000 }), /ends after the recording/);
    assert.match(await call({ videoPath: videos.still, durationMs: 10_000, fps: 30 }), /300 frames, above 120/);
    assert.match(await call({ videoPath: notVideo, durationMs: 1000 }), /not a \.mp4, \.mov or \.webm/);
    assert.match(await call({ videoPath: path.join(root, 'missing.webm'), durationMs: 1000 }), /missing\.webm/);
    const after = existsSync(path.join(root, '.sightline', 'frames')) ? readdirSync(path.join(root, '.sightline', 'frames')).length : 0;
    assert.equal(after, before, 'no frames folder was left behind');
  });
});

test('motion: capture_frames records a CSS animation; compare_motion says compared vs static and matches two captures', { skip }, async () => {
  const page = (animation) => `<!doctype html><style>body { margin: 0 }
    @keyframes slide { from { transform: translateX(0) } to { transform: translateX(240px) } }
    div { width: 60px; height: 60px; margin: 90px 0; background: #2878dc; animation: ${animation} }</style><div></div>`;
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(page(req.url === '/still' ? 'none' : 'slide 1s linear infinite alternate'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    await withClient(async (client) => {
      const capture = async (url, extra = {}) => {
        const result = await client.callTool({ name: 'capture_frames', arguments: { url, frames: 8, intervalMs: 100, viewport: { width: 320, height: 240 }, ...extra } });
        assert.ok(!result.isError, result.content?.[0]?.text);
        return JSON.parse(result.content[0].text);
      };
      const first = await capture(`${base}/animated`);
      assert.equal(first.files.length, 8);
      assert.deepEqual(first.files, [...first.files].sort(), 'ordered paths');
      for (const file of first.files) assert.ok(path.isAbsolute(file) && existsSync(file), file);
      assert.ok(first.timesMs[7] >= 700, `the last frame comes after 7 intervals: ${first.timesMs}`);
      const second = await capture(`${base}/animated`, { waitMs: 250, actions: [{ type: 'wait', ms: 50 }] });
      const still = await capture(`${base}/still`);
      const motion = async (reference, candidate) => {
        const result = await client.callTool({ name: 'compare_motion', arguments: { reference, candidate } });
        assert.ok(!result.isError, result.content?.[0]?.text);
        return JSON.parse(result.content[0].text);
      };
      const versus = await motion(first.files, still.files);
      assert.equal(versus.motionStatus, 'compared');
      assert.equal(versus.score, 0);
      const stillOnly = await motion(still.files, still.files);
      assert.equal(stillOnly.motionStatus, 'static');
      const twice = await motion(first.files, second.files);
      assert.equal(twice.motionStatus, 'compared');
      assert.ok(twice.score >= 80, `two captures of one animation score high: ${twice.score}`);
      // Bad requests are refused before a browser opens.
      const refused = await client.callTool({ name: 'capture_frames', arguments: { url: 'ftp://example.com/', frames: 2, intervalMs: 10 } }).then((r) => r.content[0].text, (e) => e.message);
      assert.match(refused, /http/);
      const tooLong = await client.callTool({ name: 'capture_frames', arguments: { url: base, frames: 120, intervalMs: 5000 } }).then((r) => r.content[0].text, (e) => e.message);
      assert.match(tooLong, /600000 ms, above 60000/);
    });
  } finally {
    server.close();
  }
});
