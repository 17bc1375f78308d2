//! Finding and loading the sentence encoder: by name (`minilm`, `e5-small`), by folder or file,
//! or as a bundle records it.

use anyhow::{Context, Result};
use inference::embed::{DEFAULT_MAX_TOKENS, E5_NAME, EncoderId, SentenceEncoder};
use std::path::{Path, PathBuf};

/// Where fetched models live: `$PATHSHALA_MODELS`, else `models/cache`.
pub fn models_root() -> PathBuf {
    std::env::var_os("PATHSHALA_MODELS").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("models/cache"))
}

/// The e5 container's file name inside its folder.
const E5_FILE: &str = "e5-small-q4.bin";

/// `minilm` → `<models>/all-MiniLM-L6-v2`, `e5-small` → `<models>/e5-small`, anything else a
/// folder or file path.
pub fn resolve(spec: &str, models: Option<&Path>) -> PathBuf {
    let root = models.map(PathBuf::from).unwrap_or_else(models_root);
    match spec {
        "minilm" | "all-MiniLM-L6-v2" => root.join("all-MiniLM-L6-v2"),
        "e5-small" | "e5" | E5_NAME => root.join("e5-small"),
        path => PathBuf::from(path),
    }
}

/// The encoder a bundle was built with, looked up under `models`.
pub fn for_bundle(id: &EncoderId, models: Option<&Path>) -> Result<SentenceEncoder> {
    load(&resolve(&id.name, models))
}

/// Load an encoder from a folder (MiniLM's `config.json` + `model.safetensors` +
/// `tokenizer.json`, or e5's `e5-small-q4.bin`) or from an E5S1 file.
pub fn load(path: &Path) -> Result<SentenceEncoder> {
    let device = inference::device::default_device();
    let e5 = if path.is_file() { Some(path.to_path_buf()) } else { Some(path.join(E5_FILE)).filter(|p| p.is_file()) };
    if let Some(file) = e5 {
        let bytes = std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
        return SentenceEncoder::load_e5s1(&bytes, &device).with_context(|| format!("loading {}", file.display()));
    }
    let read = |name: &str| {
        std::fs::read(path.join(name)).with_context(|| {
            format!(
                "cannot read {} — fetch the encoders with `models/fetch.sh encoder` (MiniLM) and `models/fetch.sh e5`, or pass --encoder minilm|e5-small|DIR",
                path.join(name).display()
            )
        })
    };
    let (config, weights, tokenizer) = (read("config.json")?, read("model.safetensors")?, read("tokenizer.json")?);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "encoder".into());
    Ok(SentenceEncoder::load(&name, &config, &weights, &tokenizer, DEFAULT_MAX_TOKENS, &device)?)
}
