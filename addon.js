'use strict';
// The package's main entry: the napi addon's API (compareCapture, writeResults, …).
//
// `index.js` is napi-rs's generated loader and stays exactly as generated (it is checked for
// drift); this file only turns its "Cannot find native binding" into a message that names this
// machine, the supported platforms and the fix.

const { missingPlatformMessage } = require('./npm/platform.js');

try {
  module.exports = require('./index.js');
} catch (error) {
  if (!/Cannot find native binding|Cannot find module/.test(error.message)) throw error;
  throw new Error(missingPlatformMessage('native addon'), { cause: error });
}
