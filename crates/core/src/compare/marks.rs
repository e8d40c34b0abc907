//! A failing comparison's diff image, kept as the comparison's marks and drawn as it is encoded
//! (`sightline diff --out`, a failing `toMatchVisual` call, `sightline compare`): pixelmatch's
//! pixel test of two images of one width, in place, beside the page shift search.

use std::sync::atomic::Ordering;

use super::{
    COMPARISONS, Comparator, CompareOptions, DiffDrawing, ImageComparison, Size, compare_images_drawing, mark_padding,
    shift_and_what_still_differs, summarise,
};
use crate::decode::{encode_png_drawn, encode_png_indexed};
use crate::error::Result;
use crate::image::{ImageRef, RgbaImage};
use crate::pixel::{
    DiffIndices, DiffMask, DiffPainter, DrawnDiff, PixelDiff, PixelOptions, TILE, buffers_equal,
    compare_pixels_marking_aa,
};
use crate::shift::PageShift;

/// A failing comparison's diff image, drawn when it is encoded ([`Self::png`]).
pub enum DiffImage<'a> {
    /// Drawn already: by the perceptual comparator, over images of two widths or a masked pair,
    /// or the faded baseline of identical pixels.
    Drawn(RgbaImage),
    /// Pixelmatch's marks over two images of one width: drawn band by band as it is encoded, on
    /// every core, with no image of its own.
    Marked(Marks<'a>),
    /// Encoded already.
    Encoded(Vec<u8>),
}

/// What a pixelmatch comparison of two images of one width marked, with the images: all a
/// [`DiffPainter`] needs.
pub struct Marks<'a> {
    baseline: ImageRef<'a>,
    current: ImageRef<'a>,
    /// Over the canvas (the taller image's height): differing pixels, rows only one image has
    /// among them, and anti-aliased ones.
    diff: PixelDiff,
    aa: DiffMask,
}

impl DiffImage<'_> {
    /// The diff image as PNG, drawn with `pixel` (the options it was compared with).
    pub fn png(self, pixel: &PixelOptions) -> Result<Vec<u8>> {
        match self {
            DiffImage::Drawn(image) => DrawnDiff { image: &image, drawn_with: pixel }.png(),
            DiffImage::Marked(marks) => marks.png(pixel),
            DiffImage::Encoded(png) => Ok(png),
        }
    }

    /// The diff image with nothing borrowed: encoded, unless drawn already.
    pub fn into_owned(self, pixel: &PixelOptions) -> Result<DiffImage<'static>> {
        Ok(match self {
            DiffImage::Drawn(image) => DiffImage::Drawn(image),
            other => DiffImage::Encoded(other.png(pixel)?),
        })
    }
}

impl Marks<'_> {
    /// The evidence from the masks.
    fn summarise(&self, options: &CompareOptions, moved: Option<(PageShift, DiffMask)>) -> ImageComparison {
        summarise(Size::of(self.baseline), Size::of(self.current), options, &self.diff, moved)
    }

    /// The PNG of the diff image, drawn band by band as it is encoded, on every core: straight as
    /// indices into the options' diff palette when they have one, else in RGBA over a canvas.
    fn png(&self, pixel: &PixelOptions) -> Result<Vec<u8>> {
        let (width, height) = (self.baseline.width(), self.diff.mask.height as u32);
        let overlap = self.baseline.height().min(self.current.height());
        let (baseline, current) = (self.baseline.rows(0, overlap), self.current.rows(0, overlap));
        let (w, h) = (width as usize, height as usize);
        let painter = DiffPainter::new(current.as_bytes(), w, h, &self.diff.mask, &self.aa, pixel)?;
        let palette = pixel.diff_palette();
        if let Some((palette, indices)) = palette.as_ref().and_then(|p| Some((p, DiffIndices::new(p, pixel)?))) {
            let indexed = encode_png_indexed(
                width,
                height,
                palette,
                TILE,
                || painter.scratch(),
                |scratch, band, out| painter.index_band(scratch, band, baseline.as_bytes(), &indices, out),
            )?;
            if let Some(png) = indexed {
                return Ok(png);
            }
        }
        // Drawn over a copy of the baseline: a fade of nearly every grey has no palette.
        let mut canvas = RgbaImage::transparent(width, height)?;
        canvas.as_bytes_mut()[..baseline.as_bytes().len()].copy_from_slice(baseline.as_bytes());
        encode_png_drawn(
            &mut canvas,
            TILE,
            palette.as_ref(),
            || painter.scratch(),
            |scratch, band, rows| painter.draw_band(scratch, band, rows),
        )
    }
}

/// [`compare_images_drawing`] of images that differ, whose diff image is wanted, left to draw as
/// it is encoded ([`DiffImage::png`]) rather than drawn into an image of its own (on a long
/// page, one more copy of it). Equal images give none.
pub fn compare_images_marking<'a>(
    baseline: ImageRef<'a>,
    current: ImageRef<'a>,
    options: &CompareOptions,
) -> Result<(ImageComparison, Option<DiffImage<'a>>)> {
    match mark_images(baseline, current, options)? {
        Marked::Drawn(comparison, image) => Ok((comparison, image.map(DiffImage::Drawn))),
        Marked::Equal(comparison) => Ok((comparison, None)),
        Marked::Differ(marks, moved) => {
            let comparison = marks.summarise(options, moved);
            Ok((comparison, Some(DiffImage::Marked(marks))))
        }
    }
}

/// [`compare_images_marking`] with the diff image encoded as PNG (`sightline diff --out`): the
/// regions are found from the masks while the diff image is drawn and encoded.
pub fn compare_images_into_png(
    baseline: ImageRef<'_>,
    current: ImageRef<'_>,
    options: &CompareOptions,
) -> Result<(ImageComparison, Option<Vec<u8>>)> {
    match mark_images(baseline, current, options)? {
        Marked::Drawn(comparison, image) => {
            let png = image.map(|image| DrawnDiff { image: &image, drawn_with: &options.pixel }.png());
            Ok((comparison, png.transpose()?))
        }
        Marked::Equal(comparison) => Ok((comparison, None)),
        Marked::Differ(marks, moved) => {
            let (png, comparison) = rayon::join(|| marks.png(&options.pixel), || marks.summarise(options, moved));
            Ok((comparison, Some(png?)))
        }
    }
}

/// What [`mark_images`] found.
enum Marked<'a> {
    /// Compared and drawn by [`compare_images_drawing`] (images of two widths, the perceptual
    /// comparator); no image when they are equal.
    Drawn(ImageComparison, Option<RgbaImage>),
    /// No pixel differs.
    Equal(ImageComparison),
    /// Pixels differ: the marks, and the page shift with what still differs once it is undone.
    Differ(Marks<'a>, Option<(PageShift, DiffMask)>),
}

/// The pixel test of two images of one width with pixelmatch, in place (the rows both have;
/// the canvas rows below them are padding, each a difference, as [`compare_images_drawing`]
/// counts them), beside the page shift search; other pairs are compared and drawn by
/// [`compare_images_drawing`].
fn mark_images<'a>(baseline: ImageRef<'a>, current: ImageRef<'a>, options: &CompareOptions) -> Result<Marked<'a>> {
    if baseline.width() != current.width() || options.comparator != Comparator::Pixelmatch {
        let (comparison, image) = compare_images_drawing(baseline, current, options, DiffDrawing::WhenDifferent)?;
        return Ok(Marked::Drawn(comparison, image));
    }
    COMPARISONS.fetch_add(1, Ordering::Relaxed);
    let overlap = baseline.height().min(current.height());
    let (w, h) = (baseline.width() as usize, baseline.height().max(current.height()) as usize);
    // The same pixels in other bytes, decided by one memcmp.
    if baseline.height() == current.height() && buffers_equal(baseline.as_bytes(), current.as_bytes()) {
        let none = PixelDiff { diff_pixels: 0, aa_pixels: 0, mask: DiffMask::new(w, h) };
        return Ok(Marked::Equal(summarise(Size::of(baseline), Size::of(current), options, &none, None)));
    }
    // The shift is looked for from the pixels alone, beside the pixel test: each fills the other's
    // idle moments (the ends of its parallel loops, its serial parts).
    let (tested, shifted) = rayon::join(
        || {
            let (base, compared) = (baseline.rows(0, overlap), current.rows(0, overlap));
            compare_pixels_marking_aa(base.as_bytes(), compared.as_bytes(), w, overlap as usize, &options.pixel)
        },
        || shift_and_what_still_differs(baseline, current, options),
    );
    let (mut diff, mut aa) = tested?;
    if h > overlap as usize {
        diff.mask.extend_to_height(h);
        aa.extend_to_height(h);
        mark_padding(&mut diff, baseline, current, options, None);
    }
    let (marks, moved) = (Marks { baseline, current, diff, aa }, shifted?);
    if marks.diff.diff_pixels == 0 {
        // Pixels all within the threshold: nothing moved that counts.
        return Ok(Marked::Equal(marks.summarise(options, None)));
    }
    Ok(Marked::Differ(marks, moved))
}
