// Scrolling containers (issue 39): `expect(locator).toMatchVisual(name, { fullPage: true })` on an
// element that scrolls captures its whole content, vertically and horizontally, with a sticky
// header once at its place; a change in a row hidden below the fold is caught and attributed to
// that row; the element is put back as it was. Real Playwright runs in a fresh project.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freshProject, run, skip, tempFolders } from './support/playwright-runs.mjs';
import { readPng } from './video/png.mjs';

const temps = tempFolders();

// #panel: 300 × 200, scrolling a 40 px sticky header and 20 rows of 40 px (840 px of content);
// #wide: 300 px wide, scrolling a 900 px row sideways; .list: the scrolling flex item of an app's
// 300 px column, three sections of a sticky 30 px header and five 30 px items. ROW is the row
// whose text turns red.
const spec = `
const page_ = \`<style>body { margin: 0; font: 16px sans-serif; }
  #panel { width: 300px; height: 200px; overflow: auto; border: 0; }
  #panel header { position: sticky; top: 0; height: 40px; background: #1e3a8a; color: white; }
  #panel .row { height: 40px; box-sizing: border-box; border-bottom: 1px solid #e5e7eb; background: #f8fafc; }
  #panel .row:nth-child(odd) { background: #ecfdf5; } /* rows 2, 4, … (the header is the first child) */
  #wide { width: 300px; overflow-x: auto; margin-top: 20px; }
  #wide div { width: 900px; height: 50px; background: linear-gradient(90deg, #fde68a, #60a5fa); }</style>
  <div id="panel"><header>Orders</header>\${Array.from({ length: 20 }, (_, i) => \`<div class="row" id="row-\${i + 1}" style="color: \${process.env.ROW === String(i + 1) ? '#dc2626' : '#111827'}">Order \${i + 1}</div>\`).join('')}</div>
  <div id="wide"><div>wide</div></div>
  <style>.app { display: flex; flex-direction: column; height: 300px; width: 300px; margin-top: 20px; }
  .app nav { height: 40px; background: #111827; } .list { flex: 1; min-height: 0; overflow-y: auto; }
  .list h3 { position: sticky; top: 0; margin: 0; height: 30px; background: #7c3aed; }
  .list p { margin: 0; height: 30px; background: #fef3c7; }</style>
  <div class="app"><nav></nav><div class="list">\${[1, 2, 3].map((n) => \`<section><h3>Group \${n}</h3>\${'<p>item</p>'.repeat(5)}</section>\`).join('')}</div></div>\`;

test('panel', async ({ page }) => {
  await page.setContent(page_);
  const panel = page.locator('#panel');
  await panel.evaluate((el) => { el.scrollTop = 100; });
  const before = await panel.evaluate((el) => el.getAttribute('style'));
  // Soft: the calls after it run when it fails.
  await expect.soft(panel).toMatchVisual('panel', { fullPage: true });
  // Put back as it was: scroll position and inline style.
  expect(await panel.evaluate((el) => [el.scrollTop, el.getAttribute('style')])).toEqual([100, before]);
  await expect(page.locator('#wide')).toMatchVisual('wide', { fullPage: true });
  // A flex item of an app's fixed-height column, with a sticky header in each section.
  await expect(page.locator('.list')).toMatchVisual('list', { fullPage: true });
  // Without fullPage in the call, the element's visible box, as before.
  await expect(panel).toMatchVisual('panel-view');
});
`;

test('scroll content: a scrolling panel\'s hidden rows are captured, and a change in one is caught and attributed', { skip }, () => {
  const root = freshProject(temps, spec, {
    config: {
      use: { viewport: { width: 400, height: 300 }, launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' } },
      reporter: [['line'], ['json', { outputFile: 'report.json' }], ['sightline/reporter']],
    },
    prefix: 'sightline-scroll-content-',
  });
  const approved = run(root, ['--update-snapshots=all']);
  assert.equal(approved.status, 0, approved.output);
  const baseline = (name) => readPng(path.join(root, '.sightline', 'baselines', name, 'chromium.png'));

  const panel = baseline('panel');
  assert.deepEqual([panel.width, panel.height], [300, 840], 'the whole content: header and 20 rows');
  assert.deepEqual(panel.pixel(290, 5).slice(0, 3), [30, 58, 138], 'the sticky header at the top');
  assert.deepEqual(panel.pixel(290, 45).slice(0, 3), [248, 250, 252], 'once: row 1 below it');
  assert.deepEqual(panel.pixel(290, 830).slice(0, 3), [236, 253, 245], 'row 20 at the bottom');
  const wide = baseline('wide');
  assert.deepEqual([wide.width, wide.height], [900, 50], 'sideways too');
  const list = baseline('list');
  assert.deepEqual([list.width, list.height], [300, 540], 'a flex item grows out of its column');
  for (const y of [5, 185, 365]) assert.deepEqual(list.pixel(150, y).slice(0, 3), [124, 58, 237], `each section's sticky header at its place (y=${y})`);
  for (const y of [45, 535]) assert.deepEqual(list.pixel(150, y).slice(0, 3), [254, 243, 199], `items below them (y=${y})`);
  const view = baseline('panel-view');
  assert.deepEqual([view.width, view.height], [300, 200], 'no fullPage: the visible box');

  // Row 18 is below the fold of the 200 px panel: its change is caught and attributed to it.
  const changed = run(root, [], { ROW: '18' });
  assert.equal(changed.status, 1, changed.output);
  const evidence = JSON.parse(readFileSync(path.join(root, '.sightline', 'temp', 'panel', 'chromium.json'), 'utf8'));
  assert.equal(evidence.status, 'changed');
  const regions = evidence.layers.pixel.regions;
  assert.equal(regions.length, 1, JSON.stringify(regions));
  const [region] = regions;
  assert.ok(region.y >= 40 + 17 * 40 && region.y + region.height <= 40 + 18 * 40, JSON.stringify(region));
  assert.ok(region.elements.some((e) => e.selector.includes('row-18')), JSON.stringify(region.elements));
  assert.match(changed.errors.panel, /row-18/);
  assert.equal(JSON.parse(readFileSync(path.join(root, '.sightline', 'temp', 'panel-view', 'chromium.json'), 'utf8')).status, 'passed', 'the visible box did not change');
});
