// The "capture in a Playwright test" bench, run by bench/lib/capture.mjs inside Playwright Test
// (matchers only exist there). Copied into bench/.work/capture-project/ with its config.
//
// One test loads the bench page once and then, on that same unchanged page:
// - phase "baseline" (run with --update-snapshots=all): writes both matchers' baselines;
// - phase "measure" (run with --update-snapshots=none, so a missing baseline fails instead of
//   being written silently): one untimed warm-up call per tool, then BENCH_CAPTURE_RUNS rounds in
//   which every tool runs once, in an order that changes each round (bench/lib/measure.mjs's
//   roundOrder, copied beside this spec; toHaveScreenshot's rounds come first, apart), timed
//   with performance.now() around the single call — browser and worker start-up are not part
//   of any number. The samples go to BENCH_CAPTURE_OUT as JSON; capture.mjs takes
//   the medians and prints them.
import { createReadStream, renameSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

// `sightline/playwright` resolves through node_modules/sightline, a link to the repo that
// capture.mjs creates (bench/package.json would otherwise hide the repo's self-reference).
import { expect, test } from 'sightline/playwright';

import { roundOrder } from './measure.mjs';

const require = createRequire(import.meta.url);
// The same module instances the matcher uses (resolved next to it), so the step-by-step
// breakdown below runs exactly the code toMatchVisual runs.
const fixturesDir = path.dirname(require.resolve('sightline/playwright'));
const { capture, walkOptions } = require(path.join(fixturesDir, 'capture.js'));
const { attachOutcome, writeAttachments } = require(path.join(fixturesDir, 'attachments.js'));
const { prepareForCapture, restoreAfterCapture } = require(path.join(fixturesDir, 'stabilise.js'));
const { screenshot } = require(path.join(fixturesDir, 'screenshot.js'));
const { collectDom } = require(path.join(fixturesDir, 'collector.js'));
const addon = require('sightline');

const PHASE = process.env.BENCH_CAPTURE_PHASE;
const RUNS = Number(process.env.BENCH_CAPTURE_RUNS);
// toHaveScreenshot's own rounds: on the real page each takes ~17 s, and its median only sets the
// scale of a target far from the line.
const APART_RUNS = Number(process.env.BENCH_CAPTURE_APART_RUNS || RUNS);
const WIDTH = Number(process.env.BENCH_PAGE_WIDTH);
// The synthetic page's height is known and checked; a real page (BENCH_CAPTURE_SITE) is as tall
// as it renders, measured after load.
let HEIGHT = Number(process.env.BENCH_PAGE_HEIGHT || 0);
const NAME = 'bench-page';

/** Width and height from a PNG's IHDR chunk: enough to check a capture is the whole page. */
function pngSize(png) {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** Throws unless `png` is the full page; returns a note for the table. */
function checkFullPage(png, what) {
  const { width, height } = pngSize(png);
  if (width !== WIDTH || height !== HEIGHT) throw new Error(`${what} captured ${width}×${height}, expected the full page ${WIDTH}×${HEIGHT}`);
  return `${width}×${height} PNG, ${(png.length / 1e6).toFixed(1)} MB`;
}

/**
 * One toMatchVisual call split into its steps and timed one by one: the matcher's own capture
 * loop (playwright-fixtures/capture.js) driving a capture session opened as the matcher opens
 * one, with its `lap` hook timing each part; then the attachments and the session's close, as
 * the matcher finishes a call. Returns the time of each kind of step (summed over the call) and,
 * in `sequence`, every step in order.
 */
async function sessionSteps(page, testInfo, { expectPass }) {
  const root = path.resolve(process.env.SIGHTLINE_ROOT);
  const steps = {};
  const sequence = [];
  let mark = performance.now();
  let dom;
  let shot;
  const lap = (step, detail) => {
    const now = performance.now();
    steps[step] = (steps[step] ?? 0) + now - mark;
    sequence.push([step, now - mark]);
    mark = now;
    dom = detail?.dom ?? dom;
    shot = detail?.shot ?? shot;
  };
  const session = new addon.CaptureSession({
    root,
    name: NAME,
    project: testInfo.project.name,
    updateSnapshots: 'none',
    runId: `bench-${process.pid}`,
    testId: `${testInfo.testId}-steps`,
    testFile: 'capture.spec.mjs',
    testTitlePath: [testInfo.title],
  });
  const first = session.start();
  lap('openSession');
  // As the matcher finishes a call: the output files written while the page is put back and
  // attached, then the capture and evidence (written on a thread since the call was decided)
  // waited for.
  const renamed = (attachments) => attachments.map((a) => ({ ...a, name: `steps-${a.name}` }));
  let written;
  const outcome = await capture(page, page, session, first, {
    lap,
    decided: (decision) => { written = writeAttachments(testInfo, renamed(decision.attachments)); },
  });
  await attachOutcome(testInfo, renamed(outcome.attachments), written);
  lap('attach');
  await session.close();
  lap('close');
  if (outcome.pass !== expectPass) throw new Error(`the session's outcome: ${outcome.message}`);
  const record = dom === undefined ? undefined : JSON.parse(dom);
  const info = {
    walked: record !== undefined,
    ...(record === undefined ? {} : {
      domBytes: Buffer.byteLength(dom),
      domElements: record.elements.length,
      styleProperties: record.styleProperties.length,
    }),
    pngBytes: shot.length,
    status: outcome.status,
  };
  return { steps, sequence, info, note: checkFullPage(shot, 'toMatchVisual\'s screenshot') };
}

function tools(page, cdp, testInfo) {
  return [
    {
      name: 'toHaveScreenshot({ fullPage: true })',
      kind: 'anchor',
      // Its rounds run before the others' (see the rounds below).
      apart: true,
      // An explicit name, so every call checks the one baseline (unnamed calls in one test get
      // numbered names, i.e. a new baseline each). Otherwise the call the brief asks for.
      run: async () => {
        await expect(page).toHaveScreenshot(`${NAME}.png`, { fullPage: true });
        return { note: 'shot + compare with the baseline PNG (in Playwright)' };
      },
    },
    {
      name: `toMatchVisual('${NAME}')`,
      kind: 'ours',
      run: async () => {
        await expect(page).toMatchVisual(NAME);
        return { note: 'one shot; its bytes are the baseline\'s, so no walk and no decode' };
      },
    },
    {
      name: 'page.screenshot({ fullPage: true })',
      kind: 'reference',
      run: async () => ({ note: checkFullPage(await page.screenshot({ fullPage: true }), 'page.screenshot') }),
    },
    {
      name: 'CDP Page.captureScreenshot (optimizeForSpeed)',
      kind: 'reference',
      // Also run once, untimed, after toHaveScreenshot's rounds (see the rounds below).
      absorbs: true,
      // What a full-page capture needs over raw CDP: the content size (captureBeyondViewport
      // only lets the clip reach past the viewport, it does not pick the size), the capture,
      // and the base64 → bytes decode every caller of the protocol pays.
      run: async () => {
        const { cssContentSize } = await cdp.send('Page.getLayoutMetrics');
        const { data } = await cdp.send('Page.captureScreenshot', {
          format: 'png',
          captureBeyondViewport: true,
          optimizeForSpeed: true,
          clip: { x: 0, y: 0, width: cssContentSize.width, height: cssContentSize.height, scale: 1 },
        });
        return { note: `${checkFullPage(Buffer.from(data, 'base64'), 'CDP')}; incl. getLayoutMetrics + base64 decode` };
      },
    },
    {
      // Not a row of the main table: its per-step times are the breakdown of toMatchVisual.
      name: 'toMatchVisual, step by step',
      kind: 'steps',
      run: () => sessionSteps(page, testInfo, { expectPass: true }),
    },
  ];
}

/** Collects the heap (untimed) when the bench exposed gc: each call starts from a clean heap. */
const collect = () => globalThis.gc?.();

async function timeOnce(tool) {
  collect();
  const started = performance.now();
  const outcome = (await tool.run()) ?? {};
  return { ms: performance.now() - started, ...outcome };
}

/** First line of an error, without the ANSI colours expect() puts in its messages. */
const firstLine = (error) => String(error?.message ?? error).replace(/\x1b\[[0-9;]*m/g, '').trim().split('\n')[0];

/**
 * The failing toMatchVisual, last (it leaves the page changed): the page's first block (or
 * BENCH_CAPTURE_RECOLOUR) is recoloured, so the call fails against the baseline. Timed RUNS
 * times (the median is reported: one call's two shots alone vary by ±80 ms); counts the image
 * comparisons the engine ran for the first call in this worker — one decides the snapshot and
 * draws its diff image. Each call is followed by its floor (see `pageFloor`), so the two see the
 * same page and the same load.
 */
async function failingCall(page, testInfo) {
  await recolour(page);
  // The options the call resolves to, for its floor.
  const settings = addon.resolveSettings({ root: path.resolve(process.env.SIGHTLINE_ROOT) });
  const samples = [];
  const floors = [];
  let comparisons;
  let verdict;
  for (let run = 0; run < RUNS; run++) {
    const before = addon.comparisonsMade();
    collect();
    const started = performance.now();
    let failed = null;
    try {
      await expect(page).toMatchVisual(NAME);
    } catch (error) {
      failed = firstLine(error);
    }
    samples.push(performance.now() - started);
    comparisons ??= addon.comparisonsMade() - before;
    if (failed === null) return { error: 'the recoloured page passed toMatchVisual' };
    verdict ??= failed;
    collect();
    floors.push(await pageFloor(page, settings));
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
  // The same failing call again, step by step, for where its time goes.
  const { sequence } = await sessionSteps(page, testInfo, { expectPass: false });
  // `name` is the memory phase's for this call.
  return { name: FAILING, ms: median(samples), samples, floorMs: median(floors), floors, comparisons, verdict, sequence };
}

/** Recolours the page's first block (or BENCH_CAPTURE_RECOLOUR), so `toMatchVisual` fails. */
async function recolour(page) {
  // The bench page's first block is its header; a real page names what to recolour.
  const block = process.env.BENCH_CAPTURE_RECOLOUR || 'body > :first-child';
  await page.addStyleTag({ content: `${block} { background: #dc2626 !important; }` });
}

/** The name capture.mjs gives the memory phase of a failing call. */
const FAILING = `a failing toMatchVisual('${NAME}')`;

/**
 * The page's part of a failing call and nothing else: prepared, shot, walked for the DOM record
 * with the styles the call collects, shot again (the settling shot), put back — with the
 * matcher's own page code and the call's resolved `settings`, and no decode, comparison or file
 * of the engine's beside it. What a failing call cannot cost less than, whatever the engine does.
 */
async function pageFloor(page, settings) {
  const started = performance.now();
  await prepareForCapture(page, settings, { finish: settings.animations === 'disabled' });
  checkFullPage(await screenshot(page, page, settings), 'the floor\'s first shot');
  await collectDom(page, walkOptions(settings, settings.styleProperties));
  checkFullPage(await screenshot(page, page, settings), 'the floor\'s settling shot');
  await restoreAfterCapture(page);
  return performance.now() - started;
}

function writeAtomic(file, text) {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}

/**
 * Peak memory of this test process around one tool: a fresh worker per tool (capture.mjs runs
 * the phase once per tool), so the process's high-water mark is that tool's. Two calls, as in
 * the timed rounds the first call also loads the baseline. `FAILING` is `toMatchVisual` on the
 * page recoloured: both images decoded, compared, the diff image drawn.
 */
async function memoryPeak(page, testInfo) {
  const cdp = await page.context().newCDPSession(page);
  const failing = { name: FAILING, run: () => expect(page).toMatchVisual(NAME).then(() => { throw new Error('the recoloured page passed toMatchVisual'); }, () => {}) };
  const tool = [...tools(page, cdp, testInfo), failing].find((t) => t.name === process.env.BENCH_CAPTURE_ONLY);
  if (!tool) throw new Error(`BENCH_CAPTURE_ONLY names no tool: "${process.env.BENCH_CAPTURE_ONLY}"`);
  if (tool === failing) await recolour(page);
  const before = process.memoryUsage().rss;
  await tool.run();
  await tool.run();
  // resourceUsage().maxRSS is in KiB.
  return { tool: tool.name, rssBeforeBytes: before, peakRssBytes: process.resourceUsage().maxRSS * 1024 };
}

const TYPES = { '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript', '.png': 'image/png', '.svg': 'image/svg+xml', '.woff2': 'font/woff2' };

/**
 * Serves `folder` over HTTP on a free local port, as a test of a served site loads it (a `file:`
 * page is its own origin: the page cannot read its stylesheets). Resolves to the origin.
 */
async function serve(folder) {
  const server = http.createServer((req, res) => {
    const file = path.join(folder, path.normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    if (!file.startsWith(folder)) return res.writeHead(403).end();
    const stream = createReadStream(file);
    stream.on('open', () => {
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
      stream.pipe(res);
    });
    stream.on('error', () => res.writeHead(404).end());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${server.address().port}`;
}

test('capture', async ({ page }, testInfo) => {
  if (process.env.BENCH_CAPTURE_SITE) {
    // A real site, served: its stylesheets and images load from its own folder.
    const origin = await serve(process.env.BENCH_CAPTURE_SITE);
    await page.goto(`${origin}/${process.env.BENCH_CAPTURE_PATH}`, { waitUntil: 'load' });
  } else {
    // The page as bench/lib/render.mjs loads it: set, not served, then fonts settled.
    await page.setContent(readFileSync(process.env.BENCH_CAPTURE_PAGE, 'utf8'), { waitUntil: 'load' });
  }
  await page.evaluate(() => document.fonts.ready.then(() => true));
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  if (!HEIGHT) HEIGHT = height;
  if (height !== HEIGHT) throw new Error(`the bench page is ${height} px tall here, expected ${HEIGHT}`);

  if (PHASE === 'baseline') {
    await expect(page).toHaveScreenshot(`${NAME}.png`, { fullPage: true });
    await expect(page).toMatchVisual(NAME);
    return;
  }
  if (PHASE === 'memory') {
    writeAtomic(process.env.BENCH_CAPTURE_OUT, JSON.stringify({ height, ...(await memoryPeak(page, testInfo)) }));
    return;
  }
  if (PHASE !== 'measure') throw new Error(`BENCH_CAPTURE_PHASE must be baseline, measure or memory, got "${PHASE}"`);

  const cdp = await page.context().newCDPSession(page);
  const all = tools(page, cdp, testInfo);
  const results = {};
  // Warm-up: loads lazy code on both sides of the protocol and checks every tool works; a tool
  // that throws is reported as its error and left out of the rounds, the others still run.
  for (const tool of all) {
    try {
      const warm = await timeOnce(tool);
      results[tool.name] = { kind: tool.kind, samples: [], note: warm.note, info: warm.info, steps: warm.steps ? [] : undefined };
    } catch (error) {
      results[tool.name] = { kind: tool.kind, error: firstLine(error) };
    }
  }
  const live = all.filter((tool) => !results[tool.name].error);
  const timeRound = async (tool, round) => {
    const result = results[tool.name];
    if (result.error) return;
    try {
      const { ms, steps } = await timeOnce(tool);
      result.samples.push(ms);
      if (steps) result.steps.push(steps);
    } catch (error) {
      result.error = `round ${round + 1}: ${firstLine(error)}`;
    }
  };
  // toHaveScreenshot's rounds come first, apart from the others': any call right after it ran
  // 600–900 ms slower on the real page (ours and the CDP capture alike, even after a pause of
  // 1.5 s; it had just freed 2.2 GB), and a few rounds of a balanced order cannot spread that
  // evenly. An untimed CDP capture after them takes what it leaves behind (one call does).
  const apart = live.filter((tool) => tool.apart);
  const rest = live.filter((tool) => !tool.apart);
  for (let round = 0; round < APART_RUNS; round++) {
    for (const tool of apart) await timeRound(tool, round);
  }
  await rest.find((tool) => tool.absorbs)?.run();
  for (let round = 0; round < RUNS; round++) {
    for (const index of roundOrder(rest.length, round)) await timeRound(rest[index], round);
  }
  writeAtomic(process.env.BENCH_CAPTURE_OUT, JSON.stringify({
    browser: page.context().browser()?.version(),
    height,
    runs: RUNS,
    tools: results,
    failing: await failingCall(page, testInfo),
  }, null, 2));
});
