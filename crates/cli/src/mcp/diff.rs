//! `get_diff`: the images of one snapshot, sized so a model can read them (03-mcp.md, "get_diff:
//! images a model can actually read"). The crop geometry is `sightline_core::crops`; this file
//! loads the run's PNGs, cuts and samples them, and says in text what each image is.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use rmcp::model::ContentBlock;
use sightline_core::crops::{self, Budget, Crop, Rect, Region, Skipped};
use sightline_core::decode::{PngCompression, encode_png, read_image};
use sightline_core::image::{Filter, RgbaImage, resize};
use sightline_core::regions::Classification;
use sightline_core::results::{MissingBaseline, Results};
use sightline_core::shift::PageShift;
use sightline_core::snapshot::{SnapshotEvidence, SnapshotFiles, snapshot_label};
use sightline_core::verdict::Status;

use super::view::Project;

/// What to show: the whole page (with crops), one region's crop, or a band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Page,
    Region(usize),
    Band { y: u32, height: Option<u32> },
}

/// Regions listed in text.
const LISTED_REGIONS: usize = 20;
const KINDS: [&str; 3] = ["baseline", "current", "diff"];

struct Loaded {
    kind: &'static str,
    image: RgbaImage,
}

/// The content blocks of `get_diff`, or the message of a clear error.
pub fn get_diff(
    project: &Project,
    results: &Results,
    name: &str,
    project_name: Option<&str>,
    request: Request,
) -> Result<Vec<ContentBlock>, String> {
    let wanted = |n: &str, p: &str| n == name && project_name.is_none_or(|want| p == want);
    let matches: Vec<&SnapshotEvidence> = results.snapshots.iter().filter(|s| wanted(&s.name, &s.project)).collect();
    let Some(snap) = matches.first() else {
        if let Some(missing) = results.missing_baselines.iter().find(|m| wanted(&m.name, &m.project)) {
            return missing_baseline(project, missing);
        }
        return Err(super::view::not_in_run(results, name, project_name));
    };
    let mut head = format!("{} [{}]: {}", snapshot_label(name, &snap.project), snap.status, snap.verdict);
    if matches.len() > 1 {
        let others: Vec<&str> = matches[1..].iter().map(|s| s.project.as_str()).collect();
        head.push_str(&format!(
            "\nAlso captured in project(s) {}; pass `project` to see one of them.",
            others.join(", ")
        ));
    }
    let (images, problems) = load(project, &snap.files);
    if !problems.is_empty() {
        head.push_str(&format!("\n{}", problems.join("\n")));
    }
    if images.is_empty() {
        return Err(format!("{head}\nNo images to show for this snapshot."));
    }
    // The diff canvas is the larger size after a size change.
    let page =
        images.iter().find(|l| l.kind == "diff").map(|l| (l.image.width(), l.image.height())).unwrap_or_else(|| {
            images.iter().fold((0, 0), |(w, h), l| (w.max(l.image.width()), h.max(l.image.height())))
        });
    let found = snap.layers.pixel.as_ref().map_or(&[][..], |p| &p.regions[..]);
    let shift = snap.layers.pixel.as_ref().and_then(|p| p.shift);
    let regions: Vec<Region> = found.iter().map(region_of).collect();
    let budget = Budget::default();
    let mut out = Vec::new();
    match request {
        Request::Region(index) => {
            let Some(region) = regions.get(index) else {
                return Err(format!(
                    "{head}\nregion {index} does not exist: this snapshot has {} region(s) (indices from 0).",
                    regions.len()
                ));
            };
            let Some(crop) = crops::region_crop(page, index, region.rect, &budget) else {
                return Err(format!("{head}\nregion {index} lies outside the {}×{} page.", page.0, page.1));
            };
            out.push(ContentBlock::text(format!("{head}\nRegion {index}: {}", found[index].describe())));
            render_crop(&mut out, &images, &crop, "Crop of region", page, shift)?;
        }
        Request::Band { y, height } => {
            let Some(crop) = crops::band(page, y, height, &budget) else {
                return Err(format!("{head}\ny={y} is below the {}×{} page.", page.0, page.1));
            };
            out.push(ContentBlock::text(head));
            render_crop(&mut out, &images, &crop, "Band", page, shift)?;
        }
        Request::Page => {
            if snap.status == Status::Passed {
                head.push_str(
                    "\nNo current or diff image: the capture passed, so the run kept only the baseline (they match within the tolerances).",
                );
            }
            out.push(ContentBlock::text(head));
            let scale = crops::page_scale(page.0, page.1);
            for l in &images {
                let (w, h) = (l.image.width(), l.image.height());
                let (ow, oh) = crops::scaled(w, h, scale);
                let shown = if (ow, oh) == (w, h) {
                    "native scale".to_string()
                } else {
                    format!("{scale:.2} scale ({ow}×{oh})")
                };
                out.push(ContentBlock::text(format!("{}, whole page {w}×{h} shown at {shown}", l.kind)));
                let sampled = sample(&l.image, Rect::new(0, 0, w, h), ow, oh)?;
                out.push(png_block(&sampled)?);
            }
            out.push(ContentBlock::text(region_list(found)));
            if !crops::needs_crops(page.0, page.1) {
                return Ok(out);
            }
            let plan = crops::plan(page, &regions, &budget);
            let count = plan.crops.len();
            for (i, crop) in plan.crops.iter().enumerate() {
                render_crop(&mut out, &images, crop, &format!("Crop {} of {count}", i + 1), page, shift)?;
            }
            let mut lines = Vec::new();
            for (reason, why) in [
                (Skipped::CropLimit, "at most 3 crops"),
                (Skipped::PixelBudget, "the crops would pass 2,000,000 px per image"),
            ] {
                let left: Vec<String> =
                    plan.not_cropped.iter().filter(|(_, r)| *r == reason).map(|(i, _)| i.to_string()).collect();
                if !left.is_empty() {
                    lines.push(format!("Not cropped ({why}): regions {}.", left.join(", ")));
                }
            }
            if !lines.is_empty() {
                lines.push("See one with get_diff region: <index>, or a band with y: <page row>.".into());
                out.push(ContentBlock::text(lines.join("\n")));
            }
        }
    }
    Ok(out)
}

/// A missing baseline: only the committed baseline image.
fn missing_baseline(project: &Project, missing: &MissingBaseline) -> Result<Vec<ContentBlock>, String> {
    let who = snapshot_label(&missing.name, &missing.project);
    let path = project.root.join(&missing.files.baseline);
    let image = read_image(&path)
        .map_err(|e| format!("{who} [missing]: no capture in this run, and its baseline cannot be read: {e}"))?;
    let (w, h) = (image.width(), image.height());
    let scale = crops::page_scale(w, h);
    let (ow, oh) = crops::scaled(w, h, scale);
    let sampled = sample(&image, Rect::new(0, 0, w, h), ow, oh)?;
    Ok(vec![
        ContentBlock::text(format!(
            "{who} [missing]: {}, so there is no current image or diff.\ncommitted baseline {}, whole page {w}×{h} shown at {}",
            missing.verdict(),
            path.display(),
            if (ow, oh) == (w, h) { "native scale".to_string() } else { format!("{scale:.2} scale ({ow}×{oh})") }
        )),
        png_block(&sampled)?,
    ])
}

/// The PNG images the run left (`.slcap` captures are not images), and what could not be read.
fn load(project: &Project, files: &SnapshotFiles) -> (Vec<Loaded>, Vec<String>) {
    let mut images = Vec::new();
    let mut problems = Vec::new();
    for (kind, file) in KINDS.into_iter().zip([&files.baseline, &files.current, &files.diff]) {
        let Some(rel) = file else { continue };
        if !rel.to_ascii_lowercase().ends_with(".png") {
            continue;
        }
        let path = project.root.join(rel);
        match read_image(&path) {
            Ok(image) => images.push(Loaded { kind, image }),
            Err(e) => problems.push(format!("{kind}: cannot read {} ({e})", path.display())),
        }
    }
    (images, problems)
}

fn region_of(r: &sightline_core::regions::Region) -> Region {
    Region { rect: Rect::new(r.x, r.y, r.width, r.height), shift: r.classification == Classification::Shift }
}

fn region_list(regions: &[sightline_core::regions::Region]) -> String {
    if regions.is_empty() {
        return "Regions: none.".into();
    }
    let mut lines = vec![format!("Regions ({} in all, index: box, classification, first selector):", regions.len())];
    for (i, r) in regions.iter().take(LISTED_REGIONS).enumerate() {
        lines.push(format!("{i}: {}", r.describe()));
    }
    if regions.len() > LISTED_REGIONS {
        lines.push(format!("… {} more (see explain_snapshot)", regions.len() - LISTED_REGIONS));
    }
    lines.join("\n")
}

/// Where the baseline showed what `area` of the current page shows: after a page shift, an area
/// below the shift line held its content `dy` rows higher (lower for a negative shift).
fn baseline_area(area: Rect, shift: Option<PageShift>) -> Rect {
    match shift {
        Some(s) if area.y >= s.below_y => {
            Rect::new(area.x, area.y.saturating_add_signed(-s.dy), area.width, area.height)
        }
        _ => area,
    }
}

/// One crop as one image per kind, each preceded by what it is. After a page shift the baseline
/// is cut where the crop's content was, so both sides show the same content.
fn render_crop(
    out: &mut Vec<ContentBlock>,
    images: &[Loaded],
    crop: &Crop,
    label: &str,
    page: (u32, u32),
    shift: Option<PageShift>,
) -> Result<(), String> {
    let a = crop.area;
    let mut about = format!("{label}: page x={} y={} {}×{}", a.x, a.y, a.width, a.height);
    if crop.step == 1 {
        about.push_str(" at native scale");
    } else {
        about.push_str(&format!(" sampled at 1/{} (the area is wider than 1280 px)", crop.step));
    }
    if !crop.regions.is_empty() {
        let list: Vec<String> = crop.regions.iter().map(usize::to_string).collect();
        about.push_str(&format!(", regions {}", list.join(", ")));
    }
    if let Some(y) = crop.continue_y {
        about.push_str(&format!(". The area continues below: call get_diff with y: {y} to see the rest"));
    }
    for l in images {
        let bounds = Rect::new(0, 0, l.image.width(), l.image.height());
        let shown = if l.kind == "baseline" { baseline_area(a, shift) } else { a };
        // The shift that moved this cut, when it did.
        let moved = shift.filter(|_| shown != a);
        let a = shown;
        let Some(cut) = a.intersect(&bounds) else {
            out.push(ContentBlock::text(format!(
                "{about} — {}: none; the {} capture ({}×{}) has no pixels there (the page is {}×{} after the size change)",
                l.kind,
                l.kind,
                bounds.width,
                bounds.height,
                page.0,
                page.1
            )));
            continue;
        };
        let mut what = format!("{about} — {}", l.kind);
        if let Some(s) = moved {
            what.push_str(&format!(
                ", cut at y={} where this content was before the page shift (content below y={} moved {} {} px), so it shows the same content as the others",
                a.y,
                s.below_y,
                if s.dy > 0 { "down" } else { "up" },
                s.dy.unsigned_abs()
            ));
        }
        if cut != a {
            what.push_str(&format!(
                "; the {} capture is only {}×{}, so this shows its part x={} y={} {}×{} and it has no pixels in the rest",
                l.kind, bounds.width, bounds.height, cut.x, cut.y, cut.width, cut.height
            ));
        }
        out.push(ContentBlock::text(what));
        let sampled = sample(&l.image, cut, cut.width.div_ceil(crop.step), cut.height.div_ceil(crop.step))?;
        out.push(png_block(&sampled)?);
    }
    Ok(())
}

/// `area` of `image` as an `ow`×`oh` image: a copy at native size, else the average of the page
/// pixels each image pixel covers (box filter).
fn sample(image: &RgbaImage, area: Rect, ow: u32, oh: u32) -> Result<RgbaImage, String> {
    resize(image.view(), area, ow, oh, Filter::Box).map_err(|e| format!("cannot sample an image: {e}"))
}

/// A PNG file as an image block, its bytes as they are (no decode and re-encode), with its size
/// from the IHDR header.
pub(super) fn png_file_block(path: &std::path::Path) -> Result<(ContentBlock, u32, u32), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" || &bytes[12..16] != b"IHDR" {
        return Err(format!("{}: not a PNG", path.display()));
    }
    let side = |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let (width, height) = (side(16), side(20));
    Ok((ContentBlock::image(BASE64.encode(&bytes), "image/png"), width, height))
}

pub(super) fn png_block(image: &RgbaImage) -> Result<ContentBlock, String> {
    let png = encode_png(image, PngCompression::Fastest).map_err(|e| format!("cannot encode an image: {e}"))?;
    Ok(ContentBlock::image(BASE64.encode(&png), "image/png"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_averages_boxes() {
        // 4×2: left half black, right half white; sampled 2×1.
        let mut data = Vec::new();
        for _ in 0..2 {
            for x in 0..4 {
                let v = if x < 2 { 0 } else { 255 };
                data.extend_from_slice(&[v, v, v, 255]);
            }
        }
        let image = RgbaImage::from_raw(4, 2, data).unwrap();
        let small = sample(&image, Rect::new(0, 0, 4, 2), 2, 1).unwrap();
        assert_eq!(small.as_bytes(), &[0, 0, 0, 255, 255, 255, 255, 255]);
        let cut = sample(&image, Rect::new(1, 0, 2, 2), 2, 2).unwrap();
        assert_eq!(cut.row(1), &[0, 0, 0, 255, 255, 255, 255, 255]);
    }
}
