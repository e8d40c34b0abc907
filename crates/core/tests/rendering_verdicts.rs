//! Environment-aware verdicts (issue 37): the same page drawn by two browser builds, with and
//! without a real change among the engine's differences, from pixels, DOM records and the two
//! environments, as `compare_snapshot` decides them.

use serde_json::{Value, json};
use sightline_core::RgbaImage;
use sightline_core::dom::{DomSnapshot, parse_dom};
use sightline_core::environment::{Environment, FontFace, RenderedFont};
use sightline_core::regions::Classification;
use sightline_core::snapshot::{CaptureSide, SnapshotEvidence, SnapshotOptions, compare_snapshot};
use sightline_core::verdict::{Status, Tolerance, VerdictKind};

const W: u32 = 400;
const H: u32 = 600;

/// (tag, selector, box, text digest, image digest)
type El = (&'static str, &'static str, [f64; 4], Option<&'static str>, Option<&'static str>);

fn elements() -> Vec<El> {
    vec![
        ("body", "body", [0.0, 0.0, 400.0, 600.0], None, None),
        ("h1", "#title", [20.0, 20.0, 300.0, 30.0], Some("t1"), None),
        ("p", "#intro", [20.0, 80.0, 360.0, 40.0], Some("t2"), None),
        ("img", "#hero", [20.0, 200.0, 200.0, 150.0], None, Some("hero.png")),
        ("canvas", "#chart", [240.0, 200.0, 140.0, 150.0], None, None),
        ("p", "#outro", [20.0, 400.0, 360.0, 40.0], Some("t3"), None),
    ]
}

fn dom(elements: &[El]) -> DomSnapshot {
    parse_dom(&record(elements).to_string()).unwrap()
}

/// The DOM record of `elements`, as the collector writes it.
fn record(elements: &[El]) -> Value {
    let els: Vec<Value> = elements
        .iter()
        .enumerate()
        .map(|(i, (tag, selector, b, text, image))| {
            json!({ "parent": if i == 0 { -1 } else { 0 }, "tag": tag, "selector": selector, "box": b,
                    "text": text, "image": image, "styles": ["rgb(0, 0, 0)"], "masked": false })
        })
        .collect();
    let record = json!({ "version": 1, "url": "http://127.0.0.1/", "viewport": {"width": W, "height": H},
        "devicePixelRatio": 1, "document": {"width": W, "height": H}, "styleProperties": ["color"],
        "elements": els, "fonts": [], "brokenImages": [] });
    record
}

/// The page: a glyph stem every 10 px along each text line, `stem` px wide (another engine
/// draws them a pixel wider), the image and the canvas in flat colours.
fn page(stem: u32) -> RgbaImage {
    let mut img = RgbaImage::filled(W, H, [255, 255, 255, 255]).unwrap();
    for (x0, y0, width) in [(24, 28, 280), (24, 90, 340), (24, 410, 340)] {
        for x in (x0..x0 + width).step_by(10) {
            fill(&mut img, x, y0, stem, 14, [30, 30, 30, 255]);
        }
    }
    fill(&mut img, 20, 200, 200, 150, [200, 120, 40, 255]);
    fill(&mut img, 240, 200, 140, 150, [40, 120, 200, 255]);
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

fn chromium(version: &str, sans: &str) -> Environment {
    let face = FontFace { name: sans.into(), web: false };
    Environment {
        browser: "chromium".into(),
        browser_version: version.into(),
        platform: "linux".into(),
        device_scale_factor: 1.0,
        fonts: vec![RenderedFont { family: "sans-serif".into(), faces: vec![face] }],
        rendering_switches: Vec::new(),
        assets: Vec::new(),
        page_url: String::new(),
    }
}

struct Side<'a> {
    image: &'a RgbaImage,
    dom: &'a DomSnapshot,
    environment: &'a Environment,
}

fn compare(baseline: Side<'_>, current: Side<'_>, tolerance: Tolerance) -> SnapshotEvidence {
    let options = SnapshotOptions { tolerance, ..SnapshotOptions::default() };
    compare_snapshot("home", "chromium", Some(side(baseline)), side(current), &options, false).unwrap().0
}

fn side(s: Side<'_>) -> CaptureSide<'_> {
    CaptureSide { image: s.image.view(), dom: Some(s.dom), failures: &[], environment: Some(s.environment) }
}

fn classifications(e: &SnapshotEvidence) -> Vec<Classification> {
    e.layers.pixel.as_ref().unwrap().regions.iter().map(|r| r.classification).collect()
}

#[test]
fn rendering_an_unchanged_page_in_another_browser_build_passes() {
    let (old, new) = (chromium("153.0.8010.0", "DejaVu Sans"), chromium("156.0.8078.114", "DejaVu Sans"));
    let (a, b, d) = (page(3), page(4), dom(&elements()));
    let e = compare(
        Side { image: &a, dom: &d, environment: &old },
        Side { image: &b, dom: &d, environment: &new },
        Tolerance::default(),
    );
    assert_eq!(classifications(&e), [Classification::Rendering; 3]);
    assert_eq!((e.status, e.verdict_kind), (Status::Passed, VerdictKind::Rendering));
    assert_eq!(
        e.verdict,
        "Rendering differs (Chromium 153 → 156): same DOM, styles and layout; text and edges drawn differently on 3 elements"
    );
    // strictRendering: the same finding fails, to be approved.
    let strict = compare(
        Side { image: &a, dom: &d, environment: &old },
        Side { image: &b, dom: &d, environment: &new },
        Tolerance { strict_rendering: true, ..Tolerance::default() },
    );
    assert_eq!((strict.status, strict.verdict_kind), (Status::Changed, VerdictKind::Rendering));
    assert!(
        strict
            .verdict
            .ends_with("; strictRendering fails it: approve it to take this environment's rendering as the baseline")
    );
}

#[test]
fn rendering_in_one_environment_is_labelled_and_decided_as_before() {
    let env = chromium("156.0.8078.114", "DejaVu Sans");
    let (a, b, d) = (page(3), page(4), dom(&elements()));
    let e = compare(
        Side { image: &a, dom: &d, environment: &env },
        Side { image: &b, dom: &d, environment: &env },
        Tolerance::default(),
    );
    assert_eq!(classifications(&e), [Classification::Rendering; 3]);
    assert_eq!(e.status, Status::Changed, "{}", e.verdict);
    assert_ne!(e.verdict_kind, VerdictKind::Rendering);
    assert!(!e.verdict.contains("rendered elsewhere"), "{}", e.verdict);
}

#[test]
fn rendering_a_replaced_image_among_engine_differences_is_judged_on_its_own() {
    let (old, new) = (chromium("153.0.8010.0", "DejaVu Sans"), chromium("156.0.8078.114", "DejaVu Sans"));
    let d = dom(&elements());
    let a = page(3);
    // The same URL, another picture: a 60 × 40 patch of the image redrawn.
    let mut b = page(4);
    fill(&mut b, 60, 240, 60, 40, [10, 160, 90, 255]);
    let e = compare(
        Side { image: &a, dom: &d, environment: &old },
        Side { image: &b, dom: &d, environment: &new },
        Tolerance { noise_auto_pass: true, ..Tolerance::default() },
    );
    assert_eq!((e.status, e.verdict_kind), (Status::Changed, VerdictKind::Concentrated), "{}", e.verdict);
    assert!(
        e.verdict.starts_with("Not noise: 2400 pixels changed in one area on #hero with DOM and styles identical"),
        "{}",
        e.verdict
    );
    assert!(
        e.verdict.ends_with("; also rendered elsewhere (Chromium 153 → 156): 3 regions drawn differently set aside"),
        "{}",
        e.verdict
    );
}

#[test]
fn rendering_a_canvas_drawn_differently_is_never_rendering() {
    let (old, new) = (chromium("153.0.8010.0", "DejaVu Sans"), chromium("156.0.8078.114", "DejaVu Sans"));
    let d = dom(&elements());
    let a = page(3);
    let mut b = page(3);
    fill(&mut b, 250, 210, 30, 30, [250, 250, 0, 255]);
    let e = compare(
        Side { image: &a, dom: &d, environment: &old },
        Side { image: &b, dom: &d, environment: &new },
        Tolerance::default(),
    );
    assert_eq!(classifications(&e), [Classification::Change]);
    assert_eq!(e.verdict_kind, VerdictKind::Concentrated, "{}", e.verdict);
    assert!(e.verdict.contains(" on #chart "), "{}", e.verdict);
}

#[test]
fn rendering_a_substituted_font_is_named_and_never_rendering() {
    let (mac, linux) = (chromium("156.0.8078.114", "Helvetica"), chromium("156.0.8078.114", "DejaVu Sans"));
    let (a, b, d) = (page(3), page(4), dom(&elements()));
    let e = compare(
        Side { image: &a, dom: &d, environment: &mac },
        Side { image: &b, dom: &d, environment: &linux },
        Tolerance::default(),
    );
    assert_eq!(classifications(&e), [Classification::Change; 3]);
    assert_eq!((e.status, e.verdict_kind), (Status::Changed, VerdictKind::FontSubstituted));
    assert_eq!(
        e.verdict,
        "Font substituted: font \"sans-serif\" rendered with DejaVu Sans here, with Helvetica in the baseline; 1344 pixels differ in 3 regions, the most on #intro, with DOM and styles identical: install the same fonts, keep baselines per platform (\"baselinePath\": \"{name}/{project}-{platform}\") or capture in a container, and compare the images for anything else"
    );
    // A real change beside the substitution keeps its own verdict, the font named after it.
    let mut restyled = record(&elements());
    restyled["elements"][2]["styles"][0] = json!("rgb(185, 28, 28)");
    let restyled = parse_dom(&restyled.to_string()).unwrap();
    let e = compare(
        Side { image: &a, dom: &d, environment: &mac },
        Side { image: &b, dom: &restyled, environment: &linux },
        Tolerance::default(),
    );
    assert_eq!(e.verdict_kind, VerdictKind::StyleOnly, "{}", e.verdict);
    assert!(e.verdict.ends_with("; font \"sans-serif\" rendered with DejaVu Sans here, with Helvetica in the baseline: install the same fonts, keep baselines per platform (\"baselinePath\": \"{name}/{project}-{platform}\") or capture in a container"), "{}", e.verdict);
}

#[test]
fn rendering_text_reshaped_by_another_engine_is_said_so_and_decided_by_a_person() {
    let (old, new) = (chromium("153.0.8010.0", "DejaVu Sans"), chromium("156.0.8078.114", "DejaVu Sans"));
    let mut wider = elements();
    wider[2].2 = [20.0, 80.0, 362.0, 40.0];
    let (a, b) = (page(3), page(4));
    let e = compare(
        Side { image: &a, dom: &dom(&elements()), environment: &old },
        Side { image: &b, dom: &dom(&wider), environment: &new },
        Tolerance::default(),
    );
    assert_eq!((e.status, e.verdict_kind), (Status::Changed, VerdictKind::TextReshaped));
    assert_eq!(
        e.verdict,
        "Text shaped differently by Chromium 156 on Linux: 1 element moved or resized (#intro 360×40 → 362×40) with the same DOM, styles and fonts (Chromium 153 → 156); compare the images, then approve this environment's layout or keep per-environment baselines"
    );
}

#[test]
fn rendering_text_re_wrapped_one_row_shorter_by_another_engine_is_reshaping_not_a_page_shift() {
    let (old, new) = (chromium("153.0.8010.0", "DejaVu Sans"), chromium("156.0.8078.114", "DejaVu Sans"));
    // #intro's lines set one pixel tighter: everything below it one row higher, the page one
    // row shorter; the body ends above the page's margin, so no element lies on its last row.
    let mut taller = elements();
    taller[0].2[3] = 560.0;
    let mut shorter = taller.clone();
    shorter[0].2[3] -= 1.0;
    shorter[2].2[3] -= 1.0;
    for element in &mut shorter[3..] {
        element.2[1] -= 1.0;
    }
    let (a, drawn) = (page(3), page(4));
    let mut b = RgbaImage::filled(W, H - 1, [255, 255, 255, 255]).unwrap();
    let row = (W * 4) as usize;
    for y in 0..(H - 1) as usize {
        let from = if y < 125 { y } else { y + 1 };
        b.as_bytes_mut()[y * row..(y + 1) * row].copy_from_slice(&drawn.as_bytes()[from * row..(from + 1) * row]);
    }
    let e = compare(
        Side { image: &a, dom: &dom(&taller), environment: &old },
        Side { image: &b, dom: &dom(&shorter), environment: &new },
        Tolerance::default(),
    );
    assert_eq!((e.status, e.verdict_kind), (Status::Changed, VerdictKind::TextReshaped), "{}", e.verdict);
    assert!(e.verdict.contains("(#intro 360×40 → 360×39)"), "{}", e.verdict);
}

#[test]
fn rendering_a_box_grown_with_no_text_of_its_own_is_a_layout_change_not_reshaping() {
    // The example shop's taller catalogue hero, seen in another environment: #banner (no text)
    // grew by 60 px, pushing #outro down; nothing else differs.
    let (old, new) = (chromium("153.0.8010.0", "DejaVu Sans"), chromium("156.0.8078.114", "DejaVu Sans"));
    let mut before = elements();
    before.insert(5, ("div", "#banner", [20.0, 360.0, 360.0, 20.0], None, None));
    let mut after = before.clone();
    after[5].2[3] = 80.0;
    after[6].2[1] += 60.0;
    let a = page(3);
    let mut b = page(3);
    fill(&mut b, 20, 360, 360, 240, [255, 255, 255, 255]);
    fill(&mut b, 20, 380, 360, 60, [226, 232, 240, 255]);
    let e = compare(
        Side { image: &a, dom: &dom(&before), environment: &old },
        Side { image: &b, dom: &dom(&after), environment: &new },
        Tolerance::default(),
    );
    assert_eq!(e.status, Status::Changed);
    assert_ne!(e.verdict_kind, VerdictKind::TextReshaped, "{}", e.verdict);
}

#[test]
fn rendering_a_replaced_image_beside_reshaped_text_is_not_called_reshaping() {
    let (old, new) = (chromium("153.0.8010.0", "DejaVu Sans"), chromium("156.0.8078.114", "DejaVu Sans"));
    let mut wider = elements();
    wider[2].2 = [20.0, 80.0, 362.0, 40.0];
    let a = page(3);
    let mut b = page(4);
    fill(&mut b, 60, 240, 60, 40, [10, 160, 90, 255]);
    let e = compare(
        Side { image: &a, dom: &dom(&elements()), environment: &old },
        Side { image: &b, dom: &dom(&wider), environment: &new },
        Tolerance::default(),
    );
    assert_ne!(e.verdict_kind, VerdictKind::TextReshaped, "{}", e.verdict);
    assert_eq!(e.status, Status::Changed);
    assert!(e.verdict.contains("#hero"), "{}", e.verdict);
}

#[test]
fn rendering_a_font_file_replaced_under_its_url_is_a_named_change_never_noise() {
    use sightline_core::environment::Asset;
    use sightline_core::health::AssetKind;
    let brand =
        |digest: &str| Asset { kind: AssetKind::Font, url: "http://x/brand.woff2".into(), digest: digest.into() };
    let mut before = chromium("156.0.8078.114", "DejaVu Sans");
    before.assets = vec![brand("aa")];
    let mut after = before.clone();
    after.assets = vec![brand("bb")];
    let (a, b, d) = (page(3), page(4), dom(&elements()));
    let e = compare(
        Side { image: &a, dom: &d, environment: &before },
        Side { image: &b, dom: &d, environment: &after },
        Tolerance { noise_auto_pass: true, ..Tolerance::default() },
    );
    assert_eq!((e.status, e.verdict_kind), (Status::Changed, VerdictKind::AssetReplaced), "{}", e.verdict);
    assert!(
        e.verdict.starts_with(
            "Asset replaced under its URL: font http://x/brand.woff2 has other bytes than in the baseline; "
        ),
        "{}",
        e.verdict
    );
    // Its text is not drawn by the engine alone: no region is set aside as rendering.
    assert_eq!(classifications(&e), [Classification::Change; 3]);
}

#[test]
fn rendering_an_image_proven_the_same_may_be_drawn_differently() {
    use sightline_core::environment::Asset;
    use sightline_core::health::AssetKind;
    // The DOM record's image digest is the collector's digest of the source URL.
    let url = "http://figures.test/hero.png";
    let mut with_source = record(&elements());
    with_source["elements"][3]["image"] = json!(sightline_core::dom::image_source_digest(url));
    let hero = |bytes: &str| Asset { kind: AssetKind::Image, url: url.into(), digest: bytes.into() };
    let mut old = chromium("153.0.8010.0", "DejaVu Sans");
    old.assets = vec![hero("aa")];
    let mut new = chromium("156.0.8078.114", "DejaVu Sans");
    new.assets = vec![hero("aa")];
    // The other engine scales the same picture with another filter: a band of its pixels differs.
    let (a, mut b, d) = (page(3), page(4), parse_dom(&with_source.to_string()).unwrap());
    fill(&mut b, 30, 210, 180, 6, [205, 125, 45, 255]);
    let e = compare(
        Side { image: &a, dom: &d, environment: &old },
        Side { image: &b, dom: &d, environment: &new },
        Tolerance::default(),
    );
    assert_eq!((e.status, e.verdict_kind), (Status::Passed, VerdictKind::Rendering), "{}", e.verdict);
    // Other bytes under the same URL: a named change.
    new.assets = vec![hero("bb")];
    let e = compare(
        Side { image: &a, dom: &d, environment: &old },
        Side { image: &b, dom: &d, environment: &new },
        Tolerance::default(),
    );
    assert_eq!(e.verdict_kind, VerdictKind::AssetReplaced, "{}", e.verdict);
}

#[test]
fn rendering_a_list_marks_the_environments_only_where_the_verdict_does_not_say_them() {
    let (old, new) = (chromium("153.0.8010.0", "DejaVu Sans"), chromium("156.0.8078.114", "DejaVu Sans"));
    let (a, b, d) = (page(3), page(4), dom(&elements()));
    let identical = compare(
        Side { image: &a, dom: &d, environment: &old },
        Side { image: &a, dom: &d, environment: &new },
        Tolerance::default(),
    );
    assert_eq!(identical.verdict, "Passed: no pixel differs");
    assert_eq!(identical.unsaid_environment().as_deref(), Some("Chromium 153 → 156"));
    let drawn = compare(
        Side { image: &a, dom: &d, environment: &old },
        Side { image: &b, dom: &d, environment: &new },
        Tolerance::default(),
    );
    assert_eq!(drawn.verdict_kind, VerdictKind::Rendering);
    assert_eq!(drawn.unsaid_environment(), None, "{}", drawn.verdict);
    let same = compare(
        Side { image: &a, dom: &d, environment: &new },
        Side { image: &b, dom: &d, environment: &new },
        Tolerance::default(),
    );
    assert_eq!(same.unsaid_environment(), None, "one environment: nothing to mark");
}
