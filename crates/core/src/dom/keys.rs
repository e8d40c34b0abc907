//! The keys two captures' elements are aligned by (see [`match_elements`](super::pairing)): each
//! capture's elements as a tree, and per element one key for each alignment pass, from the finest
//! (its whole subtree) to the loosest. Keys never contain a selector's `:nth-of-type(n)` nor its
//! parent path, so one inserted sibling renames later siblings but changes none of their keys.

use super::record::ElementRecord;

/// Alignment passes over sibling lists, finest key first: subtree, own content and shape, each
/// with the element's name (the `#id` or classes of its selector segment); then subtree and own
/// content without names, then the tag alone. An app that gives an element a new id or class on
/// every render (`:r1:`, `navAcro=`, a hashed class), or flips a row's class from `passed` to
/// `failed`, renames it; the unnamed passes still pair it where its place, tag and content agree.
pub(super) const PASSES: usize = 6;

/// One capture's elements as a tree, with the keys siblings are aligned by.
pub(super) struct Forest {
    /// The children of element `i` are `kids[start[i]..start[i + 1]]`, in document order.
    start: Vec<u32>,
    kids: Vec<u32>,
    /// Elements without a parent, in document order.
    pub(super) roots: Vec<u32>,
    /// `keys[pass][i]`: element `i`'s key in each alignment pass (see [`match_elements`]).
    pub(super) keys: [Vec<u64>; PASSES],
}

impl Forest {
    /// The keys of `es`; own-content keys leave images out when `images` is false.
    pub(super) fn new(es: &[ElementRecord], images: bool) -> Self {
        let n = es.len();
        // A parent out of range (a record not from parse_dom) makes a root rather than a panic.
        let parent = |e: &ElementRecord| e.parent_index().filter(|&p| p < n);
        let mut start = vec![0u32; n + 1];
        let mut roots = Vec::new();
        for (i, e) in es.iter().enumerate() {
            match parent(e) {
                Some(p) => start[p + 1] += 1,
                None => roots.push(i as u32),
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut kids = vec![0u32; start[n] as usize];
        for (i, e) in es.iter().enumerate() {
            if let Some(p) = parent(e) {
                kids[fill[p] as usize] = i as u32;
                fill[p] += 1;
            }
        }

        let shape: Vec<u64> = es.iter().map(shape_key).collect();
        let own: Vec<u64> = es
            .iter()
            .zip(&shape)
            .map(|(e, &s)| {
                // A masked element's content is no evidence: only its shape counts.
                if e.is_excluded() { s } else { own_content(s, e, images) }
            })
            .collect();
        let tag: Vec<u64> = es.iter().map(tag_key).collect();
        let own_unnamed: Vec<u64> =
            es.iter().zip(&tag).map(|(e, &t)| if e.is_excluded() { t } else { own_content(t, e, images) }).collect();
        let tree = subtree_keys(es, &start, &kids, &own);
        let tree_unnamed = subtree_keys(es, &start, &kids, &own_unnamed);
        Forest { start, kids, roots, keys: [tree, own, shape, tree_unnamed, own_unnamed, tag] }
    }

    pub(super) fn children(&self, i: u32) -> &[u32] {
        &self.kids[self.start[i as usize] as usize..self.start[i as usize + 1] as usize]
    }
}

/// Each element's `own` key mixed with its children's subtree keys, in order.
fn subtree_keys(es: &[ElementRecord], start: &[u32], kids: &[u32], own: &[u64]) -> Vec<u64> {
    // Children come after their parent, so walking backwards finishes every subtree first.
    let mut tree = own.to_vec();
    for i in (0..es.len()).rev() {
        if !es[i].is_excluded() {
            let kids = &kids[start[i] as usize..start[i + 1] as usize];
            tree[i] = kids.iter().fold(own[i], |h, &k| mix(h, tree[k as usize]));
        }
    }
    tree
}

/// The key of an element's tag, and whether its segment starts a shadow root or frame document.
fn tag_key(e: &ElementRecord) -> u64 {
    let (_, entered) = last_segment(&e.selector);
    mix(digest_bytes(0, e.tag.as_bytes()), u64::from(entered))
}

/// The key of an element's kind: its tag and the last segment of its selector without
/// `:nth-of-type(n)` (tag and classes, or `#id`), and whether that segment starts a shadow root
/// or frame document.
fn shape_key(e: &ElementRecord) -> u64 {
    let (segment, _) = last_segment(&e.selector);
    digest_bytes(tag_key(e), strip_nth_of_type(segment).as_bytes())
}

/// The selector's last segment, and whether it follows ` >>> ` (collector segments never contain
/// ` > ` or ` >>> `).
pub(super) fn last_segment(selector: &str) -> (&str, bool) {
    // The last `>` followed by a space ends the last ` > ` or ` >>> `.
    let bytes = selector.as_bytes();
    let mut end = bytes.len();
    while let Some(at) = bytes[..end].iter().rposition(|&b| b == b'>') {
        if bytes.get(at + 1) == Some(&b' ') {
            if at >= 1 && bytes[at - 1] == b' ' {
                return (&selector[at + 2..], false);
            }
            if at >= 3 && &bytes[at - 3..at] == b" >>" {
                return (&selector[at + 2..], true);
            }
        }
        end = at;
    }
    (selector, false)
}

/// `p.copy:nth-of-type(13)` → `p.copy` (an escaped class cannot hold an unescaped `(`).
pub(super) fn strip_nth_of_type(segment: &str) -> &str {
    const NTH: &[u8] = b":nth-of-type";
    let bytes = segment.as_bytes();
    if let Some(inner) = bytes.strip_suffix(b")")
        && let Some(open) = inner.iter().rposition(|&b| b == b'(')
        && inner[open + 1..].iter().all(u8::is_ascii_digit)
        && inner[..open].ends_with(NTH)
    {
        return &segment[..open - NTH.len()];
    }
    segment
}

/// An `#id` selector (the whole path replaced by a unique id), possibly inside a shadow root or
/// frame: `#promo`, `my-card >>> #title`.
pub(super) fn is_id_selector(selector: &str) -> bool {
    let (segment, entered) = last_segment(selector);
    segment.starts_with('#') && (entered || segment.len() == selector.len())
}

/// Mixes one word into a key. For a given `h` it is a bijection of `w` (multiplication by an
/// odd number and an xor-shift are both invertible): two keys differing in one word differ.
fn mix(h: u64, w: u64) -> u64 {
    let x = (h ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^ (x >> 29)
}

/// Mixes a byte string into a key, eight bytes at a time, then its length (which tells
/// `"a"` from `"a\0"`).
fn digest_bytes(h: u64, bytes: &[u8]) -> u64 {
    let mut chunks = bytes.chunks_exact(8);
    let mut h = chunks.by_ref().fold(h, |h, c| mix(h, u64::from_le_bytes(c.try_into().unwrap_or_default())));
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        h = mix(h, u64::from_le_bytes(word));
    }
    mix(h, bytes.len() as u64)
}

/// Adds an optional digest to a key, `None` and `Some("")` apart.
/// `h` with the element's own text and, when `images`, its image digest.
fn own_content(h: u64, e: &ElementRecord, images: bool) -> u64 {
    let h = digest_option(h, e.text.as_deref());
    if images { digest_option(h, e.image.as_deref()) } else { h }
}

fn digest_option(h: u64, value: Option<&str>) -> u64 {
    match value {
        None => mix(h, u64::MAX),
        Some(v) => digest_bytes(h, v.as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dom_selector_segments_drop_only_nth_of_type() {
        assert_eq!(last_segment("body > main > p.copy:nth-of-type(3)"), ("p.copy:nth-of-type(3)", false));
        assert_eq!(last_segment("body > x-list >>> li"), ("li", true));
        assert_eq!(last_segment("#host >>> div > span"), ("span", false));
        assert_eq!(last_segment("body"), ("body", false));
        assert_eq!(strip_nth_of_type("p.copy:nth-of-type(13)"), "p.copy");
        assert_eq!(strip_nth_of_type("p.a\\:nth-of-type\\(1\\)"), "p.a\\:nth-of-type\\(1\\)");
        assert_eq!(strip_nth_of_type("li:nth-of-type(x)"), "li:nth-of-type(x)");
        assert!(is_id_selector("#promo"));
        assert!(is_id_selector("body > x-list >>> #title"));
        assert!(!is_id_selector("#card > p"));
        assert!(!is_id_selector("body > p#x"));
    }
}
