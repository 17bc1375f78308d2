//! A cache of chunk embeddings on disk, so rebuilding a course after a small edit (or with other
//! chunking or BM25 settings) embeds only the chunks whose text changed.
//!
//! Keyed by the sha256 of the embedded text; one file per encoder (named by its sha256), in
//! `$PATHSHALA_CACHE` or `~/.cache/pathshala/embeddings/`.

use anyhow::Result;
use inference::embed::EncoderId;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::PathBuf;

pub struct EmbedCache {
    path: PathBuf,
    map: HashMap<[u8; 32], Vec<f32>>,
    dirty: bool,
}

pub fn key(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

impl EmbedCache {
    pub fn open(encoder: &EncoderId) -> Self {
        let dir = std::env::var_os("PATHSHALA_CACHE")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/pathshala")))
            .unwrap_or_else(|| PathBuf::from(".pathshala-cache"))
            .join("embeddings");
        let path = dir.join(format!("{}-{}-{}.bin", encoder.name, &encoder.sha256[..16.min(encoder.sha256.len())], encoder.max_tokens));
        // A missing or unreadable cache is just empty: it only saves time.
        let map = std::fs::read(&path)
            .ok()
            .and_then(|b| bincode::serde::decode_from_slice::<HashMap<[u8; 32], Vec<f32>>, _>(&b, bincode::config::standard()).ok())
            .map(|(m, _)| m)
            .filter(|m| m.values().all(|v| v.len() == encoder.dim))
            .unwrap_or_default();
        EmbedCache { path, map, dirty: false }
    }

    pub fn get(&self, text: &str) -> Option<&Vec<f32>> {
        self.map.get(&key(text))
    }

    pub fn insert(&mut self, text: &str, v: Vec<f32>) {
        self.map.insert(key(text), v);
        self.dirty = true;
    }

    pub fn save(&self) -> Result<()> {
        if !self.dirty {
            return Ok(());
        }
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let bytes = bincode::serde::encode_to_vec(&self.map, bincode::config::standard())?;
        let tmp = self.path.with_extension("tmp");
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, &self.path)?;
        Ok(())
    }
}
