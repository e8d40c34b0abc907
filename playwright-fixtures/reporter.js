// `reporter: [['sightline/reporter']]`: at the end of the run, gathers the evidence every worker
// left in `.sightline/temp` into `<reportDir>/results.json` plus the images of changed and new
// snapshots (02-results.md). Runs in Playwright's main process; prints to stderr only.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const addon = require('../index.js');
const { loadConfig } = require('./config.js');

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
    fs.rmSync(path.join(this.root, '.sightline', 'temp'), { recursive: true, force: true });
  }

  onEnd() {
    const settings = loadConfig(this.root);
    const summary = addon.writeResultsSync({
      root: this.root,
      reportDir: settings.reportDir,
      config: settings,
      shard: this.config.shard ?? null,
      filtered: isFiltered(this.config),
      threshold: settings.threshold,
    });
    const where = path.join(settings.reportDir, 'results.json');
    process.stderr.write(
      `sightline: ${summary.total} snapshots — ${summary.passed} passed, ${summary.changed} changed, ${summary.new} new, ${summary.missing} missing → ${where}\n`,
    );
  }

  printsToStdio() {
    return false;
  }
}

module.exports = SightlineReporter;
