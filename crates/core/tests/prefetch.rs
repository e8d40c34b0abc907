//! A baseline read ahead (prefetch_baseline) is what the comparison uses while it is still the
//! file on disk, and never once the file was replaced: an approve or an update between the
//! prefetch and the comparison is seen.
use sightline_core::RgbaImage;
use sightline_core::capture::UpdateMode;
use sightline_core::decode::{PngCompression, encode_png};
use sightline_core::prefetch::prefetch_baseline;
use sightline_core::store::{CaptureData, ProjectStore};
use sightline_core::verdict::Status;

fn page(color: [u8; 4]) -> RgbaImage {
    RgbaImage::filled(40, 30, color).unwrap()
}

/// Records `image` as this run's capture of "card" and returns the status it gets.
fn capture(store: &ProjectStore, image: &RgbaImage, update: UpdateMode) -> Status {
    crate::capture_card(store, &encode_png(image, PngCompression::Fastest).unwrap(), update).evidence.status
}

#[test]
fn a_prefetched_baseline_is_compared_while_it_is_the_file_on_disk() {
    let dir = crate::scratch_dir("prefetch-same");
    let store = ProjectStore::new(&dir);
    let green = page([0, 128, 0, 255]);
    assert_eq!(capture(&store, &green, UpdateMode::All), Status::Written);
    prefetch_baseline(&store, "card", "chromium");
    assert_eq!(capture(&store, &green, UpdateMode::None), Status::Passed);
    prefetch_baseline(&store, "card", "chromium");
    assert_eq!(capture(&store, &page([200, 0, 0, 255]), UpdateMode::None), Status::Changed);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_baseline_replaced_after_its_prefetch_is_read_again() {
    let dir = crate::scratch_dir("prefetch-replaced");
    let store = ProjectStore::new(&dir);
    let (green, red) = (page([0, 128, 0, 255]), page([200, 0, 0, 255]));
    assert_eq!(capture(&store, &green, UpdateMode::All), Status::Written);
    prefetch_baseline(&store, "card", "chromium");
    // Approved in between: the red capture is now the baseline, written over the green one.
    store
        .write_baseline("card", "chromium", &red, &CaptureData { device_scale_factor: 1.0, ..Default::default() })
        .unwrap();
    assert_eq!(capture(&store, &red, UpdateMode::None), Status::Passed, "compared with the new baseline");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_baseline_removed_after_its_prefetch_is_missing() {
    let dir = crate::scratch_dir("prefetch-removed");
    let store = ProjectStore::new(&dir);
    let green = page([0, 128, 0, 255]);
    assert_eq!(capture(&store, &green, UpdateMode::All), Status::Written);
    prefetch_baseline(&store, "card", "chromium");
    std::fs::remove_file(store.baseline_png("card", "chromium").unwrap()).unwrap();
    assert_eq!(capture(&store, &green, UpdateMode::None), Status::New);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_prefetch_of_a_missing_baseline_or_a_bad_name_changes_nothing() {
    let dir = crate::scratch_dir("prefetch-missing");
    let store = ProjectStore::new(&dir);
    prefetch_baseline(&store, "card", "chromium");
    prefetch_baseline(&store, "../outside", "chromium");
    assert_eq!(capture(&store, &page([0, 128, 0, 255]), UpdateMode::None), Status::New);
    assert!(!dir.join("../outside").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_baseline_gives_the_matcher_an_error_result_and_an_update_run_replaces_it() {
    let dir = crate::scratch_dir("prefetch-damaged");
    let store = ProjectStore::new(&dir);
    let green = page([0, 128, 0, 255]);
    assert_eq!(capture(&store, &green, UpdateMode::All), Status::Written);
    let png = store.baseline_png("card", "chromium").unwrap();
    let bytes = std::fs::read(&png).unwrap();
    std::fs::write(&png, &bytes[..bytes.len() / 2]).unwrap();
    // Read ahead or not, the call's outcome is the snapshot's `error`, the capture is kept (to
    // approve in the damaged file's place) and the test fails; the damaged file is left alone.
    for prefetched in [true, false] {
        if prefetched {
            prefetch_baseline(&store, "card", "chromium");
        }
        let outcome =
            crate::capture_card(&store, &encode_png(&green, PngCompression::Fastest).unwrap(), UpdateMode::None);
        let evidence = &outcome.evidence;
        assert_eq!(evidence.status, Status::Error);
        assert!(outcome.fails_test() && evidence.approvable() && evidence.files.baseline.is_none());
        assert!(
            evidence.verdict.starts_with(
                "Cannot compare: the baseline .sightline/baselines/card/chromium.png is damaged (not a readable PNG: "
            ),
            "{}",
            evidence.verdict
        );
        assert!(store.capture_path("card", "chromium").unwrap().is_file());
        assert_eq!(store.read_evidence("card", "chromium").unwrap().unwrap().status, Status::Error);
        assert_eq!(std::fs::read(&png).unwrap(), &bytes[..bytes.len() / 2]);
    }
    // `-u` replaces it, saying what it replaced; then the page passes.
    let outcome =
        crate::capture_card(&store, &encode_png(&green, PngCompression::Fastest).unwrap(), UpdateMode::Changed);
    assert_eq!(outcome.evidence.status, Status::Written);
    assert!(
        outcome
            .evidence
            .verdict
            .starts_with("Baseline written by --update-snapshots, replacing a damaged one (not a readable PNG: ")
    );
    assert!(!outcome.evidence.approvable() && outcome.evidence.damaged.is_none());
    assert_eq!(capture(&store, &green, UpdateMode::None), Status::Passed);
    std::fs::remove_dir_all(&dir).unwrap();
}
