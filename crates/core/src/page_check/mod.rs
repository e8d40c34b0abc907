//! `visual_check`'s deterministic bug finders (spec 05-live-pages): the judging half. The browser
//! worker (`playwright-fixtures/worker.js`) gathers facts in the page — the collector's DOM record
//! (boxes, computed styles, fonts, broken images), per-element details (text line boxes, scroll
//! sizes, the background colours behind text, image load state, interactivity), the console and
//! the failed requests (`facts`) — and the finders decide what is a bug: thresholds, severities,
//! messages. This module owns what they share: the issue types, [`check_page`] running them all,
//! the summary line, and `Page`, the facts indexed by selector with the style, ancestry and
//! clipping look-ups every finder asks. Each finder (or family) has its own module below.
//!
//! Every finder names the element by the collector's selector, so an issue can be paired with a
//! capture's elements. False positives are bugs: each finder skips the patterns that are
//! deliberate (scroll containers, `text-overflow: ellipsis`, visually-hidden 1 px boxes, links
//! inside a sentence, skip links parked off-screen, disabled controls, text over pictures).
//!
//! Limits: details are gathered for the top document only, so elements inside shadow roots and
//! iframes take part in the box-based finders (overflow, off-screen) but not in the text-based
//! ones; what lies under text is looked up only for text inside the viewport.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::Value;

/// The computed styles the finders read: what the browser worker collects for every element of
/// a checked page (`check` and `viewports` ask for exactly these).
pub const CHECK_STYLE_PROPERTIES: [&str; 15] = [
    "color",
    "background-color",
    "overflow-x",
    "overflow-y",
    "text-overflow",
    "visibility",
    "opacity",
    "font-size",
    "font-weight",
    "font-family",
    "position",
    "display",
    "float",
    "clip",
    "clip-path",
];

/// Broken images, failed web fonts and stylesheets.
mod assets;
/// Boxes without text painted over each other.
mod boxes;
/// Console errors and uncaught exceptions.
mod console;
/// Colours, WCAG contrast ratios and the low-contrast finder.
mod contrast;
/// What the browser worker sends: the input types of the finders.
mod facts;
/// Content placed where no scrolling reaches it.
mod off_screen;
/// Horizontal overflow: what makes the page scroll sideways.
mod overflow;
/// `visual_check`'s `prompt`: the part of the page it names.
mod scope;
/// Tap targets under the WCAG minimum on a phone.
mod tap_targets;
#[cfg(test)]
mod test_facts;
/// Text cut off by a clipping box, and text over other text.
mod text;
/// `test_viewports`: the page at several sizes.
mod viewports;

pub use contrast::{MIN_CONTRAST, MIN_CONTRAST_LARGE, Rgba, backdrop, contrast_ratio, parse_color};
pub use facts::{
    ConsoleEntry, ElementDetail, FailedRequest, ImageState, PageDetails, PageFacts, SourceLocation, StylesheetLink,
    ViewportKind, one_per_url,
};
pub use scope::{PromptReading, PromptScope, ScopeCandidate, ScopeSource, read_prompt};
pub use tap_targets::MIN_TAP_TARGET;
pub use viewports::{
    BreakpointFacts, BreakpointFit, DEFAULT_BREAKPOINTS, ElementPresence, OverflowingElement, ViewportsCheck,
    check_viewports,
};

/// Layout is measured in fractional pixels; less than this past an edge is rounding, not a bug.
const EDGE_TOLERANCE: f64 = 1.0;
/// Two boxes (or text line boxes) overlap when they share at least this many pixels in both
/// directions: less is a shared border or rounding.
const OVERLAP_MIN_PX: f64 = 4.0;
/// Issues listed per finder, so one systemic bug does not bury the others.
const MAX_PER_FINDER: usize = 20;

/// What kind of bug an issue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IssueKind {
    HorizontalOverflow,
    ClippedText,
    OverlappingText,
    OverlappingBoxes,
    OffScreen,
    BrokenImage,
    FailedFont,
    FailedStylesheet,
    ConsoleError,
    LowContrast,
    SmallTapTarget,
}

/// How bad an issue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One bug found on the page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageIssue {
    pub kind: IssueKind,
    pub severity: Severity,
    /// The element, by the collector's selector; None for page-wide issues (console errors).
    pub selector: Option<String>,
    /// Its border box `[x, y, w, h]` in page pixels, when it has one.
    #[serde(rename = "box")]
    pub bounds: Option<[f64; 4]>,
    /// One sentence: what is wrong, with the numbers.
    pub message: String,
    /// The measured numbers the verdict rests on.
    pub measured: BTreeMap<String, Value>,
}

/// The finders' result for one page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageCheck {
    pub viewport: ViewportKind,
    /// "3 issues (2 errors, 1 warning): …" or "No issues found."
    pub summary: String,
    pub issues: Vec<PageIssue>,
}

impl PageCheck {
    /// Keeps the issues on the given elements (a focus element and its descendants) and the
    /// page-wide ones, and recounts the summary.
    pub fn keep_inside(&mut self, selectors: &[&str]) {
        self.issues.retain(|i| i.selector.as_deref().is_none_or(|s| selectors.contains(&s)));
        self.summary = summarise(&self.issues);
    }
}

/// Runs every finder over the page's facts. Issues come errors first, then by kind, then in
/// document order.
pub fn check_page(facts: &PageFacts, viewport: ViewportKind) -> PageCheck {
    let page = Page::new(facts);
    let mut issues = Vec::new();
    issues.extend(page.horizontal_overflow());
    issues.extend(page.clipped_text());
    issues.extend(page.overlapping_text());
    issues.extend(page.overlapping_boxes());
    issues.extend(page.off_screen());
    issues.extend(page.broken_images());
    issues.extend(page.failed_fonts_and_stylesheets());
    issues.extend(page.console_errors());
    issues.extend(page.low_contrast());
    if viewport == ViewportKind::Mobile {
        issues.extend(page.small_tap_targets());
    }
    // Stable sort: within one kind the finders already emit document order.
    issues.sort_by_key(|i| (i.severity, i.kind));
    PageCheck { viewport, summary: summarise(&issues), issues }
}

/// Only the horizontal-overflow finder (`test_viewports` asks it at every breakpoint); it reads
/// the DOM record alone.
pub fn horizontal_overflow(facts: &PageFacts) -> Vec<PageIssue> {
    Page::new(facts).horizontal_overflow()
}

fn summarise(issues: &[PageIssue]) -> String {
    if issues.is_empty() {
        return "No issues found.".into();
    }
    let errors = issues.iter().filter(|i| i.severity == Severity::Error).count();
    let warnings = issues.len() - errors;
    let mut kinds: BTreeMap<IssueKind, usize> = BTreeMap::new();
    for i in issues {
        *kinds.entry(i.kind).or_default() += 1;
    }
    let kinds: Vec<String> = kinds
        .iter()
        .map(|(k, n)| {
            format!(
                "{n} {}",
                serde_json::to_value(k).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
            )
        })
        .collect();
    format!(
        "{} issue{} ({errors} error{}, {warnings} warning{}): {}.",
        issues.len(),
        plural(issues.len()),
        plural(errors),
        plural(warnings),
        kinds.join(", ")
    )
}

/// The plural ending of a count's noun: "1 issue", "2 issues".
pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn measured(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
    pairs.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect()
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The facts indexed for the finders.
struct Page<'a> {
    facts: &'a PageFacts,
    /// Column of each style property in the record, by name.
    column: HashMap<&'a str, usize>,
    /// Record index by selector.
    index: HashMap<&'a str, usize>,
}

impl<'a> Page<'a> {
    fn new(facts: &'a PageFacts) -> Self {
        let column = facts.dom.style_properties.iter().enumerate().map(|(i, p)| (p.as_str(), i)).collect();
        let index = facts.dom.elements.iter().enumerate().map(|(i, e)| (e.selector.as_str(), i)).collect();
        Page { facts, column, index }
    }

    fn style(&self, element: usize, property: &str) -> &str {
        let e = &self.facts.dom.elements[element];
        self.column.get(property).and_then(|&c| e.styles.get(c)).map(String::as_str).unwrap_or("")
    }

    fn bounds(&self, element: usize) -> [f64; 4] {
        self.facts.dom.elements[element].bounds
    }

    fn selector(&self, element: usize) -> String {
        self.facts.dom.elements[element].selector.clone()
    }

    fn ancestors(&self, element: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.facts.dom.elements[element].parent_index(), |&p| {
            self.facts.dom.elements[p].parent_index()
        })
    }

    /// `inner` lies inside `outer` in the DOM.
    fn inside(&self, inner: usize, outer: usize) -> bool {
        self.ancestors(inner).any(|a| a == outer)
    }

    /// Hidden by `visibility` or fully transparent: nothing of it shows.
    fn invisible(&self, element: usize) -> bool {
        matches!(self.style(element, "visibility"), "hidden" | "collapse") || self.style(element, "opacity") == "0"
    }

    /// Detail records that pair with a record element (same selector), with that element's index.
    fn details(&self) -> impl Iterator<Item = (usize, &'a ElementDetail)> + '_ {
        self.facts.details.elements.iter().filter_map(|d| {
            let i = *self.index.get(d.selector.as_deref()?)?;
            (!self.facts.dom.elements[i].is_excluded()).then_some((i, d))
        })
    }

    fn clips(&self, element: usize, axis: Axis) -> bool {
        let property = match axis {
            Axis::X => "overflow-x",
            Axis::Y => "overflow-y",
        };
        matches!(self.style(element, property), "hidden" | "clip")
    }

    /// The elements that clip what lies inside `element` (itself when `own` and its ancestors)
    /// on either axis; `html` and `body` pass their overflow to the viewport.
    fn clippers(&self, element: usize, own: bool) -> Vec<usize> {
        let first = if own { Some(element) } else { None };
        first
            .into_iter()
            .chain(self.ancestors(element))
            .filter(|&c| {
                !is_root(&self.facts.dom.elements[c].tag) && (self.clips(c, Axis::X) || self.clips(c, Axis::Y))
            })
            .collect()
    }

    /// `rect` cut to the boxes of `clippers` on the axes they clip; None when less than
    /// [`EDGE_TOLERANCE`] is left in either direction.
    fn cut(&self, [x, y, w, h]: [f64; 4], clippers: &[usize]) -> Option<[f64; 4]> {
        let (mut left, mut top, mut right, mut bottom) = (x, y, x + w, y + h);
        for &c in clippers {
            let [cx, cy, cw, ch] = self.bounds(c);
            if self.clips(c, Axis::X) {
                (left, right) = (left.max(cx), right.min(cx + cw));
            }
            if self.clips(c, Axis::Y) {
                (top, bottom) = (top.max(cy), bottom.min(cy + ch));
            }
        }
        (right - left > EDGE_TOLERANCE && bottom - top > EDGE_TOLERANCE).then_some([
            left,
            top,
            right - left,
            bottom - top,
        ])
    }

    /// The parts of an element's text line boxes that show: each cut to the boxes of the elements
    /// (itself and its ancestors) that clip overflow on that axis. Visually-hidden text (a 1 px
    /// clipping box) has none left, so it overlaps nothing and has no contrast to judge.
    fn visible_rects(&self, element: usize, detail: &ElementDetail) -> Vec<[f64; 4]> {
        let clippers = self.clippers(element, true);
        detail.text_rects.iter().filter_map(|&r| self.cut(r, &clippers)).collect()
    }

    /// The part of an element's border box that shows: cut to its ancestors that clip overflow.
    /// None when nothing (or a visually-hidden 1 px sliver) is left, or when a CSS `clip` or
    /// `clip-path` on it or an ancestor cuts all of it away (`clip: rect(0 0 0 0)`, `inset(50%)`:
    /// the visually-hidden patterns).
    fn shown_box(&self, element: usize) -> Option<[f64; 4]> {
        if std::iter::once(element).chain(self.ancestors(element)).any(|e| self.clipped_away(e)) {
            return None;
        }
        self.cut(self.bounds(element), &self.clippers(element, false))
    }

    /// A CSS `clip` rectangle or `clip-path: inset()` that leaves nothing of the element. Other
    /// clip paths (circles, polygons, urls) are taken to leave something.
    fn clipped_away(&self, element: usize) -> bool {
        let [_, _, w, h] = self.bounds(element);
        clip_rect_empty(self.style(element, "clip"), w, h) || clip_path_empty(self.style(element, "clip-path"))
    }
}

/// `rect(top, right, bottom, left)` (offsets from the box's top-left corner, `auto` for the
/// edge) that encloses no area.
fn clip_rect_empty(clip: &str, width: f64, height: f64) -> bool {
    let Some(inner) = clip.strip_prefix("rect(").and_then(|r| r.strip_suffix(')')) else {
        return false;
    };
    let sides: Vec<&str> = inner.split([',', ' ']).filter(|s| !s.is_empty()).collect();
    let [top, right, bottom, left] = sides[..] else {
        return false;
    };
    let px = |v: &str, auto: f64| if v == "auto" { Some(auto) } else { v.strip_suffix("px")?.parse::<f64>().ok() };
    match (px(top, 0.0), px(right, width), px(bottom, height), px(left, 0.0)) {
        (Some(t), Some(r), Some(b), Some(l)) => r - l <= EDGE_TOLERANCE || b - t <= EDGE_TOLERANCE,
        _ => false,
    }
}

/// `inset()` whose opposite sides meet: 50 % or more from each side (the visually-hidden
/// `inset(50%)`), or lengths summing to 100 %.
fn clip_path_empty(clip_path: &str) -> bool {
    let Some(inner) = clip_path.strip_prefix("inset(").and_then(|r| r.strip_suffix(')')) else {
        return false;
    };
    // Rounded corners (`round …`) do not change which area is left.
    let sides: Vec<f64> = inner
        .split(" round ")
        .next()
        .unwrap_or("")
        .split_whitespace()
        .map_while(|v| v.strip_suffix('%').and_then(|n| n.parse().ok()))
        .collect();
    // CSS shorthand: one value for all sides, two for vertical / horizontal, and so on.
    let (top, right, bottom, left) = match sides[..] {
        [a] => (a, a, a, a),
        [v, h] => (v, h, v, h),
        [t, h, b] => (t, h, b, h),
        [t, r, b, l] => (t, r, b, l),
        _ => return false,
    };
    top + bottom >= 100.0 || left + right >= 100.0
}

/// The direction a box clips its overflow in (`overflow-x` / `overflow-y`).
#[derive(Clone, Copy)]
enum Axis {
    X,
    Y,
}

/// `html` and `body` pass their overflow to the viewport: their `overflow-x` is the page's.
fn is_root(tag: &str) -> bool {
    tag == "html" || tag == "body"
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::test_facts::{detail, element, facts, kinds};

    #[test]
    fn page_check_a_request_answered_404_then_aborted_is_one_failure() {
        let css = |status: Option<u16>, failure: Option<&str>| FailedRequest {
            url: "http://x/site.css".into(),
            status,
            failure: failure.map(Into::into),
            resource_type: "stylesheet".into(),
        };
        let image = FailedRequest {
            url: "http://x/a.png".into(),
            status: None,
            failure: Some("net::ERR_FAILED".into()),
            resource_type: "image".into(),
        };
        let one = one_per_url(vec![css(None, Some("net::ERR_ABORTED")), image.clone(), css(Some(404), None)]);
        assert_eq!(one, [css(Some(404), None), image]);
    }

    #[test]
    fn page_check_collects_every_style_a_finder_reads() {
        // Every property name a finder passes to `Page::style` is one the worker collects.
        let sources = [
            include_str!("mod.rs"),
            include_str!("assets.rs"),
            include_str!("console.rs"),
            include_str!("contrast.rs"),
            include_str!("off_screen.rs"),
            include_str!("overflow.rs"),
            include_str!("tap_targets.rs"),
            include_str!("text.rs"),
            include_str!("viewports.rs"),
        ];
        let mut read = Vec::new();
        for source in sources {
            for (at, _) in source.match_indices("style(") {
                let call = &source[at..source[at..].find(')').map_or(source.len(), |end| at + end)];
                let name = call.split_once(", \"").and_then(|(_, rest)| rest.split('"').next());
                if let Some(name) =
                    name.filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
                {
                    read.push(name);
                }
            }
        }
        read.sort_unstable();
        read.dedup();
        assert!(read.len() >= 9, "{read:?}");
        for name in read {
            assert!(CHECK_STYLE_PROPERTIES.contains(&name), "{name} is read but not collected");
        }
    }
    use super::*;
    use crate::dom::FontStatus;

    #[test]
    fn page_check_clean_page_has_no_issues() {
        let f = facts(
            1280.0,
            (1280.0, 800.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 1280.0, 400.0], false, &[]),
                element(0, "h1", "#title", [16.0, 20.0, 1248.0, 40.0], true, &[]),
                element(0, "p", "body > p", [16.0, 70.0, 1248.0, 24.0], true, &[]),
            ],
            &json!({"elements": [detail("#title", &[[16.0, 22.0, 300.0, 36.0]]), detail("body > p", &[[16.0, 72.0, 500.0, 19.0]])]}).to_string(),
        );
        let check = check_page(&f, ViewportKind::Mobile);
        assert_eq!(check.issues, vec![]);
        assert_eq!(check.summary, "No issues found.");
    }

    #[test]
    fn page_check_resources_and_console() {
        let mut f = facts(
            1280.0,
            (1280.0, 800.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 1280.0, 400.0], false, &[]),
                element(
                    0,
                    "h1",
                    "#title",
                    [16.0, 0.0, 300.0, 40.0],
                    true,
                    &[("font-family", "\"Brand Sans\", sans-serif")],
                ),
                element(0, "img", "#broken", [16.0, 50.0, 80.0, 40.0], false, &[]),
            ],
            r##"{"elements":[{"selector":"#broken","opacity":1,"image":{"src":"http://x/missing.png","complete":true,"naturalWidth":0}}],
                "stylesheets":[{"href":"http://x/site.css","selector":"html > head > link"}]}"##,
        );
        f.dom.fonts.push(crate::dom::FontRecord {
            family: "Brand Sans".into(),
            status: FontStatus::Error,
            sources: vec!["http://x/brand.woff2".into()],
        });
        let failed = |url: &str, kind: &str| FailedRequest {
            url: url.into(),
            status: Some(404),
            failure: None,
            resource_type: kind.into(),
        };
        f.failed_requests = vec![
            failed("http://x/missing.png", "image"),
            failed("http://x/brand.woff2", "font"),
            failed("http://x/site.css", "stylesheet"),
        ];
        let entry = |level: &str, text: &str, url: &str| ConsoleEntry {
            level: level.into(),
            text: text.into(),
            location: Some(SourceLocation { url: url.into(), line: 1, column: 1 }),
            time_ms: 0.0,
        };
        f.console = vec![
            entry(
                "error",
                "Failed to load resource: the server responded with a status of 404",
                "http://x/missing.png",
            ),
            entry("error", "planted: the cart failed", "http://x/"),
            entry("warning", "just a warning", "http://x/"),
            entry(
                "error",
                "Failed to load resource: the server responded with a status of 404",
                "http://x/favicon.ico",
            ),
        ];
        let check = check_page(&f, ViewportKind::Desktop);
        assert_eq!(
            kinds(&check),
            vec![
                (IssueKind::BrokenImage, Some("#broken")),
                (IssueKind::FailedFont, Some("#title")),
                (IssueKind::FailedStylesheet, Some("html > head > link")),
                (IssueKind::ConsoleError, None),
            ]
        );
        assert_eq!(check.issues[3].message, "Console error at http://x/:1:1: planted: the cart failed");
        assert_eq!(
            check.summary,
            "4 issues (4 errors, 0 warnings): 1 broken-image, 1 failed-font, 1 failed-stylesheet, 1 console-error."
        );
    }
}
