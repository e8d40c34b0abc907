//! Which tests a run held, and the rule that decides when a baseline is *missing*.
//!
//! A baseline is missing when the `toMatchVisual` call that made it is gone, never merely
//! because this run did not select its test (a file argument, `-g`, `--project`, a shard,
//! `test.only`, a skip). So every capture records the test that made it ([`TestRef`]), an
//! approved baseline keeps it, and the reporter leaves the run's [`RunLedger`] in
//! `.sightline/temp/run.json`. [`missing_reason`] compares the two: the baseline's test ran to
//! its end and captured nothing, or the test is gone from the suite.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ProjectStore, project_file_stem};
use crate::error::{Error, Result};

/// The ledger format this build writes and reads.
pub const LEDGER_VERSION: u32 = 1;

/// Largest ledger read back (a suite of ~100 000 tests).
const MAX_LEDGER_BYTES: u64 = 64 << 20;

/// A Playwright test, as a baseline remembers it: the spec file and the title path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestRef {
    /// The spec file, relative to the project root, with `/` separators.
    pub file: String,
    /// The describe titles, then the test's own title.
    pub title: Vec<String>,
    /// The test's line in `file`, for messages (not part of the identity: tests move).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl TestRef {
    /// `file` made relative to `root` (with `/` separators) when it is inside it.
    pub fn new(root: &Path, file: &str, title: Vec<String>, line: Option<u32>) -> Self {
        let path = Path::new(file);
        let relative = path.strip_prefix(root).unwrap_or(path);
        let file = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
        Self { file, title, line }
    }

    /// Whether `other` names the same test (the line may differ).
    pub fn same_test(&self, other: &TestRef) -> bool {
        self.file == other.file && self.title == other.title
    }

    /// `file › describe › title`, as Playwright prints a test.
    pub fn display(&self) -> String {
        std::iter::once(self.file.as_str()).chain(self.title.iter().map(String::as_str)).collect::<Vec<_>>().join(" › ")
    }
}

/// One test of the run, in one project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerTest {
    /// The Playwright project name.
    pub project: String,
    #[serde(flatten)]
    pub test: TestRef,
    /// The test ran its body to the end (passed, or failed only on visual assertions), so every
    /// `toMatchVisual` call in it was reached.
    pub finished: bool,
    /// The test failed or stopped for another reason than a visual assertion (an error, a
    /// timeout, an interruption): the run cannot vouch for what the suite captures.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stopped: bool,
}

/// The tests a run selected and how it selected them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunLedger {
    pub version: u32,
    /// The folder the tests' files are relative to (the Playwright config's folder), when not
    /// the project root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_dir: Option<String>,
    /// Tests were selected within files (`-g`, `--grep-invert`, `test.only`, `file:line`,
    /// `--last-failed`, `--only-changed`, a test list, a shard): a test of a file in this run may
    /// exist without being in [`RunLedger::tests`].
    pub narrowed: bool,
    /// Nothing was filtered out at all (no file arguments, every project ran, not narrowed):
    /// every test of the suite is in [`RunLedger::tests`]. A project that skips visual
    /// assertions (`ignoreSnapshots`) leaves its tests out, so a run with one is not complete.
    pub complete: bool,
    pub tests: Vec<LedgerTest>,
    /// How Playwright said the run ended (`passed`, `failed`, `timedout`, `interrupted`); absent
    /// from ledgers written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
}

impl RunLedger {
    /// The ledger of one shard of a run, or of a run that is not all there: some of the suite's
    /// tests ran elsewhere.
    pub fn partial(mut self) -> Self {
        self.narrowed = true;
        self.complete = false;
        self
    }

    /// One ledger for the shards of one run: every test any shard held. The union stays
    /// narrowed (or incomplete) if any shard was.
    pub fn union(ledgers: Vec<RunLedger>) -> Option<RunLedger> {
        let mut ledgers = ledgers.into_iter();
        let mut all = ledgers.next()?;
        for ledger in ledgers {
            all.narrowed |= ledger.narrowed;
            all.complete &= ledger.complete;
            all.tests.extend(ledger.tests);
            // The whole run ended as its worst shard did.
            if ending_rank(ledger.ended.as_deref()) > ending_rank(all.ended.as_deref()) {
                all.ended = ledger.ended;
            }
        }
        Some(all)
    }
}

/// How bad an ending is, for [`RunLedger::union`].
fn ending_rank(ended: Option<&str>) -> u8 {
    match ended {
        None => 0,
        Some("passed") => 1,
        Some("failed") => 2,
        Some("timedout") => 3,
        Some(_) => 4,
    }
}

/// `.sightline/temp/run.json`.
pub fn ledger_path(store: &ProjectStore) -> PathBuf {
    store.temp_root().join("run.json")
}

/// Writes the run's ledger (atomically) for `results::write_results` and the merge job.
pub fn write_ledger(store: &ProjectStore, ledger: &RunLedger) -> Result<()> {
    let json = serde_json::to_vec(ledger).map_err(|e| Error::Internal(format!("run ledger: {e}")))?;
    store.write(&ledger_path(store), &json)
}

/// The ledger in `temp` (a `.sightline/temp` or a shard's copy of it), if the reporter left one.
pub fn read_ledger(temp: &Path) -> Result<Option<RunLedger>> {
    let path = temp.join("run.json");
    let size = match std::fs::metadata(&path) {
        Ok(meta) => meta.len(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let bad = |detail: String| {
        Error::InvalidInput(format!("{}: {detail}; delete it and run the tests again", path.display()))
    };
    if size > MAX_LEDGER_BYTES {
        return Err(bad(format!("{size} bytes, above the limit of {MAX_LEDGER_BYTES}")));
    }
    let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    let ledger: RunLedger =
        serde_json::from_slice(&bytes).map_err(|e| bad(format!("not a sightline run ledger ({e})")))?;
    if ledger.version != LEDGER_VERSION {
        return Err(bad(format!("run ledger version {} (this sightline reads {LEDGER_VERSION})", ledger.version)));
    }
    Ok(Some(ledger))
}

/// Why the baseline of project `stem` made by `owner` (`None`: approved before tests were
/// recorded) is missing from this run, or `None` when it is not missing. `ledger` is the run's
/// ([`None`]: no reporter ran; `full_run` then decides, as before ledgers); `root` is the project
/// root the owner's file is relative to.
pub fn missing_reason(
    owner: Option<&TestRef>,
    stem: &str,
    ledger: Option<&RunLedger>,
    full_run: bool,
    root: &Path,
) -> Option<String> {
    let Some(ledger) = ledger else {
        return full_run.then(|| "no capture in a full run".to_string());
    };
    let Some(owner) = owner else {
        // Which test made it is not known: only a run of the whole suite can tell.
        return ledger.complete.then(|| "no capture in a full run (approved before its test was recorded)".to_string());
    };
    let spec_root = ledger.root_dir.as_deref().map_or(root, Path::new);
    if !spec_root.join(&owner.file).is_file() {
        return Some(format!("its test file {} no longer exists", owner.file));
    }
    let in_project = |t: &&LedgerTest| project_file_stem(&t.project) == stem;
    if let Some(ran) = ledger.tests.iter().filter(in_project).find(|t| t.test.same_test(owner)) {
        return ran.finished.then(|| format!("its test {} ran to its end without capturing it", owner.display()));
    }
    let file_ran = ledger.tests.iter().filter(in_project).any(|t| t.test.file == owner.file);
    (ledger.complete || (file_ran && !ledger.narrowed))
        .then(|| format!("its test {} is no longer in the suite", owner.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_ref(file: &str, title: &str) -> TestRef {
        TestRef { file: file.into(), title: vec![title.into()], line: Some(3) }
    }

    fn ledger(tests: &[(&str, &str, bool)], narrowed: bool, complete: bool) -> RunLedger {
        RunLedger {
            version: LEDGER_VERSION,
            root_dir: None,
            narrowed,
            complete,
            tests: tests
                .iter()
                .map(|&(file, title, finished)| LedgerTest {
                    project: "Desktop Chrome".into(),
                    test: TestRef { line: Some(9), ..test_ref(file, title) },
                    finished,
                    stopped: false,
                })
                .collect(),
            ended: None,
        }
    }

    /// A project root with `tests/a.spec.ts` and `tests/b.spec.ts`.
    fn root() -> PathBuf {
        let root = std::env::temp_dir().join(format!("sightline-ledger-{}", std::process::id()));
        std::fs::create_dir_all(root.join("tests")).unwrap();
        for file in ["a", "b"] {
            std::fs::write(root.join("tests").join(format!("{file}.spec.ts")), "").unwrap();
        }
        root
    }

    #[test]
    fn ledger_missing_only_when_the_owner_ran_or_is_gone() {
        let root = root();
        let owner = test_ref("tests/a.spec.ts", "home");
        let stem = "Desktop_Chrome";
        let reason = |ledger: &RunLedger| missing_reason(Some(&owner), stem, Some(ledger), false, &root);

        // Its test ran to its end and called toMatchVisual no more: missing.
        let ran = ledger(&[("tests/a.spec.ts", "home", true)], false, true);
        assert_eq!(reason(&ran).unwrap(), "its test tests/a.spec.ts › home ran to its end without capturing it");
        // Its test failed early or was skipped: not reached, not missing.
        assert_eq!(reason(&ledger(&[("tests/a.spec.ts", "home", false)], false, true)), None);
        // Another file was run (a file argument): quiet.
        assert_eq!(reason(&ledger(&[("tests/b.spec.ts", "card", true)], false, false)), None);
        // `-g` selected another test of the same file: quiet.
        assert_eq!(reason(&ledger(&[("tests/a.spec.ts", "card", true)], true, false)), None);
        // The same file ran whole and the test is not in it: renamed or deleted.
        assert_eq!(
            reason(&ledger(&[("tests/a.spec.ts", "card", true)], false, false)).unwrap(),
            "its test tests/a.spec.ts › home is no longer in the suite"
        );
        // A full run without it.
        assert!(reason(&ledger(&[("tests/b.spec.ts", "card", true)], false, true)).is_some());
        // The test ran in another project only: quiet for this project's baseline.
        let mut other_project = ledger(&[("tests/a.spec.ts", "home", true)], false, false);
        other_project.tests[0].project = "Mobile".into();
        assert_eq!(reason(&other_project), None);
        // The spec file is gone, whatever the run selected.
        let gone = test_ref("tests/gone.spec.ts", "home");
        assert_eq!(
            missing_reason(Some(&gone), stem, Some(&ledger(&[], true, false)), false, &root).unwrap(),
            "its test file tests/gone.spec.ts no longer exists"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn ledger_unknown_owner_or_no_ledger_falls_back_to_a_full_run() {
        let root = root();
        assert!(missing_reason(None, "default", Some(&ledger(&[], false, true)), false, &root).is_some());
        assert_eq!(missing_reason(None, "default", Some(&ledger(&[], false, false)), true, &root), None);
        assert_eq!(missing_reason(None, "default", None, true, &root).unwrap(), "no capture in a full run");
        assert_eq!(missing_reason(None, "default", None, false, &root), None);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn ledger_union_of_shards_and_a_test_ref_relative_to_the_root() {
        let a = ledger(&[("tests/a.spec.ts", "home", true)], false, true);
        let b = ledger(&[("tests/b.spec.ts", "card", false)], true, true);
        let all = RunLedger::union(vec![a.clone(), b]).unwrap();
        assert_eq!(all.tests.len(), 2);
        assert!(all.narrowed && all.complete);
        assert!(!a.clone().partial().complete && a.partial().narrowed);
        assert_eq!(RunLedger::union(Vec::new()), None);
        let t = TestRef::new(Path::new("/p"), "/p/tests/x.spec.ts", vec!["d".into(), "t".into()], None);
        assert_eq!(t.file, "tests/x.spec.ts");
        assert_eq!(t.display(), "tests/x.spec.ts › d › t");
    }
}
