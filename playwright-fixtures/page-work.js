'use strict';
// The page's own work: the requests it started (its data, scripts, styles, fonts, images) and the
// DOM changes that follow them. A single-page app shows a loading screen until its data arrives,
// and with animations stopped its spinner holds still: two shots agree on the loading screen. So
// before a page is walked and shot, the call waits (within its timeout) until none of those
// requests is pending and the DOM has been quiet for a moment; a request still pending at the
// timeout is named in the capture's health, so the capture is never taken for the rendered page.

/** The resource types the page's rendering waits on, and the capture-health kind of each. */
const WAITED_FOR = { fetch: 'request', xhr: 'request', script: 'request', stylesheet: 'stylesheet', font: 'font', image: 'image' };

/** The DOM counts as done changing after this long without a mutation. */
const QUIET_MS = 100;
/**
 * At most this long is spent waiting for a quiet DOM: a page that changes on every frame (a
 * ticking clock, under a mask) is left to the shots, which tell whether its pixels settled.
 */
const QUIET_AT_MOST_MS = 500;

/** How often pending requests are looked at again while waiting. */
const POLL_MS = 25;

// Runs in every document of a followed page before its own scripts: keeps when the DOM last
// changed. Our own marks (data-sightline-*) are not the page's work.
function followMutationsInPage() {
  const ours = (record) => record.type === 'attributes' && record.attributeName?.startsWith('data-sightline');
  window.__sightlineLastMutation = performance.now();
  new MutationObserver((records) => {
    if (!records.every(ours)) window.__sightlineLastMutation = performance.now();
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
}

// Runs in each frame: how long ago the DOM last changed, in ms (Infinity when not followed).
function sinceLastMutationInPage() {
  const last = window.__sightlineLastMutation;
  return typeof last === 'number' ? performance.now() - last : Infinity;
}

/** The requests of each followed page still in flight: Request → capture-health kind. */
const pendingByPage = new WeakMap();

/**
 * Follows `page`'s requests and DOM changes from now on (the `page` fixture calls it before the
 * test's first navigation).
 * @param {import('@playwright/test').Page} page
 */
async function followPageWork(page) {
  const pending = new Map();
  pendingByPage.set(page, pending);
  page.on('request', (request) => {
    const kind = WAITED_FOR[request.resourceType()];
    if (kind) pending.set(request, kind);
  });
  const done = (request) => pending.delete(request);
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  // An event stream answers at once and never ends by design: it is no work to wait for.
  page.on('response', (response) => {
    if (/^text\/event-stream\b/i.test(response.headers()['content-type'] ?? '')) done(response.request());
  });
  await page.addInitScript(followMutationsInPage);
}

/**
 * `ignoreRequests` globs as one test of a URL: `*` matches within a path segment, `**` across
 * them, `{a,b}` either; the glob matches the whole URL, as `page.route` takes it.
 * @param {string[]} globs
 * @returns {(url: string) => boolean}
 */
function ignoredBy(globs) {
  const patterns = globs.map((glob) => {
    let source = '';
    let inGroup = false;
    for (let i = 0; i < glob.length; i++) {
      const c = glob[i];
      if (c === '*' && glob[i + 1] === '*') {
        source += '.*';
        i++;
      } else if (c === '*') source += '[^/]*';
      else if (c === '{' && !inGroup) {
        inGroup = true;
        source += '(?:';
      } else if (c === '}' && inGroup) {
        inGroup = false;
        source += ')';
      } else if (c === ',' && inGroup) source += '|';
      else source += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
    return new RegExp(`^${source}$`);
  });
  return (url) => patterns.some((p) => p.test(url));
}

/** Whether `request` still belongs to a document of the page (its frame was not removed). */
function attached(request) {
  try {
    return !request.frame().isDetached();
  } catch {
    return false; // a service worker's request: not the page's rendering
  }
}

/**
 * The page's work as one call sees it: `ignoreRequests` applied.
 * @param {import('@playwright/test').Page} page
 * @param {string[]} ignoreRequests
 */
function pageWork(page, ignoreRequests) {
  const pending = pendingByPage.get(page);
  const ignored = ignoredBy(ignoreRequests);
  /** The requests the call waits for that are still in flight: `[request, kind]`. */
  const inFlight = () => (pending ? [...pending].filter(([request]) => attached(request) && !ignored(request.url())) : []);
  const givenUp = new Set();
  return {
    /**
     * Waits until none of the page's requests is pending and its DOM has been quiet for
     * QUIET_MS (unless `quiet` is false), until `deadline` (ms since the epoch). Requests still
     * pending then are given up on: the shots report them while they stay pending.
     */
    async settle(deadline, { quiet = true } = {}) {
      for (;;) {
        while (inFlight().length > 0 && Date.now() < deadline) await sleep(Math.min(POLL_MS, deadline - Date.now()));
        const left = inFlight();
        if (left.length > 0) {
          for (const [request] of left) givenUp.add(request);
          return;
        }
        if (!quiet) return;
        await domQuiet(page, Math.min(deadline, Date.now() + QUIET_AT_MOST_MS));
        // Rendering the data may have asked for more (its images, the next chunk of the app).
        if (inFlight().length === 0 || Date.now() >= deadline) return;
      }
    },
    /**
     * The requests given up on that are still pending, as capture-health failures:
     * `request http://x/petstore.json still pending after 5000 ms`.
     * @param {number} waitedMs how long the call waited for them (its timeout)
     */
    stillPending(waitedMs) {
      return inFlight()
        .filter(([request]) => givenUp.has(request))
        .map(([request, kind]) => ({ kind, url: request.url(), detail: request.method(), pendingMs: waitedMs }));
    },
  };
}

/** Waits until no frame's DOM changed in the last QUIET_MS, or until `until`. */
async function domQuiet(page, until) {
  for (;;) {
    const since = await Promise.all(page.frames().map((frame) => frame.evaluate(sinceLastMutationInPage).catch(() => Infinity)));
    const wait = QUIET_MS - Math.min(...since);
    if (wait <= 0 || Date.now() >= until) return;
    await sleep(Math.min(wait, until - Date.now()));
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(ms, 0)));

module.exports = { followPageWork, pageWork, ignoredBy };
