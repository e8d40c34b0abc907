// `reporter: [['sightline/reporter']]`: at the end of the run, gathers the evidence every worker
// left in `.sightline/temp` into `<reportDir>/results.json` plus the images of changed and new
// snapshots (02-results.md). Runs in Playwright's main process; prints to stderr only.
'use strict';

const addon = require('../addon.js');
const { beginLedger, ranToEnd, stoppedOtherwise } = require('./selection.js');
const { projectRoot } = require('./project.js');

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
    if (!entry) return;
    if (ranToEnd(result)) entry.finished = true;
    // The last attempt decides: a retry that passed is not a stopped test.
    entry.stopped = stoppedOtherwise(result);
  }

  onEnd(result) {
    // The core ends the run (the ledger of which tests ran, then results.json, or a shard's
    // captures for the merge job) and says every line.
    const { narrowed, complete, rootDir, tests } = this.ledger;
    const lines = addon.finishRunSync({
      root: this.root,
      rootDir,
      narrowed,
      complete,
      tests: [...tests.values()],
      shard: this.config.shard ?? undefined,
      ended: result?.status,
    });
    for (const line of lines) process.stderr.write(`sightline: ${line}\n`);
  }

  printsToStdio() {
    return false;
  }
}

module.exports = SightlineReporter;
