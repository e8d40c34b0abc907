#!/usr/bin/env node
'use strict';
// The browser worker behind the live-page MCP tools (spec 05-live-pages). The `sightline` binary
// starts ONE of these and keeps it; it drives Chromium through Playwright and gathers FACTS from a
// page (boxes, scroll sizes, colours, image sizes, font status, console entries, layout shifts,
// visibility flips). It judges nothing: thresholds, severities and messages live in the Rust core
// (`crates/core/src/page_check.rs`, `live.rs`), so the CLI and MCP read one model.
//
// Protocol: newline-delimited JSON over stdio. One request per line
//   {"id": 1, "method": "check", "params": {...}}
// and one answer per line, in any order (calls run concurrently, each in its own context):
//   {"id": 1, "result": {...}}   or   {"id": 1, "error": {"message": "..."}}
// stdout carries only answers; every log line goes to stderr.
//
// One browser, launched on the first call that needs it and relaunched if it disconnects; a fresh
// context per call, closed after. Each call is bounded by `params.timeoutMs` (default 30 s).
//
// This file is the entry point (the binary runs `node worker.js`) and owns the protocol loop; the
// rest is in worker/: browser.js (which Chromium, its lifecycle, a context per call), url-policy.js
// (which URLs may be opened), in-page.js (the functions evaluated in the page) and methods.js
// (one entry per method).

const readline = require('node:readline');
const { log } = require('./worker/log');
const { findBrowser, closeBrowser } = require('./worker/browser');
const { checkUrl } = require('./worker/url-policy');
const { methods } = require('./worker/methods');

const DEFAULT_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------------------------
// The loop: one line in, one line out; a call's failure is its own error answer.

function answer(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

async function handle(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    log(`ignoring a line that is not JSON: ${e.message}`);
    return;
  }
  const { id, method, params = {} } = request;
  const fn = Object.prototype.hasOwnProperty.call(methods, method) ? methods[method] : null;
  if (!fn) {
    answer({ id, error: { message: `unknown method ${JSON.stringify(method)}; known: ${Object.keys(methods).join(', ')}` } });
    return;
  }
  const timeoutMs = params.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const call = { contexts: new Set() };
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      for (const context of call.contexts) context.close().catch(() => {});
      reject(new Error(`${method} timed out after ${timeoutMs} ms${params.url ? ` on ${params.url}` : ''}; the page may hang or be slow to load`));
    }, timeoutMs);
  });
  try {
    const result = await Promise.race([fn({ ...params, _call: call }), timeout]);
    answer({ id, result });
  } catch (e) {
    answer({ id, error: { message: (e && e.message ? e.message : String(e)).split('\n=====')[0] } });
  } finally {
    clearTimeout(timer);
  }
}

function main() {
  // A stray rejection (a page event after its context closed) must not end the worker and
  // every call in flight with it.
  process.on('unhandledRejection', (reason) => log(`unhandled rejection: ${reason && reason.message ? reason.message : reason}`));
  const lines = readline.createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line.trim() !== '') handle(line);
  });
  // The supervisor closed our stdin: it is gone or wants us gone.
  lines.on('close', async () => {
    await closeBrowser();
    process.exit(0);
  });
  log(`ready (pid ${process.pid})`);
}

if (require.main === module) main();

module.exports = { checkUrl, findBrowser, methods };
