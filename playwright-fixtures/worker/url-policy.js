'use strict';
// Which URLs the browser worker may open. http and https always; file:// only inside the folders
// SIGHTLINE_ALLOWED_ROOTS lists, because an MCP client could otherwise read any local file through
// a screenshot. Every method opens its page through `checkUrl` (in `withPage`), so this is the one
// gate.

const fs = require('node:fs');
const path = require('node:path');

/** http and https always; file:// only inside SIGHTLINE_ALLOWED_ROOTS (path-delimiter separated). */
function checkUrl(raw) {
  let url;
  try {
    url = new URL(raw);
  } catch (_) {
    throw new Error(`not a URL: ${JSON.stringify(raw)}; give an http(s) address such as http://localhost:3000/`);
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  if (url.protocol === 'file:') {
    const roots = (process.env.SIGHTLINE_ALLOWED_ROOTS || '').split(path.delimiter).filter(Boolean);
    if (roots.length === 0) {
      throw new Error(`file:// URLs are refused unless SIGHTLINE_ALLOWED_ROOTS lists the folders they may open: ${raw}`);
    }
    let file;
    try {
      file = fs.realpathSync(decodeURIComponent(url.pathname));
    } catch (e) {
      throw new Error(`${raw}: cannot open it (${e.code || e.message})`);
    }
    for (const root of roots) {
      let real;
      try {
        real = fs.realpathSync(root);
      } catch (_) {
        continue;
      }
      if (file === real || file.startsWith(real + path.sep)) return url.href;
    }
    throw new Error(`${raw} is outside SIGHTLINE_ALLOWED_ROOTS (${roots.join(path.delimiter)})`);
  }
  throw new Error(`${url.protocol} URLs are not opened; only http, https (and file:// inside SIGHTLINE_ALLOWED_ROOTS)`);
}

module.exports = { checkUrl };
