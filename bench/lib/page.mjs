// The benchmark page: a shop-like 1280 px wide page that is exactly 10000 px tall.
//
// Every block has a fixed pixel height (overflow hidden), so the height does not depend on font
// metrics and the variants differ only where we say they do. Text comes from a seeded PRNG so
// the page (and therefore the cache key) is the same on every run.

export const PAGE_WIDTH = 1280;
export const PAGE_HEIGHT = 10000;
export const BANNER_HEIGHT = 24;

/** Variants rendered for the benchmark; `shift` is PAGE_HEIGHT + BANNER_HEIGHT tall. */
export const VARIANTS = ['base', 'recolour', 'shift'];

// Which cards and buttons the `recolour` variant changes. Chosen spread over the page so the
// changed pixels form several separate regions, as a real token change would.
const RECOLOURED_CARDS = new Set([2, 17, 38, 53]);
const RECOLOURED_BUTTONS = new Set(['hero-primary', 'card-29']);

const HEADER = 72;
const NAV = 44;
const HERO = 420;
const SECTION_TITLE = 64;
const CARD_H = 388;
const CARD_GAP = 24;
const GRID_ROWS = 3;
const SECTION_PAD = 40;
const PRODUCT_SECTION = SECTION_TITLE + GRID_ROWS * CARD_H + (GRID_ROWS - 1) * CARD_GAP + SECTION_PAD;
const TEXT_SECTION = 340;
const PROMO = 140;
const MIN_FOOTER = 280;

/** Mulberry32: a tiny deterministic PRNG, enough for picking words. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ADJECTIVES = ['Classic', 'Organic', 'Compact', 'Ultralight', 'Handmade', 'Vintage', 'Smart',
  'Waterproof', 'Ceramic', 'Recycled', 'Wireless', 'Merino', 'Bamboo', 'Cast-iron', 'Linen'];
const NOUNS = ['Backpack', 'Kettle', 'Desk Lamp', 'Headphones', 'Sneakers', 'Notebook', 'Mug',
  'Throw Blanket', 'Chef Knife', 'Water Bottle', 'Sunglasses', 'Plant Pot', 'Rain Jacket',
  'Speaker', 'Wall Clock', 'Cutting Board'];
const WORDS = ('our store ships every order within two working days and every product comes with '
  + 'a thirty day return window we work with small makers and check each batch by hand before '
  + 'it leaves the warehouse prices include taxes and delivery is free above fifty euros gift '
  + 'wrapping is available at checkout and support answers within one hour during the week')
  .split(' ');
const CATEGORIES = ['New in', 'Home', 'Kitchen', 'Outdoor', 'Audio', 'Stationery', 'Apparel',
  'Gifts', 'Sale', 'Brands'];

function sentence(rand, words) {
  const out = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]);
  const text = out.join(' ');
  return text[0].toUpperCase() + text.slice(1) + '.';
}

function paragraph(rand) {
  const parts = [];
  for (let i = 0; i < 5; i++) parts.push(sentence(rand, 8 + Math.floor(rand() * 10)));
  return parts.join(' ');
}

const STYLES = `
* { box-sizing: border-box; }
html, body { margin: 0; padding: 0; background: #f6f7f9; color: #1d2433;
  font: 15px/1.45 sans-serif; }
.block { overflow: hidden; width: ${PAGE_WIDTH}px; }
.inner { width: 1200px; margin: 0 auto; }
header { height: ${HEADER}px; background: #fff; border-bottom: 1px solid #e3e6eb; }
header .inner { display: flex; align-items: center; height: 100%; gap: 32px; }
.logo { font-size: 26px; font-weight: bold; color: #2f3ab2; letter-spacing: -0.5px; }
.search { flex: 1; height: 40px; border: 1px solid #cfd5de; border-radius: 20px; padding: 9px 18px;
  color: #8a93a3; }
.cart { width: 120px; height: 40px; border-radius: 20px; background: #1d2433; color: #fff;
  text-align: center; line-height: 40px; }
nav { height: ${NAV}px; background: #2f3ab2; }
nav .inner { display: flex; gap: 28px; line-height: ${NAV}px; color: #e8eaff; font-size: 14px; }
.banner { height: ${BANNER_HEIGHT}px; background: #ffd84d; color: #3b2f00; font-size: 13px;
  line-height: ${BANNER_HEIGHT}px; text-align: center; }
.hero { height: ${HERO}px; background: linear-gradient(120deg, #4f46e5 0%, #9333ea 45%, #f97316 100%);
  color: #fff; }
.hero .inner { padding-top: 90px; }
.hero h1 { font-size: 52px; margin: 0 0 16px; line-height: 1.1; }
.hero p { font-size: 20px; margin: 0 0 32px; width: 640px; opacity: 0.92; }
.btn { display: inline-block; height: 40px; padding: 0 22px; border-radius: 8px; border: 0;
  background: #2f3ab2; color: #fff; font: bold 15px/40px sans-serif; }
.btn.big { height: 52px; line-height: 52px; padding: 0 34px; font-size: 18px; background: #fff;
  color: #4f46e5; margin-right: 16px; }
.btn.ghost { background: transparent; color: #fff; box-shadow: inset 0 0 0 2px #fff; }
.btn.recoloured { background: #d9480f; color: #fff; }
.products { height: ${PRODUCT_SECTION}px; }
.products h2 { height: ${SECTION_TITLE}px; margin: 0; font-size: 26px; line-height: ${SECTION_TITLE + 8}px; }
.grid { display: grid; grid-template-columns: repeat(4, 282px); gap: ${CARD_GAP}px; }
.card { height: ${CARD_H}px; background: #fff; border-radius: 12px; overflow: hidden;
  box-shadow: 0 1px 3px rgba(16, 24, 40, 0.12); border: 1px solid #e3e6eb; }
.thumb { height: 134px; position: relative; }
.thumb .item { position: absolute; left: 101px; top: 27px; width: 80px; height: 80px;
  border-radius: 18px; background: rgba(255, 255, 255, 0.85); }
.thumb .dot { position: absolute; left: 127px; top: 53px; width: 28px; height: 28px;
  border-radius: 50%; }
.card .body { padding: 14px 16px; }
.card h3 { margin: 0 0 6px; font-size: 17px; height: 48px; }
.card .stars { color: #f59e0b; font-size: 14px; }
.card .desc { color: #5b6474; font-size: 13px; height: 56px; overflow: hidden; margin: 6px 0 10px; }
.card .price { font-size: 20px; font-weight: bold; margin-bottom: 10px; }
.card .price s { color: #8a93a3; font-size: 14px; font-weight: normal; margin-left: 8px; }
.card .btn { width: 100%; text-align: center; }
.text { height: ${TEXT_SECTION}px; background: #fff; border-top: 1px solid #e3e6eb;
  border-bottom: 1px solid #e3e6eb; }
.text .inner { columns: 2; column-gap: 48px; padding-top: 36px; }
.text h2 { column-span: all; margin: 0 0 16px; font-size: 24px; }
.text p { margin: 0 0 12px; }
.promo { height: ${PROMO}px; background: linear-gradient(90deg, #0f766e, #14b8a6); color: #fff; }
.promo .inner { display: flex; align-items: center; justify-content: space-between; height: 100%;
  font-size: 24px; }
footer { background: #1d2433; color: #b7bfcc; }
footer .inner { display: grid; grid-template-columns: repeat(4, 1fr); gap: 32px; padding-top: 40px; }
footer h4 { color: #fff; margin: 0 0 12px; }
footer li { list-style: none; margin: 0 0 6px; }
footer ul { padding: 0; margin: 0; }
`;

function header() {
  return `<header class="block"><div class="inner"><div class="logo">Sightline Shop</div>
<div class="search">Search 2,400 products…</div><div class="cart">Cart (3)</div></div></header>`;
}

function nav() {
  return `<nav class="block"><div class="inner">${CATEGORIES.map((c) => `<span>${c}</span>`).join('')}</div></nav>`;
}

function button(id, label, extraClass, recolour) {
  const cls = ['btn', extraClass, recolour && RECOLOURED_BUTTONS.has(id) ? 'recoloured' : '']
    .filter(Boolean).join(' ');
  return `<span class="${cls}">${label}</span>`;
}

function hero(recolour) {
  return `<section class="hero block"><div class="inner"><h1>Autumn essentials,<br>made to last</h1>
<p>Hand-picked goods from small makers. Free delivery above €50 and a 30 day return window on everything.</p>
${button('hero-primary', 'Shop the collection', 'big', recolour)}${button('hero-secondary', 'See what is new', 'big ghost', recolour)}
</div></section>`;
}

function card(index, rand, recolour) {
  const hue = Math.floor(rand() * 360);
  // The recoloured cards swap the thumbnail's gradient for a different hue, as a theme token
  // change would; everything else on the card stays put.
  const h = recolour && RECOLOURED_CARDS.has(index) ? (hue + 150) % 360 : hue;
  const name = `${ADJECTIVES[Math.floor(rand() * ADJECTIVES.length)]} ${NOUNS[Math.floor(rand() * NOUNS.length)]}`;
  const price = (9 + rand() * 190).toFixed(2);
  const old = rand() < 0.3 ? `<s>€${(price * 1.25).toFixed(2)}</s>` : '';
  const stars = '★★★★★'.slice(0, 3 + Math.floor(rand() * 3)).padEnd(5, '☆');
  const reviews = Math.floor(rand() * 900);
  return `<div class="card"><div class="thumb" style="background: linear-gradient(135deg, hsl(${h} 70% 62%), hsl(${(h + 40) % 360} 75% 45%))">
<div class="item"></div><div class="dot" style="background: hsl(${hue} 60% 40%)"></div></div>
<div class="body"><h3>${name} ${index + 1}</h3><div class="stars">${stars} <span style="color:#5b6474">(${reviews})</span></div>
<div class="desc">${sentence(rand, 14)}</div><div class="price">€${price}${old}</div>
${button(`card-${index}`, 'Add to cart', '', recolour)}</div></div>`;
}

function products(title, firstCard, rand, recolour) {
  const cards = [];
  for (let i = 0; i < GRID_ROWS * 4; i++) cards.push(card(firstCard + i, rand, recolour));
  return `<section class="products block"><div class="inner"><h2>${title}</h2><div class="grid">${cards.join('')}</div></div></section>`;
}

function text(title, rand) {
  const paras = [];
  for (let i = 0; i < 4; i++) paras.push(`<p>${paragraph(rand)}</p>`);
  return `<section class="text block"><div class="inner"><h2>${title}</h2>${paras.join('')}</div></section>`;
}

function promo(n) {
  return `<section class="promo block"><div class="inner"><span>Members save 15 % on order ${n}</span>
<span class="btn big">Join for free</span></div></section>`;
}

function footer(height, rand) {
  const cols = ['Shop', 'Help', 'Company', 'Follow us'].map((title) => {
    const links = [];
    for (let i = 0; i < 6; i++) links.push(`<li>${sentence(rand, 2).slice(0, -1)}</li>`);
    return `<div><h4>${title}</h4><ul>${links.join('')}</ul></div>`;
  });
  return `<footer class="block" style="height:${height}px"><div class="inner">${cols.join('')}</div></footer>`;
}

/**
 * Returns the HTML of one variant. Block heights are summed as they are emitted, and the footer
 * takes whatever is left, so the base page is exactly PAGE_HEIGHT tall.
 */
export function pageHtml(variant) {
  if (!VARIANTS.includes(variant)) throw new Error(`unknown page variant "${variant}"`);
  const recolour = variant === 'recolour';
  // One seed for all variants: the same words land in the same places.
  const rand = prng(20240611);
  const blocks = [header(), nav()];
  if (variant === 'shift') blocks.push('<div class="banner block">Free shipping this weekend only</div>');
  blocks.push(hero(recolour));
  let used = HEADER + NAV + HERO;
  let cardIndex = 0;
  const titles = ['Bestsellers', 'New this week', 'For the kitchen', 'Outdoors', 'Desk and study', 'Gifts under €50'];
  for (let s = 0; ; s++) {
    const step = [PRODUCT_SECTION, TEXT_SECTION, PROMO][s % 3];
    if (used + step + MIN_FOOTER > PAGE_HEIGHT) break;
    if (s % 3 === 0) {
      blocks.push(products(titles[(s / 3) % titles.length], cardIndex, rand, recolour));
      cardIndex += GRID_ROWS * 4;
    } else if (s % 3 === 1) {
      blocks.push(text(['About our makers', 'Delivery and returns', 'Care guide'][Math.floor(s / 3) % 3], rand));
    } else {
      blocks.push(promo(s));
    }
    used += step;
  }
  blocks.push(footer(PAGE_HEIGHT - used, rand));
  return `<!doctype html><html><head><meta charset="utf-8"><title>Sightline Shop</title>
<style>${STYLES}</style></head><body>${blocks.join('\n')}</body></html>`;
}

/** Height the variant must render to; rendering checks it so a layout slip cannot go unnoticed. */
export function expectedHeight(variant) {
  return variant === 'shift' ? PAGE_HEIGHT + BANNER_HEIGHT : PAGE_HEIGHT;
}
