//! Faults around `sightline approve`, the one command that replaces committed files: a process
//! killed at any moment, a disk that fills up, a folder that cannot hold baselines. Every baseline
//! must end up old-and-whole or new-and-whole, and a failure must say what to do.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use sightline_core::RgbaImage;
use sightline_core::capture::UpdateMode;
use sightline_core::decode::encode_png;
use sightline_core::store::ProjectStore;

use crate::support::{capture, copy_dir, files, text, write_run_results};

const SNAPSHOTS: usize = 8;

fn sightline() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sightline"))
}

/// A page big and busy enough that encoding its baseline PNG takes a while: kills land inside.
fn page(seed: u32) -> Vec<u8> {
    let (w, h) = (480usize, 720usize);
    let mut img = RgbaImage::filled(w as u32, h as u32, [255, 255, 255, 255]).unwrap();
    let mut state = seed.wrapping_mul(2_654_435_761).max(1);
    for px in img.as_bytes_mut().chunks_exact_mut(4) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        // Seeds from 1000 on are the new captures: bluer than any threshold forgives.
        let blue = if seed >= 1000 { 60 } else { 200 };
        px[..3].copy_from_slice(&[(state & 0x1f) as u8, (state >> 8 & 0x0f) as u8, blue]);
    }
    encode_png(&img, true).unwrap()
}

fn name(i: usize) -> String {
    format!("page-{i:02}")
}

/// A project whose every snapshot has an approved baseline and a different capture waiting.
fn project(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    let store = ProjectStore::new(dir);
    for i in 0..SNAPSHOTS {
        capture(&store, &name(i), &page(i as u32 + 1), UpdateMode::All);
    }
    std::fs::remove_dir_all(dir.join(".sightline/temp")).unwrap();
    for i in 0..SNAPSHOTS {
        capture(&store, &name(i), &page(i as u32 + 1000), UpdateMode::Default);
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

fn temp_root(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("sightline-faults-{tag}-{}", std::process::id()))
}

#[test]
fn faults_sigkill_during_approve_leaves_every_baseline_old_or_new_and_whole() {
    let pristine = temp_root("kill-pristine");
    project(&pristine);
    let old: Vec<Vec<u8>> = (0..SNAPSHOTS).map(|i| std::fs::read(baseline(&pristine, i)).unwrap()).collect();

    // One undisturbed approve gives the new bytes and how long the window to hit is.
    let finished = temp_root("kill-finished");
    let _ = std::fs::remove_dir_all(&finished);
    copy_dir(&pristine, &finished);
    let started = Instant::now();
    let out = sightline().arg("--root").arg(&finished).args(["approve", "--all"]).output().unwrap();
    let full = started.elapsed();
    eprintln!("faults: an undisturbed approve of {SNAPSHOTS} snapshots takes {full:?}");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let new: Vec<Vec<u8>> = (0..SNAPSHOTS).map(|i| std::fs::read(baseline(&finished, i)).unwrap()).collect();
    assert!(old.iter().zip(&new).all(|(o, n)| o != n), "every capture differs from its baseline");

    // Two kinds of kill point, alternating: as soon as the k-th baseline has been replaced (so
    // every count from none to all is hit whatever the machine's speed), and after a delay spread
    // over the undisturbed run (so kills also land inside a write, not only after a rename).
    let rounds = 2 * (SNAPSHOTS as u32 + 1);
    let work = temp_root("kill-work");
    let (mut untouched, mut partial, mut complete) = (0, 0, 0);
    for round in 0..rounds {
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
        let kill_point = if round % 2 == 0 {
            let k = (round / 2) as usize;
            while count_replaced(&work, &new) < k && child.try_wait().unwrap().is_none() {
                std::thread::yield_now();
            }
            format!("after {k} replaced")
        } else {
            let delay = full.mul_f64(f64::from(round / 2) / f64::from(SNAPSHOTS as u32));
            std::thread::sleep(delay);
            format!("after {delay:?}")
        };
        let _ = child.kill(); // SIGKILL: no handler, no cleanup
        child.wait().unwrap();

        let mut replaced = 0;
        for i in 0..SNAPSHOTS {
            let bytes = std::fs::read(baseline(&work, i)).unwrap();
            assert!(
                bytes == old[i] || bytes == new[i],
                "round {round} (kill {kill_point}): {} is neither the old nor the new baseline",
                name(i)
            );
            replaced += usize::from(bytes == new[i]);
        }
        match replaced {
            0 => untouched += 1,
            SNAPSHOTS => complete += 1,
            _ => partial += 1,
        }
        // Whatever the kill left, the project still reads and (checked every few rounds, to keep the
        // test short) a second approve finishes the job.
        if round % 4 != 1 {
            continue;
        }
        let list = sightline().arg("--root").arg(&work).arg("list").output().unwrap();
        assert_eq!(text(&list).lines().count(), SNAPSHOTS, "round {round}: {}", text(&list));
        let again = sightline().arg("--root").arg(&work).args(["approve", "--all"]).output().unwrap();
        assert_eq!(again.status.code(), Some(0), "round {round}: {}", text(&again));
        assert!((0..SNAPSHOTS).all(|i| std::fs::read(baseline(&work, i)).unwrap() == new[i]));
    }
    // The kills covered the run: before the first rename, between renames, and after the last.
    assert!(
        untouched > 0 && partial > 0 && complete > 0,
        "untouched {untouched}, partial {partial}, complete {complete}"
    );
    for dir in [pristine, finished, work] {
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
    let out = approve_with_file_limit(&root, 64);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let message = text(&out);
    assert!(message.contains(".sightline/baselines/page-00/chromium.png"), "names the file: {message}");
    assert!(message.contains("the disk is full"), "says what happened: {message}");
    assert!(message.contains("nothing was changed"), "{message}");
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
    let message = text(&out);
    assert!(message.contains(&format!(".sightline/baselines/{}", name(3))), "names the path: {message}");
    assert!(message.contains("a file stands where a folder is expected"), "{message}");
    assert_eq!(files(&root), before);
    std::fs::remove_dir_all(root).unwrap();
}
