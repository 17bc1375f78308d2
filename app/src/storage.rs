//! IndexedDB (through the `idb` crate): verified files with their versions, and the `complete`
//! record naming the one asset list whose every file is stored.
//!
//! ```text
//! database "pathshala" v1
//!   files    key: asset name → Uint8Array (the file)
//!   entries  key: asset name → JSON StoredEntry (url, bytes, sha256, version, when)
//!   meta     key: "complete" → JSON AssetList (every file of that list is stored)
//! ```
//!
//! A file and its entry are written in one transaction and only after the sha256 matched, so a
//! download that fails, a quota error or a closed tab leaves nothing half-written behind.

use crate::protocol::{AssetList, StoredEntry};
use idb::{Database, DatabaseEvent, Factory, ObjectStoreParams, TransactionMode, TransactionResult};
use wasm_bindgen::{JsCast, JsValue};

const DB_NAME: &str = "pathshala";
const DB_VERSION: u32 = 1;
const FILES: &str = "files";
const ENTRIES: &str = "entries";
const META: &str = "meta";
const COMPLETE: &str = "complete";

/// Why storing failed; `Quota` gets its own advice.
#[derive(Debug, Clone, PartialEq)]
pub enum StoreError {
    Quota,
    Other(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Quota => write!(f, "the browser's storage for this site is full (QuotaExceededError)"),
            StoreError::Other(m) => write!(f, "{m}"),
        }
    }
}

fn other(e: impl std::fmt::Display) -> StoreError {
    StoreError::Other(format!("IndexedDB: {e}"))
}

/// Maps a DOM exception to [`StoreError`].
fn from_dom(e: Option<web_sys::DomException>) -> StoreError {
    match e {
        Some(e) if e.name() == "QuotaExceededError" => StoreError::Quota,
        Some(e) => StoreError::Other(format!("IndexedDB: {}: {}", e.name(), e.message())),
        None => StoreError::Other("IndexedDB: the write was aborted".into()),
    }
}

pub struct Store {
    db: Database,
}

impl Store {
    pub async fn open() -> Result<Store, StoreError> {
        let factory = Factory::new().map_err(|_| StoreError::Other("this browser has no IndexedDB (private mode?); the app cannot keep files offline".into()))?;
        let mut req = factory.open(DB_NAME, Some(DB_VERSION)).map_err(other)?;
        req.on_upgrade_needed(|event| {
            let Ok(db) = event.database() else { return };
            let names = db.store_names();
            for store in [FILES, ENTRIES, META] {
                if !names.iter().any(|n| n == store) {
                    let _ = db.create_object_store(store, ObjectStoreParams::new());
                }
            }
        });
        let db = req.await.map_err(other)?;
        Ok(Store { db })
    }

    async fn get(&self, store: &str, key: &str) -> Result<Option<JsValue>, StoreError> {
        let tx = self.db.transaction(&[store], TransactionMode::ReadOnly).map_err(other)?;
        let value = tx.object_store(store).map_err(other)?.get(JsValue::from_str(key)).map_err(other)?.await.map_err(other)?;
        Ok(value.filter(|v| !v.is_undefined() && !v.is_null()))
    }

    async fn get_json<T: for<'de> serde::Deserialize<'de>>(&self, store: &str, key: &str) -> Result<Option<T>, StoreError> {
        Ok(self.get(store, key).await?.and_then(|v| v.as_string()).and_then(|s| serde_json::from_str(&s).ok()))
    }

    /// Every stored entry.
    pub async fn entries(&self) -> Result<Vec<StoredEntry>, StoreError> {
        let tx = self.db.transaction(&[ENTRIES], TransactionMode::ReadOnly).map_err(other)?;
        let all = tx.object_store(ENTRIES).map_err(other)?.get_all(None, None).map_err(other)?.await.map_err(other)?;
        Ok(all.into_iter().filter_map(|v| v.as_string()).filter_map(|s| serde_json::from_str(&s).ok()).collect())
    }

    pub async fn entry(&self, name: &str) -> Result<Option<StoredEntry>, StoreError> {
        self.get_json(ENTRIES, name).await
    }

    /// The stored bytes of a file (unverified: the caller checks the sha256).
    pub async fn data(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.get(FILES, name).await?.and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok()).map(|a| a.to_vec()))
    }

    /// Stores a verified file and its entry together: both or neither.
    pub async fn put(&self, entry: &StoredEntry, data: &[u8]) -> Result<(), StoreError> {
        let tx = self.db.transaction(&[FILES, ENTRIES], TransactionMode::ReadWrite).map_err(other)?;
        let key = JsValue::from_str(&entry.name);
        let bytes = js_sys::Uint8Array::from(data);
        let json = JsValue::from_str(&serde_json::to_string(entry).expect("entries serialise"));
        let issued = (|| {
            tx.object_store(FILES)?.put(&bytes, Some(&key))?;
            tx.object_store(ENTRIES)?.put(&json, Some(&key))?;
            Ok::<_, idb::Error>(())
        })();
        commit(tx, issued).await
    }

    /// Removes a file and its entry.
    pub async fn delete(&self, name: &str) -> Result<(), StoreError> {
        let tx = self.db.transaction(&[FILES, ENTRIES, META], TransactionMode::ReadWrite).map_err(other)?;
        let key = JsValue::from_str(name);
        let issued = (|| {
            tx.object_store(FILES)?.delete(key.clone())?;
            tx.object_store(ENTRIES)?.delete(key)?;
            // The set is no longer complete.
            tx.object_store(META)?.delete(JsValue::from_str(COMPLETE))?;
            Ok::<_, idb::Error>(())
        })();
        commit(tx, issued).await
    }

    /// The asset list whose every file is stored, if any.
    pub async fn complete(&self) -> Result<Option<AssetList>, StoreError> {
        self.get_json(META, COMPLETE).await
    }

    pub async fn set_complete(&self, list: &AssetList) -> Result<(), StoreError> {
        let tx = self.db.transaction(&[META], TransactionMode::ReadWrite).map_err(other)?;
        let json = JsValue::from_str(&serde_json::to_string(list).expect("lists serialise"));
        let issued = tx.object_store(META).and_then(|s| s.put(&json, Some(&JsValue::from_str(COMPLETE)))).map(drop);
        commit(tx, issued).await
    }

    /// Deletes files that `list` does not name (older versions).
    pub async fn prune(&self, list: &AssetList) -> Result<(), StoreError> {
        for e in self.entries().await? {
            if list.get(&e.name).is_none_or(|a| a.sha256 != e.sha256) {
                self.delete(&e.name).await?;
            }
        }
        self.set_complete(list).await
    }

    /// Deletes everything.
    pub async fn clear(&self) -> Result<(), StoreError> {
        let tx = self.db.transaction(&[FILES, ENTRIES, META], TransactionMode::ReadWrite).map_err(other)?;
        let issued = [FILES, ENTRIES, META].into_iter().try_for_each(|s| tx.object_store(s)?.clear().map(drop));
        commit(tx, issued).await
    }
}

/// Waits for a read-write transaction whose requests were all `issued` without awaiting any of
/// them (IndexedDB runs a transaction's requests in order): a transaction commits once the event
/// loop finds none pending, and the threaded worker resumes a future one task later than the
/// single-threaded one, too late to add the next request ("the transaction has finished").
/// Both or none: a failed request (a full quota) aborts the whole transaction.
async fn commit(tx: idb::Transaction, issued: Result<(), idb::Error>) -> Result<(), StoreError> {
    let raw: web_sys::IdbTransaction = tx.into();
    let tx = idb::Transaction::from(raw.clone());
    if let Err(e) = issued {
        let _ = raw.abort();
        return Err(if raw.error().is_some() { from_dom(raw.error()) } else { other(e) });
    }
    match tx.await {
        Ok(TransactionResult::Committed) => Ok(()),
        Ok(TransactionResult::Aborted) | Err(_) => Err(from_dom(raw.error())),
    }
}

/// Bytes used and allowed for this site (`navigator.storage.estimate()`), where available.
pub async fn estimate() -> (Option<f64>, Option<f64>) {
    let global = js_sys::global();
    let Ok(navigator) = js_sys::Reflect::get(&global, &"navigator".into()) else { return (None, None) };
    let Ok(storage) = js_sys::Reflect::get(&navigator, &"storage".into()) else { return (None, None) };
    let Ok(storage) = storage.dyn_into::<web_sys::StorageManager>() else { return (None, None) };
    let Ok(promise) = storage.estimate() else { return (None, None) };
    let Ok(est) = wasm_bindgen_futures::JsFuture::from(promise).await else { return (None, None) };
    let num = |k: &str| js_sys::Reflect::get(&est, &k.into()).ok().and_then(|v| v.as_f64());
    (num("usage"), num("quota"))
}

/// The Code view's progress, in a database of its own so the course store's schema (and any
/// worker holding it open) is untouched:
///
/// ```text
/// database "pathshala-code" v1
///   progress  key: "current" → JSON ui::code::Saved (problem, tutor session, editor, tests)
/// ```
/// Small JSON records the views keep between visits (a learner's progress), one object store
/// per kind in its own database, so clearing the course files leaves them and the storage
/// panel's Clear removes them too.
pub mod records {
    use super::{StoreError, other};
    use idb::{DatabaseEvent, Factory, ObjectStoreParams, TransactionMode};
    use wasm_bindgen::JsValue;

    /// One kind of record: its database and object store.
    #[derive(Clone, Copy)]
    pub struct Kind {
        db: &'static str,
        store: &'static str,
    }

    /// The Code view's progress (key `current`).
    pub const CODE: Kind = Kind { db: "pathshala-code", store: "progress" };
    /// Quiz results, one record per course and subtopic.
    pub const QUIZ: Kind = Kind { db: "pathshala-quiz", store: "results" };
    /// The teacher's question bank, one record per course.
    pub const AUTHOR: Kind = Kind { db: "pathshala-author", store: "bank" };
    pub const ALL: [Kind; 3] = [CODE, QUIZ, AUTHOR];

    async fn open(kind: Kind) -> Result<idb::Database, StoreError> {
        let factory = Factory::new().map_err(|_| StoreError::Other("this browser has no IndexedDB".into()))?;
        let mut req = factory.open(kind.db, Some(1)).map_err(other)?;
        req.on_upgrade_needed(move |event| {
            let Ok(db) = event.database() else { return };
            if !db.store_names().iter().any(|n| n == kind.store) {
                let _ = db.create_object_store(kind.store, ObjectStoreParams::new());
            }
        });
        req.await.map_err(other)
    }

    /// The record under `key` (JSON), if any.
    pub async fn load(kind: Kind, key: &str) -> Result<Option<String>, StoreError> {
        let db = open(kind).await?;
        let tx = db.transaction(&[kind.store], TransactionMode::ReadOnly).map_err(other)?;
        let v = tx.object_store(kind.store).map_err(other)?.get(JsValue::from_str(key)).map_err(other)?.await.map_err(other)?;
        db.close();
        Ok(v.and_then(|v| v.as_string()))
    }

    /// Every record of `kind` (JSON), in key order.
    pub async fn all(kind: Kind) -> Result<Vec<String>, StoreError> {
        let db = open(kind).await?;
        let tx = db.transaction(&[kind.store], TransactionMode::ReadOnly).map_err(other)?;
        let values = tx.object_store(kind.store).map_err(other)?.get_all(None, None).map_err(other)?.await.map_err(other)?;
        db.close();
        Ok(values.into_iter().filter_map(|v| v.as_string()).collect())
    }

    /// Forgets every record of `kind`.
    pub async fn clear(kind: Kind) -> Result<(), StoreError> {
        let db = open(kind).await?;
        let tx = db.transaction(&[kind.store], TransactionMode::ReadWrite).map_err(other)?;
        let issued = tx.object_store(kind.store).and_then(|s| s.clear()).map(drop);
        let done = super::commit(tx, issued).await;
        db.close();
        done
    }

    pub async fn save(kind: Kind, key: &str, json: &str) -> Result<(), StoreError> {
        let db = open(kind).await?;
        let tx = db.transaction(&[kind.store], TransactionMode::ReadWrite).map_err(other)?;
        let issued = tx.object_store(kind.store).and_then(|s| s.put(&JsValue::from_str(json), Some(&JsValue::from_str(key)))).map(drop);
        let done = super::commit(tx, issued).await;
        db.close();
        done
    }
}
