// The capture artifact next to the page's PNG: what `toMatchVisual` writes for every snapshot
// (an artifact) against what Playwright writes (a PNG encoded with pngjs), and reading it back
// against decoding the PNG in Rust, on the 1280×10000 benchmark page.
//
// The Rust timings come from `crates/core/examples/artifact_speed.rs` (built here in release);
// pngjs is timed in this process.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { median } from './measure.mjs';

export const ARTIFACT_TITLE = 'Capture artifact vs the page PNG (1280×10000 page)';

function rustTimings(root, file, runs) {
  const result = spawnSync('cargo', ['run', '--quiet', '--release', '-p', 'sightline-core', '--example', 'artifact_speed', '--', file, String(runs)], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  if (result.status !== 0) throw new Error(`artifact_speed failed: ${result.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return JSON.parse(result.stdout.trim().split('\n').pop());
}

function timeMs(runs, fn) {
  fn();
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    fn();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/** `{ rust: {...}, pngjsEncodeMs, pngjsDecodeMs }` or `{ error }`. */
export async function artifactGroup({ root, file, runs }) {
  try {
    const rust = rustTimings(root, file, runs);
    const { PNG } = await import('pngjs');
    const bytes = readFileSync(file);
    const decoded = PNG.sync.read(bytes);
    // pngjs is slow on a 51 MB page: fewer runs keep the group under a minute.
    const jsRuns = Math.max(1, Math.min(runs, 3));
    const pngjsEncodeMs = timeMs(jsRuns, () => PNG.sync.write(decoded));
    const pngjsDecodeMs = timeMs(jsRuns, () => PNG.sync.read(bytes));
    return { rust, pngjsEncodeMs, pngjsDecodeMs };
  } catch (error) {
    return { error: error.message };
  }
}
