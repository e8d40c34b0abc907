//! `sightline approve / list / explain / report` on a project a run has left behind: real
//! captures, baselines and results.json made through the engine, then the built binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sightline_core::capture::UpdateMode;
use sightline_core::decode::read_image;
use sightline_core::health::{AssetKind, HealthReason};
use sightline_core::store::{CaptureData, ProjectStore};

use crate::support::{
    capture, capture_in, capture_unsettled, capture_with, card_page, copy_dir, files, text, write_run_results,
};

fn sightline(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sightline")).arg("--root").arg(root).args(args).output().expect("run sightline")
}

/// A project after two runs: `same` unchanged, `card` recoloured, `fresh` new, `gone` a
/// baseline nobody captured this time.
fn project(tag: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("sightline-review-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let store = ProjectStore::new(&root);
    for name in ["same", "card", "gone"] {
        capture(&store, name, &card_page([0, 0, 200, 255]), UpdateMode::All);
    }
    std::fs::remove_dir_all(root.join(".sightline/temp")).unwrap();
    capture(&store, "same", &card_page([0, 0, 200, 255]), UpdateMode::Default);
    capture(&store, "card", &card_page([200, 0, 0, 255]), UpdateMode::Default);
    capture(&store, "fresh", &card_page([0, 150, 0, 255]), UpdateMode::Default);
    write_run_results(&store, &root);
    root
}

/// The lines under a summary: one per snapshot that needs a person, the passed one left out.
const ATTENTION: &str = "  card (chromium) [changed]: 600 pixels differ (19.531 %, concentrated); no DOM data to rule out render noise; look at the images\n  fresh (chromium) [new]: New snapshot: no baseline yet; a human reviews the capture and approves it\n  gone (chromium) [missing]: Missing snapshot: a baseline is committed but this run captured none; no capture in a full run\nIf this is intended: npx sightline approve card fresh (or run the tests with -u)\n";

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
    let results = root.join("visual-report/results.json");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "3 snapshots — 1 passed, 1 changed, 1 new, 1 missing, 0 auto-passed\n{ATTENTION}results: {}\nreport: {}\n",
            results.display(),
            root.join("visual-report/index.html").display()
        )
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn review_report_counts_the_baselines_an_update_run_wrote() {
    // An update run that wrote every baseline: its counts add up to the total only with them.
    let root = std::env::temp_dir().join(format!("sightline-review-written-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let store = ProjectStore::new(&root);
    for name in ["card", "fresh"] {
        capture(&store, name, &card_page([0, 0, 200, 255]), UpdateMode::All);
    }
    write_run_results(&store, &root);
    let out = sightline(&root, &["report"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let first = String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or_default().to_string();
    // The same counts as the reporter's line and the HTML report's pills (Summary::counts).
    assert_eq!(first, "2 snapshots — 0 passed, 0 changed, 0 new, 2 written, 0 missing, 0 auto-passed");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn review_explain_prints_the_evidence_as_text_and_json() {
    let root = project("explain");
    let out = sightline(&root, &["explain", "card"]);
    assert_eq!(out.status.code(), Some(1));
    // The verdict, the region (no element: the capture has no DOM data), how a person approves it,
    // the files.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "card (chromium) [changed]: 600 pixels differ (19.531 %, concentrated); no DOM data to rule out render noise; look at the images\n  change 30×20 at 10,10: 600 px\n  If this is intended: npx sightline approve card (or run the tests with -u)\n  baseline: visual-report/images/card/chromium-baseline.png\n  current: visual-report/images/card/chromium-current.png\n  diff: visual-report/images/card/chromium-diff.png\n"
    );
    let out = sightline(&root, &["explain", "card", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    // The JSON is the run's own record of the snapshot, in a list (one per project).
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("visual-report/results.json")).unwrap()).unwrap();
    let card = results["snapshots"].as_array().unwrap().iter().find(|s| s["name"] == "card").unwrap();
    assert_eq!(v, serde_json::Value::Array(vec![card.clone()]));
    assert_eq!(v[0]["layers"]["pixel"]["diffPixels"], 600);
    let out = sightline(&root, &["explain", "same"]);
    assert_eq!(out.status.code(), Some(0), "a passed snapshot explains with exit 0");
    let out = sightline(&root, &["explain", "nosuch"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "sightline: {}: no snapshot named \"nosuch\"; `sightline list` shows the baselines\n",
            root.join("visual-report/results.json").display()
        )
    );
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
    // --all approves what the run calls changed or new: card again (its capture is still there)
    // and fresh, in results.json order.
    assert_eq!(
        text(&out),
        "approved card (chromium): replaced .sightline/baselines/card/chromium.png\napproved fresh (chromium): created .sightline/baselines/fresh/chromium.png\n"
    );
    assert!(
        read_image(&root.join(".sightline/baselines/fresh/chromium.png")).unwrap()
            == read_image(&root.join("visual-report/images/fresh/chromium-current.png")).unwrap()
    );
}

#[test]
fn review_approve_all_approves_a_name_only_in_the_projects_where_it_changed() {
    let root = std::env::temp_dir().join(format!("sightline-review-projects-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let store = ProjectStore::new(&root);
    let data = || CaptureData { device_scale_factor: 1.0, ..Default::default() };
    let blue = card_page([0, 0, 200, 255]);
    for project in ["chromium", "firefox"] {
        capture_in(&store, "card", project, &blue, UpdateMode::All, data());
    }
    std::fs::remove_dir_all(root.join(".sightline/temp")).unwrap();
    // `card` changed in chromium and passed in firefox.
    capture_in(&store, "card", "chromium", &card_page([200, 0, 0, 255]), UpdateMode::Default, data());
    capture_in(&store, "card", "firefox", &blue, UpdateMode::Default, data());
    write_run_results(&store, &root);
    let firefox = root.join(".sightline/baselines/card/firefox.png");
    let stamp = std::fs::metadata(&firefox).unwrap().modified().unwrap();

    // As results.json lists it (Results::to_approve): firefox's passed capture is nobody's decision.
    let out = sightline(&root, &["approve", "--all"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(text(&out), "approved card (chromium): replaced .sightline/baselines/card/chromium.png\n");
    assert_eq!(std::fs::metadata(&firefox).unwrap().modified().unwrap(), stamp, "firefox's baseline is not rewritten");
    // `--project` narrows --all to one project: firefox has nothing to approve.
    let out = sightline(&root, &["approve", "--all", "--project", "firefox"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(text(&out), "sightline: nothing to approve: the last run has no changed or new snapshots\n");
    let _ = std::fs::remove_dir_all(&root);
}

/// A project whose `same` is captured again by `recapture` as a capture approval must hold:
/// the hint leaves it out, `approve --all` and `approve same` hold it with `reason` and write
/// nothing, and only `--include-unhealthy` approves it.
fn assert_approve_holds(tag: &str, recapture: impl FnOnce(&ProjectStore), reason: &str) {
    let root = project(tag);
    let store = ProjectStore::new(&root);
    recapture(&store);
    write_run_results(&store, &root);
    let baseline = root.join(".sightline/baselines/same/chromium.png");
    let before = std::fs::read(&baseline).unwrap();

    // A person sees the command only for what may be approved: not for the held capture.
    let report = text(&sightline(&root, &["report"]));
    assert!(
        report.contains("If this is intended: npx sightline approve card fresh (or run the tests with -u)\n"),
        "{report}"
    );

    let held = format!(
        "held same (chromium): {reason}; not approved, its baseline is unchanged (--include-unhealthy approves it anyway)\n"
    );
    let out = sightline(&root, &["approve", "--all"]);
    assert_eq!(out.status.code(), Some(1), "held captures leave the run unapproved: {}", text(&out));
    assert_eq!(
        text(&out),
        format!(
            "approved card (chromium): replaced .sightline/baselines/card/chromium.png\n\
             approved fresh (chromium): created .sightline/baselines/fresh/chromium.png\n{held}"
        )
    );
    let out = sightline(&root, &["approve", "same"]);
    assert_eq!((out.status.code(), text(&out)), (Some(1), held), "named, it is held too");
    assert_eq!(std::fs::read(&baseline).unwrap(), before, "the held capture's baseline is untouched");

    let out = sightline(&root, &["approve", "same", "--include-unhealthy"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(text(&out), "approved same (chromium): replaced .sightline/baselines/same/chromium.png\n");
    assert!(
        read_image(&baseline).unwrap()
            == read_image(&root.join("visual-report/images/same/chromium-current.png")).unwrap()
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn review_approve_holds_an_unhealthy_capture_unless_asked_for_it() {
    let broken_font = HealthReason::failed(AssetKind::Font, "http://127.0.0.1/inter.woff2", "HTTP 404");
    let data = CaptureData { device_scale_factor: 1.0, failures: vec![broken_font], ..Default::default() };
    assert_approve_holds(
        "held",
        |store| capture_with(store, "same", &card_page([90, 0, 90, 255]), UpdateMode::Default, data),
        "Unhealthy capture: font http://127.0.0.1/inter.woff2: HTTP 404; fix the page's assets and never approve this capture as a baseline",
    );
}

#[test]
fn review_approve_holds_a_capture_whose_page_never_settled_unless_asked_for_it() {
    // The card kept changing colour: its last two shots still differed when the time was up.
    assert_approve_holds(
        "unsettled",
        |store| capture_unsettled(store, "same", &card_page([90, 0, 90, 255]), &card_page([0, 90, 90, 255])),
        "Unstable page: two consecutive screenshots never matched within 1500 ms; the area 30×20 at 10,10 kept changing; hide it with mask or wait for it to settle — never approve this capture as a baseline",
    );
}

#[test]
fn review_approve_refuses_bad_names_and_missing_snapshots_without_writing() {
    let root = project("refuse");
    // Every byte under the root (.sightline and visual-report), not only the names `list` shows:
    // a refused approve that rewrote a baseline with the same name would pass a listing check.
    let before = files(&root);
    assert!(before.contains_key(Path::new(".sightline/baselines/card/chromium.png")));
    assert!(before.contains_key(Path::new("visual-report/results.json")));
    for (args, message) in [
        (
            vec!["approve", "../etc"],
            "snapshot name \"../etc\" contains '..'; use letters, digits, '-', '_' and '.', with '/' between folders, e.g. \"checkout-page\" or \"cards/lamp\"",
        ),
        // `card` alone could be approved: the bad name after it stops both before any write.
        (
            vec!["approve", "card", "a//b"],
            "snapshot name \"a//b\" has an empty folder name; use letters, digits, '-', '_' and '.', with '/' between folders, e.g. \"checkout-page\" or \"cards/lamp\"",
        ),
        (
            vec!["approve", "gone"],
            "\"gone\" has a baseline but no capture in the last run (a missing snapshot): nothing to approve. To remove the snapshot on purpose, delete .sightline/baselines/gone/chromium.png in the same change",
        ),
        (vec!["approve", "nothing"], "no capture of \"nothing\" in .sightline/temp; run the tests first"),
        (vec!["approve"], "name the snapshots to approve (sightline approve home checkout), or pass --all"),
    ] {
        let out = sightline(&root, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), format!("sightline: {message}\n"), "{args:?}");
    }
    assert_eq!(files(&root), before, "not one file under the root was added, removed or rewritten");
}

#[test]
fn review_commands_explain_a_missing_or_damaged_results_file() {
    let root = std::env::temp_dir().join(format!("sightline-review-empty-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("visual-report")).unwrap();
    let out = sightline(&root, &["report"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out),
        format!(
            "sightline: {}: no results yet; run the Playwright tests with the sightline reporter first\n",
            root.join("visual-report/results.json").display()
        )
    );
    std::fs::write(root.join("visual-report/results.json"), "{not json").unwrap();
    let out = sightline(&root, &["explain", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out),
        format!(
            "sightline: {}: not valid JSON (key must be a string at line 1 column 2); run the tests again to rewrite it\n",
            root.join("visual-report/results.json").display()
        )
    );
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
    // The summary, then one line per snapshot that needs a look; the passed one is not listed.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("3 snapshots — 1 passed, 1 changed, 1 new, 1 missing → visual-report/index.html\n{ATTENTION}")
    );
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
    assert_eq!(String::from_utf8_lossy(&out.stderr), "sightline: merged 3 captures from 2 folders\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("3 snapshots — 1 passed, 1 changed, 1 new, 1 missing → visual-report/index.html\n{ATTENTION}")
    );
    assert_eq!(summary(&root), expected);

    // the same snapshot in two shards is refused before anything is copied
    copy_dir(&a.join("card"), &b.join("card"));
    std::fs::remove_dir_all(&temp).unwrap();
    let out = sightline(&root, &["compare", "--captures", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "sightline: snapshot \"card\" (chromium) was captured in both {} and {}; two shards ran the same test\n",
            a.display(),
            b.display()
        )
    );
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
    // The checksums themselves depend on the bytes; the rest is the whole message.
    let prefix = format!("sightline: {}: checksum mismatch (stored ", capture.display());
    assert!(t.starts_with(&prefix) && t.ends_with("); delete it and capture again\n"), "{t}");
    assert_eq!(std::fs::read(&baseline).unwrap(), before, "the old baseline is untouched");
}

#[test]
fn review_approve_never_writes_through_a_link_out_of_the_project() {
    let root = project("link-out");
    // A fork committed `.sightline/baselines/card` as a link to a folder outside the project.
    let outside = root.with_extension("outside");
    let _ = std::fs::remove_dir_all(&outside);
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("chromium.png"), b"not yours").unwrap();
    let card = root.join(".sightline/baselines/card");
    std::fs::remove_dir_all(&card).unwrap();
    std::os::unix::fs::symlink(&outside, &card).unwrap();
    let out = sightline(&root, &["approve", "card"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(
        text(&out),
        format!(
            "sightline: {} is a symbolic link to {}, outside the project {}; nothing was written. Replace the link with a folder or file of the project (e.g. `git checkout -- .sightline/baselines/card`)\n",
            card.display(),
            outside.display(),
            root.display()
        )
    );
    let names: Vec<_> = std::fs::read_dir(&outside).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["chromium.png"], "nothing was added outside");
    assert_eq!(std::fs::read(outside.join("chromium.png")).unwrap(), b"not yours");
    let _ = std::fs::remove_dir_all(&outside);
}

/// A folder holding only an `xdg-open` that writes its arguments into the FIFO `record`, and the
/// FIFO: reading it waits until the opener has run, with no polling and no delay.
fn stub_opener(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let record = dir.join("record");
    let made = Command::new("mkfifo").arg(&record).status().unwrap();
    assert!(made.success());
    let opener = dir.join("xdg-open");
    std::fs::write(&opener, format!("#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\n", record.display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    record
}

/// Starts reading what the stub opener will be given. The reader must be waiting before the
/// command runs: the opener inherits the command's output pipes and blocks opening the FIFO
/// until a reader is there, so `output()` would otherwise never see the pipes close.
fn read_opener_record(record: PathBuf) -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(std::fs::read_to_string(record).unwrap()));
    rx
}

/// What the stub opener was given, or a failure after a minute (a safety net only: the read
/// returns as soon as the opener writes).
fn opened_with(reader: std::sync::mpsc::Receiver<String>) -> String {
    reader.recv_timeout(std::time::Duration::from_secs(60)).expect("the opener was never started")
}

#[test]
fn review_report_open_hands_the_html_report_to_the_opener() {
    let root = project("open");
    let stub = root.join("stub-bin");
    let reader = read_opener_record(stub_opener(&stub));
    let out = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .arg("--root")
        .arg(&root)
        .args(["report", "--open"])
        .env("PATH", &stub)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "the exit code still says there are changes: {}", text(&out));
    let html = root.join("visual-report/index.html");
    assert_eq!(opened_with(reader), format!("{}\n", html.display()), "one argument: the report's path");

    // No opener on PATH: the summary is printed, then an error that names the opener and the file.
    let empty = root.join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .arg("--root")
        .arg(&root)
        .args(["report", "--open"])
        .env("PATH", &empty)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).ends_with(&format!("report: {}\n", html.display())));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("sightline: starting xdg-open to open {}: No such file or directory (os error 2)\n", html.display())
    );

    // No HTML report next to results.json: --open says so instead of opening nothing.
    std::fs::remove_file(&html).unwrap();
    let out = sightline(&root, &["report", "--open"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("sightline: {}: no HTML report next to results.json\n", html.display())
    );
}
