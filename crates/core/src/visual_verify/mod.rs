//! `visual_verify` / `submit_visual_response` (spec 05-live-pages): proof that a model looked at
//! a screenshot. Challenges are built from the page's own DOM (the exact text of a heading, counts
//! of visible things, a colour, a position on the page) or from caller-given criteria with known
//! answers; the expected answers stay here and are never shown. Answers are checked fuzzily —
//! text by word overlap, counts within a tolerance, booleans, colours by distance, positions by
//! region words — and a response is `trusted` when at least [`TRUST_THRESHOLD`] of them pass.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::page_check::{Rgba, parse_color};

/// Share of challenges a response must pass to be trusted.
pub const TRUST_THRESHOLD: f64 = 0.8;
/// Share of the expected text's words an answer must contain.
const TEXT_OVERLAP: f64 = 0.5;
/// A count may be off by this much…
const COUNT_SLACK: f64 = 2.0;
/// …or by this share of the expected count.
const COUNT_SHARE: f64 = 0.5;
/// Two colours match within this share of the largest RGB distance (~5 %).
const COLOUR_SHARE: f64 = 0.05;

/// The page facts challenges are built from (the worker's `verifyFactsInPage`).
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct VerifyFacts {
    /// The area the screenshot shows, `{x, y, width, height}` in page pixels.
    pub area: Area,
    pub title: String,
    pub headings: Vec<HeadingFact>,
    pub buttons: Vec<ButtonFact>,
    pub counts: Counts,
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

/// A visible h1–h3.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct HeadingFact {
    pub tag: String,
    pub selector: Option<String>,
    pub text: String,
    #[serde(rename = "box")]
    pub bounds: [f64; 4],
    pub color: String,
}

/// A visible button (or button-like link).
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct ButtonFact {
    pub text: String,
    #[serde(rename = "box")]
    pub bounds: [f64; 4],
    pub background: String,
    pub color: String,
}

/// Counts of visible things.
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

/// A caller-given challenge: a question about the page and its known answer (a string, a
/// number, a boolean, a colour like "#1a4d8f", or region words like "top left").
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Criterion {
    pub question: String,
    pub expected: Value,
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
    #[serde(skip)]
    pub expected: Expected,
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

fn challenge(n: usize, question: String, expected: Expected) -> Challenge {
    Challenge { id: format!("c{n}"), question, format: format_of(&expected), expected }
}

/// Where a box's centre falls in the area, by thirds.
fn position(area: &Area, b: [f64; 4]) -> (Region, Region) {
    let third = |start: f64, size: f64, centre: f64| {
        let t = if size > 0.0 { (centre - start) / size } else { 0.5 };
        if t < 1.0 / 3.0 {
            Region::Start
        } else if t < 2.0 / 3.0 {
            Region::Middle
        } else {
            Region::End
        }
    };
    (third(area.y, area.height, b[1] + b[3] / 2.0), third(area.x, area.width, b[0] + b[2] / 2.0))
}

fn quoted(text: &str) -> String {
    let short: String = text.chars().take(60).collect();
    format!("\"{short}\"")
}

/// The challenges for one page: from the DOM (heading text and position, counts, a colour, a
/// boolean) and then the caller's criteria. Deterministic for the same facts.
pub fn build_challenges(facts: &VerifyFacts, criteria: &[Criterion]) -> Result<Vec<Challenge>, String> {
    let mut out = Vec::new();
    if let Some(h) = facts.headings.first() {
        out.push(challenge(
            out.len() + 1,
            format!("What is the exact text of the first large heading ({}) on the page?", h.tag),
            Expected::Text(h.text.clone()),
        ));
        let (vertical, horizontal) = position(&facts.area, h.bounds);
        out.push(challenge(
            out.len() + 1,
            // Named by its rank, not its text: the text is the previous challenge's answer.
            format!(
                "Where is that first large heading ({}) in the screenshot (top/middle/bottom, left/center/right)?",
                h.tag
            ),
            Expected::Position { vertical, horizontal },
        ));
    }
    // The two largest counts of distinct things, so a guess of "zero" or "a few" fails.
    let c = facts.counts;
    let mut counts = [
        ("images", c.images),
        ("list items (bullets or numbered entries)", c.list_items),
        ("links", c.links),
        ("buttons", c.buttons),
        ("form fields", c.inputs),
    ];
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    for (what, n) in counts.iter().take(2) {
        out.push(challenge(out.len() + 1, format!("How many {what} are visible?"), Expected::Count(*n)));
    }
    let coloured = facts.buttons.iter().find_map(|b| {
        let bg = parse_color(&b.background)?;
        (bg.a >= 0.99 && !b.text.is_empty()).then_some((b, bg))
    });
    if let Some((button, background)) = coloured {
        out.push(challenge(
            out.len() + 1,
            format!("What is the background colour of the button {}?", quoted(&button.text)),
            Expected::Colour(background),
        ));
        out.push(challenge(
            out.len() + 1,
            format!("Is there a button labelled {}?", quoted(&button.text)),
            Expected::Boolean(true),
        ));
    } else if let Some((h, colour)) = facts.headings.first().and_then(|h| Some((h, parse_color(&h.color)?))) {
        out.push(challenge(
            out.len() + 1,
            format!("What colour is the text of the heading {}?", quoted(&h.text)),
            Expected::Colour(colour),
        ));
    }
    for (i, criterion) in criteria.iter().enumerate() {
        let expected = expected_from(&criterion.expected).map_err(|e| format!("criteria[{i}].expected: {e}"))?;
        if criterion.question.trim().is_empty() {
            return Err(format!("criteria[{i}].question is empty"));
        }
        out.push(challenge(out.len() + 1, criterion.question.clone(), expected));
    }
    Ok(out)
}

/// Reads a caller's expected answer by its JSON type (and, for strings, its shape).
fn expected_from(value: &Value) -> Result<Expected, String> {
    match value {
        Value::Bool(b) => Ok(Expected::Boolean(*b)),
        Value::Number(n) => n.as_u64().map(Expected::Count).ok_or_else(|| "a count must be a whole number ≥ 0".into()),
        Value::String(s) if s.trim().is_empty() => Err("an empty answer".into()),
        Value::String(s) => Ok(match (parse_any_colour(s), parse_position(s)) {
            (Some(colour), _) => Expected::Colour(colour),
            (None, Some((vertical, horizontal))) if is_only_region_words(s) => {
                Expected::Position { vertical, horizontal }
            }
            _ => Expected::Text(s.clone()),
        }),
        _ => Err("give a string, a number or a boolean".into()),
    }
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

fn is_only_region_words(text: &str) -> bool {
    const REGION: [&str; 10] = ["top", "upper", "middle", "center", "centre", "bottom", "lower", "left", "right", "of"];
    let w = words(text);
    !w.is_empty() && w.iter().all(|w| REGION.contains(&w.as_str()))
}

/// Region words in an answer: (vertical, horizontal); a lone "center" / "middle" fills the axis
/// not named otherwise.
fn parse_position(text: &str) -> Option<(Region, Region)> {
    let w = words(text);
    let has = |list: &[&str]| w.iter().any(|x| list.contains(&x.as_str()));
    let vertical = if has(&["top", "upper"]) {
        Some(Region::Start)
    } else if has(&["bottom", "lower"]) {
        Some(Region::End)
    } else {
        None
    };
    let horizontal = if has(&["left"]) {
        Some(Region::Start)
    } else if has(&["right"]) {
        Some(Region::End)
    } else {
        None
    };
    let centre = has(&["middle", "center", "centre", "centered", "centred"]);
    match (vertical, horizontal) {
        (None, None) if centre => Some((Region::Middle, Region::Middle)),
        (Some(v), None) if centre => Some((v, Region::Middle)),
        (None, Some(h)) if centre => Some((Region::Middle, h)),
        (Some(v), Some(h)) => Some((v, h)),
        _ => None,
    }
}

/// A few colour names people answer with, beside `#rgb`, `#rrggbb` and `rgb()`.
const NAMED: [(&str, [u8; 3]); 14] = [
    ("black", [0, 0, 0]),
    ("white", [255, 255, 255]),
    ("red", [255, 0, 0]),
    ("green", [0, 128, 0]),
    ("blue", [0, 0, 255]),
    ("yellow", [255, 255, 0]),
    ("orange", [255, 165, 0]),
    ("purple", [128, 0, 128]),
    ("gray", [128, 128, 128]),
    ("grey", [128, 128, 128]),
    ("navy", [0, 0, 128]),
    ("teal", [0, 128, 128]),
    ("pink", [255, 192, 203]),
    ("brown", [165, 42, 42]),
];

fn parse_any_colour(text: &str) -> Option<Rgba> {
    let t = text.trim().to_lowercase();
    if let Some(hex) = t.strip_prefix('#').or_else(|| t.split_whitespace().find_map(|w| w.strip_prefix('#'))) {
        let hex: String = hex.chars().take_while(char::is_ascii_hexdigit).collect();
        let channel = |s: &str| u8::from_str_radix(s, 16).ok().map(f64::from);
        let (r, g, b) = match hex.len() {
            3 => {
                let d = |i: usize| channel(&hex[i..=i].repeat(2));
                (d(0)?, d(1)?, d(2)?)
            }
            6 => (channel(&hex[0..2])?, channel(&hex[2..4])?, channel(&hex[4..6])?),
            _ => return None,
        };
        return Some(Rgba { r, g, b, a: 1.0 });
    }
    if let Some(start) = t.find("rgb") {
        return parse_color(&t[start..]);
    }
    let name = words(&t);
    NAMED.iter().find(|(n, _)| name.len() == 1 && name[0] == *n).map(|(_, [r, g, b])| Rgba {
        r: f64::from(*r),
        g: f64::from(*g),
        b: f64::from(*b),
        a: 1.0,
    })
}

fn first_number(text: &str) -> Option<f64> {
    const SMALL: [&str; 11] = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
    let w = words(text);
    w.iter()
        .find_map(|x| x.parse::<f64>().ok())
        .or_else(|| w.iter().find_map(|x| SMALL.iter().position(|s| s == x).map(|n| n as f64)))
}

/// Whether one answer passes its challenge.
pub fn check_answer(expected: &Expected, answer: &Value) -> bool {
    let text = match answer {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
        _ => return false,
    };
    match expected {
        Expected::Text(want) => {
            let want = words(want);
            let got = words(&text);
            !want.is_empty()
                && want.iter().filter(|w| got.contains(w)).count() as f64 / want.len() as f64 >= TEXT_OVERLAP
        }
        Expected::Count(want) => first_number(&text).is_some_and(|got| {
            let diff = (got - *want as f64).abs();
            diff <= COUNT_SLACK || diff <= COUNT_SHARE * *want as f64
        }),
        Expected::Boolean(want) => {
            let w = words(&text);
            let yes = w.first().is_some_and(|x| ["yes", "true", "y"].contains(&x.as_str()));
            let no = w.first().is_some_and(|x| ["no", "false", "n"].contains(&x.as_str()));
            (yes && *want) || (no && !*want)
        }
        Expected::Colour(want) => parse_any_colour(&text).is_some_and(|got| {
            let d = ((got.r - want.r).powi(2) + (got.g - want.g).powi(2) + (got.b - want.b).powi(2)).sqrt();
            d <= COLOUR_SHARE * (3.0_f64 * 255.0 * 255.0).sqrt()
        }),
        Expected::Position { vertical, horizontal } => {
            parse_position(&text).is_some_and(|(v, h)| v == *vertical && h == *horizontal)
        }
    }
}

/// The verdict on one response.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyVerdict {
    /// "Trusted: 6 of 6 challenges passed. …" or "Not trusted: … Failed: c1 (…); …".
    pub summary: String,
    pub trusted: bool,
    pub passed: usize,
    pub total: usize,
    /// Passed share, 0–1.
    pub score: f64,
    /// The questions that failed (their ids and wording, never their answers).
    pub failed: Vec<FailedChallenge>,
}

/// A challenge the response got wrong, named without its answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailedChallenge {
    pub id: String,
    pub question: String,
}

/// Checks every answer (by challenge id; a missing answer fails).
pub fn judge_response(challenges: &[Challenge], answers: &serde_json::Map<String, Value>) -> VerifyVerdict {
    let mut failed = Vec::new();
    for c in challenges {
        if !answers.get(&c.id).is_some_and(|a| check_answer(&c.expected, a)) {
            failed.push(FailedChallenge { id: c.id.clone(), question: c.question.clone() });
        }
    }
    let total = challenges.len();
    let passed = total - failed.len();
    let score = if total == 0 { 0.0 } else { passed as f64 / total as f64 };
    let trusted = total > 0 && score >= TRUST_THRESHOLD;
    let summary = if trusted {
        format!(
            "Trusted: {passed} of {total} challenges passed. The query answer below comes from a model that looked."
        )
    } else {
        let named: Vec<String> = failed.iter().map(|f| format!("{} ({})", f.id, f.question)).collect();
        format!(
            "Not trusted: {passed} of {total} challenges passed (needs {} %). Failed: {}. Do not rely on the query \
             answer.",
            (TRUST_THRESHOLD * 100.0).round(),
            named.join("; ")
        )
    };
    VerifyVerdict { summary, trusted, passed, total, score: (score * 100.0).round() / 100.0, failed }
}

/// The prompt for the looking model (a fresh sub-agent): open the screenshot, answer the
/// challenges from it alone, answer the query, and submit everything under the session id.
pub fn looking_prompt(screenshot: &str, url: &str, challenges: &[Challenge], query: &str, session_id: &str) -> String {
    let questions: Vec<String> =
        challenges.iter().map(|c| format!("{}. {} (answer: {})", c.id, c.question, c.format)).collect();
    format!(
        "Open the image {screenshot} (a screenshot of {url}) and answer ONLY from what you see in it; do not fetch the \
         page or read its code.\n\nQuestions:\n{}\n\nThen answer this: {query}\n\nCall submit_visual_response with \
         session_id \"{session_id}\", challenge_answers as an object keyed by question id (e.g. {{\"c1\": \"...\"}}) and \
         query_answer.",
        questions.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn facts() -> VerifyFacts {
        serde_json::from_value(json!({
            "area": {"x": 0, "y": 0, "width": 1280, "height": 600},
            "title": "Shop",
            "headings": [{"tag": "h1", "selector": "#title", "text": "Spring collection", "box": [16, 20, 400, 40], "color": "rgb(17, 17, 17)"}],
            "buttons": [{"text": "Buy now", "box": [16, 300, 120, 48], "background": "rgb(26, 77, 143)", "color": "rgb(255, 255, 255)"}],
            "counts": {"headings": 1, "images": 1, "links": 1, "buttons": 1, "listItems": 3, "inputs": 0}
        }))
        .unwrap()
    }

    fn answers(pairs: &[(&str, Value)]) -> serde_json::Map<String, Value> {
        pairs.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect()
    }

    #[test]
    fn visual_verify_builds_challenges_from_the_dom() {
        let c = build_challenges(&facts(), &[]).unwrap();
        let questions: Vec<&str> = c.iter().map(|c| c.question.as_str()).collect();
        assert_eq!(
            questions,
            vec![
                "What is the exact text of the first large heading (h1) on the page?",
                "Where is that first large heading (h1) in the screenshot (top/middle/bottom, left/center/right)?",
                "How many list items (bullets or numbered entries) are visible?",
                "How many images are visible?",
                "What is the background colour of the button \"Buy now\"?",
                "Is there a button labelled \"Buy now\"?",
            ]
        );
        assert_eq!(c[1].expected, Expected::Position { vertical: Region::Start, horizontal: Region::Start });
        // the expected answers are not serialised
        assert!(!serde_json::to_string(&c).unwrap().contains("Spring collection\""));
    }

    #[test]
    fn visual_verify_accepts_right_answers_fuzzily() {
        let c = build_challenges(&facts(), &[]).unwrap();
        let right = answers(&[
            ("c1", json!("spring collection")),
            ("c2", json!("Top left corner")),
            ("c3", json!("4")),
            ("c4", json!(1)),
            ("c5", json!("#1b4e90")),
            ("c6", json!("Yes")),
        ]);
        let v = judge_response(&c, &right);
        assert_eq!((v.trusted, v.passed, v.total), (true, 6, 6));
        assert_eq!(
            v.summary,
            "Trusted: 6 of 6 challenges passed. The query answer below comes from a model that looked."
        );
    }

    #[test]
    fn visual_verify_rejects_wrong_answers_without_revealing_them() {
        let c = build_challenges(&facts(), &[]).unwrap();
        let wrong = answers(&[
            ("c1", json!("Autumn sale")),
            ("c2", json!("bottom right")),
            ("c3", json!("12")),
            ("c4", json!("1")),
            ("c5", json!("red")),
            ("c6", json!("yes")),
        ]);
        let v = judge_response(&c, &wrong);
        assert!(!v.trusted);
        assert_eq!(v.failed.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(), vec!["c1", "c2", "c3", "c5"]);
        let shown = serde_json::to_string(&v).unwrap();
        for secret in ["Spring", "#1a4d8f", "26, 77, 143", "\"3\""] {
            assert!(!shown.contains(secret), "{secret} leaked: {shown}");
        }
        assert_eq!(
            v.summary,
            "Not trusted: 2 of 6 challenges passed (needs 80 %). Failed: c1 (What is the exact text of the first large \
             heading (h1) on the page?); c2 (Where is that first large heading (h1) in the screenshot \
             (top/middle/bottom, left/center/right)?); c3 (How many list items (bullets or numbered entries) are \
             visible?); c5 (What is the background colour of the button \"Buy now\"?). Do not rely on the query answer."
        );
        // a missing answer fails too
        assert_eq!(judge_response(&c, &answers(&[])).passed, 0);
        // 5 of 6 is 83 %: trusted
        let mostly = answers(&[
            ("c1", json!("Spring collection")),
            ("c2", json!("top left")),
            ("c3", json!(3)),
            ("c4", json!(1)),
            ("c5", json!("#1a4d8f")),
            ("c6", json!("no")),
        ]);
        let v = judge_response(&c, &mostly);
        assert_eq!((v.trusted, v.passed, v.score), (true, 5, 0.83));
        assert_eq!(
            v.summary,
            "Trusted: 5 of 6 challenges passed. The query answer below comes from a model that looked."
        );
    }

    #[test]
    fn visual_verify_prompt_lists_the_questions_and_the_session() {
        let c = build_challenges(&facts(), &[]).unwrap();
        let prompt = looking_prompt("/tmp/shot.png", "http://x/", &c[..2], "Is the sale on?", "verify-1");
        assert_eq!(
            prompt,
            "Open the image /tmp/shot.png (a screenshot of http://x/) and answer ONLY from what you see in it; do not \
             fetch the page or read its code.\n\nQuestions:\nc1. What is the exact text of the first large heading \
             (h1) on the page? (answer: text)\nc2. Where is that first large heading (h1) in the screenshot \
             (top/middle/bottom, left/center/right)? (answer: region words: top/middle/bottom and \
             left/center/right)\n\nThen answer this: Is the sale on?\n\nCall submit_visual_response with session_id \
             \"verify-1\", challenge_answers as an object keyed by question id (e.g. {\"c1\": \"...\"}) and query_answer."
        );
    }

    #[test]
    fn visual_verify_caller_criteria_by_type() {
        let criteria: Vec<Criterion> = serde_json::from_value(json!([
            {"question": "How many products?", "expected": 12},
            {"question": "Is the banner shown?", "expected": false},
            {"question": "Header colour?", "expected": "#ff0000"},
            {"question": "Where is the logo?", "expected": "top right"},
            {"question": "Footer text?", "expected": "All rights reserved"}
        ]))
        .unwrap();
        let c = build_challenges(&VerifyFacts::default(), &criteria).unwrap();
        let formats: Vec<&str> = c.iter().map(|c| c.format).collect();
        assert_eq!(
            &formats[c.len() - 5..],
            [
                "number",
                "yes or no",
                "colour as #rrggbb",
                "region words: top/middle/bottom and left/center/right",
                "text"
            ]
        );
        assert!(check_answer(&c[c.len() - 5].expected, &json!("about 7"))); // 12 ± 50 %
        assert!(!check_answer(&c[c.len() - 5].expected, &json!("3")));
        assert!(check_answer(&c[c.len() - 4].expected, &json!("no, it is not")));
        assert!(check_answer(&c[c.len() - 3].expected, &json!("red")));
        assert!(!check_answer(&c[c.len() - 3].expected, &json!("#00ff00")));
        assert!(check_answer(&c[c.len() - 2].expected, &json!("upper right")));
        assert!(check_answer(&c[c.len() - 1].expected, &json!("© 2026, all rights reserved.")));
        let bad: Vec<Criterion> = serde_json::from_value(json!([{"question": "x", "expected": [1]}])).unwrap();
        assert!(build_challenges(&VerifyFacts::default(), &bad).unwrap_err().contains("criteria[0].expected"));
    }
}
