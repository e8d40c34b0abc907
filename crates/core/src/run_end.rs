//! The end of a Playwright run, as the reporter meets it: the run's ledger is written, then a
//! capture-only shard leaves its captures for the merge job, and any other run gathers its
//! evidence into results.json and the HTML report (a comparing shard then drops the captures of
//! passed snapshots).
//! Every line the reporter prints is said here, so the reporter, `sightline compare` and the
//! matcher agree on what a capture-only shard is and how a run's counts read.

use std::path::Path;

use crate::batch::finish_shard;
use crate::config::{Settings, ShardMode};
use crate::error::Result;
use crate::report::write_report;
use crate::results::{RunInfo, ShardPosition, write_results};
use crate::store::ProjectStore;
use crate::store::ledger::{RunLedger, write_ledger};

/// Ends the run of `root`: writes `ledger` and results.json (or, in a capture-only shard, the
/// shard's manifest) and returns the lines to print, in order. `.sightline/config.json` is read
/// once.
pub fn finish_run(root: &Path, ledger: &RunLedger, shard: Option<ShardPosition>) -> Result<Vec<String>> {
    let config = Settings::read(root)?;
    let store = ProjectStore::with_layout(root, config.baseline_path.clone());
    // Which tests ran, so only a baseline whose test ran (or is gone) can be called missing.
    write_ledger(&store, ledger)?;
    if let (ShardMode::CaptureOnly, Some(shard)) = (config.shard_mode, shard) {
        // Only captures: the merge job runs `sightline compare --captures <shard folders…>`.
        let manifest = finish_shard(&store, shard.current, shard.total, ShardMode::CaptureOnly)?;
        return Ok(vec![format!(
            "shard {}/{} captured {} snapshots (capture-only) → .sightline/temp",
            shard.current, shard.total, manifest.captures
        )]);
    }
    let report_dir = config.report_dir.clone();
    let run =
        RunInfo { mode: "compare".into(), shard, root: root.display().to_string(), config, filtered: !ledger.complete };
    let results = write_results(&store, Path::new(&report_dir), &run)?;
    write_report(root, Path::new(&report_dir), &results)?;
    // A comparing shard uploads evidence, not every capture: passed snapshots drop theirs.
    if let Some(shard) = shard {
        finish_shard(&store, shard.current, shard.total, ShardMode::Compare)?;
    }
    // As Playwright says which snapshots it wrote: one line per baseline an update run wrote.
    let mut lines = results.written_baselines(&store)?;
    let summary = &results.summary;
    let results_json = Path::new(&report_dir).join("results.json");
    lines.push(format!("{} → {}", summary.line(), results_json.display()));
    // Where a person goes next: something to approve, not a shard.
    lines.extend(results.review_hint().map(str::to_string));
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ledger::LEDGER_VERSION;

    fn ledger() -> RunLedger {
        RunLedger {
            version: LEDGER_VERSION,
            root_dir: None,
            narrowed: false,
            complete: true,
            tests: Vec::new(),
            ended: None,
        }
    }

    fn root(test: &str, config: &str) -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!("sightline-run-end-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join(".sightline")).unwrap();
        std::fs::write(root.join(".sightline/config.json"), config).unwrap();
        root
    }

    #[test]
    fn run_end_a_capture_only_shard_leaves_its_captures_and_writes_no_results() {
        let root = root("capture-only", r#"{"shardMode": "capture-only", "reportDir": "out"}"#);
        let lines = finish_run(&root, &ledger(), Some(ShardPosition { current: 1, total: 2 })).unwrap();
        assert_eq!(lines, ["shard 1/2 captured 0 snapshots (capture-only) → .sightline/temp"]);
        assert!(!root.join("out/results.json").exists());
        assert!(root.join(".sightline/temp/shard.json").exists());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn run_end_a_whole_run_writes_results_in_the_report_dir_and_says_its_counts() {
        // capture-only means nothing without --shard.
        let root = root("whole", r#"{"shardMode": "capture-only", "reportDir": "out"}"#);
        let lines = finish_run(&root, &ledger(), None).unwrap();
        assert_eq!(lines, ["0 snapshots — 0 passed, 0 changed, 0 new, 0 missing → out/results.json"]);
        assert!(root.join("out/results.json").exists());
        assert!(root.join(".sightline/temp/run.json").exists(), "the ledger");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
