//! Grouping changed snapshots by identical signal (02-results.md, "Grouping by identical
//! signal"), shared by the HTML report and the MCP server through results.json `groups`.
//!
//! Works on the typed `snapshots` entries, so a results file read from disk and fresh evidence
//! group the same way.
//!
//! Among changed snapshots (not auto-passed), a group forms when at least two share one signal.
//! The signals are tried in order and each snapshot joins at most one group:
//! 0. the engine only: drawn (`rendering`, failed by `strictRendering`) or shaped
//!    (`textReshaped`) differently in another environment, with the same two environments —
//!    after a browser upgrade, the group a person approves in one step;
//! 1. style-only change led by the same changed design token (`--brand #2563eb → #dc2626`),
//!    however many elements it restyled: one edit of one token;
//! 2. style-only change with exactly the same set of restyled elements (≤ 10 restyled);
//! 3. page shift with the same `dy` and `belowY`;
//! 4. styles not compared, DOM identical;
//! 5. large diff, DOM and styles identical;
//! 6. likely render noise (DOM identical, styles match, scattered).
//!
//! Never grouped: structural DOM changes, snapshots without DOM data, concentrated diffs,
//! unhealthy captures, style-only changes touching more than 10 elements. Grouping is
//! deliberately conservative: connecting different restyled sets to one edit is the model's job.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::dom::StyleCheck;
use crate::snapshot::SnapshotEvidence;
use crate::verdict::{Status, VerdictKind};
use signals::{Candidate, Key, candidate};

mod signals;

/// Style-only changes touching more elements than this are never grouped.
const MAX_GROUPED_RESTYLED: usize = 10;

/// The shared signal of a group, in the order signals are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum GroupSignal {
    /// Another environment drew or shaped the same page differently (`rendering`,
    /// `textReshaped`), the same two environments on every member; or drew its text with another
    /// font (`fontSubstituted`), the same substitution on every member.
    Engine,
    /// Restyled by the same changed design token (its name and both values), DOM otherwise
    /// identical.
    Token,
    /// The same set of restyled elements, DOM otherwise identical.
    StyleOnly,
    /// The same page shift (`dy`, `belowY`), DOM not structurally changed.
    PageShift,
    /// DOM identical, styles not compared (the same reason on every member).
    StylesNotCompared,
    /// More than 1 % of pixels differ, spread out, with DOM and styles identical.
    Large,
    /// Scattered differences with DOM and styles identical.
    LikelyNoise,
}

const SIGNAL_ORDER: [GroupSignal; 7] = [
    GroupSignal::Engine,
    GroupSignal::Token,
    GroupSignal::StyleOnly,
    GroupSignal::PageShift,
    GroupSignal::StylesNotCompared,
    GroupSignal::Large,
    GroupSignal::LikelyNoise,
];

/// One snapshot in a group.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GroupMember {
    pub name: String,
    pub project: String,
}

/// Changed snapshots sharing one signal (`groups[]` in results.json).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    pub signal: GroupSignal,
    /// The human line for the group.
    pub label: String,
    /// Sorted by name, then project; at least two.
    pub members: Vec<GroupMember>,
    /// The shared signal.
    pub detail: GroupDetail,
}

impl Group {
    /// `label: home (chromium), catalogue (chromium)`: the group in one line, as lists name it.
    pub fn line(&self) -> String {
        let members: Vec<String> =
            self.members.iter().map(|m| crate::snapshot::snapshot_label(&m.name, &m.project)).collect();
        format!("{}: {}", self.label, members.join(", "))
    }
}

/// What a group's members share: `{elements}` (style-only), `{dy, belowY}` (page shift),
/// `{styleCheck}` (styles not compared) or `{}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupDetail {
    /// The restyled elements, in the first member's document order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elements: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dy: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below_y: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style_check: Option<StyleCheck>,
    /// The design token and its two values (`--brand #2563eb → #dc2626`) of a token group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// The two environments, briefly (`Chromium 153 → 156`), of an engine-only group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environments: Option<String>,
}

/// A style-only change too wide to group (more than 10 restyled elements, or a list cut short).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WideRestyle {
    pub member: GroupMember,
    /// How many elements were restyled.
    pub count: usize,
}

/// The style-only changes never grouped because they restyle more than 10 elements: the groups
/// section names them beside the groups (02-results.md), so a reader meets every restyle there.
/// One in a token group is grouped: `groups` are the run's groups ([`group_snapshots`]).
pub fn wide_restyles(snapshots: &[SnapshotEvidence], groups: &[Group]) -> Vec<WideRestyle> {
    let grouped: BTreeSet<&GroupMember> = groups.iter().flat_map(|g| &g.members).collect();
    let mut wide: Vec<WideRestyle> = snapshots
        .iter()
        .filter(|s| !grouped.contains(&GroupMember { name: s.name.clone(), project: s.project.clone() }))
        .filter(|s| s.status == Status::Changed && !s.auto_passed && !s.capture_health.unhealthy)
        .filter(|s| s.verdict_kind == VerdictKind::StyleOnly)
        .filter_map(|s| {
            let changes = &s.layers.dom.as_ref()?.style_changes;
            let wide = changes.count > MAX_GROUPED_RESTYLED || changes.elements.len() != changes.count;
            wide.then(|| WideRestyle {
                member: GroupMember { name: s.name.clone(), project: s.project.clone() },
                count: changes.count,
            })
        })
        .collect();
    wide.sort_by(|a, b| a.member.cmp(&b.member));
    wide
}

/// How a groups section labels [`wide_restyles`].
pub const WIDE_RESTYLES_LABEL: &str =
    "style-only changes to more than 10 elements, not grouped (each restyled its own set of elements)";

/// Groups the changed snapshots of a run by identical signal.
/// Groups come in signal order, then by first member; members are sorted by name, then project.
/// Every snapshot keeps its own line beside the groups: that is the consumers' job.
pub fn group_snapshots(snapshots: &[SnapshotEvidence]) -> Vec<Group> {
    let mut candidates: Vec<Candidate> = snapshots.iter().filter_map(candidate).collect();
    candidates.sort_by(|a, b| a.member.cmp(&b.member));
    let mut taken = vec![false; candidates.len()];
    let mut groups = Vec::new();
    for signal in SIGNAL_ORDER {
        let mut by_key: BTreeMap<&Key, Vec<usize>> = BTreeMap::new();
        for (i, c) in candidates.iter().enumerate() {
            if taken[i] {
                continue;
            }
            if let Some((_, key)) = c.signals.iter().find(|(s, _)| *s == signal) {
                by_key.entry(key).or_default().push(i);
            }
        }
        let mut formed: Vec<Group> = Vec::new();
        for (key, indices) in by_key {
            if indices.len() < 2 {
                continue;
            }
            for &i in &indices {
                taken[i] = true;
            }
            let members: Vec<GroupMember> = indices.iter().map(|&i| candidates[i].member.clone()).collect();
            let (label, detail) = describe(key, &candidates[indices[0]].restyled);
            formed.push(Group { signal, label, members, detail });
        }
        formed.sort_by(|a, b| a.members[0].cmp(&b.members[0]));
        groups.extend(formed);
    }
    groups
}

/// The group's human line and its shared signal.
fn describe(key: &Key, restyled: &[String]) -> (String, GroupDetail) {
    match key {
        Key::Engine(brief) => (
            format!("the engine only ({brief}): the same DOM, styles and fonts, drawn or text shaped differently"),
            GroupDetail { environments: Some(brief.clone()), ..GroupDetail::default() },
        ),
        Key::Fonts(substitution) => (
            format!("the fonts only ({substitution}): the same DOM and styles, text drawn by another font"),
            GroupDetail { environments: Some(substitution.clone()), ..GroupDetail::default() },
        ),
        Key::Token(token) => (
            format!("changed by token {token}"),
            GroupDetail { token: Some(token.clone()), ..GroupDetail::default() },
        ),
        Key::StyleOnly(_) => {
            let shown: Vec<&str> = restyled.iter().take(3).map(String::as_str).collect();
            let rest = restyled.len().saturating_sub(shown.len());
            let more = if rest > 0 { format!(" and {rest} more") } else { String::new() };
            let what = if restyled.len() == 1 {
                "the same element".to_string()
            } else {
                format!("the same {} elements", restyled.len())
            };
            let detail = GroupDetail { elements: Some(restyled.to_vec()), ..GroupDetail::default() };
            (format!("style-only change to {what} ({}{more})", shown.join(", ")), detail)
        }
        Key::PageShift { dy, below_y } => (
            format!(
                "page shift: content below y={below_y} moved {} {} px",
                if *dy > 0 { "down" } else { "up" },
                dy.unsigned_abs()
            ),
            GroupDetail { dy: Some(*dy), below_y: Some(*below_y), ..GroupDetail::default() },
        ),
        Key::StylesNotCompared => (
            "render noise or stylesheet-only change, not ruled out (DOM identical, styles not compared: a side has no style data)".to_string(),
            GroupDetail { style_check: Some(StyleCheck::Unavailable), ..GroupDetail::default() },
        ),
        Key::Large => (
            "more than render noise usually changes (DOM and styles identical, large diff)".to_string(),
            GroupDetail::default(),
        ),
        Key::LikelyNoise => {
            ("likely render noise (DOM and styles identical, scattered diff)".to_string(), GroupDetail::default())
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// Groups snapshots written as results.json entries.
    fn group(entries: &[Value]) -> Vec<Group> {
        let snapshots: Vec<SnapshotEvidence> =
            entries.iter().map(|e| serde_json::from_value(e.clone()).expect("a whole entry")).collect();
        group_snapshots(&snapshots)
    }

    fn detail(g: &Group) -> Value {
        serde_json::to_value(&g.detail).unwrap()
    }

    /// A changed, healthy snapshot with DOM identical and styles matching; tests adjust it.
    fn base(name: &str, kind: &str) -> Value {
        json!({
            "name": name,
            "project": "chromium",
            "status": "changed",
            "autoPassed": false,
            "verdict": "…",
            "verdictKind": kind,
            "files": { "baseline": null, "current": null, "diff": null },
            "baselineSize": { "width": 100, "height": 1200 },
            "currentSize": { "width": 100, "height": 1200 },
            "layers": {
                "pixel": {
                    "diffPixels": 120, "totalPixels": 120000, "diffPercent": 0.1, "antialiasedPixels": 0,
                    "match": false, "sizeChanged": false, "comparator": "pixelmatch",
                    "baselineSize": { "width": 100, "height": 1200 },
                    "currentSize": { "width": 100, "height": 1200 },
                    "regions": [], "shift": null, "diffPixelsAfterShift": 120, "shape": "scattered"
                },
                "dom": {
                    "changed": false,
                    "noiseHint": true,
                    "added": { "count": 0, "elements": [] },
                    "removed": { "count": 0, "elements": [] },
                    "modified": { "count": 0, "elements": [] },
                    "styleCheck": "match",
                    "styleChanges": { "count": 0, "elements": [], "properties": [], "propertyCount": 0, "mostCommon": [] },
                    "geometryChanges": { "count": 0, "resizedCount": 0, "resized": [], "movedCount": 0, "moved": [] }
                }
            },
            "captureHealth": { "unhealthy": false, "reasons": [], "sameOnBothSides": false }
        })
    }

    fn style_only(name: &str, elements: &[&str]) -> Value {
        let mut v = base(name, "styleOnly");
        v["layers"]["pixel"]["shape"] = json!("concentrated");
        v["layers"]["dom"]["styleCheck"] = json!("mismatch");
        v["layers"]["dom"]["styleChanges"]["count"] = json!(elements.len());
        v["layers"]["dom"]["styleChanges"]["elements"] = json!(elements);
        v
    }

    fn shifted(name: &str, dy: i32, below_y: u32) -> Value {
        let mut v = base(name, "pageShift");
        v["layers"]["pixel"]["shift"] = json!({ "dy": dy, "belowY": below_y });
        v["layers"]["pixel"]["shape"] = json!("large");
        v
    }

    fn members(g: &Group) -> Vec<&str> {
        g.members.iter().map(|m| m.name.as_str()).collect()
    }

    #[test]
    fn grouping_identical_style_only_changes_group() {
        let groups = group(&[style_only("b", &["#a", "#b", "#c"]), style_only("a", &["#c", "#a", "#b"])]);
        assert_eq!(groups.len(), 1, "{groups:?}");
        let g = &groups[0];
        assert_eq!(g.signal, GroupSignal::StyleOnly);
        assert_eq!(members(g), ["a", "b"]);
        assert_eq!(detail(g), json!({ "elements": ["#c", "#a", "#b"] }), "the first member's document order");
        assert_eq!(g.label, "style-only change to the same 3 elements (#c, #a, #b)");
        let v = serde_json::to_value(g).unwrap();
        assert_eq!(v["signal"], "styleOnly");
        assert_eq!(v["members"][0], json!({ "name": "a", "project": "chromium" }));
    }

    #[test]
    fn grouping_restyles_by_one_changed_token_group_whatever_their_size() {
        let token = json!([{ "name": "--brand", "from": "#2563eb", "to": "#dc2626" }]);
        let wide: Vec<String> = (0..13).map(|i| format!("#e{i}")).collect();
        let wide: Vec<&str> = wide.iter().map(String::as_str).collect();
        let mut home = style_only("home", &wide);
        home["layers"]["dom"]["tokenChanges"] = token.clone();
        let mut cart = style_only("cart", &["#buy"]);
        cart["layers"]["dom"]["tokenChanges"] = token;
        // Another token's change is its own.
        let mut about = style_only("about", &["#x"]);
        about["layers"]["dom"]["tokenChanges"] = json!([{ "name": "--ink", "from": "#000", "to": "#111" }]);
        let entries = [home, cart, about];
        let groups = group(&entries);
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert_eq!(groups[0].signal, GroupSignal::Token);
        assert_eq!(members(&groups[0]), ["cart", "home"]);
        assert_eq!(groups[0].label, "changed by token --brand #2563eb → #dc2626");
        assert_eq!(detail(&groups[0]), json!({ "token": "--brand #2563eb → #dc2626" }));
        // The wide restyle is grouped: not listed as too wide to group.
        let snapshots: Vec<SnapshotEvidence> =
            entries.iter().map(|e| serde_json::from_value(e.clone()).unwrap()).collect();
        assert!(wide_restyles(&snapshots, &group_snapshots(&snapshots)).is_empty());
    }

    /// A snapshot another environment only reshaped: `from` and `to` are Chromium versions.
    fn reshaped(name: &str, from: &str, to: &str) -> Value {
        let mut v = base(name, "textReshaped");
        let env = |version: &str| json!({ "browser": "chromium", "browserVersion": version, "platform": "linux" });
        v["environment"] =
            json!({ "baseline": env(from), "current": env(to), "differences": [format!("Chromium {from} → {to}")] });
        v
    }

    #[test]
    fn grouping_the_engine_only_snapshots_of_one_upgrade_group_apart() {
        let groups = group(&[
            reshaped("a", "153.0.1", "156.0.2"),
            reshaped("b", "153.0.1", "156.0.2"),
            reshaped("c", "150.0.1", "156.0.2"),
            style_only("d", &["#x"]),
        ]);
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert_eq!((groups[0].signal, members(&groups[0])), (GroupSignal::Engine, vec!["a", "b"]));
        assert_eq!(
            groups[0].label,
            "the engine only (Chromium 153 → 156): the same DOM, styles and fonts, drawn or text shaped differently"
        );
        assert_eq!(detail(&groups[0]), json!({ "environments": "Chromium 153 → 156" }));
    }

    #[test]
    fn grouping_the_pages_one_substituted_font_drew_group_apart() {
        let substituted = |name: &str, here: &str| {
            let mut v = base(name, "fontSubstituted");
            let env = json!({ "browser": "chromium", "browserVersion": "156.0.2", "platform": "linux" });
            let substitution = json!({ "family": "Inter, sans-serif", "baseline": "DejaVu Sans", "current": here });
            v["environment"] =
                json!({ "baseline": env, "current": env, "differences": [], "fontSubstitutions": [substitution] });
            v
        };
        let groups = group(&[
            substituted("a", "DejaVu Serif"),
            substituted("b", "DejaVu Serif"),
            substituted("c", "Liberation"),
        ]);
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert_eq!((groups[0].signal, members(&groups[0])), (GroupSignal::Engine, vec!["a", "b"]));
        let sentence = "font \"Inter, sans-serif\" rendered with DejaVu Serif here, with DejaVu Sans in the baseline";
        assert_eq!(
            groups[0].label,
            format!("the fonts only ({sentence}): the same DOM and styles, text drawn by another font")
        );
        assert_eq!(detail(&groups[0]), json!({ "environments": sentence }));
    }

    #[test]
    fn grouping_different_element_sets_do_not_group() {
        let groups = group(&[style_only("a", &["#a", "#b"]), style_only("b", &["#a", "#b", "#c"])]);
        assert!(groups.is_empty(), "{groups:?}");
        let groups = group(&[style_only("a", &["#a"]), style_only("b", &["#b"])]);
        assert!(groups.is_empty(), "{groups:?}");
    }

    #[test]
    fn grouping_more_than_ten_restyled_elements_never_group() {
        let many: Vec<String> = (0..11).map(|i| format!("#e{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let mut a = style_only("a", &many[..10]);
        let mut b = style_only("b", &many[..10]);
        // Count says 11, only the first 10 selectors are listed.
        a["layers"]["dom"]["styleChanges"]["count"] = json!(11);
        b["layers"]["dom"]["styleChanges"]["count"] = json!(11);
        assert!(group(&[a.clone(), b.clone()]).is_empty());
        // They are named beside the groups instead, with their counts.
        let entries: Vec<SnapshotEvidence> =
            [&b, &a].iter().map(|e| serde_json::from_value((*e).clone()).unwrap()).collect();
        let wide = wide_restyles(&entries, &group_snapshots(&entries));
        let named: Vec<(&str, usize)> = wide.iter().map(|w| (w.member.name.as_str(), w.count)).collect();
        assert_eq!(named, [("a", 11), ("b", 11)]);
        // Not even by a shift they share.
        a["layers"]["pixel"]["shift"] = json!({ "dy": 24, "belowY": 120 });
        b["layers"]["pixel"]["shift"] = json!({ "dy": 24, "belowY": 120 });
        assert!(group(&[a, b, shifted("c", 24, 120)]).is_empty());
        // Exactly 10 still groups.
        let groups = group(&[style_only("a", &many[..10]), style_only("b", &many[..10])]);
        assert_eq!(groups.len(), 1);
        assert!(groups[0].label.ends_with("(#e0, #e1, #e2 and 7 more)"), "{}", groups[0].label);
        let ten: SnapshotEvidence = serde_json::from_value(style_only("a", &many[..10])).unwrap();
        let ten = [ten];
        assert!(wide_restyles(&ten, &group_snapshots(&ten)).is_empty(), "ten group, so they are not named apart");
    }

    #[test]
    fn grouping_same_shift_groups_and_a_different_one_does_not() {
        let groups = group(&[shifted("a", 24, 120), shifted("b", 24, 120), shifted("c", 25, 120)]);
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert_eq!(groups[0].signal, GroupSignal::PageShift);
        assert_eq!(members(&groups[0]), ["a", "b"]);
        assert_eq!(detail(&groups[0]), json!({ "dy": 24, "belowY": 120 }));
        assert_eq!(groups[0].label, "page shift: content below y=120 moved down 24 px");
        assert!(group(&[shifted("a", 24, 120), shifted("b", 24, 121)]).is_empty());
        let up = group(&[shifted("a", -8, 40), shifted("b", -8, 40)]);
        assert_eq!(up[0].label, "page shift: content below y=40 moved up 8 px");
    }

    #[test]
    fn grouping_a_snapshot_matching_two_signals_joins_only_the_first() {
        let mut both = style_only("a", &["#x"]);
        both["layers"]["pixel"]["shift"] = json!({ "dy": 24, "belowY": 120 });
        let groups = group(&[both.clone(), style_only("b", &["#x"]), shifted("c", 24, 120)]);
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert_eq!(groups[0].signal, GroupSignal::StyleOnly);
        assert_eq!(members(&groups[0]), ["a", "b"], "c is left alone, a is not in two groups");
        // Without a style partner, its shift is still shared.
        let groups = group(&[both, style_only("b", &["#y"]), shifted("c", 24, 120)]);
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert_eq!(groups[0].signal, GroupSignal::PageShift);
        assert_eq!(members(&groups[0]), ["a", "c"]);
    }

    #[test]
    fn grouping_never_groups_what_the_spec_excludes() {
        let pair = |f: &dyn Fn(&mut Value)| {
            let (mut a, mut b) = (style_only("a", &["#x"]), style_only("b", &["#x"]));
            f(&mut a);
            f(&mut b);
            group(&[a, b])
        };
        assert_eq!(pair(&|_| {}).len(), 1, "the control pair groups");
        type Edit<'a> = &'a dyn Fn(&mut Value);
        let excluded: [(&str, Edit<'_>); 8] = [
            ("structural", &|v| {
                v["verdictKind"] = json!("structural");
                v["layers"]["dom"]["changed"] = json!(true);
            }),
            ("dom changed under another kind", &|v| v["layers"]["dom"]["changed"] = json!(true)),
            ("concentrated", &|v| {
                v["verdictKind"] = json!("concentrated");
                v["layers"]["dom"]["styleCheck"] = json!("match");
            }),
            ("unhealthy", &|v| v["captureHealth"]["unhealthy"] = json!(true)),
            ("no DOM data", &|v| v["layers"]["dom"] = Value::Null),
            ("passed", &|v| v["status"] = json!("passed")),
            ("new", &|v| {
                v["status"] = json!("new");
                v["verdictKind"] = json!("new");
            }),
            ("auto-passed", &|v| v["autoPassed"] = json!(true)),
        ];
        for (what, f) in excluded {
            assert!(pair(f).is_empty(), "{what}");
        }
        // Auto-passed likely noise, as the verdict writes it.
        let noise = |name| {
            let mut v = base(name, "likelyNoise");
            v["status"] = json!("passed");
            v["autoPassed"] = json!(true);
            v
        };
        assert!(group(&[noise("a"), noise("b")]).is_empty());
        // No DOM data, even with the same shift (pixel-only verdicts say pageShift too).
        let mut a = shifted("a", 24, 120);
        let mut b = shifted("b", 24, 120);
        a["layers"]["dom"] = Value::Null;
        b["layers"]["dom"] = Value::Null;
        assert!(group(&[a, b]).is_empty());
        // Styles not compared but concentrated: never noise, never grouped.
        let snc = |name| {
            let mut v = base(name, "stylesNotCompared");
            v["layers"]["dom"]["styleCheck"] = json!("unavailable");
            v["layers"]["pixel"]["shape"] = json!("concentrated");
            v
        };
        assert!(group(&[snc("a"), snc("b")]).is_empty());
    }

    #[test]
    fn grouping_a_single_snapshot_forms_no_group() {
        assert!(group(&[style_only("a", &["#x"])]).is_empty());
        assert!(group(&[shifted("a", 24, 120)]).is_empty());
        assert!(group(&[base("a", "likelyNoise")]).is_empty());
        assert!(group(&[]).is_empty());
    }

    #[test]
    fn grouping_styles_not_compared_is_never_called_noise() {
        let snc = |name: &str| {
            let mut v = base(name, "stylesNotCompared");
            v["layers"]["dom"]["styleCheck"] = json!("unavailable");
            v
        };
        let groups = group(&[snc("a"), snc("b")]);
        assert_eq!(groups.len(), 1, "{groups:?}");
        let g = &groups[0];
        assert_eq!((g.signal, members(g)), (GroupSignal::StylesNotCompared, vec!["a", "b"]));
        assert_eq!(detail(g), json!({ "styleCheck": "unavailable" }));
        assert_eq!(
            g.label,
            "render noise or stylesheet-only change, not ruled out (DOM identical, styles not compared: a side has no style data)"
        );
        // Styles compared and equal is another signal.
        assert!(group(&[snc("a"), base("b", "stylesNotCompared")]).is_empty());
    }

    #[test]
    fn grouping_large_and_noise_groups_come_in_signal_order() {
        let large = |name| {
            let mut v = base(name, "large");
            v["layers"]["pixel"]["shape"] = json!("large");
            v
        };
        let groups = group(&[
            base("n2", "likelyNoise"),
            large("l2"),
            base("n1", "likelyNoise"),
            large("l1"),
            shifted("s2", 10, 5),
            shifted("s1", 10, 5),
            style_only("z1", &["#x"]),
            style_only("z2", &["#x"]),
            style_only("a1", &["#y"]),
            style_only("a2", &["#y"]),
        ]);
        let order: Vec<(GroupSignal, &str)> = groups.iter().map(|g| (g.signal, g.members[0].name.as_str())).collect();
        assert_eq!(
            order,
            [
                (GroupSignal::StyleOnly, "a1"),
                (GroupSignal::StyleOnly, "z1"),
                (GroupSignal::PageShift, "s1"),
                (GroupSignal::Large, "l1"),
                (GroupSignal::LikelyNoise, "n1"),
            ]
        );
        assert_eq!(groups[3].label, "more than render noise usually changes (DOM and styles identical, large diff)");
        assert_eq!(groups[4].label, "likely render noise (DOM and styles identical, scattered diff)");
        // Members across projects, sorted by (name, project).
        let mut firefox = base("n1", "likelyNoise");
        firefox["project"] = json!("firefox");
        let groups = group(&[firefox, base("n1", "likelyNoise")]);
        let m: Vec<(&str, &str)> = groups[0].members.iter().map(|m| (m.name.as_str(), m.project.as_str())).collect();
        assert_eq!(m, [("n1", "chromium"), ("n1", "firefox")]);
    }
}
