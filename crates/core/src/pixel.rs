//! The pixel test, compatible with pixelmatch 7.2: same options, same count, byte-identical
//! diff image. Rows are processed in parallel bands of [`TILE`] rows; each band also records
//! which pixels differ in a [`DiffMask`] that regions and shift detection read afterwards.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::antialias::antialiased;
use crate::color_delta::{FadedGray, MAX_YIQ_DELTA, color_delta, faded_gray};
use crate::decode::{GreyIndices, Palette, encode_png_with_palette};
use crate::error::{Error, Result};
use crate::image::RgbaImage;

/// Options of the pixel test; defaults are pixelmatch 7.2's.
#[derive(Debug, Clone, PartialEq)]
pub struct PixelOptions {
    /// Per-pixel colour tolerance, 0..1 (share of the largest YIQ difference, squared). Default 0.1.
    pub threshold: f64,
    /// Count anti-aliased pixels as differences too. Default false.
    pub include_aa: bool,
    /// Opacity of the original image drawn in grey under the diff. Default 0.1.
    pub alpha: f64,
    /// Colour of anti-aliased pixels in the diff image. Default yellow.
    pub aa_color: [u8; 3],
    /// Colour of differing pixels. Default red.
    pub diff_color: [u8; 3],
    /// Colour of differing pixels that got darker; `None` uses `diff_color`.
    pub diff_color_alt: Option<[u8; 3]>,
    /// Draw only the differing pixels on a transparent background.
    pub diff_mask: bool,
}

impl Default for PixelOptions {
    fn default() -> Self {
        Self {
            threshold: 0.1,
            include_aa: false,
            alpha: 0.1,
            aa_color: [255, 255, 0],
            diff_color: [255, 0, 0],
            diff_color_alt: None,
            diff_mask: false,
        }
    }
}

/// A diff image and the options it was drawn with, which name its colours.
#[derive(Debug, Clone, Copy)]
pub struct DrawnDiff<'a> {
    pub image: &'a RgbaImage,
    pub drawn_with: &'a PixelOptions,
}

impl DrawnDiff<'_> {
    /// The image as PNG: one palette index a pixel when its colours fit one
    /// ([`PixelOptions::diff_palette`]), RGBA otherwise.
    pub fn png(self) -> Result<Vec<u8>> {
        encode_png_with_palette(self.image, self.drawn_with.diff_palette().as_ref())
    }
}

impl PixelOptions {
    /// The largest squared YIQ difference still counted as equal.
    pub fn max_delta(&self) -> f64 {
        MAX_YIQ_DELTA * self.threshold * self.threshold
    }

    /// The colours a diff image drawn with these options has — its faded greys, the marking
    /// colours, transparency for a diff mask — as a PNG palette: the image is written as one
    /// index a pixel. `None` when they are too many for one (an `alpha` near 1 fades to every
    /// grey).
    pub fn diff_palette(&self) -> Option<Palette> {
        let opaque = |[r, g, b]: [u8; 3]| [r, g, b, 255];
        // The perceptual comparator marks in red and yellow whatever the options say.
        let marks =
            [Some(self.diff_color), Some(self.aa_color), self.diff_color_alt, Some([255, 0, 0]), Some([255, 255, 0])];
        let mut colours: Vec<[u8; 4]> = if self.diff_mask { vec![[0; 4]] } else { Vec::new() };
        for colour in marks.into_iter().flatten().map(opaque) {
            if !colours.contains(&colour) {
                colours.push(colour);
            }
        }
        // The darkest grey is black's: fading moves every pixel toward white.
        Palette::new(colours, Some(faded_gray([0, 0, 0, 255], self.alpha)))
    }

    /// The colour of a counted difference: `diff_color_alt` where the pixel got darker
    /// (`delta` < 0), else `diff_color`.
    fn diff_rgb(&self, delta: f64) -> [u8; 3] {
        match self.diff_color_alt {
            Some(alt) if delta < 0.0 => alt,
            _ => self.diff_color,
        }
    }

    fn validate(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(Error::InvalidInput(format!(
                "threshold {} is outside 0..1; use e.g. 0.1 (the default)",
                self.threshold
            )));
        }
        if !(0.0..=1.0).contains(&self.alpha) {
            return Err(Error::InvalidInput(format!(
                "alpha {} is outside 0..1; use e.g. 0.1 (the default)",
                self.alpha
            )));
        }
        Ok(())
    }
}

/// Side of the square tiles the diff mask is kept in: 8 × 8 pixels = one `u64`.
pub const TILE: usize = 8;

/// Which pixels of the canvas differ, one bit per pixel in 8 × 8 tiles (row-major inside a
/// tile). Compact (1/32 of the image), and empty tiles are skipped with one comparison.
#[derive(Clone, PartialEq, Eq)]
pub struct DiffMask {
    pub width: usize,
    pub height: usize,
    pub tiles_x: usize,
    pub tiles_y: usize,
    pub bits: Vec<u64>,
}

impl std::fmt::Debug for DiffMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DiffMask({}×{}, {} set)", self.width, self.height, self.count())
    }
}

impl DiffMask {
    pub fn new(width: usize, height: usize) -> Self {
        let tiles_x = width.div_ceil(TILE);
        let tiles_y = height.div_ceil(TILE);
        Self { width, height, tiles_x, tiles_y, bits: vec![0; tiles_x * tiles_y] }
    }

    #[inline]
    pub fn get(&self, x: usize, y: usize) -> bool {
        let tile = self.bits[(y / TILE) * self.tiles_x + x / TILE];
        tile >> ((y % TILE) * TILE + x % TILE) & 1 == 1
    }

    #[inline]
    pub fn set(&mut self, x: usize, y: usize) {
        self.bits[(y / TILE) * self.tiles_x + x / TILE] |= 1 << ((y % TILE) * TILE + x % TILE);
    }

    /// Number of set pixels.
    pub fn count(&self) -> u64 {
        self.bits.iter().map(|t| u64::from(t.count_ones())).sum()
    }

    /// Set pixels in the rectangle `[x0, x1) × [y0, y1)`.
    pub fn count_in(&self, x0: usize, y0: usize, x1: usize, y1: usize) -> u64 {
        let mut n = 0;
        for ty in y0 / TILE..y1.div_ceil(TILE).min(self.tiles_y) {
            for tx in x0 / TILE..x1.div_ceil(TILE).min(self.tiles_x) {
                let tile = self.bits[ty * self.tiles_x + tx];
                if tile == 0 {
                    continue;
                }
                n += u64::from((tile & rect_bits(tx, ty, x0, y0, x1, y1)).count_ones());
            }
        }
        n
    }

    /// Grows the mask to `height` rows; the new rows are clear.
    pub fn extend_to_height(&mut self, height: usize) {
        if height > self.height {
            self.height = height;
            self.tiles_y = height.div_ceil(TILE);
            self.bits.resize(self.tiles_x * self.tiles_y, 0);
        }
    }

    /// Sets every pixel set in `src` (same width), moved down by `dy` rows. Visits only
    /// non-empty tiles, so a mostly clear source costs little.
    pub fn or_shifted(&mut self, src: &DiffMask, dy: usize) {
        for (t, &tile) in src.bits.iter().enumerate() {
            let mut bits = tile;
            while bits != 0 {
                let bit = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let x = (t % src.tiles_x) * TILE + bit % TILE;
                let y = (t / src.tiles_x) * TILE + bit / TILE;
                self.set(x, y + dy);
            }
        }
    }

    /// Sets whole rows `y0..y1`.
    pub fn set_rows(&mut self, y0: usize, y1: usize) {
        for y in y0..y1 {
            for x in 0..self.width {
                self.set(x, y);
            }
        }
    }

    /// Pixels set in `self` but not in `other` (same size).
    pub fn minus(&self, other: &DiffMask) -> DiffMask {
        let mut out = self.clone();
        for (a, b) in out.bits.iter_mut().zip(&other.bits) {
            *a &= !b;
        }
        out
    }
}

/// The bits of tile `(tx, ty)` that fall inside `[x0, x1) × [y0, y1)`.
fn rect_bits(tx: usize, ty: usize, x0: usize, y0: usize, x1: usize, y1: usize) -> u64 {
    let cx0 = x0.saturating_sub(tx * TILE).min(TILE);
    let cx1 = x1.saturating_sub(tx * TILE).min(TILE);
    let cy0 = y0.saturating_sub(ty * TILE).min(TILE);
    let cy1 = y1.saturating_sub(ty * TILE).min(TILE);
    if cx0 >= cx1 || cy0 >= cy1 {
        return 0;
    }
    let row: u64 = ((1u64 << (cx1 - cx0)) - 1) << cx0;
    let mut bits = 0;
    for cy in cy0..cy1 {
        bits |= row << (cy * TILE);
    }
    bits
}

/// The outcome of the pixel test.
#[derive(Debug, Clone)]
pub struct PixelDiff {
    /// Pixels that differ beyond the threshold and are not anti-aliasing (pixelmatch's return value).
    pub diff_pixels: u64,
    /// Pixels that differ but were recognised as anti-aliasing (not counted).
    pub aa_pixels: u64,
    /// Where the counted differences are.
    pub mask: DiffMask,
}

/// Views RGBA bytes as 32-bit pixels without copying when the buffer is aligned (it is for
/// every heap allocation in practice); copies otherwise.
pub fn as_pixels(bytes: &[u8]) -> Cow<'_, [u32]> {
    // SAFETY: every bit pattern is a valid u32; align_to only yields the aligned middle.
    let (head, mid, tail) = unsafe { bytes.align_to::<u32>() };
    if head.is_empty() && tail.is_empty() {
        Cow::Borrowed(mid)
    } else {
        Cow::Owned(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
}

/// Compares two RGBA buffers of `width × height`, pixelmatch-style. When `output` is given it
/// receives the diff image (same size, RGBA).
pub fn compare_pixels(
    img1: &[u8],
    img2: &[u8],
    width: usize,
    height: usize,
    options: &PixelOptions,
    output: Option<&mut [u8]>,
) -> Result<PixelDiff> {
    compare_pixels_marking(img1, img2, width, height, options, output, None)
}

/// [`compare_pixels`] without a diff image, marking the anti-aliased pixels it left uncounted in
/// `aa` (the image's size): with the diff mask that is all a [`DiffPainter`] needs to draw the
/// diff image afterwards.
pub fn compare_pixels_marking_aa(
    img1: &[u8],
    img2: &[u8],
    width: usize,
    height: usize,
    options: &PixelOptions,
) -> Result<(PixelDiff, DiffMask)> {
    let mut aa = DiffMask::new(width, height);
    let diff = compare_pixels_marking(img1, img2, width, height, options, None, Some(&mut aa))?;
    Ok((diff, aa))
}

fn compare_pixels_marking(
    img1: &[u8],
    img2: &[u8],
    width: usize,
    height: usize,
    options: &PixelOptions,
    mut output: Option<&mut [u8]>,
    aa_mask: Option<&mut DiffMask>,
) -> Result<PixelDiff> {
    options.validate()?;
    check_buffers(img1, img2, output.as_deref(), width, height)?;
    let mut mask = DiffMask::new(width, height);
    if width == 0 || height == 0 {
        return Ok(PixelDiff { diff_pixels: 0, aa_pixels: 0, mask });
    }

    // Identical inputs: one parallel memcmp, then (only if asked) the faded original.
    if buffers_equal(img1, img2) {
        if let Some(out) = output.as_deref_mut()
            && !options.diff_mask
        {
            draw_gray_rows(img1, out, options.alpha);
        }
        return Ok(PixelDiff { diff_pixels: 0, aa_pixels: 0, mask });
    }

    let a32 = as_pixels(img1);
    let b32 = as_pixels(img2);
    let band_bytes = width * 4 * TILE;
    let ctx = Band { a: &a32, b: &b32, img1, width, height, options, max_delta: options.max_delta() };

    let tiles_x = mask.tiles_x;
    let sum = |x: (u64, u64), y: (u64, u64)| (x.0 + y.0, x.1 + y.1);
    let counts: (u64, u64) = match (output, aa_mask) {
        (Some(out), _) => out
            .par_chunks_mut(band_bytes)
            .zip(mask.bits.par_chunks_mut(tiles_x))
            .enumerate()
            .map(|(band, (out, bits))| ctx.run(band, bits, Some(out), None))
            .reduce(|| (0, 0), sum),
        (None, Some(aa)) => mask
            .bits
            .par_chunks_mut(tiles_x)
            .zip(aa.bits.par_chunks_mut(tiles_x))
            .enumerate()
            .map(|(band, (bits, aa))| ctx.run(band, bits, None, Some(aa)))
            .reduce(|| (0, 0), sum),
        (None, None) => mask
            .bits
            .par_chunks_mut(tiles_x)
            .enumerate()
            .map(|(band, bits)| ctx.run(band, bits, None, None))
            .reduce(|| (0, 0), sum),
    };
    Ok(PixelDiff { diff_pixels: counts.0, aa_pixels: counts.1, mask })
}

/// Both inputs (and the output, if any) must be exactly `width × height` RGBA.
pub(crate) fn check_buffers(
    img1: &[u8],
    img2: &[u8],
    output: Option<&[u8]>,
    width: usize,
    height: usize,
) -> Result<()> {
    let len = width * height * 4;
    if img1.len() != len || img2.len() != len || output.is_some_and(|o| o.len() != len) {
        return Err(Error::InvalidInput(format!(
            "image buffers must be {width}×{height}×4 = {len} bytes (got {}, {})",
            img1.len(),
            img2.len()
        )));
    }
    Ok(())
}

/// Equality of two large buffers, split across threads (memory bandwidth is the limit).
pub fn buffers_equal(a: &[u8], b: &[u8]) -> bool {
    const CHUNK: usize = 1 << 20;
    a.len() == b.len() && a.par_chunks(CHUNK).zip(b.par_chunks(CHUNK)).all(|(x, y)| x == y)
}

/// Every pixel of `img` faded to grey into `out` (pixelmatch's drawing of unchanged pixels).
pub(crate) fn draw_gray_rows(img: &[u8], out: &mut [u8], alpha: f64) {
    out.par_chunks_mut(1 << 16)
        .zip(img.par_chunks(1 << 16))
        .for_each_init(|| FadedGray::new(alpha), |gray, (o, i)| gray.draw(i, o));
}

/// Draws the diff image [`compare_pixels`] would have drawn, band by band of [`TILE`] rows, from
/// the masks [`compare_pixels_marking_aa`] gave for this pair. A band is drawn straight as
/// indices into the diff palette ([`Self::index_band`]), the baseline only read, so the diff
/// image has no image of its own (on a long page, one more copy of it); options whose colours
/// fit no palette draw it in RGBA over a canvas holding the baseline's rows
/// ([`Self::draw_band`]). The colour of a pixel depends only
/// on that pixel of both images, so the result is the comparator's, byte for byte, whatever order
/// the bands are drawn in. Images of two heights are drawn on the taller one's canvas: the rows
/// only one of them has are padding, painted in the diff colour, as a comparison of two heights
/// pads them.
pub struct DiffPainter<'a> {
    /// The rows both images have: the canvas rows below them are padding.
    current: &'a [u8],
    width: usize,
    diff: &'a DiffMask,
    aa: &'a DiffMask,
    options: &'a PixelOptions,
}

/// What one thread of a [`DiffPainter`] keeps between bands: the baseline row being drawn over
/// (when a diff colour depends on it), and the grey memo.
pub struct PaintScratch {
    original: Vec<u8>,
    gray: FadedGray,
}

/// The palette indices a [`DiffPainter`] draws with: each marking colour's, and the greys'.
#[derive(Debug, Clone, Copy)]
pub struct DiffIndices {
    diff: u8,
    diff_alt: Option<u8>,
    aa: u8,
    /// A diff mask's background.
    transparent: u8,
    greys: GreyIndices,
}

impl DiffIndices {
    /// The indices of `options`' colours in `palette`; `None` when one is not in it.
    pub fn new(palette: &Palette, options: &PixelOptions) -> Option<Self> {
        let opaque = |[r, g, b]: [u8; 3]| palette.index([r, g, b, 255]);
        Some(Self {
            diff: opaque(options.diff_color)?,
            diff_alt: match options.diff_color_alt {
                Some(alt) => Some(opaque(alt)?),
                None => None,
            },
            aa: opaque(options.aa_color)?,
            transparent: if options.diff_mask { palette.index([0; 4])? } else { 0 },
            greys: palette.grey_indices()?,
        })
    }
}

impl<'a> DiffPainter<'a> {
    /// A painter of a `width × height` canvas (the taller image's height). `current` holds the
    /// rows both images have, the first rows of the canvas; the masks are the canvas's.
    pub fn new(
        current: &'a [u8],
        width: usize,
        height: usize,
        diff: &'a DiffMask,
        aa: &'a DiffMask,
        options: &'a PixelOptions,
    ) -> Result<Self> {
        let stride = width * 4;
        // At most the canvas's rows, and whole ones.
        if current.len() > stride * height || current.len().checked_rem(stride).is_some_and(|rest| rest != 0) {
            return Err(Error::InvalidInput(format!(
                "the current image's {} bytes are not whole rows of the {width}×{height} canvas",
                current.len()
            )));
        }
        if (diff.width, diff.height, aa.width, aa.height) != (width, height, width, height) {
            return Err(Error::InvalidInput(format!("diff masks are not {width}×{height}")));
        }
        Ok(Self { current, width, diff, aa, options })
    }

    /// The canvas's rows.
    pub fn height(&self) -> usize {
        self.diff.height
    }

    pub fn scratch(&self) -> PaintScratch {
        PaintScratch { original: vec![0u8; self.width * 4], gray: FadedGray::new(self.options.alpha) }
    }

    /// Draws band `band` (rows `band × TILE ..`), whose baseline bytes are `rows`, in place.
    pub fn draw_band(&self, scratch: &mut PaintScratch, band: usize, rows: &mut [u8]) {
        let (o, width) = (self.options, self.width);
        let stride = width * 4;
        if stride == 0 {
            return;
        }
        let opaque = |[r, g, b]: [u8; 3]| [r, g, b, 255];
        let PaintScratch { original, gray } = scratch;
        for (r, row) in rows.chunks_exact_mut(stride).enumerate() {
            let at = (band * TILE + r) * stride;
            let Some(cur_row) = self.current.get(at..at + stride) else {
                for pixel in row.chunks_exact_mut(4) {
                    pixel.copy_from_slice(&opaque(o.diff_color));
                }
                continue;
            };
            // The whole row first (grey, or transparent for a mask) in one straight loop; then
            // only the marked pixels. A diff colour by how the pixel changed needs the baseline
            // pixel the first pass overwrote: it is kept first.
            if o.diff_color_alt.is_some() {
                original.copy_from_slice(row);
            }
            if o.diff_mask {
                row.fill(0);
            } else {
                gray.fade(row);
            }
            self.for_each_mark(band, r, |x, is_diff| {
                let colour = match is_diff {
                    true => self.diff_rgb(original, cur_row, band * TILE + r, x),
                    false => o.aa_color,
                };
                row[x * 4..x * 4 + 4].copy_from_slice(&opaque(colour));
            });
        }
    }

    /// Draws band `band` (rows `band × TILE ..`) as palette indices, one a pixel, into `out`;
    /// `baseline` is the baseline's rows both images have. `false` when a pixel's grey is not
    /// among the palette's (it always is: fading moves every pixel toward white, and the palette's
    /// greys start at black's).
    pub fn index_band(
        &self,
        scratch: &mut PaintScratch,
        band: usize,
        baseline: &[u8],
        indices: &DiffIndices,
        out: &mut [u8],
    ) -> bool {
        let (o, width) = (self.options, self.width);
        let stride = width * 4;
        if width == 0 {
            return true;
        }
        let mut in_palette = true;
        for (r, row) in out.chunks_exact_mut(width).enumerate() {
            let at = (band * TILE + r) * stride;
            let (Some(base_row), Some(cur_row)) = (baseline.get(at..at + stride), self.current.get(at..at + stride))
            else {
                row.fill(indices.diff);
                continue;
            };
            if o.diff_mask {
                row.fill(indices.transparent);
            } else {
                in_palette &= scratch.gray.fade_indexed(base_row, row, indices.greys.lowest, indices.greys.first);
            }
            self.for_each_mark(band, r, |x, is_diff| {
                row[x] = match (is_diff, indices.diff_alt) {
                    (false, _) => indices.aa,
                    (true, None) => indices.diff,
                    (true, Some(alt)) => {
                        if self.diff_rgb(base_row, cur_row, band * TILE + r, x) == o.diff_color {
                            indices.diff
                        } else {
                            alt
                        }
                    }
                };
            });
        }
        in_palette
    }

    /// `mark(x, is_diff)` for each marked pixel of row `r` of band `band`: the differing pixels,
    /// then the anti-aliased ones (none in a diff mask), each once.
    #[inline(always)]
    fn for_each_mark(&self, band: usize, r: usize, mut mark: impl FnMut(usize, bool)) {
        let diff_bits = &self.diff.bits[band * self.diff.tiles_x..(band + 1) * self.diff.tiles_x];
        let aa_bits = &self.aa.bits[band * self.aa.tiles_x..(band + 1) * self.aa.tiles_x];
        for (tx, (&d, &a)) in diff_bits.iter().zip(aa_bits).enumerate() {
            let d = (d >> (r * TILE)) & 0xFF;
            let a = if self.options.diff_mask { 0 } else { (a >> (r * TILE)) & 0xFF & !d };
            for (mut bits, is_diff) in [(d, true), (a, false)] {
                while bits != 0 {
                    mark(tx * TILE + bits.trailing_zeros() as usize, is_diff);
                    bits &= bits - 1;
                }
            }
        }
    }

    /// The colour of differing pixel `x` of canvas row `y`, from its baseline and current rows.
    #[inline(always)]
    fn diff_rgb(&self, base_row: &[u8], cur_row: &[u8], y: usize, x: usize) -> [u8; 3] {
        let o = self.options;
        if o.diff_color_alt.is_none() {
            // One colour whichever way the pixel changed: no delta to compute.
            return o.diff_color;
        }
        let pa = u32::from_le_bytes(base_row[x * 4..x * 4 + 4].try_into().expect("4 bytes"));
        let pb = u32::from_le_bytes(cur_row[x * 4..x * 4 + 4].try_into().expect("4 bytes"));
        o.diff_rgb(color_delta(pa, pb, (y * self.width + x) * 4))
    }
}

/// Everything a band of rows needs, shared read-only between threads.
struct Band<'a> {
    a: &'a [u32],
    b: &'a [u32],
    img1: &'a [u8],
    width: usize,
    height: usize,
    options: &'a PixelOptions,
    max_delta: f64,
}

impl Band<'_> {
    /// Tests rows `band*TILE ..` and returns (counted differences, anti-aliased pixels).
    fn run(
        &self,
        band: usize,
        bits: &mut [u64],
        mut out: Option<&mut [u8]>,
        mut aa_bits: Option<&mut [u64]>,
    ) -> (u64, u64) {
        let (w, o) = (self.width, self.options);
        let y_start = band * TILE;
        let y_end = (y_start + TILE).min(self.height);
        let (mut diff, mut aa) = (0u64, 0u64);
        let [aa_r, aa_g, aa_b] = o.aa_color;
        let draw_background = !o.diff_mask;
        let mut gray = FadedGray::new(o.alpha);

        for y in y_start..y_end {
            let row = y * w;
            let a_row = &self.a[row..row + w];
            let b_row = &self.b[row..row + w];
            let mut out_row = out.as_deref_mut().map(|out| &mut out[(y - y_start) * w * 4..(y - y_start + 1) * w * 4]);
            if a_row == b_row {
                if let (Some(out_row), true) = (out_row, draw_background) {
                    gray.draw(&self.img1[row * 4..(row + w) * 4], out_row);
                }
                continue;
            }
            if let (Some(out_row), true) = (out_row.as_deref_mut(), draw_background) {
                gray.draw(&self.img1[row * 4..(row + w) * 4], out_row);
            }
            // Skip equal runs eight pixels at a time; only differing pixels pay for the delta.
            let mut x = 0;
            while x < w {
                if x + 8 <= w && a_row[x..x + 8] == b_row[x..x + 8] {
                    x += 8;
                    continue;
                }
                let (pa, pb) = (a_row[x], b_row[x]);
                if pa != pb {
                    let pos = (row + x) * 4;
                    let delta = color_delta(pa, pb, pos);
                    if delta.abs() > self.max_delta {
                        let is_aa = antialiased(self.a, self.b, x, y, w, self.height)
                            || antialiased(self.b, self.a, x, y, w, self.height);
                        if !o.include_aa && is_aa {
                            aa += 1;
                            if let Some(aa_bits) = aa_bits.as_deref_mut() {
                                aa_bits[x / TILE] |= 1 << ((y - y_start) * TILE + x % TILE);
                            }
                            if let (Some(out_row), true) = (out_row.as_deref_mut(), draw_background) {
                                out_row[x * 4..x * 4 + 4].copy_from_slice(&[aa_r, aa_g, aa_b, 255]);
                            }
                        } else {
                            diff += 1;
                            let tile = x / TILE;
                            bits[tile] |= 1 << ((y - y_start) * TILE + x % TILE);
                            if let Some(out_row) = out_row.as_deref_mut() {
                                let [r, g, b] = o.diff_rgb(delta);
                                out_row[x * 4..x * 4 + 4].copy_from_slice(&[r, g, b, 255]);
                            }
                        }
                    }
                }
                x += 1;
            }
        }
        (diff, aa)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_mask_counts_inside_rectangles() {
        let mut m = DiffMask::new(20, 20);
        m.set(0, 0);
        m.set(9, 9);
        m.set(19, 19);
        assert_eq!(m.count(), 3);
        assert!(m.get(9, 9) && !m.get(9, 10));
        assert_eq!(m.count_in(0, 0, 10, 10), 2);
        assert_eq!(m.count_in(9, 9, 20, 20), 2);
        assert_eq!(m.count_in(1, 1, 9, 9), 0);
    }

    #[test]
    fn pixel_test_identical_buffers_draw_the_faded_original() {
        let img = [0u8, 0, 0, 255].repeat(4);
        let mut out = vec![0u8; 16];
        let d = compare_pixels(&img, &img, 2, 2, &PixelOptions::default(), Some(&mut out)).unwrap();
        assert_eq!(d.diff_pixels, 0);
        assert_eq!(&out[..4], &[229, 229, 229, 255]);
    }

    #[test]
    fn pixel_test_rejects_wrong_buffer_sizes() {
        let err = compare_pixels(&[0; 12], &[0; 16], 2, 2, &PixelOptions::default(), None).unwrap_err();
        assert!(err.to_string().contains("2×2×4 = 16 bytes"), "{err}");
    }
}
