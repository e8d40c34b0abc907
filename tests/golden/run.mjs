// What tests/golden.test.mjs, tests/mcp.test.mjs and tests/review.test.mjs share: the bundled
// example run into a temp root of their own (never examples/shop, which a developer's `npm run
// example` rewrites), a Playwright run of the shop's suite, its about page captured again as one
// approval must hold, and the MCP client over stdio.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { binary, withMcp } from '../support/mcp.mjs';

export { binary };
export const repo = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
export const shop = path.join(repo, 'examples', 'shop');
export const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';

/** node:test's `skip` for the tests that drive Chromium; under CI a missing Chromium is an error. */
export const skipWithoutChromium = !existsSync(chromium) && `Chromium not found at ${chromium} (set SIGHTLINE_CHROMIUM)`;
if (skipWithoutChromium && process.env.CI) throw new Error(`${skipWithoutChromium}; CI must have it (npm test installs it)`);

/** A new temp folder under the real path of the temp dir (results.json records real paths). */
export function tempRoot(tag) {
  return mkdtempSync(path.join(realpathSync(tmpdir()), `sightline-${tag}-`));
}

/** A port nobody listens on now, so the shop's web server does not meet another run's. */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `node scripts/example.mjs` with its output in `root`; returns its stdout. */
export function runExample(root, port) {
  const run = spawnSync(process.execPath, ['scripts/example.mjs'], {
    cwd: repo,
    env: { ...process.env, SIGHTLINE_ROOT: root, PORT: String(port) },
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  return run.stdout;
}

/** The shop's suite once, output in `root`, against `variant` of the site. */
export function playwright(root, { variant, port, config = path.join(shop, 'playwright.config.mjs'), args = [] }) {
  const cli = path.join(repo, 'node_modules', '@playwright', 'test', 'cli.js');
  // Playwright's own output beside the rest, not in the shared examples/shop/test-results.
  const output = ['--output', path.join(root, 'test-results')];
  const run = spawnSync(process.execPath, [cli, 'test', '-c', config, ...output, ...args], {
    cwd: repo,
    env: { ...process.env, SIGHTLINE_ROOT: root, EXAMPLE_VARIANT: variant, PORT: String(port) },
    encoding: 'utf8',
  });
  return { status: run.status, output: run.stdout + run.stderr };
}

/**
 * Writes `<root>/playwright.config.mjs`: the shop's suite under two projects with the same
 * settings (`chromium`, `chromium-copy`), so each planted change happens twice and the two
 * catalogue page shifts form a group. Returns the config's path.
 */
export function twoProjectConfig(root) {
  const config = path.join(root, 'playwright.config.mjs');
  writeFileSync(
    config,
    `import shop from ${JSON.stringify(path.join(shop, 'playwright.config.mjs'))};\n` +
      `export default { ...shop, testDir: ${JSON.stringify(path.join(shop, 'tests'))}, ` +
      `webServer: { ...shop.webServer, cwd: ${JSON.stringify(shop)} }, projects: [{ name: 'chromium' }, { name: 'chromium-copy' }] };\n`,
  );
  return config;
}

const addon = () => createRequire(import.meta.url)('../../addon.js');

/**
 * The run's about page (chromium) captured again in `root` as the matcher records it, showing its
 * baseline's pixels, with `fields` added to the addon's capture input. Returns its evidence.
 */
function captureAboutAgain(root, fields) {
  const screenshot = readFileSync(path.join(root, '.sightline', 'baselines', 'about', 'chromium.png'));
  return addon().compareCaptureSync({ root, name: 'about', project: 'chromium', screenshot, updateSnapshots: 'none', ...fields }).evidence;
}

/**
 * The about page captured again with a font that failed to load (the same pixels, unhealthy),
 * then `sightline compare`. Returns the verdict that holds it from approval.
 */
export function captureAboutUnhealthy(root) {
  const font = { kind: 'font', url: 'http://127.0.0.1/brand.woff2', detail: 'HTTP 404' };
  assert.equal(captureAboutAgain(root, { failures: [font] }).verdictKind, 'unhealthy');
  const compare = spawnSync(binary, ['--root', root, 'compare'], { encoding: 'utf8' });
  assert.equal(compare.status, 1, compare.stdout + compare.stderr);
  return "Unhealthy capture: font http://127.0.0.1/brand.woff2: HTTP 404; fix the page's assets and never approve this capture as a baseline";
}

/**
 * The about page shot until the time was up, its last two shots (home's pixels, then its own)
 * still differing; then the reporter's results. Returns the verdict that holds it from approval.
 */
export function captureAboutUnsettled(root) {
  const home = readFileSync(path.join(root, '.sightline', 'baselines', 'home', 'chromium.png'));
  const evidence = captureAboutAgain(root, { unsettledAfter: home, waitedMs: 1500 });
  assert.equal(evidence.verdictKind, 'unstable');
  assert.match(evidence.verdict, /^Unstable page: two consecutive screenshots never matched within 1500 ms; .* never approve this capture as a baseline$/);
  addon().writeResultsSync({ root });
  return evidence.verdict;
}

/** Runs `fn(client)` with an MCP client on `sightline --root root mcp ...flags`, then closes it. */
export const withClient = (root, flags, fn) => withMcp({ root, flags }, fn);

/** The one text block of a successful tool answer. */
export async function callText(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  assert.ok(!result.isError, `${name} failed: ${result.content?.[0]?.text}`);
  assert.equal(result.content.length, 1, `${name} answers with one text block`);
  return result.content[0].text;
}

/** Width and height from a base64 PNG's IHDR (bytes 16..24). */
export function pngSize(data) {
  const bytes = Buffer.from(data, 'base64');
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}
