//! Images of different sizes are compared on one canvas: both are padded to the larger width
//! and height. Padding is transparent, and every canvas pixel outside either image is a
//! difference by definition (the diff image shows it in the diff colour).

use crate::error::Result;
use crate::image::{ImageRef, RgbaImage};

/// Copies `image` into the top-left of a transparent `width × height` canvas.
pub fn pad_to(image: ImageRef<'_>, width: u32, height: u32) -> Result<RgbaImage> {
    let mut canvas = RgbaImage::transparent(width, height)?;
    let src_stride = image.width() as usize * 4;
    let dst_stride = width as usize * 4;
    let bytes = canvas.as_bytes_mut();
    for y in 0..image.height() as usize {
        bytes[y * dst_stride..y * dst_stride + src_stride].copy_from_slice(image.row(y as u32));
    }
    Ok(canvas)
}
