//! Where the shared test corpora live, and what to do when they are missing.

use std::path::PathBuf;

/// `../shared/corpora/<name>` (or `$SIGHTLINE_SHARED/corpora/<name>`), or `None` after
/// printing why the test is skipped. Under `CI` a missing corpus is a failure.
pub fn corpus(name: &str) -> Option<PathBuf> {
    let shared = std::env::var_os("SIGHTLINE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let dir = shared.join("corpora").join(name);
    if dir.join("cases.json").is_file() {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some() {
        panic!("corpus {} is missing and CI is set: the shared data must be present", dir.display());
    }
    eprintln!("skipping: corpus {} is absent (set SIGHTLINE_SHARED to its parent folder)", dir.display());
    None
}
