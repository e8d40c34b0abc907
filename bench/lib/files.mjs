// File to file: each tool is a separate process that reads two PNGs, compares them and
// (in the first group) writes a diff PNG. Wall time of the whole process is what is timed,
// since decode and encode are most of what a CLI user waits for.
//
// Native tools are spawned directly rather than through their npm `bin` shims: the shims are
// Node scripts that spawn the binary again and would add ~40 ms of Node start-up to each.
// The pixelmatch CLI is itself a Node script, so it runs as its users run it.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { getBinaryPath as blazediffBinary } from '@blazediff/bin';

const require = createRequire(import.meta.url);

/** Runs a command; returns stdout, or throws with its stderr when the exit code is unexpected. */
function run(command, args, okCodes) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (result.error) throw result.error;
  if (!okCodes.includes(result.status)) {
    const detail = (result.stderr || result.stdout).trim().split('\n').slice(-3).join(' | ');
    throw new Error(`${path.basename(command)} exited ${result.status}: ${detail}`);
  }
  return result.stdout;
}

function matchCount(stdout, pattern, tool) {
  const match = pattern.exec(stdout);
  if (!match) throw new Error(`could not read a pixel count from ${tool}'s output: ${stdout.trim().slice(0, 200)}`);
  return Number(match[1]);
}

/** Finds the differing-pixel count in our JSON, wherever the CLI nests it. */
function findDiffPixels(value) {
  if (!value || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (/^diff_?pixels$/i.test(key) && typeof inner === 'number') return inner;
  }
  for (const inner of Object.values(value)) {
    const found = findDiffPixels(inner);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The `blazediff` crate's pinned version: its CLI (SIMD, libspng) is newer and faster than the
 *  npm package's binary. */
const BLAZEDIFF_CRATE = '6.0.2';

/**
 * The `blazediff` crate's CLI, installed once into `<workDir>/tools` with cargo (it builds
 * libspng and libjpeg-turbo: Debian needs `cmake` and `nasm`). `null`, with the reason printed,
 * when it cannot be built here: the other anchors are still measured.
 */
function blazediffCrate(workDir) {
  const root = path.join(workDir, 'tools', `blazediff-${BLAZEDIFF_CRATE}`);
  const bin = path.join(root, 'bin', 'blazediff');
  if (existsSync(bin)) return bin;
  console.log(`installing the blazediff crate ${BLAZEDIFF_CRATE} into ${root} (cargo; a few minutes, once) …`);
  const args = ['install', 'blazediff', '--version', BLAZEDIFF_CRATE, '--locked', '--root', root];
  const result = spawnSync('cargo', args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (result.status === 0 && existsSync(bin)) return bin;
  const why = result.error?.message ?? (result.stderr || '').trim().split('\n').slice(-2).join(' | ');
  console.log(`  blazediff crate not measured: cargo install failed (${why}); on Debian it needs: apt-get install -y cmake nasm`);
  return null;
}

function anchorTools(workDir) {
  const odiff = require('odiff-bin/binary.js').findBinary();
  const blazediff = blazediffBinary();
  const crate = blazediffCrate(workDir);
  const pixelmatchCli = path.join(path.dirname(require.resolve('pixelmatch')), 'bin', 'pixelmatch');
  return [
    {
      name: 'pixelmatch CLI (node)',
      kind: 'reference',
      // Positional: image1 image2 [diff] [threshold] [includeAA]; exit 66 = images differ.
      // Without a diff path the defaults apply, which are the same threshold 0.1, includeAA false.
      run: ({ a, b, out }) => {
        const args = [pixelmatchCli, a, b, ...(out ? [out, '0.1', 'false'] : [])];
        return { count: matchCount(run(process.execPath, args, [0, 66]), /different pixels: (\d+)/, 'pixelmatch') };
      },
    },
    {
      name: 'odiff (odiff-bin, native)',
      kind: 'anchor',
      // --antialiasing: AA pixels are not counted; exit 22 = pixel differences.
      run: ({ a, b, out }) => {
        const args = [a, b, ...(out ? [out] : []), '--threshold=0.1', '--antialiasing', '--parsable-stdout'];
        return { count: matchCount(run(odiff, args, [0, 22]), /^(\d+)/m, 'odiff') };
      },
    },
    {
      name: '@blazediff/bin (native)',
      kind: 'anchor',
      // -a: anti-aliasing detection on (AA pixels not counted); prints JSON; exit 1 = differ.
      run: ({ a, b, out }) => {
        const args = [a, b, ...(out ? [out] : []), '-t', '0.1', '-a'];
        return { count: JSON.parse(run(blazediff, args, [0, 1])).diffCount };
      },
    },
    ...(crate
      ? [
          {
            name: `blazediff (crate ${BLAZEDIFF_CRATE}, native)`,
            kind: 'anchor',
            // The npm binary's flags and JSON.
            run: ({ a, b, out }) => {
              const args = [a, b, ...(out ? [out] : []), '-t', '0.1', '-a'];
              return { count: JSON.parse(run(crate, args, [0, 1])).diffCount };
            },
          },
        ]
      : []),
  ];
}

function ourTool(bin) {
  return {
    name: 'sightline diff (CLI)',
    kind: 'ours',
    // Exit 0 equal / 1 different / 2 error; --json for the counts.
    run: ({ a, b, out }) => {
      const stdout = run(bin, ['diff', a, b, ...(out ? ['--out', out] : []), '--json'], [0, 1]);
      const count = findDiffPixels(JSON.parse(stdout));
      if (count === undefined) throw new Error(`no diffPixels in sightline's JSON: ${stdout.slice(0, 200)}`);
      return { count };
    },
  };
}

/** `base` decoded and encoded again by pngjs (other filters and compression), cached in `dir`. */
function reencoded(base, dir) {
  const file = path.join(dir, 'base-reencoded.png');
  if (!existsSync(file) || statSync(file).mtimeMs < statSync(base).mtimeMs) {
    const { PNG } = require('pngjs');
    writeFileSync(file, PNG.sync.write(PNG.sync.read(readFileSync(base)), { deflateLevel: 6 }));
  }
  return file;
}

/**
 * The file-to-file groups. `files` maps shot names to PNG paths; diff PNGs go to
 * `<workDir>/diffs/<tool>-<case>.png` (overwritten each run).
 */
export function fileGroups(files, cli, workDir) {
  const outDir = path.join(workDir, 'diffs');
  mkdirSync(outDir, { recursive: true });
  const tools = [...anchorTools(workDir), ...(cli.bin ? [ourTool(cli.bin)] : [])];
  // `identical` is a second page load that Chromium encoded to the same bytes, as an unchanged
  // page usually is; `re-encoded` has the same pixels in other bytes, so every tool decodes both.
  const pairs = [
    ['identical', files.identical],
    ['re-encoded', reencoded(files.base, outDir)],
    ['recolour', files.recolour],
    ['shift', files['shift-top']],
  ];
  // Each tool writes its own diff file, removed first (well under a millisecond) so every run
  // creates it afresh and a tool that skips writing it is noticed: odiff and blazediff write
  // nothing when the images match, which makes their identical case cheaper.
  const withOut = tools.map((tool) => ({
    ...tool,
    run: (c) => {
      const out = path.join(outDir, `${tool.name.split(' ')[0].replace(/\W/g, '')}-${c.name}.png`);
      rmSync(out, { force: true });
      const result = tool.run({ ...c, out });
      return existsSync(out) ? result : { ...result, note: 'wrote no diff PNG' };
    },
  }));
  const cases = pairs.map(([name, b]) => ({ name, a: files.base, b }));
  return [
    { title: 'file to file, writing the diff PNG', key: 'files-diff-png', cases, tools: withOut },
    { title: 'file to file, no diff image (verdict and count only)', key: 'files-count', cases, tools },
  ];
}
