//! `sightline diff A B`: a one-off comparison of two image files with the full pixel evidence
//! (regions, page shift, shape), printed for people or as one JSON object.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use sightline_core::compare::{
    Comparator, CompareOptions, ImageComparison, compare_images, compare_images_into_png, equal_images,
};
use sightline_core::decode::{DecodedPair, Durability, check_image, decode_pair, write_atomic};
use sightline_core::pixel::PixelOptions;
use sightline_core::regions::Classification;
use sightline_core::shape::Shape;

use crate::exit;

#[derive(Args)]
pub struct DiffArgs {
    /// The baseline (expected) image.
    baseline: PathBuf,
    /// The current (actual) image.
    current: PathBuf,
    /// Write the diff image here (PNG), when the images differ.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Per-pixel colour tolerance, 0..1 (pixelmatch scale).
    #[arg(long, default_value_t = 0.1, value_parser = unit_interval)]
    threshold: f64,
    /// Count anti-aliased pixels as differences.
    #[arg(long)]
    include_aa: bool,
    /// Opacity of the original image under the diff, 0..1.
    #[arg(long, default_value_t = 0.1, value_parser = unit_interval)]
    alpha: f64,
    /// Draw only the differing pixels, on a transparent background.
    #[arg(long)]
    diff_mask: bool,
    /// Use the perceptual comparator (tolerates anti-aliasing and sub-pixel text noise).
    #[arg(long)]
    perceptual: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn unit_interval(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number; give a value between 0 and 1"))?;
    if (0.0..=1.0).contains(&v) { Ok(v) } else { Err(format!("{v} is outside 0..1")) }
}

pub fn run(args: &DiffArgs) -> Result<u8> {
    let options = CompareOptions {
        pixel: PixelOptions {
            threshold: args.threshold,
            include_aa: args.include_aa,
            alpha: args.alpha,
            diff_mask: args.diff_mask,
            ..PixelOptions::default()
        },
        comparator: if args.perceptual { Comparator::Perceptual } else { Comparator::Pixelmatch },
        ..CompareOptions::default()
    };
    let (baseline_bytes, current_bytes) = (FileBytes::open(&args.baseline)?, FileBytes::open(&args.current)?);
    let (comparison, diff_png) = if *baseline_bytes == *current_bytes {
        // Byte-identical files are one image (a re-render of an unchanged page usually encodes to
        // the same bytes): decoded once, which still checks the file, without keeping its pixels.
        let (width, height) = check_image(&baseline_bytes, &args.baseline)?;
        (equal_images(width, height, &options), None)
    } else {
        // Decoding is most of the time on big pages: both files at once, and the same pixels in
        // other bytes are found without a second whole image.
        match decode_pair(&baseline_bytes, &args.baseline, &current_bytes, &args.current)? {
            DecodedPair::Same { width, height } => (equal_images(width, height, &options), None),
            // Like odiff, equal images get no diff image: there is nothing to look at. When they
            // differ, the diff image is encoded as it is drawn.
            DecodedPair::Both(baseline, current) if args.out.is_some() => {
                compare_images_into_png(baseline.view(), current.view(), &options)?
            }
            DecodedPair::Both(baseline, current) => {
                let (comparison, _) = compare_images(baseline.view(), current.view(), &options, false)?;
                (comparison, None)
            }
        }
    };
    if let (Some(path), Some(png), false) = (&args.out, diff_png, comparison.matched) {
        write_atomic(path, &png, Durability::RunOutput)
            .with_context(|| format!("writing the diff image to {}", path.display()))?;
    }

    let mut stdout = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut stdout, &comparison)?;
        writeln!(stdout)?;
    } else {
        write!(stdout, "{}", describe(&comparison))?;
        if comparison.matched && args.out.is_some() {
            writeln!(stdout, "no diff image written: the images are equal")?;
        }
    }
    Ok(if comparison.matched { exit::OK } else { exit::CHANGED })
}

/// An input file's bytes. A regular file is mapped rather than read: its bytes stay in the
/// kernel's page cache instead of being copied into new memory, which the kernel clears first —
/// on a long page that copy costs a fifth of a comparison whose pixels turn out the same.
enum FileBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl FileBytes {
    fn open(path: &Path) -> Result<Self, sightline_core::Error> {
        let io = |e| sightline_core::Error::io(path, e);
        let mut file = std::fs::File::open(path).map_err(io)?;
        // SAFETY: the map is private and read-only. Were another program to shorten the file
        // while it is compared, reading past its new end would stop this process (SIGBUS); a
        // file rewritten under a comparison gives no meaningful answer either way, and the
        // CLI writes nothing in place.
        match unsafe { memmap2::Mmap::map(&file) } {
            Ok(map) => Ok(Self::Mapped(map)),
            // Pipes and other files that cannot be mapped are read.
            Err(_) => {
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes).map_err(io)?;
                Ok(Self::Read(bytes))
            }
        }
    }
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Self::Mapped(map) => map,
            Self::Read(bytes) => bytes,
        }
    }
}

/// The human summary: one verdict line, then the regions.
fn describe(c: &ImageComparison) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    if c.matched {
        let _ = writeln!(s, "match: {} × {}, no differing pixels", c.current_size.width, c.current_size.height);
        return s;
    }
    let shape = match c.shape {
        Some(Shape::Concentrated) => "concentrated",
        Some(Shape::Scattered) => "scattered",
        Some(Shape::Large) => "large",
        None => "",
    };
    let _ = write!(
        s,
        "different: {} of {} pixels ({:.3} %), {} region{}, {shape}",
        c.diff_pixels,
        c.total_pixels,
        c.diff_percent,
        c.regions.len(),
        if c.regions.len() == 1 { "" } else { "s" }
    );
    if c.size_changed {
        let _ = write!(
            s,
            "; size changed {}×{} → {}×{}",
            c.baseline_size.width, c.baseline_size.height, c.current_size.width, c.current_size.height
        );
    }
    if let Some(shift) = c.shift {
        let direction = if shift.dy > 0 { "down" } else { "up" };
        let _ = write!(
            s,
            "; page shift: content below y={} moved {direction} {} px ({} pixels still differ once undone)",
            shift.below_y,
            shift.dy.unsigned_abs(),
            c.diff_pixels_after_shift
        );
    }
    s.push('\n');
    for r in &c.regions {
        let kind = match r.classification {
            Classification::Change => "change",
            Classification::Shift => "shift",
            Classification::Rendering => "rendering",
        };
        let _ = writeln!(
            s,
            "  {kind:<6} x={} y={} {}×{}: {} pixels ({:.1} %)",
            r.x, r.y, r.width, r.height, r.diff_pixels, r.diff_percent
        );
    }
    s
}
