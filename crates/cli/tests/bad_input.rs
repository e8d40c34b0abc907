//! The bad-input matrix of the review commands: every row feeds `sightline` one kind of broken
//! input and asserts exit code 2, a message that names the input and the fix, and not one byte
//! changed under the project root. (`diff` inputs are in diff_command.rs; the addon's and the MCP
//! server's in tests/addon.test.mjs and tests/mcp.test.mjs.)

use std::path::{Path, PathBuf};
use std::process::Command;

use sightline_core::RgbaImage;
use sightline_core::capture::UpdateMode;
use sightline_core::decode::encode_png;
use sightline_core::store::ProjectStore;

use crate::support::{capture, claiming_huge_dimensions, files, text, write_run_results};

fn page(color: [u8; 4]) -> Vec<u8> {
    let mut img = RgbaImage::filled(40, 30, [255, 255, 255, 255]).unwrap();
    img.as_bytes_mut()[..40 * 4 * 10].chunks_exact_mut(4).for_each(|px| px.copy_from_slice(&color));
    encode_png(&img, true).unwrap()
}

/// A run's leftovers: `home` approved then changed, `about` approved and unchanged, results.json.
fn project(tag: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("sightline-bad-input-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let store = ProjectStore::new(&root);
    capture(&store, "home", &page([0, 0, 200, 255]), UpdateMode::All);
    capture(&store, "about", &page([0, 120, 0, 255]), UpdateMode::All);
    std::fs::remove_dir_all(root.join(".sightline/temp")).unwrap();
    capture(&store, "home", &page([200, 0, 0, 255]), UpdateMode::Default);
    capture(&store, "about", &page([0, 120, 0, 255]), UpdateMode::Default);
    write_run_results(&store, &root);
    root
}

struct Case {
    what: &'static str,
    /// Breaks the project before the command runs.
    setup: fn(&Path),
    args: &'static [&'static str],
    /// Every one must appear in the output.
    says: &'static [&'static str],
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    std::fs::write(root.join(rel), bytes).unwrap();
}

fn truncate(root: &Path, rel: &str) {
    let bytes = std::fs::read(root.join(rel)).unwrap();
    std::fs::write(root.join(rel), &bytes[..bytes.len() / 2]).unwrap();
}

const CAPTURE: &str = ".sightline/temp/home/chromium.slcap";
const BASELINE: &str = ".sightline/baselines/home/chromium.png";
const CONFIG: &str = ".sightline/config.json";
const RESULTS: &str = "visual-report/results.json";

const CASES: &[Case] = &[
    Case {
        what: "name with ..",
        setup: |_| {},
        args: &["approve", "../x"],
        says: &["\"../x\"", "contains '..'", "letters, digits"],
    },
    Case {
        what: "absolute name",
        setup: |_| {},
        args: &["approve", "/etc/passwd"],
        says: &["\"/etc/passwd\"", "contains '/'"],
    },
    Case { what: "backslash name", setup: |_| {}, args: &["approve", "a\\b"], says: &["contains '\\\\'"] },
    Case { what: "empty name", setup: |_| {}, args: &["approve", ""], says: &["is empty"] },
    Case {
        what: "name too long",
        setup: |_| {},
        args: &[
            "approve",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ],
        says: &["bytes, above the limit"],
    },
    Case {
        what: "truncated capture, approve",
        setup: |root| truncate(root, CAPTURE),
        args: &["approve", "home"],
        says: &["chromium.slcap", "capture again"],
    },
    Case {
        what: "truncated capture, compare",
        setup: |root| truncate(root, CAPTURE),
        args: &["compare"],
        says: &["chromium.slcap", "capture again"],
    },
    Case {
        what: "capture that is not an artifact",
        setup: |root| write(root, CAPTURE, b"PK\x03\x04 a zip file, not a capture"),
        args: &["approve", "home"],
        says: &["chromium.slcap", "capture again"],
    },
    Case {
        what: "truncated baseline PNG",
        setup: |root| truncate(root, BASELINE),
        args: &["compare"],
        says: &["baselines/home/chromium.png"],
    },
    Case {
        what: "baseline claiming 100000×100000",
        setup: |root| write(root, BASELINE, &claiming_huge_dimensions(&std::fs::read(root.join(BASELINE)).unwrap())),
        args: &["compare"],
        says: &["baselines/home/chromium.png", "100000×100000", "above the limit"],
    },
    Case {
        what: "config key of the wrong type",
        setup: |root| write(root, CONFIG, br#"{"threshold": "high"}"#),
        args: &["compare"],
        says: &["config.json", "\"threshold\" has the wrong type"],
    },
    Case {
        what: "unknown config key",
        setup: |root| write(root, CONFIG, br#"{"treshold": 0.2}"#),
        args: &["compare"],
        says: &["config.json", "unknown key \"treshold\"", "known keys are"],
    },
    Case {
        what: "config that is not JSON",
        setup: |root| write(root, CONFIG, b"threshold = 0.2"),
        args: &["compare"],
        says: &["config.json"],
    },
    Case {
        what: "results.json cut short",
        setup: |root| truncate(root, RESULTS),
        args: &["report"],
        says: &["results.json"],
    },
    Case {
        what: "results.json of the wrong shape",
        setup: |root| write(root, RESULTS, br#"{"snapshots": "all fine"}"#),
        args: &["explain", "home"],
        says: &["results.json"],
    },
];

#[test]
fn bad_input_matrix_exits_2_names_the_input_and_changes_nothing() {
    let mut failures = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        let root = project(&i.to_string());
        (case.setup)(&root);
        let before = files(&root);
        let out =
            Command::new(env!("CARGO_BIN_EXE_sightline")).arg("--root").arg(&root).args(case.args).output().unwrap();
        let said = text(&out);
        if out.status.code() != Some(2) {
            failures.push(format!("{}: exit {:?}, expected 2: {said}", case.what, out.status.code()));
        }
        for needle in case.says {
            if !said.contains(needle) {
                failures.push(format!("{}: the message lacks {needle:?}: {said}", case.what));
            }
        }
        if files(&root) != before {
            failures.push(format!("{}: files under the root changed", case.what));
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
    assert!(failures.is_empty(), "{} of {} rows failed:\n{}", failures.len(), CASES.len(), failures.join("\n"));
}
