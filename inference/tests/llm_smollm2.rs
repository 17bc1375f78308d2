//! SmolLM2-135M-Instruct (Q4_1) against llama.cpp: tokenizer ids and 32 greedy tokens per prompt.
//!
//! Fixture from `tests/reference/llm_reference.mjs` (node-llama-cpp 3.21.1, CPU). The model is fed
//! llama.cpp's own prompt ids, so tokenizer differences cannot mix into the model comparison.
//! Each test prints a note and passes when the model file is missing (`models/fetch.sh`).

use std::time::Instant;

use inference::device::default_device;
use inference::gguf::Gguf;
use inference::llm::{ChatMessage, GenerateOptions, GgufTokenizer, Sampling, chatml_prompt, generate};
use inference::model::llama::{Llama, LlamaCache, LlamaConfig};
use serde_json::Value as Json;

const MODEL: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

fn root() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/..")
}

fn model_bytes() -> Option<Vec<u8>> {
    let path = format!("{}/models/cache/{MODEL}", root());
    match std::fs::read(&path) {
        Ok(b) => Some(b),
        Err(_) => {
            eprintln!("note: {path} is missing; skipping (run models/fetch.sh)");
            None
        }
    }
}

fn fixture() -> Json {
    let path = format!("{}/inference/tests/fixtures/llm/smollm2_greedy.json", root());
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("valid JSON")
}

fn ids(v: &Json) -> Vec<u32> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect()
}

#[test]
fn tokenizer_matches_llama_cpp() {
    let Some(bytes) = model_bytes() else { return };
    let g = Gguf::parse(&bytes).unwrap();
    let tok = GgufTokenizer::from_gguf(&g).unwrap();
    let fx = fixture();
    for id in ["<|im_start|>", "<|im_end|>", "<|endoftext|>"] {
        let t = tok.token_id(id).expect("special token in vocabulary");
        assert_eq!(tok.encode(id).unwrap(), vec![t], "{id} is one token");
    }
    let system = fx["system"].as_str().unwrap();
    for case in fx["cases"].as_array().unwrap() {
        let user = case["user"].as_str().unwrap();
        let prompt = chatml_prompt(&[ChatMessage { role: "system", content: system }, ChatMessage { role: "user", content: user }]);
        assert_eq!(prompt, case["prompt"].as_str().unwrap(), "rendered ChatML");
        assert_eq!(tok.encode(&prompt).unwrap(), ids(&case["prompt_ids"]), "prompt ids for {user:?}");
        // Decoding the reference continuation gives llama.cpp's text.
        let text = tok.decode(&ids(&case["greedy_ids"]), false).unwrap();
        assert_eq!(text, case["text"].as_str().unwrap());
    }
}

#[test]
fn greedy_matches_llama_cpp() {
    let Some(bytes) = model_bytes() else { return };
    let device = default_device();
    let g = Gguf::parse(&bytes).unwrap();
    let cfg = LlamaConfig::from_gguf(&g).unwrap();
    let tok = GgufTokenizer::from_gguf(&g).unwrap();
    let t0 = Instant::now();
    let model = Llama::from_gguf(&cfg, &g, &device).unwrap();
    eprintln!("{cfg:?}\nloaded in {:.2?}", t0.elapsed());
    let fx = fixture();
    let n = fx["n_tokens"].as_u64().unwrap() as usize;
    let mut stop_ids: Vec<u32> = tok.eos_id.into_iter().collect();
    stop_ids.extend(tok.token_id("<|im_end|>"));
    let opts = GenerateOptions { max_new_tokens: n, stop_ids, sampling: Sampling::Greedy };
    let mut cache = LlamaCache::new(&cfg);
    let mut failures = Vec::new();
    for case in fx["cases"].as_array().unwrap() {
        let prompt = ids(&case["prompt_ids"]);
        let expected = ids(&case["greedy_ids"]);
        let start = Instant::now();
        let mut first = None;
        let got = generate(&model, &mut cache, &prompt, &opts, &device, |_| {
            first.get_or_insert_with(Instant::now);
            true
        })
        .unwrap();
        let total = start.elapsed();
        let decode = first.map(|f| f.elapsed()).unwrap_or_default();
        eprintln!(
            "prompt {} tokens, {} generated in {total:.2?} (prefill+first {:.2?}; decode {:.1} tok/s)\n  ours: {:?}\n  ref:  {:?}",
            prompt.len(),
            got.len(),
            total - decode,
            (got.len().saturating_sub(1)) as f64 / decode.as_secs_f64().max(1e-9),
            tok.decode(&got, false).unwrap(),
            case["text"].as_str().unwrap(),
        );
        if got != expected {
            let at = got.iter().zip(&expected).position(|(a, b)| a != b).unwrap_or(got.len().min(expected.len()));
            failures.push(format!("{:?}: diverges at token {at}: ours {got:?}, llama.cpp {expected:?}", case["user"]));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
