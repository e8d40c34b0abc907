//! Anti-aliasing detection after V. Vyšniauskas, "Anti-aliased Pixel and Intensity Slope
//! Detector" (2009), in pixelmatch 7.2's exact form: a pixel is anti-aliasing when its
//! neighbours hold both a darker and a brighter pixel, and one of those extremes sits inside a
//! flat area (3+ identical neighbours) in both images.

use crate::color_delta::brightness_delta;

#[inline(always)]
pub fn rgba(p: u32) -> [u8; 4] {
    p.to_le_bytes()
}

/// Whether the pixel at `(x1, y1)` of `img` is likely anti-aliasing; `other` is the image it
/// is compared with (both must show a flat area next to the pixel).
pub fn antialiased(img: &[u32], other: &[u32], x1: usize, y1: usize, width: usize, height: usize) -> bool {
    let x0 = x1.saturating_sub(1);
    let y0 = y1.saturating_sub(1);
    let x2 = (x1 + 1).min(width - 1);
    let y2 = (y1 + 1).min(height - 1);
    let pos = y1 * width + x1;
    let center = rgba(img[pos]);
    let mut zeroes = u32::from(x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2);
    let (mut min, mut max) = (0.0f64, 0.0f64);
    let (mut min_x, mut min_y, mut max_x, mut max_y) = (0, 0, 0, 0);

    // Column-major walk: the order decides which of two equally dark/bright neighbours wins.
    for x in x0..=x2 {
        for y in y0..=y2 {
            if x == x1 && y == y1 {
                continue;
            }
            let delta = brightness_delta(center, rgba(img[y * width + x]), pos * 4);
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
