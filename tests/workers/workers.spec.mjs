// 48 tests, each page unmistakably its own: its number in a heading and a colour no other test
// uses, so a capture stored under the wrong name fails the next run and shows in its DOM.
import { test, expect } from '../../playwright-fixtures/index.js';
import { SNAPSHOTS, letters } from './cards.mjs';

for (let n = 0; n < SNAPSHOTS; n++) {
  test(`card ${n}`, async ({ page }) => {
    const hue = (n * 360) / SNAPSHOTS;
    await page.setContent(`<style>body { margin: 0; font: 20px sans-serif }
      .card { height: 200px; background: hsl(${hue} 80% 45%); color: #fff; padding: 16px }</style>
      <div class="card"><h1 id="card-${letters(n)}">Card number ${n}</h1></div>`);
    await expect(page).toMatchVisual(`card-${n}`);
  });
}
