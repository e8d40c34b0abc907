// Scenario pages. Each has a `base` and a `changed` variant that differ by one planted change.
// They are served by page.route on a loopback URL, so no request leaves the browser.

const shop = ({ accent = '#2563eb', banner = false, extra = false, clipCard = false, webFont = false } = {}) => `<!doctype html>
<html><head><style>
  ${webFont ? "@font-face { font-family: Brand; src: url('/fonts/brand.woff2') format('woff2'); }" : ''}
  :root { --accent: ${accent}; }
  body { margin: 0; font: 16px/1.4 sans-serif; color: #111; ${webFont ? 'font-family: Brand, sans-serif;' : ''} }
  header { height: 56px; background: #0f172a; color: white; padding: 0 24px; display: flex; align-items: center; }
  .banner { height: 40px; background: #fde68a; padding: 0 24px; }
  main { padding: 24px; }
  .cards { display: flex; gap: 16px; }
  .card { width: 220px; border: 1px solid #cbd5e1; border-radius: 8px; padding: 12px; }
  .card h2 { margin: 0 0 8px; font-size: 18px; color: var(--accent); }
  .price { font-weight: 700; }
  .card.clipped { max-height: ${clipCard ? '60px' : 'none'}; overflow: hidden; }
  button { background: var(--accent); color: white; border: 0; border-radius: 6px; padding: 8px 14px; }
  p.copy { width: 700px; }
</style></head><body>
  <header><strong>Sightline Shop</strong></header>
  ${banner ? '<div class="banner">Free shipping this week</div>' : ''}
  <main>
    <div class="cards">
      <div class="card" id="card-lamp"><h2>Desk lamp</h2><p class="price">$49</p><button>Add to cart</button></div>
      <div class="card clipped" id="card-chair"><h2>Chair</h2><p class="price">$129</p><button>Add to cart</button></div>
      <div class="card" id="card-plant"><h2>Plant</h2><p class="price">$19</p><button>Add to cart</button></div>
    </div>
    ${extra ? '<p id="promo">Members save 10 % today</p>' : ''}
    ${Array.from({ length: 12 }, (_, i) => `<p class="copy">Paragraph ${i + 1}: sturdy goods for everyday rooms, shipped in recycled boxes and backed by a two-year warranty.</p>`).join('\n')}
  </main>
</body></html>`;

export const scenarios = {
  identical: { base: shop(), changed: shop() },
  'style-token': { base: shop(), changed: shop({ accent: '#dc2626' }) },
  'clipped-card': { base: shop(), changed: shop({ clipCard: true }) },
  'banner-shift': { base: shop(), changed: shop({ banner: true }) },
  'added-element': { base: shop(), changed: shop({ extra: true }) },
  'font-404': { base: shop(), changed: shop({ webFont: true }) },
};

// Element captures (`expect(page.locator(selector)).toMatchVisual(name)`): the page may change
// outside the element too, which must not reach the element's verdict.
export const elementScenarios = {
  // The accent colour restyles every card; only #card-plant is captured (after the page was
  // scrolled away from it, so the screenshot scrolls it back into view).
  'element-style': { selector: '#card-plant', scrollAway: true, base: shop(), changed: shop({ accent: '#dc2626' }) },
};

export const ORIGIN = 'http://127.0.0.1:9';
