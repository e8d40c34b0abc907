//! Turning a comparison into work: how much each finding matters ([`Severity`]), whether the
//! numbers can be trusted at all ([`Diagnostics`]), and the rubric a host (a person, or a model
//! writing a fix list) follows to order the fixes ([`CritiqueRubric`]). The rubric ships with
//! every result, so a model that reads only the result still knows what "high" means.

use std::sync::LazyLock;

use serde::Serialize;

use super::normalise::Plane;
use super::{Canvases, Finding, FindingKind, color, content};
use crate::image::RgbaImage;

/// How much a finding matters for the fix list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    /// Seen at a glance: missing or extra content, a replaced brand colour, text a fifth larger.
    High,
    /// Seen when the two are side by side.
    Medium,
    /// Polish: a few pixels of margin, a small share of a colour.
    Low,
}

impl Severity {
    /// `High` from `high_at` up, `Medium` from `medium_at` up, else `Low`.
    pub(crate) fn by(value: f64, medium_at: f64, high_at: f64) -> Self {
        if value >= high_at {
            Severity::High
        } else if value >= medium_at {
            Severity::Medium
        } else {
            Severity::Low
        }
    }
}

/// Where a measured amount makes a finding medium, then high. The rubric's words are written
/// from these numbers ([`CRITIQUE_RUBRIC`]), so what a result says "high" means is what the
/// dimensions do.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Thresholds {
    pub medium: f64,
    pub high: f64,
}

impl Thresholds {
    pub(crate) fn severity(self, value: f64) -> Severity {
        Severity::by(value, self.medium, self.high)
    }
}

/// A block missing or added, as a share of the view.
pub(crate) const BLOCK_SHARE: Thresholds = Thresholds { medium: 0.002, high: 0.01 };
/// A colour shown where the reference shows another, as a share of the view.
pub(crate) const COLOR_SHARE: Thresholds = Thresholds { medium: 0.01, high: 0.05 };
/// The text's line height, in percent larger or smaller.
pub(crate) const TEXT_SCALE_PERCENT: Thresholds = Thresholds { medium: 8.0, high: 20.0 };
/// A margin or gap, in pixels off.
pub(crate) const SPACING_PX: Thresholds = Thresholds { medium: 8.0, high: 24.0 };
/// Structure is lost (high) where the mean SSIM is under this over at least
/// [`STRUCTURE_LOST_SHARE`] of the view.
pub(crate) const STRUCTURE_LOST_SSIM: f64 = 0.5;
pub(crate) const STRUCTURE_LOST_SHARE: f64 = 0.01;

/// Whether the scores can be acted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DiagnosticStatus {
    /// The comparison measured what it should: act on the scores and findings.
    Ok,
    /// The scores stand, but something about the inputs or the alignment can mislead; read the
    /// reasons before trusting them.
    Review,
    /// There is nothing to judge (a blank or single-colour input, or everything ignored):
    /// `overall` is null and the reasons say what to fix in the inputs.
    Inconclusive,
}

/// How far the result can be trusted, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostics {
    /// `ok`, `review` or `inconclusive`.
    pub status: DiagnosticStatus,
    /// One sentence per reason (empty when `ok`).
    pub reasons: Vec<String>,
}

impl Diagnostics {
    /// `inconclusive` when any blocking reason is given, else `review` when any caution is,
    /// else `ok`.
    pub(crate) fn from_reasons(blocking: Vec<String>, cautions: Vec<String>) -> Self {
        if !blocking.is_empty() {
            Diagnostics { status: DiagnosticStatus::Inconclusive, reasons: blocking }
        } else if !cautions.is_empty() {
            Diagnostics { status: DiagnosticStatus::Review, reasons: cautions }
        } else {
            Diagnostics { status: DiagnosticStatus::Ok, reasons: Vec::new() }
        }
    }
}

/// What each severity means, and the steps from a result to a prioritised fix list.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CritiqueRubric {
    /// The steps, in order.
    pub steps: [&'static str; 6],
    /// What `high`, `medium` and `low` mean.
    pub severity: SeverityMeanings,
}

/// The meaning of each severity, in words a person checks a finding against.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SeverityMeanings {
    pub high: String,
    pub medium: String,
    pub low: String,
}

/// A share of the view in words: `0.05` → `5 %`.
fn percent(share: f64) -> String {
    format!("{} %", share * 100.0)
}

/// The rubric every result carries; its severity words are written from the thresholds above.
pub static CRITIQUE_RUBRIC: LazyLock<CritiqueRubric> = LazyLock::new(|| CritiqueRubric {
    steps: [
        "Read diagnostics first: when inconclusive there is no score to act on, so fix the inputs as its reasons say and compare again; when review, check its reasons before trusting the scores.",
        "Take the findings in severity order (high, medium, low) and, within one severity, the larger box first.",
        "Write one fix per finding from its suggestedFix, naming its box (reference pixels) so the change can be found; findings without a box concern the whole view.",
        "Merge findings with one cause: a missing block also lowers structure and spacing in the same box, so fix the block and drop the others it explains.",
        "A dimension under 90 without a high or medium finding points at a change spread over the view: look at the heat map before writing its fix.",
        "Done when no high or medium finding is left; low findings are polish, listed last.",
    ],
    severity: SeverityMeanings {
        high: format!(
            "seen at a glance: content missing or added (a block of {} of the view or more), a dominant colour replaced over {} of the view, text {} % larger or smaller, structure lost (SSIM under {}) over {} of the view, a margin or gap off by {} px or more",
            percent(BLOCK_SHARE.high),
            percent(COLOR_SHARE.high),
            TEXT_SCALE_PERCENT.high,
            STRUCTURE_LOST_SSIM,
            percent(STRUCTURE_LOST_SHARE),
            SPACING_PX.high,
        ),
        medium: format!(
            "seen when the two are side by side: smaller missing or extra blocks, a colour replaced over {} of the view, text {} % larger or smaller, a margin or gap off by {} px or more",
            percent(COLOR_SHARE.medium),
            TEXT_SCALE_PERCENT.medium,
            SPACING_PX.medium,
        ),
        low: "polish: a few pixels of spacing, a small share of a colour, one text line a little taller".into(),
    },
});

/// Less than this share of the view compared: nothing left to judge.
pub(super) const MIN_COMPARED_SHARE: f64 = 0.01;
/// More than this share of the view left out: the scores describe only the rest.
pub(super) const REVIEW_IGNORED_SHARE: f64 = 0.5;

/// Whether the result can be acted on. Inconclusive: (almost) everything ignored, or an input
/// that is one colour where it is compared (nothing rendered, or a blank export). Review: the
/// alignment did not converge, the proportions differ, a dimension failed, or most of the view
/// was left out.
pub(super) fn diagnose(
    c: &Canvases,
    background_a: &[u8; 3],
    background_b: &[u8; 3],
    findings: &[Finding],
    strips: bool,
) -> Diagnostics {
    let total = c.ignored.len();
    let compared = c.ignored.iter().filter(|&&i| !i).count();
    let left_out = 1.0 - compared as f64 / total as f64;
    let what_left_out =
        if strips { "the ignore regions and the strips only the reference shows" } else { "the ignore regions" };
    let mut blocking = Vec::new();
    if (compared as f64) < MIN_COMPARED_SHARE * total as f64 {
        blocking.push(format!(
            "{what_left_out} cover {:.1} % of the view, so nothing is left to compare; ignore less",
            left_out * 100.0
        ));
    } else {
        let blank = |plane: &Plane, background: &[u8; 3]| {
            plane.rgb.iter().zip(&c.ignored).all(|(p, &skip)| skip || content::is_background(*p, *background))
        };
        match (blank(&c.reference, background_a), blank(&c.candidate, background_b)) {
            (true, true) => blocking.push(format!(
                "both images are a single colour where they are compared ({} and {}): there is no design to compare; check that both rendered",
                color::hex(*background_a),
                color::hex(*background_b)
            )),
            (true, false) => blocking.push(format!(
                "the reference is a single colour ({}) where it is compared: there is no design to compare with; check that it was exported with its content",
                color::hex(*background_a)
            )),
            (false, true) => blocking.push(format!(
                "the candidate is a single colour ({}) where it is compared: it shows nothing to compare; check that it rendered",
                color::hex(*background_b)
            )),
            (false, false) => {}
        }
    }
    let mut cautions: Vec<String> = findings
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                FindingKind::AlignmentNotConverged | FindingKind::AspectMismatch | FindingKind::DimensionFailed
            )
        })
        .map(|f| f.message.clone())
        .collect();
    if left_out > REVIEW_IGNORED_SHARE {
        cautions.push(format!(
            "{what_left_out} cover {:.1} % of the view; the scores describe only the rest",
            left_out * 100.0
        ));
    }
    Diagnostics::from_reasons(blocking, cautions)
}

/// The aspect-mismatch finding, when the height/width ratios differ by more than 2 %.
pub(super) fn aspect_finding(reference: &RgbaImage, candidate: &RgbaImage) -> Option<Finding> {
    let aspect = |i: &RgbaImage| f64::from(i.height()) / f64::from(i.width());
    let (aspect_a, aspect_b) = (aspect(reference), aspect(candidate));
    ((aspect_b - aspect_a).abs() / aspect_a > 0.02).then(|| Finding {
        dimension: None,
        severity: Severity::Medium,
        suggested_fix: format!(
            "capture the candidate at the reference's proportions ({}×{}) so the comparison need not pad one of them",
            reference.width(),
            reference.height()
        ),
        kind: FindingKind::AspectMismatch,
        message: format!(
            "the candidate is {}×{} (height/width {aspect_b:.3}) where the reference is {}×{} ({aspect_a:.3}); both were scaled to 768 px wide and the shorter padded",
            candidate.width(),
            candidate.height(),
            reference.width(),
            reference.height(),
        ),
        region: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severity_steps_at_its_thresholds() {
        assert_eq!(Severity::by(0.5, 1.0, 2.0), Severity::Low);
        assert_eq!(Severity::by(1.0, 1.0, 2.0), Severity::Medium);
        assert_eq!(Severity::by(2.0, 1.0, 2.0), Severity::High);
        // Ordered most urgent first, so a sort puts high findings on top.
        assert!(Severity::High < Severity::Medium && Severity::Medium < Severity::Low);
    }

    #[test]
    fn the_rubric_states_the_thresholds_the_dimensions_apply() {
        // Pinned in full: a threshold that moves changes these words with it, and this test
        // makes the change a visible one.
        assert_eq!(
            CRITIQUE_RUBRIC.severity.high,
            "seen at a glance: content missing or added (a block of 1 % of the view or more), a dominant colour replaced over 5 % of the view, text 20 % larger or smaller, structure lost (SSIM under 0.5) over 1 % of the view, a margin or gap off by 24 px or more"
        );
        assert_eq!(
            CRITIQUE_RUBRIC.severity.medium,
            "seen when the two are side by side: smaller missing or extra blocks, a colour replaced over 1 % of the view, text 8 % larger or smaller, a margin or gap off by 8 px or more"
        );
        // At each stated number the severity steps up, as the words say.
        assert_eq!(SPACING_PX.severity(24.0), Severity::High);
        assert_eq!(SPACING_PX.severity(23.0), Severity::Medium);
        assert_eq!(SPACING_PX.severity(8.0), Severity::Medium);
        assert_eq!(SPACING_PX.severity(7.0), Severity::Low);
        assert_eq!(BLOCK_SHARE.severity(0.01), Severity::High);
        assert_eq!(COLOR_SHARE.severity(0.05), Severity::High);
        assert_eq!(COLOR_SHARE.severity(0.01), Severity::Medium);
        assert_eq!(TEXT_SCALE_PERCENT.severity(20.0), Severity::High);
        assert_eq!(TEXT_SCALE_PERCENT.severity(8.0), Severity::Medium);
    }

    #[test]
    fn diagnostics_blocking_reasons_win_over_cautions() {
        let d = Diagnostics::from_reasons(vec!["blank".into()], vec!["padded".into()]);
        assert_eq!((d.status, d.reasons), (DiagnosticStatus::Inconclusive, vec!["blank".to_string()]));
        assert_eq!(Diagnostics::from_reasons(vec![], vec!["padded".into()]).status, DiagnosticStatus::Review);
        assert_eq!(Diagnostics::from_reasons(vec![], vec![]).status, DiagnosticStatus::Ok);
    }
}
