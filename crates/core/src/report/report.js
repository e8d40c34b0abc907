// Sightline report: status filters, the slider comparison and scroll sync. No network, no data
// here: everything the page shows is already in the HTML.
'use strict';
// An image that is not next to the report (e.g. only the report folder was uploaded) says so.
document.addEventListener('error', (e) => {
  const img = e.target;
  if (img && img.tagName === 'IMG') img.closest('figure')?.classList.add('noimg');
}, true);

document.addEventListener('DOMContentLoaded', () => {
  const cards = [...document.querySelectorAll('article.card')];
  const buttons = [...document.querySelectorAll('.toolbar [data-filter]')];
  const empty = document.getElementById('empty');
  for (const button of buttons) {
    button.addEventListener('click', () => {
      const f = button.dataset.filter;
      for (const b of buttons) b.setAttribute('aria-pressed', String(b === button));
      let shown = 0;
      for (const card of cards) {
        const show = f === 'all' || card.dataset.status === f || (f === 'auto' && card.dataset.auto === 'true');
        card.hidden = !show;
        if (show) shown += 1;
        // Filtering to passed snapshots means the reader wants to look at them.
        if (show && f !== 'all') card.querySelector(':scope > details')?.setAttribute('open', '');
      }
      for (const section of document.querySelectorAll('section.status')) {
        section.hidden = !section.querySelector('article.card:not([hidden])');
      }
      if (empty) empty.hidden = shown > 0;
      // From deep in a long page, start the filtered list at its top.
      const start = document.querySelector('header').getBoundingClientRect().bottom + window.scrollY;
      if (window.scrollY > start) window.scrollTo(0, start);
    });
  }

  const labels = document.getElementById('labels');
  labels?.addEventListener('change', () => document.body.classList.toggle('nolabels', !labels.checked));

  for (const slider of document.querySelectorAll('.slider')) {
    const range = slider.querySelector('input[type="range"]');
    range.addEventListener('input', () => slider.style.setProperty('--pos', `${range.value}%`));
  }

  // The frames of one card scroll together (same scale, top-aligned), so the same spot of a
  // tall page stays side by side.
  for (const trio of document.querySelectorAll('.trio')) {
    const frames = [...trio.querySelectorAll('.frame')];
    for (const frame of frames) {
      frame.addEventListener('scroll', () => {
        for (const other of frames) {
          if (other === frame) continue;
          if (Math.abs(other.scrollTop - frame.scrollTop) > 1) other.scrollTop = frame.scrollTop;
          if (Math.abs(other.scrollLeft - frame.scrollLeft) > 1) other.scrollLeft = frame.scrollLeft;
        }
      });
    }
  }
});
