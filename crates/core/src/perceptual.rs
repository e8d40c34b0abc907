//! The perceptual comparator for real screenshots: a pixel differs when the eye can tell the
//! colours apart (CIE94 ΔE above the just noticeable difference) and the change is not
//! anti-aliasing or sub-pixel text noise, recognised by the local structure around the pixel
//! staying the same (windowed SSIM). Same outputs as the pixel test: a count, a [`DiffMask`]
//! and a pixelmatch-style diff image.
//!
//! One parallel pass over strips of 64 rows. Most pixels are settled by their colour and their
//! 3 × 3 neighbourhood; the rest need SSIM, read from summed-area tables that a strip builds
//! only when it holds such a pixel, covering the strip plus the window radius all round. Tables
//! per strip rather than for the whole image: they cost 120 bytes per pixel, 3 GB for a
//! 1280 × 20,000 full-page screenshot, against about 15 MB per busy thread at 1280 pixels wide.
//!
//! Edges: as in Playwright's ssim-cie94 comparator, both images are taken as surrounded by the
//! same padding, `max(1, ssim_radius)` pixels wide, of a two-colour pattern alternating per
//! pixel (magenta where `x + y` is even, green where odd). The 3 × 3 test and the SSIM windows
//! read the padded images, so no window is ever clamped and the counts are the reference's.
//! Nothing is copied: the padding is computed where the tables of a strip reach into it.
//!
//! The price is at the edge. A pixel on the outermost ring is never flat (its neighbourhood
//! holds both pattern colours), and nearly half of its window (three quarters in a corner) is
//! padding, identical on both sides, which pulls SSIM up; so a change hugging the edge can be
//! tolerated as anti-aliasing: a recoloured outermost row even on a flat page, and on textured
//! content rows up to about the window radius in (the unit tests pin examples). The
//! pixelmatch-compatible test ([`compare_pixels`](crate::pixel::compare_pixels)) has no such
//! blind spot and catches them.

use rayon::prelude::*;

use crate::color_delta::FadedGray;
use crate::error::{Error, Result};
use crate::pixel::{DiffMask, PixelDiff, TILE, as_pixels, buffers_equal};

/// Options of the perceptual comparator.
#[derive(Debug, Clone, PartialEq)]
pub struct PerceptualOptions {
    /// Opacity of the original drawn in grey under the diff. Default 0.1.
    pub alpha: f64,
    /// Largest CIE94 colour difference (ΔE94) still counted as equal; 1.0 is the just
    /// noticeable difference. Default 1.0.
    pub max_delta_e94: f64,
    /// Smallest structural similarity (SSIM, averaged over R, G and B) around a pixel at which
    /// its change is taken for anti-aliasing and tolerated. Default 0.99.
    pub min_ssim: f64,
    /// Half-size of the SSIM window: `(2r + 1)²` pixels, reaching into the padding around the
    /// image near its edges (see the module doc). Default 15.
    pub ssim_radius: usize,
}

impl Default for PerceptualOptions {
    fn default() -> Self {
        Self { alpha: 0.1, max_delta_e94: 1.0, min_ssim: 0.99, ssim_radius: 15 }
    }
}

impl PerceptualOptions {
    fn validate(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.alpha) {
            return Err(Error::InvalidInput(format!(
                "alpha {} is outside 0..1; use e.g. 0.1 (the default)",
                self.alpha
            )));
        }
        if !(self.max_delta_e94.is_finite() && self.max_delta_e94 >= 0.0) {
            return Err(Error::InvalidInput(format!(
                "maxDeltaE94 {} must be a number ≥ 0; use e.g. 1.0 (the just noticeable difference)",
                self.max_delta_e94
            )));
        }
        if self.ssim_radius > MAX_SSIM_RADIUS {
            return Err(Error::InvalidInput(format!(
                "ssimRadius {} is above {MAX_SSIM_RADIUS}; use e.g. 15 (the default)",
                self.ssim_radius
            )));
        }
        if !(-1.0..=1.0).contains(&self.min_ssim) {
            return Err(Error::InvalidInput(format!(
                "minSsim {} is outside -1..1; use e.g. 0.99 (the default)",
                self.min_ssim
            )));
        }
        Ok(())
    }
}

/// Largest SSIM radius: window sums stay exact integers in f64, and a strip's tables, which
/// reach the radius beyond the image on every side, stay bounded.
const MAX_SSIM_RADIUS: usize = 300;

const RED: [u8; 4] = [255, 0, 0, 255];
/// The padding pattern around both images: where `x + y` is even, and where it is odd
/// (image coordinates; the padding width shifts both by the same amount, so parity stays).
const PAD_EVEN: [u8; 3] = [255, 0, 255];
const PAD_ODD: [u8; 3] = [0, 255, 0];
const YELLOW: [u8; 4] = [255, 255, 0, 255];

/// Rows per unit of parallel work, a whole number of mask tiles. A strip's SSIM tables also
/// cover `ssim_radius` rows above and below it; 64 rows repeat little of that margin.
const STRIP_ROWS: usize = 8 * TILE;

/// Compares two RGBA buffers perceptually (`img1` the baseline, `img2` the current capture);
/// `output` receives the diff image: faded grey original, red for counted differences, yellow
/// for tolerated anti-aliasing.
pub fn compare_perceptual(
    img1: &[u8],
    img2: &[u8],
    width: usize,
    height: usize,
    options: &PerceptualOptions,
    output: Option<&mut [u8]>,
) -> Result<PixelDiff> {
    options.validate()?;
    crate::pixel::check_buffers(img1, img2, output.as_deref(), width, height)?;
    let mut mask = DiffMask::new(width, height);
    if width == 0 || height == 0 {
        return Ok(PixelDiff { diff_pixels: 0, aa_pixels: 0, mask });
    }
    if buffers_equal(img1, img2) {
        if let Some(out) = output {
            crate::pixel::draw_gray_rows(img1, out, options.alpha);
        }
        return Ok(PixelDiff { diff_pixels: 0, aa_pixels: 0, mask });
    }

    let a = as_pixels(img1);
    let b = as_pixels(img2);
    let scan = Scan { a: &a, b: &b, img1, width, height, options, lab: LabConverter::new() };
    let strip_tiles = mask.tiles_x * (STRIP_ROWS / TILE);
    let strips = height.div_ceil(STRIP_ROWS);
    // One output slice per strip (or none for every strip), to zip with the mask's strips.
    let out_strips: Vec<Option<&mut [u8]>> = match output {
        Some(out) => out.chunks_mut(width * 4 * STRIP_ROWS).map(Some).collect(),
        None => (0..strips).map(|_| None).collect(),
    };
    let (diff_pixels, aa_pixels) = mask
        .bits
        .par_chunks_mut(strip_tiles)
        .zip(out_strips)
        .enumerate()
        .map(|(strip, (bits, out))| scan.strip(strip, bits, out))
        .reduce(|| (0, 0), |x, y| (x.0 + y.0, x.1 + y.1));
    Ok(PixelDiff { diff_pixels, aa_pixels, mask })
}

/// An RGBA pixel as seen over a white page; rounded integer arithmetic keeps it exact, so the
/// window sums built from it are exact integers too.
#[inline(always)]
fn over_white(p: u32) -> [u8; 3] {
    let [r, g, b, a] = p.to_le_bytes();
    if a == 255 {
        return [r, g, b];
    }
    let a = u32::from(a);
    let blend = |c: u8| ((u32::from(c) * a + 255 * (255 - a) + 127) / 255) as u8;
    [blend(r), blend(g), blend(b)]
}

/// sRGB (D65) to CIE L*a*b*, with the sRGB transfer curve tabulated once per comparison.
struct LabConverter {
    linear: [f64; 256],
}

impl LabConverter {
    fn new() -> Self {
        let linear = std::array::from_fn(|i| {
            let c = i as f64 / 255.0;
            if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
        });
        Self { linear }
    }

    fn lab(&self, [r, g, b]: [u8; 3]) -> [f64; 3] {
        let (r, g, b) = (self.linear[r as usize], self.linear[g as usize], self.linear[b as usize]);
        // XYZ relative to the D65 white point, so white maps to (1, 1, 1).
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
        let (fx, fy, fz) = (lab_f(x), lab_f(y), lab_f(z));
        [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
    }
}

/// The CIE Lab companding function: a cube root, linear near black where the root is too steep.
#[inline]
fn lab_f(t: f64) -> f64 {
    const DELTA: f64 = 6.0 / 29.0;
    if t > DELTA * DELTA * DELTA { t.cbrt() } else { t / (3.0 * DELTA * DELTA) + 4.0 / 29.0 }
}

/// CIE94 colour difference (graphic-arts weights) of `sample` against `reference`; the
/// formula is asymmetric, chroma weights come from the reference (the baseline).
fn delta_e94(reference: [f64; 3], sample: [f64; 3]) -> f64 {
    let [l1, a1, b1] = reference;
    let [l2, a2, b2] = sample;
    let (dl, da, db) = (l1 - l2, a1 - a2, b1 - b2);
    let c1 = a1.hypot(b1);
    let dc = c1 - a2.hypot(b2);
    // ΔH² is what remains of the a/b distance after chroma; rounding can push it below zero.
    let dh2 = (da * da + db * db - dc * dc).max(0.0);
    let sc = 1.0 + 0.045 * c1;
    let sh = 1.0 + 0.015 * c1;
    (dl * dl + (dc / sc) * (dc / sc) + dh2 / (sh * sh)).sqrt()
}

/// Everything the strips share, read-only.
struct Scan<'a> {
    a: &'a [u32],
    b: &'a [u32],
    img1: &'a [u8],
    width: usize,
    height: usize,
    options: &'a PerceptualOptions,
    lab: LabConverter,
}

impl Scan<'_> {
    /// Tests rows `strip * STRIP_ROWS ..` and returns (counted differences, anti-aliased
    /// pixels). `bits` are the strip's mask tiles, `out` its rows of the diff image.
    fn strip(&self, strip: usize, bits: &mut [u64], mut out: Option<&mut [u8]>) -> (u64, u64) {
        let w = self.width;
        let y_start = strip * STRIP_ROWS;
        let y_end = (y_start + STRIP_ROWS).min(self.height);
        let tiles_x = w.div_ceil(TILE);
        let mut gray = FadedGray::new(self.options.alpha);
        // Records a decided pixel: counted (red, in the mask) or anti-aliasing (yellow).
        let mut mark = |x: usize, y: usize, out: &mut Option<&mut [u8]>, counted: bool| {
            let dy = y - y_start;
            if counted {
                bits[(dy / TILE) * tiles_x + x / TILE] |= 1 << ((dy % TILE) * TILE + x % TILE);
            }
            if let Some(o) = out.as_deref_mut() {
                o[(dy * w + x) * 4..(dy * w + x) * 4 + 4].copy_from_slice(if counted { &RED } else { &YELLOW });
            }
        };
        let mut diff = 0;
        // Noticeable changes away from flat areas: settled by SSIM once the row scan is done.
        let mut pending = Vec::new();

        for y in y_start..y_end {
            let row = y * w;
            let a_row = &self.a[row..row + w];
            let b_row = &self.b[row..row + w];
            if let Some(o) = out.as_deref_mut() {
                let dy = y - y_start;
                gray.draw(&self.img1[row * 4..(row + w) * 4], &mut o[dy * w * 4..(dy + 1) * w * 4]);
            }
            if a_row == b_row {
                continue;
            }
            // Screenshots differ in few places: skip equal runs eight pixels at a time.
            let mut x = 0;
            while x < w {
                if x + 8 <= w && a_row[x..x + 8] == b_row[x..x + 8] {
                    x += 8;
                    continue;
                }
                if a_row[x] != b_row[x] && self.noticeable(a_row[x], b_row[x]) {
                    // A pixel in a flat area of either image cannot be an edge's anti-aliasing.
                    if self.flat_around(self.a, x, y) || self.flat_around(self.b, x, y) {
                        diff += 1;
                        mark(x, y, &mut out, true);
                    } else {
                        pending.push((x, y));
                    }
                }
                x += 1;
            }
        }
        if pending.is_empty() {
            return (diff, 0);
        }

        let stats = WindowStats::new(self.a, self.b, w, self.height, y_start, y_end, self.options.ssim_radius);
        let mut aa = 0;
        for (x, y) in pending {
            let counted = stats.ssim(x, y) < self.options.min_ssim;
            if counted {
                diff += 1;
            } else {
                aa += 1;
            }
            mark(x, y, &mut out, counted);
        }
        (diff, aa)
    }

    /// Whether two different pixels differ by more than the just noticeable difference.
    fn noticeable(&self, p1: u32, p2: u32) -> bool {
        let (c1, c2) = (over_white(p1), over_white(p2));
        // Different RGBA can look the same over white (any colour at alpha 0).
        c1 != c2 && delta_e94(self.lab.lab(c1), self.lab.lab(c2)) > self.options.max_delta_e94
    }

    /// Whether the 3 × 3 neighbourhood of `(x, y)` in the padded image holds one colour, i.e.
    /// has zero variance; compared exactly rather than through sums, so no rounding. Next to
    /// the edge it takes in at least two neighbouring padding pixels, one of each pattern
    /// colour, so a pixel on the outermost ring is never flat.
    fn flat_around(&self, img: &[u32], x: usize, y: usize) -> bool {
        let w = self.width;
        if x == 0 || y == 0 || x + 1 == w || y + 1 == self.height {
            return false;
        }
        let centre = over_white(img[y * w + x]);
        (y - 1..=y + 1).all(|ny| (x - 1..=x + 1).all(|nx| over_white(img[ny * w + nx]) == centre))
    }
}

/// SSIM stabilising constants for 8-bit channels: (0.01·255)² and (0.03·255)².
const SSIM_C1: f64 = (0.01 * 255.0) * (0.01 * 255.0);
const SSIM_C2: f64 = (0.03 * 255.0) * (0.03 * 255.0);

/// Per channel (R, G, B): Σa, Σb, Σa², Σb², Σab.
const SUMS: usize = 15;

/// Summed-area tables of image rows `y_start - r .. y_end + r` and columns `-r .. width + r`
/// of both padded images (`r` the SSIM radius; outside the image, the padding pattern), all
/// quantities of a pixel side by side (two cache lines per corner): values of each image, their
/// squares and the product of the two per channel, so any window's means, variances and
/// covariance cost O(1). Entries are sums of integers far below 2^53, hence exact in f64, and so
/// are window sums.
struct WindowStats {
    /// `width + 2r + 1`: the table has a zero first row and column.
    stride: usize,
    /// First image row of the strip: table row `1 + r` (after the zero row and `r` rows above).
    y_start: usize,
    radius: usize,
    table: Vec<[f64; SUMS]>,
}

impl WindowStats {
    fn new(a: &[u32], b: &[u32], width: usize, height: usize, y_start: usize, y_end: usize, radius: usize) -> Self {
        let padded_width = width + 2 * radius;
        let stride = padded_width + 1;
        let rows = y_end - y_start + 2 * radius;
        let mut table = vec![[0.0; SUMS]; stride * (rows + 1)];
        // One padded row of each image at a time, as seen over white.
        let (mut row_a, mut row_b) = (vec![[0u8; 3]; padded_width], vec![[0u8; 3]; padded_width]);
        for ty in 0..rows {
            // Image row of table row `ty`, negative or ≥ height in the padding.
            let y = (y_start + ty) as isize - radius as isize;
            // The pattern on this row, from column `-radius`: even `x + y` magenta, odd green.
            let pattern = |tx: usize| if (tx as isize - radius as isize + y) % 2 == 0 { PAD_EVEN } else { PAD_ODD };
            if (0..height as isize).contains(&y) {
                let row = y as usize * width;
                let (left, rest) = row_a.split_at_mut(radius);
                let (middle, right) = rest.split_at_mut(width);
                for (tx, p) in left.iter_mut().enumerate() {
                    *p = pattern(tx);
                }
                for (tx, p) in right.iter_mut().enumerate() {
                    *p = pattern(radius + width + tx);
                }
                for (p, &q) in middle.iter_mut().zip(&a[row..row + width]) {
                    *p = over_white(q);
                }
                // Same padding on both sides; only the image part differs.
                row_b[..radius].copy_from_slice(&row_a[..radius]);
                row_b[radius + width..].copy_from_slice(&row_a[radius + width..]);
                for (p, &q) in row_b[radius..radius + width].iter_mut().zip(&b[row..row + width]) {
                    *p = over_white(q);
                }
            } else {
                for (tx, p) in row_a.iter_mut().enumerate() {
                    *p = pattern(tx);
                }
                row_b.copy_from_slice(&row_a);
            }
            let mut row_sum = [0.0; SUMS];
            let (above, this) = table[ty * stride..(ty + 2) * stride].split_at_mut(stride);
            for (tx, (ca, cb)) in row_a.iter().zip(&row_b).enumerate() {
                for c in 0..3 {
                    let (va, vb) = (f64::from(ca[c]), f64::from(cb[c]));
                    let sums = &mut row_sum[5 * c..5 * c + 5];
                    sums[0] += va;
                    sums[1] += vb;
                    sums[2] += va * va;
                    sums[3] += vb * vb;
                    sums[4] += va * vb;
                }
                for k in 0..SUMS {
                    this[tx + 1][k] = above[tx + 1][k] + row_sum[k];
                }
            }
        }
        Self { stride, y_start, radius, table }
    }

    /// Mean SSIM of R, G and B over the `(2r + 1)²` window centred on image pixel `(x, y)`,
    /// which the padding always holds whole.
    fn ssim(&self, x: usize, y: usize) -> f64 {
        // In table coordinates (one past the zero row and column) the window spans columns
        // `x + 1 ..= x + 2r + 1` and rows `y - y_start + 1 ..= y - y_start + 2r + 1`.
        let r = self.radius;
        let (top, bottom) = ((y - self.y_start) * self.stride, (y - self.y_start + 2 * r + 1) * self.stride);
        let (left, right) = (x, x + 2 * r + 1);
        let [p, q, u, v] = [bottom + right, top + right, bottom + left, top + left].map(|i| &self.table[i]);
        let sums: [f64; SUMS] = std::array::from_fn(|k| p[k] - q[k] - u[k] + v[k]);
        let side = (2 * r + 1) as f64;
        let n = side * side;
        let n2 = n * n;
        let mut total = 0.0;
        for c in sums.chunks_exact(5) {
            let [sa, sb, qa, qb, ab] = [c[0], c[1], c[2], c[3], c[4]];
            // n²·variance = n·Σa² − (Σa)² is an integer (exact in f64 for windows up to radius 300);
            // dividing last avoids the cancellation of Σa²/n − mean².
            let var_a = (n * qa - sa * sa) / n2;
            let var_b = (n * qb - sb * sb) / n2;
            let cov = (n * ab - sa * sb) / n2;
            let (ma, mb) = (sa / n, sb / n);
            total += (2.0 * ma * mb + SSIM_C1) * (2.0 * cov + SSIM_C2)
                / ((ma * ma + mb * mb + SSIM_C1) * (var_a + var_b + SSIM_C2));
        }
        total / 3.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `w × h` image whose pixel colours come from `colour(x, y)`, opaque.
    fn image(w: usize, h: usize, colour: impl Fn(usize, usize) -> [u8; 3]) -> Vec<u8> {
        (0..w * h)
            .flat_map(|i| {
                let [r, g, b] = colour(i % w, i / w);
                [r, g, b, 255]
            })
            .collect()
    }

    fn compare(a: &[u8], b: &[u8], w: usize, h: usize, out: Option<&mut [u8]>) -> PixelDiff {
        compare_perceptual(a, b, w, h, &PerceptualOptions::default(), out).unwrap()
    }

    #[test]
    fn perceptual_identical_images_differ_nowhere() {
        let img = image(20, 12, |x, y| [(x * 12) as u8, (y * 20) as u8, 90]);
        let mut out = vec![0u8; img.len()];
        let d = compare(&img, &img, 20, 12, Some(&mut out));
        assert_eq!((d.diff_pixels, d.aa_pixels, d.mask.count()), (0, 0, 0));
        let grey = crate::color_delta::faded_gray([0, 0, 90, 255], 0.1);
        assert_eq!(&out[..4], &[grey, grey, grey, 255]);
    }

    #[test]
    fn perceptual_recoloured_flat_block_counts_every_pixel() {
        let (w, h) = (24, 20);
        let a = image(w, h, |_, _| [255, 255, 255]);
        let b = image(w, h, |x, y| if (5..11).contains(&x) && (3..7).contains(&y) { [200, 30, 30] } else { [255; 3] });
        let mut out = vec![0u8; a.len()];
        let d = compare(&a, &b, w, h, Some(&mut out));
        assert_eq!((d.diff_pixels, d.aa_pixels, d.mask.count()), (24, 0, 24));
        assert!(d.mask.get(5, 3) && d.mask.get(10, 6) && !d.mask.get(11, 6) && !d.mask.get(4, 3));
        assert_eq!(&out[(3 * w + 5) * 4..(3 * w + 5) * 4 + 4], &RED);
        assert_eq!(&out[..4], &[255, 255, 255, 255]);
    }

    #[test]
    fn perceptual_change_hugging_the_edge_is_tolerated_but_the_pixel_test_counts_it() {
        // The known limit of the reference-compatible padding (module doc): a darkened
        // full-width row is taken for anti-aliasing on the outermost row, and on texture still
        // ten rows in; only deeper inside is it counted. The pixelmatch-compatible test counts
        // every one of them.
        let (w, h) = (80, 80);
        let pixel_test = |a: &[u8], b: &[u8]| {
            crate::pixel::compare_pixels(a, b, w, h, &crate::pixel::PixelOptions::default(), None).unwrap().diff_pixels
        };
        let darken_row = |base: fn(usize, usize) -> [u8; 3], row: usize, by: u8| {
            image(w, h, move |x, y| if y == row { base(x, y).map(|v| v - by) } else { base(x, y) })
        };

        // Textured: the padding's pull reaches several rows in.
        let texture: fn(usize, usize) -> [u8; 3] = |x, y| [(100 + (x * 37 + y * 53) % 60) as u8; 3];
        let a = image(w, h, texture);
        for (row, perceptual) in [(0, (0, 80)), (10, (0, 80)), (40, (56, 24))] {
            let b = darken_row(texture, row, 40);
            let d = compare(&a, &b, w, h, None);
            assert_eq!((d.diff_pixels, d.aa_pixels), perceptual, "textured, row {row}");
            assert_eq!(pixel_test(&a, &b), 80, "textured, row {row}");
        }

        // Flat white: the outermost row only (whose neighbourhood is never flat); inside, the
        // flat test counts all but the two pixels at the ends, which are on the edge too.
        let white: fn(usize, usize) -> [u8; 3] = |_, _| [255; 3];
        let a = image(w, h, white);
        for (row, perceptual) in [(0, (0, 80)), (1, (78, 2))] {
            let b = darken_row(white, row, 55);
            let d = compare(&a, &b, w, h, None);
            assert_eq!((d.diff_pixels, d.aa_pixels), perceptual, "white, row {row}");
            assert_eq!(pixel_test(&a, &b), 80, "white, row {row}");
        }
    }

    #[test]
    fn perceptual_rejects_an_ssim_radius_beyond_exact_sums() {
        let opts = PerceptualOptions { ssim_radius: 301, ..PerceptualOptions::default() };
        let err = compare_perceptual(&[0; 16], &[0; 16], 2, 2, &opts, None).unwrap_err();
        assert!(err.to_string().contains("ssimRadius 301"), "{err}");
    }

    #[test]
    fn perceptual_one_level_jitter_is_below_the_noticeable_difference() {
        let (w, h) = (32, 32);
        let colour = |x: usize, y: usize| [(x * 8) as u8, (y * 8) as u8, ((x + y) * 4) as u8];
        let a = image(w, h, colour);
        let b = image(w, h, |x, y| {
            let [r, g, bl] = colour(x, y);
            // One level up or down on one channel, or on all three. (Opposite steps on two
            // channels are not always below the JND: (24, 24, 24) → (24, 23, 25) is ΔE94 1.63.)
            match (x + 2 * y) % 4 {
                0 => [r.saturating_add(1), g, bl],
                1 => [r, g.saturating_sub(1), bl],
                2 => [r.saturating_add(1), g.saturating_add(1), bl.saturating_add(1)],
                _ => [r, g, bl.saturating_sub(1)],
            }
        });
        let d = compare(&a, &b, w, h, None);
        assert_eq!((d.diff_pixels, d.aa_pixels), (0, 0));
    }

    #[test]
    fn perceptual_edge_moved_by_a_fraction_of_a_pixel_is_anti_aliasing() {
        // A dark diagonal band whose soft edge is rendered one shade differently.
        let (w, h) = (40, 40);
        let edge = |shade: f64| {
            move |x: usize, y: usize| {
                let d = x as f64 - y as f64 * 0.5 - 10.0 + shade;
                let v = if d < 0.0 {
                    40.0
                } else if d > 1.0 {
                    240.0
                } else {
                    40.0 + 200.0 * d
                };
                [v as u8; 3]
            }
        };
        let a = image(w, h, edge(0.0));
        let b = image(w, h, edge(0.08));
        let d = compare(&a, &b, w, h, None);
        // One pixel per row is on the soft edge and changes shade (the band's x advances half a
        // pixel a row, so the edge pixel's d is 0 or 0.5, and 0.08 later it still is on the edge):
        // all 40 are anti-aliasing, none counted.
        assert_eq!((d.diff_pixels, d.aa_pixels), (0, 40));
    }

    #[test]
    fn perceptual_rejects_bad_options_and_sizes() {
        let opts = PerceptualOptions { max_delta_e94: -1.0, ..PerceptualOptions::default() };
        let err = compare_perceptual(&[0; 16], &[0; 16], 2, 2, &opts, None).unwrap_err();
        assert!(err.to_string().contains("maxDeltaE94 -1"), "{err}");
        let err = compare_perceptual(&[0; 12], &[0; 16], 2, 2, &PerceptualOptions::default(), None).unwrap_err();
        assert!(err.to_string().contains("2×2×4 = 16 bytes"), "{err}");
    }

    #[test]
    fn perceptual_delta_e94_of_black_and_white_is_pure_lightness() {
        let conv = LabConverter::new();
        let white = conv.lab([255; 3]);
        assert!((white[0] - 100.0).abs() < 1e-3 && white[1].abs() < 1e-3 && white[2].abs() < 1e-3, "{white:?}");
        assert!((delta_e94(conv.lab([0; 3]), white) - 100.0).abs() < 1e-3);
    }
}
