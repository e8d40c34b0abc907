//! The groups section: changed snapshots that share one signal (grouping.rs), each with its
//! label, what the members share and links to their cards.

use std::fmt::Write as _;

use super::{escape_html, plural};
use crate::grouping::{Group, GroupDetail, WIDE_RESTYLES_LABEL, wide_restyles};
use crate::snapshot::SnapshotEvidence;
use crate::words::Word;

/// Snapshots that changed the same way, then the style-only changes too wide to group; nothing
/// when there are neither.
pub(super) fn groups(out: &mut String, groups: &[Group], snapshots: &[SnapshotEvidence]) {
    let wide = wide_restyles(snapshots, groups);
    if groups.is_empty() && wide.is_empty() {
        return;
    }
    // With no group, what follows is a note about snapshots left ungrouped, not a group.
    let heading = match groups.len() {
        0 => "No groups <span class=\"n\">no two snapshots changed the same way; the note below lists changes too wide to group</span>".to_string(),
        n => format!("Groups <span class=\"n\">{n} — snapshots that changed the same way</span>"),
    };
    w!(out, "<section class=\"groups\">\n<h2>{heading}</h2>\n<ol>\n");
    let link = |name: &str, project: &str, extra: &str| {
        let index = snapshots.iter().position(|s| s.name == name && s.project == project);
        let label = format!("{} <span class=\"project\">{}{extra}</span>", escape_html(name), escape_html(project));
        match index {
            Some(i) => format!("<a href=\"#snap-{i}\">{label}</a>"),
            None => format!("<span>{label}</span>"),
        }
    };
    for group in groups {
        w!(out, "<li><div class=\"glabel\">{}</div>", escape_html(&group.label));
        if let Some(detail) = group_detail(&group.detail) {
            w!(out, "<div class=\"gdetail\">{detail}</div>");
        }
        w!(out, "<div class=\"members\"><span>{}:</span>", plural(group.members.len(), "snapshot", "snapshots"));
        for member in &group.members {
            out.push_str(&link(&member.name, &member.project, ""));
        }
        out.push_str("</div></li>\n");
    }
    if !wide.is_empty() {
        w!(out, "<li class=\"wide\"><div class=\"glabel\">{}</div>", escape_html(WIDE_RESTYLES_LABEL));
        w!(out, "<div class=\"members\"><span>{}:</span>", plural(wide.len(), "snapshot", "snapshots"));
        for w in &wide {
            out.push_str(&link(&w.member.name, &w.member.project, &format!(", {} elements", w.count)));
        }
        out.push_str("</div></li>\n");
    }
    out.push_str("</ol>\n</section>\n");
}

/// A group's shared signal in words: the restyled elements, the shift, or which style check;
/// already escaped. `None` when there is nothing to add to the label.
fn group_detail(detail: &GroupDetail) -> Option<String> {
    if let Some(elements) = &detail.elements {
        let names: Vec<String> = elements.iter().map(|e| escape_html(e)).collect();
        return Some(format!("restyled: <code>{}</code>", names.join("</code>, <code>")));
    }
    if let (Some(dy), Some(below)) = (detail.dy, detail.below_y) {
        return Some(format!("content below y={below} moved {dy} px"));
    }
    detail.style_check.map(|check| format!("style check: {}", check.word()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::StyleCheck;

    #[test]
    fn report_group_detail_names_the_shared_signal() {
        let elements =
            GroupDetail { elements: Some(vec!["a.btn<i>".into(), "#hero".into()]), ..GroupDetail::default() };
        assert_eq!(
            group_detail(&elements).as_deref(),
            Some("restyled: <code>a.btn&lt;i&gt;</code>, <code>#hero</code>")
        );
        let shift = GroupDetail { dy: Some(-60), below_y: Some(284), ..GroupDetail::default() };
        assert_eq!(group_detail(&shift).as_deref(), Some("content below y=284 moved -60 px"));
        let check = GroupDetail { style_check: Some(StyleCheck::Unavailable), ..GroupDetail::default() };
        assert_eq!(group_detail(&check).as_deref(), Some("style check: unavailable"));
        assert_eq!(group_detail(&GroupDetail::default()), None);
    }
}
