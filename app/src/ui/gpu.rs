//! WebGPU detection: `navigator.gpu` and an adapter from `requestAdapter()`.

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
            Gpu::Available(if name.is_empty() { "adapter".into() } else { name })
        }
        _ => Gpu::Missing("no WebGPU adapter".into()),
    }
}
