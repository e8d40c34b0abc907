//! Reading a snapshot's baseline ahead of its comparison. On a long page the matcher spends
//! seconds preparing, walking and shooting the page, mostly waiting on the browser, and then
//! decodes two large PNGs: the baseline's decode does not depend on the page, so it runs on a
//! thread of its own from the start of the call and the comparison takes it when it needs it.
//! A baseline with a shot key is only read, not decoded: the shot will likely have its key
//! (`unchanged`), and a decode meanwhile would take a core from the browser while it shoots; the
//! comparison decodes it if it must.
//!
//! A prefetched baseline is used only if it is still the file on disk: the comparison checks the
//! file's identity (device, inode, size, modification time) against the one that was read, so an
//! approve or an update in between is never missed. At most [`MAX_PENDING`] are held; a newer
//! one pushes out the oldest, whose thread finishes and drops what it read.

use std::fs::Metadata;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::thread::JoinHandle;

use crate::decode::decode_image;
use crate::dom::DomSnapshot;
use crate::environment::Environment;
use crate::error::{Error, Result};
use crate::store::{CaptureData, ProjectStore, StoredCapture};

/// Baselines read ahead and not yet taken. Two: one matcher call in flight per worker, and one
/// left behind by a call that failed before comparing.
const MAX_PENDING: usize = 2;

/// A baseline as the comparison uses it: pixels and data, and the data's DOM parsed.
pub type BaselineSide = (Option<StoredCapture>, Option<DomSnapshot>);

/// What a prefetch thread read: the file's identity when it was opened, and the baseline.
type Prefetched = Option<(FileIdentity, Result<ReadAhead>)>;

/// A baseline read ahead: decoded, or — when it has a shot key, so the shot may match it without
/// decoding — its bytes and data only, decoded when the comparison needs them.
enum ReadAhead {
    Decoded(Box<BaselineSide>),
    Undecoded { bytes: Vec<u8>, data: Box<CaptureData> },
}

/// What the unchanged-page check needs of a baseline, without its pixels.
#[derive(Debug, Clone)]
pub(crate) struct BaselineHead {
    /// The baseline's shot key (`unchanged::ShotKey`), when it has one.
    pub shot: Option<String>,
    pub environment: Option<Environment>,
    pub device_scale_factor: f32,
}

enum State {
    Reading(JoinHandle<Prefetched>),
    Read(Prefetched),
}

struct Pending {
    path: PathBuf,
    state: State,
}

impl Pending {
    /// What the thread read, waiting for it if it is still reading.
    fn read(&mut self) -> &Prefetched {
        self.state = match std::mem::replace(&mut self.state, State::Read(None)) {
            State::Reading(thread) => State::Read(thread.join().ok().flatten()),
            read => read,
        };
        match &self.state {
            State::Read(read) => read,
            State::Reading(_) => &None,
        }
    }
}

static PENDING: Mutex<Vec<Pending>> = Mutex::new(Vec::new());

/// Which file was read: a replaced file (write to a temp, rename over) has another inode, and a
/// file rewritten in place another size or time.
#[derive(Debug, PartialEq, Eq)]
struct FileIdentity {
    device: u64,
    inode: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl FileIdentity {
    fn of(metadata: &Metadata) -> Self {
        #[cfg(unix)]
        let (device, inode) = {
            use std::os::unix::fs::MetadataExt;
            (metadata.dev(), metadata.ino())
        };
        #[cfg(not(unix))]
        let (device, inode) = (0, 0);
        Self { device, inode, len: metadata.len(), modified: metadata.modified().ok() }
    }

    /// Whether `path` is still the file this identity was taken of.
    fn still(&self, path: &Path) -> bool {
        std::fs::metadata(path).ok().is_some_and(|m| FileIdentity::of(&m) == *self)
    }
}

/// Starts reading the baseline of `name` / `project` on a thread of its own. Nothing is reported
/// here: a missing or unreadable baseline is the comparison's to report, as without a prefetch.
pub fn prefetch_baseline(store: &ProjectStore, name: &str, project: &str) {
    let Ok(path) = store.baseline_png(name, project) else { return };
    let reading = {
        let (root, path) = (store.root().to_path_buf(), path.clone());
        std::thread::Builder::new()
            .name("sightline-baseline".into())
            .spawn(crate::priority::beside_the_browser(move || read_with_identity(&root, &path)))
    };
    let Ok(reading) = reading else { return };
    let mut pending = PENDING.lock().unwrap_or_else(PoisonError::into_inner);
    pending.retain(|p| p.path != path);
    hold(&mut pending, Pending { path, state: State::Reading(reading) });
}

/// Holds `entry`, pushing out the oldest when [`MAX_PENDING`] are held.
fn hold(pending: &mut Vec<Pending>, entry: Pending) {
    if pending.len() >= MAX_PENDING {
        pending.remove(0);
    }
    pending.push(entry);
}

/// Takes the entry read ahead of `path` out of the held ones, if there is one.
fn take(path: &Path) -> Option<Pending> {
    let mut pending = PENDING.lock().unwrap_or_else(PoisonError::into_inner);
    let at = pending.iter().position(|p| p.path == path)?;
    Some(pending.remove(at))
}

impl ReadAhead {
    /// The baseline as the comparison uses it, decoded now if it was read undecoded.
    fn into_side(self, path: &Path) -> Result<BaselineSide> {
        match self {
            ReadAhead::Decoded(side) => Ok(*side),
            ReadAhead::Undecoded { bytes, data } => {
                with_dom(StoredCapture { image: decode_image(&bytes, path)?, data: *data })
            }
        }
    }
}

/// The shot key, environment and scale of the baseline of `name` / `project`, from its prefetch
/// (waited for) while the file is still the one read, else read now; `None` when there is none to
/// tell. Its pixels are not decoded for this.
pub(crate) fn baseline_head(store: &ProjectStore, name: &str, project: &str) -> Option<BaselineHead> {
    let path = store.baseline_png(name, project).ok()?;
    let prefetched = {
        let mut pending = PENDING.lock().unwrap_or_else(PoisonError::into_inner);
        pending.iter_mut().find(|p| p.path == path).map(|entry| {
            let (identity, read) = entry.read().as_ref()?;
            let data = match read.as_ref().ok()? {
                ReadAhead::Undecoded { data, .. } => data,
                ReadAhead::Decoded(side) => &side.0.as_ref()?.data,
            };
            identity.still(&path).then(|| BaselineHead::of(data))
        })
    };
    match prefetched {
        Some(head) => head,
        // Not read ahead (or pushed out by newer calls): its data is read now, and its key only
        // believed of a whole file.
        None => {
            let bytes = crate::store::read_inside(store.root(), &path).ok()??;
            let data = crate::store::baseline_data(&bytes, &path).ok()?;
            let key_believed = data.shot.is_none() || crate::decode::png_intact(&bytes);
            key_believed.then(|| BaselineHead::of(&data))
        }
    }
}

impl BaselineHead {
    fn of(data: &CaptureData) -> Self {
        Self {
            shot: data.shot.clone(),
            environment: data.environment.clone(),
            device_scale_factor: data.device_scale_factor,
        }
    }
}

/// Decodes the baseline of `name` / `project` now when it was read ahead undecoded (its shot key
/// said the comparison might not need its pixels): the shot's key said it differs, so it will. Runs
/// on the caller's thread; the comparison then takes the decoded baseline.
pub(crate) fn decode_ahead(store: &ProjectStore, name: &str, project: &str) {
    let Ok(path) = store.baseline_png(name, project) else { return };
    let Some(mut entry) = take(&path) else { return };
    entry.read();
    entry.state = match std::mem::replace(&mut entry.state, State::Read(None)) {
        State::Read(Some((identity, Ok(undecoded @ ReadAhead::Undecoded { .. })))) => {
            let decoded = undecoded.into_side(&path).map(|side| ReadAhead::Decoded(Box::new(side)));
            State::Read(Some((identity, decoded)))
        }
        // Decoded already, or nothing read: put back as it was.
        read => read,
    };
    // Back with the baselines read ahead, unless another was read of its file meanwhile.
    let mut pending = PENDING.lock().unwrap_or_else(PoisonError::into_inner);
    if !pending.iter().any(|p| p.path == entry.path) {
        hold(&mut pending, entry);
    }
}

/// Drops what was read ahead of the baseline of `name` / `project`: its comparison was not needed.
pub(crate) fn forget_baseline(store: &ProjectStore, name: &str, project: &str) {
    let Ok(path) = store.baseline_png(name, project) else { return };
    PENDING.lock().unwrap_or_else(PoisonError::into_inner).retain(|p| p.path != path);
}

/// The baseline of `name` / `project` as the comparison uses it: the prefetched one while the
/// file is still the one that was read, else read now.
pub(crate) fn read_baseline_side(store: &ProjectStore, name: &str, project: &str) -> Result<BaselineSide> {
    if let Some(side) = take_prefetched(&store.baseline_png(name, project)?) {
        return side;
    }
    store.read_baseline(name, project)?.map_or(Ok((None, None)), with_dom)
}

/// The baseline at `path` if it was prefetched and the file is still the one that was read
/// (decoded now if it was read undecoded); `None` means read it now.
fn take_prefetched(path: &Path) -> Option<Result<BaselineSide>> {
    let mut pending = take(path)?;
    pending.read();
    let State::Read(Some((identity, read))) = pending.state else { return None };
    if !identity.still(path) {
        return None;
    }
    Some(read.and_then(|read| read.into_side(path)))
}

/// Reads the baseline through one open file, so the identity is that of the bytes decoded.
/// `None` when there is no file to read, or none inside the project `root` (nothing worth
/// keeping: the comparison reads it again and says why).
fn read_with_identity(root: &Path, path: &Path) -> Prefetched {
    let mut file = crate::store::open_inside(root, path).ok()??;
    let identity = FileIdentity::of(&file.metadata().ok()?);
    let mut bytes = Vec::new();
    let read = match file.read_to_end(&mut bytes) {
        Ok(_) => baseline_read(bytes, path),
        Err(e) => Err(Error::io(path, e)),
    };
    Some((identity, read))
}

/// A baseline PNG's data, and its pixels decoded with its DOM parsed unless it has a shot key:
/// then the shot may well match it, and decoding it meanwhile would take a core from the browser
/// while it shoots. A key is only believed of a file that is whole (every chunk's CRC right): a
/// damaged baseline is decoded, and its comparison says what is wrong with it.
fn baseline_read(bytes: Vec<u8>, path: &Path) -> Result<ReadAhead> {
    let data = crate::store::baseline_data(&bytes, path)?;
    if data.shot.is_some() && crate::decode::png_intact(&bytes) {
        return Ok(ReadAhead::Undecoded { bytes, data: Box::new(data) });
    }
    let image = decode_image(&bytes, path)?;
    with_dom(StoredCapture { image, data }).map(|side| ReadAhead::Decoded(Box::new(side)))
}

/// A baseline with its DOM record parsed.
fn with_dom(baseline: StoredCapture) -> Result<BaselineSide> {
    let dom = baseline.data.parsed_dom()?;
    Ok((Some(baseline), dom))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RgbaImage;
    use crate::store::CaptureData;

    /// The pending list is process-wide: these tests take turns so none pushes out another's.
    static SERIAL: Mutex<()> = Mutex::new(());

    fn store(name: &str) -> ProjectStore {
        let dir = std::env::temp_dir().join(format!("sightline-prefetch-unit-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        ProjectStore::new(dir)
    }

    fn approve(store: &ProjectStore, color: [u8; 4]) {
        let data = CaptureData { device_scale_factor: 1.0, ..Default::default() };
        store.write_baseline("card", "chromium", &RgbaImage::filled(8, 6, color).unwrap(), &data).unwrap();
    }

    #[test]
    fn the_prefetched_baseline_is_taken_once_while_the_file_is_unchanged() {
        let _turn = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
        let store = store("taken");
        approve(&store, [0, 128, 0, 255]);
        prefetch_baseline(&store, "card", "chromium");
        let path = store.baseline_png("card", "chromium").unwrap();
        let (baseline, _) = take_prefetched(&path).expect("prefetched").unwrap();
        assert_eq!(&baseline.unwrap().image.as_bytes()[..4], &[0, 128, 0, 255]);
        assert!(take_prefetched(&path).is_none(), "taken once");
        std::fs::remove_dir_all(store.root()).unwrap();
    }

    #[test]
    fn a_file_replaced_after_the_prefetch_began_is_never_taken_as_it_was() {
        let _turn = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
        let store = store("replaced");
        approve(&store, [0, 128, 0, 255]);
        prefetch_baseline(&store, "card", "chromium");
        approve(&store, [200, 0, 0, 255]);
        // The thread may have opened the file before or after it was replaced: it is either not
        // taken or the new one, never the one replaced.
        if let Some(side) = take_prefetched(&store.baseline_png("card", "chromium").unwrap()) {
            assert_eq!(&side.unwrap().0.unwrap().image.as_bytes()[..4], &[200, 0, 0, 255]);
        }
        std::fs::remove_dir_all(store.root()).unwrap();
    }

    #[test]
    fn a_keyed_baseline_is_read_undecoded_and_decoded_ahead_when_asked() {
        let _turn = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
        let store = store("decode-ahead");
        let data = CaptureData { device_scale_factor: 1.0, shot: Some("0".repeat(32)), ..Default::default() };
        store.write_baseline("card", "chromium", &RgbaImage::filled(8, 6, [9, 8, 7, 255]).unwrap(), &data).unwrap();
        prefetch_baseline(&store, "card", "chromium");
        let path = store.baseline_png("card", "chromium").unwrap();
        let decoded = || {
            let mut pending = PENDING.lock().unwrap_or_else(PoisonError::into_inner);
            let entry = pending.iter_mut().find(|p| p.path == path).expect("held");
            matches!(entry.read(), Some((_, Ok(ReadAhead::Decoded(_)))))
        };
        assert!(!decoded(), "a keyed baseline is read, not decoded");
        decode_ahead(&store, "card", "chromium");
        assert!(decoded(), "decoded ahead, and still held");
        let (baseline, _) = take_prefetched(&path).expect("prefetched").unwrap();
        assert_eq!(&baseline.unwrap().image.as_bytes()[..4], &[9, 8, 7, 255]);
        // Nothing held: nothing to decode, nothing added.
        decode_ahead(&store, "card", "chromium");
        assert!(take_prefetched(&path).is_none());
        std::fs::remove_dir_all(store.root()).unwrap();
    }

    #[test]
    fn at_most_two_are_held_and_the_oldest_goes_first() {
        let _turn = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
        let stores = [store("held-a"), store("held-b"), store("held-c")];
        for s in &stores {
            approve(s, [0, 0, 255, 255]);
            prefetch_baseline(s, "card", "chromium");
        }
        let taken = |s: &ProjectStore| take_prefetched(&s.baseline_png("card", "chromium").unwrap()).is_some();
        assert_eq!(stores.each_ref().map(taken), [false, true, true]);
        for s in &stores {
            std::fs::remove_dir_all(s.root()).unwrap();
        }
    }
}
