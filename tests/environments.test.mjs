// Another machine, another browser (issue 37), with real renderings: a page approved in one
// environment and compared in another — Debian's Chromium launched with a rasteriser switch that
// machines differ in (subpixel positioning), and an older Chromium build from npm
// (`@sparticuz/chromium` 153) against Debian's — by real `playwright test` runs in a fresh
// project. Unchanged pages must not fail on the engine's differences; each planted change must
// still be caught with its usual verdict and the environment named beside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium, freshProject, repo, run, skip, tempFolders } from './support/playwright-runs.mjs';
import { binary } from './support/mcp.mjs';

const temps = tempFolders();
const SWITCH = '--disable-font-subpixel-positioning';
// Two font files served in turn under one URL (Debian's fonts-dejavu-core, which Chromium's
// fontconfig brings).
const FONTS = { regular: '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', condensed: '/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf' };

/** A `width` × `height` PNG of one colour with a `square` of another at 20,20 (40 × 40). */
function png(width, height, [r, g, b], square) {
  const rows = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      const inside = square && x >= 20 && x < 60 && y >= 20 && y < 60;
      row.set(inside ? square : [r, g, b], 1 + x * 3);
    }
    rows.push(row);
  }
  const chunk = (type, data) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// The page: text at sizes whose glyphs land between pixels, cards with rounded borders and a
// shadow, a button, an image served under one URL, and a canvas. Each planted change comes from
// an environment variable of the run.
const spec = `
const hero = { a: ${JSON.stringify(png(200, 100, [200, 120, 40]).toString('base64'))}, b: ${JSON.stringify(png(200, 100, [200, 120, 40], [10, 160, 90]).toString('base64'))} };
const v = (name, fallback) => process.env[name] || fallback;
const html = () => \`<!doctype html><html><head><meta charset="utf-8"><style>
  body { font: 15.5px sans-serif; margin: 24px; color: \${v('FIGURES_COLOR', '#1e293b')}; }
  @font-face { font-family: Brand; src: url(/brand.ttf); }
  h1 { font: 27.3px Brand, sans-serif; margin: 0 0 12px; }
  .card { display: inline-block; vertical-align: top; width: 240px; margin: \${v('FIGURES_MARGIN', '0')}px 12px 0 0; padding: 12px;
          border: 1px solid #cbd5e1; border-radius: 10px; box-shadow: 0 4px 12px rgba(0, 0, 0, 0.15); }
  .card p { margin: 6px 0 0; line-height: 1.4; }
</style></head><body>
<h1>Quarterly figures, revised</h1>
<p>Shipping times fell by a fifth across \${v('FIGURES_WORD', 'northern')} regions while returns stayed flat, says the ledger.</p>
<div class="card"><h3>Northern depot</h3><p>Orders dispatched within 24 hours of payment: 91 %.</p></div>
<div class="card"><h3>Southern depot</h3><p>Orders dispatched within 24 hours of payment: 87 %.</p></div>
<p><img id="hero" src="/hero.png" width="200" height="100" alt=""> <canvas id="chart" width="200" height="100"></canvas></p>
<script>const g = document.getElementById('chart').getContext('2d'); g.fillStyle = '\${v('FIGURES_CANVAS', '#0e7490')}'; g.fillRect(20, 20, 120, 60);</script>
</body></html>\`;

test('figures', async ({ page }) => {
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === '/') return route.fulfill({ contentType: 'text/html', body: html() });
    if (url.pathname === '/hero.png') return route.fulfill({ contentType: 'image/png', body: Buffer.from(hero[v('FIGURES_HERO', 'a')], 'base64') });
    if (url.pathname === '/brand.ttf') return route.fulfill({ contentType: 'font/ttf', path: v('FIGURES_FONT', ${JSON.stringify(FONTS.regular)}) });
    return route.abort();
  });
  // Where the app is served: the machine's own choice (another host or port in CI).
  await page.goto(\`http://\${v('FIGURES_HOST', 'figures.test')}/\`);
  await expect(page).toMatchVisual('figures');
});
`;

/**
 * A project whose browser and launch switches come from the run's FIGURES_BROWSER and
 * FIGURES_SWITCHES (names of their own: npm sets COLOR for the scripts it runs, a desktop BROWSER).
 */
function project() {
  const root = freshProject(temps, spec, { prefix: 'sightline-environments-' });
  writeFileSync(
    path.join(root, 'playwright.config.mjs'),
    `import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: '.', workers: 1, reporter: [['line'], ['json', { outputFile: 'report.json' }]],
  use: { viewport: { width: 700, height: 500 }, launchOptions: {
    executablePath: process.env.FIGURES_BROWSER, args: (process.env.FIGURES_SWITCHES ?? '').split(' ').filter(Boolean) } },
  projects: [{ name: 'chromium' }],
});
`,
  );
  return root;
}

/** The evidence the last run wrote for the snapshot. */
const evidence = (root) => JSON.parse(readFileSync(path.join(root, '.sightline', 'temp', 'figures', 'chromium.json'), 'utf8'));

test('environments: another rasteriser switch draws the unchanged page differently, and it passes as rendering; every planted change is still caught with the switch named', { skip }, () => {
  const root = project();
  const approved = run(root, ['--update-snapshots=all'], { FIGURES_BROWSER: chromium });
  assert.equal(approved.status, 0, approved.output);
  const switched = { FIGURES_BROWSER: chromium, FIGURES_SWITCHES: SWITCH };
  const unchanged = run(root, [], switched);
  assert.equal(unchanged.status, 0, unchanged.output);
  const e = evidence(root);
  assert.equal(e.verdictKind, 'rendering', e.verdict);
  assert.match(e.verdict, new RegExp(`^Rendering differs \\(Chromium \\d+: default rendering → ${SWITCH}\\): same DOM, styles and layout; text and edges drawn differently on \\d+ elements$`));
  assert.ok(e.layers.pixel.regions.length > 0 && e.layers.pixel.regions.every((r) => r.classification === 'rendering'));
  assert.deepEqual(e.environment.current.renderingSwitches, [SWITCH]);
  assert.ok(e.environment.current.fonts.some((f) => f.faces.length > 0), 'the fonts that drew the text are recorded');

  const named = new RegExp(`; also rendered elsewhere \\(Chromium \\d+: default rendering → ${SWITCH}\\)`);
  const planted = [
    [{ FIGURES_COLOR: '#b91c1c' }, /Style-only change: .*color rgb\(30, 41, 59\) → rgb\(185, 28, 28\)/],
    [{ FIGURES_WORD: 'southern' }, /Structural change: 1 element with changed content \(body > p:nth-of-type\(1\)\)/],
    [{ FIGURES_MARGIN: '6' }, /Style-only change: set by \.card in <style> in \/, line 5; 2 elements restyled .*margin-top 0px → 6px/],
    [{ FIGURES_HERO: 'b' }, /Asset replaced under its URL: image http:\/\/figures\.test\/hero\.png has other bytes than in the baseline; \d+ pixels differ on #hero with DOM and styles identical — a real change, not noise/],
    [{ FIGURES_FONT: FONTS.condensed }, /Asset replaced under its URL: font http:\/\/figures\.test\/brand\.ttf has other bytes than in the baseline/],
    [{ FIGURES_CANVAS: '#b91c1c' }, /Not noise: \d+ pixels changed in one area on #chart with DOM and styles identical/],
  ];
  for (const [change, verdict] of planted) {
    const changed = run(root, [], { ...switched, ...change });
    assert.equal(changed.status, 1, `${JSON.stringify(change)}: ${changed.output}`);
    assert.match(changed.errors.figures, verdict, JSON.stringify(change));
    assert.match(evidence(root).verdict, named, JSON.stringify(change));
  }

  // In the baseline's own environment, a file replaced under its URL is named the same way.
  for (const change of [{ FIGURES_HERO: 'b' }, { FIGURES_FONT: FONTS.condensed }]) {
    const replaced = run(root, [], { FIGURES_BROWSER: chromium, ...change });
    assert.equal(replaced.status, 1, replaced.output);
    assert.equal(evidence(root).verdictKind, 'assetReplaced', evidence(root).verdict);
    assert.doesNotMatch(evidence(root).verdict, /rendered elsewhere/);
  }

  // strictRendering: the unchanged page fails, to be approved in this environment.
  writeFileSync(path.join(root, '.sightline', 'config.json'), JSON.stringify({ strictRendering: true }));
  const strict = run(root, [], switched);
  assert.equal(strict.status, 1, strict.output);
  assert.match(strict.errors.figures, /^Error: toMatchVisual\("figures"\): Rendering differs \(.*; strictRendering fails it: approve it/);
});

test('environments: the app served on another host and port is the same page: unchanged it passes, a changed word is that paragraph alone (its images are the same files), and an image replaced under its path is named', { skip }, () => {
  const root = project();
  const approved = run(root, ['--update-snapshots=all'], { FIGURES_BROWSER: chromium });
  assert.equal(approved.status, 0, approved.output);
  const elsewhere = { FIGURES_BROWSER: chromium, FIGURES_HOST: '127.0.0.1:4173' };
  const unchanged = run(root, [], elsewhere);
  assert.equal(unchanged.status, 0, unchanged.output);
  const changed = run(root, [], { ...elsewhere, FIGURES_WORD: 'southern' });
  assert.equal(changed.status, 1, changed.output);
  assert.match(changed.errors.figures, /Structural change: 1 element with changed content \(body > p:nth-of-type\(1\)\)/);
  const { modified } = evidence(root).layers.dom;
  assert.deepEqual(modified.elements, [{ selector: 'body > p:nth-of-type(1)', changes: ['text'] }], 'the image (#hero) is not changed content');
  // The hero replaced under its path is named so on the other host too.
  const replaced = run(root, [], { ...elsewhere, FIGURES_HERO: 'b' });
  assert.equal(replaced.status, 1, replaced.output);
  assert.match(replaced.errors.figures, /Asset replaced under its URL: image http:\/\/127\.0\.0\.1:4173\/hero\.png has other bytes than in the baseline/);
});

test('environments: an older Chromium build shapes button text differently — said so, decided by a person — and a replaced image beside it is still its own change', { skip }, async () => {
  const sparticuz = createRequire(path.join(repo, 'package.json'))('@sparticuz/chromium');
  const older = await (sparticuz.default ?? sparticuz).executablePath();
  const root = project();
  // The baseline from Chromium 153, with a button: 153 draws its label 2 px narrower than 156.
  writeFileSync(path.join(root, 'visual.spec.mjs'), readFileSync(path.join(root, 'visual.spec.mjs'), 'utf8').replace('<h1>', '<button>Add to cart</button><h1>'));
  const approved = run(root, ['--update-snapshots=all'], { FIGURES_BROWSER: older });
  assert.equal(approved.status, 0, approved.output);
  const upgraded = run(root, [], { FIGURES_BROWSER: chromium });
  assert.equal(upgraded.status, 1, upgraded.output);
  const e = evidence(root);
  assert.equal(e.verdictKind, 'textReshaped', e.verdict);
  assert.match(e.verdict, /^Text shaped differently by Chromium \d+ on Linux: \d+ elements? moved or resized \(body > button .*\) with the same DOM, styles and fonts \(Chromium 153 → \d+\)/);
  assert.deepEqual(e.environment.differences.length, 1);
  const replaced = run(root, [], { FIGURES_BROWSER: chromium, FIGURES_HERO: 'b' });
  assert.equal(replaced.status, 1, replaced.output);
  assert.equal(evidence(root).verdictKind, 'assetReplaced', evidence(root).verdict);
  assert.match(replaced.errors.figures, /Asset replaced under its URL: image http:\/\/figures\.test\/hero\.png .* on #hero/);
  assert.match(evidence(root).verdict, /also rendered elsewhere \(Chromium 153 → \d+\)/);
});

// Real pages no one here wrote: the example shop (examples/shop) and a page of Python's
// documentation (Debian's python3-doc) with its class diagram, served under http names of their
// own so a file can be replaced under its URL. Each planted change comes from an environment
// variable of the run.
const DOCS = '/usr/share/doc/python3/html';
const DIAGRAM = `${DOCS}/_images/pathlib-inheritance.png`;
const docsMissing = !existsSync(DIAGRAM) && `Python's documentation not found at ${DOCS} (Debian's python3-doc; npm test installs it)`;
if (docsMissing && process.env.CI) throw new Error(`${docsMissing}; CI must have it`);

/** The PNG's width and height, from its header. */
const pngSize = (file) => {
  const bytes = readFileSync(file);
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
};

function realPagesProject() {
  const [width, height] = docsMissing ? [1, 1] : pngSize(DIAGRAM);
  // Another diagram of the same size, served under the same URL when FIGURES_DIAGRAM is set.
  const other = png(width, height, [255, 255, 255], [10, 160, 90]).toString('base64');
  const pages = new URL('../examples/shop/site/pages.mjs', import.meta.url).href;
  const styles = new URL('../examples/shop/site/styles.css', import.meta.url).pathname;
  const spec = `
import { readFileSync } from 'node:fs';
import { render } from ${JSON.stringify(pages)};
const v = (name, fallback) => process.env[name] || fallback;

async function shop(page, path) {
  await page.route('http://shop.test/**', (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === '/styles.css') return route.fulfill({ contentType: 'text/css', path: ${JSON.stringify(styles)} });
    const html = render(url.pathname, v('FIGURES_VARIANT', 'original'));
    return html === undefined ? route.abort() : route.fulfill({ contentType: 'text/html', body: html });
  });
  await page.goto('http://shop.test' + path);
}

test('shop home', async ({ page }) => {
  await shop(page, '/');
  await expect(page).toMatchVisual('shop-home');
});

test('shop catalogue', async ({ page }) => {
  await shop(page, '/catalogue');
  await expect(page).toMatchVisual('shop-catalogue');
});

test('pathlib', async ({ page }) => {
  await page.route('http://docs.test/**', (route) => {
    const file = ${JSON.stringify(DOCS)} + new URL(route.request().url()).pathname;
    if (file.endsWith('/pathlib-inheritance.png') && process.env.FIGURES_DIAGRAM) {
      return route.fulfill({ contentType: 'image/png', body: Buffer.from(${JSON.stringify(other)}, 'base64') });
    }
    const types = { html: 'text/html', css: 'text/css', js: 'text/javascript', png: 'image/png', svg: 'image/svg+xml' };
    const type = types[file.split('.').pop()] ?? 'application/octet-stream';
    try { return route.fulfill({ contentType: type, body: readFileSync(file) }); } catch { return route.abort(); }
  });
  await page.goto('http://docs.test/library/pathlib.html');
  if (process.env.FIGURES_DOCS_COLOR) await page.addStyleTag({ content: 'h1 { color: ' + process.env.FIGURES_DOCS_COLOR + ' !important; }' });
  if (process.env.FIGURES_DOCS_WORD) await page.locator('#module-pathlib > p').first().evaluate((p, word) => { p.firstChild.textContent = word + ' ' + p.firstChild.textContent; }, process.env.FIGURES_DOCS_WORD);
  await expect(page).toMatchVisual('pathlib', { fullPage: true, timeout: 30000 });
});
`;
  const root = freshProject(temps, spec, { prefix: 'sightline-environments-real-' });
  writeFileSync(
    path.join(root, 'playwright.config.mjs'),
    `import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: '.', workers: 1, timeout: 60000, reporter: [['line'], ['json', { outputFile: 'report.json' }]],
  use: { viewport: { width: 1280, height: 800 }, launchOptions: {
    executablePath: process.env.FIGURES_BROWSER, args: (process.env.FIGURES_SWITCHES ?? '').split(' ').filter(Boolean) } },
  projects: [{ name: 'chromium' }],
});
`,
  );
  return root;
}

/** The evidence the last run wrote for `snapshot`. */
const evidenceOf = (root, snapshot) => JSON.parse(readFileSync(path.join(root, '.sightline', 'temp', snapshot, 'chromium.json'), 'utf8'));

test('environments: the example shop and a page of Python\'s documentation, approved in Debian\'s Chromium, pass unchanged under another colour profile, another rasteriser switch and an older build; planted changes are caught with the environment named', { skip: skip || docsMissing }, async () => {
  const sparticuz = createRequire(path.join(repo, 'package.json'))('@sparticuz/chromium');
  const older = await (sparticuz.default ?? sparticuz).executablePath();
  const root = realPagesProject();
  const approved = run(root, ['--update-snapshots=all'], { FIGURES_BROWSER: chromium });
  assert.equal(approved.status, 0, approved.output);
  const kinds = () => Object.fromEntries(['shop-home', 'shop-catalogue', 'pathlib'].map((s) => [s, evidenceOf(root, s).verdictKind]));

  // A display's colour profile converts every colour the page draws: the documentation's glyphs
  // and code all differ, and every region is a rendering region.
  const profile = { FIGURES_BROWSER: chromium, FIGURES_SWITCHES: '--force-color-profile=display-p3-d65' };
  const profiled = run(root, [], profile);
  assert.equal(profiled.status, 0, profiled.output);
  const docs = evidenceOf(root, 'pathlib');
  assert.equal(docs.verdictKind, 'rendering', docs.verdict);
  assert.ok(docs.layers.pixel.diffPixels > 1000 && docs.layers.pixel.regions.every((r) => r.classification === 'rendering'), docs.verdict);

  // Subpixel positioning off: the shop's glyphs land elsewhere in the same boxes (rendering);
  // the documentation's inline text boxes move by whole pixels — the engine re-shaped its text,
  // which a person decides.
  const whole = run(root, [], { FIGURES_BROWSER: chromium, FIGURES_SWITCHES: SWITCH });
  assert.deepEqual(kinds(), { 'shop-home': 'rendering', 'shop-catalogue': 'rendering', pathlib: 'textReshaped' }, whole.output);
  assert.match(whole.errors.pathlib, /Text shaped differently by Chromium \d+ on Linux, --disable-font-subpixel-positioning: \d+ elements moved or resized (.* )?with the same DOM, styles and fonts/);
  assert.deepEqual(whole.results['shop home'], ['passed']);

  // Chromium 153 from npm: the documentation page is drawn alike; the shop's button labels are
  // shaped 2 px wider by 156, said so.
  const upgraded = run(root, [], { FIGURES_BROWSER: older });
  assert.deepEqual(upgraded.results.pathlib, ['passed'], upgraded.output);
  assert.equal(evidenceOf(root, 'shop-home').verdictKind, 'textReshaped', evidenceOf(root, 'shop-home').verdict);
  // Upgrade triage: `sightline compare` groups the two engine-only pages, to approve at once.
  const compared = spawnSync(binary, ['--root', root, 'compare'], { encoding: 'utf8' });
  assert.equal(compared.status, 1, compared.stdout + compared.stderr);
  assert.match(
    compared.stdout,
    /^ {2}group: the engine only \(Chromium \d+ → 153\): the same DOM, styles and fonts, drawn or text shaped differently: shop-catalogue \(chromium\), shop-home \(chromium\) — together: npx sightline approve shop-catalogue shop-home$/m,
  );
  // The diagram replaced under its URL, across the two builds: its own change, on its img.
  const diagram = run(root, [], { FIGURES_BROWSER: older, FIGURES_DIAGRAM: '1' });
  assert.equal(evidenceOf(root, 'pathlib').verdictKind, 'assetReplaced', diagram.output);
  assert.match(diagram.errors.pathlib, /Asset replaced under its URL: image http:\/\/docs\.test\/_images\/pathlib-inheritance\.png has other bytes than in the baseline; \d+ pixels differ on #module-pathlib > img\.align-center with DOM and styles identical — a real change, not noise; compare the images; also rendered elsewhere \(Chromium \d+ → 153\)/);

  // Under the other colour profile, each planted change keeps its verdict, the switch named.
  const named = /; also rendered elsewhere \(Chromium \d+: default rendering → --force-color-profile=display-p3-d65\)/;
  const planted = [
    ['pathlib', { FIGURES_DOCS_COLOR: '#b91c1c' }, /Style-only change: set by h1 in <style> added by script:1; .*\d+ elements? restyled \(.*h1.*color rgb\(\d+, \d+, \d+\) → rgb\(185, 28, 28\)/],
    ['pathlib', { FIGURES_DOCS_WORD: 'Portable' }, /Structural change: 1 element with changed content \(#module-pathlib > p/],
    ['pathlib', { FIGURES_DIAGRAM: '1' }, /Asset replaced under its URL: image http:\/\/docs\.test\/_images\/pathlib-inheritance\.png/],
    ['shop home', { FIGURES_VARIANT: 'changed' }, /Style-only change: .*background-color rgb\(37, 99, 235\) → rgb\(220, 38, 38\)/],
    ['shop catalogue', { FIGURES_VARIANT: 'changed' }, /Page shift: content below y=\d+ moved down \d+ px/],
  ];
  for (const [title, change, verdict] of planted) {
    const changed = run(root, [], { ...profile, ...change });
    assert.deepEqual(changed.results[title], ['failed'], `${JSON.stringify(change)}: ${changed.output}`);
    assert.match(changed.errors[title], verdict, JSON.stringify(change));
    assert.match(changed.errors[title], named, JSON.stringify(change));
  }
});

test('environments: a machine whose fonts differ — sans-serif served by DejaVu Serif through fontconfig — is named with both fonts and what fixes it, and fails', { skip }, () => {
  const root = project();
  const approved = run(root, ['--update-snapshots=all'], { FIGURES_BROWSER: chromium });
  assert.equal(approved.status, 0, approved.output);
  // Every family this machine is asked for, served by DejaVu Serif first.
  const fonts = path.join(root, 'fonts.conf');
  writeFileSync(
    fonts,
    `<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <match target="pattern"><edit name="family" mode="prepend" binding="strong"><string>DejaVu Serif</string></edit></match>
</fontconfig>`,
  );
  const serif = run(root, [], { FIGURES_BROWSER: chromium, FONTCONFIG_FILE: fonts });
  assert.equal(serif.status, 1, serif.output);
  const e = evidence(root);
  assert.equal(e.verdictKind, 'fontSubstituted', e.verdict);
  assert.match(
    serif.errors.figures,
    /^Error: toMatchVisual\("figures"\): Font substituted: font "sans-serif" rendered with DejaVu Serif here, with DejaVu Sans in the baseline; \d+ pixels differ in \d+ regions, the most on .*, with DOM and styles identical: install the same fonts, keep baselines per platform \("baselinePath": "\{name\}\/\{project\}-\{platform\}"\) or capture in a container, and compare the images for anything else/,
  );
  assert.deepEqual(e.environment.fontSubstitutions, [{ family: 'sans-serif', baseline: 'DejaVu Sans', current: 'DejaVu Serif' }]);
});
