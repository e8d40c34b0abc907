//! Writes that stay inside the project. A folder or file under `.sightline/` may be a symbolic
//! link (committed by a fork, made by hand); following it out of the project would let an approve
//! replace files anywhere the user can write. Every write of the store goes through
//! [`write_inside`]: the folders are made and the file written relative to an open handle of the
//! project root (cap-std), so no path component — not even one swapped for a link between a check
//! and the write — resolves outside it, and a refusal names the link and where it points.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::Dir;

use crate::error::{Error, Result};

/// Writes `bytes` to `path`, a file under `root`, atomically (a temp file in the same folder, then
/// a rename), making its folders as needed. Refused, with nothing written, when `path` is not
/// under `root` or a symbolic link on the way leads out of it.
pub fn write_inside(root: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    let relative = path.strip_prefix(root).map_err(|_| {
        Error::InvalidInput(format!(
            "{}: not inside the project {}; nothing was written",
            path.display(),
            root.display()
        ))
    })?;
    if relative.file_name().is_none() || relative.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err(Error::InvalidInput(format!(
            "{}: not a file path inside the project; nothing was written",
            path.display()
        )));
    }
    // A folder link out of the project makes cap-std fail below, and is named then; the file
    // itself, a link replaced by the rename, is checked here (one lstat on the common path).
    if is_link(path)
        && let Some(refusal) = outside(root, relative)
    {
        return Err(refusal);
    }
    match write_under(root, relative, bytes) {
        // cap-std follows no absolute link, even one into the project: write through the path the
        // links resolve to, which has none left (a link swapped in meanwhile is refused again).
        Err(_) if has_link(root, relative) => {
            let canonical_root = std::fs::canonicalize(root).map_err(|e| Error::io(root, e))?;
            let resolved = resolved(&root.join(relative));
            match resolved.strip_prefix(&canonical_root) {
                Ok(inside) => write_under(&canonical_root, inside, bytes).map_err(|e| e.into_error(root, relative)),
                Err(_) => Err(outside(root, relative).unwrap_or_else(|| escaped(root, relative))),
            }
        }
        result => result.map_err(|e| e.into_error(root, relative)),
    }
}

/// Why [`write_under`] failed: making the folders, or writing the file.
enum Failed {
    Folder(std::io::Error),
    File(std::io::Error),
}

impl Failed {
    fn into_error(self, root: &Path, relative: &Path) -> Error {
        match self {
            Failed::Folder(e) => match outside(root, relative) {
                Some(refusal) => refusal,
                None => not_a_folder(&root.join(relative.parent().unwrap_or(Path::new(""))), e),
            },
            Failed::File(e) => Error::io(root.join(relative), e),
        }
    }
}

/// [`write_inside`] through a handle of `root`: no component may resolve outside it.
fn write_under(root: &Path, relative: &Path, bytes: &[u8]) -> std::result::Result<(), Failed> {
    let name = relative.file_name().expect("checked: a file path");
    let folder = relative.parent().unwrap_or(Path::new(""));
    // The project root is where the user pointed; only what lies under it is made through it.
    std::fs::create_dir_all(root).map_err(Failed::Folder)?;
    let project = Dir::open_ambient_dir(root, ambient_authority()).map_err(Failed::Folder)?;
    let dir = if folder.as_os_str().is_empty() {
        project
    } else {
        project.create_dir_all(folder).map_err(Failed::Folder)?;
        project.open_dir(folder).map_err(Failed::Folder)?
    };
    // Unique per process and per call: two threads writing one path never share a temp file.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temp = format!(".{}.{}.{n}.tmp", name.to_string_lossy(), std::process::id());
    let written = (|| {
        let mut file = dir.create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        dir.rename(&temp, &dir, name)
    })();
    written.map_err(|e| {
        let _ = dir.remove_file(&temp);
        Failed::File(e)
    })
}

/// Whether a component of `relative` (from `root`) is a symbolic link.
fn has_link(root: &Path, relative: &Path) -> bool {
    let mut at = root.to_path_buf();
    relative.components().any(|part| {
        at.push(part);
        is_link(&at)
    })
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// `path` with the part of it that exists resolved (links followed), the rest appended.
fn resolved(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(&existing).is_err() || std::fs::canonicalize(&existing).is_err() {
        match (existing.file_name().map(|n| n.to_os_string()), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
    let mut out = std::fs::canonicalize(&existing).unwrap_or(existing);
    out.extend(rest.iter().rev());
    out
}

/// A path that resolves outside the project although no single link on it was found to.
fn escaped(root: &Path, relative: &Path) -> Error {
    Error::InvalidInput(format!(
        "{}: resolves outside the project {}; nothing was written",
        root.join(relative).display(),
        root.display()
    ))
}

/// The refusal for the first symbolic link on `relative`'s way (from `root`) that leads out of
/// the project, if there is one.
fn outside(root: &Path, relative: &Path) -> Option<Error> {
    let project = std::fs::canonicalize(root).ok()?;
    let mut at = root.to_path_buf();
    for part in relative.components() {
        at.push(part);
        if !is_link(&at) {
            continue;
        }
        let target = std::fs::read_link(&at).unwrap_or_default();
        // A dangling link or a loop leads nowhere inside the project either.
        let leads_inside = std::fs::canonicalize(&at).is_ok_and(|resolved| resolved.starts_with(&project));
        if !leads_inside {
            return Some(Error::InvalidInput(format!(
                "{} is a symbolic link to {}, outside the project {}; nothing was written. Replace the link with a folder or file of the project (e.g. `git checkout -- {}`)",
                at.display(),
                target.display(),
                root.display(),
                relative_to(root, &at).display()
            )));
        }
    }
    None
}

/// A folder that could not be made: a file where a folder belongs is said as such.
fn not_a_folder(folder: &Path, e: std::io::Error) -> Error {
    let blocked = matches!(e.kind(), std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::NotADirectory);
    let e = if blocked { std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder") } else { e };
    Error::io(folder, e)
}

fn relative_to(root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root).unwrap_or(path).to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project and a folder outside it, removed when the test ends.
    struct Places {
        base: PathBuf,
    }

    impl Places {
        fn new(tag: &str) -> Self {
            let base = std::env::temp_dir().join(format!("sightline-inside-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&base);
            std::fs::create_dir_all(base.join("project/.sightline")).unwrap();
            std::fs::create_dir_all(base.join("outside")).unwrap();
            std::fs::write(base.join("outside/home.png"), b"outside").unwrap();
            Self { base }
        }
        fn project(&self) -> PathBuf {
            self.base.join("project")
        }
        fn outside(&self) -> PathBuf {
            self.base.join("outside")
        }
    }

    impl Drop for Places {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.base);
        }
    }

    #[test]
    fn inside_writes_make_folders_and_replace_files_atomically() {
        let places = Places::new("plain");
        let file = places.project().join(".sightline/baselines/cards/lamp/chromium.png");
        write_inside(&places.project(), &file, b"one").unwrap();
        write_inside(&places.project(), &file, b"two").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"two");
        let names: Vec<_> =
            std::fs::read_dir(file.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["chromium.png"], "no temp file is left");
    }

    #[test]
    fn inside_a_folder_link_out_of_the_project_is_refused_naming_it() {
        let places = Places::new("folder-link");
        let baselines = places.project().join(".sightline/baselines");
        std::fs::create_dir_all(&baselines).unwrap();
        std::os::unix::fs::symlink(places.outside(), baselines.join("home")).unwrap();
        let error = write_inside(&places.project(), &baselines.join("home/home.png"), b"new").unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "{} is a symbolic link to {}, outside the project {}; nothing was written. Replace the link with a folder or file of the project (e.g. `git checkout -- .sightline/baselines/home`)",
                baselines.join("home").display(),
                places.outside().display(),
                places.project().display()
            )
        );
        assert_eq!(std::fs::read(places.outside().join("home.png")).unwrap(), b"outside");
        // Nor is a folder made out there for a nested name.
        assert!(write_inside(&places.project(), &baselines.join("home/sub/x.png"), b"new").is_err());
        assert!(!places.outside().join("sub").exists());
    }

    #[test]
    fn inside_a_file_link_out_of_the_project_is_refused_and_one_inside_is_replaced() {
        let places = Places::new("file-link");
        let folder = places.project().join(".sightline/baselines/home");
        std::fs::create_dir_all(&folder).unwrap();
        std::os::unix::fs::symlink(places.outside().join("home.png"), folder.join("chromium.png")).unwrap();
        let error = write_inside(&places.project(), &folder.join("chromium.png"), b"new").unwrap_err().to_string();
        assert!(error.contains("is a symbolic link to") && error.contains("nothing was written"), "{error}");
        assert_eq!(std::fs::read(places.outside().join("home.png")).unwrap(), b"outside");
        // `.sightline` itself linked out of the project.
        let other = Places::new("dot-link");
        std::fs::remove_dir_all(other.project().join(".sightline")).unwrap();
        std::os::unix::fs::symlink(other.outside(), other.project().join(".sightline")).unwrap();
        let error = write_inside(&other.project(), &other.project().join(".sightline/temp/a/b.slcap"), b"x");
        assert!(error.unwrap_err().to_string().contains(".sightline is a symbolic link to"));
        assert!(!other.outside().join("temp").exists());
        // A link that stays inside the project is followed as any folder.
        let inside = places.project().join("shared-baselines");
        std::fs::create_dir_all(&inside).unwrap();
        std::os::unix::fs::symlink(&inside, places.project().join(".sightline/baselines/card")).unwrap();
        write_inside(&places.project(), &places.project().join(".sightline/baselines/card/chromium.png"), b"ok")
            .unwrap();
        assert_eq!(std::fs::read(inside.join("chromium.png")).unwrap(), b"ok");
    }

    #[test]
    fn inside_a_file_where_a_folder_belongs_is_named() {
        let places = Places::new("file-folder");
        std::fs::write(places.project().join(".sightline/baselines"), b"").unwrap();
        let error = write_inside(&places.project(), &places.project().join(".sightline/baselines/home/c.png"), b"x");
        let error = error.unwrap_err().to_string();
        assert!(error.contains("not a folder"), "{error}");
    }
}
