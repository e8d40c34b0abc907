// The types of `sightline/playwright` in a TypeScript project (issue 15, item 8): tests/types's
// spec type-checks under moduleResolution node10 (what `"module": "commonjs"` has meant), node16
// and bundler, in a fresh project whose node_modules link this checkout and its Playwright. The
// spec's @ts-expect-error lines make tsc fail if the matcher accepts a buffer or an unknown option.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const repo = new URL('..', import.meta.url).pathname;
const tsc = path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc');

const modes = {
  node10: { module: 'commonjs', moduleResolution: 'node10', ignoreDeprecations: '6.0' },
  node16: { module: 'node16', moduleResolution: 'node16' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
};

for (const [mode, compilerOptions] of Object.entries(modes)) {
  test(`types: the matcher type-checks for a Page or a Locator only, under moduleResolution ${mode}`, () => {
    const project = mkdtempSync(path.join(tmpdir(), `sightline-types-${mode}-`));
    try {
      cpSync(path.join(repo, 'tests', 'types', 'visual.spec.ts'), path.join(project, 'visual.spec.ts'));
      mkdirSync(path.join(project, 'node_modules', '@playwright'), { recursive: true });
      symlinkSync(path.join(repo, 'node_modules', '@playwright', 'test'), path.join(project, 'node_modules', '@playwright', 'test'));
      for (const dep of ['playwright', 'playwright-core']) symlinkSync(path.join(repo, 'node_modules', dep), path.join(project, 'node_modules', dep));
      symlinkSync(repo, path.join(project, 'node_modules', 'sightline'));
      writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'typed', private: true }));
      const tsconfig = { compilerOptions: { ...compilerOptions, target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['visual.spec.ts'] };
      writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
      const run = spawnSync(process.execPath, [tsc, '-p', project], { cwd: project, encoding: 'utf8' });
      assert.equal(run.status, 0, `tsc (${mode}):\n${run.stdout}${run.stderr}`);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
}
