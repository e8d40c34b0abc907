// `import { test, expect } from 'sightline/playwright'`: the fixture that watches the page for
// failed assets, and `expect(page | locator).toMatchVisual(name?, options?)`, which captures
// pixels + DOM + styles and compares them with the approved baseline in this process (Rust
// addon). Public Playwright APIs only.
'use strict';

const path = require('node:path');
const util = require('node:util');
const { runnerPlaywright } = require('./runner.js');
const { test: base, expect: baseExpect } = runnerPlaywright();
const addon = require('../addon.js');
const { capture, navigatedAway } = require('./capture.js');
const { followPageWork } = require('./page-work.js');
const { watchAssets } = require('./assets.js');
const { isLocator, isPage } = require('./screenshot.js');
const { attachOutcome, writeAttachments } = require('./attachments.js');
const { isMaskLocator } = require('./mask.js');
const { projectRoot, specFile } = require('./project.js');

/** Asset failures seen on each page, filled by the `page` fixture's listeners. */
const failuresByPage = new WeakMap();

const ASSET_KINDS = { font: 'font', stylesheet: 'stylesheet', image: 'image' };

function watchPage(page) {
  const failures = [];
  failuresByPage.set(page, failures);
  page.on('response', (response) => {
    const kind = ASSET_KINDS[response.request().resourceType()];
    if (kind && response.status() >= 400) failures.push({ kind, url: response.url(), detail: `HTTP ${response.status()}` });
  });
  page.on('requestfailed', (request) => {
    const kind = ASSET_KINDS[request.resourceType()];
    if (kind) failures.push({ kind, url: request.url(), detail: `request failed: ${request.failure()?.errorText ?? 'unknown'}` });
  });
  // A font that downloads but does not decode shows only here (TOOLCHAIN.md).
  page.on('console', (message) => {
    const text = message.text();
    if (/Failed to decode downloaded font|OTS parsing error/.test(text)) {
      const url = /font: (\S+)/.exec(text)?.[1] ?? message.location().url ?? '';
      failures.push({ kind: 'font', url, detail: 'decode failed' });
    }
  });
}

// New snapshots of each test, failed softly: the test goes on to its later calls and fails at
// its end, naming every new snapshot (as toHaveScreenshot fails on a missing snapshot).
const newSnapshotsByTest = new WeakMap();

const test = base.extend({
  page: async ({ page }, use) => {
    watchPage(page);
    watchAssets(page);
    await followPageWork(page);
    await use(page);
  },
  _sightlineNewSnapshots: [
    async ({}, use, testInfo) => {
      await use();
      const calls = newSnapshotsByTest.get(testInfo);
      if (!calls?.length) return;
      // Reported at the first new call's line in the test, not here.
      const error = new Error(calls.map((c) => c.message).join('\n'));
      error.stack = `Error: ${error.message}\n${calls[0].frames}`;
      throw error;
    },
    { auto: true },
  ],
});

/** How many unnamed calls each test (each attempt: a retry has a new testInfo) has made. */
const unnamedCalls = new WeakMap();

/**
 * The project's `expect.toHaveScreenshot` from playwright.config (stylePath already resolved
 * against the config's folder by Playwright), or undefined. Playwright exposes the project's
 * `expect` settings to no public API; this is the one internal field the matcher reads, and
 * tests/options pins it.
 */
function playwrightScreenshotConfig(testInfo) {
  return testInfo._projectInternal?.expect?.toHaveScreenshot;
}

/**
 * The call's options as the engine reads them: a mask Locator cannot travel to it, so it stands
 * as `{ locator: 'this-page' | 'other-page' }` and anything else that is not a selector string as
 * `{ type }`; the engine checks them all and names a bad entry. Returns the options and the
 * mask's Locators of this page, which each walk marks in the page.
 */
function describeMask(options, page) {
  if (!Object.hasOwn(options, 'mask')) return { options, locators: [] };
  const { mask } = options;
  if (!Array.isArray(mask)) return { options: { ...options, mask: { type: mask === null ? 'null' : typeof mask } }, locators: [] };
  const locators = [];
  const entries = mask.map((entry) => {
    if (typeof entry === 'string') return entry;
    if (isMaskLocator(entry)) {
      if (entry.page() !== page) return { locator: 'other-page' };
      locators.push(entry);
      return { locator: 'this-page' };
    }
    return { type: entry === null ? 'null' : typeof entry };
  });
  return { options: { ...options, mask: entries }, locators };
}

/**
 * `expect(page | locator).toMatchVisual(name?, options?)`. The engine's capture session decides
 * every step — walk the page, shoot it after a pause, or done with the outcome — and words every
 * message; this function only does what the page must: prepare it, walk it, shoot it, attach.
 */
async function toMatchVisual(target, nameOrOptions, maybeOptions) {
  const testInfo = test.info();
  // As toHaveScreenshot: only a Page or a Locator has pixels and a DOM to compare.
  if (!isPage(target) && !isLocator(target)) {
    const given = target === null || typeof target !== 'object' ? String(target) : `${target.constructor?.name ?? 'Object'} ${util.inspect(target, { depth: 0, maxArrayLength: 4 })}`;
    throw new Error(`toMatchVisual can be only used with Page or Locator objects, was called with ${given}`);
  }
  // As toHaveScreenshot: `(name, options)`, or `(options)` with the name, if any, among them.
  const named = typeof nameOrOptions === 'string' || Array.isArray(nameOrOptions);
  const { name: optionsName, signal, ...callOptions } = (named ? maybeOptions : nameOrOptions) ?? {};
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new Error('toMatchVisual options: "signal" must be an AbortSignal (new AbortController().signal)');
  }
  const name = named ? nameOrOptions : optionsName;
  let unnamedIndex;
  if (name === undefined) {
    unnamedIndex = (unnamedCalls.get(testInfo) ?? 0) + 1;
    unnamedCalls.set(testInfo, unnamedIndex);
  }
  const page = isLocator(target) ? target.page() : target;
  const { options, locators: maskLocators } = describeMask(callOptions, page);
  const open = () =>
    new addon.CaptureSession({
      root: projectRoot(testInfo.config),
      name,
      unnamedIndex,
      project: testInfo.project.name,
      playwrightDefaults: playwrightScreenshotConfig(testInfo),
      options,
      updateSnapshots: testInfo.config.updateSnapshots,
      isNot: this.isNot,
      expectTimeout: this.timeout,
      sharded: Boolean(testInfo.config.shard),
      ignoreSnapshots: Boolean(testInfo.project.ignoreSnapshots),
      // Workers are children of the test runner: its pid identifies the run.
      runId: `${process.ppid}`,
      testId: testInfo.testId,
      // The spec file as the reporter's ledger names it.
      testFile: specFile(testInfo.config, testInfo.file),
      testTitlePath: testInfo.titlePath.slice(1),
      testLine: testInfo.line,
      retry: testInfo.retry,
    });
  let label = name ?? `#${unnamedIndex}`;
  try {
    // The output files of the decided capture, written while the page is put back.
    let written;
    for (let navigations = 0; ; navigations += 1) {
      const session = open();
      label = session.name;
      const step = session.start();
      if (step.kind === 'done') return await finish(testInfo, session, step.outcome);
      try {
        // The page work is one step named after the snapshot, as toHaveScreenshot's step names
        // it: the report and the trace tell calls apart, and the page calls it makes sit inside.
        const outcome = await test.step(`toMatchVisual(${session.name})`, () => capture(page, target, session, step, {
          maskLocators,
          signal,
          launchArgs: testInfo.project.use?.launchOptions?.args,
          assetFailures: () => failuresByPage.get(page) ?? [],
          decided: (decision) => { written = writeAttachments(testInfo, decision.attachments); },
        }), { box: true });
        // Awaited here, so an error finishing the call (a file not written) is named as the call's.
        return await finish(testInfo, session, outcome, written);
      } catch (err) {
        // A capture the page navigated under may have started its files: done before the next.
        await written?.catch(() => {});
        written = undefined;
        // The page navigated while it was captured (a `page.goto` still in flight, a redirect):
        // as toHaveScreenshot, wait for the new page and capture it from the start.
        if (navigations >= MAX_NAVIGATIONS || !navigatedAway(err)) throw err;
        await page.waitForLoadState('load', { timeout: session.page.timeout }).catch(() => {});
      }
    }
  } catch (err) {
    throw asCallError(err, label);
  }
}

/** The codes of the errors the engine throws (bad input, or a bug). */
const ENGINE_ERRORS = new Set(['InvalidArg', 'GenericFailure']);

/**
 * `err` saying which call it broke: an engine error (a write refused, a damaged file) or a file
 * system's (an output file not written) reads `toMatchVisual("home"): …` as every message of the
 * call does. Playwright's own errors already say what failed on the page, and keep their words.
 */
function asCallError(err, label) {
  const ours = ENGINE_ERRORS.has(err?.code) || typeof err?.syscall === 'string';
  if (ours && !String(err.message).startsWith('toMatchVisual')) {
    err.message = `toMatchVisual("${label}"): ${err.message}`;
  }
  return err;
}

/** How many navigations one call waits through before it gives up with the page's error. */
const MAX_NAVIGATIONS = 3;


/**
 * Attaches what the outcome lists and returns the matcher's result. As toHaveScreenshot's, the
 * attachments belong to the call's Expect step (no `Attach` step each) and are not copied: the
 * expected image is the baseline file itself, the actual and the diff are files of the test's
 * output folder (`test-results/<test>/home-actual.png`), so the reporters print those paths.
 */
async function finish(testInfo, session, outcome, written) {
  await attachOutcome(testInfo, outcome.attachments, written);
  // The capture and evidence were written meanwhile; a file that could not be fails the call.
  await session.close();
  const result = { pass: outcome.pass, message: () => outcome.message, name: 'toMatchVisual' };
  if (outcome.failAtEnd) {
    failNewSnapshotAtEnd(testInfo, outcome.failAtEnd);
    // A retry cannot give the snapshot a baseline: as toHaveScreenshot's missing snapshot, the
    // test is not retried (the field Playwright reads from a matcher's result; older versions
    // ignore it).
    result.shouldNotRetryTest = true;
  }
  return outcome.status ? { ...result, expected: session.name, actual: outcome.status } : result;
}

/** Records a new snapshot's message: the test runs on and fails at its end with it. */
function failNewSnapshotAtEnd(testInfo, message) {
  const calls = newSnapshotsByTest.get(testInfo) ?? [];
  calls.push({ message, frames: callerFrames() });
  newSnapshotsByTest.set(testInfo, calls);
}

/** The stack frames of the current call outside this package's fixtures: the test's own line
 *  comes first (Playwright drops its own frames). */
function callerFrames() {
  const lines = (new Error().stack ?? '').split('\n').slice(1);
  return lines.filter((line) => !line.includes(__dirname + path.sep)).join('\n');
}

const expect = baseExpect.extend({ toMatchVisual });

module.exports = { test, expect };
