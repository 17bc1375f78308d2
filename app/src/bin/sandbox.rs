//! The Python sandbox worker binary (loaded by `sandbox_loader.js`): see `app::sandbox`.

/// Counts the heap so a run past its budget fails its allocation (and traps the worker) instead
/// of growing wasm memory to the browser's limit.
#[global_allocator]
static ALLOC: app::sandbox::SandboxAlloc = app::sandbox::SandboxAlloc;

fn main() {
    inference::run_static_constructors();
    app::sandbox::start();
}
