//! The one place that names a backend.

pub use burn::tensor::Device;

/// Pure-Rust CPU (Burn's flex backend): works natively and in wasm, no GPU needed.
pub fn default_device() -> Device {
    Device::flex()
}

/// The default wgpu adapter (Vulkan, Metal or DX12 natively; WebGPU in the browser).
#[cfg(feature = "wgpu")]
pub fn wgpu_device() -> Device {
    Device::wgpu(burn::tensor::DeviceKind::DefaultDevice)
}
