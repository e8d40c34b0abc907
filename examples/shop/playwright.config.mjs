import { createRequire } from 'node:module';
import { defineConfig } from '@playwright/test';

// In a user's project `['sightline/reporter']` is enough; resolving it here also works inside
// the sightline repository itself, where the package refers to itself.
const reporter = createRequire(import.meta.url).resolve('sightline/reporter');

const port = Number(process.env.PORT ?? 4173);

export default defineConfig({
  testDir: './tests',
  workers: 2,
  reporter: [['list'], [reporter]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1280, height: 800 },
    // Debian's Chromium: Playwright cannot download its own browser on this kind of machine.
    launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' },
  },
  webServer: {
    command: 'node server.mjs',
    url: `http://127.0.0.1:${port}/about`,
    reuseExistingServer: false,
    env: { EXAMPLE_VARIANT: process.env.EXAMPLE_VARIANT ?? 'original', PORT: String(port) },
  },
  projects: [{ name: 'chromium' }],
});
