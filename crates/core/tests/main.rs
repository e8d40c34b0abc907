//! Integration tests of the engine against real files.
//!
//! - `design`: compare_designs on Chromium-rendered pages, one alteration per dimension
//! - `corpus`: locating the shared corpora (ignored when absent, a failure under CI)
//! - `jpeg_decode`: JPEG fixtures of every layout decode to djpeg's bytes; the scan and pixel caps
//! - `pixelmatch_conformance`: the 12 pixelmatch 7.2 fixtures, exact counts and diff bytes
//! - `compare_evidence`: regions, shift and shape on generated pages
//! - `compare_once`: a failing snapshot compared once, its diff image copied into the report
//! - `atomic_writes`: artifact, baseline and results.json writes cut off by a full disk or a kill
//! - `artifact_files`: capture artifacts written and read as files, against a corpus PNG
//! - `snapshot_verdicts`: status and the one-line verdict for one planted change each
//! - `rendering_verdicts`: the same page drawn by two browser builds, with and without a real change
//! - `approval_holds`: approving holds a capture whose page never settled, as an unhealthy one
//! - `prefetch`: a baseline read ahead is used only while it is still the file on disk; a damaged
//!   one is the snapshot's `error`
//! - `playwright_comparators`: Playwright's image-tools fixtures through the perceptual and pixelmatch tests

mod approval_holds;
mod artifact_files;
mod atomic_writes;
mod compare_evidence;
mod compare_once;
mod corpus;
mod design;
mod jpeg_decode;
mod pixelmatch_conformance;
mod playwright_comparators;
mod prefetch;
mod rendering_verdicts;
mod snapshot_verdicts;

/// A fresh, empty folder for one test under the system temp dir, named by the test and this
/// process (test binaries of two checkouts may run at once).
pub fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sightline-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Records `png` as this run's capture of the snapshot "card" (chromium), with a diff image.
pub fn capture_card(
    store: &sightline_core::store::ProjectStore,
    png: &[u8],
    update: sightline_core::capture::UpdateMode,
) -> sightline_core::capture::CaptureOutcome {
    capture_card_unsettled(store, png, update, None)
}

/// [`capture_card`] of a page that never settled when `unsettled` names the shot before `png`.
pub fn capture_card_unsettled(
    store: &sightline_core::store::ProjectStore,
    png: &[u8],
    update: sightline_core::capture::UpdateMode,
    unsettled: Option<sightline_core::capture::Unsettled<'_>>,
) -> sightline_core::capture::CaptureOutcome {
    let request = sightline_core::capture::CaptureRequest {
        name: "card",
        project: "chromium",
        screenshot_png: png,
        decoded: None,
        data: sightline_core::store::CaptureData { device_scale_factor: 1.0, ..Default::default() },
        parsed_dom: None,
        options: sightline_core::snapshot::SnapshotOptions::default(),
        update,
        write_missing_baselines: false,
        want_diff_png: true,
        provisional: false,
        unsettled,
        owner: None,
        negated: false,
        defer_writes: false,
    };
    sightline_core::capture::record_capture(store, request).unwrap()
}
