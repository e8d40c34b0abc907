import { test, expect } from 'sightline/playwright';

test('home page', async ({ page }) => {
  await page.goto('/');
  await expect(page).toMatchVisual('home');
});

test('catalogue', async ({ page }) => {
  await page.goto('/catalogue');
  await expect(page).toMatchVisual('catalogue');
});

test('about', async ({ page }) => {
  await page.goto('/about');
  await expect(page).toMatchVisual('about');
});
