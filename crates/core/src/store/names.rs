//! A `toMatchVisual` call's snapshot name ([`call_snapshot_name`]): the name it gives (a string
//! or Playwright's name array), or one made from its spec file and test title, as
//! `toHaveScreenshot` names its snapshots.

use crate::error::{Error, Result};
use crate::layout::{BaselineLayout, MAX_NAME_BYTES, check_snapshot_name};

/// How a `toMatchVisual` call names its snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallName {
    /// A name given by the call: a string is one element, Playwright's name array several
    /// (nested folders). A trailing `.png` is dropped: toHaveScreenshot names carry it.
    /// `test_file` is the spec file, as below: a `{testFile}/{name}` layout puts the name in it.
    Given { parts: Vec<String>, test_file: String },
    /// No name: the test's spec file (relative to the config's folder, `/` separated) and its
    /// title path; `index` counts the test's unnamed calls from 1.
    Unnamed { test_file: String, title_path: Vec<String>, index: u32 },
}

/// The snapshot name of one call, checked ([`check_snapshot_name`]). An unnamed call is named
/// after its spec file and test, as toHaveScreenshot's are (`<file>/<titles>`, `-2` from the
/// test's second unnamed call on), so the same title in two files keeps two baselines. A given
/// name is the project's, or its spec file's (`<file>/<name>`) when the layout is
/// `{testFile}/{name}` ([`BaselineLayout::per_file_names`]).
pub fn call_snapshot_name(name: &CallName, layout: &BaselineLayout) -> Result<String> {
    let name = match name {
        CallName::Given { parts, test_file } => {
            if parts.is_empty() || parts.iter().any(String::is_empty) {
                let got = serde_json::to_string(parts).unwrap_or_default();
                return Err(Error::InvalidInput(format!(
                    "snapshot name {got} has an empty part; name the snapshot, e.g. \"checkout-page\" or [\"cards\", \"lamp\"]"
                )));
            }
            let joined = parts.iter().map(|part| name_part(part)).collect::<Vec<_>>().join("/");
            let given = joined.strip_suffix(".png").filter(|rest| !rest.is_empty()).unwrap_or(&joined);
            if let Some(extension) = image_extension(given) {
                let plain = &given[..given.len() - extension.len() - 1];
                return Err(Error::InvalidInput(format!(
                    "snapshot name {given:?} ends in .{extension}: every baseline is a PNG (its pixels and its DOM in one file); name it {plain:?} or \"{plain}.png\""
                )));
            }
            let prefix = if layout.per_file_names() { file_folders(test_file) } else { String::new() };
            if prefix.is_empty() { given.to_string() } else { format!("{prefix}/{given}") }
        }
        CallName::Unnamed { test_file, title_path, index } => {
            let prefix = file_folders(test_file);
            let suffix = if *index > 1 { format!("-{index}") } else { String::new() };
            // The title gives way to the file's folders under the length limit.
            let room = MAX_NAME_BYTES.saturating_sub(prefix.len() + 1 + suffix.len()).max(16);
            let mut title = title_segment(&title_path.join("-"));
            title.truncate(room);
            let title = title.trim_end_matches('-');
            let title = if title.is_empty() { "snapshot" } else { title };
            if prefix.is_empty() { format!("{title}{suffix}") } else { format!("{prefix}/{title}{suffix}") }
        }
    };
    check_snapshot_name(&name)?;
    Ok(name)
}

/// A given name's part as the snapshot's name: each run of characters a name does not hold
/// (spaces, brackets, accents) becomes one `-`, as toHaveScreenshot makes its file names
/// (`'Login page.png'` → `Login-page`). Accented letters too: a baseline's path is ASCII, so it
/// reads back the same on every file system.
fn name_part(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    let mut replacing = false;
    for c in part.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/') {
            out.push(c);
            replacing = false;
        } else if !replacing {
            out.push('-');
            replacing = true;
        }
    }
    out
}

/// The image extension other than `.png` that `name` ends in, if any: toHaveScreenshot takes
/// only `.png` and `.webp` names, and a Sightline baseline is always a PNG.
fn image_extension(name: &str) -> Option<&str> {
    const OTHER_IMAGES: [&str; 9] = ["jpeg", "jpg", "webp", "gif", "bmp", "avif", "tif", "tiff", "svg"];
    let (stem, extension) = name.rsplit_once('.')?;
    let last = stem.rsplit('/').next().unwrap_or(stem);
    (!last.is_empty() && OTHER_IMAGES.iter().any(|e| e.eq_ignore_ascii_case(extension))).then_some(extension)
}

/// A spec file's path as a name's folders (`tests/home.spec.ts` stays as it is).
fn file_folders(test_file: &str) -> String {
    let folders: Vec<String> = test_file.split('/').map(file_segment).filter(|s| !s.is_empty()).collect();
    folders.join("/")
}

/// A spec file's path segment as a name's folder: unsafe characters become `-`, dot runs one dot.
fn file_segment(segment: &str) -> String {
    let safe: String = segment
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '-' })
        .collect();
    let mut out = String::with_capacity(safe.len());
    for c in safe.chars() {
        if !(c == '.' && out.ends_with('.')) {
            out.push(c);
        }
    }
    out.trim_matches(|c| c == '-' || c == '.').to_string()
}

/// Test titles as a name's last segment: runs of anything but letters, digits, `_` and `-`
/// become one `-` (no dots, so it never ends like a snapshot's own files).
fn title_segment(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    for c in title.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_call_names_as_to_have_screenshot_gives_them() {
        let default = BaselineLayout::default();
        let given = |parts: &[&str]| {
            let parts = parts.iter().map(|p| p.to_string()).collect();
            call_snapshot_name(&CallName::Given { parts, test_file: "pages/home.spec.ts".into() }, &default)
        };
        assert_eq!(given(&["home"]).unwrap(), "home");
        assert_eq!(given(&["home.png"]).unwrap(), "home");
        assert_eq!(given(&["cards", "lamp.png"]).unwrap(), "cards/lamp");
        assert_eq!(given(&["cards/lamp"]).unwrap(), "cards/lamp");
        assert_eq!(given(&[".png"]).unwrap(), ".png");
        assert_eq!(
            given(&["hero.jpeg"]).unwrap_err().to_string(),
            "snapshot name \"hero.jpeg\" ends in .jpeg: every baseline is a PNG (its pixels and its DOM in one file); name it \"hero\" or \"hero.png\""
        );
        assert!(given(&["cards", "lamp.WEBP"]).unwrap_err().to_string().contains("ends in .WEBP"));
        assert_eq!(given(&["v1.2"]).unwrap(), "v1.2", "a dot alone is no image extension");
        // What a name cannot hold becomes '-', as toHaveScreenshot's file names.
        assert_eq!(given(&["Login page.png"]).unwrap(), "Login-page");
        assert_eq!(given(&["Snapshot (1).png"]).unwrap(), "Snapshot-1-");
        assert_eq!(given(&["café  menu"]).unwrap(), "caf-menu");
        assert_eq!(given(&["dir", "long long name.png"]).unwrap(), "dir/long-long-name");
        assert_eq!(given(&["a\\b"]).unwrap(), "a-b");
        assert!(given(&["..", "x"]).unwrap_err().to_string().contains("contains '..'"));
        assert_eq!(
            given(&["cards", ""]).unwrap_err().to_string(),
            "snapshot name [\"cards\",\"\"] has an empty part; name the snapshot, e.g. \"checkout-page\" or [\"cards\", \"lamp\"]"
        );
        assert!(given(&[]).is_err());
        let unnamed = |file: &str, titles: &[&str], index| {
            call_snapshot_name(
                &CallName::Unnamed {
                    test_file: file.into(),
                    title_path: titles.iter().map(|t| t.to_string()).collect(),
                    index,
                },
                &default,
            )
            .unwrap()
        };
        assert_eq!(unnamed("home.spec.ts", &["home"], 1), "home.spec.ts/home");
        assert_eq!(
            unnamed("pages/home.spec.ts", &["checkout", "pays by card"], 2),
            "pages/home.spec.ts/checkout-pays-by-card-2"
        );
        assert_eq!(unnamed("a b/x..spec.ts", &["logo.png ✓"], 1), "a-b/x.spec.ts/logo-png");
        assert_eq!(unnamed("", &["!!"], 1), "snapshot");
        let long = unnamed("home.spec.ts", &[&"t".repeat(400)], 12);
        assert_eq!(long.len(), MAX_NAME_BYTES);
        assert!(long.starts_with("home.spec.ts/ttt") && long.ends_with("t-12"), "{long}");

        // A `{testFile}/{name}` layout keeps a given name in its spec file; unnamed names are
        // already there.
        let per_file = BaselineLayout::parse("{testFile}/{name}/{project}").unwrap();
        let in_file = |parts: Vec<String>, file: &str| {
            call_snapshot_name(&CallName::Given { parts, test_file: file.into() }, &per_file).unwrap()
        };
        assert_eq!(in_file(vec!["home.png".into()], "pages/home.spec.ts"), "pages/home.spec.ts/home");
        assert_eq!(in_file(vec!["cards".into(), "lamp".into()], "a b.spec.ts"), "a-b.spec.ts/cards/lamp");
        let unnamed_per_file =
            CallName::Unnamed { test_file: "home.spec.ts".into(), title_path: vec!["home".into()], index: 1 };
        assert_eq!(call_snapshot_name(&unnamed_per_file, &per_file).unwrap(), "home.spec.ts/home");
    }
}
