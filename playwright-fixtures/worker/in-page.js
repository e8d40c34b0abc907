'use strict';
// The browser worker's in-page scripts: the functions evaluated inside the page to gather facts
// (details for visual_check, measure_element, test_viewports, visual_verify) and the init scripts
// that record layout shifts and visibility flips from the first paint. They gather facts only;
// judging is the Rust core's.
//
// Each is shipped to the page as source text (`${fn}` or `addInitScript(fn)`), so each is
// self-contained: it can use nothing from this module's scope, not even a helper beside it.
// `collect` is the collector's `collectInPage`, passed in so names follow the collector's rules.

/**
 * Facts for visual_check beyond the DOM record: per element that has own text, is an image, is
 * interactive, clips its overflow or paints a box — its text line boxes, scroll sizes, the
 * background colours behind it (itself up to the first opaque ancestor), image load state,
 * whether it is disabled, in a sentence, or paints; plus @font-face sources and stylesheet links,
 * so failed requests can be named by family and element.
 */
function detailsInPage(collect) {
  const INTERACTIVE = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], [role=checkbox], [role=tab], [onclick], [tabindex]:not([tabindex="-1"])';
  const REPLACED = /^(img|svg|video|canvas|iframe|object|embed|input|select|textarea)$/;
  const round = (v) => Math.round(v * 100) / 100;
  const sx = window.scrollX;
  const sy = window.scrollY;
  const rectOf = (r) => [round(r.left + sx), round(r.top + sy), round(r.width), round(r.height)];
  const picked = [];
  const facts = [];
  for (const el of document.body ? document.body.querySelectorAll('*') : []) {
    if (el.checkVisibility && !el.checkVisibility()) continue;
    const cs = getComputedStyle(el);
    let ownText = false;
    const textRects = [];
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType !== 3 || n.data.trim() === '') continue;
      ownText = true;
      const range = document.createRange();
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) {
        if (r.width > 0 && r.height > 0 && textRects.length < 20) textRects.push(rectOf(r));
      }
    }
    const tag = el.localName;
    const interactive = el.matches(INTERACTIVE);
    const clips = /hidden|clip|auto|scroll/.test(cs.overflowX + cs.overflowY);
    // A box of its own on screen: SVG's inner shapes are drawn by the <svg>, not as CSS boxes.
    const border = (side) => parseFloat(cs[`border${side}Width`]) > 0 && !/^(none|hidden)$/.test(cs[`border${side}Style`]);
    const paints = !(el instanceof SVGElement && tag !== 'svg') &&
      (REPLACED.test(tag) || cs.backgroundColor !== 'rgba(0, 0, 0, 0)' || cs.backgroundImage !== 'none' ||
        cs.boxShadow !== 'none' || ['Top', 'Right', 'Bottom', 'Left'].some(border));
    if (!ownText && tag !== 'img' && !interactive && !clips && !paints) continue;
    const backgrounds = [];
    let backdropUnknown = false;
    let opaque = null; // the ancestor whose opaque background ends the list
    for (let a = el; a; a = a.parentElement) {
      const s = a === el ? cs : getComputedStyle(a);
      if (s.backgroundImage !== 'none') {
        backdropUnknown = true;
        break;
      }
      backgrounds.push(s.backgroundColor);
      if (/^rgb\(/.test(s.backgroundColor)) {
        opaque = a; // nothing behind it shows
        break;
      }
    }
    // What actually paints under the text, when it is in view: an image, video, canvas or another
    // element's box (a hero picture under a heading) makes the ancestor colours the wrong backdrop.
    if (ownText && !backdropUnknown && textRects.length > 0) {
      const x = textRects[0][0] - sx + textRects[0][2] / 2;
      const y = textRects[0][1] - sy + textRects[0][3] / 2;
      if (x >= 0 && y >= 0 && x < window.innerWidth && y < window.innerHeight) {
        const stack = document.elementsFromPoint(x, y);
        for (let i = stack.indexOf(el) + 1; i > 0 && i < stack.length; i++) {
          const under = stack[i];
          if (under === opaque) break;
          if (under.contains(el)) continue; // an ancestor: already in the list
          const us = getComputedStyle(under);
          if (/^(img|video|canvas|picture|svg|iframe|object|embed)$/.test(under.localName) || us.backgroundImage !== 'none' || us.backgroundColor !== 'rgba(0, 0, 0, 0)') {
            backdropUnknown = true;
            break;
          }
        }
      }
    }
    // A control is disabled by its own state (`:disabled` knows the fieldset rules: a link in a
    // disabled fieldset still works) or by aria-disabled / inert around it; text counts as
    // inactive anywhere inside a disabled control or fieldset.
    const disabled = interactive
      ? el.matches(':disabled') || !!el.closest('[aria-disabled=true], [inert]')
      : !!el.closest('button:disabled, input:disabled, select:disabled, textarea:disabled, fieldset:disabled, [aria-disabled=true], [inert]');
    let opacity = 1;
    for (let a = el; a; a = a.parentElement) opacity *= parseFloat(getComputedStyle(a).opacity);
    // In a sentence: text of its own in the parent, or in an inline ancestor up to the first
    // block (a link inside an <em> inside a paragraph).
    let parentText = false;
    for (let a = el.parentElement; a && !parentText; a = a.parentElement) {
      for (let n = a.firstChild; n; n = n.nextSibling) if (n.nodeType === 3 && n.data.trim() !== '') parentText = true;
      if (!getComputedStyle(a).display.startsWith('inline')) break;
    }
    picked.push(el);
    facts.push({
      selector: null,
      ownText,
      textRects,
      scroll: [el.scrollWidth, el.scrollHeight, el.clientWidth, el.clientHeight],
      backgrounds,
      backdropUnknown,
      disabled,
      opacity: round(opacity),
      interactive,
      inlineInText: parentText && cs.display.startsWith('inline'),
      image: tag === 'img' ? { src: el.currentSrc || el.src, complete: el.complete, naturalWidth: el.naturalWidth, naturalHeight: el.naturalHeight } : null,
      paints,
    });
  }
  const selectors = JSON.parse(collect({ styleProperties: [], mask: [], selectorsFor: picked }));
  facts.forEach((f, i) => (f.selector = selectors[i]));
  const stylesheets = [];
  const links = Array.from(document.querySelectorAll('link[rel~=stylesheet][href]'));
  const linkSelectors = JSON.parse(collect({ styleProperties: [], mask: [], selectorsFor: links }));
  links.forEach((l, i) => stylesheets.push({ href: l.href, selector: linkSelectors[i] }));
  // A failed font's `@font-face` sources are in the DOM record (fonts[].sources).
  return JSON.stringify({ elements: facts, stylesheets });
}

/**
 * The area visual_check narrows to: the first of `candidates` (CSS selectors, tried in order;
 * one that does not parse is passed over) that matches a shown element, as `{ index,
 * selectors }` — which candidate, and the selectors of that element and everything inside it.
 * With `anyMatch`, a candidate's first match counts even when nothing of it is rendered (the
 * `focus` argument names an element, whether it shows or not). Null when none matches.
 */
function scopeInPage(collect, candidates, anyMatch) {
  for (let index = 0; index < candidates.length; index++) {
    let matches;
    try {
      matches = Array.from(document.querySelectorAll(candidates[index]));
    } catch (_) {
      continue; // not a CSS selector
    }
    // Shown: rendered, with a box that reaches into the page (a drawer parked left of it is not).
    const onPage = (r) => r.width > 0 && r.height > 0 && r.right + window.scrollX > 0 && r.bottom + window.scrollY > 0;
    const shown = matches.find((el) => onPage(el.getBoundingClientRect()) && (!el.checkVisibility || el.checkVisibility()));
    const el = shown || (anyMatch ? matches[0] : null);
    if (el) return JSON.stringify({ index, selectors: JSON.parse(collect({ styleProperties: [], mask: [], selectorsFor: [el, ...el.querySelectorAll('*')] })) });
  }
  return 'null';
}

/** Init script: records layout-shift entries (with their source nodes) from the first paint. */
function layoutShiftObserverInPage() {
  const state = (window.__sightlineShifts = { entries: [], nodes: [] });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const sources = [];
        for (const s of e.sources || []) {
          let node = s.node || null;
          if (node && node.nodeType !== 1) node = node.parentElement;
          state.nodes.push(node);
          const r = (q) => [q.x, q.y, q.width, q.height];
          sources.push({ node: state.nodes.length - 1, previousRect: r(s.previousRect), currentRect: r(s.currentRect) });
        }
        state.entries.push({ value: e.value, startTime: e.startTime, hadRecentInput: e.hadRecentInput, sources });
      }
    }).observe({ type: 'layout-shift', buffered: true });
  } catch (_) {
    state.unsupported = true;
  }
}

/**
 * Init script: a visibility timeline for every element whose visibility changes after it was
 * first seen. Mutations (attributes, insertions, removals) and animation/transition ends trigger
 * a re-check; each change is stamped with `performance.now()` (ms since navigation start).
 */
function flashObserverInPage(collect) {
  const tracked = new Map(); // element → {selector, tag, events: [[ms, visible]]}
  const state = (window.__sightlineFlashes = { tracked });
  const visible = (el) => {
    if (!el.isConnected) return false;
    if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const nameOf = (el) => {
    try {
      return JSON.parse(collect({ styleProperties: [], mask: [], selectorsFor: [el] }))[0];
    } catch (_) {
      return null;
    }
  };
  const note = (el, parentSelector) => {
    if (!el || el.nodeType !== 1) return;
    const now = Math.round(performance.now());
    const v = visible(el);
    let t = tracked.get(el);
    if (!t) {
      let selector = el.isConnected ? nameOf(el) : null;
      if (!selector && parentSelector) selector = parentSelector + ' > ' + el.localName;
      t = { selector, tag: el.localName, events: [[now, v]] };
      tracked.set(el, t);
      return;
    }
    if (!t.selector && el.isConnected) t.selector = nameOf(el);
    if (t.events[t.events.length - 1][1] !== v && t.events.length < 200) t.events.push([now, v]);
  };
  const observer = new MutationObserver((records) => {
    for (const m of records) {
      if (m.type === 'attributes') {
        note(m.target);
        // A class or style change on a container can flip every descendant.
        for (const d of m.target.querySelectorAll ? m.target.querySelectorAll('*') : []) if (tracked.has(d)) note(d);
      }
      for (const n of m.addedNodes) note(n);
      const parentSelector = m.removedNodes.length > 0 && m.target.nodeType === 1 ? nameOf(m.target) : null;
      for (const n of m.removedNodes) note(n, parentSelector);
    }
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['style', 'class', 'hidden', 'open'] });
  for (const type of ['animationend', 'transitionend', 'animationstart']) {
    document.addEventListener(type, (e) => note(e.target), true);
  }
  // A CSS animation or transition (a keyframe blink) flips visibility without touching the DOM:
  // every element with a running animation is looked at once a frame.
  let sampling = true;
  const sample = () => {
    if (!sampling) return;
    for (const animation of document.getAnimations ? document.getAnimations() : []) {
      const target = animation.effect && animation.effect.target;
      if (target && target.nodeType === 1) note(target);
    }
    requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
  state.stop = () => {
    observer.disconnect();
    sampling = false;
  };
}

/** measure_element's facts about one element. */
function measureInPage(collect, selector) {
  const el = document.querySelector(selector);
  if (!el) return JSON.stringify({ found: false, selector });
  const cs = getComputedStyle(el);
  const r = el.getBoundingClientRect();
  const px = (name) => parseFloat(cs.getPropertyValue(name)) || 0;
  const sides = (p) => ({ top: px(`${p}-top${p === 'border' ? '-width' : ''}`), right: px(`${p}-right${p === 'border' ? '-width' : ''}`), bottom: px(`${p}-bottom${p === 'border' ? '-width' : ''}`), left: px(`${p}-left${p === 'border' ? '-width' : ''}`) });
  const round = (v) => Math.round(v * 100) / 100;
  const box = { x: round(r.left + window.scrollX), y: round(r.top + window.scrollY), width: round(r.width), height: round(r.height) };
  const inViewport = r.bottom > 0 && r.right > 0 && r.top < window.innerHeight && r.left < window.innerWidth;
  return JSON.stringify({
    found: true,
    selector: JSON.parse(collect({ styleProperties: [], mask: [], selectorsFor: [el] }))[0],
    matches: document.querySelectorAll(selector).length,
    tag: el.localName,
    text: (el.innerText || '').trim().slice(0, 200),
    box,
    margin: sides('margin'),
    padding: sides('padding'),
    border: sides('border'),
    content: { width: round(el.clientWidth - px('padding-left') - px('padding-right')), height: round(el.clientHeight - px('padding-top') - px('padding-bottom')) },
    scroll: { width: el.scrollWidth, height: el.scrollHeight },
    typography: {
      fontFamily: cs.fontFamily, fontSize: cs.fontSize, fontWeight: cs.fontWeight, lineHeight: cs.lineHeight,
      letterSpacing: cs.letterSpacing, color: cs.color, textAlign: cs.textAlign,
    },
    visibility: {
      display: cs.display, visibility: cs.visibility, opacity: cs.opacity,
      rendered: el.checkVisibility ? el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : true,
      inViewport,
    },
    viewport: { width: window.innerWidth, height: window.innerHeight },
  });
}

/** test_viewports' facts about the selector's element at one size (the overflow is judged from the DOM record). */
function elementFactsInPage(selector) {
  const el = document.querySelector(selector);
  if (!el) return JSON.stringify({ selector, found: false });
  const r = el.getBoundingClientRect();
  return JSON.stringify({
    selector,
    found: true,
    rendered: el.checkVisibility ? el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : true,
    box: [Math.round(r.left + window.scrollX), Math.round(r.top + window.scrollY), Math.round(r.width), Math.round(r.height)],
    inViewport: r.bottom > 0 && r.right > 0 && r.top < window.innerHeight && r.left < window.innerWidth,
  });
}

/**
 * visual_verify's raw material: the visible elements that carry text (kind, text, box, font size,
 * colours), counts of visible things and the page's visible text, all within the area the
 * screenshot shows (the element, or the page down to `maxHeight` px so its text stays readable).
 */
function verifyFactsInPage(selector, maxHeight) {
  const scope = selector ? document.querySelector(selector) : document.body;
  if (!scope) return JSON.stringify({ missing: true });
  const root = document.documentElement;
  const sr = scope.getBoundingClientRect();
  const area = selector
    ? { x: sr.left + window.scrollX, y: sr.top + window.scrollY, width: sr.width, height: sr.height }
    : { x: 0, y: 0, width: Math.max(root.scrollWidth, window.innerWidth), height: Math.min(maxHeight, Math.max(root.scrollHeight, window.innerHeight)) };
  const boxOf = (el) => {
    const r = el.getBoundingClientRect();
    return [Math.round(r.left + window.scrollX), Math.round(r.top + window.scrollY), Math.round(r.width), Math.round(r.height)];
  };
  const inArea = (b) => b[2] > 0 && b[3] > 0 && b[0] < area.x + area.width && b[0] + b[2] > area.x && b[1] < area.y + area.height && b[1] + b[3] > area.y;
  const visible = (el) => (el.checkVisibility ? el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : true) && inArea(boxOf(el));
  const all = (q) => Array.from(scope.querySelectorAll(q)).filter(visible);
  const text = (el) => (el.innerText || el.textContent || el.value || '').replace(/\s+/g, ' ').trim();
  // Where the text itself is (a block heading's box spans the whole row).
  const inkOf = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const r = range.getBoundingClientRect();
    return r.width > 0 ? [Math.round(r.left + window.scrollX), Math.round(r.top + window.scrollY), Math.round(r.width), Math.round(r.height)] : boxOf(el);
  };
  const kinds = [
    ['heading', 'h1, h2, h3, h4, h5, h6, [role=heading]'],
    ['button', 'button, [role=button], input[type=submit], input[type=button], a.button, a.btn'],
    ['paragraph', 'p'],
    ['listItem', 'li'],
    ['link', 'a[href]'],
  ];
  const seen = new Set();
  const items = [];
  for (const [kind, query] of kinds) {
    for (const el of all(query)) {
      // An element counts once, as its most specific kind (a button-styled link is a button).
      if (seen.has(el)) continue;
      seen.add(el);
      const t = text(el);
      // Text too small to read in a screenshot is no question.
      const cs = getComputedStyle(el);
      if (t === '' || parseFloat(cs.fontSize) < 10) continue;
      items.push({ kind, text: t.slice(0, 200), box: inkOf(el), fontSize: parseFloat(cs.fontSize), color: cs.color, background: cs.backgroundColor });
    }
  }
  items.sort((a, b) => a.box[1] - b.box[1] || a.box[0] - b.box[0]);
  const count = (kind) => items.filter((i) => i.kind === kind).length;
  return JSON.stringify({
    area,
    title: document.title,
    items,
    counts: {
      headings: count('heading'),
      images: all('img').filter((img) => img.getBoundingClientRect().width >= 16 && img.getBoundingClientRect().height >= 16).length,
      links: all('a[href]').length,
      buttons: count('button'),
      listItems: all('li').length,
      inputs: all('input:not([type=hidden]):not([type=submit]):not([type=button]), select, textarea').length,
    },
    text: (scope.innerText || '').replace(/\s+/g, ' ').slice(0, 100000),
  });
}

module.exports = {
  detailsInPage,
  scopeInPage,
  layoutShiftObserverInPage,
  flashObserverInPage,
  measureInPage,
  elementFactsInPage,
  verifyFactsInPage,
};
