//! Turning a comparison into work: how much each finding matters ([`Severity`]), whether the
//! numbers can be trusted at all ([`Diagnostics`]), and the rubric a host (a person, or a model
//! writing a fix list) follows to order the fixes ([`CritiqueRubric`]). The rubric ships with
//! every result, so a model that reads only the result still knows what "high" means.

use serde::Serialize;

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
    pub high: &'static str,
    pub medium: &'static str,
    pub low: &'static str,
}

/// The rubric every result carries.
pub const CRITIQUE_RUBRIC: CritiqueRubric = CritiqueRubric {
    steps: [
        "Read diagnostics first: when inconclusive there is no score to act on, so fix the inputs as its reasons say and compare again; when review, check its reasons before trusting the scores.",
        "Take the findings in severity order (high, medium, low) and, within one severity, the larger box first.",
        "Write one fix per finding from its suggestedFix, naming its box (reference pixels) so the change can be found; findings without a box concern the whole view.",
        "Merge findings with one cause: a missing block also lowers structure and spacing in the same box, so fix the block and drop the others it explains.",
        "A dimension under 90 without a high or medium finding points at a change spread over the view: look at the heat map before writing its fix.",
        "Done when no high or medium finding is left; low findings are polish, listed last.",
    ],
    severity: SeverityMeanings {
        high: "seen at a glance: content missing or added (a block of 1 % of the view or more), a dominant colour replaced over 5 % of the view, text 20 % larger or smaller, structure lost (SSIM under 0.5) over 1 % of the view, a margin or gap off by 24 px or more",
        medium: "seen when the two are side by side: smaller missing or extra blocks, a colour replaced over 1 % of the view, text 8 % larger or smaller, a margin or gap off by 8 px or more",
        low: "polish: a few pixels of spacing, a small share of a colour, one text line a little taller",
    },
};

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
    fn diagnostics_blocking_reasons_win_over_cautions() {
        let d = Diagnostics::from_reasons(vec!["blank".into()], vec!["padded".into()]);
        assert_eq!((d.status, d.reasons), (DiagnosticStatus::Inconclusive, vec!["blank".to_string()]));
        assert_eq!(Diagnostics::from_reasons(vec![], vec!["padded".into()]).status, DiagnosticStatus::Review);
        assert_eq!(Diagnostics::from_reasons(vec![], vec![]).status, DiagnosticStatus::Ok);
    }
}
