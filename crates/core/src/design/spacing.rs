//! The spacing dimension: the outer margins of the content and the vertical rhythm of its major
//! blocks.
//!
//! Major blocks are content blocks covering at least [`MAJOR_SHARE`] of the canvas. Full-bleed
//! blocks (a header bar spanning the width) frame the view rather than sit in it, so margins are
//! measured on the others: left, right, and top (below any full-bleed block above them); bottom
//! too in `widget` mode, where the crop is the component's own box (a screen's bottom edge is
//! wherever the viewport ended). The rhythm is the list of vertical gaps between bands of blocks.
//! Each measure compares as `(min + 8) / (max + 8)` (8 px keeps 0 vs 3 px from reading as
//! total change); score = `100 · mean(margins) · mean(gaps)`.

use super::critique::{SPACING_PX, Severity};
use super::normalise::Rect;
use super::{Canvases, DesignMode, FindingKind, Measured, RawFinding, ref_px};

/// A block is major from this share of the canvas.
const MAJOR_SHARE: f64 = 0.002;
/// A block at least this share of the canvas width is full-bleed.
const FULL_BLEED: f64 = 0.95;
/// The floor added to both sides of every comparison, in canonical pixels.
const FLOOR_PX: f64 = 8.0;
/// Measures more different than this become findings.
const FINDING_SIMILARITY: f64 = 0.9;

fn similarity(a: usize, b: usize) -> f64 {
    (a.min(b) as f64 + FLOOR_PX) / (a.max(b) as f64 + FLOOR_PX)
}

/// The spacing measures of one image.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spacing {
    /// (name, pixels) for each measured outer margin.
    pub margins: Vec<(&'static str, usize)>,
    /// Vertical gaps between consecutive bands, top to bottom, with the gap's box.
    pub gaps: Vec<(usize, Rect)>,
}

/// Margins and rhythm of `blocks` on a `width`-wide canvas whose content ends at `content_height`.
pub(crate) fn spacing(
    blocks: &[Rect],
    width: usize,
    content_height: usize,
    mode: DesignMode,
    canvas_area: usize,
) -> Option<Spacing> {
    let major: Vec<Rect> =
        blocks.iter().copied().filter(|b| b.area() as f64 >= MAJOR_SHARE * canvas_area as f64).collect();
    if major.is_empty() {
        return None;
    }
    let is_bleed = |b: &Rect| b.width() as f64 >= FULL_BLEED * width as f64;
    let column: Vec<Rect> = if major.iter().all(is_bleed) {
        major.clone()
    } else {
        major.iter().copied().filter(|b| !is_bleed(b)).collect()
    };
    let left = column.iter().map(|b| b.x0).min().expect("non-empty");
    let right = width - column.iter().map(|b| b.x1).max().expect("non-empty");
    let first = column.iter().map(|b| b.y0).min().expect("non-empty");
    let frame_above = major.iter().filter(|b| is_bleed(b) && b.y1 <= first).map(|b| b.y1).max().unwrap_or(0);
    let mut margins = vec![("left", left), ("right", right), ("top", first - frame_above)];
    if mode == DesignMode::Widget {
        let last = column.iter().map(|b| b.y1).max().expect("non-empty");
        margins.push(("bottom", content_height.saturating_sub(last)));
    }
    // Bands: blocks whose vertical extents overlap form one band.
    let mut sorted = column.clone();
    sorted.sort_by_key(|b| (b.y0, b.y1));
    let mut bands: Vec<Rect> = Vec::new();
    for b in sorted {
        match bands.last_mut() {
            Some(band) if b.y0 < band.y1 => *band = band.union(&b),
            _ => bands.push(b),
        }
    }
    let gaps = bands
        .windows(2)
        .map(|w| {
            let gap = Rect { x0: w[0].x0.min(w[1].x0), y0: w[0].y1, x1: w[0].x1.max(w[1].x1), y1: w[1].y0 };
            (w[1].y0 - w[0].y1, gap)
        })
        .collect();
    Some(Spacing { margins, gaps })
}

fn median(values: &mut [usize]) -> usize {
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or(0)
}

/// Scores spacing from the blocks of both images.
pub(crate) fn measure(c: &Canvases) -> Measured {
    let area = c.width * c.height;
    let a = spacing(&c.reference_blocks, c.width, c.reference_content_height, c.mode, area);
    let b = spacing(&c.candidate_blocks, c.width, c.candidate_content_height, c.mode, area);
    let (a, b) = match (a, b) {
        (Some(a), Some(b)) => (a, b),
        (None, None) => {
            return Measured {
                score: None,
                summary: "neither image has major blocks to space".into(),
                findings: Vec::new(),
            };
        }
        (a, _) => {
            let side = if a.is_none() { "reference" } else { "candidate" };
            return Measured {
                score: Some(0.0),
                summary: format!("the {side} has no major blocks"),
                findings: vec![RawFinding {
                    kind: FindingKind::RhythmChanged,
                    severity: Severity::High,
                    message: format!("the {side} has no major blocks, so nothing of its spacing matches"),
                    fix: format!("check that the {side} rendered its content; it shows no major blocks"),
                    rect: None,
                }],
            };
        }
    };
    let mut findings = Vec::new();
    let mut margin_sum = 0.0;
    for (&(name, ma), &(_, mb)) in a.margins.iter().zip(&b.margins) {
        let s = similarity(ma, mb);
        margin_sum += s;
        if s < FINDING_SIMILARITY {
            let (was, is) = (ref_px(c, ma), ref_px(c, mb));
            findings.push(RawFinding {
                kind: FindingKind::MarginChanged,
                severity: SPACING_PX.severity(f64::from(was.abs_diff(is))),
                message: format!("{name} margin {is} px where the reference has {was} px"),
                fix: format!("set the {name} margin to {was} px (now {is} px)"),
                rect: None,
            });
        }
    }
    let margins = margin_sum / a.margins.len() as f64;
    let rhythm = if a.gaps.len() == b.gaps.len() {
        let mut sum = 0.0;
        for (&(ga, rect), &(gb, _)) in a.gaps.iter().zip(&b.gaps) {
            let s = similarity(ga, gb);
            sum += s;
            if s < FINDING_SIMILARITY {
                let (was, is) = (ref_px(c, ga), ref_px(c, gb));
                findings.push(RawFinding {
                    kind: FindingKind::RhythmChanged,
                    severity: SPACING_PX.severity(f64::from(was.abs_diff(is))),
                    message: format!("a vertical gap is {is} px where the reference has {was} px"),
                    fix: format!("make this gap {was} px (now {is} px)"),
                    rect: Some(rect),
                });
            }
        }
        if a.gaps.is_empty() { 1.0 } else { sum / a.gaps.len() as f64 }
    } else {
        let mut ga: Vec<usize> = a.gaps.iter().map(|g| g.0).collect();
        let mut gb: Vec<usize> = b.gaps.iter().map(|g| g.0).collect();
        let (ma, mb) = (median(&mut ga), median(&mut gb));
        findings.push(RawFinding {
            kind: FindingKind::RhythmChanged,
            severity: Severity::Medium,
            fix: format!(
                "lay the major blocks out as the reference does: {} gaps between them, {} px apart (median)",
                ga.len(),
                ref_px(c, ma)
            ),
            message: format!(
                "{} vertical gaps between blocks (median {} px) where the reference has {} (median {} px)",
                gb.len(),
                ref_px(c, mb),
                ga.len(),
                ref_px(c, ma)
            ),
            rect: None,
        });
        similarity(ma, mb) * (ga.len().min(gb.len()) as f64 / ga.len().max(gb.len()) as f64)
    };
    let score = 100.0 * margins * rhythm;
    let list =
        |s: &Spacing| s.margins.iter().map(|(n, v)| format!("{n} {}", ref_px(c, *v))).collect::<Vec<_>>().join(", ");
    Measured {
        score: Some(score),
        summary: format!(
            "margins {} px, {} gaps (reference: {} px, {} gaps)",
            list(&b),
            b.gaps.len(),
            list(&a),
            a.gaps.len()
        ),
        findings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spacing_measures_margins_below_a_full_bleed_header_and_the_gaps() {
        let blocks = [
            Rect::new(0, 0, 768, 60),
            Rect::new(40, 100, 400, 140),
            Rect::new(40, 180, 700, 260),
            Rect::new(500, 190, 600, 200),
        ];
        let s = spacing(&blocks, 768, 400, DesignMode::Screen, 768 * 400).unwrap();
        assert_eq!(s.margins, vec![("left", 40), ("right", 68), ("top", 40)]);
        assert_eq!(s.gaps.iter().map(|g| g.0).collect::<Vec<_>>(), vec![40]);
        let w = spacing(&blocks, 768, 400, DesignMode::Widget, 768 * 400).unwrap();
        assert_eq!(w.margins.last(), Some(&("bottom", 140)));
    }

    #[test]
    fn spacing_similarity_has_an_eight_pixel_floor() {
        assert_eq!(similarity(40, 40), 1.0);
        assert_eq!(similarity(24, 56), 32.0 / 64.0);
        assert_eq!(similarity(0, 8), 0.5);
    }
}
