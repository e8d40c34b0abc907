//! What compare_designs takes and gives: the options (mode, ignore boxes, weights, context) and
//! the result (dimensions with their status, findings, input and canvas summaries, keys). The
//! CLI prints these with `--json` and the MCP tool returns them; `mod.rs` computes them.

use serde::{Deserialize, Serialize};

use super::critique::{CritiqueRubric, Diagnostics, Severity};
use super::{Alignment, DesignVisuals, DimensionWeights, Preset, WeightOverrides};

/// How strictly the two images are put on top of each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DesignMode {
    /// A tight crop of one component: compared as is, no alignment; the bottom margin counts.
    Widget,
    /// A whole view: the candidate is aligned by a global translation search first.
    #[default]
    Screen,
}

/// A box in reference pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DesignBox {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// Caller-declared context that becomes part of `comparisonKey`, so two revisions are only
/// compared under the same question. Checked by [`ComparisonContext::validate`]: `scopeId` is
/// 1–128 UTF-16 code units, `protocolKey` a lowercase hex SHA-256 (of the protocol's text).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComparisonContext {
    /// What is being compared (e.g. a component or screen id).
    pub scope_id: String,
    /// Which review protocol asks: the lowercase hex SHA-256 of its text.
    pub protocol_key: String,
}

/// Longest `scopeId`, in UTF-16 code units (what a JavaScript host counts as its length).
pub const MAX_SCOPE_ID_UNITS: usize = 128;

impl ComparisonContext {
    /// `scopeId` 1–[`MAX_SCOPE_ID_UNITS`] UTF-16 units; `protocolKey` 64 lowercase hex digits.
    pub fn validate(&self) -> crate::error::Result<()> {
        let named = |field: &str, reason: String| {
            crate::error::Error::InvalidInput(format!("comparisonContext.{field} {reason}"))
        };
        Self::check_scope_id(&self.scope_id).map_err(|r| named("scopeId", r))?;
        Self::check_protocol_key(&self.protocol_key).map_err(|r| named("protocolKey", r))
    }

    /// What is wrong with a scope id, worded to follow its name ("is 0 UTF-16 units long; …").
    pub fn check_scope_id(scope_id: &str) -> std::result::Result<(), String> {
        let units = scope_id.encode_utf16().count();
        if (1..=MAX_SCOPE_ID_UNITS).contains(&units) {
            return Ok(());
        }
        Err(format!("is {units} UTF-16 units long; give 1–{MAX_SCOPE_ID_UNITS}, e.g. \"checkout/buy-button\""))
    }

    /// What is wrong with a protocol key, worded to follow its name.
    pub fn check_protocol_key(key: &str) -> std::result::Result<(), String> {
        if key.len() == 64 && key.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return Ok(());
        }
        Err(format!(
            "{key:?} is not a lowercase hex SHA-256; give the 64-digit SHA-256 of your review protocol's text (e.g. `sha256sum protocol.md`)"
        ))
    }
}

/// Options of [`compare_designs`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DesignOptions {
    /// `widget` or `screen` (default).
    pub mode: DesignMode,
    /// Weights preset: the weight of every dimension `weights` does not name. Default `default`.
    pub preset: Preset,
    /// Weights given for some or all dimensions; they win over the preset's. Default none.
    pub weights: WeightOverrides,
    /// Boxes (reference pixels) left out of every dimension. Default none.
    pub ignore_regions: Vec<DesignBox>,
    /// Part of `comparisonKey` when given. Default none.
    pub comparison_context: Option<ComparisonContext>,
    /// Draw the diagnostic images. Default false.
    pub return_visuals: bool,
}

/// The five dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Dimension {
    /// Structure: SSIM of the aligned greyscale images.
    Layout,
    /// Dominant colours: OKLab palette distance.
    Color,
    /// Blocks segmented from the background, paired by IoU.
    Content,
    /// Amount and scale of text lines.
    Typography,
    /// Outer margins and vertical rhythm.
    Spacing,
}

impl Dimension {
    /// All dimensions, in weight order.
    pub const ALL: [Dimension; 5] =
        [Dimension::Layout, Dimension::Color, Dimension::Content, Dimension::Typography, Dimension::Spacing];

    /// The camelCase name used in JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Layout => "layout",
            Dimension::Color => "color",
            Dimension::Content => "content",
            Dimension::Typography => "typography",
            Dimension::Spacing => "spacing",
        }
    }
}

/// Whether a dimension produced a score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DimensionStatus {
    /// Measured: `score` is 0–100.
    Scored,
    /// Nothing to measure (e.g. no text in either image): `score` is null, weight renormalised away.
    NotApplicable,
    /// Measuring failed: `score` is floored at 1 and kept in the overall, `error` says why.
    Failed,
}

/// One dimension's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DimensionResult {
    /// Scored, not applicable, or failed.
    pub status: DimensionStatus,
    /// 0–100 (100: no difference), rounded to 0.01; null when not applicable.
    pub score: Option<f64>,
    /// The weight this dimension had in `overall`, after renormalisation.
    pub weight: f64,
    /// What was measured, in one line (e.g. "mean SSIM 0.9731").
    pub summary: String,
    /// Why measuring failed (only when `status` is `failed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Per-dimension outcomes, by name.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Dimensions {
    /// Structural similarity (SSIM) of the aligned greyscale images.
    pub layout: DimensionResult,
    /// Distance between the dominant colour palettes (OKLab).
    pub color: DimensionResult,
    /// Blocks segmented from the background, matched by IoU ≥ 0.3.
    pub content: DimensionResult,
    /// Amount and scale of text lines.
    pub typography: DimensionResult,
    /// Outer margins and vertical rhythm of the major blocks.
    pub spacing: DimensionResult,
}

/// What a finding reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FindingKind {
    /// The aspect ratios differ by more than 2 %; the shorter image was padded.
    AspectMismatch,
    /// `screen` mode: the translation search did not converge, the identity was used.
    AlignmentNotConverged,
    /// Local structure differs (low SSIM) in the box.
    StructureChanged,
    /// A dominant reference colour shows as another colour in the candidate.
    ColorMoved,
    /// A dominant candidate colour has no counterpart in the reference.
    ColorAdded,
    /// A dominant reference colour covers a much larger or smaller share of the candidate.
    ColorShareChanged,
    /// A reference block has no counterpart in the candidate.
    BlockMissing,
    /// A candidate block has no counterpart in the reference.
    BlockExtra,
    /// The text lines are taller or shorter on average.
    TextScaleChanged,
    /// There is more or less text.
    TextAmountChanged,
    /// One matched text line changed height.
    TextResized,
    /// An outer margin changed.
    MarginChanged,
    /// A vertical gap between major blocks changed, or their number did.
    RhythmChanged,
    /// A dimension failed to measure.
    DimensionFailed,
}

/// One observation, with where it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The dimension it belongs to; null for findings about the inputs as a whole.
    pub dimension: Option<Dimension>,
    /// What kind of observation it is.
    pub kind: FindingKind,
    /// How much it matters: `high`, `medium` or `low` (see `critiqueRubric.severity`).
    pub severity: Severity,
    /// One sentence for people and agents, with the numbers.
    pub message: String,
    /// What to change in the candidate, in one sentence.
    pub suggested_fix: String,
    /// Where, in reference pixels; null when the finding is about the whole view.
    #[serde(rename = "box")]
    pub region: Option<DesignBox>,
}

/// One input as it was compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InputSummary {
    /// Width in its own pixels.
    pub width: u32,
    /// Height in its own pixels.
    pub height: u32,
    /// Canonical pixels per input pixel (768 / width).
    pub scale: f64,
}

/// The canvas both inputs were normalised onto.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CanvasSummary {
    /// Always 768.
    pub width: u32,
    /// The taller of the two resampled heights (the other is padded with its background).
    pub height: u32,
    /// The reference input.
    pub reference: InputSummary,
    /// The candidate input.
    pub candidate: InputSummary,
    /// Whether the aspect ratios differ by more than 2 % (also a finding).
    pub aspect_mismatch: bool,
}

/// One input's identity: what was decoded, so a host can tell two runs saw the same pixels.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InputIdentity {
    /// SHA-256 of the decoded RGBA pixels (8 bits a channel, rows top to bottom), lowercase hex.
    pub pixel_sha256: String,
    /// Width in its own pixels.
    pub width: u32,
    /// Height in its own pixels.
    pub height: u32,
}

/// Where the result came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    /// The scoring's version: results of different versions are not comparable.
    pub algorithm_version: u32,
    /// The reference as decoded.
    pub reference: InputIdentity,
    /// The candidate as decoded.
    pub candidate: InputIdentity,
}

/// The result of [`compare_designs`]: serialised as is by the CLI (`--json`) and the MCP tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DesignComparison {
    /// Weighted geometric mean of the scored dimensions, 0–100 (100: indistinguishable), rounded
    /// to 0.01; null when `diagnostics` is inconclusive or no weighted dimension could be scored.
    pub overall: Option<f64>,
    /// Whether the scores can be acted on: `ok`, `review` or `inconclusive`, with reasons.
    pub diagnostics: Diagnostics,
    /// `widget` or `screen`.
    pub mode: DesignMode,
    /// The preset that gave the weights `weights` did not name.
    pub preset: Preset,
    /// The weights used for `overall`: the given ones over the preset's, renormalised over the
    /// scored dimensions.
    pub weights: DimensionWeights,
    /// Each dimension's status, score, weight and one-line summary.
    pub dimensions: Dimensions,
    /// Every observation, grouped by dimension in weight order.
    pub findings: Vec<Finding>,
    /// The translation applied in `screen` mode, or why none was.
    pub alignment: Alignment,
    /// The canonical canvas and the inputs' sizes.
    pub canvas: CanvasSummary,
    /// The ignore regions that were applied (reference pixels).
    pub ignore_regions: Vec<DesignBox>,
    /// Hash of the reference pixels and the resolved settings (+ comparison context): equal keys
    /// ask the same question.
    pub comparison_key: String,
    /// `comparisonKey` + the candidate pixels: equal keys are the same comparison.
    pub run_key: String,
    /// What each input was, as decoded, and the scoring's version.
    pub provenance: Provenance,
    /// How to turn this result into a prioritised fix list.
    pub critique_rubric: CritiqueRubric,
}

/// A comparison and, when asked for, its diagnostic images.
#[derive(Debug, Clone)]
pub struct DesignOutcome {
    /// The scores and findings.
    pub comparison: DesignComparison,
    /// The diagnostic images (when `return_visuals`).
    pub visuals: Option<DesignVisuals>,
}
