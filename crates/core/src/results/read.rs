//! Reading `results.json` back: the one check every reader (CLI, MCP server, report) relies on
//! before touching a field. A file cut short, edited by hand or from another version is refused
//! with its path, the field at fault and the fix, instead of surfacing later as an empty list or
//! a wrong count.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Results;
use crate::error::{Error, Result};

/// Larger than any real run (1000 snapshots are ~2 MB) and small enough to hold in memory.
pub const MAX_RESULTS_BYTES: u64 = 256 * 1024 * 1024;

/// The results format this version writes and reads.
pub const RESULTS_VERSION: u64 = 1;

/// A checked results.json and its text as written (`get_results_json` serves the text).
#[derive(Debug, Clone)]
pub struct ResultsFile {
    pub results: Results,
    pub raw: String,
}

/// Reads and checks `path`.
pub fn read_results(path: &Path) -> Result<ResultsFile> {
    let size = std::fs::metadata(path).map_err(|e| Error::io(path, e))?.len();
    if size > MAX_RESULTS_BYTES {
        return Err(bad(path, format!("{size} bytes, above the limit of {MAX_RESULTS_BYTES}")));
    }
    let raw = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse_results(raw, path)
}

/// Checks the text of a results.json; `path` only names it in errors.
pub fn parse_results(raw: String, path: &Path) -> Result<ResultsFile> {
    let value: serde_json::Value =
        serde_json::from_str(&raw).map_err(|e| bad(path, format!("not valid JSON ({e})")))?;
    if !value.is_object() {
        return Err(bad(path, "not a JSON object".into()));
    }
    // The version first: a file from another version is named as such, not as a missing field.
    let Versioned { version } = Versioned::deserialize(&value).map_err(|e| bad(path, e.to_string()))?;
    if version.as_ref().and_then(serde_json::Value::as_u64) != Some(RESULTS_VERSION) {
        let found = version.map_or("none".to_string(), |v| v.to_string());
        return Err(bad(path, format!("format version {found}, this sightline reads {RESULTS_VERSION}")));
    }
    let results: Results = serde_path_to_error::deserialize(&value).map_err(|e| {
        let at = e.path().to_string();
        let inner = e.into_inner();
        // serde names a missing field itself; the path says whose field it is.
        bad(path, if at == "." { inner.to_string() } else { format!("{at}: {inner}") })
    })?;
    Ok(ResultsFile { results, raw })
}

/// The one field read before the others, of any type (a wrong one is quoted in the error): an
/// object always reads as this; a missing or null `version` is `None`.
#[derive(Deserialize)]
struct Versioned {
    version: Option<serde_json::Value>,
}

fn bad(path: &Path, detail: String) -> Error {
    Error::BadResults { path: PathBuf::from(path), detail }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::verdict::Status;

    /// The bundled example's results.json as the golden test pins it (paths and times normalised).
    const EXAMPLE: &str = include_str!("../../../../tests/golden/example-results.json");

    fn parse(text: &str) -> Result<ResultsFile> {
        parse_results(text.to_string(), Path::new("visual-report/results.json"))
    }

    #[test]
    fn results_read_types_every_field_and_writes_the_same_document_back() {
        let file = parse(EXAMPLE).unwrap();
        let results = &file.results;
        let heads: Vec<_> = results.snapshots.iter().map(|s| (s.name.as_str(), s.status)).collect();
        assert_eq!(heads, [("about", Status::Passed), ("catalogue", Status::Changed), ("home", Status::Changed)],);
        assert_eq!((results.summary.total, results.summary.changed), (3, 2));
        // Nothing is dropped or renamed on the way through the types.
        let original: Value = serde_json::from_str(EXAMPLE).unwrap();
        assert_eq!(serde_json::to_value(results).unwrap(), original);
    }

    #[test]
    fn results_read_refuses_damaged_files_naming_the_field() {
        let example: Value = serde_json::from_str(EXAMPLE).unwrap();
        let edited = |edit: fn(&mut Value)| {
            let mut value = example.clone();
            edit(&mut value);
            value.to_string()
        };
        let cases = [
            (r#"{"version": 1, "snapshots": ["#.to_string(), "not valid JSON"),
            (r#"{"version": 2, "snapshots": []}"#.to_string(), "format version 2, this sightline reads 1"),
            (r#"{"snapshots": []}"#.to_string(), "format version none"),
            (r#"[1]"#.to_string(), "not a JSON object"),
            (edited(|v| v["snapshots"] = json!("all")), "snapshots: invalid type: string \"all\", expected a sequence"),
            (
                edited(|v| {
                    v["snapshots"][0].as_object_mut().unwrap().remove("project");
                }),
                "snapshots[0]: missing field `project`",
            ),
            (edited(|v| v["snapshots"][1]["status"] = json!("fine")), "snapshots[1].status: unknown variant `fine`"),
            (
                edited(|v| v["snapshots"][2]["layers"]["pixel"]["regions"][0]["x"] = json!(-1)),
                "snapshots[2].layers.pixel.regions[0].x: invalid value: integer `-1`",
            ),
            (
                edited(|v| {
                    v.as_object_mut().unwrap().remove("summary");
                }),
                "missing field `summary`",
            ),
            (edited(|v| v["missingBaselines"] = json!(3)), "missingBaselines: invalid type: integer `3`"),
        ];
        for (text, says) in cases {
            let message = parse(&text).unwrap_err().to_string();
            assert!(message.starts_with("visual-report/results.json: "), "{message}");
            assert!(message.contains(says), "{says} → {message}");
            assert!(message.ends_with("run the tests again to rewrite it"), "{message}");
        }
    }
}
