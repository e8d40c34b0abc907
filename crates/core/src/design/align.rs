//! `screen` mode alignment: one global translation of the candidate that best matches the
//! reference, found coarse to fine on greyscale (a quarter-scale search over ±64 canonical
//! pixels, then ±4 pixels at full scale). When the best offset found is not the identity but does
//! not clearly beat it, or sits on the edge of the search, the identity is kept and the result
//! says the search did not converge.

use serde::Serialize;

use super::normalise::Plane;

/// Search radius at quarter scale: ±16 × 4 = ±64 canonical pixels.
const COARSE_RADIUS: i32 = 16;
/// Refinement radius at full scale around the coarse answer.
const FINE_RADIUS: i32 = 4;
/// An offset must leave at most this share of the identity's mean difference to be taken.
const MIN_IMPROVEMENT: f64 = 0.8;
/// Offsets that overlap less than this share of the canvas are not considered.
const MIN_OVERLAP: f64 = 0.5;

/// How the candidate was aligned to the reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Alignment {
    /// Whether a translation was applied (only in `screen` mode, and only when the search converged).
    pub applied: bool,
    /// Whether the translation search converged (`false` in `widget` mode, where none runs).
    pub converged: bool,
    /// Horizontal offset of the candidate's content relative to the reference, in reference
    /// pixels (positive: the candidate sits further right). 0 when not applied.
    pub dx: i32,
    /// Vertical offset in reference pixels (positive: the candidate sits lower). 0 when not applied.
    pub dy: i32,
    /// The same offset on the 768-px canonical canvas.
    pub canonical_dx: i32,
    /// The same offset on the 768-px canonical canvas.
    pub canonical_dy: i32,
    /// Mean absolute greyscale difference (0–255) before alignment.
    pub difference_before: f64,
    /// Mean absolute greyscale difference (0–255) after alignment (equal to before when not applied).
    pub difference_after: f64,
    /// One sentence saying what happened, for people and agents.
    pub note: String,
}

impl Alignment {
    /// The record for `widget` mode: no search, no translation.
    pub(crate) fn not_searched() -> Self {
        Self {
            applied: false,
            converged: false,
            dx: 0,
            dy: 0,
            canonical_dx: 0,
            canonical_dy: 0,
            difference_before: 0.0,
            difference_after: 0.0,
            note: "widget mode compares the images as they are, without alignment".into(),
        }
    }
}

/// The outcome of the translation search on the canonical canvas.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Translation {
    pub dx: i32,
    pub dy: i32,
    pub converged: bool,
    pub before: f64,
    pub after: f64,
}

/// Searches the translation `(dx, dy)` such that `candidate(x + dx, y + dy)` best matches
/// `reference(x, y)`, by mean absolute greyscale difference over the overlap.
pub(crate) fn search_translation(reference: &[u8], candidate: &[u8], width: usize, height: usize) -> Translation {
    let identity = mean_abs_diff(reference, candidate, width, height, 0, 0).unwrap_or(0.0);
    if identity == 0.0 {
        return Translation { dx: 0, dy: 0, converged: true, before: 0.0, after: 0.0 };
    }
    let (rw, rh) = (width / 4, height / 4);
    let (r4, c4) = (quarter(reference, width, height), quarter(candidate, width, height));
    let mut coarse = (0, 0, f64::INFINITY);
    for dy in -COARSE_RADIUS..=COARSE_RADIUS {
        for dx in -COARSE_RADIUS..=COARSE_RADIUS {
            if let Some(cost) = mean_abs_diff(&r4, &c4, rw, rh, dx, dy) {
                // Strictly better only: ties keep the earlier (scan-order) offset, deterministic.
                if cost < coarse.2 {
                    coarse = (dx, dy, cost);
                }
            }
        }
    }
    let on_edge = coarse.0.abs() == COARSE_RADIUS || coarse.1.abs() == COARSE_RADIUS;
    let mut best = (0, 0, identity);
    if coarse.2.is_finite() {
        for dy in coarse.1 * 4 - FINE_RADIUS..=coarse.1 * 4 + FINE_RADIUS {
            for dx in coarse.0 * 4 - FINE_RADIUS..=coarse.0 * 4 + FINE_RADIUS {
                if let Some(cost) = mean_abs_diff(reference, candidate, width, height, dx, dy)
                    && cost < best.2
                {
                    best = (dx, dy, cost);
                }
            }
        }
    }
    // The identity winning the search is convergence too: the images already line up.
    let identity_best = (best.0, best.1) == (0, 0);
    let converged = identity_best || (!on_edge && best.2 <= identity * MIN_IMPROVEMENT);
    if converged {
        Translation { dx: best.0, dy: best.1, converged, before: identity, after: best.2 }
    } else {
        Translation { dx: 0, dy: 0, converged, before: identity, after: identity }
    }
}

/// Mean |reference(x, y) − candidate(x + dx, y + dy)| over the overlap, or `None` when the
/// overlap is too small to judge.
fn mean_abs_diff(reference: &[u8], candidate: &[u8], width: usize, height: usize, dx: i32, dy: i32) -> Option<f64> {
    let (w, h) = (width as i32, height as i32);
    let (x0, x1) = (0.max(-dx), w.min(w - dx));
    let (y0, y1) = (0.max(-dy), h.min(h - dy));
    if x1 <= x0 || y1 <= y0 {
        return None;
    }
    let overlap = ((x1 - x0) * (y1 - y0)) as f64;
    if overlap < MIN_OVERLAP * (w * h) as f64 {
        return None;
    }
    let mut sum = 0u64;
    for y in y0..y1 {
        let r = &reference[(y * w + x0) as usize..(y * w + x1) as usize];
        let c = &candidate[((y + dy) * w + x0 + dx) as usize..((y + dy) * w + x1 + dx) as usize];
        sum += r.iter().zip(c).map(|(&a, &b)| u64::from(a.abs_diff(b))).sum::<u64>();
    }
    Some(sum as f64 / overlap)
}

/// A quarter-scale copy (4 × 4 box average).
fn quarter(luma: &[u8], width: usize, height: usize) -> Vec<u8> {
    let (qw, qh) = (width / 4, height / 4);
    let mut out = vec![0u8; qw * qh];
    for y in 0..qh {
        for x in 0..qw {
            let mut sum = 0u32;
            for yy in 0..4 {
                for xx in 0..4 {
                    sum += u32::from(luma[(y * 4 + yy) * width + x * 4 + xx]);
                }
            }
            out[y * qw + x] = ((sum + 8) / 16) as u8;
        }
    }
    out
}

/// The candidate moved by `(-dx, -dy)` so its content lands where the reference's is; uncovered
/// pixels take `fill`.
pub(crate) fn translate(plane: &Plane, dx: i32, dy: i32, fill: [u8; 3]) -> Plane {
    let mut out = Plane::filled(plane.width, plane.height, fill);
    let (w, h) = (plane.width as i32, plane.height as i32);
    for y in 0..h {
        let sy = y + dy;
        if !(0..h).contains(&sy) {
            continue;
        }
        let (x0, x1) = (0.max(-dx), w.min(w - dx));
        if x1 <= x0 {
            continue;
        }
        let dst = &mut out.rgb[(y * w + x0) as usize..(y * w + x1) as usize];
        dst.copy_from_slice(&plane.rgb[(sy * w + x0 + dx) as usize..(sy * w + x1 + dx) as usize]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A textured greyscale canvas: blocks of varying brightness that make offsets unambiguous.
    fn texture(width: usize, height: usize, ox: i32, oy: i32) -> Vec<u8> {
        let mut out = vec![255u8; width * height];
        for y in 0..height as i32 {
            for x in 0..width as i32 {
                let (sx, sy) = (x - ox, y - oy);
                if sx >= 40 && sy >= 30 && ((sx / 24) + (sy / 18)) % 3 == 0 && sx < width as i32 - 40 {
                    out[(y * width as i32 + x) as usize] = ((sx * 7 + sy * 13) % 200) as u8;
                }
            }
        }
        out
    }

    #[test]
    fn align_recovers_an_exact_translation() {
        let (w, h) = (256, 192);
        let r = texture(w, h, 0, 0);
        let c = texture(w, h, 7, -5);
        let t = search_translation(&r, &c, w, h);
        assert_eq!((t.dx, t.dy, t.converged), (7, -5, true));
        // Moved back by the found offset, the textures coincide: no difference is left.
        assert_eq!((t.before, t.after), (30.277628580729168, 0.0));
    }

    #[test]
    fn align_keeps_identity_for_equal_and_for_unrelated_images() {
        let (w, h) = (256, 192);
        let r = texture(w, h, 0, 0);
        assert_eq!(
            search_translation(&r, &r, w, h),
            Translation { dx: 0, dy: 0, converged: true, before: 0.0, after: 0.0 }
        );
        // A local change only: the identity is the best offset, and that is convergence.
        let mut changed = r.clone();
        changed[100 * w + 100..100 * w + 140].fill(0);
        let t = search_translation(&r, &changed, w, h);
        assert_eq!((t.dx, t.dy, t.converged), (0, 0, true));
        // Unrelated textures: some offset wins by a hair, not clearly, so the identity stays
        // and the search is flagged as not converged.
        let noise = |mut state: u64| -> Vec<u8> {
            (0..w * h)
                .map(|_| {
                    // xorshift64: independent streams for different seeds.
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 56) as u8
                })
                .collect()
        };
        let t = search_translation(&noise(1), &noise(0x9E37_79B9_7F4A_7C15), w, h);
        assert_eq!((t.dx, t.dy, t.converged), (0, 0, false), "{t:?}");
    }

    #[test]
    fn translate_moves_content_and_fills_the_edge() {
        let mut p = Plane::filled(4, 2, [0, 0, 0]);
        p.rgb[1] = [9, 9, 9];
        let t = translate(&p, 1, 0, [7, 7, 7]);
        assert_eq!(t.rgb[0], [9, 9, 9]);
        assert_eq!(t.rgb[3], [7, 7, 7]);
    }
}
