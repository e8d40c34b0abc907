//! Recording one capture given whole (its screenshot and DOM record already taken): the
//! `compareCapture` and `storeCapture` exports for tools and tests that capture by themselves,
//! and `resolveSettings`, the options a project's calls resolve to. The matcher itself drives a
//! [`crate::session::CaptureSession`].

use napi::bindgen_prelude::*;
use napi_derive::napi;
use sightline_core::capture::ActualPng;
use sightline_core::config::{Settings, SettingsLayer};
use sightline_core::store::ProjectStore;

use crate::convert::{AssetFailure, health_reasons, update_mode};
use crate::work::{Work, guarded, to_json};

/// One `toMatchVisual` capture to record and compare.
#[napi(object)]
pub struct CaptureInput {
    /// Project root: `.sightline/` lives here.
    pub root: String,
    /// Snapshot name (letters, digits, `-`, `_`, `.`).
    pub name: String,
    /// Playwright project name.
    pub project: String,
    /// The screenshot as PNG, as Playwright returns it.
    pub screenshot: Buffer,
    /// The in-page collector's DOM record (one JSON string).
    pub dom: Option<String>,
    /// Assets that failed during the capture.
    pub failures: Option<Vec<AssetFailure>>,
    /// Device scale factor of the page. Default 1.
    pub device_scale_factor: Option<f64>,
    /// The `toMatchVisual` call's options (`threshold`, `maxDiffPixels`, `clip`, …): each
    /// overrides `.sightline/config.json` for this call; the engine validates them.
    #[napi(ts_type = "Record<string, unknown>")]
    pub overrides: Option<serde_json::Value>,
    /// Playwright's `expect.toHaveScreenshot` config for the test's project: defaults under
    /// `.sightline/config.json` (threshold, maxDiffPixels, animations, …).
    #[napi(ts_type = "Record<string, unknown>")]
    pub playwright_defaults: Option<serde_json::Value>,
    /// Playwright's `updateSnapshots`: `none`, `default` (the implicit one), `missing`, `changed`, `all`.
    pub update_snapshots: Option<String>,
    /// Identifies the test run (all workers share it): with `testId`, detects two tests
    /// capturing the same snapshot.
    pub run_id: Option<String>,
    /// Playwright's `testInfo.testId`.
    pub test_id: Option<String>,
    /// The test's title, for messages.
    pub test_title: Option<String>,
    /// The test's spec file (`testInfo.file`): the baseline remembers its test, so a later run
    /// tells a removed call (missing) from a test it did not select.
    pub test_file: Option<String>,
    /// The describe titles and the test's title (`testInfo.titlePath` without the file).
    pub test_title_path: Option<Vec<String>>,
    /// The test's line in its file.
    pub test_line: Option<u32>,
    /// The shot may not be stable yet: decide, but write no baseline; `wouldWriteBaseline` says
    /// whether the update mode would write one. Default false.
    pub provisional: Option<bool>,
    /// The page never settled: the shot before `screenshot` (PNG), which still differed from it
    /// when the time was up. The snapshot fails as unstable, naming what kept changing, and no
    /// baseline is written in any update mode.
    pub unsettled_after: Option<Buffer>,
    /// How long the matcher shot for, in ms (with `unsettledAfter`).
    pub waited_ms: Option<f64>,
}

/// What `compareCapture` found.
#[napi(object)]
pub struct CaptureResult {
    /// The snapshot's evidence: `status`, `verdict`, `layers`, `captureHealth`, `files`, ….
    #[napi(ts_type = "Record<string, any>")]
    pub evidence: serde_json::Value,
    /// The test should fail (status is not `passed` and no baseline was written).
    pub failed: bool,
    /// A baseline was written by this call.
    pub baseline_written: bool,
    /// The update mode writes a baseline for this evidence (not written when `provisional`).
    pub would_write_baseline: bool,
    /// The diff image as PNG when the snapshot failed against a baseline.
    pub diff_png: Option<Buffer>,
    /// The capture as compared, when the test fails: the browser's own PNG, or with its masks
    /// painted, compressed quickly (about the size of the browser's own PNG). The `-actual.png`
    /// attachment.
    pub actual_png: Option<Buffer>,
    /// The lines a failing test prints under its verdict: the top regions with their elements,
    /// then the restyled properties (`from → to`).
    pub explanation: Vec<String>,
}

fn capture_data(
    input: &CaptureInput,
    settings: &Settings,
) -> sightline_core::Result<sightline_core::store::CaptureData> {
    Ok(sightline_core::store::CaptureData {
        dom: input.dom.clone(),
        failures: health_reasons(input.failures.as_deref().unwrap_or_default())?,
        device_scale_factor: input.device_scale_factor.unwrap_or(1.0) as f32,
        project: Some(input.project.clone()),
        settings: Some(settings.clone()),
        unsettled: None,
        environment: None,
        // The comparison keys the capture itself, from the screenshot's bytes.
        shot: None,
        test: input.test_file.as_ref().map(|file| {
            sightline_core::store::ledger::TestRef::new(
                std::path::Path::new(&input.root),
                file,
                input.test_title_path.clone().unwrap_or_default(),
                input.test_line,
            )
        }),
    })
}

fn capture_owner(input: &CaptureInput) -> Option<sightline_core::capture::CaptureOwner> {
    match (&input.run_id, &input.test_id) {
        (Some(run_id), Some(test_id)) => Some(sightline_core::capture::CaptureOwner {
            run_id: run_id.clone(),
            test_id: test_id.clone(),
            title: input.test_title.clone().unwrap_or_default(),
            location: input.test_file.as_ref().map(|file| match input.test_line {
                Some(line) => format!("{file}:{line}"),
                None => file.clone(),
            }),
        }),
        _ => None,
    }
}

fn record(input: &CaptureInput) -> Result<CaptureResult> {
    use sightline_core::capture::{CaptureRequest, record_capture};

    let outcome = guarded(|| {
        let settings = settings_of(&input.root, input.playwright_defaults.as_ref(), input.overrides.as_ref())?;
        let request = CaptureRequest {
            name: &input.name,
            project: &input.project,
            screenshot_png: &input.screenshot,
            decoded: None,
            data: capture_data(input, &settings)?,
            parsed_dom: None,
            options: settings.snapshot_options(),
            update: update_mode(input.update_snapshots.as_deref())?,
            write_missing_baselines: settings.write_missing_baselines,
            want_diff_png: true,
            provisional: input.provisional.unwrap_or(false),
            unsettled: input.unsettled_after.as_ref().map(|previous| sightline_core::capture::Unsettled {
                previous_png: previous,
                waited_ms: input.waited_ms.unwrap_or(0.0).max(0.0) as u64,
            }),
            owner: capture_owner(input),
            negated: false,
            defer_writes: false,
        };
        record_capture(&ProjectStore::with_layout(&input.root, settings.baseline_path.clone()), request)
    })?;
    let failed = outcome.fails_test();
    Ok(CaptureResult {
        evidence: to_json(&outcome.evidence)?,
        failed,
        baseline_written: outcome.baseline_written,
        would_write_baseline: outcome.would_write_baseline,
        diff_png: outcome.diff_png.map(Buffer::from),
        actual_png: match outcome.current_png {
            ActualPng::None => None,
            // This older export returns a buffer of its own, as before.
            ActualPng::AsShot => Some(Buffer::from(input.screenshot.to_vec())),
            ActualPng::Painted(png) => Some(Buffer::from(png)),
        },
        explanation: outcome.evidence.explanation(3, 5),
    })
}

fn store_only(input: &CaptureInput) -> Result<()> {
    guarded(|| {
        // Checked like a comparing call's, so a bad option fails the same way in every shard mode.
        let settings = settings_of(&input.root, input.playwright_defaults.as_ref(), input.overrides.as_ref())?;
        sightline_core::capture::store_capture_only(
            &ProjectStore::with_layout(&input.root, settings.baseline_path.clone()),
            &input.name,
            &input.project,
            &input.screenshot,
            capture_data(input, &settings)?,
            settings.snapshot_options().mask_color,
            capture_owner(input).as_ref(),
        )
    })
}

/// The core's settings for `root` over Playwright's `expect.toHaveScreenshot` and under a call's
/// overrides (each a JSON object or nothing).
fn settings_of(
    root: &str,
    playwright: Option<&serde_json::Value>,
    overrides: Option<&serde_json::Value>,
) -> sightline_core::Result<Settings> {
    let layer = |value: Option<&serde_json::Value>| value.cloned().unwrap_or(serde_json::Value::Null);
    Settings::read_for_call(
        std::path::Path::new(root),
        &SettingsLayer::playwright(layer(playwright))?,
        &SettingsLayer::call(layer(overrides))?,
    )
}

/// What `resolveSettings` needs.
#[napi(object)]
pub struct SettingsInput {
    /// Project root: `.sightline/` lives here.
    pub root: String,
    /// A `toMatchVisual` call's options, each overriding the config file for this call.
    #[napi(ts_type = "Record<string, unknown>")]
    pub overrides: Option<serde_json::Value>,
    /// Playwright's `expect.toHaveScreenshot` config: defaults under the config file.
    #[napi(ts_type = "Record<string, unknown>")]
    pub playwright_defaults: Option<serde_json::Value>,
}

/// `.sightline/config.json` (defaults for absent keys, Playwright's `expect.toHaveScreenshot`
/// under it) with a call's overrides applied, checked
/// by the engine: an error names the file or `toMatchVisual options`, the key and what it expects.
#[napi(ts_return_type = "import('./playwright-fixtures/options').ResolvedSettings")]
pub fn resolve_settings(input: SettingsInput) -> Result<serde_json::Value> {
    let settings = guarded(|| settings_of(&input.root, input.playwright_defaults.as_ref(), input.overrides.as_ref()))?;
    // The capture needs the list even when the config leaves it to the default.
    to_json(&Settings { style_properties: Some(settings.style_properties()), ..settings })
}

/// A `capture-only` shard: stores the capture in `.sightline/temp` and compares nothing; the
/// merge job compares (`sightline compare --captures`).
#[napi]
pub fn store_capture_sync(input: CaptureInput) -> Result<()> {
    store_only(&input)
}

/// Async twin of `storeCaptureSync`.
#[napi(ts_return_type = "Promise<void>")]
pub fn store_capture(input: CaptureInput) -> AsyncTask<Work<()>> {
    Work::run(move || store_only(&input))
}

/// Records a capture in `.sightline/temp`, compares it with the approved baseline (pixels,
/// DOM, styles, health) and returns the evidence, on the calling thread.
#[napi]
pub fn compare_capture_sync(input: CaptureInput) -> Result<CaptureResult> {
    record(&input)
}

/// Async twin of `compareCaptureSync`: the Playwright worker's event loop stays free.
#[napi(ts_return_type = "Promise<CaptureResult>")]
pub fn compare_capture(input: CaptureInput) -> AsyncTask<Work<CaptureResult>> {
    Work::run(move || record(&input))
}
