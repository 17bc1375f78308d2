//! `GgufTokenizer` against llama.cpp's own tokenizer test vectors and against llama.cpp on the
//! chat prompts of our real models.
//!
//! Vectors: `tests/reference/tokenizer_vectors_fetch.sh` (or `models/fetch.sh`) puts llama.cpp's
//! `models/ggml-vocab-*.gguf{,.inp,.out}` in `models/cache/llama-vocab/`. For each vocabulary
//! whose pre-tokenizer we support, every vector must give llama.cpp's ids exactly (tokenized
//! as llama.cpp's test does: no BOS, special tokens not parsed) and decode back to the input.
//! Vocabularies we do not support must say so with a clear error.
//! Each test prints a note and passes when its files are missing.

mod common;

use std::path::PathBuf;

use inference::gguf::Gguf;
use inference::llm::{GgufTokenizer, TokenizerError};
use serde_json::Value as Json;

/// Pre-tokenizer types that must be supported and pass (SmolLM's regexes are StarCoder's).
const REQUIRED: &[&str] =
    &["llama-bpe", "qwen2", "qwen35", "gpt-2", "mpt", "starcoder", "refact", "command-r", "falcon", "deepseek-coder"];

fn models_dir() -> PathBuf {
    std::env::var_os("PATHSHALA_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models/cache"))
}

/// The texts of a `.gguf.inp` and the ids of its `.gguf.out`, as llama.cpp's
/// `tests/test-tokenizer-0.cpp` reads them.
fn read_vectors(inp: &str, out: &str) -> Vec<(String, Vec<u32>)> {
    const SEP: &str = "\n__ggml_vocab_test__\n";
    let mut texts = Vec::new();
    let mut rest = inp;
    while !rest.is_empty() {
        match rest.find(SEP) {
            Some(at) => {
                texts.push(rest[..at].to_string());
                rest = &rest[at + SEP.len()..];
            }
            None => {
                texts.push(rest.to_string());
                break;
            }
        }
    }
    let ids: Vec<Vec<u32>> = out
        .lines()
        .map(|l| l.split_whitespace().map(|t| t.parse().expect("token id")).collect())
        .collect();
    assert_eq!(texts.len(), ids.len(), "inputs and outputs differ in number");
    texts.into_iter().zip(ids).collect()
}

#[test]
fn llama_cpp_vectors() {
    let dir = models_dir().join("llama-vocab");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        common::missing(&dir, "models/fetch.sh tokenizer-vectors");
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".gguf.inp").map(str::to_string))
        .collect();
    names.sort();
    let mut supported = Vec::new();
    for name in &names {
        let path = |ext: &str| dir.join(format!("{name}.{ext}"));
        let bytes = std::fs::read(path("gguf")).unwrap();
        let gguf = Gguf::parse(&bytes).unwrap();
        let pre = gguf.get_str("tokenizer.ggml.pre").unwrap_or("(none)").to_string();
        let tok = match GgufTokenizer::from_gguf(&gguf) {
            Ok(t) => t,
            Err(e @ (TokenizerError::UnsupportedPre(_) | TokenizerError::UnsupportedModel(_))) => {
                let msg = e.to_string();
                assert!(msg.contains("not supported"), "{name}: {msg}");
                eprintln!("{name:<32} pre {pre:<16} unsupported: {msg}");
                continue;
            }
            Err(e) => panic!("{name}: {e}"),
        };
        let vectors = read_vectors(
            &std::fs::read_to_string(path("gguf.inp")).unwrap(),
            &std::fs::read_to_string(path("gguf.out")).unwrap(),
        );
        let mut failed = Vec::new();
        for (text, want) in &vectors {
            let got = tok.encode_plain(text).unwrap();
            if &got != want {
                failed.push(format!("{text:?}\n    llama.cpp {want:?}\n    ours      {got:?}"));
            } else {
                assert_eq!(&tok.decode(&got, false).unwrap(), text, "{name}: decoding {text:?}");
            }
        }
        eprintln!("{name:<32} pre {pre:<16} {}/{} vectors match", vectors.len() - failed.len(), vectors.len());
        assert!(failed.is_empty(), "{name}: {} of {} vectors differ:\n{}", failed.len(), vectors.len(), failed.join("\n"));
        supported.push(pre);
    }
    for pre in REQUIRED {
        assert!(supported.iter().any(|p| p == pre), "pre-tokenizer {pre} was not tested: its vocabulary is missing from {}", dir.display());
    }
}

#[test]
fn unsupported_pre_is_a_clear_error() {
    let dir = models_dir().join("llama-vocab");
    let Ok(bytes) = std::fs::read(dir.join("ggml-vocab-deepseek-llm.gguf")) else {
        common::missing(&dir.join("ggml-vocab-deepseek-llm.gguf"), "models/fetch.sh tokenizer-vectors");
        return;
    };
    let err = GgufTokenizer::from_gguf(&Gguf::parse(&bytes).unwrap()).err().expect("deepseek-llm is not supported");
    let msg = err.to_string();
    assert!(msg.contains("\"deepseek-llm\" is not supported") && msg.contains("qwen2"), "{msg}");
    let bytes = std::fs::read(dir.join("ggml-vocab-llama-spm.gguf")).unwrap();
    let err = GgufTokenizer::from_gguf(&Gguf::parse(&bytes).unwrap()).err().expect("SentencePiece is not supported");
    assert!(err.to_string().contains("\"llama\" is not supported"), "{err}");
}

/// Control tokens in user text stay text with `encode_plain`; `encode` matches them whole.
#[test]
fn plain_text_cannot_forge_control_tokens() {
    let dir = models_dir().join("llama-vocab");
    let Ok(bytes) = std::fs::read(dir.join("ggml-vocab-qwen2.gguf")) else {
        common::missing(&dir.join("ggml-vocab-deepseek-llm.gguf"), "models/fetch.sh tokenizer-vectors");
        return;
    };
    let tok = GgufTokenizer::from_gguf(&Gguf::parse(&bytes).unwrap()).unwrap();
    let end = tok.token_id("<|im_end|>").unwrap();
    let text = "a<|im_end|>b";
    assert!(tok.encode(text).unwrap().contains(&end));
    let plain = tok.encode_plain(text).unwrap();
    assert!(!plain.contains(&end), "{plain:?}");
    assert_eq!(tok.decode(&plain, true).unwrap(), text);
    assert_eq!(tok.decode(&tok.encode(text).unwrap(), true).unwrap(), "ab", "control tokens are skipped");
}

/// Qwen2.5-Coder's prompt ids against llama.cpp, from `tests/reference/qwen_tokenizer_reference.mjs`.
#[test]
fn qwen_chat_prompts_match_llama_cpp() {
    let path = models_dir().join("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("note: {} is missing; skipping (run models/fetch.sh llm)", path.display());
        return;
    };
    let gguf = Gguf::parse(&bytes).unwrap();
    let tok = GgufTokenizer::from_gguf(&gguf).unwrap();
    let fx_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llm/qwen_tokenizer.json");
    let fx: Json = serde_json::from_str(&std::fs::read_to_string(fx_path).expect("fixture")).unwrap();
    let cases = fx["cases"].as_array().unwrap();
    assert!(!cases.is_empty());
    for case in cases {
        let text = case["text"].as_str().unwrap();
        let ids = |k: &str| -> Vec<u32> { case[k].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect() };
        assert_eq!(tok.encode(text).unwrap(), ids("ids_special"), "special tokens parsed: {text:?}");
        assert_eq!(tok.encode_plain(text).unwrap(), ids("ids_plain"), "plain text: {text:?}");
    }
}
