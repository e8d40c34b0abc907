//! Provenance keys. `comparison_key` hashes the reference's decoded pixels with the resolved
//! settings (mode, weights, ignore regions, the caller's comparison context): the question being
//! asked. `run_key` adds the candidate's pixels: one answer to it. File paths and whether visuals
//! were returned are deliberately left out, so moving files or asking for pictures never makes
//! two runs incomparable.

use xxhash_rust::xxh3::Xxh3;

use crate::image::RgbaImage;

/// Bumped whenever a change to the scoring would make old keys compare unlike things.
pub(crate) const ALGORITHM_VERSION: u32 = 1;

/// XXH3-128 of an image's size and RGBA pixels.
pub(crate) fn pixel_hash(image: &RgbaImage) -> u128 {
    let mut h = Xxh3::new();
    h.update(&image.width().to_le_bytes());
    h.update(&image.height().to_le_bytes());
    h.update(image.as_bytes());
    h.digest128()
}

/// (`comparison_key`, `run_key`) as 32 hex digits each.
pub(crate) fn keys(reference: u128, candidate: u128, settings: &str) -> (String, String) {
    let mut h = Xxh3::new();
    h.update(&reference.to_le_bytes());
    h.update(settings.as_bytes());
    let comparison = h.digest128();
    let mut h = Xxh3::new();
    h.update(&comparison.to_le_bytes());
    h.update(&candidate.to_le_bytes());
    (format!("{comparison:032x}"), format!("{:032x}", h.digest128()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provenance_keys_separate_the_question_from_the_answer() {
        let a = RgbaImage::filled(4, 4, [1, 2, 3, 255]).unwrap();
        let b = RgbaImage::filled(4, 4, [9, 2, 3, 255]).unwrap();
        let (ca, ra) = keys(pixel_hash(&a), pixel_hash(&a), "s");
        let (cb, rb) = keys(pixel_hash(&a), pixel_hash(&b), "s");
        assert_eq!(ca, cb, "same reference and settings: same question");
        assert_ne!(ra, rb, "different candidate: different run");
        assert_ne!(keys(pixel_hash(&a), pixel_hash(&a), "t").0, ca, "settings are part of the question");
        assert_eq!(ca.len(), 32);
        // Same pixels, different size: different hash.
        let c = RgbaImage::filled(2, 8, [1, 2, 3, 255]).unwrap();
        assert_ne!(pixel_hash(&a), pixel_hash(&c));
    }
}
