//! Inputs onto one canvas: reading a design input within its caps, compositing over white,
//! resampling to the canonical width (768 px, aspect kept), padding the shorter image, and the
//! background colour every later step measures against.

use std::path::Path;

use crate::allowed_roots::check_allowed;
use crate::crops::Rect as CropRect;
use crate::decode::decode_image;
use crate::error::{Error, Result};
use crate::image::{Filter, RgbaImage, resize};

/// Width of the canvas both images are resampled to. Wide enough for text lines to survive,
/// small enough that every dimension runs in milliseconds.
pub const CANONICAL_WIDTH: usize = 768;
/// Longest side accepted, read from the file header before decoding.
pub const MAX_DESIGN_SIDE: u64 = 16_384;
/// Most pixels accepted (a 5000 × 10000 full-page mock-up), read from the header before decoding.
pub const MAX_DESIGN_PIXELS: u64 = 50_000_000;
/// Tallest canvas: a 1280 × 17,000 full page at 768 px wide. Taller inputs (or narrow ones that
/// grow tall when scaled up) are refused rather than allowed to take gigabytes.
pub const MAX_CANONICAL_HEIGHT: usize = 10_240;
/// Largest file read at all, from its metadata before reading.
pub const MAX_DESIGN_FILE_BYTES: u64 = 256 << 20;

/// Reads one design input: allowed-roots check, file size, header dimensions against the side
/// and pixel caps, and only then the decode.
pub fn load_design_input(path: &Path) -> Result<RgbaImage> {
    let path = check_allowed(path)?;
    let bytes_on_disk = std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?.len();
    if bytes_on_disk > MAX_DESIGN_FILE_BYTES {
        return Err(Error::FileTooLarge { path, bytes: bytes_on_disk, limit: MAX_DESIGN_FILE_BYTES });
    }
    let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    let (width, height) = header_dimensions(&bytes, &path)?;
    check_design_size(&path, width, height)?;
    decode_image(&bytes, &path)
}

/// Checks one input's size against [`MAX_DESIGN_SIDE`] and [`MAX_DESIGN_PIXELS`].
pub fn check_design_size(path: &Path, width: u64, height: u64) -> Result<()> {
    if width > MAX_DESIGN_SIDE || height > MAX_DESIGN_SIDE {
        return Err(Error::SideTooLong { path: path.to_path_buf(), width, height, limit: MAX_DESIGN_SIDE });
    }
    let pixels = width * height;
    if pixels > MAX_DESIGN_PIXELS {
        return Err(Error::TooLarge {
            what: path.display().to_string(),
            width,
            height,
            pixels,
            limit: MAX_DESIGN_PIXELS,
        });
    }
    if pixels == 0 {
        return Err(Error::BadImage { path: path.to_path_buf(), detail: "the image has no pixels".into() });
    }
    Ok(())
}

/// Width and height from a PNG's IHDR or a JPEG's frame header, without decoding pixels.
fn header_dimensions(bytes: &[u8], path: &Path) -> Result<(u64, u64)> {
    let bad = |detail: &str| Error::BadImage { path: path.to_path_buf(), detail: detail.to_string() };
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        let (width, height) = crate::decode::png_dimensions(bytes).ok_or_else(|| bad("the PNG has no IHDR header"))?;
        return Ok((width.into(), height.into()));
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        let (width, height) = crate::decode::jpeg_dimensions(bytes, path)?;
        return Ok((width.into(), height.into()));
    }
    Err(bad("neither a PNG nor a JPEG signature"))
}

/// Checks that `image` fits the canvas at [`CANONICAL_WIDTH`]; `what` names it in the error.
pub(crate) fn check_canonical_height(what: &str, image: &RgbaImage) -> Result<()> {
    let height = (f64::from(image.height()) * CANONICAL_WIDTH as f64 / f64::from(image.width())).round();
    if height > MAX_CANONICAL_HEIGHT as f64 {
        let max_source = (MAX_CANONICAL_HEIGHT as f64 * f64::from(image.width()) / CANONICAL_WIDTH as f64).floor();
        return Err(Error::InvalidInput(format!(
            "the {what} is {}×{}: scaled to {CANONICAL_WIDTH} px wide it would be {height} px tall, above {MAX_CANONICAL_HEIGHT}; crop it into parts at most {max_source} px tall",
            image.width(),
            image.height()
        )));
    }
    Ok(())
}

/// An opaque RGB image on the canonical canvas.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Plane {
    pub width: usize,
    pub height: usize,
    pub rgb: Vec<[u8; 3]>,
}

impl Plane {
    pub fn filled(width: usize, height: usize, colour: [u8; 3]) -> Self {
        Self { width, height, rgb: vec![colour; width * height] }
    }

    /// Rec. 601 luma, integer-rounded so every platform agrees to the byte.
    pub fn luma(&self) -> Vec<u8> {
        self.rgb.iter().map(|&p| luma(p)).collect()
    }

    /// Paints the rectangle `[x0, x1) × [y0, y1)` (clipped to the canvas) with one colour.
    pub fn fill_rect(&mut self, rect: Rect, colour: [u8; 3]) {
        let rect = rect.clip(self.width, self.height);
        for y in rect.y0..rect.y1 {
            self.rgb[y * self.width + rect.x0..y * self.width + rect.x1].fill(colour);
        }
    }
}

/// Rec. 601 luma of one pixel, rounded.
pub(crate) fn luma([r, g, b]: [u8; 3]) -> u8 {
    ((299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b) + 500) / 1000) as u8
}

/// A box on the canonical canvas, half-open: `[x0, x1) × [y0, y1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Rect {
    pub x0: usize,
    pub y0: usize,
    pub x1: usize,
    pub y1: usize,
}

impl Rect {
    /// Shorthand for tests that lay out blocks.
    #[cfg(test)]
    pub fn new(x0: usize, y0: usize, x1: usize, y1: usize) -> Self {
        Rect { x0, y0, x1, y1 }
    }

    pub fn width(&self) -> usize {
        self.x1.saturating_sub(self.x0)
    }

    pub fn height(&self) -> usize {
        self.y1.saturating_sub(self.y0)
    }

    pub fn area(&self) -> usize {
        self.width() * self.height()
    }

    pub fn clip(&self, width: usize, height: usize) -> Rect {
        let x0 = self.x0.min(width);
        let y0 = self.y0.min(height);
        Rect { x0, y0, x1: self.x1.clamp(x0, width), y1: self.y1.clamp(y0, height) }
    }

    /// Intersection over union; 0 for two empty boxes.
    pub fn iou(&self, other: &Rect) -> f64 {
        let ix = self.x1.min(other.x1).saturating_sub(self.x0.max(other.x0));
        let iy = self.y1.min(other.y1).saturating_sub(self.y0.max(other.y0));
        let inter = ix * iy;
        let union = self.area() + other.area() - inter;
        if union == 0 { 0.0 } else { inter as f64 / union as f64 }
    }

    pub fn union(&self, other: &Rect) -> Rect {
        Rect {
            x0: self.x0.min(other.x0),
            y0: self.y0.min(other.y0),
            x1: self.x1.max(other.x1),
            y1: self.y1.max(other.y1),
        }
    }
}

/// One input on the canonical canvas.
#[derive(Clone, Debug)]
pub(crate) struct Normalised {
    pub plane: Plane,
    /// The colour the view is drawn on (most common border colour), used for block
    /// segmentation.
    pub background: [u8; 3],
}

/// A candidate whose width is within this share of the reference's is taken at the reference's
/// scale and padded, not resampled: a scrollbar or an off-by-one viewport is not a zoom, and
/// resampling by 0.998 would blur every edge and cost more than the difference it hides.
pub const SAME_SCALE_WIDTH_TOLERANCE: f64 = 0.03;

/// `image` composited over white, so every later step sees opaque pixels.
pub(crate) fn opaque(image: &RgbaImage) -> Result<RgbaImage> {
    let composited = image.as_bytes().chunks_exact(4).flat_map(|p| over_white([p[0], p[1], p[2], p[3]])).collect();
    RgbaImage::from_raw(image.width(), image.height(), composited)
}

/// The candidate on the reference's pixel grid, and how many grid pixels one candidate pixel
/// spans: as it is when the widths are within [`SAME_SCALE_WIDTH_TOLERANCE`], else resampled to
/// the reference's width (aspect kept; a 2× export meets a 1× screenshot).
pub(crate) fn onto_reference_grid(candidate: RgbaImage, reference_width: u32) -> Result<(RgbaImage, f64)> {
    let (w, h) = (candidate.width(), candidate.height());
    let ratio = f64::from(reference_width) / f64::from(w);
    if (ratio - 1.0).abs() <= SAME_SCALE_WIDTH_TOLERANCE {
        return Ok((candidate, 1.0));
    }
    let height = ((f64::from(h) * ratio).round() as u32).max(1);
    let resampled = resize(candidate.view(), CropRect::new(0, 0, w, h), reference_width, height, Filter::Triangle)?;
    Ok((resampled, ratio))
}

/// `image` padded on the right and at the bottom to `width × height` with its own background
/// (most common border colour).
pub(crate) fn pad(image: RgbaImage, width: u32, height: u32) -> Result<RgbaImage> {
    if image.width() == width && image.height() == height {
        return Ok(image);
    }
    let [r, g, b] = most_common(ring(image.width() as usize, image.height() as usize, |i| {
        let p = &image.as_bytes()[i * 4..i * 4 + 3];
        [p[0], p[1], p[2]]
    }));
    let mut out = RgbaImage::filled(width, height, [r, g, b, 255])?;
    let (from, to) = (image.width() as usize * 4, width as usize * 4);
    for (y, row) in image.as_bytes().chunks_exact(from).enumerate() {
        out.as_bytes_mut()[y * to..y * to + from].copy_from_slice(row);
    }
    Ok(out)
}

/// An opaque grid image resampled to [`CANONICAL_WIDTH`] with a triangle filter (a downscale
/// averages every source pixel, so text does not alias; an upscale interpolates), with its
/// background.
pub(crate) fn normalise(grid: &RgbaImage) -> Result<Normalised> {
    let (w, h) = (grid.width(), grid.height());
    let scale = CANONICAL_WIDTH as f64 / f64::from(w);
    let resampled;
    let canvas = if w as usize == CANONICAL_WIDTH {
        grid
    } else {
        let height = ((f64::from(h) * scale).round() as u32).max(1);
        resampled = resize(grid.view(), CropRect::new(0, 0, w, h), CANONICAL_WIDTH as u32, height, Filter::Triangle)?;
        &resampled
    };
    let rgb = canvas.as_bytes().chunks_exact(4).map(|p| [p[0], p[1], p[2]]).collect();
    let plane = Plane { width: CANONICAL_WIDTH, height: canvas.height() as usize, rgb };
    let background = border_mode(&plane);
    Ok(Normalised { plane, background })
}

/// An RGBA pixel as seen over a white page (so opaque), rounded integer arithmetic.
fn over_white([r, g, b, a]: [u8; 4]) -> [u8; 4] {
    if a == 255 {
        return [r, g, b, a];
    }
    let a = u32::from(a);
    let blend = |c: u8| ((u32::from(c) * a + 255 * (255 - a) + 127) / 255) as u8;
    [blend(r), blend(g), blend(b), 255]
}

/// The most common colour on the outermost ring of pixels; ties go to the smaller colour value
/// so the answer never depends on iteration order.
pub(crate) fn border_mode(plane: &Plane) -> [u8; 3] {
    most_common(ring(plane.width, plane.height, |i| plane.rgb[i]))
}

/// The pixels of the outermost ring of a `width × height` image, by index.
fn ring(width: usize, height: usize, pixel: impl Fn(usize) -> [u8; 3]) -> Vec<[u8; 3]> {
    let (w, h) = (width, height);
    let mut colours: Vec<[u8; 3]> = Vec::with_capacity(2 * (w + h));
    for x in 0..w {
        colours.push(pixel(x));
        colours.push(pixel((h - 1) * w + x));
    }
    for y in 0..h {
        colours.push(pixel(y * w));
        colours.push(pixel(y * w + w - 1));
    }
    colours
}

/// The most frequent colour; ties go to the smaller colour value.
fn most_common(mut colours: Vec<[u8; 3]>) -> [u8; 3] {
    colours.sort_unstable();
    let mut best = (0usize, colours[0]);
    let mut i = 0;
    while i < colours.len() {
        let j = colours[i..].iter().position(|c| *c != colours[i]).map_or(colours.len(), |k| i + k);
        if j - i > best.0 {
            best = (j - i, colours[i]);
        }
        i = j;
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_keeps_aspect_and_flat_colours() {
        let img = RgbaImage::filled(384, 100, [40, 120, 220, 255]).unwrap();
        let n = normalise(&img).unwrap();
        assert_eq!((n.plane.width, n.plane.height), (768, 200));
        assert!(n.plane.rgb.iter().all(|&p| p == [40, 120, 220]));
        assert_eq!(n.background, [40, 120, 220]);
    }

    #[test]
    fn normalise_composites_transparency_over_white() {
        let img = RgbaImage::filled(768, 10, [0, 0, 0, 0]).unwrap();
        assert!(normalise(&opaque(&img).unwrap()).unwrap().plane.rgb.iter().all(|&p| p == [255, 255, 255]));
    }

    #[test]
    fn normalise_downscale_averages_a_checkerboard_to_grey() {
        let mut img = RgbaImage::filled(1536, 4, [0, 0, 0, 255]).unwrap();
        for (i, p) in img.as_bytes_mut().chunks_exact_mut(4).enumerate() {
            if (i % 1536 + i / 1536) % 2 == 0 {
                p.copy_from_slice(&[255, 255, 255, 255]);
            }
        }
        let n = normalise(&img).unwrap();
        assert_eq!((n.plane.width, n.plane.height), (768, 2));
        // Away from the edges every output pixel averages equal amounts of black and white.
        assert!(n.plane.rgb[10..758].iter().all(|p| (p[0] as i32 - 128).abs() <= 1), "{:?}", &n.plane.rgb[10..14]);
    }

    #[test]
    fn pad_fills_with_the_images_own_background() {
        // A 3 × 2 image whose border is mostly grey, with one dark pixel.
        let mut img = RgbaImage::filled(3, 2, [9, 9, 9, 255]).unwrap();
        img.as_bytes_mut()[..4].copy_from_slice(&[0, 0, 0, 255]);
        let padded = pad(img, 4, 3).unwrap();
        let px = |x: usize, y: usize| &padded.as_bytes()[(y * 4 + x) * 4..(y * 4 + x) * 4 + 4];
        assert_eq!((px(0, 0), px(2, 1)), (&[0, 0, 0, 255][..], &[9, 9, 9, 255][..]));
        assert_eq!((px(3, 0), px(0, 2), px(3, 2)), (&[9, 9, 9, 255][..], &[9, 9, 9, 255][..], &[9, 9, 9, 255][..]));
    }

    #[test]
    fn a_candidate_of_nearly_the_same_width_keeps_its_pixels() {
        let img = RgbaImage::filled(641, 10, [1, 2, 3, 255]).unwrap();
        let (same, ratio) = onto_reference_grid(img.clone(), 640).unwrap();
        assert_eq!((same.as_bytes(), ratio), (img.as_bytes(), 1.0));
        // Twice as wide: a 2× export, resampled onto the reference's grid.
        let (half, ratio) = onto_reference_grid(RgbaImage::filled(1280, 20, [1, 2, 3, 255]).unwrap(), 640).unwrap();
        assert_eq!((half.width(), half.height(), ratio), (640, 10, 0.5));
    }

    #[test]
    fn design_input_caps_are_checked_from_the_header() {
        let p = Path::new("big.png");
        assert!(matches!(check_design_size(p, 20_000, 10), Err(Error::SideTooLong { .. })));
        assert!(matches!(check_design_size(p, 10_000, 10_000), Err(Error::TooLarge { .. })));
        assert!(check_design_size(p, 1280, 800).is_ok());
        // A forged IHDR claiming 100000 × 100000 is refused before any pixel is decoded.
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&100_000u32.to_be_bytes());
        png.extend_from_slice(&100_000u32.to_be_bytes());
        assert_eq!(header_dimensions(&png, p).unwrap(), (100_000, 100_000));
        assert!(matches!(header_dimensions(b"GIF89a", p), Err(Error::BadImage { .. })));
        // A narrow, tall input would grow past the canvas limit when scaled up to 768 px wide.
        let narrow = RgbaImage::filled(100, 2000, [0, 0, 0, 255]).unwrap();
        let err = check_canonical_height("reference", &narrow).unwrap_err().to_string();
        assert!(err.contains("the reference is 100×2000") && err.contains("at most 1333 px tall"), "{err}");
        assert!(check_canonical_height("reference", &RgbaImage::filled(1280, 17_000, [0; 4]).unwrap()).is_ok());
    }
}
