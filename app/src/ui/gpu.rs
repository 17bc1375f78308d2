//! WebGPU detection: `navigator.gpu` and an adapter from `requestAdapter()`, and whether that
//! adapter is a real GPU or a software renderer (SwiftShader, llvmpipe, WARP), on which the
//! model would run far slower than on the CPU runtime.

use super::state::Gpu;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

pub async fn detect() -> Gpu {
    let Some(window) = web_sys::window() else { return Gpu::Missing("no window".into()) };
    let navigator = window.navigator();
    let get = |o: &wasm_bindgen::JsValue, k: &str| js_sys::Reflect::get(o, &k.into()).ok().filter(|v| !v.is_undefined() && !v.is_null());
    let Some(gpu) = get(&navigator, "gpu") else { return Gpu::Missing("navigator.gpu is absent".into()) };
    let Some(request) = get(&gpu, "requestAdapter").and_then(|f| f.dyn_into::<js_sys::Function>().ok()) else {
        return Gpu::Missing("requestAdapter is absent".into());
    };
    let Ok(promise) = request.call0(&gpu).and_then(|p| p.dyn_into::<js_sys::Promise>()) else {
        return Gpu::Missing("requestAdapter failed".into());
    };
    match JsFuture::from(promise).await {
        Ok(adapter) if !adapter.is_null() && !adapter.is_undefined() => {
            let info = get(&adapter, "info");
            let field = |k: &str| info.as_ref().and_then(|i| get(i, k)).and_then(|v| v.as_string()).filter(|s| !s.is_empty());
            let name = [field("vendor"), field("architecture"), field("description")].into_iter().flatten().collect::<Vec<_>>().join(" ");
            let fallback = |o: Option<&wasm_bindgen::JsValue>| o.and_then(|o| get(o, "isFallbackAdapter")).and_then(|v| v.as_bool()).unwrap_or(false);
            let software = fallback(info.as_ref()) || fallback(Some(&adapter)) || is_software(&name);
            Gpu::Available { name: if name.is_empty() { "adapter".into() } else { name }, software }
        }
        _ => Gpu::Missing("no WebGPU adapter".into()),
    }
}

/// Names of software WebGPU/Vulkan/D3D renderers as adapters report them.
pub fn is_software(adapter: &str) -> bool {
    let a = adapter.to_ascii_lowercase();
    ["swiftshader", "llvmpipe", "lavapipe", "softpipe", "microsoft basic render", "warp"].iter().any(|s| a.contains(s))
}

#[cfg(test)]
mod tests {
    #[test]
    fn software_renderers_are_recognised() {
        assert!(super::is_software("google swiftshader SwiftShader Device (Subzero)"));
        assert!(super::is_software("mesa llvmpipe (LLVM 15.0.6, 256 bits)"));
        assert!(!super::is_software("apple metal-3 Apple M2"));
        assert!(!super::is_software("nvidia ampere NVIDIA GeForce RTX 3060"));
    }
}
