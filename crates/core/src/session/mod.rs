//! One `toMatchVisual` call, start to end, as a session the matcher drives. The matcher holds the
//! page and does what the session asks of it — walk the DOM, shoot, wait — and nothing else; the
//! session holds the rest: the call's options resolved once (the config file read once), the
//! snapshot's name and claim, the baseline read ahead, the DOM record parsed once, and every
//! decision of the capture loop with every sentence the test prints.
//!
//! The loop is toHaveScreenshot's. The page is walked, then shot; the first shot is compared
//! with the baseline provisionally, and an unchanged page ends there (one shot, one comparison).
//! A call with a baseline that masks and ignores nothing is shot before it is walked: when the
//! browser's bytes are the baseline's shot (`unchanged`) it passes there, one shot and no walk;
//! otherwise the page is walked and the shot compared as above.
//! Otherwise the page is shot until two consecutive shots agree ([`RESHOT_BACKOFF_MS`] apart, up
//! to the timeout) and the settled shot decides; a failing snapshot whose first shot was already
//! the settled one costs one comparison. A call that masks or ignores something walks the page
//! again after its shot: a masked element that moved in between would be painted where it was,
//! so the page is walked and shot anew, at most [`MASK_WALKS`] times, and then it is unstable.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::capture::{CaptureOutcome, KeyCheck, Unsettled, UpdateMode};
use crate::config::{Settings, SettingsLayer, ShardMode};
use crate::decode::decode_image;
use crate::dom::{DomSnapshot, TraceRequest, parse_dom};
use crate::environment::{Environment, FontElement, MAX_ASSETS, MAX_RENDERED_FONTS, font_elements};
use crate::error::{Error, Result};
use crate::health::HealthReason;
use crate::image::RgbaImage;
use crate::stability::{never_settled, set_aside_moved, shots_agree};
use crate::store::{ProjectStore, call_snapshot_name};

use input::{call_name, read_styles, split_mask};
use outcome::failure_message;
pub use trace::TraceAnswer;
use trace::Tracing;

/// Walks of the page a call makes at most while its masked or ignored elements keep moving.
pub const MASK_WALKS: u32 = 3;

/// Pauses between re-shots, as toHaveScreenshot's: then the last one, until the timeout.
pub const RESHOT_BACKOFF_MS: [u64; 5] = [0, 100, 250, 500, 1000];

/// The timeout when neither the call, the config nor Playwright's expect gives one.
const DEFAULT_TIMEOUT_MS: f64 = 5000.0;

/// The test that makes a call.
#[derive(Debug, Clone, Default)]
pub struct CallTest {
    /// Identifies the test run (all its workers share it).
    pub run_id: String,
    /// Playwright's `testInfo.testId` (the same on every retry).
    pub test_id: String,
    /// The spec file, relative to the Playwright config's folder.
    pub file: String,
    /// The describe titles and the test's title.
    pub title_path: Vec<String>,
    /// The test's line in its file.
    pub line: Option<u32>,
    /// Which attempt this is: 0, then 1 for the first retry.
    pub retry: u32,
}

/// Everything the matcher knows when a call starts.
#[derive(Debug, Clone)]
pub struct CallRequest {
    /// The project root: `.sightline/` lives here.
    pub root: PathBuf,
    /// The call's name, as given (`None`: unnamed) and, for an unnamed call, which of the test's
    /// unnamed calls it is.
    pub name: Option<serde_json::Value>,
    pub unnamed_index: u32,
    /// The Playwright project.
    pub project: String,
    /// Playwright's `expect.toHaveScreenshot` for the project (`null` for none).
    pub playwright: serde_json::Value,
    /// The call's options, the name left out; a mask Locator stands as `{"locator": "this-page"}`
    /// (or `"other-page"`), anything else that is not a selector as `{"type": <typeof>}`.
    pub options: serde_json::Value,
    /// Playwright's `updateSnapshots`.
    pub update: UpdateMode,
    /// The call is `expect(…).not.toMatchVisual(…)`.
    pub is_not: bool,
    /// Playwright's expect timeout for the call, in ms.
    pub expect_timeout_ms: Option<f64>,
    /// The run is one shard of several (`--shard`).
    pub sharded: bool,
    /// `--ignore-snapshots` (or the project's `ignoreSnapshots`): nothing is captured.
    pub ignore_snapshots: bool,
    pub test: CallTest,
}

/// What the page is asked for next.
#[derive(Debug)]
pub enum Step {
    /// Walk the page's DOM collecting these computed styles (none: boxes only).
    Walk { style_properties: Vec<String> },
    /// Shoot the page after waiting this long.
    Shoot { after_ms: u64 },
    /// Say what the page was drawn with: the fonts that drew its text (at most `max_families`
    /// `font-family` values) and digests of the fonts, images and stylesheets it loaded (at most
    /// `max_assets`). `font_elements` names the element to ask about for each family, from the
    /// DOM record; `None` when the record cannot say (the page then finds one per family).
    /// `trace`, when the snapshot is failing with restyled elements, is the [`Step::Trace`] asked
    /// in the same round (the page's DevTools domains are switched on once for both): the
    /// answer goes to [`CaptureSession::rendered`] with the fonts.
    Rendered {
        max_families: usize,
        max_assets: usize,
        font_elements: Option<Vec<FontElement>>,
        trace: Option<TraceRequest>,
    },
    /// Say which rules these restyled elements matched (a failing snapshot, once): the answer
    /// goes to [`CaptureSession::traced`].
    Trace(TraceRequest),
    /// The call is decided.
    Done(Box<CallOutcome>),
}

/// Where the loop is.
#[derive(Debug)]
enum Phase {
    /// The page is being walked for the capture's DOM record.
    Walk,
    /// The first shot of a round is awaited.
    FirstShot,
    /// The first shot, taken before the walk, is not the baseline's: the page is walked for it
    /// while the shot is decoded. What its key said (it differs, or nothing) decides how it is
    /// compared.
    WalkAfterShot(Decoding, KeyCheck),
    /// Shots until two consecutive ones agree.
    Settling(Settling),
    /// After the settled shot: the masked and ignored boxes are walked again.
    BoxesWalk(Settled),
    /// A masked or ignored element moved: the page is walked anew before the next round.
    Rewalk {
        settled: Settled,
        moved: String,
    },
    /// The round is settled and its shot will be compared or stored: what the page was drawn with
    /// (fonts, asset digests) is awaited, for the environment recorded with it, and the rules
    /// behind the restyled elements when the round's first comparison is failing with some.
    Rendered(Settled, Option<TraceRequest>),
    /// The snapshot fails with restyled elements: the rules behind them are awaited.
    Trace(Box<Tracing>),
    Done,
}

#[derive(Debug)]
struct Settling {
    deadline: Instant,
    attempt: usize,
    /// The round's last shot (empty while `beside` has it).
    shot: Vec<u8>,
    /// `shot` decoded, when comparing it past its bytes needed it: the next comparison, where it
    /// is the earlier shot, does not decode it again.
    shot_image: Option<RgbaImage>,
    /// The first shot's comparison, running beside this round's next shot (the first shot's key
    /// said it differs, so the page is shot again whatever the comparison finds). It hands the
    /// shot back with its outcome.
    beside: Option<Beside>,
}

/// How two consecutive shots compare ([`CaptureSession::shots_agree`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Agreement {
    /// The same bytes: the same pixels.
    SameBytes,
    /// Other pixels only under the call's masked and ignored boxes.
    OutsideSetAside,
    Differ,
}

/// A shot decoded on a thread of its own while the page is walked, which hands the shot back with
/// its pixels (or the decode's error).
type Decoding = std::thread::JoinHandle<(Vec<u8>, Result<RgbaImage>)>;

/// A shot's comparison on a thread of its own, which parses the walk's DOM record for it and
/// hands the shot back with the record and the outcome.
type Beside = std::thread::JoinHandle<(Vec<u8>, Result<(Arc<DomSnapshot>, CaptureOutcome)>)>;

/// The end of one round of shots.
#[derive(Debug)]
struct Settled {
    shot: Vec<u8>,
    /// `shot` is the round's first shot, the one its first comparison compared: that comparison
    /// stands for it (told where the round ends, so no one compares the two shots' bytes again).
    is_first: bool,
    /// The shot before `shot`, when the page never settled (it kept changing until the timeout).
    unsettled: Option<Vec<u8>>,
    waited_ms: u64,
}

/// One `toMatchVisual` call. Open it with [`CaptureSession::open`]; then give it what each
/// [`Step`] asks for until it says [`Step::Done`].
#[derive(Debug)]
pub struct CaptureSession {
    name: String,
    project: String,
    store: ProjectStore,
    /// The call's resolved settings, kept with the capture for `sightline compare`.
    settings: Settings,
    css: String,
    timeout_ms: f64,
    /// The call itself asked for `fullPage: true` ([`PageSettings::scroll_content`]).
    scroll_content: bool,
    update: UpdateMode,
    is_not: bool,
    capture_only: bool,
    /// Mask Locators of this page: the page marks them for each walk, so a walk masks more than
    /// the settings' selectors say.
    mask_locators: bool,
    test: CallTest,
    root: PathBuf,
    dom_json: Option<String>,
    /// The DOM record parsed; shared with a comparison running beside a shot.
    dom: Option<Arc<DomSnapshot>>,
    /// Where the page is rendered, as the first walk reported it, with its fonts once asked for.
    environment: Option<Environment>,
    /// The page was asked what it was drawn with (once a call).
    rendered_asked: bool,
    failures: Vec<HealthReason>,
    phase: Phase,
    /// Rounds of walk and shots so far.
    walks: u32,
    /// When the call began: its timeout counts from here.
    started: Instant,
    /// The provisional comparison of this round's first shot.
    first: Option<CaptureOutcome>,
    /// The settled shot of the round before.
    earlier: Option<Vec<u8>>,
    /// The decided call's run files, being written ([`CaptureSession::close`] waits for them).
    writing: Option<std::thread::JoinHandle<Result<()>>>,
}

impl CaptureSession {
    /// Starts a call: names the snapshot, resolves its options over the config file (read once)
    /// and Playwright's defaults, claims nothing yet, starts reading the baseline, and says the
    /// first step. An error names the input at fault and how to fix it.
    pub fn open(request: CallRequest) -> Result<(Self, Step)> {
        let CallRequest { root, name, unnamed_index, project, playwright, options, update, is_not, .. } = request;
        // A session's decodes and comparisons run beside the browser's screenshots.
        crate::priority::pool_yields_to_the_browser();
        let file = SettingsLayer::file(&root)?;
        let baseline_path = file.baseline_path.clone().unwrap_or_default();
        let name = call_name(name, unnamed_index, &request.test)
            .and_then(|call| call_snapshot_name(&call, &baseline_path))
            .map_err(|e| Error::InvalidInput(format!("toMatchVisual: {e}")))?;
        let store = ProjectStore::with_layout(&root, baseline_path);
        let early = |outcome: CallOutcome| -> Result<Option<CallOutcome>> { Ok(Some(outcome)) };
        let done_early = if request.ignore_snapshots {
            // Skipped as toHaveScreenshot is skipped: nothing is captured or compared.
            early(CallOutcome {
                pass: !is_not,
                message: format!("toMatchVisual({name:?}): skipped (ignoreSnapshots)"),
                ..CallOutcome::empty()
            })?
        } else if is_not && !store.baseline_png(&name, &project)?.is_file() {
            // As toHaveScreenshot: there is nothing to differ from, so `.not` fails, and it never
            // writes a baseline (pass is inverted under `.not`).
            early(CallOutcome {
                pass: true,
                message: format!(
                    "toMatchVisual({name:?}): no baseline at {} to differ from; matchers using .not never write one (approve a capture of the page first)",
                    store.relative(&store.baseline_png(&name, &project)?)
                ),
                ..CallOutcome::empty()
            })?
        } else if request.test.retry > 0 && !is_not {
            // A retry cannot give a new snapshot a baseline: when an earlier attempt of this test
            // found only that, it is reported again, softly, without shooting.
            let owner = request.test.owner();
            crate::capture::earlier_new_snapshot(&store, &name, &project, &owner)?.map(|evidence| {
                let message = failure_message(&name, &evidence);
                CallOutcome {
                    pass: true,
                    status: Some(evidence.status),
                    fail_at_end: Some(message.clone()),
                    message,
                    attachments: Vec::new(),
                }
            })
        } else {
            None
        };
        // A call that ends here resolves no options: a bad one fails only a call that captures.
        let (mask_locators, settings, css, scroll_content) = if done_early.is_some() {
            (false, Settings::default().over(&file), String::new(), false)
        } else {
            let (call, mask_locators) = split_mask(&name, options)?;
            let call = SettingsLayer::call(call)?;
            let settings = Settings::resolve(&SettingsLayer::playwright(playwright)?, &file, &call);
            let css = read_styles(&name, &settings.style_path)?;
            (mask_locators, settings, css, call.full_page == Some(true))
        };
        let timeout_ms = settings.timeout.or(request.expect_timeout_ms).unwrap_or(DEFAULT_TIMEOUT_MS);
        let capture_only = settings.shard_mode == ShardMode::CaptureOnly && request.sharded;
        let session = Self {
            store,
            name,
            project,
            settings,
            css,
            timeout_ms,
            scroll_content,
            update,
            is_not,
            capture_only,
            mask_locators,
            test: request.test,
            root,
            dom_json: None,
            dom: None,
            environment: None,
            rendered_asked: false,
            failures: Vec::new(),
            phase: Phase::Walk,
            walks: 1,
            started: Instant::now(),
            first: None,
            earlier: None,
            writing: None,
        };
        if let Some(outcome) = done_early {
            let mut session = session;
            session.phase = Phase::Done;
            return Ok((session, Step::Done(Box::new(outcome))));
        }
        // The baseline decodes on a thread of its own while the page is prepared, walked and shot.
        if !session.capture_only {
            crate::prefetch::prefetch_baseline(&session.store, &session.name, &session.project);
        }
        let mut session = session;
        let step = if session.shoots_first() {
            session.phase = Phase::FirstShot;
            Step::Shoot { after_ms: 0 }
        } else {
            session.walk_step()
        };
        Ok((session, step))
    }

    /// Waits until the decided call's files (its capture and evidence) are written, and says
    /// whether they were: the matcher calls it before the call returns, having attached and put
    /// the page back meanwhile. Nothing to wait for before [`Step::Done`].
    pub fn close(&mut self) -> Result<()> {
        match self.writing.take() {
            Some(writing) => {
                writing.join().map_err(|_| Error::Internal("writing the call's capture panicked".into()))?
            }
            None => Ok(()),
        }
    }

    /// The snapshot's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the page needs to be prepared, walked and shot.
    pub fn page(&self) -> PageSettings<'_> {
        let (settings, css, timeout_ms, scroll_content) =
            (&self.settings, self.css.as_str(), self.timeout_ms, self.scroll_content);
        PageSettings { settings, css, timeout_ms, scroll_content }
    }

    /// The page's DOM record, as the collector returned it (JSON), for the step that asked for a
    /// walk, and where the page is rendered (its browser and platform), when the matcher can tell.
    pub fn walked(&mut self, dom_json: String, environment: Option<Environment>) -> Result<Step> {
        self.learn_environment(environment)?;
        match std::mem::replace(&mut self.phase, Phase::Done) {
            Phase::Walk => {
                self.keep_dom(dom_json)?;
                self.phase = Phase::FirstShot;
                Ok(Step::Shoot { after_ms: 0 })
            }
            Phase::WalkAfterShot(decoding, key) => {
                if matches!(key, KeyCheck::Differs) {
                    // Parsed beside the settling shot, by the comparison that needs it first.
                    self.dom_json = Some(dom_json);
                    return Ok(self.compare_beside(decoding));
                }
                self.keep_dom(dom_json)?;
                let (shot, pixels) = shots::joined(decoding)?;
                self.first_shot(shot, key, Some(pixels))
            }
            Phase::BoxesWalk(settled) => {
                let now = parse_dom(&dom_json)?;
                match self.dom.as_deref().and_then(|recorded| set_aside_moved(recorded, &now)) {
                    Some(moved) => {
                        self.phase = Phase::Rewalk { settled, moved };
                        Ok(self.walk_step())
                    }
                    None => self.finish_round(settled, None),
                }
            }
            Phase::Rewalk { settled, moved } => {
                self.keep_dom(dom_json)?;
                if self.walks == MASK_WALKS {
                    return self.unstable_after_walks(settled, &moved);
                }
                self.walks += 1;
                self.earlier = Some(settled.shot);
                self.phase = Phase::FirstShot;
                Ok(Step::Shoot { after_ms: 0 })
            }
            other => Err(self.out_of_order(other, "a DOM walk")),
        }
    }

    /// A screenshot (PNG, as Playwright returns it) for the step that asked for one, the assets
    /// that have failed on the page so far, and where the page is rendered when no walk said it
    /// yet (a page shot before it is walked).
    pub fn shot(
        &mut self,
        png: Vec<u8>,
        failures: Vec<HealthReason>,
        environment: Option<Environment>,
    ) -> Result<Step> {
        self.failures = failures;
        self.learn_environment(environment)?;
        match std::mem::replace(&mut self.phase, Phase::Done) {
            Phase::FirstShot if self.dom.is_none() && !self.capture_only => {
                // Shot before the walk: the same bytes as the baseline's shot pass here.
                match self.check_key(&png)? {
                    passed @ KeyCheck::Passed(_) => self.first_shot(png, passed, None),
                    key => {
                        self.phase = Phase::WalkAfterShot(self.decode_ahead(png), key);
                        Ok(self.walk_step())
                    }
                }
            }
            Phase::FirstShot => self.first_shot(png, KeyCheck::Unknown, None),
            Phase::Settling(mut s) => {
                if let Some(beside) = s.beside.take() {
                    // The first shot's comparison ran while this one was taken: a pass after all
                    // (another browser build's bytes) ends the round on the first shot.
                    let (first, compared) =
                        beside.join().map_err(|_| Error::Internal("the first shot's comparison panicked".into()))?;
                    let (dom, outcome) = compared?;
                    self.dom = Some(dom);
                    s.shot = first;
                    let unsettled = outcome.fails_test() || outcome.would_write_baseline;
                    self.first = Some(outcome);
                    if !unsettled {
                        let shot = std::mem::take(&mut s.shot);
                        return self.settled(Settled { shot, is_first: true, unsettled: None, waited_ms: 0 });
                    }
                }
                let previous = std::mem::replace(&mut s.shot, png);
                let (agreement, shot_image) = self.shots_agree(&previous, s.shot_image.take(), &s.shot)?;
                s.shot_image = shot_image;
                if agreement != Agreement::Differ {
                    let waited_ms = millis(self.started.elapsed());
                    // The first shot's comparison stands only for the shot right after it, and
                    // only for its very bytes: a later pair of shots that agree, or a pair that
                    // agrees outside the masked boxes, need not have the first's pixels.
                    let is_first = s.attempt == 0 && agreement == Agreement::SameBytes;
                    return self.settled(Settled { shot: s.shot, is_first, unsettled: None, waited_ms });
                }
                let now = Instant::now();
                if now >= s.deadline {
                    let waited_ms = millis(self.started.elapsed());
                    return self.settled(Settled {
                        shot: s.shot,
                        is_first: false,
                        unsettled: Some(previous),
                        waited_ms,
                    });
                }
                s.attempt += 1;
                // The last pause is cut to the time left, so a never-settling page is shot until
                // the timeout.
                let left = s.deadline - now;
                let pause = Duration::from_millis(RESHOT_BACKOFF_MS[s.attempt.min(RESHOT_BACKOFF_MS.len() - 1)]);
                let after_ms = millis(pause.min(left));
                self.phase = Phase::Settling(s);
                Ok(Step::Shoot { after_ms })
            }
            other => Err(self.out_of_order(other, "a screenshot")),
        }
    }

    /// Keeps where the page is rendered, once told.
    fn learn_environment(&mut self, environment: Option<Environment>) -> Result<()> {
        if let Some(environment) = environment {
            let checked = environment.checked().map_err(|e| Error::InvalidInput(format!("toMatchVisual: {e}")))?;
            self.environment = Some(checked);
        }
        Ok(())
    }

    fn walk_step(&self) -> Step {
        let style_properties = match self.phase {
            Phase::BoxesWalk(_) => Vec::new(),
            _ => self.settings.style_properties(),
        };
        Step::Walk { style_properties }
    }

    fn keep_dom(&mut self, dom_json: String) -> Result<()> {
        self.dom = Some(Arc::new(parse_dom(&dom_json)?));
        self.dom_json = Some(dom_json);
        Ok(())
    }

    /// Whether this call has shots to compare past their bytes, and boxes that must still be
    /// where the walk found them when the page is shot.
    fn sets_aside(&self) -> bool {
        self.mask_locators || !self.settings.mask.is_empty() || !self.settings.ignore_selectors.is_empty()
    }

    /// Shoots the page again after `first` (which `beside`, when given, is comparing and hands
    /// back: `first` is then empty).
    fn start_settling(&mut self, first: Vec<u8>, beside: Option<Beside>) -> Step {
        // The timeout bounds the whole call, as toHaveScreenshot's does: the walk and the first
        // shot spent part of it.
        let deadline = self.started + Duration::from_secs_f64(self.timeout_ms.max(0.0) / 1000.0);
        self.phase = Phase::Settling(Settling { deadline, attempt: 0, shot: first, shot_image: None, beside });
        Step::Shoot { after_ms: RESHOT_BACKOFF_MS[0] }
    }

    /// Two shots agree when their bytes are equal or, for a call that masks or ignores, when they
    /// differ only under its masked and ignored boxes (a ticking clock under a mask), as
    /// toHaveScreenshot's masked shots do. `previous_image` is `previous` decoded, when it was;
    /// the answer carries `shot` decoded, when it had to be.
    fn shots_agree(
        &self,
        previous: &[u8],
        previous_image: Option<RgbaImage>,
        shot: &[u8],
    ) -> Result<(Agreement, Option<RgbaImage>)> {
        if previous == shot {
            return Ok((Agreement::SameBytes, previous_image));
        }
        if !self.sets_aside() {
            return Ok((Agreement::Differ, None));
        }
        let (a, b) = rayon::join(
            || previous_image.map_or_else(|| decode_image(previous, Path::new("earlier screenshot")), Ok),
            || decode_image(shot, Path::new("last screenshot")),
        );
        let (a, b) = (a?, b?);
        let agreement = if shots_agree(a.view(), b.view(), self.dom.as_deref()) {
            Agreement::OutsideSetAside
        } else {
            Agreement::Differ
        };
        Ok((agreement, Some(b)))
    }

    /// A round's shots are over: the masked boxes are checked, or the round is finished.
    fn settled(&mut self, settled: Settled) -> Result<Step> {
        // A capture-only shard stores nothing from a page that never settled.
        if let (true, Some(previous)) = (self.capture_only, &settled.unsettled) {
            let area = self.unsettled_area(previous, &settled.shot)?;
            return self.done(CallOutcome {
                message: format!(
                    "toMatchVisual({:?}): {}; nothing was stored for the merge job",
                    self.name,
                    never_settled(settled.waited_ms, &area)
                ),
                ..CallOutcome::empty()
            });
        }
        if self.sets_aside() {
            self.phase = Phase::BoxesWalk(settled);
            return Ok(self.walk_step());
        }
        self.finish_round(settled, None)
    }

    /// The masked boxes are where the walk found them: the settled shot decides. `traced` is the
    /// page's answer to a trace request asked with what it was drawn with: the decided outcome's
    /// trace, when it asks the same, is not asked again.
    fn finish_round(&mut self, settled: Settled, traced: Option<(TraceRequest, TraceAnswer)>) -> Result<Step> {
        if self.wants_rendered(&settled) {
            self.rendered_asked = true;
            let font_elements = self.dom.as_deref().and_then(|dom| font_elements(dom, MAX_RENDERED_FONTS));
            // The first comparison's trace, when it will likely stand: asked in the same round.
            let trace = self
                .first
                .as_ref()
                .filter(|outcome| settled.is_first && !outcome.would_write_baseline)
                .and_then(|outcome| self.trace_request(outcome));
            self.phase = Phase::Rendered(settled, trace.clone());
            return Ok(Step::Rendered {
                max_families: MAX_RENDERED_FONTS,
                max_assets: MAX_ASSETS,
                font_elements,
                trace,
            });
        }
        if self.capture_only {
            crate::capture::store_capture_only(
                &self.store,
                &self.name,
                &self.project,
                &settled.shot,
                self.capture_data(),
                self.settings.snapshot_options().mask_color,
                Some(&self.test.owner()),
            )?;
            return self.done(CallOutcome {
                pass: true,
                message: format!("toMatchVisual({:?}): captured for the merge job (capture-only shard)", self.name),
                ..CallOutcome::empty()
            });
        }
        let first = self.first.take();
        let outcome = match (first, &settled.unsettled) {
            // The core names what kept changing and writes no baseline, in any update mode.
            (_, Some(previous)) => self.compare(
                &settled.shot,
                false,
                Some(Unsettled { previous_png: previous, waited_ms: settled.waited_ms }),
            )?,
            // The first comparison stands when the settled shot is the one it compared and there
            // is no baseline to write: a failing snapshot costs one comparison.
            (Some(outcome), None) if settled.is_first && !outcome.would_write_baseline => outcome,
            _ => self.compare(&settled.shot, false, None)?,
        };
        let previous = settled.unsettled;
        if let Some(request) = self.trace_request(&outcome) {
            let tracing = Tracing { request: request.clone(), outcome, shot: settled.shot, previous };
            // Answered with the fonts when the outcome asks what its first comparison asked: the
            // page is the same settled page.
            if let Some((_, answer)) = traced.filter(|(asked, _)| *asked == request) {
                return self.apply_trace(tracing, answer);
            }
            self.phase = Phase::Trace(Box::new(tracing));
            return Ok(Step::Trace(request));
        }
        self.outcome(outcome, settled.shot, previous)
    }

    /// A masked element moved on every walk: a page that does not settle.
    fn unstable_after_walks(&mut self, settled: Settled, moved: &str) -> Result<Step> {
        if self.capture_only {
            return self.done(CallOutcome {
                message: format!(
                    "toMatchVisual({:?}): Unstable page: {moved} between the walk of the page and its screenshot, {MASK_WALKS} times; the mask cannot be placed, so nothing was stored for the merge job",
                    self.name
                ),
                ..CallOutcome::empty()
            });
        }
        // Recorded as unstable (no baseline written, approval held), naming what moved between
        // this round's shot and the one before.
        let waited_ms = millis(self.started.elapsed());
        let earlier = self.earlier.take().unwrap_or_else(|| settled.shot.clone());
        let outcome = self.compare(&settled.shot, false, Some(Unsettled { previous_png: &earlier, waited_ms }))?;
        self.outcome(outcome, settled.shot, Some(earlier))
    }

    fn done(&mut self, outcome: CallOutcome) -> Result<Step> {
        self.phase = Phase::Done;
        Ok(Step::Done(Box::new(outcome)))
    }

    fn out_of_order(&mut self, phase: Phase, given: &str) -> Error {
        let wanted = match &phase {
            Phase::Walk | Phase::WalkAfterShot(..) | Phase::BoxesWalk(_) | Phase::Rewalk { .. } => "a DOM walk",
            Phase::FirstShot | Phase::Settling(_) => "a screenshot",
            Phase::Rendered(..) => "what the page was drawn with",
            Phase::Trace(_) => "the rules of restyled elements",
            Phase::Done => "nothing: the call is decided",
        };
        self.phase = phase;
        Error::Internal(format!("capture session of {:?} was given {given} when it asked for {wanted}", self.name))
    }
}

fn millis(d: Duration) -> u64 {
    d.as_millis().try_into().unwrap_or(u64::MAX)
}

mod input;
mod outcome;
mod page;
mod rendered;
mod shots;
pub use outcome::{Attachment, AttachmentBody, CallOutcome};
pub use page::PageSettings;
#[cfg(test)]
mod tests;
mod trace;
