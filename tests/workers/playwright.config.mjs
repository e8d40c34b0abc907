// Many snapshots on 4 Playwright workers at once: tests/workers.test.mjs checks that no capture
// ends up under another test's name.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.mjs',
  workers: 4,
  fullyParallel: true,
  reporter: 'line',
  use: {
    viewport: { width: 320, height: 200 },
    launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' },
  },
  projects: [{ name: 'chromium' }],
});
