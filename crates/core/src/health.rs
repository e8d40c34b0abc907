//! Capture health: whether the page rendered with all its assets. Failed web fonts, stylesheets
//! and images change pixels in ways no tolerance should absorb, so an unhealthy capture is never
//! noise and never auto-passed (02-results.md, captureHealth).

use serde::{Deserialize, Serialize};

use crate::dom::{DomSnapshot, FontStatus};

/// What kind of asset failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AssetKind {
    Font,
    Stylesheet,
    Image,
}

/// One asset that failed to load or decode.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct HealthReason {
    pub kind: AssetKind,
    /// The asset's URL, or the font family when only that is known.
    pub url: String,
    /// What went wrong: `HTTP 404`, `request failed: net::ERR_…`, `decode failed`, `status error`.
    pub detail: String,
}

/// The capture's health, compared with the baseline's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureHealth {
    /// Some asset failed in the current capture.
    pub unhealthy: bool,
    /// The failures, sorted and without duplicates.
    pub reasons: Vec<HealthReason>,
    /// The baseline failed the same way: tolerances still apply, the failure is still reported.
    pub same_on_both_sides: bool,
}

/// Failures the DOM record itself shows: web fonts with status `error`, broken `<img>`s.
pub fn reasons_from_dom(dom: &DomSnapshot) -> Vec<HealthReason> {
    let fonts = dom.fonts.iter().filter(|f| f.status == FontStatus::Error).map(|f| HealthReason {
        kind: AssetKind::Font,
        url: f.family.clone(),
        detail: "font failed to load (FontFace status error)".into(),
    });
    let images = dom.broken_images.iter().map(|url| HealthReason {
        kind: AssetKind::Image,
        url: url.clone(),
        detail: "image did not render (naturalWidth 0)".into(),
    });
    fonts.chain(images).collect()
}

/// Health of the current capture from the failures seen while capturing (network and console
/// events plus the DOM's own), against the baseline's.
pub fn capture_health(current: Vec<HealthReason>, baseline: &[HealthReason]) -> CaptureHealth {
    let mut reasons = current;
    reasons.sort();
    reasons.dedup();
    let mut baseline = baseline.to_vec();
    baseline.sort();
    baseline.dedup();
    let unhealthy = !reasons.is_empty();
    CaptureHealth { unhealthy, same_on_both_sides: unhealthy && reasons == baseline, reasons }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(kind: AssetKind, url: &str) -> HealthReason {
        HealthReason { kind, url: url.into(), detail: "HTTP 404".into() }
    }

    #[test]
    fn health_same_failure_on_both_sides_is_flagged() {
        let font = reason(AssetKind::Font, "http://x/inter.woff2");
        let h = capture_health(vec![font.clone(), font.clone()], std::slice::from_ref(&font));
        assert!(h.unhealthy && h.same_on_both_sides);
        assert_eq!(h.reasons.len(), 1, "duplicates collapse");
        let h = capture_health(vec![font], &[]);
        assert!(h.unhealthy && !h.same_on_both_sides);
        assert_eq!(capture_health(vec![], &[]), CaptureHealth::default());
    }
}
