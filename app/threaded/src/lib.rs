//! The inference worker, threaded: `app::worker` unchanged, with the quantized matmuls and
//! attention on a pool of Web Workers that share this module's memory (`inference` built with
//! `+atomics`). Built only by `scripts/build-threaded.sh` (nightly, `+atomics`, `-Z build-std`);
//! no WebGPU in it (see app/Cargo.toml). The page starts it for the CPU runtime when it is
//! cross-origin isolated (`ui::bridge`), the single-threaded `worker` binary otherwise.

use wasm_bindgen::prelude::*;

/// `initThreadPool(n)`: `mt/worker_loader.js` calls it before [`start`].
pub use inference::kernels::init_thread_pool;

/// Installs the worker's message handler, as the `worker` binary's `main` does.
#[wasm_bindgen]
pub fn start() {
    inference::run_static_constructors();
    app::worker::start();
}
