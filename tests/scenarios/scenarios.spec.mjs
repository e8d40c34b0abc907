import { mkdirSync } from 'node:fs';
import { test, expect } from 'sightline/playwright';
import { scenarios, elementScenarios, ORIGIN } from './pages.mjs';

const variant = process.env.SCENARIO_VARIANT ?? 'base';

for (const [name, pages] of Object.entries(scenarios)) {
  test(name, async ({ page }, testInfo) => {
    // A folder where the call's actual image goes: the file cannot be written.
    if (process.env.SCENARIO_BLOCK_ACTUAL) mkdirSync(testInfo.outputPath(`${name}-actual.png`), { recursive: true });
    await page.route(`${ORIGIN}/**`, (route) => {
      const url = new URL(route.request().url());
      if (url.pathname === `/${name}`) return route.fulfill({ contentType: 'text/html', body: pages[variant] });
      return route.fulfill({ status: 404, body: 'not found' });
    });
    await page.goto(`${ORIGIN}/${name}`);
    await expect(page).toMatchVisual(name);
  });
}

// An element capture: the locator's box only, unchanged between the runs.
test('element-capture', async ({ page }) => {
  await page.route(`${ORIGIN}/**`, (route) => route.fulfill({ contentType: 'text/html', body: scenarios.identical.base }));
  await page.goto(`${ORIGIN}/element`);
  await expect(page.locator('#card-plant')).toMatchVisual('element-capture');
});

for (const [name, { selector, scrollAway, ...pages }] of Object.entries(elementScenarios)) {
  test(name, async ({ page }) => {
    await page.route(`${ORIGIN}/**`, (route) => {
      const url = new URL(route.request().url());
      if (url.pathname === `/${name}`) return route.fulfill({ contentType: 'text/html', body: pages[variant] });
      return route.fulfill({ status: 404, body: 'not found' });
    });
    await page.goto(`${ORIGIN}/${name}`);
    if (scrollAway) await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect(page.locator(selector)).toMatchVisual(name);
  });
}
