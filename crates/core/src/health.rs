//! Capture health: whether the page rendered with all its assets. Failed web fonts, stylesheets
//! and images change pixels in ways no tolerance should absorb, and a request the page was still
//! waiting for when it was shot (its data, a script) leaves it half rendered, so an unhealthy
//! capture is never noise and never auto-passed (02-results.md, captureHealth).

use serde::{Deserialize, Serialize};

use crate::dom::{DomSnapshot, FontRecord, FontStatus};

/// What kind of asset failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AssetKind {
    Font,
    Stylesheet,
    Image,
    /// A request of the page's own work: `fetch`, XHR, a script.
    Request,
}

impl crate::words::Word for AssetKind {}

/// One asset that failed to load or decode, or a request still pending when the page was shot.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct HealthReason {
    pub kind: AssetKind,
    /// The asset's URL, or the font family when only that is known.
    pub url: String,
    /// What went wrong: `HTTP 404`, `request failed: net::ERR_…`, `decode failed`, or a predicate
    /// that names its kind first (`font failed to load (FontFace status error)`). For a pending
    /// request, its method when it is not `GET`.
    pub detail: String,
    /// The request had not finished after the call waited this long for it (its timeout), in ms:
    /// the page was shot before its own work was done.
    #[serde(rename = "pendingMs", default, skip_serializing_if = "Option::is_none")]
    pub pending_ms: Option<u64>,
}

/// A [`HealthReason`]'s sentence in pieces, so a renderer can style the asset (the HTML report
/// sets it in `<code>`) without rewording it: `kind`, a space, `asset`, then `rest`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReasonSentence {
    /// The asset kind: `font`.
    pub kind: &'static str,
    /// The URL as captured, or a font family in double quotes: `"Brand Sans"`.
    pub asset: String,
    /// What went wrong: `: HTTP 404`, or ` failed to load (FontFace status error)` when the detail
    /// starts with the kind (the DOM's own findings read as a predicate of the asset).
    pub rest: String,
}

impl HealthReason {
    /// An asset that failed: `detail` says how.
    pub fn failed(kind: AssetKind, url: impl Into<String>, detail: impl Into<String>) -> Self {
        Self { kind, url: url.into(), detail: detail.into(), pending_ms: None }
    }

    /// A request (`method`, `url`) still pending after the call waited `waited_ms` for it.
    pub fn pending(kind: AssetKind, url: impl Into<String>, method: &str, waited_ms: u64) -> Self {
        let detail = if method.eq_ignore_ascii_case("GET") { String::new() } else { method.to_ascii_uppercase() };
        Self { kind, url: url.into(), detail, pending_ms: Some(waited_ms) }
    }

    /// The one sentence every front-end shows for this failure (the HTML report, the MCP
    /// guidance), e.g. `image http://x/logo.png: HTTP 404`,
    /// `font "Brand" failed to load (FontFace status error)`,
    /// `request http://x/petstore.json still pending after 5000 ms`.
    pub fn sentence(&self) -> ReasonSentence {
        let kind = crate::words::Word::word(self.kind);
        let asset = if has_scheme(&self.url) { self.url.clone() } else { format!("\"{}\"", self.url) };
        let detail = self.detail.trim();
        if let Some(ms) = self.pending_ms {
            let method = if detail.is_empty() { String::new() } else { format!(" ({detail})") };
            return ReasonSentence { kind, asset, rest: format!(" still pending after {ms} ms{method}") };
        }
        let rest = match detail.strip_prefix(kind).and_then(|d| d.strip_prefix(' ')) {
            Some(predicate) => format!(" {predicate}"),
            None if detail.is_empty() => " failed to load".into(),
            None => format!(": {detail}"),
        };
        ReasonSentence { kind, asset, rest }
    }
}

impl std::fmt::Display for HealthReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.sentence();
        write!(f, "{} {}{}", s.kind, s.asset, s.rest)
    }
}

/// Whether `s` starts with a URL scheme (`http:`, `data:`, `blob:`; RFC 3986's letter, then
/// letters, digits, `+`, `-`, `.`): a URL rather than a font family.
fn has_scheme(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once(':') else { return false };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// The capture's health, compared with the baseline's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    let fonts = dom
        .fonts
        .iter()
        .filter(|f| f.status == FontStatus::Error)
        .map(|f| HealthReason::failed(AssetKind::Font, &f.family, "font failed to load (FontFace status error)"));
    let images = dom
        .broken_images
        .iter()
        .map(|url| HealthReason::failed(AssetKind::Image, url, "image did not render (naturalWidth 0)"));
    fonts.chain(images).collect()
}

/// One reason per failed asset, as a person counts them. A font or stylesheet that failed is
/// seen several times: its HTTP status, then the request the browser aborted for it, and for a
/// font the `FontFace` that failed to load. The most telling of one asset's reasons stays (an
/// HTTP status, then a decode failure, then a failed request, then what the DOM shows), and a
/// failed face whose `@font-face` sources (`fonts`) failed on the network is said by them.
pub fn one_per_asset(reasons: Vec<HealthReason>, fonts: &[FontRecord]) -> Vec<HealthReason> {
    let failed_urls: Vec<&str> =
        reasons.iter().filter(|r| r.kind == AssetKind::Font && has_scheme(&r.url)).map(|r| r.url.as_str()).collect();
    let said_by_network = |reason: &HealthReason| {
        reason.kind == AssetKind::Font
            && !has_scheme(&reason.url)
            && fonts.iter().any(|f| {
                f.family.eq_ignore_ascii_case(&reason.url)
                    && f.sources.iter().any(|s| failed_urls.contains(&s.as_str()))
            })
    };
    let left: Vec<HealthReason> = reasons.iter().filter(|r| !said_by_network(r)).cloned().collect();
    most_telling_each(left, |a, b| a.kind == b.kind && a.url == b.url, |r| r.detail.clone())
}

/// One of each asset among `failures` (`same` tells two of one asset apart from the rest): the
/// one whose `detail` is the most [telling](telling), in the order the assets were first seen.
/// The rule capture health and the live page check count failed assets by.
pub(crate) fn most_telling_each<T>(
    failures: Vec<T>,
    same: impl Fn(&T, &T) -> bool,
    detail: impl Fn(&T) -> String,
) -> Vec<T> {
    let mut kept: Vec<T> = Vec::new();
    for failure in failures {
        match kept.iter_mut().find(|k| same(k, &failure)) {
            Some(k) if telling(&detail(&failure)) < telling(&detail(k)) => *k = failure,
            Some(_) => {}
            None => kept.push(failure),
        }
    }
    kept
}

/// How much a failure's detail tells, most first: the server's answer, the browser's decoder,
/// the network, then anything else.
fn telling(detail: &str) -> u8 {
    if detail.starts_with("HTTP ") {
        0
    } else if detail == "decode failed" {
        1
    } else if detail.starts_with("request failed") {
        2
    } else {
        3
    }
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
        HealthReason::failed(kind, url, "HTTP 404")
    }

    #[test]
    fn health_one_reason_per_failed_asset() {
        let said = |kind, url: &str, detail: &str| HealthReason::failed(kind, url, detail);
        let woff = "http://x/fonts/brand.woff2";
        let css = "http://x/site.css";
        let fonts = [
            FontRecord { family: "Brand".into(), status: FontStatus::Error, sources: vec![woff.into()] },
            FontRecord {
                family: "Other".into(),
                status: FontStatus::Error,
                sources: vec!["http://x/other.woff2".into()],
            },
        ];
        let reasons = vec![
            said(AssetKind::Font, "Brand", "font failed to load (FontFace status error)"),
            said(AssetKind::Font, woff, "request failed: net::ERR_ABORTED"),
            said(AssetKind::Font, woff, "HTTP 404"),
            said(AssetKind::Stylesheet, css, "HTTP 500"),
            said(AssetKind::Stylesheet, css, "request failed: net::ERR_ABORTED"),
            // A face whose source did not fail on the network is the DOM's finding alone.
            said(AssetKind::Font, "Other", "font failed to load (FontFace status error)"),
        ];
        assert_eq!(
            one_per_asset(reasons, &fonts),
            [
                said(AssetKind::Font, woff, "HTTP 404"),
                said(AssetKind::Stylesheet, css, "HTTP 500"),
                said(AssetKind::Font, "Other", "font failed to load (FontFace status error)"),
            ]
        );
        // Without the face's sources the DOM's finding stays beside the network's.
        let alone = one_per_asset(
            vec![
                said(AssetKind::Font, "Brand", "font failed to load (FontFace status error)"),
                said(AssetKind::Font, woff, "decode failed"),
            ],
            &[],
        );
        assert_eq!(alone.len(), 2);
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

    #[test]
    fn health_reason_sentence_names_the_asset_and_what_went_wrong() {
        let said = |kind, url: &str, detail: &str| HealthReason::failed(kind, url, detail).to_string();
        // The failures the fixture's network and font listeners report, one per kind.
        assert_eq!(
            said(AssetKind::Font, "http://127.0.0.1:9/fonts/brand.woff2", "HTTP 404"),
            "font http://127.0.0.1:9/fonts/brand.woff2: HTTP 404"
        );
        assert_eq!(
            said(AssetKind::Stylesheet, "http://x/site.css", "request failed: net::ERR_ABORTED"),
            "stylesheet http://x/site.css: request failed: net::ERR_ABORTED"
        );
        assert_eq!(said(AssetKind::Image, "http://x/logo.png", "HTTP 404"), "image http://x/logo.png: HTTP 404");
        assert_eq!(
            said(AssetKind::Font, "data:font/woff2;base64,AAAA", "decode failed"),
            "font data:font/woff2;base64,AAAA: decode failed"
        );
        assert_eq!(said(AssetKind::Image, "http://x/a.png", " "), "image http://x/a.png failed to load");
        // The DOM's own findings: the family (quoted, it is no URL) and the image, as predicates.
        let dom = crate::dom::parse_dom(
            &serde_json::json!({
                "version": 1, "url": "http://x/", "viewport": { "width": 10, "height": 10 },
                "devicePixelRatio": 1, "document": { "width": 10, "height": 10 },
                "styleProperties": [], "elements": [],
                "fonts": [{ "family": "Brand Sans", "status": "error" }, { "family": "Inter", "status": "loaded" }],
                "brokenImages": ["http://x/logo.png"]
            })
            .to_string(),
        )
        .unwrap();
        let sentences: Vec<String> = reasons_from_dom(&dom).iter().map(ToString::to_string).collect();
        assert_eq!(
            sentences,
            [
                "font \"Brand Sans\" failed to load (FontFace status error)",
                "image http://x/logo.png did not render (naturalWidth 0)"
            ]
        );
        // The pieces are the sentence: the report styles the asset, it does not reword.
        let s = HealthReason::failed(AssetKind::Font, "Brand", "HTTP 404").sentence();
        assert_eq!((s.kind, s.asset.as_str(), s.rest.as_str()), ("font", "\"Brand\"", ": HTTP 404"));
        // A request the page still waited for when it was shot: its method only when not GET.
        assert_eq!(
            HealthReason::pending(AssetKind::Request, "http://x/petstore.json", "GET", 5000).to_string(),
            "request http://x/petstore.json still pending after 5000 ms"
        );
        assert_eq!(
            HealthReason::pending(AssetKind::Request, "http://x/api/search", "post", 800).to_string(),
            "request http://x/api/search still pending after 800 ms (POST)"
        );
        assert_eq!(
            HealthReason::pending(AssetKind::Stylesheet, "http://x/site.css", "GET", 5000).to_string(),
            "stylesheet http://x/site.css still pending after 5000 ms"
        );
    }
}
