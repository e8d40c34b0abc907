//! The shape of a change (02-results.md): `concentrated` when its regions fit in a third of the
//! canvas, otherwise `scattered` (≤ 1 % of pixels) or `large`.

use serde::{Deserialize, Serialize};

use crate::regions::Region;

/// How a changed snapshot's differences are spread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Shape {
    /// At least one region, and the box around all regions covers at most a third of the canvas.
    Concentrated,
    /// At most 1 % of pixels differ, spread out (or in specks too small for a region).
    Scattered,
    /// More than 1 % of pixels differ, spread out.
    Large,
}

impl crate::words::Word for Shape {}

/// Classifies a change from its regions, its diff percentage and the canvas area.
pub fn classify_shape(regions: &[Region], diff_percent: f64, canvas_pixels: u64) -> Shape {
    let bounds = regions.iter().fold(None, |acc: Option<(u32, u32, u32, u32)>, r| {
        let (x1, y1) = (r.x + r.width, r.y + r.height);
        Some(match acc {
            None => (r.x, r.y, x1, y1),
            Some((a, b, c, d)) => (a.min(r.x), b.min(r.y), c.max(x1), d.max(y1)),
        })
    });
    if let Some((x0, y0, x1, y1)) = bounds {
        let area = u64::from(x1 - x0) * u64::from(y1 - y0);
        if area * 3 <= canvas_pixels {
            return Shape::Concentrated;
        }
    }
    if diff_percent <= 1.0 { Shape::Scattered } else { Shape::Large }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regions::Classification;

    fn region(x: u32, y: u32, width: u32, height: u32) -> Region {
        Region {
            x,
            y,
            width,
            height,
            diff_pixels: 1,
            diff_percent: 1.0,
            classification: Classification::Change,
            elements: Vec::new(),
            samples: Vec::new(),
        }
    }

    #[test]
    fn shape_follows_the_spec_table() {
        // one small region: concentrated whatever the percentage
        assert_eq!(classify_shape(&[region(0, 0, 10, 10)], 50.0, 10_000), Shape::Concentrated);
        // exactly a third of the canvas still counts as concentrated
        assert_eq!(classify_shape(&[region(0, 0, 30, 10)], 5.0, 900), Shape::Concentrated);
        // two regions far apart: their joint box is the whole canvas
        let spread = [region(0, 0, 2, 2), region(98, 98, 2, 2)];
        assert_eq!(classify_shape(&spread, 0.5, 10_000), Shape::Scattered);
        assert_eq!(classify_shape(&spread, 1.5, 10_000), Shape::Large);
        // no regions at all (only specks)
        assert_eq!(classify_shape(&[], 0.01, 10_000), Shape::Scattered);
        assert_eq!(classify_shape(&[], 2.0, 10_000), Shape::Large);
    }

    #[test]
    fn shape_regions_spanning_40_percent_are_never_concentrated() {
        // joint box 100 × 40 on a 100 × 100 canvas: 40 %, above a third and below a half
        let apart = [region(0, 0, 10, 10), region(90, 30, 10, 10)];
        assert_eq!(classify_shape(&apart, 1.5, 10_000), Shape::Large);
        assert_eq!(classify_shape(&apart, 1.0, 10_000), Shape::Scattered);
        // one region covering 40 % on its own is no more concentrated
        assert_eq!(classify_shape(&[region(0, 0, 100, 40)], 40.0, 10_000), Shape::Large);
    }
}
