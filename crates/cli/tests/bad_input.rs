//! The bad-input matrix of the review commands: every row feeds `sightline` one kind of broken
//! input and asserts exit code 2, the whole message (naming the input and the fix), and not one byte
//! changed under the project root. (`diff` inputs are in diff_command.rs; the addon's and the MCP
//! server's in tests/addon.test.mjs and tests/mcp.test.mjs.)

use std::path::{Path, PathBuf};
use std::process::Command;

use sightline_core::RgbaImage;
use sightline_core::capture::UpdateMode;
use sightline_core::decode::{PngCompression, encode_png};
use sightline_core::store::ProjectStore;

use crate::support::{capture, files, text, write_run_results};

fn page(color: [u8; 4]) -> Vec<u8> {
    let mut img = RgbaImage::filled(40, 30, [255, 255, 255, 255]).unwrap();
    img.as_bytes_mut()[..40 * 4 * 10].chunks_exact_mut(4).for_each(|px| px.copy_from_slice(&color));
    encode_png(&img, PngCompression::Fastest).unwrap()
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
    /// The whole of stderr after `sightline: `, with `{root}` for the project root and `…` where
    /// a detail from a parser (serde, png) stands, which this test does not own.
    says: &'static str,
}

/// Whether `message` is `pattern` with `…` standing for any text.
fn matches(pattern: &str, message: &str) -> bool {
    let pieces: Vec<&str> = pattern.split('…').collect();
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if pieces.len() == 1 {
        return message == pattern;
    }
    let Some(mut rest) = message.strip_prefix(first).and_then(|m| m.strip_suffix(last)) else { return false };
    for piece in &pieces[1..pieces.len() - 1] {
        let Some(at) = rest.find(piece) else { return false };
        rest = &rest[at + piece.len()..];
    }
    true
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    std::fs::write(root.join(rel), bytes).unwrap();
}

fn truncate(root: &Path, rel: &str) {
    let bytes = std::fs::read(root.join(rel)).unwrap();
    std::fs::write(root.join(rel), &bytes[..bytes.len() / 2]).unwrap();
}

const CAPTURE: &str = ".sightline/temp/home/chromium.slcap";
const CONFIG: &str = ".sightline/config.json";
const RESULTS: &str = "visual-report/results.json";

const CASES: &[Case] = &[
    Case {
        what: "name with ..",
        setup: |_| {},
        args: &["approve", "../x"],
        says: "snapshot name \"../x\" contains '..'; use letters, digits, '-', '_' and '.', with '/' between folders, e.g. \"checkout-page\" or \"cards/lamp\"",
    },
    Case {
        what: "absolute name",
        setup: |_| {},
        args: &["approve", "/etc/passwd"],
        says: "snapshot name \"/etc/passwd\" starts with '/'; use letters, digits, '-', '_' and '.', with '/' between folders, e.g. \"checkout-page\" or \"cards/lamp\"",
    },
    Case {
        what: "backslash name",
        setup: |_| {},
        args: &["approve", "a\\b"],
        says: "snapshot name \"a\\\\b\" contains '\\\\'; use letters, digits, '-', '_' and '.', with '/' between folders, e.g. \"checkout-page\" or \"cards/lamp\"",
    },
    Case {
        what: "empty name",
        setup: |_| {},
        args: &["approve", ""],
        says: "snapshot name \"\" is empty; use letters, digits, '-', '_' and '.', with '/' between folders, e.g. \"checkout-page\" or \"cards/lamp\"",
    },
    Case {
        what: "name too long",
        setup: |_| {},
        args: &[
            "approve",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ],
        says: "snapshot name \"…\" is 244 bytes, above the limit of 200; use letters, digits, '-', '_' and '.', with '/' between folders, e.g. \"checkout-page\" or \"cards/lamp\"",
    },
    Case {
        what: "truncated capture, approve",
        setup: |root| truncate(root, CAPTURE),
        args: &["approve", "home"],
        says: "{root}/.sightline/temp/home/chromium.slcap: truncated: the header declares 351 bytes but the file has 175; delete it and capture again",
    },
    Case {
        what: "capture that is not an artifact",
        setup: |root| write(root, CAPTURE, b"PK\x03\x04 a zip file, not a capture"),
        args: &["approve", "home"],
        says: "{root}/.sightline/temp/home/chromium.slcap: truncated: 30 bytes, the header alone needs 64; delete it and capture again",
    },
    Case {
        what: "config key of the wrong type",
        setup: |root| write(root, CONFIG, br#"{"threshold": "high"}"#),
        args: &["compare"],
        says: "{root}/.sightline/config.json: \"threshold\" has the wrong type (…)",
    },
    Case {
        what: "unknown config key",
        setup: |root| write(root, CONFIG, br#"{"treshold": 0.2}"#),
        args: &["compare"],
        says: "{root}/.sightline/config.json: unknown key \"treshold\" (did you mean \"threshold\"?); known keys are reportDir, threshold, antialiasing, maxDiffPixels, maxDiffPixelRatio, noiseAutoPass, strictRendering, fullPage, mask, ignoreSelectors, ignoreRegions, maskColor, mcpApprovalPrompt, styleProperties, writeMissingBaselines, shardMode, animations, caret, scale, omitBackground, stylePath, waitForImages, waitForAriaBusy, waitForRequests, ignoreRequests, hideScrollbars, clearHover, baselinePath",
    },
    Case {
        what: "config that is not JSON",
        setup: |root| write(root, CONFIG, b"threshold = 0.2"),
        args: &["compare"],
        says: "{root}/.sightline/config.json: not valid JSON (…); fix it or delete it to use the defaults",
    },
    Case {
        what: "results.json cut short",
        setup: |root| truncate(root, RESULTS),
        args: &["report"],
        says: "{root}/visual-report/results.json: not valid JSON (…); run the tests again to rewrite it",
    },
    Case {
        what: "results.json of the wrong shape",
        setup: |root| write(root, RESULTS, br#"{"snapshots": "all fine"}"#),
        args: &["explain", "home"],
        says: "{root}/visual-report/results.json: format version none, this sightline reads 1; run the tests again to rewrite it",
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
        let expected = format!("sightline: {}\n", case.says.replace("{root}", &root.display().to_string()));
        if !matches(&expected, &String::from_utf8_lossy(&out.stderr)) || !out.stdout.is_empty() {
            failures.push(format!("{}: the output is not {expected:?}: {said:?}", case.what));
        }
        if files(&root) != before {
            failures.push(format!("{}: files under the root changed", case.what));
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
    assert!(failures.is_empty(), "{} of {} rows failed:\n{}", failures.len(), CASES.len(), failures.join("\n"));
}
