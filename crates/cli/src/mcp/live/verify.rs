//! `visual_verify` and `submit_visual_response`: the core builds challenges from the page's DOM,
//! keeps them in its sessions (`sightline_core::visual_verify::Sessions`: the TTL, the cap, the
//! three responses a page's questions take, the site lock) and checks the answers; this module
//! converts the arguments and renders the answers.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ErrorData, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sightline_core::visual_verify::{
    BuildError, Criterion, Session, VerifyVerdict, answers_from, build_challenges, check_criteria, looking_prompt,
};
use sightline_core::worker_protocol::VerifyFactsParams;

use super::super::{SightlineServer, failure};
use super::{bad, pretty};
use crate::live::{call_timeout, screenshot_dir};

/// Arguments of `visual_verify`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct VisualVerifyArgs {
    /// The page to open (http or https).
    pub url: String,
    /// What the looking model should answer about the page (e.g. "Does the pricing table show three plans?").
    pub query: String,
    /// Screenshot and challenges only for this element (a CSS selector).
    #[serde(default)]
    pub selector: Option<String>,
    /// Extra challenges: with a known answer, [{"question": "...", "expected": 12 | true | "#ff0000" | "top right" | "text"}], scored; or Ghostlight's [{"question": "...", "type": "boolean"}], asked and reported unscored.
    #[serde(default)]
    pub criteria: Option<Vec<CriterionArg>>,
}

/// A caller-given challenge, with its known answer or the kind of answer wanted.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CriterionArg {
    /// The question the looking model answers from the screenshot.
    pub question: String,
    /// The right answer, withheld from the model: a whole number (a count: exact up to 10, else within 10 %), a boolean, a colour ("#ff0000"), region words ("top right") or text (≥ 50 % of its telling words, common ones like "the" or "our" left out; all of them when it has only common words).
    #[serde(default)]
    pub expected: Option<Value>,
    /// Without `expected`: the kind of answer (text, number, boolean, colour, position); the answer is reported, not scored.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

/// Arguments of `submit_visual_response`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SubmitVisualArgs {
    /// The session id visual_verify returned.
    pub session_id: String,
    /// Answers by challenge id, e.g. {"c1": "Spring collection", "c2": "top left", "c3": 3}, or as a list [{"id": "c1", "answer": "Spring collection"}].
    #[schemars(with = "Value")]
    pub challenge_answers: Value,
    /// The looking model's answer to the query.
    pub query_answer: String,
}

#[tool_router(router = verify_tool_router, vis = "pub(crate)")]
impl SightlineServer {
    #[tool(
        description = "Proof that a model looked at the page: takes a screenshot and builds challenges a model that did not look cannot pass (at least three texts read from the screenshot, exact small counts, labels that may or may not be there, a colour, a position) plus any caller criteria, keeping the expected answers. Returns the screenshot path, the challenges, a session id (valid 5 minutes; the 100 newest are kept) and a ready prompt for a fresh sub-agent that must open the screenshot, answer, and call submit_visual_response. A page with too little readable text is refused: verification is not possible there.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = false, open_world_hint = true)
    )]
    async fn visual_verify(&self, Parameters(args): Parameters<VisualVerifyArgs>) -> Result<CallToolResult, ErrorData> {
        crate::live::check_url(&args.url).map_err(bad)?;
        if args.query.trim().is_empty() {
            return Err(bad("query: say what the looking model should answer about the page"));
        }
        let criteria: Vec<Criterion> = args
            .criteria
            .unwrap_or_default()
            .into_iter()
            .map(|c| Criterion { question: c.question, expected: c.expected, kind: c.kind })
            .collect();
        // Checked before the page opens: a bad criterion is the caller's mistake.
        check_criteria(&criteria).map_err(|e| bad(e.to_string()))?;
        let out_dir = match screenshot_dir(&self.project.root) {
            Ok(dir) => dir,
            Err(e) => return Ok(failure(e)),
        };
        let params = VerifyFactsParams { url: args.url.clone(), selector: args.selector, out_dir };
        let facts = match self.live.worker.call(&params, call_timeout()).await {
            Ok(facts) => facts,
            Err(e) => return Ok(failure(e)),
        };
        let challenges = match build_challenges(&facts, &args.url, &criteria) {
            Ok(challenges) => challenges,
            Err(BuildError::BadCriteria(e)) => return Err(bad(e)),
            // Too little on the page to ask about: say so rather than hand out a pass.
            Err(BuildError::NotPossible(why)) => return Ok(failure(why)),
        };
        let Some(screenshot) = facts.screenshot else {
            return Ok(failure("the worker took no screenshot"));
        };
        let mut sessions = self.live.sessions.lock().expect("sessions");
        let ttl = sessions.ttl();
        // The session keeps the challenges with their withheld answers; the answer lists them
        // without (a challenge serialises as its id, question and format), and so does the prompt.
        let id = sessions.open(Session::new(&args.url, &args.query, challenges.clone()));
        drop(sessions);
        let prompt = looking_prompt(&screenshot, &challenges, &args.query, &id);
        Ok(pretty(&json!({
            "sessionId": id,
            "expiresInSeconds": ttl.as_secs_f64(),
            "screenshot": screenshot,
            "challenges": challenges,
            "prompt": prompt,
        })))
    }

    #[tool(
        description = "Check a looking model's answers to a visual_verify session (an object keyed by challenge id, or a list of {id, answer}): text by word overlap (≥ 50 % of its telling words; the, our and the like do not count), counts exactly up to 10 (else within 10 %), yes/no, colours within ~5 %, positions by region words. trusted when ≥ 80 % pass and two thirds of the text challenges, of all of them and of the page's own alone (caller criteria cannot outvote the page); failed questions are named without their answers; criteria without a known answer are reported unscored. Sessions expire after 5 minutes; a page's questions take at most 3 responses in all its sessions, until 5 minutes after the last.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn submit_visual_response(
        &self,
        Parameters(args): Parameters<SubmitVisualArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let answers = answers_from(&args.challenge_answers).map_err(bad)?;
        let mut sessions = self.live.sessions.lock().expect("sessions");
        let judged = match sessions.respond(&args.session_id, &answers) {
            Ok(judged) => judged,
            Err(refused) => return Ok(failure(refused.to_string())),
        };
        Ok(pretty(&ResponseAnswer {
            session_id: &args.session_id,
            url: judged.session.url(),
            query: judged.session.query(),
            query_answer: &args.query_answer,
            verdict: &judged.verdict,
            attempts_left: judged.attempts_left,
        }))
    }
}

/// `submit_visual_response`'s answer: the session, the verdict and the responses left.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResponseAnswer<'a> {
    session_id: &'a str,
    url: &'a str,
    query: &'a str,
    query_answer: &'a str,
    #[serde(flatten)]
    verdict: &'a VerifyVerdict,
    attempts_left: u32,
}
