//! The in-memory image every comparator works on: tightly packed RGBA8 rows.

use crate::error::{Error, Result};

/// Largest image the engine accepts: 2^28 pixels (1 GiB of RGBA), e.g. 1280 × 209,715.
/// Checked before allocating, so a forged header cannot make us reserve memory.
pub const MAX_PIXELS: u64 = 1 << 28;

/// An 8-bit RGBA image, rows top to bottom, no padding between rows.
#[derive(Clone, PartialEq, Eq)]
pub struct RgbaImage {
    width: u32,
    height: u32,
    data: Vec<u8>,
}

impl std::fmt::Debug for RgbaImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RgbaImage({}×{})", self.width, self.height)
    }
}

/// Checks `width × height` against [`MAX_PIXELS`]; `what` names the input in the error.
pub fn check_dimensions(what: &str, width: u64, height: u64) -> Result<usize> {
    let pixels = width.saturating_mul(height);
    if pixels > MAX_PIXELS {
        return Err(Error::TooLarge { what: what.to_string(), width, height, pixels, limit: MAX_PIXELS });
    }
    Ok(pixels as usize)
}

/// Checks that `len` bytes are exactly a `width × height` RGBA image (and within the cap).
fn check_rgba_len(width: u32, height: u32, len: usize) -> Result<()> {
    let pixels = check_dimensions("image", width as u64, height as u64)?;
    if len != pixels * 4 {
        return Err(Error::InvalidInput(format!(
            "image data is {len} bytes but {width}×{height} RGBA needs {}",
            pixels * 4
        )));
    }
    Ok(())
}

/// A zeroed buffer for `len` bytes of pixels: every large image the engine creates (decoded
/// PNGs, diff images, artifacts) comes from here. Zeroed memory comes straight from the
/// allocator (calloc), so pages are first touched by the code that fills them. Huge-page advice
/// (madvise) was tried and dropped: after another large process exits, the kernel's direct
/// compaction stalled a `sightline diff` run from 130 ms to 210 ms.
pub(crate) fn pixel_buffer(len: usize) -> Vec<u8> {
    vec![0u8; len]
}

/// A borrowed RGBA8 image: the same layout as [`RgbaImage`] over someone else's bytes (a
/// Node `Buffer`, a decoded artifact), so comparing never copies its inputs.
#[derive(Clone, Copy)]
pub struct ImageRef<'a> {
    width: u32,
    height: u32,
    data: &'a [u8],
}

impl std::fmt::Debug for ImageRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ImageRef({}×{})", self.width, self.height)
    }
}

impl<'a> ImageRef<'a> {
    /// Views `data` as a `width × height` RGBA image; the length must match exactly.
    pub fn new(width: u32, height: u32, data: &'a [u8]) -> Result<Self> {
        check_rgba_len(width, height, data.len())?;
        Ok(Self { width, height, data })
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// The RGBA bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The rows `y0..y1` as an image of their own (no copy).
    pub fn rows(&self, y0: u32, y1: u32) -> ImageRef<'a> {
        let stride = self.width as usize * 4;
        ImageRef { width: self.width, height: y1 - y0, data: &self.data[y0 as usize * stride..y1 as usize * stride] }
    }

    /// One row's RGBA bytes.
    pub fn row(&self, y: u32) -> &'a [u8] {
        let stride = self.width as usize * 4;
        &self.data[y as usize * stride..(y as usize + 1) * stride]
    }
}

impl RgbaImage {
    /// A borrowed view of this image.
    pub fn view(&self) -> ImageRef<'_> {
        ImageRef { width: self.width, height: self.height, data: &self.data }
    }

    /// Wraps existing RGBA bytes; the length must be exactly `width × height × 4`.
    pub fn from_raw(width: u32, height: u32, data: Vec<u8>) -> Result<Self> {
        check_rgba_len(width, height, data.len())?;
        Ok(Self { width, height, data })
    }

    /// A new fully transparent image. Zeroed memory comes straight from the allocator, so pages
    /// that are later overwritten are not touched twice.
    pub fn transparent(width: u32, height: u32) -> Result<Self> {
        let pixels = check_dimensions("image", width as u64, height as u64)?;
        Ok(Self { width, height, data: pixel_buffer(pixels * 4) })
    }

    /// A new image filled with one RGBA colour.
    pub fn filled(width: u32, height: u32, rgba: [u8; 4]) -> Result<Self> {
        let pixels = check_dimensions("image", width as u64, height as u64)?;
        let data = rgba.repeat(pixels);
        Ok(Self { width, height, data })
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// Number of pixels.
    pub fn len(&self) -> usize {
        self.width as usize * self.height as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The RGBA bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.data
    }

    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        &mut self.data
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.data
    }

    /// One row's RGBA bytes.
    pub fn row(&self, y: u32) -> &[u8] {
        let stride = self.width as usize * 4;
        &self.data[y as usize * stride..(y as usize + 1) * stride]
    }
}
