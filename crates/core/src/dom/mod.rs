//! The DOM layer: the record the in-page collector returns, its validation, the comparison of two
//! records (structure, styles, geometry) and the attribution of pixel regions to elements.
//!
//! One file per concept, everything re-exported here so callers name `crate::dom::X`:
//! `record.rs` (the record, its limits and [`parse_dom`]), `pairing.rs` (which baseline element
//! is which current element), `comparison.rs` ([`compare_dom`] and the tallies it reports) and
//! `attribution.rs` ([`attribute_regions`]: the elements under each pixel region).
//!
//! # The DOM record (format version 4)
//!
//! The collector returns one JSON string from one `page.evaluate`:
//!
//! ```json
//! { "version": 4,
//!   "url": "http://localhost:3000/pricing",
//!   "viewport": { "width": 1280, "height": 720 },
//!   "devicePixelRatio": 1,
//!   "document": { "width": 1280, "height": 4000 },
//!   "styleProperties": ["color", "background-color"],
//!   "styleRows": [["rgb(0, 0, 0)", "rgb(255, 255, 255)"], ["rgb(0, 0, 0)", "rgba(0, 0, 0, 0)"]],
//!   "elements": [
//!     { "parent": -1, "tag": "body", "selector": "body", "box": [0, 0, 1280, 4000], "style": 0 },
//!     { "parent": 0, "tag": "h1", "selector": "h1", "box": [8, 21.4, 1264, 37], "style": 1,
//!       "text": "9f3a5c01d2e4b7a8" }
//!   ],
//!   "fonts": [ { "family": "Inter", "status": "loaded" } ],
//!   "brokenImages": ["http://localhost:3000/missing.png"] }
//! ```
//!
//! - `elements` are in document order; `parent` is the index of the parent's record, always
//!   lower than the element's own index, or `-1` for a root. Shadow roots and same-origin iframes
//!   are walked, their elements parented to the host element.
//! - `selector` names the element by a stable CSS selector path (`body > main >
//!   div.row:nth-of-type(2)`, `#id` when the id is unique), written relative to its parent's
//!   (`div.row:nth-of-type(2)` under `body > main`; the forms are in `selector_paths.rs`);
//!   [`parse_dom`] gives every element its full path, as version 3 records wrote it. It names
//!   elements in reports; [`compare_dom`] pairs elements between
//!   captures tree-wise, like a line diff over each list of siblings (never by `:nth-of-type`),
//!   so one inserted sibling is one added element. A re-parented element shows up as removed +
//!   added, unless it has an `#id` selector.
//! - `box` is the border box `[x, y, width, height]` in CSS pixels of the page (not the
//!   viewport); multiply by `devicePixelRatio` for screenshot pixels.
//! - `text` is a hex digest of the element's own text (its direct text nodes), `image` a digest of
//!   an `<img>`'s `currentSrc` or a `background-image`; absent (or `null`) when there is none. The page's own
//!   files are named by their path from the page ([`page_relative`]: `/img/hero.png` on a served
//!   page, `img/hero.png` on a `file:` one), in image digests and style values alike, so a page
//!   served on another host or port, or opened from another folder, records the same images.
//!   Version 2 records named them by absolute URL: their style values are renamed when read,
//!   their image digests are compared only with version 2 records.
//! - `styleRows` holds each distinct list of computed values of `styleProperties`, in that order
//!   (longhands only), once; an element's `style` is the index of its row. [`parse_dom`] gives
//!   every element its row as [`ElementRecord::styles`], so the checks read one list per element.
//!   Version 1 records (baselines approved before version 2) give each element its own list as
//!   `styles` instead, and read the same. An empty `styleProperties` means styles were not
//!   collected.
//! - `masked` (absent when false) marks elements matched by `mask` (and their descendants): they
//!   take no part in any check, and the top element's box is painted with `maskColor` on both
//!   images before the pixels are compared. `ignored` (absent when false) marks `ignoreSelectors` matches: left out
//!   of every check the same way, not painted.
//! - `fonts[].status` is the `FontFace` status: `loaded`, `error`, `unloaded` or `loading`;
//!   `fonts[].sources` (a failed face's only) the absolute URLs its `@font-face` rules name.
//!
//! Limits (a record beyond them is rejected by [`parse_dom`]): [`MAX_DOM_BYTES`] of JSON,
//! [`MAX_ELEMENTS`] elements, [`MAX_STYLE_PROPERTIES`] style properties, [`MAX_LIST_ENTRIES`]
//! fonts or broken images, and [`MAX_STRING_BYTES`] per string — the collector shortens longer
//! URLs (`data:` images) itself.

/// The elements each pixel region maps to, and what they did.
mod attribution;
/// Structure, style and geometry changes between two records.
mod comparison;
mod geometry;
/// The keys elements are aligned by, one per pass, and the names in a selector segment.
mod keys;
/// The classes a selector names, and the class changes of paired elements.
mod names;
/// How a record names the page's own files: by their path from the page.
mod page_urls;
/// Which baseline element is which current element: a line diff over the element tree.
mod pairing;
/// The record, its limits and validation.
mod record;
mod rendering;
/// A version 4 record's selectors, written relative to their parents, as full paths.
mod selector_paths;
#[cfg(test)]
pub(crate) mod test_records;
/// A record's element tree: trimmed to a depth, or nested for display.
mod tokens;
mod trace;
mod tree;

pub use attribution::attribute_regions;
// What a region's elements did is the region's own evidence; named here too, where they are found.
pub use comparison::{
    CommonChange, ContentChange, DomComparison, ElementList, GEOMETRY_TOLERANCE, GeometryChanges, ModifiedElement,
    ModifiedElements, MovedElements, PropertyChange, ResizedElement, StyleChanges, StyleCheck, compare_dom,
};
pub use names::{ClassChange, ClassChanges};
pub use page_urls::{page_relative, page_relative_in_css};
pub use record::{
    CssSize, DOM_VERSION, DomSnapshot, ElementRecord, FontRecord, FontStatus, MAX_DOM_BYTES, MAX_ELEMENT_TOKENS,
    MAX_ELEMENTS, MAX_IGNORE_REGIONS, MAX_LIST_ENTRIES, MAX_STRING_BYTES, MAX_STYLE_PROPERTIES, MAX_TOKENS, parse_dom,
};
pub use rendering::{image_source_digest, rendering_regions};
pub use tokens::{TokenChange, token_changes};
pub use trace::{
    MAX_SOURCE_MAP_BYTES, MAX_SOURCE_MAPS, MAX_TRACED_ELEMENTS, PageRules, Source, StyleTrace, TraceRequest,
    TracedChange, TracedToken, trace_styles,
};
pub use tree::{TreeNode, dom_tree, prune_depth};
