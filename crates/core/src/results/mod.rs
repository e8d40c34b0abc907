//! `<reportDir>/results.json`: the run's evidence as one typed document (02-results.md,
//! "results.json"). [`gather`] writes it at the end of a run from the evidence every worker left
//! in `.sightline/temp`; [`read`] reads it back and checks it. The HTML report, grouping, the
//! review commands and every MCP tool read these types, so no front-end picks fields out of JSON
//! by name and none recomputes a verdict.

mod gather;
mod read;

use serde::{Deserialize, Serialize};

use crate::config::Config;

use crate::grouping::Group;
use crate::snapshot::SnapshotEvidence;

pub use gather::{rfc3339, write_results};
pub use read::{MAX_RESULTS_BYTES, RESULTS_VERSION, ResultsFile, parse_results, read_results};

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
}

/// `value` with its keys in alphabetical order, as results.json has always written the snapshot
/// entries and the config (they were JSON values before they were types).
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
    #[serde(serialize_with = "keys_sorted")]
    pub config: Config,
    /// Some tests were filtered out (grep, file arguments): missing baselines are not reported.
    pub filtered: bool,
}

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
}

/// A committed baseline with no capture in a full run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingBaseline {
    pub name: String,
    pub project: String,
    pub files: MissingFiles,
}

/// Where a missing snapshot's baseline is, relative to the project root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingFiles {
    pub baseline: String,
}
