//! The color dimension: how far the dominant colours moved, measured in OKLab (a perceptual
//! space where Euclidean distance tracks visible difference; 0.02 is about one just noticeable
//! difference).
//!
//! Each image's palette is its exact colours clustered greedily, most frequent first, within
//! [`MERGE_DISTANCE`]; clusters holding at least [`DOMINANT_SHARE`] of the compared pixels are
//! its dominant colours, named by their most frequent exact colour. The distance between the two
//! palettes is the share-weighted mean distance from each dominant colour to the nearest colour
//! present (from [`PRESENT_SHARE`]) in the other image, averaged both ways; the score is `100 · exp(−distance / 0.05)`.
//! Proportions count only beyond a dead zone: the share of the view whose colour class (nearest
//! dominant reference colour) changed, less 5 %, weighs like a palette distance of 0.2 per whole
//! view; so a removed button or larger text does not read as a colour change, while a dark theme
//! of a light design, which keeps the palette but swaps its roles, does.

use super::critique::{COLOR_SHARE, Severity};
use super::normalise::{Plane, Rect};
use super::{Canvases, FindingKind, Measured, RawFinding};

/// Colours closer than this (OKLab) are one palette entry.
const MERGE_DISTANCE: f64 = 0.05;
/// A cluster is dominant from this share of the compared pixels.
const DOMINANT_SHARE: f64 = 0.005;
/// Clusters from this share count as present when asking whether a colour exists at all, so an
/// anti-aliasing blend just under [`DOMINANT_SHARE`] on one side and just over on the other is
/// not a change.
const PRESENT_SHARE: f64 = 0.0005;
/// A dominant colour whose nearest counterpart is farther than this has moved.
const MOVED_DISTANCE: f64 = 0.05;
/// Up to this share of the view may change colour class without counting: that much is a
/// removed button or larger text, which content and typography report.
const SHARE_DEAD_ZONE: f64 = 0.05;
/// The whole view changing colour class counts like a palette distance of this much.
const SHARE_WEIGHT: f64 = 0.2;
/// Palette distance at which the score falls to 1/e (≈ 37).
const DISTANCE_SCALE: f64 = 0.05;
/// Upper bound on palette entries, so a photograph's thousands of colours stay cheap.
const MAX_CLUSTERS: usize = 64;

/// sRGB (D65) to OKLab (Björn Ottosson's matrices).
pub(crate) fn oklab([r, g, b]: [u8; 3]) -> [f64; 3] {
    let lin = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    let (r, g, b) = (lin(r), lin(g), lin(b));
    let l = (0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b).cbrt();
    let m = (0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b).cbrt();
    let s = (0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b).cbrt();
    [
        0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
        1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
        0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s,
    ]
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// `#rrggbb`.
pub(crate) fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// One dominant colour of an image.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Swatch {
    /// The cluster's most frequent exact colour.
    pub rgb: [u8; 3],
    pub lab: [f64; 3],
    /// Share of the compared pixels in the cluster.
    pub share: f64,
}

/// The colour clusters of `plane` over its compared pixels holding at least `min_share` of
/// them, largest share first.
pub(crate) fn palette(plane: &Plane, ignored: &[bool], min_share: f64) -> Vec<Swatch> {
    let mut packed: Vec<u32> = plane
        .rgb
        .iter()
        .zip(ignored)
        .filter(|(_, skip)| !**skip)
        .map(|(p, _)| u32::from_be_bytes([0, p[0], p[1], p[2]]))
        .collect();
    let total = packed.len();
    if total == 0 {
        return Vec::new();
    }
    packed.sort_unstable();
    // Exact colours with counts, most frequent first (ties: smaller colour first).
    let mut counts: Vec<(u32, usize)> = Vec::new();
    for c in packed {
        match counts.last_mut() {
            Some((last, n)) if *last == c => *n += 1,
            _ => counts.push((c, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut clusters: Vec<Swatch> = Vec::new();
    for (c, n) in counts {
        let [_, r, g, b] = c.to_be_bytes();
        let lab = oklab([r, g, b]);
        let nearest =
            clusters.iter().enumerate().map(|(i, s)| (i, distance(s.lab, lab))).min_by(|a, b| a.1.total_cmp(&b.1));
        match nearest {
            Some((i, d)) if d < MERGE_DISTANCE || clusters.len() >= MAX_CLUSTERS => clusters[i].share += n as f64,
            _ => clusters.push(Swatch { rgb: [r, g, b], lab, share: n as f64 }),
        }
    }
    for s in &mut clusters {
        s.share /= total as f64;
    }
    clusters.retain(|s| s.share >= min_share);
    clusters.sort_by(|a, b| b.share.total_cmp(&a.share).then(a.rgb.cmp(&b.rgb)));
    clusters
}

/// Share-weighted mean distance from each swatch of `from` to the nearest of `to`.
fn one_way(from: &[Swatch], to: &[Swatch]) -> f64 {
    let weight: f64 = from.iter().map(|s| s.share).sum();
    if weight == 0.0 || to.is_empty() {
        return 0.0;
    }
    from.iter().map(|s| s.share * nearest(s, to).1).sum::<f64>() / weight
}

/// The swatch of `to` closest to `s`, with its distance.
fn nearest<'a>(s: &Swatch, to: &'a [Swatch]) -> (&'a Swatch, f64) {
    to.iter().map(|t| (t, distance(s.lab, t.lab))).min_by(|a, b| a.1.total_cmp(&b.1)).expect("non-empty palette")
}

/// The palette distance (both ways, averaged): dominant colours of each side against the
/// colours present on the other.
pub(crate) fn palette_distance(a: &[Swatch], b: &[Swatch]) -> f64 {
    let dominant = |p: &[Swatch]| p.iter().filter(|s| s.share >= DOMINANT_SHARE).cloned().collect::<Vec<_>>();
    0.5 * (one_way(&dominant(a), b) + one_way(&dominant(b), a))
}

/// Shares of the view per colour class: one class per dominant reference colour (every cluster
/// of `palette` within [`MOVED_DISTANCE`] of it counts there), and a last class for the rest.
fn class_shares(classes: &[Swatch], palette: &[Swatch]) -> Vec<f64> {
    let mut shares = vec![0.0; classes.len() + 1];
    for s in palette {
        match classes.iter().enumerate().map(|(i, c)| (i, distance(c.lab, s.lab))).min_by(|a, b| a.1.total_cmp(&b.1)) {
            Some((i, d)) if d <= MOVED_DISTANCE => shares[i] += s.share,
            _ => shares[classes.len()] += s.share,
        }
    }
    shares
}

/// Scores color and names the dominant colours that moved.
pub(crate) fn measure(c: &Canvases) -> Measured {
    // Colours present at all; the dominant ones are those from DOMINANT_SHARE.
    let pa = palette(&c.reference, &c.ignored, PRESENT_SHARE);
    let pb = palette(&c.candidate, &c.ignored, PRESENT_SHARE);
    if pa.is_empty() || pb.is_empty() {
        return Measured {
            score: None,
            summary: "every pixel is inside an ignored region".into(),
            findings: Vec::new(),
        };
    }
    let d = palette_distance(&pa, &pb);
    // Proportions: a palette can keep its colours while swapping their roles (a dark theme
    // of a light design); the share of the view that changed colour class catches that.
    let classes: Vec<Swatch> = pa.iter().filter(|s| s.share >= DOMINANT_SHARE).cloned().collect();
    let (shares_a, shares_b) = (class_shares(&classes, &pa), class_shares(&classes, &pb));
    let changed = 0.5 * shares_a.iter().zip(&shares_b).map(|(x, y)| (x - y).abs()).sum::<f64>();
    let proportion = SHARE_WEIGHT * (changed - SHARE_DEAD_ZONE).max(0.0);
    let score = 100.0 * (-(d + proportion) / DISTANCE_SCALE).exp();
    let mut findings = Vec::new();
    let mut explained: Vec<[u8; 3]> = Vec::new();
    let mut moved: Vec<[u8; 3]> = Vec::new();
    for swatch in pa.iter().filter(|s| s.share >= DOMINANT_SHARE) {
        if nearest(swatch, &pb).1 <= MOVED_DISTANCE {
            continue;
        }
        // Where the reference shows this colour, what does the candidate show?
        let Some((shown, rect, share)) = replacement(c, swatch) else { continue };
        explained.push(shown);
        moved.push(swatch.rgb);
        findings.push(RawFinding {
            kind: FindingKind::ColorMoved,
            severity: COLOR_SHARE.severity(share),
            fix: format!(
                "use {} here as the reference does, where the candidate shows {}",
                hex(swatch.rgb),
                hex(shown)
            ),
            message: format!(
                "{} where the reference has {} ({:.1} % of the view, OKLab distance {:.3})",
                hex(shown),
                hex(swatch.rgb),
                share * 100.0,
                distance(oklab(shown), swatch.lab)
            ),
            rect: Some(rect),
        });
    }
    for swatch in pb.iter().filter(|s| s.share >= DOMINANT_SHARE) {
        let close_to_explained = explained.iter().any(|&e| distance(oklab(e), swatch.lab) < MERGE_DISTANCE);
        if nearest(swatch, &pa).1 <= MOVED_DISTANCE || close_to_explained {
            continue;
        }
        let rect = extent(&c.candidate, &c.ignored, swatch.lab);
        findings.push(RawFinding {
            kind: FindingKind::ColorAdded,
            severity: COLOR_SHARE.severity(swatch.share),
            message: format!("{} is new in the candidate ({:.1} % of the view)", hex(swatch.rgb), swatch.share * 100.0),
            fix: format!(
                "replace {} with the reference's colour for that element (its nearest reference colour is {})",
                hex(swatch.rgb),
                hex(nearest(swatch, &pa).0.rgb)
            ),
            rect,
        });
    }
    // Share changes of colours not already reported as moved (a moved colour's share falls by
    // definition).
    for (swatch, (&sa, &sb)) in classes.iter().zip(shares_a.iter().zip(&shares_b)) {
        if (sa - sb).abs() >= SHARE_DEAD_ZONE && !moved.contains(&swatch.rgb) {
            findings.push(RawFinding {
                kind: FindingKind::ColorShareChanged,
                severity: Severity::by((sa - sb).abs(), 0.05, 0.2),
                fix: format!(
                    "{} should cover about {:.1} % of the view as in the reference (now {:.1} %): find where it was {}",
                    hex(swatch.rgb),
                    sa * 100.0,
                    sb * 100.0,
                    if sb > sa { "added" } else { "taken away" }
                ),
                message: format!(
                    "{} covers {:.1} % of the candidate where it covers {:.1} % of the reference",
                    hex(swatch.rgb),
                    sb * 100.0,
                    sa * 100.0
                ),
                rect: None,
            });
        }
    }
    let names = |p: &[Swatch]| {
        p.iter().filter(|s| s.share >= DOMINANT_SHARE).take(4).map(|s| hex(s.rgb)).collect::<Vec<_>>().join(" ")
    };
    Measured {
        score: Some(score),
        summary: format!(
            "palette distance {d:.4}, {:.1} % of the view changed colour class (reference {}; candidate {})",
            changed * 100.0,
            names(&pa),
            names(&pb)
        ),
        findings,
    }
}

/// The candidate's most frequent exact colour on the pixels where the reference shows `swatch`,
/// the box of those pixels where it does, and their share of the compared pixels.
fn replacement(c: &Canvases, swatch: &Swatch) -> Option<([u8; 3], Rect, f64)> {
    let mut shown: Vec<u32> = Vec::new();
    let mut positions: Vec<usize> = Vec::new();
    let mut cache: Vec<([u8; 3], bool)> = Vec::new();
    for (i, p) in c.reference.rgb.iter().enumerate() {
        if c.ignored[i] {
            continue;
        }
        // Most pixels repeat the previous colour: a one-entry cache skips most OKLab conversions.
        let member = match cache.last() {
            Some((q, m)) if q == p => *m,
            _ => {
                let m = distance(oklab(*p), swatch.lab) < MERGE_DISTANCE;
                cache.clear();
                cache.push((*p, m));
                m
            }
        };
        if member {
            let q = c.candidate.rgb[i];
            shown.push(u32::from_be_bytes([0, q[0], q[1], q[2]]));
            positions.push(i);
        }
    }
    let mut sorted = shown.clone();
    sorted.sort_unstable();
    let mut best: Option<(u32, usize)> = None;
    let mut i = 0;
    while i < sorted.len() {
        let j = sorted[i..].iter().position(|&v| v != sorted[i]).map_or(sorted.len(), |k| i + k);
        if best.is_none_or(|(_, n)| j - i > n) {
            best = Some((sorted[i], j - i));
        }
        i = j;
    }
    let (colour, _) = best?;
    let [_, r, g, b] = colour.to_be_bytes();
    let lab = oklab([r, g, b]);
    let mut rect: Option<Rect> = None;
    let mut count = 0usize;
    for (&v, &i) in shown.iter().zip(&positions) {
        let [_, vr, vg, vb] = v.to_be_bytes();
        if v == colour || distance(oklab([vr, vg, vb]), lab) < MERGE_DISTANCE {
            count += 1;
            let (x, y) = (i % c.width, i / c.width);
            let px = Rect { x0: x, y0: y, x1: x + 1, y1: y + 1 };
            rect = Some(rect.map_or(px, |r| r.union(&px)));
        }
    }
    let compared = c.ignored.iter().filter(|&&s| !s).count().max(1);
    Some(([r, g, b], rect?, count as f64 / compared as f64))
}

/// The box of the compared pixels of `plane` within [`MERGE_DISTANCE`] of `lab`.
fn extent(plane: &Plane, ignored: &[bool], lab: [f64; 3]) -> Option<Rect> {
    let mut rect: Option<Rect> = None;
    let mut last: Option<([u8; 3], bool)> = None;
    for (i, p) in plane.rgb.iter().enumerate() {
        if ignored[i] {
            continue;
        }
        let member = match last {
            Some((q, m)) if q == *p => m,
            _ => distance(oklab(*p), lab) < MERGE_DISTANCE,
        };
        last = Some((*p, member));
        if member {
            let (x, y) = (i % plane.width, i / plane.width);
            let px = Rect { x0: x, y0: y, x1: x + 1, y1: y + 1 };
            rect = Some(rect.map_or(px, |r| r.union(&px)));
        }
    }
    rect
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn color_oklab_of_white_and_black() {
        let w = oklab([255, 255, 255]);
        assert!((w[0] - 1.0).abs() < 1e-4 && w[1].abs() < 1e-4 && w[2].abs() < 1e-4, "{w:?}");
        assert!(oklab([0, 0, 0]).iter().all(|v| v.abs() < 1e-12));
    }

    #[test]
    fn color_palette_merges_near_colours_and_drops_specks() {
        let mut p = Plane::filled(100, 100, [255, 255, 255]);
        p.fill_rect(Rect { x0: 0, y0: 0, x1: 100, y1: 20 }, [40, 120, 220]);
        p.fill_rect(Rect { x0: 0, y0: 20, x1: 100, y1: 21 }, [42, 121, 221]);
        p.rgb[9_999] = [0, 0, 0];
        let pal = palette(&p, &vec![false; 10_000], DOMINANT_SHARE);
        assert_eq!(pal.iter().map(|s| s.rgb).collect::<Vec<_>>(), vec![[255, 255, 255], [40, 120, 220]]);
        assert!((pal[1].share - 0.21).abs() < 1e-12, "{}", pal[1].share);
    }

    #[test]
    fn color_class_shares_catch_swapped_roles() {
        let white = Swatch { rgb: [255, 255, 255], lab: oklab([255, 255, 255]), share: 0.9 };
        let dark = Swatch { rgb: [18, 20, 24], lab: oklab([18, 20, 24]), share: 0.1 };
        let light = vec![white.clone(), dark.clone()];
        let inverted = vec![Swatch { share: 0.1, ..white }, Swatch { share: 0.9, ..dark }];
        assert_eq!(class_shares(&light, &light), vec![0.9, 0.1, 0.0]);
        assert_eq!(class_shares(&light, &inverted), vec![0.1, 0.9, 0.0]);
        // Same palette both ways, so the palette distance alone misses it.
        assert_eq!(palette_distance(&light, &inverted), 0.0);
    }

    #[test]
    fn color_palette_distance_is_zero_for_equal_and_symmetric() {
        let mut a = Plane::filled(50, 50, [255, 255, 255]);
        a.fill_rect(Rect { x0: 0, y0: 0, x1: 50, y1: 10 }, [40, 120, 220]);
        let mut b = a.clone();
        b.fill_rect(Rect { x0: 0, y0: 0, x1: 50, y1: 10 }, [220, 60, 60]);
        let (pa, pb) = (palette(&a, &[false; 2500], PRESENT_SHARE), palette(&b, &[false; 2500], PRESENT_SHARE));
        assert_eq!(palette_distance(&pa, &pa), 0.0);
        assert_eq!(palette_distance(&pa, &pb), palette_distance(&pb, &pa));
        // Blue → red on 20 % of the pixels: 0.2 of the weight moves the whole blue-red distance.
        let expected = 0.2 * distance(oklab([40, 120, 220]), oklab([220, 60, 60]));
        assert!((palette_distance(&pa, &pb) - expected).abs() < 1e-12);
    }
}
