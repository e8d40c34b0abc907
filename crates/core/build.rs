//! Marks the build when a shared test corpus is missing, so the tests that read it show as
//! ignored, with the reason, in `cargo test`'s own output (a test that returns early shows as
//! "ok" and its message is swallowed by the harness). Shared by sightline-core and sightline-cli
//! (`build = "../core/build.rs"`): both read the corpora through `tests/corpus.rs`.
//!
//! Emits `cfg(corpus_absent = "<name>")` for each corpus whose `cases.json` is not under
//! `$SIGHTLINE_SHARED/corpora` (default: the `shared` folder beside the workspace). Under `CI` it
//! emits nothing: the tests run and fail, naming the missing folder.

use std::path::{Path, PathBuf};

/// Every corpus a Rust test reads.
const CORPORA: [&str; 2] = ["pixelmatch", "playwright-image-tools"];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(corpus_absent, values({}))", CORPORA.map(|c| format!("\"{c}\"")).join(", "));
    println!("cargo::rerun-if-env-changed=SIGHTLINE_SHARED");
    println!("cargo::rerun-if-env-changed=CI");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let shared =
        std::env::var_os("SIGHTLINE_SHARED").map(PathBuf::from).unwrap_or_else(|| manifest.join("../../../shared"));
    let corpora = shared.join("corpora");
    // Watch the nearest folder that exists, so a corpus added or deleted there reruns this
    // script. With neither folder there, only a change of the variables does (a missing path
    // would rerun it, and rebuild the crate, on every build).
    let manifest_file = manifest.join("Cargo.toml");
    let watched: &Path = if corpora.is_dir() {
        &corpora
    } else if shared.is_dir() {
        &shared
    } else {
        &manifest_file
    };
    println!("cargo::rerun-if-changed={}", watched.display());
    if std::env::var_os("CI").is_some() {
        return;
    }
    for name in CORPORA {
        if !corpora.join(name).join("cases.json").is_file() {
            println!("cargo::rustc-cfg=corpus_absent=\"{name}\"");
        }
    }
}
