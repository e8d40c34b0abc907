//! Taking back the last decision of a review while its page is open (`u`, "Undo last
//! decision"). An approval replaced a baseline (or wrote an accepted variant, or a first
//! baseline); its undo puts back the file as it was, byte for byte, atomically, and the review
//! state as it was. Nothing is put back over a file that changed since the decision (a new run
//! with `-u`, an approve from the terminal): the undo is refused, naming it, and nothing changes.

use std::path::PathBuf;

use super::state::{ReviewDecision, read_review_state, write_review_state};
use crate::error::{Error, Result};
use crate::snapshot::snapshot_label;
use crate::store::{ProjectStore, read_inside};

/// What one decision changed, kept to take it back ([`undo_decision`]).
#[derive(Debug, Clone, Default)]
pub struct Undo {
    /// The decisions made.
    made: Vec<ReviewDecision>,
    /// The decisions about the same snapshots they replaced in `.sightline/review.json`.
    replaced: Vec<ReviewDecision>,
    /// Each file the decision wrote.
    files: Vec<WrittenFile>,
}

#[derive(Debug, Clone)]
struct WrittenFile {
    path: PathBuf,
    /// What the file held before; `None`: there was no file.
    before: Option<Vec<u8>>,
    /// What the decision wrote.
    written: Vec<u8>,
}

impl Undo {
    /// Starts the record of a decision: the review state's decisions as they are now.
    pub(super) fn start(store: &ProjectStore) -> Result<(Self, Vec<ReviewDecision>)> {
        Ok((Self::default(), read_review_state(store)?.decisions))
    }

    /// What `path` holds before a decision writes it (`None`: nothing).
    pub(super) fn before(store: &ProjectStore, path: &std::path::Path) -> Result<Option<Vec<u8>>> {
        read_inside(store.root(), path)
    }

    /// The decision wrote `path` (it held `before`): what it holds now is what was written.
    pub(super) fn wrote(&mut self, store: &ProjectStore, path: PathBuf, before: Option<Vec<u8>>) -> Result<()> {
        let written = read_inside(store.root(), &path)?.ok_or_else(|| {
            Error::Internal(format!("{} was written by this decision and is gone", store.relative(&path)))
        })?;
        self.files.push(WrittenFile { path, before, written });
        Ok(())
    }

    /// Ends the record: the decisions made, and those of `earlier` (the state before) they replaced.
    pub(super) fn finish(mut self, made: &[ReviewDecision], earlier: Vec<ReviewDecision>) -> Self {
        let same = |a: &ReviewDecision, b: &ReviewDecision| a.name == b.name && a.project == b.project;
        self.replaced = earlier.into_iter().filter(|old| made.iter().any(|d| same(d, old))).collect();
        self.made = made.to_vec();
        self
    }

    /// Whether the decision changed anything to take back.
    pub fn is_empty(&self) -> bool {
        self.made.is_empty()
    }
}

/// Takes back the decision `undo` recorded: each file it wrote is put back as it was (removed
/// when there was none), after checking every one still holds what the decision wrote, and the
/// review state's decisions about those snapshots are the ones before. Returns the snapshots
/// whose decision was taken back, as labels.
pub fn undo_decision(store: &ProjectStore, undo: &Undo) -> Result<Vec<String>> {
    for file in &undo.files {
        if read_inside(store.root(), &file.path)?.as_deref() != Some(&file.written[..]) {
            return Err(Error::InvalidInput(format!(
                "{} has changed since the decision (a run with -u, or an approve outside this page); nothing was undone: restore it with git if you meant to",
                store.relative(&file.path)
            )));
        }
    }
    for file in &undo.files {
        match &file.before {
            Some(bytes) => store.write(&file.path, bytes)?,
            None => store.remove(&file.path)?,
        }
    }
    let mut state = read_review_state(store)?;
    state.decisions.retain(|old| !undo.made.iter().any(|d| d.name == old.name && d.project == old.project));
    state.decisions.extend(undo.replaced.iter().cloned());
    write_review_state(store, &state)?;
    Ok(undo.made.iter().map(|d| snapshot_label(&d.name, &d.project)).collect())
}
