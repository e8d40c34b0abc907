//! The horizontal-overflow finder: when the document is wider than the viewport (the page
//! scrolls sideways), the outermost elements reaching past its right edge.

use serde_json::json;

use super::{EDGE_TOLERANCE, IssueKind, MAX_PER_FINDER, Page, PageIssue, Severity, is_root, measured, round2};

impl Page<'_> {
    /// Clips or scrolls: content past its edge is not part of the page's own overflow.
    fn contains_overflow_x(&self, element: usize) -> bool {
        !matches!(self.style(element, "overflow-x"), "visible" | "")
    }

    /// The outermost elements reaching past the right edge of the viewport, when the document is
    /// wider than the viewport (the page scrolls sideways).
    pub(super) fn horizontal_overflow(&self) -> Vec<PageIssue> {
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
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_facts::{element, facts, kinds};
    use super::super::*;

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
}
