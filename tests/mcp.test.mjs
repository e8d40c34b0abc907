// `sightline mcp` end to end over stdio with the official SDK client: the tool listing
// (annotations, the approval marker and its switches), the review tools on the example shop's
// run, argument errors that leave the server serving, approval on a copy, groups of snapshots
// sharing one signal, and the explanations when there is no results.json — on real shards made
// by Playwright's --shard in both shard modes. The exact text of every read-only answer on the
// example run is pinned in tests/golden.test.mjs; here each behaviour is asserted on its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { APPROVAL_RULE, notRunYet, settle } from './support/mcp.mjs';
import { binary, callText, captureAboutUnhealthy, captureAboutUnsettled, freePort, playwright, pngSize, runExample, skipWithoutChromium as skip, tempRoot, twoProjectConfig, withClient } from './golden/run.mjs';

const temps = [];
function tempDir() {
  const dir = tempRoot('mcp');
  temps.push(dir);
  return dir;
}

// The example's run (approved baselines of the original shop, then the planted changes), in a
// temp root of this file's own.
let run;
let port;

/** A temp root holding a copy of the example's run (baselines, captures, report). */
function copyOfRun() {
  const root = tempDir();
  cpSync(path.join(run, '.sightline'), path.join(root, '.sightline'), { recursive: true });
  cpSync(path.join(run, 'visual-report'), path.join(root, 'visual-report'), { recursive: true });
  return root;
}

/** A checkout as CI has it: the committed baselines only, plus an optional config. */
function checkout(config) {
  const root = tempDir();
  cpSync(path.join(run, '.sightline', 'baselines'), path.join(root, '.sightline', 'baselines'), { recursive: true });
  if (config) writeFileSync(path.join(root, '.sightline', 'config.json'), JSON.stringify(config));
  return root;
}

const marker = 'anthropic/requiresUserInteraction';
const approveTools = ['approve_all', 'approve_snapshot'];

before(async () => {
  if (skip) return;
  port = await freePort();
  run = tempDir();
  runExample(run, port);
});

after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const approveDescriptions = {
  approve_all:
    'Promote every changed and new snapshot of the last run to its baseline. Call ONLY after a human has reviewed all of them and explicitly said to approve them all; never on your own judgement. Unhealthy or unsettled captures are held (listed, not approved) unless `includeUnhealthy` is true.',
  approve_snapshot:
    "Promote this run's capture of one snapshot to its approved baseline (every project, or only `project`). Call ONLY after a human has reviewed the change and explicitly said to approve it; never on your own judgement. Unhealthy or unsettled captures are held (listed, not approved) unless `includeUnhealthy` is true. With `asVariant` the baseline stays and the capture is added beside it as an accepted variant (another legitimate state of the page).",
};

test('mcp: tools/list carries annotations and the approval marker by default', { skip }, async () => {
  await withClient(run, [], async (client) => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    // The live-page tools (05-live-pages) are tested in tests/live.test.mjs; here only listed.
    const liveTools = [
      'capture_dom_state',
      'capture_visual_state',
      'compare_snapshots',
      'detect_flash',
      'detect_layout_shift',
      'get_console_logs',
      'measure_element',
      'ping',
      'submit_visual_response',
      'test_viewports',
      'verify_accessibility',
      'visual_check',
      'visual_verify',
    ];
    assert.deepEqual(
      Object.keys(byName).sort(),
      [
        'approve_all',
        'approve_snapshot',
        'capture_frames',
        'compare_designs',
        'compare_motion',
        'explain_snapshot',
        'extract_video_frames',
        'get_diff',
        'get_report',
        'get_snapshot_diff',
        'get_visual_results',
        'list_baselines',
        ...liveTools,
      ].sort(),
    );
    for (const name of ['compare_designs', 'compare_motion', 'explain_snapshot', 'get_diff', 'get_report', 'get_snapshot_diff', 'get_visual_results', 'list_baselines', ...liveTools]) {
      // capture_visual_state writes the files it returns; the others only read (or write scratch screenshots).
      assert.equal(byName[name].annotations?.readOnlyHint, name !== 'capture_visual_state', name);
      assert.equal(byName[name]._meta?.[marker], undefined, name);
    }
    for (const name of approveTools) {
      assert.deepEqual(
        byName[name].annotations,
        { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
        name,
      );
      assert.deepEqual(byName[name]._meta, { [marker]: true }, name);
      assert.equal(byName[name].description, approveDescriptions[name]);
    }
    assert.deepEqual(byName.explain_snapshot.inputSchema.required, ['name']);
  });
});

test('mcp: --no-approval-prompt and config mcpApprovalPrompt: false drop the marker; the flag wins', { skip }, async () => {
  const markers = async (root, flags) =>
    withClient(root, flags, async (client) => {
      const { tools } = await client.listTools();
      return tools.filter((t) => approveTools.includes(t.name)).map((t) => [t.name, t._meta?.[marker] ?? null, t.description]);
    });
  const expect = (mark) => approveTools.map((name) => [name, mark, approveDescriptions[name]]);
  // With the prompt off the descriptions still say to wait for a human.
  assert.deepEqual(await markers(run, ['--no-approval-prompt']), expect(null));
  const root = copyOfRun();
  writeFileSync(path.join(root, '.sightline', 'config.json'), JSON.stringify({ mcpApprovalPrompt: false }));
  assert.deepEqual(await markers(root, []), expect(null));
  assert.deepEqual(await markers(root, ['--approval-prompt']), expect(true));
});

test('mcp: get_visual_results, explain_snapshot, get_report and list_baselines read the run', { skip }, async () => {
  await withClient(run, [], async (client) => {
    const summary = (await callText(client, 'get_visual_results')).split('\n');
    const listed = (lines) => lines.filter((line) => line.startsWith('- ') && line.includes(' [')).map((line) => line.slice(0, line.indexOf(']') + 1));
    // Changed snapshots first; the passed one as a count, listed when asked for.
    assert.deepEqual(listed(summary), ['- catalogue (chromium) [changed]', '- home (chromium) [changed]']);
    assert.ok(summary.includes('- 1 passed snapshot not listed (includePassed: true lists them)'), summary.join('\n'));
    const all = (await callText(client, 'get_visual_results', { includePassed: true })).split('\n');
    assert.deepEqual(listed(all), ['- catalogue (chromium) [changed]', '- home (chromium) [changed]', '- about (chromium) [passed]']);
    // The counts add up: the snapshots of the run, then missing baselines apart.
    assert.match(summary[0], /^Sightline results \(.+\): 3 snapshots — 2 changed, 0 new, 1 passed \(0 auto-passed\); 0 missing baselines\.$/);
    // The two changes share no signal; home's 13 restyled elements are too many to group, so it
    // is named in the groups section instead.
    assert.deepEqual(summary.slice(summary.indexOf('Groups (snapshots sharing one signal; each still has its own line below):') + 1, summary.indexOf('Snapshots:') - 1), [
      '- style-only changes to more than 10 elements, not grouped (each restyled its own set of elements): home (chromium): 13 elements',
    ]);
    assert.deepEqual(summary.filter((line) => line.startsWith('- ') && line.includes(': /')), [
      `- HTML report: ${path.join(run, 'visual-report', 'index.html')}`,
      `- catalogue (chromium) diff: ${path.join(run, 'visual-report', 'images', 'catalogue', 'chromium-diff.png')}`,
      `- home (chromium) diff: ${path.join(run, 'visual-report', 'images', 'home', 'chromium-diff.png')}`,
    ]);
    assert.equal(
      summary.at(-1),
      'Approve only after a human confirms: call approve_snapshot (name, optional project) or approve_all only when the user has said to accept these changes; never approve on your own judgement.',
    );

    const home = JSON.parse(await callText(client, 'explain_snapshot', { name: 'home' }));
    assert.equal(home.status, 'changed');
    assert.equal(home.verdictKind, 'styleOnly');
    assert.equal(home.layers.dom.styleCheck, 'mismatch');
    assert.equal(home.layers.dom.styleChanges.count, 13);
    assert.equal(home.layers.dom.styleChanges.propertyCount, 43);
    assert.deepEqual(home.paths, {
      baseline: path.join(run, 'visual-report', 'images', 'home', 'chromium-baseline.png'),
      current: path.join(run, 'visual-report', 'images', 'home', 'chromium-current.png'),
      diff: path.join(run, 'visual-report', 'images', 'home', 'chromium-diff.png'),
    });
    assert.deepEqual(home.guidance, [
      'Style-only change: the DOM is identical and only computed styles changed (dom.styleChanges lists each from → to). It is real, not noise: confirm with a human that the restyle was intended before approving.',
      'dom.styleTrace names, for each restyled element, the rule its new value comes from (selector, stylesheet line, and the source file and line through a source map): open /styles.css:8, /styles.css:13. One token explains it: token --brand #2563eb → #dc2626 (<style> in /, line 2), used by 13 restyled elements.',
      'Approve only after a human confirms (approve_snapshot).',
    ]);
    const catalogue = JSON.parse(await callText(client, 'explain_snapshot', { name: 'catalogue', project: 'chromium' }));
    assert.deepEqual(catalogue.layers.pixel.shift, { dy: 60, belowY: 284 });
    assert.deepEqual(catalogue.guidance, [
      'Page shift: content below y=284 moved by 60 px, so most differing pixels are content that moved, not changed (76800 pixels still differ after undoing the shift). Look at what grew or was inserted above (dom.geometryChanges.resized).',
      'Approve only after a human confirms (approve_snapshot).',
    ]);
    const about = JSON.parse(await callText(client, 'explain_snapshot', { name: 'about' }));
    assert.deepEqual(about.guidance, ['Passed: nothing to review or approve.']);

    // get_report is the file itself, not a re-serialisation.
    assert.equal(await callText(client, 'get_report'), readFileSync(path.join(run, 'visual-report', 'results.json'), 'utf8'));

    // One line per baseline: name, project, the PNG's size on disk, its modification time.
    const baselines = (await callText(client, 'list_baselines')).split('\n');
    assert.equal(baselines[0], 'name\tproject\tbytes\tmodified');
    assert.deepEqual(
      baselines.slice(1).map((line) => line.split('\t')),
      ['about', 'catalogue', 'home'].map((name) => {
        const stat = statSync(path.join(run, '.sightline', 'baselines', name, 'chromium.png'));
        return [name, 'chromium', String(stat.size), new Date(Math.floor(stat.mtimeMs / 1000) * 1000).toISOString().replace('.000Z', 'Z')];
      }),
    );
  });
});

/** The images of a get_diff answer, each with the text block just before it. */
function imagesOf(result) {
  assert.equal(result.isError, false, result.content?.[0]?.text);
  return result.content.flatMap((block, i) => {
    if (block.type !== 'image') return [];
    assert.equal(block.mimeType, 'image/png');
    const before = result.content[i - 1];
    assert.equal(before?.type, 'text', `image ${i} is preceded by a text block`);
    return [{ label: before.text, ...pngSize(block.data) }];
  });
}

test('mcp: get_diff sends readable whole-page images, the regions and native-scale crops', { skip }, async () => {
  await withClient(run, [], async (client) => {
    const result = await client.callTool({ name: 'get_diff', arguments: { name: 'catalogue' } });
    const images = imagesOf(result);
    // The 1280×3280 → 1280×3340 page downscaled to fit 1568 px (03-mcp.md), then the three
    // crops of its first changes at native scale, each as baseline, current and diff. Below the
    // shift line (y=284) the baseline is cut 60 px higher, where the content was.
    const crop = (n, y, height, regions) =>
      ['baseline', 'current', 'diff'].map((kind) => {
        const label = `Crop ${n} of 3: page x=0 y=${y} 1280×${height} at native scale, regions ${regions} — ${kind}`;
        const moved = kind === 'baseline' && y >= 284;
        const where = `, cut at y=${y - 60} where this content was before the page shift (content below y=284 moved down 60 px), so it shows the same content as the others`;
        return [moved ? label + where : label, 1280, height];
      });
    assert.deepEqual(
      images.map((i) => [i.label, i.width, i.height]),
      [
        ['baseline, whole page 1280×3280 shown at 0.47 scale (600×1539)', 600, 1539],
        ['current, whole page 1280×3340 shown at 0.47 scale (600×1568)', 600, 1568],
        ['diff, whole page 1280×3340 shown at 0.47 scale (600×1568)', 600, 1568],
        ...crop(1, 252, 124, '0'),
        ...crop(2, 439, 236, '1, 2, 3, 4, 5, 6, 7, 8, 9'),
        ...crop(3, 743, 236, '10, 11, 12, 13, 14, 15, 16, 17, 18'),
      ],
    );
    const texts = result.content.filter((b) => b.type === 'text').map((b) => b.text);
    // The regions block: the first 20 in results order, then how many more.
    const regions = texts.find((t) => t.startsWith('Regions')).split('\n');
    assert.equal(regions.length, 22);
    assert.equal(regions[0], 'Regions (59 in all, index: box, classification, first selector):');
    assert.equal(regions[1], '0: x=0 y=284 1280×60, change, #catalogue-hero');
    assert.equal(regions[21], '… 39 more (see explain_snapshot)');
    assert.equal(
      texts.at(-1),
      'Not cropped (at most 3 crops): regions 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58.\nSee one with get_diff region: <index>, or a band with y: <page row>.',
    );

    const alias = await client.callTool({ name: 'get_snapshot_diff', arguments: { name: 'catalogue' } });
    assert.deepEqual(alias.content, result.content, 'the alias answers the same');
  });
});

test('mcp: get_diff with region or a band returns only that crop', { skip }, async () => {
  await withClient(run, [], async (client) => {
    const region = imagesOf(await client.callTool({ name: 'get_diff', arguments: { name: 'home', region: 0 } }));
    // Region 0 (the hero button, 124×44 at 32,208) plus 32 px around it, widened to the page.
    assert.deepEqual(
      region.map((i) => [i.label, i.width, i.height]),
      ['baseline', 'current', 'diff'].map((kind) => [`Crop of region: page x=0 y=176 1280×108 at native scale, regions 0 — ${kind}`, 1280, 108]),
    );
    const band = imagesOf(await client.callTool({ name: 'get_diff', arguments: { name: 'catalogue', y: 0, height: 500 } }));
    assert.deepEqual(
      band.map((i) => [i.label, i.width, i.height]),
      ['baseline', 'current', 'diff'].map((kind) => [`Band: page x=0 y=0 1280×500 at native scale — ${kind}`, 1280, 500]),
    );
    // Below the shift line the baseline is cut where the content was, so both crops show the same
    // content: on this pure shift, the same pixels.
    const shifted = await client.callTool({ name: 'get_diff', arguments: { name: 'catalogue', y: 1000, height: 300 } });
    const [baselineCrop, currentCrop] = shifted.content.filter((b) => b.type === 'image');
    assert.equal(
      imagesOf(shifted)[0].label,
      'Band: page x=0 y=1000 1280×300 at native scale — baseline, cut at y=940 where this content was before the page shift (content below y=284 moved down 60 px), so it shows the same content as the others',
    );
    assert.equal(baselineCrop.data, currentCrop.data, 'the shifted baseline crop is the current crop');

    const outOfRange = await client.callTool({ name: 'get_diff', arguments: { name: 'home', region: 999 } });
    assert.equal(outOfRange.isError, true);
    assert.equal(outOfRange.content.length, 1);
    assert.equal(outOfRange.content[0].text.split('\n')[1], 'region 999 does not exist: this snapshot has 13 region(s) (indices from 0).');
    const unknown = await client.callTool({ name: 'get_diff', arguments: { name: 'nope' } });
    assert.deepEqual([unknown.isError, unknown.content[0].text], [true, 'no snapshot named "nope" in the last run; its snapshots are: about, catalogue, home']);
    // A band of no rows is refused, not quietly widened to one row.
    assert.deepEqual(await settle(client.callTool({ name: 'get_diff', arguments: { name: 'catalogue', y: 100, height: 0 } })), {
      isError: true,
      text: 'height: a band has at least 1 row',
    });
  });
});

test('mcp: bad arguments are errors and the server keeps serving', { skip }, async () => {
  await withClient(run, [], async (client) => {
    // Refused before the tool runs, naming what is wrong: the tool's error (isError), which a client
    // hands to the model (MCP 2025-11-25, SEP-1303). Only an unknown tool is a JSON-RPC error.
    assert.deepEqual(await settle(client.callTool({ name: 'explain_snapshot', arguments: { name: '../x' } })), {
      isError: true,
      text: `name: snapshot name "../x" contains '..'; use letters, digits, '-', '_' and '.', with '/' between folders, e.g. "checkout-page" or "cards/lamp"`,
    });
    assert.deepEqual(await settle(client.callTool({ name: 'explain_snapshot', arguments: { name: 42 } })), {
      isError: true,
      text: 'explain_snapshot: argument "name" must be string, got 42',
    });
    assert.deepEqual(await settle(client.callTool({ name: 'get_diff', arguments: { name: 'home', region: 'two' } })), {
      isError: true,
      text: 'get_diff: argument "region" must be integer or null, got "two"',
    });
    const { tools } = await client.listTools();
    assert.deepEqual(await settle(client.callTool({ name: 'no_such_tool', arguments: {} })), {
      code: -32602,
      text: `MCP error -32602: unknown tool "no_such_tool"; the tools are ${tools.map((t) => t.name).join(', ')}`,
    });
    // A missing required argument, and one the tool does not take (dropped by the tool's own
    // parsing, it would leave the call on its defaults without a word), are named the same way.
    assert.deepEqual(await settle(client.callTool({ name: 'approve_snapshot', arguments: {} })), {
      isError: true,
      text: 'approve_snapshot: argument "name" is required (string)',
    });
    assert.deepEqual(await settle(client.callTool({ name: 'get_visual_results', arguments: { include_passed: true } })), {
      isError: true,
      text: 'get_visual_results: unknown argument "include_passed" (did you mean "includePassed"?); its arguments are includePassed',
    });
    assert.deepEqual(await settle(client.callTool({ name: 'get_diff', arguments: { name: 'home', crop: 1 } })), {
      isError: true,
      text: 'get_diff: unknown argument "crop"; its arguments are height, name, project, region, y',
    });
    assert.deepEqual(await settle(client.callTool({ name: 'get_report', arguments: { raw: true } })), {
      isError: true,
      text: 'get_report: unknown argument "raw"; get_report takes no arguments',
    });
    assert.deepEqual(await settle(client.callTool({ name: 'explain_snapshot', arguments: { name: 'nope' } })), {
      isError: true,
      text: 'no snapshot named "nope" in the last run; its snapshots are: about, catalogue, home',
    });
    assert.deepEqual(await settle(client.callTool({ name: 'explain_snapshot', arguments: { name: 'home', project: 'firefox' } })), {
      isError: true,
      text: 'no snapshot named "home" for project "firefox" in the last run; "home" is in project chromium; give that project, or leave project out',
    });
    // get_diff answers the same: the list of names would hold the very name it was given.
    assert.deepEqual(await settle(client.callTool({ name: 'get_diff', arguments: { name: 'catalogue', project: 'webkit' } })), {
      isError: true,
      text: 'no snapshot named "catalogue" for project "webkit" in the last run; "catalogue" is in project chromium; give that project, or leave project out',
    });
    assert.match(await callText(client, 'get_visual_results'), /^- home \(chromium\) \[changed\]/m, 'still serving');
  });
});

test('mcp: a malformed results.json is an error naming the file, and nothing is written', { skip }, async () => {
  const root = copyOfRun();
  const results = path.join(root, 'visual-report', 'results.json');
  writeFileSync(results, '{"snapshots": [');
  const baselines = Object.fromEntries(['home', 'catalogue', 'about'].map((name) => [name, readFileSync(path.join(root, '.sightline', 'baselines', name, 'chromium.png'))]));
  const message = `${results}: not valid JSON (EOF while parsing a list at line 1 column 15); run the tests again to rewrite it`;
  await withClient(root, [], async (client) => {
    await assertNoResults(client, message);
  });
  assert.equal(readFileSync(results, 'utf8'), '{"snapshots": [');
  for (const [name, bytes] of Object.entries(baselines)) {
    assert.ok(readFileSync(path.join(root, '.sightline', 'baselines', name, 'chromium.png')).equals(bytes), `${name} baseline untouched`);
  }
});

/** Whether two PNGs hold the same pixels, by `sightline diff` (exit 0: equal, 1: different). */
function samePixels(a, b) {
  const diff = spawnSync(binary, ['diff', a, b], { encoding: 'utf8' });
  assert.ok(diff.status === 0 || diff.status === 1, diff.stdout + diff.stderr);
  return diff.status === 0;
}

test('mcp: approve_snapshot writes the baseline', { skip }, async () => {
  const root = copyOfRun();
  const baseline = path.join(root, '.sightline', 'baselines', 'home', 'chromium.png');
  const current = path.join(root, 'visual-report', 'images', 'home', 'chromium-current.png');
  const old = new Date('2020-01-01T00:00:00Z');
  utimesSync(baseline, old, old);
  assert.equal(samePixels(baseline, current), false);
  await withClient(root, [], async (client) => {
    assert.equal(await callText(client, 'approve_snapshot', { name: 'home' }), 'approved home (chromium): replaced .sightline/baselines/home/chromium.png');
  });
  assert.ok(statSync(baseline).mtimeMs > old.getTime());
  assert.equal(samePixels(baseline, current), true, 'the baseline now holds the changed capture');
});

// A fork may commit a symbolic link under .sightline (issue 34): neither approve tool writes
// through one out of the project; the refusal names the link and the other snapshots go on.
test('mcp: approve_snapshot and approve_all never write through a symbolic link out of the project', { skip }, async () => {
  const root = copyOfRun();
  const outside = tempDir();
  const folder = path.join(root, '.sightline', 'baselines', 'home');
  cpSync(folder, path.join(outside, 'home'), { recursive: true });
  rmSync(folder, { recursive: true });
  symlinkSync(path.join(outside, 'home'), folder);
  const files = () => readdirSync(outside, { recursive: true }).sort().map((f) => [f, statSync(path.join(outside, f)).isFile() ? readFileSync(path.join(outside, f)).toString('base64') : 'folder']);
  const before = files();
  const refused = `${folder} is a symbolic link to ${path.join(outside, 'home')}, outside the project ${root}; nothing was written. Replace the link with a folder or file of the project (e.g. \`git checkout -- .sightline/baselines/home\`)`;
  await withClient(root, [], async (client) => {
    assert.deepEqual(await settle(client.callTool({ name: 'approve_snapshot', arguments: { name: 'home' } })), { isError: true, text: refused });
    const all = await settle(client.callTool({ name: 'approve_all', arguments: {} }));
    assert.equal(all.isError, true);
    assert.deepEqual(all.text.split('\n').sort(), ['approved catalogue (chromium): replaced .sightline/baselines/catalogue/chromium.png', `not approved: ${refused}`]);
  });
  assert.deepEqual(files(), before, 'nothing outside the project changed');
});

// A damaged file is its snapshot's result (issue 34): get_visual_results lists it as an error
// with the file and the fix, a damaged capture is never approved, and the others go on.
test('mcp: a damaged baseline or capture is listed as an error, and a damaged capture is never approved', { skip }, async () => {
  const root = copyOfRun();
  const cut = (file) => writeFileSync(file, readFileSync(file).subarray(0, 40));
  cut(path.join(root, '.sightline', 'baselines', 'about', 'chromium.png'));
  const capture = path.join(root, '.sightline', 'temp', 'catalogue', 'chromium.slcap');
  cut(capture);
  const damagedCapture = readFileSync(capture);
  const compare = spawnSync(binary, ['--root', root, 'compare'], { encoding: 'utf8' });
  assert.equal(compare.status, 2, compare.stdout + compare.stderr);
  await withClient(root, [], async (client) => {
    const summary = (await callText(client, 'get_visual_results')).split('\n');
    const line = (name) => summary.find((l) => l.startsWith(`- ${name} (chromium) [`)) ?? '';
    assert.match(line('about'), /^- about \(chromium\) \[error\]: Cannot compare: the baseline \.sightline\/baselines\/about\/chromium\.png is damaged \(.+\); restore it with `git checkout -- \.sightline\/baselines\/about\/chromium\.png`, or approve this run's capture to replace it$/);
    assert.match(line('catalogue'), /^- catalogue \(chromium\) \[error\]: Cannot compare: the capture \.sightline\/temp\/catalogue\/chromium\.slcap is damaged \(.+\); run the tests again with this sightline to capture it anew/);
    assert.match(line('home'), /^- home \(chromium\) \[changed\]: /);
    const refused = await settle(client.callTool({ name: 'approve_snapshot', arguments: { name: 'catalogue' } }));
    assert.equal(refused.isError, true);
    assert.match(refused.text, /^catalogue \(chromium\) error in the last run \(.+results\.json\): nothing to approve\. Cannot compare: the capture \.sightline\/temp\/catalogue\/chromium\.slcap is damaged \(.+\); run the tests again with this sightline to capture it anew/);
    // Approving the snapshot whose baseline is damaged replaces it, and says so.
    assert.match(await callText(client, 'approve_snapshot', { name: 'about' }), /^approved about \(chromium\): replaced \.sightline\/baselines\/about\/chromium\.png, a damaged baseline \(/);
  });
  assert.ok(readFileSync(capture).equals(damagedCapture), 'the damaged capture is left as it was');
});

test('mcp: approve_all replaces the baseline of every changed snapshot and leaves the rest', { skip }, async () => {
  const root = copyOfRun();
  const baseline = (name) => path.join(root, '.sightline', 'baselines', name, 'chromium.png');
  const current = (name) => path.join(root, 'visual-report', 'images', name, 'chromium-current.png');
  const about = readFileSync(baseline('about'));
  await withClient(root, [], async (client) => {
    const text = await callText(client, 'approve_all');
    assert.deepEqual(text.split('\n').sort(), [
      'approved catalogue (chromium): replaced .sightline/baselines/catalogue/chromium.png',
      'approved home (chromium): replaced .sightline/baselines/home/chromium.png',
    ]);
  });
  assert.equal(samePixels(baseline('home'), current('home')), true);
  assert.equal(samePixels(baseline('catalogue'), current('catalogue')), true);
  assert.ok(readFileSync(baseline('about')).equals(about), 'the passed snapshot is untouched');
});

/**
 * approve_all on `root`, where the run's about capture is held for `reason`: it lists the held
 * capture beside the two it approves and leaves about's baseline alone; approve_snapshot by name
 * holds it too (an error result), and approves it only with includeUnhealthy.
 */
async function assertAboutHeld(root, reason) {
  const baseline = path.join(root, '.sightline', 'baselines', 'about', 'chromium.png');
  const about = readFileSync(baseline);
  const held = `held about (chromium): ${reason}; not approved, its baseline is unchanged (includeUnhealthy approves it only when the human asks for this capture as it is)`;
  await withClient(root, [], async (client) => {
    const text = await callText(client, 'approve_all');
    assert.deepEqual(text.split('\n').sort(), [
      'approved catalogue (chromium): replaced .sightline/baselines/catalogue/chromium.png',
      'approved home (chromium): replaced .sightline/baselines/home/chromium.png',
      held,
    ]);
    assert.ok(readFileSync(baseline).equals(about), 'the held capture left its baseline alone');
    // Asked for by name, it is still held; nothing written is an error result.
    assert.deepEqual(await settle(client.callTool({ name: 'approve_snapshot', arguments: { name: 'about' } })), { isError: true, text: held });
    assert.equal(
      await callText(client, 'approve_snapshot', { name: 'about', includeUnhealthy: true }),
      'approved about (chromium): replaced .sightline/baselines/about/chromium.png',
    );
  });
}

test('mcp: approve_snapshot with asVariant keeps the baseline and adds the capture beside it, once', { skip }, async () => {
  const root = copyOfRun();
  const baseline = path.join(root, '.sightline', 'baselines', 'home', 'chromium.png');
  const before = readFileSync(baseline);
  await withClient(root, [], async (client) => {
    assert.equal(
      await callText(client, 'approve_snapshot', { name: 'home', asVariant: true }),
      'approved home (chromium) as accepted variant 1: created .sightline/baselines/home/chromium.variant-1.png',
    );
    assert.deepEqual(await settle(client.callTool({ name: 'approve_snapshot', arguments: { name: 'home', asVariant: true } })), {
      isError: true,
      text: "home (chromium) is accepted variant 1 already: this capture's pixels are that variant's; nothing was written",
    });
  });
  assert.ok(readFileSync(baseline).equals(before), 'the baseline is kept');
  assert.equal(samePixels(path.join(root, '.sightline', 'baselines', 'home', 'chromium.variant-1.png'), path.join(root, 'visual-report', 'images', 'home', 'chromium-current.png')), true);
});

test('mcp: approve_all holds an unhealthy capture, lists it, and approves it only when asked', { skip }, async () => {
  const root = copyOfRun();
  await assertAboutHeld(root, captureAboutUnhealthy(root));
});

test('mcp: approve_all and approve_snapshot hold a capture whose page never settled, as an unhealthy one', { skip }, async () => {
  const root = copyOfRun();
  await assertAboutHeld(root, captureAboutUnsettled(root));
});

test('mcp: approve_snapshot approves only a changed or new snapshot of the last run, in the capture its report shows', { skip }, async () => {
  // A literal-minded or hostile client: words of its own, a capture the run never reported, a
  // passed snapshot, and a capture a newer run wrote after the report the human reviewed.
  const root = copyOfRun();
  const temp = (name) => path.join(root, '.sightline', 'temp', name, 'chromium.slcap');
  const baseline = (name) => path.join(root, '.sightline', 'baselines', name, 'chromium.png');
  const before = Object.fromEntries(['home', 'catalogue', 'about'].map((name) => [name, readFileSync(baseline(name))]));
  const results = path.join(root, 'visual-report', 'results.json');
  // A capture of a snapshot the last run does not list (a new run under way, or stopped).
  mkdirSync(path.dirname(temp('ghost')), { recursive: true });
  cpSync(temp('home'), temp('ghost'));
  // home captured again by a newer run: pixels no one has seen (catalogue's, here).
  const reviewed = readFileSync(temp('home'));
  cpSync(temp('catalogue'), temp('home'));
  const newer =
    "home (chromium): the capture in .sightline/temp is not the one the last run's report shows (visual-report/images/home/chromium-current.png); a newer run has captured it (under way, or stopped before writing its report). Nothing was approved: review that run's results first";
  await withClient(root, [], async (client) => {
    assert.deepEqual(await settle(client.callTool({ name: 'approve_snapshot', arguments: { name: 'catalogue', confirmed: false } })), {
      isError: true,
      text: 'approve_snapshot: unknown argument "confirmed"; its arguments are asVariant, includeUnhealthy, name, project',
    });
    assert.deepEqual(await settle(client.callTool({ name: 'approve_all', arguments: { userSaid: 'no' } })), {
      isError: true,
      text: 'approve_all: unknown argument "userSaid"; its arguments are includeUnhealthy',
    });
    assert.deepEqual(await settle(client.callTool({ name: 'approve_snapshot', arguments: { name: 'ghost' } })), {
      isError: true,
      text: `ghost is not a snapshot of the last run (${results}); nothing was approved. Only a changed or new snapshot the human reviewed can be approved`,
    });
    assert.deepEqual(await settle(client.callTool({ name: 'approve_snapshot', arguments: { name: 'about' } })), {
      isError: true,
      text: `about (chromium) passed in the last run (${results}): nothing to approve`,
    });
    assert.deepEqual(await settle(client.callTool({ name: 'approve_snapshot', arguments: { name: 'home' } })), { isError: true, text: newer });
    // approve_all approves what still is as reviewed and refuses the rest, naming it.
    const all = await settle(client.callTool({ name: 'approve_all', arguments: {} }));
    assert.equal(all.isError, true);
    assert.deepEqual(all.text.split('\n').sort(), [
      'approved catalogue (chromium): replaced .sightline/baselines/catalogue/chromium.png',
      `not approved: ${newer}`,
    ]);
    for (const name of ['home', 'about']) assert.ok(readFileSync(baseline(name)).equals(before[name]), `${name} baseline untouched`);
    assert.equal(existsSync(baseline('ghost')), false, 'no ghost baseline');
    // The capture the report shows again: approved.
    writeFileSync(temp('home'), reviewed);
    assert.equal(await callText(client, 'approve_snapshot', { name: 'home' }), 'approved home (chromium): replaced .sightline/baselines/home/chromium.png');
  });
});

/**
 * How every results tool answers when there is no run to read: flagged as an error, saying why;
 * get_visual_results closes with the approval rule, as its every reply does.
 */
async function assertNoResults(client, why) {
  for (const [tool, args] of [['get_visual_results', {}], ['get_report', {}], ['explain_snapshot', { name: 'home' }], ['get_diff', { name: 'home' }]]) {
    const text = tool === 'get_visual_results' ? `${why}\n\n${APPROVAL_RULE}` : why;
    assert.deepEqual(await settle(client.callTool({ name: tool, arguments: args })), { isError: true, text }, tool);
  }
  assert.deepEqual(await settle(client.callTool({ name: 'approve_all', arguments: {} })), { isError: true, text: `Nothing to approve. ${why}` });
}

test('mcp: with nothing run, the tools say the tests have not run yet', async () => {
  const root = tempDir();
  await withClient(root, [], async (client) => {
    await assertNoResults(client, notRunYet);
    assert.equal(await callText(client, 'list_baselines'), `No baselines in ${path.join(root, '.sightline', 'baselines')}. They are written when a human approves a run's captures.`);
  });
});

test('mcp: a typo in .sightline/config.json still lets the client connect; the project tools name the file and the key, and a fix applies without a restart', async () => {
  const root = tempDir();
  mkdirSync(path.join(root, '.sightline'), { recursive: true });
  const config = path.join(root, '.sightline', 'config.json');
  writeFileSync(config, JSON.stringify({ treshold: 0.2 }));
  await withClient(root, [], async (client) => {
    assert.deepEqual(client.getServerVersion(), { name: 'sightline', title: 'Sightline', version: '0.1.0' });
    // Unreadable, the config cannot turn the approval prompt off.
    const { tools } = await client.listTools();
    for (const name of approveTools) assert.equal(tools.find((t) => t.name === name)._meta?.[marker], true, name);
    const why = `${config}: unknown key "treshold" (did you mean "threshold"?); known keys are reportDir, threshold, antialiasing, maxDiffPixels, maxDiffPixelRatio, noiseAutoPass, strictRendering, fullPage, mask, ignoreSelectors, ignoreRegions, maskColor, mcpApprovalPrompt, styleProperties, writeMissingBaselines, shardMode, animations, caret, scale, omitBackground, stylePath, waitForImages, waitForAriaBusy, waitForRequests, ignoreRequests, hideScrollbars, clearHover, baselinePath. The MCP server keeps running: the tools that read the project answer once the file is fixed.`;
    await assertNoResults(client, why);
    for (const [tool, args] of [['list_baselines', {}], ['approve_snapshot', { name: 'home' }]]) {
      assert.deepEqual(await settle(client.callTool({ name: tool, arguments: args })), { isError: true, text: why }, tool);
    }
    writeFileSync(config, JSON.stringify({ threshold: 0.2 }));
    assert.deepEqual(await settle(client.callTool({ name: 'get_visual_results', arguments: {} })), { isError: true, text: `${notRunYet}\n\n${APPROVAL_RULE}` });
  });
});

// Real shards, made as CI makes them (docs/ci-sharding.md): a checkout with the committed
// baselines runs `playwright test --shard=1/2`. The 3 fully-parallel tests split in file order,
// so shard 1 runs `home page` and `catalogue`, both changed.
function shard(config) {
  const root = checkout(config);
  const shardRun = playwright(root, { variant: 'changed', port, args: ['--fully-parallel', '--shard=1/2'] });
  return { root, status: shardRun.status, output: shardRun.output };
}

test('mcp: a capture-only shard explains why it has no results', { skip }, async () => {
  const { root, status, output } = shard({ shardMode: 'capture-only' });
  assert.equal(status, 0, `a capture-only shard compares nothing, so it fails nothing\n${output}`);
  const why =
    "No results at visual-report/results.json because this is capture-only shard 1/2. 2 captures are in .sightline/temp/, but no comparison ran here — a shard sees only its slice of the suite. The job that merges every shard produces the report (npx sightline compare --captures <each shard's .sightline/temp>).";
  await withClient(root, [], async (client) => assertNoResults(client, why));
});

test('mcp: a comparing shard says its results are partial, and its upload alone says which shard it was', { skip }, async () => {
  const { root, status, output } = shard();
  assert.equal(status, 1, `the shard's own changed snapshots fail its tests\n${output}`);
  await withClient(root, [], async (client) => {
    const summary = (await callText(client, 'get_visual_results')).split('\n');
    assert.deepEqual(summary.slice(1, 9), [
      'Partial results: shard 1/2 compared only its slice (2 snapshots). The job that merges every shard (npx sightline merge) produces the full report; only it can tell missing baselines.',
      '',
      'Groups (snapshots sharing one signal; each still has its own line below):',
      '- style-only changes to more than 10 elements, not grouped (each restyled its own set of elements): home (chromium): 13 elements',
      '',
      'Snapshots:',
      '- catalogue (chromium) [changed]: Page shift: content below y=284 moved down 60 px (#catalogue-hero grew by 60 px)',
      '- home (chromium) [changed]: Style-only change: token --brand #2563eb → #dc2626 (<style> in /, line 2), used by 13 restyled elements; 13 elements restyled (body > section.hero > a.btn, body > div.grid > div.card:nth-of-type(1) > p.price, body > div.grid > div.card:nth-of-type(1) > button.btn, …); background-color rgb(37, 99, 235) → rgb(220, 38, 38); real, not noise; confirm it was intended before approving',
    ]);
    // Only its slice: the passed `about` ran on shard 2.
    assert.equal(summary.some((line) => line.startsWith('- about')), false);
  });
  // What the shard uploads is its .sightline/temp; placed in another checkout (the merge job's,
  // or a developer's) with no results.json, the server says which shard it came from.
  const upload = checkout();
  cpSync(path.join(root, '.sightline', 'temp'), path.join(upload, '.sightline', 'temp'), { recursive: true });
  const why =
    "No results at visual-report/results.json: this is comparing shard 1/2, and it wrote no partial results (2 captures are in .sightline/temp/). A shard sees only its slice of the suite; the job that merges every shard (npx sightline merge <each shard's .sightline/temp>) produces the full report.";
  await withClient(upload, [], async (client) => assertNoResults(client, why));
});

test('mcp: captures without the sightline reporter say how many and how to compare them', { skip }, async () => {
  // `--reporter=list` replaces the config's reporters: the matcher still stores each capture,
  // but nothing gathers them into results.json.
  const root = checkout();
  const captured = playwright(root, { variant: 'changed', port, args: ['--reporter=list'] });
  assert.equal(captured.status, 1, captured.output);
  await withClient(root, [], async (client) =>
    assertNoResults(
      client,
      'No results at visual-report/results.json yet: 3 captures are in .sightline/temp/, but no comparison ran. Compare them with `npx sightline compare` (it writes visual-report/results.json and the HTML report), then ask again.',
    ),
  );
});

test('mcp: get_visual_results lists the snapshots that share one signal as a group', { skip }, async () => {
  // The shop's suite under two projects with the same settings: each change happens twice. The
  // two catalogue page shifts (same dy and belowY) group; the two home restyles touch 13
  // elements, more than the 10 a style-only group allows, but one changed token made both: they
  // group by it.
  const root = tempDir();
  const config = twoProjectConfig(root);
  const approve = playwright(root, { variant: 'original', port, config, args: ['--update-snapshots=all'] });
  assert.equal(approve.status, 0, approve.output);
  const changed = playwright(root, { variant: 'changed', port, config });
  assert.equal(changed.status, 1, changed.output);

  const results = JSON.parse(readFileSync(path.join(root, 'visual-report', 'results.json'), 'utf8'));
  assert.deepEqual(results.summary, { total: 6, passed: 2, changed: 4, new: 0, missing: 0, autoPassed: 0, written: 0 });
  assert.deepEqual(results.groups, [
    {
      signal: 'token',
      label: 'changed by token --brand #2563eb → #dc2626',
      members: [
        { name: 'home', project: 'chromium' },
        { name: 'home', project: 'chromium-copy' },
      ],
      detail: { token: '--brand #2563eb → #dc2626' },
    },
    {
      signal: 'pageShift',
      label: 'page shift: content below y=284 moved down 60 px',
      members: [
        { name: 'catalogue', project: 'chromium' },
        { name: 'catalogue', project: 'chromium-copy' },
      ],
      detail: { belowY: 284, dy: 60 },
    },
  ]);
  await withClient(root, [], async (client) => {
    const summary = (await callText(client, 'get_visual_results', { includePassed: true })).split('\n');
    // The groups come first; every snapshot still has its own line below them.
    assert.deepEqual(summary.slice(1, 7), [
      '',
      'Groups (snapshots sharing one signal; each still has its own line below):',
      '- changed by token --brand #2563eb → #dc2626: home (chromium), home (chromium-copy)',
      '- page shift: content below y=284 moved down 60 px: catalogue (chromium), catalogue (chromium-copy)',
      '',
      'Snapshots:',
    ]);
    assert.deepEqual(
      summary.filter((line) => / \[(changed|passed)\]: /.test(line)).map((line) => line.slice(0, line.indexOf(']') + 1)),
      [
        '- catalogue (chromium) [changed]',
        '- catalogue (chromium-copy) [changed]',
        '- home (chromium) [changed]',
        '- home (chromium-copy) [changed]',
        '- about (chromium) [passed]',
        '- about (chromium-copy) [passed]',
      ],
    );
  });
});
test('mcp: a client that hangs up mid-call leaves the server to exit cleanly', { skip }, async () => {
  // A raw client: initialize, then a get_diff (the slowest tool), then stdin closes at once.
  const server = spawn(binary, ['--root', run, 'mcp'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  server.stderr.on('data', (chunk) => { stderr += chunk; });
  server.stdout.resume();
  const send = (message) => server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hang-up', version: '1' } } });
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/call', params: { name: 'get_diff', arguments: { name: 'catalogue' } } });
  server.stdin.end();
  const code = await new Promise((resolve) => server.on('exit', (exitCode, signal) => resolve(signal ?? exitCode)));
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stderr, /panicked/);
});
