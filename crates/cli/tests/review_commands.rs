//! `sightline approve / list / explain / report` on a project a run has left behind: real
//! captures, baselines and results.json made through the engine, then the built binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sightline_core::RgbaImage;
use sightline_core::capture::UpdateMode;
use sightline_core::decode::{encode_png, read_image};
use sightline_core::store::ProjectStore;

use crate::support::{capture, copy_dir, text, write_run_results};

fn sightline(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sightline")).arg("--root").arg(root).args(args).output().expect("run sightline")
}

fn page(color: [u8; 4]) -> Vec<u8> {
    let mut img = RgbaImage::filled(64, 48, [255, 255, 255, 255]).unwrap();
    for y in 10..30 {
        for x in 10..40 {
            let i = (y * 64 + x) * 4;
            img.as_bytes_mut()[i..i + 4].copy_from_slice(&color);
        }
    }
    encode_png(&img, true).unwrap()
}

/// A project after two runs: `same` unchanged, `card` recoloured, `fresh` new, `gone` a
/// baseline nobody captured this time.
fn project(tag: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("sightline-review-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let store = ProjectStore::new(&root);
    for name in ["same", "card", "gone"] {
        capture(&store, name, &page([0, 0, 200, 255]), UpdateMode::All);
    }
    std::fs::remove_dir_all(root.join(".sightline/temp")).unwrap();
    capture(&store, "same", &page([0, 0, 200, 255]), UpdateMode::Default);
    capture(&store, "card", &page([200, 0, 0, 255]), UpdateMode::Default);
    capture(&store, "fresh", &page([0, 150, 0, 255]), UpdateMode::Default);
    write_run_results(&store, &root);
    root
}

#[test]
fn review_list_shows_every_baseline() {
    let root = project("list");
    let out = sightline(&root, &["list"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "card\tchromium\ngone\tchromium\nsame\tchromium\n");
}

#[test]
fn review_report_summarises_the_run_and_exits_1_on_changes() {
    let root = project("report");
    let out = sightline(&root, &["report"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = text(&out);
    assert!(t.starts_with("3 snapshots: 1 passed, 1 changed, 1 new, 1 missing, 0 auto-passed"), "{t}");
    assert!(t.contains("card (chromium) [changed]"), "{t}");
    assert!(t.contains("gone (chromium) [missing]"), "{t}");
}

#[test]
fn review_explain_prints_the_evidence_as_text_and_json() {
    let root = project("explain");
    let out = sightline(&root, &["explain", "card"]);
    assert_eq!(out.status.code(), Some(1));
    let t = text(&out);
    assert!(t.starts_with("card (chromium) [changed]: 600 pixels differ"), "{t}");
    assert!(t.contains("change 30×20 at 10,10: 600 px"), "{t}");
    let out = sightline(&root, &["explain", "card", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["layers"]["pixel"]["diffPixels"], 600);
    let out = sightline(&root, &["explain", "nosuch"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("no snapshot named \"nosuch\""));
}

#[test]
fn review_approve_promotes_the_capture_and_says_what_it_did() {
    let root = project("approve");
    let baseline = root.join(".sightline/baselines/card/chromium.png");
    let before = read_image(&baseline).unwrap();
    let out = sightline(&root, &["approve", "card"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(text(&out), "approved card (chromium): replaced .sightline/baselines/card/chromium.png\n");
    let after = read_image(&baseline).unwrap();
    assert!(before != after, "the baseline now holds the recoloured card");
    let current = read_image(&root.join("visual-report/images/card/chromium-current.png")).unwrap();
    assert!(after == current);

    let out = sightline(&root, &["approve", "--all"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("approved fresh (chromium): created .sightline/baselines/fresh/chromium.png"));
}

#[test]
fn review_approve_refuses_bad_names_and_missing_snapshots_without_writing() {
    let root = project("refuse");
    let listing = |root: &Path| sightline(root, &["list"]).stdout;
    let before = listing(&root);
    for (args, needle) in [
        (vec!["approve", "../etc"], "contains '..'"),
        (vec!["approve", "card", "a/b"], "contains '/'"),
        (vec!["approve", "gone"], "delete .sightline/baselines/gone/ in the same change"),
        (vec!["approve", "nothing"], "no capture of \"nothing\""),
        (vec!["approve"], "name the snapshots to approve"),
    ] {
        let out = sightline(&root, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out).contains(needle), "{args:?}: {}", text(&out));
    }
    assert_eq!(listing(&root), before, "nothing changed on disk");
    assert!(!root.join(".sightline/baselines/fresh").exists());
}

#[test]
fn review_commands_explain_a_missing_or_damaged_results_file() {
    let root = std::env::temp_dir().join(format!("sightline-review-empty-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("visual-report")).unwrap();
    let out = sightline(&root, &["report"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("no results yet; run the Playwright tests with the sightline reporter first"));
    std::fs::write(root.join("visual-report/results.json"), "{not json").unwrap();
    let out = sightline(&root, &["explain", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("not valid JSON"), "{}", text(&out));
}

fn summary(root: &Path) -> serde_json::Value {
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("visual-report/results.json")).unwrap()).unwrap();
    results["summary"].clone()
}

#[test]
fn review_compare_recomputes_the_run_from_captures() {
    let root = project("compare");
    let expected = summary(&root);
    std::fs::remove_dir_all(root.join("visual-report")).unwrap();
    for name in ["same", "card", "fresh"] {
        std::fs::remove_file(root.join(format!(".sightline/temp/{name}/chromium.json"))).unwrap();
    }
    let out = sightline(&root, &["compare"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("3 snapshots: 1 passed, 1 changed, 1 new, 1 missing"), "{}", text(&out));
    // Under the summary, one line per snapshot that needs a look; the passed one is not listed.
    let printed = text(&out);
    let listed: Vec<&str> = printed.lines().filter(|l| l.starts_with("  ")).map(str::trim).collect();
    let names: Vec<&str> = listed.iter().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(names, ["card", "fresh", "gone"], "{listed:?}");
    assert!(listed[0].starts_with("card (chromium) [changed]: "), "{listed:?}");
    assert_eq!(summary(&root), expected);
    assert!(root.join("visual-report/index.html").is_file(), "the HTML report too");
}

#[test]
fn review_compare_merges_shard_folders() {
    let root = project("shards");
    let expected = summary(&root);
    let temp = root.join(".sightline/temp");
    let (a, b) = (root.join("shard-1"), root.join("shard-2"));
    copy_dir(&temp.join("same"), &a.join("same"));
    copy_dir(&temp.join("card"), &a.join("card"));
    copy_dir(&temp.join("fresh"), &b.join("fresh"));
    std::fs::remove_dir_all(&temp).unwrap();
    std::fs::remove_dir_all(root.join("visual-report")).unwrap();
    let out = sightline(&root, &["compare", "--captures", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("merged 3 captures from 2 folders"), "{}", text(&out));
    assert_eq!(summary(&root), expected);

    // the same snapshot in two shards is refused before anything is copied
    copy_dir(&a.join("card"), &b.join("card"));
    std::fs::remove_dir_all(&temp).unwrap();
    let out = sightline(&root, &["compare", "--captures", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("\"card\" (chromium) was captured in both"), "{}", text(&out));
    assert!(!temp.exists(), "nothing merged");
}

#[test]
fn review_approve_of_a_corrupt_capture_names_it_and_keeps_the_baseline() {
    let root = project("corrupt");
    let capture = root.join(".sightline/temp/card/chromium.slcap");
    let mut bytes = std::fs::read(&capture).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xFF;
    std::fs::write(&capture, &bytes).unwrap();
    let baseline = root.join(".sightline/baselines/card/chromium.png");
    let before = std::fs::read(&baseline).unwrap();
    let out = sightline(&root, &["approve", "card"]);
    assert_eq!(out.status.code(), Some(2));
    let t = text(&out);
    assert!(t.contains("chromium.slcap") && t.contains("delete it and capture again"), "{t}");
    assert_eq!(std::fs::read(&baseline).unwrap(), before, "the old baseline is untouched");
}
