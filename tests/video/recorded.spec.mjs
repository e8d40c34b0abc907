// A square sliding back and forth, and the same square standing still; each held for 2.5 s so the
// recordings cover the window the test samples (1 s to 2 s). Playwright's recorder only writes a frame when
// the page repaints, so the still page blinks a 2 px dot in a corner: the recording then lasts
// the whole time while its motion (4 pixels of 76,800) stays far below the "moves" threshold.
import { test } from '@playwright/test';

const page = (animation) => `<style>body { margin: 0 }
  @keyframes slide { from { transform: translateX(0) } to { transform: translateX(240px) } }
  div { width: 60px; height: 60px; margin: 90px 0; background: #2878dc; animation: ${animation} }
  @keyframes blink { to { opacity: 0 } }
  i { position: fixed; right: 0; bottom: 0; width: 2px; height: 2px; background: #000; animation: blink 0.2s steps(1) infinite }
  </style><div></div><i></i>`;

test('animated', async ({ page: tab }) => {
  await tab.setContent(page('slide 1s linear infinite alternate'));
  await tab.waitForTimeout(2500);
});

test('still', async ({ page: tab }) => {
  await tab.setContent(page('none'));
  await tab.waitForTimeout(2500);
});
