// Which part of the suite a run selected, as the reporter sees it: the run's ledger (every
// selected test, whether it ran to its end, and how the run selected them). The core decides
// from it which baselines are missing (results/ledger.rs): a baseline is missing only when its
// test ran to its end without capturing it, or is gone, never because this run left it out.
'use strict';

const { specFile } = require('./project.js');

// `playwright test` options that take a value (the next argument when not written `--x=v`);
// variadic ones take every argument up to the next option. The rest are flags, and any other
// argument is a file filter. (Playwright does not tell a reporter its CLI filters.)
const TAKES_VALUE = new Set([
  '--add-reporter', '--browser', '-c', '--config', '-g', '--grep', '-G', '--grep-invert', '--global-timeout', '-j', '--workers',
  '--last-failed-file', '--max-failures', '--output', '--repeat-each', '--reporter', '--retries', '--run-agents', '--shard',
  '--test-list', '--test-list-invert', '--timeout', '--trace', '--tsconfig', '--ui-host', '--ui-port', '--update-source-method',
]);
const VARIADIC = new Set(['--project']);
// An optional value: taken when the next argument does not look like an option (commander's rule).
const OPTIONAL_VALUE = new Set(['--debug', '--only-changed', '--shuffle', '-u', '--update-snapshots']);
// Options that select tests within files (`-g` is not in `config.grep`: the runner applies it
// apart).
const NARROWING_FLAGS = new Set(['-g', '--grep', '-G', '--grep-invert', '--last-failed', '--only-changed', '--test-list', '--test-list-invert']);

/** The options and file filters of `playwright test …` in `argv`. */
function parseTestArgs(argv) {
  const at = argv.indexOf('test');
  const args = at < 0 ? [] : argv.slice(at + 1);
  const options = new Set();
  const files = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      files.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-')) {
      files.push(arg);
      continue;
    }
    const name = arg.split('=')[0];
    options.add(name);
    if (arg.includes('=')) continue;
    if (TAKES_VALUE.has(name)) i++;
    else if (VARIADIC.has(name)) while (i + 1 < args.length && !args[i + 1].startsWith('-')) i++;
    else if (OPTIONAL_VALUE.has(name) && i + 1 < args.length && !args[i + 1].startsWith('-')) i++;
  }
  return { options, files };
}

const matchesAll = (grep) => (Array.isArray(grep) ? grep : [grep]).every((r) => r instanceof RegExp && r.source === '.*');
const narrowsByGrep = (holder) => !matchesAll(holder.grep) || (holder.grepInvert != null && [holder.grepInvert].flat().length > 0);

/** Whether `test.only` or `test.describe.only` focused the run. Playwright keeps it in `_only` on
 *  the test and its suites (not public API: the filter-modes test pins it). */
function focused(suite) {
  return suite.allTests().some((test) => {
    for (let node = test; node; node = node.parent) if (node._only) return true;
    return false;
  });
}

/**
 * The ledger of the run that `onBegin(config, suite)` describes, before any test ran. `root` is
 * the project root the spec files are recorded relative to (by the core).
 */
function beginLedger(config, suite, argv = process.argv) {
  const { options, files } = parseTestArgs(argv);
  const projects = suite.suites.map((s) => s.project()).filter(Boolean);
  const narrowed =
    narrowsByGrep(config) ||
    projects.some(narrowsByGrep) ||
    [...options].some((o) => NARROWING_FLAGS.has(o)) ||
    files.some((f) => /:\d+(:\d+)?$/.test(f)) ||
    focused(suite);
  // Tests of a project that skips visual assertions (`--ignore-snapshots`) call nothing, so
  // they cannot tell a removed call: they stay out, and the run is not complete.
  const ignoring = new Set(projects.filter((p) => p.ignoreSnapshots).map((p) => p.name));
  const ranAll = config.projects.every((p) => projects.some((q) => q.name === p.name));
  const complete = !narrowed && files.length === 0 && ranAll && ignoring.size === 0;
  const tests = new Map();
  for (const test of suite.allTests()) {
    const project = test.parent.project()?.name ?? '';
    if (ignoring.has(project)) continue;
    // titlePath(): ['', project, file, …describes, title]
    const file = specFile(config, test.location.file);
    tests.set(test.id, { project, file, title: test.titlePath().slice(3), line: test.location.line, finished: false });
  }
  return { narrowed, complete, rootDir: config.rootDir, tests };
}

/** Whether a finished attempt ran its test's body to the end, so every `toMatchVisual` call in
 *  it was reached. Only a pass proves it: a failing call stops the test, and a failed test whose
 *  later calls were never reached must not make their baselines missing. */
function ranToEnd(result) {
  return result.status === 'passed';
}

/** Whether an attempt failed or stopped for another reason than a visual assertion (an error,
 *  a timeout, an interruption): every error a failing `toMatchVisual` raises starts with its
 *  name, and any other error means the test did not run as the suite means it to. */
function stoppedOtherwise(result) {
  if (result.status === 'passed' || result.status === 'skipped') return false;
  if (result.status !== 'failed') return true;
  const errors = result.errors ?? [];
  return errors.length === 0 || errors.some((e) => !/^(Error: )?toMatchVisual\(/.test(e.message ?? ''));
}

module.exports = { beginLedger, ranToEnd, stoppedOtherwise, parseTestArgs };
