//! Every case of pixelmatch 7.2's own fixtures: the exact mismatch count, a byte-identical diff
//! image, and the same count without an output image; and the same diff image drawn afterwards
//! over the first image from the masks and encoded as it is drawn (what `sightline diff --out`
//! writes).

use serde_json::Value;
use sightline_core::compare::{CompareOptions, compare_images_into_png};
use sightline_core::decode::{decode_image, read_image};
use sightline_core::pixel::{PixelOptions, compare_pixels, compare_pixels_marking_aa};

use crate::corpus::corpus;

fn rgb(v: &Value) -> Option<[u8; 3]> {
    let a = v.as_array()?;
    Some([a[0].as_u64()? as u8, a[1].as_u64()? as u8, a[2].as_u64()? as u8])
}

/// pixelmatch options from a case; `null` means "the default".
fn options(case: &Value) -> PixelOptions {
    let o = &case["options"];
    let mut opts = PixelOptions::default();
    if let Some(t) = o["threshold"].as_f64() {
        opts.threshold = t;
    }
    if let Some(b) = o["includeAA"].as_bool() {
        opts.include_aa = b;
    }
    if let Some(a) = o["alpha"].as_f64() {
        opts.alpha = a;
    }
    if let Some(c) = rgb(&o["aaColor"]) {
        opts.aa_color = c;
    }
    if let Some(c) = rgb(&o["diffColor"]) {
        opts.diff_color = c;
    }
    opts.diff_color_alt = rgb(&o["diffColorAlt"]);
    if let Some(b) = o["diffMask"].as_bool() {
        opts.diff_mask = b;
    }
    opts
}

#[test]
#[cfg_attr(
    corpus_absent = "pixelmatch",
    ignore = "corpus pixelmatch absent: set SIGHTLINE_SHARED to the folder holding corpora/"
)]
fn pixelmatch_conformance_all_cases_exact_count_and_diff_bytes() {
    let dir = corpus("pixelmatch");
    let cases: Value = serde_json::from_slice(&std::fs::read(dir.join("cases.json")).unwrap()).unwrap();
    let cases = cases["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 12);
    let mut failures = Vec::new();
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let a = read_image(&dir.join(case["img1"].as_str().unwrap())).unwrap();
        let b = read_image(&dir.join(case["img2"].as_str().unwrap())).unwrap();
        let expected_count = case["expected_mismatch"].as_u64().unwrap();
        let opts = options(case);
        let (w, h) = (a.width() as usize, a.height() as usize);
        let mut out = vec![0u8; w * h * 4];
        let with_output = compare_pixels(a.as_bytes(), b.as_bytes(), w, h, &opts, Some(&mut out)).unwrap();
        let without = compare_pixels(a.as_bytes(), b.as_bytes(), w, h, &opts, None).unwrap();
        let expected = read_image(&dir.join(case["expected_diff_image"].as_str().unwrap())).unwrap();
        // Same size first: zipping rows of different lengths would compare only the shorter.
        assert_eq!((b.width(), b.height()), (a.width(), a.height()), "{id}: the pair differs in size");
        assert_eq!((expected.width(), expected.height()), (a.width(), a.height()), "{id}: expected diff size");
        assert_eq!(out.len(), expected.as_bytes().len(), "{id}: diff image length");
        let differing_bytes = out.iter().zip(expected.as_bytes()).filter(|(x, y)| x != y).count();
        let (marked, aa) = compare_pixels_marking_aa(a.as_bytes(), b.as_bytes(), w, h, &opts).unwrap();
        let compare = CompareOptions { pixel: opts.clone(), ..CompareOptions::default() };
        // Equal images get no diff image.
        let differing_over = match compare_images_into_png(a.view(), b.view(), &compare).unwrap().1 {
            Some(png) => {
                let over = decode_image(&png, std::path::Path::new("diff.png")).unwrap();
                over.as_bytes().iter().zip(expected.as_bytes()).filter(|(x, y)| x != y).count()
            }
            None if expected_count == 0 => 0,
            None => expected.as_bytes().len(),
        };
        if with_output.diff_pixels != expected_count
            || without.diff_pixels != expected_count
            || marked.diff_pixels != expected_count
            || differing_bytes != 0
            || differing_over != 0
        {
            failures.push(format!(
                "{id}: count {} / {} (no output) / {} (marking), expected {expected_count}; {differing_bytes} diff-image \
                 bytes differ, {differing_over} drawn over the first image",
                with_output.diff_pixels, without.diff_pixels, marked.diff_pixels
            ));
        }
        assert_eq!(aa.count(), with_output.aa_pixels, "{id}: the AA mask holds every uncounted AA pixel");
        assert_eq!(with_output.mask.count(), with_output.diff_pixels, "{id}: mask holds every counted pixel");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
