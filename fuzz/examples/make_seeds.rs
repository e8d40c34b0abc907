//! Writes the seed inputs for the fuzz targets into `seeds/`: small valid artifacts (one of them
//! with two pixel bands), a DOM record and a results.json, so the fuzzer starts from the real
//! formats instead of guessing them.
//! Run from `fuzz/`: `cargo run --example make_seeds`.

use std::path::Path;

use sightline_core::RgbaImage;
use sightline_core::artifact::{Capture, encode_capture};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/artifact_decode");
    std::fs::create_dir_all(&dir)?;
    let gradient = |width: u32, height: u32| {
        let data = (0..width * height).flat_map(|i| [(i % 251) as u8, (i / 7) as u8, 128, 255]).collect();
        RgbaImage::from_raw(width, height, data)
    };
    let seeds = [
        (
            "small.slcap",
            Capture { image: gradient(9, 7)?, device_scale_factor: 1.0, metadata: br#"{"dom":[]}"#.to_vec() },
        ),
        (
            "empty.slcap",
            Capture { image: RgbaImage::from_raw(0, 0, Vec::new())?, device_scale_factor: 2.0, metadata: vec![] },
        ),
        // 1100 rows of 1000 px are two 4 MiB bands; one colour keeps the file a few hundred bytes.
        (
            "two-bands.slcap",
            Capture {
                image: RgbaImage::filled(1000, 1100, [250, 250, 250, 255])?,
                device_scale_factor: 1.0,
                metadata: b"{}".to_vec(),
            },
        ),
    ];
    for (name, capture) in seeds {
        let bytes = encode_capture(&capture)?;
        std::fs::write(dir.join(name), &bytes)?;
        eprintln!("{name}: {} bytes", bytes.len());
    }
    write_seed("dom_parse", "record.json", DOM_RECORD)?;
    write_seed("results_read", "results.json", RESULTS)?;
    Ok(())
}

fn write_seed(target: &str, name: &str, text: &str) -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds").join(target);
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join(name), text)?;
    Ok(())
}

/// A DOM record as the collector writes it (format version 1, see `sightline_core::dom`).
const DOM_RECORD: &str = r##"{"version": 1, "url": "http://localhost:3000/", "viewport": {"width": 1280, "height": 720},
"devicePixelRatio": 1, "document": {"width": 1280, "height": 900},
"styleProperties": ["color", "background-color"],
"elements": [
 {"parent": -1, "tag": "body", "selector": "body", "box": [0, 0, 1280, 900], "text": null, "image": null,
  "styles": ["rgb(0, 0, 0)", "rgb(255, 255, 255)"], "masked": false},
 {"parent": 0, "tag": "h1", "selector": "body > h1", "box": [8, 21.4, 1264, 37], "text": "9f3a5c01d2e4b7a8",
  "image": null, "styles": ["rgb(0, 0, 0)", "rgba(0, 0, 0, 0)"], "masked": false},
 {"parent": 0, "tag": "img", "selector": "#logo", "box": [8, 80, 120, 40], "text": null, "image": "0123456789abcdef",
  "styles": ["rgb(0, 0, 0)", "rgba(0, 0, 0, 0)"], "masked": true}
],
"fonts": [{"family": "Inter", "status": "loaded"}], "brokenImages": []}"##;

/// A results.json with one snapshot of each status and a missing baseline.
const RESULTS: &str = r#"{"version": 1, "run": {"mode": "compare", "shard": null, "root": "/p", "config": {}},
"summary": {"total": 3, "passed": 1, "changed": 1, "new": 1, "missing": 1, "autoPassed": 0},
"snapshots": [
 {"name": "home", "project": "chromium", "status": "changed", "verdict": "Style-only change"},
 {"name": "about", "project": "chromium", "status": "passed", "verdict": "Passed: no pixel differs"},
 {"name": "fresh", "project": "chromium", "status": "new", "verdict": "New snapshot"}
],
"missingBaselines": [{"name": "gone", "project": "chromium"}], "groups": []}"#;
