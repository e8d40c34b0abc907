// Two tests that (by mistake) use one snapshot name: only defined when matcher.test.mjs asks,
// so the regular scenario runs don't include them.
import { test, expect } from 'sightline/playwright';
import { scenarios, ORIGIN } from './pages.mjs';

if (process.env.SCENARIO_COLLISION) {
  for (const title of ['first user of the name', 'second user of the name']) {
    test(title, async ({ page }) => {
      await page.route(`${ORIGIN}/**`, (route) => route.fulfill({ contentType: 'text/html', body: scenarios.identical.base }));
      await page.goto(`${ORIGIN}/collision`);
      await expect(page).toMatchVisual('shared-name');
    });
  }
}
