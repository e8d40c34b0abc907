// The example shop's pages. `changed` plants the changes `npm run example` shows in its report:
// the brand colour token (style-only change on the home page) and a taller hero on the catalogue
// (a page shift). The about page never changes (a pass).

const products = ['Desk lamp', 'Oak chair', 'Wool rug', 'Plant pot', 'Wall clock', 'Linen throw', 'Side table', 'Mirror', 'Vase'];

const layout = (title, body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="stylesheet" href="/styles.css">__EXTRA_STYLE__</head>
<body>
<header><strong>Sightline Shop</strong><nav><a href="/">Home</a><a href="/catalogue">Catalogue</a><a href="/about">About</a></nav></header>
${body}
<footer>© Sightline Shop — sturdy goods for everyday rooms.</footer>
</body></html>`;

const card = (name, i) =>
  `<div class="card" id="product-${i + 1}"><div class="thumb"></div><h3>${name}</h3><p class="price">$${(i + 2) * 11}</p><button class="btn">Add to cart</button></div>`;

const copy = (n) =>
  Array.from({ length: n }, (_, i) => `<p>Section ${i + 1}. Every piece is tested in real homes for a year before it reaches the shop, and shipped in recycled boxes.</p>`).join('\n');

export const pages = {
  '/': layout('Home', `<section class="hero"><h1>Rooms that work</h1><p>Furniture and light for small flats.</p><a class="btn" href="/catalogue">Shop now</a></section>
<div class="grid">${products.slice(0, 6).map(card).join('')}</div>`),
  '/catalogue': layout('Catalogue', `<section class="hero" id="catalogue-hero"><h1>Catalogue</h1><p>All ${products.length} products.</p></section>
<div class="grid">${products.map(card).join('')}</div>
<section class="copy">${copy(30)}</section>`),
  '/about': layout('About', `<section class="copy"><h1>About us</h1>${copy(6)}</section>`),
};

/** The planted changes: extra CSS per page. */
export const changes = {
  '/': ':root { --brand: #dc2626; }',
  '/catalogue': '#catalogue-hero { height: 280px; }',
};

/** The HTML of `path` in a variant (`original` or `changed`). */
export function render(path, variant) {
  const html = pages[path];
  if (!html) return undefined;
  const extra = variant === 'changed' && changes[path] ? `<style>${changes[path]}</style>` : '';
  return html.replace('__EXTRA_STYLE__', extra);
}
