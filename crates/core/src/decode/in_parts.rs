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
//! while it is still in cache; a diff image is drawn straight as palette indices, so no RGBA is
//! written and no pixel's index looked up.
//!
//! An image of few colours — a diff image is greys and a few marking colours — is written with a
//! [`Palette`]: one index a pixel instead of four bytes, so a quarter of the bytes are filtered
//! and deflated (and written). Should a pixel not be in the palette, the image is written as RGBA
//! after all: the pixels a reader decodes are the same either way.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::image::RgbaImage;

/// PNG filter types (the first byte of each filtered row).
const FILTER_NONE: u8 = 0;
const FILTER_UP: u8 = 2;

/// `image` as a PNG with the Up filter and the fastest deflate, on every core, with one extra
/// ancillary `chunk` `(type, data)` before the pixels if given; as palette indices when every
/// pixel is one of `palette`'s colours. What
/// [`PngCompression::Fastest`](super::PngCompression::Fastest) encodes with.
pub(super) fn encode_png_in_parts(
    image: &RgbaImage,
    palette: Option<&Palette>,
    chunk: Option<([u8; 4], &[u8])>,
) -> Result<Vec<u8>> {
    check_size(image.width(), image.height())?;
    let stride = image.width() as usize * 4;
    let rows = image.height() as usize;
    let part_rows = rows.div_ceil(parts(rows, 1)).max(1);
    let parts: Vec<&[u8]> = image.as_bytes().chunks(part_rows * stride).collect();
    let last = parts.len().saturating_sub(1);
    let missed = AtomicBool::new(false);
    let deflated: Vec<Result<Option<Part>>> = parts
        .into_par_iter()
        .enumerate()
        .map(|(i, part)| {
            let mut deflater = Deflater::new(stride, palette, i == last);
            if !deflater.rows(part, None, &missed)? {
                return Ok(None);
            }
            deflater.finish().map(Some)
        })
        .collect();
    match collect_parts(deflated)? {
        Some(parts) => png_of(image.width(), image.height(), palette, parts, chunk),
        None => encode_png_in_parts(image, None, chunk),
    }
}

/// [`encode_png_in_parts`] of an image that is drawn as it is encoded: `draw(state, band, rows)`
/// fills band number `band` (rows `band × band_rows ..`, their bytes in place) just before the
/// band is filtered. Each part is drawn by one thread, in band order, with one `init()` state.
/// Every band is drawn whatever is encoded: `image` holds the drawing after.
pub fn encode_png_drawn<S>(
    image: &mut RgbaImage,
    band_rows: usize,
    palette: Option<&Palette>,
    init: impl Fn() -> S + Sync,
    draw: impl Fn(&mut S, usize, &mut [u8]) + Sync,
) -> Result<Vec<u8>> {
    check_size(image.width(), image.height())?;
    let stride = image.width() as usize * 4;
    let rows = image.height() as usize;
    let band_rows = band_rows.max(1);
    let bands = rows.div_ceil(band_rows);
    // Parts are whole bands, so no band is drawn by two threads.
    let part_bands = bands.div_ceil(parts(rows, band_rows)).max(1);
    let part_bytes = part_bands * band_rows * stride;
    let band_bytes = band_rows * stride;
    let last = bands.div_ceil(part_bands).saturating_sub(1);
    let missed = AtomicBool::new(false);
    let deflated: Vec<Result<Option<Part>>> = image
        .as_bytes_mut()
        .par_chunks_mut(part_bytes)
        .enumerate()
        .map(|(i, part)| {
            let mut state = init();
            let mut deflater = Some(Deflater::new(stride, palette, i == last));
            for start in (0..part.len()).step_by(band_bytes) {
                let end = (start + band_bytes).min(part.len());
                draw(&mut state, i * part_bands + start / band_bytes, &mut part[start..end]);
                let above = start.checked_sub(stride).map(|at| &part[at..start]);
                // A pixel out of the palette: the rest is only drawn, for the RGBA encode.
                if let Some(d) = deflater.as_mut()
                    && !d.rows(&part[start..end], above, &missed)?
                {
                    deflater = None;
                }
            }
            deflater.map(Deflater::finish).transpose()
        })
        .collect();
    match collect_parts(deflated)? {
        Some(parts) => png_of(image.width(), image.height(), palette, parts, None),
        None => encode_png_in_parts(image, None, None),
    }
}

/// A `width × height` image drawn straight as indices into `palette`, as it is encoded:
/// `draw(state, band, indices)` fills band number `band` (rows `band × band_rows ..`, one byte a
/// pixel) just before the band is filtered, and says whether every index it wrote is right. Parts
/// and bands are cut as [`encode_png_drawn`] cuts them, so the PNG is the one it writes of the
/// same pixels, byte for byte, without the RGBA drawing or the lookup of each pixel's index.
/// `None` when a band was not drawn right.
pub fn encode_png_indexed<S>(
    width: u32,
    height: u32,
    palette: &Palette,
    band_rows: usize,
    init: impl Fn() -> S + Sync,
    draw: impl Fn(&mut S, usize, &mut [u8]) -> bool + Sync,
) -> Result<Option<Vec<u8>>> {
    check_size(width, height)?;
    let (row, rows) = (width as usize, height as usize);
    let band_rows = band_rows.max(1);
    let bands = rows.div_ceil(band_rows);
    let part_bands = bands.div_ceil(parts(rows, band_rows)).max(1);
    let part_count = bands.div_ceil(part_bands);
    let missed = AtomicBool::new(false);
    let deflated: Vec<Result<Option<Part>>> = (0..part_count)
        .into_par_iter()
        .map(|i| {
            let mut state = init();
            // No palette: the rows are indices already.
            let mut deflater = Deflater::new(row, None, i + 1 == part_count);
            // The band being drawn and the one before, whose last row the first one's filter reads.
            let mut drawn = [vec![0u8; band_rows * row], vec![0u8; band_rows * row]];
            for band in i * part_bands..((i + 1) * part_bands).min(bands) {
                let len = (rows - band * band_rows).min(band_rows) * row;
                let [before, current] = &mut drawn;
                std::mem::swap(before, current);
                if missed.load(Ordering::Relaxed) || !draw(&mut state, band, &mut current[..len]) {
                    missed.store(true, Ordering::Relaxed);
                    return Ok(None);
                }
                let above = (band > i * part_bands).then(|| &before[(band_rows - 1) * row..band_rows * row]);
                deflater.rows(&current[..len], above, &missed)?;
            }
            deflater.finish().map(Some)
        })
        .collect();
    match collect_parts(deflated)? {
        Some(parts) => png_of(width, height, Some(palette), parts, None).map(Some),
        None => Ok(None),
    }
}

/// The parts in order, or `None` when one of them met a pixel out of the palette.
fn collect_parts(parts: Vec<Result<Option<Part>>>) -> Result<Option<Vec<Part>>> {
    Ok(parts.into_iter().collect::<Result<Vec<_>>>()?.into_iter().collect())
}

/// The colours of an image that has few, as a PNG palette: colours listed, then every opaque
/// grey from one level up to white (a diff image's faded page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Palette {
    colours: Vec<[u8; 4]>,
    greys_from: Option<u8>,
}

/// A palette's run of greys: grey `v` (from `lowest` up to white) is index `first + (v − lowest)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GreyIndices {
    pub lowest: u8,
    pub first: u8,
}

impl Palette {
    /// `colours` (RGBA), then the opaque greys from `greys_from` to white; `None` when they are
    /// more than a palette holds (256).
    pub fn new(colours: Vec<[u8; 4]>, greys_from: Option<u8>) -> Option<Self> {
        let greys = greys_from.map_or(0, |from| 256 - usize::from(from));
        (colours.len() + greys <= 256).then_some(Self { colours, greys_from })
    }

    /// The palette's entries, in index order.
    fn entries(&self) -> impl Iterator<Item = [u8; 4]> + '_ {
        let greys = self.greys_from.into_iter().flat_map(|from| from..=255);
        self.colours.iter().copied().chain(greys.map(|v| [v, v, v, 255]))
    }

    /// Where the greys are: the darkest and its index; `None` when the palette has no greys.
    pub fn grey_indices(&self) -> Option<GreyIndices> {
        // Entries number at most 256, so every index fits a byte.
        self.greys_from.map(|lowest| GreyIndices { lowest, first: self.colours.len() as u8 })
    }

    /// The index of `pixel`, when it is in the palette.
    pub fn index(&self, pixel: [u8; 4]) -> Option<u8> {
        let [r, g, b, a] = pixel;
        // Entries number at most 256, so every index fits a byte.
        match self.greys_from {
            Some(from) if a == 255 && r == g && g == b && r >= from => {
                Some((self.colours.len() + usize::from(r - from)) as u8)
            }
            _ => self.colours.iter().position(|&c| c == pixel).map(|i| i as u8),
        }
    }

    /// `rgba` (a row) as indices into `out`; `false` at the first pixel out of the palette.
    fn index_row(&self, rgba: &[u8], out: &mut [u8]) -> bool {
        // A page is mostly grey (the faded page): eight greys are one vector test, no branch
        // per pixel; any other run takes the lookup pixel by pixel.
        const RUN: usize = 8;
        let first_grey = self.colours.len() as u8;
        let from = self.greys_from;
        let mut pixels = rgba.chunks_exact(RUN * 4);
        let mut indices = out.chunks_exact_mut(RUN);
        for (run, out) in (&mut pixels).zip(&mut indices) {
            if let Some(from) = from {
                let mut all_grey = true;
                for (k, o) in out.iter_mut().enumerate() {
                    let p = u32::from_le_bytes([run[4 * k], run[4 * k + 1], run[4 * k + 2], run[4 * k + 3]]);
                    let v = p as u8;
                    all_grey &= (p == ((u32::from(v) * 0x0001_0101) | 0xFF00_0000)) & (v >= from);
                    *o = v.wrapping_sub(from).wrapping_add(first_grey);
                }
                if all_grey {
                    continue;
                }
            }
            if !self.index_pixels(run, out) {
                return false;
            }
        }
        self.index_pixels(pixels.remainder(), indices.into_remainder())
    }

    fn index_pixels(&self, rgba: &[u8], out: &mut [u8]) -> bool {
        for (p, o) in rgba.chunks_exact(4).zip(out) {
            match self.index([p[0], p[1], p[2], p[3]]) {
                Some(i) => *o = i,
                None => return false,
            }
        }
        true
    }
}

/// A PNG holds at least one pixel.
fn check_size(width: u32, height: u32) -> Result<()> {
    if width == 0 || height == 0 {
        return Err(Error::InvalidInput(format!(
            "PNG encoding failed: a {width}×{height} image has no pixels, and a PNG needs at least one"
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
struct Deflater<'p> {
    compress: flate2::Compress,
    adler: simd_adler32::Adler32,
    out: Vec<u8>,
    filtered: Vec<u8>,
    filtered_len: usize,
    /// Rows are written as indices into this palette.
    palette: Option<&'p Palette>,
    /// The row written last and the one being written, as indices (with a palette).
    indexed: [Vec<u8>; 2],
    /// The whole image ends with this part: finish the stream instead of flushing it.
    last: bool,
}

impl<'p> Deflater<'p> {
    fn new(stride: usize, palette: Option<&'p Palette>, last: bool) -> Self {
        let row = if palette.is_some() { stride / 4 } else { stride };
        let indexed = if palette.is_some() { [vec![0; row], vec![0; row]] } else { [Vec::new(), Vec::new()] };
        Self {
            // Raw deflate: the zlib header and Adler-32 are written once for all parts.
            compress: flate2::Compress::new(flate2::Compression::fast(), false),
            adler: simd_adler32::Adler32::new(),
            out: Vec::new(),
            filtered: vec![0; row + 1],
            filtered_len: 0,
            palette,
            indexed,
            last,
        }
    }

    /// Filters and deflates `rows` (whole RGBA rows), `above` being the row before them in this
    /// part. `false`, with nothing more deflated, when a pixel is not in the palette (or another
    /// part found one: `missed`, which this sets when it finds one).
    fn rows<'a>(&mut self, rows: &'a [u8], mut above: Option<&'a [u8]>, missed: &AtomicBool) -> Result<bool> {
        let stride = match self.palette {
            Some(_) => self.indexed[0].len() * 4,
            None => self.filtered.len() - 1,
        };
        for rgba in rows.chunks_exact(stride) {
            let (filtered, up) = (&mut self.filtered, above.is_some());
            let (row, above_row): (&[u8], Option<&[u8]>) = match self.palette {
                Some(palette) => {
                    if missed.load(Ordering::Relaxed) {
                        return Ok(false);
                    }
                    let [previous, current] = &mut self.indexed;
                    // This part's row above was indexed just before.
                    std::mem::swap(previous, current);
                    if !palette.index_row(rgba, current) {
                        missed.store(true, Ordering::Relaxed);
                        return Ok(false);
                    }
                    (current, up.then_some(&previous[..]))
                }
                None => (rgba, above),
            };
            match above_row {
                Some(above) => {
                    filtered[0] = FILTER_UP;
                    for ((f, r), a) in filtered[1..].iter_mut().zip(row).zip(above) {
                        *f = r.wrapping_sub(*a);
                    }
                }
                None => {
                    filtered[0] = FILTER_NONE;
                    filtered[1..].copy_from_slice(row);
                }
            }
            self.adler.write(&self.filtered);
            self.filtered_len += self.filtered.len();
            deflate(&mut self.compress, &mut self.out, &self.filtered, flate2::FlushCompress::None)?;
            above = Some(rgba);
        }
        Ok(true)
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

/// The `width × height` PNG from its parts' deflate streams, in order, with `chunk` before them.
fn png_of(
    width: u32,
    height: u32,
    palette: Option<&Palette>,
    parts: Vec<Part>,
    chunk: Option<([u8; 4], &[u8])>,
) -> Result<Vec<u8>> {
    let adler = parts.iter().fold(1, |adler, part| adler32_combine(adler, part.adler, part.filtered_len));
    let deflated_len: usize = parts.iter().map(|p| p.deflated.len()).sum();
    let failed = |e: png::EncodingError| Error::InvalidInput(format!("PNG encoding failed: {e}"));
    let mut out = Vec::with_capacity(deflated_len + 1024);
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_depth(png::BitDepth::Eight);
        match palette {
            Some(palette) => {
                encoder.set_color(png::ColorType::Indexed);
                encoder.set_palette(palette.entries().flat_map(|[r, g, b, _]| [r, g, b]).collect::<Vec<u8>>());
                // Alpha for the entries up to the last that is not opaque; none when all are.
                let alphas: Vec<u8> = palette.entries().map(|[.., a]| a).collect();
                if let Some(last) = alphas.iter().rposition(|&a| a != 255) {
                    encoder.set_trns(alphas[..=last].to_vec());
                }
            }
            None => encoder.set_color(png::ColorType::Rgba),
        }
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
            let png = pool.install(|| encode_png_in_parts(&image, None, None)).unwrap();
            let decoded = decode_image(&png, Path::new("parts.png")).unwrap();
            assert_eq!(decoded.as_bytes(), image.as_bytes(), "{width}×{height}");
            let filtered = filtered_bytes(&png);
            assert_eq!(filtered.len(), (width as usize * 4 + 1) * height as usize, "{width}×{height}");
        }
        let err = encode_png_in_parts(&RgbaImage::transparent(0, 4).unwrap(), None, None).unwrap_err().to_string();
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
                        None,
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

    /// A diff-like image: faded greys from `from` up, with marks of `marks` here and there.
    fn diff_like(width: u32, height: u32, from: u8, marks: &[[u8; 4]]) -> RgbaImage {
        let mut image = RgbaImage::transparent(width, height).unwrap();
        for (i, pixel) in image.as_bytes_mut().chunks_exact_mut(4).enumerate() {
            let v = from + (i / 5 % usize::from(255 - from + 1)) as u8;
            let colour = if i % 37 == 3 { marks[i / 37 % marks.len()] } else { [v, v, v, 255] };
            pixel.copy_from_slice(&colour);
        }
        image
    }

    /// The PNG's colour type (IHDR).
    fn colour_type(png: &[u8]) -> u8 {
        png[25]
    }

    /// `expected` drawn band by band (eight rows each) as it is encoded with `palette`, as
    /// `sightline diff --out` encodes; the PNG and the image drawn.
    fn drawn_as(expected: &RgbaImage, palette: &Palette) -> (Vec<u8>, RgbaImage) {
        let mut image = RgbaImage::transparent(expected.width(), expected.height()).unwrap();
        let stride = expected.width() as usize * 4;
        let png = encode_png_drawn(
            &mut image,
            8,
            Some(palette),
            || (),
            |(), band, rows| {
                let at = band * 8 * stride;
                rows.copy_from_slice(&expected.as_bytes()[at..at + rows.len()]);
            },
        )
        .unwrap();
        (png, image)
    }

    #[test]
    fn an_image_of_the_palette_is_written_as_indices_and_decodes_to_its_pixels() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let marks = [[0, 0, 0, 0], [255, 0, 0, 255], [255, 255, 0, 255]];
        let palette = Palette::new(marks.to_vec(), Some(229)).unwrap();
        for (width, height) in [(1, 1), (9, 3), (64, 101), (5, 64 * 3 + 2)] {
            let image = diff_like(width, height, 229, &marks);
            let png = pool.install(|| encode_png_in_parts(&image, Some(&palette), None)).unwrap();
            assert_eq!(colour_type(&png), 3, "{width}×{height}: indexed");
            let decoded = decode_image(&png, Path::new("indexed.png")).unwrap();
            assert_eq!(decoded.as_bytes(), image.as_bytes(), "{width}×{height}");
            // One filter byte and one index a pixel.
            assert_eq!(filtered_bytes(&png).len(), (width as usize + 1) * height as usize, "{width}×{height}");
        }
        // Drawn band by band, as `sightline diff --out` encodes.
        let expected = diff_like(7, 301, 229, &marks);
        let (png, _) = pool.install(|| drawn_as(&expected, &palette));
        assert_eq!(colour_type(&png), 3);
        assert_eq!(decode_image(&png, Path::new("drawn.png")).unwrap().as_bytes(), expected.as_bytes());
    }

    #[test]
    fn an_image_drawn_as_indices_is_the_png_drawn_in_rgba_byte_for_byte() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let marks = [[0, 0, 0, 0], [255, 0, 0, 255], [255, 255, 0, 255]];
        let palette = Palette::new(marks.to_vec(), Some(229)).unwrap();
        // One band, a short last band, several parts of several bands, one-row bands.
        for (width, height, band_rows) in [(1, 1, 8), (9, 3, 8), (64, 101, 8), (7, 301, 8), (5, 200, 1)] {
            let image = diff_like(width, height, 229, &marks);
            let (rgba_drawn, _) = pool.install(|| drawn_as(&image, &palette));
            let indices: Vec<u8> =
                image.as_bytes().chunks_exact(4).map(|p| palette.index([p[0], p[1], p[2], p[3]]).unwrap()).collect();
            let drawn = std::sync::Mutex::new(Vec::new());
            let indexed = pool
                .install(|| {
                    encode_png_indexed(
                        width,
                        height,
                        &palette,
                        band_rows,
                        || None,
                        |last: &mut Option<usize>, band, out| {
                            // A thread draws its part's bands in order, each once.
                            assert!(last.is_none_or(|last| band == last + 1), "band {band} after {last:?}");
                            *last = Some(band);
                            let at = band * band_rows * width as usize;
                            out.copy_from_slice(&indices[at..at + out.len()]);
                            drawn.lock().unwrap().push(band);
                            true
                        },
                    )
                })
                .unwrap()
                .expect("every band drawn right");
            let mut drawn = drawn.into_inner().unwrap();
            drawn.sort_unstable();
            assert_eq!(drawn, (0..(height as usize).div_ceil(band_rows)).collect::<Vec<_>>());
            assert_eq!(decode_image(&indexed, Path::new("indexed.png")).unwrap().as_bytes(), image.as_bytes());
            if band_rows == 8 {
                assert!(indexed == rgba_drawn, "{width}×{height}: the same bytes as drawn in RGBA");
            }
        }
        // A band drawn wrong gives no PNG, whichever part it is in.
        for wrong in [0, 12, 37] {
            let png =
                pool.install(|| encode_png_indexed(5, 300, &palette, 8, || (), |(), band, _| band != wrong)).unwrap();
            assert!(png.is_none(), "band {wrong} drawn wrong");
        }
    }

    #[test]
    fn a_pixel_out_of_the_palette_writes_the_image_as_rgba() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let palette = Palette::new(vec![[255, 0, 0, 255]], Some(229)).unwrap();
        // A grey darker than the palette's, then a colour it lacks, in the last part.
        for stray in [[100, 100, 100, 255], [0, 0, 255, 255], [230, 230, 230, 254]] {
            let mut image = diff_like(16, 300, 229, &[[255, 0, 0, 255]]);
            let at = image.as_bytes().len() - 40;
            image.as_bytes_mut()[at..at + 4].copy_from_slice(&stray);
            let png = pool.install(|| encode_png_in_parts(&image, Some(&palette), None)).unwrap();
            assert_eq!(colour_type(&png), 6, "{stray:?}: RGBA");
            assert_eq!(decode_image(&png, Path::new("rgba.png")).unwrap().as_bytes(), image.as_bytes());
            // Drawn: every band is drawn all the same, and the image holds the drawing.
            let (png, drawn) = pool.install(|| drawn_as(&image, &palette));
            assert_eq!(colour_type(&png), 6, "{stray:?}: drawn RGBA");
            assert_eq!(drawn.as_bytes(), image.as_bytes());
            assert_eq!(decode_image(&png, Path::new("drawn.png")).unwrap().as_bytes(), image.as_bytes());
        }
    }

    #[test]
    fn a_palette_holds_at_most_256_colours() {
        assert!(Palette::new(vec![[1, 2, 3, 255]], Some(1)).is_some());
        assert!(Palette::new(vec![[1, 2, 3, 255]], Some(0)).is_none());
        assert!(Palette::new(vec![[0; 4]; 257], None).is_none());
        let palette = Palette::new(vec![[0, 0, 0, 0], [255, 0, 0, 255]], Some(250)).unwrap();
        assert_eq!(palette.entries().count(), 8);
        assert_eq!(palette.index([252, 252, 252, 255]), Some(4));
        assert_eq!(palette.index([249, 249, 249, 255]), None);
        assert_eq!(palette.index([0, 0, 0, 0]), Some(0));
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
