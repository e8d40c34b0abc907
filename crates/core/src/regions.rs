//! Regions: differing pixels clustered into boxes. Works on the 8 × 8 tiles of a [`DiffMask`]:
//! tiles within `merge_distance` of each other join one cluster, each cluster's box is the exact
//! extent of its pixels, overlapping boxes merge, and clusters with fewer than `min_pixels`
//! pixels are specks that form no region. A region names the elements under it and what they did
//! ([`AttributedElement`], [`ElementRole`]); the DOM layer (`dom::attribute_regions`) fills them in.

use serde::{Deserialize, Serialize};

use crate::pixel::{DiffMask, TILE};

/// Whether a region's content changed, only moved with a page shift, or was drawn differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Classification {
    Change,
    Shift,
    /// The engine drew the same content differently: nothing under the region changed
    /// (`dom::rendering_regions`).
    Rendering,
}

impl crate::words::Word for Classification {}

impl std::fmt::Display for Classification {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Classification::Change => "change",
            Classification::Shift => "shift",
            Classification::Rendering => "rendering",
        })
    }
}

/// What an element did between the captures, as named in region attribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ElementRole {
    /// Restyled, or its tag, text or image changed.
    Changed,
    /// Only in the current capture.
    Added,
    /// Only in the baseline.
    Removed,
    /// Its box moved or resized, nothing else changed.
    Moved,
    /// Under the region, no change found.
    Overlaps,
}

impl crate::words::Word for ElementRole {}

impl std::fmt::Display for ElementRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ElementRole::Changed => "changed",
            ElementRole::Added => "added",
            ElementRole::Removed => "removed",
            ElementRole::Moved => "moved",
            ElementRole::Overlaps => "overlaps",
        })
    }
}

/// An element a region maps to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttributedElement {
    pub selector: String,
    pub role: ElementRole,
}

/// A box of nearby differing pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
    /// Differing pixels inside the box.
    pub diff_pixels: u64,
    /// Share of the box's pixels that differ, in percent.
    pub diff_percent: f64,
    pub classification: Classification,
    /// The elements under the region and what they did (filled in when DOM data exists).
    pub elements: Vec<AttributedElement>,
    /// Up to [`SAMPLES`] of the region's differing pixels `[x, y]`, spread evenly over them:
    /// where inside its box the difference lies, for what asks what is drawn there
    /// (`dom::rendering_regions`). Not part of the evidence; empty for a region made elsewhere.
    #[serde(skip)]
    pub samples: Vec<[u32; 2]>,
}

impl Region {
    /// The region's box as `[x0, y0, x1, y1]`, as element boxes are tested against it.
    pub fn corners(&self) -> [f64; 4] {
        let (x, y) = (f64::from(self.x), f64::from(self.y));
        [x, y, x + f64::from(self.width), y + f64::from(self.height)]
    }

    /// `x=… y=… w×h, classification[, first element's selector]`: the region in one line, as
    /// region lists name it.
    pub fn describe(&self) -> String {
        let selector = self.elements.first().map(|e| format!(", {}", e.selector)).unwrap_or_default();
        format!("x={} y={} {}×{}, {}{selector}", self.x, self.y, self.width, self.height, self.classification)
    }
}

/// How differing pixels are grouped into regions.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionOptions {
    /// Pixels closer than this (in pixels, rounded up to whole tiles) belong to one region. Default 16.
    pub merge_distance: u32,
    /// A cluster with fewer differing pixels is a speck and forms no region. Default 4.
    pub min_pixels: u64,
}

impl Default for RegionOptions {
    fn default() -> Self {
        Self { merge_distance: 16, min_pixels: 4 }
    }
}

/// Differing pixels a region keeps as [`Region::samples`].
pub const SAMPLES: usize = 256;

/// Pixel-exact box and count of one cluster, built tile by tile.
#[derive(Debug, Clone)]
struct Cluster {
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
    pixels: u64,
    /// The mask's tiles the cluster's pixels are in.
    tiles: Vec<usize>,
}

impl Cluster {
    fn overlaps(&self, o: &Cluster) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    fn absorb(&mut self, o: Cluster) {
        self.x0 = self.x0.min(o.x0);
        self.y0 = self.y0.min(o.y0);
        self.x1 = self.x1.max(o.x1);
        self.y1 = self.y1.max(o.y1);
        self.pixels += o.pixels;
        self.tiles.extend(o.tiles);
    }

    /// Every `pixels / SAMPLES`-th set pixel of the cluster's tiles, top to bottom.
    fn samples(&mut self, mask: &DiffMask) -> Vec<[u32; 2]> {
        self.tiles.sort_unstable();
        let stride = (self.pixels as usize).div_ceil(SAMPLES).max(1);
        let mut samples = Vec::with_capacity(SAMPLES.min(self.pixels as usize));
        let mut seen = 0usize;
        for &t in &self.tiles {
            let (ox, oy) = ((t % mask.tiles_x) * TILE, (t / mask.tiles_x) * TILE);
            let mut bits = mask.bits[t];
            while bits != 0 {
                let bit = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if seen.is_multiple_of(stride) {
                    samples.push([(ox + bit % TILE) as u32, (oy + bit / TILE) as u32]);
                }
                seen += 1;
            }
        }
        samples
    }
}

/// Clusters the set pixels of `mask` into regions of one classification, top to bottom.
pub fn find_regions(mask: &DiffMask, classification: Classification, options: &RegionOptions) -> Vec<Region> {
    let reach = (options.merge_distance as usize).div_ceil(TILE).max(1) as isize;
    let (tx, ty) = (mask.tiles_x as isize, mask.tiles_y as isize);
    let mut seen = vec![false; mask.bits.len()];
    let mut clusters = Vec::new();
    let mut stack = Vec::new();

    for start in 0..mask.bits.len() {
        if mask.bits[start] == 0 || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let mut cluster: Option<Cluster> = None;
        while let Some(t) = stack.pop() {
            let tile = tile_extent(mask, t);
            match &mut cluster {
                Some(c) => c.absorb(tile),
                None => cluster = Some(tile),
            }
            let (cx, cy) = ((t % mask.tiles_x) as isize, (t / mask.tiles_x) as isize);
            for ny in (cy - reach).max(0)..=(cy + reach).min(ty - 1) {
                for nx in (cx - reach).max(0)..=(cx + reach).min(tx - 1) {
                    let n = (ny * tx + nx) as usize;
                    if mask.bits[n] != 0 && !seen[n] {
                        seen[n] = true;
                        stack.push(n);
                    }
                }
            }
        }
        clusters.extend(cluster);
    }

    // Boxes of separate clusters can still overlap (an L-shape around another); merge them so
    // no pixel is reported twice.
    let mut merged = true;
    while merged {
        merged = false;
        let mut i = 0;
        while i < clusters.len() {
            let mut j = i + 1;
            while j < clusters.len() {
                if clusters[i].overlaps(&clusters[j]) {
                    let other = clusters.swap_remove(j);
                    clusters[i].absorb(other);
                    merged = true;
                } else {
                    j += 1;
                }
            }
            i += 1;
        }
    }

    let mut regions: Vec<Region> = clusters
        .into_iter()
        .filter(|c| c.pixels >= options.min_pixels)
        .map(|mut c| {
            let (width, height) = ((c.x1 - c.x0) as u32, (c.y1 - c.y0) as u32);
            Region {
                x: c.x0 as u32,
                y: c.y0 as u32,
                width,
                height,
                diff_pixels: c.pixels,
                diff_percent: 100.0 * c.pixels as f64 / (f64::from(width) * f64::from(height)),
                classification,
                elements: Vec::new(),
                samples: c.samples(mask),
            }
        })
        .collect();
    regions.sort_by_key(|r| (r.y, r.x));
    regions
}

/// The exact box and pixel count of the set bits in tile `t`.
fn tile_extent(mask: &DiffMask, t: usize) -> Cluster {
    let bits = mask.bits[t];
    let (ox, oy) = ((t % mask.tiles_x) * TILE, (t / mask.tiles_x) * TILE);
    let mut columns = 0u8;
    let (mut top, mut bottom) = (TILE, 0);
    for row in 0..TILE {
        let r = (bits >> (row * TILE)) as u8;
        if r != 0 {
            columns |= r;
            top = top.min(row);
            bottom = row + 1;
        }
    }
    Cluster {
        x0: ox + columns.trailing_zeros() as usize,
        x1: ox + TILE - columns.leading_zeros() as usize,
        y0: oy + top,
        y1: oy + bottom,
        pixels: u64::from(bits.count_ones()),
        tiles: vec![t],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_words_are_the_results_json_spelling() {
        for c in [Classification::Change, Classification::Shift] {
            assert_eq!(serde_json::to_value(c).unwrap(), c.to_string());
        }
        use crate::regions::{AttributedElement, ElementRole};
        for role in
            [ElementRole::Changed, ElementRole::Added, ElementRole::Removed, ElementRole::Moved, ElementRole::Overlaps]
        {
            assert_eq!(serde_json::to_value(role).unwrap(), role.to_string());
        }
        let mut region = Region {
            x: 4,
            y: 280,
            width: 1200,
            height: 60,
            diff_pixels: 9,
            diff_percent: 0.0125,
            classification: Classification::Shift,
            elements: Vec::new(),
            samples: Vec::new(),
        };
        assert_eq!(region.describe(), "x=4 y=280 1200×60, shift");
        region.elements.push(AttributedElement { selector: "#hero".into(), role: ElementRole::Moved });
        assert_eq!(region.describe(), "x=4 y=280 1200×60, shift, #hero");
    }

    fn mask_with(width: usize, height: usize, pixels: &[(usize, usize)]) -> DiffMask {
        let mut m = DiffMask::new(width, height);
        for &(x, y) in pixels {
            m.set(x, y);
        }
        m
    }

    fn block(x0: usize, y0: usize, w: usize, h: usize) -> Vec<(usize, usize)> {
        (y0..y0 + h).flat_map(|y| (x0..x0 + w).map(move |x| (x, y))).collect()
    }

    #[test]
    fn regions_two_far_blocks_are_two_exact_boxes() {
        let mut px = block(10, 10, 5, 3);
        px.extend(block(100, 200, 20, 20));
        let r = find_regions(&mask_with(300, 300, &px), Classification::Change, &RegionOptions::default());
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].x, r[0].y, r[0].width, r[0].height, r[0].diff_pixels), (10, 10, 5, 3, 15));
        assert_eq!((r[1].x, r[1].y, r[1].width, r[1].height, r[1].diff_pixels), (100, 200, 20, 20, 400));
        assert_eq!(r[1].diff_percent, 100.0);
    }

    #[test]
    fn regions_nearby_blocks_merge() {
        let mut px = block(10, 10, 4, 4);
        px.extend(block(22, 10, 4, 4));
        let r = find_regions(&mask_with(100, 100, &px), Classification::Change, &RegionOptions::default());
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].x, r[0].width, r[0].diff_pixels), (10, 16, 32));
    }

    #[test]
    fn regions_blocks_17_to_24_px_apart_stay_two_regions() {
        // The gap starts on a tile boundary (the left block ends at x = 15), so the right block
        // is three tiles or more away: beyond the default 16 px, which reaches two tiles.
        for gap in 17..=24 {
            let mut px = block(8, 10, 8, 4);
            px.extend(block(16 + gap, 10, 8, 4));
            let r = find_regions(&mask_with(100, 40, &px), Classification::Change, &RegionOptions::default());
            let boxes: Vec<_> = r.iter().map(|r| (r.x, r.y, r.width, r.height, r.diff_pixels)).collect();
            assert_eq!(boxes, [(8, 10, 8, 4, 32), (16 + gap as u32, 10, 8, 4, 32)], "{gap} px apart");
        }
    }

    #[test]
    fn regions_keep_differing_pixels_spread_over_the_whole_region_as_samples() {
        // Two blocks merged into one region: 640 + 64 pixels, every third one kept.
        let mut px = block(10, 10, 32, 20);
        px.extend(block(50, 10, 8, 8));
        let mask = mask_with(100, 40, &px);
        let r = find_regions(&mask, Classification::Change, &RegionOptions::default());
        assert_eq!((r.len(), r[0].diff_pixels), (1, 704));
        assert_eq!(r[0].samples.len(), 704usize.div_ceil(704usize.div_ceil(SAMPLES)));
        assert!(r[0].samples.iter().all(|&[x, y]| mask.get(x as usize, y as usize)));
        assert!(r[0].samples.iter().any(|&[x, _]| x >= 50), "the second block is sampled too");
        let few =
            find_regions(&mask_with(100, 40, &block(0, 0, 3, 3)), Classification::Change, &RegionOptions::default());
        assert_eq!(few[0].samples.len(), 9, "a small region keeps every pixel");
    }

    #[test]
    fn regions_specks_form_no_region() {
        let r =
            find_regions(&mask_with(100, 100, &[(5, 5), (80, 80)]), Classification::Change, &RegionOptions::default());
        assert!(r.is_empty());
    }
}
