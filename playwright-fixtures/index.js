// `import { test, expect } from 'sightline/playwright'`: the fixture that watches the page for
// failed assets, and `expect(page | locator).toMatchVisual(name?, options?)`, which captures
// pixels + DOM + styles and compares them with the approved baseline in this process (Rust
// addon). Public Playwright APIs only.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { runnerPlaywright } = require('./runner.js');
const { test: base, expect: baseExpect } = runnerPlaywright();
const addon = require('../addon.js');
const { collectDom } = require('./collector.js');
const { prepareForCapture, finishAnimations, waitForContent, restoreAfterCapture } = require('./stabilise.js');
const { screenshot, isLocator } = require('./screenshot.js');
const { splitMask, markLocators } = require('./mask.js');
const { projectRoot, specFile, isCaptureOnlyShard } = require('./project.js');

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
 * The snapshot name of this call, as the engine gives it: the call's name (a string or
 * Playwright's name array, `.png` dropped; in its spec file's folder when `baselinePath` starts
 * `{testFile}/{name}`) or, unnamed, `<spec file>/<test titles>`, numbered from the test's second
 * unnamed call on. A bad name fails here, before anything is captured.
 */
function snapshotName(testInfo, root, name, testFile) {
  let input = { root, name, testFile };
  if (name === undefined) {
    const index = (unnamedCalls.get(testInfo) ?? 0) + 1;
    unnamedCalls.set(testInfo, index);
    input = { root, testFile, titlePath: testInfo.titlePath.slice(1), index };
  }
  try {
    return addon.snapshotName(input);
  } catch (err) {
    throw new Error(`toMatchVisual: ${err.message}`);
  }
}

/**
 * The project's `expect.toHaveScreenshot` from playwright.config (stylePath already resolved
 * against the config's folder by Playwright), or undefined. Playwright exposes the project's
 * `expect` settings to no public API; this is the one internal field the matcher reads, and
 * tests/options pins it.
 */
function playwrightScreenshotConfig(testInfo) {
  return testInfo._projectInternal?.expect?.toHaveScreenshot;
}

/** The `stylePath` files' CSS, joined (read as toHaveScreenshot reads them: relative paths from
 *  the folder the tests run in). */
async function readStyles(name, stylePaths) {
  if (!stylePaths?.length) return '';
  const texts = await Promise.all(
    stylePaths.map((file) =>
      fs.promises.readFile(file, 'utf8').catch((err) => {
        throw new Error(`toMatchVisual("${name}"): stylePath ${JSON.stringify(file)} cannot be read (${err.code ?? err.message}): give the path of a CSS file, relative to ${process.cwd()} or absolute`);
      }),
    ),
  );
  return texts.map((t) => t.trim()).join('\n');
}

/** The failure message: the verdict, then the core's explanation (top regions, restyled properties). */
function failureMessage(name, result) {
  return [`toMatchVisual("${name}"): ${result.evidence.verdict}`, ...result.explanation.map((line) => `  ${line}`)].join('\n');
}

/** Walks of the page a call makes at most while its masked or ignored elements keep moving. */
const MASK_WALKS = 3;

/** Pauses between re-shots, as toHaveScreenshot's: then the last one, until the timeout. */
const RESHOT_BACKOFF_MS = [0, 100, 250, 500];

/**
 * Shoots after `first` until two consecutive shots agree, backing off between tries, for at most
 * `timeout` ms (always at least one more shot). Shots agree when their bytes are equal or, given
 * the capture's DOM record `dom`, when they differ only under its masked and ignored boxes.
 * Returns the last shot, the one before it, whether they agreed, and how long it took.
 */
async function settle(page, target, settings, first, timeout, dom) {
  const started = Date.now();
  const deadline = started + timeout;
  let previous = first;
  let shot = first;
  for (let attempt = 0; ; attempt++) {
    // The last pause is cut to the time left, so a never-settling page is shot until the timeout.
    const left = deadline - Date.now();
    if (attempt > 0 && left <= 0) break;
    const pause = Math.min(RESHOT_BACKOFF_MS[Math.min(attempt, RESHOT_BACKOFF_MS.length - 1)], Math.max(left, 0));
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    previous = shot;
    shot = await screenshot(page, target, settings);
    // Two shots that differ only under a mask (a ticking clock) or an ignored element agree, as
    // toHaveScreenshot's masked shots do; `dom` (the record the mask comes from) says where.
    const agree = shot.equals(previous) || (dom !== undefined && (await addon.shotsAgree(previous, shot, dom)));
    if (agree) return { shot, previous, settled: true, waitedMs: Date.now() - started };
    if (Date.now() >= deadline) break;
  }
  return { shot, previous, settled: false, waitedMs: Date.now() - started };
}

async function toMatchVisual(target, nameOrOptions, maybeOptions) {
  const testInfo = test.info();
  // As toHaveScreenshot: `(name, options)`, or `(options)` with the name, if any, among them.
  const named = typeof nameOrOptions === 'string' || Array.isArray(nameOrOptions);
  const { name: optionsName, ...callOptions } = (named ? maybeOptions : nameOrOptions) ?? {};
  const root = projectRoot(testInfo.config);
  // The spec file as the reporter's ledger names it.
  const testFile = specFile(testInfo.config, testInfo.file);
  const name = snapshotName(testInfo, root, named ? nameOrOptions : optionsName, testFile);
  // `--ignore-snapshots` (or a project's `ignoreSnapshots`) skips visual assertions, as it skips
  // toHaveScreenshot: nothing is captured or compared.
  if (testInfo.project.ignoreSnapshots) {
    return { pass: !this.isNot, message: () => `toMatchVisual("${name}"): skipped (ignoreSnapshots)`, name: 'toMatchVisual' };
  }
  // Workers are children of the test runner: its pid identifies the run.
  const runId = `${process.ppid}`;
  // A retry cannot give a new snapshot a baseline: when an earlier attempt of this test found
  // only that, it is reported again, softly, without shooting.
  if (testInfo.retry > 0 && !this.isNot) {
    const earlier = addon.earlierNewSnapshotSync({ root, name, project: testInfo.project.name, runId, testId: testInfo.testId });
    if (earlier) {
      const message = failureMessage(name, earlier);
      failNewSnapshotAtEnd(testInfo, message);
      return { pass: true, message: () => message, name: 'toMatchVisual', expected: name, actual: 'new' };
    }
  }
  const page = isLocator(target) ? target.page() : target;
  // The mask's Locators stay here (marked in the page for the DOM walk); the engine checks the
  // rest of the call's options and resolves them over .sightline/config.json (an error names the
  // key); the comparison itself resolves the same options again from `options`.
  const { overrides: options, locators: maskLocators } = splitMask(name, callOptions, page);
  const playwrightDefaults = playwrightScreenshotConfig(testInfo);
  const settings = addon.resolveSettings({ root, playwrightDefaults, overrides: options });
  const timeout = settings.timeout ?? this.timeout ?? 5000;
  const update = testInfo.config.updateSnapshots;
  const css = await readStyles(name, settings.stylePath);
  // A capture-only shard stores a stable shot and compares nothing: the merge job does.
  const captureOnly = isCaptureOnlyShard(settings, testInfo.config);
  // The baseline decodes on a thread of its own while the page is prepared, walked and shot.
  if (!captureOnly) {
    addon.prefetchBaseline({ root, name, project: testInfo.project.name });
  }

  if (settings.clearHover) await page.mouse.move(-1, -1);
  await prepareForCapture(page, { animations: settings.animations, caret: settings.caret, hideScrollbars: settings.hideScrollbars, css });
  try {
    if (settings.animations === 'disabled') await finishAnimations(page);
    await waitForContent(page, { images: settings.waitForImages, ariaBusy: settings.waitForAriaBusy, timeout }).catch((err) => {
      throw new Error(`toMatchVisual("${name}"): ${err.message}`);
    });
    // A Locator capture is only the element's box: its DOM record is only the element's subtree,
    // boxes relative to the element (so they line up with the element screenshot's pixels).
    const walk = async (styleProperties) => {
      const scope = isLocator(target) ? await target.elementHandle({ timeout }) : null;
      const marked = await markLocators(maskLocators);
      try {
        return await collectDom(page, {
          styleProperties,
          mask: marked ? [...settings.mask, marked.selector] : settings.mask,
          ignore: settings.ignoreSelectors,
          scope,
          scale: settings.scale,
          // Boxes where the shot's pixels are: a viewport shot of a scrolled page, or a clipped
          // one, does not start at the document's corner.
          shot: { fullPage: settings.fullPage, clip: settings.clip },
        });
      } finally {
        await marked?.unmark();
        await scope?.dispose();
      }
    };
    let dom = await walk(settings.styleProperties);
    // Only a call that masks or ignores something has shots to compare past their bytes, and
    // boxes that must still be where the walk found them when the page is shot.
    const setsAside = maskLocators.length > 0 || settings.mask.length > 0 || settings.ignoreSelectors.length > 0;
    // The page is walked before it is shot, so a masked element that moved in between (a late ad
    // slot growing, a banner pushing it down) would be painted where it was. After the shot the
    // boxes are walked again (no styles: cheap); when one moved, came or went, the record is
    // walked anew and the page shot again. Returns what moved, or null.
    const maskMoved = async () => {
      if (!setsAside) return null;
      const moved = addon.setAsideMovedSync(dom, await walk([]));
      if (moved) dom = await walk(settings.styleProperties);
      return moved;
    };
    const input = (shot, updateSnapshots) => ({
      root,
      name,
      project: testInfo.project.name,
      screenshot: shot,
      dom,
      failures: failuresByPage.get(page) ?? [],
      overrides: options,
      playwrightDefaults,
      updateSnapshots,
      runId,
      testId: testInfo.testId,
      testTitle: testInfo.titlePath.slice(1).join(' › '),
      // The baseline remembers its test: a later run that did not select it stays quiet.
      testFile,
      testTitlePath: testInfo.titlePath.slice(1),
      testLine: testInfo.line,
    });

    if (captureOnly) {
      let settled;
      for (let walks = 1; ; walks++) {
        settled = await settle(page, target, settings, await screenshot(page, target, settings), timeout, setsAside ? dom : undefined);
        if (!settled.settled) {
          const message = () => `toMatchVisual("${name}"): Unstable page: two consecutive screenshots never matched within ${settled.waitedMs} ms; nothing was stored for the merge job`;
          return { pass: false, message, name: 'toMatchVisual' };
        }
        const moved = await maskMoved();
        if (!moved) break;
        if (walks === MASK_WALKS) {
          const message = () =>
            `toMatchVisual("${name}"): Unstable page: ${moved} between the walk of the page and its screenshot, ${MASK_WALKS} times; the mask cannot be placed, so nothing was stored for the merge job`;
          return { pass: false, message, name: 'toMatchVisual' };
        }
      }
      await addon.storeCapture(input(settled.shot, 'none'));
      return { pass: true, message: () => `toMatchVisual("${name}"): captured for the merge job (capture-only shard)`, name: 'toMatchVisual' };
    }

    let result;
    let shot;
    const started = Date.now();
    for (let walks = 1; ; walks++) {
      const earlier = shot;
      // An unchanged page costs one shot: the first is checked against the baseline,
      // provisionally (no baseline is written from a shot that may not be stable).
      const first = await screenshot(page, target, settings);
      result = await addon.compareCapture({ ...input(first, update), provisional: true });
      // Otherwise shoot until two consecutive shots agree, and decide on the settled one.
      const settled = result.failed || result.wouldWriteBaseline ? await settle(page, target, settings, first, timeout, setsAside ? dom : undefined) : { settled: true, shot: first };
      shot = settled.shot;
      const moved = await maskMoved();
      if (!moved) {
        // The first comparison stands when the settled shot is the one it compared and there is
        // no baseline to write: a failing snapshot costs one comparison.
        if (!settled.settled) {
          // The core names what kept changing and writes no baseline, in any update mode.
          result = await addon.compareCapture({ ...input(shot, update), unsettledAfter: settled.previous, waitedMs: settled.waitedMs });
        } else if (result.wouldWriteBaseline || !shot.equals(first)) {
          result = await addon.compareCapture(input(shot, update));
        }
        break;
      }
      if (walks === MASK_WALKS) {
        // A masked element that moves on every walk is a page that does not settle: the core
        // records it as unstable (no baseline written, approval held), naming what moved.
        result = await addon.compareCapture({ ...input(shot, update), unsettledAfter: earlier, waitedMs: Date.now() - started });
        break;
      }
    }

    const { evidence } = result;
    await testInfo.attach(`${name}-evidence.json`, { body: JSON.stringify(evidence, null, 2), contentType: 'application/json' });
    if (result.failed) {
      if (evidence.files.baseline) {
        await testInfo.attach(`${name}-expected.png`, { path: path.join(root, evidence.files.baseline), contentType: 'image/png' });
      }
      // The capture as compared (masks painted, compressed quickly) and the diff, as
      // files in the test's output folder: attached by path, Playwright's reporters print
      // Expected / Received / Diff paths, as they do for toHaveScreenshot.
      await attachFile(testInfo, `${name}-actual.png`, result.actualPng ?? shot);
      if (result.diffPng) await attachFile(testInfo, `${name}-diff.png`, result.diffPng);
    }
    if (evidence.status === 'new' && !this.isNot) {
      // Nothing to compare yet, so nothing the rest of the test depends on: it runs on, and its
      // end fails with this message.
      failNewSnapshotAtEnd(testInfo, failureMessage(name, result));
      return { pass: true, message: () => failureMessage(name, result), name: 'toMatchVisual', expected: name, actual: evidence.status };
    }
    const pass = !result.failed;
    const message = result.baselineWritten
      ? () => `toMatchVisual("${name}"): baseline written (${evidence.files.baseline})`
      : pass
        ? () => `toMatchVisual("${name}"): expected a visual change, but ${evidence.verdict}`
        : () => failureMessage(name, result);
    return { pass, message, name: 'toMatchVisual', expected: name, actual: evidence.status };
  } finally {
    await restoreAfterCapture(page);
  }
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

/** Writes `body` as `file` in the test's output folder and attaches it by path. */
async function attachFile(testInfo, file, body) {
  const where = testInfo.outputPath(file);
  await fs.promises.mkdir(path.dirname(where), { recursive: true });
  await fs.promises.writeFile(where, body);
  await testInfo.attach(file, { path: where, contentType: 'image/png' });
}

const expect = baseExpect.extend({ toMatchVisual });

module.exports = { test, expect };
