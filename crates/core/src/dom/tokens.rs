//! Design tokens: the custom properties of the root (`--brand: #2563eb`) and those declared on
//! elements (`.card { --accent: … }`), on both sides. One token changed restyles every element
//! that uses it, so the change is named by the token first.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::record::DomSnapshot;

/// Token changes listed; the rest are counted.
const LISTED_TOKENS: usize = 20;
/// Elements a token change declared on elements lists; the rest are counted.
const LISTED_ELEMENTS: usize = 5;

/// A custom property whose value differs between the baseline and the capture: the root's, or
/// one declared on elements (the same change on several elements is one change).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenChange {
    /// `--brand`.
    pub name: String,
    /// The baseline's value; `None` when only the capture has the token.
    pub from: Option<String>,
    /// The capture's value; `None` when only the baseline has it.
    pub to: Option<String>,
    /// The elements that declare it with these values, by selector (the first
    /// [`LISTED_ELEMENTS`]); empty for the root's token.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elements: Vec<String>,
    /// How many elements declare it with these values; 0 for the root's token.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub element_count: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl TokenChange {
    /// `--brand #2563eb → #dc2626` (`(none)` for a side without the token): what changed, the
    /// same wherever it is declared.
    pub fn values(&self) -> String {
        let side = |v: &Option<String>| v.clone().unwrap_or_else(|| "(none)".into());
        format!("{} {} → {}", self.name, side(&self.from), side(&self.to))
    }

    /// [`TokenChange::values`], then where it is declared when not on the root
    /// (`--accent #0e7490 → #1f6feb on .card and 2 more elements`).
    pub fn describe(&self) -> String {
        match (self.elements.first(), self.element_count.saturating_sub(1)) {
            (None, _) => self.values(),
            (Some(first), 0) => format!("{} on {first}", self.values()),
            (Some(first), more) => {
                format!("{} on {first} and {}", self.values(), crate::words::plural(more, "more element"))
            }
        }
    }

    /// The element, among those listed, whose declaration the element of `selector` reads: itself
    /// or its nearest ancestor whose selector its own extends.
    pub fn declared_on(&self, selector: &str) -> Option<&str> {
        self.elements
            .iter()
            .filter(|on| {
                selector == *on || selector.strip_prefix(on.as_str()).is_some_and(|rest| rest.starts_with(" > "))
            })
            .max_by_key(|on| on.len())
            .map(String::as_str)
    }
}

/// The tokens that changed: the root's, in the capture's order (then those only the baseline
/// has), then those declared on elements, in the capture's element order. A root token is
/// compared only when both records have root tokens, and an element's only when both sides
/// declare it on the same element (by selector): a record made before tokens were collected has
/// none, and an element added or removed is a structural change, not a token's.
pub fn token_changes(baseline: &DomSnapshot, current: &DomSnapshot) -> Vec<TokenChange> {
    let mut changes = root_token_changes(baseline, current);
    changes.extend(element_token_changes(baseline, current));
    changes.truncate(LISTED_TOKENS);
    changes
}

fn root_token_changes(baseline: &DomSnapshot, current: &DomSnapshot) -> Vec<TokenChange> {
    if baseline.tokens.is_empty() || current.tokens.is_empty() {
        return Vec::new();
    }
    let root = |name: &str, from: Option<&str>, to: Option<&str>| TokenChange {
        name: name.to_string(),
        from: from.map(str::to_string),
        to: to.map(str::to_string),
        elements: Vec::new(),
        element_count: 0,
    };
    let before: HashMap<&str, &str> = baseline.tokens.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let now: HashMap<&str, &str> = current.tokens.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let changed = current.tokens.iter().filter_map(|(name, to)| match before.get(name.as_str()) {
        Some(from) if from == to => None,
        from => Some(root(name, from.copied(), Some(to))),
    });
    let gone = baseline
        .tokens
        .iter()
        .filter(|(name, _)| !now.contains_key(name.as_str()))
        .map(|(name, from)| root(name, Some(from), None));
    changed.chain(gone).collect()
}

fn element_token_changes(baseline: &DomSnapshot, current: &DomSnapshot) -> Vec<TokenChange> {
    if baseline.element_tokens.is_empty() || current.element_tokens.is_empty() {
        return Vec::new();
    }
    let before: HashMap<(&str, &str), &str> = baseline
        .element_tokens
        .iter()
        .map(|(element, name, value)| ((baseline.elements[*element].selector.as_str(), name.as_str()), value.as_str()))
        .collect();
    let mut changes: Vec<TokenChange> = Vec::new();
    for (element, name, to) in &current.element_tokens {
        let selector = &current.elements[*element].selector;
        let Some(from) = before.get(&(selector.as_str(), name.as_str())).filter(|from| **from != to) else {
            continue;
        };
        match changes
            .iter_mut()
            .find(|c| &c.name == name && c.from.as_deref() == Some(from) && c.to.as_ref() == Some(to))
        {
            Some(change) => {
                change.element_count += 1;
                if change.elements.len() < LISTED_ELEMENTS {
                    change.elements.push(selector.clone());
                }
            }
            None => changes.push(TokenChange {
                name: name.clone(),
                from: Some(from.to_string()),
                to: Some(to.clone()),
                elements: vec![selector.clone()],
                element_count: 1,
            }),
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::test_records::{page, parse};

    fn with_tokens(tokens: &[(&str, &str)]) -> DomSnapshot {
        let mut dom = parse(&page());
        dom.tokens = tokens.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
        dom
    }

    #[test]
    fn names_changed_added_and_removed_tokens_in_order() {
        let baseline = with_tokens(&[("--brand", "#2563eb"), ("--ink", "#0f172a"), ("--old", "1px")]);
        let current = with_tokens(&[("--brand", "#dc2626"), ("--ink", "#0f172a"), ("--new", "2px")]);
        let changes = token_changes(&baseline, &current);
        let described: Vec<String> = changes.iter().map(TokenChange::describe).collect();
        assert_eq!(described, ["--brand #2563eb → #dc2626", "--new (none) → 2px", "--old 1px → (none)"]);
    }

    #[test]
    fn a_record_without_tokens_says_nothing() {
        let baseline = with_tokens(&[]);
        let current = with_tokens(&[("--brand", "#dc2626")]);
        assert!(token_changes(&baseline, &current).is_empty());
    }

    fn declaring(tokens: &[(usize, &str, &str)]) -> DomSnapshot {
        let mut dom = parse(&page());
        dom.element_tokens = tokens.iter().map(|(e, n, v)| (*e, n.to_string(), v.to_string())).collect();
        dom
    }

    #[test]
    fn a_token_declared_on_elements_changes_once_for_all_of_them() {
        // Both cards (elements 4 and 6) declare --accent; card b also --gap, unchanged.
        let baseline = declaring(&[(4, "--accent", "#0e7490"), (6, "--accent", "#0e7490"), (6, "--gap", "8px")]);
        let current = declaring(&[(4, "--accent", "#1f6feb"), (6, "--accent", "#1f6feb"), (6, "--gap", "8px")]);
        let changes = token_changes(&baseline, &current);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].describe(), "--accent #0e7490 → #1f6feb on #card-a and 1 more element");
        assert_eq!(changes[0].values(), "--accent #0e7490 → #1f6feb");
        assert_eq!(
            (changes[0].elements.clone(), changes[0].element_count),
            (vec!["#card-a".to_string(), "#card-b".to_string()], 2)
        );
        assert_eq!(changes[0].declared_on("#card-b > p"), Some("#card-b"));
        assert_eq!(changes[0].declared_on("#card-a"), Some("#card-a"));
        assert_eq!(changes[0].declared_on("#card-ab"), None, "a selector's prefix is not an ancestor");
        assert_eq!(changes[0].declared_on("body > main"), None);
    }

    #[test]
    fn a_token_declared_on_one_side_only_or_in_an_older_record_is_no_token_change() {
        let baseline = declaring(&[(4, "--accent", "#0e7490")]);
        // Card a now declares nothing (its rule changed: the trace names it), card b a new token.
        let current = declaring(&[(6, "--accent", "#1f6feb")]);
        assert!(token_changes(&baseline, &current).is_empty());
        assert!(token_changes(&declaring(&[]), &current).is_empty());
        // Differing values on two elements are two changes.
        let baseline = declaring(&[(4, "--accent", "#0e7490"), (6, "--accent", "#0e7490")]);
        let current = declaring(&[(4, "--accent", "#1f6feb"), (6, "--accent", "#dc2626")]);
        let described: Vec<String> = token_changes(&baseline, &current).iter().map(TokenChange::describe).collect();
        assert_eq!(described, ["--accent #0e7490 → #1f6feb on #card-a", "--accent #0e7490 → #dc2626 on #card-b"]);
    }
}
