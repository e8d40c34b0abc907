// The files a page drew with — web fonts, images, stylesheets — and a digest of their bytes. A
// file replaced under the same URL (a new logo at /logo.png, a font file updated in place) draws
// differently with nothing in the DOM changing; the engine compares the digests to name it.
'use strict';

const crypto = require('node:crypto');

const KINDS = { font: 'font', image: 'image', stylesheet: 'stylesheet' };

/** The last successful response for each asset URL of each page, kept from the page's start. */
const responsesByPage = new WeakMap();

/**
 * Responses kept per page, the latest ones: a page that loads images for hours must not hold
 * every response it ever had. The core asks for far fewer (its MAX_ASSETS, 128).
 */
const KEPT = 512;

/** Starts keeping `page`'s asset responses (their bodies are read only when asked for). */
function watchAssets(page) {
  const responses = new Map();
  responsesByPage.set(page, responses);
  page.on('response', (response) => {
    const kind = KINDS[response.request().resourceType()];
    const url = response.url();
    if (!kind || url.startsWith('data:') || response.status() >= 300) return;
    responses.delete(url); // the latest response last
    responses.set(url, { kind, response });
    if (responses.size > KEPT) responses.delete(responses.keys().next().value);
  });
}

/**
 * `[{ kind, url, digest }]` for the last `max` assets `page` loaded (a page that routes on the
 * client keeps what it loaded before: only URLs both sides loaded are compared),
 * a SHA-256 of each body (its first 16 bytes, hex). A body the browser no longer holds is left
 * out: nothing is said rather than something wrong.
 */
async function assetDigests(page, max) {
  const responses = [...(responsesByPage.get(page)?.entries() ?? [])].slice(-max);
  const digests = await Promise.all(
    responses.map(async ([url, { kind, response }]) => {
      const body = await response.body().catch(() => undefined);
      if (!body) return undefined;
      return { kind, url, digest: crypto.createHash('sha256').update(body).digest('hex').slice(0, 32) };
    }),
  );
  return digests.filter(Boolean);
}

module.exports = { watchAssets, assetDigests };
