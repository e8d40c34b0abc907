//! The artifact format's round trips and its refusals of damaged files.

use super::*;

/// A small image whose bytes all differ from their neighbours, so a misplaced band shows.
fn patterned(width: u32, height: u32) -> RgbaImage {
    let data = (0..width as usize * height as usize * 4).map(|i| (i * 7 + i / 13) as u8).collect();
    RgbaImage::from_raw(width, height, data).expect("valid size")
}

fn capture(width: u32, height: u32) -> Capture {
    Capture { image: patterned(width, height), device_scale_factor: 1.5, metadata: br#"{"dom":[1,2,3]}"#.to_vec() }
}

fn path() -> &'static Path {
    Path::new("shots/home.slcap")
}

fn set_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

fn set_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// Asserts a decode failed as a corrupt artifact and returns its detail.
fn bad_detail(result: Result<Capture>) -> String {
    match result {
        Err(Error::BadArtifact { path: p, detail }) => {
            assert_eq!(p, path());
            detail
        }
        other => panic!("expected BadArtifact, got {other:?}"),
    }
}

/// A fresh, empty folder under the system temp dir for one test.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sightline-artifact-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

#[test]
fn artifact_round_trips_pixels_and_metadata() {
    // 1000 px rows are 4000 bytes: 1048 rows per 4 MiB band, so 1100 rows make two bands.
    let original = capture(1000, 1100);
    let bytes = encode_capture(&original).expect("encode");
    assert_eq!(&bytes[..6], b"SLCAP\0");
    assert_eq!(u16::from_le_bytes([bytes[6], bytes[7]]), 1);
    assert_eq!(u32::from_le_bytes(bytes[24..28].try_into().unwrap()), 1048);
    assert_eq!(u32::from_le_bytes(bytes[28..32].try_into().unwrap()), 2);
    let decoded = decode_capture(&bytes, path()).expect("decode");
    assert_eq!(decoded, original);
    assert_eq!(decoded.device_scale_factor, 1.5);
    // Same input, same bytes: bands are compressed independently of thread timing.
    assert_eq!(encode_capture(&original).expect("encode again"), bytes);
}

#[test]
fn artifact_round_trips_empty_image_and_metadata() {
    let empty =
        Capture { image: RgbaImage::from_raw(0, 0, Vec::new()).unwrap(), device_scale_factor: 2.0, metadata: vec![] };
    let bytes = encode_capture(&empty).expect("encode");
    assert_eq!(decode_capture(&bytes, path()).expect("decode"), empty);
    let zero_wide = Capture { image: RgbaImage::from_raw(0, 7, Vec::new()).unwrap(), ..empty };
    let bytes = encode_capture(&zero_wide).expect("encode");
    assert_eq!(decode_capture(&bytes, path()).expect("decode"), zero_wide);
}

#[test]
fn artifact_header_reads_without_pixels() {
    let dir = scratch_dir("header");
    let file = dir.join("page.slcap");
    write_capture(&file, &capture(40, 30)).expect("write");
    let header = read_capture_header(&file).expect("header");
    assert_eq!(header, CaptureHeader { version: 1, width: 40, height: 30, device_scale_factor: 1.5, metadata_len: 15 });
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn artifact_rejects_truncation_at_every_length() {
    let bytes = encode_capture(&capture(9, 7)).expect("encode");
    for len in 0..bytes.len() {
        let detail = bad_detail(decode_capture(&bytes[..len], path()));
        assert!(detail.starts_with("truncated"), "length {len}: {detail}");
    }
    // The header reader sees a truncated file the same way, from the file's length alone.
    let dir = scratch_dir("truncated");
    let file = dir.join("cut.slcap");
    for len in [0, 10, HEADER_LEN, bytes.len() - 1] {
        std::fs::write(&file, &bytes[..len]).unwrap();
        match read_capture_header(&file) {
            Err(Error::BadArtifact { detail, .. }) => assert!(detail.starts_with("truncated"), "{detail}"),
            other => panic!("length {len}: expected BadArtifact, got {other:?}"),
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn artifact_rejects_trailing_bytes() {
    let mut bytes = encode_capture(&capture(9, 7)).expect("encode");
    bytes.push(0);
    assert_eq!(bad_detail(decode_capture(&bytes, path())), "1 unexpected bytes after the end of the artifact");
}

#[test]
fn artifact_rejects_flipped_bytes() {
    let bytes = encode_capture(&capture(9, 7)).expect("encode");
    for at in 0..bytes.len() {
        for bit in [0x01, 0x80] {
            let mut corrupt = bytes.clone();
            corrupt[at] ^= bit;
            // Every flip is caught, and always as corruption: the checksum is checked before
            // the header's values, so a flipped width never reads as "too large".
            bad_detail(decode_capture(&corrupt, path()));
        }
    }
}

#[test]
fn artifact_rejects_bad_magic_and_unknown_version() {
    let bytes = encode_capture(&capture(4, 4)).expect("encode");
    let png = b"\x89PNG\r\n\x1a\n".iter().copied().chain(std::iter::repeat_n(0, 100)).collect::<Vec<_>>();
    assert_eq!(bad_detail(decode_capture(&png, path())), "not a Sightline capture artifact (bad magic bytes)");
    let mut newer = bytes.clone();
    newer[6] = 2;
    assert_eq!(
        bad_detail(decode_capture(&newer, path())),
        "artifact format version 2 is not supported (this build reads version 1)"
    );
    let mut flagged = bytes;
    set_u32(&mut flagged, 8, 4);
    assert_eq!(bad_detail(decode_capture(&flagged, path())), "unknown header flags 0x4");
}

#[test]
fn artifact_rejects_header_claiming_huge_dimensions_before_allocating() {
    let mut forged = encode_capture(&capture(4, 4)).expect("encode");
    set_u32(&mut forged, 12, 100_000);
    set_u32(&mut forged, 16, 100_000);
    set_u32(&mut forged, 24, 1);
    set_u32(&mut forged, 28, 100_000);
    // Unsealed, the forgery is just corruption.
    assert!(bad_detail(decode_capture(&forged, path())).starts_with("checksum mismatch"));
    // With a valid checksum it reaches the pixel cap, which fires before the 40 GB buffer
    // would be reserved (reserving it would abort the test process, not return an error).
    reseal_for_fuzzing(&mut forged);
    match decode_capture(&forged, path()) {
        Err(Error::TooLarge { width, height, pixels, limit, .. }) => {
            assert_eq!((width, height, pixels, limit), (100_000, 100_000, 10_000_000_000, crate::image::MAX_PIXELS));
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    let dir = scratch_dir("huge");
    let file = dir.join("forged.slcap");
    std::fs::write(&file, &forged).unwrap();
    assert!(matches!(read_capture_header(&file), Err(Error::TooLarge { width: 100_000, .. })));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn artifact_rejects_metadata_length_over_the_cap() {
    let mut forged = encode_capture(&capture(4, 4)).expect("encode");
    set_u64(&mut forged, 48, 1 << 40);
    reseal_for_fuzzing(&mut forged);
    assert_eq!(
        bad_detail(decode_capture(&forged, path())),
        "metadata claims 1099511627776 bytes, above the limit of 268435456"
    );
}

/// Rebuilds an artifact of a 4×4 image around a replacement pixel frame and metadata frame,
/// with consistent lengths and a valid checksum, so only the frames' contents are wrong.
fn with_frames(pixel_frame: &[u8], metadata_frame: &[u8], metadata_len: u64) -> Vec<u8> {
    let mut bytes = encode_capture(&capture(4, 4)).expect("encode")[..HEADER_LEN].to_vec();
    set_u64(&mut bytes, 32, 4 + pixel_frame.len() as u64);
    set_u64(&mut bytes, 40, metadata_frame.len() as u64);
    set_u64(&mut bytes, 48, metadata_len);
    bytes.extend_from_slice(&(pixel_frame.len() as u32).to_le_bytes());
    bytes.extend_from_slice(pixel_frame);
    bytes.extend_from_slice(metadata_frame);
    reseal_for_fuzzing(&mut bytes);
    bytes
}

#[test]
fn artifact_rejects_frames_of_the_wrong_decompressed_length() {
    let metadata = zstd::bulk::compress(b"{}", 1).unwrap();
    let good_pixels = zstd::bulk::compress(&[9u8; 64], 1).unwrap();
    assert!(decode_capture(&with_frames(&good_pixels, &metadata, 2), path()).is_ok());

    let short = zstd::bulk::compress(&[9u8; 60], 1).unwrap();
    assert_eq!(
        bad_detail(decode_capture(&with_frames(&short, &metadata, 2), path())),
        "pixel band 0 declares 60 bytes, expected 64"
    );
    let long = zstd::bulk::compress(&[9u8; 68], 1).unwrap();
    assert_eq!(
        bad_detail(decode_capture(&with_frames(&long, &metadata, 2), path())),
        "pixel band 0 declares 68 bytes, expected 64"
    );
    let not_zstd = [0u8; 12];
    assert_eq!(
        bad_detail(decode_capture(&with_frames(&not_zstd, &metadata, 2), path())),
        "pixel band 0 is not a zstd frame with a known size"
    );
    // A frame whose size field is right but whose last block is cut short fails in zstd itself.
    let cut = &good_pixels[..good_pixels.len() - 1];
    assert!(bad_detail(decode_capture(&with_frames(cut, &metadata, 2), path())).starts_with("pixel band 0 is corrupt"));

    assert_eq!(
        bad_detail(decode_capture(&with_frames(&good_pixels, &metadata, 3), path())),
        "metadata frame holds 2 bytes, header says 3"
    );
    assert_eq!(
        bad_detail(decode_capture(&with_frames(&good_pixels, &not_zstd, 2), path())),
        "metadata is not a zstd frame with a known size"
    );
}

#[test]
fn artifact_refuses_to_encode_a_bad_scale_factor() {
    for dsf in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let bad = Capture { device_scale_factor: dsf, ..capture(2, 2) };
        assert!(matches!(encode_capture(&bad), Err(Error::InvalidInput(_))), "{dsf}");
    }
}

#[test]
fn artifact_pixels_encoded_before_their_metadata_seal_to_the_same_bytes() {
    // The session compresses a masked capture's pixels beside its comparison and learns its
    // metadata after: sealing them later gives the file encoding everything at once gives.
    let original = capture(300, 70);
    let bands = encode_bands(&original.image).unwrap();
    let sealed = seal(PixelSection::Bands(&bands), original.device_scale_factor, &original.metadata).unwrap();
    assert_eq!(sealed.to_vec(), encode_capture(&original).unwrap());
    let other = seal(PixelSection::Bands(&bands), 2.0, b"{\"fonts\":[]}").unwrap().to_vec();
    let back = decode_capture(&other, path()).unwrap();
    assert!(back.image == original.image);
    assert_eq!((back.device_scale_factor, back.metadata.as_slice()), (2.0, &b"{\"fonts\":[]}"[..]));
}

#[test]
fn artifact_keeps_a_browser_png_byte_for_byte_and_reads_its_pixels() {
    let original = capture(300, 40);
    let png = crate::decode::encode_png(&original.image, crate::decode::PngCompression::Fastest).expect("png");
    let bytes = seal(PixelSection::Png(&png), 1.5, &original.metadata).expect("encode").to_vec();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), FLAG_PNG_PIXELS);
    assert_eq!(&bytes[HEADER_LEN..HEADER_LEN + png.len()], &png[..], "the PNG is kept as it came");
    assert_eq!(decode_capture(&bytes, path()).expect("decode"), original);
    // The header alone says its size.
    let dir = scratch_dir("png-pixels");
    let file = dir.join("home.slcap");
    std::fs::write(&file, &bytes).unwrap();
    let header = read_capture_header(&file).expect("header");
    assert_eq!((header.width, header.height, header.metadata_len), (300, 40, original.metadata.len() as u64));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn artifact_refuses_a_png_pixel_section_that_disagrees_with_its_header() {
    let original = capture(30, 20);
    let png = crate::decode::encode_png(&original.image, crate::decode::PngCompression::Fastest).expect("png");
    let mut bytes = seal(PixelSection::Png(&png), 1.0, b"{}").expect("encode").to_vec();
    set_u32(&mut bytes, 16, 21);
    reseal_for_fuzzing(&mut bytes);
    assert_eq!(bad_detail(decode_capture(&bytes, path())), "its PNG is 30×20, the header says 30×21");
    // Bands declared beside a PNG section: the layout is refused before anything is decoded.
    let mut bytes = seal(PixelSection::Png(&png), 1.0, b"{}").expect("encode").to_vec();
    set_u32(&mut bytes, 28, 1);
    reseal_for_fuzzing(&mut bytes);
    assert!(bad_detail(decode_capture(&bytes, path())).contains("pixel bands"), "layout refused");
    assert!(seal(PixelSection::Png(b"not a png"), 1.0, b"{}").is_err());
}
