//! The writes that promise atomicity (capture artifacts, baselines, results.json), broken midway
//! by a real failure. Each test re-runs this test binary on itself as a child process under a
//! 4 KiB file-size limit (`ulimit -f`), so the child's write of a larger file stops after exactly
//! 4096 bytes, as a full disk stops it:
//!
//! - SIGXFSZ ignored: the write returns EFBIG, the path a full disk takes. The writer must report
//!   it by name and leave the folder as it was, temp file removed.
//! - SIGXFSZ at its default: the kernel kills the child inside the write, a crash nothing cleans
//!   up after. The temp file stays, cut at 4096 bytes (proof the write was under way).
//!
//! Either way the file that was there before is byte for byte what it was.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sightline_core::RgbaImage;
use sightline_core::artifact::{Capture, write_capture};
use sightline_core::results::{RunInfo, write_results};
use sightline_core::store::{CaptureData, ProjectStore};

/// Set in the child to the folder it writes in; the same test then does the cut-off write.
const CHILD: &str = "SIGHTLINE_ATOMIC_WRITES_CHILD";
/// The child's file-size limit: every new file below is larger.
const LIMIT: u64 = 4096;
/// The line the child prints before the error of its failed write.
const MARK: &str = "child write failed: ";
/// Linux's SIGXFSZ ("file size limit exceeded").
const SIGXFSZ: i32 = 25;

/// How the child's write is stopped at [`LIMIT`] bytes.
#[derive(Debug, Clone, Copy)]
enum Cut {
    /// EFBIG from write(2), as when the disk is full.
    Full,
    /// Killed by SIGXFSZ inside write(2), as in a crash.
    Killed,
}

/// The folder to write in when this process is the child of one of the tests.
fn child_root() -> Option<PathBuf> {
    std::env::var_os(CHILD).map(PathBuf::from)
}

/// Runs test `name` of this binary alone, as a child writing in `root` under the file limit.
fn run_child(name: &str, root: &Path, cut: Cut) -> Output {
    // dash's `ulimit -f` counts 512-byte blocks; `trap ''` makes the signal ignored, which the
    // exec'd test binary inherits.
    let signal = match cut {
        Cut::Full => "trap '' XFSZ; ",
        Cut::Killed => "",
    };
    Command::new("sh")
        .arg("-c")
        .arg(format!("{signal}ulimit -f {}; exec \"$0\" \"$@\"", LIMIT / 512))
        .arg(std::env::current_exe().expect("the test binary"))
        .args([&format!("atomic_writes::{name}"), "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, root)
        .output()
        .expect("run the child")
}

/// Every file under `dir` (relative path, bytes), sorted.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.push((path.strip_prefix(root).unwrap().to_path_buf(), std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Noise that no encoder squeezes below [`LIMIT`]: 128×64 RGBA is 32 KiB.
fn noise(seed: u32) -> RgbaImage {
    let mut img = RgbaImage::filled(128, 64, [0, 0, 0, 255]).unwrap();
    let mut state = seed.max(1);
    for px in img.as_bytes_mut().chunks_exact_mut(4) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        px[..3].copy_from_slice(&state.to_le_bytes()[..3]);
    }
    img
}

/// Runs `name`'s child under both cuts and checks what each left in `root`: `target` (relative
/// to `root`) unchanged, the full-disk error reported by the target's name, and nothing else
/// but, after the kill, one temp file of [`LIMIT`] bytes beside the target.
fn assert_cut_off_writes_leave_the_old_file(name: &str, root: &Path, target: &Path) {
    let before = files(root);
    let old = std::fs::read(root.join(target)).unwrap();
    assert!(before.iter().any(|(path, bytes)| path == target && *bytes == old));

    let out = run_child(name, root, Cut::Full);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{:?}: {stdout}{}", out.status, String::from_utf8_lossy(&out.stderr));
    // The harness prints the test's name first, on the same line.
    let reported: Vec<&str> = stdout.lines().filter_map(|l| l.split_once(MARK).map(|(_, e)| e)).collect();
    assert_eq!(
        reported,
        [format!(
            "{}: File too large (os error 27); the disk is full (or a file-size limit was hit): free space and run \
             again, nothing was changed",
            root.join(target).display()
        )]
    );
    assert_eq!(files(root), before, "a full disk changes nothing and leaves no temp file");

    let out = run_child(name, root, Cut::Killed);
    assert_eq!(out.status.signal(), Some(SIGXFSZ), "{:?}: {}", out.status, String::from_utf8_lossy(&out.stdout));
    let mut after = files(root);
    // The crash left its temp file beside the target (`.<name>.<pid>.<n>.tmp`, hidden), cut
    // at the limit; the target itself is the old file.
    let file_name = target.file_name().unwrap().to_string_lossy().into_owned();
    let temp = after
        .iter()
        .position(|(path, _)| {
            let n = path.file_name().unwrap().to_string_lossy();
            path.parent() == target.parent() && n.starts_with(&format!(".{file_name}.")) && n.ends_with(".tmp")
        })
        .unwrap_or_else(|| panic!("no temp file beside {}: {:?}", target.display(), names(&after)));
    let (temp_path, temp_bytes) = after.remove(temp);
    assert_eq!(temp_bytes.len() as u64, LIMIT, "{}", temp_path.display());
    assert_eq!(after, before, "the kill changed nothing but its temp file");
    std::fs::remove_file(root.join(temp_path)).unwrap();
}

fn names(files: &[(PathBuf, Vec<u8>)]) -> Vec<&Path> {
    files.iter().map(|(p, _)| p.as_path()).collect()
}

/// In the child: reports the write's error on stdout; a write that succeeds fails the child.
fn report_failure(result: sightline_core::Result<impl std::fmt::Debug>) {
    let err = result.expect_err("the file limit must stop this write");
    println!("{MARK}{err}");
}

#[test]
fn atomic_writes_capture_artifact_cut_off_leaves_the_old_artifact_whole() {
    let new = Capture { image: noise(2), device_scale_factor: 1.0, metadata: b"{\"v\":2}".to_vec() };
    if let Some(root) = child_root() {
        return report_failure(write_capture(&root.join("home.slcap"), &new));
    }
    let root = crate::scratch_dir("atomic-capture");
    let old = Capture { image: noise(1), device_scale_factor: 2.0, metadata: b"{\"v\":1}".to_vec() };
    write_capture(&root.join("home.slcap"), &old).unwrap();
    assert_cut_off_writes_leave_the_old_file(
        "atomic_writes_capture_artifact_cut_off_leaves_the_old_artifact_whole",
        &root,
        Path::new("home.slcap"),
    );
    // Without the limit the same write goes through: the limit, not the capture, stopped it.
    write_capture(&root.join("home.slcap"), &new).unwrap();
    assert_eq!(sightline_core::artifact::read_capture(&root.join("home.slcap")).unwrap(), new);
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn atomic_writes_baseline_cut_off_leaves_the_old_baseline_whole() {
    let data = CaptureData { device_scale_factor: 1.0, ..CaptureData::default() };
    if let Some(root) = child_root() {
        return report_failure(ProjectStore::new(root).write_baseline("home", "chromium", &noise(4), &data));
    }
    let root = crate::scratch_dir("atomic-baseline");
    let store = ProjectStore::new(&root);
    store.write_baseline("home", "chromium", &noise(3), &data).unwrap();
    assert_cut_off_writes_leave_the_old_file(
        "atomic_writes_baseline_cut_off_leaves_the_old_baseline_whole",
        &root,
        Path::new(".sightline/baselines/home/chromium.png"),
    );
    store.write_baseline("home", "chromium", &noise(4), &data).unwrap();
    assert_eq!(store.read_baseline("home", "chromium").unwrap().unwrap().image, noise(4));
    std::fs::remove_dir_all(&root).unwrap();
}

/// Evidence of `count` passed snapshots, as workers leave it in `.sightline/temp` (the example
/// run's passed `about`, renamed).
fn passed_snapshots(root: &Path, count: usize) {
    let example: serde_json::Value =
        serde_json::from_str(include_str!("../../../tests/golden/example-results.json")).unwrap();
    for i in 0..count {
        let dir = root.join(format!(".sightline/temp/page-{i:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        let mut evidence = example["snapshots"][0].clone();
        evidence["name"] = format!("page-{i:03}").into();
        std::fs::write(dir.join("chromium.json"), evidence.to_string()).unwrap();
    }
}

fn gather(root: &Path) -> sightline_core::Result<sightline_core::results::Summary> {
    let run = RunInfo {
        mode: "compare".into(),
        shard: None,
        root: root.display().to_string(),
        config: sightline_core::config::Settings::default(),
        filtered: false,
    };
    write_results(&ProjectStore::new(root), Path::new("report"), &run).map(|r| r.summary)
}

#[test]
fn atomic_writes_results_json_cut_off_leaves_the_old_results_whole() {
    if let Some(root) = child_root() {
        return report_failure(gather(&root));
    }
    let root = crate::scratch_dir("atomic-results");
    passed_snapshots(&root, 2);
    assert_eq!(gather(&root).unwrap().passed, 2);
    // 200 snapshots make a results.json of several times the limit.
    passed_snapshots(&root, 200);
    assert_cut_off_writes_leave_the_old_file(
        "atomic_writes_results_json_cut_off_leaves_the_old_results_whole",
        &root,
        Path::new("report/results.json"),
    );
    assert_eq!(gather(&root).unwrap().passed, 200);
    std::fs::remove_dir_all(&root).unwrap();
}
