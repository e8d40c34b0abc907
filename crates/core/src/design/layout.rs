//! The layout dimension: structural similarity (SSIM) of the aligned greyscale images. Local
//! means, variances and covariance come from separable window sums over an 11 × 11 window, shrunk
//! for canvases smaller than that and shifted inward at the edges so it never leaves the image.
//! Ignored regions are left out of the mean. Low-SSIM tiles become findings with boxes.

use super::critique::{STRUCTURE_LOST_SHARE, STRUCTURE_LOST_SSIM, Severity};
use super::normalise::Rect;
use super::{Canvases, FindingKind, Measured, RawFinding};

/// Window side (pixels) on the canonical canvas.
const WINDOW: usize = 11;
const C1: f64 = (0.01 * 255.0) * (0.01 * 255.0);
const C2: f64 = (0.03 * 255.0) * (0.03 * 255.0);
/// Tiles whose mean SSIM falls below this are reported as structure changes.
const TILE_FINDING_SSIM: f64 = 0.75;
const TILE: usize = 32;
/// At most this many structure findings, largest first.
const MAX_FINDINGS: usize = 3;

/// The per-pixel SSIM map and its mean over the compared (not ignored) pixels.
pub(crate) struct SsimMap {
    pub values: Vec<f32>,
    pub mean: f64,
}

/// SSIM of two greyscale images of `width × height`, per pixel.
pub(crate) fn ssim_map(a: &[u8], b: &[u8], width: usize, height: usize, ignored: &[bool]) -> SsimMap {
    let win_w = WINDOW.min(width);
    let win_h = WINDOW.min(height);
    // Window sums of a, b, a², b², ab, separably: first along each row (from a per-row prefix
    // sum), then down the columns. An 11 × 11 window of squares stays below 2^23, so u32 holds
    // every sum and the table costs 20 bytes per pixel.
    let mut rows = vec![[0u32; 5]; width * height];
    let mut prefix = vec![[0u32; 5]; width + 1];
    for y in 0..height {
        for x in 0..width {
            let (p, q) = (u32::from(a[y * width + x]), u32::from(b[y * width + x]));
            let add = [p, q, p * p, q * q, p * q];
            prefix[x + 1] = std::array::from_fn(|k| prefix[x][k] + add[k]);
        }
        for x in 0..width {
            let x0 = x.saturating_sub(win_w / 2).min(width - win_w);
            rows[y * width + x] = std::array::from_fn(|k| prefix[x0 + win_w][k] - prefix[x0][k]);
        }
    }
    let n = (win_w * win_h) as f64;
    let mut values = vec![1f32; width * height];
    let (mut sum, mut count) = (0f64, 0usize);
    for y in 0..height {
        let y0 = y.saturating_sub(win_h / 2).min(height - win_h);
        for x in 0..width {
            let mut window = [0u32; 5];
            for yy in y0..y0 + win_h {
                let r = rows[yy * width + x];
                for k in 0..5 {
                    window[k] += r[k];
                }
            }
            let s: [f64; 5] = window.map(f64::from);
            let (ma, mb) = (s[0] / n, s[1] / n);
            let va = (s[2] / n - ma * ma).max(0.0);
            let vb = (s[3] / n - mb * mb).max(0.0);
            let cov = s[4] / n - ma * mb;
            let v = ((2.0 * ma * mb + C1) * (2.0 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
            values[y * width + x] = v as f32;
            if !ignored[y * width + x] {
                sum += v;
                count += 1;
            }
        }
    }
    let mean = if count == 0 { 1.0 } else { sum / count as f64 };
    SsimMap { values, mean }
}

/// Scores layout: mean SSIM × 100 (negative SSIM counts as 0).
pub(crate) fn measure(c: &Canvases, map: &SsimMap) -> Measured {
    let score = (map.mean.clamp(0.0, 1.0) * 100.0).clamp(0.0, 100.0);
    let findings = low_ssim_regions(c, map)
        .into_iter()
        .map(|(rect, mean)| {
            let share = rect.area() as f64 / (c.width * c.height) as f64;
            let severity = match (mean < STRUCTURE_LOST_SSIM, share >= STRUCTURE_LOST_SHARE) {
                (true, true) => Severity::High,
                (false, false) if mean >= 0.6 => Severity::Low,
                _ => Severity::Medium,
            };
            RawFinding {
                kind: FindingKind::StructureChanged,
                severity,
                message: format!("the structure differs here (mean SSIM {mean:.2})"),
                fix: "rebuild this area to match the reference's structure: the same elements, in the same order, sizes and alignment (the heat map shows where it differs)".into(),
                rect: Some(rect),
            }
        })
        .collect();
    Measured { score: Some(score), summary: format!("mean SSIM {:.4}", map.mean), findings }
}

/// Boxes of connected tiles whose mean SSIM is below [`TILE_FINDING_SSIM`], largest first, with
/// the mean SSIM inside each.
fn low_ssim_regions(c: &Canvases, map: &SsimMap) -> Vec<(Rect, f64)> {
    let (tw, th) = (c.width.div_ceil(TILE), c.height.div_ceil(TILE));
    let mut low = vec![false; tw * th];
    for ty in 0..th {
        for tx in 0..tw {
            let rect =
                Rect { x0: tx * TILE, y0: ty * TILE, x1: (tx + 1) * TILE, y1: (ty + 1) * TILE }.clip(c.width, c.height);
            low[ty * tw + tx] = mean_in(c, map, rect).is_some_and(|m| m < TILE_FINDING_SSIM);
        }
    }
    let mut regions: Vec<(Rect, f64)> = super::content::components(&low, tw, th, 1)
        .into_iter()
        .map(|r| {
            let rect =
                Rect { x0: r.x0 * TILE, y0: r.y0 * TILE, x1: r.x1 * TILE, y1: r.y1 * TILE }.clip(c.width, c.height);
            (rect, mean_in(c, map, rect).unwrap_or(1.0))
        })
        .collect();
    regions.sort_by(|a, b| b.0.area().cmp(&a.0.area()).then(a.0.cmp(&b.0)));
    regions.truncate(MAX_FINDINGS);
    regions
}

/// Mean SSIM of the compared pixels inside `rect`, or `None` when all are ignored.
fn mean_in(c: &Canvases, map: &SsimMap, rect: Rect) -> Option<f64> {
    let (mut sum, mut count) = (0f64, 0usize);
    for y in rect.y0..rect.y1 {
        for x in rect.x0..rect.x1 {
            if !c.ignored[y * c.width + x] {
                sum += f64::from(map.values[y * c.width + x]);
                count += 1;
            }
        }
    }
    (count > 0).then(|| sum / count as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_ssim_is_exactly_one_for_equal_images() {
        let a: Vec<u8> = (0..64 * 48).map(|i| (i * 37 % 251) as u8).collect();
        let map = ssim_map(&a, &a, 64, 48, &vec![false; 64 * 48]);
        assert!((map.mean - 1.0).abs() < 1e-12, "{}", map.mean);
    }

    #[test]
    fn layout_ssim_window_is_clamped_for_tiny_canvases() {
        // 3 × 2: the window shrinks to the canvas instead of failing.
        let a = [0u8, 255, 0, 255, 0, 255];
        let b = [255u8, 0, 255, 0, 255, 0];
        let map = ssim_map(&a, &b, 3, 2, &[false; 6]);
        // Same means, opposite structure: covariance is −variance, SSIM close to −1.
        // Not −1 exactly: the stabilising constants pull it towards 0.
        assert_eq!(map.mean, -0.9964064683569575);
    }

    #[test]
    fn layout_ssim_ignores_masked_pixels_in_the_mean() {
        let a = vec![200u8; 32 * 32];
        let mut b = a.clone();
        b[..32 * 16].fill(0);
        let mut ignored = vec![false; 32 * 32];
        ignored[..32 * 16].fill(true);
        let all = ssim_map(&a, &b, 32, 32, &vec![false; 32 * 32]).mean;
        let masked = ssim_map(&a, &b, 32, 32, &ignored).mean;
        // Masked, the blacked-out half no longer counts; the windows that straddle the edge
        // still see it, so the mean rises to 0.69, not to 1.
        assert_eq!((all, masked), (0.3457807224400876, 0.6902783010521836));
    }
}
