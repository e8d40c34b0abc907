//! `sightline diff` as a user runs it: real files in a temp folder, the built binary, exit
//! codes, JSON on stdout and the diff PNG on disk.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use sightline_core::RgbaImage;
use sightline_core::decode::{PngCompression, encode_png, read_image};

use crate::support::{claiming_huge_dimensions, text};

fn sightline(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sightline")).args(args).output().expect("run sightline")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sightline-diff-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_png(path: &Path, image: &RgbaImage) {
    std::fs::write(path, encode_png(image, PngCompression::Smallest).unwrap()).unwrap();
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// The core's one helper for the shared corpora (honours `SIGHTLINE_SHARED`).
#[path = "../../core/tests/corpus.rs"]
mod corpus;

/// pixelmatch's fixtures in the shared corpus. Without them a build marks the tests that carry
/// `cfg_attr(corpus_absent = "pixelmatch", ignore)` ignored; under CI they fail, naming the folder.
fn pixelmatch_fixtures() -> PathBuf {
    corpus::corpus("pixelmatch").join("fixtures")
}

/// A white page with a dark text-like block every 16 rows (distinct rows, like a real page).
fn page(width: u32, height: u32) -> RgbaImage {
    let mut img = RgbaImage::filled(width, height, [255, 255, 255, 255]).unwrap();
    let w = width as usize;
    for y in 0..height as usize {
        if y % 16 < 10 {
            let start = (y * 37) % (w / 2);
            for x in start..start + w / 3 {
                let i = (y * w + x) * 4;
                img.as_bytes_mut()[i..i + 4].copy_from_slice(&[20, 20, 20, 255]);
            }
        }
    }
    img
}

#[test]
fn diff_command_equal_images_exit_0() {
    let dir = temp_dir("equal");
    let a = dir.join("a.png");
    write_png(&a, &page(200, 300));
    let d = dir.join("d.png");
    let out = sightline(&["diff", a.to_str().unwrap(), a.to_str().unwrap(), "--json", "--out", d.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!d.exists(), "equal images get no diff image, like odiff");
    let v = json(&out);
    assert_eq!(v["match"], true);
    assert_eq!(v["diffPixels"], 0);
    assert_eq!(v["totalPixels"], 60_000);
    assert_eq!(v["shape"], Value::Null);

    // The same pixels in other bytes (another compression): both decoded, still equal.
    let b = dir.join("b.png");
    std::fs::write(&b, encode_png(&page(200, 300), PngCompression::Fastest).unwrap()).unwrap();
    assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let out = sightline(&["diff", a.to_str().unwrap(), b.to_str().unwrap(), "--json", "--out", d.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!d.exists());
    assert_eq!(json(&out), v, "the same evidence whether the files are byte-identical or not");
}

#[test]
#[cfg_attr(
    corpus_absent = "pixelmatch",
    ignore = "corpus pixelmatch absent: set SIGHTLINE_SHARED to the folder holding corpora/"
)]
fn diff_command_pixelmatch_fixture_gives_exact_count_and_diff_image() {
    let fixtures = pixelmatch_fixtures();
    let dir = temp_dir("fixture");
    let out_png = dir.join("diff.png");
    let out = sightline(&[
        "diff",
        fixtures.join("1a.png").to_str().unwrap(),
        fixtures.join("1b.png").to_str().unwrap(),
        "--threshold",
        "0.05",
        "--out",
        out_png.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["diffPixels"], 143);
    assert_eq!(v["match"], false);
    assert_eq!(v["sizeChanged"], false);
    let written = read_image(&out_png).unwrap();
    let expected = read_image(&fixtures.join("1diff.png")).unwrap();
    assert!(written == expected, "diff image differs from pixelmatch's 1diff.png");
    // no temp file left next to the output
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

#[test]
#[cfg_attr(
    corpus_absent = "pixelmatch",
    ignore = "corpus pixelmatch absent: set SIGHTLINE_SHARED to the folder holding corpora/"
)]
fn diff_command_diff_mask_draws_only_the_differing_pixels() {
    let fixtures = pixelmatch_fixtures();
    let dir = temp_dir("mask");
    let out_png = dir.join("mask.png");
    let out = sightline(&[
        "diff",
        fixtures.join("1a.png").to_str().unwrap(),
        fixtures.join("1b.png").to_str().unwrap(),
        "--threshold",
        "0.05",
        "--diff-mask",
        "--out",
        out_png.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    // The mask changes the picture, not the count.
    assert_eq!(json(&out)["diffPixels"], 143);
    assert!(read_image(&out_png).unwrap() == read_image(&fixtures.join("1diffmask.png")).unwrap());
}

/// Counts the pixels of `image` that are exactly `rgba`.
fn count_colour(image: &RgbaImage, rgba: [u8; 4]) -> usize {
    image.as_bytes().chunks_exact(4).filter(|p| *p == rgba).count()
}

const RED: [u8; 4] = [255, 0, 0, 255];
const YELLOW: [u8; 4] = [255, 255, 0, 255];

#[test]
#[cfg_attr(
    corpus_absent = "pixelmatch",
    ignore = "corpus pixelmatch absent: set SIGHTLINE_SHARED to the folder holding corpora/"
)]
fn diff_command_include_aa_counts_the_anti_aliased_pixels_as_differences() {
    let fixtures = pixelmatch_fixtures();
    let dir = temp_dir("include-aa");
    let run = |extra: &[&str], out_png: &Path| {
        let (a, b) = (fixtures.join("1a.png"), fixtures.join("1b.png"));
        let mut args = vec!["diff", a.to_str().unwrap(), b.to_str().unwrap(), "--threshold", "0.05", "--json"];
        args.extend_from_slice(extra);
        args.extend(["--out", out_png.to_str().unwrap()]);
        let out = sightline(&args);
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        (json(&out)["diffPixels"].as_u64().unwrap(), read_image(out_png).unwrap())
    };
    let (without, plain) = run(&[], &dir.join("plain.png"));
    let (with, counted) = run(&["--include-aa"], &dir.join("aa.png"));
    // Without the option the anti-aliased pixels are drawn yellow and not counted; with it the
    // same pixels are red and counted: the count grows by exactly the yellow pixels.
    assert_eq!(without, 143);
    assert_eq!(count_colour(&plain, RED), 143);
    let aa = count_colour(&plain, YELLOW);
    assert_eq!(aa, AA_PIXELS_1A_1B);
    assert_eq!(with, 143 + AA_PIXELS_1A_1B as u64);
    assert_eq!(count_colour(&counted, RED), 143 + AA_PIXELS_1A_1B);
    assert_eq!(count_colour(&counted, YELLOW), 0);
}

/// Pixels of pixelmatch's 1a/1b pair that its anti-aliasing test recognises at threshold 0.05
/// (the yellow pixels of the diff image the engine draws).
const AA_PIXELS_1A_1B: usize = 108;

/// 24 × 16, every pixel a different colour: the grey under the diff shows each one.
fn colourful() -> RgbaImage {
    let mut img = RgbaImage::filled(24, 16, [0, 0, 0, 255]).unwrap();
    for (i, px) in img.as_bytes_mut().chunks_exact_mut(4).enumerate() {
        px.copy_from_slice(&[(i * 7 % 256) as u8, (i * 13 % 256) as u8, (i * 29 % 256) as u8, 255]);
    }
    img
}

/// pixelmatch's `drawGrayPixel`: the pixel's luma, faded towards white by `alpha`, truncated.
fn faded_grey(p: &[u8], alpha: f64) -> u8 {
    let [r, g, b, a] = [p[0], p[1], p[2], p[3]].map(f64::from);
    let luma = r * 0.29889531 + g * 0.58662247 + b * 0.11448223;
    (255.0 + (luma - 255.0) * alpha * a / 255.0) as u8
}

#[test]
fn diff_command_alpha_sets_the_opacity_of_the_grey_original() {
    let dir = temp_dir("alpha");
    let (a, b) = (dir.join("a.png"), dir.join("b.png"));
    let base = colourful();
    write_png(&a, &base);
    let mut changed = base.clone();
    // One pixel turned white on a dark spot: a difference no threshold forgives.
    changed.as_bytes_mut()[..4].copy_from_slice(&[255, 255, 255, 255]);
    write_png(&b, &changed);
    for (alpha, arg) in [(0.1, None), (0.5, Some("0.5")), (0.0, Some("0")), (1.0, Some("1"))] {
        let d = dir.join(format!("diff-{alpha}.png"));
        let mut args = vec!["diff", a.to_str().unwrap(), b.to_str().unwrap(), "--json", "--out", d.to_str().unwrap()];
        if let Some(arg) = arg {
            args.extend(["--alpha", arg]);
        }
        let out = sightline(&args);
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(json(&out)["diffPixels"], 1, "alpha {alpha} changes the picture, not the count");
        // The whole diff image, pixel by pixel: red where it differs, every other pixel the
        // baseline's grey at this opacity (white at 0, the plain luma at 1).
        let mut expected = base.clone();
        for (i, px) in expected.as_bytes_mut().chunks_exact_mut(4).enumerate() {
            if i == 0 {
                px.copy_from_slice(&RED);
            } else {
                let v = faded_grey(&base.as_bytes()[i * 4..i * 4 + 4], alpha);
                px.copy_from_slice(&[v, v, v, 255]);
            }
        }
        assert!(read_image(&d).unwrap() == expected, "alpha {alpha}: the diff image is not the expected fade");
    }
    let out = sightline(&["diff", a.to_str().unwrap(), b.to_str().unwrap(), "--alpha", "1.5"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: invalid value '1.5' for '--alpha <ALPHA>': 1.5 is outside 0..1\n\nFor more information, try '--help'.\n"
    );
}

#[test]
fn diff_command_perceptual_tolerates_a_change_below_the_noticeable_difference() {
    let dir = temp_dir("perceptual");
    let (a, b, c) = (dir.join("a.png"), dir.join("b.png"), dir.join("c.png"));
    let (d_pixel, d_perceptual) = (dir.join("pixel.png"), dir.join("perceptual.png"));
    // A flat grey page whose middle 10 × 10 block moved by one step of red: far below ΔE94 1
    // (nobody can see it), yet a difference to pixelmatch at threshold 0.
    let grey = RgbaImage::filled(60, 60, [128, 128, 128, 255]).unwrap();
    let mut nudged = grey.clone();
    let mut recoloured = grey.clone();
    for y in 25..35 {
        for x in 25..35 {
            let i = (y * 60 + x) * 4;
            nudged.as_bytes_mut()[i..i + 4].copy_from_slice(&[129, 128, 128, 255]);
            recoloured.as_bytes_mut()[i..i + 4].copy_from_slice(&[20, 20, 200, 255]);
        }
    }
    write_png(&a, &grey);
    write_png(&b, &nudged);
    write_png(&c, &recoloured);
    let diff = |other: &Path, extra: &[&str], out_png: &Path| {
        let mut args = vec!["diff", a.to_str().unwrap(), other.to_str().unwrap(), "--threshold", "0", "--json"];
        args.extend_from_slice(extra);
        args.extend(["--out", out_png.to_str().unwrap()]);
        sightline(&args)
    };
    let pixel = diff(&b, &[], &d_pixel);
    assert_eq!(pixel.status.code(), Some(1));
    assert_eq!(json(&pixel)["diffPixels"], 100);
    assert_eq!(count_colour(&read_image(&d_pixel).unwrap(), RED), 100);
    let perceptual = diff(&b, &["--perceptual"], &d_perceptual);
    assert_eq!(perceptual.status.code(), Some(0), "{}", text(&perceptual));
    assert_eq!(json(&perceptual)["diffPixels"], 0);
    assert_eq!(json(&perceptual)["match"], true);
    assert!(!d_perceptual.exists(), "no diff image for what the comparator calls equal");
    // A change anyone can see is counted by both, pixel for pixel.
    let seen = diff(&c, &["--perceptual"], &d_perceptual);
    assert_eq!(seen.status.code(), Some(1));
    assert_eq!(json(&seen)["diffPixels"], 100);
    assert_eq!(count_colour(&read_image(&d_perceptual).unwrap(), RED), 100);
}

/// One region as the JSON prints it (no DOM data here, so no elements).
fn region(classification: &str, diff_percent: f64, diff_pixels: u64, [x, y, width, height]: [u32; 4]) -> Value {
    serde_json::json!({"classification": classification, "diffPercent": diff_percent, "diffPixels": diff_pixels,
        "elements": [], "x": x, "y": y, "width": width, "height": height})
}

#[test]
fn diff_command_different_sizes_compare_on_a_padded_canvas() {
    let dir = temp_dir("sizes");
    let (a, b, d) = (dir.join("a.png"), dir.join("b.png"), dir.join("d.png"));
    write_png(&a, &page(200, 300));
    write_png(&b, &page(220, 300));
    let out = sightline(&["diff", a.to_str().unwrap(), b.to_str().unwrap(), "--out", d.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["sizeChanged"], true);
    assert_eq!(v["totalPixels"], 220 * 300);
    assert_eq!(v["baselineSize"]["width"], 200);
    assert_eq!(v["currentSize"]["width"], 220);
    // The 20 columns only the wider image has count whole; the rest is the drawing's own change.
    assert_eq!(v["diffPixels"], 18_894);
    assert_eq!(
        v["regions"],
        Value::Array(vec![
            region("change", 23.773877129581827, 12894, [0, 0, 182, 298]),
            region("change", 100.0, 6000, [200, 0, 20, 300]),
        ])
    );
    let diff = read_image(&d).unwrap();
    assert_eq!((diff.width(), diff.height()), (220, 300));
}

#[test]
fn diff_command_reports_a_page_shift_with_regions_and_shape() {
    let dir = temp_dir("shift");
    let (a, b) = (dir.join("a.png"), dir.join("b.png"));
    let base = page(300, 800);
    write_png(&a, &base);
    // a 30 px banner inserted at y=96 pushes everything below down
    let stride = 300 * 4;
    let mut data = base.as_bytes()[..96 * stride].to_vec();
    data.extend([200u8, 40, 40, 255].repeat(300 * 30));
    data.extend_from_slice(&base.as_bytes()[96 * stride..]);
    write_png(&b, &RgbaImage::from_raw(300, 830, data).unwrap());

    let out = sightline(&["diff", a.to_str().unwrap(), b.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["shift"]["dy"], 30);
    assert_eq!(v["shift"]["belowY"], 96);
    assert_eq!(v["diffPixelsAfterShift"], 300 * 30);
    // The banner is the one change; everything below it is one shift region.
    assert_eq!(
        v["regions"],
        Value::Array(vec![
            region("change", 100.0, 9000, [0, 96, 300, 30]),
            region("shift", 35.208333333333336, 74360, [0, 126, 300, 704]),
        ])
    );
    assert_eq!(v["diffPixels"], 83_360);
    assert_eq!(v["shape"], "large");

    // the human summary says the same in words
    let text = sightline(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert_eq!(
        text,
        "different: 83360 of 249000 pixels (33.478 %), 2 regions, large; size changed 300×800 → 300×830; page shift: content below y=96 moved down 30 px (9000 pixels still differ once undone)
  change x=0 y=96 300×30: 9000 pixels (100.0 %)
  shift  x=0 y=126 300×704: 74360 pixels (35.2 %)
"
    );
}

#[test]
fn diff_command_reads_grey_palette_and_jpeg_inputs() {
    let dir = temp_dir("formats");
    let grey = dir.join("grey.png");
    {
        let file = std::fs::File::create(&grey).unwrap();
        let mut enc = png::Encoder::new(file, 4, 2);
        enc.set_color(png::ColorType::Grayscale);
        enc.set_depth(png::BitDepth::Eight);
        enc.write_header().unwrap().write_image_data(&[0, 50, 100, 255, 0, 50, 100, 255]).unwrap();
    }
    let palette = dir.join("palette.png");
    {
        let file = std::fs::File::create(&palette).unwrap();
        let mut enc = png::Encoder::new(file, 4, 2);
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_palette(vec![0, 0, 0, 50, 50, 50, 100, 100, 100, 255, 255, 255]);
        enc.write_header().unwrap().write_image_data(&[0, 1, 2, 3, 0, 1, 2, 3]).unwrap();
    }
    let out = sightline(&["diff", grey.to_str().unwrap(), palette.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json(&out)["totalPixels"], 8);
    assert_eq!(json(&out)["diffPixels"], 0, "the same greys, whichever way they were stored");

    let jpeg = dir.join("white.jpg");
    image::RgbImage::from_pixel(16, 16, image::Rgb([255, 255, 255])).save(&jpeg).unwrap();
    let white = dir.join("white.png");
    write_png(&white, &RgbaImage::filled(16, 16, [255, 255, 255, 255]).unwrap());
    let out = sightline(&["diff", jpeg.to_str().unwrap(), white.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!((json(&out)["diffPixels"].as_u64(), json(&out)["totalPixels"].as_u64()), (Some(0), Some(256)));
}

#[test]
fn diff_command_bad_input_exits_2_naming_the_file() {
    let dir = temp_dir("bad");
    let good = dir.join("good.png");
    write_png(&good, &page(10, 10));
    let corrupt = dir.join("corrupt.png");
    let mut bytes = std::fs::read(&good).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&corrupt, &bytes).unwrap();
    let text = dir.join("notes.txt");
    std::fs::write(&text, "hello").unwrap();

    let missing = dir.join("missing.png");
    let truncated = "not a readable PNG or JPEG image (unexpected end of file); re-export it as an 8-bit PNG";
    for (first, bad, message) in [
        (&good, &corrupt, truncated),
        (
            &good,
            &text,
            "not a readable PNG or JPEG image (neither a PNG nor a JPEG signature); re-export it as an 8-bit PNG",
        ),
        (&good, &missing, "No such file or directory (os error 2)"),
        // Byte-identical files are decoded once, which still checks them: a damaged file
        // compared with a copy of itself is an error, not a match.
        (&corrupt, &corrupt, truncated),
    ] {
        let out = sightline(&[
            "diff",
            first.to_str().unwrap(),
            bad.to_str().unwrap(),
            "--out",
            dir.join("d.png").to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&out.stderr), format!("sightline: {}: {message}\n", bad.display()));
        assert!(out.stdout.is_empty());
    }
    assert!(!dir.join("d.png").exists(), "nothing written on bad input");

    let out = sightline(&["diff", good.to_str().unwrap(), good.to_str().unwrap(), "--threshold", "1.5"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: invalid value '1.5' for '--threshold <THRESHOLD>': 1.5 is outside 0..1\n\nFor more information, try '--help'.\n"
    );
}

#[test]
fn diff_command_rejects_a_png_header_claiming_huge_dimensions() {
    let dir = temp_dir("huge");
    let good = dir.join("good.png");
    write_png(&good, &page(10, 10));
    // rewrite IHDR to 100000 × 100000 (CRC fixed) — the cap must fire before any allocation
    let bytes = claiming_huge_dimensions(&std::fs::read(&good).unwrap());
    let huge = dir.join("huge.png");
    std::fs::write(&huge, &bytes).unwrap();
    let out = sightline(&["diff", good.to_str().unwrap(), huge.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "sightline: {}: 100000×100000 is 10000000000 pixels, above the limit of 268435456; capture a smaller area (clip) or split the page\n",
            huge.display()
        )
    );
}
