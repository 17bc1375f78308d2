//! The bundle reader must turn any byte string into a bundle or an error, never a panic.
//!
//!     cd inference/fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run bundle_decode -- -max_total_time=120
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(bundle) = inference::bundle::Bundle::from_bytes(data) {
        // A bundle that validates must be usable.
        for c in 0..bundle.chunks.len() as u32 {
            let _ = bundle.chunk_text(c);
            let _ = bundle.siblings(c);
        }
    }
});
