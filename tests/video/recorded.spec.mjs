// A square sliding back and forth, and the same square standing still; each held for 2 s so the
// recordings cover the window the test samples.
import { test } from '@playwright/test';

const page = (animation) => `<style>body { margin: 0 }
  @keyframes slide { from { transform: translateX(0) } to { transform: translateX(240px) } }
  div { width: 60px; height: 60px; margin: 90px 0; background: #2878dc; animation: ${animation} }</style><div></div>`;

test('animated', async ({ page: tab }) => {
  await tab.setContent(page('slide 1s linear infinite alternate'));
  await tab.waitForTimeout(2000);
});

test('still', async ({ page: tab }) => {
  await tab.setContent(page('none'));
  await tab.waitForTimeout(2000);
});
