//! Two images decoded for one comparison, each on its own core, compared row by row while they
//! are decoded. Most pairs that differ in bytes have the same pixels (a file re-encoded by
//! another tool, another compression level). Until a row differs, neither image is kept: the
//! first hands the second a few bands of rows at a time, reused, so a pair with the same pixels
//! never makes a whole-image buffer (tens of MB on a long page, each page of it faulted in and
//! cleared by the kernel, which costs about as much as decoding the rows that fill it).
//!
//! At the first row that differs, both images are made whole: each decoder goes on from where it
//! is, and the rows before the band that differs — the same in both — are decoded once more from
//! the first file, beside them. Changes near the top of a page (a banner, a shift) cost nothing
//! extra; a change only in the last rows costs one more decode of the first image.

use std::path::Path;
use std::sync::mpsc;

use super::{Partway, PngStart, decode_image, png_reader};
use crate::error::{Error, Result};
use crate::image::{RgbaImage, pixel_buffer};

/// Rows the first image hands the second at a time: a band small enough to stay in cache.
const BAND_ROWS: usize = 16;
/// Bands the first image may decode ahead of the second; their buffers go round.
const BANDS_AHEAD: usize = 4;

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
            // The larger file (more to inflate) takes the thread that only decodes; the other
            // also compares the rows, so neither waits long for the other.
            if b.len() <= a.len() {
                return decode_in_bands(a, first, a_path, second, b_path);
            }
            return Ok(match decode_in_bands(b, second, b_path, first, a_path)? {
                DecodedPair::Both(b_image, a_image) => DecodedPair::Both(a_image, b_image),
                same => same,
            });
        }
    }
    let (a, b) = rayon::join(|| decode_image(a, a_path), || decode_image(b, b_path));
    Ok(DecodedPair::Both(a?, b?))
}

/// A band of the first image's rows: `rows` rows from row `start`, in a buffer that goes round.
struct Band {
    start: usize,
    rows: usize,
    pixels: Vec<u8>,
}

/// Where the second image first differs from the first.
struct FirstDifference<'a, 'p> {
    /// The first image's band holding the row that differs.
    band: Band,
    /// Bands the first image decoded past it, in order.
    ahead: Vec<Band>,
    first: Partway<'a, 'p>,
    second: Partway<'a, 'p>,
    /// The second image's row that differs (row `second.done - 1`).
    row: Vec<u8>,
}

/// `first` decoded on a thread of its own, handing on bands of rows; `second` decoded here, one
/// row at a time, against them. Both are made whole only from the first row that differs.
fn decode_in_bands<'a>(
    a: &'a [u8],
    first: PngStart<'a>,
    a_path: &Path,
    second: PngStart<'a>,
    b_path: &Path,
) -> Result<DecodedPair> {
    let (width, height, pixels) = (first.width, first.height, first.pixels);
    let stride = width as usize * 4;
    let Some(at) = first_difference(first, a_path, second, b_path, stride, height as usize)? else {
        return Ok(DecodedPair::Same { width, height });
    };
    let FirstDifference { band, ahead, first: mut a_rest, second: mut b_rest, row } = at;

    let (mut a_data, mut b_data) = (pixel_buffer(pixels * 4), pixel_buffer(pixels * 4));
    let start = band.start * stride;
    let (a_before, a_from) = a_data.split_at_mut(start);
    let (b_before, b_from) = b_data.split_at_mut(start);
    // What is already decoded: the band that differs and those past it from the first image; the
    // second's rows up to the one that differs are the first's.
    let mut filled = 0;
    for band in std::iter::once(&band).chain(&ahead) {
        let len = band.rows * stride;
        a_from[filled..filled + len].copy_from_slice(&band.pixels[..len]);
        filled += len;
    }
    debug_assert_eq!(filled, (a_rest.done - band.start) * stride);
    let differs = (b_rest.done - 1) * stride - start;
    b_from[..differs].copy_from_slice(&band.pixels[..differs]);
    b_from[differs..differs + stride].copy_from_slice(&row);

    let (a_result, b_result, before_result) = std::thread::scope(|scope| {
        let a_tail = &mut a_from[filled..];
        let a_thread = scope.spawn(move || a_rest.read_into(a_tail, stride));
        let before = scope.spawn(move || -> Result<()> {
            if a_before.is_empty() {
                return Ok(());
            }
            // The rows before the band are the same in both images: decoded once, copied.
            Partway::new(png_reader(a, a_path)?, a_path)?.read_into(a_before, stride)?;
            b_before.copy_from_slice(a_before);
            Ok(())
        });
        let b_result = b_rest.read_into(&mut b_from[differs + stride..], stride);
        (joined(a_thread.join()), b_result, joined(before.join()))
    });
    a_result?;
    before_result?;
    b_result?;
    Ok(DecodedPair::Both(RgbaImage::from_raw(width, height, a_data)?, RgbaImage::from_raw(width, height, b_data)?))
}

/// Decodes both images in step until a row differs: `None` when every row is the same.
fn first_difference<'a, 'p>(
    first: PngStart<'a>,
    a_path: &'p Path,
    second: PngStart<'a>,
    b_path: &'p Path,
    stride: usize,
    height: usize,
) -> Result<Option<FirstDifference<'a, 'p>>> {
    let mut b = Partway::new(second, b_path)?;
    let (a_result, b_result) = std::thread::scope(|scope| {
        let (bands, received) = mpsc::channel::<Band>();
        let (give_back, free) = mpsc::channel::<Vec<u8>>();
        for _ in 0..BANDS_AHEAD {
            give_back.send(vec![0; stride * BAND_ROWS]).expect("the receiver is here");
        }
        let a_thread = scope.spawn(move || -> Result<Partway<'a, 'p>> {
            let mut a = Partway::new(first, a_path)?;
            // Stops when every row is read, or when the second image stops giving bands back:
            // it found a row that differs, or an error.
            while a.done < height {
                let Ok(mut pixels) = free.recv() else { break };
                let (start, rows) = (a.done, BAND_ROWS.min(height - a.done));
                a.read_into(&mut pixels[..rows * stride], stride)?;
                if bands.send(Band { start, rows, pixels }).is_err() {
                    break;
                }
            }
            Ok(a)
        });
        let mut row = vec![0; stride];
        let mut found = None;
        let b_result = (|| -> Result<()> {
            for band in &received {
                for a_row in band.pixels[..band.rows * stride].chunks_exact(stride) {
                    b.read_into(&mut row, stride)?;
                    if row != a_row {
                        found = Some(band);
                        return Ok(());
                    }
                }
                // Sent back only while the first image is still decoding.
                let _ = give_back.send(band.pixels);
            }
            Ok(())
        })();
        drop(give_back);
        let a_result = joined(a_thread.join());
        let ahead: Vec<Band> = received.try_iter().collect();
        (a_result, b_result.map(|()| found.map(|band| (band, ahead, row))))
    });
    let a = a_result?;
    let Some((band, ahead, row)) = b_result? else {
        // Every band the first image handed on was the same in the second; it handed on all of
        // them unless it failed, which `a_result` reported.
        return Ok(None);
    };
    Ok(Some(FirstDifference { band, ahead, first: a, second: b, row }))
}

/// A decoding thread's result; its panic is an error like any other.
fn joined<T>(thread: std::thread::Result<Result<T>>) -> Result<T> {
    thread.unwrap_or_else(|_| Err(Error::Internal("decoding an image panicked".into())))
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
    fn either_file_may_be_the_larger_and_each_image_stays_on_its_side() {
        let base = image(37, 101);
        let mut changed = base.clone();
        changed.as_bytes_mut()[(40 * 37 + 3) * 4] ^= 0x20;
        let (small, large) = (as_rgb_png(&base), encode_png(&changed, PngCompression::Fastest).unwrap());
        assert!(small.len() < large.len(), "{} vs {} bytes", small.len(), large.len());
        for (a, b, first, second) in [(&small, &large, &base, &changed), (&large, &small, &changed, &base)] {
            let DecodedPair::Both(a, b) = pair(a, b).unwrap() else { panic!("they differ") };
            assert_eq!((a.as_bytes(), b.as_bytes()), (first.as_bytes(), second.as_bytes()));
        }
        let same = encode_png(&base, PngCompression::Fastest).unwrap();
        assert!(matches!(pair(&small, &same).unwrap(), DecodedPair::Same { width: 37, height: 101 }));
        assert!(matches!(pair(&same, &small).unwrap(), DecodedPair::Same { width: 37, height: 101 }));
    }

    #[test]
    fn a_row_that_differs_far_below_the_top_gives_both_images_whole() {
        // Past every band the first image may have decoded ahead, in a last band of fewer rows.
        let height = (BAND_ROWS * (BANDS_AHEAD + 3) + 5) as u32;
        let base = image(29, height);
        for y in [BAND_ROWS as u32 * 2, BAND_ROWS as u32 * 5 + 1, height - 1] {
            let mut changed = base.clone();
            changed.as_bytes_mut()[(y * 29 * 4 + 4) as usize] ^= 0x40;
            let (a, b) = (as_rgb_png(&base), encode_png(&changed, PngCompression::Fastest).unwrap());
            let DecodedPair::Both(first, second) = pair(&a, &b).unwrap() else { panic!("row {y} differs") };
            assert_eq!(first.as_bytes(), base.as_bytes(), "row {y}");
            assert_eq!(second.as_bytes(), changed.as_bytes(), "row {y}");
        }
    }

    #[test]
    fn a_file_cut_after_the_first_row_that_differs_is_named() {
        let height = (BAND_ROWS * (BANDS_AHEAD + 4)) as u32;
        let base = image(29, height);
        let mut changed = base.clone();
        changed.as_bytes_mut()[4] ^= 0x40;
        let (whole_a, whole_b) = (as_rgb_png(&base), as_rgb_png(&changed));
        let (cut_a, cut_b) = (&whole_a[..whole_a.len() * 3 / 4], &whole_b[..whole_b.len() * 3 / 4]);
        for (a, b, named) in [(cut_a, &whole_b[..], "a.png"), (&whole_a[..], cut_b, "b.png")] {
            let message = pair(a, b).err().expect("a cut file").to_string();
            assert!(message.contains(named), "{message}");
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
