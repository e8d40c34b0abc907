'use strict';
// The browser worker's browser lifecycle: which Chromium runs (Playwright's own, else
// SIGHTLINE_CHROMIUM, else the system one), ONE browser launched on the first call that needs it
// and relaunched if it disconnects, and a fresh context and page per call (`withPage`) that
// records the page's console and failed requests from before navigation. One browser keeps calls
// fast; a context each keeps concurrent calls from sharing cookies, storage or listeners.

const fs = require('node:fs');
const path = require('node:path');
const { log } = require('./log');
const { checkUrl } = require('./url-policy');

// A page that logs in a loop must not fill the worker's memory or the answer.
const MAX_CONSOLE_ENTRIES = 1000;
const MAX_CONSOLE_TEXT = 2000;
const SYSTEM_CHROMIUM = '/usr/bin/chromium';
const INSTALL_HINT =
  'install one: `apt-get install -y --no-install-recommends chromium` (then it is found at /usr/bin/chromium) ' +
  'or `npx playwright install chromium`, or point SIGHTLINE_CHROMIUM at a Chromium executable';

// This package's fixtures folder (where worker.js is): packages the worker needs are resolved
// from here when the user's project does not have them.
const FIXTURES_DIR = path.join(__dirname, '..');

/** Where `playwright-core` and axe-core are resolved from: the user's project (the working directory) first, else ours. */
function lookupDirs() {
  return [process.cwd(), FIXTURES_DIR];
}

let playwright = null;

/** `playwright-core` from the user's project (the working directory) first, else our own. */
function loadPlaywright() {
  if (playwright) return playwright;
  const tried = [];
  for (const from of lookupDirs()) {
    let entry;
    try {
      entry = require.resolve('playwright-core', { paths: [from] });
    } catch (_) {
      tried.push(from);
      continue;
    }
    const manifest = require.resolve('playwright-core/package.json', { paths: [from] });
    playwright = { module: require(entry), path: path.dirname(manifest), version: require(manifest).version };
    return playwright;
  }
  throw new Error(`playwright-core is not installed (looked from ${tried.join(' and ')}); run \`npm install playwright-core\``);
}

/** Where the browser comes from: Playwright's own Chromium, else SIGHTLINE_CHROMIUM, else the system one. */
function findBrowser() {
  const tried = [];
  try {
    const own = loadPlaywright().module.chromium.executablePath();
    if (own && fs.existsSync(own)) return { found: true, path: own, source: 'playwright' };
    if (own) tried.push(own);
  } catch (_) {
    // no playwright-core: reported by the launch itself
  }
  const env = process.env.SIGHTLINE_CHROMIUM;
  if (env) {
    if (fs.existsSync(env)) return { found: true, path: env, source: 'SIGHTLINE_CHROMIUM' };
    tried.push(`${env} (SIGHTLINE_CHROMIUM)`);
  }
  if (fs.existsSync(SYSTEM_CHROMIUM)) return { found: true, path: SYSTEM_CHROMIUM, source: 'system' };
  tried.push(SYSTEM_CHROMIUM);
  return { found: false, path: null, source: null, tried };
}

let browserPromise = null;

function browser() {
  if (!browserPromise) {
    browserPromise = (async () => {
      const { module } = loadPlaywright();
      const found = findBrowser();
      if (!found.found) throw new Error(`no Chromium found (tried ${found.tried.join(', ')}); ${INSTALL_HINT}`);
      log(`launching ${found.path} (${found.source})`);
      const b = await module.chromium.launch({ executablePath: found.path, headless: true });
      b.on('disconnected', () => {
        log('browser disconnected; the next call launches a new one');
        browserPromise = null;
      });
      return b;
    })();
    browserPromise.catch(() => {
      browserPromise = null;
    });
  }
  return browserPromise;
}

/** Whether a browser is launched or launching (ping reports it). */
function browserRunning() {
  return browserPromise !== null;
}

/** Closes the browser, if one was launched: the worker is ending. */
async function closeBrowser() {
  if (browserPromise) {
    const b = await browserPromise.catch(() => null);
    if (b) await b.close().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------
// One call: a fresh context and page, with the page's console and failed requests recorded from
// before navigation.

const levelOf = { error: 'error', warning: 'warning', info: 'info', log: 'log', debug: 'debug' };

async function withPage(params, prepare, run) {
  const url = checkUrl(params.url);
  const b = await browser();
  const viewport = params.viewport || { width: 1280, height: 800 };
  const context = await b.newContext({ viewport, bypassCSP: true, deviceScaleFactor: 1 });
  // A file:// page may frame, embed or refresh to any other file:// URL, so each file it asks for
  // passes the same check as the page (inside SIGHTLINE_ALLOWED_ROOTS) or is refused. http(s)
  // pages cannot load file:// URLs at all, so only file:// pages pay for the interception.
  if (url.startsWith('file:')) {
    await context.route(
      (target) => target.protocol === 'file:',
      (route) => {
        try {
          checkUrl(route.request().url());
        } catch (_) {
          return route.abort('accessdenied');
        }
        return route.continue();
      },
    );
  }
  // The call's timeout closes this context, which ends whatever the page is stuck in.
  if (params._call) params._call.contexts.add(context);
  const started = Date.now();
  const record = { console: [], consoleDropped: 0, failedRequests: [] };
  const logEntry = (entry) => {
    if (record.console.length >= MAX_CONSOLE_ENTRIES) {
      record.consoleDropped++;
      return;
    }
    if (entry.text.length > MAX_CONSOLE_TEXT) entry.text = entry.text.slice(0, MAX_CONSOLE_TEXT) + '…';
    record.console.push(entry);
  };
  try {
    const page = await context.newPage();
    page.on('console', (msg) => {
      const where = msg.location();
      logEntry({
        level: levelOf[msg.type()] || msg.type(),
        text: msg.text(),
        location: where && where.url ? { url: where.url, line: where.lineNumber + 1, column: where.columnNumber + 1 } : null,
        timeMs: Date.now() - started,
      });
    });
    page.on('pageerror', (err) => {
      const frame = /\n\s+at .*?\(?((?:https?|file):\/\/[^\s)]+):(\d+):(\d+)\)?/.exec(err.stack || '');
      logEntry({
        level: 'pageerror',
        text: `${err.name}: ${err.message}`,
        location: frame ? { url: frame[1], line: Number(frame[2]), column: Number(frame[3]) } : null,
        timeMs: Date.now() - started,
      });
    });
    page.on('response', (response) => {
      if (response.status() >= 400) {
        const request = response.request();
        record.failedRequests.push({ url: response.url(), status: response.status(), failure: null, resourceType: request.resourceType() });
      }
    });
    page.on('requestfailed', (request) => {
      const failure = request.failure();
      record.failedRequests.push({ url: request.url(), status: null, failure: failure ? failure.errorText : 'failed', resourceType: request.resourceType() });
    });
    if (prepare) await prepare(page);
    const response = await page.goto(url, { waitUntil: 'load' });
    if (response && response.status() >= 400) {
      throw new Error(`${url} answered HTTP ${response.status()}; is this the right address?`);
    }
    return await run(page, record);
  } catch (e) {
    // Playwright appends a "Call log:" with terminal colours: the first line is the message.
    const first = String(e && e.message ? e.message : e).split('\n')[0].replace(/\x1b\[[0-9;]*m/g, '');
    if (/ERR_CONNECTION_REFUSED|ERR_NAME_NOT_RESOLVED|ERR_ADDRESS_UNREACHABLE|ERR_CONNECTION_RESET/.test(first)) {
      throw new Error(`cannot reach ${url}: ${first}; is the dev server running?`);
    }
    throw new Error(first);
  } finally {
    await context.close().catch(() => {});
  }
}

module.exports = { INSTALL_HINT, lookupDirs, loadPlaywright, findBrowser, browserRunning, closeBrowser, withPage };
