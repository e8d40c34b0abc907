//! `.sightline/review.json`: the decisions a person made on this run's captures, each bound to the
//! capture it was made on ([`capture_fingerprint`], remembered per capture file by
//! [`CaptureFingerprints`]), read, replaced and written atomically.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::store::ProjectStore;

/// The review state's file name under `.sightline/`.
pub const REVIEW_STATE_FILE: &str = "review.json";

/// The review state format this version reads and writes.
const REVIEW_STATE_VERSION: u32 = 1;

/// What a person decided about one capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Decision {
    /// The capture became the baseline.
    Approved,
    /// The capture is wrong: the page must be fixed, not the baseline.
    Rejected,
}

/// One decision, bound to the capture it was made on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewDecision {
    pub name: String,
    /// The Playwright project as results.json names it.
    pub project: String,
    pub decision: Decision,
    /// The capture decided on ([`capture_fingerprint`]).
    pub capture: String,
    /// The baseline an approval wrote, relative to the project root: what to `git add`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// The approval made the capture this accepted variant, beside the baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<u8>,
}

/// `.sightline/review.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewState {
    pub version: u32,
    pub decisions: Vec<ReviewDecision>,
}

impl Default for ReviewState {
    fn default() -> Self {
        Self { version: REVIEW_STATE_VERSION, decisions: Vec::new() }
    }
}

/// `.sightline/review.json` of `store`.
pub fn review_state_path(store: &ProjectStore) -> PathBuf {
    store.root().join(".sightline").join(REVIEW_STATE_FILE)
}

/// The review state, empty when no review has been made yet.
pub fn read_review_state(store: &ProjectStore) -> Result<ReviewState> {
    let path = review_state_path(store);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ReviewState::default()),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let state: ReviewState = serde_json::from_slice(&bytes).map_err(|e| {
        Error::InvalidInput(format!("{}: not a review state ({e}); delete it to start the review over", path.display()))
    })?;
    if state.version != REVIEW_STATE_VERSION {
        return Err(Error::InvalidInput(format!(
            "{}: review state version {} (this sightline reads {REVIEW_STATE_VERSION}); delete it to start the review over",
            path.display(),
            state.version
        )));
    }
    Ok(state)
}

/// Writes the review state atomically (temp file + rename), so an interrupted write leaves the
/// previous decisions whole.
pub(super) fn write_review_state(store: &ProjectStore, state: &ReviewState) -> Result<()> {
    let json = serde_json::to_vec_pretty(state).map_err(|e| Error::InvalidInput(format!("review state: {e}")))?;
    store.write(&review_state_path(store), &json)
}

/// The identity of this run's capture of `name` for `project`: its size and an XXH3-128 of its
/// pixels, or `None` when there is no capture. What a person decided on is what the capture
/// shows: the same page captured again by a later run (another server port in the stored URL,
/// another test line) is the same capture, and any pixel that differs makes a new one.
pub fn capture_fingerprint(store: &ProjectStore, name: &str, project: &str) -> Result<Option<String>> {
    if !store.capture_path(name, project)?.is_file() {
        return Ok(None);
    }
    let image = store.read_capture(name, project)?.image;
    let pixels = xxhash_rust::xxh3::xxh3_128(image.as_bytes());
    Ok(Some(format!("{}x{}-{pixels:032x}", image.width(), image.height())))
}

/// Which file a capture is on disk: a run writes every capture to a new file and renames it into
/// place, so a capture rewritten since has another inode, modification time or length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
}

impl FileStamp {
    fn of(metadata: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(metadata);
        #[cfg(not(unix))]
        let inode = 0;
        Self { len: metadata.len(), modified: metadata.modified().ok(), inode }
    }
}

/// [`capture_fingerprint`]s remembered for as long as their capture file stays the same file, so
/// a review server that shows the decisions on every page load and after every click decodes
/// each decided capture once (a full page is ≈20 ms to decompress and hash), not each time.
#[derive(Debug, Default)]
pub struct CaptureFingerprints {
    known: Mutex<HashMap<PathBuf, (FileStamp, String)>>,
}

impl CaptureFingerprints {
    /// [`capture_fingerprint`] of the capture as it is on disk now.
    pub fn get(&self, store: &ProjectStore, name: &str, project: &str) -> Result<Option<String>> {
        let path = store.capture_path(name, project)?;
        let stamp = match std::fs::metadata(&path) {
            Ok(metadata) if metadata.is_file() => FileStamp::of(&metadata),
            Ok(_) => return Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        };
        let known = |path: &Path| self.lock().get(path).filter(|(s, _)| *s == stamp).map(|(_, f)| f.clone());
        if let Some(fingerprint) = known(&path) {
            return Ok(Some(fingerprint));
        }
        // Decoded outside the lock; the stamp read before decoding keys the answer, so a capture
        // replaced meanwhile is decoded again on the next call rather than mistaken for this one.
        let Some(fingerprint) = capture_fingerprint(store, name, project)? else { return Ok(None) };
        self.lock().insert(path, (stamp, fingerprint.clone()));
        Ok(Some(fingerprint))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, (FileStamp, String)>> {
        self.known.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Replaces the decisions on `made`'s snapshots with `made` and writes the state. Decisions on
/// other snapshots are kept as written, without reading their captures: one whose capture has
/// changed no longer holds (`decisions_in_force` leaves it out) and is replaced by the next
/// decision on that snapshot, so the file holds at most one decision per snapshot.
pub(super) fn record(store: &ProjectStore, made: &[ReviewDecision]) -> Result<()> {
    let mut state = read_review_state(store)?;
    state.decisions.retain(|old| !made.iter().any(|d| d.name == old.name && d.project == old.project));
    state.decisions.extend_from_slice(made);
    write_review_state(store, &state)
}

/// The baselines approved decisions wrote, sorted, for the `git add` line a person runs at the
/// end of a review.
pub fn baselines_to_commit(decisions: &[ReviewDecision]) -> Vec<String> {
    let mut paths: Vec<String> = decisions.iter().filter_map(|d| d.baseline.clone()).collect();
    paths.sort();
    paths.dedup();
    paths
}
