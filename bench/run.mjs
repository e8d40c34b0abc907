// `npm run bench`: Sightline's speed next to the tools it has to beat, measured in one run.
//
// Renders a realistic 1280×10000 shop page with Chromium (cached), then times in-memory
// compares, the memory-bandwidth floor, file-to-file CLIs and a capture inside a Playwright
// test (toMatchVisual next to toHaveScreenshot), and prints one table per group plus the
// targets of shared/spec/06-quality.md. Results also go to bench/.work/last.json.
// See bench/README.md for what each number means.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(BENCH_DIR);
const WORK_DIR = path.join(BENCH_DIR, '.work');

const GROUPS = ['memory', 'files', 'artifact', 'batch', 'dom', 'capture', 'realpage', 'rendering', 'trace', 'mcp'];

const USAGE = `usage: npm run bench -- [--runs N] [--only memory|files|artifact|batch|dom|capture|realpage|rendering|trace|mcp] [--fresh] [--build]
  --runs N    timed runs per tool and case; the median is reported (default 7; toHaveScreenshot at most 3 on the real page)
  --only G    run one group: memory, files, artifact, batch (sightline compare), dom, capture,
              realpage (Python's stdtypes.html from python3-doc), rendering (its classification
              across a rasteriser switch), trace (restyled elements traced to their CSS), mcp
  --fresh     render the screenshots again even if cached
  --build     run the repo's build scripts first so "ours" is the current code
env: SIGHTLINE_CHROMIUM  Chromium executable (default /usr/bin/chromium)`;

function options() {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '7' },
      only: { type: 'string' },
      fresh: { type: 'boolean', default: false },
      build: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got "${values.runs}"`);
  if (values.only && !GROUPS.includes(values.only)) throw new Error(`--only takes ${GROUPS.join(', ')}, got "${values.only}"`);
  return { ...values, runs };
}

/** The anchors live in bench/'s own package.json so the product never depends on them. */
function ensureAnchorsInstalled() {
  if (existsSync(path.join(BENCH_DIR, 'node_modules'))) return;
  console.log('installing the benchmark anchors into bench/node_modules …');
  const result = spawnSync('npm', ['install', '--prefix', BENCH_DIR, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm install --prefix bench failed; see the npm output above');
}

function chromiumPath() {
  return process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
}

/** Decodes every screenshot once with pngjs; 4-byte aligned so Uint32 views work for all tools. */
function decodeAll(PNG, files) {
  const images = {};
  for (const [name, file] of Object.entries(files)) {
    const { width, height, data } = PNG.sync.read(readFileSync(file));
    images[name] = { width, height, data: data.byteOffset % 4 === 0 ? data : Buffer.from(data) };
  }
  return images;
}

function describeMachine(chromium, runs) {
  const cpus = os.cpus();
  // The load average is printed because other work on the machine moves every millisecond;
  // the interleaved ratios hold up much better than the absolute times.
  const load = os.loadavg()[0].toFixed(1);
  console.log(`machine: ${cpus[0]?.model ?? 'unknown CPU'} × ${cpus.length}, load ${load}, Node ${process.version}, Chromium ${chromium}`);
  console.log(`medians of ${runs} run${runs === 1 ? '' : 's'} after one warm-up run; tools interleaved round by round`);
}

async function main() {
  const opts = options();
  // Which groups run: the capture group renders its own page inside Playwright Test, so a
  // capture-only run skips rendering and decoding the cached screenshots.
  const runs = (group) => !opts.only || opts.only === group;
  // The artifact, batch and MCP groups build their inputs from the cached screenshots.
  const needShots = runs('memory') || runs('files') || runs('artifact') || runs('batch') || runs('mcp');
  ensureAnchorsInstalled();
  // Imported after the install above: these modules import the anchors.
  const { PNG } = await import('pngjs');
  const { default: pixelmatch } = await import('pixelmatch');
  const { PAGE_HEIGHT, PAGE_WIDTH } = await import('./lib/page.mjs');
  const { screenshots } = await import('./lib/render.mjs');
  const { measureCase } = await import('./lib/measure.mjs');
  const { memoryGroups } = await import('./lib/memory.mjs');
  const { fileGroups } = await import('./lib/files.mjs');
  const { CAPTURE_TITLE, REAL_PAGE_TITLE, captureGroup } = await import('./lib/capture.mjs');
  const { buildOurs, findAddon, findCli } = await import('./lib/ours.mjs');
  const { MCP_TITLE, mcpGroup } = await import('./lib/mcp.mjs');
  const { ARTIFACT_TITLE, artifactGroup } = await import('./lib/artifact.mjs');
  const { BATCH_TITLE, batchGroup } = await import('./lib/batch.mjs');
  const { DOM_TITLE, domGroup } = await import('./lib/dom.mjs');
  const { RENDERING_TITLE, printRenderingGroup, renderingGroup } = await import('./lib/rendering.mjs');
  const { TRACE_TITLE, printTraceGroup, traceGroup } = await import('./lib/trace.mjs');
  const report = await import('./lib/report.mjs');
  const { captureFloorTargets, captureTarget, evaluateTargets, mcpTargets, printCaptureGroup, printGroup, printMcpGroup, printTargets } = report;

  mkdirSync(WORK_DIR, { recursive: true });
  if (opts.build) buildOurs(ROOT);
  const shots = needShots ? await screenshots(WORK_DIR, { chromiumPath: chromiumPath(), fresh: opts.fresh }) : null;
  describeMachine(shots?.chromium ?? chromiumPath(), opts.runs);

  const addon = findAddon(ROOT);
  // The CLI is only timed by the files and MCP groups; do not warn about it when they do not run.
  const cli = runs('files') || runs('batch') || runs('mcp') ? findCli(ROOT) : { missing: 'not run (--only)' };
  for (const warning of [addon.warning, cli.warning].filter(Boolean)) console.log(`warning: ${warning}`);

  const results = {};
  const measureGroups = (list) => {
    for (const group of list) {
      results[group.key] = {};
      for (const testCase of group.cases) results[group.key][testCase.name] = measureCase(group.tools, testCase, opts.runs);
      printGroup(group, results[group.key], group.key.startsWith('memory') ? addon.missing : cli.missing);
    }
  };
  // File to file first, while this process is small. Every tool there is a process spawned from
  // this one, and a spawn costs more the more memory this process holds: from the 1 GB it holds
  // after decoding the pages for the in-memory groups, `sightline diff` on identical files took
  // 85 ms instead of 48 here, the same ~37 ms added to every tool (a third of ours), which is
  // the harness's cost, not the tools'.
  const files = runs('files') ? fileGroups(shots.files, cli, WORK_DIR) : [];
  if (files.length) console.log(`(file to file: each tool spawned from this process, ${Math.round(process.memoryUsage().rss / 1048576)} MB resident)`);
  measureGroups(files);

  let page = null;
  let images = null;
  if (runs('memory')) {
    images = decodeAll(PNG, shots.files);
    const pixels = PAGE_WIDTH * PAGE_HEIGHT;
    const changed = (b) => pixelmatch(images.base.data, b.subarray(0, pixels * 4), null, PAGE_WIDTH, PAGE_HEIGHT, { threshold: 0.1 });
    page = {
      width: PAGE_WIDTH,
      height: PAGE_HEIGHT,
      shiftHeight: images.shift.height,
      recolourPercent: (100 * changed(images.recolour.data)) / pixels,
      shiftPercent: (100 * changed(images.shift.data)) / pixels,
    };
    console.log(`page ${page.width}×${page.height}; pixelmatch says recolour changes ${page.recolourPercent.toFixed(2)} % `
      + `of pixels, the banner shift ${page.shiftPercent.toFixed(2)} % of the top ${PAGE_HEIGHT} rows `
      + `(shift page is ${page.shiftHeight} px tall)`);
  }
  const memory = runs('memory') ? memoryGroups(images, addon, PAGE_HEIGHT) : [];
  measureGroups(memory);
  const groups = [...memory, ...files];

  const artifact = runs('artifact') ? await artifactGroup({ root: ROOT, file: shots.files.base, runs: opts.runs }) : null;
  if (artifact) report.printArtifactGroup(ARTIFACT_TITLE, artifact);
  // Each compare of 200 snapshots takes seconds: three interleaved rounds are enough.
  const batch = runs('batch') ? await batchGroup({ workDir: WORK_DIR, shots: shots.files, addon, cli, runs: Math.min(opts.runs, 3) }) : null;
  if (batch) report.printBatchGroup(BATCH_TITLE, batch);

  const dom = runs('dom') ? await domGroup({ root: ROOT, chromiumPath: chromiumPath(), runs: opts.runs, addon }) : null;
  if (dom) report.printDomGroup(DOM_TITLE, dom);

  // Last, so the page renders and the browser runs while nothing else of the bench does.
  const capture = runs('capture')
    ? captureGroup({ root: ROOT, workDir: WORK_DIR, chromiumPath: chromiumPath(), runs: opts.runs, addon })
    : null;
  if (capture) printCaptureGroup(CAPTURE_TITLE, capture);
  // A round on the 86000 px page takes ~20 s, toHaveScreenshot's ~17 s more: its shots move by
  // ±15 % from round to round, so it gets as many rounds as the shop page (toHaveScreenshot three).
  const realPage = runs('realpage')
    ? captureGroup({ root: ROOT, workDir: WORK_DIR, chromiumPath: chromiumPath(), runs: opts.runs, addon, realPage: true })
    : null;
  if (realPage) printCaptureGroup(`${REAL_PAGE_TITLE}${realPage.height ? `, 1280×${realPage.height}` : ''}`, realPage);
  const rendering = runs('rendering')
    ? renderingGroup({ root: ROOT, workDir: WORK_DIR, chromiumPath: chromiumPath(), runs: Math.min(opts.runs, 3), addon })
    : null;
  if (rendering) printRenderingGroup(RENDERING_TITLE, rendering);
  const trace = runs('trace') ? traceGroup({ root: ROOT, workDir: WORK_DIR, chromiumPath: chromiumPath(), addon }) : null;
  if (trace) printTraceGroup(TRACE_TITLE, trace);
  const mcp = runs('mcp') ? await mcpGroup({ workDir: WORK_DIR, shots: shots.files, addon, cli, runs: opts.runs }) : null;
  if (mcp) printMcpGroup(MCP_TITLE, mcp);

  // The pixel targets need both the memory and the files groups, so only a full run checks them.
  const targets = [
    ...(opts.only ? [] : evaluateTargets(groups, results)),
    ...(capture ? [captureTarget(capture), ...captureFloorTargets(capture, 'shop page')] : []),
    ...(realPage ? [captureTarget(realPage, { target: 'toMatchVisual on a real docs page ≤ 0.20× toHaveScreenshot (issue 18)', limit: 0.2 }), ...captureFloorTargets(realPage, 'real docs page')] : []),
    ...(artifact ? [report.artifactTarget(artifact)] : []),
    ...(batch ? [report.batchTarget(batch)] : []),
    ...(dom ? [report.domTarget(dom)] : []),
    ...(mcp ? mcpTargets(mcp) : []),
  ];
  if (targets.length) printTargets(targets);

  const last = {
    date: new Date().toISOString(),
    runs: opts.runs,
    machine: {
      cpu: os.cpus()[0]?.model,
      cores: os.cpus().length,
      loadAverage: os.loadavg()[0],
      node: process.version,
      chromium: shots?.chromium ?? capture?.browser ?? chromiumPath(),
    },
    page,
    ours: { addon: addon.missing ?? 'measured', cli: cli.missing ?? 'measured' },
    groups: [
      ...groups.map((g) => ({ key: g.key, title: g.title, results: results[g.key] })),
      ...(capture ? [{ key: 'capture', title: CAPTURE_TITLE, results: capture }] : []),
      ...(realPage ? [{ key: 'realpage', title: REAL_PAGE_TITLE, results: realPage }] : []),
      ...(artifact ? [{ key: 'artifact', title: ARTIFACT_TITLE, results: artifact }] : []),
      ...(batch ? [{ key: 'batch', title: BATCH_TITLE, results: batch }] : []),
      ...(dom ? [{ key: 'dom', title: DOM_TITLE, results: dom }] : []),
      ...(rendering ? [{ key: 'rendering', title: RENDERING_TITLE, results: rendering }] : []),
      ...(trace ? [{ key: 'trace', title: TRACE_TITLE, results: trace }] : []),
      ...(mcp ? [{ key: 'mcp', title: MCP_TITLE, results: mcp }] : []),
    ],
    targets,
  };
  writeFileSync(path.join(WORK_DIR, 'last.json'), `${JSON.stringify(last, null, 2)}\n`);
  console.log(`\nresults written to ${path.relative(process.cwd(), path.join(WORK_DIR, 'last.json'))}`);
}

main().catch((error) => {
  console.error(`bench failed: ${error.message}`);
  process.exit(1);
});
