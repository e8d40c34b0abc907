//! Capture artifacts as real files: a corpus PNG written and read back, the header read on its own,
//! the size promise against the PNG, and a damaged file reported by name.

use std::path::PathBuf;

use sightline_core::Error;
use sightline_core::artifact::{Capture, CaptureHeader, read_capture, read_capture_header, write_capture};
use sightline_core::decode::read_image;

use crate::corpus::corpus;

/// 4a.png (a 438×412 street map: dense detail, anti-aliased labels) as a capture with metadata.
fn map_capture() -> (PathBuf, Capture) {
    let png = corpus("pixelmatch").join("fixtures/4a.png");
    let image = read_image(&png).expect("4a.png decodes");
    let metadata = br#"{"url":"http://localhost/map","elements":[{"selector":"body","tag":"body"}]}"#.to_vec();
    (png, Capture { image, device_scale_factor: 2.0, metadata })
}

#[test]
#[cfg_attr(
    corpus_absent = "pixelmatch",
    ignore = "corpus pixelmatch absent: set SIGHTLINE_SHARED to the folder holding corpora/"
)]
fn artifact_files_round_trip_a_real_png_and_read_its_header() {
    let (_, capture) = map_capture();
    let dir = crate::scratch_dir("artifact-files-round-trip");
    let file = dir.join("map.slcap");
    write_capture(&file, &capture).expect("write");
    assert_eq!(read_capture(&file).expect("read"), capture);
    assert_eq!(
        read_capture_header(&file).expect("header"),
        CaptureHeader { version: 1, width: 438, height: 412, device_scale_factor: 2.0, metadata_len: 76 }
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[cfg_attr(
    corpus_absent = "pixelmatch",
    ignore = "corpus pixelmatch absent: set SIGHTLINE_SHARED to the folder holding corpora/"
)]
fn artifact_files_are_smaller_than_the_png() {
    let (png, capture) = map_capture();
    let dir = crate::scratch_dir("artifact-files-size");
    let file = dir.join("map.slcap");
    write_capture(&file, &capture).expect("write");
    // The artifact stores 4 channels where the PNG stores 3, and is still smaller.
    let artifact_len = std::fs::metadata(&file).unwrap().len();
    let png_len = std::fs::metadata(&png).unwrap().len();
    assert_eq!(png_len, 240_836);
    assert!(artifact_len < png_len, "artifact {artifact_len} bytes, PNG {png_len} bytes");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[cfg_attr(
    corpus_absent = "pixelmatch",
    ignore = "corpus pixelmatch absent: set SIGHTLINE_SHARED to the folder holding corpora/"
)]
fn artifact_files_name_a_damaged_file_in_the_error() {
    let (_, capture) = map_capture();
    let dir = crate::scratch_dir("artifact-files-damaged");
    let file = dir.join("map.slcap");
    write_capture(&file, &capture).expect("write");
    let bytes = std::fs::read(&file).unwrap();
    // A crash of some other writer that left half a file: the decoder says so, by name.
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    let err = read_capture(&file).expect_err("half a file must not decode");
    assert!(matches!(&err, Error::BadArtifact { path, .. } if *path == file), "{err:?}");
    let message = err.to_string();
    assert!(message.starts_with(&file.display().to_string()), "{message}");
    assert!(message.contains("truncated") && message.ends_with("delete it and capture again"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}
