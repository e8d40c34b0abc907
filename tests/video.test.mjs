// Motion through the MCP server: extract_video_frames samples the .webm of a recorded Playwright
// test, capture_frames screenshots a live page at an interval, and compare_motion tells the
// animated sequences from the still ones. The decoder is locked down: scripts and URLs are
// refused, at most two extractions run at once, and a cancelled call stops ffmpeg and leaves
// no folder.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { toolFailure as failure, withMcp } from './support/mcp.mjs';
import { readPng } from './video/png.mjs';

const repo = new URL('..', import.meta.url).pathname;
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
  // ffmpeg's test pattern at exactly 25 fps for 2 s: a frame every 40 ms, so what sampling it
  // gives is arithmetic (Playwright's recorder drops or repeats a frame on a busy machine).
  videos.cfr = path.join(root, 'cfr-25fps.mp4');
  const made = spawnSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25', '-t', '2', '-c:v', 'mpeg4', '-q:v', '3', videos.cfr]);
  assert.equal(made.status, 0, String(made.stderr));
});

after(() => rmSync(root, { recursive: true, force: true }));

const withClient = (fn) => withMcp({ root, name: 'sightline-video-test' }, fn);

async function extract(client, args) {
  const result = await client.callTool({ name: 'extract_video_frames', arguments: args });
  assert.ok(!result.isError, result.content?.[0]?.text);
  return JSON.parse(result.content[0].text);
}

/** compare_motion's JSON. */
async function motion(client, reference, candidate) {
  const result = await client.callTool({ name: 'compare_motion', arguments: { reference, candidate } });
  assert.ok(!result.isError, result.content?.[0]?.text);
  return JSON.parse(result.content[0].text);
}


test('video: extract_video_frames samples a Playwright test video by the decoder timestamps', { skip }, async () => {
  await withClient(async (client) => {
    const manifest = await extract(client, { videoPath: videos.animated, durationMs: 1000, fps: 30 });
    assert.equal(manifest.source.codec.startsWith('vp'), true, manifest.source.codec);
    assert.deepEqual([manifest.source.width, manifest.source.height], [320, 240]);
    // The hash of exactly the bytes decoded: the file's, as no one wrote to it meanwhile.
    assert.equal(manifest.source.sha256, createHash('sha256').update(readFileSync(videos.animated)).digest('hex'));
    assert.equal(manifest.frames.length, 30);
    // Playwright records at about 25 fps (its recorder drops or repeats a frame on a busy machine,
    // so the exact counts are pinned on a constant-rate video below): sampling at 30 fps serves
    // a time from the same source frame as the time before exactly when no newer frame began.
    manifest.frames.forEach((f, i) => {
      const same = i > 0 && f.frameIndex === manifest.frames[i - 1].frameIndex;
      assert.equal(f.status, same ? 'shared' : 'selected', JSON.stringify(f));
    });
    const shared = manifest.frames.filter((f) => f.status === 'shared').length;
    assert.equal(manifest.files.length, new Set(manifest.frames.map((f) => f.frameIndex)).size, 'one file per distinct source frame');
    assert.equal(manifest.files.length + shared, 30);
    assert.equal(manifest.timeline.length, 30);
    assert.equal(manifest.sampling, shared > 0 ? 'sparse' : 'complete');
    // Each time takes the first frame at or after it.
    for (const frame of manifest.frames) assert.ok(frame.actualMs >= frame.requestedMs - 0.001, JSON.stringify(frame));
    assert.deepEqual(JSON.parse(readFileSync(manifest.manifestPath, 'utf8')), manifest);
    for (const file of manifest.files) assert.equal(statSync(file).mode & 0o222, 0, `${file} is read-only`);
    assert.equal(manifest.tools.length, 2);
    assert.match(manifest.tools[0], /^ffmpeg version/);
    // A second call never reuses the first one's folder.
    const again = await extract(client, { videoPath: videos.animated, durationMs: 1000, fps: 30 });
    assert.notEqual(again.outputDir, manifest.outputDir);
  });
});

test('video: a constant 25 fps recording sampled at 30 fps shares every sixth time', { skip }, async () => {
  await withClient(async (client) => {
    // A frame every 40 ms, a time every 33.3 ms: each time takes the first frame at or after it.
    const manifest = await extract(client, { videoPath: videos.cfr, durationMs: 1000, fps: 30 });
    assert.deepEqual(manifest.frames.map((f) => f.actualMs), [
      0, 40, 80, 120, 160, 200, 200, 240, 280, 320, 360, 400, 400, 440, 480,
      520, 560, 600, 600, 640, 680, 720, 760, 800, 800, 840, 880, 920, 960, 1000,
    ]);
    assert.deepEqual(manifest.frames.map((f) => f.frameIndex), [
      0, 1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 10, 10, 11, 12, 13, 14, 15, 15, 16, 17, 18, 19, 20, 20, 21, 22, 23, 24, 25,
    ]);
    const sharedAt = manifest.frames.flatMap((f, i) => (f.status === 'shared' ? [i] : []));
    assert.deepEqual(sharedAt, [6, 12, 18, 24]);
    assert.equal(manifest.sampling, 'sparse');
    assert.equal(manifest.files.length, 26);
    // The timeline lists the frame on screen at each time, repeats included.
    assert.deepEqual(manifest.timeline, manifest.frames.map((f) => f.file));
    assert.deepEqual([manifest.source.codec, manifest.source.width, manifest.source.height], ['mpeg4', 320, 240]);
  });
});

test('video: compare_motion on extracted frames tells the animation from the still page', { skip }, async () => {
  await withClient(async (client) => {
    // From 1 s on: a recording starts with the blank page, and on a busy machine the page's
    // first paint can come several hundred milliseconds later.
    const animated = await extract(client, { videoPath: videos.animated, startMs: 1000, durationMs: 1000, fps: 10 });
    const still = await extract(client, { videoPath: videos.still, startMs: 1000, durationMs: 1000, fps: 10 });
    const same = await motion(client, animated.timeline, animated.timeline);
    assert.deepEqual([same.motionStatus, same.score, same.reference.frames, same.candidate.frames], ['compared', 100, 10, 10]);
    const oneMoves = await motion(client, animated.timeline, still.timeline);
    assert.deepEqual([oneMoves.motionStatus, oneMoves.score, oneMoves.reference.moves, oneMoves.candidate.moves], ['compared', 0, true, false]);
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
    const call = (args) => failure(client, 'extract_video_frames', args);
    const before = existsSync(path.join(root, '.sightline', 'frames')) ? readdirSync(path.join(root, '.sightline', 'frames')).length : 0;
    assert.deepEqual(await call({ videoPath: videos.cfr, startMs: 60_000, durationMs: 1000 }), {
      toolError: `${videos.cfr}: the window 60000–61000 ms ends after the recording (2000 ms from its first frame); choose startMs + durationMs ≤ 2000`,
    });
    assert.deepEqual(await call({ videoPath: videos.still, durationMs: 10_000, fps: 30 }), {
      toolError: '10000 ms at 30 fps is 300 frames, above 120; shorten the window or lower fps',
    });
    assert.deepEqual(await call({ videoPath: notVideo, durationMs: 1000 }), {
      toolError: `${notVideo}: not a .mp4, .mov or .webm recording; convert it with ffmpeg first`,
    });
    assert.deepEqual(await call({ videoPath: path.join(root, 'missing.webm'), durationMs: 1000 }), {
      toolError: `${path.join(root, 'missing.webm')}: No such file or directory (os error 2)`,
    });
    const after = existsSync(path.join(root, '.sightline', 'frames')) ? readdirSync(path.join(root, '.sightline', 'frames')).length : 0;
    assert.equal(after, before, 'no frames folder was left behind');
  });
});

/** The processes whose parent is `pid`, as { pid, argv }, read from /proc. */
function childrenOf(pid) {
  const children = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name sits in parentheses and may hold spaces: count fields after the last ')'.
      const [, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== pid) continue;
      children.push({ pid: Number(entry), argv: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean) });
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return children;
}

/** The server's running ffmpeg and ffprobe children. */
const decoders = (client) => childrenOf(client.transport.pid).filter((p) => /(^|\/)ff(mpeg|probe)$/.test(p.argv[0] ?? ''));

/** Polls `check` every 20 ms until it returns something truthy; fails naming `what` after `ms`. */
async function until(what, check, ms = 10_000) {
  for (const started = Date.now(); Date.now() - started < ms; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const value = check();
    if (value) return value;
  }
  assert.fail(`${what} within ${ms} ms`);
}

const noProc = !existsSync('/proc/self/stat') && 'no /proc to see the server\'s child processes';

test('video: an ffconcat script or a playlist named .mp4 and URLs are refused over MCP before any tool runs', { skip }, async () => {
  // A script naming a real recording: ffmpeg's probing would decode the file it points at.
  const script = path.join(root, 'script.mp4');
  writeFileSync(script, `ffconcat version 1.0\nfile '${videos.cfr}'\n`);
  const playlist = path.join(root, 'playlist.mp4');
  writeFileSync(playlist, `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\n${videos.cfr}\n#EXT-X-ENDLIST\n`);
  const frames = path.join(root, '.sightline', 'frames');
  const before = existsSync(frames) ? readdirSync(frames).length : 0;
  await withClient(async (client) => {
    const call = (videoPath) => failure(client, 'extract_video_frames', { videoPath, durationMs: 400 });
    const notRecording = (file, looksLike) => ({
      toolError: `${file}: not an MP4/MOV or WebM recording (${looksLike}); give the recording itself, or convert it with ffmpeg first`,
    });
    assert.deepEqual(await call(script), notRecording(script, 'it starts like an ffconcat script'));
    // Relative to the project root, as an agent would give it.
    assert.deepEqual(await call('playlist.mp4'), notRecording(playlist, 'it starts like an HLS (m3u8) playlist'));
    for (const url of ['http://127.0.0.1:9/clip.mp4', `file:${videos.cfr}`, 'concat:a.mp4|b.mp4']) {
      assert.deepEqual(await call(url), {
        toolError: `${url}: a URL, not a local recording; download it and give the file's path (a file whose name has a colon: write ./${url})`,
      });
    }
    assert.deepEqual(decoders(client), [], 'no ffmpeg or ffprobe was started');
  });
  assert.equal(existsSync(frames) ? readdirSync(frames).length : 0, before, 'no frames folder was made');
});

test('video: a cancelled extraction stops ffmpeg, leaves no partial folder, and the next call runs', { skip: skip || noProc }, async () => {
  // 20 s at 25 fps, 1280 × 720: the one ffmpeg pass decodes 500 frames and writes 100 of them as
  // PNGs, seconds of work the test cancels in the middle of.
  const project = mkdtempSync(path.join(tmpdir(), 'sightline-video-cancel-'));
  const long = path.join(project, 'long.mp4');
  const made = spawnSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=25', '-t', '20', '-c:v', 'mpeg4', '-q:v', '5', long]);
  assert.equal(made.status, 0, String(made.stderr));
  try {
    await withMcp({ root: project, name: 'sightline-video-cancel-test' }, async (client) => {
      const controller = new AbortController();
      const call = client.callTool({ name: 'extract_video_frames', arguments: { videoPath: long, durationMs: 20_000, fps: 5 } }, undefined, { signal: controller.signal, timeout: 120_000 });
      // Cancelled while ffmpeg extracts the frames (not while ffprobe reads the timestamps).
      const ffmpeg = await until('an ffmpeg extracting the frames', () => decoders(client).find((p) => p.argv.includes('-vf')), 60_000);
      assert.ok(existsSync(path.join(project, '.sightline', 'frames')), 'the frames were being written');
      controller.abort('the test cancels');
      await assert.rejects(call);
      await until('ffmpeg stopped', () => !existsSync(`/proc/${ffmpeg.pid}`) && decoders(client).length === 0);
      // The partial folder and the folders made for it are gone: the call changed nothing.
      await until('the partial folder removed', () => !existsSync(path.join(project, '.sightline')));
      // Stopped for good, not between two frames: no decoder starts again.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(decoders(client), []);
      // The slot was given back: a short extraction on the same server succeeds.
      const after = await extract(client, { videoPath: long, durationMs: 200, fps: 5 });
      assert.deepEqual(readdirSync(path.join(project, '.sightline', 'frames')), [path.basename(after.outputDir)]);
    });
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test('video: at most two extractions run at once; a third waits its turn', { skip: skip || noProc }, async () => {
  // An "ffmpeg" that logs when it starts and ends and takes 600 ms: three calls at once, each
  // running it once (for -version) and failing, must never have more than two running.
  const log = path.join(root, 'ffmpeg-runs.log');
  const slow = path.join(root, 'slow-ffmpeg');
  writeFileSync(slow, `#!/bin/sh\necho start >> '${log}'\nsleep 0.6\necho end >> '${log}'\nexit 1\n`);
  chmodSync(slow, 0o755);
  rmSync(log, { force: true });
  await withMcp({ root, env: { ...process.env, SIGHTLINE_FFMPEG: slow }, name: 'sightline-video-slots-test' }, async (client) => {
    const calls = [0, 1, 2].map(() => failure(client, 'extract_video_frames', { videoPath: videos.cfr, durationMs: 400 }));
    for (const answer of await Promise.all(calls)) {
      assert.deepEqual(answer, { toolError: `${slow}: slow-ffmpeg failed (no message); is it a readable video?` });
    }
  });
  let running = 0;
  let most = 0;
  const events = readFileSync(log, 'utf8').trim().split('\n');
  for (const event of events) {
    running += event === 'start' ? 1 : -1;
    most = Math.max(most, running);
  }
  assert.deepEqual([events.length, most], [6, 2], events.join(' '));
  const frames = path.join(root, '.sightline', 'frames');
  assert.ok(!existsSync(frames) || readdirSync(frames).every((name) => !name.endsWith('.partial')), 'no partial folder was left');
});

/** The pages capture_frames opens: a sliding square, the same square still, and controls to click and hover. */
const square = (animation) => `<!doctype html><style>body { margin: 0 }
  @keyframes slide { from { transform: translateX(0) } to { transform: translateX(240px) } }
  div { width: 60px; height: 60px; margin: 90px 0; background: #2878dc; animation: ${animation} }</style><div></div>`;
const motionPages = {
  '/animated': square('slide 1s linear infinite alternate'),
  '/still': square('none'),
  // A different pattern of black and white 20 × 15 px cells at every animation frame: cell j of
  // pattern i is black when i & j has an odd number of bits (rows of a Hadamard matrix), so any
  // two different patterns differ in exactly half the cells. Each step between two screenshots
  // then changes exactly half the view fully, however long the step took: a motion whose
  // signature does not depend on the machine's speed (pattern 0, all white, is left out).
  '/patterns': `<!doctype html><style>body { margin: 0 } canvas { display: block }</style>
    <canvas id="c" width="320" height="240"></canvas><script>
    const ctx = document.getElementById('c').getContext('2d');
    const odd = (v) => { let p = 0; for (; v; v &= v - 1) p ^= 1; return p; };
    let frame = 0;
    (function draw() {
      const pattern = 1 + (frame++ % 255);
      for (let j = 0; j < 256; j++) {
        ctx.fillStyle = odd(pattern & j) ? '#000' : '#fff';
        ctx.fillRect((j % 16) * 20, Math.floor(j / 16) * 15, 20, 15);
      }
      requestAnimationFrame(draw);
    })();
    </script>`,
  // Clicking #go paints the page red; hovering #spot darkens it.
  '/controls': `<!doctype html><style>body { margin: 0; background: #fff }
    #go { position: absolute; left: 0; top: 0; width: 100px; height: 40px }
    #spot { position: absolute; left: 200px; top: 100px; width: 100px; height: 100px; background: #ededed }
    #spot:hover { background: #222222 }</style>
    <button id="go" onclick="document.body.style.background = '#dc3c3c'">Go</button><div id="spot"></div>`,
  // Boots like a Flutter web app: a loading page, then after 700 ms its view element and the app
  // (a blue page) in the next frame.
  '/flutter': `<!doctype html><style>body { margin: 0; background: #fff }</style><p>Loading…</p><script>
    setTimeout(() => {
      document.body.innerHTML = '';
      document.body.appendChild(document.createElement('flutter-view'));
      requestAnimationFrame(() => { document.body.style.background = '#2878dc'; });
    }, 700);
    </script>`,
};

/** Serves `motionPages` for the duration of `fn(base)`. */
async function withPages(fn) {
  const server = createServer((req, res) => {
    res.writeHead(motionPages[req.url] ? 200 : 404, { 'content-type': 'text/html' });
    res.end(motionPages[req.url] ?? 'not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await fn(`http://127.0.0.1:${server.address().port}`);
  } finally {
    server.close();
  }
}

/** capture_frames' JSON, at 320 × 240 unless `extra` says otherwise. */
async function capture(client, url, extra) {
  const result = await client.callTool({ name: 'capture_frames', arguments: { url, viewport: { width: 320, height: 240 }, ...extra } });
  assert.ok(!result.isError, result.content?.[0]?.text);
  return JSON.parse(result.content[0].text);
}

const WHITE = [255, 255, 255];
const BLUE = [40, 120, 220]; // #2878dc

test('motion: capture_frames records a CSS animation; compare_motion says compared vs static and matches two captures', { skip }, async () => {
  await withPages((base) => withClient(async (client) => {
    const first = await capture(client, `${base}/animated`, { frames: 8, intervalMs: 100 });
    assert.deepEqual(first.files.map((file) => path.basename(file)), [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `frame-00${i}.png`));
    for (const file of first.files) assert.equal(path.dirname(file), first.outputDir);
    assert.equal(path.dirname(first.outputDir), path.join(root, '.sightline', 'frames'));
    for (const file of first.files) assert.deepEqual([readPng(file).width, readPng(file).height], [320, 240], file);
    // Frame i is taken no earlier than i intervals after the first (a slow shot delays only the
    // frames after it; Node's timers and Date.now() may disagree by 1 ms), and the first at once.
    assert.equal(first.timesMs.length, 8);
    first.timesMs.forEach((t, i) => assert.ok(t >= i * 100 - 1 && (i === 0 ? t < 100 : t > first.timesMs[i - 1]), `frame ${i} at ${t} ms: ${first.timesMs}`));
    const still = await capture(client, `${base}/still`, { frames: 8, intervalMs: 100 });
    const versus = await motion(client, first.files, still.files);
    assert.deepEqual([versus.motionStatus, versus.score, versus.reference.moves, versus.candidate.moves], ['compared', 0, true, false]);
    const stillOnly = await motion(client, still.files, still.files);
    assert.deepEqual([stillOnly.motionStatus, stillOnly.score], ['static', null]);
    // Two captures of one animation, the second later in its cycle (a wait and a wait action):
    // the changing patterns make every step change half the view, so they match exactly.
    const patterns = await capture(client, `${base}/patterns`, { frames: 8, intervalMs: 100 });
    const later = await capture(client, `${base}/patterns`, { frames: 8, intervalMs: 100, waitMs: 250, actions: [{ type: 'wait', ms: 50 }] });
    const twice = await motion(client, patterns.files, later.files);
    assert.deepEqual([twice.motionStatus, twice.score], ['compared', 100]);
    for (const side of [twice.reference, twice.candidate]) assert.deepEqual([side.signature, side.energy], [Array(7).fill(0.5), 0.5]);
    // Bad requests are refused before a browser opens.
    assert.deepEqual(await failure(client, 'capture_frames', { url: 'ftp://example.com/', frames: 2, intervalMs: 10 }), {
      toolError: 'url: only http:// and https:// pages can be checked, got "ftp://example.com/" (e.g. http://localhost:3000/)',
    });
    assert.deepEqual(await failure(client, 'capture_frames', { url: base, frames: 120, intervalMs: 5000 }), {
      toolError: 'frames × intervalMs is 600000 ms, above 60000; take fewer frames or a shorter interval',
    });
  }));
});

test('motion: capture_frames clip gives frames of the clip, showing only what is inside it', { skip }, async () => {
  await withPages((base) => withClient(async (client) => {
    // The still square sits at 0,90 and is 60 × 60; the clip takes it and 20 px of white below.
    const clipped = await capture(client, `${base}/still`, { frames: 2, intervalMs: 0, clip: { x: 0, y: 90, width: 60, height: 80 } });
    assert.equal(clipped.files.length, 2);
    for (const file of clipped.files) {
      const png = readPng(file);
      assert.deepEqual([png.width, png.height], [60, 80]);
      assert.deepEqual([png.pixel(0, 0), png.pixel(59, 59), png.pixel(30, 60), png.pixel(59, 79)], [BLUE, BLUE, WHITE, WHITE]);
    }
    assert.deepEqual(await failure(client, 'capture_frames', { url: `${base}/still`, frames: 1, intervalMs: 0, clip: { x: 0, y: 0, width: 0, height: 10 } }), {
      toolError: 'clip: x and y ≥ 0, width and height > 0',
    });
  }));
});

test('motion: capture_frames actions run before the frames, which show what they changed', { skip }, async () => {
  await withPages((base) => withClient(async (client) => {
    const at = (files, x, y) => files.map((file) => readPng(file).pixel(x, y));
    const url = `${base}/controls`;
    const untouched = await capture(client, url, { frames: 2, intervalMs: 0 });
    assert.deepEqual(at(untouched.files, 300, 10), [WHITE, WHITE]);
    assert.deepEqual(at(untouched.files, 250, 150), [[237, 237, 237], [237, 237, 237]]);
    const clicked = await capture(client, url, { frames: 2, intervalMs: 0, actions: [{ type: 'click', selector: '#go' }] });
    assert.deepEqual(at(clicked.files, 300, 10), [[220, 60, 60], [220, 60, 60]]);
    const hovered = await capture(client, url, { frames: 2, intervalMs: 0, actions: [{ type: 'hover', selector: '#spot' }] });
    assert.deepEqual(at(hovered.files, 250, 150), [[34, 34, 34], [34, 34, 34]]);
    assert.deepEqual(at(hovered.files, 300, 10), [WHITE, WHITE], 'hovering clicks nothing');
    // The same by viewport coordinates: the button's middle, the spot's middle.
    const clickedAt = await capture(client, url, { frames: 1, intervalMs: 0, actions: [{ type: 'click', x: 50, y: 20 }] });
    assert.deepEqual(at(clickedAt.files, 300, 10), [[220, 60, 60]]);
    const hoveredAt = await capture(client, url, { frames: 1, intervalMs: 0, actions: [{ type: 'hover', x: 250, y: 150 }] });
    assert.deepEqual(at(hoveredAt.files, 250, 150), [[34, 34, 34]]);
    assert.deepEqual(await failure(client, 'capture_frames', { url, frames: 1, intervalMs: 0, actions: [{ type: 'click' }] }), {
      toolError: 'actions[0]: use {"type": "click"|"hover", "selector": …}, {"type": "click"|"hover", "x": …, "y": …} or {"type": "wait", "ms": ≤ 20000}',
    });
    // A selector that finds nothing fails within the action's 5 s, naming the action; not after
    // the call's 30 s with the page blamed for loading slowly.
    const started = Date.now();
    assert.deepEqual(await failure(client, 'capture_frames', { url, frames: 1, intervalMs: 0, actions: [{ type: 'wait', ms: 1 }, { type: 'click', selector: '#stop' }] }), {
      toolError: `actions[1]: no element matches "#stop" on ${url} after 5000 ms; check the selector, or wait for the element first (waitMs or a wait action)`,
    });
    assert.ok(Date.now() - started < 15000, `${Date.now() - started} ms`);
    assert.deepEqual(await failure(client, 'capture_frames', { url, frames: 1, intervalMs: 0, actions: [{ type: 'hover', selector: 'head' }] }), {
      toolError: `actions[0]: "head" matches 1 element on ${url}, but none could be hovered within 5000 ms (hidden, disabled or covered by another element); pick the element a user would hover, or give x and y`,
    });
    const unreadable = await failure(client, 'capture_frames', { url, frames: 1, intervalMs: 0, actions: [{ type: 'click', selector: '#go[' }] });
    assert.match(unreadable.toolError, /^actions\[0\]: "#go\[" is not a selector Playwright can read \(page\.click: /);
    assert.deepEqual(await failure(client, 'capture_frames', { url, viewport: { width: 320, height: 240 }, frames: 1, intervalMs: 0, actions: [{ type: 'click', x: 400, y: 10 }] }), {
      toolError: 'actions[0]: the point (400, 10) is outside the 320×240 viewport; give x and y inside it',
    });
  }));
});

test('motion: capture_frames writes into outDir, returns the first and last frames as images, and waits for Flutter', { skip }, async () => {
  await withPages((base) => withClient(async (client) => {
    const outDir = path.join(root, 'my-frames');
    const result = await client.callTool({ name: 'capture_frames', arguments: { url: `${base}/still`, viewport: { width: 320, height: 240 }, frames: 3, intervalMs: 50, outDir: 'my-frames' } });
    assert.ok(!result.isError, result.content?.[0]?.text);
    const json = JSON.parse(result.content[0].text);
    assert.equal(json.outputDir, outDir, 'relative to the project root');
    assert.deepEqual(readdirSync(outDir), ['frame-000.png', 'frame-001.png', 'frame-002.png']);
    assert.deepEqual(result.content.map((block) => block.type), ['text', 'text', 'image', 'text', 'image']);
    assert.deepEqual([result.content[1].text, result.content[3].text], [
      `first frame: ${path.join(outDir, 'frame-000.png')} (320×240)`, `last frame: ${path.join(outDir, 'frame-002.png')} (320×240)`,
    ]);
    assert.deepEqual(Buffer.from(result.content[4].data, 'base64').subarray(16, 24), readFileSync(json.files[2]).subarray(16, 24), 'the last frame, 320 × 240');
    // A folder with files in it is never written into; nothing changes there.
    assert.deepEqual(await failure(client, 'capture_frames', { url: `${base}/still`, frames: 1, intervalMs: 0, outDir }), {
      toolError: `outDir ${outDir}: not empty; give a new or empty folder (frames are never written over other files)`,
    });
    assert.equal(readdirSync(outDir).length, 3);
    const plain = await client.callTool({ name: 'capture_frames', arguments: { url: `${base}/still`, frames: 2, intervalMs: 0, returnVisuals: false } });
    assert.equal(plain.content.length, 1, 'no images when returnVisuals is false');
    // A Flutter app: without waiting, the first frame is its loading page; with waitForFlutter,
    // the app.
    const early = await capture(client, `${base}/flutter`, { frames: 1, intervalMs: 0 });
    assert.deepEqual(readPng(early.files[0]).pixel(300, 200), WHITE);
    const ready = await capture(client, `${base}/flutter`, { frames: 1, intervalMs: 0, waitForFlutter: true });
    assert.deepEqual(readPng(ready.files[0]).pixel(300, 200), BLUE);
    const notFlutter = await failure(client, 'capture_frames', { url: `${base}/still`, frames: 1, intervalMs: 0, waitForFlutter: true });
    assert.match(notFlutter.toolError, /waitForFlutter: no Flutter view \(flutter-view or flt-glass-pane\) appeared on .* within 15 s; is it a Flutter web app\?/);
  }));
});

test('motion: capture_frames with frames 1 gives one still that compare_designs reads', { skip }, async () => {
  await withPages((base) => withClient(async (client) => {
    const one = await capture(client, `${base}/still`, { frames: 1, intervalMs: 5000 });
    assert.deepEqual(one.files, [path.join(one.outputDir, 'frame-000.png')]);
    // Taken at once: the interval only separates frames.
    assert.equal(one.timesMs.length, 1);
    assert.ok(one.timesMs[0] < 5000, `${one.timesMs}`);
    const png = readPng(one.files[0]);
    assert.deepEqual([png.width, png.height, png.pixel(30, 120), png.pixel(200, 120)], [320, 240, BLUE, WHITE]);
    const result = await client.callTool({ name: 'compare_designs', arguments: { reference: one.files[0], candidate: one.files[0], returnVisuals: false } });
    assert.ok(!result.isError, result.content[0].text);
    assert.equal(JSON.parse(result.content[0].text).overall, 100);
    assert.deepEqual(await failure(client, 'capture_frames', { url: `${base}/still`, frames: 0, intervalMs: 0 }), {
      toolError: 'frames: 0 is outside 1–120',
    });
  }));
});
