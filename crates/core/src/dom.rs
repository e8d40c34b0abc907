//! The DOM layer: the record the in-page collector returns, its validation, the comparison of two
//! records (structure, styles, geometry) and the attribution of pixel regions to elements.
//!
//! # The DOM record (format version 1)
//!
//! The collector returns one JSON string from one `page.evaluate`:
//!
//! ```json
//! { "version": 1,
//!   "url": "http://localhost:3000/pricing",
//!   "viewport": { "width": 1280, "height": 720 },
//!   "devicePixelRatio": 1,
//!   "document": { "width": 1280, "height": 4000 },
//!   "styleProperties": ["color", "background-color"],
//!   "elements": [
//!     { "parent": -1, "tag": "body", "selector": "body", "box": [0, 0, 1280, 4000],
//!       "text": null, "image": null, "styles": ["rgb(0, 0, 0)", "rgb(255, 255, 255)"],
//!       "masked": false },
//!     { "parent": 0, "tag": "h1", "selector": "body > h1", "box": [8, 21.4, 1264, 37],
//!       "text": "9f3a5c01d2e4b7a8", "image": null, "styles": ["rgb(0, 0, 0)", "rgba(0, 0, 0, 0)"],
//!       "masked": false }
//!   ],
//!   "fonts": [ { "family": "Inter", "status": "loaded" } ],
//!   "brokenImages": ["http://localhost:3000/missing.png"] }
//! ```
//!
//! - `elements` are in document order; `parent` is the index of the parent's record, always
//!   lower than the element's own index, or `-1` for a root. Shadow roots and same-origin iframes
//!   are walked, their elements parented to the host element.
//! - `selector` is a stable CSS selector path (`body > main > div.row:nth-of-type(2)`, `#id` when
//!   the id is unique). It names elements in reports; [`compare_dom`] pairs elements between
//!   captures tree-wise, like a line diff over each list of siblings (never by `:nth-of-type`),
//!   so one inserted sibling is one added element. A re-parented element shows up as removed +
//!   added, unless it has an `#id` selector.
//! - `box` is the border box `[x, y, width, height]` in CSS pixels of the page (not the
//!   viewport); multiply by `devicePixelRatio` for screenshot pixels.
//! - `text` is a hex digest of the element's own text (its direct text nodes), `image` a digest of
//!   an `<img>`'s `currentSrc` or a `background-image`; `null` when there is none.
//! - `styles` holds the computed values of `styleProperties`, in that order (longhands only).
//!   An empty `styleProperties` means styles were not collected.
//! - `masked` marks elements matched by `mask` / `ignoreSelectors`; they and their descendants
//!   take no part in any check.
//! - `fonts[].status` is the `FontFace` status: `loaded`, `error`, `unloaded` or `loading`.
//!
//! Limits (a record beyond them is rejected by [`parse_dom`]): [`MAX_DOM_BYTES`] of JSON,
//! [`MAX_ELEMENTS`] elements, [`MAX_STYLE_PROPERTIES`] style properties, [`MAX_LIST_ENTRIES`]
//! fonts or broken images, and [`MAX_STRING_BYTES`] per string — the collector shortens longer
//! URLs (`data:` images) itself.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::regions::Region;
use crate::shift::PageShift;

/// The DOM record format version this engine reads.
pub const DOM_VERSION: u32 = 1;
/// Largest DOM record accepted, in bytes of JSON.
pub const MAX_DOM_BYTES: usize = 512 << 20;
/// Most elements one record may hold.
pub const MAX_ELEMENTS: usize = 200_000;
/// Most entries of `styleProperties`.
pub const MAX_STYLE_PROPERTIES: usize = 1024;
/// Most entries of `fonts` and of `brokenImages`.
pub const MAX_LIST_ENTRIES: usize = 100_000;
/// Longest string anywhere in a record, in bytes.
pub const MAX_STRING_BYTES: usize = 16 << 10;
/// A box edge that moved by at most this many CSS pixels did not move (sub-pixel layout jitter).
pub const GEOMETRY_TOLERANCE: f64 = 0.5;

/// Selectors named per list of added / removed / modified / restyled elements.
const LISTED_ELEMENTS: usize = 10;
/// Property changes listed with their values.
const LISTED_PROPERTIES: usize = 50;
/// Most frequent `from → to` changes listed.
const LISTED_COMMON: usize = 5;
/// Resized elements and groups of moved elements listed.
const LISTED_GEOMETRY: usize = 20;
/// Elements named per region.
const ELEMENTS_PER_REGION: usize = 5;

/// One capture's DOM record, parsed and validated by [`parse_dom`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DomSnapshot {
    /// Format version; always [`DOM_VERSION`] after parsing.
    pub version: u32,
    /// The page's URL at capture time.
    pub url: String,
    /// The viewport in CSS pixels.
    pub viewport: CssSize,
    /// Screenshot pixels per CSS pixel.
    pub device_pixel_ratio: f64,
    /// The scrollable document in CSS pixels.
    pub document: CssSize,
    /// Computed-style properties recorded per element, in order; empty when styles were not
    /// collected.
    pub style_properties: Vec<String>,
    /// Every rendered element, in document order.
    pub elements: Vec<ElementRecord>,
    /// Web fonts the page declared and their load status.
    pub fonts: Vec<FontRecord>,
    /// URLs of images that failed to load (`complete && naturalWidth === 0`).
    pub broken_images: Vec<String>,
}

/// A width and height in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CssSize {
    pub width: f64,
    pub height: f64,
}

/// One rendered element of a [`DomSnapshot`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElementRecord {
    /// Index of the parent element's record, or -1 for a root.
    pub parent: i64,
    /// Lower-case tag name.
    pub tag: String,
    /// Stable CSS selector path naming the element (how elements are paired between captures is
    /// described at [`compare_dom`]).
    pub selector: String,
    /// Border box `[x, y, width, height]` in CSS pixels of the page.
    #[serde(rename = "box")]
    pub bounds: [f64; 4],
    /// Digest of the element's own text, if it has any.
    pub text: Option<String>,
    /// Digest of the element's image source (`<img>` or background image), if it has one.
    pub image: Option<String>,
    /// Computed values aligned with [`DomSnapshot::style_properties`].
    pub styles: Vec<String>,
    /// Matched by a mask or ignore selector.
    #[serde(default)]
    pub masked: bool,
    /// Hash of `styles`, computed by [`parse_dom`].
    #[serde(skip)]
    style_digest: u64,
    /// Masked itself or inside a masked element, computed by [`parse_dom`].
    #[serde(skip)]
    excluded: bool,
}

impl ElementRecord {
    /// The parent's index, `None` for a root.
    pub fn parent_index(&self) -> Option<usize> {
        usize::try_from(self.parent).ok()
    }

    /// A 64-bit digest of the style values: equal digests mean equal styles.
    pub fn style_digest(&self) -> u64 {
        self.style_digest
    }

    /// True when the element or one of its ancestors is masked: it takes no part in any check.
    pub fn is_excluded(&self) -> bool {
        self.excluded
    }
}

/// A web font declared by the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FontRecord {
    pub family: String,
    pub status: FontStatus,
}

/// A `FontFace`'s load status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FontStatus {
    Loaded,
    Error,
    Unloaded,
    Loading,
}

/// The caps [`parse_dom`] applies; a parameter only so tests can use small ones.
#[derive(Debug, Clone, Copy)]
struct Limits {
    bytes: usize,
    elements: usize,
    style_properties: usize,
    list_entries: usize,
    string_bytes: usize,
}

const LIMITS: Limits = Limits {
    bytes: MAX_DOM_BYTES,
    elements: MAX_ELEMENTS,
    style_properties: MAX_STYLE_PROPERTIES,
    list_entries: MAX_LIST_ENTRIES,
    string_bytes: MAX_STRING_BYTES,
};

/// Parses and validates the collector's JSON (format in the module docs), computing each
/// element's style digest and whether it is masked.
pub fn parse_dom(json: &str) -> Result<DomSnapshot> {
    parse_with_limits(json, &LIMITS)
}

fn parse_with_limits(json: &str, limits: &Limits) -> Result<DomSnapshot> {
    if json.len() > limits.bytes {
        return Err(bad(format!("{} bytes, above the limit of {}", json.len(), limits.bytes)));
    }
    let mut snapshot: DomSnapshot = match serde_json::from_str(json) {
        Ok(s) => s,
        // A record of another version may have any shape; name the version rather than the
        // first field that does not fit.
        Err(e) => match peek_version(json) {
            Some(v) if v != serde_json::json!(DOM_VERSION) => return Err(version_error(&v.to_string())),
            _ => return Err(bad(format!("not a DOM record ({e})"))),
        },
    };
    if snapshot.version != DOM_VERSION {
        return Err(version_error(&snapshot.version.to_string()));
    }
    validate(&snapshot, limits)?;

    let mut excluded = Vec::with_capacity(snapshot.elements.len());
    for e in &mut snapshot.elements {
        // Parents come first (validated), so the parent's flag is already known.
        e.excluded = e.masked || e.parent_index().is_some_and(|p| excluded[p]);
        e.style_digest = style_digest(&e.styles);
        excluded.push(e.excluded);
    }
    Ok(snapshot)
}

fn peek_version(json: &str) -> Option<serde_json::Value> {
    #[derive(Deserialize)]
    struct Peek {
        version: Option<serde_json::Value>,
    }
    serde_json::from_str::<Peek>(json).ok()?.version
}

fn version_error(version: &str) -> Error {
    bad(format!("format version {version}, this sightline reads version {DOM_VERSION}"))
}

fn bad(detail: String) -> Error {
    Error::BadDom { detail }
}

fn validate(s: &DomSnapshot, limits: &Limits) -> Result<()> {
    let check_string = |what: &dyn Fn() -> String, value: &str| {
        if value.len() > limits.string_bytes {
            return Err(bad(format!(
                "{} is {} bytes, above the limit of {}",
                what(),
                value.len(),
                limits.string_bytes
            )));
        }
        Ok(())
    };
    let check_count = |what: &str, n: usize, limit: usize| {
        if n > limit {
            return Err(bad(format!("{n} {what}, above the limit of {limit}")));
        }
        Ok(())
    };

    check_string(&|| "url".into(), &s.url)?;
    if !(s.device_pixel_ratio.is_finite() && s.device_pixel_ratio > 0.0) {
        return Err(bad(format!("devicePixelRatio {} is not a positive number", s.device_pixel_ratio)));
    }
    for (name, size) in [("viewport", s.viewport), ("document", s.document)] {
        if !(size.width.is_finite() && size.height.is_finite() && size.width >= 0.0 && size.height >= 0.0) {
            return Err(bad(format!("{name} {}×{} is not a size", size.width, size.height)));
        }
    }

    check_count("styleProperties", s.style_properties.len(), limits.style_properties)?;
    for (i, p) in s.style_properties.iter().enumerate() {
        check_string(&|| format!("styleProperties[{i}]"), p)?;
    }
    check_count("fonts", s.fonts.len(), limits.list_entries)?;
    for (i, f) in s.fonts.iter().enumerate() {
        check_string(&|| format!("fonts[{i}].family"), &f.family)?;
    }
    check_count("brokenImages", s.broken_images.len(), limits.list_entries)?;
    for (i, url) in s.broken_images.iter().enumerate() {
        check_string(&|| format!("brokenImages[{i}]"), url)?;
    }

    check_count("elements", s.elements.len(), limits.elements)?;
    let properties = s.style_properties.len();
    for (i, e) in s.elements.iter().enumerate() {
        // The selector is checked first so that later messages can quote it.
        check_string(&|| format!("element {i}: selector"), &e.selector)?;
        let name = || format!("element {i} ({})", quote(&e.selector));
        if !(e.parent == -1 || (0..i as i64).contains(&e.parent)) {
            return Err(bad(format!("{}: parent {} is not -1 or an earlier element", name(), e.parent)));
        }
        check_string(&|| format!("{}: tag", name()), &e.tag)?;
        let [_, _, w, h] = e.bounds;
        if !e.bounds.iter().all(|v| v.is_finite()) || w < 0.0 || h < 0.0 {
            return Err(bad(format!("{}: box {:?} is not [x, y, width ≥ 0, height ≥ 0]", name(), e.bounds)));
        }
        for (field, value) in [("text", &e.text), ("image", &e.image)] {
            if let Some(v) = value {
                check_string(&|| format!("{}: {field}", name()), v)?;
            }
        }
        if e.styles.len() != properties {
            return Err(bad(format!("{}: {} style values for {} styleProperties", name(), e.styles.len(), properties)));
        }
        for (p, v) in e.styles.iter().enumerate() {
            check_string(&|| format!("{}: style {}", name(), s.style_properties[p]), v)?;
        }
    }
    Ok(())
}

/// A selector for an error message, shortened so a huge one cannot flood the message.
fn quote(selector: &str) -> String {
    const SHOWN: usize = 80;
    match selector.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("`{}…`", &selector[..cut]),
        None => format!("`{selector}`"),
    }
}

/// FNV-1a over the values, each followed by 0xFF (a byte UTF-8 never contains), so that
/// `["ab", "c"]` and `["a", "bc"]` differ.
fn style_digest(values: &[String]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = OFFSET;
    for v in values {
        for &b in v.as_bytes().iter().chain(&[0xFF]) {
            h = (h ^ u64::from(b)).wrapping_mul(PRIME);
        }
    }
    h
}

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
    /// Elements on both sides whose box moved or resized.
    pub geometry_changes: GeometryChanges,
    /// What each element did, for [`attribute_regions`].
    #[serde(skip)]
    roles: ElementRoles,
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

/// Elements whose border box moved or resized by more than [`GEOMETRY_TOLERANCE`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GeometryChanges {
    /// How many elements moved or resized.
    pub count: usize,
    /// How many elements changed size.
    pub resized_count: usize,
    /// The first 20 elements that changed size: innermost first (no resized descendant — the
    /// element that grew or shrank rather than a container around it), then document order.
    pub resized: Vec<ResizedElement>,
    /// How many elements moved without changing size.
    pub moved_count: usize,
    /// The first 20 runs of moved elements: consecutive elements (document order) moved by the
    /// same offset form one entry, so a page shift reads as one line.
    pub moved: Vec<MovedElements>,
}

/// An element whose size changed; boxes are `[x, y, width, height]` in CSS pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResizedElement {
    pub selector: String,
    pub from: [f64; 4],
    pub to: [f64; 4],
    /// No descendant of this element was resized: it is where the size change starts.
    pub innermost: bool,
}

/// A run of elements moved by the same offset without changing size, named by its first one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MovedElements {
    /// The first element of the run.
    pub selector: String,
    /// The first element's box before and after, `[x, y, width, height]` in CSS pixels.
    pub from: [f64; 4],
    pub to: [f64; 4],
    /// The run's offset in CSS pixels.
    pub dx: f64,
    pub dy: f64,
    /// Elements in the run.
    pub count: usize,
}

/// What an element did between the captures, as named in region attribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ElementRole {
    /// Restyled, or its tag, text or image changed.
    Changed,
    /// Only in the current capture.
    Added,
    /// Only in the baseline.
    Removed,
    /// Its box moved or resized, nothing else changed.
    Moved,
    /// Under the region, no change found.
    Overlaps,
}

impl std::fmt::Display for ElementRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ElementRole::Changed => "changed",
            ElementRole::Added => "added",
            ElementRole::Removed => "removed",
            ElementRole::Moved => "moved",
            ElementRole::Overlaps => "overlaps",
        })
    }
}

impl ElementRole {
    /// Attribution prefers content changes, then geometry, then bystanders.
    fn tier(self) -> u8 {
        match self {
            ElementRole::Changed | ElementRole::Added | ElementRole::Removed => 0,
            ElementRole::Moved => 1,
            ElementRole::Overlaps => 2,
        }
    }
}

/// An element a region maps to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttributedElement {
    pub selector: String,
    pub role: ElementRole,
}

/// Per-element outcome of [`compare_dom`]; `None` roles are masked elements.
#[derive(Debug, Clone, Default, PartialEq)]
struct ElementRoles {
    baseline: Vec<Option<ElementRole>>,
    current: Vec<Option<ElementRole>>,
    /// The current element each baseline element was matched with.
    baseline_pair: Vec<Option<u32>>,
    /// The baseline element each current element was matched with.
    current_pair: Vec<Option<u32>>,
}

/// Compares two DOM records: structure, computed styles and boxes. Masked elements and their
/// descendants are left out of every check.
///
/// Elements are paired like lines in a diff, tree-wise: an `#id` selector with its namesake
/// wherever it is, then the children of paired elements by aligning the two lists of siblings
/// (on subtree, then own content, then tag and classes). Inserting one element before many
/// same-tag siblings renames them all (`:nth-of-type`) but reports one added element; the
/// others are paired, and at most moved.
pub fn compare_dom(baseline: &DomSnapshot, current: &DomSnapshot) -> DomComparison {
    let (bs, cs) = (&baseline.elements, &current.elements);
    let (baseline_pair, current_pair) = match_elements(bs, cs);
    let styles_comparable =
        !baseline.style_properties.is_empty() && baseline.style_properties == current.style_properties;

    let mut roles_b = vec![None; bs.len()];
    let mut roles_c = vec![None; cs.len()];
    let mut removed = ElementList::default();
    for (b, e) in bs.iter().enumerate() {
        if !e.excluded && baseline_pair[b].is_none() {
            roles_b[b] = Some(ElementRole::Removed);
            push_limited(&mut removed, &e.selector);
        }
    }

    let mut added = ElementList::default();
    let mut modified = ModifiedElements::default();
    let mut styles = StyleTally::default();
    let mut geometry = GeometryTally::default();
    for (c, e) in cs.iter().enumerate() {
        if e.excluded {
            continue;
        }
        let Some(b) = current_pair[c] else {
            roles_c[c] = Some(ElementRole::Added);
            push_limited(&mut added, &e.selector);
            continue;
        };
        let old = &bs[b as usize];
        // A mask added or dropped on one side still hides the element: it was asked for.
        if old.excluded {
            continue;
        }
        let mut role = ElementRole::Overlaps;

        let changes: Vec<ContentChange> = [
            (old.tag != e.tag, ContentChange::Tag),
            (old.text != e.text, ContentChange::Text),
            (old.image != e.image, ContentChange::Image),
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

        // Equal digests are equal styles; only restyled elements pay for the value comparison.
        if styles_comparable && old.style_digest != e.style_digest {
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
        geometry_changes: geometry.finish(cs),
        roles: ElementRoles { baseline: roles_b, current: roles_c, baseline_pair, current_pair },
    }
}

fn push_limited(list: &mut ElementList, selector: &str) {
    list.count += 1;
    if list.elements.len() < LISTED_ELEMENTS {
        list.elements.push(selector.to_owned());
    }
}

/// Alignment passes over sibling lists, finest key first: subtree, own content, shape.
const PASSES: usize = 3;
/// Largest LCS table (in cells) for one gap between anchors; a larger gap is split by
/// patience diff instead (see [`Pairing::common_subsequence`]).
const LCS_CELLS: usize = 1 << 16;

/// Pairs the elements of two captures, like a line diff over the element tree. Returns, per
/// baseline element, its current twin and, per current element, its baseline twin.
///
/// 1. An element whose selector is an `#id` found once on each side pairs with its namesake,
///    wherever either of them is.
/// 2. The roots, then the children of every pair (those paired by id left out), are aligned as
///    sequences in up to three passes, each confined to the gaps between the anchors the
///    previous one found: on a digest of the element's whole subtree, on its own content (tag
///    and classes, own text, image), then on its tag and classes alone — so an element whose
///    text changed still pairs, as modified. Each pass pairs the common prefix and suffix, then
///    a longest common subsequence of the rest (for a gap too large for that, a patience diff).
///    Pairs never cross: reordered siblings show as removed + added, as in a line diff.
///
/// Keys never contain a selector's `:nth-of-type(n)` nor its parent path: one inserted sibling
/// renames every later sibling and their descendants, but pairs none of them differently.
fn match_elements(bs: &[ElementRecord], cs: &[ElementRecord]) -> (Vec<Option<u32>>, Vec<Option<u32>>) {
    let (fb, fc) = (Forest::new(bs), Forest::new(cs));
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

/// One capture's elements as a tree, with the keys siblings are aligned by.
struct Forest {
    /// The children of element `i` are `kids[start[i]..start[i + 1]]`, in document order.
    start: Vec<u32>,
    kids: Vec<u32>,
    /// Elements without a parent, in document order.
    roots: Vec<u32>,
    /// `keys[pass][i]`: element `i`'s key in each alignment pass (see [`match_elements`]).
    keys: [Vec<u64>; PASSES],
}

impl Forest {
    fn new(es: &[ElementRecord]) -> Self {
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
                if e.excluded { s } else { digest_option(digest_option(s, e.text.as_deref()), e.image.as_deref()) }
            })
            .collect();
        // Children come after their parent, so walking backwards finishes every subtree first.
        let mut tree = own.clone();
        for i in (0..n).rev() {
            if !es[i].excluded {
                let kids = &kids[start[i] as usize..start[i + 1] as usize];
                tree[i] = kids.iter().fold(own[i], |h, &k| mix(h, tree[k as usize]));
            }
        }
        Forest { start, kids, roots, keys: [tree, own, shape] }
    }

    fn children(&self, i: u32) -> &[u32] {
        &self.kids[self.start[i as usize] as usize..self.start[i as usize + 1] as usize]
    }
}

/// The key of an element's kind: its tag and the last segment of its selector without
/// `:nth-of-type(n)` (tag and classes, or `#id`), and whether that segment starts a shadow root
/// or frame document.
fn shape_key(e: &ElementRecord) -> u64 {
    let (segment, entered) = last_segment(&e.selector);
    let h = mix(digest_bytes(0, e.tag.as_bytes()), u64::from(entered));
    digest_bytes(h, strip_nth_of_type(segment).as_bytes())
}

/// The selector's last segment, and whether it follows ` >>> ` (collector segments never contain
/// ` > ` or ` >>> `).
fn last_segment(selector: &str) -> (&str, bool) {
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
fn strip_nth_of_type(segment: &str) -> &str {
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
fn is_id_selector(selector: &str) -> bool {
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
fn digest_option(h: u64, value: Option<&str>) -> u64 {
    match value {
        None => mix(h, u64::MAX),
        Some(v) => digest_bytes(h, v.as_bytes()),
    }
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
        for (p, (from, to)) in old.styles.iter().zip(&new.styles).enumerate() {
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

/// Collects moved and resized elements while [`compare_dom`] walks the pairs.
#[derive(Default)]
struct GeometryTally {
    count: usize,
    /// (current index, from, to) of every resized element; innermost is decided at the end.
    resized: Vec<(usize, [f64; 4], [f64; 4])>,
    moved_count: usize,
    moved: Vec<MovedElements>,
    /// Offset of the run the previous moved element belonged to, and whether that run is listed.
    run: Option<(f64, f64, bool)>,
}

impl GeometryTally {
    /// Records the pair's geometry change; true when its box moved or resized.
    fn add(&mut self, c: usize, old: &ElementRecord, new: &ElementRecord) -> bool {
        let (from, to) = (old.bounds, new.bounds);
        let d: [f64; 4] = std::array::from_fn(|i| to[i] - from[i]);
        let beyond = |v: f64| v.abs() > GEOMETRY_TOLERANCE;
        if !d.iter().any(|&v| beyond(v)) {
            return false;
        }
        self.count += 1;
        if beyond(d[2]) || beyond(d[3]) {
            self.resized.push((c, from, to));
            return true;
        }
        self.moved_count += 1;
        let (dx, dy) = (d[0], d[1]);
        match self.run {
            Some((rx, ry, listed)) if !beyond(rx - dx) && !beyond(ry - dy) => {
                if listed && let Some(run) = self.moved.last_mut() {
                    run.count += 1;
                }
            }
            _ => {
                // Runs past the listed ones are not kept; moved_count still counts their elements.
                let listed = self.moved.len() < LISTED_GEOMETRY;
                if listed {
                    self.moved.push(MovedElements { selector: new.selector.clone(), from, to, dx, dy, count: 1 });
                }
                self.run = Some((dx, dy, listed));
            }
        }
        true
    }

    fn finish(self, cs: &[ElementRecord]) -> GeometryChanges {
        // A grown card grows every container around it; the element with no resized descendant
        // is the one that actually changed size.
        let mut has_resized_descendant = vec![false; cs.len()];
        for &(c, _, _) in &self.resized {
            let mut p = cs[c].parent_index();
            while let Some(i) = p {
                if std::mem::replace(&mut has_resized_descendant[i], true) {
                    break; // its ancestors were marked when it was
                }
                p = cs[i].parent_index();
            }
        }
        let resized_count = self.resized.len();
        let mut resized: Vec<ResizedElement> = self
            .resized
            .into_iter()
            .map(|(c, from, to)| ResizedElement {
                selector: cs[c].selector.clone(),
                from,
                to,
                innermost: !has_resized_descendant[c],
            })
            .collect();
        resized.sort_by_key(|r| !r.innermost); // stable: document order within each group
        resized.truncate(LISTED_GEOMETRY);
        GeometryChanges { count: self.count, resized_count, resized, moved_count: self.moved_count, moved: self.moved }
    }
}

/// Names the elements each region maps to, one list per region in region order.
///
/// Region coordinates are screenshot pixels; element boxes are scaled by each capture's
/// `devicePixelRatio`. With a `shift`, baseline boxes are moved the way the shift moved the
/// page before they are tested: both `change` regions (found once the shift is undone) and
/// `shift` regions are in current-page coordinates, so an element that only rode along with the
/// shift meets the same region on both sides.
///
/// Per region, at most 5 elements: first the innermost elements whose content changed (no such
/// descendant also meets the region), then the innermost moved or resized ones, then the
/// innermost unchanged ones (`overlaps`, no descendant meets the region); smallest first within
/// each group. Masked elements are never named.
pub fn attribute_regions(
    regions: &[Region],
    baseline: &DomSnapshot,
    current: &DomSnapshot,
    dom: &DomComparison,
    shift: Option<PageShift>,
) -> Vec<Vec<AttributedElement>> {
    // A comparison of other captures would index past these; recompute rather than panic.
    let recomputed;
    let roles =
        if dom.roles.baseline.len() == baseline.elements.len() && dom.roles.current.len() == current.elements.len() {
            &dom.roles
        } else {
            recomputed = compare_dom(baseline, current);
            &recomputed.roles
        };
    let sides = [
        Side::new(baseline, &roles.baseline, &roles.baseline_pair, shift.as_ref()),
        Side::new(current, &roles.current, &roles.current_pair, None),
    ];
    let mut marks = [Marks::new(baseline.elements.len()), Marks::new(current.elements.len())];
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    let mut units: Vec<(u8, f64, usize, usize)> = Vec::new();

    let mut attributed = Vec::with_capacity(regions.len());
    for (n, region) in regions.iter().enumerate() {
        // Marks carry the region's number instead of being cleared for every region.
        let stamp = n as u32 + 1;
        let area = [
            f64::from(region.x),
            f64::from(region.y),
            f64::from(region.x) + f64::from(region.width),
            f64::from(region.y) + f64::from(region.height),
        ];
        candidates.clear();
        for (s, side) in sides.iter().enumerate() {
            candidates.extend(
                side.edges.iter().enumerate().filter(|(_, e)| e.is_some_and(|e| meets(&e, &area))).map(|(i, _)| (s, i)),
            );
        }
        for &(s, i) in &candidates {
            let tier = sides[s].role(i).tier();
            marks[s].mark_ancestors(sides[s].elements, i, tier, stamp);
        }

        // One unit per element pair: a matched baseline element stands for its current twin.
        units.clear();
        for &(s, i) in &candidates {
            let (s, i) = match (s, sides[s].pair[i]) {
                (0, Some(c)) => (1, c as usize),
                other => (other.0, i),
            };
            if std::mem::replace(&mut marks[s].seen[i], stamp) == stamp {
                continue;
            }
            let tier = sides[s].role(i).tier();
            let twin = sides[s].pair[i].map(|j| (1 - s, j as usize));
            let outer = marks[s].levels[tier as usize][i] == stamp
                || twin.is_some_and(|(t, j)| marks[t].levels[tier as usize][j] == stamp);
            if outer {
                continue;
            }
            let size = sides[s].edges[i].or_else(|| twin.and_then(|(t, j)| sides[t].edges[j])).map_or(0.0, |e| {
                let [x0, y0, x1, y1] = e;
                (x1 - x0) * (y1 - y0)
            });
            units.push((tier, size, s, i));
        }
        units.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(b.2.cmp(&a.2)).then(a.3.cmp(&b.3)));
        attributed.push(
            units
                .iter()
                .take(ELEMENTS_PER_REGION)
                .map(|&(_, _, s, i)| AttributedElement {
                    selector: sides[s].elements[i].selector.clone(),
                    role: sides[s].role(i),
                })
                .collect(),
        );
    }
    attributed
}

/// One capture as attribution sees it.
struct Side<'a> {
    elements: &'a [ElementRecord],
    roles: &'a [Option<ElementRole>],
    pair: &'a [Option<u32>],
    /// Boxes as `[x0, y0, x1, y1]` in screenshot pixels; `None` for masked or empty boxes,
    /// which can meet no region.
    edges: Vec<Option<[f64; 4]>>,
}

impl<'a> Side<'a> {
    fn new(
        snapshot: &'a DomSnapshot,
        roles: &'a [Option<ElementRole>],
        pair: &'a [Option<u32>],
        shift: Option<&PageShift>,
    ) -> Self {
        let scale = snapshot.device_pixel_ratio;
        let edges = snapshot
            .elements
            .iter()
            .zip(roles)
            .map(|(e, role)| {
                let [x, y, w, h] = e.bounds;
                if role.is_none() || w <= 0.0 || h <= 0.0 {
                    return None;
                }
                let (x0, x1) = (x * scale, (x + w) * scale);
                let (mut y0, mut y1) = (y * scale, (y + h) * scale);
                if let Some(shift) = shift {
                    (y0, y1) = (current_row(shift, y0), current_row(shift, y1));
                    // Content in a removed band has no rows left; keep it one row tall at the
                    // seam, where its disappearance shows.
                    y1 = y1.max(y0 + 1.0);
                }
                Some([x0, y0, x1, y1])
            })
            .collect();
        Side { elements: &snapshot.elements, roles, pair, edges }
    }

    /// The role of an element that has a box (masked elements have none).
    fn role(&self, i: usize) -> ElementRole {
        self.roles[i].unwrap_or(ElementRole::Overlaps)
    }
}

/// Where baseline row `y` is shown in the current page under `shift` (the inverse of
/// [`PageShift::baseline_row`]); rows of a removed band collapse onto `belowY`.
fn current_row(shift: &PageShift, y: f64) -> f64 {
    let (below, dy) = (f64::from(shift.below_y), f64::from(shift.dy));
    if y < below {
        y
    } else if y < below - dy {
        below
    } else {
        y + dy
    }
}

/// Boxes meet when they share a positive area.
fn meets(a: &[f64; 4], b: &[f64; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

/// Per-region marks on one side's elements, stamped with the region number.
struct Marks {
    /// `levels[t][i]`: element `i` has a descendant of tier ≤ `t` meeting the region.
    levels: [Vec<u32>; 3],
    /// Element `i` was already taken as a unit for this region.
    seen: Vec<u32>,
}

impl Marks {
    fn new(n: usize) -> Self {
        Marks { levels: [vec![0; n], vec![0; n], vec![0; n]], seen: vec![0; n] }
    }

    /// Marks the ancestors of element `i` (of tier `tier`) on every level it counts for.
    fn mark_ancestors(&mut self, elements: &[ElementRecord], i: usize, tier: u8, stamp: u32) {
        for level in &mut self.levels[tier as usize..] {
            let mut p = elements[i].parent_index();
            while let Some(a) = p {
                if std::mem::replace(&mut level[a], stamp) == stamp {
                    break; // marked earlier for this region, and its ancestors with it
                }
                p = elements[a].parent_index();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::regions::Classification;

    const BLACK: &str = "rgb(0, 0, 0)";
    const BLUE: &str = "rgb(37, 99, 235)";
    const CLEAR: &str = "rgba(0, 0, 0, 0)";

    fn el(parent: i64, tag: &str, selector: &str, bounds: [f64; 4], text: Option<&str>) -> Value {
        json!({ "parent": parent, "tag": tag, "selector": selector, "box": bounds, "text": text,
                "image": null, "styles": [BLACK, CLEAR, "16px"], "masked": false })
    }

    /// body > header > h1, main > two cards with a paragraph each, footer.
    fn page() -> Value {
        json!({
            "version": 1, "url": "http://localhost:3000/", "viewport": { "width": 800, "height": 600 },
            "devicePixelRatio": 1, "document": { "width": 800, "height": 600 },
            "styleProperties": ["color", "background-color", "font-size"],
            "elements": [
                el(-1, "body", "body", [0.0, 0.0, 800.0, 600.0], None),
                el(0, "header", "body > header", [0.0, 0.0, 800.0, 60.0], None),
                el(1, "h1", "body > header > h1", [20.0, 10.0, 300.0, 40.0], Some("a1")),
                el(0, "main", "body > main", [0.0, 60.0, 800.0, 500.0], None),
                el(3, "div", "#card-a", [20.0, 80.0, 240.0, 200.0], None),
                el(4, "p", "#card-a > p", [30.0, 90.0, 220.0, 40.0], Some("b2")),
                el(3, "div", "#card-b", [280.0, 80.0, 240.0, 200.0], None),
                el(6, "p", "#card-b > p", [290.0, 90.0, 220.0, 40.0], Some("c3")),
                el(0, "footer", "body > footer", [0.0, 560.0, 800.0, 40.0], Some("d4")),
            ],
            "fonts": [{ "family": "Inter", "status": "loaded" }],
            "brokenImages": []
        })
    }

    fn parse(v: &Value) -> DomSnapshot {
        parse_dom(&v.to_string()).unwrap()
    }

    fn parse_err(v: &Value) -> String {
        match parse_dom(&v.to_string()) {
            Err(e @ Error::BadDom { .. }) => e.to_string(),
            other => panic!("expected BadDom, got {other:?}"),
        }
    }

    fn compare(a: &Value, b: &Value) -> DomComparison {
        compare_dom(&parse(a), &parse(b))
    }

    fn region(x: u32, y: u32, width: u32, height: u32) -> Region {
        Region {
            x,
            y,
            width,
            height,
            diff_pixels: 1,
            diff_percent: 1.0,
            classification: Classification::Change,
            elements: Vec::new(),
        }
    }

    fn attribute(
        a: &Value,
        b: &Value,
        regions: &[Region],
        shift: Option<PageShift>,
    ) -> Vec<Vec<(String, ElementRole)>> {
        let (a, b) = (parse(a), parse(b));
        let dom = compare_dom(&a, &b);
        attribute_regions(regions, &a, &b, &dom, shift)
            .into_iter()
            .map(|list| list.into_iter().map(|e| (e.selector, e.role)).collect())
            .collect()
    }

    fn named(list: &[(&str, ElementRole)]) -> Vec<(String, ElementRole)> {
        list.iter().map(|&(s, r)| (s.to_owned(), r)).collect()
    }

    #[test]
    fn dom_parses_a_valid_record() {
        let mut v = page();
        v["elements"][4]["styles"][1] = json!("rgb(255, 255, 255)");
        let s = parse(&v);
        assert_eq!(s.version, 1);
        assert_eq!(s.elements.len(), 9);
        assert_eq!(s.device_pixel_ratio, 1.0);
        assert_eq!(s.fonts[0].status, FontStatus::Loaded);
        assert_eq!(s.elements[0].parent_index(), None);
        assert_eq!(s.elements[5].parent_index(), Some(4));
        assert_eq!(s.elements[5].bounds, [30.0, 90.0, 220.0, 40.0]);
        assert_eq!(s.elements[2].text.as_deref(), Some("a1"));
        assert_eq!(s.elements[0].style_digest(), s.elements[1].style_digest());
        assert_ne!(s.elements[0].style_digest(), s.elements[4].style_digest());
        assert!(s.elements.iter().all(|e| !e.is_excluded()));
    }

    #[test]
    fn dom_style_digest_separates_values() {
        let split = |v: &[&str]| style_digest(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        // FNV-1a (64-bit) over each value followed by 0xFF, worked out apart from the code: the
        // separator keeps ["ab", "c"] and ["a", "bc"] apart, and an empty value still counts.
        assert_eq!(split(&["ab", "c"]), 0x20ba_9b30_25a8_b421);
        assert_eq!(split(&["a", "bc"]), 0xa0a3_542c_19b9_00ab);
        assert_eq!(split(&[]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(split(&[""]), 0xaf64_724c_8602_eb6e);
    }

    #[test]
    fn dom_parse_rejects_another_version() {
        let mut v = page();
        v["version"] = json!(2);
        let err = parse_err(&v);
        assert_eq!(
            err,
            "DOM record: format version 2, this sightline reads version 1; capture again with the current sightline"
        );
        // A future record of another shape still names its version, not a missing field.
        assert!(parse_err(&json!({ "version": 3, "nodes": [] })).contains("format version 3"), "{err}");
    }

    #[test]
    fn dom_parse_rejects_malformed_json() {
        let err = parse_dom("{\"version\": 1,").unwrap_err().to_string();
        assert!(err.starts_with("DOM record: not a DOM record ("), "{err}");
        let mut v = page();
        v.as_object_mut().unwrap().remove("styleProperties");
        assert!(parse_err(&v).contains("missing field `styleProperties`"));
        // JSON has no NaN: JSON.stringify writes null, which is no box.
        let mut v = page();
        v["elements"][2]["box"][0] = Value::Null;
        assert!(parse_err(&v).contains("not a DOM record"));
        let huge = page().to_string().replacen("[20.0,10.0,300.0,40.0]", "[20.0,1e999,300.0,40.0]", 1);
        assert!(matches!(parse_dom(&huge), Err(Error::BadDom { .. })));
    }

    #[test]
    fn dom_parse_rejects_a_parent_that_is_not_earlier() {
        let mut v = page();
        v["elements"][1]["parent"] = json!(5);
        assert_eq!(
            parse_err(&v),
            "DOM record: element 1 (`body > header`): parent 5 is not -1 or an earlier element; \
             capture again with the current sightline"
        );
        v["elements"][1]["parent"] = json!(1);
        assert!(parse_err(&v).contains("parent 1 is not"));
        v["elements"][1]["parent"] = json!(-2);
        assert!(parse_err(&v).contains("parent -2 is not"));
    }

    #[test]
    fn dom_parse_rejects_misaligned_styles() {
        let mut v = page();
        v["elements"][3]["styles"] = json!([BLACK, CLEAR]);
        assert!(parse_err(&v).contains("element 3 (`body > main`): 2 style values for 3 styleProperties"));
    }

    #[test]
    fn dom_parse_rejects_bad_boxes_and_ratios() {
        let mut v = page();
        v["elements"][4]["box"] = json!([20.0, 80.0, -1.0, 200.0]);
        assert!(parse_err(&v).contains("element 4 (`#card-a`): box [20.0, 80.0, -1.0, 200.0] is not"));
        let mut v = page();
        v["devicePixelRatio"] = json!(0);
        assert!(parse_err(&v).contains("devicePixelRatio 0 is not a positive number"));
        let mut v = page();
        v["document"]["height"] = json!(-4);
        assert!(parse_err(&v).contains("document 800×-4 is not a size"));
    }

    #[test]
    fn dom_parse_enforces_limits() {
        let small = Limits { bytes: 1 << 20, elements: 8, style_properties: 2, list_entries: 1, string_bytes: 32 };
        let err = |v: &Value| parse_with_limits(&v.to_string(), &small).unwrap_err().to_string();
        assert!(err(&page()).contains("3 styleProperties, above the limit of 2"));

        // From here on, two style properties so that only the limit under test is exceeded.
        let mut v = page();
        v["styleProperties"] = json!(["color", "background-color"]);
        for e in v["elements"].as_array_mut().unwrap() {
            e["styles"] = json!([BLACK, CLEAR]);
        }
        assert!(err(&v).contains("9 elements, above the limit of 8"));

        v["elements"].as_array_mut().unwrap().pop();
        assert!(parse_with_limits(&v.to_string(), &small).is_ok());
        let mut long = v.clone();
        long["elements"][2]["selector"] = json!("body > header > h1.a-very-long-class-name");
        assert_eq!(
            err(&long),
            "DOM record: element 2: selector is 41 bytes, above the limit of 32; capture again with the current sightline"
        );
        let mut broken = v.clone();
        broken["brokenImages"] = json!(["http://a/1.png", "http://a/2.png"]);
        assert!(err(&broken).contains("2 brokenImages, above the limit of 1"));

        let tiny = Limits { bytes: 100, ..small };
        let too_big = parse_with_limits(&v.to_string(), &tiny).unwrap_err().to_string();
        assert!(too_big.contains("bytes, above the limit of 100"), "{too_big}");
        // The real limits accept a normal page.
        assert!(parse_with_limits(&page().to_string(), &LIMITS).is_ok());
    }

    #[test]
    fn dom_parse_marks_masked_subtrees() {
        let mut v = page();
        v["elements"][4]["masked"] = json!(true);
        let s = parse(&v);
        let excluded: Vec<bool> = s.elements.iter().map(ElementRecord::is_excluded).collect();
        assert_eq!(excluded, [false, false, false, false, true, true, false, false, false]);
    }

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
    fn dom_attribution_names_each_role() {
        let mut b = page();
        b["elements"][5]["text"] = json!("ff"); // changed
        b["elements"][2]["box"] = json!([30.0, 10.0, 300.0, 40.0]); // moved
        b["elements"].as_array_mut().unwrap().remove(7); // removed
        b["elements"].as_array_mut().unwrap().push(el(7, "a", "body > footer > a", [10.0, 570.0, 80.0, 20.0], None)); // added
        let regions = [
            region(30, 90, 220, 40),  // the changed paragraph
            region(10, 570, 80, 20),  // the added link
            region(290, 90, 220, 40), // the removed paragraph
            region(20, 10, 310, 40),  // the moved heading
            region(300, 200, 50, 50), // an unchanged card
        ];
        let found = attribute(&page(), &b, &regions, None);
        assert_eq!(
            found,
            [
                named(&[("#card-a > p", ElementRole::Changed)]),
                named(&[("body > footer > a", ElementRole::Added)]),
                named(&[("#card-b > p", ElementRole::Removed)]),
                named(&[("body > header > h1", ElementRole::Moved)]),
                named(&[("#card-b", ElementRole::Overlaps)]),
            ]
        );
    }

    #[test]
    fn dom_attribution_prefers_the_changed_container_to_unchanged_children() {
        let mut b = page();
        b["elements"][4]["styles"][1] = json!("rgb(254, 226, 226)");
        let found = attribute(&page(), &b, &[region(20, 80, 240, 200)], None);
        assert_eq!(found, [named(&[("#card-a", ElementRole::Changed), ("#card-a > p", ElementRole::Overlaps)])]);
        // A region over nothing but the page's empty corner names the innermost box under it.
        let found = attribute(&page(), &b, &[region(700, 300, 10, 10), region(900, 900, 5, 5)], None);
        assert_eq!(found, [named(&[("body > main", ElementRole::Overlaps)]), vec![]]);
    }

    #[test]
    fn dom_attribution_undoes_a_page_shift() {
        // A 50 px banner appears at the top of main; the two paragraphs below move down.
        let doc = |banner: bool, dy: f64| {
            let mut elements = vec![
                el(-1, "body", "body", [0.0, 0.0, 800.0, 400.0 + dy], None),
                el(0, "main", "body > main", [0.0, 0.0, 800.0, 400.0 + dy], None),
            ];
            if banner {
                elements.push(el(1, "div", "#banner", [0.0, 100.0, 800.0, 50.0], Some("ad")));
            }
            elements.push(el(1, "p", "#first", [0.0, 100.0 + dy, 800.0, 40.0], Some("p1")));
            elements.push(el(1, "p", "#second", [0.0, 150.0 + dy, 800.0, 40.0], Some("p2")));
            let mut v = page();
            v["elements"] = Value::Array(elements);
            v
        };
        let (a, b) = (doc(false, 0.0), doc(true, 50.0));
        // The shift region over #first's new place, where #second used to be.
        let mut r = region(0, 150, 800, 40);
        r.classification = Classification::Shift;
        let shift = PageShift { dy: 50, below_y: 100 };
        let with = attribute(&a, &b, std::slice::from_ref(&r), Some(shift));
        assert_eq!(with, [named(&[("#first", ElementRole::Moved)])]);
        let without = attribute(&a, &b, &[r], None);
        assert_eq!(without, [named(&[("#first", ElementRole::Moved), ("#second", ElementRole::Moved)])]);
        // The inserted band itself maps to the added banner.
        assert_eq!(
            attribute(&a, &b, &[region(0, 100, 800, 50)], Some(shift)),
            [named(&[("#banner", ElementRole::Added)])]
        );
        // Removed the other way round: the banner shows at the seam, once.
        let up = PageShift { dy: -50, below_y: 100 };
        assert_eq!(
            attribute(&b, &a, &[region(0, 100, 800, 40)], Some(up)),
            [named(&[("#banner", ElementRole::Removed), ("#first", ElementRole::Moved)])]
        );
    }

    #[test]
    fn dom_attribution_scales_boxes_by_device_pixel_ratio() {
        let mut a = page();
        a["devicePixelRatio"] = json!(2);
        let mut b = a.clone();
        b["elements"][5]["text"] = json!("ff");
        // #card-a > p is at (30, 90) CSS px, (60, 180) screenshot px.
        // Screenshot px (4, 130) is CSS px (2, 65): inside main, left of the cards.
        let found = attribute(&a, &b, &[region(60, 180, 40, 40), region(4, 130, 10, 10)], None);
        assert_eq!(found[0], named(&[("#card-a > p", ElementRole::Changed)]));
        assert_eq!(found[1], named(&[("body > main", ElementRole::Overlaps)]));
    }

    #[test]
    fn dom_attribution_over_5000_elements_and_50_regions() {
        // 50 rows of 99 cells; one cell per row gets new text.
        let mut elements = vec![el(-1, "body", "body", [0.0, 0.0, 990.0, 1000.0], None)];
        for row in 0..50 {
            let parent = elements.len() as i64;
            elements.push(el(0, "div", &format!("#row{row}"), [0.0, row as f64 * 20.0, 990.0, 20.0], None));
            for col in 0..99 {
                let b = [col as f64 * 10.0, row as f64 * 20.0, 10.0, 20.0];
                elements.push(el(parent, "span", &format!("#row{row} > span:nth-of-type({col})"), b, Some("00")));
            }
        }
        let mut a = page();
        a["elements"] = Value::Array(elements);
        let mut b = a.clone();
        for row in 0..50 {
            b["elements"][1 + row * 100 + 1 + row]["text"] = json!("11");
        }
        let regions: Vec<Region> = (0..50).map(|row| region(row * 10, row * 20, 10, 20)).collect();
        let found = attribute(&a, &b, &regions, None);
        assert_eq!(found.len(), 50);
        for (row, list) in found.iter().enumerate() {
            assert_eq!(list, &named(&[(&format!("#row{row} > span:nth-of-type({row})"), ElementRole::Changed)]));
        }
    }

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
