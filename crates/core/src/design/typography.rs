//! The typography dimension: text lines found by morphology (no OCR), then the amount and the
//! scale of text compared.
//!
//! Text is dense in strong edges: the morphological gradient (3 × 3 max − min of greyscale)
//! above [`EDGE`] marks glyph outlines; a horizontal closing over [`CLOSE`] px fuses the glyphs
//! and words of one line; connected components are split at empty rows (lines whose ascenders
//! touch the line above) and kept when they are line-shaped and crossed by many strokes, which
//! rules out box outlines and rules; pieces of one line split by the wide word spacing of large
//! text are joined again. Amount = total area of the line boxes; scale = their
//! area-weighted mean height. Score = `100 · √(amount ratio) · scale ratio` (ratios min/max).

use super::content::{components, match_blocks};
use super::critique::{Severity, TEXT_SCALE_PERCENT};
use super::normalise::Rect;
use super::{Canvases, FindingKind, Measured, RawFinding, ref_px, ref_px_f};

/// Smallest local contrast (0–255) that counts as a glyph edge.
const EDGE: u8 = 64;
/// Horizontal closing half-width: glyphs and words up to 2 × this apart fuse into one line.
const CLOSE: usize = 5;
/// Line heights (canonical px) text can have: below are rules and specks, above are pictures.
const MIN_LINE_HEIGHT: usize = 6;
const MAX_LINE_HEIGHT: usize = 120;
/// Stroke crossings per pixel of width (mean over the rows) a text line has at least; a box
/// outline has two per row, far less.
const MIN_STROKE_DENSITY: f64 = 0.05;
/// Pieces of a line closer than this share of their height are one line (word spacing is about
/// a third of the line height; the gap between two labels side by side is wider).
const WORD_GAP: f64 = 0.6;
/// A matched line whose height ratio falls below this is reported as resized.
const RESIZED_RATIO: f64 = 0.85;
const MAX_RESIZED_FINDINGS: usize = 5;

/// The text lines of a greyscale canvas.
pub(crate) fn text_lines(luma: &[u8], width: usize, height: usize) -> Vec<Rect> {
    if width < 3 || height < 3 {
        return Vec::new();
    }
    let gradient = morphological_gradient(luma, width, height);
    let edges: Vec<bool> = gradient.iter().map(|&g| g >= EDGE).collect();
    let closed = close_horizontally(&edges, width, height, CLOSE);
    let mut lines = Vec::new();
    for component in components(&closed, width, height, 0) {
        for line in split_at_empty_rows(&closed, width, component) {
            if is_text_line(&edges, width, &line) {
                lines.push(line);
            }
        }
    }
    let mut lines = join_words(lines);
    lines.sort_by_key(|l| (l.y0, l.x0, l.y1, l.x1));
    lines
}

/// Joins pieces of one line that the fixed closing left apart: the word spacing of large text
/// is wider than [`CLOSE`]. Two pieces join when they share most of their height and the gap
/// between them is under [`WORD_GAP`] of the taller one's height.
fn join_words(mut lines: Vec<Rect>) -> Vec<Rect> {
    lines.sort_by_key(|l| (l.x0, l.y0, l.x1, l.y1));
    let mut joined = true;
    while joined {
        joined = false;
        'outer: for i in 0..lines.len() {
            for j in i + 1..lines.len() {
                let (a, b) = (lines[i], lines[j]);
                let overlap = a.y1.min(b.y1).saturating_sub(a.y0.max(b.y0));
                let gap = b.x0.saturating_sub(a.x1).max(a.x0.saturating_sub(b.x1));
                let height = a.height().max(b.height());
                if overlap * 2 >= a.height().min(b.height()) && (gap as f64) <= WORD_GAP * height as f64 {
                    lines[i] = a.union(&b);
                    lines.remove(j);
                    joined = true;
                    break 'outer;
                }
            }
        }
    }
    lines
}

/// 3 × 3 max − min, separable; edges use the pixels that exist.
fn morphological_gradient(luma: &[u8], width: usize, height: usize) -> Vec<u8> {
    let mut hmax = vec![0u8; luma.len()];
    let mut hmin = vec![0u8; luma.len()];
    for y in 0..height {
        for x in 0..width {
            let row = &luma[y * width + x.saturating_sub(1)..y * width + (x + 2).min(width)];
            hmax[y * width + x] = *row.iter().max().expect("non-empty");
            hmin[y * width + x] = *row.iter().min().expect("non-empty");
        }
    }
    let mut out = vec![0u8; luma.len()];
    for y in 0..height {
        let (a, b) = (y.saturating_sub(1), (y + 2).min(height));
        for x in 0..width {
            let max = (a..b).map(|yy| hmax[yy * width + x]).max().expect("non-empty");
            let min = (a..b).map(|yy| hmin[yy * width + x]).min().expect("non-empty");
            out[y * width + x] = max - min;
        }
    }
    out
}

/// Horizontal dilation then erosion by `radius`: fills gaps up to `2 × radius` px within a row.
fn close_horizontally(mask: &[bool], width: usize, height: usize, radius: usize) -> Vec<bool> {
    let pass = |input: &[bool], value: bool| {
        let mut out = vec![!value; input.len()];
        for y in 0..height {
            let row = &input[y * width..(y + 1) * width];
            for x in 0..width {
                let window = &row[x.saturating_sub(radius)..(x + radius + 1).min(width)];
                out[y * width + x] = if value { window.contains(&true) } else { !window.contains(&false) };
            }
        }
        out
    };
    let dilated = pass(mask, true);
    pass(&dilated, false)
}

/// Splits a component's box into the runs of rows that hold any of its pixels, each narrowed to
/// its own horizontal extent.
fn split_at_empty_rows(mask: &[bool], width: usize, rect: Rect) -> Vec<Rect> {
    let mut out = Vec::new();
    let mut run: Option<Rect> = None;
    for y in rect.y0..rect.y1 {
        let row = &mask[y * width + rect.x0..y * width + rect.x1];
        let first = row.iter().position(|&v| v);
        match first {
            Some(f) => {
                let last = row.iter().rposition(|&v| v).expect("a set pixel exists");
                let span = Rect { x0: rect.x0 + f, y0: y, x1: rect.x0 + last + 1, y1: y + 1 };
                run = Some(run.map_or(span, |r| r.union(&span)));
            }
            None => out.extend(run.take()),
        }
    }
    out.extend(run);
    out
}

/// Line-shaped (height in range, at least as wide as tall) and crossed by many strokes.
fn is_text_line(edges: &[bool], width: usize, line: &Rect) -> bool {
    let h = line.height();
    if !(MIN_LINE_HEIGHT..=MAX_LINE_HEIGHT).contains(&h) || line.width() < h {
        return false;
    }
    let mut crossings = 0usize;
    for y in line.y0..line.y1 {
        let row = &edges[y * width + line.x0..y * width + line.x1];
        crossings += row.windows(2).filter(|w| !w[0] && w[1]).count() + usize::from(row[0]);
    }
    crossings as f64 / (h * line.width()) as f64 >= MIN_STROKE_DENSITY
}

/// (total line area, area-weighted mean height) of a set of lines.
fn amount_and_scale(lines: &[Rect]) -> (f64, f64) {
    let area: usize = lines.iter().map(Rect::area).sum();
    if area == 0 {
        return (0.0, 0.0);
    }
    let weighted: f64 = lines.iter().map(|l| l.area() as f64 * l.height() as f64).sum();
    (area as f64, weighted / area as f64)
}

fn ratio(a: f64, b: f64) -> f64 {
    if a.max(b) == 0.0 { 1.0 } else { a.min(b) / a.max(b) }
}

/// Scores typography from the text lines of both images.
pub(crate) fn measure(c: &Canvases) -> Measured {
    let a = text_lines(&c.reference_luma, c.width, c.height);
    let b = text_lines(&c.candidate_luma, c.width, c.height);
    if a.is_empty() && b.is_empty() {
        return Measured { score: None, summary: "neither image has text lines".into(), findings: Vec::new() };
    }
    let (amount_a, scale_a) = amount_and_scale(&a);
    let (amount_b, scale_b) = amount_and_scale(&b);
    let (amount_ratio, scale_ratio) = (ratio(amount_a, amount_b), ratio(scale_a, scale_b));
    let score = 100.0 * amount_ratio.sqrt() * scale_ratio;
    let mut findings = Vec::new();
    if scale_ratio < 0.95 && scale_a > 0.0 && scale_b > 0.0 {
        let change = (scale_b / scale_a - 1.0) * 100.0;
        findings.push(RawFinding {
            kind: FindingKind::TextScaleChanged,
            severity: TEXT_SCALE_PERCENT.severity(change.abs()),
            fix: format!(
                "make the text {} so its lines are about {:.1} px tall on average, as in the reference (now {:.1} px)",
                if change > 0.0 { "smaller" } else { "larger" },
                ref_px_f(c, scale_a),
                ref_px_f(c, scale_b)
            ),
            message: format!(
                "text lines are {:.0} % {} on average ({:.1} px where the reference has {:.1} px)",
                change.abs(),
                if change > 0.0 { "taller" } else { "shorter" },
                ref_px_f(c, scale_b),
                ref_px_f(c, scale_a)
            ),
            rect: None,
        });
    }
    if amount_ratio < 0.9 {
        let change = (amount_b / amount_a.max(1.0) - 1.0) * 100.0;
        findings.push(RawFinding {
            kind: FindingKind::TextAmountChanged,
            severity: if amount_a == 0.0 { Severity::High } else { Severity::by(change.abs(), 10.0, 30.0) },
            fix: if change > 0.0 {
                format!("remove the text the reference does not have ({} lines there, {} here)", a.len(), b.len())
            } else {
                format!("add the text the candidate lacks ({} lines in the reference, {} here)", a.len(), b.len())
            },
            message: if amount_a == 0.0 {
                format!("the candidate has {} text lines where the reference has none", b.len())
            } else {
                format!(
                    "the candidate has {:.0} % {} text ({} lines where the reference has {})",
                    change.abs(),
                    if change > 0.0 { "more" } else { "less" },
                    b.len(),
                    a.len()
                )
            },
            rect: None,
        });
    }
    let mut resized: Vec<(Rect, usize, usize)> = match_blocks(&a, &b)
        .into_iter()
        .filter(|&(i, j, _)| ratio(a[i].height() as f64, b[j].height() as f64) < RESIZED_RATIO)
        .map(|(i, j, _)| (a[i].union(&b[j]), a[i].height(), b[j].height()))
        .collect();
    resized.sort_by(|p, q| q.0.area().cmp(&p.0.area()).then(p.0.cmp(&q.0)));
    for (rect, ha, hb) in resized.into_iter().take(MAX_RESIZED_FINDINGS) {
        let (was, is) = (ref_px(c, ha), ref_px(c, hb));
        findings.push(RawFinding {
            kind: FindingKind::TextResized,
            severity: Severity::by(f64::from(was.abs_diff(is)) / f64::from(was.max(1)), 0.2, f64::INFINITY),
            message: format!("a text line is {is} px tall where the reference has {was} px"),
            fix: format!("size this text so its line is {was} px tall (now {is} px)"),
            rect: Some(rect),
        });
    }
    Measured {
        score: Some(score),
        summary: format!(
            "{} text lines, mean height {:.1} px (reference: {} lines, {:.1} px)",
            b.len(),
            ref_px_f(c, scale_b),
            a.len(),
            ref_px_f(c, scale_a)
        ),
        findings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake line of text: `glyphs` dark bars 3 px wide, 3 px apart, `height` tall.
    fn draw_line(luma: &mut [u8], width: usize, x: usize, y: usize, glyphs: usize, height: usize) {
        for g in 0..glyphs {
            for yy in y..y + height {
                for xx in x + g * 6..x + g * 6 + 3 {
                    luma[yy * width + xx] = 0;
                }
            }
        }
    }

    #[test]
    fn typography_finds_text_lines_and_skips_box_outlines() {
        let (w, h) = (300, 120);
        let mut luma = vec![255u8; w * h];
        draw_line(&mut luma, w, 10, 10, 30, 12);
        draw_line(&mut luma, w, 10, 40, 20, 20);
        // A 100 × 40 box outline, 2 px thick: no text.
        for y in 70..110 {
            for x in 150..250 {
                if !(72..108).contains(&y) || !(152..248).contains(&x) {
                    luma[y * w + x] = 0;
                }
            }
        }
        let lines = text_lines(&luma, w, h);
        // The gradient widens each line by one pixel on every side.
        assert_eq!(lines, vec![Rect { x0: 9, y0: 9, x1: 188, y1: 23 }, Rect { x0: 9, y0: 39, x1: 128, y1: 61 }]);
    }

    #[test]
    fn typography_joins_the_words_of_large_text_but_not_separate_labels() {
        let word = |x0: usize, x1: usize| Rect { x0, y0: 100, x1, y1: 130 };
        // A 12-px word gap in 30-px text joins; a 30-px gap between labels does not.
        let lines = join_words(vec![word(10, 100), word(112, 200), word(230, 300)]);
        assert_eq!(lines, vec![word(10, 200), word(230, 300)]);
        // Lines above each other never join.
        let stacked = vec![word(10, 100), Rect { x0: 10, y0: 140, x1: 100, y1: 170 }];
        assert_eq!(join_words(stacked.clone()), stacked);
    }

    #[test]
    fn typography_amount_and_scale_are_area_weighted() {
        let lines = [Rect { x0: 0, y0: 0, x1: 100, y1: 10 }, Rect { x0: 0, y0: 20, x1: 50, y1: 40 }];
        let (amount, scale) = amount_and_scale(&lines);
        assert_eq!(amount, 2000.0);
        assert_eq!(scale, (1000.0 * 10.0 + 1000.0 * 20.0) / 2000.0);
    }
}
