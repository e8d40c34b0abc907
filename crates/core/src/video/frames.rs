//! Which decoded frame serves each requested time (compared exactly in integers: the first frame
//! at or after it), and the one ffmpeg pass that writes those frames by their index.

use super::ExtractOptions;
use super::input::Recording;
use super::run::{CallLimits, run};
use std::path::Path;

use crate::error::{Error, Result};

/// For each requested time `start + i / fps` (i < `samples`), the first frame whose timestamp
/// (`relative`: ticks from the first frame, rising) is at or after it, compared exactly in
/// integers: ticks × num / den ≥ (start_ms × fps + 1000 i) / (1000 × fps).
pub(super) fn pick_frames(
    relative: &[i64],
    (num, den): (i64, i64),
    options: &ExtractOptions,
    samples: u64,
) -> Vec<Option<usize>> {
    let fps = i128::from(options.fps);
    (0..samples)
        .map(|i| {
            let wanted = (i128::from(options.start_ms) * fps + 1000 * i128::from(i)) * i128::from(den);
            let at = relative.partition_point(|&ticks| i128::from(ticks) * i128::from(num) * 1000 * fps < wanted);
            (at < relative.len()).then_some(at)
        })
        .collect()
}

/// The `select` filter's expression that is true for the decoded frames at `indexes`
/// (ascending): runs of neighbours as one `between`, and the terms summed in parenthesised
/// groups of 20, since ffmpeg's expression parser refuses a flat sum of about a hundred terms.
pub(super) fn select_expression(indexes: &[usize]) -> String {
    let mut terms: Vec<String> = Vec::new();
    let mut i = 0;
    while i < indexes.len() {
        let mut j = i;
        while j + 1 < indexes.len() && indexes[j + 1] == indexes[j] + 1 {
            j += 1;
        }
        terms.push(if i == j {
            format!("eq(n\\,{})", indexes[i])
        } else {
            format!("between(n\\,{}\\,{})", indexes[i], indexes[j])
        });
        i = j + 1;
    }
    terms.chunks(20).map(|group| format!("({})", group.join("+"))).collect::<Vec<_>>().join("+")
}

/// Writes the decoded frames at `indexes` (ascending) as `frame-000.png`, `frame-001.png`, …
/// into `dir`, in one decoding pass that selects them by their place among the decoded frames,
/// the same order ffprobe listed their timestamps in.
pub(super) fn extract_frames(
    ffmpeg: &Path,
    recording: &Recording,
    indexes: &[usize],
    dir: &Path,
    limits: &CallLimits,
) -> Result<()> {
    if indexes.is_empty() {
        return Ok(());
    }
    let filter = format!("select='{}'", select_expression(indexes));
    let count = indexes.len().to_string();
    let (input, target) = (recording.input(), dir.join("frame-%03d.png").display().to_string());
    let mut args = vec!["-v", "error", "-nostdin"];
    args.extend_from_slice(recording.container.input_args());
    args.extend_from_slice(&["-i", &input, "-map", "0:v:0", "-vf", &filter, "-fps_mode", "passthrough"]);
    args.extend_from_slice(&["-frames:v", &count, "-start_number", "0", "-f", "image2", "-c:v", "png", &target]);
    let during = format!("while ffmpeg extracted the {count} frames");
    run(ffmpeg, &args, limits.video, limits, &during)?;
    for (k, index) in indexes.iter().enumerate() {
        if !dir.join(format!("frame-{k:03}.png")).is_file() {
            return Err(Error::InvalidInput(format!(
                "{}: ffmpeg wrote {k} of the {count} frames (frame {index} of the recording is missing); is it a complete recording?",
                limits.video.display()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn video_picks_the_first_frame_at_or_after_each_time_exactly() {
        let at = |fps, start_ms, duration_ms| ExtractOptions { start_ms, duration_ms, fps };
        // 30 fps in a 1/30 time base, sampled at 30 fps: frame i for time i / 30 (66.7 ms is
        // frame 2, not 3).
        let frames: Vec<i64> = (0..30).collect();
        let picks = pick_frames(&frames, (1, 30), &at(30, 0, 1000), 30);
        assert_eq!(picks, (0..30).map(Some).collect::<Vec<_>>());
        // 29.97 fps (1001 ticks of 1/30000 a frame) sampled at 30 fps: still frame i, since
        // i × 1001 ≥ i × 1000 and (i − 1) × 1001 < i × 1000 for i < 1001.
        let ntsc: Vec<i64> = (0..120).map(|i| i * 1001).collect();
        let picks = pick_frames(&ntsc, (1, 30_000), &at(30, 0, 4000), 120);
        assert_eq!(picks, (0..120).map(Some).collect::<Vec<_>>());
        // 25 fps in a 1/1000 time base sampled at 30 fps: times 0, 33.3, 66.7, 100, … take frames
        // 0 (0), 1 (40), 2 (80), 3 (120), 4 (160), 5 (200), 5 (200 at 200 ms): every sixth shares.
        let pal: Vec<i64> = (0..10).map(|i| i * 40).collect();
        let picks = pick_frames(&pal, (1, 1000), &at(30, 0, 233), 7);
        assert_eq!(picks, [Some(0), Some(1), Some(2), Some(3), Some(4), Some(5), Some(5)]);
        // A window from 300 ms at 20 fps: 300 → 320, 350 → 360, and 400 is past the last frame.
        let picks = pick_frames(&pal, (1, 1000), &at(20, 300, 150), 3);
        assert_eq!(picks, [Some(8), Some(9), None]);
    }

    #[test]
    fn video_select_expression_joins_runs_and_groups_terms() {
        assert_eq!(select_expression(&[0, 1, 2, 5, 7, 8]), "(between(n\\,0\\,2)+eq(n\\,5)+between(n\\,7\\,8))");
        // 120 lone frames: six groups of twenty.
        let every_other: Vec<usize> = (0..120).map(|i| 2 * i).collect();
        let expression = select_expression(&every_other);
        assert_eq!(expression.matches("eq(").count(), 120);
        assert_eq!(expression.matches(")+(").count(), 5);
    }
}
