//! `visual_verify` and `submit_visual_response`: the core builds challenges from the page's DOM
//! and checks the answers; this module keeps the sessions (the challenges with their withheld
//! answers) in memory for 5 minutes (`SIGHTLINE_VERIFY_TTL_MS`), at most [`MAX_SESSIONS`], and
//! how many responses each page's questions took.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ErrorData, tool, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};
use sightline_core::visual_verify::{
    BuildError, Challenge, Criterion, VerifyFacts, answers_from, build_challenges, check_criteria, judge_response,
    looking_prompt,
};

use super::super::{SightlineServer, failure};
use super::{bad, pretty, url_checked};
use crate::live::{call_timeout, screenshot_dir};

/// Verification sessions kept; the oldest goes first.
pub const MAX_SESSIONS: usize = 100;
/// How long a verification session lives unless `SIGHTLINE_VERIFY_TTL_MS` says otherwise.
const SESSION_TTL: Duration = Duration::from_secs(5 * 60);
/// Responses the same questions accept, so answers cannot be found by trying them all. A page
/// asks the same questions in every session, so the count is kept per page (its own questions),
/// not per session: a new session would otherwise bring three more tries at the same answers.
const MAX_ATTEMPTS: u32 = 3;

/// One visual_verify session: the challenges with their withheld answers.
struct Session {
    created: Instant,
    url: String,
    /// The page's site ([`site_of`]): while the session is open, the other live tools do not
    /// open pages of it.
    site: String,
    /// A response was trusted: the looking model's work is done.
    trusted: bool,
    query: String,
    challenges: Vec<Challenge>,
    /// The page's own questions, one a line: what the response count is kept by.
    questions: String,
}

/// The responses one page's questions took, and when the last came.
struct Responses {
    count: u32,
    last: Instant,
}

pub(super) struct Sessions {
    ttl: Duration,
    kept: HashMap<String, Session>,
    /// By the page's own questions; forgotten a TTL after the last response.
    responses: HashMap<String, Responses>,
}

impl Sessions {
    /// No sessions yet; they live [`SESSION_TTL`] unless `SIGHTLINE_VERIFY_TTL_MS` says otherwise.
    pub(super) fn from_env() -> Self {
        let ttl = std::env::var("SIGHTLINE_VERIFY_TTL_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(SESSION_TTL, Duration::from_millis);
        Sessions { ttl, kept: HashMap::new(), responses: HashMap::new() }
    }

    fn insert(&mut self, session: Session) -> String {
        self.expire();
        while self.kept.len() >= MAX_SESSIONS {
            let oldest = self.kept.iter().min_by_key(|(_, s)| s.created).map(|(id, _)| id.clone());
            let Some(oldest) = oldest else { break };
            self.kept.remove(&oldest);
        }
        let id = session_id();
        self.kept.insert(id.clone(), session);
        id
    }

    /// The seconds left of the longest open session on `site`, if any. A session is open until it
    /// expires, a response to it is trusted, or its questions took their responses.
    fn open_on(&mut self, site: &str) -> Option<u64> {
        self.expire();
        let exhausted = |s: &Session| self.responses.get(&s.questions).is_some_and(|r| r.count >= MAX_ATTEMPTS);
        self.kept
            .values()
            .filter(|s| s.site == site && !s.trusted && !exhausted(s))
            .map(|s| self.ttl.saturating_sub(s.created.elapsed()).as_secs().max(1))
            .max()
    }

    fn expire(&mut self) {
        let ttl = self.ttl;
        self.kept.retain(|_, s| s.created.elapsed() < ttl);
        self.responses.retain(|_, r| r.last.elapsed() < ttl);
    }

    /// Counts one response to session `id` and returns it with the responses its questions have
    /// left; an unknown or expired session, or questions that took [`MAX_ATTEMPTS`] responses in
    /// any sessions within the TTL, is the error to show.
    fn respond(&mut self, id: &str) -> Result<(&Session, u32), String> {
        self.expire();
        let ttl = self.ttl.as_secs_f64();
        let Some(session) = self.kept.get(id) else {
            return Err(format!(
                "no verification session {id:?}: it expired (sessions last {ttl} s), made way for newer ones (at most \
                 {MAX_SESSIONS} are kept) or never existed; call visual_verify again"
            ));
        };
        let taken =
            self.responses.entry(session.questions.clone()).or_insert(Responses { count: 0, last: Instant::now() });
        if taken.count >= MAX_ATTEMPTS {
            return Err(format!(
                "session {id}: its questions already took {MAX_ATTEMPTS} responses (every session of this page asks \
                 the same ones, so they share the {MAX_ATTEMPTS}); they take responses again {ttl} s after the last \
                 one, or verify another part of the page with `selector`"
            ));
        }
        taken.count += 1;
        taken.last = Instant::now();
        Ok((session, MAX_ATTEMPTS - taken.count))
    }
}

/// The site of a page, as a verification keeps other tools away from it: scheme, host and port
/// as the browser normalises them (`HTTP://LocalHost:80/` is `http://localhost`), the loopback
/// names (`localhost`, 127.0.0.0/8, `::1`) as one host, and every `file://` page as one site.
fn site_of(url: &str) -> String {
    let Ok(parsed) = url::Url::parse(url) else { return url.to_string() };
    if parsed.scheme() == "file" {
        return "file://".to_string();
    }
    let loopback = match parsed.host() {
        Some(url::Host::Domain(name)) => name == "localhost" || name.ends_with(".localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    let host = if loopback { "loopback".to_string() } else { parsed.host_str().unwrap_or("").to_string() };
    match parsed.port_or_known_default() {
        Some(port) => format!("{}://{host}:{port}", parsed.scheme()),
        None => format!("{}://{host}", parsed.scheme()),
    }
}

impl SightlineServer {
    /// The refusal a live tool answers with while a visual_verify session on `url`'s site is open:
    /// the looking model must answer from its screenshot, not from a tool that reads the page's
    /// text, styles or boxes. `None` when no session is open there.
    pub(crate) fn verification_open(&self, url: &str) -> Option<CallToolResult> {
        let site = site_of(url);
        let left = self.live.sessions.lock().expect("sessions").open_on(&site)?;
        Some(failure(format!(
            "a visual_verify session on this site ({site}) is open: until a response to it is trusted, its questions \
             have taken their 3 responses, or it expires in {left} s, the live tools do not open its pages, so the \
             looking model's answers come from its screenshot alone. Submit the response first (submit_visual_response)"
        )))
    }
}

/// An id nobody can guess: 128 bits from the standard library's per-process random hash keys,
/// mixed with the time.
fn session_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut halves = [0u64; 2];
    for half in &mut halves {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
        *half = h.finish();
    }
    format!("verify-{:016x}{:016x}", halves[0], halves[1])
}

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
        url_checked(&args.url)?;
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
        let params = json!({"url": args.url, "selector": args.selector, "outDir": out_dir});
        let answer = match self.live.worker.call("verifyFacts", params, call_timeout()).await {
            Ok(answer) => answer,
            Err(e) => return Ok(failure(e)),
        };
        let facts: VerifyFacts = match serde_json::from_value(answer.clone()) {
            Ok(facts) => facts,
            Err(e) => return Ok(failure(format!("the worker's page facts are not what this version reads ({e})"))),
        };
        let challenges = match build_challenges(&facts, &args.url, &criteria) {
            Ok(challenges) => challenges,
            Err(BuildError::BadCriteria(e)) => return Err(bad(e)),
            // Too little on the page to ask about: say so rather than hand out a pass.
            Err(BuildError::NotPossible(why)) => return Ok(failure(why)),
        };
        let Some(screenshot) = answer["screenshot"].as_str().map(String::from) else {
            return Ok(failure("the worker took no screenshot"));
        };
        let listed: Vec<Value> =
            challenges.iter().map(|c| json!({"id": c.id, "question": c.question, "format": c.format})).collect();
        let questions = challenges.iter().filter(|c| !c.by_caller).map(|c| c.question.as_str()).collect::<Vec<_>>();
        let mut sessions = self.live.sessions.lock().expect("sessions");
        let ttl = sessions.ttl;
        let id = sessions.insert(Session {
            created: Instant::now(),
            url: args.url.clone(),
            site: site_of(&args.url),
            trusted: false,
            query: args.query.clone(),
            // The prompt below lists them too; the session keeps their withheld answers.
            challenges: challenges.clone(),
            // The caller's criteria are left out: changing them must not buy more tries.
            questions: questions.join("\n"),
        });
        drop(sessions);
        let prompt = looking_prompt(&screenshot, &challenges, &args.query, &id);
        Ok(pretty(&json!({
            "sessionId": id,
            "expiresInSeconds": ttl.as_secs_f64(),
            "screenshot": screenshot,
            "challenges": listed,
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
        let (session, left) = match sessions.respond(&args.session_id) {
            Ok(taken) => taken,
            Err(why) => return Ok(failure(why)),
        };
        let verdict = judge_response(&session.challenges, &answers);
        let mut reply = json!({
            "sessionId": args.session_id,
            "url": session.url,
            "query": session.query,
            "queryAnswer": args.query_answer,
            "summary": verdict.summary,
            "trusted": verdict.trusted,
            "score": verdict.score,
            "passed": verdict.passed,
            "total": verdict.total,
            "failed": verdict.failed,
            "attemptsLeft": left,
        });
        if !verdict.unscored.is_empty() {
            reply["unscored"] = json!(verdict.unscored);
        }
        if verdict.trusted {
            // The looking model's work is done: the site is free for the other tools again.
            sessions.kept.get_mut(&args.session_id).expect("just responded").trusted = true;
        }
        Ok(pretty(&reply))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session of `site` asking `questions`, made now.
    fn session(site: &str, questions: &str) -> Session {
        Session {
            created: Instant::now(),
            url: "u".into(),
            site: site.into(),
            trusted: false,
            query: "q".into(),
            challenges: Vec::new(),
            questions: questions.into(),
        }
    }

    /// No sessions yet, living a minute.
    fn sessions() -> Sessions {
        Sessions { ttl: Duration::from_secs(60), kept: HashMap::new(), responses: HashMap::new() }
    }

    #[test]
    fn verify_sessions_expire_and_are_bounded() {
        let session = || session("http://example.com:80", "q");
        let mut sessions = sessions();
        let first = sessions.insert(session());
        assert_ne!(first, sessions.insert(session()), "ids differ");
        // Age the sessions by moving their creation back instead of sleeping past the TTL: one
        // just inside it stays, one just past it goes.
        let now = Instant::now();
        let second = sessions.kept.keys().find(|id| **id != first).cloned().unwrap();
        sessions.kept.get_mut(&first).unwrap().created = now - Duration::from_secs(61);
        sessions.kept.get_mut(&second).unwrap().created = now - Duration::from_secs(59);
        sessions.expire();
        assert_eq!(sessions.kept.keys().cloned().collect::<Vec<_>>(), vec![second]);
        sessions.kept.clear();
        for _ in 0..MAX_SESSIONS + 5 {
            sessions.insert(session());
        }
        assert_eq!(sessions.kept.len(), MAX_SESSIONS);
    }

    #[test]
    fn verify_a_site_is_one_site_by_every_name_of_it() {
        for same in [
            "http://localhost:4173/a",
            "HTTP://127.0.0.1:4173/b?x#y",
            "http://user@[::1]:4173/",
            "http://127.1.2.3:4173",
        ] {
            assert_eq!(site_of(same), "http://loopback:4173", "{same}");
        }
        assert_eq!(site_of("https://Docs.Example.com/x"), "https://docs.example.com:443");
        assert_eq!(site_of("http://docs.example.com:80/"), "http://docs.example.com:80");
        assert_eq!(site_of("file:///srv/a/index.html"), "file://");
        assert_ne!(site_of("http://localhost:4173/"), site_of("http://localhost:4174/"));
    }

    #[test]
    fn verify_a_session_keeps_its_site_until_trusted_or_spent() {
        let session = |site: &str| session(site, site);
        let mut sessions = sessions();
        let shop = sessions.insert(session("http://loopback:4173"));
        let docs = sessions.insert(session("https://docs.example.com:443"));
        assert!(sessions.open_on("http://loopback:4173").is_some_and(|left| (59..=60).contains(&left)));
        assert_eq!(sessions.open_on("http://loopback:4174"), None);
        sessions.kept.get_mut(&shop).unwrap().trusted = true;
        assert_eq!(sessions.open_on("http://loopback:4173"), None, "trusted: done");
        for _ in 0..MAX_ATTEMPTS {
            sessions.respond(&docs).unwrap();
        }
        assert_eq!(sessions.open_on("https://docs.example.com:443"), None, "its responses spent");
    }

    #[test]
    fn verify_a_page_takes_three_responses_however_many_sessions_ask() {
        let session = |questions: &str| session("http://example.com:80", questions);
        let mut sessions = sessions();
        let first = sessions.insert(session("What does the largest heading say?"));
        let again = sessions.insert(session("What does the largest heading say?"));
        let other = sessions.insert(session("What does the first link from the top say?"));
        let left = |sessions: &mut Sessions, id: &str| sessions.respond(id).map(|(_, left)| left);
        assert_eq!(left(&mut sessions, &first), Ok(2));
        assert_eq!(left(&mut sessions, &first), Ok(1));
        // A new session of the same page asks the same questions: it gets the one try left.
        assert_eq!(left(&mut sessions, &again), Ok(0));
        let refusal = |id: &str| {
            format!(
                "session {id}: its questions already took 3 responses (every session of this page asks the same ones, so \
                 they share the 3); they take responses again 60 s after the last one, or verify another part of the \
                 page with `selector`"
            )
        };
        assert_eq!(left(&mut sessions, &again), Err(refusal(&again)));
        assert_eq!(left(&mut sessions, &first), Err(refusal(&first)));
        // Other questions (another page, or another part of it) have their own three.
        assert_eq!(left(&mut sessions, &other), Ok(2));
        // A TTL after the last response the page's questions are answered afresh (in a session
        // made since; the old ones are gone by then).
        for r in sessions.responses.values_mut() {
            r.last -= Duration::from_secs(61);
        }
        let later = sessions.insert(session("What does the largest heading say?"));
        assert_eq!(left(&mut sessions, &later), Ok(2));
        assert_eq!(
            left(&mut sessions, "verify-0"),
            Err("no verification session \"verify-0\": it expired (sessions last 60 s), made way for newer ones (at \
                 most 100 are kept) or never existed; call visual_verify again"
                .into())
        );
    }
}
