//! Fuzz target: the DOM-record parser on arbitrary text must return `Ok` or an error, never panic
//! or allocate past its limits; a record that parses compares with itself as unchanged.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_core::dom::{compare_dom, parse_dom};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(record) = parse_dom(text) {
        let same = compare_dom(&record, &record);
        assert!(!same.changed && same.added.count == 0 && same.removed.count == 0, "a record differs from itself");
        assert_eq!(same.style_changes.count, 0);
    }
});
