// Finds Sightline's own pieces in the repo: the release CLI and the napi addon's loader.
//
// Either may be missing (not built yet, or a build that failed); the bench then measures the
// anchors alone and says why our rows are absent, instead of failing the whole run.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Newest modification time under `dir` among Rust sources and manifests (for staleness). */
function newestSource(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      // Tests and benches do not end up in the binary; editing them must not cry "stale".
      if (!['target', 'node_modules', 'tests', 'benches'].includes(entry.name)) newest = Math.max(newest, newestSource(full));
    } else if (entry.name.endsWith('.rs') || entry.name === 'Cargo.toml') {
      newest = Math.max(newest, statSync(full).mtimeMs);
    }
  }
  return newest;
}

function staleWarning(root, file) {
  const newest = Math.max(newestSource(path.join(root, 'crates')), statSync(path.join(root, 'Cargo.toml')).mtimeMs);
  return statSync(file).mtimeMs < newest
    ? `${path.relative(root, file)} is older than the Rust sources: run with --build to measure the current code`
    : null;
}

/**
 * Runs the repo's build scripts: `npm run build`, plus any script that runs `napi build` (the
 * addon and its `index.js` loader) that `build` does not already call.
 */
export function buildOurs(root) {
  const { scripts = {} } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const build = scripts.build ?? '';
  const addonScripts = Object.keys(scripts).filter((name) => name !== 'build'
    && /\bnapi build\b/.test(scripts[name]) && !build.includes(`npm run ${name}`));
  const names = [...(scripts.build ? ['build'] : []), ...addonScripts];
  if (!names.length) throw new Error('package.json has no build script to run for --build');
  for (const name of names) {
    console.log(`building: npm run ${name}`);
    const result = spawnSync('npm', ['run', name], { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`npm run ${name} failed (exit ${result.status}); fix the build or run without --build`);
  }
}

/** The CLI, `{ bin, warning }`, or `{ missing }` saying why it cannot be measured. */
export function findCli(root) {
  const bin = path.join(root, 'target', 'release', 'sightline');
  if (!existsSync(bin)) return { missing: 'target/release/sightline is not built (npm run build, or run the bench with --build)' };
  return { bin, warning: staleWarning(root, bin) };
}

/** The addon's exports and its `.node` file, `{ addon, file, warning }`, or `{ missing }` saying why it cannot be measured. */
export function findAddon(root) {
  const loader = path.join(root, 'index.js');
  if (!existsSync(loader)) return { missing: 'index.js (the napi addon loader) is not built yet' };
  let addon;
  try {
    addon = createRequire(import.meta.url)(loader);
  } catch (error) {
    return { missing: `index.js failed to load: ${error.message.split('\n')[0]}` };
  }
  if (typeof addon.comparePixelsSync !== 'function') return { missing: 'the addon exports no comparePixelsSync' };
  const binary = readdirSync(root).find((name) => name.endsWith('.node'));
  const file = binary ? path.join(root, binary) : loader;
  return { addon, file, warning: binary ? staleWarning(root, file) : null };
}
