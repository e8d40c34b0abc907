//! How a version 4 record's selectors become selector paths. The collector writes each element's
//! selector relative to its parent (`parent` already says where it sits), so a page of 16,000
//! elements does not send every ancestor's path again with each descendant (on Python's
//! "Built-in Types" page the record went from 4.1 to 2.6 MB, the walk from 750 to 637 ms). Read,
//! the record holds the full paths of version 3, so everything downstream names elements alike.
//!
//! What a version 4 element's `selector` holds, by the selector rules of
//! `playwright-fixtures/collector-in-page.js`:
//! - a root element (`parent` -1): its whole path, as in version 3 (`body`, or a scoped
//!   capture's element with its page path);
//! - `>>> segment`: the first element of a tree entered under its parent (an open shadow root's
//!   top-level element, an iframe's `body`): `<parent's path> >>> segment`;
//! - `#id`: an id unique in its tree, which replaces the path within that tree: the path up to
//!   and including the tree's last ` >>> ` (nothing in the document's own tree), then `#id`;
//! - otherwise a segment (`li.item:nth-of-type(2)`): `<parent's path> > segment`.
//!
//! A segment never starts with `#` (an escaped tag name cannot) nor with `>>> `, so the three
//! forms cannot be mistaken for one another.

use super::ElementRecord;
use crate::error::{Error, Result};

/// Between a parent's path and a child's segment.
const CHILD: &str = " > ";
/// Between a host's (or frame's) path and the first segment of the tree it holds.
const ENTER: &str = " >>> ";
/// What starts a version 4 selector of an element that enters a tree under its parent.
const ENTERS: &str = ">>> ";

/// A version 4 selector of an element with a parent, as written.
enum Written<'s> {
    /// `>>> segment`: the first element of a tree under its parent.
    Enters(&'s str),
    /// `#id`: placed after its tree's prefix.
    Id,
    /// A segment under its parent.
    Child,
}

fn written(selector: &str) -> Written<'_> {
    if let Some(segment) = selector.strip_prefix(ENTERS) {
        Written::Enters(segment)
    } else if selector.starts_with('#') {
        Written::Id
    } else {
        Written::Child
    }
}

/// Replaces each element's relative selector (version 4) with its path. Parents must come
/// before their children (validated). Each path may be at most `string_bytes` long and all of
/// them together at most `total_bytes` (the record's own limits: a deep page would otherwise
/// grow quadratically), checked before any path is built.
pub(super) fn compose_selector_paths(
    elements: &mut [ElementRecord],
    string_bytes: usize,
    total_bytes: usize,
) -> Result<()> {
    // Each element's path length and the length of its tree's prefix (the path up to and
    // including its last ` >>> `), which is always a prefix of the element's own path.
    let mut lengths: Vec<(usize, usize)> = Vec::with_capacity(elements.len());
    let mut total = 0usize;
    for (i, e) in elements.iter().enumerate() {
        let (path, prefix) = match e.parent_index().map(|p| lengths[p]) {
            // A root's whole path, as written.
            None => (e.selector.len(), e.selector.rfind(ENTER).map_or(0, |at| at + ENTER.len())),
            Some((parent, prefix)) => {
                if e.selector.strip_prefix(ENTERS).unwrap_or(&e.selector).is_empty() {
                    return Err(bad(format!("element {i}: an empty selector segment")));
                }
                match written(&e.selector) {
                    Written::Enters(segment) => (parent + ENTER.len() + segment.len(), parent + ENTER.len()),
                    Written::Id => (prefix + e.selector.len(), prefix),
                    Written::Child => (parent + CHILD.len() + e.selector.len(), prefix),
                }
            }
        };
        if path > string_bytes {
            return Err(bad(format!("element {i}: selector path is {path} bytes, above the limit of {string_bytes}")));
        }
        total += path;
        if total > total_bytes {
            return Err(bad(format!("its selector paths come to more than {total_bytes} bytes")));
        }
        lengths.push((path, prefix));
    }
    for i in 0..elements.len() {
        let (done, rest) = elements.split_at_mut(i);
        let e = &mut rest[0];
        let Some(p) = e.parent_index() else { continue };
        let parent = &done[p].selector;
        let tree_prefix = &parent[..lengths[p].1];
        let mut path = String::with_capacity(lengths[i].0);
        match written(&e.selector) {
            Written::Enters(segment) => {
                path.push_str(parent);
                path.push_str(ENTER);
                path.push_str(segment);
            }
            Written::Id => {
                path.push_str(tree_prefix);
                path.push_str(&e.selector);
            }
            Written::Child => {
                path.push_str(parent);
                path.push_str(CHILD);
                path.push_str(&e.selector);
            }
        }
        e.selector = path;
    }
    Ok(())
}

fn bad(detail: String) -> Error {
    Error::BadDom { detail }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::dom::parse_dom;
    use crate::dom::test_records::{page, parse};

    /// `v` (a record with full paths) as the collector writes version 4: each selector relative
    /// to its parent's, and no `text` or `image` where there is none, no `masked` when false.
    fn relative(v: &Value, selectors: &[&str]) -> Value {
        let mut v = v.clone();
        v["version"] = json!(4);
        for (e, s) in v["elements"].as_array_mut().unwrap().iter_mut().zip(selectors) {
            e["selector"] = json!(s);
            let fields = e.as_object_mut().unwrap();
            fields.retain(|name, value| !(value.is_null() || (name == "masked" && *value == json!(false))));
        }
        v
    }

    fn paths(v: &Value) -> Vec<String> {
        parse(v).elements.into_iter().map(|e| e.selector).collect()
    }

    #[test]
    fn a_version_4_record_reads_as_the_same_record_with_full_paths() {
        let full = page();
        let v4 = relative(&full, &["body", "header", "h1", "main", "#card-a", "p", "#card-b", "p", "footer"]);
        assert!(v4["elements"][0].get("text").is_none() && v4["elements"][0].get("masked").is_none());
        let (old, new) = (parse(&full), parse(&v4));
        assert_eq!(new.elements, old.elements, "selectors, digests and flags element by element");
        // Read, it is a version 3 record: written out again, it reads the same (paths not composed twice).
        assert_eq!(new.version, 3);
        let written = serde_json::to_string(&new).unwrap();
        assert_eq!(parse_dom(&written).unwrap().elements, old.elements);
    }

    #[test]
    fn trees_entered_under_a_parent_keep_their_prefix_for_ids() {
        // body > x-card (shadow host) >>> div.inner > #tip; an iframe's body and an id inside it;
        // the host's slotted light child.
        let mut v = page();
        let elements = [
            (-1, "body", "body"),
            (0, "x-card", "x-card"),
            (1, "div", ">>> div.inner"),
            (2, "span", "#tip"),
            (3, "em", "em"),
            (1, "p", "p.light"),
            (0, "iframe", "#frame"),
            (6, "body", ">>> body"),
            (7, "div", "#x"),
            (8, "b", "b:nth-of-type(2)"),
            (6, "iframe", ">>> #deep"),
        ];
        v["version"] = json!(4);
        v["elements"] = elements
            .iter()
            .map(|&(parent, tag, selector)| {
                json!({ "parent": parent, "tag": tag, "selector": selector, "box": [0, 0, 1, 1],
                        "text": null, "image": null, "styles": ["a", "b", "c"], "masked": false })
            })
            .collect();
        assert_eq!(
            paths(&v),
            [
                "body",
                "body > x-card",
                "body > x-card >>> div.inner",
                "body > x-card >>> #tip",
                "body > x-card >>> #tip > em",
                "body > x-card > p.light",
                "#frame",
                "#frame >>> body",
                "#frame >>> #x",
                "#frame >>> #x > b:nth-of-type(2)",
                "#frame >>> #deep",
            ]
        );
    }

    #[test]
    fn a_scoped_roots_path_gives_its_tree_to_ids_below_it() {
        let mut v = page();
        v["version"] = json!(4);
        v["elements"] = json!([
            { "parent": -1, "tag": "div", "selector": "body > x-card >>> div.inner", "box": [0, 0, 1, 1],
              "text": null, "image": null, "styles": ["a", "b", "c"], "masked": false },
            { "parent": 0, "tag": "span", "selector": "#tip", "box": [0, 0, 1, 1],
              "text": null, "image": null, "styles": ["a", "b", "c"], "masked": false },
        ]);
        assert_eq!(paths(&v), ["body > x-card >>> div.inner", "body > x-card >>> #tip"]);
    }

    #[test]
    fn paths_are_held_to_the_records_limits_before_they_are_built() {
        let mut elements: Vec<ElementRecord> = parse(&page()).elements;
        for e in &mut elements {
            e.selector = if e.parent == -1 { "body".into() } else { "div".into() };
        }
        // The cards' paragraphs are the deepest: `body > div > div > div`, 22 bytes; all nine
        // paths come to 4 + 10 + 16 + 10 + 16 + 22 + 16 + 22 + 10 = 126 bytes.
        assert!(compose_selector_paths(&mut elements.clone(), 22, 126).is_ok());
        let err = compose_selector_paths(&mut elements.clone(), 21, 1000).unwrap_err().to_string();
        assert!(err.contains("element 5: selector path is 22 bytes, above the limit of 21"), "{err}");
        let err = compose_selector_paths(&mut elements.clone(), 22, 125).unwrap_err().to_string();
        assert!(err.contains("its selector paths come to more than 125 bytes"), "{err}");
        elements[3].selector = ">>> ".into();
        let err = compose_selector_paths(&mut elements, 22, 1000).unwrap_err().to_string();
        assert!(err.contains("element 3: an empty selector segment"), "{err}");
    }
}
