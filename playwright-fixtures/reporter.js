// `reporter: [['sightline/reporter']]`: at the end of the run, gathers the evidence every worker
// left in `.sightline/temp` into `<reportDir>/results.json` plus the images of changed and new
// snapshots (02-results.md). Runs in Playwright's main process; prints to stderr only.
'use strict';

const path = require('node:path');
const addon = require('../addon.js');

/** Whether this run saw only part of the suite, so absent snapshots are not "missing". */
function isFiltered(config) {
  const grepAll = (g) => (Array.isArray(g) ? g : [g]).every((r) => r instanceof RegExp && r.source === '.*');
  if (!grepAll(config.grep) || config.grepInvert) return true;
  if (config.shard) return true;
  // Positional file filters and --last-failed / --only-changed narrow the run too.
  const args = process.argv.slice(process.argv.indexOf('test') + 1);
  return args.some((a, i) => a === '--last-failed' || a.startsWith('--only-changed') || (!a.startsWith('-') && !/^-/.test(args[i - 1] ?? '-')));
}

class SightlineReporter {
  onBegin(config) {
    this.config = config;
    this.root = process.env.SIGHTLINE_ROOT
      ? path.resolve(process.env.SIGHTLINE_ROOT)
      : config.configFile
        ? path.dirname(config.configFile)
        : config.rootDir;
    // `.sightline/temp` holds this run's captures only; earlier runs' evidence must not be reported.
    addon.clearRunSync(this.root);
  }

  onEnd() {
    const settings = addon.resolveSettings({ root: this.root });
    const shard = this.config.shard ?? null;
    if (shard && settings.shardMode === 'capture-only') {
      // Only captures: the merge job runs `sightline compare --captures <shard folders…>`.
      const { captures } = addon.finishShardSync({ root: this.root, ...shard, mode: 'capture-only' });
      process.stderr.write(`sightline: shard ${shard.current}/${shard.total} captured ${captures} snapshots (capture-only) → .sightline/temp\n`);
      return;
    }
    const summary = addon.writeResultsSync({
      root: this.root,
      reportDir: settings.reportDir,
      shard,
      filtered: isFiltered(this.config),
    });
    const where = path.join(settings.reportDir, 'results.json');
    // A comparing shard uploads evidence, not every capture: passed snapshots drop theirs.
    if (shard) addon.finishShardSync({ root: this.root, ...shard, mode: 'compare' });
    process.stderr.write(
      `sightline: ${summary.total} snapshots — ${summary.passed} passed, ${summary.changed} changed, ${summary.new} new, ${summary.missing} missing → ${where}\n`,
    );
  }

  printsToStdio() {
    return false;
  }
}

module.exports = SightlineReporter;
