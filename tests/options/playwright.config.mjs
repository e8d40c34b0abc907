// The option suite: every config key, per-call option and update mode of `toMatchVisual`, run by
// real Playwright in Debian's Chromium. tests/matcher-options.test.mjs runs it (approve, changed, then
// once per update mode) and reads the evidence, Playwright's JSON report and the baselines.
import { defineConfig } from '@playwright/test';
import { VIEWPORT } from './cases.mjs';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.mjs',
  workers: 1,
  reporter: 'line',
  use: {
    viewport: VIEWPORT,
    launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' },
  },
  projects: [
    { name: 'chromium', testIgnore: 'defaults.spec.mjs' },
    // Playwright's own screenshot settings, as a suite moving from toHaveScreenshot has them.
    {
      name: 'pw-defaults',
      testMatch: 'defaults.spec.mjs',
      expect: { toHaveScreenshot: { maxDiffPixels: 100, stylePath: './hide-badge.css' } },
    },
  ],
});
