//! A snapshot whose baseline or capture cannot be read (an interrupted checkout, an upload cut
//! short, a file from another sightline version) is a result of the run, not the end of it: its
//! evidence has the status `error`, names the file, what is wrong with it and the fix for that
//! kind of file, and every other snapshot is compared as usual. Every compare path (the matcher,
//! `sightline compare`, `merge`, `--captures`) makes it here, so they all say the same.

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Which of a snapshot's files could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DamagedSide {
    /// The approved baseline under `.sightline/baselines`: committed, so git has a good copy.
    Baseline,
    /// This run's capture under `.sightline/temp`: made by the test, so the test makes it again.
    Capture,
    /// The evidence a test (or a shard) left next to its capture: written again with it.
    Evidence,
}

impl crate::words::Word for DamagedSide {}

impl std::fmt::Display for DamagedSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::words::Word::word(*self))
    }
}

/// The file that could not be read, as results.json keeps it (`snapshots[].damaged`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DamagedFile {
    pub side: DamagedSide,
    /// The file, relative to the project root.
    pub file: String,
    /// What is wrong with it, without the path (e.g. `truncated: the header declares 4096 bytes
    /// but the file has 100`).
    pub problem: String,
    /// What the user does about it: the fix for this kind of file.
    pub fix: String,
}

impl DamagedFile {
    /// The damaged file `file` (relative to the root), from the error reading it gave. The fix
    /// names no command to approve: a model reads it too (people get the command beside it).
    pub fn new(side: DamagedSide, file: String, error: &Error) -> Self {
        let fix = match side {
            DamagedSide::Baseline => {
                format!("restore it with `git checkout -- {file}`, or approve this run's capture to replace it")
            }
            DamagedSide::Capture => {
                "run the tests again with this sightline to capture it anew (nothing is approvable until then)"
                    .to_string()
            }
            DamagedSide::Evidence => {
                "run the tests again (in a sharded run, the shard that ran it) to write it anew".to_string()
            }
        };
        Self { side, file, problem: problem(error), fix }
    }

    /// `Cannot compare: the baseline <file> is damaged (<problem>); <fix>`: the snapshot's verdict.
    pub fn verdict(&self) -> String {
        format!("Cannot compare: the {} {} is damaged ({}); {}", self.side, self.file, self.problem, self.fix)
    }

    /// The verdict of a snapshot whose damaged baseline `writer` (an update run) replaced with
    /// its capture.
    pub fn written_verdict(&self, writer: &str) -> String {
        format!("Baseline written by {writer}, replacing a damaged one ({})", self.problem)
    }
}

/// What is wrong with a file, from the error reading it gave: the detail, without the path (the
/// evidence names the file) and without the error's own fix (the evidence gives the one for the
/// file's kind).
pub(crate) fn problem(error: &Error) -> String {
    match error {
        Error::Io { error, .. } if error.kind() == std::io::ErrorKind::IsADirectory => "a folder, not a file".into(),
        Error::Io { error, .. } => error.to_string(),
        Error::BadImage { detail, .. } => format!("not a readable PNG: {detail}"),
        Error::BadArtifact { detail, .. } => detail.clone(),
        Error::BadDom { detail } => format!("its DOM record is malformed: {detail}"),
        Error::TooLarge { width, height, limit, .. } => {
            format!("its header claims {width}×{height} pixels, above the limit of {limit}")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{Status, VerdictKind};

    #[test]
    fn damaged_a_baseline_is_restored_from_git_or_approved_again_and_a_capture_is_made_again() {
        let truncated = Error::BadImage { path: "x.png".into(), detail: "unexpected end of file".into() };
        let baseline =
            DamagedFile::new(DamagedSide::Baseline, ".sightline/baselines/home/chromium.png".into(), &truncated);
        assert_eq!(
            baseline.verdict(),
            "Cannot compare: the baseline .sightline/baselines/home/chromium.png is damaged (not a readable PNG: unexpected end of file); restore it with `git checkout -- .sightline/baselines/home/chromium.png`, or approve this run's capture to replace it"
        );
        let newer = Error::BadArtifact {
            path: "x.slcap".into(),
            detail: "artifact format version 2 is not supported (this build reads version 1)".into(),
        };
        let capture = DamagedFile::new(DamagedSide::Capture, ".sightline/temp/home/chromium.slcap".into(), &newer);
        assert_eq!(
            capture.verdict(),
            "Cannot compare: the capture .sightline/temp/home/chromium.slcap is damaged (artifact format version 2 is not supported (this build reads version 1)); run the tests again with this sightline to capture it anew (nothing is approvable until then)"
        );
        let evidence = crate::snapshot::SnapshotEvidence::not_compared("home", "chromium", capture, None);
        assert_eq!((evidence.status, evidence.verdict_kind), (Status::Error, VerdictKind::Damaged));
        assert!(evidence.failed() && !evidence.approvable());
        let folder = Error::io("x", std::io::Error::from(std::io::ErrorKind::IsADirectory));
        assert_eq!(problem(&folder), "a folder, not a file");
        let huge = Error::TooLarge {
            what: "x".into(),
            width: 100_000,
            height: 100_000,
            pixels: 10_000_000_000,
            limit: 400_000_000,
        };
        assert_eq!(problem(&huge), "its header claims 100000×100000 pixels, above the limit of 400000000");
    }
}
