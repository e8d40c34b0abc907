//! Image files in and out: PNG (any colour type and bit depth, expanded to RGBA8 as pngjs does)
//! and JPEG. Dimensions are checked against the pixel cap before a pixel buffer is allocated.

use std::io::Cursor;
use std::path::Path;

use crate::error::{Error, Result};
use crate::image::{RgbaImage, check_dimensions};

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

fn decode_png(bytes: &[u8], path: &Path) -> Result<RgbaImage> {
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    // Palette → RGB(A), low bit depths → 8, tRNS → alpha; 16-bit keeps its high byte.
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    // Our own cap below is the one that matters; lift png's default so it never fires first.
    decoder.set_limits(png::Limits { bytes: usize::MAX });
    let mut reader = decoder.read_info().map_err(|e| bad(path, e))?;
    let (width, height) = {
        let info = reader.info();
        (info.width, info.height)
    };
    let pixels = check_dimensions(&path.display().to_string(), width.into(), height.into())?;
    let (color, _) = reader.output_color_type();
    let channels = match color {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err(bad(path, "palette was not expanded")),
    };
    if channels == 4 {
        let mut data = crate::image::pixel_buffer(pixels * 4);
        let frame = reader.next_frame(&mut data).map_err(|e| bad(path, e))?;
        if frame.line_size != width as usize * 4 {
            return Err(bad(path, "unexpected row layout"));
        }
        return RgbaImage::from_raw(width, height, data);
    }
    // Expand row by row straight into the RGBA buffer: the decoded row is still in cache and
    // no second whole-image buffer is allocated.
    let mut data = crate::image::pixel_buffer(pixels * 4);
    let stride = width as usize * 4;
    for out in data.chunks_exact_mut(stride) {
        let row =
            reader.next_row().map_err(|e| bad(path, e))?.ok_or_else(|| bad(path, "fewer rows than the header says"))?;
        let row = row.data();
        if row.len() != width as usize * channels {
            return Err(bad(path, "unexpected row layout"));
        }
        match channels {
            3 => {
                rgb_to_rgba(row, out);
            }
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
    RgbaImage::from_raw(width, height, data)
}

fn decode_jpeg(bytes: &[u8], path: &Path) -> Result<RgbaImage> {
    let reader = image::ImageReader::with_format(Cursor::new(bytes), image::ImageFormat::Jpeg);
    let (width, height) = reader.into_dimensions().map_err(|e| bad(path, e))?;
    check_dimensions(&path.display().to_string(), width.into(), height.into())?;
    let decoded = image::load_from_memory_with_format(bytes, image::ImageFormat::Jpeg).map_err(|e| bad(path, e))?;
    let rgba = decoded.into_rgba8();
    RgbaImage::from_raw(width, height, rgba.into_raw())
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

/// Encodes RGBA8 as PNG. `fast` trades size for speed (diff images, temporary views).
pub fn encode_png(image: &RgbaImage, fast: bool) -> Result<Vec<u8>> {
    encode_png_with_chunk(image, fast, None)
}

/// Encodes RGBA8 as PNG with one extra ancillary chunk `(type, data)` before the pixels.
pub fn encode_png_with_chunk(image: &RgbaImage, fast: bool, chunk: Option<([u8; 4], &[u8])>) -> Result<Vec<u8>> {
    let failed = |e: png::EncodingError| Error::InvalidInput(format!("PNG encoding failed: {e}"));
    let mut out = Vec::with_capacity(image.len() / 4 + 1024);
    {
        let mut encoder = png::Encoder::new(&mut out, image.width(), image.height());
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        if fast {
            encoder.set_compression(png::Compression::Fastest);
            encoder.set_filter(png::Filter::Up);
        }
        let mut writer = encoder.write_header().map_err(failed)?;
        if let Some((kind, data)) = chunk {
            writer.write_chunk(png::chunk::ChunkType(kind), data).map_err(failed)?;
        }
        writer.write_image_data(image.as_bytes()).map_err(failed)?;
    }
    Ok(out)
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

/// Creates `dir` and its parents. A file standing where a folder belongs is reported as such,
/// not as the bare "File exists" the OS gives.
pub fn create_dir_all(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| {
        let blocked = e.kind() == std::io::ErrorKind::AlreadyExists || e.kind() == std::io::ErrorKind::NotADirectory;
        let e = if blocked { std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder") } else { e };
        Error::io(dir, e)
    })
}

/// Writes `bytes` to `path` atomically: a temp file in the same folder, then a rename, so a
/// reader (or a crash) never sees half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| Error::InvalidInput(format!("{}: not a file path", path.display())))?;
    // Unique per process *and* per call: two threads writing the same path never share a temp.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{}.{}.{n}.tmp", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}
