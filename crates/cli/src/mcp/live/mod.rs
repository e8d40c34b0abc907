//! The live-page MCP tools (spec 05-live-pages): each opens a URL in the browser worker and
//! answers from the page itself. These modules convert arguments and results; the worker gathers
//! facts, `sightline_core::page_check` / `live` / `dom` / `visual_verify` judge them. One module
//! per tool family; this one owns what they share — the worker and the in-memory state
//! ([`LiveState`]), the argument checks, the JSON rendering — and `ping`.
//! One exception to "the core judges": `verify_accessibility`'s violations are axe-core's own
//! verdicts, run in the page; it only summarises them.

use std::sync::Mutex;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ErrorData, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sightline_core::visual_verify::{SESSION_TTL, Sessions};
use sightline_core::worker_protocol::PingParams;

use super::{SightlineServer, failure, text};
use crate::live::{Worker, check_url};

/// `visual_check`, `get_console_logs` and `verify_accessibility`: the page's bugs, its console
/// and its accessibility audit.
mod checks;
/// `measure_element` and `test_viewports`: one element's box, the page at several sizes.
mod measure;
/// `capture_dom_state`, `compare_snapshots` and `capture_visual_state`: the page's state kept
/// in memory or written as files.
mod snapshots;
/// `detect_layout_shift` and `detect_flash`: what moves or flickers after load.
mod timeline;
/// `visual_verify` and `submit_visual_response`: proof that a model looked.
mod verify;

use snapshots::Snapshots;

/// Longest wait a caller may ask for after load.
const MAX_WAIT_MS: u64 = 20_000;
/// get_console_logs listens this long after load unless told (`wait_ms`), as Ghostlight does:
/// long enough for the requests a page starts on load to fail and be logged.
const CONSOLE_WAIT_MS: u64 = 1000;
/// detect_layout_shift and detect_flash watch this long after load unless told (`wait_time`),
/// as Ghostlight does: shifts and flickers cluster around first paint and load; a page whose late
/// content arrives later asks for more.
const TIMELINE_WAIT_MS: u64 = 500;

/// State the live tools share: the worker, the DOM snapshots and the verification sessions.
pub struct LiveState {
    pub worker: Worker,
    snapshots: Mutex<Snapshots>,
    sessions: Mutex<Sessions>,
}

impl LiveState {
    pub fn new(root: &std::path::Path) -> Self {
        // Sessions live `SIGHTLINE_VERIFY_TTL_MS` when set (tests shorten it), else the core's TTL.
        let ttl = std::env::var("SIGHTLINE_VERIFY_TTL_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(SESSION_TTL, Duration::from_millis);
        LiveState {
            worker: Worker::new(root),
            snapshots: Mutex::new(Snapshots::default()),
            sessions: Mutex::new(Sessions::new(ttl)),
        }
    }
}

/// A caller's mistake, with the whole message (`call_tool` answers it as the tool's error).
fn bad(message: impl Into<String>) -> ErrorData {
    ErrorData::invalid_params(message.into(), None)
}

impl SightlineServer {
    /// Whether a live tool may open `url` now, asked before anything else the tool checks: a URL
    /// it may not open at all (not http(s), or file:// outside the allowed roots) is the caller's
    /// mistake (`Err`); a page whose site a visual_verify session holds is the refusal to answer
    /// with (`Ok(Err)`): the looking model must answer from its screenshot, not from a tool that
    /// reads the page's text, styles or boxes. Every tool that opens a page asks this one method,
    /// but visual_verify, which opens the sessions (the test
    /// `live_every_page_tool_refuses_a_site_under_verification` holds each tool taking a url to it).
    pub(crate) fn page_checked(&self, url: &str) -> Result<Result<(), CallToolResult>, ErrorData> {
        check_url(url).map_err(bad)?;
        let lock = self.live.sessions.lock().expect("sessions").lock_on(url);
        Ok(lock.map_or(Ok(()), |held| Err(failure(held.to_string()))))
    }
}

/// A wait after load, [`MAX_WAIT_MS`] at most.
fn wait_checked(name: &str, value: Option<u64>, default: u64) -> Result<u64, ErrorData> {
    let v = value.unwrap_or(default);
    if v > MAX_WAIT_MS {
        return Err(bad(format!("{name}: at most {MAX_WAIT_MS} ms, got {v}")));
    }
    Ok(v)
}

/// Every live answer: the JSON, pretty-printed, as one text block; through a JSON value, so the
/// keys come sorted whatever type the answer is.
fn pretty(answer: &impl Serialize) -> CallToolResult {
    text(serde_json::to_value(answer).and_then(|value| serde_json::to_string_pretty(&value)).unwrap_or_default())
}

impl SightlineServer {
    /// Every live-page tool but `visual_verify`'s pair: the families' routers, merged.
    pub(crate) fn live_tool_router() -> ToolRouter<Self> {
        Self::ping_tool_router()
            + Self::check_tool_router()
            + Self::measure_tool_router()
            + Self::timeline_tool_router()
            + Self::snapshot_tool_router()
    }
}

/// Arguments of `ping`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct PingArgs {
    /// Echoed back with the time, so a client can match the answer to its call.
    #[serde(default)]
    pub message: Option<String>,
}

#[tool_router(router = ping_tool_router)]
impl SightlineServer {
    #[tool(
        description = "Health of the live-page tools: echoes `message` with the server's time (UTC), the browser worker's pid, Node and playwright-core versions, and whether a Chromium was found (with the install command when not). Starts the worker if needed.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn ping(&self, Parameters(args): Parameters<PingArgs>) -> Result<CallToolResult, ErrorData> {
        let live = &self.live;
        let script = live.worker.script().map(|p| p.display().to_string());
        Ok(match live.worker.call(&PingParams {}, Duration::from_secs(10)).await {
            Ok(answer) => pretty(&json!({
                "message": args.message,
                "timestamp": sightline_core::results::rfc3339(std::time::SystemTime::now()),
                "sightline": env!("CARGO_PKG_VERSION"),
                "worker": {"script": script.ok(), "pid": answer.pid, "node": answer.node},
                "playwrightCore": answer.playwright_core,
                "playwrightError": answer.playwright_error,
                "browser": answer.browser,
            })),
            Err(e) => failure(format!("the browser worker is not available: {e}")),
        })
    }
}

#[cfg(test)]
mod in_process {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use serde_json::Value;

    use super::super::in_process::{only_text, refused};
    use super::super::view::Project;
    use super::*;

    fn args(value: Value) -> serde_json::Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    /// The live tools' argument checks and in-memory state over `tokio::io::duplex`, without a
    /// browser: bad URLs and viewports are invalid params, unknown snapshots and sessions are
    /// tool errors, and the session keeps serving.
    #[tokio::test(flavor = "current_thread")]
    async fn live_tools_check_arguments_over_a_duplex_pipe() {
        let root = std::env::temp_dir();
        let server = SightlineServer::new(Project { root: root.clone() }, true);
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let serving = tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
        let client = ().serve(client_io).await.unwrap();
        let call = |name: &'static str, value: Value| {
            let client = &client;
            async move { client.call_tool(CallToolRequestParams::new(name).with_arguments(args(value))).await }
        };

        // Bad arguments are tool errors with the whole message: what is wrong and what is allowed.
        let bad_url = call("visual_check", json!({"url": "javascript:alert(1)"})).await;
        assert_eq!(
            refused(bad_url),
            "url: only http:// and https:// pages can be checked, got \"javascript:alert(1)\" (e.g. http://localhost:3000/)"
        );
        let bad_viewport = call("visual_check", json!({"url": "http://127.0.0.1:1/", "viewport": "watch"})).await;
        assert_eq!(refused(bad_viewport), "viewport: \"watch\" is not one of desktop, tablet, mobile");
        let both = call(
            "visual_check",
            json!({"url": "http://127.0.0.1:1/", "focus": "#top", "prompt": "the header", "no_cache": true}),
        )
        .await;
        assert_eq!(refused(both), "give focus (a CSS selector) or prompt (words or a selector), not both");
        let bad_level = call("get_console_logs", json!({"url": "http://127.0.0.1:1/", "levels": ["fatal"]})).await;
        assert_eq!(
            refused(bad_level),
            "levels: unknown console level \"fatal\"; use any of error, warning, info, log, debug, pageerror"
        );
        let long_wait = call("detect_flash", json!({"url": "http://127.0.0.1:1/", "wait_time": 999_999})).await;
        assert_eq!(refused(long_wait), "wait_time: at most 20000 ms, got 999999");
        let bad_criteria = call(
            "visual_verify",
            json!({"url": "http://127.0.0.1:1/", "query": "q", "criteria": [{"question": "x", "expected": [1]}]}),
        )
        .await;
        assert_eq!(refused(bad_criteria), "criteria[0].expected: give a string, a number or a boolean");

        // Unknown ids are tool errors (the call was well formed) that say which id and what to do.
        let unknown = call("compare_snapshots", json!({"before_id": "dom-1-1", "after_id": "dom-2-1"})).await.unwrap();
        assert_eq!(unknown.is_error, Some(true));
        assert_eq!(
            only_text(&unknown),
            "no snapshot \"dom-1-1\": it expired (after 30 min), made way for newer ones (at most 50 are kept) or was \
             never taken; call capture_dom_state again"
        );
        let expired = call(
            "submit_visual_response",
            json!({"session_id": "verify-0", "challenge_answers": {}, "query_answer": "yes"}),
        )
        .await
        .unwrap();
        assert_eq!(expired.is_error, Some(true));
        assert_eq!(
            only_text(&expired),
            "no verification session \"verify-0\": it expired (sessions last 300 s), made way for newer ones (at most \
             100 are kept) or never existed; call visual_verify again"
        );

        client.cancel().await.unwrap();
        let _ = serving.await;
    }

    /// A value of a schema property's type, for a required argument the test does not care about.
    fn any_of_type(property: &Value) -> Value {
        let kind = property.get("type").and_then(Value::as_str).unwrap_or("string");
        match kind {
            "integer" | "number" => json!(1),
            "boolean" => json!(false),
            "array" => json!([]),
            "object" => json!({}),
            _ => json!("#x"),
        }
    }

    /// Every tool that takes a `url` but visual_verify (which opens the sessions) refuses a site a
    /// visual_verify session holds, before it checks anything else: a live tool added without
    /// `page_checked` fails here.
    #[tokio::test(flavor = "current_thread")]
    async fn live_every_page_tool_refuses_a_site_under_verification() {
        let server = SightlineServer::new(Project { root: std::env::temp_dir() }, true);
        let tools = server.tool_router.list_all();
        let held = "http://localhost:1/";
        server.live.sessions.lock().unwrap().open(sightline_core::visual_verify::Session::new(held, "q", Vec::new()));
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let serving = tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
        let client = ().serve(client_io).await.unwrap();
        let mut refused = Vec::new();
        for tool in &tools {
            let properties =
                tool.input_schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
            if !properties.contains_key("url") || tool.name == "visual_verify" {
                continue;
            }
            let mut arguments: serde_json::Map<String, Value> = tool
                .input_schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|name| (name.to_string(), any_of_type(&properties[name])))
                .collect();
            // Another name of the same site.
            arguments.insert("url".into(), json!("http://127.0.0.1:1/other"));
            let answer = client
                .call_tool(CallToolRequestParams::new(tool.name.clone()).with_arguments(arguments))
                .await
                .unwrap_or_else(|e| panic!("{}: {e:?}", tool.name));
            assert_eq!(answer.is_error, Some(true), "{}", tool.name);
            let said = only_text(&answer);
            assert!(
                said.starts_with("a visual_verify session on this site (http://loopback:1) is open"),
                "{}: {said}",
                tool.name
            );
            refused.push(tool.name.to_string());
        }
        // The live family's page tools and capture_frames: a tool that stops taking a url is
        // named here too.
        let expected = [
            "capture_dom_state",
            "capture_frames",
            "capture_visual_state",
            "detect_flash",
            "detect_layout_shift",
            "get_console_logs",
            "measure_element",
            "test_viewports",
            "verify_accessibility",
            "visual_check",
        ];
        refused.sort();
        assert_eq!(refused, expected);
        client.cancel().await.unwrap();
        let _ = serving.await;
    }
}
