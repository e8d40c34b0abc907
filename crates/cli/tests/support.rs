//! What the end-to-end tests share: a project state made through the engine the way a test run
//! makes it, and reading the binary's output.

use std::path::Path;
use std::process::Output;

use sightline_core::capture::{CaptureRequest, UpdateMode, record_capture};
use sightline_core::results::{RunInfo, write_results};
use sightline_core::snapshot::SnapshotOptions;
use sightline_core::store::{CaptureData, ProjectStore};

/// stdout and stderr together, for assertions and failure messages.
pub fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Records one `toMatchVisual` capture of `png` for project `chromium`.
pub fn capture(store: &ProjectStore, name: &str, png: &[u8], update: UpdateMode) {
    let request = CaptureRequest {
        name,
        project: "chromium",
        screenshot_png: png,
        data: CaptureData { device_scale_factor: 1.0, ..Default::default() },
        options: SnapshotOptions::default(),
        update,
        write_missing_baselines: false,
        want_diff_png: false,
        owner: None,
    };
    record_capture(store, request).unwrap();
}

/// What the reporter does at the end of a run: results.json and the images in `visual-report/`.
pub fn write_run_results(store: &ProjectStore, root: &Path) {
    let run = RunInfo {
        mode: "compare".into(),
        shard: None,
        root: root.display().to_string(),
        config: serde_json::Value::Null,
        filtered: false,
    };
    write_results(store, Path::new("visual-report"), &run, &SnapshotOptions::default()).unwrap();
}

/// Copies a folder tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}
