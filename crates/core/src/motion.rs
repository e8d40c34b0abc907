//! Comparing two animations (`compare_motion`) by how much each frame changes from the one
//! before, not by what the frames show.
//!
//! A sequence is a folder of frames (PNG files, sorted by name) or a list of frame files. Its
//! *signature* is, per consecutive pair, the mean absolute greyscale change divided by 255; its
//! *energy* is the mean of the signature; it *moves* when the energy exceeds [`MOTION_THRESHOLD`].
//! The status is `captureUnreliable` when a side's frames are all near-uniform (a blank or
//! failed capture), `static` when neither side moves, else `compared`, with score
//! `min/max energy × 100` when both move and 0 when only one does. Frame-index correlation of the
//! signatures is given only for equal frame counts and is never evidence of matching timing:
//! the frames carry no timestamps here.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::allowed_roots::check_allowed;
use crate::decode::{Durability, PngCompression, encode_png, write_atomic};
use crate::design::normalise::load_design_input;
use crate::error::{Error, Result};
use crate::image::RgbaImage;

/// Energy above which a sequence moves (mean greyscale change per frame, 0–1).
pub const MOTION_THRESHOLD: f64 = 0.0008;
/// Frames read per sequence when the caller does not say.
pub const DEFAULT_MAX_FRAMES: usize = 120;
/// The most frames a caller may ask for per sequence.
pub const MAX_FRAMES_LIMIT: usize = 1000;
/// A frame whose greyscale standard deviation is below this (0–255 levels) is near-uniform.
const UNIFORM_STDDEV: f64 = 2.0;

/// Where a sequence's frames come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameSequence {
    /// Every `.png` file in the folder, sorted by file name.
    Folder(PathBuf),
    /// These files, in this order (PNG or JPEG).
    Files(Vec<PathBuf>),
}

impl FrameSequence {
    /// One folder → [`FrameSequence::Folder`]; anything else → [`FrameSequence::Files`].
    pub fn from_paths(paths: &[PathBuf]) -> Self {
        match paths {
            [one] if one.is_dir() => FrameSequence::Folder(one.clone()),
            _ => FrameSequence::Files(paths.to_vec()),
        }
    }

    fn describe(&self) -> String {
        match self {
            FrameSequence::Folder(dir) => dir.display().to_string(),
            FrameSequence::Files(files) => format!("{} frame files", files.len()),
        }
    }
}

/// Options of [`compare_motion`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MotionOptions {
    /// Read at most this many frames per sequence (the first ones). Default 120, at most 1000.
    pub max_frames: usize,
}

impl Default for MotionOptions {
    fn default() -> Self {
        Self { max_frames: DEFAULT_MAX_FRAMES }
    }
}

/// The outcome of comparing two sequences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum MotionStatus {
    /// At least one side moves: `score` says how alike their amounts of motion are.
    Compared,
    /// Neither side moves: nothing to compare, `score` is null.
    Static,
    /// A side's frames are all near-uniform (blank or failed capture): `score` is null.
    CaptureUnreliable,
}

/// One sequence as measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MotionSide {
    /// Frames compared.
    pub frames: usize,
    /// Frames available (more than `frames` when `maxFrames` cut the sequence).
    pub frames_available: usize,
    /// Frame width in pixels.
    pub width: u32,
    /// Frame height in pixels.
    pub height: u32,
    /// Per consecutive pair, mean absolute greyscale change / 255 (rounded to 1e-6).
    pub signature: Vec<f64>,
    /// Mean of the signature (rounded to 1e-6).
    pub energy: f64,
    /// Whether `energy` exceeds the motion threshold (0.0008).
    pub moves: bool,
    /// Frames whose greyscale is near-uniform (standard deviation below 2 levels).
    pub uniform_frames: usize,
}

/// The result of [`compare_motion`]: serialised as is by the CLI (`--json`) and the MCP tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MotionComparison {
    /// `compared`, `static` or `captureUnreliable`.
    pub motion_status: MotionStatus,
    /// `min/max energy × 100` when both move, 0 when one moves, null otherwise (rounded to 0.01).
    pub score: Option<f64>,
    /// The reference sequence.
    pub reference: MotionSide,
    /// The candidate sequence.
    pub candidate: MotionSide,
    /// Pearson correlation of the two signatures by frame index, only for equal frame counts
    /// (and signatures that vary); not verified timing.
    pub frame_index_correlation: Option<f64>,
    /// What the correlation does and does not say, or why it is absent.
    pub correlation_note: String,
    /// Whether the timing (the rhythm of the motion) could be judged, and why not.
    pub timing: TimingDiagnostics,
    /// One sentence for people and agents.
    pub summary: String,
    /// The same numbers under the names of the motion tool this one replaces, so a client
    /// written for it reads them as before.
    #[serde(flatten)]
    pub legacy: LegacyMotionScores,
}

/// Whether timing can be judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TimingStatus {
    /// Both sequences move and line up frame by frame: `frameIndexCorrelation` compares their
    /// rhythm (frame by frame, which is timing only if both were sampled alike).
    Judged,
    /// The rhythm cannot be compared; the reasons say why.
    CannotJudge,
}

/// Whether the timing of the motion could be judged, with the reasons.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimingDiagnostics {
    pub status: TimingStatus,
    /// Why it cannot be judged, or, when judged, what the judgement rests on.
    pub reasons: Vec<String>,
}

/// The scores under the names the earlier motion tool used (snake case, its rounding).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LegacyMotionScores {
    /// `score` rounded to 0.1.
    pub motion_score: Option<f64>,
    /// `compared`, `static` or `capture_unreliable`.
    pub motion_status: &'static str,
    /// Smaller energy over larger (1 when neither has any), rounded to 0.001.
    pub energy_ratio: f64,
    /// `frameIndexCorrelation` (null unless the frame counts are equal).
    pub temporal_corr: Option<f64>,
    /// The reference's energy, rounded to 0.00001.
    pub ref_energy: f64,
    /// The candidate's energy, rounded to 0.00001.
    pub cand_energy: f64,
    pub ref_moving: bool,
    pub cand_moving: bool,
}

/// Compares two frame sequences read from files (each checked against
/// `SIGHTLINE_ALLOWED_ROOTS` and the image caps before decoding).
pub fn compare_motion(
    reference: &FrameSequence,
    candidate: &FrameSequence,
    options: &MotionOptions,
) -> Result<MotionComparison> {
    if options.max_frames < 2 || options.max_frames > MAX_FRAMES_LIMIT {
        return Err(Error::InvalidInput(format!(
            "maxFrames {} is outside 2..{MAX_FRAMES_LIMIT}; use e.g. {DEFAULT_MAX_FRAMES}",
            options.max_frames
        )));
    }
    let (a, b) =
        rayon::join(|| measure_files(reference, options.max_frames), || measure_files(candidate, options.max_frames));
    Ok(compare_sides(a?, b?))
}

/// The frame paths of a sequence (checked against the allowed roots), and how many exist.
pub fn frame_paths(sequence: &FrameSequence, max_frames: usize) -> Result<(Vec<PathBuf>, usize)> {
    let mut paths = match sequence {
        FrameSequence::Folder(dir) => {
            let dir = check_allowed(dir)?;
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .map_err(|e| Error::io(&dir, e))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x.eq_ignore_ascii_case("png")))
                .collect();
            files.sort();
            files
        }
        FrameSequence::Files(files) => files.clone(),
    };
    let available = paths.len();
    if available < 2 {
        return Err(Error::BadFrames {
            what: sequence.describe(),
            detail: format!("{available} frame(s) found, at least 2 are needed"),
        });
    }
    paths.truncate(max_frames);
    Ok((paths, available))
}

/// Measures a sequence from its files. Frames are decoded a few at a time (one per thread) and
/// kept only as greyscale until the next frame is compared, so memory stays at a handful of
/// frames however many are read.
fn measure_files(sequence: &FrameSequence, max_frames: usize) -> Result<MotionSide> {
    let (paths, available) = frame_paths(sequence, max_frames)?;
    let mut side = SideAccumulator::default();
    for chunk in paths.chunks(rayon::current_num_threads().max(1)) {
        // load_design_input checks each file against the allowed roots (symlinks in a folder too).
        let greys: Vec<(Vec<u8>, u32, u32)> = chunk
            .par_iter()
            .map(|p| load_design_input(p).map(|f| (grey(&f), f.width(), f.height())))
            .collect::<Result<_>>()?;
        for ((g, w, h), path) in greys.into_iter().zip(chunk) {
            side.push(g, w, h, &path.display().to_string())?;
        }
    }
    let mut side = side.finish(&sequence.describe())?;
    side.frames_available = available;
    Ok(side)
}

/// Greyscale (Rec. 601 luma over white) of one frame.
fn grey(frame: &RgbaImage) -> Vec<u8> {
    frame
        .as_bytes()
        .chunks_exact(4)
        .map(|p| {
            let a = u32::from(p[3]);
            let over = |c: u8| (u32::from(c) * a + 255 * (255 - a) + 127) / 255;
            ((299 * over(p[0]) + 587 * over(p[1]) + 114 * over(p[2]) + 500) / 1000) as u8
        })
        .collect()
}

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

/// A sequence measured frame by frame: only the previous frame's greyscale is kept.
#[derive(Default)]
struct SideAccumulator {
    previous: Option<Vec<u8>>,
    size: Option<(u32, u32)>,
    signature: Vec<f64>,
    frames: usize,
    uniform_frames: usize,
}

impl SideAccumulator {
    /// Adds the next frame's greyscale; `what` names it in errors.
    fn push(&mut self, grey: Vec<u8>, width: u32, height: u32, what: &str) -> Result<()> {
        match self.size {
            Some((w, h)) if (w, h) != (width, height) => {
                return Err(Error::BadFrames {
                    what: what.to_string(),
                    detail: format!("this frame is {width}×{height} but the first is {w}×{h}"),
                });
            }
            _ => self.size = Some((width, height)),
        }
        let n = grey.len().max(1) as f64;
        let mean = grey.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
        let variance = grey.iter().map(|&v| (f64::from(v) - mean).powi(2)).sum::<f64>() / n;
        if variance.sqrt() < UNIFORM_STDDEV {
            self.uniform_frames += 1;
        }
        if let Some(previous) = &self.previous {
            let sum: u64 = previous.iter().zip(&grey).map(|(&a, &b)| u64::from(a.abs_diff(b))).sum();
            self.signature.push(sum as f64 / n / 255.0);
        }
        self.previous = Some(grey);
        self.frames += 1;
        Ok(())
    }

    /// The measured side; `what` names the sequence in errors.
    fn finish(self, what: &str) -> Result<MotionSide> {
        let Some((width, height)) = self.size.filter(|_| self.frames >= 2) else {
            return Err(Error::BadFrames {
                what: what.to_string(),
                detail: format!("{} frame(s), at least 2 are needed", self.frames),
            });
        };
        let energy = self.signature.iter().sum::<f64>() / self.signature.len() as f64;
        Ok(MotionSide {
            frames: self.frames,
            frames_available: self.frames,
            width,
            height,
            signature: self.signature.iter().map(|&v| round6(v)).collect(),
            energy: round6(energy),
            moves: energy > MOTION_THRESHOLD,
            uniform_frames: self.uniform_frames,
        })
    }
}

/// Measures decoded frames; `what` names the sequence in errors.
fn measure_side(frames: &[RgbaImage], what: &str) -> Result<MotionSide> {
    let mut side = SideAccumulator::default();
    for (i, f) in frames.iter().enumerate() {
        side.push(grey(f), f.width(), f.height(), &format!("{what} frame {i}"))?;
    }
    side.finish(what)
}

/// Pearson correlation, or `None` when either series is constant.
fn pearson(a: &[f64], b: &[f64]) -> Option<f64> {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    (va > 0.0 && vb > 0.0).then(|| cov / (va * vb).sqrt())
}

/// Compares two decoded frame sequences; see [`compare_motion`].
pub fn compare_motion_frames(reference: &[RgbaImage], candidate: &[RgbaImage]) -> Result<MotionComparison> {
    Ok(compare_sides(measure_side(reference, "reference")?, measure_side(candidate, "candidate")?))
}

/// Status, score and correlation from two measured sides.
fn compare_sides(a: MotionSide, b: MotionSide) -> MotionComparison {
    let unreliable = |s: &MotionSide| s.uniform_frames == s.frames;
    let (motion_status, score) = if unreliable(&a) || unreliable(&b) {
        (MotionStatus::CaptureUnreliable, None)
    } else if !a.moves && !b.moves {
        (MotionStatus::Static, None)
    } else if a.moves && b.moves {
        (MotionStatus::Compared, Some(a.energy.min(b.energy) / a.energy.max(b.energy) * 100.0))
    } else {
        (MotionStatus::Compared, Some(0.0))
    };
    let score = score.map(|s| (s * 100.0).round() / 100.0);
    let (frame_index_correlation, correlation_note) = if a.frames != b.frames {
        (
            None,
            format!(
                "not computed: the sequences have {} and {} frames, so frame indices do not line up",
                a.frames, b.frames
            ),
        )
    } else {
        match pearson(&a.signature, &b.signature) {
            Some(r) => (
                Some((r * 1e4).round() / 1e4),
                "correlation of the signatures by frame index; equal frame counts do not prove equal timing"
                    .to_string(),
            ),
            None => (None, "not computed: a signature is constant".to_string()),
        }
    };
    let timing = timing(&a, &b, motion_status, frame_index_correlation, &correlation_note);
    let round = |v: f64, places: i32| (v * 10f64.powi(places)).round() / 10f64.powi(places);
    let largest = a.energy.max(b.energy);
    let legacy = LegacyMotionScores {
        motion_score: score.map(|s| round(s, 1)),
        motion_status: match motion_status {
            MotionStatus::Compared => "compared",
            MotionStatus::Static => "static",
            MotionStatus::CaptureUnreliable => "capture_unreliable",
        },
        energy_ratio: if largest > 1e-6 { round(a.energy.min(b.energy) / largest, 3) } else { 1.0 },
        temporal_corr: frame_index_correlation,
        ref_energy: round(a.energy, 5),
        cand_energy: round(b.energy, 5),
        ref_moving: a.moves,
        cand_moving: b.moves,
    };
    let summary = match motion_status {
        MotionStatus::CaptureUnreliable => {
            let side = if unreliable(&a) { "reference" } else { "candidate" };
            format!("the {side} frames are all near-uniform (blank or failed capture); capture them again")
        }
        MotionStatus::Static => {
            format!("neither sequence moves (energy {:.6} and {:.6}, threshold {MOTION_THRESHOLD})", a.energy, b.energy)
        }
        MotionStatus::Compared if a.moves && b.moves => format!(
            "both move: energy {:.6} (reference) and {:.6} (candidate), score {:.2}",
            a.energy,
            b.energy,
            score.unwrap_or(0.0)
        ),
        MotionStatus::Compared => format!(
            "only the {} moves (energy {:.6} against {:.6}), score 0",
            if a.moves { "reference" } else { "candidate" },
            a.energy.max(b.energy),
            a.energy.min(b.energy)
        ),
    };
    MotionComparison {
        motion_status,
        score,
        reference: a,
        candidate: b,
        frame_index_correlation,
        correlation_note,
        timing,
        summary,
        legacy,
    }
}

/// Whether the rhythm of the two motions can be compared: both must move and line up frame by
/// frame with signatures that vary.
fn timing(
    a: &MotionSide,
    b: &MotionSide,
    status: MotionStatus,
    correlation: Option<f64>,
    correlation_note: &str,
) -> TimingDiagnostics {
    let cannot = |reason: String| TimingDiagnostics { status: TimingStatus::CannotJudge, reasons: vec![reason] };
    match status {
        MotionStatus::CaptureUnreliable => {
            return cannot("a capture is blank (near-uniform frames), so it has no timing to judge".into());
        }
        MotionStatus::Static => return cannot("neither sequence moves, so there is no timing to judge".into()),
        MotionStatus::Compared if !(a.moves && b.moves) => {
            let still = if a.moves { "candidate" } else { "reference" };
            return cannot(format!("the {still} does not move, so there is no rhythm to set against the other's"));
        }
        MotionStatus::Compared => {}
    }
    match correlation {
        None => cannot(format!("timing {correlation_note}")),
        Some(_) => TimingDiagnostics {
            status: TimingStatus::Judged,
            reasons: vec![
                "the frames carry no timestamps here: frame i of one is taken as the same moment as frame i of the other, which holds only if both were sampled at the same rate from the same start (extract_video_frames or capture_frames with the same settings)"
                    .into(),
            ],
        },
    }
}

/// Chart size in pixels.
const CHART_WIDTH: usize = 640;
const CHART_HEIGHT: usize = 240;
const CHART_MARGIN: usize = 20;
/// Series colours: the reference blue, the candidate red.
const REFERENCE_COLOUR: [u8; 4] = [40, 120, 220, 255];
const CANDIDATE_COLOUR: [u8; 4] = [220, 60, 60, 255];

/// The signature chart: both signatures as polylines over the frame pairs (each stretched to the
/// full width), blue the reference (wider, underneath), red the candidate, on a shared vertical
/// scale from 0 to the largest value plus a tenth (at least twice the motion threshold, which is
/// drawn as a grey line).
pub fn signature_chart(comparison: &MotionComparison) -> RgbaImage {
    let mut img =
        RgbaImage::filled(CHART_WIDTH as u32, CHART_HEIGHT as u32, [255, 255, 255, 255]).expect("small chart");
    let (x0, x1) = (CHART_MARGIN as f64, (CHART_WIDTH - CHART_MARGIN) as f64);
    let (y_top, y_bottom) = (CHART_MARGIN as f64, (CHART_HEIGHT - CHART_MARGIN) as f64);
    let max = comparison
        .reference
        .signature
        .iter()
        .chain(&comparison.candidate.signature)
        .fold(2.0 * MOTION_THRESHOLD, |m, &v| m.max(v))
        * 1.1;
    let y_of = |v: f64| y_bottom - (v / max) * (y_bottom - y_top);
    // Axes and the threshold.
    draw_line(&mut img, (x0, y_bottom), (x1, y_bottom), [120, 120, 120, 255], 1);
    draw_line(&mut img, (x0, y_top), (x0, y_bottom), [120, 120, 120, 255], 1);
    let t = y_of(MOTION_THRESHOLD);
    draw_line(&mut img, (x0, t), (x1, t), [200, 200, 200, 255], 1);
    // The reference is drawn wider underneath, so where the two coincide both stay visible.
    for (series, colour, thickness) in
        [(&comparison.reference.signature, REFERENCE_COLOUR, 4), (&comparison.candidate.signature, CANDIDATE_COLOUR, 2)]
    {
        let n = series.len();
        let x_of = |i: usize| if n < 2 { (x0 + x1) / 2.0 } else { x0 + (x1 - x0) * i as f64 / (n - 1) as f64 };
        for i in 1..n {
            draw_line(&mut img, (x_of(i - 1), y_of(series[i - 1])), (x_of(i), y_of(series[i])), colour, thickness);
        }
        if n == 1 {
            draw_line(&mut img, (x0, y_of(series[0])), (x1, y_of(series[0])), colour, thickness);
        }
    }
    img
}

/// A line of `thickness` px (a square brush stepped along the longer axis).
fn draw_line(img: &mut RgbaImage, from: (f64, f64), to: (f64, f64), colour: [u8; 4], thickness: i64) {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let steps = (to.0 - from.0).abs().max((to.1 - from.1).abs()).ceil().max(1.0) as i64;
    for s in 0..=steps {
        let t = s as f64 / steps as f64;
        let cx = (from.0 + (to.0 - from.0) * t).round() as i64;
        let cy = (from.1 + (to.1 - from.1) * t).round() as i64;
        for dy in 0..thickness {
            for dx in 0..thickness {
                let (x, y) = (cx + dx - thickness / 2, cy + dy - thickness / 2);
                if (0..w).contains(&x) && (0..h).contains(&y) {
                    let i = ((y * w + x) * 4) as usize;
                    img.as_bytes_mut()[i..i + 4].copy_from_slice(&colour);
                }
            }
        }
    }
}

/// Writes the signature chart as a PNG (checked against `SIGHTLINE_ALLOWED_ROOTS`).
pub fn write_signature_chart(comparison: &MotionComparison, path: &Path) -> Result<PathBuf> {
    let path = check_allowed(path)?;
    write_atomic(&path, &encode_png(&signature_chart(comparison), PngCompression::Smallest)?, Durability::RunOutput)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` frames 64 × 48 of a light page with a dark 8 × 8 square moving `step` px per frame.
    fn moving_square(n: usize, step: u32) -> Vec<RgbaImage> {
        (0..n as u32)
            .map(|i| {
                let mut img = RgbaImage::filled(64, 48, [240, 240, 240, 255]).unwrap();
                for y in 20..28 {
                    for x in 4 + i * step..12 + i * step {
                        let at = ((y * 64 + x) * 4) as usize;
                        img.as_bytes_mut()[at..at + 4].copy_from_slice(&[0, 0, 0, 255]);
                    }
                }
                img
            })
            .collect()
    }

    #[test]
    fn motion_signature_is_the_mean_grey_change() {
        let frames = moving_square(3, 8);
        let side = measure_side(&frames, "test").unwrap();
        // Moving by its own width: 128 pixels change by 240 levels out of 3072.
        let expected = round6(128.0 * 240.0 / 3072.0 / 255.0);
        assert_eq!(side.signature, vec![expected, expected]);
        assert_eq!(side.energy, expected);
        assert!(side.moves);
        assert_eq!(side.uniform_frames, 0);
    }

    #[test]
    fn motion_moving_against_static_is_compared_with_score_zero() {
        let moving = moving_square(5, 4);
        let still = vec![moving_square(1, 0).remove(0); 5];
        let r = compare_motion_frames(&moving, &still).unwrap();
        assert_eq!((r.motion_status, r.score), (MotionStatus::Compared, Some(0.0)));
        assert!(r.reference.moves && !r.candidate.moves);
        let s = compare_motion_frames(&still, &still).unwrap();
        assert_eq!((s.motion_status, s.score), (MotionStatus::Static, None));
    }

    #[test]
    fn motion_equal_sequences_score_100_and_correlate_by_index() {
        let mut a = moving_square(4, 4);
        // Vary the steps so the signature is not constant: the last frame jumps further.
        a.push(moving_square(8, 4).pop().unwrap());
        let r = compare_motion_frames(&a, &a).unwrap();
        assert_eq!((r.motion_status, r.score), (MotionStatus::Compared, Some(100.0)));
        assert_eq!(r.frame_index_correlation, Some(1.0));
        // Half the motion scores 50.
        let slow = moving_square(5, 2);
        let fast = moving_square(5, 4);
        let r = compare_motion_frames(&slow, &fast).unwrap();
        assert_eq!(r.score, Some(50.0));
        assert_eq!(r.frame_index_correlation, None, "constant signatures do not correlate");
        let r = compare_motion_frames(&moving_square(4, 4), &fast).unwrap();
        assert_eq!(
            r.correlation_note,
            "not computed: the sequences have 4 and 5 frames, so frame indices do not line up"
        );
    }

    #[test]
    fn motion_uniform_frames_are_capture_unreliable() {
        let blank: Vec<RgbaImage> =
            (0..4).map(|i| RgbaImage::filled(32, 32, [i * 40, i * 40, i * 40, 255]).unwrap()).collect();
        let r = compare_motion_frames(&blank, &moving_square(4, 4)).unwrap();
        assert_eq!((r.motion_status, r.score), (MotionStatus::CaptureUnreliable, None));
        assert_eq!(r.reference.uniform_frames, 4);
        assert_eq!(
            r.summary,
            "the reference frames are all near-uniform (blank or failed capture); capture them again"
        );
    }

    #[test]
    fn motion_timing_is_judged_only_when_both_move_frame_by_frame() {
        let mut varied = moving_square(4, 4);
        varied.push(moving_square(8, 4).pop().unwrap());
        let judged = compare_motion_frames(&varied, &varied).unwrap();
        assert_eq!(judged.timing.status, TimingStatus::Judged);
        assert!(judged.timing.reasons[0].starts_with("the frames carry no timestamps here"));
        let still = vec![moving_square(1, 0).remove(0); 5];
        let cases = [
            (
                compare_motion_frames(&varied, &still).unwrap(),
                "the candidate does not move, so there is no rhythm to set against the other's",
            ),
            (compare_motion_frames(&still, &still).unwrap(), "neither sequence moves, so there is no timing to judge"),
            (
                compare_motion_frames(&moving_square(4, 4), &varied).unwrap(),
                "timing not computed: the sequences have 4 and 5 frames, so frame indices do not line up",
            ),
            (
                compare_motion_frames(&moving_square(5, 2), &moving_square(5, 4)).unwrap(),
                "timing not computed: a signature is constant",
            ),
        ];
        for (r, reason) in cases {
            assert_eq!(
                (r.timing.status, r.timing.reasons.as_slice()),
                (TimingStatus::CannotJudge, &[reason.to_string()][..])
            );
        }
    }

    #[test]
    fn motion_gives_the_earlier_tools_names_too() {
        let r = compare_motion_frames(&moving_square(5, 2), &moving_square(5, 4)).unwrap();
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["motion_score"], 50.0);
        assert_eq!(json["motion_status"], "compared");
        assert_eq!(json["energy_ratio"], 0.5);
        assert_eq!(json["temporal_corr"], serde_json::Value::Null);
        assert_eq!((json["ref_moving"].as_bool(), json["cand_moving"].as_bool()), (Some(true), Some(true)));
        assert_eq!(json["ref_energy"], (r.reference.energy * 1e5).round() / 1e5);
        // Ours stay as they were beside them.
        assert_eq!((json["motionStatus"].as_str(), json["score"].as_f64()), (Some("compared"), Some(50.0)));
        let blank: Vec<RgbaImage> = (0..3).map(|_| RgbaImage::filled(8, 8, [9, 9, 9, 255]).unwrap()).collect();
        let unreliable = serde_json::to_value(compare_motion_frames(&blank, &blank).unwrap()).unwrap();
        assert_eq!(
            (unreliable["motion_status"].as_str(), unreliable["energy_ratio"].as_f64()),
            (Some("capture_unreliable"), Some(1.0))
        );
    }

    #[test]
    fn motion_needs_two_frames() {
        assert!(matches!(
            compare_motion_frames(&moving_square(1, 0), &moving_square(3, 1)),
            Err(Error::BadFrames { .. })
        ));
    }

    #[test]
    fn motion_chart_draws_both_series() {
        let r = compare_motion_frames(&moving_square(5, 2), &moving_square(5, 4)).unwrap();
        let chart = signature_chart(&r);
        assert_eq!((chart.width(), chart.height()), (640, 240));
        let has = |c: [u8; 4]| chart.as_bytes().chunks_exact(4).any(|p| p == c);
        assert!(has(REFERENCE_COLOUR) && has(CANDIDATE_COLOUR));
        assert_eq!(signature_chart(&r), chart, "deterministic");
    }
}
