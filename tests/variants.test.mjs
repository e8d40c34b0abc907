// Accepted variants (issue 39): a page with two legitimate states passes in both once a person
// accepts the second beside the baseline, and a third state fails against the closest accepted
// state, named. Real Playwright runs in a fresh project and the built `sightline` binary: approve
// --as-variant, the variants listing and removal, and the limit refused with nothing written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { freshProject, repo, run, skip, tempFolders } from './support/playwright-runs.mjs';
import { readPng } from './video/png.mjs';

const temps = tempFolders();

// A 400 × 200 page: a banner whose colour and text are the page's state (BANNER, SALE), a
// heading in INK.
const spec = `
test('home', async ({ page }) => {
  await page.setContent(\`<style>body { margin: 0; font: 16px sans-serif; }
  #banner { height: 60px; background: \${process.env.BANNER || '#2563eb'}; color: white; padding: 8px; box-sizing: border-box; }
  h1 { margin: 16px 8px; color: \${process.env.INK || '#111827'}; }</style>
  <div id="banner">\${process.env.SALE ? 'Winter sale: 20% off' : 'Welcome'}</div><h1>Lamps</h1>\`);
  await expect(page).toMatchVisual('home');
});
`;

const SALE = { BANNER: '#f97316', SALE: '1' };

test('variants: a two-state page passes in both once both are accepted, and a third fails against the closest', { skip }, () => {
  const root = freshProject(temps, spec, {
    config: {
      use: { viewport: { width: 400, height: 200 }, launchOptions: { executablePath: process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium' } },
      reporter: [['line'], ['json', { outputFile: 'report.json' }], ['sightline/reporter']],
    },
    prefix: 'sightline-variants-',
  });
  const bin = path.join(repo, 'target', 'release', 'sightline');
  const sightline = (...args) => spawnSync(bin, args, { cwd: root, encoding: 'utf8' });
  const folder = path.join(root, '.sightline', 'baselines', 'home');
  const evidence = () => JSON.parse(readFileSync(path.join(root, '.sightline', 'temp', 'home', 'chromium.json'), 'utf8'));

  assert.equal(run(root, ['--update-snapshots=all']).status, 0);
  // The sale state fails against the baseline, and is accepted beside it.
  const sale = run(root, [], SALE);
  assert.equal(sale.status, 1, sale.output);
  assert.equal(evidence().accepted, undefined, 'no variants yet: the plain evidence');
  let r = sightline('approve', 'home', '--as-variant');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'approved home (chromium) as accepted variant 1: created .sightline/baselines/home/chromium.variant-1.png\n');
  assert.deepEqual(readdirSync(folder).sort(), ['chromium.png', 'chromium.variant-1.png'], 'the baseline stays');
  r = sightline('approve', 'home', '--as-variant');
  assert.equal(r.status, 2, 'asked twice');
  assert.equal(r.stderr, 'sightline: home (chromium) is accepted variant 1 already: this capture\'s pixels are that variant\'s; nothing was written\n');

  // Both states pass; the second names the variant it matched.
  const plain = run(root, []);
  assert.equal(plain.status, 0, plain.output);
  assert.equal(evidence().accepted, undefined, 'the baseline matched: no variant was read');
  const onSale = run(root, [], SALE);
  assert.equal(onSale.status, 0, onSale.output);
  assert.deepEqual(evidence().accepted, { variant: 1, matched: true, states: 2 });
  assert.match(evidence().verdict, / — matches accepted variant 1$/);
  assert.equal(evidence().files.baseline, '.sightline/baselines/home/chromium.variant-1.png');

  // A third state (the sale with another heading colour) fails against the sale variant, the
  // closest, and says so; the report shows that variant as the image compared with.
  const third = run(root, [], { ...SALE, INK: '#dc2626' });
  assert.equal(third.status, 1, third.output);
  assert.match(third.errors.home, /compared with accepted variant 1, the closest of 2 accepted states/);
  assert.deepEqual(evidence().accepted, { variant: 1, matched: false, states: 2 });
  assert.equal(evidence().files.baseline, '.sightline/baselines/home/chromium.variant-1.png');
  const results = JSON.parse(readFileSync(path.join(root, 'visual-report', 'results.json'), 'utf8'));
  const shown = readPng(path.join(root, results.snapshots[0].files.baseline));
  assert.deepEqual(shown.pixel(300, 30).slice(0, 3), [249, 115, 22], 'the report shows the sale variant');
  assert.match(readFileSync(path.join(root, 'visual-report', 'index.html'), 'utf8'), /<b>Accepted variant 1<\/b>/);
  r = sightline('explain', 'home');
  assert.match(r.stdout, /compared with accepted variant 1, the closest of 2 accepted states/);

  // Listed; `sightline list` still lists baselines only.
  assert.equal(sightline('variants').stdout, 'home\tchromium\t1\t.sightline/baselines/home/chromium.variant-1.png\n');
  assert.equal(sightline('list').stdout, 'home\tchromium\n');

  // At the limit, a fifth state is refused and nothing is written.
  for (const n of [2, 3, 4]) copyFileSync(path.join(folder, 'chromium.variant-1.png'), path.join(folder, `chromium.variant-${n}.png`));
  const before = readdirSync(folder).sort();
  r = sightline('approve', 'home', '--as-variant');
  assert.equal(r.status, 2, r.stdout);
  assert.equal(
    r.stderr,
    'sightline: home (chromium) has 4 accepted variants already, the limit: remove one first (npx sightline variants home --remove <number>); nothing was written\n',
  );
  assert.deepEqual(readdirSync(folder).sort(), before);

  // Removing one frees its number, which the next acceptance takes.
  r = sightline('variants', 'home', '--remove', '3');
  assert.equal(r.stdout, 'removed .sightline/baselines/home/chromium.variant-3.png\n');
  r = sightline('variants', 'home', '--remove', '3');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /home has no accepted variant 3: its accepted variants are 1 \(chromium\), 2 \(chromium\), 4 \(chromium\)/);
  r = sightline('approve', 'home', '--as-variant');
  assert.equal(r.stdout, 'approved home (chromium) as accepted variant 3: created .sightline/baselines/home/chromium.variant-3.png\n');
  assert.equal(run(root, [], { ...SALE, INK: '#dc2626' }).status, 0, 'the third state is accepted now');
});
