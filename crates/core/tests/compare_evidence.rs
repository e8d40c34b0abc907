//! The pixel layer's evidence on generated pages with one planted change each: exact regions,
//! page shift and shape.

use sightline_core::RgbaImage;
use sightline_core::compare::{CompareOptions, ImageComparison, compare_images};
use sightline_core::regions::Classification;
use sightline_core::shape::Shape;
use sightline_core::shift::PageShift;

/// A page-like image: white background with rows of dark "words" (deterministic pseudo-random
/// runs), blank gaps between text lines, so rows are distinct like a real page.
pub fn page(width: u32, height: u32, seed: u64) -> RgbaImage {
    let mut img = RgbaImage::filled(width, height, [255, 255, 255, 255]).unwrap();
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    let w = width as usize;
    for y in 0..height as usize {
        // 12 px text lines with 4 px gaps
        if y % 16 >= 12 {
            continue;
        }
        let mut x = 8 + (next() % 8) as usize;
        while x + 40 < w {
            let word = 10 + (next() % 30) as usize;
            let shade = (next() % 120) as u8;
            for px in x..x + word {
                if next() % 3 != 0 {
                    let i = (y * w + px) * 4;
                    img.as_bytes_mut()[i..i + 4].copy_from_slice(&[shade, shade, shade, 255]);
                }
            }
            x += word + 6;
        }
    }
    img
}

fn fill_rect(img: &mut RgbaImage, x0: u32, y0: u32, w: u32, h: u32, rgba: [u8; 4]) {
    let width = img.width() as usize;
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            let i = (y as usize * width + x as usize) * 4;
            img.as_bytes_mut()[i..i + 4].copy_from_slice(&rgba);
        }
    }
}

fn insert_rows(img: &RgbaImage, at: u32, rows: u32, rgba: [u8; 4]) -> RgbaImage {
    let stride = img.width() as usize * 4;
    let mut data = img.as_bytes()[..at as usize * stride].to_vec();
    data.extend(rgba.repeat(img.width() as usize * rows as usize));
    data.extend_from_slice(&img.as_bytes()[at as usize * stride..]);
    RgbaImage::from_raw(img.width(), img.height() + rows, data).unwrap()
}

fn compare(a: &RgbaImage, b: &RgbaImage) -> ImageComparison {
    compare_images(a.view(), b.view(), &CompareOptions::default(), false).unwrap().0
}

#[test]
fn compare_identical_pages_match() {
    let a = page(640, 2000, 1);
    let c = compare(&a, &a.clone());
    assert!(c.matched);
    assert_eq!((c.diff_pixels, c.total_pixels), (0, 640 * 2000));
    assert!(c.regions.is_empty() && c.shift.is_none() && c.shape.is_none());
}

#[test]
fn compare_recoloured_card_is_one_concentrated_change_region() {
    let mut a = page(640, 2000, 2);
    fill_rect(&mut a, 100, 300, 200, 120, [240, 240, 250, 255]);
    let mut b = a.clone();
    fill_rect(&mut b, 100, 300, 200, 120, [200, 60, 60, 255]);
    let c = compare(&a, &b);
    assert_eq!(c.diff_pixels, 200 * 120);
    assert_eq!(c.regions.len(), 1);
    let r = &c.regions[0];
    assert_eq!((r.x, r.y, r.width, r.height, r.diff_pixels), (100, 300, 200, 120, 24_000));
    assert_eq!(r.classification, Classification::Change);
    assert_eq!(c.shape, Some(Shape::Concentrated));
    assert!(c.shift.is_none());
}

#[test]
fn compare_inserted_banner_is_a_page_shift() {
    let a = page(640, 2000, 3);
    let b = insert_rows(&a, 200, 24, [30, 90, 200, 255]);
    let c = compare(&a, &b);
    assert!(c.size_changed);
    assert_eq!(c.total_pixels, 640 * 2024);
    assert_eq!(c.shift, Some(PageShift { dy: 24, below_y: 200 }));
    // only the banner still differs once the shift is undone
    assert_eq!(c.diff_pixels_after_shift, 640 * 24);
    // Two regions hold every counted pixel: the banner's band (13 591 of its 15 360 pixels
    // count; the other 1 769, beside text edges, read as anti-aliasing: the blue is far above the
    // threshold from every shade of the page) and, below it, the whole page that moved down 24
    // rows, where 510 079 pixels differ from the pixel 24 rows above them.
    let regions: Vec<_> =
        c.regions.iter().map(|r| (r.x, r.y, r.width, r.height, r.diff_pixels, r.classification)).collect();
    assert_eq!(
        regions,
        [(0, 200, 640, 24, 13_591, Classification::Change), (0, 224, 640, 1800, 510_079, Classification::Shift)]
    );
    assert_eq!((c.diff_pixels, c.antialiased_pixels), (13_591 + 510_079, 156_283));
    assert_eq!(c.shape, Some(Shape::Large));
}

#[test]
fn compare_removed_section_shifts_content_up() {
    let a = page(640, 1500, 4);
    let stride = 640 * 4;
    let mut data = a.as_bytes()[..400 * stride].to_vec();
    data.extend_from_slice(&a.as_bytes()[448 * stride..]);
    let b = RgbaImage::from_raw(640, 1452, data).unwrap();
    let c = compare(&a, &b);
    assert_eq!(c.shift, Some(PageShift { dy: -48, below_y: 400 }));
    // the 48 rows at the bottom of the canvas exist only in the baseline
    assert_eq!(c.diff_pixels_after_shift, 640 * 48);
    // What moved up is one shift region from the seam down (x from 8: the page's text starts
    // 8-15 px in, so the first 8 columns are white on both sides); the bottom band is the
    // change, every one of its pixels counted.
    let regions: Vec<_> =
        c.regions.iter().map(|r| (r.x, r.y, r.width, r.height, r.diff_pixels, r.classification)).collect();
    assert_eq!(
        regions,
        [(8, 400, 630, 1052, 257_908, Classification::Shift), (0, 1452, 640, 48, 640 * 48, Classification::Change)]
    );
    assert_eq!((c.diff_pixels, c.antialiased_pixels), (257_908 + 640 * 48, 64_632));
    assert_eq!(c.shape, Some(Shape::Large));
}

#[test]
fn compare_different_widths_pad_the_canvas() {
    let a = RgbaImage::filled(100, 50, [255, 255, 255, 255]).unwrap();
    let b = RgbaImage::filled(120, 40, [255, 255, 255, 255]).unwrap();
    let (c, diff) = compare_images(a.view(), b.view(), &CompareOptions::default(), true).unwrap();
    assert!(c.size_changed);
    assert_eq!(c.total_pixels, 120 * 50);
    // 20 columns × 40 rows right of the baseline + 120 × 10 rows under the current image
    assert_eq!(c.diff_pixels, 20 * 40 + 120 * 10);
    let diff = diff.unwrap();
    assert_eq!((diff.width(), diff.height()), (120, 50));
    assert_eq!(&diff.as_bytes()[(10 * 120 + 110) * 4..][..4], &[255, 0, 0, 255]);
}

#[test]
fn compare_scattered_specks_are_scattered_without_regions() {
    let a = page(640, 1000, 5);
    let mut b = a.clone();
    // isolated single-pixel specks far apart: too small for a region
    for i in 0..40u32 {
        fill_rect(&mut b, 13 + (i * 97) % 600, 14 + (i * 211) % 980, 1, 1, [255, 0, 255, 255]);
    }
    let c = compare(&a, &b);
    // Each of the 40 specks differs; the 22 that land on a text edge read as anti-aliasing
    // (the baseline pixel there has the few equal neighbours of an edge), so 18 are counted.
    assert_eq!((c.diff_pixels, c.antialiased_pixels), (18, 22));
    assert!(c.regions.is_empty(), "{:?}", c.regions);
    assert_eq!(c.shape, Some(Shape::Scattered));
    // Counting anti-aliasing too, all 40 specks count: no two share a pixel, none was missed.
    let mut options = CompareOptions::default();
    options.pixel.include_aa = true;
    let c = compare_images(a.view(), b.view(), &options, false).unwrap().0;
    assert_eq!((c.diff_pixels, c.antialiased_pixels), (40, 0));
}
