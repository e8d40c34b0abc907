//! Test fixtures shared by the finders' unit tests: a DOM record built element by element with
//! default computed styles, the worker's details for text elements, and issues as (kind, selector).

use serde_json::{Value, json};

use super::{IssueKind, PageCheck, PageFacts};
use crate::dom::parse_dom;

const PROPS: &str = r#"["color","background-color","overflow-x","overflow-y","text-overflow","visibility","opacity","font-size","font-weight","font-family","position","display","float","clip","clip-path"]"#;

/// One element line of a DOM record: (parent, tag, selector, box, has text, styles overrides).
pub(super) fn element(
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
        ("float", "none"),
        ("clip", "auto"),
        ("clip-path", "none"),
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

pub(super) fn facts(document_width: f64, viewport: (f64, f64), elements: &[String], details: &str) -> PageFacts {
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

pub(super) fn detail(selector: &str, rects: &[[f64; 4]]) -> Value {
    json!({"selector": selector, "ownText": true, "textRects": rects, "scroll": [0, 0, 0, 0],
           "backgrounds": ["rgb(255, 255, 255)"], "opacity": 1})
}

pub(super) fn kinds(check: &PageCheck) -> Vec<(IssueKind, Option<&str>)> {
    check.issues.iter().map(|i| (i.kind, i.selector.as_deref())).collect()
}
