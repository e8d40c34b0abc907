//! Fuzz target: the results.json reader on arbitrary text must return `Ok` or an error naming the
//! file, never panic; whatever it accepts has one typed head per entry of `snapshots`.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use sightline_core::results_file::parse_results;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match parse_results(text.to_string(), Path::new("results.json")) {
        Ok(results) => assert_eq!(results.snapshots.len(), results.value["snapshots"].as_array().map_or(0, Vec::len)),
        Err(e) => assert!(e.to_string().starts_with("results.json: ")),
    }
});
