//! `screen` mode alignment: one global translation of the candidate that best matches the
//! reference, searched on the reference's own pixel grid (so a move of whole pixels is undone
//! exactly, before any resampling), coarse to fine: a pyramid of 2 × 2 averages whose top is at
//! most 256 px wide and at least a quarter scale, searched over ±64 grid pixels, then ±2 pixels at
//! each finer level. When the best offset found is not the identity but does not clearly beat
//! it, or sits on the edge of the search, the identity is kept and the result says the search did
//! not converge. [`align_candidate`] applies the search to a comparison: the candidate moved back
//! and the sentence that says what happened.

use serde::Serialize;

use super::normalise::Rect;
use crate::image::RgbaImage;

/// Search radius in grid (reference) pixels.
const RADIUS: i32 = 64;
/// The pyramid's top is at most this wide...
const TOP_WIDTH: usize = 256;
/// ...and at least this many levels above the grid.
const MIN_LEVELS: usize = 2;
/// Refinement radius at each level below the top, around twice the level above's answer.
const REFINE_RADIUS: i32 = 2;
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
/// `reference(x, y)`, by mean absolute greyscale difference over the overlap; both are
/// `width × height` greyscale on the same grid.
pub(crate) fn search_translation(reference: &[u8], candidate: &[u8], width: usize, height: usize) -> Translation {
    let identity = mean_abs_diff(reference, candidate, width, height, 0, 0).unwrap_or(0.0);
    if identity == 0.0 {
        return Translation { dx: 0, dy: 0, converged: true, before: 0.0, after: 0.0 };
    }
    // levels[0] is the grid itself; each next level halves both sides.
    let mut levels: Vec<(Vec<u8>, Vec<u8>, usize, usize)> = Vec::new();
    let (mut w, mut h) = (width, height);
    while (levels.len() < MIN_LEVELS || w > TOP_WIDTH) && w >= 16 && h >= 16 {
        let (r, c) = match levels.last() {
            None => (halve(reference, w, h), halve(candidate, w, h)),
            Some((r, c, _, _)) => (halve(r, w, h), halve(c, w, h)),
        };
        (w, h) = (w / 2, h / 2);
        levels.push((r, c, w, h));
    }
    let top = levels.len();
    let radius = (RADIUS + (1 << top) - 1) >> top;
    let level = |i: usize| -> (&[u8], &[u8], usize, usize) {
        if i == 0 {
            (reference, candidate, width, height)
        } else {
            (&levels[i - 1].0, &levels[i - 1].1, levels[i - 1].2, levels[i - 1].3)
        }
    };
    let (r, c, w, h) = level(top);
    let Some((mut bx, mut by)) = best_offset(r, c, w, h, (0, 0), radius) else {
        return Translation { dx: 0, dy: 0, converged: false, before: identity, after: identity };
    };
    let on_edge = bx.abs() == radius || by.abs() == radius;
    for i in (0..top).rev() {
        let (r, c, w, h) = level(i);
        (bx, by) = best_offset(r, c, w, h, (2 * bx, 2 * by), REFINE_RADIUS).unwrap_or((2 * bx, 2 * by));
    }
    let after = mean_abs_diff(reference, candidate, width, height, bx, by).unwrap_or(f64::INFINITY);
    // The identity winning the search is convergence too: the images already line up.
    if (bx, by) == (0, 0) || after >= identity {
        return Translation { dx: 0, dy: 0, converged: true, before: identity, after: identity };
    }
    let converged = !on_edge && after <= identity * MIN_IMPROVEMENT;
    if converged {
        Translation { dx: bx, dy: by, converged, before: identity, after }
    } else {
        Translation { dx: 0, dy: 0, converged, before: identity, after: identity }
    }
}

/// The offset within `radius` of `centre` with the smallest difference; ties keep the earlier
/// offset in scan order, so the answer is deterministic. `None` when no offset overlaps enough.
fn best_offset(r: &[u8], c: &[u8], w: usize, h: usize, centre: (i32, i32), radius: i32) -> Option<(i32, i32)> {
    let mut best: Option<(i32, i32, f64)> = None;
    for dy in centre.1 - radius..=centre.1 + radius {
        for dx in centre.0 - radius..=centre.0 + radius {
            if let Some(cost) = mean_abs_diff(r, c, w, h, dx, dy)
                && best.is_none_or(|b| cost < b.2)
            {
                best = Some((dx, dy, cost));
            }
        }
    }
    best.map(|(dx, dy, _)| (dx, dy))
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
        // Per row in u32 (at most 16,384 × 255), which vectorises; the total in u64.
        sum += u64::from(r.iter().zip(c).map(|(&a, &b)| u32::from(a.abs_diff(b))).sum::<u32>());
    }
    Some(sum as f64 / overlap)
}

/// A half-size copy (2 × 2 box average, rounded; an odd last row or column is dropped).
fn halve(luma: &[u8], width: usize, height: usize) -> Vec<u8> {
    let (hw, hh) = (width / 2, height / 2);
    let mut out = vec![0u8; hw * hh];
    for y in 0..hh {
        let (top, bottom) = (&luma[2 * y * width..], &luma[(2 * y + 1) * width..]);
        for x in 0..hw {
            let sum = u16::from(top[2 * x])
                + u16::from(top[2 * x + 1])
                + u16::from(bottom[2 * x])
                + u16::from(bottom[2 * x + 1]);
            out[y * hw + x] = ((sum + 2) / 4) as u8;
        }
    }
    out
}

/// The candidate moved by `(-dx, -dy)` so its content lands where the reference's is. The strips
/// it no longer covers show the reference's own pixels (equal there, nothing painted that could
/// read as content) and are returned, so the comparison can leave them out.
pub(crate) fn translate_onto(candidate: &RgbaImage, reference: &RgbaImage, dx: i32, dy: i32) -> (RgbaImage, Vec<Rect>) {
    let mut out = reference.clone();
    let (w, h) = (candidate.width() as i32, candidate.height() as i32);
    let (x0, x1) = (0.max(-dx), w.min(w - dx));
    let stride = w as usize * 4;
    if x1 > x0 {
        for y in 0.max(-dy)..h.min(h - dy) {
            let (sy, dst_row) = ((y + dy) as usize, y as usize);
            let src = &candidate.as_bytes()[sy * stride + (x0 + dx) as usize * 4..sy * stride + (x1 + dx) as usize * 4];
            out.as_bytes_mut()[dst_row * stride + x0 as usize * 4..dst_row * stride + x1 as usize * 4]
                .copy_from_slice(src);
        }
    }
    let (wu, hu) = (w as usize, h as usize);
    let clamp = |v: i32, max: usize| (v.max(0) as usize).min(max);
    let mut uncovered = Vec::new();
    // Columns on the left or right, rows at the top or bottom, with nothing from the candidate.
    if dx > 0 {
        uncovered.push(Rect { x0: clamp(w - dx, wu), y0: 0, x1: wu, y1: hu });
    } else if dx < 0 {
        uncovered.push(Rect { x0: 0, y0: 0, x1: clamp(-dx, wu), y1: hu });
    }
    if dy > 0 {
        uncovered.push(Rect { x0: 0, y0: clamp(h - dy, hu), x1: wu, y1: hu });
    } else if dy < 0 {
        uncovered.push(Rect { x0: 0, y0: 0, x1: wu, y1: clamp(-dy, hu) });
    }
    (out, uncovered)
}

/// `screen` mode: searches the translation on the grid, moves the candidate back when the search
/// converged, and describes what happened; returns the strips only the reference covers.
pub(super) fn align_candidate(
    reference: &RgbaImage,
    candidate: &mut RgbaImage,
    ignore_rects: &[Rect],
    scale: f64,
) -> (Alignment, Vec<Rect>) {
    let grey = |image: &RgbaImage| -> Vec<u8> {
        image.as_bytes().chunks_exact(4).map(|p| super::normalise::luma([p[0], p[1], p[2]])).collect()
    };
    let (width, height) = (reference.width() as usize, reference.height() as usize);
    let (r, c) = rayon::join(|| grey(reference), || grey(candidate));
    let t = search_translation(&r, &c, width, height);
    let moved = t.dx != 0 || t.dy != 0;
    let note = if !t.converged {
        "the translation search did not converge (no offset within ±64 px clearly beat the identity), so the images were compared unaligned".to_string()
    } else if !moved {
        "no translation needed: the images line up as they are".to_string()
    } else {
        let mut strips = Vec::new();
        if t.dx != 0 {
            strips.push(format!(
                "{} px along the {} edge",
                t.dx.unsigned_abs(),
                if t.dx > 0 { "right" } else { "left" }
            ));
        }
        if t.dy != 0 {
            strips.push(format!("{} px along the {}", t.dy.unsigned_abs(), if t.dy > 0 { "bottom" } else { "top" }));
        }
        format!(
            "the candidate sits {} the reference; it was moved back before scoring, leaving out what only the reference shows ({})",
            offset_words(t.dx, t.dy),
            strips.join(", ")
        )
    };
    let mut uncovered = Vec::new();
    if moved {
        let (moved, strips) = translate_onto(candidate, reference, t.dx, t.dy);
        *candidate = moved;
        uncovered = strips;
        super::ignore::show_reference_in(candidate, reference, ignore_rects);
    }
    let alignment = Alignment {
        applied: moved,
        converged: t.converged,
        dx: t.dx,
        dy: t.dy,
        canonical_dx: (f64::from(t.dx) * scale).round() as i32,
        canonical_dy: (f64::from(t.dy) * scale).round() as i32,
        difference_before: super::round2(t.before),
        difference_after: super::round2(t.after),
        note,
    };
    (alignment, uncovered)
}

/// Where the candidate sits, for "the candidate sits … the reference": "5 px to the right of
/// and 4 px below", "3 px above".
pub(super) fn offset_words(dx: i32, dy: i32) -> String {
    let mut parts = Vec::new();
    if dx != 0 {
        parts.push(format!("{} px to the {} of", dx.unsigned_abs(), if dx > 0 { "right" } else { "left" }));
    }
    if dy != 0 {
        parts.push(format!("{} px {}", dy.unsigned_abs(), if dy > 0 { "below" } else { "above" }));
    }
    parts.join(" and ")
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
    fn translate_onto_moves_content_and_shows_the_reference_where_nothing_is_left() {
        // A 4 × 2 candidate whose pixel (1, 1) is marked; moved back by (1, 1) it lands on (0, 0).
        let reference = RgbaImage::filled(4, 2, [7, 7, 7, 255]).unwrap();
        let mut candidate = RgbaImage::filled(4, 2, [0, 0, 0, 255]).unwrap();
        candidate.as_bytes_mut()[(4 + 1) * 4..(4 + 1) * 4 + 4].copy_from_slice(&[9, 9, 9, 255]);
        let (moved, uncovered) = translate_onto(&candidate, &reference, 1, 1);
        let px = |x: usize, y: usize| moved.as_bytes()[(y * 4 + x) * 4];
        assert_eq!((px(0, 0), px(1, 0), px(2, 0)), (9, 0, 0));
        // The last column and the last row come from nowhere in the candidate.
        assert_eq!((px(3, 0), px(0, 1), px(3, 1)), (7, 7, 7));
        assert_eq!(uncovered, vec![Rect::new(3, 0, 4, 2), Rect::new(0, 1, 4, 2)]);
        let (same, none) = translate_onto(&candidate, &reference, 0, 0);
        assert_eq!((same.as_bytes(), none.len()), (candidate.as_bytes(), 0));
    }
}
