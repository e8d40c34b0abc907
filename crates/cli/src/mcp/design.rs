//! MCP tools `compare_designs` and `compare_motion` (04-design-and-motion.md): thin wrappers
//! over `sightline_core::design` and `sightline_core::motion`. Paths are taken relative to the
//! server's root; every read and write is checked against `SIGHTLINE_ALLOWED_ROOTS` by the core.

use std::path::{Path, PathBuf};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use serde::Deserialize;
use serde_json::Value;
use sightline_core::allowed_roots;
use sightline_core::design::{
    ComparisonContext, DesignBox, DesignMode, DesignOptions, Preset, WeightOverrides, compare_designs,
};
use sightline_core::motion::{FrameSequence, MotionOptions, compare_motion, signature_chart};
use sightline_core::video::{CancelFlag, ExtractOptions, extract_video_frames};
use sightline_core::worker_protocol::{ActionTarget, ClipBox, FrameAction, FramesParams, ViewportSize};

use super::diff::{png_block, png_file_block};
use super::{SightlineServer, failure};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompareDesignsArgs {
    /// The reference image (mock-up, old app, component library): a PNG or JPEG path, absolute or
    /// relative to the project root.
    pub reference: String,
    /// The candidate image (the new build), same rules.
    pub candidate: String,
    /// `widget` (a tight crop of one component, compared as is) or `screen` (a whole view,
    /// aligned by a translation search first). Default `screen`.
    #[serde(default)]
    pub mode: Option<String>,
    /// Weights preset: `default` (layout .35, color .2, content .15, typography .15, spacing .15)
    /// or `dark-ui` (layout .6, typography .3, color .1). It gives the weight of every dimension
    /// `weights` does not name. Default `default`.
    #[serde(default)]
    pub preset: Option<String>,
    /// Weights for some dimensions, e.g. {"color": 0.5}: each named one replaces the preset's,
    /// the others keep it; 0 leaves a dimension out of overall. Keys: layout, color, content,
    /// typography, spacing.
    #[serde(default)]
    #[schemars(with = "Option<std::collections::BTreeMap<String, f64>>")]
    pub weights: Option<Value>,
    /// Boxes in reference pixels left out of every dimension.
    #[serde(default, rename = "ignoreRegions")]
    pub ignore_regions: Option<Vec<BoxArg>>,
    /// Return the diagnostic images (overlay, SSIM heat map, content regions, side by side).
    /// Default true.
    #[serde(default, rename = "returnVisuals")]
    pub return_visuals: Option<bool>,
    /// What is being compared, part of `comparisonKey` so revisions are compared under the same
    /// question: `scopeId` 1–128 characters (UTF-16 units), `protocolKey` the lowercase hex
    /// SHA-256 of the review protocol's text.
    #[serde(default, rename = "comparisonContext")]
    pub comparison_context: Option<ContextArg>,
}

/// A box in reference pixels.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BoxArg {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// A caller-declared comparison context.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextArg {
    /// What is compared, e.g. a component or screen id: 1–128 UTF-16 units.
    #[serde(rename = "scopeId")]
    pub scope_id: String,
    /// Which review protocol asks: the lowercase hex SHA-256 (64 digits) of its text.
    #[serde(rename = "protocolKey")]
    pub protocol_key: String,
}

/// A frame sequence: a folder of PNG frames (sorted by name) or a list of image paths.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FramesArg {
    Folder(String),
    Files(Vec<String>),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompareMotionArgs {
    /// The reference frames: a folder of PNGs or a list of paths (relative to the project root).
    pub reference: FramesArg,
    /// The candidate frames, same rules.
    pub candidate: FramesArg,
    /// Read at most this many frames per sequence, 2–1000. Default 120.
    #[serde(default, rename = "maxFrames")]
    pub max_frames: Option<usize>,
    /// Return the signature chart (both signatures over the frames) as an image. Default true.
    #[serde(default, rename = "returnVisuals")]
    pub return_visuals: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtractFramesArgs {
    /// A local recording: .mp4, .mov or .webm (Playwright's test videos), absolute or relative
    /// to the project root. Checked by its bytes: scripts (ffconcat), playlists (m3u8), other
    /// files and URLs are refused.
    #[serde(rename = "videoPath")]
    pub video_path: String,
    /// Start of the window in ms from the recording's first frame. Default 0.
    #[serde(default, rename = "startMs")]
    pub start_ms: Option<u64>,
    /// Length of the window, 1–20000 ms; the window must lie inside the recording.
    #[serde(rename = "durationMs")]
    pub duration_ms: u64,
    /// Samples per second, 1–30 (at most 120 samples); each takes the first source frame at or
    /// after its time. Default 5.
    #[serde(default)]
    pub fps: Option<u32>,
}

/// A screenshot area in CSS pixels.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClipArg {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// A viewport size in CSS pixels.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewportArg {
    pub width: u32,
    pub height: u32,
}

/// One step before the frames are taken: click or hover an element (by selector) or a point
/// (x, y), or wait.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionArg {
    /// `click`, `hover` or `wait`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The element to click or hover (CSS selector).
    #[serde(default)]
    pub selector: Option<String>,
    /// The point to click or hover instead of a selector: CSS pixels from the viewport's left.
    #[serde(default)]
    pub x: Option<f64>,
    /// The point's CSS pixels from the viewport's top.
    #[serde(default)]
    pub y: Option<f64>,
    /// How long to wait, for `wait` (ms).
    #[serde(default)]
    pub ms: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureFramesArgs {
    /// The page: http(s) only.
    pub url: String,
    /// How many screenshots, 1–120 (1 gives a still for compare_designs).
    pub frames: u32,
    /// Time between screenshots, 0–5000 ms; frames × intervalMs at most 60000.
    #[serde(rename = "intervalMs")]
    pub interval_ms: u64,
    /// Only this area of the page.
    #[serde(default)]
    pub clip: Option<ClipArg>,
    /// Viewport size. Default 1280×800.
    #[serde(default)]
    pub viewport: Option<ViewportArg>,
    /// Wait this long after load before the actions (ms, at most 20000).
    #[serde(default, rename = "waitMs")]
    pub wait_ms: Option<u64>,
    /// Steps before the frames: click / hover a selector or a point (x, y), or wait. A selector's
    /// element must be there, visible and enabled within 5 s, or the call fails saying which.
    #[serde(default)]
    pub actions: Option<Vec<ActionArg>>,
    /// Write the frames into this folder (absolute or relative to the project root; created if
    /// missing, and if it exists it must be empty) instead of a new folder under
    /// `.sightline/frames`. Inside SIGHTLINE_ALLOWED_ROOTS when that is set.
    #[serde(default, rename = "outDir")]
    pub out_dir: Option<String>,
    /// A Flutter web app: wait (up to 15 s) until its view (`flutter-view` or
    /// `flt-glass-pane`) has rendered before waitMs, the actions and the frames.
    #[serde(default, rename = "waitForFlutter")]
    pub wait_for_flutter: Option<bool>,
    /// Return the first and the last frame as images. Default true.
    #[serde(default, rename = "returnVisuals")]
    pub return_visuals: Option<bool>,
}

/// Longest frame sequence capture_frames takes, and its per-step limits.
const MAX_CAPTURE_FRAMES: u32 = 120;
const MAX_INTERVAL_MS: u64 = 5_000;
const MAX_SEQUENCE_MS: u64 = 60_000;
const MAX_STEP_WAIT_MS: u64 = 20_000;
/// How long the worker waits for a Flutter app's view (its FLUTTER_TIMEOUT_MS).
const FLUTTER_WAIT_MS: u64 = 15_000;

/// Checks capture_frames' numbers and actions before a browser opens; the worker's params.
fn frames_params(args: &CaptureFramesArgs, out_dir: &Path) -> Result<FramesParams, ErrorData> {
    if !(1..=MAX_CAPTURE_FRAMES).contains(&args.frames) {
        return Err(bad(format!("frames: {} is outside 1–{MAX_CAPTURE_FRAMES}", args.frames)));
    }
    if args.interval_ms > MAX_INTERVAL_MS {
        return Err(bad(format!("intervalMs: at most {MAX_INTERVAL_MS}, got {}", args.interval_ms)));
    }
    if u64::from(args.frames) * args.interval_ms > MAX_SEQUENCE_MS {
        return Err(bad(format!(
            "frames × intervalMs is {} ms, above {MAX_SEQUENCE_MS}; take fewer frames or a shorter interval",
            u64::from(args.frames) * args.interval_ms
        )));
    }
    let wait_ms = args.wait_ms.unwrap_or(0);
    if wait_ms > MAX_STEP_WAIT_MS {
        return Err(bad(format!("waitMs: at most {MAX_STEP_WAIT_MS}, got {wait_ms}")));
    }
    let mut actions = Vec::new();
    let viewport_side = |v: &Option<ViewportArg>, width: bool| {
        v.as_ref().map_or(if width { 1280.0 } else { 800.0 }, |v| f64::from(if width { v.width } else { v.height }))
    };
    let inside = |x: f64, y: f64| {
        (0.0..viewport_side(&args.viewport, true)).contains(&x)
            && (0.0..viewport_side(&args.viewport, false)).contains(&y)
    };
    for (i, a) in args.actions.iter().flatten().enumerate() {
        match (a.kind.as_str(), &a.selector, (a.x, a.y), a.ms) {
            (kind @ ("click" | "hover"), Some(selector), (None, None), None) => {
                actions.push(pointer_action(kind, ActionTarget::Element { selector: selector.clone() }))
            }
            (kind @ ("click" | "hover"), None, (Some(x), Some(y)), None) if inside(x, y) => {
                actions.push(pointer_action(kind, ActionTarget::Point { x, y }))
            }
            ("click" | "hover", None, (Some(x), Some(y)), None) => {
                return Err(bad(format!(
                    "actions[{i}]: the point ({x}, {y}) is outside the {}×{} viewport; give x and y inside it",
                    viewport_side(&args.viewport, true),
                    viewport_side(&args.viewport, false)
                )));
            }
            ("wait", None, (None, None), Some(ms)) if ms <= MAX_STEP_WAIT_MS => actions.push(FrameAction::Wait { ms }),
            _ => {
                return Err(bad(format!(
                    "actions[{i}]: use {{\"type\": \"click\"|\"hover\", \"selector\": …}}, {{\"type\": \"click\"|\"hover\", \"x\": …, \"y\": …}} or {{\"type\": \"wait\", \"ms\": ≤ {MAX_STEP_WAIT_MS}}}"
                )));
            }
        }
    }
    if let Some(c) = &args.clip
        && !(c.width > 0.0 && c.height > 0.0 && c.x >= 0.0 && c.y >= 0.0)
    {
        return Err(bad("clip: x and y ≥ 0, width and height > 0".into()));
    }
    let viewport = args.viewport.as_ref().map(|v| ViewportSize { width: v.width, height: v.height });
    if let Some(v) = &args.viewport {
        let fits = |side: u32| (100..=4096).contains(&side);
        if !fits(v.width) || !fits(v.height) {
            return Err(bad("viewport: width and height 100–4096".into()));
        }
    }
    Ok(FramesParams {
        url: args.url.clone(),
        frames: args.frames,
        interval_ms: args.interval_ms,
        wait_ms,
        actions,
        clip: args.clip.as_ref().map(|c| ClipBox { x: c.x, y: c.y, width: c.width, height: c.height }),
        viewport,
        out_dir: out_dir.to_path_buf(),
        wait_for_flutter: args.wait_for_flutter.unwrap_or(false),
    })
}

/// A click or a hover (`kind`, checked) at `target`.
fn pointer_action(kind: &str, target: ActionTarget) -> FrameAction {
    if kind == "click" { FrameAction::Click(target) } else { FrameAction::Hover(target) }
}

/// Creates the frames folder, or checks that the caller's existing one is empty; whether this
/// call made it (so a failure can take it away again).
fn open_frames_folder(folder: &Path) -> Result<bool, String> {
    match std::fs::read_dir(folder) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(format!(
                    "outDir {}: not empty; give a new or empty folder (frames are never written over other files)",
                    folder.display()
                ));
            }
            Ok(false)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(folder)
                .map_err(|e| format!("{}: cannot create the frames folder ({e})", folder.display()))?;
            Ok(true)
        }
        Err(e) => Err(format!("outDir {}: not a folder that can be written ({e})", folder.display())),
    }
}

/// After a failed capture: the folder this call made goes; a folder the caller gave loses only
/// the frames written into it.
fn undo_frames_folder(folder: &Path, made: bool) {
    if made {
        let _ = std::fs::remove_dir_all(folder);
    } else if let Ok(entries) = std::fs::read_dir(folder) {
        for entry in entries.flatten() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn bad(message: String) -> ErrorData {
    ErrorData::invalid_params(message, None)
}

/// `value` as one of a serde enum's names, or an error listing them.
fn named<T: serde::de::DeserializeOwned>(field: &str, value: &str, names: &str) -> Result<T, ErrorData> {
    serde_json::from_value(Value::String(value.to_string()))
        .map_err(|_| bad(format!("{field}: {value:?} is not one of {names}")))
}

fn pretty_json(value: &impl serde::Serialize) -> ContentBlock {
    ContentBlock::text(serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}")))
}

impl SightlineServer {
    fn resolve(&self, path: &str) -> PathBuf {
        let path = Path::new(path);
        if path.is_absolute() { path.to_path_buf() } else { self.project.root.join(path) }
    }

    /// The folder capture_frames writes into: `outDir`, else a new folder under
    /// `.sightline/frames`; inside the allowed roots either way. Nothing is created yet.
    fn frames_folder(&self, out_dir: Option<&str>) -> Result<PathBuf, String> {
        Ok(match out_dir {
            Some(dir) => allowed_roots::check_allowed(&self.resolve(dir)).map_err(|e| e.to_string())?,
            None => {
                let root = allowed_roots::check_allowed(&self.project.root.join(".sightline").join("frames"))
                    .map_err(|e| e.to_string())?;
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or(0);
                root.join(format!("capture-{nanos:x}-{}", std::process::id()))
            }
        })
    }

    fn frames(&self, arg: &FramesArg) -> FrameSequence {
        match arg {
            FramesArg::Folder(dir) => FrameSequence::Folder(self.resolve(dir)),
            FramesArg::Files(files) => FrameSequence::Files(files.iter().map(|f| self.resolve(f)).collect()),
        }
    }
}

#[tool_router(router = design_tool_router, vis = "pub(crate)")]
impl SightlineServer {
    #[tool(
        description = "Score how closely a candidate image (new build) matches a reference (mock-up, old app) from pixels alone, no shared DOM: layout (SSIM), color (palette distance, naming colours that moved), content (blocks matched by IoU: missing/extra with boxes), typography (text lines), spacing (margins, rhythm), each 0-100 or null, and a weighted overall. Returns the JSON result and, unless returnVisuals is false, four labelled diagnostic images. Read diagnostics first (ok / review / inconclusive with reasons: inconclusive has no overall); each finding has a severity (high / medium / low), a suggestedFix and a box in reference pixels, and critiqueRubric says how to turn them into a prioritised fix list; provenance has each input's pixel SHA-256 and size.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn compare_designs(
        &self,
        Parameters(args): Parameters<CompareDesignsArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let mode: DesignMode = match &args.mode {
            Some(m) => named("mode", m, "widget, screen")?,
            None => DesignMode::default(),
        };
        let preset: Preset = match &args.preset {
            Some(p) => named("preset", p, "default, dark-ui")?,
            None => Preset::default(),
        };
        let weights = match args.weights {
            Some(w) => serde_json::from_value::<WeightOverrides>(w).map_err(|e| {
                bad(format!("weights: {e}; use numbers for layout, color, content, typography, spacing"))
            })?,
            None => WeightOverrides::default(),
        };
        let options = DesignOptions {
            mode,
            preset,
            weights,
            ignore_regions: args
                .ignore_regions
                .unwrap_or_default()
                .into_iter()
                .map(|b| DesignBox { x: b.x, y: b.y, width: b.width, height: b.height })
                .collect(),
            comparison_context: args
                .comparison_context
                .map(|c| ComparisonContext { scope_id: c.scope_id, protocol_key: c.protocol_key }),
            return_visuals: args.return_visuals.unwrap_or(true),
        };
        let (reference, candidate) = (self.resolve(&args.reference), self.resolve(&args.candidate));
        let outcome = match tokio::task::spawn_blocking(move || compare_designs(&reference, &candidate, &options)).await
        {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(e)) => return Ok(failure(e.to_string())),
            Err(e) => return Ok(failure(format!("compare_designs stopped: {e}"))),
        };
        let mut content = vec![pretty_json(&outcome.comparison)];
        if let Some(visuals) = &outcome.visuals {
            for (name, image) in visuals.named() {
                content.push(ContentBlock::text(format!("{name} ({}×{})", image.width(), image.height())));
                content.push(png_block(image).map_err(|e| ErrorData::internal_error(e, None))?);
            }
        }
        Ok(CallToolResult::success(content))
    }

    #[tool(
        description = "Compare the motion of two frame sequences (folders of PNG frames or lists of paths, e.g. from capture_frames or extract_video_frames): per-frame change signature, energy, motion_status (compared, static, capture_unreliable) and a 0-100 score when both move, plus a signature chart image unless returnVisuals is false. Frame-index correlation is given only for equal lengths and is not verified timing; `timing` says whether the rhythm could be judged and why not. The earlier tool's names (motion_score, energy_ratio, temporal_corr, ref_energy, cand_energy, ref_moving, cand_moving, motion_status) are given too.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn compare_motion(
        &self,
        Parameters(args): Parameters<CompareMotionArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let options = MotionOptions { max_frames: args.max_frames.unwrap_or(MotionOptions::default().max_frames) };
        let (reference, candidate) = (self.frames(&args.reference), self.frames(&args.candidate));
        let comparison =
            match tokio::task::spawn_blocking(move || compare_motion(&reference, &candidate, &options)).await {
                Ok(Ok(c)) => c,
                Ok(Err(e)) => return Ok(failure(e.to_string())),
                Err(e) => return Ok(failure(format!("compare_motion stopped: {e}"))),
            };
        let mut content = vec![pretty_json(&comparison)];
        if args.return_visuals.unwrap_or(true) {
            let chart = signature_chart(&comparison);
            content.push(ContentBlock::text(format!("signature chart ({}×{})", chart.width(), chart.height())));
            content.push(png_block(&chart).map_err(|e| ErrorData::internal_error(e, None))?);
        }
        Ok(CallToolResult::success(content))
    }

    #[tool(
        description = "Record a page's motion: open the URL in the browser worker, run optional click / hover / wait actions, then take N screenshots intervalMs apart into a new folder under .sightline/frames (or into outDir). Returns the ordered absolute paths (give them to compare_motion; frames: 1 gives a still for compare_designs) and when each was taken.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = true)
    )]
    async fn capture_frames(
        &self,
        Parameters(args): Parameters<CaptureFramesArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Err(refused) = self.page_checked(&args.url)? {
            return Ok(refused);
        }
        // The frames folder is written like any output: inside the allowed roots, checked
        // before anything is created.
        let out_dir = match self.frames_folder(args.out_dir.as_deref()) {
            Ok(folder) => folder,
            Err(e) => return Ok(failure(e)),
        };
        let params = frames_params(&args, &out_dir)?;
        let made = match open_frames_folder(&out_dir) {
            Ok(made) => made,
            Err(e) => return Ok(failure(e)),
        };
        // The sequence itself may take up to a minute, and a Flutter app up to 15 s to show: the
        // call's bound grows with both.
        let flutter_ms = if args.wait_for_flutter.unwrap_or(false) { FLUTTER_WAIT_MS } else { 0 };
        let sequence = std::time::Duration::from_millis(
            u64::from(args.frames) * args.interval_ms + args.wait_ms.unwrap_or(0) + flutter_ms,
        );
        let timeout = crate::live::call_timeout() + sequence;
        let answer = match self.live.worker.call(&params, timeout).await {
            Ok(answer) => answer,
            Err(e) => {
                undo_frames_folder(&out_dir, made);
                return Ok(failure(e));
            }
        };
        let files: Vec<&str> = answer.shots.iter().map(|s| s.file.as_str()).collect();
        let times: Vec<u64> = answer.shots.iter().map(|s| s.at_ms).collect();
        let mut content = vec![pretty_json(&serde_json::json!({
            "url": args.url,
            "outputDir": out_dir,
            "files": files,
            "timesMs": times,
        }))];
        if args.return_visuals.unwrap_or(true) {
            // The first and the last frame, so a model sees the start and the end of the motion.
            let ends: Vec<(&str, &str)> = match files.as_slice() {
                [] => vec![],
                [only] => vec![("the only frame", *only)],
                [first, .., last] => vec![("first frame", *first), ("last frame", *last)],
            };
            // The worker's PNGs are sent as written: nothing to decode or encode again.
            for (label, file) in ends {
                let (block, width, height) =
                    png_file_block(Path::new(file)).map_err(|e| ErrorData::internal_error(e, None))?;
                content.push(ContentBlock::text(format!("{label}: {file} ({width}×{height})")));
                content.push(block);
            }
        }
        Ok(CallToolResult::success(content))
    }

    #[tool(
        description = "Sample frames from a local recording (.mp4, .mov, or a Playwright test's .webm video) with ffmpeg: a window of durationMs from startMs at fps (at most 120 samples) into a new read-only folder under .sightline/frames. Returns the manifest (also at manifestPath): for each requested time the first source frame at or after it, chosen exactly by the decoder's integer timestamps with times counted from the first frame (selected / shared / unavailable, with frameIndex, pts and actualMs), sampling complete / sparse / incomplete, the distinct frame files and the timeline (repeats included: give it to compare_motion), and the source: SHA-256 of the exact bytes decoded, size, codec, dimensions, time base, frame rate, rotation, tool versions. Duplicate or decreasing timestamps are an error. Only a local MP4/MOV or WebM file is read (checked by its bytes; scripts, playlists and URLs are refused); a call must end within SIGHTLINE_VIDEO_TIMEOUT_MS (default 120 s), at most two run at once, and a cancelled or failed call leaves no folder.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn extract_video_frames(
        &self,
        Parameters(args): Parameters<ExtractFramesArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let defaults = ExtractOptions::default();
        let options = ExtractOptions {
            start_ms: args.start_ms.unwrap_or(defaults.start_ms),
            duration_ms: args.duration_ms,
            fps: args.fps.unwrap_or(defaults.fps),
        };
        // A URL is passed on as given, for the core to refuse by name, not joined to the root.
        let video = match sightline_core::video::refuse_url(Path::new(&args.video_path)) {
            Ok(()) => self.resolve(&args.video_path),
            Err(_) => PathBuf::from(&args.video_path),
        };
        let out = self.project.root.join(".sightline").join("frames");
        // The client's notifications/cancelled fires the request's token; the core, which knows
        // no async runtime, polls the flag while ffmpeg runs.
        let cancel = CancelFlag::default();
        let on_cancel = {
            let (cancel, token) = (cancel.clone(), context.ct.clone());
            tokio::spawn(async move {
                token.cancelled().await;
                cancel.cancel();
            })
        };
        // Dropped with this future (the connection gone): the extraction stops too.
        let _stop_if_dropped = StopOnDrop(cancel.clone());
        let extraction = tokio::task::spawn_blocking(move || extract_video_frames(&video, &out, &options, &cancel));
        let answer = match extraction.await {
            Ok(Ok(manifest)) => CallToolResult::success(vec![pretty_json(&manifest)]),
            Ok(Err(e)) => failure(e.to_string()),
            Err(e) => failure(format!("extract_video_frames stopped: {e}")),
        };
        on_cancel.abort();
        Ok(answer)
    }
}

/// Cancels an extraction when the call's future is dropped before it finished; after it
/// finished, cancelling is a no-op.
struct StopOnDrop(CancelFlag);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}
