//! The comparison of two DOM records: [`compare_dom`] walks the pairs [`match_elements`] found
//! and tallies what changed — structure and content, computed styles, boxes — into a
//! [`DomComparison`], keeping each element's role for region attribution.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::geometry::GeometryTally;
pub use super::geometry::{GeometryChanges, MovedElements, ResizedElement};
use super::names::{ClassChanges, class_change, class_changes};
use super::pairing::match_elements;
use super::record::{DomSnapshot, ElementRecord};
use super::tokens::{TokenChange, token_changes};
use crate::regions::ElementRole;

/// A box edge that moved by at most this many CSS pixels did not move (sub-pixel layout jitter).
pub const GEOMETRY_TOLERANCE: f64 = 0.5;

/// Selectors named per list of added / removed / modified / restyled elements.
const LISTED_ELEMENTS: usize = 10;
/// Property changes listed with their values.
const LISTED_PROPERTIES: usize = 50;
/// Most frequent `from → to` changes listed.
const LISTED_COMMON: usize = 5;
/// Resized elements and groups of moved elements listed.
pub(super) const LISTED_GEOMETRY: usize = 20;

/// The DOM layer's evidence for one pair of captures (`layers.dom` in results.json).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DomComparison {
    /// The element structure differs: elements added, removed, re-tagged, or their text or
    /// image changed.
    pub changed: bool,
    /// Structure, text and images are identical: the diff may be render noise.
    pub noise_hint: bool,
    /// Elements only in the current capture, in document order.
    pub added: ElementList,
    /// Elements only in the baseline, in the baseline's document order.
    pub removed: ElementList,
    /// Elements on both sides whose tag, text or image changed.
    pub modified: ModifiedElements,
    /// Whether computed styles were compared and found equal.
    pub style_check: StyleCheck,
    /// Elements on both sides whose computed styles differ.
    pub style_changes: StyleChanges,
    /// Elements on both sides whose classes changed (`passed` → `failed`): the same element,
    /// restyled by its new class; not a structural change.
    #[serde(default, skip_serializing_if = "ClassChanges::is_empty")]
    pub class_changes: ClassChanges,
    /// Elements on both sides whose box moved or resized.
    pub geometry_changes: GeometryChanges,
    /// Custom properties of the root (design tokens) whose value changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub token_changes: Vec<TokenChange>,
    /// For a failing snapshot, where the restyled elements' changed values come from on the live
    /// page (rules, design tokens, files); absent when not traced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style_trace: Option<super::trace::StyleTrace>,
    /// What each element did, for [`attribute_regions`](super::attribute_regions).
    #[serde(skip)]
    pub(super) roles: ElementRoles,
}

impl DomComparison {
    /// The changed design token a style-only change is led by: the first changed token its
    /// trace found, else the root's one changed token (of several, none leads).
    pub fn leading_token(&self) -> Option<&TokenChange> {
        let traced = self.style_trace.as_ref().and_then(|t| t.tokens.iter().find(|t| t.changed()));
        match traced {
            Some(token) => self.token_changes.iter().find(|c| c.name == token.name),
            None if self.token_changes.len() == 1 => self.token_changes.first(),
            None => None,
        }
    }
}

/// A count of elements and the selectors of the first ones.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElementList {
    /// How many elements.
    pub count: usize,
    /// Selectors of the first 10, in document order.
    pub elements: Vec<String>,
}

/// Elements on both sides whose content changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModifiedElements {
    /// How many elements.
    pub count: usize,
    /// The first 10, in document order.
    pub elements: Vec<ModifiedElement>,
}

/// One element whose content changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModifiedElement {
    pub selector: String,
    /// What changed, in the order tag, text, image.
    pub changes: Vec<ContentChange>,
}

/// A kind of content change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ContentChange {
    /// Another tag (only possible for elements paired by `#id`).
    Tag,
    /// The element's own text.
    Text,
    /// The `<img>` source or background image.
    Image,
}

impl crate::words::Word for ContentChange {}

/// Whether computed styles could be compared, and how that came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StyleCheck {
    /// Styles were recorded on both sides and every element present on both is equal.
    Match,
    /// At least one element present on both sides was restyled.
    Mismatch,
    /// A side has no style data, or the sides recorded different property lists.
    Unavailable,
}

impl crate::words::Word for StyleCheck {}

/// Restyled elements.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StyleChanges {
    /// How many elements were restyled.
    pub count: usize,
    /// Selectors of the first 10 restyled elements, in document order.
    pub elements: Vec<String>,
    /// The first 50 changed properties, element by element in document order.
    pub properties: Vec<PropertyChange>,
    /// How many properties changed, over all elements.
    pub property_count: usize,
    /// The most frequent `property: from → to` changes (up to 5), most elements first: the
    /// "main change" a verdict names.
    pub most_common: Vec<CommonChange>,
}

/// One computed-style property that changed on one element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PropertyChange {
    pub selector: String,
    pub property: String,
    pub from: String,
    pub to: String,
}

/// A `property: from → to` change and how many elements it happened on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommonChange {
    pub property: String,
    pub from: String,
    pub to: String,
    pub count: usize,
}

/// Per-element outcome of [`compare_dom`]; `None` roles are masked elements.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct ElementRoles {
    pub(super) baseline: Vec<Option<ElementRole>>,
    pub(super) current: Vec<Option<ElementRole>>,
    /// The current element each baseline element was matched with.
    pub(super) baseline_pair: Vec<Option<u32>>,
    /// The baseline element each current element was matched with.
    pub(super) current_pair: Vec<Option<u32>>,
}

/// Compares two DOM records: structure, computed styles and boxes. Masked elements and their
/// descendants are left out of every check.
///
/// Elements are paired like lines in a diff, tree-wise: an `#id` selector with its namesake
/// wherever it is, then the children of paired elements by aligning the two lists of siblings
/// (on subtree, then own content, then tag and classes; then the same without the element's id
/// or classes, then its tag alone). Inserting one element before many
/// same-tag siblings renames them all (`:nth-of-type`) but reports one added element; the
/// others are paired, and at most moved.
pub fn compare_dom(baseline: &DomSnapshot, current: &DomSnapshot) -> DomComparison {
    let (bs, cs) = (&baseline.elements, &current.elements);
    // A version 2 baseline digests images by absolute URL, a new capture by path: not comparable.
    let images = baseline.names_images_alike(current);
    let (baseline_pair, current_pair) = match_elements(bs, cs, images);
    let styles_comparable =
        !baseline.style_properties.is_empty() && baseline.style_properties == current.style_properties;

    let mut roles_b = vec![None; bs.len()];
    let mut roles_c = vec![None; cs.len()];
    let mut removed = ElementList::default();
    for (b, e) in bs.iter().enumerate() {
        if !e.is_excluded() && baseline_pair[b].is_none() {
            roles_b[b] = Some(ElementRole::Removed);
            push_limited(&mut removed, &e.selector);
        }
    }

    let mut added = ElementList::default();
    let mut modified = ModifiedElements::default();
    let mut renamed = Vec::new();
    let mut styles = StyleTally::default();
    let mut geometry = GeometryTally::default();
    for (c, e) in cs.iter().enumerate() {
        if e.is_excluded() {
            continue;
        }
        let Some(b) = current_pair[c] else {
            roles_c[c] = Some(ElementRole::Added);
            push_limited(&mut added, &e.selector);
            continue;
        };
        let old = &bs[b as usize];
        // A mask added or dropped on one side still hides the element: it was asked for.
        if old.is_excluded() {
            continue;
        }
        let mut role = ElementRole::Overlaps;

        let changes: Vec<ContentChange> = [
            (old.tag != e.tag, ContentChange::Tag),
            (old.text != e.text, ContentChange::Text),
            (images && old.image != e.image, ContentChange::Image),
        ]
        .into_iter()
        .filter_map(|(differs, kind)| differs.then_some(kind))
        .collect();
        if !changes.is_empty() {
            role = ElementRole::Changed;
            modified.count += 1;
            if modified.elements.len() < LISTED_ELEMENTS {
                modified.elements.push(ModifiedElement { selector: e.selector.clone(), changes });
            }
        }

        if let Some(change) = class_change(old, e) {
            renamed.push((c, change));
        }

        // Equal digests are equal styles; only restyled elements pay for the value comparison.
        if styles_comparable && old.style_digest() != e.style_digest() {
            role = ElementRole::Changed;
            styles.add(&baseline.style_properties, old, e);
        }

        if old.tag == e.tag && geometry.add(c, old, e) && role == ElementRole::Overlaps {
            role = ElementRole::Moved;
        }
        roles_b[b as usize] = Some(role);
        roles_c[c] = Some(role);
    }

    let changed = added.count + removed.count + modified.count > 0;
    let style_check = match (styles_comparable, styles.changes.count) {
        (false, _) => StyleCheck::Unavailable,
        (true, 0) => StyleCheck::Match,
        (true, _) => StyleCheck::Mismatch,
    };
    DomComparison {
        changed,
        noise_hint: !changed,
        added,
        removed,
        modified,
        style_check,
        style_changes: styles.finish(&baseline.style_properties),
        class_changes: class_changes(cs, renamed, &roles_c),
        geometry_changes: geometry.finish(cs),
        token_changes: token_changes(baseline, current),
        style_trace: None,
        roles: ElementRoles { baseline: roles_b, current: roles_c, baseline_pair, current_pair },
    }
}

fn push_limited(list: &mut ElementList, selector: &str) {
    list.count += 1;
    if list.elements.len() < LISTED_ELEMENTS {
        list.elements.push(selector.to_owned());
    }
}

/// Collects restyled elements while [`compare_dom`] walks the pairs.
#[derive(Default)]
struct StyleTally {
    changes: StyleChanges,
    /// (property index, from, to) → (elements, first seen), for the most common changes.
    common: HashMap<(usize, String, String), (usize, usize)>,
}

impl StyleTally {
    fn add(&mut self, properties: &[String], old: &ElementRecord, new: &ElementRecord) {
        let changes = &mut self.changes;
        changes.count += 1;
        if changes.elements.len() < LISTED_ELEMENTS {
            changes.elements.push(new.selector.clone());
        }
        for (p, (from, to)) in old.styles.iter().zip(new.styles.iter()).enumerate() {
            if from == to {
                continue;
            }
            changes.property_count += 1;
            if changes.properties.len() < LISTED_PROPERTIES {
                changes.properties.push(PropertyChange {
                    selector: new.selector.clone(),
                    property: properties[p].clone(),
                    from: from.clone(),
                    to: to.clone(),
                });
            }
            let seen = self.common.len();
            self.common.entry((p, from.clone(), to.clone())).or_insert((0, seen)).0 += 1;
        }
    }

    fn finish(mut self, properties: &[String]) -> StyleChanges {
        let mut common: Vec<_> = self.common.into_iter().collect();
        common.sort_by_key(|&(_, (count, first))| (std::cmp::Reverse(count), first));
        common.truncate(LISTED_COMMON);
        self.changes.most_common = common
            .into_iter()
            .map(|((p, from, to), (count, _))| CommonChange { property: properties[p].clone(), from, to, count })
            .collect();
        self.changes
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::dom::test_records::{BLACK, BLUE, CLEAR, attribute, compare, el, named, page, region, with_style_rows};
    use crate::regions::AttributedElement;

    #[test]
    fn dom_identical_snapshots_are_a_noise_hint() {
        let d = compare(&page(), &page());
        assert!(!d.changed);
        assert!(d.noise_hint);
        assert_eq!(d.style_check, StyleCheck::Match);
        assert_eq!((d.added.count, d.removed.count, d.modified.count), (0, 0, 0));
        assert_eq!(d.style_changes, StyleChanges::default());
        assert_eq!(d.geometry_changes, GeometryChanges::default());
    }

    #[test]
    fn dom_custom_property_colour_change_is_style_only() {
        // `--accent` changed: the three elements using it for `color` are restyled.
        let mut b = page();
        for i in [2, 5, 7] {
            b["elements"][i]["styles"][0] = json!(BLUE);
        }
        let d = compare(&page(), &b);
        assert!(!d.changed);
        assert!(d.noise_hint);
        assert_eq!(d.style_check, StyleCheck::Mismatch);
        assert_eq!(d.style_changes.count, 3);
        assert_eq!(d.style_changes.elements, ["body > header > h1", "#card-a > p", "#card-b > p"]);
        assert_eq!(d.style_changes.property_count, 3);
        assert_eq!(d.style_changes.properties.len(), 3);
        for (change, selector) in d.style_changes.properties.iter().zip(&d.style_changes.elements) {
            assert_eq!(change.selector, *selector);
            assert_eq!((change.property.as_str(), change.from.as_str(), change.to.as_str()), ("color", BLACK, BLUE));
        }
        assert_eq!(
            d.style_changes.most_common,
            [CommonChange { property: "color".into(), from: BLACK.into(), to: BLUE.into(), count: 3 }]
        );
        assert_eq!(d.geometry_changes.count, 0);
    }

    #[test]
    fn dom_style_changes_are_listed_most_common_first() {
        // In document order: the h1's background (1 element), the cards' font size (2), the
        // paragraphs' and the footer's colour (3). Seen first is listed last.
        let mut b = page();
        b["elements"][2]["styles"][1] = json!(BLUE);
        for i in [4, 6] {
            b["elements"][i]["styles"][2] = json!("20px");
        }
        for i in [5, 7, 8] {
            b["elements"][i]["styles"][0] = json!(BLUE);
        }
        let d = compare(&page(), &b);
        let common = |property: &str, from: &str, to: &str, count| CommonChange {
            property: property.into(),
            from: from.into(),
            to: to.into(),
            count,
        };
        assert_eq!(
            d.style_changes.most_common,
            [
                common("color", BLACK, BLUE, 3),
                common("font-size", "16px", "20px", 2),
                common("background-color", CLEAR, BLUE, 1)
            ]
        );
        // The per-element list stays in document order.
        let listed: Vec<&str> = d.style_changes.properties.iter().map(|p| p.property.as_str()).collect();
        assert_eq!(listed, ["background-color", "font-size", "color", "font-size", "color", "color"]);
    }

    #[test]
    fn dom_added_element_is_a_structural_change() {
        let mut b = page();
        b["elements"].as_array_mut().unwrap().push(el(
            8,
            "a",
            "body > footer > a",
            [10.0, 570.0, 80.0, 20.0],
            Some("e5"),
        ));
        let d = compare(&page(), &b);
        assert!(d.changed);
        assert!(!d.noise_hint);
        assert_eq!(d.added, ElementList { count: 1, elements: vec!["body > footer > a".into()] });
        assert_eq!(d.removed.count, 0);
        assert_eq!(d.modified.count, 0);
        assert_eq!(d.style_check, StyleCheck::Match);
    }

    #[test]
    fn dom_removed_and_retagged_elements_are_listed() {
        let mut b = page();
        b["elements"].as_array_mut().unwrap().remove(8);
        b["elements"][4]["tag"] = json!("section");
        let d = compare(&page(), &b);
        assert!(d.changed);
        assert_eq!(d.removed, ElementList { count: 1, elements: vec!["body > footer".into()] });
        assert_eq!(
            d.modified.elements,
            [ModifiedElement { selector: "#card-a".into(), changes: vec![ContentChange::Tag] }]
        );
    }

    #[test]
    fn dom_text_and_image_changes_are_structural_changes() {
        let mut b = page();
        b["elements"][5]["text"] = json!("ff");
        b["elements"][7]["image"] = json!("0a");
        let d = compare(&page(), &b);
        assert!(d.changed);
        assert!(!d.noise_hint);
        assert_eq!(d.modified.count, 2);
        assert_eq!(
            d.modified.elements[0],
            ModifiedElement { selector: "#card-a > p".into(), changes: vec![ContentChange::Text] }
        );
        assert_eq!(d.modified.elements[1].changes, [ContentChange::Image]);
        assert_eq!(d.style_check, StyleCheck::Match);
    }

    #[test]
    fn dom_images_named_by_url_and_by_path_are_not_compared() {
        // A version 2 baseline digests `http://localhost:3000/a.png`, a version 3 capture `/a.png`:
        // the digests differ for the same file, so images say nothing between them, and the
        // element still pairs (no key holds its image).
        let mut old = page();
        old["elements"][7]["image"] = json!("0a");
        let mut new = with_style_rows(&page());
        new["version"] = json!(3);
        new["elements"][7]["image"] = json!("0b");
        let d = compare(&old, &new);
        assert!(!d.changed, "{d:?}");
        assert_eq!(d.modified.count, 0);
        // Between two version 3 records the same change is one.
        let mut newer = new.clone();
        newer["elements"][7]["image"] = json!("0c");
        assert_eq!(compare(&new, &newer).modified.elements[0].changes, [ContentChange::Image]);
    }

    #[test]
    fn dom_clipped_card_is_a_geometry_change() {
        // `max-height: 120px` on the card: not in the style list, DOM and styles stay equal.
        let mut b = page();
        b["elements"][4]["box"] = json!([20.0, 80.0, 240.0, 120.0]);
        let d = compare(&page(), &b);
        assert!(!d.changed);
        assert!(d.noise_hint);
        assert_eq!(d.style_check, StyleCheck::Match);
        let g = &d.geometry_changes;
        assert_eq!((g.count, g.resized_count, g.moved_count), (1, 1, 0));
        assert_eq!(
            g.resized,
            [ResizedElement {
                selector: "#card-a".into(),
                from: [20.0, 80.0, 240.0, 200.0],
                to: [20.0, 80.0, 240.0, 120.0],
                innermost: true
            }]
        );
        // Sub-pixel jitter is no change.
        let mut c = page();
        c["elements"][6]["box"] = json!([280.4, 80.3, 240.5, 199.6]);
        assert_eq!(compare(&page(), &c).geometry_changes.count, 0);
    }

    #[test]
    fn dom_page_shift_reads_as_one_grower_and_one_moved_run() {
        // The header grew by 50 px; everything after it moved down by 50.
        let mut b = page();
        let grow = |b: &mut Value, i: usize, dy: f64, dh: f64| {
            let bx = b["elements"][i]["box"].clone();
            let v = |k: usize| bx[k].as_f64().unwrap();
            b["elements"][i]["box"] = json!([v(0), v(1) + dy, v(2), v(3) + dh]);
        };
        grow(&mut b, 0, 0.0, 50.0);
        grow(&mut b, 1, 0.0, 50.0);
        for i in 3..9 {
            grow(&mut b, i, 50.0, 0.0);
        }
        let g = compare(&page(), &b).geometry_changes;
        assert_eq!((g.count, g.resized_count, g.moved_count), (8, 2, 6));
        let resized: Vec<(&str, bool)> = g.resized.iter().map(|r| (r.selector.as_str(), r.innermost)).collect();
        assert_eq!(resized, [("body > header", true), ("body", false)]);
        assert_eq!(
            g.moved,
            [MovedElements {
                selector: "body > main".into(),
                from: [0.0, 60.0, 800.0, 500.0],
                to: [0.0, 110.0, 800.0, 500.0],
                dx: 0.0,
                dy: 50.0,
                count: 6
            }]
        );
    }

    #[test]
    fn dom_masked_elements_are_ignored() {
        let mut a = page();
        a["elements"][4]["masked"] = json!(true);
        let mut b = a.clone();
        b["elements"][5]["text"] = json!("ff");
        b["elements"][5]["styles"][0] = json!(BLUE);
        b["elements"][4]["box"] = json!([20.0, 80.0, 240.0, 300.0]);
        b["elements"].as_array_mut().unwrap().insert(6, el(4, "img", "#card-a > img", [30.0, 140.0, 50.0, 50.0], None));
        for e in b["elements"].as_array_mut().unwrap()[7..].iter_mut() {
            e["parent"] = json!(e["parent"].as_i64().unwrap() + i64::from(e["parent"].as_i64().unwrap() >= 6));
        }
        let d = compare(&a, &b);
        assert!(d.noise_hint);
        assert_eq!(d.style_check, StyleCheck::Match);
        assert_eq!((d.added.count, d.geometry_changes.count), (0, 0));
        // The region over the card names what is around it, never the masked card.
        let found = attribute(&a, &b, &[region(30, 90, 50, 100)], None);
        assert_eq!(found, [named(&[("body > main", ElementRole::Overlaps)])]);
        // A mask on one side only still hides the element.
        let mut c = page();
        c["elements"][5]["text"] = json!("ff");
        assert!(compare(&a, &c).noise_hint);
    }

    #[test]
    fn dom_styles_unavailable_without_style_data() {
        let mut b = page();
        b["styleProperties"] = json!([]);
        for e in b["elements"].as_array_mut().unwrap() {
            e["styles"] = json!([]);
        }
        let d = compare(&page(), &b);
        assert_eq!(d.style_check, StyleCheck::Unavailable);
        assert_eq!(d.style_changes.count, 0);
        assert!(d.noise_hint);
        // Different property lists cannot be compared either.
        let mut c = page();
        c["styleProperties"][2] = json!("font-weight");
        assert_eq!(compare(&page(), &c).style_check, StyleCheck::Unavailable);
    }

    #[test]
    fn dom_comparison_serializes_in_camel_case() {
        let mut b = page();
        b["elements"][5]["styles"][0] = json!(BLUE);
        b["elements"][4]["box"] = json!([20.0, 80.0, 240.0, 120.0]);
        let d = compare(&page(), &b);
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["noiseHint"], json!(true));
        assert_eq!(v["styleCheck"], json!("mismatch"));
        assert_eq!(
            v["styleChanges"]["properties"][0],
            json!({ "selector": "#card-a > p", "property": "color", "from": BLACK, "to": BLUE })
        );
        assert_eq!(v["styleChanges"]["mostCommon"][0]["count"], json!(1));
        assert_eq!(v["geometryChanges"]["resizedCount"], json!(1));
        assert_eq!(v["geometryChanges"]["resized"][0]["to"], json!([20.0, 80.0, 240.0, 120.0]));
        assert_eq!(v["added"], json!({ "count": 0, "elements": [] }));
        assert!(v.get("roles").is_none());
        let e = AttributedElement { selector: "#card-a".into(), role: ElementRole::Moved };
        assert_eq!(serde_json::to_value(e).unwrap(), json!({ "selector": "#card-a", "role": "moved" }));
    }
}
