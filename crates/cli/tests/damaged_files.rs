//! A damaged baseline or capture is one snapshot's result, not the end of the run: `sightline
//! compare` gives that snapshot the status `error` (the file, what is wrong, the fix for its
//! kind), compares the others as before, writes results.json and the report, lists it, and exits
//! 2; the damaged file itself is left as it was. Approving the snapshot replaces a damaged
//! baseline and says so.

use std::path::{Path, PathBuf};
use std::process::Command;

use sightline_core::RgbaImage;
use sightline_core::capture::UpdateMode;
use sightline_core::decode::{PngCompression, encode_png};
use sightline_core::store::ProjectStore;

use crate::support::{capture, claiming_huge_dimensions, crc32, text};

fn page(color: [u8; 4]) -> Vec<u8> {
    let mut img = RgbaImage::filled(40, 30, [255, 255, 255, 255]).unwrap();
    img.as_bytes_mut()[..40 * 4 * 10].chunks_exact_mut(4).for_each(|px| px.copy_from_slice(&color));
    encode_png(&img, PngCompression::Fastest).unwrap()
}

/// A run's leftovers: `home`, `about` and `cart` approved; then `home` and `about` captured
/// unchanged and `cart` recoloured (300 pixels).
fn project(tag: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("sightline-damaged-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let store = ProjectStore::new(&root);
    for name in ["home", "about", "cart"] {
        capture(&store, name, &page([0, 0, 200, 255]), UpdateMode::All);
    }
    std::fs::remove_dir_all(root.join(".sightline/temp")).unwrap();
    capture(&store, "home", &page([0, 0, 200, 255]), UpdateMode::Default);
    capture(&store, "about", &page([0, 0, 200, 255]), UpdateMode::Default);
    capture(&store, "cart", &page([200, 0, 0, 255]), UpdateMode::Default);
    root
}

const CAPTURE: &str = ".sightline/temp/home/chromium.slcap";
const BASELINE: &str = ".sightline/baselines/home/chromium.png";

fn truncated(root: &Path, rel: &str) {
    let bytes = std::fs::read(root.join(rel)).unwrap();
    std::fs::write(root.join(rel), &bytes[..bytes.len() / 2]).unwrap();
}

/// The baseline's DOM data chunk (`slDm`) with its data scrambled and its CRC made right again:
/// a PNG every decoder reads, whose Sightline data is not zstd.
fn corrupt_dom_chunk(root: &Path) {
    let mut bytes = std::fs::read(root.join(BASELINE)).unwrap();
    let at = bytes.windows(4).position(|w| w == b"slDm").expect("a baseline carries its DOM data chunk");
    let len = u32::from_be_bytes(bytes[at - 4..at].try_into().unwrap()) as usize;
    bytes[at + 4..at + 4 + len].iter_mut().for_each(|b| *b ^= 0x5a);
    let crc = crc32(&bytes[at..at + 4 + len]);
    bytes[at + 4 + len..at + 8 + len].copy_from_slice(&crc.to_be_bytes());
    std::fs::write(root.join(BASELINE), bytes).unwrap();
}

/// The capture as a later sightline would write it: the artifact's format version one higher.
fn newer_capture(root: &Path) {
    let mut bytes = std::fs::read(root.join(CAPTURE)).unwrap();
    let version = u16::from_le_bytes([bytes[6], bytes[7]]) + 1;
    bytes[6..8].copy_from_slice(&version.to_le_bytes());
    std::fs::write(root.join(CAPTURE), bytes).unwrap();
}

struct Case {
    what: &'static str,
    damage: fn(&Path),
    /// `baseline` or `capture`.
    side: &'static str,
    /// What results.json says is wrong with the file: its start, or a part of it after `…`.
    problem: &'static str,
}

const CASES: &[Case] = &[
    Case {
        what: "truncated baseline",
        damage: |r| truncated(r, BASELINE),
        side: "baseline",
        problem: "not a readable PNG: ",
    },
    Case {
        what: "baseline whose DOM chunk is corrupt",
        damage: corrupt_dom_chunk,
        side: "baseline",
        problem: "the baseline's DOM data chunk is corrupt (",
    },
    Case {
        what: "baseline claiming 100000×100000",
        damage: |r| {
            std::fs::write(r.join(BASELINE), claiming_huge_dimensions(&std::fs::read(r.join(BASELINE)).unwrap()))
                .unwrap()
        },
        side: "baseline",
        problem: "its header claims 100000×100000 pixels, above the limit of 268435456",
    },
    Case {
        what: "zero-byte baseline",
        damage: |r| std::fs::write(r.join(BASELINE), b"").unwrap(),
        side: "baseline",
        problem: "not a readable PNG: ",
    },
    Case {
        what: "baseline that is a folder",
        damage: |r| {
            std::fs::remove_file(r.join(BASELINE)).unwrap();
            std::fs::create_dir(r.join(BASELINE)).unwrap();
        },
        side: "baseline",
        problem: "a folder, not a file",
    },
    Case {
        what: "baseline linked to a file outside the project",
        damage: |r| {
            let theirs = r.with_extension("theirs.png");
            std::fs::rename(r.join(BASELINE), &theirs).unwrap();
            std::os::unix::fs::symlink(&theirs, r.join(BASELINE)).unwrap();
        },
        side: "baseline",
        problem: "…is a symbolic link to ",
    },
    Case {
        what: "truncated capture",
        damage: |r| truncated(r, CAPTURE),
        side: "capture",
        problem: "truncated: the header declares ",
    },
    Case {
        what: "zero-byte capture",
        damage: |r| std::fs::write(r.join(CAPTURE), b"").unwrap(),
        side: "capture",
        problem: "truncated: 0 bytes",
    },
    Case {
        what: "capture from a newer sightline",
        damage: newer_capture,
        side: "capture",
        problem: "artifact format version 2 is not supported (this build reads version 1)",
    },
];

/// Whether `problem` is what `expected` says: its start, or with a leading `…`, a part of it.
fn said_problem(problem: &str, expected: &str) -> bool {
    match expected.strip_prefix('…') {
        Some(part) => problem.contains(part),
        None => problem.starts_with(expected),
    }
}

fn sightline(root: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sightline")).arg("--root").arg(root).args(args).output().unwrap()
}

#[test]
fn damaged_files_give_that_snapshot_the_status_error_and_the_run_goes_on() {
    let mut failures = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        let root = project(&i.to_string());
        (case.damage)(&root);
        let damaged = if case.side == "baseline" { BASELINE } else { CAPTURE };
        let damaged_before = std::fs::read(root.join(damaged)).ok();
        let out = sightline(&root, &["compare"]);
        let said = text(&out);
        let mut fail = |why: String| failures.push(format!("{}: {why}\n{said}", case.what));
        if out.status.code() != Some(2) {
            fail(format!("exit {:?}, expected 2", out.status.code()));
        }
        let Ok(json) = std::fs::read(root.join("visual-report/results.json")) else {
            fail("no results.json".into());
            continue;
        };
        let results: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let snapshot =
            |name: &str| results["snapshots"].as_array().unwrap().iter().find(|s| s["name"] == name).cloned();
        let home = snapshot("home").unwrap_or_default();
        let fix = if case.side == "baseline" {
            format!("restore it with `git checkout -- {BASELINE}`, or approve this run's capture to replace it")
        } else {
            "run the tests again with this sightline to capture it anew (nothing is approvable until then)".to_string()
        };
        if home["status"] != "error"
            || home["verdictKind"] != "damaged"
            || home["damaged"]["side"] != case.side
            || home["damaged"]["file"] != damaged
            || home["damaged"]["fix"] != fix.as_str()
            || !said_problem(home["damaged"]["problem"].as_str().unwrap_or_default(), case.problem)
        {
            fail(format!("home is not an error naming the {}: {home:#}", case.side));
        }
        let verdict = format!("Cannot compare: the {} {damaged} is damaged (", case.side);
        if !home["verdict"].as_str().unwrap_or_default().starts_with(&verdict) {
            fail(format!("home's verdict: {}", home["verdict"]));
        }
        // The others compared as they would have been.
        let statuses = (snapshot("about").map(|s| s["status"].clone()), snapshot("cart").map(|s| s["status"].clone()));
        if statuses != (Some("passed".into()), Some("changed".into())) {
            fail(format!("about and cart: {statuses:?}"));
        }
        if results["summary"]["error"] != 1 || results["summary"]["passed"] != 1 || results["summary"]["changed"] != 1 {
            fail(format!("summary: {}", results["summary"]));
        }
        // Listed in the summary line and the report; the damaged file is as it was.
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !stdout.starts_with("3 snapshots — 1 passed, 1 changed, 0 new, 0 missing, 1 error → ")
            || !stdout.contains(&format!("  home (chromium) [error]: {verdict}"))
        {
            fail("the summary does not list it".into());
        }
        // Replacing a damaged baseline is its own line, apart from approving a change.
        let hints = match case.side {
            "baseline" => {
                "If this is intended: npx sightline approve cart (or run the tests with -u)\nTo replace the damaged baseline: npx sightline approve home (or run the tests with -u)\n"
            }
            _ => "If this is intended: npx sightline approve cart (or run the tests with -u)\n",
        };
        if !stdout.ends_with(hints) {
            fail(format!("the summary does not end with:\n{hints}"));
        }
        let report = std::fs::read_to_string(root.join("visual-report/index.html")).unwrap_or_default();
        if !report.contains("data-section=\"error\"") || !report.contains(&verdict) {
            fail("the report does not list it".into());
        }
        if std::fs::read(root.join(damaged)).ok() != damaged_before {
            fail("the damaged file changed".into());
        }
        std::fs::remove_dir_all(&root).unwrap();
        let _ = std::fs::remove_file(root.with_extension("theirs.png"));
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), CASES.len(), failures.join("\n\n"));
}

#[test]
fn damaged_files_a_damaged_baseline_is_replaced_by_approving_and_a_damaged_capture_never_is() {
    let root = project("approve");
    truncated(&root, BASELINE);
    assert_eq!(sightline(&root, &["compare"]).status.code(), Some(2));
    let out = sightline(&root, &["approve", "home"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.starts_with(&format!(
            "approved home (chromium): replaced {BASELINE}, a damaged baseline (not a readable PNG: "
        )),
        "{said}"
    );
    assert_eq!(sightline(&root, &["compare"]).status.code(), Some(1), "cart is still changed; home passes now");

    // A damaged capture: approve refuses, naming it, and the baseline stays.
    truncated(&root, CAPTURE);
    let baseline = std::fs::read(root.join(BASELINE)).unwrap();
    let out = sightline(&root, &["approve", "home"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains(&format!("{}: truncated", root.join(CAPTURE).display())), "{}", text(&out));
    assert_eq!(std::fs::read(root.join(BASELINE)).unwrap(), baseline);
    std::fs::remove_dir_all(&root).unwrap();
}
