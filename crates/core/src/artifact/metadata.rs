//! Rewriting a stored capture's metadata without touching its pixels: what the page was drawn
//! with (its fonts, its assets) can arrive after the capture was written, and compressing the
//! pixels again would cost as much as the capture's first write.

use std::path::Path;

use super::{
    CHECKSUM_AT, HEADER_LEN, MAX_METADATA_BYTES, bad, checksum, decompress_metadata, new_compressor, parse_header,
    truncated_header, zstd_failed,
};
use crate::error::{Error, Result};

/// Metadata length fields of the header: compressed, then decompressed.
const METADATA_LEN_AT: usize = 40;
const METADATA_RAW_LEN_AT: usize = 48;

/// `bytes` (a whole artifact, checked as [`decode_capture`](super::decode_capture) checks it)
/// with its metadata replaced by what `rewrite` makes of the current one; the pixel section is
/// kept byte for byte.
pub fn replace_metadata(
    bytes: &[u8],
    path: &Path,
    rewrite: impl FnOnce(Vec<u8>) -> Result<Vec<u8>>,
) -> Result<Vec<u8>> {
    let head: &[u8; HEADER_LEN] =
        bytes.get(..HEADER_LEN).and_then(|h| h.try_into().ok()).ok_or_else(|| truncated_header(path, bytes.len()))?;
    let header = parse_header(head, bytes.len() as u64, path)?;
    if checksum(bytes) != header.checksum {
        return Err(bad(path, "checksum mismatch"));
    }
    let pixels_end = HEADER_LEN + header.pixels_len as usize;
    let metadata = rewrite(decompress_metadata(&bytes[pixels_end..], header.public.metadata_len, path)?)?;
    if metadata.len() as u64 > MAX_METADATA_BYTES {
        return Err(Error::InvalidInput(format!(
            "capture metadata is {} bytes, above the limit of {MAX_METADATA_BYTES}",
            metadata.len()
        )));
    }
    let compressed = new_compressor().and_then(|mut c| c.compress(&metadata)).map_err(zstd_failed)?;
    let mut out = Vec::with_capacity(pixels_end + compressed.len());
    out.extend_from_slice(&bytes[..pixels_end]);
    out[METADATA_LEN_AT..METADATA_LEN_AT + 8].copy_from_slice(&(compressed.len() as u64).to_le_bytes());
    out[METADATA_RAW_LEN_AT..METADATA_RAW_LEN_AT + 8].copy_from_slice(&(metadata.len() as u64).to_le_bytes());
    out.extend_from_slice(&compressed);
    let sum = checksum(&out);
    out[CHECKSUM_AT..HEADER_LEN].copy_from_slice(&sum.to_le_bytes());
    Ok(out)
}
