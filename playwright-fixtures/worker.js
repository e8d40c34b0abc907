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

const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { collectDom, collectInPage, DEFAULT_STYLE_PROPERTIES } = require('./collector');

const DEFAULT_TIMEOUT_MS = 30_000;
// A page that logs in a loop must not fill the worker's memory or the answer.
const MAX_CONSOLE_ENTRIES = 1000;
const MAX_CONSOLE_TEXT = 2000;
// Screenshots older than this are removed from the output folder when the worker first writes.
const KEEP_SCREENSHOTS_MS = 24 * 60 * 60 * 1000;
const SYSTEM_CHROMIUM = '/usr/bin/chromium';
const INSTALL_HINT =
  'install one: `apt-get install -y --no-install-recommends chromium` (then it is found at /usr/bin/chromium) ' +
  'or `npx playwright install chromium`, or point SIGHTLINE_CHROMIUM at a Chromium executable';

function log(message) {
  process.stderr.write(`sightline worker: ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// Playwright and the browser

let playwright = null;

/** `playwright-core` from the user's project (the working directory) first, else our own. */
function loadPlaywright() {
  if (playwright) return playwright;
  const tried = [];
  for (const from of [process.cwd(), __dirname]) {
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

// ---------------------------------------------------------------------------------------------
// URLs

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

// ---------------------------------------------------------------------------------------------
// One call: a fresh context and page, with the page's console and failed requests recorded from
// before navigation.

const levelOf = { error: 'error', warning: 'warning', info: 'info', log: 'log', debug: 'debug' };

async function withPage(params, prepare, run) {
  const url = checkUrl(params.url);
  const b = await browser();
  const viewport = params.viewport || { width: 1280, height: 800 };
  const context = await b.newContext({ viewport, bypassCSP: true, deviceScaleFactor: 1 });
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

let pruned = false;

/** Removes this folder's day-old screenshots and capture files (the folder is ours alone). */
function pruneOldScreenshots(dir) {
  const now = Date.now();
  for (const name of fs.readdirSync(dir)) {
    if (!/\.(png|json|slcap)$/.test(name)) continue;
    const file = path.join(dir, name);
    try {
      if (now - fs.statSync(file).mtimeMs > KEEP_SCREENSHOTS_MS) fs.unlinkSync(file);
    } catch (_) {
      // another worker removed it first
    }
  }
}

function screenshotPath(params, label) {
  const dir = params.outDir;
  if (!dir) return null;
  fs.mkdirSync(dir, { recursive: true });
  if (!pruned) {
    pruned = true;
    pruneOldScreenshots(dir);
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return path.join(dir, `${label}-${stamp}-${process.pid}-${++shotCounter}.png`);
}
let shotCounter = 0;

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// In-page fact gatherers. Each is shipped to the page as source text, so each is self-contained;
// `collect` is the collector's `collectInPage`, passed in so names follow the collector's rules.

/**
 * Facts for visual_check beyond the DOM record: per element that has own text, is an image, is
 * interactive or clips its overflow — its text line boxes, scroll sizes, the background colours
 * behind it (itself up to the first opaque ancestor), image load state; plus @font-face sources
 * and stylesheet links, so failed requests can be named by family and element.
 */
function detailsInPage(collect) {
  const INTERACTIVE = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], [role=checkbox], [role=tab], [onclick], [tabindex]:not([tabindex="-1"])';
  const round = (v) => Math.round(v * 100) / 100;
  const sx = window.scrollX;
  const sy = window.scrollY;
  const rectOf = (r) => [round(r.left + sx), round(r.top + sy), round(r.width), round(r.height)];
  const picked = [];
  const facts = [];
  for (const el of document.body ? document.body.querySelectorAll('*') : []) {
    if (el.checkVisibility && !el.checkVisibility()) continue;
    const cs = getComputedStyle(el);
    let ownText = false;
    const textRects = [];
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType !== 3 || n.data.trim() === '') continue;
      ownText = true;
      const range = document.createRange();
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) {
        if (r.width > 0 && r.height > 0 && textRects.length < 20) textRects.push(rectOf(r));
      }
    }
    const tag = el.localName;
    const interactive = el.matches(INTERACTIVE);
    const clips = /hidden|clip|auto|scroll/.test(cs.overflowX + cs.overflowY);
    if (!ownText && tag !== 'img' && !interactive && !clips) continue;
    const backgrounds = [];
    let backdropUnknown = false;
    let opaque = null; // the ancestor whose opaque background ends the list
    for (let a = el; a; a = a.parentElement) {
      const s = a === el ? cs : getComputedStyle(a);
      if (s.backgroundImage !== 'none') {
        backdropUnknown = true;
        break;
      }
      backgrounds.push(s.backgroundColor);
      if (/^rgb\(/.test(s.backgroundColor)) {
        opaque = a; // nothing behind it shows
        break;
      }
    }
    // What actually paints under the text, when it is in view: an image, video, canvas or another
    // element's box (a hero picture under a heading) makes the ancestor colours the wrong backdrop.
    if (ownText && !backdropUnknown && textRects.length > 0) {
      const x = textRects[0][0] - sx + textRects[0][2] / 2;
      const y = textRects[0][1] - sy + textRects[0][3] / 2;
      if (x >= 0 && y >= 0 && x < window.innerWidth && y < window.innerHeight) {
        const stack = document.elementsFromPoint(x, y);
        for (let i = stack.indexOf(el) + 1; i > 0 && i < stack.length; i++) {
          const under = stack[i];
          if (under === opaque) break;
          if (under.contains(el)) continue; // an ancestor: already in the list
          const us = getComputedStyle(under);
          if (/^(img|video|canvas|picture|svg|iframe|object|embed)$/.test(under.localName) || us.backgroundImage !== 'none' || us.backgroundColor !== 'rgba(0, 0, 0, 0)') {
            backdropUnknown = true;
            break;
          }
        }
      }
    }
    const disabled = !!el.closest('button:disabled, input:disabled, select:disabled, textarea:disabled, fieldset:disabled, [aria-disabled=true]');
    let opacity = 1;
    for (let a = el; a; a = a.parentElement) opacity *= parseFloat(getComputedStyle(a).opacity);
    let parentText = false;
    if (el.parentElement) {
      for (let n = el.parentElement.firstChild; n; n = n.nextSibling) if (n.nodeType === 3 && n.data.trim() !== '') parentText = true;
    }
    picked.push(el);
    facts.push({
      selector: null,
      ownText,
      textRects,
      scroll: [el.scrollWidth, el.scrollHeight, el.clientWidth, el.clientHeight],
      backgrounds,
      backdropUnknown,
      disabled,
      opacity: round(opacity),
      interactive,
      inlineInText: parentText && cs.display.startsWith('inline'),
      image: tag === 'img' ? { src: el.currentSrc || el.src, complete: el.complete, naturalWidth: el.naturalWidth, naturalHeight: el.naturalHeight } : null,
    });
  }
  const selectors = JSON.parse(collect({ styleProperties: [], mask: [], selectorsFor: picked }));
  facts.forEach((f, i) => (f.selector = selectors[i]));
  const fontFaces = [];
  const stylesheets = [];
  const links = Array.from(document.querySelectorAll('link[rel~=stylesheet][href]'));
  const linkSelectors = JSON.parse(collect({ styleProperties: [], mask: [], selectorsFor: links }));
  links.forEach((l, i) => stylesheets.push({ href: l.href, selector: linkSelectors[i] }));
  for (const sheet of document.styleSheets) {
    let rules;
    try {
      rules = sheet.cssRules;
    } catch (_) {
      continue; // cross-origin sheet: its faces cannot be read
    }
    const base = sheet.href || location.href;
    for (const rule of rules) {
      if (rule.type !== 5) continue; // CSSFontFaceRule
      const family = rule.style.getPropertyValue('font-family').trim().replace(/^["']|["']$/g, '');
      const urls = [];
      for (const m of rule.style.getPropertyValue('src').matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)/g)) {
        try {
          urls.push(new URL(m[1], base).href);
        } catch (_) {
          // an unparsable url() loads nothing
        }
      }
      fontFaces.push({ family, urls });
    }
  }
  return JSON.stringify({ elements: facts, fontFaces, stylesheets });
}

/** Init script: records layout-shift entries (with their source nodes) from the first paint. */
function layoutShiftObserverInPage() {
  const state = (window.__sightlineShifts = { entries: [], nodes: [] });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const sources = [];
        for (const s of e.sources || []) {
          let node = s.node || null;
          if (node && node.nodeType !== 1) node = node.parentElement;
          state.nodes.push(node);
          const r = (q) => [q.x, q.y, q.width, q.height];
          sources.push({ node: state.nodes.length - 1, previousRect: r(s.previousRect), currentRect: r(s.currentRect) });
        }
        state.entries.push({ value: e.value, startTime: e.startTime, hadRecentInput: e.hadRecentInput, sources });
      }
    }).observe({ type: 'layout-shift', buffered: true });
  } catch (_) {
    state.unsupported = true;
  }
}

/**
 * Init script: a visibility timeline for every element whose visibility changes after it was
 * first seen. Mutations (attributes, insertions, removals) and animation/transition ends trigger
 * a re-check; each change is stamped with `performance.now()` (ms since navigation start).
 */
function flashObserverInPage(collect) {
  const tracked = new Map(); // element → {selector, tag, events: [[ms, visible]]}
  const state = (window.__sightlineFlashes = { tracked });
  const visible = (el) => {
    if (!el.isConnected) return false;
    if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const nameOf = (el) => {
    try {
      return JSON.parse(collect({ styleProperties: [], mask: [], selectorsFor: [el] }))[0];
    } catch (_) {
      return null;
    }
  };
  const note = (el, parentSelector) => {
    if (!el || el.nodeType !== 1) return;
    const now = Math.round(performance.now());
    const v = visible(el);
    let t = tracked.get(el);
    if (!t) {
      let selector = el.isConnected ? nameOf(el) : null;
      if (!selector && parentSelector) selector = parentSelector + ' > ' + el.localName;
      t = { selector, tag: el.localName, events: [[now, v]] };
      tracked.set(el, t);
      return;
    }
    if (!t.selector && el.isConnected) t.selector = nameOf(el);
    if (t.events[t.events.length - 1][1] !== v && t.events.length < 200) t.events.push([now, v]);
  };
  const observer = new MutationObserver((records) => {
    for (const m of records) {
      if (m.type === 'attributes') {
        note(m.target);
        // A class or style change on a container can flip every descendant.
        for (const d of m.target.querySelectorAll ? m.target.querySelectorAll('*') : []) if (tracked.has(d)) note(d);
      }
      for (const n of m.addedNodes) note(n);
      const parentSelector = m.removedNodes.length > 0 && m.target.nodeType === 1 ? nameOf(m.target) : null;
      for (const n of m.removedNodes) note(n, parentSelector);
    }
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['style', 'class', 'hidden', 'open'] });
  for (const type of ['animationend', 'transitionend', 'animationstart']) {
    document.addEventListener(type, (e) => note(e.target), true);
  }
  state.stop = () => observer.disconnect();
}

// ---------------------------------------------------------------------------------------------
// Methods

/** The style properties the page checks read from the DOM record. */
const CHECK_STYLE_PROPERTIES = [
  'color', 'background-color', 'overflow-x', 'overflow-y', 'text-overflow', 'visibility', 'opacity',
  'font-size', 'font-weight', 'font-family', 'position', 'display',
];

const methods = {
  async ping() {
    let pw = null;
    let error = null;
    try {
      const p = loadPlaywright();
      pw = { version: p.version, path: p.path };
    } catch (e) {
      error = e.message;
    }
    const found = findBrowser();
    return {
      pid: process.pid,
      node: process.version,
      playwrightCore: pw,
      playwrightError: error,
      browser: found.found ? { found: true, path: found.path, source: found.source } : { found: false, tried: found.tried, install: INSTALL_HINT },
      browserRunning: browserPromise !== null,
    };
  },

  /** visual_check: screenshot + the DOM record + details + console + failed requests. */
  async check(params) {
    return withPage(params, null, async (page, record) => {
      await page.evaluate(() => (document.fonts ? document.fonts.ready.then(() => undefined) : undefined));
      const dom = await collectDom(page, { styleProperties: CHECK_STYLE_PROPERTIES });
      const details = await page.evaluate(`(${detailsInPage})(${collectInPage})`);
      let focusSelectors = null;
      if (params.focus) {
        focusSelectors = JSON.parse(
          await page.evaluate(
            `(() => { const el = document.querySelector(${JSON.stringify(params.focus)}); if (!el) return 'null';
              return (${collectInPage})({ styleProperties: [], mask: [], selectorsFor: [el, ...el.querySelectorAll('*')] }); })()`,
          ),
        );
        if (!focusSelectors) throw new Error(`no element matches focus ${params.focus} on ${params.url}`);
      }
      const screenshot = screenshotPath(params, 'check');
      if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
      return { dom, details, console: record.console, failedRequests: record.failedRequests, screenshot, focusSelectors };
    });
  },

  /** get_console_logs: everything logged from before navigation until waitMs after load. */
  async console(params) {
    return withPage(params, null, async (page, record) => {
      await wait(params.waitMs ?? 1000);
      return { console: record.console, consoleDropped: record.consoleDropped, failedRequests: record.failedRequests };
    });
  },

  /** verify_accessibility: axe-core injected from npm, run on the page or one selector. */
  async axe(params) {
    const axePath = require.resolve('axe-core/axe.min.js', { paths: [process.cwd(), __dirname] });
    const axeVersion = require(path.join(path.dirname(axePath), 'package.json')).version;
    return withPage(params, null, async (page) => {
      await page.addScriptTag({ path: axePath });
      const result = await page.evaluate(async ({ selector, rules }) => {
        if (selector && !document.querySelector(selector)) return { missing: true };
        const options = { resultTypes: ['violations'] };
        if (rules && rules.length) options.runOnly = { type: 'rule', values: rules };
        const r = await window.axe.run(selector || document, options);
        return {
          violations: r.violations.map((v) => ({
            id: v.id,
            impact: v.impact,
            description: v.description,
            help: v.help,
            helpUrl: v.helpUrl,
            nodes: v.nodes.slice(0, 20).map((n) => ({ target: n.target.map(String).join(' '), html: n.html.slice(0, 300), failureSummary: n.failureSummary })),
            nodeCount: v.nodes.length,
          })),
          passes: r.passes.length,
          incomplete: r.incomplete.length,
        };
      }, { selector: params.selector || null, rules: params.rules || null });
      if (result.missing) throw new Error(`no element matches ${params.selector} on ${params.url}`);
      return { axeVersion, ...result };
    });
  },

  /** detect_layout_shift: layout-shift entries from the first paint to waitMs after load. */
  async layoutShift(params) {
    return withPage(params, (page) => page.addInitScript(layoutShiftObserverInPage), async (page) => {
      await wait(params.waitMs ?? 3000);
      const raw = await page.evaluate(`(() => {
        const s = window.__sightlineShifts || { entries: [], nodes: [] };
        const names = JSON.parse((${collectInPage})({ styleProperties: [], mask: [], selectorsFor: s.nodes }));
        return JSON.stringify({ unsupported: !!s.unsupported, entries: s.entries.map((e) => ({ ...e,
          sources: e.sources.map((src) => ({ selector: names[src.node], previousRect: src.previousRect, currentRect: src.currentRect })) })) });
      })()`);
      return JSON.parse(raw);
    });
  },

  /** detect_flash: visibility timelines of elements that changed after first seen. */
  async flash(params) {
    const script = `(${flashObserverInPage})(${collectInPage})`;
    return withPage(params, (page) => page.addInitScript({ content: script }), async (page) => {
      await wait(params.waitMs ?? 3000);
      const raw = await page.evaluate(() => {
        const s = window.__sightlineFlashes;
        if (!s) return JSON.stringify({ elements: [] });
        s.stop();
        const elements = [];
        for (const t of s.tracked.values()) if (t.events.length > 1) elements.push(t);
        return JSON.stringify({ elements });
      });
      return JSON.parse(raw);
    });
  },

  /** measure_element: box model, typography and visibility of the first match of a selector. */
  async measure(params) {
    return withPage(params, null, async (page) => {
      const raw = await page.evaluate(`(${measureInPage})(${collectInPage}, ${JSON.stringify(params.selector)})`);
      return JSON.parse(raw);
    });
  },

  /** test_viewports: per breakpoint, the DOM record, the element's visibility, a screenshot. */
  async viewports(params) {
    const results = [];
    for (const bp of params.breakpoints) {
      const one = await withPage({ ...params, viewport: { width: bp.width, height: bp.height } }, null, async (page) => {
        const dom = await collectDom(page, { styleProperties: CHECK_STYLE_PROPERTIES });
        const element = params.selector ? JSON.parse(await page.evaluate(elementFactsInPage, params.selector)) : null;
        const screenshot = screenshotPath(params, `viewport-${bp.width}x${bp.height}`);
        if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
        return { dom, element, screenshot };
      });
      results.push({ width: bp.width, height: bp.height, ...one });
    }
    return { breakpoints: results };
  },

  /** capture_dom_state / capture_visual_state: the collector's DOM record, optionally with files. */
  async capture(params) {
    return withPage(params, null, async (page) => {
      if (params.scrollToLoad) await scrollToLoad(page);
      await page.evaluate(() => (document.fonts ? document.fonts.ready.then(() => undefined) : undefined));
      let scope;
      if (params.selector) {
        scope = page.locator(params.selector).first();
        if ((await scope.count()) === 0) throw new Error(`no element matches ${params.selector} on ${params.url}`);
      }
      const dom = await collectDom(page, { styleProperties: DEFAULT_STYLE_PROPERTIES, scope });
      let screenshot = null;
      if (params.screenshot) {
        screenshot = screenshotPath(params, 'capture');
        if (scope) await scope.screenshot({ path: screenshot });
        else await page.screenshot({ path: screenshot, fullPage: true });
      }
      return { dom, screenshot };
    });
  },

  /**
   * capture_frames: optional click / hover / wait actions, then `frames` screenshots `intervalMs`
   * apart (measured from the first shot, so slow shots do not stretch the sequence) into
   * `outDir`, which the server made fresh for this call.
   */
  async frames(params) {
    return withPage(params, null, async (page) => {
      if (params.waitMs) await wait(params.waitMs);
      for (const action of params.actions || []) {
        if (action.type === 'click') await page.click(action.selector);
        else if (action.type === 'hover') await page.hover(action.selector);
        else if (action.type === 'wait') await wait(action.ms);
        else throw new Error(`unknown action ${JSON.stringify(action.type)}; use click, hover or wait`);
      }
      const shots = [];
      const started = Date.now();
      for (let i = 0; i < params.frames; i++) {
        const left = started + i * params.intervalMs - Date.now();
        if (left > 0) await wait(left);
        const file = path.join(params.outDir, `frame-${String(i).padStart(3, '0')}.png`);
        const atMs = Date.now() - started;
        await page.screenshot({ path: file, clip: params.clip || undefined });
        shots.push({ file, atMs });
      }
      return { shots };
    });
  },

  /** visual_verify: a screenshot and the page facts challenges are built from. */
  async verifyFacts(params) {
    return withPage(params, null, async (page) => {
      await page.evaluate(() => (document.fonts ? document.fonts.ready.then(() => undefined) : undefined));
      const raw = await page.evaluate(`(${verifyFactsInPage})(${collectInPage}, ${JSON.stringify(params.selector || null)})`);
      const facts = JSON.parse(raw);
      if (facts.missing) throw new Error(`no element matches ${params.selector} on ${params.url}`);
      const screenshot = screenshotPath(params, 'verify');
      if (screenshot) {
        if (params.selector) await page.locator(params.selector).first().screenshot({ path: screenshot });
        else await page.screenshot({ path: screenshot, fullPage: true });
      }
      return { ...facts, screenshot };
    });
  },
};

/** Scrolls to the bottom in viewport steps so lazy content loads, then back to the top. */
async function scrollToLoad(page) {
  for (let i = 0; i < 50; i++) {
    const done = await page.evaluate(() => {
      window.scrollBy(0, window.innerHeight);
      return window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1;
    });
    await wait(100);
    if (done) break;
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForLoadState('networkidle').catch(() => {});
}

/** measure_element's facts about one element. */
function measureInPage(collect, selector) {
  const el = document.querySelector(selector);
  if (!el) return JSON.stringify({ found: false, selector });
  const cs = getComputedStyle(el);
  const r = el.getBoundingClientRect();
  const px = (name) => parseFloat(cs.getPropertyValue(name)) || 0;
  const sides = (p) => ({ top: px(`${p}-top${p === 'border' ? '-width' : ''}`), right: px(`${p}-right${p === 'border' ? '-width' : ''}`), bottom: px(`${p}-bottom${p === 'border' ? '-width' : ''}`), left: px(`${p}-left${p === 'border' ? '-width' : ''}`) });
  const round = (v) => Math.round(v * 100) / 100;
  const box = { x: round(r.left + window.scrollX), y: round(r.top + window.scrollY), width: round(r.width), height: round(r.height) };
  const inViewport = r.bottom > 0 && r.right > 0 && r.top < window.innerHeight && r.left < window.innerWidth;
  return JSON.stringify({
    found: true,
    selector: JSON.parse(collect({ styleProperties: [], mask: [], selectorsFor: [el] }))[0],
    matches: document.querySelectorAll(selector).length,
    tag: el.localName,
    text: (el.innerText || '').trim().slice(0, 200),
    box,
    margin: sides('margin'),
    padding: sides('padding'),
    border: sides('border'),
    content: { width: round(el.clientWidth - px('padding-left') - px('padding-right')), height: round(el.clientHeight - px('padding-top') - px('padding-bottom')) },
    scroll: { width: el.scrollWidth, height: el.scrollHeight },
    typography: {
      fontFamily: cs.fontFamily, fontSize: cs.fontSize, fontWeight: cs.fontWeight, lineHeight: cs.lineHeight,
      letterSpacing: cs.letterSpacing, color: cs.color, textAlign: cs.textAlign,
    },
    visibility: {
      display: cs.display, visibility: cs.visibility, opacity: cs.opacity,
      rendered: el.checkVisibility ? el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : true,
      inViewport,
    },
    viewport: { width: window.innerWidth, height: window.innerHeight },
  });
}

/** test_viewports' facts about the selector's element at one size (the overflow is judged from the DOM record). */
function elementFactsInPage(selector) {
  const el = document.querySelector(selector);
  if (!el) return JSON.stringify({ selector, found: false });
  const r = el.getBoundingClientRect();
  return JSON.stringify({
    selector,
    found: true,
    rendered: el.checkVisibility ? el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : true,
    box: [Math.round(r.left + window.scrollX), Math.round(r.top + window.scrollY), Math.round(r.width), Math.round(r.height)],
    inViewport: r.bottom > 0 && r.right > 0 && r.top < window.innerHeight && r.left < window.innerWidth,
  });
}

/** visual_verify's raw material: headings, counts, colours and positions of the page's elements. */
function verifyFactsInPage(collect, selector) {
  const scope = selector ? document.querySelector(selector) : document.body;
  if (!scope) return JSON.stringify({ missing: true });
  const visible = (el) => (el.checkVisibility ? el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : true) && el.getBoundingClientRect().width > 0;
  const all = (q) => Array.from(scope.querySelectorAll(q)).filter(visible);
  const text = (el) => (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim();
  // The area the screenshot shows: the element, or the full page (at least the viewport).
  const root = document.documentElement;
  const sr = scope.getBoundingClientRect();
  const area = selector
    ? { x: sr.left + window.scrollX, y: sr.top + window.scrollY, width: sr.width, height: sr.height }
    : { x: 0, y: 0, width: Math.max(root.scrollWidth, window.innerWidth), height: Math.max(root.scrollHeight, window.innerHeight) };
  // Where the text itself is (a block heading's box spans the whole row).
  const inkOf = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const r = range.getBoundingClientRect();
    return r.width > 0 ? [Math.round(r.left + window.scrollX), Math.round(r.top + window.scrollY), Math.round(r.width), Math.round(r.height)] : boxOf(el);
  };
  const boxOf = (el) => {
    const r = el.getBoundingClientRect();
    return [Math.round(r.left + window.scrollX), Math.round(r.top + window.scrollY), Math.round(r.width), Math.round(r.height)];
  };
  const headingElements = all('h1, h2, h3').filter((el) => text(el) !== '');
  const headingSelectors = JSON.parse(collect({ styleProperties: [], mask: [], selectorsFor: headingElements }));
  const headings = headingElements.map((el, i) => ({ tag: el.localName, selector: headingSelectors[i], text: text(el).slice(0, 200), box: inkOf(el), color: getComputedStyle(el).color }));
  const buttons = all('button, a.button, a.btn, [role=button], input[type=submit]').map((el) => ({ text: text(el).slice(0, 100) || el.value || '', box: boxOf(el), background: getComputedStyle(el).backgroundColor, color: getComputedStyle(el).color }));
  return JSON.stringify({
    area,
    title: document.title,
    headings,
    buttons,
    counts: {
      headings: headings.length,
      images: all('img').length,
      links: all('a[href]').length,
      buttons: buttons.length,
      listItems: all('li').length,
      inputs: all('input:not([type=hidden]), select, textarea').length,
    },
  });
}

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
    if (browserPromise) {
      const b = await browserPromise.catch(() => null);
      if (b) await b.close().catch(() => {});
    }
    process.exit(0);
  });
  log(`ready (pid ${process.pid})`);
}

if (require.main === module) main();

module.exports = { checkUrl, findBrowser, methods };
