//! The text finders: text cut off by a box that hides its overflow (`clipped-text`), and text
//! whose line boxes cover another element's (`overlapping-text`). Both read the text line boxes
//! the worker measured.

use std::collections::HashSet;

use serde_json::json;

use super::{
    Axis, EDGE_TOLERANCE, IssueKind, MAX_PER_FINDER, OVERLAP_MIN_PX, Page, PageIssue, Severity, measured, round2,
};

/// Share of a line's height its glyph box may pass a clipping box vertically without losing text.
const VERTICAL_GLYPH_SLACK: f64 = 0.2;
/// Two text line boxes overlap when they share at least [`OVERLAP_MIN_PX`] in both directions
/// and at least this fraction of the smaller line's height (tight line-heights let glyph boxes
/// of adjacent lines touch by a pixel or two).
const OVERLAP_MIN_HEIGHT_FRACTION: f64 = 0.25;

impl Page<'_> {
    /// Text whose own line boxes run past an element that hides its overflow (itself or an
    /// ancestor), unless that element truncates on purpose (`text-overflow: ellipsis`) or is a
    /// visually-hidden 1 px box.
    pub(super) fn clipped_text(&self) -> Vec<PageIssue> {
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
    pub(super) fn overlapping_text(&self) -> Vec<PageIssue> {
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
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_facts::{detail, element, facts, kinds};
    use super::super::*;

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
}
