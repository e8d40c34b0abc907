//! What the end-to-end tests share: a project state made through the engine the way a test run
//! makes it, reading the binary's output, and for the live-page tests a browser and pages served.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sightline_core::RgbaImage;
use sightline_core::capture::{CaptureRequest, Unsettled, UpdateMode, record_capture};
use sightline_core::decode::{PngCompression, encode_png};
use sightline_core::results::{RunInfo, write_results};
use sightline_core::snapshot::SnapshotOptions;
use sightline_core::store::{CaptureData, ProjectStore};

/// stdout and stderr together, for assertions and failure messages.
pub fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Records one `toMatchVisual` capture of `png` for project `chromium`.
pub fn capture(store: &ProjectStore, name: &str, png: &[u8], update: UpdateMode) {
    capture_with(store, name, png, update, CaptureData { device_scale_factor: 1.0, ..Default::default() });
}

/// [`capture`] with the capture's own data (its asset failures, say).
pub fn capture_with(store: &ProjectStore, name: &str, png: &[u8], update: UpdateMode, data: CaptureData) {
    capture_in(store, name, "chromium", png, update, data);
}

/// [`capture_with`] for another Playwright project.
pub fn capture_in(store: &ProjectStore, name: &str, project: &str, png: &[u8], update: UpdateMode, data: CaptureData) {
    record(store, name, project, png, update, data, None);
}

/// [`capture`] of a page that never settled: after 1500 ms of shots, `earlier` and `png` (the
/// last two) still differed.
pub fn capture_unsettled(store: &ProjectStore, name: &str, png: &[u8], earlier: &[u8]) {
    let data = CaptureData { device_scale_factor: 1.0, ..Default::default() };
    let unsettled = Unsettled { previous_png: earlier, waited_ms: 1500 };
    record(store, name, "chromium", png, UpdateMode::Default, data, Some(unsettled));
}

fn record(
    store: &ProjectStore,
    name: &str,
    project: &str,
    png: &[u8],
    update: UpdateMode,
    data: CaptureData,
    unsettled: Option<Unsettled<'_>>,
) {
    let request = CaptureRequest {
        name,
        project,
        screenshot_png: png,
        decoded: None,
        data,
        parsed_dom: None,
        options: SnapshotOptions::default(),
        update,
        write_missing_baselines: false,
        want_diff_png: false,
        provisional: false,
        unsettled,
        owner: None,
        negated: false,
        defer_writes: false,
    };
    record_capture(store, request).unwrap();
}

/// What the reporter does at the end of a run: results.json, the images and the report page in
/// `visual-report/`.
pub fn write_run_results(store: &ProjectStore, root: &Path) {
    let run = RunInfo {
        mode: "compare".into(),
        shard: None,
        root: root.display().to_string(),
        config: sightline_core::config::Settings::default(),
        filtered: false,
    };
    let results = write_results(store, Path::new("visual-report"), &run).unwrap();
    sightline_core::report::write_report(store.root(), Path::new("visual-report"), &results).unwrap();
}

/// A 64 × 48 white page with a 30 × 20 card of `color` at 10,10: recolouring the card changes
/// exactly 600 pixels.
pub fn card_page(color: [u8; 4]) -> Vec<u8> {
    let mut img = RgbaImage::filled(64, 48, [255, 255, 255, 255]).unwrap();
    for y in 10..30 {
        for x in 10..40 {
            let i = (y * 64 + x) * 4;
            img.as_bytes_mut()[i..i + 4].copy_from_slice(&color);
        }
    }
    encode_png(&img, PngCompression::Fastest).unwrap()
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

/// Every file under `dir` with its bytes.
pub fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// A copy of a PNG whose header claims 100000 × 100000 pixels (CRC fixed, pixels unchanged): the
/// pixel cap must reject it before allocating anything.
pub fn claiming_huge_dimensions(png: &[u8]) -> Vec<u8> {
    let mut bytes = png.to_vec();
    bytes[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    bytes[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let crc = crc32(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    bytes
}

/// The CRC-32 a PNG chunk ends with, over its type and data.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// Chromium where the worker looks for it, node, and this checkout's playwright-core (npm
/// install), or `false` (skipped; a failure under CI).
pub fn have_browser() -> bool {
    let chromium = std::env::var("SIGHTLINE_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let playwright = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../node_modules/playwright-core/package.json");
    let found = Path::new(&chromium).is_file()
        && playwright.is_file()
        && Command::new("node").arg("--version").output().is_ok();
    let what = format!("Chromium ({chromium}), node or {}", playwright.display());
    assert!(found || std::env::var_os("CI").is_none(), "{what} is missing and CI is set");
    if !found {
        eprintln!("skipping: {what} is missing");
    }
    found
}

/// Serves `pages` (path, HTML) on a free port for as long as the test runs, 404 for any other
/// path; the base URL, `http://127.0.0.1:PORT`.
pub fn serve(pages: &'static [(&'static str, &'static str)]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request_line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            // Read the headers up to the blank line so the client sees a complete exchange.
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let path = request_line.split(' ').nth(1).unwrap_or_default();
            let (status, body) = match pages.iter().find(|(p, _)| *p == path) {
                Some((_, html)) => ("200 OK", *html),
                None => ("404 Not Found", ""),
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    base
}
