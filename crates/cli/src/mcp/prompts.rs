//! The MCP prompts (03-mcp.md "Prompts"): `review-visual-changes` and `triage-visual-diff`. Each
//! returns one user message carrying the workflow and the rules the model must follow.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{GetPromptResult, PromptMessage, Role};
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ErrorData, prompt, prompt_router};
use serde::Deserialize;
use sightline_core::layout::check_snapshot_name;

use super::SightlineServer;

/// Arguments of `triage-visual-diff`; both optional.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TriageArgs {
    /// Only this snapshot (its name, as in results.json); every changed/new snapshot and missing
    /// baseline when absent.
    #[serde(default)]
    pub snapshot: Option<String>,
    /// What the change was meant to do (e.g. "rebrand to red"), to judge intended vs bug.
    #[serde(default)]
    pub intent: Option<String>,
}

pub(super) const REVIEW_TEXT: &str = "\
Review the visual changes of the last Sightline run.

1. Call get_visual_results for the summary.
2. Call explain_snapshot for each change (every changed or new snapshot and every missing baseline).
3. Call get_diff when the evidence is ambiguous, and always when styles were not compared \
(styleCheck \"unavailable\" or no DOM data).
4. Give per snapshot a recommendation: approve, investigate, or likely noise, with the evidence behind it.

Rules:
- \"Likely noise\" only for identical DOM with styles compared and matching and a small scattered diff.
- A concentrated diff or one over 1% gets its own verdict (approve or investigate), never \"likely noise\".
- Never approve on your own. To accept, the user says so and the client calls approve_snapshot.";

/// The message of `triage-visual-diff`, naming the snapshot and the intent when given.
pub(super) fn triage_text(snapshot: Option<&str>, intent: Option<&str>) -> String {
    let scope = match snapshot {
        Some(name) => format!(
            "Triage the visual diff of snapshot \"{name}\" in the last Sightline run: call explain_snapshot for it \
             (get_visual_results first if it is not found)."
        ),
        None => "Triage the visual diffs of the last Sightline run: call get_visual_results, then explain_snapshot \
                 for every changed/new snapshot and every missing baseline."
            .to_string(),
    };
    let intent = match intent {
        Some(text) => format!("Stated intent of the change: \"{text}\"."),
        None => "No intent was stated here; look for one in the conversation or the task.".to_string(),
    };
    format!(
        "{scope} Call get_diff to look at the images when the evidence needs it.

{intent}

For each snapshot give exactly one verdict, with a confidence (high, medium or low), the evidence and the next step:
- glitch: the page did not change (render noise, a bad capture on either side, a resource that failed).
- intended change: a real change that matches the stated intent.
- bug: a real change the intent does not explain or that breaks the page.
- possible bug: a real change with the intent unclear or the evidence incomplete; say what to check.

Rules:
- Changed DOM or `styleCheck: mismatch` is never a glitch.
- Identical DOM with styles not compared is decided by the images, not the DOM.
- Noise is small and scattered, so a larger or local diff with identical DOM and matching styles is a glitch \
only when nothing the change touched could cause it; then name the wrong image (baseline or current); a bad \
baseline is replaced from a capture two runs agree on.
- A missing baseline is never a glitch: a removed/renamed test, or a test broken before capture, is a possible \
bug; check the log. Approving does nothing for it; removing it on purpose deletes its baseline file.
- With no intent stated anywhere, a real change is a possible bug.
- Never call an approve tool (approve_snapshot, approve_all); approving is the user's decision."
    )
}

fn user_message(text: impl Into<String>) -> GetPromptResult {
    GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
}

#[prompt_router(vis = "pub(super)")]
impl SightlineServer {
    #[prompt(
        name = "review-visual-changes",
        description = "Review the last run's visual changes: summary, evidence per change, images when ambiguous, then a recommendation per snapshot (approve, investigate, likely noise). Approval stays with the user."
    )]
    async fn review_visual_changes(&self) -> GetPromptResult {
        user_message(REVIEW_TEXT)
    }

    #[prompt(
        name = "triage-visual-diff",
        description = "Classify each changed/new snapshot and missing baseline (or only `snapshot`) as glitch, intended change, bug or possible bug, with confidence, evidence and next step, against the stated `intent`. Never approves."
    )]
    async fn triage_visual_diff(&self, Parameters(args): Parameters<TriageArgs>) -> Result<GetPromptResult, ErrorData> {
        let snapshot = args.snapshot.as_deref().filter(|s| !s.is_empty());
        if let Some(name) = snapshot {
            check_snapshot_name(name).map_err(|e| ErrorData::invalid_params(format!("snapshot: {e}"), None))?;
        }
        let intent = args.intent.as_deref().map(str::trim).filter(|s| !s.is_empty());
        Ok(user_message(triage_text(snapshot, intent)))
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::mcp::view::Project;

    #[test]
    fn lists_both_prompts_with_optional_arguments() {
        let server = SightlineServer::new(Project { root: PathBuf::from("/r") }, true);
        let prompts = server.prompt_router.list_all();
        let mut names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["review-visual-changes", "triage-visual-diff"]);
        let review = prompts.iter().find(|p| p.name == "review-visual-changes").unwrap();
        assert!(review.arguments.as_ref().is_none_or(|a| a.is_empty()));
        let triage = prompts.iter().find(|p| p.name == "triage-visual-diff").unwrap();
        let args = triage.arguments.as_ref().unwrap();
        let mut arg_names: Vec<&str> = args.iter().map(|a| a.name.as_str()).collect();
        arg_names.sort_unstable();
        assert_eq!(arg_names, ["intent", "snapshot"]);
        assert!(args.iter().all(|a| a.required != Some(true)));
    }

    #[test]
    fn triage_names_the_snapshot_and_intent() {
        // The first paragraph scopes the triage, the second states the intent; the rules follow.
        let text = triage_text(Some("home"), Some("rebrand to red"));
        let paragraphs: Vec<&str> = text.split("\n\n").collect();
        assert_eq!(
            paragraphs[0],
            "Triage the visual diff of snapshot \"home\" in the last Sightline run: call explain_snapshot for it \
             (get_visual_results first if it is not found). Call get_diff to look at the images when the evidence needs it."
        );
        assert_eq!(paragraphs[1], "Stated intent of the change: \"rebrand to red\".");
        assert!(text.ends_with(
            "- With no intent stated anywhere, a real change is a possible bug.\n- Never call an approve tool \
             (approve_snapshot, approve_all); approving is the user's decision."
        ));
        let all = triage_text(None, None);
        let paragraphs: Vec<&str> = all.split("\n\n").collect();
        assert_eq!(
            paragraphs[0],
            "Triage the visual diffs of the last Sightline run: call get_visual_results, then explain_snapshot for \
             every changed/new snapshot and every missing baseline. Call get_diff to look at the images when the \
             evidence needs it."
        );
        assert_eq!(paragraphs[1], "No intent was stated here; look for one in the conversation or the task.");
        assert_eq!(all.split("\n\n").skip(2).collect::<Vec<_>>(), text.split("\n\n").skip(2).collect::<Vec<_>>());
        assert!(REVIEW_TEXT.contains("\"Likely noise\" only for identical DOM with styles compared and matching"));
    }
}
