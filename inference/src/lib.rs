//! Pathshala's answering library: course bundle, retrieval and models. No UI.
//!
//! See ARCHITECTURE.md at the repository root for the map.

pub mod agent;
pub mod bm25;
pub mod bundle;
pub mod corpus;
pub mod device;
pub mod embed;
pub mod gguf;
pub mod index;
pub mod kernels;
pub mod llm;
pub mod model;
pub mod retrieve;
#[cfg(feature = "sandbox")]
pub mod sandbox;
pub mod text;
pub mod vector;

/// Runs the module's static constructors, once: the first thing each wasm binary of the app (and
/// the test harness `tests/webgpu-llm`) does at start.
///
/// Burn's WebGPU compiler registers its parts with `inventory` (via `pliron`), that is, with
/// constructors. When nothing in a module calls `__wasm_call_ctors`, `wasm-ld` assumes a
/// "command-style" module entered once and wraps *every* export to run all constructors first:
/// each call from JavaScript into wasm (a DOM event, a closure, an externref handed over, a
/// resolved future) paid for them, about a fifth of the page's main thread while it showed a
/// download's progress. Calling it here, once, is what makes the linker leave the exports alone.
pub fn run_static_constructors() {
    #[cfg(target_family = "wasm")]
    {
        unsafe extern "C" {
            fn __wasm_call_ctors();
        }
        // SAFETY: called once per instance, before any other Rust code of the binary runs.
        unsafe { __wasm_call_ctors() }
    }
}
