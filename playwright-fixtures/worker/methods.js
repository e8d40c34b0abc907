'use strict';
// The browser worker's method table: one entry per protocol method (ping, check, console, axe,
// layoutShift, flash, measure, viewports, capture, frames, verifyFacts), each one MCP tool's page
// work, plus the screenshot files they write. A method opens its page through `withPage` and
// returns plain facts; worker.js runs it under the call's timeout and writes the answer.
// Each method's params and answer are typed in the Rust core (crates/core/src/worker_protocol/):
// change a field here and there together; the CLI's `worker_protocol` test runs every method and
// fails on a field the core's types do not read.

const fs = require('node:fs');
const path = require('node:path');
const { collectDom, collectInPage } = require('../collector');
const { whenFramed } = require('../screenshot');
const { INSTALL_HINT, lookupDirs, loadPlaywright, findBrowser, browserRunning, withPage } = require('./browser');
const {
  detailsInPage,
  scopeInPage,
  layoutShiftObserverInPage,
  flashObserverInPage,
  measureInPage,
  elementFactsInPage,
  verifyFactsInPage,
} = require('./in-page');

// ---------------------------------------------------------------------------------------------
// Screenshot files: named by label, time, pid and a counter so concurrent calls and workers
// never overwrite each other.

// Screenshots older than this are removed from the output folder when the worker first writes.
const KEEP_SCREENSHOTS_MS = 24 * 60 * 60 * 1000;

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
/** The wait after load a tool asked for: the server sends it, with its defaults (the MCP live
 *  tools' CONSOLE_WAIT_MS / TIMELINE_WAIT_MS), so the worker keeps no defaults of its own. */
function waitAfterLoad(params) {
  if (!Number.isInteger(params.waitMs) || params.waitMs < 0) throw new Error(`waitMs must be a whole number of ms, got ${params.waitMs}`);
  return wait(params.waitMs);
}

/** How long capture_frames waits for a Flutter web app to show its first frame. */
const FLUTTER_TIMEOUT_MS = 15000;

/**
 * Waits until a Flutter web app has rendered: its view element (`flutter-view`, or
 * `flt-glass-pane` before Flutter 3.22) is in the page and two animation frames have passed,
 * so the first screenshot shows the app rather than its loading page.
 */
async function waitForFlutter(page, url) {
  try {
    await page.waitForSelector('flutter-view, flt-glass-pane', { state: 'attached', timeout: FLUTTER_TIMEOUT_MS });
  } catch {
    throw new Error(`waitForFlutter: no Flutter view (flutter-view or flt-glass-pane) appeared on ${url} within ${FLUTTER_TIMEOUT_MS / 1000} s; is it a Flutter web app? Leave waitForFlutter out for other pages`);
  }
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

// ---------------------------------------------------------------------------------------------
// The table

// `check`, `viewports` and `capture` collect the computed styles the binary names in
// `params.styleProperties`: the core owns which ones its judgements read.
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
      browserRunning: browserRunning(),
    };
  },

  /**
   * visual_check: screenshot + the DOM record + details + console + failed requests, and the area
   * to narrow to: the first of `params.scopes` (CSS selectors the binary read from `focus` or
   * `prompt`) that matches, by `scopeInPage`'s rules.
   */
  async check(params) {
    return withPage(params, null, async (page, record) => {
      await page.evaluate(() => (document.fonts ? document.fonts.ready.then(() => undefined) : undefined));
      const dom = await collectDom(page, { styleProperties: params.styleProperties });
      const details = await page.evaluate(`(${detailsInPage})(${collectInPage})`);
      let scope = null;
      // `focus` is one selector the caller wrote; `prompt`'s candidates may be words, not selectors.
      if (params.scopeAnyMatch) await checkSelector(page, params.scopes[0], 'focus');
      if (params.scopes && params.scopes.length > 0) {
        const args = [JSON.stringify(params.scopes), JSON.stringify(!!params.scopeAnyMatch)];
        scope = JSON.parse(await page.evaluate(`(${scopeInPage})(${collectInPage}, ${args.join(', ')})`));
      }
      const screenshot = screenshotPath(params, 'check');
      if (screenshot) await whenFramed(() => page.screenshot({ path: screenshot, fullPage: true }));
      return { dom, details, console: record.console, failedRequests: record.failedRequests, screenshot, scope };
    });
  },

  /** get_console_logs: everything logged from before navigation until waitMs after load. */
  async console(params) {
    return withPage(params, null, async (page, record) => {
      await waitAfterLoad(params);
      return { console: record.console, consoleDropped: record.consoleDropped, failedRequests: record.failedRequests };
    });
  },

  /** verify_accessibility: axe-core injected from npm, run on the page or one selector. */
  async axe(params) {
    const axePath = require.resolve('axe-core/axe.min.js', { paths: lookupDirs() });
    const axeVersion = require(path.join(path.dirname(axePath), 'package.json')).version;
    return withPage(params, null, async (page) => {
      await checkSelector(page, params.selector);
      await page.addScriptTag({ path: axePath });
      const result = await page.evaluate(async ({ selector, rules }) => {
        if (selector && !document.querySelector(selector)) return { missing: true };
        // axe's own refusal of an unknown id names neither the argument nor what to give.
        const known = new Set(window.axe.getRules().map((r) => r.ruleId));
        const unknownRules = (rules || []).filter((id) => !known.has(id));
        if (unknownRules.length) return { unknownRules };
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
      if (result.unknownRules) {
        const ids = result.unknownRules.map((id) => JSON.stringify(id)).join(', ');
        throw new Error(`rules: axe-core ${axeVersion} has no rule${result.unknownRules.length > 1 ? 's' : ''} ${ids}; give its rule ids, e.g. "color-contrast" or "image-alt", or leave rules out to run them all`);
      }
      return { axeVersion, ...result };
    });
  },

  /** detect_layout_shift: layout-shift entries from the first paint to waitMs after load. */
  async layoutShift(params) {
    return withPage(params, (page) => page.addInitScript(layoutShiftObserverInPage), async (page) => {
      await waitAfterLoad(params);
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
      await waitAfterLoad(params);
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
      await checkSelector(page, params.selector);
      const raw = await page.evaluate(`(${measureInPage})(${collectInPage}, ${JSON.stringify(params.selector)})`);
      const measured = JSON.parse(raw);
      if (!measured.found) throw new Error(`no element matches ${params.selector} on ${params.url}`);
      return measured;
    });
  },

  /** test_viewports: per breakpoint, the DOM record, the element's visibility, a screenshot. */
  async viewports(params) {
    const results = [];
    for (const bp of params.breakpoints) {
      const one = await withPage({ ...params, viewport: { width: bp.width, height: bp.height } }, null, async (page) => {
        await checkSelector(page, params.selector);
        const dom = await collectDom(page, { styleProperties: params.styleProperties });
        const element = params.selector ? JSON.parse(await page.evaluate(elementFactsInPage, params.selector)) : null;
        const screenshot = screenshotPath(params, `viewport-${bp.width}x${bp.height}`);
        if (screenshot) await whenFramed(() => page.screenshot({ path: screenshot, fullPage: true }));
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
        // Playwright's own selectors (text=…) work here too, so its parser judges; its error
        // ("locator.count: Unexpected token …") is given with the argument it is about.
        const count = await scope.count().catch((e) => {
          throw new Error(`selector: ${JSON.stringify(params.selector)} is not a selector Playwright can read (${e.message.split('\n')[0]})`);
        });
        if (count === 0) throw new Error(`no element matches ${params.selector} on ${params.url}`);
      }
      const dom = await collectDom(page, { styleProperties: params.styleProperties, scope });
      let screenshot = null;
      if (params.screenshot) {
        screenshot = screenshotPath(params, 'capture');
        if (scope) await whenFramed(() => scope.screenshot({ path: screenshot }));
        else await whenFramed(() => page.screenshot({ path: screenshot, fullPage: true }));
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
      if (params.waitForFlutter) await waitForFlutter(page, params.url);
      if (params.waitMs) await wait(params.waitMs);
      for (const [index, action] of (params.actions || []).entries()) {
        // The server checked each action: a selector, or viewport coordinates in CSS pixels.
        const at = action.selector === undefined ? action : null;
        if (action.type === 'wait') await wait(action.ms);
        else if (action.type !== 'click' && action.type !== 'hover') throw new Error(`unknown action ${JSON.stringify(action.type)}; use click, hover or wait`);
        else if (at) await (action.type === 'click' ? page.mouse.click(at.x, at.y) : page.mouse.move(at.x, at.y));
        else await onElement(page, action, index, params.url);
      }
      const shots = [];
      const started = Date.now();
      for (let i = 0; i < params.frames; i++) {
        const left = started + i * params.intervalMs - Date.now();
        if (left > 0) await wait(left);
        const file = path.join(params.outDir, `frame-${String(i).padStart(3, '0')}.png`);
        const atMs = Date.now() - started;
        await whenFramed(() => page.screenshot({ path: file, clip: params.clip || undefined }));
        shots.push({ file, atMs });
      }
      return { shots };
    });
  },

  /**
   * visual_verify: a screenshot and the page facts challenges are built from. A page is shot down
   * to VERIFY_MAX_HEIGHT px: below that a whole-page image is too small to read.
   */
  async verifyFacts(params) {
    return withPage(params, null, async (page) => {
      await checkSelector(page, params.selector);
      await page.evaluate(() => (document.fonts ? document.fonts.ready.then(() => undefined) : undefined));
      const raw = await page.evaluate(`(${verifyFactsInPage})(${JSON.stringify(params.selector || null)}, ${VERIFY_MAX_HEIGHT})`);
      const facts = JSON.parse(raw);
      if (facts.missing) throw new Error(`no element matches ${params.selector} on ${params.url}`);
      const screenshot = screenshotPath(params, 'verify');
      if (screenshot) {
        if (params.selector) await whenFramed(() => page.locator(params.selector).first().screenshot({ path: screenshot }));
        else await whenFramed(() => page.screenshot({ path: screenshot, fullPage: true, clip: facts.area }));
      }
      return { ...facts, screenshot };
    });
  },
};

const VERIFY_MAX_HEIGHT = 4000;

/**
 * Refuses a `selector` argument (or visual_check's `focus`: `name`) the page cannot read before
 * a method queries it with `document.querySelector`, whose SyntaxError ("page.evaluate:
 * SyntaxError: Failed to execute 'querySelector' …") names neither the argument nor what to give,
 * or, for `focus`, would pass for an element that is not there.
 */
async function checkSelector(page, selector, name = 'selector') {
  if (!selector) return;
  const readable = await page.evaluate((s) => {
    try {
      document.createDocumentFragment().querySelector(s);
      return true;
    } catch (_) {
      return false;
    }
  }, selector);
  if (!readable) throw new Error(`${name}: ${JSON.stringify(selector)} is not a valid CSS selector; e.g. "#buy", "main h1" or "[data-test=price]"`);
}

// How long a capture_frames click or hover waits for its element to be there, visible and
// enabled. Left to Playwright it waits until the whole call times out, and that error blames
// the page's loading when the selector is what is wrong.
const ACTION_TIMEOUT_MS = 5000;

/** Clicks or hovers `action.selector`, or says why it could not: no such element, or one that
 *  never became ready, or a selector Playwright cannot read. */
async function onElement(page, action, index, url) {
  const selector = JSON.stringify(action.selector);
  try {
    if (action.type === 'click') await page.click(action.selector, { timeout: ACTION_TIMEOUT_MS });
    else await page.hover(action.selector, { timeout: ACTION_TIMEOUT_MS });
  } catch (e) {
    const count = await page.locator(action.selector).count().catch(() => null);
    if (count === null) throw new Error(`actions[${index}]: ${selector} is not a selector Playwright can read (${e.message.split('\n')[0]})`);
    if (count === 0) {
      throw new Error(`actions[${index}]: no element matches ${selector} on ${url} after ${ACTION_TIMEOUT_MS} ms; check the selector, or wait for the element first (waitMs or a wait action)`);
    }
    const verb = action.type === 'click' ? 'clicked' : 'hovered';
    throw new Error(`actions[${index}]: ${selector} matches ${count} element${count === 1 ? '' : 's'} on ${url}, but none could be ${verb} within ${ACTION_TIMEOUT_MS} ms (hidden, disabled or covered by another element); pick the element a user would ${action.type === 'click' ? 'click' : 'hover'}, or give x and y`);
  }
}

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

module.exports = { methods };
