//! The overlapping-boxes finder: painted boxes (a background, a border, a shadow, an image or
//! another replaced element) laid over each other although the page's layout keeps them apart —
//! a box pulled up by a negative margin, a fixed-height card whose picture spills onto the next.
//! It needs no text, so it sees what the overlapping-text finder cannot.
//!
//! Overlap by design is left out, each for its reason: a box inside the other (that is nesting);
//! anything positioned `absolute`, `fixed` or `sticky` or floated, itself or up to where the two
//! meet in the DOM (headers, badges, menus, dialogs, copy buttons, and blocks running under a
//! float as CSS defines); items of one grid (a grid stacks its items in one cell on purpose);
//! table parts (collapsed borders share their edge); non-replaced inline boxes (a link or code
//! span broken over two lines has a bounding box over both lines, which is not what paints).
//! Touching is not overlapping: boxes must share at least [`OVERLAP_MIN_PX`] both ways.

use std::collections::HashSet;

use serde_json::json;

use super::{IssueKind, MAX_PER_FINDER, OVERLAP_MIN_PX, Page, PageIssue, Severity, measured, round2};

/// Elements whose content is not laid out by CSS inside them: each paints as one box even when
/// it is `display: inline`.
const REPLACED: [&str; 10] =
    ["img", "svg", "video", "canvas", "iframe", "object", "embed", "input", "select", "textarea"];

impl Page<'_> {
    /// Taken out of the flow: positioned over others or floated (see the module doc).
    fn out_of_flow(&self, element: usize) -> bool {
        matches!(self.style(element, "position"), "absolute" | "fixed" | "sticky")
            || !matches!(self.style(element, "float"), "none" | "")
    }

    /// The nearest element holding both.
    fn common_ancestor(&self, a: usize, b: usize) -> Option<usize> {
        let above_a: HashSet<usize> = self.ancestors(a).collect();
        self.ancestors(b).find(|p| above_a.contains(p))
    }

    /// The two boxes may overlap by design (see the module doc).
    fn overlap_by_design(&self, a: usize, b: usize) -> bool {
        let common = self.common_ancestor(a, b);
        let branch = |e: usize| {
            std::iter::once(e).chain(self.ancestors(e)).take_while(move |&x| Some(x) != common).collect::<Vec<_>>()
        };
        let grid = common.is_some_and(|c| self.style(c, "display").ends_with("grid"));
        let table = self.style(a, "display").starts_with("table") && self.style(b, "display").starts_with("table");
        grid || table || branch(a).into_iter().chain(branch(b)).any(|x| self.out_of_flow(x))
    }

    /// Pairs of painted boxes without text of their own in common that cover each other. The
    /// later one in document order (painted on top in the flow) is named, the other in
    /// `measured.overlaps`; when a box and a box inside it both cover another, only the outer
    /// pair is listed.
    pub(super) fn overlapping_boxes(&self) -> Vec<PageIssue> {
        let boxes: Vec<(usize, [f64; 4])> = self
            .details()
            .filter(|(i, d)| {
                let tag = self.facts.dom.elements[*i].tag.as_str();
                d.paints
                    && d.opacity > 0.0
                    && !self.invisible(*i)
                    && (self.style(*i, "display") != "inline" || REPLACED.contains(&tag))
            })
            .filter_map(|(i, _)| Some((i, self.shown_box(i)?)))
            .collect();
        let mut pairs: Vec<(usize, usize, [f64; 4])> = Vec::new();
        for (n, &(a, ra)) in boxes.iter().enumerate() {
            for &(b, rb) in &boxes[n + 1..] {
                let left = ra[0].max(rb[0]);
                let top = ra[1].max(rb[1]);
                let w = (ra[0] + ra[2]).min(rb[0] + rb[2]) - left;
                let h = (ra[1] + ra[3]).min(rb[1] + rb[3]) - top;
                if w < OVERLAP_MIN_PX || h < OVERLAP_MIN_PX || self.inside(a, b) || self.inside(b, a) {
                    continue;
                }
                if !self.overlap_by_design(a, b) {
                    // Record index order is document order: b comes later.
                    pairs.push((a, b, [left, top, w, h]));
                }
            }
        }
        let listed: HashSet<(usize, usize)> = pairs.iter().map(|&(a, b, _)| (a, b)).collect();
        let outer = |a: usize, b: usize| {
            !self.ancestors(a).any(|x| listed.contains(&(x, b)) || listed.contains(&(b, x)))
                && !self.ancestors(b).any(|x| listed.contains(&(a, x)) || listed.contains(&(x, a)))
        };
        pairs
            .into_iter()
            .filter(|&(a, b, _)| outer(a, b))
            .take(MAX_PER_FINDER)
            .map(|(under, over, [x, y, w, h])| {
                let (under_sel, over_sel) = (self.selector(under), self.selector(over));
                let (w, h) = (round2(w), round2(h));
                let area = round2(w * h);
                PageIssue {
                    kind: IssueKind::OverlappingBoxes,
                    severity: Severity::Warning,
                    selector: Some(over_sel.clone()),
                    bounds: Some(self.bounds(over)),
                    message: format!(
                        "{over_sel} is painted over {under_sel}: their boxes share {w} × {h} px ({area} px²) although \
                         neither is positioned, floated or inside the other."
                    ),
                    measured: measured(&[
                        ("overlaps", json!(under_sel)),
                        ("overlapsBox", json!(self.bounds(under))),
                        ("overlap", json!([round2(x), round2(y), w, h])),
                        ("overlapArea", json!(area)),
                    ]),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_facts::{element, facts, kinds};
    use super::super::*;

    fn painted(selector: &str) -> serde_json::Value {
        json!({"selector": selector, "paints": true, "opacity": 1})
    }

    #[test]
    fn page_check_overlapping_boxes_in_the_flow_but_not_by_design() {
        let f = facts(
            1280.0,
            (1280.0, 800.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 1280.0, 800.0], false, &[]),
                // a card pulled up over the one before it by a negative margin: the outer pair is
                // named, not also the first card's inner box
                element(0, "div", "#first", [16.0, 0.0, 300.0, 100.0], false, &[]),
                element(1, "div", "#first > div", [16.0, 40.0, 300.0, 50.0], false, &[]),
                element(0, "div", "#second", [16.0, 70.0, 300.0, 100.0], false, &[]),
                // a badge placed over a picture; a float and a block running under it
                element(0, "div", "#card", [400.0, 0.0, 200.0, 200.0], false, &[("position", "relative")]),
                element(4, "img", "#photo", [400.0, 0.0, 200.0, 150.0], false, &[("display", "inline")]),
                element(4, "span", "#badge", [560.0, 10.0, 30.0, 30.0], false, &[("position", "absolute")]),
                element(0, "img", "#float", [700.0, 0.0, 100.0, 100.0], false, &[("float", "left")]),
                element(0, "div", "#note", [700.0, 20.0, 400.0, 60.0], false, &[]),
                // a grid stacking a caption box on its picture; an inline code span over two lines
                element(0, "div", "#hero", [0.0, 300.0, 600.0, 200.0], false, &[("display", "grid")]),
                element(9, "img", "#hero-img", [0.0, 300.0, 600.0, 200.0], false, &[]),
                element(9, "div", "#hero-text", [20.0, 420.0, 300.0, 60.0], false, &[]),
                element(0, "code", "#wrapped", [0.0, 520.0, 600.0, 40.0], true, &[("display", "inline")]),
                element(0, "code", "#next-line", [10.0, 540.0, 100.0, 18.0], true, &[("display", "inline")]),
                // borders of a collapsed table touch by a pixel
                element(0, "div", "#a", [0.0, 600.0, 100.0, 20.0], false, &[]),
                element(0, "div", "#b", [0.0, 619.0, 100.0, 20.0], false, &[]),
            ],
            &json!({"elements": ([
                "#first", "#first > div", "#second", "#card", "#photo", "#badge", "#float", "#note", "#hero", "#hero-img",
                "#hero-text", "#wrapped", "#next-line", "#a", "#b",
            ]
            .map(painted))})
            .to_string(),
        );
        let check = check_page(&f, ViewportKind::Desktop);
        assert_eq!(kinds(&check), vec![(IssueKind::OverlappingBoxes, Some("#second"))]);
        let issue = &check.issues[0];
        assert_eq!(
            issue.measured,
            measured(&[
                ("overlaps", json!("#first")),
                ("overlapsBox", json!([16.0, 0.0, 300.0, 100.0])),
                ("overlap", json!([16.0, 70.0, 300.0, 30.0])),
                ("overlapArea", json!(9000.0)),
            ])
        );
        assert_eq!(
            issue.message,
            "#second is painted over #first: their boxes share 300 × 30 px (9000 px²) although neither is positioned, \
             floated or inside the other."
        );
    }
}
