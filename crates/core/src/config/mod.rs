//! The settings of a comparison: one declaration of every setting (below), the sources that set
//! them, and the one rule that layers those sources into [`Settings`].
//!
//! Lowest first: the built-in defaults, Playwright's `expect.toHaveScreenshot`,
//! `.sightline/config.json`, one `toMatchVisual` call's options ([`Settings::resolve`]). Each
//! source is read into a [`SettingsLayer`] and checked through `serde_path_to_error`, so every
//! error names the source and the key at fault — nested keys included (`clip.width`) — and what
//! it expects; a key the source may not set is named with the keys it may. The TypeScript types of
//! the options (`playwright-fixtures/options.d.ts`) are generated from the same declaration.

#[macro_use]
mod declare;
mod checks;
mod styles;
pub mod typescript;

#[cfg(test)]
mod tests;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub use self::checks::closest;
use self::checks::{
    checked, not_an_object, optional_count, optional_css_color, optional_folder, optional_fraction, optional_longhands,
    optional_millis, optional_paths, optional_regions, parse_css_color, positive, unknown_key,
};
pub use self::styles::DEFAULT_STYLE_PROPERTIES;
use crate::compare::{Comparator, CompareOptions};
use crate::error::{Error, Result};
use crate::layout::BaselineLayout;
use crate::pixel::PixelOptions;
use crate::snapshot::SnapshotOptions;
use crate::verdict::Tolerance;

declare_settings! {
    /// Where results.json and the report go, relative to the project root. Default `visual-report`.
    "reportDir" report_dir: String = "visual-report".into(), in [File] read "optional_folder";
    /// Per-pixel colour tolerance, 0..1 (pixelmatch scale). Default 0.1.
    "threshold" threshold: f64 = 0.1, in [Playwright, File, Call] read "optional_fraction";
    /// Ignore pixels detected as anti-aliasing. Default true.
    "antialiasing" antialiasing: bool = true, in [File];
    /// A change of at most this many pixels passes.
    "maxDiffPixels" max_diff_pixels: u64, in [Playwright, File, Call] read "optional_count"
        skip "Option::is_none" ts "number";
    /// A change of at most this share of the page's pixels (0..1) passes; with both set, the smaller wins.
    "maxDiffPixelRatio" max_diff_pixel_ratio: f64, in [Playwright, File, Call] read "optional_fraction"
        skip "Option::is_none";
    /// Pass a diff that is likely render noise. Default false.
    "noiseAutoPass" noise_auto_pass: bool = false, in [File, Call];
    /// Fail a snapshot that another environment (a browser build, a machine) only drew
    /// differently — same DOM, styles, layout and fonts — instead of passing it, to re-approve on
    /// every browser upgrade. Default false.
    "strictRendering" strict_rendering: bool = false, in [File, Call];
    /// Capture the whole scrollable page. Default true. Given in the call on a Locator of an
    /// element that scrolls, the element's whole scrollable content.
    "fullPage" full_page: bool = true, in [File, Call];
    /// What to hide, as toHaveScreenshot's `mask`: CSS selectors (a call may also give Locators).
    /// Each element's box is painted with `maskColor` in the capture and, before comparing, in the
    /// baseline too, and left out of the DOM/style check. A call's `mask` replaces the config file's.
    "mask" mask: Vec<String> = Vec::new(), in [File, Call] ts "Array<Locator | string>";
    /// CSS selectors whose elements are left out of the pixel and DOM/style checks, without painting.
    "ignoreSelectors" ignore_selectors: Vec<String> = Vec::new(), in [File, Call];
    /// Boxes left out of the pixel check on both sides, without painting (the capture shows them;
    /// the report hatches them): `{ x, y, width, height }` in CSS pixels of the capture, from its
    /// top-left corner (page pixels for a full-page shot), as a clip is given. At most 64, not
    /// overlapping, inside the capture.
    "ignoreRegions" ignore_regions: Vec<Clip> = Vec::new(), in [File, Call] read "optional_regions"
        skip "Vec::is_empty" ts "Array<{ x: number; y: number; width: number; height: number }>";
    /// The colour masked boxes are painted with, any CSS colour. Default `#FF00FF`, as Playwright's.
    "maskColor" mask_color: String = DEFAULT_MASK_COLOR.into(), in [File, Call] read "optional_css_color";
    /// The MCP approve tools ask for a human's confirmation. Default true.
    "mcpApprovalPrompt" mcp_approval_prompt: bool = true, in [File];
    /// Computed-style longhands to digest for each element. Default the spec's 39 longhands.
    "styleProperties" style_properties: Vec<String>, in [File, Call] read "optional_longhands"
        skip "Option::is_none";
    /// Write a baseline on a snapshot's first run. Default false.
    "writeMissingBaselines" write_missing_baselines: bool = false, in [File];
    /// What a shard does: `compare` (default) or `capture-only` (the merge job compares).
    "shardMode" shard_mode: ShardMode = ShardMode::Compare, in [File];
    /// Capture only this area of the page, in CSS pixels.
    "clip" clip: Clip, in [Call] skip "Option::is_none";
    /// How long to wait for two consecutive equal shots (and for a Locator's element to be
    /// stable), in ms. Default Playwright's `expect.toHaveScreenshot.timeout`, else the expect
    /// timeout.
    "timeout" timeout: f64, in [Playwright, Call] read "optional_millis" skip "Option::is_none";
    /// Use the perceptual comparator. Default false.
    "perceptual" perceptual: bool = false, in [Call];
    /// `"disabled"` (default) stops CSS animations, transitions and Web Animations while
    /// capturing; `"allow"` leaves them.
    "animations" animations: Animations = Animations::Disabled, in [Playwright, File, Call];
    /// `"hide"` (default) hides the text caret while capturing; `"initial"` leaves it.
    "caret" caret: Caret = Caret::Hide, in [Playwright, File, Call];
    /// `"css"` (default): one image pixel per CSS pixel; `"device"`: one per device pixel.
    "scale" scale: Scale = Scale::Css, in [Playwright, File, Call];
    /// Capture with a transparent page background. Default false.
    "omitBackground" omit_background: bool = false, in [File, Call];
    /// CSS files applied while capturing (the DOM/style check sees them too). A call's paths are
    /// relative to the folder the tests run in, the config file's to the project root.
    "stylePath" style_path: Vec<String> = Vec::new(), in [Playwright, File, Call] read "optional_paths"
        skip "Vec::is_empty" ts "string | string[]";
    /// Wait for the page's images to load and decode before capturing. Default true.
    "waitForImages" wait_for_images: bool = true, in [File, Call];
    /// Wait until no element has `aria-busy="true"`; a page that stays busy fails, naming the
    /// element. Default true.
    "waitForAriaBusy" wait_for_aria_busy: bool = true, in [File, Call];
    /// Wait until the requests the page started (fetch, XHR, scripts, stylesheets, fonts, images)
    /// have finished and its DOM has stopped changing; a request still pending at the timeout
    /// makes the capture unhealthy, naming it. Default true.
    "waitForRequests" wait_for_requests: bool = true, in [File, Call];
    /// Requests never waited for, as URL globs (`https://api.example.com/events/**`: `*` within
    /// a path segment, `**` across them, `{a,b}` either): a long poll or a stream that stays
    /// open by design.
    "ignoreRequests" ignore_requests: Vec<String> = Vec::new(), in [File, Call];
    /// Hide scrollbars while capturing. Default true.
    "hideScrollbars" hide_scrollbars: bool = true, in [File, Call];
    /// Move the mouse off the page first, so nothing shows its hover state (the mouse stays
    /// there). Default false: a test that hovers on purpose captures the hover.
    "clearHover" clear_hover: bool = false, in [File, Call];
    /// Where approved baselines live under `.sightline/baselines`: a template of `{name}`,
    /// `{project}`, `{platform}`, `{testFile}`. Default `{name}/{project}`.
    "baselinePath" baseline_path: BaselineLayout = BaselineLayout::default(), in [File];
}

/// Where a [`SettingsLayer`] comes from: each source may set its own keys ([`KEYS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Playwright's `expect.toHaveScreenshot` (playwright.config, the project's or the config's):
    /// a suite moving from toHaveScreenshot keeps its tolerances. Keys the matchers do not share
    /// (`pathTemplate`, `type`, `_comparator`) are Playwright's own and left alone.
    Playwright,
    /// `.sightline/config.json`.
    File,
    /// One `toMatchVisual` call's options.
    Call,
}

/// One setting as [`KEYS`] lists it.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    /// The JSON key.
    pub name: &'static str,
    /// The sources that may set it.
    pub sources: &'static [Source],
    /// What it does (its documentation).
    pub doc: &'static str,
    /// Its TypeScript type.
    pub ts: &'static str,
    /// Unset by default.
    pub optional: bool,
}

impl Source {
    /// The keys this source may set, in declaration order.
    pub fn keys(self) -> Vec<&'static str> {
        KEYS.iter().filter(|k| k.sources.contains(&self)).map(|k| k.name).collect()
    }
}

/// toHaveScreenshot's `animations`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Animations {
    /// Finite animations finish, infinite ones are cancelled, transitions jump to their end.
    #[default]
    Disabled,
    /// The page is captured as it moves.
    Allow,
}

/// toHaveScreenshot's `caret`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Caret {
    /// The caret is transparent while capturing.
    #[default]
    Hide,
    /// The caret is left as the page draws it.
    Initial,
}

/// toHaveScreenshot's `scale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// One image pixel per CSS pixel, whatever the device scale factor.
    #[default]
    Css,
    /// One image pixel per device pixel.
    Device,
}

/// What a shard does (01-product.md, sharding).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ShardMode {
    /// Compare the slice and keep partial results.
    #[default]
    Compare,
    /// Only capture; the merge job compares.
    CaptureOnly,
}

/// The area of the page to capture, in CSS pixels (Playwright's `clip`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clip {
    pub x: f64,
    pub y: f64,
    #[serde(deserialize_with = "positive")]
    pub width: f64,
    #[serde(deserialize_with = "positive")]
    pub height: f64,
}

/// Playwright's default `maskColor`.
pub const DEFAULT_MASK_COLOR: &str = "#FF00FF";
const DEFAULT_MASK_RGBA: [u8; 4] = [255, 0, 255, 255];

/// Where Playwright's settings are named in errors.
const PLAYWRIGHT_PLACE: &str = "playwright.config expect.toHaveScreenshot";
/// Where a call's options are named in errors.
const CALL_PLACE: &str = "toMatchVisual options";

impl SettingsLayer {
    /// One `toMatchVisual` call's options as the matcher passes them: a JSON object, `null` for none.
    pub fn call(value: serde_json::Value) -> Result<Self> {
        if value.is_null() {
            return Ok(Self::default());
        }
        Self::checked(value, Source::Call, CALL_PLACE)
    }

    /// `expect.toHaveScreenshot` as Playwright resolved it (`null` for none): only the keys both
    /// matchers share are read, each checked as a call's.
    pub fn playwright(value: serde_json::Value) -> Result<Self> {
        let object = match value {
            serde_json::Value::Null => return Ok(Self::default()),
            serde_json::Value::Object(object) => object,
            _ => {
                return Err(Error::InvalidInput(format!(
                    "{PLAYWRIGHT_PLACE}: expected an object of toHaveScreenshot options"
                )));
            }
        };
        let shared = Source::Playwright.keys();
        let picked: serde_json::Map<String, serde_json::Value> =
            object.into_iter().filter(|(key, value)| shared.contains(&key.as_str()) && !value.is_null()).collect();
        Self::checked(serde_json::Value::Object(picked), Source::Playwright, PLAYWRIGHT_PLACE)
    }

    /// `<root>/.sightline/config.json`, checked, its relative `stylePath`s resolved against the
    /// root; an empty layer when there is no file.
    pub fn file(root: &Path) -> Result<Self> {
        let path = root.join(".sightline").join("config.json");
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(Error::io(&path, e)),
        };
        let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
            Error::InvalidInput(format!(
                "{}: not valid JSON ({e}); fix it or delete it to use the defaults",
                path.display()
            ))
        })?;
        let mut layer = Self::checked(value, Source::File, &path.display().to_string())?;
        // The file's stylesheets are the project's: relative to the root, not to where tests run.
        for style in layer.style_path.iter_mut().flatten() {
            if Path::new(style.as_str()).is_relative() {
                *style = root.join(&*style).display().to_string();
            }
        }
        Ok(layer)
    }

    /// Reads `value` as the keys `source` may set; an error names `place` and the key.
    fn checked(value: serde_json::Value, source: Source, place: &str) -> Result<Self> {
        let Some(object) = value.as_object() else { return Err(not_an_object(place)) };
        let known = source.keys();
        if let Some(key) = object.keys().find(|key| !known.contains(&key.as_str())) {
            return Err(Error::InvalidInput(format!("{place}: {}", unknown_key(key, key, &known))));
        }
        checked(value, place)
    }
}

impl Settings {
    /// The one layering rule: the built-in defaults, then Playwright's `expect.toHaveScreenshot`,
    /// then `.sightline/config.json`, then the call's options; each key set in a higher layer wins.
    pub fn resolve(playwright: &SettingsLayer, file: &SettingsLayer, call: &SettingsLayer) -> Self {
        Self::default().over(playwright).over(file).over(call)
    }

    /// The config file's settings (no call, no Playwright): what the front-ends that have no call
    /// use, such as the reporter, the review commands and the MCP server.
    pub fn read(root: &Path) -> Result<Self> {
        Ok(Self::default().over(&SettingsLayer::file(root)?))
    }

    /// One call's settings for `root`: its config file between `playwright` and `call`.
    pub fn read_for_call(root: &Path, playwright: &SettingsLayer, call: &SettingsLayer) -> Result<Self> {
        Ok(Self::resolve(playwright, &SettingsLayer::file(root)?, call))
    }

    /// The settings a config file may set, as JSON (unset optional keys left out): results.json's
    /// `run.config`.
    pub fn file_json(&self) -> serde_json::Map<String, serde_json::Value> {
        let file_keys = Source::File.keys();
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(mut object)) => {
                object.retain(|key, _| file_keys.contains(&key.as_str()));
                object
            }
            _ => unreachable!("settings serialise to an object"),
        }
    }

    /// The comparison options these settings ask for: the one owner of the settings → options
    /// rule, used by the matcher, `sightline compare` and the report.
    pub fn snapshot_options(&self) -> SnapshotOptions {
        SnapshotOptions {
            compare: CompareOptions {
                pixel: PixelOptions {
                    threshold: self.threshold,
                    include_aa: !self.antialiasing,
                    ..PixelOptions::default()
                },
                comparator: if self.perceptual { Comparator::Perceptual } else { Comparator::Pixelmatch },
                ..CompareOptions::default()
            },
            tolerance: Tolerance {
                max_diff_pixels: self.max_diff_pixels,
                max_diff_pixel_ratio: self.max_diff_pixel_ratio,
                noise_auto_pass: self.noise_auto_pass,
                strict_rendering: self.strict_rendering,
            },
            mask_color: parse_css_color(&self.mask_color).unwrap_or(DEFAULT_MASK_RGBA),
        }
    }

    /// The computed-style longhands to collect for each element: `styleProperties` when set,
    /// else [`DEFAULT_STYLE_PROPERTIES`].
    pub fn style_properties(&self) -> Vec<String> {
        match &self.style_properties {
            Some(list) => list.clone(),
            None => DEFAULT_STYLE_PROPERTIES.iter().map(|p| p.to_string()).collect(),
        }
    }
}

impl Default for SnapshotOptions {
    /// The options of the default settings (no config file, no call options).
    fn default() -> Self {
        Settings::default().snapshot_options()
    }
}
