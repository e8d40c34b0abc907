//! Frames from a local recording (`extract_video_frames`, 04-design-and-motion.md): `.mp4`,
//! `.mov` and `.webm` (Playwright's own test videos), sampled at a fixed rate over a bounded window
//! with ffprobe and ffmpeg run as subprocesses with argument arrays.
//!
//! The decoder is locked down, because a file named `.mp4` can be an ffconcat script or a
//! playlist that makes ffmpeg read other files or the network:
//! - the container is judged by the file's first bytes (ISO BMFF / QuickTime or EBML), must agree
//!   with the extension, and its demuxer is forced (`-f mov` / `-f matroska`), so no probing can
//!   pick a script or playlist demuxer; anything else is refused before any tool runs;
//! - URLs are refused as inputs, only the `file` protocol is allowed, and MOV's external data
//!   references are off (`-enable_drefs 0`);
//! - the path is resolved (symlinks, `..`) before the `SIGHTLINE_ALLOWED_ROOTS` check and the
//!   tools are given the resolved file, so a symlink swapped after the check redirects nothing;
//! - every tool run of one call shares one deadline (`SIGHTLINE_VIDEO_TIMEOUT_MS`), at most
//!   [`MAX_CONCURRENT_EXTRACTIONS`] calls run at once in a process (a waiting call's wait counts
//!   against its deadline), and a [`CancelFlag`] stops the running tool.
//!
//! The tools decode a private copy of the recording, hashed (SHA-256) as it is made, so the
//! manifest names exactly the bytes decoded. Which source frame serves each requested time is
//! decided from the decoder's own integer timestamps (ffprobe's `best_effort_timestamp` in the
//! stream's time base), compared exactly with the requested time: the first frame at or after it.
//! Times count from the first decoded frame (a recording may begin at 2 s); duplicate or
//! decreasing timestamps are an error, since no frame can then be chosen by time. A source frame
//! serving several times is extracted once and the later times are `shared`; all the frames are
//! extracted in one decoding pass that selects them by their place among the decoded frames.
//! The frames are written into a hidden sibling folder that is renamed into place, read-only,
//! only when complete: a refused, failed, timed-out or cancelled call leaves nothing on disk.

/// Which decoded frame serves each time, and the ffmpeg pass that writes them.
mod frames;
/// The recording as given: its container by its bytes, URLs refused, the private copy.
mod input;
/// The partial folder, published into place read-only.
mod output;
/// ffprobe's answers, typed.
mod probe;
/// Tool runs within one call's deadline, cancel flag and slots.
mod run;

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::allowed_roots::check_allowed;
use crate::error::{Error, Result};
use frames::{extract_frames, pick_frames};
use input::{Recording, open_recording, snapshot};
use output::{FramesFolder, create_output_root, make_read_only, new_folder, remove_made_folders};
use probe::{frame_timestamps, probe_stream};
use run::{CallLimits, SLOTS, tool, version};

pub use input::{Container, refuse_url, sniff_container};
pub use run::{CancelFlag, video_timeout};

/// The window is 1–20000 ms.
pub const MAX_DURATION_MS: u64 = 20_000;
/// Sampling rate limits.
pub const MAX_FPS: u32 = 30;
/// At most this many requested times per call.
pub const MAX_SAMPLES: u64 = 120;
/// Recordings above this size are refused before any tool reads them.
pub const MAX_VIDEO_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// Frames larger than this on either side are refused (4K and below pass).
pub const MAX_SIDE: u32 = 4096;
// The deadline's setting lives with the error that names it, so `error` depends on nothing.
/// Extractions running at once in one process; a further call waits for one to finish. Each
/// runs one decoder at a time, so two keep a small machine responsive.
pub const MAX_CONCURRENT_EXTRACTIONS: usize = 2;

/// What to sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractOptions {
    /// Start of the window, from the recording's first frame. Default 0.
    pub start_ms: u64,
    /// Length of the window, 1–20000 ms.
    pub duration_ms: u64,
    /// Samples per second, 1–30. Default 5.
    pub fps: u32,
}

/// Samples per second when the caller gives none.
pub const DEFAULT_FPS: u32 = 5;

impl Default for ExtractOptions {
    fn default() -> Self {
        Self { start_ms: 0, duration_ms: 1000, fps: DEFAULT_FPS }
    }
}

/// How one requested time was served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FrameStatus {
    /// A source frame extracted for this time.
    Selected,
    /// The same source frame as an earlier time (no new frame began between the two).
    Shared,
    /// No source frame begins at or after this time: the recording ends first.
    Unavailable,
}

/// How completely the window was sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Sampling {
    /// Every requested time has a frame of its own.
    Complete,
    /// Every requested time has a frame, but some share one (sampling faster than the recording
    /// changes frame): the timeline repeats those frames.
    Sparse,
    /// Some requested times have no frame: the recording's last frame begins before them.
    Incomplete,
}

/// One requested time.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SampledFrame {
    /// Milliseconds from the recording's first frame (start + i / fps), rounded to 0.001.
    pub requested_ms: f64,
    pub status: FrameStatus,
    /// The source frame's place among the decoded frames, from 0.
    pub frame_index: Option<usize>,
    /// The source frame's presentation timestamp, in the stream's time base, as decoded.
    pub pts: Option<i64>,
    /// When the source frame begins, in ms from the first frame (rounded to 0.001).
    pub actual_ms: Option<f64>,
    /// The frame's PNG (absolute path); shared times point at the earlier file.
    pub file: Option<String>,
}

/// The recording the frames came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VideoSource {
    pub path: String,
    pub bytes: u64,
    /// SHA-256 of the exact bytes decoded (a private copy taken at the start of the call), hex.
    pub sha256: String,
    pub codec: String,
    /// The coded size; the frames are written upright, so a `rotation` of 90 or 270 swaps it.
    pub width: u32,
    pub height: u32,
    /// The length from the first frame, as the container gives it.
    pub duration_ms: f64,
    /// The stream's time base, in which `pts` counts ("1/15360").
    pub time_base: String,
    /// The stream's frame rate as the container gives it ("30000/1001"); variable-rate
    /// recordings give a nominal rate.
    pub frame_rate: String,
    /// The first decoded frame's timestamp: every time is measured from it.
    pub first_pts: i64,
    /// Display rotation in degrees clockwise (0, 90, 180, 270) from the stream's display matrix.
    pub rotation: i32,
}

/// What `extract_video_frames` returns (also written as `manifest.json` next to the frames).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameManifest {
    pub source: VideoSource,
    pub start_ms: u64,
    pub duration_ms: u64,
    pub fps: u32,
    /// Complete, sparse or incomplete.
    pub sampling: Sampling,
    /// The folder holding the frames and the manifest.
    pub output_dir: String,
    /// This manifest's file.
    pub manifest_path: String,
    /// The distinct frame files, in time order.
    pub files: Vec<String>,
    /// The frame for each requested time that had one (a shared frame repeats): the sequence
    /// to give `compare_motion`, since a repeated frame is a stretch without motion.
    pub timeline: Vec<String>,
    pub frames: Vec<SampledFrame>,
    /// `ffmpeg -version` and `ffprobe -version` first lines.
    pub tools: Vec<String>,
}

/// Samples `video` into a new folder under `output_root`. A file that is not a recording is
/// refused before any tool runs; `cancel` (or the deadline) stops a running call; a call that
/// fails in any way leaves nothing on disk.
pub fn extract_video_frames(
    video: &Path,
    output_root: &Path,
    options: &ExtractOptions,
    cancel: &CancelFlag,
) -> Result<FrameManifest> {
    // The deadline counts from the call, so a wait for a free slot spends it too.
    let started = Instant::now();
    refuse_url(video)?;
    let samples = check_options(options)?;
    let limit = video_timeout()?;
    let recording = open_recording(video)?;
    let output_root = check_allowed(output_root)?;
    let ffprobe = tool("ffprobe", "SIGHTLINE_FFPROBE")?;
    let ffmpeg = tool("ffmpeg", "SIGHTLINE_FFMPEG")?;
    let limits = CallLimits { video, started, limit, cancel };
    let _slot = SLOTS.acquire(&limits)?;

    let made_folders = create_output_root(&output_root)?;
    let stem = recording.resolved.file_stem().and_then(|s| s.to_str()).unwrap_or("video");
    let stem: String =
        stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).take(40).collect();
    let folder = match new_folder(&output_root, &stem) {
        Ok(folder) => folder,
        Err(e) => {
            remove_made_folders(&made_folders);
            return Err(e);
        }
    };
    let result = sample_into(&folder, &recording, options, samples, &ffprobe, &ffmpeg, &limits);
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&folder.partial);
        remove_made_folders(&made_folders);
    }
    result
}

/// The work of one call inside its partial folder: snapshot the recording, read its frames'
/// timestamps, choose and extract the frames, write the manifest, publish the folder.
fn sample_into(
    folder: &FramesFolder,
    recording: &Recording,
    options: &ExtractOptions,
    samples: u64,
    ffprobe: &Path,
    ffmpeg: &Path,
    limits: &CallLimits,
) -> Result<FrameManifest> {
    let video = limits.video;
    // The tools decode a private copy, hashed as it is made: the hash names exactly the bytes
    // decoded, and a file changed or swapped meanwhile changes nothing.
    let (sha256, source) = snapshot(recording, &folder.partial, limits)?;
    let stream = probe_stream(ffprobe, &source, limits)?;
    if stream.width > MAX_SIDE || stream.height > MAX_SIDE {
        return Err(Error::SideTooLong {
            path: video.to_path_buf(),
            width: stream.width.into(),
            height: stream.height.into(),
            limit: MAX_SIDE.into(),
        });
    }
    let end_ms = options.start_ms + options.duration_ms;
    let frames = frame_timestamps(ffprobe, &source, limits, &stream, end_ms)?;
    let first_pts = frames[0];
    let first_s = first_pts as f64 * stream.time_base.0 as f64 / stream.time_base.1 as f64;
    // Containers disagree on whether their duration counts from 0 or from the first frame.
    let container_s = stream.container_duration_s;
    let duration_ms = if container_s > first_s { container_s - first_s } else { container_s } * 1000.0;
    if end_ms as f64 > duration_ms + 0.5 {
        return Err(Error::InvalidInput(format!(
            "{}: the window {}–{end_ms} ms ends after the recording ({duration_ms:.0} ms from its first frame); choose startMs + durationMs ≤ {duration_ms:.0}",
            video.display(),
            options.start_ms
        )));
    }
    let relative: Vec<i64> = frames.iter().map(|pts| pts - first_pts).collect();
    let picks = pick_frames(&relative, stream.time_base, options, samples);
    let mut wanted: Vec<usize> = picks.iter().flatten().copied().collect();
    wanted.dedup();

    let dir = &folder.name;
    let tools = vec![
        version(ffmpeg, limits, "while ffmpeg -version ran")?,
        version(ffprobe, limits, "while ffprobe -version ran")?,
    ];
    extract_frames(ffmpeg, &source, &wanted, &folder.partial, limits)?;
    std::fs::remove_file(&source.resolved).map_err(|e| Error::io(&source.resolved, e))?;
    let file_of = |index: usize| -> String {
        let k = wanted.binary_search(&index).expect("every pick is wanted");
        dir.join(format!("frame-{k:03}.png")).display().to_string()
    };
    let ms = |v: f64| (v * 1000.0).round() / 1000.0;
    let tb_ms = |ticks: i64| ms(ticks as f64 * stream.time_base.0 as f64 * 1000.0 / stream.time_base.1 as f64);
    let mut sampled = Vec::with_capacity(picks.len());
    let mut previous: Option<usize> = None;
    for (i, pick) in picks.iter().enumerate() {
        let requested_ms = ms(options.start_ms as f64 + i as f64 * 1000.0 / f64::from(options.fps));
        sampled.push(match *pick {
            None => SampledFrame {
                requested_ms,
                status: FrameStatus::Unavailable,
                frame_index: None,
                pts: None,
                actual_ms: None,
                file: None,
            },
            Some(index) => SampledFrame {
                requested_ms,
                status: if previous == Some(index) { FrameStatus::Shared } else { FrameStatus::Selected },
                frame_index: Some(index),
                pts: Some(frames[index]),
                actual_ms: Some(tb_ms(relative[index])),
                file: Some(file_of(index)),
            },
        });
        previous = pick.or(previous);
    }
    let count = |status| sampled.iter().filter(|f| f.status == status).count();
    let sampling = if count(FrameStatus::Unavailable) > 0 {
        Sampling::Incomplete
    } else if count(FrameStatus::Shared) > 0 {
        Sampling::Sparse
    } else {
        Sampling::Complete
    };
    let manifest = FrameManifest {
        source: VideoSource {
            path: recording.resolved.display().to_string(),
            bytes: recording.bytes,
            sha256,
            codec: stream.codec.clone(),
            width: stream.width,
            height: stream.height,
            duration_ms: ms(duration_ms),
            time_base: format!("{}/{}", stream.time_base.0, stream.time_base.1),
            frame_rate: stream.frame_rate.clone(),
            first_pts,
            rotation: stream.rotation,
        },
        start_ms: options.start_ms,
        duration_ms: options.duration_ms,
        fps: options.fps,
        sampling,
        output_dir: dir.display().to_string(),
        manifest_path: dir.join("manifest.json").display().to_string(),
        files: (0..wanted.len()).map(|k| dir.join(format!("frame-{k:03}.png")).display().to_string()).collect(),
        timeline: sampled.iter().filter_map(|f| f.file.clone()).collect(),
        frames: sampled,
        tools,
    };
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| Error::InvalidInput(format!("manifest JSON: {e}")))?;
    crate::decode::write_atomic(&folder.partial.join("manifest.json"), &json, crate::decode::Durability::Synced)?;
    make_read_only(&folder.partial)?;
    // A call cancelled or out of time at the last moment still leaves nothing.
    limits.check("before the frames folder was put in place")?;
    folder.publish()?;
    Ok(manifest)
}

/// The number of samples, after checking the window and rate limits.
fn check_options(options: &ExtractOptions) -> Result<u64> {
    let bad = |m: String| Err(Error::InvalidInput(m));
    if !(1..=MAX_DURATION_MS).contains(&options.duration_ms) {
        return bad(format!("durationMs {} is outside 1–{MAX_DURATION_MS}", options.duration_ms));
    }
    if !(1..=MAX_FPS).contains(&options.fps) {
        return bad(format!("fps {} is outside 1–{MAX_FPS}", options.fps));
    }
    let samples = (options.duration_ms * u64::from(options.fps)).div_ceil(1000);
    if samples > MAX_SAMPLES {
        return bad(format!(
            "{} ms at {} fps is {samples} frames, above {MAX_SAMPLES}; shorten the window or lower fps",
            options.duration_ms, options.fps
        ));
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn video_limits_are_checked_before_any_tool_runs() {
        let with = |start_ms, duration_ms, fps| check_options(&ExtractOptions { start_ms, duration_ms, fps });
        assert_eq!(with(0, 1000, 10).unwrap(), 10);
        assert_eq!(with(0, 4000, 30).unwrap(), 120);
        assert!(with(0, 0, 10).unwrap_err().to_string().contains("durationMs 0 is outside 1–20000"));
        assert_eq!(with(0, 20_001, 1).unwrap_err().to_string(), "durationMs 20001 is outside 1–20000");
        assert!(with(0, 1000, 31).unwrap_err().to_string().contains("fps 31 is outside 1–30"));
        assert!(with(0, 5000, 30).unwrap_err().to_string().contains("150 frames, above 120"));
    }
}
