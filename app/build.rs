//! The sandbox worker runs RustPython, whose Python calls nest deep Rust frames: give its wasm a
//! larger shadow stack than Rust's 1 MiB default, so deep recursion ends in `RecursionError` (the
//! VM's limit), not in a trap. Only the `sandbox` binary gets it.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-bin=sandbox=-zstack-size={}", 16 << 20);
    }
    println!("cargo:rerun-if-changed=build.rs");
}
