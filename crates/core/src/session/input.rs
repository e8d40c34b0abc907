//! What a call hands the session, checked as it arrives: the snapshot's name (a string,
//! Playwright's name array, or none), the mask as toHaveScreenshot takes it (Locators and
//! selectors), and the `stylePath` files. A bad input is refused naming it and its fix.

use crate::capture::CaptureOwner;
use crate::error::{Error, Result};
use crate::store::CallName;

use super::CallTest;

impl CallTest {
    /// This test as the owner of its capture: another test of the run writing the same
    /// snapshot is then told apart and reported.
    pub(super) fn owner(&self) -> CaptureOwner {
        CaptureOwner {
            run_id: self.run_id.clone(),
            test_id: self.test_id.clone(),
            title: self.title_path.join(" › "),
            location: Some(match self.line {
                Some(line) => format!("{}:{line}", self.file),
                None => self.file.clone(),
            }),
        }
    }
}

/// The call's name as given (a string or Playwright's name array) or, unnamed, its test's.
pub(super) fn call_name(name: Option<serde_json::Value>, index: u32, test: &CallTest) -> Result<CallName> {
    use serde_json::Value;
    let test_file = test.file.clone();
    let given = |parts| Ok(CallName::Given { parts, test_file: test_file.clone() });
    match name {
        None | Some(Value::Null) => {
            Ok(CallName::Unnamed { test_file: test.file.clone(), title_path: test.title_path.clone(), index })
        }
        Some(Value::String(name)) => given(vec![name]),
        Some(Value::Array(parts)) => given(
            parts
                .into_iter()
                .map(|part| match part {
                    Value::String(part) => Ok(part),
                    other => Err(Error::InvalidInput(format!(
                        "snapshot name array holds {other}; every part must be a string, e.g. [\"cards\", \"lamp\"]"
                    ))),
                })
                .collect::<Result<_>>()?,
        ),
        Some(other) => Err(Error::InvalidInput(format!(
            "snapshot name {other} must be a string or an array of strings, e.g. \"checkout-page\" or [\"cards\", \"lamp\"]"
        ))),
    }
}

/// The call's options with `mask` as the engine reads it (selectors only), and whether the mask
/// also holds Locators of the page (marked by the matcher for each walk). `mask` as
/// toHaveScreenshot takes it: Locators, CSS selector strings, or a mix; a bad entry is refused,
/// naming it.
pub(super) fn split_mask(name: &str, mut options: serde_json::Value) -> Result<(serde_json::Value, bool)> {
    use serde_json::Value;
    let fail = |detail: String| Error::InvalidInput(format!("toMatchVisual({name:?}): mask {detail}"));
    let Some(mask) = options.as_object_mut().and_then(|o| o.get_mut("mask")) else { return Ok((options, false)) };
    let entries = match MaskEntry::read(mask.take()) {
        MaskEntry::List(entries) => entries,
        other => {
            return Err(fail(format!(
                "must be an array of Locators or CSS selectors, e.g. [page.locator('#ad'), '.clock']; got {}",
                other.type_of()
            )));
        }
    };
    let mut selectors = Vec::new();
    let mut locators = false;
    for (i, entry) in entries.into_iter().enumerate() {
        match MaskEntry::read(entry) {
            MaskEntry::Selector(selector) => selectors.push(Value::String(selector)),
            MaskEntry::Locator { locator: LocatorPage::ThisPage } => locators = true,
            MaskEntry::Locator { locator: LocatorPage::OtherPage } => {
                return Err(fail(format!(
                    "[{i}] is a Locator of another page: mask only Locators of the page being captured"
                )));
            }
            other => {
                return Err(fail(format!("[{i}] must be a Locator or a CSS selector string, got {}", other.type_of())));
            }
        }
    }
    *mask = Value::Array(selectors);
    Ok((options, locators))
}

/// `mask`, or one of its entries, as the matcher sends it.
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
enum MaskEntry {
    Selector(String),
    List(Vec<serde_json::Value>),
    /// A Locator (only the matcher can hold one; it says whose page it is).
    Locator {
        locator: LocatorPage,
    },
    /// What JSON cannot carry, as JavaScript's `typeof` names it.
    Described {
        #[serde(rename = "type")]
        type_of: String,
    },
    /// Anything else: `null`, a boolean, a number, another object.
    Other(serde_json::Value),
}

#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
enum LocatorPage {
    ThisPage,
    OtherPage,
}

impl MaskEntry {
    fn read(value: serde_json::Value) -> Self {
        match serde_json::from_value(value) {
            Ok(entry) => entry,
            Err(e) => unreachable!("MaskEntry::Other reads any JSON value: {e}"),
        }
    }

    /// JavaScript's `typeof` of what the matcher passed.
    fn type_of(&self) -> &str {
        match self {
            MaskEntry::Selector(_) => "string",
            MaskEntry::Described { type_of } => type_of,
            MaskEntry::Other(serde_json::Value::Null) => "null",
            MaskEntry::Other(serde_json::Value::Bool(_)) => "boolean",
            MaskEntry::Other(serde_json::Value::Number(_)) => "number",
            MaskEntry::List(_) | MaskEntry::Locator { .. } | MaskEntry::Other(_) => "object",
        }
    }
}

/// The `stylePath` files' CSS, joined, read as toHaveScreenshot reads them: relative paths from
/// the folder the tests run in (the config file's are already the project root's).
pub(super) fn read_styles(name: &str, paths: &[String]) -> Result<String> {
    let mut texts = Vec::with_capacity(paths.len());
    for file in paths {
        let bytes = std::fs::read(file).map_err(|e| {
            let cwd = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
            Error::InvalidInput(format!(
                "toMatchVisual({name:?}): stylePath {file:?} cannot be read ({}): give the path of a CSS file, relative to {cwd} or absolute",
                io_code(&e)
            ))
        })?;
        texts.push(String::from_utf8_lossy(&bytes).trim().to_string());
    }
    Ok(texts.join("\n"))
}

/// Node's code for an I/O error (`ENOENT`), as a JavaScript user reads it.
fn io_code(e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::NotFound => "ENOENT".into(),
        ErrorKind::PermissionDenied => "EACCES".into(),
        ErrorKind::IsADirectory => "EISDIR".into(),
        _ => e.to_string(),
    }
}

/// `ignoreRegions` lie inside the capture (`png`, whose pixels are `dpr` per CSS pixel): one that
/// reaches outside is refused, naming the capture's size, before anything is compared or written.
pub(super) fn check_ignore_regions(regions: &[crate::config::Clip], png: &[u8], dpr: f64) -> Result<()> {
    let Some((width, height)) = crate::decode::png_dimensions(png) else {
        return Ok(()); // not a PNG header: decoding says what is wrong with it
    };
    let (width, height) = (f64::from(width) / dpr, f64::from(height) / dpr);
    for (i, r) in regions.iter().enumerate() {
        // Half a pixel of slack: a device pixel ratio that rounds the capture's size.
        if r.x + r.width > width + 0.5 || r.y + r.height > height + 0.5 {
            return Err(Error::InvalidInput(format!(
                "toMatchVisual options: \"ignoreRegions[{i}]\" {{x: {}, y: {}, width: {}, height: {}}} reaches outside the capture, {width}×{height} CSS pixels; give boxes inside it (from the capture's top-left corner: page pixels for a full-page shot)",
                r.x, r.y, r.width, r.height
            )));
        }
    }
    Ok(())
}
