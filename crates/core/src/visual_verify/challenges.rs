//! Building a page's challenges so that only a model that looked at the screenshot can pass them.
//!
//! What a blind model has is the tool's JSON: the questions themselves, the query, its own idea
//! of what pages usually show. So:
//! - the answers come from text visible in the screenshot, pointed at by rank and kind ("the
//!   second heading from the top"), never quoted by another question, and never text the page's
//!   title or URL would give away;
//! - at least three such text challenges, or verification is refused as not possible;
//! - counts are of small sets (1–10, checked exactly), never of nothing;
//! - yes/no questions include labels the page does not have (their answer is "no"), of the same
//!   family of common labels as the real one when the page shows one;
//! - a colour only when it is distinctive, a position only when it is not "top left".
//!
//! Questions come in an order mixed by the page's own text, so an id says nothing about its kind.

use std::collections::BTreeSet;

use super::answers::{expected_from, significant, words};
use super::{Area, BuildError, Challenge, Criterion, Expected, ItemKind, Region, TextItem, VerifyFacts};
use crate::page_check::{Rgba, parse_color};

/// Text challenges a page must give for a verification to mean anything.
pub const MIN_TEXT_CHALLENGES: usize = 3;
/// Text challenges asked at most.
const MAX_TEXT_CHALLENGES: usize = 4;
/// An answer longer than this many words is asked as "the first five words".
const LONG_TEXT_WORDS: usize = 10;
/// Items closer than this (page px) in y have no clear "first" or "second from the top".
const RANK_GAP: f64 = 4.0;
/// Labels pages often have, in families of the sites that have them. When the screenshot shows
/// one, it is the "yes" question and the two "no" questions are labels of its family the page
/// lacks: being on this (public) list, or in a family, then says nothing about the answer.
pub(super) const LABEL_FAMILIES: [&[&str]; 4] = [
    // Shops.
    &[
        "Add to cart",
        "Buy now",
        "Checkout",
        "Wishlist",
        "Shop now",
        "View cart",
        "Sold out",
        "Free shipping",
        "Track order",
        "Gift cards",
        "New arrivals",
        "Sale",
    ],
    // Products and their marketing.
    &[
        "Sign up",
        "Get started",
        "Book a demo",
        "Start free trial",
        "Pricing",
        "Learn more",
        "Contact sales",
        "Features",
        "Request access",
        "Watch video",
        "Try it free",
        "Customers",
    ],
    // Documentation.
    &[
        "Next",
        "Previous",
        "Table of contents",
        "Search",
        "Download",
        "Index",
        "Edit on GitHub",
        "Report a bug",
        "Show source",
        "Quick search",
        "API reference",
        "Changelog",
    ],
    // Any site.
    &[
        "Log in",
        "Register",
        "Contact us",
        "Subscribe",
        "About us",
        "Careers",
        "Privacy policy",
        "Terms of service",
        "Help",
        "Blog",
        "Newsletter",
        "FAQ",
    ],
];

/// The challenges for one page, then the caller's criteria. Deterministic for the same facts.
/// `page_url` only decides what a blind model could guess; it is never quoted.
pub fn build_challenges(
    facts: &VerifyFacts,
    page_url: &str,
    criteria: &[Criterion],
) -> Result<Vec<Challenge>, BuildError> {
    let caller = caller_challenges(criteria)?;
    let giveaway: BTreeSet<String> = significant(&format!("{} {}", facts.title, page_url)).into_iter().collect();
    let items: Vec<&TextItem> = {
        let mut visible: Vec<&TextItem> =
            facts.items.iter().filter(|i| inside(&facts.area, i.bounds) && !words(&i.text).is_empty()).collect();
        visible.sort_by(|a, b| a.bounds[1].total_cmp(&b.bounds[1]).then(a.bounds[0].total_cmp(&b.bounds[0])));
        visible
    };

    let texts = text_challenges(&items, &giveaway);
    let scored_by_caller = caller.iter().filter(|c| c.expected.is_some()).count();
    if texts.len() < MIN_TEXT_CHALLENGES && scored_by_caller < MIN_TEXT_CHALLENGES {
        return Err(BuildError::NotPossible(format!(
            "verification is not possible here: the screenshot shows too little readable text to ask about ({} text \
             challenge{} found, {MIN_TEXT_CHALLENGES} needed; text the page's title or address gives away does not count). \
             Point `selector` at a part of the page with more text, or give at least {MIN_TEXT_CHALLENGES} criteria with \
             known answers.",
            texts.len(),
            if texts.len() == 1 { "" } else { "s" }
        )));
    }
    // What the text challenges answer is never quoted by another question.
    let answers: Vec<Vec<String>> = texts.iter().map(|(_, item, _)| words(&item.text)).collect();
    let quotable = |item: &TextItem| !answers.iter().any(|a| overlaps(&words(&item.text), a));

    let mut page: Vec<(String, Expected)> = texts.into_iter().map(|(q, _, e)| (q, e)).collect();
    page.extend(count_challenges(&facts.counts));
    page.extend(yes_no_challenges(&items, &facts.text, &quotable, seed(&items)));
    page.extend(colour_challenge(&items));
    page.extend(position_challenge(&facts.area, &items, &quotable));
    shuffle(&mut page, seed(&items));

    let mut out: Vec<Challenge> =
        page.into_iter().enumerate().map(|(i, (q, e))| Challenge::new(i + 1, q, Some(e))).collect();
    for c in caller {
        out.push(Challenge { id: format!("c{}", out.len() + 1), ..c });
    }
    Ok(out)
}

/// Checks the caller's criteria alone, before a page is opened.
pub fn check_criteria(criteria: &[Criterion]) -> Result<(), BuildError> {
    caller_challenges(criteria).map(|_| ())
}

/// The caller's criteria as challenges (ids filled in by the caller of this function). A
/// criterion without an expected answer (Ghostlight's `{question, type}`) is asked and its answer
/// reported, but it is not scored.
fn caller_challenges(criteria: &[Criterion]) -> Result<Vec<Challenge>, BuildError> {
    let mut out = Vec::new();
    for (i, criterion) in criteria.iter().enumerate() {
        if criterion.question.trim().is_empty() {
            return Err(BuildError::BadCriteria(format!("criteria[{i}].question is empty")));
        }
        let expected = match &criterion.expected {
            Some(value) => Some(
                expected_from(value).map_err(|e| BuildError::BadCriteria(format!("criteria[{i}].expected: {e}")))?,
            ),
            None => None,
        };
        let format = match (&expected, &criterion.kind) {
            (Some(e), _) => super::format_of(e),
            (None, Some(kind)) => super::format_of_kind(kind).ok_or_else(|| {
                BuildError::BadCriteria(format!(
                    "criteria[{i}].type: {kind:?} is not one of text, number, boolean, colour, position"
                ))
            })?,
            (None, None) => "text",
        };
        out.push(Challenge {
            id: String::new(),
            question: criterion.question.clone(),
            format,
            expected,
            by_caller: true,
        });
    }
    Ok(out)
}

/// Up to four "what does it say" challenges, each pointing at one element by kind and rank.
fn text_challenges<'a>(items: &[&'a TextItem], giveaway: &BTreeSet<String>) -> Vec<(String, &'a TextItem, Expected)> {
    let of = |kind: ItemKind| -> Vec<&'a TextItem> { items.iter().copied().filter(|i| i.kind == kind).collect() };
    let (headings, paragraphs, buttons, entries, links) = (
        of(ItemKind::Heading),
        of(ItemKind::Paragraph).into_iter().filter(|p| words(&p.text).len() >= 5).collect::<Vec<_>>(),
        of(ItemKind::Button),
        of(ItemKind::ListItem),
        of(ItemKind::Link),
    );
    let largest = {
        let top = headings.iter().map(|h| h.font_size).fold(0.0, f64::max);
        let at_top: Vec<&&TextItem> = headings.iter().filter(|h| h.font_size == top).collect();
        (at_top.len() == 1 && top > 0.0).then(|| *at_top[0])
    };
    // In the order they are tried: the most distinctive first.
    let candidates: [(Option<&TextItem>, &str); 9] = [
        (largest, "the largest heading"),
        (ranked(&headings, 0), "the first heading from the top"),
        (ranked(&headings, 1), "the second heading from the top"),
        (ranked(&paragraphs, 0), "the first paragraph of body text from the top"),
        (ranked(&buttons, 0), "the first button from the top"),
        (ranked(&entries, 0), "the first bulleted or numbered entry from the top"),
        (lowest(&headings), "the lowest heading on the page"),
        (lowest(&buttons), "the lowest button on the page"),
        (ranked(&links, 0), "the first link from the top"),
    ];
    let mut out: Vec<(String, &TextItem, Expected)> = Vec::new();
    for (item, what) in candidates {
        let Some(item) = item else { continue };
        if out.len() == MAX_TEXT_CHALLENGES {
            break;
        }
        let all = words(&item.text);
        let letters = item.text.chars().filter(|c| c.is_alphabetic()).count();
        let taken = out.iter().any(|(_, other, _)| std::ptr::eq(*other, item) || overlaps(&words(&other.text), &all));
        if letters < 3 || taken || guessable(&item.text, giveaway) {
            continue;
        }
        let (question, answer) = if all.len() > LONG_TEXT_WORDS {
            let first: Vec<&str> = item.text.split_whitespace().take(5).collect();
            (format!("What are the first five words of {what}?"), first.join(" "))
        } else {
            let text = match item.kind {
                ItemKind::Button => format!("What is the label of {what}?"),
                _ => format!("What does {what} say?"),
            };
            (text, item.text.clone())
        };
        out.push((question, item, Expected::Text(answer)));
    }
    out
}

/// The item at `rank` from the top, when it is clearly apart from its neighbours in y.
fn ranked<'a>(sorted: &[&'a TextItem], rank: usize) -> Option<&'a TextItem> {
    let item = *sorted.get(rank)?;
    let apart = |other: Option<&&TextItem>| other.is_none_or(|o| (o.bounds[1] - item.bounds[1]).abs() >= RANK_GAP);
    let before = rank.checked_sub(1).and_then(|r| sorted.get(r));
    (apart(before) && apart(sorted.get(rank + 1))).then_some(item)
}

/// The lowest item, when there are at least three (else it is also the first or second).
fn lowest<'a>(sorted: &[&'a TextItem]) -> Option<&'a TextItem> {
    if sorted.len() < 3 {
        return None;
    }
    ranked(sorted, sorted.len() - 1)
}

/// Counts of small sets of visible things, checked exactly; never of nothing.
fn count_challenges(counts: &super::Counts) -> Vec<(String, Expected)> {
    let mut sets = [
        ("images", counts.images),
        ("buttons", counts.buttons),
        ("headings", counts.headings),
        ("bulleted or numbered entries", counts.list_items),
        ("form fields (inputs, selects, text areas)", counts.inputs),
    ];
    // Larger sets first: "1" and "2" are the guesses.
    sets.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    sets.iter()
        .filter(|(_, n)| (1..=10).contains(n))
        .take(2)
        .map(|(what, n)| (format!("How many {what} does the screenshot show?"), Expected::Count(*n)))
        .collect()
}

/// One question whose answer is "yes" (a real label no other question answers) and two whose
/// answer is "no" (labels the page does not have), asked the same way. The real label is one of
/// `LABEL_FAMILIES` when the screenshot shows one, and the two others come from its family, so a
/// model that did not look cannot tell the real one by where the labels come from.
fn yes_no_challenges(
    items: &[&TextItem],
    page_text: &str,
    quotable: &dyn Fn(&TextItem) -> bool,
    seed: u64,
) -> Vec<(String, Expected)> {
    let phrase_of =
        |item: &TextItem| if item.kind == ItemKind::Link { "a link that reads" } else { "a button labelled" };
    let family_of =
        |text: &str| LABEL_FAMILIES.iter().position(|family| family.iter().any(|label| words(label) == words(text)));
    let mut familiar: Vec<(&TextItem, usize)> = items
        .iter()
        .filter(|i| matches!(i.kind, ItemKind::Button | ItemKind::Link) && quotable(i))
        .filter_map(|i| family_of(&i.text).map(|f| (*i, f)))
        .collect();
    // One entry per label, so a label shown twice is not twice as likely.
    let mut seen = BTreeSet::new();
    familiar.retain(|(item, _)| seen.insert(words(&item.text)));
    let (real, family) = if familiar.is_empty() {
        let real = items
            .iter()
            .find(|i| i.kind == ItemKind::Button && quotable(i) && words(&i.text).len() <= 5)
            .map(|b| (b.text.clone(), "a button labelled"))
            .or_else(|| {
                items
                    .iter()
                    .find(|i| i.kind == ItemKind::Heading && quotable(i) && words(&i.text).len() <= 8)
                    .map(|h| (h.text.clone(), "a heading that reads"))
            });
        (real, (seed % LABEL_FAMILIES.len() as u64) as usize)
    } else {
        let (item, family) = familiar[(seed % familiar.len() as u64) as usize];
        (Some((item.text.clone(), phrase_of(item))), family)
    };
    let phrase = real.as_ref().map_or("a button labelled", |(_, phrase)| *phrase);
    let mut out = Vec::new();
    if let Some((text, phrase)) = &real {
        out.push((format!("Is there {phrase} \"{text}\"?"), Expected::Boolean(true)));
    }
    let present = format!(" {} ", words(page_text).join(" "));
    let lacking = |labels: &[&'static str]| -> Vec<&'static str> {
        let mut absent: Vec<&str> = labels
            .iter()
            .copied()
            .filter(|label| !present.contains(&format!(" {} ", words(label).join(" "))))
            .collect();
        shuffle(&mut absent, seed);
        absent
    };
    // The family's own labels first; a page that has nearly all of them borrows from the others.
    let others: Vec<&str> = LABEL_FAMILIES
        .iter()
        .enumerate()
        .filter(|(f, _)| *f != family)
        .flat_map(|(_, labels)| labels.iter().copied())
        .collect();
    for label in lacking(LABEL_FAMILIES[family]).into_iter().chain(lacking(&others)).take(2) {
        out.push((format!("Is there {phrase} \"{label}\"?"), Expected::Boolean(false)));
    }
    out
}

/// A colour a guess of black, white or grey would not hit: the first coloured button's
/// background, else the largest heading's text colour when it is coloured.
fn colour_challenge(items: &[&TextItem]) -> Option<(String, Expected)> {
    let coloured = |value: &str| parse_color(value).filter(|c| c.a >= 0.99 && distinctive(c));
    if let Some(colour) = items.iter().filter(|i| i.kind == ItemKind::Button).find_map(|b| coloured(&b.background)) {
        return Some((
            "What is the background colour of the first coloured (not white, grey or black) button from the top?"
                .into(),
            Expected::Colour(colour),
        ));
    }
    let heading = items
        .iter()
        .filter(|i| i.kind == ItemKind::Heading)
        .max_by(|a, b| a.font_size.total_cmp(&b.font_size).then(b.bounds[1].total_cmp(&a.bounds[1])))?;
    coloured(&heading.color).map(|c| ("What colour is the text of the largest heading?".into(), Expected::Colour(c)))
}

/// Not near black, white or grey: the channels differ enough for a colour name to mean something.
fn distinctive(c: &Rgba) -> bool {
    let (max, min) = (c.r.max(c.g).max(c.b), c.r.min(c.g).min(c.b));
    max - min >= 48.0
}

/// Where a quoted text sits, for one that is not in the top left (the guess).
fn position_challenge(
    area: &Area,
    items: &[&TextItem],
    quotable: &dyn Fn(&TextItem) -> bool,
) -> Option<(String, Expected)> {
    let unique = |item: &TextItem| items.iter().filter(|i| i.text == item.text).count() == 1;
    let (item, (vertical, horizontal)) = items
        .iter()
        .filter(|i| quotable(i) && unique(i) && words(&i.text).len() <= 6)
        .map(|i| (*i, position(area, i.bounds)))
        .find(|(_, p)| *p != (Region::Start, Region::Start))?;
    Some((
        format!("Where in the screenshot is the text \"{}\" (top/middle/bottom, left/center/right)?", item.text),
        Expected::Position { vertical, horizontal },
    ))
}

/// Where a box's centre falls in the area, by thirds.
pub(super) fn position(area: &Area, b: [f64; 4]) -> (Region, Region) {
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

/// Whether at least half of a box lies in the area.
fn inside(area: &Area, b: [f64; 4]) -> bool {
    let w = (b[0] + b[2]).min(area.x + area.width) - b[0].max(area.x);
    let h = (b[1] + b[3]).min(area.y + area.height) - b[1].max(area.y);
    b[2] > 0.0 && b[3] > 0.0 && w > 0.0 && h > 0.0 && w * h >= 0.5 * b[2] * b[3]
}

/// Text a model could answer from the page's title or address alone: half its meaningful words
/// are there, or it has none.
fn guessable(text: &str, giveaway: &BTreeSet<String>) -> bool {
    let meaningful = significant(text);
    meaningful.is_empty() || meaningful.iter().filter(|w| giveaway.contains(*w)).count() * 2 >= meaningful.len()
}

/// Whether two texts share half the words of either (quoting one would help answer the other).
fn overlaps(a: &[String], b: &[String]) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let shared = a.iter().filter(|w| b.contains(w)).count();
    shared * 2 >= a.len().min(b.len())
}

/// A number from the page's own text (FNV-1a), so the same page asks the same way.
fn seed(items: &[&TextItem]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in items.iter().flat_map(|i| i.text.bytes().chain([0])) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// Fisher–Yates driven by xorshift from `seed`.
fn shuffle<T>(list: &mut [T], seed: u64) {
    let mut state = seed | 1;
    for i in (1..list.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        list.swap(i, (state % (i as u64 + 1)) as usize);
    }
}
