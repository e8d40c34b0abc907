//! Removing the baselines no test captures any more (`sightline prune`, the review page's "Remove
//! baseline"). The last run's missing baselines ([`crate::results::MissingBaseline`]) are exactly
//! those: a baseline is missing only when its test ran to its end without capturing it, or is
//! gone from the suite. Deleting one is safe only when that run saw the whole suite and every
//! test in it ran as meant, so a run that left part of the suite out, a shard, an interrupted
//! run or a test that failed for another reason than a visual change is refused, saying why.
//! Each baseline is one file, removed at once; results.json is then written again without it (and
//! the caller writes the report from it), so every reader agrees it is gone.

use std::path::Path;

use crate::error::{Error, Result};
use crate::results::{MissingBaseline, Results, write_report_file};
use crate::snapshot::snapshot_label;
use crate::store::ProjectStore;
use crate::store::ledger::{RunLedger, read_ledger};

/// Why the last run cannot tell which baselines are unused, or `None` when it can. `ledger` is
/// the run's record of which tests ran (`.sightline/temp/run.json`).
pub fn prune_refusal(results: &Results, ledger: Option<&RunLedger>) -> Option<String> {
    const AGAIN: &str = "run the whole suite (npx playwright test), then prune";
    if let Some(shard) = results.run.shard {
        return Some(format!(
            "the last run was shard {}/{}, which sees only its slice of the suite: prune after the job that merges every shard (npx sightline merge)",
            shard.current, shard.total
        ));
    }
    if results.run.filtered {
        return Some(format!(
            "the last run left part of the suite out (file arguments, -g, a project, test.only, ignoreSnapshots): a baseline whose test did not run cannot be called unused; {AGAIN}"
        ));
    }
    let Some(ledger) = ledger else {
        return Some(format!(
            "there is no record of which tests the last run ran (.sightline/temp/run.json; the sightline reporter writes it): {AGAIN}"
        ));
    };
    match ledger.ended.as_deref() {
        Some("interrupted") => return Some(format!("the last run was interrupted before its end; {AGAIN}")),
        Some("timedout") => return Some(format!("the last run stopped at its global timeout; {AGAIN}")),
        _ => {}
    }
    let stopped: Vec<_> = ledger.tests.iter().filter(|t| t.stopped).collect();
    if let Some(first) = stopped.first() {
        let tests = crate::words::plural(stopped.len(), "test");
        return Some(format!(
            "in the last run {tests} failed for another reason than a visual change (first: {}), so their later toMatchVisual calls may never have been reached; fix them, {AGAIN}",
            first.test.display()
        ));
    }
    None
}

/// The baselines the last run found unused, or why it cannot tell: read from results.json and
/// the run's ledger.
pub fn prunable<'a>(store: &ProjectStore, results: &'a Results) -> Result<Vec<&'a MissingBaseline>> {
    let ledger = read_ledger(&store.temp_root())?;
    if let Some(why) = prune_refusal(results, ledger.as_ref()) {
        return Err(Error::InvalidInput(format!("nothing was removed: {why}")));
    }
    Ok(results.missing_baselines.iter().collect())
}

/// What a reader of the run is told beside its missing baselines: that a person can remove them,
/// or why this run cannot tell they are unused. `None` when nothing is missing.
pub fn prune_hint(store: &ProjectStore, results: &Results) -> Option<String> {
    if results.missing_baselines.is_empty() {
        return None;
    }
    let ledger = read_ledger(&store.temp_root());
    let refusal = match &ledger {
        Ok(ledger) => prune_refusal(results, ledger.as_ref()),
        Err(e) => Some(e.to_string()),
    };
    Some(match refusal {
        None => {
            "The run saw the whole suite, so they are unused: a person removes them with npx sightline prune --yes, or Remove baseline on the review page."
                .to_string()
        }
        Some(why) => format!("Whether they are unused cannot be told from this run: {why}."),
    })
}

/// What removing baselines did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    /// The baseline files removed (with their accepted variants), relative to the root.
    pub removed: Vec<String>,
    /// Those already gone (removed by hand, or by an earlier prune of the same run).
    pub already_gone: Vec<String>,
}

/// Removes the unused baselines of the last run — all of them, or those of `only` (`(name,
/// project)`, project as results.json spells it) — and writes results.json again without them;
/// the caller writes the report from `results`. Every asked-for baseline is checked to be one of
/// the run's unused ones before anything is removed.
pub fn prune(
    store: &ProjectStore,
    report_dir: &Path,
    results: &mut Results,
    only: Option<&[(String, String)]>,
) -> Result<Pruned> {
    let unused = prunable(store, results)?;
    let chosen: Vec<MissingBaseline> = match only {
        None => unused.into_iter().cloned().collect(),
        Some(asked) => {
            let mut chosen = Vec::new();
            for (name, project) in asked {
                let found = unused.iter().find(|m| &m.name == name && &m.project == project).ok_or_else(|| {
                    Error::InvalidInput(format!(
                        "nothing was removed: {} is not an unused baseline of the last run (only a baseline the run found missing can be removed)",
                        snapshot_label(name, project)
                    ))
                })?;
                chosen.push((*found).clone());
            }
            chosen
        }
    };
    // Each file is the layout's own baseline for its snapshot, inside the project: results.json
    // is checked, not trusted, before a file is deleted on its word.
    let mut files = Vec::new();
    for missing in &chosen {
        let path = store.baseline_png(&missing.name, &missing.project)?;
        if store.relative(&path) != missing.files.baseline {
            return Err(Error::InvalidInput(format!(
                "nothing was removed: results.json names {} as the baseline of {}, which is {} in this project's layout; run the tests again",
                missing.files.baseline,
                snapshot_label(&missing.name, &missing.project),
                store.relative(&path)
            )));
        }
        files.push(path);
    }
    let mut pruned = Pruned::default();
    for (missing, path) in chosen.iter().zip(&files) {
        // Its accepted variants first: a removal stopped half way leaves the baseline, which the
        // next prune finds again, never variants no listing shows.
        pruned.removed.extend(crate::variants::remove_all_variants(store, &missing.name, &missing.project)?);
        let relative = store.relative(path);
        if path.symlink_metadata().is_err() {
            pruned.already_gone.push(relative);
            continue;
        }
        store.remove(path)?;
        // The snapshot's folder goes with its last baseline; one still holding files stays.
        if let Some(folder) = path.parent()
            && folder != store.baselines_root()
        {
            let _ = std::fs::remove_dir(folder);
        }
        pruned.removed.push(relative);
    }
    results.missing_baselines.retain(|m| !chosen.contains(m));
    results.summary.missing = results.missing_baselines.len()
        + results.snapshots.iter().filter(|s| s.status == crate::verdict::Status::Missing).count();
    let json = serde_json::to_vec_pretty(&*results).map_err(|e| Error::Internal(format!("results.json: {e}")))?;
    write_report_file(store.root(), report_dir, &store.root().join(report_dir).join("results.json"), &json)?;
    Ok(pruned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::MissingFiles;
    use crate::store::ledger::{LEDGER_VERSION, LedgerTest, TestRef, write_ledger};

    /// A project with one unused baseline (`old`, its test gone) and the run that found it.
    fn project(test: &str) -> (std::path::PathBuf, ProjectStore, Results) {
        let root = std::env::temp_dir().join(format!("sightline-prune-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = ProjectStore::new(&root);
        for name in ["old", "kept"] {
            let path = store.baseline_png(name, "chromium").unwrap();
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, b"baseline").unwrap();
        }
        let mut results: Results =
            serde_json::from_str(include_str!("../../../tests/golden/example-results.json")).unwrap();
        results.missing_baselines.push(MissingBaseline {
            name: "old".into(),
            project: "chromium".into(),
            files: MissingFiles { baseline: ".sightline/baselines/old/chromium.png".into() },
            reason: "its test tests/old.spec.ts › old is no longer in the suite".into(),
            test: Some(TestRef { file: "tests/old.spec.ts".into(), title: vec!["old".into()], line: Some(3) }),
        });
        results.summary.missing = 1;
        write_ledger(&store, &ledger(false, None)).unwrap();
        (root, store, results)
    }

    fn ledger(stopped: bool, ended: Option<&str>) -> RunLedger {
        RunLedger {
            version: LEDGER_VERSION,
            root_dir: None,
            narrowed: false,
            complete: true,
            tests: vec![LedgerTest {
                project: "chromium".into(),
                test: TestRef { file: "tests/home.spec.ts".into(), title: vec!["home".into()], line: Some(4) },
                finished: !stopped,
                stopped,
            }],
            ended: ended.map(str::to_string),
        }
    }

    #[test]
    fn prune_removes_exactly_the_unused_baselines_and_rewrites_results_json() {
        let (root, store, mut results) = project("removes");
        // An accepted variant goes with its baseline; the kept snapshot's stays.
        for name in ["old", "kept"] {
            std::fs::write(store.variant_png(name, "chromium", 2).unwrap(), b"variant").unwrap();
        }
        let pruned = prune(&store, Path::new("visual-report"), &mut results, None).unwrap();
        assert_eq!(
            pruned.removed,
            [".sightline/baselines/old/chromium.variant-2.png", ".sightline/baselines/old/chromium.png"]
        );
        assert!(root.join(".sightline/baselines/kept/chromium.variant-2.png").is_file());
        assert!(!root.join(".sightline/baselines/old").exists(), "the emptied folder goes too");
        assert!(root.join(".sightline/baselines/kept/chromium.png").is_file());
        let written = crate::results::read_results(&root.join("visual-report/results.json")).unwrap().results;
        assert!(written.missing_baselines.is_empty());
        assert_eq!(written.summary.missing, 0);
        // The same run again: nothing left to remove.
        assert_eq!(prune(&store, Path::new("visual-report"), &mut results, None).unwrap(), Pruned::default());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn prune_refuses_a_run_that_cannot_tell_and_removes_nothing() {
        let (root, store, results) = project("refuses");
        let refused =
            |results: &mut Results| prune(&store, Path::new("visual-report"), results, None).unwrap_err().to_string();
        let mut filtered = results.clone();
        filtered.run.filtered = true;
        assert!(
            refused(&mut filtered).contains("the last run left part of the suite out"),
            "{}",
            refused(&mut filtered)
        );
        let mut shard = results.clone();
        shard.run.shard = Some(crate::results::ShardPosition { current: 1, total: 3 });
        assert!(refused(&mut shard).contains("shard 1/3"));
        for (ledger, said) in [
            (
                ledger(true, Some("failed")),
                "1 test failed for another reason than a visual change (first: tests/home.spec.ts › home)",
            ),
            (ledger(false, Some("interrupted")), "the last run was interrupted"),
            (ledger(false, Some("timedout")), "global timeout"),
        ] {
            write_ledger(&store, &ledger).unwrap();
            let message = refused(&mut results.clone());
            assert!(message.contains("nothing was removed: "), "{message}");
            assert!(message.contains(said), "{message}");
        }
        std::fs::remove_file(store.temp_root().join("run.json")).unwrap();
        assert!(refused(&mut results.clone()).contains("no record of which tests the last run ran"));
        assert!(root.join(".sightline/baselines/old/chromium.png").is_file(), "nothing was removed");
        assert!(!root.join("visual-report/results.json").exists(), "nothing was written");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn prune_of_one_baseline_checks_it_is_unused_and_where_the_layout_keeps_it() {
        let (root, store, results) = project("one");
        let asked = |name: &str| vec![(name.to_string(), "chromium".to_string())];
        let message = prune(&store, Path::new("visual-report"), &mut results.clone(), Some(&asked("kept")))
            .unwrap_err()
            .to_string();
        assert!(message.contains("kept (chromium) is not an unused baseline of the last run"), "{message}");
        let mut moved = results.clone();
        moved.missing_baselines[0].files.baseline = "../elsewhere.png".into();
        let message = prune(&store, Path::new("visual-report"), &mut moved, None).unwrap_err().to_string();
        assert!(message.contains("results.json names ../elsewhere.png as the baseline of old (chromium)"), "{message}");
        assert!(root.join(".sightline/baselines/old/chromium.png").is_file());
        let pruned = prune(&store, Path::new("visual-report"), &mut results.clone(), Some(&asked("old"))).unwrap();
        assert_eq!(pruned.removed.len(), 1);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
