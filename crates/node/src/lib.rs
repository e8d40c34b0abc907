//! The Node addon: Sightline's engine called in-process from the Playwright worker. Thin on
//! purpose — it converts JS values to core types and back; every decision is in `sightline-core`.
//! Each heavy export is async (runs on the libuv pool, the worker's event loop stays free) with
//! a `Sync` twin; a Rust panic becomes a JS error instead of killing the worker.

use std::panic::{AssertUnwindSafe, catch_unwind};

use napi::bindgen_prelude::*;
use napi_derive::napi;
use sightline_core::compare::{self, Comparator, CompareOptions};
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
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(Error::new(Status::InvalidArg, e.to_string())),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Error::new(Status::GenericFailure, format!("sightline internal error: {what}; please report it")))
        }
    }
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
