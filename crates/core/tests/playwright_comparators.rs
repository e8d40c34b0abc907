//! Playwright's image-comparator fixtures (`tests/image_tools`): 12 pairs that must match
//! (anti-aliasing, WebKit rendering artefacts) and 9 that must fail (colour changes, SSIM traps),
//! with the counts of Playwright's own ssim-cie94 comparator. Exact counts are asserted for the
//! perceptual comparator and for the pixelmatch-compatible test at thresholds 0.1 and 0.2.
//!
//! The perceptual comparator pads both images as Playwright does (a 15-pixel two-colour
//! pattern shared by both sides, see its module doc), so its counts are Playwright's exactly,
//! all 21 of them: every should-match pair reports no change, every should-fail pair a change.
//! The padding is what hides `webkit-corner-2x` (a 2 × 2 corner block 169 → 144 grey,
//! ΔE94 ≈ 9, in an otherwise flat corner) and what tolerates 76 border pixels of
//! `julia-ssim-trap/1` (400 changed, 324 counted); the flip side, changes hugging the edge
//! going unseen, is pinned by the perceptual module's unit tests.

use std::path::Path;

use serde_json::Value;
use sightline_core::RgbaImage;
use sightline_core::decode::read_image;
use sightline_core::perceptual::{PerceptualOptions, compare_perceptual};
use sightline_core::pixel::{PixelOptions, compare_pixels};

use crate::corpus::corpus;

/// Per case: perceptual count, pixelmatch count at threshold 0.1, and at 0.2.
const EXPECTED: [(&str, u64, u64, u64); 21] = [
    ("should-match/crbug-919955/example-1", 0, 0, 0),
    ("should-match/crbug-919955/example-2", 0, 0, 0),
    ("should-match/looks-same-tests/antialiasing", 0, 0, 0),
    ("should-match/looks-same-tests/antialiasing-tolerance-1", 0, 0, 0),
    ("should-match/looks-same-tests/antialiasing-tolerance-2", 0, 0, 0),
    ("should-match/tiny-antialiasing-sample/tiny", 0, 0, 0),
    ("should-match/trivial/black", 0, 0, 0),
    ("should-match/trivial/white", 0, 0, 0),
    ("should-match/webkit-rendering-artifacts/webkit-corner-2x", 0, 0, 0),
    ("should-match/webkit-rendering-artifacts/webkit-corner-pixel", 0, 0, 0),
    ("should-match/webkit-rendering-artifacts/webkit-four-pixels", 0, 0, 0),
    ("should-match/webkit-rendering-artifacts/webkit-pixel", 0, 0, 0),
    ("should-fail/julia-ssim-trap/1", 324, 0, 0),
    ("should-fail/looks-same-tests/blue", 1300, 1300, 0),
    ("should-fail/looks-same-tests/green", 1300, 1300, 1300),
    ("should-fail/looks-same-tests/no-caret", 1, 1, 1),
    ("should-fail/looks-same-tests/red", 1300, 1300, 1300),
    ("should-fail/original-ssim-trap/sample", 10000, 10000, 0),
    ("should-fail/trivial/equal-luma", 10000, 10000, 10000),
    ("should-fail/trivial/opposite", 400, 400, 400),
    ("should-fail/trivial/single-red-pixel", 1, 1, 1),
];

struct Case {
    name: String,
    should_match: bool,
    /// The baseline: `img1` of both comparators.
    expected: RgbaImage,
    actual: RgbaImage,
    case: Value,
}

fn load(dir: &Path) -> Vec<Case> {
    let cases: Value = serde_json::from_slice(&std::fs::read(dir.join("cases.json")).unwrap()).unwrap();
    let cases = cases["cases"].as_array().unwrap();
    assert_eq!(cases.len(), EXPECTED.len());
    cases
        .iter()
        .map(|c| {
            let file = |key: &str| read_image(&dir.join(c[key].as_str().unwrap())).unwrap();
            let (expected, actual) = (file("expected"), file("actual"));
            assert_eq!((expected.width(), expected.height()), (actual.width(), actual.height()));
            Case {
                name: c["name"].as_str().unwrap().to_owned(),
                should_match: match c["expectation"].as_str().unwrap() {
                    "should-match" => true,
                    "should-fail" => false,
                    other => panic!("unknown expectation {other}"),
                },
                expected,
                actual,
                case: c.clone(),
            }
        })
        .collect()
}

/// The perceptual count, checked to be the same with and without a diff image, in the mask,
/// and painted red exactly once per counted pixel.
fn perceptual(c: &Case) -> u64 {
    let (w, h) = (c.expected.width() as usize, c.expected.height() as usize);
    let (a, b) = (c.expected.as_bytes(), c.actual.as_bytes());
    let mut out = vec![0u8; a.len()];
    let opts = PerceptualOptions::default();
    let with_output = compare_perceptual(a, b, w, h, &opts, Some(&mut out)).unwrap();
    let without = compare_perceptual(a, b, w, h, &opts, None).unwrap();
    assert_eq!(with_output.diff_pixels, without.diff_pixels, "{}: the output image changes nothing", c.name);
    assert_eq!(with_output.mask.count(), with_output.diff_pixels, "{}: mask holds every counted pixel", c.name);
    let red = out.chunks_exact(4).filter(|p| p == &[255, 0, 0, 255]).count() as u64;
    assert_eq!(red, with_output.diff_pixels, "{}: one red pixel per counted difference", c.name);
    with_output.diff_pixels
}

fn pixelmatch(c: &Case, threshold: f64) -> u64 {
    let (w, h) = (c.expected.width() as usize, c.expected.height() as usize);
    let opts = PixelOptions { threshold, ..PixelOptions::default() };
    compare_pixels(c.expected.as_bytes(), c.actual.as_bytes(), w, h, &opts, None).unwrap().diff_pixels
}

/// "ok" when a count agrees with the case's label (0 for should-match, > 0 for should-fail).
fn verdict(should_match: bool, count: u64) -> &'static str {
    if (count == 0) == should_match { "ok" } else { "WRONG" }
}

/// (should-match pairs that pass, should-fail pairs that fail) for one comparator's counts.
fn scoreboard(cases: &[Case], counts: &[u64]) -> (usize, usize) {
    let ok = |m: bool| cases.iter().zip(counts).filter(|(c, n)| c.should_match == m && (**n == 0) == m).count();
    (ok(true), ok(false))
}

/// Asserts that `counts` equal one column of [`EXPECTED`], paired with the corpus's own case
/// names (so a reordered or renamed case fails too, and a failure shows which case moved).
fn assert_column(cases: &[Case], counts: &[u64], column: impl Fn(&(&str, u64, u64, u64)) -> u64) {
    assert_eq!(counts.len(), cases.len());
    let measured: Vec<(&str, u64)> = cases.iter().map(|c| c.name.as_str()).zip(counts.iter().copied()).collect();
    let expected: Vec<(&str, u64)> = EXPECTED.iter().map(|e| (e.0, column(e))).collect();
    assert_eq!(measured, expected);
}

#[test]
#[cfg_attr(
    corpus_absent = "playwright-image-tools",
    ignore = "corpus playwright-image-tools absent: set SIGHTLINE_SHARED to the folder holding corpora/"
)]
fn perceptual_playwright_pairs_match_and_fail_as_labelled() {
    let dir = corpus("playwright-image-tools");
    let cases = load(&dir);
    let counts: Vec<u64> = cases.iter().map(perceptual).collect();
    eprintln!("{:<58} {:>10} {:>10}  verdict", "case", "perceptual", "ssim-cie94");
    for (c, n) in cases.iter().zip(&counts) {
        let reference = c.case["ssim_cie94_count"].as_u64().unwrap();
        eprintln!("{:<58} {n:>10} {reference:>10}  {}", c.name, verdict(c.should_match, *n));
    }

    assert_column(&cases, &counts, |e| e.1);
    // Playwright's ssim-cie94 counts, all 21 (not only the verdicts).
    let reference: Vec<u64> = cases.iter().map(|c| c.case["ssim_cie94_count"].as_u64().unwrap()).collect();
    assert_column(&cases, &reference, |e| e.1);
    for (c, n) in cases.iter().zip(&counts) {
        assert_eq!(verdict(c.should_match, *n), "ok", "{}: {n} pixels against its label", c.name);
    }
    // Every should-match pair passes, every should-fail pair fails.
    assert_eq!(scoreboard(&cases, &counts), (12, 9));
}

#[test]
#[cfg_attr(
    corpus_absent = "playwright-image-tools",
    ignore = "corpus playwright-image-tools absent: set SIGHTLINE_SHARED to the folder holding corpora/"
)]
fn pixelmatch_playwright_pairs_tolerate_anti_aliasing_but_miss_ssim_traps() {
    let dir = corpus("playwright-image-tools");
    let cases = load(&dir);
    let t01: Vec<u64> = cases.iter().map(|c| pixelmatch(c, 0.1)).collect();
    let t02: Vec<u64> = cases.iter().map(|c| pixelmatch(c, 0.2)).collect();
    eprintln!("{:<58} {:>8} {:>8}", "case", "t=0.1", "t=0.2");
    for ((c, a), b) in cases.iter().zip(&t01).zip(&t02) {
        let (va, vb) = (verdict(c.should_match, *a), verdict(c.should_match, *b));
        eprintln!("{:<58} {a:>8} {b:>8}  {va} / {vb}", c.name);
    }
    let (board01, board02) = (scoreboard(&cases, &t01), scoreboard(&cases, &t02));
    eprintln!("should-match passing of 12, should-fail failing of 9: t=0.1 {board01:?}, t=0.2 {board02:?}");

    assert_column(&cases, &t01, |e| e.2);
    assert_column(&cases, &t02, |e| e.3);
    // Threshold 0.2 is what Playwright's default toHaveScreenshot runs: pixelmatch 7.2's counts.
    for (c, n) in cases.iter().zip(&t02) {
        assert_eq!(*n, c.case["pixelmatch7_t0_2"].as_u64().unwrap(), "{}: pixelmatch 7.2 at 0.2", c.name);
    }
    // 0.1 misses julia-ssim-trap; 0.2 also misses blue and original-ssim-trap.
    assert_eq!(board01, (12, 8));
    assert_eq!(board02, (12, 6));
}
