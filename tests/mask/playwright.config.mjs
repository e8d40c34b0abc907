// The mask suite: what `mask` hides, run by real Playwright in Debian's Chromium.
// tests/mask.test.mjs runs it twice (approve, then with only masked content changed).
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.mjs',
  workers: 1,
  reporter: 'line',
  use: {
    viewport: { width: 400, height: 300 },
    launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' },
  },
  projects: [{ name: 'chromium' }],
});
