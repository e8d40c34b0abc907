//! Region attribution: [`attribute_regions`] names the elements under each pixel region, those
//! whose content changed first ([`ElementRole`] tiers), so a region reads as "this card's text"
//! rather than "somewhere in main".

use super::comparison::{DomComparison, compare_dom};
use super::record::{DomSnapshot, ElementRecord};
use crate::regions::{AttributedElement, ElementRole, Region};
use crate::shift::PageShift;

/// Elements named per region.
const ELEMENTS_PER_REGION: usize = 5;

impl ElementRole {
    /// Attribution prefers content changes, then geometry, then bystanders.
    fn tier(self) -> u8 {
        match self {
            ElementRole::Changed | ElementRole::Added | ElementRole::Removed => 0,
            ElementRole::Moved => 1,
            ElementRole::Overlaps => 2,
        }
    }
}

/// Names the elements each region maps to, one list per region in region order.
///
/// Region coordinates are screenshot pixels; element boxes are scaled by each capture's
/// `devicePixelRatio`. With a `shift`, baseline boxes are moved the way the shift moved the
/// page before they are tested: both `change` regions (found once the shift is undone) and
/// `shift` regions are in current-page coordinates, so an element that only rode along with the
/// shift meets the same region on both sides.
///
/// Per region, at most 5 elements: first the innermost elements whose content changed (no such
/// descendant also meets the region), then the innermost moved or resized ones, then the
/// innermost unchanged ones (`overlaps`, no descendant meets the region); smallest first within
/// each group. Masked elements are never named.
pub fn attribute_regions(
    regions: &[Region],
    baseline: &DomSnapshot,
    current: &DomSnapshot,
    dom: &DomComparison,
    shift: Option<PageShift>,
) -> Vec<Vec<AttributedElement>> {
    // A comparison of other captures would index past these; recompute rather than panic.
    let recomputed;
    let roles =
        if dom.roles.baseline.len() == baseline.elements.len() && dom.roles.current.len() == current.elements.len() {
            &dom.roles
        } else {
            recomputed = compare_dom(baseline, current);
            &recomputed.roles
        };
    let sides = [
        Side::new(baseline, &roles.baseline, &roles.baseline_pair, shift.as_ref()),
        Side::new(current, &roles.current, &roles.current_pair, None),
    ];
    let mut marks = [Marks::new(baseline.elements.len()), Marks::new(current.elements.len())];
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    let mut units: Vec<(u8, f64, usize, usize)> = Vec::new();

    let mut attributed = Vec::with_capacity(regions.len());
    for (n, region) in regions.iter().enumerate() {
        // Marks carry the region's number instead of being cleared for every region.
        let stamp = n as u32 + 1;
        let area = region.corners();
        candidates.clear();
        for (s, side) in sides.iter().enumerate() {
            candidates.extend(
                side.edges.iter().enumerate().filter(|(_, e)| e.is_some_and(|e| meets(&e, &area))).map(|(i, _)| (s, i)),
            );
        }
        for &(s, i) in &candidates {
            let tier = sides[s].role(i).tier();
            marks[s].mark_ancestors(sides[s].elements, i, tier, stamp);
        }

        // One unit per element pair: a matched baseline element stands for its current twin.
        units.clear();
        for &(s, i) in &candidates {
            let (s, i) = match (s, sides[s].pair[i]) {
                (0, Some(c)) => (1, c as usize),
                other => (other.0, i),
            };
            if std::mem::replace(&mut marks[s].seen[i], stamp) == stamp {
                continue;
            }
            let tier = sides[s].role(i).tier();
            let twin = sides[s].pair[i].map(|j| (1 - s, j as usize));
            let outer = marks[s].levels[tier as usize][i] == stamp
                || twin.is_some_and(|(t, j)| marks[t].levels[tier as usize][j] == stamp);
            if outer {
                continue;
            }
            let size = sides[s].edges[i].or_else(|| twin.and_then(|(t, j)| sides[t].edges[j])).map_or(0.0, |e| {
                let [x0, y0, x1, y1] = e;
                (x1 - x0) * (y1 - y0)
            });
            units.push((tier, size, s, i));
        }
        units.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(b.2.cmp(&a.2)).then(a.3.cmp(&b.3)));
        attributed.push(
            units
                .iter()
                .take(ELEMENTS_PER_REGION)
                .map(|&(_, _, s, i)| AttributedElement {
                    selector: sides[s].elements[i].selector.clone(),
                    role: sides[s].role(i),
                })
                .collect(),
        );
    }
    attributed
}

/// One capture as attribution sees it.
struct Side<'a> {
    elements: &'a [ElementRecord],
    roles: &'a [Option<ElementRole>],
    pair: &'a [Option<u32>],
    /// Boxes as `[x0, y0, x1, y1]` in screenshot pixels; `None` for masked or empty boxes,
    /// which can meet no region.
    edges: Vec<Option<[f64; 4]>>,
}

impl<'a> Side<'a> {
    fn new(
        snapshot: &'a DomSnapshot,
        roles: &'a [Option<ElementRole>],
        pair: &'a [Option<u32>],
        shift: Option<&PageShift>,
    ) -> Self {
        Side { elements: &snapshot.elements, roles, pair, edges: screen_boxes(snapshot, roles, shift) }
    }

    /// The role of an element that has a box (masked elements have none).
    fn role(&self, i: usize) -> ElementRole {
        self.roles[i].unwrap_or(ElementRole::Overlaps)
    }
}

/// Where baseline row `y` is shown in the current page under `shift` (the inverse of
/// [`PageShift::baseline_row`]); rows of a removed band collapse onto `belowY`.
fn current_row(shift: &PageShift, y: f64) -> f64 {
    let (below, dy) = (f64::from(shift.below_y), f64::from(shift.dy));
    if y < below {
        y
    } else if y < below - dy {
        below
    } else {
        y + dy
    }
}

/// Each element's border box as `[x0, y0, x1, y1]` in screenshot pixels (scaled by the
/// capture's device pixel ratio, moved as `shift` moved the page); `None` for an element with no
/// role (masked, ignored) or no area, which can meet no region.
pub(super) fn screen_boxes(
    snapshot: &DomSnapshot,
    roles: &[Option<ElementRole>],
    shift: Option<&PageShift>,
) -> Vec<Option<[f64; 4]>> {
    let scale = snapshot.device_pixel_ratio;
    snapshot
        .elements
        .iter()
        .zip(roles)
        .map(|(e, role)| {
            let [x, y, w, h] = e.bounds;
            if role.is_none() || w <= 0.0 || h <= 0.0 {
                return None;
            }
            let (x0, x1) = (x * scale, (x + w) * scale);
            let (mut y0, mut y1) = (y * scale, (y + h) * scale);
            if let Some(shift) = shift {
                (y0, y1) = (current_row(shift, y0), current_row(shift, y1));
                // Content in a removed band has no rows left; keep it one row tall at the
                // seam, where its disappearance shows.
                y1 = y1.max(y0 + 1.0);
            }
            Some([x0, y0, x1, y1])
        })
        .collect()
}

/// Boxes meet when they share a positive area.
pub(super) fn meets(a: &[f64; 4], b: &[f64; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

/// Per-region marks on one side's elements, stamped with the region number.
struct Marks {
    /// `levels[t][i]`: element `i` has a descendant of tier ≤ `t` meeting the region.
    levels: [Vec<u32>; 3],
    /// Element `i` was already taken as a unit for this region.
    seen: Vec<u32>,
}

impl Marks {
    fn new(n: usize) -> Self {
        Marks { levels: [vec![0; n], vec![0; n], vec![0; n]], seen: vec![0; n] }
    }

    /// Marks the ancestors of element `i` (of tier `tier`) on every level it counts for.
    fn mark_ancestors(&mut self, elements: &[ElementRecord], i: usize, tier: u8, stamp: u32) {
        for level in &mut self.levels[tier as usize..] {
            let mut p = elements[i].parent_index();
            while let Some(a) = p {
                if std::mem::replace(&mut level[a], stamp) == stamp {
                    break; // marked earlier for this region, and its ancestors with it
                }
                p = elements[a].parent_index();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::dom::test_records::{attribute, el, named, page, region};
    use crate::regions::Classification;

    #[test]
    fn dom_attribution_names_each_role() {
        let mut b = page();
        b["elements"][5]["text"] = json!("ff"); // changed
        b["elements"][2]["box"] = json!([30.0, 10.0, 300.0, 40.0]); // moved
        b["elements"].as_array_mut().unwrap().remove(7); // removed
        b["elements"].as_array_mut().unwrap().push(el(7, "a", "body > footer > a", [10.0, 570.0, 80.0, 20.0], None)); // added
        let regions = [
            region(30, 90, 220, 40),  // the changed paragraph
            region(10, 570, 80, 20),  // the added link
            region(290, 90, 220, 40), // the removed paragraph
            region(20, 10, 310, 40),  // the moved heading
            region(300, 200, 50, 50), // an unchanged card
        ];
        let found = attribute(&page(), &b, &regions, None);
        assert_eq!(
            found,
            [
                named(&[("#card-a > p", ElementRole::Changed)]),
                named(&[("body > footer > a", ElementRole::Added)]),
                named(&[("#card-b > p", ElementRole::Removed)]),
                named(&[("body > header > h1", ElementRole::Moved)]),
                named(&[("#card-b", ElementRole::Overlaps)]),
            ]
        );
    }

    #[test]
    fn dom_attribution_prefers_the_changed_container_to_unchanged_children() {
        let mut b = page();
        b["elements"][4]["styles"][1] = json!("rgb(254, 226, 226)");
        let found = attribute(&page(), &b, &[region(20, 80, 240, 200)], None);
        assert_eq!(found, [named(&[("#card-a", ElementRole::Changed), ("#card-a > p", ElementRole::Overlaps)])]);
        // A region over nothing but the page's empty corner names the innermost box under it.
        let found = attribute(&page(), &b, &[region(700, 300, 10, 10), region(900, 900, 5, 5)], None);
        assert_eq!(found, [named(&[("body > main", ElementRole::Overlaps)]), vec![]]);
    }

    #[test]
    fn dom_attribution_undoes_a_page_shift() {
        // A 50 px banner appears at the top of main; the two paragraphs below move down.
        let doc = |banner: bool, dy: f64| {
            let mut elements = vec![
                el(-1, "body", "body", [0.0, 0.0, 800.0, 400.0 + dy], None),
                el(0, "main", "body > main", [0.0, 0.0, 800.0, 400.0 + dy], None),
            ];
            if banner {
                elements.push(el(1, "div", "#banner", [0.0, 100.0, 800.0, 50.0], Some("ad")));
            }
            elements.push(el(1, "p", "#first", [0.0, 100.0 + dy, 800.0, 40.0], Some("p1")));
            elements.push(el(1, "p", "#second", [0.0, 150.0 + dy, 800.0, 40.0], Some("p2")));
            let mut v = page();
            v["elements"] = Value::Array(elements);
            v
        };
        let (a, b) = (doc(false, 0.0), doc(true, 50.0));
        // The shift region over #first's new place, where #second used to be.
        let mut r = region(0, 150, 800, 40);
        r.classification = Classification::Shift;
        let shift = PageShift { dy: 50, below_y: 100 };
        let with = attribute(&a, &b, std::slice::from_ref(&r), Some(shift));
        assert_eq!(with, [named(&[("#first", ElementRole::Moved)])]);
        let without = attribute(&a, &b, &[r], None);
        assert_eq!(without, [named(&[("#first", ElementRole::Moved), ("#second", ElementRole::Moved)])]);
        // The inserted band itself maps to the added banner.
        assert_eq!(
            attribute(&a, &b, &[region(0, 100, 800, 50)], Some(shift)),
            [named(&[("#banner", ElementRole::Added)])]
        );
        // Removed the other way round: the banner shows at the seam, once.
        let up = PageShift { dy: -50, below_y: 100 };
        assert_eq!(
            attribute(&b, &a, &[region(0, 100, 800, 40)], Some(up)),
            [named(&[("#banner", ElementRole::Removed), ("#first", ElementRole::Moved)])]
        );
    }

    #[test]
    fn dom_attribution_scales_boxes_by_device_pixel_ratio() {
        let mut a = page();
        a["devicePixelRatio"] = json!(2);
        let mut b = a.clone();
        b["elements"][5]["text"] = json!("ff");
        // #card-a > p is at (30, 90) CSS px, (60, 180) screenshot px.
        // Screenshot px (4, 130) is CSS px (2, 65): inside main, left of the cards.
        let found = attribute(&a, &b, &[region(60, 180, 40, 40), region(4, 130, 10, 10)], None);
        assert_eq!(found[0], named(&[("#card-a > p", ElementRole::Changed)]));
        assert_eq!(found[1], named(&[("body > main", ElementRole::Overlaps)]));
    }

    #[test]
    fn dom_attribution_over_5000_elements_and_50_regions() {
        // 50 rows of 99 cells; one cell per row gets new text.
        let mut elements = vec![el(-1, "body", "body", [0.0, 0.0, 990.0, 1000.0], None)];
        for row in 0..50 {
            let parent = elements.len() as i64;
            elements.push(el(0, "div", &format!("#row{row}"), [0.0, row as f64 * 20.0, 990.0, 20.0], None));
            for col in 0..99 {
                let b = [col as f64 * 10.0, row as f64 * 20.0, 10.0, 20.0];
                elements.push(el(parent, "span", &format!("#row{row} > span:nth-of-type({col})"), b, Some("00")));
            }
        }
        let mut a = page();
        a["elements"] = Value::Array(elements);
        let mut b = a.clone();
        for row in 0..50 {
            b["elements"][1 + row * 100 + 1 + row]["text"] = json!("11");
        }
        let regions: Vec<Region> = (0..50).map(|row| region(row * 10, row * 20, 10, 20)).collect();
        let found = attribute(&a, &b, &regions, None);
        assert_eq!(found.len(), 50);
        for (row, list) in found.iter().enumerate() {
            assert_eq!(list, &named(&[(&format!("#row{row} > span:nth-of-type({row})"), ElementRole::Changed)]));
        }
    }
}
