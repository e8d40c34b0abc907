// Playwright config of the generated capture project (copied by bench/lib/capture.mjs into
// bench/.work/capture-project/, next to capture.spec.mjs). Everything it writes stays in that
// folder: toHaveScreenshot's baselines, Playwright's test-results, and (through SIGHTLINE_ROOT,
// set by capture.mjs) Sightline's .sightline/.
import { defineConfig } from '@playwright/test';

const runs = Number(process.env.BENCH_CAPTURE_RUNS ?? 7);
// A round on the real 86000 px docs page takes minutes where the bench page takes seconds.
const roundMs = Number(process.env.BENCH_CAPTURE_ROUND_MS ?? 60_000);

export default defineConfig({
  testDir: '.',
  testMatch: 'capture.spec.mjs',
  outputDir: './test-results',
  // One baseline per name, no platform suffix: the bench compares tools, not platforms.
  snapshotPathTemplate: '{testDir}/__screenshots__/{arg}{ext}',
  // One worker: the tools are timed in turn inside one test, and a second worker would only
  // add load to the machine under measurement.
  workers: 1,
  retries: 0,
  reporter: 'list',
  // Every round takes a few seconds per tool on a 10000 px page; leave room for a slow machine
  // rather than cut a run short.
  timeout: 2 * roundMs + runs * roundMs,
  // toHaveScreenshot's whole call (shot, baseline decode, compare) must fit in the expect
  // timeout; the default 5 s is too tight for a 1280×10000 page on a loaded machine.
  expect: { timeout: roundMs },
  use: {
    // The same capture settings as bench/lib/render.mjs.
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    // Debian's Chromium: Playwright cannot download its own browser on this kind of machine.
    launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' },
  },
  projects: [{ name: 'chromium' }],
});
