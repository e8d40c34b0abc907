//! The live-page MCP tools (spec 05-live-pages): each opens a URL in the browser worker and
//! answers from the page itself. This module converts arguments and results; the worker gathers
//! facts, `sightline_core::page_check` / `live` / `dom` / `visual_verify` judge them. DOM
//! snapshots are kept in memory for [`SNAPSHOT_TTL`], at most [`MAX_SNAPSHOTS`] of them; visual
//! verification sessions for 5 minutes (`SIGHTLINE_VERIFY_TTL_MS`), at most [`MAX_SESSIONS`].
//! One exception to "the core judges": `verify_accessibility`'s violations are axe-core's own
//! verdicts, run in the page; this module only summarises them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ErrorData, tool, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};
use sightline_core::artifact::{Capture, write_capture};
use sightline_core::decode::decode_image;
use sightline_core::dom::{DomSnapshot, compare_dom, parse_dom};
use sightline_core::live::{
    ShiftEntry, VisibilityTimeline, console_levels, filter_console, judge_flashes, judge_layout_shift,
};
use sightline_core::page_check::{
    ConsoleEntry, FailedRequest, PageDetails, PageFacts, ViewportKind, horizontal_overflow,
};
use sightline_core::visual_verify::{Challenge, Criterion, VerifyFacts, build_challenges, judge_response};

use super::{SightlineServer, failure, text};
use crate::live::{self, Worker, call_timeout, check_url, screenshot_dir};

/// How long a captured DOM snapshot stays available to `compare_snapshots`.
pub const SNAPSHOT_TTL: Duration = Duration::from_secs(30 * 60);
/// Most snapshots kept; the oldest goes first.
pub const MAX_SNAPSHOTS: usize = 50;
/// Verification sessions kept; the oldest goes first.
pub const MAX_SESSIONS: usize = 100;
/// How long a verification session lives unless `SIGHTLINE_VERIFY_TTL_MS` says otherwise.
const SESSION_TTL: Duration = Duration::from_secs(5 * 60);
/// Responses one session accepts, so answers cannot be found by trying them all.
const MAX_ATTEMPTS: u32 = 3;
/// Longest wait a caller may ask for after load.
const MAX_WAIT_MS: u64 = 20_000;

/// State the live tools share: the worker and the DOM snapshots.
pub struct LiveState {
    pub worker: Worker,
    snapshots: Mutex<Snapshots>,
    sessions: Mutex<Sessions>,
}

impl LiveState {
    pub fn new(root: &std::path::Path) -> Self {
        let ttl = std::env::var("SIGHTLINE_VERIFY_TTL_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(SESSION_TTL, Duration::from_millis);
        LiveState {
            worker: Worker::new(root),
            snapshots: Mutex::new(Snapshots::default()),
            sessions: Mutex::new(Sessions { ttl, kept: HashMap::new() }),
        }
    }
}

/// One visual_verify session: the challenges with their withheld answers.
struct Session {
    created: Instant,
    url: String,
    query: String,
    challenges: Vec<Challenge>,
    attempts: u32,
}

struct Sessions {
    ttl: Duration,
    kept: HashMap<String, Session>,
}

impl Sessions {
    fn insert(&mut self, session: Session) -> String {
        self.expire();
        while self.kept.len() >= MAX_SESSIONS {
            let oldest = self.kept.iter().min_by_key(|(_, s)| s.created).map(|(id, _)| id.clone());
            let Some(oldest) = oldest else { break };
            self.kept.remove(&oldest);
        }
        let id = session_id();
        self.kept.insert(id.clone(), session);
        id
    }

    fn expire(&mut self) {
        let ttl = self.ttl;
        self.kept.retain(|_, s| s.created.elapsed() < ttl);
    }
}

/// An id nobody can guess: 128 bits from the standard library's per-process random hash keys,
/// mixed with the time.
fn session_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut halves = [0u64; 2];
    for half in &mut halves {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
        *half = h.finish();
    }
    format!("verify-{:016x}{:016x}", halves[0], halves[1])
}

#[derive(Default)]
struct Snapshots {
    next: u64,
    kept: HashMap<String, (Instant, DomSnapshot)>,
}

impl Snapshots {
    fn insert(&mut self, dom: DomSnapshot) -> String {
        self.expire();
        while self.kept.len() >= MAX_SNAPSHOTS {
            let oldest = self.kept.iter().min_by_key(|(_, (at, _))| *at).map(|(id, _)| id.clone());
            let Some(oldest) = oldest else { break };
            self.kept.remove(&oldest);
        }
        self.next += 1;
        let id = format!("dom-{}-{}", self.next, std::process::id());
        self.kept.insert(id.clone(), (Instant::now(), dom));
        id
    }

    fn get(&mut self, id: &str) -> Option<&DomSnapshot> {
        self.expire();
        self.kept.get(id).map(|(_, d)| d)
    }

    fn expire(&mut self) {
        self.kept.retain(|_, (at, _)| at.elapsed() < SNAPSHOT_TTL);
    }
}

/// Arguments of `visual_check`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct VisualCheckArgs {
    /// The page to open (http or https).
    pub url: String,
    /// "desktop" (1280 px, the default), "tablet" (768 px) or "mobile" (375 px; also checks tap targets).
    #[serde(default)]
    pub viewport: Option<String>,
    /// A CSS selector: only issues on this element and inside it (page-wide ones stay).
    #[serde(default)]
    pub focus: Option<String>,
}

/// Arguments of `get_console_logs`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ConsoleArgs {
    /// The page to open (http or https).
    pub url: String,
    /// Levels to keep: error, warning, info, log, debug, pageerror (uncaught exceptions). All when absent.
    #[serde(default)]
    pub levels: Option<Vec<String>>,
    /// How long to keep listening after the load event, in ms (default 1000, at most 20000).
    #[serde(default)]
    pub wait_ms: Option<u64>,
}

/// Arguments of `verify_accessibility`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AccessibilityArgs {
    /// The page to open (http or https).
    pub url: String,
    /// Audit only this element (a CSS selector) and inside it.
    #[serde(default)]
    pub selector: Option<String>,
    /// Only these axe-core rule ids (e.g. ["color-contrast", "image-alt"]).
    #[serde(default)]
    pub rules: Option<Vec<String>>,
}

/// Arguments of the timeline tools.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TimelineArgs {
    /// The page to open (http or https).
    pub url: String,
    /// How long to watch after the load event, in ms (default 3000, at most 20000).
    #[serde(default)]
    pub wait_time: Option<u64>,
}

/// Arguments of `measure_element`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MeasureArgs {
    /// The page to open (http or https).
    pub url: String,
    /// CSS selector of the element (the first match is measured).
    pub selector: String,
}

/// One viewport size.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Breakpoint {
    /// Width in CSS pixels.
    pub width: u32,
    /// Height in CSS pixels.
    pub height: u32,
}

/// Arguments of `test_viewports`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ViewportsArgs {
    /// The page to open (http or https).
    pub url: String,
    /// An element whose visibility is reported per breakpoint (CSS selector).
    #[serde(default)]
    pub selector: Option<String>,
    /// Sizes to test (default 375×667, 768×1024, 1920×1080).
    #[serde(default)]
    pub breakpoints: Option<Vec<Breakpoint>>,
}

/// Arguments of `capture_dom_state` and `capture_visual_state`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CaptureArgs {
    /// The page to open (http or https).
    pub url: String,
    /// Capture only this element (a CSS selector) and its descendants.
    #[serde(default)]
    pub selector: Option<String>,
    /// Keep elements at most this deep below the root (the root is depth 0).
    #[serde(default)]
    pub max_depth: Option<usize>,
    /// capture_visual_state only: scroll to the bottom first so lazy content loads.
    #[serde(default)]
    pub scroll_to_load: Option<bool>,
}

/// Arguments of `visual_verify`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct VisualVerifyArgs {
    /// The page to open (http or https).
    pub url: String,
    /// What the looking model should answer about the page (e.g. "Does the pricing table show three plans?").
    pub query: String,
    /// Screenshot and challenges only for this element (a CSS selector).
    #[serde(default)]
    pub selector: Option<String>,
    /// Extra challenges with known answers: [{"question": "...", "expected": 12 | true | "#ff0000" | "top right" | "text"}].
    #[serde(default)]
    pub criteria: Option<Vec<CriterionArg>>,
}

/// A caller-given challenge with its known answer.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CriterionArg {
    /// The question the looking model answers from the screenshot.
    pub question: String,
    /// The right answer, withheld from the model: a whole number (a count, ±2 or ±50 %), a boolean, a colour ("#ff0000"), region words ("top right") or text (≥ 50 % word overlap).
    pub expected: Value,
}

/// Arguments of `submit_visual_response`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SubmitVisualArgs {
    /// The session id visual_verify returned.
    pub session_id: String,
    /// Answers by challenge id, e.g. {"c1": "Spring collection", "c2": "top left", "c3": 3}.
    pub challenge_answers: serde_json::Map<String, Value>,
    /// The looking model's answer to the query.
    pub query_answer: String,
}

/// Arguments of `compare_snapshots`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CompareSnapshotsArgs {
    /// The id capture_dom_state returned for the earlier state.
    pub before_id: String,
    /// The id capture_dom_state returned for the later state.
    pub after_id: String,
}

fn bad(message: impl Into<String>) -> ErrorData {
    ErrorData::invalid_params(message.into(), None)
}

fn url_checked(url: &str) -> Result<(), ErrorData> {
    check_url(url).map_err(bad)
}

fn wait_checked(name: &str, value: Option<u64>, default: u64) -> Result<u64, ErrorData> {
    let v = value.unwrap_or(default);
    if v > MAX_WAIT_MS {
        return Err(bad(format!("{name}: at most {MAX_WAIT_MS} ms, got {v}")));
    }
    Ok(v)
}

fn pretty(value: &Value) -> CallToolResult {
    text(serde_json::to_string_pretty(value).unwrap_or_default())
}

/// Writes the DOM record as JSON next to the screenshot, and both as one Sightline capture
/// artifact (`.slcap`: the pixels plus the DOM record as its metadata, what `toMatchVisual`
/// stores), so the state can be compared later like any capture.
fn write_visual_state(screenshot: &std::path::Path, dom: &DomSnapshot) -> Result<(PathBuf, PathBuf), String> {
    let body = serde_json::to_string(dom).map_err(|e| format!("cannot serialise the DOM record: {e}"))?;
    let dom_path = screenshot.with_extension("json");
    std::fs::write(&dom_path, &body).map_err(|e| format!("cannot write {}: {e}", dom_path.display()))?;
    let png = std::fs::read(screenshot).map_err(|e| format!("cannot read {}: {e}", screenshot.display()))?;
    let image = decode_image(&png, screenshot).map_err(|e| e.to_string())?;
    let capture = Capture { image, device_scale_factor: dom.device_pixel_ratio as f32, metadata: body.into_bytes() };
    let capture_path = screenshot.with_extension("slcap");
    write_capture(&capture_path, &capture).map_err(|e| e.to_string())?;
    Ok((dom_path, capture_path))
}

/// Keeps the elements at most `max_depth` below a root, renumbering parents.
fn prune_depth(dom: &mut DomSnapshot, max_depth: usize) {
    let mut depth = Vec::with_capacity(dom.elements.len());
    let mut new_index = vec![None; dom.elements.len()];
    let mut kept = Vec::new();
    for (i, e) in dom.elements.iter().enumerate() {
        let d = e.parent_index().map_or(0, |p| depth[p] + 1);
        depth.push(d);
        if d <= max_depth {
            new_index[i] = Some(kept.len());
            let mut e = e.clone();
            e.parent = e.parent_index().and_then(|p| new_index[p]).map_or(-1, |p| p as i64);
            kept.push(e);
        }
    }
    dom.elements = kept;
}

#[tool_router(router = live_tool_router, vis = "pub(crate)")]
impl SightlineServer {
    #[tool(
        description = "Health of the live-page tools: the browser worker's pid, Node and playwright-core versions, and whether a Chromium was found (with the install command when not). Starts the worker if needed.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn ping(&self) -> Result<CallToolResult, ErrorData> {
        let live = &self.live;
        let script = live.worker.script().map(|p| p.display().to_string());
        Ok(match live.worker.call("ping", json!({}), Duration::from_secs(10)).await {
            Ok(answer) => pretty(&json!({
                "sightline": env!("CARGO_PKG_VERSION"),
                "worker": {"script": script.ok(), "pid": answer["pid"], "node": answer["node"]},
                "playwrightCore": answer["playwrightCore"],
                "playwrightError": answer["playwrightError"],
                "browser": answer["browser"],
            })),
            Err(e) => failure(format!("the browser worker is not available: {e}")),
        })
    }

    #[tool(
        description = "Open a page and look for visual bugs with deterministic finders: horizontal overflow, text clipped by overflow:hidden, overlapping text, elements off-screen, broken images, failed fonts/stylesheets, console errors, low contrast (WCAG ratio), tap targets under 24 px (mobile). Each issue has kind, severity, selector, box and the measured numbers. Returns a summary, the issues and a full-page screenshot path.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn visual_check(&self, Parameters(args): Parameters<VisualCheckArgs>) -> Result<CallToolResult, ErrorData> {
        url_checked(&args.url)?;
        let name = args.viewport.as_deref().unwrap_or("desktop");
        let viewport = ViewportKind::parse(name)
            .ok_or_else(|| bad(format!("viewport: {name:?} is not one of desktop, tablet, mobile")))?;
        Ok(match live::visual_check(&self.live.worker, &args.url, viewport, args.focus.as_deref()).await {
            Ok(found) => {
                let (width, height) = viewport.size();
                pretty(&json!({
                    "url": found.url,
                    "viewport": {"name": viewport, "width": width, "height": height},
                    "summary": found.check.summary,
                    "issues": found.check.issues,
                    "screenshot": found.screenshot,
                }))
            }
            Err(e) => failure(e),
        })
    }

    #[tool(
        description = "Console messages and uncaught page errors from before navigation until wait_ms after load, with source locations and times, plus the requests that failed. Filter with levels.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn get_console_logs(&self, Parameters(args): Parameters<ConsoleArgs>) -> Result<CallToolResult, ErrorData> {
        url_checked(&args.url)?;
        let levels =
            console_levels(args.levels.as_deref().unwrap_or_default()).map_err(|e| bad(format!("levels: {e}")))?;
        let wait = wait_checked("wait_ms", args.wait_ms, 1000)?;
        let params = json!({"url": args.url, "waitMs": wait});
        Ok(match self.live.worker.call("console", params, call_timeout() + Duration::from_millis(wait)).await {
            Ok(answer) => {
                let entries: Vec<ConsoleEntry> = serde_json::from_value(answer["console"].clone()).unwrap_or_default();
                let failed: Vec<FailedRequest> =
                    serde_json::from_value(answer["failedRequests"].clone()).unwrap_or_default();
                let kept = filter_console(&entries, &levels);
                let errors = kept.iter().filter(|e| e.level == "error" || e.level == "pageerror").count();
                pretty(&json!({
                    "url": args.url,
                    "summary": format!("{} console entr{} ({errors} error{}), {} failed request{}.",
                        kept.len(), if kept.len() == 1 { "y" } else { "ies" }, if errors == 1 { "" } else { "s" },
                        failed.len(), if failed.len() == 1 { "" } else { "s" }),
                    "entries": kept,
                    // Entries past the worker's cap of 1,000 per call, not listed.
                    "dropped": answer["consoleDropped"].as_u64().unwrap_or(0),
                    "failedRequests": failed,
                }))
            }
            Err(e) => failure(e),
        })
    }

    #[tool(
        description = "Accessibility audit with axe-core (from npm, run in the page): violations with impact, the failing nodes (selector, HTML, what to fix) and the rule's help link. Optionally only one element (selector) or some rules.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn verify_accessibility(
        &self,
        Parameters(args): Parameters<AccessibilityArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        url_checked(&args.url)?;
        if let Some(rules) = &args.rules
            && rules.iter().any(|r| r.is_empty() || !r.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        {
            return Err(bad("rules: axe-core rule ids are words with dashes, e.g. \"color-contrast\""));
        }
        let params = json!({"url": args.url, "selector": args.selector, "rules": args.rules});
        Ok(match self.live.worker.call("axe", params, call_timeout()).await {
            Ok(answer) => {
                let violations = answer["violations"].as_array().cloned().unwrap_or_default();
                let nodes: u64 = violations.iter().filter_map(|v| v["nodeCount"].as_u64()).sum();
                let summary = if violations.is_empty() {
                    format!("No accessibility violations ({} rules passed).", answer["passes"])
                } else {
                    let ids: Vec<String> = violations
                        .iter()
                        .map(|v| format!("{} ({})", v["id"].as_str().unwrap_or(""), v["impact"].as_str().unwrap_or("")))
                        .collect();
                    format!(
                        "{} violation{} on {nodes} node{}: {}.",
                        violations.len(),
                        if violations.len() == 1 { "" } else { "s" },
                        if nodes == 1 { "" } else { "s" },
                        ids.join(", ")
                    )
                };
                pretty(
                    &json!({"url": args.url, "axeVersion": answer["axeVersion"], "summary": summary, "violations": violations}),
                )
            }
            Err(e) => failure(e),
        })
    }

    #[tool(
        description = "Cumulative layout shift (CLS) from the first paint until wait_time ms after load, by session windows, rated good (≤ 0.1), needs-improvement or poor (> 0.25), with the elements that moved (selector, score, distance, before/after boxes).",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn detect_layout_shift(
        &self,
        Parameters(args): Parameters<TimelineArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        url_checked(&args.url)?;
        let wait = wait_checked("wait_time", args.wait_time, 3000)?;
        let params = json!({"url": args.url, "waitMs": wait});
        Ok(match self.live.worker.call("layoutShift", params, call_timeout() + Duration::from_millis(wait)).await {
            Ok(answer) if answer["unsupported"] == json!(true) => {
                failure("this browser does not report layout shifts (the Layout Instability API is Chromium's)")
            }
            Ok(answer) => match serde_json::from_value::<Vec<ShiftEntry>>(answer["entries"].clone()) {
                Ok(entries) => {
                    let report = judge_layout_shift(&entries);
                    pretty(&json!({"url": args.url, "watchedMs": wait, "report": report}))
                }
                Err(e) => failure(format!("the worker's layout-shift entries are not what this version reads ({e})")),
            },
            Err(e) => failure(e),
        })
    }

    #[tool(
        description = "Elements whose visibility flips quickly after load (flicker): shown for under 500 ms then hidden, or hidden briefly then shown again, with timestamps (ms after navigation start) and each element's visibility timeline.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn detect_flash(&self, Parameters(args): Parameters<TimelineArgs>) -> Result<CallToolResult, ErrorData> {
        url_checked(&args.url)?;
        let wait = wait_checked("wait_time", args.wait_time, 3000)?;
        let params = json!({"url": args.url, "waitMs": wait});
        Ok(match self.live.worker.call("flash", params, call_timeout() + Duration::from_millis(wait)).await {
            Ok(answer) => match serde_json::from_value::<Vec<VisibilityTimeline>>(answer["elements"].clone()) {
                Ok(timelines) => {
                    let flashes = judge_flashes(&timelines);
                    let summary = if flashes.is_empty() {
                        "No element flickered.".to_string()
                    } else {
                        let names: Vec<String> =
                            flashes.iter().map(|f| format!("{} ({} ms)", f.selector, f.duration_ms)).collect();
                        format!(
                            "{} element{} flickered: {}.",
                            flashes.len(),
                            if flashes.len() == 1 { "" } else { "s" },
                            names.join(", ")
                        )
                    };
                    pretty(&json!({"url": args.url, "watchedMs": wait, "summary": summary, "flashes": flashes}))
                }
                Err(e) => failure(format!("the worker's visibility timelines are not what this version reads ({e})")),
            },
            Err(e) => failure(e),
        })
    }

    #[tool(
        description = "Box model (margin, border, padding, content), typography and visibility of one element (the first match of selector), with its stable selector and page box.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn measure_element(&self, Parameters(args): Parameters<MeasureArgs>) -> Result<CallToolResult, ErrorData> {
        url_checked(&args.url)?;
        if args.selector.trim().is_empty() {
            return Err(bad("selector: give a CSS selector, e.g. \"#buy\""));
        }
        let params = json!({"url": args.url, "selector": args.selector});
        Ok(match self.live.worker.call("measure", params, call_timeout()).await {
            Ok(answer) if answer["found"] == json!(false) => {
                failure(format!("no element matches {} on {}", args.selector, args.url))
            }
            Ok(answer) => pretty(&answer),
            Err(e) => failure(e),
        })
    }

    #[tool(
        description = "The page at several viewport sizes (default 375×667, 768×1024, 1920×1080): per breakpoint whether it scrolls sideways and which elements cause it, the selector's visibility, and a screenshot path.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn test_viewports(&self, Parameters(args): Parameters<ViewportsArgs>) -> Result<CallToolResult, ErrorData> {
        url_checked(&args.url)?;
        let breakpoints: Vec<(u32, u32)> = match &args.breakpoints {
            Some(list) => list.iter().map(|b| (b.width, b.height)).collect(),
            None => vec![(375, 667), (768, 1024), (1920, 1080)],
        };
        if breakpoints.is_empty() || breakpoints.len() > 8 {
            return Err(bad("breakpoints: give 1 to 8 sizes"));
        }
        if breakpoints.iter().any(|&(w, h)| !(200..=4000).contains(&w) || !(200..=4000).contains(&h)) {
            return Err(bad("breakpoints: width and height must be 200 to 4000 CSS pixels"));
        }
        let list: Vec<Value> = breakpoints.iter().map(|(w, h)| json!({"width": w, "height": h})).collect();
        let params =
            json!({"url": args.url, "selector": args.selector, "breakpoints": list, "outDir": screenshot_dir()});
        let timeout = call_timeout() * breakpoints.len() as u32;
        Ok(match self.live.worker.call("viewports", params, timeout).await {
            Ok(answer) => {
                let mut lines = Vec::new();
                let mut rows = Vec::new();
                for bp in answer["breakpoints"].as_array().into_iter().flatten() {
                    let dom = match parse_dom(bp["dom"].as_str().unwrap_or_default()) {
                        Ok(dom) => dom,
                        Err(e) => {
                            return Ok(failure(format!(
                                "the page's DOM record at {}×{}: {e}",
                                bp["width"], bp["height"]
                            )));
                        }
                    };
                    let dw = dom.document.width;
                    let facts = PageFacts {
                        dom,
                        details: PageDetails::default(),
                        console: Vec::new(),
                        failed_requests: Vec::new(),
                    };
                    let overflowing: Vec<Value> = horizontal_overflow(&facts)
                        .into_iter()
                        .map(
                            |i| json!({"selector": i.selector, "right": i.measured.get("right"), "message": i.message}),
                        )
                        .collect();
                    let overflow = !overflowing.is_empty();
                    let element = &bp["element"];
                    let visibility = if element.is_null() {
                        String::new()
                    } else if element["found"] == json!(false) {
                        format!("; {} not found", element["selector"].as_str().unwrap_or(""))
                    } else {
                        format!("; element {}", if element["rendered"] == json!(true) { "visible" } else { "hidden" })
                    };
                    lines.push(format!(
                        "{}×{}: {}{visibility}",
                        bp["width"],
                        bp["height"],
                        if overflow { format!("scrolls sideways ({dw} px wide)") } else { "fits".into() }
                    ));
                    rows.push(json!({
                        "width": bp["width"], "height": bp["height"], "horizontalOverflow": overflow,
                        "documentWidth": dw, "overflowing": overflowing,
                        "element": element, "screenshot": bp["screenshot"],
                    }));
                }
                pretty(&json!({"url": args.url, "summary": lines.join(" | "), "breakpoints": rows}))
            }
            Err(e) => failure(e),
        })
    }

    #[tool(
        description = "Snapshot of the page's DOM (elements with stable selectors, boxes and computed styles), kept in memory for 30 minutes under the returned id, for compare_snapshots. Optionally one element's subtree (selector) and a depth limit.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = false, open_world_hint = true)
    )]
    async fn capture_dom_state(&self, Parameters(args): Parameters<CaptureArgs>) -> Result<CallToolResult, ErrorData> {
        url_checked(&args.url)?;
        let params = json!({"url": args.url, "selector": args.selector});
        let mut dom = match self.capture(params).await {
            Ok((dom, _)) => dom,
            Err(e) => return Ok(failure(e)),
        };
        if let Some(depth) = args.max_depth {
            prune_depth(&mut dom, depth);
        }
        let listed: Vec<Value> = dom
            .elements
            .iter()
            .take(100)
            .map(|e| json!({"selector": e.selector, "tag": e.tag, "box": e.bounds}))
            .collect();
        let count = dom.elements.len();
        let id = self.live.snapshots.lock().expect("snapshots").insert(dom);
        Ok(pretty(&json!({
            "id": id,
            "url": args.url,
            "elements": count,
            "expiresInSeconds": SNAPSHOT_TTL.as_secs(),
            "firstElements": listed,
        })))
    }

    #[tool(
        description = "Compare two DOM snapshots from capture_dom_state: added, removed and changed elements, style changes (property from → to) and geometry changes (resized, moved), using Sightline's DOM diff.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn compare_snapshots(
        &self,
        Parameters(args): Parameters<CompareSnapshotsArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut snapshots = self.live.snapshots.lock().expect("snapshots");
        let unknown = |id: &str| {
            format!(
                "no snapshot {id:?}: it expired (after {} min) or was never taken; call capture_dom_state again",
                SNAPSHOT_TTL.as_secs() / 60
            )
        };
        let Some(before) = snapshots.get(&args.before_id).cloned() else {
            return Ok(failure(unknown(&args.before_id)));
        };
        let Some(after) = snapshots.get(&args.after_id).cloned() else { return Ok(failure(unknown(&args.after_id))) };
        drop(snapshots);
        let comparison = compare_dom(&before, &after);
        Ok(pretty(&json!({"before": args.before_id, "after": args.after_id, "comparison": comparison})))
    }

    #[tool(
        description = "Capture the page as files: a screenshot (full page, or the selector's element), its DOM record with boxes and computed styles as JSON, and both as one Sightline capture artifact (.slcap); returns the paths. scroll_to_load scrolls to the bottom first so lazy content loads.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = false, open_world_hint = true)
    )]
    async fn capture_visual_state(
        &self,
        Parameters(args): Parameters<CaptureArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        url_checked(&args.url)?;
        let params = json!({"url": args.url, "selector": args.selector, "screenshot": true,
                            "scrollToLoad": args.scroll_to_load.unwrap_or(false), "outDir": screenshot_dir()});
        let (mut dom, screenshot) = match self.capture(params).await {
            Ok(found) => found,
            Err(e) => return Ok(failure(e)),
        };
        if let Some(depth) = args.max_depth {
            prune_depth(&mut dom, depth);
        }
        let Some(screenshot) = screenshot else { return Ok(failure("the worker took no screenshot")) };
        let (dom_path, capture_path) = match write_visual_state(std::path::Path::new(&screenshot), &dom) {
            Ok(paths) => paths,
            Err(e) => return Ok(failure(e)),
        };
        Ok(pretty(&json!({
            "url": args.url,
            "screenshot": screenshot,
            "dom": dom_path,
            "capture": capture_path,
            "elements": dom.elements.len(),
            "viewport": dom.viewport,
            "document": dom.document,
        })))
    }
}

#[tool_router(router = verify_tool_router, vis = "pub(crate)")]
impl SightlineServer {
    #[tool(
        description = "Proof that a model looked at the page: takes a screenshot and builds challenges from the page's own DOM (exact heading text, counts, a colour, a position) plus any caller criteria, keeping the expected answers. Returns the screenshot path, the challenges, a session id (valid 5 minutes) and a ready prompt for a fresh sub-agent that must open the screenshot, answer, and call submit_visual_response.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = false, open_world_hint = true)
    )]
    async fn visual_verify(&self, Parameters(args): Parameters<VisualVerifyArgs>) -> Result<CallToolResult, ErrorData> {
        url_checked(&args.url)?;
        if args.query.trim().is_empty() {
            return Err(bad("query: say what the looking model should answer about the page"));
        }
        let criteria: Vec<Criterion> = args
            .criteria
            .unwrap_or_default()
            .into_iter()
            .map(|c| Criterion { question: c.question, expected: c.expected })
            .collect();
        // Checked before the page opens: a bad criterion is the caller's mistake.
        build_challenges(&VerifyFacts::default(), &criteria).map_err(bad)?;
        let params = json!({"url": args.url, "selector": args.selector, "outDir": screenshot_dir()});
        let answer = match self.live.worker.call("verifyFacts", params, call_timeout()).await {
            Ok(answer) => answer,
            Err(e) => return Ok(failure(e)),
        };
        let facts: VerifyFacts = match serde_json::from_value(answer.clone()) {
            Ok(facts) => facts,
            Err(e) => return Ok(failure(format!("the worker's page facts are not what this version reads ({e})"))),
        };
        let challenges = build_challenges(&facts, &criteria).map_err(bad)?;
        let Some(screenshot) = answer["screenshot"].as_str().map(String::from) else {
            return Ok(failure("the worker took no screenshot"));
        };
        let listed: Vec<Value> =
            challenges.iter().map(|c| json!({"id": c.id, "question": c.question, "format": c.format})).collect();
        let questions: Vec<String> =
            challenges.iter().map(|c| format!("{}. {} (answer: {})", c.id, c.question, c.format)).collect();
        let mut sessions = self.live.sessions.lock().expect("sessions");
        let ttl = sessions.ttl;
        let id = sessions.insert(Session {
            created: Instant::now(),
            url: args.url.clone(),
            query: args.query.clone(),
            challenges,
            attempts: 0,
        });
        drop(sessions);
        let prompt = format!(
            "Open the image {screenshot} (a screenshot of {}) and answer ONLY from what you see in it; do not fetch the \
             page or read its code.\n\nQuestions:\n{}\n\nThen answer this: {}\n\nCall submit_visual_response with \
             session_id \"{id}\", challenge_answers as an object keyed by question id (e.g. {{\"c1\": \"...\"}}) and \
             query_answer.",
            args.url,
            questions.join("\n"),
            args.query
        );
        Ok(pretty(&json!({
            "sessionId": id,
            "expiresInSeconds": ttl.as_secs_f64(),
            "screenshot": screenshot,
            "challenges": listed,
            "prompt": prompt,
        })))
    }

    #[tool(
        description = "Check a looking model's answers to a visual_verify session: text by word overlap (≥ 50 %), counts within ±2 or ±50 %, yes/no, colours within ~5 %, positions by region words. trusted when ≥ 80 % pass; failed questions are named without their answers. Sessions expire after 5 minutes and take at most 3 responses.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn submit_visual_response(
        &self,
        Parameters(args): Parameters<SubmitVisualArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut sessions = self.live.sessions.lock().expect("sessions");
        sessions.expire();
        let Some(session) = sessions.kept.get_mut(&args.session_id) else {
            return Ok(failure(format!(
                "no verification session {:?}: it expired (sessions last {} s) or never existed; call visual_verify again",
                args.session_id,
                sessions.ttl.as_secs_f64()
            )));
        };
        if session.attempts >= MAX_ATTEMPTS {
            return Ok(failure(format!(
                "session {} already took {MAX_ATTEMPTS} responses; call visual_verify again for new challenges",
                args.session_id
            )));
        }
        session.attempts += 1;
        let verdict = judge_response(&session.challenges, &args.challenge_answers);
        let summary = if verdict.trusted {
            format!(
                "Trusted: {} of {} challenges passed. The query answer below comes from a model that looked.",
                verdict.passed, verdict.total
            )
        } else {
            let failed: Vec<String> = verdict.failed.iter().map(|f| format!("{} ({})", f.id, f.question)).collect();
            format!(
                "Not trusted: {} of {} challenges passed (needs 80 %). Failed: {}. Do not rely on the query answer.",
                verdict.passed,
                verdict.total,
                failed.join("; ")
            )
        };
        Ok(pretty(&json!({
            "sessionId": args.session_id,
            "url": session.url,
            "query": session.query,
            "queryAnswer": args.query_answer,
            "summary": summary,
            "trusted": verdict.trusted,
            "score": verdict.score,
            "passed": verdict.passed,
            "total": verdict.total,
            "failed": verdict.failed,
            "attemptsLeft": MAX_ATTEMPTS - session.attempts,
        })))
    }
}

impl SightlineServer {
    /// One capture through the worker: the parsed DOM record and the screenshot path, if any.
    async fn capture(&self, params: Value) -> Result<(DomSnapshot, Option<String>), String> {
        let wait = if params["scrollToLoad"] == json!(true) { Duration::from_secs(10) } else { Duration::ZERO };
        let answer = self.live.worker.call("capture", params, call_timeout() + wait).await?;
        let dom =
            parse_dom(answer["dom"].as_str().unwrap_or_default()).map_err(|e| format!("the page's DOM record: {e}"))?;
        Ok((dom, answer["screenshot"].as_str().map(String::from)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prune_depth_renumbers_parents() {
        let json = r#"{"version":1,"url":"u","viewport":{"width":10,"height":10},"devicePixelRatio":1,
            "document":{"width":10,"height":10},"styleProperties":[],"elements":[
            {"parent":-1,"tag":"body","selector":"body","box":[0,0,10,10],"text":null,"image":null,"styles":[]},
            {"parent":0,"tag":"div","selector":"body > div","box":[0,0,10,10],"text":null,"image":null,"styles":[]},
            {"parent":1,"tag":"p","selector":"body > div > p","box":[0,0,10,10],"text":null,"image":null,"styles":[]},
            {"parent":0,"tag":"footer","selector":"body > footer","box":[0,0,10,10],"text":null,"image":null,"styles":[]}],
            "fonts":[],"brokenImages":[]}"#;
        let mut dom = parse_dom(json).unwrap();
        prune_depth(&mut dom, 1);
        let kept: Vec<(&str, i64)> = dom.elements.iter().map(|e| (e.selector.as_str(), e.parent)).collect();
        assert_eq!(kept, vec![("body", -1), ("body > div", 0), ("body > footer", 0)]);
    }

    #[test]
    fn verify_sessions_expire_and_are_bounded() {
        let session = || Session {
            created: Instant::now(),
            url: "u".into(),
            query: "q".into(),
            challenges: Vec::new(),
            attempts: 0,
        };
        let mut sessions = Sessions { ttl: Duration::from_secs(60), kept: HashMap::new() };
        let first = sessions.insert(session());
        assert_ne!(first, sessions.insert(session()), "ids differ");
        // Age the sessions by moving their creation back instead of sleeping past the TTL: one
        // just inside it stays, one just past it goes.
        let now = Instant::now();
        let second = sessions.kept.keys().find(|id| **id != first).cloned().unwrap();
        sessions.kept.get_mut(&first).unwrap().created = now - Duration::from_secs(61);
        sessions.kept.get_mut(&second).unwrap().created = now - Duration::from_secs(59);
        sessions.expire();
        assert_eq!(sessions.kept.keys().cloned().collect::<Vec<_>>(), vec![second]);
        sessions.kept.clear();
        for _ in 0..MAX_SESSIONS + 5 {
            sessions.insert(session());
        }
        assert_eq!(sessions.kept.len(), MAX_SESSIONS);
    }

    #[test]
    fn visual_state_is_a_readable_capture_artifact() {
        let dir = std::env::temp_dir().join(format!("sightline-visual-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let image = sightline_core::RgbaImage::from_raw(3, 2, vec![200; 3 * 2 * 4]).unwrap();
        let png = dir.join("shot.png");
        std::fs::write(&png, sightline_core::decode::encode_png(&image, true).unwrap()).unwrap();
        let dom = parse_dom(
            r#"{"version":1,"url":"u","viewport":{"width":3,"height":2},"devicePixelRatio":1,
            "document":{"width":3,"height":2},"styleProperties":[],"elements":[],"fonts":[],"brokenImages":[]}"#,
        )
        .unwrap();
        let (json_path, capture_path) = write_visual_state(&png, &dom).unwrap();
        let capture = sightline_core::artifact::read_capture(&capture_path).unwrap();
        assert_eq!((capture.image.width(), capture.image.height()), (3, 2));
        assert_eq!(parse_dom(std::str::from_utf8(&capture.metadata).unwrap()).unwrap(), dom);
        assert_eq!(std::fs::read(json_path).unwrap(), capture.metadata);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn snapshots_are_bounded() {
        let json = r#"{"version":1,"url":"u","viewport":{"width":10,"height":10},"devicePixelRatio":1,
            "document":{"width":10,"height":10},"styleProperties":[],"elements":[],"fonts":[],"brokenImages":[]}"#;
        let mut store = Snapshots::default();
        let first = store.insert(parse_dom(json).unwrap());
        for _ in 0..MAX_SNAPSHOTS {
            store.insert(parse_dom(json).unwrap());
        }
        assert_eq!(store.kept.len(), MAX_SNAPSHOTS);
        assert!(store.get(&first).is_none(), "the oldest went first");
    }
}

#[cfg(test)]
mod in_process {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;

    use super::super::in_process::{invalid_params, only_text};
    use super::super::view::Project;
    use super::*;

    fn args(value: Value) -> serde_json::Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    /// The live tools' argument checks and in-memory state over `tokio::io::duplex`, without a
    /// browser: bad URLs and viewports are invalid params, unknown snapshots and sessions are
    /// tool errors, and the session keeps serving.
    #[tokio::test(flavor = "current_thread")]
    async fn live_tools_check_arguments_over_a_duplex_pipe() {
        let root = std::env::temp_dir();
        let server = SightlineServer::new(Project { root: root.clone(), report_dir: "visual-report".into() }, true);
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let serving = tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
        let client = ().serve(client_io).await.unwrap();
        let call = |name: &'static str, value: Value| {
            let client = &client;
            async move { client.call_tool(CallToolRequestParams::new(name).with_arguments(args(value))).await }
        };

        // Bad arguments are invalid_params with the whole message: what is wrong and what is allowed.
        let bad_url = call("visual_check", json!({"url": "javascript:alert(1)"})).await;
        assert_eq!(
            invalid_params(bad_url),
            "url: only http:// and https:// pages can be checked, got \"javascript:alert(1)\" (e.g. http://localhost:3000/)"
        );
        let bad_viewport = call("visual_check", json!({"url": "http://127.0.0.1:1/", "viewport": "watch"})).await;
        assert_eq!(invalid_params(bad_viewport), "viewport: \"watch\" is not one of desktop, tablet, mobile");
        let bad_level = call("get_console_logs", json!({"url": "http://127.0.0.1:1/", "levels": ["fatal"]})).await;
        assert_eq!(
            invalid_params(bad_level),
            "levels: unknown console level \"fatal\"; use any of error, warning, info, log, debug, pageerror"
        );
        let long_wait = call("detect_flash", json!({"url": "http://127.0.0.1:1/", "wait_time": 999_999})).await;
        assert_eq!(invalid_params(long_wait), "wait_time: at most 20000 ms, got 999999");
        let bad_criteria = call(
            "visual_verify",
            json!({"url": "http://127.0.0.1:1/", "query": "q", "criteria": [{"question": "x", "expected": [1]}]}),
        )
        .await;
        assert_eq!(invalid_params(bad_criteria), "criteria[0].expected: give a string, a number or a boolean");

        // Unknown ids are tool errors (the call was well formed) that say which id and what to do.
        let unknown = call("compare_snapshots", json!({"before_id": "dom-1-1", "after_id": "dom-2-1"})).await.unwrap();
        assert_eq!(unknown.is_error, Some(true));
        assert_eq!(
            only_text(&unknown),
            "no snapshot \"dom-1-1\": it expired (after 30 min) or was never taken; call capture_dom_state again"
        );
        let expired = call(
            "submit_visual_response",
            json!({"session_id": "verify-0", "challenge_answers": {}, "query_answer": "yes"}),
        )
        .await
        .unwrap();
        assert_eq!(expired.is_error, Some(true));
        assert_eq!(
            only_text(&expired),
            "no verification session \"verify-0\": it expired (sessions last 300 s) or never existed; call visual_verify again"
        );

        client.cancel().await.unwrap();
        let _ = serving.await;
    }
}
