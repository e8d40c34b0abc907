//! Where a call's frames go: a hidden partial folder beside the final one, renamed into place
//! read-only when complete; the folders a failed call made are removed again.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Creates the output root and its missing parents; returns the folders it made, deepest
/// first, so a call that fails can remove them again.
pub(super) fn create_output_root(root: &Path) -> Result<Vec<PathBuf>> {
    let made: Vec<PathBuf> =
        root.ancestors().take_while(|a| !a.as_os_str().is_empty() && !a.exists()).map(Path::to_path_buf).collect();
    crate::decode::create_dir_all(root)?;
    Ok(made)
}

/// Removes the folders a failed call made, deepest first; one that another call has written
/// into meanwhile is not empty, so it stays.
pub(super) fn remove_made_folders(made: &[PathBuf]) {
    for folder in made {
        if std::fs::remove_dir(folder).is_err() {
            break;
        }
    }
}

/// Where one call's frames go: a hidden partial folder beside the final one, renamed to it when
/// complete.
pub(super) struct FramesFolder {
    pub(super) partial: PathBuf,
    /// The final folder: did not exist when the call began, so output is never reused.
    pub(super) name: PathBuf,
}

impl FramesFolder {
    /// Renames the complete partial folder into place.
    pub(super) fn publish(&self) -> Result<()> {
        // `rename` would replace an empty folder of the same name: the name must still be free.
        if self.name.exists() {
            return Err(Error::InvalidInput(format!(
                "{}: appeared while the frames were extracted; extract again",
                self.name.display()
            )));
        }
        std::fs::rename(&self.partial, &self.name).map_err(|e| Error::io(&self.name, e))
    }
}

/// A new partial folder under `root` for a final folder name not taken yet.
pub(super) fn new_folder(root: &Path, stem: &str) -> Result<FramesFolder> {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    for attempt in 0..100u32 {
        let name = format!("{stem}-{nanos:x}-{}-{attempt}", std::process::id());
        let folder = FramesFolder { partial: root.join(format!(".{name}.partial")), name: root.join(&name) };
        if folder.name.exists() {
            continue;
        }
        match std::fs::create_dir(&folder.partial) {
            Ok(()) => return Ok(folder),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&folder.partial, e)),
        }
    }
    Err(Error::InvalidInput(format!("{}: could not create a new frames folder", root.display())))
}

pub(super) fn make_read_only(dir: &Path) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        let mut permissions = std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?.permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&path, permissions).map_err(|e| Error::io(&path, e))?;
    }
    Ok(())
}
