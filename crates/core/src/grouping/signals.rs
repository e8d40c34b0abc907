//! The signals one changed snapshot carries, in the order groups are tried, and what its
//! group's members must share exactly under each.

use std::collections::BTreeSet;

use super::{GroupMember, GroupSignal, MAX_GROUPED_RESTYLED};
use crate::dom::StyleCheck;
use crate::shape::Shape;
use crate::snapshot::SnapshotEvidence;
use crate::verdict::{Status, VerdictKind};

/// What a group's members share exactly, per signal.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Key {
    /// The two environments, briefly.
    Engine(String),
    /// The first font substitution's sentence.
    Fonts(String),
    /// The changed token and its two values.
    Token(String),
    /// The restyled elements as a sorted set.
    StyleOnly(BTreeSet<String>),
    PageShift {
        dy: i32,
        below_y: u32,
    },
    StylesNotCompared,
    Large,
    LikelyNoise,
}

/// A groupable snapshot: who it is and the signals it carries, in signal order.
pub(super) struct Candidate {
    pub(super) member: GroupMember,
    /// The restyled elements in document order (for the label), when style-only.
    pub(super) restyled: Vec<String>,
    pub(super) signals: Vec<(GroupSignal, Key)>,
}

/// The signals one snapshot carries; `None` when it can never be grouped.
pub(super) fn candidate(snapshot: &SnapshotEvidence) -> Option<Candidate> {
    if snapshot.status != Status::Changed || snapshot.auto_passed || snapshot.capture_health.unhealthy {
        return None;
    }
    // Snapshots without DOM data and structural changes are never grouped.
    let dom = snapshot.layers.dom.as_ref()?;
    let pixel = snapshot.layers.pixel.as_ref()?;
    if dom.changed {
        return None;
    }
    let (style_check, shape) = (dom.style_check, pixel.shape);
    let mut restyled = Vec::new();
    let mut signals = Vec::new();
    match snapshot.verdict_kind {
        VerdictKind::StyleOnly => {
            // One token explains a restyle of any size.
            if let Some(token) = dom.leading_token() {
                signals.push((GroupSignal::Token, Key::Token(token.values())));
            }
            let changes = &dom.style_changes;
            let complete = changes.elements.len() == changes.count;
            if style_check != StyleCheck::Mismatch
                || changes.count == 0
                || changes.count > MAX_GROUPED_RESTYLED
                || !complete
            {
                // Named in the section instead: not even grouped by a shift it also carries.
                if signals.is_empty() {
                    return None;
                }
                let member = GroupMember { name: snapshot.name.clone(), project: snapshot.project.clone() };
                return Some(Candidate { member, restyled, signals });
            }
            let set: BTreeSet<String> = changes.elements.iter().cloned().collect();
            for element in &changes.elements {
                if !restyled.contains(element) {
                    restyled.push(element.clone());
                }
            }
            signals.push((GroupSignal::StyleOnly, Key::StyleOnly(set)));
            // A restyle that also pushed content down can still share its shift with others.
            if let Some(shift) = &pixel.shift {
                signals.push((GroupSignal::PageShift, Key::PageShift { dy: shift.dy, below_y: shift.below_y }));
            }
        }
        VerdictKind::PageShift => {
            let shift = pixel.shift?;
            signals.push((GroupSignal::PageShift, Key::PageShift { dy: shift.dy, below_y: shift.below_y }));
        }
        VerdictKind::StylesNotCompared => {
            // A concentrated diff is never noise, so it never joins a group whose label names
            // render noise as a possibility.
            if style_check != StyleCheck::Unavailable || pixel.shift.is_some() || shape == Some(Shape::Concentrated) {
                return None;
            }
            signals.push((GroupSignal::StylesNotCompared, Key::StylesNotCompared));
        }
        VerdictKind::Large => {
            if style_check != StyleCheck::Match || shape != Some(Shape::Large) || pixel.shift.is_some() {
                return None;
            }
            signals.push((GroupSignal::Large, Key::Large));
        }
        VerdictKind::LikelyNoise => {
            let scattered = matches!(shape, None | Some(Shape::Scattered));
            if style_check != StyleCheck::Match || !scattered || pixel.shift.is_some() {
                return None;
            }
            signals.push((GroupSignal::LikelyNoise, Key::LikelyNoise));
        }
        VerdictKind::Identical
        | VerdictKind::WithinTolerance
        | VerdictKind::Unhealthy
        | VerdictKind::Structural
        | VerdictKind::Concentrated
        | VerdictKind::New
        | VerdictKind::Unstable
        | VerdictKind::Damaged
        | VerdictKind::AssetReplaced => return None,
        VerdictKind::Rendering | VerdictKind::TextReshaped => {
            let brief = snapshot.environment.as_ref().and_then(crate::environment::EnvironmentComparison::brief)?;
            signals.push((GroupSignal::Engine, Key::Engine(brief)));
        }
        // One machine's fonts, on every page that uses the family.
        VerdictKind::FontSubstituted => {
            let first = snapshot.environment.as_ref()?.font_substitutions.first()?.sentence();
            signals.push((GroupSignal::Engine, Key::Fonts(first)));
        }
    }
    let member = GroupMember { name: snapshot.name.clone(), project: snapshot.project.clone() };
    Some(Candidate { member, restyled, signals })
}
