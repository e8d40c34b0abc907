//! The Node addon: Sightline's engine called in-process from the Playwright worker. Thin on
//! purpose — it converts JS values to core types and back; every decision is in `sightline-core`.
//! Each heavy export is async (runs on the libuv pool, the worker's event loop stays free) with
//! a `Sync` twin; a Rust panic becomes a JS error instead of killing the worker.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use sightline_core::compare::{self, Comparator, CompareOptions};
use sightline_core::config::{Overrides, PlaywrightDefaults, Settings, load_call_settings};
use sightline_core::image::ImageRef;
use sightline_core::pixel::{self, PixelOptions};

/// Options of the pixel test (pixelmatch 7.2 names and defaults).
#[napi(object)]
#[derive(Default)]
pub struct DiffOptions {
    /// Per-pixel colour tolerance, 0..1. Default 0.1.
    pub threshold: Option<f64>,
    /// Count anti-aliased pixels as differences. Default false.
    pub include_aa: Option<bool>,
    /// Opacity of the original image under the diff, 0..1. Default 0.1.
    pub alpha: Option<f64>,
    /// Draw only differing pixels on a transparent background. Default false.
    pub diff_mask: Option<bool>,
    /// Return the diff image (RGBA, same size). Default false.
    pub diff_image: Option<bool>,
    /// Use the perceptual comparator (only for `compareImages`). Default false.
    pub perceptual: Option<bool>,
}

impl DiffOptions {
    fn pixel(&self) -> PixelOptions {
        let d = PixelOptions::default();
        PixelOptions {
            threshold: self.threshold.unwrap_or(d.threshold),
            include_aa: self.include_aa.unwrap_or(d.include_aa),
            alpha: self.alpha.unwrap_or(d.alpha),
            diff_mask: self.diff_mask.unwrap_or(d.diff_mask),
            ..d
        }
    }
}

/// Result of the pixel test on two RGBA buffers.
#[napi(object)]
pub struct PixelResult {
    /// Differing pixels (pixelmatch's return value).
    pub diff_pixels: f64,
    /// Differences recognised as anti-aliasing and not counted.
    pub antialiased_pixels: f64,
    /// The diff image when `diffImage` was asked for.
    pub diff_image: Option<Buffer>,
}

/// An RGBA8 image: `data.length === width * height * 4`.
#[napi(object)]
pub struct RawImage {
    pub data: Buffer,
    pub width: u32,
    pub height: u32,
}

/// The pixel layer's evidence for two images, plus the diff image when asked for.
#[napi(object)]
pub struct ImageEvidence {
    /// `diffPixels`, `totalPixels`, `diffPercent`, `match`, `sizeChanged`, `regions`, `shift`, `shape`, ….
    #[napi(ts_type = "Record<string, unknown>")]
    pub evidence: serde_json::Value,
    /// Diff image on the padded canvas (RGBA), when `diffImage` was asked for.
    pub diff_image: Option<RawImage>,
}

/// Runs `f`, turning an engine error or a panic into a JS error.
fn guarded<T>(f: impl FnOnce() -> sightline_core::Result<T>) -> Result<T> {
    sightline_core::catch_panic(f).map_err(|e| match e {
        sightline_core::Error::Internal(_) => Error::new(Status::GenericFailure, e.to_string()),
        e => Error::new(Status::InvalidArg, e.to_string()),
    })
}

fn pixels(baseline: &[u8], current: &[u8], width: u32, height: u32, options: &DiffOptions) -> Result<PixelResult> {
    guarded(|| {
        let mut out = options.diff_image.unwrap_or(false).then(|| vec![0u8; baseline.len()]);
        let d = pixel::compare_pixels(
            baseline,
            current,
            width as usize,
            height as usize,
            &options.pixel(),
            out.as_deref_mut(),
        )?;
        Ok((d, out))
    })
    .map(|(d, out)| PixelResult {
        diff_pixels: d.diff_pixels as f64,
        antialiased_pixels: d.aa_pixels as f64,
        diff_image: out.map(Buffer::from),
    })
}

/// pixelmatch-compatible pixel test on two RGBA buffers of `width × height` (exact counts and
/// diff image), on the calling thread.
#[napi]
pub fn compare_pixels_sync(
    baseline: Buffer,
    current: Buffer,
    width: u32,
    height: u32,
    options: Option<DiffOptions>,
) -> Result<PixelResult> {
    pixels(&baseline, &current, width, height, &options.unwrap_or_default())
}

pub struct ComparePixelsTask {
    baseline: Buffer,
    current: Buffer,
    width: u32,
    height: u32,
    options: DiffOptions,
}

#[napi]
impl Task for ComparePixelsTask {
    type Output = PixelResult;
    type JsValue = PixelResult;

    fn compute(&mut self) -> Result<PixelResult> {
        pixels(&self.baseline, &self.current, self.width, self.height, &self.options)
    }

    fn resolve(&mut self, _env: Env, output: PixelResult) -> Result<PixelResult> {
        Ok(output)
    }
}

/// Async twin of `comparePixelsSync`, computed off the event loop.
#[napi(ts_return_type = "Promise<PixelResult>")]
pub fn compare_pixels(
    baseline: Buffer,
    current: Buffer,
    width: u32,
    height: u32,
    options: Option<DiffOptions>,
) -> AsyncTask<ComparePixelsTask> {
    AsyncTask::new(ComparePixelsTask { baseline, current, width, height, options: options.unwrap_or_default() })
}

fn images(baseline: &RawImage, current: &RawImage, options: &DiffOptions) -> Result<ImageEvidence> {
    let (comparison, diff) = guarded(|| {
        let a = ImageRef::new(baseline.width, baseline.height, &baseline.data)?;
        let b = ImageRef::new(current.width, current.height, &current.data)?;
        let opts = CompareOptions {
            pixel: options.pixel(),
            comparator: if options.perceptual.unwrap_or(false) {
                Comparator::Perceptual
            } else {
                Comparator::Pixelmatch
            },
            ..CompareOptions::default()
        };
        compare::compare_images(a, b, &opts, options.diff_image.unwrap_or(false))
    })?;
    let evidence = serde_json::to_value(&comparison).map_err(|e| Error::from_reason(e.to_string()))?;
    let diff_image =
        diff.map(|img| RawImage { width: img.width(), height: img.height(), data: img.into_bytes().into() });
    Ok(ImageEvidence { evidence, diff_image })
}

/// Full pixel evidence for two images of any sizes: regions, page shift, shape.
#[napi]
pub fn compare_images_sync(
    baseline: RawImage,
    current: RawImage,
    options: Option<DiffOptions>,
) -> Result<ImageEvidence> {
    images(&baseline, &current, &options.unwrap_or_default())
}

pub struct CompareImagesTask {
    baseline: RawImage,
    current: RawImage,
    options: DiffOptions,
}

#[napi]
impl Task for CompareImagesTask {
    type Output = ImageEvidence;
    type JsValue = ImageEvidence;

    fn compute(&mut self) -> Result<ImageEvidence> {
        images(&self.baseline, &self.current, &self.options)
    }

    fn resolve(&mut self, _env: Env, output: ImageEvidence) -> Result<ImageEvidence> {
        Ok(output)
    }
}

/// Async twin of `compareImagesSync`, computed off the event loop.
#[napi(ts_return_type = "Promise<ImageEvidence>")]
pub fn compare_images(
    baseline: RawImage,
    current: RawImage,
    options: Option<DiffOptions>,
) -> AsyncTask<CompareImagesTask> {
    AsyncTask::new(CompareImagesTask { baseline, current, options: options.unwrap_or_default() })
}

/// An asset that failed while the page was captured.
#[napi(object)]
pub struct AssetFailure {
    /// `font`, `stylesheet` or `image`.
    pub kind: String,
    pub url: String,
    /// e.g. `HTTP 404`, `net::ERR_CONNECTION_REFUSED`, `decode failed`.
    pub detail: String,
}

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
    /// The capture as compared (masks painted), as a PNG compressed quickly (about the size of
    /// the browser's own PNG), when the test fails: the `-actual.png` attachment.
    pub actual_png: Option<Buffer>,
    /// The lines a failing test prints under its verdict: the top regions with their elements,
    /// then the restyled properties (`from → to`).
    pub explanation: Vec<String>,
}

fn capture_failures(input: &CaptureInput) -> sightline_core::Result<Vec<sightline_core::health::HealthReason>> {
    use sightline_core::health::{AssetKind, HealthReason};
    input
        .failures
        .iter()
        .flatten()
        .map(|f| {
            let kind = match f.kind.as_str() {
                "font" => AssetKind::Font,
                "stylesheet" => AssetKind::Stylesheet,
                "image" => AssetKind::Image,
                other => {
                    return Err(sightline_core::Error::InvalidInput(format!(
                        "failure kind {other:?} is not one of font, stylesheet, image"
                    )));
                }
            };
            Ok(HealthReason { kind, url: f.url.clone(), detail: f.detail.clone() })
        })
        .collect()
}

fn capture_data(input: &CaptureInput) -> sightline_core::Result<sightline_core::store::CaptureData> {
    Ok(sightline_core::store::CaptureData {
        dom: input.dom.clone(),
        failures: capture_failures(input)?,
        device_scale_factor: input.device_scale_factor.unwrap_or(1.0) as f32,
        project: Some(input.project.clone()),
        // Only a non-empty set: a call without options stores nothing.
        overrides: input.overrides.clone().filter(|o| o.as_object().is_some_and(|m| !m.is_empty())),
        playwright_defaults: playwright_defaults(input.playwright_defaults.as_ref())?.json().cloned(),
        test: input.test_file.as_ref().map(|file| {
            sightline_core::results::ledger::TestRef::new(
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
    use sightline_core::capture::{CaptureRequest, UpdateMode, record_capture};
    use sightline_core::store::ProjectStore;

    let outcome = guarded(|| {
        let settings = settings_of(&input.root, input.playwright_defaults.as_ref(), input.overrides.as_ref())?;
        let request = CaptureRequest {
            name: &input.name,
            project: &input.project,
            screenshot_png: &input.screenshot,
            data: capture_data(input)?,
            options: settings.snapshot_options(),
            update: UpdateMode::parse(input.update_snapshots.as_deref().unwrap_or("default"))?,
            write_missing_baselines: settings.config.write_missing_baselines,
            want_diff_png: true,
            provisional: input.provisional.unwrap_or(false),
            unsettled: input.unsettled_after.as_ref().map(|previous| sightline_core::capture::Unsettled {
                previous_png: previous,
                waited_ms: input.waited_ms.unwrap_or(0.0).max(0.0) as u64,
            }),
            owner: capture_owner(input),
        };
        record_capture(&ProjectStore::open(&input.root)?, request)
    })?;
    let failed = outcome.fails_test();
    Ok(CaptureResult {
        evidence: serde_json::to_value(&outcome.evidence).map_err(|e| Error::from_reason(e.to_string()))?,
        failed,
        baseline_written: outcome.baseline_written,
        would_write_baseline: outcome.would_write_baseline,
        diff_png: outcome.diff_png.map(Buffer::from),
        actual_png: outcome.current_png.map(Buffer::from),
        explanation: outcome.evidence.explanation(3, 5),
    })
}

fn store_only(input: &CaptureInput) -> Result<()> {
    use sightline_core::store::ProjectStore;
    guarded(|| {
        // Checked like a comparing call's, so a bad option fails the same way in every shard mode.
        let settings = settings_of(&input.root, input.playwright_defaults.as_ref(), input.overrides.as_ref())?;
        sightline_core::capture::store_capture_only(
            &ProjectStore::open(&input.root)?,
            &input.name,
            &input.project,
            &input.screenshot,
            capture_data(input)?,
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
    let overrides = Overrides::from_json(overrides.cloned().unwrap_or(serde_json::Value::Null))?;
    load_call_settings(std::path::Path::new(root), &playwright_defaults(playwright)?, &overrides)
}

fn playwright_defaults(value: Option<&serde_json::Value>) -> sightline_core::Result<PlaywrightDefaults> {
    PlaywrightDefaults::from_json(value.cloned().unwrap_or(serde_json::Value::Null))
}

/// Which snapshot of which test's attempt `earlierNewSnapshotSync` looks for.
#[napi(object)]
pub struct EarlierInput {
    /// Project root: `.sightline/` lives here.
    pub root: String,
    pub name: String,
    /// Playwright project name.
    pub project: String,
    /// The test run (as `compareCapture`'s `runId`).
    pub run_id: String,
    /// Playwright's `testInfo.testId` (the same on every retry).
    pub test_id: String,
}

/// The snapshot whose baseline `prefetchBaseline` reads.
#[napi(object)]
pub struct PrefetchInput {
    pub root: String,
    pub name: String,
    pub project: String,
}

/// Starts decoding the snapshot's baseline on a thread of its own while the page is prepared,
/// walked and shot; the next `compareCapture` of it takes the result if the file is unchanged.
/// Never throws: a missing or broken baseline is `compareCapture`'s to report.
#[napi]
pub fn prefetch_baseline(input: PrefetchInput) {
    let _ = guarded(|| {
        let store = sightline_core::store::ProjectStore::open(&input.root)?;
        sightline_core::prefetch::prefetch_baseline(&store, &input.name, &input.project);
        Ok(())
    });
}

/// A new snapshot an earlier attempt of the test reported.
#[napi(object)]
pub struct EarlierNew {
    #[napi(ts_type = "Record<string, any>")]
    pub evidence: serde_json::Value,
    /// The lines under the verdict, as `compareCapture` gives them.
    pub explanation: Vec<String>,
}

/// On a retry: the evidence of this snapshot when an earlier attempt of the same test in this
/// run found it only `new`, so the retry reports it again without shooting; `null` otherwise.
#[napi]
pub fn earlier_new_snapshot_sync(input: EarlierInput) -> Result<Option<EarlierNew>> {
    use sightline_core::capture::{CaptureOwner, earlier_new_snapshot};
    let owner = CaptureOwner { run_id: input.run_id, test_id: input.test_id, title: String::new(), location: None };
    let found = guarded(|| {
        earlier_new_snapshot(
            &sightline_core::store::ProjectStore::open(&input.root)?,
            &input.name,
            &input.project,
            &owner,
        )
    })?;
    found
        .map(|evidence| {
            Ok(EarlierNew {
                explanation: evidence.explanation(3, 5),
                evidence: serde_json::to_value(&evidence).map_err(|e| Error::from_reason(e.to_string()))?,
            })
        })
        .transpose()
}

/// What `snapshotName` needs: the call's name, or the test an unnamed call is named after.
#[napi(object)]
pub struct NameInput {
    /// Project root: its `baselinePath` decides whether a given name belongs to its spec file.
    pub root: Option<String>,
    /// The call's name: a string or Playwright's name array (nested folders); `.png` may end it.
    #[napi(ts_type = "string | string[]")]
    pub name: Option<serde_json::Value>,
    /// The spec file, relative to the Playwright config's folder.
    pub test_file: Option<String>,
    /// For an unnamed call: the describe titles and the test's title.
    pub title_path: Option<Vec<String>>,
    /// For an unnamed call: which of the test's unnamed calls this is, from 1.
    pub index: Option<u32>,
}

/// The snapshot name of one `toMatchVisual` call, checked by the engine: a given name (string
/// or array, `.png` dropped; in its spec file's folder under a `{testFile}/{name}` layout) or,
/// for an unnamed call, `<spec file>/<titles>[-n]`.
#[napi]
pub fn snapshot_name(input: NameInput) -> Result<String> {
    use sightline_core::store::{CallName, call_snapshot_name};
    guarded(|| {
        let layout = match &input.root {
            Some(root) => sightline_core::config::baseline_layout(std::path::Path::new(root))?,
            None => Default::default(),
        };
        let test_file = input.test_file.unwrap_or_default();
        let given = |parts| CallName::Given { parts, test_file: test_file.clone() };
        let name = match input.name {
            None | Some(serde_json::Value::Null) => CallName::Unnamed {
                test_file: test_file.clone(),
                title_path: input.title_path.unwrap_or_default(),
                index: input.index.unwrap_or(1),
            },
            Some(serde_json::Value::String(name)) => given(vec![name]),
            Some(serde_json::Value::Array(parts)) => given(
                parts
                    .into_iter()
                    .map(|part| match part {
                        serde_json::Value::String(part) => Ok(part),
                        other => Err(sightline_core::Error::InvalidInput(format!(
                            "snapshot name array holds {other}; every part must be a string, e.g. [\"cards\", \"lamp\"]"
                        ))),
                    })
                    .collect::<sightline_core::Result<_>>()?,
            ),
            Some(other) => {
                return Err(sightline_core::Error::InvalidInput(format!(
                    "snapshot name {other} must be a string or an array of strings, e.g. \"checkout-page\" or [\"cards\", \"lamp\"]"
                )));
            }
        };
        call_snapshot_name(&name, &layout)
    })
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
#[napi(
    ts_return_type = "{ reportDir: string; threshold: number; antialiasing: boolean; maxDiffPixels?: number; maxDiffPixelRatio?: number; noiseAutoPass: boolean; fullPage: boolean; mask: string[]; ignoreSelectors: string[]; maskColor: string; mcpApprovalPrompt: boolean; styleProperties: string[]; writeMissingBaselines: boolean; shardMode: 'compare' | 'capture-only'; animations: 'disabled' | 'allow'; caret: 'hide' | 'initial'; scale: 'css' | 'device'; omitBackground: boolean; stylePath?: string[]; waitForImages: boolean; waitForAriaBusy: boolean; hideScrollbars: boolean; clearHover: boolean; clip?: { x: number; y: number; width: number; height: number }; timeout?: number; perceptual: boolean }"
)]
pub fn resolve_settings(input: SettingsInput) -> Result<serde_json::Value> {
    let settings = guarded(|| settings_of(&input.root, input.playwright_defaults.as_ref(), input.overrides.as_ref()))?;
    let mut value = serde_json::to_value(&settings).map_err(|e| Error::from_reason(e.to_string()))?;
    // The capture needs the list even when the config leaves it to the default.
    value["styleProperties"] = settings.style_properties().into();
    Ok(value)
}

/// A `capture-only` shard: stores the capture in `.sightline/temp` and compares nothing; the
/// merge job compares (`sightline compare --captures`).
#[napi]
pub fn store_capture_sync(input: CaptureInput) -> Result<()> {
    store_only(&input)
}

pub struct StoreCaptureTask {
    input: CaptureInput,
}

#[napi]
impl Task for StoreCaptureTask {
    type Output = ();
    type JsValue = ();

    fn compute(&mut self) -> Result<()> {
        store_only(&self.input)
    }

    fn resolve(&mut self, _env: Env, _output: ()) -> Result<()> {
        Ok(())
    }
}

/// Async twin of `storeCaptureSync`.
#[napi(ts_return_type = "Promise<void>")]
pub fn store_capture(input: CaptureInput) -> AsyncTask<StoreCaptureTask> {
    AsyncTask::new(StoreCaptureTask { input })
}

/// Records a capture in `.sightline/temp`, compares it with the approved baseline (pixels,
/// DOM, styles, health) and returns the evidence, on the calling thread.
#[napi]
pub fn compare_capture_sync(input: CaptureInput) -> Result<CaptureResult> {
    record(&input)
}

pub struct CompareCaptureTask {
    input: CaptureInput,
}

#[napi]
impl Task for CompareCaptureTask {
    type Output = CaptureResult;
    type JsValue = CaptureResult;

    fn compute(&mut self) -> Result<CaptureResult> {
        record(&self.input)
    }

    fn resolve(&mut self, _env: Env, output: CaptureResult) -> Result<CaptureResult> {
        Ok(output)
    }
}

/// Async twin of `compareCaptureSync`: the Playwright worker's event loop stays free.
#[napi(ts_return_type = "Promise<CaptureResult>")]
pub fn compare_capture(input: CaptureInput) -> AsyncTask<CompareCaptureTask> {
    AsyncTask::new(CompareCaptureTask { input })
}

/// What `writeResults` needs.
#[napi(object)]
pub struct ResultsInput {
    /// Project root: `.sightline/` lives here.
    pub root: String,
    /// Where results.json and the images go, relative to the root. Default the config's `reportDir`.
    pub report_dir: Option<String>,
    /// `{current, total}` under `--shard`.
    #[napi(ts_type = "{ current: number; total: number } | null")]
    pub shard: Option<serde_json::Value>,
    /// Part of the suite was left out (file arguments, `-g`, `--project`, `test.only`): recorded
    /// in results.json; which baselines are missing is decided from the run's ledger
    /// (`recordRunSync`).
    pub filtered: Option<bool>,
}

/// Gathers this run's evidence from `.sightline/temp` into `<reportDir>/results.json` plus the
/// baseline / current / diff PNGs of changed and new snapshots (the diff image is the one the
/// deciding comparison drew); returns the summary counts, the same counts in words (`counts`, as
/// `sightline compare` says them), the line that sends a person to the review page when there is
/// something to approve (`reviewHint`, `null` otherwise and for a shard) and, for each baseline an
/// update run wrote, a line naming it and what it was (`writtenBaselines`).
#[napi(
    ts_return_type = "{ total: number; passed: number; changed: number; new: number; missing: number; autoPassed: number; written: number; counts: string; reviewHint: string | null; writtenBaselines: string[] }"
)]
pub fn write_results_sync(input: ResultsInput) -> Result<serde_json::Value> {
    use sightline_core::results::{RunInfo, write_results};
    use sightline_core::store::ProjectStore;

    let store = guarded(|| ProjectStore::open(&input.root))?;
    let results = guarded(|| {
        let settings = settings_of(&input.root, None, None)?;
        let config = settings.config.clone();
        let run =
            RunInfo {
                mode: "compare".into(),
                shard: input.shard.clone().filter(|s| !s.is_null()).map(serde_json::from_value).transpose().map_err(
                    |e| sightline_core::Error::InvalidInput(format!("shard: {e}; expected {{current, total}}")),
                )?,
                root: input.root.clone(),
                config,
                filtered: input.filtered.unwrap_or(false),
            };
        let report_dir = input.report_dir.as_deref().unwrap_or(&settings.config.report_dir);
        let results = write_results(&store, std::path::Path::new(report_dir), &run)?;
        sightline_core::report::write_report(store.root(), std::path::Path::new(report_dir), &results)?;
        Ok(results)
    })?;
    let written = guarded(|| results.written_baselines(&store))?;
    let mut summary = serde_json::to_value(&results.summary).map_err(|e| Error::from_reason(e.to_string()))?;
    summary["counts"] = results.summary.counts().into();
    summary["reviewHint"] = results.review_hint().into();
    summary["writtenBaselines"] = written.into();
    Ok(summary)
}

/// One test of the run, as the reporter saw it.
#[napi(object)]
pub struct LedgerTestInput {
    /// The Playwright project name.
    pub project: String,
    /// The spec file (absolute, or relative to the root).
    pub file: String,
    /// The describe titles and the test's title.
    pub title: Vec<String>,
    pub line: Option<u32>,
    /// The test ran its body to the end (passed, or failed only on visual assertions).
    pub finished: bool,
}

/// The tests a run selected and how it selected them.
#[napi(object)]
pub struct LedgerInput {
    /// Project root: `.sightline/` lives here.
    pub root: String,
    /// The folder the spec files are relative to (the Playwright config's `rootDir`).
    pub root_dir: Option<String>,
    /// Tests were selected within files (`-g`, `--grep-invert`, `test.only`, `file:line`,
    /// `--last-failed`, `--only-changed`, a test list).
    pub narrowed: bool,
    /// Nothing was left out: no file arguments, every project ran, not narrowed, no project
    /// skipped visual assertions.
    pub complete: bool,
    pub tests: Vec<LedgerTestInput>,
}

/// Leaves the run's ledger in `.sightline/temp/run.json` (before `writeResultsSync` or
/// `finishShardSync`): a baseline is missing only when its test ran to its end without capturing
/// it, or is gone from the suite.
#[napi]
pub fn record_run_sync(input: LedgerInput) -> Result<()> {
    use sightline_core::results::ledger::{LEDGER_VERSION, LedgerTest, RunLedger, TestRef, write_ledger};
    let root = std::path::Path::new(&input.root);
    let ledger = RunLedger {
        version: LEDGER_VERSION,
        root_dir: input.root_dir.clone(),
        narrowed: input.narrowed,
        complete: input.complete,
        tests: input
            .tests
            .into_iter()
            .map(|t| LedgerTest {
                project: t.project,
                test: TestRef::new(root, &t.file, t.title, t.line),
                finished: t.finished,
            })
            .collect(),
    };
    guarded(|| write_ledger(&sightline_core::store::ProjectStore::open(root)?, &ledger))
}

/// Starts a run: clears what an earlier run left in `<root>/.sightline/temp` (captures, evidence,
/// diff images, shard manifest). Baselines are never touched.
#[napi]
pub fn clear_run_sync(root: String) -> Result<()> {
    // Only `.sightline/temp`, which no layout moves: a bad config file is reported by the calls.
    guarded(|| sightline_core::store::ProjectStore::new(&root).clear_run())
}

/// Which shard a run was, at its end.
#[napi(object)]
pub struct ShardInput {
    /// Project root: `.sightline/` lives here.
    pub root: String,
    /// Playwright's `config.shard.current`.
    pub current: u32,
    /// Playwright's `config.shard.total`.
    pub total: u32,
    /// The config's `shardMode`: `compare` or `capture-only`.
    pub mode: String,
}

/// The end of a shard's run: leaves `.sightline/temp` as the merge job needs it (a comparing
/// shard drops the captures of passed snapshots) and writes `shard.json`; returns the manifest.
#[napi(ts_return_type = "{ current: number; total: number; mode: 'compare' | 'capture-only'; captures: number }")]
pub fn finish_shard_sync(input: ShardInput) -> Result<serde_json::Value> {
    let manifest = guarded(|| {
        let mode = serde_json::from_value(serde_json::Value::String(input.mode.clone())).map_err(|_| {
            sightline_core::Error::InvalidInput(format!(
                "shard mode {:?} is not one of compare, capture-only",
                input.mode
            ))
        })?;
        let store = sightline_core::store::ProjectStore::open(&input.root)?;
        sightline_core::batch::finish_shard(&store, input.current, input.total, mode)
    })?;
    serde_json::to_value(manifest).map_err(|e| Error::from_reason(e.to_string()))
}

/// Whether two consecutive screenshots agree once what `mask` hides and `ignoreSelectors` leaves
/// out is set aside (the DOM record says where), as toHaveScreenshot's masked shots agree: the
/// matcher's settling loop asks this when the two PNGs' bytes differ.
#[napi]
pub fn shots_agree_sync(previous: Buffer, shot: Buffer, dom: String) -> Result<bool> {
    guarded(|| sightline_core::stability::screenshots_agree(&previous, &shot, &dom))
}

/// Where a walk of the page after its shot (`now`) puts a masked or ignored element other than
/// the capture's record (`recorded`) does: the first that moved, came or went, in words, or
/// `null` when all are where the record says. The matcher walks and shoots again when it is
/// not null, so a mask measured before the page moved is never painted beside what it hides.
#[napi]
pub fn set_aside_moved_sync(recorded: String, now: String) -> Result<Option<String>> {
    guarded(|| sightline_core::stability::set_aside_moved_json(&recorded, &now))
}

pub struct ShotsAgreeTask {
    previous: Buffer,
    shot: Buffer,
    dom: String,
}

#[napi]
impl Task for ShotsAgreeTask {
    type Output = bool;
    type JsValue = bool;

    fn compute(&mut self) -> Result<bool> {
        guarded(|| sightline_core::stability::screenshots_agree(&self.previous, &self.shot, &self.dom))
    }

    fn resolve(&mut self, _env: Env, output: bool) -> Result<bool> {
        Ok(output)
    }
}

/// Async twin of `shotsAgreeSync`: both PNGs are decoded off the event loop.
#[napi(ts_return_type = "Promise<boolean>")]
pub fn shots_agree(previous: Buffer, shot: Buffer, dom: String) -> AsyncTask<ShotsAgreeTask> {
    AsyncTask::new(ShotsAgreeTask { previous, shot, dom })
}

/// How many image comparisons the engine has run in this process (the worker): a failing
/// snapshot costs one, and a second only when the page changed between the stability shots.
/// The bench and the matcher tests read it to prove that.
#[napi]
pub fn comparisons_made() -> f64 {
    compare::comparisons_made() as f64
}

/// The approved baseline of `name` for `project`: its size and the capture data stored with it
/// (DOM record, asset failures, device scale factor), or `null` when there is none yet.
#[napi(
    ts_return_type = "{ width: number; height: number; data: { version: number; deviceScaleFactor: number; failures: unknown[]; dom: Record<string, any> | null } } | null"
)]
pub fn read_baseline_sync(root: String, name: String, project: String) -> Result<Option<serde_json::Value>> {
    use sightline_core::store::ProjectStore;
    let baseline = guarded(|| ProjectStore::open(&root)?.read_baseline(&name, &project))?;
    baseline
        .map(|b| -> Result<serde_json::Value> {
            let json = guarded(|| b.data.to_json())?;
            let data: serde_json::Value =
                serde_json::from_slice(&json).map_err(|e| Error::from_reason(e.to_string()))?;
            Ok(serde_json::json!({ "width": b.image.width(), "height": b.image.height(), "data": data }))
        })
        .transpose()
}
