// Install from the npm tarballs into a brand-new Playwright project, as a user would.
//
// `scripts/release.mjs --skip-build` packs the root package and this machine's platform package
// from the build `npm test` just made; a temp project outside the repository installs them (plus
// @playwright/test from the registry) and then, with nothing of the repository reachable:
// a spec using `expect(page).toMatchVisual()` passes, catches a planted change, `npx sightline
// compare` reports it, `npx sightline mcp` answers `tools/list` to the MCP SDK client, and
// `npx sightline review` serves its page and approves from it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const repo = new URL('..', import.meta.url).pathname;
const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const skip = !existsSync(chromium) && `Chromium not found at ${chromium} (set SIGHTLINE_CHROMIUM); the installed project's test needs it`;
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);

const playwrightVersion = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')).devDependencies['@playwright/test'];

let work;
let project;
let tarballs;

/** Runs a command in the temp project with the repository out of reach: no SIGHTLINE_* overrides. */
function inProject(cmd, args, extraEnv = {}, cwd = project) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SIGHTLINE_') && key !== 'NODE_PATH'));
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...env, SIGHTLINE_CHROMIUM: chromium, ...extraEnv }, timeout: 300_000 });
}

function output(result) {
  return `exit ${result.status}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

const SPEC = `
const { test, expect } = require('sightline/playwright');

test('home page', async ({ page }) => {
  const accent = process.env.ACCENT || '#2878dc';
  await page.setContent(\`
    <style>body { font: 16px sans-serif; margin: 0 } header { padding: 24px; background: #222; color: #fff }
      .buy { display: inline-block; margin: 24px; padding: 12px 20px; background: \${accent}; color: #fff }</style>
    <header>Installed shop</header><main><a class="buy">Buy now</a></main>\`);
  await expect(page).toMatchVisual('home');
});
`;

const CONFIG = `
const { defineConfig } = require('@playwright/test');
module.exports = defineConfig({
  testDir: '.',
  reporter: [['list'], ['sightline/reporter']],
  use: { viewport: { width: 480, height: 240 }, launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM } },
});
`;

before(async () => {
  if (skip) return;
  work = realpathSync(mkdtempSync(path.join(tmpdir(), 'sightline-install-')));
  const dist = path.join(work, 'dist');
  const release = spawnSync(process.execPath, [path.join(repo, 'scripts', 'release.mjs'), '--skip-build', '--out', dist], { cwd: repo, encoding: 'utf8' });
  assert.equal(release.status, 0, `release.mjs failed:\n${output(release)}`);
  tarballs = release.stdout.trim().split('\n');
  assert.deepEqual(tarballs.map((file) => path.basename(file)).sort(), readdirSync(dist).sort());

  project = path.join(work, 'project');
  mkdirSync(project);
  writeFileSync(path.join(project, 'package.json'), `${JSON.stringify({ name: 'fresh-playwright-project', private: true }, null, 2)}\n`);
  writeFileSync(path.join(project, 'playwright.config.js'), CONFIG);
  writeFileSync(path.join(project, 'home.spec.js'), SPEC);
  const install = inProject('npm', ['install', '--no-audit', '--no-fund', '--save-dev', ...tarballs, `@playwright/test@${playwrightVersion}`]);
  assert.equal(install.status, 0, `npm install of the tarballs failed:\n${output(install)}`);
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('install: the tarballs hold the package, the loader and one platform package with both binaries', { skip }, () => {
  const installed = path.join(project, 'node_modules');
  const platform = readdirSync(installed).filter((name) => name.startsWith('sightline-'));
  assert.deepEqual(platform, ['sightline-linux-x64-gnu']);
  assert.deepEqual(readdirSync(path.join(installed, platform[0])).sort(), ['README.md', 'package.json', 'sightline', 'sightline.linux-x64-gnu.node']);
  const manifest = JSON.parse(readFileSync(path.join(installed, 'sightline', 'package.json'), 'utf8'));
  assert.deepEqual(manifest.optionalDependencies, { 'sightline-linux-x64-gnu': manifest.version });
  // The root package carries no native file: those come only from the platform package.
  assert.ok(!readdirSync(path.join(installed, 'sightline')).some((name) => name.endsWith('.node')));
  const api = inProject(process.execPath, ['-e', "const s = require('sightline'); process.stdout.write(typeof s.compareCaptureSync + ' ' + typeof s.writeResultsSync)"]);
  assert.equal(api.stdout, 'function function', output(api));
});

test('install: toMatchVisual in the new project writes the baseline, passes, then fails on a planted change', { skip }, () => {
  const approve = inProject('npx', ['playwright', 'test', '--update-snapshots=all']);
  assert.equal(approve.status, 0, output(approve));
  // no project in the config: Playwright's unnamed project, stored as `default`
  assert.deepEqual(readdirSync(path.join(project, '.sightline', 'baselines', 'home')), ['default.png']);

  const same = inProject('npx', ['playwright', 'test']);
  assert.equal(same.status, 0, output(same));
  assert.match(same.stderr, /1 snapshot — 1 passed, 0 changed/);
  assert.doesNotMatch(same.stderr, /npx sightline review/, 'nothing to review, no pointer to the review page');

  const changed = inProject('npx', ['playwright', 'test'], { ACCENT: '#dc3c3c' });
  assert.equal(changed.status, 1, output(changed));
  // the failure is the matcher's verdict on the snapshot named in the spec, not the test's title
  assert.match(
    changed.stdout,
    /^ {4}Error: toMatchVisual\("home"\): Style-only change: set by \.buy in <style> added by script:2; 1 element restyled \(body > main > a\.buy\); background-color rgb\(40, 120, 220\) → rgb\(220, 60, 60\); real, not noise; confirm it was intended before approving$/m,
  );
  assert.match(changed.stderr, /1 snapshot — 0 passed, 1 changed/);
  assert.match(changed.stderr, /^sightline: review and approve in the browser: npx sightline review$/m);
});

test('install: npm i -D <clone> into a project with its own @playwright/test runs toMatchVisual with the runner\'s Playwright', { skip }, () => {
  // The README's other install path: the package is a symlink to this checkout, whose own
  // node_modules hold a second @playwright/test; the fixture must use the project's.
  const clone = path.join(work, 'from-clone');
  mkdirSync(clone);
  writeFileSync(path.join(clone, 'package.json'), `${JSON.stringify({ name: 'clone-install-project', private: true }, null, 2)}\n`);
  writeFileSync(path.join(clone, 'playwright.config.js'), CONFIG);
  writeFileSync(path.join(clone, 'home.spec.js'), SPEC);
  const run = (args, extraEnv) => inProject(args[0], args.slice(1), extraEnv, clone);
  const install = run(['npm', 'install', '--no-audit', '--no-fund', '--save-dev', repo, `@playwright/test@${playwrightVersion}`]);
  assert.equal(install.status, 0, `npm install of the clone failed:\n${output(install)}`);
  assert.ok(lstatSync(path.join(clone, 'node_modules', 'sightline')).isSymbolicLink(), 'npm links a folder dependency');
  const approve = run(['npx', 'playwright', 'test', '--update-snapshots=all']);
  assert.equal(approve.status, 0, output(approve));
  assert.doesNotMatch(approve.stdout + approve.stderr, /second time/);
  assert.deepEqual(readdirSync(path.join(clone, '.sightline', 'baselines', 'home')), ['default.png']);
  const same = run(['npx', 'playwright', 'test']);
  assert.equal(same.status, 0, output(same));
  assert.match(same.stderr, /1 snapshot — 1 passed, 0 changed/);
});

test('install: npx sightline compare reports the changed snapshot and exits 1', { skip }, () => {
  const compare = inProject('npx', ['sightline', 'compare']);
  assert.equal(compare.status, 1, output(compare));
  assert.match(compare.stdout, /^1 snapshot — 0 passed, 1 changed/m);
  // A run without named projects prints no empty brackets; a person is told how to approve.
  assert.match(compare.stdout, /^ {2}home \[changed\]: Style-only change: 1 element restyled \(body > main > a\.buy\); background-color rgb\(40, 120, 220\) → rgb\(220, 60, 60\); real, not noise; confirm it was intended before approving$/m);
  assert.match(compare.stdout, /^If this is intended: npx sightline approve home \(or run the tests with -u\)$/m);
  assert.ok(existsSync(path.join(project, 'visual-report', 'results.json')));
  const version = inProject('npx', ['sightline', '--version']);
  assert.equal(version.status, 0, output(version));
  assert.match(version.stdout, /^sightline \d+\.\d+\.\d+/);
});

test('install: npx sightline mcp answers tools/list to the MCP SDK client', { skip }, async () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SIGHTLINE_')));
  const transport = new StdioClientTransport({ command: 'npx', args: ['sightline', 'mcp'], cwd: project, env, stderr: 'pipe' });
  const client = new Client({ name: 'sightline-install-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['get_visual_results', 'explain_snapshot', 'get_diff', 'approve_snapshot']) assert.ok(names.includes(name), `${name} in ${names}`);
    const results = await client.callTool({ name: 'get_visual_results', arguments: {} });
    assert.ok(!results.isError, results.content?.[0]?.text);
    const text = results.content[0].text;
    assert.match(text, /^Sightline results \(.+\): 1 snapshot — 1 changed, 0 new, 0 passed \(0 auto-passed\); 0 missing baselines\.$/m);
    assert.match(text, /^- home \[changed\]: Style-only change: 1 element restyled \(body > main > a\.buy\); background-color rgb\(40, 120, 220\) → rgb\(220, 60, 60\); real, not noise; confirm it was intended before approving$/m);
  } finally {
    await client.close();
  }
});

test('install: npx sightline review serves the page and approves from it', { skip }, async () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SIGHTLINE_')));
  // Its own process group, so stopping it stops npx, the shim and the server under them.
  const child = spawn('npx', ['sightline', 'review'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let printed = '';
  child.stderr.on('data', (chunk) => (printed += chunk));
  try {
    const url = await new Promise((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        printed += chunk;
        const found = printed.match(/^sightline review: (http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/)$/m);
        if (found) resolve(found[1]);
      });
      child.on('exit', (code) => reject(new Error(`npx sightline review exited ${code}: ${printed}`)));
    });
    const page = await fetch(url);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<title>Sightline review — 1 to review<\/title>/);
    const results = html.match(/"results":"([0-9a-f]{32})"/)[1];
    // The snapshot as the page names it (Playwright's unnamed project).
    const project = html.match(/data-name="home" data-project="([^"]*)"/)[1];
    const approve = await fetch(`${url}_/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: new URL(url).origin },
      body: JSON.stringify({ results, snapshots: [{ name: 'home', project }] }),
    });
    const answer = await approve.json();
    assert.equal(approve.status, 200, JSON.stringify(answer));
    assert.deepEqual(answer.commit, ['.sightline/baselines/home/default.png']);
  } finally {
    if (child.exitCode === null) process.kill(-child.pid);
  }
  // The approved capture is the baseline: the same run now passes.
  const compare = inProject('npx', ['sightline', 'compare']);
  assert.equal(compare.status, 0, output(compare));
  assert.match(compare.stdout, /^1 snapshot — 1 passed, 0 changed/m);
});

test('install: without a matching platform package both entry points name the platforms and the fix', { skip }, () => {
  // Another CPU, as Node would report it there: nothing prebuilt fits.
  const preload = path.join(work, 'riscv.cjs');
  writeFileSync(preload, "Object.defineProperty(process, 'arch', { value: 'riscv64' });\n");
  const shim = path.join(project, 'node_modules', 'sightline', 'bin', 'sightline.js');
  const bin = inProject(process.execPath, ['--require', preload, shim, 'list']);
  assert.equal(bin.status, 1, output(bin));
  assert.equal(bin.stdout, '', 'the shim never writes to stdout');
  assert.match(bin.stderr, /no prebuilt sightline executable for linux-riscv64-gnu; prebuilt platforms: linux-x64-gnu/);
  assert.match(bin.stderr, /Building from source/);

  // The right platform, but its optional package was left out (`--omit=optional`).
  rmSync(path.join(project, 'node_modules', 'sightline-linux-x64-gnu'), { recursive: true });
  const list = inProject('npx', ['sightline', 'list']);
  assert.equal(list.status, 1, output(list));
  assert.match(list.stderr, /should come from the package sightline-linux-x64-gnu, which is not installed/);
  assert.match(list.stderr, /npm install --include=optional/);
  const api = inProject(process.execPath, ['-e', "require('sightline')"]);
  assert.equal(api.status, 1, output(api));
  assert.match(api.stderr, /native addon for linux-x64-gnu should come from the package sightline-linux-x64-gnu/);
});
