'use strict';
// Which prebuilt platform package fits this machine, and the message when none does.
//
// Shared by the bin shim (the `sightline` executable) and the addon entry (the `.node` file): both
// live in one platform package per target, named `sightline-<platform>` like napi-rs names them,
// and listed in the published package.json's optionalDependencies so npm installs only the one
// that matches (their package.json `os`, `cpu` and `libc` fields).

const fs = require('node:fs');
const path = require('node:path');

const PACKAGE_PREFIX = 'sightline-';

/** Linux builds differ by C library; Node reports glibc's version only when it runs on glibc. */
function linuxLibc() {
  const header = process.report?.getReport?.().header;
  return header?.glibcVersionRuntime ? 'gnu' : 'musl';
}

/** napi-rs's platform name for this machine, e.g. `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`. */
function currentPlatform() {
  const { platform, arch } = process;
  if (platform === 'linux') return `linux-${arch}-${arch === 'arm' ? 'gnueabihf' : linuxLibc()}`;
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/**
 * The platforms with a prebuilt package: the published package lists them as optionalDependencies
 * (written by scripts/release.mjs); a source checkout has their folders under npm/ instead.
 */
function supportedPlatforms() {
  const manifest = require(path.join(__dirname, '..', 'package.json'));
  const published = Object.keys(manifest.optionalDependencies ?? {}).filter((name) => name.startsWith(PACKAGE_PREFIX));
  if (published.length) return published.map((name) => name.slice(PACKAGE_PREFIX.length));
  return fs.readdirSync(__dirname, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(__dirname, entry.name, 'package.json')))
    .map((entry) => entry.name);
}

/** The platform package's name for this machine. */
function platformPackage() {
  return `${PACKAGE_PREFIX}${currentPlatform()}`;
}

/**
 * The directory of this machine's installed platform package, or null when it is not installed.
 * Resolved from the root package so npm's hoisting and pnpm's nesting both work.
 */
function platformPackageDir() {
  try {
    return path.dirname(require.resolve(`${platformPackage()}/package.json`, { paths: [path.join(__dirname, '..')] }));
  } catch {
    return null;
  }
}

/** Why nothing can run here, and what to do: names this machine and the supported platforms. */
function missingPlatformMessage(what) {
  const here = currentPlatform();
  const supported = supportedPlatforms();
  const head = supported.includes(here)
    ? `sightline: the ${what} for ${here} should come from the package ${platformPackage()}, which is not installed. `
      + 'npm skips optional dependencies when they are omitted (--omit=optional) or after a lockfile made on '
      + `another platform: reinstall with \`npm install --include=optional\`, or \`npm install -D ${platformPackage()}\`.`
    : `sightline: no prebuilt ${what} for ${here}; prebuilt platforms: ${supported.join(', ') || 'none'}.`;
  return `${head}\nTo build from source (Rust ≥ 1.88 and Node ≥ 18), see "Building from source" in sightline's README.md.`;
}

module.exports = { currentPlatform, supportedPlatforms, platformPackage, platformPackageDir, missingPlatformMessage };
