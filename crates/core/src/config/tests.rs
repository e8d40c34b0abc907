use super::*;
use serde_json::json;

/// A project root holding `config` as `.sightline/config.json`, removed on drop.
struct Root(std::path::PathBuf);

impl Root {
    fn with(tag: &str, config: &str) -> Self {
        let root = std::env::temp_dir().join(format!("sightline-config-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(root.join(".sightline")).unwrap();
        std::fs::write(root.join(".sightline/config.json"), config).unwrap();
        Root(root)
    }

    fn settings(&self, overrides: serde_json::Value) -> Result<Settings> {
        Settings::read_for_call(&self.0, &SettingsLayer::default(), &SettingsLayer::call(overrides)?)
    }

    fn error(&self, overrides: serde_json::Value) -> String {
        let config = self.0.join(".sightline/config.json").display().to_string();
        self.settings(overrides).unwrap_err().to_string().replace(&config, "<config>")
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn call_error(overrides: serde_json::Value) -> String {
    SettingsLayer::call(overrides).unwrap_err().to_string()
}

#[test]
fn settings_defaults_without_a_config_file() {
    let settings = Settings::read(Path::new("/nonexistent")).unwrap();
    assert_eq!(settings, Settings::default());
    let options = settings.snapshot_options();
    assert_eq!((options.compare.pixel.threshold, options.compare.pixel.include_aa), (0.1, false));
    assert_eq!(options.compare.comparator, Comparator::Pixelmatch);
    assert_eq!(
        (options.tolerance.max_diff_pixels, options.tolerance.max_diff_pixel_ratio, options.tolerance.noise_auto_pass),
        (None, None, false)
    );
    // Unset keys stay out of results.json's run.config.
    assert_eq!(
        serde_json::Value::Object(settings.file_json()),
        json!({
            "reportDir": "visual-report", "threshold": 0.1, "antialiasing": true, "noiseAutoPass": false, "strictRendering": false,
            "fullPage": true, "mask": [], "ignoreSelectors": [], "maskColor": "#FF00FF",
            "mcpApprovalPrompt": true, "writeMissingBaselines": false, "shardMode": "compare",
            "animations": "disabled", "caret": "hide", "scale": "css", "omitBackground": false,
            "waitForImages": true, "waitForAriaBusy": true, "waitForRequests": true, "ignoreRequests": [],
            "hideScrollbars": true, "clearHover": false, "baselinePath": "{name}/{project}"
        })
    );
}

#[test]
fn settings_file_values_and_the_options_they_give() {
    let root = Root::with(
        "file",
        r#"{"reportDir": "out", "threshold": 0.2, "antialiasing": false, "maxDiffPixels": 10,
            "maxDiffPixelRatio": 0.5, "noiseAutoPass": true, "shardMode": "capture-only"}"#,
    );
    let settings = root.settings(json!(null)).unwrap();
    let c = &settings;
    assert_eq!((c.report_dir.as_str(), c.shard_mode), ("out", ShardMode::CaptureOnly));
    let options = settings.snapshot_options();
    assert_eq!((options.compare.pixel.threshold, options.compare.pixel.include_aa), (0.2, true));
    assert_eq!(
        (options.tolerance.max_diff_pixels, options.tolerance.max_diff_pixel_ratio, options.tolerance.noise_auto_pass),
        (Some(10), Some(0.5), true)
    );
}

#[test]
fn settings_call_overrides_win_over_the_file() {
    let root =
        Root::with("overrides", r##"{"threshold": 0.2, "mask": ["#ad"], "maxDiffPixels": 10, "fullPage": false}"##);
    let settings = root
        .settings(json!({
            "threshold": 0, "mask": ["#banner"], "perceptual": true, "timeout": 300,
            "clip": {"x": 0, "y": 0, "width": 100, "height": 30}, "maxDiffPixelRatio": null
        }))
        .unwrap();
    let c = &settings;
    assert_eq!(
        (c.threshold, c.mask.clone(), c.max_diff_pixels, c.full_page),
        (0.0, vec!["#banner".to_string()], Some(10), false)
    );
    assert_eq!(settings.clip, Some(Clip { x: 0.0, y: 0.0, width: 100.0, height: 30.0 }));
    assert_eq!((settings.timeout, settings.perceptual), (Some(300.0), true));
    let options = settings.snapshot_options();
    assert_eq!((options.compare.pixel.threshold, options.compare.comparator), (0.0, Comparator::Perceptual));
}

#[test]
fn settings_style_properties_default_to_the_spec_list_and_a_set_list_wins() {
    let root = Root::with("styles", "{}");
    let settings = Settings::read(&root.0).unwrap();
    assert_eq!(settings.style_properties().len(), 39);
    assert_eq!(settings.style_properties()[..2], ["color", "background-color"]);
    let call = SettingsLayer::call(json!({"styleProperties": ["outline-style"]})).unwrap();
    assert_eq!(
        Settings::read_for_call(&root.0, &SettingsLayer::default(), &call).unwrap().style_properties(),
        ["outline-style"]
    );
    // Unset, it stays out of results.json's run.config.
    assert!(serde_json::Value::Object(settings.file_json()).get("styleProperties").is_none());
}

#[test]
fn settings_mask_color_is_any_css_colour_checked_where_it_is_set() {
    let root = Root::with("mask-color", r#"{"maskColor": "rgb(0 0 0 / 50%)"}"#);
    assert_eq!(root.settings(json!(null)).unwrap().snapshot_options().mask_color, [0, 0, 0, 128]);
    assert_eq!(root.settings(json!({"maskColor": "lime"})).unwrap().snapshot_options().mask_color, [0, 255, 0, 255]);
    assert_eq!(SnapshotOptions::default().mask_color, [255, 0, 255, 255]);
    assert_eq!(
        call_error(json!({"maskColor": "pinkish"})),
        "toMatchVisual options: \"maskColor\" must be a CSS colour such as \"#FF00FF\" or \"rgb(0 0 0 / 50%)\", got \"pinkish\""
    );
    let bad = Root::with("mask-color-bad", r##"{"maskColor": "#12345"}"##);
    assert_eq!(
        bad.error(json!(null)),
        "<config>: \"maskColor\" must be a CSS colour such as \"#FF00FF\" or \"rgb(0 0 0 / 50%)\", got \"#12345\""
    );
}

#[test]
fn settings_a_baseline_path_that_cannot_read_back_is_refused_naming_the_key() {
    let root = Root::with("layout", r#"{"baselinePath": "{name}-{project}"}"#);
    assert_eq!(
        root.error(json!(null)),
        "<config>: \"baselinePath\" must be a path template of {name}, {project}, {platform} and {testFile}, got \"{name}-{project}\", which has {name} inside a folder name; {name} must be a whole folder; e.g. \"{name}/{project}-{platform}\" or \"{testFile}/{name}/{project}\""
    );
    let good = Root::with("layout-ok", r#"{"baselinePath": "{name}/{project}-{platform}"}"#);
    assert_eq!(Settings::read(&good.0).unwrap().baseline_path.template(), "{name}/{project}-{platform}");
    // A call cannot move the baselines.
    assert!(good.error(json!({"baselinePath": "{name}/{project}"})).contains("unknown key \"baselinePath\""));
}

#[test]
fn settings_unknown_keys_name_the_key_and_list_the_known_ones() {
    let root = Root::with("unknown", r#"{"treshold": 0.2}"#);
    assert_eq!(
        root.error(json!(null)),
        "<config>: unknown key \"treshold\" (did you mean \"threshold\"?); known keys are reportDir, threshold, antialiasing, \
         maxDiffPixels, maxDiffPixelRatio, noiseAutoPass, strictRendering, fullPage, mask, ignoreSelectors, ignoreRegions, maskColor, \
         mcpApprovalPrompt, styleProperties, writeMissingBaselines, shardMode, animations, caret, scale, \
         omitBackground, stylePath, waitForImages, waitForAriaBusy, waitForRequests, ignoreRequests, hideScrollbars, clearHover, baselinePath"
    );
    assert_eq!(
        call_error(json!({"reportDir": "x"})),
        "toMatchVisual options: unknown key \"reportDir\"; known keys are threshold, maxDiffPixels, \
         maxDiffPixelRatio, noiseAutoPass, strictRendering, fullPage, mask, ignoreSelectors, ignoreRegions, maskColor, styleProperties, clip, timeout, \
         perceptual, animations, caret, scale, omitBackground, stylePath, waitForImages, waitForAriaBusy, \
         waitForRequests, ignoreRequests, hideScrollbars, clearHover"
    );
    assert_eq!(
        call_error(json!({"clip": {"x": 0, "y": 0, "w": 1, "height": 1}})),
        "toMatchVisual options: unknown key \"clip.w\"; known keys are x, y, width, height"
    );
}

fn playwright(value: serde_json::Value) -> SettingsLayer {
    SettingsLayer::playwright(value).unwrap()
}

#[test]
fn settings_layer_playwright_defaults_under_the_config_file_and_the_call() {
    let root = Root::with("playwright-layers", r#"{"threshold": 0.3, "scale": "device", "stylePath": "hide.css"}"#);
    let pw = playwright(json!({
        "threshold": 0.2, "maxDiffPixels": 100, "caret": "initial", "scale": "css",
        "stylePath": ["/abs/pw.css"], "pathTemplate": "{arg}{ext}", "_comparator": "ssim-cie94"
    }));
    let call = |o: serde_json::Value| Settings::read_for_call(&root.0, &pw, &SettingsLayer::call(o).unwrap()).unwrap();
    let settings = call(json!(null));
    // The file beats Playwright; Playwright beats the built-in defaults.
    assert_eq!(settings.threshold, 0.3);
    assert_eq!(settings.scale, Scale::Device);
    assert_eq!(settings.max_diff_pixels, Some(100));
    assert_eq!(settings.caret, Caret::Initial);
    assert_eq!(settings.animations, Animations::Disabled);
    // The file's stylesheet is the project's, relative to the root.
    assert_eq!(settings.style_path, vec![root.0.join("hide.css").display().to_string()]);
    // The call beats both.
    let settings = call(json!({"threshold": 0, "maxDiffPixels": 5, "caret": "hide", "stylePath": "call.css"}));
    assert_eq!((settings.threshold, settings.max_diff_pixels, settings.caret), (0.0, Some(5), Caret::Hide));
    assert_eq!(settings.style_path, vec!["call.css".to_string()]);
    // Only the shared keys are read.
    assert_eq!(
        pw,
        SettingsLayer {
            threshold: Some(0.2),
            max_diff_pixels: Some(100),
            caret: Some(Caret::Initial),
            scale: Some(Scale::Css),
            style_path: Some(vec!["/abs/pw.css".into()]),
            ..SettingsLayer::default()
        }
    );
    // Without a config file, Playwright's stylesheet stands.
    let none = Settings::read_for_call(Path::new("/nonexistent"), &pw, &SettingsLayer::default()).unwrap();
    assert_eq!((none.threshold, none.style_path.clone()), (0.2, vec!["/abs/pw.css".to_string()]));
    assert_eq!(playwright(json!(null)), SettingsLayer::default());
    assert_eq!(playwright(json!({"pathTemplate": "x", "maskColor": "red"})), SettingsLayer::default());
    // Playwright's `expect.toHaveScreenshot.timeout` bounds a call that gives none (issue 35).
    let timed = playwright(json!({"timeout": 1200}));
    let read = |call: serde_json::Value| {
        Settings::read_for_call(&root.0, &timed, &SettingsLayer::call(call).unwrap()).unwrap().timeout
    };
    assert_eq!((read(json!(null)), read(json!({"timeout": 300}))), (Some(1200.0), Some(300.0)));
}

#[test]
fn settings_max_diff_pixel_ratio_layers_by_its_own_key() {
    let pw = playwright(json!({"maxDiffPixels": 100, "maxDiffPixelRatio": 0.02}));
    let tolerances = |root: &Root| {
        let c = Settings::read_for_call(&root.0, &pw, &SettingsLayer::default()).unwrap();
        (c.max_diff_pixels, c.max_diff_pixel_ratio)
    };
    // The ratio in both places: the file's; Playwright's pixel count still applies.
    let both = Root::with("pw-ratio-both", r#"{"maxDiffPixelRatio": 0.05}"#);
    assert_eq!(tolerances(&both), (Some(100), Some(0.05)));
    // Only the pixel count in the file: Playwright's ratio still applies.
    let pixels = Root::with("pw-ratio-pixels", r#"{"maxDiffPixels": 7}"#);
    assert_eq!(tolerances(&pixels), (Some(7), Some(0.02)));
}

#[test]
fn settings_bad_playwright_defaults_and_capture_options_name_the_place_and_the_key() {
    assert_eq!(
        SettingsLayer::playwright(json!({"maxDiffPixels": -1})).unwrap_err().to_string(),
        "playwright.config expect.toHaveScreenshot: \"maxDiffPixels\" must be a whole number ≥ 0, got -1"
    );
    assert_eq!(
        call_error(json!({"animations": "paused"})),
        "toMatchVisual options: \"animations\" must be \"disabled\" or \"allow\", got \"paused\""
    );
    assert_eq!(
        call_error(json!({"scale": "retina"})),
        "toMatchVisual options: \"scale\" must be \"css\" or \"device\", got \"retina\""
    );
    assert_eq!(
        call_error(json!({"stylePath": 3})),
        "toMatchVisual options: \"stylePath\" must be a CSS file path or an array of them, got another type"
    );
    assert_eq!(
        call_error(json!({"stylePath": ["a.css", ""]})),
        "toMatchVisual options: \"stylePath\" must be a CSS file path or an array of them, got an empty path"
    );
    assert_eq!(
        call_error(json!({"omitBackground": "yes"})),
        "toMatchVisual options: \"omitBackground\" has the wrong type (invalid type: string \"yes\", expected a boolean)"
    );
}

#[test]
fn settings_nested_errors_name_the_path() {
    assert_eq!(
        call_error(json!({"clip": {"x": 0, "y": 0, "width": 0, "height": 30}})),
        "toMatchVisual options: \"clip.width\" must be a number above 0, got 0"
    );
    assert_eq!(
        call_error(json!({"clip": {"x": "left", "y": 0, "width": 1, "height": 1}})),
        "toMatchVisual options: \"clip.x\" has the wrong type (invalid type: string \"left\", expected f64)"
    );
    assert_eq!(
        call_error(json!({"mask": ["#ad", 3]})),
        "toMatchVisual options: \"mask[1]\" has the wrong type (invalid type: integer `3`, expected a string)"
    );
}

#[test]
fn settings_wrong_types_and_ranges_say_what_is_expected() {
    let cases = [
        (r#"{"threshold": "high"}"#, "\"threshold\" has the wrong type (invalid type: string \"high\", expected f64)"),
        (r#"{"threshold": 3}"#, "\"threshold\" must be a number from 0 to 1, got 3"),
        (r#"{"maxDiffPixelRatio": 1.5}"#, "\"maxDiffPixelRatio\" must be a number from 0 to 1, got 1.5"),
        (r#"{"maxDiffPixels": 2.5}"#, "\"maxDiffPixels\" must be a whole number ≥ 0, got 2.5"),
        (r#"{"maxDiffPixels": -1}"#, "\"maxDiffPixels\" must be a whole number ≥ 0, got -1"),
        (r#"{"styleProperties": []}"#, "\"styleProperties\" must be a non-empty array of CSS longhand names, got []"),
        (
            r#"{"styleProperties": ["color", "border-radius"]}"#,
            "\"styleProperties\" must be longhand CSS property names: \"border-radius\" is a shorthand, which \
             Chromium reports as \"\" when sides differ; list the longhands instead: \
             border-{top-left,top-right,bottom-right,bottom-left}-radius",
        ),
        (
            r#"{"styleProperties": ["color", ""]}"#,
            "\"styleProperties\" must be a non-empty array of CSS longhand names, got [\"color\",\"\"]",
        ),
        (r#"{"reportDir": ""}"#, "\"reportDir\" must be a folder path string, got \"\""),
        (r#"{"shardMode": "both"}"#, "\"shardMode\" must be \"compare\" or \"capture-only\", got \"both\""),
        (
            r#"{"antialiasing": "no"}"#,
            "\"antialiasing\" has the wrong type (invalid type: string \"no\", expected a boolean)",
        ),
        (r#"[0.1]"#, "expected a JSON object of settings, e.g. {\"threshold\": 0.1}"),
    ];
    for (i, (file, says)) in cases.iter().enumerate() {
        let root = Root::with(&format!("range-{i}"), file);
        assert_eq!(root.error(json!(null)), format!("<config>: {says}"), "{file}");
    }
    let root = Root::with("not-json", "threshold = 0.2");
    assert_eq!(
        root.error(json!(null)),
        "<config>: not valid JSON (expected ident at line 1 column 2); fix it or delete it to use the defaults"
    );
    assert_eq!(
        call_error(json!({"timeout": -5})),
        "toMatchVisual options: \"timeout\" must be a number of milliseconds ≥ 0, got -5"
    );
    assert_eq!(
        call_error(json!({"threshold": 2})),
        "toMatchVisual options: \"threshold\" must be a number from 0 to 1, got 2"
    );
    assert_eq!(
        call_error(json!("loose")),
        "toMatchVisual options: expected a JSON object of settings, e.g. {\"threshold\": 0.1}"
    );
}

#[test]
fn settings_each_source_may_set_only_its_own_keys() {
    // Playwright's own keys are left alone; a key only a call may set is named in the file.
    let root = Root::with("file-keys", r#"{"clip": {"x": 0, "y": 0, "width": 1, "height": 1}}"#);
    assert!(
        root.error(json!(null)).starts_with("<config>: unknown key \"clip\"; known keys are reportDir, threshold,")
    );
    assert_eq!(
        call_error(json!({"mcpApprovalPrompt": false})),
        "toMatchVisual options: unknown key \"mcpApprovalPrompt\"; known keys are threshold, maxDiffPixels, \
         maxDiffPixelRatio, noiseAutoPass, strictRendering, fullPage, mask, ignoreSelectors, ignoreRegions, maskColor, styleProperties, clip, timeout, \
         perceptual, animations, caret, scale, omitBackground, stylePath, waitForImages, waitForAriaBusy, \
         waitForRequests, ignoreRequests, hideScrollbars, clearHover"
    );
    assert_eq!(
        Source::Playwright.keys(),
        ["threshold", "maxDiffPixels", "maxDiffPixelRatio", "timeout", "animations", "caret", "scale", "stylePath"]
    );
}

#[test]
fn settings_resolved_settings_read_back_from_json() {
    // results.json and a capture keep resolved settings; what they wrote reads back the same.
    let call = SettingsLayer::call(json!({
        "maxDiffPixels": 3, "clip": {"x": 1, "y": 2, "width": 3, "height": 4}, "perceptual": true,
        "styleProperties": ["color"], "stylePath": "a.css", "animations": "allow"
    }))
    .unwrap();
    let settings = Settings::resolve(&SettingsLayer::default(), &SettingsLayer::default(), &call);
    let json = serde_json::to_value(&settings).unwrap();
    assert_eq!(serde_json::from_value::<Settings>(json).unwrap(), settings);
}

#[test]
fn typescript_the_committed_options_types_are_the_generated_ones() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../playwright-fixtures/options.d.ts");
    let generated = typescript::options_dts();
    if std::env::var_os("SIGHTLINE_WRITE_TYPES").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} differs from the settings' declaration; run `SIGHTLINE_WRITE_TYPES=1 cargo test -p sightline-core typescript` and commit it",
        path.display()
    );
}

#[test]
fn typescript_no_option_doc_ends_its_comment_early() {
    // A doc holding `*/` (a glob such as `**/x`) would close the JSDoc comment and break every
    // project that type-checks the matcher.
    for key in KEYS {
        assert!(!key.doc.contains("*/"), "the doc of {} holds `*/`: {}", key.name, key.doc);
    }
}

#[test]
fn settings_ignore_regions_are_boxes_that_do_not_overlap() {
    let call = json!({"ignoreRegions": [{"x": 0, "y": 0, "width": 100, "height": 30}, {"x": 100, "y": 0, "width": 5, "height": 5}]});
    let settings =
        Settings::resolve(&SettingsLayer::default(), &SettingsLayer::default(), &SettingsLayer::call(call).unwrap());
    assert_eq!(settings.ignore_regions.len(), 2, "touching boxes do not overlap");
    for (regions, said) in [
        (
            json!([{"x": 0, "y": 0, "width": 100, "height": 30}, {"x": 50, "y": 20, "width": 100, "height": 30}]),
            "\"ignoreRegions\" must be boxes that do not overlap, got [1] {x: 50, y: 20, width: 100, height: 30} overlapping [0] {x: 0, y: 0, width: 100, height: 30}",
        ),
        (
            json!([{"x": -1, "y": 0, "width": 10, "height": 10}]),
            "\"ignoreRegions\" must be boxes with x and y ≥ 0 and a finite size, got [0] {x: -1, y: 0, width: 10, height: 10}",
        ),
        (
            json!([{"x": 0, "y": 0, "width": 0, "height": 10}]),
            "\"ignoreRegions[0].width\" must be a number above 0, got 0",
        ),
        (json!([{"x": 0, "y": 0, "w": 1, "height": 10}]), "unknown key \"ignoreRegions[0].w\""),
    ] {
        let message = call_error(json!({"ignoreRegions": regions}));
        assert!(message.starts_with("toMatchVisual options: ") && message.contains(said), "{message}");
    }
    let many: Vec<serde_json::Value> = (0..65).map(|i| json!({"x": i * 10, "y": 0, "width": 5, "height": 5})).collect();
    assert!(call_error(json!({"ignoreRegions": many})).contains("must be at most 64 boxes, got 65"));
}
