//! Fuzz target: PNG/JPEG decoding on arbitrary bytes must return `Ok` or an error, never panic or
//! abort, and must apply the pixel cap before allocating.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = sightline_core::decode::decode_image(data, Path::new("fuzz.png"));
});
