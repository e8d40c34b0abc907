//! From a restyled element to the CSS that restyled it. A snapshot that fails with restyled
//! elements asks the live page (still open in the test) which rules it matched for them: the
//! matcher collects the raw rule records ([`PageRules`], Chromium's DevTools protocol) and this
//! module decides which declaration won for each changed property, which design token its value
//! reads, and where that is written — the stylesheet's URL and line, and through a source map the
//! original file and line. A passing snapshot asks nothing.

mod cascade;
mod source_map;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::comparison::DomComparison;
use super::tokens::TokenChange;
use crate::error::{Error, Result};
pub use source_map::MAX_SOURCE_MAP_BYTES;
use source_map::SourceMap;

/// Restyled elements traced per snapshot at most (in the order the evidence lists them).
pub const MAX_TRACED_ELEMENTS: usize = 20;
/// Source maps read per snapshot at most.
pub const MAX_SOURCE_MAPS: usize = 16;
/// Rules (with their declarations) one element's answer may hold, its ancestors' included.
const MAX_RULES: usize = 4096;

/// What the page is asked for: the rules of these elements, for these properties.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceRequest {
    /// The restyled elements, by their selectors in the DOM record.
    pub selectors: Vec<String>,
    /// The declaration names the page returns (the properties and their shorthands); custom
    /// properties are always returned.
    pub names: Vec<String>,
}

impl TraceRequest {
    /// The request for a comparison's restyled elements, `None` when nothing was restyled. An
    /// element inside a frame or a shadow root (` >>> ` in its selector) cannot be found by a
    /// selector from the document: it is left out (and counted as not traced).
    pub fn for_changes(dom: &DomComparison) -> Option<Self> {
        let mut selectors: Vec<String> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for change in &dom.style_changes.properties {
            if change.selector.contains(">>>") {
                continue;
            }
            if !selectors.contains(&change.selector) {
                if selectors.len() >= MAX_TRACED_ELEMENTS {
                    continue;
                }
                selectors.push(change.selector.clone());
            }
            for name in cascade::setters(&change.property) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        (!selectors.is_empty()).then_some(Self { selectors, names })
    }
}

/// What the page answered (JSON from the matcher): its stylesheets, each asked element's rules,
/// and the source maps of the stylesheets those rules are in.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageRules {
    pub sheets: Vec<SheetHeader>,
    /// Aligned with [`TraceRequest::elements`].
    pub elements: Vec<ElementRules>,
    #[serde(default)]
    pub source_maps: Vec<SourceMapText>,
}

/// A stylesheet of the page.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SheetHeader {
    pub id: String,
    /// Its URL; for an inline `<style>`, the document's.
    pub url: String,
    /// An inline `<style>`: its lines count from `start_line` of the document.
    pub inline: bool,
    pub start_line: u32,
    pub start_column: u32,
}

/// A stylesheet's source map, or why it could not be read.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceMapText {
    pub sheet: String,
    pub url: String,
    pub text: Option<String>,
    pub error: Option<String>,
}

/// The rules one element matched.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElementRules {
    /// The selector found an element on the page.
    pub found: bool,
    /// Its own rules in cascade order (the last strongest), its `style` attribute last.
    pub own: Vec<RuleRecord>,
    /// Its ancestors' rules, the parent's first.
    pub inherited: Vec<Vec<RuleRecord>>,
}

/// Where a rule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Origin {
    /// A stylesheet of the page.
    Regular,
    /// The element's `style` attribute.
    Attribute,
    /// The browser's default stylesheet.
    UserAgent,
    /// Added by an extension or a tool.
    Injected,
}

/// A matched rule with the declarations the request named.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleRecord {
    pub origin: Origin,
    pub selector: String,
    pub sheet: Option<String>,
    pub declarations: Vec<Declaration>,
}

/// One declaration, with its 0-based position in its stylesheet's text when the page knows it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Declaration {
    pub name: String,
    pub value: String,
    #[serde(default)]
    pub important: bool,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

/// Where a value came from (`dom.styleTrace` in results.json).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Source {
    /// A rule of a stylesheet: its selector, where the declaration is (1-based) and, through the
    /// stylesheet's source map, where it was written.
    #[serde(rename_all = "camelCase")]
    Rule {
        selector: String,
        at: Location,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        original: Option<Location>,
    },
    /// The element's `style` attribute.
    StyleAttribute,
    /// The browser's default stylesheet.
    #[serde(rename_all = "camelCase")]
    UserAgent { selector: String },
    /// No rule sets it: the property's initial value, or inherited from the root.
    Unset,
    /// The element is not on the page any more.
    NotFound,
}

/// A place in a file, lines and columns from 1 (0: not known).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub column: u32,
    /// In an inline `<style>` of the page `file`: lines count in the document.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inline: bool,
}

impl Location {
    /// `src/tokens.css:3`, `<style> in /shop, line 2`; the file alone when its line is not
    /// known (0).
    pub fn short(&self) -> String {
        match (self.inline, self.line) {
            (true, 0) => format!("<style> in {}", self.file),
            (true, line) => format!("<style> in {}, line {line}", self.file),
            (false, 0) => self.file.clone(),
            (false, line) => format!("{}:{line}", self.file),
        }
    }
}

impl Source {
    /// Where a person opens it: the original file and line when a source map gives it, else the
    /// stylesheet's; `None` when it is not written in a file.
    pub fn place(&self) -> Option<&Location> {
        match self {
            Source::Rule { at, original, .. } => Some(original.as_ref().unwrap_or(at)),
            _ => None,
        }
    }

    /// `.btn in src/components/Button.css:14`, `the element's style attribute`, `the browser's
    /// default (h1)`, `no rule (the initial or inherited value)`.
    pub fn describe(&self) -> String {
        match self {
            Source::Rule { selector, at, original } => match original {
                Some(original) => format!("{selector} in {} ({})", original.short(), at.short()),
                None => format!("{selector} in {}", at.short()),
            },
            Source::StyleAttribute => "the element's style attribute".into(),
            Source::UserAgent { selector } => format!("the browser's default ({selector})"),
            Source::Unset => "no rule (the initial or inherited value)".into(),
            Source::NotFound => "not found on the page".into(),
        }
    }
}

/// How the restyled elements of a failing snapshot were styled (`dom.styleTrace`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StyleTrace {
    /// Restyled elements traced on the page.
    pub traced: usize,
    /// Restyled elements not traced: beyond [`MAX_TRACED_ELEMENTS`], or inside a frame or a
    /// shadow root.
    pub untraced: usize,
    /// Each traced element's changed properties and where their value comes from.
    pub changes: Vec<TracedChange>,
    /// The design tokens the changed values read, most used first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<TracedToken>,
    /// Each rule the changed values come from with how many traced elements it styles, most
    /// first: a change that reached further than one file shows here.
    pub rules: Vec<RuleUse>,
    /// Why a stylesheet's source map could not be used.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_map_errors: Vec<String>,
    /// Why the page could not be asked at all (it navigated away, the protocol refused, its
    /// answer was beyond a limit): then nothing is traced and the verdict stands as it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One changed property of one traced element.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TracedChange {
    pub selector: String,
    pub property: String,
    pub from: String,
    pub to: String,
    /// The declaration that gives the element its value now.
    pub source: Source,
    /// The declaration as written (`background: var(--brand)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration: Option<String>,
    /// The design token its value reads, when one does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// A design token read by restyled values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TracedToken {
    pub name: String,
    /// Its value in the baseline and now, where a token change says (the root's, or the value
    /// declared on the element or its ancestor).
    pub from: Option<String>,
    pub to: Option<String>,
    /// Where its value (for the first element that reads it) is declared.
    pub declared: Source,
    /// Traced elements whose changed values read it.
    pub used_by: usize,
}

impl TracedChange {
    /// Where the value comes from, in words ([`Source::describe`]); a colour no rule sets that
    /// follows `color` by its initial value (`currentcolor`: border, outline, text decoration,
    /// column rule and caret colours) says so, rather than "no rule".
    pub fn source_text(&self) -> String {
        const FOLLOWS_COLOR: [&str; 4] = ["outline-color", "text-decoration-color", "column-rule-color", "caret-color"];
        let follows = self.property.starts_with("border-") && self.property.ends_with("-color")
            || FOLLOWS_COLOR.contains(&self.property.as_str());
        match (&self.source, &self.declaration) {
            (Source::Unset, _) if follows => "follows color (no rule sets it)".to_string(),
            (source, Some(declaration)) => format!("{} ({declaration})", source.describe()),
            (source, None) => source.describe(),
        }
    }
}

impl TracedToken {
    /// Whether the token's value changed between the baseline and the capture.
    pub fn changed(&self) -> bool {
        self.from != self.to
    }

    /// `token --brand #2563eb → #dc2626 (src/tokens.css:3), used by 13 restyled elements`.
    pub fn describe(&self) -> String {
        let values = match (&self.from, &self.to) {
            (Some(from), Some(to)) if from != to => format!(" {from} → {to}"),
            (_, Some(to)) => format!(" {to}"),
            _ => String::new(),
        };
        let place = self.declared.place().map(|p| format!(" ({})", p.short())).unwrap_or_default();
        let who = crate::words::plural(self.used_by, "restyled element");
        format!("token {}{values}{place}, used by {who}", self.name)
    }
}

/// A rule and how many traced elements take a changed value from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleUse {
    pub source: Source,
    pub elements: usize,
}

impl StyleTrace {
    /// The trace of a comparison whose page could not be asked, and why.
    pub fn failed(dom: &DomComparison, reason: String) -> Self {
        Self {
            traced: 0,
            untraced: dom.style_changes.count,
            changes: Vec::new(),
            tokens: Vec::new(),
            rules: Vec::new(),
            source_map_errors: Vec::new(),
            error: Some(reason),
        }
    }

    /// The files the changed values come from (originals where mapped), in order of
    /// [`StyleTrace::rules`].
    pub fn files(&self) -> Vec<&str> {
        let mut files: Vec<&str> = Vec::new();
        for rule in &self.rules {
            if let Some(place) = rule.source.place()
                && !files.contains(&place.file.as_str())
            {
                files.push(&place.file);
            }
        }
        files
    }

    /// The sentence a verdict carries: the changed token first (one token explains the whole
    /// snapshot), else the rule, with the rules and files a wider change reached.
    pub fn verdict_note(&self) -> Option<String> {
        let lead = match self.tokens.iter().find(|t| t.changed()) {
            Some(token) => token.describe(),
            None => {
                let rule = self.rules.first()?;
                format!("set by {}", rule.source.describe())
            }
        };
        let reach = self.reach().map(|reach| format!("; through {reach}")).unwrap_or_default();
        Some(format!("{lead}{reach}"))
    }

    /// `3 rules in 2 files (src/button.css, src/card.css)`, when the changed values come through
    /// more than one rule in more than one file: a change that reached further than one edit.
    pub fn reach(&self) -> Option<String> {
        let files = self.files();
        (self.rules.len() > 1 && files.len() > 1).then(|| {
            format!(
                "{} in {} files ({})",
                crate::words::plural(self.rules.len(), "rule"),
                files.len(),
                files.join(", ")
            )
        })
    }

    /// The lines `sightline explain` and a failing test print: each changed token, then each
    /// traced change with where it comes from (`body > a.btn background-color: rgb(…) → rgb(…) —
    /// .btn in /styles.css:8 (background: var(--brand))`), at most `max`.
    pub fn lines(&self, max: usize) -> Vec<String> {
        let mut lines: Vec<String> = self.tokens.iter().filter(|t| t.changed()).map(TracedToken::describe).collect();
        // A value no rule sets follows another (`border-color` is `currentcolor`): counted, after
        // the changes a rule made.
        let (set, unset): (Vec<&TracedChange>, Vec<&TracedChange>) =
            self.changes.iter().partition(|c| c.source != Source::Unset);
        for change in set.iter().take(max) {
            let declaration = change.declaration.as_ref().map(|d| format!(" ({d})")).unwrap_or_default();
            lines.push(format!(
                "{} {}: {} → {} — {}{declaration}",
                change.selector,
                change.property,
                change.from,
                change.to,
                change.source.describe()
            ));
        }
        if !unset.is_empty() {
            lines.push(match unset.len() {
                1 => "1 changed value follows another (no rule sets it, as border colours follow color)".to_string(),
                n => format!("{n} changed values follow others (no rule sets them, as border colours follow color)"),
            });
        }
        lines.extend(self.reach().map(|reach| format!("the change comes through {reach}")));
        lines.extend(self.source_map_errors.iter().map(|e| format!("source map not used: {e}")));
        lines
    }
}

/// Traces `dom`'s restyled elements through what the page answered for `request`. `page_url` is
/// the captured page's URL: stylesheets of its origin are named by their path.
pub fn trace_styles(
    dom: &DomComparison,
    request: &TraceRequest,
    rules: &PageRules,
    page_url: &str,
) -> Result<StyleTrace> {
    if rules.elements.len() != request.selectors.len() {
        return Err(Error::InvalidInput(format!(
            "style trace: {} elements answered for {} asked",
            rules.elements.len(),
            request.selectors.len()
        )));
    }
    for (element, selector) in rules.elements.iter().zip(&request.selectors) {
        let count = element.own.len() + element.inherited.iter().map(Vec::len).sum::<usize>();
        if count > MAX_RULES {
            return Err(Error::InvalidInput(format!(
                "style trace: {count} rules for {selector}, above the limit of {MAX_RULES}"
            )));
        }
    }
    if rules.source_maps.len() > MAX_SOURCE_MAPS {
        return Err(Error::InvalidInput(format!(
            "style trace: {} source maps, above the limit of {MAX_SOURCE_MAPS}",
            rules.source_maps.len()
        )));
    }
    let sheets: HashMap<&str, &SheetHeader> = rules.sheets.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut source_map_errors = Vec::new();
    let mut maps: HashMap<&str, SourceMap> = HashMap::new();
    for map in &rules.source_maps {
        let parsed = match (&map.text, &map.error) {
            (Some(text), _) => SourceMap::parse(text),
            (None, error) => Err(error.clone().unwrap_or_else(|| "not read".into())),
        };
        match parsed {
            Ok(parsed) => {
                maps.insert(map.sheet.as_str(), parsed);
            }
            Err(why) => source_map_errors.push(format!("{}: {why}", map.url)),
        }
    }
    let locate = |rule: &RuleRecord, declaration: &Declaration| -> Source {
        match rule.origin {
            Origin::Attribute => return Source::StyleAttribute,
            Origin::UserAgent => return Source::UserAgent { selector: rule.selector.clone() },
            Origin::Regular | Origin::Injected => {}
        }
        let sheet = rule.sheet.as_deref().and_then(|id| sheets.get(id));
        let (Some(sheet), Some(line), Some(column)) = (sheet, declaration.line, declaration.column) else {
            // A sheet made by script has no file; a fetched one whose text the browser did not
            // keep (a response a test's route fulfilled) has no lines: its file only (line 0).
            let file = match sheet {
                Some(sheet) if !sheet.url.is_empty() => file_name(&sheet.url, page_url),
                _ => "(a stylesheet made by script)".into(),
            };
            return Source::Rule {
                selector: rule.selector.clone(),
                at: Location { file, line: 0, column: 0, inline: false },
                original: None,
            };
        };
        // An inline sheet's lines count in the document.
        let (doc_line, doc_column) = if sheet.inline {
            (sheet.start_line + line, if line == 0 { sheet.start_column + column } else { column })
        } else {
            (line, column)
        };
        let original = maps
            .get(sheet.id.as_str())
            .and_then(|map| map.original(line, column))
            .map(|(file, line, column)| Location { file, line: line + 1, column: column + 1, inline: false });
        Source::Rule {
            selector: rule.selector.clone(),
            at: Location {
                file: file_name(&sheet.url, page_url),
                line: doc_line + 1,
                column: doc_column + 1,
                inline: sheet.inline,
            },
            original,
        }
    };

    let mut changes = Vec::new();
    // (token, where declared, elements reading it, the first of them)
    let mut token_uses: Vec<(String, Source, usize, String)> = Vec::new();
    let mut rule_uses: Vec<RuleUse> = Vec::new();
    let mut traced = 0;
    for (selector, element) in request.selectors.iter().zip(&rules.elements) {
        if element.found {
            traced += 1;
        }
        let mut element_tokens: Vec<String> = Vec::new();
        let mut element_rules: Vec<Source> = Vec::new();
        for change in dom.style_changes.properties.iter().filter(|c| &c.selector == selector) {
            let (source, declaration, token) = if !element.found {
                (Source::NotFound, None, None)
            } else {
                match cascade::winning(element, &change.property) {
                    None => (Source::Unset, None, None),
                    Some((rule, declaration, _)) => {
                        let token = cascade::tokens_used(&declaration.value).into_iter().next();
                        if let Some(name) = &token
                            && !element_tokens.contains(name)
                        {
                            element_tokens.push(name.clone());
                            let declared = cascade::winning(element, name)
                                .map_or(Source::Unset, |(rule, declaration, _)| locate(rule, declaration));
                            match token_uses.iter_mut().find(|(n, _, _, _)| n == name) {
                                Some(used) => used.2 += 1,
                                None => token_uses.push((name.clone(), declared, 1, selector.clone())),
                            }
                        }
                        let written = format!(
                            "{}: {}{}",
                            declaration.name,
                            declaration.value,
                            if declaration.important { " !important" } else { "" }
                        );
                        (locate(rule, declaration), Some(written), token)
                    }
                }
            };
            if !element_rules.contains(&source) {
                element_rules.push(source.clone());
                match rule_uses.iter_mut().find(|r| r.source == source) {
                    Some(used) => used.elements += 1,
                    None => rule_uses.push(RuleUse { source: source.clone(), elements: 1 }),
                }
            }
            changes.push(TracedChange {
                selector: change.selector.clone(),
                property: change.property.clone(),
                from: change.from.clone(),
                to: change.to.clone(),
                source,
                declaration,
                token,
            });
        }
    }
    // What no rule set (an initial value following another, `currentcolor`) reached no file.
    rule_uses.retain(|r| !matches!(r.source, Source::NotFound | Source::Unset));
    rule_uses.sort_by_key(|r| std::cmp::Reverse(r.elements)); // stable: first seen first
    let mut tokens: Vec<TracedToken> = token_uses
        .into_iter()
        .map(|(name, declared, used_by, reader)| {
            let (from, to) = match token_change_read(&dom.token_changes, &name, &reader) {
                Some(change) => (change.from.clone(), change.to.clone()),
                None => (None, None),
            };
            TracedToken { name, from, to, declared, used_by }
        })
        .collect();
    // Changed tokens first, then the most used.
    tokens.sort_by_key(|t| (!t.changed(), std::cmp::Reverse(t.used_by)));
    Ok(StyleTrace {
        traced,
        untraced: dom.style_changes.count.saturating_sub(traced),
        changes,
        tokens,
        rules: rule_uses,
        source_map_errors,
        error: None,
    })
}

/// The change of token `name` the element of `reader` reads: one declared on it or an ancestor,
/// else the root's, else the one change of that name declared on elements (its declaring
/// ancestor's selector does not prefix `reader`'s when `reader`'s starts at an id).
fn token_change_read<'a>(changes: &'a [TokenChange], name: &str, reader: &str) -> Option<&'a TokenChange> {
    let named = || changes.iter().filter(move |c| c.name == name);
    let on_elements = || named().filter(|c| c.element_count > 0);
    on_elements()
        .filter_map(|c| c.declared_on(reader).map(|on| (on.len(), c)))
        .max_by_key(|(nearest, _)| *nearest)
        .map(|(_, change)| change)
        .or_else(|| named().find(|c| c.element_count == 0))
        .or_else(|| if on_elements().count() == 1 { on_elements().next() } else { None })
}

/// A stylesheet's URL as a person names the file: its path when it is on the page's origin
/// (`/assets/app.css`), else the whole URL.
fn file_name(url: &str, page_url: &str) -> String {
    let (Ok(sheet), Ok(page)) = (url::Url::parse(url), url::Url::parse(page_url)) else {
        // A `<style>` a script added (or `page.addStyleTag`) has no URL of its own.
        return if url.is_empty() { "<style> added by script".into() } else { url.to_string() };
    };
    if sheet.origin() == page.origin() && sheet.origin().is_tuple() {
        sheet.path().to_string()
    } else {
        url.to_string()
    }
}

#[cfg(test)]
mod tests;
