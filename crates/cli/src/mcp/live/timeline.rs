//! `detect_layout_shift` and `detect_flash`: the worker records layout-shift entries and
//! visibility timelines for a while after load; the core's `live` module judges them.

use std::time::Duration;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ErrorData, tool, tool_router};
use serde::Deserialize;
use serde_json::json;
use sightline_core::live::{judge_flashes, judge_layout_shift};
use sightline_core::worker_protocol::{FlashParams, LayoutShiftParams, Watch};

use super::super::{SightlineServer, failure};
use super::{TIMELINE_WAIT_MS, pretty, wait_checked};
use crate::live::call_timeout;

/// Arguments of the timeline tools.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TimelineArgs {
    /// The page to open (http or https).
    pub url: String,
    /// How long to watch after the load event, in ms (default 500, at most 20000); raise it for content that arrives later.
    #[serde(default)]
    pub wait_time: Option<u64>,
}

#[tool_router(router = timeline_tool_router, vis = "pub(super)")]
impl SightlineServer {
    #[tool(
        description = "Cumulative layout shift (CLS) from the first paint until wait_time ms after load, by session windows, rated good (≤ 0.1), needs-improvement or poor (> 0.25), with the elements that moved (selector, score, distance, before/after boxes).",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn detect_layout_shift(
        &self,
        Parameters(args): Parameters<TimelineArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Err(refused) = self.page_checked(&args.url)? {
            return Ok(refused);
        }
        let wait = wait_checked("wait_time", args.wait_time, TIMELINE_WAIT_MS)?;
        let params = LayoutShiftParams(Watch { url: args.url.clone(), wait_ms: wait });
        Ok(match self.live.worker.call(&params, call_timeout() + Duration::from_millis(wait)).await {
            Ok(answer) if answer.unsupported => {
                failure("this browser does not report layout shifts (the Layout Instability API is Chromium's)")
            }
            Ok(answer) => {
                let report = judge_layout_shift(&answer.entries);
                pretty(&json!({"url": args.url, "watchedMs": wait, "report": report}))
            }
            Err(e) => failure(e),
        })
    }

    #[tool(
        description = "Elements whose visibility flips quickly after load (flicker): shown for under 500 ms then hidden, or hidden briefly then shown again, with timestamps (ms after navigation start) and each element's visibility timeline.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn detect_flash(&self, Parameters(args): Parameters<TimelineArgs>) -> Result<CallToolResult, ErrorData> {
        if let Err(refused) = self.page_checked(&args.url)? {
            return Ok(refused);
        }
        let wait = wait_checked("wait_time", args.wait_time, TIMELINE_WAIT_MS)?;
        let params = FlashParams(Watch { url: args.url.clone(), wait_ms: wait });
        Ok(match self.live.worker.call(&params, call_timeout() + Duration::from_millis(wait)).await {
            Ok(answer) => {
                let report = judge_flashes(&answer.elements);
                pretty(&json!({"url": args.url, "watchedMs": wait, "summary": report.summary,
                               "flashes": report.flashes}))
            }
            Err(e) => failure(e),
        })
    }
}
