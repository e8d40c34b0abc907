//! The tap-target finder (mobile only): WCAG 2.2 SC 2.5.8, Target Size (Minimum), as the W3C's
//! Understanding document states it. A target passes when a 24 × 24 px square fits in it, or —
//! the spacing exception — when a 24 px circle centred on its bounding box intersects no other
//! target and no other undersized target's circle. Targets inside a sentence are exempt (the
//! inline exception). The equivalent, user-agent-control and essential exceptions depend on
//! what a control does, which page facts cannot tell, so a finding may still be excused by one.
//!
//! What counts as a target: a link, button, form control, `summary` or element with a click role
//! that can be tapped — not disabled (`disabled`, inside a disabled fieldset, `aria-disabled`,
//! `inert`), not hidden (`visibility`, opacity 0, zero size, clipped to nothing or to a
//! visually-hidden 1 px box) and not off the page (a skip link parked at `left: -9999px` or
//! above the top until it is focused). `aria-hidden` does not take a visible control out: a
//! finger can still tap it. A target nested in another (a link in a focusable scroll box) is
//! part of it, not a neighbour.

use serde_json::json;

use super::{IssueKind, MAX_PER_FINDER, Page, PageIssue, Severity, measured, round2};

/// Smallest tap target on a phone, in CSS pixels (WCAG 2.2 SC 2.5.8, target size minimum).
pub const MIN_TAP_TARGET: f64 = 24.0;
/// Layout is fractional, painting is in whole pixels: a circle reaching less than half a pixel
/// into another target or circle touches it (the W3C's passing example has 20 px targets exactly
/// 4 px apart, so their circles just touch; 3 px apart they overlap by 1 px and fail). A list of
/// 21 px links 23.8 px apart is no finding on the strength of 0.2 px nobody can see.
const SPACING_TOLERANCE: f64 = 0.5;

/// One target on the page, with the part of its box that shows.
struct Target {
    element: usize,
    rect: [f64; 4],
    /// Exempt as inline in a sentence: a target others must keep clear of, but with no circle.
    inline: bool,
}

impl Target {
    fn undersized(&self) -> bool {
        self.rect[2] < MIN_TAP_TARGET || self.rect[3] < MIN_TAP_TARGET
    }

    fn centre(&self) -> (f64, f64) {
        let [x, y, w, h] = self.rect;
        (x + w / 2.0, y + h / 2.0)
    }

    /// Has a spacing circle: undersized and not exempt.
    fn judged(&self) -> bool {
        self.undersized() && !self.inline
    }
}

/// Why an undersized target fails the spacing exception: the closest target its circle reaches.
struct Conflict {
    other: usize,
    /// From this target's centre to the other's box (or centre, when `circles`).
    distance: f64,
    /// The two circles intersect (both undersized); else the circle reaches the other's box.
    circles: bool,
}

impl Conflict {
    /// How far inside the allowed distance the other target is.
    fn shortfall(&self) -> f64 {
        let needed = if self.circles { MIN_TAP_TARGET } else { MIN_TAP_TARGET / 2.0 };
        needed - self.distance
    }
}

/// Distance from a point to a rectangle (0 inside it).
fn distance_to_rect((px, py): (f64, f64), [x, y, w, h]: [f64; 4]) -> f64 {
    let dx = (x - px).max(px - (x + w)).max(0.0);
    let dy = (y - py).max(py - (y + h)).max(0.0);
    dx.hypot(dy)
}

impl Page<'_> {
    /// The page's tap targets: interactive elements that can be tapped, with the part of their
    /// box that shows (see the module doc for what is left out and why).
    fn tap_targets(&self) -> Vec<Target> {
        let document = &self.facts.dom.document;
        self.details()
            .filter(|(i, d)| d.interactive && !d.disabled && d.opacity > 0.0 && !self.invisible(*i))
            .filter_map(|(i, d)| {
                let rect = self.shown_box(i)?;
                let [x, y, w, h] = rect;
                let on_page = x + w > 0.0 && y + h > 0.0 && x < document.width && y < document.height;
                on_page.then_some(Target { element: i, rect, inline: d.inline_in_text })
            })
            .collect()
    }

    /// Undersized targets that fail WCAG 2.5.8's spacing exception, each with the closest target
    /// its 24 px circle reaches.
    pub(super) fn small_tap_targets(&self) -> Vec<PageIssue> {
        let targets = self.tap_targets();
        let mut issues = Vec::new();
        for t in targets.iter().filter(|t| t.judged()) {
            let centre = t.centre();
            let mut worst: Option<Conflict> = None;
            for o in &targets {
                if o.element == t.element || self.inside(o.element, t.element) || self.inside(t.element, o.element) {
                    continue;
                }
                let to_box = distance_to_rect(centre, o.rect);
                let mut found = Vec::new();
                if to_box < MIN_TAP_TARGET / 2.0 - SPACING_TOLERANCE {
                    found.push(Conflict { other: o.element, distance: to_box, circles: false });
                }
                if o.judged() {
                    let (ox, oy) = o.centre();
                    let between = (ox - centre.0).hypot(oy - centre.1);
                    if between < MIN_TAP_TARGET - SPACING_TOLERANCE {
                        found.push(Conflict { other: o.element, distance: between, circles: true });
                    }
                }
                for c in found {
                    if worst.as_ref().is_none_or(|w| c.shortfall() > w.shortfall()) {
                        worst = Some(c);
                    }
                }
            }
            let Some(conflict) = worst else { continue };
            issues.push(self.tap_target_issue(t, &conflict));
            if issues.len() >= MAX_PER_FINDER {
                break;
            }
        }
        issues
    }

    fn tap_target_issue(&self, t: &Target, conflict: &Conflict) -> PageIssue {
        let [_, _, w, h] = t.rect;
        let selector = self.selector(t.element);
        let other = self.selector(conflict.other);
        let distance = round2(conflict.distance);
        let (reaches, needed) = if conflict.circles {
            (format!("the circle of {other}, {distance} px between centres"), MIN_TAP_TARGET)
        } else {
            (format!("{other}, {distance} px from its centre"), MIN_TAP_TARGET / 2.0)
        };
        PageIssue {
            kind: IssueKind::SmallTapTarget,
            severity: Severity::Warning,
            selector: Some(selector.clone()),
            bounds: Some(self.bounds(t.element)),
            message: format!(
                "Tap target {selector} is {w} × {h} px, under {MIN_TAP_TARGET} × {MIN_TAP_TARGET} px, and too close to \
                 another: a {MIN_TAP_TARGET} px circle on it reaches {reaches} (WCAG 2.5.8; 44–48 px is comfortable)."
            ),
            measured: measured(&[
                ("width", json!(w)),
                ("height", json!(h)),
                ("minimum", json!(MIN_TAP_TARGET)),
                ("closestTarget", json!(other)),
                ("distance", json!(distance)),
                ("neededDistance", json!(needed)),
            ]),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_facts::{element, facts, kinds};
    use super::super::*;

    fn target(selector: &str) -> serde_json::Value {
        json!({"selector": selector, "interactive": true, "opacity": 1})
    }

    #[test]
    fn page_check_tap_targets_only_on_mobile_and_not_inline_links() {
        let f = facts(
            375.0,
            (375.0, 667.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 375.0, 400.0], false, &[]),
                element(0, "button", "#tiny", [16.0, 0.0, 16.0, 16.0], false, &[]),
                element(0, "button", "#next", [36.0, 0.0, 16.0, 16.0], false, &[]),
                element(0, "a", "#inline", [16.0, 22.0, 40.0, 18.0], false, &[("display", "inline")]),
                element(0, "button", "#big", [16.0, 60.0, 48.0, 48.0], false, &[]),
            ],
            &json!({"elements": [target("#tiny"), target("#next"),
                {"selector": "#inline", "interactive": true, "inlineInText": true, "opacity": 1}, target("#big")]})
            .to_string(),
        );
        let check = check_page(&f, ViewportKind::Mobile);
        // #tiny's and #next's circles (centres 20 px apart) intersect. The inline link 14 px
        // under #tiny's centre is exempt itself and out of its circle's reach.
        assert_eq!(
            kinds(&check),
            vec![(IssueKind::SmallTapTarget, Some("#tiny")), (IssueKind::SmallTapTarget, Some("#next"))]
        );
        assert_eq!(
            check.issues[0].measured,
            measured(&[
                ("width", json!(16.0)),
                ("height", json!(16.0)),
                ("minimum", json!(24.0)),
                ("closestTarget", json!("#next")),
                ("distance", json!(20.0)),
                ("neededDistance", json!(24.0)),
            ])
        );
        assert_eq!(
            check.issues[0].message,
            "Tap target #tiny is 16 × 16 px, under 24 × 24 px, and too close to another: a 24 px circle on it reaches \
             the circle of #next, 20 px between centres (WCAG 2.5.8; 44–48 px is comfortable)."
        );
        assert_eq!(kinds(&check_page(&f, ViewportKind::Desktop)), vec![]);
    }

    #[test]
    fn page_check_tap_targets_spacing_exception_is_exact() {
        // The W3C's toolbar: 20 × 20 px buttons 4 px apart pass (their circles just touch), the
        // same buttons 3 px apart fail. A wide 20 px tall summary alone in its row passes: its
        // circle reaches 2 px above and below it, where nothing is.
        let row = |id: &str, x: f64, y: f64| element(0, "button", id, [x, y, 20.0, 20.0], false, &[]);
        let f = facts(
            375.0,
            (375.0, 667.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 375.0, 600.0], false, &[]),
                row("#a1", 16.0, 0.0),
                row("#a2", 40.0, 0.0),
                row("#a3", 64.0, 0.0),
                row("#b1", 16.0, 100.0),
                row("#b2", 39.0, 100.0),
                element(0, "summary", "#wide", [16.0, 200.0, 343.0, 20.0], true, &[]),
                element(0, "a", "#below", [16.0, 224.0, 343.0, 30.0], true, &[]),
            ],
            &json!({"elements": (["#a1", "#a2", "#a3", "#b1", "#b2", "#wide", "#below"].map(target))}).to_string(),
        );
        let check = check_page(&f, ViewportKind::Mobile);
        assert_eq!(
            kinds(&check),
            vec![(IssueKind::SmallTapTarget, Some("#b1")), (IssueKind::SmallTapTarget, Some("#b2"))]
        );
        // Centres 23 px apart: the circles overlap by 1 px (each box is 13 px from the other's
        // centre, out of its circle).
        assert_eq!(check.issues[0].measured["distance"], json!(23.0));
    }

    #[test]
    fn page_check_tap_targets_skip_what_cannot_be_tapped() {
        // Each of these sits right against #lone, so any of them counted as a target would make
        // #lone fail too: none does, and none is reported itself.
        let f = facts(
            375.0,
            (375.0, 667.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 375.0, 600.0], false, &[]),
                element(0, "button", "#lone", [100.0, 100.0, 16.0, 16.0], false, &[]),
                element(0, "a", "#skip", [-9999.0, 100.0, 100.0, 20.0], true, &[("position", "absolute")]),
                element(0, "a", "#skip-nav", [-9999.0, 120.0, 100.0, 20.0], true, &[("position", "absolute")]),
                element(0, "a", "#above", [100.0, -40.0, 100.0, 20.0], true, &[("position", "absolute")]),
                element(0, "a", "#above-nav", [100.0, -20.0, 100.0, 20.0], true, &[("position", "absolute")]),
                element(0, "button", "#disabled", [118.0, 100.0, 16.0, 16.0], false, &[]),
                element(0, "button", "#hidden", [82.0, 100.0, 16.0, 16.0], false, &[("visibility", "hidden")]),
                element(0, "a", "#sr-only", [100.0, 118.0, 1.0, 1.0], true, &[("position", "absolute")]),
                element(
                    0,
                    "a",
                    "#clipped",
                    [100.0, 82.0, 16.0, 16.0],
                    true,
                    &[("position", "absolute"), ("clip", "rect(0px, 0px, 0px, 0px)")],
                ),
                element(0, "a", "#inset", [100.0, 118.0, 16.0, 16.0], true, &[("clip-path", "inset(50%)")]),
                element(0, "div", "#box", [60.0, 140.0, 100.0, 40.0], false, &[("overflow-y", "hidden")]),
                element(11, "a", "#scrolled-away", [100.0, 118.0, 16.0, 16.0], true, &[]),
                element(0, "a", "#faded", [100.0, 82.0, 16.0, 16.0], true, &[]),
            ],
            &json!({"elements": [
                target("#lone"), target("#skip"), target("#skip-nav"), target("#above"), target("#above-nav"),
                {"selector": "#disabled", "interactive": true, "disabled": true, "opacity": 1},
                target("#hidden"), target("#sr-only"), target("#clipped"), target("#inset"), target("#scrolled-away"),
                {"selector": "#faded", "interactive": true, "opacity": 0},
            ]})
            .to_string(),
        );
        assert_eq!(kinds(&check_page(&f, ViewportKind::Mobile)), vec![]);
    }

    #[test]
    fn page_check_tap_targets_nested_targets_are_not_neighbours() {
        // A focusable scroll box (tabindex=0) holding a small link: the box is not the link's
        // neighbour. An undersized inline link's neighbour still counts as a target for others.
        let f = facts(
            375.0,
            (375.0, 667.0),
            &[
                element(-1, "body", "body", [0.0, 0.0, 375.0, 600.0], false, &[]),
                element(0, "div", "#scroller", [0.0, 0.0, 375.0, 200.0], false, &[("overflow-x", "auto")]),
                element(1, "a", "#in-scroller", [16.0, 16.0, 40.0, 16.0], true, &[]),
                element(0, "p", "#para", [0.0, 210.0, 375.0, 24.0], true, &[]),
                element(3, "a", "#in-text", [100.0, 212.0, 40.0, 18.0], true, &[("display", "inline")]),
                element(0, "button", "#icon", [142.0, 212.0, 16.0, 16.0], false, &[]),
            ],
            &json!({"elements": [target("#scroller"), target("#in-scroller"),
                {"selector": "#in-text", "interactive": true, "inlineInText": true, "opacity": 1}, target("#icon")]})
            .to_string(),
        );
        let check = check_page(&f, ViewportKind::Mobile);
        assert_eq!(kinds(&check), vec![(IssueKind::SmallTapTarget, Some("#icon"))]);
        assert_eq!(check.issues[0].measured["closestTarget"], json!("#in-text"));
    }
}
