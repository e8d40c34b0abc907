// One test per way a mask can be asked for. Each page paints what the mask must hide in pure
// red, rgb(255, 0, 0), which nothing else on the page uses, and MASK_VARIANT=changed changes
// only what is under a mask: every snapshot must still pass.
import path from 'node:path';
import { test, expect } from 'sightline/playwright';

const variant = process.env.MASK_VARIANT ?? 'base';
const base = process.env.MASK_BASE;
if (!base) throw new Error('MASK_BASE must name the folder holding one project root per test');
/** The base run's value, or the changed run's. */
const pick = (a, b) => (variant === 'base' ? a : b);

const CSS = '<style>body { margin: 0; font: 16px sans-serif } .secret { background: rgb(255, 0, 0) }</style>';

/** Serves `html` at a loopback URL no request leaves the browser for, with this test's root. */
async function open(page, name, html) {
  process.env.SIGHTLINE_ROOT = path.join(base, name);
  await page.route('http://127.0.0.1:9/**', (route) => route.fulfill({ contentType: 'text/html', body: CSS + html }));
  await page.goto(`http://127.0.0.1:9/${name}`);
}

test('ticking-clock', async ({ page }) => {
  // The reason masks exist: a clock that changes on every shot.
  await open(
    page,
    'ticking-clock',
    '<div style="height: 40px"></div><p id="clock" style="margin: 0; width: 200px; height: 20px">0</p>' +
      '<script>setInterval(() => { document.getElementById("clock").textContent = String(Date.now()); }, 20)</script>',
  );
  await expect(page).toMatchVisual('ticking-clock', { mask: [page.locator('#clock')], timeout: 3000 });
});

test('scrolled-viewport', async ({ page }) => {
  // A viewport shot (fullPage: false) of a page scrolled to 1400: the element at page y 1500
  // shows at y 100 of the shot.
  await open(
    page,
    'scrolled-viewport',
    '<div style="height: 3000px; position: relative">' +
      `<div id="secret" class="secret" style="position: absolute; top: 1500px; left: 50px; width: 100px; height: 50px">${pick('a', 'b')}</div></div>`,
  );
  await page.evaluate(() => window.scrollTo(0, 1400));
  await expect(page).toMatchVisual('scrolled-viewport', { mask: [page.locator('#secret')], fullPage: false });
});

test('clipped', async ({ page }) => {
  // The element at page 60,40 shows at 10,10 of a shot clipped from 50,30.
  await open(page, 'clipped', `<div style="height: 40px"></div><div id="secret" class="secret" style="margin-left: 60px; width: 100px; height: 50px">${pick('a', 'b')}</div>`);
  await expect(page).toMatchVisual('clipped', { mask: ['#secret'], clip: { x: 50, y: 30, width: 200, height: 100 } });
});

test('iframe-shadow-several', async ({ page }) => {
  // Locators into a same-origin iframe and into an open shadow root, and one Locator matching
  // three elements.
  const frame = `<div id="framed" style="background: rgb(255, 0, 0); width: 100px; height: 50px">${pick('x', 'y')}</div>`;
  await open(
    page,
    'iframe-shadow-several',
    `<iframe style="border: 0; display: block; width: 400px; height: 50px" srcdoc='<style>body { margin: 0 }</style>${frame}'></iframe>` +
      '<x-card></x-card>' +
      `<script>customElements.define("x-card", class extends HTMLElement { constructor() { super(); this.attachShadow({ mode: "open" }).innerHTML = '<div id="shadowed" style="background: rgb(255, 0, 0); width: 100px; height: 50px">${pick('x', 'y')}</div>'; } });</script>` +
      `<div class="ad secret" style="width: 50px; height: 30px">${pick('1', '2')}</div><div class="ad secret" style="width: 50px; height: 30px"></div>` +
      `<div class="ad secret" style="width: 50px; height: 30px; color: ${pick('black', 'white')}">3</div>`,
  );
  await page.frameLocator('iframe').locator('#framed').waitFor();
  await expect(page).toMatchVisual('iframe-shadow-several', {
    mask: [page.frameLocator('iframe').locator('#framed'), page.locator('#shadowed'), page.locator('.ad')],
  });
});

test('moved-after-walk', async ({ page }) => {
  // The page moves its masked element the moment the walk of the page is over (when the mark on
  // the masked Locator's element is taken off): a 60 px banner pushes #secret from y 40 to 100
  // before the shot. The mask must be painted where the shot shows it.
  await open(
    page,
    'moved-after-walk',
    `<div id="banner"></div><div style="height: 40px"></div><div id="secret" class="secret" style="width: 100px; height: 50px">${pick('a', 'b')}</div>` +
      '<script>const secret = document.getElementById("secret"); let moved = false;' +
      'new MutationObserver(() => { if (moved || secret.hasAttribute("data-sightline-mask")) return; moved = true; document.getElementById("banner").style.height = "60px"; })' +
      '.observe(secret, { attributes: true, attributeFilter: ["data-sightline-mask"] });</script>',
  );
  await expect(page).toMatchVisual('moved-after-walk', { mask: [page.locator('#secret')] });
});

test('keeps-moving', async ({ page }) => {
  // Every walk's end pushes #secret 10 px further down: no shot can be masked from a walk.
  await open(
    page,
    'keeps-moving',
    '<div id="banner"></div><div id="secret" class="secret" style="width: 100px; height: 50px">a</div>' +
      '<script>const secret = document.getElementById("secret"); let pushed = 0;' +
      'new MutationObserver(() => { if (secret.hasAttribute("data-sightline-mask")) return; pushed += 10; document.getElementById("banner").style.height = pushed + "px"; })' +
      '.observe(secret, { attributes: true, attributeFilter: ["data-sightline-mask"] });</script>',
  );
  await expect(page).toMatchVisual('keeps-moving', { mask: [page.locator('#secret')] });
});
