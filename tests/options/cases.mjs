// The option cases of tests/matcher-options.test.mjs: one page per case with a `base` variant (the
// approve run) and a `changed` variant (one planted change), drawn from solid blocks at whole
// pixels so every diff count is exact. Each case is its own project root (`<OPTIONS_BASE>/<name>`)
// with its own `.sightline/config.json`, so one Playwright run covers every config key.

export const VIEWPORT = { width: 200, height: 100 };

/** A 200 px wide page of `height` px holding `blocks` (absolutely placed). */
function page(blocks, { height = VIEWPORT.height, head = '' } = {}) {
  return `<!doctype html><html><head><style>
  html, body { margin: 0; background: #fff; }
  body { width: ${VIEWPORT.width}px; height: ${height}px; position: relative; overflow: hidden; font: 16px/20px sans-serif; }
  .block { position: absolute; }
</style>${head}</head><body>${blocks}</body></html>`;
}

/** A solid `w × h` block at `x, y`. */
function block(id, [x, y, w, h], color) {
  return `<div id="${id}" class="block" style="left: ${x}px; top: ${y}px; width: ${w}px; height: ${h}px; background: ${color}"></div>`;
}

// 10 × 10 = 100 pixels recoloured: the count the tolerance cases are set against.
const hundred = (color) => page(block('spot', [20, 20, 10, 10], '#1d4ed8') + block('square', [120, 40, 10, 10], color));
const HUNDRED = { base: hundred('#16a34a'), changed: hundred('#dc2626') };

// A grey block 4 levels lighter: below pixelmatch's default threshold (0.1), above threshold 0,
// and visible to the perceptual comparator (ΔE94 above 1).
const grey = (color) => page(block('panel', [10, 10, 40, 25], color));
const GREY = { base: grey('#808080'), changed: grey('#848484') };

// A disc moved by one pixel: its rim is anti-aliased, so the count depends on `antialiasing`.
const disc = (left) =>
  page(`<div id="disc" class="block" style="left: ${left}px; top: 20px; width: 60px; height: 60px; border-radius: 50%; background: #111"></div>`);
const DISC = { base: disc(70), changed: disc(71) };

// Four isolated pixels on a canvas: the DOM and styles are identical and no region forms, which
// is the "likely render noise" verdict (02-results.md).
const specks = (points) =>
  page(`<canvas id="art" width="200" height="100" class="block" style="left: 0; top: 0"></canvas><script>
  const ctx = document.getElementById('art').getContext('2d');
  for (const [x, y] of ${JSON.stringify(points)}) ctx.fillRect(x, y, 1, 1);
</script>`);
const SPECKS = { base: specks([]), changed: specks([[10, 10], [190, 10], [10, 90], [190, 90]]) };

// A page three viewports tall whose only change is at y = 250, below the first viewport.
const tall = (color) => page(block('top', [0, 0, 200, 20], '#0f172a') + block('footer', [120, 250, 10, 10], color), { height: 300 });
const TALL = { base: tall('#16a34a'), changed: tall('#dc2626') };

// An advert that changes, next to content that does not.
const advert = (color) => page(block('content', [10, 10, 60, 60], '#0f172a') + block('ad', [120, 40, 10, 10], color));
const ADVERT = { base: advert('#16a34a'), changed: advert('#dc2626') };

// A label that gains an underline: `text-decoration-line` is not in the default style list.
const label = (decoration) =>
  page(`<p id="label" class="block" style="left: 10px; top: 10px; margin: 0; color: #111; text-decoration-line: ${decoration}">Sale</p>`);
const LABEL = { base: label('none'), changed: label('underline') };

// A page that paints no background of its own: `omitBackground` leaves it transparent.
const bare = `<!doctype html><html><head><style>
  body { margin: 0; width: ${VIEWPORT.width}px; height: ${VIEWPORT.height}px; position: relative; overflow: hidden; }
  .block { position: absolute; }
</style></head><body>${block('mark', [10, 10, 20, 20], '#111111')}</body></html>`;
const BARE = { base: bare, changed: bare };

/**
 * Config-file cases: `config` goes to `<root>/.sightline/config.json`, `files` next to it (in
 * the root), `options` to the call; `deviceScaleFactor` sets the page's.
 */
export const cases = {
  threshold: { config: { threshold: 0 }, ...GREY },
  'threshold-default': { ...GREY },
  perceptual: { options: { perceptual: true }, ...GREY },
  antialiasing: { config: { antialiasing: false }, ...DISC },
  'antialiasing-default': { ...DISC },
  'max-diff-pixels': { config: { maxDiffPixels: 100 }, ...HUNDRED },
  'max-diff-pixels-exceeded': { config: { maxDiffPixels: 99 }, ...HUNDRED },
  // 100 of the 20,000 pixels are 0.005 of the canvas.
  'max-diff-pixel-ratio': { config: { maxDiffPixelRatio: 0.005 }, ...HUNDRED },
  'max-diff-pixel-ratio-exceeded': { config: { maxDiffPixelRatio: 0.00499 }, ...HUNDRED },
  // Both set: the smaller allowance wins, whichever key holds it.
  'max-diff-both-ratio-smaller': { config: { maxDiffPixels: 1000, maxDiffPixelRatio: 0.001 }, ...HUNDRED },
  'max-diff-both-pixels-smaller': { config: { maxDiffPixels: 50, maxDiffPixelRatio: 0.5 }, ...HUNDRED },
  'noise-auto-pass': { config: { noiseAutoPass: true }, ...SPECKS },
  'noise-default': { ...SPECKS },
  'full-page-off': { config: { fullPage: false }, ...TALL },
  'full-page-default': { ...TALL },
  clip: { options: { clip: { x: 0, y: 0, width: 100, height: 30 } }, ...ADVERT },
  mask: { config: { mask: ['#ad'] }, ...ADVERT },
  'ignore-selectors': { config: { ignoreSelectors: ['#ad'] }, ...ADVERT },
  'mask-none': { ...ADVERT },
  // A call's mask replaces the config file's: an empty one masks nothing, as toHaveScreenshot's.
  'mask-empty-call': { config: { mask: ['#ad'] }, options: { mask: [] }, ...ADVERT },
  'style-properties': { config: { styleProperties: ['color', 'text-decoration-line'] }, ...LABEL },
  'style-properties-default': { ...LABEL },
  // No baseline before the changed run: the approve run skips it.
  'write-missing-baselines': { config: { writeMissingBaselines: true }, newInChangedRun: true, ...HUNDRED },
  // The run's own root (the reporter's): results go to the configured folder.
  'report-dir': { config: { reportDir: 'out/visual' }, ...HUNDRED },
  // toHaveScreenshot's capture options.
  'omit-background': { options: { omitBackground: true }, ...BARE },
  'omit-background-default': { ...BARE },
  // The config file's stylesheet is the root's: hiding the advert hides its change.
  'style-path': { config: { stylePath: 'hide-ad.css' }, files: { 'hide-ad.css': '#ad { visibility: hidden; }' }, ...ADVERT },
  // On a 2× device: one image pixel per CSS pixel by default, per device pixel with `device`;
  // the mask covers the advert at either scale.
  'scale-css': { deviceScaleFactor: 2, options: { mask: ['#ad'] }, ...ADVERT },
  'scale-device': { deviceScaleFactor: 2, options: { mask: ['#ad'], scale: 'device' }, ...ADVERT },
};


/**
 * The re-shot page: a canvas that shows red until the second full-page shot, then green for good.
 * Chromium's full-page capture of a page taller than the viewport resizes the view, and the
 * page's `resize` handler runs before that shot's pixels are taken; so the page counts the shots
 * by their resize events (ignoring the 1 × 1 px one headless Chromium sometimes sends first) and
 * turns green as the second begins: the first shot is red, every later one green. No timer
 * decides anything. The base variant is green from the start (the settled page, as approved).
 */
const reshot = (settled) =>
  page(
    `<canvas id="light" width="200" height="200" class="block" style="left: 0; top: 0"></canvas><script>
  const ctx = document.getElementById('light').getContext('2d');
  const paint = (color) => { ctx.fillStyle = color; ctx.fillRect(0, 0, 200, 200); };
  window.shots = 0;
  paint(${settled} ? '#16a34a' : '#dc2626');
  addEventListener('resize', () => {
    if (innerWidth <= 1) return;
    window.shots += 1;
    if (window.shots === 2) paint('#16a34a');
  });
</script>`,
    { height: 200 },
  );
export const RESHOT = { base: reshot(true), changed: reshot(false) };

/** A page that never settles: every full-page shot (counted as above) paints a new colour. */
const restless = page(
  `<canvas id="light" width="200" height="200" class="block" style="left: 0; top: 0"></canvas><script>
  const ctx = document.getElementById('light').getContext('2d');
  window.shots = 0;
  addEventListener('resize', () => {
    if (innerWidth <= 1) return;
    window.shots += 1;
    ctx.fillStyle = \`hsl(\${window.shots * 37} 80% 45%)\`;
    ctx.fillRect(0, 0, 200, 200);
  });
</script>`,
  { height: 200 },
);
export const RESTLESS = { base: restless, changed: restless };

/** A clock that shows the milliseconds, redrawn every frame: it never settles. */
export const CLOCK = page(
  `<p id="clock" class="block" style="left: 10px; top: 10px; width: 120px; height: 20px; margin: 0; color: #111"></p><script>
  const clock = document.getElementById('clock');
  const tick = () => { clock.textContent = performance.now().toFixed(1); requestAnimationFrame(tick); };
  tick();
</script>`,
);

/** Pages of the tests that call the matcher their own way (`.not`, default names, update modes). */
// A text advert whose words change, and a badge that changes colour, next to content that does
// not: what toHaveScreenshot's `mask` is for. The advert's box is fixed (70 × 20), so its text
// changes the pixels inside it only.
const textAdvert = (words, badge) =>
  page(
    block('content', [10, 10, 60, 60], '#0f172a') +
      `<p id="ad" class="block" style="left: 120px; top: 10px; width: 70px; height: 20px; margin: 0; overflow: hidden; color: #111">${words}</p>` +
      block('badge', [120, 60, 20, 20], badge),
  );
const TEXT_ADVERT = { base: textAdvert('Buy now', '#16a34a'), changed: textAdvert('Sale today', '#dc2626') };

export const PAGES = { HUNDRED, ADVERT, TEXT_ADVERT };

/**
 * `baselinePath` layouts, each its own root (names.spec.mjs; options.spec.mjs has the second
 * spec file's call of `per-file-names`): one baseline per operating system, and given names
 * kept per spec file as toHaveScreenshot keeps them.
 */
export const layoutCases = {
  'per-os-layout': { config: { baselinePath: '{name}/{project}-{platform}' } },
  'per-file-names': { config: { baselinePath: '{testFile}/{name}/{project}' } },
};

/**
 * The cases of the `pw-defaults` project, whose playwright.config sets
 * `expect.toHaveScreenshot: { maxDiffPixels: 100, stylePath: './hide-badge.css' }`: Playwright's
 * settings apply under the config file and the call.
 */
export const defaultsCases = {
  'pw-max-diff-pixels': { ...HUNDRED },
  'pw-under-config': { config: { maxDiffPixels: 0 }, ...HUNDRED },
  'pw-under-call': { options: { maxDiffPixels: 0 }, ...HUNDRED },
  // The text advert masked, the badge hidden by Playwright's stylePath: nothing left to change.
  'pw-style-path': { options: { mask: ['#ad'] }, ...TEXT_ADVERT },
};

/**
 * A block fading in over ten minutes: stopped (`animations: 'disabled'`), the animation ends on
 * its last frame and the block is solid; allowed, the capture shows it at the start, nearly
 * transparent. One opacity level takes over two seconds, so either way the page settles.
 */
export const FADE = page(
  `<style>@keyframes fade { from { opacity: 0; } to { opacity: 1; } }</style>` +
    `<div id="fader" class="block" style="left: 10px; top: 10px; width: 40px; height: 40px; background: #111111; animation: fade 600s linear both"></div>`,
);

/**
 * An image the page adds once it has loaded, served 800 ms late from another origin (the spec
 * routes it): the shot either waits for it (`waitForImages`, the default) or catches it missing.
 */
export const LATE_IMAGE = page(
  `<img id="pic" class="block" style="left: 10px; top: 10px; width: 40px; height: 40px" alt=""><script>
  addEventListener('load', () => setTimeout(() => { document.getElementById('pic').src = 'http://127.0.0.1:8/late.svg'; }, 0));
</script>`,
);
export const LATE_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#16a34a"/></svg>';

/** A feed marked busy (red) until 400 ms after it loads, then ready (green); or busy for good. */
const feed = (readyAfterMs) =>
  page(
    `<div id="feed" class="block" aria-busy="true" style="left: 10px; top: 10px; width: 60px; height: 40px; background: #dc2626"></div>` +
      (readyAfterMs === null
        ? ''
        : `<script>setTimeout(() => { const f = document.getElementById('feed'); f.style.background = '#16a34a'; f.removeAttribute('aria-busy'); }, ${readyAfterMs});</script>`),
  );
export const BUSY_FEED = feed(400);
export const STUCK_FEED = feed(null);

/** A block that turns red under the mouse. */
export const HOVER_BLOCK = page(
  `<style>#target:hover { background: #dc2626 !important; }</style>` + block('target', [0, 0, 200, 100], '#1d4ed8'),
);
