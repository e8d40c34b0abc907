//! What the session asks of the core for a shot: the capture request it makes of its state, the
//! first shot's provisional comparison, and whether the page is shot before it is walked.

use std::path::Path;
use std::sync::Arc;

use crate::capture::decode_screenshot;
use crate::capture::{
    CaptureOutcome, CaptureOwner, CaptureRequest, KeyCheck, Unsettled, UpdateMode, key_may_decide, record_capture,
    record_if_unchanged,
};
use crate::decode::decode_image;
use crate::dom::{DomSnapshot, parse_dom};
use crate::error::{Error, Result};
use crate::image::RgbaImage;
use crate::priority::beside_the_browser;
use crate::snapshot::SnapshotOptions;
use crate::stability::unsettled_area;
use crate::store::ledger::TestRef;
use crate::store::{CaptureData, ProjectStore};

use super::input::check_ignore_regions;
use super::{CaptureSession, Decoding, Settled, Step};

impl CaptureSession {
    /// The first shot of a round, compared with the baseline unless its key decided it already.
    /// `pixels`: the shot decoded ahead, when it was.
    pub(super) fn first_shot(
        &mut self,
        png: Vec<u8>,
        key: KeyCheck,
        pixels: Option<Result<RgbaImage>>,
    ) -> Result<Step> {
        let dpr = self.dom.as_deref().map_or(1.0, |d| d.device_pixel_ratio);
        check_ignore_regions(&self.settings.ignore_regions, &png, dpr)?;
        if self.capture_only {
            return Ok(self.start_settling(png, None));
        }
        // An unchanged page costs one shot: the first is checked against the baseline,
        // provisionally (no baseline is written from a shot that may not be stable).
        let outcome = match key {
            KeyCheck::Passed(outcome) => *outcome,
            KeyCheck::Differs | KeyCheck::Unknown => {
                self.shot_comparison().with_request(&png, pixels, true, None, record_capture)?
            }
        };
        let unsettled = outcome.fails_test() || outcome.would_write_baseline;
        self.first = Some(outcome);
        if unsettled {
            Ok(self.start_settling(png, None))
        } else {
            self.settled(Settled { shot: png, is_first: true, unsettled: None, waited_ms: 0 })
        }
    }

    /// Whether the page is shot before it is walked: a baseline is there to match, nothing is
    /// masked, ignored or placed by the walk's boxes, and a pass writes nothing.
    pub(super) fn shoots_first(&self) -> bool {
        !self.capture_only
            && key_may_decide(self.update, self.settings.write_missing_baselines, self.is_not)
            && !self.sets_aside()
            && self.settings.ignore_regions.is_empty()
            && self.store.baseline_png(&self.name, &self.project).is_ok_and(|png| png.is_file())
    }

    pub(super) fn unsettled_area(&self, previous: &[u8], shot: &[u8]) -> Result<String> {
        let previous = decode_image(previous, Path::new("earlier screenshot"))?;
        let shot = decode_image(shot, Path::new("last screenshot"))?;
        unsettled_area(previous.view(), shot.view(), self.dom.as_deref())
    }

    /// A first shot whose key says it differs, walked: the page is shot again meanwhile, whatever
    /// its comparison finds (toHaveScreenshot's settling shot), so the two overlap. The comparison
    /// takes the shot from its decoding, on a thread of its own: the decode may still be running
    /// (on a short walk), and the settling shot need not wait for it. It parses the walk's DOM
    /// record too (the capture data's), which the session takes back with its outcome: 18 ms on
    /// a long page that the settling shot no longer waits for. (A shot first has no ignored
    /// regions to check against its size: those are placed by a walk before the shot.)
    pub(super) fn compare_beside(&mut self, decoding: Decoding) -> Step {
        let mut comparison = self.shot_comparison();
        let beside = std::thread::spawn(beside_the_browser(move || {
            let dom = match parse_dom(comparison.data.dom.as_deref().unwrap_or_default()) {
                Ok(dom) => Arc::new(dom),
                Err(e) => return (joined(decoding).map(|(shot, _)| shot).unwrap_or_default(), Err(e)),
            };
            comparison.dom = Some(Arc::clone(&dom));
            match joined(decoding) {
                Ok((shot, pixels)) => {
                    let outcome = comparison.with_request(&shot, Some(pixels), true, None, record_capture);
                    (shot, outcome.map(|outcome| (dom, outcome)))
                }
                Err(e) => (Vec::new(), Err(e)),
            }
        }));
        self.start_settling(Vec::new(), Some(beside))
    }

    /// Decodes a first shot whose key did not pass it on a thread of its own, while the page is
    /// walked (the browser works on one core then; the walk's record is needed before the shot can
    /// be compared), and the baseline with it when it was read ahead undecoded: the settling shot
    /// that follows the walk no longer competes with both decodes for the cores.
    pub(super) fn decode_ahead(&self, shot: Vec<u8>) -> Decoding {
        let (store, name, project) = (self.store.clone(), self.name.clone(), self.project.clone());
        std::thread::spawn(beside_the_browser(move || {
            let pixels = decode_screenshot(&shot, &name);
            crate::prefetch::decode_ahead(&store, &name, &project);
            (shot, pixels)
        }))
    }

    pub(super) fn compare(
        &self,
        shot: &[u8],
        provisional: bool,
        unsettled: Option<Unsettled<'_>>,
    ) -> Result<CaptureOutcome> {
        self.shot_comparison().with_request(shot, None, provisional, unsettled, record_capture)
    }

    /// Whether `shot`'s bytes are the baseline's shot (then it is recorded as passed).
    pub(super) fn check_key(&self, shot: &[u8]) -> Result<KeyCheck> {
        self.shot_comparison()
            .with_request(shot, None, true, None, |store, request| record_if_unchanged(store, &request))
    }

    /// What comparing a shot needs of the session, copied (the DOM record shared).
    fn shot_comparison(&self) -> ShotComparison {
        ShotComparison {
            store: self.store.clone(),
            name: self.name.clone(),
            project: self.project.clone(),
            data: self.capture_data(),
            dom: self.dom.clone(),
            options: self.settings.snapshot_options(),
            update: self.update,
            write_missing_baselines: self.settings.write_missing_baselines,
            owner: self.test.owner(),
            negated: self.is_not,
        }
    }

    pub(super) fn capture_data(&self) -> CaptureData {
        CaptureData {
            dom: self.dom_json.clone(),
            failures: self.failures.clone(),
            device_scale_factor: 1.0,
            project: Some(self.project.clone()),
            settings: Some(self.settings.clone()),
            unsettled: None,
            environment: self.environment.clone(),
            // The baseline remembers its test: a later run that did not select it stays quiet.
            test: Some(TestRef::new(&self.root, &self.test.file, self.test.title_path.clone(), self.test.line)),
            // The comparison keys the capture from the shot's bytes.
            shot: None,
        }
    }
}

/// A shot's comparison with the baseline, with everything it needs of its session owned, so it
/// can run on a thread of its own while the page is shot again.
struct ShotComparison {
    store: ProjectStore,
    name: String,
    project: String,
    data: CaptureData,
    dom: Option<Arc<DomSnapshot>>,
    options: SnapshotOptions,
    update: UpdateMode,
    write_missing_baselines: bool,
    owner: CaptureOwner,
    negated: bool,
}

impl ShotComparison {
    /// Runs `compare` on the capture request of `shot`.
    fn with_request<T>(
        self,
        shot: &[u8],
        pixels: Option<Result<RgbaImage>>,
        provisional: bool,
        unsettled: Option<Unsettled<'_>>,
        compare: impl FnOnce(&ProjectStore, CaptureRequest<'_>) -> T,
    ) -> T {
        let Self { store, name, project, data, dom, options, update, write_missing_baselines, owner, negated } = self;
        let request = CaptureRequest {
            name: &name,
            project: &project,
            screenshot_png: shot,
            decoded: pixels,
            data,
            parsed_dom: dom.as_deref(),
            options,
            update,
            write_missing_baselines,
            want_diff_png: true,
            provisional,
            unsettled,
            owner: Some(owner),
            negated,
            // The session writes the run's files once the call is decided: the capture with what
            // the page was drawn with, the evidence with the rules behind a restyle.
            defer_writes: true,
        };
        compare(&store, request)
    }
}

/// The shot and its pixels from a [`Decoding`], once it is done.
pub(super) fn joined(decoding: Decoding) -> Result<(Vec<u8>, Result<RgbaImage>)> {
    decoding.join().map_err(|_| Error::Internal("the first shot's decoding panicked".into()))
}
