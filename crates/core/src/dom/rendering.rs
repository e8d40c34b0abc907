//! Rendering regions: where the engine drew the same page differently. Another browser build,
//! another machine or another rasteriser setting draws glyphs, borders and anti-aliased edges a
//! little apart where nothing on the page changed; [`rendering_regions`] tells those regions from
//! the rest, from what both DOM records say about the elements under each one.
//!
//! A region is a rendering region when every element under it, on both sides, is paired and
//! unchanged — same tag, text, image source and computed styles, its box within
//! [`GEOMETRY_TOLERANCE`](super::GEOMETRY_TOLERANCE) — none of them draws content the DOM does
//! not describe (a background image, an SVG, a canvas, a video, a frame, or an image whose bytes
//! are not known to be the same on both sides), and its pixels lie on what the engine
//! rasterises: text, form controls, images proven the same, and the edges of boxes (borders,
//! rounded corners, shadows).
//! A fill that changed inside a box, away from its text and edges, is no rendering difference: a
//! style the check does not collect can make it.

use super::attribution::{meets, screen_boxes};
use super::comparison::DomComparison;
use super::record::{DomSnapshot, ElementRecord};
use crate::regions::{Classification, ElementRole, Region};

/// Elements whose pixels come from content the DOM record does not describe: they can change
/// with nothing in the DOM changing.
const OPAQUE_CONTENT: [&str; 10] =
    ["img", "picture", "svg", "canvas", "video", "iframe", "frame", "embed", "object", "image"];

/// Elements the engine draws whole from their own state: form controls.
const CONTROLS: [&str; 5] = ["input", "textarea", "select", "button", "meter"];

/// How far an edge's anti-aliasing and a border's rasterisation reach either side of a box's
/// edge, in screenshot pixels per device pixel.
const EDGE_REACH: f64 = 3.0;

/// How far outside its box an element's `box-shadow` is drawn, at most, in CSS pixels (a blur
/// radius plus spread a page commonly uses).
const SHADOW_REACH: f64 = 24.0;

/// Share of a region's differing pixels that must lie on text, controls or edges.
const ON_RASTERISED: f64 = 0.9;

/// Points per side of a region's box sampled when the region keeps no differing pixels.
const GRID: u32 = 16;

/// Per region, whether it is a rendering region (see the module's description); `Shift`
/// regions never are (their content moved).
/// `proven_images` are the image digests of the DOM record ([`ElementRecord::image`]) of `<img>`
/// sources whose bytes are the same on both sides ([`image_source_digest`] of their URLs).
pub fn rendering_regions(
    regions: &[Region],
    baseline: &DomSnapshot,
    current: &DomSnapshot,
    dom: &DomComparison,
    proven_images: &[String],
) -> Vec<bool> {
    let roles = &dom.roles;
    if roles.baseline.len() != baseline.elements.len() || roles.current.len() != current.elements.len() {
        return vec![false; regions.len()];
    }
    let sides =
        [Side::new(baseline, &roles.baseline, proven_images), Side::new(current, &roles.current, proven_images)];
    regions
        .iter()
        .map(|region| region.classification == Classification::Change && sides.iter().all(|s| s.rendered_alike(region)))
        .collect()
}

/// One capture's elements, as rendering classification reads them.
struct Side<'a> {
    elements: &'a [ElementRecord],
    roles: &'a [Option<ElementRole>],
    /// Border boxes `[x0, y0, x1, y1]` in screenshot pixels; `None` for an element that takes no
    /// part (masked, ignored) or has no area.
    edges: Vec<Option<[f64; 4]>>,
    /// Elements with a `box-shadow`, and how far it reaches, in screenshot pixels.
    shadows: Vec<(usize, f64)>,
    /// [`EDGE_REACH`] in screenshot pixels.
    edge_reach: f64,
    proven_images: &'a [String],
}

impl<'a> Side<'a> {
    fn new(snapshot: &'a DomSnapshot, roles: &'a [Option<ElementRole>], proven_images: &'a [String]) -> Self {
        let scale = snapshot.device_pixel_ratio;
        let edges = screen_boxes(snapshot, roles, None);
        let shadow = snapshot.style_properties.iter().position(|p| p == "box-shadow");
        let shadows = shadow
            .map(|p| {
                let cast = |e: &ElementRecord| e.styles.get(p).is_some_and(|v| v != "none");
                let elements = snapshot.elements.iter().enumerate();
                elements
                    .filter(|(i, e)| edges[*i].is_some() && cast(e))
                    .map(|(i, _)| (i, SHADOW_REACH * scale))
                    .collect()
            })
            .unwrap_or_default();
        Side {
            elements: &snapshot.elements,
            roles,
            edges,
            shadows,
            edge_reach: EDGE_REACH * scale.max(1.0),
            proven_images,
        }
    }

    /// An `<img>` whose source's bytes are the same on both sides: the engine alone draws it.
    fn proven_image(&self, element: &ElementRecord) -> bool {
        element.tag == "img" && element.image.as_ref().is_some_and(|d| self.proven_images.contains(d))
    }

    /// Whether the elements under `region` on this side were drawn alike: unchanged, no opaque
    /// content, and the region's differing pixels lie on their text, controls and edges.
    fn rendered_alike(&self, region: &Region) -> bool {
        let area = region.corners();
        let under: Vec<usize> =
            (0..self.elements.len()).filter(|&i| self.edges[i].is_some_and(|e| meets(&e, &area))).collect();
        let unchanged = |i: &usize| {
            let element = &self.elements[*i];
            let drawn_from_the_dom = element.image.is_none() && !OPAQUE_CONTENT.contains(&element.tag.as_str());
            self.roles[*i] == Some(ElementRole::Overlaps) && (drawn_from_the_dom || self.proven_image(element))
        };
        if under.is_empty() || !under.iter().all(unchanged) {
            return false;
        }
        self.share_on_rasterised(region, &under) >= ON_RASTERISED
    }

    /// The share of the region's differing pixels ([`Region::samples`]) that lie on text, on a
    /// control, near the edge of an element under it, or under a shadow; for a region that keeps
    /// no samples, the share of points spread over its box.
    fn share_on_rasterised(&self, region: &Region, under: &[usize]) -> f64 {
        let points: Vec<(f64, f64)> = if region.samples.is_empty() {
            let area = region.corners();
            let (width, height) = (area[2] - area[0], area[3] - area[1]);
            let (nx, ny) = (GRID.min(width.ceil() as u32).max(1), GRID.min(height.ceil() as u32).max(1));
            let column = |sx: u32| area[0] + (f64::from(sx) + 0.5) * width / f64::from(nx);
            let row = |sy: u32| area[1] + (f64::from(sy) + 0.5) * height / f64::from(ny);
            (0..ny).flat_map(|sy| (0..nx).map(move |sx| (column(sx), row(sy)))).collect()
        } else {
            region.samples.iter().map(|&[x, y]| (f64::from(x) + 0.5, f64::from(y) + 0.5)).collect()
        };
        let on = points.iter().filter(|&&(x, y)| self.rasterised_at(x, y, under)).count();
        on as f64 / points.len() as f64
    }

    fn rasterised_at(&self, x: f64, y: f64, under: &[usize]) -> bool {
        let inside =
            |e: &[f64; 4], reach: f64| x >= e[0] - reach && x <= e[2] + reach && y >= e[1] - reach && y <= e[3] + reach;
        let reach = self.edge_reach;
        let on_element = under.iter().any(|&i| {
            let Some(e) = self.edges[i] else { return false };
            let element = &self.elements[i];
            let drawn_whole =
                element.text.is_some() || CONTROLS.contains(&element.tag.as_str()) || self.proven_image(element);
            (drawn_whole && inside(&e, 0.0))
                || (inside(&e, reach) && !inside(&[e[0] + reach, e[1] + reach, e[2] - reach, e[3] - reach], 0.0))
        });
        on_element
            || self.shadows.iter().any(|&(i, shadow)| {
                let e = self.edges[i].unwrap_or_default();
                inside(&e, shadow) && !inside(&[e[0] + reach, e[1] + reach, e[2] - reach, e[3] - reach], 0.0)
            })
    }
}

/// The DOM record's digest of an image source (`ElementRecord::image` of an `<img>`): FNV-1a
/// 64 of the URL's UTF-8, in hex, as the collector writes it.
pub fn image_source_digest(url: &str) -> String {
    let hash = url.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::dom::test_records::{el, page, parse, region};

    fn classify(baseline: &serde_json::Value, current: &serde_json::Value, regions: &[Region]) -> Vec<bool> {
        let (b, c) = (parse(baseline), parse(current));
        let dom = crate::dom::compare_dom(&b, &c);
        rendering_regions(regions, &b, &c, &dom, &[])
    }

    #[test]
    fn rendering_inside_an_image_only_when_its_bytes_are_the_same() {
        let url = "http://figures.test/hero.png";
        let mut p = page();
        let mut hero = el(4, "img", "#hero", [40.0, 140.0, 100.0, 100.0], None);
        hero["image"] = json!(image_source_digest(url));
        p["elements"].as_array_mut().unwrap().push(hero);
        let (b, c) = (parse(&p), parse(&p));
        let dom = crate::dom::compare_dom(&b, &c);
        let inside = [region(60, 160, 40, 40)];
        assert_eq!(rendering_regions(&inside, &b, &c, &dom, &[]), [false], "bytes not known");
        assert_eq!(rendering_regions(&inside, &b, &c, &dom, &[image_source_digest(url)]), [true]);
    }

    #[test]
    fn rendering_image_digests_are_the_collectors() {
        // What collectDom recorded for <img src="http://figures.test/hero.png"> in Chromium.
        assert_eq!(image_source_digest("http://figures.test/hero.png"), "3cf0fb63a8912292");
    }

    #[test]
    fn rendering_text_drawn_apart_on_an_unchanged_page_is_rendering() {
        // Glyphs of #card-a's paragraph, and the heading's.
        let regions = [region(32, 92, 150, 30), region(22, 12, 200, 30)];
        assert_eq!(classify(&page(), &page(), &regions), [true, true]);
    }

    #[test]
    fn rendering_edges_count_and_fills_do_not() {
        // The left border of #card-a (20..23), and a block inside it away from text and edges.
        let regions = [region(19, 150, 4, 100), region(100, 180, 60, 60)];
        assert_eq!(classify(&page(), &page(), &regions), [true, false]);
    }

    #[test]
    fn rendering_is_judged_where_the_pixels_differ_not_over_the_whole_box() {
        // A box over #card-a's paragraph and the fill below it, as a region of two lines of
        // text with a gap between them spans: its differing pixels lie on the glyphs.
        let mut on_text = region(30, 92, 160, 150);
        on_text.samples = (0..40).map(|i| [34 + 3 * i, 95 + i % 20]).collect();
        let mut on_fill = on_text.clone();
        on_fill.samples = (0..40).map(|i| [100 + i, 180 + i]).collect();
        let boxed = region(30, 92, 160, 150);
        assert_eq!(classify(&page(), &page(), &[on_text, on_fill, boxed]), [true, false, false]);
    }

    #[test]
    fn rendering_any_change_under_the_region_makes_it_real() {
        let region = [region(32, 92, 150, 30)];
        let restyled = {
            let mut p = page();
            p["elements"][5]["styles"][0] = json!("rgb(220, 38, 38)");
            p
        };
        let moved = {
            let mut p = page();
            p["elements"][5]["box"] = json!([30.0, 91.0, 220.0, 40.0]);
            p
        };
        let nudged = {
            let mut p = page();
            p["elements"][5]["box"] = json!([30.0, 90.3, 220.0, 40.0]);
            p
        };
        let reworded = {
            let mut p = page();
            p["elements"][5]["text"] = json!("zz");
            p
        };
        assert_eq!(classify(&page(), &restyled, &region), [false]);
        assert_eq!(classify(&page(), &moved, &region), [false]);
        assert_eq!(classify(&page(), &nudged, &region), [true], "within the sub-pixel tolerance");
        assert_eq!(classify(&page(), &reworded, &region), [false]);
    }

    #[test]
    fn rendering_never_inside_images_canvases_or_videos() {
        for tag in ["img", "canvas", "video", "svg", "iframe"] {
            let mut p = page();
            p["elements"].as_array_mut().unwrap().push(el(4, tag, "#card-a > x", [40.0, 140.0, 100.0, 100.0], None));
            // The element's own edge, where an engine difference would also be drawn.
            assert_eq!(classify(&p, &p, &[region(40, 140, 100, 3)]), [false], "{tag}");
        }
        let mut p = page();
        p["elements"][5]["image"] = json!("background");
        assert_eq!(classify(&p, &p, &[region(32, 92, 150, 30)]), [false], "a background image");
    }

    #[test]
    fn rendering_shift_regions_are_never_rendering() {
        let mut r = region(32, 92, 150, 30);
        r.classification = Classification::Shift;
        assert_eq!(classify(&page(), &page(), &[r]), [false]);
    }

    #[test]
    fn rendering_a_shadow_outside_the_box_counts_as_an_edge() {
        let mut p = page();
        p["styleProperties"] = json!(["color", "background-color", "box-shadow"]);
        for e in p["elements"].as_array_mut().unwrap() {
            e["styles"][2] = json!("none");
        }
        let plain = p.clone();
        p["elements"][6]["styles"][2] = json!("rgba(0, 0, 0, 0.2) 0px 4px 12px 0px");
        // Below #card-b (280,80 240 × 200): its shadow.
        let below = [region(300, 282, 200, 10)];
        assert_eq!(classify(&p, &p, &below), [true]);
        assert_eq!(classify(&plain, &plain, &below), [false]);
    }
}
