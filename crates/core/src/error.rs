//! The engine's error type. Every message names the input and, where there is one, the fix:
//! these strings reach people through the CLI, the matcher and the MCP server unchanged.

use std::path::PathBuf;

/// The environment variable holding one frame extraction's deadline in milliseconds
/// (the video module reads it; [`Error::DeadlinePassed`] names it as the fix).
pub const TIMEOUT_VAR: &str = "SIGHTLINE_VIDEO_TIMEOUT_MS";
/// One call's deadline when [`TIMEOUT_VAR`] is unset: every ffprobe and ffmpeg run of the call,
/// and its wait for a free slot, must end within it.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;

/// A failure of the engine. Expected outcomes ("the images differ") are never errors.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{path}: {error}{hint}", hint = io_hint(error))]
    Io { path: PathBuf, error: std::io::Error },
    /// An image file is not a PNG or JPEG we can decode.
    #[error("{path}: not a readable PNG or JPEG image ({detail}); re-export it as an 8-bit PNG")]
    BadImage { path: PathBuf, detail: String },
    /// Dimensions are larger than the pixel cap; checked before any pixel buffer is allocated.
    #[error(
        "{what}: {width}×{height} is {pixels} pixels, above the limit of {limit}; capture a smaller area (clip) or split the page"
    )]
    TooLarge { what: String, width: u64, height: u64, pixels: u64, limit: u64 },
    /// A capture artifact is corrupt, truncated or from an unknown format version.
    #[error("{path}: {detail}; delete it and capture again")]
    BadArtifact { path: PathBuf, detail: String },
    /// A DOM record from the in-page collector is malformed, too large or from another format
    /// version; `detail` names the field or element.
    #[error("DOM record: {detail}; capture again with the current sightline")]
    BadDom { detail: String },
    /// A results.json that is damaged, hand-edited or from another format version.
    #[error("{path}: {detail}; run the tests again to rewrite it")]
    BadResults { path: PathBuf, detail: String },
    /// A path lies outside every folder listed in `SIGHTLINE_ALLOWED_ROOTS`.
    #[error(
        "{path}: outside the folders SIGHTLINE_ALLOWED_ROOTS allows ({roots}); move it under one of them or add its folder to SIGHTLINE_ALLOWED_ROOTS"
    )]
    NotAllowed { path: PathBuf, roots: String },
    /// An image side is longer than a tool accepts; checked from the header, before decoding.
    #[error("{path}: {width}×{height} has a side longer than {limit} px; crop or scale it down first")]
    SideTooLong { path: PathBuf, width: u64, height: u64, limit: u64 },
    /// A file is larger than a tool reads; checked from its metadata, before reading.
    #[error("{path}: {bytes} bytes is above the limit of {limit}; export a smaller image")]
    FileTooLarge { path: PathBuf, bytes: u64, limit: u64 },
    /// A frame sequence cannot be compared (too few frames, mixed sizes, an empty folder).
    #[error("{what}: {detail}; give a folder of PNG frames or a list of frame files, all the same size")]
    BadFrames { what: String, detail: String },
    /// A file given as a recording is, by its first bytes, neither an MP4/MOV nor a WebM/Matroska
    /// container (an ffconcat script, a playlist, text, an image); no tool has read it.
    #[error(
        "{path}: not an MP4/MOV or WebM recording ({looks_like}); give the recording itself, or convert it with ffmpeg first"
    )]
    NotARecording { path: PathBuf, looks_like: String },
    /// A recording whose bytes are one container family and whose name says the other; `found`
    /// is the family with its article ("a WebM/Matroska").
    #[error("{path}: {found} recording named .{extension}; rename it to .{suggested}")]
    MisnamedRecording { path: PathBuf, found: String, extension: String, suggested: String },
    /// A frame extraction ran past its deadline (`SIGHTLINE_VIDEO_TIMEOUT_MS`); the running
    /// tool was stopped and nothing was written. `during` says what it was doing.
    #[error(
        "{path}: frame extraction passed its deadline of {limit_ms} ms {during} and was stopped; use a shorter window or lower fps, or raise {var} (milliseconds, default {default})",
        var = TIMEOUT_VAR,
        default = DEFAULT_TIMEOUT_MS
    )]
    DeadlinePassed { path: PathBuf, limit_ms: u64, during: String },
    /// The caller cancelled a frame extraction (an MCP client's `notifications/cancelled`); the
    /// running tool was stopped and nothing was written.
    #[error("{path}: frame extraction was cancelled; nothing was written")]
    Cancelled { path: PathBuf },
    /// A review decision was sent for a results.json that has since been rewritten (a new run):
    /// the person decided on evidence that is no longer the run's, so nothing was written.
    #[error(
        "{path} changed since this page was loaded (a new run wrote it); nothing was written: reload the page and review what it shows now"
    )]
    StaleResults { path: PathBuf },
    /// A review decision names a snapshot that is not a changed or new snapshot of the run.
    #[error(
        "{label}: not a changed or new snapshot in {path}; nothing was written: reload the page, or run the tests again"
    )]
    UnknownSnapshot { label: String, path: PathBuf },
    /// A caller passed values that cannot describe an image or an option.
    #[error("{0}")]
    InvalidInput(String),
    /// A bug in Sightline: a panic caught at a front-end's boundary by [`catch_panic`], so the
    /// caller (a Playwright worker, say) gets an error instead of a crashed process.
    #[error("sightline internal error: {0}; please report it")]
    Internal(String),
}

/// Shorthand used across the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>, error: std::io::Error) -> Self {
        Error::Io { path: path.into(), error }
    }
}

/// Runs `f`, turning a panic inside it into [`Error::Internal`] with the panic's message. The
/// addon wraps every export in it (06-quality.md: a panic never kills a Playwright worker).
pub fn catch_panic<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|panic| Err(Error::Internal(panic_message(&*panic))))
}

/// The message a panic was raised with (`panic!("…")` carries a `&str` or, formatted, a `String`).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// What to do about the I/O failures people can fix; every write went through a temp file, so
/// the file named is as it was before.
fn io_hint(error: &std::io::Error) -> &'static str {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::StorageFull | ErrorKind::FileTooLarge | ErrorKind::QuotaExceeded => {
            "; the disk is full (or a file-size limit was hit): free space and run again, nothing was changed"
        }
        ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem => {
            "; this folder cannot be written: fix its permissions or choose another root, nothing was changed"
        }
        ErrorKind::NotADirectory => "; a file stands where a folder is expected: move that file away",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_a_panic_is_an_internal_error_naming_it() {
        let err = catch_panic::<()>(|| panic!("index 7 out of range")).unwrap_err();
        assert!(matches!(&err, Error::Internal(what) if what == "index 7 out of range"), "{err:?}");
        assert_eq!(err.to_string(), "sightline internal error: index 7 out of range; please report it");
        // A formatted panic carries a String payload, not a &str.
        let err = catch_panic::<()>(|| panic!("{} rows", 3)).unwrap_err();
        assert_eq!(err.to_string(), "sightline internal error: 3 rows; please report it");
        let err = catch_panic::<()>(|| std::panic::panic_any(42u8)).unwrap_err();
        assert_eq!(err.to_string(), "sightline internal error: unknown panic; please report it");
    }

    #[test]
    fn error_catch_panic_passes_values_and_errors_through() {
        assert_eq!(catch_panic(|| Ok(5)).unwrap(), 5);
        let err = catch_panic::<()>(|| Err(Error::InvalidInput("threshold 2 is outside 0..1".into()))).unwrap_err();
        assert!(matches!(err, Error::InvalidInput(ref m) if m == "threshold 2 is outside 0..1"), "{err:?}");
    }
}
