// What the matcher suites share: the repository, Chromium (or why they skip), their temp
// folders, and Playwright runs read through its JSON reporter.
import { after } from 'node:test';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const repo = new URL('../..', import.meta.url).pathname;
export const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
export const skip = !existsSync(chromium) && `Chromium not found at ${chromium} (set SIGHTLINE_CHROMIUM)`;
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);

/** The calling file's temp folders, removed when it is done, passed or failed. */
export function tempFolders() {
  const temps = {
    made: [],
    make(prefix) {
      const dir = mkdtempSync(path.join(tmpdir(), prefix));
      this.made.push(dir);
      return dir;
    },
  };
  after(() => {
    for (const dir of temps.made) rmSync(dir, { recursive: true, force: true });
  });
  return temps;
}

/** `playwright test -c <config> …args` from the repository with `env` added. */
export function runPlaywright(config, args, env) {
  const cli = path.join(repo, 'node_modules', '@playwright', 'test', 'cli.js');
  const run = spawnSync(process.execPath, [cli, 'test', '-c', config, ...args], { cwd: repo, env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}

/** Every spec of a Playwright JSON report, however deeply its suites nest. */
export function specsOf(report) {
  return report.suites.flatMap(function all(suite) {
    return [...(suite.specs ?? []), ...(suite.suites ?? []).flatMap(all)];
  });
}

/**
 * A fresh project (a folder of `temps`) holding `spec` as `visual.spec.mjs`, resolving
 * Playwright and sightline from this checkout, with a Playwright config (`config` is merged in:
 * `retries`, `expect`) and, when given, `.sightline/config.json`.
 */
export function freshProject(temps, spec, { config = {}, sightline, prefix = 'sightline-contract-' } = {}) {
  const root = temps.make(prefix);
  mkdirSync(path.join(root, 'node_modules', '@playwright'), { recursive: true });
  symlinkSync(path.join(repo, 'node_modules', '@playwright', 'test'), path.join(root, 'node_modules', '@playwright', 'test'));
  for (const dep of ['playwright', 'playwright-core']) symlinkSync(path.join(repo, 'node_modules', dep), path.join(root, 'node_modules', dep));
  symlinkSync(repo, path.join(root, 'node_modules', 'sightline'));
  const settings = {
    testDir: '.',
    workers: 1,
    reporter: [['line'], ['json', { outputFile: 'report.json' }]],
    use: { viewport: { width: 320, height: 200 }, launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' } },
    projects: [{ name: 'chromium' }],
    ...config,
  };
  writeFileSync(
    path.join(root, 'playwright.config.mjs'),
    `import { defineConfig } from '@playwright/test';\nexport default defineConfig(${JSON.stringify(settings)});\n`,
  );
  writeFileSync(path.join(root, 'visual.spec.mjs'), `import { test, expect } from 'sightline/playwright';\n${spec}`);
  if (sightline) {
    mkdirSync(path.join(root, '.sightline'), { recursive: true });
    writeFileSync(path.join(root, '.sightline', 'config.json'), JSON.stringify(sightline));
  }
  return root;
}

/**
 * `playwright test …args` in `root`: exit code, output, each test's result statuses, its
 * attachments' names and its error messages (from the JSON report: Playwright's line reporter
 * leaves out the error of a test it expected to retry, and a test that is not retried is such a
 * test).
 */
export function run(root, args = [], env = {}) {
  const cli = path.join(repo, 'node_modules', '@playwright', 'test', 'cli.js');
  const child = spawnSync(process.execPath, [cli, 'test', ...args], { cwd: root, env: { ...process.env, SIGHTLINE_ROOT: '', ...env }, encoding: 'utf8' });
  const output = `${child.stdout}\n${child.stderr}`;
  const report = JSON.parse(readFileSync(path.join(root, 'report.json'), 'utf8'));
  const specs = specsOf(report);
  const results = Object.fromEntries(specs.map((s) => [s.title, s.tests[0].results.map((r) => r.status)]));
  const errors = Object.fromEntries(specs.map((s) => [s.title, s.tests[0].results.flatMap((r) => r.errors.map((e) => e.message)).join('\n')]));
  const attachments = Object.fromEntries(specs.map((s) => [s.title, s.tests[0].results.flatMap((r) => r.attachments.map((a) => a.name))]));
  return { status: child.status, output, results, errors, attachments, stats: report.stats };
}
