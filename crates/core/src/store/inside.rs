//! Writes that stay inside the project. A folder or file under `.sightline/` may be a symbolic
//! link (committed by a fork, made by hand); following it out of the project would let an approve
//! replace files anywhere the user can write. Every write of the store and of a report folder in
//! the project goes through [`write_inside`] (a run's claim on a snapshot through
//! [`create_new_inside`]): the folders are made and the file written relative to an open handle
//! of the project root (cap-std), so no path component — not even one swapped for a link between
//! a check and the write — resolves outside it, and a refusal names the link and where it points.
//! A report folder the user configured outside the project is its own root
//! ([`write_inside_report_folder`]).

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};

use crate::decode::{Durability, Folder, replace_in};
use crate::error::{Error, Result};

/// Writes `bytes` to `path`, a file under `root`, atomically (a temp file in the same folder, then
/// a rename), making its folders as needed. Refused, with nothing written, when `path` is not
/// under `root` or a symbolic link on the way leads out of it.
pub fn write_inside(root: &Path, path: &Path, bytes: &[u8], durability: Durability) -> Result<()> {
    write_parts_inside(root, path, &[bytes], durability)
}

/// [`write_inside`] for a file whose bytes are `parts` one after the other (none copied to join them).
pub fn write_parts_inside(root: &Path, path: &Path, parts: &[&[u8]], durability: Durability) -> Result<()> {
    confined(Within::Project, root, path, |dir, name| replace_in(dir, name, parts, durability))
}

/// [`write_inside`] for a report folder the user configured outside the project (`reportDir`):
/// kept inside `folder`, and a refusal names the report folder, not the project. Reports are run
/// output.
pub fn write_inside_report_folder(folder: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    confined(Within::ReportFolder, folder, path, |dir, name| replace_in(dir, name, &[bytes], Durability::RunOutput))
}

/// Creates `path`, a file under `root`, holding `bytes`, only when nothing is there yet: `false`
/// when something is. Of two processes racing for one path exactly one creates it. Kept inside
/// `root` as [`write_inside`] is.
pub fn create_new_inside(root: &Path, path: &Path, bytes: &[u8]) -> Result<bool> {
    confined(Within::Project, root, path, |dir, name| create_new(dir, name, bytes))
}

/// How a refused write ends: the user's files are as they were.
const WRITTEN: &str = "nothing was written";
/// How a refused removal ends.
const REMOVED: &str = "nothing was removed";
/// How a refused read ends.
const READ: &str = "nothing was read";

/// Opens `path`, a file under `root`, for reading, never through a symbolic link out of `root`
/// (a baseline linked to a file elsewhere must not be compared, copied into a report or shown);
/// `None` when there is no such file.
pub fn open_inside(root: &Path, path: &Path) -> Result<Option<std::fs::File>> {
    let relative = file_under(Within::Project, root, path, READ)?;
    let open = |root: &Path, relative: &Path| -> std::io::Result<Option<std::fs::File>> {
        // No project folder yet: no file in it either.
        let top = match Dir::open_ambient_dir(root, ambient_authority()) {
            Ok(top) => top,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        match top.open(relative) {
            Ok(file) => Ok(Some(file.into_std())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    };
    let refusal =
        |e: std::io::Error| outside(Within::Project, root, relative, READ).unwrap_or_else(|| Error::io(path, e));
    match open(root, relative) {
        Err(_) if has_link(root, relative) => {
            through_links(Within::Project, root, relative, READ, |canonical_root, inside| {
                open(canonical_root, inside).map_err(refusal)
            })
        }
        Ok(None) if std::fs::symlink_metadata(path).is_ok() => {
            if !has_link(root, relative) {
                // Renamed into place by another process between the open and this look: read
                // what is there now.
                return open(root, relative).map_err(refusal);
            }
            // A dangling link, or one cap-std would not follow: say where it leads.
            Err(outside(Within::Project, root, relative, READ)
                .unwrap_or_else(|| Error::io(path, std::io::ErrorKind::NotFound.into())))
        }
        result => result.map_err(refusal),
    }
}

/// The bytes of `path`, a file under `root` ([`open_inside`]); `None` when there is none.
pub fn read_inside(root: &Path, path: &Path) -> Result<Option<Vec<u8>>> {
    use std::io::Read;
    let Some(mut file) = open_inside(root, path)? else { return Ok(None) };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
    Ok(Some(bytes))
}

/// Removes `path` under `root` — a file, or a folder with everything in it — never through a
/// symbolic link out of `root` (a `.sightline` linked elsewhere must not cost the files there).
/// A link at `path` itself is removed, not what it points to. Nothing there is not an error.
pub fn remove_inside(root: &Path, path: &Path) -> Result<()> {
    let relative = file_under(Within::Project, root, path, REMOVED)?;
    let refusal =
        |e: std::io::Error| outside(Within::Project, root, relative, REMOVED).unwrap_or_else(|| Error::io(path, e));
    match remove_under(root, relative) {
        // A link on the way, perhaps an absolute one into the project ([`through_links`]); a link
        // at `path` itself is removed, not followed, so only its folder is resolved.
        Err(_) if has_link(root, relative.parent().unwrap_or(Path::new(""))) => {
            let name = relative.file_name().expect("checked: a file path");
            let folder = relative.parent().unwrap_or(Path::new(""));
            through_links(Within::Project, root, folder, REMOVED, |canonical_root, inside| {
                remove_under(canonical_root, &inside.join(name)).map_err(refusal)
            })
        }
        result => result.map_err(refusal),
    }
}

/// [`remove_inside`] through a handle of `root`.
fn remove_under(root: &Path, relative: &Path) -> std::io::Result<()> {
    let gone = |e: std::io::Error| if e.kind() == std::io::ErrorKind::NotFound { Ok(()) } else { Err(e) };
    let name = relative.file_name().expect("checked: a file path");
    let folder = relative.parent().unwrap_or(Path::new(""));
    let top = match Dir::open_ambient_dir(root, ambient_authority()) {
        Ok(top) => top,
        Err(e) => return gone(e),
    };
    let dir = if folder.as_os_str().is_empty() {
        top
    } else {
        match top.open_dir(folder) {
            Ok(dir) => dir,
            Err(e) => return gone(e),
        }
    };
    let removed = match dir.symlink_metadata(name) {
        Ok(meta) if meta.is_dir() => dir.remove_dir_all(name),
        Ok(_) => dir.remove_file(name),
        Err(e) => Err(e),
    };
    removed.or_else(gone)
}

/// The folder a write is kept inside, as a refusal names it.
#[derive(Debug, Clone, Copy)]
enum Within {
    /// The project root: `.sightline/`, and a report folder inside the project.
    Project,
    /// A report folder configured outside the project: the user chose it, links out of it are
    /// still refused.
    ReportFolder,
}

impl Within {
    fn name(self) -> &'static str {
        match self {
            Within::Project => "the project",
            Within::ReportFolder => "the report folder",
        }
    }

    /// What to do about `link` (relative to the root), a symbolic link out of it.
    fn fix(self, link: &Path) -> String {
        match self {
            Within::Project => format!(
                "Replace the link with a folder or file of the project (e.g. `git checkout -- {}`)",
                link.display()
            ),
            Within::ReportFolder => {
                format!("Remove the link {}: sightline makes the report's folders itself", link.display())
            }
        }
    }
}

/// Puts a file at `path` under `root` with `put` (given the open folder and the file's name),
/// never through a symbolic link out of `root`.
fn confined<T>(
    within: Within,
    root: &Path,
    path: &Path,
    put: impl Fn(&Dir, &OsStr) -> std::io::Result<T>,
) -> Result<T> {
    let relative = file_under(within, root, path, WRITTEN)?;
    // A folder link out of the root makes cap-std fail below, and is named then; the file
    // itself, a link replaced by the rename, is checked here (one lstat on the common path).
    if is_link(path)
        && let Some(refusal) = outside(within, root, relative, WRITTEN)
    {
        return Err(refusal);
    }
    match write_under(root, relative, &put) {
        // A link on the way, perhaps an absolute one into the root ([`through_links`]).
        Err(_) if has_link(root, relative) => {
            through_links(within, root, relative, WRITTEN, |canonical_root, inside| {
                write_under(canonical_root, inside, &put).map_err(|e| e.into_error(within, root, relative))
            })
        }
        result => result.map_err(|e| e.into_error(within, root, relative)),
    }
}

/// `path` relative to `root`, when it names a file under it (no `..`, not the root itself);
/// refused otherwise, saying `nothing` happened.
fn file_under<'a>(within: Within, root: &Path, path: &'a Path, nothing: &str) -> Result<&'a Path> {
    let relative = path.strip_prefix(root).map_err(|_| {
        Error::InvalidInput(format!("{}: not inside {} {}; {nothing}", path.display(), within.name(), root.display()))
    })?;
    if relative.file_name().is_none() || relative.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err(Error::InvalidInput(format!(
            "{}: not a file path inside {}; {nothing}",
            path.display(),
            within.name()
        )));
    }
    Ok(relative)
}

/// Does `act` at `relative` (under `root`) through the path its links resolve to. cap-std follows
/// no absolute link, even one into the root, so a path with links is resolved first: what it
/// resolves to has none left (a link swapped in meanwhile is refused again), and when it lies
/// outside the root the refusal names the link, saying `nothing` happened.
fn through_links<T>(
    within: Within,
    root: &Path,
    relative: &Path,
    nothing: &str,
    act: impl FnOnce(&Path, &Path) -> Result<T>,
) -> Result<T> {
    let canonical_root = std::fs::canonicalize(root).map_err(|e| Error::io(root, e))?;
    match resolved(&root.join(relative)).strip_prefix(&canonical_root) {
        Ok(inside) => act(&canonical_root, inside),
        Err(_) => {
            Err(outside(within, root, relative, nothing).unwrap_or_else(|| escaped(within, root, relative, nothing)))
        }
    }
}

/// Why [`write_under`] failed: making the folders, or writing the file.
enum Failed {
    Folder(std::io::Error),
    File(std::io::Error),
}

impl Failed {
    fn into_error(self, within: Within, root: &Path, relative: &Path) -> Error {
        match self {
            Failed::Folder(e) => match outside(within, root, relative, WRITTEN) {
                Some(refusal) => refusal,
                None => not_a_folder(&root.join(relative.parent().unwrap_or(Path::new(""))), e),
            },
            Failed::File(e) => Error::io(root.join(relative), e),
        }
    }
}

/// [`confined`] through a handle of `root`: no component may resolve outside it.
fn write_under<T>(
    root: &Path,
    relative: &Path,
    put: impl Fn(&Dir, &OsStr) -> std::io::Result<T>,
) -> std::result::Result<T, Failed> {
    let name = relative.file_name().expect("checked: a file path");
    let folder = relative.parent().unwrap_or(Path::new(""));
    // The root is where the user pointed; only what lies under it is made through it.
    std::fs::create_dir_all(root).map_err(Failed::Folder)?;
    let top = Dir::open_ambient_dir(root, ambient_authority()).map_err(Failed::Folder)?;
    let dir = if folder.as_os_str().is_empty() {
        top
    } else {
        top.create_dir_all(folder).map_err(Failed::Folder)?;
        top.open_dir(folder).map_err(Failed::Folder)?
    };
    put(&dir, name).map_err(Failed::File)
}

/// The store's folders are open handles: a temp file and its rename stay in the folder the
/// handle holds, whatever links are swapped in on the way.
impl Folder for Dir {
    fn create(&self, name: &str) -> std::io::Result<std::fs::File> {
        Dir::create(self, name).map(cap_std::fs::File::into_std)
    }

    fn rename(&self, from: &str, to: &OsStr) -> std::io::Result<()> {
        Dir::rename(self, from, self, to)
    }

    fn remove(&self, name: &str) -> std::io::Result<()> {
        self.remove_file(name)
    }
}

/// Creates `name` in `dir` holding `bytes` unless something is there (`false`); the OS decides
/// between racers (`O_EXCL`), which also never follows a link there.
fn create_new(dir: &Dir, name: &OsStr, bytes: &[u8]) -> std::io::Result<bool> {
    match dir.open_with(name, OpenOptions::new().write(true).create_new(true)) {
        Ok(mut file) => file.write_all(bytes).map(|()| true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
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

/// A path that resolves outside the root although no single link on it was found to.
fn escaped(within: Within, root: &Path, relative: &Path, nothing: &str) -> Error {
    Error::InvalidInput(format!(
        "{}: resolves outside {} {}; {nothing}",
        root.join(relative).display(),
        within.name(),
        root.display()
    ))
}

/// The refusal for the first symbolic link on `relative`'s way (from `root`) that leads out of
/// the root, if there is one.
fn outside(within: Within, root: &Path, relative: &Path, nothing: &str) -> Option<Error> {
    let canonical_root = std::fs::canonicalize(root).ok()?;
    let mut at = root.to_path_buf();
    for part in relative.components() {
        at.push(part);
        if !is_link(&at) {
            continue;
        }
        let target = std::fs::read_link(&at).unwrap_or_default();
        // A dangling link or a loop leads nowhere inside the root either.
        let leads_inside = std::fs::canonicalize(&at).is_ok_and(|resolved| resolved.starts_with(&canonical_root));
        if !leads_inside {
            return Some(Error::InvalidInput(format!(
                "{} is a symbolic link to {}, outside {} {}; {nothing}. {}",
                at.display(),
                target.display(),
                within.name(),
                root.display(),
                within.fix(&relative_to(root, &at))
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
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// A project and a folder outside it, removed when the test ends. The tests of every write of
    /// the store use it to link a folder or file of the project out of it.
    pub(crate) struct Places {
        base: PathBuf,
    }

    impl Places {
        pub(crate) fn new(tag: &str) -> Self {
            let base = std::env::temp_dir().join(format!("sightline-inside-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&base);
            std::fs::create_dir_all(base.join("project/.sightline")).unwrap();
            std::fs::create_dir_all(base.join("outside")).unwrap();
            std::fs::write(base.join("outside/home.png"), b"outside").unwrap();
            Self { base }
        }
        pub(crate) fn project(&self) -> PathBuf {
            self.base.join("project")
        }
        pub(crate) fn outside(&self) -> PathBuf {
            self.base.join("outside")
        }
        /// A folder beside the project (`reportDir: "../<name>"`).
        pub(crate) fn beside(&self, name: &str) -> PathBuf {
            self.base.join(name)
        }
        /// Every file under the outside folder with its bytes, to show a refused write left it
        /// as it was.
        pub(crate) fn outside_files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
            let mut files = BTreeMap::new();
            let mut folders = vec![self.outside()];
            while let Some(folder) = folders.pop() {
                for entry in std::fs::read_dir(&folder).unwrap() {
                    let path = entry.unwrap().path();
                    if path.is_dir() {
                        folders.push(path);
                    } else {
                        files.insert(path.clone(), std::fs::read(&path).unwrap());
                    }
                }
            }
            files
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
        write_inside(&places.project(), &file, b"one", Durability::Synced).unwrap();
        write_inside(&places.project(), &file, b"two", Durability::Synced).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"two");
        // Run output is not flushed first, but replaces the file the same way.
        write_inside(&places.project(), &file, b"three", Durability::RunOutput).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"three");
        let names: Vec<_> =
            std::fs::read_dir(file.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["chromium.png"], "no temp file is left");
    }

    #[test]
    fn inside_removing_never_follows_a_link_out_of_the_project() {
        let places = Places::new("remove");
        let project = places.project();
        std::fs::create_dir_all(places.outside().join("temp/home")).unwrap();
        std::fs::write(places.outside().join("temp/home/chromium.slcap"), b"theirs").unwrap();
        let before = places.outside_files();
        // `.sightline` itself a link out: clearing the run's temp folder is refused, naming it.
        std::fs::remove_dir_all(project.join(".sightline")).unwrap();
        std::os::unix::fs::symlink(places.outside(), project.join(".sightline")).unwrap();
        let store = crate::store::ProjectStore::new(&project);
        let error = store.clear_run().unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "{} is a symbolic link to {}, outside the project {}; nothing was removed. Replace the link with a folder or file of the project (e.g. `git checkout -- .sightline`)",
                project.join(".sightline").display(),
                places.outside().display(),
                project.display()
            )
        );
        assert!(remove_inside(&project, &project.join(".sightline/temp/home/chromium.slcap")).is_err());
        assert_eq!(places.outside_files(), before, "nothing outside was removed");
        // A link at the path itself: the link goes, what it points to stays.
        std::fs::remove_file(project.join(".sightline")).unwrap();
        std::fs::create_dir_all(project.join(".sightline")).unwrap();
        std::os::unix::fs::symlink(places.outside().join("temp"), project.join(".sightline/temp")).unwrap();
        store.clear_run().unwrap();
        assert!(std::fs::symlink_metadata(project.join(".sightline/temp")).is_err());
        assert_eq!(places.outside_files(), before);
        // A folder of the project goes whole; nothing there is no error.
        std::fs::create_dir_all(project.join(".sightline/temp/a/b")).unwrap();
        std::fs::write(project.join(".sightline/temp/a/b/c.json"), b"{}").unwrap();
        store.clear_run().unwrap();
        assert!(!project.join(".sightline/temp").exists());
        store.clear_run().unwrap();
    }

    #[test]
    fn inside_a_folder_link_out_of_the_project_is_refused_naming_it() {
        let places = Places::new("folder-link");
        let baselines = places.project().join(".sightline/baselines");
        std::fs::create_dir_all(&baselines).unwrap();
        std::os::unix::fs::symlink(places.outside(), baselines.join("home")).unwrap();
        let error = write_inside(&places.project(), &baselines.join("home/home.png"), b"new", Durability::Synced)
            .unwrap_err()
            .to_string();
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
        assert!(
            write_inside(&places.project(), &baselines.join("home/sub/x.png"), b"new", Durability::Synced).is_err()
        );
        assert!(!places.outside().join("sub").exists());
    }

    #[test]
    fn inside_a_file_link_out_of_the_project_is_refused_and_one_inside_is_replaced() {
        let places = Places::new("file-link");
        let folder = places.project().join(".sightline/baselines/home");
        std::fs::create_dir_all(&folder).unwrap();
        std::os::unix::fs::symlink(places.outside().join("home.png"), folder.join("chromium.png")).unwrap();
        let error = write_inside(&places.project(), &folder.join("chromium.png"), b"new", Durability::Synced)
            .unwrap_err()
            .to_string();
        assert!(error.contains("is a symbolic link to") && error.contains("nothing was written"), "{error}");
        assert_eq!(std::fs::read(places.outside().join("home.png")).unwrap(), b"outside");
        // `.sightline` itself linked out of the project.
        let other = Places::new("dot-link");
        std::fs::remove_dir_all(other.project().join(".sightline")).unwrap();
        std::os::unix::fs::symlink(other.outside(), other.project().join(".sightline")).unwrap();
        let error = write_inside(
            &other.project(),
            &other.project().join(".sightline/temp/a/b.slcap"),
            b"x",
            Durability::Synced,
        );
        assert!(error.unwrap_err().to_string().contains(".sightline is a symbolic link to"));
        assert!(!other.outside().join("temp").exists());
        // A link that stays inside the project is followed as any folder.
        let inside = places.project().join("shared-baselines");
        std::fs::create_dir_all(&inside).unwrap();
        std::os::unix::fs::symlink(&inside, places.project().join(".sightline/baselines/card")).unwrap();
        write_inside(
            &places.project(),
            &places.project().join(".sightline/baselines/card/chromium.png"),
            b"ok",
            Durability::Synced,
        )
        .unwrap();
        assert_eq!(std::fs::read(inside.join("chromium.png")).unwrap(), b"ok");
    }

    #[test]
    fn inside_a_file_where_a_folder_belongs_is_named() {
        let places = Places::new("file-folder");
        std::fs::write(places.project().join(".sightline/baselines"), b"").unwrap();
        let error = write_inside(
            &places.project(),
            &places.project().join(".sightline/baselines/home/c.png"),
            b"x",
            Durability::Synced,
        );
        let error = error.unwrap_err().to_string();
        assert!(error.contains("not a folder"), "{error}");
    }

    #[test]
    fn inside_a_claim_is_made_once_and_never_through_a_link_out_of_the_project() {
        let places = Places::new("claim");
        let claim = places.project().join(".sightline/temp/home/chromium.owner");
        assert!(create_new_inside(&places.project(), &claim, b"first").unwrap());
        assert!(!create_new_inside(&places.project(), &claim, b"second").unwrap(), "one claim wins");
        assert_eq!(std::fs::read(&claim).unwrap(), b"first");
        // `.sightline/temp` linked out of the project: no claim is made out there.
        let temp = places.project().join(".sightline/temp");
        std::fs::remove_dir_all(&temp).unwrap();
        std::os::unix::fs::symlink(places.outside(), &temp).unwrap();
        let before = places.outside_files();
        let error = create_new_inside(&places.project(), &claim, b"x").unwrap_err().to_string();
        assert!(
            error.starts_with(&format!("{} is a symbolic link to {}", temp.display(), places.outside().display())),
            "{error}"
        );
        assert_eq!(places.outside_files(), before);
        assert!(!places.outside().join("home").exists());
    }

    #[test]
    fn inside_a_report_folder_outside_the_project_keeps_its_writes_inside_it() {
        let places = Places::new("report-folder");
        let reports = places.beside("reports");
        write_inside_report_folder(&reports, &reports.join("images/home/chromium-current.png"), b"png").unwrap();
        assert_eq!(std::fs::read(reports.join("images/home/chromium-current.png")).unwrap(), b"png");
        // A link in it that leads out of it is refused, named as the report folder's.
        std::fs::remove_dir_all(reports.join("images")).unwrap();
        std::os::unix::fs::symlink(places.outside(), reports.join("images")).unwrap();
        let before = places.outside_files();
        let error = write_inside_report_folder(&reports, &reports.join("images/home/chromium-current.png"), b"png");
        assert_eq!(
            error.unwrap_err().to_string(),
            format!(
                "{} is a symbolic link to {}, outside the report folder {}; nothing was written. Remove the link images: sightline makes the report's folders itself",
                reports.join("images").display(),
                places.outside().display(),
                reports.display()
            )
        );
        assert_eq!(places.outside_files(), before);
    }
}
