//! JPEG inputs decode to exactly the bytes libjpeg-turbo's `djpeg -dct int` writes (the accurate
//! integer IDCT, fancy upsampling), expanded to RGBA with alpha 255: every fixture under
//! `fixtures/jpeg/` (one per layout, from real photos; `generate.sh` there), CMYK and YCCK files
//! made here, and a file cut off halfway. djpeg runs at test time on the same bytes, so these
//! tests are skipped without it (`apt-get install libjpeg-turbo-progs`, which scripts/setup.sh
//! does) and fail under CI. The scan and pixel caps need no djpeg.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sightline_core::Error;
use sightline_core::decode::{MAX_JPEG_SCANS, decode_image, read_image};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/jpeg")
}

fn fixture(name: &str) -> PathBuf {
    fixtures().join(format!("{name}.jpg"))
}

/// djpeg on PATH, or `false` (skipped; a failure under CI, which installs it).
fn have_djpeg() -> bool {
    let found = Command::new("djpeg").arg("-version").output().is_ok();
    assert!(found || std::env::var_os("CI").is_none(), "djpeg is missing and CI is set");
    if !found {
        eprintln!("skipping: djpeg is not on PATH (apt-get install libjpeg-turbo-progs)");
    }
    found
}

/// `djpeg -dct int -pnm` of `jpeg` as RGBA: its PPM, or its PGM with each grey copied to R, G
/// and B, with alpha 255. Returns width, height and the pixels.
fn djpeg_rgba(jpeg: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut child = Command::new("djpeg")
        .args(["-dct", "int", "-pnm"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Written from another thread: djpeg may fill the stdout pipe before it has read all input.
    let mut stdin = child.stdin.take().unwrap();
    let input = jpeg.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    // 2 is djpeg's exit code for "decoded, with warnings" (a truncated file).
    assert!(matches!(out.status.code(), Some(0 | 2)), "djpeg: {}", String::from_utf8_lossy(&out.stderr));
    let pnm = out.stdout;
    // "P6\n<w> <h>\n255\n": four whitespace-separated fields, then one whitespace byte.
    let mut fields = Vec::new();
    let mut at = 0;
    while fields.len() < 4 {
        while pnm[at].is_ascii_whitespace() {
            at += 1;
        }
        let start = at;
        while !pnm[at].is_ascii_whitespace() {
            at += 1;
        }
        fields.push(std::str::from_utf8(&pnm[start..at]).unwrap().to_string());
    }
    let pixels = &pnm[at + 1..];
    let (width, height) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
    assert_eq!(fields[3], "255");
    let rgba = match fields[0].as_str() {
        "P6" => pixels.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        "P5" => pixels.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        other => panic!("djpeg wrote {other}"),
    };
    (width, height, rgba)
}

/// Decodes `jpeg` with the engine and with djpeg; `None` when every byte is the same, else what
/// differs (the size, or how many pixels and the first of them).
fn difference_from_djpeg(name: &str, jpeg: &[u8]) -> Option<String> {
    let ours = decode_image(jpeg, Path::new(name)).unwrap();
    let (width, height, theirs) = djpeg_rgba(jpeg);
    if (ours.width(), ours.height()) != (width, height) {
        return Some(format!("{name}: {}×{} here, {width}×{height} from djpeg", ours.width(), ours.height()));
    }
    let differing: Vec<usize> = ours
        .as_bytes()
        .chunks_exact(4)
        .zip(theirs.chunks_exact(4))
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, _)| i)
        .collect();
    let &first = differing.first()?;
    let (x, y) = (first % width as usize, first / width as usize);
    let at = 4 * first..4 * first + 4;
    Some(format!(
        "{name}: {} of {} pixels differ, the first at ({x}, {y}): {:?} here, {:?} from djpeg",
        differing.len(),
        width * height,
        &ours.as_bytes()[at.clone()],
        &theirs[at]
    ))
}

/// Every fixture with the size it must decode to, so a fixture that is not the layout its name
/// says fails here rather than passing unnoticed.
const FIXTURES: [(&str, u32, u32); 14] = [
    ("baseline-420", 600, 400),
    ("sampled-422", 451, 300),
    ("sampled-444", 360, 280),
    ("progressive", 451, 300),
    ("progressive-444", 333, 221),
    ("greyscale", 384, 256),
    ("odd-size", 333, 221),
    ("restart-rows", 400, 300),
    ("restart-blocks-422", 333, 221),
    ("quality-10", 600, 400),
    ("quality-100", 200, 150),
    ("arithmetic", 320, 240),
    ("scans-100", 64, 48),
    ("grace-hopper", 512, 600),
];

#[test]
fn jpeg_decode_every_fixture_equals_djpeg_dct_int_byte_for_byte() {
    let on_disk = std::fs::read_dir(fixtures())
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "jpg"))
        .count();
    assert_eq!(on_disk, FIXTURES.len(), "a fixture is missing from FIXTURES or from the folder");
    // Sizes first: they need no djpeg.
    for (name, width, height) in FIXTURES {
        let image = read_image(&fixture(name)).unwrap();
        assert_eq!((image.width(), image.height()), (width, height), "{name}");
        assert!(image.as_bytes().chunks_exact(4).all(|p| p[3] == 255), "{name}: not opaque");
    }
    if !have_djpeg() {
        return;
    }
    let differences: Vec<String> = FIXTURES
        .iter()
        .filter_map(|(name, _, _)| difference_from_djpeg(name, &std::fs::read(fixture(name)).unwrap()))
        .collect();
    assert!(differences.is_empty(), "{differences:#?}");
}

/// A four-ink JPEG of `rgba` stored as `colour_space` (CMYK, or YCCK as Photoshop writes it), in
/// Adobe's inverted convention (255 = no ink) that libjpeg-turbo and djpeg assume.
fn cmyk_jpeg(rgba: &[u8], width: usize, height: usize, colour_space: mozjpeg::ColorSpace) -> Vec<u8> {
    let inks: Vec<u8> = rgba
        .chunks_exact(4)
        .flat_map(|p| {
            let k = 255 - p[0].max(p[1]).max(p[2]);
            [p[0] + k, p[1] + k, p[2] + k, 255 - k]
        })
        .collect();
    let mut jpeg = mozjpeg::Compress::new(mozjpeg::ColorSpace::JCS_CMYK);
    jpeg.set_size(width, height);
    jpeg.set_color_space(colour_space);
    jpeg.set_quality(85.0);
    let mut started = jpeg.start_compress(Vec::new()).unwrap();
    started.write_scanlines(&inks).unwrap();
    started.finish().unwrap()
}

#[test]
fn jpeg_decode_cmyk_and_ycck_equal_djpeg_rgb() {
    let photo = read_image(&fixture("odd-size")).unwrap();
    let (width, height) = (photo.width() as usize, photo.height() as usize);
    let djpeg = have_djpeg();
    for colour_space in [mozjpeg::ColorSpace::JCS_CMYK, mozjpeg::ColorSpace::JCS_YCCK] {
        let jpeg = cmyk_jpeg(photo.as_bytes(), width, height, colour_space);
        assert_eq!(mozjpeg::Decompress::new_mem(&jpeg).unwrap().color_space(), colour_space);
        let decoded = decode_image(&jpeg, Path::new("cmyk.jpg")).unwrap();
        assert_eq!((decoded.width(), decoded.height()), (333, 221));
        assert!(decoded.as_bytes().chunks_exact(4).all(|p| p[3] == 255));
        if djpeg {
            assert_eq!(difference_from_djpeg(&format!("{colour_space:?}"), &jpeg), None);
        }
    }
}

#[test]
fn jpeg_decode_a_file_cut_off_halfway_decodes_as_djpeg_shows_it() {
    // libjpeg-turbo warns and ends the image as if EOI had come; djpeg shows the same picture.
    let whole = std::fs::read(fixture("baseline-420")).unwrap();
    let cut = &whole[..whole.len() / 2];
    let image = decode_image(cut, Path::new("cut.jpg")).unwrap();
    assert_eq!((image.width(), image.height()), (600, 400));
    if have_djpeg() {
        assert_eq!(difference_from_djpeg("cut.jpg", cut), None);
    }
}

#[test]
fn jpeg_decode_more_scans_than_the_cap_is_refused_before_decoding() {
    let jpeg = std::fs::read(fixture("scans-100")).unwrap();
    assert_eq!(MAX_JPEG_SCANS, 100);
    assert!(decode_image(&jpeg, Path::new("scans-100.jpg")).is_ok());
    // Scan 101: the last scan again (its header and data), just before EOI.
    let last_scan = jpeg.windows(2).rposition(|w| w == [0xFF, 0xDA]).unwrap();
    let end = jpeg.len() - 2;
    assert_eq!(jpeg[end..], [0xFF, 0xD9]);
    let more = [&jpeg[..end], &jpeg[last_scan..end], &jpeg[end..]].concat();
    let err = decode_image(&more, Path::new("scans-101.jpg")).unwrap_err();
    assert!(matches!(err, Error::BadImage { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "scans-101.jpg: not a readable PNG or JPEG image (101 scans, above the limit of 100); re-export it as an 8-bit PNG"
    );
}

#[test]
fn jpeg_decode_a_header_over_the_pixel_cap_is_refused_before_decoding() {
    let mut jpeg = std::fs::read(fixture("baseline-420")).unwrap();
    // The frame header (SOF0): FF C0, length, precision, then height and width.
    let sof = jpeg.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap();
    jpeg[sof + 5..sof + 9].copy_from_slice(&[0xFF, 0x00, 0xFF, 0x00]);
    let err = decode_image(&jpeg, Path::new("huge.jpg")).unwrap_err();
    assert!(
        matches!(err, Error::TooLarge { width: 65280, height: 65280, .. }),
        "the 65280 × 65280 header is refused, not decoded: {err:?}"
    );
}

#[test]
fn jpeg_decode_bytes_that_are_no_jpeg_are_an_error_naming_the_file() {
    let mut jpeg = vec![0xFF, 0xD8, 0xFF];
    jpeg.extend_from_slice(b"not a JPEG at all");
    let err = decode_image(&jpeg, Path::new("broken.jpg")).unwrap_err();
    assert!(matches!(err, Error::BadImage { .. }), "{err:?}");
    assert!(err.to_string().starts_with("broken.jpg: not a readable PNG or JPEG image ("), "{err}");
    // Cut inside the header: no frame to decode.
    let whole = std::fs::read(fixture("baseline-420")).unwrap();
    let err = decode_image(&whole[..100], Path::new("header.jpg")).unwrap_err();
    assert!(matches!(err, Error::BadImage { .. }), "{err:?}");
}
