//! `sightline compare-designs` and `sightline compare-motion` as a user runs them: the
//! Chromium-rendered fixtures of the core, the built binary, JSON on stdout, PNGs on disk.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use sightline_core::RgbaImage;
use sightline_core::decode::{PngCompression, encode_png, read_image};
use sightline_core::design::{ComparisonContext, DesignOptions, Preset, compare_designs};

fn sightline(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sightline")).args(args).output().expect("run sightline")
}

fn fixture(name: &str) -> String {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/design").join(format!("{name}.png"));
    path.to_str().unwrap().to_string()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sightline-design-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn json(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn compare_designs_json_on_identical_fixtures_scores_100() {
    let out = sightline(&["compare-designs", &fixture("reference"), &fixture("reference"), "--json"]);
    let v = json(&out);
    assert_eq!(v["overall"], 100.0);
    for d in ["layout", "color", "content", "typography", "spacing"] {
        assert_eq!(v["dimensions"][d]["score"], 100.0, "{d}");
        assert_eq!(v["dimensions"][d]["status"], "scored", "{d}");
    }
    assert_eq!(v["mode"], "screen");
    assert_eq!(v["preset"], "default");
    assert_eq!(v["weights"]["layout"], 0.35);
    assert_eq!(v["findings"], Value::Array(vec![]));
    assert_eq!(v["comparisonKey"].as_str().unwrap().len(), 32);
}

#[test]
fn compare_designs_json_names_the_moved_colour_and_writes_visuals() {
    let dir = temp_dir("visuals");
    let out = sightline(&[
        "compare-designs",
        &fixture("reference"),
        &fixture("recoloured"),
        "--json",
        "--mode",
        "widget",
        "--visuals-dir",
        dir.to_str().unwrap(),
    ]);
    let v = json(&out);
    assert_eq!(v["mode"], "widget");
    assert_eq!(v["alignment"]["applied"], false);
    // Only colour moved: every other dimension is untouched.
    let scores: Vec<&Value> =
        ["layout", "color", "content", "typography", "spacing"].iter().map(|d| &v["dimensions"][d]["score"]).collect();
    assert_eq!(scores, [100.0, 46.73, 100.0, 100.0, 100.0]);
    assert_eq!(v["overall"], 85.89);
    assert_eq!(
        v["findings"],
        serde_json::json!([
            {"dimension": "color", "kind": "colorMoved", "severity": "high",
             "message": "#dc3c3c where the reference has #2878dc (12.3 % of the view, OKLab distance 0.333)",
             "suggestedFix": "use #2878dc here as the reference does, where the candidate shows #dc3c3c",
             "box": {"x": 0, "y": 0, "width": 640, "height": 400}}
        ])
    );
    assert_eq!(v["diagnostics"], serde_json::json!({"status": "ok", "reasons": []}));
    for name in ["overlay", "heat-map", "content-regions", "side-by-side"] {
        let image = read_image(&dir.join(format!("{name}.png"))).unwrap();
        assert_eq!(image.height(), 576, "{name}");
    }
    let written: Vec<String> = ["overlay", "heat-map", "content-regions", "side-by-side"]
        .iter()
        .map(|name| dir.join(format!("{name}.png")).display().to_string())
        .collect();
    assert_eq!(v["visualFiles"], serde_json::json!(written), "the paths of the files written, in order");
}

#[test]
fn compare_designs_explicit_weights_and_ignore_regions() {
    let out = sightline(&[
        "compare-designs",
        &fixture("reference"),
        &fixture("button-removed"),
        "--json",
        "--weights",
        "content=0.85",
        "--ignore",
        "150,350,140,60",
    ]);
    let v = json(&out);
    // content 0.85 given, the rest from the default preset: 0.35 + 0.2 + 0.85 + 0.15 + 0.15 = 1.7.
    assert_eq!(v["preset"], "default");
    assert_eq!(
        v["weights"],
        serde_json::json!({"layout": 0.2059, "color": 0.1176, "content": 0.5, "typography": 0.0882, "spacing": 0.0882})
    );
    assert_eq!(v["overall"], 100.0, "the only change is ignored: {v}");
    assert_eq!(v["ignoreRegions"], serde_json::json!([{"x": 150, "y": 350, "width": 140, "height": 60}]));
    assert_eq!(v["findings"], serde_json::json!([]));
    // Without the ignore region the missing button costs content.
    let v = json(&sightline(&[
        "compare-designs",
        &fixture("reference"),
        &fixture("button-removed"),
        "--json",
        "--weights",
        "layout=0,color=0,content=1,typography=0,spacing=0",
    ]));
    assert_eq!(v["overall"], 93.33, "{v}");
    assert_eq!(
        v["findings"],
        serde_json::json!([
            {"dimension": "layout", "kind": "structureChanged", "severity": "high",
             "message": "the structure differs here (mean SSIM 0.48)",
             "suggestedFix": "rebuild this area to match the reference's structure: the same elements, in the same order, sizes and alignment (the heat map shows where it differs)",
             "box": {"x": 160, "y": 346, "width": 134, "height": 54}},
            {"dimension": "content", "kind": "blockMissing", "severity": "high",
             "message": "a 122 × 42 px block of the reference has no counterpart in the candidate",
             "suggestedFix": "add the element the reference shows in this box (122 × 42 px), or move the candidate's version of it there",
             "box": {"x": 159, "y": 359, "width": 122, "height": 42}}
        ])
    );
}

#[test]
fn compare_designs_human_summary_and_bad_input() {
    let out = sightline(&["compare-designs", &fixture("reference"), &fixture("margins-changed")]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "overall 91.21 / 100 (screen mode, preset default)
diagnostics: ok
  layout      87.36  weight 0.35  mean SSIM 0.8736
  color       99.55  weight 0.20  palette distance 0.0002, 3.9 % of the view changed colour class (reference #ffffff #2878dc #ededed #222222; candidate #ffffff #2878dc #ededed #222222)
  content    100.00  weight 0.15  8 of 8 reference blocks matched, 8 candidate blocks
  typography  99.82  weight 0.15  17 text lines, mean height 19.3 px (reference: 17 lines, 19.3 px)
  spacing     74.78  weight 0.15  margins left 23, right 56, top 43 px, 3 gaps (reference: left 23, right 28, top 28 px, 3 gaps)
alignment: the candidate sits 16 px to the right of and 16 px below the reference; it was moved back before scoring, leaving out what only the reference shows (16 px along the right edge, 16 px along the bottom)
findings:
  medium layout     the structure differs here (mean SSIM 0.54) [at 0,0 640×80]
                    fix: rebuild this area to match the reference's structure: the same elements, in the same order, sizes and alignment (the heat map shows where it differs)
  medium layout     the structure differs here (mean SSIM 0.62) [at 213,213 374×81]
                    fix: rebuild this area to match the reference's structure: the same elements, in the same order, sizes and alignment (the heat map shows where it differs)
  high   spacing    right margin 56 px where the reference has 28 px
                    fix: set the right margin to 28 px (now 56 px)
  medium spacing    top margin 43 px where the reference has 28 px
                    fix: set the top margin to 28 px (now 43 px)
"
    );
    let out = sightline(&["compare-designs", &fixture("reference"), "/no/such/file.png"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "sightline: /no/such/file.png: No such file or directory (os error 2)\n"
    );
    let out = sightline(&["compare-designs", &fixture("reference"), &fixture("reference"), "--weights", "colour=1"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: invalid value 'colour=1' for '--weights <WEIGHTS>': unknown dimension `colour` (did you mean `color`?); use layout, color, content, typography, spacing\n\nFor more information, try '--help'.\n"
    );
}

#[test]
fn compare_designs_respects_allowed_roots() {
    let dir = temp_dir("roots");
    let out = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["compare-designs", &fixture("reference"), &fixture("reference")])
        .env("SIGHTLINE_ALLOWED_ROOTS", &dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        format!(
            "sightline: {}: outside the folders SIGHTLINE_ALLOWED_ROOTS allows ({}); move it under one of them or add its folder to SIGHTLINE_ALLOWED_ROOTS\n",
            fixture("reference"),
            dir.display()
        )
    );
}

/// Frames 80 × 60: a dark square moving `step` px per frame on a light page.
fn write_frames(dir: &Path, n: u32, step: u32) {
    std::fs::create_dir_all(dir).unwrap();
    for i in 0..n {
        let mut img = RgbaImage::filled(80, 60, [235, 235, 235, 255]).unwrap();
        for y in 20..30 {
            for x in 5 + i * step..15 + i * step {
                let at = ((y * 80 + x) * 4) as usize;
                img.as_bytes_mut()[at..at + 4].copy_from_slice(&[10, 10, 10, 255]);
            }
        }
        // Names sort in frame order only by name: frame-10 would come before frame-2.
        std::fs::write(dir.join(format!("frame-{i:03}.png")), encode_png(&img, PngCompression::Smallest).unwrap())
            .unwrap();
    }
}

#[test]
fn compare_motion_folders_files_and_chart() {
    let dir = temp_dir("motion");
    write_frames(&dir.join("moving"), 6, 5);
    write_frames(&dir.join("still"), 6, 0);
    let chart = dir.join("chart.png");
    let moving = dir.join("moving");
    let v = json(&sightline(&[
        "compare-motion",
        moving.to_str().unwrap(),
        moving.to_str().unwrap(),
        "--json",
        "--chart",
        chart.to_str().unwrap(),
    ]));
    assert_eq!(v["motionStatus"], "compared");
    assert_eq!(v["score"], 100.0);
    assert_eq!(v["reference"]["frames"], 6);
    assert_eq!(read_image(&chart).unwrap().width(), 640);
    let v =
        json(&sightline(&["compare-motion", moving.to_str().unwrap(), dir.join("still").to_str().unwrap(), "--json"]));
    assert_eq!((v["motionStatus"].as_str(), v["score"].as_f64()), (Some("compared"), Some(0.0)));
    // A comma-separated list of files, cut by --max-frames.
    let files: Vec<String> =
        (0..4).map(|i| dir.join(format!("still/frame-{i:03}.png")).to_str().unwrap().to_string()).collect();
    let v = json(&sightline(&["compare-motion", &files.join(","), &files.join(","), "--json", "--max-frames", "3"]));
    assert_eq!(v["motionStatus"], "static");
    assert_eq!(v["score"], Value::Null);
    assert_eq!((v["reference"]["frames"].as_u64(), v["reference"]["framesAvailable"].as_u64()), (Some(3), Some(4)));
    let out = sightline(&["compare-motion", moving.to_str().unwrap(), moving.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    // The square moves 5 px a frame at an even pace: equal energies, and a constant signature
    // leaves no correlation to compute.
    assert_eq!(
        text,
        "motion compared, score 100.00: both move: energy 0.018382 (reference) and 0.018382 (candidate), score 100.00
  reference  6 frames 80×60, energy 0.018382, moves
  candidate  6 frames 80×60, energy 0.018382, moves
  frame-index correlation not computed: a signature is constant
"
    );
}

/// What the core computes for these files and options, as the JSON the CLI prints.
fn core_result(reference: &str, candidate: &str, options: &DesignOptions) -> Value {
    let outcome = compare_designs(Path::new(&fixture(reference)), Path::new(&fixture(candidate)), options).unwrap();
    serde_json::to_value(&outcome.comparison).unwrap()
}

#[test]
fn compare_designs_dark_ui_preset_weighs_layout_and_typography() {
    let dark = json(&sightline(&[
        "compare-designs",
        &fixture("reference"),
        &fixture("recoloured"),
        "--json",
        "--preset",
        "dark-ui",
    ]));
    assert_eq!(dark["preset"], "dark-ui");
    assert_eq!(
        dark["weights"],
        serde_json::json!({"layout": 0.6, "color": 0.1, "content": 0.0, "typography": 0.3, "spacing": 0.0})
    );
    // The whole result is the core's for the dark-ui preset: the option reached the engine.
    let options = DesignOptions { preset: Preset::DarkUi, ..DesignOptions::default() };
    assert_eq!(dark, core_result("reference", "recoloured", &options));
    // The recolouring costs colour, which dark-ui weighs at .10 instead of .20: a higher overall
    // than the default preset's, from the same dimension scores.
    let default = json(&sightline(&["compare-designs", &fixture("reference"), &fixture("recoloured"), "--json"]));
    assert_eq!(default["preset"], "default");
    assert_eq!(dark["dimensions"]["color"]["score"], default["dimensions"]["color"]["score"]);
    let (dark_overall, default_overall) = (dark["overall"].as_f64().unwrap(), default["overall"].as_f64().unwrap());
    assert!(dark_overall > default_overall, "dark-ui {dark_overall}, default {default_overall}");
    assert_ne!(dark["comparisonKey"], default["comparisonKey"], "the weights are part of the question");
    // The human summary names the preset.
    let out = sightline(&["compare-designs", &fixture("reference"), &fixture("recoloured"), "--preset", "dark-ui"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with(&format!("overall {dark_overall:.2} / 100 (screen mode, preset dark-ui)\n")), "{text}");
    // A preset that does not exist is refused with the ones that do.
    let out = sightline(&["compare-designs", &fixture("reference"), &fixture("reference"), "--preset", "dark"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value 'dark' for '--preset <PRESET>'"), "{err}");
    assert!(err.contains("[possible values: default, dark-ui]"), "{err}");
}

#[test]
fn compare_designs_scope_id_and_protocol_key_are_part_of_the_comparison_key() {
    let with = |scope: &str, protocol: &str| {
        json(&sightline(&[
            "compare-designs",
            &fixture("reference"),
            &fixture("shifted"),
            "--json",
            "--scope-id",
            scope,
            "--protocol-key",
            protocol,
        ]))
    };
    // SHA-256 of "pixel-match-v2" and of "pixel-match-v3".
    let (v2, v3) = (
        "bafb28746bbe8884d6fb3846211bcbd5b932b2f395b12a9b22a6260fa07e0f0c",
        "09e6936ddfd0d6c3418caa0666057c9571c6c738d9665cefda631d8246654643",
    );
    let declared = with("checkout-page", v2);
    // Exactly the keys the core derives from this context (not another one, not none).
    let context = ComparisonContext { scope_id: "checkout-page".into(), protocol_key: v2.into() };
    let options = DesignOptions { comparison_context: Some(context), ..DesignOptions::default() };
    assert_eq!(declared, core_result("reference", "shifted", &options));
    let plain = json(&sightline(&["compare-designs", &fixture("reference"), &fixture("shifted"), "--json"]));
    assert_eq!(plain, core_result("reference", "shifted", &DesignOptions::default()));
    assert_ne!(declared["comparisonKey"], plain["comparisonKey"]);
    assert_ne!(declared["runKey"], plain["runKey"]);
    // Both values count: another scope or another protocol asks another question.
    assert_ne!(with("checkout-page/v2", v2)["comparisonKey"], declared["comparisonKey"]);
    assert_ne!(with("checkout-page", v3)["comparisonKey"], declared["comparisonKey"]);
    // A protocol key that is not a SHA-256 is refused with the fix; nothing is printed.
    let out = sightline(&[
        "compare-designs",
        &fixture("reference"),
        &fixture("shifted"),
        "--scope-id",
        "checkout-page",
        "--protocol-key",
        "pixel-match-v2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: invalid value 'pixel-match-v2' for '--protocol-key <PROTOCOL_KEY>': \"pixel-match-v2\" is not a lowercase hex SHA-256; give the 64-digit SHA-256 of your review protocol's text (e.g. `sha256sum protocol.md`)\n\nFor more information, try '--help'.\n"
    );
    // Declaring only half a context is refused, naming the missing half; nothing is printed.
    for (given, value, missing) in
        [("--scope-id", "x", "--protocol-key <PROTOCOL_KEY>"), ("--protocol-key", v2, "--scope-id <SCOPE_ID>")]
    {
        let out = sightline(&["compare-designs", &fixture("reference"), &fixture("shifted"), given, value, "--json"]);
        assert_eq!(out.status.code(), Some(2), "{given}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("the following required arguments were not provided:\n  {missing}")), "{err}");
    }
}
