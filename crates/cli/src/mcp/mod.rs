//! `sightline mcp`: the MCP server over stdio (03-mcp.md). stdout carries only JSON-RPC; every
//! message of ours goes to stderr. Readers never recompute a verdict: they read what the run left.

mod arguments;
mod design;
mod diff;
mod live;
mod prompts;
mod view;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, MetaObject, ServerCapabilities, ServerConfig};
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ErrorData, ServerHandler, ServiceExt, prompt_handler, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::Value;
use sightline_core::approve::{Accept, Approved};
use sightline_core::layout::check_snapshot_name;
use sightline_core::review::{ReviewRun, results_version};
use sightline_core::store::{ProjectStore, list_baselines};

use crate::exit;
use view::{Project, Results};

#[derive(Args)]
pub struct McpArgs {
    /// Mark both approve tools as needing the user's confirmation on every call (the default,
    /// or config `mcpApprovalPrompt`).
    #[arg(long, conflicts_with = "no_approval_prompt")]
    approval_prompt: bool,
    /// Do not mark the approve tools; their descriptions still say to ask a human first.
    #[arg(long)]
    no_approval_prompt: bool,
}

/// Arguments naming one snapshot.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SnapshotArgs {
    /// The snapshot name, as in results.json (e.g. "home").
    pub name: String,
    /// Only this Playwright project (e.g. "chromium"); every project when absent.
    #[serde(default)]
    pub project: Option<String>,
}

/// Arguments of `get_visual_results`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VisualResultsArgs {
    /// Also list each passed snapshot with its verdict (by default they are counted, so a big run
    /// stays short).
    #[serde(default)]
    pub include_passed: bool,
}

/// Arguments of `approve_snapshot`. Anything else is refused rather than ignored: a client that
/// sends `confirmed: false` (or any word of its own) must not get an approval by it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApproveArgs {
    /// The snapshot name, as in results.json (e.g. "home").
    pub name: String,
    /// Only this Playwright project (e.g. "chromium"); every project when absent.
    #[serde(default)]
    pub project: Option<String>,
    /// Also approve a capture that is unhealthy (failed assets) or whose page never settled. Only
    /// when the human named that capture and said to approve it as it is; otherwise it is held.
    #[serde(default)]
    pub include_unhealthy: bool,
    /// Keep the baseline and add the capture beside it as an accepted variant (another
    /// legitimate state of the page; at most 4). Only when the human said to accept it as a
    /// variant; otherwise the capture replaces the baseline.
    #[serde(default)]
    pub as_variant: bool,
}

/// Arguments of `approve_all`; anything else is refused, as for `approve_snapshot`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApproveAllArgs {
    /// Also approve unhealthy captures (failed assets) and pages that never settled. Only when the
    /// human said to approve those as they are; otherwise they are held and listed.
    #[serde(default)]
    pub include_unhealthy: bool,
}

/// The lines of an approve tool's answer: each baseline written, each capture held and why.
fn approval_lines(done: &Approved) -> Vec<String> {
    let approved = done.approved.iter().map(|a| a.line());
    let held = done
        .held
        .iter()
        .map(|h| h.line("includeUnhealthy approves it only when the human asks for this capture as it is"));
    approved.chain(held).collect()
}

/// Arguments of `get_diff`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DiffArgs {
    /// The snapshot name, as in results.json (e.g. "home").
    pub name: String,
    /// Only this Playwright project (e.g. "chromium"); the first one captured when absent.
    #[serde(default)]
    pub project: Option<String>,
    /// Only the crop of this region (its index in the region list), without the whole-page images.
    #[serde(default)]
    pub region: Option<usize>,
    /// Only a full-width band starting at this page row, without the whole-page images.
    #[serde(default)]
    pub y: Option<u32>,
    /// Rows of the band, at least 1 (default and most one crop's height, 1024 at native scale; a
    /// taller band shows its top rows and says the `y` to continue from).
    #[serde(default)]
    pub height: Option<u32>,
}

const GET_DIFF_DESCRIPTION: &str = "The images of one snapshot, sized to be readable: baseline, current and diff of the whole page (downscaled to fit), the list of diff regions, and native-scale crops of the regions (at most 3). Every image is preceded by a text saying what it is. `region` (an index) returns only that region's crop; `y` (+ optional `height`) only a full-width band, also for a new snapshot. A missing baseline shows only the committed baseline.";

const APPROVE_TOOLS: [&str; 2] = ["approve_snapshot", "approve_all"];

/// `_meta` of the approve tools: clients that honour it ask the user on every call.
fn approval_meta() -> MetaObject {
    let mut map = serde_json::Map::new();
    map.insert("anthropic/requiresUserInteraction".into(), Value::Bool(true));
    MetaObject(map)
}

#[derive(Clone)]
pub struct SightlineServer {
    project: std::sync::Arc<Project>,
    live: std::sync::Arc<live::LiveState>,
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

fn text(body: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(body)])
}

fn failure(body: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(body)])
}

/// A snapshot name must be a plain folder name (no separators, no `..`).
fn checked(args: &SnapshotArgs) -> Result<(), ErrorData> {
    check_snapshot_name(&args.name).map_err(|e| ErrorData::invalid_params(format!("name: {e}"), None))?;
    if let Some(p) = &args.project
        && (p.is_empty() || p.contains(['/', '\\']) || p == "..")
    {
        return Err(ErrorData::invalid_params(format!("project: {p:?} is not a Playwright project name"), None));
    }
    Ok(())
}

#[tool_router]
impl SightlineServer {
    pub fn new(project: Project, approval_prompt: bool) -> Self {
        let mut tool_router =
            Self::tool_router() + Self::design_tool_router() + Self::live_tool_router() + Self::verify_tool_router();
        if !approval_prompt {
            for name in APPROVE_TOOLS {
                if let Some(route) = tool_router.map.get_mut(name) {
                    route.attr.meta = None;
                }
            }
        }
        let live = std::sync::Arc::new(live::LiveState::new(&project.root));
        Self { project: std::sync::Arc::new(project), live, tool_router, prompt_router: Self::prompt_router() }
    }

    /// The last run as the approve tools check a request against it: results.json, read now.
    fn last_run(&self) -> Result<ReviewRun, CallToolResult> {
        match self.project.read_results() {
            Results::Found { results, raw } => Ok(self.review_run(*results, &raw)),
            Results::Absent(why) | Results::Broken(why) => Err(failure(format!("Nothing to approve. {why}"))),
        }
    }

    fn review_run(&self, results: sightline_core::results::Results, raw: &str) -> ReviewRun {
        ReviewRun { path: self.project.results_path(), results, version: results_version(raw) }
    }

    /// The project's store, in the baseline layout its config file sets; a bad config file is
    /// the tool's error, naming the file.
    fn store(&self) -> Result<ProjectStore, CallToolResult> {
        let config = self.project.config().map_err(failure)?;
        Ok(ProjectStore::with_layout(&self.project.root, config.baseline_path))
    }

    #[tool(
        description = "Summary of the last visual run, to decide what to review: the counts, groups of snapshots sharing one signal, one verdict line per snapshot that needs a look (changed and new first; passed ones as a count unless `includePassed`), missing baselines, and absolute paths to open (HTML report, diff images, new captures). When there are no results it says why.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_visual_results(
        &self,
        Parameters(args): Parameters<VisualResultsArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(match self.project.read_results() {
            Results::Found { results, .. } => text(view::summary(&self.project, &results, args.include_passed)),
            // No run to summarise: flagged as every tool flags it, and the rule still closes it.
            Results::Absent(why) | Results::Broken(why) => failure(format!("{why}\n\n{}", view::APPROVAL_RULE)),
        })
    }

    #[tool(
        description = "The layered evidence of one snapshot as JSON (pixel: diffPercent, shape, regions, shift; dom: changed, styleCheck, styleChanges from→to, geometryChanges; captureHealth; absolute paths) plus `guidance` sentences on how to read it. Works for missing baselines too.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn explain_snapshot(&self, Parameters(args): Parameters<SnapshotArgs>) -> Result<CallToolResult, ErrorData> {
        checked(&args)?;
        Ok(match self.project.read_results() {
            Results::Found { results, .. } => {
                match view::explain(&self.project, &results, &args.name, args.project.as_deref()) {
                    Ok(evidence) => text(serde_json::to_string_pretty(&evidence).unwrap_or_default()),
                    Err(why) => failure(why),
                }
            }
            Results::Absent(why) | Results::Broken(why) => failure(why),
        })
    }

    async fn diff(&self, args: DiffArgs) -> Result<CallToolResult, ErrorData> {
        checked(&SnapshotArgs { name: args.name.clone(), project: args.project.clone() })?;
        let request = match (args.region, args.y, args.height) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return Err(ErrorData::invalid_params("give either region or y/height, not both", None));
            }
            (Some(index), None, None) => diff::Request::Region(index),
            (None, None, None) => diff::Request::Page,
            (None, _, Some(0)) => {
                return Err(ErrorData::invalid_params("height: a band has at least 1 row", None));
            }
            (None, y, height) => diff::Request::Band { y: y.unwrap_or(0), height },
        };
        let results = match self.project.read_results() {
            Results::Found { results, .. } => results,
            Results::Absent(why) => return Ok(failure(why)),
            Results::Broken(why) => return Ok(failure(why)),
        };
        Ok(match diff::get_diff(&self.project, &results, &args.name, args.project.as_deref(), request) {
            Ok(blocks) => CallToolResult::success(blocks),
            Err(why) => failure(why),
        })
    }

    #[tool(
        description = GET_DIFF_DESCRIPTION,
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_diff(&self, Parameters(args): Parameters<DiffArgs>) -> Result<CallToolResult, ErrorData> {
        self.diff(args).await
    }

    #[tool(
        description = "Alias of get_diff: the images of one snapshot (whole page downscaled, region list, native-scale crops; `region` or `y`/`height` for one crop).",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_snapshot_diff(&self, Parameters(args): Parameters<DiffArgs>) -> Result<CallToolResult, ErrorData> {
        self.diff(args).await
    }

    #[tool(
        description = "The raw results.json of the last run (every field, paths relative to the project root).",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_report(&self) -> Result<CallToolResult, ErrorData> {
        Ok(match self.project.read_results() {
            Results::Found { raw, .. } => text(raw),
            Results::Absent(why) | Results::Broken(why) => failure(why),
        })
    }

    #[tool(
        name = "list_baselines",
        description = "The committed baselines: name, project, size in bytes and last modified date (UTC).",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn list_baselines_tool(&self) -> Result<CallToolResult, ErrorData> {
        let store = match self.store() {
            Ok(store) => store,
            Err(failed) => return Ok(failed),
        };
        let baselines = match list_baselines(&store) {
            Ok(b) => b,
            Err(e) => return Ok(failure(format!("cannot list the baselines: {e}"))),
        };
        if baselines.is_empty() {
            return Ok(text(format!(
                "No baselines in {}. They are written when a human approves a run's captures.",
                self.project.root.join(".sightline").join("baselines").display()
            )));
        }
        let mut lines = vec!["name\tproject\tbytes\tmodified".to_string()];
        for (name, project) in baselines {
            let (bytes, modified) = store
                .baseline_png(&name, &project)
                .ok()
                .and_then(|p| std::fs::metadata(p).ok())
                .map(|m| (m.len().to_string(), m.modified().ok().map(utc).unwrap_or_default()))
                .unwrap_or_default();
            lines.push(format!("{name}\t{project}\t{bytes}\t{modified}"));
        }
        Ok(text(lines.join("\n")))
    }

    #[tool(
        description = "Promote this run's capture of one snapshot to its approved baseline (every project, or only `project`). Call ONLY after a human has reviewed the change and explicitly said to approve it; never on your own judgement. Unhealthy or unsettled captures are held (listed, not approved) unless `includeUnhealthy` is true. With `asVariant` the baseline stays and the capture is added beside it as an accepted variant (another legitimate state of the page).",
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false),
        meta = approval_meta()
    )]
    async fn approve_snapshot(&self, Parameters(args): Parameters<ApproveArgs>) -> Result<CallToolResult, ErrorData> {
        checked(&SnapshotArgs { name: args.name.clone(), project: args.project.clone() })?;
        // A broken config file is the answer first, as for every project tool.
        let store = match self.store() {
            Ok(store) => store,
            Err(failed) => return Ok(failed),
        };
        let run = match self.last_run() {
            Ok(run) => run,
            Err(failed) => return Ok(failed),
        };
        // Only what the human could have reviewed: a changed or new snapshot of the last run, in
        // the capture its report shows (not one a newer run has written since).
        let accept = if args.as_variant { Accept::Variant } else { Accept::Baseline };
        let project = args.project.as_deref();
        Ok(match run.approve_as_reviewed(&store, &args.name, project, args.include_unhealthy, accept) {
            // Nothing written is not a success: the human asked for an approval that did not happen.
            Ok(done) if done.approved.is_empty() => failure(approval_lines(&done).join("\n")),
            Ok(done) => text(approval_lines(&done).join("\n")),
            Err(e) => failure(e.to_string()),
        })
    }

    #[tool(
        description = "Promote every changed and new snapshot of the last run to its baseline. Call ONLY after a human has reviewed all of them and explicitly said to approve them all; never on your own judgement. Unhealthy or unsettled captures are held (listed, not approved) unless `includeUnhealthy` is true.",
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false),
        meta = approval_meta()
    )]
    async fn approve_all(&self, Parameters(args): Parameters<ApproveAllArgs>) -> Result<CallToolResult, ErrorData> {
        let run = match self.project.read_results() {
            Results::Found { results, raw } => self.review_run(*results, &raw),
            Results::Absent(why) | Results::Broken(why) => return Ok(failure(format!("Nothing to approve. {why}"))),
        };
        let pending: Vec<(String, String)> = run
            .results
            .to_approve()
            .into_iter()
            .map(|(name, project)| (name.to_string(), project.to_string()))
            .collect();
        if pending.is_empty() {
            return Ok(text("Nothing to approve: the last run has no changed or new snapshots."));
        }
        // Off the server's thread, one baseline per task (as `sightline approve --all`): encoding
        // a long page's PNG takes a while and the server keeps answering meanwhile.
        let store = match self.store() {
            Ok(store) => store,
            Err(failed) => return Ok(failed),
        };
        let outcomes = tokio::task::spawn_blocking(move || {
            use rayon::prelude::*;
            pending
                .par_iter()
                .map(|(name, project)| {
                    run.approve_as_reviewed(&store, name, Some(project), args.include_unhealthy, Accept::Baseline)
                })
                .collect::<Vec<_>>()
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("approve_all stopped: {e}"), None))?;
        let mut lines = Vec::new();
        let mut failed = false;
        for outcome in outcomes {
            match outcome {
                Ok(done) => lines.extend(approval_lines(&done)),
                Err(e) => {
                    failed = true;
                    // Each refusal names its snapshot (or the file of it that could not be read).
                    lines.push(format!("not approved: {e}"));
                }
            }
        }
        Ok(if failed { failure(lines.join("\n")) } else { text(lines.join("\n")) })
    }
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for SightlineServer {
    /// Every call is checked against the tool's schema first (see `arguments`), then routed.
    /// Only an unknown tool is a protocol error (JSON-RPC invalid params). What is wrong with a
    /// known tool's arguments, found by the check or by the tool itself, is the tool's answer
    /// with `isError`, as MCP 2025-11-25 asks of input validation (SEP-1303): clients hand tool
    /// errors to the model, which reads what to fix and calls again.
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let tools = self.tool_router.list_all();
        if let Some(problem) = arguments::check_call(&tools, &request.name, request.arguments.as_ref()) {
            if !tools.iter().any(|tool| tool.name == request.name) {
                return Err(ErrorData::invalid_params(problem, None));
            }
            return Ok(failure(problem).into());
        }
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        match self.tool_router.call(call).await {
            Err(refused) if refused.code == rmcp::model::ErrorCode::INVALID_PARAMS => {
                Ok(failure(refused.message).into())
            }
            answered => answered,
        }
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_prompts().build())
            .with_server_info(Implementation::new("sightline", env!("CARGO_PKG_VERSION")).with_title("Sightline"))
            .with_instructions(
                "Sightline visual regression review. Start with get_visual_results, then explain_snapshot for each \
             changed or new snapshot. Never approve on your own: call approve_snapshot or approve_all only after a \
             human has confirmed. To look at a running page, call visual_check(url) (and the other live-page tools).",
            )
    }
}

/// A file time as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc(time: std::time::SystemTime) -> String {
    sightline_core::results::rfc3339(time)
}

/// The absolute root, so every path the tools print can be opened as is.
fn absolute_root(root: &Path) -> Result<PathBuf> {
    std::fs::canonicalize(root).with_context(|| format!("{}: not a folder (--root)", root.display()))
}

pub fn run(root: &Path, args: &McpArgs) -> Result<u8> {
    let root = absolute_root(root)?;
    // A bad config file must not stop the server before the handshake (the client would see only
    // "Connection closed"): it starts, says so here, and each tool that reads the project answers
    // with the error. Unreadable, the approve tools keep their confirmation prompt.
    let config = match sightline_core::config::Settings::read(&root) {
        Ok(config) => Some(config),
        Err(e) => {
            eprintln!("sightline: {e}; the MCP server starts anyway and its project tools report it");
            None
        }
    };
    let approval_prompt = if args.no_approval_prompt {
        false
    } else if args.approval_prompt {
        true
    } else {
        config.as_ref().is_none_or(|c| c.mcp_approval_prompt)
    };
    let server = SightlineServer::new(Project { root: root.clone() }, approval_prompt);
    eprintln!(
        "sightline: MCP server on stdio for {} (approval prompt {})",
        root.display(),
        if approval_prompt { "on" } else { "off" }
    );
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the runtime")?;
    runtime.block_on(async move {
        let service = server.serve(rmcp::transport::stdio()).await.context("starting the MCP session")?;
        service.waiting().await.context("serving MCP")?;
        anyhow::Ok(())
    })?;
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ping, visual_check, get_console_logs, verify_accessibility, detect_layout_shift,
    /// detect_flash, measure_element, test_viewports, capture_dom_state, compare_snapshots,
    /// capture_visual_state, visual_verify, submit_visual_response.
    pub(super) const LIVE_TOOLS: usize = 13;
    /// capture_frames, compare_designs, compare_motion, extract_video_frames.
    pub(super) const DESIGN_TOOLS: usize = 4;

    #[test]
    fn formats_utc_dates() {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        assert_eq!(utc(t), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn approval_marker_follows_the_flag() {
        let project = || Project { root: PathBuf::from("/r") };
        let on = SightlineServer::new(project(), true).tool_router.list_all();
        let off = SightlineServer::new(project(), false).tool_router.list_all();
        for name in APPROVE_TOOLS {
            let find = |tools: &[rmcp::model::Tool]| tools.iter().find(|t| t.name == name).cloned().unwrap();
            let with = find(&on);
            assert_eq!(with.meta.unwrap().0["anthropic/requiresUserInteraction"], Value::Bool(true));
            assert_eq!(with.annotations.unwrap().destructive_hint, Some(true));
            assert!(find(&off).meta.is_none());
        }
        assert_eq!(on.len(), 8 + DESIGN_TOOLS + LIVE_TOOLS);
    }

    /// A property's schema description, as a client reads it.
    fn described(tools: &[rmcp::model::Tool], tool: &str, property: &str) -> String {
        let tool = tools.iter().find(|t| t.name == tool).unwrap();
        tool.input_schema["properties"][property]["description"].as_str().unwrap().replace('\n', " ")
    }

    #[test]
    fn descriptions_say_the_limits_the_tools_enforce() {
        let tools = SightlineServer::new(Project { root: PathBuf::from("/r") }, true).tool_router.list_all();
        let limit = sightline_core::motion::MAX_FRAMES_LIMIT;
        assert!(described(&tools, "compare_motion", "maxFrames").contains(&format!("2–{limit}")));
        let height = described(&tools, "get_diff", "height");
        assert!(height.starts_with("Rows of the band, at least 1") && height.contains("the `y` to continue from"));
        // With outDir the frames go there, not under .sightline/frames.
        let frames = tools.iter().find(|t| t.name == "capture_frames").unwrap();
        assert!(frames.description.as_deref().unwrap().contains("under .sightline/frames (or into outDir)"));
    }

    #[test]
    fn rejects_unsafe_names() {
        // Each rejection is invalid_params naming the argument and what is wrong with it.
        let rejected = |name: &str, project: Option<&str>| {
            let e = checked(&SnapshotArgs { name: name.into(), project: project.map(Into::into) }).unwrap_err();
            assert_eq!(e.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{e:?}");
            e.message.into_owned()
        };
        assert_eq!(
            rejected("../x", None),
            "name: snapshot name \"../x\" contains '..'; use letters, digits, '-', '_' and '.', with '/' between folders, e.g. \"checkout-page\" or \"cards/lamp\""
        );
        assert_eq!(rejected("home", Some("a/b")), "project: \"a/b\" is not a Playwright project name");
        assert_eq!(rejected("home", Some("..")), "project: \"..\" is not a Playwright project name");
        assert_eq!(rejected("home", Some("")), "project: \"\" is not a Playwright project name");
        let ok = SnapshotArgs { name: "home".into(), project: Some("chromium".into()) };
        assert!(checked(&ok).is_ok());
    }
}

#[cfg(test)]
mod in_process {
    use rmcp::model::{CallToolRequestParams, GetPromptRequestParams};

    use super::*;

    fn args(value: Value) -> serde_json::Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    /// The message of an `invalid_params` error; anything else (a success, a tool error, another
    /// code) fails the test.
    pub(super) fn invalid_params<T: std::fmt::Debug>(result: Result<T, rmcp::ServiceError>) -> String {
        match result {
            Err(rmcp::ServiceError::McpError(e)) => {
                assert_eq!(e.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{e:?}");
                e.message.into_owned()
            }
            other => panic!("expected invalid_params, got {other:?}"),
        }
    }

    /// The message of a tool's answer to arguments it refuses: a result with `isError` and one
    /// text block (SEP-1303); a protocol error or a success fails the test.
    pub(super) fn refused(result: Result<rmcp::model::CallToolResult, rmcp::ServiceError>) -> String {
        let result = result.unwrap_or_else(|e| panic!("expected a tool error, got {e:?}"));
        assert_eq!(result.is_error, Some(true), "{result:?}");
        only_text(&result)
    }

    /// The one text block of a tool answer.
    pub(super) fn only_text(result: &rmcp::model::CallToolResult) -> String {
        assert_eq!(result.content.len(), 1, "{result:?}");
        result.content[0].as_text().map(|t| t.text.clone()).unwrap_or_else(|| panic!("not text: {result:?}"))
    }

    /// The server and a client over `tokio::io::duplex`: listing, a reader, an unsafe name that
    /// fails while the session keeps serving.
    #[tokio::test(flavor = "current_thread")]
    async fn serves_tools_over_a_duplex_pipe() {
        let root = std::env::temp_dir().join(format!("sightline-mcp-inproc-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let server = SightlineServer::new(Project { root: root.clone() }, true);
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let serving = tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
        let client = ().serve(client_io).await.unwrap();

        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(tools.len(), 8 + super::tests::DESIGN_TOOLS + super::tests::LIVE_TOOLS);
        let approve = tools.iter().find(|t| t.name == "approve_snapshot").unwrap();
        assert!(approve.meta.as_ref().is_some_and(|m| m.0.contains_key("anthropic/requiresUserInteraction")));

        let summary = client.call_tool(CallToolRequestParams::new("get_visual_results")).await.unwrap();
        // No run to summarise: an error result, closed by the approval rule.
        assert_eq!(summary.is_error, Some(true));
        assert_eq!(
            only_text(&summary),
            format!(
                "No results at visual-report/results.json: the tests have not run here yet (no captures in \
                 .sightline/temp/). Run the Playwright tests with the sightline reporter (npx playwright test), then \
                 ask again.\n\n{}",
                view::APPROVAL_RULE
            )
        );

        let unsafe_name = client
            .call_tool(
                CallToolRequestParams::new("explain_snapshot")
                    .with_arguments(args(serde_json::json!({"name": "../x"}))),
            )
            .await;
        assert_eq!(
            refused(unsafe_name),
            "name: snapshot name \"../x\" contains '..'; use letters, digits, '-', '_' and '.', with '/' between folders, e.g. \"checkout-page\" or \"cards/lamp\""
        );
        // No arguments at all: the required one is named before rmcp's extractor sees the call.
        let missing = client.call_tool(CallToolRequestParams::new("approve_snapshot")).await;
        assert_eq!(refused(missing), "approve_snapshot: argument \"name\" is required (string)");
        let listed = client.call_tool(CallToolRequestParams::new("list_baselines")).await.unwrap();
        assert_eq!(
            only_text(&listed),
            format!(
                "No baselines in {}. They are written when a human approves a run's captures.",
                root.join(".sightline/baselines").display()
            ),
            "still serving"
        );

        let prompts = client.list_all_prompts().await.unwrap();
        assert_eq!(prompts.len(), 2);
        let triage = client
            .get_prompt(
                GetPromptRequestParams::new("triage-visual-diff")
                    .with_arguments(args(serde_json::json!({"snapshot": "home", "intent": "rebrand to red"}))),
            )
            .await
            .unwrap();
        // The prompt served is the text the module builds for these arguments, whole.
        assert_eq!(triage.messages.len(), 1, "{triage:?}");
        let served = serde_json::to_value(&triage.messages[0]).unwrap();
        assert_eq!(served["content"]["text"], prompts::triage_text(Some("home"), Some("rebrand to red")));
        let bad = client
            .get_prompt(
                GetPromptRequestParams::new("triage-visual-diff")
                    .with_arguments(args(serde_json::json!({"snapshot": "../x"}))),
            )
            .await;
        assert_eq!(
            invalid_params(bad),
            "snapshot: snapshot name \"../x\" contains '..'; use letters, digits, '-', '_' and '.', with '/' between folders, e.g. \"checkout-page\" or \"cards/lamp\""
        );

        client.cancel().await.unwrap();
        let _ = serving.await;
        let _ = std::fs::remove_dir_all(&root);
    }
}
