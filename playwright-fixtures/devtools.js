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

/**
 * Runs `use(cdp, root)` with the page's DOM and CSS domains enabled and `root` its document node,
 * then disables both again, so the page's session is left as it was found. `onSheet`, if given,
 * hears `CSS.styleSheetAdded` while the domains are on: enabling CSS reports every stylesheet the
 * page already has, all of them by the time the document has been returned.
 * @template T
 * @param {import('@playwright/test').Page} page
 * @param {(cdp: import('@playwright/test').CDPSession, root: { nodeId: number }) => Promise<T>} use
 * @param {{ onSheet?: (event: { header: object }) => void }} [options]
 * @returns {Promise<T>}
 */
async function withDocument(page, use, { onSheet } = {}) {
  const cdp = await pageSession(page);
  if (onSheet) cdp.on('CSS.styleSheetAdded', onSheet);
  try {
    // Sent together: a session handles its commands in order, so the domains are enabled before
    // the document is asked for, without a round trip each.
    const [, , { root }] = await Promise.all([
      cdp.send('DOM.enable'),
      cdp.send('CSS.enable'),
      cdp.send('DOM.getDocument', { depth: 0 }),
    ]);
    return await use(cdp, root);
  } finally {
    if (onSheet) cdp.off('CSS.styleSheetAdded', onSheet);
    // CSS first (it needs DOM). Not waited for: the session handles them before any command sent
    // after them, so its next user finds both off; a page closed meanwhile only rejects them.
    cdp.send('CSS.disable').catch(() => {});
    cdp.send('DOM.disable').catch(() => {});
  }
}

/**
 * The node id of the first element under `root` that `selector` matches, or 0 when none does or
 * the selector is one the browser cannot parse: a recorded selector the page no longer matches
 * is an answer, not an error.
 * @param {import('@playwright/test').CDPSession} cdp
 * @param {{ nodeId: number }} root
 * @param {string} selector
 * @returns {Promise<number>}
 */
async function nodeOf(cdp, root, selector) {
  const found = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector }).catch(() => ({ nodeId: 0 }));
  return found.nodeId;
}

module.exports = { nodeOf, pageSession, withDocument };
