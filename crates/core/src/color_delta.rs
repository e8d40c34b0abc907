//! Colour difference in YIQ space (Kotsarenko & Ramos), bit-for-bit as pixelmatch 7.2 computes
//! it: same f64 operations in the same order, so counts and diff images match exactly.

/// The largest possible squared YIQ difference (black against white); `threshold` scales it.
pub const MAX_YIQ_DELTA: f64 = 35215.0;

const Y_R: f64 = 0.29889531;
const Y_G: f64 = 0.58662247;
const Y_B: f64 = 0.11448223;

/// Squared YIQ distance between two RGBA pixels (little-endian words, R in the low byte),
/// negative when `p2` is darker than `p1`. `k` is the byte offset of `p1` in its image: it
/// picks the checkerboard colour that semi-transparent pixels are blended against, exactly as
/// pixelmatch 7 does.
#[inline(always)]
pub fn color_delta(p1: u32, p2: u32, k: usize) -> f64 {
    if p1 == p2 {
        return 0.0;
    }
    let (dr, dg, db) = channel_deltas(p1, p2, k);
    let y = dr * Y_R + dg * Y_G + db * Y_B;
    let i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189;
    let q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694;
    let delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q;
    if y > 0.0 { -delta } else { delta }
}

/// The brightness (Y) difference alone, used by the anti-aliasing detector.
#[inline(always)]
pub fn brightness_delta(p1: u32, p2: u32, k: usize) -> f64 {
    if p1 == p2 {
        return 0.0;
    }
    let (dr, dg, db) = channel_deltas(p1, p2, k);
    dr * Y_R + dg * Y_G + db * Y_B
}

#[inline(always)]
fn channel(p: u32, shift: u32) -> f64 {
    f64::from((p >> shift) as u8)
}

/// Per-channel differences, after blending transparency over the checkerboard when either
/// pixel is not fully opaque (screenshots almost never are, so that branch is cold).
#[inline(always)]
fn channel_deltas(p1: u32, p2: u32, k: usize) -> (f64, f64, f64) {
    let (r1, g1, b1, a1) = (channel(p1, 0), channel(p1, 8), channel(p1, 16), channel(p1, 24));
    let (r2, g2, b2, a2) = (channel(p2, 0), channel(p2, 8), channel(p2, 16), channel(p2, 24));
    if (p1 & p2) >> 24 == 0xFF {
        return (r1 - r2, g1 - g2, b1 - b2);
    }
    let da = a1 - a2;
    // The checkerboard cell depends on the byte offset; `k % 2` is always 0 for RGBA
    // offsets, a quirk of pixelmatch 7 we keep for identical results.
    let rb = 48.0 + 159.0 * (k % 2) as f64;
    let gb = 48.0 + 159.0 * (((k as f64 / 1.618033988749895) as i64) % 2) as f64;
    let bb = 48.0 + 159.0 * (((k as f64 / 2.618033988749895) as i64) % 2) as f64;
    (
        (r1 * a1 - r2 * a2 - rb * da) / 255.0,
        (g1 * a1 - g2 * a2 - gb * da) / 255.0,
        (b1 * a1 - b2 * a2 - bb * da) / 255.0,
    )
}

/// The grey a matching pixel is drawn with in the diff image: its brightness blended towards
/// white by `alpha` (pixelmatch's `drawGrayPixel`), truncated like a `Uint8Array` store.
#[inline(always)]
pub fn faded_gray(p: [u8; 4], alpha: f64) -> u8 {
    let [r, g, b, a] = p.map(f64::from);
    let val = 255.0 + (r * Y_R + g * Y_G + b * Y_B - 255.0) * alpha * a / 255.0;
    val as u8
}

/// Draws pixels in faded grey ([`faded_gray`]) for a whole image. Pages are drawn in few
/// colours (text adds its anti-aliasing greys), so a small direct-mapped memo of pixel → grey
/// answers almost every pixel without the floating-point blend (a division per pixel, most of a
/// diff image's drawing time), and gives exactly the bytes [`faded_gray`] gives. One per thread:
/// it is filled as it draws.
pub struct FadedGray {
    alpha: f64,
    pixels: [u32; MEMO_SLOTS],
    grays: [u8; MEMO_SLOTS],
}

/// Slots of the memo: the greys of anti-aliased text and a page's colours, with few collisions.
const MEMO_SLOTS: usize = 1024;

impl FadedGray {
    pub fn new(alpha: f64) -> Self {
        // Every slot starts as opaque white, the most common pixel, with its true grey.
        Self { alpha, pixels: [u32::MAX; MEMO_SLOTS], grays: [faded_gray([255; 4], alpha); MEMO_SLOTS] }
    }

    /// The grey of one pixel (little-endian RGBA).
    #[inline(always)]
    pub fn of(&mut self, pixel: u32) -> u8 {
        let slot = (pixel.wrapping_mul(0x9E37_79B1) >> (32 - MEMO_SLOTS.trailing_zeros())) as usize;
        if self.pixels[slot] != pixel {
            self.pixels[slot] = pixel;
            self.grays[slot] = faded_gray(pixel.to_le_bytes(), self.alpha);
        }
        self.grays[slot]
    }

    /// Every pixel of `img` drawn faded into `out` (the same length).
    pub fn draw(&mut self, img: &[u8], out: &mut [u8]) {
        out.copy_from_slice(img);
        self.fade(out);
    }

    /// Every pixel of `pixels` (RGBA) replaced by its faded grey.
    pub fn fade(&mut self, pixels: &mut [u8]) {
        // Pages are mostly runs of one colour: eight pixels like the one before them are one
        // comparison and eight stores. Other runs (text) ask the memo for every pixel: a branch on
        // "like the one before" mispredicts on text's alternating colours and costs more.
        const RUN: usize = 8;
        let white = self.of(u32::MAX);
        let (mut last, mut drawn) = (u32::MAX, u32::from_le_bytes([white, white, white, 255]));
        for run in pixels.chunks_mut(RUN * 4) {
            // No early exit, so the eight comparisons are one vector operation.
            let alike = <&[u8; RUN * 4]>::try_from(&*run)
                .is_ok_and(|eight| (0..RUN).fold(0, |acc, k| acc | (pixel_at(eight, k) ^ last)) == 0);
            for pixel in run.chunks_exact_mut(4) {
                if !alike {
                    let colour = pixel_at(pixel, 0);
                    let v = self.of(colour);
                    (last, drawn) = (colour, u32::from_le_bytes([v, v, v, 255]));
                }
                pixel.copy_from_slice(&drawn.to_le_bytes());
            }
        }
    }

    /// Every pixel of `pixels` (RGBA) as the palette index of its faded grey into `out` (one
    /// byte a pixel): grey `v` is index `first + (v − lowest)`. `false` when a grey is below
    /// `lowest` (its index is then wrong).
    pub fn fade_indexed(&mut self, pixels: &[u8], out: &mut [u8], lowest: u8, first: u8) -> bool {
        // As `fade`: runs of eight like the pixel before are one comparison.
        const RUN: usize = 8;
        let index = |v: u8| v.wrapping_sub(lowest).wrapping_add(first);
        let white = self.of(u32::MAX);
        let (mut last, mut grey, mut darkest) = (u32::MAX, white, white);
        for (run, out) in pixels.chunks(RUN * 4).zip(out.chunks_mut(RUN)) {
            let alike = <&[u8; RUN * 4]>::try_from(run)
                .is_ok_and(|eight| (0..RUN).fold(0, |acc, k| acc | (pixel_at(eight, k) ^ last)) == 0);
            if alike {
                out.fill(index(grey));
                continue;
            }
            for (pixel, o) in run.chunks_exact(4).zip(out) {
                let colour = pixel_at(pixel, 0);
                (last, grey) = (colour, self.of(colour));
                darkest = darkest.min(grey);
                *o = index(grey);
            }
        }
        darkest >= lowest
    }
}

/// Pixel `k` of RGBA bytes as a little-endian word.
#[inline(always)]
fn pixel_at(bytes: &[u8], k: usize) -> u32 {
    u32::from_le_bytes([bytes[k * 4], bytes[k * 4 + 1], bytes[k * 4 + 2], bytes[k * 4 + 3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memo_draws_exactly_what_faded_gray_gives() {
        // Every grey the memo returns, on colliding and repeated pixels, against the blend itself.
        for alpha in [0.0, 0.1, 0.37, 1.0] {
            let mut memo = FadedGray::new(alpha);
            let mut seed = 0x1234_5678u32;
            for i in 0..200_000u32 {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                // A few colours recur (as on a page), the rest are random.
                let pixel = if i % 3 == 0 { [u32::MAX, 0xFF00_0000, 0x80FF_8040][(i % 9 / 3) as usize] } else { seed };
                assert_eq!(memo.of(pixel), faded_gray(pixel.to_le_bytes(), alpha), "{pixel:#010x} at alpha {alpha}");
            }
        }
    }

    #[test]
    fn fading_to_indices_gives_each_pixel_its_grey_s_index() {
        // Runs of one colour, text-like alternation and random colours, rows drawn with one memo.
        let mut memo = FadedGray::new(0.1);
        let lowest = faded_gray([0, 0, 0, 255], 0.1);
        let mut seed = 0x2545_F491u32;
        for len in [0usize, 1, 7, 8, 9, 64, 333] {
            let mut pixels = Vec::new();
            for i in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                let p = match i % 24 {
                    0..=11 => u32::MAX,
                    12..=15 => [0xFF00_0000, 0xFF80_8080][i % 2],
                    _ => seed,
                };
                pixels.extend(p.to_le_bytes());
            }
            let mut out = vec![0; len];
            assert!(memo.fade_indexed(&pixels, &mut out, lowest, 3));
            let expected: Vec<u8> =
                pixels.chunks_exact(4).map(|p| faded_gray(p.try_into().unwrap(), 0.1) - lowest + 3).collect();
            assert_eq!(out, expected, "{len} pixels");
        }
        // A grey below the lowest the indices start at is reported.
        assert!(!memo.fade_indexed(&[0, 0, 0, 255], &mut [0], lowest + 1, 3));
    }

    #[test]
    fn drawing_gives_each_pixel_its_faded_gray_through_runs_and_collisions() {
        // Runs of one colour (the drawing reuses the pixel before), colliding colours, white
        // first and after others, drawn row after row with one memo as the bands do.
        let mut memo = FadedGray::new(0.1);
        let mut seed = 0x9E37_79B9u32;
        for _ in 0..50 {
            let mut img = Vec::new();
            for i in 0..400u32 {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                let pixel = if i % 4 == 0 { u32::MAX } else { seed | (seed & 0x100) << 23 };
                // Runs shorter and longer than the eight pixels drawn at once.
                for _ in 0..1 + seed % 21 {
                    img.extend_from_slice(&pixel.to_le_bytes());
                }
            }
            let mut out = vec![0u8; img.len()];
            memo.draw(&img, &mut out);
            for (p, o) in img.chunks_exact(4).zip(out.chunks_exact(4)) {
                let v = faded_gray([p[0], p[1], p[2], p[3]], 0.1);
                assert_eq!(o, [v, v, v, 255], "{p:?}");
            }
        }
    }

    #[test]
    fn color_delta_black_white_is_pure_luma() {
        // grey pairs have no I/Q component: delta = 0.5053 · 255²
        let (black, white) = (0xFF00_0000, 0xFFFF_FFFF);
        let d = color_delta(black, white, 0);
        assert!((d - 0.5053 * 255.0 * 255.0).abs() < 0.01, "{d}");
        assert!(d < MAX_YIQ_DELTA);
        // white over black: p2 brighter, so the sign is positive; the reverse is negative
        assert_eq!(color_delta(white, black, 0), -d);
    }

    #[test]
    fn color_delta_identical_pixels_are_zero() {
        assert_eq!(color_delta(0x2814_0A28, 0x2814_0A28, 8), 0.0);
    }

    #[test]
    fn faded_gray_of_white_is_white() {
        assert_eq!(faded_gray([255, 255, 255, 255], 0.1), 255);
        assert_eq!(faded_gray([0, 0, 0, 255], 0.1), 229);
    }
}
