//! Faults around `sightline approve`, the one command that replaces committed files: a process
//! killed at any moment, a disk that fills up, a folder that cannot hold baselines. Every baseline
//! must end up old-and-whole or new-and-whole, and a failure must say what to do.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use sightline_core::RgbaImage;
use sightline_core::capture::UpdateMode;
use sightline_core::decode::{PngCompression, encode_png};
use sightline_core::store::ProjectStore;

use crate::support::{capture, copy_dir, files, text, write_run_results};

const SNAPSHOTS: usize = 8;

fn sightline() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sightline"))
}

/// A 480 × 720 page whose first `busy_rows` rows are noise (the rest white): its PNG grows with
/// `busy_rows`, which lets a file-size limit fall between two baselines.
fn page(seed: u32, busy_rows: usize) -> Vec<u8> {
    let (w, h) = (480usize, 720usize);
    let mut img = RgbaImage::filled(w as u32, h as u32, [255, 255, 255, 255]).unwrap();
    let mut state = seed.wrapping_mul(2_654_435_761).max(1);
    for px in img.as_bytes_mut()[..busy_rows * w * 4].chunks_exact_mut(4) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        // Seeds from 1000 on are the new captures: bluer than any threshold forgives.
        let blue = if seed >= 1000 { 60 } else { 200 };
        px[..3].copy_from_slice(&[(state & 0x1f) as u8, (state >> 8 & 0x0f) as u8, blue]);
    }
    encode_png(&img, PngCompression::Fastest).unwrap()
}

fn name(i: usize) -> String {
    format!("page-{i:02}")
}

/// A project whose every snapshot has an approved baseline and a different capture waiting; the
/// new baseline of snapshot `i` is bigger than that of `i - 1`.
fn project(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    let store = ProjectStore::new(dir);
    for i in 0..SNAPSHOTS {
        capture(&store, &name(i), &page(i as u32 + 1, 720), UpdateMode::All);
    }
    std::fs::remove_dir_all(dir.join(".sightline/temp")).unwrap();
    for i in 0..SNAPSHOTS {
        capture(&store, &name(i), &page(i as u32 + 1000, 80 * (i + 1)), UpdateMode::Default);
    }
    write_run_results(&store, dir);
}

fn baseline(root: &Path, i: usize) -> PathBuf {
    root.join(".sightline/baselines").join(name(i)).join("chromium.png")
}

/// How many baselines already hold their new bytes (a half-written one reads as neither).
fn count_replaced(root: &Path, new: &[Vec<u8>]) -> usize {
    (0..SNAPSHOTS).filter(|&i| std::fs::read(baseline(root, i)).is_ok_and(|bytes| bytes == new[i])).count()
}

/// The files in snapshot `i`'s baseline folder other than its baseline: temp files left behind.
fn strays(root: &Path, i: usize) -> Vec<(String, Vec<u8>)> {
    let dir = root.join(".sightline/baselines").join(name(i));
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "chromium.png")
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

fn temp_root(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("sightline-faults-{tag}-{}", std::process::id()))
}

/// The pristine project, and the old and new bytes of every baseline (from one undisturbed
/// approve of a copy).
fn pristine_and_bytes(tag: &str) -> (PathBuf, Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let pristine = temp_root(&format!("{tag}-pristine"));
    project(&pristine);
    let old: Vec<Vec<u8>> = (0..SNAPSHOTS).map(|i| std::fs::read(baseline(&pristine, i)).unwrap()).collect();
    let finished = temp_root(&format!("{tag}-finished"));
    let _ = std::fs::remove_dir_all(&finished);
    copy_dir(&pristine, &finished);
    let out = sightline().arg("--root").arg(&finished).args(["approve", "--all"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let new: Vec<Vec<u8>> = (0..SNAPSHOTS).map(|i| std::fs::read(baseline(&finished, i)).unwrap()).collect();
    assert!(old.iter().zip(&new).all(|(o, n)| o != n), "every capture differs from its baseline");
    std::fs::remove_dir_all(finished).unwrap();
    (pristine, old, new)
}

/// After a kill: `list` still reads the project, and a second approve finishes the job.
fn second_approve_finishes(work: &Path, new: &[Vec<u8>], round: &str) {
    let list = sightline().arg("--root").arg(work).arg("list").output().unwrap();
    let expected: String = (0..SNAPSHOTS).map(|i| format!("{}\tchromium\n", name(i))).collect();
    assert_eq!(String::from_utf8_lossy(&list.stdout), expected, "{round}: {}", text(&list));
    let again = sightline().arg("--root").arg(work).args(["approve", "--all"]).output().unwrap();
    assert_eq!(again.status.code(), Some(0), "{round}: {}", text(&again));
    assert_eq!(count_replaced(work, new), SNAPSHOTS, "{round}");
}

/// 512-byte blocks, the unit of `ulimit -f` in a POSIX shell.
const BLOCK: usize = 512;

#[test]
fn faults_kill_in_the_middle_of_the_kth_baseline_write_keeps_it_old_and_the_earlier_ones_new() {
    let (pristine, old, new) = pristine_and_bytes("midwrite");
    let work = temp_root("midwrite-work");
    for k in 0..SNAPSHOTS {
        // The kill point, without timing: a file-size limit above every new baseline before k and
        // below baseline k. With one rayon thread approve writes in name order, so baselines
        // 0..k are written whole and renamed, and the write of baseline k reaches the limit:
        // SIGXFSZ (default action: terminate, no handler, no cleanup) kills the process right
        // there, inside write_all, with the temp file holding exactly `limit` bytes.
        let floor = if k == 0 { 0 } else { new[k - 1].len() };
        let limit = (floor + new[k].len()) / 2 / BLOCK * BLOCK;
        assert!(floor < limit && limit < new[k].len(), "the new baselines grow by more than a block");
        let _ = std::fs::remove_dir_all(&work);
        copy_dir(&pristine, &work);
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -f {}; exec \"$0\" --root \"$1\" approve --all", limit / BLOCK))
            .arg(env!("CARGO_BIN_EXE_sightline"))
            .arg(&work)
            .env("RAYON_NUM_THREADS", "1")
            .output()
            .unwrap();
        let round = format!("kill inside write {k}");
        // 25 is SIGXFSZ on Linux and macOS.
        assert_eq!(out.status.signal(), Some(25), "{round}: killed by SIGXFSZ, not {:?}: {}", out.status, text(&out));
        for i in 0..SNAPSHOTS {
            let bytes = std::fs::read(baseline(&work, i)).unwrap();
            let want = if i < k { &new[i] } else { &old[i] };
            assert!(bytes == *want, "{round}: {} holds neither what it should nor whole bytes", name(i));
        }
        // The half-written temp file is there, a prefix of the new baseline cut at the limit:
        // the kill did land inside the write, and the baseline beside it is still the old one.
        let left = strays(&work, k);
        assert_eq!(left.len(), 1, "{round}: {:?}", left.iter().map(|l| &l.0).collect::<Vec<_>>());
        assert!(left[0].0.starts_with(".chromium.png.") && left[0].0.ends_with(".tmp"), "{round}: {}", left[0].0);
        assert_eq!(left[0].1.len(), limit, "{round}");
        assert!(new[k].starts_with(&left[0].1), "{round}: the temp file is the start of the new baseline");
        assert!((0..SNAPSHOTS).filter(|&i| i != k).all(|i| strays(&work, i).is_empty()), "{round}");
        second_approve_finishes(&work, &new, &round);
    }
    for dir in [pristine, work] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn faults_sigkill_after_the_kth_rename_leaves_every_baseline_old_or_new_and_whole() {
    let (pristine, old, new) = pristine_and_bytes("kill");
    let work = temp_root("kill-work");
    let (mut untouched, mut partial, mut complete) = (0, 0, 0);
    for k in 0..=SNAPSHOTS {
        let _ = std::fs::remove_dir_all(&work);
        copy_dir(&pristine, &work);
        let mut child = sightline()
            .arg("--root")
            .arg(&work)
            .args(["approve", "--all"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The kill point is an event, not a delay: as soon as the k-th baseline holds its new
        // bytes (k = 0: at once), so every count from none to all is reached on any machine.
        // The loop ends when the process does, so a slow or crashed run cannot hang it.
        while count_replaced(&work, &new) < k && child.try_wait().unwrap().is_none() {
            std::thread::yield_now();
        }
        let _ = child.kill(); // SIGKILL: no handler, no cleanup
        child.wait().unwrap();

        let round = format!("SIGKILL after {k} replaced");
        let mut replaced = 0;
        for i in 0..SNAPSHOTS {
            let bytes = std::fs::read(baseline(&work, i)).unwrap();
            assert!(bytes == old[i] || bytes == new[i], "{round}: {} is neither the old nor the new baseline", name(i));
            replaced += usize::from(bytes == new[i]);
        }
        assert!(replaced >= k, "{round}: only {replaced}");
        match replaced {
            0 => untouched += 1,
            SNAPSHOTS => complete += 1,
            _ => partial += 1,
        }
        second_approve_finishes(&work, &new, &round);
    }
    // k = SNAPSHOTS always ends complete; k = 1..SNAPSHOTS - 1 end partial unless the process
    // raced ahead, so at least the two ends are covered.
    assert!(complete >= 1 && untouched + partial >= 1, "untouched {untouched}, partial {partial}, complete {complete}");
    for dir in [pristine, work] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// Runs `sightline --root root approve --all` with a file-size limit, the way a full disk fails
/// a write (EFBIG instead of ENOSPC; SIGXFSZ ignored so the write returns an error).
fn approve_with_file_limit(root: &Path, kib: u32) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f {}; exec \"$0\" --root \"$1\" approve --all", kib * 2))
        .arg(env!("CARGO_BIN_EXE_sightline"))
        .arg(root)
        .output()
        .unwrap()
}

#[test]
fn faults_full_disk_during_approve_says_so_and_changes_nothing() {
    let root = temp_root("full");
    project(&root);
    let before = files(&root);
    let out = approve_with_file_limit(&root, 8);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // Names the file, says what happened and that nothing changed.
    assert_eq!(
        text(&out),
        format!(
            "sightline: {}: File too large (os error 27); the disk is full (or a file-size limit was hit): free space and run again, nothing was changed\n",
            baseline(&root, 0).display()
        )
    );
    assert_eq!(files(&root), before, "no baseline changed and no temp file was left behind");
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn faults_a_file_where_the_baseline_folder_belongs_is_a_clear_error() {
    let root = temp_root("notdir");
    project(&root);
    let target = root.join(".sightline/baselines").join(name(3));
    std::fs::remove_dir_all(&target).unwrap();
    std::fs::write(&target, b"not a folder").unwrap();
    let before = files(&root);
    let out = sightline().arg("--root").arg(&root).args(["approve", name(3).as_str()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(
        text(&out),
        format!(
            "sightline: {}: not a folder; a file stands where a folder is expected: move that file away\n",
            target.display()
        )
    );
    assert_eq!(files(&root), before);
    std::fs::remove_dir_all(root).unwrap();
}
