//! Writes the seed inputs for the fuzz targets into `seeds/`: small valid artifacts (one of them
//! with two pixel bands) so the fuzzer starts from the real format instead of guessing it.
//! Run from `fuzz/`: `cargo run --example make_seeds`.

use std::path::Path;

use sightline_core::RgbaImage;
use sightline_core::artifact::{Capture, encode_capture};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/artifact_decode");
    std::fs::create_dir_all(&dir)?;
    let gradient = |width: u32, height: u32| {
        let data = (0..width * height).flat_map(|i| [(i % 251) as u8, (i / 7) as u8, 128, 255]).collect();
        RgbaImage::from_raw(width, height, data)
    };
    let seeds = [
        (
            "small.slcap",
            Capture { image: gradient(9, 7)?, device_scale_factor: 1.0, metadata: br#"{"dom":[]}"#.to_vec() },
        ),
        (
            "empty.slcap",
            Capture { image: RgbaImage::from_raw(0, 0, Vec::new())?, device_scale_factor: 2.0, metadata: vec![] },
        ),
        // 1100 rows of 1000 px are two 4 MiB bands; one colour keeps the file a few hundred bytes.
        (
            "two-bands.slcap",
            Capture {
                image: RgbaImage::filled(1000, 1100, [250, 250, 250, 255])?,
                device_scale_factor: 1.0,
                metadata: b"{}".to_vec(),
            },
        ),
    ];
    for (name, capture) in seeds {
        let bytes = encode_capture(&capture)?;
        std::fs::write(dir.join(name), &bytes)?;
        eprintln!("{name}: {} bytes", bytes.len());
    }
    Ok(())
}
