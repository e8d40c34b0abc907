//! The capture artifact: one file per capture holding the page's RGBA pixels, its device scale
//! factor and an opaque metadata payload (the DOM/style/health JSON the collector produces).
//!
//! It replaces a PNG as the stored form of a capture because it is much cheaper to write and to
//! read, and still smaller. Layout, all integers little-endian:
//!
//! ```text
//! offset size  field
//!      0    6  magic "SLCAP\0"
//!      6    2  version (1)
//!      8    4  flags: 0, or 1 = the pixel section is one PNG stream (below)
//!     12    4  width in pixels
//!     16    4  height in pixels
//!     20    4  device scale factor, f32 bits
//!     24    4  rows per band (how many pixel rows one zstd frame holds)
//!     28    4  band count = ceil(height / rows per band), 0 for an empty image
//!     32    8  pixel section length in bytes
//!     40    8  metadata section length in bytes (compressed)
//!     48    8  metadata length once decompressed
//!     56    8  checksum: XXH3-64 of bytes 0..56 followed by every byte after the header
//!     64       pixel section: band count × u32 frame lengths, then the zstd frames
//!              metadata section: one zstd frame
//! ```
//!
//! Pixels are split into bands of whole rows, each its own zstd frame, so both ends run on every
//! core (frames are compressed independently, so the bytes do not depend on thread timing).
//!
//! With flag 1 ([`FLAG_PNG_PIXELS`]) the pixel section is instead the browser's own PNG, byte for
//! byte (rows per band and band count are 0): every capture with nothing painted over it (no
//! mask) — an unchanged page, whose bytes were found equal to the baseline's shot, without
//! decoding them, and a changed one, whose comparison decoded them anyway. It reads slower (a PNG
//! decode) and takes more room, but is written for the cost of a copy, in the call the test
//! waits for, while compressing the pixels again costs the cores the browser needs for the
//! settling shot; what reads it later (an approve, `sightline compare`, the report) is not on
//! that path.
//! Decoding trusts nothing before checking it: the header's lengths must add up to the file's
//! length, the checksum must match, the pixel count must pass
//! [`MAX_PIXELS`](crate::image::MAX_PIXELS) before the pixel buffer exists, and every frame must
//! decompress to exactly its declared length.

use std::io::Read;
use std::path::Path;

use rayon::prelude::*;
use xxhash_rust::xxh3::Xxh3;

use crate::decode::write_atomic;
use crate::error::{Error, Result};
use crate::image::{RgbaImage, check_dimensions};

/// First bytes of every artifact.
pub const MAGIC: &[u8; 6] = b"SLCAP\0";

/// The format version this build writes and the only one it reads.
pub const FORMAT_VERSION: u16 = 1;

/// Header flag: the pixel section is one PNG stream, not zstd bands (see the module docs).
pub const FLAG_PNG_PIXELS: u32 = 1;

/// Size of the fixed header in bytes.
pub const HEADER_LEN: usize = 64;

/// Largest metadata payload accepted, before compression on write and after it on read.
/// The DOM of a very long page is a few tens of MB; this leaves room while bounding what a forged
/// length can make a reader reserve.
pub const MAX_METADATA_BYTES: u64 = 256 << 20;

/// zstd level for pixels and metadata. Measured on a 1280×10000 Chromium screenshot in 4 MiB
/// bands on 2 cores: levels 1 to 4 write and read equally fast (~12 ms each way), and level 3 is
/// 14 % smaller than level 1 (0.53× the PNG); level 5 is 19 % smaller again but writes 2.5× slower.
/// An "Up" row filter before zstd made every level larger: zstd already matches repeated rows.
const ZSTD_LEVEL: i32 = 3;

/// Target uncompressed size of one pixel band. Smaller bands spread better over cores but each
/// frame starts with an empty window, which costs size: at level 3, 4 MiB bands are 7 % larger
/// than one frame and 2 MiB bands 14 %, while one frame reads and writes half as fast on 2 cores.
const BAND_BYTES: usize = 4 << 20;

/// Where the checksum sits in the header; it covers everything but itself.
const CHECKSUM_AT: usize = 56;

/// A captured page: what one snapshot records besides the baseline's name.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    /// The page's pixels, full page by default.
    pub image: RgbaImage,
    /// CSS-pixel to device-pixel ratio the page was rendered at (1.0, 2.0, …); finite and > 0.
    pub device_scale_factor: f32,
    /// Opaque payload stored beside the pixels: UTF-8 JSON from the DOM collector. The artifact
    /// neither parses nor validates it.
    pub metadata: Vec<u8>,
}

/// What the header of an artifact says, read without decompressing anything.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CaptureHeader {
    /// Format version of the file (currently always [`FORMAT_VERSION`]).
    pub version: u16,
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Device scale factor the page was captured at.
    pub device_scale_factor: f32,
    /// Length of the metadata payload once decompressed, in bytes.
    pub metadata_len: u64,
}

/// The header fields as stored, once magic, version and lengths are known to be sound.
struct Header {
    public: CaptureHeader,
    flags: u32,
    rows_per_band: u32,
    band_count: u32,
    pixels_len: u64,
    checksum: u64,
}

/// Encodes a capture into artifact bytes (see the module docs for the layout).
pub fn encode_capture(capture: &Capture) -> Result<Vec<u8>> {
    check_before_encoding(capture.device_scale_factor, &capture.metadata)?;
    let bands = encode_bands(&capture.image)?;
    Ok(seal(PixelSection::Bands(&bands), capture.device_scale_factor, &capture.metadata)?.to_vec())
}

/// An image's pixels compressed as an artifact's zstd bands, before its metadata is known.
#[derive(Debug)]
pub struct EncodedBands {
    width: u32,
    height: u32,
    rows_per_band: u32,
    band_count: u32,
    /// The frame length table, then the frames.
    bytes: Vec<u8>,
}

/// Compresses `image`'s pixels in bands (see the module docs), on every core.
pub fn encode_bands(image: &RgbaImage) -> Result<EncodedBands> {
    let layout = BandLayout::for_image(image.width(), image.height());
    // Each rayon job keeps its compressor (and its ~1 MB of tables) across the bands it takes.
    let frames: Vec<Vec<u8>> = if layout.band_count == 0 {
        Vec::new()
    } else {
        image
            .as_bytes()
            .par_chunks(layout.band_bytes)
            .map_init(new_compressor, |compressor, band| match compressor {
                Ok(c) => c.compress(band).map_err(zstd_failed),
                Err(e) => Err(Error::InvalidInput(format!("zstd compressor unavailable: {e}"))),
            })
            .collect::<Result<_>>()?
    };
    let mut bytes = Vec::with_capacity(frames.len() * 4 + frames.iter().map(Vec::len).sum::<usize>());
    for frame in &frames {
        // A band is at most BAND_BYTES or one row, and a row is at most MAX_PIXELS × 4 = 1 GiB,
        // so even an incompressible band fits in u32.
        let len = u32::try_from(frame.len()).map_err(|_| Error::InvalidInput("pixel band too large".into()))?;
        bytes.extend_from_slice(&len.to_le_bytes());
    }
    for frame in &frames {
        bytes.extend_from_slice(frame);
    }
    Ok(EncodedBands {
        width: image.width(),
        height: image.height(),
        rows_per_band: layout.rows_per_band,
        band_count: layout.band_count,
        bytes,
    })
}

/// A capture's pixel section, encoded before the capture's metadata is known: what the page was
/// drawn with is learnt after its comparison, and the file is written once, with it.
#[derive(Debug, Clone, Copy)]
pub enum PixelSection<'a> {
    /// The browser's own PNG, kept byte for byte ([`FLAG_PNG_PIXELS`]); its size is read from its
    /// header and checked against the pixel cap, its pixels decoded only when the artifact is read.
    Png(&'a [u8]),
    /// Pixels compressed by [`encode_bands`].
    Bands(&'a EncodedBands),
}

/// The artifact of `pixels` with `metadata` (as in [`Capture::metadata`]), in the three parts its
/// file is written from: the pixel section is not copied.
pub fn seal<'a>(pixels: PixelSection<'a>, device_scale_factor: f32, metadata: &[u8]) -> Result<CaptureParts<'a>> {
    let dsf = device_scale_factor;
    check_before_encoding(dsf, metadata)?;
    let (flags, size, bands, section) = match pixels {
        PixelSection::Png(png) => {
            let (width, height) = crate::decode::png_dimensions(png)
                .ok_or_else(|| Error::InvalidInput("a capture's screenshot is not a PNG".into()))?;
            check_dimensions("screenshot", width.into(), height.into())?;
            (FLAG_PNG_PIXELS, (width, height), (0, 0), png)
        }
        PixelSection::Bands(b) => (0, (b.width, b.height), (b.rows_per_band, b.band_count), b.bytes.as_slice()),
    };
    let compressed = new_compressor().and_then(|mut c| c.compress(metadata)).map_err(zstd_failed)?;
    let mut head = Vec::with_capacity(HEADER_LEN);
    HeaderOut { flags, size, dsf, bands, sections: [section.len(), compressed.len(), metadata.len()] }.write(&mut head);
    let mut hasher = Xxh3::new();
    hasher.update(&head[..CHECKSUM_AT]);
    hasher.update(section);
    hasher.update(&compressed);
    head[CHECKSUM_AT..HEADER_LEN].copy_from_slice(&hasher.digest().to_le_bytes());
    Ok(CaptureParts { head, pixels: section, metadata: compressed })
}

/// A capture artifact ([`seal`]) in the three parts its file is written from.
pub struct CaptureParts<'a> {
    head: Vec<u8>,
    pixels: &'a [u8],
    metadata: Vec<u8>,
}

impl CaptureParts<'_> {
    /// The header, the pixel section, the compressed metadata: the artifact's bytes, in order.
    pub fn parts(&self) -> [&[u8]; 3] {
        [&self.head, self.pixels, &self.metadata]
    }

    /// The artifact as one buffer.
    pub fn to_vec(&self) -> Vec<u8> {
        self.parts().concat()
    }
}

/// What every encoding refuses: a scale factor that is not a positive number, metadata over the cap.
fn check_before_encoding(dsf: f32, metadata: &[u8]) -> Result<()> {
    if !(dsf.is_finite() && dsf > 0.0) {
        return Err(Error::InvalidInput(format!("device scale factor {dsf} must be a finite number above 0")));
    }
    if metadata.len() as u64 > MAX_METADATA_BYTES {
        return Err(Error::InvalidInput(format!(
            "capture metadata is {} bytes, above the limit of {MAX_METADATA_BYTES}",
            metadata.len()
        )));
    }
    Ok(())
}

/// The fixed header as written.
struct HeaderOut {
    flags: u32,
    /// Width and height in pixels.
    size: (u32, u32),
    dsf: f32,
    /// Rows per band and band count.
    bands: (u32, u32),
    /// Lengths in bytes: the pixel section, the metadata section, the metadata decompressed.
    sections: [usize; 3],
}

impl HeaderOut {
    /// Writes the header into the empty `out`, its checksum left 0 until the rest is written.
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        for field in [self.flags, self.size.0, self.size.1, self.dsf.to_bits(), self.bands.0, self.bands.1] {
            out.extend_from_slice(&field.to_le_bytes());
        }
        for len in self.sections {
            out.extend_from_slice(&(len as u64).to_le_bytes());
        }
        out.extend_from_slice(&0u64.to_le_bytes());
        debug_assert_eq!(out.len(), HEADER_LEN);
    }
}

/// Decodes artifact bytes. `path` only names the file in errors. Corrupt, truncated, forged or
/// unknown-version input gives [`Error::BadArtifact`] (or [`Error::TooLarge`] for a consistent
/// file above the pixel cap), never a panic, and nothing is allocated from an unchecked length.
pub fn decode_capture(bytes: &[u8], path: &Path) -> Result<Capture> {
    let head: &[u8; HEADER_LEN] =
        bytes.get(..HEADER_LEN).and_then(|h| h.try_into().ok()).ok_or_else(|| truncated_header(path, bytes.len()))?;
    let header = parse_header(head, bytes.len() as u64, path)?;
    // Checked before anything is decompressed: a flipped bit anywhere is reported as corruption
    // rather than as whatever odd value it produced.
    let actual = checksum(bytes);
    if actual != header.checksum {
        return Err(bad(path, format!("checksum mismatch (stored {:016x}, computed {actual:016x})", header.checksum)));
    }
    check_header_values(&header, path)?;
    let CaptureHeader { width, height, device_scale_factor, metadata_len, .. } = header.public;

    // parse_header made these add up to the file's length, so the slicing cannot fail.
    let pixels_end = HEADER_LEN + header.pixels_len as usize;
    let pixel_section = &bytes[HEADER_LEN..pixels_end];
    let metadata_section = &bytes[pixels_end..];
    if header.flags == FLAG_PNG_PIXELS {
        let image = crate::decode::decode_image(pixel_section, path)?;
        if (image.width(), image.height()) != (width, height) {
            return Err(bad(
                path,
                format!("its PNG is {}×{}, the header says {width}×{height}", image.width(), image.height()),
            ));
        }
        let metadata = decompress_metadata(metadata_section, metadata_len, path)?;
        return Ok(Capture { image, device_scale_factor, metadata });
    }

    let frames = split_frames(pixel_section, header.band_count, path)?;
    let band_bytes = (header.rows_per_band as usize).saturating_mul(width as usize * 4);
    let pixel_bytes = width as usize * height as usize * 4;
    // Each frame's own header must promise exactly its band (the last one may be short) before
    // the buffer for all of them is reserved.
    for (index, frame) in frames.iter().enumerate() {
        let expected = band_bytes.min(pixel_bytes - index * band_bytes) as u64;
        match zstd::zstd_safe::get_frame_content_size(frame) {
            Ok(Some(n)) if n == expected => {}
            Ok(Some(n)) => {
                return Err(bad(path, format!("pixel band {index} declares {n} bytes, expected {expected}")));
            }
            Ok(None) | Err(_) => {
                return Err(bad(path, format!("pixel band {index} is not a zstd frame with a known size")));
            }
        }
    }
    // Only now, with the pixel cap passed and every length checked, does the pixel buffer exist.
    // vec![0; n] comes from calloc: fresh pages are zero already and are first touched by the
    // decompressing threads, in parallel, instead of by a single-threaded memset.
    let mut pixels = crate::image::pixel_buffer(pixel_bytes);
    if !frames.is_empty() {
        pixels.par_chunks_mut(band_bytes).zip(frames.par_iter()).enumerate().try_for_each_init(
            zstd::bulk::Decompressor::new,
            |decompressor, (index, (band, frame))| {
                let decompressor =
                    decompressor.as_mut().map_err(|e| bad(path, format!("zstd decompressor unavailable: {e}")))?;
                // The band is exactly as long as it must be: a frame that holds more fails here
                // instead of growing anything.
                let written = decompressor
                    .decompress_to_buffer(frame, band)
                    .map_err(|e| bad(path, format!("pixel band {index} is corrupt ({e})")))?;
                if written != band.len() {
                    return Err(bad(
                        path,
                        format!("pixel band {index} holds {written} bytes, expected {}", band.len()),
                    ));
                }
                Ok(())
            },
        )?;
    }
    let metadata = decompress_metadata(metadata_section, metadata_len, path)?;
    let image = RgbaImage::from_raw(width, height, pixels).map_err(|e| bad(path, e))?;
    Ok(Capture { image, device_scale_factor, metadata })
}

/// Writes a capture to `path` atomically (temp file in the same folder, then rename): a reader or
/// a crash never sees half an artifact, and a failed write leaves the previous file whole.
pub fn write_capture(path: &Path, capture: &Capture) -> Result<()> {
    write_atomic(path, &encode_capture(capture)?, crate::decode::Durability::Synced)
}

/// Reads and decodes an artifact file.
pub fn read_capture(path: &Path) -> Result<Capture> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    decode_capture(&bytes, path)
}

/// Reads only the header of an artifact: dimensions, scale factor and metadata size, without
/// decompressing pixels. Checks magic, version, the pixel cap and that the file is as long as the
/// header says; it does not verify the checksum (that needs the whole file: use [`read_capture`]).
pub fn read_capture_header(path: &Path) -> Result<CaptureHeader> {
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let file_len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let mut head = [0u8; HEADER_LEN];
    let mut filled = 0;
    // read_exact would hide how short a truncated file is; read until full or end of file.
    while filled < HEADER_LEN {
        match file.read(&mut head[filled..]) {
            Ok(0) => return Err(truncated_header(path, filled)),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    let header = parse_header(&head, file_len, path)?;
    check_header_values(&header, path)?;
    Ok(header.public)
}

/// How an image's rows are cut into independently compressed bands.
struct BandLayout {
    rows_per_band: u32,
    band_count: u32,
    band_bytes: usize,
}

impl BandLayout {
    fn for_image(width: u32, height: u32) -> Self {
        let row_bytes = width as usize * 4;
        if row_bytes == 0 || height == 0 {
            // No pixel bytes: no frames (zero-sized chunks are not a thing to split into).
            return Self { rows_per_band: 1, band_count: 0, band_bytes: 0 };
        }
        // At least one row per band; rows wider than BAND_BYTES get a band each.
        let rows_per_band = (BAND_BYTES / row_bytes).clamp(1, height as usize) as u32;
        Self {
            rows_per_band,
            band_count: height.div_ceil(rows_per_band),
            band_bytes: rows_per_band as usize * row_bytes,
        }
    }
}

/// Parses the fixed header and checks what makes the file readable at all: magic, version, flags
/// and section lengths that add up to the file's length.
fn parse_header(head: &[u8; HEADER_LEN], file_len: u64, path: &Path) -> Result<Header> {
    if &head[..6] != MAGIC {
        return Err(bad(path, "not a Sightline capture artifact (bad magic bytes)"));
    }
    let u16_at = |at: usize| u16::from_le_bytes([head[at], head[at + 1]]);
    let u32_at = |at: usize| u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
    let u64_at = |at: usize| u64::from_le_bytes(head[at..at + 8].try_into().unwrap_or_default());
    let version = u16_at(6);
    if version != FORMAT_VERSION {
        return Err(bad(
            path,
            format!("artifact format version {version} is not supported (this build reads version {FORMAT_VERSION})"),
        ));
    }
    let flags = u32_at(8);
    if flags != 0 && flags != FLAG_PNG_PIXELS {
        return Err(bad(path, format!("unknown header flags {flags:#x}")));
    }
    let (pixels_len, metadata_compressed_len) = (u64_at(32), u64_at(40));
    // Lengths before anything else is read: every later slice stays inside what the file holds.
    let declared = (HEADER_LEN as u64).checked_add(pixels_len).and_then(|n| n.checked_add(metadata_compressed_len));
    match declared {
        Some(n) if n == file_len => {}
        Some(n) if n > file_len => {
            return Err(bad(path, format!("truncated: the header declares {n} bytes but the file has {file_len}")));
        }
        Some(n) => return Err(bad(path, format!("{} unexpected bytes after the end of the artifact", file_len - n))),
        None => return Err(bad(path, "section lengths overflow")),
    }
    let public = CaptureHeader {
        version,
        width: u32_at(12),
        height: u32_at(16),
        device_scale_factor: f32::from_bits(u32_at(20)),
        metadata_len: u64_at(48),
    };
    Ok(Header {
        public,
        flags,
        rows_per_band: u32_at(24),
        band_count: u32_at(28),
        pixels_len,
        checksum: u64_at(CHECKSUM_AT),
    })
}

/// Checks the header's values: the pixel cap (before any pixel buffer exists), the scale factor,
/// a band layout that covers the rows, and the metadata cap. Run after the checksum when the
/// whole file is at hand, so a corrupt file is reported as corrupt, not as "too large".
fn check_header_values(header: &Header, path: &Path) -> Result<()> {
    let CaptureHeader { width, height, device_scale_factor, metadata_len, .. } = header.public;
    check_dimensions(&path.display().to_string(), width.into(), height.into())?;
    if !(device_scale_factor.is_finite() && device_scale_factor > 0.0) {
        return Err(bad(path, format!("device scale factor {device_scale_factor} is not a positive number")));
    }
    let (rows_per_band, band_count) = (header.rows_per_band, header.band_count);
    let layout_ok = if header.flags == FLAG_PNG_PIXELS {
        rows_per_band == 0 && band_count == 0
    } else if BandLayout::for_image(width, height).band_count == 0 {
        band_count == 0
    } else {
        rows_per_band > 0 && band_count == height.div_ceil(rows_per_band)
    };
    if !layout_ok {
        return Err(bad(path, format!("{band_count} pixel bands of {rows_per_band} rows cannot hold {height} rows")));
    }
    if metadata_len > MAX_METADATA_BYTES {
        return Err(bad(
            path,
            format!("metadata claims {metadata_len} bytes, above the limit of {MAX_METADATA_BYTES}"),
        ));
    }
    Ok(())
}

/// Splits the pixel section into its frames using the length table, checking that the table fits
/// and that the frames fill the section exactly.
fn split_frames<'a>(section: &'a [u8], band_count: u32, path: &Path) -> Result<Vec<&'a [u8]>> {
    let table_len = band_count as usize * 4;
    let (table, mut rest) = section.split_at_checked(table_len).ok_or_else(|| {
        bad(path, format!("pixel section is {} bytes, too short for {band_count} bands", section.len()))
    })?;
    // band_count × 4 bytes fit in the file, so this reservation is bounded by the file's size.
    let mut frames = Vec::with_capacity(band_count as usize);
    for (index, len) in table.chunks_exact(4).enumerate() {
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let (frame, tail) =
            rest.split_at_checked(len).ok_or_else(|| bad(path, format!("pixel band {index} runs past its section")))?;
        frames.push(frame);
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(bad(path, format!("{} unaccounted bytes in the pixel section", rest.len())));
    }
    Ok(frames)
}

/// Decompresses the metadata frame into exactly `expected` bytes (already capped by the header
/// check), refusing a frame whose own size field disagrees before reserving anything.
fn decompress_metadata(frame: &[u8], expected: u64, path: &Path) -> Result<Vec<u8>> {
    match zstd::zstd_safe::get_frame_content_size(frame) {
        Ok(Some(n)) if n == expected => {}
        Ok(Some(n)) => return Err(bad(path, format!("metadata frame holds {n} bytes, header says {expected}"))),
        Ok(None) | Err(_) => return Err(bad(path, "metadata is not a zstd frame with a known size")),
    }
    let metadata = zstd::bulk::decompress(frame, expected as usize)
        .map_err(|e| bad(path, format!("metadata is corrupt ({e})")))?;
    if metadata.len() as u64 != expected {
        return Err(bad(path, format!("metadata holds {} bytes, header says {expected}", metadata.len())));
    }
    Ok(metadata)
}

/// XXH3-64 over the whole artifact except the checksum field itself.
fn checksum(bytes: &[u8]) -> u64 {
    let mut hasher = Xxh3::new();
    hasher.update(&bytes[..CHECKSUM_AT]);
    hasher.update(&bytes[HEADER_LEN..]);
    hasher.digest()
}

/// A compressor with zstd's own worker threads off (the default), so output is deterministic.
/// The frame checksum is off too: the artifact's checksum already covers every frame.
fn new_compressor() -> std::io::Result<zstd::bulk::Compressor<'static>> {
    let mut compressor = zstd::bulk::Compressor::new(ZSTD_LEVEL)?;
    compressor.include_checksum(false)?;
    compressor.include_contentsize(true)?;
    Ok(compressor)
}

fn zstd_failed(e: std::io::Error) -> Error {
    Error::InvalidInput(format!("zstd compression failed: {e}"))
}

fn truncated_header(path: &Path, len: usize) -> Error {
    bad(path, format!("truncated: {len} bytes, the header alone needs {HEADER_LEN}"))
}

fn bad(path: &Path, detail: impl std::fmt::Display) -> Error {
    Error::BadArtifact { path: path.to_path_buf(), detail: detail.to_string() }
}

/// Recomputes the checksum of artifact-shaped bytes in place. Only for fuzzing: it lets a fuzzer's
/// mutations get past the checksum and reach the length checks and the zstd frames behind it.
#[doc(hidden)]
pub fn reseal_for_fuzzing(bytes: &mut [u8]) {
    if bytes.len() >= HEADER_LEN {
        let sum = checksum(bytes);
        bytes[CHECKSUM_AT..HEADER_LEN].copy_from_slice(&sum.to_le_bytes());
    }
}

#[cfg(test)]
mod tests;
