//! The DOM layer of a card: structural changes, the style table (with colour swatches) and the
//! geometry table, in the order verdicts rank them.

use std::fmt::Write as _;

use super::{css_color, escape_html, num, plural};
use crate::dom::{
    ClassChange, DomComparison, GeometryChanges, ModifiedElement, StyleChanges, StyleTrace, TracedChange,
};
use crate::words::Word;

/// Structural, style and geometry changes of the DOM layer, in the order verdicts rank them.
pub(super) fn dom_sections(out: &mut String, dom: &DomComparison) {
    structure(out, dom);
    // A trace that failed names no rule: the table shows the changes alone.
    style_changes(out, &dom.style_changes, dom.style_trace.as_ref().filter(|t| t.error.is_none()));
    geometry_changes(out, &dom.geometry_changes);
}

/// Added, removed and modified elements of a structural change.
fn structure(out: &mut String, dom: &DomComparison) {
    let selectors = |list: &[String]| list.iter().map(|s| escape_html(s)).collect::<Vec<_>>();
    // (title, element count, the listed elements as HTML)
    let lists = [
        ("Added", dom.added.count, selectors(&dom.added.elements)),
        ("Removed", dom.removed.count, selectors(&dom.removed.elements)),
        ("Modified", dom.modified.count, dom.modified.elements.iter().map(modified_item).collect()),
        ("Class changed", dom.class_changes.count, dom.class_changes.elements.iter().map(class_item).collect()),
    ];
    if lists.iter().all(|(_, n, items)| *n == 0 && items.is_empty()) {
        return;
    }
    out.push_str("<section class=\"structure\"><h4>Structure</h4>\n");
    for (title, count, items) in lists {
        let n = count.max(items.len());
        if n == 0 {
            continue;
        }
        w!(out, "<div><b>{title}</b> <span class=\"n\">{}</span><ul class=\"sels\">", plural(n, "element", "elements"));
        for item in &items {
            w!(out, "<li>{item}</li>");
        }
        if n > items.len() {
            w!(out, "<li class=\"more\">… and {} more</li>", n - items.len());
        }
        out.push_str("</ul></div>\n");
    }
    out.push_str("</section>\n");
}

/// A modified element and what changed on it (`tag, text`).
fn modified_item(element: &ModifiedElement) -> String {
    let mut item = escape_html(&element.selector);
    if !element.changes.is_empty() {
        let changes: Vec<&str> = element.changes.iter().map(|c| c.word()).collect();
        w!(item, " <span class=\"project\">({})</span>", changes.join(", "));
    }
    item
}

/// An element whose classes changed: `tr.row.failed (class passed → failed)`.
fn class_item(change: &ClassChange) -> String {
    format!("{} <span class=\"project\">({})</span>", escape_html(&change.selector), escape_html(&change.sentence()))
}

/// The style table; with a trace, each row says which rule its value comes from (and where it is
/// written), and the changed tokens lead.
fn style_changes(out: &mut String, styles: &StyleChanges, trace: Option<&StyleTrace>) {
    let properties = &styles.properties;
    if properties.is_empty() {
        return;
    }
    let total = styles.property_count.max(properties.len());
    w!(
        out,
        "<section class=\"styles\"><h4>Style changes <span class=\"n\">{} on {}</span></h4>\n",
        plural(total, "property", "properties"),
        plural(styles.count, "element", "elements")
    );
    for token in trace.iter().flat_map(|t| &t.tokens).filter(|t| t.changed()) {
        w!(out, "<p class=\"token\">{}</p>\n", escape_html(&token.describe()));
    }
    let source_column = if trace.is_some() { "<th>Set by</th>" } else { "" };
    w!(
        out,
        "<div class=\"tablewrap\"><table><thead><tr><th>Element</th><th>Property</th><th>Baseline → current</th>{source_column}</tr></thead><tbody>\n"
    );
    for p in properties {
        let source = trace.map(|t| {
            let traced = t.changes.iter().find(|c| c.selector == p.selector && c.property == p.property);
            let text = traced.map_or_else(|| "not traced".to_string(), TracedChange::source_text);
            format!("<td class=\"val\">{}</td>", escape_html(&text))
        });
        w!(
            out,
            "<tr><td class=\"sel\">{}</td><td class=\"val\">{}</td><td class=\"val\">{}<span class=\"arrow\">→</span>{}</td>{}</tr>\n",
            escape_html(&p.selector),
            escape_html(&p.property),
            style_value(&p.from),
            style_value(&p.to),
            source.unwrap_or_default()
        );
    }
    out.push_str("</tbody></table></div>");
    if total > properties.len() {
        w!(out, "<p class=\"more\">The first {} of {total} changed properties.</p>", properties.len());
    }
    if let Some(reach) = trace.and_then(StyleTrace::reach) {
        w!(out, "<p class=\"more\">The change comes through {}.</p>", escape_html(&reach));
    }
    out.push_str("</section>\n");
}

/// A computed-style value, with a swatch when it starts with a colour.
fn style_value(value: &str) -> String {
    let shown = if value.is_empty() { "(empty)".to_string() } else { escape_html(value) };
    match css_color(value) {
        Some(color) => format!("<span class=\"sw\" style=\"--c:{}\"></span>{shown}", escape_html(color)),
        None => shown,
    }
}

fn geometry_changes(out: &mut String, geometry: &GeometryChanges) {
    let (resized, moved) = (&geometry.resized, &geometry.moved);
    if resized.is_empty() && moved.is_empty() {
        return;
    }
    w!(
        out,
        "<section class=\"geometry\"><h4>Geometry changes <span class=\"n\">{} resized, {} moved (CSS px)</span></h4>\n",
        geometry.resized_count.max(resized.len()),
        geometry.moved_count
    );
    out.push_str(
        "<div class=\"tablewrap\"><table><thead><tr><th>Change</th><th>Element</th><th>Baseline box</th><th>Current box</th></tr></thead><tbody>\n",
    );
    for r in resized {
        let (dw, dh) = (r.to[2] - r.from[2], r.to[3] - r.from[3]);
        let mut parts = Vec::new();
        if dw != 0.0 {
            parts.push(format!("width {}{}", if dw > 0.0 { "+" } else { "" }, num(dw)));
        }
        if dh != 0.0 {
            parts.push(format!("height {}{}", if dh > 0.0 { "+" } else { "" }, num(dh)));
        }
        let mut change =
            if parts.is_empty() { "resized".to_string() } else { format!("resized: {}", parts.join(", ")) };
        if r.innermost {
            change.push_str(" (where it starts)");
        }
        geometry_row(out, &change, &r.selector, r.from, r.to);
    }
    for m in moved {
        let mut change = format!("moved {}, {}", num(m.dx), num(m.dy));
        if m.count > 1 {
            w!(change, " ({} elements from here on)", m.count);
        }
        geometry_row(out, &change, &m.selector, m.from, m.to);
    }
    out.push_str("</tbody></table></div></section>\n");
}

/// One row of the geometry table; boxes are `[x, y, width, height]`.
fn geometry_row(out: &mut String, change: &str, selector: &str, from: [f64; 4], to: [f64; 4]) {
    let fmt = |b: [f64; 4]| format!("{},{} {}×{}", num(b[0]), num(b[1]), num(b[2]), num(b[3]));
    w!(
        out,
        "<tr><td>{}</td><td class=\"sel\">{}</td><td class=\"val\">{}</td><td class=\"val\">{}</td></tr>\n",
        escape_html(change),
        escape_html(selector),
        fmt(from),
        fmt(to)
    );
}
