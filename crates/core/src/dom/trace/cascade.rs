//! Which declaration gives an element its value of a property: the declarations the page matched
//! for the element (and its ancestors, for a property that inherits), in cascade order, and the
//! shorthands that set a longhand (`background` sets `background-color`).

use std::sync::LazyLock;

use super::{Declaration, ElementRules, RuleRecord};

/// Shorthands and the longhands each sets, as computed styles list them. Sides and corners are
/// expanded by [`shorthand_table`].
const SHORTHANDS: &[(&str, &[&str])] = &[
    (
        "background",
        &[
            "background-color",
            "background-image",
            "background-position-x",
            "background-position-y",
            "background-size",
            "background-repeat",
            "background-attachment",
            "background-origin",
            "background-clip",
        ],
    ),
    ("background-position", &["background-position-x", "background-position-y"]),
    (
        "font",
        &[
            "font-style",
            "font-variant-caps",
            "font-variant-ligatures",
            "font-variant-numeric",
            "font-variant-east-asian",
            "font-weight",
            "font-stretch",
            "font-size",
            "font-family",
            "line-height",
        ],
    ),
    ("flex", &["flex-grow", "flex-shrink", "flex-basis"]),
    ("flex-flow", &["flex-direction", "flex-wrap"]),
    ("gap", &["row-gap", "column-gap"]),
    ("grid-gap", &["row-gap", "column-gap"]),
    ("grid-template", &["grid-template-rows", "grid-template-columns", "grid-template-areas"]),
    (
        "grid",
        &[
            "grid-template-rows",
            "grid-template-columns",
            "grid-template-areas",
            "grid-auto-rows",
            "grid-auto-columns",
            "grid-auto-flow",
        ],
    ),
    ("grid-area", &["grid-row-start", "grid-column-start", "grid-row-end", "grid-column-end"]),
    ("grid-row", &["grid-row-start", "grid-row-end"]),
    ("grid-column", &["grid-column-start", "grid-column-end"]),
    ("place-items", &["align-items", "justify-items"]),
    ("place-content", &["align-content", "justify-content"]),
    ("place-self", &["align-self", "justify-self"]),
    ("outline", &["outline-color", "outline-style", "outline-width"]),
    (
        "text-decoration",
        &["text-decoration-line", "text-decoration-style", "text-decoration-color", "text-decoration-thickness"],
    ),
    ("list-style", &["list-style-type", "list-style-position", "list-style-image"]),
    ("overflow", &["overflow-x", "overflow-y"]),
    ("columns", &["column-width", "column-count"]),
    ("column-rule", &["column-rule-width", "column-rule-style", "column-rule-color"]),
    ("inset", &["top", "right", "bottom", "left"]),
    ("white-space", &["white-space-collapse", "text-wrap-mode"]),
    ("text-wrap", &["text-wrap-mode", "text-wrap-style"]),
];

const SIDES: [&str; 4] = ["top", "right", "bottom", "left"];
const CORNERS: [&str; 4] = ["top-left", "top-right", "bottom-right", "bottom-left"];

/// Every shorthand with its longhands: [`SHORTHANDS`] and the box ones (margin, padding, border).
/// Built once: every traced property looks it up.
static SHORTHAND_TABLE: LazyLock<Vec<(String, Vec<String>)>> = LazyLock::new(shorthand_table);

fn shorthand_table() -> Vec<(String, Vec<String>)> {
    let mut table: Vec<(String, Vec<String>)> =
        SHORTHANDS.iter().map(|(s, l)| (s.to_string(), l.iter().map(|l| l.to_string()).collect())).collect();
    for boxed in ["margin", "padding", "scroll-margin", "scroll-padding"] {
        table.push((boxed.into(), SIDES.iter().map(|side| format!("{boxed}-{side}")).collect()));
    }
    let mut border = Vec::new();
    for part in ["width", "style", "color"] {
        let sides: Vec<String> = SIDES.iter().map(|side| format!("border-{side}-{part}")).collect();
        border.extend(sides.iter().cloned());
        table.push((format!("border-{part}"), sides));
    }
    for side in SIDES {
        table
            .push((format!("border-{side}"), ["width", "style", "color"].map(|p| format!("border-{side}-{p}")).into()));
    }
    table.push(("border".into(), border));
    table.push(("border-radius".into(), CORNERS.iter().map(|c| format!("border-{c}-radius")).collect()));
    table
}

/// The declaration names that can set `property`: itself and its shorthands.
pub fn setters(property: &str) -> Vec<String> {
    let mut names = vec![property.to_string()];
    names.extend(
        SHORTHAND_TABLE
            .iter()
            .filter(|(_, longhands)| longhands.iter().any(|l| l == property))
            .map(|(shorthand, _)| shorthand.clone()),
    );
    names
}

/// Properties an element takes from its parent when nothing sets them on it (CSS's "inherited:
/// yes"); custom properties inherit too.
const INHERITED: &[&str] = &[
    "color",
    "cursor",
    "direction",
    "visibility",
    "line-height",
    "letter-spacing",
    "word-spacing",
    "text-align",
    "text-indent",
    "text-transform",
    "text-shadow",
    "text-rendering",
    "text-underline-offset",
    "text-underline-position",
    "white-space",
    "white-space-collapse",
    "text-wrap",
    "text-wrap-mode",
    "tab-size",
    "hyphens",
    "word-break",
    "overflow-wrap",
    "quotes",
    "caret-color",
    "accent-color",
    "color-scheme",
    "writing-mode",
    "border-collapse",
    "border-spacing",
    "empty-cells",
    "caption-side",
    "pointer-events",
    "image-rendering",
    "paint-order",
    "orphans",
    "widows",
];

/// Whether `property` inherits.
pub fn inherits(property: &str) -> bool {
    property.starts_with("--")
        || property.starts_with("font")
        || property.starts_with("list-style")
        || property.starts_with("fill")
        || property.starts_with("stroke")
        || property.starts_with("-webkit-text")
        || INHERITED.contains(&property)
}

/// The declaration that wins for `property` among `rules` (cascade order, the last rule
/// strongest): an `!important` one over any other, else the last.
fn winner<'a>(rules: &'a [RuleRecord], property: &str) -> Option<(&'a RuleRecord, &'a Declaration)> {
    let names = setters(property);
    let mut best: Option<(&RuleRecord, &Declaration)> = None;
    for rule in rules {
        for declaration in rule.declarations.iter().filter(|d| names.contains(&d.name)) {
            if best.is_none_or(|(_, b)| declaration.important || !b.important) {
                best = Some((rule, declaration));
            }
        }
    }
    best
}

/// The declaration that gives `element` its value of `property`, and how many ancestors up it was
/// found (0: the element's own rules).
pub fn winning<'a>(element: &'a ElementRules, property: &str) -> Option<(&'a RuleRecord, &'a Declaration, usize)> {
    if let Some((rule, declaration)) = winner(&element.own, property) {
        return Some((rule, declaration, 0));
    }
    if !inherits(property) {
        return None;
    }
    element
        .inherited
        .iter()
        .enumerate()
        .find_map(|(up, rules)| winner(rules, property).map(|(rule, declaration)| (rule, declaration, up + 1)))
}

/// The custom properties `value` reads (`var(--brand, #000)` → `--brand`), in order.
pub fn tokens_used(value: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = value;
    while let Some(at) = rest.find("var(") {
        rest = rest[at + 4..].trim_start();
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_')).unwrap_or(rest.len());
        let name = &rest[..end];
        if name.starts_with("--") && !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
        rest = &rest[end..];
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::trace::Origin;

    fn declaration(name: &str, value: &str, important: bool) -> Declaration {
        Declaration { name: name.into(), value: value.into(), important, line: Some(0), column: Some(0) }
    }

    fn rule(selector: &str, declarations: Vec<Declaration>) -> RuleRecord {
        RuleRecord { origin: Origin::Regular, selector: selector.into(), sheet: Some("1".into()), declarations }
    }

    #[test]
    fn a_shorthand_sets_its_longhands() {
        assert_eq!(setters("background-color"), ["background-color", "background"]);
        assert_eq!(setters("border-top-color"), ["border-top-color", "border-color", "border-top", "border"]);
        assert_eq!(setters("border-top-left-radius"), ["border-top-left-radius", "border-radius"]);
        assert_eq!(setters("line-height"), ["line-height", "font"]);
        assert_eq!(setters("width"), ["width"]);
    }

    #[test]
    fn the_last_declaration_wins_unless_an_earlier_one_is_important() {
        let element = ElementRules {
            found: true,
            own: vec![
                rule(".a", vec![declaration("color", "red", false)]),
                rule(".b", vec![declaration("color", "blue", false)]),
            ],
            inherited: vec![],
        };
        assert_eq!(winning(&element, "color").unwrap().0.selector, ".b");
        let mut important = element.clone();
        important.own[0].declarations[0].important = true;
        assert_eq!(winning(&important, "color").unwrap().0.selector, ".a");
    }

    #[test]
    fn only_an_inherited_property_is_looked_for_up_the_tree() {
        let element = ElementRules {
            found: true,
            own: vec![],
            inherited: vec![
                vec![],
                vec![rule("body", vec![declaration("font", "16px serif", false), declaration("margin", "0", false)])],
            ],
        };
        let (rule, declaration, up) = winning(&element, "font-size").unwrap();
        assert_eq!((rule.selector.as_str(), declaration.name.as_str(), up), ("body", "font", 2));
        assert!(winning(&element, "margin-top").is_none());
    }

    #[test]
    fn reads_the_tokens_a_value_uses() {
        assert_eq!(tokens_used("var(--brand)"), ["--brand"]);
        assert_eq!(tokens_used("0 0 0 1px var( --ring, var(--brand_2)) inset"), ["--ring", "--brand_2"]);
        assert!(tokens_used("#fff").is_empty());
    }
}
