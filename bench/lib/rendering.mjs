// Rendering classification: what telling "the engine drew the same page differently" from a
// real change costs on the real page. Python's stdtypes.html (1280×86,000, 16,000 elements) is
// approved in Debian's Chromium, then captured again with a rasteriser switch machines differ in
// (--disable-font-subpixel-positioning), which moves no element's content but draws its glyphs a
// fraction of a pixel apart; then `crates/core/examples/rendering_cost.rs` times the whole
// comparison of the two and the classification alone, on the stored baseline and capture.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { REAL_PAGE_FILE, linkSightline } from './capture.mjs';

export const RENDERING_TITLE = 'rendering classification on a real docs page (stdtypes.html, default rendering → --disable-font-subpixel-positioning)';
const SWITCH = '--disable-font-subpixel-positioning';

const CONFIG = `import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: '.', testMatch: 'rendering.spec.mjs', outputDir: './test-results', workers: 1, retries: 0, reporter: 'line',
  timeout: 300000,
  use: { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1,
    launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium', args: (process.env.BENCH_SWITCHES ?? '').split(' ').filter(Boolean) } },
  projects: [{ name: 'chromium' }],
});
`;

// The matcher call is timed, and with the page still open, the two lookups a stored capture
// adds (the fonts that drew each family, the digests of the files the page loaded) are timed
// again on their own: what a failing snapshot pays for its environment.
const spec = (url, fixtures, out) => `import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test, expect } from 'sightline/playwright';
const require = createRequire(import.meta.url);
const { renderedFonts } = require(${JSON.stringify(path.join(fixtures, 'environment.js'))});
const { assetDigests } = require(${JSON.stringify(path.join(fixtures, 'assets.js'))});
test('stdtypes', async ({ page }) => {
  await page.goto(${JSON.stringify(url)});
  const started = performance.now();
  await expect(page).toMatchVisual('stdtypes', { timeout: 120000 }).catch(() => {});
  const matcherMs = performance.now() - started;
  let at = performance.now();
  const fonts = await renderedFonts(page, 64);
  const fontsMs = performance.now() - at;
  at = performance.now();
  const assets = await assetDigests(page, 128);
  const assetsMs = performance.now() - at;
  writeFileSync(${JSON.stringify(out)}, JSON.stringify({ matcherMs, fontsMs, assetsMs, families: fonts.length, assets: assets.length }));
});
`;

/**
 * `{ width, height, elements, regions, rendering, compareMs, classifyMs, rendered }` (`rendered`:
 * the environment lookups' `{ matcherMs, fontsMs, assetsMs, families, assets }`), `{ missing }`
 * or `{ error }`.
 */
export function renderingGroup({ root, workDir, chromiumPath, runs, addon }) {
  if (addon.missing) return { missing: addon.missing };
  if (!existsSync(REAL_PAGE_FILE)) return { missing: `no ${REAL_PAGE_FILE}: apt-get install -y --no-install-recommends python3-doc (scripts/setup.sh does)` };
  const projectDir = path.join(workDir, 'rendering-project');
  const sightlineRoot = path.join(projectDir, 'sightline-root');
  mkdirSync(projectDir, { recursive: true });
  rmSync(sightlineRoot, { recursive: true, force: true });
  writeFileSync(path.join(projectDir, 'playwright.config.mjs'), CONFIG);
  const lookups = path.join(projectDir, 'lookups.json');
  rmSync(lookups, { force: true });
  writeFileSync(path.join(projectDir, 'rendering.spec.mjs'), spec(pathToFileURL(REAL_PAGE_FILE).href, path.join(root, 'playwright-fixtures'), lookups));
  linkSightline(projectDir, root);
  const cli = path.join(root, 'node_modules', '@playwright', 'test', 'cli.js');
  const env = { ...process.env, SIGHTLINE_CHROMIUM: chromiumPath, SIGHTLINE_ROOT: sightlineRoot };
  const playwright = (args, switches) =>
    spawnSync(process.execPath, [cli, 'test', '-c', path.join(projectDir, 'playwright.config.mjs'), ...args], {
      cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, env: { ...env, BENCH_SWITCHES: switches },
    });
  console.log('\nrendering: approving stdtypes.html, then capturing it with another rasteriser switch …');
  const approved = playwright(['--update-snapshots=all'], '');
  if (approved.status !== 0) return { error: `the baseline run failed: ${approved.stdout.split('\n').slice(-5).join(' ')}` };
  // The switched run fails or passes as the page decides; what is timed is its comparison.
  playwright([], SWITCH);
  const timed = spawnSync('cargo', ['run', '--quiet', '--release', '-p', 'sightline-core', '--example', 'rendering_cost', '--', sightlineRoot, 'stdtypes', String(runs)], {
    cwd: root, encoding: 'utf8',
  });
  if (timed.status !== 0) return { error: `rendering_cost failed: ${timed.stderr.trim().split('\n').slice(-3).join(' | ')}` };
  const rendered = existsSync(lookups) ? JSON.parse(readFileSync(lookups, 'utf8')) : undefined;
  return { ...JSON.parse(timed.stdout.trim().split('\n').pop()), rendered };
}

/** Prints the group's line: the classification's cost and its share of the comparison. */
export function printRenderingGroup(title, result) {
  console.log(`\n${title}`);
  if (result.missing || result.error) {
    console.log(`  ${result.missing ?? result.error}`);
    return;
  }
  const share = (result.classifyMs / result.compareMs) * 100;
  console.log(
    `  ${result.width}×${result.height}, ${result.elements} elements, ${result.regions} regions (${result.rendering} rendering): ` +
      `classification ${result.classifyMs.toFixed(1)} ms = ${share.toFixed(1)} % of the whole comparison (${result.compareMs.toFixed(0)} ms)`,
  );
  const r = result.rendered;
  if (r) {
    const lookups = r.fontsMs + r.assetsMs;
    console.log(
      `  a stored capture's environment: fonts of ${r.families} families ${r.fontsMs.toFixed(0)} ms + digests of ${r.assets} files ${r.assetsMs.toFixed(0)} ms = ` +
        `${lookups.toFixed(0)} ms, ${((lookups / r.matcherMs) * 100).toFixed(1)} % of the matcher call (${r.matcherMs.toFixed(0)} ms, a failing snapshot)`,
    );
  }
}
