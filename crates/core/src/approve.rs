//! Approving: making this run's capture of a snapshot its baseline. The rules every approve path
//! follows (`sightline approve`, the review page, the MCP tools): a capture whose page was
//! unhealthy or never settled is held unless asked for explicitly, a snapshot with a baseline
//! and no capture is refused with how to remove it, and every baseline is written atomically.

use serde::Serialize;

use crate::decode::decode_image;
use crate::error::{Error, Result};
use crate::layout::project_file_stem;
use crate::snapshot::{SnapshotEvidence, snapshot_label};
use crate::store::{CaptureData, ProjectStore, StoredCapture, captured_projects};

/// What [`approve`] did for one capture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Approval {
    pub name: String,
    pub project: String,
    /// Path of the baseline written, relative to the root.
    pub baseline: String,
    /// A baseline existed before (replaced) or not (created).
    pub replaced: bool,
    /// The capture became this accepted variant beside the baseline ([`crate::variants`]),
    /// not the baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<u8>,
    /// What was wrong with the baseline replaced, when it could not be read (the run's evidence
    /// says `error`): approving is how a damaged baseline is replaced on purpose.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub damaged: Option<String>,
}

impl Approval {
    /// `approved name (project): replaced|created <baseline>` (`approved name (project) as
    /// accepted variant 2: created <file>`): how `sightline approve` and the MCP approve tools
    /// say what was written.
    pub fn line(&self) -> String {
        let verb = if self.replaced { "replaced" } else { "created" };
        let damaged =
            self.damaged.as_ref().map(|problem| format!(", a damaged baseline ({problem})")).unwrap_or_default();
        let variant = self.variant.map(|n| format!(" as accepted variant {n}")).unwrap_or_default();
        format!("approved {}{variant}: {verb} {}{damaged}", snapshot_label(&self.name, &self.project), self.baseline)
    }
}

/// A capture [`approve`] left alone: it needs an explicit request to become a baseline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Held {
    pub name: String,
    pub project: String,
    /// Why: the capture's own verdict (an unhealthy capture, or a page that never settled).
    pub reason: String,
}

impl Held {
    /// `held name (project): reason; not approved, its baseline is unchanged (how)`: how every
    /// approve path says it left a capture alone; `how` says how its front-end asks for it anyway.
    pub fn line(&self, how: &str) -> String {
        format!(
            "held {}: {}; not approved, its baseline is unchanged ({how})",
            snapshot_label(&self.name, &self.project),
            self.reason
        )
    }
}

/// What one [`approve`] call did: the baselines written and the captures it left alone.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Approved {
    pub approved: Vec<Approval>,
    pub held: Vec<Held>,
}

/// Why this run's capture of `name` for `stem` must not become a baseline unless asked for
/// explicitly: its evidence says the capture is unhealthy (failed assets) or the page never
/// settled. A capture stored without evidence (a capture-only shard before its merge) is judged
/// by the asset failures it recorded.
fn approval_hold(evidence: Option<&SnapshotEvidence>, capture: &CaptureData) -> Option<String> {
    match evidence {
        Some(evidence) => evidence.held_from_approval().then(|| evidence.verdict.clone()),
        None => (!capture.failures.is_empty()).then(|| crate::verdict::unhealthy_capture(&capture.failures)),
    }
}

/// What an approval rests on: what the person who asked for it had before them.
#[derive(Debug, Clone, Copy)]
pub enum Proof<'a> {
    /// The person named the snapshot (`sightline approve`): this run's captures on disk of every
    /// captured project, or only `project`'s.
    Named { project: Option<&'a str> },
    /// The person was shown these images of the capture, as `(project, image)` pairs (the run's
    /// report images, relative to the root): the MCP approve tools after the last run's results,
    /// the review page. Nothing is written unless each capture still holds exactly the pixels
    /// shown: a capture written since (a new run under way, or one stopped before its report) is
    /// a capture nobody reviewed.
    Shown(&'a [(&'a str, &'a str)]),
}

/// What a capture becomes when it is approved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Accept {
    /// The snapshot's baseline, replacing the one there.
    #[default]
    Baseline,
    /// One more accepted state beside the baseline, which stays ([`crate::variants`]).
    Variant,
}

/// Promotes this run's capture of `name` to the approved baseline, as far as `proof` reaches.
/// The one approve policy of every front-end: each baseline is written atomically; a capture
/// whose page was unhealthy or never settled is held (listed in [`Approved::held`], nothing
/// written) unless `include_unhealthy` asks for it explicitly; a name with no capture is an error
/// that says what to do — including a baseline with no capture (a *missing* snapshot), whose
/// intended removal is deleting its files.
pub fn approve(store: &ProjectStore, name: &str, proof: Proof<'_>, include_unhealthy: bool) -> Result<Approved> {
    approve_as(store, name, proof, include_unhealthy, Accept::Baseline)
}

/// [`approve`], the capture becoming what `accept` says. As an accepted variant, every capture
/// gets its place (the lowest free number) before anything is written: a snapshot with no
/// baseline, one at the limit of variants, or a capture that already passed is refused, and
/// nothing is written for any of them.
pub fn approve_as(
    store: &ProjectStore,
    name: &str,
    proof: Proof<'_>,
    include_unhealthy: bool,
    accept: Accept,
) -> Result<Approved> {
    let checked = match proof {
        Proof::Named { project } => named_captures(store, name, project)?,
        Proof::Shown(shown) => shown_captures(store, name, shown)?,
    };
    let places: Vec<Option<u8>> = match accept {
        Accept::Baseline => vec![None; checked.len()],
        Accept::Variant => checked
            .iter()
            .map(|(stem, capture)| crate::variants::place_for_variant(store, name, stem, &capture.image).map(Some))
            .collect::<Result<_>>()?,
    };
    let mut done = Approved::default();
    for ((stem, capture), variant) in checked.iter().zip(places) {
        promote(store, name, stem, capture, include_unhealthy, variant, &mut done)?;
    }
    Ok(done)
}

/// This run's captures of `name` (every captured project, or only `project`), as file stems.
fn named_captures(store: &ProjectStore, name: &str, project: Option<&str>) -> Result<Vec<(String, StoredCapture)>> {
    // One listing of the captures: every one of them, or the named project's if it is there.
    let available = captured_projects(store, name)?;
    let wanted: Vec<&String> = match project {
        Some(p) => available.iter().filter(|stem| **stem == project_file_stem(p)).collect(),
        None => available.iter().collect(),
    };
    if wanted.is_empty() {
        if let Some(p) = project
            && !available.is_empty()
        {
            return Err(Error::InvalidInput(format!(
                "no capture of {name:?} for project {p:?} in this run; it was captured for {}: name one of them, or leave the project out to approve every capture of it",
                available.join(", ")
            )));
        }
        // Only this snapshot's own files: its folder may hold nested snapshots' baselines too.
        let committed: Vec<String> =
            store.baselines()?.into_iter().filter(|b| b.name == name).map(|b| store.relative(&b.path)).collect();
        return Err(Error::InvalidInput(if !committed.is_empty() {
            let committed: Vec<&str> = committed.iter().map(String::as_str).collect();
            missing_snapshot_refusal(&format!("{name:?}"), &committed)
        } else {
            format!(
                "no capture of {name:?}{} in .sightline/temp; run the tests first",
                project.map(|p| format!(" for project {p:?}")).unwrap_or_default()
            )
        }));
    }
    wanted.into_iter().map(|stem| Ok((stem.clone(), store.read_capture(name, stem)?))).collect()
}

/// Writes `capture` as the baseline of `name` for `stem` (or as its accepted `variant`), or
/// holds it (see [`approve`]).
fn promote(
    store: &ProjectStore,
    name: &str,
    stem: &str,
    capture: &StoredCapture,
    include_unhealthy: bool,
    variant: Option<u8>,
    done: &mut Approved,
) -> Result<()> {
    let evidence = store.read_evidence(name, stem)?;
    if !include_unhealthy && let Some(reason) = approval_hold(evidence.as_ref(), &capture.data) {
        done.held.push(Held { name: name.to_string(), project: stem.to_string(), reason });
        return Ok(());
    }
    let png = store.accepted_png(name, stem, variant)?;
    let replaced = png.is_file();
    store.write_accepted(name, stem, variant, &capture.image, &capture.data)?;
    let damaged = evidence.filter(|e| replaced && e.replaces_damaged_baseline()).and_then(|e| e.damaged);
    done.approved.push(Approval {
        name: name.to_string(),
        project: stem.to_string(),
        baseline: store.relative(&png),
        replaced,
        variant,
        damaged: damaged.map(|d| d.problem),
    });
    Ok(())
}

/// The captures of `name` shown as `shown` (see [`Proof::Shown`]), every one read and checked
/// before anything is written.
fn shown_captures(store: &ProjectStore, name: &str, shown: &[(&str, &str)]) -> Result<Vec<(String, StoredCapture)>> {
    let mut checked = Vec::with_capacity(shown.len());
    for &(project, image) in shown {
        let stem = project_file_stem(project);
        let path = store.root().join(image);
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let reviewed = decode_image(&bytes, &path)?;
        let capture = store.read_capture(name, &stem)?;
        let same = (capture.image.width(), capture.image.height()) == (reviewed.width(), reviewed.height())
            && capture.image.as_bytes() == reviewed.as_bytes();
        if !same {
            return Err(Error::InvalidInput(format!(
                "{}: the capture in .sightline/temp is not the one the last run's report shows ({image}); a newer run has captured it (under way, or stopped before writing its report). Nothing was approved: review that run's results first",
                snapshot_label(name, project)
            )));
        }
        checked.push((stem, capture));
    }
    Ok(checked)
}

/// What every approve path (`sightline approve`, the review page, the MCP tools) answers for a
/// snapshot with a committed baseline and no capture in the last run: `label` names it,
/// `baselines` are its committed files (relative to the root).
pub fn missing_snapshot_refusal(label: &str, baselines: &[&str]) -> String {
    format!(
        "{label} has a baseline but no capture in the last run (a missing snapshot): nothing to approve. To remove the snapshot on purpose, delete {} in the same change",
        baselines.join(" and ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::RgbaImage;

    #[test]
    fn approve_says_what_is_there_when_nothing_can_be_approved() {
        let root = std::env::temp_dir().join(format!("sightline-approve-errors-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = ProjectStore::new(&root);
        let data = CaptureData { device_scale_factor: 1.0, ..Default::default() };
        let image = RgbaImage::from_raw(1, 1, vec![1; 4]).unwrap();
        store.write_baseline("home", "chromium", &image, &data).unwrap();
        store.write_baseline("home/hero", "chromium", &image, &data).unwrap();
        store.write_capture("home", "firefox", image.clone(), &data).unwrap();
        // A wrong project names the ones captured, not a missing snapshot.
        let wrong = approve(&store, "home", Proof::Named { project: Some("webkit") }, false).unwrap_err().to_string();
        assert_eq!(
            wrong,
            "no capture of \"home\" for project \"webkit\" in this run; it was captured for firefox: name one of them, or leave the project out to approve every capture of it"
        );
        // A missing snapshot points at its own file, not at the folder that holds home/hero too.
        std::fs::remove_dir_all(store.temp_root()).unwrap();
        let missing = approve(&store, "home", Proof::Named { project: None }, false).unwrap_err().to_string();
        assert!(missing.ends_with("delete .sightline/baselines/home/chromium.png in the same change"), "{missing}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn approve_holds_a_capture_with_failed_assets_even_without_its_evidence() {
        let root = std::env::temp_dir().join(format!("sightline-approve-hold-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = ProjectStore::new(&root);
        let failure = crate::health::HealthReason::failed(
            crate::health::AssetKind::Font,
            "http://127.0.0.1/brand.woff2",
            "HTTP 404",
        );
        let data = CaptureData { device_scale_factor: 1.0, failures: vec![failure.clone()], ..Default::default() };
        let image = RgbaImage::from_raw(1, 1, vec![1; 4]).unwrap();
        store.write_capture("home", "chromium", image, &data).unwrap();
        // No comparison wrote evidence for it: the capture's own failures hold it, in the words
        // its verdict would use.
        let approved = approve(&store, "home", Proof::Named { project: None }, false).unwrap();
        assert!(approved.approved.is_empty());
        assert_eq!(approved.held.len(), 1);
        assert_eq!(approved.held[0].reason, crate::verdict::unhealthy_capture(&[failure]));
        assert!(approved.held[0].reason.ends_with("never approve this capture as a baseline"));
        assert!(!store.baseline_png("home", "chromium").unwrap().exists(), "nothing is written");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn approve_line_says_what_was_written() {
        let mut approval = Approval {
            name: "home".into(),
            project: "chromium".into(),
            baseline: ".sightline/baselines/home/chromium.png".into(),
            replaced: true,
            variant: None,
            damaged: None,
        };
        assert_eq!(approval.line(), "approved home (chromium): replaced .sightline/baselines/home/chromium.png");
        approval.damaged = Some("not a readable PNG: unexpected end of file".into());
        assert_eq!(
            approval.line(),
            "approved home (chromium): replaced .sightline/baselines/home/chromium.png, a damaged baseline (not a readable PNG: unexpected end of file)"
        );
        (approval.replaced, approval.damaged) = (false, None);
        assert_eq!(approval.line(), "approved home (chromium): created .sightline/baselines/home/chromium.png");
        // A run with no Playwright project names the snapshot alone, never "home ()".
        approval.project = String::new();
        assert_eq!(approval.line(), "approved home: created .sightline/baselines/home/chromium.png");
        let held = Held { name: "home".into(), project: String::new(), reason: "unhealthy".into() };
        assert_eq!(held.line("how"), "held home: unhealthy; not approved, its baseline is unchanged (how)");
    }
}
