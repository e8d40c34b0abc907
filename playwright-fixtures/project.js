// Where a Playwright run's sightline files are, as the matcher (in each worker) and the reporter
// (in Playwright's main process) must both see it: the matcher writes captures under the project
// root the reporter gathers from and records each baseline's spec file as the reporter's ledger
// names it. One rule each, here. (What a capture-only shard is, is the core's: the capture
// session and the run's end both read it from the config.)
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

module.exports = { projectRoot, specFile };
