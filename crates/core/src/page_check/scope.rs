//! `visual_check`'s `prompt`: the part of the page a caller names ("#sidebar", "the header",
//! "the footer navigation"), read the same way every time, and the sentence saying what was
//! checked. The reading is a list of CSS selectors tried in order on the page; the browser worker
//! only reports which one first matched a rendered element.
//!
//! The order: the whole prompt as a CSS selector; then each word of it that looks like one (it
//! starts with `#`, `.` or `[`); then the landmarks its words name, the later inside the earlier
//! ("footer navigation": a navigation inside the footer) unless a word like "in" or "of" stands
//! between them ("navigation in the footer" reads the same). When nothing matches, the whole
//! page is checked and the result says so.

use serde::Serialize;

/// The landmarks a prompt can name: the name used in messages, the words that name it, and the
/// elements that are it (HTML elements and ARIA roles; a sidebar also by its id or class).
const LANDMARKS: [(&str, &[&str], &str); 6] = [
    ("header", &["header", "headers", "banner", "masthead", "topbar"], "header, [role=banner]"),
    ("footer", &["footer", "footers", "contentinfo"], "footer, [role=contentinfo]"),
    ("navigation", &["nav", "navigation", "navbar", "menu", "menus"], "nav, [role=navigation]"),
    ("main", &["main", "content"], "main, [role=main]"),
    (
        "sidebar",
        &["sidebar", "sidebars", "aside", "complementary"],
        "aside, [role=complementary], [id*=sidebar], [class*=sidebar]",
    ),
    ("search", &["search"], "search, [role=search]"),
];
/// Words that put the landmark before them inside the one after them.
const INSIDE_WORDS: [&str; 5] = ["in", "inside", "within", "of", "under"];

/// Where a candidate selector came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ScopeSource {
    /// The prompt, or a word of it, is a CSS selector.
    Selector,
    /// The prompt names landmarks (header, footer, navigation, main, sidebar, search).
    Landmark,
}

/// One reading of the prompt: a CSS selector whose first rendered match is the area.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeCandidate {
    pub selector: String,
    pub source: ScopeSource,
    /// What it stands for, in words: `the CSS selector "#sidebar"`, `the navigation inside the footer`.
    pub description: String,
}

/// A prompt and its readings, in the order they are tried.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptReading {
    pub prompt: String,
    pub candidates: Vec<ScopeCandidate>,
}

/// What `visual_check` says about its `prompt`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptScope {
    pub prompt: String,
    /// Only issues inside one element (and page-wide ones) were kept.
    pub narrowed: bool,
    /// That element, by the collector's selector.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// The selector that found it, and where that selector came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<ScopeSource>,
    /// One sentence: what was checked.
    pub message: String,
}

/// Reads a prompt into the selectors to try (see the module doc for the order).
pub fn read_prompt(prompt: &str) -> PromptReading {
    let prompt = prompt.trim().to_string();
    let mut candidates = vec![ScopeCandidate {
        selector: prompt.clone(),
        source: ScopeSource::Selector,
        description: format!("the CSS selector {prompt:?}"),
    }];
    for word in prompt.split_whitespace() {
        let word = word.trim_end_matches([',', ';', ':', '!', '?', '.', ')']);
        if word.starts_with(['#', '.', '[']) && word.len() > 1 && word != prompt {
            candidates.push(ScopeCandidate {
                selector: word.to_string(),
                source: ScopeSource::Selector,
                description: format!("the CSS selector {word:?}"),
            });
        }
    }
    let landmarks = landmarks_named(&prompt);
    if !landmarks.is_empty() {
        let selector = landmarks
            .iter()
            .filter_map(|name| LANDMARKS.iter().find(|l| l.0 == *name))
            .map(|l| format!(":is({})", l.2))
            .collect::<Vec<_>>()
            .join(" ");
        let mut inner_first: Vec<String> = landmarks.iter().rev().map(|l| format!("the {l}")).collect();
        let innermost = inner_first.remove(0);
        let description = std::iter::once(innermost).chain(inner_first).collect::<Vec<_>>().join(" inside ");
        candidates.push(ScopeCandidate { selector, source: ScopeSource::Landmark, description });
    }
    PromptReading { prompt, candidates }
}

/// The landmarks a prompt's words name, outermost first, each once.
fn landmarks_named(prompt: &str) -> Vec<&'static str> {
    let lower = prompt.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let mut named: Vec<&'static str> = Vec::new();
    let mut inside_word_between = false;
    for word in &words {
        if INSIDE_WORDS.contains(word) && !named.is_empty() {
            inside_word_between = true;
        }
        if let Some(l) = LANDMARKS.iter().find(|l| l.1.contains(word))
            && !named.contains(&l.0)
        {
            named.push(l.0);
        }
    }
    // "navigation in the footer": the first named sits inside the second.
    if inside_word_between {
        named.reverse();
    }
    named
}

impl PromptReading {
    /// The result for the candidate the page matched (its index and the element's selector), or
    /// for none.
    pub fn outcome(&self, matched: Option<(usize, &str)>) -> PromptScope {
        let found = matched.and_then(|(i, element)| Some((self.candidates.get(i)?, element)));
        let Some((candidate, element)) = found else {
            let why = match self.candidates.iter().find(|c| c.source == ScopeSource::Landmark) {
                None => "it is not a CSS selector that matches a shown element, and it names no landmark (header, \
                         footer, navigation, main, sidebar, search)"
                    .to_string(),
                Some(landmark) => format!(
                    "the page shows nothing that is {} at this viewport (looked for HTML elements, ARIA roles and \
                     sidebar ids or classes)",
                    landmark.description
                ),
            };
            return PromptScope {
                prompt: self.prompt.clone(),
                narrowed: false,
                element: None,
                matched_by: None,
                source: None,
                message: format!("Could not narrow to {:?}: {why}. Checked the whole page.", self.prompt),
            };
        };
        PromptScope {
            prompt: self.prompt.clone(),
            narrowed: true,
            element: Some(element.to_string()),
            matched_by: Some(candidate.selector.clone()),
            source: Some(candidate.source),
            message: format!(
                "Checked only {element} ({}, its first shown match) and what is inside it; page-wide issues \
                 (console errors, failed fonts and stylesheets) stay.",
                candidate.description
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selectors(prompt: &str) -> Vec<String> {
        read_prompt(prompt).candidates.into_iter().map(|c| c.selector).collect()
    }

    #[test]
    fn page_check_prompt_readings_in_order() {
        // A selector is tried first; its words can still name a landmark after it.
        assert_eq!(
            selectors("#sidebar"),
            ["#sidebar", ":is(aside, [role=complementary], [id*=sidebar], [class*=sidebar])"]
        );
        // Its selector-looking words after it: the answer names the one that matched.
        assert_eq!(selectors(".cart > li"), [".cart > li", ".cart"]);
        assert_eq!(selectors("  the header "), ["the header", ":is(header, [role=banner])"]);
        assert_eq!(
            selectors("the footer navigation"),
            ["the footer navigation", ":is(footer, [role=contentinfo]) :is(nav, [role=navigation])"]
        );
        assert_eq!(selectors("navigation in the footer")[1], selectors("the footer navigation")[1]);
        assert_eq!(
            selectors("check the .cart-items, please"),
            ["check the .cart-items, please", ".cart-items"],
            "no landmark word, one selector-looking word"
        );
        assert_eq!(selectors("Sidebar")[1], selectors("#sidebar")[1], "words are matched in any case");
        assert_eq!(read_prompt("the footer navigation").candidates[1].description, "the navigation inside the footer");
    }

    #[test]
    fn page_check_prompt_outcome_says_what_was_checked() {
        let reading = read_prompt("the footer navigation");
        let narrowed = reading.outcome(Some((1, "body > footer > nav")));
        assert_eq!(
            (narrowed.narrowed, narrowed.element.as_deref(), narrowed.source),
            (true, Some("body > footer > nav"), Some(ScopeSource::Landmark))
        );
        assert_eq!(
            narrowed.message,
            "Checked only body > footer > nav (the navigation inside the footer, its first shown match) and what is \
             inside it; page-wide issues (console errors, failed fonts and stylesheets) stay."
        );
        assert_eq!(
            reading.outcome(None).message,
            "Could not narrow to \"the footer navigation\": the page shows nothing that is the navigation inside the \
             footer at this viewport (looked for HTML elements, ARIA roles and sidebar ids or classes). Checked the \
             whole page."
        );
        let vague = read_prompt("make it pop").outcome(None);
        assert_eq!(
            (vague.narrowed, vague.message.as_str()),
            (
                false,
                "Could not narrow to \"make it pop\": it is not a CSS selector that matches a shown element, and it \
                 names no landmark (header, footer, navigation, main, sidebar, search). Checked the whole page."
            )
        );
    }
}
