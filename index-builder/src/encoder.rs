//! Finding and loading the sentence encoder from a model folder.

use anyhow::{Context, Result};
use inference::embed::{DEFAULT_MAX_TOKENS, SentenceEncoder};
use std::path::{Path, PathBuf};

/// Default encoder folder: `$PATHSHALA_MODELS/all-MiniLM-L6-v2`, else `models/cache/all-MiniLM-L6-v2`.
pub fn default_dir() -> PathBuf {
    let root = std::env::var_os("PATHSHALA_MODELS").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("models/cache"));
    root.join("all-MiniLM-L6-v2")
}

pub fn load(dir: &Path) -> Result<SentenceEncoder> {
    let read = |name: &str| {
        std::fs::read(dir.join(name)).with_context(|| {
            format!("cannot read {} — fetch the encoder with `models/fetch.sh encoder` or pass --encoder DIR", dir.join(name).display())
        })
    };
    let (config, weights, tokenizer) = (read("config.json")?, read("model.safetensors")?, read("tokenizer.json")?);
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "encoder".into());
    let device = inference::device::default_device();
    Ok(SentenceEncoder::load(&name, &config, &weights, &tokenizer, DEFAULT_MAX_TOKENS, &device)?)
}
