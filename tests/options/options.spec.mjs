// One test per option case (cases.mjs). Each test points the matcher at its own project root
// through SIGHTLINE_ROOT, which the matcher reads on every call, so each case has its own
// `.sightline/config.json` within one Playwright run.
import { createRequire } from 'node:module';
import { test, expect } from 'sightline/playwright';
import { cases, CLOCK, RESHOT, RESTLESS, PAGES, FADE, LATE_IMAGE, LATE_SVG, BUSY_FEED, STUCK_FEED, HOVER_BLOCK } from './cases.mjs';
import { open, variant } from './open.mjs';

// The matcher's own addon instance: its count of image comparisons is this worker's.
const addon = createRequire(import.meta.url)('sightline');

/** Runs `call` and records, as a `comparisons` annotation, how many image comparisons it cost. */
async function counted(call) {
  const before = addon.comparisonsMade();
  try {
    await call();
  } finally {
    test.info().annotations.push({ type: 'comparisons', description: String(addon.comparisonsMade() - before) });
  }
}

for (const [name, { options, newInChangedRun, deviceScaleFactor, config, files, ...pages }] of Object.entries(cases)) {
  test.describe(() => {
    if (deviceScaleFactor) test.use({ deviceScaleFactor });
    test(name, async ({ page }) => {
      test.skip(newInChangedRun && variant === 'base', 'no baseline before the changed run');
      await open(page, name, pages[variant]);
      await counted(() => expect(page).toMatchVisual(name, options));
    });
  });
}

// `animations`: a slow fade is finished by default and captured as it runs with `allow`.
for (const [name, options] of [['animations-disabled', {}], ['animations-allow', { animations: 'allow' }]]) {
  test(name, async ({ page }) => {
    await open(page, name, FADE);
    await expect(page).toMatchVisual(name, options);
  });
}

// Stabilisation beyond toHaveScreenshot: a late image is waited for unless switched off (its
// request is the page's own work too, so both waits are off).
for (const [name, options] of [['wait-for-images', {}], ['wait-for-images-off', { waitForImages: false, waitForRequests: false }]]) {
  test(name, async ({ page }) => {
    await page.route('http://127.0.0.1:8/**', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 800));
      await route.fulfill({ contentType: 'image/svg+xml', body: LATE_SVG }).catch(() => {});
    });
    await open(page, name, LATE_IMAGE);
    await page.waitForFunction(() => document.getElementById('pic').getAttribute('src'));
    await expect(page).toMatchVisual(name, options);
  });
}

// A busy feed is waited for; one that stays busy fails the call, naming it.
test('aria-busy', async ({ page }) => {
  await open(page, 'aria-busy', BUSY_FEED);
  await expect(page).toMatchVisual('aria-busy');
});

test('aria-busy-stuck', async ({ page }) => {
  test.skip(variant === 'base', 'nothing to approve');
  await open(page, 'aria-busy-stuck', STUCK_FEED);
  await expect(page).toMatchVisual('aria-busy-stuck', { timeout: 300 });
});

// The mouse left on an element: its hover state is captured unless clearHover moves it away.
for (const [name, options] of [['hover-kept', {}], ['clear-hover', { clearHover: true }]]) {
  test(name, async ({ page }) => {
    await open(page, name, HOVER_BLOCK);
    await page.hover('#target');
    await expect(page).toMatchVisual(name, options);
  });
}

// A stylesheet that cannot be read: refused before anything is captured, naming the file.
test('style-path-missing', async ({ page }) => {
  test.skip(variant === 'base', 'nothing to approve');
  await open(page, 'style-path-missing', PAGES.ADVERT.base);
  await expect(page).toMatchVisual('style-path-missing', { stylePath: 'no-such-file.css' });
});

// The update-mode cases: run alone once per `--update-snapshots` mode on fresh baselines.
// `update-passed` stays within its tolerance, `update-changed` does not, `update-new` has none.
for (const name of ['update-passed', 'update-changed', 'update-new']) {
  test(name, async ({ page }) => {
    test.skip(name === 'update-new' && variant === 'base', 'no baseline before the update runs');
    await open(page, name, PAGES.HUNDRED[variant]);
    await expect(page).toMatchVisual(name, name === 'update-passed' ? { maxDiffPixels: 100 } : {});
  });
}

// The page changes once, right after the first shot: only the settled shot may be compared; or
// it never settles, and the call's timeout (0: no waiting) ends the re-shots. Each page counts
// the full-page shots it saw; the driver reads the count from the annotation.
const reshots = [
  ['reshot', RESHOT, {}],
  ['reshot-settled', { base: RESHOT.base, changed: RESHOT.base }, {}],
  ['reshot-timeout', RESTLESS, { timeout: 0 }],
];
for (const [name, html, options] of reshots) {
  test(name, async ({ page }) => {
    test.fail(name === 'reshot-timeout', 'the page never settles: the call fails as unstable');
    await open(page, name, html[variant]);
    try {
      await counted(() => expect(page).toMatchVisual(name, options));
    } finally {
      test.info().annotations.push({ type: 'shots', description: String(await page.evaluate(() => window.shots)) });
    }
  });
}

// A new snapshot in a test that may be retried: as toHaveScreenshot's missing snapshot, it is not
// (a retry cannot give it a baseline). The page counts its full-page shots; the attempt attaches
// its count.
test.describe(() => {
  test.describe.configure({ retries: 1 });
  test('new-on-retry', async ({ page }) => {
    test.skip(variant === 'base', 'no baseline before the changed run');
    await open(page, 'new-on-retry', RESHOT.base);
    try {
      await expect(page).toMatchVisual('new-on-retry');
    } finally {
      await test.info().attach('shots', { body: String(await page.evaluate(() => window.shots)) });
    }
  });
});

// A ticking clock: toHaveScreenshot's "Failed to take two consecutive stable screenshots". The
// call fails as unstable in every update mode and writes no baseline.
test('ticking-clock', async ({ page }) => {
  test.fail(true, 'the page never settles: the call fails as unstable');
  await open(page, 'ticking-clock', CLOCK);
  await expect(page).toMatchVisual('ticking-clock', { timeout: 1500 });
});

// `.not`: the approve run writes the baselines without it; the changed run negates.
test('not-changed', async ({ page }) => {
  await open(page, 'not-changed', PAGES.ADVERT[variant]);
  await (variant === 'base' ? expect(page) : expect(page).not).toMatchVisual('not-changed');
});

test('not-unchanged', async ({ page }) => {
  await open(page, 'not-unchanged', PAGES.ADVERT.base);
  await (variant === 'base' ? expect(page) : expect(page).not).toMatchVisual('not-unchanged');
});

// Unnamed calls: named after the spec file and the test's title, numbered from the second call
// on. names.spec.mjs has a test of the same title: each file keeps its own baselines.
test('default names', async ({ page }) => {
  await open(page, 'default-names', PAGES.ADVERT.base);
  await expect(page).toMatchVisual();
  await expect(page.locator('#content')).toMatchVisual();
});

// The second spec file's toMatchVisual('home') in the per-file-names root (names.spec.mjs has
// the first), on another page.
test('per-file names', async ({ page }) => {
  await open(page, 'per-file-names', PAGES.HUNDRED.base);
  await expect(page).toMatchVisual('home');
});

// A call option out of range: the engine refuses it before anything is captured.
test('bad-option', async ({ page }) => {
  test.skip(variant === 'base', 'nothing to approve');
  await open(page, 'bad-option', PAGES.ADVERT.base);
  await expect(page).toMatchVisual('bad-option', { clip: { x: 0, y: 0, width: 0, height: 30 } });
});

// `mask` as toHaveScreenshot takes it: Locators, selectors, a mix, and `maskColor`.
const masks = {
  'mask-locator': (page) => ({ mask: [page.locator('#ad')] }),
  'mask-mixed': (page) => ({ mask: ['#badge', page.locator('#ad')] }),
  'mask-color': (page) => ({ mask: [page.locator('#ad'), page.locator('#badge')], maskColor: '#00ff00' }),
  'mask-unmasked': () => ({}),
};
for (const [name, options] of Object.entries(masks)) {
  test(name, async ({ page }) => {
    await open(page, name, PAGES.TEXT_ADVERT[variant]);
    await expect(page).toMatchVisual(name, options(page));
  });
}

// A bad mask: refused before anything is captured.
test('mask-other-page', async ({ page, context }) => {
  test.skip(variant === 'base', 'nothing to approve');
  await open(page, 'mask-other-page', PAGES.TEXT_ADVERT.base);
  const other = await context.newPage();
  await expect(page).toMatchVisual('mask-other-page', { mask: [page.locator('#badge'), other.locator('#ad')] });
});

// The call's timeout bounds the wait for a locator's element.
test('timeout', async ({ page }) => {
  test.skip(variant === 'base', 'nothing to approve');
  await open(page, 'timeout', PAGES.ADVERT.base);
  await expect(page.locator('#absent')).toMatchVisual('timeout', { timeout: 300 });
});
