//! The DOM record (format in the [module docs](super)): its types, the limits a record must
//! keep and [`parse_dom`]'s validation.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The DOM record format version the collector writes. Version 4 writes each element's selector
/// relative to its parent's (composed when read: `dom/selector_paths.rs`) and leaves out `text`
/// and `image` when there is none and `masked` when false; read, it is the version 3 record with
/// full paths. Version 3 names the page's own files by their path from the page
/// ([`page_relative`](super::page_relative)) in image digests and style values; version 2 named
/// them by absolute URL. Version 2 gives each element its styles as an index into `styleRows`
/// (most elements share their computed values with many others); version 1 gave every element
/// its own `styles` list. All are read, since baselines keep the record
/// they were approved with: an older record's style values are renamed as version 3 names them
/// when read; its image digests cannot be, so images are compared only between records that
/// name them alike ([`DomSnapshot::names_images_alike`]).
pub const DOM_VERSION: u32 = 4;
/// Largest DOM record accepted, in bytes of JSON.
pub const MAX_DOM_BYTES: usize = 512 << 20;
/// Most elements one record may hold.
pub const MAX_ELEMENTS: usize = 200_000;
/// Most entries of `styleProperties`.
pub const MAX_STYLE_PROPERTIES: usize = 1024;
/// Most entries of `fonts` and of `brokenImages`.
pub const MAX_LIST_ENTRIES: usize = 100_000;
/// Most custom properties of the root a record keeps (`tokens`).
pub const MAX_TOKENS: usize = 512;
/// Most `ignoreRegions` a call may give, and a record carries.
pub const MAX_IGNORE_REGIONS: usize = 64;
/// Most custom properties declared on elements a record keeps (`elementTokens`).
pub const MAX_ELEMENT_TOKENS: usize = 2_000;
/// Longest string anywhere in a record, in bytes.
pub const MAX_STRING_BYTES: usize = 16 << 10;

/// One capture's DOM record, parsed and validated by [`parse_dom`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DomSnapshot {
    /// Format version: 1 to [`DOM_VERSION`] as written, except that a version 4 record reads as
    /// version 3 (the two differ only in how selectors are written, and a record read holds full
    /// paths), so a record written out again reads the same.
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
    /// The distinct rows of computed values (version 2), each aligned with `style_properties`;
    /// [`parse_dom`] gives every element its row as [`ElementRecord::styles`] and empties this.
    #[serde(default, skip_serializing)]
    style_rows: Vec<Vec<String>>,
    /// Every rendered element, in document order.
    pub elements: Vec<ElementRecord>,
    /// Web fonts the page declared and their load status.
    pub fonts: Vec<FontRecord>,
    /// URLs of images that failed to load (`complete && naturalWidth === 0`).
    pub broken_images: Vec<String>,
    /// The root element's custom properties (`--brand`, `#2563eb`), as computed, at most
    /// [`MAX_TOKENS`]: the design tokens a change of one is named by. Absent from records made
    /// before they were collected.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<(String, String)>,
    /// The custom properties declared on elements other than the root (`.card { --accent: … }`
    /// or a style attribute), as (element index, name, computed value), sorted by element, at
    /// most [`MAX_ELEMENT_TOKENS`]: a token a component sets is named like one of the root.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub element_tokens: Vec<(usize, String, String)>,
    /// The call's `ignoreRegions` as `[x, y, width, height]` in the record's CSS pixels (the
    /// capture's, from its top-left corner): left out of the pixels like ignored elements. The
    /// record carries them so a stored capture and a baseline keep what their call left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignore_regions: Vec<[f64; 4]>,
}

impl DomSnapshot {
    /// True when image digests of this record and `other` can be compared: both digest the
    /// page's own files by their path from the page (version 3 on), or both by absolute URL.
    pub fn names_images_alike(&self, other: &DomSnapshot) -> bool {
        (self.version >= 3) == (other.version >= 3)
    }

    /// `url` (absolute, as the browser loaded it) as this record's image digests name it.
    pub fn image_name<'u>(&self, url: &'u str) -> &'u str {
        if self.version >= 3 { super::page_relative(url, &self.url) } else { url }
    }
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
    /// described at [`compare_dom`](super::compare_dom)).
    pub selector: String,
    /// Border box `[x, y, width, height]` in CSS pixels of the page.
    #[serde(rename = "box")]
    pub bounds: [f64; 4],
    /// Digest of the element's own text, if it has any.
    pub text: Option<String>,
    /// Digest of the element's image source (`<img>` or background image), if it has one.
    pub image: Option<String>,
    /// Computed values aligned with [`DomSnapshot::style_properties`]: inline in version 1,
    /// the record's style row (`style`) in version 2, shared by every element that uses it (a
    /// real page's 16,000 elements have a few hundred distinct rows).
    #[serde(default)]
    pub styles: Arc<[String]>,
    /// Version 2: the index of the element's row in `styleRows`.
    #[serde(default, skip_serializing)]
    style: Option<usize>,
    /// Matched by `mask` (a selector or a Locator), or inside such an element: the top element
    /// of each masked subtree is painted over with `maskColor` on both sides before comparing.
    #[serde(default)]
    pub masked: bool,
    /// Matched by `ignoreSelectors`, or inside such an element: left out of every check, not
    /// painted over.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignored: bool,
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

    /// True when the element or one of its ancestors is masked or ignored: it takes no part in
    /// any check.
    pub fn is_excluded(&self) -> bool {
        self.excluded
    }
}

impl DomSnapshot {
    /// The boxes painted over with `maskColor`: each element matched by `mask` whose parent is
    /// not masked (a masked subtree is painted as its top element's box, as Playwright paints a
    /// matched element's box), in CSS pixels.
    pub fn mask_boxes(&self) -> impl Iterator<Item = [f64; 4]> + '_ {
        self.masked_tops().map(|e| e.bounds)
    }

    /// The elements matched by `mask` whose parent is not masked: the ones whose boxes are
    /// painted.
    pub fn masked_tops(&self) -> impl Iterator<Item = &ElementRecord> + '_ {
        self.elements.iter().filter(|e| e.masked && !e.parent_index().is_some_and(|p| self.elements[p].masked))
    }

    /// The boxes of the top elements matched by `ignoreSelectors`, then the `ignoreRegions`, in
    /// CSS pixels: their pixels are no evidence, and nothing is painted over them.
    pub fn ignore_boxes(&self) -> impl Iterator<Item = [f64; 4]> + '_ {
        self.ignored_tops().map(|e| e.bounds).chain(self.ignore_regions.iter().copied())
    }

    /// The elements matched by `ignoreSelectors` whose parent is not ignored.
    pub fn ignored_tops(&self) -> impl Iterator<Item = &ElementRecord> + '_ {
        self.elements.iter().filter(|e| e.ignored && !e.parent_index().is_some_and(|p| self.elements[p].ignored))
    }
}

/// A web font declared by the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FontRecord {
    pub family: String,
    pub status: FontStatus,
    /// The URLs its `@font-face` rules load it from, recorded for a face that failed: its network
    /// failure and its own status are then one failed asset (capture health says it once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
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

/// Parses and validates the collector's JSON (format in the [module docs](super)), computing each
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
            Some(v) if !v.as_u64().is_some_and(|v| (1..=DOM_VERSION as u64).contains(&v)) => {
                return Err(version_error(&v.to_string()));
            }
            _ => return Err(bad(format!("not a DOM record ({e})"))),
        },
    };
    if !(1..=DOM_VERSION).contains(&snapshot.version) {
        return Err(version_error(&snapshot.version.to_string()));
    }
    expand_style_rows(&mut snapshot, limits)?;
    validate(&snapshot, limits)?;
    if snapshot.version >= 4 {
        super::selector_paths::compose_selector_paths(&mut snapshot.elements, limits.string_bytes, limits.bytes)?;
        snapshot.version = 3;
    }
    if snapshot.version < 3 {
        name_style_urls_from_the_page(&mut snapshot);
    }

    let mut excluded = Vec::with_capacity(snapshot.elements.len());
    for e in &mut snapshot.elements {
        // Parents come first (validated), so the parent's flag is already known.
        e.excluded = e.masked || e.ignored || e.parent_index().is_some_and(|p| excluded[p]);
        e.style_digest = style_digest(&e.styles);
        excluded.push(e.excluded);
    }
    Ok(snapshot)
}

/// An older record's style values with the page's own `url("…")`s named as version 3 names them,
/// so a baseline approved before version 3 compares its styles exactly with a new capture. Rows
/// are shared: each distinct row is renamed once.
fn name_style_urls_from_the_page(snapshot: &mut DomSnapshot) {
    let page = snapshot.url.as_str();
    // Keyed by the shared row's address: elements of one row hold one Arc.
    let mut renamed: HashMap<*const String, Arc<[String]>> = HashMap::new();
    for e in &mut snapshot.elements {
        if !e.styles.iter().any(|v| v.contains("url(")) {
            continue;
        }
        let row = renamed
            .entry(Arc::as_ptr(&e.styles).cast::<String>())
            .or_insert_with(|| e.styles.iter().map(|v| super::page_relative_in_css(v, page).into_owned()).collect());
        e.styles = Arc::clone(row);
    }
}

/// Gives every element of a version 2 record its style row, checking each index and the rows'
/// count first. Expanded, a record reads as version 1 did: the comparisons see one list of
/// values per element, though elements of one row share it instead of each holding a copy.
fn expand_style_rows(snapshot: &mut DomSnapshot, limits: &Limits) -> Result<()> {
    let rows: Vec<Arc<[String]>> = std::mem::take(&mut snapshot.style_rows).into_iter().map(Arc::from).collect();
    if rows.len() > limits.elements {
        return Err(bad(format!("{} styleRows, above the limit of {}", rows.len(), limits.elements)));
    }
    if snapshot.version < 2 && !rows.is_empty() {
        return Err(bad("styleRows in a version 1 record (each element lists its own styles)".into()));
    }
    // A row is stored once and shared, but whatever writes the record out again (each element with
    // its own `styles`) expands it: the expansion may take no more than the record could have
    // held inline, so a small record cannot grow without bound.
    let row_bytes: Vec<usize> = rows.iter().map(|r| r.iter().map(|v| v.len() + 24).sum()).collect();
    let expanded: usize = snapshot.elements.iter().filter_map(|e| e.style.and_then(|r| row_bytes.get(r))).sum();
    if expanded > limits.bytes {
        return Err(bad(format!("its style rows expand to {expanded} bytes, above the limit of {}", limits.bytes)));
    }
    for (i, e) in snapshot.elements.iter_mut().enumerate() {
        let Some(row) = e.style.take() else { continue };
        if !e.styles.is_empty() {
            return Err(bad(format!("element {i} ({}): both styles and a style row", quote(&e.selector))));
        }
        let values = rows.get(row).ok_or_else(|| {
            bad(format!("element {i} ({}): style row {row} of {} styleRows", quote(&e.selector), rows.len()))
        })?;
        e.styles = Arc::clone(values);
    }
    Ok(())
}

fn peek_version(json: &str) -> Option<serde_json::Value> {
    #[derive(Deserialize)]
    struct Peek {
        version: Option<serde_json::Value>,
    }
    serde_json::from_str::<Peek>(json).ok()?.version
}

fn version_error(version: &str) -> Error {
    bad(format!("format version {version}, this sightline reads versions 1 to {DOM_VERSION}"))
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
        check_count(&format!("fonts[{i}].sources"), f.sources.len(), limits.list_entries)?;
        for (j, url) in f.sources.iter().enumerate() {
            check_string(&|| format!("fonts[{i}].sources[{j}]"), url)?;
        }
    }
    check_count("brokenImages", s.broken_images.len(), limits.list_entries)?;
    for (i, url) in s.broken_images.iter().enumerate() {
        check_string(&|| format!("brokenImages[{i}]"), url)?;
    }

    check_count("tokens", s.tokens.len(), MAX_TOKENS)?;
    for (i, (name, value)) in s.tokens.iter().enumerate() {
        check_string(&|| format!("tokens[{i}] name"), name)?;
        check_string(&|| format!("tokens[{i}] value"), value)?;
    }
    check_count("ignoreRegions", s.ignore_regions.len(), MAX_IGNORE_REGIONS)?;
    for (i, [x, y, w, h]) in s.ignore_regions.iter().enumerate() {
        if ![x, y, w, h].iter().all(|v| v.is_finite()) || *w <= 0.0 || *h <= 0.0 {
            return Err(bad(format!("ignoreRegions[{i}] {:?} is not [x, y, width > 0, height > 0]", [x, y, w, h])));
        }
    }
    check_count("elementTokens", s.element_tokens.len(), MAX_ELEMENT_TOKENS)?;
    for (i, (element, name, value)) in s.element_tokens.iter().enumerate() {
        if *element >= s.elements.len() {
            return Err(bad(format!(
                "elementTokens[{i}]: element {element} is not one of the {} elements",
                s.elements.len()
            )));
        }
        check_string(&|| format!("elementTokens[{i}] name"), name)?;
        check_string(&|| format!("elementTokens[{i}] value"), value)?;
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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::dom::test_records::{BLACK, CLEAR, page, parse, with_style_rows};

    fn parse_err(v: &Value) -> String {
        match parse_dom(&v.to_string()) {
            Err(e @ Error::BadDom { .. }) => e.to_string(),
            other => panic!("expected BadDom, got {other:?}"),
        }
    }

    #[test]
    fn dom_parses_a_valid_record() {
        let mut v = page();
        v["elements"][4]["styles"][1] = json!("rgb(255, 255, 255)");
        let s = parse(&v);
        assert_eq!(s.version, 1, "a version 1 record (a baseline approved before rows) still reads");
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
        v["version"] = json!(5);
        let err = parse_err(&v);
        assert_eq!(
            err,
            "DOM record: format version 5, this sightline reads versions 1 to 4; capture again with the current sightline"
        );
        // A future record of another shape still names its version, not a missing field.
        assert!(parse_err(&json!({ "version": 5, "nodes": [] })).contains("format version 5"), "{err}");
    }

    #[test]
    fn an_older_records_style_urls_read_as_version_3_names_them() {
        let mut v2 = with_style_rows(&page());
        v2["styleRows"][0][1] = json!(r#"url("http://localhost:3000/bg.png"), url("http://cdn.test/x.png")"#);
        let old = parse(&v2);
        assert_eq!(&*old.elements[4].styles[1], r#"url("/bg.png"), url("http://cdn.test/x.png")"#);
        // Rows stay shared: every element of the row holds one list.
        assert!(old.elements.windows(2).all(|w| Arc::ptr_eq(&w[0].styles, &w[1].styles)));
        // A version 3 record's values are the collector's, read as they are.
        let mut v3 = v2.clone();
        v3["version"] = json!(3);
        assert_eq!(&*parse(&v3).elements[4].styles[1], v2["styleRows"][0][1].as_str().unwrap());
    }

    #[test]
    fn images_are_named_from_the_page_from_version_3_on() {
        let mut v3 = with_style_rows(&page());
        v3["version"] = json!(3);
        let (old, new) = (parse(&with_style_rows(&page())), parse(&v3));
        assert_eq!(new.image_name("http://localhost:3000/img/a.png"), "/img/a.png");
        assert_eq!(old.image_name("http://localhost:3000/img/a.png"), "http://localhost:3000/img/a.png");
        assert!(new.names_images_alike(&new) && old.names_images_alike(&old));
        assert!(!old.names_images_alike(&new));
    }

    #[test]
    fn dom_version_2_reads_as_version_1_with_each_element_given_its_row() {
        let mut v1 = page();
        v1["elements"][4]["styles"][1] = json!("rgb(255, 255, 255)");
        let v2 = with_style_rows(&v1);
        assert_eq!(v2["styleRows"].as_array().unwrap().len(), 2, "nine elements, two distinct rows");
        let (one, two) = (parse(&v1), parse(&v2));
        assert_eq!(two.version, 2);
        assert_eq!(one.elements, two.elements, "same styles, digests and flags element by element");
        // Serialised, the record is the expanded one: no rows, each element's own values.
        let written = serde_json::to_value(&two).unwrap();
        assert!(written.get("styleRows").is_none());
        assert_eq!(written["elements"][4]["styles"][1], json!("rgb(255, 255, 255)"));
        assert_eq!(parse(&written).elements, one.elements);
    }

    #[test]
    fn dom_version_2_rejects_bad_rows() {
        let v2 = with_style_rows(&page());
        let mut out_of_range = v2.clone();
        out_of_range["elements"][3]["style"] = json!(7);
        assert_eq!(
            parse_err(&out_of_range),
            "DOM record: element 3 (`body > main`): style row 7 of 1 styleRows; capture again with the current sightline"
        );
        let mut both = v2.clone();
        both["elements"][3]["styles"] = json!([BLACK, CLEAR, "16px"]);
        assert!(parse_err(&both).contains("element 3 (`body > main`): both styles and a style row"));
        let mut short_row = v2.clone();
        short_row["styleRows"][0] = json!([BLACK]);
        assert!(parse_err(&short_row).contains("1 style values for 3 styleProperties"));
        let mut rows_in_v1 = page();
        rows_in_v1["styleRows"] = json!([[BLACK, CLEAR, "16px"]]);
        assert!(parse_err(&rows_in_v1).contains("styleRows in a version 1 record"));
    }

    #[test]
    fn dom_version_2_rows_cannot_expand_past_the_byte_limit() {
        // One row of three 1000-byte values used by nine elements: 9 × 3 × (1000 + 24) bytes once
        // copied, from a record of about 4 kB.
        let mut v2 = with_style_rows(&page());
        v2["styleRows"][0] = json!(["x".repeat(1000), "y".repeat(1000), "z".repeat(1000)]);
        let json = v2.to_string();
        let limits = Limits { bytes: 20_000, ..LIMITS };
        assert!(json.len() < limits.bytes);
        match parse_with_limits(&json, &limits) {
            Err(e) => {
                assert!(e.to_string().contains("its style rows expand to 27648 bytes, above the limit of 20000"), "{e}")
            }
            Ok(_) => panic!("expanded past the limit"),
        }
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
}
