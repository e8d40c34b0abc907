'use strict';
// Page stabilisation: what makes a capture repeatable. Before the shot, transitions and CSS
// animations stop, the caret is hidden, smooth scrolling is off and web fonts have loaded
// (`prepareForCapture`); finite animations are finished and infinite ones cancelled
// (`finishAnimations`); after it, the page is put back as it was (`restoreAfterCapture`), so the
// test goes on with a page that still animates. Every step runs in every frame and open shadow
// root, because each renders into the screenshot. The DOM record itself is collector.js's.

/**
 * What `animations: 'disabled'` and `caret: 'hide'` do in toHaveScreenshot, as one stylesheet:
 * transitions jump to their end, CSS animations run zero-length once (finite ones end on their
 * final frame with `forwards`, infinite ones drop to the base style), the caret is transparent and
 * smooth scrolling is off so scrolls land at once. `animations: 'allow'` keeps the first two,
 * `caret: 'initial'` the caret; `hideScrollbars` hides scrollbars (headless Chromium already
 * does); `css` (the `stylePath` files) is appended.
 * @param {{animations?: 'disabled' | 'allow', caret?: 'hide' | 'initial', hideScrollbars?: boolean, css?: string}} [options]
 */
function captureStyle({ animations = 'disabled', caret = 'hide', hideScrollbars = false, css = '' } = {}) {
  const rules = ['scroll-behavior: auto !important;'];
  if (hideScrollbars) rules.push('scrollbar-width: none !important;');
  if (animations === 'disabled') {
    rules.push(
      'transition-duration: 0s !important;',
      'transition-delay: 0s !important;',
      'animation-duration: 0s !important;',
      'animation-delay: 0s !important;',
      'animation-iteration-count: 1 !important;',
    );
  }
  if (caret === 'hide') rules.push('caret-color: transparent !important;');
  const scrollbars = hideScrollbars ? '::-webkit-scrollbar { display: none !important; }\n' : '';
  return `*, *::before, *::after, *::marker {\n${rules.map((r) => `  ${r}`).join('\n')}\n}\n${scrollbars}${css}`;
}

/** The stylesheet for toHaveScreenshot's defaults. */
const stabilisationStyle = captureStyle();

// Runs in each frame. A constructed stylesheet (not a <style> tag) because a page's CSP can block
// inline <style> but not adopted sheets, and one sheet object can be adopted by every open shadow
// root too (document styles do not reach into shadow trees). Idempotent.
function stabiliseInPage(css) {
  const state = window.__sightlineCapture || (window.__sightlineCapture = { sheet: null, roots: [], cancelled: [] });
  if (!state.sheet) {
    state.sheet = new CSSStyleSheet();
    state.sheet.replaceSync(css);
  }
  const roots = [document];
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.shadowRoot) roots.push(n.shadowRoot);
  for (const root of roots) {
    if (root.adoptedStyleSheets.includes(state.sheet)) continue;
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, state.sheet];
    state.roots.push(root);
  }
  // A layout first: web fonts start loading only when laid-out text needs them, and until then
  // `fonts.ready` has nothing to wait for (a failing font would still read "unloaded").
  document.documentElement.getBoundingClientRect();
  return document.fonts ? document.fonts.ready.then(() => undefined) : undefined;
}

// Runs in each frame: what toHaveScreenshot does with `animations: 'disabled'` (finite animations
// finish, infinite ones are cancelled and remembered so they can play again afterwards).
function finishAnimationsInPage() {
  const state = window.__sightlineCapture || (window.__sightlineCapture = { sheet: null, roots: [], cancelled: [] });
  const roots = [document];
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.shadowRoot) roots.push(n.shadowRoot);
  const seen = new Set();
  let finished = 0;
  let cancelled = 0;
  for (const root of roots) {
    for (const animation of root.getAnimations()) {
      if (seen.has(animation) || !animation.effect || animation.playbackRate === 0) continue;
      seen.add(animation);
      try {
        if (Number.isFinite(animation.effect.getComputedTiming().endTime)) {
          animation.finish();
          finished++;
        } else {
          animation.cancel();
          state.cancelled.push(animation);
          cancelled++;
        }
      } catch (_) {
        // finish() throws for a zero playback rate or an infinite end; nothing to stabilise.
      }
    }
  }
  return { finished, cancelled };
}

function restoreInPage() {
  const state = window.__sightlineCapture;
  if (!state) return;
  for (const root of state.roots) root.adoptedStyleSheets = root.adoptedStyleSheets.filter((s) => s !== state.sheet);
  for (const animation of state.cancelled) {
    try {
      animation.play();
    } catch (_) {
      // its element is gone; nothing to resume
    }
  }
  delete window.__sightlineCapture;
}

// Runs in each frame: resolves when every image that is loading has loaded (or failed) and every
// loaded one is decoded, so the shot never catches a half-drawn image. Lazy images the page has
// not asked for yet are left alone (they may never load).
function imagesReadyInPage() {
  const images = [...document.images];
  const loading = images.filter((img) => !img.complete && img.loading !== 'lazy');
  const loaded = (img) => new Promise((resolve) => {
    img.addEventListener('load', resolve, { once: true });
    img.addEventListener('error', resolve, { once: true });
  });
  return Promise.all(loading.map(loaded)).then(() =>
    Promise.all(images.filter((img) => img.complete && img.naturalWidth > 0).map((img) => img.decode().catch(() => {}))).then(() => undefined),
  );
}

// Runs in each frame: the first element still marked `aria-busy="true"`, described, or null.
function busyElementInPage() {
  const busy = document.querySelector('[aria-busy="true"]');
  if (!busy) return null;
  const id = busy.id ? `#${busy.id}` : '';
  const classes = [...busy.classList].slice(0, 2).map((c) => `.${c}`).join('');
  return `${busy.localName}${id}${classes}`;
}

// Runs `fn` in every frame of the page (cross-origin frames render into the screenshot too).
// A child frame that detaches or navigates meanwhile is skipped; the main frame's errors surface.
async function inEveryFrame(page, fn, arg) {
  const main = page.mainFrame();
  const results = await Promise.all(
    page.frames().map((frame) =>
      frame.evaluate(fn, arg).catch((err) => {
        if (frame === main) throw err;
        return undefined;
      }),
    ),
  );
  return results;
}

/**
 * Makes the page repeatable to capture: adopts `captureStyle(options)` in every frame and open
 * shadow root, then waits for `document.fonts.ready`; with `finish`, then finishes animations as
 * `finishAnimations` does, in the same call to each frame (one round trip instead of two). Undo
 * with `restoreAfterCapture`.
 * @param {import('@playwright/test').Page} page
 * @param {Parameters<typeof captureStyle>[0]} [options]
 * @param {{finish?: boolean}} [also]
 */
async function prepareForCapture(page, options, { finish = false } = {}) {
  const css = JSON.stringify(captureStyle(options));
  // One expression from both page functions' sources: each frame runs them in order.
  const stabilise = `Promise.resolve((${stabiliseInPage})(${css}))`;
  const steps = finish ? `${stabilise}.then(() => { (${finishAnimationsInPage})(); })` : stabilise;
  await inEveryFrame(page, steps);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits, within `timeout` ms, for the page's images to load and decode (`images`) and for no
 * element to be `aria-busy="true"` (`ariaBusy`), in every frame. Images still loading at the
 * deadline are captured as they are; an element still busy throws, naming it.
 * @param {import('@playwright/test').Page} page
 * @param {{images: boolean, ariaBusy: boolean, timeout: number}} options
 */
async function waitForContent(page, { images, ariaBusy, timeout }) {
  const deadline = Date.now() + timeout;
  // The first look for a busy element rides with the wait for images (one round trip).
  let firstLook = null;
  if (images) {
    // The deadline's timer is cleared once the images are ready, so no wait outlives the call.
    let timer;
    const deadlinePassed = new Promise((resolve) => (timer = setTimeout(resolve, timeout)));
    const steps = ariaBusy ? `(${imagesReadyInPage})().then(() => (${busyElementInPage})())` : imagesReadyInPage;
    // Images still loading at the deadline leave no look: the loop below takes its own.
    const looked = await Promise.race([inEveryFrame(page, steps), deadlinePassed.then(() => null)]).finally(() =>
      clearTimeout(timer),
    );
    if (ariaBusy) firstLook = looked;
  }
  if (!ariaBusy) return;
  for (;;) {
    const looked = firstLook ?? (await inEveryFrame(page, busyElementInPage));
    firstLook = null;
    const busy = looked.find(Boolean);
    if (!busy) return;
    if (Date.now() >= deadline) {
      throw new Error(
        `the page stayed busy: ${busy} still has aria-busy="true" after ${timeout} ms; wait for it to finish, or pass waitForAriaBusy: false`,
      );
    }
    await sleep(Math.min(50, Math.max(deadline - Date.now(), 0)));
  }
}

/**
 * Finishes finite animations and cancels infinite ones (CSS and Web Animations) in every frame and
 * open shadow root, as toHaveScreenshot does with `animations: 'disabled'`.
 * @param {import('@playwright/test').Page} page
 * @returns {Promise<{finished: number, cancelled: number}>}
 */
async function finishAnimations(page) {
  const results = await inEveryFrame(page, finishAnimationsInPage);
  const total = { finished: 0, cancelled: 0 };
  for (const r of results) {
    if (!r) continue;
    total.finished += r.finished;
    total.cancelled += r.cancelled;
  }
  return total;
}

/**
 * Undoes `prepareForCapture` and `finishAnimations`: removes the stylesheet and resumes the
 * infinite animations, so the test goes on with the page as it was.
 * @param {import('@playwright/test').Page} page
 */
async function restoreAfterCapture(page) {
  await inEveryFrame(page, restoreInPage);
}

module.exports = {
  captureStyle,
  waitForContent,
  stabilisationStyle,
  prepareForCapture,
  finishAnimations,
  restoreAfterCapture,
};
