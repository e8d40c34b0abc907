//! Page shift: a band of rows inserted into (or removed from) the page pushes everything below
//! it. Rows are hashed; rows of the current image that moved vote for the offset `dy` at which
//! an identical baseline row sits. For the best offsets and those the DOM suggests, every row is
//! tested for equality at offset 0 and at `dy` *within the pixel tolerance* (content that moved
//! re-rasterises slightly), and the split row `belowY` that explains the most rows wins.

use std::collections::HashMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use crate::color_delta::color_delta;
use crate::image::ImageRef;
use crate::pixel::as_pixels;

/// Content below `belowY` moved by `dy` rows (positive: down, rows were inserted at `belowY`;
/// negative: up, `-dy` baseline rows starting at `belowY` were removed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageShift {
    pub dy: i32,
    pub below_y: u32,
}

impl PageShift {
    /// The baseline row shown at row `y` of the current image, or `None` for an inserted row.
    pub fn baseline_row(&self, y: usize) -> Option<usize> {
        let below = self.below_y as usize;
        if y < below {
            return Some(y);
        }
        if self.dy > 0 && y < below + self.dy as usize {
            return None;
        }
        Some((y as i64 - i64::from(self.dy)) as usize)
    }
}

/// At least this many rows must be explained by the shift (and by nothing else) to report one.
const MIN_EXPLAINED_ROWS: usize = 8;
/// Offsets tried in full, best voted first.
const CANDIDATES: usize = 3;
/// A baseline hash seen on more rows than this is too common to vote (blank lines).
const MAX_ROWS_PER_HASH: usize = 4;

/// Finds the page shift between `baseline` and `current`, if one explains the difference.
/// `max_delta` is the per-pixel tolerance (squared YIQ) used for row equality.
///
/// `hints` are shifts the DOM suggests (an element whose height changed by `dy`, its old bottom
/// edge as `belowY`). Rows next to the boundary are often background that matches at both
/// offsets, so several split rows explain the pixels equally well; a hint among them wins.
pub fn detect_shift(
    baseline: ImageRef<'_>,
    current: ImageRef<'_>,
    max_delta: f64,
    hints: &[PageShift],
) -> Option<PageShift> {
    if baseline.width() != current.width() || baseline.width() == 0 {
        return None;
    }
    let (ha, hb) = (baseline.height() as usize, current.height() as usize);
    let keys_a = row_keys(baseline);
    let keys_b = row_keys(current);

    let mut rows_of: HashMap<u64, Vec<usize>> = HashMap::new();
    for (y, key) in keys_a.iter().enumerate() {
        if let RowKey::Hashed(h) = key {
            rows_of.entry(*h).or_default().push(y);
        }
    }
    let mut votes: HashMap<i64, usize> = HashMap::new();
    for (y, key) in keys_b.iter().enumerate() {
        let RowKey::Hashed(h) = key else { continue };
        if y < ha && keys_a[y] == *key {
            continue;
        }
        if let Some(rows) = rows_of.get(h).filter(|r| r.len() <= MAX_ROWS_PER_HASH) {
            for &x in rows {
                *votes.entry(y as i64 - x as i64).or_default() += 1;
            }
        }
    }
    let mut ranked: Vec<(i64, usize)> = votes.into_iter().filter(|&(dy, n)| dy != 0 && n >= 2).collect();
    ranked.sort_by_key(|&(dy, n)| (std::cmp::Reverse(n), dy.abs(), dy));
    ranked.truncate(CANDIDATES);
    // The DOM's offsets are tried too: where another engine or colour profile drew every row a
    // little differently, no row hashes alike and only the tolerant test below can find them.
    // Each is a pass over every row: the first few distinct ones only.
    let mut hinted = 0;
    for hint in hints {
        let dy = i64::from(hint.dy);
        if hinted < CANDIDATES && dy != 0 && !ranked.iter().any(|&(d, _)| d == dy) {
            ranked.push((dy, 0));
            hinted += 1;
        }
    }
    if ranked.is_empty() {
        return None;
    }

    let a32 = as_pixels(baseline.as_bytes());
    let b32 = as_pixels(current.as_bytes());
    let w = baseline.width() as usize;
    // Rows of one key are the same bytes: only rows that differ are read again, pixel by pixel.
    let rows_equal = |ya: usize, yb: usize| {
        ya < ha
            && (keys_a[ya] == keys_b[yb]
                || rows_within_tolerance(&a32[ya * w..(ya + 1) * w], &b32[yb * w..(yb + 1) * w], ya * w * 4, max_delta))
    };
    let at_zero: Vec<bool> = (0..hb).into_par_iter().map(|y| rows_equal(y, y)).collect();
    let mut prefix_zero = vec![0usize; hb + 1];
    for y in 0..hb {
        prefix_zero[y + 1] = prefix_zero[y] + usize::from(at_zero[y]);
    }
    let unshifted = prefix_zero[hb];

    let mut best: Option<(usize, PageShift)> = None;
    for (dy, _) in ranked {
        let at_dy: Vec<bool> = (0..hb)
            .into_par_iter()
            .map(|y| {
                let ya = y as i64 - dy;
                ya >= 0 && rows_equal(ya as usize, y)
            })
            .collect();
        // suffix_dy[k] = rows in [k, hb) that match at offset dy
        let mut suffix_dy = vec![0usize; hb + 1];
        for y in (0..hb).rev() {
            suffix_dy[y] = suffix_dy[y + 1] + usize::from(at_dy[y]);
        }
        let band = dy.max(0) as usize;
        // Later splits win ties: content is only called moved where it must be.
        let mut split: Option<(usize, usize)> = None;
        for k in 0..=hb {
            let score = prefix_zero[k] + suffix_dy[(k + band).min(hb)];
            if split.is_none_or(|(s, _)| score >= s) {
                split = Some((score, k));
            }
        }
        let (score, mut below) = split?;
        for hint in hints.iter().filter(|h| i64::from(h.dy) == dy && (h.below_y as usize) <= hb) {
            let k = hint.below_y as usize;
            if prefix_zero[k] + suffix_dy[(k + band).min(hb)] == score {
                below = k;
                break;
            }
        }
        if score >= unshifted + MIN_EXPLAINED_ROWS && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, PageShift { dy: dy as i32, below_y: below as u32 }));
        }
    }
    best.map(|(_, shift)| shift)
}

/// A row as the search tells rows apart: the colour of a row of one colour (blank rows match
/// anywhere, so they never vote for an offset), else the XXH3 of its bytes. Rows with one key are
/// the same bytes, short of a 64-bit hash collision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RowKey {
    Blank(u32),
    Hashed(u64),
}

/// Every row's key. A row is of one colour exactly when it equals itself moved by one pixel, so
/// both tests are a memcmp and an XXH3, each far faster than a pixel loop on long pages.
fn row_keys(image: ImageRef<'_>) -> Vec<RowKey> {
    let stride = image.width() as usize * 4;
    image
        .as_bytes()
        .par_chunks(stride)
        .map(|row| {
            if row[4..] == row[..row.len() - 4] {
                RowKey::Blank(u32::from_le_bytes([row[0], row[1], row[2], row[3]]))
            } else {
                RowKey::Hashed(xxh3_64(row))
            }
        })
        .collect()
}

/// Rows are equal when at most 1 % of their pixels differ beyond the tolerance (anti-aliased
/// edges of moved content).
fn rows_within_tolerance(a: &[u32], b: &[u32], offset: usize, max_delta: f64) -> bool {
    let allowed = a.len() / 100;
    let mut differing = 0;
    for (x, (&pa, &pb)) in a.iter().zip(b).enumerate() {
        if pa != pb && color_delta(pa, pb, offset + x * 4).abs() > max_delta {
            differing += 1;
            if differing > allowed {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::RgbaImage;

    /// A page of distinct text-like rows: every row differs from every other.
    fn striped(width: u32, height: u32) -> RgbaImage {
        let mut img = RgbaImage::filled(width, height, [255, 255, 255, 255]).unwrap();
        let w = width as usize;
        for y in 0..height as usize {
            let x = (y * 7) % w;
            let i = (y * w + x) * 4;
            img.as_bytes_mut()[i..i + 4].copy_from_slice(&[0, 0, 0, 255]);
        }
        img
    }

    fn insert_rows(img: &RgbaImage, at: u32, rows: u32, rgba: [u8; 4]) -> RgbaImage {
        let stride = img.width() as usize * 4;
        let mut data = img.as_bytes()[..at as usize * stride].to_vec();
        data.extend(rgba.repeat(img.width() as usize * rows as usize));
        data.extend_from_slice(&img.as_bytes()[at as usize * stride..]);
        RgbaImage::from_raw(img.width(), img.height() + rows, data).unwrap()
    }

    #[test]
    fn shift_finds_an_inserted_band() {
        let a = striped(64, 300);
        let b = insert_rows(&a, 100, 24, [200, 30, 30, 255]);
        let s = detect_shift(a.view(), b.view(), 35215.0 * 0.01, &[]).unwrap();
        assert_eq!(s, PageShift { dy: 24, below_y: 100 });
        assert_eq!(s.baseline_row(99), Some(99));
        assert_eq!(s.baseline_row(110), None);
        assert_eq!(s.baseline_row(124), Some(100));
    }

    #[test]
    fn shift_finds_removed_rows() {
        let b = striped(64, 300);
        let a = insert_rows(&b, 50, 10, [0, 0, 255, 255]);
        let s = detect_shift(a.view(), b.view(), 35215.0 * 0.01, &[]).unwrap();
        assert_eq!(s, PageShift { dy: -10, below_y: 50 });
        assert_eq!(s.baseline_row(50), Some(60));
    }

    #[test]
    fn shift_the_offset_explaining_most_rows_wins_over_the_most_voted() {
        // 64 px wide (no pixel of a row may differ), each row one dark pixel: at x = y % 64, its
        // green telling the rows 64 apart.
        let row = |y: usize, red: u8| {
            let mut r = [255u8, 255, 255, 255].repeat(64);
            r[(y % 64) * 4..(y % 64) * 4 + 4].copy_from_slice(&[red, (y / 64 * 60) as u8, 0, 255]);
            r
        };
        let a = RgbaImage::from_raw(64, 200, (0..200).flat_map(|y| row(y, 0)).collect()).unwrap();
        // 20 rows inserted at y = 60 push rows 60..180 down by 20, each re-rasterised (its dark
        // pixel a shade lighter, within the tolerance) but for three, which alone vote for +20.
        // Ten rows in it are baseline rows 190..200 as they were: ten votes for −40, explaining
        // 10 rows where +20 explains 110.
        let mut data: Vec<u8> = (0..60).flat_map(|y| row(y, 0)).collect();
        data.extend([200, 30, 30, 255].repeat(64 * 20));
        for y in 80..200 {
            data.extend(match y {
                100..=102 => row(y - 20, 0),
                150..=159 => row(y + 40, 0),
                _ => row(y - 20, 5),
            });
        }
        let b = RgbaImage::from_raw(64, 200, data).unwrap();
        assert_eq!(detect_shift(a.view(), b.view(), 35215.0 * 0.01, &[]), Some(PageShift { dy: 20, below_y: 60 }));
    }

    #[test]
    fn shift_the_doms_offset_is_tried_where_no_row_hashes_alike() {
        // Another colour profile: every row of the current page a shade off (within the
        // tolerance), 24 rows inserted at 100. No row votes; the DOM's hint finds it.
        let a = striped(64, 300);
        let mut b = insert_rows(&a, 100, 24, [200, 30, 30, 255]);
        for px in b.as_bytes_mut().chunks_exact_mut(4) {
            px[2] = px[2].saturating_sub(1);
        }
        let tolerance = 35215.0 * 0.01;
        assert_eq!(detect_shift(a.view(), b.view(), tolerance, &[]), None);
        let hint = PageShift { dy: 24, below_y: 100 };
        assert_eq!(detect_shift(a.view(), b.view(), tolerance, &[hint]), Some(hint));
        let wrong = PageShift { dy: 7, below_y: 100 };
        assert_eq!(detect_shift(a.view(), b.view(), tolerance, &[wrong]), None, "a hint no rows bear out");
    }

    #[test]
    fn shift_blank_rows_of_two_colours_are_not_alike_at_an_offset() {
        // No row is alike at any offset: the baseline's rows each have a black pixel, the current
        // page's a red one. Only a blank band is in both, white at rows 20..40 in the baseline and
        // grey at rows 60..80 now (far beyond the tolerance). Blank rows never vote, so only the
        // hint tries +40; there the bands must be told apart by their colour.
        let a = {
            let mut img = striped(64, 100);
            img.as_bytes_mut()[20 * 64 * 4..40 * 64 * 4].fill(255);
            img
        };
        let mut b = striped(64, 100);
        for px in b.as_bytes_mut().chunks_exact_mut(4).filter(|px| px[0] == 0) {
            px[0] = 255;
        }
        b.as_bytes_mut()[60 * 64 * 4..80 * 64 * 4].copy_from_slice(&[128, 128, 128, 255].repeat(20 * 64));
        let hint = PageShift { dy: 40, below_y: 20 };
        assert_eq!(detect_shift(a.view(), b.view(), 35215.0 * 0.01, &[hint]), None);
    }

    #[test]
    fn shift_none_for_identical_or_recoloured_pages() {
        let a = striped(64, 300);
        assert_eq!(detect_shift(a.view(), a.view(), 100.0, &[]), None);
        let mut b = a.clone();
        b.as_bytes_mut()[..64 * 4 * 20].fill(90);
        assert_eq!(detect_shift(a.view(), b.view(), 100.0, &[]), None);
    }
}
