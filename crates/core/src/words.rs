//! The words results.json writes for the values of the model's enums, read back from serde, so
//! each is spelled once: in its type's `#[serde(rename…)]`.

use serde::Serialize;

/// A value whose word is its serde name: a unit variant of an enum that serialises as a string.
pub trait Word: Serialize + Copy {
    /// The value as results.json spells it, e.g. `changed`.
    fn word(self) -> &'static str {
        serde_variant::to_variant_name(&self).expect("a Word is a unit variant serde names")
    }
}

/// `118×35`: the size of a box `[x, y, width, height]`, rounded to whole pixels.
pub fn box_size(b: [f64; 4]) -> String {
    format!("{}×{}", b[2].round(), b[3].round())
}

/// `line` with its first letter in capitals, to start a sentence with a lower-case phrase.
/// `1 element`, `3 elements`, `2 more families`: a count with its noun.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else if let Some(stem) = word.strip_suffix('y') {
        format!("{n} {stem}ies")
    } else {
        format!("{n} {word}s")
    }
}

pub fn capitalised(line: &str) -> String {
    let mut chars = line.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{ContentChange, StyleCheck};
    use crate::health::AssetKind;
    use crate::regions::{Classification, ElementRole};
    use crate::shape::Shape;
    use crate::verdict::{Status, VerdictKind};

    fn check<T: Word>(values: &[T], words: &[&str]) {
        let said: Vec<&str> = values.iter().map(|v| v.word()).collect();
        assert_eq!(said, words);
        for &v in values {
            assert_eq!(serde_json::to_value(v).unwrap(), v.word(), "the word is what results.json writes");
        }
    }

    #[test]
    fn words_are_the_results_json_names() {
        check(
            &[Status::Passed, Status::Changed, Status::New, Status::Missing, Status::Written],
            &["passed", "changed", "new", "missing", "written"],
        );
        check(&[VerdictKind::Unstable, VerdictKind::New], &["unstable", "new"]);
        check(&[AssetKind::Font, AssetKind::Stylesheet, AssetKind::Image], &["font", "stylesheet", "image"]);
        check(&[Shape::Concentrated, Shape::Scattered, Shape::Large], &["concentrated", "scattered", "large"]);
        check(
            &[Classification::Change, Classification::Shift, Classification::Rendering],
            &["change", "shift", "rendering"],
        );
        check(
            &[
                ElementRole::Changed,
                ElementRole::Added,
                ElementRole::Removed,
                ElementRole::Moved,
                ElementRole::Overlaps,
            ],
            &["changed", "added", "removed", "moved", "overlaps"],
        );
        check(
            &[StyleCheck::Match, StyleCheck::Mismatch, StyleCheck::Unavailable],
            &["match", "mismatch", "unavailable"],
        );
        check(&[ContentChange::Tag, ContentChange::Text, ContentChange::Image], &["tag", "text", "image"]);
        assert_eq!(Status::Changed.to_string(), "changed");
    }
}
