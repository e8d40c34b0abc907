//! MCP tools `compare_designs` and `compare_motion` (04-design-and-motion.md): thin wrappers
//! over `sightline_core::design` and `sightline_core::motion`. Paths are taken relative to the
//! server's root; every read and write is checked against `SIGHTLINE_ALLOWED_ROOTS` by the core.

use std::path::{Path, PathBuf};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ErrorData, tool, tool_router};
use serde::Deserialize;
use serde_json::Value;
use sightline_core::design::{
    ComparisonContext, DesignBox, DesignMode, DesignOptions, DimensionWeights, Preset, compare_designs,
};
use sightline_core::motion::{FrameSequence, MotionOptions, compare_motion, signature_chart};

use super::diff::png_block;
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
    /// Weights preset: `default` or `dark-ui`. Ignored when `weights` is given.
    #[serde(default)]
    pub preset: Option<String>,
    /// Explicit weights, e.g. {"layout": 0.5, "color": 0.5}; dimensions left out weigh 0.
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
    /// question.
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
    /// What is compared, e.g. a component or screen id.
    #[serde(rename = "scopeId")]
    pub scope_id: String,
    /// Which review protocol asks.
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
    /// Read at most this many frames per sequence. Default 120.
    #[serde(default, rename = "maxFrames")]
    pub max_frames: Option<usize>,
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
        description = "Score how closely a candidate image (new build) matches a reference (mock-up, old app) from pixels alone, no shared DOM: layout (SSIM), color (palette distance, naming colours that moved), content (blocks matched by IoU: missing/extra with boxes), typography (text lines), spacing (margins, rhythm), each 0-100 or null, and a weighted overall. Returns the JSON result (findings, resolved weights, alignment, comparisonKey/runKey) and, unless returnVisuals is false, four labelled diagnostic images.",
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
            Some(w) => Some(serde_json::from_value::<DimensionWeights>(w).map_err(|e| {
                bad(format!("weights: {e}; use numbers for layout, color, content, typography, spacing"))
            })?),
            None => None,
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
        description = "Compare the motion of two frame sequences (folders of PNG frames or lists of paths, e.g. from capture_frames or extract_video_frames): per-frame change signature, energy, motion_status (compared, static, capture_unreliable) and a 0-100 score when both move, plus a signature chart image. Frame-index correlation is given only for equal lengths and is not verified timing.",
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
        let chart = signature_chart(&comparison);
        Ok(CallToolResult::success(vec![
            pretty_json(&comparison),
            ContentBlock::text(format!("signature chart ({}×{})", chart.width(), chart.height())),
            png_block(&chart).map_err(|e| ErrorData::internal_error(e, None))?,
        ]))
    }
}
