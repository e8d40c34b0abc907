import { test, expect } from 'sightline/playwright';
import { html } from './page.mjs';

// RENAME_CARD: the test is renamed, so the baseline's test is gone from the suite.
test(process.env.RENAME_CARD ? 'card, renamed' : 'card', async ({ page }) => {
  await page.setContent(html('card'));
  if (!process.env.RENAME_CARD) await expect(page).toMatchVisual('card');
});

test('price', async ({ page }) => {
  await page.setContent(html('price'));
  await expect(page).toMatchVisual('price');
  if (process.env.FAIL_PRICE) throw new Error('price failed after its capture');
});
