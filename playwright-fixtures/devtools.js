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

/** Page → its document round in progress (see `withDocument`). */
const documents = new WeakMap();

/**
 * Runs `use(cdp, root, sheets)` with the page's DOM and CSS domains enabled, `root` its document
 * node and `sheets` the page's stylesheet headers by id (`CSS.styleSheetAdded`: enabling CSS
 * reports every stylesheet the page already has, all of them by the time the document has been
 * returned). Callers at once share one round: the domains are enabled once for all of them and
 * disabled again when the last is done, so the page's session is left as it was found.
 * @template T
 * @param {import('@playwright/test').Page} page
 * @param {(cdp: import('@playwright/test').CDPSession, root: { nodeId: number }, sheets: Map<string, object>) => Promise<T>} use
 * @returns {Promise<T>}
 */
async function withDocument(page, use) {
  // Joined before the first await, so callers started together share the round.
  let round = documents.get(page);
  if (!round) {
    round = openDocument(page);
    documents.set(page, round);
  }
  round.users += 1;
  try {
    const { cdp, root } = await round.ready;
    return await use(cdp, root, round.sheets);
  } finally {
    round.users -= 1;
    if (round.users === 0) {
      documents.delete(page);
      round.close();
    }
  }
}

/** A document round of `page`: its session, its domains enabled, its stylesheets heard. */
function openDocument(page) {
  const sheets = new Map();
  const onSheet = ({ header }) => sheets.set(header.styleSheetId, header);
  let cdp;
  const ready = (async () => {
    cdp = await pageSession(page);
    cdp.on('CSS.styleSheetAdded', onSheet);
    // Sent together: a session handles its commands in order, so the domains are enabled before
    // the document is asked for, without a round trip each.
    const [, , { root }] = await Promise.all([
      cdp.send('DOM.enable'),
      cdp.send('CSS.enable'),
      cdp.send('DOM.getDocument', { depth: 0 }),
    ]);
    return { cdp, root };
  })();
  const close = () => {
    if (!cdp) return;
    cdp.off('CSS.styleSheetAdded', onSheet);
    // CSS first (it needs DOM). Not waited for: the session handles them before any command sent
    // after them, so its next user finds both off; a page closed meanwhile only rejects them.
    cdp.send('CSS.disable').catch(() => {});
    cdp.send('DOM.disable').catch(() => {});
  };
  return { users: 0, sheets, ready, close };
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
