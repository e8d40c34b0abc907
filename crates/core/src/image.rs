//! The in-memory image every comparator works on: tightly packed RGBA8 rows, and the one
//! resample ([`resize`]) every smaller or larger copy of an image goes through.

use fast_image_resize::images::{TypedImage, TypedImageRef};
use fast_image_resize::pixels::U8x4;
use fast_image_resize::{FilterType, ResizeAlg, ResizeOptions, Resizer};

use crate::crops::Rect;
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

impl Drop for RgbaImage {
    fn drop(&mut self) {
        if self.data.capacity() >= MIN_SPARE_BYTES
            && let Some(mut spares) = spares()
        {
            spares.keep(std::mem::take(&mut self.data));
        }
    }
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
///
/// In a process that keeps spare buffers ([`keep_spare_pixel_buffers`]), a dropped image's
/// buffer is taken again instead, cleared.
pub(crate) fn pixel_buffer(len: usize) -> Vec<u8> {
    (len >= MIN_SPARE_BYTES)
        .then(spares)
        .flatten()
        .and_then(|mut spares| spares.take(len))
        .unwrap_or_else(|| vec![0u8; len])
}

/// Keeps the pixel buffers of dropped images for the next images, in this process from now on.
/// For the test worker, which compares one page after another: a failing call decodes two
/// shots and draws a diff image, and a fresh buffer is mapped and zeroed by the kernel page by
/// page — a quarter of the comparison's CPU on a 1280 × 10,000 page, taken from the cores the
/// browser needs for the settling shot; clearing a kept one costs a third of that. At most
/// [`MAX_SPARE_BYTES`] are kept (a page whose images are larger keeps none); an image larger
/// than any kept gives them back to the system.
pub fn keep_spare_pixel_buffers() {
    KEEP_SPARES.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Buffers smaller than this are the allocator's to reuse.
const MIN_SPARE_BYTES: usize = 8 << 20;
/// Most bytes kept: five images of a 1280 × 10,000 page.
const MAX_SPARE_BYTES: usize = 256 << 20;

/// Whether this process keeps spare pixel buffers ([`keep_spare_pixel_buffers`] was called).
pub fn keeps_spare_pixel_buffers() -> bool {
    KEEP_SPARES.load(std::sync::atomic::Ordering::Relaxed)
}

static KEEP_SPARES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static SPARES: std::sync::Mutex<Spares> = std::sync::Mutex::new(Spares(Vec::new()));

fn spares() -> Option<std::sync::MutexGuard<'static, Spares>> {
    keeps_spare_pixel_buffers().then(|| SPARES.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
}

/// Pixel buffers of dropped images, kept for later ones.
#[derive(Debug, Default)]
struct Spares(Vec<Vec<u8>>);

impl Spares {
    /// The smallest kept buffer that holds `len` bytes, as `len` zeroes. When none does, the kept
    /// ones are given back to the system: the pages got larger.
    fn take(&mut self, len: usize) -> Option<Vec<u8>> {
        if len < MIN_SPARE_BYTES {
            return None;
        }
        let fits = (0..self.0.len()).filter(|&i| self.0[i].capacity() >= len).min_by_key(|&i| self.0[i].capacity());
        match fits {
            Some(i) => {
                let mut buffer = self.0.swap_remove(i);
                buffer.clear();
                buffer.resize(len, 0);
                Some(buffer)
            }
            None => {
                self.0.clear();
                None
            }
        }
    }

    fn keep(&mut self, buffer: Vec<u8>) {
        let kept: usize = self.0.iter().map(Vec::capacity).sum();
        if buffer.capacity() >= MIN_SPARE_BYTES && kept + buffer.capacity() <= MAX_SPARE_BYTES {
            self.0.push(buffer);
        }
    }
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

    pub fn into_bytes(mut self) -> Vec<u8> {
        let mut data = std::mem::take(&mut self.data);
        // A kept buffer may be larger than the image: the caller holds only what it needs.
        data.shrink_to_fit();
        data
    }

    /// One row's RGBA bytes.
    pub fn row(&self, y: u32) -> &[u8] {
        let stride = self.width as usize * 4;
        &self.data[y as usize * stride..(y as usize + 1) * stride]
    }
}

/// How [`resize`] weighs the source pixels behind one output pixel. Both average every source
/// pixel when shrinking, so thin text and one-pixel lines fade rather than alias away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// The mean of the source pixels the output pixel covers: a screenshot shown smaller
    /// (MCP page views and crops) keeps flat colours exact and edges sharp.
    Box,
    /// A triangle (linear) filter, widened to the scale when shrinking: smooth in both
    /// directions, so an upscaled design mock-up interpolates instead of showing blocks.
    Triangle,
}

/// `area` of `src` resampled to `width × height` with `filter`; a copy when the sizes match.
/// Pixels with alpha are averaged premultiplied, so a transparent pixel's hidden colour does not
/// bleed into its neighbours. The output size is checked against [`MAX_PIXELS`] before anything
/// is allocated; an empty or out-of-bounds `area` and a zero output size are errors.
pub fn resize(src: ImageRef<'_>, area: Rect, width: u32, height: u32, filter: Filter) -> Result<RgbaImage> {
    let fits = area.right() <= src.width() && area.bottom() <= src.height();
    if area.width == 0 || area.height == 0 || !fits {
        return Err(Error::InvalidInput(format!(
            "cannot resize the area x={} y={} {}×{} of a {}×{} image: it must be non-empty and inside the image",
            area.x,
            area.y,
            area.width,
            area.height,
            src.width(),
            src.height()
        )));
    }
    if width == 0 || height == 0 {
        return Err(Error::InvalidInput(format!(
            "cannot resize an image to {width}×{height}: both sides must be at least 1"
        )));
    }
    let mut out = RgbaImage::transparent(width, height)?;
    // Only the area's rows go to the resizer: premultiplying alpha copies its whole input.
    let rows = src.rows(area.y, area.bottom());
    let opaque = (0..rows.height())
        .all(|y| rows.row(y)[area.x as usize * 4..area.right() as usize * 4].chunks_exact(4).all(|p| p[3] == 255));
    let algorithm = ResizeAlg::Convolution(match filter {
        Filter::Box => FilterType::Box,
        Filter::Triangle => FilterType::Bilinear,
    });
    let options = ResizeOptions::new()
        .resize_alg(algorithm)
        .crop(f64::from(area.x), 0.0, f64::from(area.width), f64::from(area.height))
        .use_alpha(!opaque);
    let failed = |e: &dyn std::fmt::Display| Error::InvalidInput(format!("cannot resize an image: {e}"));
    let src_view =
        TypedImageRef::<U8x4>::from_buffer(rows.width(), rows.height(), rows.as_bytes()).map_err(|e| failed(&e))?;
    let mut dst_view = TypedImage::<U8x4>::from_buffer(width, height, out.as_bytes_mut()).map_err(|e| failed(&e))?;
    // The typed call, from this one non-generic function: fast_image_resize's dynamic API would
    // compile every pixel type into each caller.
    Resizer::new().resize_typed(&src_view, &mut dst_view, &options).map_err(|e| failed(&e))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_buffer_serves_the_next_image_that_fits_and_a_larger_one_gives_them_all_back() {
        let mb = |n: usize| n << 20;
        let mut spares = Spares::default();
        spares.keep(vec![0; mb(1)]);
        assert!(spares.0.is_empty(), "small buffers are the allocator's");
        for size in [mb(40), mb(16), mb(60), mb(100)] {
            spares.keep(Vec::with_capacity(size));
        }
        spares.keep(Vec::with_capacity(mb(41)));
        assert_eq!(spares.0.len(), 4, "never past MAX_SPARE_BYTES");
        assert_eq!(spares.take(mb(12)).map(|b| b.capacity()), Some(mb(16)), "the smallest that fits");
        // A kept buffer comes back as the image needs it: its own allocation, cleared, sized.
        let mut alone = Spares::default();
        let mut drawn = vec![0xAB; mb(40)];
        let at = drawn.as_mut_ptr();
        alone.keep(drawn);
        let again = alone.take(mb(40) - 4).unwrap();
        assert_eq!((again.as_ptr(), again.len()), (at.cast_const(), mb(40) - 4));
        assert!(again.iter().all(|&b| b == 0), "cleared");
        assert_eq!(spares.take(mb(4)), None, "a small image never takes one");
        assert_eq!(spares.take(mb(101)), None);
        assert!(spares.0.is_empty(), "a larger page than any kept: all given back");
    }

    #[test]
    fn an_image_made_from_a_kept_buffer_is_cleared() {
        keep_spare_pixel_buffers();
        let (width, height) = (1024, 3000);
        let mut drawn = RgbaImage::transparent(width, height).unwrap();
        drawn.as_bytes_mut().fill(0xAB);
        drop(drawn);
        let again = RgbaImage::transparent(width, height - 1).unwrap();
        assert_eq!(again.as_bytes().len(), (width * (height - 1) * 4) as usize);
        assert!(again.as_bytes().iter().all(|&b| b == 0));
        assert_eq!(again.into_bytes().capacity(), (width * (height - 1) * 4) as usize, "handed out at its size");
    }

    /// A `width × 1` image of grey levels.
    fn greys(levels: &[u8]) -> RgbaImage {
        let data = levels.iter().flat_map(|&v| [v, v, v, 255]).collect();
        RgbaImage::from_raw(levels.len() as u32, 1, data).unwrap()
    }

    #[test]
    fn resize_box_averages_the_pixels_each_output_pixel_covers() {
        let image = greys(&[0, 0, 255, 255, 10, 30]);
        let small = resize(image.view(), Rect::new(0, 0, 6, 1), 3, 1, Filter::Box).unwrap();
        assert_eq!(small.as_bytes(), &[0, 0, 0, 255, 255, 255, 255, 255, 20, 20, 20, 255]);
    }

    #[test]
    fn resize_copies_an_area_at_its_own_size() {
        let image = greys(&[1, 2, 3, 4, 5]);
        let cut = resize(image.view(), Rect::new(1, 0, 3, 1), 3, 1, Filter::Triangle).unwrap();
        assert_eq!(cut.as_bytes(), greys(&[2, 3, 4]).as_bytes());
    }

    #[test]
    fn resize_triangle_interpolates_an_upscale() {
        let image = greys(&[0, 200]);
        let wide = resize(image.view(), Rect::new(0, 0, 2, 1), 4, 1, Filter::Triangle).unwrap();
        let levels: Vec<u8> = wide.as_bytes().chunks_exact(4).map(|p| p[0]).collect();
        assert_eq!(levels, [0, 50, 150, 200]);
    }

    #[test]
    fn resize_averages_transparent_pixels_premultiplied() {
        // Opaque white beside transparent black: the mean is half-transparent white, not grey.
        let image = RgbaImage::from_raw(2, 1, vec![255, 255, 255, 255, 0, 0, 0, 0]).unwrap();
        let one = resize(image.view(), Rect::new(0, 0, 2, 1), 1, 1, Filter::Box).unwrap();
        assert_eq!(one.as_bytes(), &[255, 255, 255, 128]);
    }

    #[test]
    fn resize_refuses_bad_areas_and_sizes_before_allocating() {
        let image = greys(&[0, 0]);
        let full = Rect::new(0, 0, 2, 1);
        assert!(matches!(resize(image.view(), full, 1 << 20, 1 << 20, Filter::Box), Err(Error::TooLarge { .. })));
        assert!(matches!(resize(image.view(), full, 0, 1, Filter::Box), Err(Error::InvalidInput(_))));
        assert!(matches!(resize(image.view(), Rect::new(1, 0, 2, 1), 1, 1, Filter::Box), Err(Error::InvalidInput(_))));
        assert!(matches!(resize(image.view(), Rect::new(0, 0, 0, 1), 1, 1, Filter::Box), Err(Error::InvalidInput(_))));
    }
}
