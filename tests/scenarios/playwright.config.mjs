// The scenario suite: small pages with one planted change each, run by real Playwright in
// Debian's Chromium. tests/matcher.test.mjs runs it twice (baseline, then changed).
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.mjs',
  workers: 1,
  reporter: 'line',
  use: {
    viewport: { width: 800, height: 600 },
    launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' },
  },
  projects: [{ name: 'chromium' }],
});
