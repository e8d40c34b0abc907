//! Where a snapshot's approved baseline lives: the `baselinePath` template of
//! `.sightline/config.json`, relative to `.sightline/baselines/`, `.png` appended.
//!
//! The default, `{name}/{project}`, is the layout 01-product.md describes. Teams that keep one
//! baseline per operating system write `{name}/{project}-{platform}`; teams that keep a spec
//! file's snapshots together, as Playwright does, write `{testFile}/{name}/{project}`, which also
//! makes a given name belong to its spec file (the same `toMatchVisual('home')` in two files is
//! two snapshots, as `toHaveScreenshot('home.png')` is).
//!
//! A layout must read back: every baseline file under `.sightline/baselines` names its snapshot
//! and project again ([`BaselineLayout::parse_path`]), so listing baselines and telling missing
//! ones never depends on a second record. That is why `{name}` is a whole folder (or several,
//! for a nested name) and `{project}` appears once: a path splits one way only.
//!
//! The names it places are checked here too ([`check_snapshot_name`]), and a project name
//! becomes a file stem here ([`project_file_stem`]).

use std::path::PathBuf;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};

/// Longest snapshot name, in bytes.
pub const MAX_NAME_BYTES: usize = 200;

/// What a file in a snapshot's folder may end with: a nested snapshot's folder must not look
/// like one of them.
const SNAPSHOT_FILE_SUFFIXES: [&str; 4] = [".png", ".slcap", ".json", ".owner"];

/// Checks that `name` is a safe relative path: segments of letters, digits, `-`, `_`, `.`,
/// separated by `/` (a nested name, as Playwright's name arrays make); no `..`, no empty or
/// absolute segments; at most 200 bytes. A folder below the first may not end like a
/// snapshot's own files (`.png`, `.slcap`, `.json`, `.owner`), which sit beside it.
pub fn check_snapshot_name(name: &str) -> Result<()> {
    let fix =
        "use letters, digits, '-', '_' and '.', with '/' between folders, e.g. \"checkout-page\" or \"cards/lamp\"";
    let bad = |why: &str| Err(Error::InvalidInput(format!("snapshot name {name:?} {why}; {fix}")));
    if name.is_empty() {
        return bad("is empty");
    }
    if name.len() > MAX_NAME_BYTES {
        return bad(&format!("is {} bytes, above the limit of {MAX_NAME_BYTES}", name.len()));
    }
    if name.contains("..") {
        return bad("contains '..'");
    }
    if name.starts_with('/') {
        return bad("starts with '/'");
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))) {
        return bad(&format!("contains {c:?}"));
    }
    for (i, segment) in name.split('/').enumerate() {
        if segment.is_empty() {
            return bad("has an empty folder name");
        }
        if segment == "." {
            return bad("has a folder named '.'");
        }
        if i > 0 && SNAPSHOT_FILE_SUFFIXES.iter().any(|suffix| segment.ends_with(suffix)) {
            return bad(&format!("has a folder {segment:?} that would sit among its parent's files"));
        }
    }
    Ok(())
}

/// The file stem for a Playwright project name ("Mobile Safari" → "Mobile_Safari"; "" →
/// "default"): project names are free text, file names are not.
pub fn project_file_stem(project: &str) -> String {
    if project.is_empty() {
        return "default".into();
    }
    let stem: String =
        project.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_') { c } else { '_' }).collect();
    stem.chars().take(MAX_NAME_BYTES).collect()
}

/// The layout 01-product.md describes: `.sightline/baselines/<name>/<project>.png`.
pub const DEFAULT_BASELINE_PATH: &str = "{name}/{project}";

/// Longest template, in bytes.
const MAX_TEMPLATE_BYTES: usize = 200;

/// What the error messages offer as a fix.
const EXAMPLE: &str = "e.g. \"{name}/{project}-{platform}\" or \"{testFile}/{name}/{project}\"";

/// The value of `{platform}`: Node's `process.platform` (`linux`, `darwin`, `win32`), as
/// Playwright's snapshot paths spell it, so a migrated layout keeps its file names.
pub fn current_platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    }
}

/// A checked `baselinePath` template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineLayout {
    template: String,
    /// The path's folders and file stem; one of them is the name (one or more real folders).
    segments: Vec<Segment>,
    /// `{testFile}/{name}`: given names are scoped by their spec file.
    per_file_names: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Name,
    Text(Vec<Piece>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal(String),
    Project,
    Platform,
}

impl Default for BaselineLayout {
    fn default() -> Self {
        Self::parse(DEFAULT_BASELINE_PATH).expect("the default layout is valid")
    }
}

impl BaselineLayout {
    /// Checks a template; the error says what is wrong with it (the caller names the key).
    pub fn parse(template: &str) -> Result<Self> {
        let bad = |why: String| Err(Error::InvalidInput(format!("{why}; {EXAMPLE}")));
        if template.len() > MAX_TEMPLATE_BYTES {
            return bad(format!("is {} bytes, above the limit of {MAX_TEMPLATE_BYTES}", template.len()));
        }
        if template.ends_with(".png") {
            return bad("ends with \".png\", which Sightline adds".into());
        }
        // `{testFile}/{name}` is one thing: the spec file's folders, then the name.
        let per_file_names = template.contains("{testFile}");
        let merged = template.replacen("{testFile}/{name}", "{name}", 1);
        if merged.contains("{testFile}") {
            return bad(
                "uses {testFile} other than as \"{testFile}/{name}\" (a spec file's snapshots sit together)".into()
            );
        }
        let mut segments = Vec::new();
        let (mut names, mut projects) = (0, 0);
        for segment in merged.split('/') {
            if segment.is_empty() || segment == "." || segment == ".." {
                return bad(format!("has an empty, \".\" or \"..\" folder in {template:?}"));
            }
            if segment == "{name}" {
                names += 1;
                segments.push(Segment::Name);
                continue;
            }
            let mut pieces = Vec::new();
            let mut rest = segment;
            while !rest.is_empty() {
                if let Some(after) = rest.strip_prefix('{') {
                    let Some(end) = after.find('}') else {
                        return bad(format!("has an unclosed '{{' in {template:?}"));
                    };
                    match &after[..end] {
                        "project" => {
                            projects += 1;
                            pieces.push(Piece::Project);
                        }
                        "platform" => pieces.push(Piece::Platform),
                        "name" => return bad("has {name} inside a folder name; {name} must be a whole folder".into()),
                        other => {
                            return bad(format!(
                                "has an unknown token {{{other}}}; the tokens are {{name}}, {{project}}, {{platform}} and {{testFile}}"
                            ));
                        }
                    }
                    rest = &after[end + 1..];
                } else {
                    let end = rest.find('{').unwrap_or(rest.len());
                    let literal = &rest[..end];
                    if let Some(c) =
                        literal.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
                    {
                        return bad(format!(
                            "contains {c:?}; use letters, digits, '-', '_', '.' and '/' between the tokens"
                        ));
                    }
                    pieces.push(Piece::Literal(literal.to_string()));
                    rest = &rest[end..];
                }
            }
            segments.push(Segment::Text(pieces));
        }
        if names != 1 {
            return bad(format!("must hold {{name}} once as a whole folder, and holds it {names} times"));
        }
        if projects != 1 {
            return bad(format!("must hold {{project}} once, and holds it {projects} times"));
        }
        Ok(Self { template: template.to_string(), segments, per_file_names })
    }

    pub fn template(&self) -> &str {
        &self.template
    }

    /// Whether a given name belongs to its spec file (`{testFile}/{name}`).
    pub fn per_file_names(&self) -> bool {
        self.per_file_names
    }

    /// The baseline's path relative to `.sightline/baselines`, `.png` included. `name` is checked.
    pub fn relative_path(&self, name: &str, project: &str) -> Result<PathBuf> {
        check_snapshot_name(name)?;
        let stem = project_file_stem(project);
        let mut path = PathBuf::new();
        let last = self.segments.len() - 1;
        for (i, segment) in self.segments.iter().enumerate() {
            let mut text = match segment {
                Segment::Name => name.to_string(),
                Segment::Text(pieces) => pieces
                    .iter()
                    .map(|piece| match piece {
                        Piece::Literal(text) => text.as_str(),
                        Piece::Project => stem.as_str(),
                        Piece::Platform => current_platform(),
                    })
                    .collect(),
            };
            if i == last {
                text.push_str(".png");
            }
            path.push(text);
        }
        Ok(path)
    }

    /// Reads a baseline's path back (relative to `.sightline/baselines`, `/` separated, without
    /// `.png`): its snapshot name and project file stem, or `None` for a file this layout did not
    /// write here (another platform's, or a stray file).
    pub fn parse_path(&self, relative: &str) -> Option<(String, String)> {
        let parts: Vec<&str> = relative.split('/').collect();
        let name_parts = (parts.len() + 1).checked_sub(self.segments.len()).filter(|n| *n > 0)?;
        let mut stem = None;
        let mut name = None;
        let mut at = 0;
        for segment in &self.segments {
            match segment {
                Segment::Name => {
                    name = Some(parts[at..at + name_parts].join("/"));
                    at += name_parts;
                }
                Segment::Text(pieces) => {
                    if let Some(found) = match_text(pieces, parts[at])? {
                        stem = Some(found);
                    }
                    at += 1;
                }
            }
        }
        let (name, stem) = (name?, stem?);
        check_snapshot_name(&name).ok()?;
        Some((name, stem))
    }
}

/// Matches one folder or file stem against its pieces: `Some(Some(stem))` when it holds the
/// project, `Some(None)` when it matches without one, `None` when it does not match.
fn match_text(pieces: &[Piece], text: &str) -> Option<Option<String>> {
    fn fixed(piece: &Piece) -> Option<&str> {
        match piece {
            Piece::Literal(literal) => Some(literal.as_str()),
            Piece::Platform => Some(current_platform()),
            Piece::Project => None,
        }
    }
    let hole = pieces.iter().position(|p| *p == Piece::Project);
    let before: String = pieces[..hole.unwrap_or(pieces.len())].iter().filter_map(fixed).collect();
    let rest = text.strip_prefix(before.as_str())?;
    let Some(hole) = hole else { return rest.is_empty().then_some(None) };
    let after: String = pieces[hole + 1..].iter().filter_map(fixed).collect();
    let stem = rest.strip_suffix(after.as_str())?;
    let is_stem = !stem.is_empty() && stem.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
    is_stem.then(|| Some(stem.to_string()))
}

impl Serialize for BaselineLayout {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.template)
    }
}

impl<'de> Deserialize<'de> for BaselineLayout {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let template = String::deserialize(d)?;
        BaselineLayout::parse(&template).map_err(|e| {
            serde::de::Error::custom(format!(
                "must be a path template of {{name}}, {{project}}, {{platform}} and {{testFile}}, got {template:?}, which {e}"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(template: &str) -> BaselineLayout {
        BaselineLayout::parse(template).unwrap()
    }

    fn path(layout: &BaselineLayout, name: &str, project: &str) -> String {
        layout.relative_path(name, project).unwrap().to_string_lossy().replace('\\', "/")
    }

    #[test]
    fn the_default_is_the_documented_layout() {
        let default = BaselineLayout::default();
        assert_eq!(path(&default, "home", "chromium"), "home/chromium.png");
        assert_eq!(path(&default, "cards/lamp", "Mobile Safari"), "cards/lamp/Mobile_Safari.png");
        assert_eq!(path(&default, "home", ""), "home/default.png");
        assert!(!default.per_file_names());
    }

    #[test]
    fn every_layout_reads_its_own_paths_back() {
        let platform = current_platform();
        for template in [
            "{name}/{project}",
            "{name}/{project}-{platform}",
            "{platform}/{project}/{name}",
            "{testFile}/{name}/{project}",
            "{name}/{project}/shot",
            "v2/{name}/{platform}{project}",
        ] {
            let layout = layout(template);
            for (name, project) in [("home", "chromium"), ("cards/lamp", "mobile-chrome"), ("v1.2", "firefox_2")] {
                let written = path(&layout, name, project);
                assert!(written.contains(platform) || !template.contains("{platform}"), "{template}: {written}");
                let back = layout.parse_path(written.strip_suffix(".png").unwrap());
                assert_eq!(back, Some((name.to_string(), project.to_string())), "{template}: {written}");
            }
        }
    }

    #[test]
    fn another_platforms_baselines_are_not_this_layouts() {
        let layout = layout("{name}/{project}-{platform}");
        let other = if current_platform() == "darwin" { "linux" } else { "darwin" };
        assert_eq!(layout.parse_path(&format!("home/chromium-{other}")), None);
        assert_eq!(layout.parse_path("home"), None);
        // The default layout's files are not this layout's either.
        assert_eq!(layout.parse_path("home/chromium"), None);
    }

    #[test]
    fn a_template_that_cannot_read_back_is_refused_saying_why() {
        for (template, why) in [
            ("{project}", "{name} once"),
            ("{name}/{name}/{project}", "holds it 2 times"),
            ("{name}", "{project} once"),
            ("{name}-{project}", "{name} must be a whole folder"),
            ("{name}/{project}/{project}", "holds it 2 times"),
            ("{name}/{projectName}", "unknown token {projectName}"),
            ("{name}/{project}.png", "which Sightline adds"),
            ("/{name}/{project}", "empty"),
            ("{name}/../{project}", "\"..\""),
            ("{name}/{project} x", "contains ' '"),
            ("{testFile}-{name}/{project}", "{testFile}/{name}"),
            ("{name}/{project", "unclosed"),
        ] {
            let err = BaselineLayout::parse(template).unwrap_err().to_string();
            assert!(err.contains(why), "{template}: {err}");
            assert!(err.contains("{name}/{project}-{platform}"), "the fix is offered: {err}");
        }
    }

    #[test]
    fn a_test_file_layout_scopes_given_names() {
        assert!(layout("{testFile}/{name}/{project}").per_file_names());
        assert!(layout("{platform}/{testFile}/{name}/{project}").per_file_names());
    }
}
