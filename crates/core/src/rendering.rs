//! Environment-aware verdicts (issue 37): what a comparison across two environments — another
//! browser build, another machine — may conclude from its rendering regions
//! ([`dom::rendering_regions`](crate::dom::rendering_regions)).
//!
//! - Every differing region a rendering region, the environments different, the DOM, styles,
//!   layout and fonts the same: the verdict is `rendering`, and it passes unless
//!   `strictRendering` is set. A browser upgrade does not fail a suite whose pages did not change.
//! - Some regions real: the rendering regions are set aside before the shape rules and
//!   `noiseAutoPass` look at what remains ([`set_aside`]), so a real change among engine
//!   differences is judged on its own, and the environment difference is named beside it.
//! - Boxes that moved with the same DOM, styles and fonts across environments: text shaped
//!   differently by the other engine, decided by a person ([`reshaped_line`]).
//! - A font drawn by another face on this side: named, with what fixes it ([`font_note`]).

use crate::compare::ImageComparison;
use crate::dom::{DomComparison, StyleCheck};
use crate::environment::EnvironmentComparison;
use crate::health::AssetKind;
use crate::regions::{Classification, ElementRole, Region};
use crate::shape::{Shape, classify_shape};
use crate::words::{box_size, plural};

/// Whether the fonts are known to be the same on both sides: no family was drawn by another
/// face, and across environments both sides recorded their fonts (a baseline approved before
/// fonts were recorded proves nothing).
pub fn fonts_proven(environment: Option<&EnvironmentComparison>) -> bool {
    let Some(env) = environment else { return false };
    let recorded = |side: &Option<crate::environment::Environment>| side.as_ref().is_some_and(|e| !e.fonts.is_empty());
    let font_replaced = env.replaced_assets.iter().any(|a| a.kind == AssetKind::Font);
    env.font_substitutions.is_empty()
        && !font_replaced
        && (!env.differs() || (recorded(&env.baseline) && recorded(&env.current)))
}

/// Whether regions may be labelled `rendering`: the fonts are proven the same, or no environment
/// was recorded at all (captures made before environments were), where the label informs the
/// evidence and the verdict rules stay as they were ([`fonts_proven`] gates every verdict).
pub fn no_font_differs(environment: Option<&EnvironmentComparison>) -> bool {
    environment.is_none() || fonts_proven(environment)
}

/// The line of the `assetReplaced` verdict: a web font, an image or a stylesheet loaded under
/// the same URL on both sides with other bytes in this capture — a real change the DOM cannot
/// show, never noise. `element` names where most pixels changed.
pub fn asset_line(
    pixel: &ImageComparison,
    environment: Option<&EnvironmentComparison>,
    element: Option<&str>,
) -> Option<String> {
    let replaced = &environment?.replaced_assets;
    let first = replaced.first()?;
    let more = if replaced.len() > 1 { format!(" (and {} more)", replaced.len() - 1) } else { String::new() };
    let on = element.map(|e| format!(" on {e}")).unwrap_or_default();
    Some(format!(
        "Asset replaced under its URL: {}{more} has other bytes than in the baseline; {} pixels differ{on} with DOM and styles identical — a real change, not noise; compare the images",
        first.label(),
        pixel.diff_pixels
    ))
}

/// `; also replaced under its URL: image http://x/hero.png`, for a verdict that names another
/// change first.
pub fn asset_note(environment: Option<&EnvironmentComparison>) -> String {
    let Some(first) = environment.and_then(|e| e.replaced_assets.first()) else { return String::new() };
    format!("; also replaced under its URL: {}", first.label())
}

/// The pixels a verdict judges once rendering regions are set aside: the diff outside them, its
/// share of the canvas and its shape. `None` when nothing is set aside (no rendering region, or
/// nothing else).
pub struct Remaining {
    pub diff_pixels: u64,
    pub diff_percent: f64,
    pub shape: Shape,
    pub regions: Vec<Region>,
    /// The rendering regions set aside, and the elements under them.
    pub set_aside: usize,
}

/// What remains of `pixel` once its rendering regions are set aside, when some are and some
/// other region remains.
pub fn set_aside(pixel: &ImageComparison) -> Option<Remaining> {
    let (rendering, real): (Vec<&Region>, Vec<&Region>) =
        pixel.regions.iter().partition(|r| r.classification == Classification::Rendering);
    if rendering.is_empty() || real.is_empty() {
        return None;
    }
    let aside: u64 = rendering.iter().map(|r| r.diff_pixels).sum();
    let diff_pixels = pixel.diff_pixels.saturating_sub(aside);
    let diff_percent =
        if pixel.total_pixels == 0 { 0.0 } else { diff_pixels as f64 * 100.0 / pixel.total_pixels as f64 };
    let regions: Vec<Region> = real.into_iter().cloned().collect();
    let shape = classify_shape(&regions, diff_percent, pixel.total_pixels);
    Some(Remaining { diff_pixels, diff_percent, shape, regions, set_aside: rendering.len() })
}

/// The line of the `rendering` verdict, when it applies: the environments differ, the fonts are
/// proven the same, the DOM, styles and layout are the same, and every region is a rendering
/// region. `strict`: it fails, and says how to take the new rendering.
pub fn rendering_line(
    pixel: &ImageComparison,
    dom: &DomComparison,
    environment: Option<&EnvironmentComparison>,
    strict: bool,
) -> Option<String> {
    let brief = environment.and_then(EnvironmentComparison::brief)?;
    let same_page = !dom.changed && dom.style_check == StyleCheck::Match && dom.geometry_changes.count == 0;
    let all_rendering =
        !pixel.regions.is_empty() && pixel.regions.iter().all(|r| r.classification == Classification::Rendering);
    if !(same_page && all_rendering && fonts_proven(environment) && pixel.shift.is_none()) {
        return None;
    }
    let elements = drawn_elements(&pixel.regions);
    Some(format!(
        "Rendering differs ({brief}): same DOM, styles and layout; text and edges drawn differently on {}{}",
        plural(elements, "element"),
        if strict {
            "; strictRendering fails it: approve it to take this environment's rendering as the baseline"
        } else {
            ""
        }
    ))
}

/// The line of the `textReshaped` verdict: boxes moved or resized while the DOM, styles and
/// fonts stayed the same across two environments, so the other engine shaped the same text
/// differently (advance widths, line breaks). Never passed silently: a person decides. Only when
/// every region that is not a rendering region has a moved element under it: a region where
/// nothing moved (an image replaced under the same URL) is a change of its own, judged by the
/// shape rules.
pub fn reshaped_line(
    pixel: &ImageComparison,
    dom: &DomComparison,
    environment: Option<&EnvironmentComparison>,
) -> Option<String> {
    let env = environment.filter(|e| e.differs())?;
    let same_content = !dom.changed && dom.style_check == StyleCheck::Match;
    let moved = |r: &Region| r.elements.iter().any(|e| e.role == ElementRole::Moved);
    // Rows past the shorter capture's end: the page grew or shrank with the re-wrapped text.
    let shorter = pixel.baseline_size.height.min(pixel.current_size.height);
    let past_the_end = |r: &Region| pixel.size_changed && r.y >= shorter && !dom.geometry_changes.resized.is_empty();
    let explained = pixel
        .regions
        .iter()
        .filter(|r| r.classification != Classification::Rendering)
        .all(|r| moved(r) || past_the_end(r));
    // The sizes changed where text is: a box that grew with no text of its own (a taller hero)
    // is a layout change, whatever drew it.
    let from_text = dom.geometry_changes.resized_without_text == 0;
    if !(same_content && explained && from_text && dom.geometry_changes.count > 0 && fonts_proven(environment)) {
        return None;
    }
    let current = env.current.as_ref().map(|c| c.label()).unwrap_or_default();
    let geometry = &dom.geometry_changes;
    let example = geometry
        .resized
        .iter()
        .find(|r| r.innermost)
        .or(geometry.resized.first())
        .map(|r| format!(" ({} {} → {})", r.selector, box_size(r.from), box_size(r.to)))
        .unwrap_or_default();
    Some(format!(
        "Text shaped differently by {current}: {} moved or resized{example} with the same DOM, styles and fonts ({}); compare the images, then approve this environment's layout or keep per-environment baselines",
        plural(geometry.count, "element"),
        env.brief().unwrap_or_default()
    ))
}

/// The line of the `fontSubstituted` verdict: the DOM and styles are the same, and a family was
/// drawn by another local font than in the baseline, so its text differs wherever it is. Fails:
/// the fonts differ, and what else differs beside them is for a person to see in the images.
/// `named` is the element the verdict names (the largest region's).
pub fn font_line(
    pixel: &ImageComparison,
    dom: &DomComparison,
    environment: Option<&EnvironmentComparison>,
    named: Option<&str>,
) -> Option<String> {
    let substituted = substitution(environment?)?;
    if dom.changed || dom.style_check != StyleCheck::Match {
        return None;
    }
    let on = match (named, pixel.regions.len()) {
        (None, _) => String::new(),
        (Some(e), 1) => format!(" on {e}"),
        (Some(e), _) => format!(", the most on {e}"),
    };
    let resized = dom.geometry_changes.resized_note();
    Some(format!(
        "Font substituted: {substituted}; {} pixels differ in {}{on}{resized}, with DOM and styles identical: {FONT_FIXES}, and compare the images for anything else",
        pixel.diff_pixels,
        plural(pixel.regions.len(), "region"),
    ))
}

/// `; rendered elsewhere (Chromium 153 → 156), 12 regions drawn differently set aside`: what a
/// verdict of a real change says of the environments, so the difference is named and never
/// hides the change.
pub fn environment_note(environment: Option<&EnvironmentComparison>, set_aside: usize) -> String {
    let Some(brief) = environment.and_then(EnvironmentComparison::brief) else {
        return String::new();
    };
    if set_aside == 0 {
        format!("; also rendered elsewhere ({brief})")
    } else {
        format!("; also rendered elsewhere ({brief}): {} drawn differently set aside", plural(set_aside, "region"))
    }
}

/// `; font "Inter" rendered with DejaVu Sans here, with Helvetica in the baseline: …`: the
/// first substitution, with what fixes it.
pub fn font_note(environment: Option<&EnvironmentComparison>) -> String {
    environment.and_then(substitution).map(|s| format!("; {s}: {FONT_FIXES}")).unwrap_or_default()
}

/// What fixes a substituted font, as [`font_line`] and [`font_note`] say it.
const FONT_FIXES: &str = "install the same fonts, keep baselines per platform (\"baselinePath\": \"{name}/{project}-{platform}\") or capture in a container";

/// The first font substitution's sentence, with how many more families were substituted.
fn substitution(environment: &EnvironmentComparison) -> Option<String> {
    let substitutions = &environment.font_substitutions;
    let others = match substitutions.len().checked_sub(1)? {
        0 => String::new(),
        more => format!(" (and {})", plural(more, "more family")),
    };
    Some(format!("{}{others}", substitutions.first()?.sentence()))
}

/// Distinct elements named under `regions`.
fn drawn_elements(regions: &[Region]) -> usize {
    let mut selectors: Vec<&str> =
        regions.iter().flat_map(|r| r.elements.iter().map(|e| e.selector.as_str())).collect();
    selectors.sort_unstable();
    selectors.dedup();
    selectors.len()
}
