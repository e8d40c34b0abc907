// One capture of the page for a `toMatchVisual` call: the page side of the engine's capture
// session. The session decides every step (walk the page, shoot it after a pause, tell what it
// was drawn with, trace a restyle, done); this loop only does what the page must. The matcher
// (index.js) runs it for every call; the capture bench runs the same loop with a `lap` hook to
// time each step, so what it measures is what the matcher does.
'use strict';

const { collectDom } = require('./collector.js');
const { prepareForCapture, finishAnimations, waitForContent, restoreAfterCapture } = require('./stabilise.js');
const { pageWork } = require('./page-work.js');
const { captureEnvironment, renderedFonts } = require('./environment.js');
const { tracedRules } = require('./trace.js');
const { assetDigests } = require('./assets.js');
const { screenshot, isLocator } = require('./screenshot.js');
const { growToScrollContent } = require('./scroll-content.js');
const { runLocatorHandlers } = require('./locator-handlers.js');
const { markLocators } = require('./mask.js');

/**
 * What a walk of the page is asked for: the settings' masks (and the locators' marks), ignores,
 * scale and the shot's place. One owner, so what the bench times as the page's floor is the walk
 * the matcher does.
 */
function walkOptions(settings, styleProperties, { marked = null, scope = null } = {}) {
  return {
    styleProperties,
    mask: marked ? [...settings.mask, marked.selector] : settings.mask,
    ignore: settings.ignoreSelectors,
    ignoreRegions: settings.ignoreRegions,
    scope,
    scale: settings.scale,
    // Boxes where the shot's pixels are: a viewport shot of a scrolled page, or a clipped
    // one, does not start at the document's corner.
    shot: { fullPage: settings.fullPage, clip: settings.clip },
  };
}

/**
 * One capture of the page for `session`, from its first `step`: prepare the page, walk and shoot
 * it as the session asks, and put it back. Returns the session's outcome.
 *
 * `maskLocators`: the mask's Locators of this page, marked before each walk. `signal`: the call's
 * AbortSignal. `launchArgs`: the browser's launch arguments (part of where it rendered).
 * `assetFailures()`: the assets the page failed to load so far. `lap(step, detail)`: called as
 * each part ends (`clearHover`, `prepareForCapture`, `pageWork`, `waitForContent`, `beforeStep`,
 * `collectDom` with `{ dom }`, `screenshot` with `{ shot }`, `rendered`, `trace`, `compare` after
 * each answer to the session, `restoreAfterCapture`), for the bench's timings. `decided(outcome)`:
 * called once the session has decided, before the page is put back, so its files can be
 * written meanwhile.
 */
async function capture(page, target, session, step, { maskLocators = [], signal, launchArgs, assetFailures = () => [], lap = () => {}, decided = () => {} }) {
  // As toHaveScreenshot's `signal`: an abort fails the call like its timeout, between the page's
  // steps and during a pause before a shot.
  const checkSignal = () => {
    if (signal?.aborted) {
      throw new Error(`toMatchVisual("${session.name}"): aborted by its signal${signal.reason === undefined ? '' : ` (${signal.reason})`}`);
    }
  };
  checkSignal();
  const settings = session.page;
  // The page's own work is waited for within the call's timeout, as the shots are.
  const deadline = Date.now() + settings.timeout;
  const work = settings.waitForRequests ? pageWork(page, settings.ignoreRequests) : null;
  if (settings.clearHover) await page.mouse.move(-1, -1);
  // Overlays shown with page.screencast (and Playwright's own) are not the page: hidden while it
  // is captured, as toHaveScreenshot hides them (where Playwright has page.screencast).
  await page.screencast?.hideOverlays?.();
  lap('clearHover');
  let putBack = null;
  try {
    // A Locator asked for its full page: an element that scrolls is grown to its whole content,
    // before its animations are finished.
    const grow = settings.scrollContent && isLocator(target);
    const finish = settings.animations === 'disabled';
    await prepareForCapture(page, settings, { finish: finish && !grow });
    if (grow) {
      putBack = await growToScrollContent(target, settings.timeout);
      if (finish) await finishAnimations(page);
    }
    lap('prepareForCapture');
    await work?.settle(deadline);
    lap('pageWork');
    // The first step's locator handlers run while the content is waited for: each only waits on
    // the page, so the two cost one wait.
    await Promise.all([
      waitForContent(page, { images: settings.waitForImages, ariaBusy: settings.waitForAriaBusy, timeout: settings.timeout }).catch((err) => {
        throw new Error(`toMatchVisual("${session.name}"): ${err.message}`);
      }),
      runLocatorHandlers(page, settings.timeout),
    ]);
    lap('waitForContent');
    let handlersRan = true;
    // A Locator capture is only the element's box: its DOM record is only the element's subtree,
    // boxes relative to the element (so they line up with the element screenshot's pixels).
    const walk = async (styleProperties) => {
      const scope = isLocator(target) ? await target.elementHandle({ timeout: settings.timeout }) : null;
      const marked = await markLocators(maskLocators);
      try {
        return await collectDom(page, walkOptions(settings, styleProperties, { marked, scope }));
      } finally {
        await marked?.unmark();
        await scope?.dispose();
      }
    };
    let environmentTold = false;
    while (step.kind !== 'done') {
      checkSignal();
      // Before the page is walked or shot; the lookups after the last shot (its fonts, its rules)
      // are about the page as it was shot, which a handler must not change.
      if ((step.kind === 'walk' || step.kind === 'shoot') && !handlersRan) await runLocatorHandlers(page, settings.timeout);
      handlersRan = false;
      // What the page started since (the images of what it rendered) is waited for too.
      await work?.settle(deadline, { quiet: false });
      lap('beforeStep');
      if (step.kind === 'walk') {
        const dom = await walk(step.styleProperties);
        lap('collectDom', { dom });
        // Once a call: the browser does not change between its walks.
        step = await session.walked(dom, environmentTold ? undefined : captureEnvironment(page, launchArgs));
        environmentTold = true;
      } else if (step.kind === 'trace') {
        // What restyled the elements is told where the browser can say.
        const { rules, error } = await tracedRules(page, step);
        lap('trace');
        step = await session.traced(rules, error);
      } else if (step.kind === 'rendered') {
        // The fonts and the rules of a failing restyle share one round of the page's DevTools
        // session (its domains enabled once).
        const [fonts, assets, traced] = await Promise.all([
          renderedFonts(page, step.maxFamilies, step.fontElements),
          assetDigests(page, step.maxAssets),
          step.trace ? tracedRules(page, step.trace) : {},
        ]);
        lap('rendered');
        step = await session.rendered(fonts, assets, traced.rules, traced.error);
      } else {
        if (step.afterMs > 0) await pause(step.afterMs, signal);
        checkSignal();
        const shot = await screenshot(page, target, settings).catch((err) => {
          if (err?.name !== 'TimeoutError') throw err;
          throw new Error(`toMatchVisual("${session.name}"): the element never became visible and stable within the timeout of ${settings.timeout} ms (${err.message.split('\n')[0]})`);
        });
        lap('screenshot', { shot });
        const pending = work?.stillPending(settings.timeout) ?? [];
        // A page that may be the baseline's is shot before it is walked: the shot tells the environment then.
        step = await session.shot(shot, [...assetFailures(), ...pending], environmentTold ? undefined : captureEnvironment(page, launchArgs));
        environmentTold = true;
      }
      lap('compare');
    }
    decided(step.outcome);
  } finally {
    // A page that navigated away has nothing left to put back.
    await putBack?.().catch((err) => {
      if (!navigatedAway(err)) throw err;
    });
    await restoreAfterCapture(page).catch((err) => {
      if (!navigatedAway(err)) throw err;
    });
    await page.screencast?.showOverlays?.();
    lap('restoreAfterCapture');
  }
  return step.outcome;
}

/** Waits `ms`, or less when `signal` aborts meanwhile. */
function pause(ms, signal) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Whether `err` says the page's document went away under a step (it navigated). */
function navigatedAway(err) {
  // `navigated`: screenshot.js's full-page shot, which Chromium leaves unanswered on a navigation.
  if (err?.navigated === true) return true;
  return /Execution context was destroyed|Cannot find context with specified id|[Ff]rame (was|got) detached/.test(String(err?.message));
}

module.exports = { capture, navigatedAway, walkOptions };
