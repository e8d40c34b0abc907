//! A record's element tree: [`prune_depth`] trims a record to its top levels (for
//! `capture_dom_state`), and [`dom_tree`] nests the elements as [`TreeNode`]s to a depth and a
//! node budget.

use serde::Serialize;

use super::record::DomSnapshot;

/// Keeps the elements at most `max_depth` levels below a root (a root is depth 0), renumbering
/// parents; the rest of the record is untouched. `capture_dom_state`'s `max_depth` reads it.
///
/// Parents come before their children (as [`super::parse_dom`] checks), so one pass in document order
/// knows each parent's depth and new index; a parent out of range counts as no parent rather
/// than a panic.
pub fn prune_depth(snapshot: &mut DomSnapshot, max_depth: usize) {
    let n = snapshot.elements.len();
    let mut depth = Vec::with_capacity(n);
    let mut new_index = vec![None; n];
    let mut kept = Vec::new();
    for (i, e) in snapshot.elements.iter().enumerate() {
        let parent = e.parent_index().filter(|&p| p < i);
        let d = parent.map_or(0, |p| depth[p] + 1);
        depth.push(d);
        if d <= max_depth {
            new_index[i] = Some(kept.len());
            let mut e = e.clone();
            // An element kept has its parent kept too: the parent is one level shallower.
            e.parent = parent.and_then(|p| new_index[p]).map_or(-1, |p| p as i64);
            kept.push(e);
        }
    }
    snapshot.elements = kept;
}

/// One element of [`dom_tree`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TreeNode {
    pub selector: String,
    pub tag: String,
    /// Border box `[x, y, width, height]` in CSS pixels of the page.
    #[serde(rename = "box")]
    pub bounds: [f64; 4],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<TreeNode>,
}

/// The elements as a tree, `max_depth` levels below the roots (a root is depth 0), with at most
/// `max_nodes` nodes taken in document order; also how many elements were left out. The
/// record's flat list is what the core compares; a tree is what a reader follows.
pub fn dom_tree(snapshot: &DomSnapshot, max_depth: usize, max_nodes: usize) -> (Vec<TreeNode>, usize) {
    let n = snapshot.elements.len();
    let mut depth = Vec::with_capacity(n);
    let mut kept = vec![false; n];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    let mut taken = 0;
    for (i, e) in snapshot.elements.iter().enumerate() {
        // Parents come first (parse_dom checks it); one out of range counts as no parent.
        let parent = e.parent_index().filter(|&p| p < i);
        let d = parent.map_or(0, |p| depth[p] + 1);
        depth.push(d);
        let parent_kept = parent.is_none_or(|p| kept[p]);
        if d <= max_depth && parent_kept && taken < max_nodes {
            kept[i] = true;
            taken += 1;
            match parent {
                Some(p) => children[p].push(i),
                None => roots.push(i),
            }
        }
    }
    fn build(i: usize, snapshot: &DomSnapshot, children: &[Vec<usize>]) -> TreeNode {
        let e = &snapshot.elements[i];
        TreeNode {
            selector: e.selector.clone(),
            tag: e.tag.clone(),
            bounds: e.bounds,
            children: children[i].iter().map(|&c| build(c, snapshot, children)).collect(),
        }
    }
    (roots.iter().map(|&r| build(r, snapshot, &children)).collect(), n - taken)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::dom::ElementRecord;
    use crate::dom::test_records::{page, parse};

    #[test]
    fn dom_tree_nests_children_to_a_depth_and_a_node_budget() {
        let snapshot = parse(&page());
        let (tree, left_out) = dom_tree(&snapshot, 10, 100);
        assert_eq!(left_out, 0);
        assert_eq!(tree.len(), 1);
        let body = &tree[0];
        let names: Vec<&str> = body.children.iter().map(|c| c.selector.as_str()).collect();
        assert_eq!(names, ["body > header", "body > main", "body > footer"]);
        assert_eq!(body.children[1].children[0].children[0].selector, "#card-a > p");
        // One level deep: body and its three children; the rest is left out and said so.
        let (shallow, left_out) = dom_tree(&snapshot, 1, 100);
        assert!(shallow[0].children.iter().all(|c| c.children.is_empty()));
        assert_eq!(left_out, 5);
        // A node budget takes the first elements in document order.
        let (few, left_out) = dom_tree(&snapshot, 10, 3);
        assert_eq!(few[0].children.len(), 1);
        assert_eq!(few[0].children[0].children[0].selector, "body > header > h1");
        assert_eq!(left_out, 6);
    }

    #[test]
    fn dom_prune_depth_keeps_the_top_levels() {
        let kept = |max_depth: usize| {
            let mut s = parse(&page());
            prune_depth(&mut s, max_depth);
            s.elements.iter().map(|e| (e.selector.clone(), e.parent)).collect::<Vec<_>>()
        };
        let named = |list: &[(&str, i64)]| list.iter().map(|&(s, p)| (s.to_owned(), p)).collect::<Vec<_>>();
        assert_eq!(kept(0), named(&[("body", -1)]));
        assert_eq!(kept(1), named(&[("body", -1), ("body > header", 0), ("body > main", 0), ("body > footer", 0)]));
        assert_eq!(
            kept(2),
            named(&[
                ("body", -1),
                ("body > header", 0),
                ("body > header > h1", 1),
                ("body > main", 0),
                ("#card-a", 3),
                ("#card-b", 3),
                ("body > footer", 0),
            ])
        );
        assert_eq!(kept(3).len(), 9);
        // What is kept keeps its mask: the masked card stays excluded, its paragraph is gone.
        let mut v = page();
        v["elements"][4]["masked"] = json!(true);
        let mut s = parse(&v);
        prune_depth(&mut s, 2);
        let excluded: Vec<bool> = s.elements.iter().map(ElementRecord::is_excluded).collect();
        assert_eq!(excluded, [false, false, false, false, true, false, false]);
        assert_eq!((s.url.as_str(), s.fonts.len(), s.style_properties.len()), ("http://localhost:3000/", 1, 3));
    }
}
