//! The files Sightline keeps in a user's project (01-product.md, "Files in a user's project"):
//!
//! ```text
//! .sightline/baselines/<name>/<project>.png    approved pixels, reviewable in a pull request;
//!                                              the DOM record + asset failures ride inside it
//!                                              in a private `slDm` chunk (zstd JSON)
//! .sightline/temp/<name>/<project>.slcap       this run's capture (artifact)
//! .sightline/temp/<name>/<project>.json        this run's evidence, for the reporter
//! .sightline/temp/run.json                     the tests the run held ([`ledger`])
//! ```
//!
//! The baselines' layout is the project's `baselinePath` ([`crate::layout`]); the one above is
//! the default. `.sightline/temp` always has this layout: it is this run's, never committed.
//!
//! Every write is atomic (temp file + rename in the same folder), and names are checked before
//! anything touches the disk. A baseline is ONE file, so approving it is one rename: a process
//! killed mid-way leaves the old baseline whole, never new pixels with old DOM data.

/// What a capture carries besides pixels, and a capture read back.
mod capture_data;
mod inside;
pub mod ledger;
/// A `toMatchVisual` call's snapshot name.
mod names;

use std::path::{Path, PathBuf};

use crate::artifact::{Capture, encode_capture, read_capture};
use crate::decode::{PngCompression, encode_png_with_chunk};
use crate::error::{Error, Result};
use crate::image::RgbaImage;
use crate::layout::BaselineLayout;
use crate::layout::{MAX_NAME_BYTES, check_snapshot_name, project_file_stem};

pub use crate::decode::Durability;
pub(crate) use capture_data::baseline_data;
pub use capture_data::{BASELINE_CHUNK, CaptureData, StoredCapture, UnsettledPage};
#[cfg(test)]
pub(crate) use inside::tests::Places;
pub use inside::{
    create_new_inside, open_inside, read_inside, remove_inside, write_inside, write_inside_report_folder,
    write_parts_inside,
};
pub use names::{CallName, call_snapshot_name};

/// One file in a snapshot's folder under `base` (`.sightline/baselines`, `.sightline/temp` or a
/// shard's copy of it): `<name>/<stem><suffix>`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SnapshotFile {
    /// The snapshot's name: its folder relative to `base`, `/` between nested folders.
    pub name: String,
    /// The file name without `suffix`: a project's file stem.
    pub stem: String,
    pub path: PathBuf,
}

/// Every `<name>/<stem><suffix>` under `base`, nested names included, sorted by name and stem.
/// Folders whose path is not a snapshot name are skipped; a missing `base` has none.
pub fn snapshot_files(base: &Path, suffix: &str) -> Result<Vec<SnapshotFile>> {
    walk_files(
        base,
        |folder| check_snapshot_name(folder).is_ok(),
        |relative| {
            let (name, file) = relative.rsplit_once('/')?;
            Some((name.to_string(), file.strip_suffix(suffix)?.to_string()))
        },
    )
}

/// The files under `base` that `read` names (`(name, stem)` from the path relative to `base`,
/// `/` separated), in the folders `descend` allows (given their relative path); sorted. A
/// missing `base` has none.
fn walk_files(
    base: &Path,
    descend: impl Fn(&str) -> bool,
    read: impl Fn(&str) -> Option<(String, String)>,
) -> Result<Vec<SnapshotFile>> {
    let mut out = Vec::new();
    let mut folders = vec![(base.to_path_buf(), String::new())];
    while let Some((folder, relative)) = folders.pop() {
        let entries = match std::fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && relative.is_empty() => return Ok(out),
            Err(e) => return Err(Error::io(&folder, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&folder, e))?;
            let path = entry.path();
            let Some(file_name) = path.file_name().and_then(|n| n.to_str()) else { continue };
            let child = if relative.is_empty() { file_name.to_string() } else { format!("{relative}/{file_name}") };
            if entry.file_type().map_err(|e| Error::io(&path, e))?.is_dir() {
                if descend(&child) {
                    folders.push((path, child));
                }
            } else if let Some((name, stem)) = read(&child) {
                out.push(SnapshotFile { name, stem, path });
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The `.sightline` folder of one project root.
#[derive(Debug, Clone)]
pub struct ProjectStore {
    root: PathBuf,
    layout: BaselineLayout,
}

impl ProjectStore {
    /// The store of `root` with the default baseline layout; a front-end opens the project's
    /// own with [`ProjectStore::open`].
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self::with_layout(root, BaselineLayout::default())
    }

    /// The store of `root` with the layout its `.sightline/config.json` sets (`baselinePath`);
    /// a bad config file is an error that names it.
    pub fn open(root: impl Into<PathBuf>) -> Result<Self> {
        let root = root.into();
        let layout = crate::config::Settings::read(&root)?.baseline_path;
        Ok(Self::with_layout(root, layout))
    }

    pub fn with_layout(root: impl Into<PathBuf>, layout: BaselineLayout) -> Self {
        Self { root: root.into(), layout }
    }

    /// Writes `bytes` to `path`, a file of this project, atomically and on the disk before it
    /// replaces the old one ([`Durability::Synced`]); never through a symbolic link out of the
    /// project ([`write_inside`]).
    pub fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        write_inside(&self.root, path, bytes, Durability::Synced)
    }

    /// [`ProjectStore::write`] for this run's files (captures, evidence, diff images), which the
    /// next run writes again: not flushed to the disk first ([`Durability::RunOutput`]).
    pub fn write_run_output(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        write_inside(&self.root, path, bytes, Durability::RunOutput)
    }

    /// Removes `path`, a file or folder of this project, if it is there; never through a
    /// symbolic link out of the project ([`remove_inside`]).
    pub fn remove(&self, path: &Path) -> Result<()> {
        remove_inside(&self.root, path)
    }

    /// Creates `path`, a file of this project, holding `bytes`, only when nothing is there yet
    /// (`false` when something is): of two workers racing for it exactly one creates it. Never
    /// through a symbolic link out of the project ([`create_new_inside`]).
    pub fn create_new(&self, path: &Path, bytes: &[u8]) -> Result<bool> {
        create_new_inside(&self.root, path, bytes)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` as every message and results.json name a project file: relative to the root
    /// (`.sightline/baselines/home/chromium.png`), or whole when it is outside the project.
    pub fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root).unwrap_or(path).display().to_string()
    }

    pub fn layout(&self) -> &BaselineLayout {
        &self.layout
    }

    /// `.sightline/baselines`.
    pub fn baselines_root(&self) -> PathBuf {
        self.root.join(".sightline").join("baselines")
    }

    /// Every baseline of this layout under `.sightline/baselines` (`stem`: the project's file
    /// stem), sorted by name and project. Files the layout cannot read back (another platform's,
    /// stray files) are not this project's baselines and are skipped.
    pub fn baselines(&self) -> Result<Vec<SnapshotFile>> {
        // No layout writes a path longer than a name and its template.
        let plausible = |relative: &str| relative.len() <= 2 * MAX_NAME_BYTES;
        walk_files(&self.baselines_root(), plausible, |relative| self.layout.parse_path(relative.strip_suffix(".png")?))
    }

    fn temp_dir(&self, name: &str) -> PathBuf {
        self.temp_root().join(name)
    }

    /// `.sightline/temp`: this run's captures, evidence and diff images (a shard uploads it).
    pub fn temp_root(&self) -> PathBuf {
        self.root.join(".sightline").join("temp")
    }

    /// `.sightline/temp/shard.json`: which shard the run was, for the merge job.
    pub fn shard_manifest_path(&self) -> PathBuf {
        self.temp_root().join("shard.json")
    }

    /// Starts a run: what an earlier run left in `.sightline/temp` must not be reported as this
    /// run's. Baselines are never touched.
    pub fn clear_run(&self) -> Result<()> {
        self.remove(&self.temp_root())
    }

    /// The baseline's file: `.sightline/baselines/<name>/<project>.png` in the default layout.
    pub fn baseline_png(&self, name: &str, project: &str) -> Result<PathBuf> {
        Ok(self.baselines_root().join(self.layout.relative_path(name, project)?))
    }

    /// Accepted variant `number` of the baseline, beside it: `.sightline/baselines/<name>/
    /// <project>.variant-<number>.png` in the default layout ([`crate::variants`]). The layout
    /// never reads it back as a baseline: a project's file stem holds no `.`.
    pub fn variant_png(&self, name: &str, project: &str, number: u8) -> Result<PathBuf> {
        let baseline = self.baseline_png(name, project)?;
        let file = baseline.file_name().and_then(|f| f.to_str()).and_then(|f| f.strip_suffix(".png"));
        let file = file.ok_or_else(|| Error::Internal(format!("{} is not a .png path", baseline.display())))?;
        Ok(baseline.with_file_name(format!("{file}.variant-{number}.png")))
    }

    /// The accepted state a comparison used: the baseline (`None`) or one of its variants.
    pub fn accepted_png(&self, name: &str, project: &str, variant: Option<u8>) -> Result<PathBuf> {
        match variant {
            Some(number) => self.variant_png(name, project, number),
            None => self.baseline_png(name, project),
        }
    }

    /// `.sightline/temp/<name>/<project>.slcap`.
    pub fn capture_path(&self, name: &str, project: &str) -> Result<PathBuf> {
        check_snapshot_name(name)?;
        Ok(self.temp_dir(name).join(format!("{}.slcap", project_file_stem(project))))
    }

    /// `.sightline/temp/<name>/<project>.json`: the evidence of this run.
    pub fn evidence_path(&self, name: &str, project: &str) -> Result<PathBuf> {
        check_snapshot_name(name)?;
        Ok(self.temp_dir(name).join(format!("{}.json", project_file_stem(project))))
    }

    /// This run's evidence of `name` for `project`, or `None` when the capture has none yet (a
    /// capture-only shard before its merge).
    pub fn read_evidence(&self, name: &str, project: &str) -> Result<Option<crate::snapshot::SnapshotEvidence>> {
        let path = self.evidence_path(name, project)?;
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| Error::BadArtifact { path, detail: format!("not snapshot evidence ({e})") })
    }

    /// `.sightline/temp/<name>/<project>-diff.png`: the diff image of this run's failing
    /// comparison, drawn by the comparison that decided it; the report copies it.
    pub fn diff_path(&self, name: &str, project: &str) -> Result<PathBuf> {
        check_snapshot_name(name)?;
        Ok(self.temp_dir(name).join(format!("{}-diff.png", project_file_stem(project))))
    }

    /// Keeps the diff image of this run's comparison, as PNG: written (atomically) when there is
    /// one, and an earlier run's removed when there is none. Returns the PNG.
    pub fn write_diff(&self, name: &str, project: &str, png: Option<Vec<u8>>) -> Result<Option<Vec<u8>>> {
        let path = self.diff_path(name, project)?;
        match png {
            Some(png) => {
                self.write_run_output(&path, &png)?;
                Ok(Some(png))
            }
            None => self.remove(&path).map(|()| None),
        }
    }

    /// The approved baseline, or `None` when there is none yet.
    pub fn read_baseline(&self, name: &str, project: &str) -> Result<Option<StoredCapture>> {
        self.read_accepted(name, project, None)
    }

    /// An accepted state: the baseline (`variant` `None`) or one of its accepted variants;
    /// `None` when that file is not there.
    pub fn read_accepted(&self, name: &str, project: &str, variant: Option<u8>) -> Result<Option<StoredCapture>> {
        let png = self.accepted_png(name, project, variant)?;
        let Some(bytes) = read_inside(&self.root, &png)? else { return Ok(None) };
        StoredCapture::from_baseline_png(&bytes, &png).map(Some)
    }

    /// The approved baseline's data without decoding its pixels, or `None` when there is none.
    pub fn read_baseline_data(&self, name: &str, project: &str) -> Result<Option<CaptureData>> {
        let png = self.baseline_png(name, project)?;
        read_inside(&self.root, &png)?.map(|bytes| baseline_data(&bytes, &png)).transpose()
    }

    /// Writes a baseline: pixels and capture data in one PNG, written atomically.
    pub fn write_baseline(&self, name: &str, project: &str, image: &RgbaImage, data: &CaptureData) -> Result<()> {
        self.write_accepted(name, project, None, image, data)
    }

    /// Writes an accepted state: the baseline (`variant` `None`) or one of its accepted variants,
    /// in the baseline's format, atomically.
    pub fn write_accepted(
        &self,
        name: &str,
        project: &str,
        variant: Option<u8>,
        image: &RgbaImage,
        data: &CaptureData,
    ) -> Result<()> {
        let png_path = self.accepted_png(name, project, variant)?;
        let chunk = zstd::bulk::compress(&data.for_baseline().to_json()?, 3)
            .map_err(|e| Error::InvalidInput(format!("compressing the baseline's DOM data: {e}")))?;
        let png = encode_png_with_chunk(image, PngCompression::Smallest, Some((BASELINE_CHUNK, &chunk)))?;
        self.write(&png_path, &png)
    }

    /// Writes this run's capture to `.sightline/temp`.
    pub fn write_capture(&self, name: &str, project: &str, image: RgbaImage, data: &CaptureData) -> Result<RgbaImage> {
        let capture = Capture { image, device_scale_factor: data.device_scale_factor, metadata: data.to_json()? };
        self.write_run_output(&self.capture_path(name, project)?, &encode_capture(&capture)?)?;
        Ok(capture.image)
    }

    /// Writes this run's capture of `name` from its parts ([`crate::artifact::seal`]), its pixel
    /// section not copied.
    pub fn write_capture_parts(
        &self,
        name: &str,
        project: &str,
        capture: &crate::artifact::CaptureParts<'_>,
    ) -> Result<()> {
        write_parts_inside(&self.root, &self.capture_path(name, project)?, &capture.parts(), Durability::RunOutput)
    }

    /// Reads this run's capture back.
    pub fn read_capture(&self, name: &str, project: &str) -> Result<StoredCapture> {
        let path = self.capture_path(name, project)?;
        let capture = read_capture(&path)?;
        let data = CaptureData::from_json(&capture.metadata, &path)?;
        Ok(StoredCapture { image: capture.image, data })
    }
}

/// Projects (file stems) that have a capture of `name` in `.sightline/temp`.
pub fn captured_projects(store: &ProjectStore, name: &str) -> Result<Vec<String>> {
    check_snapshot_name(name)?;
    let dir = store.temp_dir(name);
    let mut projects = Vec::new();
    match std::fs::read_dir(&dir) {
        Ok(entries) => {
            for entry in entries {
                let path = entry.map_err(|e| Error::io(&dir, e))?.path();
                if let Some(stem) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".slcap")) {
                    projects.push(stem.to_string());
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(&dir, e)),
    }
    projects.sort();
    Ok(projects)
}

/// Every baseline: (name, project file stem), sorted.
pub fn list_baselines(store: &ProjectStore) -> Result<Vec<(String, String)>> {
    Ok(store.baselines()?.into_iter().map(|f| (f.name, f.stem)).collect())
}

#[cfg(test)]
mod tests {
    use super::ledger::TestRef;
    use super::*;
    use crate::health::HealthReason;

    #[test]
    fn store_rejects_unsafe_names_before_touching_the_disk() {
        let bad_names = [
            "",
            "..",
            "../x",
            "a/../b",
            "a//b",
            "a/",
            "./a",
            "a/./b",
            "a\\b",
            "a\0b",
            "/abs",
            "x..y",
            "sp ace",
            "home/chromium.png",
            "home/chromium.slcap",
            "a/b.json",
            "a/b.owner",
            &"x".repeat(201),
        ];
        for bad in bad_names {
            let err = check_snapshot_name(bad).unwrap_err().to_string();
            assert!(err.contains("use letters, digits"), "{bad:?}: {err}");
        }
        for good in
            ["home", "checkout-page", "card_1.hover", "cards/lamp", "home.spec.ts/hero-2", "x.png", &"x".repeat(200)]
        {
            check_snapshot_name(good).unwrap();
        }
        let store = ProjectStore::new("/nonexistent");
        let fix =
            "use letters, digits, '-', '_' and '.', with '/' between folders, e.g. \"checkout-page\" or \"cards/lamp\"";
        assert_eq!(
            store.baseline_png("../etc", "chromium").unwrap_err().to_string(),
            format!("snapshot name \"../etc\" contains '..'; {fix}")
        );
        assert_eq!(
            check_snapshot_name("home/chromium.png").unwrap_err().to_string(),
            format!(
                "snapshot name \"home/chromium.png\" has a folder \"chromium.png\" that would sit among its parent's files; {fix}"
            )
        );
        assert_eq!(
            check_snapshot_name("a//b").unwrap_err().to_string(),
            format!("snapshot name \"a//b\" has an empty folder name; {fix}")
        );
    }

    #[test]
    fn store_a_layout_places_reads_and_lists_baselines() {
        let root = std::env::temp_dir().join(format!("sightline-layout-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let layout = BaselineLayout::parse("{name}/{project}-{platform}").unwrap();
        let store = ProjectStore::with_layout(&root, layout);
        let platform = crate::layout::current_platform();
        let data = CaptureData { device_scale_factor: 1.0, ..Default::default() };
        let image = RgbaImage::from_raw(2, 2, vec![7; 16]).unwrap();
        store.write_baseline("cards/lamp", "Mobile Safari", &image, &data).unwrap();
        let png = root.join(format!(".sightline/baselines/cards/lamp/Mobile_Safari-{platform}.png"));
        assert_eq!(store.baseline_png("cards/lamp", "Mobile Safari").unwrap(), png);
        assert!(png.is_file());
        assert_eq!(store.read_baseline("cards/lamp", "Mobile_Safari").unwrap().unwrap().image, image);
        // Another platform's baseline and the default layout's file are not this layout's.
        std::fs::write(root.join(".sightline/baselines/cards/lamp/chromium-otheros.png"), b"").unwrap();
        std::fs::write(root.join(".sightline/baselines/cards/lamp/chromium.png"), b"").unwrap();
        assert_eq!(list_baselines(&store).unwrap(), vec![("cards/lamp".to_string(), "Mobile_Safari".to_string())]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn store_snapshot_files_walk_nested_names_and_skip_what_is_not_a_snapshot() {
        let base = std::env::temp_dir().join(format!("sightline-snapshot-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        for file in [
            "home/chromium.png",
            "home/chromium.slcap",
            "cards/lamp/chromium.png",
            "cards/lamp/Mobile_Safari.png",
            "cards/chromium.png",
            "bad name/chromium.png",
        ] {
            let path = base.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, b"").unwrap();
        }
        std::fs::write(base.join("run.json"), b"{}").unwrap();
        let found: Vec<(String, String)> =
            snapshot_files(&base, ".png").unwrap().into_iter().map(|f| (f.name, f.stem)).collect();
        let expected =
            [("cards", "chromium"), ("cards/lamp", "Mobile_Safari"), ("cards/lamp", "chromium"), ("home", "chromium")];
        assert_eq!(found, expected.map(|(n, s)| (n.to_string(), s.to_string())));
        assert_eq!(snapshot_files(&base.join("absent"), ".png").unwrap(), vec![]);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn store_project_names_become_file_stems() {
        assert_eq!(project_file_stem("Mobile Safari"), "Mobile_Safari");
        assert_eq!(project_file_stem(""), "default");
        assert_eq!(project_file_stem("chromium"), "chromium");
    }

    #[test]
    fn store_round_trips_baseline_and_capture() {
        let root = std::env::temp_dir().join(format!("sightline-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = ProjectStore::new(&root);
        assert!(store.read_baseline("home", "chromium").unwrap().is_none());
        let image = RgbaImage::filled(8, 4, [10, 20, 30, 255]).unwrap();
        let dom = r#"{"version":1,"elements":[]}"#;
        let data = CaptureData {
            dom: Some(dom.into()),
            failures: vec![HealthReason::failed(crate::health::AssetKind::Font, "x.woff2", "HTTP 404")],
            device_scale_factor: 2.0,
            project: Some("chromium".into()),
            settings: Some(crate::config::Settings {
                perceptual: true,
                max_diff_pixels: Some(10),
                ..Default::default()
            }),
            unsettled: Some(super::UnsettledPage { waited_ms: 5000, area: "62×20 at 10,10 (#clock)".into() }),
            test: Some(TestRef { file: "tests/home.spec.ts".into(), title: vec!["home".into()], line: Some(4) }),
            environment: Some(crate::environment::Environment {
                browser: "chromium".into(),
                browser_version: "156.0.8078.114".into(),
                platform: "linux".into(),
                device_scale_factor: 2.0,
                fonts: vec![crate::environment::RenderedFont {
                    family: "sans-serif".into(),
                    faces: vec![crate::environment::FontFace { name: "DejaVu Sans".into(), web: false }],
                }],
                rendering_switches: vec!["--disable-lcd-text".into()],
                assets: vec![crate::environment::Asset {
                    kind: crate::health::AssetKind::Image,
                    url: "http://x/hero.png".into(),
                    digest: "0f1e".into(),
                }],
                page_url: "http://x/".into(),
            }),
            shot: Some("5d0c7a1e9b3f42a6c8e1d7f0b2a4c6e8".into()),
        };
        store.write_baseline("home", "chromium", &image, &data).unwrap();
        let back = store.read_baseline("home", "chromium").unwrap().unwrap();
        assert!(back.image == image);
        assert_eq!(back.data.test, data.test, "the baseline remembers its test");
        assert_eq!(back.data.environment, data.environment, "and where it was rendered");
        assert_eq!(back.data.shot, data.shot, "and the key of the browser's shot");
        let data_only = store.read_baseline_data("home", "chromium").unwrap().unwrap();
        assert_eq!(data_only.test, data.test);
        assert_eq!(back.data.dom.as_deref(), Some(dom));
        assert_eq!(back.data.failures, data.failures);
        assert_eq!(back.data.device_scale_factor, 2.0);
        assert_eq!((back.data.settings, back.data.unsettled), (None, None), "a baseline keeps no call settings");

        store.write_capture("home", "chromium", image.clone(), &data).unwrap();
        let capture = store.read_capture("home", "chromium").unwrap();
        assert!(capture.image == image);
        assert_eq!(capture.data.dom.as_deref(), Some(dom));
        assert_eq!(capture.data.settings, data.settings, "the call's resolved settings travel with the capture");
        assert_eq!(capture.data.unsettled, data.unsettled, "and whether its page settled");
        let _ = std::fs::remove_dir_all(&root);
    }
}
