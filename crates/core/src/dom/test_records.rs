//! Test fixtures shared by the DOM layer's unit tests: a small page as a DOM record built
//! element by element, and shorthands to parse, compare and attribute records.

use serde_json::{Value, json};

use super::{DomComparison, DomSnapshot, attribute_regions, compare_dom, parse_dom};
use crate::regions::ElementRole;
use crate::regions::{Classification, Region};
use crate::shift::PageShift;

pub(crate) const BLACK: &str = "rgb(0, 0, 0)";
pub(crate) const BLUE: &str = "rgb(37, 99, 235)";
pub(crate) const CLEAR: &str = "rgba(0, 0, 0, 0)";

pub(crate) fn el(parent: i64, tag: &str, selector: &str, bounds: [f64; 4], text: Option<&str>) -> Value {
    json!({ "parent": parent, "tag": tag, "selector": selector, "box": bounds, "text": text,
            "image": null, "styles": [BLACK, CLEAR, "16px"], "masked": false })
}

/// body > header > h1, main > two cards with a paragraph each, footer.
pub(crate) fn page() -> Value {
    json!({
        "version": 1, "url": "http://localhost:3000/", "viewport": { "width": 800, "height": 600 },
        "devicePixelRatio": 1, "document": { "width": 800, "height": 600 },
        "styleProperties": ["color", "background-color", "font-size"],
        "elements": [
            el(-1, "body", "body", [0.0, 0.0, 800.0, 600.0], None),
            el(0, "header", "body > header", [0.0, 0.0, 800.0, 60.0], None),
            el(1, "h1", "body > header > h1", [20.0, 10.0, 300.0, 40.0], Some("a1")),
            el(0, "main", "body > main", [0.0, 60.0, 800.0, 500.0], None),
            el(3, "div", "#card-a", [20.0, 80.0, 240.0, 200.0], None),
            el(4, "p", "#card-a > p", [30.0, 90.0, 220.0, 40.0], Some("b2")),
            el(3, "div", "#card-b", [280.0, 80.0, 240.0, 200.0], None),
            el(6, "p", "#card-b > p", [290.0, 90.0, 220.0, 40.0], Some("c3")),
            el(0, "footer", "body > footer", [0.0, 560.0, 800.0, 40.0], Some("d4")),
        ],
        "fonts": [{ "family": "Inter", "status": "loaded" }],
        "brokenImages": []
    })
}

/// `v` (a version 1 record, as `page()`) as the collector writes version 2: each distinct list of
/// values once, in `styleRows`, and each element's index into it.
pub(crate) fn with_style_rows(v: &Value) -> Value {
    let mut v = v.clone();
    let mut rows: Vec<Value> = Vec::new();
    for e in v["elements"].as_array_mut().unwrap() {
        let values = e.as_object_mut().unwrap().remove("styles").unwrap();
        let row = rows.iter().position(|r| *r == values).unwrap_or_else(|| {
            rows.push(values);
            rows.len() - 1
        });
        e["style"] = json!(row);
    }
    v["version"] = json!(2);
    v["styleRows"] = Value::Array(rows);
    v
}

pub(crate) fn parse(v: &Value) -> DomSnapshot {
    parse_dom(&v.to_string()).unwrap()
}

pub(crate) fn compare(a: &Value, b: &Value) -> DomComparison {
    compare_dom(&parse(a), &parse(b))
}

pub(crate) fn region(x: u32, y: u32, width: u32, height: u32) -> Region {
    Region {
        x,
        y,
        width,
        height,
        diff_pixels: 1,
        diff_percent: 1.0,
        classification: Classification::Change,
        elements: Vec::new(),
        samples: Vec::new(),
    }
}

pub(crate) fn attribute(
    a: &Value,
    b: &Value,
    regions: &[Region],
    shift: Option<PageShift>,
) -> Vec<Vec<(String, ElementRole)>> {
    let (a, b) = (parse(a), parse(b));
    let dom = compare_dom(&a, &b);
    attribute_regions(regions, &a, &b, &dom, shift)
        .into_iter()
        .map(|list| list.into_iter().map(|e| (e.selector, e.role)).collect())
        .collect()
}

pub(crate) fn named(list: &[(&str, ElementRole)]) -> Vec<(String, ElementRole)> {
    list.iter().map(|&(s, r)| (s.to_owned(), r)).collect()
}
