//! Times the capture artifact against PNG on one screenshot, for `npm run bench` (group
//! `artifact`): encode and decode medians in milliseconds and the sizes, printed as one JSON line.
//!
//! `cargo run --release -p sightline-core --example artifact_speed -- <page.png> [runs]`

use std::path::Path;
use std::time::Instant;

use sightline_core::artifact::{Capture, decode_capture, encode_capture};
use sightline_core::decode::{PngCompression, decode_image, encode_png};

fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    f(); // warm-up: page cache, allocator, lazily initialised tables
    let mut samples: Vec<f64> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let file = args.next().ok_or("usage: artifact_speed <page.png> [runs]")?;
    let runs: usize = args.next().map(|r| r.parse()).transpose()?.unwrap_or(7);
    let png = std::fs::read(&file)?;
    let path = Path::new(&file);
    let image = decode_image(&png, path)?;
    let capture = Capture { image: image.clone(), device_scale_factor: 1.0, metadata: b"{}".to_vec() };
    let artifact = encode_capture(&capture)?;

    let png_decode = median_ms(runs, || {
        decode_image(&png, path).unwrap();
    });
    let png_encode_fast = median_ms(runs, || {
        encode_png(&image, PngCompression::Fastest).unwrap();
    });
    let artifact_encode = median_ms(runs, || {
        encode_capture(&capture).unwrap();
    });
    let artifact_decode = median_ms(runs, || {
        decode_capture(&artifact, path).unwrap();
    });
    // What both decodes pay before any decoding: a fresh buffer for the pixels, which the
    // kernel maps and zeroes page by page as it is first written (one write per 4 KiB page).
    let fresh_buffer = median_ms(runs, || {
        let mut pixels = vec![0u8; image.as_bytes().len()];
        for page in pixels.chunks_mut(4096) {
            page[0] = 1;
        }
        std::hint::black_box(&pixels);
    });
    println!(
        "{{\"width\":{},\"height\":{},\"pngBytes\":{},\"artifactBytes\":{},\"pngDecodeMs\":{png_decode:.2},\"pngEncodeFastMs\":{png_encode_fast:.2},\"artifactEncodeMs\":{artifact_encode:.2},\"artifactDecodeMs\":{artifact_decode:.2},\"freshBufferMs\":{fresh_buffer:.2}}}",
        image.width(),
        image.height(),
        png.len(),
        artifact.len()
    );
    Ok(())
}
