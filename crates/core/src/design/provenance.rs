//! Provenance: each input's identity (the SHA-256 of its decoded pixels and its size) and the
//! keys built on them. `comparison_key` hashes the reference's identity with the resolved
//! settings (mode, weights, ignore regions, the caller's comparison context): the question being
//! asked. `run_key` adds the candidate's identity: one answer to it. File paths and whether
//! visuals were returned are deliberately left out, so moving files or asking for pictures never
//! makes two runs incomparable.

use sha2::{Digest, Sha256};
use xxhash_rust::xxh3::Xxh3;

use super::InputIdentity;
use crate::image::RgbaImage;

/// Bumped whenever a change to the scoring would make old keys compare unlike things.
/// 2: alignment on the reference's pixel grid, strips only the reference shows left out.
pub(crate) const ALGORITHM_VERSION: u32 = 2;

/// SHA-256 of the decoded RGBA pixels, with the size.
pub(crate) fn identity(image: &RgbaImage) -> InputIdentity {
    let digest = Sha256::digest(image.as_bytes());
    InputIdentity { pixel_sha256: hex(&digest), width: image.width(), height: image.height() }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn update(h: &mut Xxh3, input: &InputIdentity) {
    h.update(input.pixel_sha256.as_bytes());
    h.update(&input.width.to_le_bytes());
    h.update(&input.height.to_le_bytes());
}

/// (`comparison_key`, `run_key`) as 32 hex digits each.
pub(crate) fn keys(reference: &InputIdentity, candidate: &InputIdentity, settings: &str) -> (String, String) {
    let mut h = Xxh3::new();
    update(&mut h, reference);
    h.update(settings.as_bytes());
    let comparison = h.digest128();
    let mut h = Xxh3::new();
    h.update(&comparison.to_le_bytes());
    update(&mut h, candidate);
    (format!("{comparison:032x}"), format!("{:032x}", h.digest128()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provenance_keys_separate_the_question_from_the_answer() {
        let a = identity(&RgbaImage::filled(4, 4, [1, 2, 3, 255]).unwrap());
        let b = identity(&RgbaImage::filled(4, 4, [9, 2, 3, 255]).unwrap());
        let (ca, ra) = keys(&a, &a, "s");
        let (cb, rb) = keys(&a, &b, "s");
        assert_eq!(ca, cb, "same reference and settings: same question");
        assert_ne!(ra, rb, "different candidate: different run");
        assert_ne!(keys(&a, &a, "t").0, ca, "settings are part of the question");
        assert_eq!(ca.len(), 32);
        // Same pixels, different size: different identity.
        let c = identity(&RgbaImage::filled(2, 8, [1, 2, 3, 255]).unwrap());
        assert_eq!(c.pixel_sha256, a.pixel_sha256, "the same bytes");
        assert_ne!(keys(&c, &c, "s").0, ca);
    }

    #[test]
    fn provenance_identity_is_the_sha256_of_the_rgba_bytes() {
        // One transparent black pixel: SHA-256 of four zero bytes.
        let id = identity(&RgbaImage::filled(1, 1, [0, 0, 0, 0]).unwrap());
        assert_eq!(id.pixel_sha256, "df3f619804a92fdb4057192dc43dd748ea778adc52bc498ce80524c014b81119");
        assert_eq!((id.width, id.height), (1, 1));
    }
}
