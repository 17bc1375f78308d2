//! The Python sandbox's files, fetched after the first visit instead of with it.
//!
//! The service worker precaches the app shell a learner needs to ask (the page and the inference
//! worker); the sandbox worker's wasm (RustPython, the largest file of the site) is listed apart in
//! `lazy.json` (written by `scripts/pwa-precache.sh`: each file's path, size and sha256) and fetched here
//! when the Code view first needs it, or in the background once the course is ready, whichever
//! comes first. The request goes through the service worker, which keeps the file (cache first,
//! across app updates while its sha256 is unchanged), so the Code view works offline after.

use crate::fetch;
use serde::Deserialize;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew::Callback;

/// One file, as `lazy.json` lists it.
#[derive(Debug, Deserialize)]
pub struct LazyFile {
    pub path: String,
    pub bytes: u64,
}

/// `lazy.json`: the files fetched after the first visit, by what needs them.
#[derive(Debug, Deserialize)]
pub struct LazyList {
    pub sandbox: Vec<LazyFile>,
}

/// Where the sandbox's files stand.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Python {
    /// Not asked for yet.
    #[default]
    Idle,
    Fetching { done: u64, total: u64 },
    /// Here (or nothing to fetch): the sandbox worker can start.
    Ready,
    /// The download failed; the sandbox worker still starts and reports its own error.
    Failed(String),
}

impl Python {
    /// The worker may start: nothing left to wait for.
    pub fn settled(&self) -> bool {
        matches!(self, Python::Ready | Python::Failed(_))
    }
}

fn js_text(e: &wasm_bindgen::JsValue) -> String {
    e.as_string().unwrap_or_else(|| format!("{e:?}"))
}

/// Waits (up to `ms`) until a service worker controls the page, so the fetch below is kept in
/// its cache: a first visit is controlled only once the worker has installed and claimed it.
async fn controlled(ms: u32) {
    let Some(container) = web_sys::window().map(|w| w.navigator().service_worker()) else { return };
    let start = js_sys::Date::now();
    while container.controller().is_none() && js_sys::Date::now() - start < ms as f64 {
        yew::platform::time::sleep(std::time::Duration::from_millis(250)).await;
    }
}

/// Whether the service worker's caches already hold `url` (looked up, not read).
async fn cached(url: &str) -> bool {
    let Some(caches) = web_sys::window().and_then(|w| w.caches().ok()) else { return false };
    match JsFuture::from(caches.match_with_str(url)).await {
        Ok(found) => !found.is_undefined(),
        Err(_) => false,
    }
}

/// Reads `url` to the end, reporting bytes as they arrive.
async fn fetch_counting(url: &str, mut on_bytes: impl FnMut(u64)) -> Result<u64, String> {
    let window = web_sys::window().ok_or("no window")?;
    let resp = JsFuture::from(window.fetch_with_str(url)).await.map_err(|e| format!("cannot fetch {url}: {}", js_text(&e)))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|e| js_text(&e))?;
    if !resp.ok() {
        return Err(format!("cannot fetch {url}: HTTP {}", resp.status()));
    }
    let body = resp.body().ok_or_else(|| format!("{url} came with no body"))?;
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut n = 0u64;
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(|e| format!("the download of {url} stopped: {}", js_text(&e)))?;
        if js_sys::Reflect::get(&chunk, &"done".into()).ok().and_then(|d| d.as_bool()).unwrap_or(true) {
            return Ok(n);
        }
        let value: js_sys::Uint8Array = js_sys::Reflect::get(&chunk, &"value".into()).map_err(|e| js_text(&e))?.unchecked_into();
        n += value.length() as u64;
        on_bytes(n);
    }
}

/// Fetches the sandbox's files, reporting progress (at most ~10 times a second) and the end.
/// No `lazy.json` (a site built before it existed): nothing to fetch, the worker loads its own.
pub fn fetch_python(on_state: Callback<Python>) {
    wasm_bindgen_futures::spawn_local(async move {
        let list = match fetch::text("lazy.json").await.ok().and_then(|t| serde_json::from_str::<LazyList>(&t).ok()) {
            Some(list) => list,
            None => return on_state.emit(Python::Ready),
        };
        // Later visits: already kept by the service worker, nothing to read.
        let mut missing = Vec::new();
        for file in &list.sandbox {
            if !cached(&file.path).await {
                missing.push(file);
            }
        }
        if missing.is_empty() {
            return on_state.emit(Python::Ready);
        }
        let total: u64 = missing.iter().map(|f| f.bytes).sum();
        on_state.emit(Python::Fetching { done: 0, total });
        controlled(10_000).await;
        let mut before = 0u64;
        let mut last = 0.0;
        for file in missing {
            let got = fetch_counting(&file.path, |n| {
                let now = js_sys::Date::now();
                if now - last >= 100.0 {
                    last = now;
                    on_state.emit(Python::Fetching { done: (before + n).min(total), total });
                }
            })
            .await;
            match got {
                Ok(n) => before += n,
                Err(e) => return on_state.emit(Python::Failed(e)),
            }
        }
        on_state.emit(Python::Ready);
    });
}
