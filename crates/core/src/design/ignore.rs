//! Ignore regions: the boxes a caller leaves out (in reference pixels) as rectangles on the
//! reference's grid and on the canonical canvas, and the reference's own pixels shown in them on
//! both sides, so they are equal there and no painted box reads as content.

use super::DesignBox;
use super::normalise::Rect;
use crate::image::RgbaImage;

/// Ignore boxes (reference pixels) as rectangles on the grid, clipped.
pub(super) fn grid_boxes(boxes: &[DesignBox], width: u32, height: u32) -> Vec<Rect> {
    let end = |start: u32, len: u32| u64::from(start) + u64::from(len);
    boxes
        .iter()
        .map(|r| {
            let clip = |v: u64, max: u32| v.min(u64::from(max)) as usize;
            Rect {
                x0: clip(r.x.into(), width),
                y0: clip(r.y.into(), height),
                x1: clip(end(r.x, r.width), width),
                y1: clip(end(r.y, r.height), height),
            }
        })
        .collect()
}

/// A grid rectangle on the canonical canvas, rounded outward (every canvas pixel that a grid
/// pixel inside touches), clipped.
pub(super) fn canonical_rect(r: Rect, scale: f64, width: usize, height: usize) -> Rect {
    Rect {
        x0: (r.x0 as f64 * scale).floor() as usize,
        y0: (r.y0 as f64 * scale).floor() as usize,
        x1: (r.x1 as f64 * scale).ceil() as usize,
        y1: (r.y1 as f64 * scale).ceil() as usize,
    }
    .clip(width, height)
}

/// Ignored regions show the reference's own pixels on both sides: equal there, and no painted
/// box whose edges could read as content or text.
pub(super) fn show_reference_in(candidate: &mut RgbaImage, reference: &RgbaImage, rects: &[Rect]) {
    let stride = reference.width() as usize * 4;
    for r in rects {
        for y in r.y0..r.y1 {
            let row = y * stride + r.x0 * 4..y * stride + r.x1 * 4;
            candidate.as_bytes_mut()[row.clone()].copy_from_slice(&reference.as_bytes()[row]);
        }
    }
}
