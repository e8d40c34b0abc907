// Tracing restyled elements to their CSS (issue 38): what a failing call pays to ask the live
// page which rules restyled its elements. Two pages, each approved and then restyled: the
// example shop's home page (its brand token changed, as the example plants it) and Python's
// stdtypes.html (1280×86,000, 16,000 elements; every link recoloured, so thousands of elements
// restyle and the trace stops at its bound). The matcher call is timed, then — with the page
// still open — the trace of the same elements on its own. A passing call has no trace step.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { REAL_PAGE_FILE, linkSightline } from './capture.mjs';

export const TRACE_TITLE = 'tracing restyled elements to their CSS on a failing call (example shop home, stdtypes.html)';

const CONFIG = `import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: '.', testMatch: 'trace.spec.mjs', outputDir: './test-results', workers: 1, retries: 0, reporter: 'line',
  timeout: 300000,
  use: { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1,
    launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' } },
  projects: [{ name: 'chromium' }],
});
`;

const spec = ({ pages, fixtures, realPage, out, root }) => `import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { test, expect } from 'sightline/playwright';
import { render } from ${JSON.stringify(pages)};
const require = createRequire(import.meta.url);
const { styleRules } = require(${JSON.stringify(path.join(fixtures, 'trace.js'))});
const variant = process.env.BENCH_VARIANT ?? 'original';
const css = readFileSync(${JSON.stringify(path.join(path.dirname(pages), 'styles.css'))});
let server;
test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/styles.css') return res.writeHead(200, { 'content-type': 'text/css' }).end(css);
    res.writeHead(200, { 'content-type': 'text/html' }).end(render(new URL(req.url, 'http://x').pathname, variant));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
});
test.afterAll(() => server.close());
const timings = existsSync(${JSON.stringify(out)}) ? JSON.parse(readFileSync(${JSON.stringify(out)}, 'utf8')) : {};

/** Times the call, then the trace of the elements its evidence traced, on the open page. */
async function timed(page, name) {
  const started = performance.now();
  await expect(page).toMatchVisual(name, { timeout: 120000, fullPage: true }).catch(() => {});
  const matcherMs = performance.now() - started;
  const evidence = JSON.parse(readFileSync(path.join(${JSON.stringify(root)}, '.sightline', 'temp', name, 'chromium.json'), 'utf8'));
  const trace = evidence.layers.dom?.styleTrace;
  if (!trace) return { matcherMs, traced: 0, restyled: evidence.layers.dom?.styleChanges?.count ?? 0 };
  const selectors = [...new Set(trace.changes.map((c) => c.selector))];
  const names = [...new Set(trace.changes.map((c) => c.property))];
  const at = performance.now();
  await styleRules(page, selectors, names);
  return { matcherMs, traceMs: performance.now() - at, traced: trace.traced, restyled: evidence.layers.dom.styleChanges.count };
}

test('shop', async ({ page }) => {
  await page.goto(\`http://127.0.0.1:\${server.address().port}/\`);
  timings.shop = await timed(page, 'shop');
  writeFileSync(${JSON.stringify(out)}, JSON.stringify(timings));
});

test('stdtypes', async ({ page }) => {
  await page.goto(${JSON.stringify(realPage)});
  if (variant === 'changed') await page.addStyleTag({ content: 'a { color: #b91c1c !important; }' });
  timings.stdtypes = await timed(page, 'stdtypes');
  writeFileSync(${JSON.stringify(out)}, JSON.stringify(timings));
});
`;

/** `{ shop, stdtypes, passing }` (each `{ matcherMs, traceMs, traced, restyled }`), `{ missing }` or `{ error }`. */
export function traceGroup({ root, workDir, chromiumPath, addon }) {
  if (addon.missing) return { missing: addon.missing };
  if (!existsSync(REAL_PAGE_FILE)) return { missing: `no ${REAL_PAGE_FILE}: apt-get install -y --no-install-recommends python3-doc (scripts/setup.sh does)` };
  const projectDir = path.join(workDir, 'trace-project');
  const sightlineRoot = path.join(projectDir, 'sightline-root');
  mkdirSync(projectDir, { recursive: true });
  rmSync(sightlineRoot, { recursive: true, force: true });
  mkdirSync(sightlineRoot, { recursive: true });
  writeFileSync(path.join(projectDir, 'playwright.config.mjs'), CONFIG);
  const out = path.join(projectDir, 'timings.json');
  writeFileSync(
    path.join(projectDir, 'trace.spec.mjs'),
    spec({
      pages: path.join(root, 'examples', 'shop', 'site', 'pages.mjs'),
      fixtures: path.join(root, 'playwright-fixtures'),
      realPage: pathToFileURL(REAL_PAGE_FILE).href,
      out,
      root: sightlineRoot,
    }),
  );
  linkSightline(projectDir, root);
  const cli = path.join(root, 'node_modules', '@playwright', 'test', 'cli.js');
  const playwright = (args, variant) =>
    spawnSync(process.execPath, [cli, 'test', '-c', path.join(projectDir, 'playwright.config.mjs'), ...args], {
      cwd: root, encoding: 'utf8', maxBuffer: 64 << 20,
      env: { ...process.env, SIGHTLINE_CHROMIUM: chromiumPath, SIGHTLINE_ROOT: sightlineRoot, BENCH_VARIANT: variant },
    });
  console.log('\ntrace: approving the shop and stdtypes.html, then restyling both …');
  const approved = playwright(['--update-snapshots=all'], 'original');
  if (approved.status !== 0) return { error: `the baseline run failed: ${approved.stdout.split('\n').slice(-5).join(' ')}` };
  rmSync(out, { force: true });
  playwright([], 'original');
  const passing = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : {};
  rmSync(out, { force: true });
  playwright([], 'changed');
  if (!existsSync(out)) return { error: 'the restyled run wrote no timings' };
  return { ...JSON.parse(readFileSync(out, 'utf8')), passing };
}

/** Prints the group: per page, what the trace cost and its share of the failing call. */
export function printTraceGroup(title, result) {
  console.log(`\n${title}`);
  if (result.missing || result.error) {
    console.log(`  ${result.missing ?? result.error}`);
    return;
  }
  for (const [label, r] of [['shop home', result.shop], ['stdtypes.html', result.stdtypes]]) {
    if (!r) continue;
    const share = r.traceMs === undefined ? '' : `, ${((r.traceMs / r.matcherMs) * 100).toFixed(1)} % of`;
    console.log(
      `  ${label}: ${r.restyled.toLocaleString('en')} restyled, ${r.traced} traced in ${r.traceMs?.toFixed(0) ?? '–'} ms${share} the failing matcher call (${r.matcherMs.toFixed(0)} ms)`,
    );
  }
  const asked = Object.values(result.passing ?? {}).map((r) => r.traced);
  if (asked.length) console.log(`  unchanged: ${asked.every((n) => n === 0) ? 'no trace step (0 elements traced)' : `traced ${asked.join(', ')} — a passing call must not trace`}`);
}
