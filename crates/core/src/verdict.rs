//! One snapshot's decision: its status and the one-line verdict a person can act on, from the
//! pixel layer, the DOM layer and capture health (02-results.md, "Status and the one-line
//! verdict"). The first matching rule wins; every front-end prints this line and none
//! recomputes it.

use serde::{Deserialize, Serialize};

use crate::compare::ImageComparison;
use crate::dom::{DomComparison, StyleCheck};
use crate::environment::EnvironmentComparison;
use crate::health::{CaptureHealth, HealthReason};
use crate::regions::Region;
use crate::rendering::{
    Remaining, asset_line, asset_note, environment_note, font_line, font_note, rendering_line, reshaped_line, set_aside,
};
use crate::shape::Shape;
use crate::words::plural;

/// A snapshot's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    Passed,
    Changed,
    /// No baseline yet.
    New,
    /// A committed baseline with no capture in a full run.
    Missing,
    /// An update run (`--update-snapshots`) wrote this capture as the baseline of a new or
    /// changed snapshot: nothing is left to approve; the change is reviewed in the commit.
    Written,
    /// The baseline or the capture cannot be read (`SnapshotEvidence::damaged` says which file,
    /// what is wrong and the fix): nothing was compared, and the run fails.
    Error,
}

impl crate::words::Word for Status {}

impl Status {
    /// A person has something to look at: the snapshot changed or is new.
    pub fn needs_review(self) -> bool {
        matches!(self, Status::Changed | Status::New)
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::words::Word::word(*self))
    }
}

/// The verdict of a new or changed snapshot whose capture `writer` (`--update-snapshots`, or
/// `writeMissingBaselines`) wrote as the baseline: what it was, without the advice to approve
/// (`previous` is its verdict before writing).
pub fn written_verdict(was: Status, previous: &str, writer: &str) -> String {
    match was {
        Status::New => format!("Baseline written by {writer}: a new snapshot"),
        _ => {
            // The verdict's first clause says what changed; the rest is advice for a reviewer.
            let what = previous.split("; ").next().unwrap_or(previous);
            format!("Baseline written by {writer}, replacing the old one: {what}")
        }
    }
}

/// Which verdict rule matched: stable names for grouping, filters and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum VerdictKind {
    /// No pixel differs.
    Identical,
    /// Some pixels differ, within maxDiffPixels / maxDiffPixelRatio.
    WithinTolerance,
    Unhealthy,
    Structural,
    StyleOnly,
    PageShift,
    StylesNotCompared,
    Concentrated,
    Large,
    LikelyNoise,
    New,
    /// The page never settled: two consecutive screenshots never agreed within the timeout. The
    /// capture is no baseline, whatever the update mode.
    Unstable,
    /// The baseline or the capture cannot be read: nothing was compared.
    Damaged,
    /// Another environment drew the same page differently: every differing region is a
    /// rendering region, and the DOM, styles, layout and fonts are the same. Passes unless
    /// `strictRendering`.
    Rendering,
    /// Across two environments, boxes moved or resized with the same DOM, styles and fonts: the
    /// other engine shaped the text differently. A person decides.
    TextReshaped,
    /// A web font, an image or a stylesheet has other bytes under the same URL, with the DOM and
    /// styles the same: a real change, never noise.
    AssetReplaced,
    /// The DOM and styles are the same and a font family was drawn by another local font than in
    /// the baseline: named with both fonts and what fixes it. A person decides.
    FontSubstituted,
}

impl crate::words::Word for VerdictKind {}

/// The decision and its one line.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    pub status: Status,
    /// `noiseAutoPass` passed a likely-noise diff.
    pub auto_passed: bool,
    pub kind: VerdictKind,
    /// The decision-oriented sentence.
    pub line: String,
}

/// Tolerances that let a small change pass (Playwright's semantics).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tolerance {
    /// A change of at most this many pixels passes.
    pub max_diff_pixels: Option<u64>,
    /// A change of at most this share of the canvas (0..1) passes; with both set, the smaller wins.
    pub max_diff_pixel_ratio: Option<f64>,
    /// Pass a diff that is likely render noise (DOM and styles identical, scattered).
    pub noise_auto_pass: bool,
    /// Fail a `rendering` verdict (another environment drew the same page differently) instead
    /// of passing it.
    pub strict_rendering: bool,
}

impl Tolerance {
    /// The largest diff that passes, in pixels, for a canvas of `total` pixels.
    fn allowed(&self, total: u64) -> u64 {
        let by_ratio = self.max_diff_pixel_ratio.map(|r| (r * total as f64).floor() as u64);
        match (self.max_diff_pixels, by_ratio) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => 0,
        }
    }
}

/// The verdict for a snapshot without a baseline.
/// Models read this line too, so it names no command: how a person approves is
/// `SnapshotEvidence::approve_hint`'s, shown only where people read.
pub fn new_snapshot_verdict() -> Verdict {
    Verdict {
        status: Status::New,
        auto_passed: false,
        kind: VerdictKind::New,
        line: "New snapshot: no baseline yet; a human reviews the capture and approves it".to_string(),
    }
}

/// The verdict of a page that never settled: `waited_ms` of shots, and `area` (what kept
/// changing between the last two, e.g. `62×20 at 10,10 (#clock)`).
pub fn unstable_verdict(waited_ms: u64, area: &str) -> Verdict {
    Verdict {
        status: Status::Changed,
        auto_passed: false,
        kind: VerdictKind::Unstable,
        line: format!(
            "{}; hide it with mask or wait for it to settle — never approve this capture as a baseline",
            crate::stability::never_settled(waited_ms, area)
        ),
    }
}

/// Decides a compared snapshot. `dom` is `None` when either side has no DOM data;
/// `environment` is where each side was rendered, when recorded.
pub fn decide(
    pixel: &ImageComparison,
    dom: Option<&DomComparison>,
    health: &CaptureHealth,
    tolerance: &Tolerance,
    environment: Option<&EnvironmentComparison>,
) -> Verdict {
    let blocking_health = health.unhealthy && !health.same_on_both_sides;
    let verdict = |status, kind, line: String| Verdict { status, auto_passed: false, kind, line };

    // An asset that failed the same way on both sides did not make the diff: the diff is judged
    // as any other, and the line still names what failed.
    let same_failure = if health.unhealthy && health.same_on_both_sides {
        format!(", but {} (the baseline failed the same way)", failed_assets(&health.reasons))
    } else {
        String::new()
    };
    if pixel.diff_pixels == 0 && !blocking_health {
        return verdict(Status::Passed, VerdictKind::Identical, format!("Passed: no pixel differs{same_failure}"));
    }
    if !blocking_health && pixel.diff_pixels <= tolerance.allowed(pixel.total_pixels) {
        let line = format!(
            "Passed: {} pixels differ ({:.3} %), within the allowed {}{same_failure}",
            pixel.diff_pixels,
            pixel.diff_percent,
            tolerance.allowed(pixel.total_pixels)
        );
        return verdict(Status::Passed, VerdictKind::WithinTolerance, line);
    }

    // Rendering regions among real ones, set aside once: the shape rules judge what remains, and
    // the line says how many were set aside.
    let remaining = set_aside(pixel);
    let mut decided = if blocking_health {
        verdict(Status::Changed, VerdictKind::Unhealthy, unhealthy_capture(&health.reasons))
    } else {
        decide_change(pixel, dom, tolerance, environment, remaining.as_ref())
    };
    // A real change names the environment difference beside it, never hidden by it.
    let judged_as_is = !matches!(decided.kind, VerdictKind::Rendering | VerdictKind::TextReshaped);
    if decided.status == Status::Changed && judged_as_is {
        let aside = remaining.as_ref().map_or(0, |r| r.set_aside);
        let assets = if decided.kind == VerdictKind::AssetReplaced { String::new() } else { asset_note(environment) };
        let font = if decided.kind == VerdictKind::FontSubstituted { String::new() } else { font_note(environment) };
        decided.line = format!("{}{assets}{}{font}", decided.line, environment_note(environment, aside));
    }
    if health.unhealthy && !blocking_health {
        decided.line = format!(
            "{}; also {} (the baseline failed the same way): {}",
            decided.line,
            failed_assets(&health.reasons),
            health_fix(&health.reasons)
        );
    }
    // Pixels of a resized page are counted on the larger canvas: the two sizes say why so many
    // differ (as toHaveScreenshot says "Expected an image 1280px by 720px, received …"). Content
    // that moved down or up already says by how much the page grew or shrank.
    if pixel.size_changed && decided.status == Status::Changed && pixel.shift.is_none() {
        decided.line = format!(
            "{}; the size changed from {} (baseline) to {}",
            decided.line,
            dimensions(pixel.baseline_size),
            dimensions(pixel.current_size)
        );
    }
    decided
}

/// The first class change, the likely cause of what follows it: `; class passed → failed (tr.row)`.
fn class_note(dom: &DomComparison) -> String {
    dom.class_changes.first_sentence().map(|s| format!("; {s}")).unwrap_or_default()
}

/// `1280×720`.
fn dimensions(size: crate::compare::Size) -> String {
    format!("{}×{}", size.width, size.height)
}

/// Decides a diff beyond the tolerances from the pixels and the DOM (capture health aside).
fn decide_change(
    pixel: &ImageComparison,
    dom: Option<&DomComparison>,
    tolerance: &Tolerance,
    environment: Option<&EnvironmentComparison>,
    remaining: Option<&Remaining>,
) -> Verdict {
    let verdict = |status, kind, line: String| Verdict { status, auto_passed: false, kind, line };
    let shift_text = pixel.shift.map(|s| {
        format!(
            "content below y={} moved {} {} px",
            s.below_y,
            if s.dy > 0 { "down" } else { "up" },
            s.dy.unsigned_abs()
        )
    });

    let Some(dom) = dom else {
        return pixel_only(pixel, shift_text);
    };
    if dom.changed {
        let mut parts = Vec::new();
        if dom.added.count > 0 {
            parts.push(format!("{} added ({})", plural(dom.added.count, "element"), first(&dom.added.elements)));
        }
        if dom.removed.count > 0 {
            parts.push(format!("{} removed ({})", plural(dom.removed.count, "element"), first(&dom.removed.elements)));
        }
        if dom.modified.count > 0 {
            let selectors: Vec<String> = dom.modified.elements.iter().map(|m| m.selector.clone()).collect();
            parts.push(format!(
                "{} with changed content ({})",
                plural(dom.modified.count, "element"),
                first(&selectors)
            ));
        }
        let shift = shift_text.map(|s| format!("; {s}")).unwrap_or_default();
        return verdict(
            Status::Changed,
            VerdictKind::Structural,
            format!(
                "Structural change: {}{}{shift}; compare with the intended change",
                parts.join(", "),
                class_note(dom)
            ),
        );
    }
    if dom.style_check == StyleCheck::Mismatch {
        let styles = &dom.style_changes;
        let main =
            styles.most_common.first().map(|c| format!("; {} {} → {}", c.property, c.from, c.to)).unwrap_or_default();
        // What made the change leads: the token or rule the live page traced it to, or the one
        // token of the root that changed.
        let cause = match dom.style_trace.as_ref().and_then(|trace| trace.verdict_note()) {
            Some(note) => format!("{note}; "),
            None => dom.leading_token().map(|token| format!("token {}; ", token.describe())).unwrap_or_default(),
        };
        return verdict(
            Status::Changed,
            VerdictKind::StyleOnly,
            format!(
                "Style-only change: {cause}{} restyled ({}){}{main}; real, not noise; confirm it was intended before approving",
                plural(styles.count, "element"),
                first(&styles.elements),
                class_note(dom)
            ),
        );
    }
    if let Some(line) = asset_line(pixel, environment, named_element(&pixel.regions)) {
        return verdict(Status::Changed, VerdictKind::AssetReplaced, line);
    }
    if let Some(line) = font_line(pixel, dom, environment, named_element(&pixel.regions)) {
        return verdict(Status::Changed, VerdictKind::FontSubstituted, line);
    }
    if let Some(line) = rendering_line(pixel, dom, environment, tolerance.strict_rendering) {
        let status = if tolerance.strict_rendering { Status::Changed } else { Status::Passed };
        return verdict(status, VerdictKind::Rendering, line);
    }
    if let Some(line) = reshaped_line(pixel, dom, environment) {
        return verdict(Status::Changed, VerdictKind::TextReshaped, line);
    }
    if let Some(shift) = shift_text {
        let grown = dom
            .geometry_changes
            .resized
            .iter()
            .find(|r| r.innermost)
            .map(|r| {
                let dh = r.to[3] - r.from[3];
                format!(" ({} {} by {} px)", r.selector, if dh >= 0.0 { "grew" } else { "shrank" }, dh.abs().round())
            })
            .unwrap_or_default();
        return verdict(Status::Changed, VerdictKind::PageShift, format!("Page shift: {shift}{grown}"));
    }
    if dom.style_check == StyleCheck::Unavailable {
        return verdict(
            Status::Changed,
            VerdictKind::StylesNotCompared,
            format!(
                "{} pixels differ, DOM identical but styles not compared: render noise or a stylesheet-only change, not ruled out; look at the images",
                pixel.diff_pixels
            ),
        );
    }
    // The real change is judged on its own, without the rendering regions set aside.
    let (diff_pixels, diff_percent, shape, regions) = match remaining {
        Some(r) => (r.diff_pixels, r.diff_percent, r.shape, r.regions.as_slice()),
        None => (pixel.diff_pixels, pixel.diff_percent, pixel.shape.unwrap_or(Shape::Scattered), &pixel.regions[..]),
    };
    match shape {
        Shape::Concentrated => {
            let element = named_element(regions).map(|s| format!(" on {s}")).unwrap_or_default();
            let geometry = dom.geometry_changes.resized_note();
            verdict(
                Status::Changed,
                VerdictKind::Concentrated,
                format!(
                    "Not noise: {diff_pixels} pixels changed in one area{element}{geometry} with DOM and styles identical — a bad capture or a change the style check cannot see (max-height, overflow, transform); compare the images"
                ),
            )
        }
        Shape::Large => verdict(
            Status::Changed,
            VerdictKind::Large,
            format!(
                "{diff_percent:.2} % of pixels differ with DOM and styles identical: more than render noise usually changes (often fonts or rendering differing between machines); compare the images"
            ),
        ),
        Shape::Scattered => {
            let line = format!(
                "Likely render noise: {diff_pixels} scattered pixels ({diff_percent:.3} %), DOM and styles identical; mention it, don't block"
            );
            Verdict {
                status: if tolerance.noise_auto_pass { Status::Passed } else { Status::Changed },
                auto_passed: tolerance.noise_auto_pass,
                kind: VerdictKind::LikelyNoise,
                line,
            }
        }
    }
}

/// Without DOM data only the pixels speak; never call that noise.
fn pixel_only(pixel: &ImageComparison, shift: Option<String>) -> Verdict {
    let line = match shift {
        Some(s) => format!("Page shift: {s} (no DOM data to say what grew)"),
        None => format!(
            "{} pixels differ ({:.3} %, {}); no DOM data to rule out render noise; look at the images",
            pixel.diff_pixels,
            pixel.diff_percent,
            match pixel.shape {
                Some(Shape::Concentrated) => "concentrated",
                Some(Shape::Large) => "large",
                _ => "scattered",
            }
        ),
    };
    let kind = if pixel.shift.is_some() { VerdictKind::PageShift } else { VerdictKind::StylesNotCompared };
    Verdict { status: Status::Changed, auto_passed: false, kind, line }
}

/// The first three failures in their sentences (the same words the report and the MCP guidance
/// use), then how many more.
/// The verdict of a capture whose assets failed: what failed, and that it is never a baseline.
/// Also what `approve` says of such a capture when no comparison evidence was written for it.
pub fn unhealthy_capture(reasons: &[HealthReason]) -> String {
    format!(
        "Unhealthy capture: {}; {} and never approve this capture as a baseline",
        failed_assets(reasons),
        health_fix(reasons)
    )
}

/// What mends an unhealthy capture: failed assets are fixed on the page; a request still pending
/// is waited for, or left out when it never ends by design.
fn health_fix(reasons: &[HealthReason]) -> String {
    let pending = reasons.iter().find(|r| r.pending_ms.is_some());
    let failed = reasons.iter().any(|r| r.pending_ms.is_none());
    let wait = pending.map(|r| {
        format!(
            "let the page's requests finish within the timeout (a request that never ends, a long poll or a stream, \
             is left out with ignoreRequests: [\"{}\"])",
            ignore_glob(&r.url)
        )
    });
    match (failed, wait) {
        (true, Some(wait)) => format!("fix the page's assets, {wait}"),
        (false, Some(wait)) => wait,
        _ => "fix the page's assets".into(),
    }
}

/// The `ignoreRequests` glob that leaves out requests to `url`'s path, whatever its host and
/// query: `http://x/api/poll?since=3` → `**/api/poll*`.
fn ignore_glob(url: &str) -> String {
    let after_host = url.split_once("://").map_or(url, |(_, rest)| rest.find('/').map_or("/", |i| &rest[i..]));
    let path_end = after_host.find(['?', '#']).unwrap_or(after_host.len());
    let tail = if path_end < after_host.len() { "*" } else { "" };
    format!("**{}{tail}", &after_host[..path_end])
}

fn failed_assets(reasons: &[HealthReason]) -> String {
    let list: Vec<String> = reasons.iter().take(3).map(ToString::to_string).collect();
    let more = reasons.len().saturating_sub(3);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!("{}{more}", list.join(", "))
}

/// The first three selectors, then how many more.
fn first(selectors: &[String]) -> String {
    let shown: Vec<&str> = selectors.iter().take(3).map(String::as_str).collect();
    let rest = selectors.len().saturating_sub(3);
    if rest > 0 { format!("{}, …", shown.join(", ")) } else { shown.join(", ") }
}

/// The element that holds most of the changed pixels: each region counts for the first element
/// it maps to, and the element whose regions hold the most differing pixels wins (the first
/// named, on a tie). Not the first region's: a small change above a large one comes first.
fn named_element(regions: &[Region]) -> Option<&str> {
    let mut totals: Vec<(&str, u64)> = Vec::new();
    for region in regions {
        let Some(element) = region.elements.first() else { continue };
        match totals.iter_mut().find(|(selector, _)| *selector == element.selector) {
            Some((_, pixels)) => *pixels += region.diff_pixels,
            None => totals.push((&element.selector, region.diff_pixels)),
        }
    }
    let most = totals.iter().map(|&(_, pixels)| pixels).max()?;
    totals.into_iter().find(|&(_, pixels)| pixels == most).map(|(selector, _)| selector)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_status_words_are_the_results_json_spelling() {
        for status in [Status::Passed, Status::Changed, Status::New, Status::Missing] {
            assert_eq!(serde_json::to_value(status).unwrap(), status.to_string());
        }
        let review: Vec<bool> = [Status::Passed, Status::Changed, Status::New, Status::Missing]
            .into_iter()
            .map(Status::needs_review)
            .collect();
        assert_eq!(review, [false, true, true, false]);
    }

    #[test]
    fn verdict_of_a_capture_shot_with_a_request_pending_says_how_to_leave_it_out() {
        use crate::health::{AssetKind, HealthReason};
        let data = HealthReason::pending(AssetKind::Request, "http://127.0.0.1:9/petstore.json", "GET", 5000);
        assert_eq!(
            unhealthy_capture(std::slice::from_ref(&data)),
            "Unhealthy capture: request http://127.0.0.1:9/petstore.json still pending after 5000 ms; let the page's \
             requests finish within the timeout (a request that never ends, a long poll or a stream, is left out with \
             ignoreRequests: [\"**/petstore.json\"]) and never approve this capture as a baseline"
        );
        let font = HealthReason::failed(AssetKind::Font, "http://x/brand.woff2", "HTTP 404");
        assert!(unhealthy_capture(&[font, data]).contains(
            "; fix the page's assets, let the page's requests finish within the timeout (a request that never ends"
        ));
        assert_eq!(ignore_glob("http://x/api/poll?since=3"), "**/api/poll*");
        assert_eq!(ignore_glob("https://x"), "**/");
        assert_eq!(ignore_glob("http://x/a/b#top"), "**/a/b*");
    }

    #[test]
    fn verdict_of_a_resized_page_names_both_sizes() {
        use crate::compare::{CompareOptions, compare_images};
        use crate::image::RgbaImage;
        let baseline = RgbaImage::filled(40, 20, [0, 128, 128, 255]).unwrap();
        let taller = RgbaImage::filled(40, 30, [0, 128, 128, 255]).unwrap();
        let (pixel, _) = compare_images(baseline.view(), taller.view(), &CompareOptions::default(), false).unwrap();
        let decided = decide(&pixel, None, &CaptureHealth::default(), &Tolerance::default(), None);
        assert_eq!(decided.status, Status::Changed);
        assert_eq!(
            decided.line,
            "400 pixels differ (33.333 %, concentrated); no DOM data to rule out render noise; look at the images; the size changed from 40×20 (baseline) to 40×30"
        );
        // A passing comparison of one size says nothing of sizes.
        let (same, _) = compare_images(baseline.view(), baseline.view(), &CompareOptions::default(), false).unwrap();
        assert_eq!(
            decide(&same, None, &CaptureHealth::default(), &Tolerance::default(), None).line,
            "Passed: no pixel differs"
        );
    }

    #[test]
    fn verdict_names_the_element_that_holds_most_changed_pixels() {
        use crate::regions::Classification;
        use crate::regions::{AttributedElement, ElementRole};
        let region = |y, diff_pixels, selector: &str| Region {
            x: 0,
            y,
            width: 10,
            height: 10,
            diff_pixels,
            diff_percent: 0.0,
            classification: Classification::Change,
            elements: vec![AttributedElement { selector: selector.into(), role: ElementRole::Changed }],
            samples: Vec::new(),
        };
        // A small change above a large one: the large one's element, not the first region's.
        let regions = [region(0, 20, "#badge"), region(50, 45, "#chart"), region(90, 35, "#chart")];
        assert_eq!(named_element(&regions), Some("#chart"));
        assert_eq!(named_element(&regions[..1]), Some("#badge"));
        // A tie goes to the first named; no element at all names none.
        assert_eq!(named_element(&[region(0, 5, "#a"), region(20, 5, "#b")]), Some("#a"));
        let mut bare = region(0, 5, "#a");
        bare.elements.clear();
        assert_eq!(named_element(&[bare]), None);
    }
}
