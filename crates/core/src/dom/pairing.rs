//! Pairing: which baseline element is which current element. [`match_elements`] aligns the two
//! element trees like a line diff, so one inserted sibling is one added element however many
//! siblings it renames; the comparison then reads each pair.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use super::keys::{Forest, PASSES, is_id_selector};
use super::record::ElementRecord;

/// Largest LCS table (in cells) for one gap between anchors; a larger gap is split by
/// patience diff instead (see [`Pairing::common_subsequence`]).
const LCS_CELLS: usize = 1 << 16;

/// Pairs the elements of two captures, like a line diff over the element tree. Returns, per
/// baseline element, its current twin and, per current element, its baseline twin.
///
/// 1. An element whose selector is an `#id` found once on each side pairs with its namesake,
///    wherever either of them is.
/// 2. The roots, then the children of every pair (those paired by id left out), are aligned as
///    sequences in up to six passes, each confined to the gaps between the anchors the
///    previous one found: on a digest of the element's whole subtree, on its own content (tag
///    and classes, own text, image), then on its tag and classes alone — so an element whose
///    text changed still pairs, as modified — then on the subtree and own content without the
///    element's name (its `#id` or classes), then on its tag alone, so an element an app renamed
///    (a new random id on every render, a class flipped) still pairs where it stands. Each pass
///    pairs the common prefix and suffix, then a longest common subsequence of the rest (for a
///    gap too large for that, a patience diff). Pairs never cross: reordered siblings show as
///    removed + added, as in a line diff.
///
/// Keys never contain a selector's `:nth-of-type(n)` nor its parent path: one inserted sibling
/// renames every later sibling and their descendants, but pairs none of them differently.
///
/// `images` is false when the records' image digests cannot be compared
/// ([`DomSnapshot::names_images_alike`](super::DomSnapshot::names_images_alike)): no key holds them.
pub(super) fn match_elements(
    bs: &[ElementRecord],
    cs: &[ElementRecord],
    images: bool,
) -> (Vec<Option<u32>>, Vec<Option<u32>>) {
    let (fb, fc) = (Forest::new(bs, images), Forest::new(cs, images));
    let mut pairing = Pairing {
        baseline: &fb,
        current: &fc,
        baseline_pair: vec![None; bs.len()],
        current_pair: vec![None; cs.len()],
        queue: Vec::new(),
        table: Vec::new(),
    };
    pairing.pair_ids(bs, cs);
    pairing.align_children(None);
    while let Some(pair) = pairing.queue.pop() {
        pairing.align_children(Some(pair));
    }
    (pairing.baseline_pair, pairing.current_pair)
}

/// The pairing under way in [`match_elements`].
struct Pairing<'a> {
    baseline: &'a Forest,
    current: &'a Forest,
    baseline_pair: Vec<Option<u32>>,
    current_pair: Vec<Option<u32>>,
    /// Pairs whose children are still to align.
    queue: Vec<(u32, u32)>,
    /// LCS table, reused between gaps.
    table: Vec<u16>,
}

impl Pairing<'_> {
    fn pair(&mut self, b: u32, c: u32) {
        self.baseline_pair[b as usize] = Some(c);
        self.current_pair[c as usize] = Some(b);
        self.queue.push((b, c));
    }

    /// Pairs the `#id` selectors found exactly once on each side.
    fn pair_ids(&mut self, bs: &[ElementRecord], cs: &[ElementRecord]) {
        fn index(es: &[ElementRecord]) -> HashMap<&str, Option<u32>> {
            let mut ids = HashMap::new();
            for (i, e) in es.iter().enumerate() {
                if is_id_selector(&e.selector) {
                    match ids.entry(e.selector.as_str()) {
                        Entry::Vacant(v) => {
                            v.insert(Some(i as u32));
                        }
                        Entry::Occupied(mut o) => *o.get_mut() = None, // repeated: aligned in place
                    }
                }
            }
            ids
        }
        let current = index(cs);
        if current.is_empty() {
            return;
        }
        for (selector, b) in index(bs) {
            if let (Some(b), Some(&Some(c))) = (b, current.get(selector)) {
                self.pair(b, c);
            }
        }
    }

    /// Aligns the children of a pair, or the roots for `None`.
    fn align_children(&mut self, pair: Option<(u32, u32)>) {
        let (fb, fc) = (self.baseline, self.current);
        let (b, c) = match pair {
            Some((b, c)) => (fb.children(b), fc.children(c)),
            None => (&fb.roots[..], &fc.roots[..]),
        };
        // Children already paired by id are left out (of both lists: a child paired by id can
        // only be paired with an element of the other side).
        let unpaired_b = |i: &&u32| self.baseline_pair[**i as usize].is_none();
        let unpaired_c = |i: &&u32| self.current_pair[**i as usize].is_none();
        if b.iter().all(|i| unpaired_b(&i)) && c.iter().all(|i| unpaired_c(&i)) {
            self.align(b, c, 0);
        } else {
            let b: Vec<u32> = b.iter().filter(unpaired_b).copied().collect();
            let c: Vec<u32> = c.iter().filter(unpaired_c).copied().collect();
            self.align(&b, &c, 0);
        }
    }

    /// Pairs sibling lists `b` and `c` on the keys of `pass`, then the gaps on the next pass.
    fn align(&mut self, b: &[u32], c: &[u32], pass: usize) {
        let (kb, kc) = (&self.baseline.keys[pass], &self.current.keys[pass]);
        let same = |i: u32, j: u32| kb[i as usize] == kc[j as usize];
        let prefix = b.iter().zip(c).take_while(|&(&i, &j)| same(i, j)).count();
        let suffix = b[prefix..].iter().rev().zip(c[prefix..].iter().rev()).take_while(|&(&i, &j)| same(i, j)).count();
        for (&i, &j) in b[..prefix].iter().zip(c).chain(b[b.len() - suffix..].iter().zip(&c[c.len() - suffix..])) {
            self.pair(i, j);
        }
        let (b, c) = (&b[prefix..b.len() - suffix], &c[prefix..c.len() - suffix]);
        if b.is_empty() || c.is_empty() {
            return;
        }
        let mut anchors = Vec::new();
        // Without a key in common (every text changed, say) the whole gap goes to the next pass.
        if self.share_a_key(b, c, pass) {
            self.common_subsequence(b, c, pass, (0, 0), 0, &mut anchors);
        }
        let (mut i0, mut j0) = (0, 0);
        for (i, j) in anchors.into_iter().chain([(b.len(), c.len())]) {
            if pass + 1 < PASSES && i > i0 && j > j0 {
                self.align(&b[i0..i], &c[j0..j], pass + 1);
            }
            if i < b.len() {
                self.pair(b[i], c[j]);
            }
            (i0, j0) = (i + 1, j + 1);
        }
    }

    /// Whether an element of `b` and one of `c` have the same key on `pass`.
    fn share_a_key(&self, b: &[u32], c: &[u32], pass: usize) -> bool {
        let (kb, kc) = (&self.baseline.keys[pass], &self.current.keys[pass]);
        if b.len() * c.len() <= 64 {
            return b.iter().any(|&i| c.iter().any(|&j| kb[i as usize] == kc[j as usize]));
        }
        let keys: HashSet<u64> = b.iter().map(|&i| kb[i as usize]).collect();
        c.iter().any(|&j| keys.contains(&kc[j as usize]))
    }

    /// Appends to `out` a common subsequence of `b` and `c` on the keys of `pass`, as index pairs
    /// offset by `at`, in order: the longest one when its table fits in [`LCS_CELLS`]; otherwise
    /// the keys found once on each side, in their longest order-preserving run (patience diff),
    /// with the gaps between them filled the same way; failing such keys, greedily in order.
    fn common_subsequence(
        &mut self,
        b: &[u32],
        c: &[u32],
        pass: usize,
        at: (usize, usize),
        depth: u32,
        out: &mut Vec<(usize, usize)>,
    ) {
        /// Patience levels within one gap; deeper gaps are paired greedily.
        const MAX_DEPTH: u32 = 8;
        if b.is_empty() || c.is_empty() {
            return;
        }
        if b.len() * c.len() <= LCS_CELLS {
            self.longest_common_subsequence(b, c, pass, at, out);
            return;
        }
        let (kb, kc) = (&self.baseline.keys[pass], &self.current.keys[pass]);
        let unique = if depth < MAX_DEPTH { unique_anchors(b, c, kb, kc) } else { Vec::new() };
        if unique.is_empty() {
            greedy_subsequence(b, c, kb, kc, at, out);
            return;
        }
        let (mut i0, mut j0) = (0, 0);
        for (i, j) in unique.into_iter().chain([(b.len(), c.len())]) {
            self.common_subsequence(&b[i0..i], &c[j0..j], pass, (at.0 + i0, at.1 + j0), depth + 1, out);
            if i < b.len() {
                out.push((at.0 + i, at.1 + j));
            }
            (i0, j0) = (i + 1, j + 1);
        }
    }

    /// Appends a longest common subsequence of `b` and `c` (its table within [`LCS_CELLS`]).
    fn longest_common_subsequence(
        &mut self,
        b: &[u32],
        c: &[u32],
        pass: usize,
        at: (usize, usize),
        out: &mut Vec<(usize, usize)>,
    ) {
        let (kb, kc) = (&self.baseline.keys[pass], &self.current.keys[pass]);
        let xb: Vec<u64> = b.iter().map(|&i| kb[i as usize]).collect();
        let xc: Vec<u64> = c.iter().map(|&j| kc[j as usize]).collect();
        let (n, m) = (b.len(), c.len());
        let w = m + 1;
        // Row i holds the LCS lengths of b[i..] and c[j..] for every j; at most min(n, m) ≤ 256.
        let t = &mut self.table;
        t.clear();
        t.resize((n + 1) * w, 0);
        for (i, &x) in xb.iter().enumerate().rev() {
            let (row, below) = t[i * w..(i + 2) * w].split_at_mut(w);
            for j in (0..m).rev() {
                row[j] = if x == xc[j] { below[j + 1] + 1 } else { below[j].max(row[j + 1]) };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n && j < m {
            if xb[i] == xc[j] {
                out.push((at.0 + i, at.1 + j));
                (i, j) = (i + 1, j + 1);
            } else if t[(i + 1) * w + j] >= t[i * w + j + 1] {
                i += 1;
            } else {
                j += 1;
            }
        }
    }
}

/// The elements whose key occurs exactly once in `b` and once in `c`, as index pairs: the
/// longest run of them in the same order on both sides (patience diff).
fn unique_anchors(b: &[u32], c: &[u32], kb: &[u64], kc: &[u64]) -> Vec<(usize, usize)> {
    // key → [occurrences in b, last position in b, occurrences in c, last position in c]
    let mut seen: HashMap<u64, [usize; 4]> = HashMap::with_capacity(b.len());
    for (i, &e) in b.iter().enumerate() {
        let s = seen.entry(kb[e as usize]).or_default();
        (s[0], s[1]) = (s[0] + 1, i);
    }
    for (j, &e) in c.iter().enumerate() {
        if let Some(s) = seen.get_mut(&kc[e as usize]) {
            (s[2], s[3]) = (s[2] + 1, j);
        }
    }
    // In order of c; the longest run increasing in b, by patience sorting.
    let candidates: Vec<(usize, usize)> = c
        .iter()
        .enumerate()
        .filter_map(|(j, &e)| seen.get(&kc[e as usize]).filter(|s| s[0] == 1 && s[2] == 1).map(|s| (s[1], j)))
        .collect();
    let mut tails: Vec<usize> = Vec::new();
    let mut previous: Vec<Option<usize>> = vec![None; candidates.len()];
    for (k, &(i, _)) in candidates.iter().enumerate() {
        let len = tails.partition_point(|&t| candidates[t].0 < i);
        previous[k] = len.checked_sub(1).map(|l| tails[l]);
        if len == tails.len() {
            tails.push(k);
        } else {
            tails[len] = k;
        }
    }
    let mut run = Vec::with_capacity(tails.len());
    let mut k = tails.last().copied();
    while let Some(x) = k {
        run.push(candidates[x]);
        k = previous[x];
    }
    run.reverse();
    run
}

/// Appends a common subsequence found greedily: each element of `c` in turn pairs with the
/// first element of `b` of its key after the last one paired. Linear; for large gaps without
/// keys unique on both sides.
fn greedy_subsequence(b: &[u32], c: &[u32], kb: &[u64], kc: &[u64], at: (usize, usize), out: &mut Vec<(usize, usize)>) {
    // key → (its positions in b, the first one not yet passed)
    let mut positions: HashMap<u64, (Vec<usize>, usize)> = HashMap::new();
    for (i, &e) in b.iter().enumerate() {
        positions.entry(kb[e as usize]).or_default().0.push(i);
    }
    let mut next = 0;
    for (j, &e) in c.iter().enumerate() {
        if let Some((list, cursor)) = positions.get_mut(&kc[e as usize]) {
            while list.get(*cursor).is_some_and(|&i| i < next) {
                *cursor += 1;
            }
            if let Some(&i) = list.get(*cursor) {
                *cursor += 1;
                next = i + 1;
                out.push((at.0 + i, at.1 + j));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::dom::test_records::{BLACK, BLUE, CLEAR};
    use crate::dom::test_records::{attribute, compare, el, named, page, region};
    use crate::dom::{
        ClassChange, ContentChange, ElementList, ModifiedElement, ModifiedElements, MovedElements, StyleCheck,
    };
    use crate::regions::ElementRole;
    use crate::shift::PageShift;

    /// body > main > twelve `p.copy` paragraphs, 40 px tall, each with its own text. `promo`
    /// inserts `<p id="promo">` (30 px) before them, `skip` leaves paragraph `skip` (0-based) out,
    /// `edit` gives paragraph `edit` new text. Selectors count `:nth-of-type` as the collector does.
    fn copy_page(promo: bool, skip: Option<usize>, edit: Option<usize>) -> Value {
        let kept: Vec<usize> = (0..12).filter(|&k| Some(k) != skip).collect();
        let height = kept.len() as f64 * 40.0 + if promo { 30.0 } else { 0.0 };
        let mut elements = vec![
            el(-1, "body", "body", [0.0, 0.0, 800.0, height], None),
            el(0, "main", "body > main", [0.0, 0.0, 800.0, height], None),
        ];
        let (mut y, mut nth) = (0.0, 0);
        if promo {
            elements.push(el(1, "p", "#promo", [0.0, 0.0, 800.0, 30.0], Some("aa")));
            (y, nth) = (30.0, 1);
        }
        for k in kept {
            nth += 1;
            let text = if Some(k) == edit { format!("e{k:x}") } else { format!("c{k:x}") };
            let selector = format!("body > main > p.copy:nth-of-type({nth})");
            elements.push(el(1, "p", &selector, [0.0, y, 800.0, 40.0], Some(&text)));
            y += 40.0;
        }
        let mut v = page();
        v["elements"] = Value::Array(elements);
        v
    }

    fn copy(nth: usize) -> String {
        format!("body > main > p.copy:nth-of-type({nth})")
    }

    #[test]
    fn dom_inserted_sibling_is_one_added_element() {
        // `<p id="promo">` before 12 `p.copy`: every paragraph's :nth-of-type goes up by one.
        let (a, b) = (copy_page(false, None, None), copy_page(true, None, None));
        let d = compare(&a, &b);
        assert!(d.changed);
        assert_eq!(d.added, ElementList { count: 1, elements: vec!["#promo".into()] });
        assert_eq!(d.removed, ElementList::default());
        assert_eq!(d.modified, ModifiedElements::default());
        assert_eq!(d.style_check, StyleCheck::Match);
        assert_eq!(d.style_changes.count, 0);
        let g = &d.geometry_changes;
        assert_eq!((g.count, g.resized_count, g.moved_count), (14, 2, 12));
        assert_eq!(
            g.moved,
            [MovedElements {
                selector: copy(2),
                from: [0.0, 0.0, 800.0, 40.0],
                to: [0.0, 30.0, 800.0, 40.0],
                dx: 0.0,
                dy: 30.0,
                count: 12
            }]
        );
        // Paragraph k (element 2 + k) is paired with its renamed self (element 3 + k).
        let pairs: Vec<Option<u32>> = (0..12).map(|k| d.roles.baseline_pair[2 + k]).collect();
        assert_eq!(pairs, (0..12).map(|k| Some(3 + k)).collect::<Vec<_>>());
        assert_eq!(d.roles.current[2], Some(ElementRole::Added));
        assert!(d.roles.current[3..].iter().all(|&r| r == Some(ElementRole::Moved)));
        // Attribution: the promo band is the added element, a paragraph below it only moved.
        let shift = PageShift { dy: 30, below_y: 0 };
        let found = attribute(&a, &b, &[region(0, 0, 800, 30), region(0, 110, 800, 40)], Some(shift));
        assert_eq!(found, [named(&[("#promo", ElementRole::Added)]), named(&[(&copy(4), ElementRole::Moved)])]);
    }

    #[test]
    fn dom_removed_sibling_is_one_removed_element() {
        let d = compare(&copy_page(false, None, None), &copy_page(false, Some(5), None));
        assert_eq!(d.removed, ElementList { count: 1, elements: vec![copy(6)] });
        assert_eq!(d.added, ElementList::default());
        assert_eq!(d.modified, ModifiedElements::default());
        assert_eq!(d.style_changes.count, 0);
        let g = &d.geometry_changes;
        assert_eq!((g.count, g.resized_count, g.moved_count), (8, 2, 6));
        assert_eq!(
            g.moved,
            [MovedElements {
                selector: copy(6),
                from: [0.0, 240.0, 800.0, 40.0],
                to: [0.0, 200.0, 800.0, 40.0],
                dx: 0.0,
                dy: -40.0,
                count: 6
            }]
        );
    }

    #[test]
    fn dom_text_change_among_siblings_is_modified_not_replaced() {
        let d = compare(&copy_page(false, None, None), &copy_page(false, None, Some(4)));
        assert_eq!((d.added.count, d.removed.count), (0, 0));
        assert_eq!(d.modified.elements, [ModifiedElement { selector: copy(5), changes: vec![ContentChange::Text] }]);
        assert_eq!(d.geometry_changes.count, 0);
        // With an insertion before it: one added, the edited paragraph (now the 6th) modified.
        let d = compare(&copy_page(false, None, None), &copy_page(true, None, Some(4)));
        assert_eq!(d.added, ElementList { count: 1, elements: vec!["#promo".into()] });
        assert_eq!(d.removed.count, 0);
        assert_eq!(d.modified.elements, [ModifiedElement { selector: copy(6), changes: vec![ContentChange::Text] }]);
        // Two neighbours edited and one removed between them: which of the three is gone is
        // ambiguous, but it is still one removed and two modified, not a replacement.
        let mut b = copy_page(false, Some(5), None);
        b["elements"][6]["text"] = json!("f4"); // paragraph 4
        b["elements"][7]["text"] = json!("f6"); // paragraph 6, after the removed one
        let d = compare(&copy_page(false, None, None), &b);
        assert_eq!((d.added.count, d.removed.count, d.modified.count), (0, 1, 2));
    }

    /// An app's navigation as one render gives it: each `li` and its link carry ids the app
    /// makes anew on every render (`navAcro…=` style, no digit, so the selectors use them), and
    /// the badge counts `count`.
    fn rendered_nav(render: usize, count: &str) -> Value {
        let id = |k: usize| format!("#nav{}{k}\\=", ["Acro", "Bzuq", "Cwex"][render % 3]);
        let mut elements = vec![
            el(-1, "body", "body", [0.0, 0.0, 800.0, 300.0], None),
            el(0, "nav", "body > nav", [0.0, 0.0, 800.0, 300.0], None),
        ];
        for k in 0..4 {
            let li = elements.len() as i64;
            elements.push(el(1, "li", &id(k), [0.0, k as f64 * 40.0, 800.0, 40.0], None));
            elements.push(el(
                li,
                "a",
                &format!("{} > a", id(k)),
                [0.0, k as f64 * 40.0, 600.0, 40.0],
                Some(&format!("t{k}")),
            ));
        }
        elements.push(el(1, "span", "body > nav > span.badge", [700.0, 0.0, 29.0, 15.0], Some(count)));
        let mut v = page();
        v["elements"] = Value::Array(elements);
        v
    }

    #[test]
    fn dom_ids_an_app_makes_anew_on_every_render_are_no_change() {
        for render in 1..11 {
            let d = compare(&rendered_nav(0, "100"), &rendered_nav(render, if render % 2 == 0 { "100" } else { "20" }));
            assert_eq!((d.added.count, d.removed.count, d.class_changes.count), (0, 0, 0), "render {render}");
            let modified: Vec<&str> = d.modified.elements.iter().map(|m| m.selector.as_str()).collect();
            let expected: &[&str] = if render % 2 == 0 { &[] } else { &["body > nav > span.badge"] };
            assert_eq!(modified, expected, "render {render}: only the badge's word changed");
        }
    }

    #[test]
    fn dom_classes_an_app_names_anew_on_every_render_are_no_change() {
        // CSS-in-JS classes without a digit, new on every render; nothing else differs.
        let list = |token: &str| {
            let mut elements = vec![el(-1, "body", "body", [0.0, 0.0, 800.0, 300.0], None)];
            for k in 0..3 {
                let selector = format!("body > p.sc-{token}:nth-of-type({})", k + 1);
                elements.push(el(0, "p", &selector, [0.0, k as f64 * 40.0, 800.0, 40.0], Some(&format!("t{k}"))));
            }
            let mut v = page();
            v["elements"] = Value::Array(elements);
            v
        };
        let d = compare(&list("bdVaJa"), &list("kGiPQe"));
        assert_eq!((d.added.count, d.removed.count, d.modified.count, d.class_changes.count), (0, 0, 0, 0));
    }

    #[test]
    fn dom_a_class_flip_is_one_element_with_a_class_change_and_its_styles() {
        // A test report's rows; the second flips from passed to failed, turns red, and shows
        // its error below its title.
        let report = |flipped: bool| {
            let mut elements = vec![
                el(-1, "body", "body", [0.0, 0.0, 800.0, 300.0], None),
                el(0, "table", "body > table", [0.0, 0.0, 800.0, 300.0], None),
            ];
            for k in 0..3 {
                let state = if flipped && k == 1 { "failed" } else { "passed" };
                let row = elements.len() as i64;
                let mut tr = el(
                    1,
                    "tr",
                    &format!("body > table > tr.row.{state}:nth-of-type({})", k + 1),
                    [0.0, k as f64 * 60.0, 800.0, 60.0],
                    None,
                );
                if state == "failed" {
                    tr["styles"] = json!([BLUE, CLEAR, "16px"]);
                }
                let tr_selector = tr["selector"].as_str().unwrap().to_owned();
                elements.push(tr);
                elements.push(el(
                    row,
                    "td",
                    &format!("{tr_selector} > td"),
                    [0.0, k as f64 * 60.0, 800.0, 30.0],
                    Some(&format!("n{k}")),
                ));
                if state == "failed" {
                    elements.push(el(
                        row,
                        "pre",
                        &format!("{tr_selector} > pre.error"),
                        [0.0, k as f64 * 60.0 + 30.0, 800.0, 30.0],
                        Some("e1"),
                    ));
                }
            }
            let mut v = page();
            v["elements"] = Value::Array(elements);
            v
        };
        let d = compare(&report(false), &report(true));
        assert_eq!(
            d.added,
            ElementList { count: 1, elements: vec!["body > table > tr.row.failed:nth-of-type(2) > pre.error".into()] }
        );
        assert_eq!((d.removed.count, d.modified.count), (0, 0));
        assert_eq!(
            d.class_changes.elements,
            [ClassChange {
                selector: "body > table > tr.row.failed:nth-of-type(2)".into(),
                from: vec!["passed".into()],
                to: vec!["failed".into()]
            }]
        );
        assert_eq!(
            d.class_changes.first_sentence().unwrap(),
            "class passed → failed (body > table > tr.row.failed:nth-of-type(2))"
        );
        assert_eq!(d.style_changes.elements, ["body > table > tr.row.failed:nth-of-type(2)"]);
        assert_eq!(
            (d.style_changes.properties[0].from.as_str(), d.style_changes.properties[0].to.as_str()),
            (BLACK, BLUE)
        );
    }

    #[test]
    fn dom_children_of_renamed_siblings_pair_with_them() {
        // Cards without own text, each with a heading; a card inserted first renames every
        // card and heading, and the third card's heading changes.
        let doc = |insert: bool| {
            let mut elements = vec![el(-1, "body", "body", [0.0, 0.0, 800.0, 600.0], None)];
            let cards: Vec<usize> = (usize::from(!insert)..6).collect();
            for (n, &k) in cards.iter().enumerate() {
                let card = format!("body > div.card:nth-of-type({})", n + 1);
                let y = n as f64 * 100.0;
                let parent = elements.len() as i64;
                elements.push(el(0, "div", &card, [0.0, y, 800.0, 100.0], None));
                let text = if insert && k == 3 { "ff".to_owned() } else { format!("h{k}") };
                elements.push(el(parent, "h2", &format!("{card} > h2"), [0.0, y, 800.0, 30.0], Some(&text)));
            }
            let mut v = page();
            v["elements"] = Value::Array(elements);
            v
        };
        let d = compare(&doc(false), &doc(true));
        assert_eq!(d.added.elements, ["body > div.card:nth-of-type(1)", "body > div.card:nth-of-type(1) > h2"]);
        assert_eq!(d.removed.count, 0);
        assert_eq!(
            d.modified.elements,
            [ModifiedElement {
                selector: "body > div.card:nth-of-type(4) > h2".into(),
                changes: vec![ContentChange::Text]
            }]
        );
        assert_eq!((d.geometry_changes.moved_count, d.geometry_changes.moved.len()), (10, 1));
    }

    #[test]
    fn dom_id_elements_pair_wherever_they_are_and_shadow_and_frame_children_align() {
        // A shadow root's list and an iframe's paragraphs each get a first item; #card moves
        // from main to the body.
        let doc = |after: bool| {
            let mut elements = vec![
                el(-1, "body", "body", [0.0, 0.0, 800.0, 600.0], None),
                el(0, "main", "body > main", [0.0, 0.0, 800.0, 100.0], None),
                el(if after { 0 } else { 1 }, "div", "#card", [0.0, 0.0, 800.0, 50.0], Some("ca")),
                el(0, "x-list", "body > x-list", [0.0, 100.0, 800.0, 200.0], None),
            ];
            let shift = if after { 1 } else { 0 };
            for k in 0..3 + shift {
                let text = if k < shift { "new".to_owned() } else { format!("li{}", k - shift) };
                let selector = format!("body > x-list >>> li:nth-of-type({})", k + 1);
                elements.push(el(3, "li", &selector, [0.0, 100.0 + 30.0 * k as f64, 800.0, 30.0], Some(&text)));
            }
            let frame = elements.len() as i64;
            elements.push(el(0, "iframe", "#frame", [0.0, 300.0, 800.0, 300.0], None));
            elements.push(el(frame, "body", "#frame >>> body", [0.0, 300.0, 800.0, 300.0], None));
            for k in 0..3 + shift {
                let text = if k < shift { "new".to_owned() } else { format!("fp{}", k - shift) };
                let selector = format!("#frame >>> body > p:nth-of-type({})", k + 1);
                elements.push(el(frame + 1, "p", &selector, [0.0, 300.0 + 30.0 * k as f64, 800.0, 30.0], Some(&text)));
            }
            let mut v = page();
            v["elements"] = Value::Array(elements);
            v
        };
        let d = compare(&doc(false), &doc(true));
        assert_eq!(d.added.elements, ["body > x-list >>> li:nth-of-type(1)", "#frame >>> body > p:nth-of-type(1)"]);
        assert_eq!((d.removed.count, d.modified.count), (0, 0));
        assert_eq!(d.roles.baseline_pair[2], Some(2)); // #card, re-parented
    }

    /// body > ul > one `li` per text, in order.
    fn list_page(texts: impl Iterator<Item = String>) -> Value {
        let mut elements = vec![
            el(-1, "body", "body", [0.0, 0.0, 800.0, 600.0], None),
            el(0, "ul", "body > ul", [0.0, 0.0, 800.0, 600.0], None),
        ];
        for (n, text) in texts.enumerate() {
            let selector = format!("body > ul > li:nth-of-type({})", n + 1);
            elements.push(el(1, "li", &selector, [0.0, 0.0, 800.0, 10.0], Some(&text)));
        }
        let mut v = page();
        v["elements"] = Value::Array(elements);
        v
    }

    fn li(nth: usize) -> String {
        format!("body > ul > li:nth-of-type({nth})")
    }

    #[test]
    fn dom_huge_sibling_lists_still_align_in_order() {
        // 3000 items: too many for one LCS table between the first and the last difference.
        let texts = |n: usize| (0..n).map(|k| format!("{k:x}"));
        let a = list_page(texts(3000));
        // One inserted first, item 1500 edited, item 2990 removed.
        let edited = std::iter::once("new".to_owned()).chain(
            texts(3000).enumerate().filter(|&(k, _)| k != 2990).map(|(k, t)| if k == 1500 { "ed".into() } else { t }),
        );
        let d = compare(&a, &list_page(edited));
        assert_eq!(d.added.elements, [li(1)]);
        assert_eq!(d.removed.elements, [li(2991)]);
        assert_eq!(d.modified.elements, [ModifiedElement { selector: li(1502), changes: vec![ContentChange::Text] }]);
        // Every text changed and one item added: paired in order, the last one added.
        let d = compare(&a, &list_page((0..3001).map(|_| "new".to_owned())));
        assert_eq!((d.added.count, d.removed.count, d.modified.count), (1, 0, 3000));
        assert_eq!(d.added.elements, [li(3001)]);
        // No text unique on either side: paired greedily in order.
        let a = list_page((0..3000).map(|k| format!("{}", k % 2)));
        let b =
            list_page(["x".to_owned()].into_iter().chain((0..2999).map(|k| format!("{}", k % 2))).chain(["y".into()]));
        let d = compare(&a, &b);
        assert_eq!(d.added.elements, [li(1)]);
        assert_eq!(d.removed.count, 0);
        assert_eq!(d.modified.elements, [ModifiedElement { selector: li(3001), changes: vec![ContentChange::Text] }]);
        // Reversed: pairs never cross, so it is no "identical DOM". Every text is unique, and
        // the longest run in the same order on both sides is one item: the patience diff keeps
        // the last candidate in current order, item "0" (baseline li 1, current li 3000). Nothing
        // is left on one side of it to pair, so the other 2999 items are removed and added.
        let d = compare(&list_page(texts(3000)), &list_page(texts(3000).rev()));
        assert!(d.changed);
        assert_eq!((d.added.count, d.removed.count, d.modified.count), (2999, 2999, 0));
        // The lists name the first 10 of each.
        assert_eq!(d.added.elements, (1..=10).map(li).collect::<Vec<_>>());
        assert_eq!(d.removed.elements, (2..=11).map(li).collect::<Vec<_>>());
        assert_eq!(d.roles.baseline_pair[2], Some(2 + 2999));
    }
}
