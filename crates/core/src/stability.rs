//! A page that never settles: toHaveScreenshot shoots until two consecutive screenshots agree
//! and fails when they never do within the timeout. The matcher shoots; this says *what* kept
//! changing, from the last two shots, so the failure names the area and its element.

use std::path::Path;

use crate::compare::{CompareOptions, compare_images};
use crate::decode::decode_image;
use crate::dom::{DomSnapshot, parse_dom};
use crate::error::Result;
use crate::image::{ImageRef, RgbaImage};
use crate::mask::masked_pair;

/// The colour the shots' masked boxes are painted with before they are checked: any opaque
/// colour does, the same on both shots.
const SET_ASIDE: [u8; 4] = [255, 0, 255, 255];

/// Both shots as the comparison will see them: the boxes of masked elements painted on both and,
/// in `last`, `previous`'s pixels under ignored elements; `None` when the record masks and
/// ignores nothing (or the sizes differ), and the shots are taken as they are.
fn set_aside(previous: ImageRef<'_>, last: ImageRef<'_>, dom: Option<&DomSnapshot>) -> Option<(RgbaImage, RgbaImage)> {
    if (previous.width(), previous.height()) != (last.width(), last.height()) {
        return None;
    }
    masked_pair(previous, last, [dom?, dom?], SET_ASIDE)
}

/// Whether two consecutive shots agree once what `mask` hides and `ignoreSelectors` leaves out is
/// set aside. toHaveScreenshot paints the mask on every shot it takes, so a masked clock does not
/// keep a page from settling; nor may it here, where the mask is painted after the shots.
pub fn shots_agree(previous: ImageRef<'_>, last: ImageRef<'_>, dom: Option<&DomSnapshot>) -> bool {
    if (previous.width(), previous.height()) != (last.width(), last.height()) {
        return false;
    }
    match set_aside(previous, last, dom) {
        Some((a, b)) => a.as_bytes() == b.as_bytes(),
        None => previous.as_bytes() == last.as_bytes(),
    }
}

/// [`shots_agree`] on two encoded screenshots and the capture's DOM record (the JSON the
/// collector returned), as the matcher holds them while it shoots.
pub fn screenshots_agree(previous_png: &[u8], last_png: &[u8], dom_json: &str) -> Result<bool> {
    let previous = decode_image(previous_png, Path::new("earlier screenshot"))?;
    let last = decode_image(last_png, Path::new("last screenshot"))?;
    let dom = parse_dom(dom_json)?;
    Ok(shots_agree(previous.view(), last.view(), Some(&dom)))
}

/// Where a walk of the page after its shot puts what `mask` paints or `ignoreSelectors` leaves
/// out differently from `recorded`, the walk the capture carries: the first element that moved,
/// came or went, in words (`#ad (masked) moved from 300×50 at 0,40 to 300×250 at 0,40`); `None`
/// when every such box is where the record says. The matcher walks before it shoots, so a page
/// that moved in between (a late ad slot growing) would have its mask painted beside what it must
/// hide; it asks this after the shot and walks and shoots again when the answer is some.
pub fn set_aside_moved(recorded: &DomSnapshot, now: &DomSnapshot) -> Option<String> {
    let tops = |dom: &DomSnapshot| -> Vec<(&'static str, String, [f64; 4])> {
        let masked = dom.masked_tops().map(|e| ("masked", e.selector.clone(), e.bounds));
        masked.chain(dom.ignored_tops().map(|e| ("ignored", e.selector.clone(), e.bounds))).collect()
    };
    let (before, after) = (tops(recorded), tops(now));
    if before == after {
        return None;
    }
    let size = |[x, y, w, h]: [f64; 4]| format!("{w}×{h} at {x},{y}");
    for (kind, selector, bounds) in &before {
        match after.iter().find(|(k, s, _)| k == kind && s == selector) {
            None => return Some(format!("{selector} ({kind}, {}) went", size(*bounds))),
            Some((_, _, moved)) if moved != bounds => {
                return Some(format!("{selector} ({kind}) moved from {} to {}", size(*bounds), size(*moved)));
            }
            Some(_) => {}
        }
    }
    after
        .iter()
        .find(|(k, s, _)| !before.iter().any(|(bk, bs, _)| bk == k && bs == s))
        .map(|(kind, selector, bounds)| format!("{selector} ({kind}, {}) came", size(*bounds)))
        // Same elements and boxes in another order.
        .or_else(|| Some("the masked and ignored elements changed order".into()))
}

/// [`set_aside_moved`] on two DOM records as the collector returned them (JSON).
pub fn set_aside_moved_json(recorded: &str, now: &str) -> Result<Option<String>> {
    Ok(set_aside_moved(&parse_dom(recorded)?, &parse_dom(now)?))
}

/// The sentence of a page that never settled, for every caller that says it: `Unstable page: two
/// consecutive screenshots never matched within 5012 ms; the area 62×20 at 10,10 (#clock) kept
/// changing`.
pub fn never_settled(waited_ms: u64, area: &str) -> String {
    format!("Unstable page: two consecutive screenshots never matched within {waited_ms} ms; {area} kept changing")
}

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
    // What kept changing under a mask (or an ignored element) is not what kept the page from
    // settling: only the rest is looked at.
    let aside = set_aside(previous, last, dom);
    let (previous, last) = aside.as_ref().map_or((previous, last), |(a, b)| (a.view(), b.view()));
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
        dom_masking(false)
    }

    /// A 40×20 page whose `#clock` (20,0 20×10) is masked when `masked`.
    fn dom_masking(masked: bool) -> DomSnapshot {
        let json = serde_json::json!({
            "version": 1, "url": "about:blank", "viewport": {"width": 40, "height": 20}, "devicePixelRatio": 1,
            "document": {"width": 40, "height": 20}, "styleProperties": [],
            "elements": [
                {"parent": -1, "tag": "body", "selector": "body", "box": [0, 0, 40, 20], "text": null, "image": null, "styles": [], "masked": false},
                {"parent": 0, "tag": "p", "selector": "#clock", "box": [20, 0, 20, 10], "text": "a", "image": null, "styles": [], "masked": masked}
            ],
            "fonts": [], "brokenImages": []
        });
        crate::dom::parse_dom(&json.to_string()).unwrap()
    }

    #[test]
    fn stability_a_mask_that_moved_came_or_went_after_the_walk_is_named() {
        let at = |masked: bool, y: f64, ignored: bool| {
            let mut dom = dom_masking(masked);
            dom.elements[1].bounds[1] = y;
            dom.elements[1].ignored = ignored;
            dom
        };
        assert_eq!(set_aside_moved(&at(true, 0.0, false), &at(true, 0.0, false)), None);
        // Nothing masked or ignored: what moved is no business of the mask.
        assert_eq!(set_aside_moved(&at(false, 0.0, false), &at(false, 6.0, false)), None);
        assert_eq!(
            set_aside_moved(&at(true, 0.0, false), &at(true, 6.0, false)).as_deref(),
            Some("#clock (masked) moved from 20×10 at 20,0 to 20×10 at 20,6")
        );
        assert_eq!(
            set_aside_moved(&at(true, 0.0, false), &at(false, 0.0, false)).as_deref(),
            Some("#clock (masked, 20×10 at 20,0) went")
        );
        assert_eq!(
            set_aside_moved(&at(false, 0.0, false), &at(false, 0.0, true)).as_deref(),
            Some("#clock (ignored, 20×10 at 20,0) came")
        );
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

    /// `shot` with the pixels of `[x0, x1) × [y0, y1)` black.
    fn blacken(shot: &RgbaImage, [x0, y0, x1, y1]: [usize; 4]) -> RgbaImage {
        let mut out = shot.clone();
        for y in y0..y1 {
            for x in x0..x1 {
                let i = (y * 40 + x) * 4;
                out.as_bytes_mut()[i..i + 3].copy_from_slice(&[0, 0, 0]);
            }
        }
        out
    }

    #[test]
    fn stability_shots_agree_when_only_masked_pixels_changed() {
        let a = RgbaImage::filled(40, 20, [255, 255, 255, 255]).unwrap();
        // the clock ticked: inside its box (20,0 20×10) only
        let ticked = blacken(&a, [24, 2, 34, 8]);
        assert!(!shots_agree(a.view(), ticked.view(), Some(&dom())), "an unmasked clock keeps the page unsettled");
        assert!(shots_agree(a.view(), ticked.view(), Some(&dom_masking(true))), "a masked clock does not");
        // a change outside the mask still counts, and is the area named, never the masked clock
        let moved = blacken(&ticked, [2, 12, 6, 16]);
        assert!(!shots_agree(a.view(), moved.view(), Some(&dom_masking(true))));
        assert_eq!(
            unsettled_area(a.view(), moved.view(), Some(&dom_masking(true))).unwrap(),
            "the area 4×4 at 2,12 (body)"
        );
        let wider = RgbaImage::filled(41, 20, [255, 255, 255, 255]).unwrap();
        assert!(!shots_agree(a.view(), wider.view(), Some(&dom_masking(true))));
    }
}
