// `reporter: [['sightline/reporter']]`: at the end of the run, gathers the evidence every worker
// left in `.sightline/temp` into `<reportDir>/results.json` plus the images of changed and new
// snapshots (02-results.md). Runs in Playwright's main process; prints to stderr only.
'use strict';

const path = require('node:path');
const addon = require('../addon.js');
const { beginLedger, ranToEnd } = require('./selection.js');
const { projectRoot, isCaptureOnlyShard } = require('./project.js');

class SightlineReporter {
  onBegin(config, suite) {
    this.config = config;
    this.ledger = beginLedger(config, suite);
    this.root = projectRoot(config);
    // `.sightline/temp` holds this run's captures only; earlier runs' evidence must not be reported.
    addon.clearRunSync(this.root);
  }

  onTestEnd(test, result) {
    const entry = this.ledger.tests.get(test.id);
    if (entry && ranToEnd(result)) entry.finished = true;
  }

  onEnd() {
    const settings = addon.resolveSettings({ root: this.root });
    // Which tests ran, so only a baseline whose test ran (or is gone) can be called missing.
    const { narrowed, complete, rootDir, tests } = this.ledger;
    addon.recordRunSync({ root: this.root, rootDir, narrowed, complete, tests: [...tests.values()] });
    const shard = this.config.shard ?? null;
    if (isCaptureOnlyShard(settings, this.config)) {
      // Only captures: the merge job runs `sightline compare --captures <shard folders…>`.
      const { captures } = addon.finishShardSync({ root: this.root, ...shard, mode: 'capture-only' });
      process.stderr.write(`sightline: shard ${shard.current}/${shard.total} captured ${captures} snapshots (capture-only) → .sightline/temp\n`);
      return;
    }
    const summary = addon.writeResultsSync({
      root: this.root,
      reportDir: settings.reportDir,
      shard,
      filtered: !complete,
    });
    const where = path.join(settings.reportDir, 'results.json');
    // A comparing shard uploads evidence, not every capture: passed snapshots drop theirs.
    if (shard) addon.finishShardSync({ root: this.root, ...shard, mode: 'compare' });
    // As Playwright says which snapshots it wrote: one line per baseline an update run wrote.
    for (const line of summary.writtenBaselines) process.stderr.write(`sightline: ${line}\n`);
    // The counts in the core's words, as `sightline compare` says them.
    process.stderr.write(`sightline: ${summary.total} snapshots — ${summary.counts} → ${where}\n`);
    // Where a person goes next (the core's rule: something to approve, not a shard).
    if (summary.reviewHint) process.stderr.write(`sightline: ${summary.reviewHint}\n`);
  }

  printsToStdio() {
    return false;
  }
}

module.exports = SightlineReporter;
