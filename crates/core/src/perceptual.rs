//! Perceptual comparator (being written): for now the pixelmatch-compatible test at
//! Playwright's default threshold stands in.

use crate::error::Result;
use crate::pixel::{PixelDiff, PixelOptions, compare_pixels};

/// Options of the perceptual comparator.
#[derive(Debug, Clone, PartialEq)]
pub struct PerceptualOptions {
    /// Opacity of the original drawn in grey under the diff. Default 0.1.
    pub alpha: f64,
}

impl Default for PerceptualOptions {
    fn default() -> Self {
        Self { alpha: 0.1 }
    }
}

/// Compares two RGBA buffers perceptually; `output` receives the diff image.
pub fn compare_perceptual(
    img1: &[u8],
    img2: &[u8],
    width: usize,
    height: usize,
    options: &PerceptualOptions,
    output: Option<&mut [u8]>,
) -> Result<PixelDiff> {
    let pixel = PixelOptions { threshold: 0.2, alpha: options.alpha, ..PixelOptions::default() };
    compare_pixels(img1, img2, width, height, &pixel, output)
}
