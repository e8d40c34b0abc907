// The filter suite: two spec files, two projects, tiny pages. tests/filters.test.mjs copies it
// to a fresh project, approves every snapshot, then runs it filtered every way Playwright can.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.mjs',
  workers: 1,
  reporter: [['line'], ['sightline/reporter']],
  use: {
    viewport: { width: 320, height: 120 },
    launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' },
  },
  projects: [{ name: 'desktop' }, { name: 'narrow', use: { viewport: { width: 200, height: 120 } } }],
});
