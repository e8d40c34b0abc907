#!/usr/bin/env node
'use strict';
// `npx sightline …`: runs the native `sightline` executable from this machine's platform package.
//
// Small on purpose: it finds the binary, runs it with the terminal's own stdin/stdout/stderr and
// exits with its code. It never writes to stdout, because under `sightline mcp` stdout is the
// MCP channel and one stray byte breaks the client.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { platformPackageDir, missingPlatformMessage } = require('../npm/platform.js');

const EXECUTABLE = process.platform === 'win32' ? 'sightline.exe' : 'sightline';
const PACKAGE_ROOT = path.join(__dirname, '..');

/** The executable: `SIGHTLINE_BINARY` (development), the platform package, or a source checkout's build. */
function findBinary() {
  if (process.env.SIGHTLINE_BINARY) return process.env.SIGHTLINE_BINARY;
  const dir = platformPackageDir();
  if (dir) return path.join(dir, EXECUTABLE);
  // A clone of the repository after `cargo build --release -p sightline-cli`.
  const built = path.join(PACKAGE_ROOT, 'target', 'release', EXECUTABLE);
  return fs.existsSync(built) ? built : null;
}

const binary = findBinary();
if (!binary) {
  process.stderr.write(`${missingPlatformMessage('sightline executable')}\n`);
  process.exit(1);
}

// The MCP server's live-page tools start a Node browser worker shipped in this package: tell the
// binary where it is and which Node runs it.
const env = { ...process.env };
const worker = path.join(PACKAGE_ROOT, 'playwright-fixtures', 'worker.js');
if (!env.SIGHTLINE_WORKER && fs.existsSync(worker)) env.SIGHTLINE_WORKER = worker;
if (!env.SIGHTLINE_NODE) env.SIGHTLINE_NODE = process.execPath;

const result = spawnSync(binary, process.argv.slice(2), { stdio: 'inherit', env });
if (result.error) {
  const hint = result.error.code === 'ENOENT' ? ' (the file is missing; reinstall sightline)' : '';
  process.stderr.write(`sightline: could not run ${binary}: ${result.error.message}${hint}\n`);
  process.exit(1);
}
if (result.signal) {
  // Die the same way the binary did, so a shell or CI sees the signal, not a plain failure.
  process.kill(process.pid, result.signal);
}
process.exit(result.status ?? 1);
