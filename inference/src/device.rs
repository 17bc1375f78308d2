//! The one place that names a backend.

use burn::tensor::Device;

/// Pure-Rust CPU (Burn's flex backend): works natively and in wasm, no GPU needed.
pub fn default_device() -> Device {
    Device::flex()
}
