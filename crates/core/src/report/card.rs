//! One snapshot's card: the head with its numbers and verdict, capture health, the three images
//! with region boxes, the slider and the regions table; and the card of a missing baseline.

use std::fmt::Write as _;

use super::{ReportDir, dom_layer, escape_html, grouped, percent, plural, section, shown_size};
use crate::compare::Size;
use crate::health::CaptureHealth;
use crate::regions::{Classification, Region};
use crate::results::MissingBaseline;
use crate::snapshot::SnapshotEvidence;
use crate::verdict::Status;
use crate::words::Word;

/// Rows of the regions table per snapshot; the boxes over the image are all drawn.
const MAX_REGION_ROWS: usize = 200;
/// Selectors named per region in the regions table.
const REGION_ELEMENTS_SHOWN: usize = 3;
/// Above this many labelled (`change`) boxes on one image, labels shrink to their number and
/// show in full on hover: full labels would cover the very pixels that changed.
const FULL_LABELS_MAX: usize = 6;

/// Regions shown at full size, the changed ones first in the regions' order.
const NATIVE_REGIONS_MAX: usize = 6;

/// Image pixels of margin around a region shown at full size.
const NATIVE_MARGIN: u32 = 24;

/// Largest crop of a region at full size, in image pixels: the top-left part of a larger region.
const NATIVE_MAX: (u32, u32) = (960, 640);

/// One snapshot: changed and new cards show all their evidence; passed ones are collapsed.
/// `lazy`: load the images only when the card is scrolled near (collapsed cards always do).
/// `aligned`: where the review server draws the aligned diff of a page shift (review page only).
pub(super) fn snapshot_card(
    out: &mut String,
    index: usize,
    snap: &SnapshotEvidence,
    dir: &ReportDir,
    lazy: bool,
    aligned: Option<&str>,
) {
    let status = snap.status.word();
    let auto = snap.auto_passed;
    // The cards the review page puts approve and reject on: the core's rule, not the script's.
    let decide = match (snap.awaits_decision(), snap.may_become_variant()) {
        (true, true) => " data-needs-review data-may-become-variant",
        (true, false) => " data-needs-review",
        _ => "",
    };
    w!(
        out,
        "<article class=\"card st-{}{}\" id=\"snap-{index}\" data-status=\"{status}\"{decide} data-auto=\"{auto}\" data-name=\"{}\" data-project=\"{}\">\n",
        section(snap.status),
        if auto { " auto" } else { "" },
        escape_html(&snap.name),
        escape_html(&snap.project)
    );
    let badge = if auto { ("s-auto", "auto-passed") } else { (status_class(snap.status), status) };
    if snap.status == Status::Passed {
        out.push_str("<details>\n<summary>");
        card_head(out, snap, badge);
        out.push_str("</summary>\n<div class=\"body\">\n");
        health(out, &snap.capture_health);
        environment(out, snap);
        images(out, snap, dir, true, None);
        if auto && let Some(dom) = &snap.layers.dom {
            dom_layer::dom_sections(out, dom);
        }
        out.push_str("</div>\n</details>\n</article>\n");
        return;
    }
    card_head(out, snap, badge);
    health(out, &snap.capture_health);
    environment(out, snap);
    if let Some(command) = snap.approve_command() {
        w!(
            out,
            "<p class=\"approve\">If this is intended: <code>{}</code> (or run the tests with <code>-u</code>)</p>\n",
            escape_html(&command)
        );
    }
    images(out, snap, dir, lazy, aligned);
    if let Some(dom) = &snap.layers.dom {
        dom_layer::dom_sections(out, dom);
    }
    regions_table(out, regions(snap));
    out.push_str("</article>\n");
}

fn status_class(status: Status) -> &'static str {
    match status {
        Status::Passed => "s-passed",
        Status::New => "s-new",
        Status::Missing => "s-missing",
        Status::Written => "s-written",
        Status::Changed => "s-changed",
        Status::Error => "s-error",
    }
}

/// The pixel layer's regions; none for a new snapshot.
fn regions(snap: &SnapshotEvidence) -> &[Region] {
    snap.layers.pixel.as_ref().map_or(&[], |pixel| &pixel.regions)
}

/// Badge, name, project, the pixel numbers and the verdict line.
fn card_head(out: &mut String, snap: &SnapshotEvidence, (badge_class, badge): (&str, &str)) {
    w!(
        out,
        "<div class=\"head\"><span class=\"badge {badge_class}\">{badge}</span><h3>{}</h3><span class=\"project\">{}</span>",
        escape_html(&snap.name),
        escape_html(&snap.project)
    );
    let mut metrics = Vec::new();
    if let Some(pixel) = &snap.layers.pixel {
        if pixel.diff_pixels > 0 {
            metrics.push(format!("{} px differ ({})", grouped(pixel.diff_pixels), percent(pixel.diff_percent)));
            metrics.push(plural(pixel.regions.len(), "region", "regions"));
        }
        if let Some(shape) = pixel.shape {
            metrics.push(shape.word().to_string());
        }
        if let Some(shift) = pixel.shift {
            let sign = if shift.dy > 0 { "+" } else { "" };
            metrics.push(format!("shift {sign}{} px below y={}", shift.dy, shift.below_y));
        }
    }
    let (before, after) = sizes(snap);
    match (before, after) {
        (Some(b), Some(c)) if b != c => metrics.push(format!("{}×{} → {}×{}", b.width, b.height, c.width, c.height)),
        (_, Some(s)) | (Some(s), None) => metrics.push(format!("{}×{}", s.width, s.height)),
        (None, None) => {}
    }
    if !metrics.is_empty() {
        w!(out, "<span class=\"metrics\">{}</span>", metrics.join(" · "));
    }
    w!(out, "</div>\n<p class=\"verdict\">{}</p>\n", escape_html(&snap.verdict));
}

/// The baseline's and the capture's sizes, when worth showing.
fn sizes(snap: &SnapshotEvidence) -> (Option<Size>, Option<Size>) {
    (snap.baseline_size.and_then(shown_size), shown_size(snap.current_size))
}

/// Failed assets of an unhealthy capture; returns whether the capture is unhealthy.
/// Where the two sides were rendered; what differs stands out.
fn environment(out: &mut String, snap: &SnapshotEvidence) {
    let Some(environment) = &snap.environment else { return };
    let notes = environment.notes();
    let class = if notes.is_empty() { "environment" } else { "environment differs" };
    w!(out, "<p class=\"{class}\">{}", escape_html(&crate::words::capitalised(&environment.sides())));
    for note in notes {
        w!(out, "<br><strong>{}</strong>", escape_html(&crate::words::capitalised(&note)));
    }
    out.push_str("</p>\n");
}

fn health(out: &mut String, health: &CaptureHealth) -> bool {
    if !health.unhealthy && health.reasons.is_empty() {
        return false;
    }
    out.push_str("<div class=\"health\">");
    if health.unhealthy {
        out.push_str(
            "<strong>Unhealthy capture:</strong> assets failed to load. Fix them and run again; never approve \
             this capture as a baseline.",
        );
    } else {
        out.push_str("<strong>Failed assets</strong>");
    }
    if health.same_on_both_sides {
        out.push_str(" The baseline failed the same way, so tolerances still apply.");
    }
    out.push_str("<ul>");
    for reason in &health.reasons {
        // The core's sentence, with the asset set in code.
        let s = reason.sentence();
        w!(out, "<li>{} <code>{}</code>{}</li>", s.kind, escape_html(&s.asset), escape_html(&s.rest));
    }
    out.push_str("</ul></div>\n");
    health.unhealthy
}

/// Baseline / current (with region boxes) / diff side by side, then the slider when both sides
/// exist. `lazy` images load only when scrolled near.
/// `aligned`, on the review page, adds the diff against the baseline moved by the page shift.
fn images(out: &mut String, snap: &SnapshotEvidence, dir: &ReportDir, lazy: bool, aligned: Option<&str>) {
    let src = |path: &Option<String>| path.as_deref().and_then(|p| dir.src(p));
    let (baseline, current, diff) = (src(&snap.files.baseline), src(&snap.files.current), src(&snap.files.diff));
    let (bsize, csize) = sizes(snap);
    // The diff covers the canvas both images were padded to.
    let canvas = match (bsize, csize) {
        (Some(b), Some(c)) => Some(Size { width: b.width.max(c.width), height: b.height.max(c.height) }),
        (b, c) => b.or(c),
    };
    // Evidence against an accepted variant shows that variant, and says so.
    let variant_caption = snap.accepted_variant().map(|n| format!("Accepted variant {n}"));
    let figures = [
        ("baseline", variant_caption.as_deref().unwrap_or("Baseline"), baseline.as_deref(), bsize, false),
        ("current", "Current", current.as_deref(), csize, true),
        ("diff", "Diff", diff.as_deref(), canvas, false),
    ];
    let shown = figures.iter().filter(|f| f.2.is_some()).count();
    if shown == 0 {
        if snap.status != Status::Passed {
            out.push_str("<p class=\"more\">No images were kept for this snapshot.</p>\n");
        }
        return;
    }
    let regions = regions(snap);
    let ignored = snap.layers.pixel.as_ref().map_or(&[][..], |p| &p.ignored[..]);
    let name = &snap.name;
    w!(out, "<section class=\"images\"><div class=\"trio{}\">\n", if shown == 1 { " single" } else { "" });
    for (key, caption, src, dims, with_regions) in figures {
        let Some(src) = src else { continue };
        w!(out, "<figure class=\"f-{key}\"><figcaption><b>{caption}</b>");
        if let Some(size) = dims {
            w!(out, "<span>{}×{}</span>", size.width, size.height);
        }
        let labelled = regions.iter().filter(|r| r.classification != Classification::Shift).count();
        let dense = with_regions && labelled > FULL_LABELS_MAX;
        w!(out, "</figcaption><div class=\"frame\"><div class=\"imgbox{}\">", if dense { " dense" } else { "" });
        image_tag(out, src, &format!("{caption} of {name}"), dims, None, lazy);
        if let Some(size) = dims {
            ignored_boxes(out, ignored, size);
        }
        if with_regions && let Some(size) = dims {
            region_boxes(out, regions, size);
        }
        out.push_str("</div></div></figure>\n");
    }
    let shift = snap.layers.pixel.as_ref().and_then(|p| p.shift);
    if let (Some(src), Some(shift), Some(_), Some(_)) = (aligned, shift, &baseline, &current) {
        let moved = if shift.dy > 0 { "down" } else { "up" };
        w!(
            out,
            "<figure class=\"f-aligned\"><figcaption><b>Aligned diff</b><span>baseline moved {moved} {} px below y={}: \
             only what changed is red</span></figcaption><div class=\"frame\"><div class=\"imgbox\">",
            shift.dy.unsigned_abs(),
            shift.below_y
        );
        // Drawn on the canvas, as the diff is: a shift that removes rows leaves the current
        // image shorter than the aligned diff.
        image_tag(out, src, &format!("Aligned diff of {name}"), canvas, None, lazy);
        out.push_str("</div></div></figure>\n");
    }
    out.push_str("</div>\n");
    if !ignored.is_empty() {
        w!(
            out,
            "<div class=\"legend\"><span><i class=\"ig-key\"></i>left out of the comparison (ignoreSelectors, \
             ignoreRegions): {}</span></div>\n",
            plural(ignored.len(), "box", "boxes")
        );
    }
    if !regions.is_empty() && csize.is_some() && current.is_some() {
        out.push_str(
            "<div class=\"legend\"><span><i></i>change</span><span><i class=\"shift\"></i>shift (content only \
             moved)</span><span>boxes are drawn on the current image; numbers match the regions table, hover a box \
             for its elements</span></div>\n",
        );
    }
    out.push_str("</section>\n");
    let sources = [
        ("Baseline", baseline.as_deref(), bsize),
        ("Current", current.as_deref(), csize),
        ("Diff", diff.as_deref(), canvas),
    ];
    native_regions(out, name, &sources, regions, lazy);
    if let (Some(b), Some(c), Some(bs), Some(cs), Some(canvas)) = (&baseline, &current, bsize, csize, canvas) {
        slider(out, name, (b, bs), (c, cs), canvas, lazy);
    }
}

/// Each changed region at full size (one image pixel to one CSS pixel, not scaled to the card),
/// baseline, current and diff side by side, with a margin: where a person reads a one-pixel
/// change the scaled page hides. The browser crops the images the card already shows.
fn native_regions(
    out: &mut String,
    name: &str,
    sources: &[(&str, Option<&str>, Option<Size>)],
    regions: &[Region],
    lazy: bool,
) {
    let changed: Vec<(usize, &Region)> =
        regions.iter().enumerate().filter(|(_, r)| r.classification != Classification::Shift).collect();
    if changed.is_empty() || sources.iter().all(|(_, src, size)| src.is_none() || size.is_none()) {
        return;
    }
    let more = changed.len().saturating_sub(NATIVE_REGIONS_MAX);
    w!(
        out,
        "<details class=\"native\"><summary>Each region at full size <span class=\"n\">{}{}</span></summary>\n",
        plural(changed.len().min(NATIVE_REGIONS_MAX), "region", "regions"),
        if more > 0 { format!(", {more} more in the table") } else { String::new() }
    );
    for (i, region) in changed.into_iter().take(NATIVE_REGIONS_MAX) {
        let (x, y) = (region.x.saturating_sub(NATIVE_MARGIN), region.y.saturating_sub(NATIVE_MARGIN));
        let width = (region.x + region.width + NATIVE_MARGIN - x).min(NATIVE_MAX.0);
        let height = (region.y + region.height + NATIVE_MARGIN - y).min(NATIVE_MAX.1);
        w!(
            out,
            "<div class=\"nregion\"><h4>{} · {}×{} at {},{}</h4><div class=\"ntrio\">",
            i + 1,
            region.width,
            region.height,
            region.x,
            region.y
        );
        for &(caption, src, size) in sources {
            let (Some(src), Some(size)) = (src, size) else { continue };
            // Within this image: a smaller side's image shows what it has.
            let (w, h) = (width.min(size.width.saturating_sub(x)), height.min(size.height.saturating_sub(y)));
            if w == 0 || h == 0 {
                continue;
            }
            w!(
                out,
                "<figure><figcaption>{caption}</figcaption><div class=\"crop\" style=\"width:{w}px;height:{h}px\">\
                 <img src=\"{}\" alt=\"{caption} of {}, region {}\" width=\"{}\" height=\"{}\" style=\"left:-{x}px;top:-{y}px\"{}>\
                 </div></figure>",
                escape_html(src),
                escape_html(name),
                i + 1,
                size.width,
                size.height,
                if lazy { " loading=\"lazy\"" } else { "" }
            );
        }
        out.push_str("</div></div>\n");
    }
    out.push_str("</details>\n");
}

fn image_tag(out: &mut String, src: &str, alt: &str, dims: Option<Size>, width_pct: Option<f64>, lazy: bool) {
    w!(out, "<img src=\"{}\" alt=\"{}\"", escape_html(src), escape_html(alt));
    // Width and height give the box its aspect ratio before the image loads.
    if let Some(size) = dims {
        w!(out, " width=\"{}\" height=\"{}\"", size.width, size.height);
    }
    if let Some(pct) = width_pct {
        w!(out, " style=\"width:{pct:.4}%\"");
    }
    if lazy {
        out.push_str(" loading=\"lazy\"");
    }
    out.push('>');
}

/// The boxes left out of the comparison, hatched, in percent of the image's natural size.
fn ignored_boxes(out: &mut String, boxes: &[[u32; 4]], size: Size) {
    let (width, height) = (f64::from(size.width), f64::from(size.height));
    for &[x, y, w, h] in boxes {
        w!(
            out,
            "<div class=\"ig\" style=\"left:{:.4}%;top:{:.4}%;width:{:.4}%;height:{:.4}%\" \
             title=\"left out of the comparison: {w}×{h} at {x},{y}\"></div>",
            f64::from(x) / width * 100.0,
            f64::from(y) / height * 100.0,
            f64::from(w) / width * 100.0,
            f64::from(h) / height * 100.0,
        );
    }
}

/// Region boxes in percent of the image's natural size, so they follow its displayed size.
fn region_boxes(out: &mut String, regions: &[Region], size: Size) {
    let (width, height) = (f64::from(size.width), f64::from(size.height));
    for (i, region) in regions.iter().enumerate() {
        let Region { x, y, width: w, height: h, .. } = *region;
        let kind = region.classification.word();
        let class = if region.classification == Classification::Shift { "rg shift" } else { "rg" };
        let first = region.elements.first().map_or("", |e| e.selector.as_str());
        let mut title =
            format!("{} {kind} · {first}\n{w}×{h} at {x},{y}, {} px differ", i + 1, grouped(region.diff_pixels));
        for e in &region.elements {
            w!(title, "\n{} {}", e.role.word(), e.selector);
        }
        w!(
            out,
            "<div class=\"{class}\" style=\"left:{:.4}%;top:{:.4}%;width:{:.4}%;height:{:.4}%\" title=\"{}\">\
             <span><b>{}</b><i> {kind} · {}</i></span></div>",
            f64::from(x) / width * 100.0,
            f64::from(y) / height * 100.0,
            f64::from(w) / width * 100.0,
            f64::from(h) / height * 100.0,
            escape_html(&title),
            i + 1,
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
    (baseline, bsize): (&str, Size),
    (current, csize): (&str, Size),
    canvas: Size,
    lazy: bool,
) {
    out.push_str(
        "<section><h4>Slider <span class=\"n\">baseline on the left, current on the right</span></h4>\
         <figure class=\"slider\"><div class=\"frame\"><div class=\"stack\">",
    );
    let share = |size: Size| f64::from(size.width) / f64::from(canvas.width) * 100.0;
    image_tag(out, baseline, &format!("Baseline of {name}"), Some(bsize), Some(share(bsize)), lazy);
    out.push_str("<div class=\"over\">");
    image_tag(out, current, &format!("Current of {name}"), Some(csize), Some(share(csize)), lazy);
    out.push_str(
        "</div><div class=\"handle\"></div></div></div><div class=\"ctl\"><span>baseline</span>\
         <input type=\"range\" min=\"0\" max=\"100\" value=\"50\" aria-label=\"Slider: baseline left, current right\">\
         <span>current</span></div></figure></section>\n",
    );
}

/// Every region with its box, pixels and the elements it maps to.
fn regions_table(out: &mut String, regions: &[Region]) {
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
        let mut names: Vec<String> = r
            .elements
            .iter()
            .take(REGION_ELEMENTS_SHOWN)
            .map(|e| format!("{} <span class=\"project\">{}</span>", escape_html(&e.selector), e.role.word()))
            .collect();
        if r.elements.len() > REGION_ELEMENTS_SHOWN {
            names.push(format!("… {} more", r.elements.len() - REGION_ELEMENTS_SHOWN));
        }
        w!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"val\">{},{} {}×{}</td><td class=\"val\">{}</td><td class=\"sel\">{}</td></tr>\n",
            i + 1,
            r.classification.word(),
            r.x,
            r.y,
            r.width,
            r.height,
            grouped(r.diff_pixels),
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
pub(super) fn missing_card(out: &mut String, index: usize, entry: &MissingBaseline, dir: &ReportDir) {
    let (name, project) = (escape_html(&entry.name), escape_html(&entry.project));
    w!(
        out,
        "<article class=\"card st-missing\" id=\"missing-{index}\" data-status=\"missing\" data-auto=\"false\" data-name=\"{name}\" data-project=\"{project}\">\n\
         <div class=\"head\"><span class=\"badge s-missing\">missing</span><h3>{name}</h3><span class=\"project\">{project}</span></div>\n"
    );
    w!(
        out,
        "<p class=\"verdict\">{}. If the call was removed on purpose, delete <code>{}</code> in the same change; \
         otherwise find out why its test no longer captures it. Approving does nothing for it.</p>\n",
        escape_html(&entry.verdict()),
        escape_html(&entry.files.baseline)
    );
    if let Some(src) = dir.src(&entry.files.baseline) {
        out.push_str(
            "<details class=\"sub\"><summary>Baseline image</summary><div class=\"trio single\"><figure class=\"f-baseline\"><div class=\"frame\"><div class=\"imgbox\">",
        );
        image_tag(out, &src, &format!("Baseline of {}", entry.name), None, None, true);
        out.push_str("</div></div></figure></div></details>\n");
    }
    out.push_str("</article>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_region_labels_name_the_end_of_long_selectors() {
        assert_eq!(
            short_selector("body > div.grid > div.card:nth-of-type(2) > p.price"),
            "… > div.card:nth-of-type(2) > p.price"
        );
        assert_eq!(short_selector("#hero > a"), "#hero > a");
    }
}
