// One DevTools protocol session per page, shared by the matcher's full-page shots, its font
// lookups and its rule traces: attaching a session and detaching it are a round trip to the
// browser each, twice for each lookup of a failing call. Whoever enables a domain on it disables
// it again when done, so the page is left as it was found.
'use strict';

/** Page → the promise of its session (a promise, so two callers at once share one attach). */
const sessions = new WeakMap();

/**
 * The page's shared CDP session, attached on first use. A session that could not be attached is
 * forgotten, so the next call tries again.
 * @param {import('@playwright/test').Page} page
 * @returns {Promise<import('@playwright/test').CDPSession>}
 */
function pageSession(page) {
  let session = sessions.get(page);
  if (!session) {
    session = page.context().newCDPSession(page);
    sessions.set(page, session);
    session.catch(() => sessions.delete(page));
  }
  return session;
}

module.exports = { pageSession };
