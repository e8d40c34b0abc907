// Where a Playwright run's sightline files are and what kind of run it is, as the matcher (in
// each worker) and the reporter (in Playwright's main process) must both see it: the matcher
// writes captures under the project root the reporter gathers from, records each baseline's
// spec file as the reporter's ledger names it, and stores-only exactly when the reporter
// finishes a capture-only shard. One rule each, here.
'use strict';

const path = require('node:path');

/** The project root: where `.sightline/` lives. `SIGHTLINE_ROOT` when set, else the Playwright
 *  config's folder (its `rootDir` when the run has no config file). */
function projectRoot(config) {
  if (process.env.SIGHTLINE_ROOT) return path.resolve(process.env.SIGHTLINE_ROOT);
  return config.configFile ? path.dirname(config.configFile) : config.rootDir;
}

/** A spec file as every record names it: relative to the config's `rootDir`, with `/`, so it is
 *  the same on every checkout and platform. */
function specFile(config, file) {
  return path.relative(config.rootDir, file).split(path.sep).join('/');
}

/** Whether this run is a capture-only shard (`shardMode: 'capture-only'` under `--shard`): it
 *  stores stable shots and compares nothing; the merge job does. */
function isCaptureOnlyShard(settings, config) {
  return settings.shardMode === 'capture-only' && Boolean(config.shard);
}

module.exports = { projectRoot, specFile, isCaptureOnlyShard };
