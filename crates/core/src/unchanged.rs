//! An unchanged page, decided from the browser's bytes. Chromium encodes the same pixels to the
//! same PNG bytes, so a shot whose bytes (and painted mask) hash as the baseline's shot did is
//! the baseline's page: it passes without decoding either image, comparing them or walking the
//! page's DOM, and the run keeps the browser's PNG as its capture. Any other shot — other bytes,
//! a baseline without a key (approved before keys, or copied in by hand), an asset that failed —
//! is decoded and compared as always, so a key can only ever save work, never decide a change.
//! `capture::record_capture` asks for the key first.

use xxhash_rust::xxh3::Xxh3;

use crate::dom::DomSnapshot;
use crate::health::HealthReason;

/// What makes a stored capture's pixels: the browser's PNG bytes and the mask painted over them
/// (its boxes in device pixels and its colour), as 32 hex digits of XXH3-128.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShotKey(String);

impl ShotKey {
    /// The key of the capture made from the browser's `png` of the page `dom` records (masked
    /// boxes painted with `mask_color`); `None` when `png` is not a PNG.
    pub fn of(png: &[u8], dom: Option<&DomSnapshot>, mask_color: [u8; 4]) -> Option<Self> {
        let (width, height) = crate::decode::png_dimensions(png)?;
        let mut hasher = Xxh3::new();
        hasher.update(png);
        let painted = dom.map(|dom| crate::mask::painted_boxes(dom, width, height)).unwrap_or_default();
        // Nothing painted: the key is the bytes' alone, so a masked call whose mask covered
        // nothing keys as an unmasked one.
        if !painted.is_empty() {
            hasher.update(&mask_color);
            for edge in painted.iter().flatten() {
                hasher.update(&edge.to_le_bytes());
            }
        }
        Some(Self(format!("{:032x}", hasher.digest128())))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// Whether a capture with these failures and DOM record is keyed: only a healthy one, so a
/// baseline's key also says its capture was healthy.
pub fn healthy(failures: &[HealthReason], dom: Option<&DomSnapshot>) -> bool {
    failures.is_empty() && dom.is_none_or(|dom| crate::health::reasons_from_dom(dom).is_empty())
}
