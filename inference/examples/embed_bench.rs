//! Times the sentence encoder on a file of texts, as an index build embeds them (passages, batches
//! of 32 by length), and prints texts per second.
//!
//!     cargo run --release -p inference --example embed_bench -- ENCODER TEXTS.jsonl [FITTING.txt]
//!
//! ENCODER is MiniLM's folder (`config.json`, `model.safetensors`, `tokenizer.json`) or e5's
//! `e5-small-q4.bin`; TEXTS.jsonl has a `text` per line (`index-builder build --no-embed
//! --dump-embed-texts`). Newlines and tabs become spaces, as the C engine's driver reads its lines.
//! With FITTING.txt only the texts the encoder reads whole (no cut at its token limit) are timed,
//! and written there one per line: the equal-work input for `tests/reference/e5_throughput.c`,
//! which embeds a longer text in several windows where we cut it.

use std::time::Instant;

use inference::embed::{DEFAULT_MAX_TOKENS, Role, SentenceEncoder};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(encoder), Some(texts)) = (args.get(1), args.get(2)) else {
        return Err("usage: embed_bench ENCODER TEXTS.jsonl [FITTING.txt]".into());
    };
    let path = std::path::Path::new(encoder);
    let enc = if path.is_file() {
        SentenceEncoder::load_e5s1(&std::fs::read(path)?)?
    } else {
        let read = |name: &str| std::fs::read(path.join(name));
        SentenceEncoder::load("encoder", &read("config.json")?, &read("model.safetensors")?, &read("tokenizer.json")?, DEFAULT_MAX_TOKENS)?
    };
    let mut lines = Vec::new();
    for line in std::fs::read_to_string(texts)?.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let text = v["text"].as_str().ok_or("a line without \"text\"")?;
        lines.push(text.replace(['\n', '\t'], " "));
    }
    if let Some(out) = args.get(3) {
        // The role's prefix ("passage: ") counts toward the limit.
        let limit = enc.id().max_tokens - 4;
        let mut fitting = Vec::new();
        for t in lines {
            if enc.token_ids(&t)?.len() <= limit {
                fitting.push(t);
            }
        }
        std::fs::write(out, fitting.iter().map(|t| format!("{t}\n")).collect::<String>())?;
        lines = fitting;
    }
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let t0 = Instant::now();
    let vectors = enc.embed_many(&refs, Role::Passage, 32, |_| {})?;
    let s = t0.elapsed().as_secs_f64();
    println!("embedded {} texts in {s:.1} s ({:.2} texts/s, {} threads)", vectors.len(), vectors.len() as f64 / s, inference::kernels::threads());
    Ok(())
}
