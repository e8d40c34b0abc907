//! Where `get_diff` crops a page (03-mcp.md, "get_diff: images a model can actually read"). Pure
//! geometry: from the page size, the diff regions and the budgets to crop rectangles and notes.
//! The MCP server cuts, samples and encodes the pixels.

/// A rectangle in page pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl Rect {
    pub const fn new(x: u32, y: u32, width: u32, height: u32) -> Self {
        Self { x, y, width, height }
    }

    pub fn right(&self) -> u32 {
        self.x + self.width
    }

    pub fn bottom(&self) -> u32 {
        self.y + self.height
    }

    fn union(&self, other: &Rect) -> Rect {
        let (x, y) = (self.x.min(other.x), self.y.min(other.y));
        Rect::new(x, y, self.right().max(other.right()) - x, self.bottom().max(other.bottom()) - y)
    }

    /// Overlapping or touching.
    fn meets(&self, other: &Rect) -> bool {
        self.x <= other.right() && other.x <= self.right() && self.y <= other.bottom() && other.y <= self.bottom()
    }

    fn contains(&self, other: &Rect) -> bool {
        self.x <= other.x && self.y <= other.y && other.right() <= self.right() && other.bottom() <= self.bottom()
    }

    /// The common part, if it has any pixels.
    pub fn intersect(&self, other: &Rect) -> Option<Rect> {
        let (x, y) = (self.x.max(other.x), self.y.max(other.y));
        let (r, b) = (self.right().min(other.right()), self.bottom().min(other.bottom()));
        (r > x && b > y).then(|| Rect::new(x, y, r - x, b - y))
    }
}

/// One diff region: its box and whether it is a shift (changes are cropped first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub rect: Rect,
    pub shift: bool,
}

/// The crop budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Page pixels around each region.
    pub padding: u32,
    /// Largest crop image, in image pixels.
    pub max_width: u32,
    pub max_height: u32,
    pub max_crops: usize,
    /// Image pixels of all crops together, per image kind.
    pub max_pixels: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Self { padding: 32, max_width: 1280, max_height: 1024, max_crops: 3, max_pixels: 2_000_000 }
    }
}

/// One crop: a page area sampled every `step` page pixels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crop {
    /// The page area shown.
    pub area: Rect,
    /// 1 = native scale; n > 1 = one image pixel per n×n page pixels (areas wider than the budget).
    pub step: u32,
    /// Indices of the regions it shows.
    pub regions: Vec<usize>,
    /// The wanted area was taller than a crop: the page y to continue from.
    pub continue_y: Option<u32>,
}

impl Crop {
    /// Image size of the crop.
    pub fn image_size(&self) -> (u32, u32) {
        (self.area.width.div_ceil(self.step), self.area.height.div_ceil(self.step))
    }

    pub fn image_pixels(&self) -> u64 {
        let (w, h) = self.image_size();
        u64::from(w) * u64::from(h)
    }
}

/// Why a region has no crop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skipped {
    /// Already `max_crops` crops.
    CropLimit,
    /// Its crop would pass `max_pixels`.
    PixelBudget,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    pub crops: Vec<Crop>,
    /// Regions not cropped, in the order they were considered.
    pub not_cropped: Vec<(usize, Skipped)>,
}

/// Limits of a whole-page image.
pub const PAGE_MAX_SIDE: u32 = 1568;
pub const PAGE_MAX_PIXELS: u64 = 1_150_000;

/// Whether a page of this size needs crops: its whole-page image is downscaled. A page shown at
/// native scale is not cropped again.
pub fn needs_crops(width: u32, height: u32) -> bool {
    page_scale(width, height) < 1.0
}

/// The scale (≤ 1) that fits a page within [`PAGE_MAX_SIDE`] per side and [`PAGE_MAX_PIXELS`].
pub fn page_scale(width: u32, height: u32) -> f64 {
    let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    let side = f64::from(PAGE_MAX_SIDE);
    1f64.min(side / w).min(side / h).min((PAGE_MAX_PIXELS as f64 / (w * h)).sqrt())
}

/// Image size of `width`×`height` at `scale` (from [`page_scale`] of this or a larger page).
pub fn scaled(width: u32, height: u32, scale: f64) -> (u32, u32) {
    if scale >= 1.0 {
        return (width, height);
    }
    let w = ((f64::from(width) * scale).floor() as u32).clamp(1, width.max(1));
    let h = ((f64::from(height) * scale).floor() as u32).clamp(1, height.max(1));
    (w, h)
}

fn padded(rect: &Rect, page: (u32, u32), padding: u32) -> Rect {
    let x = rect.x.saturating_sub(padding).min(page.0.saturating_sub(1));
    let y = rect.y.saturating_sub(padding).min(page.1.saturating_sub(1));
    let r = rect.right().saturating_add(padding).min(page.0).max(x + 1);
    let b = rect.bottom().saturating_add(padding).min(page.1).max(y + 1);
    Rect::new(x, y, r - x, b - y)
}

/// The crop showing `want`: widened to the page width (at most `max_width`, centred on `want`),
/// sampled every `step` pixels when wider than `max_width`, cut to `max_height` image rows.
fn frame(want: Rect, page: (u32, u32), budget: &Budget) -> Crop {
    let width = page.0.min(budget.max_width).max(want.width).min(page.0);
    let centre = want.x + want.width / 2;
    let x = centre.saturating_sub(width / 2).min(page.0 - width);
    let step = width.div_ceil(budget.max_width).max(1);
    let rows = budget.max_height * step;
    let (height, continue_y) = if want.height > rows { (rows, Some(want.y + rows)) } else { (want.height, None) };
    Crop { area: Rect::new(x, want.y, width, height), step, regions: Vec::new(), continue_y }
}

/// The crops of a page of `page` = (width, height) for `regions` (results order). Changes come
/// before shifts, then results order; neighbours share a crop while it fits.
pub fn plan(page: (u32, u32), regions: &[Region], budget: &Budget) -> Plan {
    let mut order: Vec<usize> = (0..regions.len()).collect();
    order.sort_by_key(|&i| regions[i].shift);
    let mut plan = Plan::default();
    // The union of each crop's padded region boxes.
    let mut wants: Vec<Rect> = Vec::new();
    let mut total: u64 = 0;
    'regions: for i in order {
        let rect = regions[i].rect;
        if rect.width == 0 || rect.height == 0 || rect.x >= page.0 || rect.y >= page.1 {
            continue;
        }
        let pad = padded(&rect, page, budget.padding);
        for (crop, want) in plan.crops.iter_mut().zip(wants.iter_mut()) {
            if crop.area.contains(&rect) {
                crop.regions.push(i);
                continue 'regions;
            }
            if !want.meets(&pad) || crop.continue_y.is_some() {
                continue;
            }
            let merged = want.union(&pad);
            let framed = frame(merged, page, budget);
            let grown = total - crop.image_pixels() + framed.image_pixels();
            if framed.continue_y.is_none()
                && framed.step <= crop.step.max(frame(pad, page, budget).step)
                && grown <= budget.max_pixels
            {
                total = grown;
                let mut members = std::mem::take(&mut crop.regions);
                members.push(i);
                *crop = Crop { regions: members, ..framed };
                *want = merged;
                continue 'regions;
            }
        }
        if plan.crops.len() >= budget.max_crops {
            plan.not_cropped.push((i, Skipped::CropLimit));
            continue;
        }
        let mut crop = frame(pad, page, budget);
        if total + crop.image_pixels() > budget.max_pixels {
            plan.not_cropped.push((i, Skipped::PixelBudget));
            continue;
        }
        total += crop.image_pixels();
        crop.regions.push(i);
        plan.crops.push(crop);
        wants.push(pad);
    }
    plan
}

/// The crop of one region alone (`get_diff` with `region`).
pub fn region_crop(page: (u32, u32), index: usize, rect: Rect, budget: &Budget) -> Option<Crop> {
    if rect.x >= page.0 || rect.y >= page.1 || rect.width == 0 || rect.height == 0 {
        return None;
    }
    let mut crop = frame(padded(&rect, page, budget.padding), page, budget);
    crop.regions.push(index);
    Some(crop)
}

/// A full-width band from page row `y`, `height` rows (default: one crop's height); `None` when
/// `y` is below the page.
pub fn band(page: (u32, u32), y: u32, height: Option<u32>, budget: &Budget) -> Option<Crop> {
    if y >= page.1 || page.0 == 0 {
        return None;
    }
    let step = page.0.div_ceil(budget.max_width).max(1);
    let height = height.unwrap_or(budget.max_height * step).max(1).min(page.1 - y);
    Some(frame(Rect::new(0, y, page.0, height), page, budget))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(x: u32, y: u32, w: u32, h: u32) -> Region {
        Region { rect: Rect::new(x, y, w, h), shift: false }
    }

    fn shift(x: u32, y: u32, w: u32, h: u32) -> Region {
        Region { rect: Rect::new(x, y, w, h), shift: true }
    }

    fn crop(area: Rect, step: u32, regions: Vec<usize>, continue_y: Option<u32>) -> Crop {
        Crop { area, step, regions, continue_y }
    }

    #[test]
    fn one_region_is_padded_and_widened_to_the_page() {
        let p = plan((1280, 3340), &[change(51, 471, 103, 18)], &Budget::default());
        assert_eq!(p.crops, vec![crop(Rect::new(0, 439, 1280, 82), 1, vec![0], None)]);
        assert!(p.not_cropped.is_empty());
        // Clamped at the page edges.
        let p = plan((1280, 100), &[change(0, 0, 10, 90)], &Budget::default());
        assert_eq!(p.crops, vec![crop(Rect::new(0, 0, 1280, 100), 1, vec![0], None)]);
    }

    #[test]
    fn neighbours_share_a_crop_and_inner_regions_join() {
        let regions = [change(51, 471, 103, 18), change(49, 513, 120, 74), change(900, 500, 10, 10)];
        let p = plan((1280, 3340), &regions, &Budget::default());
        assert_eq!(p.crops, vec![crop(Rect::new(0, 439, 1280, 180), 1, vec![0, 1, 2], None)]);
        // Padded boxes that meet but would pass 1024 rows together stay apart.
        let p = plan((1280, 3340), &[change(0, 100, 100, 600), change(0, 760, 100, 600)], &Budget::default());
        assert_eq!(
            p.crops,
            vec![
                crop(Rect::new(0, 68, 1280, 664), 1, vec![0], None),
                crop(Rect::new(0, 728, 1280, 664), 1, vec![1], None)
            ]
        );
    }

    #[test]
    fn wider_pages_get_1280_px_centred_on_the_region() {
        let p = plan((2000, 1500), &[change(1500, 100, 100, 50)], &Budget::default());
        assert_eq!(p.crops, vec![crop(Rect::new(720, 68, 1280, 114), 1, vec![0], None)]);
        let p = plan((2000, 1500), &[change(900, 100, 100, 50)], &Budget::default());
        assert_eq!(p.crops, vec![crop(Rect::new(310, 68, 1280, 114), 1, vec![0], None)]);
    }

    #[test]
    fn at_most_three_crops_changes_first() {
        let regions =
            [shift(0, 100, 10, 10), change(0, 2000, 10, 10), change(0, 4000, 10, 10), change(0, 6000, 10, 10)];
        let p = plan((1280, 8000), &regions, &Budget::default());
        assert_eq!(
            p.crops,
            vec![
                crop(Rect::new(0, 1968, 1280, 74), 1, vec![1], None),
                crop(Rect::new(0, 3968, 1280, 74), 1, vec![2], None),
                crop(Rect::new(0, 5968, 1280, 74), 1, vec![3], None)
            ]
        );
        assert_eq!(p.not_cropped, vec![(0, Skipped::CropLimit)]);
    }

    #[test]
    fn the_pixel_budget_leaves_crops_out() {
        let regions = [change(0, 100, 10, 900), change(0, 2000, 10, 900), change(0, 3500, 10, 100)];
        let p = plan((1280, 5000), &regions, &Budget::default());
        assert_eq!(
            p.crops,
            vec![
                crop(Rect::new(0, 68, 1280, 964), 1, vec![0], None),
                crop(Rect::new(0, 3468, 1280, 164), 1, vec![2], None)
            ]
        );
        assert_eq!(p.not_cropped, vec![(1, Skipped::PixelBudget)]);
        let used: u64 = p.crops.iter().map(Crop::image_pixels).sum();
        // The two crops kept; the middle one (1280 × 964 more) would pass the 2 000 000 budget.
        assert_eq!(used, 1280 * (964 + 164));
    }

    #[test]
    fn a_tall_area_shows_its_top_and_where_to_continue() {
        let p = plan((1280, 3000), &[change(0, 100, 1280, 2000)], &Budget::default());
        assert_eq!(p.crops, vec![crop(Rect::new(0, 68, 1280, 1024), 1, vec![0], Some(1092))]);
    }

    #[test]
    fn a_wide_area_is_sampled_at_half_or_less() {
        let p = plan((2560, 4000), &[change(0, 100, 2560, 50)], &Budget::default());
        assert_eq!(p.crops, vec![crop(Rect::new(0, 68, 2560, 114), 2, vec![0], None)]);
        assert_eq!(p.crops[0].image_size(), (1280, 57));
        let p = plan((3000, 4000), &[change(100, 100, 2600, 3100)], &Budget::default());
        assert_eq!(p.crops, vec![crop(Rect::new(68, 68, 2664, 3072), 3, vec![0], Some(3140))]);
        assert_eq!(p.crops[0].image_size(), (888, 1024));
    }

    #[test]
    fn bands_and_single_regions() {
        let b = Budget::default();
        assert_eq!(band((1280, 3340), 0, Some(500), &b), Some(crop(Rect::new(0, 0, 1280, 500), 1, vec![], None)));
        assert_eq!(band((1280, 3340), 3000, None, &b), Some(crop(Rect::new(0, 3000, 1280, 340), 1, vec![], None)));
        assert_eq!(
            band((1280, 3340), 0, Some(5000), &b),
            Some(crop(Rect::new(0, 0, 1280, 1024), 1, vec![], Some(1024)))
        );
        assert_eq!(band((2560, 5000), 0, None, &b), Some(crop(Rect::new(0, 0, 2560, 2048), 2, vec![], None)));
        assert_eq!(band((1280, 3340), 3340, None, &b), None);
        assert_eq!(
            region_crop((1280, 1008), 4, Rect::new(32, 208, 124, 44), &b),
            Some(crop(Rect::new(0, 176, 1280, 108), 1, vec![4], None))
        );
    }

    #[test]
    fn whole_page_scale_fits_the_limits() {
        assert_eq!(page_scale(800, 600), 1.0);
        assert!(!needs_crops(1024, 1024) && needs_crops(1280, 1008));
        // Wider than 1024 but within the whole-page limits: already native, no crops.
        assert!(!needs_crops(1100, 1000) && !needs_crops(1568, 700) && needs_crops(1569, 700));
        let s = page_scale(1280, 3340);
        let (w, h) = scaled(1280, 3340, s);
        // The long side binds: 1568 / 3340 (600 × 1568 is 940 800 pixels, under the area limit).
        assert_eq!(s, 1568.0 / 3340.0);
        assert_eq!((w, h), (600, 1568));
        let (w, h) = scaled(1280, 1008, page_scale(1280, 1008));
        // The area binds: √(1 150 000 / (1280 × 1008)), rounded down to 1208 × 951 = 1 148 808.
        assert_eq!((w, h), (1208, 951));
    }
}
