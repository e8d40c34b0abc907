//! Where the shared test corpora live. The one helper every Rust test uses (sightline-cli's
//! tests include this file too).
//!
//! A missing corpus is never a silent pass: outside CI the build script (`crates/core/build.rs`)
//! sets `cfg(corpus_absent = "<name>")` and each test that reads it carries
//! `#[cfg_attr(corpus_absent = "<name>", ignore = "…")]`, so `cargo test` lists it as ignored
//! with the reason; under CI the test runs and [`corpus`] fails it.

use std::path::PathBuf;

/// `$SIGHTLINE_SHARED/corpora/<name>` (default: the `shared` folder beside the workspace).
/// Panics, naming the folder and the fix, when its `cases.json` is not there.
pub fn corpus(name: &str) -> PathBuf {
    let shared = std::env::var_os("SIGHTLINE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let dir = shared.join("corpora").join(name);
    assert!(
        dir.join("cases.json").is_file(),
        "corpus {} is missing: put the shared data there or set SIGHTLINE_SHARED to the folder holding \
         corpora/ (outside CI, a build without it marks this test ignored)",
        dir.display()
    );
    dir
}
