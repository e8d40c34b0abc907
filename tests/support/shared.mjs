// Where the shared test corpora live, for every JS test: `$SIGHTLINE_SHARED/corpora/<name>`
// (default: the `shared` folder beside the repository), as the Rust tests find them
// (crates/core/tests/corpus.rs).
//
// A missing corpus is never a silent pass: outside CI the test is skipped with the reason, which
// node:test prints next to the test (`# SKIP …`); under CI it is an error, because CI must have
// every corpus.
import { existsSync } from 'node:fs';
import path from 'node:path';

const repo = new URL('../..', import.meta.url).pathname;

/** The folder holding `corpora/`: `$SIGHTLINE_SHARED`, else `<repo>/../shared`. */
export function sharedDir() {
  return path.resolve(process.env.SIGHTLINE_SHARED || path.join(repo, '..', 'shared'));
}

/**
 * The corpus `name` as `{ dir }`, or `{ skip }` with the reason to pass as node:test's
 * `{ skip }` when it is absent. A corpus is there when its `cases.json` is (like the Rust helper).
 * Throws under `CI` instead of skipping.
 * @param {string} name e.g. `pixelmatch`
 * @returns {{ dir: string, skip: false } | { dir: undefined, skip: string }}
 */
export function corpus(name) {
  const dir = path.join(sharedDir(), 'corpora', name);
  if (existsSync(path.join(dir, 'cases.json'))) return { dir, skip: false };
  const reason = `corpus ${name} absent at ${dir}: set SIGHTLINE_SHARED to the folder holding corpora/`;
  if (process.env.CI) throw new Error(`${reason} (CI must have every corpus)`);
  return { dir: undefined, skip: reason };
}
