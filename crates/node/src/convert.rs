//! The binding types JavaScript sees and their conversions to and from the core's types, in one
//! place. napi generates `index.d.ts` from these declarations, so the TypeScript of every
//! option and result follows the Rust: a drift test fails when the committed file differs.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use sightline_core::capture::UpdateMode;
use sightline_core::config;
use sightline_core::health::{AssetKind, HealthReason};
use sightline_core::session;
use sightline_core::verdict::Status;

/// An asset that failed while the page was captured, or a request still pending when it was shot.
#[napi(object)]
pub struct AssetFailure {
    /// `font`, `stylesheet`, `image` or `request` (fetch, XHR, a script).
    pub kind: String,
    pub url: String,
    /// e.g. `HTTP 404`, `net::ERR_CONNECTION_REFUSED`, `decode failed`; for a pending request,
    /// its method.
    pub detail: String,
    /// The request had not finished after the call waited this long for it, in ms.
    pub pending_ms: Option<f64>,
}

/// The page's asset failures as the core reads them; an unknown kind is refused, naming it.
pub fn health_reasons(failures: &[AssetFailure]) -> sightline_core::Result<Vec<HealthReason>> {
    failures
        .iter()
        .map(|f| {
            let kind = match f.kind.as_str() {
                "font" => AssetKind::Font,
                "stylesheet" => AssetKind::Stylesheet,
                "image" => AssetKind::Image,
                "request" => AssetKind::Request,
                other => {
                    return Err(sightline_core::Error::InvalidInput(format!(
                        "failure kind {other:?} is not one of font, stylesheet, image, request"
                    )));
                }
            };
            Ok(match f.pending_ms {
                Some(ms) => HealthReason::pending(kind, &f.url, &f.detail, ms.max(0.0).round() as u64),
                None => HealthReason::failed(kind, &f.url, &f.detail),
            })
        })
        .collect()
}

/// Playwright's `updateSnapshots` (absent: its implicit `default`).
pub fn update_mode(mode: Option<&str>) -> sightline_core::Result<UpdateMode> {
    UpdateMode::parse(mode.unwrap_or("default"))
}

/// A snapshot's outcome, as results.json spells it.
#[napi(string_enum = "lowercase")]
pub enum SnapshotStatus {
    Passed,
    Changed,
    New,
    Missing,
    Written,
    /// The baseline or the capture cannot be read: not compared.
    Error,
}

impl From<Status> for SnapshotStatus {
    fn from(status: Status) -> Self {
        match status {
            Status::Passed => Self::Passed,
            Status::Changed => Self::Changed,
            Status::New => Self::New,
            Status::Missing => Self::Missing,
            Status::Written => Self::Written,
            Status::Error => Self::Error,
        }
    }
}

/// One file the test attaches.
#[napi(discriminant = "kind", discriminant_case = "camelCase")]
pub enum Attachment {
    /// Attached as it is.
    Inline { name: String, content_type: String, body: Buffer },
    /// Written as a file of its name in the test's output folder and attached by path.
    OutputFile { name: String, content_type: String, body: Buffer },
    /// A file of the project, attached by path.
    ProjectFile { name: String, content_type: String, path: String },
}

impl From<session::Attachment> for Attachment {
    fn from(a: session::Attachment) -> Self {
        let (name, content_type) = (a.name, a.content_type.to_string());
        match a.body {
            session::AttachmentBody::Inline(body) => Self::Inline { name, content_type, body: body.into() },
            session::AttachmentBody::OutputFile(body) => Self::OutputFile { name, content_type, body: body.into() },
            session::AttachmentBody::ProjectFile(path) => {
                Self::ProjectFile { name, content_type, path: path.display().to_string() }
            }
        }
    }
}

/// toHaveScreenshot's `animations`.
#[napi(string_enum = "lowercase")]
#[derive(Clone, Copy)]
pub enum Animations {
    Disabled,
    Allow,
}

/// toHaveScreenshot's `caret`.
#[napi(string_enum = "lowercase")]
#[derive(Clone, Copy)]
pub enum Caret {
    Hide,
    Initial,
}

/// toHaveScreenshot's `scale`.
#[napi(string_enum = "lowercase")]
#[derive(Clone, Copy)]
pub enum Scale {
    Css,
    Device,
}

/// The area of the page to capture, in CSS pixels.
#[napi(object)]
#[derive(Clone)]
pub struct Clip {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// How a call prepares, walks and shoots its page: its resolved options.
#[napi(object)]
#[derive(Clone)]
pub struct PageSettings {
    /// Capture the whole scrollable page.
    pub full_page: bool,
    /// Capture only this area.
    pub clip: Option<Clip>,
    pub scale: Scale,
    /// Capture with a transparent page background.
    pub omit_background: bool,
    pub animations: Animations,
    pub caret: Caret,
    pub hide_scrollbars: bool,
    /// Move the mouse off the page first.
    pub clear_hover: bool,
    pub wait_for_images: bool,
    pub wait_for_aria_busy: bool,
    /// Wait for the page's own requests (fetch, XHR, scripts, stylesheets, fonts, images) to
    /// finish and its DOM to stop changing.
    pub wait_for_requests: bool,
    /// URL globs of requests not waited for (a long poll, a stream).
    pub ignore_requests: Vec<String>,
    /// The `stylePath` files' CSS, joined, applied while capturing.
    pub css: String,
    /// How long to wait for the page, in ms.
    pub timeout: f64,
    /// CSS selectors whose elements are masked (the call's mask Locators come on top).
    pub mask: Vec<String>,
    /// CSS selectors whose elements are left out of the comparison.
    pub ignore_selectors: Vec<String>,
    /// Boxes of the capture left out of the comparison (the DOM record carries them).
    pub ignore_regions: Vec<Clip>,
    /// A Locator capture of an element that scrolls takes its whole scrollable content: the
    /// call's own options ask for `fullPage: true`.
    pub scroll_content: bool,
    /// The computed styles the DOM walk records (longhands).
    pub style_properties: Vec<String>,
}

impl From<session::PageSettings<'_>> for PageSettings {
    fn from(page: session::PageSettings<'_>) -> Self {
        let c = page.settings;
        Self {
            full_page: c.full_page,
            clip: c.clip.map(|c| Clip { x: c.x, y: c.y, width: c.width, height: c.height }),
            scale: match c.scale {
                config::Scale::Css => Scale::Css,
                config::Scale::Device => Scale::Device,
            },
            omit_background: c.omit_background,
            animations: match c.animations {
                config::Animations::Disabled => Animations::Disabled,
                config::Animations::Allow => Animations::Allow,
            },
            caret: match c.caret {
                config::Caret::Hide => Caret::Hide,
                config::Caret::Initial => Caret::Initial,
            },
            hide_scrollbars: c.hide_scrollbars,
            clear_hover: c.clear_hover,
            wait_for_images: c.wait_for_images,
            wait_for_aria_busy: c.wait_for_aria_busy,
            wait_for_requests: c.wait_for_requests,
            ignore_requests: c.ignore_requests.clone(),
            css: page.css.to_string(),
            timeout: page.timeout_ms,
            mask: c.mask.clone(),
            ignore_selectors: c.ignore_selectors.clone(),
            ignore_regions: c
                .ignore_regions
                .iter()
                .map(|r| Clip { x: r.x, y: r.y, width: r.width, height: r.height })
                .collect(),
            scroll_content: page.scroll_content,
            style_properties: c.style_properties(),
        }
    }
}
