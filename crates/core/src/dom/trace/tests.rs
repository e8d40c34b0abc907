//! The trace of restyled elements from the page's answers: cascade, tokens, files and lines.

use serde_json::json;

use super::*;

fn at(file: &str, line: u32, column: u32) -> Location {
    Location { file: file.into(), line, column, inline: false }
}

#[test]
fn names_the_rule_token_file_and_line_behind_each_restyled_value() {
    let change =
        |selector: &str, property: &str| json!({ "selector": selector, "property": property, "from": "a", "to": "b" });
    let dom: DomComparison = serde_json::from_value(json!({
        "changed": false, "noiseHint": true,
        "added": { "count": 0, "elements": [] }, "removed": { "count": 0, "elements": [] },
        "modified": { "count": 0, "elements": [] }, "styleCheck": "mismatch",
        "styleChanges": {
            "count": 4, "elements": [], "propertyCount": 5, "mostCommon": [],
            "properties": [
                change("body > a.btn", "background-color"), change("body > h1", "font-size"),
                change("body > p", "color"), change("body > p", "border-top-color"), change("#gone", "color"),
            ],
        },
        "geometryChanges": { "count": 0, "resizedCount": 0, "resized": [], "movedCount": 0, "moved": [] },
        "tokenChanges": [{ "name": "--brand", "from": "#010203", "to": "#040506" }],
    }))
    .unwrap();
    let request = TraceRequest::for_changes(&dom).unwrap();
    assert_eq!(request.selectors.len(), 4);
    assert_eq!(
        request.names,
        [
            "background-color",
            "background",
            "font-size",
            "font",
            "color",
            "border-top-color",
            "border-color",
            "border-top",
            "border"
        ]
    );
    // The bundle's line 0 came from tokens.css line 0, its line 1 from button.css line 2.
    let map = r#"{"version":3,"sources":["../src/tokens.css","../src/button.css"],"names":[],"mappings":"AAAA;ACEA"}"#;
    let rules: PageRules = serde_json::from_value(json!({
        "sheets": [
            { "id": "1", "url": "http://x.test/dist/app.css", "inline": false, "startLine": 0, "startColumn": 0 },
            { "id": "2", "url": "http://x.test/shop", "inline": true, "startLine": 10, "startColumn": 4 },
        ],
        "elements": [
            {
                "found": true,
                "own": [{ "origin": "regular", "selector": ".btn", "sheet": "1",
                          "declarations": [{ "name": "background", "value": "var(--brand)", "line": 1, "column": 7 }] }],
                "inherited": [[{ "origin": "regular", "selector": ":root", "sheet": "1",
                                 "declarations": [{ "name": "--brand", "value": "#040506", "line": 0, "column": 8 }] }]],
            },
            { "found": true, "inherited": [],
              "own": [{ "origin": "userAgent", "selector": "h1", "sheet": null, "declarations": [{ "name": "font-size", "value": "2em" }] }] },
            { "found": true, "inherited": [], "own": [
                { "origin": "regular", "selector": "p", "sheet": "2", "declarations": [{ "name": "color", "value": "red", "line": 0, "column": 2 }] },
                { "origin": "attribute", "selector": "style", "sheet": null, "declarations": [{ "name": "color", "value": "blue" }] },
            ] },
            { "found": false, "own": [], "inherited": [] },
        ],
        "sourceMaps": [
            { "sheet": "1", "url": "http://x.test/dist/app.css.map", "text": map },
            { "sheet": "2", "url": "http://x.test/broken.map", "error": "HTTP 404" },
        ],
    }))
    .unwrap();
    let trace = trace_styles(&dom, &request, &rules, "http://x.test/shop").unwrap();
    let sources: Vec<&Source> = trace.changes.iter().map(|c| &c.source).collect();
    assert_eq!(
        sources,
        [
            &Source::Rule {
                selector: ".btn".into(),
                at: at("/dist/app.css", 2, 8),
                original: Some(at("src/button.css", 3, 1))
            },
            &Source::UserAgent { selector: "h1".into() },
            &Source::StyleAttribute,
            &Source::Unset,
            &Source::NotFound,
        ]
    );
    assert_eq!((trace.traced, trace.untraced), (3, 1));
    assert_eq!(trace.changes[0].declaration.as_deref(), Some("background: var(--brand)"));
    assert_eq!(trace.tokens.len(), 1);
    assert_eq!(
        trace.tokens[0].describe(),
        "token --brand #010203 → #040506 (src/tokens.css:1), used by 1 restyled element"
    );
    assert_eq!(
        trace.verdict_note().unwrap(),
        "token --brand #010203 → #040506 (src/tokens.css:1), used by 1 restyled element"
    );
    assert_eq!(trace.source_map_errors, ["http://x.test/broken.map: HTTP 404"]);
    assert_eq!(
        trace.lines(10),
        [
            "token --brand #010203 → #040506 (src/tokens.css:1), used by 1 restyled element",
            "body > a.btn background-color: a → b — .btn in src/button.css:3 (/dist/app.css:2) (background: var(--brand))",
            "body > h1 font-size: a → b — the browser's default (h1) (font-size: 2em)",
            "body > p color: a → b — the element's style attribute (color: blue)",
            "#gone color: a → b — not found on the page",
            "1 changed value follows another (no rule sets it, as border colours follow color)",
            "source map not used: http://x.test/broken.map: HTTP 404",
        ]
    );
}

#[test]
fn an_answer_for_other_elements_is_refused() {
    let dom: DomComparison = serde_json::from_value(json!({
        "changed": false, "noiseHint": true,
        "added": { "count": 0, "elements": [] }, "removed": { "count": 0, "elements": [] },
        "modified": { "count": 0, "elements": [] }, "styleCheck": "mismatch",
        "styleChanges": { "count": 1, "elements": [], "propertyCount": 1, "mostCommon": [],
                          "properties": [{ "selector": "p", "property": "color", "from": "a", "to": "b" }] },
        "geometryChanges": { "count": 0, "resizedCount": 0, "resized": [], "movedCount": 0, "moved": [] },
    }))
    .unwrap();
    let request = TraceRequest::for_changes(&dom).unwrap();
    let err = trace_styles(&dom, &request, &PageRules::default(), "").unwrap_err();
    assert_eq!(err.to_string(), "style trace: 0 elements answered for 1 asked");
}

#[test]
fn a_token_declared_on_an_ancestor_is_read_with_its_change() {
    // `.card { --accent }` changed on both cards; the root also has an --accent, unchanged.
    let change = |selector: &str| json!({ "selector": selector, "property": "color", "from": "a", "to": "b" });
    let dom: DomComparison = serde_json::from_value(json!({
        "changed": false, "noiseHint": true,
        "added": { "count": 0, "elements": [] }, "removed": { "count": 0, "elements": [] },
        "modified": { "count": 0, "elements": [] }, "styleCheck": "mismatch",
        "styleChanges": {
            "count": 2, "elements": [], "propertyCount": 2, "mostCommon": [],
            "properties": [change("#card-a > p"), change("body > main > div:nth-of-type(3) > p")],
        },
        "geometryChanges": { "count": 0, "resizedCount": 0, "resized": [], "movedCount": 0, "moved": [] },
        "tokenChanges": [{ "name": "--accent", "from": "#0e7490", "to": "#1f6feb",
                           "elements": ["#card-a", "#card-b"], "elementCount": 3 }],
    }))
    .unwrap();
    let request = TraceRequest::for_changes(&dom).unwrap();
    let card = json!({
        "found": true,
        "own": [{ "origin": "regular", "selector": ".card p", "sheet": "1",
                  "declarations": [{ "name": "color", "value": "var(--accent)", "line": 4, "column": 2 }] }],
        "inherited": [[{ "origin": "regular", "selector": ".card", "sheet": "1",
                         "declarations": [{ "name": "--accent", "value": "#1f6feb", "line": 1, "column": 2 }] }]],
    });
    let rules: PageRules = serde_json::from_value(json!({
        "sheets": [{ "id": "1", "url": "http://x.test/card.css", "inline": false, "startLine": 0, "startColumn": 0 }],
        "elements": [card, card],
    }))
    .unwrap();
    let trace = trace_styles(&dom, &request, &rules, "http://x.test/").unwrap();
    // The first reader's card is listed; the third card is not, but the change is the one of its name.
    assert_eq!(
        trace.verdict_note().unwrap(),
        "token --accent #0e7490 → #1f6feb (/card.css:2), used by 2 restyled elements"
    );
}

#[test]
fn trace_a_colour_no_rule_sets_says_it_follows_color() {
    let change = |property: &str, source: Source, declaration: Option<&str>| TracedChange {
        selector: "p.price".into(),
        property: property.into(),
        from: "rgb(37, 99, 235)".into(),
        to: "rgb(220, 38, 38)".into(),
        source,
        declaration: declaration.map(str::to_string),
        token: None,
    };
    assert_eq!(change("border-top-color", Source::Unset, None).source_text(), "follows color (no rule sets it)");
    assert_eq!(change("outline-color", Source::Unset, None).source_text(), "follows color (no rule sets it)");
    assert_eq!(change("margin-top", Source::Unset, None).source_text(), "no rule (the initial or inherited value)");
    assert_eq!(
        change("color", Source::StyleAttribute, Some("color: red")).source_text(),
        "the element's style attribute (color: red)"
    );
}
