// Two recorded Playwright tests (video: 'on'): an animated page and a still one. tests/video.test.mjs
// feeds their .webm videos to extract_video_frames and compare_motion.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.mjs',
  workers: 1,
  reporter: 'line',
  use: {
    viewport: { width: 320, height: 240 },
    video: { mode: 'on', size: { width: 320, height: 240 } },
    launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' },
  },
});
