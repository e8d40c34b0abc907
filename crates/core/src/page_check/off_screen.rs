//! The off-screen finder: content (text or an image) placed wholly left of or above the page,
//! where no scrolling reaches it.

use std::collections::HashSet;

use serde_json::json;

use super::{IssueKind, MAX_PER_FINDER, Page, PageIssue, Severity, measured};

impl Page<'_> {
    /// Content (text or an image) placed wholly left of or above the page, where no scrolling
    /// reaches it. Skip links (interactive) and visually-hidden 1 px boxes are deliberate.
    pub(super) fn off_screen(&self) -> Vec<PageIssue> {
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
}

#[cfg(test)]
mod tests {
    use super::super::test_facts::{element, facts, kinds};
    use super::super::*;

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
