//! The rendered page as a whole: escaping, order, counts, image paths and each card's sections.

use serde_json::json;

use super::*;
use crate::grouping::{Group, GroupDetail, GroupMember, GroupSignal};

/// A run with a style-only change (hostile selector), a passed snapshot, a new one with a
/// failed font and a missing baseline: complete results.json entries, read as the types.
fn results() -> Results {
    let dom = |style_check: &str, style_changes: serde_json::Value| {
        json!({
            "changed": false, "noiseHint": true,
            "added": { "count": 0, "elements": [] },
            "removed": { "count": 0, "elements": [] },
            "modified": { "count": 0, "elements": [] },
            "styleCheck": style_check,
            "styleChanges": style_changes,
            "geometryChanges": { "count": 0, "resizedCount": 0, "resized": [], "movedCount": 0, "moved": [] }
        })
    };
    let unchanged_styles =
        json!({ "count": 0, "elements": [], "properties": [], "propertyCount": 0, "mostCommon": [] });
    let hostile = "a.btn<script>alert(1)</script>";
    // One json! per entry: the whole file in one macro call is past its recursion limit.
    let about = json!({
        "name": "about", "project": "chromium", "status": "passed", "autoPassed": false,
        "verdict": "Passed: no pixel differs", "verdictKind": "identical",
        "files": { "baseline": ".sightline/baselines/about/chromium.png",
                   "current": ".sightline/temp/about/chromium.slcap", "diff": null },
        "baselineSize": { "width": 100, "height": 50 }, "currentSize": { "width": 100, "height": 50 },
        "captureHealth": { "unhealthy": false, "reasons": [], "sameOnBothSides": false },
        "layers": {
            "pixel": {
                "diffPixels": 0, "totalPixels": 5000, "diffPercent": 0.0, "antialiasedPixels": 0,
                "match": true, "sizeChanged": false, "comparator": "pixelmatch",
                "baselineSize": { "width": 100, "height": 50 }, "currentSize": { "width": 100, "height": 50 },
                "regions": [], "shift": null, "diffPixelsAfterShift": 0, "shape": null
            },
            "dom": dom("match", unchanged_styles)
        }
    });
    let home = json!({
        "name": "home", "project": "chromium", "status": "changed", "autoPassed": false,
        "verdict": format!("Style-only change: 1 element restyled ({hostile})"), "verdictKind": "styleOnly",
        "files": { "baseline": "visual-report/images/home/chromium-baseline.png",
                   "current": "visual-report/images/home/chromium-current.png",
                   "diff": "visual-report/images/home/chromium-diff.png" },
        "baselineSize": { "width": 200, "height": 400 }, "currentSize": { "width": 200, "height": 400 },
        "captureHealth": { "unhealthy": false, "reasons": [], "sameOnBothSides": false },
        "layers": {
            "pixel": {
                "diffPixels": 1200, "totalPixels": 80000, "diffPercent": 1.5, "antialiasedPixels": 0,
                "match": false, "sizeChanged": false, "comparator": "pixelmatch",
                "baselineSize": { "width": 200, "height": 400 }, "currentSize": { "width": 200, "height": 400 },
                "shape": "concentrated", "shift": null, "diffPixelsAfterShift": 1200,
                "regions": [{
                    "x": 20, "y": 100, "width": 50, "height": 40, "diffPixels": 1200, "diffPercent": 60.0,
                    "classification": "change",
                    "elements": [{ "selector": hostile, "role": "changed" }]
                }]
            },
            "dom": dom("mismatch", json!({
                "count": 1, "elements": [hostile], "propertyCount": 2,
                "properties": [
                    { "selector": hostile, "property": "background-color",
                      "from": "rgb(37, 99, 235)", "to": "rgb(220, 38, 38)" },
                    { "selector": hostile, "property": "font-weight", "from": "400", "to": "700" }
                ],
                "mostCommon": [{ "property": "background-color", "from": "rgb(37, 99, 235)",
                                 "to": "rgb(220, 38, 38)", "count": 1 }]
            }))
        }
    });
    let signup = json!({
        "name": "signup", "project": "chromium", "status": "new", "autoPassed": false,
        "verdict": "New: no baseline yet", "verdictKind": "new",
        "files": { "baseline": null, "current": "visual-report/images/signup/chromium-current.png", "diff": null },
        "baselineSize": null, "currentSize": { "width": 100, "height": 100 },
        "layers": { "pixel": null, "dom": null },
        "captureHealth": { "unhealthy": true, "sameOnBothSides": false,
                           "reasons": [{ "kind": "font", "url": "https://x.test/f.woff2?a=1&b=2", "detail": "HTTP 404" }] }
    });
    let value = json!({
        "version": 1,
        "createdAt": "2026-01-02T03:04:05Z",
        "tool": { "name": "sightline", "version": "0.1.0" },
        "run": { "mode": "compare", "shard": null, "root": "/p", "config": {}, "filtered": false },
        "summary": { "total": 3, "passed": 1, "changed": 1, "new": 1, "missing": 1, "autoPassed": 0 },
        "snapshots": [about, home, signup],
        "groups": [],
        "missingBaselines": [
            { "name": "old-page", "project": "chromium", "files": { "baseline": ".sightline/baselines/old-page/chromium.png" } }
        ]
    });
    serde_json::from_value(value).expect("a complete results.json")
}

/// The HTML of the card whose `data-name` is `name`.
fn card<'a>(html: &'a str, name: &str) -> &'a str {
    let at = html.find(&format!("data-name=\"{name}\"")).expect(name);
    let start = html[..at].rfind("<article").expect("card start");
    let end = html[start..].find("</article>").expect("card end") + start;
    &html[start..end]
}

#[test]
fn report_escape_html_escapes_markup_and_quotes() {
    assert_eq!(escape_html(r#"<a href="x">'&'</a>"#), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    assert_eq!(escape_html("body > div.card:nth-of-type(2)"), "body &gt; div.card:nth-of-type(2)");
    assert_eq!(escape_html("plain"), "plain");
}

#[test]
fn report_strings_from_results_are_escaped() {
    let html = render_report(&results(), "visual-report");
    assert!(!html.contains("<script>alert(1)"), "a selector reached the page unescaped");
    assert!(html.contains("a.btn&lt;script&gt;alert(1)&lt;/script&gt;"));
    // Every place the selector shows in the card, escaped: the verdict, the region box on the
    // current image (twice in its tooltip, once in its label), the style table's two rows
    // and the region table's row. (The failed font's URL is checked below.)
    assert_eq!(card(&html, "home").matches("&lt;script&gt;").count(), 1 + 3 + 2 + 1);
    assert!(html.contains("https://x.test/f.woff2?a=1&amp;b=2"));
    // The page's own script is the only one.
    assert_eq!(html.matches("<script>").count(), 1);
}

#[test]
fn report_summary_counts_and_filters() {
    let html = render_report(&results(), "visual-report");
    for pill in ["1 passed", "1 changed", "1 new", "1 missing", "0 auto-passed", "3 snapshots"] {
        assert!(html.contains(&format!(">{pill}</span>")), "{pill}");
    }
    assert!(html.contains("data-filter=\"changed\" aria-pressed=\"false\">Changed<b>1</b>"));
    assert!(html.contains("data-filter=\"all\" aria-pressed=\"true\">All<b>4</b>"));
    assert!(html.contains("data-filter=\"auto\" aria-pressed=\"false\" disabled>"));
    assert!(html.contains("<time datetime=\"2026-01-02T03:04:05Z\">2026-01-02 03:04:05 UTC</time>"));
    assert!(html.contains("<li>mode compare</li><li>full run</li><li>sightline 0.1.0</li>"));
}

#[test]
fn report_a_shard_is_named_and_explained() {
    let mut results = results();
    results.run.shard = Some(ShardPosition { current: 2, total: 3 });
    let html = render_report(&results, "visual-report");
    assert!(html.contains("<li>full run</li><li>shard 2/3</li>"));
    let note = html.split("<p class=\"note\">").nth(1).unwrap_or_default();
    // The sentence get_visual_results says, escaped.
    let said = super::escape_html(&results.scope_note().unwrap());
    assert!(note.starts_with(&format!("{said}</p>")), "{note}");
    assert!(said.starts_with("Partial results: shard 2/3 compared only its slice (3 snapshots)."), "{said}");
}

#[test]
fn report_orders_changed_and_new_before_passed_and_missing() {
    let html = render_report(&results(), "visual-report");
    let at = |name: &str| html.find(&format!("data-name=\"{name}\"")).expect(name);
    assert!(at("home") < at("signup") && at("signup") < at("about") && at("about") < at("old-page"));
    // Passed cards are collapsed.
    assert!(card(&html, "about").contains("<details>\n<summary>"));
}

#[test]
fn report_marks_the_cards_needing_a_decision_as_the_core_decides_them() {
    let mut results = results();
    results.snapshots[0].status = Status::Written;
    let html = render_review_page(&results, &ReviewPage { version: "v1", decisions: &[] });
    // home changed, signup new: a decision each; about written, old-page missing: none.
    for name in ["home", "signup", "about", "old-page"] {
        let needs = results.snapshots.iter().any(|s| s.name == name && s.status.needs_review());
        assert_eq!(card(&html, name).contains(" data-needs-review"), needs, "{name}");
        // Only a changed snapshot has a baseline to keep beside a new accepted variant.
        let variant = results.snapshots.iter().any(|s| s.name == name && s.status == Status::Changed);
        assert_eq!(card(&html, name).contains(" data-may-become-variant "), variant, "{name}");
    }
    // The review script takes the cards it puts approve and reject on from that mark only.
    assert!(REVIEW_SCRIPT.contains("querySelectorAll('article.card[data-needs-review]')"));
    for status in ["'changed'", "'new'", "'missing'", "'written'", "'passed'"] {
        assert!(!REVIEW_SCRIPT.contains(status), "review.js names the status {status}");
    }
}

#[test]
fn report_shows_a_missing_baseline_and_how_to_remove_it() {
    let html = render_report(&results(), "visual-report");
    let missing = card(&html, "old-page");
    assert!(missing.contains("data-status=\"missing\""));
    // the one file, not the folder: other projects' baselines of the name live there too
    assert!(missing.contains("delete <code>.sightline/baselines/old-page/chromium.png</code> in the same change"));
    assert!(
        missing.contains(
            "Missing snapshot: a baseline is committed but this run captured none; no capture in a full run."
        )
    );
    assert!(missing.contains("src=\"../.sightline/baselines/old-page/chromium.png\""));
}

#[test]
fn report_image_sources_are_relative_to_the_report_folder() {
    let html = render_report(&results(), "visual-report");
    let home = card(&html, "home");
    for kind in ["baseline", "current", "diff"] {
        assert!(home.contains(&format!("src=\"images/home/chromium-{kind}.png\"")), "{kind}");
    }
    assert!(!html.contains("src=\"visual-report/"));
    // A capture artifact is no image; the baseline of a passed snapshot is reached with ../
    let about = card(&html, "about");
    assert!(!about.contains(".slcap"));
    assert!(about.contains("src=\"../.sightline/baselines/about/chromium.png\""));

    let nested = ReportDir::new("./reports/visual/");
    assert_eq!(nested.src("reports/visual/images/a b#1.png").as_deref(), Some("images/a%20b%231.png"));
    assert_eq!(
        nested.src(".sightline/baselines/a/chromium.png").as_deref(),
        Some("../../.sightline/baselines/a/chromium.png")
    );
    assert_eq!(nested.src("reports/visual/images/a/chromium.slcap"), None);
    assert_eq!(ReportDir::new("../out").src("x/y.png"), None);
    assert_eq!(ReportDir::new("/abs/out").src("/abs/out/images/a.png").as_deref(), Some("images/a.png"));
}

#[test]
fn report_changed_card_has_images_slider_regions_and_style_table() {
    let html = render_report(&results(), "visual-report");
    let home = card(&html, "home");
    assert!(home.contains("<p class=\"verdict\">Style-only change: 1 element restyled"));
    assert!(
        home.contains("<span class=\"metrics\">1,200 px differ (1.50 %) · 1 region · concentrated · 200×400</span>")
    );
    // One region at 20,100 50×40 on a 200×400 image, in percent of the natural size.
    assert!(home.contains("left:10.0000%;top:25.0000%;width:25.0000%;height:10.0000%"), "{home}");
    assert!(home.contains("<span><b>1</b><i> change · a.btn&lt;script&gt;alert(1)&lt;/script&gt;</i></span>"));
    assert!(home.contains("<input type=\"range\""));
    assert!(home.contains("<td class=\"val\">background-color</td>"));
    assert!(home.contains(
        "<span class=\"sw\" style=\"--c:rgb(37, 99, 235)\"></span>rgb(37, 99, 235)<span class=\"arrow\">→</span>\
         <span class=\"sw\" style=\"--c:rgb(220, 38, 38)\"></span>rgb(220, 38, 38)"
    ));
    assert!(home.contains(">400<span class=\"arrow\">→</span>700<"), "no swatch for a number");
    assert!(home.contains("npx sightline approve home"));
}

#[test]
fn report_structure_and_geometry_tables() {
    use crate::dom::{
        ContentChange, ElementList, GeometryChanges, ModifiedElement, ModifiedElements, MovedElements, ResizedElement,
    };
    let mut results = results();
    let dom = results.snapshots[1].layers.dom.as_mut().expect("dom layer");
    dom.added = ElementList { count: 12, elements: vec!["#promo".into()] };
    let h1 = ModifiedElement { selector: "h1".into(), changes: vec![ContentChange::Tag, ContentChange::Text] };
    dom.modified = ModifiedElements { count: 1, elements: vec![h1] };
    dom.geometry_changes = GeometryChanges {
        count: 3,
        resized_count: 1,
        resized: vec![ResizedElement {
            selector: "#hero".into(),
            from: [0.0, 0.0, 200.0, 40.0],
            to: [0.0, 0.0, 200.0, 100.0],
            innermost: true,
        }],
        moved_count: 2,
        moved: vec![MovedElements {
            selector: "footer".into(),
            from: [0.0, 300.0, 200.0, 20.0],
            to: [0.0, 360.0, 200.0, 20.0],
            dx: 0.0,
            dy: 60.0,
            count: 2,
        }],
        ..GeometryChanges::default()
    };
    let html = render_report(&results, "visual-report");
    let home = card(&html, "home");
    assert!(home.contains(
        "<div><b>Added</b> <span class=\"n\">12 elements</span><ul class=\"sels\"><li>#promo</li>\
         <li class=\"more\">… and 11 more</li></ul></div>"
    ));
    assert!(home.contains("<li>h1 <span class=\"project\">(tag, text)</span></li>"));
    assert!(!home.contains("<b>Removed</b>"));
    assert!(home.contains("<span class=\"n\">1 resized, 2 moved (CSS px)</span>"));
    assert!(home.contains(
        "<tr><td>resized: height +60 (where it starts)</td><td class=\"sel\">#hero</td>\
         <td class=\"val\">0,0 200×40</td><td class=\"val\">0,0 200×100</td></tr>"
    ));
    assert!(home.contains("<tr><td>moved 0, 60 (2 elements from here on)</td><td class=\"sel\">footer</td>"));
}

#[test]
fn report_new_unhealthy_card_shows_health_and_no_approval_hint() {
    let html = render_report(&results(), "visual-report");
    let signup = card(&html, "signup");
    assert!(signup.contains("Unhealthy capture"));
    assert!(signup.contains("<li>font <code>https://x.test/f.woff2?a=1&amp;b=2</code>: HTTP 404</li>"));
    assert!(!signup.contains("npx sightline approve"));
    assert!(signup.contains("src=\"images/signup/chromium-current.png\""));
    assert!(!signup.contains("class=\"slider\""), "no slider without a baseline");
}

#[test]
fn report_groups_render_only_when_present() {
    let mut results = results();
    assert!(!render_report(&results, "visual-report").contains("class=\"groups\""));
    let member = |name: &str| GroupMember { name: name.into(), project: "chromium".into() };
    results.groups = vec![Group {
        signal: GroupSignal::StyleOnly,
        label: "Same restyle <b>".into(),
        members: vec![member("home"), member("gone")],
        detail: GroupDetail { elements: Some(vec!["a.btn<i>".into()]), ..GroupDetail::default() },
    }];
    let html = render_report(&results, "visual-report");
    assert!(html.contains("<div class=\"glabel\">Same restyle &lt;b&gt;</div>"));
    assert!(html.contains("<div class=\"gdetail\">restyled: <code>a.btn&lt;i&gt;</code></div>"));
    assert!(html.contains("<a href=\"#snap-1\">home <span class=\"project\">chromium</span></a>"));
    assert!(html.contains("<span>gone <span class=\"project\">chromium</span></span>"));
}

#[test]
fn report_many_changes_load_later_cards_lazily() {
    let mut results = results();
    let home = results.snapshots[1].clone();
    results.snapshots = (0..12)
        .map(|i| {
            let mut s = home.clone();
            s.name = format!("page-{i:02}");
            s
        })
        .collect();
    let html = render_report(&results, "visual-report");
    assert!(!card(&html, "page-00").contains("loading=\"lazy\""));
    assert!(!card(&html, "page-09").contains("loading=\"lazy\""));
    assert!(card(&html, "page-10").contains("loading=\"lazy\""));
}

#[test]
fn report_css_color_accepts_colours_only() {
    assert_eq!(css_color("rgb(37, 99, 235)"), Some("rgb(37, 99, 235)"));
    assert_eq!(css_color("rgba(0, 0, 0, 0.1) 0px 1px 2px 0px"), Some("rgba(0, 0, 0, 0.1)"));
    assert_eq!(css_color("#ff0000"), Some("#ff0000"));
    assert_eq!(css_color("transparent"), Some("transparent"));
    assert_eq!(css_color("oklch(0.7 0.1 200 / 50%)"), Some("oklch(0.7 0.1 200 / 50%)"));
    for bad in ["400", "url(x)", "rgb(1;2)", "rgb(\"1\")", "#ggg", "#ff00001", "none", "rgb(1, 2, 3"] {
        assert_eq!(css_color(bad), None, "{bad}");
    }
}

#[test]
fn report_review_page_embeds_its_state_safely_and_an_aligned_diff_for_a_shift() {
    use crate::review::Decision;
    use crate::shift::PageShift;
    let mut results = results();
    results.snapshots[1].layers.pixel.as_mut().unwrap().shift = Some(PageShift { dy: 20, below_y: 100 });
    let hostile = "home</script><script>alert(1)</script>";
    let decisions = [ReviewDecision {
        name: hostile.into(),
        project: "chromium".into(),
        decision: Decision::Rejected,
        capture: "200x400-00".into(),
        baseline: None,
        variant: None,
    }];
    let html = render_review_page(&results, &ReviewPage { version: "v1", decisions: &decisions });
    assert!(html.contains("<title>Sightline review — 3 to review</title>"), "{}", &html[..300]);
    assert!(html.contains("<h1>Sightline review</h1>"));
    // The state's strings cannot close its script element: it parses back whole.
    let open = "<script type=\"application/json\" id=\"review-state\">";
    let start = html.find(open).unwrap() + open.len();
    let state: serde_json::Value =
        serde_json::from_str(&html[start..start + html[start..].find("</script>").unwrap()]).unwrap();
    assert_eq!(state["results"], "v1");
    assert_eq!(state["decisions"][0]["name"], hostile);
    assert_eq!(state["commit"], json!([]));
    // Served from the project root: image paths are the results' own; the shifted snapshot (the
    // second) gets the aligned diff the server draws for this version of results.json.
    let home = card(&html, "home");
    assert!(home.contains("src=\"visual-report/images/home/chromium-current.png\""), "{home}");
    assert!(home.contains("<img src=\"_/aligned/v1/1.png\" alt=\"Aligned diff of home\""), "{home}");
    assert!(home.contains("baseline moved down 20 px below y=100: only what changed is red"));
    assert!(!card(&html, "signup").contains("f-aligned"), "no shift, no aligned diff");
    // The report written with results.json has none of it.
    let report = render_report(&results, "visual-report");
    for review_only in ["review-state", "f-aligned", "reviewbar", "_/aligned"] {
        assert!(!report.contains(review_only), "{review_only}");
    }
}

#[test]
fn report_a_traced_restyle_says_which_rule_set_each_value() {
    let mut results = results();
    let home = results.snapshots.iter_mut().find(|s| s.name == "home").unwrap();
    let dom = home.layers.dom.as_mut().unwrap();
    let selector = dom.style_changes.properties[0].selector.clone();
    dom.style_trace = Some(
        serde_json::from_value(json!({
            "traced": 1, "untraced": 0,
            "changes": [{
                "selector": selector, "property": "background-color", "from": "rgb(37, 99, 235)", "to": "rgb(220, 38, 38)",
                "source": { "kind": "rule", "selector": ".btn<b>", "at": { "file": "/dist/app.css", "line": 9, "column": 3 },
                            "original": { "file": "src/button.css", "line": 4, "column": 3 } },
                "declaration": "background: var(--brand)", "token": "--brand"
            }],
            "tokens": [{ "name": "--brand", "from": "#2563eb", "to": "#dc2626",
                         "declared": { "kind": "rule", "selector": ":root", "at": { "file": "src/tokens.css", "line": 2, "column": 3 } },
                         "usedBy": 1 }],
            "rules": [{ "source": { "kind": "rule", "selector": ".btn<b>", "at": { "file": "/dist/app.css", "line": 9, "column": 3 } }, "elements": 1 }]
        }))
        .unwrap(),
    );
    let html = render_report(&results, "visual-report");
    let home = card(&html, "home");
    assert!(home.contains("<th>Set by</th>"), "{home}");
    assert!(
        home.contains(
            "<p class=\"token\">token --brand #2563eb → #dc2626 (src/tokens.css:2), used by 1 restyled element</p>"
        ),
        "{home}"
    );
    assert!(
        home.contains(
            "<td class=\"val\">.btn&lt;b&gt; in src/button.css:4 (/dist/app.css:9) (background: var(--brand))</td>"
        ),
        "{home}"
    );
}
