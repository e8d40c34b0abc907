//! The console finder: console errors and uncaught exceptions, without the browser's own
//! "Failed to load resource" lines that another finder already explains.

use std::collections::HashSet;

use serde_json::json;

use super::{IssueKind, MAX_PER_FINDER, Page, PageIssue, Severity, measured};

impl Page<'_> {
    /// Console errors and uncaught exceptions, except the browser's own "Failed to load resource"
    /// lines for requests another finder already reports, and for the favicon the browser asks
    /// for by itself (the page did not request it; a missing one shows no broken pixel).
    pub(super) fn console_errors(&self) -> Vec<PageIssue> {
        let failed: HashSet<&str> = self.facts.failed_requests.iter().map(|r| r.url.as_str()).collect();
        self.facts
            .console
            .iter()
            .filter(|c| c.is_error())
            .filter(|c| {
                let resource = c.text.starts_with("Failed to load resource");
                !(resource
                    && c.location.as_ref().is_some_and(|l| failed.contains(l.url.as_str()) || is_favicon(&l.url)))
            })
            .take(MAX_PER_FINDER)
            .map(|c| {
                let at =
                    c.location.as_ref().map(|l| format!(" at {}:{}:{}", l.url, l.line, l.column)).unwrap_or_default();
                let what = if c.level == "pageerror" { "Uncaught exception" } else { "Console error" };
                PageIssue {
                    kind: IssueKind::ConsoleError,
                    severity: Severity::Error,
                    selector: None,
                    bounds: None,
                    message: format!("{what}{at}: {}", c.text),
                    measured: measured(&[("level", json!(c.level)), ("location", json!(c.location))]),
                }
            })
            .collect()
    }
}

/// The browser's automatic `/favicon.ico` request.
fn is_favicon(url: &str) -> bool {
    url.split(['?', '#']).next().is_some_and(|u| u.ends_with("/favicon.ico"))
}
