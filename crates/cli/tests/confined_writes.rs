//! `sightline compare` on a project where a folder or file it writes is a symbolic link out of
//! the project (committed by a fork, made by hand): refused naming the link, exit 2, and the
//! folder the link leads to is byte for byte what it was. A report folder the user configured
//! outside the project is written there, but never through a link out of it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sightline_core::capture::UpdateMode;
use sightline_core::store::ProjectStore;

use crate::support::{capture, card_page, files, text, write_run_results};

fn sightline(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sightline")).arg("--root").arg(root).args(args).output().expect("run sightline")
}

/// A project after a run that recoloured `card` and added `fresh`, and beside it (removed first)
/// the outside folder a link will lead to, holding a file of its own.
fn project(tag: &str) -> (PathBuf, PathBuf) {
    let root = std::env::temp_dir().join(format!("sightline-confined-{tag}-{}", std::process::id()));
    let outside = root.with_extension("outside");
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&outside);
    let store = ProjectStore::new(&root);
    capture(&store, "card", &card_page([0, 0, 200, 255]), UpdateMode::All);
    std::fs::remove_dir_all(root.join(".sightline/temp")).unwrap();
    capture(&store, "card", &card_page([200, 0, 0, 255]), UpdateMode::Default);
    capture(&store, "fresh", &card_page([0, 150, 0, 255]), UpdateMode::Default);
    write_run_results(&store, &root);
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("notes.txt"), b"not yours").unwrap();
    (root, outside)
}

/// Moves `from` (a folder of the project) out to `outside` and leaves a link to it in its place.
fn link_out(from: &Path, outside: &Path) {
    std::fs::remove_dir_all(outside).unwrap();
    std::fs::rename(from, outside).unwrap();
    std::os::unix::fs::symlink(outside, from).unwrap();
}

/// The refusal `sightline` prints for `link`, a link of `root` to `target`.
fn refusal(root: &Path, link: &str, target: &Path) -> String {
    format!(
        "sightline: {} is a symbolic link to {}, outside the project {}; nothing was written. Replace the link with a folder or file of the project (e.g. `git checkout -- {link}`)\n",
        root.join(link).display(),
        target.display(),
        root.display()
    )
}

fn clean(folders: &[&Path]) {
    for folder in folders {
        let _ = std::fs::remove_dir_all(folder);
    }
}

#[test]
fn confined_compare_refuses_a_temp_folder_linked_out_of_the_project() {
    let (root, outside) = project("temp-link");
    // The run's captures now live outside, reached through `.sightline/temp`: read, never written.
    link_out(&root.join(".sightline/temp"), &outside);
    let before = files(&outside);
    let out = sightline(&root, &["compare"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(text(&out), refusal(&root, ".sightline/temp", &outside));
    assert_eq!(files(&outside), before, "nothing outside changed");
    clean(&[&root, &outside]);
}

#[test]
fn confined_compare_refuses_a_sightline_folder_linked_out_of_the_project() {
    let (root, outside) = project("dot-link");
    link_out(&root.join(".sightline"), &outside);
    let before = files(&outside);
    let out = sightline(&root, &["compare"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // The first thing compare changes there is the last run's diff image, which it removes.
    let said = refusal(&root, ".sightline", &outside).replace("nothing was written", "nothing was removed");
    assert_eq!(text(&out), said);
    assert_eq!(files(&outside), before, "nothing outside changed");
    clean(&[&root, &outside]);
}

#[test]
fn confined_compare_refuses_report_images_linked_out_of_the_project() {
    let (root, outside) = project("images-link");
    let images = root.join("visual-report/images");
    std::fs::remove_dir_all(&images).unwrap();
    std::os::unix::fs::symlink(&outside, &images).unwrap();
    let before = files(&outside);
    let out = sightline(&root, &["compare"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(text(&out), refusal(&root, "visual-report/images", &outside));
    assert_eq!(files(&outside), before, "nothing outside changed");
    clean(&[&root, &outside]);
}

#[test]
fn confined_compare_writes_a_report_folder_configured_outside_the_project_but_no_link_out_of_it() {
    let (root, outside) = project("report-beside");
    // The user chose a folder beside the project: written there on purpose.
    let reports = root.with_extension("reports");
    let _ = std::fs::remove_dir_all(&reports);
    let report_dir = format!("../{}", reports.file_name().unwrap().to_string_lossy());
    let config = format!(r#"{{"reportDir": "{report_dir}"}}"#);
    std::fs::write(root.join(".sightline/config.json"), config).unwrap();
    let out = sightline(&root, &["compare"]);
    assert_eq!(out.status.code(), Some(1), "changes to review: {}", text(&out));
    for file in ["results.json", "index.html", "images/card/chromium-diff.png", "images/fresh/chromium-current.png"] {
        assert!(reports.join(file).is_file(), "{file}: {}", text(&out));
    }
    // A link in the report folder that leads out of it is refused as any other.
    std::fs::remove_dir_all(reports.join("images")).unwrap();
    std::os::unix::fs::symlink(&outside, reports.join("images")).unwrap();
    let before = files(&outside);
    let out = sightline(&root, &["compare"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let folder = root.join(&report_dir);
    assert_eq!(
        text(&out),
        format!(
            "sightline: {} is a symbolic link to {}, outside the report folder {}; nothing was written. Remove the link images: sightline makes the report's folders itself\n",
            folder.join("images").display(),
            outside.display(),
            folder.display()
        )
    );
    assert_eq!(files(&outside), before, "nothing outside changed");
    clean(&[&root, &outside, &reports]);
}
