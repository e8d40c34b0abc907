//! The page's state: `capture_dom_state` keeps a DOM record in memory (for [`SNAPSHOT_TTL`], at
//! most [`MAX_SNAPSHOTS`]) for `compare_snapshots` (the core's DOM diff); `capture_visual_state`
//! writes a screenshot, its DOM record and both as a capture artifact.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ErrorData, tool, tool_router};
use serde::Deserialize;
use serde_json::json;
use sightline_core::artifact::{Capture, write_capture};
// The same computed styles a toMatchVisual capture records by default.
use sightline_core::config::DEFAULT_STYLE_PROPERTIES;
use sightline_core::decode::decode_image;
use sightline_core::dom::{DomSnapshot, dom_tree, prune_depth};
use sightline_core::live::compare_states;
use sightline_core::worker_protocol::CaptureParams;

use super::super::{SightlineServer, failure};
use super::pretty;
use crate::live::{call_timeout, screenshot_dir};

/// How long a captured DOM snapshot stays available to `compare_snapshots`.
pub const SNAPSHOT_TTL: Duration = Duration::from_secs(30 * 60);
/// Most snapshots kept; the oldest goes first.
pub const MAX_SNAPSHOTS: usize = 50;
/// How deep capture_dom_state's tree goes unless `max_depth` says otherwise (as Ghostlight's).
const TREE_DEPTH: usize = 10;
/// Nodes in capture_dom_state's tree at most, so a large page's answer stays readable.
const TREE_NODES: usize = 300;

/// The DOM snapshots `capture_dom_state` took, by id.
#[derive(Default)]
pub(super) struct Snapshots {
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

/// Arguments of `capture_dom_state` and `capture_visual_state`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CaptureArgs {
    /// The page to open (http or https).
    pub url: String,
    /// Capture only this element (a CSS selector) and its descendants.
    #[serde(default)]
    pub selector: Option<String>,
    /// Keep elements at most this deep below the root (the root is depth 0). capture_dom_state's
    /// tree goes 10 levels deep when not given.
    #[serde(default)]
    pub max_depth: Option<usize>,
    /// capture_visual_state only: scroll to the bottom first so lazy content loads.
    #[serde(default)]
    pub scroll_to_load: Option<bool>,
}

/// Arguments of `compare_snapshots`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CompareSnapshotsArgs {
    /// The id capture_dom_state returned for the earlier state.
    pub before_id: String,
    /// The id capture_dom_state returned for the later state.
    pub after_id: String,
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

#[tool_router(router = snapshot_tool_router, vis = "pub(super)")]
impl SightlineServer {
    #[tool(
        description = "Snapshot of the page's DOM (elements with stable selectors, boxes and computed styles), kept in memory for 30 minutes under the returned id (at most 50 snapshots, the oldest dropped first), for compare_snapshots. Returns the elements as a tree (selector, tag, box, children; 10 levels deep unless max_depth, at most 300 nodes). Optionally one element's subtree (selector) and a depth limit.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = false, open_world_hint = true)
    )]
    async fn capture_dom_state(&self, Parameters(args): Parameters<CaptureArgs>) -> Result<CallToolResult, ErrorData> {
        if let Err(refused) = self.page_checked(&args.url)? {
            return Ok(refused);
        }
        let params = CaptureParams {
            url: args.url.clone(),
            selector: args.selector,
            style_properties: &DEFAULT_STYLE_PROPERTIES,
            screenshot: false,
            scroll_to_load: false,
            out_dir: None,
        };
        let mut dom = match self.capture(&params).await {
            Ok((dom, _)) => dom,
            Err(e) => return Ok(failure(e)),
        };
        if let Some(depth) = args.max_depth {
            prune_depth(&mut dom, depth);
        }
        let (tree, left_out) = dom_tree(&dom, args.max_depth.unwrap_or(TREE_DEPTH), TREE_NODES);
        let count = dom.elements.len();
        let id = self.live.snapshots.lock().expect("snapshots").insert(dom);
        Ok(pretty(&json!({
            "id": id,
            "url": args.url,
            "elements": count,
            "expiresInSeconds": SNAPSHOT_TTL.as_secs(),
            "tree": tree,
            // Elements deeper than the tree goes or past its node budget (all kept for comparing).
            "notInTree": left_out,
        })))
    }

    #[tool(
        description = "Compare two DOM snapshots from capture_dom_state: `changed` (anything differs: structure, computed styles or boxes) with a one-line summary, then added, removed and changed elements, style changes (property from → to) and geometry changes (resized, moved), using Sightline's DOM diff.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn compare_snapshots(
        &self,
        Parameters(args): Parameters<CompareSnapshotsArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut snapshots = self.live.snapshots.lock().expect("snapshots");
        let unknown = |id: &str| {
            format!(
                "no snapshot {id:?}: it expired (after {} min), made way for newer ones (at most {MAX_SNAPSHOTS} are \
                 kept) or was never taken; call capture_dom_state again",
                SNAPSHOT_TTL.as_secs() / 60
            )
        };
        let Some(before) = snapshots.get(&args.before_id).cloned() else {
            return Ok(failure(unknown(&args.before_id)));
        };
        let Some(after) = snapshots.get(&args.after_id).cloned() else { return Ok(failure(unknown(&args.after_id))) };
        drop(snapshots);
        let comparison = compare_states(&before, &after);
        Ok(pretty(&json!({"before": args.before_id, "after": args.after_id, "comparison": comparison})))
    }

    #[tool(
        description = "Capture the page as files: a screenshot (full page, or the selector's element), its DOM record with boxes and computed styles as JSON (each element's `styles` follow `styleProperties`), and both as one Sightline capture artifact (.slcap); returns the paths. scroll_to_load scrolls to the bottom first so lazy content loads.",
        // It writes files to keep (in the temp folder, or the project's .sightline/live): not
        // read-only to a client that takes the hint at its word.
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = true)
    )]
    async fn capture_visual_state(
        &self,
        Parameters(args): Parameters<CaptureArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Err(refused) = self.page_checked(&args.url)? {
            return Ok(refused);
        }
        let out_dir = match screenshot_dir(&self.project.root) {
            Ok(dir) => dir,
            Err(e) => return Ok(failure(e)),
        };
        let params = CaptureParams {
            url: args.url.clone(),
            selector: args.selector,
            style_properties: &DEFAULT_STYLE_PROPERTIES,
            screenshot: true,
            scroll_to_load: args.scroll_to_load.unwrap_or(false),
            out_dir: Some(out_dir),
        };
        let (mut dom, screenshot) = match self.capture(&params).await {
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

impl SightlineServer {
    /// One capture through the worker: the parsed DOM record and the screenshot path, if any.
    async fn capture(&self, params: &CaptureParams) -> Result<(DomSnapshot, Option<String>), String> {
        // Scrolling a long page down in steps takes its own time.
        let wait = if params.scroll_to_load { Duration::from_secs(10) } else { Duration::ZERO };
        let answer = self.live.worker.call(params, call_timeout() + wait).await?;
        let dom = answer.dom.parse().map_err(|e| format!("the page's DOM record: {e}"))?;
        Ok((dom, answer.screenshot))
    }
}

#[cfg(test)]
mod tests {
    use sightline_core::dom::parse_dom;

    use super::*;

    #[test]
    fn visual_state_is_a_readable_capture_artifact() {
        let dir = std::env::temp_dir().join(format!("sightline-visual-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let image = sightline_core::RgbaImage::from_raw(3, 2, vec![200; 3 * 2 * 4]).unwrap();
        let png = dir.join("shot.png");
        std::fs::write(
            &png,
            sightline_core::decode::encode_png(&image, sightline_core::decode::PngCompression::Fastest).unwrap(),
        )
        .unwrap();
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
