pub mod ask;
pub mod author;
pub mod build;
pub mod generate;
pub mod hnsw_recall;
pub mod info;
pub mod judge;
pub mod quiz;
pub mod route;
pub mod sandbox;
pub mod search;
pub mod tutor_eval;

use anyhow::{Context, Result, bail};
use inference::bundle::Bundle;
use inference::embed::SentenceEncoder;
use std::io::BufRead;
use std::path::Path;

/// A bundle and the sentence encoder it records (looked up by name under `models`, default
/// $PATHSHALA_MODELS or models/cache), as the app loads them.
pub fn bundle_and_encoder(path: &Path, models: Option<&Path>) -> Result<(Bundle, Option<SentenceEncoder>)> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read bundle {}", path.display()))?;
    let bundle = Bundle::from_bytes(&bytes)?;
    drop(bytes);
    let encoder = match &bundle.header.encoder {
        Some(id) => {
            let enc = crate::encoder::for_bundle(id, models)?;
            bundle.check_encoder(enc.id())?;
            Some(enc)
        }
        None => None,
    };
    Ok((bundle, encoder))
}

/// One question of a `--queries` file (`search`, `ask`).
#[derive(serde::Deserialize)]
pub struct QueryLine {
    pub id: serde_json::Value,
    pub question: String,
}

/// The question given on the command line (id 1), or every line of a JSONL `--queries` file.
pub fn questions(question: Option<&str>, queries: Option<&Path>) -> Result<Vec<QueryLine>> {
    match (question, queries) {
        (Some(q), None) => Ok(vec![QueryLine { id: serde_json::Value::from(1), question: q.to_string() }]),
        (None, Some(path)) => jsonl(path, "{\"id\", \"question\"}"),
        _ => bail!("give a question, or --queries FILE.jsonl"),
    }
}

/// Every non-blank line of a JSONL file; a bad line stops with its place and the `expected` shape.
pub fn jsonl<T: serde::de::DeserializeOwned>(path: &Path, expected: &str) -> Result<Vec<T>> {
    jsonl_each(path, expected)?.into_iter().map(|l| l.map_err(anyhow::Error::msg)).collect()
}

/// Every non-blank line of a JSONL file, parsed, or why not (its place, the `expected` shape and
/// the parser's words), for a run that reports a bad line and goes on.
pub fn jsonl_each<T: serde::de::DeserializeOwned>(path: &Path, expected: &str) -> Result<Vec<std::result::Result<T, String>>> {
    let f = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut out = Vec::new();
    for (n, l) in std::io::BufReader::new(f).lines().enumerate() {
        let l = l?;
        if !l.trim().is_empty() {
            out.push(serde_json::from_str(&l).map_err(|e| format!("{}:{}: expected {expected} ({e})", path.display(), n + 1)));
        }
    }
    Ok(out)
}

/// The course's chat model on the quantized CPU runtime with Ask's context, as `ask` and `route`
/// load it.
pub fn chat_session(model: &Path) -> Result<inference::llm::Session> {
    use inference::llm::{LoadOptions, Session};
    let bytes = std::fs::read(model).with_context(|| format!("cannot read {} — fetch models with `models/fetch.sh llm`", model.display()))?;
    Ok(Session::load(std::sync::Arc::new(bytes), &LoadOptions::quantized(Session::CONTEXT))?)
}
