//! The quantized CPU runtime (`CpuLm`) against llama.cpp: greedy tokens must be identical.
//!
//! Fixtures: `inference/tests/fixtures/llm/*_greedy.json`, made by `tests/reference/llm_reference.mjs`
//! (node-llama-cpp 3.21.1, llama.cpp's prebuilt x86 CPU backend, AVX512 variant, flash attention,
//! 2 threads). The model reads llama.cpp's own prompt ids, so tokenizer differences cannot mix
//! into the comparison. `CpuLm` reproduces that backend's arithmetic bit for bit (every tensor of
//! a forward pass equals llama.cpp's; `tests/reference/llama_dump` compares them), so no
//! tolerance is allowed. A missing model file fails the test (`models/fetch.sh llm` fetches
//! them) unless `PATHSHALA_SKIP_MISSING_MODELS=1` asks to skip.

mod common;

use std::sync::Arc;
use std::time::Instant;

use inference::gguf::Gguf;
use inference::llm::chat::{ChatMessage, ChatTemplate};
use inference::llm::{CpuLm, GenerateOptions, LanguageModel, QuantDecoder, generate};
use serde_json::Value as Json;

fn root() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/..")
}

fn load(file: &str) -> Option<Arc<QuantDecoder>> {
    // A missing model fails the test unless PATHSHALA_SKIP_MISSING_MODELS=1 (tests/common).
    let bytes = if file.starts_with('/') { std::fs::read(file).unwrap_or_else(|e| panic!("{file}: {e}")) } else { common::model_bytes(file)? };
    let t = Instant::now();
    let model = QuantDecoder::load(Arc::new(bytes)).unwrap();
    eprintln!("{file}: loaded in {:.2?}; {:?}", t.elapsed(), model.precision_report());
    Some(Arc::new(model))
}

fn ids(v: &Json) -> Vec<u32> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect()
}

/// Greedy continuation of every fixture prompt (three short chats and one ~700-token prompt,
/// which takes the batched paths: GEMM-ordered matmuls, tiled flash attention); returns (exact matches, report of mismatches).
/// Each fixture prompt must also be what the model's own chat template renders.
fn check_greedy(file: &str, model: Arc<QuantDecoder>, fixture: &str) -> (usize, Vec<String>) {
    let path = format!("{}/inference/tests/fixtures/llm/{fixture}", root());
    let fx: Json = serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).unwrap();
    let n = fx["n_tokens"].as_u64().unwrap() as usize;
    let bytes = std::fs::read(format!("{}/models/cache/{file}", root())).unwrap();
    let template = ChatTemplate::from_gguf(&Gguf::parse(&bytes).unwrap()).unwrap();
    let system = fx["system"].as_str().unwrap();
    let mut lm = CpuLm::new(model, 1024);
    let mut bad = Vec::new();
    let mut exact = 0;
    for case in fx["cases"].as_array().unwrap() {
        let messages = [ChatMessage { role: "system", content: system }, ChatMessage { role: "user", content: case["user"].as_str().unwrap() }];
        assert_eq!(template.render(&messages, true).unwrap(), case["prompt"].as_str().unwrap(), "fixture prompt = the model's chat template");
        let prompt = ids(&case["prompt_ids"]);
        let expected = ids(&case["greedy_ids"]);
        // No stop ids: llama.cpp's reference ran to n tokens, or stopped at an end token it emitted.
        let opts = GenerateOptions { max_new_tokens: expected.len().min(n), ..Default::default() };
        lm.truncate(0);
        let t = Instant::now();
        let got = generate(&mut lm, &prompt, &opts, |_| true).unwrap();
        eprintln!("{:?}: {} prompt + {} tokens in {:.2?}", case["user"].as_str().unwrap_or(""), prompt.len(), got.len(), t.elapsed());
        if got == expected {
            exact += 1;
            continue;
        }
        // Where the runs part, and by how much our logits prefer our token (diagnostic).
        let at = got.iter().zip(&expected).position(|(a, b)| a != b).unwrap_or(got.len().min(expected.len()));
        let mut ctx = prompt.clone();
        ctx.extend_from_slice(&expected[..at]);
        lm.truncate(0);
        let logits = lm.eval(&ctx, false).unwrap();
        let gap = match (got.get(at), expected.get(at)) {
            (Some(&o), Some(&w)) => logits[o as usize] - logits[w as usize],
            _ => f32::INFINITY,
        };
        bad.push(format!("{:?} diverges at token {at} (gap {gap:.3} logits)\n  ours      {got:?}\n  llama.cpp {expected:?}", case["user"]));
    }
    (exact, bad)
}

#[test]
fn smollm2_greedy_tokens_equal_llama_cpp() {
    let file = "SmolLM2-135M-Instruct.Q4_1.gguf";
    let Some(model) = load(file) else { return };
    let (exact, bad) = check_greedy(file, model, "smollm2_greedy.json");
    eprintln!("{exact} prompts identical to llama.cpp");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Qwen2.5-Coder: Q4_K (repacked by llama.cpp), Q6_K, Q5_0 and Q8_0 weights, biases, NeoX RoPE.
#[test]
fn qwen_greedy_tokens_equal_llama_cpp() {
    let file = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf";
    let Some(model) = load(file) else { return };
    let (exact, bad) = check_greedy(file, model, "qwen_greedy.json");
    eprintln!("{exact} prompts identical to llama.cpp");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Prefill in one batch and token by token give the same logits (batched matmuls and both
/// attention paths agree), and truncating the cache replays exactly.
#[test]
fn batched_prefill_equals_stepwise_and_truncate_replays() {
    let Some(model) = load("SmolLM2-135M-Instruct.Q4_1.gguf") else { return };
    let prompt: Vec<u32> = (0..12).map(|i| 100 + i * 37).collect();
    let mut lm = CpuLm::new(model, 256);
    let batch = lm.eval(&prompt, true).unwrap();
    let vocab = lm.vocab_size();
    lm.truncate(0);
    for (i, &t) in prompt.iter().enumerate() {
        let step = lm.eval(&[t], false).unwrap();
        let row = &batch[i * vocab..(i + 1) * vocab];
        let worst = step.iter().zip(row).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(worst < 1e-3, "position {i}: batched and stepwise logits differ by {worst}");
    }
    lm.truncate(5);
    let again = lm.eval(&prompt[5..6], false).unwrap();
    assert_eq!(again, batch[5 * vocab..6 * vocab].to_vec(), "replay after truncate");
}

/// Diagnostic: our first-token probabilities next to llama.cpp's (fixture `first_top5`).
#[test]
#[ignore]
fn first_token_probabilities() {
    let Some(model) = load("SmolLM2-135M-Instruct.Q4_1.gguf") else { return };
    let path = format!("{}/inference/tests/fixtures/llm/smollm2_greedy.json", root());
    let fx: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut lm: Box<dyn LanguageModel> = if std::env::var("PS_BURN").is_ok() {
        use inference::gguf::Gguf;
        use inference::model::llama::{Llama, LlamaConfig};
        let bytes = std::fs::read(format!("{}/models/cache/SmolLM2-135M-Instruct.Q4_1.gguf", root())).unwrap();
        let g = Gguf::parse(&bytes).unwrap();
        let cfg = LlamaConfig::from_gguf(&g).unwrap();
        let device = inference::device::default_device();
        Box::new(inference::llm::BurnLm::new(Llama::from_gguf(&cfg, &g, &device).unwrap(), cfg, device))
    } else {
        Box::new(CpuLm::new(model, 512))
    };
    for case in fx["cases"].as_array().unwrap() {
        lm.truncate(0);
        let logits = lm.eval(&ids(&case["prompt_ids"]), false).unwrap();
        let m = logits.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let z: f64 = logits.iter().map(|&l| ((l - m) as f64).exp()).sum();
        for t in case["first_top5"].as_array().unwrap() {
            let id = t["id"].as_u64().unwrap() as usize;
            let p = ((logits[id] - m) as f64).exp() / z;
            eprintln!("id {id:>6}: llama.cpp {:.6} ours {p:.6} ({:+.2e})", t["p"].as_f64().unwrap(), p - t["p"].as_f64().unwrap());
        }
        eprintln!();
    }
}

/// Diagnostic: teacher-forced logit gaps (our argmax − llama.cpp's token) and the distance to
/// the f32 Burn model's logits.
#[test]
#[ignore]
fn teacher_forced_gaps() {
    use inference::gguf::Gguf;
    use inference::model::llama::{Llama, LlamaConfig};
    let Some(model) = load("SmolLM2-135M-Instruct.Q4_1.gguf") else { return };
    let bytes = std::fs::read(format!("{}/models/cache/SmolLM2-135M-Instruct.Q4_1.gguf", root())).unwrap();
    let g = Gguf::parse(&bytes).unwrap();
    let cfg = LlamaConfig::from_gguf(&g).unwrap();
    let device = inference::device::default_device();
    let mut burn = inference::llm::BurnLm::new(Llama::from_gguf(&cfg, &g, &device).unwrap(), cfg, device);
    let path = format!("{}/inference/tests/fixtures/llm/smollm2_greedy.json", root());
    let fx: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut lm = CpuLm::new(model, 512);
    for case in fx["cases"].as_array().unwrap() {
        lm.truncate(0);
        burn.truncate(0);
        let mut input = ids(&case["prompt_ids"]);
        let mut line = String::new();
        for &want in ids(&case["greedy_ids"]).iter() {
            let a = lm.eval(&input, false).unwrap();
            let b = burn.eval(&input, false).unwrap();
            let ours = inference::llm::generate::argmax(&a);
            let fdiff = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
            line += &format!("{:.2}/{:.2} ", a[ours as usize] - a[want as usize], fdiff);
            input = vec![want];
        }
        eprintln!("gap/f32diff: {line}\n");
    }
}

/// Benchmark helper: `PS_MODEL=file.gguf cargo test --release -p inference --test llm_cpu_parity decode_speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn decode_speed() {
    let file = std::env::var("PS_MODEL").unwrap_or("SmolLM2-135M-Instruct.Q4_1.gguf".into());
    let Some(model) = load(&file) else { return };
    let mut lm = CpuLm::new(model, 512);
    let prompt: Vec<u32> = (0..40).map(|i| 200 + i * 11).collect();
    let t = Instant::now();
    let mut logits = lm.eval(&prompt, false).unwrap();
    let prefill = t.elapsed();
    let t = Instant::now();
    for _ in 0..64 {
        let next = inference::llm::generate::argmax(&logits);
        logits = lm.eval(&[next], false).unwrap();
    }
    let decode = t.elapsed();
    eprintln!("prefill {:.1} tok/s, decode {:.1} tok/s", 40.0 / prefill.as_secs_f64(), 64.0 / decode.as_secs_f64());
}

/// Diagnostic: greedy ids of any prompt as JSON, for comparing with `tests/reference/llama_dump`
/// (`llama_dump MODEL --tokens … --gen N`). `PS_MODEL=file.gguf|/abs/path PS_TOKENS=1,2,3
/// PS_GEN=32 cargo test --release -p inference --test llm_cpu_parity greedy_ids -- --ignored --nocapture`.
#[test]
#[ignore]
fn greedy_ids() {
    let file = std::env::var("PS_MODEL").unwrap_or("SmolLM2-135M-Instruct.Q4_1.gguf".into());
    let prompt: Vec<u32> = std::env::var("PS_TOKENS").expect("PS_TOKENS").split(',').map(|s| s.trim().parse().unwrap()).collect();
    let n: usize = std::env::var("PS_GEN").map(|v| v.parse().unwrap()).unwrap_or(32);
    let Some(model) = load(&file) else { return };
    let mut lm = CpuLm::new(model, 512);
    let mut logits = lm.eval(&prompt, false).unwrap();
    let mut out = Vec::new();
    for _ in 0..n {
        let next = inference::llm::generate::argmax(&logits);
        out.push(next);
        if out.len() == n {
            break;
        }
        logits = lm.eval(&[next], false).unwrap();
    }
    println!("GREEDY {}", serde_json::to_string(&out).unwrap());
}

/// Diagnostic: `CpuLm::trace` of a prompt and of decode steps after it, written in the format of
/// `tests/reference/llama_dump` (see its README) for a layer-by-layer comparison with llama.cpp.
/// `PS_MODEL=file.gguf PS_TRACE_TOKENS=1,2,3 PS_TRACE_THEN=4,5 PS_TRACE_OUT=ours.bin cargo test
/// --release -p inference --test llm_cpu_parity trace_dump -- --ignored`.
#[test]
#[ignore]
fn trace_dump() {
    use std::io::Write;
    let file = std::env::var("PS_MODEL").unwrap_or("SmolLM2-135M-Instruct.Q4_1.gguf".into());
    let parse = |v: &str| -> Vec<u32> { v.split(',').filter(|s| !s.is_empty()).map(|s| s.trim().parse().unwrap()).collect() };
    let tokens = parse(&std::env::var("PS_TRACE_TOKENS").expect("PS_TRACE_TOKENS"));
    let then = parse(&std::env::var("PS_TRACE_THEN").unwrap_or_default());
    let out = std::env::var("PS_TRACE_OUT").expect("PS_TRACE_OUT");
    let Some(model) = load(&file) else { return };
    let mut lm = CpuLm::new(model, 512);
    let mut f = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    let mut steps = vec![tokens];
    steps.extend(then.iter().map(|&t| vec![t]));
    for (eval, input) in steps.iter().enumerate() {
        let mut record = |name: &str, n: usize, data: &[f32]| {
            let width = data.len() / n;
            f.write_all(&(eval as u32).to_le_bytes()).unwrap();
            f.write_all(&(name.len() as u16).to_le_bytes()).unwrap();
            f.write_all(name.as_bytes()).unwrap();
            for d in [width as i64, n as i64, 1, 1] {
                f.write_all(&d.to_le_bytes()).unwrap();
            }
            for x in data {
                f.write_all(&x.to_le_bytes()).unwrap();
            }
        };
        let logits = lm.trace(input, &mut |name, rows, data| record(name, rows, data)).unwrap();
        record("logits", 1, &logits);
    }
}
