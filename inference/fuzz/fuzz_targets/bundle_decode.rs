//! The bundle reader must turn any byte string into a bundle or an error, never a panic, and a
//! bundle it accepts must be usable (text, siblings, lexical and vector search) without a panic.
//!
//! Most mutations would stop at the payload's crc32, so the target first writes the right
//! checksum over whatever payload the input lays out: the fuzzer then reaches the payload decoder
//! and the validation behind it. Seed it with real bundles, with and without vectors:
//!
//!     cd inference/fuzz && ./seeds.sh
//!     RUSTC_BOOTSTRAP=1 cargo fuzz run bundle_decode corpus/bundle_decode seeds -- -max_total_time=300
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::borrow::Cow;

/// `data` with its payload checksum recomputed, where it is laid out as a bundle
/// (magic 8, version 4, header length 4, header, payload length 8, crc32 4, payload).
fn with_fixed_crc(data: &[u8]) -> Cow<'_, [u8]> {
    let Some(h) = data.get(12..16).map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize) else { return Cow::Borrowed(data) };
    let at = 16 + h;
    let Some(p) = data.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap())) else { return Cow::Borrowed(data) };
    let start = at + 12;
    let Some(payload) = usize::try_from(p).ok().and_then(|p| data.get(start..start.checked_add(p)?)) else { return Cow::Borrowed(data) };
    let mut fixed = data.to_vec();
    fixed[at + 8..at + 12].copy_from_slice(&crc32fast::hash(payload).to_le_bytes());
    Cow::Owned(fixed)
}

fuzz_target!(|data: &[u8]| {
    let Ok(bundle) = inference::bundle::Bundle::from_bytes(&with_fixed_crc(data)) else { return };
    for c in 0..bundle.chunks.len() as u32 {
        let _ = bundle.chunk_text(c);
        let _ = bundle.siblings(c);
        let _ = bundle.section_of(c);
    }
    for s in 0..bundle.sections.len() as u32 {
        let _ = bundle.heading_vector(s);
    }
    let words: Vec<String> = bundle.chunks.first().map(|c| c.text(&bundle.sections).split_whitespace().take(4).map(str::to_lowercase).collect()).unwrap_or_default();
    let _ = bundle.bm25.search(&words, 5);
    if let Some(v) = &bundle.vectors {
        let query = if v.is_empty() { vec![1.0; v.dim] } else { v.vector(0).to_vec() };
        let _ = v.search(&query, 5);
        let _ = v.search_exact(&query, 5);
    }
});
