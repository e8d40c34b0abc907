//! Which element of the DOM record stands for each `font-family` when the browser is asked which
//! faces drew the page's text (the capture session's rendered step).

use crate::dom::DomSnapshot;

/// An element of the DOM record that stands for its computed `font-family` when the browser is
/// asked which faces drew the page's text (the capture session's rendered step).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FontElement {
    pub family: String,
    /// The element's selector in the record, which the document answers.
    pub selector: String,
}

/// For each distinct computed `font-family` of the record's text (at most `max`), the element the
/// browser is asked about: the first in record order (document order) with its own text and a box
/// (not 0 × 0), that a selector from the document can find (not inside a frame or a shadow root,
/// ` >>> ` in its selector). A family's text is drawn by the same faces wherever it is, unless its
/// characters need another (a fallback for a script). So the page needs no second walk: the walk
/// that made the record already read every element's family. `None` when the record has no
/// `font-family` column (a `styleProperties` without it): the page then finds the elements itself.
pub fn font_elements(dom: &DomSnapshot, max: usize) -> Option<Vec<FontElement>> {
    let column = dom.style_properties.iter().position(|p| p == "font-family")?;
    let mut found: Vec<FontElement> = Vec::new();
    for element in &dom.elements {
        if found.len() >= max {
            break;
        }
        let [_, _, width, height] = element.bounds;
        if element.text.is_none() || (width <= 0.0 && height <= 0.0) || element.selector.contains(">>>") {
            continue;
        }
        let Some(family) = element.styles.get(column) else { continue };
        if !found.iter().any(|f| f.family == *family) {
            found.push(FontElement { family: family.clone(), selector: element.selector.clone() });
        }
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of `(selector, box, own text, font-family)` elements, version 2 as the collector
    /// writes it, with `font-family` among its columns or not.
    fn record(elements: &[(&str, [f64; 4], Option<&str>, &str)], with_family: bool) -> DomSnapshot {
        use crate::dom::test_records::{parse, with_style_rows};
        let properties = if with_family { vec!["color", "font-family"] } else { vec!["color"] };
        let elements: Vec<serde_json::Value> = elements
            .iter()
            .enumerate()
            .map(|(i, (selector, bounds, text, family))| {
                let styles = if with_family { vec!["rgb(0, 0, 0)", *family] } else { vec!["rgb(0, 0, 0)"] };
                serde_json::json!({ "parent": i as i64 - 1, "tag": "p", "selector": selector, "box": bounds,
                                    "text": text, "image": null, "styles": styles, "masked": false })
            })
            .collect();
        parse(&with_style_rows(&serde_json::json!({
            "version": 1, "url": "http://localhost:3000/", "viewport": { "width": 800, "height": 600 },
            "devicePixelRatio": 1, "document": { "width": 800, "height": 600 },
            "styleProperties": properties, "elements": elements, "fonts": [], "brokenImages": []
        })))
    }

    #[test]
    fn one_element_per_family_is_the_first_with_own_text_a_box_and_a_selector_the_document_answers() {
        const SANS: &str = "Inter, sans-serif";
        const SERIF: &str = "Georgia, serif";
        let page = [
            ("body", [0.0, 0.0, 800.0, 600.0], None, SANS),
            ("body > h1", [0.0, 0.0, 300.0, 40.0], Some("a1"), SERIF),
            ("body > p.hidden", [0.0, 0.0, 0.0, 0.0], Some("b2"), SANS),
            ("#frame >>> body > p", [0.0, 50.0, 300.0, 20.0], Some("c3"), "monospace"),
            ("body > p:nth-of-type(2)", [0.0, 80.0, 300.0, 0.0], Some("d4"), SANS),
            ("body > h2", [0.0, 100.0, 300.0, 30.0], Some("e5"), SERIF),
            ("body > pre", [0.0, 140.0, 300.0, 60.0], Some("f6"), "monospace"),
        ];
        let named = |max| {
            font_elements(&record(&page, true), max)
                .unwrap()
                .into_iter()
                .map(|f| (f.family, f.selector))
                .collect::<Vec<_>>()
        };
        let all = vec![
            (SERIF.to_owned(), "body > h1".to_owned()),
            (SANS.to_owned(), "body > p:nth-of-type(2)".to_owned()),
            ("monospace".to_owned(), "body > pre".to_owned()),
        ];
        assert_eq!(named(64), all);
        assert_eq!(named(2), all[..2]);
        assert_eq!(font_elements(&record(&page, false), 64), None, "no font-family column: the page finds them");
    }
}
