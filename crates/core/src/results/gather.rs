//! Gathering a run: the evidence every worker left in `.sightline/temp` becomes results.json,
//! with baseline / current / diff images for the snapshots that need a look.

use std::path::Path;

use rayon::prelude::*;

use super::{MissingBaseline, MissingFiles, RESULTS_VERSION, Results, RunInfo, Summary, Tool, write_report_file};
use crate::damaged::{DamagedFile, DamagedSide};
use crate::decode::{PngCompression, encode_png};
use crate::error::{Error, Result};
use crate::grouping::group_snapshots;
use crate::snapshot::{SnapshotEvidence, SnapshotFiles};
use crate::store::ledger::{RunLedger, missing_reason, read_ledger};
use crate::store::{ProjectStore, SnapshotFile, StoredCapture, read_inside};
use crate::verdict::Status;

/// Gathers this run's evidence into `<report_dir>/results.json`, writing baseline / current /
/// diff PNGs under `<report_dir>/images/` for changed and new snapshots. `report_dir` is relative
/// to the project root; nothing is written through a link out of it ([`write_report_file`]).
/// Returns what it wrote; the caller renders it (`report::write_report`).
pub fn write_results(store: &ProjectStore, report_dir: &Path, run: &RunInfo) -> Result<Results> {
    let root = store.root();
    let out_dir = root.join(report_dir);
    let evidence_files = evidence_files(&root.join(".sightline").join("temp"))?;

    // Each snapshot: read its evidence, and for a changed or new one write its images. An
    // evidence file or a capture that cannot be read is that snapshot's `error`, not the run's.
    let mut snapshots: Vec<SnapshotEvidence> = evidence_files
        .par_iter()
        .map(|file| -> Result<SnapshotEvidence> {
            // Listed a moment ago: gone now is as unreadable as damaged.
            let read = store.read_evidence(&file.name, &file.stem).and_then(|evidence| {
                evidence.ok_or_else(|| Error::io(&file.path, std::io::ErrorKind::NotFound.into()))
            });
            let mut evidence = match read {
                Ok(evidence) => evidence,
                Err(e) => {
                    let damaged = DamagedFile::new(DamagedSide::Evidence, store.relative(&file.path), &e);
                    return Ok(SnapshotEvidence::not_compared(&file.name, &file.stem, damaged, None));
                }
            };
            // A damaged capture has nothing to show; beside a damaged baseline, the capture alone.
            let readable = evidence.damaged.as_ref().is_none_or(|d| d.side == DamagedSide::Baseline);
            if matches!(evidence.status, Status::Changed | Status::New | Status::Written | Status::Error) && readable {
                match store.read_capture(&evidence.name, &evidence.project) {
                    Ok(current) => evidence.files = write_images(store, report_dir, &out_dir, &evidence, &current)?,
                    Err(e) => {
                        let capture = store.capture_path(&evidence.name, &evidence.project)?;
                        let damaged = DamagedFile::new(DamagedSide::Capture, store.relative(&capture), &e);
                        evidence = SnapshotEvidence::not_compared(&evidence.name, &evidence.project, damaged, None);
                    }
                }
            }
            Ok(evidence)
        })
        .collect::<Result<_>>()?;
    snapshots.sort_by(|a, b| (&a.name, &a.project).cmp(&(&b.name, &b.project)));

    // A shard holds part of the suite: its ledger cannot say a test is gone.
    let ledger = read_ledger(&store.temp_root())?.map(|l| if run.shard.is_some() { l.partial() } else { l });
    let missing = missing_baselines(store, &snapshots, ledger.as_ref(), !run.filtered && run.shard.is_none())?;
    let mut summary = Summary { total: snapshots.len(), missing: missing.len(), ..Summary::default() };
    for snapshot in &snapshots {
        match snapshot.status {
            Status::Passed => summary.passed += 1,
            Status::Changed => summary.changed += 1,
            Status::New => summary.new += 1,
            Status::Missing => summary.missing += 1,
            Status::Written => summary.written += 1,
            Status::Error => summary.error += 1,
        }
        summary.auto_passed += usize::from(snapshot.auto_passed);
    }
    let groups = group_snapshots(&snapshots);
    let results = Results {
        version: RESULTS_VERSION,
        created_at: now_rfc3339(),
        tool: Tool::this(),
        run: run.clone(),
        summary,
        snapshots,
        groups,
        missing_baselines: missing,
    };
    let json = serde_json::to_vec_pretty(&results).map_err(|e| Error::InvalidInput(format!("results.json: {e}")))?;
    write_report_file(root, report_dir, &out_dir.join("results.json"), &json)?;
    Ok(results)
}

/// Every `<name>/<project>.json` under `.sightline/temp`, nested names included.
fn evidence_files(temp: &Path) -> Result<Vec<SnapshotFile>> {
    crate::store::snapshot_files(temp, ".json")
}

/// Writes the images of one changed or new snapshot; returns its `files` object.
fn write_images(
    store: &ProjectStore,
    report_dir: &Path,
    out_dir: &Path,
    head: &SnapshotEvidence,
    current: &StoredCapture,
) -> Result<SnapshotFiles> {
    let stem = crate::layout::project_file_stem(&head.project);
    let dir = out_dir.join("images").join(&head.name);
    let write = |file: &str, bytes: &[u8]| write_report_file(store.root(), report_dir, &dir.join(file), bytes);
    let relative = |file: &str| report_dir.join("images").join(&head.name).join(file).to_string_lossy().into_owned();
    let current_file = format!("{stem}-current.png");
    write(&current_file, &encode_png(&current.image, PngCompression::Fastest)?)?;
    let mut files = SnapshotFiles { baseline: None, current: Some(relative(&current_file)), diff: None };
    // A damaged baseline is not shown: the report names it instead.
    let baseline = if head.damaged.is_none() {
        read_inside(store.root(), &store.accepted_png(&head.name, &head.project, head.accepted_variant())?)?
    } else {
        None
    };
    if let Some(bytes) = baseline {
        let baseline_file = format!("{stem}-baseline.png");
        write(&baseline_file, &bytes)?;
        files.baseline = Some(relative(&baseline_file));
    }
    // The diff image the deciding comparison drew (never drawn again here, so it comes from the
    // comparator and options that decided the snapshot).
    if let Some(bytes) = read_inside(store.root(), &store.diff_path(&head.name, &head.project)?)? {
        let diff_file = format!("{stem}-diff.png");
        write(&diff_file, &bytes)?;
        files.diff = Some(relative(&diff_file));
    }
    Ok(files)
}

/// Baselines committed under `.sightline/baselines` with no snapshot in this run whose
/// `toMatchVisual` call is gone ([`missing_reason`]); `full_run` decides when no reporter left a
/// ledger.
fn missing_baselines(
    store: &ProjectStore,
    seen: &[SnapshotEvidence],
    ledger: Option<&RunLedger>,
    full_run: bool,
) -> Result<Vec<MissingBaseline>> {
    let mut missing = Vec::new();
    for crate::store::SnapshotFile { name, stem: project, path } in store.baselines()? {
        let project = project.as_str();
        let captured = seen.iter().any(|h| h.name == name && crate::layout::project_file_stem(&h.project) == project);
        if captured {
            continue;
        }
        // The baseline's data is read only when a ledger can use the test it names.
        let test = match ledger {
            Some(_) => store.read_baseline_data(&name, project)?.and_then(|data| data.test),
            None => None,
        };
        if let Some(reason) = missing_reason(test.as_ref(), project, ledger, full_run, store.root()) {
            let rel = store.relative(&path);
            missing.push(MissingBaseline {
                name: name.clone(),
                project: project.to_string(),
                files: MissingFiles { baseline: rel },
                reason,
                test,
            });
        }
    }
    missing.sort_by(|a, b| (&a.name, &a.project).cmp(&(&b.name, &b.project)));
    Ok(missing)
}

/// The current UTC time as RFC 3339.
fn now_rfc3339() -> String {
    rfc3339(std::time::SystemTime::now())
}

/// A time as RFC 3339 UTC (`YYYY-MM-DDTHH:MM:SSZ`), without pulling in a date crate.
pub fn rfc3339(time: std::time::SystemTime) -> String {
    let secs = time.duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::RgbaImage;
    use crate::store::{CaptureData, Places};

    /// The project of `places` after a run that changed `home`: its baseline, a capture of other
    /// pixels, compared (evidence and diff image in `.sightline/temp`).
    fn changed_run(places: &Places) -> (ProjectStore, RunInfo) {
        let store = ProjectStore::new(places.project());
        let data = CaptureData { device_scale_factor: 1.0, ..Default::default() };
        store
            .write_baseline("home", "chromium", &RgbaImage::filled(4, 4, [255, 255, 255, 255]).unwrap(), &data)
            .unwrap();
        store.write_capture("home", "chromium", RgbaImage::filled(4, 4, [200, 0, 0, 255]).unwrap(), &data).unwrap();
        crate::batch::compare_captures(&store, &Default::default(), &|_, _| {}).unwrap();
        let run = RunInfo {
            mode: "compare".into(),
            shard: None,
            root: places.project().display().to_string(),
            config: Default::default(),
            filtered: false,
        };
        (store, run)
    }

    #[test]
    fn results_are_never_written_through_a_link_out_of_the_project() {
        let places = Places::new("results-link");
        let (store, run) = changed_run(&places);
        let report = places.project().join("visual-report");
        let results = write_results(&store, Path::new("visual-report"), &run).unwrap();
        assert!(report.join("images/home/chromium-diff.png").is_file());
        // `visual-report/images` linked out of the project: no image is written out there.
        std::fs::remove_dir_all(report.join("images")).unwrap();
        std::os::unix::fs::symlink(places.outside(), report.join("images")).unwrap();
        let before = places.outside_files();
        let error = write_results(&store, Path::new("visual-report"), &run).unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "{} is a symbolic link to {}, outside the project {}; nothing was written. Replace the link with a folder or file of the project (e.g. `git checkout -- visual-report/images`)",
                report.join("images").display(),
                places.outside().display(),
                places.project().display()
            )
        );
        assert_eq!(places.outside_files(), before);
        // The report folder itself linked out: neither results.json nor the page is written.
        std::fs::remove_dir_all(&report).unwrap();
        std::os::unix::fs::symlink(places.outside(), &report).unwrap();
        let refused = format!("{} is a symbolic link to {}", report.display(), places.outside().display());
        let error = write_results(&store, Path::new("visual-report"), &run).unwrap_err().to_string();
        assert!(error.starts_with(&refused), "{error}");
        let error = crate::report::write_report(store.root(), Path::new("visual-report"), &results);
        assert!(error.unwrap_err().to_string().starts_with(&refused));
        assert_eq!(places.outside_files(), before);
    }

    #[test]
    fn results_in_a_report_folder_configured_outside_the_project_stay_inside_it() {
        let places = Places::new("results-beside");
        let (store, run) = changed_run(&places);
        // `reportDir: "../reports"`: the user chose a folder beside the project.
        let reports = places.beside("reports");
        let results = write_results(&store, Path::new("../reports"), &run).unwrap();
        crate::report::write_report(store.root(), Path::new("../reports"), &results).unwrap();
        for file in ["results.json", "index.html", "images/home/chromium-current.png", "images/home/chromium-diff.png"]
        {
            assert!(reports.join(file).is_file(), "{file}");
        }
        // A link in it that leads out of it is still refused.
        std::fs::remove_dir_all(reports.join("images")).unwrap();
        std::os::unix::fs::symlink(places.outside(), reports.join("images")).unwrap();
        let before = places.outside_files();
        let error = write_results(&store, Path::new("../reports"), &run).unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "{} is a symbolic link to {}, outside the report folder {}; nothing was written. Remove the link images: sightline makes the report's folders itself",
                places.project().join("../reports/images").display(),
                places.outside().display(),
                places.project().join("../reports").display()
            )
        );
        assert_eq!(places.outside_files(), before);
    }

    #[test]
    fn results_rfc3339_of_known_instants() {
        let at = |secs| rfc3339(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_795_000_000), "2026-11-18T11:06:40Z");
    }

    #[test]
    fn results_timestamp_is_rfc3339() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z') && &t[10..11] == "T", "{t}");
    }
}
