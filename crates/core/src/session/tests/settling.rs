//! Settling: a page is shot until two shots agree, and a round is compared once, on the shot it
//! settled on.

use serde_json::{Value, json};

use super::*;

/// A page that never settles: its shots alternate between two greys.
fn never_settling() -> impl Fn(usize) -> Vec<u8> {
    let (a, b) = (shot(10), shot(20));
    move |n| if n.is_multiple_of(2) { a.clone() } else { b.clone() }
}

#[test]
fn session_a_new_snapshot_is_shot_until_stable_and_fails_at_the_end_of_the_test() {
    let root = Root::new("new");
    let (asked, outcome) = drive(request(&root, json!({}), UpdateMode::Default), |_| page(), |_| shot(200));
    // The provisional comparison says new: the page is shot once more, and the shots agree.
    assert_eq!(asked, ["walk", "shoot after 0", "shoot after 0"]);
    assert!(outcome.pass, "the test runs on");
    assert_eq!(outcome.status, Some(Status::New));
    assert_eq!(outcome.fail_at_end.as_deref(), Some(outcome.message.as_str()));
    assert!(outcome.message.starts_with("toMatchVisual(\"home\"): New snapshot"), "{}", outcome.message);
}

#[test]
fn session_a_page_that_never_settles_is_shot_with_backoff_until_the_timeout() {
    let root = Root::new("unsettled");
    approve(&root);
    let alternate = never_settling();
    let (asked, outcome) = drive(request(&root, json!({ "timeout": 1500 }), UpdateMode::All), |_| page(), alternate);
    assert_eq!(asked[..5], ["walk", "shoot after 0", "shoot after 0", "shoot after 100", "shoot after 250"]);
    assert!(!outcome.pass, "no baseline is written from an unstable page, in any update mode");
    assert!(
        outcome
            .message
            .starts_with("toMatchVisual(\"home\"): Unstable page: two consecutive screenshots never matched within "),
        "{}",
        outcome.message
    );
    assert!(outcome.message.contains("kept changing; hide it with mask"), "{}", outcome.message);
    // As toHaveScreenshot: the shot before the last is attached, to show what kept changing.
    let previous = outcome.attachments.iter().find(|a| a.name == "home-previous.png").expect("home-previous.png");
    let last = outcome.attachments.iter().find(|a| a.name == "home-actual.png").expect("home-actual.png");
    assert!(
        matches!((&previous.body, &last.body), (AttachmentBody::OutputFile(p), AttachmentBody::OutputFile(l)) if p != l)
    );
}

#[test]
fn session_sightline_compare_keeps_an_unsettled_capture_unstable() {
    let root = Root::new("unsettled-compare");
    approve(&root);
    let alternate = never_settling();
    let (_, outcome) = drive(request(&root, json!({ "timeout": 400 }), UpdateMode::None), |_| page(), alternate);
    let matcher: crate::snapshot::SnapshotEvidence =
        serde_json::from_slice(&std::fs::read(root.0.join(".sightline/temp/home/chromium.json")).unwrap()).unwrap();
    assert!(!outcome.pass);
    assert_eq!(matcher.verdict_kind, crate::verdict::VerdictKind::Unstable);
    let again = compare_again(&root);
    assert_eq!(
        (again.verdict_kind, again.status, &again.verdict),
        (matcher.verdict_kind, matcher.status, &matcher.verdict)
    );
    assert!(again.held_from_approval(), "an unstable capture is still held from approval");
}

#[test]
fn session_a_masked_element_that_moves_on_every_walk_is_unstable_after_three_walks() {
    let root = Root::new("mask-moves");
    approve(&root);
    // #card-a is masked; every walk after a shot finds it 10 px lower than the walk before.
    let walk = |n: usize| {
        let mut record = page();
        record["elements"][4]["masked"] = json!(true);
        record["elements"][4]["box"][1] = json!(80 + 10 * n);
        record
    };
    let options = json!({ "mask": ["#card-a"] });
    let (asked, outcome) = drive(request(&root, options, UpdateMode::None), walk, |_| shot(200));
    let round = ["shoot after 0", "boxes", "walk"];
    let expected: Vec<&str> = std::iter::once("walk").chain(round.iter().cycle().take(9).copied()).collect();
    assert_eq!(asked, expected);
    assert!(!outcome.pass);
    assert!(outcome.message.contains("Unstable page"), "{}", outcome.message);
}

/// [`shot`] with a 10 × 10 block of `clock` at 100,150: inside #card-a (20,80 240 × 200).
fn shot_with_clock(grey: u8, clock: u8) -> Vec<u8> {
    let mut image = RgbaImage::filled(800, 600, [grey, grey, grey, 255]).unwrap();
    let bytes = image.as_bytes_mut();
    for y in 150..160 {
        for x in 100..110 {
            bytes[(y * 800 + x) * 4..][..3].fill(clock);
        }
    }
    encode_png(&image, PngCompression::Fastest).unwrap()
}

#[test]
fn session_shots_that_differ_only_under_the_mask_agree_with_the_shot_before_them() {
    let root = Root::new("mask-clock");
    approve(&root);
    let walk = |_| {
        let mut record = page();
        record["elements"][4]["masked"] = json!(true);
        record
    };
    // The page changes once outside the mask (the second shot), then only its masked clock ticks:
    // the third shot agrees with the second, not with the first.
    let shots = [shot_with_clock(10, 0), shot_with_clock(20, 0), shot_with_clock(20, 255)];
    let (asked, outcome) = drive(request(&root, json!({ "mask": ["#card-a"] }), UpdateMode::None), walk, |n| {
        shots[(n - 1).min(2)].clone()
    });
    assert_eq!(asked, ["walk", "shoot after 0", "shoot after 0", "shoot after 100", "boxes"]);
    assert_eq!(outcome.status, Some(Status::Changed));
    assert!(!outcome.message.contains("Unstable page"), "{}", outcome.message);
}

/// Set in the child process of [`session_a_failing_page_is_compared_once_in_either_round`]: the
/// count of comparisons is process-wide, so it is taken where no other test compares.
const COUNT_CHILD: &str = "SIGHTLINE_SESSION_COUNT_CHILD";

#[test]
fn session_a_failing_page_is_compared_once_in_either_round() {
    if std::env::var_os(COUNT_CHILD).is_some() {
        let compared = |options: Value| {
            let root = Root::new(&format!("compared-once-{}", options.as_object().map_or(0, |o| o.len())));
            approve(&root);
            let before = crate::compare::comparisons_made();
            let (asked, outcome) = drive(request(&root, options, UpdateMode::None), |_| page(), |_| shot(100));
            assert!(!outcome.pass, "{}", outcome.message);
            println!("compared: {} after {}", crate::compare::comparisons_made() - before, asked.join(", "));
        };
        // Shot first, its key says it differs: compared beside the second shot, which agrees.
        compared(json!({}));
        // Walked first (a mask): compared, then shot again until two shots agree.
        compared(json!({ "mask": ["#nothing"] }));
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "session::tests::settling::session_a_failing_page_is_compared_once_in_either_round",
            "--exact",
            "--nocapture",
        ])
        .args(["--test-threads=1"])
        .env(COUNT_CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let counts: Vec<&str> = stdout.lines().filter_map(|l| l.split_once("compared: ").map(|(_, c)| c)).collect();
    // The second shot has the first's bytes: the first shot's comparison stands for it.
    assert_eq!(
        counts,
        ["1 after shoot after 0, walk, shoot after 0", "1 after walk, shoot after 0, shoot after 0, boxes"],
        "{stdout}"
    );
}

#[test]
fn session_a_page_that_settles_after_a_change_is_compared_as_it_settled() {
    let root = Root::new("settles-later");
    approve(&root);
    // The first shot, then another twice: the round settles on the third shot, whose pixels the
    // stored capture holds (the first shot's comparison was of other pixels).
    let shoot = |n: usize| if n == 1 { shot(100) } else { shot(150) };
    let (asked, outcome) = drive(request(&root, json!({}), UpdateMode::None), |_| page(), shoot);
    assert_eq!(asked, ["shoot after 0", "walk", "shoot after 0", "shoot after 100"]);
    assert!(!outcome.pass, "{}", outcome.message);
    let stored = ProjectStore::new(&root.0).read_capture("home", "chromium").unwrap();
    assert_eq!(&stored.image.as_bytes()[..4], &[150, 150, 150, 255]);
}
