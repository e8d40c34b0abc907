//! The HTML report, `<reportDir>/index.html` (01-product.md, "Files"): one self-contained page
//! rendered from the typed [`Results`], so it shows exactly the verdicts, regions and style
//! changes the CLI and the MCP server read, and recomputes nothing.
//!
//! Self-contained means it opens from `file://` with no network: the CSS and the small script
//! are compiled in (`report.css`, `report.js`), fonts are the system's, and images are relative
//! links to the PNGs the results module writes under `<reportDir>/images/`. Every string taken
//! from the results goes through [`escape_html`]; nothing from them reaches the script or a
//! `style` attribute except numbers and colours that pass [`css_color`].
//!
//! This module draws the page frame (header, totals, filters, sections) and owns the shared
//! formatting; `card` draws one snapshot, `dom_layer` its structure, style and geometry tables,
//! `groups` the snapshots that changed the same way.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::compare::Size;
use crate::error::Result;
use crate::results::{Results, ShardPosition, Summary, write_report_file};
use crate::review::{ReviewDecision, baselines_to_commit};
use crate::snapshot::SnapshotEvidence;
use crate::verdict::Status;

/// `write!` into a `String`, which cannot fail. Defined before the submodules so they see it.
macro_rules! w {
    ($out:expr, $($arg:tt)*) => {{
        let _ = write!($out, $($arg)*);
    }};
}

mod card;
mod dom_layer;
mod groups;
#[cfg(test)]
mod tests;

const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("report.js");
const REVIEW_STYLE: &str = include_str!("review.css");
const REVIEW_SCRIPT: &str = include_str!("review.js");

/// Changed and new cards after this many load their images lazily (when scrolled near), so a
/// run with hundreds of changes opens quickly.
const EAGER_CARDS: usize = 10;

/// Renders the report page for one run. `report_dir` is the report folder as the results' paths
/// spell it (config `reportDir`, relative to the project root, e.g. `visual-report`): image paths
/// under it become relative to `index.html`, paths elsewhere in the project get the matching
/// `../`.
pub fn render_report(results: &Results, report_dir: &str) -> String {
    render_page(results, report_dir, None)
}

/// Writes the report page of `results` to `<root>/<report_dir>/index.html` (atomically, never
/// through a link out of where the report is kept: [`write_report_file`]), beside the
/// results.json that `results::write_results` wrote there; returns the page's path. Writing
/// results renders nothing: each caller that ends a run (the reporter's addon call, `sightline
/// compare` and `merge`) renders the page it wrote.
pub fn write_report(root: &Path, report_dir: &Path, results: &Results) -> Result<PathBuf> {
    let path = root.join(report_dir).join("index.html");
    let html = render_report(results, &report_dir.to_string_lossy());
    write_report_file(root, report_dir, &path, html.as_bytes())?;
    Ok(path)
}

/// What the review page (`sightline review`) adds to the report: the version of results.json it
/// is rendered from, which every request the page makes sends back (a request from an older page
/// is refused), and the decisions already made on this run's captures.
#[derive(Debug, Clone, Copy)]
pub struct ReviewPage<'a> {
    pub version: &'a str,
    pub decisions: &'a [ReviewDecision],
}

/// Renders the review page for one run: the report, served at the project root (image paths are
/// the results' own, relative to the root), with the review bar, approve and reject on each
/// card needing a decision, and an aligned diff for each page shift. The review script builds
/// its controls from the state embedded here; nothing of the report itself is left out.
pub fn render_review_page(results: &Results, review: &ReviewPage<'_>) -> String {
    render_page(results, "", Some(review))
}

/// The report page, with the review additions when `review` is set.
fn render_page(results: &Results, report_dir: &str, review: Option<&ReviewPage<'_>>) -> String {
    let (snapshots, missing) = (&results.snapshots, &results.missing_baselines);
    let dir = ReportDir::new(report_dir);
    // The headline, the totals and the filter buttons all count what the summary says.
    let counts = &results.summary;

    let mut out = String::with_capacity(32 * 1024 + snapshots.len() * 8 * 1024);
    let to_review = counts.to_review();
    w!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Sightline {} — {}</title>\n<style>\n{STYLE}</style>\n<script>\n{SCRIPT}</script>\n",
        if review.is_some() { "review" } else { "report" },
        if to_review == 0 { format!("{} passed", counts.passed) } else { format!("{to_review} to review") }
    );
    if let Some(review) = review {
        review_head(&mut out, results, review);
    }
    out.push_str("</head>\n<body>\n");
    summary(&mut out, results, if review.is_some() { "Sightline review" } else { "Sightline visual report" });
    // On the review page the filters, the progress, the keys and what to commit stay in view
    // together, and a card moved to by key stops below them.
    if review.is_some() {
        out.push_str("<div class=\"reviewtop\" id=\"reviewtop\">");
        toolbar(&mut out, counts);
        review_bar(&mut out);
        out.push_str("</div>\n");
    } else {
        toolbar(&mut out, counts);
    }
    groups::groups(&mut out, &results.groups, snapshots);

    // Changed and new first (they need a decision), then passed (collapsed), then missing.
    let mut shown = 0;
    for (key, title) in [
        ("error", "Cannot compare"),
        ("changed", "Changed"),
        ("new", "New"),
        ("written", "Baselines written"),
        ("passed", "Passed"),
    ] {
        let members: Vec<(usize, &SnapshotEvidence)> =
            snapshots.iter().enumerate().filter(|(_, s)| section(s.status) == key).collect();
        if members.is_empty() {
            continue;
        }
        w!(
            out,
            "<section class=\"status\" data-section=\"{key}\">\n<h2>{title} <span class=\"n\">{}</span></h2>\n",
            members.len()
        );
        for (index, snap) in members {
            // The aligned diff is drawn by the review server on request (`_/aligned/…`).
            let shifted = snap.layers.pixel.as_ref().is_some_and(|p| p.shift.is_some());
            let aligned = review.filter(|_| shifted).map(|r| format!("_/aligned/{}/{index}.png", r.version));
            card::snapshot_card(&mut out, index, snap, &dir, shown >= EAGER_CARDS, aligned.as_deref());
            shown += 1;
        }
        out.push_str("</section>\n");
    }
    if !missing.is_empty() {
        w!(
            out,
            "<section class=\"status\" data-section=\"missing\">\n<h2>Missing baselines <span class=\"n\">{}</span></h2>\n",
            missing.len()
        );
        for (index, entry) in missing.iter().enumerate() {
            card::missing_card(&mut out, index, entry, &dir);
        }
        out.push_str("</section>\n");
    }
    if snapshots.is_empty() && missing.is_empty() {
        out.push_str("<p class=\"empty\">No snapshots in this run.</p>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// The section a snapshot is listed in. A `missing` entry among the snapshots needs a look, so
/// it joins the changed ones.
fn section(status: Status) -> &'static str {
    match status {
        Status::Passed => "passed",
        Status::New => "new",
        Status::Changed | Status::Missing => "changed",
        Status::Written => "written",
        Status::Error => "error",
    }
}

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The colour at the start of a computed-style value (`rgb(…)`, `rgba(…)`, `#hex`, other CSS
/// colour functions, `transparent`), for a swatch. Strict on purpose: the result is put in a
/// `style` attribute, so anything that could be more than a colour (`url(`, `;`, quotes) is
/// refused. `box-shadow: rgba(0, 0, 0, 0.1) 0px 1px` yields its colour.
pub fn css_color(value: &str) -> Option<&str> {
    let v = value.trim_start();
    let lower = v.to_ascii_lowercase();
    if lower.starts_with("transparent") {
        return Some(&v[.."transparent".len()]);
    }
    if let Some(hex) = v.strip_prefix('#') {
        let n = hex.bytes().take_while(u8::is_ascii_hexdigit).count();
        let ends = hex.as_bytes().get(n).is_none_or(|b| b.is_ascii_whitespace());
        return (matches!(n, 3 | 4 | 6 | 8) && ends).then(|| &v[..=n]);
    }
    const FUNCTIONS: [&str; 11] =
        ["rgb(", "rgba(", "hsl(", "hsla(", "hwb(", "lab(", "lch(", "oklab(", "oklch(", "color(", "color-mix("];
    if !FUNCTIONS.iter().any(|f| lower.starts_with(f)) {
        return None;
    }
    let close = v.find(')')?;
    let open = v.find('(')?;
    let body = &v[open + 1..close];
    let allowed = |c: char| c.is_ascii_alphanumeric() || " ,.%/+-".contains(c);
    (body.chars().all(allowed) && open < close).then(|| &v[..=close])
}

/// Where the report lives relative to the project root, to turn the results' paths (relative
/// to the root) into `src` attributes relative to `index.html`.
struct ReportDir {
    /// `visual-report/`: paths starting with it are inside the report folder.
    prefix: String,
    /// `../` per component of the folder, to reach the rest of the project; `None` when the
    /// folder is absolute or climbs with `..`, where that cannot be known.
    up: Option<String>,
}

impl ReportDir {
    fn new(report_dir: &str) -> Self {
        let normal = normalize_path(report_dir);
        let parts: Vec<&str> = normal.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
        let absolute = normal.starts_with('/');
        let up = (!absolute && !parts.contains(&"..")).then(|| "../".repeat(parts.len()));
        let mut prefix = if absolute { format!("/{}", parts.join("/")) } else { parts.join("/") };
        if !prefix.is_empty() && !prefix.ends_with('/') {
            prefix.push('/');
        }
        ReportDir { prefix, up }
    }

    /// The `src` for an image path from the results, or `None` when it is no image (a `.slcap`
    /// capture) or cannot be reached from the report.
    fn src(&self, path: &str) -> Option<String> {
        let path = normalize_path(path);
        let lower = path.to_ascii_lowercase();
        if ![".png", ".jpg", ".jpeg", ".webp", ".gif"].iter().any(|ext| lower.ends_with(ext)) {
            return None;
        }
        let relative = if let Some(rest) = path.strip_prefix(&self.prefix).filter(|_| !self.prefix.is_empty()) {
            rest.to_string()
        } else if path.starts_with('/') {
            // An absolute path resolves against file:// as itself.
            path.clone()
        } else {
            format!("{}{path}", self.up.as_deref()?)
        };
        Some(encode_url_path(&relative))
    }
}

/// Forward slashes, no leading `./`.
fn normalize_path(path: &str) -> String {
    let mut p = path.trim().replace('\\', "/");
    while let Some(rest) = p.strip_prefix("./") {
        p = rest.to_string();
    }
    p
}

/// Everything but unreserved characters and `/` is escaped, so `#`, `?` or spaces in a path stay
/// part of the file name.
const URL_PATH_ESCAPED: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~').remove(b'/');

fn encode_url_path(path: &str) -> String {
    percent_encoding::utf8_percent_encode(path, URL_PATH_ESCAPED).to_string()
}

/// An image size worth showing: `None` for an empty one.
fn shown_size(size: Size) -> Option<Size> {
    (size.width > 0 && size.height > 0).then_some(size)
}

/// A CSS-pixel number: whole numbers without decimals.
fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{v:.0}") } else { format!("{v:.1}") }
}

/// A thousands-separated count.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn percent(p: f64) -> String {
    if p > 0.0 && p < 0.01 { "&lt;0.01 %".to_string() } else { format!("{p:.2} %") }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Heading, run information and the totals per status.
fn summary(out: &mut String, results: &Results, heading: &str) {
    let s = &results.summary;
    let review = s.to_review();
    w!(out, "<header>\n<div class=\"top\"><h1>{heading}</h1>");
    if review == 0 {
        w!(
            out,
            "<span class=\"headline\">{}</span>",
            if s.total == 0 { "nothing captured" } else { "nothing to review" }
        );
    } else {
        w!(out, "<span class=\"headline\">{} to review</span>", plural(review, "snapshot", "snapshots"));
    }
    out.push_str("</div>\n<ul class=\"run\">");
    let created = &results.created_at;
    if !created.is_empty() {
        w!(
            out,
            "<li>created <time datetime=\"{0}\">{1}</time></li>",
            escape_html(created),
            escape_html(&created.replace('T', " ").replace('Z', " UTC"))
        );
    }
    let run = &results.run;
    w!(out, "<li>mode {}</li>", escape_html(&run.mode));
    out.push_str(if run.filtered { "<li>filtered run</li>" } else { "<li>full run</li>" });
    if let Some(ShardPosition { current, total }) = run.shard {
        w!(out, "<li>shard {current}/{total}</li>");
    }
    w!(out, "<li>{} {}</li>", escape_html(&results.tool.name), escape_html(&results.tool.version));
    out.push_str("</ul>\n<div class=\"totals\">");
    w!(out, "<span class=\"total\">{}</span>", plural(s.total, "snapshot", "snapshots"));
    let pills = [
        ("s-error", s.error, "error", " title=\"a baseline or capture could not be read: not compared\""),
        ("s-passed", s.passed, "passed", ""),
        ("s-changed", s.changed, "changed", ""),
        ("s-new", s.new, "new", ""),
        ("s-missing", s.missing, "missing", ""),
        ("s-written", s.written, "written", " title=\"baselines written by --update-snapshots\""),
        (
            "s-auto",
            s.auto_passed,
            "auto-passed",
            " title=\"likely render noise passed by noiseAutoPass; counted in passed\"",
        ),
    ];
    for (class, n, label, title) in pills {
        // Only an update run writes baselines, and only a damaged file is an error: other runs
        // do not mention them.
        if matches!(class, "s-written" | "s-error") && n == 0 {
            continue;
        }
        let zero = if n == 0 { " zero" } else { "" };
        w!(out, "<span class=\"pill {class}{zero}\"{title}>{n} {label}</span>");
    }
    out.push_str("</div>\n");
    if let Some(note) = results.scope_note() {
        w!(out, "<p class=\"note\">{}</p>\n", escape_html(&note));
    }
    out.push_str("</header>\n");
}

/// Status filter buttons with counts; the script shows only the chosen status.
fn toolbar(out: &mut String, counts: &Summary) {
    out.push_str("<nav class=\"toolbar\" aria-label=\"Filter snapshots by status\"><span class=\"label\">Show</span>");
    let all = counts.total + counts.missing;
    w!(out, "<button type=\"button\" data-filter=\"all\" aria-pressed=\"true\">All<b>{all}</b></button>");
    let filters = [
        ("error", "Error", counts.error),
        ("changed", "Changed", counts.changed),
        ("new", "New", counts.new),
        ("written", "Written", counts.written),
        ("passed", "Passed", counts.passed),
        ("auto", "Auto-passed", counts.auto_passed),
        ("missing", "Missing", counts.missing),
    ];
    for (key, label, n) in filters {
        if matches!(key, "written" | "error") && n == 0 {
            continue;
        }
        let disabled = if n == 0 { " disabled" } else { "" };
        w!(
            out,
            "<button type=\"button\" data-filter=\"{key}\" aria-pressed=\"false\"{disabled}>{label}<b>{n}</b></button>"
        );
    }
    out.push_str(
        "<label class=\"opt\"><input type=\"checkbox\" id=\"labels\" checked> region labels</label></nav>\n\
         <p id=\"empty\" class=\"empty\" hidden>No snapshot has this status.</p>\n",
    );
}

/// The review page's own style and script, and the state its script starts from: the results
/// version, the decisions in force, what they leave to commit, and the groups (to approve a
/// group and to filter by one). `<` is escaped so no string in it can close the script element.
fn review_head(out: &mut String, results: &Results, review: &ReviewPage<'_>) {
    let state = serde_json::json!({
        "results": review.version,
        "decisions": review.decisions,
        "commit": baselines_to_commit(review.decisions),
        "groups": results.groups,
    });
    let json = state.to_string().replace('<', "\\u003c");
    w!(
        out,
        "<style>\n{REVIEW_STYLE}</style>\n<script type=\"application/json\" id=\"review-state\">{json}</script>\n\
         <script>\n{REVIEW_SCRIPT}</script>\n"
    );
}

/// The review bar under the filters: progress, the group filter, the keys, and where errors and
/// the commit line appear; the review script fills them.
fn review_bar(out: &mut String) {
    out.push_str(
        "<div class=\"reviewbar\" id=\"reviewbar\"><span id=\"progress\" aria-live=\"polite\"></span>\
         <label>Group <select id=\"group-filter\"><option value=\"\">all snapshots</option></select></label>\
         <span class=\"keys\"><kbd>j</kbd>/<kbd>k</kbd> next/previous · <kbd>a</kbd> approve · <kbd>r</kbd> reject \
         (a card, or a group with the focus) · <kbd>s</kbd> skip · <kbd>v</kbd> views · <kbd>u</kbd> undo</span>\
         <button type=\"button\" id=\"undo\" hidden>Undo last decision</button></div>\n\
         <p id=\"review-error\" class=\"review-error\" role=\"alert\" hidden></p>\n\
         <section id=\"commit\" class=\"commit\" hidden><h2>To commit</h2><p>The approved baselines; commit them \
         with the change that made them:</p><pre><code id=\"commit-command\"></code></pre></section>\n",
    );
}
