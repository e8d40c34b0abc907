//! The failed-asset finders: `<img>` elements without pixels and failed image requests
//! (`broken-image`), web fonts whose face failed (`failed-font`) and stylesheets that did not load
//! (`failed-stylesheet`), each with the failed request's reason when one explains it.

use std::collections::HashSet;

use serde_json::json;

use super::{FailedRequest, IssueKind, MAX_PER_FINDER, Page, PageIssue, Severity, measured, plural};
use crate::dom::FontStatus;

impl Page<'_> {
    /// `<img>` elements that finished loading without pixels, and failed image requests no
    /// `<img>` accounts for (CSS backgrounds).
    pub(super) fn broken_images(&self) -> Vec<PageIssue> {
        let mut issues = Vec::new();
        let mut named = HashSet::new();
        for (i, d) in self.details() {
            let Some(img) = &d.image else { continue };
            if !img.complete || img.natural_width > 0.0 || img.src.is_empty() {
                continue;
            }
            named.insert(img.src.as_str());
            let selector = self.selector(i);
            let why = self
                .facts
                .failed_requests
                .iter()
                .find(|r| r.url == img.src)
                .map(|r| format!(" ({})", r.reason()))
                .unwrap_or_default();
            issues.push(PageIssue {
                kind: IssueKind::BrokenImage,
                severity: Severity::Error,
                selector: Some(selector.clone()),
                bounds: Some(self.bounds(i)),
                message: format!("Image {selector} did not load: {}{why}.", img.src),
                measured: measured(&[("src", json!(img.src)), ("naturalWidth", json!(img.natural_width))]),
            });
        }
        for r in &self.facts.failed_requests {
            if r.resource_type == "image" && !named.contains(r.url.as_str()) {
                named.insert(r.url.as_str());
                issues.push(PageIssue {
                    kind: IssueKind::BrokenImage,
                    severity: Severity::Warning,
                    selector: None,
                    bounds: None,
                    message: format!(
                        "An image request failed ({}): {} (a CSS background or preload).",
                        r.reason(),
                        r.url
                    ),
                    measured: measured(&[("url", json!(r.url)), ("status", json!(r.status))]),
                });
            }
        }
        issues.truncate(MAX_PER_FINDER);
        issues
    }

    /// Web fonts whose face failed (named by the first element using the family) and stylesheets
    /// that failed to load (named by their `<link>`), plus failed font requests of no known face.
    pub(super) fn failed_fonts_and_stylesheets(&self) -> Vec<PageIssue> {
        let facts = self.facts;
        let mut issues = Vec::new();
        let mut explained: HashSet<&str> = HashSet::new();
        let mut families_done = HashSet::new();
        for font in facts.dom.fonts.iter().filter(|f| f.status == FontStatus::Error) {
            let family = font.family.to_lowercase();
            if !families_done.insert(family.clone()) {
                continue;
            }
            // The face's `@font-face` sources, as the DOM record keeps them for a failed face.
            let urls: Vec<&str> = facts
                .dom
                .fonts
                .iter()
                .filter(|f| f.family.to_lowercase() == family)
                .flat_map(|f| f.sources.iter().map(String::as_str))
                .collect();
            let failed: Vec<&FailedRequest> =
                facts.failed_requests.iter().filter(|r| urls.contains(&r.url.as_str())).collect();
            explained.extend(failed.iter().map(|r| r.url.as_str()));
            let users: Vec<usize> = (0..facts.dom.elements.len())
                .filter(|&i| {
                    let e = &facts.dom.elements[i];
                    !e.is_excluded()
                        && e.text.is_some()
                        && self.style(i, "font-family").split(',').any(|n| unquote(n).to_lowercase() == family)
                })
                .collect();
            let why = failed.iter().map(|r| format!("{} ({})", r.url, r.reason())).collect::<Vec<_>>().join(", ");
            let first = users.first().copied();
            issues.push(PageIssue {
                kind: IssueKind::FailedFont,
                severity: Severity::Error,
                selector: first.map(|i| self.selector(i)),
                bounds: first.map(|i| self.bounds(i)),
                message: format!(
                    "Web font \"{}\" failed to load{}; {} element{} with text fall back to another font{}.",
                    font.family,
                    if why.is_empty() { String::new() } else { format!(": {why}") },
                    users.len(),
                    plural(users.len()),
                    first.map(|i| format!(", first {}", self.selector(i))).unwrap_or_default()
                ),
                measured: measured(&[
                    ("family", json!(font.family)),
                    ("elementsUsingIt", json!(users.len())),
                    ("failedUrls", json!(failed.iter().map(|r| r.url.as_str()).collect::<Vec<_>>())),
                ]),
            });
        }
        for r in &facts.failed_requests {
            match r.resource_type.as_str() {
                "stylesheet" => {
                    let link = facts.details.stylesheets.iter().find(|l| l.href == r.url);
                    issues.push(PageIssue {
                        kind: IssueKind::FailedStylesheet,
                        severity: Severity::Error,
                        selector: link.and_then(|l| l.selector.clone()),
                        bounds: None,
                        message: format!(
                            "Stylesheet {} failed to load ({}): its rules are missing.",
                            r.url,
                            r.reason()
                        ),
                        measured: measured(&[("url", json!(r.url)), ("status", json!(r.status))]),
                    });
                }
                "font" if !explained.contains(r.url.as_str()) => issues.push(PageIssue {
                    kind: IssueKind::FailedFont,
                    severity: Severity::Warning,
                    selector: None,
                    bounds: None,
                    message: format!("A font request failed ({}): {}.", r.reason(), r.url),
                    measured: measured(&[("url", json!(r.url)), ("status", json!(r.status))]),
                }),
                _ => {}
            }
        }
        issues.truncate(MAX_PER_FINDER);
        issues
    }
}

fn unquote(name: &str) -> &str {
    name.trim().trim_matches(|c| c == '"' || c == '\'')
}
