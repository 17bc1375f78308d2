//! The Burn `Llama` with its matmul weights kept quantized by Burn (`WeightFormat::Q8`: symmetric
//! 8-bit, one f32 scale per 32 values) against the same model in f32 and against llama.cpp
//! (fixture `smollm2_greedy.json`: greedy tokens for its 3 short chat prompts).
//!
//! Q8 rounds every weight a second time (the GGUF is Q4_1; dequantized to f32, then requantized
//! to 8 bits), so its tokens are not expected to equal f32's everywhere: the tests assert the
//! agreement measured on flex (see `docs/BENCHMARKS.md`) and a bound on the logit error.
//! Each test prints a note and passes when the model file is missing (`models/fetch.sh llm`).

mod common;

use std::time::Instant;

use inference::device::default_device;
use inference::gguf::Gguf;
use inference::llm::{BurnLm, LanguageModel};
use inference::model::llama::{Llama, LlamaConfig, WeightFormat};
use common::ids;
use serde_json::Value as Json;

const MODEL: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

fn model_bytes() -> Option<Vec<u8>> {
    common::model_bytes(MODEL)
}

fn fixture() -> Json {
    common::fixture("llm/smollm2_greedy.json")
}

fn load(bytes: &[u8], format: WeightFormat) -> BurnLm {
    let device = default_device();
    let g = Gguf::parse(bytes).unwrap();
    let cfg = LlamaConfig::from_gguf(&g).unwrap();
    let t = Instant::now();
    let model = Llama::from_gguf_with(&cfg, &g, &device, format).unwrap();
    eprintln!("{format:?}: loaded in {:.2?}, {:.1} MB of weights", t.elapsed(), model.weight_bytes() as f64 / 1e6);
    for e in model.precision_report() {
        eprintln!("  {:>3} × {:<24} {:<40} {:>10} params {:>8.1} MB", e.count, e.kind, e.precision, e.params, e.bytes as f64 / 1e6);
    }
    BurnLm::new(model, cfg, device)
}

/// Positions where `a` and `b` agree, and the length of their common prefix.
fn agreement(a: &[u32], b: &[u32]) -> (usize, usize) {
    let same = a.iter().zip(b).filter(|(x, y)| x == y).count();
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    (same, prefix)
}

/// `n` greedy tokens after `prompt`, given the logits the prompt already left (the model's cache
/// holds the prompt): one decode step per further token, no second prefill (a Q8 prefill on
/// flex costs seconds). No stop ids: llama.cpp's reference ran to n tokens.
fn greedy_from(lm: &mut BurnLm, first_logits: &[f32], n: usize) -> (Vec<u32>, f64) {
    let t = Instant::now();
    let mut out = vec![inference::llm::generate::argmax(first_logits) as u32];
    while out.len() < n {
        let logits = lm.eval(&out[out.len() - 1..], false).unwrap();
        out.push(inference::llm::generate::argmax(&logits) as u32);
    }
    (out, t.elapsed().as_secs_f64())
}

/// Greedy tokens per prompt in [`q8_weights_are_a_quarter_of_f32_and_agree_with_it`]; `PS_TOKENS`
/// overrides (the fixture has 32). Kept small: on flex, Burn 0.22 dequantizes every quantized
/// weight on every matmul (`QTensorOps::q_matmul`), so a Q8 step costs seconds here.
fn tokens(fixture_n: usize) -> usize {
    std::env::var("PS_TOKENS").ok().and_then(|v| v.parse().ok()).unwrap_or(2).min(fixture_n)
}

/// Q8 weights take about a quarter of f32's, every matmul weight is Burn-quantized, and Q8
/// agrees with f32 (both Burn on flex) and llama.cpp: free-running greedy tokens, and the logits
/// of the first token after each prompt. One test, so each model is loaded once.
#[test]
fn q8_weights_are_a_quarter_of_f32_and_agree_with_it() {
    let Some(bytes) = model_bytes() else { return };
    let mut f32lm = load(&bytes, WeightFormat::F32);
    let mut q8lm = load(&bytes, WeightFormat::Q8);
    let (f32_bytes, q8_bytes) = (f32lm.model.weight_bytes(), q8lm.model.weight_bytes());
    let ratio = f32_bytes as f64 / q8_bytes as f64;
    eprintln!("weights: f32 {:.1} MB, q8 {:.1} MB ({ratio:.2}× smaller)", f32_bytes as f64 / 1e6, q8_bytes as f64 / 1e6);
    // Packed Q8 with f32 scales is 1.125 bytes per weight; the norms stay f32.
    assert!(ratio > 3.5, "q8 weights are only {ratio:.2}× smaller than f32");
    for e in q8lm.model.precision_report() {
        if e.kind.contains("matmuls") || e.kind == "output head" {
            assert!(e.precision.starts_with("Q8S block 32"), "{} is {}", e.kind, e.precision);
        }
    }
    let fx = fixture();
    let n = tokens(fx["n_tokens"].as_u64().unwrap() as usize);
    let (mut same_f32, mut same_cpp, mut same_f32_cpp, mut total) = (0, 0, 0, 0);
    let mut prefixes = Vec::new();
    let (mut worst_diff, mut worst_rel, mut argmax_same, mut steps) = (0.0f32, 0.0f32, 0, 0);
    // The short chats only: a Q8 prefill of the fixture's ~800-token prompt costs minutes on flex.
    for case in fx["cases"].as_array().unwrap().iter().filter(|c| c["prompt_ids"].as_array().unwrap().len() < 64) {
        let prompt = ids(&case["prompt_ids"]);
        let cpp: Vec<u32> = ids(&case["greedy_ids"]).into_iter().take(n).collect();

        // Logits after the prompt.
        f32lm.truncate(0);
        q8lm.truncate(0);
        let la = f32lm.eval(&prompt, false).unwrap();
        let lb = q8lm.eval(&prompt, false).unwrap();
        let diff = la.iter().zip(&lb).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
        let spread = la.iter().cloned().fold(f32::NEG_INFINITY, f32::max) - la.iter().cloned().fold(f32::INFINITY, f32::min);
        worst_diff = worst_diff.max(diff);
        worst_rel = worst_rel.max(diff / spread);
        argmax_same += usize::from(inference::llm::generate::argmax(&la) == inference::llm::generate::argmax(&lb));
        steps += 1;

        let (a, ta) = greedy_from(&mut f32lm, &la, n);
        let (b, tb) = greedy_from(&mut q8lm, &lb, n);
        let (s, p) = agreement(&b, &a);
        let (c, pc) = agreement(&b, &cpp);
        let (fc, _) = agreement(&a, &cpp);
        eprintln!(
            "{:?}: q8 = f32 at {s}/{} positions (first {p} identical), q8 = llama.cpp at {c} (first {pc}), f32 = llama.cpp at {fc}; first-token logits differ by ≤ {diff:.3}; {:.1}s f32, {:.1}s q8\n  f32 {a:?}\n  q8  {b:?}\n  cpp {cpp:?}",
            case["user"],
            a.len(),
            ta,
            tb
        );
        same_f32 += s;
        same_cpp += c;
        same_f32_cpp += fc;
        total += a.len();
        prefixes.push(p);
    }
    eprintln!(
        "greedy ({n} per prompt): q8 = f32 at {same_f32}/{total} tokens, q8 = llama.cpp at {same_cpp}/{total}, f32 = llama.cpp at {same_f32_cpp}/{total}; identical prefixes {prefixes:?}"
    );
    eprintln!(
        "first-token logits: argmax q8 = f32 in {argmax_same}/{steps} prompts; largest |logit q8 − f32| {worst_diff:.3} ({:.2}% of the f32 logit range)",
        worst_rel * 100.0
    );
    // Measured on flex (docs/BENCHMARKS.md), asserted with a margin.
    assert!(worst_diff <= MAX_LOGIT_DIFF, "q8 logits differ from f32 by up to {worst_diff}");
    assert_eq!(argmax_same, steps, "the first token's argmax differs between q8 and f32");
    assert!(same_f32 * 100 >= total * MIN_SAME_F32_PCT, "q8 = f32 at only {same_f32}/{total} tokens");
}

/// Measured on flex (2026-11-30): largest first-token |logit q8 − f32| 1.692 over the 3 prompts
/// (4.96 % of the f32 logit range; 0.745 and 0.634 on prompts 2 and 3).
const MAX_LOGIT_DIFF: f32 = 2.5;
/// Measured: q8 = f32 at 12/12 greedy tokens (4 per prompt; 23/23 with 8 per prompt, where
/// prompt 1 stops after 7), so every token must agree (CI runs 2 per prompt: each Q8 step costs
/// ~13 s on flex).
const MIN_SAME_F32_PCT: usize = 100;
