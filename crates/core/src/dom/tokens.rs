//! Design tokens: the custom properties of the root (`--brand: #2563eb`) on both sides. One
//! token changed restyles every element that uses it, so the change is named by the token first.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::record::DomSnapshot;

/// Token changes listed; the rest are counted.
const LISTED_TOKENS: usize = 20;

/// A custom property of the root whose value differs between the baseline and the capture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenChange {
    /// `--brand`.
    pub name: String,
    /// The baseline's value; `None` when only the capture has the token.
    pub from: Option<String>,
    /// The capture's value; `None` when only the baseline has it.
    pub to: Option<String>,
}

impl TokenChange {
    /// `--brand #2563eb → #dc2626` (`(none)` for a side without the token).
    pub fn describe(&self) -> String {
        let side = |v: &Option<String>| v.clone().unwrap_or_else(|| "(none)".into());
        format!("{} {} → {}", self.name, side(&self.from), side(&self.to))
    }
}

/// The root's tokens that changed, in the capture's order (then those only the baseline has).
/// Empty when either record predates tokens (it has none): nothing can be said then.
pub fn token_changes(baseline: &DomSnapshot, current: &DomSnapshot) -> Vec<TokenChange> {
    if baseline.tokens.is_empty() || current.tokens.is_empty() {
        return Vec::new();
    }
    let before: HashMap<&str, &str> = baseline.tokens.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let now: HashMap<&str, &str> = current.tokens.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let changed = current.tokens.iter().filter_map(|(name, to)| match before.get(name.as_str()) {
        Some(from) if from == to => None,
        from => Some(TokenChange { name: name.clone(), from: from.map(|f| f.to_string()), to: Some(to.clone()) }),
    });
    let gone = baseline
        .tokens
        .iter()
        .filter(|(name, _)| !now.contains_key(name.as_str()))
        .map(|(name, from)| TokenChange { name: name.clone(), from: Some(from.clone()), to: None });
    changed.chain(gone).take(LISTED_TOKENS).collect()
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
}
