//! `visual_verify` / `submit_visual_response` (spec 05-live-pages): proof that a model looked at
//! a screenshot. Challenges are built from what the screenshot shows (`challenges`) or from
//! caller-given criteria with known answers; the expected answers stay here and are never shown.
//! Answers are checked (`answers`) and a response is `trusted` when at least [`TRUST_THRESHOLD`]
//! of the scored challenges pass, two thirds of the text ones among them. The sessions that keep
//! the challenges between the two tools, and the rules they follow (attempts, TTL, the site
//! lock), are `sessions`.

mod answers;
mod challenges;
mod sessions;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use answers::check_answer;
pub use challenges::{MIN_TEXT_CHALLENGES, build_challenges, check_criteria};
pub use sessions::{Judged, MAX_ATTEMPTS, MAX_SESSIONS, Refusal, SESSION_TTL, Session, Sessions, SiteLock, site_of};

use crate::page_check::Rgba;

/// Share of challenges a response must pass to be trusted.
pub const TRUST_THRESHOLD: f64 = 0.8;

/// The page facts challenges are built from (the worker's `verifyFactsInPage`).
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct VerifyFacts {
    /// The area the screenshot shows, `{x, y, width, height}` in page pixels.
    pub area: Area,
    pub title: String,
    /// The visible elements that carry text, in document order.
    pub items: Vec<TextItem>,
    pub counts: Counts,
    /// The visible text of the whole page, to choose labels it does not have.
    pub text: String,
    /// The screenshot of the area, when the worker was given a folder to write it into.
    pub screenshot: Option<String>,
}

/// The screenshot's area in page pixels.
#[derive(Debug, Clone, Copy, Deserialize, Default)]
#[serde(default)]
pub struct Area {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// What a text-bearing element is, as a question names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub enum ItemKind {
    Heading,
    #[default]
    Paragraph,
    Button,
    Link,
    ListItem,
}

/// One visible element with text.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct TextItem {
    pub kind: ItemKind,
    pub text: String,
    /// `[x, y, width, height]` of the text in page pixels.
    #[serde(rename = "box")]
    pub bounds: [f64; 4],
    /// Computed font size in px.
    pub font_size: f64,
    /// Computed text colour.
    pub color: String,
    /// Computed background colour.
    pub background: String,
}

/// Counts of visible things in the screenshot.
#[derive(Debug, Clone, Copy, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct Counts {
    pub headings: u64,
    pub images: u64,
    pub links: u64,
    pub buttons: u64,
    pub list_items: u64,
    pub inputs: u64,
}

/// A caller-given challenge: a question about the page and, to be scored, its known answer (a
/// string, a number, a boolean, a colour like "#1a4d8f", or region words like "top left").
/// Ghostlight's shape, a question with a `type` and no answer, is asked and reported unscored.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Criterion {
    pub question: String,
    #[serde(default)]
    pub expected: Option<Value>,
    /// The answer's kind when no answer is given: text, number, boolean, colour or position.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

/// Why no challenges could be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// The caller's criteria are malformed (their mistake: invalid params).
    BadCriteria(String),
    /// The page gives too little to ask about: a verification would prove nothing.
    NotPossible(String),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::BadCriteria(m) | BuildError::NotPossible(m) => f.write_str(m),
        }
    }
}

/// The withheld answer of a challenge.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    Text(String),
    Count(u64),
    Boolean(bool),
    Colour(Rgba),
    Position { vertical: Region, horizontal: Region },
}

/// A third of the page along one axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    Start,
    Middle,
    End,
}

/// One question for the looking model; `expected` never leaves this crate's callers' memory.
#[derive(Debug, Clone, Serialize)]
pub struct Challenge {
    pub id: String,
    pub question: String,
    /// How to answer: "text", "number", "yes or no", "colour as #rrggbb", "region words".
    pub format: &'static str,
    /// `None`: a caller's question without a known answer, reported but not scored.
    #[serde(skip)]
    pub expected: Option<Expected>,
    /// A caller's criterion rather than a challenge built from the page: the caller chose its
    /// question and answer, so it is checked but cannot make up for the page's own challenges.
    #[serde(skip)]
    pub by_caller: bool,
}

impl Challenge {
    fn new(n: usize, question: String, expected: Option<Expected>) -> Self {
        let format = expected.as_ref().map_or("text", format_of);
        Challenge { id: format!("c{n}"), question, format, expected, by_caller: false }
    }

    fn is_text(&self) -> bool {
        matches!(self.expected, Some(Expected::Text(_)))
    }
}

fn format_of(expected: &Expected) -> &'static str {
    match expected {
        Expected::Text(_) => "text",
        Expected::Count(_) => "number",
        Expected::Boolean(_) => "yes or no",
        Expected::Colour(_) => "colour as #rrggbb",
        Expected::Position { .. } => "region words: top/middle/bottom and left/center/right",
    }
}

/// The answer format of a Ghostlight `type`.
fn format_of_kind(kind: &str) -> Option<&'static str> {
    Some(match kind.to_ascii_lowercase().as_str() {
        "text" | "string" => "text",
        "number" | "count" | "integer" => "number",
        "boolean" | "bool" | "yes_no" | "yesno" => "yes or no",
        "colour" | "color" => "colour as #rrggbb",
        "position" | "region" | "location" => "region words: top/middle/bottom and left/center/right",
        _ => return None,
    })
}

/// The answers of a response by challenge id, from either shape a client sends: an object
/// (`{"c1": "…"}`) or Ghostlight's list (`[{"id": "c1", "answer": "…"}]`).
pub fn answers_from(value: &Value) -> Result<serde_json::Map<String, Value>, String> {
    match value {
        Value::Object(map) => Ok(map.clone()),
        Value::Array(list) => list
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                ListedAnswer::deserialize(entry)
                    .map(|listed| (listed.id, listed.answer))
                    .map_err(|_| format!("challenge_answers[{i}]: give {{\"id\": \"c1\", \"answer\": \"…\"}}"))
            })
            .collect(),
        _ => Err("challenge_answers: give an object keyed by challenge id ({\"c1\": \"…\"}) or a list of {\"id\", \"answer\"}".into()),
    }
}

/// One entry of Ghostlight's list of answers.
#[derive(Deserialize)]
struct ListedAnswer {
    /// The challenge's id (`c1`).
    id: String,
    /// The answer, of any JSON type (`null` too); required.
    answer: Value,
}

/// The verdict on one response.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyVerdict {
    /// "Trusted: 6 of 6 challenges passed. …" or "Not trusted: … Failed: c1 (…); …".
    pub summary: String,
    pub trusted: bool,
    pub passed: usize,
    /// Scored challenges.
    pub total: usize,
    /// Passed share, 0–1.
    pub score: f64,
    /// The questions that failed (their ids and wording, never their answers).
    pub failed: Vec<FailedChallenge>,
    /// The answers to the caller's questions without a known answer, as given (not scored);
    /// left out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unscored: Vec<UnscoredAnswer>,
}

/// A challenge the response got wrong, named without its answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailedChallenge {
    pub id: String,
    pub question: String,
}

/// A caller's question without a known answer and what the looking model said.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnscoredAnswer {
    pub id: String,
    pub question: String,
    pub answer: Option<String>,
}

/// Passed and scored challenges, and the same for the text ones among them.
#[derive(Default)]
struct Tally {
    passed: usize,
    total: usize,
    texts_passed: usize,
    texts: usize,
}

impl Tally {
    fn add(&mut self, text: bool, passed: bool) {
        self.total += 1;
        self.passed += usize::from(passed);
        if text {
            self.texts += 1;
            self.texts_passed += usize::from(passed);
        }
    }

    fn score(&self) -> f64 {
        if self.total == 0 { 0.0 } else { self.passed as f64 / self.total as f64 }
    }

    /// Two thirds of the text challenges: the text is what a model that did not look cannot know.
    fn texts_read(&self) -> bool {
        self.texts_passed * 3 >= self.texts * 2
    }

    fn enough(&self) -> bool {
        self.score() >= TRUST_THRESHOLD && self.texts_read()
    }
}

/// Checks every answer (by challenge id; a missing answer fails). Trusted takes
/// [`TRUST_THRESHOLD`] of the scored challenges and two thirds of the text ones, and the same of
/// the page's own challenges taken alone: the caller writes its criteria's questions and answers,
/// so criteria a model can answer without looking must not outvote the page.
pub fn judge_response(challenges: &[Challenge], answers: &serde_json::Map<String, Value>) -> VerifyVerdict {
    let mut failed = Vec::new();
    let mut unscored = Vec::new();
    let (mut all, mut page) = (Tally::default(), Tally::default());
    for c in challenges {
        let Some(expected) = &c.expected else {
            let answer = answers.get(&c.id).and_then(answers::answer_text);
            unscored.push(UnscoredAnswer { id: c.id.clone(), question: c.question.clone(), answer });
            continue;
        };
        let passed = answers.get(&c.id).is_some_and(|a| check_answer(expected, a));
        all.add(c.is_text(), passed);
        if !c.by_caller {
            page.add(c.is_text(), passed);
        }
        if !passed {
            failed.push(FailedChallenge { id: c.id.clone(), question: c.question.clone() });
        }
    }
    let (passed, total) = (all.passed, all.total);
    // A page with no challenges of its own (only possible with criteria) leaves them to the criteria.
    let page_held = page.total == 0 || page.enough();
    let trusted = total > 0 && all.enough() && page_held;
    let summary = if trusted {
        format!(
            "Trusted: {passed} of {total} challenges passed. The query answer below comes from a model that looked."
        )
    } else {
        let named: Vec<String> = failed.iter().map(|f| format!("{} ({})", f.id, f.question)).collect();
        // Said only when criteria were scored: without them the page's challenges are all there is.
        let page_note = if page_held || page.total == total {
            String::new()
        } else {
            format!(
                " and the page's own challenges to pass on their own: {} of {}, {} of {} text ones; the caller's \
                 criteria cannot stand in for them",
                page.passed, page.total, page.texts_passed, page.texts
            )
        };
        let texts_note = if all.texts_read() {
            String::new()
        } else {
            format!(" and two thirds of the {} text challenges", all.texts)
        };
        format!(
            "Not trusted: {passed} of {total} challenges passed (needs {} %{texts_note}{page_note}). Failed: {}. Do not \
             rely on the query answer.",
            (TRUST_THRESHOLD * 100.0).round(),
            named.join("; ")
        )
    };
    let score = all.score();
    VerifyVerdict { summary, trusted, passed, total, score: (score * 100.0).round() / 100.0, failed, unscored }
}

/// The prompt for the looking model (a fresh sub-agent): open the screenshot, answer the
/// challenges from it alone, answer the query, and submit everything under the session id. It
/// names no address or site, so the answers cannot come from what the model knows of the site,
/// and it says that guesses are caught.
pub fn looking_prompt(screenshot: &str, challenges: &[Challenge], query: &str, session_id: &str) -> String {
    let questions: Vec<String> =
        challenges.iter().map(|c| format!("{}. {} (answer: {})", c.id, c.question, c.format)).collect();
    format!(
        "You are an independent checker. Open the image {screenshot} and answer every question ONLY from what you \
         see in it. Do not open, fetch or search for the page, and do not answer from what pages like it usually \
         show: some questions ask about things that are not there, each answer is checked against the page, and a \
         guess fails the whole check. If something is not in the image, say so (for a yes/no question: no).\n\n\
         Questions:\n{}\n\nThen answer this from the image: {query}\n\nCall submit_visual_response with session_id \
         \"{session_id}\", challenge_answers as an object keyed by question id (e.g. {{\"c1\": \"...\"}}) and \
         query_answer.",
        questions.join("\n")
    )
}

#[cfg(test)]
mod tests;
