//! Cosines between a question and a sentence of its answer under all-MiniLM-L6-v2, for
//! `tests/eval/relevance_fit.py` (is the encoder's similarity a usable relevance check?).
//!
//! `cargo run --release -p inference --example relevance_cosines -- models/cache/all-MiniLM-L6-v2 < LABELS.jsonl`
//! reads lines with `question` and `text` and prints one cosine per line.

use inference::embed::{DEFAULT_MAX_TOKENS, Role, SentenceEncoder, dot};
use std::io::BufRead;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).ok_or("usage: relevance_cosines MINILM_DIR < LABELS.jsonl")?);
    let read = |name: &str| std::fs::read(dir.join(name));
    let encoder = SentenceEncoder::load(
        "all-MiniLM-L6-v2",
        &read("config.json")?,
        &read("model.safetensors")?,
        &read("tokenizer.json")?,
        DEFAULT_MAX_TOKENS,
    )?;
    for line in std::io::stdin().lock().lines() {
        let pair: serde_json::Value = serde_json::from_str(&line?)?;
        let (question, text) = (pair["question"].as_str().ok_or("no question")?, pair["text"].as_str().ok_or("no text")?);
        let q = encoder.embed(&[question], Role::Query)?;
        let s = encoder.embed(&[text], Role::Passage)?;
        println!("{}", dot(&q[0], &s[0]));
    }
    Ok(())
}
