// Snapshot names as toHaveScreenshot takes them (issue 15, item 4): arrays of folders, a `.png`
// suffix, the name among the options, and an unnamed call whose test title options.spec.mjs
// also has. All in the `names` case root.
import { test, expect } from 'sightline/playwright';
import { PAGES } from './cases.mjs';
import { open, variant } from './open.mjs';

test('default names', async ({ page }) => {
  await open(page, 'default-names', PAGES.ADVERT.base);
  await expect(page).toMatchVisual();
});

test('names', async ({ page }) => {
  await open(page, 'names', PAGES.ADVERT.base);
  await expect(page).toMatchVisual(['cards', 'lamp.png']);
  await expect(page).toMatchVisual('hero.png', { maxDiffPixels: 0 });
  await expect(page.locator('#content')).toMatchVisual({ name: ['cards', 'content'], maxDiffPixels: 0 });
});

// One baseline per operating system: the changed run finds the approved one and fails on the
// advert's change.
test('per-os-layout', async ({ page }) => {
  await open(page, 'per-os-layout', PAGES.ADVERT[variant]);
  await expect(page).toMatchVisual('home');
});

// Given names per spec file: options.spec.mjs calls toMatchVisual('home') in this root too, on
// another page, and each file keeps its own baseline.
test('per-file names', async ({ page }) => {
  await open(page, 'per-file-names', PAGES.ADVERT.base);
  await expect(page).toMatchVisual('home');
});

// A name that climbs out of the baselines folder: refused before anything is captured.
test('name-escapes', async ({ page }) => {
  test.skip(variant === 'base', 'nothing to approve');
  await open(page, 'name-escapes', PAGES.ADVERT.base);
  await expect(page).toMatchVisual(['..', '..', 'etc']);
});
