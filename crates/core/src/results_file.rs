//! Reading `results.json` back: the one check every reader (CLI, MCP server, report) relies on
//! before touching a field. A file cut short, edited by hand or from another version is refused
//! with its path and the fix, instead of surfacing later as an empty list or a wrong count.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::verdict::Status;

/// Larger than any real run (1000 snapshots are ~2 MB) and small enough to hold in memory.
pub const MAX_RESULTS_BYTES: u64 = 256 * 1024 * 1024;

/// The results format this version writes and reads.
pub const RESULTS_VERSION: u64 = 1;

/// One snapshot's identity and outcome, the part every reader uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotHead {
    pub name: String,
    pub project: String,
    pub status: Status,
    /// The one-line verdict.
    pub verdict: String,
}

/// A checked results.json: the typed heads of its snapshots, the whole document for the
/// fields only some readers need, and its text as written.
#[derive(Debug, Clone)]
pub struct RunResults {
    pub snapshots: Vec<SnapshotHead>,
    pub value: Value,
    pub raw: String,
}

/// Reads and checks `path`.
pub fn read_results(path: &Path) -> Result<RunResults> {
    let size = std::fs::metadata(path).map_err(|e| Error::io(path, e))?.len();
    if size > MAX_RESULTS_BYTES {
        return Err(bad(path, format!("{size} bytes, above the limit of {MAX_RESULTS_BYTES}")));
    }
    let raw = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse_results(raw, path)
}

/// Checks the text of a results.json; `path` only names it in errors.
pub fn parse_results(raw: String, path: &Path) -> Result<RunResults> {
    let value: Value = serde_json::from_str(&raw).map_err(|e| bad(path, format!("not valid JSON ({e})")))?;
    let version = value.get("version").and_then(Value::as_u64);
    if version != Some(RESULTS_VERSION) {
        let found = value.get("version").map_or("none".to_string(), Value::to_string);
        return Err(bad(path, format!("format version {found}, this sightline reads {RESULTS_VERSION}")));
    }
    let entries =
        value.get("snapshots").and_then(Value::as_array).ok_or_else(|| bad(path, "no \"snapshots\" list".into()))?;
    let snapshots =
        entries.iter().enumerate().map(|(i, entry)| snapshot_head(entry, i, path)).collect::<Result<Vec<_>>>()?;
    for key in ["summary", "run"] {
        if !value.get(key).is_some_and(Value::is_object) {
            return Err(bad(path, format!("no \"{key}\" object")));
        }
    }
    if value.get("missingBaselines").is_some_and(|m| !m.is_array()) {
        return Err(bad(path, "\"missingBaselines\" is not a list".into()));
    }
    Ok(RunResults { snapshots, value, raw })
}

fn snapshot_head(entry: &Value, index: usize, path: &Path) -> Result<SnapshotHead> {
    let field = |key: &str| {
        entry
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| bad(path, format!("snapshots[{index}] has no \"{key}\" text")))
    };
    let (name, project, verdict) = (field("name")?, field("project")?, field("verdict")?);
    let status = entry
        .get("status")
        .and_then(|s| serde_json::from_value::<Status>(s.clone()).ok())
        .ok_or_else(|| bad(path, format!("snapshots[{index}] has no status among passed, changed, new, missing")))?;
    Ok(SnapshotHead { name, project, status, verdict })
}

fn bad(path: &Path, detail: String) -> Error {
    Error::BadResults { path: PathBuf::from(path), detail }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<RunResults> {
        parse_results(text.to_string(), Path::new("visual-report/results.json"))
    }

    const GOOD: &str = r#"{"version": 1, "run": {}, "summary": {"total": 1},
        "snapshots": [{"name": "home", "project": "chromium", "status": "changed", "verdict": "Style-only change"}],
        "missingBaselines": []}"#;

    #[test]
    fn results_file_reads_the_heads_of_a_good_file() {
        let results = parse(GOOD).unwrap();
        assert_eq!(
            results.snapshots,
            [SnapshotHead {
                name: "home".into(),
                project: "chromium".into(),
                status: Status::Changed,
                verdict: "Style-only change".into()
            }]
        );
        assert_eq!(results.value["summary"]["total"], 1);
    }

    #[test]
    fn results_file_refuses_damaged_files_naming_what_is_wrong() {
        let cases = [
            (r#"{"version": 1, "snapshots": ["#, "not valid JSON"),
            (r#"{"version": 2, "snapshots": []}"#, "format version 2, this sightline reads 1"),
            (r#"{"snapshots": []}"#, "format version none"),
            (r#"{"version": 1, "snapshots": "all"}"#, "no \"snapshots\" list"),
            (
                r#"{"version": 1, "run": {}, "summary": {}, "snapshots": [{"name": "a"}]}"#,
                "snapshots[0] has no \"project\" text",
            ),
            (
                r#"{"version": 1, "snapshots": [{"name": "a", "project": "p", "verdict": "", "status": "fine"}]}"#,
                "snapshots[0] has no status",
            ),
            (r#"{"version": 1, "run": {}, "snapshots": []}"#, "no \"summary\" object"),
            (
                r#"{"version": 1, "run": {}, "summary": {}, "snapshots": [], "missingBaselines": 3}"#,
                "\"missingBaselines\" is not a list",
            ),
        ];
        for (text, says) in cases {
            let message = parse(text).unwrap_err().to_string();
            assert!(message.starts_with("visual-report/results.json: "), "{message}");
            assert!(message.contains(says), "{text} → {message}");
            assert!(message.ends_with("run the tests again to rewrite it"), "{message}");
        }
    }
}
