//! An element's name in its selector: the classes of its last segment (`tr.row.passed`). A paired
//! element whose classes differ between the captures is one element with a class change
//! (`class passed → failed`), not one removed and one added. Its `#id` is no evidence either way:
//! an id that differs while the element's place, tag and content agree is one an app generates
//! on every render (React's `:r1:`, `navAcro=`), so it is not reported.

use serde::{Deserialize, Serialize};

use super::keys::{last_segment, strip_nth_of_type};
use super::record::ElementRecord;
use crate::regions::ElementRole;

/// How many class changes are listed.
const LISTED: usize = 10;

/// Paired elements whose classes changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassChanges {
    /// How many elements.
    pub count: usize,
    /// The first 10, in document order.
    pub elements: Vec<ClassChange>,
}

impl ClassChanges {
    /// No class changed.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The first change in words: `class passed → failed (tr.row.failed)`.
    pub fn first_sentence(&self) -> Option<String> {
        self.elements.first().map(|c| format!("{} ({})", c.sentence(), c.selector))
    }

    pub(super) fn add(&mut self, change: ClassChange) {
        self.count += 1;
        if self.elements.len() < LISTED {
            self.elements.push(change);
        }
    }
}

fn words(classes: &[String]) -> String {
    if classes.is_empty() { "(none)".into() } else { classes.join(" ") }
}

/// One element whose classes changed: those it lost and those it gained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassChange {
    /// The element in the current capture.
    pub selector: String,
    /// Classes only the baseline's element had.
    pub from: Vec<String>,
    /// Classes only the current element has.
    pub to: Vec<String>,
}

impl ClassChange {
    /// `class passed → failed`; a side without classes of its own reads `(none)`.
    pub fn sentence(&self) -> String {
        format!("class {} → {}", words(&self.from), words(&self.to))
    }
}

/// The class changes that made a difference: the element, or an element inside it, was
/// restyled, changed or added (a row turned red or grew an error message). A class an app names
/// anew on every render (a hashed CSS-in-JS class) changes nothing else, and is no change.
pub(super) fn class_changes(
    cs: &[ElementRecord],
    renamed: Vec<(usize, ClassChange)>,
    roles: &[Option<ElementRole>],
) -> ClassChanges {
    let mut changes = ClassChanges::default();
    if renamed.is_empty() {
        return changes;
    }
    // Elements are in document order, so a subtree is the element and the run after it; its end
    // is found by carrying each element's last descendant up to its parent.
    let mut last = (0..cs.len()).collect::<Vec<_>>();
    for i in (0..cs.len()).rev() {
        if let Some(p) = cs[i].parent_index().filter(|&p| p < i) {
            last[p] = last[p].max(last[i]);
        }
    }
    let differs = |role: &Option<ElementRole>| matches!(role, Some(ElementRole::Changed | ElementRole::Added));
    for (c, change) in renamed {
        if roles[c..=last[c]].iter().any(differs) {
            changes.add(change);
        }
    }
    changes
}

/// The class change between two paired elements, if both name their classes (an `#id` segment
/// names none) and they differ.
pub(super) fn class_change(old: &ElementRecord, new: &ElementRecord) -> Option<ClassChange> {
    let (before, after) = (classes(&old.selector)?, classes(&new.selector)?);
    let from: Vec<String> = before.iter().filter(|c| !after.contains(c)).cloned().collect();
    let to: Vec<String> = after.iter().filter(|c| !before.contains(c)).cloned().collect();
    (!from.is_empty() || !to.is_empty()).then(|| ClassChange { selector: new.selector.clone(), from, to })
}

/// The classes of a selector's last segment, unescaped (`div.md\:flex` → `md:flex`); `None` for
/// an `#id` segment, which stands for the element instead of its classes.
fn classes(selector: &str) -> Option<Vec<String>> {
    let segment = strip_nth_of_type(last_segment(selector).0);
    if segment.starts_with('#') {
        return None;
    }
    let mut parts = Vec::new();
    let mut current: Option<String> = None; // None while in the tag
    let mut chars = segment.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let escaped = unescape(&mut chars);
                if let Some(part) = current.as_mut() {
                    part.push(escaped);
                }
            }
            '.' => {
                parts.extend(current.take());
                current = Some(String::new());
            }
            _ => {
                if let Some(part) = current.as_mut() {
                    part.push(c);
                }
            }
        }
    }
    parts.extend(current);
    Some(parts)
}

/// One CSS escape after its backslash: up to six hex digits and an optional space, or the
/// character itself.
fn unescape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> char {
    let mut hex = String::new();
    while hex.len() < 6 && chars.peek().is_some_and(char::is_ascii_hexdigit) {
        hex.extend(chars.next());
    }
    if hex.is_empty() {
        return chars.next().unwrap_or('\\');
    }
    if chars.peek() == Some(&' ') {
        chars.next();
    }
    u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).unwrap_or(char::REPLACEMENT_CHARACTER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dom_names_read_the_classes_of_the_last_segment() {
        assert_eq!(classes("body > table > tr.row.passed:nth-of-type(2)"), Some(vec!["row".into(), "passed".into()]));
        assert_eq!(classes("body > div.md\\:flex.\\31 col"), Some(vec!["md:flex".into(), "1col".into()]));
        assert_eq!(classes("#navAcro\\="), None);
        assert_eq!(classes("#app > section"), Some(vec![]));
        assert_eq!(classes("x-card >>> p.note"), Some(vec!["note".into()]));
    }
}
