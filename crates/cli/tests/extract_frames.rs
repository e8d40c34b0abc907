//! `sightline extract-frames` on a real recording: ffmpeg encodes three known frames, one per
//! second, losslessly (PNG in a .mov), and the manifest and every extracted pixel are checked
//! exactly against them. Scripts, playlists, misnamed recordings and URLs are refused by their
//! bytes, a symlink is read through to its file, and a call past its deadline leaves nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};
use sightline_core::RgbaImage;
use sightline_core::decode::{encode_png, read_image};

use crate::support::text;

/// ffmpeg and ffprobe on PATH, or `false` (skipped; a failure under CI, which installs them).
fn have_ffmpeg() -> bool {
    let found = ["ffmpeg", "ffprobe"].iter().all(|tool| Command::new(tool).arg("-version").output().is_ok());
    assert!(found || std::env::var_os("CI").is_none(), "ffmpeg/ffprobe are missing and CI is set");
    if !found {
        eprintln!("skipping: ffmpeg or ffprobe is not on PATH");
    }
    found
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sightline-frames-{name}-{}", std::process::id()));
    if dir.exists() {
        // Earlier runs left read-only frames folders: make them writable to remove them.
        let _ = Command::new("chmod").arg("-R").arg("u+w").arg(&dir).status();
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Frame `i` of the recording, 32 × 24: a different colour per second with a white square whose
/// place also moves, so a wrong frame or a shifted one cannot pass for the right one.
fn source_frame(i: usize) -> RgbaImage {
    let colour = [[220, 30, 30, 255], [30, 180, 60, 255], [40, 60, 230, 255]][i];
    let mut img = RgbaImage::filled(32, 24, colour).unwrap();
    for y in 4..12 {
        for x in 4 + 8 * i..12 + 8 * i {
            let at = (y * 32 + x) * 4;
            img.as_bytes_mut()[at..at + 4].copy_from_slice(&[255, 255, 255, 255]);
        }
    }
    img
}

/// A 3 s recording at 1 fps of the three source frames (PNG codec: lossless RGB, so the
/// extracted frames must equal the sources byte for byte).
fn recording(dir: &Path) -> PathBuf {
    for i in 0..3 {
        std::fs::write(dir.join(format!("src-{i}.png")), encode_png(&source_frame(i), false).unwrap()).unwrap();
    }
    let video = dir.join("clip.mov");
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-framerate", "1", "-i"])
        .arg(dir.join("src-%d.png"))
        .args(["-c:v", "png", "-pix_fmt", "rgb24"])
        .arg(&video)
        .output()
        .unwrap();
    assert!(out.status.success(), "ffmpeg: {}", text(&out));
    video
}

fn sightline(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sightline")).arg("--root").arg(root).args(args).output().unwrap()
}

fn first_line(tool: &str) -> String {
    let out = Command::new(tool).arg("-version").output().unwrap();
    String::from_utf8_lossy(&out.stdout).lines().next().unwrap().to_string()
}

/// The one folder extract-frames made under `out`.
fn made_folder(out: &Path) -> PathBuf {
    let made: Vec<PathBuf> = std::fs::read_dir(out).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(made.len(), 1, "{made:?}");
    made.into_iter().next().unwrap()
}

fn xxh3_hex(path: &Path) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&std::fs::read(path).unwrap()))
}

#[test]
fn extract_frames_manifest_and_pixels_match_the_recording_exactly() {
    if !have_ffmpeg() {
        return;
    }
    let dir = temp_dir("whole");
    let video = recording(&dir);
    let out_root = dir.join("frames");
    let out = sightline(
        &dir,
        &[
            "extract-frames",
            video.to_str().unwrap(),
            "--duration-ms",
            "3000",
            "--fps",
            "2",
            "--out",
            out_root.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let manifest: Value = serde_json::from_slice(&out.stdout).unwrap();
    let folder = made_folder(&out_root);
    let name = folder.file_name().unwrap().to_str().unwrap();
    assert!(name.starts_with("clip-"), "the folder is named after the recording: {name}");
    let file = |i: usize| folder.join(format!("frame-{i:03}.png")).display().to_string();
    // Source frames at 0, 1000 and 2000 ms; asked every 500 ms: each frame serves two times,
    // the first time `selected` (extracted), the second `shared` (the same file).
    let frame = |requested: f64, status: &str, source: f64, i: usize| json!({"requestedMs": requested, "status": status, "sourceMs": source, "file": file(i)});
    let expected = json!({
        "source": {
            "path": video.display().to_string(),
            "bytes": std::fs::metadata(&video).unwrap().len(),
            "hash": xxh3_hex(&video),
            "codec": "png",
            "width": 32,
            "height": 24,
            "durationMs": 3000.0,
        },
        "startMs": 0,
        "durationMs": 3000,
        "fps": 2,
        "outputDir": folder.display().to_string(),
        "files": [file(0), file(1), file(2)],
        "timeline": [file(0), file(0), file(1), file(1), file(2), file(2)],
        "frames": [
            frame(0.0, "selected", 0.0, 0),
            frame(500.0, "shared", 0.0, 0),
            frame(1000.0, "selected", 1000.0, 1),
            frame(1500.0, "shared", 1000.0, 1),
            frame(2000.0, "selected", 2000.0, 2),
            frame(2500.0, "shared", 2000.0, 2),
        ],
        "tools": [first_line("ffmpeg"), first_line("ffprobe")],
    });
    assert_eq!(manifest, expected);
    // The folder holds exactly the frames and the manifest, all read-only; each frame is its
    // source's pixels.
    let mut names: Vec<String> =
        std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["frame-000.png", "frame-001.png", "frame-002.png", "manifest.json"]);
    for name in &names {
        assert!(std::fs::metadata(folder.join(name)).unwrap().permissions().readonly(), "{name} is read-only");
    }
    let on_disk: Value = serde_json::from_slice(&std::fs::read(folder.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(on_disk, expected, "manifest.json says what stdout said");
    for i in 0..3 {
        assert!(read_image(Path::new(&file(i))).unwrap() == source_frame(i), "frame {i} is not source frame {i}");
    }

    // A second call never reuses the folder: a new one beside it.
    let again = sightline(
        &dir,
        &["extract-frames", video.to_str().unwrap(), "--duration-ms", "3000", "--out", out_root.to_str().unwrap()],
    );
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert_eq!(std::fs::read_dir(&out_root).unwrap().count(), 2);
}

#[test]
fn extract_frames_window_and_text_summary_into_the_default_folder() {
    if !have_ffmpeg() {
        return;
    }
    let dir = temp_dir("window");
    let video = recording(&dir);
    // 1000–2000 ms at 4 fps: 1000, 1250, 1500, 1750 all show source frame 1.
    let out = sightline(
        &dir,
        &["extract-frames", video.to_str().unwrap(), "--start-ms", "1000", "--duration-ms", "1000", "--fps", "4"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // Without --out the folder goes under <root>/.sightline/frames.
    let folder = made_folder(&dir.join(".sightline/frames"));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "1 frames from {} (png 32×24, 3000 ms): 1 selected, 3 shared, 0 unavailable\n{}\n",
            video.display(),
            folder.display()
        )
    );
    assert!(read_image(&folder.join("frame-000.png")).unwrap() == source_frame(1));
    let manifest: Value = serde_json::from_slice(&std::fs::read(folder.join("manifest.json")).unwrap()).unwrap();
    let statuses: Vec<(f64, &str, f64)> = manifest["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["requestedMs"].as_f64().unwrap(), f["status"].as_str().unwrap(), f["sourceMs"].as_f64().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [
            (1000.0, "selected", 1000.0),
            (1250.0, "shared", 1000.0),
            (1500.0, "shared", 1000.0),
            (1750.0, "shared", 1000.0)
        ]
    );
}

#[test]
fn extract_frames_refuses_bad_windows_and_missing_tools_leaving_nothing() {
    if !have_ffmpeg() {
        return;
    }
    let dir = temp_dir("refuse");
    let video = recording(&dir);
    let out_root = dir.join("frames");
    let v = video.to_str().unwrap();
    let o = out_root.to_str().unwrap();
    let rejected = |args: &[&str]| {
        let out = sightline(&dir, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert_eq!(
        rejected(&["extract-frames", v, "--start-ms", "2000", "--duration-ms", "2000", "--out", o]),
        format!(
            "sightline: {v}: the window 2000–4000 ms ends after the recording (3000 ms); choose startMs + durationMs ≤ 3000\n"
        )
    );
    assert_eq!(
        rejected(&["extract-frames", v, "--duration-ms", "1000", "--fps", "31", "--out", o]),
        "sightline: fps 31 is outside 1–30\n"
    );
    assert_eq!(
        rejected(&["extract-frames", v, "--duration-ms", "20001", "--fps", "1", "--out", o]),
        "sightline: durationMs 20001 is outside 1–20000\n"
    );
    assert_eq!(
        rejected(&["extract-frames", v, "--duration-ms", "5000", "--fps", "30", "--out", o]),
        "sightline: 5000 ms at 30 fps is 150 frames, above 120; shorten the window or lower fps\n"
    );
    let gif = dir.join("clip.gif");
    std::fs::copy(&video, &gif).unwrap();
    assert_eq!(
        rejected(&["extract-frames", gif.to_str().unwrap(), "--duration-ms", "1000", "--out", o]),
        format!("sightline: {}: not a .mp4, .mov or .webm recording; convert it with ffmpeg first\n", gif.display())
    );
    // No ffprobe on PATH and no SIGHTLINE_FFPROBE: the message says how to install it.
    let empty = dir.join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["extract-frames", v, "--duration-ms", "1000", "--out", o])
        .env("PATH", &empty)
        .env_remove("SIGHTLINE_FFPROBE")
        .env_remove("SIGHTLINE_FFMPEG")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "sightline: ffprobe not found on PATH: install ffmpeg (Debian/Ubuntu: apt-get install --no-install-recommends ffmpeg; macOS: brew install ffmpeg) or set SIGHTLINE_FFPROBE to its path\n"
    );
    // Every refusal came before the output folder was made.
    assert!(!out_root.exists());
}

/// A 1 s 160 × 120 test pattern (ffmpeg's lavfi `testsrc`), a video any script could point at.
fn test_pattern(dir: &Path) -> PathBuf {
    let video = dir.join("pattern.mp4");
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25", "-t", "1", "-c:v", "mpeg4"])
        .arg(&video)
        .output()
        .unwrap();
    assert!(out.status.success(), "ffmpeg: {}", text(&out));
    video
}

/// Runs extract-frames on `video` into `out` with `env` set; the exit code and stderr.
fn extract_with_env(video: &Path, out: &Path, env: &[(&str, &Path)]) -> (Option<i32>, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sightline"));
    command.args(["extract-frames"]).arg(video).args(["--duration-ms", "400", "--fps", "5", "--out"]).arg(out);
    command
        .env_remove("SIGHTLINE_VIDEO_TIMEOUT_MS")
        .env_remove("SIGHTLINE_FFMPEG")
        .env_remove("SIGHTLINE_ALLOWED_ROOTS");
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().unwrap();
    assert!(out.stdout.is_empty() || out.status.success(), "{}", text(&out));
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn extract_frames_refuses_scripts_playlists_misnamed_recordings_and_urls_by_their_bytes() {
    if !have_ffmpeg() {
        return;
    }
    let dir = temp_dir("scripts");
    let pattern = test_pattern(&dir);
    let out_root = dir.join("frames");
    let refused = |video: &Path| {
        let (code, stderr) = extract_with_env(video, &out_root, &[]);
        assert_eq!(code, Some(2), "{}: {stderr}", video.display());
        stderr
    };
    let not_a_recording = |video: &Path, looks_like: &str| {
        format!(
            "sightline: {}: not an MP4/MOV or WebM recording ({looks_like}); give the recording itself, or convert it with ffmpeg first\n",
            video.display()
        )
    };
    // An ffconcat script named .mp4 that points at a real video: ffmpeg's probing would decode
    // the video it names; the bytes give it away before any tool runs.
    let script = dir.join("clip.mp4");
    std::fs::write(&script, format!("ffconcat version 1.0\nfile '{}'\n", pattern.display())).unwrap();
    assert_eq!(refused(&script), not_a_recording(&script, "it starts like an ffconcat script"));
    let playlist = dir.join("playlist.mp4");
    std::fs::write(&playlist, "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\npattern.mp4\n#EXT-X-ENDLIST\n").unwrap();
    assert_eq!(refused(&playlist), not_a_recording(&playlist, "it starts like an HLS (m3u8) playlist"));
    let empty = dir.join("empty.webm");
    std::fs::write(&empty, b"").unwrap();
    assert_eq!(refused(&empty), not_a_recording(&empty, "it is empty"));
    // A WebM/Matroska recording named .mp4 (and the other way round): the name must say what the
    // bytes are.
    let matroska = dir.join("remuxed.mp4");
    let remux = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-i"])
        .arg(&pattern)
        .args(["-c", "copy", "-f", "matroska"])
        .arg(&matroska)
        .output()
        .unwrap();
    assert!(remux.status.success(), "{}", text(&remux));
    assert_eq!(
        refused(&matroska),
        format!("sightline: {}: a WebM/Matroska recording named .mp4; rename it to .webm\n", matroska.display())
    );
    let mp4_as_webm = dir.join("pattern.webm");
    std::fs::copy(&pattern, &mp4_as_webm).unwrap();
    assert_eq!(
        refused(&mp4_as_webm),
        format!("sightline: {}: an MP4/MOV recording named .webm; rename it to .mp4\n", mp4_as_webm.display())
    );
    // URLs are refused as they are, never joined to a folder or fetched.
    for url in ["http://127.0.0.1:9/clip.mp4", "file:clip.mp4"] {
        assert_eq!(
            refused(Path::new(url)),
            format!(
                "sightline: {url}: a URL, not a local recording; download it and give the file's path (a file whose name has a colon: write ./{url})\n"
            )
        );
    }
    assert!(!out_root.exists(), "no refusal made the output folder");
}

#[cfg(unix)]
#[test]
fn extract_frames_gives_the_tools_the_resolved_file_behind_a_symlink() {
    if !have_ffmpeg() {
        return;
    }
    let dir = temp_dir("symlink");
    let video = recording(&dir);
    let link = dir.join("link.mov");
    std::os::unix::fs::symlink(&video, &link).unwrap();
    let out_root = dir.join("frames");
    let out = sightline(
        &dir,
        &[
            "extract-frames",
            link.to_str().unwrap(),
            "--duration-ms",
            "1000",
            "--fps",
            "1",
            "--json",
            "--out",
            out_root.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let manifest: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The manifest names the file that was read, not the link; the folder is named after it too.
    assert_eq!(manifest["source"]["path"], video.canonicalize().unwrap().display().to_string());
    assert!(made_folder(&out_root).file_name().unwrap().to_str().unwrap().starts_with("clip-"));
}

#[cfg(unix)]
#[test]
fn extract_frames_past_its_deadline_stops_the_tool_and_leaves_no_folder() {
    if !have_ffmpeg() {
        return;
    }
    let dir = temp_dir("deadline");
    let video = recording(&dir);
    // No output folder yet: a failed call must not leave even the folders it made for the output.
    let out_root = dir.join("out").join("frames");
    let v = video.display();
    let fix = "and was stopped; use a shorter window or lower fps, or raise SIGHTLINE_VIDEO_TIMEOUT_MS (milliseconds, default 120000)\n";
    // 1 ms passes before or during the first probe; which one depends on the machine.
    let (code, stderr) = extract_with_env(&video, &out_root, &[("SIGHTLINE_VIDEO_TIMEOUT_MS", Path::new("1"))]);
    assert_eq!(code, Some(2), "{stderr}");
    let prefix = format!("sightline: {v}: frame extraction passed its deadline of 1 ms while ");
    assert!(stderr.starts_with(&prefix) && stderr.ends_with(fix), "{stderr}");
    assert!(!dir.join("out").exists(), "nothing was made");

    // A deadline passing after the frames folder was begun: an "ffmpeg" that never answers (it
    // records its process id, then becomes `sleep`) is killed at 1.5 s, and the partial folder
    // and the folders made for the output are removed.
    let hanging = dir.join("hanging-ffmpeg");
    let pid_file = dir.join("hanging.pid");
    std::fs::write(&hanging, format!("#!/bin/sh\necho $$ > '{}'\nexec sleep 60\n", pid_file.display())).unwrap();
    std::fs::set_permissions(&hanging, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let started = std::time::Instant::now();
    let (code, stderr) = extract_with_env(
        &video,
        &out_root,
        &[("SIGHTLINE_VIDEO_TIMEOUT_MS", Path::new("1500")), ("SIGHTLINE_FFMPEG", &hanging)],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        stderr,
        format!("sightline: {v}: frame extraction passed its deadline of 1500 ms while ffmpeg -version ran {fix}")
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "the call ended at its deadline, not the tool's");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(!Path::new(&format!("/proc/{}", pid.trim())).exists(), "the hanging tool {pid} was killed");
    assert!(!dir.join("out").exists(), "no partial folder and no output folder was left");

    let (code, stderr) = extract_with_env(&video, &out_root, &[("SIGHTLINE_VIDEO_TIMEOUT_MS", Path::new("2s"))]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "sightline: SIGHTLINE_VIDEO_TIMEOUT_MS=2s: not a whole number of milliseconds above 0; set it to e.g. 120000 or unset it\n"
    );
}
