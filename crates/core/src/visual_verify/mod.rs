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
mod tests {
    use std::collections::BTreeSet;

    use serde_json::json;

    use super::*;

    /// A shop page: a title that names the shop, a banner heading, sections, a coloured button.
    fn facts() -> VerifyFacts {
        serde_json::from_value(json!({
            "area": {"x": 0, "y": 0, "width": 1280, "height": 900},
            "title": "Acme Shop",
            "items": [
                {"kind": "heading", "text": "Acme Shop", "box": [16, 10, 200, 30], "fontSize": 20, "color": "rgb(17, 17, 17)"},
                {"kind": "heading", "text": "Spring collection", "box": [16, 60, 400, 40], "fontSize": 32, "color": "rgb(17, 17, 17)"},
                {"kind": "paragraph", "text": "Light jackets and linen shirts for the first warm days.", "box": [16, 120, 600, 20], "fontSize": 16},
                {"kind": "button", "text": "Buy now", "box": [16, 300, 120, 48], "fontSize": 16, "background": "rgb(26, 77, 143)", "color": "rgb(255, 255, 255)"},
                {"kind": "heading", "text": "Delivery times", "box": [16, 500, 300, 30], "fontSize": 24, "color": "rgb(17, 17, 17)"},
                {"kind": "listItem", "text": "Free returns within thirty days", "box": [40, 560, 300, 20], "fontSize": 16},
                {"kind": "button", "text": "Wishlist", "box": [1100, 800, 100, 40], "fontSize": 16, "background": "rgb(255, 255, 255)"}
            ],
            "counts": {"headings": 3, "images": 2, "links": 4, "buttons": 2, "listItems": 3, "inputs": 0},
            "text": "Acme Shop Spring collection Light jackets and linen shirts for the first warm days. Buy now Delivery times Free returns within thirty days Wishlist"
        }))
        .unwrap()
    }

    fn answers(pairs: &[(&str, Value)]) -> serde_json::Map<String, Value> {
        pairs.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect()
    }

    /// The right answer to each challenge of `facts()`, as a model that looked gives it.
    fn sighted(c: &Challenge) -> Value {
        let q = c.question.as_str();
        let text = [
            ("largest heading", "Spring collection"),
            ("first heading", "Acme Shop"),
            ("second heading", "Spring collection"),
            ("first paragraph", "Light jackets and linen shirts for the first warm days."),
            ("first button", "Buy now"),
            ("bulleted or numbered entry from", "Free returns within thirty days"),
            ("lowest heading", "Delivery times"),
        ];
        if let Some((_, a)) = text.iter().find(|(k, _)| q.contains(k) && c.format == "text") {
            return json!(a);
        }
        match c.format {
            "number" if q.contains("images") => json!(2),
            "number" if q.contains("buttons") => json!(2),
            "number" if q.contains("headings") => json!(3),
            "number" => json!(3),
            "yes or no" => json!(if q.contains("\"Wishlist\"") { "yes" } else { "no" }),
            "colour as #rrggbb" => json!("#1a4d8f"),
            _ if q.contains("\"Delivery times\"") => json!("middle left"),
            other => panic!("no sighted answer for {q} ({other})"),
        }
    }

    #[test]
    fn visual_verify_asks_about_what_the_screenshot_shows_and_quotes_no_answer() {
        let c = build_challenges(&facts(), "http://127.0.0.1:4173/acme-shop", &[]).unwrap();
        let questions: BTreeSet<&str> = c.iter().map(|c| c.question.as_str()).collect();
        let expected: BTreeSet<&str> = [
            // Text by kind and rank; "Acme Shop" is the title's, so never asked.
            "What does the largest heading say?",
            "What does the first paragraph of body text from the top say?",
            "What is the label of the first button from the top?",
            "What does the first bulleted or numbered entry from the top say?",
            "How many headings does the screenshot show?",
            "How many bulleted or numbered entries does the screenshot show?",
            // One real label and two the page lacks, asked alike.
            "Is there a button labelled \"Wishlist\"?",
            "Is there a button labelled \"Checkout\"?",
            "Is there a button labelled \"Free shipping\"?",
            "What is the background colour of the first coloured (not white, grey or black) button from the top?",
            "Where in the screenshot is the text \"Delivery times\" (top/middle/bottom, left/center/right)?",
        ]
        .into();
        assert_eq!(questions, expected);
        assert_eq!(c.iter().filter(|c| c.format == "text").count(), 4);
        let ids: Vec<&str> = c.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, (1..=11).map(|i| format!("c{i}")).collect::<Vec<_>>());
        // No question carries another's answer; the expected answers are not serialised.
        let listed = serde_json::to_string(&c).unwrap();
        for secret in ["Spring", "Buy now", "Light jackets", "Free returns", "26, 77, 143"] {
            assert!(!listed.contains(secret), "{secret} leaked: {listed}");
        }
        // The same page asks the same way.
        let again = build_challenges(&facts(), "http://127.0.0.1:4173/acme-shop", &[]).unwrap();
        assert_eq!(serde_json::to_string(&again).unwrap(), listed);
    }

    /// The labels the yes/no questions quote, with their expected answers.
    fn yes_no(c: &[Challenge]) -> Vec<(&str, bool)> {
        c.iter()
            .filter_map(|c| match c.expected {
                Some(Expected::Boolean(b)) => Some((c.question.split('"').nth(1).unwrap(), b)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn visual_verify_yes_no_labels_are_of_one_family_so_the_list_does_not_answer_them() {
        // "Wishlist", a shop's label, is the real one: the two the page lacks are shop labels too,
        // so "no to whatever is on the list" gets the real one wrong.
        let c = build_challenges(&facts(), "http://127.0.0.1:4173/acme-shop", &[]).unwrap();
        let asked = yes_no(&c);
        assert_eq!(asked.iter().filter(|(_, yes)| *yes).map(|(l, _)| *l).collect::<Vec<_>>(), ["Wishlist"]);
        assert!(asked.iter().all(|(label, _)| challenges::LABEL_FAMILIES[0].contains(label)), "{asked:?}");
        // A documentation link shown: documentation labels, asked of a link.
        let mut docs = facts();
        let wishlist = docs.items.iter_mut().find(|i| i.text == "Wishlist").unwrap();
        (wishlist.kind, wishlist.text) = (ItemKind::Link, "Edit on GitHub".into());
        docs.text = docs.text.replace("Wishlist", "Edit on GitHub");
        let c = build_challenges(&docs, "http://127.0.0.1:4173/guide", &[]).unwrap();
        let asked = yes_no(&c);
        assert_eq!(asked.len(), 3);
        assert!(asked.contains(&("Edit on GitHub", true)), "{asked:?}");
        assert!(asked.iter().all(|(label, _)| challenges::LABEL_FAMILIES[2].contains(label)), "{asked:?}");
        assert!(
            c.iter().filter(|c| c.format == "yes or no").all(|c| c.question.starts_with("Is there a link that reads"))
        );
        // A label on no list: the page's own button, two absent labels of one family.
        let mut own = facts();
        own.items.iter_mut().find(|i| i.text == "Wishlist").unwrap().text = "Compare plans".into();
        own.text = own.text.replace("Wishlist", "Compare plans");
        let c = build_challenges(&own, "http://127.0.0.1:4173/acme-shop", &[]).unwrap();
        let asked = yes_no(&c);
        assert!(asked.contains(&("Compare plans", true)), "{asked:?}");
        let family =
            challenges::LABEL_FAMILIES.iter().find(|f| f.contains(&asked.iter().find(|(_, y)| !y).unwrap().0)).unwrap();
        assert!(asked.iter().filter(|(_, yes)| !yes).all(|(label, _)| family.contains(label)), "{asked:?}");
    }

    #[test]
    fn visual_verify_a_blind_model_is_never_trusted_and_a_sighted_one_is() {
        let c = build_challenges(&facts(), "http://127.0.0.1:4173/acme-shop", &[]).unwrap();
        let listed = serde_json::to_string(&c).unwrap();
        // Everything quoted in the tool's JSON, and the usual guesses, three tries.
        let quoted: Vec<String> = listed.split("\\\"").skip(1).step_by(2).map(str::to_string).collect();
        for attempt in 0..3 {
            let guess: serde_json::Map<String, Value> = c
                .iter()
                .map(|c| {
                    let a = match c.format {
                        "text" => json!(quoted.get(attempt).cloned().unwrap_or_default()),
                        "number" => json!(["1", "2", "3"][attempt]),
                        "yes or no" => json!("yes"),
                        "colour as #rrggbb" => json!("black"),
                        _ => json!("top left"),
                    };
                    (c.id.clone(), a)
                })
                .collect();
            let v = judge_response(&c, &guess);
            assert!(!v.trusted, "attempt {attempt}: {}", v.summary);
        }
        let right: serde_json::Map<String, Value> = c.iter().map(|c| (c.id.clone(), sighted(c))).collect();
        let v = judge_response(&c, &right);
        assert_eq!((v.trusted, v.passed, v.total), (true, 11, 11), "{}", v.summary);
    }

    #[test]
    fn visual_verify_caller_criteria_cannot_stand_in_for_the_page_challenges() {
        // A caller that wants a pass adds questions that carry their own answers: a model that
        // never opened the screenshot answers them all, and they outnumber the page's challenges.
        let easy: Vec<Criterion> = (0..40)
            .map(|i| {
                let word = format!("word{i}");
                serde_json::from_value(json!({"question": format!("Reply with the word {word}."), "expected": word}))
                    .unwrap()
            })
            .collect();
        let c = build_challenges(&facts(), "http://x/", &easy).unwrap();
        assert_eq!(c.len(), 51, "11 page challenges and 40 criteria");
        // Blind: "no idea" to every page challenge (which passes the two labels the page lacks),
        // every criterion answered from its own question: 42 of 51, above 80 %.
        let blind: serde_json::Map<String, Value> = c
            .iter()
            .map(|c| {
                let own = c.question.strip_prefix("Reply with the word ").map(|w| w.trim_end_matches('.'));
                (c.id.clone(), json!(own.unwrap_or("no idea")))
            })
            .collect();
        let v = judge_response(&c, &blind);
        assert_eq!((v.trusted, v.passed, v.total), (false, 42, 51), "{}", v.summary);
        assert!(
            v.summary.starts_with(
                "Not trusted: 42 of 51 challenges passed (needs 80 % and the page's own challenges to pass on their own: \
                 2 of 11, 0 of 4 text ones; the caller's criteria cannot stand in for them). Failed: "
            ),
            "{}",
            v.summary
        );
        // A model that looked passes the page's challenges and the criteria alike.
        let sighted_all: serde_json::Map<String, Value> = c
            .iter()
            .map(|ch| match ch.question.strip_prefix("Reply with the word ") {
                Some(w) => (ch.id.clone(), json!(w.trim_end_matches('.'))),
                None => (ch.id.clone(), sighted(ch)),
            })
            .collect();
        let v = judge_response(&c, &sighted_all);
        assert_eq!((v.trusted, v.passed, v.total), (true, 51, 51), "{}", v.summary);
    }

    #[test]
    fn visual_verify_refuses_a_page_with_too_little_to_ask() {
        let mut thin = facts();
        thin.items.retain(|i| i.kind == ItemKind::Button);
        let refused = build_challenges(&thin, "http://x/", &[]).unwrap_err();
        assert_eq!(
            refused,
            BuildError::NotPossible(
                "verification is not possible here: the screenshot shows too little readable text to ask about (1 text \
                 challenge found, 3 needed; text the page's title or address gives away does not count). Point \
                 `selector` at a part of the page with more text, or give at least 3 criteria with known answers."
                    .into()
            )
        );
        // Text the address gives away does not count either.
        let mut named = facts();
        named.items.retain(|i| i.kind == ItemKind::Heading);
        assert!(build_challenges(&named, "http://x/spring-collection/delivery-times", &[]).is_err());
        // Three criteria with known answers make it possible.
        let criteria: Vec<Criterion> = serde_json::from_value(json!([
            {"question": "How many products?", "expected": 12},
            {"question": "Is the banner shown?", "expected": false},
            {"question": "Footer text?", "expected": "All rights reserved"}
        ]))
        .unwrap();
        let c = build_challenges(&thin, "http://x/", &criteria).unwrap();
        let tail: Vec<&str> = c[c.len() - 3..].iter().map(|c| c.question.as_str()).collect();
        assert_eq!(tail, ["How many products?", "Is the banner shown?", "Footer text?"]);
    }

    #[test]
    fn visual_verify_trust_needs_the_text_challenges() {
        let c = build_challenges(&facts(), "http://x/", &[]).unwrap();
        // Everything but two of the four text challenges: 9 of 11 is 82 %, yet not trusted.
        let mut wrong_texts = 0;
        let mostly: serde_json::Map<String, Value> = c
            .iter()
            .map(|c| {
                let a = if c.format == "text" && wrong_texts < 2 {
                    wrong_texts += 1;
                    json!("no idea")
                } else {
                    sighted(c)
                };
                (c.id.clone(), a)
            })
            .collect();
        let v = judge_response(&c, &mostly);
        assert_eq!((v.trusted, v.passed, v.total), (false, 9, 11));
        assert!(
            v.summary.starts_with(
                "Not trusted: 9 of 11 challenges passed (needs 80 % and two thirds of the 4 text challenges). Failed: "
            ),
            "{}",
            v.summary
        );
        assert_eq!(judge_response(&c, &answers(&[])).passed, 0);
    }

    #[test]
    fn visual_verify_trust_needs_80_percent_even_with_every_text_challenge_right() {
        let c = build_challenges(&facts(), "http://x/", &[]).unwrap();
        // Every text challenge right and `wrong` of the counts and the colour wrong.
        let with_wrong = |wrong: usize| {
            let mut left = wrong;
            let given: serde_json::Map<String, Value> = c
                .iter()
                .map(|c| {
                    let miss = matches!(c.format, "number" | "colour as #rrggbb") && left > 0;
                    left -= usize::from(miss);
                    (c.id.clone(), if miss { json!("no idea") } else { sighted(c) })
                })
                .collect();
            judge_response(&c, &given)
        };
        // 8 of 11 is 73 %: the four texts read, yet below the threshold.
        let v = with_wrong(3);
        assert_eq!((v.trusted, v.passed, v.total, v.score), (false, 8, 11, 0.73), "{}", v.summary);
        // 9 of 11 is 82 %: trusted.
        let v = with_wrong(2);
        assert_eq!((v.trusted, v.passed, v.total, v.score), (true, 9, 11, 0.82), "{}", v.summary);
    }

    #[test]
    fn visual_verify_prompt_names_no_site_and_warns_of_guessing() {
        let c = build_challenges(&facts(), "http://x/", &[]).unwrap();
        let prompt = looking_prompt("/tmp/shot.png", &c[..1], "Is the sale on?", "verify-1");
        assert_eq!(
            prompt,
            format!(
                "You are an independent checker. Open the image /tmp/shot.png and answer every question ONLY from what \
                 you see in it. Do not open, fetch or search for the page, and do not answer from what pages like it \
                 usually show: some questions ask about things that are not there, each answer is checked against the \
                 page, and a guess fails the whole check. If something is not in the image, say so (for a yes/no \
                 question: no).\n\nQuestions:\nc1. {} (answer: {})\n\nThen answer this from the image: Is the sale \
                 on?\n\nCall submit_visual_response with session_id \"verify-1\", challenge_answers as an object keyed \
                 by question id (e.g. {{\"c1\": \"...\"}}) and query_answer.",
                c[0].question, c[0].format
            )
        );
    }

    #[test]
    fn visual_verify_caller_criteria_by_type_and_ghostlight_shapes() {
        let criteria: Vec<Criterion> = serde_json::from_value(json!([
            {"question": "How many products?", "expected": 12},
            {"question": "Is the banner shown?", "expected": false},
            {"question": "Header colour?", "expected": "#ff0000"},
            {"question": "Where is the logo?", "expected": "top right"},
            {"question": "Footer text?", "expected": "All rights reserved"},
            {"question": "Does the layout look balanced?", "type": "boolean"}
        ]))
        .unwrap();
        let c = build_challenges(&facts(), "http://x/", &criteria).unwrap();
        let tail = &c[c.len() - 6..];
        let formats: Vec<&str> = tail.iter().map(|c| c.format).collect();
        assert_eq!(
            formats,
            [
                "number",
                "yes or no",
                "colour as #rrggbb",
                "region words: top/middle/bottom and left/center/right",
                "text",
                "yes or no"
            ]
        );
        let expected = |i: usize| tail[i].expected.clone().unwrap();
        assert!(check_answer(&expected(0), &json!("12 products")));
        assert!(!check_answer(&expected(0), &json!("about 7")));
        assert!(check_answer(&expected(1), &json!("no, it is not")));
        assert!(check_answer(&expected(2), &json!("red")));
        assert!(check_answer(&expected(3), &json!("upper right")));
        assert!(check_answer(&expected(4), &json!("© 2026, all rights reserved.")));
        assert!(tail[5].expected.is_none(), "a question without an answer is not scored");

        // Ghostlight's answers: a list of {id, answer}; the unscored answer is reported as given.
        let list = json!(tail.iter().map(|c| json!({"id": c.id, "answer": "yes"})).collect::<Vec<_>>());
        let by_id = answers_from(&list).unwrap();
        let v = judge_response(tail, &by_id);
        assert_eq!(v.total, 5);
        assert_eq!(
            v.unscored,
            [UnscoredAnswer {
                id: tail[5].id.clone(),
                question: "Does the layout look balanced?".into(),
                answer: Some("yes".into())
            }]
        );
        assert_eq!(
            answers_from(&json!([{"id": "c1"}])).unwrap_err(),
            "challenge_answers[0]: give {\"id\": \"c1\", \"answer\": \"…\"}"
        );

        let bad: Vec<Criterion> = serde_json::from_value(json!([{"question": "x", "expected": [1]}])).unwrap();
        let refused = build_challenges(&facts(), "http://x/", &bad).unwrap_err();
        assert!(matches!(&refused, BuildError::BadCriteria(m) if m.starts_with("criteria[0].expected")), "{refused}");
        let unknown: Vec<Criterion> = serde_json::from_value(json!([{"question": "x", "type": "vibe"}])).unwrap();
        assert_eq!(
            build_challenges(&facts(), "http://x/", &unknown).unwrap_err(),
            BuildError::BadCriteria(
                "criteria[0].type: \"vibe\" is not one of text, number, boolean, colour, position".into()
            )
        );
    }
}
