//! `visual_check`'s deterministic bug finders (spec 05-live-pages): the judging half. The browser
//! worker (`playwright-fixtures/worker.js`) gathers facts in the page — the collector's DOM record
//! (boxes, computed styles, fonts, broken images), per-element details (text line boxes, scroll
//! sizes, the background colours behind text, image load state, interactivity), the console and
//! the failed requests — and this module decides what is a bug: thresholds, severities, messages.
//!
//! Every finder names the element by the collector's selector, so an issue can be paired with a
//! capture's elements. False positives are bugs: each finder skips the patterns that are
//! deliberate (scroll containers, `text-overflow: ellipsis`, visually-hidden 1 px boxes, links
//! inside a sentence, skip links parked off-screen, disabled controls, text over pictures).
//!
//! Limits: details are gathered for the top document only, so elements inside shadow roots and
//! iframes take part in the box-based finders (overflow, off-screen) but not in the text-based
//! ones; what lies under text is looked up only for text inside the viewport.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::dom::{DomSnapshot, FontStatus};

/// Smallest tap target on a phone, in CSS pixels (WCAG 2.2 SC 2.5.8, target size minimum).
pub const MIN_TAP_TARGET: f64 = 24.0;
/// Contrast ratio normal text needs (WCAG AA).
pub const MIN_CONTRAST: f64 = 4.5;
/// Contrast ratio large text needs (WCAG AA: ≥ 24 px, or ≥ 18.66 px bold).
pub const MIN_CONTRAST_LARGE: f64 = 3.0;
/// Layout is measured in fractional pixels; less than this past an edge is rounding, not a bug.
const EDGE_TOLERANCE: f64 = 1.0;
/// Share of a line's height its glyph box may pass a clipping box vertically without losing text.
const VERTICAL_GLYPH_SLACK: f64 = 0.2;
/// Two text line boxes overlap when they share at least this many pixels in both directions…
const OVERLAP_MIN_PX: f64 = 4.0;
/// …and at least this fraction of the smaller line's height (tight line-heights let glyph boxes
/// of adjacent lines touch by a pixel or two).
const OVERLAP_MIN_HEIGHT_FRACTION: f64 = 0.25;
/// Issues listed per finder, so one systemic bug does not bury the others.
const MAX_PER_FINDER: usize = 20;

/// A named viewport of `visual_check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ViewportKind {
    /// 1280 × 800.
    #[default]
    Desktop,
    /// 768 × 1024.
    Tablet,
    /// 375 × 667; tap targets are checked only here.
    Mobile,
}

impl ViewportKind {
    /// Width and height in CSS pixels.
    pub fn size(self) -> (u32, u32) {
        match self {
            ViewportKind::Desktop => (1280, 800),
            ViewportKind::Tablet => (768, 1024),
            ViewportKind::Mobile => (375, 667),
        }
    }

    /// Parses `desktop`, `tablet` or `mobile`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "desktop" => Some(ViewportKind::Desktop),
            "tablet" => Some(ViewportKind::Tablet),
            "mobile" => Some(ViewportKind::Mobile),
            _ => None,
        }
    }
}

/// Per-element facts beyond the DOM record, for elements with own text, images, interactive
/// elements and overflow clippers (the worker's `detailsInPage`).
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ElementDetail {
    /// The collector's selector; None when it could not be named.
    pub selector: Option<String>,
    /// The element has non-blank text nodes of its own.
    pub own_text: bool,
    /// Line boxes of its own text, `[x, y, w, h]` in page pixels (at most 20).
    pub text_rects: Vec<[f64; 4]>,
    /// `[scrollWidth, scrollHeight, clientWidth, clientHeight]`.
    pub scroll: [f64; 4],
    /// Computed `background-color`s from the element up to the first opaque one.
    pub backgrounds: Vec<String>,
    /// Something other than the listed colours lies behind the text (a background image, or an
    /// image, video or another element's box painted under it): contrast is not computed.
    pub backdrop_unknown: bool,
    /// A disabled control (or inside one): WCAG exempts inactive text from contrast.
    pub disabled: bool,
    /// Product of the element's and its ancestors' opacity.
    pub opacity: f64,
    /// A link, button, form control or element with a click role.
    pub interactive: bool,
    /// An inline element inside a parent that has text of its own (a link in a sentence).
    pub inline_in_text: bool,
    /// Load state of an `<img>`.
    pub image: Option<ImageState>,
}

/// An `<img>`'s load state.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ImageState {
    pub src: String,
    pub complete: bool,
    pub natural_width: f64,
    pub natural_height: f64,
}

/// An `@font-face` rule and its resolved source URLs.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct FontFaceSource {
    pub family: String,
    pub urls: Vec<String>,
}

/// A `<link rel=stylesheet>` and its selector.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct StylesheetLink {
    pub href: String,
    pub selector: Option<String>,
}

/// The worker's details JSON.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct PageDetails {
    pub elements: Vec<ElementDetail>,
    pub font_faces: Vec<FontFaceSource>,
    pub stylesheets: Vec<StylesheetLink>,
}

/// Where a console entry came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceLocation {
    pub url: String,
    pub line: u32,
    pub column: u32,
}

/// One console message or uncaught page error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleEntry {
    /// `error`, `warning`, `info`, `log`, `debug` or `pageerror` (an uncaught exception).
    pub level: String,
    pub text: String,
    pub location: Option<SourceLocation>,
    /// Milliseconds after the call started (navigation begins right after).
    #[serde(default)]
    pub time_ms: f64,
}

/// A request that failed or answered ≥ 400.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailedRequest {
    pub url: String,
    pub status: Option<u16>,
    pub failure: Option<String>,
    /// Playwright's resource type: `image`, `font`, `stylesheet`, `script`, …
    pub resource_type: String,
}

impl FailedRequest {
    fn reason(&self) -> String {
        match (&self.status, &self.failure) {
            (Some(s), _) => format!("HTTP {s}"),
            (None, Some(f)) => f.clone(),
            (None, None) => "failed".into(),
        }
    }
}

/// Everything the finders read about one page.
#[derive(Debug, Clone)]
pub struct PageFacts {
    pub dom: DomSnapshot,
    pub details: PageDetails,
    pub console: Vec<ConsoleEntry>,
    pub failed_requests: Vec<FailedRequest>,
}

/// What kind of bug an issue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IssueKind {
    HorizontalOverflow,
    ClippedText,
    OverlappingText,
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

fn plural(n: usize) -> &'static str {
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

    /// The parts of an element's text line boxes that show: each cut to the boxes of the elements
    /// (itself and its ancestors) that clip overflow on that axis. Visually-hidden text (a 1 px
    /// clipping box) has none left, so it overlaps nothing and has no contrast to judge.
    fn visible_rects(&self, element: usize, detail: &ElementDetail) -> Vec<[f64; 4]> {
        let clippers: Vec<usize> = std::iter::once(element)
            .chain(self.ancestors(element))
            .filter(|&c| {
                !is_root(&self.facts.dom.elements[c].tag) && (self.clips(c, Axis::X) || self.clips(c, Axis::Y))
            })
            .collect();
        detail
            .text_rects
            .iter()
            .filter_map(|&[x, y, w, h]| {
                let (mut left, mut top, mut right, mut bottom) = (x, y, x + w, y + h);
                for &c in &clippers {
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
            })
            .collect()
    }

    /// Clips or scrolls: content past its edge is not part of the page's own overflow.
    fn contains_overflow_x(&self, element: usize) -> bool {
        !matches!(self.style(element, "overflow-x"), "visible" | "")
    }

    /// The outermost elements reaching past the right edge of the viewport, when the document is
    /// wider than the viewport (the page scrolls sideways).
    fn horizontal_overflow(&self) -> Vec<PageIssue> {
        let dom = &self.facts.dom;
        let viewport = dom.viewport.width;
        if dom.document.width <= viewport + EDGE_TOLERANCE {
            return Vec::new();
        }
        let mut culprit = vec![false; dom.elements.len()];
        let mut issues = Vec::new();
        for (i, e) in dom.elements.iter().enumerate() {
            let [x, _, w, h] = e.bounds;
            // A fixed element does not widen the document: it cannot cause sideways scrolling.
            if e.is_excluded()
                || w <= 0.0
                || h <= 0.0
                || x + w <= viewport + EDGE_TOLERANCE
                || self.style(i, "position") == "fixed"
            {
                continue;
            }
            if self.ancestors(i).any(|a| culprit[a] || (self.contains_overflow_x(a) && !is_root(&dom.elements[a].tag)))
            {
                continue;
            }
            culprit[i] = true;
            if issues.len() < MAX_PER_FINDER {
                let right = round2(x + w);
                issues.push(PageIssue {
                    kind: IssueKind::HorizontalOverflow,
                    severity: Severity::Error,
                    selector: Some(e.selector.clone()),
                    bounds: Some(e.bounds),
                    message: format!(
                        "{} reaches x = {right} px, {} px past the {viewport} px viewport: the page scrolls sideways \
                         (document {} px wide).",
                        e.selector,
                        round2(right - viewport),
                        dom.document.width
                    ),
                    measured: measured(&[
                        ("right", json!(right)),
                        ("viewportWidth", json!(viewport)),
                        ("documentWidth", json!(dom.document.width)),
                        ("overflowPx", json!(round2(right - viewport))),
                    ]),
                });
            }
        }
        if issues.is_empty() {
            issues.push(PageIssue {
                kind: IssueKind::HorizontalOverflow,
                severity: Severity::Error,
                selector: None,
                bounds: None,
                message: format!(
                    "The document is {} px wide in a {viewport} px viewport: the page scrolls sideways.",
                    dom.document.width
                ),
                measured: measured(&[("viewportWidth", json!(viewport)), ("documentWidth", json!(dom.document.width))]),
            });
        }
        issues
    }

    /// Text whose own line boxes run past an element that hides its overflow (itself or an
    /// ancestor), unless that element truncates on purpose (`text-overflow: ellipsis`) or is a
    /// visually-hidden 1 px box.
    fn clipped_text(&self) -> Vec<PageIssue> {
        let mut issues = Vec::new();
        for (i, d) in self.details() {
            if !d.own_text || d.text_rects.is_empty() || d.opacity <= 0.0 || self.invisible(i) {
                continue;
            }
            for clipper in std::iter::once(i).chain(self.ancestors(i)) {
                let [cx, cy, cw, ch] = self.bounds(clipper);
                if cw <= 1.0 || ch <= 1.0 || self.style(clipper, "text-overflow") == "ellipsis" {
                    continue;
                }
                let past_x = if self.clips(clipper, Axis::X) {
                    d.text_rects.iter().map(|r| (r[0] + r[2] - (cx + cw)).max(cx - r[0])).fold(0.0, f64::max)
                } else {
                    0.0
                };
                // Vertically a line's glyph box may pass a tight box by part of its height
                // (line-height: 1 in a fixed-height button) with every glyph showing: only a
                // fifth of a line or more is clipped text.
                let past_y = if self.clips(clipper, Axis::Y) {
                    d.text_rects
                        .iter()
                        .map(|r| {
                            (r[1] + r[3] - (cy + ch)).max(cy - r[1])
                                - (VERTICAL_GLYPH_SLACK * r[3] - EDGE_TOLERANCE).max(0.0)
                        })
                        .fold(0.0, f64::max)
                } else {
                    0.0
                };
                if past_x <= EDGE_TOLERANCE && past_y <= EDGE_TOLERANCE {
                    continue;
                }
                let selector = self.selector(i);
                let by = if clipper == i { "its own box".to_string() } else { self.selector(clipper) };
                // Its own box cutting its text is a bug; a container cutting a child may be a
                // deliberate "read more" truncation.
                let severity = if clipper == i { Severity::Error } else { Severity::Warning };
                let hidden = round2(past_x.max(past_y));
                issues.push(PageIssue {
                    kind: IssueKind::ClippedText,
                    severity,
                    selector: Some(selector.clone()),
                    bounds: Some(self.bounds(i)),
                    message: format!(
                        "Text of {selector} is cut off by {by} (overflow: hidden): {hidden} px of it do not show."
                    ),
                    measured: measured(&[
                        ("clippedBy", json!(self.selector(clipper))),
                        ("hiddenPx", json!(hidden)),
                        ("hiddenXPx", json!(round2(past_x.max(0.0)))),
                        ("hiddenYPx", json!(round2(past_y.max(0.0)))),
                        ("scrollWidth", json!(d.scroll[0])),
                        ("clientWidth", json!(d.scroll[2])),
                        ("clipperBox", json!([cx, cy, cw, ch])),
                    ]),
                });
                break;
            }
            if issues.len() >= MAX_PER_FINDER {
                break;
            }
        }
        issues
    }

    /// Pairs of text elements whose own line boxes cover each other. The later one in document
    /// order (usually painted on top) is named, the other in `measured.overlaps`.
    fn overlapping_text(&self) -> Vec<PageIssue> {
        let texts: Vec<(usize, Vec<[f64; 4]>)> = self
            .details()
            .filter(|(i, d)| d.own_text && d.opacity > 0.0 && !self.invisible(*i))
            .map(|(i, d)| (i, self.visible_rects(i, d)))
            .filter(|(_, rects)| !rects.is_empty())
            .collect();
        // Every line box, sorted by top edge, so each only meets lines starting above its bottom.
        let mut lines: Vec<(usize, [f64; 4])> =
            texts.iter().enumerate().flat_map(|(t, (_, rects))| rects.iter().map(move |r| (t, *r))).collect();
        lines.sort_by(|a, b| a.1[1].total_cmp(&b.1[1]));
        let mut pairs: Vec<(usize, usize, f64, f64)> = Vec::new();
        let mut seen = HashSet::new();
        for (n, &(ta, a)) in lines.iter().enumerate() {
            for &(tb, b) in &lines[n + 1..] {
                if b[1] >= a[1] + a[3] {
                    break;
                }
                if ta == tb {
                    continue;
                }
                let w = (a[0] + a[2]).min(b[0] + b[2]) - a[0].max(b[0]);
                let h = (a[1] + a[3]).min(b[1] + b[3]) - a[1].max(b[1]);
                let needed = OVERLAP_MIN_PX.max(OVERLAP_MIN_HEIGHT_FRACTION * a[3].min(b[3]));
                let key = (ta.min(tb), ta.max(tb));
                if w >= OVERLAP_MIN_PX && h >= needed && seen.insert(key) {
                    pairs.push((key.0, key.1, round2(w), round2(h)));
                }
            }
        }
        pairs.sort_by_key(|p| (texts[p.1].0, texts[p.0].0));
        pairs
            .into_iter()
            .take(MAX_PER_FINDER)
            .map(|(first, second, w, h)| {
                let (under, over) = (texts[first].0, texts[second].0);
                let (under_sel, over_sel) = (self.selector(under), self.selector(over));
                PageIssue {
                    kind: IssueKind::OverlappingText,
                    severity: Severity::Error,
                    selector: Some(over_sel.clone()),
                    bounds: Some(self.bounds(over)),
                    message: format!("Text of {over_sel} overlaps text of {under_sel} ({w} × {h} px)."),
                    measured: measured(&[
                        ("overlaps", json!(under_sel)),
                        ("overlapWidth", json!(w)),
                        ("overlapHeight", json!(h)),
                    ]),
                }
            })
            .collect()
    }

    /// Content (text or an image) placed wholly left of or above the page, where no scrolling
    /// reaches it. Skip links (interactive) and visually-hidden 1 px boxes are deliberate.
    fn off_screen(&self) -> Vec<PageIssue> {
        let dom = &self.facts.dom;
        let interactive: HashSet<usize> = self.details().filter(|(_, d)| d.interactive).map(|(i, _)| i).collect();
        let mut gone = vec![false; dom.elements.len()];
        let mut issues = Vec::new();
        for (i, e) in dom.elements.iter().enumerate() {
            let [x, y, w, h] = e.bounds;
            let outside = x + w <= 0.0 || y + h <= 0.0;
            if !outside || e.is_excluded() || w <= 1.0 || h <= 1.0 {
                continue;
            }
            let inherited = e.parent_index().is_some_and(|p| gone[p]);
            gone[i] = true;
            if inherited
                || (e.text.is_none() && e.image.is_none())
                || interactive.contains(&i)
                || self.ancestors(i).any(|a| interactive.contains(&a))
                || self.invisible(i)
                || self.style(i, "position") == "fixed"
            {
                continue;
            }
            if issues.len() < MAX_PER_FINDER {
                issues.push(PageIssue {
                    kind: IssueKind::OffScreen,
                    severity: Severity::Warning,
                    selector: Some(e.selector.clone()),
                    bounds: Some(e.bounds),
                    message: format!(
                        "{} is placed outside the page (box at x = {x}, y = {y}, {w} × {h} px): nobody can scroll to it.",
                        e.selector
                    ),
                    measured: measured(&[("x", json!(x)), ("y", json!(y)), ("width", json!(w)), ("height", json!(h))]),
                });
            }
        }
        issues
    }

    /// `<img>` elements that finished loading without pixels, and failed image requests no
    /// `<img>` accounts for (CSS backgrounds).
    fn broken_images(&self) -> Vec<PageIssue> {
        let mut issues = Vec::new();
        let mut named = HashSet::new();
        for (i, d) in self.details() {
            let Some(img) = &d.image else { continue };
            if !img.complete || img.natural_width > 0.0 || img.src.is_empty() {
                continue;
            }
            named.insert(img.src.as_str());
            let selector = self.selector(i);
            let why = self
                .facts
                .failed_requests
                .iter()
                .find(|r| r.url == img.src)
                .map(|r| format!(" ({})", r.reason()))
                .unwrap_or_default();
            issues.push(PageIssue {
                kind: IssueKind::BrokenImage,
                severity: Severity::Error,
                selector: Some(selector.clone()),
                bounds: Some(self.bounds(i)),
                message: format!("Image {selector} did not load: {}{why}.", img.src),
                measured: measured(&[("src", json!(img.src)), ("naturalWidth", json!(img.natural_width))]),
            });
        }
        for r in &self.facts.failed_requests {
            if r.resource_type == "image" && !named.contains(r.url.as_str()) {
                named.insert(r.url.as_str());
                issues.push(PageIssue {
                    kind: IssueKind::BrokenImage,
                    severity: Severity::Warning,
                    selector: None,
                    bounds: None,
                    message: format!(
                        "An image request failed ({}): {} (a CSS background or preload).",
                        r.reason(),
                        r.url
                    ),
                    measured: measured(&[("url", json!(r.url)), ("status", json!(r.status))]),
                });
            }
        }
        issues.truncate(MAX_PER_FINDER);
        issues
    }

    /// Web fonts whose face failed (named by the first element using the family) and stylesheets
    /// that failed to load (named by their `<link>`), plus failed font requests of no known face.
    fn failed_fonts_and_stylesheets(&self) -> Vec<PageIssue> {
        let facts = self.facts;
        let mut issues = Vec::new();
        let mut explained: HashSet<&str> = HashSet::new();
        let mut families_done = HashSet::new();
        for font in facts.dom.fonts.iter().filter(|f| f.status == FontStatus::Error) {
            let family = font.family.to_lowercase();
            if !families_done.insert(family.clone()) {
                continue;
            }
            let urls: Vec<&str> = facts
                .details
                .font_faces
                .iter()
                .filter(|f| f.family.to_lowercase() == family)
                .flat_map(|f| f.urls.iter().map(String::as_str))
                .collect();
            let failed: Vec<&FailedRequest> =
                facts.failed_requests.iter().filter(|r| urls.contains(&r.url.as_str())).collect();
            explained.extend(failed.iter().map(|r| r.url.as_str()));
            let users: Vec<usize> = (0..facts.dom.elements.len())
                .filter(|&i| {
                    let e = &facts.dom.elements[i];
                    !e.is_excluded()
                        && e.text.is_some()
                        && self.style(i, "font-family").split(',').any(|n| unquote(n).to_lowercase() == family)
                })
                .collect();
            let why = failed.iter().map(|r| format!("{} ({})", r.url, r.reason())).collect::<Vec<_>>().join(", ");
            let first = users.first().copied();
            issues.push(PageIssue {
                kind: IssueKind::FailedFont,
                severity: Severity::Error,
                selector: first.map(|i| self.selector(i)),
                bounds: first.map(|i| self.bounds(i)),
                message: format!(
                    "Web font \"{}\" failed to load{}; {} element{} with text fall back to another font{}.",
                    font.family,
                    if why.is_empty() { String::new() } else { format!(": {why}") },
                    users.len(),
                    plural(users.len()),
                    first.map(|i| format!(", first {}", self.selector(i))).unwrap_or_default()
                ),
                measured: measured(&[
                    ("family", json!(font.family)),
                    ("elementsUsingIt", json!(users.len())),
                    ("failedUrls", json!(failed.iter().map(|r| r.url.as_str()).collect::<Vec<_>>())),
                ]),
            });
        }
        for r in &facts.failed_requests {
            match r.resource_type.as_str() {
                "stylesheet" => {
                    let link = facts.details.stylesheets.iter().find(|l| l.href == r.url);
                    issues.push(PageIssue {
                        kind: IssueKind::FailedStylesheet,
                        severity: Severity::Error,
                        selector: link.and_then(|l| l.selector.clone()),
                        bounds: None,
                        message: format!(
                            "Stylesheet {} failed to load ({}): its rules are missing.",
                            r.url,
                            r.reason()
                        ),
                        measured: measured(&[("url", json!(r.url)), ("status", json!(r.status))]),
                    });
                }
                "font" if !explained.contains(r.url.as_str()) => issues.push(PageIssue {
                    kind: IssueKind::FailedFont,
                    severity: Severity::Warning,
                    selector: None,
                    bounds: None,
                    message: format!("A font request failed ({}): {}.", r.reason(), r.url),
                    measured: measured(&[("url", json!(r.url)), ("status", json!(r.status))]),
                }),
                _ => {}
            }
        }
        issues.truncate(MAX_PER_FINDER);
        issues
    }

    /// Console errors and uncaught exceptions, except the browser's own "Failed to load resource"
    /// lines for requests another finder already reports, and for the favicon the browser asks
    /// for by itself (the page did not request it; a missing one shows no broken pixel).
    fn console_errors(&self) -> Vec<PageIssue> {
        let failed: HashSet<&str> = self.facts.failed_requests.iter().map(|r| r.url.as_str()).collect();
        self.facts
            .console
            .iter()
            .filter(|c| c.level == "error" || c.level == "pageerror")
            .filter(|c| {
                let resource = c.text.starts_with("Failed to load resource");
                !(resource
                    && c.location.as_ref().is_some_and(|l| failed.contains(l.url.as_str()) || is_favicon(&l.url)))
            })
            .take(MAX_PER_FINDER)
            .map(|c| {
                let at =
                    c.location.as_ref().map(|l| format!(" at {}:{}:{}", l.url, l.line, l.column)).unwrap_or_default();
                let what = if c.level == "pageerror" { "Uncaught exception" } else { "Console error" };
                PageIssue {
                    kind: IssueKind::ConsoleError,
                    severity: Severity::Error,
                    selector: None,
                    bounds: None,
                    message: format!("{what}{at}: {}", c.text),
                    measured: measured(&[("level", json!(c.level)), ("location", json!(c.location))]),
                }
            })
            .collect()
    }

    /// Text whose colour against the solid colours behind it is under the WCAG AA ratio. Text
    /// over a background image or other painted content is skipped (its contrast is not a matter
    /// of two colours), and so is disabled controls' text (WCAG 1.4.3 exempts it).
    fn low_contrast(&self) -> Vec<PageIssue> {
        let mut issues = Vec::new();
        for (i, d) in self.details() {
            if !d.own_text
                || d.text_rects.is_empty()
                || d.backdrop_unknown
                || d.disabled
                || d.opacity <= 0.0
                || self.invisible(i)
                || self.visible_rects(i, d).is_empty()
            {
                continue;
            }
            let Some(text) = parse_color(self.style(i, "color")) else { continue };
            let Some(backdrop) = backdrop(&d.backgrounds) else { continue };
            let text = Rgba { a: text.a * d.opacity.clamp(0.0, 1.0), ..text }.over(backdrop);
            let ratio = contrast_ratio(text, backdrop);
            let size = css_px(self.style(i, "font-size")).unwrap_or(16.0);
            let weight = self.style(i, "font-weight").parse::<f64>().unwrap_or(400.0);
            let large = size >= 24.0 || (size >= 18.66 && weight >= 700.0);
            let needed = if large { MIN_CONTRAST_LARGE } else { MIN_CONTRAST };
            if ratio >= needed {
                continue;
            }
            let selector = self.selector(i);
            let ratio = round2(ratio);
            issues.push(PageIssue {
                kind: IssueKind::LowContrast,
                severity: if ratio < MIN_CONTRAST_LARGE { Severity::Error } else { Severity::Warning },
                selector: Some(selector.clone()),
                bounds: Some(self.bounds(i)),
                message: format!(
                    "Text of {selector} has contrast {ratio}:1 ({} on {}), below the {needed}:1 WCAG AA needs for {} text.",
                    text.css(),
                    backdrop.css(),
                    if large { "large" } else { "normal" }
                ),
                measured: measured(&[
                    ("ratio", json!(ratio)),
                    ("required", json!(needed)),
                    ("color", json!(text.css())),
                    ("background", json!(backdrop.css())),
                    ("fontSizePx", json!(size)),
                    ("fontWeight", json!(weight)),
                ]),
            });
            if issues.len() >= MAX_PER_FINDER {
                break;
            }
        }
        issues
    }

    /// Interactive elements smaller than 24 × 24 px on a phone, except links inside a sentence
    /// (WCAG 2.5.8's inline exception).
    fn small_tap_targets(&self) -> Vec<PageIssue> {
        let mut issues = Vec::new();
        for (i, d) in self.details() {
            let [_, _, w, h] = self.bounds(i);
            if !d.interactive || d.inline_in_text || w <= 0.0 || h <= 0.0 || self.invisible(i) {
                continue;
            }
            if w >= MIN_TAP_TARGET && h >= MIN_TAP_TARGET {
                continue;
            }
            let selector = self.selector(i);
            issues.push(PageIssue {
                kind: IssueKind::SmallTapTarget,
                severity: Severity::Warning,
                selector: Some(selector.clone()),
                bounds: Some(self.bounds(i)),
                message: format!(
                    "Tap target {selector} is {w} × {h} px, under the {MIN_TAP_TARGET} × {MIN_TAP_TARGET} px minimum on a phone \
                     (44–48 px is comfortable)."
                ),
                measured: measured(&[("width", json!(w)), ("height", json!(h)), ("minimum", json!(MIN_TAP_TARGET))]),
            });
            if issues.len() >= MAX_PER_FINDER {
                break;
            }
        }
        issues
    }
}

#[derive(Clone, Copy)]
enum Axis {
    X,
    Y,
}

/// `html` and `body` pass their overflow to the viewport: their `overflow-x` is the page's.
fn is_root(tag: &str) -> bool {
    tag == "html" || tag == "body"
}

/// The browser's automatic `/favicon.ico` request.
fn is_favicon(url: &str) -> bool {
    url.split(['?', '#']).next().is_some_and(|u| u.ends_with("/favicon.ico"))
}

fn unquote(name: &str) -> &str {
    name.trim().trim_matches(|c| c == '"' || c == '\'')
}

fn css_px(value: &str) -> Option<f64> {
    value.strip_suffix("px")?.trim().parse().ok()
}

/// A colour with straight (not premultiplied) alpha, channels 0–255, alpha 0–1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rgba {
    pub r: f64,
    pub g: f64,
    pub b: f64,
    pub a: f64,
}

impl Rgba {
    /// `self` composited over an opaque `below`.
    pub fn over(self, below: Rgba) -> Rgba {
        let mix = |top: f64, bottom: f64| top * self.a + bottom * (1.0 - self.a);
        Rgba { r: mix(self.r, below.r), g: mix(self.g, below.g), b: mix(self.b, below.b), a: 1.0 }
    }

    fn css(self) -> String {
        format!("rgb({}, {}, {})", self.r.round(), self.g.round(), self.b.round())
    }

    /// WCAG relative luminance.
    pub fn luminance(self) -> f64 {
        let channel = |c: f64| {
            let s = c / 255.0;
            if s <= 0.04045 { s / 12.92 } else { ((s + 0.055) / 1.055).powf(2.4) }
        };
        0.2126 * channel(self.r) + 0.7152 * channel(self.g) + 0.0722 * channel(self.b)
    }
}

/// Parses a computed colour: `rgb(r, g, b)`, `rgba(r, g, b, a)` and the space-separated
/// `rgb(r g b / a)`. Other notations (`color(…)`, `oklch(…)`) give None: not judged.
pub fn parse_color(value: &str) -> Option<Rgba> {
    let inner = value.trim().strip_prefix("rgba(").or_else(|| value.trim().strip_prefix("rgb("))?.strip_suffix(')')?;
    let parts: Vec<&str> = inner.split([',', '/', ' ']).map(str::trim).filter(|p| !p.is_empty()).collect();
    let number = |p: &str| -> Option<f64> {
        match p.strip_suffix('%') {
            Some(pct) => pct.parse::<f64>().ok().map(|v| v / 100.0),
            None => p.parse().ok(),
        }
    };
    let (r, g, b) = (number(parts.first()?)?, number(parts.get(1)?)?, number(parts.get(2)?)?);
    let a = match parts.get(3) {
        Some(p) => number(p)?,
        None => 1.0,
    };
    (parts.len() <= 4).then_some(Rgba { r, g, b, a: a.clamp(0.0, 1.0) })
}

/// The opaque colour behind text: the listed backgrounds (element first, up to the first
/// opaque one) composited bottom-up over the white canvas. None when one is unparsable.
pub fn backdrop(backgrounds: &[String]) -> Option<Rgba> {
    let mut colour = Rgba { r: 255.0, g: 255.0, b: 255.0, a: 1.0 };
    for layer in backgrounds.iter().rev() {
        colour = parse_color(layer)?.over(colour);
    }
    Some(colour)
}

/// WCAG contrast ratio of two opaque colours (1 to 21).
pub fn contrast_ratio(a: Rgba, b: Rgba) -> f64 {
    let (la, lb) = (a.luminance(), b.luminance());
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_dom;

    const PROPS: &str = r#"["color","background-color","overflow-x","overflow-y","text-overflow","visibility","opacity","font-size","font-weight","font-family","position","display"]"#;

    /// One element line of a DOM record: (parent, tag, selector, box, has text, styles overrides).
    fn element(
        parent: i64,
        tag: &str,
        selector: &str,
        bounds: [f64; 4],
        text: bool,
        overrides: &[(&str, &str)],
    ) -> String {
        let mut styles = [
            ("color", "rgb(17, 17, 17)"),
            ("background-color", "rgba(0, 0, 0, 0)"),
            ("overflow-x", "visible"),
            ("overflow-y", "visible"),
            ("text-overflow", "clip"),
            ("visibility", "visible"),
            ("opacity", "1"),
            ("font-size", "16px"),
            ("font-weight", "400"),
            ("font-family", "sans-serif"),
            ("position", "static"),
            ("display", "block"),
        ];
        for (k, v) in overrides {
            styles.iter_mut().find(|s| s.0 == *k).unwrap().1 = v;
        }
        let values: Vec<&str> = styles.iter().map(|s| s.1).collect();
        serde_json::json!({
            "parent": parent, "tag": tag, "selector": selector, "box": bounds,
            "text": if text { Some("00") } else { None }, "image": null, "styles": values, "masked": false
        })
        .to_string()
    }

    fn facts(document_width: f64, viewport: (f64, f64), elements: &[String], details: &str) -> PageFacts {
        let json = format!(
            r#"{{"version":1,"url":"http://x/","viewport":{{"width":{},"height":{}}},"devicePixelRatio":1,
            "document":{{"width":{document_width},"height":800}},"styleProperties":{PROPS},"elements":[{}],
            "fonts":[],"brokenImages":[]}}"#,
            viewport.0,
            viewport.1,
            elements.join(",")
        );
        PageFacts {
            dom: parse_dom(&json).unwrap(),
            details: serde_json::from_str(details).unwrap(),
            console: Vec::new(),
            failed_requests: Vec::new(),
        }
    }

    fn detail(selector: &str, rects: &[[f64; 4]]) -> Value {
        json!({"selector": selector, "ownText": true, "textRects": rects, "scroll": [0, 0, 0, 0],
               "backgrounds": ["rgb(255, 255, 255)"], "opacity": 1})
    }

    fn kinds(check: &PageCheck) -> Vec<(IssueKind, Option<&str>)> {
        check.issues.iter().map(|i| (i.kind, i.selector.as_deref())).collect()
    }

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
    fn page_check_names_the_outermost_overflowing_element() {
        let f = facts(
            1616.0,
            (1280.0, 800.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 1280.0, 400.0], false, &[]),
                element(0, "div", "#wide", [16.0, 0.0, 1600.0, 20.0], false, &[]),
                element(1, "span", "#wide > span", [16.0, 0.0, 1500.0, 20.0], false, &[]),
                element(0, "div", "#scroller", [0.0, 30.0, 300.0, 20.0], false, &[("overflow-x", "auto")]),
                element(3, "div", "#scroller > div", [0.0, 30.0, 2000.0, 20.0], false, &[]),
                element(0, "div", "#fixed", [1200.0, 0.0, 200.0, 20.0], false, &[("position", "fixed")]),
            ],
            r##"{"elements":[]}"##,
        );
        let check = check_page(&f, ViewportKind::Desktop);
        assert_eq!(kinds(&check), vec![(IssueKind::HorizontalOverflow, Some("#wide"))]);
        assert_eq!(check.issues[0].measured["overflowPx"], json!(336.0));
    }

    #[test]
    fn page_check_clipped_text_but_not_ellipsis_or_visually_hidden() {
        let f = facts(
            1280.0,
            (1280.0, 800.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 1280.0, 400.0], false, &[]),
                element(
                    0,
                    "div",
                    "#clipped",
                    [16.0, 0.0, 90.0, 24.0],
                    true,
                    &[("overflow-x", "hidden"), ("overflow-y", "hidden")],
                ),
                element(
                    0,
                    "div",
                    "#ellipsis",
                    [16.0, 30.0, 90.0, 24.0],
                    true,
                    &[("overflow-x", "hidden"), ("text-overflow", "ellipsis")],
                ),
                element(
                    0,
                    "span",
                    "#sr",
                    [0.0, 60.0, 1.0, 1.0],
                    true,
                    &[("overflow-x", "hidden"), ("overflow-y", "hidden")],
                ),
                element(0, "button", "#tight", [16.0, 90.0, 80.0, 16.0], true, &[("overflow-x", "hidden"), ("overflow-y", "hidden")]),
                element(0, "div", "#box", [16.0, 120.0, 300.0, 40.0], false, &[("overflow-y", "hidden")]),
                element(5, "p", "#box > p", [16.0, 120.0, 300.0, 57.0], true, &[]),
            ],
            &json!({"elements": [
                detail("#clipped", &[[16.0, 2.0, 237.6, 19.0]]),
                detail("#ellipsis", &[[16.0, 32.0, 237.6, 19.0]]),
                detail("#sr", &[[0.0, 60.0, 80.0, 19.0]]),
                // line-height: 1: the glyph box passes the 16 px box by ~1.5 px at both edges
                detail("#tight", &[[20.0, 88.5, 40.0, 18.6]]),
                detail("#box > p", &[[16.0, 122.0, 280.0, 19.0], [16.0, 141.0, 280.0, 19.0], [16.0, 160.0, 280.0, 19.0]]),
            ]})
            .to_string(),
        );
        let check = check_page(&f, ViewportKind::Desktop);
        assert_eq!(
            kinds(&check),
            vec![(IssueKind::ClippedText, Some("#clipped")), (IssueKind::ClippedText, Some("#box > p"))]
        );
        assert_eq!(check.issues[0].measured["hiddenPx"], json!(147.6));
        assert_eq!(
            (check.issues[1].severity, &check.issues[1].measured["clippedBy"]),
            (Severity::Warning, &json!("#box"))
        );
    }

    #[test]
    fn page_check_overlapping_text_needs_real_overlap() {
        let f = facts(
            1280.0,
            (1280.0, 800.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 1280.0, 400.0], false, &[]),
                element(0, "span", "#under", [16.0, 150.0, 118.0, 24.0], true, &[]),
                element(0, "span", "#over", [28.0, 154.0, 143.0, 24.0], true, &[]),
                element(0, "p", "#next", [16.0, 174.0, 500.0, 24.0], true, &[]),
                // a visually-hidden label laid out over #next: clipped to 1 px, it shows nothing
                element(
                    0,
                    "span",
                    "#sr-only",
                    [16.0, 175.0, 1.0, 1.0],
                    true,
                    &[("overflow-x", "hidden"), ("overflow-y", "hidden")],
                ),
            ],
            &json!({"elements": [
                detail("#under", &[[16.0, 152.0, 118.0, 19.0]]),
                detail("#over", &[[28.0, 156.0, 143.0, 19.0]]),
                // touches #over's line by 1 px: tight line-height, not a bug
                detail("#next", &[[16.0, 174.0, 300.0, 19.0]]),
                detail("#sr-only", &[[16.0, 175.0, 120.0, 19.0]]),
            ]})
            .to_string(),
        );
        let check = check_page(&f, ViewportKind::Desktop);
        assert_eq!(kinds(&check), vec![(IssueKind::OverlappingText, Some("#over"))]);
        assert_eq!(check.issues[0].measured["overlaps"], json!("#under"));
    }

    #[test]
    fn page_check_contrast_uses_wcag_ratios() {
        let white = Rgba { r: 255.0, g: 255.0, b: 255.0, a: 1.0 };
        let grey = parse_color("rgb(200, 200, 200)").unwrap();
        assert_eq!(round2(contrast_ratio(grey, white)), 1.67);
        let black = parse_color("rgba(0, 0, 0, 1)").unwrap();
        assert_eq!(round2(contrast_ratio(black, white)), 21.0);
        assert_eq!(parse_color("rgb(0 0 0 / 0.5)").unwrap().a, 0.5);
        assert_eq!(parse_color("oklch(0.5 0.1 20)"), None);
        // half-transparent black over white is mid grey
        let mid = backdrop(&["rgba(0, 0, 0, 0.5)".into(), "rgb(255, 255, 255)".into()]).unwrap();
        assert_eq!(mid.r.round(), 128.0);

        let f = facts(
            1280.0,
            (1280.0, 800.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 1280.0, 400.0], false, &[]),
                element(0, "p", "#faint", [16.0, 0.0, 300.0, 24.0], true, &[("color", "rgb(200, 200, 200)")]),
                element(
                    0,
                    "h1",
                    "#big",
                    [16.0, 30.0, 300.0, 40.0],
                    true,
                    &[("color", "rgb(118, 118, 118)"), ("font-size", "32px")],
                ),
                element(0, "p", "#small", [16.0, 80.0, 300.0, 24.0], true, &[("color", "rgb(130, 130, 130)")]),
                element(0, "button", "#off", [16.0, 110.0, 100.0, 24.0], true, &[("color", "rgb(200, 200, 200)")]),
                element(0, "h2", "#hero", [16.0, 140.0, 300.0, 24.0], true, &[("color", "rgb(255, 255, 255)")]),
            ],
            &json!({"elements": [
                detail("#faint", &[[16.0, 2.0, 200.0, 19.0]]),
                detail("#big", &[[16.0, 32.0, 200.0, 36.0]]),
                detail("#small", &[[16.0, 82.0, 200.0, 19.0]]),
                {"selector": "#off", "ownText": true, "textRects": [[20.0, 112.0, 50.0, 19.0]], "backgrounds": ["rgb(255, 255, 255)"], "opacity": 1, "disabled": true},
                // white text over a picture: the ancestors' white is not what is behind it
                {"selector": "#hero", "ownText": true, "textRects": [[16.0, 142.0, 200.0, 19.0]], "backgrounds": ["rgb(255, 255, 255)"], "opacity": 1, "backdropUnknown": true},
            ]})
            .to_string(),
        );
        let check = check_page(&f, ViewportKind::Desktop);
        // #big is 4.54:1 (large text needs 3), #small 3.84:1 (a warning), #faint 1.67:1 (an error)
        assert_eq!(
            kinds(&check),
            vec![(IssueKind::LowContrast, Some("#faint")), (IssueKind::LowContrast, Some("#small"))]
        );
        assert_eq!(check.issues[0].severity, Severity::Error);
        assert_eq!(check.issues[1].severity, Severity::Warning);
    }

    #[test]
    fn page_check_tap_targets_only_on_mobile_and_not_inline_links() {
        let f = facts(
            375.0,
            (375.0, 667.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 375.0, 400.0], false, &[]),
                element(0, "button", "#tiny", [16.0, 0.0, 16.0, 16.0], false, &[]),
                element(0, "a", "#inline", [16.0, 30.0, 40.0, 18.0], false, &[("display", "inline")]),
                element(0, "button", "#big", [16.0, 60.0, 48.0, 48.0], false, &[]),
            ],
            r##"{"elements":[
                {"selector":"#tiny","interactive":true,"opacity":1},
                {"selector":"#inline","interactive":true,"inlineInText":true,"opacity":1},
                {"selector":"#big","interactive":true,"opacity":1}]}"##,
        );
        assert_eq!(kinds(&check_page(&f, ViewportKind::Mobile)), vec![(IssueKind::SmallTapTarget, Some("#tiny"))]);
        assert_eq!(kinds(&check_page(&f, ViewportKind::Desktop)), vec![]);
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
                "fontFaces":[{"family":"Brand Sans","urls":["http://x/brand.woff2"]}],
                "stylesheets":[{"href":"http://x/site.css","selector":"html > head > link"}]}"##,
        );
        f.dom.fonts.push(crate::dom::FontRecord { family: "Brand Sans".into(), status: FontStatus::Error });
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

    #[test]
    fn page_check_off_screen_content_but_not_skip_links() {
        let f = facts(
            1280.0,
            (1280.0, 800.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 1280.0, 400.0], false, &[]),
                element(0, "p", "#lost", [-500.0, 10.0, 300.0, 24.0], true, &[("position", "absolute")]),
                element(0, "a", "#skip", [-9999.0, 0.0, 100.0, 20.0], true, &[("position", "absolute")]),
            ],
            r##"{"elements":[{"selector":"#skip","interactive":true,"ownText":true,"opacity":1}]}"##,
        );
        assert_eq!(kinds(&check_page(&f, ViewportKind::Desktop)), vec![(IssueKind::OffScreen, Some("#lost"))]);
    }
}
