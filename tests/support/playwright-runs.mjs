// What the matcher suites share: the repository, Chromium (or why they skip), their temp
// folders, and Playwright runs read through its JSON reporter.
import { after } from 'node:test';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
