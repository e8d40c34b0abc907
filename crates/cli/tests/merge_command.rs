//! `sightline merge` on the folders compare-mode shards upload: each shard captures its slice
//! through the engine and ends its run as the reporter does (its own results.json, passed
//! captures dropped, `shard.json`); the merge must give the unsharded run's results.
//! (tests/shards.test.mjs runs the same with real Playwright shards.)

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};
use sightline_core::batch::finish_shard;
use sightline_core::capture::UpdateMode;
use sightline_core::config::ShardMode;
use sightline_core::store::ProjectStore;

use crate::support::{capture, card_page, copy_dir, files, text, write_run_results};

fn sightline(root: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sightline")).arg("--root").arg(root).args(args).output().unwrap()
}

const BLUE: [u8; 4] = [0, 0, 200, 255];

fn temp_root(tag: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("sightline-merge-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    root
}

/// A checkout with the committed baselines: `same`, `card` and `gone`, all blue.
fn checkout(tag: &str) -> PathBuf {
    let root = temp_root(tag);
    let store = ProjectStore::new(&root);
    for name in ["same", "card", "gone"] {
        capture(&store, name, &card_page(BLUE), UpdateMode::All);
    }
    std::fs::remove_dir_all(root.join(".sightline/temp")).unwrap();
    root
}

/// This run's captures: `same` unchanged, `card` recoloured, `fresh` new (`gone` not run).
fn run_captures(store: &ProjectStore, names: &[&str]) {
    for &name in names {
        let png = match name {
            "same" => card_page(BLUE),
            "card" => card_page([200, 0, 0, 255]),
            "fresh" => card_page([0, 150, 0, 255]),
            _ => unreachable!(),
        };
        capture(store, name, &png, UpdateMode::Default);
    }
}

/// Shard `current` of `total` running `names`, ended as the reporter ends a compare-mode shard.
fn shard(tag: &str, current: u32, total: u32, names: &[&str]) -> PathBuf {
    let root = checkout(tag);
    let store = ProjectStore::new(&root);
    run_captures(&store, names);
    write_run_results(&store, &root);
    // What the reporter does at the end of a comparing shard.
    let manifest = finish_shard(&store, current, total, ShardMode::Compare).unwrap();
    assert_eq!((manifest.current, manifest.total, manifest.captures), (current, total, names.len()));
    let temp = root.join(".sightline/temp");
    // Only the captures of snapshots that need a look travel to the merge job.
    for &name in names {
        let evidence: Value =
            serde_json::from_slice(&std::fs::read(temp.join(name).join("chromium.json")).unwrap()).unwrap();
        let kept = temp.join(name).join("chromium.slcap").exists();
        assert_eq!(kept, evidence["status"] != "passed", "{name}: {}", evidence["status"]);
    }
    let written: Value = serde_json::from_slice(&std::fs::read(temp.join("shard.json")).unwrap()).unwrap();
    assert_eq!(written, json!({"current": current, "total": total, "mode": "compare", "captures": names.len()}));
    temp
}

fn results(root: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(root.join("visual-report/results.json")).unwrap()).unwrap()
}

/// What a merge must reproduce of a run: everything but when it ran and from where.
fn comparable(mut results: Value) -> Value {
    let object = results.as_object_mut().unwrap();
    object.remove("createdAt");
    object.remove("run");
    results
}

#[test]
fn merge_of_two_compare_shards_equals_the_unsharded_run() {
    let unsharded = checkout("unsharded");
    let store = ProjectStore::new(&unsharded);
    run_captures(&store, &["same", "card", "fresh"]);
    write_run_results(&store, &unsharded);
    let expected = results(&unsharded);
    assert_eq!(
        expected["summary"],
        json!({"total": 3, "passed": 1, "changed": 1, "new": 1, "missing": 1, "autoPassed": 0, "written": 0})
    );

    let one = shard("shard-1", 1, 2, &["same", "card"]);
    let two = shard("shard-2", 2, 2, &["fresh"]);
    // The passed snapshot's capture is not uploaded; its evidence is.
    assert!(!one.join("same/chromium.slcap").exists() && one.join("same/chromium.json").exists());
    let merged = checkout("merged");
    let out = sightline(&merged, &["merge", one.to_str().unwrap(), two.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let verdict = |name: &str| {
        expected["snapshots"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()["verdict"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "3 snapshots from 2 shards — 1 passed, 1 changed, 1 new, 1 missing → visual-report/index.html\n  card (chromium) [changed]: {}\n  fresh (chromium) [new]: {}\n  gone (chromium) [missing]: Missing snapshot: a baseline is committed but this run captured none; no capture in a full run\nIf this is intended: npx sightline approve card fresh (or run the tests with -u)\n",
            verdict("card"),
            verdict("fresh")
        )
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "a complete set of shards says nothing more");
    let got = results(&merged);
    assert_eq!(comparable(got.clone()), comparable(expected));
    assert_eq!(got["run"]["filtered"], false);
    assert_eq!(got["run"]["shard"], Value::Null);
    assert!(merged.join("visual-report/index.html").is_file());
    // The merged temp folder holds the shards' evidence and captures, so approve works there.
    let approve = sightline(&merged, &["approve", "card"]);
    assert_eq!(
        text(&approve),
        "approved card (chromium): replaced .sightline/baselines/card/chromium.png\n",
        "{}",
        text(&approve)
    );
}

#[test]
fn merge_of_one_shard_of_two_reports_no_missing_baselines_and_says_why() {
    let one = shard("partial-1", 1, 2, &["same", "card"]);
    let merged = checkout("partial");
    let out = sightline(&merged, &["merge", one.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "sightline: not every shard is here (1/2): missing baselines are not reported\n"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .starts_with("2 snapshots from 1 shards — 1 passed, 1 changed, 0 new, 0 missing → ")
    );
    let got = results(&merged);
    assert_eq!(got["run"]["filtered"], true);
    assert_eq!(got["missingBaselines"], json!([]));
    assert_eq!(
        got["summary"],
        json!({"total": 2, "passed": 1, "changed": 1, "new": 0, "missing": 0, "autoPassed": 0, "written": 0})
    );
}

#[test]
fn merge_refuses_capture_only_shards_missing_manifests_and_overlaps_before_copying() {
    let merged = checkout("refuse");
    let before = files(&merged);
    let one = shard("refuse-1", 1, 2, &["same", "card"]);
    let rejected = |folders: &[&Path]| {
        let mut args = vec!["merge"];
        args.extend(folders.iter().map(|f| f.to_str().unwrap()));
        let out = sightline(&merged, &args);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert_eq!(files(&merged), before, "nothing was copied or written");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };

    // A folder without shard.json: not what a shard uploads.
    let bare = temp_root("refuse-bare");
    copy_dir(&one, &bare);
    std::fs::remove_file(bare.join("shard.json")).unwrap();
    assert_eq!(
        rejected(&[&one, &bare]),
        format!(
            "sightline: {}: no shard manifest here; pass the folders each shard uploaded (its .sightline/temp)\n",
            bare.join("shard.json").display()
        )
    );

    // A capture-only shard compared nothing: it belongs to `compare --captures`.
    let capture_only = temp_root("refuse-capture-only");
    copy_dir(&one, &capture_only);
    std::fs::write(capture_only.join("shard.json"), br#"{"current":2,"total":2,"mode":"capture-only","captures":1}"#)
        .unwrap();
    assert_eq!(
        rejected(&[&one, &capture_only]),
        format!(
            "sightline: {}: shard 2/2 only captured; compare them with `sightline compare --captures <shard folders…>`\n",
            capture_only.display()
        )
    );

    // The same test in two shards: a broken shard split.
    let twice = shard("refuse-2", 2, 2, &["card"]);
    assert_eq!(
        rejected(&[&one, &twice]),
        format!(
            "sightline: snapshot \"card\" (chromium) is in both {} and {}; two shards ran the same test\n",
            one.display(),
            twice.display()
        )
    );
}

/// An upload cut short (issue 34): one shard's evidence file and another's capture of a changed
/// snapshot are truncated. The merge still writes results.json and the report, gives those two
/// snapshots the status `error` naming the file, keeps the rest as the shards compared them, and
/// exits 2.
#[test]
fn merge_with_a_truncated_upload_gives_those_snapshots_an_error_and_merges_the_rest() {
    let one = shard("cut-1", 1, 2, &["same", "card"]);
    let two = shard("cut-2", 2, 2, &["fresh"]);
    for file in [one.join("card/chromium.slcap"), two.join("fresh/chromium.json")] {
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    }
    let merged = checkout("cut-merged");
    let out = sightline(&merged, &["merge", one.to_str().unwrap(), two.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let got = results(&merged);
    let summary = &got["summary"];
    assert_eq!(
        (summary["passed"].clone(), summary["error"].clone(), summary["missing"].clone()),
        (json!(1), json!(2), json!(1)),
        "{summary}"
    );
    let snapshot =
        |name: &str| got["snapshots"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap().clone();
    let (card, fresh) = (snapshot("card"), snapshot("fresh"));
    assert_eq!((card["status"].as_str(), card["damaged"]["side"].as_str()), (Some("error"), Some("capture")));
    assert_eq!(card["damaged"]["file"], ".sightline/temp/card/chromium.slcap");
    assert_eq!((fresh["status"].as_str(), fresh["damaged"]["side"].as_str()), (Some("error"), Some("evidence")));
    assert_eq!(fresh["damaged"]["file"], ".sightline/temp/fresh/chromium.json");
    assert_eq!(
        fresh["damaged"]["fix"],
        "run the tests again (in a sharded run, the shard that ran it) to write it anew"
    );
    assert!(fresh["damaged"]["problem"].as_str().unwrap().starts_with("not snapshot evidence ("), "{fresh}");
    assert_eq!(snapshot("same")["status"], "passed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("3 snapshots from 2 shards — 1 passed, 0 changed, 0 new, 1 missing, 2 errors → "),
        "{stdout}"
    );
    assert!(stdout.contains("  card (chromium) [error]: Cannot compare: the capture .sightline/temp/card/chromium.slcap is damaged (truncated"), "{stdout}");
    assert!(merged.join("visual-report/index.html").is_file());
    // The shard folders are `<root>/.sightline/temp` of their checkouts.
    for root in [one.join("../.."), two.join("../.."), merged] {
        std::fs::remove_dir_all(root).unwrap();
    }
}
