//! One screenshot against another: the pixel layer of the evidence. Pads to one canvas, runs the
//! chosen per-pixel comparator, finds a page shift, clusters regions and names the shape.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::canvas::pad_to;
use crate::error::Result;
use crate::image::{ImageRef, RgbaImage};
use crate::perceptual::{PerceptualOptions, compare_perceptual};
use crate::pixel::{DiffMask, PixelDiff, PixelOptions, buffers_equal, compare_pixels, draw_gray_rows};
use crate::regions::{Classification, Region, RegionOptions, find_regions};
use crate::shape::{Shape, classify_shape};
use crate::shift::{PageShift, detect_shift};

mod marks;
pub use marks::{DiffImage, Marks, compare_images_into_png, compare_images_marking};

/// Which per-pixel test decides that a pixel differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Comparator {
    /// pixelmatch 7.2's YIQ test with anti-aliasing detection: exact, familiar counts.
    #[default]
    Pixelmatch,
    /// Perceptual test for real screenshots: CIE94 colour distance with a just-noticeable
    /// difference of 1, and anti-aliasing / sub-pixel text noise recognised by local structure.
    Perceptual,
}

/// Options of [`compare_images`].
#[derive(Debug, Clone, Default)]
pub struct CompareOptions {
    /// The pixelmatch-compatible test's options (also the tolerance for shift alignment).
    pub pixel: PixelOptions,
    pub comparator: Comparator,
    pub regions: RegionOptions,
    /// Page shifts the DOM suggests; see [`detect_shift`].
    pub shift_hints: Vec<PageShift>,
}

/// Width and height of an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

impl Size {
    pub fn of(image: ImageRef<'_>) -> Self {
        Self { width: image.width(), height: image.height() }
    }
}

/// The pixel layer's evidence for one pair of images.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageComparison {
    /// Differing pixels on the padded canvas, as the plain pixel test counts them.
    pub diff_pixels: u64,
    /// Pixels of the padded canvas.
    pub total_pixels: u64,
    /// 100 · diffPixels / totalPixels.
    pub diff_percent: f64,
    /// Differences that were recognised as anti-aliasing and not counted.
    pub antialiased_pixels: u64,
    /// True when no pixel differs.
    #[serde(rename = "match")]
    pub matched: bool,
    pub size_changed: bool,
    pub baseline_size: Size,
    pub current_size: Size,
    pub comparator: Comparator,
    /// Boxes of nearby differing pixels; specks too small to matter form none.
    pub regions: Vec<Region>,
    /// Rows inserted or removed, pushing the content below them.
    pub shift: Option<PageShift>,
    /// What still differs once the shift is undone (equals diffPixels without a shift).
    pub diff_pixels_after_shift: u64,
    /// How the change is spread; `None` when nothing differs.
    pub shape: Option<Shape>,
    /// Boxes left out of the comparison (`ignoreSelectors`' elements and `ignoreRegions`, of
    /// either side) as `[x, y, width, height]` in image pixels, for the report to hatch.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<[u32; 4]>,
}

/// How many times [`compare_images`] ran in this process: a failing snapshot must cost one
/// comparison (issue 14), and tests and the bench read this to prove it.
static COMPARISONS: AtomicU64 = AtomicU64::new(0);

/// The number of [`compare_images`] calls so far in this process.
pub fn comparisons_made() -> u64 {
    COMPARISONS.load(Ordering::Relaxed)
}

/// When [`compare_images_drawing`] draws the diff image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffDrawing {
    Never,
    Always,
    /// Only when some pixel differs: identical images (the common passing case) allocate and
    /// draw nothing; their diff image would only be the faded baseline ([`faded_image`]).
    WhenDifferent,
}

/// Compares `baseline` with `current`. Returns the evidence and, if `diff_image` is set, the
/// diff image (padded canvas, the comparator's colours).
pub fn compare_images(
    baseline: ImageRef<'_>,
    current: ImageRef<'_>,
    options: &CompareOptions,
    diff_image: bool,
) -> Result<(ImageComparison, Option<RgbaImage>)> {
    let drawing = if diff_image { DiffDrawing::Always } else { DiffDrawing::Never };
    compare_images_drawing(baseline, current, options, drawing)
}

/// [`compare_images`], drawing the diff image as `drawing` says.
pub fn compare_images_drawing(
    baseline: ImageRef<'_>,
    current: ImageRef<'_>,
    options: &CompareOptions,
    drawing: DiffDrawing,
) -> Result<(ImageComparison, Option<RgbaImage>)> {
    COMPARISONS.fetch_add(1, Ordering::Relaxed);
    let width = baseline.width().max(current.width());
    let height = baseline.height().max(current.height());
    let size_changed = baseline.width() != current.width() || baseline.height() != current.height();
    let (w, h) = (width as usize, height as usize);
    // The common passing case, decided by one memcmp before any diff image is allocated.
    let identical = drawing == DiffDrawing::WhenDifferent
        && !size_changed
        && buffers_equal(baseline.as_bytes(), current.as_bytes());
    let draw = match drawing {
        DiffDrawing::Never => false,
        DiffDrawing::Always => true,
        DiffDrawing::WhenDifferent => !identical,
    };
    let mut output = if draw { Some(RgbaImage::transparent(width, height)?) } else { None };
    let mut diff = if identical {
        PixelDiff { diff_pixels: 0, aa_pixels: 0, mask: DiffMask::new(w, h) }
    } else if !size_changed {
        run_comparator(baseline, current, options, output.as_mut().map(|o| o.as_bytes_mut()))?
    } else if baseline.width() == current.width() {
        // Only the height changed (the usual full-page case): compare the rows both images
        // have in place, no padded copies; the rows below are padding.
        let overlap = baseline.height().min(current.height());
        let out = output.as_mut().map(|o| &mut o.as_bytes_mut()[..w * overlap as usize * 4]);
        let mut diff = run_comparator(baseline.rows(0, overlap), current.rows(0, overlap), options, out)?;
        diff.mask.extend_to_height(h);
        diff
    } else {
        let (a, b) = (pad_to(baseline, width, height)?, pad_to(current, width, height)?);
        run_comparator(a.view(), b.view(), options, output.as_mut().map(|o| o.as_bytes_mut()))?
    };
    if size_changed {
        mark_padding(&mut diff, baseline, current, options, output.as_mut());
    }

    let comparison = evidence(baseline, current, options, &diff)?;
    Ok((comparison, output))
}

/// The evidence [`compare_images`] gives for two images known to be equal without looking at
/// their pixels (byte-identical files, each checked by [`crate::decode::check_image`]; a shot
/// whose bytes key as its baseline's shot).
pub fn equal_images(width: u32, height: u32, options: &CompareOptions) -> ImageComparison {
    // Not counted in [`comparisons_made`]: no pixel was compared.
    let size = Size { width, height };
    ImageComparison {
        diff_pixels: 0,
        total_pixels: u64::from(width) * u64::from(height),
        diff_percent: 0.0,
        antialiased_pixels: 0,
        matched: true,
        size_changed: false,
        baseline_size: size,
        current_size: size,
        comparator: options.comparator,
        regions: Vec::new(),
        shift: None,
        diff_pixels_after_shift: 0,
        shape: None,
        ignored: Vec::new(),
    }
}

/// The rest of the evidence once the pixel test has run: the page shift and what still differs
/// once it is undone, the regions, the shape and the counts.
fn evidence(
    baseline: ImageRef<'_>,
    current: ImageRef<'_>,
    options: &CompareOptions,
    diff: &PixelDiff,
) -> Result<ImageComparison> {
    let moved = page_shift(baseline, current, options, diff)?;
    Ok(summarise(Size::of(baseline), Size::of(current), options, diff, moved))
}

/// The page shift, if one explains the difference, with what still differs once it is undone.
/// The only part of the evidence after the pixel test that looks at pixels.
fn page_shift(
    baseline: ImageRef<'_>,
    current: ImageRef<'_>,
    options: &CompareOptions,
    diff: &PixelDiff,
) -> Result<Option<(PageShift, DiffMask)>> {
    if diff.diff_pixels == 0 {
        return Ok(None);
    }
    shift_and_what_still_differs(baseline, current, options)
}

/// The page shift the pixels show, if any, with what still differs once it is undone.
fn shift_and_what_still_differs(
    baseline: ImageRef<'_>,
    current: ImageRef<'_>,
    options: &CompareOptions,
) -> Result<Option<(PageShift, DiffMask)>> {
    let Some(found) = detect_shift(baseline, current, options.pixel.max_delta(), &options.shift_hints) else {
        return Ok(None);
    };
    let height = baseline.height().max(current.height()) as usize;
    let after = compare_aligned(baseline, current, &found, options, height, None)?;
    Ok(Some((found, after)))
}

/// The evidence from the masks alone: the regions (moved content apart from changed content
/// when `moved` holds a page shift and what still differs once it is undone), the shape and the
/// counts.
fn summarise(
    baseline_size: Size,
    current_size: Size,
    options: &CompareOptions,
    diff: &PixelDiff,
    moved: Option<(PageShift, DiffMask)>,
) -> ImageComparison {
    let size_changed = baseline_size != current_size;
    let width = baseline_size.width.max(current_size.width);
    let height = baseline_size.height.max(current_size.height);
    let (shift, change_mask) = moved.unzip();
    let diff_pixels_after_shift = change_mask.as_ref().map_or(diff.diff_pixels, |m| m.count());
    let mut regions = if diff.diff_pixels == 0 {
        Vec::new()
    } else {
        find_regions(change_mask.as_ref().unwrap_or(&diff.mask), Classification::Change, &options.regions)
    };
    if let Some(change_mask) = &change_mask {
        let moved = diff.mask.minus(change_mask);
        regions.extend(find_regions(&moved, Classification::Shift, &options.regions));
        // Report the plain test's count for every region, whatever layer found it.
        for r in &mut regions {
            r.diff_pixels =
                diff.mask.count_in(r.x as usize, r.y as usize, (r.x + r.width) as usize, (r.y + r.height) as usize);
            r.diff_percent = 100.0 * r.diff_pixels as f64 / (r.width as f64 * r.height as f64);
        }
        regions.retain(|r| r.diff_pixels > 0);
        regions.sort_by_key(|r| (r.y, r.x));
    }

    let total_pixels = u64::from(width) * u64::from(height);
    let diff_percent = if total_pixels == 0 { 0.0 } else { 100.0 * diff.diff_pixels as f64 / total_pixels as f64 };
    let shape = (diff.diff_pixels > 0).then(|| classify_shape(&regions, diff_percent, total_pixels));
    ImageComparison {
        diff_pixels: diff.diff_pixels,
        total_pixels,
        diff_percent,
        antialiased_pixels: diff.aa_pixels,
        matched: diff.diff_pixels == 0,
        size_changed,
        baseline_size,
        current_size,
        comparator: options.comparator,
        regions,
        shift,
        diff_pixels_after_shift,
        shape,
        ignored: Vec::new(),
    }
}

/// The diff image of two identical images: the baseline faded to grey, as the comparators draw
/// unchanged pixels.
pub fn faded_image(baseline: ImageRef<'_>, options: &CompareOptions) -> Result<RgbaImage> {
    let mut out = RgbaImage::transparent(baseline.width(), baseline.height())?;
    // A diff mask shows differing pixels only, on a transparent background.
    if !options.pixel.diff_mask {
        draw_gray_rows(baseline.as_bytes(), out.as_bytes_mut(), options.pixel.alpha);
    }
    Ok(out)
}

fn run_comparator(
    a: ImageRef<'_>,
    b: ImageRef<'_>,
    options: &CompareOptions,
    output: Option<&mut [u8]>,
) -> Result<PixelDiff> {
    let (w, h) = (a.width() as usize, a.height() as usize);
    match options.comparator {
        Comparator::Pixelmatch => compare_pixels(a.as_bytes(), b.as_bytes(), w, h, &options.pixel, output),
        Comparator::Perceptual => {
            let popts = PerceptualOptions { alpha: options.pixel.alpha, ..PerceptualOptions::default() };
            compare_perceptual(a.as_bytes(), b.as_bytes(), w, h, &popts, output)
        }
    }
}

/// What still differs once `shift` is undone, as a mask over the canvas (`height` rows, the
/// images' common width). The rows above the shift and the moved rows below it are two
/// contiguous pairs of row ranges, compared in place; canvas rows with no baseline counterpart
/// (the inserted band, rows past either image's end) differ by definition. With `output` (a
/// canvas-sized image), the comparator draws the compared rows and the rest is painted in the
/// diff colour: the aligned diff a person sees is this very mask.
fn compare_aligned(
    baseline: ImageRef<'_>,
    current: ImageRef<'_>,
    shift: &PageShift,
    options: &CompareOptions,
    height: usize,
    mut output: Option<&mut RgbaImage>,
) -> Result<DiffMask> {
    let (ha, hb) = (baseline.height(), current.height());
    let below = shift.below_y;
    let (moved_current, moved_baseline) =
        if shift.dy > 0 { (below + shift.dy as u32, below) } else { (below, below + shift.dy.unsigned_abs()) };
    let moved_rows = hb.saturating_sub(moved_current).min(ha.saturating_sub(moved_baseline));
    let above_rows = below.min(ha).min(hb);
    // (first current row, first baseline row, rows)
    let segments = [(0, 0, above_rows), (moved_current, moved_baseline, moved_rows)];

    let width = baseline.width() as usize;
    let row_bytes = width * 4;
    let mut mask = DiffMask::new(width, height);
    let mut explained = vec![false; height];
    for (cur, base, rows) in segments {
        if rows == 0 {
            continue;
        }
        let (first, end) = (cur as usize, (cur + rows) as usize);
        let drawn = output.as_deref_mut().map(|o| &mut o.as_bytes_mut()[first * row_bytes..end * row_bytes]);
        let d = run_comparator(baseline.rows(base, base + rows), current.rows(cur, cur + rows), options, drawn)?;
        mask.or_shifted(&d.mask, first);
        explained[first..end].fill(true);
    }
    let [r, g, b] = options.pixel.diff_color;
    for (y, _) in explained.iter().enumerate().filter(|(_, e)| !**e) {
        mask.set_rows(y, y + 1);
        if let Some(out) = output.as_deref_mut() {
            for pixel in out.as_bytes_mut()[y * row_bytes..(y + 1) * row_bytes].chunks_exact_mut(4) {
                pixel.copy_from_slice(&[r, g, b, 255]);
            }
        }
    }
    Ok(mask)
}

/// The diff of `current` against the baseline moved by `shift` ([`aligned_diff`]).
#[derive(Debug, Clone)]
pub struct AlignedDiff {
    /// The canvas (the taller image's height): unchanged and moved pixels faded, what still
    /// differs in the diff colour.
    pub image: RgbaImage,
    /// Pixels that still differ once the shift is undone: exactly
    /// [`ImageComparison::diff_pixels_after_shift`].
    pub diff_pixels: u64,
}

/// Draws what really changed under a page shift: each row of `current` is compared with the
/// baseline row the shift says it shows ([`PageShift::baseline_row`]), so content that only
/// moved is faded like unchanged pixels and only rows with no counterpart (and any real change)
/// are in the diff colour. A person reviewing a shifted page sees one red band instead of
/// everything below it: the inserted rows for a shift that adds rows; for one that removes rows,
/// the rows the shorter page no longer reaches at the canvas's foot, as the plain diff pads a
/// shorter image.
pub fn aligned_diff(
    baseline: ImageRef<'_>,
    current: ImageRef<'_>,
    shift: &PageShift,
    options: &CompareOptions,
) -> Result<AlignedDiff> {
    if baseline.width() != current.width() {
        return Err(crate::Error::InvalidInput(format!(
            "an aligned diff needs images of one width (baseline {} px, current {} px): a page shift only moves rows",
            baseline.width(),
            current.width()
        )));
    }
    let height = baseline.height().max(current.height());
    let mut image = RgbaImage::transparent(current.width(), height)?;
    let mask = compare_aligned(baseline, current, shift, options, height as usize, Some(&mut image))?;
    Ok(AlignedDiff { image, diff_pixels: mask.count() })
}

/// Counts every canvas pixel outside either image as different and paints it.
fn mark_padding(
    diff: &mut PixelDiff,
    a: ImageRef<'_>,
    b: ImageRef<'_>,
    options: &CompareOptions,
    mut output: Option<&mut RgbaImage>,
) {
    let (w, h) = (diff.mask.width, diff.mask.height);
    let inside_width = a.width().min(b.width()) as usize;
    let inside_height = a.height().min(b.height()) as usize;
    let [r, g, bl] = options.pixel.diff_color;
    for y in 0..h {
        // Rows inside both images only have padding to the right of the narrower one.
        for x in if y < inside_height { inside_width } else { 0 }..w {
            if !diff.mask.get(x, y) {
                diff.mask.set(x, y);
                diff.diff_pixels += 1;
            }
            if let Some(out) = output.as_deref_mut() {
                let i = (y * w + x) * 4;
                out.as_bytes_mut()[i..i + 4].copy_from_slice(&[r, g, bl, 255]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page of distinct rows: white, with one black pixel whose place differs on every row
    /// (one-colour rows would not vote for a shift).
    fn page(width: u32, height: u32) -> RgbaImage {
        let mut image = RgbaImage::filled(width, height, [255, 255, 255, 255]).unwrap();
        for y in 0..height as usize {
            let i = (y * width as usize + (y * 7) % width as usize) * 4;
            image.as_bytes_mut()[i..i + 4].copy_from_slice(&[0, 0, 0, 255]);
        }
        image
    }

    #[test]
    fn equal_images_is_what_comparing_an_image_with_itself_gives() {
        let image = page(64, 40);
        for comparator in [Comparator::Pixelmatch, Comparator::Perceptual] {
            let options = CompareOptions { comparator, ..Default::default() };
            let (compared, _) = compare_images(image.view(), image.view(), &options, false).unwrap();
            let json = |c: &ImageComparison| serde_json::to_value(c).unwrap();
            assert_eq!(json(&equal_images(64, 40, &options)), json(&compared), "{comparator:?}");
        }
    }

    #[test]
    fn diff_png_drawn_as_encoded_is_the_diff_image_and_the_comparison() {
        // Three cores whatever the machine has: the image is encoded in three parts.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let mut baseline = page(96, 500);
        let row = 96 * 4;
        for y in 0..500 {
            // A second mark whose colour differs on every row: no two rows alike.
            let at = y * row + (y * 37 % 96) * 4;
            baseline.as_bytes_mut()[at..at + 4].copy_from_slice(&[(y % 256) as u8, (y / 256 * 90) as u8, 0, 255]);
        }
        // Rows inserted at y=100 (a shift), a black square with a grey edge (anti-aliasing), and
        // a half-transparent change across the second part's first band.
        let mut data = baseline.as_bytes()[..100 * row].to_vec();
        data.extend([0, 0, 255, 255].repeat(5 * 96));
        data.extend_from_slice(&baseline.as_bytes()[100 * row..]);
        for y in 20..30 {
            data[y * row + 39 * 4..y * row + 40 * 4].copy_from_slice(&[160, 160, 160, 255]);
            data[y * row + 40 * 4..y * row + 50 * 4].copy_from_slice(&[0, 0, 0, 255].repeat(10));
        }
        for y in 165..175 {
            data[y * row..y * row + 96 * 4].copy_from_slice(&[0, 160, 0, 128].repeat(96));
        }
        // The page as tall as before (its last rows pushed out), grown by the inserted rows, and
        // shorter than before: the canvas's padding rows are the current's, then the baseline's.
        for height in [500, 505, 490] {
            let current = RgbaImage::from_raw(96, height, data[..height as usize * row].to_vec()).unwrap();
            for options in [
                CompareOptions::default(),
                CompareOptions {
                    pixel: PixelOptions { diff_mask: true, ..PixelOptions::default() },
                    ..Default::default()
                },
                CompareOptions {
                    pixel: PixelOptions { diff_color_alt: Some([0, 200, 0]), alpha: 0.5, ..PixelOptions::default() },
                    ..Default::default()
                },
                // Every grey: too many colours for a palette, drawn in RGBA.
                CompareOptions { pixel: PixelOptions { alpha: 1.0, ..PixelOptions::default() }, ..Default::default() },
            ] {
                let (expected, image) = compare_images(baseline.view(), current.view(), &options, true).unwrap();
                let (compared, png) =
                    pool.install(|| compare_images_into_png(baseline.view(), current.view(), &options)).unwrap();
                let json = |c: &ImageComparison| serde_json::to_value(c).unwrap();
                assert_eq!(json(&compared), json(&expected), "{height} rows");
                assert!(expected.shift.is_some() && expected.antialiased_pixels > 0, "{expected:?}");
                assert_eq!(expected.size_changed, height != 500);
                let png = png.unwrap();
                // Its greys and marks are the options' palette: one index a pixel (colour type 3).
                let colour_type = if options.pixel.diff_palette().is_some() { 3 } else { 6 };
                assert_eq!(png[25], colour_type, "the diff PNG's colour type ({height} rows, {options:?})");
                let decoded = crate::decode::decode_image(&png, std::path::Path::new("diff.png")).unwrap();
                assert!(decoded == image.unwrap(), "the PNG holds the diff image compare_images draws ({height} rows)");
                // The matcher's way: the same evidence, and the same PNG once encoded.
                let (marked, diff) = compare_images_marking(baseline.view(), current.view(), &options).unwrap();
                assert_eq!(json(&marked), json(&expected), "{height} rows");
                let marked_png = pool.install(|| diff.expect("a diff image").png(&options.pixel)).unwrap();
                assert!(marked_png == png, "the same PNG ({height} rows)");
            }
        }
    }

    #[test]
    fn the_same_pixels_give_no_diff_image_to_draw() {
        // The same pixels in another buffer, as a re-encoded shot decodes.
        let (baseline, current) = (page(64, 40), page(64, 40));
        let options = CompareOptions::default();
        let (comparison, diff) = compare_images_marking(baseline.view(), current.view(), &options).unwrap();
        assert!(comparison.matched && diff.is_none(), "{comparison:?}");
        let (expected, _) = compare_images(baseline.view(), current.view(), &options, false).unwrap();
        assert_eq!(serde_json::to_value(&comparison).unwrap(), serde_json::to_value(&expected).unwrap());
    }

    #[test]
    fn compare_aligned_diff_marks_only_the_inserted_band() {
        let baseline = page(64, 40);
        // Three blue rows inserted at y=10, and 8 pixels really changed further down (y=30).
        let row = 64 * 4;
        let mut data = baseline.as_bytes()[..10 * row].to_vec();
        data.extend([0, 0, 255, 255].repeat(3 * 64));
        data.extend_from_slice(&baseline.as_bytes()[10 * row..]);
        data[30 * row..30 * row + 8 * 4].copy_from_slice(&[0, 160, 0, 255].repeat(8));
        let current = RgbaImage::from_raw(64, 43, data).unwrap();
        // Every differing pixel counts, none set aside as anti-aliasing: exact numbers.
        let options = CompareOptions {
            pixel: PixelOptions { include_aa: true, ..PixelOptions::default() },
            ..Default::default()
        };
        let (comparison, _) = compare_images(baseline.view(), current.view(), &options, false).unwrap();
        let shift = comparison.shift.expect("the inserted rows are a page shift");
        assert_eq!(shift, PageShift { dy: 3, below_y: 10 });

        let aligned = aligned_diff(baseline.view(), current.view(), &shift, &options).unwrap();
        assert_eq!(aligned.diff_pixels, 3 * 64 + 8, "the band's 3 rows and the changed pixels, nothing that moved");
        assert_eq!(aligned.diff_pixels, comparison.diff_pixels_after_shift);
        assert!(comparison.diff_pixels > aligned.diff_pixels, "the plain diff counts the moved rows too");
        let red = |y: u32| aligned.image.row(y).chunks_exact(4).filter(|p| *p == [255, 0, 0, 255]).count();
        let reds: Vec<(u32, usize)> = (0..current.height()).map(|y| (y, red(y))).filter(|&(_, n)| n > 0).collect();
        assert_eq!(reds, [(10, 64), (11, 64), (12, 64), (30, 8)]);

        let narrow = RgbaImage::filled(5, 40, [0, 0, 0, 255]).unwrap();
        let err = aligned_diff(narrow.view(), current.view(), &shift, &options).unwrap_err().to_string();
        assert!(err.contains("baseline 5 px, current 64 px"), "{err}");
    }

    #[test]
    fn compare_aligned_diff_of_removed_rows_counts_what_diff_pixels_after_shift_counts() {
        let baseline = page(64, 40);
        // Rows 10..13 removed, and 8 pixels really changed further down (y=30 in the baseline,
        // y=27 in the current page).
        let row = 64 * 4;
        let mut data = baseline.as_bytes()[..10 * row].to_vec();
        data.extend_from_slice(&baseline.as_bytes()[13 * row..]);
        data[27 * row..27 * row + 8 * 4].copy_from_slice(&[0, 160, 0, 255].repeat(8));
        let current = RgbaImage::from_raw(64, 37, data).unwrap();
        let options = CompareOptions {
            pixel: PixelOptions { include_aa: true, ..PixelOptions::default() },
            ..Default::default()
        };
        let (comparison, _) = compare_images(baseline.view(), current.view(), &options, false).unwrap();
        let shift = comparison.shift.expect("the removed rows are a page shift");
        assert_eq!(shift, PageShift { dy: -3, below_y: 10 });

        let aligned = aligned_diff(baseline.view(), current.view(), &shift, &options).unwrap();
        assert_eq!((aligned.image.width(), aligned.image.height()), (64, 40), "drawn on the canvas, as the diff is");
        assert_eq!(aligned.diff_pixels, 3 * 64 + 8, "the 3 rows the shorter page no longer reaches and the change");
        assert_eq!(aligned.diff_pixels, comparison.diff_pixels_after_shift);
        let red = |y: u32| aligned.image.row(y).chunks_exact(4).filter(|p| *p == [255, 0, 0, 255]).count();
        let reds: Vec<(u32, usize)> = (0..40).map(|y| (y, red(y))).filter(|&(_, n)| n > 0).collect();
        assert_eq!(reds, [(27, 8), (37, 64), (38, 64), (39, 64)]);
    }
}
