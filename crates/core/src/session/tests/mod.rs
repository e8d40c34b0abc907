//! The capture session driven as the matcher drives it, with real PNGs and DOM records.

use serde_json::{Value, json};

use super::*;
use crate::decode::{PngCompression, encode_png};
use crate::dom::test_records::page;
use crate::environment::RenderedFont;
use crate::image::RgbaImage;
use crate::verdict::Status;

/// A project root of its own, removed when the test ends.
struct Root(PathBuf);

impl Root {
    fn new(test: &str) -> Self {
        let root = std::env::temp_dir().join(format!("sightline-session-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        Self(root)
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn request(root: &Root, options: Value, update: UpdateMode) -> CallRequest {
    CallRequest {
        root: root.0.clone(),
        name: Some(json!("home")),
        unnamed_index: 1,
        project: "chromium".into(),
        playwright: Value::Null,
        options,
        update,
        is_not: false,
        expect_timeout_ms: None,
        sharded: false,
        ignore_snapshots: false,
        test: CallTest {
            run_id: "run".into(),
            test_id: "t1".into(),
            file: "home.spec.ts".into(),
            title_path: vec!["home".into()],
            line: Some(3),
            retry: 0,
        },
    }
}

/// An 800 × 600 page (the size of [`page`]'s document) in one colour, as a PNG.
fn shot(grey: u8) -> Vec<u8> {
    encode_png(&RgbaImage::filled(800, 600, [grey, grey, grey, 255]).unwrap(), PngCompression::Fastest).unwrap()
}

/// Answers each step: a walk with `walk(n)` (n counts the walks), a shot with `shoot(n)`;
/// returns the steps asked for (`walk`, `boxes`, `shoot after N`) and the outcome.
fn drive(
    request: CallRequest,
    walk: impl Fn(usize) -> Value,
    shoot: impl Fn(usize) -> Vec<u8>,
) -> (Vec<String>, CallOutcome) {
    drive_in(None, request, walk, shoot)
}

/// [`drive`] in a browser that tells its environment (given with the first walk) and its fonts
/// (asked by a `fonts` step; DejaVu Sans drew `sans-serif`). The run's capture and evidence are
/// written once, when the call is decided: still as the call found them when fonts are asked.
fn drive_in(
    environment: Option<Environment>,
    request: CallRequest,
    walk: impl Fn(usize) -> Value,
    shoot: impl Fn(usize) -> Vec<u8>,
) -> (Vec<String>, CallOutcome) {
    let temp = request.root.join(".sightline/temp/home");
    let run_files = || ["chromium.slcap", "chromium.json"].map(|file| std::fs::read(temp.join(file)).ok());
    let found = run_files();
    let (mut session, mut step) = CaptureSession::open(request).unwrap();
    let (mut asked, mut walks, mut shots) = (Vec::new(), 0, 0);
    loop {
        step = match step {
            Step::Walk { style_properties } => {
                asked.push(if style_properties.is_empty() { "boxes" } else { "walk" }.to_string());
                walks += 1;
                session.walked(walk(walks).to_string(), if walks == 1 { environment.clone() } else { None }).unwrap()
            }
            Step::Rendered { max_families, max_assets, font_elements, trace } => {
                let elements = match font_elements {
                    Some(found) => found.iter().map(|f| format!("{} by {}", f.family, f.selector)).collect(),
                    None => vec!["found by the page".to_owned()],
                };
                let mut said =
                    format!("rendered with {max_families} fonts ({}), {max_assets} assets", elements.join("; "));
                if let Some(trace) = &trace {
                    said += &format!(", trace {}", trace.selectors.join(", "));
                }
                asked.push(said);
                assert!(run_files() == found, "the run's files are written once, with the fonts");
                let face = crate::environment::FontFace { name: "DejaVu Sans".into(), web: false };
                let fonts = vec![RenderedFont { family: "sans-serif".into(), faces: vec![face] }];
                // A browser that cannot say what restyled them: the outcome is as it was.
                session.rendered(fonts, Vec::new(), TraceAnswer::default()).unwrap()
            }
            Step::Shoot { after_ms } => {
                asked.push(format!("shoot after {after_ms}"));
                shots += 1;
                // The environment comes with the first answer: a walk, or a shot before any walk.
                let told = walks == 0 && shots == 1;
                session.shot(shoot(shots), Vec::new(), if told { environment.clone() } else { None }).unwrap()
            }
            Step::Trace(request) => {
                let selectors: Vec<&str> = request.selectors.iter().map(String::as_str).collect();
                asked.push(format!("trace {}", selectors.join(", ")));
                // A browser that cannot say what restyled them: the outcome is as it was.
                session.traced(None, None).unwrap()
            }
            Step::Done(outcome) => {
                session.close().unwrap();
                return (asked, *outcome);
            }
        }
    }
}

fn approve(root: &Root) {
    let (_, outcome) = drive(request(root, json!({}), UpdateMode::All), |_| page(), |_| shot(200));
    assert!(outcome.pass, "{}", outcome.message);
}

/// The evidence the call left in `.sightline/temp`.
fn evidence(root: &Root) -> crate::snapshot::SnapshotEvidence {
    serde_json::from_slice(&std::fs::read(root.0.join(".sightline/temp/home/chromium.json")).unwrap()).unwrap()
}

#[test]
fn session_an_unchanged_page_costs_one_shot_and_no_walk() {
    let root = Root::new("unchanged");
    approve(&root);
    let (asked, outcome) = drive(request(&root, json!({}), UpdateMode::None), |_| page(), |_| shot(200));
    assert_eq!(asked, ["shoot after 0"], "the browser's bytes are the baseline's shot: no walk, no decode");
    assert!(outcome.pass);
    assert_eq!(outcome.status, Some(Status::Passed));
    assert!(
        outcome.message.starts_with("toMatchVisual(\"home\"): expected a visual change, but "),
        "{}",
        outcome.message
    );
    assert!(outcome.attachments.is_empty(), "a passing call attaches nothing, as toHaveScreenshot");
    // What comparing would have found, without a DOM layer (the page was not walked).
    let found = evidence(&root);
    assert_eq!(found.verdict, "Passed: no pixel differs");
    let pixel = found.layers.pixel.expect("a pixel layer");
    assert_eq!((pixel.diff_pixels, pixel.total_pixels, pixel.matched), (0, 800 * 600, true));
    assert!(found.layers.dom.is_none());
    // The run keeps the browser's PNG as its capture, and it reads back as the page.
    let store = ProjectStore::new(&root.0);
    let artifact = std::fs::read(store.capture_path("home", "chromium").unwrap()).unwrap();
    assert_eq!(&artifact[crate::artifact::HEADER_LEN..][..shot(200).len()], &shot(200)[..]);
    let stored = store.read_capture("home", "chromium").unwrap();
    assert!(stored.image == RgbaImage::filled(800, 600, [200, 200, 200, 255]).unwrap());

    // The same pixels in other bytes: walked and compared, and still a pass. The key said they
    // differ, so the settling shot was taken beside the comparison, and left unused.
    let other_bytes =
        encode_png(&RgbaImage::filled(800, 600, [200, 200, 200, 255]).unwrap(), PngCompression::Smallest).unwrap();
    assert_ne!(other_bytes, shot(200));
    let (asked, outcome) = drive(request(&root, json!({}), UpdateMode::None), |_| page(), move |_| other_bytes.clone());
    assert_eq!(asked, ["shoot after 0", "walk", "shoot after 0"]);
    assert_eq!(outcome.status, Some(Status::Passed));
    assert!(evidence(&root).layers.dom.is_some(), "compared with its DOM");
}

#[test]
fn session_a_walked_record_that_does_not_parse_fails_the_call_at_the_settling_shot() {
    // Shot first, its bytes not the baseline's: the record is parsed beside the settling shot,
    // and its error is the call's when that shot comes back.
    let root = Root::new("bad-record");
    approve(&root);
    let (mut session, step) = CaptureSession::open(request(&root, json!({}), UpdateMode::None)).unwrap();
    assert!(matches!(step, Step::Shoot { .. }), "{step:?}");
    let step = session.shot(shot(100), Vec::new(), None).unwrap();
    assert!(matches!(step, Step::Walk { .. }), "{step:?}");
    let step = session.walked("{ not json".to_string(), None).unwrap();
    assert!(matches!(step, Step::Shoot { .. }), "{step:?}");
    let err = session.shot(shot(100), Vec::new(), None).unwrap_err().to_string();
    assert!(err.contains("DOM record"), "{err}");
}

#[test]
fn session_a_masked_page_is_walked_first_and_its_mask_is_part_of_the_key() {
    let root = Root::new("masked-key");
    let masked = json!({ "mask": ["#card-a"] });
    // The collector marks what the mask covers: #card-a.
    let walked = || {
        let mut record = page();
        record["elements"][4]["masked"] = json!(true);
        record
    };
    let (_, outcome) = drive(request(&root, masked.clone(), UpdateMode::All), |_| walked(), |_| shot(200));
    assert!(outcome.pass, "{}", outcome.message);
    let (asked, outcome) = drive(request(&root, masked, UpdateMode::None), |_| walked(), |_| shot(200));
    assert_eq!(asked, ["walk", "shoot after 0", "boxes"], "the mask needs its boxes before the shot");
    assert_eq!(outcome.status, Some(Status::Passed));
    assert!(evidence(&root).layers.dom.is_none(), "decided by the key");
    // Without the mask the stored pixels would differ: the key does too, and the page is compared
    // (and passes: the baseline's masked box is painted on both sides), its settling shot taken
    // beside the comparison and left unused.
    let (asked, outcome) = drive(request(&root, json!({}), UpdateMode::None), |_| page(), |_| shot(200));
    assert_eq!(asked, ["shoot after 0", "walk", "shoot after 0"]);
    assert_eq!(outcome.status, Some(Status::Passed));
    assert!(evidence(&root).layers.dom.is_some(), "compared");
}

#[test]
fn session_a_damaged_baseline_is_never_passed_by_its_key() {
    let root = Root::new("damaged-key");
    approve(&root);
    let png = ProjectStore::new(&root.0).baseline_png("home", "chromium").unwrap();
    let whole = std::fs::read(&png).unwrap();
    for damaged in [whole[..whole.len() - 20].to_vec(), {
        let mut flipped = whole.clone();
        flipped[60] ^= 0x10;
        flipped
    }] {
        std::fs::write(&png, &damaged).unwrap();
        let (asked, outcome) = drive(request(&root, json!({}), UpdateMode::None), |_| page(), |_| shot(200));
        assert_eq!(asked[..2], ["shoot after 0", "walk"], "compared, never passed on the key");
        assert_ne!(outcome.status, Some(Status::Passed), "{}", outcome.message);
    }
}

#[test]
fn session_a_failed_asset_is_never_passed_by_the_key() {
    let root = Root::new("unhealthy-key");
    approve(&root);
    let (mut session, step) = CaptureSession::open(request(&root, json!({}), UpdateMode::None)).unwrap();
    assert!(matches!(step, Step::Shoot { .. }));
    let failed = HealthReason::failed(crate::health::AssetKind::Font, "/brand.woff2", "HTTP 404");
    let step = session.shot(shot(200), vec![failed], None).unwrap();
    assert!(matches!(step, Step::Walk { .. }), "compared, with the page's DOM: {step:?}");
}

#[test]
fn session_a_change_fails_with_the_baseline_the_capture_and_the_diff_attached() {
    let root = Root::new("changed");
    approve(&root);
    let (asked, outcome) = drive(request(&root, json!({}), UpdateMode::None), |_| page(), |_| shot(100));
    assert_eq!(asked, ["shoot after 0", "walk", "shoot after 0"]);
    assert!(!outcome.pass);
    assert_eq!(outcome.status, Some(Status::Changed));
    let kinds: Vec<(&str, &str)> = outcome
        .attachments
        .iter()
        .map(|a| {
            let kind = match a.body {
                AttachmentBody::Inline(_) => "inline",
                AttachmentBody::OutputFile(_) => "output",
                AttachmentBody::ProjectFile(_) => "project",
            };
            (a.name.as_str(), kind)
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("home-evidence.json", "inline"),
            ("home-expected.png", "project"),
            ("home-actual.png", "output"),
            ("home-diff.png", "output")
        ]
    );
    // The evidence attached is the file the reporter gathers, byte for byte.
    let written = std::fs::read(root.0.join(".sightline/temp/home/chromium.json")).unwrap();
    assert!(matches!(&outcome.attachments[0].body, AttachmentBody::Inline(body) if *body == written));
}

#[test]
fn session_the_actual_image_and_the_stored_capture_are_the_browsers_png_unless_a_mask_is_painted_over_it() {
    let root = Root::new("actual");
    approve(&root);
    let actual =
        |outcome: &CallOutcome| match &outcome.attachments.iter().find(|a| a.name == "home-actual.png").unwrap().body {
            AttachmentBody::OutputFile(png) => png.clone(),
            other => panic!("{other:?}"),
        };
    // Nothing painted: the browser's own bytes, not encoded again.
    let (_, outcome) = drive(request(&root, json!({}), UpdateMode::None), |_| page(), |_| shot(100));
    assert_eq!(outcome.status, Some(Status::Changed));
    assert!(actual(&outcome) == shot(100), "the shot as the browser encoded it");
    // The stored capture keeps those bytes too, after its header, and reads back as the shot.
    let store = ProjectStore::new(&root.0);
    let stored = || std::fs::read(store.capture_path("home", "chromium").unwrap()).unwrap();
    let header = crate::artifact::HEADER_LEN;
    assert!(stored()[header..header + shot(100).len()] == shot(100), "the browser's PNG in the capture");
    let browser = crate::decode::decode_image(&shot(100), Path::new("shot")).unwrap();
    assert!(store.read_capture("home", "chromium").unwrap().image == browser);
    // A mask painted over the capture: the capture as compared, and only the mask differs from
    // the shot.
    let masked = || {
        let mut record = page();
        record["elements"][4]["masked"] = json!(true);
        record
    };
    let (_, outcome) =
        drive(request(&root, json!({ "mask": ["#card-a"] }), UpdateMode::None), |_| masked(), |_| shot(100));
    assert_eq!(outcome.status, Some(Status::Changed));
    let painted = crate::decode::decode_image(&actual(&outcome), Path::new("actual")).unwrap();
    let browser = crate::decode::decode_image(&shot(100), Path::new("shot")).unwrap();
    let differing: Vec<&[u8]> = painted
        .as_bytes()
        .chunks_exact(4)
        .zip(browser.as_bytes().chunks_exact(4))
        .filter(|(a, b)| a != b)
        .map(|(a, _)| a)
        .collect();
    assert!(!differing.is_empty(), "the mask is painted");
    assert!(differing.iter().all(|p| *p == [255, 0, 255, 255]), "only the mask's pixels differ");
    // The stored capture shows the mask as the actual image does, in pixels of its own.
    assert!(store.read_capture("home", "chromium").unwrap().image == painted);
    assert!(!stored()[header..].starts_with(b"\x89PNG"), "its pixels, not a PNG");
}

/// `sightline compare` over the captures a run left, with the project's settings; the evidence
/// it wrote for `home`.
fn compare_again(root: &Root) -> crate::snapshot::SnapshotEvidence {
    let settings = Settings::read(&root.0).unwrap();
    let store = ProjectStore::with_layout(&root.0, settings.baseline_path.clone());
    assert_eq!(crate::batch::compare_captures(&store, &settings, &|_, _| {}).unwrap(), 1);
    serde_json::from_slice(&std::fs::read(root.0.join(".sightline/temp/home/chromium.json")).unwrap()).unwrap()
}

#[test]
fn session_sightline_compare_uses_the_settings_the_call_resolved() {
    let root = Root::new("call-settings-compare");
    approve(&root);
    // The call allows the whole page to change; the config file does not.
    let (_, outcome) =
        drive(request(&root, json!({ "maxDiffPixels": 480000 }), UpdateMode::None), |_| page(), |_| shot(90));
    assert!(outcome.pass, "{}", outcome.message);
    assert_eq!(compare_again(&root).status, Status::Passed, "compared with the call's tolerance, not the file's");
}

#[test]
fn session_a_capture_only_shard_stores_the_settled_shot_and_compares_nothing() {
    let root = Root::new("capture-only");
    std::fs::create_dir_all(root.0.join(".sightline")).unwrap();
    std::fs::write(root.0.join(".sightline/config.json"), r#"{"shardMode": "capture-only"}"#).unwrap();
    let mut call = request(&root, json!({}), UpdateMode::None);
    call.sharded = true;
    let (asked, outcome) = drive(call, |_| page(), |_| shot(200));
    assert_eq!(asked, ["walk", "shoot after 0", "shoot after 0"]);
    assert!(outcome.pass);
    assert_eq!(outcome.message, "toMatchVisual(\"home\"): captured for the merge job (capture-only shard)");
    assert!(root.0.join(".sightline/temp/home/chromium.slcap").exists());
    assert!(!root.0.join(".sightline/temp/home/chromium.json").exists(), "no evidence: nothing compared");
}

#[test]
fn session_capture_only_without_a_shard_compares_as_any_run() {
    let root = Root::new("capture-only-unsharded");
    std::fs::create_dir_all(root.0.join(".sightline")).unwrap();
    std::fs::write(root.0.join(".sightline/config.json"), r#"{"shardMode": "capture-only"}"#).unwrap();
    let (_, outcome) = drive(request(&root, json!({}), UpdateMode::None), |_| page(), |_| shot(200));
    assert_eq!(outcome.status, Some(Status::New));
}

#[test]
fn session_a_bad_mask_entry_is_refused_naming_it() {
    let root = Root::new("bad-mask");
    let refused = |mask: Value| {
        CaptureSession::open(request(&root, json!({ "mask": mask }), UpdateMode::None)).unwrap_err().to_string()
    };
    assert_eq!(
        refused(json!({ "type": "string" })),
        "toMatchVisual(\"home\"): mask must be an array of Locators or CSS selectors, e.g. [page.locator('#ad'), '.clock']; got string"
    );
    // An empty list masks nothing (a call's mask replaces the config file's), as toHaveScreenshot.
    assert!(CaptureSession::open(request(&root, json!({ "mask": [] }), UpdateMode::None)).is_ok());
    assert_eq!(
        refused(json!([".ad", { "locator": "other-page" }])),
        "toMatchVisual(\"home\"): mask [1] is a Locator of another page: mask only Locators of the page being captured"
    );
    assert_eq!(
        refused(json!([".ad", 3])),
        "toMatchVisual(\"home\"): mask [1] must be a Locator or a CSS selector string, got number"
    );
}

#[test]
fn session_ignore_snapshots_captures_nothing_and_reads_no_options() {
    let root = Root::new("ignored");
    let mut call = request(&root, json!({ "treshold": 1 }), UpdateMode::All);
    call.ignore_snapshots = true;
    let (_, outcome) = drive(call, |_| page(), |_| shot(200));
    assert!(outcome.pass);
    assert_eq!(outcome.message, "toMatchVisual(\"home\"): skipped (ignoreSnapshots)");
    assert!(!root.0.join(".sightline").exists(), "nothing written");
}

#[test]
fn session_not_with_no_baseline_fails_at_once_and_writes_nothing_in_any_update_mode() {
    let root = Root::new("not-missing");
    for update in [UpdateMode::None, UpdateMode::All] {
        let request = CallRequest { is_not: true, ..request(&root, json!({}), update) };
        let (asked, outcome) = drive(request, |_| page(), |_| shot(200));
        assert!(asked.is_empty(), "nothing is captured: {asked:?}");
        assert!(outcome.pass, "pass under .not fails the call");
        assert_eq!(
            outcome.message,
            "toMatchVisual(\"home\"): no baseline at .sightline/baselines/home/chromium.png to differ from; matchers using .not never write one (approve a capture of the page first)"
        );
        assert!(!root.0.join(".sightline").exists(), "nothing written");
    }
}

#[test]
fn session_not_keeps_nothing_attaches_nothing_and_never_writes_a_baseline() {
    let root = Root::new("not");
    approve(&root);
    let baseline = std::fs::read(root.0.join(".sightline/baselines/home/chromium.png")).unwrap();
    std::fs::remove_dir_all(root.0.join(".sightline/temp")).unwrap();
    for (grey, differs) in [(100, true), (200, false)] {
        let request = CallRequest { is_not: true, ..request(&root, json!({}), UpdateMode::All) };
        let (_, outcome) = drive(request, |_| page(), |_| shot(grey));
        assert_eq!(outcome.pass, !differs, "{}", outcome.message);
        assert!(outcome.attachments.is_empty() && outcome.fail_at_end.is_none());
        assert_eq!(std::fs::read(root.0.join(".sightline/baselines/home/chromium.png")).unwrap(), baseline);
        assert!(!root.0.join(".sightline/temp/home").exists(), "no capture, evidence or claim kept");
    }
}

#[test]
fn session_write_missing_baselines_writes_the_baseline_and_fails_the_test_at_its_end() {
    let root = Root::new("write-missing");
    std::fs::create_dir_all(root.0.join(".sightline")).unwrap();
    std::fs::write(root.0.join(".sightline/config.json"), r#"{"writeMissingBaselines": true}"#).unwrap();
    let (_, outcome) = drive(request(&root, json!({}), UpdateMode::Default), |_| page(), |_| shot(200));
    assert!(outcome.pass, "the test runs on");
    assert_eq!(outcome.status, Some(Status::Written));
    assert_eq!(
        outcome.fail_at_end.as_deref(),
        Some(
            "toMatchVisual(\"home\"): no baseline yet; this capture was written as .sightline/baselines/home/chromium.png (writeMissingBaselines): review it and commit it"
        )
    );
    assert!(root.0.join(".sightline/baselines/home/chromium.png").is_file());
    // An update flag writes it as asked, and the test passes.
    let root = Root::new("write-missing-u");
    let (_, outcome) = drive(request(&root, json!({}), UpdateMode::Missing), |_| page(), |_| shot(200));
    assert!(outcome.pass && outcome.fail_at_end.is_none(), "{}", outcome.message);
}

fn chromium() -> Environment {
    Environment {
        browser: "chromium".into(),
        browser_version: "156.0.8078.114".into(),
        platform: "linux".into(),
        device_scale_factor: 1.0,
        fonts: Vec::new(),
        rendering_switches: Vec::new(),
        assets: Vec::new(),
        page_url: String::new(),
    }
}

#[test]
fn session_asks_for_fonts_only_for_a_capture_it_stores() {
    let root = Root::new("fonts");
    let in_chromium = |options: Value, update, grey: u8| {
        drive_in(Some(chromium()), request(&root, options, update), |_| page(), move |_| shot(grey))
    };
    let (asked, _) = in_chromium(json!({}), UpdateMode::All, 200);
    assert_eq!(
        asked,
        ["walk", "shoot after 0", "shoot after 0", "rendered with 64 fonts (found by the page), 128 assets"],
        "a baseline written"
    );
    let baseline = ProjectStore::new(&root.0).read_baseline_data("home", "chromium").unwrap().unwrap();
    let fonts = baseline.environment.expect("the baseline's environment").fonts;
    assert_eq!(fonts[0].faces[0].name, "DejaVu Sans");
    // An unchanged page: the first shot decides, and no fonts are looked up.
    let (asked, outcome) = in_chromium(json!({}), UpdateMode::None, 200);
    assert_eq!(asked, ["shoot after 0"]);
    assert!(outcome.pass);
    // A changed one is stored with its fonts, once, after the round settled; the element asked
    // for each family is the record's (its first with own text), so the page is not walked again.
    let with_family = |_| {
        let mut v = page();
        v["styleProperties"].as_array_mut().unwrap().push(json!("font-family"));
        for e in v["elements"].as_array_mut().unwrap() {
            e["styles"].as_array_mut().unwrap().push(json!("Inter, sans-serif"));
        }
        v
    };
    let (asked, outcome) =
        drive_in(Some(chromium()), request(&root, json!({}), UpdateMode::None), with_family, |_| shot(100));
    assert_eq!(
        asked,
        [
            "shoot after 0",
            "walk",
            "shoot after 0",
            "rendered with 64 fonts (Inter, sans-serif by body > header > h1), 128 assets"
        ]
    );
    assert!(!outcome.pass);
    // Its first shot's comparison stood; the stored capture and its evidence were given the fonts.
    let stored = ProjectStore::new(&root.0).read_capture("home", "chromium").unwrap();
    assert_eq!(stored.data.environment.expect("the capture's environment").fonts[0].faces[0].name, "DejaVu Sans");
    let evidence: crate::snapshot::SnapshotEvidence =
        serde_json::from_slice(&std::fs::read(root.0.join(".sightline/temp/home/chromium.json")).unwrap()).unwrap();
    let current = evidence.environment.and_then(|e| e.current).expect("the evidence's environment");
    assert_eq!(current.fonts[0].faces[0].name, "DejaVu Sans");
}

/// The page with `#card-a > p` recoloured.
fn restyled_page() -> Value {
    let mut record = page();
    record["elements"][5]["styles"][0] = json!("rgb(220, 38, 38)");
    record
}

#[test]
fn session_traces_a_failing_restyle_once_and_an_unchanged_page_never() {
    let root = Root::new("trace");
    approve(&root);
    let restyled = |_| restyled_page();
    let (asked, outcome) = drive(request(&root, json!({}), UpdateMode::None), restyled, |_| shot(100));
    assert_eq!(asked, ["shoot after 0", "walk", "shoot after 0", "trace #card-a > p"]);
    assert_eq!(outcome.status, Some(Status::Changed));
    // A browser that could not say leaves the verdict as the comparison made it.
    assert!(outcome.message.contains("Style-only change: 1 element restyled (#card-a > p)"), "{}", outcome.message);
    let (asked, _) = drive(request(&root, json!({}), UpdateMode::None), |_| page(), |_| shot(200));
    assert_eq!(asked, ["shoot after 0"]);
}

/// The page's answer for [`restyled_page`]'s element: `.card p { color: #dc2626 }` at line 5 of
/// /app.css.
fn card_rules() -> Value {
    json!({
        "sheets": [{ "id": "s", "url": "http://localhost:3000/app.css", "inline": false, "startLine": 0, "startColumn": 0 }],
        "elements": [{ "found": true, "inherited": [], "own": [{ "origin": "regular", "selector": ".card p", "sheet": "s",
            "declarations": [{ "name": "color", "value": "#dc2626", "line": 4, "column": 2 }] }] }],
    })
}

#[test]
fn session_a_traced_rule_leads_the_verdict_and_is_written_to_the_evidence() {
    let root = Root::new("traced");
    approve(&root);
    let restyled = restyled_page();
    let (mut session, mut step) = CaptureSession::open(request(&root, json!({}), UpdateMode::None)).unwrap();
    let outcome = loop {
        step = match step {
            Step::Walk { .. } => session.walked(restyled.to_string(), None).unwrap(),
            Step::Shoot { .. } => session.shot(shot(100), Vec::new(), None).unwrap(),
            Step::Trace(request) => {
                assert_eq!(request.names, ["color"]);
                session.traced(Some(card_rules().to_string()), None).unwrap()
            }
            Step::Done(outcome) => {
                session.close().unwrap();
                break *outcome;
            }
            other => panic!("unexpected {other:?}"),
        }
    };
    let verdict = "Style-only change: set by .card p in /app.css:5; 1 element restyled (#card-a > p)";
    assert!(outcome.message.contains(verdict), "{}", outcome.message);
    assert!(
        outcome
            .message
            .contains("#card-a > p color: rgb(0, 0, 0) → rgb(220, 38, 38) — .card p in /app.css:5 (color: #dc2626)"),
        "{}",
        outcome.message
    );
    let written: crate::snapshot::SnapshotEvidence =
        serde_json::from_slice(&std::fs::read(root.0.join(".sightline/temp/home/chromium.json")).unwrap()).unwrap();
    assert!(written.verdict.starts_with(verdict));
    assert_eq!(written.layers.dom.and_then(|d| d.style_trace).map(|t| t.traced), Some(1));
}

#[test]
fn session_writes_the_decided_calls_files_by_close_and_close_fails_when_they_cannot_be() {
    let root = Root::new("close");
    approve(&root);
    let capture = root.0.join(".sightline/temp/home/chromium.slcap");
    let run = |root: &Root| {
        let (mut session, mut step) = CaptureSession::open(request(root, json!({}), UpdateMode::None)).unwrap();
        loop {
            step = match step {
                Step::Walk { .. } => session.walked(page().to_string(), None).unwrap(),
                Step::Shoot { .. } => session.shot(shot(200), Vec::new(), None).unwrap(),
                Step::Done(outcome) => return (outcome, session.close()),
                other => panic!("unexpected {other:?}"),
            }
        }
    };
    std::fs::remove_file(&capture).unwrap();
    let (outcome, closed) = run(&root);
    assert!(outcome.pass, "{}", outcome.message);
    closed.unwrap();
    assert!(capture.is_file(), "written by the time close returns");
    // A capture that cannot be written (a folder stands at its path): the pass is decided, and
    // close says what failed, so the matcher fails the call rather than leave no capture.
    std::fs::remove_file(&capture).unwrap();
    std::fs::create_dir(&capture).unwrap();
    let (outcome, closed) = run(&root);
    assert!(outcome.pass);
    let error = closed.expect_err("a capture that was not written").to_string();
    assert!(error.contains("chromium.slcap"), "{error}");
}

#[test]
fn session_asks_the_rules_of_a_failing_restyle_with_the_fonts_in_one_round() {
    let root = Root::new("trace-with-fonts");
    approve(&root);
    // A browser that tells its environment: the trace rides with the fonts, and no trace step
    // follows.
    let (asked, outcome) =
        drive_in(Some(chromium()), request(&root, json!({}), UpdateMode::None), |_| restyled_page(), |_| shot(100));
    assert_eq!(
        asked,
        [
            "shoot after 0",
            "walk",
            "shoot after 0",
            "rendered with 64 fonts (found by the page), 128 assets, trace #card-a > p"
        ]
    );
    assert_eq!(outcome.status, Some(Status::Changed));
    // The rules answered in that round lead the verdict and are written to the evidence.
    let restyled = restyled_page();
    let (mut session, mut step) = CaptureSession::open(request(&root, json!({}), UpdateMode::None)).unwrap();
    let mut told = Some(chromium());
    let outcome = loop {
        step = match step {
            Step::Walk { .. } => session.walked(restyled.to_string(), told.take()).unwrap(),
            Step::Shoot { .. } => session.shot(shot(100), Vec::new(), told.take()).unwrap(),
            Step::Rendered { trace, .. } => {
                assert_eq!(trace.map(|t| t.names), Some(vec!["color".to_string()]));
                let answer = TraceAnswer { rules: Some(card_rules().to_string()), error: None };
                session.rendered(Vec::new(), Vec::new(), answer).unwrap()
            }
            Step::Done(outcome) => {
                session.close().unwrap();
                break *outcome;
            }
            other => panic!("unexpected {other:?}"),
        }
    };
    let verdict = "Style-only change: set by .card p in /app.css:5; 1 element restyled (#card-a > p)";
    assert!(outcome.message.contains(verdict), "{}", outcome.message);
    assert_eq!(evidence(&root).layers.dom.and_then(|d| d.style_trace).map(|t| t.traced), Some(1));
}

#[test]
fn session_a_trace_that_fails_is_told_in_the_evidence_and_never_fails_the_call() {
    let root = Root::new("trace-failed");
    approve(&root);
    let restyled = restyled_page();
    // The page navigated away while asked; then an answer beyond what the page was asked for.
    for (rules, error) in [
        (None, Some("Protocol error (DOM.getDocument): Target closed".to_string())),
        (Some(json!({ "sheets": [], "elements": [] }).to_string()), None),
        (Some("{ not json".to_string()), None),
    ] {
        let (mut session, mut step) = CaptureSession::open(request(&root, json!({}), UpdateMode::None)).unwrap();
        let outcome = loop {
            step = match step {
                Step::Walk { .. } => session.walked(restyled.to_string(), None).unwrap(),
                Step::Shoot { .. } => session.shot(shot(100), Vec::new(), None).unwrap(),
                Step::Trace(_) => session.traced(rules.clone(), error.clone()).unwrap(),
                Step::Done(outcome) => {
                    session.close().unwrap();
                    break *outcome;
                }
                other => panic!("unexpected {other:?}"),
            }
        };
        assert_eq!(outcome.status, Some(Status::Changed));
        assert!(outcome.message.contains("Style-only change: 1 element restyled (#card-a > p)"), "{}", outcome.message);
        let written: crate::snapshot::SnapshotEvidence =
            serde_json::from_slice(&std::fs::read(root.0.join(".sightline/temp/home/chromium.json")).unwrap()).unwrap();
        let trace = written.layers.dom.and_then(|d| d.style_trace).expect("the failed trace");
        assert_eq!((trace.traced, trace.untraced), (0, 1));
        let reason = trace.error.expect("why");
        match (&rules, &error) {
            (None, Some(error)) => assert_eq!(&reason, error),
            (Some(r), _) if r.starts_with('{') && r.contains("sheets") => {
                assert!(reason.contains("0 elements answered for 1 asked"), "{reason}")
            }
            _ => assert!(reason.starts_with("the page's answer is not valid"), "{reason}"),
        }
    }
}

#[test]
fn session_a_scrolling_element_is_grown_only_when_the_call_asks_for_its_full_page() {
    let root = Root::new("scroll-content");
    std::fs::create_dir_all(root.0.join(".sightline")).unwrap();
    // The config file's fullPage (and the default) is a page's: not a Locator's whole content.
    std::fs::write(root.0.join(".sightline/config.json"), r#"{"fullPage": true}"#).unwrap();
    let asked = |options: Value| {
        let (session, _) = CaptureSession::open(request(&root, options, UpdateMode::None)).unwrap();
        session.page().scroll_content
    };
    assert!(asked(json!({ "fullPage": true })));
    assert!(!asked(json!({})));
    assert!(!asked(json!({ "fullPage": false })));
}

mod settling;
