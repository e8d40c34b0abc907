//! What one `toMatchVisual` call does after the browser part: decode the screenshot, store it as
//! this run's capture, compare it with the approved baseline, write the evidence for the
//! reporter, and write a baseline when the update mode asks for one.

use serde::Serialize;

use crate::artifact::{EncodedBands, PixelSection, encode_bands, seal};
use crate::compare::Size;
use crate::damaged::{DamagedFile, DamagedSide};
use crate::decode::decode_image;
use crate::dom::DomSnapshot;
use crate::error::{Error, Result};
use crate::image::RgbaImage;
use crate::layout::check_snapshot_name;
use crate::snapshot::{CaptureSide, SnapshotEvidence, SnapshotOptions, compare_snapshot, snapshot_label};
use crate::store::{CaptureData, ProjectStore, UnsettledPage};
use crate::variants::compare_accepted_states;
use crate::verdict::Status;

/// Playwright's `updateSnapshots` modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UpdateMode {
    /// Never write baselines.
    None,
    /// Playwright's implicit default (it reports `default`): write nothing unless
    /// `writeMissingBaselines` is set, because a baseline is a human decision (01-product.md).
    #[default]
    Default,
    /// An explicit `--update-snapshots=missing`: write baselines for new snapshots.
    Missing,
    /// Write new and changed baselines (`-u`).
    Changed,
    /// Rewrite every baseline.
    All,
}

impl UpdateMode {
    /// Parses Playwright's spelling; an unknown mode is an error naming the valid ones.
    pub fn parse(mode: &str) -> Result<Self> {
        match mode {
            "none" => Ok(Self::None),
            "default" => Ok(Self::Default),
            "missing" => Ok(Self::Missing),
            "changed" => Ok(Self::Changed),
            "all" => Ok(Self::All),
            other => Err(Error::InvalidInput(format!(
                "updateSnapshots {other:?} is not one of none, default, missing, changed, all"
            ))),
        }
    }

    /// Whether this mode writes a baseline for a snapshot whose evidence says `status`:
    /// `write_missing_baselines` is the config key that lets the implicit default write new ones.
    pub fn writes_baseline(self, status: Status, write_missing_baselines: bool) -> bool {
        match self {
            Self::All => true,
            Self::Changed => status != Status::Passed,
            Self::Default => write_missing_baselines && status == Status::New,
            Self::Missing => status == Status::New,
            Self::None => false,
        }
    }

    /// What wrote a baseline in this mode, as its verdict names it: only the implicit default
    /// mode writes one without a flag, when `writeMissingBaselines` lets it.
    pub fn writer(self) -> &'static str {
        match self {
            Self::Default => "writeMissingBaselines",
            _ => "--update-snapshots",
        }
    }
}

/// Which test made a capture: two tests of one run writing the same snapshot is a mistake to
/// report, never a silent overwrite (06-quality.md, concurrency).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureOwner {
    /// Identifies the test run (shared by all its workers).
    pub run_id: String,
    /// Playwright's test id (stable across retries of the same test).
    pub test_id: String,
    /// The test's title, for the error message.
    pub title: String,
    /// Where the test is (`spec file:line`), for the error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
}

impl CaptureOwner {
    /// The test as a message names it: its title, then where it is.
    fn described(&self) -> String {
        match &self.location {
            Some(location) => format!("{:?} ({location})", self.title),
            None => format!("{:?}", self.title),
        }
    }

    /// The spec file of [`CaptureOwner::location`].
    fn file(&self) -> Option<&str> {
        self.location.as_deref().map(|l| l.rsplit_once(':').map_or(l, |(file, _)| file))
    }
}

/// One capture to record and compare.
#[derive(Debug)]
pub struct CaptureRequest<'a> {
    pub name: &'a str,
    pub project: &'a str,
    /// The screenshot as Playwright returns it (PNG).
    pub screenshot_png: &'a [u8],
    /// `screenshot_png`'s pixels when they were decoded ahead (a capture session decodes a shot
    /// whose key says it differs while the page is walked), or that decode's error.
    pub decoded: Option<Result<RgbaImage>>,
    pub data: CaptureData,
    /// `data`'s DOM record already parsed (a capture session keeps it), so it is not parsed again.
    pub parsed_dom: Option<&'a DomSnapshot>,
    pub options: SnapshotOptions,
    pub update: UpdateMode,
    /// Write a baseline on a snapshot's first run even in `missing` mode.
    pub write_missing_baselines: bool,
    /// Return a diff PNG when the snapshot fails (for the test's attachments).
    pub want_diff_png: bool,
    /// The test making the capture, when known.
    pub owner: Option<CaptureOwner>,
    /// The shot may not be stable yet: decide the snapshot but write no baseline, only say in
    /// [`CaptureOutcome::would_write_baseline`] whether the update mode would write one.
    pub provisional: bool,
    /// The page never settled: this shot and the one before it still differed when the time was
    /// up. The snapshot fails as unstable and no baseline is written, in any update mode.
    pub unsettled: Option<Unsettled<'a>>,
    /// `expect(…).not.toMatchVisual(…)`: the capture is only compared. No baseline is written in
    /// any update mode, and nothing is kept for the run (no capture, evidence or claim): the run's
    /// results list what the suite expects to match, not what it expects to differ.
    pub negated: bool,
    /// Leave the run's capture and evidence unwritten, in [`CaptureOutcome::unwritten`]: the
    /// caller learns more of them after the comparison (what the page was drawn with, the rules
    /// behind a restyle) and writes them once, with [`CaptureOutcome::write_run_files`].
    pub defer_writes: bool,
}

/// The last shots of a page that never settled (see [`CaptureRequest::unsettled`]).
#[derive(Debug, Clone, Copy)]
pub struct Unsettled<'a> {
    /// The shot before this one (PNG).
    pub previous_png: &'a [u8],
    /// How long the matcher shot for, in ms.
    pub waited_ms: u64,
}

/// The outcome of [`record_capture`].
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureOutcome {
    pub evidence: SnapshotEvidence,
    /// A baseline was written by this call (update mode or `writeMissingBaselines`).
    pub baseline_written: bool,
    /// The update mode writes a baseline for this evidence (written unless the call was
    /// provisional): the matcher then waits for a stable shot before it lets the baseline be written.
    pub would_write_baseline: bool,
    /// The diff image as PNG, when asked for and the snapshot failed.
    #[serde(skip)]
    pub diff_png: Option<Vec<u8>>,
    /// The capture as the comparison saw it: the test's `-actual.png`, when asked for with the
    /// diff and the test fails.
    #[serde(skip)]
    pub current_png: ActualPng,
    /// The run's capture and evidence, when the request deferred writing them
    /// ([`CaptureRequest::defer_writes`]).
    #[serde(skip)]
    pub unwritten: Option<UnwrittenCapture>,
}

/// A compared capture whose file is not written yet ([`CaptureRequest::defer_writes`]).
#[derive(Debug)]
pub struct UnwrittenCapture {
    /// What the capture records besides its pixels; the caller may add to it before the write.
    pub data: CaptureData,
    pixels: CapturePixels,
}

/// The test's `-actual.png` ([`CaptureOutcome::current_png`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub enum ActualPng {
    /// Not asked for, or the test passes.
    #[default]
    None,
    /// The screenshot as the browser gave it: nothing was painted over it (the caller has its
    /// bytes, so none are copied).
    AsShot,
    /// The capture with its masks painted, compressed quickly
    /// ([`PngCompression::Quick`](crate::decode::PngCompression)).
    Painted(Vec<u8>),
}

/// A compared capture's run files as its outcome leaves them ([`CaptureOutcome::take_run_files`]):
/// the capture and the evidence, written by [`RunFiles::write`].
#[derive(Debug)]
pub struct RunFiles {
    name: String,
    project: String,
    capture: UnwrittenCapture,
    /// The evidence as it is written (pretty JSON): the failing test's attachment.
    pub evidence_json: Vec<u8>,
}

impl RunFiles {
    /// Writes the capture (`shot` is the screenshot it was compared from) and the evidence.
    pub fn write(&self, store: &ProjectStore, shot: &[u8]) -> Result<()> {
        let UnwrittenCapture { data, pixels } = &self.capture;
        let section = match pixels {
            CapturePixels::AsShot => PixelSection::Png(shot),
            CapturePixels::Painted(bands) => PixelSection::Bands(bands),
        };
        let capture = seal(section, data.device_scale_factor, &data.to_json()?)?;
        store.write_capture_parts(&self.name, &self.project, &capture)?;
        store.write_run_output(&store.evidence_path(&self.name, &self.project)?, &self.evidence_json)
    }
}

impl CaptureOutcome {
    /// What [`CaptureRequest::defer_writes`] left, with the evidence as it stands now; `None` when
    /// nothing was left. The outcome has nothing left to write after it.
    pub fn take_run_files(&mut self, name: &str, project: &str) -> Result<Option<RunFiles>> {
        let Some(capture) = self.unwritten.take() else { return Ok(None) };
        Ok(Some(RunFiles {
            name: name.to_string(),
            project: project.to_string(),
            capture,
            evidence_json: evidence_json(&self.evidence)?,
        }))
    }

    /// Writes what [`CaptureRequest::defer_writes`] left, now (see [`RunFiles::write`]). Returns
    /// the evidence as written; `None` when nothing was left.
    pub fn write_run_files(
        &mut self,
        store: &ProjectStore,
        name: &str,
        project: &str,
        shot: &[u8],
    ) -> Result<Option<Vec<u8>>> {
        let Some(files) = self.take_run_files(name, project)? else { return Ok(None) };
        files.write(store, shot)?;
        Ok(Some(files.evidence_json))
    }

    /// Whether the test fails: the snapshot did not pass and no baseline was written for it
    /// (under an update mode, writing the baseline is the outcome the user asked for).
    pub fn fails_test(&self) -> bool {
        self.evidence.failed() && !self.baseline_written
    }
}

/// The evidence as `.sightline/temp` keeps it and the test attaches it (pretty JSON).
pub fn evidence_json(evidence: &SnapshotEvidence) -> Result<Vec<u8>> {
    serde_json::to_vec_pretty(evidence).map_err(|e| Error::InvalidInput(format!("evidence JSON: {e}")))
}

/// Decodes a call's screenshot (PNG); an error names it as the screenshot of `name`.
pub(crate) fn decode_screenshot(png: &[u8], name: &str) -> Result<RgbaImage> {
    decode_image(png, std::path::Path::new(&format!("screenshot of {name}")))
}

/// Records a capture in `store` and compares it with the baseline.
pub fn record_capture(store: &ProjectStore, request: CaptureRequest<'_>) -> Result<CaptureOutcome> {
    check_snapshot_name(request.name)?;
    // The browser's bytes first: the same bytes as the baseline's shot need no decoding.
    if let KeyCheck::Passed(outcome) = record_if_unchanged(store, &request)? {
        return Ok(*outcome);
    }
    let CaptureRequest {
        name,
        project,
        screenshot_png,
        decoded,
        data,
        parsed_dom,
        options,
        update,
        write_missing_baselines,
        want_diff_png,
        owner,
        provisional,
        unsettled,
        negated,
        defer_writes,
    } = request;
    if let Some(owner) = owner.as_ref().filter(|_| !negated) {
        claim_snapshot(store, name, project, owner)?;
    }
    // The two sides are independent until compared: decode and parse them at once. Decoding the
    // capture is most of the time on a long page and runs on one core, so the capture's DOM is
    // parsed beside it, with the baseline (usually ready: prefetch_baseline read it ahead).
    let mut data = data;
    let (image, (parsed, baseline)) = rayon::join(
        || decoded.unwrap_or_else(|| decode_screenshot(screenshot_png, name)),
        || {
            let parse = || if parsed_dom.is_some() { Ok(None) } else { data.parsed_dom() };
            rayon::join(parse, || crate::prefetch::read_baseline_side(store, name, project))
        },
    );
    let (mut image, parsed) = (image?, parsed?);
    // A baseline that cannot be read is this snapshot's result (status `error`), not the call's.
    let (baseline, baseline_dom, damaged) = match baseline {
        Ok((baseline, dom)) => (baseline, dom, None),
        Err(e) => {
            let png = store.baseline_png(name, project)?;
            let file = store.relative(&png);
            (None, None, Some(DamagedFile::new(DamagedSide::Baseline, file, &e)))
        }
    };
    let current_dom = parsed_dom.or(parsed.as_ref());
    // The capture shows its mask from here on: stored, attached, reported, approved.
    let painted = current_dom.is_some_and(|dom| crate::mask::paint_capture(&mut image, dom, options.mask_color));
    data.project = Some(project.to_string());
    // A healthy, settled capture is keyed by the browser's bytes, so a baseline approved from it
    // lets a later shot of the same page pass without decoding.
    data.shot = (unsettled.is_none() && crate::unchanged::healthy(&data.failures, current_dom))
        .then(|| crate::unchanged::ShotKey::of(screenshot_png, current_dom, options.mask_color))
        .flatten()
        .map(crate::unchanged::ShotKey::into_string);
    // A page that never settled is named in the capture, so `sightline compare` keeps it unstable.
    if let Some(Unsettled { previous_png, waited_ms }) = unsettled {
        let previous = decode_image(previous_png, std::path::Path::new(&format!("earlier screenshot of {name}")))?;
        let area = crate::stability::unsettled_area(previous.view(), image.view(), current_dom)?;
        data.unsettled = Some(UnsettledPage { waited_ms, area });
    }
    // The page knows its device pixel ratio best.
    if let Some(dom) = current_dom {
        data.set_device_scale_factor(dom.device_pixel_ratio);
    }
    let image = &image;
    let current_side = CaptureSide {
        image: image.view(),
        dom: current_dom,
        failures: &data.failures,
        environment: data.environment.as_ref(),
    };
    let baseline_side = baseline.as_ref().map(|b| CaptureSide {
        image: b.image.view(),
        dom: baseline_dom.as_ref(),
        failures: &b.data.failures,
        environment: b.data.environment.as_ref(),
    });
    // One comparison decides the snapshot and, when it fails, draws its diff image; the report
    // copies that image instead of comparing again. The capture's pixels are encoded meanwhile
    // (both only read them); the capture is written once the comparison has succeeded.
    let (compared, pixels) = rayon::join(
        || match &damaged {
            Some(damaged) => {
                let size = Size::of(image.view());
                Ok((SnapshotEvidence::not_compared(name, project, damaged.clone(), Some(size)), None))
            }
            None => compare_snapshot(name, project, baseline_side, current_side, &options, true)
                .and_then(|compared| compare_accepted_states(store, name, project, compared, current_side, &options)),
        },
        || (!negated).then(|| CapturePixels::of(image, screenshot_png, painted)).transpose(),
    );
    let (mut evidence, diff) = compared?;
    let pixels = pixels?;

    if let Some(page) = &data.unsettled {
        evidence.mark_unsettled(page.waited_ms, &page.area);
    }
    // An update run replaces a damaged baseline as it replaces a changed one.
    let update_as = if damaged.is_some() { Status::Changed } else { evidence.status };
    let would_write_baseline =
        !negated && unsettled.is_none() && update.writes_baseline(update_as, write_missing_baselines);
    let write_baseline = would_write_baseline && !provisional;
    if write_baseline {
        store.write_baseline(name, project, image, &data)?;
        // Nothing is left to approve: the snapshot says it was written, and what it was.
        if let Some(damaged) = evidence.damaged.take() {
            evidence.verdict = damaged.written_verdict(update.writer());
            evidence.status = Status::Written;
        } else if matches!(evidence.status, Status::New | Status::Changed) {
            evidence.verdict = crate::verdict::written_verdict(evidence.status, &evidence.verdict, update.writer());
            evidence.status = Status::Written;
        }
    }

    if baseline.is_some() || write_baseline {
        let accepted = if write_baseline { None } else { evidence.accepted_variant() };
        evidence.files.baseline = Some(store.relative(&store.accepted_png(name, project, accepted)?));
    }
    let Some(pixels) = pixels else {
        // A `.not` call keeps nothing: its outcome is the evidence alone.
        return Ok(CaptureOutcome {
            evidence,
            baseline_written: false,
            would_write_baseline,
            diff_png: None,
            current_png: ActualPng::None,
            unwritten: None,
        });
    };
    evidence.files.current = Some(store.relative(&store.capture_path(name, project)?));
    // The diff image and the capture as a PNG for the failing test's attachments, encoded side by
    // side. A capture with nothing painted over it is the browser's own PNG, attached as it is;
    // a masked one is compressed quickly, not as a baseline (on a 1280×86146 page: 0.5 s instead
    // of 2.4 s, about the size of Chromium's own PNG).
    let (diff_png, current_png) = rayon::join(
        || {
            let png = diff.map(|diff| diff.png(&options.compare.pixel)).transpose()?;
            store.write_diff(name, project, png)
        },
        || {
            let wanted = want_diff_png && evidence.failed() && !write_baseline;
            Ok(match (wanted, painted) {
                (false, _) => ActualPng::None,
                (true, false) => ActualPng::AsShot,
                (true, true) => {
                    ActualPng::Painted(crate::decode::encode_png(image, crate::decode::PngCompression::Quick)?)
                }
            })
        },
    );
    let (diff_png, current_png) = (diff_png?.filter(|_| want_diff_png), current_png?);
    let mut outcome = CaptureOutcome {
        evidence,
        baseline_written: write_baseline,
        would_write_baseline,
        diff_png,
        current_png,
        unwritten: Some(UnwrittenCapture { data, pixels }),
    };
    if !defer_writes {
        outcome.write_run_files(store, name, project, screenshot_png)?;
    }
    Ok(outcome)
}

/// The pixels of a compared capture, as its file will store them.
#[derive(Debug)]
enum CapturePixels {
    /// Nothing was painted over the shot: the browser's PNG is kept as it is. Compressing its
    /// pixels again took a tenth of a failing call's comparison on a long page, on the cores the
    /// browser needs for the settling shot; what reads the capture later decodes the PNG instead.
    AsShot,
    /// The capture with its masks painted, its pixels compressed.
    Painted(EncodedBands),
}

impl CapturePixels {
    fn of(image: &RgbaImage, shot: &[u8], painted: bool) -> Result<Self> {
        if !painted && crate::decode::png_dimensions(shot) == Some((image.width(), image.height())) {
            return Ok(Self::AsShot);
        }
        encode_bands(image).map(Self::Painted)
    }
}

/// What the shot's key says of a capture ([`record_if_unchanged`]).
#[derive(Debug)]
pub enum KeyCheck {
    /// The shot's key is the baseline's: recorded as passing.
    Passed(Box<CaptureOutcome>),
    /// The baseline has a key and the shot another: its pixels differ, short of another browser
    /// build that encodes the same pixels otherwise.
    Differs,
    /// Nothing to tell: no baseline key, a call the key does not decide, or an unhealthy capture.
    Unknown,
}

/// Whether a call's shot may be decided by its key at all: one that keeps its capture (not
/// `.not`) and whose update mode writes nothing for a pass. The session shoots such a call first.
pub fn key_may_decide(update: UpdateMode, write_missing_baselines: bool, negated: bool) -> bool {
    !negated && !update.writes_baseline(Status::Passed, write_missing_baselines)
}

/// Records `request`'s capture as passing, without decoding it, when its key is the baseline's;
/// otherwise says whether the key tells it differs. Only a call that keeps its capture and writes
/// no baseline for a pass is decided here, and only a healthy capture.
pub fn record_if_unchanged(store: &ProjectStore, request: &CaptureRequest<'_>) -> Result<KeyCheck> {
    let CaptureRequest { name, project, screenshot_png: png, data, parsed_dom, options, update, .. } = request;
    if !key_may_decide(*update, request.write_missing_baselines, request.negated) || request.unsettled.is_some() {
        return Ok(KeyCheck::Unknown);
    }
    // A DOM record given only as text would cost its parse here: such a call is compared.
    let dom = match (parsed_dom, &data.dom) {
        (Some(dom), _) => Some(*dom),
        (None, None) => None,
        (None, Some(_)) => return Ok(KeyCheck::Unknown),
    };
    if !crate::unchanged::healthy(&data.failures, dom) {
        return Ok(KeyCheck::Unknown);
    }
    let Some(key) = crate::unchanged::ShotKey::of(png, dom, options.mask_color) else { return Ok(KeyCheck::Unknown) };
    let Some(head) = crate::prefetch::baseline_head(store, name, project) else { return Ok(KeyCheck::Unknown) };
    match head.shot.as_deref() {
        Some(shot) if shot == key.as_str() => {}
        Some(_) => return Ok(KeyCheck::Differs),
        None => return Ok(KeyCheck::Unknown),
    }
    if let Some(owner) = &request.owner {
        claim_snapshot(store, name, project, owner)?;
    }
    let mut data = data.clone();
    data.project = Some(project.to_string());
    data.shot = Some(key.into_string());
    // Unwalked, the page's ratio is the baseline's: the same bytes are the same pixels.
    data.set_device_scale_factor(dom.map_or(f64::from(head.device_scale_factor), |d| d.device_pixel_ratio));
    let (width, height) = crate::decode::png_dimensions(png).unwrap_or_default();
    let size = crate::compare::Size { width, height };
    let mut evidence =
        crate::snapshot::identical_evidence((name, project), size, (&data, dom), head.environment.as_ref(), options);
    evidence.files.baseline = Some(store.relative(&store.baseline_png(name, project)?));
    evidence.files.current = Some(store.relative(&store.capture_path(name, project)?));
    store.write_diff(name, project, None)?;
    let mut outcome = CaptureOutcome {
        evidence,
        baseline_written: false,
        would_write_baseline: false,
        diff_png: None,
        current_png: ActualPng::None,
        unwritten: Some(UnwrittenCapture { data, pixels: CapturePixels::AsShot }),
    };
    // A pass is decided here and learns nothing after: its files are written now, unless the
    // caller writes them (its session, beside the steps that end the call).
    if !request.defer_writes {
        outcome.write_run_files(store, name, project, png)?;
    }
    crate::prefetch::forget_baseline(store, name, project);
    Ok(KeyCheck::Passed(Box::new(outcome)))
}

/// Claims `<name>/<project>` for `owner` in this run. The claim file is created only when none
/// is there ([`ProjectStore::create_new`]), so of two workers racing for one name exactly one
/// wins; a claim left by an earlier run is replaced.
fn claim_snapshot(store: &ProjectStore, name: &str, project: &str, owner: &CaptureOwner) -> Result<()> {
    let path = store.capture_path(name, project)?.with_extension("owner");
    let json = serde_json::to_vec(owner).map_err(|e| Error::InvalidInput(format!("capture owner: {e}")))?;
    for _ in 0..2 {
        if store.create_new(&path, &json)? {
            return Ok(());
        }
        let existing: Option<CaptureOwner> =
            std::fs::read(&path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok());
        match existing {
            Some(other) if other.run_id == owner.run_id && other.test_id == owner.test_id => return Ok(()),
            Some(other) if other.run_id == owner.run_id => {
                // toHaveScreenshot keeps a given name per spec file; here that is a layout.
                let per_file = if other.file() != owner.file() && !store.layout().per_file_names() {
                    ", or keep given names per spec file as toHaveScreenshot does: \"baselinePath\": \"{testFile}/{name}/{project}\" in .sightline/config.json".to_string()
                } else {
                    String::new()
                };
                return Err(Error::InvalidInput(format!(
                    "snapshot {} is captured by two tests in this run: {} and {}; give each toMatchVisual call its own name{per_file}",
                    snapshot_label(&format!("{name:?}"), project),
                    other.described(),
                    owner.described()
                )));
            }
            // Left by an earlier run (or unreadable): take it over.
            _ => store.remove(&path)?,
        }
    }
    let label = snapshot_label(&format!("{name:?}"), project);
    Err(Error::InvalidInput(format!("snapshot {label}: could not claim {}", path.display())))
}

/// On a retry: the evidence an earlier attempt of the same test left for `<name>/<project>` in
/// this run, when all it said was `new` (no baseline, nothing compared). A retry cannot change
/// that, so the matcher reports it again without shooting. `None` when this test holds no claim
/// on the snapshot in this run or its evidence says anything else.
pub fn earlier_new_snapshot(
    store: &ProjectStore,
    name: &str,
    project: &str,
    owner: &CaptureOwner,
) -> Result<Option<SnapshotEvidence>> {
    let claim = store.capture_path(name, project)?.with_extension("owner");
    let claimed: Option<CaptureOwner> =
        std::fs::read(&claim).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok());
    if !claimed.is_some_and(|c| c.run_id == owner.run_id && c.test_id == owner.test_id) {
        return Ok(None);
    }
    Ok(store.read_evidence(name, project)?.filter(|evidence| evidence.status == Status::New))
}

/// A shard in `capture-only` mode: decode and store the capture, compare nothing (the merge job
/// runs `sightline compare --captures`).
pub fn store_capture_only(
    store: &ProjectStore,
    name: &str,
    project: &str,
    screenshot_png: &[u8],
    mut data: CaptureData,
    mask_color: [u8; 4],
    owner: Option<&CaptureOwner>,
) -> Result<()> {
    check_snapshot_name(name)?;
    if let Some(owner) = owner {
        claim_snapshot(store, name, project, owner)?;
    }
    let mut image = decode_screenshot(screenshot_png, name)?;
    if let Some(dom) = data.parsed_dom()? {
        data.set_device_scale_factor(dom.device_pixel_ratio);
        crate::mask::paint_capture(&mut image, &dom, mask_color);
    }
    data.project = Some(project.to_string());
    store.write_capture(name, project, image, &data)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::BaselineLayout;

    fn owner(test_id: &str, title: &str, location: &str) -> CaptureOwner {
        CaptureOwner {
            run_id: "run".into(),
            test_id: test_id.into(),
            title: title.into(),
            location: Some(location.into()),
        }
    }

    #[test]
    fn a_claim_is_never_made_through_a_link_out_of_the_project() {
        let places = crate::store::Places::new("claim-link");
        let temp = places.project().join(".sightline/temp");
        std::os::unix::fs::symlink(places.outside(), &temp).unwrap();
        let before = places.outside_files();
        let store = ProjectStore::new(places.project());
        let err = claim_snapshot(&store, "home", "chromium", &owner("a", "home", "a.spec.ts:3")).unwrap_err();
        assert!(
            err.to_string().starts_with(&format!(
                "{} is a symbolic link to {}",
                temp.display(),
                places.outside().display()
            )),
            "{err}"
        );
        assert_eq!(places.outside_files(), before);
        assert!(!places.outside().join("home").exists(), "no folder was made out there");
    }

    #[test]
    fn a_name_two_spec_files_give_points_at_the_per_file_layout() {
        let root = std::env::temp_dir().join(format!("sightline-claim-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = ProjectStore::new(&root);
        claim_snapshot(&store, "home", "chromium", &owner("a", "home", "a.spec.ts:3")).unwrap();
        // The same test claiming again (a second call, a retry) is its own.
        claim_snapshot(&store, "home", "chromium", &owner("a", "home", "a.spec.ts:3")).unwrap();
        let err = claim_snapshot(&store, "home", "chromium", &owner("b", "home", "b.spec.ts:9")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "snapshot \"home\" (chromium) is captured by two tests in this run: \"home\" (a.spec.ts:3) and \"home\" (b.spec.ts:9); give each toMatchVisual call its own name, or keep given names per spec file as toHaveScreenshot does: \"baselinePath\": \"{testFile}/{name}/{project}\" in .sightline/config.json"
        );
        // Within one file, or under the per-file layout already, only the rename is offered.
        let same_file = claim_snapshot(&store, "home", "chromium", &owner("c", "again", "a.spec.ts:20")).unwrap_err();
        assert!(same_file.to_string().ends_with("give each toMatchVisual call its own name"), "{same_file}");
        let per_file = ProjectStore::with_layout(&root, BaselineLayout::parse("{testFile}/{name}/{project}").unwrap());
        let err = claim_snapshot(&per_file, "home", "chromium", &owner("b", "home", "b.spec.ts:9")).unwrap_err();
        assert!(err.to_string().ends_with("give each toMatchVisual call its own name"), "{err}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
