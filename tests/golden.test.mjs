// Golden outputs of the bundled example: what the next redesign (one typed results model) must
// keep, byte for byte. One run of scripts/example.mjs into a temp root, then each output is
// compared with its file in tests/golden/:
//   example-stdout.txt        the summary the example prints (after Playwright's own output)
//   example-results.json      visual-report/results.json as written (get_report must equal it)
//   example-report.txt        the HTML report's text: body.innerText with every <details> open
//   mcp-<tool>-<args>.*       the MCP server's answers over the real client: explain_snapshot's
//                             JSON as .json, the rest as .txt (images as "[image <type> W×H]")
// The normaliser replaces only what changes from run to run or machine to machine: the temp root
// → <root>, the repository path → <repo>, timestamps → <time>, the package version → <version>.
// Everything else is exact, but for list_baselines' byte sizes, checked against the files: each
// baseline PNG stores the machine's Chromium version. The shop's server listens on a fixed port.
//
// After a deliberate change of output:  SIGHTLINE_UPDATE_GOLDEN=1 node --test tests/golden.test.mjs
// rewrites the golden files; review their diff before committing it.
//
// The example's and the report's own checks (formerly example.test.mjs and report.test.mjs) run
// here on the same run: each example run costs two Playwright runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { binary, callText, chromium as chromiumPath, pngSize, repo, runExample, skipWithoutChromium as skip, tempRoot, withClient } from './golden/run.mjs';

const goldenDir = path.join(repo, 'tests', 'golden');
const update = process.env.SIGHTLINE_UPDATE_GOLDEN === '1';
const version = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')).version;
// Not the example's default 4173, so a shards or example run elsewhere in the checkout does not
// hold it; fixed, for the baseline sizes (see the top).
const port = 4180;

let root;
let stdout;
before(() => {
  if (skip) return;
  root = tempRoot('golden');
  stdout = runExample(root, port);
});

after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The run-to-run parts of an output replaced by placeholders; nothing else is touched. */
function normalise(text) {
  return text
    .replaceAll(root, '<root>')
    .replaceAll(repo, '<repo>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>')
    .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/g, '<time>')
    .replaceAll(`"version": "${version}"`, '"version": "<version>"')
    .replaceAll(`sightline ${version}\n`, 'sightline <version>\n')
    // The machine's Chromium, as the environment records it.
    .replace(/("browserVersion": ")[^"]+/g, '$1<browser version>')
    .replace(/Chromium \d+(\.\d+)+/g, 'Chromium <browser version>');
}

/** `actual` (normalised) equals tests/golden/`name`, or is written there under SIGHTLINE_UPDATE_GOLDEN=1. */
function assertGolden(name, actual) {
  const file = path.join(goldenDir, name);
  const text = normalise(actual);
  if (update) {
    mkdirSync(goldenDir, { recursive: true });
    writeFileSync(file, text);
    return;
  }
  assert.ok(existsSync(file), `${file} is missing; write it with SIGHTLINE_UPDATE_GOLDEN=1`);
  assert.equal(text, readFileSync(file, 'utf8'), `${name} differs from the golden file (SIGHTLINE_UPDATE_GOLDEN=1 rewrites it after a deliberate change)`);
}

const results = () => readFileSync(path.join(root, 'visual-report', 'results.json'), 'utf8');

test('example: npm run example prints the verdicts of a style-only change, a page shift and a pass', { skip }, () => {
  // Playwright's list reporter prints first (durations, attachment hashes); the example's own
  // summary starts at its "Sightline report" line.
  const start = stdout.indexOf('\nSightline report: ');
  assert.ok(start >= 0, stdout);
  assertGolden('example-stdout.txt', stdout.slice(start));
  const snapshots = JSON.parse(results()).snapshots;
  for (const snap of snapshots.filter((s) => s.status === 'changed')) {
    for (const key of ['baseline', 'current', 'diff']) {
      assert.ok(existsSync(path.join(root, snap.files[key])), `${snap.name} ${key}: ${snap.files[key]}`);
    }
  }
});

test('golden: results.json of the example run', { skip }, () => {
  assertGolden('example-results.json', results());
});

/** Opens the example's report in Chromium from file:// and runs `fn(page, log)`. */
async function withReport(fn) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumPath });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const log = { requests: [], errors: [] };
    page.on('request', (r) => log.requests.push(r.url()));
    page.on('pageerror', (e) => log.errors.push(e.message));
    await page.goto(pathToFileURL(path.join(root, 'visual-report', 'index.html')).href, { waitUntil: 'load' });
    return await fn(page, log);
  } finally {
    await browser.close();
  }
}

test('golden: the HTML report text of the example run', { skip }, async () => {
  const text = await withReport((page) =>
    page.evaluate(() => {
      // Collapsed sections (region tables, the passed card) are part of what the report says.
      for (const details of document.querySelectorAll('details')) details.open = true;
      return document.body.innerText;
    }),
  );
  assertGolden('example-report.txt', `${text}\n`);
});

test('report: the example report opens from file:// and shows the changes it found', { skip }, async () => {
  await withReport(async (page, { requests, errors }) => {
    const totals = await page.locator('.totals').innerText();
    assert.equal(totals.replace(/\s+/g, ' '), '3 snapshots 1 passed 2 changed 0 new 0 missing 0 auto-passed');

    // The style-only change: its verdict and its style table, old → new colour.
    const home = page.locator('article.card[data-name="home"]');
    assert.equal(await home.getAttribute('data-status'), 'changed');
    assert.match(await home.locator('.verdict').innerText(), /^Style-only change: token --brand #2563eb → #dc2626 \(<style> in \/, line 2\), used by 13 restyled elements; 13 elements restyled/);
    const styles = await home.locator('section.styles table').innerText();
    assert.match(styles, /body > section\.hero > a\.btn\s+background-color\s+rgb\(37, 99, 235\)\s*→\s*rgb\(220, 38, 38\)/);
    // One swatch per colour on each side of the 43 changed properties.
    assert.equal(await home.locator('section.styles .sw').count(), 86);

    // The page shift: region boxes drawn over the current image, scaled with it.
    const catalogue = page.locator('article.card[data-name="catalogue"]');
    assert.match(await catalogue.locator('.verdict').innerText(), /^Page shift: content below y=284 moved down 60 px/);
    assert.equal(await catalogue.locator('figure.f-current .rg').count(), 59, 'one box per region');
    const hero = catalogue.locator('figure.f-current .rg', { hasText: '#catalogue-hero' });
    assert.equal(await hero.count(), 1);
    const box = await hero.boundingBox();
    const img = await catalogue.locator('figure.f-current img').boundingBox();
    // Region 0 is x=0 y=284 1280×60 in image pixels; the box is drawn at the image's scale.
    const scale = img.width / 1280;
    assert.deepEqual(
      [box.x - img.x, box.y - img.y, box.width, box.height].map((v) => Math.round(v)),
      [0, 284 * scale, 1280 * scale, 60 * scale].map((v) => Math.round(v)),
    );

    // The three images of a changed card load (relative srcs next to index.html).
    for (const kind of ['baseline', 'current', 'diff']) {
      const width = await home.locator(`figure.f-${kind} img`).evaluate(async (el) => {
        if (!el.complete) await new Promise((resolve) => el.addEventListener('load', resolve, { once: true }));
        return el.naturalWidth;
      });
      assert.equal(width, 1280, `home ${kind} image`);
    }

    // Filters: "passed" hides the changed cards and shows the passed one.
    await page.click('.toolbar [data-filter="passed"]');
    assert.equal(await home.isVisible(), false);
    assert.equal(await catalogue.isVisible(), false);
    assert.equal(await page.locator('article.card[data-name="about"]').isVisible(), true);
    await page.click('.toolbar [data-filter="all"]');
    assert.equal(await home.isVisible(), true);

    assert.deepEqual(errors, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith('file://')), [], 'the report must not reach the network');
  });
});

/** A tool answer as text: text blocks as they are, images by type and size. */
function answerText(result) {
  return result.content
    .map((block) => {
      if (block.type === 'text') return block.text;
      const { width, height } = pngSize(block.data);
      return `[${block.type} ${block.mimeType} ${width}×${height}]`;
    })
    .join('\n')
    .concat('\n');
}

test('golden: the MCP read-only tools answer the same on the example run', { skip }, async () => {
  await withClient(root, [], async (client) => {
    assertGolden('mcp-get_visual_results.txt', `${await callText(client, 'get_visual_results')}\n`);
    for (const name of ['about', 'catalogue', 'home']) {
      assertGolden(`mcp-explain_snapshot-${name}.json`, `${await callText(client, 'explain_snapshot', { name })}\n`);
    }
    // get_report is the raw file, byte for byte; its golden is example-results.json.
    assert.equal(await callText(client, 'get_report'), results());
    // Each size is its file's, checked here; the golden leaves it out, for each baseline stores
    // the machine's Chromium version, whose digits change the size by a byte or two.
    const listing = await callText(client, 'list_baselines');
    for (const row of listing.trim().split('\n').slice(1)) {
      const [name, project, bytes] = row.split('\t');
      assert.equal(Number(bytes), statSync(path.join(root, '.sightline', 'baselines', name, `${project}.png`)).size, row);
    }
    assertGolden('mcp-list_baselines.txt', `${listing.replace(/^([^\t\n]+\t[^\t\n]+\t)\d+/gm, '$1<bytes>')}\n`);
    const diffs = [
      ['about', { name: 'about' }],
      ['catalogue', { name: 'catalogue' }],
      ['home', { name: 'home' }],
      ['home-region-1', { name: 'home', region: 1 }],
      ['catalogue-band', { name: 'catalogue', y: 1000, height: 300 }],
    ];
    for (const [label, args] of diffs) {
      const result = await client.callTool({ name: 'get_diff', arguments: args });
      assert.equal(result.isError, false, `get_diff ${label}: ${result.content?.[0]?.text}`);
      assertGolden(`mcp-get_diff-${label}.txt`, answerText(result));
    }
  });
});

// Approval stays with the person: nothing a model reads over MCP (instructions, tool and prompt
// texts, every answer) names the approve command or the update flag, which would let it approve
// around the client's confirmation. A copy of the example run with one snapshot made new (its
// baseline removed, compared again), so every status a model meets is in the answers.
const BYPASS = /sightline approve|update-snapshots|(?<![\w-])-u(?![\w-])/;

test('approval: no model-facing text of the MCP server names the approve command or -u', { skip }, async () => {
  const copy = tempRoot('golden-bypass');
  try {
    cpSync(root, copy, { recursive: true });
    rmSync(path.join(copy, '.sightline', 'baselines', 'about'), { recursive: true });
    const compare = spawnSync(binary, ['--root', copy, 'compare'], { encoding: 'utf8' });
    assert.equal(compare.status, 1, compare.stdout + compare.stderr);
    // The person at the terminal is told how to approve.
    assert.match(compare.stdout, /^If this is intended: npx sightline approve about catalogue home \(or run the tests with -u\)$/m);
    const about = JSON.parse(readFileSync(path.join(copy, 'visual-report', 'results.json'), 'utf8')).snapshots.find((s) => s.name === 'about');
    assert.equal(about.status, 'new');

    await withClient(copy, [], async (client) => {
      const seen = [['instructions', client.getInstructions() ?? '']];
      for (const tool of (await client.listTools()).tools) seen.push([`tool ${tool.name}`, JSON.stringify(tool)]);
      for (const prompt of (await client.listPrompts()).prompts) {
        seen.push([`prompt ${prompt.name}`, JSON.stringify(prompt)]);
        const got = await client.getPrompt({ name: prompt.name, arguments: {} });
        seen.push([`prompt ${prompt.name} text`, JSON.stringify(got)]);
      }
      const calls = [['get_visual_results', {}], ['get_report', {}], ['list_baselines', {}]];
      for (const name of ['about', 'catalogue', 'home']) calls.push(['explain_snapshot', { name }], ['get_diff', { name }]);
      for (const [name, args] of calls) {
        const result = await client.callTool({ name, arguments: args });
        assert.ok(!result.isError, `${name}: ${result.content?.[0]?.text}`);
        const texts = result.content.filter((b) => b.type === 'text').map((b) => b.text);
        seen.push([`${name} ${JSON.stringify(args)}`, texts.join('\n')]);
      }
      assert.ok(seen.some(([, text]) => text.includes('New snapshot: no baseline yet')), 'the new snapshot was read');
      for (const [where, text] of seen) assert.doesNotMatch(text, BYPASS, where);
    });
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
