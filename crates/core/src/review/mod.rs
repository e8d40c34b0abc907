//! A person's review of one run in the browser (`sightline review`): the decisions they made
//! and the rules every decision goes through before anything is written.
//!
//! ```text
//! .sightline/review.json    decisions on this run's captures (git-ignored, like .sightline/temp)
//! ```
//!
//! A decision names the capture it was made on (its size and a hash of its pixels), so it holds
//! exactly as long as that capture does: a rejected snapshot shows as rejected on the next run
//! while the page looks the same, and is up for review again once its capture changes. Approving
//! goes through the one approve policy, [`crate::approve::approve`], with the proof the page has
//! ([`crate::approve::Proof::Shown`]: the capture still holds the pixels of the report image the
//! person saw), as the MCP server's approve tools do ([`ReviewRun::approve_as_reviewed`]); this
//! module checks the request against the run first and remembers the outcome.
//!
//! Every request carries the version of results.json the page was rendered from
//! ([`results_version`]); a request made on an older page is refused before anything is written,
//! so no one approves evidence a newer run has replaced.

/// The review state: decisions bound to captures.
mod state;
mod undo;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::approve::{Accept, Approval, Approved, Held, Proof, approve_as, missing_snapshot_refusal};
use crate::batch::capture_options;
use crate::compare::aligned_diff;
use crate::config::Settings;
use crate::decode::decode_image;
use crate::error::{Error, Result};
use crate::layout::project_file_stem;
use crate::pixel::DrawnDiff;
use crate::results::Results;
use crate::snapshot::{SnapshotEvidence, snapshot_label};
use crate::store::ProjectStore;
use state::record;
pub use state::{
    CaptureFingerprints, Decision, REVIEW_STATE_FILE, ReviewDecision, ReviewState, baselines_to_commit,
    capture_fingerprint, read_review_state, review_state_path,
};
pub use undo::{Undo, undo_decision};

/// A snapshot a review request names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotRef {
    pub name: String,
    pub project: String,
}

/// The version of a results.json a page was rendered from: XXH3-128 of its text.
pub fn results_version(raw: &str) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(raw.as_bytes()))
}

/// The run under review: its results.json, checked, and that file's version.
#[derive(Debug, Clone)]
pub struct ReviewRun {
    pub path: PathBuf,
    pub results: Results,
    pub version: String,
}

impl ReviewRun {
    /// Reads `<reportDir>/results.json` of `store`'s project (`report_dir` as the config gives
    /// it, relative to the root); a missing file says to run the tests first.
    pub fn read(store: &ProjectStore, report_dir: &Path) -> Result<Self> {
        let (path, file) = crate::results::read_last_run(store.root(), report_dir)?;
        let version = results_version(&file.raw);
        Ok(Self { path, results: file.results, version })
    }

    /// Refuses a request made on a page rendered from another version of results.json.
    pub fn check_fresh(&self, page_version: &str) -> Result<()> {
        if page_version == self.version { Ok(()) } else { Err(Error::StaleResults { path: self.path.clone() }) }
    }

    /// The snapshots `targets` name, each a changed or new snapshot of this run; the first one
    /// that is not is an error naming it. Checked for every target before anything is written.
    pub fn reviewable<'a>(&'a self, targets: &[SnapshotRef]) -> Result<Vec<&'a SnapshotEvidence>> {
        if targets.is_empty() {
            return Err(Error::InvalidInput("no snapshot named: send at least one {name, project}".into()));
        }
        targets
            .iter()
            .map(|t| {
                self.results.snapshot(&t.name, &t.project).filter(|s| s.awaits_decision()).ok_or_else(|| {
                    Error::UnknownSnapshot { label: snapshot_label(&t.name, &t.project), path: self.path.clone() }
                })
            })
            .collect()
    }
}

impl ReviewRun {
    /// Approves `name` (every project of it, or only `project`) as this run shows it, for a
    /// caller who reviewed the run's evidence rather than the captures on disk (the MCP server's
    /// approve tools): only a changed or new snapshot of this run, and only the capture its
    /// report image shows ([`Proof::Shown`]). A snapshot the run does not list as changed or
    /// new, and a capture a newer run has written, are refused before anything is written.
    pub fn approve_as_reviewed(
        &self,
        store: &ProjectStore,
        name: &str,
        project: Option<&str>,
        include_unhealthy: bool,
        accept: Accept,
    ) -> Result<Approved> {
        let wanted =
            |p: &str| project.is_none_or(|asked| asked == p || project_file_stem(asked) == project_file_stem(p));
        let label = snapshot_label(name, project.unwrap_or(""));
        let missing: Vec<&str> = self
            .results
            .missing_baselines
            .iter()
            .filter(|m| m.name == name && wanted(&m.project))
            .map(|m| m.files.baseline.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(Error::InvalidInput(missing_snapshot_refusal(&label, &missing)));
        }
        let listed: Vec<&SnapshotEvidence> =
            self.results.snapshots.iter().filter(|s| s.name == name && wanted(&s.project)).collect();
        if listed.is_empty() {
            return Err(Error::InvalidInput(format!(
                "{label} is not a snapshot of the last run ({}); nothing was approved. Only a changed or new snapshot the human reviewed can be approved",
                self.path.display()
            )));
        }
        let reviewable: Vec<&SnapshotEvidence> = listed.iter().copied().filter(|s| s.awaits_decision()).collect();
        if reviewable.is_empty() {
            let statuses: Vec<String> =
                listed.iter().map(|s| format!("{} {}", snapshot_label(&s.name, &s.project), s.status)).collect();
            // A damaged file says which and how to mend it: "nothing to approve" alone leaves the
            // reader with no next step.
            let mends: String =
                listed.iter().filter(|s| s.damaged.is_some()).map(|s| format!(". {}", s.verdict)).collect();
            return Err(Error::InvalidInput(format!(
                "{} in the last run ({}): nothing to approve{mends}",
                statuses.join(", "),
                self.path.display()
            )));
        }
        let shown: Vec<(&str, &str)> = reviewable
            .iter()
            .map(|s| {
                let image = s.files.current.as_deref().ok_or_else(|| {
                    Error::InvalidInput(format!(
                        "{}: the last run's results name no current image, so no one saw this capture; nothing was approved",
                        snapshot_label(&s.name, &s.project)
                    ))
                })?;
                Ok((s.project.as_str(), image))
            })
            .collect::<Result<_>>()?;
        approve_as(store, name, Proof::Shown(&shown), include_unhealthy, accept)
    }
}

/// Largest image file the review page is served; a full-page capture is a few MB.
const MAX_IMAGE_BYTES: u64 = 256 << 20;

impl ReviewRun {
    /// The file behind `relative` (a path as results.json spells it, relative to the root) when
    /// results.json names it as one of the run's PNG images and it lies inside the project once
    /// symlinks are resolved; anything else is refused, so the page can reach no other file.
    pub fn image_path(&self, store: &ProjectStore, relative: &str) -> Result<PathBuf> {
        let refuse = || {
            Error::InvalidInput(format!(
                "{relative:?} is not an image of this run: the review page serves only the PNGs {} names",
                self.path.display()
            ))
        };
        let named = self.results.snapshots.iter().flat_map(|s| [&s.files.baseline, &s.files.current, &s.files.diff]);
        let mut named = named.flatten().chain(self.results.missing_baselines.iter().map(|m| &m.files.baseline));
        let listed = named.any(|p| p == relative);
        if !listed || !relative.to_ascii_lowercase().ends_with(".png") {
            return Err(refuse());
        }
        let root = store.root().canonicalize().map_err(|e| Error::io(store.root(), e))?;
        let path = root.join(relative).canonicalize().map_err(|e| Error::io(root.join(relative), e))?;
        if !path.starts_with(&root) {
            return Err(refuse());
        }
        Ok(path)
    }

    /// The bytes of one of the run's images ([`ReviewRun::image_path`]).
    pub fn read_image(&self, store: &ProjectStore, relative: &str) -> Result<Vec<u8>> {
        let path = self.image_path(store, relative)?;
        let size = std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?.len();
        if size > MAX_IMAGE_BYTES {
            return Err(Error::FileTooLarge { path, bytes: size, limit: MAX_IMAGE_BYTES });
        }
        std::fs::read(&path).map_err(|e| Error::io(&path, e))
    }

    /// The aligned diff ([`aligned_diff`]) of the `index`th snapshot's page shift as a PNG: the
    /// baseline image the report shows, moved by the shift, against this run's capture,
    /// compared with the options its call used.
    pub fn aligned_diff_png(&self, store: &ProjectStore, settings: &Settings, index: usize) -> Result<Vec<u8>> {
        let snapshot = self.results.snapshots.get(index).ok_or_else(|| Error::UnknownSnapshot {
            label: format!("snapshot number {index}"),
            path: self.path.clone(),
        })?;
        let label = || snapshot_label(&snapshot.name, &snapshot.project);
        let shift = snapshot.layers.pixel.as_ref().and_then(|p| p.shift).ok_or_else(|| {
            Error::InvalidInput(format!("{}: no page shift in this run, so there is no aligned diff", label()))
        })?;
        let baseline_file = snapshot
            .files
            .baseline
            .as_deref()
            .ok_or_else(|| Error::InvalidInput(format!("{}: no baseline image was kept for this run", label())))?;
        let baseline_png = self.read_image(store, baseline_file)?;
        let baseline = decode_image(&baseline_png, Path::new(baseline_file))?;
        let capture = store.read_capture(&snapshot.name, &snapshot.project)?;
        let options = capture_options(settings, &capture.data);
        let aligned = aligned_diff(baseline.view(), capture.image.view(), &shift, &options.compare)?;
        DrawnDiff { image: &aligned.image, drawn_with: &options.compare.pixel }.png()
    }
}

/// The decisions that still hold for `run`: made on the capture this run has of the snapshot.
pub fn decisions_in_force(
    store: &ProjectStore,
    fingerprints: &CaptureFingerprints,
    run: &ReviewRun,
) -> Result<Vec<ReviewDecision>> {
    let state = read_review_state(store)?;
    let mut held = Vec::new();
    for decision in state.decisions {
        if run.results.snapshot(&decision.name, &decision.project).is_none() {
            continue;
        }
        if fingerprints.get(store, &decision.name, &decision.project)?.as_deref() == Some(&decision.capture) {
            held.push(decision);
        }
    }
    Ok(held)
}

/// The fingerprint of a capture a decision is about to be made on; a snapshot whose capture is
/// gone (a run started meanwhile) cannot be decided on.
fn fingerprint_now(
    store: &ProjectStore,
    fingerprints: &CaptureFingerprints,
    snapshot: &SnapshotEvidence,
) -> Result<String> {
    fingerprints.get(store, &snapshot.name, &snapshot.project)?.ok_or_else(|| {
        Error::InvalidInput(format!(
            "{}: no capture in .sightline/temp (a new run may have started); nothing was written: reload the page when the run is done",
            snapshot_label(&snapshot.name, &snapshot.project)
        ))
    })
}

/// Approves `targets` of `run` through [`approve`], after checking the page's version and every
/// target, and remembers each approval. Unhealthy or unsettled captures are held (nothing
/// written) unless `include_unhealthy` says a person confirmed them explicitly. Returns what was
/// approved and how to take it back ([`undo_decision`]).
pub fn approve_in_review(
    store: &ProjectStore,
    fingerprints: &CaptureFingerprints,
    run: &ReviewRun,
    page_version: &str,
    targets: &[SnapshotRef],
    include_unhealthy: bool,
    accept: Accept,
) -> Result<(Approved, Undo)> {
    run.check_fresh(page_version)?;
    let snapshots = run.reviewable(targets)?;
    let fingerprints: Vec<String> =
        snapshots.iter().map(|s| fingerprint_now(store, fingerprints, s)).collect::<Result<_>>()?;
    let (mut undo, earlier) = Undo::start(store)?;
    let mut done = Approved::default();
    let mut made = Vec::new();
    for (snapshot, capture) in snapshots.into_iter().zip(fingerprints) {
        // The capture the page showed, not one a run started since has written in its place.
        let shown = snapshot.files.current.as_deref().ok_or_else(|| {
            Error::InvalidInput(format!(
                "{}: results.json names no current image, so the page showed no capture; nothing was written",
                snapshot_label(&snapshot.name, &snapshot.project)
            ))
        })?;
        let proof = Proof::Shown(&[(&snapshot.project, shown)]);
        // A new variant has no file before it; a baseline may have one, put back by an undo. A
        // baseline that cannot be read is the approval's to refuse, in its words.
        let replaced = match accept {
            Accept::Baseline => Undo::before(store, &store.baseline_png(&snapshot.name, &snapshot.project)?),
            Accept::Variant => Ok(None),
        };
        let outcome = approve_as(store, &snapshot.name, proof, include_unhealthy, accept)?;
        let replaced = replaced?;
        for approval in &outcome.approved {
            undo.wrote(store, store.root().join(&approval.baseline), replaced.clone())?;
            made.push(ReviewDecision {
                name: snapshot.name.clone(),
                project: snapshot.project.clone(),
                decision: Decision::Approved,
                capture: capture.clone(),
                baseline: Some(approval.baseline.clone()),
                variant: approval.variant,
            });
        }
        // Named as results.json and the page name them (the store speaks in file stems).
        let project = || snapshot.project.clone();
        done.approved.extend(outcome.approved.into_iter().map(|a| Approval { project: project(), ..a }));
        done.held.extend(outcome.held.into_iter().map(|h| Held { project: project(), ..h }));
    }
    if !made.is_empty() {
        record(store, &made)?;
    }
    Ok((done, undo.finish(&made, earlier)))
}

/// "Remove baseline" on a missing snapshot's card: the page's run must still be the last one
/// (`page_version`), and each target one of its unused baselines ([`crate::prune`], with the same
/// refusals as `sightline prune`); they are removed and results.json written again, which the
/// caller turns into the report. Returns the removed files, relative to the root.
pub fn remove_in_review(
    store: &ProjectStore,
    report_dir: &Path,
    run: &mut ReviewRun,
    page_version: &str,
    targets: &[SnapshotRef],
) -> Result<Vec<String>> {
    run.check_fresh(page_version)?;
    let asked: Vec<(String, String)> = targets.iter().map(|t| (t.name.clone(), t.project.clone())).collect();
    let pruned = crate::prune::prune(store, report_dir, &mut run.results, Some(&asked))?;
    Ok(pruned.removed.into_iter().chain(pruned.already_gone).collect())
}

/// Rejects `targets` of `run`: their baselines stay as they are and the rejection is remembered
/// until their capture changes. Returns the decisions made and how to take them back.
pub fn reject_in_review(
    store: &ProjectStore,
    fingerprints: &CaptureFingerprints,
    run: &ReviewRun,
    page_version: &str,
    targets: &[SnapshotRef],
) -> Result<(Vec<ReviewDecision>, Undo)> {
    run.check_fresh(page_version)?;
    let (undo, earlier) = Undo::start(store)?;
    let snapshots = run.reviewable(targets)?;
    // An approval in force has replaced the baseline: a rejection would say the baseline was
    // kept when it was not. Taking an approval back is the person's, with git.
    let approved: Vec<ReviewDecision> = decisions_in_force(store, fingerprints, run)?
        .into_iter()
        .filter(|d| {
            d.decision == Decision::Approved && snapshots.iter().any(|s| s.name == d.name && s.project == d.project)
        })
        .collect();
    if !approved.is_empty() {
        let labels: Vec<String> = approved.iter().map(|d| snapshot_label(&d.name, &d.project)).collect();
        let baselines: Vec<&str> = approved.iter().filter_map(|d| d.baseline.as_deref()).collect();
        return Err(Error::InvalidInput(format!(
            "{} {} approved in this review: the baseline is now this capture, so it cannot be rejected; nothing was written. To take the approval back, restore the baseline (git checkout -- {}) and run the tests again",
            labels.join(", "),
            if labels.len() == 1 { "was" } else { "were" },
            baselines.join(" ")
        )));
    }
    let made: Vec<ReviewDecision> = snapshots
        .into_iter()
        .map(|s| {
            Ok(ReviewDecision {
                name: s.name.clone(),
                project: s.project.clone(),
                decision: Decision::Rejected,
                capture: fingerprint_now(store, fingerprints, s)?,
                baseline: None,
                variant: None,
            })
        })
        .collect::<Result<_>>()?;
    record(store, &made)?;
    let undo = undo.finish(&made, earlier);
    Ok((made, undo))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::{PngCompression, encode_png};
    use crate::image::RgbaImage;
    use crate::store::CaptureData;

    /// A project with baselines and captures of `home` and `about` (different pixels), and a
    /// results.json listing home as changed and about as passed.
    fn project(tag: &str) -> (PathBuf, ProjectStore, ReviewRun) {
        let root = std::env::temp_dir().join(format!("sightline-review-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = ProjectStore::new(&root);
        let data = CaptureData { device_scale_factor: 1.0, ..Default::default() };
        for name in ["home", "about"] {
            store.write_baseline(name, "chromium", &RgbaImage::filled(2, 2, [1, 2, 3, 255]).unwrap(), &data).unwrap();
            store.write_capture(name, "chromium", RgbaImage::filled(2, 2, [9, 9, 9, 255]).unwrap(), &data).unwrap();
        }
        let example = include_str!("../../../../tests/golden/example-results.json");
        let mut value: serde_json::Value = serde_json::from_str(example).unwrap();
        // Only home and about, as this project captured them.
        value["snapshots"].as_array_mut().unwrap().retain(|s| s["name"] != "catalogue");
        let path = root.join("visual-report").join("results.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
        let run = ReviewRun::read(&store, Path::new("visual-report")).unwrap();
        // The report's image of each capture, as gathering the results writes it.
        for snapshot in &run.results.snapshots {
            if let Some(current) = &snapshot.files.current {
                let image = store.read_capture(&snapshot.name, &snapshot.project).unwrap().image;
                std::fs::create_dir_all(root.join(current).parent().unwrap()).unwrap();
                std::fs::write(root.join(current), encode_png(&image, PngCompression::Fastest).unwrap()).unwrap();
            }
        }
        (root, store, run)
    }

    fn home() -> Vec<SnapshotRef> {
        vec![SnapshotRef { name: "home".into(), project: "chromium".into() }]
    }

    #[test]
    fn review_state_is_never_written_through_a_link_out_of_the_project() {
        let (root, store, run) = project("state-link");
        // `.sightline/review.json` linked to a file outside the project that reads as a review.
        let outside = root.with_extension("outside");
        let _ = std::fs::remove_dir_all(&outside);
        std::fs::create_dir_all(&outside).unwrap();
        let theirs = br#"{"version": 1, "decisions": []}"#;
        std::fs::write(outside.join("review.json"), theirs).unwrap();
        let link = root.join(".sightline/review.json");
        std::os::unix::fs::symlink(outside.join("review.json"), &link).unwrap();
        let error = reject_in_review(&store, &Default::default(), &run, &run.version, &home()).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{} is a symbolic link to {}, outside the project {}; nothing was written. Replace the link with a folder or file of the project (e.g. `git checkout -- .sightline/review.json`)",
                link.display(),
                outside.join("review.json").display(),
                root.display()
            )
        );
        assert_eq!(std::fs::read(outside.join("review.json")).unwrap(), theirs);
        let names: Vec<_> = std::fs::read_dir(&outside).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["review.json"], "nothing was added beside it");
        std::fs::remove_dir_all(&root).unwrap();
        std::fs::remove_dir_all(&outside).unwrap();
    }

    #[test]
    fn review_approve_writes_the_baseline_and_remembers_it_for_the_commit() {
        let (root, store, run) = project("approve");
        let before = std::fs::read(store.baseline_png("home", "chromium").unwrap()).unwrap();
        let (done, undo) =
            approve_in_review(&store, &Default::default(), &run, &run.version, &home(), false, Accept::Baseline)
                .unwrap();
        assert_eq!(done.approved.len(), 1);
        let baseline = store.read_baseline("home", "chromium").unwrap().unwrap();
        assert_eq!(
            baseline.image,
            store.read_capture("home", "chromium").unwrap().image,
            "the capture is the baseline"
        );
        let decisions = decisions_in_force(&store, &Default::default(), &run).unwrap();
        assert_eq!(decisions.len(), 1);
        assert_eq!(decisions[0].decision, Decision::Approved);
        assert_eq!(baselines_to_commit(&decisions), [".sightline/baselines/home/chromium.png"]);
        // Undone: the old baseline's bytes and no decision.
        assert_eq!(undo_decision(&store, &undo).unwrap(), ["home (chromium)"]);
        assert_eq!(std::fs::read(store.baseline_png("home", "chromium").unwrap()).unwrap(), before);
        assert!(decisions_in_force(&store, &Default::default(), &run).unwrap().is_empty());
        // Once: the file no longer holds what the decision wrote.
        let again = undo_decision(&store, &undo).unwrap_err().to_string();
        assert_eq!(
            again,
            ".sightline/baselines/home/chromium.png has changed since the decision (a run with -u, or an approve outside this page); nothing was undone: restore it with git if you meant to"
        );
        // A new accepted variant is removed by its undo; a rejection's undo leaves no decision.
        let (_, undo) =
            approve_in_review(&store, &Default::default(), &run, &run.version, &home(), false, Accept::Variant)
                .unwrap();
        assert!(store.variant_png("home", "chromium", 1).unwrap().is_file());
        undo_decision(&store, &undo).unwrap();
        assert!(!store.variant_png("home", "chromium", 1).unwrap().exists());
        assert_eq!(std::fs::read(store.baseline_png("home", "chromium").unwrap()).unwrap(), before);
        let (_, undo) = reject_in_review(&store, &Default::default(), &run, &run.version, &home()).unwrap();
        assert_eq!(decisions_in_force(&store, &Default::default(), &run).unwrap().len(), 1);
        undo_decision(&store, &undo).unwrap();
        assert!(decisions_in_force(&store, &Default::default(), &run).unwrap().is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn review_approve_as_reviewed_takes_only_the_capture_the_report_shows() {
        let (root, store, run) = project("as-reviewed");
        // The report's image of home is the capture the run compared (9, 9, 9).
        let reviewed = store.read_capture("home", "chromium").unwrap().image;
        let data = CaptureData { device_scale_factor: 1.0, ..Default::default() };
        let baseline = || std::fs::read(store.baseline_png("home", "chromium").unwrap()).unwrap();
        let before = baseline();
        // A newer run captured home since: pixels nobody reviewed are refused, nothing written.
        store.write_capture("home", "chromium", RgbaImage::filled(2, 2, [7, 7, 7, 255]).unwrap(), &data).unwrap();
        let newer = run.approve_as_reviewed(&store, "home", None, false, Accept::Baseline).unwrap_err().to_string();
        assert!(newer.starts_with("home (chromium): the capture in .sightline/temp is not the one"), "{newer}");
        assert_eq!(baseline(), before);
        // A passed snapshot and one the run does not list are not approved, whatever is captured.
        let results = run.path.display();
        assert_eq!(
            run.approve_as_reviewed(&store, "about", None, false, Accept::Baseline).unwrap_err().to_string(),
            format!("about (chromium) passed in the last run ({results}): nothing to approve")
        );
        store.write_capture("ghost", "chromium", reviewed.clone(), &data).unwrap();
        assert_eq!(
            run.approve_as_reviewed(&store, "ghost", None, false, Accept::Baseline).unwrap_err().to_string(),
            format!(
                "ghost is not a snapshot of the last run ({results}); nothing was approved. Only a changed or new snapshot the human reviewed can be approved"
            )
        );
        // The reviewed capture back in place: approved.
        store.write_capture("home", "chromium", reviewed.clone(), &data).unwrap();
        let done = run.approve_as_reviewed(&store, "home", Some("chromium"), false, Accept::Baseline).unwrap();
        assert_eq!(done.approved.len(), 1);
        assert_eq!(store.read_baseline("home", "chromium").unwrap().unwrap().image, reviewed);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn review_a_missing_snapshot_is_refused_in_the_same_words_by_every_approve_path() {
        use crate::results::{MissingBaseline, MissingFiles};
        let (root, store, mut run) = project("missing");
        let data = CaptureData { device_scale_factor: 1.0, ..Default::default() };
        store.write_baseline("gone", "chromium", &RgbaImage::filled(2, 2, [1, 2, 3, 255]).unwrap(), &data).unwrap();
        run.results.missing_baselines.push(MissingBaseline {
            name: "gone".into(),
            project: "chromium".into(),
            files: MissingFiles { baseline: ".sightline/baselines/gone/chromium.png".into() },
            reason: String::new(),
            test: None,
        });
        // The review page and the MCP tools (as reviewed), `sightline approve` (the captures on disk).
        let reviewed = run.approve_as_reviewed(&store, "gone", None, false, Accept::Baseline).unwrap_err().to_string();
        let on_disk =
            crate::approve::approve(&store, "gone", Proof::Named { project: None }, false).unwrap_err().to_string();
        let said = " has a baseline but no capture in the last run (a missing snapshot): nothing to approve. To remove \
                    the snapshot on purpose, delete .sightline/baselines/gone/chromium.png in the same change";
        assert_eq!(reviewed, format!("gone{said}"));
        assert_eq!(on_disk, format!("\"gone\"{said}"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn review_a_rejection_holds_until_the_capture_changes() {
        let (root, store, run) = project("reject");
        // One cache for the whole review, as the server keeps: a rewritten capture is read anew.
        let fingerprints = CaptureFingerprints::default();
        let before = std::fs::read(store.baseline_png("home", "chromium").unwrap()).unwrap();
        let made = reject_in_review(&store, &fingerprints, &run, &run.version, &home()).unwrap().0;
        assert_eq!(made[0].decision, Decision::Rejected);
        assert_eq!(std::fs::read(store.baseline_png("home", "chromium").unwrap()).unwrap(), before, "baseline kept");
        // The next run captures the same page, its file written anew with other data (another
        // port in the stored URL, say): still rejected.
        let data = CaptureData { device_scale_factor: 1.0, project: Some("chromium".into()), ..Default::default() };
        store.write_capture("home", "chromium", RgbaImage::filled(2, 2, [9, 9, 9, 255]).unwrap(), &data).unwrap();
        assert_eq!(decisions_in_force(&store, &fingerprints, &run).unwrap(), made);
        // A capture that looks different is up for review again, and the next decision on the
        // snapshot replaces the stale one.
        let looks_different = RgbaImage::filled(2, 2, [8, 8, 8, 255]).unwrap();
        store.write_capture("home", "chromium", looks_different.clone(), &data).unwrap();
        assert!(decisions_in_force(&store, &fingerprints, &run).unwrap().is_empty());
        // Approved only once the report shows it (the run that captured it wrote its report).
        assert!(
            approve_in_review(&store, &fingerprints, &run, &run.version, &home(), false, Accept::Baseline).is_err()
        );
        let shown = root.join(run.results.snapshot("home", "chromium").unwrap().files.current.as_ref().unwrap());
        std::fs::write(shown, encode_png(&looks_different, PngCompression::Fastest).unwrap()).unwrap();
        approve_in_review(&store, &fingerprints, &run, &run.version, &home(), false, Accept::Baseline).unwrap();
        let state = read_review_state(&store).unwrap();
        assert_eq!(state.decisions.iter().map(|d| d.decision).collect::<Vec<_>>(), [Decision::Approved]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn review_an_approved_snapshot_cannot_be_rejected_while_its_approval_holds() {
        let (root, store, run) = project("approved-then-rejected");
        let fingerprints = CaptureFingerprints::default();
        approve_in_review(&store, &fingerprints, &run, &run.version, &home(), false, Accept::Baseline).unwrap();
        let state = std::fs::read(review_state_path(&store)).unwrap();
        let refused = reject_in_review(&store, &fingerprints, &run, &run.version, &home()).unwrap_err().to_string();
        assert_eq!(
            refused,
            "home (chromium) was approved in this review: the baseline is now this capture, so it cannot be rejected; nothing was written. To take the approval back, restore the baseline (git checkout -- .sightline/baselines/home/chromium.png) and run the tests again"
        );
        assert_eq!(std::fs::read(review_state_path(&store)).unwrap(), state, "nothing written");
        // Approving again is harmless: the same decision.
        approve_in_review(&store, &fingerprints, &run, &run.version, &home(), false, Accept::Baseline).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn review_fingerprints_are_remembered_while_the_capture_file_is_the_same_file() {
        let (root, store, _run) = project("fingerprints");
        let fingerprints = CaptureFingerprints::default();
        let first = fingerprints.get(&store, "home", "chromium").unwrap().unwrap();
        assert_eq!(Some(&first), capture_fingerprint(&store, "home", "chromium").unwrap().as_ref());
        // The same file, its bytes spoilt in place and its time put back: still the remembered
        // answer, so nothing was decoded (decoding these bytes fails).
        let path = store.capture_path("home", "chromium").unwrap();
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        let len = std::fs::metadata(&path).unwrap().len() as usize;
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&file, &vec![0u8; len], 0).unwrap();
        file.set_modified(modified).unwrap();
        drop(file);
        assert_eq!(fingerprints.get(&store, "home", "chromium").unwrap(), Some(first.clone()));
        assert!(capture_fingerprint(&store, "home", "chromium").is_err(), "the file itself no longer decodes");
        // A run writes a new file: read again, here the same pixels, so the same fingerprint.
        let data = CaptureData { device_scale_factor: 1.0, ..Default::default() };
        store.write_capture("home", "chromium", RgbaImage::filled(2, 2, [9, 9, 9, 255]).unwrap(), &data).unwrap();
        assert_eq!(fingerprints.get(&store, "home", "chromium").unwrap(), Some(first));
        std::fs::remove_file(&path).unwrap();
        assert_eq!(fingerprints.get(&store, "home", "chromium").unwrap(), None, "no capture, no fingerprint");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn review_bad_requests_are_refused_before_anything_is_written() {
        let (root, store, run) = project("refuse");
        let baseline = store.baseline_png("home", "chromium").unwrap();
        let before = std::fs::read(&baseline).unwrap();
        let stale = approve_in_review(&store, &Default::default(), &run, "0123", &home(), false, Accept::Baseline)
            .unwrap_err()
            .to_string();
        assert!(stale.ends_with("changed since this page was loaded (a new run wrote it); nothing was written: reload the page and review what it shows now"), "{stale}");
        // One unknown name among good ones: none is approved.
        let mut targets = home();
        targets.push(SnapshotRef { name: "nowhere".into(), project: "chromium".into() });
        let unknown =
            approve_in_review(&store, &Default::default(), &run, &run.version, &targets, false, Accept::Baseline)
                .unwrap_err()
                .to_string();
        assert!(unknown.starts_with("nowhere (chromium): not a changed or new snapshot in "), "{unknown}");
        // A passed snapshot is not up for review either.
        let about = vec![SnapshotRef { name: "about".into(), project: "chromium".into() }];
        assert!(matches!(
            reject_in_review(&store, &Default::default(), &run, &run.version, &about),
            Err(Error::UnknownSnapshot { .. })
        ));
        assert_eq!(std::fs::read(&baseline).unwrap(), before);
        assert!(!review_state_path(&store).exists(), "no review state written");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
