//! Live pages (spec 05-live-pages): the worker supervisor, the calls both front-ends make
//! (`visual_check` for the MCP tool and for `sightline check`), URL checks and where screenshots
//! go. Judging is in `sightline_core::page_check` and `sightline_core::live`.

pub mod worker;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use sightline_core::page_check::{
    CHECK_STYLE_PROPERTIES, PageCheck, PageFacts, PromptReading, PromptScope, ViewportKind, check_page, one_per_url,
    read_prompt,
};
use sightline_core::worker_protocol::{CheckParams, ViewportSize};

use crate::exit;
pub use worker::Worker;

/// How long one page call may take (navigation, collection, screenshot) besides any wait the
/// caller asked for: `SIGHTLINE_LIVE_TIMEOUT_MS`, else 30 s.
pub fn call_timeout() -> Duration {
    std::env::var("SIGHTLINE_LIVE_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&ms| ms > 0)
        .map_or(Duration::from_secs(30), Duration::from_millis)
}

/// Checks a URL before it goes to the browser: http and https, and `file://` only when
/// `SIGHTLINE_ALLOWED_ROOTS` is set and the file lies inside one of its folders (the core's
/// check, the same every file-reading tool uses; the worker checks again).
pub fn check_url(url: &str) -> Result<(), String> {
    let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    match scheme.as_deref() {
        Some("http" | "https") if url.len() > "http://".len() => Ok(()),
        Some("file") if std::env::var_os("SIGHTLINE_ALLOWED_ROOTS").is_some() => {
            let path = file_url_path(url).ok_or_else(|| format!("url: {url:?} is not a file:///absolute/path URL"))?;
            sightline_core::allowed_roots::check_allowed(&path).map(|_| ()).map_err(|e| format!("url: {e}"))
        }
        Some("file") => Err(format!(
            "url: file:// pages open only inside the folders SIGHTLINE_ALLOWED_ROOTS lists, and it is not set: {url}"
        )),
        _ => Err(format!(
            "url: only http:// and https:// pages can be checked, got {url:?} (e.g. http://localhost:3000/)"
        )),
    }
}

/// The path of a `file:///…` URL (`file://localhost/…` too), percent-escapes decoded; query and
/// fragment dropped.
fn file_url_path(url: &str) -> Option<std::path::PathBuf> {
    let rest = &url["file://".len()..];
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    if !rest.starts_with('/') {
        return None;
    }
    percent_encoding::percent_decode_str(rest).decode_utf8().ok().map(|path| std::path::PathBuf::from(path.as_ref()))
}

/// Where screenshots of live pages are written: a folder under the system temp dir, so a check
/// never writes into the user's project. `SIGHTLINE_ALLOWED_ROOTS` confines these writes too:
/// when it does not hold that folder, `.sightline/live` in the project `root` if it holds that,
/// else the error naming both and the fix.
pub fn screenshot_dir(root: &Path) -> Result<PathBuf, String> {
    use sightline_core::allowed_roots::check_allowed;
    let temp = std::env::temp_dir().join("sightline-live");
    if let Ok(allowed) = check_allowed(&temp) {
        return Ok(allowed);
    }
    let project = root.join(".sightline").join("live");
    check_allowed(&project).map_err(|_| {
        format!(
            "screenshots: live pages are shot into {} or, when SIGHTLINE_ALLOWED_ROOTS does not hold it, into {}; \
             neither is inside the folders it allows ({}): add one of them to SIGHTLINE_ALLOWED_ROOTS",
            temp.display(),
            project.display(),
            std::env::var_os(sightline_core::allowed_roots::ALLOWED_ROOTS_VAR).unwrap_or_default().to_string_lossy()
        )
    })
}

/// `visual_check`'s result: the finders' verdicts, the screenshot, and what the prompt narrowed
/// the check to; `sightline check --json` prints it as it is.
#[derive(serde::Serialize)]
pub struct VisualCheck {
    /// The viewport, the summary and the issues.
    #[serde(flatten)]
    pub check: PageCheck,
    /// The full-page screenshot's path.
    pub screenshot: Option<String>,
    /// The page checked.
    pub url: String,
    /// Present when the call had a `prompt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<PromptScope>,
}

/// The part of the page `visual_check` keeps issues for.
pub enum CheckArea {
    Page,
    /// A CSS selector: its first match and what is inside it; no match is an error.
    Focus(String),
    /// Words or a selector naming an area (`read_prompt`); no match checks the whole page.
    Prompt(PromptReading),
}

impl CheckArea {
    /// From the `focus` and `prompt` arguments, which exclude each other.
    pub fn from_args(focus: Option<&str>, prompt: Option<&str>) -> Result<Self, String> {
        match (focus, prompt.map(str::trim)) {
            (Some(_), Some(_)) => Err("give focus (a CSS selector) or prompt (words or a selector), not both".into()),
            (Some(f), None) => Ok(CheckArea::Focus(f.to_string())),
            (None, Some("")) => Err("prompt: name an area (\"the header\", \"#sidebar\") or leave it out".into()),
            (None, Some(p)) => Ok(CheckArea::Prompt(read_prompt(p))),
            (None, None) => Ok(CheckArea::Page),
        }
    }

    /// The selectors the worker tries in order.
    fn selectors(&self) -> Vec<String> {
        match self {
            CheckArea::Page => Vec::new(),
            CheckArea::Focus(f) => vec![f.clone()],
            CheckArea::Prompt(reading) => reading.candidates.iter().map(|c| c.selector.clone()).collect(),
        }
    }
}

/// Opens `url` at the viewport, gathers the page's facts and runs the core finders, keeping
/// only issues inside `area` (page-wide issues stay).
pub async fn visual_check(
    worker: &Worker,
    root: &Path,
    url: &str,
    viewport: ViewportKind,
    area: &CheckArea,
) -> Result<VisualCheck, String> {
    let (width, height) = viewport.size();
    let params = CheckParams {
        url: url.to_string(),
        viewport: ViewportSize { width, height },
        out_dir: screenshot_dir(root)?,
        scopes: area.selectors(),
        scope_any_match: matches!(area, CheckArea::Focus(_)),
        style_properties: &CHECK_STYLE_PROPERTIES,
    };
    let answer = worker.call(&params, call_timeout()).await?;
    let facts = PageFacts {
        dom: answer.dom.parse().map_err(|e| format!("the page's DOM record: {e}"))?,
        details: answer.details.read("check details")?,
        console: answer.console,
        failed_requests: one_per_url(answer.failed_requests),
    };
    let mut check = check_page(&facts, viewport);
    let inside: Option<Vec<&str>> =
        answer.scope.as_ref().map(|scope| scope.selectors.iter().flatten().map(String::as_str).collect());
    if let Some(inside) = &inside {
        check.keep_inside(inside);
    }
    let scope = match area {
        CheckArea::Page => None,
        CheckArea::Focus(focus) if inside.is_none() => {
            return Err(format!("no element matches focus {focus} on {url}"));
        }
        CheckArea::Focus(_) => None,
        CheckArea::Prompt(reading) => {
            let index = answer.scope.as_ref().map(|scope| scope.index);
            let element = inside.as_ref().and_then(|s| s.first().copied());
            Some(reading.outcome(index.zip(element)))
        }
    };
    Ok(VisualCheck { check, screenshot: answer.screenshot.clone(), url: url.to_string(), scope })
}

/// `sightline check <url>`.
#[derive(Args)]
pub struct CheckArgs {
    /// The page to check (http or https).
    url: String,
    /// desktop (1280 px), tablet (768 px) or mobile (375 px).
    #[arg(long, default_value = "desktop")]
    viewport: String,
    /// Only issues on this element (a CSS selector) and inside it.
    #[arg(long)]
    focus: Option<String>,
    /// Only issues in the area these words or this selector name ("the header", "#sidebar");
    /// the whole page when the page has no such area (the output says which).
    #[arg(long, conflicts_with = "focus")]
    prompt: Option<String>,
    /// Print the result as JSON (summary, issues, screenshot).
    #[arg(long)]
    json: bool,
}

/// Runs visual_check's finders on one URL. Exit 0 when no issue, 1 when issues, 2 on failure.
pub fn run_check(root: &Path, args: &CheckArgs) -> Result<u8> {
    check_url(&args.url).map_err(anyhow::Error::msg)?;
    let viewport = ViewportKind::parse(&args.viewport)
        .with_context(|| format!("--viewport {}: use desktop, tablet or mobile", args.viewport))?;
    let area = CheckArea::from_args(args.focus.as_deref(), args.prompt.as_deref()).map_err(anyhow::Error::msg)?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the runtime")?;
    let worker = Worker::new(root);
    let outcome = runtime.block_on(visual_check(&worker, root, &args.url, viewport, &area));
    let found = outcome.map_err(anyhow::Error::msg)?;
    let code = if found.check.issues.is_empty() { exit::OK } else { exit::CHANGED };
    let mut out = std::io::stdout().lock();
    use std::io::Write;
    if args.json {
        // Through a JSON value, so the keys come sorted as they always have.
        writeln!(out, "{}", serde_json::to_string_pretty(&serde_json::to_value(&found)?)?)?;
    } else {
        writeln!(out, "{} ({}): {}", found.url, args.viewport, found.check.summary)?;
        if let Some(scope) = &found.scope {
            writeln!(out, "  {}", scope.message)?;
        }
        for issue in &found.check.issues {
            let severity = serde_json::to_value(issue.severity)?;
            writeln!(out, "  {} {}", severity.as_str().unwrap_or_default(), issue.message)?;
        }
        if let Some(path) = &found.screenshot {
            writeln!(out, "screenshot: {path}")?;
        }
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_urls_are_http_or_https() {
        assert!(check_url("http://localhost:3000/").is_ok());
        assert!(check_url("HTTPS://example.test/a").is_ok());
        // Anything else is refused with the URL and an example of one that works.
        let refused = |url: &str| {
            format!("url: only http:// and https:// pages can be checked, got {url:?} (e.g. http://localhost:3000/)")
        };
        for url in ["javascript:alert(1)", "ftp://x/", "localhost:3000", "http://", "data:text/html,<p>x"] {
            assert_eq!(check_url(url).unwrap_err(), refused(url), "{url}");
        }
    }

    #[test]
    fn live_file_urls_decode_to_paths() {
        assert_eq!(file_url_path("file:///tmp/a%20b/page.html?x=1#top"), Some("/tmp/a b/page.html".into()));
        assert_eq!(file_url_path("file://localhost/srv/x.html"), Some("/srv/x.html".into()));
        assert_eq!(file_url_path("file://host/x.html"), None);
    }
}
