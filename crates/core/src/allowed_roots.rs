//! `SIGHTLINE_ALLOWED_ROOTS`: the folders the design and motion tools may read and write.
//!
//! The variable is a path list like `PATH` (`:`-separated on Unix). When it is unset or lists no
//! folder, every path is allowed. Otherwise a path is canonicalised (symlinks and `..` resolved,
//! so neither can step outside) and must lie inside one of the canonicalised roots. A path that
//! does not exist yet (an output file) is judged by its canonicalised parent folder.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The environment variable holding the allowed folders.
pub const ALLOWED_ROOTS_VAR: &str = "SIGHTLINE_ALLOWED_ROOTS";

/// Checks `path` against the roots in `SIGHTLINE_ALLOWED_ROOTS` and returns it canonicalised
/// (or unchanged when no roots are set). Use for every file a tool reads or writes.
pub fn check_allowed(path: &Path) -> Result<PathBuf> {
    check_allowed_in(path, std::env::var_os(ALLOWED_ROOTS_VAR).as_deref())
}

/// [`check_allowed`] with the root list given explicitly (`None`: unrestricted).
pub fn check_allowed_in(path: &Path, roots: Option<&OsStr>) -> Result<PathBuf> {
    let Some(list) = roots else { return Ok(path.to_path_buf()) };
    let entries: Vec<PathBuf> = std::env::split_paths(list).filter(|p| !p.as_os_str().is_empty()).collect();
    if entries.is_empty() {
        return Ok(path.to_path_buf());
    }
    // A root that does not exist cannot contain anything, so it is skipped rather than an error.
    let roots: Vec<PathBuf> = entries.iter().filter_map(|r| r.canonicalize().ok()).collect();
    let resolved = canonical(path)?;
    if roots.iter().any(|root| resolved.starts_with(root)) {
        return Ok(resolved);
    }
    let listed = entries.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(":");
    Err(Error::NotAllowed { path: path.to_path_buf(), roots: listed })
}

/// The canonical form of `path`; for a path that does not exist yet, its parent's canonical form
/// joined with the file name.
fn canonical(path: &Path) -> Result<PathBuf> {
    match path.canonicalize() {
        Ok(p) => Ok(p),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let name = path.file_name().ok_or_else(|| Error::io(path, e))?;
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let parent = parent.canonicalize().map_err(|e| Error::io(parent, e))?;
            Ok(parent.join(name))
        }
        Err(e) => Err(Error::io(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sightline-roots-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("inside")).unwrap();
        std::fs::create_dir_all(dir.join("outside")).unwrap();
        dir
    }

    #[test]
    fn allowed_roots_unset_or_empty_allows_everything() {
        let p = Path::new("/definitely/not/here.png");
        assert_eq!(check_allowed_in(p, None).unwrap(), p);
        assert_eq!(check_allowed_in(p, Some(OsStr::new(""))).unwrap(), p);
    }

    #[test]
    fn allowed_roots_inside_passes_outside_names_the_path_and_the_variable() {
        let dir = temp("basic");
        let file = dir.join("inside/a.png");
        std::fs::write(&file, b"x").unwrap();
        let roots = std::env::join_paths([dir.join("inside"), dir.join("missing-root")]).unwrap();
        assert_eq!(check_allowed_in(&file, Some(&roots)).unwrap(), file.canonicalize().unwrap());
        // Not yet existing output files are judged by their folder.
        assert!(check_allowed_in(&dir.join("inside/new.png"), Some(&roots)).is_ok());
        let outside = dir.join("outside/b.png");
        let err = check_allowed_in(&outside, Some(&roots)).unwrap_err();
        assert!(matches!(err, Error::NotAllowed { .. }));
        let message = err.to_string();
        assert!(message.contains("outside/b.png") && message.contains(ALLOWED_ROOTS_VAR), "{message}");
    }

    #[test]
    fn allowed_roots_dot_dot_and_symlinks_cannot_escape() {
        let dir = temp("escape");
        std::fs::write(dir.join("outside/secret.png"), b"x").unwrap();
        let roots = dir.join("inside").into_os_string();
        let sneaky = dir.join("inside/../outside/secret.png");
        assert!(check_allowed_in(&sneaky, Some(&roots)).is_err());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("outside/secret.png"), dir.join("inside/link.png")).unwrap();
            assert!(check_allowed_in(&dir.join("inside/link.png"), Some(&roots)).is_err());
        }
    }
}
