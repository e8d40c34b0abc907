//! The content dimension: blocks segmented from the background and matched between the images.
//!
//! A pixel is foreground when it differs from its image's background colour; foreground is
//! gathered on a grid of 3 × 3 cells, cells at most four cells apart join one block (so the letters
//! of a paragraph become one block, while components a gutter apart stay apart), and each block's
//! box is the exact extent of its foreground pixels. Blocks are paired greedily by intersection
//! over union (IoU ≥ 0.3, best pairs first); the score is the share of blocks that found a
//! partner (2 × pairs / all blocks), unpaired blocks are the missing and extra findings.

use super::critique::{BLOCK_SHARE, Severity};
use super::normalise::{Plane, Rect};
use super::{Canvases, FindingKind, Measured, RawFinding, ref_px};

/// A pixel whose largest channel differs from the background by more than this is foreground.
/// Low enough that a light card (#eef1f5 on white) is a block of its own.
const FOREGROUND_DELTA: u8 = 12;
/// Grid cell side in canonical pixels.
const CELL: usize = 3;
/// Cells with at most 2 × this many empty cells between them join one block: gaps up to
/// 12–14 px, wider than the word spacing of 32-px headings, narrower than a 16-px gutter.
const JOIN_RADIUS: usize = 2;
/// Blocks smaller than this share of the canvas are specks, not content.
const MIN_BLOCK_SHARE: f64 = 0.0002;
/// Two blocks are the same block when their IoU reaches this.
pub(crate) const MIN_IOU: f64 = 0.3;
/// Missing and extra blocks listed one by one (largest first); the rest are counted in one finding.
const MAX_LISTED_BLOCKS: usize = 8;
/// At most this many blocks per image, the largest (a noise texture must not explode the work).
const MAX_BLOCKS: usize = 512;

/// Whether a pixel is background: no channel differs from it by more than [`FOREGROUND_DELTA`].
pub(crate) fn is_background(pixel: [u8; 3], background: [u8; 3]) -> bool {
    (0..3).all(|c| pixel[c].abs_diff(background[c]) <= FOREGROUND_DELTA)
}

/// Segments `plane` into blocks that stand out from `background`, ignoring masked pixels.
pub(crate) fn segment(plane: &Plane, background: [u8; 3], ignored: &[bool]) -> Vec<Rect> {
    let (w, h) = (plane.width, plane.height);
    let fg: Vec<bool> =
        plane.rgb.iter().zip(ignored).map(|(p, &skip)| !skip && !is_background(*p, background)).collect();
    let (cw, ch) = (w.div_ceil(CELL), h.div_ceil(CELL));
    let mut cells = vec![false; cw * ch];
    for y in 0..h {
        for x in 0..w {
            if fg[y * w + x] {
                cells[(y / CELL) * cw + x / CELL] = true;
            }
        }
    }
    let min_area = (MIN_BLOCK_SHARE * (w * h) as f64).ceil() as usize;
    let mut blocks: Vec<Rect> = components(&cells, cw, ch, JOIN_RADIUS)
        .into_iter()
        .filter_map(|cell_box| {
            // Tighten the cell box to the exact extent of its foreground pixels.
            let area =
                Rect { x0: cell_box.x0 * CELL, y0: cell_box.y0 * CELL, x1: cell_box.x1 * CELL, y1: cell_box.y1 * CELL }
                    .clip(w, h);
            let mut tight: Option<Rect> = None;
            for y in area.y0..area.y1 {
                for x in area.x0..area.x1 {
                    if fg[y * w + x] {
                        let px = Rect { x0: x, y0: y, x1: x + 1, y1: y + 1 };
                        tight = Some(tight.map_or(px, |t| t.union(&px)));
                    }
                }
            }
            tight.filter(|t| t.area() >= min_area)
        })
        .collect();
    blocks.sort_by(|a, b| b.area().cmp(&a.area()).then(a.cmp(b)));
    blocks.truncate(MAX_BLOCKS);
    // Reading order (top to bottom, left to right) for stable output.
    blocks.sort_by_key(|b| (b.y0, b.x0, b.y1, b.x1));
    blocks
}

/// Boxes (in grid units) of the groups of set cells with at most `2 × radius` empty cells
/// between neighbours (the mask dilated by `radius`, then 8-connected); each box is the extent
/// of the group's own set cells, not of the dilation.
pub(crate) fn components(mask: &[bool], width: usize, height: usize, radius: usize) -> Vec<Rect> {
    let dilated = dilate(mask, width, height, radius);
    let mut label = vec![u32::MAX; width * height];
    let mut boxes = Vec::new();
    let mut stack = Vec::new();
    for start in 0..width * height {
        if !dilated[start] || label[start] != u32::MAX {
            continue;
        }
        let id = boxes.len() as u32;
        let mut extent: Option<Rect> = None;
        label[start] = id;
        stack.push(start);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % width, i / width);
            if mask[i] {
                let cell = Rect { x0: x, y0: y, x1: x + 1, y1: y + 1 };
                extent = Some(extent.map_or(cell, |e| e.union(&cell)));
            }
            for ny in y.saturating_sub(1)..(y + 2).min(height) {
                for nx in x.saturating_sub(1)..(x + 2).min(width) {
                    let j = ny * width + nx;
                    if dilated[j] && label[j] == u32::MAX {
                        label[j] = id;
                        stack.push(j);
                    }
                }
            }
        }
        boxes.push(extent);
    }
    boxes.into_iter().flatten().collect()
}

/// Square dilation by `radius` cells (separable: rows, then columns).
pub(crate) fn dilate(mask: &[bool], width: usize, height: usize, radius: usize) -> Vec<bool> {
    if radius == 0 {
        return mask.to_vec();
    }
    let mut rows = vec![false; mask.len()];
    for y in 0..height {
        for x in 0..width {
            let (a, b) = (x.saturating_sub(radius), (x + radius + 1).min(width));
            rows[y * width + x] = mask[y * width + a..y * width + b].iter().any(|&v| v);
        }
    }
    let mut out = vec![false; mask.len()];
    for y in 0..height {
        let (a, b) = (y.saturating_sub(radius), (y + radius + 1).min(height));
        for x in 0..width {
            out[y * width + x] = (a..b).any(|yy| rows[yy * width + x]);
        }
    }
    out
}

/// Pairs of (reference index, candidate index, IoU), best IoU first, each block used once.
pub(crate) fn match_blocks(reference: &[Rect], candidate: &[Rect]) -> Vec<(usize, usize, f64)> {
    let mut pairs: Vec<(usize, usize, f64)> = Vec::new();
    for (i, a) in reference.iter().enumerate() {
        for (j, b) in candidate.iter().enumerate() {
            let iou = a.iou(b);
            if iou >= MIN_IOU {
                pairs.push((i, j, iou));
            }
        }
    }
    pairs.sort_by(|p, q| q.2.total_cmp(&p.2).then((p.0, p.1).cmp(&(q.0, q.1))));
    let (mut used_a, mut used_b) = (vec![false; reference.len()], vec![false; candidate.len()]);
    let mut matched = Vec::new();
    for (i, j, iou) in pairs {
        if !used_a[i] && !used_b[j] {
            used_a[i] = true;
            used_b[j] = true;
            matched.push((i, j, iou));
        }
    }
    matched.sort_by_key(|m| m.0);
    matched
}

/// Scores content from the blocks of both images.
pub(crate) fn measure(c: &Canvases) -> Measured {
    let (a, b) = (&c.reference_blocks, &c.candidate_blocks);
    if a.is_empty() && b.is_empty() {
        return Measured {
            score: None,
            summary: "neither image has content blocks apart from the background".into(),
            findings: Vec::new(),
        };
    }
    let matched = match_blocks(a, b);
    let score = 100.0 * 2.0 * matched.len() as f64 / (a.len() + b.len()) as f64;
    let missing: Vec<Rect> = (0..a.len()).filter(|&i| !matched.iter().any(|m| m.0 == i)).map(|i| a[i]).collect();
    let extra: Vec<Rect> = (0..b.len()).filter(|&j| !matched.iter().any(|m| m.1 == j)).map(|j| b[j]).collect();
    let mut findings = listed(c, missing, FindingKind::BlockMissing, |w, h| {
        (
            format!("a {w} × {h} px block of the reference has no counterpart in the candidate"),
            format!(
                "add the element the reference shows in this box ({w} × {h} px), or move the candidate's version of it there"
            ),
        )
    });
    findings.extend(listed(c, extra, FindingKind::BlockExtra, |w, h| {
        (
            format!("the candidate has a {w} × {h} px block the reference does not"),
            format!(
                "remove the candidate's element in this box ({w} × {h} px), or move it to where the reference has it"
            ),
        )
    }));
    Measured {
        score: Some(score),
        summary: format!("{} of {} reference blocks matched, {} candidate blocks", matched.len(), a.len(), b.len()),
        findings,
    }
}

/// Findings for unpaired blocks: the largest [`MAX_LISTED_BLOCKS`] with their boxes, then one
/// finding counting the rest, so a page that changed everywhere stays readable.
fn listed(
    c: &Canvases,
    mut blocks: Vec<Rect>,
    kind: FindingKind,
    words: impl Fn(u32, u32) -> (String, String),
) -> Vec<RawFinding> {
    blocks.sort_by(|p, q| q.area().cmp(&p.area()).then(p.cmp(q)));
    let rest = blocks.len().saturating_sub(MAX_LISTED_BLOCKS);
    let mut out: Vec<RawFinding> = blocks
        .iter()
        .take(MAX_LISTED_BLOCKS)
        .map(|b| {
            let (message, fix) = words(ref_px(c, b.width()), ref_px(c, b.height()));
            let share = b.area() as f64 / (c.width * c.height) as f64;
            RawFinding { kind, severity: BLOCK_SHARE.severity(share), message, fix, rect: Some(*b) }
        })
        .collect();
    if rest > 0 {
        let side = if kind == FindingKind::BlockMissing { "missing" } else { "extra" };
        out.push(RawFinding {
            kind,
            severity: Severity::Low,
            message: format!("{rest} smaller {side} blocks are not listed"),
            fix: format!("after the listed blocks, look for the smaller {side} ones in the content regions image"),
            rect: None,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_segments_separate_blocks_and_joins_nearby_pixels() {
        let mut p = Plane::filled(200, 100, [255, 255, 255]);
        p.fill_rect(Rect::new(10, 10, 60, 30), [40, 120, 220]);
        // Two "letters" 3 px apart are one block; a box 40 px away is another.
        p.fill_rect(Rect::new(100, 10, 104, 20), [0, 0, 0]);
        p.fill_rect(Rect::new(107, 10, 111, 20), [0, 0, 0]);
        p.fill_rect(Rect::new(150, 60, 190, 90), [0, 0, 0]);
        let blocks = segment(&p, [255, 255, 255], &vec![false; 200 * 100]);
        assert_eq!(blocks, vec![Rect::new(10, 10, 60, 30), Rect::new(100, 10, 111, 20), Rect::new(150, 60, 190, 90)]);
    }

    #[test]
    fn content_matching_pairs_by_iou_and_scores_the_share_matched() {
        let a = [Rect::new(0, 0, 10, 10), Rect::new(50, 50, 60, 60), Rect::new(80, 0, 90, 10)];
        let b = [Rect::new(1, 0, 11, 10), Rect::new(50, 50, 60, 60), Rect::new(0, 80, 5, 85)];
        let m = match_blocks(&a, &b);
        assert_eq!(m.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(), vec![(0, 0), (1, 1)]);
        assert!((m[0].2 - 90.0 / 110.0).abs() < 1e-12);
        // IoU below 0.3 is no match: 10 × 10 boxes overlapping 4 × 10 give 40 / 160 = 0.25.
        assert!(match_blocks(&[Rect::new(0, 0, 10, 10)], &[Rect::new(6, 0, 16, 10)]).is_empty());
    }

    #[test]
    fn components_respects_the_join_distance() {
        // Cells at x = 0 and x = 3 (two empty between) join with radius 1, not with radius 0;
        // x = 0 and x = 4 (three empty) stay apart with radius 1.
        let mask = [true, false, false, true];
        assert_eq!(components(&mask, 4, 1, 1), vec![Rect::new(0, 0, 4, 1)]);
        assert_eq!(components(&mask, 4, 1, 0), vec![Rect::new(0, 0, 1, 1), Rect::new(3, 0, 4, 1)]);
        let mask = [true, false, false, false, true];
        assert_eq!(components(&mask, 5, 1, 1), vec![Rect::new(0, 0, 1, 1), Rect::new(4, 0, 5, 1)]);
    }
}
