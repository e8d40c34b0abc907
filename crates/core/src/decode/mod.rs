//! Image files in and out: PNG (any colour type and bit depth, expanded to RGBA8 as pngjs does)
//! and JPEG (decoded by libjpeg-turbo itself, to exactly the pixels its tools give). Dimensions
//! are checked against the pixel cap before a pixel buffer is allocated.

use std::ffi::OsStr;
use std::io::Cursor;
use std::path::Path;

use crate::error::{Error, Result};
use crate::image::{RgbaImage, check_dimensions};

mod in_parts;
mod pair;
pub use in_parts::{GreyIndices, Palette, encode_png_drawn, encode_png_indexed};
pub use pair::{DecodedPair, decode_pair};

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Reads a PNG or JPEG file into RGBA8.
pub fn read_image(path: &Path) -> Result<RgbaImage> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    decode_image(&bytes, path)
}

/// Decodes PNG or JPEG bytes; `path` only names the input in errors.
pub fn decode_image(bytes: &[u8], path: &Path) -> Result<RgbaImage> {
    if bytes.starts_with(PNG_SIGNATURE) {
        decode_png(bytes, path)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        decode_jpeg(bytes, path)
    } else {
        Err(Error::BadImage { path: path.to_path_buf(), detail: "neither a PNG nor a JPEG signature".into() })
    }
}

fn bad(path: &Path, detail: impl std::fmt::Display) -> Error {
    Error::BadImage { path: path.to_path_buf(), detail: detail.to_string() }
}

/// Checks that `bytes` decode as [`decode_image`] decodes them, without keeping the pixels, and
/// gives the image's width and height: for two byte-identical files, whose pixels need no
/// comparing, a PNG is read row by row through one row's memory instead of a whole image's.
pub fn check_image(bytes: &[u8], path: &Path) -> Result<(u32, u32)> {
    if !bytes.starts_with(PNG_SIGNATURE) {
        let image = decode_image(bytes, path)?;
        return Ok((image.width(), image.height()));
    }
    let PngStart { mut reader, width, height, .. } = png_reader(bytes, path)?;
    if reader.info().interlaced {
        // Seven passes of rows: decoded whole, as decode_image reads them (such files are rare).
        let image = decode_image(bytes, path)?;
        return Ok((image.width(), image.height()));
    }
    for _ in 0..height {
        reader.next_row().map_err(|e| bad(path, e))?.ok_or_else(|| bad(path, "fewer rows than the header says"))?;
    }
    Ok((width, height))
}

/// A PNG reader set up as every decode here needs it, with the image's size.
struct PngStart<'a> {
    reader: png::Reader<Cursor<&'a [u8]>>,
    width: u32,
    height: u32,
    /// `width × height`, checked against the pixel cap before any pixel is read.
    pixels: usize,
}

fn png_reader<'a>(bytes: &'a [u8], path: &Path) -> Result<PngStart<'a>> {
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    // Palette → RGB(A), low bit depths → 8, tRNS → alpha; 16-bit keeps its high byte.
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    // Our own cap below is the one that matters; lift png's default so it never fires first.
    decoder.set_limits(png::Limits { bytes: usize::MAX });
    let reader = decoder.read_info().map_err(|e| bad(path, e))?;
    let (width, height) = {
        let info = reader.info();
        (info.width, info.height)
    };
    let pixels = check_dimensions(&path.display().to_string(), width.into(), height.into())?;
    Ok(PngStart { reader, width, height, pixels })
}

fn decode_png(bytes: &[u8], path: &Path) -> Result<RgbaImage> {
    let mut start = png_reader(bytes, path)?;
    let (width, height, reader) = (start.width, start.height, &mut start.reader);
    let channels = output_channels(reader, path)?;
    let mut data = crate::image::pixel_buffer(start.pixels * 4);
    if channels == 4 {
        let frame = reader.next_frame(&mut data).map_err(|e| bad(path, e))?;
        if frame.line_size != width as usize * 4 {
            return Err(bad(path, "unexpected row layout"));
        }
        return RgbaImage::from_raw(width, height, data);
    }
    if reader.info().interlaced {
        // Adam7 rows come pass by pass: the reader puts them in place in a whole frame first.
        let size = reader.output_buffer_size().ok_or_else(|| bad(path, "too large"))?;
        let mut native = vec![0; size];
        reader.next_frame(&mut native).map_err(|e| bad(path, e))?;
        let stride = width as usize * channels;
        for (out, row) in data.chunks_exact_mut(width as usize * 4).zip(native.chunks_exact(stride)) {
            expand_to_rgba(channels, row, out);
        }
        return RgbaImage::from_raw(width, height, data);
    }
    // Expand row by row straight into the RGBA buffer: the decoded row is still in cache and
    // no second whole-image buffer is allocated.
    Partway::new(start, path)?.read_into(&mut data, width as usize * 4)?;
    RgbaImage::from_raw(width, height, data)
}

/// How many samples a pixel of the reader's output has (after its transformations).
fn output_channels(reader: &png::Reader<Cursor<&[u8]>>, path: &Path) -> Result<usize> {
    match reader.output_color_type().0 {
        png::ColorType::Grayscale => Ok(1),
        png::ColorType::GrayscaleAlpha => Ok(2),
        png::ColorType::Rgb => Ok(3),
        png::ColorType::Rgba => Ok(4),
        png::ColorType::Indexed => Err(bad(path, "palette was not expanded")),
    }
}

/// Reads a PNG's rows one at a time as RGBA8, for a reader whose image is not interlaced.
struct RgbaRows<'p> {
    channels: usize,
    width: usize,
    /// One row as the reader gives it, before it is expanded to RGBA.
    native: Vec<u8>,
    path: &'p Path,
}

impl<'p> RgbaRows<'p> {
    fn new(reader: &png::Reader<Cursor<&[u8]>>, path: &'p Path) -> Result<Self> {
        let channels = output_channels(reader, path)?;
        let width = reader.info().width as usize;
        // Checked once: every row of a non-interlaced image has this layout.
        if reader.output_line_size(reader.info().width) != Some(width * channels) {
            return Err(bad(path, "unexpected row layout"));
        }
        let native = if channels == 4 { Vec::new() } else { vec![0; width * channels] };
        Ok(Self { channels, width, native, path })
    }

    /// The next row into `out` (one RGBA row).
    fn read(&mut self, reader: &mut png::Reader<Cursor<&[u8]>>, out: &mut [u8]) -> Result<()> {
        let path = self.path;
        if out.len() != self.width * 4 {
            return Err(bad(path, "unexpected row layout"));
        }
        let target = if self.channels == 4 { &mut *out } else { &mut self.native[..] };
        reader
            .read_row(target)
            .map_err(|e| bad(path, e))?
            .ok_or_else(|| bad(path, "fewer rows than the header says"))?;
        if self.channels != 4 {
            expand_to_rgba(self.channels, &self.native, out);
        }
        Ok(())
    }
}

/// A PNG part-way through its rows.
struct Partway<'a, 'p> {
    reader: png::Reader<Cursor<&'a [u8]>>,
    rows: RgbaRows<'p>,
    /// Rows read so far.
    done: usize,
}

impl<'a, 'p> Partway<'a, 'p> {
    /// `start`'s image before its first row.
    fn new(start: PngStart<'a>, path: &'p Path) -> Result<Self> {
        Ok(Self { rows: RgbaRows::new(&start.reader, path)?, reader: start.reader, done: 0 })
    }

    /// Reads the next rows into `out`, a whole number of rows.
    fn read_into(&mut self, out: &mut [u8], stride: usize) -> Result<()> {
        for row in out.chunks_exact_mut(stride) {
            self.rows.read(&mut self.reader, row)?;
            self.done += 1;
        }
        Ok(())
    }
}

/// One row of `channels` samples per pixel (grey, grey + alpha, RGB) as RGBA8, as pngjs expands it.
fn expand_to_rgba(channels: usize, row: &[u8], out: &mut [u8]) {
    match channels {
        3 => rgb_to_rgba(row, out),
        2 => {
            for (o, p) in out.chunks_exact_mut(4).zip(row.chunks_exact(2)) {
                o.copy_from_slice(&[p[0], p[0], p[0], p[1]]);
            }
        }
        _ => {
            for (o, &g) in out.chunks_exact_mut(4).zip(row) {
                o.copy_from_slice(&[g, g, g, 255]);
            }
        }
    }
}

/// Most scans a JPEG may have. libjpeg-turbo reads every scan of a progressive file over the
/// whole image's coefficients, so a small file of thousands of tiny scans would take minutes
/// (djpeg's `-maxscans` exists to guard against that). Encoders write about ten (cjpeg's
/// progressive script has 10); the decoder used before libjpeg-turbo stopped at 100 too.
pub const MAX_JPEG_SCANS: usize = 100;

/// Decodes a JPEG as libjpeg-turbo's tools do (djpeg, and every program on its default API):
/// the accurate integer IDCT, "fancy" (triangle) chroma upsampling, its YCbCr → RGB tables, and
/// CMYK turned into RGB as djpeg writes it. Reference tools count differing pixels on these
/// exact values, so a decoder that rounds one step differently would change their counts.
fn decode_jpeg(bytes: &[u8], path: &Path) -> Result<RgbaImage> {
    let scans = jpeg_scan_count(bytes);
    if scans > MAX_JPEG_SCANS {
        return Err(bad(path, format!("{scans} scans, above the limit of {MAX_JPEG_SCANS}")));
    }
    with_libjpeg(path, || {
        let io = |e: std::io::Error| bad(path, e);
        let mut jpeg = mozjpeg::Decompress::new_mem(bytes).map_err(io)?;
        let (width, height) = jpeg_size(&jpeg);
        let pixels = check_dimensions(&path.display().to_string(), width.into(), height.into())?;
        // libjpeg-turbo's defaults, set anyway: every pixel depends on them.
        jpeg.dct_method(mozjpeg::DctMethod::IntegerSlow);
        jpeg.do_fancy_upsampling(true);
        let mut data = crate::image::pixel_buffer(pixels * 4);
        if matches!(jpeg.color_space(), mozjpeg::ColorSpace::JCS_CMYK | mozjpeg::ColorSpace::JCS_YCCK) {
            // libjpeg-turbo converts CMYK to nothing but CMYK; djpeg then makes RGB itself.
            let mut started = jpeg.to_colorspace(mozjpeg::ColorSpace::JCS_CMYK).map_err(io)?;
            started.read_scanlines_into(&mut data).map_err(io)?;
            cmyk_to_rgba(&mut data);
        } else {
            // Grey and RGB JPEGs too: libjpeg-turbo writes RGBA with alpha 255 itself.
            jpeg.rgba().map_err(io)?.read_scanlines_into(&mut data).map_err(io)?;
        }
        RgbaImage::from_raw(width, height, data)
    })
}

/// A JPEG's width and height from its frame header, read by libjpeg-turbo without decoding
/// pixels (so a size check agrees with the decoder about what the file is).
pub fn jpeg_dimensions(bytes: &[u8], path: &Path) -> Result<(u32, u32)> {
    with_libjpeg(path, || Ok(jpeg_size(&mozjpeg::Decompress::new_mem(bytes).map_err(|e| bad(path, e))?)))
}

fn jpeg_size<R>(jpeg: &mozjpeg::Decompress<R>) -> (u32, u32) {
    // libjpeg's JDIMENSION is 32 bits (and it refuses sides above 65500), so these always fit.
    (jpeg.width() as u32, jpeg.height() as u32)
}

/// Runs libjpeg-turbo calls, turning its fatal errors into [`Error::BadImage`]. The mozjpeg
/// binding reports them by unwinding out of the C code (without the panic hook, so nothing is
/// printed); they stop here and never reach a caller as a panic.
fn with_libjpeg<T>(path: &Path, decode: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(decode)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("libjpeg-turbo stopped");
        Err(bad(path, message.trim_start_matches("libjpeg fatal error: ")))
    })
}

/// CMYK as libjpeg-turbo decodes it (Adobe's inverted values, 255 = no ink) to opaque RGB in
/// place, with djpeg's own formula (`cmyk_to_rgb` in its cmyk.h): each of C, M, Y times K / 255,
/// rounded half up, in double precision.
fn cmyk_to_rgba(data: &mut [u8]) {
    for pixel in data.chunks_exact_mut(4) {
        let k = f64::from(pixel[3]);
        for channel in &mut pixel[..3] {
            *channel = (f64::from(*channel) * k / 255.0 + 0.5) as u8;
        }
        pixel[3] = 255;
    }
}

/// How many scans (SOS markers) a JPEG has, without decoding: marker segments are skipped by
/// their lengths, so a thumbnail inside an APP1 segment is not counted, and entropy-coded data
/// is searched for the next marker (there 0xFF is followed only by a stuffed 0x00 or a restart
/// marker). Stops at the first EOI, as libjpeg-turbo does.
fn jpeg_scan_count(bytes: &[u8]) -> usize {
    let mut scans = 0;
    let mut at = 2;
    while let Some(offset) = bytes.get(at..).and_then(|rest| rest.iter().position(|&b| b == 0xFF)) {
        at += offset;
        let Some(&marker) = bytes.get(at + 1) else { break };
        match marker {
            // Fill bytes before a marker.
            0xFF => at += 1,
            // A stuffed zero, TEM, a restart marker or SOI: no length follows.
            0x00 | 0x01 | 0xD0..=0xD8 => at += 2,
            0xD9 => break,
            _ => {
                scans += usize::from(marker == 0xDA);
                let Some(length) = bytes.get(at + 2..at + 4) else { break };
                at += 2 + usize::from(u16::from_be_bytes([length[0], length[1]]));
            }
        }
    }
    scans
}

/// Appends an opaque alpha byte to every RGB pixel. Four pixels per step as 32-bit words,
/// which the compiler turns into byte shuffles; screenshots are RGB, so this runs on every row.
fn rgb_to_rgba(rgb: &[u8], rgba: &mut [u8]) {
    let mut out = rgba.chunks_exact_mut(16);
    let mut input = rgb.chunks_exact(12);
    for (o, p) in (&mut out).zip(&mut input) {
        for k in 0..4 {
            let word = u32::from_le_bytes([p[3 * k], p[3 * k + 1], p[3 * k + 2], 255]);
            o[4 * k..4 * k + 4].copy_from_slice(&word.to_le_bytes());
        }
    }
    for (o, p) in out.into_remainder().chunks_exact_mut(4).zip(input.remainder().chunks_exact(3)) {
        o.copy_from_slice(&[p[0], p[1], p[2], 255]);
    }
}

/// How hard a PNG is compressed: each file's trade between the time it takes and its size.
/// Measured on Python's 1280×86146 documentation page (a 13.9 MB PNG from Chromium), 2 cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PngCompression {
    /// Diff images and this run's views (report, MCP): the Up filter and zlib-rs's fastest
    /// level, in parts on every core. 0.16 s, 22 MB.
    Fastest,
    /// A failing test's `-actual.png`: zlib level 1 with adaptive filters. 0.37 s, 21 MB.
    Quick,
    /// Baselines and saved results (kept, often in git): the `png` crate's default. 0.9 s, 14 MB.
    Smallest,
}

/// Encodes RGBA8 as PNG.
pub fn encode_png(image: &RgbaImage, compression: PngCompression) -> Result<Vec<u8>> {
    encode_png_with_chunk(image, compression, None)
}

/// Encodes an image of few colours as [`PngCompression::Fastest`] does, as indices into `palette`
/// when every pixel is in it (a quarter of the bytes to compress and write), else as RGBA8.
pub fn encode_png_with_palette(image: &RgbaImage, palette: Option<&Palette>) -> Result<Vec<u8>> {
    in_parts::encode_png_in_parts(image, palette, None)
}

/// Encodes RGBA8 as PNG with one extra ancillary chunk `(type, data)` before the pixels.
pub fn encode_png_with_chunk(
    image: &RgbaImage,
    compression: PngCompression,
    chunk: Option<([u8; 4], &[u8])>,
) -> Result<Vec<u8>> {
    if compression == PngCompression::Fastest {
        return in_parts::encode_png_in_parts(image, None, chunk);
    }
    let failed = |e: png::EncodingError| Error::InvalidInput(format!("PNG encoding failed: {e}"));
    let mut out = Vec::with_capacity(image.len() / 4 + 1024);
    {
        let mut encoder = png::Encoder::new(&mut out, image.width(), image.height());
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        if compression == PngCompression::Quick {
            encoder.set_deflate_compression(png::DeflateCompression::Level(1));
            encoder.set_filter(png::Filter::Adaptive);
        }
        let mut writer = encoder.write_header().map_err(failed)?;
        if let Some((kind, data)) = chunk {
            writer.write_chunk(png::chunk::ChunkType(kind), data).map_err(failed)?;
        }
        writer.write_image_data(image.as_bytes()).map_err(failed)?;
    }
    Ok(out)
}

/// A PNG's width and height from its IHDR header (the first chunk, right after the signature),
/// without decoding pixels; `None` when `bytes` do not start a PNG with one.
pub fn png_dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    if !bytes.starts_with(PNG_SIGNATURE) || bytes.len() < 24 || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let at = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    Some((at(16), at(20)))
}

/// The data of the first chunk of type `kind` in a PNG file, if any. Walks the chunk headers
/// only (every length checked against the file), never the pixels.
pub fn find_png_chunk(bytes: &[u8], kind: [u8; 4]) -> Option<&[u8]> {
    let mut at = PNG_SIGNATURE.len();
    if !bytes.starts_with(PNG_SIGNATURE) {
        return None;
    }
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().ok()?) as usize;
        let ty: [u8; 4] = bytes[at + 4..at + 8].try_into().ok()?;
        let data_end = at.checked_add(8)?.checked_add(len)?;
        if data_end.checked_add(4)? > bytes.len() {
            return None;
        }
        if ty == kind {
            return Some(&bytes[at + 8..data_end]);
        }
        if &ty == b"IEND" {
            return None;
        }
        at = data_end + 4;
    }
    None
}

/// Whether `bytes` are a whole PNG file as written: every chunk inside the file with its CRC
/// right, up to an `IEND` that ends it. Decoding nothing, it tells a truncated or damaged file from
/// the one that was written (a few ms for a long page's baseline).
pub fn png_intact(bytes: &[u8]) -> bool {
    if !bytes.starts_with(PNG_SIGNATURE) {
        return false;
    }
    let mut at = PNG_SIGNATURE.len();
    while let Some(head) = bytes.get(at..at + 8) {
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let Some(crc_end) = at.checked_add(12).and_then(|n| n.checked_add(len)).filter(|&n| n <= bytes.len()) else {
            return false;
        };
        let (typed, crc) = (&bytes[at + 4..crc_end - 4], &bytes[crc_end - 4..crc_end]);
        if crc32fast::hash(typed).to_be_bytes() != crc {
            return false;
        }
        if &head[4..8] == b"IEND" {
            return crc_end == bytes.len();
        }
        at = crc_end;
    }
    false
}

/// Creates `dir` and its parents. A file standing where a folder belongs is reported as such,
/// not as the bare "File exists" the OS gives.
pub fn create_dir_all(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| {
        let blocked = e.kind() == std::io::ErrorKind::AlreadyExists || e.kind() == std::io::ErrorKind::NotADirectory;
        let e = if blocked { std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder") } else { e };
        Error::io(dir, e)
    })
}

/// Whether a written file is on the disk before it replaces the old one. Either way it replaces
/// it by a rename, so a reader sees the old file or the whole new one, never half of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Flushed to the disk first (`fsync`): the user's files — baselines, accepted variants, the
    /// review state, the run ledger — which a crash must leave whole, old or new.
    Synced,
    /// Left to the operating system to write back, as Playwright writes its own output: this
    /// run's files — captures, evidence, diff images, results, reports — which the next run
    /// writes again. A flush is most of a capture's write (3 MB: 4–12 ms instead of 1–2).
    RunOutput,
}

/// Writes `bytes` to `path` atomically: a temp file in the same folder, then a rename, so a
/// reader never sees half a file (nor a crash, when [`Durability::Synced`]).
pub fn write_atomic(path: &Path, bytes: &[u8], durability: Durability) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| Error::InvalidInput(format!("{}: not a file path", path.display())))?;
    replace_in(dir, name, &[bytes], durability).map_err(|e| Error::io(path, e))
}

/// A folder a file is replaced in: a path, or an open handle of one (the store's, through which
/// no write follows a link out of the project).
pub(crate) trait Folder {
    fn create(&self, name: &str) -> std::io::Result<std::fs::File>;
    fn rename(&self, from: &str, to: &OsStr) -> std::io::Result<()>;
    fn remove(&self, name: &str) -> std::io::Result<()>;
}

impl Folder for Path {
    fn create(&self, name: &str) -> std::io::Result<std::fs::File> {
        std::fs::File::create(self.join(name))
    }

    fn rename(&self, from: &str, to: &OsStr) -> std::io::Result<()> {
        std::fs::rename(self.join(from), self.join(to))
    }

    fn remove(&self, name: &str) -> std::io::Result<()> {
        std::fs::remove_file(self.join(name))
    }
}

/// Replaces `name` in `folder` with `parts`, one after the other: written to a temp file there (flushed to the disk
/// when [`Durability::Synced`]), then renamed over `name`; the temp file is removed when any step
/// fails, so nothing is left half written.
pub(crate) fn replace_in(
    folder: &(impl Folder + ?Sized),
    name: &OsStr,
    parts: &[&[u8]],
    durability: Durability,
) -> std::io::Result<()> {
    use std::io::Write;
    // Unique per process *and* per call: two threads writing the same path never share a temp.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temp = format!(".{}.{}.{n}.tmp", name.to_string_lossy(), std::process::id());
    let written = (|| {
        let mut file = folder.create(&temp)?;
        for part in parts {
            file.write_all(part)?;
        }
        if durability == Durability::Synced {
            file.sync_all()?;
        }
        folder.rename(&temp, name)
    })();
    if written.is_err() {
        let _ = folder.remove(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `image` as an Adam7-interlaced RGBA PNG, rows unfiltered, in one IDAT chunk (the png crate
    /// writes no interlaced files).
    fn interlaced_png(image: &RgbaImage) -> Vec<u8> {
        use std::io::Write;
        // Each pass: its first column and row, and its steps across and down.
        const PASSES: [(usize, usize, usize, usize); 7] =
            [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)];
        let (w, h) = (image.width() as usize, image.height() as usize);
        let mut raw = Vec::new();
        for (x0, y0, dx, dy) in PASSES.into_iter().filter(|&(x0, y0, ..)| x0 < w && y0 < h) {
            for y in (y0..h).step_by(dy) {
                raw.push(0);
                for x in (x0..w).step_by(dx) {
                    raw.extend_from_slice(&image.as_bytes()[(y * w + x) * 4..][..4]);
                }
            }
        }
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        zlib.write_all(&raw).unwrap();
        let mut png = PNG_SIGNATURE.to_vec();
        let mut ihdr = [0u8; 13];
        ihdr[..4].copy_from_slice(&(w as u32).to_be_bytes());
        ihdr[4..8].copy_from_slice(&(h as u32).to_be_bytes());
        ihdr[8..].copy_from_slice(&[8, 6, 0, 0, 1]);
        for (kind, data) in [(b"IHDR", ihdr.to_vec()), (b"IDAT", zlib.finish().unwrap()), (b"IEND", Vec::new())] {
            png.extend_from_slice(&(data.len() as u32).to_be_bytes());
            let start = png.len();
            png.extend_from_slice(kind);
            png.extend_from_slice(&data);
            let sum = crc32fast::hash(&png[start..]);
            png.extend_from_slice(&sum.to_be_bytes());
        }
        png
    }

    #[test]
    fn check_image_reads_every_pass_of_an_interlaced_png() {
        let data = (0..37 * 29).flat_map(|i: u32| [(i % 251) as u8, (i / 7 % 253) as u8, 90, 255]).collect();
        let image = RgbaImage::from_raw(37, 29, data).unwrap();
        let png = interlaced_png(&image);
        assert!(decode_image(&png, Path::new("i.png")).unwrap() == image, "the test's interlaced file");
        assert_eq!(check_image(&png, Path::new("i.png")).unwrap(), (37, 29));
        // A byte of the last pass's rows flipped: only a read of every pass finds it (the CRC).
        let mut damaged = png.clone();
        let last_idat_byte = damaged.len() - 12 - 4 - 1;
        damaged[last_idat_byte] ^= 0x40;
        assert!(decode_image(&damaged, Path::new("i.png")).is_err());
        let message = check_image(&damaged, Path::new("i.png")).expect_err("damaged").to_string();
        assert!(message.contains("i.png"), "{message}");
    }

    #[test]
    fn jpeg_scan_count_skips_segment_payloads_and_entropy_data() {
        let bytes = [
            0xFF, 0xD8, // SOI
            0xFF, 0xE1, 0x00, 0x06, 0xFF, 0xDA, 0xFF, 0xDA, // APP1 holding two SOS bytes (a thumbnail's)
            0xFF, 0xDA, 0x00, 0x04, 0x00, 0x00, // SOS 1
            0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, // entropy data: a stuffed zero and RST0
            0xFF, 0xFF, 0xDA, 0x00, 0x02, 0x78, // a fill byte, SOS 2 and its data
            0xFF, 0xD9, // EOI
            0xFF, 0xDA, 0x00, 0x02, // after EOI: not read
        ];
        assert_eq!(jpeg_scan_count(&bytes), 2);
        assert_eq!(jpeg_scan_count(&bytes[..12]), 1, "a file cut inside a segment header");
    }

    #[test]
    fn png_intact_tells_the_file_as_written_from_a_cut_or_flipped_one() {
        let image = RgbaImage::filled(40, 30, [10, 200, 30, 255]).unwrap();
        let png = encode_png_with_chunk(&image, PngCompression::Fastest, Some((*b"slDm", b"data"))).unwrap();
        assert!(png_intact(&png));
        for cut in [png.len() - 1, png.len() - 12, 40, 8, 0] {
            assert!(!png_intact(&png[..cut]), "cut at {cut}");
        }
        for at in [20, 40, png.len() - 20] {
            let mut flipped = png.clone();
            flipped[at] ^= 1;
            assert!(!png_intact(&flipped), "bit flipped at {at}");
        }
        let mut longer = png.clone();
        longer.push(0);
        assert!(!png_intact(&longer), "bytes after IEND");
    }
}
