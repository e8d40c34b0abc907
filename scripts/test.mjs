// `npm test`: every Rust test (unit, integration, CLI end-to-end), then every JS test.
// One entry point so a developer and CI run exactly the same thing.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

function run(cmd, args) {
  console.error(`\n> ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// Fresh machine: install Chromium and the npm packages (no-op when present).
run('bash', ['scripts/setup.sh']);
// The addon first: the JS tests load it, and napi's build must precede cargo's (see TOOLCHAIN).
run('npm', ['run', '--silent', 'build:addon']);
// napi just regenerated the loader (index.js, index.d.ts): it must be the committed one, or the
// package would ship code nobody reviewed. A developer mid-change gets a warning, CI a failure.
const drift = spawnSync('git', ['diff', '--quiet', 'HEAD', '--', 'index.js', 'index.d.ts'], { cwd: root });
if (drift.status === 1) {
  const message = 'the generated loader (index.js, index.d.ts) differs from the committed one; commit it';
  if (process.env.CI) {
    console.error(`npm test: ${message}`);
    process.exit(1);
  }
  console.error(`warning: ${message}`);
}
run('cargo', ['test', '--workspace', '--release']);
// Style gates CI enforces (STYLE rule 12): formatted, and no clippy warning anywhere.
run('cargo', ['fmt', '--all', '--', '--check']);
run('cargo', ['clippy', '--workspace', '--all-targets', '--release', '--', '-D', 'warnings']);

const jsTests = existsSync(join(root, 'tests'))
  ? readdirSync(join(root, 'tests')).filter((f) => f.endsWith('.test.mjs')).map((f) => join('tests', f))
  : [];
// One file at a time: each file runs its own Playwright suites and Chromium, and two at once on a
// 2-core machine would slow each other into their safety-net timeouts.
if (jsTests.length > 0) run(process.execPath, ['--test', '--test-concurrency=1', ...jsTests]);
