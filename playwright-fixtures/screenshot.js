// The shot `toMatchVisual` compares: an element, or the full page. Shared with the bench, which
// times the matcher's steps one by one.
'use strict';

function isLocator(target) {
  return Boolean(target) && typeof target.boundingBox === 'function' && typeof target.page === 'function';
}

function isPage(target) {
  return Boolean(target) && typeof target.mainFrame === 'function' && typeof target.screenshot === 'function';
}

const { pageSession } = require('./devtools.js');

/** Each page's device pixel ratio (fixed for its context), asked once. */
const ratios = new WeakMap();

function isChromium(page) {
  return page.context().browser()?.browserType().name() === 'chromium';
}

/**
 * A full-page shot straight from Chromium's compositor with `optimizeForSpeed`: about 3× faster
 * than `page.screenshot({ fullPage })` on a long page (TOOLCHAIN.md: 318 vs 883 ms), lossless,
 * only a larger PNG. Animations and the caret are already stopped by `prepareForCapture`. The
 * clip's scale is image pixels per CSS pixel (not multiplied by the device's ratio), so `device`
 * asks for the page's ratio.
 */
async function chromiumFullPage(page, scale) {
  const navigation = newDocument(page);
  try {
    return await Promise.race([chromiumFullPageShot(page, scale), navigation.happened]);
  } finally {
    navigation.stop();
  }
}

async function chromiumFullPageShot(page, scale) {
  const session = await pageSession(page);
  let ratio = ratios.get(page);
  if (ratio === undefined) {
    const { result } = await session.send('Runtime.evaluate', { expression: 'window.devicePixelRatio', returnByValue: true });
    ratio = Number(result.value) || 1;
    ratios.set(page, ratio);
  }
  const { cssContentSize } = await session.send('Page.getLayoutMetrics');
  const clip = {
    x: 0,
    y: 0,
    width: Math.ceil(cssContentSize.width),
    height: Math.ceil(cssContentSize.height),
    scale: scale === 'device' ? ratio : 1,
  };
  const { data } = await session.send('Page.captureScreenshot', {
    format: 'png',
    captureBeyondViewport: true,
    optimizeForSpeed: true,
    clip,
  });
  return Buffer.from(data, 'base64');
}

/**
 * Chromium never answers a `Page.captureScreenshot` whose page loads another document meanwhile
 * (seen here: `location.href` set by a timer while the shot was taken; the call waited until the
 * test's timeout). `happened` rejects when the main frame's new document is parsed
 * (`domcontentloaded`, which a same-document navigation does not fire), with an error the
 * matcher takes as a navigation: it waits for the new page and captures it from the start.
 */
function newDocument(page) {
  let onLoaded;
  const happened = new Promise((_, reject) => {
    onLoaded = () => reject(Object.assign(new Error('the page loaded another document while it was shot'), { navigated: true }));
    page.on('domcontentloaded', onLoaded);
  });
  // Nobody may be waiting when the shot finished first.
  happened.catch(() => {});
  return { happened, stop: () => page.off('domcontentloaded', onLoaded) };
}

/**
 * One shot of `target` with the resolved settings' `scale`, `omitBackground`, `fullPage` and
 * `clip` (animations and the caret are prepareForCapture's, as `settings` asks).
 */
async function screenshot(page, target, settings) {
  const shotOptions = { animations: settings.animations, caret: settings.caret, scale: settings.scale, omitBackground: settings.omitBackground };
  // Playwright waits for the element to be visible and stable: within the call's timeout, not
  // the test's.
  if (isLocator(target)) return whenFramed(() => target.screenshot({ ...shotOptions, timeout: settings.timeout }));
  // Firefox and WebKit, and clipped, viewport-only or transparent shots, take Playwright's path.
  if (settings.fullPage && !settings.clip && !settings.omitBackground && isChromium(page)) return whenFramed(() => chromiumFullPage(page, settings.scale));
  return whenFramed(() => page.screenshot({ ...shotOptions, fullPage: settings.fullPage, clip: settings.clip }));
}

/**
 * Chromium answers `Page.captureScreenshot` with "Unable to capture screenshot" when its
 * compositor had no frame to copy (seen on a busy two-core machine, a page just opened and
 * clicked); a later frame is there. That failure alone is tried again, twice, `NO_FRAME_WAIT_MS`
 * apart: any other error, or a third, is the caller's.
 */
async function whenFramed(take) {
  for (let tries = 1; ; tries++) {
    try {
      return await take();
    } catch (err) {
      if (tries > NO_FRAME_RETRIES || !NO_FRAME.test(err?.message ?? '')) throw err;
      await new Promise((resolve) => setTimeout(resolve, NO_FRAME_WAIT_MS));
    }
  }
}

const NO_FRAME = /Unable to capture screenshot/;
const NO_FRAME_RETRIES = 2;
const NO_FRAME_WAIT_MS = 100;

module.exports = { screenshot, whenFramed, isLocator, isPage };
