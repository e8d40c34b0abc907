// A model that looked, for the visual_verify tests: it answers each challenge from the page's DOM
// in Chromium at the size the worker shoots, reading the questions by their wording.
const chromiumPath = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';

/**
 * Answers from the page's DOM, read in Chromium at the same size the worker shoots: what a model
 * that looked at the screenshot sees. Questions are read by their wording, as a model reads them.
 */
export async function sightedAnswers(url, session) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumPath });
  try {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    await tab.goto(url, { waitUntil: 'load' });
    return await tab.evaluate((challenges) => {
      const visible = (el) => el.checkVisibility() && el.getBoundingClientRect().width > 0 && parseFloat(getComputedStyle(el).fontSize) >= 10;
      const text = (el) => (el.innerText || el.value || '').replace(/\s+/g, ' ').trim();
      const ink = (el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        const r = range.getBoundingClientRect();
        return r.width > 0 ? r : el.getBoundingClientRect();
      };
      const byTop = (q) => [...document.querySelectorAll(q)].filter((el) => visible(el) && text(el)).sort((a, b) => ink(a).top - ink(b).top || ink(a).left - ink(b).left);
      const headings = byTop('h1, h2, h3, h4, h5, h6, [role=heading]');
      const buttons = byTop('button, [role=button], input[type=submit], input[type=button], a.button, a.btn');
      const kinds = {
        heading: headings,
        button: buttons,
        'paragraph of body text': byTop('p').filter((p) => text(p).split(' ').length >= 5),
        'bulleted or numbered entry': byTop('li'),
        link: byTop('a[href]').filter((a) => !buttons.includes(a)),
      };
      const largest = headings.reduce((best, h) => (parseFloat(getComputedStyle(h).fontSize) > parseFloat(getComputedStyle(best).fontSize) ? h : best), headings[0]);
      const pick = (q) => {
        if (q.includes('the largest heading')) return largest;
        const [, rank, kind] = q.match(/the (first|second|lowest) (heading|button|paragraph of body text|bulleted or numbered entry|link)/) ?? [];
        const list = kinds[kind] ?? [];
        return { first: list[0], second: list[1], lowest: list[list.length - 1] }[rank];
      };
      const hex = (rgb) => '#' + rgb.match(/\d+/g).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, '0')).join('');
      const coloured = (rgb) => { const [r, g, b] = rgb.match(/\d+/g).map(Number); return Math.max(r, g, b) - Math.min(r, g, b) >= 48; };
      const counts = {
        images: [...document.querySelectorAll('img')].filter((i) => i.getBoundingClientRect().width >= 16).length,
        buttons: buttons.length,
        headings: headings.length,
        'bulleted or numbered entries': byTop('li').length,
        'form fields': [...document.querySelectorAll('input:not([type=hidden]):not([type=submit]):not([type=button]), select, textarea')].length,
      };
      const pageHeight = Math.max(document.documentElement.scrollHeight, innerHeight);
      const third = (v, size) => (v < size / 3 ? 0 : v < (2 * size) / 3 ? 1 : 2);
      const answer = (c) => {
        const q = c.question;
        if (c.format === 'text') {
          const el = pick(q);
          const t = text(el);
          return q.startsWith('What are the first five words') ? t.split(' ').slice(0, 5).join(' ') : t;
        }
        if (c.format === 'number') return String(Object.entries(counts).find(([what]) => q.includes(`How many ${what}`))[1]);
        if (c.format === 'yes or no') {
          const label = q.match(/"(.*)"/)[1];
          const list = q.includes('a heading that reads') ? headings : q.includes('a link that reads') ? byTop('a[href]') : buttons;
          return list.some((el) => text(el) === label) ? 'yes' : 'no';
        }
        if (c.format.startsWith('colour')) {
          if (q.includes('button')) return hex(getComputedStyle(buttons.find((b) => coloured(getComputedStyle(b).backgroundColor))).backgroundColor);
          return hex(getComputedStyle(largest).color);
        }
        const label = q.match(/"(.*)"/)[1];
        const el = [...document.querySelectorAll('body *')].find((e) => visible(e) && text(e) === label && ![...e.children].some((k) => text(k) === label));
        const r = ink(el);
        const v = third(r.top + scrollY + r.height / 2, pageHeight);
        const h = third(r.left + r.width / 2, Math.max(document.documentElement.scrollWidth, innerWidth));
        return `${['top', 'middle', 'bottom'][v]} ${['left', 'center', 'right'][h]}`;
      };
      return Object.fromEntries(challenges.map((c) => [c.id, answer(c)]));
    }, session.challenges);
  } finally {
    await browser.close();
  }
}

