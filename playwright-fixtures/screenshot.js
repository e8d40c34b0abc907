// The shot `toMatchVisual` compares: an element, or the full page. Shared with the bench, which
// times the matcher's steps one by one.
'use strict';

function isLocator(target) {
  return Boolean(target) && typeof target.boundingBox === 'function' && typeof target.page === 'function';
}

/** One CDP session per page, reused for every full-page shot of that page. */
const cdpSessions = new WeakMap();

function isChromium(page) {
  return page.context().browser()?.browserType().name() === 'chromium';
}

/**
 * A full-page shot straight from Chromium's compositor with `optimizeForSpeed`: about 3× faster
 * than `page.screenshot({ fullPage })` on a long page (TOOLCHAIN.md: 318 vs 883 ms), lossless,
 * only a larger PNG. Animations and the caret are already stopped by `prepareForCapture`.
 */
async function chromiumFullPage(page) {
  let session = cdpSessions.get(page);
  if (!session) {
    session = await page.context().newCDPSession(page);
    cdpSessions.set(page, session);
  }
  const { cssContentSize } = await session.send('Page.getLayoutMetrics');
  const clip = { x: 0, y: 0, width: Math.ceil(cssContentSize.width), height: Math.ceil(cssContentSize.height), scale: 1 };
  const { data } = await session.send('Page.captureScreenshot', {
    format: 'png',
    captureBeyondViewport: true,
    optimizeForSpeed: true,
    clip,
  });
  return Buffer.from(data, 'base64');
}

async function screenshot(page, target, settings) {
  const shotOptions = { animations: 'disabled', caret: 'hide', scale: 'device' };
  if (isLocator(target)) return target.screenshot(shotOptions);
  // Firefox and WebKit, and clipped or viewport-only shots, take Playwright's path.
  if (settings.fullPage && !settings.clip && isChromium(page)) return chromiumFullPage(page);
  return page.screenshot({ ...shotOptions, fullPage: settings.fullPage, clip: settings.clip });
}

module.exports = { screenshot, isLocator };
