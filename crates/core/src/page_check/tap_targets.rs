//! The tap-target finder (mobile only): interactive elements under the WCAG 2.2 minimum size.

use serde_json::json;

use super::{IssueKind, MAX_PER_FINDER, Page, PageIssue, Severity, measured};

/// Smallest tap target on a phone, in CSS pixels (WCAG 2.2 SC 2.5.8, target size minimum).
pub const MIN_TAP_TARGET: f64 = 24.0;

impl Page<'_> {
    /// Interactive elements smaller than 24 × 24 px on a phone, except links inside a sentence
    /// (WCAG 2.5.8's inline exception).
    pub(super) fn small_tap_targets(&self) -> Vec<PageIssue> {
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

#[cfg(test)]
mod tests {
    use super::super::test_facts::{element, facts, kinds};
    use super::super::*;

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
}
