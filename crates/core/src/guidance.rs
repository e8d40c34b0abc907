//! How to read one snapshot's evidence, in sentences (`guidance` of `explain_snapshot`). The
//! core owns these words so every front-end that explains a snapshot says the same thing; the
//! approval rule (a human confirms) is in every sentence that could lead to an approval.

use crate::dom::StyleCheck;
use crate::results::MissingBaseline;
use crate::snapshot::SnapshotEvidence;
use crate::verdict::Status;

/// Sentences that say how to read `snapshot`'s evidence and what to do next.
pub fn guidance(snapshot: &SnapshotEvidence) -> Vec<String> {
    let mut g = Vec::new();
    let health = &snapshot.capture_health;
    if health.unhealthy {
        let reasons: Vec<String> = health.reasons.iter().map(ToString::to_string).collect();
        let named =
            if reasons.is_empty() { " (see captureHealth)".to_string() } else { format!(": {}", reasons.join("; ")) };
        g.push(format!(
            "The capture is unhealthy{named}. Fix the assets or the test and run again; never approve an unhealthy capture."
        ));
    }
    match snapshot.status {
        Status::Passed => g.push("Passed: nothing to review or approve.".into()),
        Status::New => g.push(
            "New snapshot: there is no baseline yet. Look at the current image; approve only when a human confirms it shows the page as it should look.".into(),
        ),
        Status::Changed => changed_guidance(snapshot, &mut g),
        Status::Missing => {}
        Status::Error => g.push(match &snapshot.damaged {
            Some(damaged) => format!(
                "Not compared: the {} {} cannot be read ({}). Tell the user to {}.",
                damaged.side, damaged.file, damaged.problem, damaged.fix
            ),
            None => "Not compared: a file of this snapshot cannot be read.".into(),
        }),
        Status::Written => g.push(
            "Written: an update run (--update-snapshots) made this capture the baseline; nothing to approve. Review the baseline change in the commit.".into(),
        ),
    }
    g.extend(snapshot.environment.iter().flat_map(|e| e.guidance()));
    if snapshot.status.needs_review() {
        g.push("Approve only after a human confirms (approve_snapshot).".into());
    }
    g
}

/// Where to look for what restyled the page: the files and lines the trace found.
fn trace_guidance(trace: &crate::dom::StyleTrace) -> String {
    let files = trace.files();
    let open = if files.is_empty() {
        "no stylesheet line (a style attribute, a browser default or an unset value)".to_string()
    } else {
        let places: Vec<String> = trace.rules.iter().filter_map(|r| r.source.place()).map(|p| p.short()).collect();
        let more = places.len().saturating_sub(5);
        let more = if more > 0 { format!(" and {more} more (dom.styleTrace.rules)") } else { String::new() };
        format!("open {}{more}", places[..places.len().min(5)].join(", "))
    };
    let token = trace.tokens.iter().find(|t| t.changed()).map(|t| format!(" One token explains it: {}.", t.describe()));
    format!(
        "dom.styleTrace names, for each restyled element, the rule its new value comes from (selector, stylesheet line, and the source file and line through a source map): {open}.{}",
        token.unwrap_or_default()
    )
}

fn changed_guidance(snapshot: &SnapshotEvidence, g: &mut Vec<String>) {
    let shift = snapshot.layers.pixel.as_ref().and_then(|p| p.shift.map(|s| (s, p.diff_pixels_after_shift)));
    match &snapshot.layers.dom {
        None => g.push("No DOM data: the DOM cannot tell noise from a real change here, so decide from the images (baseline, current, diff).".into()),
        Some(dom) => {
            let style_count = dom.style_changes.count;
            if dom.changed {
                g.push("The DOM changed (elements added, removed or modified): a real structural change; check it was intended.".into());
            } else if style_count > 0 {
                g.push("Style-only change: the DOM is identical and only computed styles changed (dom.styleChanges lists each from → to). It is real, not noise: confirm with a human that the restyle was intended before approving.".into());
            }
            if let Some(error) = dom.style_trace.as_ref().and_then(|t| t.error.as_ref()) {
                g.push(format!("The rules behind the restyle could not be traced ({error}): search the stylesheets for the changed properties in dom.styleChanges."));
            } else if let Some(trace) = &dom.style_trace {
                g.push(trace_guidance(trace));
            } else if let Some(token) = dom.token_changes.first() {
                g.push(format!(
                    "The root's design token {} changed (dom.tokenChanges): values that read it changed with it.",
                    token.describe()
                ));
            }
            if dom.style_check == StyleCheck::Unavailable {
                g.push("Styles were not compared: an identical DOM does not rule out a stylesheet change, so look at the images.".into());
            } else if !dom.changed && style_count == 0 && shift.is_none() {
                g.push("DOM identical and styles match: if the diff is small and scattered this is likely render noise; a concentrated or large diff deserves a look at the images.".into());
            }
        }
    }
    if let Some((shift, after)) = shift {
        g.push(format!(
            "Page shift: content below y={} moved by {} px, so most differing pixels are content that moved, not changed ({after} pixels still differ after undoing the shift). Look at what grew or was inserted above (dom.geometryChanges.resized).",
            shift.below_y, shift.dy
        ));
    }
}

/// Sentences for a committed baseline that had no capture in the run.
pub fn missing_guidance(missing: &MissingBaseline) -> Vec<String> {
    vec![
        format!("{}; there is nothing to approve.", missing.verdict()),
        format!(
            "If the toMatchVisual call was removed or renamed on purpose, delete {} in the same change; otherwise find out why the test no longer captures it.",
            missing.files.baseline
        ),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::health::{AssetKind, HealthReason, capture_health};

    /// The example's `home` snapshot (a style-only change) as results.json holds it.
    fn home() -> Value {
        let example: Value = serde_json::from_str(include_str!("../../../tests/golden/example-results.json")).unwrap();
        example["snapshots"][2].clone()
    }

    fn guide(entry: Value) -> Vec<String> {
        guidance(&serde_json::from_value(entry).unwrap())
    }

    #[test]
    fn guidance_style_only_change_asks_for_a_human() {
        assert_eq!(
            guide(home()),
            [
                "Style-only change: the DOM is identical and only computed styles changed (dom.styleChanges lists each from → to). It is real, not noise: confirm with a human that the restyle was intended before approving.",
                "dom.styleTrace names, for each restyled element, the rule its new value comes from (selector, stylesheet line, and the source file and line through a source map): open /styles.css:8, /styles.css:13. One token explains it: token --brand #2563eb → #dc2626 (<style> in /, line 2), used by 13 restyled elements.",
                "Approve only after a human confirms (approve_snapshot).",
            ]
        );
        // Untraced (`sightline compare`), the root's changed token is still named.
        let mut untraced = home();
        untraced["layers"]["dom"].as_object_mut().unwrap().remove("styleTrace");
        assert_eq!(
            guide(untraced)[1],
            "The root's design token --brand #2563eb → #dc2626 changed (dom.tokenChanges): values that read it changed with it."
        );
    }

    #[test]
    fn guidance_names_each_failed_asset_in_a_sentence() {
        let failed = vec![
            HealthReason::failed(AssetKind::Font, "Brand", "font failed to load (FontFace status error)"),
            HealthReason::failed(AssetKind::Image, "http://x/logo.png", "HTTP 404"),
        ];
        let mut entry = home();
        entry["captureHealth"] = serde_json::to_value(capture_health(failed, &[])).unwrap();
        assert_eq!(
            guide(entry)[0],
            "The capture is unhealthy: font \"Brand\" failed to load (FontFace status error); image http://x/logo.png: \
             HTTP 404. Fix the assets or the test and run again; never approve an unhealthy capture."
        );
    }

    #[test]
    fn guidance_without_dom_data_and_for_a_shift() {
        let mut entry = home();
        entry["layers"]["dom"] = Value::Null;
        entry["layers"]["pixel"]["shift"] = json!({ "dy": 60, "belowY": 284 });
        entry["layers"]["pixel"]["diffPixelsAfterShift"] = json!(77);
        let g = guide(entry);
        assert_eq!(g.len(), 3, "{g:?}");
        assert!(g[0].starts_with("No DOM data: the DOM cannot tell noise"), "{}", g[0]);
        assert!(
            g[1].starts_with("Page shift: content below y=284 moved by 60 px, so most differing pixels are content that moved, not changed (77 pixels still differ"),
            "{}",
            g[1]
        );
    }
}
