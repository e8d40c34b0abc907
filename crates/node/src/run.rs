//! A run's start and end, called by the reporter: clearing the last run's captures, the run's
//! ledger of tests, results.json and the report, and a shard's manifest.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use sightline_core::config::Settings;
use sightline_core::store::ProjectStore;

use crate::work::guarded;

/// What `writeResults` needs.
#[napi(object)]
pub struct ResultsInput {
    /// Project root: `.sightline/` lives here.
    pub root: String,
    /// Where results.json and the images go, relative to the root. Default the config's `reportDir`.
    pub report_dir: Option<String>,
    /// Playwright's `config.shard` under `--shard`.
    pub shard: Option<ShardPosition>,
    /// Part of the suite was left out (file arguments, `-g`, `--project`, `test.only`): recorded
    /// in results.json; which baselines are missing is decided from the run's ledger
    /// (`recordRunSync`).
    pub filtered: Option<bool>,
}

/// Which shard of how many.
#[napi(object)]
pub struct ShardPosition {
    pub current: u32,
    pub total: u32,
}

/// A run's summary as the reporter prints it.
#[napi(object, use_nullable = true)]
pub struct RunSummary {
    pub total: u32,
    pub passed: u32,
    pub changed: u32,
    pub new: u32,
    pub missing: u32,
    /// Changes passed as likely render noise (`noiseAutoPass`).
    pub auto_passed: u32,
    /// Baselines an update run wrote.
    pub written: u32,
    /// The counts in words, as `sightline compare` says them.
    pub counts: String,
    /// The line that sends a person to the review page when there is something to approve;
    /// `null` otherwise and for a shard.
    pub review_hint: Option<String>,
    /// For each baseline an update run wrote, a line naming it and what it was.
    pub written_baselines: Vec<String>,
}

fn count(n: usize) -> u32 {
    n.try_into().unwrap_or(u32::MAX)
}

/// Gathers this run's evidence from `.sightline/temp` into `<reportDir>/results.json` plus the
/// baseline / current / diff PNGs of changed and new snapshots (the diff image is the one the
/// deciding comparison drew), and returns the run's summary.
#[napi]
pub fn write_results_sync(input: ResultsInput) -> Result<RunSummary> {
    use sightline_core::results::{RunInfo, write_results};

    let (results, written) = guarded(|| {
        let config = Settings::read(std::path::Path::new(&input.root))?;
        let store = ProjectStore::with_layout(&input.root, config.baseline_path.clone());
        let report_dir = input.report_dir.clone().unwrap_or_else(|| config.report_dir.clone());
        let run = RunInfo {
            mode: "compare".into(),
            shard: input
                .shard
                .as_ref()
                .map(|s| sightline_core::results::ShardPosition { current: s.current, total: s.total }),
            root: input.root.clone(),
            config,
            filtered: input.filtered.unwrap_or(false),
        };
        let results = write_results(&store, std::path::Path::new(&report_dir), &run)?;
        sightline_core::report::write_report(store.root(), std::path::Path::new(&report_dir), &results)?;
        let written = results.written_baselines(&store)?;
        Ok((results, written))
    })?;
    let s = &results.summary;
    Ok(RunSummary {
        total: count(s.total),
        passed: count(s.passed),
        changed: count(s.changed),
        new: count(s.new),
        missing: count(s.missing),
        auto_passed: count(s.auto_passed),
        written: count(s.written),
        counts: s.counts(),
        review_hint: results.review_hint().map(str::to_string),
        written_baselines: written,
    })
}

/// One test of the run, as the reporter saw it.
#[napi(object)]
pub struct LedgerTestInput {
    /// The Playwright project name.
    pub project: String,
    /// The spec file (absolute, or relative to the root).
    pub file: String,
    /// The describe titles and the test's title.
    pub title: Vec<String>,
    pub line: Option<u32>,
    /// The test ran its body to the end (passed, or failed only on visual assertions).
    pub finished: bool,
    /// The test failed or stopped for another reason than a visual assertion.
    pub stopped: Option<bool>,
}

/// The tests a run selected and how it selected them.
#[napi(object)]
pub struct LedgerInput {
    /// Project root: `.sightline/` lives here.
    pub root: String,
    /// The folder the spec files are relative to (the Playwright config's `rootDir`).
    pub root_dir: Option<String>,
    /// Tests were selected within files (`-g`, `--grep-invert`, `test.only`, `file:line`,
    /// `--last-failed`, `--only-changed`, a test list).
    pub narrowed: bool,
    /// Nothing was left out: no file arguments, every project ran, not narrowed, no project
    /// skipped visual assertions.
    pub complete: bool,
    pub tests: Vec<LedgerTestInput>,
}

/// Leaves the run's ledger in `.sightline/temp/run.json` (before `writeResultsSync` or
/// `finishShardSync`): a baseline is missing only when its test ran to its end without capturing
/// it, or is gone from the suite.
#[napi]
pub fn record_run_sync(input: LedgerInput) -> Result<()> {
    let root = std::path::Path::new(&input.root);
    let ledger = run_ledger(root, input.root_dir, input.narrowed, input.complete, input.tests, None);
    guarded(|| sightline_core::store::ledger::write_ledger(&ProjectStore::open(root)?, &ledger))
}

fn run_ledger(
    root: &std::path::Path,
    root_dir: Option<String>,
    narrowed: bool,
    complete: bool,
    tests: Vec<LedgerTestInput>,
    ended: Option<String>,
) -> sightline_core::store::ledger::RunLedger {
    use sightline_core::store::ledger::{LEDGER_VERSION, LedgerTest, RunLedger, TestRef};
    RunLedger {
        version: LEDGER_VERSION,
        root_dir,
        narrowed,
        complete,
        tests: tests
            .into_iter()
            .map(|t| LedgerTest {
                project: t.project,
                test: TestRef::new(root, &t.file, t.title, t.line),
                finished: t.finished,
                stopped: t.stopped.unwrap_or(false),
            })
            .collect(),
        ended,
    }
}

/// How a run ended, as the reporter saw it.
#[napi(object)]
pub struct RunEndInput {
    /// Project root: `.sightline/` lives here.
    pub root: String,
    /// The folder the spec files are relative to (the Playwright config's `rootDir`).
    pub root_dir: Option<String>,
    /// Tests were selected within files (see `LedgerInput`).
    pub narrowed: bool,
    /// Nothing was left out of the suite.
    pub complete: bool,
    pub tests: Vec<LedgerTestInput>,
    /// Playwright's `config.shard` under `--shard`.
    pub shard: Option<ShardPosition>,
    /// How Playwright said the run ended (`FullResult.status`).
    pub ended: Option<String>,
}

/// The reporter's end of a run: the run's ledger, then results.json and the report (or, in a
/// capture-only shard, the captures for the merge job); returns the lines to print, in order.
#[napi]
pub fn finish_run_sync(input: RunEndInput) -> Result<Vec<String>> {
    let root = std::path::Path::new(&input.root);
    let ledger = run_ledger(root, input.root_dir, input.narrowed, input.complete, input.tests, input.ended);
    let shard = input.shard.map(|s| sightline_core::results::ShardPosition { current: s.current, total: s.total });
    guarded(|| sightline_core::run_end::finish_run(root, &ledger, shard))
}

/// Starts a run: clears what an earlier run left in `<root>/.sightline/temp` (captures, evidence,
/// diff images, shard manifest). Baselines are never touched.
#[napi]
pub fn clear_run_sync(root: String) -> Result<()> {
    // Only `.sightline/temp`, which no layout moves: a bad config file is reported by the calls.
    guarded(|| ProjectStore::new(&root).clear_run())
}

/// Which shard a run was, at its end.
#[napi(object)]
pub struct ShardInput {
    /// Project root: `.sightline/` lives here.
    pub root: String,
    /// Playwright's `config.shard.current`.
    pub current: u32,
    /// Playwright's `config.shard.total`.
    pub total: u32,
    /// The config's `shardMode`: `compare` or `capture-only`.
    pub mode: String,
}

/// What a shard left for the merge job.
#[napi(object)]
pub struct ShardManifest {
    pub current: u32,
    pub total: u32,
    /// `compare` or `capture-only`.
    pub mode: String,
    /// Captures the shard left.
    pub captures: u32,
}

/// The end of a shard's run: leaves `.sightline/temp` as the merge job needs it (a comparing
/// shard drops the captures of passed snapshots) and writes `shard.json`; returns the manifest.
#[napi]
pub fn finish_shard_sync(input: ShardInput) -> Result<ShardManifest> {
    let manifest = guarded(|| {
        let mode = serde_json::from_value(serde_json::Value::String(input.mode.clone())).map_err(|_| {
            sightline_core::Error::InvalidInput(format!(
                "shard mode {:?} is not one of compare, capture-only",
                input.mode
            ))
        })?;
        let store = ProjectStore::open(&input.root)?;
        sightline_core::batch::finish_shard(&store, input.current, input.total, mode)
    })?;
    Ok(ShardManifest {
        current: manifest.current,
        total: manifest.total,
        mode: input.mode,
        captures: count(manifest.captures),
    })
}
