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

use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;

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
// The deadline's setting lives with the error that names it, so `error` depends on nothing.
pub use crate::error::{DEFAULT_TIMEOUT_MS, TIMEOUT_VAR};
/// Extractions running at once in one process; a further call waits for one to finish. Each
/// runs one decoder at a time, so two keep a small machine responsive.
pub const MAX_CONCURRENT_EXTRACTIONS: usize = 2;

/// The longest pause between two looks at a running tool (or a full set of slots): how late a
/// cancel or a passed deadline can be noticed.
const POLL: Duration = Duration::from_millis(20);

/// The container families the decoder accepts, each read by one forced demuxer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// ISO BMFF (MP4) and QuickTime (MOV): ffmpeg's `mov` demuxer.
    Mov,
    /// EBML: WebM and Matroska, ffmpeg's `matroska` demuxer.
    Matroska,
}

impl Container {
    /// The family an extension names (`mp4`, `mov`, `webm`, lower case).
    fn of_extension(extension: &str) -> Option<Self> {
        match extension {
            "mp4" | "mov" => Some(Container::Mov),
            "webm" => Some(Container::Matroska),
            _ => None,
        }
    }

    /// How messages name the family, with its article.
    fn name(self) -> &'static str {
        match self {
            Container::Mov => "an MP4/MOV",
            Container::Matroska => "a WebM/Matroska",
        }
    }

    /// The extension to rename a misnamed recording to.
    fn extension(self) -> &'static str {
        match self {
            Container::Mov => "mp4",
            Container::Matroska => "webm",
        }
    }

    /// The arguments that go before the input of every ffprobe and ffmpeg run: the file protocol
    /// only, the demuxer forced (never probed, so a script or playlist demuxer cannot be chosen)
    /// and, for MOV, external data references and absolute alias paths off. Both are off by
    /// default in ffmpeg; they are given so a build or a future default cannot turn them on.
    fn input_args(self) -> &'static [&'static str] {
        match self {
            Container::Mov => {
                &["-protocol_whitelist", "file", "-f", "mov", "-enable_drefs", "0", "-use_absolute_path", "0"]
            }
            Container::Matroska => &["-protocol_whitelist", "file", "-f", "matroska"],
        }
    }
}

/// The container family of a file from its first bytes, or what the bytes look like instead
/// (the words of the refusal, e.g. "it starts like an ffconcat script").
pub fn sniff_container(head: &[u8]) -> std::result::Result<Container, &'static str> {
    // ISO BMFF opens with an `ftyp` box; older QuickTime files open with any top-level atom,
    // of which these are the ones ffmpeg's own probe trusts at the start of a file.
    const QUICKTIME_ATOMS: [&[u8; 4]; 6] = [b"ftyp", b"moov", b"mdat", b"wide", b"free", b"skip"];
    if head.len() >= 8 && QUICKTIME_ATOMS.iter().any(|atom| head[4..8] == atom[..]) {
        return Ok(Container::Mov);
    }
    if head.starts_with(&[0x1A, 0x45, 0xDF, 0xA3]) {
        return Ok(Container::Matroska);
    }
    if head.is_empty() {
        return Err("it is empty");
    }
    let binary: [(&[u8], &str); 5] = [
        (b"\x89PNG", "it starts like a PNG image"),
        (b"\xFF\xD8\xFF", "it starts like a JPEG image"),
        (b"GIF8", "it starts like a GIF image"),
        (b"RIFF", "it starts like a RIFF file (AVI, WAV or WebP)"),
        (b"\x00\x00\x01\xBA", "it starts like an MPEG program stream"),
    ];
    if let Some((_, looks_like)) = binary.iter().find(|(magic, _)| head.starts_with(magic)) {
        return Err(looks_like);
    }
    // Scripts and playlists are text; a byte-order mark or blank lines may come first.
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head).trim_ascii_start();
    let scripts: [(&[u8], &str); 4] = [
        (b"ffconcat", "it starts like an ffconcat script"),
        (b"#EXTM3U", "it starts like an HLS (m3u8) playlist"),
        (b"v=0", "it starts like an SDP session description"),
        (b"<", "it starts like markup (HTML, XML, a DASH manifest or an SVG image)"),
    ];
    if let Some((_, looks_like)) = scripts.iter().find(|(magic, _)| text.starts_with(magic)) {
        return Err(looks_like);
    }
    if is_text(head) { Err("it starts like text") } else { Err("its first bytes match no recording format") }
}

/// Printable UTF-8 (tabs and line breaks allowed); a character cut off at the end of the head
/// still counts.
fn is_text(head: &[u8]) -> bool {
    let valid = match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
        Err(_) => return false,
    };
    !valid.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

/// Refuses a URL given where a local recording belongs (`http://…`, `file:…`, `concat:…`, any
/// `scheme:`): only local files are read. A single letter before the colon is a Windows drive.
pub fn refuse_url(given: &Path) -> Result<()> {
    let text = given.to_string_lossy();
    let scheme = text.split_once(':').map_or("", |(scheme, _)| scheme);
    let is_scheme = scheme.len() > 1
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if is_scheme {
        return Err(Error::InvalidInput(format!(
            "{text}: a URL, not a local recording; download it and give the file's path (a file whose name has a colon: write ./{text})"
        )));
    }
    Ok(())
}

/// Tells a running extraction to stop: its tool is killed and its partial output removed. The
/// MCP server sets it when the client cancels the call; clones share one flag.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// Asks the extraction to stop; it notices within 20 ms.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// One call's deadline, from [`TIMEOUT_VAR`] or [`DEFAULT_TIMEOUT_MS`]; a value that is not a
/// whole number of milliseconds above 0 is an error naming the variable.
pub fn video_timeout() -> Result<Duration> {
    parse_timeout(std::env::var_os(TIMEOUT_VAR).as_deref())
}

fn parse_timeout(value: Option<&OsStr>) -> Result<Duration> {
    let Some(value) = value else { return Ok(Duration::from_millis(DEFAULT_TIMEOUT_MS)) };
    match value.to_str().and_then(|v| v.trim().parse::<u64>().ok()) {
        Some(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err(Error::InvalidInput(format!(
            "{TIMEOUT_VAR}={}: not a whole number of milliseconds above 0; set it to e.g. {DEFAULT_TIMEOUT_MS} or unset it",
            value.to_string_lossy()
        ))),
    }
}

/// What every wait and every tool run of one call consults: its deadline and its cancel flag.
struct CallLimits<'a> {
    /// The recording as the caller gave it, for messages.
    video: &'a Path,
    started: Instant,
    limit: Duration,
    cancel: &'a CancelFlag,
}

impl CallLimits<'_> {
    /// An error once the call is cancelled or past its deadline; `during` says what it was
    /// doing ("while ffmpeg extracted frame 3 of 10").
    fn check(&self, during: &str) -> Result<()> {
        if self.cancel.is_cancelled() {
            return Err(Error::Cancelled { path: self.video.to_path_buf() });
        }
        if self.started.elapsed() >= self.limit {
            return Err(Error::DeadlinePassed {
                path: self.video.to_path_buf(),
                limit_ms: u64::try_from(self.limit.as_millis()).unwrap_or(u64::MAX),
                during: during.to_string(),
            });
        }
        Ok(())
    }

    /// How long to pause before the next look: at most [`POLL`], never past the deadline.
    fn pause(&self, wanted: Duration) -> Duration {
        wanted.min(POLL).min(self.limit.saturating_sub(self.started.elapsed())).max(Duration::from_millis(1))
    }
}

/// A counting semaphore: the extractions running in this process. Waiting is in slices of at
/// most [`POLL`] so a waiting call still notices its deadline and a cancel.
struct Slots {
    running: Mutex<usize>,
    freed: Condvar,
    capacity: usize,
}

/// A held slot; dropping it lets a waiting call in.
struct Slot<'a>(&'a Slots);

impl Slots {
    const fn new(capacity: usize) -> Self {
        Self { running: Mutex::new(0), freed: Condvar::new(), capacity }
    }

    fn acquire(&self, limits: &CallLimits) -> Result<Slot<'_>> {
        // The count stays right even if a holder panicked: its guard still ran.
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if *running < self.capacity {
                *running += 1;
                return Ok(Slot(self));
            }
            limits.check(&format!(
                "while waiting for another extraction to finish (at most {} run at once)",
                self.capacity
            ))?;
            let pause = limits.pause(POLL);
            running = self.freed.wait_timeout(running, pause).unwrap_or_else(PoisonError::into_inner).0;
        }
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        *self.0.running.lock().unwrap_or_else(PoisonError::into_inner) -= 1;
        self.0.freed.notify_one();
    }
}

/// The process-wide slots every extraction takes one of.
static SLOTS: Slots = Slots::new(MAX_CONCURRENT_EXTRACTIONS);

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
    crate::decode::write_atomic(&folder.partial.join("manifest.json"), &json)?;
    make_read_only(&folder.partial)?;
    // A call cancelled or out of time at the last moment still leaves nothing.
    limits.check("before the frames folder was put in place")?;
    folder.publish()?;
    Ok(manifest)
}

/// A recording that passed every check: where it really is, its family by its bytes, its size.
struct Recording {
    /// The file with symlinks and `..` resolved: what the tools open, so a symlink changed after
    /// the checks cannot point them elsewhere.
    resolved: PathBuf,
    container: Container,
    bytes: u64,
}

impl Recording {
    /// The tools' input: the resolved file through the `file:` protocol, which keeps a name like
    /// `concat:…` or `http://…` from being read as another protocol.
    fn input(&self) -> String {
        format!("file:{}", self.resolved.display())
    }
}

/// Checks `video` (as the caller gave it) before any tool runs: its extension, the allowed
/// roots (on the resolved path), that it is a regular file within the size limit, and that its
/// first bytes are a container of the family its extension names.
fn open_recording(video: &Path) -> Result<Recording> {
    let extension = video.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    let Some(named) = Container::of_extension(&extension) else {
        return Err(Error::InvalidInput(format!(
            "{}: not a .mp4, .mov or .webm recording; convert it with ffmpeg first",
            video.display()
        )));
    };
    // `check_allowed` resolves the path only when roots are set; the tools must always be given
    // the resolved file.
    let resolved = check_allowed(video)?.canonicalize().map_err(|e| Error::io(video, e))?;
    let metadata = std::fs::metadata(&resolved).map_err(|e| Error::io(video, e))?;
    // A FIFO or a device named .mp4 would block or never end: only plain files are read.
    if !metadata.is_file() {
        return Err(Error::InvalidInput(format!(
            "{}: not a regular file; give the recording file itself",
            video.display()
        )));
    }
    let bytes = metadata.len();
    if bytes > MAX_VIDEO_BYTES {
        return Err(Error::FileTooLarge { path: video.to_path_buf(), bytes, limit: MAX_VIDEO_BYTES });
    }
    let mut head = Vec::with_capacity(512);
    std::fs::File::open(&resolved)
        .and_then(|file| file.take(512).read_to_end(&mut head))
        .map_err(|e| Error::io(video, e))?;
    let container = sniff_container(&head)
        .map_err(|looks_like| Error::NotARecording { path: video.to_path_buf(), looks_like: looks_like.into() })?;
    // The bytes decide the demuxer; a name saying the other family is refused rather than
    // trusted either way, so the file's name never misleads whoever reads it next.
    if container != named {
        return Err(Error::MisnamedRecording {
            path: video.to_path_buf(),
            found: container.name().into(),
            extension,
            suggested: container.extension().into(),
        });
    }
    Ok(Recording { resolved, container, bytes })
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

/// Runs a tool within the call's limits: stdout on success, its stderr in the error otherwise.
/// Past the deadline or on a cancel the tool is killed; `during` names the step in that error.
fn run(program: &Path, args: &[&str], what: &Path, limits: &CallLimits, during: &str) -> Result<Vec<u8>> {
    limits.check(during)?;
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
    // Short tools (`-version`, a probe) answer within a few ms: the pause starts at 1 ms and
    // doubles up to POLL, so they are not slowed and a long decode costs little polling.
    let mut pause = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| Error::io(program, e))? {
            break status;
        }
        if let Err(stop) = limits.check(during) {
            let _ = child.kill();
            let _ = child.wait();
            // The readers are left to finish on their own: a process the tool started could
            // keep the pipes open, and the call must not wait for it.
            return Err(stop);
        }
        std::thread::sleep(limits.pause(pause));
        pause *= 2;
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

/// Copies the recording into `dir` as a hidden file while hashing it (SHA-256), then checks the
/// copy's own first bytes: the tools decode the copy, so the hash and the family are those of
/// exactly what is decoded. A cancel or the deadline stops it between 1 MiB blocks.
fn snapshot(recording: &Recording, dir: &Path, limits: &CallLimits) -> Result<(String, Recording)> {
    use sha2::{Digest, Sha256};
    use std::io::Write;
    let target = dir.join(format!(".source.{}", recording.container.extension()));
    let mut from = std::fs::File::open(&recording.resolved).map_err(|e| Error::io(limits.video, e))?;
    let mut to = std::fs::File::create(&target).map_err(|e| Error::io(&target, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    let mut head = Vec::with_capacity(512);
    loop {
        limits.check("while copying the recording")?;
        let n = from.read(&mut buf).map_err(|e| Error::io(limits.video, e))?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        // The file may have grown since its size was checked.
        if bytes > MAX_VIDEO_BYTES {
            return Err(Error::FileTooLarge { path: limits.video.to_path_buf(), bytes, limit: MAX_VIDEO_BYTES });
        }
        if head.len() < 512 {
            head.extend_from_slice(&buf[..n.min(512 - head.len())]);
        }
        hasher.update(&buf[..n]);
        to.write_all(&buf[..n]).map_err(|e| Error::io(&target, e))?;
    }
    let digest = hasher.finalize();
    let sha256: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let container = sniff_container(&head).map_err(|looks_like| Error::NotARecording {
        path: limits.video.to_path_buf(),
        looks_like: looks_like.into(),
    })?;
    if container != recording.container {
        return Err(Error::InvalidInput(format!(
            "{}: changed while it was read (it is now {}); extract again once it is written",
            limits.video.display(),
            container.name()
        )));
    }
    Ok((sha256, Recording { resolved: target, container, bytes }))
}

/// What ffprobe says about the first video stream.
struct StreamInfo {
    codec: String,
    width: u32,
    height: u32,
    /// Numerator and denominator.
    time_base: (i64, i64),
    frame_rate: String,
    /// Degrees clockwise.
    rotation: i32,
    /// The stream's start in seconds, when known: where the frames probe may stop counting from.
    start_s: Option<f64>,
    /// The container's duration in seconds.
    container_duration_s: f64,
}

/// ffprobe on the first video stream of the recording, through its forced demuxer.
fn probe(ffprobe: &Path, recording: &Recording, limits: &CallLimits, query: &[&str], during: &str) -> Result<Vec<u8>> {
    let input = recording.input();
    let mut args = vec!["-v", "error"];
    args.extend_from_slice(recording.container.input_args());
    args.extend_from_slice(&["-select_streams", "v:0"]);
    args.extend_from_slice(query);
    args.extend_from_slice(&["-i", &input]);
    run(ffprobe, &args, limits.video, limits, during)
}

fn probe_stream(ffprobe: &Path, recording: &Recording, limits: &CallLimits) -> Result<StreamInfo> {
    let video = limits.video;
    let out = probe(
        ffprobe,
        recording,
        limits,
        &[
            "-show_entries",
            "stream=codec_name,width,height,time_base,r_frame_rate,start_time:stream_side_data=rotation:stream_tags=rotate:format=duration",
            "-of",
            "json",
        ],
        "while ffprobe read the stream",
    )?;
    let v: serde_json::Value = serde_json::from_slice(&out)
        .map_err(|e| Error::InvalidInput(format!("{}: ffprobe output unreadable ({e})", video.display())))?;
    let stream = v["streams"].get(0).ok_or_else(|| {
        Error::InvalidInput(format!("{}: no video stream; is it an audio-only file?", video.display()))
    })?;
    let number = |x: &serde_json::Value| x.as_u64().and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
    let seconds = |x: &serde_json::Value| x.as_str().and_then(|d| d.parse::<f64>().ok());
    let time_base = stream["time_base"]
        .as_str()
        .and_then(|tb| tb.split_once('/'))
        .and_then(|(n, d)| Some((n.parse::<i64>().ok()?, d.parse::<i64>().ok()?)))
        .filter(|&(n, d)| n > 0 && d > 0)
        .ok_or_else(|| Error::InvalidInput(format!("{}: the video stream has no time base", video.display())))?;
    // ffprobe gives the display matrix's rotation counter-clockwise; older files carry a
    // `rotate` tag, clockwise.
    let rotation = match stream["side_data_list"].as_array().and_then(|l| l.iter().find_map(|s| s["rotation"].as_i64()))
    {
        Some(ccw) => -ccw,
        None => stream["tags"]["rotate"].as_str().and_then(|r| r.parse::<i64>().ok()).unwrap_or(0),
    };
    Ok(StreamInfo {
        codec: stream["codec_name"].as_str().unwrap_or("unknown").to_string(),
        width: number(&stream["width"]),
        height: number(&stream["height"]),
        time_base,
        frame_rate: stream["r_frame_rate"].as_str().unwrap_or("0/0").to_string(),
        rotation: i32::try_from(rotation.rem_euclid(360)).unwrap_or(0),
        start_s: seconds(&stream["start_time"]),
        container_duration_s: seconds(&v["format"]["duration"]).unwrap_or(0.0),
    })
}

/// The decoded frames' presentation timestamps (the stream's time base), in decoding order, up
/// to a second past the window; they must rise strictly, or no frame can be chosen by time.
fn frame_timestamps(
    ffprobe: &Path,
    recording: &Recording,
    limits: &CallLimits,
    stream: &StreamInfo,
    end_ms: u64,
) -> Result<Vec<i64>> {
    let video = limits.video;
    // Read up to a second past the window's end, counted from the stream's start (a recording
    // may begin at 2 s); the frame at or after the last requested time lies within it.
    let interval = stream.start_s.map(|start| format!("%{:.6}", start.max(0.0) + end_ms as f64 / 1000.0 + 1.0));
    let mut query = vec!["-show_entries", "frame=best_effort_timestamp", "-of", "csv=p=0"];
    if let Some(interval) = &interval {
        query.extend_from_slice(&["-read_intervals", interval]);
    }
    let out = probe(ffprobe, recording, limits, &query, "while ffprobe listed the frame timestamps")?;
    let mut stamps: Vec<i64> = Vec::new();
    for (index, line) in String::from_utf8_lossy(&out).lines().map(|l| l.trim().trim_end_matches(',')).enumerate() {
        if line.is_empty() {
            continue;
        }
        let pts: i64 = line.parse().map_err(|_| {
            Error::InvalidInput(format!(
                "{}: decoded frame {index} has no timestamp ({line}); re-encode the recording with timestamps (ffmpeg -i IN -c:v libx264 OUT.mp4) and extract again",
                video.display()
            ))
        })?;
        if let Some(&previous) = stamps.last()
            && pts <= previous
        {
            return Err(Error::InvalidInput(format!(
                "{}: decoded frame {index} has timestamp {pts}, not after frame {}'s {previous} (time base {}/{}); with duplicate or decreasing timestamps no frame can be chosen by time: re-encode the recording (ffmpeg -i IN -c:v libx264 OUT.mp4) and extract again",
                video.display(),
                index - 1,
                stream.time_base.0,
                stream.time_base.1
            )));
        }
        stamps.push(pts);
    }
    if stamps.is_empty() {
        return Err(Error::InvalidInput(format!("{}: no decodable video frames", video.display())));
    }
    Ok(stamps)
}

/// For each requested time `start + i / fps` (i < `samples`), the first frame whose timestamp
/// (`relative`: ticks from the first frame, rising) is at or after it, compared exactly in
/// integers: ticks × num / den ≥ (start_ms × fps + 1000 i) / (1000 × fps).
fn pick_frames(relative: &[i64], (num, den): (i64, i64), options: &ExtractOptions, samples: u64) -> Vec<Option<usize>> {
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
fn select_expression(indexes: &[usize]) -> String {
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
fn extract_frames(
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

fn version(program: &Path, limits: &CallLimits, during: &str) -> Result<String> {
    let out = run(program, &["-version"], program, limits, during)?;
    Ok(String::from_utf8_lossy(&out).lines().next().unwrap_or("").to_string())
}

/// Creates the output root and its missing parents; returns the folders it made, deepest
/// first, so a call that fails can remove them again.
fn create_output_root(root: &Path) -> Result<Vec<PathBuf>> {
    let made: Vec<PathBuf> =
        root.ancestors().take_while(|a| !a.as_os_str().is_empty() && !a.exists()).map(Path::to_path_buf).collect();
    crate::decode::create_dir_all(root)?;
    Ok(made)
}

/// Removes the folders a failed call made, deepest first; one that another call has written
/// into meanwhile is not empty, so it stays.
fn remove_made_folders(made: &[PathBuf]) {
    for folder in made {
        if std::fs::remove_dir(folder).is_err() {
            break;
        }
    }
}

/// Where one call's frames go: a hidden partial folder beside the final one, renamed to it when
/// complete.
struct FramesFolder {
    partial: PathBuf,
    /// The final folder: did not exist when the call began, so output is never reused.
    name: PathBuf,
}

impl FramesFolder {
    /// Renames the complete partial folder into place.
    fn publish(&self) -> Result<()> {
        // `rename` would replace an empty folder of the same name: the name must still be free.
        if self.name.exists() {
            return Err(Error::InvalidInput(format!(
                "{}: appeared while the frames were extracted; extract again",
                self.name.display()
            )));
        }
        std::fs::rename(&self.partial, &self.name).map_err(|e| Error::io(&self.name, e))
    }
}

/// A new partial folder under `root` for a final folder name not taken yet.
fn new_folder(root: &Path, stem: &str) -> Result<FramesFolder> {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    for attempt in 0..100u32 {
        let name = format!("{stem}-{nanos:x}-{}-{attempt}", std::process::id());
        let folder = FramesFolder { partial: root.join(format!(".{name}.partial")), name: root.join(&name) };
        if folder.name.exists() {
            continue;
        }
        match std::fs::create_dir(&folder.partial) {
            Ok(()) => return Ok(folder),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&folder.partial, e)),
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

    // The first bytes of files ffmpeg 5.1 wrote (`-f lavfi -i testsrc`, `-c:v mpeg4` / libvpx).
    const MP4_HEAD: &[u8] = b"\x00\x00\x00\x1cftypisom\x00\x00\x02\x00isomiso2mp41\x00\x00\x00\x08free";
    const MOV_HEAD: &[u8] = b"\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00qt  \x00\x00\x00\x08wide\x00\x00p\x18";
    const WEBM_HEAD: &[u8] =
        b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x84webm";

    #[test]
    fn video_sniffing_knows_mp4_mov_and_webm_by_their_bytes() {
        assert_eq!(sniff_container(MP4_HEAD), Ok(Container::Mov));
        assert_eq!(sniff_container(MOV_HEAD), Ok(Container::Mov));
        assert_eq!(sniff_container(WEBM_HEAD), Ok(Container::Matroska));
        // A QuickTime file without `ftyp` opens with another top-level atom.
        assert_eq!(sniff_container(b"\x00\x00\x00\x08wide\x00\x00\x70\x18mdat"), Ok(Container::Mov));
        assert_eq!(sniff_container(b"\x00\x01\x00\x00moov"), Ok(Container::Mov));
        // The demuxer is forced per family, MOV with its external references off.
        assert_eq!(
            Container::Mov.input_args(),
            ["-protocol_whitelist", "file", "-f", "mov", "-enable_drefs", "0", "-use_absolute_path", "0"]
        );
        assert_eq!(Container::Matroska.input_args(), ["-protocol_whitelist", "file", "-f", "matroska"]);
    }

    #[test]
    fn video_sniffing_says_what_scripts_playlists_and_other_files_look_like() {
        let sniffed = |head: &[u8]| sniff_container(head).unwrap_err();
        assert_eq!(sniffed(b"ffconcat version 1.0\nfile 'secret.mp4'\n"), "it starts like an ffconcat script");
        assert_eq!(
            sniffed(b"#EXTM3U\n#EXT-X-VERSION:3\nhttp://example.com/a.ts\n"),
            "it starts like an HLS (m3u8) playlist"
        );
        // A byte-order mark and blank lines before the header change nothing.
        assert_eq!(sniffed(b"\xEF\xBB\xBF\n  #EXTM3U\n"), "it starts like an HLS (m3u8) playlist");
        assert_eq!(sniffed(b"v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\n"), "it starts like an SDP session description");
        assert_eq!(sniffed(b""), "it is empty");
        assert_eq!(sniffed(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "it starts like a PNG image");
        assert_eq!(
            sniffed(b"<?xml version=\"1.0\"?><MPD>"),
            "it starts like markup (HTML, XML, a DASH manifest or an SVG image)"
        );
        assert_eq!(sniffed("file 'a.mp4'\nduration 1 — ✓".as_bytes()), "it starts like text");
        // A multi-byte character cut off by the end of the head is still text.
        assert_eq!(sniffed(&"ok ✓".as_bytes()[..5]), "it starts like text");
        assert_eq!(sniffed(b"\x00\x00\x00\x00\x01\x02"), "its first bytes match no recording format");
        // Too short to hold an atom name: not a recording.
        assert_eq!(sniffed(b"\x00\x00\x00"), "its first bytes match no recording format");
    }

    #[test]
    fn video_urls_are_refused_and_local_paths_pass() {
        for url in
            ["http://example.com/a.mp4", "file:clip.mp4", "file:///tmp/clip.mp4", "concat:a.mp4|b.mp4", "subfile:x"]
        {
            assert_eq!(
                refuse_url(Path::new(url)).unwrap_err().to_string(),
                format!(
                    "{url}: a URL, not a local recording; download it and give the file's path (a file whose name has a colon: write ./{url})"
                )
            );
        }
        for path in ["clip.mp4", "./file:clip.mp4", "/tmp/http:/x.mp4", "C:\\videos\\clip.mp4", "a b/c.webm"] {
            assert!(refuse_url(Path::new(path)).is_ok(), "{path}");
        }
    }

    #[test]
    fn video_timeout_comes_from_its_variable_or_the_default() {
        assert_eq!(parse_timeout(None).unwrap(), Duration::from_millis(120_000));
        assert_eq!(parse_timeout(Some(OsStr::new("1"))).unwrap(), Duration::from_millis(1));
        assert_eq!(parse_timeout(Some(OsStr::new(" 2500 "))).unwrap(), Duration::from_millis(2500));
        for bad in ["0", "-5", "1.5", "2s", ""] {
            assert_eq!(
                parse_timeout(Some(OsStr::new(bad))).unwrap_err().to_string(),
                format!(
                    "SIGHTLINE_VIDEO_TIMEOUT_MS={bad}: not a whole number of milliseconds above 0; set it to e.g. 120000 or unset it"
                )
            );
        }
    }

    fn limits<'a>(cancel: &'a CancelFlag, limit_ms: u64) -> CallLimits<'a> {
        CallLimits {
            video: Path::new("clip.mp4"),
            started: Instant::now(),
            limit: Duration::from_millis(limit_ms),
            cancel,
        }
    }

    #[test]
    fn video_slots_let_two_in_and_the_third_waits_its_turn() {
        let slots = Slots::new(2);
        let cancel = CancelFlag::default();
        let (first, _second) =
            (slots.acquire(&limits(&cancel, 60_000)).unwrap(), slots.acquire(&limits(&cancel, 60_000)).unwrap());
        std::thread::scope(|scope| {
            let third = scope.spawn(|| slots.acquire(&limits(&cancel, 60_000)).map(|_| Instant::now()));
            std::thread::sleep(Duration::from_millis(150));
            assert!(!third.is_finished(), "the third call waits while two run");
            let freed = Instant::now();
            drop(first);
            let entered = third.join().unwrap().unwrap();
            assert!(entered >= freed, "the third call got in only once the first was done");
        });
        assert_eq!(*slots.running.lock().unwrap(), 1, "the third call's slot was given back; the second still runs");
    }

    #[test]
    fn video_a_wait_for_a_slot_counts_against_the_deadline_and_stops_on_cancel() {
        let slots = Slots::new(1);
        let cancel = CancelFlag::default();
        let _held = slots.acquire(&limits(&cancel, 60_000)).unwrap();
        let started = Instant::now();
        let err = slots.acquire(&limits(&cancel, 100)).map(|_| ()).unwrap_err();
        assert!(started.elapsed() >= Duration::from_millis(100));
        assert_eq!(
            err.to_string(),
            "clip.mp4: frame extraction passed its deadline of 100 ms while waiting for another extraction to finish (at most 1 run at once) and was stopped; use a shorter window or lower fps, or raise SIGHTLINE_VIDEO_TIMEOUT_MS (milliseconds, default 120000)"
        );
        let stop = CancelFlag::default();
        std::thread::scope(|scope| {
            let waiting = scope.spawn(|| slots.acquire(&limits(&stop, 60_000)).map(|_| ()));
            std::thread::sleep(Duration::from_millis(50));
            stop.cancel();
            let err = waiting.join().unwrap().unwrap_err();
            assert_eq!(err.to_string(), "clip.mp4: frame extraction was cancelled; nothing was written");
        });
        assert_eq!(*slots.running.lock().unwrap(), 1, "refused waits took no slot");
    }
}
