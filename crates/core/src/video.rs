//! Frames from a local recording (`extract_video_frames`, 04-design-and-motion.md): `.mp4`,
//! `.mov` and `.webm` (Playwright's own test videos), sampled at a fixed rate over a bounded window
//! with ffprobe and ffmpeg run as subprocesses with argument arrays, reading the file protocol
//! only.
//!
//! Which source frame serves each requested time is decided from the decoder's own timestamps
//! (ffprobe's `best_effort_timestamp`), never from frame indices: the frame on screen at time t is
//! the last one whose timestamp is ≤ t. A source frame serving several times is extracted once
//! and the later times are `shared`. The output folder is new for every call, its files are made
//! read-only, and a failure removes it.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;
use xxhash_rust::xxh3::Xxh3;

use crate::allowed_roots::check_allowed;
use crate::error::{Error, Result};

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
/// A subprocess running longer than this is killed and the call fails.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(60);

const EXTENSIONS: [&str; 3] = ["mp4", "mov", "webm"];

/// What to sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractOptions {
    /// Start of the window in the recording. Default 0.
    pub start_ms: u64,
    /// Length of the window, 1–20000 ms.
    pub duration_ms: u64,
    /// Samples per second, 1–30. Default 10.
    pub fps: u32,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        Self { start_ms: 0, duration_ms: 1000, fps: 10 }
    }
}

/// How one requested time was served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FrameStatus {
    /// A source frame extracted for this time.
    Selected,
    /// The same source frame as an earlier time (the recording did not change frame between).
    Shared,
    /// No source frame was on screen yet at this time.
    Unavailable,
}

/// One requested time.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SampledFrame {
    /// Milliseconds from the start of the recording.
    pub requested_ms: f64,
    pub status: FrameStatus,
    /// The decoder's timestamp of the source frame, in ms.
    pub source_ms: Option<f64>,
    /// The frame's PNG (absolute path); shared times point at the earlier file.
    pub file: Option<String>,
}

/// The recording the frames came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VideoSource {
    pub path: String,
    pub bytes: u64,
    /// XXH3-128 of the file, hex.
    pub hash: String,
    pub codec: String,
    pub width: u32,
    pub height: u32,
    pub duration_ms: f64,
}

/// What `extract_video_frames` returns (also written as `manifest.json` next to the frames).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameManifest {
    pub source: VideoSource,
    pub start_ms: u64,
    pub duration_ms: u64,
    pub fps: u32,
    /// The folder holding the frames and the manifest.
    pub output_dir: String,
    /// The distinct frame files, in time order.
    pub files: Vec<String>,
    /// The frame on screen at each requested time that had one (a shared frame repeats): the
    /// sequence to give `compare_motion`, since a repeated frame is a stretch without motion.
    pub timeline: Vec<String>,
    pub frames: Vec<SampledFrame>,
    /// `ffmpeg -version` and `ffprobe -version` first lines.
    pub tools: Vec<String>,
}

/// Samples `video` into a new folder under `output_root`.
pub fn extract_video_frames(video: &Path, output_root: &Path, options: &ExtractOptions) -> Result<FrameManifest> {
    let samples = check_options(options)?;
    let video = check_allowed(video)?;
    let extension = video.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    if !EXTENSIONS.contains(&extension.as_str()) {
        return Err(Error::InvalidInput(format!(
            "{}: not a .mp4, .mov or .webm recording; convert it with ffmpeg first",
            video.display()
        )));
    }
    let bytes = std::fs::metadata(&video).map_err(|e| Error::io(&video, e))?.len();
    if bytes > MAX_VIDEO_BYTES {
        return Err(Error::FileTooLarge { path: video, bytes, limit: MAX_VIDEO_BYTES });
    }
    let ffprobe = tool("ffprobe", "SIGHTLINE_FFPROBE")?;
    let ffmpeg = tool("ffmpeg", "SIGHTLINE_FFMPEG")?;
    // `file:` keeps a name like `concat:…` or `http://…` from being read as another protocol.
    let input = format!("file:{}", video.display());
    let (codec, width, height, duration_ms) = probe_stream(&ffprobe, &input, &video)?;
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(Error::SideTooLong {
            path: video,
            width: width.into(),
            height: height.into(),
            limit: MAX_SIDE.into(),
        });
    }
    let end_ms = options.start_ms + options.duration_ms;
    if end_ms as f64 > duration_ms {
        return Err(Error::InvalidInput(format!(
            "{}: the window {}–{end_ms} ms ends after the recording ({duration_ms:.0} ms); choose startMs + durationMs ≤ {duration_ms:.0}",
            video.display(),
            options.start_ms
        )));
    }
    let timestamps = frame_timestamps(&ffprobe, &input, &video, end_ms)?;
    let requested: Vec<f64> =
        (0..samples).map(|i| options.start_ms as f64 + i as f64 * 1000.0 / f64::from(options.fps)).collect();
    let picks = pick_frames(&timestamps, &requested);

    let output_root = check_allowed(output_root)?;
    crate::decode::create_dir_all(&output_root)?;
    let stem = video.file_stem().and_then(|s| s.to_str()).unwrap_or("video");
    let stem: String =
        stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).take(40).collect();
    let dir = new_folder(&output_root, &stem)?;
    let result = (|| {
        let tools = vec![version(&ffmpeg)?, version(&ffprobe)?];
        let hash = hash_file(&video)?;
        let mut files = Vec::new();
        let mut frames = Vec::with_capacity(requested.len());
        let mut last: Option<(usize, String)> = None;
        for (t, pick) in requested.iter().zip(&picks) {
            let frame = match pick {
                None => {
                    SampledFrame { requested_ms: *t, status: FrameStatus::Unavailable, source_ms: None, file: None }
                }
                Some(index) => {
                    let source_ms = timestamps[*index];
                    match &last {
                        Some((i, file)) if i == index => SampledFrame {
                            requested_ms: *t,
                            status: FrameStatus::Shared,
                            source_ms: Some(source_ms),
                            file: Some(file.clone()),
                        },
                        _ => {
                            let file = dir.join(format!("frame-{:03}.png", files.len()));
                            extract_frame(&ffmpeg, &input, source_ms, &file)?;
                            let file = file.display().to_string();
                            files.push(file.clone());
                            last = Some((*index, file.clone()));
                            SampledFrame {
                                requested_ms: *t,
                                status: FrameStatus::Selected,
                                source_ms: Some(source_ms),
                                file: Some(file),
                            }
                        }
                    }
                }
            };
            frames.push(frame);
        }
        let manifest = FrameManifest {
            source: VideoSource {
                path: video.display().to_string(),
                bytes,
                hash,
                codec: codec.clone(),
                width,
                height,
                duration_ms,
            },
            start_ms: options.start_ms,
            duration_ms: options.duration_ms,
            fps: options.fps,
            output_dir: dir.display().to_string(),
            timeline: frames.iter().filter_map(|f| f.file.clone()).collect(),
            files,
            frames,
            tools,
        };
        let json =
            serde_json::to_vec_pretty(&manifest).map_err(|e| Error::InvalidInput(format!("manifest JSON: {e}")))?;
        crate::decode::write_atomic(&dir.join("manifest.json"), &json)?;
        make_read_only(&dir)?;
        Ok(manifest)
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result
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

/// For each requested time, the index of the last frame whose timestamp is ≤ it (within a
/// microsecond: requested times like 1000 / 30 × i are not exact in floating point).
fn pick_frames(timestamps: &[f64], requested: &[f64]) -> Vec<Option<usize>> {
    requested.iter().map(|t| timestamps.partition_point(|ts| *ts <= *t + 1e-3).checked_sub(1)).collect()
}

/// `name` from its env variable, else from PATH; missing is an error with the install command.
fn tool(name: &str, var: &str) -> Result<PathBuf> {
    if let Some(path) = std::env::var_os(var) {
        return Ok(PathBuf::from(path));
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| {
            Error::InvalidInput(format!(
                "{name} not found on PATH: install ffmpeg (Debian/Ubuntu: apt-get install --no-install-recommends ffmpeg; macOS: brew install ffmpeg) or set {var} to its path"
            ))
        })
}

/// Runs a tool with a time limit; stdout on success, its stderr in the error otherwise.
fn run(program: &Path, args: &[&str], what: &Path) -> Result<Vec<u8>> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::io(program, e))?;
    // Both pipes are drained on their own threads so a chatty tool never blocks on a full pipe.
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
    let out = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out.read_to_end(&mut buf);
        buf
    });
    let err = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err.read_to_end(&mut buf);
        buf
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| Error::io(program, e))? {
            break status;
        }
        if started.elapsed() > TOOL_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::InvalidInput(format!(
                "{}: {} took longer than {} s and was stopped; use a shorter window",
                what.display(),
                program.display(),
                TOOL_TIMEOUT.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let (out, err) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    if !status.success() {
        let detail = String::from_utf8_lossy(&err);
        let detail = detail.trim().lines().last().unwrap_or("no message");
        return Err(Error::InvalidInput(format!(
            "{}: {} failed ({detail}); is it a readable video?",
            what.display(),
            program.file_name().unwrap_or_default().to_string_lossy()
        )));
    }
    Ok(out)
}

/// ffprobe on the first video stream of `input`, reading the file protocol only.
fn probe(ffprobe: &Path, input: &str, video: &Path, query: &[&str]) -> Result<Vec<u8>> {
    let mut args = vec!["-v", "error", "-protocol_whitelist", "file", "-select_streams", "v:0"];
    args.extend_from_slice(query);
    args.push(input);
    run(ffprobe, &args, video)
}

fn probe_stream(ffprobe: &Path, input: &str, video: &Path) -> Result<(String, u32, u32, f64)> {
    let out = probe(
        ffprobe,
        input,
        video,
        &["-show_entries", "stream=codec_name,width,height:format=duration", "-of", "json"],
    )?;
    let v: serde_json::Value = serde_json::from_slice(&out)
        .map_err(|e| Error::InvalidInput(format!("{}: ffprobe output unreadable ({e})", video.display())))?;
    let stream = v["streams"].get(0).ok_or_else(|| {
        Error::InvalidInput(format!("{}: no video stream; is it an audio-only file?", video.display()))
    })?;
    let number = |x: &serde_json::Value| x.as_u64().and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
    let duration_ms = v["format"]["duration"].as_str().and_then(|d| d.parse::<f64>().ok()).unwrap_or(0.0) * 1000.0;
    Ok((
        stream["codec_name"].as_str().unwrap_or("unknown").to_string(),
        number(&stream["width"]),
        number(&stream["height"]),
        duration_ms,
    ))
}

/// The decoder's timestamps (ms) of every frame up to `end_ms`, ascending.
fn frame_timestamps(ffprobe: &Path, input: &str, video: &Path, end_ms: u64) -> Result<Vec<f64>> {
    let interval = format!("%{:.3}", end_ms as f64 / 1000.0);
    let out = probe(
        ffprobe,
        input,
        video,
        &["-read_intervals", &interval, "-show_entries", "frame=best_effort_timestamp_time", "-of", "csv=p=0"],
    )?;
    let mut stamps: Vec<f64> = String::from_utf8_lossy(&out)
        .lines()
        .filter_map(|line| line.trim().trim_end_matches(',').parse::<f64>().ok())
        .map(|s| s * 1000.0)
        .collect();
    stamps.sort_by(f64::total_cmp);
    stamps.dedup();
    if stamps.is_empty() {
        return Err(Error::InvalidInput(format!("{}: no decodable video frames", video.display())));
    }
    Ok(stamps)
}

/// Writes the frame whose timestamp is `source_ms` as a PNG (input seeking is exact when decoding).
fn extract_frame(ffmpeg: &Path, input: &str, source_ms: f64, out: &Path) -> Result<()> {
    let at = format!("{:.3}", source_ms / 1000.0);
    let target = out.display().to_string();
    run(
        ffmpeg,
        &[
            "-v",
            "error",
            "-nostdin",
            "-protocol_whitelist",
            "file",
            "-ss",
            &at,
            "-i",
            input,
            "-frames:v",
            "1",
            "-f",
            "image2",
            "-c:v",
            "png",
            &target,
        ],
        out,
    )?;
    if !out.is_file() {
        return Err(Error::InvalidInput(format!("{}: ffmpeg wrote no frame at {at} s", out.display())));
    }
    Ok(())
}

fn version(program: &Path) -> Result<String> {
    let out = run(program, &["-version"], program)?;
    Ok(String::from_utf8_lossy(&out).lines().next().unwrap_or("").to_string())
}

fn hash_file(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut hasher = Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(format!("{:032x}", hasher.digest128()))
}

/// A folder that did not exist before this call: output is never reused.
fn new_folder(root: &Path, stem: &str) -> Result<PathBuf> {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    for attempt in 0..100u32 {
        let dir = root.join(format!("{stem}-{nanos:x}-{}-{attempt}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&dir, e)),
        }
    }
    Err(Error::InvalidInput(format!("{}: could not create a new frames folder", root.display())))
}

fn make_read_only(dir: &Path) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        let mut permissions = std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?.permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&path, permissions).map_err(|e| Error::io(&path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn video_picks_the_frame_on_screen_at_each_time() {
        let stamps = [0.0, 40.0, 80.0, 120.0];
        let requested = [0.0, 20.0, 40.0, 100.0, 119.9995, 500.0];
        assert_eq!(pick_frames(&stamps, &requested), [Some(0), Some(0), Some(1), Some(2), Some(3), Some(3)]);
        // A recording whose first frame comes late: nothing is on screen before it.
        assert_eq!(pick_frames(&[33.0, 66.0], &[0.0, 40.0]), [None, Some(0)]);
    }

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
