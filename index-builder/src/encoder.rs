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

/// The sha256 of the weights `models/fetch.sh` fetches into each named folder (the same values
/// as there), with the command that fetches them again.
const FETCHED: &[(&str, &str, &str)] = &[
    ("e5-small", "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f", "models/fetch.sh e5"),
    ("all-MiniLM-L6-v2", "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db", "models/fetch.sh encoder"),
];

/// A fetched encoder's weights (`folder` is where they were read from) must be the bytes
/// `models/fetch.sh` checked: a cached copy that differs is corrupt or truncated, and is refused
/// before it embeds anything. Other folders are the user's own encoders and are not checked.
fn check_fetched(folder: &Path, encoder: &SentenceEncoder) -> Result<()> {
    let name = folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let got = &encoder.id().sha256;
    match FETCHED.iter().find(|(f, _, _)| *f == name) {
        Some((_, want, fetch)) if got != want => {
            anyhow::bail!("{} does not match its sha256 (got {}…, want {}…): the file is corrupt or truncated; fetch it again with `{fetch}`", folder.display(), &got[..12], &want[..12])
        }
        _ => Ok(()),
    }
}

/// Load an encoder from a folder (MiniLM's `config.json` + `model.safetensors` +
/// `tokenizer.json`, or e5's `e5-small-q4.bin`) or from an E5S1 file; the weights of a folder
/// `models/fetch.sh` fills are checked by sha256.
pub fn load(path: &Path) -> Result<SentenceEncoder> {
    let e5 = if path.is_file() { Some(path.to_path_buf()) } else { Some(path.join(E5_FILE)).filter(|p| p.is_file()) };
    if let Some(file) = e5 {
        let bytes = std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
        let encoder = SentenceEncoder::load_e5s1(&bytes).with_context(|| format!("loading {}", file.display()))?;
        if file.file_name().is_some_and(|n| n == E5_FILE) {
            check_fetched(file.parent().unwrap_or(Path::new("")), &encoder)?;
        }
        return Ok(encoder);
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
    let encoder = SentenceEncoder::load(&name, &config, &weights, &tokenizer, DEFAULT_MAX_TOKENS)?;
    check_fetched(path, &encoder)?;
    Ok(encoder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corrupt_cached_encoder_is_refused_before_use() {
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/cache");
        let good = resolve("e5-small", Some(&models)).join(E5_FILE);
        let mut bytes = std::fs::read(&good).unwrap_or_else(|e| panic!("{}: {e} (fetch it with models/fetch.sh e5)", good.display()));
        assert!(load(&good).is_ok(), "the fetched file loads");
        // One weight byte changed: the container still parses, the sha256 does not match.
        let dir = std::env::temp_dir().join(format!("pathshala-encoder-test-{}", std::process::id())).join("e5-small");
        std::fs::create_dir_all(&dir).unwrap();
        let at = bytes.len() - 1000;
        bytes[at] ^= 0x40;
        std::fs::write(dir.join(E5_FILE), &bytes).unwrap();
        let err = load(&dir).err().expect("a changed file is refused").to_string();
        std::fs::remove_dir_all(dir.parent().unwrap()).ok();
        assert!(err.contains("does not match its sha256") && err.contains("models/fetch.sh e5"), "{err}");
    }
}
