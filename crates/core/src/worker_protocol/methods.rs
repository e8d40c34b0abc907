//! The methods of `playwright-fixtures/worker/methods.js`: the table below names each one's params
//! and answer, then one section per method, in the table's order, defines them. Fields are named
//! as the worker names them (camelCase on the wire). Optional params are sent as `null`: the
//! worker treats a null and a missing one alike.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{DomRecord, JsonText, WorkerMethod, js_number};
use crate::live::{AxeResults, ShiftEntry, VisibilityTimeline};
use crate::page_check::{ConsoleEntry, ElementPresence, FailedRequest, PageDetails};
use crate::visual_verify::VerifyFacts;

/// The method table, in methods.js's order: each method's params type, its name, what its answer
/// is called in errors, the answer's type, and the params' field naming the page it opens.
macro_rules! method_table {
    ($($params:ty => $name:literal, $called:literal, $answer:ty $(, opens $($field:tt).+)?;)*) => {$(
        impl WorkerMethod for $params {
            const NAME: &'static str = $name;
            const ANSWER: &'static str = $called;
            type Answer = $answer;
            $(
                fn url(&self) -> Option<&str> {
                    Some(&self.$($field).+)
                }
            )?
        }
    )*};
}

method_table! {
    PingParams => "ping", "health facts", PingAnswer;
    CheckParams => "check", "check facts", CheckAnswer, opens url;
    ConsoleParams => "console", "console entries", ConsoleAnswer, opens 0.url;
    AxeParams => "axe", "axe-core results", AxeResults, opens url;
    LayoutShiftParams => "layoutShift", "layout-shift entries", LayoutShiftAnswer, opens 0.url;
    FlashParams => "flash", "visibility timelines", FlashAnswer, opens 0.url;
    MeasureParams => "measure", "element measurements", ElementMeasurement, opens url;
    ViewportsParams => "viewports", "breakpoint facts", ViewportsAnswer, opens url;
    CaptureParams => "capture", "capture facts", CaptureAnswer, opens url;
    FramesParams => "frames", "frame shots", FramesAnswer, opens url;
    VerifyFactsParams => "verifyFacts", "page facts", VerifyFacts, opens url;
}

/// A viewport in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewportSize {
    /// Width in CSS pixels.
    pub width: u32,
    /// Height in CSS pixels.
    pub height: u32,
}

/// Params of the calls that watch a page for a while after load (`console`, `layoutShift`,
/// `flash`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Watch {
    /// The page to open.
    pub url: String,
    /// How long to keep watching after the load event, in ms; the server sends its default, the
    /// worker has none.
    pub wait_ms: u64,
}

// ---------------------------------------------------------------------------------------------
// ping

/// `ping`: the worker's health; opens no page.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PingParams {}

/// What `ping` reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PingAnswer {
    /// The worker's process id.
    pub pid: u32,
    /// The Node.js version running it (`v20.11.0`).
    pub node: String,
    /// The `playwright-core` it loaded; None when it could not load one.
    pub playwright_core: Option<PlaywrightCore>,
    /// Why `playwright-core` could not be loaded, naming where it looked and the fix.
    pub playwright_error: Option<String>,
    /// The Chromium it would launch, or where it looked.
    pub browser: BrowserSearch,
    /// A browser is launched or launching.
    pub browser_running: bool,
}

/// The `playwright-core` package the worker drives the browser with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlaywrightCore {
    /// Its version, from its package.json.
    pub version: String,
    /// Its folder.
    pub path: String,
}

/// Which Chromium the worker found: `{found: true, path, source}`, or `{found: false, tried,
/// install}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BrowserSearch {
    /// An executable was found.
    pub found: bool,
    /// The executable, when found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Where it came from: `playwright`, `SIGHTLINE_CHROMIUM` or `system`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The paths looked at, when none was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tried: Option<Vec<String>>,
    /// How to install one, when none was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// check

/// `check` (visual_check): the DOM record with the finders' styles, the details, the console, a
/// full-page screenshot, and the area to narrow to.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckParams {
    /// The page to open.
    pub url: String,
    /// The viewport to lay it out at.
    pub viewport: ViewportSize,
    /// Where the screenshot goes.
    pub out_dir: PathBuf,
    /// CSS selectors tried in order; the first that matches is the area (`scopeInPage`).
    pub scopes: Vec<String>,
    /// The first selector names one element the caller wrote (`focus`): it must parse, and its
    /// first match counts even when nothing of it renders.
    pub scope_any_match: bool,
    /// The computed styles to collect: [`crate::page_check::CHECK_STYLE_PROPERTIES`].
    pub style_properties: &'static [&'static str],
}

/// What `check` gathers for the finders.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckAnswer {
    /// The collector's DOM record.
    pub dom: DomRecord,
    /// Per-element facts beyond the record (`detailsInPage`).
    pub details: JsonText<PageDetails>,
    /// Console messages and uncaught errors from before navigation on.
    pub console: Vec<ConsoleEntry>,
    /// Requests that failed or answered ≥ 400.
    pub failed_requests: Vec<FailedRequest>,
    /// The full-page screenshot's path.
    pub screenshot: Option<String>,
    /// The area the first matching scope selector names; None when none matched (or none given).
    pub scope: Option<ScopeMatch>,
}

/// The scope selector that matched and the elements of its area.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScopeMatch {
    /// Which of the params' `scopes` matched.
    pub index: usize,
    /// The collector's selectors of the matched element and everything inside it (None for an
    /// element that could not be named).
    pub selectors: Vec<Option<String>>,
}

// ---------------------------------------------------------------------------------------------
// console

/// `console` (get_console_logs): everything logged until `waitMs` after load.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct ConsoleParams(pub Watch);

/// The page's console and failed requests.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleAnswer {
    /// Console messages and uncaught errors, at most 1,000.
    pub console: Vec<ConsoleEntry>,
    /// Entries past that cap, not listed.
    pub console_dropped: u64,
    /// Requests that failed or answered ≥ 400.
    pub failed_requests: Vec<FailedRequest>,
}

// ---------------------------------------------------------------------------------------------
// axe

/// `axe` (verify_accessibility): axe-core run on the page or one element.
#[derive(Debug, Clone, Serialize)]
pub struct AxeParams {
    /// The page to open.
    pub url: String,
    /// Audit only this element (a CSS selector); the whole page when None.
    pub selector: Option<String>,
    /// Only these axe rule ids; every rule when None.
    pub rules: Option<Vec<String>>,
}

// ---------------------------------------------------------------------------------------------
// layoutShift

/// `layoutShift` (detect_layout_shift): layout-shift entries until `waitMs` after load.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct LayoutShiftParams(pub Watch);

/// The layout shifts the page reported.
#[derive(Debug, Clone, Deserialize)]
pub struct LayoutShiftAnswer {
    /// The browser has no Layout Instability API (only Chromium has it).
    pub unsupported: bool,
    /// The `layout-shift` entries, sources named by the collector's selectors.
    pub entries: Vec<ShiftEntry>,
}

// ---------------------------------------------------------------------------------------------
// flash

/// `flash` (detect_flash): visibility timelines until `waitMs` after load.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct FlashParams(pub Watch);

/// The elements whose visibility changed after they were first seen.
#[derive(Debug, Clone, Deserialize)]
pub struct FlashAnswer {
    /// One timeline per element that changed.
    pub elements: Vec<VisibilityTimeline>,
}

// ---------------------------------------------------------------------------------------------
// measure

/// `measure` (measure_element): the first match of a selector; nothing matching is the call's
/// error.
#[derive(Debug, Clone, Serialize)]
pub struct MeasureParams {
    /// The page to open.
    pub url: String,
    /// A CSS selector.
    pub selector: String,
}

/// One element's box model, typography and visibility (`measureInPage`), as measure_element
/// shows it: written back with every number as the page gave it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElementMeasurement {
    /// Always true: a selector that matches nothing is the call's error.
    pub found: bool,
    /// The collector's selector of the element.
    pub selector: Option<String>,
    /// How many elements the selector matches (the first is measured).
    pub matches: u64,
    /// Its tag name, lower case.
    pub tag: String,
    /// Its rendered text, trimmed, at most 200 characters.
    pub text: String,
    /// Its border box in page pixels.
    #[serde(rename = "box")]
    pub bounds: PageBox,
    /// Computed margins in px.
    pub margin: Sides,
    /// Computed padding in px.
    pub padding: Sides,
    /// Computed border widths in px.
    pub border: Sides,
    /// The content box's size (client size less padding).
    pub content: Extent,
    /// `scrollWidth` and `scrollHeight`.
    pub scroll: Extent,
    /// Computed typography, as CSS values.
    pub typography: Typography,
    /// Whether and how it shows.
    pub visibility: Visibility,
    /// The viewport (`innerWidth`, `innerHeight`).
    pub viewport: Extent,
}

/// A box in page pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PageBox {
    /// Left edge.
    #[serde(serialize_with = "js_number")]
    pub x: f64,
    /// Top edge.
    #[serde(serialize_with = "js_number")]
    pub y: f64,
    /// Width.
    #[serde(serialize_with = "js_number")]
    pub width: f64,
    /// Height.
    #[serde(serialize_with = "js_number")]
    pub height: f64,
}

/// A width and a height in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Extent {
    /// Width.
    #[serde(serialize_with = "js_number")]
    pub width: f64,
    /// Height.
    #[serde(serialize_with = "js_number")]
    pub height: f64,
}

/// Four sides of a margin, padding or border, in px.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sides {
    /// Top.
    #[serde(serialize_with = "js_number")]
    pub top: f64,
    /// Right.
    #[serde(serialize_with = "js_number")]
    pub right: f64,
    /// Bottom.
    #[serde(serialize_with = "js_number")]
    pub bottom: f64,
    /// Left.
    #[serde(serialize_with = "js_number")]
    pub left: f64,
}

/// Computed typography of an element, as the browser gives the values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Typography {
    /// `font-family`.
    pub font_family: String,
    /// `font-size` (`16px`).
    pub font_size: String,
    /// `font-weight` (`400`).
    pub font_weight: String,
    /// `line-height` (`normal`, `24px`).
    pub line_height: String,
    /// `letter-spacing`.
    pub letter_spacing: String,
    /// `color` (`rgb(…)`).
    pub color: String,
    /// `text-align`.
    pub text_align: String,
}

/// Whether an element shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Visibility {
    /// Computed `display`.
    pub display: String,
    /// Computed `visibility`.
    pub visibility: String,
    /// Computed `opacity`, as the browser writes it (`1`, `0.5`).
    pub opacity: String,
    /// It renders (`checkVisibility` with opacity and visibility).
    pub rendered: bool,
    /// Some of it lies inside the viewport.
    pub in_viewport: bool,
}

// ---------------------------------------------------------------------------------------------
// viewports

/// `viewports` (test_viewports): the page at each size, the DOM record with the finders' styles,
/// the element's presence and a screenshot each.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewportsParams {
    /// The page to open.
    pub url: String,
    /// An element whose presence is reported at each size (a CSS selector).
    pub selector: Option<String>,
    /// The sizes, in the order answered.
    pub breakpoints: Vec<ViewportSize>,
    /// Where the screenshots go.
    pub out_dir: PathBuf,
    /// The computed styles to collect: [`crate::page_check::CHECK_STYLE_PROPERTIES`].
    pub style_properties: &'static [&'static str],
}

/// The page at every size asked, in the order asked.
#[derive(Debug, Clone, Deserialize)]
pub struct ViewportsAnswer {
    /// One per size.
    pub breakpoints: Vec<BreakpointAnswer>,
}

/// The page at one size.
#[derive(Debug, Clone, Deserialize)]
pub struct BreakpointAnswer {
    /// The viewport width it was laid out at.
    pub width: u32,
    /// The viewport height.
    pub height: u32,
    /// The collector's DOM record at this size.
    pub dom: DomRecord,
    /// The asked element (`elementFactsInPage`); None when no selector was given.
    pub element: Option<ElementPresence>,
    /// The full-page screenshot's path.
    pub screenshot: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// capture

/// `capture` (capture_dom_state, capture_visual_state): the DOM record with the capture styles,
/// optionally a screenshot.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureParams {
    /// The page to open.
    pub url: String,
    /// Only this element and inside it (a selector Playwright reads; its own `text=…` too).
    pub selector: Option<String>,
    /// The computed styles to collect: a toMatchVisual capture's defaults.
    pub style_properties: &'static [&'static str],
    /// Take a screenshot (full page, or the element) into `outDir`.
    pub screenshot: bool,
    /// Scroll to the bottom first so lazy content loads.
    pub scroll_to_load: bool,
    /// Where the screenshot goes.
    pub out_dir: Option<PathBuf>,
}

/// The captured state.
#[derive(Debug, Clone, Deserialize)]
pub struct CaptureAnswer {
    /// The collector's DOM record.
    pub dom: DomRecord,
    /// The screenshot's path, when one was asked for.
    pub screenshot: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// frames

/// `frames` (capture_frames): optional actions, then `frames` screenshots `intervalMs` apart into
/// `outDir`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FramesParams {
    /// The page to open.
    pub url: String,
    /// How many screenshots.
    pub frames: u32,
    /// Between the starts of two screenshots, in ms.
    pub interval_ms: u64,
    /// Waited after load, before the actions.
    pub wait_ms: u64,
    /// Run in order before the first screenshot.
    pub actions: Vec<FrameAction>,
    /// Only this part of the viewport.
    pub clip: Option<ClipBox>,
    /// The viewport; the worker's 1280×800 when None.
    pub viewport: Option<ViewportSize>,
    /// The folder the frames are written into (`frame-000.png`, …).
    pub out_dir: PathBuf,
    /// Wait until a Flutter web app has drawn its first frame.
    pub wait_for_flutter: bool,
}

/// One step before the frames are taken.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum FrameAction {
    /// Click an element or a point.
    Click(ActionTarget),
    /// Move the mouse over an element or a point.
    Hover(ActionTarget),
    /// Wait.
    Wait {
        /// How long, in ms.
        ms: u64,
    },
}

/// What a click or hover is aimed at.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ActionTarget {
    /// The first element a selector (Playwright's) matches.
    Element {
        /// The selector.
        selector: String,
    },
    /// A point of the viewport, in CSS pixels.
    Point {
        /// From the left.
        x: f64,
        /// From the top.
        y: f64,
    },
}

/// A part of the viewport, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClipBox {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// The frames taken, in order.
#[derive(Debug, Clone, Deserialize)]
pub struct FramesAnswer {
    /// One per frame.
    pub shots: Vec<FrameShot>,
}

/// One frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameShot {
    /// The PNG's path.
    pub file: String,
    /// When it was taken, ms after the first.
    pub at_ms: u64,
}

// ---------------------------------------------------------------------------------------------
// verifyFacts

/// `verifyFacts` (visual_verify): a screenshot and the facts challenges are built from.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyFactsParams {
    /// The page to open.
    pub url: String,
    /// Only this element (a CSS selector); the page down to 4000 px when None.
    pub selector: Option<String>,
    /// Where the screenshot goes.
    pub out_dir: PathBuf,
}
