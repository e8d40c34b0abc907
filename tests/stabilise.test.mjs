// Page stabilisation before a capture (playwright-fixtures/stabilise.js) in real Chromium:
// transitions, animations (also inside open shadow roots), the caret, scrollbars and extra CSS,
// and how restore puts the page back. Pages come from `setContent`; nothing leaves the machine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';

const require = createRequire(import.meta.url);
const stabilise = require('../playwright-fixtures/stabilise.js');

const executablePath = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const missing = !existsSync(executablePath) && `Chromium not found at ${executablePath}: run scripts/setup.sh or set SIGHTLINE_CHROMIUM`;

if (missing) {
  // Locally a missing browser is a skip that says why; in CI it must not pass silently.
  if (process.env.CI) test('stabilise: Chromium is available in CI', () => assert.fail(missing));
  else test('stabilise: real-browser tests', { skip: missing }, () => {});
} else {
  let browser;
  before(async () => {
    browser = await require('@playwright/test').chromium.launch({ executablePath });
  });
  after(async () => {
    await browser?.close();
  });

  /** A fresh 800×600 page with standards-mode `html` set, given to `fn`. */
  async function withPage(html, fn) {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    try {
      await page.setContent(`<!doctype html>${html}`);
      return await fn(page);
    } finally {
      await page.close();
    }
  }

  test('stabilise: prepareForCapture stops transitions and hides the caret, even under a strict CSP; restore undoes it', async () => {
    const html = `<meta http-equiv="Content-Security-Policy" content="style-src 'unsafe-inline'; script-src 'none'">
      <style>
        .move { transition: margin-left 10s linear } input { caret-color: rgb(255, 0, 0) }
        @keyframes fade { from { opacity: 0 } to { opacity: 0.5 } }
        @keyframes spin { from { transform: rotate(0deg) } to { transform: rotate(360deg) } }
        .fade { animation: fade 100s forwards } .spin { animation: spin 1s linear infinite }
      </style>
      <div class="move">m</div><input value="x"><div class="fade">f</div><div class="spin">s</div>`;
    await withPage(html, async (page) => {
      const read = () =>
        page.evaluate(() => {
          const cs = (s) => getComputedStyle(document.querySelector(s));
          return [cs('input').caretColor, cs('.move').marginLeft, cs('.fade').opacity, cs('.spin').transform];
        });
      const [caret, margin] = await read();
      assert.deepEqual([caret, margin], ['rgb(255, 0, 0)', '0px']);
      await stabilise.prepareForCapture(page);
      await stabilise.prepareForCapture(page); // idempotent
      await page.evaluate(() => (document.querySelector('.move').style.marginLeft = '100px'));
      // no transition; the finite animation sits on its last frame, the infinite one is gone
      assert.deepEqual(await read(), ['rgba(0, 0, 0, 0)', '100px', '0.5', 'none']);
      await stabilise.restoreAfterCapture(page);
      assert.equal((await read())[0], 'rgb(255, 0, 0)');
    });
    // The page's own CSP forbids every stylesheet it did not list; an adopted sheet still applies
    // (here to the focused field, the one whose caret is drawn).
    await withPage(`<meta http-equiv="Content-Security-Policy" content="style-src 'none'"><input value="x">`, async (page) => {
      await page.focus('input');
      await stabilise.prepareForCapture(page);
      assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('input')).caretColor), 'rgba(0, 0, 0, 0)');
    });
  });

  /** The selectors of the capture sheet's rules in the page, in order. */
  const captureRules = (page) =>
    page.evaluate(() => [...document.adoptedStyleSheets.at(-1).cssRules].map((r) => r.selectorText ?? r.cssText.split(' {')[0]));

  test('stabilise: the capture sheet names the elements the page animates, so adding it restyles only them', async () => {
    // Transitions and animations set by rules (also inside @media and @import-free @layer), by a
    // style attribute and by a rule the page adds later for a class it toggles: each stops.
    const html = `<style>
        .move { transition: margin-left 10s linear }
        @media (min-width: 1px) { @layer base { .later { transition: margin-left 10s linear } } }
        @keyframes fade { from { opacity: 0 } to { opacity: 0.5 } }
        .fade::after { content: 'x'; animation: fade 100s forwards }
        p { color: rgb(1, 2, 3) }
        .panel { color: rgb(1, 2, 3); & b { color: rgb(4, 5, 6) } transition: margin-left 10s linear }
      </style>
      <div class="move">m</div><div id="inline" style="transition: margin-left 10s linear">i</div><div id="toggled">t</div>
      <div class="fade">f</div><p>p</p><input value="x">`;
    await withPage(html, async (page) => {
      await stabilise.prepareForCapture(page);
      assert.deepEqual(await captureRules(page), [
        '.move, .later, .fade::after, .panel',
        ':focus',
        '[style*="transition" i], [style*="animation" i], [style*="scroll-behavior" i], [style*="caret" i]',
      ]);
      const margins = await page.evaluate(() => {
        for (const id of ['inline', 'toggled']) document.getElementById(id).style.marginLeft = '100px';
        document.querySelector('.move').style.marginLeft = '100px';
        document.getElementById('toggled').className = 'later';
        return ['.move', '#inline', '#toggled'].map((s) => getComputedStyle(document.querySelector(s)).marginLeft);
      });
      assert.deepEqual(margins, ['100px', '100px', '100px']);
      assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.fade'), '::after').opacity), '0.5');
      await stabilise.restoreAfterCapture(page);
      assert.equal(await page.evaluate(() => document.adoptedStyleSheets.length), 0);
    });
  });

  test('stabilise: every element is named where a rule cannot be, or the walk records a property the sheet sets', async () => {
    const every = '*, ::before, ::after, ::marker';
    // A nested rule's selector means something only inside its parent's.
    await withPage('<style>.card { & .inner { transition: margin-left 10s linear } }</style><div class="card"><p class="inner">x</p></div>', async (page) => {
      await stabilise.prepareForCapture(page);
      assert.deepEqual(await captureRules(page), [every]);
      await page.evaluate(() => (document.querySelector('.inner').style.marginLeft = '100px'));
      assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.inner')).marginLeft), '100px');
    });
    // The walk records caret-color: it must read the same on every element as in a baseline.
    await withPage('<input value="x">', async (page) => {
      await stabilise.prepareForCapture(page, { styleProperties: ['color', 'caret-color'] });
      assert.deepEqual(await captureRules(page), [every]);
      assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('input')).caretColor), 'rgba(0, 0, 0, 0)');
    });
    // Scrollbars to hide: a page that does not scroll cannot tell whether they are drawn.
    await withPage('<p>short</p>', async (page) => {
      await stabilise.prepareForCapture(page, { hideScrollbars: true });
      assert.deepEqual(await captureRules(page), [every, '::-webkit-scrollbar']);
    });
    // A page that scrolls and gives its scrollbar no width draws none (headless Chromium).
    await withPage('<div style="height: 5000px">tall</div>', async (page) => {
      await stabilise.prepareForCapture(page, { hideScrollbars: true });
      assert.deepEqual((await captureRules(page))[0], ':focus');
    });
  });

  test('stabilise: caret initial keeps the caret, animations allow keeps transitions, hideScrollbars hides them, and extra css applies while capturing', async () => {
    const html = `<style>.move { transition: margin-left 10s linear } input { caret-color: rgb(255, 0, 0) }</style>
      <div class="move">m</div><input value="x"><p id="ad">ad</p>`;
    await withPage(html, async (page) => {
      const scrollbars = () => page.evaluate(() => getComputedStyle(document.documentElement).scrollbarWidth);
      assert.equal(await scrollbars(), 'auto');
      await stabilise.prepareForCapture(page, { animations: 'allow', caret: 'initial', hideScrollbars: true, css: '#ad { visibility: hidden }' });
      await page.evaluate(() => (document.querySelector('.move').style.marginLeft = '100px'));
      const [caret, margin, ad] = await page.evaluate(() => {
        const cs = (s) => getComputedStyle(document.querySelector(s));
        return [cs('input').caretColor, parseFloat(cs('.move').marginLeft), cs('#ad').visibility];
      });
      assert.equal(await scrollbars(), 'none');
      assert.equal(caret, 'rgb(255, 0, 0)');
      assert.ok(margin < 100, `the transition still runs: ${margin}px`);
      assert.equal(ad, 'hidden');
      await stabilise.restoreAfterCapture(page);
      assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('#ad')).visibility), 'visible');
    });
  });

  test('stabilise: finishAnimations finishes finite animations and cancels infinite ones; restore replays them', async () => {
    const html = `<style>
        @keyframes fade { from { opacity: 0 } to { opacity: 0.5 } }
        .fade { animation: fade 100s forwards }
      </style>
      <div class="fade">a</div><div id="waapi">b</div><div id="loop">c</div>`;
    await withPage(html, async (page) => {
      await page.evaluate(() => {
        document.getElementById('waapi').animate([{ opacity: 1 }, { opacity: 0.25 }], { duration: 100000, fill: 'forwards' });
        document.getElementById('loop').animate([{ opacity: 1 }, { opacity: 0 }], { duration: 1000, iterations: Infinity });
      });
      assert.deepEqual(await stabilise.finishAnimations(page), { finished: 2, cancelled: 1 });
      const state = () =>
        page.evaluate(() => [
          ...['.fade', '#waapi', '#loop'].map((s) => getComputedStyle(document.querySelector(s)).opacity),
          ...document.getAnimations().map((a) => a.playState),
        ]);
      assert.deepEqual(await state(), ['0.5', '0.25', '1', 'finished', 'finished']);
      await stabilise.restoreAfterCapture(page);
      assert.deepEqual((await state()).slice(3), ['finished', 'finished', 'running']);
    });
  });

  test('stabilise: inside an open shadow root transitions and animations end and the caret is hidden; restore puts the root back', async () => {
    await withPage('<x-field></x-field>', async (page) => {
      // Document styles do not reach into a shadow tree: only a sheet the root adopts does.
      await page.evaluate(() => {
        const root = document.querySelector('x-field').attachShadow({ mode: 'open' });
        const own = new CSSStyleSheet();
        own.replaceSync('input { caret-color: rgb(255, 0, 0) }');
        root.adoptedStyleSheets = [own];
        root.innerHTML = `<style>
            .move { transition: margin-left 10s linear }
            @keyframes fade { from { opacity: 0 } to { opacity: 0.5 } }
            .fade { animation: fade 100s forwards }
          </style>
          <div class="move">m</div><input value="x"><div class="fade">f</div><div id="loop">l</div>`;
        root.getElementById('loop').animate([{ opacity: 1 }, { opacity: 0 }], { duration: 1000, iterations: Infinity });
      });
      const read = () =>
        page.evaluate(() => {
          const root = document.querySelector('x-field').shadowRoot;
          const cs = (s) => getComputedStyle(root.querySelector(s));
          const loop = root.getElementById('loop').getAnimations()[0];
          return {
            caret: cs('input').caretColor,
            margin: cs('.move').marginLeft,
            fade: cs('.fade').opacity,
            loop: loop?.playState ?? 'none',
            sheets: root.adoptedStyleSheets.map((s) => s.cssRules[0].cssText),
          };
        });
      const before = await read();
      assert.deepEqual([before.caret, before.loop, before.sheets], ['rgb(255, 0, 0)', 'running', ['input { caret-color: rgb(255, 0, 0); }']]);
      await stabilise.prepareForCapture(page);
      assert.deepEqual(await stabilise.finishAnimations(page), { finished: 1, cancelled: 1 });
      await page.evaluate(() => (document.querySelector('x-field').shadowRoot.querySelector('.move').style.marginLeft = '100px'));
      const captured = await read();
      // No transition, the finite animation on its last frame, the infinite one cancelled.
      assert.deepEqual([captured.caret, captured.margin, captured.fade, captured.loop], ['rgba(0, 0, 0, 0)', '100px', '0.5', 'none']);
      await stabilise.restoreAfterCapture(page);
      const after = await read();
      assert.deepEqual([after.caret, after.loop, after.sheets], [before.caret, 'running', before.sheets]);
    });
  });
}
