//! The overall score: presets and explicit weights, renormalised over the dimensions that were
//! scored, combined as a weighted geometric mean with every score floored at 1 (so one zero
//! drags the result down hard without making it undefined).

use serde::{Deserialize, Serialize};

use super::Dimension;
use crate::error::{Error, Result};

/// A named set of weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// layout .35, color .20, content .15, typography .15, spacing .15.
    #[default]
    Default,
    /// For dark interfaces, where block segmentation and margins are unreliable:
    /// layout .60, typography .30, color .10.
    DarkUi,
}

impl Preset {
    /// The preset's weights.
    pub fn weights(self) -> DimensionWeights {
        match self {
            Preset::Default => {
                DimensionWeights { layout: 0.35, color: 0.20, content: 0.15, typography: 0.15, spacing: 0.15 }
            }
            Preset::DarkUi => {
                DimensionWeights { layout: 0.60, color: 0.10, content: 0.0, typography: 0.30, spacing: 0.0 }
            }
        }
    }
}

/// One weight per dimension. Explicit weights replace the preset entirely; a dimension left out
/// weighs 0 (still measured and reported, not part of the overall score).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct DimensionWeights {
    /// Weight of layout (SSIM).
    pub layout: f64,
    /// Weight of color (palette distance).
    pub color: f64,
    /// Weight of content (matched blocks).
    pub content: f64,
    /// Weight of typography (text lines).
    pub typography: f64,
    /// Weight of spacing (margins and rhythm).
    pub spacing: f64,
}

impl DimensionWeights {
    pub(crate) fn as_array(&self) -> [f64; 5] {
        [self.layout, self.color, self.content, self.typography, self.spacing]
    }

    pub(crate) fn from_array(w: [f64; 5]) -> Self {
        Self { layout: w[0], color: w[1], content: w[2], typography: w[3], spacing: w[4] }
    }
}

/// Weights given for some dimensions: each one named replaces the preset's weight for that
/// dimension, the others keep the preset's. 0 leaves a dimension out of `overall` (it is still
/// measured and reported).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct WeightOverrides {
    /// Weight of layout (SSIM).
    pub layout: Option<f64>,
    /// Weight of color (palette distance).
    pub color: Option<f64>,
    /// Weight of content (matched blocks).
    pub content: Option<f64>,
    /// Weight of typography (text lines).
    pub typography: Option<f64>,
    /// Weight of spacing (margins and rhythm).
    pub spacing: Option<f64>,
}

impl WeightOverrides {
    fn as_array(&self) -> [Option<f64>; 5] {
        [self.layout, self.color, self.content, self.typography, self.spacing]
    }

    /// The dimensions given a weight, in weight order.
    pub fn named(&self) -> Vec<&'static str> {
        Dimension::ALL
            .map(Dimension::name)
            .into_iter()
            .zip(self.as_array())
            .filter(|(_, w)| w.is_some())
            .map(|(n, _)| n)
            .collect()
    }

    /// The given weights over `base`: each finite and ≥ 0, and at least one of the result above 0.
    pub fn over(&self, base: DimensionWeights) -> Result<DimensionWeights> {
        let names = Dimension::ALL.map(Dimension::name);
        let given = self.as_array();
        for (name, w) in names.iter().zip(given) {
            if let Some(w) = w
                && (!w.is_finite() || w < 0.0)
            {
                return Err(Error::InvalidInput(format!(
                    "weights: {name} is {w}; each weight must be a number ≥ 0 (0 leaves the dimension out of overall)"
                )));
            }
        }
        let base = base.as_array();
        let resolved: [f64; 5] = std::array::from_fn(|i| given[i].unwrap_or(base[i]));
        if resolved.iter().sum::<f64>() <= 0.0 {
            return Err(Error::InvalidInput(
                "weights: every dimension weighs 0, so nothing counts towards overall; give at least one weight above 0, e.g. layout 0.5"
                    .into(),
            ));
        }
        Ok(DimensionWeights::from_array(resolved))
    }
}

/// Weights renormalised over the dimensions with a score (`None` dimensions get 0), and the
/// weighted geometric mean of their scores floored at 1; `None` when no weighted dimension has
/// a score.
pub(crate) fn combine(weights: &DimensionWeights, scores: [Option<f64>; 5]) -> (Option<f64>, DimensionWeights) {
    let w = weights.as_array();
    let used: [f64; 5] = std::array::from_fn(|i| if scores[i].is_some() { w[i] } else { 0.0 });
    let total: f64 = used.iter().sum();
    if total <= 0.0 {
        return (None, DimensionWeights::from_array([0.0; 5]));
    }
    let normalised = used.map(|v| v / total);
    let log_mean: f64 = (0..5).map(|i| normalised[i] * scores[i].map_or(0.0, |s| s.max(1.0).ln())).sum();
    (Some(log_mean.exp()), DimensionWeights::from_array(normalised))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_identical_dimensions_give_their_score() {
        let (overall, w) = combine(&Preset::Default.weights(), [Some(100.0); 5]);
        assert!((overall.unwrap() - 100.0).abs() < 1e-9);
        assert!((w.as_array().iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn score_renormalises_over_scored_dimensions_and_floors_at_one() {
        // Typography and spacing not applicable: layout .35, color .2, content .15 → /0.7.
        let (overall, w) = combine(&Preset::Default.weights(), [Some(100.0), Some(0.0), Some(100.0), None, None]);
        assert!((w.layout - 0.5).abs() < 1e-12 && (w.color - 0.2 / 0.7).abs() < 1e-12 && w.typography == 0.0);
        // 0 is floored to 1: exp(ln(100)·(0.5 + 0.15/0.7) + ln(1)·0.2/0.7).
        let expected = (100f64.ln() * (0.5 + 0.15 / 0.7)).exp();
        assert!((overall.unwrap() - expected).abs() < 1e-9, "{overall:?} vs {expected}");
    }

    #[test]
    fn score_dark_ui_ignores_content_and_spacing() {
        let (overall, w) =
            combine(&Preset::DarkUi.weights(), [Some(80.0), Some(80.0), Some(1.0), Some(80.0), Some(1.0)]);
        assert!((overall.unwrap() - 80.0).abs() < 1e-9);
        assert_eq!((w.content, w.spacing), (0.0, 0.0));
    }

    #[test]
    fn score_given_weights_replace_only_their_dimensions() {
        let base = Preset::Default.weights();
        let colour = WeightOverrides { color: Some(2.0), ..Default::default() }.over(base).unwrap();
        assert_eq!(colour, DimensionWeights { color: 2.0, ..base });
        let without_spacing = WeightOverrides { spacing: Some(0.0), ..Default::default() }.over(base).unwrap();
        assert_eq!(without_spacing.spacing, 0.0);
        assert_eq!(WeightOverrides::default().over(base).unwrap(), base);
        let negative = WeightOverrides { layout: Some(-1.0), ..Default::default() }.over(base).unwrap_err();
        assert!(negative.to_string().contains("layout is -1"), "{negative}");
        let zero = WeightOverrides { layout: Some(0.0), color: Some(0.0), typography: Some(0.0), ..Default::default() };
        assert!(zero.over(Preset::DarkUi.weights()).unwrap_err().to_string().contains("every dimension weighs 0"));
    }
}
