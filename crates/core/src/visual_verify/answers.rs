//! Reading a looking model's answers and checking each against its withheld expectation: text by
//! word overlap, counts exactly when small, yes/no, colours by distance, positions by region
//! words. Also reads a caller's expected answers, which use the same shapes.

use serde_json::Value;

use super::{Expected, Region};
use crate::page_check::{Rgba, parse_color};

/// Share of the expected text's telling words (see [`significant`]) an answer must contain.
const TEXT_OVERLAP: f64 = 0.5;
/// Counts up to this are checked exactly: small counts are where a guess would land.
const EXACT_COUNT: u64 = 10;
/// Larger counts may be off by this share (a person counting fifty links is off by a few).
const COUNT_SHARE: f64 = 0.1;
/// Two colours match within this share of the largest RGB distance (~5 %).
const COLOUR_SHARE: f64 = 0.05;

/// The words of `text`, lower case, split at anything that is not a letter or digit.
pub(super) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Words too common to tell anything: a title sharing "the" with a heading gives nothing away,
/// and a reply made of them fits most headings without reading one.
const COMMON: [&str; 41] = [
    "the", "and", "for", "with", "you", "your", "our", "are", "from", "this", "that", "not", "all", "new", "www",
    "com", "what", "why", "how", "who", "when", "where", "which", "was", "were", "has", "have", "had", "its", "can",
    "will", "but", "they", "their", "them", "into", "out", "about", "more", "there", "get",
];

/// Words that carry meaning: three letters or more, not among the commonest.
pub(super) fn significant(text: &str) -> Vec<String> {
    words(text).into_iter().filter(|w| w.chars().count() >= 3 && !COMMON.contains(&w.as_str())).collect()
}

/// Reads a caller's expected answer by its JSON type (and, for strings, its shape).
pub(super) fn expected_from(value: &Value) -> Result<Expected, String> {
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

fn is_only_region_words(text: &str) -> bool {
    const REGION: [&str; 10] = ["top", "upper", "middle", "center", "centre", "bottom", "lower", "left", "right", "of"];
    let w = words(text);
    !w.is_empty() && w.iter().all(|w| REGION.contains(&w.as_str()))
}

/// Region words in an answer: (vertical, horizontal); a lone "center" / "middle" fills the axis
/// not named otherwise.
pub(super) fn parse_position(text: &str) -> Option<(Region, Region)> {
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

pub(super) fn parse_any_colour(text: &str) -> Option<Rgba> {
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

/// The first number in `text`, written in digits or in English words ("twelve", "forty-three").
fn first_number(text: &str) -> Option<f64> {
    let digits = text2num::replace_numbers_in_text(text, &text2num::Language::english(), 0.0);
    words(&digits).iter().find_map(|x| x.parse::<f64>().ok())
}

/// An answer as text: strings as they are, numbers and booleans spelled out.
pub(super) fn answer_text(answer: &Value) -> Option<String> {
    match answer {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "yes" } else { "no" }.to_string()),
        _ => None,
    }
}

/// Whether one answer passes its challenge.
pub fn check_answer(expected: &Expected, answer: &Value) -> bool {
    let Some(text) = answer_text(answer) else { return false };
    match expected {
        Expected::Text(want) => {
            let got = words(&text);
            // A reply that lists everything it can think of is not a reading of one element.
            let focused = got.len() <= 3 * words(want).len() + 5;
            // Only the words that tell this text apart count: common ones ("the", "our", "with")
            // fit most texts. A text of common words only (a caller's) needs every one.
            let (telling, share) = match significant(want) {
                telling if telling.is_empty() => (words(want), 1.0),
                telling => (telling, TEXT_OVERLAP),
            };
            !telling.is_empty()
                && focused
                && telling.iter().filter(|w| got.contains(w)).count() as f64 / telling.len() as f64 >= share
        }
        Expected::Count(want) => first_number(&text).is_some_and(|got| {
            let want = *want as f64;
            if want <= EXACT_COUNT as f64 { got == want } else { (got - want).abs() <= (COUNT_SHARE * want).ceil() }
        }),
        Expected::Boolean(want) => {
            let w = words(&text);
            let yes = w.first().is_some_and(|x| ["yes", "true", "y"].contains(&x.as_str()));
            let no = w.first().is_some_and(|x| ["no", "false", "n", "not", "none"].contains(&x.as_str()));
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn visual_verify_counts_are_exact_when_small() {
        assert!(check_answer(&Expected::Count(3), &json!("3")));
        assert!(check_answer(&Expected::Count(3), &json!("three")));
        assert!(!check_answer(&Expected::Count(3), &json!(2)));
        assert!(!check_answer(&Expected::Count(0), &json!("1")));
        // Past ten, within 10 % (rounded up): 47 ± 5.
        assert!(check_answer(&Expected::Count(47), &json!("about 43")));
        assert!(check_answer(&Expected::Count(12), &json!("twelve")));
        assert!(check_answer(&Expected::Count(47), &json!("forty-three, roughly")));
        assert!(!check_answer(&Expected::Count(30), &json!("twenty")));
        assert!(!check_answer(&Expected::Count(47), &json!("41")));
    }

    #[test]
    fn visual_verify_text_needs_half_the_words_and_a_focused_reply() {
        let want = Expected::Text("Spring collection".into());
        assert!(check_answer(&want, &json!("spring collection")));
        assert!(check_answer(&want, &json!("The Spring sale")));
        assert!(!check_answer(&want, &json!("Autumn sale")));
        // Every word of the page in one reply is not reading the heading.
        let dump = "spring collection buy now home about contact shop cart sale new arrivals footer";
        assert!(!check_answer(&want, &json!(dump)));
    }

    #[test]
    fn visual_verify_text_is_matched_by_the_words_that_tell_it_apart() {
        // The same reply for every text question, written without looking: words nearly every
        // heading has. "Plans that grow with your studio" shares three of its six words with it
        // (the half the overlap asks) and "Our story" one of two.
        let blind = json!("the and of to your with that for our what");
        for text in ["Plans that grow with your studio", "Our story", "What members get", "Why we rebuilt our kiln"] {
            assert!(!check_answer(&Expected::Text(text.into()), &blind), "{text}");
        }
        // A model that read them still passes, in full or by their telling words.
        assert!(check_answer(&Expected::Text("Plans that grow with your studio".into()), &json!("Plans that grow")));
        assert!(check_answer(&Expected::Text("Our story".into()), &json!("Our Story")));
        assert!(check_answer(&Expected::Text("Our story".into()), &json!("story")));
        // A caller's text of common words only needs every one of them.
        assert!(check_answer(&Expected::Text("Who we are".into()), &json!("who we are")));
        assert!(!check_answer(&Expected::Text("Who we are".into()), &json!("who are you")));
    }

    #[test]
    fn visual_verify_yes_no_colour_and_position_answers() {
        assert!(check_answer(&Expected::Boolean(false), &json!("No, there is none")));
        assert!(check_answer(&Expected::Boolean(false), &json!("not visible")));
        assert!(!check_answer(&Expected::Boolean(false), &json!("yes")));
        assert!(check_answer(&Expected::Boolean(true), &json!(true)));
        let blue = Expected::Colour(Rgba { r: 26.0, g: 77.0, b: 143.0, a: 1.0 });
        assert!(check_answer(&blue, &json!("#1b4e90")));
        assert!(!check_answer(&blue, &json!("black")));
        let top_right = Expected::Position { vertical: Region::Start, horizontal: Region::End };
        assert!(check_answer(&top_right, &json!("upper right corner")));
        assert!(!check_answer(&top_right, &json!("top left")));
    }
}
