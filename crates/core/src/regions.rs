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
}

impl Cluster {
    /// A cluster with no tile yet: its box is inverted, so the first tile sets it.
    fn empty() -> Self {
        Self { x0: usize::MAX, y0: usize::MAX, x1: 0, y1: 0, pixels: 0 }
    }

    /// Adds tile `t` of `mask` (not empty): its pixels and the exact box of its set bits.
    fn add_tile(&mut self, mask: &DiffMask, t: usize) {
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
        self.x0 = self.x0.min(ox + columns.trailing_zeros() as usize);
        self.x1 = self.x1.max(ox + TILE - columns.leading_zeros() as usize);
        self.y0 = self.y0.min(oy + top);
        self.y1 = self.y1.max(oy + bottom);
        self.pixels += u64::from(bits.count_ones());
    }

    fn overlaps(&self, o: &Cluster) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    fn absorb(&mut self, o: &Cluster) {
        self.x0 = self.x0.min(o.x0);
        self.y0 = self.y0.min(o.y0);
        self.x1 = self.x1.max(o.x1);
        self.y1 = self.y1.max(o.y1);
        self.pixels += o.pixels;
    }
}

/// Disjoint sets over indices, with path halving: joins and finds in near-constant time.
struct Sets(Vec<u32>);

impl Sets {
    fn new(n: usize) -> Self {
        Self((0..n as u32).collect())
    }

    fn find(&mut self, mut i: u32) -> u32 {
        loop {
            let parent = self.0[i as usize];
            if parent == i {
                return i;
            }
            let grandparent = self.0[parent as usize];
            if grandparent == parent {
                return parent;
            }
            self.0[i as usize] = grandparent;
            i = grandparent;
        }
    }

    /// Joins the sets of `a` and `b`. The smaller root stays root: tiles are joined in raster
    /// order, so a new tile's set goes under the older one and the trees stay shallow.
    fn join(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (low, high) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.0[high as usize] = low;
        }
    }
}

/// Clusters the set pixels of `mask` into regions of one classification, top to bottom.
pub fn find_regions(mask: &DiffMask, classification: Classification, options: &RegionOptions) -> Vec<Region> {
    let reach = (options.merge_distance as usize).div_ceil(TILE).max(1);
    let tiles_x = mask.tiles_x;
    // Tiles within `reach` tiles of each other (either axis) are one cluster. In raster order it
    // is enough to join each tile with the set tiles before it: the `reach` rows above (`reach`
    // columns either side) and the `reach` tiles to its left in its own row. A tile whose left
    // neighbour is set shares that neighbour's set, and with it every tile of its window, so
    // only the window's new column (`reach` to the right, in the rows above) is left to look at.
    let mut sets = Sets::new(mask.bits.len());
    let set = |n: usize| mask.bits[n] != 0;
    for t in 0..mask.bits.len() {
        if !set(t) {
            continue;
        }
        let (cx, cy) = (t % tiles_x, t / tiles_x);
        let rows_above = cy.saturating_sub(reach)..cy;
        if cx > 0 && set(t - 1) {
            sets.join(t as u32 - 1, t as u32);
            let nx = cx + reach;
            if nx < tiles_x {
                for n in rows_above.map(|ny| ny * tiles_x + nx).filter(|&n| set(n)) {
                    sets.join(n as u32, t as u32);
                }
            }
            continue;
        }
        let (left, right) = (cx.saturating_sub(reach), (cx + reach).min(tiles_x - 1));
        let above = rows_above.flat_map(|ny| (left..=right).map(move |nx| ny * tiles_x + nx));
        let beside = (left..cx).map(|nx| cy * tiles_x + nx);
        for n in above.chain(beside).filter(|&n| set(n)) {
            sets.join(n as u32, t as u32);
        }
    }

    // One cluster per set: `cluster_of` maps a root tile to its cluster, in order of first tile.
    let mut cluster_of: Vec<u32> = vec![u32::MAX; mask.bits.len()];
    let mut clusters: Vec<Cluster> = Vec::new();
    for t in 0..mask.bits.len() {
        if !set(t) {
            continue;
        }
        let root = sets.find(t as u32) as usize;
        if cluster_of[root] == u32::MAX {
            cluster_of[root] = clusters.len() as u32;
            clusters.push(Cluster::empty());
        }
        clusters[cluster_of[root] as usize].add_tile(mask, t);
    }

    // Boxes of separate clusters can still overlap (an L-shape around another); merge them so
    // no pixel is reported twice. `owner` says which cluster each first cluster ended in.
    let mut owner: Vec<u32> = (0..clusters.len() as u32).collect();
    let mut live: Vec<usize> = (0..clusters.len()).collect();
    let mut merged = true;
    while merged {
        merged = false;
        let mut i = 0;
        while i < live.len() {
            let mut j = i + 1;
            while j < live.len() {
                let (a, b) = (live[i], live[j]);
                if clusters[a].overlaps(&clusters[b]) {
                    let other = clusters[b].clone();
                    clusters[a].absorb(&other);
                    owner.iter_mut().filter(|o| **o == b as u32).for_each(|o| *o = a as u32);
                    live.swap_remove(j);
                    merged = true;
                } else {
                    j += 1;
                }
            }
            i += 1;
        }
    }

    // Samples: every `pixels / SAMPLES`-th set pixel of a region, its tiles taken top to bottom.
    let keep = |c: &Cluster| c.pixels >= options.min_pixels;
    let mut samples: Vec<Vec<[u32; 2]>> = vec![Vec::new(); clusters.len()];
    // (pixels of the region seen so far, the index of its next sample)
    let mut seen = vec![(0u64, 0u64); clusters.len()];
    for t in 0..mask.bits.len() {
        if !set(t) {
            continue;
        }
        let root = sets.find(t as u32) as usize;
        let c = owner[cluster_of[root] as usize] as usize;
        if !keep(&clusters[c]) {
            continue;
        }
        let (count, next) = &mut seen[c];
        let pixels = u64::from(mask.bits[t].count_ones());
        if *count + pixels <= *next {
            *count += pixels;
            continue;
        }
        let stride = clusters[c].pixels.div_ceil(SAMPLES as u64).max(1);
        let (ox, oy) = ((t % tiles_x) * TILE, (t / tiles_x) * TILE);
        let mut bits = mask.bits[t];
        while bits != 0 {
            let bit = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if *count == *next {
                samples[c].push([(ox + bit % TILE) as u32, (oy + bit / TILE) as u32]);
                *next += stride;
            }
            *count += 1;
        }
    }

    let mut regions: Vec<Region> = live
        .into_iter()
        .filter(|&c| keep(&clusters[c]))
        .map(|c| {
            let cluster = &clusters[c];
            let (width, height) = ((cluster.x1 - cluster.x0) as u32, (cluster.y1 - cluster.y0) as u32);
            Region {
                x: cluster.x0 as u32,
                y: cluster.y0 as u32,
                width,
                height,
                diff_pixels: cluster.pixels,
                diff_percent: 100.0 * cluster.pixels as f64 / (f64::from(width) * f64::from(height)),
                classification,
                elements: Vec::new(),
                samples: std::mem::take(&mut samples[c]),
            }
        })
        .collect();
    regions.sort_by_key(|r| (r.y, r.x));
    regions
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

    /// A region as (x, y, width, height, pixels, samples).
    type Found = (u32, u32, u32, u32, u64, Vec<[u32; 2]>);

    /// The definition, slowly: flood each cluster over tiles within reach, merge overlapping
    /// boxes until none overlap, sample each region's pixels in tile order.
    fn regions_by_definition(mask: &DiffMask, min_pixels: u64) -> Vec<Found> {
        let reach = 2isize;
        let (tx, ty) = (mask.tiles_x as isize, mask.tiles_y as isize);
        let mut group = vec![usize::MAX; mask.bits.len()];
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for start in 0..mask.bits.len() {
            if mask.bits[start] == 0 || group[start] != usize::MAX {
                continue;
            }
            let (mut members, mut stack) = (Vec::new(), vec![start]);
            group[start] = groups.len();
            while let Some(t) = stack.pop() {
                members.push(t);
                let (cx, cy) = ((t % mask.tiles_x) as isize, (t / mask.tiles_x) as isize);
                for ny in (cy - reach).max(0)..=(cy + reach).min(ty - 1) {
                    for nx in (cx - reach).max(0)..=(cx + reach).min(tx - 1) {
                        let n = (ny * tx + nx) as usize;
                        if mask.bits[n] != 0 && group[n] == usize::MAX {
                            group[n] = groups.len();
                            stack.push(n);
                        }
                    }
                }
            }
            groups.push(members);
        }
        let pixels_of = |tiles: &[usize]| {
            let mut px = Vec::new();
            let mut sorted = tiles.to_vec();
            sorted.sort_unstable();
            for t in sorted {
                for bit in 0..64 {
                    if mask.bits[t] >> bit & 1 == 1 {
                        px.push([
                            ((t % mask.tiles_x) * TILE + bit % TILE) as u32,
                            ((t / mask.tiles_x) * TILE + bit / TILE) as u32,
                        ]);
                    }
                }
            }
            px
        };
        let bounds = |px: &[[u32; 2]]| {
            let x0 = px.iter().map(|p| p[0]).min().unwrap();
            let y0 = px.iter().map(|p| p[1]).min().unwrap();
            let x1 = px.iter().map(|p| p[0]).max().unwrap() + 1;
            let y1 = px.iter().map(|p| p[1]).max().unwrap() + 1;
            (x0, y0, x1, y1)
        };
        loop {
            let boxes: Vec<_> = groups.iter().map(|g| bounds(&pixels_of(g))).collect();
            let pair = (0..groups.len()).flat_map(|i| (i + 1..groups.len()).map(move |j| (i, j))).find(|&(i, j)| {
                let (a, b) = (boxes[i], boxes[j]);
                a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
            });
            let Some((i, j)) = pair else { break };
            let other = groups.remove(j);
            groups[i].extend(other);
        }
        let mut out: Vec<_> = groups
            .iter()
            .map(|g| pixels_of(g))
            .filter(|px| px.len() as u64 >= min_pixels)
            .map(|px| {
                let (x0, y0, x1, y1) = bounds(&px);
                let stride = px.len().div_ceil(SAMPLES).max(1);
                let samples = px.iter().step_by(stride).copied().collect();
                (x0, y0, x1 - x0, y1 - y0, px.len() as u64, samples)
            })
            .collect();
        out.sort_by_key(|r| (r.1, r.0));
        out
    }

    #[test]
    fn regions_are_what_the_definition_gives_on_scattered_masks() {
        // A fixed pseudo-random sequence (xorshift): blocks, lines and specks of every size,
        // close enough to chain, nest and overlap as boxes.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for round in 0..60 {
            let (w, h) = (40 + next(200), 40 + next(200));
            let mut mask = DiffMask::new(w, h);
            for _ in 0..next(30) {
                let (bw, bh) = (1 + next(if round % 3 == 0 { 4 } else { 40 }), 1 + next(30));
                let (x0, y0) = (next(w), next(h));
                for y in y0..(y0 + bh).min(h) {
                    for x in x0..(x0 + bw).min(w) {
                        if next(4) != 0 {
                            mask.set(x, y);
                        }
                    }
                }
            }
            let found: Vec<_> = find_regions(&mask, Classification::Change, &RegionOptions::default())
                .into_iter()
                .map(|r| (r.x, r.y, r.width, r.height, r.diff_pixels, r.samples))
                .collect();
            assert_eq!(found, regions_by_definition(&mask, 4), "round {round}: {w}×{h}");
        }
    }

    #[test]
    fn regions_specks_form_no_region() {
        let r =
            find_regions(&mask_with(100, 100, &[(5, 5), (80, 80)]), Classification::Change, &RegionOptions::default());
        assert!(r.is_empty());
    }
}
