// `npm run release`: builds Sightline, fills the platform packages and packs the npm tarballs.
//
//   node scripts/release.mjs [--skip-build] [--out DIR]
//
// 1. Versions: every platform package takes the root package.json's version, and the packed
//    root lists them at exactly that version, so `sightline@X` installs `sightline-<platform>@X`.
// 2. Build (unless --skip-build): the napi addon (which regenerates the loader index.js /
//    index.d.ts) and the `sightline` executable, both release.
// 3. The loader must equal the committed one: a drifted loader would ship code nobody reviewed.
// 4. Each platform package under npm/<platform>/ gets its `.node` addon and `sightline`
//    executable. This machine's platform comes from the build above; other platforms' files must
//    already be in their folder (copied from a CI build matrix), otherwise the script stops and
//    names what is missing.
// 5. `npm pack` writes sightline-<platform>-X.tgz for each platform and sightline-X.tgz to DIR
//    (default dist/), and prints their paths.
//
// Publishing needs registry credentials and is not done here: see docs/releasing.md.

import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(import.meta.url);
const { currentPlatform } = require('../npm/platform.js');

const USAGE = 'usage: node scripts/release.mjs [--skip-build] [--out DIR]';
const GENERATED_LOADER = ['index.js', 'index.d.ts'];

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

function run(cmd, args, options = {}) {
  console.error(`> ${cmd} ${args.join(' ')}`);
  const result = spawnSync(cmd, args, { cwd: ROOT, stdio: ['ignore', options.capture ? 'pipe' : 'inherit', 'inherit'], encoding: 'utf8', ...options });
  if (result.status !== 0) fail(`${cmd} ${args.join(' ')} failed (exit ${result.status})`);
  return result.stdout;
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Writes JSON the way npm does (2 spaces, final newline), through a temp file + rename. */
function writeJson(file, value) {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(temp, file);
}

/** The platform folders under npm/, each a package named `sightline-<folder>`. */
function platformPackages() {
  const dir = path.join(ROOT, 'npm');
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, 'package.json')))
    .map((entry) => ({ platform: entry.name, dir: path.join(dir, entry.name) }));
}

/** Step 1: one version everywhere; returns it. */
function syncVersions(packages) {
  const { version } = readJson(path.join(ROOT, 'package.json'));
  for (const { platform, dir } of packages) {
    const file = path.join(dir, 'package.json');
    const manifest = readJson(file);
    if (manifest.name !== `sightline-${platform}`) fail(`${file}: name must be "sightline-${platform}", found "${manifest.name}"`);
    if (manifest.version !== version) writeJson(file, { ...manifest, version });
  }
  return version;
}

/** Step 3: the loader napi just generated must be the committed one. */
function checkLoaderDrift() {
  if (!existsSync(path.join(ROOT, '.git'))) return;
  const result = spawnSync('git', ['diff', '--quiet', 'HEAD', '--', ...GENERATED_LOADER], { cwd: ROOT });
  if (result.status === 1) {
    fail(`the generated loader (${GENERATED_LOADER.join(', ')}) differs from the committed one: review \`git diff ${GENERATED_LOADER.join(' ')}\` and commit it`);
  }
}

/** Step 4: copies this machine's build into its platform package and checks every package is full. */
function fillPlatformPackages(packages) {
  const here = currentPlatform();
  for (const { platform, dir } of packages) {
    const files = readJson(path.join(dir, 'package.json')).files;
    const addon = `sightline.${platform}.node`;
    const executable = platform.startsWith('win32') ? 'sightline.exe' : 'sightline';
    if (platform === here) {
      const builtAddon = path.join(ROOT, addon);
      const builtExecutable = path.join(ROOT, 'target', 'release', executable);
      for (const file of [builtAddon, builtExecutable]) {
        if (!existsSync(file)) fail(`${path.relative(ROOT, file)} is not built: run without --skip-build`);
      }
      copyFileSync(builtAddon, path.join(dir, addon));
      copyFileSync(builtExecutable, path.join(dir, executable));
      chmodSync(path.join(dir, executable), 0o755);
    }
    const missing = files.filter((file) => !existsSync(path.join(dir, file)));
    if (missing.length) {
      fail(`npm/${platform} lacks ${missing.join(', ')}: build them on ${platform} (CI matrix) and copy them in, or remove npm/${platform} from this release`);
    }
  }
}

/** Step 5: packs one folder into `out`, returning the tarball's path. */
function pack(dir, out) {
  const json = run('npm', ['pack', '--json', '--pack-destination', out], { cwd: dir, capture: true });
  const [{ filename }] = JSON.parse(json);
  return path.join(out, filename);
}

/**
 * Step 5 for the root package: its published package.json lists the platform packages as
 * exact-version optionalDependencies. The repository's own package.json does not: `npm ci` here
 * would then demand lockfile entries for packages that exist only after publishing. So the
 * root's files (as `npm pack` selects them) are staged with the completed manifest and packed.
 */
function packRoot(packages, version, out) {
  const listing = JSON.parse(run('npm', ['pack', '--dry-run', '--json'], { capture: true }));
  const stage = mkdtempSync(path.join(tmpdir(), 'sightline-release-'));
  try {
    for (const { path: file, mode } of listing[0].files) {
      mkdirSync(path.join(stage, path.dirname(file)), { recursive: true });
      copyFileSync(path.join(ROOT, file), path.join(stage, file));
      chmodSync(path.join(stage, file), mode);
    }
    const manifest = readJson(path.join(ROOT, 'package.json'));
    const optionalDependencies = Object.fromEntries(packages.map(({ platform }) => [`sightline-${platform}`, version]));
    writeJson(path.join(stage, 'package.json'), { ...manifest, optionalDependencies });
    return pack(stage, out);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

function main() {
  const { values } = parseArgs({ options: { 'skip-build': { type: 'boolean', default: false }, out: { type: 'string', default: 'dist' }, help: { type: 'boolean', default: false } } });
  if (values.help) {
    console.error(USAGE);
    return;
  }
  const out = path.resolve(ROOT, values.out);
  const packages = platformPackages();
  if (!packages.length) fail('npm/ holds no platform package (npm/<platform>/package.json)');
  const version = syncVersions(packages);
  if (!values['skip-build']) {
    run('npm', ['run', '--silent', 'build:addon']);
    run('cargo', ['build', '--release', '-p', 'sightline-cli']);
  }
  checkLoaderDrift();
  fillPlatformPackages(packages);
  mkdirSync(out, { recursive: true });
  const tarballs = [...packages.map(({ dir }) => pack(dir, out)), packRoot(packages, version, out)];
  console.error(`release: sightline ${version} packed; publish the platform packages first, then sightline (docs/releasing.md)`);
  for (const tarball of tarballs) console.log(tarball);
}

main();
