//! What the decoder is given: the container judged by the file's first bytes ([`sniff_container`],
//! its demuxer forced), URLs refused, the path resolved and checked against the allowed roots
//! ([`open_recording`]), and the private, hashed copy the tools decode ([`snapshot`]).

use super::MAX_VIDEO_BYTES;
use super::run::CallLimits;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::allowed_roots::check_allowed;
use crate::error::{Error, Result};

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
    pub(super) fn of_extension(extension: &str) -> Option<Self> {
        match extension {
            "mp4" | "mov" => Some(Container::Mov),
            "webm" => Some(Container::Matroska),
            _ => None,
        }
    }

    /// How messages name the family, with its article.
    pub(super) fn name(self) -> &'static str {
        match self {
            Container::Mov => "an MP4/MOV",
            Container::Matroska => "a WebM/Matroska",
        }
    }

    /// The extension to rename a misnamed recording to.
    pub(super) fn extension(self) -> &'static str {
        match self {
            Container::Mov => "mp4",
            Container::Matroska => "webm",
        }
    }

    /// The arguments that go before the input of every ffprobe and ffmpeg run: the file protocol
    /// only, the demuxer forced (never probed, so a script or playlist demuxer cannot be chosen)
    /// and, for MOV, external data references and absolute alias paths off. Both are off by
    /// default in ffmpeg; they are given so a build or a future default cannot turn them on.
    pub(super) fn input_args(self) -> &'static [&'static str] {
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
pub(super) fn is_text(head: &[u8]) -> bool {
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

/// A recording that passed every check: where it really is, its family by its bytes, its size.
pub(super) struct Recording {
    /// The file with symlinks and `..` resolved: what the tools open, so a symlink changed after
    /// the checks cannot point them elsewhere.
    pub(super) resolved: PathBuf,
    pub(super) container: Container,
    pub(super) bytes: u64,
}

impl Recording {
    /// The tools' input: the resolved file through the `file:` protocol, which keeps a name like
    /// `concat:…` or `http://…` from being read as another protocol.
    pub(super) fn input(&self) -> String {
        format!("file:{}", self.resolved.display())
    }
}

/// Checks `video` (as the caller gave it) before any tool runs: its extension, the allowed
/// roots (on the resolved path), that it is a regular file within the size limit, and that its
/// first bytes are a container of the family its extension names.
pub(super) fn open_recording(video: &Path) -> Result<Recording> {
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

/// Copies the recording into `dir` as a hidden file while hashing it (SHA-256), then checks the
/// copy's own first bytes: the tools decode the copy, so the hash and the family are those of
/// exactly what is decoded. A cancel or the deadline stops it between 1 MiB blocks.
pub(super) fn snapshot(recording: &Recording, dir: &Path, limits: &CallLimits) -> Result<(String, Recording)> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
