//! A PNG encoded on every core. The image is cut into horizontal parts; each part is filtered and
//! deflated on its own thread, every part but the last ending on a byte boundary (a sync flush),
//! so the parts' deflate streams follow one another as the one zlib stream a PNG holds. The
//! stream's Adler-32 is the parts' Adler-32s combined. A part's first row is not filtered (its
//! row above belongs to another part, which may not be drawn yet); every other row takes the
//! Up filter, as [`PngCompression::Fastest`](super::PngCompression::Fastest) does.
//!
//! Every [`PngCompression::Fastest`](super::PngCompression::Fastest) PNG is written so (diff
//! images, this run's views). For `sightline diff --out` each part is also drawn band by band just
//! before it is deflated, so the drawing and the encode share the cores and each band is encoded
//! while it is still in cache.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::image::RgbaImage;

/// PNG filter types (the first byte of each filtered row).
const FILTER_NONE: u8 = 0;
const FILTER_UP: u8 = 2;

/// `image` as a PNG with the Up filter and the fastest deflate, on every core, with one extra
/// ancillary `chunk` `(type, data)` before the pixels if given. What
/// [`PngCompression::Fastest`](super::PngCompression::Fastest) encodes with.
pub(super) fn encode_png_in_parts(image: &RgbaImage, chunk: Option<([u8; 4], &[u8])>) -> Result<Vec<u8>> {
    check_size(image)?;
    let stride = image.width() as usize * 4;
    let rows = image.height() as usize;
    let part_rows = rows.div_ceil(parts(rows, 1)).max(1);
    let parts: Vec<&[u8]> = image.as_bytes().chunks(part_rows * stride).collect();
    let last = parts.len().saturating_sub(1);
    let deflated: Vec<Result<Part>> = parts
        .into_par_iter()
        .enumerate()
        .map(|(i, part)| {
            let mut deflater = Deflater::new(stride, i == last);
            deflater.rows(part, None)?;
            deflater.finish()
        })
        .collect();
    png_of(image, deflated, chunk)
}

/// [`encode_png_in_parts`] of an image that is drawn as it is encoded: `draw(state, band, rows)`
/// fills band number `band` (rows `band × band_rows ..`, their bytes in place) just before the
/// band is filtered. Each part is drawn by one thread, in band order, with one `init()` state.
pub fn encode_png_drawn<S>(
    image: &mut RgbaImage,
    band_rows: usize,
    init: impl Fn() -> S + Sync,
    draw: impl Fn(&mut S, usize, &mut [u8]) + Sync,
) -> Result<Vec<u8>> {
    check_size(image)?;
    let stride = image.width() as usize * 4;
    let rows = image.height() as usize;
    let band_rows = band_rows.max(1);
    let bands = rows.div_ceil(band_rows);
    // Parts are whole bands, so no band is drawn by two threads.
    let part_bands = bands.div_ceil(parts(rows, band_rows)).max(1);
    let part_bytes = part_bands * band_rows * stride;
    let band_bytes = band_rows * stride;
    let last = bands.div_ceil(part_bands).saturating_sub(1);
    let deflated: Vec<Result<Part>> = image
        .as_bytes_mut()
        .par_chunks_mut(part_bytes)
        .enumerate()
        .map(|(i, part)| {
            let mut state = init();
            let mut deflater = Deflater::new(stride, i == last);
            for start in (0..part.len()).step_by(band_bytes) {
                let end = (start + band_bytes).min(part.len());
                draw(&mut state, i * part_bands + start / band_bytes, &mut part[start..end]);
                let above = start.checked_sub(stride).map(|at| &part[at..start]);
                deflater.rows(&part[start..end], above)?;
            }
            deflater.finish()
        })
        .collect();
    png_of(image, deflated, None)
}

/// A PNG holds at least one pixel.
fn check_size(image: &RgbaImage) -> Result<()> {
    if image.width() == 0 || image.height() == 0 {
        return Err(Error::InvalidInput(format!(
            "PNG encoding failed: a {}×{} image has no pixels, and a PNG needs at least one",
            image.width(),
            image.height()
        )));
    }
    Ok(())
}

/// How many parts `rows` rows are cut into: one per core, each at least `min_rows` rows and 64
/// (below that the threads cost more than they save).
fn parts(rows: usize, min_rows: usize) -> usize {
    const MIN_PART_ROWS: usize = 64;
    let cores = rayon::current_num_threads().max(1);
    cores.min(rows / MIN_PART_ROWS.max(min_rows)).max(1)
}

/// One part's raw deflate stream and the Adler-32 of the filtered bytes it holds.
struct Part {
    deflated: Vec<u8>,
    adler: u32,
    filtered_len: usize,
}

/// Filters and deflates one part's rows as they come.
struct Deflater {
    compress: flate2::Compress,
    adler: simd_adler32::Adler32,
    out: Vec<u8>,
    filtered: Vec<u8>,
    filtered_len: usize,
    /// The whole image ends with this part: finish the stream instead of flushing it.
    last: bool,
}

impl Deflater {
    fn new(stride: usize, last: bool) -> Self {
        Self {
            // Raw deflate: the zlib header and Adler-32 are written once for all parts.
            compress: flate2::Compress::new(flate2::Compression::fast(), false),
            adler: simd_adler32::Adler32::new(),
            out: Vec::new(),
            filtered: vec![0; stride + 1],
            filtered_len: 0,
            last,
        }
    }

    /// Filters and deflates `rows` (whole rows), `above` being the row before them in this part.
    fn rows<'a>(&mut self, rows: &'a [u8], mut above: Option<&'a [u8]>) -> Result<()> {
        let stride = self.filtered.len() - 1;
        for row in rows.chunks_exact(stride) {
            match above {
                Some(above) => {
                    self.filtered[0] = FILTER_UP;
                    for ((f, r), a) in self.filtered[1..].iter_mut().zip(row).zip(above) {
                        *f = r.wrapping_sub(*a);
                    }
                }
                None => {
                    self.filtered[0] = FILTER_NONE;
                    self.filtered[1..].copy_from_slice(row);
                }
            }
            self.adler.write(&self.filtered);
            self.filtered_len += self.filtered.len();
            deflate(&mut self.compress, &mut self.out, &self.filtered, flate2::FlushCompress::None)?;
            above = Some(row);
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Part> {
        // Every part but the last ends on a byte boundary, so the next part's blocks follow it.
        let mode = if self.last { flate2::FlushCompress::Finish } else { flate2::FlushCompress::Sync };
        deflate(&mut self.compress, &mut self.out, &[], mode)?;
        Ok(Part { deflated: self.out, adler: self.adler.finish(), filtered_len: self.filtered_len })
    }
}

/// Deflates `input` into `out`, ending with `mode`.
fn deflate(
    compress: &mut flate2::Compress,
    out: &mut Vec<u8>,
    mut input: &[u8],
    mode: flate2::FlushCompress,
) -> Result<()> {
    let failed = |e: flate2::CompressError| Error::InvalidInput(format!("PNG encoding failed: {e}"));
    loop {
        out.reserve(64 * 1024);
        let before = compress.total_in();
        let status = compress.compress_vec(input, out, mode).map_err(failed)?;
        input = &input[(compress.total_in() - before) as usize..];
        let done = match mode {
            flate2::FlushCompress::Finish => status == flate2::Status::StreamEnd,
            // A flush is complete when it left room to spare in the output.
            _ => input.is_empty() && out.len() < out.capacity(),
        };
        if done {
            return Ok(());
        }
    }
}

/// The PNG of `image` from its parts' deflate streams, in order, with `chunk` before them.
fn png_of(image: &RgbaImage, parts: Vec<Result<Part>>, chunk: Option<([u8; 4], &[u8])>) -> Result<Vec<u8>> {
    let parts = parts.into_iter().collect::<Result<Vec<_>>>()?;
    let adler = parts.iter().fold(1, |adler, part| adler32_combine(adler, part.adler, part.filtered_len));
    let deflated_len: usize = parts.iter().map(|p| p.deflated.len()).sum();
    let failed = |e: png::EncodingError| Error::InvalidInput(format!("PNG encoding failed: {e}"));
    let mut out = Vec::with_capacity(deflated_len + 1024);
    {
        let mut encoder = png::Encoder::new(&mut out, image.width(), image.height());
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(failed)?;
        if let Some((kind, data)) = chunk {
            writer.write_chunk(png::chunk::ChunkType(kind), data).map_err(failed)?;
        }
        // The zlib stream is the concatenation of every IDAT's data, so each part is written as
        // it is, without joining them first: the header (CMF 0x78: deflate, 32 KiB window; FLG
        // 0x01: fastest, check bits making 0x7801 % 31 == 0), the parts (a chunk holds at most
        // 2³¹ − 1 bytes), the Adler-32.
        writer.write_chunk(png::chunk::IDAT, &[0x78, 0x01]).map_err(failed)?;
        for part in &parts {
            for data in part.deflated.chunks(1 << 30) {
                writer.write_chunk(png::chunk::IDAT, data).map_err(failed)?;
            }
        }
        writer.write_chunk(png::chunk::IDAT, &adler.to_be_bytes()).map_err(failed)?;
        writer.finish().map_err(failed)?;
    }
    Ok(out)
}

/// The Adler-32 of two byte strings one after the other, from theirs and the second's length
/// (zlib's `adler32_combine`).
fn adler32_combine(first: u32, second: u32, second_len: usize) -> u32 {
    const BASE: u64 = 65521;
    let rem = second_len as u64 % BASE;
    let (a1, b1) = (u64::from(first & 0xFFFF), u64::from(first >> 16));
    let (a2, b2) = (u64::from(second & 0xFFFF), u64::from(second >> 16));
    let a = (a1 + a2 + BASE - 1) % BASE;
    let b = (b1 + b2 + rem * a1 % BASE + BASE - rem) % BASE;
    ((b << 16) | a) as u32
}

#[cfg(test)]
mod tests {
    use std::io::Read;
    use std::path::Path;

    use super::*;
    use crate::decode::decode_image;

    /// Pixels that no filter makes trivial.
    fn noisy(width: u32, height: u32) -> RgbaImage {
        let mut image = RgbaImage::transparent(width, height).unwrap();
        for (i, byte) in image.as_bytes_mut().iter_mut().enumerate() {
            *byte = (i * 7 % 251) as u8 ^ (i / 97) as u8;
        }
        image
    }

    /// The PNG's IDAT data inflated by an independent zlib reader, which checks the Adler-32
    /// (a PNG decoder need not).
    fn filtered_bytes(png: &[u8]) -> Vec<u8> {
        let mut idat = Vec::new();
        let mut at = 8;
        while at + 12 <= png.len() {
            let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
            if &png[at + 4..at + 8] == b"IDAT" {
                idat.extend_from_slice(&png[at + 8..at + 8 + len]);
            }
            at += 12 + len;
        }
        let mut filtered = Vec::new();
        flate2::read::ZlibDecoder::new(&idat[..]).read_to_end(&mut filtered).unwrap();
        filtered
    }

    #[test]
    fn png_in_parts_is_one_zlib_stream_of_the_same_pixels() {
        // Three cores whatever the machine has, so some images are cut in three.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        // Sizes below one part, around the part size, and of several parts with a short last one.
        for (width, height) in [(1, 1), (3, 3), (17, 8), (64, 101), (64, 128), (5, 64 * 3 + 2)] {
            let image = noisy(width, height);
            let png = pool.install(|| encode_png_in_parts(&image, None)).unwrap();
            let decoded = decode_image(&png, Path::new("parts.png")).unwrap();
            assert_eq!(decoded.as_bytes(), image.as_bytes(), "{width}×{height}");
            let filtered = filtered_bytes(&png);
            assert_eq!(filtered.len(), (width as usize * 4 + 1) * height as usize, "{width}×{height}");
        }
        let err = encode_png_in_parts(&RgbaImage::transparent(0, 4).unwrap(), None).unwrap_err().to_string();
        assert!(err.contains("0×4 image has no pixels"), "{err}");
    }

    #[test]
    fn png_drawn_in_bands_holds_what_was_drawn() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        for (width, height, band_rows) in [(7, 300, 8), (7, 301, 8), (3, 5, 8), (9, 200, 1)] {
            let expected = noisy(width, height);
            let mut image = RgbaImage::transparent(width, height).unwrap();
            let stride = width as usize * 4;
            let drawn = std::sync::Mutex::new(Vec::new());
            let png = pool
                .install(|| {
                    encode_png_drawn(
                        &mut image,
                        band_rows,
                        || None,
                        |last: &mut Option<usize>, band, rows| {
                            // A thread draws its part's bands in order, each once, from its own
                            // rows of the expected image.
                            assert!(last.is_none_or(|last| band == last + 1), "band {band} after {last:?}");
                            *last = Some(band);
                            let at = band * band_rows * stride;
                            rows.copy_from_slice(&expected.as_bytes()[at..at + rows.len()]);
                            drawn.lock().unwrap().push(band);
                        },
                    )
                })
                .unwrap();
            let mut drawn = drawn.into_inner().unwrap();
            drawn.sort_unstable();
            assert_eq!(drawn, (0..(height as usize).div_ceil(band_rows)).collect::<Vec<_>>());
            assert_eq!(image.as_bytes(), expected.as_bytes(), "{width}×{height}");
            let decoded = decode_image(&png, Path::new("drawn.png")).unwrap();
            assert_eq!(decoded.as_bytes(), expected.as_bytes(), "{width}×{height}");
            assert_eq!(filtered_bytes(&png).len(), (stride + 1) * height as usize);
        }
    }

    #[test]
    fn adler32_of_two_parts_is_that_of_the_whole() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 31 % 256) as u8).collect();
        let adler = |bytes: &[u8]| simd_adler32::adler32(&bytes);
        for split in [0, 1, 65_521, 100_000, 200_000] {
            let (a, b) = data.split_at(split);
            assert_eq!(adler32_combine(adler(a), adler(b), b.len()), adler(&data), "split at {split}");
        }
    }
}
