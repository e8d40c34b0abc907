//! How a layer's values are checked as they are read: each reader takes an optional value and
//! says what it expects; [`checked`] turns serde's errors into one sentence naming the source, the
//! key and the fix.

use serde::Deserialize;
use serde::de::Deserializer;

use super::styles::SHORTHANDS;
use crate::dom::MAX_IGNORE_REGIONS;
use crate::error::{Error, Result};

/// Deserialises one settings object; an error names `place`, the key path and what it expects.
pub(super) fn checked<T: serde::de::DeserializeOwned>(value: serde_json::Value, place: &str) -> Result<T> {
    if !value.is_object() {
        return Err(not_an_object(place));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let key = e.path().to_string();
        let detail = e.inner().to_string();
        // serde's own messages quote names in backticks: the first is the key or value at
        // fault, the rest what was expected.
        let names: Vec<&str> = detail.split('`').skip(1).step_by(2).collect();
        Error::InvalidInput(format!(
            "{place}: {}",
            if detail.starts_with("unknown field") {
                unknown_key(&key, names[0], &names[1..])
            } else if detail.starts_with("unknown variant") {
                let wanted: Vec<String> = names[1..].iter().map(|n| format!("\"{n}\"")).collect();
                format!("\"{key}\" must be {}, got \"{}\"", wanted.join(" or "), names[0])
            } else if detail.starts_with(MUST) {
                format!("\"{key}\" {detail}")
            } else {
                format!("\"{key}\" has the wrong type ({detail})")
            }
        ))
    })
}

/// The error for settings that are not a JSON object.
pub(super) fn not_an_object(place: &str) -> Error {
    Error::InvalidInput(format!("{place}: expected a JSON object of settings, e.g. {{\"threshold\": 0.1}}"))
}

/// `unknown key "<path>" (did you mean "<known>"?); known keys are …`: `typed` is the last part of
/// `path`, `known` the keys its object takes.
pub(super) fn unknown_key(path: &str, typed: &str, known: &[&str]) -> String {
    let guess = closest(typed, known).map(|k| format!(" (did you mean \"{k}\"?)")).unwrap_or_default();
    format!("unknown key \"{path}\"{guess}; known keys are {}", known.join(", "))
}

/// The known key a mistyped one most likely meant: at most two edits away (a letter doubled,
/// dropped, swapped or wrong; case aside) and no more than a third of its letters, so a short key
/// (`w`) is not "corrected" into an unrelated one (`x`).
pub fn closest<'a>(typed: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&typed.to_lowercase(), &k.to_lowercase()), *k))
        .filter(|(edits, _)| *edits <= 2 && *edits * 3 <= typed.chars().count())
        .min_by_key(|(edits, _)| *edits)
        .map(|(_, k)| k)
}

/// How the range checks below start their messages, so [`checked`] can tell them from serde's.
const MUST: &str = "must be ";

fn out_of_range<E: serde::de::Error>(want: &str, got: impl std::fmt::Display) -> E {
    E::custom(format!("{MUST}{want}, got {got}"))
}

/// Reads an optional value and checks it with `check`.
fn optional<'de, D, T, F>(d: D, check: F) -> std::result::Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
    F: FnOnce(T) -> std::result::Result<T, D::Error>,
{
    Option::<T>::deserialize(d)?.map(check).transpose()
}

pub(super) fn optional_fraction<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<f64>, D::Error> {
    optional(d, |v: f64| if (0.0..=1.0).contains(&v) { Ok(v) } else { Err(out_of_range("a number from 0 to 1", v)) })
}

pub(super) fn optional_count<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<u64>, D::Error> {
    // Read as a number, so 2.5 and -1 get this message rather than serde's "expected u64".
    Ok(optional(d, |v: f64| {
        if v >= 0.0 && v.fract() == 0.0 && v <= u64::MAX as f64 {
            Ok(v)
        } else {
            Err(out_of_range("a whole number ≥ 0", v))
        }
    })?
    .map(|v| v as u64))
}

pub(super) fn optional_millis<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<f64>, D::Error> {
    optional(d, |v: f64| if v >= 0.0 { Ok(v) } else { Err(out_of_range("a number of milliseconds ≥ 0", v)) })
}

pub(super) fn optional_folder<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<String>, D::Error> {
    optional(d, |v: String| if v.is_empty() { Err(out_of_range("a folder path string", "\"\"")) } else { Ok(v) })
}

pub(super) fn optional_longhands<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Vec<String>>, D::Error> {
    optional(d, |list: Vec<String>| {
        if list.is_empty() || list.iter().any(String::is_empty) {
            let got = serde_json::to_string(&list).unwrap_or_default();
            return Err(out_of_range("a non-empty array of CSS longhand names", got));
        }
        if let Some((name, longhands)) = list.iter().find_map(|p| SHORTHANDS.iter().find(|(s, _)| s == p)) {
            return Err(<D::Error as serde::de::Error>::custom(format!(
                "{MUST}longhand CSS property names: \"{name}\" is a shorthand, which Chromium reports as \"\" when \
                 sides differ; list the longhands instead: {longhands}"
            )));
        }
        Ok(list)
    })
}

/// A CSS colour as RGBA bytes, `None` when it is not one.
pub(super) fn parse_css_color(text: &str) -> Option<[u8; 4]> {
    csscolorparser::parse(text).ok().map(|c| c.to_rgba8())
}

pub(super) fn optional_css_color<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<String>, D::Error> {
    optional(d, |v: String| match parse_css_color(&v) {
        Some(_) => Ok(v),
        None => Err(out_of_range("a CSS colour such as \"#FF00FF\" or \"rgb(0 0 0 / 50%)\"", format!("{v:?}"))),
    })
}

/// toHaveScreenshot's `stylePath`: one path or a list of them.
pub(super) fn optional_paths<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    const WANT: &str = "a CSS file path or an array of them";
    let list = match Option::<OneOrMany>::deserialize(d) {
        Ok(None) => return Ok(None),
        Ok(Some(OneOrMany::One(path))) => vec![path],
        Ok(Some(OneOrMany::Many(list))) => list,
        Err(_) => return Err(out_of_range(WANT, "another type")),
    };
    if list.iter().any(String::is_empty) {
        return Err(out_of_range(WANT, "an empty path"));
    }
    Ok(Some(list))
}

pub(super) fn positive<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    let v = f64::deserialize(d)?;
    if v > 0.0 { Ok(v) } else { Err(out_of_range("a number above 0", v)) }
}

/// `ignoreRegions`: boxes with x, y ≥ 0 and a positive size ([`super::Clip`] checks the size),
/// at most [`MAX_IGNORE_REGIONS`] (a DOM record's limit: it carries them), no two overlapping (one box is one thing to leave out; two
/// that overlap are a mistake in one of them).
pub(super) fn optional_regions<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Vec<super::Clip>>, D::Error> {
    optional(d, |regions: Vec<super::Clip>| {
        if regions.len() > MAX_IGNORE_REGIONS {
            return Err(out_of_range(&format!("at most {MAX_IGNORE_REGIONS} boxes"), regions.len()));
        }
        let describe =
            |r: &super::Clip| format!("{{x: {}, y: {}, width: {}, height: {}}}", r.x, r.y, r.width, r.height);
        for (i, r) in regions.iter().enumerate() {
            if !(r.x.is_finite()
                && r.y.is_finite()
                && r.x >= 0.0
                && r.y >= 0.0
                && r.width.is_finite()
                && r.height.is_finite())
            {
                return Err(out_of_range("boxes with x and y ≥ 0 and a finite size", format!("[{i}] {}", describe(r))));
            }
            if let Some(j) = regions[..i].iter().position(|o| {
                r.x < o.x + o.width && o.x < r.x + r.width && r.y < o.y + o.height && o.y < r.y + r.height
            }) {
                return Err(out_of_range(
                    "boxes that do not overlap",
                    format!("[{i}] {} overlapping [{j}] {}", describe(r), describe(&regions[j])),
                ));
            }
        }
        Ok(regions)
    })
}
