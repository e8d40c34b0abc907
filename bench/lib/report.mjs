// Printing: one table per group, then the spec's speed targets next to our measured ratios.
// The capture group (a Playwright test) has its own table and a breakdown of toMatchVisual.
//
// Ratios are "tool ÷ ours" (how many times longer the tool takes than we do), so > 1 means we
// are faster. Targets are quoted in the spec's own words and checked against the same numbers.

const fmtMs = (ms) => (ms == null ? '—' : ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0));
const fmtCount = (n) => (n == null ? '—' : n.toLocaleString('en-US'));
const fmtRatio = (r) => (r == null || !Number.isFinite(r) ? '—' : `${r.toFixed(2)}×`);

function oursOf(group, caseResults) {
  const tool = group.tools.find((t) => t.kind === 'ours');
  return tool ? caseResults[tool.name] : undefined;
}

function referenceOf(group, caseResults) {
  const tool = group.tools.find((t) => t.kind === 'reference');
  return tool ? caseResults[tool.name] : undefined;
}

/** The "count" cell: ours must equal pixelmatch's exact count; others show their distance. */
function countCell(tool, result, reference) {
  if (result.count == null) return { count: '—', flag: '' };
  const ref = reference?.count;
  if (ref == null || tool.kind === 'reference') return { count: fmtCount(result.count), flag: '' };
  const delta = result.count - ref;
  if (tool.kind.startsWith('ours')) {
    return { count: fmtCount(result.count), flag: delta === 0 ? '= pixelmatch' : `✗ DIFFERS from pixelmatch by ${delta > 0 ? '+' : ''}${delta}` };
  }
  return { count: fmtCount(result.count), flag: delta === 0 ? '' : `${delta > 0 ? '+' : ''}${fmtCount(delta)} vs pixelmatch` };
}

/** Prints aligned columns; `right` lists the numeric columns, which are right-aligned. */
function printTable(headers, rows, right = [2, 3, 4]) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r ? String(r[i]).length : 0))));
  const line = (cells) => cells.map((c, i) => (right.includes(i) ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join('  ').trimEnd();
  console.log(line(headers));
  console.log(widths.map((w) => '─'.repeat(w)).join('  '));
  for (const row of rows) console.log(row ? line(row) : '');
}

/** Prints one group's table; rows per case, a blank line between cases. */
export function printGroup(group, results, oursMissing) {
  console.log(`\n## ${group.title}`);
  const rows = [];
  for (const testCase of group.cases) {
    const caseResults = results[testCase.name];
    const ours = oursOf(group, caseResults);
    const reference = referenceOf(group, caseResults);
    if (rows.length) rows.push(null);
    for (const tool of group.tools) {
      const result = caseResults[tool.name];
      if (!result) continue;
      if (result.error) {
        rows.push([testCase.name, tool.name, 'error', '', '', result.error]);
        continue;
      }
      const ratio = ours?.medianMs ? result.medianMs / ours.medianMs : null;
      const { count, flag } = countCell(tool, result, reference);
      rows.push([testCase.name, tool.name, fmtMs(result.medianMs), fmtRatio(ratio), count, [flag, result.note].filter(Boolean).join('; ')]);
    }
  }
  printTable(['case', 'tool', 'median ms', '÷ ours', 'diff pixels', 'note'], rows);
  if (oursMissing) console.log(`(ours skipped: ${oursMissing})`);
}

const ms = (results, caseName, toolName) => results?.[caseName]?.[toolName]?.medianMs ?? null;

/**
 * Evaluates the 06-quality.md speed targets that this bench can measure. Each target is
 * `{ target, measured, pass }`, with `pass` null when ours was not measured.
 */
export function evaluateTargets(groups, allResults) {
  const memory = allResults['memory-count'];
  const files = allResults['files-diff-png'];
  const memoryGroup = groups.find((g) => g.key === 'memory-count');
  const oursName = memoryGroup.tools.find((t) => t.kind === 'ours')?.name;
  const evidenceName = memoryGroup.tools.find((t) => t.kind === 'ours-evidence')?.name;
  const floorName = memoryGroup.tools.find((t) => t.kind === 'floor').name;
  const oursCli = groups.find((g) => g.key === 'files-diff-png').tools.find((t) => t.kind === 'ours')?.name;
  const targets = [];
  const add = (target, measured, pass) => targets.push({ target, measured, pass });

  const floor = ms(memory, 'identical', floorName);
  const ours = (c) => ms(memory, c, oursName);
  add('in-memory identical ≤ 1.1× the floor', ours('identical') == null ? 'ours not measured'
    : `ours ${fmtMs(ours('identical'))} ms = ${fmtRatio(ours('identical') / floor)} the floor (${fmtMs(floor)} ms)`,
  ours('identical') == null ? null : ours('identical') <= 1.1 * floor);

  for (const [caseName, label] of [['recolour', '1 % changed'], ['shift', 'banner shift']]) {
    const blaze = ms(memory, caseName, '@blazediff/core');
    const exact = memory?.[caseName]?.[oursName]?.count === memory?.[caseName]?.pixelmatch?.count;
    add(`in-memory ${label}: ≥ 3× faster than @blazediff/core, pixelmatch's exact count`,
      ours(caseName) == null ? 'ours not measured'
        : `@blazediff/core ${fmtMs(blaze)} ms ÷ ours ${fmtMs(ours(caseName))} ms = ${fmtRatio(blaze / ours(caseName))}; count ${exact ? 'exact' : 'DIFFERS'}`,
      ours(caseName) == null ? null : blaze / ours(caseName) >= 3 && exact);
  }

  const evidence = ms(memory, 'shift', evidenceName);
  add('in-memory banner shift: full evidence (regions + shift) ≤ 100 ms',
    evidence == null ? 'compareImagesSync not measured' : `compareImagesSync ${fmtMs(evidence)} ms`,
    evidence == null ? null : evidence <= 100);

  // Against the fastest native peer on each case (issue 41): odiff, and blazediff as the npm
  // package and the newer crate ship it.
  for (const caseName of ['identical', 're-encoded', 'recolour', 'shift']) {
    const peers = Object.keys(files?.[caseName] ?? {})
      .filter((name) => /^(odiff|@blazediff\/bin|blazediff \(crate)/.test(name))
      .map((name) => [name.split(' ')[0], ms(files, caseName, name)])
      .filter(([, t]) => t != null);
    const [peer, fastest] = peers.reduce((best, p) => (p[1] < best[1] ? p : best), ['none', Infinity]);
    const cli = ms(files, caseName, oursCli);
    add(`file to file writing the diff PNG (${caseName}): ≤ 0.5× the faster of odiff and blazediff`,
      cli == null ? 'sightline CLI not measured' : `ours ${fmtMs(cli)} ms = ${fmtRatio(cli / fastest)} ${peer} (${fmtMs(fastest)} ms)`,
      cli == null ? null : cli <= 0.5 * fastest);
  }
  return targets;
}

export function printTargets(targets) {
  console.log('\n## targets from shared/spec/06-quality.md "Speed" (in-memory targets use the count-only group)');
  for (const { target, measured, pass } of targets) {
    const mark = pass == null ? '  ·' : pass ? ' ok' : ' MISS';
    console.log(`${mark.padEnd(5)} ${target}\n      ${measured}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Capture in a Playwright test (bench/lib/capture.mjs).

const fmtBytes = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : n >= 1e3 ? `${(n / 1e3).toFixed(0)} KB` : `${n} B`);

const toolOfKind = (capture, kind) => Object.entries(capture.tools).find(([, r]) => r.kind === kind) ?? [];

/** Readable names for the steps the spec times, in the matcher's order. */
function stepLabel(step, info) {
  switch (step) {
    case 'prepareForCapture': return 'prepareForCapture (stabilising stylesheet, fonts.ready, animations finished)';
    case 'clearHover': return 'clearHover (mouse moved off the page, screencast overlays hidden)';
    case 'pageWork': return 'the page\'s own work (requests done, DOM quiet 100 ms)';
    case 'waitForContent': return 'waitForContent (images decoded, aria-busy; the first locator handlers beside)';
    case 'beforeStep': return 'before each step (locator handlers before a walk or a shot, requests started since)';
    case 'collectDom': return info
      ? `collectDom (${info.domElements} elements × ${info.styleProperties} styles, ${fmtBytes(info.domBytes)} JSON)`
      : 'collectDom';
    case 'screenshot': return `the matcher's screenshot (CDP optimizeForSpeed on Chromium${info ? `; ${fmtBytes(info.pngBytes)} PNG` : ''})`;
    case 'compare': return info?.walked
      ? 'the session: compare with the baseline (decode, compare, write)'
      : 'the session: the shot\'s key against the baseline\'s, capture kept as the PNG';
    case 'rendered': return 'rendered (the fonts that drew the text, digests of the assets: a capture the session stores; with them the rules of a failing restyle)';
    case 'trace': return 'trace (the rules behind the restyled elements: a failing snapshot)';
    case 'attach': return 'the attachments (output files written, as the matcher does)';
    case 'restoreAfterCapture': return 'restoreAfterCapture';
    case 'close': return 'the capture and evidence written (on a thread since the call was decided)';
    default: return step;
  }
}

/**
 * Prints the capture group: the four calls with "÷ ours" against toMatchVisual (as in the
 * other tables: above 1 means toMatchVisual is faster), then where toMatchVisual's time goes.
 */
export function printCaptureGroup(title, capture) {
  console.log(`\n## ${title}`);
  if (capture.missing) {
    console.log(`(skipped: ${capture.missing})`);
    return;
  }
  const [, ours] = toolOfKind(capture, 'ours');
  const rows = Object.entries(capture.tools).map(([name, r]) => (r.error
    ? [name, 'error', '', r.error]
    : [name, fmtMs(r.medianMs), fmtRatio(ours?.medianMs ? r.medianMs / ours.medianMs : null), r.note ?? '']));
  printTable(['tool', 'median ms', '÷ ours', 'note'], rows, [1, 2]);
  console.log(`(Chromium ${capture.browser}; each call timed inside the test around the single await)`);

  console.log('\n### where toMatchVisual\'s time goes (the same steps, timed one by one in the same rounds)');
  if (!capture.steps) {
    console.log(`(no breakdown: ${capture.stepsError ?? 'the step-by-step run recorded nothing'})`);
    return;
  }
  const whole = ours?.medianMs;
  const share = (ms) => (whole ? `${((100 * ms) / whole).toFixed(0)} %` : '—');
  const stepRows = Object.entries(capture.steps).map(([step, s]) => [stepLabel(step, capture.info), fmtMs(s.medianMs), share(s.medianMs)]);
  stepRows.push(null, ['all steps, one call (median of totals)', fmtMs(capture.stepsTotal.medianMs), share(capture.stepsTotal.medianMs)]);
  if (whole) stepRows.push(['toMatchVisual through expect() (the table above)', fmtMs(whole), '100 %']);
  printTable(['step', 'median ms', 'of toMatchVisual'], stepRows, [1, 2]);

  // What bounds the target: no matcher can be faster than its screenshot.
  const [, anchor] = toolOfKind(capture, 'anchor');
  const refs = Object.entries(capture.tools).filter(([, r]) => r.kind === 'reference' && r.medianMs != null);
  if (anchor?.medianMs && refs.length) {
    console.log(`for scale, ÷ toHaveScreenshot: ${refs.map(([name, r]) => `${name.split(/ ?\(/)[0]} ${fmtRatio(r.medianMs / anchor.medianMs)}`).join(', ')}`);
  }
  for (const [name, m] of Object.entries(capture.memory ?? {})) {
    console.log(`memory peak of the test process with ${name} alone: ${fmtBytes(m.peakRssBytes)} (${fmtBytes(m.rssBeforeBytes)} before the first call)`);
  }
  if (capture.stored?.length) {
    console.log(`on disk in .sightline/: ${capture.stored.map((f) => `${f.file} ${fmtBytes(f.bytes)}`).join(', ')}`);
  }
  const failing = capture.failing;
  if (failing?.error) console.log(`a failing toMatchVisual: ${failing.error}`);
  else if (failing) {
    const one = failing.comparisons === 1 ? 'one, as it should' : 'expected one';
    const runs = failing.samples ? `median of ${failing.samples.length} calls (${failing.samples.map(fmtMs).join(' / ')} ms)` : 'one call';
    console.log(`a failing toMatchVisual (a block recoloured, ${runs}): ${fmtMs(failing.ms)} ms, ${failing.comparisons} image comparison${failing.comparisons === 1 ? '' : 's'} in the first (${one}) — ${failing.verdict}`);
    if (failing.floorMs != null) {
      console.log(`  its floor, after each call (the page prepared, shot, walked, shot again and put back by the matcher's page code, nothing of the engine beside it): ${fmtMs(failing.floorMs)} ms (${failing.floors.map(fmtMs).join(' / ')} ms); the call is ${fmtRatio(failing.ms / failing.floorMs)} its floor`);
    }
    if (failing.sequence) {
      console.log(`  the same call step by step: ${failing.sequence.map(([step, ms]) => `${step} ${fmtMs(ms)}`).join(' → ')}`);
    }
  }
}

/** The spec's toMatchVisual target, checked against the capture group's medians. */
export function captureTarget(capture, { target = 'toMatchVisual ≤ 0.35× toHaveScreenshot, DOM + styles walked wherever the bytes differ', limit = 0.35 } = {}) {
  if (capture.missing) return { target, measured: `not measured: ${capture.missing}`, pass: null };
  const [oursName, ours] = toolOfKind(capture, 'ours');
  const [anchorName, anchor] = toolOfKind(capture, 'anchor');
  if (ours?.medianMs == null || anchor?.medianMs == null) {
    const broken = [[oursName, ours], [anchorName, anchor]].filter(([, r]) => r?.error).map(([n, r]) => `${n}: ${r.error}`);
    return { target, measured: `not measured${broken.length ? ` (${broken.join('; ')})` : ''}`, pass: null };
  }
  const ratio = ours.medianMs / anchor.medianMs;
  // Issue 41: an unchanged page whose bytes are the baseline's shot needs no DOM walk; a page that
  // differs is walked (the failing call below proves it still traces its change).
  const dom = !capture.info
    ? '; not checked (the step-by-step run failed)'
    : capture.info.walked
      ? `; DOM + styles collected (${capture.info.domElements} elements × ${capture.info.styleProperties} properties)`
      : '; passed on the shot\'s bytes, no DOM walk needed';
  return {
    target,
    measured: `toMatchVisual ${fmtMs(ours.medianMs)} ms = ${fmtRatio(ratio)} toHaveScreenshot (${fmtMs(anchor.medianMs)} ms)${dom}`,
    pass: ratio <= limit && capture.info != null,
  };
}

/**
 * Issue 41's floor: an unchanged page ≤ 1.15× Chromium's own capture (CDP), and a failing one
 * (a block recoloured, traced to its rule) ≤ 2.3×.
 */
export function captureFloorTargets(capture, where) {
  const [, ours] = toolOfKind(capture, 'ours');
  const cdp = Object.entries(capture.tools).find(([name, r]) => r.kind === 'reference' && name.startsWith('CDP'))?.[1];
  const targets = [
    { target: `toMatchVisual unchanged ≤ 1.15× the CDP capture (${where})`, limit: 1.15, ms: ours?.medianMs, what: 'toMatchVisual unchanged' },
    { target: `toMatchVisual failing ≤ 2.3× the CDP capture (${where})`, limit: 2.3, ms: capture.failing?.ms, what: 'a failing toMatchVisual' },
  ];
  return targets.map(({ target, limit, ms, what }) => {
    if (capture.missing) return { target, measured: `not measured: ${capture.missing}`, pass: null };
    if (ms == null || cdp?.medianMs == null) return { target, measured: 'not measured', pass: null };
    const ratio = ms / cdp.medianMs;
    // A failing call's floor (two shots and the walk, nothing else) on the same scale: how much of
    // the ratio the engine adds, and how much the page's own work already is.
    const floor = what === 'a failing toMatchVisual' && capture.failing?.floorMs != null
      ? `; its floor ${fmtMs(capture.failing.floorMs)} ms = ${fmtRatio(capture.failing.floorMs / cdp.medianMs)}`
      : '';
    return { target, measured: `${what} ${fmtMs(ms)} ms = ${fmtRatio(ratio)} CDP Page.captureScreenshot (${fmtMs(cdp.medianMs)} ms)${floor}`, pass: ratio <= limit };
  });
}

// ---------------------------------------------------------------------------------------------
// The MCP server (bench/lib/mcp.mjs).

export function printMcpGroup(title, mcp) {
  console.log(`\n## ${title}`);
  if (mcp.missing) {
    console.log(`not measured: ${mcp.missing}`);
    return;
  }
  const { summary } = mcp.info;
  if (summary) {
    console.log(`run: ${summary.total} snapshots — ${summary.passed} passed, ${summary.changed} changed, ${summary.new} new`);
  }
  printTable(
    ['tool', 'input', 'median ms', 'limit ms'],
    mcp.rows.map((row) => [row.tool, row.what, fmtMs(row.medianMs), String(row.limitMs)]),
  );
}

export function mcpTargets(mcp) {
  const target = 'MCP get_visual_results on 1000 snapshots < 100 ms / get_diff on a 1280×12000 page < 500 ms';
  if (mcp.missing) return [{ target, measured: `not measured: ${mcp.missing}`, pass: null }];
  const [list, diff] = mcp.rows;
  return [{
    target,
    measured: `get_visual_results ${fmtMs(list.medianMs)} ms; get_diff ${fmtMs(diff.medianMs)} ms (${mcp.info.diffImages} images)`,
    pass: list.medianMs < list.limitMs && diff.medianMs < diff.limitMs,
  }];
}

// ---------------------------------------------------------------------------------------------
// The capture artifact (bench/lib/artifact.mjs) and `sightline compare` on 200 snapshots
// (bench/lib/batch.mjs).

export function printArtifactGroup(title, artifact) {
  console.log(`\n## ${title}`);
  if (artifact.error) {
    console.log(`not measured: ${artifact.error}`);
    return;
  }
  const { rust } = artifact;
  printTable(
    ['what', 'bytes', 'write ms', 'read ms'],
    [
      ['page PNG, pngjs (what toHaveScreenshot writes)', fmtCount(rust.pngBytes), fmtMs(artifact.pngjsEncodeMs), fmtMs(artifact.pngjsDecodeMs)],
      ['page PNG, Rust png (fast filter to write)', fmtCount(rust.pngBytes), fmtMs(rust.pngEncodeFastMs), fmtMs(rust.pngDecodeMs)],
      ['capture artifact (banded zstd)', fmtCount(rust.artifactBytes), fmtMs(rust.artifactEncodeMs), fmtMs(rust.artifactDecodeMs)],
      ['a fresh pixel buffer of this size, first touched on one thread (both reads pay it)', '', '', fmtMs(rust.freshBufferMs)],
    ],
    [1, 2, 3],
  );
}

export function artifactTarget(artifact) {
  const target = 'capture artifact vs the page PNG: smaller, and ≥ 5× faster to write (than pngjs encode) and to read (than Rust png decode)';
  if (artifact.error) return { target, measured: `not measured: ${artifact.error}`, pass: null };
  const { rust } = artifact;
  const write = artifact.pngjsEncodeMs / rust.artifactEncodeMs;
  const read = rust.pngDecodeMs / rust.artifactDecodeMs;
  const size = rust.artifactBytes / rust.pngBytes;
  return {
    target,
    measured:
      `size ${fmtRatio(size)} the PNG; write ${fmtRatio(write)} faster than pngjs; read ${fmtRatio(read)} faster than Rust png decode` +
      ` (a fresh pixel buffer of the page's size, first touched on one thread, takes ${fmtMs(rust.freshBufferMs)} ms of it)`,
    pass: size < 1 && write >= 5 && read >= 5,
  };
}

export function printBatchGroup(title, batch) {
  console.log(`\n## ${title}`);
  if (batch.missing || batch.error) {
    console.log(`not measured: ${batch.missing ?? batch.error}`);
    return;
  }
  console.log(`run: ${batch.summary}`);
  printTable(
    ['threads', 'median ms', 'speed-up'],
    [
      ['1', fmtMs(batch.oneMs), '1.00×'],
      ['2', fmtMs(batch.twoMs), fmtRatio(batch.speedup)],
    ],
    [1, 2],
  );
}

export function batchTarget(batch) {
  const target = '`sightline compare` over 200 snapshots: ≥ 1.8× from 1 to 2 threads';
  if (batch.missing || batch.error) return { target, measured: `not measured: ${batch.missing ?? batch.error}`, pass: null };
  return {
    target,
    measured: `1 thread ${fmtMs(batch.oneMs)} ms, 2 threads ${fmtMs(batch.twoMs)} ms: ${fmtRatio(batch.speedup)}`,
    pass: batch.speedup >= 1.8,
  };
}

// ---------------------------------------------------------------------------------------------
// The DOM record (bench/lib/dom.mjs).

export function printDomGroup(title, dom) {
  console.log(`\n## ${title}`);
  if (dom.missing || dom.error) {
    console.log(`not measured: ${dom.missing ?? dom.error}`);
    return;
  }
  printTable(
    ['elements', 'properties', 'style rows', 'JSON', 'collectDom ms', 'in page ms'],
    [[fmtCount(dom.elements), String(dom.properties), dom.styleRows == null ? '—' : fmtCount(dom.styleRows), fmtBytes(dom.bytes), fmtMs(dom.wallMs), fmtMs(dom.inPageMs)]],
    [0, 1, 2, 3, 4, 5],
  );
}

export function domTarget(dom) {
  const target = 'DOM record of 5,000 elements: ≤ 1 MB, collected in ≤ 60 ms (issue 18)';
  if (dom.missing || dom.error) return { target, measured: `not measured: ${dom.missing ?? dom.error}`, pass: null };
  return {
    target,
    measured: `${fmtBytes(dom.bytes)} for ${fmtCount(dom.elements)} elements, collectDom ${fmtMs(dom.wallMs)} ms (${fmtMs(dom.inPageMs)} ms of it in the page)`,
    pass: dom.bytes <= 1e6 && dom.wallMs <= 60,
  };
}
