//! Whole-snapshot decisions: pixels + DOM record + health → status and the one-line verdict,
//! one planted change per case, exactly as 02-results.md orders the rules.

use serde_json::{Value, json};
use sightline_core::RgbaImage;
use sightline_core::dom::{DomSnapshot, parse_dom};
use sightline_core::health::{AssetKind, HealthReason};
use sightline_core::regions::ElementRole;
use sightline_core::snapshot::{CaptureSide, SnapshotEvidence, SnapshotOptions, compare_snapshot};
use sightline_core::verdict::{Status, Tolerance, VerdictKind};

const W: u32 = 400;
const H: u32 = 600;

/// (selector, parent index, box, color)
type El<'a> = (&'a str, i64, [f64; 4], &'a str);

fn dom(elements: &[El<'_>], font_status: &str) -> DomSnapshot {
    let els: Vec<Value> = elements
        .iter()
        .map(|(selector, parent, b, color)| {
            json!({ "parent": parent, "tag": selector.rsplit(' ').next().unwrap().split(['.', ':', '#']).next().unwrap_or("div"),
                    "selector": selector, "box": b, "text": null, "image": null, "styles": [color], "masked": false })
        })
        .collect();
    let record = json!({ "version": 1, "url": "http://127.0.0.1/", "viewport": {"width": W, "height": H},
        "devicePixelRatio": 1, "document": {"width": W, "height": H}, "styleProperties": ["color"],
        "elements": els, "fonts": [{"family": "Brand", "status": font_status}], "brokenImages": [] });
    parse_dom(&record.to_string()).unwrap()
}

const BLACK: &str = "rgb(0, 0, 0)";
const BLUE: &str = "rgb(37, 99, 235)";

fn base_elements() -> Vec<El<'static>> {
    vec![
        ("body", -1, [0.0, 0.0, W as f64, H as f64], BLACK),
        ("body > header", 0, [0.0, 0.0, W as f64, 50.0], BLACK),
        ("body > main", 0, [0.0, 50.0, W as f64, 550.0], BLACK),
        ("#card-a", 2, [20.0, 100.0, 160.0, 120.0], BLACK),
        ("#card-b", 2, [220.0, 100.0, 160.0, 120.0], BLACK),
    ]
}

fn page() -> RgbaImage {
    let mut img = RgbaImage::filled(W, H, [255, 255, 255, 255]).unwrap();
    fill(&mut img, 0, 0, W, 50, [20, 20, 60, 255]);
    fill(&mut img, 20, 100, 160, 120, [190, 190, 210, 255]);
    fill(&mut img, 220, 100, 160, 120, [190, 190, 210, 255]);
    // text-like lines under the cards: every row distinct, as on a real page
    for y in (360..600).filter(|y| y % 10 < 6) {
        fill(&mut img, 20 + (y * 13) % 200, y, 80, 1, [40, 40, 40, 255]);
    }
    img
}

fn fill(img: &mut RgbaImage, x0: u32, y0: u32, w: u32, h: u32, rgba: [u8; 4]) {
    let width = img.width();
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            let i = ((y * width + x) * 4) as usize;
            img.as_bytes_mut()[i..i + 4].copy_from_slice(&rgba);
        }
    }
}

type Side<'a> = (&'a RgbaImage, &'a DomSnapshot, &'a [HealthReason]);

fn side<'a>((image, dom, failures): Side<'a>) -> CaptureSide<'a> {
    CaptureSide { image: image.view(), dom: Some(dom), failures, environment: None }
}

fn run(base: Side<'_>, cur: Side<'_>, tolerance: Tolerance) -> SnapshotEvidence {
    let options = SnapshotOptions { tolerance, ..SnapshotOptions::default() };
    compare_snapshot("home", "chromium", Some(side(base)), side(cur), &options, false).unwrap().0
}

/// A region as the tests compare it: its box, its counted pixels and the elements it names.
#[derive(Debug, PartialEq)]
struct NamedRegion {
    bounds: (u32, u32, u32, u32),
    diff_pixels: u64,
    elements: Vec<(String, ElementRole)>,
}

fn region(bounds: (u32, u32, u32, u32), diff_pixels: u64, elements: &[(&str, ElementRole)]) -> NamedRegion {
    NamedRegion { bounds, diff_pixels, elements: elements.iter().map(|&(s, r)| (s.to_owned(), r)).collect() }
}

/// The pixel layer's regions of `e`.
fn regions(e: &SnapshotEvidence) -> Vec<NamedRegion> {
    let pixel = e.layers.pixel.as_ref().expect("a pixel layer");
    pixel
        .regions
        .iter()
        .map(|r| NamedRegion {
            bounds: (r.x, r.y, r.width, r.height),
            diff_pixels: r.diff_pixels,
            elements: r.elements.iter().map(|a| (a.selector.clone(), a.role)).collect(),
        })
        .collect()
}

#[test]
fn snapshot_identical_pages_pass() {
    let (img, d) = (page(), dom(&base_elements(), "loaded"));
    let e = run((&img, &d, &[]), (&img, &d, &[]), Tolerance::default());
    assert_eq!((e.status, e.verdict_kind), (Status::Passed, VerdictKind::Identical));
    assert_eq!(e.verdict, "Passed: no pixel differs");
    assert!(!e.failed());
}

#[test]
fn snapshot_style_only_change_names_elements_and_from_to() {
    let (img, d) = (page(), dom(&base_elements(), "loaded"));
    let mut img2 = page();
    fill(&mut img2, 20, 100, 160, 120, [37, 99, 235, 255]);
    fill(&mut img2, 220, 100, 160, 120, [37, 99, 235, 255]);
    let mut els = base_elements();
    els[3].3 = BLUE;
    els[4].3 = BLUE;
    let d2 = dom(&els, "loaded");
    let e = run((&img, &d, &[]), (&img2, &d2, &[]), Tolerance::default());
    assert_eq!((e.status, e.verdict_kind), (Status::Changed, VerdictKind::StyleOnly));
    assert_eq!(
        e.verdict,
        "Style-only change: 2 elements restyled (#card-a, #card-b); color rgb(0, 0, 0) → rgb(37, 99, 235); real, not noise; confirm it was intended before approving"
    );
    let pixel = e.layers.pixel.as_ref().unwrap();
    assert_eq!(pixel.diff_pixels, 2 * 160 * 120);
    // One region per card, each naming its card, and nothing else.
    assert_eq!(
        regions(&e),
        [
            region((20, 100, 160, 120), 19_200, &[("#card-a", ElementRole::Changed)]),
            region((220, 100, 160, 120), 19_200, &[("#card-b", ElementRole::Changed)]),
        ]
    );
}

#[test]
fn snapshot_added_element_is_structural() {
    let (img, d) = (page(), dom(&base_elements(), "loaded"));
    let mut img2 = page();
    fill(&mut img2, 20, 300, 100, 30, [200, 0, 0, 255]); // above the text lines
    let mut els = base_elements();
    els.push(("body > main > button", 2, [20.0, 300.0, 100.0, 30.0], BLACK));
    let d2 = dom(&els, "loaded");
    let e = run((&img, &d, &[]), (&img2, &d2, &[]), Tolerance::default());
    assert_eq!(e.verdict_kind, VerdictKind::Structural);
    assert_eq!(
        e.verdict,
        "Structural change: 1 element added (body > main > button); compare with the intended change"
    );
    // The button's box is the only region, and it names the button, added.
    assert_eq!(regions(&e), [region((20, 300, 100, 30), 3000, &[("body > main > button", ElementRole::Added)])]);
}

#[test]
fn snapshot_grown_header_is_a_page_shift_naming_the_element() {
    let (img, d) = (page(), dom(&base_elements(), "loaded"));
    // the header grows by 24 px and pushes everything below it down
    let stride = (W * 4) as usize;
    let mut data = img.as_bytes()[..50 * stride].to_vec();
    data.extend([20u8, 20, 60, 255].repeat((W * 24) as usize));
    data.extend_from_slice(&img.as_bytes()[50 * stride..]);
    let img2 = RgbaImage::from_raw(W, H + 24, data).unwrap();
    let els: Vec<El<'_>> = base_elements()
        .into_iter()
        .map(|(s, p, b, c)| match s {
            "body" => (s, p, [b[0], b[1], b[2], b[3] + 24.0], c),
            "body > header" => (s, p, [b[0], b[1], b[2], 74.0], c),
            _ => (s, p, [b[0], b[1] + 24.0, b[2], b[3]], c),
        })
        .collect();
    let d2 = dom(&els, "loaded");
    let e = run((&img, &d, &[]), (&img2, &d2, &[]), Tolerance::default());
    assert_eq!(e.verdict_kind, VerdictKind::PageShift, "{}", e.verdict);
    assert_eq!(e.verdict, "Page shift: content below y=50 moved down 24 px (body > header grew by 24 px)");
    let shift = e.layers.pixel.unwrap().shift.unwrap();
    assert_eq!((shift.dy, shift.below_y), (24, 50));
}

#[test]
fn snapshot_failed_font_is_unhealthy_even_with_equal_pixels() {
    let img = page();
    let (d, d2) = (dom(&base_elements(), "loaded"), dom(&base_elements(), "error"));
    let e = run((&img, &d, &[]), (&img, &d2, &[]), Tolerance { noise_auto_pass: true, ..Tolerance::default() });
    assert_eq!((e.status, e.verdict_kind), (Status::Changed, VerdictKind::Unhealthy));
    assert!(e.capture_health.unhealthy && !e.capture_health.same_on_both_sides);
    assert_eq!(
        e.verdict,
        "Unhealthy capture: font \"Brand\" failed to load (FontFace status error); fix the page's assets and never approve this capture as a baseline"
    );

    // the same failure in the baseline: tolerances apply again, the failure is still reported
    let e = run((&img, &d2, &[]), (&img, &d2, &[]), Tolerance::default());
    assert_eq!(e.status, Status::Passed);
    assert!(e.capture_health.same_on_both_sides);
    assert_eq!(
        e.verdict,
        "Passed: no pixel differs, but font \"Brand\" failed to load (FontFace status error) (the baseline failed the same way)"
    );

    // ... and a diff beside it is judged as any diff: within the tolerances it passes, beyond them
    // it gets its own verdict; both lines still name the font.
    let mut img2 = page();
    for i in 0..6 {
        fill(&mut img2, 5 + i * 60, 240 + i * 18, 1, 1, [120, 120, 120, 255]);
    }
    let within = Tolerance { max_diff_pixels: Some(10), ..Tolerance::default() };
    let e = run((&img, &d2, &[]), (&img2, &d2, &[]), within);
    assert_eq!((e.status, e.verdict_kind), (Status::Passed, VerdictKind::WithinTolerance));
    assert_eq!(
        e.verdict,
        "Passed: 6 pixels differ (0.003 %), within the allowed 10, but font \"Brand\" failed to load (FontFace status error) (the baseline failed the same way)"
    );
    let e = run((&img, &d2, &[]), (&img2, &d2, &[]), Tolerance::default());
    assert_eq!((e.status, e.verdict_kind), (Status::Changed, VerdictKind::LikelyNoise));
    assert_eq!(
        e.verdict,
        "Likely render noise: 6 scattered pixels (0.003 %), DOM and styles identical; mention it, don't block; also font \"Brand\" failed to load (FontFace status error) (the baseline failed the same way): fix the page's assets"
    );
}

#[test]
fn snapshot_network_failure_is_unhealthy() {
    let (img, d) = (page(), dom(&base_elements(), "loaded"));
    let css = [HealthReason::failed(AssetKind::Stylesheet, "http://x/site.css", "HTTP 404")];
    let e = run((&img, &d, &[]), (&img, &d, &css), Tolerance::default());
    assert_eq!(e.verdict_kind, VerdictKind::Unhealthy);
    assert_eq!(
        e.verdict,
        "Unhealthy capture: stylesheet http://x/site.css: HTTP 404; fix the page's assets and never \
         approve this capture as a baseline"
    );
}

#[test]
fn snapshot_scattered_noise_auto_passes_only_when_asked() {
    let (img, d) = (page(), dom(&base_elements(), "loaded"));
    let mut img2 = page();
    for i in 0..6 {
        fill(&mut img2, 5 + i * 60, 240 + i * 18, 1, 1, [120, 120, 120, 255]);
    }
    let e = run((&img, &d, &[]), (&img2, &d, &[]), Tolerance::default());
    assert_eq!((e.status, e.verdict_kind), (Status::Changed, VerdictKind::LikelyNoise));
    assert_eq!(
        e.verdict,
        "Likely render noise: 6 scattered pixels (0.003 %), DOM and styles identical; mention it, don't block"
    );
    let e = run((&img, &d, &[]), (&img2, &d, &[]), Tolerance { noise_auto_pass: true, ..Tolerance::default() });
    assert_eq!(e.status, Status::Passed);
    assert!(e.auto_passed);
}

#[test]
fn snapshot_clipped_card_is_concentrated_and_names_its_geometry() {
    let (img, d) = (page(), dom(&base_elements(), "loaded"));
    let mut img2 = page();
    fill(&mut img2, 220, 160, 160, 60, [255, 255, 255, 255]);
    let mut els = base_elements();
    els[4].2 = [220.0, 100.0, 160.0, 60.0];
    let d2 = dom(&els, "loaded");
    let e = run((&img, &d, &[]), (&img2, &d2, &[]), Tolerance::default());
    assert_eq!(e.verdict_kind, VerdictKind::Concentrated, "{}", e.verdict);
    assert_eq!(
        e.verdict,
        "Not noise: 9600 pixels changed in one area on #card-b; #card-b resized 160×120 → 160×60 with DOM and styles \
         identical — a bad capture or a change the style check cannot see (max-height, overflow, transform); compare \
         the images"
    );
}

#[test]
fn snapshot_max_diff_pixels_passes_small_changes() {
    let (img, d) = (page(), dom(&base_elements(), "loaded"));
    let mut img2 = page();
    fill(&mut img2, 20, 300, 10, 10, [0, 0, 0, 255]);
    let tolerance = Tolerance { max_diff_pixels: Some(100), max_diff_pixel_ratio: Some(0.5), ..Tolerance::default() };
    let e = run((&img, &d, &[]), (&img2, &d, &[]), tolerance);
    assert_eq!((e.status, e.verdict_kind), (Status::Passed, VerdictKind::WithinTolerance));
    // 100 of 240 000 pixels: exactly at maxDiffPixels (the limit is inclusive), far under the ratio.
    assert_eq!(e.verdict, "Passed: 100 pixels differ (0.042 %), within the allowed 100");
    // The verdict names the limit, not the count: with room to spare it says so.
    let tolerance = Tolerance { max_diff_pixels: Some(150), max_diff_pixel_ratio: Some(0.5), ..Tolerance::default() };
    let e = run((&img, &d, &[]), (&img2, &d, &[]), tolerance);
    assert_eq!(e.verdict, "Passed: 100 pixels differ (0.042 %), within the allowed 150");
    // the smaller of the two limits wins
    let tolerance =
        Tolerance { max_diff_pixels: Some(100), max_diff_pixel_ratio: Some(0.0001), ..Tolerance::default() };
    assert_eq!(run((&img, &d, &[]), (&img2, &d, &[]), tolerance).status, Status::Changed);
}

#[test]
fn snapshot_without_baseline_is_new_and_only_people_read_how_to_approve() {
    let (img, d) = (page(), dom(&base_elements(), "loaded"));
    let side = CaptureSide { image: img.view(), dom: Some(&d), failures: &[], environment: None };
    let (e, diff) = compare_snapshot("home", "chromium", None, side, &SnapshotOptions::default(), true).unwrap();
    assert_eq!((e.status, e.verdict_kind), (Status::New, VerdictKind::New));
    // The verdict reaches models too: it names no command.
    assert_eq!(e.verdict, "New snapshot: no baseline yet; a human reviews the capture and approves it");
    assert!(diff.is_none() && e.layers.pixel.is_none());
    // The lines a failing test and `sightline explain` print under it tell the person how.
    assert_eq!(e.explanation(3, 5), ["If this is intended: npx sightline approve home (or run the tests with -u)"]);
}
