//! Fetching small files relative to the page, and reading the page's query string.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

fn js_err(e: wasm_bindgen::JsValue) -> String {
    e.as_string().unwrap_or_else(|| format!("{e:?}"))
}

/// GET `url` as text, revalidating with the server (the service worker falls back to its copy
/// offline); a non-2xx status is an error naming the file.
pub async fn text(url: &str) -> Result<String, String> {
    let window = web_sys::window().ok_or("no window")?;
    let init = web_sys::RequestInit::new();
    init.set_cache(web_sys::RequestCache::NoCache);
    let resp = JsFuture::from(window.fetch_with_str_and_init(url, &init)).await.map_err(|e| format!("cannot fetch {url}: {}", js_err(e)))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(js_err)?;
    if !resp.ok() {
        return Err(format!("cannot fetch {url}: HTTP {} — is the file deployed next to index.html?", resp.status()));
    }
    let text = JsFuture::from(resp.text().map_err(js_err)?).await.map_err(js_err)?;
    text.as_string().ok_or_else(|| format!("{url} is not text"))
}

pub fn query_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search).ok()?.get(name)
}
