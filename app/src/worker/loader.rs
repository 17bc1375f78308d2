//! Getting each asset: from IndexedDB when a verified copy is there, else downloaded with
//! progress, checked against its sha256 and only then stored.

use crate::protocol::{Asset, AssetList, Phase, Progress, Reply, StoredEntry};
use crate::storage::{Store, StoreError};
use sha2::{Digest, Sha256};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// A load that failed, with the message for the learner.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub retry: bool,
}

impl Failure {
    pub fn new(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), retry: true }
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Failure {
        Failure::new(match e {
            StoreError::Quota => quota_message(None),
            StoreError::Other(m) => format!("{m}. Press Retry; if it keeps failing, delete the saved files in Storage."),
        })
    }
}

fn quota_message(need: Option<u64>) -> String {
    let need = need.map(|b| format!(" It needs {} more.", crate::i18n::mb(b as f64))).unwrap_or_default();
    format!(
        "This browser will not store more for this site (QuotaExceededError).{need} Free some disk space or allow this site more storage, then press Retry."
    )
}

pub fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn now_ms() -> f64 {
    js_sys::global().unchecked_into::<web_sys::WorkerGlobalScope>().performance().map(|p| p.now()).unwrap_or(0.0)
}

fn js_text(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .unwrap_or_else(|| format!("{e:?}"))
}

/// Fetches the assets of one list, reporting progress through `post`.
pub struct Fetcher<'a> {
    store: &'a Store,
    list: &'a AssetList,
    post: &'a dyn Fn(Reply),
    all_done: u64,
    /// Bytes this fetcher reports progress against: the course's files, or one on-demand file.
    all_total: u64,
    /// Names that will be downloaded (no matching stored entry), for the time left.
    pending: Vec<String>,
    /// Bytes downloaded in this load.
    pub downloaded: u64,
    /// Milliseconds per step, in order.
    pub timings: Vec<(String, f64)>,
}

impl<'a> Fetcher<'a> {
    /// Checks which files must be downloaded and whether the browser has room for them.
    pub async fn new(store: &'a Store, list: &'a AssetList, post: &'a dyn Fn(Reply)) -> Result<Fetcher<'a>, Failure> {
        Self::for_assets(store, list, post, |a| !a.on_demand, list.total_bytes()).await
    }

    /// A fetcher for one on-demand file of `list` (e.g. [`names::TUTOR_LLM`]): progress counts
    /// that file only, and the room check is for it alone.
    ///
    /// [`names::TUTOR_LLM`]: crate::protocol::names::TUTOR_LLM
    pub async fn on_demand(store: &'a Store, list: &'a AssetList, name: &str, post: &'a dyn Fn(Reply)) -> Result<Fetcher<'a>, Failure> {
        let bytes = list.get(name).map_or(0, |a| a.bytes);
        Self::for_assets(store, list, post, |a| a.name == name, bytes).await
    }

    async fn for_assets(store: &'a Store, list: &'a AssetList, post: &'a dyn Fn(Reply), wanted: impl Fn(&Asset) -> bool, all_total: u64) -> Result<Fetcher<'a>, Failure> {
        let stored = store.entries().await?;
        let pending: Vec<String> = list
            .assets
            .iter()
            .filter(|a| wanted(a) && !stored.iter().any(|e| e.name == a.name && e.sha256 == a.sha256))
            .map(|a| a.name.clone())
            .collect();
        let need: u64 = list.assets.iter().filter(|a| pending.contains(&a.name)).map(|a| a.bytes).sum();
        if need > 0 {
            if let (Some(usage), Some(quota)) = crate::storage::estimate().await {
                let stale: u64 = stored.iter().filter(|e| list.get(&e.name).is_none_or(|a| a.sha256 != e.sha256)).map(|e| e.bytes).sum();
                let free = quota - usage + stale as f64;
                if (need as f64) > free {
                    return Err(Failure::new(quota_message(Some(need - free.max(0.0) as u64))));
                }
            }
        }
        Ok(Fetcher { store, list, post, all_done: 0, all_total, pending, downloaded: 0, timings: Vec::new() })
    }

    pub fn asset(&self, name: &str) -> Result<&'a Asset, Failure> {
        self.list.get(name).ok_or_else(|| Failure {
            message: format!("assets.json lists no `{name}` file; rebuild the site (scripts/demo.sh writes assets.json)"),
            retry: false,
        })
    }

    fn progress(&self, phase: Phase, asset: &Asset, done: u64, rate: f64, note: Option<String>) {
        let left: u64 = self
            .list
            .assets
            .iter()
            .filter(|a| self.pending.contains(&a.name))
            .map(|a| if a.name == asset.name { a.bytes.saturating_sub(done) } else { a.bytes })
            .sum();
        (self.post)(Reply::Progress(Progress {
            phase,
            name: asset.url.clone(),
            done,
            total: asset.bytes,
            all_done: self.all_done + done,
            all_total: self.all_total,
            rate,
            eta_s: (rate > 0.0 && phase == Phase::Downloading).then(|| left as f64 / rate),
            note,
        }));
    }

    /// Reports a preparation step (parsing, building a model) between files.
    pub fn preparing(&self, what: &str) {
        (self.post)(Reply::Progress(Progress {
            phase: Phase::Preparing,
            name: what.to_string(),
            done: 0,
            total: 0,
            all_done: self.all_done,
            all_total: self.all_total,
            rate: 0.0,
            eta_s: None,
            note: None,
        }));
    }

    /// Records how long a step took (from `t0`, a [`now_ms`] reading).
    pub fn mark(&mut self, step: impl Into<String>, t0: f64) {
        self.timings.push((step.into(), now_ms() - t0));
    }

    /// The verified bytes of asset `name`.
    pub async fn get(&mut self, name: &str) -> Result<Vec<u8>, Failure> {
        let (t0, before) = (now_ms(), self.downloaded);
        let data = self.get_inner(name).await?;
        let how = if self.downloaded > before { "download+store" } else { "read+verify" };
        self.mark(format!("{how} {name}"), t0);
        Ok(data)
    }

    async fn get_inner(&mut self, name: &str) -> Result<Vec<u8>, Failure> {
        let asset = self.asset(name)?;
        let mut note = None;
        if self.store.entry(name).await?.is_some_and(|e| e.sha256 == asset.sha256) {
            self.progress(Phase::Checking, asset, 0, 0.0, None);
            match self.store.data(name).await? {
                Some(data) if sha256_hex(&data) == asset.sha256 => {
                    self.all_done += asset.bytes;
                    return Ok(data);
                }
                _ => {
                    // Damaged or missing: drop it and download again, saying so.
                    self.store.delete(name).await?;
                    self.pending.push(name.to_string());
                    note = Some(format!("The saved copy of {} was damaged; downloading it again.", asset.url));
                }
            }
        }
        let data = self.download(asset, note).await?;
        // Storing a large file takes a while and reports nothing: say so, so a slow (or failing)
        // save is not mistaken for a download stuck near its end.
        self.preparing(&format!("saving {}", asset.url));
        let entry = StoredEntry {
            name: asset.name.clone(),
            url: asset.url.clone(),
            bytes: asset.bytes,
            sha256: asset.sha256.clone(),
            version: asset.version.clone(),
            stored_at_ms: js_sys::Date::now(),
        };
        self.store.put(&entry, &data).await.map_err(|e| match e {
            StoreError::Quota => Failure::new(quota_message(Some(asset.bytes))),
            other => Failure::from(other),
        })?;
        self.pending.retain(|p| p != name);
        self.all_done += asset.bytes;
        Ok(data)
    }

    /// Streams `asset` from the network, hashing as it arrives.
    async fn download(&mut self, asset: &Asset, note: Option<String>) -> Result<Vec<u8>, Failure> {
        let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
        let init = web_sys::RequestInit::new();
        // The copy goes to IndexedDB; keeping a second one in the HTTP cache wastes the space.
        init.set_cache(web_sys::RequestCache::NoStore);
        self.progress(Phase::Downloading, asset, 0, 0.0, note.clone());
        let unreachable = |e: JsValue| {
            Failure::new(format!(
                "Cannot download {} ({}): the site is unreachable. Connect to the internet and press Retry.",
                asset.url,
                js_text(&e)
            ))
        };
        let resp = JsFuture::from(scope.fetch_with_str_and_init(&site_url(&asset.url), &init)).await.map_err(unreachable)?;
        let resp: web_sys::Response = resp.dyn_into().map_err(unreachable)?;
        if !resp.ok() {
            return Err(Failure::new(format!(
                "Cannot download {}: HTTP {}. The site is missing a file that assets.json lists; press Retry, or tell whoever hosts the course.",
                asset.url,
                resp.status()
            )));
        }
        let body = resp.body().ok_or_else(|| Failure::new(format!("{} came with no body; press Retry", asset.url)))?;
        let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
        let mut data = Vec::with_capacity(asset.bytes as usize);
        let mut hasher = Sha256::new();
        let t0 = now_ms();
        let mut last = t0;
        loop {
            let chunk = JsFuture::from(reader.read()).await.map_err(|e| {
                Failure::new(format!(
                    "The download of {} stopped at {} of {} ({}). Nothing was saved; press Retry to download it again.",
                    asset.url,
                    crate::i18n::mb(data.len() as f64),
                    crate::i18n::mb(asset.bytes as f64),
                    js_text(&e)
                ))
            })?;
            if js_sys::Reflect::get(&chunk, &"done".into()).ok().and_then(|d| d.as_bool()).unwrap_or(true) {
                break;
            }
            let value: js_sys::Uint8Array = js_sys::Reflect::get(&chunk, &"value".into()).map_err(|e| Failure::new(js_text(&e)))?.unchecked_into();
            let start = data.len();
            let n = value.length() as usize;
            if start + n > asset.bytes as usize {
                let _ = reader.cancel();
                return Err(damaged(asset, "is larger than assets.json says"));
            }
            data.resize(start + n, 0);
            value.copy_to(&mut data[start..]);
            hasher.update(&data[start..]);
            let t = now_ms();
            if t - last >= 100.0 {
                last = t;
                let rate = data.len() as f64 / ((t - t0) / 1000.0).max(1e-3);
                self.progress(Phase::Downloading, asset, data.len() as u64, rate, note.clone());
            }
        }
        if data.len() as u64 != asset.bytes {
            return Err(Failure::new(format!(
                "The download of {} ended early at {} of {}. Nothing was saved; press Retry to download it again.",
                asset.url,
                crate::i18n::mb(data.len() as f64),
                crate::i18n::mb(asset.bytes as f64)
            )));
        }
        if hex(&hasher.finalize()) != asset.sha256 {
            return Err(damaged(asset, "does not match its sha256 in assets.json"));
        }
        self.downloaded += asset.bytes;
        Ok(data)
    }
}

fn damaged(asset: &Asset, why: &str) -> Failure {
    Failure::new(format!(
        "{} arrived damaged: it {why}. Nothing was saved; press Retry. If it happens again, the site's files and assets.json are out of step (rebuild the site).",
        asset.url
    ))
}

/// `url` (relative to the site, as assets.json lists it) for this worker's `fetch`, which resolves
/// against the worker's script: the threaded build's loader sits in `mt/` and sets
/// `PATHSHALA_SITE` to the site's root; the single-threaded worker's script is at the root.
fn site_url(url: &str) -> String {
    js_sys::Reflect::get(&js_sys::global(), &"PATHSHALA_SITE".into())
        .ok()
        .and_then(|site| site.as_string())
        .and_then(|site| web_sys::Url::new_with_base(url, &site).ok())
        .map(|u| u.href())
        .unwrap_or_else(|| url.to_string())
}
