//! `<reportDir>/results.json`: the run's evidence as one typed document (02-results.md,
//! "results.json"). [`gather`] writes it at the end of a run from the evidence every worker left
//! in `.sightline/temp`; [`read`] reads it back and checks it. The HTML report, grouping, the
//! review commands and every MCP tool read these types, so no front-end picks fields out of JSON
//! by name and none recomputes a verdict.

mod gather;
mod read;
mod view;

// The run ledger is the store's (`.sightline/temp/run.json`); named here too, beside the rule it
// feeds (a missing baseline).

use serde::{Deserialize, Serialize};

use crate::config::Settings;

use crate::grouping::Group;
use crate::snapshot::SnapshotEvidence;

pub use gather::{rfc3339, write_results};
pub use read::{MAX_RESULTS_BYTES, RESULTS_VERSION, ResultsFile, parse_results, read_results};
pub use view::why_no_results;

/// The last run's results.json under `root`: `<root>/<reportDir>/results.json`.
pub fn results_path(root: &std::path::Path, report_dir: &std::path::Path) -> std::path::PathBuf {
    root.join(report_dir).join("results.json")
}

/// Writes `bytes` to `path`, a file of the report folder `<root>/<report_dir>`, atomically, never
/// through a symbolic link out of where the report is kept. A report folder inside the project
/// (`visual-report`, the default) is kept inside the project, as every write of the store. One
/// the user configured outside it (`../reports`, an absolute path elsewhere) is where they chose
/// to have the report, so it is written there, but kept inside that folder: a link in it that
/// leads out of it is refused as well.
pub fn write_report_file(
    root: &std::path::Path,
    report_dir: &std::path::Path,
    path: &std::path::Path,
    bytes: &[u8],
) -> crate::error::Result<()> {
    use std::path::Component;
    // Judged by the words of the setting: `..` or an absolute path elsewhere means outside on
    // purpose; a link in the project that leads out is what the project's check refuses.
    let in_project = if report_dir.is_absolute() { report_dir.strip_prefix(root).ok() } else { Some(report_dir) }
        .is_some_and(|rest| rest.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir)));
    if in_project {
        crate::store::write_inside(root, path, bytes, crate::store::Durability::RunOutput)
    } else {
        crate::store::write_inside_report_folder(&root.join(report_dir), path, bytes)
    }
}

/// Reads the last run's results.json ([`results_path`]) with its path; when there is none yet the
/// error says to run the tests first (every review command and the review page say the same).
pub fn read_last_run(
    root: &std::path::Path,
    report_dir: &std::path::Path,
) -> crate::error::Result<(std::path::PathBuf, ResultsFile)> {
    let path = results_path(root, report_dir);
    if !path.is_file() {
        return Err(crate::error::Error::InvalidInput(format!(
            "{}: no results yet; run the Playwright tests with the sightline reporter first",
            path.display()
        )));
    }
    let file = read_results(&path)?;
    Ok((path, file))
}

/// The whole of results.json.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Results {
    /// The format version ([`RESULTS_VERSION`]).
    pub version: u64,
    /// When the run was written, RFC 3339 UTC.
    pub created_at: String,
    pub tool: Tool,
    pub run: RunInfo,
    pub summary: Summary,
    /// Sorted by name, then project.
    #[serde(serialize_with = "keys_sorted")]
    pub snapshots: Vec<SnapshotEvidence>,
    pub groups: Vec<Group>,
    pub missing_baselines: Vec<MissingBaseline>,
}

impl Results {
    /// The snapshot called `name` in `project`.
    pub fn snapshot(&self, name: &str, project: &str) -> Option<&SnapshotEvidence> {
        self.snapshots.iter().find(|s| s.name == name && s.project == project)
    }

    /// What "approve all" approves: each changed or new snapshot ([`Status::needs_review`]) as
    /// `(name, project)`, once, in results.json's order. A name is approved only in the projects
    /// where it needs review: its passed capture in another project is not a decision anyone made.
    ///
    /// [`Status::needs_review`]: crate::verdict::Status::needs_review
    pub fn to_approve(&self) -> Vec<(&str, &str)> {
        let mut pending: Vec<(&str, &str)> = Vec::new();
        for s in self.snapshots.iter().filter(|s| s.status.needs_review()) {
            let key = (s.name.as_str(), s.project.as_str());
            if !pending.contains(&key) {
                pending.push(key);
            }
        }
        pending
    }

    /// The lines that tell a person how to approve this run: one for the changed and new
    /// snapshots ([`approve_hint`]), one for the captures that replace a damaged baseline
    /// ([`replace_damaged_hint`]); each name once. People read them (the CLI's run summary); no
    /// model-facing answer carries them.
    ///
    /// [`approve_hint`]: crate::snapshot::approve_hint
    /// [`replace_damaged_hint`]: crate::snapshot::replace_damaged_hint
    pub fn approve_hints(&self) -> Vec<String> {
        let mut judged: Vec<&str> = Vec::new();
        let mut replacing: Vec<&str> = Vec::new();
        for s in self.snapshots.iter().filter(|s| s.approvable()) {
            let names = if s.replaces_damaged_baseline() { &mut replacing } else { &mut judged };
            if !names.contains(&s.name.as_str()) {
                names.push(&s.name);
            }
        }
        crate::snapshot::approve_hint(&judged)
            .into_iter()
            .chain(crate::snapshot::replace_damaged_hint(&replacing))
            .collect()
    }

    /// One line per baseline an update run wrote (`written` snapshots): the committed baseline's
    /// path, relative to the root (the snapshot's `files` point at the report's copies), and what
    /// it was — as Playwright names the snapshots it wrote.
    pub fn written_baselines(&self, store: &crate::store::ProjectStore) -> crate::error::Result<Vec<String>> {
        self.snapshots
            .iter()
            .filter(|s| s.status == crate::verdict::Status::Written)
            .map(|s| {
                let png = store.baseline_png(&s.name, &s.project)?;
                let png = store.relative(&png);
                Ok(format!("{png} — {}", s.verdict))
            })
            .collect()
    }

    /// [`REVIEW_HINT`] when the run has changed or new snapshots to decide on and is a whole run:
    /// a shard's run is reviewed after its merge job.
    pub fn review_hint(&self) -> Option<&'static str> {
        (self.run.shard.is_none() && self.summary.to_approve() > 0).then_some(REVIEW_HINT)
    }
}

/// The line that sends a person to the review page at the end of a run ([`Results::review_hint`]).
pub const REVIEW_HINT: &str = "review and approve in the browser: npx sightline review";

/// What "approve all" says when the last run has nothing [to approve](Results::to_approve).
pub const NOTHING_TO_APPROVE: &str = "nothing to approve: the last run has no changed or new snapshots";

/// `value` with its keys in alphabetical order, as results.json has always written the snapshot
/// entries and the config (they were JSON values before they were types).
/// The settings a config file may set, keys sorted.
fn file_settings<S: serde::Serializer>(settings: &Settings, serializer: S) -> Result<S::Ok, S::Error> {
    settings.file_json().serialize(serializer)
}

fn keys_sorted<T: Serialize, S: serde::Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::Error;
    serde_json::to_value(value).map_err(S::Error::custom)?.serialize(serializer)
}

/// What wrote the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Tool {
    /// This build of sightline.
    pub fn this() -> Self {
        Self { name: "sightline".into(), version: env!("CARGO_PKG_VERSION").into() }
    }
}

/// How the run was made, as results.json records it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunInfo {
    /// `compare` or `capture-only`.
    pub mode: String,
    /// The shard this run was, under `--shard`; `None` for a whole run.
    pub shard: Option<ShardPosition>,
    pub root: String,
    /// The effective `.sightline/config.json` settings (unset optional keys left out).
    #[serde(serialize_with = "file_settings")]
    pub config: Settings,
    /// Part of the suite was left out (file arguments, `-g`, `--project`, a shard, `test.only`):
    /// only baselines whose test is known to be gone are reported missing.
    pub filtered: bool,
}

/// What a filtered run ([`RunInfo::filtered`]) means for missing baselines, as the report and
/// the MCP server say it.
pub const FILTERED_RUN_NOTE: &str = "Part of the suite was left out of this run (file arguments, -g, a project, \
     test.only): a baseline is reported missing only when its test ran without capturing it, or is gone.";

/// Which shard of how many (`--shard=current/total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardPosition {
    pub current: u32,
    pub total: u32,
}

/// Counts per status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub total: usize,
    pub passed: usize,
    pub changed: usize,
    pub new: usize,
    pub missing: usize,
    pub auto_passed: usize,
    /// Baselines an update run wrote (new or changed snapshots); not in `passed`.
    #[serde(default)]
    pub written: usize,
    /// Snapshots whose baseline or capture cannot be read (status `error`); not compared.
    /// Written only when there is one, as results.json had it before damaged files were results.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub error: usize,
}

impl Summary {
    /// `p passed, c changed, n new[, w written], m missing`: the counts as every run summary line
    /// (the reporter's, `sightline compare / merge / report`) says them; `written` only when an
    /// update run wrote baselines, as the HTML report shows it.
    pub fn counts(&self) -> String {
        let written = if self.written > 0 { format!(", {} written", self.written) } else { String::new() };
        format!(
            "{} passed, {} changed, {} new{written}, {} missing{}",
            self.passed,
            self.changed,
            self.new,
            self.missing,
            self.error_count()
        )
    }

    /// `, N error(s)` when a baseline or capture could not be read, else nothing: a run that had
    /// none does not mention it.
    pub fn error_count(&self) -> String {
        match self.error {
            0 => String::new(),
            1 => ", 1 error".to_string(),
            n => format!(", {n} errors"),
        }
    }

    /// How many snapshots need a person: changed, new ([`Status::needs_review`]), missing, or
    /// not compared for a damaged file. A run with any fails, and its report is titled with how
    /// many.
    ///
    /// [`Status::needs_review`]: crate::verdict::Status::needs_review
    pub fn to_review(&self) -> usize {
        self.changed + self.new + self.missing + self.error
    }

    /// How many snapshots a person can approve or reject: changed or new.
    pub fn to_approve(&self) -> usize {
        self.changed + self.new
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A committed baseline whose `toMatchVisual` call is gone: its test ran to its end without
/// capturing it, or the test itself is gone ([`ledger::missing_reason`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingBaseline {
    pub name: String,
    pub project: String,
    pub files: MissingFiles,
    /// Why it is missing, e.g. `its test tests/home.spec.ts › home ran to its end without
    /// capturing it`.
    #[serde(default)]
    pub reason: String,
    /// The test that made the baseline, when it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<crate::store::ledger::TestRef>,
}

impl MissingBaseline {
    /// The one sentence every front-end shows for it: what is missing and why.
    pub fn verdict(&self) -> String {
        let why = if self.reason.is_empty() { "no capture in a full run" } else { &self.reason };
        format!("Missing snapshot: a baseline is committed but this run captured none; {why}")
    }
}

/// Where a missing snapshot's baseline is, relative to the project root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingFiles {
    pub baseline: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Status;

    #[test]
    fn results_to_approve_is_each_changed_or_new_snapshot_in_its_own_project() {
        let mut results: Results =
            serde_json::from_str(include_str!("../../../../tests/golden/example-results.json")).unwrap();
        // `home` changed in chromium and passed in firefox; `about` passed; `catalogue` changed.
        let mut firefox = results.snapshot("home", "chromium").unwrap().clone();
        firefox.project = "firefox".into();
        firefox.status = Status::Passed;
        results.snapshots.push(firefox);
        let mut fresh = results.snapshot("about", "chromium").unwrap().clone();
        fresh.name = "fresh".into();
        fresh.status = Status::New;
        results.snapshots.push(fresh.clone());
        // A name listed twice for one project is approved once.
        results.snapshots.push(fresh);
        assert_eq!(results.to_approve(), [("catalogue", "chromium"), ("home", "chromium"), ("fresh", "chromium")]);
        for s in &mut results.snapshots {
            s.status = Status::Passed;
        }
        assert!(results.to_approve().is_empty());
    }

    #[test]
    fn results_summary_counts_say_written_only_when_an_update_run_wrote() {
        let mut summary =
            Summary { total: 6, passed: 2, changed: 1, new: 1, missing: 1, auto_passed: 1, written: 0, error: 0 };
        assert_eq!(summary.counts(), "2 passed, 1 changed, 1 new, 1 missing");
        summary.written = 2;
        assert_eq!(summary.counts(), "2 passed, 1 changed, 1 new, 2 written, 1 missing");
        assert_eq!(summary.to_review(), 3);
        // A damaged file is counted only when there is one, and needs a look.
        summary.error = 1;
        assert_eq!(summary.counts(), "2 passed, 1 changed, 1 new, 2 written, 1 missing, 1 error");
        assert_eq!(summary.to_review(), 4);
    }

    #[test]
    fn results_written_baselines_name_the_committed_file_and_what_it_was() {
        let mut results: Results =
            serde_json::from_str(include_str!("../../../../tests/golden/example-results.json")).unwrap();
        let store = crate::store::ProjectStore::new(std::env::temp_dir().join("sightline-written-baselines"));
        assert!(results.written_baselines(&store).unwrap().is_empty());
        results.snapshots[2].status = Status::Written;
        results.snapshots[2].verdict = "Baseline written by --update-snapshots: a new snapshot".into();
        assert_eq!(
            results.written_baselines(&store).unwrap(),
            [".sightline/baselines/home/chromium.png — Baseline written by --update-snapshots: a new snapshot"]
        );
    }

    #[test]
    fn results_review_hint_only_for_a_whole_run_with_something_to_approve() {
        let mut results: Results =
            serde_json::from_str(include_str!("../../../../tests/golden/example-results.json")).unwrap();
        assert_eq!(results.review_hint(), Some("review and approve in the browser: npx sightline review"));
        results.run.shard = Some(ShardPosition { current: 1, total: 2 });
        assert_eq!(results.review_hint(), None, "a shard is reviewed after its merge job");
        results.run.shard = None;
        results.summary = Summary { total: 1, passed: 1, missing: 2, ..Summary::default() };
        assert_eq!(results.review_hint(), None, "missing baselines are not approved");
    }
}
