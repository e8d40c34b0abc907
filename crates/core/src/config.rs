//! The settings of a comparison and the one rule that turns them into [`SnapshotOptions`].
//!
//! Settings are `.sightline/config.json` (every key optional, the spec's defaults; 01-product.md)
//! with one `toMatchVisual` call's [`Overrides`] on top. Both are checked by serde through
//! `serde_path_to_error`, so every error names the key at fault — nested keys included
//! (`clip.width`) — and what it expects; unknown keys list the known ones. Every front-end
//! resolves settings with [`load_settings`]: the matcher through the addon, the reporter,
//! `sightline compare` / `merge` and the MCP server.

use std::path::Path;

use serde::de::Deserializer;
use serde::{Deserialize, Serialize};

use crate::compare::{Comparator, CompareOptions};
use crate::error::{Error, Result};
use crate::layout::BaselineLayout;
use crate::pixel::PixelOptions;
use crate::snapshot::SnapshotOptions;
use crate::verdict::Tolerance;

/// `.sightline/config.json`, with the spec's defaults for absent keys. Inside [`Settings`] it
/// holds the values after a call's overrides.
/// The spec's default style list as longhands (Chromium returns "" for a shorthand whose sides
/// differ): what the matcher collects for every element unless `styleProperties` says otherwise.
pub const DEFAULT_STYLE_PROPERTIES: [&str; 39] = [
    "color",
    "background-color",
    "border-top-color",
    "border-right-color",
    "border-bottom-color",
    "border-left-color",
    "outline-color",
    "fill",
    "stroke",
    "font-family",
    "font-size",
    "font-weight",
    "font-style",
    "line-height",
    "letter-spacing",
    "border-top-width",
    "border-right-width",
    "border-bottom-width",
    "border-left-width",
    "border-top-style",
    "border-right-style",
    "border-bottom-style",
    "border-left-style",
    "border-top-left-radius",
    "border-top-right-radius",
    "border-bottom-right-radius",
    "border-bottom-left-radius",
    "padding-top",
    "padding-right",
    "padding-bottom",
    "padding-left",
    "margin-top",
    "margin-right",
    "margin-bottom",
    "margin-left",
    "display",
    "opacity",
    "visibility",
    "box-shadow",
];

/// Shorthands people are likely to list, with the longhands to use instead: Chromium serialises
/// a shorthand as "" when its sides differ, which would hide real changes.
const SHORTHANDS: [(&str, &str); 15] = [
    ("margin", "margin-top, margin-right, margin-bottom, margin-left"),
    ("padding", "padding-top, padding-right, padding-bottom, padding-left"),
    ("border", "border-{top,right,bottom,left}-{width,style,color}"),
    ("border-color", "border-{top,right,bottom,left}-color"),
    ("border-width", "border-{top,right,bottom,left}-width"),
    ("border-style", "border-{top,right,bottom,left}-style"),
    ("border-radius", "border-{top-left,top-right,bottom-right,bottom-left}-radius"),
    ("border-top", "border-top-width, border-top-style, border-top-color"),
    ("border-right", "border-right-width, border-right-style, border-right-color"),
    ("border-bottom", "border-bottom-width, border-bottom-style, border-bottom-color"),
    ("border-left", "border-left-width, border-left-style, border-left-color"),
    ("font", "font-family, font-size, font-weight, font-style, line-height"),
    ("background", "background-color, background-image, …"),
    ("outline", "outline-color, outline-width, outline-style"),
    ("inset", "top, right, bottom, left"),
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Config {
    /// Where results.json and the report go, relative to the root. Default `visual-report`.
    #[serde(deserialize_with = "folder")]
    pub report_dir: String,
    /// Per-pixel colour tolerance, 0..1 (pixelmatch scale). Default 0.1.
    #[serde(deserialize_with = "fraction")]
    pub threshold: f64,
    /// Ignore pixels detected as anti-aliasing. Default true.
    pub antialiasing: bool,
    /// A change of at most this many pixels passes.
    #[serde(deserialize_with = "optional_count", skip_serializing_if = "Option::is_none")]
    pub max_diff_pixels: Option<u64>,
    /// A change of at most this share of the canvas (0..1) passes.
    #[serde(deserialize_with = "optional_fraction", skip_serializing_if = "Option::is_none")]
    pub max_diff_pixel_ratio: Option<f64>,
    /// Pass a diff that is likely render noise. Default false.
    pub noise_auto_pass: bool,
    /// Capture the whole scrollable page. Default true.
    pub full_page: bool,
    /// CSS selectors whose elements are painted over with `mask_color` on both images and left
    /// out of the DOM check (a call's `mask` may also hold Locators; the matcher resolves them).
    pub mask: Vec<String>,
    /// CSS selectors whose elements are left out of the pixel and DOM checks, not painted.
    pub ignore_selectors: Vec<String>,
    /// The colour masked boxes are painted with, any CSS colour. Default `#FF00FF` (Playwright's).
    #[serde(deserialize_with = "css_color")]
    pub mask_color: String,
    /// The MCP approve tools ask for a human's confirmation. Default true.
    pub mcp_approval_prompt: bool,
    /// Computed-style longhands to digest; default [`DEFAULT_STYLE_PROPERTIES`].
    #[serde(deserialize_with = "optional_longhands", skip_serializing_if = "Option::is_none")]
    pub style_properties: Option<Vec<String>>,
    /// Write a baseline on a snapshot's first run. Default false.
    pub write_missing_baselines: bool,
    /// What a shard does. Default `compare`.
    pub shard_mode: ShardMode,
    /// Stop CSS animations, transitions and Web Animations before capturing. Default `disabled`.
    pub animations: Animations,
    /// Hide the text caret. Default `hide`.
    pub caret: Caret,
    /// One image pixel per CSS pixel, or per device pixel. Default `css`.
    pub scale: Scale,
    /// Capture with a transparent page background. Default false.
    pub omit_background: bool,
    /// Stylesheets applied while capturing (the DOM walk sees them too). Relative paths in the
    /// config file are resolved against the project root when it is read.
    #[serde(deserialize_with = "paths", skip_serializing_if = "Vec::is_empty")]
    pub style_path: Vec<String>,
    /// Wait for the page's images to load and decode before capturing. Default true.
    pub wait_for_images: bool,
    /// Wait until no element has `aria-busy="true"` before capturing; a page that stays busy
    /// fails the call, naming the element. Default true.
    pub wait_for_aria_busy: bool,
    /// Hide scrollbars while capturing. Default true.
    pub hide_scrollbars: bool,
    /// Move the mouse off the page before capturing, so no element shows its hover state; the
    /// mouse stays there. Default false: a test that hovers on purpose captures the hover.
    pub clear_hover: bool,
    /// Where approved baselines live under `.sightline/baselines` (a template of `{name}`,
    /// `{project}`, `{platform}`, `{testFile}`). Default `{name}/{project}`.
    pub baseline_path: BaselineLayout,
    /// The keys the config file itself set: Playwright's defaults apply only under the others.
    #[serde(skip)]
    pub file_keys: Vec<String>,
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

impl Default for Config {
    fn default() -> Self {
        Self {
            report_dir: "visual-report".into(),
            threshold: 0.1,
            antialiasing: true,
            max_diff_pixels: None,
            max_diff_pixel_ratio: None,
            noise_auto_pass: false,
            full_page: true,
            mask: Vec::new(),
            ignore_selectors: Vec::new(),
            mask_color: DEFAULT_MASK_COLOR.into(),
            mcp_approval_prompt: true,
            style_properties: None,
            write_missing_baselines: false,
            shard_mode: ShardMode::Compare,
            animations: Animations::Disabled,
            caret: Caret::Hide,
            scale: Scale::Css,
            omit_background: false,
            style_path: Vec::new(),
            wait_for_images: true,
            wait_for_aria_busy: true,
            hide_scrollbars: true,
            clear_hover: false,
            baseline_path: BaselineLayout::default(),
            file_keys: Vec::new(),
        }
    }
}

/// One `toMatchVisual` call's options: each key set replaces the config file's value for this
/// call; `clip`, `timeout` and `perceptual` exist only per call.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Overrides {
    #[serde(deserialize_with = "optional_fraction")]
    pub threshold: Option<f64>,
    #[serde(deserialize_with = "optional_count")]
    pub max_diff_pixels: Option<u64>,
    #[serde(deserialize_with = "optional_fraction")]
    pub max_diff_pixel_ratio: Option<f64>,
    pub noise_auto_pass: Option<bool>,
    pub full_page: Option<bool>,
    pub mask: Option<Vec<String>>,
    pub ignore_selectors: Option<Vec<String>>,
    #[serde(deserialize_with = "optional_css_color")]
    pub mask_color: Option<String>,
    #[serde(deserialize_with = "optional_longhands")]
    pub style_properties: Option<Vec<String>>,
    pub clip: Option<Clip>,
    #[serde(deserialize_with = "optional_millis")]
    pub timeout: Option<f64>,
    pub perceptual: Option<bool>,
    pub animations: Option<Animations>,
    pub caret: Option<Caret>,
    pub scale: Option<Scale>,
    pub omit_background: Option<bool>,
    #[serde(deserialize_with = "optional_paths")]
    pub style_path: Option<Vec<String>>,
    pub wait_for_images: Option<bool>,
    pub wait_for_aria_busy: Option<bool>,
    pub hide_scrollbars: Option<bool>,
    pub clear_hover: Option<bool>,
}

/// Playwright's `expect.toHaveScreenshot` settings (playwright.config, the project's or the
/// config's): defaults under `.sightline/config.json` and a call's options, so a suite moving
/// from toHaveScreenshot keeps its tolerances. Only the keys both matchers share are read; the
/// others (`pathTemplate`, `type`, `_comparator`) are Playwright's own.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlaywrightDefaults {
    overrides: Overrides,
    json: Option<serde_json::Value>,
}

/// The `expect.toHaveScreenshot` keys that are also settings here.
pub const PLAYWRIGHT_KEYS: [&str; 7] =
    ["threshold", "maxDiffPixels", "maxDiffPixelRatio", "animations", "caret", "scale", "stylePath"];

impl PlaywrightDefaults {
    /// `expect.toHaveScreenshot` as Playwright resolved it (`null` for none), checked like a
    /// call's options: an error names `playwright.config expect.toHaveScreenshot` and the key.
    pub fn from_json(value: serde_json::Value) -> Result<Self> {
        const PLACE: &str = "playwright.config expect.toHaveScreenshot";
        let object = match value {
            serde_json::Value::Null => return Ok(Self::default()),
            serde_json::Value::Object(object) => object,
            _ => return Err(Error::InvalidInput(format!("{PLACE}: expected an object of toHaveScreenshot options"))),
        };
        let picked: serde_json::Map<String, serde_json::Value> = object
            .into_iter()
            .filter(|(key, value)| PLAYWRIGHT_KEYS.contains(&key.as_str()) && !value.is_null())
            .collect();
        if picked.is_empty() {
            return Ok(Self::default());
        }
        let json = serde_json::Value::Object(picked);
        Ok(Self { overrides: checked(json.clone(), PLACE)?, json: Some(json) })
    }

    /// The keys read, as JSON (stored with a capture, so `sightline compare` resolves the same
    /// settings); `None` when there are none.
    pub fn json(&self) -> Option<&serde_json::Value> {
        self.json.as_ref()
    }
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

/// The resolved settings of one comparison: the config file with a call's overrides applied.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// The config keys, overrides applied.
    #[serde(flatten)]
    pub config: Config,
    /// Capture only this area of the page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip: Option<Clip>,
    /// How long to wait for two consecutive equal shots, in ms; unset means the expect timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    /// Use the perceptual comparator. Default false.
    pub perceptual: bool,
}

impl Overrides {
    /// A call's options as the matcher passes them: a JSON object, `null` for none.
    pub fn from_json(value: serde_json::Value) -> Result<Self> {
        if value.is_null() {
            return Ok(Self::default());
        }
        checked(value, "toMatchVisual options")
    }
}

impl Settings {
    /// The comparison options these settings ask for: the one owner of the settings → options
    /// rule, used by the matcher, `sightline compare` and the report.
    pub fn snapshot_options(&self) -> SnapshotOptions {
        let c = &self.config;
        SnapshotOptions {
            compare: CompareOptions {
                pixel: PixelOptions { threshold: c.threshold, include_aa: !c.antialiasing, ..PixelOptions::default() },
                comparator: if self.perceptual { Comparator::Perceptual } else { Comparator::Pixelmatch },
                ..CompareOptions::default()
            },
            tolerance: Tolerance {
                max_diff_pixels: c.max_diff_pixels,
                max_diff_pixel_ratio: c.max_diff_pixel_ratio,
                noise_auto_pass: c.noise_auto_pass,
            },
            mask_color: parse_css_color(&c.mask_color).unwrap_or(DEFAULT_MASK_RGBA),
        }
    }
}

impl Default for SnapshotOptions {
    /// The options of the default settings (no config file, no call options).
    fn default() -> Self {
        Config::default().with_overrides(&Overrides::default()).snapshot_options()
    }
}

/// The settings for `root`: `<root>/.sightline/config.json` (a missing file means all
/// defaults) with `overrides` on top.
pub fn load_settings(root: &Path, overrides: &Overrides) -> Result<Settings> {
    load_call_settings(root, &PlaywrightDefaults::default(), overrides)
}

/// One `toMatchVisual` call's settings, lowest first: the built-in defaults, Playwright's
/// `expect.toHaveScreenshot`, `.sightline/config.json`, the call's options.
pub fn load_call_settings(root: &Path, playwright: &PlaywrightDefaults, overrides: &Overrides) -> Result<Settings> {
    Ok(read_config_file(root)?.under_playwright(playwright).with_overrides(overrides))
}

impl Config {
    /// These settings over Playwright's `expect.toHaveScreenshot`: each key it sets applies
    /// unless the config file set that key itself.
    pub fn under_playwright(&self, playwright: &PlaywrightDefaults) -> Config {
        let mut config = self.clone();
        let o = &playwright.overrides;
        let free = |key: &str| !self.file_keys.iter().any(|k| k == key);
        if let (Some(v), true) = (o.threshold, free("threshold")) {
            config.threshold = v;
        }
        if let (Some(v), true) = (o.max_diff_pixels, free("maxDiffPixels")) {
            config.max_diff_pixels = Some(v);
        }
        if let (Some(v), true) = (o.max_diff_pixel_ratio, free("maxDiffPixelRatio")) {
            config.max_diff_pixel_ratio = Some(v);
        }
        if let (Some(v), true) = (o.animations, free("animations")) {
            config.animations = v;
        }
        if let (Some(v), true) = (o.caret, free("caret")) {
            config.caret = v;
        }
        if let (Some(v), true) = (o.scale, free("scale")) {
            config.scale = v;
        }
        if let (Some(v), true) = (&o.style_path, free("stylePath")) {
            config.style_path = v.clone();
        }
        config
    }

    /// These settings with one call's `overrides` on top.
    pub fn with_overrides(&self, overrides: &Overrides) -> Settings {
        let mut config = self.clone();
        let o = overrides.clone();
        // A call's value replaces the file's (lists too: a call's `mask` is the whole mask).
        config.threshold = o.threshold.unwrap_or(config.threshold);
        config.max_diff_pixels = o.max_diff_pixels.or(config.max_diff_pixels);
        config.max_diff_pixel_ratio = o.max_diff_pixel_ratio.or(config.max_diff_pixel_ratio);
        config.noise_auto_pass = o.noise_auto_pass.unwrap_or(config.noise_auto_pass);
        config.full_page = o.full_page.unwrap_or(config.full_page);
        config.mask = o.mask.unwrap_or(config.mask);
        config.ignore_selectors = o.ignore_selectors.unwrap_or(config.ignore_selectors);
        config.mask_color = o.mask_color.unwrap_or(config.mask_color);
        config.style_properties = o.style_properties.or(config.style_properties);
        config.animations = o.animations.unwrap_or(config.animations);
        config.caret = o.caret.unwrap_or(config.caret);
        config.scale = o.scale.unwrap_or(config.scale);
        config.omit_background = o.omit_background.unwrap_or(config.omit_background);
        config.style_path = o.style_path.unwrap_or(config.style_path);
        config.wait_for_images = o.wait_for_images.unwrap_or(config.wait_for_images);
        config.wait_for_aria_busy = o.wait_for_aria_busy.unwrap_or(config.wait_for_aria_busy);
        config.hide_scrollbars = o.hide_scrollbars.unwrap_or(config.hide_scrollbars);
        config.clear_hover = o.clear_hover.unwrap_or(config.clear_hover);
        Settings { config, clip: o.clip, timeout: o.timeout, perceptual: o.perceptual.unwrap_or(false) }
    }
}

impl Settings {
    /// The computed-style longhands to collect for each element: `styleProperties` when set,
    /// else [`DEFAULT_STYLE_PROPERTIES`].
    pub fn style_properties(&self) -> Vec<String> {
        match &self.config.style_properties {
            Some(list) => list.clone(),
            None => DEFAULT_STYLE_PROPERTIES.iter().map(|p| p.to_string()).collect(),
        }
    }
}

/// The config file's settings alone (no call overrides): [`load_settings`] for the front-ends
/// that have no call, such as the MCP server and the review commands.
pub fn load_config(root: &Path) -> Result<Config> {
    Ok(load_settings(root, &Overrides::default())?.config)
}

/// The config file's `baselinePath`: where this project's baselines live.
pub fn baseline_layout(root: &Path) -> Result<BaselineLayout> {
    Ok(read_config_file(root)?.baseline_path)
}

impl Config {
    /// `<root>/.sightline/config.json`, checked (a bad key named), relative `stylePath`s resolved
    /// against the root; all defaults when there is no file.
    pub fn read(root: &Path) -> Result<Config> {
        read_config_file(root)
    }
}

fn read_config_file(root: &Path) -> Result<Config> {
    let path = root.join(".sightline").join("config.json");
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        Error::InvalidInput(format!(
            "{}: not valid JSON ({e}); fix it or delete it to use the defaults",
            path.display()
        ))
    })?;
    let mut config: Config = checked(value.clone(), &path.display().to_string())?;
    config.file_keys = value.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
    // The file's stylesheets are the project's: relative to the root, not to where tests run.
    for style in &mut config.style_path {
        if Path::new(style.as_str()).is_relative() {
            *style = root.join(&*style).display().to_string();
        }
    }
    Ok(config)
}

/// Deserialises one settings object; an error names `place`, the key path and what it expects.
fn checked<T: serde::de::DeserializeOwned>(value: serde_json::Value, place: &str) -> Result<T> {
    let fail = |detail: String| Error::InvalidInput(format!("{place}: {detail}"));
    if !value.is_object() {
        return Err(fail("expected a JSON object of settings, e.g. {\"threshold\": 0.1}".into()));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let key = e.path().to_string();
        let detail = e.inner().to_string();
        // serde's own messages quote names in backticks: the first is the key or value at
        // fault, the rest what was expected.
        let names: Vec<&str> = detail.split('`').skip(1).step_by(2).collect();
        fail(if detail.starts_with("unknown field") {
            let known = &names[1..];
            let guess = closest(names[0], known).map(|k| format!(" (did you mean \"{k}\"?)")).unwrap_or_default();
            format!("unknown key \"{key}\"{guess}; known keys are {}", known.join(", "))
        } else if detail.starts_with("unknown variant") {
            let wanted: Vec<String> = names[1..].iter().map(|n| format!("\"{n}\"")).collect();
            format!("\"{key}\" must be {}, got \"{}\"", wanted.join(" or "), names[0])
        } else if detail.starts_with(MUST) {
            format!("\"{key}\" {detail}")
        } else {
            format!("\"{key}\" has the wrong type ({detail})")
        })
    })
}

/// How the range checks below start their messages, so [`checked`] can tell them from serde's.
const MUST: &str = "must be ";

fn out_of_range<E: serde::de::Error>(want: &str, got: impl std::fmt::Display) -> E {
    E::custom(format!("{MUST}{want}, got {got}"))
}

fn fraction<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    let v = f64::deserialize(d)?;
    if (0.0..=1.0).contains(&v) { Ok(v) } else { Err(out_of_range("a number from 0 to 1", v)) }
}

fn optional_fraction<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<f64>, D::Error> {
    Option::<f64>::deserialize(d)?
        .map(|v| if (0.0..=1.0).contains(&v) { Ok(v) } else { Err(out_of_range("a number from 0 to 1", v)) })
        .transpose()
}

fn optional_count<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<u64>, D::Error> {
    // Read as a number, so 2.5 and -1 get this message rather than serde's "expected u64".
    Option::<f64>::deserialize(d)?
        .map(|v| {
            if v >= 0.0 && v.fract() == 0.0 && v <= u64::MAX as f64 {
                Ok(v as u64)
            } else {
                Err(out_of_range("a whole number ≥ 0", v))
            }
        })
        .transpose()
}

fn optional_millis<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<f64>, D::Error> {
    Option::<f64>::deserialize(d)?
        .map(|v| if v >= 0.0 { Ok(v) } else { Err(out_of_range("a number of milliseconds ≥ 0", v)) })
        .transpose()
}

fn optional_longhands<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<Vec<String>>, D::Error> {
    let Some(list) = Option::<Vec<String>>::deserialize(d)? else { return Ok(None) };
    if list.is_empty() || list.iter().any(String::is_empty) {
        let got = serde_json::to_string(&list).unwrap_or_default();
        return Err(out_of_range("a non-empty array of CSS longhand names", got));
    }
    if let Some((name, longhands)) = list.iter().find_map(|p| SHORTHANDS.iter().find(|(s, _)| s == p)) {
        return Err(<D::Error as serde::de::Error>::custom(format!(
            "{MUST}longhand CSS property names: \"{name}\" is a shorthand, which Chromium reports as \"\" when \
             sides differ; list the longhands instead: {longhands}"
        )));
    }
    Ok(Some(list))
}

/// Playwright's default `maskColor`.
pub const DEFAULT_MASK_COLOR: &str = "#FF00FF";
const DEFAULT_MASK_RGBA: [u8; 4] = [255, 0, 255, 255];

/// A CSS colour as RGBA bytes, `None` when it is not one.
fn parse_css_color(text: &str) -> Option<[u8; 4]> {
    csscolorparser::parse(text).ok().map(|c| c.to_rgba8())
}

fn css_color<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    let v = String::deserialize(d)?;
    match parse_css_color(&v) {
        Some(_) => Ok(v),
        None => Err(out_of_range("a CSS colour such as \"#FF00FF\" or \"rgb(0 0 0 / 50%)\"", format!("{v:?}"))),
    }
}

fn optional_css_color<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    struct Color(#[serde(deserialize_with = "css_color")] String);
    Ok(Option::<Color>::deserialize(d)?.map(|c| c.0))
}

fn folder<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    let v = String::deserialize(d)?;
    if v.is_empty() { Err(out_of_range("a folder path string", "\"\"")) } else { Ok(v) }
}

/// toHaveScreenshot's `stylePath`: one path or a list of them.
fn paths<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    let list = match OneOrMany::deserialize(d) {
        Ok(OneOrMany::One(path)) => vec![path],
        Ok(OneOrMany::Many(list)) => list,
        Err(_) => return Err(out_of_range("a CSS file path or an array of them", "another type")),
    };
    if list.iter().any(String::is_empty) {
        return Err(out_of_range("a CSS file path or an array of them", "an empty path"));
    }
    Ok(list)
}

fn optional_paths<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    struct Paths(#[serde(deserialize_with = "paths")] Vec<String>);
    Ok(Option::<Paths>::deserialize(d)?.map(|p| p.0))
}

fn positive<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    let v = f64::deserialize(d)?;
    if v > 0.0 { Ok(v) } else { Err(out_of_range("a number above 0", v)) }
}

/// The known key a mistyped one most likely meant: at most two edits away (a letter doubled,
/// dropped, swapped or wrong; case aside) and no more than a third of its letters, so a short key
/// (`w`) is not "corrected" into an unrelated one (`x`).
pub fn closest<'a>(typed: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&typed.to_lowercase(), &k.to_lowercase()), *k))
        .filter(|(edits, _)| *edits <= 2 && *edits * 3 <= typed.chars().count())
        .min_by_key(|(edits, _)| *edits)
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A project root holding `config` as `.sightline/config.json`, removed on drop.
    struct Root(std::path::PathBuf);

    impl Root {
        fn with(tag: &str, config: &str) -> Self {
            let root = std::env::temp_dir().join(format!("sightline-config-{}-{tag}", std::process::id()));
            std::fs::create_dir_all(root.join(".sightline")).unwrap();
            std::fs::write(root.join(".sightline/config.json"), config).unwrap();
            Root(root)
        }

        fn settings(&self, overrides: serde_json::Value) -> Result<Settings> {
            load_settings(&self.0, &Overrides::from_json(overrides)?)
        }

        fn error(&self, overrides: serde_json::Value) -> String {
            let config = self.0.join(".sightline/config.json").display().to_string();
            self.settings(overrides).unwrap_err().to_string().replace(&config, "<config>")
        }
    }

    impl Drop for Root {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn call_error(overrides: serde_json::Value) -> String {
        Overrides::from_json(overrides).unwrap_err().to_string()
    }

    #[test]
    fn settings_defaults_without_a_config_file() {
        let settings = load_settings(Path::new("/nonexistent"), &Overrides::default()).unwrap();
        assert_eq!(settings, Settings { config: Config::default(), clip: None, timeout: None, perceptual: false });
        let options = settings.snapshot_options();
        assert_eq!((options.compare.pixel.threshold, options.compare.pixel.include_aa), (0.1, false));
        assert_eq!(options.compare.comparator, Comparator::Pixelmatch);
        assert_eq!(
            (
                options.tolerance.max_diff_pixels,
                options.tolerance.max_diff_pixel_ratio,
                options.tolerance.noise_auto_pass
            ),
            (None, None, false)
        );
        // Unset keys stay out of results.json's run.config.
        assert_eq!(
            serde_json::to_value(&settings.config).unwrap(),
            json!({
                "reportDir": "visual-report", "threshold": 0.1, "antialiasing": true, "noiseAutoPass": false,
                "fullPage": true, "mask": [], "ignoreSelectors": [], "maskColor": "#FF00FF",
                "mcpApprovalPrompt": true, "writeMissingBaselines": false, "shardMode": "compare",
                "animations": "disabled", "caret": "hide", "scale": "css", "omitBackground": false,
                "waitForImages": true, "waitForAriaBusy": true, "hideScrollbars": true, "clearHover": false,
                "baselinePath": "{name}/{project}"
            })
        );
    }

    #[test]
    fn settings_file_values_and_the_options_they_give() {
        let root = Root::with(
            "file",
            r#"{"reportDir": "out", "threshold": 0.2, "antialiasing": false, "maxDiffPixels": 10,
                "maxDiffPixelRatio": 0.5, "noiseAutoPass": true, "shardMode": "capture-only"}"#,
        );
        let settings = root.settings(json!(null)).unwrap();
        let c = &settings.config;
        assert_eq!((c.report_dir.as_str(), c.shard_mode), ("out", ShardMode::CaptureOnly));
        let options = settings.snapshot_options();
        assert_eq!((options.compare.pixel.threshold, options.compare.pixel.include_aa), (0.2, true));
        assert_eq!(
            (
                options.tolerance.max_diff_pixels,
                options.tolerance.max_diff_pixel_ratio,
                options.tolerance.noise_auto_pass
            ),
            (Some(10), Some(0.5), true)
        );
    }

    #[test]
    fn settings_call_overrides_win_over_the_file() {
        let root =
            Root::with("overrides", r##"{"threshold": 0.2, "mask": ["#ad"], "maxDiffPixels": 10, "fullPage": false}"##);
        let settings = root
            .settings(json!({
                "threshold": 0, "mask": ["#banner"], "perceptual": true, "timeout": 300,
                "clip": {"x": 0, "y": 0, "width": 100, "height": 30}, "maxDiffPixelRatio": null
            }))
            .unwrap();
        let c = &settings.config;
        assert_eq!(
            (c.threshold, c.mask.clone(), c.max_diff_pixels, c.full_page),
            (0.0, vec!["#banner".to_string()], Some(10), false)
        );
        assert_eq!(settings.clip, Some(Clip { x: 0.0, y: 0.0, width: 100.0, height: 30.0 }));
        assert_eq!((settings.timeout, settings.perceptual), (Some(300.0), true));
        let options = settings.snapshot_options();
        assert_eq!((options.compare.pixel.threshold, options.compare.comparator), (0.0, Comparator::Perceptual));
    }

    #[test]
    fn settings_style_properties_default_to_the_spec_list_and_a_set_list_wins() {
        let root = Root::with("styles", "{}");
        let settings = load_settings(&root.0, &Overrides::default()).unwrap();
        assert_eq!(settings.style_properties().len(), 39);
        assert_eq!(settings.style_properties()[..2], ["color", "background-color"]);
        let overrides = Overrides::from_json(json!({"styleProperties": ["outline-style"]})).unwrap();
        assert_eq!(load_settings(&root.0, &overrides).unwrap().style_properties(), ["outline-style"]);
        // Unset, it stays out of results.json's run.config.
        assert!(serde_json::to_value(&settings.config).unwrap().get("styleProperties").is_none());
    }

    #[test]
    fn settings_mask_color_is_any_css_colour_checked_where_it_is_set() {
        let root = Root::with("mask-color", r#"{"maskColor": "rgb(0 0 0 / 50%)"}"#);
        assert_eq!(root.settings(json!(null)).unwrap().snapshot_options().mask_color, [0, 0, 0, 128]);
        assert_eq!(
            root.settings(json!({"maskColor": "lime"})).unwrap().snapshot_options().mask_color,
            [0, 255, 0, 255]
        );
        assert_eq!(SnapshotOptions::default().mask_color, [255, 0, 255, 255]);
        assert_eq!(
            call_error(json!({"maskColor": "pinkish"})),
            "toMatchVisual options: \"maskColor\" must be a CSS colour such as \"#FF00FF\" or \"rgb(0 0 0 / 50%)\", got \"pinkish\""
        );
        let bad = Root::with("mask-color-bad", r##"{"maskColor": "#12345"}"##);
        assert_eq!(
            bad.error(json!(null)),
            "<config>: \"maskColor\" must be a CSS colour such as \"#FF00FF\" or \"rgb(0 0 0 / 50%)\", got \"#12345\""
        );
    }

    #[test]
    fn settings_a_baseline_path_that_cannot_read_back_is_refused_naming_the_key() {
        let root = Root::with("layout", r#"{"baselinePath": "{name}-{project}"}"#);
        assert_eq!(
            root.error(json!(null)),
            "<config>: \"baselinePath\" must be a path template of {name}, {project}, {platform} and {testFile}, got \"{name}-{project}\", which has {name} inside a folder name; {name} must be a whole folder; e.g. \"{name}/{project}-{platform}\" or \"{testFile}/{name}/{project}\""
        );
        let good = Root::with("layout-ok", r#"{"baselinePath": "{name}/{project}-{platform}"}"#);
        assert_eq!(baseline_layout(&good.0).unwrap().template(), "{name}/{project}-{platform}");
        // A call cannot move the baselines.
        assert!(good.error(json!({"baselinePath": "{name}/{project}"})).contains("unknown key \"baselinePath\""));
    }

    #[test]
    fn settings_unknown_keys_name_the_key_and_list_the_known_ones() {
        let root = Root::with("unknown", r#"{"treshold": 0.2}"#);
        assert_eq!(
            root.error(json!(null)),
            "<config>: unknown key \"treshold\" (did you mean \"threshold\"?); known keys are reportDir, threshold, antialiasing, \
             maxDiffPixels, maxDiffPixelRatio, noiseAutoPass, fullPage, mask, ignoreSelectors, maskColor, \
             mcpApprovalPrompt, styleProperties, writeMissingBaselines, shardMode, animations, caret, scale, \
             omitBackground, stylePath, waitForImages, waitForAriaBusy, hideScrollbars, clearHover, baselinePath"
        );
        assert_eq!(
            call_error(json!({"reportDir": "x"})),
            "toMatchVisual options: unknown key \"reportDir\"; known keys are threshold, maxDiffPixels, \
             maxDiffPixelRatio, noiseAutoPass, fullPage, mask, ignoreSelectors, maskColor, styleProperties, clip, timeout, \
             perceptual, animations, caret, scale, omitBackground, stylePath, waitForImages, waitForAriaBusy, \
             hideScrollbars, clearHover"
        );
        assert_eq!(
            call_error(json!({"clip": {"x": 0, "y": 0, "w": 1, "height": 1}})),
            "toMatchVisual options: unknown key \"clip.w\"; known keys are x, y, width, height"
        );
    }

    fn playwright(value: serde_json::Value) -> PlaywrightDefaults {
        PlaywrightDefaults::from_json(value).unwrap()
    }

    #[test]
    fn settings_layer_playwright_defaults_under_the_config_file_and_the_call() {
        let root = Root::with("playwright-layers", r#"{"threshold": 0.3, "scale": "device", "stylePath": "hide.css"}"#);
        let pw = playwright(json!({
            "threshold": 0.2, "maxDiffPixels": 100, "caret": "initial", "scale": "css",
            "stylePath": ["/abs/pw.css"], "pathTemplate": "{arg}{ext}", "_comparator": "ssim-cie94"
        }));
        let call = |o: serde_json::Value| load_call_settings(&root.0, &pw, &Overrides::from_json(o).unwrap()).unwrap();
        let settings = call(json!(null));
        // The file beats Playwright; Playwright beats the built-in defaults.
        assert_eq!(settings.config.threshold, 0.3);
        assert_eq!(settings.config.scale, Scale::Device);
        assert_eq!(settings.config.max_diff_pixels, Some(100));
        assert_eq!(settings.config.caret, Caret::Initial);
        assert_eq!(settings.config.animations, Animations::Disabled);
        // The file's stylesheet is the project's, relative to the root.
        assert_eq!(settings.config.style_path, vec![root.0.join("hide.css").display().to_string()]);
        // The call beats both.
        let settings = call(json!({"threshold": 0, "maxDiffPixels": 5, "caret": "hide", "stylePath": "call.css"}));
        assert_eq!(
            (settings.config.threshold, settings.config.max_diff_pixels, settings.config.caret),
            (0.0, Some(5), Caret::Hide)
        );
        assert_eq!(settings.config.style_path, vec!["call.css".to_string()]);
        // Only the shared keys are read and stored.
        assert_eq!(
            pw.json().unwrap(),
            &json!({"threshold": 0.2, "maxDiffPixels": 100, "caret": "initial", "scale": "css", "stylePath": ["/abs/pw.css"]})
        );
        // Without a config file, Playwright's stylesheet stands.
        let none = load_call_settings(Path::new("/nonexistent"), &pw, &Overrides::default()).unwrap();
        assert_eq!((none.config.threshold, none.config.style_path.clone()), (0.2, vec!["/abs/pw.css".to_string()]));
        assert_eq!(playwright(json!(null)), PlaywrightDefaults::default());
        assert_eq!(playwright(json!({"pathTemplate": "x"})).json(), None);
    }

    #[test]
    fn settings_max_diff_pixel_ratio_layers_by_its_own_key() {
        let pw = playwright(json!({"maxDiffPixels": 100, "maxDiffPixelRatio": 0.02}));
        let tolerances = |root: &Root| {
            let c = load_call_settings(&root.0, &pw, &Overrides::default()).unwrap().config;
            (c.max_diff_pixels, c.max_diff_pixel_ratio)
        };
        // The ratio in both places: the file's; Playwright's pixel count still applies.
        let both = Root::with("pw-ratio-both", r#"{"maxDiffPixelRatio": 0.05}"#);
        assert_eq!(tolerances(&both), (Some(100), Some(0.05)));
        // Only the pixel count in the file: Playwright's ratio still applies.
        let pixels = Root::with("pw-ratio-pixels", r#"{"maxDiffPixels": 7}"#);
        assert_eq!(tolerances(&pixels), (Some(7), Some(0.02)));
    }

    #[test]
    fn settings_bad_playwright_defaults_and_capture_options_name_the_place_and_the_key() {
        assert_eq!(
            PlaywrightDefaults::from_json(json!({"maxDiffPixels": -1})).unwrap_err().to_string(),
            "playwright.config expect.toHaveScreenshot: \"maxDiffPixels\" must be a whole number ≥ 0, got -1"
        );
        assert_eq!(
            call_error(json!({"animations": "paused"})),
            "toMatchVisual options: \"animations\" must be \"disabled\" or \"allow\", got \"paused\""
        );
        assert_eq!(
            call_error(json!({"scale": "retina"})),
            "toMatchVisual options: \"scale\" must be \"css\" or \"device\", got \"retina\""
        );
        assert_eq!(
            call_error(json!({"stylePath": 3})),
            "toMatchVisual options: \"stylePath\" must be a CSS file path or an array of them, got another type"
        );
        assert_eq!(
            call_error(json!({"stylePath": ["a.css", ""]})),
            "toMatchVisual options: \"stylePath\" must be a CSS file path or an array of them, got an empty path"
        );
        assert_eq!(
            call_error(json!({"omitBackground": "yes"})),
            "toMatchVisual options: \"omitBackground\" has the wrong type (invalid type: string \"yes\", expected a boolean)"
        );
    }

    #[test]
    fn settings_nested_errors_name_the_path() {
        assert_eq!(
            call_error(json!({"clip": {"x": 0, "y": 0, "width": 0, "height": 30}})),
            "toMatchVisual options: \"clip.width\" must be a number above 0, got 0"
        );
        assert_eq!(
            call_error(json!({"clip": {"x": "left", "y": 0, "width": 1, "height": 1}})),
            "toMatchVisual options: \"clip.x\" has the wrong type (invalid type: string \"left\", expected f64)"
        );
        assert_eq!(
            call_error(json!({"mask": ["#ad", 3]})),
            "toMatchVisual options: \"mask[1]\" has the wrong type (invalid type: integer `3`, expected a string)"
        );
    }

    #[test]
    fn settings_wrong_types_and_ranges_say_what_is_expected() {
        let cases = [
            (
                r#"{"threshold": "high"}"#,
                "\"threshold\" has the wrong type (invalid type: string \"high\", expected f64)",
            ),
            (r#"{"threshold": 3}"#, "\"threshold\" must be a number from 0 to 1, got 3"),
            (r#"{"maxDiffPixelRatio": 1.5}"#, "\"maxDiffPixelRatio\" must be a number from 0 to 1, got 1.5"),
            (r#"{"maxDiffPixels": 2.5}"#, "\"maxDiffPixels\" must be a whole number ≥ 0, got 2.5"),
            (r#"{"maxDiffPixels": -1}"#, "\"maxDiffPixels\" must be a whole number ≥ 0, got -1"),
            (
                r#"{"styleProperties": []}"#,
                "\"styleProperties\" must be a non-empty array of CSS longhand names, got []",
            ),
            (
                r#"{"styleProperties": ["color", "border-radius"]}"#,
                "\"styleProperties\" must be longhand CSS property names: \"border-radius\" is a shorthand, which \
                 Chromium reports as \"\" when sides differ; list the longhands instead: \
                 border-{top-left,top-right,bottom-right,bottom-left}-radius",
            ),
            (
                r#"{"styleProperties": ["color", ""]}"#,
                "\"styleProperties\" must be a non-empty array of CSS longhand names, got [\"color\",\"\"]",
            ),
            (r#"{"reportDir": ""}"#, "\"reportDir\" must be a folder path string, got \"\""),
            (r#"{"shardMode": "both"}"#, "\"shardMode\" must be \"compare\" or \"capture-only\", got \"both\""),
            (
                r#"{"antialiasing": "no"}"#,
                "\"antialiasing\" has the wrong type (invalid type: string \"no\", expected a boolean)",
            ),
            (r#"[0.1]"#, "expected a JSON object of settings, e.g. {\"threshold\": 0.1}"),
        ];
        for (i, (file, says)) in cases.iter().enumerate() {
            let root = Root::with(&format!("range-{i}"), file);
            assert_eq!(root.error(json!(null)), format!("<config>: {says}"), "{file}");
        }
        let root = Root::with("not-json", "threshold = 0.2");
        assert_eq!(
            root.error(json!(null)),
            "<config>: not valid JSON (expected ident at line 1 column 2); fix it or delete it to use the defaults"
        );
        assert_eq!(
            call_error(json!({"timeout": -5})),
            "toMatchVisual options: \"timeout\" must be a number of milliseconds ≥ 0, got -5"
        );
        assert_eq!(
            call_error(json!({"threshold": 2})),
            "toMatchVisual options: \"threshold\" must be a number from 0 to 1, got 2"
        );
        assert_eq!(
            call_error(json!("loose")),
            "toMatchVisual options: expected a JSON object of settings, e.g. {\"threshold\": 0.1}"
        );
    }
}
