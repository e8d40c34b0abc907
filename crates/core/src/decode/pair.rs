//! Two images decoded for one comparison, each on its own core, compared row by row while they
//! are decoded. Most pairs that differ in bytes have the same pixels (a file re-encoded by
//! another tool, another compression level): then only the first image is kept whole and the
//! second is checked against it one row at a time, while that row is still in cache, so the
//! second whole-image buffer (tens of MB on a long page, each page of it faulted in and cleared
//! by the kernel) is only made for a pair that differs.

use std::path::Path;
use std::sync::mpsc;

use super::{PngStart, RgbaRows, decode_image, png_reader};
use crate::error::{Error, Result};
use crate::image::{RgbaImage, pixel_buffer};

/// Rows the first image hands the second at a time: a band small enough to stay in cache.
const BAND_ROWS: usize = 16;

/// Two images decoded for a comparison.
pub enum DecodedPair {
    /// The same size and every pixel the same: nothing left to compare, no pixels kept.
    Same { width: u32, height: u32 },
    /// Both images, to compare.
    Both(RgbaImage, RgbaImage),
}

/// Decodes `a` and `b` (PNG or JPEG; the paths only name them in errors), both at once. Two
/// non-interlaced PNGs of one size are compared row by row as they are decoded; any other pair
/// is decoded whole. An error names the file it was found in.
pub fn decode_pair(a: &[u8], a_path: &Path, b: &[u8], b_path: &Path) -> Result<DecodedPair> {
    let banded = |bytes: &[u8]| bytes.starts_with(super::PNG_SIGNATURE);
    if banded(a) && banded(b) {
        let (first, second) = (png_reader(a, a_path)?, png_reader(b, b_path)?);
        let interlaced = first.reader.info().interlaced || second.reader.info().interlaced;
        if (first.width, first.height) == (second.width, second.height) && !interlaced {
            return decode_in_bands(first, a_path, second, b_path);
        }
    }
    let (a, b) = rayon::join(|| decode_image(a, a_path), || decode_image(b, b_path));
    Ok(DecodedPair::Both(a?, b?))
}

/// `first` decoded whole on a thread of its own, handing each band of rows on as it is done;
/// `second` decoded here, one row at a time, and kept only from its first row that differs.
fn decode_in_bands(first: PngStart<'_>, a_path: &Path, second: PngStart<'_>, b_path: &Path) -> Result<DecodedPair> {
    let (width, height, pixels) = (first.width, first.height, first.pixels);
    let stride = width as usize * 4;
    let mut a_data = pixel_buffer(pixels * 4);
    let (a_result, b_result) = std::thread::scope(|scope| {
        let (bands, received) = mpsc::channel::<&[u8]>();
        let a_data = &mut a_data;
        let a_thread = scope.spawn(move || -> Result<()> {
            let mut reader = first.reader;
            let mut rows = RgbaRows::new(&reader, a_path)?;
            for band in a_data.chunks_mut(stride * BAND_ROWS) {
                for row in band.chunks_exact_mut(stride) {
                    rows.read(&mut reader, row)?;
                }
                if bands.send(band).is_err() {
                    // The second image failed: nothing will look at this one.
                    return Ok(());
                }
            }
            Ok(())
        });
        let b_result = second_against_first(second, b_path, received, stride, pixels);
        let a_result = a_thread.join().unwrap_or_else(|_| Err(Error::Internal("decoding an image panicked".into())));
        (a_result, b_result)
    });
    a_result?;
    let b_data = b_result?;
    Ok(match b_data {
        None => DecodedPair::Same { width, height },
        Some(b_data) => {
            DecodedPair::Both(RgbaImage::from_raw(width, height, a_data)?, RgbaImage::from_raw(width, height, b_data)?)
        }
    })
}

/// Decodes the second image row by row against the first's bands as they come: `None` when every
/// row is the same, else the whole second image. Stops early (with `None`) when the first image
/// stops handing bands on, which only its own error does.
fn second_against_first(
    second: PngStart<'_>,
    b_path: &Path,
    bands: mpsc::Receiver<&[u8]>,
    stride: usize,
    pixels: usize,
) -> Result<Option<Vec<u8>>> {
    let mut reader = second.reader;
    let mut rows = RgbaRows::new(&reader, b_path)?;
    let mut row = vec![0; stride];
    // The first image's bands so far: the rows the second shares with it until one differs.
    let mut same_so_far: Vec<&[u8]> = Vec::new();
    let mut kept: Option<Vec<u8>> = None;
    let mut at = 0;
    for band in bands {
        for a_row in band.chunks_exact(stride) {
            match kept.as_mut() {
                Some(b_data) => rows.read(&mut reader, &mut b_data[at..at + stride])?,
                None => {
                    rows.read(&mut reader, &mut row)?;
                    if row != a_row {
                        let mut b_data = pixel_buffer(pixels * 4);
                        let mut filled = 0;
                        for same in same_so_far.drain(..) {
                            b_data[filled..filled + same.len()].copy_from_slice(same);
                            filled += same.len();
                        }
                        let before = at - filled;
                        b_data[filled..at].copy_from_slice(&band[..before]);
                        b_data[at..at + stride].copy_from_slice(&row);
                        kept = Some(b_data);
                    }
                }
            }
            at += stride;
        }
        if kept.is_none() {
            same_so_far.push(band);
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::{PngCompression, encode_png};

    fn image(width: u32, height: u32) -> RgbaImage {
        let data = (0..width * height).flat_map(|i| [(i % 251) as u8, (i / 7 % 253) as u8, 90, 255]).collect();
        RgbaImage::from_raw(width, height, data).unwrap()
    }

    /// The same pixels as RGB, in other bytes than `encode_png` writes.
    fn as_rgb_png(image: &RgbaImage) -> Vec<u8> {
        let mut png = Vec::new();
        let mut encoder = png::Encoder::new(&mut png, image.width(), image.height());
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_filter(png::Filter::Paeth);
        let rgb: Vec<u8> = image.as_bytes().chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        encoder.write_header().unwrap().write_image_data(&rgb).unwrap();
        png
    }

    fn pair(a: &[u8], b: &[u8]) -> Result<DecodedPair> {
        decode_pair(a, Path::new("a.png"), b, Path::new("b.png"))
    }

    #[test]
    fn the_same_pixels_in_other_bytes_are_the_same_without_a_second_image() {
        let base = image(37, 101);
        let (a, b) = (encode_png(&base, PngCompression::Fastest).unwrap(), as_rgb_png(&base));
        assert_ne!(a, b);
        assert!(matches!(pair(&a, &b).unwrap(), DecodedPair::Same { width: 37, height: 101 }));
    }

    #[test]
    fn a_pair_that_differs_gives_both_images_exactly_as_each_decodes_alone() {
        let base = image(37, 101);
        // A pixel in the first row, one after the first band, one in the last row.
        for (x, y) in [(0, 0), (5, BAND_ROWS as u32 + 3), (36, 100)] {
            let mut changed = base.clone();
            let at = ((y * 37 + x) * 4) as usize;
            changed.as_bytes_mut()[at] ^= 0xff;
            let (a, b) = (as_rgb_png(&base), encode_png(&changed, PngCompression::Fastest).unwrap());
            let DecodedPair::Both(first, second) = pair(&a, &b).unwrap() else { panic!("({x}, {y}) differs") };
            assert_eq!(first.as_bytes(), base.as_bytes());
            assert_eq!(second.as_bytes(), changed.as_bytes(), "({x}, {y})");
        }
    }

    #[test]
    fn images_of_two_sizes_are_both_decoded() {
        let (a, b) = (image(20, 30), image(20, 31));
        let (a, b) =
            (encode_png(&a, PngCompression::Fastest).unwrap(), encode_png(&b, PngCompression::Fastest).unwrap());
        let DecodedPair::Both(first, second) = pair(&a, &b).unwrap() else { panic!("two sizes") };
        assert_eq!((first.height(), second.height()), (30, 31));
    }

    #[test]
    fn a_damaged_file_is_named_whichever_of_the_two_it_is() {
        let good = encode_png(&image(37, 101), PngCompression::Fastest).unwrap();
        let whole = as_rgb_png(&image(37, 101));
        let cut = whole[..whole.len() / 2].to_vec();
        for (a, b, named) in [(&cut, &good, "a.png"), (&good, &cut, "b.png")] {
            let message = pair(a, b).err().expect("a cut file").to_string();
            assert!(message.contains(named), "{message}");
        }
    }
}
