// The page's `page.addLocatorHandler` handlers, run before the page is walked or shot.
'use strict';

/**
 * Lets the page's `page.addLocatorHandler` handlers close what they watch for (a cookie banner,
 * a sign-up dialog) before the page is walked or shot, as toHaveScreenshot does before each
 * shot. Waiting for a locator is the public call that runs them (and waits out a navigation).
 * A page with no handlers skips that round trip to the browser (tens of milliseconds on a long
 * page just shot, which the browser lays out again to answer it).
 */
async function runLocatorHandlers(page, timeout) {
  if (!mayHaveLocatorHandlers(page)) return;
  await page.locator(':root').waitFor({ state: 'attached', timeout });
}

/**
 * Whether `page` may have locator handlers. Playwright has no public way to ask: its client page
 * keeps them in a private Map (`_locatorHandlers`, a handler in it from `addLocatorHandler` until
 * it is removed or has run its `times`). Any other shape — another Playwright's — counts as
 * "may have", so the handlers still run.
 */
function mayHaveLocatorHandlers(page) {
  const handlers = page._locatorHandlers;
  return !(handlers instanceof Map) || handlers.size > 0;
}

module.exports = { runLocatorHandlers, mayHaveLocatorHandlers };
