// `sightline compare` over 200 snapshots, with one thread and with two: the merge job of a
// sharded CI run compares every capture in parallel, so the second core should nearly halve it.
//
// The project is made by the addon like a test run makes it: 200 baselines approved, then 200
// captures stored without comparing (a capture-only run), 20 of them recoloured. Pages are
// 1280×2000 slices of the benchmark page at different offsets, so no two neighbours are equal.
// Cached in bench/.work/batch-project/ and rebuilt when the addon is newer.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { median } from './measure.mjs';

export const BATCH_TITLE = '`sightline compare` over 200 snapshots (1280×2000 each), 1 vs 2 threads';

const SNAPSHOTS = 200;
const DISTINCT = 20;
const SLICE = 2000;
const CHANGED_EVERY = 10;

function slice(PNG, source, offset) {
  const png = new PNG({ width: source.width, height: SLICE });
  const rowBytes = source.width * 4;
  source.data.copy(png.data, 0, offset * rowBytes, (offset + SLICE) * rowBytes);
  return PNG.sync.write(png, { deflateLevel: 1 });
}

function buildProject(PNG, addon, addonFile, shots, dir) {
  const stamp = path.join(dir, 'built');
  if (existsSync(stamp) && statSync(stamp).mtimeMs > statSync(addonFile).mtimeMs) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const base = PNG.sync.read(readFileSync(shots.base));
  const recolour = PNG.sync.read(readFileSync(shots.recolour));
  const offsets = Array.from({ length: DISTINCT }, (_, i) => (i * 397) % (base.height - SLICE));
  const pages = offsets.map((offset) => slice(PNG, base, offset));
  const changed = offsets.map((offset) => slice(PNG, recolour, offset));
  const capture = (name, screenshot, updateSnapshots) => ({ root: dir, name, project: 'bench', screenshot, updateSnapshots });
  for (let i = 0; i < SNAPSHOTS; i++) addon.compareCaptureSync(capture(`page-${i}`, pages[i % DISTINCT], 'all'));
  rmSync(path.join(dir, '.sightline', 'temp'), { recursive: true, force: true });
  for (let i = 0; i < SNAPSHOTS; i++) {
    const page = i % CHANGED_EVERY === 0 ? changed[i % DISTINCT] : pages[i % DISTINCT];
    addon.storeCaptureSync(capture(`page-${i}`, page, 'none'));
  }
  writeFileSync(stamp, '');
}

function compareOnce(bin, dir, threads) {
  const started = performance.now();
  const result = spawnSync(bin, ['--root', dir, 'compare'], { encoding: 'utf8', env: { ...process.env, RAYON_NUM_THREADS: String(threads) } });
  const ms = performance.now() - started;
  // Exit 1 means "changes found", which this project has on purpose.
  if (result.status !== 1) throw new Error(`sightline compare exited ${result.status}: ${result.stderr.trim().split('\n').pop()}`);
  return { ms, summary: result.stdout.split('\n')[0] };
}

/** `{ oneMs, twoMs, speedup, summary }`, or `{ missing }` / `{ error }`. */
export async function batchGroup({ workDir, shots, addon, cli, runs }) {
  if (cli.missing) return { missing: cli.missing };
  if (addon.missing) return { missing: addon.missing };
  try {
    const { PNG } = await import('pngjs');
    const dir = path.join(workDir, 'batch-project');
    buildProject(PNG, addon.addon, addon.file, shots, dir);
    const warm = compareOnce(cli.bin, dir, 2);
    const one = [];
    const two = [];
    // Interleaved, like every other group, so background load hits both settings alike.
    for (let i = 0; i < runs; i++) {
      one.push(compareOnce(cli.bin, dir, 1).ms);
      two.push(compareOnce(cli.bin, dir, 2).ms);
    }
    const oneMs = median(one);
    const twoMs = median(two);
    return { oneMs, twoMs, speedup: oneMs / twoMs, summary: warm.summary, one, two };
  } catch (error) {
    return { error: error.message };
  }
}
