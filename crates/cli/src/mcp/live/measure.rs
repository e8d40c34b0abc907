//! `measure_element` (one element's box model, typography and visibility, as the worker measured
//! it) and `test_viewports` (the page at several sizes, judged by the core: sideways scrolling,
//! an element's visibility; a screenshot each).

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ErrorData, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sightline_core::page_check::{BreakpointFacts, CHECK_STYLE_PROPERTIES, DEFAULT_BREAKPOINTS, check_viewports};
use sightline_core::worker_protocol::{ElementMeasurement, MeasureParams, ViewportSize, ViewportsParams};

use super::super::{SightlineServer, failure};
use super::{bad, pretty};
use crate::live::{call_timeout, screenshot_dir};

/// Most sizes one test_viewports call opens the page at (each is a page load), and the sides a
/// size may have. `breakpoints`' description states both.
const MAX_BREAKPOINTS: usize = 8;
const BREAKPOINT_SIDE: std::ops::RangeInclusive<u32> = 200..=4000;

/// Arguments of `measure_element`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MeasureArgs {
    /// The page to open (http or https); the page the last live-page call opened when absent.
    #[serde(default)]
    pub url: Option<String>,
    /// CSS selector of the element (the first match is measured).
    pub selector: String,
}

/// One viewport size.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Breakpoint {
    /// A name for the size ("mobile"), kept in the answer.
    #[serde(default)]
    pub name: Option<String>,
    /// Width in CSS pixels.
    pub width: u32,
    /// Height in CSS pixels.
    pub height: u32,
}

/// Arguments of `test_viewports`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ViewportsArgs {
    /// The page to open (http or https).
    pub url: String,
    /// An element whose visibility is reported per breakpoint (CSS selector).
    #[serde(default)]
    pub selector: Option<String>,
    /// Sizes to test, 1–8 of them, each side 200–4000 CSS pixels (default mobile 375×667,
    /// tablet 768×1024, desktop 1920×1080).
    #[serde(default)]
    pub breakpoints: Option<Vec<Breakpoint>>,
}

#[tool_router(router = measure_tool_router, vis = "pub(super)")]
impl SightlineServer {
    #[tool(
        description = "Box model (margin, border, padding, content), typography and visibility of one element (the first match of selector), with its stable selector and page box. Without url, on the page the last live-page call opened (opened afresh).",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn measure_element(&self, Parameters(args): Parameters<MeasureArgs>) -> Result<CallToolResult, ErrorData> {
        let url = match args.url.or_else(|| self.live.worker.last_url()) {
            Some(url) => url,
            None => return Err(bad("url: no page has been opened yet in this session; give the page's url")),
        };
        if let Err(refused) = self.page_checked(&url)? {
            return Ok(refused);
        }
        if args.selector.trim().is_empty() {
            return Err(bad("selector: give a CSS selector, e.g. \"#buy\""));
        }
        let params = MeasureParams { url: url.clone(), selector: args.selector };
        Ok(match self.live.worker.call(&params, call_timeout()).await {
            // The worker's measurements as it gave them, with the page they were taken on.
            Ok(measured) => pretty(&MeasureAnswer { url, measured }),
            Err(e) => failure(e),
        })
    }

    #[tool(
        description = "The page at several viewport sizes (default mobile 375×667, tablet 768×1024, desktop 1920×1080; each size may carry a name, kept in the answer): per breakpoint whether it scrolls sideways and which elements cause it, the selector's visibility, and a screenshot path.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn test_viewports(&self, Parameters(args): Parameters<ViewportsArgs>) -> Result<CallToolResult, ErrorData> {
        if let Err(refused) = self.page_checked(&args.url)? {
            return Ok(refused);
        }
        let breakpoints: Vec<(Option<String>, u32, u32)> = match &args.breakpoints {
            Some(list) => list.iter().map(|b| (b.name.clone(), b.width, b.height)).collect(),
            None => DEFAULT_BREAKPOINTS.iter().map(|&(n, w, h)| (Some(n.to_string()), w, h)).collect(),
        };
        if breakpoints.is_empty() || breakpoints.len() > MAX_BREAKPOINTS {
            return Err(bad(format!("breakpoints: give 1 to {MAX_BREAKPOINTS} sizes")));
        }
        if breakpoints.iter().any(|&(_, w, h)| !BREAKPOINT_SIDE.contains(&w) || !BREAKPOINT_SIDE.contains(&h)) {
            return Err(bad(format!(
                "breakpoints: width and height must be {} to {} CSS pixels",
                BREAKPOINT_SIDE.start(),
                BREAKPOINT_SIDE.end()
            )));
        }
        let out_dir = match screenshot_dir(&self.project.root) {
            Ok(dir) => dir,
            Err(e) => return Ok(failure(e)),
        };
        let params = ViewportsParams {
            url: args.url.clone(),
            selector: args.selector,
            breakpoints: breakpoints.iter().map(|&(_, width, height)| ViewportSize { width, height }).collect(),
            out_dir,
            style_properties: &CHECK_STYLE_PROPERTIES,
        };
        let timeout = call_timeout() * breakpoints.len() as u32;
        Ok(match self.live.worker.call(&params, timeout).await {
            Ok(answer) => {
                let mut measured = Vec::new();
                // The worker answers in the order asked: each size keeps its caller's name.
                let names = breakpoints.into_iter().map(|(name, _, _)| name);
                for (bp, name) in answer.breakpoints.into_iter().zip(names) {
                    let dom = match bp.dom.parse() {
                        Ok(dom) => dom,
                        Err(e) => {
                            return Ok(failure(format!("the page's DOM record at {}×{}: {e}", bp.width, bp.height)));
                        }
                    };
                    measured.push(BreakpointFacts {
                        name,
                        width: bp.width,
                        height: bp.height,
                        dom,
                        element: bp.element,
                        screenshot: bp.screenshot,
                    });
                }
                let check = check_viewports(measured);
                pretty(&json!({"url": args.url, "summary": check.summary, "breakpoints": check.breakpoints}))
            }
            Err(e) => failure(e),
        })
    }
}

/// `measure_element`'s answer: the worker's measurements and the page they were taken on.
#[derive(Serialize)]
struct MeasureAnswer {
    url: String,
    #[serde(flatten)]
    measured: ElementMeasurement,
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::mcp::view::Project;

    #[test]
    fn breakpoints_say_the_limits_the_call_enforces() {
        let tools = SightlineServer::new(Project { root: PathBuf::from("/r") }, true).tool_router.list_all();
        let tool = tools.iter().find(|t| t.name == "test_viewports").unwrap();
        let said = tool.input_schema["properties"]["breakpoints"]["description"].as_str().unwrap();
        let sides = format!("each side {}–{} CSS pixels", BREAKPOINT_SIDE.start(), BREAKPOINT_SIDE.end());
        assert!(said.contains(&format!("1–{MAX_BREAKPOINTS} of them")) && said.contains(&sides), "{said}");
    }
}
