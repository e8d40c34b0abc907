//! The Node addon: Sightline's engine called in-process from the Playwright worker. Thin on
//! purpose — it converts JS values to core types and back (`convert`); every decision is in
//! `sightline-core`. A `toMatchVisual` call is one [`session::CaptureSession`]. Each heavy export
//! is async (runs on the libuv pool, the worker's event loop stays free) with a `Sync` twin that
//! shares its body (`work`); a Rust panic becomes a JS error instead of killing the worker.

pub mod capture;
pub mod convert;
pub mod run;
pub mod session;
pub mod work;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use sightline_core::compare::{self, Comparator, CompareOptions};
use sightline_core::image::ImageRef;
use sightline_core::pixel::{self, PixelOptions};
use sightline_core::store::ProjectStore;

use crate::work::{Work, guarded, to_json};

/// The addon runs in a test worker, which compares page after page: the pixel buffers of
/// dropped images are kept for the next comparison instead of being paged in anew (the CLI and
/// the MCP server keep none).
#[napi_derive::module_init]
fn keep_pixel_buffers() {
    sightline_core::image::keep_spare_pixel_buffers();
}

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

/// Async twin of `comparePixelsSync`, computed off the event loop.
#[napi(ts_return_type = "Promise<PixelResult>")]
pub fn compare_pixels(
    baseline: Buffer,
    current: Buffer,
    width: u32,
    height: u32,
    options: Option<DiffOptions>,
) -> AsyncTask<Work<PixelResult>> {
    Work::run(move || pixels(&baseline, &current, width, height, &options.unwrap_or_default()))
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
    let evidence = to_json(&comparison)?;
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

/// Async twin of `compareImagesSync`, computed off the event loop.
#[napi(ts_return_type = "Promise<ImageEvidence>")]
pub fn compare_images(
    baseline: RawImage,
    current: RawImage,
    options: Option<DiffOptions>,
) -> AsyncTask<Work<ImageEvidence>> {
    Work::run(move || images(&baseline, &current, &options.unwrap_or_default()))
}

/// How many image comparisons the engine has run in this process (the worker): a failing
/// snapshot costs one, and a second only when the page changed between the stability shots.
/// The bench and the matcher tests read it to prove that.
#[napi]
pub fn comparisons_made() -> f64 {
    compare::comparisons_made() as f64
}

/// Whether this process keeps the pixel buffers of dropped images for the next comparison: the
/// addon switches it on when it loads (the test worker compares one page after another). The
/// addon tests read it to prove that.
#[napi]
pub fn keeps_spare_pixel_buffers() -> bool {
    sightline_core::image::keeps_spare_pixel_buffers()
}

/// The approved baseline of `name` for `project`: its size and the capture data stored with it
/// (DOM record, asset failures, device scale factor), or `null` when there is none yet.
#[napi(
    ts_return_type = "{ width: number; height: number; data: { version: number; deviceScaleFactor: number; failures: unknown[]; dom: Record<string, any> | null } } | null"
)]
pub fn read_baseline_sync(root: String, name: String, project: String) -> Result<Option<serde_json::Value>> {
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
