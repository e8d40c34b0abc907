//! Comparing a design with its implementation (`compare_designs`): a *reference* (a mock-up,
//! the old app) against a *candidate* (the new build) that shares no DOM with it, scored from
//! pixels alone and deterministically.
//!
//! Flow: [`normalise`] puts the candidate on the reference's pixel grid (as it is when the widths
//! are within 3 %, else resampled) and pads both to one size → the ignore regions show the
//! reference on both sides → in `screen` mode [`align`] moves the candidate back by a global
//! translation in whole grid pixels, and the strips only the reference shows are left out → both
//! are resampled onto a 768-px-wide canvas → five dimensions, each 0–100, `null` (not
//! applicable) or failed (kept, floored at 1, with the error): [`layout`] (SSIM), [`color`]
//! (OKLab palette), [`content`] (blocks matched by IoU), [`typography`] (text lines by
//! morphology), [`spacing`] (margins and rhythm) → [`score`] (weighted geometric mean) →
//! [`critique`] (severity, diagnostics, rubric) → [`provenance`] keys → optional [`visuals`].
//!
//! Every box in the result is in reference pixels; boxes of candidate-only content are mapped
//! through the canonical canvas (and may reach below the reference when the candidate is taller).

pub mod align;
pub mod color;
pub mod content;
pub mod critique;
/// Ignore regions on the grid and the canvas.
mod ignore;
pub mod layout;
mod model;
pub mod normalise;
pub mod provenance;
pub mod score;
pub mod spacing;
pub mod typography;
pub mod visuals;

use std::path::Path;

use serde::Serialize;

pub use self::align::Alignment;
use self::align::align_candidate;
pub use self::critique::{CRITIQUE_RUBRIC, CritiqueRubric, DiagnosticStatus, Diagnostics, Severity};
use self::critique::{aspect_finding, diagnose};
use self::ignore::{canonical_rect, grid_boxes, show_reference_in};
pub use self::model::*;
use self::normalise::{CANONICAL_WIDTH, Plane, Rect, load_design_input};
pub use self::score::{DimensionWeights, Preset, WeightOverrides};
pub use self::visuals::{DesignVisuals, VISUAL_FILE_NAMES};
use crate::error::{Error, Result};
use crate::image::RgbaImage;

/// Compares two image files (PNG or JPEG). Both are checked against `SIGHTLINE_ALLOWED_ROOTS`
/// and the input caps before decoding.
pub fn compare_designs(reference: &Path, candidate: &Path, options: &DesignOptions) -> Result<DesignOutcome> {
    let (reference, candidate) = rayon::join(|| load_design_input(reference), || load_design_input(candidate));
    compare_design_images(&reference?, &candidate?, options)
}

/// Both inputs on the canonical canvas, aligned and masked: what every dimension reads.
pub(crate) struct Canvases {
    pub width: usize,
    pub height: usize,
    pub mode: DesignMode,
    pub reference: Plane,
    pub candidate: Plane,
    pub reference_luma: Vec<u8>,
    pub candidate_luma: Vec<u8>,
    /// Pixels inside an ignore region.
    pub ignored: Vec<bool>,
    pub reference_blocks: Vec<Rect>,
    pub candidate_blocks: Vec<Rect>,
    pub reference_content_height: usize,
    pub candidate_content_height: usize,
    /// Canonical pixels per reference pixel.
    pub reference_scale: f64,
}

/// What one dimension measured; boxes still on the canonical canvas.
pub(crate) struct Measured {
    pub score: Option<f64>,
    pub summary: String,
    pub findings: Vec<RawFinding>,
}

/// One finding as a dimension reports it; `rect` still on the canonical canvas.
pub(crate) struct RawFinding {
    pub kind: FindingKind,
    pub severity: Severity,
    pub message: String,
    /// What to change in the candidate, in one sentence.
    pub fix: String,
    pub rect: Option<Rect>,
}

/// Canonical pixels → reference pixels, rounded.
pub(crate) fn ref_px(c: &Canvases, px: usize) -> u32 {
    (px as f64 / c.reference_scale).round() as u32
}

/// Canonical pixels → reference pixels.
pub(crate) fn ref_px_f(c: &Canvases, px: f64) -> f64 {
    px / c.reference_scale
}

fn to_reference_box(rect: Rect, scale: f64) -> DesignBox {
    let x0 = (rect.x0 as f64 / scale).floor() as u32;
    let y0 = (rect.y0 as f64 / scale).floor() as u32;
    let x1 = (rect.x1 as f64 / scale).ceil() as u32;
    let y1 = (rect.y1 as f64 / scale).ceil() as u32;
    DesignBox { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The resolved settings, hashed into `comparisonKey`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Settings<'a> {
    algorithm: u32,
    mode: DesignMode,
    weights: DimensionWeights,
    ignore_regions: &'a [DesignBox],
    comparison_context: Option<&'a ComparisonContext>,
}

/// Compares two decoded images; see [`compare_designs`].
pub fn compare_design_images(
    reference: &RgbaImage,
    candidate: &RgbaImage,
    options: &DesignOptions,
) -> Result<DesignOutcome> {
    let weights = validate(reference, candidate, options)?;
    let settings = Settings {
        algorithm: provenance::ALGORITHM_VERSION,
        mode: options.mode,
        weights,
        ignore_regions: &options.ignore_regions,
        comparison_context: options.comparison_context.as_ref(),
    };
    let settings = serde_json::to_string(&settings).map_err(|e| Error::InvalidInput(e.to_string()))?;
    let (reference_identity, candidate_identity) =
        rayon::join(|| provenance::identity(reference), || provenance::identity(candidate));
    let (comparison_key, run_key) = provenance::keys(&reference_identity, &candidate_identity, &settings);

    // Both on the reference's pixel grid, the same size: alignment moves whole pixels there.
    let (reference_grid, candidate_grid) = rayon::join(
        || normalise::opaque(reference),
        || normalise::opaque(candidate).and_then(|c| normalise::onto_reference_grid(c, reference.width())),
    );
    let (reference_grid, (candidate_grid, candidate_grid_scale)) = (reference_grid?, candidate_grid?);
    let candidate_grid_height = candidate_grid.height();
    let (grid_width, grid_height) =
        (reference.width().max(candidate_grid.width()), reference.height().max(candidate_grid_height));
    let reference_grid = normalise::pad(reference_grid, grid_width, grid_height)?;
    let mut candidate_grid = normalise::pad(candidate_grid, grid_width, grid_height)?;
    let scale = CANONICAL_WIDTH as f64 / f64::from(grid_width);
    let mut findings: Vec<Finding> = aspect_finding(reference, candidate).into_iter().collect();
    let aspect_mismatch = !findings.is_empty();

    let ignore_rects = grid_boxes(&options.ignore_regions, grid_width, grid_height);
    show_reference_in(&mut candidate_grid, &reference_grid, &ignore_rects);
    let (alignment, uncovered) = match options.mode {
        DesignMode::Widget => (Alignment::not_searched(), Vec::new()),
        DesignMode::Screen => {
            let (alignment, uncovered) = align_candidate(&reference_grid, &mut candidate_grid, &ignore_rects, scale);
            if !alignment.converged {
                findings.push(Finding {
                    dimension: None,
                    kind: FindingKind::AlignmentNotConverged,
                    severity: Severity::Medium,
                    message: alignment.note.clone(),
                    suggested_fix: "capture the candidate at the reference's size and scroll position, or compare one component in widget mode".into(),
                    region: None,
                });
            }
            (alignment, uncovered)
        }
    };

    let (a, b) = rayon::join(|| normalise::normalise(&reference_grid), || normalise::normalise(&candidate_grid));
    let (a, b) = (a?, b?);
    drop((reference_grid, candidate_grid));
    let (width, height) = (a.plane.width, a.plane.height);
    let mut ignored = vec![false; width * height];
    for r in ignore_rects.iter().chain(&uncovered) {
        let r = canonical_rect(*r, scale, width, height);
        for y in r.y0..r.y1 {
            ignored[y * width + r.x0..y * width + r.x1].fill(true);
        }
    }
    let (reference_blocks, candidate_blocks) = rayon::join(
        || content::segment(&a.plane, a.background, &ignored),
        || content::segment(&b.plane, b.background, &ignored),
    );
    let content_height = |h: u32| ((f64::from(h) * scale).round() as usize).clamp(1, height);
    let canvases = Canvases {
        width,
        height,
        mode: options.mode,
        reference_luma: a.plane.luma(),
        candidate_luma: b.plane.luma(),
        reference: a.plane,
        candidate: b.plane,
        ignored,
        reference_blocks,
        candidate_blocks,
        reference_content_height: content_height(reference.height()),
        candidate_content_height: content_height(candidate_grid_height),
        reference_scale: scale,
    };
    let ssim = layout::ssim_map(&canvases.reference_luma, &canvases.candidate_luma, width, height, &canvases.ignored);
    let measured: Vec<std::result::Result<Measured, String>> = Dimension::ALL
        .iter()
        .map(|&d| {
            measure_guarded(d, || match d {
                Dimension::Layout => layout::measure(&canvases, &ssim),
                Dimension::Color => color::measure(&canvases),
                Dimension::Content => content::measure(&canvases),
                Dimension::Typography => typography::measure(&canvases),
                Dimension::Spacing => spacing::measure(&canvases),
            })
        })
        .collect();
    let (overall, used, dimensions) = score_dimensions(measured, &weights, canvases.reference_scale, &mut findings);
    let diagnostics = diagnose(&canvases, &a.background, &b.background, &findings, !uncovered.is_empty());
    let overall = if diagnostics.status == DiagnosticStatus::Inconclusive { None } else { overall };

    let visuals = options.return_visuals.then(|| visuals::draw(&canvases, &ssim));
    let comparison = DesignComparison {
        overall: overall.map(round2),
        diagnostics,
        mode: options.mode,
        preset: options.preset,
        weights: used,
        dimensions,
        findings,
        alignment,
        canvas: CanvasSummary {
            width: width as u32,
            height: height as u32,
            reference: InputSummary { width: reference.width(), height: reference.height(), scale },
            candidate: InputSummary {
                width: candidate.width(),
                height: candidate.height(),
                scale: scale * candidate_grid_scale,
            },
            aspect_mismatch,
        },
        ignore_regions: options.ignore_regions.clone(),
        comparison_key,
        run_key,
        provenance: Provenance {
            algorithm_version: provenance::ALGORITHM_VERSION,
            reference: reference_identity,
            candidate: candidate_identity,
        },
        critique_rubric: CRITIQUE_RUBRIC.clone(),
    };
    Ok(DesignOutcome { comparison, visuals })
}

/// Checks the options and inputs; returns the weights to use (the given ones over the preset's).
fn validate(reference: &RgbaImage, candidate: &RgbaImage, options: &DesignOptions) -> Result<DimensionWeights> {
    let weights = options.weights.over(options.preset.weights())?;
    if let Some(context) = &options.comparison_context {
        context.validate()?;
    }
    for r in &options.ignore_regions {
        if r.width == 0 || r.height == 0 {
            return Err(Error::InvalidInput(format!(
                "ignore region {},{},{},{} is empty; give x,y,width,height with width and height above 0",
                r.x, r.y, r.width, r.height
            )));
        }
    }
    if reference.is_empty() || candidate.is_empty() {
        return Err(Error::InvalidInput("an input image has no pixels; capture or export it again".into()));
    }
    normalise::check_canonical_height("reference", reference)?;
    normalise::check_canonical_height("candidate", candidate)?;
    Ok(weights)
}

/// The overall score, the weights used (rounded) and each dimension's result; the dimensions'
/// findings are appended to `findings` with their boxes in reference pixels.
fn score_dimensions(
    measured: Vec<std::result::Result<Measured, String>>,
    weights: &DimensionWeights,
    reference_scale: f64,
    findings: &mut Vec<Finding>,
) -> (Option<f64>, DimensionWeights, Dimensions) {
    // A failed dimension is kept in the overall at the floor.
    let scores: [Option<f64>; 5] = std::array::from_fn(|i| match &measured[i] {
        Ok(m) => m.score.map(|s| s.clamp(0.0, 100.0)),
        Err(_) => Some(1.0),
    });
    let (overall, resolved) = score::combine(weights, scores);
    let used = resolved.as_array().map(|w| (w * 10_000.0).round() / 10_000.0);
    let mut results = Vec::new();
    for (i, (d, m)) in Dimension::ALL.iter().zip(measured).enumerate() {
        results.push(match m {
            Ok(m) => {
                findings.extend(m.findings.into_iter().map(|f| Finding {
                    dimension: Some(*d),
                    kind: f.kind,
                    severity: f.severity,
                    message: f.message,
                    suggested_fix: f.fix,
                    region: f.rect.map(|r| to_reference_box(r, reference_scale)),
                }));
                DimensionResult {
                    status: if m.score.is_some() { DimensionStatus::Scored } else { DimensionStatus::NotApplicable },
                    score: scores[i].map(round2),
                    weight: used[i],
                    summary: m.summary,
                    error: None,
                }
            }
            Err(error) => {
                findings.push(Finding {
                    dimension: Some(*d),
                    kind: FindingKind::DimensionFailed,
                    severity: Severity::High,
                    message: error.clone(),
                    suggested_fix: format!(
                        "nothing to change in the candidate: report the failure with both images; the other dimensions stand, and {} counts as 1 in overall",
                        d.name()
                    ),
                    region: None,
                });
                DimensionResult {
                    status: DimensionStatus::Failed,
                    score: Some(1.0),
                    weight: used[i],
                    summary: "failed; counted as 1".into(),
                    error: Some(error),
                }
            }
        });
    }
    let mut results = results.into_iter();
    let mut next = || results.next().expect("five dimensions");
    let dimensions = Dimensions { layout: next(), color: next(), content: next(), typography: next(), spacing: next() };
    (overall, DimensionWeights::from_array(used), dimensions)
}

/// Runs one dimension. A bug in it must not take the others down: a panic becomes a failed
/// dimension (kept in the overall at the floor) with the panic's message.
fn measure_guarded(dimension: Dimension, measure: impl FnOnce() -> Measured) -> std::result::Result<Measured, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(measure))
        .map_err(|panic| format!("the {} dimension failed: {}", dimension.name(), crate::error::panic_message(&*panic)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `((x, y, width, height), colour)`.
    type Painted = ((u32, u32, u32, u32), [u8; 3]);

    /// A 768-wide white page (scale 1, so numbers stay exact) with `rects` painted on it.
    fn page(height: u32, rects: &[Painted]) -> RgbaImage {
        let mut img = RgbaImage::filled(768, height, [255, 255, 255, 255]).unwrap();
        for &((x, y, w, h), [r, g, b]) in rects {
            for yy in y..y + h {
                for xx in x..x + w {
                    let at = ((yy * 768 + xx) * 4) as usize;
                    img.as_bytes_mut()[at..at + 4].copy_from_slice(&[r, g, b, 255]);
                }
            }
        }
        img
    }

    fn widget(a: &RgbaImage, b: &RgbaImage) -> DesignComparison {
        let options = DesignOptions { mode: DesignMode::Widget, ..DesignOptions::default() };
        compare_design_images(a, b, &options).unwrap().comparison
    }

    const BLUE: [u8; 3] = [40, 120, 220];
    const GREY: [u8; 3] = [90, 90, 90];

    #[test]
    fn design_content_score_is_the_share_of_matched_blocks() {
        let blocks = [((40, 40, 200, 60), BLUE), ((300, 40, 200, 60), BLUE), ((40, 200, 460, 80), GREY)];
        let a = page(400, &blocks);
        let b = page(400, &blocks[..2]);
        let c = widget(&a, &b);
        // 2 pairs out of 3 + 2 blocks: 100 · 2 · 2 / 5.
        assert_eq!(c.dimensions.content.score, Some(80.0));
        let missing: Vec<_> = c.findings.iter().filter(|f| f.kind == FindingKind::BlockMissing).collect();
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].region, Some(DesignBox { x: 40, y: 200, width: 460, height: 80 }));
    }

    #[test]
    fn design_content_lists_the_largest_unpaired_blocks_and_counts_the_rest() {
        let blocks: Vec<Painted> = (0..12).map(|i| ((40 + 60 * i, 40, 20 + 2 * i, 30), GREY)).collect();
        let c = widget(&page(200, &blocks), &page(200, &[]));
        assert_eq!(c.dimensions.content.score, Some(0.0));
        let missing: Vec<_> = c.findings.iter().filter(|f| f.kind == FindingKind::BlockMissing).collect();
        assert_eq!(missing.len(), 9);
        // Largest first: the 12th block is 42 px wide.
        assert_eq!(missing[0].region, Some(DesignBox { x: 700, y: 40, width: 42, height: 30 }));
        assert_eq!(missing[8].message, "4 smaller missing blocks are not listed");
        assert_eq!(missing[8].region, None);
    }

    #[test]
    fn design_spacing_score_from_margins_and_gaps() {
        let a = page(400, &[((40, 40, 600, 60), BLUE), ((40, 140, 600, 60), BLUE)]);
        // Left margin 40 → 56 (both blocks move right; width kept), the rest unchanged.
        let b = page(400, &[((56, 40, 600, 60), BLUE), ((56, 140, 600, 60), BLUE)]);
        let c = widget(&a, &b);
        // Margins left 48/64, right (128 − 16 + 8)/136, top 1, bottom 1; the one gap 1.
        let margins = (48.0 / 64.0 + 120.0 / 136.0 + 1.0 + 1.0) / 4.0;
        let expected = (100.0 * margins * 100.0f64).round() / 100.0;
        assert_eq!(c.dimensions.spacing.score, Some(expected));
        assert!(c.findings.iter().any(|f| f.message == "left margin 56 px where the reference has 40 px"));
    }

    #[test]
    fn design_typography_is_not_applicable_without_text_and_weights_renormalise() {
        let a = page(300, &[((40, 40, 300, 100), BLUE)]);
        let c = widget(&a, &a);
        assert_eq!(c.dimensions.typography.status, DimensionStatus::NotApplicable);
        assert_eq!(c.dimensions.typography.score, None);
        assert_eq!(c.dimensions.typography.weight, 0.0);
        // layout .35 of the remaining .85.
        assert_eq!(c.weights.layout, ((0.35 / 0.85) * 10_000.0f64).round() / 10_000.0);
        assert_eq!(c.overall, Some(100.0));
    }

    #[test]
    fn design_color_finding_names_the_moved_colour_exactly() {
        let a = page(300, &[((0, 0, 768, 60), BLUE)]);
        let b = page(300, &[((0, 0, 768, 60), [220, 60, 60])]);
        let c = widget(&a, &b);
        let f = c.findings.iter().find(|f| f.kind == FindingKind::ColorMoved).unwrap();
        assert!(f.message.starts_with("#dc3c3c where the reference has #2878dc (20.0 % of the view"), "{}", f.message);
        assert_eq!(f.region, Some(DesignBox { x: 0, y: 0, width: 768, height: 60 }));
        // 20 % of the weight moves by the blue–red OKLab distance (both ways), and 20 % of the
        // view changes colour class, 15 % beyond the dead zone: exp(−(0.2·d + 0.2·0.15)/0.05).
        let d = {
            let (p, q) = (color::oklab(BLUE), color::oklab([220, 60, 60]));
            ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
        };
        let expected = ((100.0 * (-(0.2 * d + 0.2 * 0.15) / 0.05).exp()) * 100.0).round() / 100.0;
        assert_eq!(c.dimensions.color.score, Some(expected));
    }

    #[test]
    fn design_aspect_mismatch_is_a_finding_and_the_shorter_is_padded() {
        let a = page(400, &[((40, 40, 200, 60), BLUE)]);
        let b = page(600, &[((40, 40, 200, 60), BLUE)]);
        let c = widget(&a, &b);
        assert!(c.canvas.aspect_mismatch);
        assert_eq!((c.canvas.width, c.canvas.height), (768, 600));
        assert_eq!(c.findings[0].kind, FindingKind::AspectMismatch);
        assert_eq!(c.findings[0].dimension, None);
        // Half-width input: scaled by 2 onto the canvas, boxes reported back in its own pixels.
        let small = page(200, &[((40, 40, 200, 60), BLUE)]);
        let half = RgbaImage::from_raw(
            384,
            100,
            (0..100u32)
                .flat_map(|y| (0..384u32).map(move |x| (x, y)))
                .flat_map(|(x, y)| {
                    let at = (((2 * y) * 768 + 2 * x) * 4) as usize;
                    small.as_bytes()[at..at + 4].to_vec()
                })
                .collect(),
        )
        .unwrap();
        let c = widget(&half, &half);
        assert_eq!(c.canvas.reference.scale, 2.0);
        assert!(!c.canvas.aspect_mismatch);
    }

    #[test]
    fn design_a_panicking_dimension_fails_alone() {
        let failed = measure_guarded(Dimension::Typography, || panic!("line finder broke"));
        assert_eq!(failed.err().as_deref(), Some("the typography dimension failed: line finder broke"));
        let fine = measure_guarded(Dimension::Layout, || Measured {
            score: Some(50.0),
            summary: String::new(),
            findings: vec![],
        });
        assert_eq!(fine.unwrap().score, Some(50.0));
    }

    #[test]
    fn design_bad_options_are_errors() {
        let a = page(100, &[]);
        let none = WeightOverrides {
            layout: Some(0.0),
            color: Some(0.0),
            content: Some(0.0),
            typography: Some(0.0),
            spacing: Some(0.0),
        };
        let zero = DesignOptions { weights: none, ..DesignOptions::default() };
        assert!(matches!(compare_design_images(&a, &a, &zero), Err(Error::InvalidInput(_))));
        let empty = DesignOptions {
            ignore_regions: vec![DesignBox { x: 0, y: 0, width: 0, height: 5 }],
            ..DesignOptions::default()
        };
        assert!(matches!(compare_design_images(&a, &a, &empty), Err(Error::InvalidInput(_))));
        // A region reaching far past the image is clipped, not an overflow.
        let huge = DesignOptions {
            ignore_regions: vec![DesignBox { x: u32::MAX - 1, y: 0, width: u32::MAX, height: 5 }],
            ..DesignOptions::default()
        };
        let clipped = compare_design_images(&a, &a, &huge).unwrap().comparison;
        assert_eq!(clipped.ignore_regions, huge.ignore_regions);
        // A bad comparison context names the field and the fix.
        let context = |scope_id: &str, protocol_key: &str| DesignOptions {
            comparison_context: Some(ComparisonContext {
                scope_id: scope_id.into(),
                protocol_key: protocol_key.into(),
            }),
            ..DesignOptions::default()
        };
        let key = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert!(compare_design_images(&a, &a, &context("checkout", key)).is_ok());
        // 128 UTF-16 units: 64 characters outside the BMP count twice each.
        assert!(compare_design_images(&a, &a, &context(&"😀".repeat(64), key)).is_ok());
        for (scope, protocol, says) in [
            ("", key, "scopeId is 0 UTF-16 units long; give 1–128"),
            (&"😀".repeat(65), key, "scopeId is 130 UTF-16 units long"),
            ("checkout", "design-review-v1", "protocolKey \"design-review-v1\" is not a lowercase hex SHA-256"),
            ("checkout", &key.to_uppercase(), "is not a lowercase hex SHA-256"),
            ("checkout", &key[1..], "is not a lowercase hex SHA-256"),
        ] {
            let err = compare_design_images(&a, &a, &context(scope, protocol)).unwrap_err().to_string();
            assert!(err.contains(says), "{err}");
        }
    }

    #[test]
    fn design_blank_or_fully_masked_pairs_are_inconclusive() {
        let blank = page(300, &[]);
        let drawn = page(300, &[((40, 40, 300, 100), BLUE), ((40, 200, 200, 40), GREY)]);
        let c = widget(&blank, &blank);
        assert_eq!(c.diagnostics.status, DiagnosticStatus::Inconclusive);
        assert_eq!(
            c.diagnostics.reasons,
            [
                "both images are a single colour where they are compared (#ffffff and #ffffff): there is no design to compare; check that both rendered"
            ]
        );
        assert_eq!(c.overall, None);
        let c = widget(&drawn, &blank);
        assert_eq!(c.diagnostics.status, DiagnosticStatus::Inconclusive);
        assert!(
            c.diagnostics.reasons[0].starts_with("the candidate is a single colour (#ffffff)"),
            "{:?}",
            c.diagnostics
        );
        let c = widget(&blank, &drawn);
        assert!(
            c.diagnostics.reasons[0].starts_with("the reference is a single colour (#ffffff)"),
            "{:?}",
            c.diagnostics
        );
        // Everything ignored: nothing is left to compare.
        let all = DesignOptions {
            mode: DesignMode::Widget,
            ignore_regions: vec![DesignBox { x: 0, y: 0, width: 768, height: 300 }],
            ..DesignOptions::default()
        };
        let c = compare_design_images(&drawn, &page(300, &[((0, 0, 768, 300), GREY)]), &all).unwrap().comparison;
        assert_eq!((c.diagnostics.status, c.overall), (DiagnosticStatus::Inconclusive, None));
        assert_eq!(
            c.diagnostics.reasons,
            ["the ignore regions cover 100.0 % of the view, so nothing is left to compare; ignore less"]
        );
        // Most of it ignored: the rest is still scored, with a caution.
        let most = DesignOptions {
            mode: DesignMode::Widget,
            ignore_regions: vec![
                DesignBox { x: 0, y: 150, width: 768, height: 150 },
                DesignBox { x: 400, y: 0, width: 368, height: 150 },
            ],
            ..DesignOptions::default()
        };
        let c = compare_design_images(&drawn, &drawn, &most).unwrap().comparison;
        assert_eq!(c.diagnostics.status, DiagnosticStatus::Review);
        assert_eq!(
            c.diagnostics.reasons,
            ["the ignore regions cover 74.0 % of the view; the scores describe only the rest"]
        );
        assert_eq!(c.overall, Some(100.0));
        // A plain difference is ok: the scores can be acted on.
        let c = widget(&drawn, &page(300, &[((40, 40, 300, 100), BLUE)]));
        assert_eq!((c.diagnostics.status, c.diagnostics.reasons.len()), (DiagnosticStatus::Ok, 0));
    }

    #[test]
    fn design_findings_carry_severity_and_a_fix() {
        let blocks = [((40, 200, 300, 60), GREY), ((400, 200, 60, 40), GREY), ((400, 300, 20, 10), GREY)];
        let a = page(400, &[((40, 40, 600, 120), BLUE), blocks[0], blocks[1], blocks[2]]);
        let b = page(400, &[((40, 40, 600, 120), BLUE)]);
        let c = widget(&a, &b);
        let missing: Vec<(Severity, &str)> = c
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::BlockMissing)
            .map(|f| (f.severity, f.suggested_fix.as_str()))
            .collect();
        // 300 × 60 is 5.9 % of the view (high), 60 × 40 is 0.78 % (medium), 20 × 10 is 0.07 % (low).
        assert_eq!(
            missing,
            [
                (
                    Severity::High,
                    "add the element the reference shows in this box (300 × 60 px), or move the candidate's version of it there"
                ),
                (
                    Severity::Medium,
                    "add the element the reference shows in this box (60 × 40 px), or move the candidate's version of it there"
                ),
                (
                    Severity::Low,
                    "add the element the reference shows in this box (20 × 10 px), or move the candidate's version of it there"
                ),
            ]
        );
        assert_eq!(c.critique_rubric, *CRITIQUE_RUBRIC);
    }
}
