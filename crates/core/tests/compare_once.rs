//! A failing snapshot costs one comparison (issue 14, "compare once"): the comparison that
//! decides it also draws its diff image, and results.json and the report copy that image.
//!
//! The count is [`comparisons_made`], a process-wide counter, so the test re-runs this test
//! binary on itself with only this test in it: no other test compares in that process.

use std::path::Path;
use std::process::Command;

use sightline_core::RgbaImage;
use sightline_core::capture::UpdateMode;
use sightline_core::compare::comparisons_made;
use sightline_core::decode::{PngCompression, encode_png};
use sightline_core::results::{RunInfo, write_results};
use sightline_core::store::ProjectStore;

/// Set in the child to the folder it works in.
const CHILD: &str = "SIGHTLINE_COMPARE_ONCE_CHILD";
/// The line the child prints its counts on.
const MARK: &str = "comparisons: ";

/// A 64 × 48 white page with a 30 × 20 card of `color` at 10,10.
fn page(color: [u8; 4]) -> Vec<u8> {
    let mut image = RgbaImage::filled(64, 48, [255, 255, 255, 255]).unwrap();
    let width = image.width() as usize;
    for y in 10..30 {
        for x in 10..40 {
            let i = (y * width + x) * 4;
            image.as_bytes_mut()[i..i + 4].copy_from_slice(&color);
        }
    }
    encode_png(&image, PngCompression::Fastest).unwrap()
}

fn capture(store: &ProjectStore, png: &[u8], update: UpdateMode) -> Option<Vec<u8>> {
    crate::capture_card(store, png, update).diff_png
}

/// The child: approve a baseline, capture a recoloured card, write the run; print how many
/// comparisons each step made.
fn child(root: &Path) {
    let store = ProjectStore::new(root);
    capture(&store, &page([0, 128, 0, 255]), UpdateMode::All);
    let before = comparisons_made();
    let diff_png = capture(&store, &page([200, 0, 0, 255]), UpdateMode::None).expect("a failing capture's diff");
    let recorded = comparisons_made() - before;
    let run = RunInfo {
        mode: "compare".into(),
        shard: None,
        root: root.display().to_string(),
        config: sightline_core::config::Settings::default(),
        filtered: false,
    };
    let before = comparisons_made();
    write_results(&store, Path::new("visual-report"), &run).unwrap();
    let reported = comparisons_made() - before;
    let report_diff = std::fs::read(root.join("visual-report/images/card/chromium-diff.png")).unwrap();
    println!("{MARK}{recorded} {reported} {}", report_diff == diff_png);
}

#[test]
fn compare_once_a_failing_snapshot_is_compared_once_and_the_report_copies_its_diff() {
    if let Some(root) = std::env::var_os(CHILD) {
        return child(Path::new(&root));
    }
    let root = crate::scratch_dir("compare-once");
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "compare_once::compare_once_a_failing_snapshot_is_compared_once_and_the_report_copies_its_diff",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, &root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let counts: Vec<&str> = stdout.lines().filter_map(|l| l.split_once(MARK).map(|(_, c)| c)).collect();
    // One comparison to decide the failing capture and draw its diff; none to write the report,
    // whose diff image is byte for byte the one the matcher attaches.
    assert_eq!(counts, ["1 0 true"], "{stdout}");
    std::fs::remove_dir_all(&root).unwrap();
}
