// The MCP server's two timed promises: `get_visual_results` on a 1000-snapshot run and `get_diff`
// on a 1280×12000 page, each called over stdio by the official SDK client against the release
// binary, as an agent would.
//
// The run is real, not a hand-written results.json: the addon records 1000 captures (baselines
// first, then a second run where some changed and some are new) and `writeResultsSync` writes the
// report. It is kept in bench/.work/mcp-project/ and rebuilt when the addon is newer.

import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { median } from './measure.mjs';

export const MCP_TITLE = 'MCP server over stdio (SDK client → target/release/sightline mcp)';

const SNAPSHOTS = 1000;
const CHANGED_EVERY = 25; // 40 changed snapshots
const NEW_EVERY = 100; // 10 new ones
const TALL = { name: 'catalogue-tall', height: 12000 };

/** A small distinct page image per snapshot: a header bar, blocks and a per-name tint. */
function smallPage(PNG, index, changed) {
  const png = new PNG({ width: 240, height: 160 });
  for (let y = 0; y < 160; y++) {
    for (let x = 0; x < 240; x++) {
      const at = (y * 240 + x) * 4;
      const header = y < 24;
      const block = y > 40 && (x % 60) < 48 && (y % 40) < 30;
      const tint = (index * 37) % 200;
      const recoloured = changed && block && x < 60;
      png.data[at] = header ? 30 : block ? (recoloured ? 220 : tint) : 250;
      png.data[at + 1] = header ? 40 : block ? 120 : 250;
      png.data[at + 2] = header ? 60 : block ? (recoloured ? 60 : 200) : 250;
      png.data[at + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

/** The 1280×10000 benchmark page made 12000 tall by repeating its first 2000 rows. */
function tallPage(PNG, file) {
  const source = PNG.sync.read(readFileSync(file));
  const png = new PNG({ width: source.width, height: TALL.height });
  const rowBytes = source.width * 4;
  source.data.copy(png.data, 0, 0, source.height * rowBytes);
  source.data.copy(png.data, source.height * rowBytes, 0, (TALL.height - source.height) * rowBytes);
  return PNG.sync.write(png);
}

function capture(addon, root, name, screenshot, updateSnapshots) {
  addon.compareCaptureSync({ root, name, project: 'bench', screenshot, updateSnapshots, runId: 'bench', testId: name });
}

/** Builds the project (two runs through the addon) unless a current one is cached. */
function buildProject(PNG, addon, addonFile, shots, dir) {
  const results = path.join(dir, 'visual-report', 'results.json');
  if (existsSync(results) && statSync(results).mtimeMs > statSync(addonFile).mtimeMs) return results;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tallBase = tallPage(PNG, shots.base);
  const tallChanged = tallPage(PNG, shots.recolour);
  // Run 1 approves every snapshot except the ones that will be new.
  for (let i = 0; i < SNAPSHOTS - 1; i++) {
    if (i % NEW_EVERY !== NEW_EVERY - 1) capture(addon, dir, `page-${i}`, smallPage(PNG, i, false), 'all');
  }
  capture(addon, dir, TALL.name, tallBase, 'all');
  rmSync(path.join(dir, '.sightline', 'temp'), { recursive: true, force: true });
  // Run 2: what a test run reports.
  for (let i = 0; i < SNAPSHOTS - 1; i++) {
    capture(addon, dir, `page-${i}`, smallPage(PNG, i, i % CHANGED_EVERY === 0), 'none');
  }
  capture(addon, dir, TALL.name, tallChanged, 'none');
  const summary = addon.writeResultsSync({ root: dir });
  if (summary.total !== SNAPSHOTS) throw new Error(`the bench project has ${summary.total} snapshots, expected ${SNAPSHOTS}`);
  return results;
}

async function timeTool(client, name, args, runs) {
  const call = async () => {
    const started = performance.now();
    const result = await client.callTool({ name, arguments: args });
    const ms = performance.now() - started;
    if (result.isError) throw new Error(`${name}: ${result.content?.[0]?.text}`);
    return { ms, result };
  };
  const warm = await call();
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push((await call()).ms);
  return { medianMs: median(samples), samples, warm: warm.result };
}

/**
 * Times both tools. Returns `{ rows, info }` or `{ missing }` when the binary or addon is absent.
 */
export async function mcpGroup({ workDir, shots, addon, cli, runs }) {
  if (cli.missing) return { missing: cli.missing };
  if (addon.missing) return { missing: addon.missing };
  const { PNG } = await import('pngjs');
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const dir = path.join(workDir, 'mcp-project');
  const resultsFile = buildProject(PNG, addon.addon, addon.file, shots, dir);
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));

  const transport = new StdioClientTransport({ command: cli.bin, args: ['--root', dir, 'mcp'], stderr: 'pipe' });
  const client = new Client({ name: 'sightline-bench', version: '1.0.0' });
  await client.connect(transport);
  try {
    const list = await timeTool(client, 'get_visual_results', {}, runs);
    const diff = await timeTool(client, 'get_diff', { name: TALL.name }, runs);
    const images = diff.warm.content.filter((block) => block.type === 'image').length;
    writeFileSync(path.join(dir, 'last-get-visual-results.txt'), list.warm.content[0].text);
    return {
      info: { snapshots: results.snapshots?.length ?? null, summary: results.summary ?? null, diffImages: images },
      rows: [
        { tool: 'get_visual_results', what: `${SNAPSHOTS} snapshots`, limitMs: 100, ...list, warm: undefined },
        { tool: 'get_diff', what: `1280×${TALL.height} page, ${images} images`, limitMs: 500, ...diff, warm: undefined },
      ],
    };
  } finally {
    await client.close();
  }
}
