//! `sightline extract-frames` on a real recording: ffmpeg encodes three known frames, one per
//! second, losslessly (PNG in a .mov), and the manifest and every extracted pixel are checked
//! exactly against them. Scripts, playlists, misnamed recordings and URLs are refused by their
//! bytes, a symlink is read through to its file, and a call past its deadline leaves nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};
use sightline_core::RgbaImage;
use sightline_core::decode::{PngCompression, encode_png, read_image};

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
        std::fs::write(
            dir.join(format!("src-{i}.png")),
            encode_png(&source_frame(i), PngCompression::Smallest).unwrap(),
        )
        .unwrap();
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

/// `sha256sum`'s answer for the file: an independent computation of the manifest's hash.
fn sha256_hex(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap().to_string()
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
    // Source frames at 0, 1000 and 2000 ms (pts 0, 16384, 32768 in 1/16384); asked every 500 ms,
    // each time takes the first frame at or after it: 500 and 1000 ms frame 1 (extracted for
    // 500, `shared` at 1000), 1500 and 2000 ms frame 2, and nothing begins at or after 2500 ms.
    let frame = |requested: f64, status: &str, i: usize| json!({"requestedMs": requested, "status": status, "frameIndex": i, "pts": 16384 * i, "actualMs": 1000.0 * i as f64, "file": file(i)});
    let expected = json!({
        "source": {
            "path": video.display().to_string(),
            "bytes": std::fs::metadata(&video).unwrap().len(),
            "sha256": sha256_hex(&video),
            "codec": "png",
            "width": 32,
            "height": 24,
            "durationMs": 3000.0,
            "timeBase": "1/16384",
            "frameRate": "1/1",
            "firstPts": 0,
            "rotation": 0,
        },
        "startMs": 0,
        "durationMs": 3000,
        "fps": 2,
        "sampling": "incomplete",
        "outputDir": folder.display().to_string(),
        "manifestPath": folder.join("manifest.json").display().to_string(),
        "files": [file(0), file(1), file(2)],
        "timeline": [file(0), file(1), file(1), file(2), file(2)],
        "frames": [
            frame(0.0, "selected", 0),
            frame(500.0, "selected", 1),
            frame(1000.0, "shared", 1),
            frame(1500.0, "selected", 2),
            frame(2000.0, "shared", 2),
            {"requestedMs": 2500.0, "status": "unavailable", "frameIndex": null, "pts": null, "actualMs": null, "file": null},
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
    // 1000–2000 ms at 4 fps: 1000 takes source frame 1; 1250, 1500 and 1750 frame 2 (2000 ms).
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
            "2 frames from {} (png 32×24, 3000 ms): 2 selected, 2 shared, 0 unavailable; sampling sparse\n{}\n",
            video.display(),
            folder.join("manifest.json").display()
        )
    );
    assert!(read_image(&folder.join("frame-000.png")).unwrap() == source_frame(1));
    assert!(read_image(&folder.join("frame-001.png")).unwrap() == source_frame(2));
    let manifest: Value = serde_json::from_slice(&std::fs::read(folder.join("manifest.json")).unwrap()).unwrap();
    let statuses: Vec<(f64, &str, f64)> = manifest["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["requestedMs"].as_f64().unwrap(), f["status"].as_str().unwrap(), f["actualMs"].as_f64().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [
            (1000.0, "selected", 1000.0),
            (1250.0, "selected", 2000.0),
            (1500.0, "shared", 2000.0),
            (1750.0, "shared", 2000.0)
        ]
    );
}

/// The flat colour of frame `n` in [`coloured`] recordings: every frame differs from its
/// neighbours, so a frame off by one cannot pass.
fn colour(n: usize) -> [u8; 4] {
    [((n * 37) % 256) as u8, ((n * 91) % 256) as u8, ((n * 13) % 256) as u8, 255]
}

/// A lossless recording (PNG in a .mov) at `rate` ("30", "30000/1001", "25") whose frame n is
/// the flat colour [`colour`]`(n)`, `seconds` long; `offset` (seconds) moves every timestamp.
fn coloured(dir: &Path, name: &str, rate: &str, seconds: u32, offset: &str) -> PathBuf {
    let video = dir.join(format!("{name}.mov"));
    let source = format!(
        "color=c=black:s=32x24:r={rate}:d={seconds},format=rgb24,geq=r='mod(N*37,256)':g='mod(N*91,256)':b='mod(N*13,256)'"
    );
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i", &source, "-c:v", "png", "-pix_fmt", "rgb24"])
        .args(["-output_ts_offset", offset])
        .arg(&video)
        .output()
        .unwrap();
    assert!(out.status.success(), "ffmpeg: {}", text(&out));
    video
}

/// Extracts with `--json` into a new folder under `dir/out-<tag>`; the manifest.
fn extract(dir: &Path, video: &Path, tag: &str, args: &[&str]) -> Value {
    let out_root = dir.join(format!("out-{tag}"));
    let mut all = vec!["extract-frames", video.to_str().unwrap(), "--out", out_root.to_str().unwrap(), "--json"];
    all.extend_from_slice(args);
    let out = sightline(dir, &all);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Each sample's frame index, and that its file shows exactly that frame's colour.
fn sampled_indexes(manifest: &Value) -> Vec<usize> {
    let mut indexes = Vec::new();
    for f in manifest["frames"].as_array().unwrap() {
        let n = f["frameIndex"].as_u64().unwrap() as usize;
        let image = read_image(Path::new(f["file"].as_str().unwrap())).unwrap();
        assert!(
            image.as_bytes().chunks_exact(4).all(|p| p == colour(n)),
            "sample at {} ms: the file is not frame {n}",
            f["requestedMs"]
        );
        indexes.push(n);
    }
    indexes
}

#[test]
fn extract_frames_takes_the_frame_at_each_frame_time_exactly_at_30_29_97_and_25_fps() {
    if !have_ffmpeg() {
        return;
    }
    let dir = temp_dir("rates");
    // Every frame time of 4 s at 30 fps: 120 samples, sample i is frame i (66.7 ms is frame 2).
    let thirty =
        extract(&dir, &coloured(&dir, "thirty", "30", 4, "0"), "30", &["--duration-ms", "4000", "--fps", "30"]);
    assert_eq!(sampled_indexes(&thirty), (0..120).collect::<Vec<_>>());
    assert_eq!((thirty["sampling"].as_str(), thirty["source"]["frameRate"].as_str()), (Some("complete"), Some("30/1")));
    assert_eq!(thirty["frames"][2]["requestedMs"], 66.667);
    assert_eq!(thirty["frames"][2]["actualMs"], 66.667);
    // 29.97 fps sampled at 30: time i / 30 s falls just before frame i (i × 1001 / 30000 s), so
    // the first frame at or after it is frame i, every time, to the tick.
    let ntsc =
        extract(&dir, &coloured(&dir, "ntsc", "30000/1001", 5, "0"), "2997", &["--duration-ms", "4000", "--fps", "30"]);
    assert_eq!(sampled_indexes(&ntsc), (0..120).collect::<Vec<_>>());
    assert_eq!(ntsc["source"]["timeBase"], "1/30000");
    let pts: Vec<i64> = ntsc["frames"].as_array().unwrap().iter().map(|f| f["pts"].as_i64().unwrap()).collect();
    assert_eq!(pts, (0..120).map(|i| i * 1001).collect::<Vec<_>>());
    assert_eq!(ntsc["sampling"], "complete");
    // 25 fps at 25: exact; at 30 the recording has fewer frames than times, so every sixth time
    // shares the frame before it and the sampling is sparse.
    let pal = coloured(&dir, "pal", "25", 3, "0");
    assert_eq!(
        sampled_indexes(&extract(&dir, &pal, "25", &["--duration-ms", "2000", "--fps", "25"])),
        (0..50).collect::<Vec<_>>()
    );
    let faster = extract(&dir, &pal, "25at30", &["--duration-ms", "400", "--fps", "30"]);
    assert_eq!(sampled_indexes(&faster), [0, 1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 10]);
    assert_eq!(faster["sampling"], "sparse");
    assert_eq!(faster["frames"][6]["status"], "shared");
}

#[test]
fn extract_frames_counts_time_from_the_first_frame_of_a_recording_that_starts_at_2_s() {
    if !have_ffmpeg() {
        return;
    }
    let dir = temp_dir("offset");
    let video = coloured(&dir, "late", "30", 2, "2");
    // The recording's timestamps begin at 2 s (pts 30720 in 1/15360): the window counts from
    // there, so 500 ms is frame 15.
    let manifest = extract(&dir, &video, "late", &["--start-ms", "500", "--duration-ms", "1000", "--fps", "10"]);
    assert_eq!(manifest["source"]["firstPts"], 30720);
    assert_eq!(manifest["source"]["durationMs"], 2000.0);
    assert_eq!(sampled_indexes(&manifest), [15, 18, 21, 24, 27, 30, 33, 36, 39, 42]);
    assert_eq!(manifest["frames"][0]["pts"], 30720 + 15 * 512);
    assert_eq!(manifest["frames"][0]["actualMs"], 500.0);
    // The window still may not reach past the recording's end, counted from its first frame.
    let out =
        sightline(&dir, &["extract-frames", video.to_str().unwrap(), "--start-ms", "1500", "--duration-ms", "600"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("the window 1500–2100 ms ends after the recording (2000 ms from its first frame)"),
        "{}",
        text(&out)
    );
}

#[test]
fn extract_frames_refuses_duplicate_timestamps_leaving_nothing() {
    if !have_ffmpeg() {
        return;
    }
    let dir = temp_dir("duplicates");
    // Two frames at each timestamp (setpts halves the frame number): a WebM keeps them.
    let video = dir.join("twice.webm");
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=32x24:r=30:d=0.5"])
        .args(["-vf", "setpts='floor(N/2)/(30*TB)'", "-fps_mode", "passthrough"])
        .args(["-c:v", "libvpx-vp9", "-lossless", "1", "-g", "1"])
        .arg(&video)
        .output()
        .unwrap();
    assert!(out.status.success(), "ffmpeg: {}", text(&out));
    let out_root = dir.join("out");
    let out = sightline(
        &dir,
        &["extract-frames", video.to_str().unwrap(), "--duration-ms", "300", "--out", out_root.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "sightline: {}: decoded frame 1 has timestamp 0, not after frame 0's 0 (time base 1/1000); with duplicate or decreasing timestamps no frame can be chosen by time: re-encode the recording (ffmpeg -i IN -c:v libx264 OUT.mp4) and extract again\n",
            video.display()
        )
    );
    assert!(!out_root.exists(), "nothing is left on disk");
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
            "sightline: {v}: the window 2000–4000 ms ends after the recording (3000 ms from its first frame); choose startMs + durationMs ≤ 3000\n"
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
