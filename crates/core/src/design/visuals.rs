//! Diagnostic pictures of a design comparison, all on the canonical canvas: an overlay, the SSIM
//! heat map, the content regions and the two images side by side. Drawn here in Rust so the CLI
//! and the MCP server show the same pixels; PNG files only through [`DesignVisuals::write_to`].

use std::path::{Path, PathBuf};

use super::Canvases;
use super::content::match_blocks;
use super::layout::SsimMap;
use super::normalise::{Plane, Rect};
use crate::allowed_roots::check_allowed;
use crate::decode::{Durability, PngCompression, encode_png, write_atomic};
use crate::error::{Error, Result};
use crate::image::RgbaImage;

/// The diagnostic images of one comparison (canonical canvas, 768 px wide).
#[derive(Debug, Clone)]
pub struct DesignVisuals {
    /// Reference in the red channel, aligned candidate in green and blue: grey where they agree,
    /// cyan where only the reference has ink, red where only the candidate has.
    pub overlay: RgbaImage,
    /// The reference faded, tinted yellow → red where local structure (SSIM) differs.
    pub heat_map: RgbaImage,
    /// The reference faded with block outlines: green matched, red missing from the candidate,
    /// blue extra in the candidate; ignored regions filled grey.
    pub content_regions: RgbaImage,
    /// The reference and the aligned candidate next to each other, 8 px apart.
    pub side_by_side: RgbaImage,
}

/// File names [`DesignVisuals::write_to`] uses, in order.
pub const VISUAL_FILE_NAMES: [&str; 4] = ["overlay.png", "heat-map.png", "content-regions.png", "side-by-side.png"];

impl DesignVisuals {
    /// The images with their file names, in [`VISUAL_FILE_NAMES`] order.
    pub fn named(&self) -> [(&'static str, &RgbaImage); 4] {
        [
            (VISUAL_FILE_NAMES[0], &self.overlay),
            (VISUAL_FILE_NAMES[1], &self.heat_map),
            (VISUAL_FILE_NAMES[2], &self.content_regions),
            (VISUAL_FILE_NAMES[3], &self.side_by_side),
        ]
    }

    /// Writes the four PNGs into `dir` (created if missing; checked against
    /// `SIGHTLINE_ALLOWED_ROOTS`) and returns their paths.
    pub fn write_to(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        // Checked before creating anything, so no folder appears outside the allowed roots.
        let dir = check_allowed(dir)?;
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let mut written = Vec::new();
        for (name, image) in self.named() {
            let path = dir.join(name);
            write_atomic(&path, &encode_png(image, PngCompression::Smallest)?, Durability::RunOutput)?;
            written.push(path);
        }
        Ok(written)
    }
}

fn to_image(plane: &Plane) -> RgbaImage {
    let data = plane.rgb.iter().flat_map(|p| [p[0], p[1], p[2], 255]).collect();
    RgbaImage::from_raw(plane.width as u32, plane.height as u32, data).expect("plane sizes are consistent")
}

/// A pixel's luma faded 70 % toward white.
fn faded(luma: u8) -> [u8; 3] {
    let v = (f32::from(luma) * 0.3 + 255.0 * 0.7).round() as u8;
    [v, v, v]
}

fn outline(plane: &mut Plane, rect: Rect, colour: [u8; 3]) {
    let r = rect.clip(plane.width, plane.height);
    if r.area() == 0 {
        return;
    }
    let t = 2.min(r.width()).min(r.height());
    plane.fill_rect(Rect { y1: r.y0 + t, ..r }, colour);
    plane.fill_rect(Rect { y0: r.y1 - t, ..r }, colour);
    plane.fill_rect(Rect { x1: r.x0 + t, ..r }, colour);
    plane.fill_rect(Rect { x0: r.x1 - t, ..r }, colour);
}

/// Draws the four images from the aligned canvases and the SSIM map.
pub(crate) fn draw(c: &Canvases, map: &SsimMap) -> DesignVisuals {
    let (w, h) = (c.width, c.height);
    let overlay = Plane {
        width: w,
        height: h,
        rgb: c.reference_luma.iter().zip(&c.candidate_luma).map(|(&r, &k)| [r, k, k]).collect(),
    };
    let heat = Plane {
        width: w,
        height: h,
        rgb: c
            .reference_luma
            .iter()
            .zip(&map.values)
            .map(|(&l, &s)| {
                let base = faded(l);
                let d = (1.0 - f64::from(s)).clamp(0.0, 1.0);
                if d < 0.05 {
                    return base;
                }
                let alpha = (0.3 + 0.7 * d).min(1.0);
                let tint = [255.0, 255.0 * (1.0 - d), 0.0];
                std::array::from_fn(|i| (f64::from(base[i]) * (1.0 - alpha) + tint[i] * alpha).round() as u8)
            })
            .collect(),
    };
    let mut regions = Plane { width: w, height: h, rgb: c.reference_luma.iter().map(|&l| faded(l)).collect() };
    for (i, p) in regions.rgb.iter_mut().enumerate() {
        if c.ignored[i] {
            *p = [200, 200, 200];
        }
    }
    let matched = match_blocks(&c.reference_blocks, &c.candidate_blocks);
    for (i, block) in c.reference_blocks.iter().enumerate() {
        let colour = if matched.iter().any(|m| m.0 == i) { [40, 170, 70] } else { [220, 40, 40] };
        outline(&mut regions, *block, colour);
    }
    for (j, block) in c.candidate_blocks.iter().enumerate() {
        if !matched.iter().any(|m| m.1 == j) {
            outline(&mut regions, *block, [40, 90, 230]);
        }
    }
    const GAP: usize = 8;
    let mut side = Plane::filled(2 * w + GAP, h, [128, 128, 128]);
    for y in 0..h {
        side.rgb[y * side.width..y * side.width + w].copy_from_slice(&c.reference.rgb[y * w..(y + 1) * w]);
        side.rgb[y * side.width + w + GAP..(y + 1) * side.width].copy_from_slice(&c.candidate.rgb[y * w..(y + 1) * w]);
    }
    DesignVisuals {
        overlay: to_image(&overlay),
        heat_map: to_image(&heat),
        content_regions: to_image(&regions),
        side_by_side: to_image(&side),
    }
}
