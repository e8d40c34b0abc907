//! Comparing many captures at once: `sightline compare` (every capture in `.sightline/temp`,
//! or in shard folders merged into it first), in parallel on every core.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::compare::Size;
use crate::config::{Settings, ShardMode};
use crate::damaged::{DamagedFile, DamagedSide};
use crate::error::{Error, Result};
use crate::snapshot::{CaptureSide, SnapshotEvidence, SnapshotOptions, compare_snapshot};
use crate::store::ledger::{RunLedger, ledger_path, read_ledger, write_ledger};
use crate::store::{CaptureData, ProjectStore, snapshot_files};
use crate::variants::compare_accepted_states;
use crate::verdict::Status;

/// Every `(name, project stem)` with a capture under `temp` (`<name>/<stem>.slcap`), sorted.
pub fn list_captures(temp: &Path) -> Result<Vec<(String, String)>> {
    Ok(snapshot_files(temp, ".slcap")?.into_iter().map(|f| (f.name, f.stem)).collect())
}

/// One snapshot (name, project stem) found in two shard folders: two shards must never have run
/// the same test. `found` says how it was found there ("is in", "was captured in").
fn in_two_shards(key: &(String, String), first: &Path, second: &Path, found: &str) -> Error {
    Error::InvalidInput(format!(
        "snapshot {:?} ({}) {found} both {} and {}; two shards ran the same test",
        key.0,
        key.1,
        first.display(),
        second.display()
    ))
}

/// Copies the captures of shard folders (each a copy of a shard's `.sightline/temp`) into the
/// store's `.sightline/temp`, checking all of them before copying any. The same snapshot in
/// two folders is an error: two shards must never have run the same test.
pub fn merge_captures(store: &ProjectStore, folders: &[PathBuf]) -> Result<usize> {
    let mut seen: Vec<((String, String), &PathBuf)> = Vec::new();
    for folder in folders {
        if !folder.is_dir() {
            return Err(Error::InvalidInput(format!(
                "{}: not a folder; pass the shard folders that hold each shard's .sightline/temp",
                folder.display()
            )));
        }
        for key in list_captures(folder)? {
            if let Some((_, other)) = seen.iter().find(|(k, _)| *k == key) {
                return Err(in_two_shards(&key, other, folder, "was captured in"));
            }
            seen.push((key, folder));
        }
    }
    // Whether every shard is here, when the shards said which they were.
    let manifests: Option<Vec<_>> =
        folders.iter().map(|f| read_manifest(&f.join("shard.json"))).collect::<Result<Vec<_>>>()?.into_iter().collect();
    let complete = manifests.is_some_and(|m| all_shards(&m));
    merge_ledgers(store, folders, complete)?;
    for ((name, stem), folder) in &seen {
        let from = folder.join(name).join(format!("{stem}.slcap"));
        let bytes = std::fs::read(&from).map_err(|e| Error::io(&from, e))?;
        store.write_run_output(&store.capture_path(name, stem)?, &bytes)?;
    }
    Ok(seen.len())
}

/// The options `capture`'s `toMatchVisual` call compared with: the settings it resolved, kept
/// with the capture; `settings` (the project's) for a capture that kept none.
pub fn capture_options(settings: &Settings, capture: &CaptureData) -> SnapshotOptions {
    capture.settings.as_ref().unwrap_or(settings).snapshot_options()
}

/// Compares every capture in `.sightline/temp` with its baseline, in parallel, writing each
/// snapshot's evidence next to its capture. Each capture is compared with the settings its
/// `toMatchVisual` call resolved, and one whose page never settled stays unstable, so the matcher
/// and `sightline compare` agree. A capture or baseline that cannot be read gives its snapshot
/// the status `error` ([`DamagedFile`]) and the others are compared as usual. `progress(done,
/// total)` is called as they finish.
pub fn compare_captures(
    store: &ProjectStore,
    settings: &Settings,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<usize> {
    let temp = store.root().join(".sightline").join("temp");
    let captures = list_captures(&temp)?;
    let total = captures.len();
    let done = AtomicUsize::new(0);
    captures.par_iter().try_for_each(|(name, stem)| -> Result<()> {
        let (evidence, diff) = compare_stored(store, settings, name, stem)?;
        store.write_diff(name, stem, diff)?;
        let json =
            serde_json::to_vec_pretty(&evidence).map_err(|e| Error::InvalidInput(format!("evidence JSON: {e}")))?;
        store.write_run_output(&store.evidence_path(name, stem)?, &json)?;
        progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
        Ok(())
    })?;
    Ok(total)
}

/// The evidence of this run's capture of `name` for `stem` against its baseline, and the diff
/// image of a failing comparison; the `error` evidence of whichever of the two cannot be read.
fn compare_stored(
    store: &ProjectStore,
    settings: &Settings,
    name: &str,
    stem: &str,
) -> Result<(SnapshotEvidence, Option<Vec<u8>>)> {
    let capture_file = store.relative(&store.capture_path(name, stem)?);
    let capture = store.read_capture(name, stem).and_then(|c| Ok((c.data.parsed_dom()?, c)));
    let (current_dom, capture) = match capture {
        Ok(read) => read,
        Err(e) => {
            let damaged = DamagedFile::new(DamagedSide::Capture, capture_file, &e);
            return Ok((SnapshotEvidence::not_compared(name, stem, damaged, None), None));
        }
    };
    let project = capture.data.project.clone().unwrap_or_else(|| stem.to_string());
    let baseline_file = store.relative(&store.baseline_png(name, stem)?);
    let baseline = store.read_baseline(name, stem).and_then(|b| match b {
        Some(b) => Ok(Some((b.data.parsed_dom()?, b))),
        None => Ok(None),
    });
    let baseline = match baseline {
        Ok(read) => read,
        Err(e) => {
            let size = Size::of(capture.image.view());
            let mut evidence = SnapshotEvidence::not_compared(
                name,
                &project,
                DamagedFile::new(DamagedSide::Baseline, baseline_file, &e),
                Some(size),
            );
            evidence.files.current = Some(capture_file);
            return Ok((evidence, None));
        }
    };
    let current = CaptureSide {
        image: capture.image.view(),
        dom: current_dom.as_ref(),
        failures: &capture.data.failures,
        environment: capture.data.environment.as_ref(),
    };
    let baseline_side = baseline.as_ref().map(|(dom, b)| CaptureSide {
        image: b.image.view(),
        dom: dom.as_ref(),
        failures: &b.data.failures,
        environment: b.data.environment.as_ref(),
    });
    let options = capture_options(settings, &capture.data);
    let compared = compare_snapshot(name, &project, baseline_side, current, &options, true)?;
    let (mut evidence, diff) = compare_accepted_states(store, name, stem, compared, current, &options)?;
    if let Some(page) = &capture.data.unsettled {
        evidence.mark_unsettled(page.waited_ms, &page.area);
    }
    if baseline.is_some() {
        let accepted = store.accepted_png(name, stem, evidence.accepted_variant())?;
        evidence.files.baseline = Some(store.relative(&accepted));
    }
    evidence.files.current = Some(capture_file);
    // Encoded while the pixels it is drawn from are here.
    let diff = diff.map(|diff| diff.png(&options.compare.pixel)).transpose()?;
    Ok((evidence, diff))
}

/// What a shard left next to its captures (`shard.json`, written by the reporter).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShardManifest {
    pub current: u32,
    pub total: u32,
    /// `compare` (evidence for every snapshot, captures of changed/new only) or `capture-only`.
    pub mode: ShardMode,
    /// Captures the shard made.
    pub captures: usize,
}

impl ShardManifest {
    /// The manifest a shard left in `store`'s `.sightline/temp`, if any.
    pub fn read(store: &ProjectStore) -> Result<Option<Self>> {
        read_manifest(&store.shard_manifest_path())
    }
}

fn read_manifest(path: &Path) -> Result<Option<ShardManifest>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| Error::InvalidInput(format!("{}: not a sightline shard manifest ({e})", path.display())))
}

/// The end of a shard's run (`--shard=current/total`): what it leaves in `.sightline/temp` for
/// the merge job. A comparing shard keeps every evidence file but only the captures of snapshots
/// that need a look (passed ones are dropped: the upload stays small); a capture-only shard keeps
/// its captures. Both write `shard.json` (atomically) and return it.
pub fn finish_shard(store: &ProjectStore, current: u32, total: u32, mode: ShardMode) -> Result<ShardManifest> {
    let captures = list_captures(&store.temp_root())?;
    if mode == ShardMode::Compare {
        for (name, stem) in &captures {
            let evidence_path = store.evidence_path(name, stem)?;
            let passed = match std::fs::read(&evidence_path) {
                Ok(bytes) => serde_json::from_slice::<EvidenceStatus>(&bytes).is_ok_and(|e| e.status == Status::Passed),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
                Err(e) => return Err(Error::io(&evidence_path, e)),
            };
            if passed {
                store.remove(&store.capture_path(name, stem)?)?;
            }
        }
    }
    let manifest = ShardManifest { current, total, mode, captures: captures.len() };
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| Error::Internal(e.to_string()))?;
    store.write_run_output(&store.shard_manifest_path(), &json)?;
    Ok(manifest)
}

/// The one field of an evidence file that decides whether a shard keeps the capture.
#[derive(serde::Deserialize)]
struct EvidenceStatus {
    status: Status,
}

/// Whether `shards` are every shard 1..=total of one run.
fn all_shards(shards: &[ShardManifest]) -> bool {
    let total = shards.first().map_or(0, |s| s.total);
    total > 0 && shards.iter().all(|s| s.total == total) && (1..=total).all(|n| shards.iter().any(|s| s.current == n))
}

/// One run ledger for the store from the shard folders' ledgers (each shard's reporter left
/// one): their union, partial unless `complete` (every shard is here). When a folder has none,
/// the store keeps none either, so no test is taken for gone on a guess.
fn merge_ledgers(store: &ProjectStore, folders: &[PathBuf], complete: bool) -> Result<()> {
    let ledgers: Option<Vec<_>> =
        folders.iter().map(|f| read_ledger(f)).collect::<Result<Vec<_>>>()?.into_iter().collect();
    match ledgers.and_then(RunLedger::union) {
        Some(ledger) => write_ledger(store, &if complete { ledger } else { ledger.partial() }),
        None => store.remove(&ledger_path(store)),
    }
}

/// The outcome of [`merge_shards`].
#[derive(Debug, Clone)]
pub struct MergedShards {
    pub shards: Vec<ShardManifest>,
    pub snapshots: usize,
    /// Every shard 1..=total is present, so absent snapshots can be called missing.
    pub complete: bool,
}

/// Merges compare-mode shard folders (each a shard's `.sightline/temp`) into the store's
/// `.sightline/temp`: every evidence file and the captures kept for changed and new snapshots.
/// Everything is checked before anything is copied.
pub fn merge_shards(store: &ProjectStore, folders: &[PathBuf]) -> Result<MergedShards> {
    let mut shards = Vec::new();
    let mut files: Vec<((String, String), &PathBuf)> = Vec::new();
    for folder in folders {
        let manifest_path = folder.join(store.shard_manifest_path().file_name().expect("a file name"));
        let manifest = read_manifest(&manifest_path)?.ok_or_else(|| {
            Error::InvalidInput(format!(
                "{}: no shard manifest here; pass the folders each shard uploaded (its .sightline/temp)",
                manifest_path.display()
            ))
        })?;
        if manifest.mode == ShardMode::CaptureOnly {
            return Err(Error::InvalidInput(format!(
                "{}: shard {}/{} only captured; compare them with `sightline compare --captures <shard folders…>`",
                folder.display(),
                manifest.current,
                manifest.total
            )));
        }
        for file in snapshot_files(folder, ".json")? {
            let key = (file.name, file.stem);
            if let Some((_, other)) = files.iter().find(|(k, _)| *k == key) {
                return Err(in_two_shards(&key, other, folder, "is in"));
            }
            files.push((key, folder));
        }
        shards.push(manifest);
    }
    let complete = all_shards(&shards);
    merge_ledgers(store, folders, complete)?;
    for ((name, stem), folder) in &files {
        // The evidence, and what only some snapshots have: passed snapshots come without their
        // capture (the point of compare mode) and without a diff image.
        let wanted = [
            (store.evidence_path(name, stem)?, true),
            (store.capture_path(name, stem)?, false),
            (store.diff_path(name, stem)?, false),
        ];
        for (path, required) in wanted {
            let from = folder.join(name).join(path.file_name().expect("store paths name a file"));
            match std::fs::read(&from) {
                Ok(bytes) => store.write_run_output(&path, &bytes)?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => {}
                Err(e) => return Err(Error::io(&from, e)),
            }
        }
    }
    shards.sort_by_key(|s| s.current);
    Ok(MergedShards { shards, snapshots: files.len(), complete })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::RgbaImage;
    use crate::store::Places;

    #[test]
    fn batch_never_writes_through_a_sightline_folder_linked_out_of_the_project() {
        let places = Places::new("batch-dot-link");
        // A shard's upload holding one capture, and the project's `.sightline` linked out of it.
        let shard = ProjectStore::new(places.beside("shard"));
        let data = CaptureData { device_scale_factor: 1.0, ..Default::default() };
        shard.write_capture("home", "chromium", RgbaImage::filled(2, 2, [9, 9, 9, 255]).unwrap(), &data).unwrap();
        let dot = places.project().join(".sightline");
        std::fs::remove_dir_all(&dot).unwrap();
        std::os::unix::fs::symlink(places.outside(), &dot).unwrap();
        let store = ProjectStore::new(places.project());
        let before = places.outside_files();
        let refused = format!("{} is a symbolic link to {}", dot.display(), places.outside().display());
        let merged = merge_captures(&store, &[shard.temp_root()]).unwrap_err().to_string();
        assert!(merged.starts_with(&refused), "{merged}");
        let manifest = finish_shard(&store, 1, 2, ShardMode::CaptureOnly).unwrap_err().to_string();
        assert!(manifest.starts_with(&refused), "{manifest}");
        let ledger = RunLedger {
            version: crate::store::ledger::LEDGER_VERSION,
            root_dir: None,
            narrowed: false,
            complete: true,
            tests: Vec::new(),
            ended: None,
        };
        let ledger = write_ledger(&store, &ledger).unwrap_err().to_string();
        assert!(ledger.starts_with(&refused), "{ledger}");
        assert_eq!(places.outside_files(), before);
        assert!(!places.outside().join("temp").exists(), "no folder was made out there");
    }
}
