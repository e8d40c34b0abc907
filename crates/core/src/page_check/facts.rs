//! The facts the browser worker (`playwright-fixtures/worker.js`) sends about one page, as the
//! finders read them: the viewport it was laid out at, the per-element details beyond the DOM
//! record (`detailsInPage`), the console and the failed requests. Nothing here judges.

use serde::{Deserialize, Serialize};

use crate::dom::DomSnapshot;

/// A named viewport of `visual_check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ViewportKind {
    /// 1280 × 800.
    #[default]
    Desktop,
    /// 768 × 1024.
    Tablet,
    /// 375 × 667; tap targets are checked only here.
    Mobile,
}

impl ViewportKind {
    /// Width and height in CSS pixels.
    pub fn size(self) -> (u32, u32) {
        match self {
            ViewportKind::Desktop => (1280, 800),
            ViewportKind::Tablet => (768, 1024),
            ViewportKind::Mobile => (375, 667),
        }
    }

    /// Parses `desktop`, `tablet` or `mobile`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "desktop" => Some(ViewportKind::Desktop),
            "tablet" => Some(ViewportKind::Tablet),
            "mobile" => Some(ViewportKind::Mobile),
            _ => None,
        }
    }
}

/// Per-element facts beyond the DOM record, for elements with own text, images, interactive
/// elements, overflow clippers and elements that paint a box (the worker's `detailsInPage`).
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ElementDetail {
    /// The collector's selector; None when it could not be named.
    pub selector: Option<String>,
    /// The element has non-blank text nodes of its own.
    pub own_text: bool,
    /// Line boxes of its own text, `[x, y, w, h]` in page pixels (at most 20).
    pub text_rects: Vec<[f64; 4]>,
    /// `[scrollWidth, scrollHeight, clientWidth, clientHeight]`.
    pub scroll: [f64; 4],
    /// Computed `background-color`s from the element up to the first opaque one.
    pub backgrounds: Vec<String>,
    /// Something other than the listed colours lies behind the text (a background image, or an
    /// image, video or another element's box painted under it): contrast is not computed.
    pub backdrop_unknown: bool,
    /// A disabled control or inside one (`:disabled`, a disabled fieldset, `aria-disabled="true"`,
    /// `inert`): WCAG exempts inactive text from contrast, and it is no tap target.
    pub disabled: bool,
    /// Product of the element's and its ancestors' opacity.
    pub opacity: f64,
    /// A link, button, form control or element with a click role.
    pub interactive: bool,
    /// An inline element in a sentence: its parent, or an inline ancestor up to the first block,
    /// has text of its own (a link in a sentence, or in an `<em>` in one).
    pub inline_in_text: bool,
    /// Load state of an `<img>`.
    pub image: Option<ImageState>,
    /// It paints a box of its own: a background colour or image, a border, a shadow, or replaced
    /// content (an image, SVG, video, canvas, frame or form field). Not for SVG's inner shapes.
    pub paints: bool,
}

/// An `<img>`'s load state.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ImageState {
    pub src: String,
    pub complete: bool,
    pub natural_width: f64,
    pub natural_height: f64,
}

/// A `<link rel=stylesheet>` and its selector.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct StylesheetLink {
    pub href: String,
    pub selector: Option<String>,
}

/// The worker's details JSON.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct PageDetails {
    pub elements: Vec<ElementDetail>,
    pub stylesheets: Vec<StylesheetLink>,
}

/// Where a console entry came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceLocation {
    pub url: String,
    pub line: u32,
    pub column: u32,
}

/// One console message or uncaught page error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleEntry {
    /// `error`, `warning`, `info`, `log`, `debug` or `pageerror` (an uncaught exception).
    pub level: String,
    pub text: String,
    pub location: Option<SourceLocation>,
    /// Milliseconds after the call started (navigation begins right after).
    #[serde(default)]
    pub time_ms: f64,
}

impl ConsoleEntry {
    /// A console error or an uncaught exception: what the finders and the console log count as
    /// errors.
    pub fn is_error(&self) -> bool {
        self.level == "error" || self.level == "pageerror"
    }
}

/// A request that failed or answered ≥ 400.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailedRequest {
    pub url: String,
    pub status: Option<u16>,
    pub failure: Option<String>,
    /// Playwright's resource type: `image`, `font`, `stylesheet`, `script`, …
    pub resource_type: String,
}

/// One failure per URL, as a person counts failed assets: a request that answered 404 and was
/// then aborted is one failure, said by its most telling reason ([`crate::health::one_per_asset`]'s
/// rule). The first-seen order stays.
pub fn one_per_url(requests: Vec<FailedRequest>) -> Vec<FailedRequest> {
    crate::health::most_telling_each(requests, |a, b| a.url == b.url, FailedRequest::reason)
}

impl FailedRequest {
    /// Why it failed, in a few words: the HTTP status, else the network error.
    pub(super) fn reason(&self) -> String {
        match (&self.status, &self.failure) {
            (Some(s), _) => format!("HTTP {s}"),
            (None, Some(f)) => f.clone(),
            (None, None) => "failed".into(),
        }
    }
}

/// Everything the finders read about one page.
#[derive(Debug, Clone)]
pub struct PageFacts {
    pub dom: DomSnapshot,
    pub details: PageDetails,
    pub console: Vec<ConsoleEntry>,
    pub failed_requests: Vec<FailedRequest>,
}
