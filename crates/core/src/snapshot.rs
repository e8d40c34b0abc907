//! One snapshot compared end to end: pixel layer, DOM layer, capture health, attribution and
//! the verdict, as one `SnapshotEvidence` (a `snapshots[]` entry of results.json).

use serde::{Deserialize, Serialize};

use crate::compare::{
    CompareOptions, DiffDrawing, DiffImage, ImageComparison, Size, compare_images_drawing, compare_images_marking,
    faded_image,
};
use crate::damaged::{DamagedFile, DamagedSide};
use crate::dom::{DomComparison, DomSnapshot, attribute_regions, compare_dom, rendering_regions};
use crate::environment::{Environment, EnvironmentComparison};
use crate::error::Result;
use crate::health::{CaptureHealth, HealthReason, capture_health, one_per_asset, reasons_from_dom};
use crate::image::ImageRef;
use crate::mask::masked_pair;
use crate::regions::Classification;
use crate::shift::PageShift;
use crate::verdict::{Status, Tolerance, Verdict, VerdictKind, decide, new_snapshot_verdict};

/// One side of a comparison: the pixels, the DOM record when collected, and the asset failures
/// seen while capturing (network / console; the DOM's own failures are added here).
#[derive(Debug, Clone, Copy)]
pub struct CaptureSide<'a> {
    pub image: ImageRef<'a>,
    pub dom: Option<&'a DomSnapshot>,
    pub failures: &'a [HealthReason],
    /// Where the side was rendered, when recorded.
    pub environment: Option<&'a Environment>,
}

/// Options of [`compare_snapshot`]. Their `Default` is the default settings' (the config
/// module's, which resolves settings into these options).
#[derive(Debug, Clone)]
pub struct SnapshotOptions {
    pub compare: CompareOptions,
    pub tolerance: Tolerance,
    /// RGBA painted over masked boxes on both images before they are compared.
    pub mask_color: [u8; 4],
}

/// Paths (relative to the project root) of the images the report and MCP show.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotFiles {
    pub baseline: Option<String>,
    pub current: Option<String>,
    pub diff: Option<String>,
}

/// The comparison layers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Layers {
    /// `None` for a new snapshot.
    pub pixel: Option<ImageComparison>,
    /// `None` when either side has no DOM data.
    pub dom: Option<DomComparison>,
}

/// Which accepted state a snapshot's evidence is against, when it has accepted variants
/// (`snapshots[].accepted` in results.json, kept by `sightline approve --as-variant`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AcceptedState {
    /// The accepted variant the evidence is against; absent: the baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<u8>,
    /// The capture matches that state: the snapshot passed on an accepted variant.
    pub matched: bool,
    /// How many accepted states the snapshot has: its baseline and its variants.
    pub states: u8,
    /// Accepted variants that could not be read, left out of the comparison.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<DamagedFile>,
}

impl AcceptedState {
    /// What the verdict line adds: which state the capture matched, or which one the evidence
    /// is against and that it was the closest; then each variant that could not be read.
    pub fn clause(&self) -> String {
        let state = match self.variant {
            Some(n) => format!("accepted variant {n}"),
            None => "the baseline".to_string(),
        };
        let mut clause = if self.matched {
            format!(" — matches {state}")
        } else {
            format!(" — compared with {state}, the closest of {} accepted states", self.states)
        };
        for damaged in &self.unreadable {
            clause.push_str(&format!("; {} could not be read ({}): {}", damaged.file, damaged.problem, damaged.fix));
        }
        clause
    }
}

/// Everything known about one snapshot.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotEvidence {
    pub name: String,
    pub project: String,
    pub status: Status,
    pub auto_passed: bool,
    /// The one-line verdict.
    pub verdict: String,
    /// Which verdict rule matched.
    pub verdict_kind: VerdictKind,
    pub files: SnapshotFiles,
    pub baseline_size: Option<Size>,
    pub current_size: Size,
    pub layers: Layers,
    pub capture_health: CaptureHealth,
    /// Where each side was rendered and what differs between them; absent when neither side
    /// recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<EnvironmentComparison>,
    /// The file that could not be read, for a snapshot with the status `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damaged: Option<DamagedFile>,
    /// Which accepted state the evidence is against, when the snapshot has accepted variants and
    /// the baseline did not match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<AcceptedState>,
}

impl SnapshotEvidence {
    /// The page never settled: the snapshot is `unstable` whatever the comparison found, naming
    /// how long it was shot (`waited_ms`) and what kept changing (`area`).
    pub fn mark_unsettled(&mut self, waited_ms: u64, area: &str) {
        let verdict = crate::verdict::unstable_verdict(waited_ms, area);
        (self.status, self.verdict_kind, self.verdict) = (verdict.status, verdict.kind, verdict.line);
        self.auto_passed = false;
    }

    /// The two environments, briefly (`Chromium 153 → 156`), when the capture was rendered
    /// elsewhere than its baseline and the verdict does not already say so (a pass, an unhealthy
    /// capture): what a list of verdicts marks beside one.
    pub fn unsaid_environment(&self) -> Option<String> {
        let brief = self.environment.as_ref()?.brief()?;
        (!self.verdict.contains(&brief)).then_some(brief)
    }

    /// Decides the verdict's line again from the evidence, after something was added to it that
    /// the line says (the rules behind restyled elements); the status and kind stay.
    pub fn decide_line_again(&mut self, tolerance: &crate::verdict::Tolerance) {
        if let Some(pixel) = &self.layers.pixel {
            let health = &self.capture_health;
            let verdict = decide(pixel, self.layers.dom.as_ref(), health, tolerance, self.environment.as_ref());
            if verdict.status == self.status && verdict.kind == self.verdict_kind {
                self.verdict = verdict.line;
                self.add_accepted_clause();
            }
        }
    }

    /// Ends the verdict with which accepted state the evidence is against ([`AcceptedState::clause`]).
    pub fn add_accepted_clause(&mut self) {
        if let Some(accepted) = &self.accepted {
            self.verdict.push_str(&accepted.clause());
        }
    }

    /// The accepted variant the evidence is against (`None`: the baseline).
    pub fn accepted_variant(&self) -> Option<u8> {
        self.accepted.as_ref().and_then(|a| a.variant)
    }

    /// Whether a person may accept this capture as another state of its snapshot, beside the
    /// baseline (an accepted variant): it changed against a baseline that could be read.
    pub fn may_become_variant(&self) -> bool {
        self.status == Status::Changed && self.damaged.is_none()
    }

    /// Whether the test should fail.
    pub fn failed(&self) -> bool {
        matches!(self.status, Status::Changed | Status::New | Status::Missing | Status::Error)
    }

    /// The capture is unhealthy (failed assets) or its page never settled: its verdict says
    /// never to make it a baseline, so approving holds it unless asked for it explicitly.
    pub fn held_from_approval(&self) -> bool {
        self.capture_health.unhealthy || matches!(self.verdict_kind, VerdictKind::Unhealthy | VerdictKind::Unstable)
    }

    /// The evidence of snapshot `name` of `project` that could not be compared because `damaged`
    /// cannot be read. `current_size` is the capture's size when the capture was read (the
    /// baseline is the damaged one), else 0×0.
    pub fn not_compared(name: &str, project: &str, damaged: DamagedFile, current_size: Option<Size>) -> Self {
        SnapshotEvidence {
            name: name.to_string(),
            project: project.to_string(),
            status: Status::Error,
            auto_passed: false,
            verdict: damaged.verdict(),
            verdict_kind: VerdictKind::Damaged,
            files: SnapshotFiles::default(),
            baseline_size: None,
            current_size: current_size.unwrap_or(Size { width: 0, height: 0 }),
            layers: Layers { pixel: None, dom: None },
            capture_health: CaptureHealth::default(),
            environment: None,
            damaged: Some(damaged),
            accepted: None,
        }
    }

    /// Whether a person may make this capture the baseline: it changed or is new, or it replaces
    /// a [damaged baseline](Self::replaces_damaged_baseline), and it is not
    /// [held](Self::held_from_approval). A damaged capture never is.
    pub fn approvable(&self) -> bool {
        (self.status.needs_review() || self.replaces_damaged_baseline()) && !self.held_from_approval()
    }

    /// A person decides on this snapshot (approve or reject): it changed or is new, or its
    /// damaged baseline is to be replaced. The review page and the MCP approve tools offer it.
    pub fn awaits_decision(&self) -> bool {
        self.status.needs_review() || self.replaces_damaged_baseline()
    }

    /// The baseline cannot be read and this run's capture can: approving the capture replaces
    /// the damaged file.
    pub fn replaces_damaged_baseline(&self) -> bool {
        self.damaged.as_ref().is_some_and(|d| d.side == DamagedSide::Baseline)
    }

    /// The command a person runs to approve this capture, when it is [`approvable`](Self::approvable).
    /// Only for people (a failing test, the CLI, the HTML report): a model approves nothing on its
    /// own, so no MCP answer carries it.
    pub fn approve_command(&self) -> Option<String> {
        self.approvable().then(|| format!("npx sightline approve {}", self.name))
    }

    /// The line that tells a person how to approve this snapshot (see [`approve_hint`]).
    pub fn approve_hint(&self) -> Option<String> {
        match self.approvable() {
            // Approving is how a damaged baseline is replaced, not a judgement of a change.
            true if self.replaces_damaged_baseline() => {
                Some(format!("To replace it: npx sightline approve {} (or run the tests with -u)", self.name))
            }
            true => approve_hint(&[self.name.as_str()]),
            false => None,
        }
    }

    /// The evidence under the verdict line, one line each, as a failing test and `sightline
    /// explain` print it: the first `regions` regions with the elements they map to, then the
    /// first `properties` restyled properties (`selector property: from → to`), then how to
    /// approve (people read these lines, never a model).
    pub fn explanation(&self, regions: usize, properties: usize) -> Vec<String> {
        let mut lines = Vec::new();
        let found = self.layers.pixel.as_ref().map_or(&[][..], |p| &p.regions[..]);
        for r in found.iter().take(regions) {
            let who: Vec<String> = r.elements.iter().map(|e| format!("{} ({})", e.selector, e.role)).collect();
            let who = if who.is_empty() { String::new() } else { format!(" — {}", who.join(", ")) };
            lines.push(format!(
                "{} {}×{} at {},{}: {} px{who}",
                r.classification, r.width, r.height, r.x, r.y, r.diff_pixels
            ));
        }
        if found.len() > regions {
            lines.push(format!("… {} more regions", found.len() - regions));
        }
        // A traced change says where its value comes from; an untraced one, what changed.
        let dom = self.layers.dom.as_ref();
        let trace = dom.and_then(|d| d.style_trace.as_ref());
        match trace.filter(|t| t.error.is_none()) {
            Some(trace) => lines.extend(trace.lines(properties)),
            None => {
                lines.extend(dom.iter().flat_map(|d| &d.token_changes).map(|t| format!("token {}", t.describe())));
                let changed = dom.map_or(&[][..], |d| &d.style_changes.properties[..]);
                for p in changed.iter().take(properties) {
                    lines.push(format!("{} {}: {} → {}", p.selector, p.property, p.from, p.to));
                }
                lines.extend(trace.and_then(|t| t.error.as_ref()).map(|e| format!("the rules were not traced: {e}")));
            }
        }
        lines.extend(self.environment.iter().flat_map(EnvironmentComparison::notes));
        lines.extend(self.approve_hint());
        lines
    }
}

/// `name (project)`, or `name` alone for a run without named projects: how every list names a
/// snapshot.
pub fn snapshot_label(name: &str, project: &str) -> String {
    if project.is_empty() { name.to_string() } else { format!("{name} ({project})") }
}

/// The line that tells a person how to approve `names`: the command, or the update flag. People
/// read it (a failing test, the CLI); no model-facing answer carries it.
pub fn approve_hint(names: &[&str]) -> Option<String> {
    (!names.is_empty())
        .then(|| format!("If this is intended: npx sightline approve {} (or run the tests with -u)", names.join(" ")))
}

/// The line that tells a person how to replace the damaged baselines of `names` with this run's
/// captures. Apart from [`approve_hint`]: replacing a file that cannot be read is not a judgement
/// that a change is intended.
pub fn replace_damaged_hint(names: &[&str]) -> Option<String> {
    let what = if names.len() == 1 { "baseline" } else { "baselines" };
    (!names.is_empty()).then(|| {
        format!("To replace the damaged {what}: npx sightline approve {} (or run the tests with -u)", names.join(" "))
    })
}

/// One reason per failed asset of a side: what the network and the console saw, and what the
/// DOM record shows.
fn failures_of(side: &CaptureSide<'_>) -> Vec<HealthReason> {
    failures_seen(side.failures, side.dom)
}

/// [`failures_of`] a side known by its failures and its DOM record alone.
fn failures_seen(failures: &[HealthReason], dom: Option<&DomSnapshot>) -> Vec<HealthReason> {
    let mut all = failures.to_vec();
    if let Some(dom) = dom {
        all.extend(reasons_from_dom(dom));
    }
    one_per_asset(all, dom.map_or(&[][..], |dom| &dom.fonts[..]))
}

/// Shifts the DOM suggests: every innermost element whose height changed moves what is below
/// its old bottom edge by the change (device pixels).
fn shift_hints(dom: &DomComparison, dpr: f64) -> Vec<PageShift> {
    dom.geometry_changes
        .resized
        .iter()
        .filter(|r| r.innermost)
        .filter_map(|r| {
            let dy = ((r.to[3] - r.from[3]) * dpr).round();
            let bottom = ((r.from[1] + r.from[3]) * dpr).round();
            (dy != 0.0 && bottom >= 0.0).then_some(PageShift { dy: dy as i32, below_y: bottom as u32 })
        })
        .collect()
}

/// Compares a capture with its baseline (`None`: a new snapshot). Returns the evidence and,
/// when `diff_image` is set and the snapshot fails against a baseline, the diff image of that
/// same comparison (drawn when it is encoded): a failing snapshot costs one comparison, and its
/// diff image comes from the comparator that decided it.
pub fn compare_snapshot<'a>(
    name: &str,
    project: &str,
    baseline: Option<CaptureSide<'a>>,
    current: CaptureSide<'a>,
    options: &SnapshotOptions,
    diff_image: bool,
) -> Result<(SnapshotEvidence, Option<DiffImage<'a>>)> {
    let current_size = Size::of(current.image);
    let current_failures = failures_of(&current);
    let environment = EnvironmentComparison::of(baseline.and_then(|b| b.environment), current.environment);
    let evidence = |verdict: Verdict, baseline_size, layers, capture_health| {
        let sizes = (baseline_size, current_size);
        decided_evidence((name, project), verdict, sizes, layers, capture_health, environment.clone())
    };
    let Some(baseline) = baseline else {
        let health = capture_health(current_failures, &[]);
        let layers = Layers { pixel: None, dom: None };
        return Ok((evidence(new_snapshot_verdict(), None, layers, health), None));
    };

    // The DOM layer first: what it says about grown elements guides where a page shift starts.
    let dom = match (baseline.dom, current.dom) {
        (Some(b), Some(c)) => Some((compare_dom(b, c), b, c)),
        _ => None,
    };
    let mut compare_options = options.compare.clone();
    if let Some((comparison, b, _)) = &dom {
        compare_options.shift_hints = shift_hints(comparison, b.device_pixel_ratio);
    }
    // What `mask` covers on either side is painted alike on both: no pixel evidence there.
    let masked =
        dom.as_ref().and_then(|(_, b, c)| masked_pair(baseline.image, current.image, [b, c], options.mask_color));
    let (baseline_pixels, current_pixels) = match &masked {
        Some((b, c)) => (b.view(), c.view()),
        None => (baseline.image, current.image),
    };
    let (mut pixel, diff) = match (&masked, diff_image) {
        // Drawn as it is encoded, from the capture's own pixels and the baseline's.
        (None, true) => compare_images_marking(baseline.image, current.image, &compare_options)?,
        _ => {
            let drawing = if diff_image { DiffDrawing::WhenDifferent } else { DiffDrawing::Never };
            let (pixel, diff) = compare_images_drawing(baseline_pixels, current_pixels, &compare_options, drawing)?;
            (pixel, diff.map(DiffImage::Drawn))
        }
    };
    if let Some((_, b, c)) = &dom {
        let (width, height) = (current.image.width(), current.image.height());
        pixel.ignored = crate::mask::ignored_boxes([b, c], width, height);
    }
    let dom = dom.map(|(comparison, b, c)| {
        let attributed = attribute_regions(&pixel.regions, b, c, &comparison, pixel.shift);
        for (region, elements) in pixel.regions.iter_mut().zip(attributed) {
            region.elements = elements;
        }
        // Where the engine drew the same content differently. Not with another font on one side:
        // the text did change there, and the verdict names the font.
        if crate::rendering::no_font_differs(environment.as_ref()) {
            let proven = environment.as_ref().map(|e| e.proven_images([b, c])).unwrap_or_default();
            let rendering = rendering_regions(&pixel.regions, b, c, &comparison, &proven);
            for (region, rendering) in pixel.regions.iter_mut().zip(rendering) {
                if rendering {
                    region.classification = Classification::Rendering;
                }
            }
        }
        comparison
    });
    let health = capture_health(current_failures, &failures_of(&baseline));
    let verdict = decide(&pixel, dom.as_ref(), &health, &options.tolerance, environment.as_ref());
    let diff = match (diff_image && verdict.status != Status::Passed, diff) {
        (false, _) => None,
        (true, Some(diff)) => Some(diff),
        // Identical pixels failing (an unhealthy capture): nothing to mark, the faded baseline.
        (true, None) => Some(DiffImage::Drawn(faded_image(baseline_pixels, &compare_options)?)),
    };
    let baseline_size = Some(pixel.baseline_size);
    Ok((evidence(verdict, baseline_size, Layers { pixel: Some(pixel), dom }, health), diff))
}

/// The evidence of a capture whose pixels are the baseline's, known without decoding either (the
/// browser returned the same bytes), of `size`; `current` is the capture's
/// data, its DOM record parsed when the page was walked (a masked call). Its DOM is not compared,
/// so it has no DOM layer; the pixel layer and the verdict are what comparing would have found.
pub fn identical_evidence(
    (name, project): (&str, &str),
    size: Size,
    (current, dom): (&crate::store::CaptureData, Option<&DomSnapshot>),
    baseline_environment: Option<&Environment>,
    options: &SnapshotOptions,
) -> SnapshotEvidence {
    let mut pixel = crate::compare::equal_images(size.width, size.height, &options.compare);
    if let Some(dom) = dom {
        pixel.ignored = crate::mask::ignored_boxes([dom, dom], size.width, size.height);
    }
    let environment = EnvironmentComparison::of(baseline_environment, current.environment.as_ref());
    let capture_health = capture_health(failures_seen(&current.failures, dom), &[]);
    let verdict = decide(&pixel, None, &capture_health, &options.tolerance, environment.as_ref());
    let layers = Layers { pixel: Some(pixel), dom: None };
    decided_evidence((name, project), verdict, (Some(size), size), layers, capture_health, environment)
}

/// The evidence of a decided comparison, its files not yet named.
fn decided_evidence(
    (name, project): (&str, &str),
    verdict: Verdict,
    (baseline_size, current_size): (Option<Size>, Size),
    layers: Layers,
    capture_health: CaptureHealth,
    environment: Option<EnvironmentComparison>,
) -> SnapshotEvidence {
    let Verdict { status, auto_passed, kind, line } = verdict;
    SnapshotEvidence {
        name: name.into(),
        project: project.into(),
        status,
        auto_passed,
        verdict: line,
        verdict_kind: kind,
        files: SnapshotFiles::default(),
        baseline_size,
        current_size,
        layers,
        capture_health,
        environment,
        damaged: None,
        accepted: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_explanation_lists_regions_with_their_elements_then_restyled_properties() {
        let example: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/golden/example-results.json")).unwrap();
        let home: SnapshotEvidence = serde_json::from_value(example["snapshots"][2].clone()).unwrap();
        assert_eq!(
            home.explanation(2, 2),
            [
                "change 124×44 at 32,208: 4691 px — body > section.hero > a.btn (changed)",
                "change 30×14 at 51,513: 118 px — body > div.grid > div.card:nth-of-type(1) > p.price (changed)",
                "… 11 more regions",
                "token --brand #2563eb → #dc2626 (<style> in /, line 2), used by 13 restyled elements",
                "body > section.hero > a.btn background-color: rgb(37, 99, 235) → rgb(220, 38, 38) — .btn in /styles.css:8 (background: var(--brand))",
                "body > div.grid > div.card:nth-of-type(1) > p.price color: rgb(37, 99, 235) → rgb(220, 38, 38) — .price in /styles.css:13 (color: var(--brand))",
                "30 changed values follow others (no rule sets them, as border colours follow color)",
                "If this is intended: npx sightline approve home (or run the tests with -u)",
            ]
        );
        // Untraced (`sightline compare`): the changed token, then each property as it changed.
        let mut untraced = home.clone();
        if let Some(dom) = untraced.layers.dom.as_mut() {
            dom.style_trace = None;
        }
        assert_eq!(
            untraced.explanation(0, 1),
            [
                "… 13 more regions",
                "token --brand #2563eb → #dc2626",
                "body > section.hero > a.btn background-color: rgb(37, 99, 235) → rgb(220, 38, 38)",
                "If this is intended: npx sightline approve home (or run the tests with -u)",
            ]
        );
        // No regions and no DOM layer: only how to approve.
        let mut bare = home.clone();
        bare.layers = Layers { pixel: None, dom: None };
        assert_eq!(
            bare.explanation(3, 5),
            ["If this is intended: npx sightline approve home (or run the tests with -u)"]
        );
        // An unhealthy capture is never to be approved: no command.
        bare.capture_health.unhealthy = true;
        assert!(bare.explanation(3, 5).is_empty());
        assert_eq!(bare.approve_command(), None);
    }
}
