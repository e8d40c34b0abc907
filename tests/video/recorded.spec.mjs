// A square sliding back and forth, and the same square standing still; each held for 2.5 s so the
// recordings cover the window the test samples (1 s to 2 s). Playwright's recorder only writes a frame when
// the page repaints, so the still page blinks a 2 px dot in a corner: the recording then lasts
// the whole time while its motion (4 pixels of 76,800) stays far below the "moves" threshold.
// The blink is a script changing the dot's colour, not a CSS opacity animation: the compositor
// runs an opacity animation on its own and, on a busy machine, once sent no new frame for it
// (a still recording of 1 s).
import { test } from '@playwright/test';

const page = (animation) => `<style>body { margin: 0 }
  @keyframes slide { from { transform: translateX(0) } to { transform: translateX(240px) } }
  div { width: 60px; height: 60px; margin: 90px 0; background: #2878dc; animation: ${animation} }
  i { position: fixed; right: 0; bottom: 0; width: 2px; height: 2px; background: #000 }
  </style><div></div><i></i>
  <script>const dot = document.querySelector('i');
  setInterval(() => { dot.style.background = dot.style.background === 'white' ? 'black' : 'white'; }, 100);</script>`;

test('animated', async ({ page: tab }) => {
  await tab.setContent(page('slide 1s linear infinite alternate'));
  await tab.waitForTimeout(2500);
});

test('still', async ({ page: tab }) => {
  await tab.setContent(page('none'));
  await tab.waitForTimeout(2500);
});
