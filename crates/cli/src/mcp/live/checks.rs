//! `visual_check` (the core's finders over the page's facts), `get_console_logs` (the console and
//! the failed requests) and `verify_accessibility` (axe-core run in the page).

use std::time::Duration;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ErrorData, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sightline_core::live::{console_levels, console_log, summarise_axe};
use sightline_core::page_check::{PageIssue, PromptScope, ViewportKind};
use sightline_core::worker_protocol::{AxeParams, ConsoleParams, Watch};

use super::super::{SightlineServer, failure};
use super::{CONSOLE_WAIT_MS, bad, pretty, wait_checked};
use crate::live::{self, CheckArea, call_timeout};

/// Arguments of `visual_check`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct VisualCheckArgs {
    /// The page to open (http or https).
    pub url: String,
    /// "desktop" (1280 px, the default), "tablet" (768 px) or "mobile" (375 px; also checks tap targets).
    #[serde(default)]
    pub viewport: Option<String>,
    /// A CSS selector: only issues on this element and inside it (page-wide ones stay). Not with `prompt`.
    #[serde(default)]
    pub focus: Option<String>,
    /// The area to check, in words or as a selector: "#sidebar", "the header", "the footer navigation".
    /// Read in order as a CSS selector, a word of it that looks like one, then landmark words (header,
    /// footer, navigation/nav/menu, main/content, sidebar/aside, search; "footer navigation" is the
    /// navigation inside the footer). The result's `scope` says what was checked; when nothing
    /// matches, the whole page is checked and `scope` says so. Not with `focus`.
    #[serde(default)]
    pub prompt: Option<String>,
    /// Accepted for compatibility: nothing is cached (every call opens the page afresh), and the
    /// result says so.
    #[serde(default)]
    pub no_cache: Option<bool>,
}

/// What `visual_check` answers to `no_cache`: there is no cache to bypass.
const NOTHING_CACHED: &str = "nothing is cached: every visual_check opens the page afresh, so no_cache changes nothing";

/// `visual_check`'s answer: the check as `sightline check --json` prints it, but the viewport
/// with its size, and, when `no_cache` was given, what it changes.
#[derive(Serialize)]
struct VisualCheckAnswer<'a> {
    url: &'a str,
    viewport: ViewportAnswer,
    summary: &'a str,
    issues: &'a [PageIssue],
    screenshot: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<&'a PromptScope>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache: Option<&'static str>,
}

/// The viewport a page was checked at: its name and size.
#[derive(Serialize)]
struct ViewportAnswer {
    name: ViewportKind,
    width: u32,
    height: u32,
}

/// Arguments of `get_console_logs`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ConsoleArgs {
    /// The page to open (http or https).
    pub url: String,
    /// Levels to keep: error, warning, info, log, debug, pageerror (uncaught exceptions). All when absent.
    #[serde(default)]
    pub levels: Option<Vec<String>>,
    /// How long to keep listening after the load event, in ms (default 1000, at most 20000).
    #[serde(default)]
    pub wait_ms: Option<u64>,
}

/// Arguments of `verify_accessibility`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AccessibilityArgs {
    /// The page to open (http or https).
    pub url: String,
    /// Audit only this element (a CSS selector) and inside it.
    #[serde(default)]
    pub selector: Option<String>,
    /// Only these axe-core rule ids (e.g. ["color-contrast", "image-alt"]).
    #[serde(default)]
    pub rules: Option<Vec<String>>,
}

#[tool_router(router = check_tool_router, vis = "pub(super)")]
impl SightlineServer {
    #[tool(
        description = "Open a page and look for visual bugs with deterministic finders: horizontal overflow, text clipped by overflow:hidden, overlapping text, painted boxes overlapping in the flow, elements off-screen, broken images, failed fonts/stylesheets, console errors, low contrast (WCAG ratio), tap targets failing WCAG 2.5.8 on mobile (under 24 px and too close to another; off-screen, hidden and disabled controls and links in sentences left out). Each issue has kind, severity, selector, box and the measured numbers. `prompt` narrows to an area named in words or by selector (the result's `scope` says which); nothing is cached. Returns a summary, the issues and a full-page screenshot path.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn visual_check(&self, Parameters(args): Parameters<VisualCheckArgs>) -> Result<CallToolResult, ErrorData> {
        if let Err(refused) = self.page_checked(&args.url)? {
            return Ok(refused);
        }
        let name = args.viewport.as_deref().unwrap_or("desktop");
        let viewport = ViewportKind::parse(name)
            .ok_or_else(|| bad(format!("viewport: {name:?} is not one of desktop, tablet, mobile")))?;
        let area = CheckArea::from_args(args.focus.as_deref(), args.prompt.as_deref()).map_err(bad)?;
        Ok(match live::visual_check(&self.live.worker, &self.project.root, &args.url, viewport, &area).await {
            Ok(found) => {
                let (width, height) = viewport.size();
                pretty(&VisualCheckAnswer {
                    url: &found.url,
                    viewport: ViewportAnswer { name: viewport, width, height },
                    summary: &found.check.summary,
                    issues: &found.check.issues,
                    screenshot: found.screenshot.as_deref(),
                    scope: found.scope.as_ref(),
                    cache: args.no_cache.map(|_| NOTHING_CACHED),
                })
            }
            Err(e) => failure(e),
        })
    }

    #[tool(
        description = "Console messages and uncaught page errors from before navigation until wait_ms after load, with source locations and times, plus the requests that failed, and the page's status (clean, has_warnings, has_errors). Filter the listed entries with levels.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn get_console_logs(&self, Parameters(args): Parameters<ConsoleArgs>) -> Result<CallToolResult, ErrorData> {
        if let Err(refused) = self.page_checked(&args.url)? {
            return Ok(refused);
        }
        let levels =
            console_levels(args.levels.as_deref().unwrap_or_default()).map_err(|e| bad(format!("levels: {e}")))?;
        let wait = wait_checked("wait_ms", args.wait_ms, CONSOLE_WAIT_MS)?;
        let params = ConsoleParams(Watch { url: args.url.clone(), wait_ms: wait });
        Ok(match self.live.worker.call(&params, call_timeout() + Duration::from_millis(wait)).await {
            Ok(answer) => {
                let log = console_log(&answer.console, &levels, answer.failed_requests);
                pretty(&json!({
                    "url": args.url,
                    "watchedMs": wait,
                    "status": log.status,
                    "summary": log.summary,
                    "entries": log.entries,
                    // Entries past the worker's cap of 1,000 per call, not listed.
                    "dropped": answer.console_dropped,
                    "failedRequests": log.failed_requests,
                }))
            }
            Err(e) => failure(e),
        })
    }

    #[tool(
        description = "Accessibility audit with axe-core (from npm, run in the page): violations with impact, the failing nodes (selector, HTML, what to fix) and the rule's help link. Optionally only one element (selector) or some rules.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn verify_accessibility(
        &self,
        Parameters(args): Parameters<AccessibilityArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Err(refused) = self.page_checked(&args.url)? {
            return Ok(refused);
        }
        if let Some(rules) = &args.rules
            && rules.iter().any(|r| r.is_empty() || !r.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        {
            return Err(bad("rules: axe-core rule ids are words with dashes, e.g. \"color-contrast\""));
        }
        let params = AxeParams { url: args.url.clone(), selector: args.selector, rules: args.rules };
        Ok(match self.live.worker.call(&params, call_timeout()).await {
            Ok(results) => {
                let audit = summarise_axe(results);
                pretty(&json!({"url": args.url, "axeVersion": audit.axe_version, "summary": audit.summary,
                               "violations": audit.violations}))
            }
            Err(e) => failure(e),
        })
    }
}
