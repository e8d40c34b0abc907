// `npm run example`: the bundled shop (examples/shop) through Sightline on a fresh machine.
// 1. approves baselines of the original site (a human would review them; here they are the
//    known-good pages), 2. runs the suite again against the site with planted changes, and
// 3. prints the verdicts from the report it leaves in examples/shop/visual-report/results.json:
// a style-only change (elements and from → to), a page shift, and a pass.
// SIGHTLINE_ROOT puts that output (.sightline/, visual-report/, and Playwright's test-results/)
// in another folder, as it does for any Sightline project, so tests can run the example in a
// temp folder of their own.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const repo = new URL('..', import.meta.url).pathname;
const shop = path.join(repo, 'examples', 'shop');
const root = process.env.SIGHTLINE_ROOT ? path.resolve(process.env.SIGHTLINE_ROOT) : shop;

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { cwd: repo, stdio: 'inherit', ...options });
  return r.status;
}

function must(status, what) {
  if (status !== 0) {
    console.error(`example: ${what} failed (exit ${status})`);
    process.exit(1);
  }
}

must(run('bash', ['scripts/setup.sh']), 'installing Chromium and npm packages');
if (!existsSync(path.join(repo, 'sightline.linux-x64-gnu.node'))) must(run('npm', ['run', '--silent', 'build:addon']), 'building the addon');

rmSync(path.join(root, '.sightline'), { recursive: true, force: true });
rmSync(path.join(root, 'visual-report'), { recursive: true, force: true });
const playwright = [path.join(repo, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '-c', path.join(shop, 'playwright.config.mjs')];
if (root !== shop) playwright.push('--output', path.join(root, 'test-results'));

console.error('\nexample: 1/2 approving baselines of the original shop');
must(run(process.execPath, [...playwright, '--update-snapshots=all'], { env: { ...process.env, EXAMPLE_VARIANT: 'original' } }), 'the baseline run');

console.error('\nexample: 2/2 the same suite against the shop with planted changes (failures expected)');
const changed = run(process.execPath, playwright, { env: { ...process.env, EXAMPLE_VARIANT: 'changed' } });
if (changed !== 1) {
  console.error(`example: expected the changed run to fail its visual checks (exit 1), got ${changed}`);
  process.exit(1);
}

const resultsPath = path.join(root, 'visual-report', 'results.json');
const results = JSON.parse(readFileSync(resultsPath, 'utf8'));
const shown = path.relative(repo, resultsPath);
console.log(`\nSightline report: ${shown.startsWith('..') ? resultsPath : shown}`);
const s = results.summary;
console.log(`${s.total} snapshots: ${s.passed} passed, ${s.changed} changed, ${s.new} new, ${s.missing} missing\n`);
for (const snap of results.snapshots) {
  console.log(`${snap.name} [${snap.status}] ${snap.verdict}`);
  for (const p of snap.layers?.dom?.styleChanges?.properties?.slice(0, 3) ?? []) {
    console.log(`    ${p.selector}  ${p.property}: ${p.from} → ${p.to}`);
  }
  if (snap.files?.diff) console.log(`    images: ${snap.files.baseline}, ${snap.files.current}, ${snap.files.diff}`);
}
if (s.changed + s.new > 0) {
  const project = path.relative(repo, root);
  const review = project.startsWith('..') ? root : project || '.';
  console.log(`\nReview and approve them in the browser: npx sightline --root ${review} review`);
}
