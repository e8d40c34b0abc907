//! `mask`: the boxes of masked elements painted with `maskColor`, as Playwright's
//! `toHaveScreenshot` paints them.
//!
//! Two paintings, for two reasons:
//! - the capture is painted once, with its own masked boxes and the colour as given (a
//!   translucent colour lets the content show through, as in Playwright), before it is stored:
//!   the stored capture, the `-actual.png` attachment, the report and a baseline approved from it
//!   all show the mask;
//! - before the pixels are compared, both images are painted again over the masked boxes of
//!   *either* side with the colour made opaque, so a mask that moved or grew between the two
//!   captures, or a baseline approved before the mask existed, still leaves no pixel evidence
//!   under any mask, and painting twice cannot change the answer.
//!
//! `ignoreSelectors` are left out of the pixels without painting: for the comparison only, the
//! current image takes the baseline's pixels under the ignored boxes of either side.

use crate::dom::DomSnapshot;
use crate::image::{ImageRef, RgbaImage};

/// A box in device pixels, `[x0, y0, x1, y1)`.
type DeviceBox = [u32; 4];

/// `boxes` (CSS pixels) in device pixels of an image `width × height`: whole pixels covering
/// each box, clamped to the image, empty boxes left out.
fn device_boxes(boxes: impl Iterator<Item = [f64; 4]>, scale: f64, width: u32, height: u32) -> Vec<DeviceBox> {
    let edge = |v: f64, round: fn(f64) -> f64, limit: u32| round(v * scale).clamp(0.0, limit as f64) as u32;
    boxes
        .map(|[x, y, w, h]| {
            [
                edge(x, f64::floor, width),
                edge(y, f64::floor, height),
                edge(x + w, f64::ceil, width),
                edge(y + h, f64::ceil, height),
            ]
        })
        .filter(|[x0, y0, x1, y1]| x0 < x1 && y0 < y1)
        .collect()
}

fn mask_boxes(dom: &DomSnapshot, width: u32, height: u32) -> Vec<DeviceBox> {
    device_boxes(dom.mask_boxes(), dom.device_pixel_ratio, width, height)
}

fn ignore_boxes(dom: &DomSnapshot, width: u32, height: u32) -> Vec<DeviceBox> {
    device_boxes(dom.ignore_boxes(), dom.device_pixel_ratio, width, height)
}

/// Paints `color` over `boxes`, composited source-over (an opaque colour replaces the pixels).
fn paint(image: &mut RgbaImage, boxes: &[DeviceBox], color: [u8; 4]) {
    let stride = image.width() as usize * 4;
    let bytes = image.as_bytes_mut();
    let alpha = u32::from(color[3]);
    for &[x0, y0, x1, y1] in boxes {
        for y in y0..y1 {
            let row = y as usize * stride;
            let pixels = &mut bytes[row + x0 as usize * 4..row + x1 as usize * 4];
            if alpha == 255 {
                for px in pixels.chunks_exact_mut(4) {
                    px.copy_from_slice(&color);
                }
                continue;
            }
            for px in pixels.chunks_exact_mut(4) {
                for c in 0..3 {
                    let blended = (u32::from(color[c]) * alpha + u32::from(px[c]) * (255 - alpha) + 127) / 255;
                    px[c] = blended as u8;
                }
                px[3] = (alpha + u32::from(px[3]) * (255 - alpha) / 255).min(255) as u8;
            }
        }
    }
}

/// Paints the capture's own masked boxes with `color` as given (the stored capture shows the
/// mask). Returns whether anything was painted.
pub fn paint_capture(image: &mut RgbaImage, dom: &DomSnapshot, color: [u8; 4]) -> bool {
    let boxes = mask_boxes(dom, image.width(), image.height());
    paint(image, &boxes, color);
    !boxes.is_empty()
}

/// The boxes [`paint_capture`] paints on an image `width × height` of the page `dom` records:
/// they and the colour make the stored pixels as much as the browser's bytes do.
pub(crate) fn painted_boxes(dom: &DomSnapshot, width: u32, height: u32) -> Vec<[u32; 4]> {
    mask_boxes(dom, width, height)
}

/// The boxes left out of the pixels on either side (`ignoreSelectors`' elements, `ignoreRegions`)
/// as `[x, y, width, height]` in pixels of an image `width × height`, each once.
pub fn ignored_boxes(doms: [&DomSnapshot; 2], width: u32, height: u32) -> Vec<[u32; 4]> {
    let mut boxes: Vec<[u32; 4]> = Vec::new();
    for [x0, y0, x1, y1] in doms.iter().flat_map(|d| ignore_boxes(d, width, height)) {
        let found = [x0, y0, x1 - x0, y1 - y0];
        if !boxes.contains(&found) {
            boxes.push(found);
        }
    }
    boxes
}

/// Copies of both images as the comparison sees them: the masked boxes of either side painted
/// opaque `color` on both, then, in the current image, the baseline's pixels under the ignored
/// boxes of either side (outside the baseline, after a size change, the current pixels stay);
/// `None` when neither side masks or ignores anything.
pub fn masked_pair(
    baseline: ImageRef<'_>,
    current: ImageRef<'_>,
    doms: [&DomSnapshot; 2],
    color: [u8; 4],
) -> Option<(RgbaImage, RgbaImage)> {
    let (bw, bh, cw, ch) = (baseline.width(), baseline.height(), current.width(), current.height());
    let masks_on = |w, h| -> Vec<DeviceBox> { doms.iter().flat_map(|d| mask_boxes(d, w, h)).collect() };
    let (baseline_masks, current_masks) = (masks_on(bw, bh), masks_on(cw, ch));
    let ignored: Vec<DeviceBox> = doms.iter().flat_map(|d| ignore_boxes(d, bw.min(cw), bh.min(ch))).collect();
    if baseline_masks.is_empty() && current_masks.is_empty() && ignored.is_empty() {
        return None;
    }
    let opaque = [color[0], color[1], color[2], 255];
    let copy = |image: ImageRef<'_>| RgbaImage::from_raw(image.width(), image.height(), image.as_bytes().to_vec()).ok();
    let (mut b, mut c) = (copy(baseline)?, copy(current)?);
    paint(&mut b, &baseline_masks, opaque);
    paint(&mut c, &current_masks, opaque);
    let stride = cw as usize * 4;
    for [x0, y0, x1, y1] in ignored {
        let (from, to) = (x0 as usize * 4, x1 as usize * 4);
        for y in y0..y1 {
            let row = y as usize * stride;
            c.as_bytes_mut()[row + from..row + to].copy_from_slice(&b.row(y)[from..to]);
        }
    }
    Some((b, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dom(boxes: &[([f64; 4], bool, i64)], dpr: f64) -> DomSnapshot {
        dom_with(boxes, &[], dpr)
    }

    /// A record of `masked` boxes (box, masked, parent) and `ignored` boxes.
    fn dom_with(boxes: &[([f64; 4], bool, i64)], ignored: &[[f64; 4]], dpr: f64) -> DomSnapshot {
        let elements: Vec<serde_json::Value> = std::iter::once(serde_json::json!({
            "parent": -1, "tag": "body", "selector": "body", "box": [0, 0, 8, 4], "text": null, "image": null,
            "styles": [], "masked": false
        }))
        .chain(boxes.iter().enumerate().map(|(i, (b, masked, parent))| {
            serde_json::json!({
                "parent": parent, "tag": "div", "selector": format!("#m{i}"), "box": b, "text": null,
                "image": null, "styles": [], "masked": masked
            })
        }))
        .chain(ignored.iter().enumerate().map(|(i, b)| {
            serde_json::json!({
                "parent": 0, "tag": "div", "selector": format!("#i{i}"), "box": b, "text": null,
                "image": null, "styles": [], "masked": false, "ignored": true
            })
        }))
        .collect();
        let json = serde_json::json!({
            "version": 1, "url": "about:blank", "viewport": {"width": 8, "height": 4}, "devicePixelRatio": dpr,
            "document": {"width": 8, "height": 4}, "styleProperties": [], "elements": elements,
            "fonts": [], "brokenImages": []
        });
        crate::dom::parse_dom(&json.to_string()).unwrap()
    }

    fn painted_pixels(image: &RgbaImage, color: [u8; 4]) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for y in 0..image.height() {
            for x in 0..image.width() {
                if image.row(y)[x as usize * 4..x as usize * 4 + 4] == color {
                    out.push((x, y));
                }
            }
        }
        out
    }

    #[test]
    fn mask_paints_whole_device_pixels_covering_each_top_masked_box() {
        // a box from 1.5 to 3.2 covers pixels 1, 2 and 3; a masked child inside a masked
        // parent adds nothing; an unmasked element is not painted
        let d = dom(
            &[([1.5, 0.0, 1.7, 1.0], true, 0), ([1.5, 0.0, 6.0, 3.0], true, 1), ([6.0, 3.0, 2.0, 1.0], false, 0)],
            1.0,
        );
        let mut image = RgbaImage::filled(8, 4, [255, 255, 255, 255]).unwrap();
        assert!(paint_capture(&mut image, &d, [255, 0, 255, 255]));
        assert_eq!(painted_pixels(&image, [255, 0, 255, 255]), [(1, 0), (2, 0), (3, 0)]);
    }

    #[test]
    fn mask_boxes_scale_by_the_device_pixel_ratio_and_clamp_to_the_image() {
        let d = dom(&[([3.0, 1.0, 10.0, 10.0], true, 0)], 2.0);
        let mut image = RgbaImage::filled(8, 4, [0, 0, 0, 255]).unwrap();
        paint_capture(&mut image, &d, [255, 0, 255, 255]);
        let painted = painted_pixels(&image, [255, 0, 255, 255]);
        assert_eq!(painted.len(), 2 * 2, "x 6..8, y 2..4");
        assert_eq!(painted[0], (6, 2));
    }

    #[test]
    fn mask_translucent_colour_composites_over_the_capture() {
        let d = dom(&[([0.0, 0.0, 1.0, 1.0], true, 0)], 1.0);
        let mut image = RgbaImage::filled(8, 4, [0, 0, 0, 255]).unwrap();
        paint_capture(&mut image, &d, [255, 0, 255, 128]);
        assert_eq!(&image.row(0)[..4], &[128, 0, 128, 255]);
    }

    #[test]
    fn mask_pair_paints_either_sides_boxes_opaque_on_both_images() {
        let (b, c) = (dom(&[([0.0, 0.0, 2.0, 1.0], true, 0)], 1.0), dom(&[([4.0, 2.0, 2.0, 2.0], true, 0)], 1.0));
        let white = RgbaImage::filled(8, 4, [255, 255, 255, 255]).unwrap();
        let black = RgbaImage::filled(8, 4, [0, 0, 0, 255]).unwrap();
        let (pb, pc) = masked_pair(white.view(), black.view(), [&b, &c], [255, 0, 255, 10]).unwrap();
        let expected = [(0, 0), (1, 0), (4, 2), (5, 2), (4, 3), (5, 3)];
        assert_eq!(painted_pixels(&pb, [255, 0, 255, 255]), expected);
        assert_eq!(painted_pixels(&pc, [255, 0, 255, 255]), expected);
        let none = dom(&[], 1.0);
        assert!(masked_pair(white.view(), black.view(), [&none, &none], [255, 0, 255, 255]).is_none());
    }

    #[test]
    fn mask_pair_gives_ignored_boxes_the_baselines_pixels_without_painting() {
        let (b, c) = (dom_with(&[], &[[1.0, 1.0, 2.0, 1.0]], 1.0), dom(&[], 1.0));
        let white = RgbaImage::filled(8, 4, [255, 255, 255, 255]).unwrap();
        let black = RgbaImage::filled(8, 4, [0, 0, 0, 255]).unwrap();
        let (pb, pc) = masked_pair(white.view(), black.view(), [&b, &c], [255, 0, 255, 255]).unwrap();
        assert_eq!(pb.as_bytes(), white.as_bytes(), "the baseline is untouched");
        assert_eq!(painted_pixels(&pc, [255, 255, 255, 255]), [(1, 1), (2, 1)]);
    }
}
