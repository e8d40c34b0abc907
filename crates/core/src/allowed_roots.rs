//! `SIGHTLINE_ALLOWED_ROOTS`: the folders the design and motion tools may read and write.
//!
//! The variable is a path list like `PATH` (`:`-separated on Unix). When it is unset or lists no
//! folder, every path is allowed. Otherwise a path is canonicalised (symlinks and `..` resolved,
//! so neither can step outside) and must lie inside one of the canonicalised roots. A path that
//! does not exist yet (an output file or folder) is judged by its nearest existing ancestor.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

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

/// The canonical form of `path`. For a path that does not exist yet (an output file, a folder
/// about to be created), the canonical form of its nearest existing ancestor joined with the rest,
/// which may not contain `..` (a folder that does not exist cannot be resolved, so `..` after it
/// could lead anywhere).
fn canonical(path: &Path) -> Result<PathBuf> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map_err(|e| Error::io(path, e))?.join(path)
    };
    // The filesystem root always exists, so the walk ends.
    let mut ancestor = absolute.as_path();
    loop {
        match ancestor.canonicalize() {
            Ok(base) => {
                let rest = absolute.strip_prefix(ancestor).expect("an ancestor is a prefix");
                if rest.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
                    return Err(Error::InvalidInput(format!(
                        "{}: `..` after a folder that does not exist; give the path without `..`",
                        path.display()
                    )));
                }
                // `join("")` would add a trailing `/`, and a file named with one is not a file.
                return Ok(if rest.as_os_str().is_empty() { base } else { base.join(rest) });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                ancestor = ancestor.parent().ok_or_else(|| Error::io(path, e))?;
            }
            Err(e) => return Err(Error::io(path, e)),
        }
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
        // Compared as strings: `Path` equality ignores a trailing `/`, which makes a file unreadable.
        let checked = check_allowed_in(&file, Some(&roots)).unwrap();
        assert_eq!(checked.as_os_str(), file.canonicalize().unwrap().as_os_str());
        assert_eq!(std::fs::read(&checked).unwrap(), b"x", "the checked path opens the file");
        let folder = check_allowed_in(&dir.join("inside"), Some(&roots)).unwrap();
        assert_eq!(folder.as_os_str(), dir.join("inside").canonicalize().unwrap().as_os_str());
        // Not yet existing output files and folders are judged by their nearest existing folder.
        let inside = dir.join("inside").canonicalize().unwrap();
        assert_eq!(check_allowed_in(&dir.join("inside/new.png"), Some(&roots)).unwrap(), inside.join("new.png"));
        assert_eq!(check_allowed_in(&dir.join("inside/a/b/c"), Some(&roots)).unwrap(), inside.join("a/b/c"));
        let listed = format!("{}:{}", dir.join("inside").display(), dir.join("missing-root").display());
        let not_allowed = |path: &Path| {
            format!(
                "{}: outside the folders SIGHTLINE_ALLOWED_ROOTS allows ({listed}); move it under one of them or \
                 add its folder to SIGHTLINE_ALLOWED_ROOTS",
                path.display()
            )
        };
        let deep = dir.join("outside/a/b");
        assert_eq!(check_allowed_in(&deep, Some(&roots)).unwrap_err().to_string(), not_allowed(&deep));
        // `..` after a folder that does not exist cannot be resolved, so it is refused outright.
        let climbing = dir.join("inside/new/../../outside/x.png");
        assert_eq!(
            check_allowed_in(&climbing, Some(&roots)).unwrap_err().to_string(),
            format!("{}: `..` after a folder that does not exist; give the path without `..`", climbing.display())
        );
        let outside = dir.join("outside/b.png");
        let err = check_allowed_in(&outside, Some(&roots)).unwrap_err();
        assert!(matches!(&err, Error::NotAllowed { path, .. } if *path == outside), "{err:?}");
        assert_eq!(err.to_string(), not_allowed(&outside));
    }

    #[test]
    fn allowed_roots_dot_dot_and_symlinks_cannot_escape() {
        let dir = temp("escape");
        std::fs::write(dir.join("outside/secret.png"), b"x").unwrap();
        let roots = dir.join("inside").into_os_string();
        // Refused as outside the roots (not as some other failure), named as the caller gave it.
        let refused = |path: &Path| match check_allowed_in(path, Some(&roots)) {
            Err(Error::NotAllowed { path: named, roots: listed }) => (named, listed),
            other => panic!("{}: expected NotAllowed, got {other:?}", path.display()),
        };
        let sneaky = dir.join("inside/../outside/secret.png");
        assert_eq!(refused(&sneaky), (sneaky.clone(), dir.join("inside").display().to_string()));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("outside/secret.png"), dir.join("inside/link.png")).unwrap();
            let link = dir.join("inside/link.png");
            assert_eq!(refused(&link), (link.clone(), dir.join("inside").display().to_string()));
        }
    }
}
