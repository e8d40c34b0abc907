// The test runner's own Playwright, whichever copy of this package is loaded.
//
// Installed from a clone (`npm i -D <clone>`), this package is a symlink into a checkout whose own
// node_modules hold a second @playwright/test; requiring that one makes Playwright refuse to load
// twice ("Requiring @playwright/test second time"). The runner's copy is the one whose
// `playwright/lib` files are already loaded in this process (the worker and the runner are both
// started from them), so the fixture extends that one.
'use strict';

const Module = require('node:module');
const path = require('node:path');

function runnerPlaywright() {
  const marker = `${path.sep}node_modules${path.sep}playwright${path.sep}lib${path.sep}`;
  // Loaded from an ES module spec, this file's `require` has no `cache`: Module's is the same one.
  for (const file of Object.keys(require.cache ?? Module._cache)) {
    const at = file.lastIndexOf(marker);
    if (at >= 0) return require(path.join(file.slice(0, at), 'node_modules', 'playwright', 'test.js'));
  }
  return require('@playwright/test');
}

module.exports = { runnerPlaywright };
