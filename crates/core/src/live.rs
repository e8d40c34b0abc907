//! Judging what the live-page tools record beyond `visual_check`'s findings (spec 05-live-pages):
//! cumulative layout shift with the elements that moved (`detect_layout_shift`), elements whose
//! visibility flips quickly after load (`detect_flash`), the console log `get_console_logs`
//! filters and counts, the summary of axe-core's audit (`verify_accessibility`), and what differs
//! between two captured states (`compare_snapshots`). The worker
//! only records entries, timestamps and axe's own verdicts; thresholds, ratings and the
//! sentences that sum them up live here, so the MCP tools only render them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::dom::{DomSnapshot, ElementList, GeometryChanges, ModifiedElements, StyleChanges, StyleCheck, compare_dom};
use crate::page_check::{ConsoleEntry, FailedRequest, plural};

/// CLS up to this is "good" (web.dev's threshold).
pub const CLS_GOOD: f64 = 0.1;
/// CLS above this is "poor".
pub const CLS_POOR: f64 = 0.25;
/// A session window closes after this gap without a shift…
const SESSION_GAP_MS: f64 = 1000.0;
/// …or once it spans this long (the CLS definition since 2021).
const SESSION_MAX_MS: f64 = 5000.0;
/// An element shown (or hidden) for less than this, then flipped back, flickered.
pub const FLASH_MS: f64 = 500.0;
/// Shifting elements and flashes listed.
const LISTED: usize = 20;

/// A rectangle `[x, y, w, h]` in viewport pixels, as the Layout Instability API gives it.
pub type Rect = [f64; 4];

/// One source of a layout-shift entry.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShiftSource {
    /// The collector's selector of the moved element; None when it is gone.
    pub selector: Option<String>,
    /// Where it was before the shift.
    pub previous_rect: Rect,
    /// Where it is after.
    pub current_rect: Rect,
}

/// One `layout-shift` performance entry.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShiftEntry {
    /// The shift's score (impact fraction × distance fraction).
    pub value: f64,
    /// Milliseconds since navigation start.
    pub start_time: f64,
    /// Shifts right after user input are expected and excluded from CLS.
    pub had_recent_input: bool,
    /// The elements that moved (the browser reports at most five).
    pub sources: Vec<ShiftSource>,
}

/// How the page's CLS rates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClsRating {
    Good,
    NeedsImprovement,
    Poor,
}

/// One element that moved, over all shifts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShiftingElement {
    pub selector: String,
    /// Sum of the scores of the shifts it took part in.
    pub score: f64,
    /// Shifts it took part in.
    pub shifts: usize,
    /// Largest distance its top-left corner moved, in pixels.
    pub max_move_px: f64,
    /// When it first moved, ms after navigation start.
    pub first_at_ms: f64,
    /// Its rectangle before and after the largest move.
    pub from: Rect,
    pub to: Rect,
}

/// `detect_layout_shift`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutShiftReport {
    /// The largest session window's sum of shift scores.
    pub cls: f64,
    pub rating: ClsRating,
    /// Shifts counted (not after input).
    pub shift_count: usize,
    pub elements: Vec<ShiftingElement>,
    pub summary: String,
}

/// CLS by session windows, with the moved elements ranked by the score they took part in.
pub fn judge_layout_shift(entries: &[ShiftEntry]) -> LayoutShiftReport {
    let counted: Vec<&ShiftEntry> = entries.iter().filter(|e| !e.had_recent_input).collect();
    let (mut cls, mut window, mut window_start, mut last) = (0.0_f64, 0.0, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for e in &counted {
        if e.start_time - last > SESSION_GAP_MS || e.start_time - window_start > SESSION_MAX_MS {
            window = 0.0;
            window_start = e.start_time;
        }
        window += e.value;
        last = e.start_time;
        cls = cls.max(window);
    }
    let cls = (cls * 10_000.0).round() / 10_000.0;
    let rating = if cls <= CLS_GOOD {
        ClsRating::Good
    } else if cls <= CLS_POOR {
        ClsRating::NeedsImprovement
    } else {
        ClsRating::Poor
    };
    let mut by_selector: BTreeMap<&str, ShiftingElement> = BTreeMap::new();
    for e in &counted {
        for s in &e.sources {
            let Some(selector) = s.selector.as_deref() else { continue };
            let moved = (s.current_rect[0] - s.previous_rect[0]).hypot(s.current_rect[1] - s.previous_rect[1]);
            let entry = by_selector.entry(selector).or_insert_with(|| ShiftingElement {
                selector: selector.to_string(),
                score: 0.0,
                shifts: 0,
                max_move_px: -1.0,
                first_at_ms: e.start_time.round(),
                from: s.previous_rect,
                to: s.current_rect,
            });
            entry.score += e.value;
            entry.shifts += 1;
            if moved > entry.max_move_px {
                entry.max_move_px = moved;
                entry.from = s.previous_rect;
                entry.to = s.current_rect;
            }
        }
    }
    let mut elements: Vec<ShiftingElement> = by_selector
        .into_values()
        .map(|mut e| {
            e.score = (e.score * 10_000.0).round() / 10_000.0;
            e.max_move_px = e.max_move_px.round();
            e
        })
        .collect();
    elements.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.first_at_ms.total_cmp(&b.first_at_ms)));
    elements.truncate(LISTED);
    let verdict = match rating {
        ClsRating::Good => "good",
        ClsRating::NeedsImprovement => "needs improvement",
        ClsRating::Poor => "poor",
    };
    let summary = if counted.is_empty() {
        "No layout shift: CLS 0 (good).".to_string()
    } else {
        let moved = elements.iter().take(3).map(|e| e.selector.as_str()).collect::<Vec<_>>().join(", ");
        format!(
            "CLS {cls} ({verdict}; good ≤ {CLS_GOOD}, poor > {CLS_POOR}) from {} shift{}; moved most: {moved}.",
            counted.len(),
            plural(counted.len())
        )
    };
    LayoutShiftReport { cls, rating, shift_count: counted.len(), elements, summary }
}

/// An element's visibility timeline: `[ms after navigation start, visible]` per change.
#[derive(Debug, Clone, Deserialize)]
pub struct VisibilityTimeline {
    /// The collector's selector; None for an element removed before it could be named.
    pub selector: Option<String>,
    /// Its tag name.
    pub tag: String,
    /// `[ms after navigation start, visible]`, the first when it was first seen.
    pub events: Vec<(f64, bool)>,
}

/// How an element flickered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlashKind {
    /// Shown briefly, then hidden (a flash of content that should not show).
    ShownThenHidden,
    /// Hidden briefly, then shown again (a blink).
    HiddenThenShown,
}

/// One element that flickered.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Flash {
    pub selector: String,
    pub kind: FlashKind,
    /// When the brief state began and ended, ms after navigation start.
    pub from_ms: f64,
    pub to_ms: f64,
    pub duration_ms: f64,
    /// Every visibility change recorded for it.
    pub timeline: Vec<(f64, bool)>,
}

/// `detect_flash`'s answer: the elements that flickered, and one sentence naming them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlashReport {
    /// "2 elements flickered: #a (150 ms), #b (100 ms)." or "No element flickered."
    pub summary: String,
    /// The first brief state of each element, earliest first (at most 20).
    pub flashes: Vec<Flash>,
}

/// Elements whose visibility flipped and flipped back within [`FLASH_MS`]: the first brief
/// state of each is reported. An element that only appeared late, or only went away, did not
/// flicker.
pub fn judge_flashes(timelines: &[VisibilityTimeline]) -> FlashReport {
    let mut flashes = Vec::new();
    for t in timelines {
        let Some(selector) = &t.selector else { continue };
        // A brief state is one entered by a change and left by the next change.
        let brief = t.events.windows(2).enumerate().find_map(|(i, pair)| {
            let ((start, state), (end, _)) = (pair[0], pair[1]);
            let entered = i > 0 || state; // the first event is the first sighting, not a change
            (entered && end - start < FLASH_MS).then_some((start, end, state))
        });
        if let Some((start, end, shown)) = brief {
            flashes.push(Flash {
                selector: selector.clone(),
                kind: if shown { FlashKind::ShownThenHidden } else { FlashKind::HiddenThenShown },
                from_ms: start,
                to_ms: end,
                duration_ms: end - start,
                timeline: t.events.clone(),
            });
        }
    }
    flashes.sort_by(|a, b| a.from_ms.total_cmp(&b.from_ms));
    flashes.truncate(LISTED);
    let summary = if flashes.is_empty() {
        "No element flickered.".to_string()
    } else {
        let names: Vec<String> = flashes.iter().map(|f| format!("{} ({} ms)", f.selector, f.duration_ms)).collect();
        format!("{} element{} flickered: {}.", flashes.len(), plural(flashes.len()), names.join(", "))
    };
    FlashReport { summary, flashes }
}

/// Console levels `get_console_logs` accepts (`warn` is read as `warning`).
pub const CONSOLE_LEVELS: [&str; 6] = ["error", "warning", "info", "log", "debug", "pageerror"];

/// Checks the requested levels; an unknown one is an error naming the known ones.
pub fn console_levels(requested: &[String]) -> Result<Vec<String>, String> {
    requested
        .iter()
        .map(|l| {
            let l = if l == "warn" { "warning" } else { l.as_str() };
            if CONSOLE_LEVELS.contains(&l) {
                Ok(l.to_string())
            } else {
                Err(format!("unknown console level {l:?}; use any of {}", CONSOLE_LEVELS.join(", ")))
            }
        })
        .collect()
}

/// The entries at the given levels (all when `levels` is empty), in time order.
pub fn filter_console(entries: &[ConsoleEntry], levels: &[String]) -> Vec<ConsoleEntry> {
    let mut kept: Vec<ConsoleEntry> =
        entries.iter().filter(|e| levels.is_empty() || levels.contains(&e.level)).cloned().collect();
    kept.sort_by(|a, b| a.time_ms.total_cmp(&b.time_ms));
    kept
}

/// `get_console_logs`' answer: the entries at the asked levels, the failed requests, and one
/// sentence counting them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleLog {
    /// The page's console over every level, whatever was asked: `has_errors` (a console error,
    /// an uncaught exception or a failed request), else `has_warnings`, else `clean`.
    pub status: &'static str,
    /// "3 console entries (2 errors), 1 failed request."
    pub summary: String,
    /// The entries at the asked levels, in time order.
    pub entries: Vec<ConsoleEntry>,
    /// Requests that failed or answered ≥ 400, whatever the levels.
    pub failed_requests: Vec<FailedRequest>,
}

/// The entries at the given levels (all when `levels` is empty) in time order, with the failed
/// requests, counted in one sentence: errors are console errors and uncaught exceptions.
pub fn console_log(entries: &[ConsoleEntry], levels: &[String], failed_requests: Vec<FailedRequest>) -> ConsoleLog {
    let status = if entries.iter().any(ConsoleEntry::is_error) || !failed_requests.is_empty() {
        "has_errors"
    } else if entries.iter().any(|e| e.level == "warning") {
        "has_warnings"
    } else {
        "clean"
    };
    let entries = filter_console(entries, levels);
    let errors = entries.iter().filter(|e| e.is_error()).count();
    let summary = format!(
        "{} console entr{} ({errors} error{}), {} failed request{}.",
        entries.len(),
        if entries.len() == 1 { "y" } else { "ies" },
        plural(errors),
        failed_requests.len(),
        plural(failed_requests.len())
    );
    ConsoleLog { status, summary, entries, failed_requests }
}

/// `compare_snapshots`' answer: whether two states of a page differ at all and how. Between two
/// live states every difference is a change: unlike a snapshot's DOM layer, there are no pixels
/// here for render noise to be in, so a restyle is as much a change as an added element.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StateComparison {
    /// Anything differs: elements added, removed or changed, computed styles, or boxes.
    pub changed: bool,
    /// "1 element added (#list > li:nth-of-type(4)); 1 restyled (#title color rgb(17, 17, 17) →
    /// rgb(200, 0, 0)); …" or "No change: …".
    pub summary: String,
    /// Elements were added, removed, re-tagged, or their text or image changed.
    pub structure_changed: bool,
    pub added: ElementList,
    pub removed: ElementList,
    pub modified: ModifiedElements,
    pub style_check: StyleCheck,
    pub style_changes: StyleChanges,
    pub geometry_changes: GeometryChanges,
}

/// Compares two captured states of a page (`before` → `after`) with the core's DOM diff.
pub fn compare_states(before: &DomSnapshot, after: &DomSnapshot) -> StateComparison {
    let dom = compare_dom(before, after);
    let mut parts = Vec::new();
    let named = |list: &[String]| list.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    if dom.added.count > 0 {
        parts.push(format!(
            "{} element{} added ({})",
            dom.added.count,
            plural(dom.added.count),
            named(&dom.added.elements)
        ));
    }
    if dom.removed.count > 0 {
        parts.push(format!("{} removed ({})", dom.removed.count, named(&dom.removed.elements)));
    }
    if dom.modified.count > 0 {
        let selectors: Vec<String> = dom.modified.elements.iter().map(|m| m.selector.clone()).collect();
        parts.push(format!("{} with changed text or image ({})", dom.modified.count, named(&selectors)));
    }
    let styles = &dom.style_changes;
    if styles.count > 0 {
        let main =
            styles.most_common.first().map(|c| format!(": {} {} → {}", c.property, c.from, c.to)).unwrap_or_default();
        parts.push(format!("{} restyled ({}){main}", styles.count, named(&styles.elements)));
    }
    let geometry = &dom.geometry_changes;
    if geometry.count > 0 {
        parts.push(format!("{} moved or resized", geometry.count));
    }
    let changed = !parts.is_empty();
    let summary = if changed {
        format!("{}.", parts.join("; "))
    } else if dom.style_check == StyleCheck::Unavailable {
        "No change in structure or boxes; styles were not compared (one state has no style data).".to_string()
    } else {
        "No change: the same elements, computed styles and boxes.".to_string()
    };
    StateComparison {
        changed,
        summary,
        structure_changed: dom.changed,
        added: dom.added,
        removed: dom.removed,
        modified: dom.modified,
        style_check: dom.style_check,
        style_changes: dom.style_changes,
        geometry_changes: dom.geometry_changes,
    }
}

/// What the worker's axe-core run reports: axe's own verdicts, gathered in the page.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct AxeResults {
    /// The axe-core version that ran (from its package.json).
    pub axe_version: Option<String>,
    pub violations: Vec<AxeViolation>,
    /// Rules that passed.
    pub passes: u64,
    /// Rules axe could not decide on the page (to be checked by a person); not summarised.
    pub incomplete: u64,
}

/// One axe-core rule the page violates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct AxeViolation {
    /// The rule id, e.g. `image-alt`.
    pub id: String,
    /// `minor`, `moderate`, `serious` or `critical`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impact: Option<String>,
    /// What the rule checks.
    pub description: String,
    /// How to fix it, in a few words.
    pub help: String,
    /// The rule's page on dequeuniversity.com.
    pub help_url: String,
    /// The first 20 failing nodes.
    pub nodes: Vec<AxeNode>,
    /// How many nodes fail, listed or not.
    pub node_count: u64,
}

/// One node an axe-core rule fails on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct AxeNode {
    /// axe's CSS selector of the node (frame parts joined by spaces).
    pub target: String,
    /// Its outer HTML, cut at 300 characters.
    pub html: String,
    /// What to fix, in axe's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_summary: Option<String>,
}

/// `verify_accessibility`'s answer: axe's violations as they are, and one sentence counting them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessibilityAudit {
    /// The axe-core version that ran.
    pub axe_version: Option<String>,
    /// "2 violations on 3 nodes: image-alt (critical), …" or "No accessibility violations …".
    pub summary: String,
    pub violations: Vec<AxeViolation>,
}

/// Summarises an axe-core run: the violations by rule id and impact, the nodes they fail on, or
/// the rules that passed when nothing is violated.
pub fn summarise_axe(results: AxeResults) -> AccessibilityAudit {
    let violations = results.violations;
    let summary = if violations.is_empty() {
        format!("No accessibility violations ({} rules passed).", results.passes)
    } else {
        let nodes: u64 = violations.iter().map(|v| v.node_count).sum();
        let ids: Vec<String> =
            violations.iter().map(|v| format!("{} ({})", v.id, v.impact.as_deref().unwrap_or(""))).collect();
        format!(
            "{} violation{} on {nodes} node{}: {}.",
            violations.len(),
            plural(violations.len()),
            plural(nodes as usize),
            ids.join(", ")
        )
    };
    AccessibilityAudit { axe_version: results.axe_version, summary, violations }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_a_restyle_between_two_states_is_a_change() {
        use crate::dom::test_records::{BLUE, page, parse};
        let before = page();
        assert_eq!(
            compare_states(&parse(&before), &parse(&before)).summary,
            "No change: the same elements, computed styles and boxes."
        );
        let mut after = page();
        after["elements"][5]["styles"][1] = serde_json::json!(BLUE);
        after["elements"][7]["styles"][1] = serde_json::json!(BLUE);
        let states = compare_states(&parse(&before), &parse(&after));
        assert!(states.changed && !states.structure_changed);
        assert_eq!(
            states.summary,
            "2 restyled (#card-a > p, #card-b > p): background-color rgba(0, 0, 0, 0) → rgb(37, 99, 235)."
        );
        // The answer has no noise hint: between two live states a restyle is never noise.
        let json = serde_json::to_value(&states).unwrap();
        assert!(json.get("noiseHint").is_none() && json["changed"] == true);
    }

    fn shift(value: f64, at: f64, selector: &str, dy: f64) -> ShiftEntry {
        ShiftEntry {
            value,
            start_time: at,
            had_recent_input: false,
            sources: vec![ShiftSource {
                selector: Some(selector.into()),
                previous_rect: [0.0, 0.0, 100.0, 50.0],
                current_rect: [0.0, dy, 100.0, 50.0],
            }],
        }
    }

    #[test]
    fn layout_shift_uses_the_largest_session_window() {
        // window 1: 0.05 + 0.05; window 2 (after a 2 s gap): 0.2
        let entries = [shift(0.05, 100.0, "#a", 10.0), shift(0.05, 300.0, "#a", 20.0), shift(0.2, 2400.0, "#b", 240.0)];
        let report = judge_layout_shift(&entries);
        assert_eq!(report.cls, 0.2);
        assert_eq!(report.rating, ClsRating::NeedsImprovement);
        assert_eq!(report.elements[0].selector, "#b");
        assert_eq!(report.elements[0].max_move_px, 240.0);
        assert_eq!(report.elements[1].shifts, 2);
    }

    #[test]
    fn layout_shift_ignores_input_and_rates() {
        let mut after_input = shift(0.5, 100.0, "#a", 10.0);
        after_input.had_recent_input = true;
        let report = judge_layout_shift(&[after_input]);
        assert_eq!((report.cls, report.rating, report.shift_count), (0.0, ClsRating::Good, 0));
        assert_eq!(report.summary, "No layout shift: CLS 0 (good).");
        let report = judge_layout_shift(&[shift(0.3, 100.0, "#c", 200.0)]);
        assert_eq!(report.rating, ClsRating::Poor);
        assert!(report.summary.starts_with("CLS 0.3 (poor"), "{}", report.summary);
    }

    fn timeline(selector: &str, events: &[(f64, bool)]) -> VisibilityTimeline {
        VisibilityTimeline { selector: Some(selector.into()), tag: "div".into(), events: events.to_vec() }
    }

    #[test]
    fn flash_needs_a_brief_state_between_two_changes() {
        let found = judge_flashes(&[
            timeline("#flash", &[(40.0, true), (190.0, false)]),
            timeline("#late", &[(40.0, false), (900.0, true)]),
            timeline("#slow-spinner", &[(40.0, true), (1600.0, false)]),
            timeline("#blink", &[(40.0, true), (1000.0, false), (1100.0, true)]),
            timeline("#appears", &[(40.0, false), (100.0, true)]),
        ]);
        let named: Vec<(&str, FlashKind, f64)> =
            found.flashes.iter().map(|f| (f.selector.as_str(), f.kind, f.duration_ms)).collect();
        assert_eq!(
            named,
            vec![("#flash", FlashKind::ShownThenHidden, 150.0), ("#blink", FlashKind::HiddenThenShown, 100.0)]
        );
        assert_eq!(found.summary, "2 elements flickered: #flash (150 ms), #blink (100 ms).");
    }

    #[test]
    fn flash_summary_names_one_or_none() {
        let one = judge_flashes(&[timeline("#toast", &[(40.0, true), (240.5, false)])]);
        assert_eq!(one.summary, "1 element flickered: #toast (200.5 ms).");
        let none = judge_flashes(&[timeline("#late", &[(40.0, false), (900.0, true)])]);
        assert_eq!((none.summary.as_str(), none.flashes.len()), ("No element flickered.", 0));
    }

    #[test]
    fn console_levels_are_checked_and_filtered() {
        assert_eq!(console_levels(&["warn".into(), "error".into()]).unwrap(), vec!["warning", "error"]);
        assert!(console_levels(&["fatal".into()]).unwrap_err().contains("fatal"));
        let entry =
            |level: &str, t: f64| ConsoleEntry { level: level.into(), text: level.into(), location: None, time_ms: t };
        let kept = filter_console(&[entry("log", 5.0), entry("error", 1.0)], &["error".into()]);
        assert_eq!(kept.len(), 1);
        assert_eq!(filter_console(&[entry("log", 5.0), entry("error", 1.0)], &[])[0].level, "error");
    }

    #[test]
    fn console_log_counts_entries_errors_and_failed_requests() {
        let entry =
            |level: &str, t: f64| ConsoleEntry { level: level.into(), text: level.into(), location: None, time_ms: t };
        let entries = [entry("error", 5.0), entry("log", 1.0), entry("pageerror", 3.0)];
        let failed = FailedRequest {
            url: "http://x/missing.png".into(),
            status: Some(404),
            failure: None,
            resource_type: "image".into(),
        };
        let all = console_log(&entries, &[], vec![failed.clone()]);
        assert_eq!(all.summary, "3 console entries (2 errors), 1 failed request.");
        assert_eq!(all.entries.iter().map(|e| e.time_ms).collect::<Vec<_>>(), vec![1.0, 3.0, 5.0]);
        let logs = console_log(&entries, &["log".into()], vec![failed.clone(), failed.clone()]);
        assert_eq!(logs.summary, "1 console entry (0 errors), 2 failed requests.");
        assert_eq!(console_log(&[], &[], Vec::new()).summary, "0 console entries (0 errors), 0 failed requests.");
        // The status is the page's, whatever levels were asked for.
        assert_eq!(logs.status, "has_errors");
        assert_eq!(console_log(&[entry("log", 1.0)], &[], vec![failed]).status, "has_errors");
        assert_eq!(
            console_log(&[entry("warning", 1.0), entry("log", 2.0)], &["log".into()], Vec::new()).status,
            "has_warnings"
        );
        assert_eq!(console_log(&[entry("info", 1.0)], &[], Vec::new()).status, "clean");
    }

    fn axe_results(violations: serde_json::Value, passes: u64) -> AxeResults {
        serde_json::from_value(serde_json::json!({"axeVersion": "4.10.2", "violations": violations, "passes": passes}))
            .unwrap()
    }

    fn violation(id: &str, impact: &str, node_count: u64) -> serde_json::Value {
        serde_json::json!({"id": id, "impact": impact, "description": "d", "help": "h",
            "helpUrl": format!("https://dequeuniversity.com/rules/axe/4.10/{id}"),
            "nodes": [{"target": "#x", "html": "<img id=\"x\">", "failureSummary": "Fix any of the following"}],
            "nodeCount": node_count})
    }

    #[test]
    fn axe_summary_counts_violations_and_nodes() {
        let two = summarise_axe(axe_results(
            serde_json::json!([violation("button-name", "critical", 1), violation("image-alt", "serious", 3)]),
            20,
        ));
        assert_eq!(two.summary, "2 violations on 4 nodes: button-name (critical), image-alt (serious).");
        assert_eq!(two.axe_version.as_deref(), Some("4.10.2"));
        let one = summarise_axe(axe_results(serde_json::json!([violation("image-alt", "critical", 1)]), 20));
        assert_eq!(one.summary, "1 violation on 1 node: image-alt (critical).");
        let none = summarise_axe(axe_results(serde_json::json!([]), 1));
        assert_eq!(none.summary, "No accessibility violations (1 rules passed).");
    }

    #[test]
    fn axe_violations_render_as_the_worker_sent_them() {
        // The audit passes axe's verdicts through: reading and writing them changes nothing.
        let sent = serde_json::json!([violation("image-alt", "critical", 1)]);
        let audit = summarise_axe(axe_results(sent.clone(), 0));
        assert_eq!(serde_json::to_value(&audit.violations).unwrap(), sent);
    }
}
