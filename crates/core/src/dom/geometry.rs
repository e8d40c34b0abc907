//! How boxes changed between two DOM records: elements that moved or resized, tallied while
//! [`compare_dom`](super::compare_dom) walks the pairs.

use serde::{Deserialize, Serialize};

use super::comparison::{GEOMETRY_TOLERANCE, LISTED_GEOMETRY};
use super::record::ElementRecord;

/// Elements whose border box moved or resized by more than [`GEOMETRY_TOLERANCE`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GeometryChanges {
    /// How many elements moved or resized.
    pub count: usize,
    /// How many elements changed size.
    pub resized_count: usize,
    /// The first 20 elements that changed size: innermost first (no resized descendant — the
    /// element that grew or shrank rather than a container around it), then document order.
    pub resized: Vec<ResizedElement>,
    /// How many elements moved without changing size.
    pub moved_count: usize,
    /// The first 20 runs of moved elements: consecutive elements (document order) moved by the
    /// same offset form one entry, so a page shift reads as one line.
    pub moved: Vec<MovedElements>,
    /// Innermost resized elements (of all, not only the listed) with no text of their own: a
    /// size change that did not start in text, as a re-shaping engine's does
    /// (`rendering::reshaped_line`). Known when the comparison is made; not part of the evidence.
    #[serde(skip)]
    pub resized_without_text: usize,
}

impl GeometryChanges {
    /// `; #card resized 240×180 → 240×220`: the first innermost resized element, where a size
    /// change starts, as verdicts add it; empty when none resized.
    pub fn resized_note(&self) -> String {
        let size = crate::words::box_size;
        let innermost = self.resized.iter().find(|r| r.innermost);
        innermost.map(|r| format!("; {} resized {} → {}", r.selector, size(r.from), size(r.to))).unwrap_or_default()
    }
}

/// An element whose size changed; boxes are `[x, y, width, height]` in CSS pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResizedElement {
    pub selector: String,
    pub from: [f64; 4],
    pub to: [f64; 4],
    /// No descendant of this element was resized: it is where the size change starts.
    pub innermost: bool,
}

/// A run of elements moved by the same offset without changing size, named by its first one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MovedElements {
    /// The first element of the run.
    pub selector: String,
    /// The first element's box before and after, `[x, y, width, height]` in CSS pixels.
    pub from: [f64; 4],
    pub to: [f64; 4],
    /// The run's offset in CSS pixels.
    pub dx: f64,
    pub dy: f64,
    /// Elements in the run.
    pub count: usize,
}

/// Collects moved and resized elements while [`compare_dom`] walks the pairs.
#[derive(Default)]
pub(super) struct GeometryTally {
    count: usize,
    /// (current index, from, to) of every resized element; innermost is decided at the end.
    resized: Vec<(usize, [f64; 4], [f64; 4])>,
    moved_count: usize,
    moved: Vec<MovedElements>,
    /// Offset of the run the previous moved element belonged to, and whether that run is listed.
    run: Option<(f64, f64, bool)>,
}

impl GeometryTally {
    /// Records the pair's geometry change; true when its box moved or resized.
    pub(super) fn add(&mut self, c: usize, old: &ElementRecord, new: &ElementRecord) -> bool {
        let (from, to) = (old.bounds, new.bounds);
        let d: [f64; 4] = std::array::from_fn(|i| to[i] - from[i]);
        let beyond = |v: f64| v.abs() > GEOMETRY_TOLERANCE;
        if !d.iter().any(|&v| beyond(v)) {
            return false;
        }
        self.count += 1;
        if beyond(d[2]) || beyond(d[3]) {
            self.resized.push((c, from, to));
            return true;
        }
        self.moved_count += 1;
        let (dx, dy) = (d[0], d[1]);
        match self.run {
            Some((rx, ry, listed)) if !beyond(rx - dx) && !beyond(ry - dy) => {
                if listed && let Some(run) = self.moved.last_mut() {
                    run.count += 1;
                }
            }
            _ => {
                // Runs past the listed ones are not kept; moved_count still counts their elements.
                let listed = self.moved.len() < LISTED_GEOMETRY;
                if listed {
                    self.moved.push(MovedElements { selector: new.selector.clone(), from, to, dx, dy, count: 1 });
                }
                self.run = Some((dx, dy, listed));
            }
        }
        true
    }

    pub(super) fn finish(self, cs: &[ElementRecord]) -> GeometryChanges {
        // A grown card grows every container around it; the element with no resized descendant
        // is the one that actually changed size.
        let mut has_resized_descendant = vec![false; cs.len()];
        for &(c, _, _) in &self.resized {
            let mut p = cs[c].parent_index();
            while let Some(i) = p {
                if std::mem::replace(&mut has_resized_descendant[i], true) {
                    break; // its ancestors were marked when it was
                }
                p = cs[i].parent_index();
            }
        }
        let resized_count = self.resized.len();
        let resized_without_text =
            self.resized.iter().filter(|&&(c, _, _)| !has_resized_descendant[c] && cs[c].text.is_none()).count();
        let mut resized: Vec<ResizedElement> = self
            .resized
            .into_iter()
            .map(|(c, from, to)| ResizedElement {
                selector: cs[c].selector.clone(),
                from,
                to,
                innermost: !has_resized_descendant[c],
            })
            .collect();
        resized.sort_by_key(|r| !r.innermost); // stable: document order within each group
        resized.truncate(LISTED_GEOMETRY);
        GeometryChanges {
            count: self.count,
            resized_count,
            resized,
            moved_count: self.moved_count,
            moved: self.moved,
            resized_without_text,
        }
    }
}
