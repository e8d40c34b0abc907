//! Colour and contrast (WCAG): computed CSS colours parsed and composited, relative luminance,
//! contrast ratios, and the low-contrast finder that judges text against the solid colours
//! behind it.

use serde_json::json;

use super::{IssueKind, MAX_PER_FINDER, Page, PageIssue, Severity, measured, round2};

/// Contrast ratio normal text needs (WCAG AA).
pub const MIN_CONTRAST: f64 = 4.5;
/// Contrast ratio large text needs (WCAG AA: ≥ 24 px, or ≥ 18.66 px bold).
pub const MIN_CONTRAST_LARGE: f64 = 3.0;

impl Page<'_> {
    /// Text whose colour against the solid colours behind it is under the WCAG AA ratio. Text
    /// over a background image or other painted content is skipped (its contrast is not a matter
    /// of two colours), and so is disabled controls' text (WCAG 1.4.3 exempts it).
    pub(super) fn low_contrast(&self) -> Vec<PageIssue> {
        let mut issues = Vec::new();
        for (i, d) in self.details() {
            if !d.own_text
                || d.text_rects.is_empty()
                || d.backdrop_unknown
                || d.disabled
                || d.opacity <= 0.0
                || self.invisible(i)
                || self.visible_rects(i, d).is_empty()
            {
                continue;
            }
            let Some(text) = parse_color(self.style(i, "color")) else { continue };
            let Some(backdrop) = backdrop(&d.backgrounds) else { continue };
            let text = Rgba { a: text.a * d.opacity.clamp(0.0, 1.0), ..text }.over(backdrop);
            let ratio = contrast_ratio(text, backdrop);
            let size = css_px(self.style(i, "font-size")).unwrap_or(16.0);
            let weight = self.style(i, "font-weight").parse::<f64>().unwrap_or(400.0);
            let large = size >= 24.0 || (size >= 18.66 && weight >= 700.0);
            let needed = if large { MIN_CONTRAST_LARGE } else { MIN_CONTRAST };
            if ratio >= needed {
                continue;
            }
            let selector = self.selector(i);
            let ratio = round2(ratio);
            issues.push(PageIssue {
                kind: IssueKind::LowContrast,
                severity: if ratio < MIN_CONTRAST_LARGE { Severity::Error } else { Severity::Warning },
                selector: Some(selector.clone()),
                bounds: Some(self.bounds(i)),
                message: format!(
                    "Text of {selector} has contrast {ratio}:1 ({} on {}), below the {needed}:1 WCAG AA needs for {} text.",
                    text.css(),
                    backdrop.css(),
                    if large { "large" } else { "normal" }
                ),
                measured: measured(&[
                    ("ratio", json!(ratio)),
                    ("required", json!(needed)),
                    ("color", json!(text.css())),
                    ("background", json!(backdrop.css())),
                    ("fontSizePx", json!(size)),
                    ("fontWeight", json!(weight)),
                ]),
            });
            if issues.len() >= MAX_PER_FINDER {
                break;
            }
        }
        issues
    }
}

fn css_px(value: &str) -> Option<f64> {
    value.strip_suffix("px")?.trim().parse().ok()
}

/// A colour with straight (not premultiplied) alpha, channels 0–255, alpha 0–1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rgba {
    pub r: f64,
    pub g: f64,
    pub b: f64,
    pub a: f64,
}

impl Rgba {
    /// `self` composited over an opaque `below`.
    pub fn over(self, below: Rgba) -> Rgba {
        let mix = |top: f64, bottom: f64| top * self.a + bottom * (1.0 - self.a);
        Rgba { r: mix(self.r, below.r), g: mix(self.g, below.g), b: mix(self.b, below.b), a: 1.0 }
    }

    fn css(self) -> String {
        format!("rgb({}, {}, {})", self.r.round(), self.g.round(), self.b.round())
    }

    /// WCAG relative luminance.
    pub fn luminance(self) -> f64 {
        let channel = |c: f64| {
            let s = c / 255.0;
            if s <= 0.04045 { s / 12.92 } else { ((s + 0.055) / 1.055).powf(2.4) }
        };
        0.2126 * channel(self.r) + 0.7152 * channel(self.g) + 0.0722 * channel(self.b)
    }
}

/// Parses a computed colour: `rgb(r, g, b)`, `rgba(r, g, b, a)` and the space-separated
/// `rgb(r g b / a)`. Other notations (`color(…)`, `oklch(…)`) give None: not judged.
pub fn parse_color(value: &str) -> Option<Rgba> {
    let inner = value.trim().strip_prefix("rgba(").or_else(|| value.trim().strip_prefix("rgb("))?.strip_suffix(')')?;
    let parts: Vec<&str> = inner.split([',', '/', ' ']).map(str::trim).filter(|p| !p.is_empty()).collect();
    let number = |p: &str| -> Option<f64> {
        match p.strip_suffix('%') {
            Some(pct) => pct.parse::<f64>().ok().map(|v| v / 100.0),
            None => p.parse().ok(),
        }
    };
    let (r, g, b) = (number(parts.first()?)?, number(parts.get(1)?)?, number(parts.get(2)?)?);
    let a = match parts.get(3) {
        Some(p) => number(p)?,
        None => 1.0,
    };
    (parts.len() <= 4).then_some(Rgba { r, g, b, a: a.clamp(0.0, 1.0) })
}

/// The opaque colour behind text: the listed backgrounds (element first, up to the first
/// opaque one) composited bottom-up over the white canvas. None when one is unparsable.
pub fn backdrop(backgrounds: &[String]) -> Option<Rgba> {
    let mut colour = Rgba { r: 255.0, g: 255.0, b: 255.0, a: 1.0 };
    for layer in backgrounds.iter().rev() {
        colour = parse_color(layer)?.over(colour);
    }
    Some(colour)
}

/// WCAG contrast ratio of two opaque colours (1 to 21).
pub fn contrast_ratio(a: Rgba, b: Rgba) -> f64 {
    let (la, lb) = (a.luminance(), b.luminance());
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_facts::{detail, element, facts, kinds};
    use super::super::*;
    use super::*;

    #[test]
    fn page_check_contrast_uses_wcag_ratios() {
        let white = Rgba { r: 255.0, g: 255.0, b: 255.0, a: 1.0 };
        let grey = parse_color("rgb(200, 200, 200)").unwrap();
        assert_eq!(round2(contrast_ratio(grey, white)), 1.67);
        let black = parse_color("rgba(0, 0, 0, 1)").unwrap();
        assert_eq!(round2(contrast_ratio(black, white)), 21.0);
        assert_eq!(parse_color("rgb(0 0 0 / 0.5)").unwrap().a, 0.5);
        assert_eq!(parse_color("oklch(0.5 0.1 20)"), None);
        // half-transparent black over white is mid grey
        let mid = backdrop(&["rgba(0, 0, 0, 0.5)".into(), "rgb(255, 255, 255)".into()]).unwrap();
        assert_eq!(mid.r.round(), 128.0);

        let f = facts(
            1280.0,
            (1280.0, 800.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 1280.0, 400.0], false, &[]),
                element(0, "p", "#faint", [16.0, 0.0, 300.0, 24.0], true, &[("color", "rgb(200, 200, 200)")]),
                element(
                    0,
                    "h1",
                    "#big",
                    [16.0, 30.0, 300.0, 40.0],
                    true,
                    &[("color", "rgb(118, 118, 118)"), ("font-size", "32px")],
                ),
                element(0, "p", "#small", [16.0, 80.0, 300.0, 24.0], true, &[("color", "rgb(130, 130, 130)")]),
                element(0, "button", "#off", [16.0, 110.0, 100.0, 24.0], true, &[("color", "rgb(200, 200, 200)")]),
                element(0, "h2", "#hero", [16.0, 140.0, 300.0, 24.0], true, &[("color", "rgb(255, 255, 255)")]),
            ],
            &json!({"elements": [
                detail("#faint", &[[16.0, 2.0, 200.0, 19.0]]),
                detail("#big", &[[16.0, 32.0, 200.0, 36.0]]),
                detail("#small", &[[16.0, 82.0, 200.0, 19.0]]),
                {"selector": "#off", "ownText": true, "textRects": [[20.0, 112.0, 50.0, 19.0]], "backgrounds": ["rgb(255, 255, 255)"], "opacity": 1, "disabled": true},
                // white text over a picture: the ancestors' white is not what is behind it
                {"selector": "#hero", "ownText": true, "textRects": [[16.0, 142.0, 200.0, 19.0]], "backgrounds": ["rgb(255, 255, 255)"], "opacity": 1, "backdropUnknown": true},
            ]})
            .to_string(),
        );
        let check = check_page(&f, ViewportKind::Desktop);
        // #big is 4.54:1 (large text needs 3), #small 3.84:1 (a warning), #faint 1.67:1 (an error)
        assert_eq!(
            kinds(&check),
            vec![(IssueKind::LowContrast, Some("#faint")), (IssueKind::LowContrast, Some("#small"))]
        );
        assert_eq!(check.issues[0].severity, Severity::Error);
        assert_eq!(check.issues[1].severity, Severity::Warning);
    }
}
