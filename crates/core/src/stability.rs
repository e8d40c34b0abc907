//! A page that never settles: toHaveScreenshot shoots until two consecutive screenshots agree
//! and fails when they never do within the timeout. The matcher shoots; this says *what* kept
//! changing, from the last two shots, so the failure names the area and its element.

use crate::compare::{CompareOptions, compare_images};
use crate::dom::DomSnapshot;
use crate::error::Result;
use crate::image::ImageRef;

/// What differs between the last two shots of a page that never settled, in words:
/// `62×20 at 10,10 (body > p#clock)`, `… and 2 more areas`, or the size change.
pub fn unsettled_area(previous: ImageRef<'_>, last: ImageRef<'_>, dom: Option<&DomSnapshot>) -> Result<String> {
    if (previous.width(), previous.height()) != (last.width(), last.height()) {
        return Ok(format!(
            "the page size ({}×{} → {}×{})",
            previous.width(),
            previous.height(),
            last.width(),
            last.height()
        ));
    }
    let (comparison, _) = compare_images(previous, last, &CompareOptions::default(), false)?;
    let Some(largest) = comparison.regions.iter().max_by_key(|r| r.diff_pixels) else {
        return Ok(format!("{} scattered pixels", comparison.diff_pixels));
    };
    let mut area = format!("the area {}×{} at {},{}", largest.width, largest.height, largest.x, largest.y);
    if let Some(selector) =
        dom.and_then(|d| innermost_covering(d, [largest.x, largest.y, largest.width, largest.height]))
    {
        area.push_str(&format!(" ({selector})"));
    }
    match comparison.regions.len() - 1 {
        0 => {}
        1 => area.push_str(" and 1 more area"),
        n => area.push_str(&format!(" and {n} more areas")),
    }
    Ok(area)
}

/// The smallest element of `dom` whose box holds the device-pixel box `region`, the deepest of
/// equal ones.
fn innermost_covering(dom: &DomSnapshot, region: [u32; 4]) -> Option<&str> {
    let scale = dom.device_pixel_ratio.max(f64::MIN_POSITIVE);
    let [x, y, w, h] = region.map(|v| f64::from(v) / scale);
    // Half a CSS pixel of slack: a box's edges are rounded out to whole device pixels.
    let holds =
        |[bx, by, bw, bh]: [f64; 4]| bx - 0.5 <= x && by - 0.5 <= y && x + w <= bx + bw + 0.5 && y + h <= by + bh + 0.5;
    // Backwards, so of equal boxes the deepest (later in document order) wins.
    dom.elements
        .iter()
        .rev()
        .filter(|e| holds(e.bounds))
        .min_by(|a, b| (a.bounds[2] * a.bounds[3]).total_cmp(&(b.bounds[2] * b.bounds[3])))
        .map(|e| e.selector.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::RgbaImage;

    fn dom() -> DomSnapshot {
        let json = serde_json::json!({
            "version": 1, "url": "about:blank", "viewport": {"width": 40, "height": 20}, "devicePixelRatio": 1,
            "document": {"width": 40, "height": 20}, "styleProperties": [],
            "elements": [
                {"parent": -1, "tag": "body", "selector": "body", "box": [0, 0, 40, 20], "text": null, "image": null, "styles": [], "masked": false},
                {"parent": 0, "tag": "p", "selector": "#clock", "box": [20, 0, 20, 10], "text": "a", "image": null, "styles": [], "masked": false}
            ],
            "fonts": [], "brokenImages": []
        });
        crate::dom::parse_dom(&json.to_string()).unwrap()
    }

    #[test]
    fn stability_names_the_area_that_kept_changing_and_its_element() {
        let a = RgbaImage::filled(40, 20, [255, 255, 255, 255]).unwrap();
        let mut b = a.clone();
        for y in 2..8 {
            for x in 24..34 {
                let i = (y * 40 + x) * 4;
                b.as_bytes_mut()[i..i + 3].copy_from_slice(&[0, 0, 0]);
            }
        }
        let area = unsettled_area(a.view(), b.view(), Some(&dom())).unwrap();
        assert_eq!(area, "the area 10×6 at 24,2 (#clock)");
        let wider = RgbaImage::filled(41, 20, [255, 255, 255, 255]).unwrap();
        assert_eq!(unsettled_area(a.view(), wider.view(), None).unwrap(), "the page size (40×20 → 41×20)");
    }
}
