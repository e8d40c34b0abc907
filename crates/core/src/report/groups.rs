//! The groups section: changed snapshots that share one signal (grouping.rs), each with its
//! label, what the members share and links to their cards.

use std::fmt::Write as _;

use super::{Word, escape_html, plural};
use crate::grouping::{Group, GroupDetail};
use crate::snapshot::SnapshotEvidence;

/// Snapshots that changed the same way; nothing when no group formed.
pub(super) fn groups(out: &mut String, groups: &[Group], snapshots: &[SnapshotEvidence]) {
    if groups.is_empty() {
        return;
    }
    w!(
        out,
        "<section class=\"groups\">\n<h2>Groups <span class=\"n\">{} — snapshots that changed the same way</span></h2>\n<ol>\n",
        groups.len()
    );
    for group in groups {
        w!(out, "<li><div class=\"glabel\">{}</div>", escape_html(&group.label));
        if let Some(detail) = group_detail(&group.detail) {
            w!(out, "<div class=\"gdetail\">{detail}</div>");
        }
        w!(out, "<div class=\"members\"><span>{}:</span>", plural(group.members.len(), "snapshot", "snapshots"));
        for member in &group.members {
            let index = snapshots.iter().position(|s| s.name == member.name && s.project == member.project);
            let label = format!(
                "{} <span class=\"project\">{}</span>",
                escape_html(&member.name),
                escape_html(&member.project)
            );
            match index {
                Some(i) => w!(out, "<a href=\"#snap-{i}\">{label}</a>"),
                None => w!(out, "<span>{label}</span>"),
            }
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
