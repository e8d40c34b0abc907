//! `compare_designs` on real captures: the pages under
//! `fixtures/design/` were rendered by headless Chromium (`generate.sh` there), one alteration
//! each, and the page in a dark theme. Each alteration must lower its own dimension the most and
//! name it in a finding.

use std::path::PathBuf;

use sightline_core::Error;
use sightline_core::design::normalise::load_design_input;
use sightline_core::design::{
    DesignBox, DesignComparison, DesignMode, DesignOptions, Dimension, DimensionStatus, FindingKind, Preset,
    compare_design_images, compare_designs,
};
use sightline_core::image::RgbaImage;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/design").join(format!("{name}.png"))
}

fn compare(candidate: &str, mode: DesignMode) -> DesignComparison {
    let options = DesignOptions { mode, ..DesignOptions::default() };
    compare_designs(&fixture("reference"), &fixture(candidate), &options).unwrap().comparison
}

fn score(c: &DesignComparison, d: Dimension) -> f64 {
    let r = match d {
        Dimension::Layout => &c.dimensions.layout,
        Dimension::Color => &c.dimensions.color,
        Dimension::Content => &c.dimensions.content,
        Dimension::Typography => &c.dimensions.typography,
        Dimension::Spacing => &c.dimensions.spacing,
    };
    assert_eq!(r.status, DimensionStatus::Scored, "{d:?}: {r:?}");
    r.score.unwrap()
}

/// The drop from 100 of every dimension.
fn drops(c: &DesignComparison) -> Vec<(Dimension, f64)> {
    Dimension::ALL.iter().map(|&d| (d, 100.0 - score(c, d))).collect()
}

/// `own` dropped more than every other dimension, and a finding of `kind` names it.
fn assert_own_dimension_drops_most(c: &DesignComparison, own: Dimension, kind: FindingKind) {
    let all = drops(c);
    let own_drop = all.iter().find(|d| d.0 == own).unwrap().1;
    for &(d, drop) in &all {
        if d != own {
            assert!(own_drop > drop, "{own:?} dropped {own_drop:.2}, {d:?} dropped {drop:.2}: {all:?}");
        }
    }
    assert!(
        c.findings.iter().any(|f| f.dimension == Some(own) && f.kind == kind),
        "no {kind:?} finding: {:#?}",
        c.findings
    );
}

#[test]
fn design_identical_captures_score_100_everywhere() {
    for mode in [DesignMode::Widget, DesignMode::Screen] {
        let c = compare("reference", mode);
        assert_eq!(c.overall, Some(100.0));
        for d in Dimension::ALL {
            assert_eq!(score(&c, d), 100.0, "{d:?} in {mode:?}");
        }
        assert!(c.findings.is_empty(), "{:#?}", c.findings);
        assert_eq!((c.alignment.dx, c.alignment.dy, c.alignment.applied), (0, 0, false));
        // The page as people see it: a header bar, the heading, the lead, three cards, two
        // buttons; 17 lines of text (title, 3 nav items, heading, lead, 3 × 3 in the cards, 2
        // button labels).
        assert_eq!(c.dimensions.content.summary, "8 of 8 reference blocks matched, 8 candidate blocks");
        assert_eq!(
            c.dimensions.typography.summary,
            "17 text lines, mean height 19.3 px (reference: 17 lines, 19.3 px)"
        );
    }
}

#[test]
fn design_recoloured_lowers_color_and_names_the_colours() {
    for mode in [DesignMode::Widget, DesignMode::Screen] {
        let c = compare("recoloured", mode);
        assert_own_dimension_drops_most(&c, Dimension::Color, FindingKind::ColorMoved);
        let moved = c.findings.iter().find(|f| f.kind == FindingKind::ColorMoved).unwrap();
        assert_eq!(moved.message, "#dc3c3c where the reference has #2878dc (12.3 % of the view, OKLab distance 0.333)");
        // The header bar (top) and the primary button (bottom) are both in its box.
        assert_eq!(moved.region, Some(DesignBox { x: 0, y: 0, width: 640, height: 400 }));
    }
}

#[test]
fn design_removed_button_lowers_content_with_a_missing_block() {
    for mode in [DesignMode::Widget, DesignMode::Screen] {
        let c = compare("button-removed", mode);
        assert_own_dimension_drops_most(&c, Dimension::Content, FindingKind::BlockMissing);
        let missing: Vec<_> = c.findings.iter().filter(|f| f.kind == FindingKind::BlockMissing).collect();
        assert_eq!(missing.len(), 1, "{missing:#?}");
        // The "Details" button, 120 × 40 at (160, 360) in the page, bounded 1 px out on each side.
        assert_eq!(missing[0].region, Some(DesignBox { x: 159, y: 359, width: 122, height: 42 }));
        assert_eq!(missing[0].message, "a 122 × 42 px block of the reference has no counterpart in the candidate");
    }
}

#[test]
fn design_enlarged_text_lowers_typography() {
    for mode in [DesignMode::Widget, DesignMode::Screen] {
        let c = compare("text-enlarged", mode);
        assert_own_dimension_drops_most(&c, Dimension::Typography, FindingKind::TextScaleChanged);
        // Two lines are named on their own, besides the scale of all 17.
        let resized: Vec<&str> =
            c.findings.iter().filter(|f| f.kind == FindingKind::TextResized).map(|f| f.message.as_str()).collect();
        assert_eq!(
            resized,
            [
                "a text line is 33 px tall where the reference has 28 px",
                "a text line is 20 px tall where the reference has 16 px"
            ]
        );
        let scale = c.findings.iter().find(|f| f.kind == FindingKind::TextScaleChanged).unwrap();
        assert_eq!(scale.message, "text lines are 20 % taller on average (23.3 px where the reference has 19.3 px)");
    }
}

#[test]
fn design_changed_margins_lower_spacing() {
    // Page padding 24 → 40 px: the content column moves and narrows. In screen mode the
    // alignment takes up the move and what remains is spacing; in widget mode the move also
    // costs layout and unpairs two thin text blocks, and spacing still drops the most.
    let c = compare("margins-changed", DesignMode::Screen);
    assert_own_dimension_drops_most(&c, Dimension::Spacing, FindingKind::MarginChanged);
    let messages: Vec<&str> = c.findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "the structure differs here (mean SSIM 0.54)",
            "the structure differs here (mean SSIM 0.62)",
            "right margin 56 px where the reference has 28 px",
            "top margin 43 px where the reference has 28 px",
        ]
    );
    let w = compare("margins-changed", DesignMode::Widget);
    assert_own_dimension_drops_most(&w, Dimension::Spacing, FindingKind::MarginChanged);
    let messages: Vec<&str> = w.findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "the structure differs here (mean SSIM 0.62)",
            "a 457 × 28 px block of the reference has no counterpart in the candidate",
            "a 365 × 15 px block of the reference has no counterpart in the candidate",
            "the candidate has a 457 × 27 px block the reference does not",
            "the candidate has a 365 × 15 px block the reference does not",
            "a text line is 13 px tall where the reference has 15 px",
            "a text line is 12 px tall where the reference has 15 px",
            "left margin 39 px where the reference has 23 px",
            "right margin 40 px where the reference has 28 px",
            "top margin 44 px where the reference has 28 px",
            "bottom margin 63 px where the reference has 79 px",
        ]
    );
}

#[test]
fn design_shifted_screen_is_recovered_by_alignment() {
    // `html { transform: translate(5px, 4px) }`.
    let screen = compare("shifted", DesignMode::Screen);
    assert!(screen.alignment.applied && screen.alignment.converged);
    assert_eq!((screen.alignment.dx, screen.alignment.dy), (5, 4));
    assert_eq!((screen.alignment.canonical_dx, screen.alignment.canonical_dy), (6, 5));
    // Moved back on the page's own pixel grid, the render is the reference again.
    assert_eq!(screen.overall, Some(100.0));
    assert_eq!((screen.alignment.difference_before, screen.alignment.difference_after), (12.31, 0.0));
    // Widget mode does not align, so the same shift costs layout much more.
    let widget = compare("shifted", DesignMode::Widget);
    assert_eq!((score(&widget, Dimension::Layout), score(&screen, Dimension::Layout)), (74.37, 100.0));
    assert!(!widget.alignment.applied);
}

/// `image` moved by whole pixels `(dx, dy)`, the strip it uncovers painted `fill`.
fn moved(image: &RgbaImage, dx: i32, dy: i32, fill: [u8; 4]) -> RgbaImage {
    let (w, h) = (image.width() as i32, image.height() as i32);
    let mut out = RgbaImage::filled(w as u32, h as u32, fill).unwrap();
    for y in 0..h {
        for x in 0..w {
            let (sx, sy) = (x - dx, y - dy);
            if (0..w).contains(&sx) && (0..h).contains(&sy) {
                let (to, from) = (((y * w + x) * 4) as usize, ((sy * w + sx) * 4) as usize);
                let px: [u8; 4] = image.as_bytes()[from..from + 4].try_into().unwrap();
                out.as_bytes_mut()[to..to + 4].copy_from_slice(&px);
            }
        }
    }
    out
}

fn block_findings(c: &DesignComparison) -> Vec<&str> {
    c.findings
        .iter()
        .filter(|f| matches!(f.kind, FindingKind::BlockMissing | FindingKind::BlockExtra))
        .map(|f| f.message.as_str())
        .collect()
}

#[test]
fn design_a_pure_move_of_up_to_16_px_is_a_perfect_match_in_screen_mode() {
    let reference = load_design_input(&fixture("reference")).unwrap();
    let screen = DesignOptions { mode: DesignMode::Screen, ..DesignOptions::default() };
    // Every distance 1–16 px, in each of the four diagonal directions in turn, the uncovered
    // strip black, white or a dark grey (a dark strip once tipped the background estimate and
    // made the whole page one block).
    let fills = [[0, 0, 0, 255], [255, 255, 255, 255], [27, 29, 34, 255]];
    let directions = [(1, 1), (-1, 1), (1, -1), (-1, -1)];
    for n in 1..=16 {
        let (sx, sy) = directions[n as usize % 4];
        let (dx, dy) = (sx * n, sy * n);
        let candidate = moved(&reference, dx, dy, fills[n as usize % 3]);
        let c = compare_design_images(&reference, &candidate, &screen).unwrap().comparison;
        let case = format!("moved by ({dx}, {dy})");
        assert_eq!((c.alignment.dx, c.alignment.dy, c.alignment.converged), (dx, dy, true), "{case}");
        assert_eq!(c.overall, Some(100.0), "{case}: {:#?}", c.dimensions);
        assert!(c.findings.is_empty(), "{case}: {:#?}", c.findings);
    }
}

#[test]
fn design_real_renders_moved_by_whole_pixels_match_once_aligned() {
    // `html { transform: translate(1px, 1px) }`: the uncovered strip is the page's own white.
    let one = compare("moved-1", DesignMode::Screen);
    assert_eq!((one.alignment.dx, one.alignment.dy), (1, 1));
    assert_eq!(
        one.alignment.note,
        "the candidate sits 1 px to the right of and 1 px below the reference; it was moved back before scoring, leaving out what only the reference shows (1 px along the right edge, 1 px along the bottom)"
    );
    assert_eq!(one.overall, Some(100.0));
    assert!(one.findings.is_empty(), "{:#?}", one.findings);
    // The body moved 16 px left and 12 px down over a dark root: dark strips on the right and at
    // the top, which are not part of the design.
    let dark = compare("moved-16-dark-edge", DesignMode::Screen);
    assert_eq!((dark.alignment.dx, dark.alignment.dy), (-16, 12));
    assert_eq!(dark.overall, Some(100.0), "{:#?}", dark.dimensions);
    assert!(dark.findings.is_empty(), "{:#?}", dark.findings);
    // Widget mode does not align: the same move is a real difference there.
    let widget = compare("moved-16-dark-edge", DesignMode::Widget);
    assert!(widget.overall.unwrap() < 90.0, "{:?}", widget.overall);
}

#[test]
fn design_off_by_one_sizes_are_not_a_zoom() {
    let reference = load_design_input(&fixture("reference")).unwrap();
    let screen = DesignOptions { mode: DesignMode::Screen, ..DesignOptions::default() };
    let (w, h) = (reference.width(), reference.height());
    // One column and one row cut off, or one white column added: taken at the same scale, so
    // nothing is resampled and only the edge differs.
    let cut = sightline_core::image::resize(
        reference.view(),
        sightline_core::crops::Rect::new(0, 0, w - 1, h - 1),
        w - 1,
        h - 1,
        sightline_core::image::Filter::Box,
    )
    .unwrap();
    let wider = {
        let mut out = RgbaImage::filled(w + 1, h, [255, 255, 255, 255]).unwrap();
        for y in 0..h as usize {
            let (to, from) = (y * (w as usize + 1) * 4, y * w as usize * 4);
            out.as_bytes_mut()[to..to + w as usize * 4]
                .copy_from_slice(&reference.as_bytes()[from..from + w as usize * 4]);
        }
        out
    };
    for (name, candidate) in [("cut", cut), ("wider", wider)] {
        let c = compare_design_images(&reference, &candidate, &screen).unwrap().comparison;
        assert!(c.overall.unwrap() >= 99.0, "{name}: {:?} {:#?}", c.overall, c.dimensions);
        assert!(score(&c, Dimension::Content) >= 95.0, "{name}");
        assert!(block_findings(&c).is_empty(), "{name}: {:#?}", c.findings);
        assert_eq!(c.canvas.candidate.scale, c.canvas.reference.scale, "{name}: same scale");
    }
}

#[test]
fn design_scores_fall_steadily_as_a_real_change_grows() {
    // A dark panel growing over the page: 2, 4, 8, 16, then 32 % of it.
    let reference = load_design_input(&fixture("reference")).unwrap();
    let (w, h) = (reference.width(), reference.height());
    let mut last = 100.0;
    for share in [0.02, 0.04, 0.08, 0.16, 0.32] {
        let side = ((f64::from(w * h) * share).sqrt()) as u32;
        let mut candidate = reference.clone();
        for y in 40..40 + side.min(h - 40) {
            for x in 20..20 + side.min(w - 20) {
                let at = ((y * w + x) * 4) as usize;
                candidate.as_bytes_mut()[at..at + 4].copy_from_slice(&[60, 60, 70, 255]);
            }
        }
        let c = compare_design_images(&reference, &candidate, &DesignOptions::default()).unwrap().comparison;
        let overall = c.overall.unwrap();
        assert!(overall < last, "{share}: {overall} after {last}");
        last = overall;
    }
    assert!(last < 80.0, "a third of the page covered still scores {last}");
}

#[test]
fn design_output_is_deterministic_and_keys_follow_the_question() {
    let options = DesignOptions { return_visuals: true, ..DesignOptions::default() };
    let run = || compare_designs(&fixture("reference"), &fixture("recoloured"), &options).unwrap();
    let (a, b) = (run(), run());
    assert_eq!(serde_json::to_vec(&a.comparison).unwrap(), serde_json::to_vec(&b.comparison).unwrap());
    let (va, vb) = (a.visuals.unwrap(), b.visuals.unwrap());
    for ((_, x), (_, y)) in va.named().iter().zip(vb.named().iter()) {
        assert_eq!(x, y);
    }
    assert_eq!((va.overlay.width(), va.side_by_side.width()), (768, 768 * 2 + 8));
    // Visuals do not change the keys; the mode (part of the question) does.
    let plain = compare_designs(&fixture("reference"), &fixture("recoloured"), &DesignOptions::default()).unwrap();
    assert_eq!(plain.comparison.run_key, a.comparison.run_key);
    let other = compare("recoloured", DesignMode::Widget);
    assert_ne!(other.comparison_key, a.comparison.comparison_key);
    // Same reference and settings, different candidate: same question, another run.
    let shifted = compare("shifted", DesignMode::Screen);
    assert_eq!(shifted.comparison_key, a.comparison.comparison_key);
    assert_ne!(shifted.run_key, a.comparison.run_key);
}

#[test]
fn design_ignore_regions_hide_a_change() {
    // The removed button, ignored: nothing is left to find.
    let options = DesignOptions {
        ignore_regions: vec![DesignBox { x: 150, y: 350, width: 140, height: 60 }],
        ..DesignOptions::default()
    };
    let c = compare_designs(&fixture("reference"), &fixture("button-removed"), &options).unwrap().comparison;
    assert_eq!(c.overall, Some(100.0), "{:#?}", c.findings);
}

#[test]
fn design_bad_inputs_are_typed_errors() {
    let dir = crate::scratch_dir("design-bad");
    let text = dir.join("notes.png");
    std::fs::write(&text, "not an image").unwrap();
    let options = DesignOptions::default();
    let err = compare_designs(&text, &fixture("reference"), &options).unwrap_err();
    assert!(matches!(&err, Error::BadImage { path, .. } if *path == text), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "{}: not a readable PNG or JPEG image (neither a PNG nor a JPEG signature); re-export it as an 8-bit PNG",
            text.display()
        )
    );
    let missing = dir.join("missing.png");
    let err = compare_designs(&missing, &fixture("reference"), &options).unwrap_err();
    assert!(matches!(&err, Error::Io { path, .. } if *path == missing), "{err}");
    assert_eq!(err.to_string(), format!("{}: No such file or directory (os error 2)", missing.display()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn design_dark_theme_with_the_dark_ui_preset() {
    let dark = |candidate: &str| {
        let options = DesignOptions { preset: Preset::DarkUi, ..DesignOptions::default() };
        compare_designs(&fixture("dark"), &fixture(candidate), &options).unwrap().comparison
    };
    let same = dark("dark");
    assert_eq!(same.overall, Some(100.0));
    assert_eq!(same.preset, Preset::DarkUi);
    assert_eq!((same.weights.layout, same.weights.typography, same.weights.color), (0.6, 0.3, 0.1));
    assert_eq!((same.weights.content, same.weights.spacing), (0.0, 0.0));
    // Light text on a dark page still reads as the page's 8 blocks and 17 lines.
    assert_eq!(same.dimensions.content.summary, "8 of 8 reference blocks matched, 8 candidate blocks");
    assert_eq!(same.dimensions.typography.summary, "17 text lines, mean height 19.3 px (reference: 17 lines, 19.3 px)");
    let recoloured = dark("dark-recoloured");
    assert_own_dimension_drops_most(&recoloured, Dimension::Color, FindingKind::ColorMoved);
    let findings: Vec<(FindingKind, &str)> = recoloured.findings.iter().map(|f| (f.kind, f.message.as_str())).collect();
    assert_eq!(
        findings,
        [(
            FindingKind::ColorMoved,
            "#dc3c3c where the reference has #2878dc (12.3 % of the view, OKLab distance 0.333)"
        )]
    );
}

#[test]
fn design_a_dark_theme_of_a_light_design_is_a_colour_change() {
    // Same palette roles swapped: the page colour goes from white to near-black.
    let c = compare_designs(&fixture("reference"), &fixture("dark"), &DesignOptions::default()).unwrap().comparison;
    assert_own_dimension_drops_most(&c, Dimension::Color, FindingKind::ColorShareChanged);
    let share = c.findings.iter().find(|f| f.kind == FindingKind::ColorShareChanged).unwrap();
    assert_eq!(share.message, "#ffffff covers 0.2 % of the candidate where it covers 81.8 % of the reference");
}
