//! Anti-aliasing detection after V. Vyšniauskas, "Anti-aliased Pixel and Intensity Slope
//! Detector" (2009), in pixelmatch 7.2's exact form: a pixel is anti-aliasing when its
//! neighbours hold both a darker and a brighter pixel, and one of those extremes sits inside a
//! flat area (3+ identical neighbours) in both images.

use crate::color_delta::{brightness_delta, opaque_brightness_delta};

/// The 8 neighbours as (dx, dy) in pixelmatch's column-major order (x outer, y inner): the
/// order decides which of two equally dark/bright neighbours wins.
const NEIGHBOURS: [(isize, isize); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];

/// Whether the pixel at `(x1, y1)` of `img` is likely anti-aliasing; `other` is the image it
/// is compared with (both must show a flat area next to the pixel).
pub fn antialiased(img: &[u32], other: &[u32], x1: usize, y1: usize, width: usize, height: usize) -> bool {
    if x1 == 0 || y1 == 0 || x1 + 1 >= width || y1 + 1 >= height {
        return antialiased_at_edge(img, other, x1, y1, width, height);
    }
    // Interior pixel (nearly all of them): a fixed neighbourhood whose 8 deltas are computed
    // together (the compiler vectorises them), and opaque pixels skip the transparency blend.
    // Same arithmetic as the general path, so the same answer.
    let pos = y1 * width + x1;
    let center = img[pos];
    let w = width as isize;
    let mut at = [0usize; 8];
    let mut neighbours = [0u32; 8];
    for k in 0..8 {
        let (dx, dy) = NEIGHBOURS[k];
        at[k] = (pos as isize + dy * w + dx) as usize;
        neighbours[k] = img[at[k]];
    }
    // Identical neighbours have a zero delta: three of them settle it without any float work
    // (the common case next to flat backgrounds).
    if neighbours.iter().filter(|&&n| n == center).count() > 2 {
        return false;
    }
    let mut deltas = [0.0f64; 8];
    if neighbours.iter().fold(center, |acc, &n| acc & n) >> 24 == 0xFF {
        // All opaque (screenshots): branch-free, so the eight deltas vectorise.
        for k in 0..8 {
            deltas[k] = opaque_brightness_delta(center, neighbours[k]);
        }
    } else {
        for k in 0..8 {
            deltas[k] = brightness_delta(center, neighbours[k], pos * 4);
        }
    }
    // More than two equal neighbours: a flat area, not anti-aliasing.
    if deltas.iter().filter(|&&d| d == 0.0).count() > 2 {
        return false;
    }
    // The darkest and brightest neighbours; the first one wins a tie, as in the sequential walk.
    let (mut min, mut max) = (0.0f64, 0.0f64);
    let (mut min_at, mut max_at) = (0usize, 0usize);
    for (k, &delta) in deltas.iter().enumerate() {
        if delta < min {
            min = delta;
            min_at = at[k];
        } else if delta > max {
            max = delta;
            max_at = at[k];
        }
    }
    if min == 0.0 || max == 0.0 {
        return false;
    }
    let siblings = |at: usize| {
        let (x, y) = (at % width, at / width);
        has_many_siblings(img, x, y, width, height) && has_many_siblings(other, x, y, width, height)
    };
    siblings(min_at) || siblings(max_at)
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
        let pos = y1 * width + x1;
        let val = img[pos];
        let w = width as isize;
        let equal = NEIGHBOURS.iter().filter(|&&(dx, dy)| img[(pos as isize + dy * w + dx) as usize] == val).count();
        return equal > 2;
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
