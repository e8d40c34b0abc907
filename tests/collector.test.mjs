// The in-page collector (playwright-fixtures/collector-in-page.js, called through collector.js) in real Chromium: the exact JSON shape
// the Rust dom parser reads, selectors, page-coordinate boxes, text digests, styles and their
// shared rows, masks, shadow DOM, same-origin iframes, capture health (broken images, failed
// fonts; the page is stabilised first, as the matcher does). Page stabilisation itself is
// stabilise.test.mjs. Its speed is the bench's
// (`npm run bench -- --only dom`). Pages come from `setContent` or a node:http server on
// 127.0.0.1 started here; nothing leaves the machine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import http from 'node:http';
import { cardsPage } from '../bench/lib/dom.mjs';
import { asRead } from './support/dom-record.mjs';

const require = createRequire(import.meta.url);
const collector = require('../playwright-fixtures/collector.js');
const { collectInPage } = collector;
const addon = require('../index.js');
// The matcher's default list, as the core resolves it for a project without a config file.
const DEFAULT_STYLE_PROPERTIES = addon.resolveSettings({ root: '/nonexistent-sightline-root' }).styleProperties;
/** The collector with the matcher's default style list unless the test names its own. */
const collectDom = (page, options = {}) => collector.collectDom(page, { styleProperties: DEFAULT_STYLE_PROPERTIES, ...options });
const stabilise = require('../playwright-fixtures/stabilise.js');

const executablePath = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
// `require` (not `import`) so a scratch install on NODE_PATH also works during development.
let playwright = null;
try {
  playwright = require('@playwright/test');
} catch {
  playwright = null;
}
const missing = !existsSync(executablePath)
  ? `Chromium not found at ${executablePath}: run scripts/setup.sh or set SIGHTLINE_CHROMIUM`
  : !playwright
    ? '@playwright/test is not installed: run `npm ci` at the repository root'
    : null;

/** FNV-1a 64 over UTF-8, the reference the in-page two-halves version must equal. */
function fnv1a64(text) {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(text, 'utf8')) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

/** Images of the page's own (by path and relative), one of another origin, a background. */
const IMAGES_PAGE = `<img id="root" src="/ok.png"><img id="near" src="ok.png">
  <img id="other" src="http://other.invalid/ok.png">
  <div id="bg" style="width:5px;height:5px;background-image:url(/ok.png), url(http://other.invalid/x.png)"></div>
  <div id="styled" style="width:5px;height:5px;background-image:url(ok.png)"></div>`;

const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

if (missing) {
  // Locally a missing browser is a skip that says why; in CI it must not pass silently.
  if (process.env.CI) test('collector: Chromium and @playwright/test are available in CI', () => assert.fail(missing));
  else test('collector: real-browser tests', { skip: missing }, () => {});
} else {
  let browser;
  let server;
  let base; // http://127.0.0.1:<port>
  let crossOrigin; // the same server as another origin (localhost), for the cross-origin iframe

  const routes = {
    '/frames.html': () => [
      'text/html',
      `<style>body{margin:0;height:3000px}
         iframe{position:absolute;left:50px;top:100px;border:5px solid;padding:7px;width:300px;height:200px}</style>
       <iframe id="same" src="/inner.html"></iframe>
       <iframe id="other" style="top:400px" src="${crossOrigin}/inner.html"></iframe>`,
    ],
    '/inner.html': () => ['text/html', '<style>body{margin:0} p{margin:0 0 0 4px;height:10px}</style><p>inner</p>'],
    '/health.html': () => [
      'text/html',
      `<style>
         @font-face { font-family: "Broken Face"; src: url(/missing.woff2) format("woff2"); }
         @font-face { font-family: Unused; src: url(/unused.woff2) format("woff2"); }
         p { font-family: "Broken Face", sans-serif; }
       </style>
       <p>text</p><img src="/missing.png" alt="x"><img src="/ok.png" alt="ok">
       <img style="display:none" src="/hidden-missing.png" alt="hidden">`,
    ],
    '/ok.png': () => ['image/png', ONE_PIXEL_PNG],
    '/shop/images.html': () => ['text/html', IMAGES_PAGE],
  };

  before(async () => {
    browser = await playwright.chromium.launch({ executablePath });
    server = http.createServer((req, res) => {
      const route = routes[new URL(req.url, base).pathname];
      if (!route) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
        return;
      }
      const [type, body] = route();
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}`;
    crossOrigin = `http://localhost:${server.address().port}`;
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  });

  /** A fresh 800×600 page with standards-mode `html` set (or a server path opened), given to `fn`. */
  async function withPage(source, fn) {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    try {
      if (source.startsWith('/')) await page.goto(base + source);
      else await page.setContent(`<!doctype html>${source}`);
      return await fn(page);
    } finally {
      await page.close();
    }
  }
  // The record as the core reads it (full selector paths, every field).
  const collect = async (page, options) => asRead(JSON.parse(await collectDom(page, options)));
  const bySelector = (dom, selector) => {
    const found = dom.elements.find((e) => e.selector === selector);
    assert.ok(found, `no element with selector ${selector}; have:\n${dom.elements.map((e) => e.selector).join('\n')}`);
    return found;
  };
  // Version 2: an element's computed values are its row of `styleRows`.
  const stylesOf = (dom, element) => dom.styleRows[element.style];
  const style = (dom, element, property) => stylesOf(dom, element)[dom.styleProperties.indexOf(property)];

  test('collector: the default style list (the core\'s) is the spec list, as longhands; shorthands are refused by the settings check', () => {
    assert.deepEqual(DEFAULT_STYLE_PROPERTIES, [
      'color', 'background-color', 'border-top-color', 'border-right-color', 'border-bottom-color',
      'border-left-color', 'outline-color', 'fill', 'stroke', 'font-family', 'font-size',
      'font-weight', 'font-style', 'line-height', 'letter-spacing', 'border-top-width',
      'border-right-width', 'border-bottom-width', 'border-left-width', 'border-top-style',
      'border-right-style', 'border-bottom-style', 'border-left-style', 'border-top-left-radius',
      'border-top-right-radius', 'border-bottom-right-radius', 'border-bottom-left-radius',
      'padding-top', 'padding-right', 'padding-bottom', 'padding-left', 'margin-top',
      'margin-right', 'margin-bottom', 'margin-left', 'display', 'opacity', 'visibility', 'box-shadow',
    ]);
    assert.throws(
      () => addon.resolveSettings({ root: '/nonexistent-sightline-root', overrides: { styleProperties: ['color', 'margin'] } }),
      {
        message: 'toMatchVisual options: "styleProperties" must be longhand CSS property names: "margin" is a shorthand, which Chromium reports as "" when sides differ; list the longhands instead: margin-top, margin-right, margin-bottom, margin-left',
      },
    );
  });

  test('collector: one JSON string with exactly the keys the Rust parser reads', async () => {
    await withPage('<style>body{margin:0} p{margin:0;line-height:20px}</style><main><p>Hi</p></main>', async (page) => {
      const raw = await collectDom(page);
      assert.equal(typeof raw, 'string');
      const dom = JSON.parse(raw);
      assert.deepEqual(Object.keys(dom), [
        'version', 'url', 'viewport', 'devicePixelRatio', 'document', 'styleProperties', 'styleRows', 'elements', 'fonts', 'brokenImages', 'tokens', 'elementTokens',
      ]);
      assert.equal(dom.version, 4);
      assert.equal(dom.url, 'about:blank');
      assert.deepEqual(dom.viewport, { width: 800, height: 600 });
      assert.equal(dom.devicePixelRatio, 1);
      assert.deepEqual(dom.document, { width: 800, height: 600 });
      assert.deepEqual(dom.styleProperties, DEFAULT_STYLE_PROPERTIES);
      assert.deepEqual(dom.fonts, []);
      assert.deepEqual(dom.brokenImages, []);
      assert.equal(dom.elements.length, 3);
      for (const row of dom.styleRows) {
        assert.equal(row.length, DEFAULT_STYLE_PROPERTIES.length);
        assert.ok(row.every((v) => typeof v === 'string'));
      }
      // Each distinct row once: no two rows are the same list.
      assert.equal(new Set(dom.styleRows.map((r) => JSON.stringify(r))).size, dom.styleRows.length);
      for (const e of dom.elements) {
        // `text` only where there is some; no `image`, nothing `masked`: left out (version 4).
        assert.deepEqual(Object.keys(e), ['parent', 'tag', 'selector', 'box', 'style', ...(e.tag === 'p' ? ['text'] : [])]);
        assert.equal(e.box.length, 4);
        assert.ok(e.box.every((v) => typeof v === 'number'));
        assert.ok(Number.isInteger(e.style) && e.style >= 0 && e.style < dom.styleRows.length);
      }
      assert.deepEqual(dom.elements[0], { ...dom.elements[0], parent: -1, tag: 'body', selector: 'body', box: [0, 0, 800, 20] });
      // Written relative to the parent's (`main`, under `body`): the path is `body > main > p`.
      assert.deepEqual(dom.elements[2], { ...dom.elements[2], parent: 1, tag: 'p', selector: 'p', text: fnv1a64('Hi') });
      assert.deepEqual(asRead(dom).elements[2], { ...dom.elements[2], selector: 'body > main > p', image: null, masked: false });
    });
  });

  test('collector: the root\'s tokens and those declared on elements, by rule (in @media and @import too) or style attribute', async () => {
    const imported = encodeURIComponent('.wide { --imported: 3px }');
    const html = `<style>@import url("data:text/css,${imported}");
      :root { --brand: #2563eb; --ink:#0f172a }
      .card { --accent: #0e7490; color: var(--accent) }
      @media (min-width: 10px) { .card.wide { --gap: 8px } }
      .hidden { --never: 1px; display: none }
      .card .x::before { --pseudo: 2px }</style>
      <main><div class="card" id="a"><p>A</p></div><div class="card wide" id="b">B</div>
      <p style="--lead: 1.5; color: red">C</p><div class="hidden">D</div></main>`;
    await withPage(html, async (page) => {
      const dom = await collect(page);
      assert.deepEqual(dom.tokens, [['--brand', '#2563eb'], ['--ink', '#0f172a']]);
      const named = dom.elementTokens.map(([i, name, value]) => [dom.elements[i].selector, name, value]);
      // A hidden element is not recorded, so neither is its token; a pseudo-element's rule
      // matches no element; inherited values (the card's <p>) are not declarations.
      assert.deepEqual(named, [
        ['#a', '--accent', '#0e7490'],
        ['#b', '--accent', '#0e7490'],
        ['#b', '--gap', '8px'],
        ['#b', '--imported', '3px'],
        ['body > main > p', '--lead', '1.5'],
      ]);
    });
  });

  test('collector: rendered elements only, in document order with parent indices', async () => {
    const html = `<style>body{margin:0} .gone{display:none}</style>
      <header><h1>T</h1></header>
      <main><section><p>a</p><p style="visibility:hidden">b</p></section>
        <div class="gone"><span>x</span></div><script>1</script><template><p>t</p></template>
        <noscript>n</noscript><link rel="stylesheet" href="data:text/css,">
        <svg width="20" height="20"><defs><linearGradient id="g"></linearGradient></defs><rect width="10" height="10"></rect></svg>
        <details><summary>s</summary><p>closed</p></details></main>
      <footer></footer>`;
    await withPage(html, async (page) => {
      const dom = await collect(page);
      assert.deepEqual(
        dom.elements.map((e) => [e.tag, e.parent]),
        [
          ['body', -1], ['header', 0], ['h1', 1], ['main', 0], ['section', 3], ['p', 4], ['p', 4],
          ['svg', 3], ['rect', 7], ['details', 3], ['summary', 9], ['footer', 0],
        ],
      );
      // visibility:hidden is kept: it still takes space, and the change shows in its styles
      assert.equal(style(dom, dom.elements[6], 'visibility'), 'hidden');
      assert.equal(style(dom, dom.elements[5], 'visibility'), 'visible');
    });
  });

  test('collector: selectors use unique ids, up to 3 stable classes and nth-of-type only among same-tag siblings', async () => {
    const html = `<div id="app"><ul class="list"><li>a</li><li class="on">b</li></ul><p>x</p></div>
      <div id="dup"></div><div id="dup"><span></span></div>
      <div class="row css-1a2b3c4d big extra more"></div>
      <div id="el-12345678"><b></b></div>`;
    await withPage(html, async (page) => {
      const dom = await collect(page);
      assert.deepEqual(dom.elements.map((e) => e.selector), [
        'body',
        '#app',
        '#app > ul.list',
        '#app > ul.list > li:nth-of-type(1)',
        '#app > ul.list > li.on:nth-of-type(2)',
        '#app > p',
        'body > div:nth-of-type(2)', // id "dup" is not unique
        'body > div:nth-of-type(3)',
        'body > div:nth-of-type(3) > span',
        'body > div.row.big.extra:nth-of-type(4)', // css-1a2b3c4d looks generated; max 3 classes
        'body > div:nth-of-type(5)', // el-12345678 looks generated
        'body > div:nth-of-type(5) > b',
      ]);
      // Every selector is plain CSS that finds exactly its own element.
      const matches = await page.evaluate(
        (sels) => sels.map((s) => [...document.querySelectorAll(s)].map((e) => e.localName)),
        dom.elements.map((e) => e.selector),
      );
      assert.deepEqual(matches, dom.elements.map((e) => [e.tag]));
    });
  });

  test('collector: selectors stay distinct on a page full of look-alike siblings', async () => {
    const html = '<ul>' + '<li class="item"><a class="x">a</a><a class="x">b</a></li>'.repeat(30) + '</ul><ul><li class="item"></li></ul>';
    await withPage(html, async (page) => {
      const dom = await collect(page);
      assert.equal(dom.elements.length, 1 + 2 + 30 * 3 + 1);
      assert.equal(new Set(dom.elements.map((e) => e.selector)).size, dom.elements.length);
      assert.equal(dom.elements[3].selector, 'body > ul:nth-of-type(1) > li.item:nth-of-type(1) > a.x:nth-of-type(1)');
      assert.equal(dom.elements.at(-1).selector, 'body > ul:nth-of-type(2) > li.item');
    });
  });

  test('collector: boxes are border boxes in page coordinates, rounded to 2 decimals, also below the fold', async () => {
    const html = `<style>body{margin:0} .spacer{height:3000px}
      .target{margin-left:10.5px;width:33.333px;height:20px;border:2px solid red;padding:3px}</style>
      <div class="spacer"></div><div class="target">x</div><div class="spacer"></div>`;
    await withPage(html, async (page) => {
      const atTop = await collect(page);
      await page.evaluate(() => window.scrollTo(0, 2500));
      assert.equal(await page.evaluate(() => window.scrollY), 2500);
      const scrolled = await collect(page);
      // 33.333px is laid out as 33.328125 (1/64 px units): + 6 padding + 4 border = 43.328125
      assert.deepEqual(bySelector(scrolled, 'body > div.target:nth-of-type(2)').box, [10.5, 3000, 43.33, 30]);
      assert.deepEqual(bySelector(atTop, 'body > div.target:nth-of-type(2)').box, [10.5, 3000, 43.33, 30]);
      assert.deepEqual(scrolled.document, { width: 800, height: 6030 });
    });
  });

  test('collector: own-text digest is FNV-1a 64 of the collapsed own text: same text, same digest', async () => {
    const html = `<p id="a">Hello   <b>bold</b>
      world</p><p id="b">Hello world</p><p id="c">Hello world!</p><p id="d"><b>only a child</b></p><p id="e">Grüße 👋</p>`;
    await withPage(html, async (page) => {
      const dom = await collect(page);
      const text = (sel) => bySelector(dom, sel).text;
      assert.equal(text('#a'), fnv1a64('Hello world'));
      assert.equal(text('#a > b'), fnv1a64('bold'));
      assert.equal(text('#b'), text('#a'));
      assert.notEqual(text('#c'), text('#b'));
      assert.equal(text('#d'), null);
      assert.equal(text('#e'), fnv1a64('Grüße 👋'));
      assert.equal(text('body'), null);

      await page.evaluate(() => (document.getElementById('b').textContent = 'Hello World'));
      const changed = await collect(page);
      assert.equal(bySelector(changed, '#b').text, fnv1a64('Hello World'));
      assert.equal(bySelector(changed, '#a').text, text('#a'));
    });
  });

  test('collector: image digest from <img> source and CSS background-image', async () => {
    const png = `data:image/png;base64,${ONE_PIXEL_PNG.toString('base64')}`;
    const html = `<img id="i" src="${png}"><div id="bg" style="background-image:url('${png}');width:5px;height:5px"></div>
      <div id="grad" style="background-image:linear-gradient(red, blue)"></div><div id="none"></div>`;
    await withPage(html, async (page) => {
      const dom = await collect(page);
      assert.equal(bySelector(dom, '#i').image, fnv1a64(png));
      assert.equal(bySelector(dom, '#bg').image, fnv1a64(`url("${png}")`));
      assert.equal(bySelector(dom, '#grad').image, fnv1a64('linear-gradient(rgb(255, 0, 0), rgb(0, 0, 255))'));
      assert.equal(bySelector(dom, '#none').image, null);
    });
  });

  test('collector: the page\'s own images are named by their path from the page, on any host or folder', async () => {
    // The same server as two origins (127.0.0.1 and localhost): the records must agree.
    const served = [];
    for (const origin of [base, crossOrigin]) {
      const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
      try {
        await page.goto(`${origin}/shop/images.html`);
        served.push(await collect(page, { styleProperties: ['background-image'] }));
      } finally {
        await page.close();
      }
    }
    const [a, b] = served;
    // The digests the core's `dom::page_relative` names (its unit tests pin the same paths).
    assert.equal(bySelector(a, '#root').image, fnv1a64('/ok.png'));
    assert.equal(bySelector(a, '#near').image, fnv1a64('/shop/ok.png'));
    assert.equal(bySelector(a, '#other').image, fnv1a64('http://other.invalid/ok.png'));
    assert.equal(bySelector(a, '#bg').image, fnv1a64('url("/ok.png"), url("http://other.invalid/x.png")'));
    assert.equal(style(a, bySelector(a, '#styled'), 'background-image'), 'url("/shop/ok.png")');
    for (const selector of ['#root', '#near', '#other', '#bg', '#styled']) {
      assert.equal(bySelector(b, selector).image, bySelector(a, selector).image, selector);
    }
    assert.deepEqual(b.styleRows, a.styleRows);

    // A file: page opened from two folders (two checkouts): named from the page's folder.
    const records = [];
    const dirs = [];
    try {
      for (const name of ['one', 'two']) {
        const dir = mkdtempSync(path.join(os.tmpdir(), `sightline-${name}-`));
        dirs.push(dir);
        mkdirSync(path.join(dir, 'img'));
        writeFileSync(path.join(dir, 'img', 'ok.png'), ONE_PIXEL_PNG);
        writeFileSync(path.join(dir, 'index.html'), '<!doctype html><img id="i" src="img/ok.png">');
        const page = await browser.newPage();
        try {
          await page.goto(pathToFileURL(path.join(dir, 'index.html')).href);
          records.push(await collect(page));
        } finally {
          await page.close();
        }
      }
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(bySelector(records[0], '#i').image, fnv1a64('img/ok.png'));
    assert.equal(bySelector(records[1], '#i').image, bySelector(records[0], '#i').image);
  });

  test('collector: styles follow the property list; a custom property change shows as colour changes', async () => {
    const html = `<style>:root{--brand: rgb(10, 20, 30)} .t{color:var(--brand); border-top:3px solid}
      .odd{border-style:none; border-width:5px; margin:1px 2px 3px 4px}</style>
      <p class="t">x</p><p class="odd">y</p>`;
    await withPage(html, async (page) => {
      const before = await collect(page);
      const t = bySelector(before, 'body > p.t:nth-of-type(1)');
      assert.equal(style(before, t, 'color'), 'rgb(10, 20, 30)');
      assert.equal(style(before, t, 'border-top-width'), '3px');
      assert.equal(style(before, t, 'border-top-style'), 'solid');
      const odd = bySelector(before, 'body > p.odd:nth-of-type(2)');
      assert.deepEqual(
        ['border-left-width', 'margin-top', 'margin-right', 'margin-bottom', 'margin-left'].map((p) => style(before, odd, p)),
        ['0px', '1px', '2px', '3px', '4px'],
      );
      // Every value equals what getComputedStyle says, element by element and property by property.
      const direct = await page.evaluate(
        ([sels, props]) =>
          sels.map((s) => {
            const cs = getComputedStyle(document.querySelector(s));
            return props.map((p) => cs.getPropertyValue(p));
          }),
        [before.elements.map((e) => e.selector), [...DEFAULT_STYLE_PROPERTIES]],
      );
      assert.deepEqual(before.elements.map((e) => stylesOf(before, e)), direct);

      await page.evaluate(() => document.documentElement.style.setProperty('--brand', 'rgb(200, 0, 0)'));
      const after = await collect(page);
      const t2 = bySelector(after, 'body > p.t:nth-of-type(1)');
      const changed = DEFAULT_STYLE_PROPERTIES.filter((p, i) => stylesOf(before, t)[i] !== stylesOf(after, t2)[i]);
      // border and outline colours default to currentColor, so they follow `color`
      assert.deepEqual(changed, [
        'color', 'border-top-color', 'border-right-color', 'border-bottom-color', 'border-left-color', 'outline-color',
      ]);
      assert.equal(style(after, t2, 'color'), 'rgb(200, 0, 0)');
    });
  });

  test('collector: a custom property list is read in its order; bad options are refused', async () => {
    await withPage('<p style="color:rgb(1, 2, 3);border-left:4px dotted">x</p>', async (page) => {
      const dom = await collect(page, { styleProperties: ['border-left-width', 'color', 'border-left-style'] });
      assert.deepEqual(dom.styleProperties, ['border-left-width', 'color', 'border-left-style']);
      assert.deepEqual(stylesOf(dom, bySelector(dom, 'body > p')), ['4px', 'rgb(1, 2, 3)', 'dotted']);
      await assert.rejects(collectDom(page, { styleProperties: 'color' }), /styleProperties must be an array/);
      await assert.rejects(collectDom(page, { mask: '.ad' }), /mask must be an array of CSS selector strings/);
    });
  });

  test('collector: a box shorthand read once gives each side exactly the value the browser gives it', async () => {
    // Sides that differ in 1 to 4 values, colour functions with spaces, calc(), percentages,
    // elliptical radii (a `/`: read side by side), currentcolor, auto margins.
    const html = `<style>
      .a{margin:1px 2px 3px 4px;padding:5% 6px;border:2px dashed rgb(1,2,3);border-left:3px dotted color(srgb 0.1 0.2 0.3);border-radius:10px / 5px}
      .b{border-radius:50% 10px 3px;border-top-color:rgba(1,2,3,0.5);margin:calc(10px + 1em) auto;padding:0}
      .c{border-style:solid none;border-width:thin medium thick;border-color:currentcolor red;color:lab(50% 40 59.5)}
      .d{border-radius:1px 2px 3px 4px / 5px;margin:-3px;outline:1px solid}</style>
      <div class=a>a</div><div class=b>b</div><div class=c>c</div><div class=d>d</div><p style="margin: 0 auto; width: 10px">e</p>`;
    await withPage(html, async (page) => {
      const dom = await collect(page);
      const boxed = DEFAULT_STYLE_PROPERTIES.filter((p) => /^(margin|padding|border)-.*(top|right|bottom|left)/.test(p));
      assert.equal(boxed.length, 24);
      const byBrowser = await page.evaluate((boxed) => [document.body, ...document.body.querySelectorAll('*')]
        .filter((e) => e.localName !== 'style').map((e) => boxed.map((p) => getComputedStyle(e).getPropertyValue(p))), boxed);
      const recorded = dom.elements.map((e) => boxed.map((p) => style(dom, e, p)));
      assert.deepEqual(recorded, byBrowser);
      const at = (element, property) => recorded[element][boxed.indexOf(property)];
      assert.deepEqual(['top', 'right', 'bottom', 'left'].map((side) => at(1, `margin-${side}`)), ['1px', '2px', '3px', '4px']);
      assert.equal(at(1, 'border-top-left-radius'), '10px 5px', 'an elliptical corner, read itself');
      assert.equal(at(1, 'border-left-color'), 'color(srgb 0.1 0.2 0.3)');
    });
  });

  test('collector: masked elements and all their descendants are marked', async () => {
    const html = '<div class="ad"><p>ad <span>x</span></p></div><p>content</p><div id="clock">12:00</div>';
    await withPage(html, async (page) => {
      const dom = await collect(page, { mask: ['.ad', '#clock'] });
      assert.deepEqual(
        dom.elements.map((e) => [e.selector, e.masked]),
        [
          ['body', false],
          ['body > div.ad:nth-of-type(1)', true],
          ['body > div.ad:nth-of-type(1) > p', true],
          ['body > div.ad:nth-of-type(1) > p > span', true],
          ['body > p', false],
          ['#clock', true],
        ],
      );
      await assert.rejects(collectDom(page, { mask: ['div['] }), /mask selector "div\[" is not a valid CSS selector/);
    });
  });

  test('collector: open shadow roots are walked after ` >>> `; only slotted light children are kept', async () => {
    const html = `<x-card><span class="light">slotted</span><i slot="missing">not shown</i></x-card>
      <script>
        customElements.define('x-card', class extends HTMLElement {
          constructor() {
            super();
            this.attachShadow({ mode: 'open' }).innerHTML =
              '<style>b { color: rgb(1, 2, 3) }</style><b class="inner">shadow <em>deep</em></b><slot></slot>';
          }
        });
      </script>`;
    await withPage(html, async (page) => {
      const dom = await collect(page, { mask: ['em'] });
      assert.deepEqual(
        dom.elements.map((e) => [e.selector, e.parent, e.masked]),
        [
          ['body', -1, false],
          ['body > x-card', 0, false],
          ['body > x-card >>> b.inner', 1, false],
          ['body > x-card >>> b.inner > em', 2, true], // mask selectors apply inside shadow roots too
          ['body > x-card >>> slot', 1, false],
          ['body > x-card > span.light', 1, false],
        ],
      );
      const inner = bySelector(dom, 'body > x-card >>> b.inner');
      assert.equal(style(dom, inner, 'color'), 'rgb(1, 2, 3)');
      assert.equal(inner.text, fnv1a64('shadow'));
      assert.ok(inner.box[2] > 0 && inner.box[3] > 0);
    });
  });

  test('collector: selectorsFor names given elements exactly as the walk does (shadow roots included)', async () => {
    const html = `<main><p class="a">one</p><p class="a">two</p><div id="box"><span>x</span></div></main>
      <x-tag></x-tag><div id="hidden" style="display:none">h</div>
      <script>
        customElements.define('x-tag', class extends HTMLElement {
          constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<b class="in">s</b>'; }
        });
      </script>`;
    await withPage(html, async (page) => {
      const dom = await collect(page);
      const named = await page.evaluate(
        `(() => { const host = document.querySelector('x-tag');
          const els = [...document.body.querySelectorAll('main *'), host.shadowRoot.querySelector('b'),
                       document.getElementById('hidden'), document.createElement('i')];
          return (${collectInPage})({ styleProperties: [], mask: [], selectorsFor: els }); })()`,
      );
      const walked = new Set(dom.elements.map((e) => e.selector));
      const selectors = JSON.parse(named);
      assert.deepEqual(selectors, [
        'body > main > p.a:nth-of-type(1)',
        'body > main > p.a:nth-of-type(2)',
        '#box',
        '#box > span',
        'body > x-tag >>> b.in',
        '#hidden', // not rendered, so not walked, but still nameable
        null, // disconnected
      ]);
      for (const s of selectors.slice(0, 5)) assert.ok(walked.has(s), `${s} is not a walked selector`);
    });
  });

  test('collector: same-origin iframes are walked with boxes offset into the page; cross-origin ones are skipped', async () => {
    await withPage('/frames.html', async (page) => {
      await page.evaluate(() => window.scrollTo(0, 50));
      const dom = await collect(page);
      assert.deepEqual(
        dom.elements.map((e) => [e.selector, e.parent]),
        [
          ['body', -1],
          ['#same', 0],
          ['#same >>> body', 1],
          ['#same >>> body > p', 2],
          ['#other', 0],
        ],
      );
      // iframe at (50, 100) + 5px border + 7px padding; the p has a 4px left margin
      assert.deepEqual(bySelector(dom, '#same >>> body').box, [62, 112, 300, 200]);
      assert.deepEqual(bySelector(dom, '#same >>> body > p').box, [66, 112, 296, 10]);
      assert.equal(bySelector(dom, '#same >>> body > p').text, fnv1a64('inner'));
      assert.equal(dom.url, `${base}/frames.html`);
    });
  });

  test('collector: scope records only the element and its descendants, boxes relative to its border box', async () => {
    const html = `<style>body{margin:0} .spacer{height:1500px} main{padding:20px}
        .card{width:200px;margin-left:30.5px;border:3px solid;padding:5px;color:rgb(1, 2, 3)}
        .card h2{margin:4px 0;font-size:16px} .card p{margin:0 0 0 7px}</style>
      <div class="spacer"></div>
      <main><div class="card"><h2>Lamp</h2><p>Price <b>$49</b></p></div>
        <div class="card" style="color:rgb(9, 9, 9)"><h2>Chair</h2><p>Price <b>$129</b></p></div></main>
      <div class="spacer"></div>`;
    await withPage(html, async (page) => {
      const cardSel = 'body > main > div.card:nth-of-type(2)';
      await page.evaluate(() => window.scrollTo(0, 900)); // the card is below the fold, then scrolled
      const whole = await collect(page);
      const handle = await page.$('main > div.card:nth-of-type(2)');
      const scoped = await collect(page, { scope: handle });
      await handle.dispose();

      // Only the subtree, in the page walk's order, with the page walk's selectors and values.
      const subtree = whole.elements.filter((e) => e.selector === cardSel || e.selector.startsWith(cardSel + ' > '));
      assert.deepEqual(subtree.map((e) => e.selector), [cardSel, `${cardSel} > h2`, `${cardSel} > p`, `${cardSel} > p > b`]);
      assert.deepEqual(scoped.elements.map((e) => e.selector), subtree.map((e) => e.selector));
      assert.deepEqual(scoped.elements.map((e) => e.parent), [-1, 0, 0, 2]);
      // The same values, through each record's own rows.
      const strip = (dom) => ({ parent, box, style, ...rest }) => ({ ...rest, styles: stylesOf(dom, { style }) });
      assert.deepEqual(scoped.elements.map(strip(scoped)), subtree.map(strip(whole)));
      assert.equal(style(scoped, scoped.elements[1], 'color'), 'rgb(9, 9, 9)');

      // Boxes: the root at 0,0; a descendant's box is its rect minus the card's rect.
      const rects = await page.evaluate((sels) => sels.map((s) => {
        const r = document.querySelector(s).getBoundingClientRect();
        return [r.left, r.top, r.width, r.height];
      }), scoped.elements.map((e) => e.selector));
      const [cx, cy, cw, ch] = rects[0];
      const r2 = (v) => Math.round(v * 100) / 100;
      assert.deepEqual(scoped.elements[0].box, [0, 0, r2(cw), r2(ch)]);
      assert.deepEqual(scoped.elements.map((e) => e.box), rects.map(([x, y, w, h]) => [r2(x - cx), r2(y - cy), r2(w), r2(h)]));
      // h2 sits inside the 3px border + 5px padding, below its 4px margin; p has a 7px left margin
      assert.deepEqual(scoped.elements[1].box.slice(0, 2), [8, 12]);
      assert.equal(scoped.elements[2].box[0], 15);
      assert.deepEqual(scoped.document, { width: r2(cw), height: r2(ch) });
      // Same record whatever the scroll position, and a Locator works as well as a handle.
      await page.evaluate(() => window.scrollTo(0, 0));
      const viaLocator = await collect(page, { scope: page.locator('main > div.card').nth(1) });
      assert.deepEqual(viaLocator, scoped);
      // Outside the scope nothing is named, whatever its styles do.
      assert.ok(!scoped.elements.some((e) => e.selector.includes('nth-of-type(1)')));

      await assert.rejects(collectDom(page, { scope: 'main' }), /scope must be an ElementHandle or a Locator/);
    });
  });

  test('collector: a scope in a shadow root or an iframe keeps its full page selector; masks above it apply', async () => {
    const html = `<style>body{margin:0}</style><div class="ad"><section><p>ad <span>x</span></p></section></div>
      <x-card></x-card>
      <script>
        customElements.define('x-card', class extends HTMLElement {
          constructor() {
            super();
            this.attachShadow({ mode: 'open' }).innerHTML =
              '<style>b { display: block; margin-left: 6px }</style><div id="wrap"><b class="inner">shadow <em>deep</em></b></div>';
          }
        });
      </script>`;
    await withPage(html, async (page) => {
      const dom = await collect(page, { scope: page.locator('x-card b.inner'), mask: ['em'] });
      assert.deepEqual(
        dom.elements.map((e) => [e.selector, e.parent, e.masked]),
        [
          ['body > x-card >>> #wrap > b.inner', -1, false],
          ['body > x-card >>> #wrap > b.inner > em', 0, true],
        ],
      );
      assert.deepEqual(dom.elements[0].box.slice(0, 2), [0, 0]);
      const masked = await collect(page, { scope: page.locator('.ad p'), mask: ['.ad'] });
      assert.deepEqual(
        masked.elements.map((e) => [e.selector, e.masked]),
        [
          ['body > div.ad > section > p', true],
          ['body > div.ad > section > p > span', true],
        ],
      );
    });
    await withPage('/frames.html', async (page) => {
      await page.evaluate(() => window.scrollTo(0, 50));
      const inner = await collect(page, { scope: page.frameLocator('#same').locator('p') });
      assert.deepEqual(inner.elements.map((e) => [e.selector, e.parent, e.box]), [['#same >>> body > p', -1, [0, 0, 296, 10]]]);
      assert.equal(inner.url, `${base}/inner.html`);
      const frame = await collect(page, { scope: page.locator('#same') });
      // iframe content starts inside its 5px border and 7px padding; the p has a 4px left margin
      assert.deepEqual(frame.elements.map((e) => [e.selector, e.parent, e.box]), [
        ['#same', -1, [0, 0, 324, 224]],
        ['#same >>> body', 0, [12, 12, 300, 200]],
        ['#same >>> body > p', 1, [16, 12, 296, 10]],
      ]);
      assert.deepEqual(frame.document, { width: 324, height: 224 });
    });
  });

  test('collector: with a scope, fonts and broken images are those the subtree uses', async () => {
    await withPage('/health.html', async (page) => {
      await stabilise.prepareForCapture(page);
      const text = await collect(page, { scope: page.locator('p') });
      assert.deepEqual(text.fonts, [{ family: 'Broken Face', status: 'error', sources: [`${base}/missing.woff2`] }]);
      assert.deepEqual(text.brokenImages, []);
      const image = await collect(page, { scope: page.locator('img').first() });
      assert.deepEqual(image.brokenImages, [`${base}/missing.png`]);
      assert.ok(!image.fonts.some((f) => f.family === 'Unused'), JSON.stringify(image.fonts));
      const ok = await collect(page, { scope: page.locator('img').nth(1) });
      assert.deepEqual(ok.brokenImages, []);
    });
  });

  test('collector: a 404 image is a broken image and a 404 web font has status error', async () => {
    await withPage('/health.html', async (page) => {
      await stabilise.prepareForCapture(page);
      const dom = await collect(page);
      // The display:none image failed too but paints nothing, so it is not reported.
      assert.deepEqual(dom.brokenImages, [`${base}/missing.png`]);
      // A failed face names where it loads from (its @font-face src, made absolute).
      assert.deepEqual(dom.fonts, [
        { family: 'Broken Face', status: 'error', sources: [`${base}/missing.woff2`] },
        { family: 'Unused', status: 'unloaded' },
      ]);
      // The broken image keeps its whole URL (the network failure that explains it has it); the
      // digest of one that loaded names it by its path from the page.
      assert.equal(bySelector(dom, 'body > img:nth-of-type(2)').image, fnv1a64('/ok.png'));
    });
  });

  test('devtools: the font lookup and the rule trace leave the page\'s DOM and CSS domains off', async () => {
    const { renderedFonts } = require('../playwright-fixtures/environment.js');
    const { styleRules } = require('../playwright-fixtures/trace.js');
    const { pageSession } = require('../playwright-fixtures/devtools.js');
    await withPage('<style>p { color: #b91c1c; font-family: sans-serif }</style><p>text</p>', async (page) => {
      const fonts = await renderedFonts(page, 8);
      assert.ok(fonts.some((f) => f.family === 'sans-serif'), JSON.stringify(fonts));
      const rules = JSON.parse(await styleRules(page, ['p'], ['color']));
      const color = rules.elements[0].own.flatMap((rule) => rule.declarations).find((d) => d.name === 'color');
      assert.equal(color?.value, '#b91c1c', JSON.stringify(rules.elements));
      // Both lookups send their disables without waiting: a command sent after them finds the
      // domains off (DOM.disable refuses a domain that is off; CSS reads refuse without it).
      const cdp = await pageSession(page);
      await assert.rejects(cdp.send('DOM.disable'), /DOM agent hasn't been enabled/);
      await assert.rejects(cdp.send('CSS.getMatchedStylesForNode', { nodeId: 1 }), /CSS agent was not enabled/);
    });
  });

  test('devtools: the font lookup and the rule trace asked together share one round of the page\'s domains', async () => {
    const { renderedFonts } = require('../playwright-fixtures/environment.js');
    const { tracedRules } = require('../playwright-fixtures/trace.js');
    const { pageSession } = require('../playwright-fixtures/devtools.js');
    await withPage('<style>p { color: #b91c1c; font-family: sans-serif }</style><p>text</p>', async (page) => {
      const cdp = await pageSession(page);
      const sent = [];
      const send = cdp.send.bind(cdp);
      cdp.send = (method, params) => {
        sent.push(method);
        return send(method, params);
      };
      try {
        const [fonts, traced] = await Promise.all([
          renderedFonts(page, 8, [{ family: 'sans-serif', selector: 'p' }]),
          tracedRules(page, { selectors: ['p'], names: ['color'] }),
        ]);
        assert.deepEqual(fonts.map((f) => f.family), ['sans-serif']);
        const rules = JSON.parse(traced.rules);
        // The stylesheet reported when the shared round enabled CSS is the trace's too.
        assert.equal(rules.sheets.length, 1, traced.rules);
        assert.equal(rules.elements[0].own.find((rule) => rule.sheet === rules.sheets[0].id)?.declarations[0]?.value, '#b91c1c');
        const count = (method) => sent.filter((m) => m === method).length;
        assert.deepEqual([count('DOM.enable'), count('CSS.enable'), count('DOM.getDocument'), count('CSS.disable')], [1, 1, 1, 1], sent.join(' '));
      } finally {
        cdp.send = send;
      }
      await assert.rejects(cdp.send('DOM.disable'), /DOM agent hasn't been enabled/);
    });
  });

  test('fonts: the elements the engine names from the record are asked as they are, the page untouched; the same faces as the page\'s own marking', async () => {
    const { renderedFonts } = require('../playwright-fixtures/environment.js');
    const html =
      '<style>p { font-family: serif } pre { font-family: monospace }</style>' +
      '<p>serif text</p><pre>let x = 1;</pre>' +
      '<script>window.mutations = 0; new MutationObserver((list) => { window.mutations += list.length }).observe(document, { subtree: true, attributes: true, childList: true })</script>';
    await withPage(html, async (page) => {
      const named = [
        { family: 'serif', selector: 'body > p' },
        { family: 'monospace', selector: 'body > pre' },
        { family: 'cursive', selector: 'body > nav' }, // not in the document: left out
      ];
      const byRecord = await renderedFonts(page, 8, named);
      assert.deepEqual(byRecord.map((f) => f.family), ['serif', 'monospace'], JSON.stringify(byRecord));
      assert.ok(byRecord.every((f) => f.faces.length > 0 && f.faces.every((face) => face.name && !face.web)), JSON.stringify(byRecord));
      assert.equal(await page.evaluate(() => window.mutations), 0, 'asked by selector: nothing marked in the page');
      const byMarking = await renderedFonts(page, 8);
      assert.deepEqual(byMarking, byRecord);
      assert.ok((await page.evaluate(() => window.mutations)) > 0, 'the page\'s own marking is seen by the page');
      assert.deepEqual(await renderedFonts(page, 8, []), [], 'a record without text asks nothing');
    });
  });

  test('locator handlers: a page without any skips their round trip; one with a handler still runs it', async () => {
    const { mayHaveLocatorHandlers, runLocatorHandlers } = require('../playwright-fixtures/locator-handlers.js');
    await withPage('<button id="consent">Accept</button><p>text</p>', async (page) => {
      // Where the installed Playwright keeps a page's handlers: if it moves them, this fails and
      // says the fast path is lost (the handlers would still run: any other shape counts as "may").
      assert.equal(mayHaveLocatorHandlers(page), false);
      const consent = page.locator('#consent');
      await page.addLocatorHandler(consent, async () => {
        await page.evaluate(() => document.getElementById('consent').remove());
      });
      assert.equal(mayHaveLocatorHandlers(page), true);
      await runLocatorHandlers(page, 5000);
      assert.equal(await page.locator('#consent').count(), 0, 'the handler ran and removed what it watches for');
      await page.removeLocatorHandler(consent);
      assert.equal(mayHaveLocatorHandlers(page), false);
      assert.equal(mayHaveLocatorHandlers({}), true, 'a page of another shape runs the handlers');
    });
  });

  test('collector: a 5,000-element page is one evaluate and a few style rows (its speed is the bench\'s, npm run bench -- --only dom)', async () => {
    await withPage(cardsPage(), async (page) => {
      const dom = await collect(page);
      assert.equal(dom.elements.length, 5002);
      // A card's div, h3, p, a and span, and main (as the div, a block without margins), and
      // body: every card looks alike, so six rows serve all 5,002 elements.
      assert.equal(dom.styleRows.length, 6);
      const rows = new Set(dom.elements.map((e) => e.style));
      assert.equal(rows.size, dom.styleRows.length, 'every row is used');
    });
  });
}
