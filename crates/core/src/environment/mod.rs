//! Where a capture was rendered ([`Environment`]): the browser and its version, the platform,
//! the device scale factor and the fonts its text was drawn with. Every capture records it, a
//! baseline keeps it, and a comparison names what differs between the two sides
//! ([`EnvironmentComparison`]), because the same page drawn by another engine or on another
//! machine differs in pixels where nothing on the page changed.

use serde::{Deserialize, Serialize};

use crate::dom::{DomSnapshot, image_source_digest, page_relative};
use crate::health::AssetKind;
use crate::words::capitalised;

mod font_elements;
pub use font_elements::{FontElement, font_elements};

/// Most entries of [`Environment::fonts`]: one per distinct `font-family` of the page's text.
pub const MAX_RENDERED_FONTS: usize = 64;
/// Most faces recorded for one family.
const MAX_FACES: usize = 8;
/// Longest name kept (a browser version, a platform, a font name), in bytes.
const MAX_NAME_BYTES: usize = 256;
/// Most rendering switches recorded.
const MAX_SWITCHES: usize = 16;
/// Most assets whose bytes are recorded ([`Environment::assets`]).
pub const MAX_ASSETS: usize = 128;
/// Longest asset URL kept, in bytes (a longer one is not recorded: data URLs carry their bytes).
const MAX_URL_BYTES: usize = 2048;

/// Browser switches that change how the same page is rasterised: two captures launched with
/// different ones are two environments, as two machines are. Matched as the switch alone or
/// with a value (`--font-render-hinting=none`).
const RENDERING_SWITCHES: [&str; 12] = [
    "--font-render-hinting",
    "--disable-font-subpixel-positioning",
    "--enable-font-antialiasing",
    "--disable-lcd-text",
    "--enable-lcd-text",
    "--force-device-scale-factor",
    "--force-color-profile",
    "--disable-gpu",
    "--use-gl",
    "--use-angle",
    "--disable-skia-runtime-opts",
    "--force-raster-color-profile",
];

/// The switches of `launch_args` that change rasterisation ([`RENDERING_SWITCHES`]), sorted.
pub fn rendering_switches(launch_args: &[String]) -> Vec<String> {
    let renders = |arg: &&String| {
        RENDERING_SWITCHES
            .iter()
            .any(|s| arg.strip_prefix(s).is_some_and(|rest| rest.is_empty() || rest.starts_with('=')))
    };
    let mut switches: Vec<String> = launch_args.iter().filter(renders).cloned().collect();
    switches.sort();
    switches.dedup();
    switches
}

/// Where one capture was rendered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Environment {
    /// The browser engine, as Playwright names it: `chromium`, `firefox`, `webkit`.
    pub browser: String,
    /// The browser's full version (`156.0.8078.114`).
    pub browser_version: String,
    /// The operating system, as Node names it: `linux`, `darwin`, `win32`.
    pub platform: String,
    /// Screenshot pixels per CSS pixel.
    #[serde(default = "one")]
    pub device_scale_factor: f64,
    /// The fonts the page's text was drawn with, one entry per `font-family` value; empty where
    /// the browser cannot say (only Chromium can, through CDP).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fonts: Vec<RenderedFont>,
    /// The browser's launch switches that change rasterisation (`--disable-lcd-text`), sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rendering_switches: Vec<String>,
    /// The web fonts, images and stylesheets the page loaded, with a digest of their bytes:
    /// a file replaced under the same URL draws differently with nothing in the DOM changing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assets: Vec<Asset>,
    /// The page's URL when its assets were listed: a file is the same file on another host or
    /// port when its path from the page is the same ([`page_relative`]). Empty in environments
    /// recorded before it was (their assets are matched by whole URL).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub page_url: String,
}

/// A file the page loaded and drew with, and a digest of its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Asset {
    pub kind: AssetKind,
    pub url: String,
    /// A digest of the response body (hex), the same for the same bytes.
    pub digest: String,
}

/// An asset loaded under the same URL on both sides, with other bytes in this capture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplacedAsset {
    pub kind: AssetKind,
    pub url: String,
}

impl ReplacedAsset {
    /// `font http://x/brand.woff2`.
    pub fn label(&self) -> String {
        format!("{} {}", crate::words::Word::word(self.kind), self.url)
    }
}

fn one() -> f64 {
    1.0
}

/// The fonts that drew the text of one computed `font-family` value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderedFont {
    /// The computed `font-family` (`Inter, "Helvetica Neue", sans-serif`).
    pub family: String,
    /// The faces that drew it, most glyphs first: a platform font's family name
    /// (`DejaVu Sans`), or a web font's (`web` true).
    pub faces: Vec<FontFace>,
}

/// One face that drew text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FontFace {
    pub name: String,
    /// Loaded by the page (`@font-face`), not installed on the machine.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub web: bool,
}

impl Environment {
    /// Checks what the capture reported (bounded names and lists); sorts the fonts so two
    /// records of one page compare equal. `Err` says what is wrong.
    pub fn checked(mut self) -> Result<Self, String> {
        for (what, value) in
            [("browser", &self.browser), ("browserVersion", &self.browser_version), ("platform", &self.platform)]
        {
            if value.is_empty() || value.len() > MAX_NAME_BYTES {
                return Err(format!("environment {what} must be 1 to {MAX_NAME_BYTES} bytes, got {value:?}"));
            }
        }
        if !(self.device_scale_factor.is_finite() && self.device_scale_factor > 0.0) {
            return Err(format!("environment deviceScaleFactor must be above 0, got {}", self.device_scale_factor));
        }
        if self.rendering_switches.len() > MAX_SWITCHES
            || self.rendering_switches.iter().any(|s| s.len() > MAX_NAME_BYTES)
        {
            return Err(format!(
                "environment renderingSwitches: at most {MAX_SWITCHES}, each at most {MAX_NAME_BYTES} bytes"
            ));
        }
        self.rendering_switches.sort();
        self.rendering_switches.dedup();
        if self.assets.len() > MAX_ASSETS {
            return Err(format!("environment assets: {} files, at most {MAX_ASSETS}", self.assets.len()));
        }
        self.assets.retain(|a| a.url.len() <= MAX_URL_BYTES && a.digest.len() <= MAX_NAME_BYTES);
        if self.page_url.len() > MAX_URL_BYTES {
            self.page_url.clear();
        }
        self.assets.sort_by(|a, b| a.url.cmp(&b.url));
        self.assets.dedup_by(|a, b| a.url == b.url);
        if self.fonts.len() > MAX_RENDERED_FONTS {
            return Err(format!("environment fonts: {} families, at most {MAX_RENDERED_FONTS}", self.fonts.len()));
        }
        for font in &mut self.fonts {
            font.faces.truncate(MAX_FACES);
            let long = std::iter::once(&font.family).chain(font.faces.iter().map(|f| &f.name));
            if let Some(name) = long.into_iter().find(|n| n.len() > MAX_NAME_BYTES) {
                return Err(format!("environment fonts: a name longer than {MAX_NAME_BYTES} bytes ({name:.40}…)"));
            }
        }
        self.fonts.sort_by(|a, b| a.family.cmp(&b.family));
        self.fonts.dedup_by(|a, b| a.family == b.family);
        Ok(self)
    }

    /// `Chromium 156 on Linux` (`…, --disable-lcd-text`): the browser's major version, as people
    /// name a browser, and its rendering switches.
    pub fn label(&self) -> String {
        let major = self.browser_version.split('.').next().unwrap_or(&self.browser_version);
        let switches =
            if self.rendering_switches.is_empty() { String::new() } else { format!(", {}", self.switches()) };
        format!("{} {major} on {}{switches}", browser_name(&self.browser), platform_name(&self.platform))
    }

    /// The rendering switches, or `default rendering`.
    fn switches(&self) -> String {
        if self.rendering_switches.is_empty() {
            "default rendering".to_string()
        } else {
            self.rendering_switches.join(" ")
        }
    }

    /// `Chromium 156.0.8078.114 on Linux, 2×`: everything but the fonts.
    pub fn full_label(&self) -> String {
        format!(
            "{} {} on {}, {}×",
            browser_name(&self.browser),
            self.browser_version,
            platform_name(&self.platform),
            self.device_scale_factor
        )
    }

    /// The face that drew most of `family`'s text, if recorded.
    fn main_face(&self, family: &str) -> Option<&FontFace> {
        self.fonts.iter().find(|f| f.family == family).and_then(|f| f.faces.first())
    }
}

/// The assets of `current` whose file `baseline` also loaded ([`same_file`]), with other bytes.
fn replaced_assets(baseline: &Environment, current: &Environment) -> Vec<ReplacedAsset> {
    current
        .assets
        .iter()
        .filter(|c| baseline.assets.iter().any(|b| b.digest != c.digest && same_file(b, baseline, c, current)))
        .map(|c| ReplacedAsset { kind: c.kind, url: c.url.clone() })
        .collect()
}

/// Whether asset `b` of `baseline` and `c` of `current` are one file: the same path from their
/// pages, or, where either side did not record its page, the same URL.
fn same_file(b: &Asset, baseline: &Environment, c: &Asset, current: &Environment) -> bool {
    if baseline.page_url.is_empty() || current.page_url.is_empty() {
        return b.url == c.url;
    }
    page_relative(&b.url, &baseline.page_url) == page_relative(&c.url, &current.page_url)
}

/// The browser's major version: `156`.
fn major(e: &Environment) -> &str {
    e.browser_version.split('.').next().unwrap_or_default()
}

/// `Chromium`, `Firefox`, `WebKit`; another name as given.
fn browser_name(browser: &str) -> String {
    match browser {
        "chromium" => "Chromium".into(),
        "firefox" => "Firefox".into(),
        "webkit" => "WebKit".into(),
        other => other.into(),
    }
}

/// `Linux`, `macOS`, `Windows`; another name as given.
fn platform_name(platform: &str) -> String {
    match platform {
        "linux" => "Linux".into(),
        "darwin" => "macOS".into(),
        "win32" => "Windows".into(),
        other => other.into(),
    }
}

/// The two sides' environments and what differs between them (`differences` is empty when
/// they are the same, or when a side did not record one: a baseline approved before this was
/// recorded).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentComparison {
    pub baseline: Option<Environment>,
    pub current: Option<Environment>,
    /// Each difference in words: `Chromium 153.0.7390.0 → 156.0.8078.114`, `platform macOS →
    /// Linux`, `device scale factor 1 → 2`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub differences: Vec<String>,
    /// Text drawn with another font than the baseline's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub font_substitutions: Vec<FontSubstitution>,
    /// Files loaded under the same URL on both sides whose bytes differ.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replaced_assets: Vec<ReplacedAsset>,
}

/// Text of one `font-family` drawn with another face than in the baseline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FontSubstitution {
    pub family: String,
    pub baseline: String,
    pub current: String,
}

impl FontSubstitution {
    /// `font "Inter, sans-serif" rendered with DejaVu Sans here, with Helvetica in the baseline`.
    pub fn sentence(&self) -> String {
        format!("font \"{}\" rendered with {} here, with {} in the baseline", self.family, self.current, self.baseline)
    }
}

impl EnvironmentComparison {
    /// Compares the two sides' environments; `None` when neither recorded one.
    pub fn of(baseline: Option<&Environment>, current: Option<&Environment>) -> Option<Self> {
        if baseline.is_none() && current.is_none() {
            return None;
        }
        let mut differences = Vec::new();
        let mut font_substitutions = Vec::new();
        if let (Some(b), Some(c)) = (baseline, current) {
            if b.browser != c.browser {
                differences.push(format!("browser {} → {}", browser_name(&b.browser), browser_name(&c.browser)));
            } else if b.browser_version != c.browser_version {
                let name = browser_name(&c.browser);
                differences.push(format!("{name} {} → {}", b.browser_version, c.browser_version));
            }
            if b.platform != c.platform {
                differences.push(format!("platform {} → {}", platform_name(&b.platform), platform_name(&c.platform)));
            }
            if b.rendering_switches != c.rendering_switches {
                differences.push(format!("rendering switches {} → {}", b.switches(), c.switches()));
            }
            if b.device_scale_factor != c.device_scale_factor {
                differences.push(format!("device scale factor {} → {}", b.device_scale_factor, c.device_scale_factor));
            }
            for font in &c.fonts {
                let (Some(now), Some(then)) = (font.faces.first(), b.main_face(&font.family)) else { continue };
                if now.name != then.name {
                    font_substitutions.push(FontSubstitution {
                        family: font.family.clone(),
                        baseline: then.name.clone(),
                        current: now.name.clone(),
                    });
                }
            }
        }
        let replaced_assets = match (baseline, current) {
            (Some(b), Some(c)) => replaced_assets(b, c),
            _ => Vec::new(),
        };
        Some(Self {
            baseline: baseline.cloned(),
            current: current.cloned(),
            differences,
            font_substitutions,
            replaced_assets,
        })
    }

    /// The DOM records' digests of the `<img>` sources whose files have the same bytes on both
    /// sides: the engine alone draws them ([`rendering_regions`](crate::dom::rendering_regions)).
    /// Files are paired as [`same_file`] pairs them (the page may be served on another host or
    /// port); each side's digest is the one its record (`doms`: the baseline's, the capture's)
    /// holds.
    pub fn proven_images(&self, doms: [&DomSnapshot; 2]) -> Vec<String> {
        let (Some(baseline), Some(current)) = (&self.baseline, &self.current) else { return Vec::new() };
        let [baseline_dom, current_dom] = doms;
        let mut proven = Vec::new();
        for c in current.assets.iter().filter(|a| a.kind == AssetKind::Image) {
            let same =
                |b: &&Asset| b.kind == AssetKind::Image && b.digest == c.digest && same_file(b, baseline, c, current);
            if let Some(b) = baseline.assets.iter().find(same) {
                for digest in [
                    image_source_digest(current_dom.image_name(&c.url)),
                    image_source_digest(baseline_dom.image_name(&b.url)),
                ] {
                    if !proven.contains(&digest) {
                        proven.push(digest);
                    }
                }
            }
        }
        proven
    }

    /// True when the browser, the platform or the scale factor differ between the sides.
    pub fn differs(&self) -> bool {
        !self.differences.is_empty()
    }

    /// `Chromium 153 → 156` (or `Chromium 156 on macOS → Linux`): the sides named briefly,
    /// for a verdict; `None` when they do not differ.
    pub fn brief(&self) -> Option<String> {
        let (Some(b), Some(c)) = (&self.baseline, &self.current) else { return None };
        if !self.differs() {
            return None;
        }
        let (from, to) = (b.label(), c.label());
        let same_browser = b.browser == c.browser && b.browser_version == c.browser_version;
        if same_browser && b.platform == c.platform && b.device_scale_factor == c.device_scale_factor {
            // Only the rendering switches differ.
            return Some(format!("{} {}: {} → {}", browser_name(&c.browser), major(c), b.switches(), c.switches()));
        }
        Some(if b.browser == c.browser && b.platform == c.platform && b.browser_version != c.browser_version {
            let (bm, cm) = (major(b), major(c));
            if bm == cm {
                format!("{} {} → {}", browser_name(&c.browser), b.browser_version, c.browser_version)
            } else {
                format!("{} {bm} → {cm}", browser_name(&c.browser))
            }
        } else {
            format!("{from} → {to}")
        })
    }

    /// `environment: baseline Chromium 153.0.1 on Linux, 1×; this capture Chromium 156.0.2 on
    /// Linux, 1×` (a side that recorded none: `not recorded`).
    pub fn sides(&self) -> String {
        let side = |e: &Option<Environment>| e.as_ref().map_or("not recorded".to_string(), Environment::full_label);
        format!("environment: baseline {}; this capture {}", side(&self.baseline), side(&self.current))
    }

    /// What differs, one line each (none when nothing does): the environments, then each font
    /// substitution, as a failing test and `explain` print them under the verdict.
    pub fn notes(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if self.differs() {
            lines.push(format!("rendered elsewhere: {}", self.differences.join("; ")));
        }
        lines.extend(self.font_substitutions.iter().map(FontSubstitution::sentence));
        lines.extend(self.replaced_assets.iter().map(|a| format!("replaced under its URL: {}", a.label())));
        lines
    }

    /// How to read the evidence when the environments differ, for `explain_snapshot`'s guidance
    /// (none when they do not).
    pub fn guidance(&self) -> Vec<String> {
        let mut g = Vec::new();
        if let Some(brief) = self.brief() {
            g.push(format!(
                "The baseline and this capture were rendered in different environments ({brief}): the same page can be drawn with text, borders and edges a little apart there, so read the DOM and style layers before the pixels."
            ));
        }
        for substitution in &self.font_substitutions {
            g.push(format!(
                "{}: text set in it takes other widths and shapes. To compare like with like, install the same fonts on both machines, keep one baseline per platform (baselinePath \"{{name}}/{{project}}-{{platform}}\"), or capture in one container image.",
                capitalised(&substitution.sentence())
            ));
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(version: &str, platform: &str, face: &str) -> Environment {
        Environment {
            browser: "chromium".into(),
            browser_version: version.into(),
            platform: platform.into(),
            device_scale_factor: 1.0,
            fonts: vec![RenderedFont {
                family: "Inter, sans-serif".into(),
                faces: vec![FontFace { name: face.into(), web: false }],
            }],
            rendering_switches: Vec::new(),
            assets: Vec::new(),
            page_url: String::new(),
        }
    }

    /// The same page's environment served at `localhost:3000/shop` and at `127.0.0.1:4173/shop`,
    /// each side loading the image files `(path, baseline digest, current digest)`.
    fn on_two_hosts(files: &[(&str, &str, &str)]) -> (Environment, Environment) {
        let side = |origin: &str, current: bool| Environment {
            page_url: format!("{origin}/shop"),
            assets: files
                .iter()
                .map(|&(path, then, now)| Asset {
                    kind: AssetKind::Image,
                    url: format!("{origin}{path}"),
                    digest: if current { now } else { then }.into(),
                })
                .collect(),
            ..env("156.0.1", "linux", "A")
        };
        (side("http://localhost:3000", false), side("http://127.0.0.1:4173", true))
    }

    #[test]
    fn the_same_image_file_served_on_another_port_is_proven() {
        let (mut before, after) = on_two_hosts(&[("/hero.png", "aa", "aa"), ("/logo.png", "bb", "cc")]);
        let dom = |url: &str, version: u32| {
            let mut v = crate::dom::test_records::with_style_rows(&crate::dom::test_records::page());
            v["url"] = serde_json::json!(url);
            v["version"] = serde_json::json!(version);
            crate::dom::test_records::parse(&v)
        };
        let compared = EnvironmentComparison::of(Some(&before), Some(&after)).unwrap();
        let (b, c) = (dom("http://localhost:3000/shop", 3), dom("http://127.0.0.1:4173/shop", 3));
        // The logo's bytes changed; the hero is the same file, named by its path on both sides.
        assert_eq!(compared.proven_images([&b, &c]), [image_source_digest("/hero.png")]);
        // A baseline of version 2 names it by its absolute URL: both digests are proven.
        let old = dom("http://localhost:3000/shop", 2);
        assert_eq!(
            compared.proven_images([&old, &c]),
            [image_source_digest("/hero.png"), image_source_digest("http://localhost:3000/hero.png")]
        );
        // An environment recorded before its page was: files are paired by whole URL, as then.
        before.page_url.clear();
        assert!(EnvironmentComparison::of(Some(&before), Some(&after)).unwrap().proven_images([&b, &c]).is_empty());
    }

    #[test]
    fn an_asset_replaced_under_its_url_is_named() {
        let asset = |url: &str, digest: &str| Asset { kind: AssetKind::Font, url: url.into(), digest: digest.into() };
        let mut before = env("156.0.1", "linux", "A");
        before.assets = vec![asset("http://x/brand.woff2", "aa"), asset("http://x/old.woff2", "bb")];
        let mut after = before.clone();
        after.assets = vec![asset("http://x/brand.woff2", "cc"), asset("http://x/new.woff2", "dd")];
        let compared = EnvironmentComparison::of(Some(&before), Some(&after)).unwrap();
        assert_eq!(
            compared.replaced_assets,
            [ReplacedAsset { kind: AssetKind::Font, url: "http://x/brand.woff2".into() }]
        );
        assert!(!compared.differs(), "the same environment");
        assert_eq!(compared.notes(), ["replaced under its URL: font http://x/brand.woff2"]);
    }

    #[test]
    fn an_asset_replaced_under_its_path_is_named_on_another_host() {
        let (mut before, after) = on_two_hosts(&[("/logo.png", "aa", "cc"), ("/hero.png", "bb", "bb")]);
        let compared = EnvironmentComparison::of(Some(&before), Some(&after)).unwrap();
        assert_eq!(
            compared.replaced_assets,
            [ReplacedAsset { kind: AssetKind::Image, url: "http://127.0.0.1:4173/logo.png".into() }]
        );
        // A baseline recorded before pages were: whole URLs, as then (none match across hosts).
        before.page_url.clear();
        assert!(EnvironmentComparison::of(Some(&before), Some(&after)).unwrap().replaced_assets.is_empty());
        let same_host = before.clone();
        let mut replaced = same_host.clone();
        replaced.assets[0].digest = "dd".into();
        replaced.page_url = "http://localhost:3000/shop".into();
        assert_eq!(EnvironmentComparison::of(Some(&same_host), Some(&replaced)).unwrap().replaced_assets.len(), 1);
    }

    #[test]
    fn rendering_switches_make_another_environment() {
        let args = ["--no-sandbox", "--disable-lcd-text", "--font-render-hinting=none", "--disable-lcd-textual"];
        let switches = rendering_switches(&args.map(String::from));
        assert_eq!(switches, ["--disable-lcd-text", "--font-render-hinting=none"]);
        let plain = env("156.0.8078.114", "linux", "A");
        let flagged = Environment { rendering_switches: switches, ..plain.clone() };
        let compared = EnvironmentComparison::of(Some(&plain), Some(&flagged)).unwrap();
        assert_eq!(
            compared.differences,
            ["rendering switches default rendering → --disable-lcd-text --font-render-hinting=none"]
        );
        assert_eq!(
            compared.brief().unwrap(),
            "Chromium 156: default rendering → --disable-lcd-text --font-render-hinting=none"
        );
        assert_eq!(flagged.label(), "Chromium 156 on Linux, --disable-lcd-text --font-render-hinting=none");
    }

    #[test]
    fn the_same_environment_differs_in_nothing() {
        let a = env("156.0.8078.114", "linux", "DejaVu Sans");
        let same = EnvironmentComparison::of(Some(&a), Some(&a.clone())).unwrap();
        assert!(!same.differs());
        assert_eq!(same.brief(), None);
        assert!(same.font_substitutions.is_empty());
        assert_eq!(
            same.sides(),
            "environment: baseline Chromium 156.0.8078.114 on Linux, 1×; this capture Chromium 156.0.8078.114 on Linux, 1×"
        );
        assert!(same.notes().is_empty() && same.guidance().is_empty());
        assert_eq!(EnvironmentComparison::of(None, None), None);
        // A baseline from before environments were recorded: nothing to say differs.
        assert!(!EnvironmentComparison::of(None, Some(&a)).unwrap().differs());
    }

    #[test]
    fn an_upgrade_a_machine_and_a_substituted_font_are_named() {
        let old = env("153.0.7390.0", "darwin", "Helvetica");
        let new = env("156.0.8078.114", "linux", "DejaVu Sans");
        let compared = EnvironmentComparison::of(Some(&old), Some(&new)).unwrap();
        assert_eq!(compared.differences, ["Chromium 153.0.7390.0 → 156.0.8078.114", "platform macOS → Linux"]);
        assert_eq!(compared.brief().unwrap(), "Chromium 153 on macOS → Chromium 156 on Linux");
        assert_eq!(
            compared.font_substitutions[0].sentence(),
            "font \"Inter, sans-serif\" rendered with DejaVu Sans here, with Helvetica in the baseline"
        );
        assert_eq!(
            compared.notes(),
            [
                "rendered elsewhere: Chromium 153.0.7390.0 → 156.0.8078.114; platform macOS → Linux",
                "font \"Inter, sans-serif\" rendered with DejaVu Sans here, with Helvetica in the baseline",
            ]
        );
        assert_eq!(compared.guidance().len(), 2);
        assert!(compared.guidance()[1].starts_with("Font \"Inter, sans-serif\" rendered with DejaVu Sans here"));
        let upgrade =
            EnvironmentComparison::of(Some(&env("153.0.1", "linux", "A")), Some(&env("156.0.2", "linux", "A")));
        assert_eq!(upgrade.unwrap().brief().unwrap(), "Chromium 153 → 156");
        let patch = EnvironmentComparison::of(Some(&env("156.0.1", "linux", "A")), Some(&env("156.0.2", "linux", "A")));
        assert_eq!(patch.unwrap().brief().unwrap(), "Chromium 156.0.1 → 156.0.2");
    }

    #[test]
    fn a_reported_environment_is_checked_and_its_fonts_sorted() {
        let mut e = env("156", "linux", "A");
        e.fonts.insert(0, RenderedFont { family: "Zed".into(), faces: vec![] });
        assert_eq!(e.clone().checked().unwrap().fonts[0].family, "Inter, sans-serif");
        e.browser = String::new();
        assert_eq!(e.clone().checked().unwrap_err(), "environment browser must be 1 to 256 bytes, got \"\"");
        e.browser = "chromium".into();
        e.device_scale_factor = 0.0;
        assert_eq!(e.checked().unwrap_err(), "environment deviceScaleFactor must be above 0, got 0");
    }
}
