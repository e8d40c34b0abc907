// The pw-defaults project's cases (cases.mjs `defaultsCases`): its playwright.config sets
// `expect.toHaveScreenshot`, which applies under each case's .sightline/config.json and call.
import { test, expect } from 'sightline/playwright';
import { defaultsCases } from './cases.mjs';
import { open, variant } from './open.mjs';

for (const [name, { options, config, ...pages }] of Object.entries(defaultsCases)) {
  test(name, async ({ page }) => {
    await open(page, name, pages[variant]);
    await expect(page).toMatchVisual(name, options);
  });
}
