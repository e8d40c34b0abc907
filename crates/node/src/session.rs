//! `CaptureSession`: one `toMatchVisual` call, opened by the matcher and driven by it. The core's
//! [`sightline_core::session::CaptureSession`] decides every step; this class only carries the
//! page's answers (a DOM walk, a screenshot) in and the next step out, off the event loop.

use std::sync::{Arc, Mutex, PoisonError};

use napi::bindgen_prelude::*;
use napi_derive::napi;
use sightline_core::environment;
use sightline_core::health::AssetKind;
use sightline_core::session::{self, CallRequest, CallTest};

use crate::convert::{AssetFailure, Attachment, PageSettings, SnapshotStatus, health_reasons, update_mode};
use crate::work::{Work, guarded};

/// One `toMatchVisual` call as the matcher knows it when the call starts.
#[napi(object)]
pub struct CallInput {
    /// Project root: `.sightline/` lives here.
    pub root: String,
    /// The call's name: a string or Playwright's name array; absent for an unnamed call.
    #[napi(ts_type = "string | string[]")]
    pub name: Option<serde_json::Value>,
    /// For an unnamed call: which of the test's unnamed calls this is, from 1.
    pub unnamed_index: Option<u32>,
    /// Playwright project name.
    pub project: String,
    /// Playwright's `expect.toHaveScreenshot` config for the test's project.
    #[napi(ts_type = "Record<string, unknown>")]
    pub playwright_defaults: Option<serde_json::Value>,
    /// The call's options, its name left out. A mask Locator stands as `{ locator: 'this-page' }`
    /// (or `'other-page'`), any other entry that is not a string as `{ type: typeof entry }`.
    #[napi(ts_type = "Record<string, unknown>")]
    pub options: Option<serde_json::Value>,
    /// Playwright's `updateSnapshots`: `none`, `default`, `missing`, `changed`, `all`.
    pub update_snapshots: Option<String>,
    /// The call is `expect(…).not.toMatchVisual(…)`.
    pub is_not: Option<bool>,
    /// Playwright's expect timeout for the call, in ms.
    pub expect_timeout: Option<f64>,
    /// The run is one shard of several.
    pub sharded: Option<bool>,
    /// `--ignore-snapshots` or the project's `ignoreSnapshots`.
    pub ignore_snapshots: Option<bool>,
    /// Identifies the test run (all workers share it).
    pub run_id: String,
    /// Playwright's `testInfo.testId`.
    pub test_id: String,
    /// The spec file, relative to the Playwright config's folder.
    pub test_file: String,
    /// The describe titles and the test's title.
    pub test_title_path: Vec<String>,
    /// The test's line in its file.
    pub test_line: Option<u32>,
    /// `testInfo.retry`.
    pub retry: Option<u32>,
}

/// Where the page is rendered, as the matcher tells from Playwright and, in Chromium, CDP.
#[napi(object)]
pub struct CaptureEnvironment {
    /// `chromium`, `firefox` or `webkit`.
    pub browser: String,
    /// The browser's full version (`browser.version()`).
    pub browser_version: String,
    /// Node's `process.platform`.
    pub platform: String,
    /// The browser's launch arguments (the project's `launchOptions.args`): the engine keeps
    /// those that change rasterisation.
    pub launch_args: Option<Vec<String>>,
}

/// The faces that drew the text of one computed `font-family`, most glyphs first.
#[napi(object)]
pub struct RenderedFont {
    pub family: String,
    pub faces: Vec<FontFace>,
}

/// A web font, an image or a stylesheet the page loaded, and a digest of its bytes.
#[napi(object)]
pub struct LoadedAsset {
    /// `font`, `image` or `stylesheet`.
    pub kind: String,
    pub url: String,
    /// A digest of the response body (hex).
    pub digest: String,
}

impl TryFrom<LoadedAsset> for environment::Asset {
    type Error = sightline_core::Error;

    fn try_from(asset: LoadedAsset) -> sightline_core::Result<Self> {
        let kind = match asset.kind.as_str() {
            "font" => AssetKind::Font,
            "image" => AssetKind::Image,
            "stylesheet" => AssetKind::Stylesheet,
            other => {
                return Err(sightline_core::Error::InvalidInput(format!(
                    "toMatchVisual: asset kind must be font, image or stylesheet, got {other:?}"
                )));
            }
        };
        Ok(Self { kind, url: asset.url, digest: asset.digest })
    }
}

/// One face that drew text: a platform font's family name, or a web font's (`web`).
#[napi(object)]
pub struct FontFace {
    pub name: String,
    pub web: Option<bool>,
}

impl From<RenderedFont> for environment::RenderedFont {
    fn from(font: RenderedFont) -> Self {
        let faces = font.faces.into_iter();
        Self {
            family: font.family,
            faces: faces
                .map(|face| environment::FontFace { name: face.name, web: face.web.unwrap_or(false) })
                .collect(),
        }
    }
}

impl From<CaptureEnvironment> for environment::Environment {
    fn from(input: CaptureEnvironment) -> Self {
        Self {
            browser: input.browser,
            browser_version: input.browser_version,
            platform: input.platform,
            // The page's DOM record says its device pixel ratio; set from it when recorded.
            device_scale_factor: 1.0,
            // Asked for later, only when the capture will be stored (a `rendered` step).
            fonts: Vec::new(),
            rendering_switches: environment::rendering_switches(&input.launch_args.unwrap_or_default()),
            assets: Vec::new(),
            // Set with the assets, from the page's DOM record.
            page_url: String::new(),
        }
    }
}

/// How the matcher ends the call.
#[napi(object)]
pub struct CallOutcome {
    /// The matcher's `pass` (Playwright inverts it under `.not`).
    pub pass: bool,
    /// The matcher's message.
    pub message: String,
    /// The snapshot's status, when the call compared it.
    pub status: Option<SnapshotStatus>,
    /// The test runs on and fails at its end with this message (a new snapshot).
    pub fail_at_end: Option<String>,
    /// What the test attaches, in order.
    pub attachments: Vec<Attachment>,
}

/// The element of the DOM record whose fonts stand for its computed `font-family`.
#[napi(object)]
pub struct FontElement {
    pub family: String,
    /// Its selector in the record, which the document answers.
    pub selector: String,
}

/// Restyled elements whose rules the page is asked for, by their selectors in the DOM record,
/// with the declarations of these names (and every custom property).
#[napi(object)]
pub struct TraceAsk {
    pub selectors: Vec<String>,
    pub names: Vec<String>,
}

/// What the session asks of the page next.
#[napi(discriminant = "kind", discriminant_case = "lowercase")]
pub enum SessionStep {
    /// Walk the DOM collecting these computed styles (none: boxes only) and give the record to
    /// `walked`.
    Walk { style_properties: Vec<String> },
    /// Wait `afterMs`, shoot the page and give the PNG to `shot`.
    Shoot { after_ms: u32 },
    /// Find the fonts that drew the text of at most `maxFamilies` computed `font-family` values
    /// and digests of at most `maxAssets` fonts, images and stylesheets the page loaded, and give
    /// them to `rendered`. `fontElements` names, from the DOM record, the element to ask about
    /// for each family; null when the record cannot say (the page then finds one per family).
    /// `trace`, when the snapshot is failing with restyled elements, is a `trace` step asked in
    /// the same round: its answer goes to `rendered` too.
    Rendered { max_families: u32, max_assets: u32, font_elements: Option<Vec<FontElement>>, trace: Option<TraceAsk> },
    /// Find which rules the restyled elements (by their selectors in the DOM record) matched,
    /// with the declarations of these names (and every custom property), and give them to
    /// `traced`.
    Trace { selectors: Vec<String>, names: Vec<String> },
    /// The call is decided.
    Done { outcome: CallOutcome },
}

impl From<session::Step> for SessionStep {
    fn from(step: session::Step) -> Self {
        match step {
            session::Step::Walk { style_properties } => Self::Walk { style_properties },
            session::Step::Shoot { after_ms } => Self::Shoot { after_ms: after_ms.try_into().unwrap_or(u32::MAX) },
            session::Step::Rendered { max_families, max_assets, font_elements, trace } => Self::Rendered {
                max_families: max_families.try_into().unwrap_or(u32::MAX),
                max_assets: max_assets.try_into().unwrap_or(u32::MAX),
                font_elements: font_elements.map(|found| {
                    found.into_iter().map(|f| FontElement { family: f.family, selector: f.selector }).collect()
                }),
                trace: trace.map(|request| TraceAsk { selectors: request.selectors, names: request.names }),
            },
            session::Step::Trace(request) => Self::Trace { selectors: request.selectors, names: request.names },
            session::Step::Done(outcome) => {
                let session::CallOutcome { pass, message, status, fail_at_end, attachments } = *outcome;
                Self::Done {
                    outcome: CallOutcome {
                        pass,
                        message,
                        status: status.map(Into::into),
                        fail_at_end,
                        attachments: attachments.into_iter().map(Into::into).collect(),
                    },
                }
            }
        }
    }
}

/// One `toMatchVisual` call: `new CaptureSession(input)`, then `start()` and the page's answers
/// to each step (`walked`, `shot`, `rendered`, `traced`) until the step is `done`.
#[napi]
pub struct CaptureSession {
    core: Arc<Mutex<session::CaptureSession>>,
    name: String,
    page: PageSettings,
    first: Option<session::Step>,
}

#[napi]
impl CaptureSession {
    /// Names the snapshot, resolves the call's options over `.sightline/config.json` (read once)
    /// and Playwright's defaults, and starts reading the baseline. A bad name or option throws,
    /// naming it.
    #[napi(constructor)]
    pub fn new(input: CallInput) -> Result<Self> {
        let (core, first) = guarded(|| {
            session::CaptureSession::open(CallRequest {
                root: input.root.into(),
                name: input.name,
                unnamed_index: input.unnamed_index.unwrap_or(1),
                project: input.project,
                playwright: input.playwright_defaults.unwrap_or_default(),
                options: input.options.unwrap_or_default(),
                update: update_mode(input.update_snapshots.as_deref())?,
                is_not: input.is_not.unwrap_or(false),
                expect_timeout_ms: input.expect_timeout,
                sharded: input.sharded.unwrap_or(false),
                ignore_snapshots: input.ignore_snapshots.unwrap_or(false),
                test: CallTest {
                    run_id: input.run_id,
                    test_id: input.test_id,
                    file: input.test_file,
                    title_path: input.test_title_path,
                    line: input.test_line,
                    retry: input.retry.unwrap_or(0),
                },
            })
        })?;
        Ok(Self {
            name: core.name().to_string(),
            page: core.page().into(),
            core: Arc::new(Mutex::new(core)),
            first: Some(first),
        })
    }

    /// The snapshot's name.
    #[napi(getter)]
    pub fn name(&self) -> String {
        self.name.clone()
    }

    /// How to prepare, walk and shoot the page.
    #[napi(getter)]
    pub fn page(&self) -> PageSettings {
        self.page.clone()
    }

    /// The first step (once).
    #[napi]
    pub fn start(&mut self) -> Result<SessionStep> {
        self.first.take().map(Into::into).ok_or_else(|| Error::from_reason("start() was already called"))
    }

    /// The page's DOM record (the collector's JSON) for a `walk` step, and where the page is
    /// rendered; resolves to the next step.
    #[napi(ts_return_type = "Promise<SessionStep>")]
    pub fn walked(&self, dom: String, environment: Option<CaptureEnvironment>) -> AsyncTask<Work<SessionStep>> {
        let core = self.core.clone();
        let environment = environment.map(Into::into);
        Work::run(move || step(&core, |session| session.walked(dom, environment)))
    }

    /// What the page was drawn with, for a `rendered` step: the fonts that drew its text (none
    /// where the browser cannot say) and the assets it loaded; with the step's `trace`, the rules
    /// and the error as `traced` takes them. Resolves to the next step.
    #[napi(ts_return_type = "Promise<SessionStep>")]
    pub fn rendered(
        &self,
        fonts: Vec<RenderedFont>,
        assets: Vec<LoadedAsset>,
        rules: Option<String>,
        trace_error: Option<String>,
    ) -> AsyncTask<Work<SessionStep>> {
        let core = self.core.clone();
        let fonts = fonts.into_iter().map(Into::into).collect();
        let traced = session::TraceAnswer { rules, error: trace_error };
        Work::run(move || {
            let assets = guarded(|| assets.into_iter().map(TryInto::try_into).collect())?;
            step(&core, |session| session.rendered(fonts, assets, traced))
        })
    }

    /// The rules the restyled elements of a `trace` step matched, as JSON (`{ sheets, elements,
    /// sourceMaps }`), or none where the browser cannot say, and the first line of the error
    /// where asking the page failed; resolves to the next step.
    #[napi(ts_return_type = "Promise<SessionStep>")]
    pub fn traced(&self, rules: Option<String>, error: Option<String>) -> AsyncTask<Work<SessionStep>> {
        let core = self.core.clone();
        Work::run(move || step(&core, |session| session.traced(rules, error)))
    }

    /// Resolves once the decided call's files (its capture and evidence) are written, which
    /// happens while the matcher attaches and puts the page back; rejects, naming the file, when
    /// they could not be. Call it once the step is `done`, before the call returns.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close(&self) -> AsyncTask<Work<()>> {
        let core = self.core.clone();
        Work::run(move || {
            let mut session = core.lock().unwrap_or_else(PoisonError::into_inner);
            guarded(|| session.close())
        })
    }

    /// The screenshot (PNG) for a `shoot` step, the assets that failed on the page so far, and
    /// where the page is rendered when no walk told it yet (the page is shot before it is walked
    /// when it may be the baseline's); resolves to the next step.
    #[napi(ts_return_type = "Promise<SessionStep>")]
    pub fn shot(
        &self,
        png: Buffer,
        failures: Vec<AssetFailure>,
        environment: Option<CaptureEnvironment>,
    ) -> AsyncTask<Work<SessionStep>> {
        let core = self.core.clone();
        let png = png.to_vec();
        let environment = environment.map(Into::into);
        Work::run(move || {
            let failures = guarded(|| health_reasons(&failures))?;
            step(&core, |session| session.shot(png, failures, environment))
        })
    }
}

fn step(
    core: &Mutex<session::CaptureSession>,
    f: impl FnOnce(&mut session::CaptureSession) -> sightline_core::Result<session::Step>,
) -> Result<SessionStep> {
    let mut session = core.lock().unwrap_or_else(PoisonError::into_inner);
    guarded(|| f(&mut session)).map(Into::into)
}
