//! What `store::approve` holds back: a capture whose page never settled (`unstable`) is held as
//! an unhealthy one is, nothing written, unless it is asked for explicitly.

use sightline_core::RgbaImage;
use sightline_core::approve::{Proof, approve};
use sightline_core::capture::{Unsettled, UpdateMode};
use sightline_core::decode::{PngCompression, encode_png};
use sightline_core::store::ProjectStore;
use sightline_core::verdict::VerdictKind;

#[test]
fn approve_holds_a_capture_whose_page_never_settled_unless_asked_for_it() {
    let root = crate::scratch_dir("approve-unsettled");
    let store = ProjectStore::new(&root);
    let shot = |v: u8| encode_png(&RgbaImage::filled(8, 4, [v, v, v, 255]).unwrap(), PngCompression::Fastest).unwrap();
    crate::capture_card(&store, &shot(10), UpdateMode::All);
    let baseline = store.baseline_png("card", "chromium").unwrap();
    let approved = std::fs::read(&baseline).unwrap();
    // The last two shots still differed when the time was up.
    let (earlier, last) = (shot(100), shot(200));
    let unsettled = Unsettled { previous_png: &earlier, waited_ms: 1500 };
    let outcome = crate::capture_card_unsettled(&store, &last, UpdateMode::Default, Some(unsettled));
    assert_eq!(outcome.evidence.verdict_kind, VerdictKind::Unstable);
    assert_eq!(
        outcome.evidence.verdict,
        "Unstable page: two consecutive screenshots never matched within 1500 ms; the area 8×4 at 0,0 kept changing; \
         hide it with mask or wait for it to settle — never approve this capture as a baseline"
    );

    let held = approve(&store, "card", Proof::Named { project: None }, false).unwrap();
    assert_eq!(held.approved, []);
    let reasons: Vec<_> = held.held.iter().map(|h| (h.name.as_str(), h.project.as_str(), h.reason.as_str())).collect();
    assert_eq!(reasons, [("card", "chromium", outcome.evidence.verdict.as_str())]);
    assert_eq!(std::fs::read(&baseline).unwrap(), approved, "the held capture's baseline is untouched");

    let asked = approve(&store, "card", Proof::Named { project: None }, true).unwrap();
    assert_eq!((asked.approved.len(), asked.held.len()), (1, 0));
    assert_ne!(std::fs::read(&baseline).unwrap(), approved, "asked for, the capture is the baseline");
    std::fs::remove_dir_all(&root).unwrap();
}
