// The whole content of a scrolling element (issue 39): `expect(locator).toMatchVisual(name,
// { fullPage: true })` on an element that scrolls (overflow auto or scroll) captures everything
// it scrolls through, not only the part in view, as `fullPage` does for a page.
//
// The element is grown for the capture to the size of its content (its scroll extent, per axis
// that overflows), scrolled to its start and clipped (overflow hidden keeps the formatting
// context auto or scroll made), and put back afterwards, its inline style and scroll position
// as they were. Grown, it scrolls no more: the shot is one piece (no stitching seams), sticky
// headers inside it sit once at their place, and the DOM record's boxes, measured from the
// element's corner, are in the content's coordinates. The element's own layout is its own: an
// ancestor that clips (overflow hidden, a fixed-size frame) clips the grown element too.
'use strict';

/** Largest content grown to, in CSS pixels per axis: as Chromium's largest texture. */
const MAX_CONTENT = 16384;

/**
 * Grows the element of `locator` to its scrollable content when it scrolls. Resolves with a
 * function that puts it back, or `null` when the element does not scroll (nothing changed).
 */
async function growToScrollContent(locator, timeout) {
  const handle = await locator.elementHandle({ timeout });
  try {
    const saved = await handle.evaluate((el, max) => {
      const scrolls = (value) => value === 'auto' || value === 'scroll';
      const style = getComputedStyle(el);
      const axes = {
        x: scrolls(style.overflowX) && el.scrollWidth > el.clientWidth,
        y: scrolls(style.overflowY) && el.scrollHeight > el.clientHeight,
      };
      if (!axes.x && !axes.y) return null;
      const saved = { style: el.getAttribute('style'), left: el.scrollLeft, top: el.scrollTop };
      const set = (property, value) => el.style.setProperty(property, value, 'important');
      el.scrollLeft = 0;
      el.scrollTop = 0;
      set('box-sizing', 'border-box');
      set('overflow', 'hidden');
      // A flex item would shrink back into its container.
      set('flex', 'none');
      // Content sized by its container (height: 100%) grows with it: measured again until it fits.
      for (let round = 0; round < 3; round++) {
        const grow = { x: el.scrollWidth - el.clientWidth, y: el.scrollHeight - el.clientHeight };
        if (axes.x && grow.x > 0) {
          set('width', `${Math.min(max, el.offsetWidth + grow.x)}px`);
          set('min-width', '0');
          set('max-width', 'none');
        }
        if (axes.y && grow.y > 0) {
          set('height', `${Math.min(max, el.offsetHeight + grow.y)}px`);
          set('min-height', '0');
          set('max-height', 'none');
        }
        if ((!axes.x || grow.x <= 0) && (!axes.y || grow.y <= 0)) break;
      }
      return saved;
    }, MAX_CONTENT);
    if (saved === null) {
      await handle.dispose();
      return null;
    }
    return async () => {
      await handle.evaluate((el, { style, left, top }) => {
        if (style === null) el.removeAttribute('style');
        else el.setAttribute('style', style);
        el.scrollLeft = left;
        el.scrollTop = top;
      }, saved);
      await handle.dispose();
    };
  } catch (err) {
    await handle.dispose();
    throw err;
  }
}

module.exports = { growToScrollContent };
