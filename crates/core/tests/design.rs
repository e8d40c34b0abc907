//! `compare_designs` on real captures: the pages under
//! `fixtures/design/` were rendered by headless Chromium (`generate.sh` there), one alteration
//! each, and the page in a dark theme. Each alteration must lower its own dimension the most and
//! name it in a finding.

use std::path::PathBuf;

use sightline_core::Error;
use sightline_core::design::{
    DesignBox, DesignComparison, DesignMode, DesignOptions, Dimension, DimensionStatus, FindingKind, Preset,
    compare_designs,
};

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
            "top margin 44 px where the reference has 28 px",
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
    assert_eq!(screen.overall, Some(99.35));
    // The mean difference the alignment takes away: 11.91 before, 0.6 once moved back.
    assert_eq!((screen.alignment.difference_before, screen.alignment.difference_after), (11.91, 0.6));
    // Widget mode does not align, so the same shift costs layout much more.
    let widget = compare("shifted", DesignMode::Widget);
    assert_eq!((score(&widget, Dimension::Layout), score(&screen, Dimension::Layout)), (74.37, 99.38));
    assert!(!widget.alignment.applied);
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
    let dir = std::env::temp_dir().join(format!("sightline-design-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
}

#[test]
fn design_dark_theme_with_the_dark_ui_preset() {
    let dark = |candidate: &str| {
        let options = DesignOptions { preset: Preset::DarkUi, ..DesignOptions::default() };
        compare_designs(&fixture("dark"), &fixture(candidate), &options).unwrap().comparison
    };
    let same = dark("dark");
    assert_eq!(same.overall, Some(100.0));
    assert_eq!(same.preset, Some(Preset::DarkUi));
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
