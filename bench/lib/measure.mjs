// Timing: every tool of a case runs once per round, rounds repeat N times, medians are kept.
//
// This machine is noisy, so tools are interleaved rather than run back to back: a burst of
// background load then hits every tool of the round instead of one tool's whole series. The
// order changes each round so no tool always runs right after the same neighbour (caches, page
// cache, allocator state, memory a heavy tool just freed): see roundOrder.

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The order of `n` tools in round `round` (0-based), as indexes: a balanced Latin square
 * (Williams' design). Over `n` rounds (even `n`; `2n` for odd) each tool runs right after every
 * other tool equally often. A plain rotation keeps every tool's neighbour in all rounds but one:
 * in the capture group toMatchVisual ran right after toHaveScreenshot (2.2 GB freed on the real
 * page) in three rounds of four, the CDP anchor never did.
 */
export function roundOrder(n, round) {
  // First row 0, 1, n-1, 2, n-2, …; row r adds r (mod n). For odd n, odd rows run backwards.
  const first = [];
  for (let i = 0, low = 1, high = n - 1; i < n; i++) first.push(i === 0 ? 0 : i % 2 === 1 ? low++ : high--);
  const row = first.map((tool) => (tool + round) % n);
  return n % 2 === 1 && round % 2 === 1 ? row.reverse() : row;
}

/**
 * Times one call. `run` returns `{ count, note? }` (count may be null when a tool reports none);
 * a thrown error is kept as the tool's result so one broken tool does not stop the bench.
 */
function timeOnce(run) {
  const started = performance.now();
  const outcome = run();
  return { ms: performance.now() - started, ...outcome };
}

/**
 * Measures every tool on one case. A first untimed round warms up the JIT, the page cache and
 * lazily loaded code, and records what each tool counted.
 * Returns `{ [toolName]: { medianMs, samples, count, note } | { error } }`.
 */
export function measureCase(allTools, testCase, runs) {
  const results = {};
  const tools = allTools.filter((tool) => !tool.cases || tool.cases.includes(testCase.name));
  for (const tool of tools) {
    try {
      const warm = timeOnce(() => tool.run(testCase));
      results[tool.name] = { medianMs: null, samples: [], count: warm.count, note: warm.note };
    } catch (error) {
      results[tool.name] = { error: error.message.split('\n')[0] };
    }
  }
  const live = tools.filter((tool) => !results[tool.name].error);
  for (let round = 0; round < runs; round++) {
    for (const index of roundOrder(live.length, round)) {
      const tool = live[index];
      results[tool.name].samples.push(timeOnce(() => tool.run(testCase)).ms);
    }
  }
  for (const tool of live) results[tool.name].medianMs = median(results[tool.name].samples);
  return results;
}
