// From a changed pixel to the line of CSS that changed it (issue 38), with real parts: a page
// whose stylesheet a real bundler (esbuild, from npm) builds from three source files with a
// source map, a stylesheet served without one, a style attribute and a browser default, each
// changed in turn and caught by a real `playwright test` run in a fresh project. The verdict and
// the failing test's lines must name the token or rule, its stylesheet line and, through the map,
// the source file and line a person opens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { freshProject, run, skip, tempFolders } from './support/playwright-runs.mjs';

const esbuild = createRequire(import.meta.url)('esbuild');
const temps = tempFolders();

// The sources as a project keeps them: `app.css` bundled with its map in a file beside it,
// `widgets.css` with its map inline (a `data:` URL), `plain.css` served as written.
const SOURCES = {
  'src/app.css': '@import "./tokens.css";\n@import "./components/button.css";\n@import "./components/card.css";\n',
  'src/tokens.css': ':root {\n  --brand: #2563eb;\n  --ink: #0f172a;\n}\n',
  'src/components/button.css':
    '.btn {\n  display: inline-block;\n  padding: 8px 14px;\n  background: var(--brand);\n  color: white;\n  border-radius: 6px;\n}\n',
  'src/components/card.css':
    '.card {\n  --accent: #0e7490;\n  margin: 12px 0;\n  color: var(--ink);\n  border-left: 4px solid var(--accent);\n}\n\n.price {\n  color: var(--brand);\n  font-weight: 700;\n}\n',
  'src/widgets.css': '/* widgets */\n.badge {\n  border: 2px solid var(--brand);\n  background: var(--accent, transparent);\n}\n',
  'public/plain.css': '.lead {\n  font-size: 16px;\n}\n\n.note {\n  margin: 0;\n}\n',
};

// The page: the bundle and the plain stylesheet, served from the project's files by a real HTTP
// server (a response a route fulfils leaves the browser no text of a stylesheet to give lines
// of); the note's style attribute comes from the run's environment.
const spec = `
import { readFileSync } from 'node:fs';
import http from 'node:http';
const html = () => \`<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/dist/app.css"><link rel="stylesheet" href="/dist/widgets.css"><link rel="stylesheet" href="/plain.css">
<style>body { margin: 8px; font-family: sans-serif; }</style></head><body>
<div class="lead"><h1>Spring sale</h1></div>
<a class="btn" href="#">Buy now</a>
<div class="card"><span class="price">$42</span> <span class="badge">new</span></div>
<p class="note" style="color: \${process.env.NOTE_COLOR || '#334155'}">Prices include tax.</p>
</body></html>\`;
const files = { '/dist/app.css': 'dist/app.css', '/dist/app.css.map': 'dist/app.css.map', '/dist/widgets.css': 'dist/widgets.css', '/plain.css': 'public/plain.css' };
let server;
test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(html());
    const file = files[req.url];
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.endsWith('.map') ? 'application/json' : 'text/css' }).end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
});
test.afterAll(() => server.close());

test('home', async ({ page }) => {
  await page.goto(\`http://127.0.0.1:\${server.address().port}/\`);
  await expect(page).toMatchVisual('home');
});
`;

/** Writes the sources (with `changes`: `{ file: [from, to] }`) and bundles them with esbuild. */
function build(root, changes = {}) {
  for (const [file, text] of Object.entries(SOURCES)) {
    const [from, to] = changes[file] ?? ['', ''];
    if (from && !text.includes(from)) throw new Error(`${file} has no ${from}`);
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), from ? text.replace(from, to) : text);
  }
  esbuild.buildSync({
    absWorkingDir: root,
    entryPoints: ['src/app.css'],
    bundle: true,
    sourcemap: true,
    outfile: 'dist/app.css',
    logLevel: 'silent',
  });
  esbuild.buildSync({ absWorkingDir: root, entryPoints: ['src/widgets.css'], bundle: true, sourcemap: 'inline', outfile: 'dist/widgets.css', logLevel: 'silent' });
}

/** The evidence the last run wrote for `home`. */
const evidence = (root) => JSON.parse(readFileSync(path.join(root, '.sightline', 'temp', 'home', 'chromium.json'), 'utf8'));

/** The line of `text` that holds `needle`, 1-based. */
function lineOf(root, file, needle) {
  return readFileSync(path.join(root, file), 'utf8').split('\n').findIndex((line) => line.includes(needle)) + 1;
}

test('each restyle is traced to its token, rule, source file and line', { skip }, () => {
  const root = freshProject(temps, spec, { config: { use: { viewport: { width: 400, height: 260 }, launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' } } }, prefix: 'sightline-trace-' });
  build(root);
  const approved = run(root, ['--update-snapshots']);
  assert.equal(approved.status, 0, approved.output);
  const bundleLine = (needle) => lineOf(root, 'dist/app.css', needle);

  // A design token: the verdict leads with it, its two values and the source file that declares
  // it; each element that reads it names the component rule that does.
  build(root, { 'src/tokens.css': ['#2563eb', '#dc2626'] });
  let r = run(root);
  assert.equal(r.status, 1, r.output);
  let home = evidence(root);
  assert.equal(home.verdictKind, 'styleOnly');
  assert.match(
    home.verdict,
    /^Style-only change: token --brand #2563eb → #dc2626 \(src\/tokens\.css:2\), used by 3 restyled elements; through 3 rules in 3 files \(src\/components\/button\.css, src\/components\/card\.css, src\/widgets\.css\); 3 elements restyled/,
  );
  const trace = home.layers.dom.styleTrace;
  assert.equal(trace.traced, 3);
  const btn = trace.changes.find((c) => c.selector === 'body > a.btn');
  assert.deepEqual(btn.source, {
    kind: 'rule',
    selector: '.btn',
    at: { file: '/dist/app.css', line: bundleLine('background: var(--brand)'), column: 3 },
    original: { file: 'src/components/button.css', line: 4, column: 3 },
  });
  assert.equal(btn.declaration, 'background: var(--brand)');
  assert.equal(btn.token, '--brand');
  const price = trace.changes.find((c) => c.selector.includes('span.price'));
  assert.equal(price.source.original.file, 'src/components/card.css');
  assert.equal(price.source.original.line, 9);
  // A map inline in its stylesheet (a data: URL) maps as one in a file does: the badge's border
  // comes from the `border` shorthand of src/widgets.css line 3.
  const badge = trace.changes.find((c) => c.selector.includes('span.badge') && c.property === 'border-top-color');
  assert.equal(badge.source.at.file, '/dist/widgets.css');
  assert.deepEqual(badge.source.original, { file: 'src/widgets.css', line: 3, column: 3 });
  assert.equal(badge.declaration, 'border: 2px solid var(--brand)');
  // Three rules in three files carry the change: said, so a reviewer sees how far it reached.
  assert.match(r.errors.home, /the change comes through 3 rules in 3 files \(src\/components\/button\.css, src\/components\/card\.css, src\/widgets\.css\)/);
  assert.match(r.errors.home, /body > a\.btn background-color: rgb\(37, 99, 235\) → rgb\(220, 38, 38\) — \.btn in src\/components\/button\.css:4 \(\/dist\/app\.css:\d+\) \(background: var\(--brand\)\)/);

  // A rule of one component file: named with that file and line.
  build(root, { 'src/components/button.css': ['color: white', 'color: #fde68a'] });
  r = run(root);
  home = evidence(root);
  assert.match(home.verdict, /^Style-only change: set by \.btn in src\/components\/button\.css:5 \(\/dist\/app\.css:\d+\); 1 element restyled \(body > a\.btn\)/);

  // A stylesheet without a source map: its URL's path and line.
  build(root, { 'public/plain.css': ['font-size: 16px', 'font-size: 20px'] });
  r = run(root);
  home = evidence(root);
  const lead = home.layers.dom.styleTrace.changes.find((c) => c.selector === 'body > div.lead:nth-of-type(1)');
  assert.deepEqual(lead.source, { kind: 'rule', selector: '.lead', at: { file: '/plain.css', line: 2, column: 3 } });
  // The heading's size is the browser's default (2em of its parent's): named as such.
  const heading = home.layers.dom.styleTrace.changes.find((c) => c.selector === 'body > div.lead:nth-of-type(1) > h1' && c.property === 'font-size');
  assert.equal(heading.source.kind, 'userAgent', JSON.stringify(heading));
  assert.match(r.errors.home, /body > div\.lead:nth-of-type\(1\) > h1 font-size: 32px → 40px — the browser's default \(h1\) \(font-size: 2em\)/);

  // A style attribute.
  build(root);
  r = run(root, [], { NOTE_COLOR: '#b91c1c' });
  home = evidence(root);
  assert.match(home.verdict, /^Style-only change: set by the element's style attribute; 1 element restyled \(body > p\.note\)/);

  // A token a component declares (`.card { --accent }`), read by the card and by the badge inside
  // it: the change is recorded on the declaring element, and the verdict leads with it and the
  // component file that declares it.
  build(root, { 'src/components/card.css': ['--accent: #0e7490', '--accent: #7c3aed'] });
  r = run(root);
  home = evidence(root);
  const card = home.layers.dom.styleTrace.changes.find((c) => c.property === 'border-left-color').selector;
  assert.deepEqual(home.layers.dom.tokenChanges, [{ name: '--accent', from: '#0e7490', to: '#7c3aed', elements: [card], elementCount: 1 }]);
  assert.match(
    home.verdict,
    /^Style-only change: token --accent #0e7490 → #7c3aed \(src\/components\/card\.css:2\), used by 2 restyled elements; through 2 rules in 2 files \(src\/components\/card\.css, src\/widgets\.css\); 2 elements restyled/,
  );

  // The same page unchanged passes, and nothing was traced for it.
  build(root);
  r = run(root);
  assert.equal(r.status, 0, r.output);
  assert.equal(evidence(root).layers.dom?.styleTrace, undefined);
});
