//! Fuzz target: capture artifact decoding on arbitrary bytes must return `Ok` or an error, never
//! panic, abort or allocate from an unchecked length.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use sightline_core::artifact::{decode_capture, encode_capture, reseal_for_fuzzing};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.slcap");
    let _ = decode_capture(data, path);
    // Nearly every mutation breaks the checksum, which would stop decoding at the first check.
    // Decoding a copy with the checksum recomputed lets mutations reach the length checks, the
    // band table and the zstd frames behind it.
    let mut sealed = data.to_vec();
    reseal_for_fuzzing(&mut sealed);
    if let Ok(capture) = decode_capture(&sealed, path) {
        // Whatever decodes must survive a round trip unchanged.
        let again = encode_capture(&capture).expect("a decoded capture re-encodes");
        assert_eq!(decode_capture(&again, path).expect("a re-encoded capture decodes"), capture);
    }
});
