//! Anti-aliasing detection after V. Vyšniauskas, "Anti-aliased Pixel and Intensity Slope
//! Detector" (2009), in pixelmatch 7.2's exact form: a pixel is anti-aliasing when its
//! neighbours hold both a darker and a brighter pixel, and one of those extremes sits inside a
//! flat area (3+ identical neighbours) in both images.

use crate::color_delta::brightness_delta;

/// The 8 neighbours as (dx, dy) in pixelmatch's column-major order (x outer, y inner): the
/// order decides which of two equally dark/bright neighbours wins.
const NEIGHBOURS: [(isize, isize); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];

/// Whether the pixel at `(x1, y1)` of `img` is likely anti-aliasing; `other` is the image it
/// is compared with (both must show a flat area next to the pixel).
pub fn antialiased(img: &[u32], other: &[u32], x1: usize, y1: usize, width: usize, height: usize) -> bool {
    if x1 == 0 || y1 == 0 || x1 + 1 >= width || y1 + 1 >= height {
        return antialiased_at_edge(img, other, x1, y1, width, height);
    }
    // Interior pixel (nearly all of them): a fixed neighbourhood, and opaque pixels compare
    // integer brightness instead of blending. The same answer as the general path.
    let pos = y1 * width + x1;
    let (neighbours, center) = neighbourhood(img, pos, width);
    // Identical neighbours have a zero delta: three of them settle it without any brightness
    // (the common case next to flat backgrounds).
    if neighbours.iter().filter(|&&n| n == center).count() > 2 {
        return false;
    }
    let found = if neighbours.iter().fold(center, |acc, &n| acc & n) >> 24 == 0xFF {
        // All opaque (screenshots): integer brightness, exactly as ordered as pixelmatch's f64
        // deltas (see `luma`), with no float work.
        let lit = luma(center);
        extremes(neighbours.map(|n| lit - luma(n)), 0)
    } else {
        let deltas = neighbours.map(|n| brightness_delta(center, n, pos * 4));
        // More than two equal neighbours: a flat area, not anti-aliasing.
        if deltas.iter().filter(|&&d| d == 0.0).count() > 2 {
            return false;
        }
        extremes(deltas, 0.0)
    };
    let Some((min_k, max_k)) = found else {
        return false;
    };
    let at = |k: usize| {
        let (dx, dy) = NEIGHBOURS[k];
        (pos as isize + dy * width as isize + dx) as usize
    };
    let (min_at, max_at) = (at(min_k), at(max_k));
    let siblings = |at: usize| {
        let (x, y) = (at % width, at / width);
        has_many_siblings(img, x, y, width, height) && has_many_siblings(other, x, y, width, height)
    };
    siblings(min_at) || siblings(max_at)
}

/// The 8 neighbours of the interior pixel at `pos`, in [`NEIGHBOURS`] order, and the pixel:
/// three rows of three, each bounds-checked once.
#[inline(always)]
fn neighbourhood(img: &[u32], pos: usize, width: usize) -> ([u32; 8], u32) {
    let above = &img[pos - width - 1..pos - width + 2];
    let row = &img[pos - 1..pos + 2];
    let below = &img[pos + width - 1..pos + width + 2];
    ([above[0], row[0], below[0], above[1], below[1], above[2], row[2], below[2]], row[1])
}

/// pixelmatch's brightness coefficients (0.29889531, 0.58662247, 0.11448223) times 10^8.
const LUMA: [i64; 3] = [29_889_531, 58_662_247, 11_448_223];

/// An opaque pixel's brightness as an exact integer: pixelmatch's Y times 10^8. pixelmatch
/// computes each brightness delta in f64 from the channel differences; that delta is within
/// 1e-12 of `(luma(p1) - luma(p2)) / 10^8`, and two different colours never have the same luma
/// (`no_two_colours_share_a_luma`), so the lumas of two colours are at least 1e-8 apart once
/// divided. The integer deltas therefore have the f64 deltas' signs, zeros and order: the
/// detector decides the same, pixel for pixel.
#[inline(always)]
fn luma(p: u32) -> i64 {
    LUMA[0] * i64::from(p as u8) + LUMA[1] * i64::from((p >> 8) as u8) + LUMA[2] * i64::from((p >> 16) as u8)
}

/// The indexes of the lowest and the highest of the centre's brightness deltas (a delta is the
/// centre's brightness minus the neighbour's: the lowest is the brightest neighbour), or None
/// when no neighbour is brighter or none darker. The first one wins a tie, as in pixelmatch's
/// sequential walk.
#[inline(always)]
fn extremes<T: PartialOrd + Copy>(deltas: [T; 8], zero: T) -> Option<(usize, usize)> {
    let (mut min, mut max) = (zero, zero);
    let (mut min_at, mut max_at) = (0usize, 0usize);
    for (k, &delta) in deltas.iter().enumerate() {
        if delta < min {
            min = delta;
            min_at = k;
        } else if delta > max {
            max = delta;
            max_at = k;
        }
    }
    (min != zero && max != zero).then_some((min_at, max_at))
}

/// The general form for pixels on the image border, where the neighbourhood is cut off.
fn antialiased_at_edge(img: &[u32], other: &[u32], x1: usize, y1: usize, width: usize, height: usize) -> bool {
    let x0 = x1.saturating_sub(1);
    let y0 = y1.saturating_sub(1);
    let x2 = (x1 + 1).min(width - 1);
    let y2 = (y1 + 1).min(height - 1);
    let pos = y1 * width + x1;
    let center = img[pos];
    let mut zeroes = u32::from(x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2);
    let (mut min, mut max) = (0.0f64, 0.0f64);
    let (mut min_x, mut min_y, mut max_x, mut max_y) = (0, 0, 0, 0);

    // Column-major walk: the order decides which of two equally dark/bright neighbours wins.
    for x in x0..=x2 {
        for y in y0..=y2 {
            if x == x1 && y == y1 {
                continue;
            }
            let delta = brightness_delta(center, img[y * width + x], pos * 4);
            if delta == 0.0 {
                zeroes += 1;
                // more than two equal siblings: a flat area, not anti-aliasing
                if zeroes > 2 {
                    return false;
                }
            } else if delta < min {
                min = delta;
                min_x = x;
                min_y = y;
            } else if delta > max {
                max = delta;
                max_x = x;
                max_y = y;
            }
        }
    }

    if min == 0.0 || max == 0.0 {
        return false;
    }
    (has_many_siblings(img, min_x, min_y, width, height) && has_many_siblings(other, min_x, min_y, width, height))
        || (has_many_siblings(img, max_x, max_y, width, height)
            && has_many_siblings(other, max_x, max_y, width, height))
}

/// Whether the pixel at `(x1, y1)` has 3+ neighbours of exactly its colour.
fn has_many_siblings(img: &[u32], x1: usize, y1: usize, width: usize, height: usize) -> bool {
    if x1 > 0 && y1 > 0 && x1 + 1 < width && y1 + 1 < height {
        let (neighbours, val) = neighbourhood(img, y1 * width + x1, width);
        return neighbours.iter().filter(|&&n| n == val).count() > 2;
    }
    let x0 = x1.saturating_sub(1);
    let y0 = y1.saturating_sub(1);
    let x2 = (x1 + 1).min(width - 1);
    let y2 = (y1 + 1).min(height - 1);
    let val = img[y1 * width + x1];
    let mut zeroes = u32::from(x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2);
    for x in x0..=x2 {
        for y in y0..=y2 {
            if x == x1 && y == y1 {
                continue;
            }
            zeroes += u32::from(val == img[y * width + x]);
            if zeroes > 2 {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_colours_share_a_luma() {
        // Two colours with one luma differ by (dr, dg, db) with LUMA · (dr, dg, db) = 0.
        for dr in -255i64..=255 {
            for dg in -255i64..=255 {
                let rest = -(LUMA[0] * dr + LUMA[1] * dg);
                let db = rest / LUMA[2];
                let shared = rest % LUMA[2] == 0 && db.abs() <= 255 && (dr, dg, db) != (0, 0, 0);
                assert!(!shared, "({dr}, {dg}, {db}) has luma 0");
            }
        }
    }

    #[test]
    fn integer_luma_orders_colours_as_pixelmatch_s_deltas() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u32 | 0xFF00_0000
        };
        for _ in 0..200_000 {
            let (c, n1, n2) = (next(), next(), next());
            // pixelmatch's f64 brightness deltas of opaque pixels.
            let (f1, f2) = (brightness_delta(c, n1, 0), brightness_delta(c, n2, 0));
            let (i1, i2) = (luma(c) - luma(n1), luma(c) - luma(n2));
            assert_eq!(f1.partial_cmp(&0.0), Some(i1.cmp(&0)), "{c:08x} {n1:08x}");
            assert_eq!(f1.partial_cmp(&f2), Some(i1.cmp(&i2)), "{c:08x} {n1:08x} {n2:08x}");
        }
    }

    /// Interior pixels decided by the fast path and by the general, sequential form agree, on
    /// images of few colours (ties and flat areas) and of many, opaque and not.
    #[test]
    fn interior_pixels_are_decided_as_the_general_form_decides() {
        let (w, h) = (48usize, 40usize);
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for palette_size in [2usize, 3, 5, 40, 4096] {
            for translucent in [false, true] {
                let palette: Vec<u32> = (0..palette_size)
                    .map(|_| {
                        let p = next() as u32;
                        if translucent && next() % 4 == 0 { p } else { p | 0xFF00_0000 }
                    })
                    .collect();
                let mut image =
                    |_: ()| -> Vec<u32> { (0..w * h).map(|_| palette[next() as usize % palette.len()]).collect() };
                let (img, other) = (image(()), image(()));
                let mut decided = [0usize; 2];
                for y in 1..h - 1 {
                    for x in 1..w - 1 {
                        let fast = antialiased(&img, &other, x, y, w, h);
                        assert_eq!(
                            fast,
                            antialiased_at_edge(&img, &other, x, y, w, h),
                            "{palette_size} colours at ({x}, {y})"
                        );
                        decided[usize::from(fast)] += 1;
                    }
                }
                if (3..=5).contains(&palette_size) {
                    assert!(decided[1] > 0 && decided[0] > 0, "{palette_size} colours: {decided:?}");
                }
            }
        }
    }
}
