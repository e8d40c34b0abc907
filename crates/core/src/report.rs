//! The HTML report, `<reportDir>/index.html` (01-product.md, "Files"): one self-contained page
//! rendered from the results.json model, so it shows exactly the verdicts, regions and style
//! changes the CLI and the MCP server read, and recomputes nothing.
//!
//! Self-contained means it opens from `file://` with no network: the CSS and the small script
//! are compiled in (`report/report.css`, `report/report.js`), fonts are the system's, and images
//! are relative links to the PNGs results.rs writes under `<reportDir>/images/`. Every string
//! taken from results.json goes through [`escape_html`]; nothing from it reaches the script or
//! a `style` attribute except numbers and colours that pass [`css_color`].

use std::fmt::Write as _;

use serde_json::Value;

use crate::health::HealthReason;

const STYLE: &str = include_str!("report/report.css");
const SCRIPT: &str = include_str!("report/report.js");

/// Rows of the regions table per snapshot; the boxes over the image are all drawn.
const MAX_REGION_ROWS: usize = 200;
/// Selectors named per region in the regions table.
const REGION_ELEMENTS_SHOWN: usize = 3;
/// Changed and new cards after this many load their images lazily (when scrolled near), so a
/// run with hundreds of changes opens quickly.
const EAGER_CARDS: usize = 10;
/// Above this many labelled (`change`) boxes on one image, labels shrink to their number and
/// show in full on hover: full labels would cover the very pixels that changed.
const FULL_LABELS_MAX: usize = 6;

/// `write!` into a `String`, which cannot fail.
macro_rules! w {
    ($out:expr, $($arg:tt)*) => {{
        let _ = write!($out, $($arg)*);
    }};
}

/// Renders the report page for one results.json value. `report_dir` is the report folder as
/// results.json's paths spell it (config `reportDir`, relative to the project root, e.g.
/// `visual-report`): image paths under it become relative to `index.html`, paths elsewhere in
/// the project get the matching `../`.
pub fn render_report(results: &Value, report_dir: &str) -> String {
    let snapshots = array(&results["snapshots"]);
    let missing = array(&results["missingBaselines"]);
    let dir = ReportDir::new(report_dir);
    let counts = Counts::of(snapshots, missing);

    let mut out = String::with_capacity(32 * 1024 + snapshots.len() * 8 * 1024);
    let review = counts.changed + counts.new + counts.missing;
    w!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Sightline report — {}</title>\n<style>\n{STYLE}</style>\n<script>\n{SCRIPT}</script>\n</head>\n<body>\n",
        if review == 0 { format!("{} passed", counts.passed) } else { format!("{review} to review") }
    );
    summary(&mut out, results, &counts);
    toolbar(&mut out, &counts);
    groups(&mut out, results, snapshots);

    // Changed and new first (they need a decision), then passed (collapsed), then missing.
    let mut shown = 0;
    for (key, title) in [("changed", "Changed"), ("new", "New"), ("passed", "Passed")] {
        let members: Vec<(usize, &Value)> =
            snapshots.iter().enumerate().filter(|(_, s)| section(text(&s["status"])) == key).collect();
        if members.is_empty() {
            continue;
        }
        w!(
            out,
            "<section class=\"status\" data-section=\"{key}\">\n<h2>{title} <span class=\"n\">{}</span></h2>\n",
            members.len()
        );
        for (index, snap) in members {
            snapshot_card(&mut out, index, snap, &dir, shown >= EAGER_CARDS);
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
            missing_card(&mut out, index, entry, &dir);
        }
        out.push_str("</section>\n");
    }
    if snapshots.is_empty() && missing.is_empty() {
        out.push_str("<p class=\"empty\">No snapshots in this run.</p>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// The section a snapshot status is listed in; a status this version does not know needs a
/// look, so it joins the changed ones.
fn section(status: &str) -> &str {
    match status {
        "passed" | "new" => status,
        _ => "changed",
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

/// Counts of rendered cards, for the summary fallback and the filter buttons.
#[derive(Default)]
struct Counts {
    total: usize,
    passed: usize,
    changed: usize,
    new: usize,
    missing: usize,
    auto_passed: usize,
}

impl Counts {
    fn of(snapshots: &[Value], missing: &[Value]) -> Self {
        let mut c = Counts { total: snapshots.len(), missing: missing.len(), ..Counts::default() };
        for snap in snapshots {
            match text(&snap["status"]) {
                "passed" => c.passed += 1,
                "new" => c.new += 1,
                "missing" => c.missing += 1,
                _ => c.changed += 1,
            }
            c.auto_passed += usize::from(snap["autoPassed"].as_bool().unwrap_or(false));
        }
        c
    }
}

/// Where the report lives relative to the project root, to turn results.json's paths (relative
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

    /// The `src` for an image path from results.json, or `None` when it is no image (a `.slcap`
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

fn array(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

fn count(v: &Value) -> usize {
    v.as_u64().map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// `{width, height}` of a results.json size object.
fn size(v: &Value) -> Option<(f64, f64)> {
    let (w, h) = (v["width"].as_f64()?, v["height"].as_f64()?);
    (w > 0.0 && h > 0.0).then_some((w, h))
}

/// A CSS-pixel or image-pixel number: whole numbers without decimals.
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

/// Title, run information and the totals per status.
fn summary(out: &mut String, results: &Value, counts: &Counts) {
    let s = &results["summary"];
    let get = |key: &str, fallback: usize| s[key].as_u64().map_or(fallback, |n| usize::try_from(n).unwrap_or(0));
    let total = get("total", counts.total);
    let review = counts.changed + counts.new + counts.missing;
    out.push_str("<header>\n<div class=\"top\"><h1>Sightline visual report</h1>");
    if review == 0 {
        w!(
            out,
            "<span class=\"headline\">{}</span>",
            if total == 0 { "nothing captured" } else { "nothing to review" }
        );
    } else {
        w!(out, "<span class=\"headline\">{} to review</span>", plural(review, "snapshot", "snapshots"));
    }
    out.push_str("</div>\n<ul class=\"run\">");
    let created = text(&results["createdAt"]);
    if !created.is_empty() {
        w!(
            out,
            "<li>created <time datetime=\"{0}\">{1}</time></li>",
            escape_html(created),
            escape_html(&created.replace('T', " ").replace('Z', " UTC"))
        );
    }
    let run = &results["run"];
    if let Some(mode) = run["mode"].as_str() {
        w!(out, "<li>mode {}</li>", escape_html(mode));
    }
    if run["filtered"].as_bool().unwrap_or(false) {
        out.push_str("<li>filtered run</li>");
    } else {
        out.push_str("<li>full run</li>");
    }
    if let (Some(current), Some(total)) = (run["shard"]["current"].as_u64(), run["shard"]["total"].as_u64()) {
        w!(out, "<li>shard {current}/{total}</li>");
    }
    if let Some(version) = results["tool"]["version"].as_str() {
        w!(out, "<li>{} {}</li>", escape_html(text(&results["tool"]["name"])), escape_html(version));
    }
    out.push_str("</ul>\n<div class=\"totals\">");
    w!(out, "<span class=\"total\">{}</span>", plural(total, "snapshot", "snapshots"));
    let pills = [
        ("s-passed", get("passed", counts.passed), "passed", ""),
        ("s-changed", get("changed", counts.changed), "changed", ""),
        ("s-new", get("new", counts.new), "new", ""),
        ("s-missing", get("missing", counts.missing), "missing", ""),
        (
            "s-auto",
            get("autoPassed", counts.auto_passed),
            "auto-passed",
            " title=\"likely render noise passed by noiseAutoPass; counted in passed\"",
        ),
    ];
    for (class, n, label, title) in pills {
        let zero = if n == 0 { " zero" } else { "" };
        w!(out, "<span class=\"pill {class}{zero}\"{title}>{n} {label}</span>");
    }
    out.push_str("</div>\n");
    if run["filtered"].as_bool().unwrap_or(false) {
        out.push_str(
            "<p class=\"note\">Some tests were filtered out of this run (grep or file arguments), so baselines \
             without a capture are not reported as missing.</p>\n",
        );
    }
    if run["shard"].is_object() {
        out.push_str(
            "<p class=\"note\">Partial results of one shard. The merge job (<code>npx sightline merge</code>) \
             combines the shards and is the only one that can tell missing baselines.</p>\n",
        );
    }
    out.push_str("</header>\n");
}

/// Status filter buttons with counts; the script shows only the chosen status.
fn toolbar(out: &mut String, counts: &Counts) {
    out.push_str("<nav class=\"toolbar\" aria-label=\"Filter snapshots by status\"><span class=\"label\">Show</span>");
    let all = counts.total + counts.missing;
    w!(out, "<button type=\"button\" data-filter=\"all\" aria-pressed=\"true\">All<b>{all}</b></button>");
    let filters = [
        ("changed", "Changed", counts.changed),
        ("new", "New", counts.new),
        ("passed", "Passed", counts.passed),
        ("auto", "Auto-passed", counts.auto_passed),
        ("missing", "Missing", counts.missing),
    ];
    for (key, label, n) in filters {
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

/// Snapshots that changed the same way (results.json `groups`, when present).
fn groups(out: &mut String, results: &Value, snapshots: &[Value]) {
    let groups = array(&results["groups"]);
    if groups.is_empty() {
        return;
    }
    w!(
        out,
        "<section class=\"groups\">\n<h2>Groups <span class=\"n\">{} — snapshots that changed the same way</span></h2>\n<ol>\n",
        groups.len()
    );
    for group in groups {
        let members = array(&group["members"]);
        w!(out, "<li><div class=\"glabel\">{}</div>", escape_html(text(&group["label"])));
        if let Some(detail) = group_detail(&group["detail"]) {
            w!(out, "<div class=\"gdetail\">{detail}</div>");
        }
        w!(out, "<div class=\"members\"><span>{}:</span>", plural(members.len(), "snapshot", "snapshots"));
        for member in members {
            let (name, project) = (text(&member["name"]), text(&member["project"]));
            let index = snapshots.iter().position(|s| text(&s["name"]) == name && text(&s["project"]) == project);
            let label = format!("{} <span class=\"project\">{}</span>", escape_html(name), escape_html(project));
            match index {
                Some(i) => w!(out, "<a href=\"#snap-{i}\">{label}</a>"),
                None => w!(out, "<span>{label}</span>"),
            }
        }
        out.push_str("</div></li>\n");
    }
    out.push_str("</ol>\n</section>\n");
}

/// A group's shared signal in words (grouping.rs `detail`): the restyled elements, the shift,
/// or which style check; already escaped. `None` when there is nothing to add to the label.
fn group_detail(detail: &Value) -> Option<String> {
    match detail {
        Value::Null => None,
        Value::String(s) => Some(escape_html(s)),
        Value::Object(map) if map.is_empty() => None,
        Value::Object(map) => {
            if let Some(elements) = map.get("elements").and_then(Value::as_array) {
                let names: Vec<String> = elements.iter().map(|e| escape_html(text(e))).collect();
                return Some(format!("restyled: <code>{}</code>", names.join("</code>, <code>")));
            }
            if let (Some(dy), Some(below)) =
                (map.get("dy").and_then(Value::as_f64), map.get("belowY").and_then(Value::as_f64))
            {
                return Some(format!("content below y={} moved {} px", num(below), num(dy)));
            }
            if let Some(check) = map.get("styleCheck") {
                return Some(match check.as_str() {
                    Some(check) => format!("style check: {}", escape_html(check)),
                    None => "no style data in older results".to_string(),
                });
            }
            Some(format!("<code>{}</code>", escape_html(&detail.to_string())))
        }
        other => Some(format!("<code>{}</code>", escape_html(&other.to_string()))),
    }
}

/// One snapshot: changed and new cards show all their evidence; passed ones are collapsed.
/// `lazy`: load the images only when the card is scrolled near (collapsed cards always do).
fn snapshot_card(out: &mut String, index: usize, snap: &Value, dir: &ReportDir, lazy: bool) {
    let status = text(&snap["status"]);
    let auto = snap["autoPassed"].as_bool().unwrap_or(false);
    let (name, project) = (text(&snap["name"]), text(&snap["project"]));
    w!(
        out,
        "<article class=\"card st-{}{}\" id=\"snap-{index}\" data-status=\"{}\" data-auto=\"{auto}\" data-name=\"{}\" data-project=\"{}\">\n",
        section(status),
        if auto { " auto" } else { "" },
        escape_html(status),
        escape_html(name),
        escape_html(project)
    );
    let badge = if auto { ("s-auto", "auto-passed".to_string()) } else { (status_class(status), status.to_string()) };
    if status == "passed" {
        out.push_str("<details>\n<summary>");
        card_head(out, snap, badge);
        out.push_str("</summary>\n<div class=\"body\">\n");
        health(out, &snap["captureHealth"]);
        images(out, snap, dir, true);
        if auto {
            dom_sections(out, &snap["layers"]["dom"]);
        }
        out.push_str("</div>\n</details>\n</article>\n");
        return;
    }
    card_head(out, snap, badge);
    let unhealthy = health(out, &snap["captureHealth"]);
    if !unhealthy && (status == "changed" || status == "new") {
        w!(
            out,
            "<p class=\"approve\">If this is intended: <code>npx sightline approve {}</code> (or run the tests with <code>-u</code>)</p>\n",
            escape_html(name)
        );
    }
    images(out, snap, dir, lazy);
    dom_sections(out, &snap["layers"]["dom"]);
    regions_table(out, array(&snap["layers"]["pixel"]["regions"]));
    out.push_str("</article>\n");
}

fn status_class(status: &str) -> &'static str {
    match status {
        "passed" => "s-passed",
        "new" => "s-new",
        "missing" => "s-missing",
        _ => "s-changed",
    }
}

/// Badge, name, project, the pixel numbers and the verdict line.
fn card_head(out: &mut String, snap: &Value, (badge_class, badge): (&str, String)) {
    w!(
        out,
        "<div class=\"head\"><span class=\"badge {badge_class}\">{}</span><h3>{}</h3><span class=\"project\">{}</span>",
        escape_html(&badge),
        escape_html(text(&snap["name"])),
        escape_html(text(&snap["project"]))
    );
    let pixel = &snap["layers"]["pixel"];
    let mut metrics = Vec::new();
    if let Some(diff) = pixel["diffPixels"].as_u64().filter(|&d| d > 0) {
        metrics.push(format!(
            "{} px differ ({})",
            grouped(diff),
            percent(pixel["diffPercent"].as_f64().unwrap_or(0.0))
        ));
        let regions = array(&pixel["regions"]).len();
        metrics.push(plural(regions, "region", "regions"));
    }
    if let Some(shape) = pixel["shape"].as_str() {
        metrics.push(escape_html(shape));
    }
    if let (Some(dy), Some(below)) = (pixel["shift"]["dy"].as_f64(), pixel["shift"]["belowY"].as_f64()) {
        metrics.push(format!("shift {}{} px below y={}", if dy > 0.0 { "+" } else { "" }, num(dy), num(below)));
    }
    let (before, after) = (snap_size(snap, "baselineSize"), snap_size(snap, "currentSize"));
    match (before, after) {
        (Some(b), Some(c)) if b != c => metrics.push(format!("{}×{} → {}×{}", num(b.0), num(b.1), num(c.0), num(c.1))),
        (_, Some(s)) | (Some(s), None) => metrics.push(format!("{}×{}", num(s.0), num(s.1))),
        (None, None) => {}
    }
    if !metrics.is_empty() {
        w!(out, "<span class=\"metrics\">{}</span>", metrics.join(" · "));
    }
    w!(out, "</div>\n<p class=\"verdict\">{}</p>\n", escape_html(text(&snap["verdict"])));
}

/// A snapshot's image size, top-level or from the pixel layer.
fn snap_size(snap: &Value, key: &str) -> Option<(f64, f64)> {
    size(&snap[key]).or_else(|| size(&snap["layers"]["pixel"][key]))
}

/// Failed assets of an unhealthy capture; returns whether the capture is unhealthy.
fn health(out: &mut String, health: &Value) -> bool {
    let unhealthy = health["unhealthy"].as_bool().unwrap_or(false);
    let reasons = array(&health["reasons"]);
    if !unhealthy && reasons.is_empty() {
        return false;
    }
    out.push_str("<div class=\"health\">");
    if unhealthy {
        out.push_str(
            "<strong>Unhealthy capture:</strong> assets failed to load. Fix them and run again; never approve \
             this capture as a baseline.",
        );
    } else {
        out.push_str("<strong>Failed assets</strong>");
    }
    if health["sameOnBothSides"].as_bool().unwrap_or(false) {
        out.push_str(" The baseline failed the same way, so tolerances still apply.");
    }
    out.push_str("<ul>");
    for reason in reasons {
        // The core's sentence with the asset set in code; an older release's plain string as is.
        match serde_json::from_value::<HealthReason>(reason.clone()) {
            Ok(reason) => {
                let s = reason.sentence();
                w!(out, "<li>{} <code>{}</code>{}</li>", s.kind, escape_html(&s.asset), escape_html(&s.rest));
            }
            Err(_) => {
                let shown = reason.as_str().map_or_else(|| reason.to_string(), str::to_owned);
                w!(out, "<li>{}</li>", escape_html(&shown));
            }
        }
    }
    out.push_str("</ul></div>\n");
    unhealthy
}

/// Baseline / current (with region boxes) / diff side by side, then the slider when both sides
/// exist. `lazy` images load only when scrolled near.
fn images(out: &mut String, snap: &Value, dir: &ReportDir, lazy: bool) {
    let files = &snap["files"];
    let name = text(&snap["name"]);
    let baseline = dir.src(text(&files["baseline"]));
    let current = dir.src(text(&files["current"]));
    let diff = dir.src(text(&files["diff"]));
    let (bsize, csize) = (snap_size(snap, "baselineSize"), snap_size(snap, "currentSize"));
    // The diff covers the canvas both images were padded to.
    let canvas = match (bsize, csize) {
        (Some(b), Some(c)) => Some((b.0.max(c.0), b.1.max(c.1))),
        (b, c) => b.or(c),
    };
    let figures = [
        ("baseline", "Baseline", baseline.as_deref(), bsize, false),
        ("current", "Current", current.as_deref(), csize, true),
        ("diff", "Diff", diff.as_deref(), canvas, false),
    ];
    let shown = figures.iter().filter(|f| f.2.is_some()).count();
    if shown == 0 {
        if text(&snap["status"]) != "passed" {
            out.push_str("<p class=\"more\">No images were kept for this snapshot.</p>\n");
        }
        return;
    }
    let regions = array(&snap["layers"]["pixel"]["regions"]);
    w!(out, "<section class=\"images\"><div class=\"trio{}\">\n", if shown == 1 { " single" } else { "" });
    for (key, caption, src, dims, with_regions) in figures {
        let Some(src) = src else { continue };
        w!(out, "<figure class=\"f-{key}\"><figcaption><b>{caption}</b>");
        if let Some((w, h)) = dims {
            w!(out, "<span>{}×{}</span>", num(w), num(h));
        }
        let labelled = regions.iter().filter(|r| text(&r["classification"]) != "shift").count();
        let dense = with_regions && labelled > FULL_LABELS_MAX;
        w!(out, "</figcaption><div class=\"frame\"><div class=\"imgbox{}\">", if dense { " dense" } else { "" });
        image_tag(out, src, &format!("{caption} of {name}"), dims, None, lazy);
        if with_regions && let Some(dims) = dims {
            region_boxes(out, regions, dims);
        }
        out.push_str("</div></div></figure>\n");
    }
    out.push_str("</div>\n");
    if regions.iter().any(|r| r["x"].is_number()) && csize.is_some() && current.is_some() {
        out.push_str(
            "<div class=\"legend\"><span><i></i>change</span><span><i class=\"shift\"></i>shift (content only \
             moved)</span><span>boxes are drawn on the current image; numbers match the regions table, hover a box \
             for its elements</span></div>\n",
        );
    }
    out.push_str("</section>\n");
    if let (Some(b), Some(c), Some(bs), Some(cs), Some(canvas)) = (&baseline, &current, bsize, csize, canvas) {
        slider(out, name, (b, bs), (c, cs), canvas, lazy);
    }
}

fn image_tag(out: &mut String, src: &str, alt: &str, dims: Option<(f64, f64)>, width_pct: Option<f64>, lazy: bool) {
    w!(out, "<img src=\"{}\" alt=\"{}\"", escape_html(src), escape_html(alt));
    // Width and height give the box its aspect ratio before the image loads.
    if let Some((w, h)) = dims {
        w!(out, " width=\"{}\" height=\"{}\"", num(w), num(h));
    }
    if let Some(pct) = width_pct {
        w!(out, " style=\"width:{pct:.4}%\"");
    }
    if lazy {
        out.push_str(" loading=\"lazy\"");
    }
    out.push('>');
}

/// Region boxes in percent of the image's natural size, so they follow its displayed size.
fn region_boxes(out: &mut String, regions: &[Value], (width, height): (f64, f64)) {
    for (i, region) in regions.iter().enumerate() {
        let (Some(x), Some(y), Some(w), Some(h)) =
            (region["x"].as_f64(), region["y"].as_f64(), region["width"].as_f64(), region["height"].as_f64())
        else {
            continue;
        };
        let kind = text(&region["classification"]);
        let class = if kind == "shift" { "rg shift" } else { "rg" };
        let elements = array(&region["elements"]);
        let first = elements.first().map(|e| text(&e["selector"])).unwrap_or("");
        let kind = if kind.is_empty() { "change" } else { kind };
        let mut title = format!("{} {kind} · {first}\n{}×{} at {},{}", i + 1, num(w), num(h), num(x), num(y));
        if let Some(d) = region["diffPixels"].as_u64() {
            w!(title, ", {} px differ", grouped(d));
        }
        for e in elements {
            w!(title, "\n{} {}", text(&e["role"]), text(&e["selector"]));
        }
        w!(
            out,
            "<div class=\"{class}\" style=\"left:{:.4}%;top:{:.4}%;width:{:.4}%;height:{:.4}%\" title=\"{}\">\
             <span><b>{}</b><i> {} · {}</i></span></div>",
            x / width * 100.0,
            y / height * 100.0,
            w / width * 100.0,
            h / height * 100.0,
            escape_html(&title),
            i + 1,
            escape_html(kind),
            escape_html(&short_selector(first))
        );
    }
}

/// The end of a long selector path (`… > div.card:nth-of-type(2) > p.price`), which is the
/// part that tells elements apart; the box's title has it in full.
fn short_selector(selector: &str) -> String {
    let parts: Vec<&str> = selector.split(" > ").collect();
    if parts.len() <= 2 { selector.to_string() } else { format!("… > {}", parts[parts.len() - 2..].join(" > ")) }
}

/// Baseline under the current image; the range input moves the clip between them.
fn slider(
    out: &mut String,
    name: &str,
    (baseline, bsize): (&str, (f64, f64)),
    (current, csize): (&str, (f64, f64)),
    canvas: (f64, f64),
    lazy: bool,
) {
    out.push_str(
        "<section><h4>Slider <span class=\"n\">baseline on the left, current on the right</span></h4>\
         <figure class=\"slider\"><div class=\"frame\"><div class=\"stack\">",
    );
    image_tag(out, baseline, &format!("Baseline of {name}"), Some(bsize), Some(bsize.0 / canvas.0 * 100.0), lazy);
    out.push_str("<div class=\"over\">");
    image_tag(out, current, &format!("Current of {name}"), Some(csize), Some(csize.0 / canvas.0 * 100.0), lazy);
    out.push_str(
        "</div><div class=\"handle\"></div></div></div><div class=\"ctl\"><span>baseline</span>\
         <input type=\"range\" min=\"0\" max=\"100\" value=\"50\" aria-label=\"Slider: baseline left, current right\">\
         <span>current</span></div></figure></section>\n",
    );
}

/// Structural, style and geometry changes of the DOM layer, in the order verdicts rank them.
fn dom_sections(out: &mut String, dom: &Value) {
    structure(out, dom);
    style_changes(out, &dom["styleChanges"]);
    geometry_changes(out, &dom["geometryChanges"]);
}

fn style_changes(out: &mut String, styles: &Value) {
    let properties = array(&styles["properties"]);
    if properties.is_empty() {
        return;
    }
    let total = count(&styles["propertyCount"]).max(properties.len());
    let elements = count(&styles["count"]);
    w!(
        out,
        "<section class=\"styles\"><h4>Style changes <span class=\"n\">{} on {}</span></h4>\n",
        plural(total, "property", "properties"),
        plural(elements, "element", "elements")
    );
    out.push_str(
        "<div class=\"tablewrap\"><table><thead><tr><th>Element</th><th>Property</th><th>Baseline → current</th></tr></thead><tbody>\n",
    );
    for p in properties {
        w!(
            out,
            "<tr><td class=\"sel\">{}</td><td class=\"val\">{}</td><td class=\"val\">{}<span class=\"arrow\">→</span>{}</td></tr>\n",
            escape_html(text(&p["selector"])),
            escape_html(text(&p["property"])),
            style_value(text(&p["from"])),
            style_value(text(&p["to"]))
        );
    }
    out.push_str("</tbody></table></div>");
    if total > properties.len() {
        w!(out, "<p class=\"more\">The first {} of {total} changed properties.</p>", properties.len());
    }
    out.push_str("</section>\n");
}

/// A computed-style value, with a swatch when it starts with a colour.
fn style_value(value: &str) -> String {
    let shown = if value.is_empty() { "(empty)".to_string() } else { escape_html(value) };
    match css_color(value) {
        Some(color) => format!("<span class=\"sw\" style=\"--c:{}\"></span>{shown}", escape_html(color)),
        None => shown,
    }
}

fn geometry_changes(out: &mut String, geometry: &Value) {
    let (resized, moved) = (array(&geometry["resized"]), array(&geometry["moved"]));
    if resized.is_empty() && moved.is_empty() {
        return;
    }
    w!(
        out,
        "<section class=\"geometry\"><h4>Geometry changes <span class=\"n\">{} resized, {} moved (CSS px)</span></h4>\n",
        count(&geometry["resizedCount"]).max(resized.len()),
        count(&geometry["movedCount"])
    );
    out.push_str(
        "<div class=\"tablewrap\"><table><thead><tr><th>Change</th><th>Element</th><th>Baseline box</th><th>Current box</th></tr></thead><tbody>\n",
    );
    for r in resized {
        let (from, to) = (box_of(&r["from"]), box_of(&r["to"]));
        let mut change = "resized".to_string();
        if let (Some(f), Some(t)) = (from, to) {
            let (dw, dh) = (t[2] - f[2], t[3] - f[3]);
            let mut parts = Vec::new();
            if dw != 0.0 {
                parts.push(format!("width {}{}", if dw > 0.0 { "+" } else { "" }, num(dw)));
            }
            if dh != 0.0 {
                parts.push(format!("height {}{}", if dh > 0.0 { "+" } else { "" }, num(dh)));
            }
            if !parts.is_empty() {
                change = format!("resized: {}", parts.join(", "));
            }
        }
        if r["innermost"].as_bool().unwrap_or(false) {
            change.push_str(" (where it starts)");
        }
        geometry_row(out, &change, text(&r["selector"]), from, to);
    }
    for m in moved {
        let n = count(&m["count"]);
        let (dx, dy) = (m["dx"].as_f64().unwrap_or(0.0), m["dy"].as_f64().unwrap_or(0.0));
        let mut change = format!("moved {}, {}", num(dx), num(dy));
        if n > 1 {
            w!(change, " ({n} elements from here on)");
        }
        geometry_row(out, &change, text(&m["selector"]), box_of(&m["from"]), box_of(&m["to"]));
    }
    out.push_str("</tbody></table></div></section>\n");
}

fn geometry_row(out: &mut String, change: &str, selector: &str, from: Option<[f64; 4]>, to: Option<[f64; 4]>) {
    let fmt = |b: Option<[f64; 4]>| {
        b.map_or(String::new(), |b| format!("{},{} {}×{}", num(b[0]), num(b[1]), num(b[2]), num(b[3])))
    };
    w!(
        out,
        "<tr><td>{}</td><td class=\"sel\">{}</td><td class=\"val\">{}</td><td class=\"val\">{}</td></tr>\n",
        escape_html(change),
        escape_html(selector),
        fmt(from),
        fmt(to)
    );
}

/// `[x, y, width, height]`.
fn box_of(v: &Value) -> Option<[f64; 4]> {
    let a = v.as_array()?;
    (a.len() == 4).then(|| [0, 1, 2, 3].map(|i| a[i].as_f64().unwrap_or(0.0)))
}

/// Added, removed and modified elements of a structural change.
fn structure(out: &mut String, dom: &Value) {
    let lists = [("Added", &dom["added"]), ("Removed", &dom["removed"]), ("Modified", &dom["modified"])];
    if lists.iter().all(|(_, l)| count(&l["count"]) == 0 && array(&l["elements"]).is_empty()) {
        return;
    }
    out.push_str("<section class=\"structure\"><h4>Structure</h4>\n");
    for (title, list) in lists {
        let elements = array(&list["elements"]);
        let n = count(&list["count"]).max(elements.len());
        if n == 0 {
            continue;
        }
        w!(out, "<div><b>{title}</b> <span class=\"n\">{}</span><ul class=\"sels\">", plural(n, "element", "elements"));
        for e in elements {
            match e {
                Value::String(selector) => w!(out, "<li>{}</li>", escape_html(selector)),
                other => {
                    let changes: Vec<&str> = array(&other["changes"]).iter().map(text).collect();
                    w!(out, "<li>{}", escape_html(text(&other["selector"])));
                    if !changes.is_empty() {
                        w!(out, " <span class=\"project\">({})</span>", escape_html(&changes.join(", ")));
                    }
                    out.push_str("</li>");
                }
            }
        }
        if n > elements.len() {
            w!(out, "<li class=\"more\">… and {} more</li>", n - elements.len());
        }
        out.push_str("</ul></div>\n");
    }
    out.push_str("</section>\n");
}

/// Every region with its box, pixels and the elements it maps to.
fn regions_table(out: &mut String, regions: &[Value]) {
    if regions.is_empty() {
        return;
    }
    w!(
        out,
        "<section class=\"regions\"><details class=\"sub\"><summary>{} (image px)</summary>\n",
        plural(regions.len(), "region", "regions")
    );
    out.push_str(
        "<div class=\"tablewrap\"><table><thead><tr><th>#</th><th>Kind</th><th>Box</th><th>Diff px</th><th>Elements</th></tr></thead><tbody>\n",
    );
    for (i, r) in regions.iter().take(MAX_REGION_ROWS).enumerate() {
        let get = |k: &str| r[k].as_f64().unwrap_or(0.0);
        let elements = array(&r["elements"]);
        let mut names: Vec<String> = elements
            .iter()
            .take(REGION_ELEMENTS_SHOWN)
            .map(|e| {
                format!(
                    "{} <span class=\"project\">{}</span>",
                    escape_html(text(&e["selector"])),
                    escape_html(text(&e["role"]))
                )
            })
            .collect();
        if elements.len() > REGION_ELEMENTS_SHOWN {
            names.push(format!("… {} more", elements.len() - REGION_ELEMENTS_SHOWN));
        }
        w!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"val\">{},{} {}×{}</td><td class=\"val\">{}</td><td class=\"sel\">{}</td></tr>\n",
            i + 1,
            escape_html(text(&r["classification"])),
            num(get("x")),
            num(get("y")),
            num(get("width")),
            num(get("height")),
            grouped(r["diffPixels"].as_u64().unwrap_or(0)),
            names.join("<br>")
        );
    }
    out.push_str("</tbody></table></div>");
    if regions.len() > MAX_REGION_ROWS {
        w!(out, "<p class=\"more\">The first {MAX_REGION_ROWS} of {} regions are listed.</p>", regions.len());
    }
    out.push_str("</details></section>\n");
}

/// A committed baseline with no capture in this run.
fn missing_card(out: &mut String, index: usize, entry: &Value, dir: &ReportDir) {
    let (name, project) = (text(&entry["name"]), text(&entry["project"]));
    w!(
        out,
        "<article class=\"card st-missing\" id=\"missing-{index}\" data-status=\"missing\" data-auto=\"false\" data-name=\"{}\" data-project=\"{}\">\n\
         <div class=\"head\"><span class=\"badge s-missing\">missing</span><h3>{}</h3><span class=\"project\">{}</span></div>\n",
        escape_html(name),
        escape_html(project),
        escape_html(name),
        escape_html(project)
    );
    w!(
        out,
        "<p class=\"verdict\">A baseline is committed but this run captured no snapshot with this name. If the \
         snapshot was removed on purpose, delete its baseline directory <code>.sightline/baselines/{}/</code> in the \
         same change; otherwise find out why its test no longer runs. Approving does nothing for it.</p>\n",
        escape_html(name)
    );
    if let Some(src) = dir.src(text(&entry["files"]["baseline"])) {
        out.push_str(
            "<details class=\"sub\"><summary>Baseline image</summary><div class=\"trio single\"><figure class=\"f-baseline\"><div class=\"frame\"><div class=\"imgbox\">",
        );
        image_tag(out, &src, &format!("Baseline of {name}"), None, None, true);
        out.push_str("</div></div></figure></div></details>\n");
    }
    out.push_str("</article>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A run with a style-only change (hostile selector), a passed snapshot, a new one and a
    /// missing baseline.
    fn results() -> Value {
        json!({
            "version": 1,
            "createdAt": "2026-01-02T03:04:05Z",
            "tool": { "name": "sightline", "version": "0.1.0" },
            "run": { "mode": "compare", "shard": null, "root": "/p", "config": {}, "filtered": false },
            "summary": { "total": 3, "passed": 1, "changed": 1, "new": 1, "missing": 1, "autoPassed": 0 },
            "snapshots": [
                {
                    "name": "about", "project": "chromium", "status": "passed", "autoPassed": false,
                    "verdict": "Passed: no pixel differs",
                    "files": { "baseline": ".sightline/baselines/about/chromium.png",
                               "current": ".sightline/temp/about/chromium.slcap", "diff": null },
                    "baselineSize": { "width": 100, "height": 50 }, "currentSize": { "width": 100, "height": 50 },
                    "captureHealth": { "unhealthy": false, "reasons": [], "sameOnBothSides": false }
                },
                {
                    "name": "home", "project": "chromium", "status": "changed", "autoPassed": false,
                    "verdict": "Style-only change: 1 element restyled (a.btn<script>alert(1)</script>)",
                    "files": { "baseline": "visual-report/images/home/chromium-baseline.png",
                               "current": "visual-report/images/home/chromium-current.png",
                               "diff": "visual-report/images/home/chromium-diff.png" },
                    "baselineSize": { "width": 200, "height": 400 }, "currentSize": { "width": 200, "height": 400 },
                    "captureHealth": { "unhealthy": false, "reasons": [], "sameOnBothSides": false },
                    "layers": {
                        "pixel": {
                            "diffPixels": 1200, "diffPercent": 1.5, "shape": "concentrated", "shift": null,
                            "regions": [{
                                "x": 20, "y": 100, "width": 50, "height": 40, "diffPixels": 1200, "diffPercent": 60.0,
                                "classification": "change",
                                "elements": [{ "selector": "a.btn<script>alert(1)</script>", "role": "changed" }]
                            }]
                        },
                        "dom": {
                            "changed": false,
                            "styleCheck": "mismatch",
                            "styleChanges": {
                                "count": 1, "elements": ["a.btn<script>alert(1)</script>"], "propertyCount": 2,
                                "properties": [
                                    { "selector": "a.btn<script>alert(1)</script>", "property": "background-color",
                                      "from": "rgb(37, 99, 235)", "to": "rgb(220, 38, 38)" },
                                    { "selector": "a.btn<script>alert(1)</script>", "property": "font-weight",
                                      "from": "400", "to": "700" }
                                ]
                            },
                            "geometryChanges": { "count": 0, "resized": [], "moved": [] }
                        }
                    }
                },
                {
                    "name": "signup", "project": "chromium", "status": "new", "autoPassed": false,
                    "verdict": "New: no baseline yet",
                    "files": { "baseline": null, "current": "visual-report/images/signup/chromium-current.png", "diff": null },
                    "currentSize": { "width": 100, "height": 100 },
                    "captureHealth": { "unhealthy": true, "sameOnBothSides": false,
                                       "reasons": [{ "kind": "font", "url": "https://x.test/f.woff2?a=1&b=2", "detail": "HTTP 404" }] }
                }
            ],
            "missingBaselines": [
                { "name": "old-page", "project": "chromium", "files": { "baseline": ".sightline/baselines/old-page/chromium.png" } }
            ]
        })
    }

    /// The HTML of the card whose `data-name` is `name`.
    fn card<'a>(html: &'a str, name: &str) -> &'a str {
        let at = html.find(&format!("data-name=\"{name}\"")).expect(name);
        let start = html[..at].rfind("<article").expect("card start");
        let end = html[start..].find("</article>").expect("card end") + start;
        &html[start..end]
    }

    #[test]
    fn report_escape_html_escapes_markup_and_quotes() {
        assert_eq!(escape_html(r#"<a href="x">'&'</a>"#), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
        assert_eq!(escape_html("body > div.card:nth-of-type(2)"), "body &gt; div.card:nth-of-type(2)");
        assert_eq!(escape_html("plain"), "plain");
    }

    #[test]
    fn report_strings_from_results_are_escaped() {
        let html = render_report(&results(), "visual-report");
        assert!(!html.contains("<script>alert(1)"), "a selector reached the page unescaped");
        assert!(html.contains("a.btn&lt;script&gt;alert(1)&lt;/script&gt;"));
        // Every place the selector shows in the card, escaped: the verdict, the region box on the
        // current image (twice in its tooltip, once in its label), the style table's two rows
        // and the region table's row. (The failed font's URL is checked below.)
        assert_eq!(card(&html, "home").matches("&lt;script&gt;").count(), 1 + 3 + 2 + 1);
        assert!(html.contains("https://x.test/f.woff2?a=1&amp;b=2"));
        // The page's own script is the only one.
        assert_eq!(html.matches("<script>").count(), 1);
    }

    #[test]
    fn report_summary_counts_and_filters() {
        let html = render_report(&results(), "visual-report");
        for pill in ["1 passed", "1 changed", "1 new", "1 missing", "0 auto-passed", "3 snapshots"] {
            assert!(html.contains(&format!(">{pill}</span>")), "{pill}");
        }
        assert!(html.contains("data-filter=\"changed\" aria-pressed=\"false\">Changed<b>1</b>"));
        assert!(html.contains("data-filter=\"all\" aria-pressed=\"true\">All<b>4</b>"));
        assert!(html.contains("data-filter=\"auto\" aria-pressed=\"false\" disabled>"));
        assert!(html.contains("<time datetime=\"2026-01-02T03:04:05Z\">2026-01-02 03:04:05 UTC</time>"));
        assert!(html.contains("<li>mode compare</li><li>full run</li>"));
    }

    #[test]
    fn report_orders_changed_and_new_before_passed_and_missing() {
        let html = render_report(&results(), "visual-report");
        let at = |name: &str| html.find(&format!("data-name=\"{name}\"")).expect(name);
        assert!(at("home") < at("signup") && at("signup") < at("about") && at("about") < at("old-page"));
        // Passed cards are collapsed.
        assert!(card(&html, "about").contains("<details>\n<summary>"));
    }

    #[test]
    fn report_shows_a_missing_baseline_and_how_to_remove_it() {
        let html = render_report(&results(), "visual-report");
        let missing = card(&html, "old-page");
        assert!(missing.contains("data-status=\"missing\""));
        assert!(missing.contains("delete its baseline directory <code>.sightline/baselines/old-page/</code>"));
        assert!(missing.contains("src=\"../.sightline/baselines/old-page/chromium.png\""));
    }

    #[test]
    fn report_image_sources_are_relative_to_the_report_folder() {
        let html = render_report(&results(), "visual-report");
        let home = card(&html, "home");
        for kind in ["baseline", "current", "diff"] {
            assert!(home.contains(&format!("src=\"images/home/chromium-{kind}.png\"")), "{kind}");
        }
        assert!(!html.contains("src=\"visual-report/"));
        // A capture artifact is no image; the baseline of a passed snapshot is reached with ../
        let about = card(&html, "about");
        assert!(!about.contains(".slcap"));
        assert!(about.contains("src=\"../.sightline/baselines/about/chromium.png\""));

        let nested = ReportDir::new("./reports/visual/");
        assert_eq!(nested.src("reports/visual/images/a b#1.png").as_deref(), Some("images/a%20b%231.png"));
        assert_eq!(
            nested.src(".sightline/baselines/a/chromium.png").as_deref(),
            Some("../../.sightline/baselines/a/chromium.png")
        );
        assert_eq!(nested.src("reports/visual/images/a/chromium.slcap"), None);
        assert_eq!(ReportDir::new("../out").src("x/y.png"), None);
        assert_eq!(ReportDir::new("/abs/out").src("/abs/out/images/a.png").as_deref(), Some("images/a.png"));
    }

    #[test]
    fn report_changed_card_has_images_slider_regions_and_style_table() {
        let html = render_report(&results(), "visual-report");
        let home = card(&html, "home");
        assert!(home.contains("<p class=\"verdict\">Style-only change: 1 element restyled"));
        // One region at 20,100 50×40 on a 200×400 image, in percent of the natural size.
        assert!(home.contains("left:10.0000%;top:25.0000%;width:25.0000%;height:10.0000%"), "{home}");
        assert!(home.contains("<span><b>1</b><i> change · a.btn&lt;script&gt;alert(1)&lt;/script&gt;</i></span>"));
        assert!(home.contains("<input type=\"range\""));
        assert!(home.contains("<td class=\"val\">background-color</td>"));
        assert!(home.contains(
            "<span class=\"sw\" style=\"--c:rgb(37, 99, 235)\"></span>rgb(37, 99, 235)<span class=\"arrow\">→</span>\
             <span class=\"sw\" style=\"--c:rgb(220, 38, 38)\"></span>rgb(220, 38, 38)"
        ));
        assert!(home.contains(">400<span class=\"arrow\">→</span>700<"), "no swatch for a number");
        assert!(home.contains("npx sightline approve home"));
    }

    #[test]
    fn report_new_unhealthy_card_shows_health_and_no_approval_hint() {
        let html = render_report(&results(), "visual-report");
        let signup = card(&html, "signup");
        assert!(signup.contains("Unhealthy capture"));
        assert!(signup.contains("<li>font <code>https://x.test/f.woff2?a=1&amp;b=2</code>: HTTP 404</li>"));
        // A results.json from an older release wrote each reason as a string: shown as written.
        let mut old = results();
        old["snapshots"][2]["captureHealth"]["reasons"] = json!(["font <b>Brand</b> failed"]);
        let html = render_report(&old, "visual-report");
        assert!(card(&html, "signup").contains("<li>font &lt;b&gt;Brand&lt;/b&gt; failed</li>"));
        assert!(!signup.contains("npx sightline approve"));
        assert!(signup.contains("src=\"images/signup/chromium-current.png\""));
        assert!(!signup.contains("class=\"slider\""), "no slider without a baseline");
    }

    #[test]
    fn report_groups_render_only_when_present() {
        let mut results = results();
        assert!(!render_report(&results, "visual-report").contains("class=\"groups\""));
        results["groups"] = json!([{
            "signal": "styleOnly", "label": "Same restyle <b>", "detail": "1 element",
            "members": [{ "name": "home", "project": "chromium" }, { "name": "gone", "project": "chromium" }]
        }]);
        let html = render_report(&results, "visual-report");
        assert!(html.contains("<div class=\"glabel\">Same restyle &lt;b&gt;</div>"));
        assert!(html.contains("<a href=\"#snap-1\">home <span class=\"project\">chromium</span></a>"));
        assert!(html.contains("<span>gone <span class=\"project\">chromium</span></span>"));
        results["groups"][0]["detail"] = json!({ "elements": ["a.btn<i>"] });
        assert!(render_report(&results, "visual-report").contains("restyled: <code>a.btn&lt;i&gt;</code>"));
        results["groups"][0]["detail"] = json!({ "dy": 60, "belowY": 284 });
        assert!(render_report(&results, "visual-report").contains("content below y=284 moved 60 px"));
    }

    #[test]
    fn report_many_changes_load_later_cards_lazily() {
        let mut results = results();
        let home = results["snapshots"][1].clone();
        let many: Vec<Value> = (0..12)
            .map(|i| {
                let mut s = home.clone();
                s["name"] = json!(format!("page-{i:02}"));
                s
            })
            .collect();
        results["snapshots"] = json!(many);
        let html = render_report(&results, "visual-report");
        assert!(!card(&html, "page-00").contains("loading=\"lazy\""));
        assert!(!card(&html, "page-09").contains("loading=\"lazy\""));
        assert!(card(&html, "page-10").contains("loading=\"lazy\""));
    }

    #[test]
    fn report_region_labels_name_the_end_of_long_selectors() {
        assert_eq!(
            short_selector("body > div.grid > div.card:nth-of-type(2) > p.price"),
            "… > div.card:nth-of-type(2) > p.price"
        );
        assert_eq!(short_selector("#hero > a"), "#hero > a");
    }

    #[test]
    fn report_css_color_accepts_colours_only() {
        assert_eq!(css_color("rgb(37, 99, 235)"), Some("rgb(37, 99, 235)"));
        assert_eq!(css_color("rgba(0, 0, 0, 0.1) 0px 1px 2px 0px"), Some("rgba(0, 0, 0, 0.1)"));
        assert_eq!(css_color("#ff0000"), Some("#ff0000"));
        assert_eq!(css_color("transparent"), Some("transparent"));
        assert_eq!(css_color("oklch(0.7 0.1 200 / 50%)"), Some("oklch(0.7 0.1 200 / 50%)"));
        for bad in ["400", "url(x)", "rgb(1;2)", "rgb(\"1\")", "#ggg", "#ff00001", "none", "rgb(1, 2, 3"] {
            assert_eq!(css_color(bad), None, "{bad}");
        }
    }
}
