import { test, expect } from 'sightline/playwright';
import { html } from './page.mjs';

test.describe('home', () => {
  test('hero', async ({ page }) => {
    await page.setContent(html('hero'));
    await expect(page).toMatchVisual('hero');
    // NEW_CALLS: two calls with no baseline yet; the second runs though the first is new.
    if (process.env.NEW_CALLS) {
      await expect(page).toMatchVisual('hero-extra-1');
      await page.setContent(html('hero, again'));
      await expect(page).toMatchVisual('hero-extra-2');
    }
  });

  test('menu', async ({ page }) => {
    await page.setContent(html('menu'));
    // DROP_MENU_CALL: the call is removed from the test, which still runs.
    if (!process.env.DROP_MENU_CALL) await expect(page).toMatchVisual('menu');
  });
});

test('footer @slow', async ({ page }) => {
  test.skip(!!process.env.SKIP_FOOTER, 'skipped on purpose');
  await page.setContent(html(process.env.CHANGE_FOOTER ? 'changed footer' : 'footer'));
  await expect(page).toMatchVisual('footer');
});
