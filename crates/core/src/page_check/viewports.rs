//! `test_viewports`' judgement: at each size the worker laid the page out at, whether it scrolls
//! sideways and which elements make it (the horizontal-overflow finder over that size's DOM
//! record), whether the asked element shows, and the one line per size that says so.

use serde::{Deserialize, Serialize};

use super::{PageDetails, PageFacts, horizontal_overflow, round2};
use crate::dom::DomSnapshot;

/// What the worker reports about the asked element at one size (`elementFactsInPage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElementPresence {
    /// The selector the caller asked about.
    pub selector: String,
    /// Something matches it.
    pub found: bool,
    /// It renders (`checkVisibility` with opacity and visibility); absent when not found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rendered: Option<bool>,
    /// Its border box `[x, y, w, h]` in page pixels, rounded; absent when not found.
    #[serde(rename = "box", default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<[i64; 4]>,
    /// Some of it lies inside the viewport; absent when not found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_viewport: Option<bool>,
}

/// The sizes tested when the caller names none: a phone, a tablet, a desktop.
pub const DEFAULT_BREAKPOINTS: [(&str, u32, u32); 3] =
    [("mobile", 375, 667), ("tablet", 768, 1024), ("desktop", 1920, 1080)];

/// One size as the worker measured it.
#[derive(Debug, Clone)]
pub struct BreakpointFacts {
    /// The caller's name for the size ("mobile"), kept through to the answer.
    pub name: Option<String>,
    pub width: u32,
    pub height: u32,
    /// The collector's DOM record at this size.
    pub dom: DomSnapshot,
    /// The asked element, when the caller named one.
    pub element: Option<ElementPresence>,
    /// The full-page screenshot's path, when one was taken.
    pub screenshot: Option<String>,
}

/// An element that makes the page scroll sideways.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OverflowingElement {
    /// The collector's selector; None when no element is to blame (only the document is wide).
    pub selector: Option<String>,
    /// Its right edge in page pixels; None with no selector.
    pub right: Option<f64>,
    /// The horizontal-overflow finder's sentence.
    pub message: String,
}

/// One size, judged.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BreakpointFit {
    /// The caller's name for the size, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub width: u32,
    pub height: u32,
    /// The document is wider than the viewport: the page scrolls sideways.
    pub horizontal_overflow: bool,
    pub document_width: f64,
    /// The outermost elements past the right edge (at most 20).
    pub overflowing: Vec<OverflowingElement>,
    pub element: Option<ElementPresence>,
    pub screenshot: Option<String>,
}

impl BreakpointFit {
    /// "mobile 375×667: scrolls sideways (1616 px wide); element visible", "768×1024: fits".
    pub fn line(&self) -> String {
        let fit = if self.horizontal_overflow {
            format!("scrolls sideways ({} px wide)", self.document_width)
        } else {
            "fits".into()
        };
        let element = match &self.element {
            None => String::new(),
            Some(e) if !e.found => format!("; {} not found", e.selector),
            Some(e) => format!("; element {}", if e.rendered == Some(true) { "visible" } else { "hidden" }),
        };
        let name = self.name.as_ref().map(|n| format!("{n} ")).unwrap_or_default();
        format!("{name}{}×{}: {fit}{element}", self.width, self.height)
    }
}

/// `test_viewports`' answer: every size judged, and their lines joined in one summary.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ViewportsCheck {
    /// The sizes' lines, joined by " | ".
    pub summary: String,
    pub breakpoints: Vec<BreakpointFit>,
}

/// Judges every size in the order measured.
pub fn check_viewports(breakpoints: Vec<BreakpointFacts>) -> ViewportsCheck {
    let breakpoints: Vec<BreakpointFit> = breakpoints.into_iter().map(judge_breakpoint).collect();
    let summary = breakpoints.iter().map(BreakpointFit::line).collect::<Vec<_>>().join(" | ");
    ViewportsCheck { summary, breakpoints }
}

fn judge_breakpoint(facts: BreakpointFacts) -> BreakpointFit {
    let document_width = facts.dom.document.width;
    // The overflow finder reads the DOM record alone; the other facts stay empty.
    let page =
        PageFacts { dom: facts.dom, details: PageDetails::default(), console: Vec::new(), failed_requests: Vec::new() };
    let overflowing: Vec<OverflowingElement> = horizontal_overflow(&page)
        .into_iter()
        .map(|i| OverflowingElement {
            selector: i.selector,
            // The right edge the finder measured: its box's, rounded as it rounds it.
            right: i.bounds.map(|[x, _, w, _]| round2(x + w)),
            message: i.message,
        })
        .collect();
    BreakpointFit {
        name: facts.name,
        width: facts.width,
        height: facts.height,
        horizontal_overflow: !overflowing.is_empty(),
        document_width,
        overflowing,
        element: facts.element,
        screenshot: facts.screenshot,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_facts::{element, facts};
    use super::*;

    fn at(width: u32, height: u32, document_width: f64, present: Option<ElementPresence>) -> BreakpointFacts {
        let dom = facts(
            document_width,
            (width as f64, height as f64),
            &[
                element(-1, "body", "body", [0.0, 0.0, width as f64, 400.0], false, &[]),
                element(0, "div", "#wide", [16.0, 0.0, document_width - 16.0, 20.0], false, &[]),
            ],
            r#"{"elements":[]}"#,
        )
        .dom;
        BreakpointFacts {
            name: None,
            width,
            height,
            dom,
            element: present,
            screenshot: Some(format!("/tmp/viewport-{width}.png")),
        }
    }

    fn presence(value: serde_json::Value) -> Option<ElementPresence> {
        Some(serde_json::from_value(value).unwrap())
    }

    #[test]
    fn viewports_name_the_overflow_and_the_element_per_size() {
        let check = check_viewports(vec![
            at(
                375,
                667,
                1616.0,
                presence(json!({"selector": "#tiny", "found": true, "rendered": true,
                "box": [16, 276, 16, 16], "inViewport": true})),
            ),
            at(
                768,
                1024,
                768.0,
                presence(json!({"selector": "#tiny", "found": true, "rendered": false,
                "box": [0, 0, 0, 0], "inViewport": false})),
            ),
            at(1920, 1080, 1920.0, presence(json!({"selector": "#tiny", "found": false}))),
        ]);
        assert_eq!(
            check.summary,
            "375×667: scrolls sideways (1616 px wide); element visible | 768×1024: fits; element hidden | \
             1920×1080: fits; #tiny not found"
        );
        assert_eq!(
            check.breakpoints[0].overflowing,
            vec![OverflowingElement {
                selector: Some("#wide".into()),
                right: Some(1616.0),
                message: "#wide reaches x = 1616 px, 1241 px past the 375 px viewport: the page scrolls sideways \
                          (document 1616 px wide)."
                    .into(),
            }]
        );
        assert_eq!(check.breakpoints.iter().map(|b| b.horizontal_overflow).collect::<Vec<_>>(), [true, false, false]);
        assert_eq!(check_viewports(vec![at(768, 1024, 768.0, None)]).summary, "768×1024: fits");
    }

    #[test]
    fn viewports_element_renders_as_the_worker_sent_it() {
        // Rendered back, the worker's facts are unchanged (no keys added to a missing element,
        // whole-pixel boxes stay whole).
        for sent in [
            json!({"selector": "#tiny", "found": true, "rendered": true, "box": [16, 276, 16, 16], "inViewport": true}),
            json!({"selector": "#nope", "found": false}),
        ] {
            let element: ElementPresence = serde_json::from_value(sent.clone()).unwrap();
            assert_eq!(serde_json::to_value(&element).unwrap(), sent);
        }
        let row = serde_json::to_value(&check_viewports(vec![at(375, 667, 375.0, None)]).breakpoints[0]).unwrap();
        assert_eq!(
            row,
            json!({"width": 375, "height": 667, "horizontalOverflow": false, "documentWidth": 375.0,
                   "overflowing": [], "element": null, "screenshot": "/tmp/viewport-375.png"})
        );
    }
}
