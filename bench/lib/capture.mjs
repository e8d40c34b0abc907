// Capture in a Playwright test: toMatchVisual next to Playwright's own toHaveScreenshot on the
// bench page, with bare page.screenshot and raw CDP Page.captureScreenshot for reference.
//
// Matchers only exist inside Playwright Test, so this generates a small Playwright project in
// bench/.work/capture-project/ (config + spec from bench/lib/capture-project/, the page as HTML)
// and runs it twice with the repo's @playwright/test: once with --update-snapshots=all to write
// both matchers' baselines, then once to time the calls. The timing happens inside the spec,
// around each single `await expect(...)`, so process and browser start-up are not measured;
// the spec hands its samples back as JSON.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { median } from './measure.mjs';
import { PAGE_HEIGHT, PAGE_WIDTH, pageHtml } from './page.mjs';

const TEMPLATE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'capture-project');

export const CAPTURE_TITLE = 'capture in a Playwright test (1280×10000 page, unchanged, baseline present)';

/** Python's "Built-in Types" page from Debian's python3-doc: a real, very tall documentation page. */
export const REAL_PAGE_FILE = '/usr/share/doc/python3/html/library/stdtypes.html';
/** The folder python3-doc's site is served from. */
const REAL_SITE = '/usr/share/doc/python3/html';
export const REAL_PAGE_TITLE = 'capture in a Playwright test, a real docs page (Python\'s stdtypes.html from python3-doc served over HTTP, unchanged, baseline present)';

/**
 * Makes `sightline/playwright` resolve from the generated project. Inside the repo a package
 * can import itself by name, but only from files whose nearest package.json is the repo's own,
 * and for bench/.work/… that is bench/package.json. A node_modules/sightline link to the repo
 * makes the import resolve as it does in a user's project, to the same files (Node follows the
 * link to the real path, so the matcher and the addon load once).
 */
export function linkSightline(projectDir, root) {
  const modules = path.join(projectDir, 'node_modules');
  const link = path.join(modules, 'sightline');
  mkdirSync(modules, { recursive: true });
  const target = path.relative(modules, root);
  let current = null;
  try {
    current = lstatSync(link);
  } catch {
    // no link yet
  }
  // Only ever unlink a symlink here: never delete through it into the repo.
  if (current?.isSymbolicLink()) unlinkSync(link);
  else if (current) throw new Error(`${link} exists and is not a symlink; remove it by hand`);
  symlinkSync(target, link, 'dir');

  const resolved = createRequire(path.join(projectDir, 'capture.spec.mjs')).resolve('sightline/playwright');
  const expected = path.join(root, 'playwright-fixtures', 'index.js');
  if (resolved !== expected) throw new Error(`sightline/playwright resolves to ${resolved} from the capture project, expected ${expected}`);
}

/** Writes the project: config and spec from the templates, the page, a clean output area. */
function generateProject(projectDir, root) {
  mkdirSync(projectDir, { recursive: true });
  for (const file of ['playwright.config.mjs', 'capture.spec.mjs']) copyFileSync(path.join(TEMPLATE_DIR, file), path.join(projectDir, file));
  // The spec orders each round's tools as every group does.
  copyFileSync(path.join(TEMPLATE_DIR, '..', 'measure.mjs'), path.join(projectDir, 'measure.mjs'));
  writeFileSync(path.join(projectDir, 'page.html'), pageHtml('base'));
  // Baselines are written afresh each run (the page or the browser may have changed since).
  for (const dir of ['__screenshots__', 'sightline-root', 'test-results']) rmSync(path.join(projectDir, dir), { recursive: true, force: true });
  linkSightline(projectDir, root);
}

/** Runs the project's one test in `phase`; throws with Playwright's last lines when it fails. */
function runPlaywright(root, projectDir, phase, env) {
  const cli = path.join(root, 'node_modules', '@playwright', 'test', 'cli.js');
  const update = phase === 'baseline' ? 'all' : 'none';
  const result = spawnSync(process.execPath, [cli, 'test', '-c', path.join(projectDir, 'playwright.config.mjs'), `--update-snapshots=${update}`], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    // --expose-gc: the spec collects the heap before each timed call, so the garbage one tool
    // leaves (toHaveScreenshot's 2 GB of decoded rows on the real page) is not billed to the next.
    env: { ...process.env, ...env, BENCH_CAPTURE_PHASE: phase, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --expose-gc`.trim() },
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    const output = `${result.stdout}\n${result.stderr}`.replace(/\x1b\[[0-9;]*m/g, '').trim().split('\n').slice(-25).join('\n');
    throw new Error(`the capture project's ${phase} run failed (exit ${result.status}):\n${output}`);
  }
}

/** Files under `dir` with their sizes, for the note on what one capture writes. */
function filesUnder(dir, base = dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full, base) : [{ file: path.relative(base, full), bytes: statSync(full).size }];
  });
}

/**
 * Runs the capture group. Returns `{ tools: { [name]: { kind, medianMs, samples, note } |
 * { kind, error } }, steps: { [step]: { medianMs, samples } }, stepsTotal, info, browser,
 * stored, failing: { name, ms, samples, floorMs, floors, comparisons, verdict, sequence } | { error } }`, or `{ missing }` when the addon is not built (the matcher cannot load without it).
 */
export function captureGroup({ root, workDir, chromiumPath, runs, addon, realPage = false }) {
  if (addon.missing) return { missing: addon.missing };
  if (!existsSync(chromiumPath)) {
    throw new Error(`no Chromium at ${chromiumPath}: apt-get install -y --no-install-recommends chromium, or point SIGHTLINE_CHROMIUM at one`);
  }
  if (realPage && !existsSync(REAL_PAGE_FILE)) {
    return { missing: `no ${REAL_PAGE_FILE}: apt-get install -y --no-install-recommends python3-doc (scripts/setup.sh does)` };
  }
  const projectDir = path.join(workDir, realPage ? 'capture-real-project' : 'capture-project');
  const out = path.join(workDir, realPage ? 'capture-real-samples.json' : 'capture-samples.json');
  const sightlineRoot = path.join(projectDir, 'sightline-root');
  generateProject(projectDir, root);
  rmSync(out, { force: true });
  const env = {
    SIGHTLINE_CHROMIUM: chromiumPath,
    // Keeps Sightline's baselines and captures in the project folder, out of the repo.
    SIGHTLINE_ROOT: sightlineRoot,
    BENCH_CAPTURE_RUNS: String(runs),
    // On the real page a call's shot alone moves by ±15 % from round to round: every round of
    // the tools the targets compare, but three of toHaveScreenshot's (17 s each).
    BENCH_CAPTURE_APART_RUNS: String(realPage ? Math.min(runs, 3) : runs),
    BENCH_CAPTURE_PAGE: path.join(projectDir, 'page.html'),
    BENCH_CAPTURE_OUT: out,
    BENCH_PAGE_WIDTH: String(PAGE_WIDTH),
    // The real page is as tall as it renders; the spec measures and reports it.
    BENCH_PAGE_HEIGHT: realPage ? '' : String(PAGE_HEIGHT),
    // The real site is served over HTTP, as a test's app is, from its own folder.
    ...(realPage
      ? { BENCH_CAPTURE_SITE: REAL_SITE, BENCH_CAPTURE_PATH: path.relative(REAL_SITE, REAL_PAGE_FILE), BENCH_CAPTURE_ROUND_MS: '240000', BENCH_CAPTURE_RECOLOUR: 'h1' }
      : {}),
  };

  console.log(`\ncapture: writing both matchers' baselines in ${path.relative(process.cwd(), projectDir)} …`);
  runPlaywright(root, projectDir, 'baseline', env);
  console.log(`capture: timing ${runs} round${runs === 1 ? '' : 's'} inside Playwright Test …`);
  runPlaywright(root, projectDir, 'measure', env);
  const raw = JSON.parse(readFileSync(out, 'utf8'));
  // Each matcher's memory peak, in a fresh test process of its own (see memoryPeak in the spec).
  const memory = {};
  if (realPage) {
    // The matchers unchanged, then toMatchVisual failing (its name as the spec gives it).
    const failing = raw.failing?.name ? [raw.failing.name] : [];
    for (const name of [...Object.keys(raw.tools).filter((n) => ['anchor', 'ours'].includes(raw.tools[n].kind)), ...failing]) {
      console.log(`capture: memory peak of ${name} …`);
      runPlaywright(root, projectDir, 'memory', { ...env, BENCH_CAPTURE_ONLY: name });
      memory[name] = JSON.parse(readFileSync(out, 'utf8'));
    }
  }

  const tools = {};
  let stepRuns = null;
  let info = null;
  for (const [name, result] of Object.entries(raw.tools)) {
    if (result.kind === 'steps') {
      stepRuns = result;
      info = result.info ?? null;
      continue;
    }
    tools[name] = result.error
      ? { kind: result.kind, error: result.error }
      : { kind: result.kind, medianMs: median(result.samples), samples: result.samples, note: result.note };
  }

  // The breakdown: each step's own median, and the median of the per-call totals (a sum of
  // medians would not be the median of sums).
  let steps = null;
  let stepsTotal = null;
  if (stepRuns && !stepRuns.error && stepRuns.steps.length) {
    steps = {};
    for (const step of Object.keys(stepRuns.steps[0])) {
      const samples = stepRuns.steps.map((s) => s[step]);
      steps[step] = { medianMs: median(samples), samples };
    }
    stepsTotal = { medianMs: median(stepRuns.samples), samples: stepRuns.samples };
  }

  // What Sightline keeps on disk for the snapshot (baseline and the run's capture), for the
  // capture-artifact row of the spec: sizes next to the page's PNG.
  const stored = filesUnder(path.join(sightlineRoot, '.sightline'));
  return { browser: raw.browser, height: raw.height, memory, tools, steps, stepsTotal, stepsError: stepRuns?.error ?? null, info, stored, failing: raw.failing ?? null };
}
