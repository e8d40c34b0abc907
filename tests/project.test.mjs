// The matcher (in each worker) and the reporter (in Playwright's main process) must agree on
// where the project is and how a spec file is named: playwright-fixtures/project.js says each
// once, and neither front-end says it again. Whether a run is a capture-only shard is the core's
// (crates/core/src/session.rs, run_end.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { projectRoot, specFile } = require('../playwright-fixtures/project.js');
const fixtures = new URL('../playwright-fixtures/', import.meta.url).pathname;

test('project: the root is SIGHTLINE_ROOT, else the config file\'s folder, else rootDir', () => {
  const saved = process.env.SIGHTLINE_ROOT;
  try {
    delete process.env.SIGHTLINE_ROOT;
    assert.equal(projectRoot({ configFile: '/p/playwright.config.ts', rootDir: '/p/tests' }), '/p');
    assert.equal(projectRoot({ configFile: undefined, rootDir: '/p/tests' }), '/p/tests');
    process.env.SIGHTLINE_ROOT = 'out/../elsewhere';
    assert.equal(projectRoot({ configFile: '/p/playwright.config.ts', rootDir: '/p/tests' }), path.resolve('elsewhere'));
  } finally {
    if (saved === undefined) delete process.env.SIGHTLINE_ROOT;
    else process.env.SIGHTLINE_ROOT = saved;
  }
});

test('project: a spec file is named relative to rootDir with /', () => {
  assert.equal(specFile({ rootDir: '/p/tests' }, path.join('/p/tests', 'cart', 'checkout.spec.ts')), 'cart/checkout.spec.ts');
});

test('project: the matcher, the reporter and the ledger call project.js instead of saying its rules again', () => {
  for (const file of ['index.js', 'reporter.js', 'selection.js']) {
    const source = readFileSync(path.join(fixtures, file), 'utf8');
    for (const rule of ['SIGHTLINE_ROOT', 'configFile', 'capture-only', 'path.relative(']) {
      assert.ok(!source.includes(rule), `${file} says ${rule} itself`);
    }
  }
});
