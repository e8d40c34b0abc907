'use strict';
// Page stabilisation: what makes a capture repeatable. Before the shot, transitions and CSS
// animations stop, the caret is hidden, smooth scrolling is off and web fonts have loaded
// (`prepareForCapture`); finite animations are finished and infinite ones cancelled
// (`finishAnimations`); after it, the page is put back as it was (`restoreAfterCapture`), so the
// test goes on with a page that still animates. Every step runs in every frame and open shadow
// root, because each renders into the screenshot. The DOM record itself is collector-in-page.js's.

/**
 * What `animations: 'disabled'` and `caret: 'hide'` do in toHaveScreenshot, as one stylesheet for
 * each document and open shadow root: transitions jump to their end, CSS animations run
 * zero-length once (finite ones end on their final frame with `forwards`, infinite ones drop to
 * the base style), the caret is transparent and smooth scrolling is off so scrolls land at once.
 * `animations: 'allow'` keeps the first two, `caret: 'initial'` the caret; `hideScrollbars` hides
 * scrollbars (headless Chromium already does); `css` (the `stylePath` files) is appended.
 *
 * The rules name only the elements that need them where the page's CSS can be read: the
 * selectors of its own rules that set a transition, an animation, smooth scrolling or a caret
 * colour, elements whose style attribute does, and the focused element (the caret). A rule for
 * every element (`*`) makes Chromium restyle the whole page twice, to add the sheet and to take it
 * away (on a 16,000-element page 80–130 ms and 50 ms; the named rules, ~4 ms), and changes nothing
 * more on the screen. Every element is still named where the page's CSS cannot be read (another
 * origin's sheet, a `file:` page), where a rule's selector only makes sense in its nesting, where
 * `hideScrollbars` has scrollbars to hide (headless Chromium draws none), and when the walk
 * records one of the properties the sheet sets (`styleProperties`), so a recorded value reads the
 * same on every element. Returns what `prepareForCapture` gives each frame.
 * @param {{animations?: 'disabled' | 'allow', caret?: 'hide' | 'initial', hideScrollbars?: boolean, css?: string, styleProperties?: readonly string[]}} [options]
 */
function captureStyle({ animations = 'disabled', caret = 'hide', hideScrollbars = false, css = '', styleProperties = [] } = {}) {
  const rules = ['scroll-behavior: auto !important;'];
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
  const sets = (p) => OVERRIDDEN.some((name) => p.startsWith(name));
  return {
    declarations: rules.map((r) => `  ${r}`).join('\n'),
    overridden: OVERRIDDEN,
    caret: caret === 'hide',
    hideScrollbars,
    scrollbars: HIDDEN_SCROLLBARS,
    recorded: styleProperties.some((p) => sets(p) || p === 'scrollbar-width'),
    css,
  };
}

/**
 * What the sheet overrides, as the first words of the longhands it sets (`transition-duration`,
 * `caret-color`…): the page's rules and style attributes that set one are the elements it names.
 */
const OVERRIDDEN = ['transition', 'animation', 'scroll-behavior', 'caret'];

/** How scrollbars drawn beside the content are hidden: a declaration for the named elements, and a rule. */
const HIDDEN_SCROLLBARS = { declaration: '  scrollbar-width: none !important;', rule: '::-webkit-scrollbar { display: none !important; }' };

// Runs in each frame. A constructed stylesheet (not a <style> tag) because a page's CSP can block
// inline <style> but not adopted sheets; each open shadow root adopts one of its own (document
// styles do not reach into shadow trees, and its rules name its own elements). Idempotent.
function stabiliseInPage(style) {
  const state = window.__sightlineCapture || (window.__sightlineCapture = { sheets: new Map(), cancelled: [] });
  const EVERY = '*, *::before, *::after, *::marker';
  const setsOne = (name) => style.overridden.some((word) => name.startsWith(word));
  // The selectors of `root`'s rules that set what the sheet overrides, or null when one cannot
  // be told (a sheet of another origin, a rule whose selector only means something nested).
  const selectorsIn = (root) => {
    const found = new Set();
    const sets = (declared) => {
      for (let i = 0; i < declared.length; i++) if (setsOne(declared[i])) return true;
      return false;
    };
    // A rule that names more elements than it styles only stops what they do not run; one that
    // names fewer would leave an animation running, so a selector that cannot stand on its own
    // (nested, or relative to its scope) gives up.
    const visit = (rules) => {
      for (const rule of rules) {
        if (rule.type === CSSRule.KEYFRAMES_RULE) continue;
        if (rule.style && sets(rule.style)) {
          // Declarations after a nested rule belong to the rule around them.
          const owner = rule.type === CSSRule.STYLE_RULE ? rule : rule.parentRule;
          if (owner?.type !== CSSRule.STYLE_RULE || owner.parentRule?.type === CSSRule.STYLE_RULE || /&|:scope/.test(owner.selectorText)) return false;
          found.add(owner.selectorText);
        }
        if (rule.type === CSSRule.IMPORT_RULE) {
          // An import not loaded yet may bring its rules during the capture.
          if (!rule.styleSheet || !visitSheet(rule.styleSheet)) return false;
        } else if (rule.cssRules && !visit(rule.cssRules)) {
          return false;
        }
      }
      return true;
    };
    const visitSheet = (sheet) => {
      let rules;
      try {
        rules = sheet.cssRules;
      } catch (_) {
        return false;
      }
      return visit(rules);
    };
    for (const sheet of [...root.styleSheets, ...root.adoptedStyleSheets]) {
      if (sheet !== state.sheets.get(root) && !visitSheet(sheet)) return null;
    }
    return [...found];
  };
  // Scrollbars are hidden only where they would be drawn beside the content: a root that scrolls
  // and takes no width for its scrollbar says they are not (headless Chromium hides them); a page
  // that cannot say keeps the rule for every element.
  const scroller = document.scrollingElement || document.documentElement;
  const overflow = getComputedStyle(document.documentElement).overflowY;
  const noScrollbars =
    scroller.scrollHeight > scroller.clientHeight && !/hidden|clip/.test(overflow) && window.innerWidth === scroller.clientWidth;
  const scrollbars = style.hideScrollbars && !noScrollbars;
  const declarations = scrollbars ? `${style.declarations}\n${style.scrollbars.declaration}` : style.declarations;
  const everyElement = style.recorded || scrollbars;
  const styleAttributes = style.overridden.map((word) => `[style*="${word}" i]`).join(', ');
  const sheetFor = (root) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(scrollbars ? `${style.scrollbars.rule}\n${style.css}` : style.css);
    const every = () => sheet.insertRule(`${EVERY} {\n${declarations}\n}`, 0);
    const selectors = everyElement ? null : selectorsIn(root);
    if (!selectors) {
      every();
      return sheet;
    }
    sheet.insertRule(`${styleAttributes} {\n${declarations}\n}`, 0);
    if (style.caret) sheet.insertRule(':focus { caret-color: transparent !important; }', 0);
    if (selectors.length) {
      try {
        sheet.insertRule(`${selectors.join(',\n')} {\n${declarations}\n}`, 0);
      } catch (_) {
        every();
      }
    }
    return sheet;
  };
  const roots = [document];
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.shadowRoot) roots.push(n.shadowRoot);
  for (const root of roots) {
    if (state.sheets.has(root)) continue;
    const sheet = sheetFor(root);
    state.sheets.set(root, sheet);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  }
  // A layout first: web fonts start loading only when laid-out text needs them, and until then
  // `fonts.ready` has nothing to wait for (a failing font would still read "unloaded").
  document.documentElement.getBoundingClientRect();
  return document.fonts ? document.fonts.ready.then(() => undefined) : undefined;
}

// Runs in each frame: what toHaveScreenshot does with `animations: 'disabled'` (finite animations
// finish, infinite ones are cancelled and remembered so they can play again afterwards).
function finishAnimationsInPage() {
  const state = window.__sightlineCapture || (window.__sightlineCapture = { sheets: new Map(), cancelled: [] });
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
  for (const [root, sheet] of state.sheets) root.adoptedStyleSheets = root.adoptedStyleSheets.filter((s) => s !== sheet);
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
  const style = JSON.stringify(captureStyle(options));
  // One expression from both page functions' sources: each frame runs them in order.
  const stabilise = `Promise.resolve((${stabiliseInPage})(${style}))`;
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
  prepareForCapture,
  finishAnimations,
  restoreAfterCapture,
};
