//! Llama and Qwen2 decoders on the quantized CPU kernels ([`crate::kernels`]), computed the
//! way llama.cpp's CPU backend computes them, so that greedy tokens agree with it exactly.
//!
//! # Precision
//! The reference is llama.cpp's x86 CPU backend as node-llama-cpp 3.21.1 ships it
//! (`libggml-cpu-zen4.so`: AVX512, built by GCC, flash attention, f16 KV cache). Every tensor of
//! a forward pass equals its counterpart there bit for bit (`tests/reference/llama_dump`
//! compares them op by op), which takes:
//! - Weight matrices in their GGUF block type (Q4_0/1, Q5_0/1, Q8_0, Q4_K, Q5_K, Q6_K, F16,
//!   F32), never dequantized; activations quantized per row to Q8_0, Q8_1 or Q8_K (ggml's
//!   `vec_dot_type`) and multiplied in integers, accumulated in ggml's eight f32 lanes with FMA
//!   and summed in its order (`hsum_float_8`). Q4_K follows llama.cpp's repacked `q4_K_8x8`
//!   GEMV/GEMM (activation rows four at a time, FMAs per 64 or per 256 values).
//! - Norms in f32 with squares summed in f64; RoPE with GCC's contraction of `x0·cos − x1·sin`
//!   into one FMA; SwiGLU with ggml's vectorized `expf` ([`ggml_v_expf`]).
//! - Keys and values rounded to f16 as llama.cpp caches them (kept as f32 values, so attention
//!   needs no conversion, which wasm would do in software). Attention is ggml's flash-attention
//!   kernel: for fewer than 64
//!   query rows, queries rounded to f16, f16 dot products in its AVX512 reduction order and an
//!   f16 value accumulator with an online softmax; for 64 or more, its tiled f32 path (tiles of
//!   64 keys, FMA chains, `ggml_v_expf` softmax).
//! - As llama.cpp's graph, the last layer's FFN runs only on the rows whose logits are wanted.
//! - The embedding row of each token is dequantized to f32 (ggml `get_rows`).
//!
//! Not reproduced: llama.cpp's KV-split path for single-token decodes over 512 or more cache
//! cells (its view is padded to 256: more than 256 tokens of history), whose partial sums
//! depend on the thread count; and ubatches split at 512 tokens.
//!
//! # Layout
//! llama.cpp's converter permutes `attn_q`/`attn_k` rows of llama models so rotary embeddings
//! rotate consecutive pairs (ggml rope mode 0); Qwen2 rotates the two halves (NeoX mode).

use std::sync::Arc;

use super::llama::{LlamaConfig, LlamaError};
use crate::gguf::{GgmlType, Gguf, GgufError};
use crate::kernels::dot::fma;
use crate::kernels::{MATMUL_TYPES, QMatrix};
use crate::llm::lm::{KvSnapshot, LanguageModel};

/// Which pairs of a head's dimensions a rotary embedding rotates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RopeLayout {
    /// `(x[2i], x[2i+1])`: llama (ggml mode 0).
    Adjacent,
    /// `(x[i], x[i + d/2])`: Qwen2 (ggml NeoX mode).
    Halves,
}

/// Architectures this decoder runs.
pub const ARCHITECTURES: &[&str] = &["llama", "qwen2"];

/// Below this many query rows llama.cpp attends with f16 queries and an f16 accumulator.
const FA_TILE_ROWS: usize = 64;
/// Keys per tile of the tiled path (64 or more query rows).
const FA_KV: usize = 64;

struct Layer {
    attn_norm: Vec<f32>,
    q: QMatrix,
    k: QMatrix,
    v: QMatrix,
    o: QMatrix,
    /// Qwen2's query/key/value biases.
    bias: Option<[Vec<f32>; 3]>,
    ffn_norm: Vec<f32>,
    gate: QMatrix,
    up: QMatrix,
    down: QMatrix,
}

/// A decoder's weights, shareable between sessions ([`CpuLm`]).
pub struct QuantDecoder {
    pub config: LlamaConfig,
    pub architecture: String,
    pub rope: RopeLayout,
    embd: QMatrix,
    layers: Vec<Layer>,
    norm: Vec<f32>,
    output: QMatrix,
    /// The output head is `token_embd` (tied embeddings).
    tied: bool,
}

fn matrix(g: &Gguf, bytes: &Arc<Vec<u8>>, name: &str, cols: usize, rows: usize) -> Result<QMatrix, LlamaError> {
    let info = g.tensor_info(name).ok_or_else(|| GgufError::MissingTensor { name: name.to_string() })?;
    let expected = vec![cols as u64, rows as u64];
    if info.dims != expected {
        return Err(LlamaError::Shape { name: name.to_string(), found: info.dims.clone(), expected });
    }
    let start = (g.data_start() + info.offset) as usize;
    QMatrix::new(info.ty, rows, cols, bytes.clone(), start).ok_or_else(|| {
        LlamaError::Unsupported(format!(
            "tensor {name} is {:?}, which this runtime cannot multiply (it multiplies {MATMUL_TYPES}); re-quantize the model with llama.cpp's llama-quantize, e.g. to Q4_K_M",
            info.ty
        ))
    })
}

fn vector(g: &Gguf, name: &str, len: usize) -> Result<Vec<f32>, LlamaError> {
    let info = g.tensor_info(name).ok_or_else(|| GgufError::MissingTensor { name: name.to_string() })?;
    if info.dims != [len as u64] {
        return Err(LlamaError::Shape { name: name.to_string(), found: info.dims.clone(), expected: vec![len as u64] });
    }
    Ok(g.dequantize(name)?)
}

impl QuantDecoder {
    /// Reads a `llama` or `qwen2` GGUF; the weights are the file's own bytes, not copies.
    pub fn load(bytes: Arc<Vec<u8>>) -> Result<Self, LlamaError> {
        let g = Gguf::parse(&bytes)?;
        let arch = g.architecture()?.to_string();
        let rope = match arch.as_str() {
            "llama" => RopeLayout::Adjacent,
            "qwen2" => RopeLayout::Halves,
            other => {
                return Err(LlamaError::Unsupported(format!(
                    "architecture `{other}` is not supported; this runtime runs {} models (SmolLM2, Llama, Qwen2.5)",
                    ARCHITECTURES.join(", ")
                )));
            }
        };
        let cfg = LlamaConfig::from_gguf(&g)?;
        let (d, ff, hd) = (cfg.hidden_size, cfg.intermediate_size, cfg.head_dim());
        let (qd, kvd) = (cfg.num_attention_heads * hd, cfg.num_key_value_heads * hd);
        let embd = matrix(&g, &bytes, "token_embd.weight", d, cfg.vocab_size)?;
        let tied = g.tensor_info("output.weight").is_none();
        let output = if tied { embd.clone() } else { matrix(&g, &bytes, "output.weight", d, cfg.vocab_size)? };
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for i in 0..cfg.num_hidden_layers {
            let n = |t: &str| format!("blk.{i}.{t}");
            let bias = if g.tensor_info(&n("attn_q.bias")).is_some() {
                Some([vector(&g, &n("attn_q.bias"), qd)?, vector(&g, &n("attn_k.bias"), kvd)?, vector(&g, &n("attn_v.bias"), kvd)?])
            } else {
                None
            };
            layers.push(Layer {
                attn_norm: vector(&g, &n("attn_norm.weight"), d)?,
                q: matrix(&g, &bytes, &n("attn_q.weight"), d, qd)?,
                k: matrix(&g, &bytes, &n("attn_k.weight"), d, kvd)?,
                v: matrix(&g, &bytes, &n("attn_v.weight"), d, kvd)?,
                o: matrix(&g, &bytes, &n("attn_output.weight"), qd, d)?,
                bias,
                ffn_norm: vector(&g, &n("ffn_norm.weight"), d)?,
                gate: matrix(&g, &bytes, &n("ffn_gate.weight"), d, ff)?,
                up: matrix(&g, &bytes, &n("ffn_up.weight"), d, ff)?,
                down: matrix(&g, &bytes, &n("ffn_down.weight"), ff, d)?,
            });
        }
        let norm = vector(&g, "output_norm.weight", d)?;
        Ok(QuantDecoder { config: cfg, architecture: arch, rope, embd, layers, norm, output, tied })
    }

    /// Each weight type with the number of matrices and bytes stored in it, e.g. for `--bench`.
    pub fn precision_report(&self) -> Vec<(GgmlType, usize, usize)> {
        let mut all: Vec<&QMatrix> = vec![&self.embd];
        if !self.tied {
            all.push(&self.output);
        }
        for l in &self.layers {
            all.extend([&l.q, &l.k, &l.v, &l.o, &l.gate, &l.up, &l.down]);
        }
        let mut by: Vec<(GgmlType, usize, usize)> = Vec::new();
        for m in all {
            match by.iter_mut().find(|e| e.0 == m.ty) {
                Some(e) => {
                    e.1 += 1;
                    e.2 += m.size_bytes();
                }
                None => by.push((m.ty, 1, m.size_bytes())),
            }
        }
        by
    }
}

/// A trace callback: tensor name, number of rows, values (row-major).
type TraceFn<'a> = &'a mut dyn FnMut(&str, usize, &[f32]);

/// Keys and values of past positions, rounded through f16, preallocated for the whole context.
struct KvCache {
    /// Per layer, `capacity × kv_dim` keys then values.
    k: Vec<Vec<f32>>,
    v: Vec<Vec<f32>>,
    len: usize,
    capacity: usize,
}

/// The first positions of a [`KvCache`], per layer (a [`KvSnapshot`]'s data).
struct CpuKv {
    k: Vec<Vec<f32>>,
    v: Vec<Vec<f32>>,
}

/// A decoder with its cache: one conversation ([`LanguageModel`]).
pub struct CpuLm {
    pub model: Arc<QuantDecoder>,
    cache: KvCache,
    /// cos/sin per position and rotated pair, `capacity × head_dim/2`.
    cos: Vec<f32>,
    sin: Vec<f32>,
}

impl CpuLm {
    /// A session whose cache holds `context` positions (at most the model's context length).
    pub fn new(model: Arc<QuantDecoder>, context: usize) -> Self {
        let cfg = &model.config;
        let capacity = context.clamp(1, cfg.max_position_embeddings);
        let kvd = cfg.num_key_value_heads * cfg.head_dim();
        let layers = cfg.num_hidden_layers;
        let cache = KvCache {
            k: (0..layers).map(|_| vec![0.0f32; capacity * kvd]).collect(),
            v: (0..layers).map(|_| vec![0.0f32; capacity * kvd]).collect(),
            len: 0,
            capacity,
        };
        // ggml's rope cache: theta starts at the position and is multiplied by
        // base^(-2/head_dim) once per pair, in f32.
        let half = cfg.head_dim() / 2;
        let scale = cfg.rope_theta.powf(-2.0 / cfg.head_dim() as f32);
        let (mut cos, mut sin) = (Vec::with_capacity(capacity * half), Vec::with_capacity(capacity * half));
        for p in 0..capacity {
            let mut theta = p as f32;
            for _ in 0..half {
                cos.push(theta.cos());
                sin.push(theta.sin());
                theta *= scale;
            }
        }
        CpuLm { model, cache, cos, sin }
    }

    fn rope(&self, x: &mut [f32], pos: usize, heads: usize) {
        let hd = self.model.config.head_dim();
        let half = hd / 2;
        let (cos, sin) = (&self.cos[pos * half..(pos + 1) * half], &self.sin[pos * half..(pos + 1) * half]);
        for h in x.chunks_exact_mut(hd).take(heads) {
            for i in 0..half {
                let (a, b) = match self.model.rope {
                    RopeLayout::Adjacent => (2 * i, 2 * i + 1),
                    RopeLayout::Halves => (i, i + half),
                };
                let (x0, x1) = (h[a], h[b]);
                // GCC contracts ggml's `x0*cos - x1*sin` and `x0*sin + x1*cos` into one FMA each,
                // fusing the first product.
                h[a] = fma(x0, cos[i], -(x1 * sin[i]));
                h[b] = fma(x0, sin[i], x1 * cos[i]);
            }
        }
    }

    /// Runs `tokens` and shows every intermediate tensor to `trace` under llama.cpp's graph names
    /// (`attn_norm-{il}`, `Qcur-{il}` …, `result_norm`, `result_output`) with its number of rows,
    /// row-major `rows × width`;
    /// for comparing with llama.cpp layer by layer (`tests/reference/llama_dump`). As llama.cpp
    /// asked for the last token's logits only, the last layer's FFN and the output run on the
    /// last row only. Returns its logits.
    pub fn trace(&mut self, tokens: &[u32], trace: &mut dyn FnMut(&str, usize, &[f32])) -> Result<Vec<f32>, LlamaError> {
        let x = self.forward_traced(tokens, 1, Some(trace))?;
        let model = self.model.clone();
        let mut normed = vec![0.0f32; x.len()];
        rms_norm(&x, &model.norm, model.config.rms_norm_eps as f32, &mut normed);
        trace("result_norm", 1, &normed);
        let mut logits = vec![0.0f32; model.config.vocab_size];
        model.output.matmul(&normed, 1, &mut logits);
        trace("result_output", 1, &logits);
        Ok(logits)
    }

    /// Runs `tokens` at positions `cache.len..`; returns the final hidden rows of the last
    /// `outputs` tokens (`outputs × hidden`).
    fn forward(&mut self, tokens: &[u32], outputs: usize) -> Result<Vec<f32>, LlamaError> {
        self.forward_traced(tokens, outputs, None)
    }

    /// As llama.cpp's graphs, the last layer keeps only the rows whose outputs are wanted after
    /// attention (`inp_out_ids`): its FFN then runs on fewer rows, which changes how llama.cpp
    /// multiplies them (e.g. GEMV instead of GEMM for repacked Q4_K), so we do the same.
    fn forward_traced(&mut self, tokens: &[u32], outputs: usize, mut trace: Option<TraceFn>) -> Result<Vec<f32>, LlamaError> {
        let mut show = |name: &str, li: usize, rows: usize, data: &[f32]| {
            if let Some(t) = trace.as_mut() {
                t(&format!("{name}-{li}"), rows, data);
            }
        };
        let model = self.model.clone();
        let cfg = &model.config;
        let n = tokens.len();
        let start = self.cache.len;
        if start + n > self.cache.capacity {
            return Err(LlamaError::ContextFull { pos: start + n, max: self.cache.capacity });
        }
        if let Some(&id) = tokens.iter().find(|&&t| t as usize >= cfg.vocab_size) {
            return Err(LlamaError::BadToken { id, vocab: cfg.vocab_size });
        }
        let (d, hd) = (cfg.hidden_size, cfg.head_dim());
        let (nh, nkv) = (cfg.num_attention_heads, cfg.num_key_value_heads);
        let (qd, kvd, ff) = (nh * hd, nkv * hd, cfg.intermediate_size);
        let eps = cfg.rms_norm_eps as f32;

        let mut x = vec![0.0f32; n * d];
        for (row, &t) in x.chunks_exact_mut(d).zip(tokens) {
            model.embd.dequantize_row_into(t as usize, row);
        }
        let mut h = vec![0.0f32; n * d];
        let (mut q, mut k, mut v) = (vec![0.0f32; n * qd], vec![0.0f32; n * kvd], vec![0.0f32; n * kvd]);
        let mut att = vec![0.0f32; n * qd];
        let mut proj = vec![0.0f32; n * d];
        let (mut g, mut u) = (vec![0.0f32; n * ff], vec![0.0f32; n * ff]);

        for (li, layer) in model.layers.iter().enumerate() {
            rms_norm(&x, &layer.attn_norm, eps, &mut h);
            show("attn_norm", li, n, &h);
            QMatrix::matmul_same_input(&h, n, &mut [(&layer.q, &mut q), (&layer.k, &mut k), (&layer.v, &mut v)]);
            if let Some([bq, bk, bv]) = &layer.bias {
                add_rows(&mut q, bq);
                add_rows(&mut k, bk);
                add_rows(&mut v, bv);
            }
            show("Vcur", li, n, &v);
            for t in 0..n {
                self.rope(&mut q[t * qd..(t + 1) * qd], start + t, nh);
                self.rope(&mut k[t * kvd..(t + 1) * kvd], start + t, nkv);
            }
            show("Qcur", li, n, &q);
            show("Kcur", li, n, &k);
            let (kc, vc) = (&mut self.cache.k[li], &mut self.cache.v[li]);
            for (dst, src) in kc[start * kvd..(start + n) * kvd].iter_mut().zip(&k) {
                *dst = to_f16_precision(*src);
            }
            for (dst, src) in vc[start * kvd..(start + n) * kvd].iter_mut().zip(&v) {
                *dst = to_f16_precision(*src);
            }
            attention(&q, &kc[..(start + n) * kvd], &vc[..(start + n) * kvd], start, n, nh, nkv, hd, &mut att);
            show("kqv_out", li, n, &att);
            layer.o.matmul(&att, n, &mut proj);
            show("attn_out", li, n, &proj);
            let m = if li + 1 == model.layers.len() { outputs.clamp(1, n) } else { n };
            if m < n {
                x.drain(..(n - m) * d);
                proj.drain(..(n - m) * d);
                h.truncate(m * d);
                g.truncate(m * ff);
                u.truncate(m * ff);
            }
            add_into(&mut x, &proj);
            show("ffn_inp", li, m, &x);

            rms_norm(&x, &layer.ffn_norm, eps, &mut h);
            show("ffn_norm", li, m, &h);
            QMatrix::matmul_same_input(&h, m, &mut [(&layer.gate, &mut g), (&layer.up, &mut u)]);
            show("ffn_gate", li, m, &g);
            show("ffn_up", li, m, &u);
            swiglu(&mut g, &u);
            show("ffn_swiglu", li, m, &g);
            layer.down.matmul(&g, m, &mut proj);
            show("ffn_out", li, m, &proj);
            add_into(&mut x, &proj);
            show("l_out", li, m, &x);
        }
        self.cache.len = start + n;
        Ok(x)
    }
}

/// ggml's `rms_norm` then `mul`: squares summed in f64, `y = (x · 1/√(mean + eps)) · w`.
fn rms_norm(x: &[f32], w: &[f32], eps: f32, out: &mut [f32]) {
    let d = w.len();
    for (x, y) in x.chunks_exact(d).zip(out.chunks_exact_mut(d)) {
        let sum: f64 = x.iter().map(|&v| (v * v) as f64).sum();
        let mean = (sum / d as f64) as f32;
        let scale = 1.0 / (mean + eps).sqrt();
        for ((y, &x), &w) in y.iter_mut().zip(x).zip(w) {
            *y = (x * scale) * w;
        }
    }
}

/// Whether this CPU has FMA (and AVX and F16C, which every x86 CPU with FMA has but one AMD
/// generation): the elementwise ops below are then compiled with them, so each fused
/// multiply-add of ggml's is one instruction rather than a call to libm's `fmaf`, and an f16
/// rounding two ([`round_f16`]).
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_fma() -> bool {
    use std::sync::OnceLock;
    static FMA: OnceLock<bool> = OnceLock::new();
    *FMA.get_or_init(|| is_x86_feature_detected!("fma") && is_x86_feature_detected!("avx") && is_x86_feature_detected!("f16c"))
}

#[cfg(target_arch = "x86_64")]
pub(crate) fn has_avx512() -> bool {
    use std::sync::OnceLock;
    static AVX512: OnceLock<bool> = OnceLock::new();
    *AVX512.get_or_init(|| has_fma() && is_x86_feature_detected!("avx512f"))
}

/// Defines `$name` calling `$body`, compiled twice more on x86-64, with FMA and with FMA and
/// AVX-512 (16-lane vectors), and picked at run time. The results are the same: the bodies
/// spell out every lane's operations (`f32::mul_add` is exact either way), which vectorizing
/// does not reorder.
macro_rules! fma_dispatch {
    ($(#[$doc:meta])* fn $name:ident $(<$lt:lifetime>)? ($($arg:ident: $ty:ty),*) => $body:ident) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        fn $name $(<$lt>)? ($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "fma,avx,f16c")]
                #[allow(clippy::too_many_arguments)]
                fn with_fma $(<$lt>)? ($($arg: $ty),*) {
                    $body($($arg),*)
                }
                #[target_feature(enable = "fma,avx,f16c,avx512f")]
                #[allow(clippy::too_many_arguments)]
                fn with_avx512 $(<$lt>)? ($($arg: $ty),*) {
                    $body($($arg),*)
                }
                if $crate::model::decoder::has_avx512() {
                    // SAFETY: the CPU has FMA and AVX-512F (checked just above).
                    return unsafe { with_avx512($($arg),*) };
                }
                if $crate::model::decoder::has_fma() {
                    // SAFETY: the CPU has FMA, AVX and F16C (checked just above).
                    return unsafe { with_fma($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}

pub(crate) use fma_dispatch;

fma_dispatch! {
    /// See [`swiglu_body`].
    fn swiglu(g: &mut [f32], u: &[f32]) => swiglu_body
}

fma_dispatch! {
    /// See [`attend_f16_body`].
    fn attend_f16(q: &[f32], k: &[f32], v: &[f32], kvd: usize, off: usize, visible: usize, scale: f32, hd: usize, o: &mut [f32]) => attend_f16_body
}

fma_dispatch! {
    /// See [`attend_tiled_body`].
    fn attend_tiled(q: &[f32], kt: &[f32], stride: usize, v: &[f32], kvd: usize, off: usize, visible: usize, scale: f32, o: &mut [f32]) => attend_tiled_body
}

/// ggml's `swiglu` on x86 (AVX512/AVX2 `ggml_vec_swiglu_f32`): `silu(g) · u` with
/// `silu(x) = x / (1 + e^-x)` and e^x from [`ggml_v_expf`], in place in `g`; a tail of fewer
/// than 16 values uses libm's `expf`, as ggml's scalar loop.
#[inline(always)]
fn swiglu_body(g: &mut [f32], u: &[f32]) {
    let vec = g.len() / 16 * 16;
    for (g, u) in g[..vec].iter_mut().zip(u) {
        *g = *g / (1.0 + ggml_v_expf(0.0 - *g)) * u;
    }
    for (g, u) in g[vec..].iter_mut().zip(&u[vec..]) {
        *g = *g / (1.0 + (-*g).exp()) * u;
    }
}

/// ggml's vectorized `expf` (`ggml_v_expf`, the AVX512 variant, "adapted from ARM limited
/// optimized routine", ≤ 1.5 ulp), lane by lane: `2^n · p(b)` with `n = round(x·log2 e)`, `b` the
/// reduced argument in two FMA steps and `p` a degree-5 polynomial in FMA form; `|n| > 192`
/// saturates to 0 or +∞.
#[inline(always)]
pub(crate) fn ggml_v_expf(x: f32) -> f32 {
    let (n, j) = exp_parts(x);
    if n.abs() > 192.0 {
        return if n <= 0.0 { 0.0 } else { f32::INFINITY };
    }
    // _mm512_scalef_ps: j · 2^n rounded once (exact in f64, then one rounding to f32).
    // 2^n built from its bits (|n| ≤ 192 here, so an exact normal f64) rather than by `exp2`.
    (j as f64 * f64::from_bits(((n as i64 + 1023) as u64) << 52)) as f32
}

/// [`ggml_v_expf`] for `x ≤ 0` where the result stays normal (`x` is clamped to −87, e^−87 ≈
/// 1.6e−38): `2^n` as an f32 from its bits, so no f64 and no branch; the same values, the
/// product by a power of two being exact. For a softmax after its maximum is taken off.
#[inline(always)]
pub(crate) fn exp_nonpositive(x: f32) -> f32 {
    let (n, j) = exp_parts(x.max(-87.0));
    // `n + 1.5·2^23` holds the integer `n` in its low bits (exact: −126 ≤ n ≤ 0); integer steps
    // only, as `n as i32` (saturating, NaN to 0) would be taken lane by lane.
    let r = f32::from_bits(0x4B40_0000);
    let biased = (n + r).to_bits().wrapping_sub(0x4B40_0000 - 127);
    j * f32::from_bits(biased << 23)
}

/// `n = round(x·log2 e)` and `p(x − n·ln 2)` of [`ggml_v_expf`].
#[inline(always)]
fn exp_parts(x: f32) -> (f32, f32) {
    let r = f32::from_bits(0x4B40_0000); // 0x1.8p23
    let z = fma(x, f32::from_bits(0x3FB8_AA3B), r); // log2(e) = 0x1.715476p+0
    let n = z - r;
    let b = fma(-n, f32::from_bits(0x35BF_BE8E), fma(-n, f32::from_bits(0x3F31_7200), x)); // 0x1.7f7d1cp-20, 0x1.62e4p-1
    let u = b * b;
    let c = |bits: u32| f32::from_bits(bits);
    let j = fma(
        fma(fma(c(0x3C07_2010), b, c(0x3D2B_9F17)), u, fma(c(0x3E2A_AF33), b, c(0x3EFF_FEDB))),
        u,
        fma(c(0x3F7F_FFF6), b, 1.0),
    );
    (n, j)
}

fn add_rows(x: &mut [f32], b: &[f32]) {
    for row in x.chunks_exact_mut(b.len()) {
        add_into(row, b);
    }
}

fn add_into(x: &mut [f32], y: &[f32]) {
    for (x, y) in x.iter_mut().zip(y) {
        *x += *y;
    }
}

/// Causal grouped-query attention of `n` new rows (positions `start..start + n`) over the
/// cached keys/values, into `out` (`n × heads·hd`), bit for bit as llama.cpp's flash-attention
/// CPU kernel (`ggml_compute_forward_flash_attn_ext_f16`, AVX512 build): fewer than 64 query
/// rows take its one-row path ([`attend_f16`]), 64 or more its tiled path ([`attend_tiled`]).
#[allow(clippy::too_many_arguments)]
fn attention(q: &[f32], k: &[f32], v: &[f32], start: usize, n: usize, nh: usize, nkv: usize, hd: usize, out: &mut [f32]) {
    crate::kernels::timing::timed(crate::kernels::timing::Part::Attention, || attention_untimed(q, k, v, start, n, nh, nkv, hd, out))
}

#[allow(clippy::too_many_arguments)]
fn attention_untimed(q: &[f32], k: &[f32], v: &[f32], start: usize, n: usize, nh: usize, nkv: usize, hd: usize, out: &mut [f32]) {
    let (qd, kvd) = (nh * hd, nkv * hd);
    let group = nh / nkv;
    let scale = 1.0 / (hd as f32).sqrt();
    let tiled = n >= FA_TILE_ROWS && hd.is_multiple_of(16);
    // The tiled path reads keys transposed, once per layer call: `kt[kh][d][pos]`, positions
    // padded to whole tiles, so one tile's scores are `FA_KV` independent FMA chains side by side.
    let total = start + n;
    let padded = total.div_ceil(FA_KV) * FA_KV;
    let mut kt = Vec::new();
    if tiled {
        kt = vec![0.0f32; nkv * hd * padded];
        for (pos, key) in k[..total * kvd].chunks_exact(kvd).enumerate() {
            for (c, &x) in key.iter().enumerate() {
                kt[c * padded + pos] = x;
            }
        }
    }
    let (kf, vf) = (k, v);
    // Work items of `per` query heads of one row, so a single decoded token spreads its heads
    // over the threads too. The one-row path reads each key and value once for all the heads
    // of an item (they share a key/value head: `per` divides the group), so items are as large
    // as leaves every thread one; a decoded token's heads re-read the cache from L3 otherwise
    // (the 0.5B's 7 heads per key/value head, 1.5 MB a layer at 1,500 tokens).
    let threads = crate::kernels::threads();
    let per = if tiled { 1 } else { (1..=group).rev().find(|&d| group.is_multiple_of(d) && n * nh / d >= threads).unwrap_or(1) };
    let item = |i: usize, o: &mut [f32]| {
        let (t, h) = (i / (nh / per), i % (nh / per) * per);
        let visible = start + t + 1;
        let kh = h / group;
        let qh = &q[t * qd + h * hd..t * qd + (h + per) * hd];
        if tiled {
            attend_tiled(qh, &kt[kh * hd * padded..(kh + 1) * hd * padded], padded, vf, kvd, kh * hd, visible, scale, o);
        } else {
            attend_f16(qh, kf, vf, kvd, kh * hd, visible, scale, hd, o);
        }
    };
    #[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
    if crate::kernels::worth_threads(2 * n * nh * hd * total) {
        use rayon::prelude::*;
        out.par_chunks_mut(per * hd).enumerate().for_each(|(i, o)| item(i, o));
        return;
    }
    out.chunks_mut(per * hd).enumerate().for_each(|(i, o)| item(i, o));
}

/// ggml's `_mm512_reduce_add_ps` as GCC expands it: halves added down to one lane.
#[inline(always)]
fn reduce16(x: &[f32; 16]) -> f32 {
    let mut t = [0.0f32; 8];
    for l in 0..8 {
        t[l] = x[l + 8] + x[l];
    }
    let u = [t[4] + t[0], t[5] + t[1], t[6] + t[2], t[7] + t[3]];
    (u[0] + u[2]) + (u[1] + u[3])
}

/// `ggml_vec_dot_f16` (AVX512, F32Cx16) of two f16 vectors given as f32: four accumulators of
/// 16 lanes over steps of 64, `acc0+acc2 + acc1+acc3`, [`reduce16`]; a tail of fewer than 64
/// values added in f64.
#[inline(always)]
fn dot_f16(x: &[f32], y: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        // SAFETY: the CPU has AVX and FMA (checked just above).
        return unsafe { dot_f16_avx(x, y) };
    }
    dot_f16_portable(x, y)
}

#[inline(always)]
fn dot_f16_portable(x: &[f32], y: &[f32]) -> f32 {
    let (xs, x_tail) = x.as_chunks::<64>();
    let (ys, y_tail) = y.as_chunks::<64>();
    let mut acc = [[0.0f32; 16]; 4];
    // Whole steps of 64 with fixed bounds, so the four accumulators vectorize.
    for (xb, yb) in xs.iter().zip(ys) {
        for (j, a) in acc.iter_mut().enumerate() {
            for (l, a) in a.iter_mut().enumerate() {
                *a = fma(xb[16 * j + l], yb[16 * j + l], *a);
            }
        }
    }
    let mut s = [0.0f32; 16];
    for l in 0..16 {
        s[l] = (acc[0][l] + acc[2][l]) + (acc[1][l] + acc[3][l]);
    }
    let mut sum = reduce16(&s) as f64;
    for (&a, &b) in x_tail.iter().zip(y_tail) {
        sum += (a * b) as f64;
    }
    sum as f32
}

/// [`dot_f16`] in AVX vectors (the compiler kept its 16-lane accumulators in 4-lane registers
/// and on the stack): each accumulator two vectors, [`reduce16`] by `hsum_float_8`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,fma")]
#[inline]
fn dot_f16_avx(x: &[f32], y: &[f32]) -> f32 {
    use core::arch::x86_64::*;
    let (xs, x_tail) = x.as_chunks::<64>();
    let (ys, y_tail) = y.as_chunks::<64>();
    // acc[2j] lanes 0..8 of accumulator j, acc[2j + 1] lanes 8..16.
    let mut acc = [_mm256_setzero_ps(); 8];
    for (xb, yb) in xs.iter().zip(ys) {
        for (i, a) in acc.iter_mut().enumerate() {
            // SAFETY: 32-byte loads at 8i .. 8i + 8 of 64-value chunks.
            let (xv, yv) = unsafe { (_mm256_loadu_ps(xb[8 * i..].as_ptr()), _mm256_loadu_ps(yb[8 * i..].as_ptr())) };
            *a = _mm256_fmadd_ps(xv, yv, *a);
        }
    }
    let lo = _mm256_add_ps(_mm256_add_ps(acc[0], acc[4]), _mm256_add_ps(acc[2], acc[6]));
    let hi = _mm256_add_ps(_mm256_add_ps(acc[1], acc[5]), _mm256_add_ps(acc[3], acc[7]));
    // reduce16: the two halves added, then hsum_float_8's order.
    let mut sum = crate::kernels::dot::hsum_float_8(_mm256_add_ps(hi, lo)) as f64;
    for (&a, &b) in x_tail.iter().zip(y_tail) {
        sum += (a * b) as f64;
    }
    sum as f32
}

/// One query row of ggml's flash attention for fewer than 64 rows (`..._one_chunk`), for the
/// query heads in `q` (`hd` values each) that share the key/value head at `off`, each key and
/// value read once for all of them: per head, the query rounded to f16, scores by [`dot_f16`],
/// online softmax with libm's `expf`, values accumulated in f16 (`ggml_vec_mad_f16`: f32 FMA,
/// rounded to f16 per step), `S = S·ms + vs` not fused; `o` as `q`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn attend_f16_body(q: &[f32], k: &[f32], v: &[f32], kvd: usize, off: usize, visible: usize, scale: f32, hd: usize, o: &mut [f32]) {
    let heads = o.len() / hd;
    // Key/value `j` of this head: `hd` values at `j·kvd + off`.
    let k = |j: usize| &k[j * kvd + off..][..hd];
    let v = |j: usize| &v[j * kvd + off..][..hd];
    let qh: Vec<f32> = q.iter().map(|&x| to_f16_precision(x)).collect();
    let (mut m, mut s) = (vec![f32::NEG_INFINITY; heads], vec![0.0f32; heads]);
    // f16 values held as f32, rounded through f16 after every update
    let mut acc = vec![0.0f32; heads * hd];
    for j in 0..visible {
        let (kj, vj) = (k(j), v(j));
        for (((acc, qh), m), s) in acc.chunks_exact_mut(hd).zip(qh.chunks_exact(hd)).zip(&mut m).zip(&mut s) {
            let score = dot_f16(kj, qh) * scale;
            let (mut ms, mut vs) = (1.0f32, 1.0f32);
            if score > *m {
                let old = *m;
                *m = score;
                ms = (old - score).exp();
                acc.iter_mut().for_each(|a| *a *= ms);
                round_f16(acc);
            } else {
                vs = (score - *m).exp();
            }
            mad_f16(acc, vj, vs);
            *s = *s * ms + vs;
        }
    }
    for ((o, acc), s) in o.chunks_exact_mut(hd).zip(acc.chunks_exact(hd)).zip(s) {
        let inv = if s == 0.0 { 0.0 } else { 1.0 / s };
        for (o, a) in o.iter_mut().zip(acc) {
            *o = a * inv;
        }
    }
}

/// `acc = f16(fma(v, s, acc))` per value (`ggml_vec_mad_f16`): on x86-64 in one pass of AVX
/// vectors with F16C's conversions, elsewhere an FMA pass and [`round_f16`]'s.
#[inline(always)]
fn mad_f16(acc: &mut [f32], v: &[f32], s: f32) {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        // SAFETY: the CPU has FMA, F16C and AVX (has_fma checks them).
        return unsafe { mad_f16_f16c(acc, v, s) };
    }
    for (a, &x) in acc.iter_mut().zip(v) {
        *a = fma(x, s, *a);
    }
    round_f16(acc);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,fma,f16c")]
#[inline]
fn mad_f16_f16c(acc: &mut [f32], v: &[f32], s: f32) {
    use core::arch::x86_64::*;
    let (vs, v_tail) = v[..acc.len()].as_chunks::<8>();
    let (whole, tail) = acc.as_chunks_mut::<8>();
    let sv = _mm256_set1_ps(s);
    for (a, x) in whole.iter_mut().zip(vs) {
        // SAFETY: 32-byte loads and a store of 8-value chunks.
        unsafe {
            let r = _mm256_fmadd_ps(_mm256_loadu_ps(x.as_ptr()), sv, _mm256_loadu_ps(a.as_ptr()));
            _mm256_storeu_ps(a.as_mut_ptr(), _mm256_cvtph_ps(_mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(r)));
        }
    }
    for (a, &x) in tail.iter_mut().zip(v_tail) {
        *a = to_f16_precision(x.mul_add(s, *a));
    }
}

/// Rounds every value through f16 (ggml keeps this accumulator in f16): on x86-64 by F16C's
/// conversions there and back, as ggml does (round to nearest even, the same values as
/// [`to_f16_precision`]; inlined into the bodies compiled with F16C), elsewhere by that.
#[inline(always)]
fn round_f16(x: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        // SAFETY: the CPU has F16C and AVX (has_fma checks them).
        return unsafe { round_f16_f16c(x) };
    }
    for v in x {
        *v = to_f16_precision(*v);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
#[inline]
fn round_f16_f16c(x: &mut [f32]) {
    use core::arch::x86_64::*;
    let (whole, tail) = x.as_chunks_mut::<8>();
    for v in whole {
        // SAFETY: 32-byte load and store of an 8-value chunk.
        unsafe {
            let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(v.as_ptr()));
            _mm256_storeu_ps(v.as_mut_ptr(), _mm256_cvtph_ps(h));
        }
    }
    for v in tail {
        *v = to_f16_precision(*v);
    }
}

/// `f32 → f16 → f32` (round to nearest, ties to even), without a conversion instruction and
/// without branches, so loops of it vectorize (wasm has no f16 conversion): the mantissa is
/// rounded to 10 bits by integer arithmetic on the normal range, to multiples of 2^-24 below it,
/// and values from 65520 up overflow to infinity as in f16.
#[inline(always)]
fn to_f16_precision(x: f32) -> f32 {
    let b = x.to_bits();
    let normal = f32::from_bits((b.wrapping_add(0x0FFF + ((b >> 13) & 1))) & !0x1FFF);
    let subnormal = (x * 16_777_216.0).round_ties_even() * (1.0 / 16_777_216.0);
    let a = x.abs();
    let r = if a < 6.103_515_6e-5 { subnormal } else { normal };
    let r = if a >= 65520.0 { f32::INFINITY.copysign(x) } else { r };
    if x.is_nan() { x } else { r }
}

/// One query row of ggml's tiled flash attention (64 or more rows,
/// `ggml_compute_forward_flash_attn_ext_tiled`): keys in tiles of 64; per tile, f32 scores as
/// one FMA chain over the head dimension (`simd_gemm`), scaled; the running maximum and sum
/// rescaled by `expf`; probabilities by [`ggml_v_expf`] summed per 16 ([`reduce16`]) into f64;
/// values accumulated as one FMA chain over the tile's 64 keys (masked keys add exact zeros).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn attend_tiled_body(q: &[f32], kt: &[f32], stride: usize, v: &[f32], kvd: usize, off: usize, visible: usize, scale: f32, o: &mut [f32]) {
    let hd = o.len();
    let (mut m, mut s) = (f32::NEG_INFINITY, 0.0f32);
    let mut acc = vec![0.0f32; hd];
    for ic in (0..visible).step_by(FA_KV) {
        let tile = FA_KV.min(visible - ic);
        // Key `ic + j`'s score is lane j's chain `fma(k[d], q[d], ·)` over d (keys transposed).
        // Four accumulators of 16 lanes as locals, so they stay in registers.
        let (mut k0, mut k1, mut k2, mut k3) = ([0.0f32; 16], [0.0f32; 16], [0.0f32; 16], [0.0f32; 16]);
        for (d, &qx) in q.iter().enumerate() {
            let keys: &[f32; FA_KV] = kt[d * stride + ic..][..FA_KV].try_into().expect("positions padded to whole tiles");
            let (keys, _) = keys.as_chunks::<16>();
            for (acc, keys) in [&mut k0, &mut k1, &mut k2, &mut k3].into_iter().zip(keys) {
                for (sc, &kx) in acc.iter_mut().zip(keys) {
                    *sc = fma(kx, qx, *sc);
                }
            }
        }
        let mut kq = [0.0f32; FA_KV];
        for (c, acc) in kq.chunks_exact_mut(16).zip([k0, k1, k2, k3]) {
            c.copy_from_slice(&acc);
        }
        for (tk, sc) in kq.iter_mut().enumerate() {
            *sc = if tk < tile { *sc * scale } else { f32::NEG_INFINITY };
        }
        let tile_max = kq.iter().fold(f32::NEG_INFINITY, |m, &x| if m > x { m } else { x });
        let new = m.max(tile_max);
        if new > m {
            let ms = (m - new).exp();
            acc.iter_mut().for_each(|a| *a *= ms);
            s *= ms;
        }
        m = new;
        let mut sum = 0.0f64;
        for c in kq.chunks_exact_mut(16) {
            let c: &mut [f32; 16] = c.try_into().unwrap();
            for x in c.iter_mut() {
                *x = ggml_v_expf(*x - m);
            }
            sum += reduce16(c) as f64;
        }
        s = (s as f64 + sum) as f32;
        // Each value's chain over the tile's keys, 64 values at a time held in registers as four
        // independent chains (each value's order over the keys is unchanged).
        let v = &v[ic * kvd + off..];
        match hd {
            64 => accumulate_values::<4>(&mut acc, &kq[..tile], v, kvd),
            // In two halves: eight chains of 16 at once vectorize badly (gathers).
            128 => {
                let (lo, hi) = acc.split_at_mut(64);
                accumulate_values::<4>(lo, &kq[..tile], v, kvd);
                accumulate_values::<4>(hi, &kq[..tile], &v[64..], kvd);
            }
            _ => {
                for (tk, &p) in kq.iter().enumerate().take(tile) {
                    for (a, &x) in acc.iter_mut().zip(&v[tk * kvd..][..hd]) {
                        *a = fma(x, p, *a);
                    }
                }
            }
        }
    }
    let inv = if s == 0.0 { 0.0 } else { 1.0 / s };
    for (o, a) in o.iter_mut().zip(&acc) {
        *o = a * inv;
    }
}

/// `acc[i] = fma(v[k][i], p[k], acc[i])` over the keys `k` in order, for a head of `16·C`
/// values (`v[k]` at `k·kvd`), with the accumulators in registers.
#[inline(always)]
fn accumulate_values<const C: usize>(acc: &mut [f32], p: &[f32], v: &[f32], kvd: usize) {
    let acc: &mut [[f32; 16]; C] = acc.as_chunks_mut::<16>().0.try_into().expect("16·C values");
    let mut r = *acc;
    for (k, &p) in p.iter().enumerate() {
        let vk: &[[f32; 16]; C] = v[k * kvd..][..16 * C].as_chunks::<16>().0.try_into().unwrap();
        for (r, vk) in r.iter_mut().zip(vk) {
            for (r, &x) in r.iter_mut().zip(vk) {
                *r = fma(x, p, *r);
            }
        }
    }
    *acc = r;
}

impl LanguageModel for CpuLm {
    fn vocab_size(&self) -> usize {
        self.model.config.vocab_size
    }

    fn context_length(&self) -> usize {
        self.cache.capacity
    }

    fn cached(&self) -> usize {
        self.cache.len
    }

    fn truncate(&mut self, len: usize) {
        self.cache.len = self.cache.len.min(len);
    }

    fn describe(&self) -> String {
        let kinds: Vec<String> = self.model.precision_report().iter().map(|(ty, n, b)| format!("{n} {ty:?} matrices ({:.1} MB)", *b as f64 / 1e6)).collect();
        format!("weights: {}; activations Q8 per row; KV cache f16", kinds.join(", "))
    }

    fn snapshot(&self, len: usize) -> Option<KvSnapshot> {
        let len = len.min(self.cache.len);
        let kvd = self.model.config.num_key_value_heads * self.model.config.head_dim();
        let rows = |layers: &[Vec<f32>]| layers.iter().map(|l| l[..len * kvd].to_vec()).collect::<Vec<_>>();
        let (k, v) = (rows(&self.cache.k), rows(&self.cache.v));
        let bytes = 2 * k.len() * len * kvd * 4;
        Some(KvSnapshot { len, bytes, data: Box::new(CpuKv { k, v }) })
    }

    fn restore(&mut self, snapshot: &KvSnapshot) -> bool {
        let Some(kv) = snapshot.data.downcast_ref::<CpuKv>() else { return false };
        if kv.k.len() != self.cache.k.len() || snapshot.len > self.cache.capacity {
            return false;
        }
        for (dst, src) in self.cache.k.iter_mut().zip(&kv.k).chain(self.cache.v.iter_mut().zip(&kv.v)) {
            dst[..src.len()].copy_from_slice(src);
        }
        self.cache.len = snapshot.len;
        true
    }

    fn eval(&mut self, tokens: &[u32], all: bool) -> Result<Vec<f32>, LlamaError> {
        if tokens.is_empty() {
            return Ok(Vec::new());
        }
        let rows = if all { tokens.len() } else { 1 };
        let x = self.forward(tokens, rows)?;
        let model = self.model.clone();
        let last = &x[..];
        let mut normed = vec![0.0f32; rows * model.config.hidden_size];
        rms_norm(last, &model.norm, model.config.rms_norm_eps as f32, &mut normed);
        let mut logits = vec![0.0f32; rows * model.config.vocab_size];
        model.output.matmul(&normed, rows, &mut logits);
        Ok(logits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    #[test]
    fn f16_precision_rounding_equals_half_on_every_f16_neighbourhood() {
        // Every f16 value, and the points just above, below and halfway to its neighbour.
        for bits in 0u16..=0xFFFF {
            let h = f16::from_bits(bits);
            if !h.is_finite() {
                continue;
            }
            let x = h.to_f32();
            let next = f16::from_bits(bits.wrapping_add(1)).to_f32();
            for y in [x, f32::from_bits(x.to_bits().wrapping_add(1)), f32::from_bits(x.to_bits().wrapping_sub(1)), (x + next) / 2.0] {
                if !y.is_finite() {
                    continue;
                }
                let want = f16::from_f32(y).to_f32();
                let got = to_f16_precision(y);
                assert!(got == want || (got.is_nan() && want.is_nan()), "{y:e}: {got:e} vs {want:e}");
                // The F16C path of `round_f16` (8 at a time) gives the same values.
                let mut eight = [y; 9];
                round_f16(&mut eight);
                assert!(eight.iter().all(|&r| r.to_bits() == want.to_bits()), "{y:e}: {eight:?} vs {want:e}");
            }
        }
    }

    #[test]
    fn exp_nonpositive_equals_ggml_v_expf() {
        for i in 0..=87_000 {
            let x = -(i as f32) / 1000.0;
            assert_eq!(exp_nonpositive(x).to_bits(), ggml_v_expf(x).to_bits(), "e^{x}");
        }
    }

    /// Bit patterns from ggml's own AVX512 `ggml_v_expf` (compiled with GCC, run on an AVX512
    /// CPU), across the range: subnormal results, saturation to 0 and +inf, values near 1.
    #[test]
    fn ggml_v_expf_is_bit_exact() {
        let cases: [(u32, u32); 16] = [
            (0xC316_0000, 0x0000_0000), // -150
            (0xC2CF_0000, 0x0000_0001), // -103.5: the smallest subnormal
            (0xC2AE_999A, 0x0084_C38B), // -87.3
            (0xC1A2_0000, 0x30DC_9EEF), // -20.25
            (0xBFC0_0000, 0x3E64_7C3B), // -1.5
            (0xBDCC_CCCD, 0x3F67_A36C), // -0.1
            (0x0000_0000, 0x3F80_0000), // 0
            (0x322B_CC77, 0x3F80_0000), // 1e-8
            (0x3F00_0000, 0x3FD3_094C), // 0.5
            (0x3F80_0000, 0x402D_F855), // 1
            (0x406C_CCCD, 0x4221_CA0B), // 3.7
            (0x4120_0000, 0x46AC_14F0), // 10
            (0x4229_AE14, 0x5E12_F19E), // 42.42
            (0x42B0_0000, 0x7EF8_82B7), // 88
            (0x42B1_0000, 0x7F4C_DCC3), // 88.5
            (0x4348_0000, 0x7F80_0000), // 200: +inf
        ];
        for (x, want) in cases {
            let got = ggml_v_expf(f32::from_bits(x));
            assert_eq!(got.to_bits(), want, "ggml_v_expf({})", f32::from_bits(x));
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn dot_f16_in_avx_equals_the_portable_one_bit_for_bit() {
        assert!(has_fma(), "the x86-64 CPUs this is tested on have FMA");
        let mut seed = 0x2545_F491u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            to_f16_precision((seed as f32 / u32::MAX as f32 - 0.5) * 8.0)
        };
        for len in [64, 128, 80, 192, 7] {
            for _ in 0..200 {
                let (x, y): (Vec<f32>, Vec<f32>) = (0..len).map(|_| (next(), next())).unzip();
                // SAFETY: checked above.
                let avx = unsafe { dot_f16_avx(&x, &y) };
                assert_eq!(avx.to_bits(), dot_f16_portable(&x, &y).to_bits(), "len {len}");
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn mad_f16_in_one_pass_equals_fma_then_rounding() {
        assert!(has_fma(), "the x86-64 CPUs this is tested on have FMA");
        let v: Vec<f32> = (0..67).map(|i| to_f16_precision((i as f32 * 0.37).sin() * 3.0)).collect();
        for s in [0.0f32, 1.0, 0.123_456_79, 7.5e-3] {
            let mut one: Vec<f32> = (0..67).map(|i| to_f16_precision((i as f32 * 0.11).cos())).collect();
            let mut two = one.clone();
            // SAFETY: checked above.
            unsafe { mad_f16_f16c(&mut one, &v, s) };
            for (a, &x) in two.iter_mut().zip(&v) {
                *a = to_f16_precision(x.mul_add(s, *a));
            }
            assert!(one.iter().zip(&two).all(|(a, b)| a.to_bits() == b.to_bits()), "s = {s}");
        }
    }

    #[test]
    fn sums_follow_ggml_reduction_trees() {
        // Values whose sum depends on the order: 1 + 2^-24 rounds away unless paired first.
        let tiny = f32::EPSILON / 2.0;
        let mut x = [0.0f32; 16];
        x[0] = 1.0;
        x[8] = tiny;
        x[4] = tiny;
        // reduce16: (x8 + x0) first, then + (x12 + x4): each tiny is absorbed by 1.0.
        assert_eq!(reduce16(&x), 1.0);
        x[12] = tiny;
        // (x12 + x4) = 2·tiny is representable next to 1.0 only as a whole ulp: 1 + 2^-23.
        assert_eq!(reduce16(&x), 1.0 + f32::EPSILON);
    }
}

/// Op-by-op comparison with llama.cpp: every op of the decoder is fed llama.cpp's own inputs
/// (from a `tests/reference/llama_dump` file) and its output compared bit for bit, so a
/// difference points at one op. `PS_LLAMA_DUMP=dump.bin PS_MODEL=file.gguf cargo test --release
/// -p inference --lib llama_op_parity -- --ignored --nocapture`.
#[cfg(test)]
mod llama_op_parity {
    use super::*;
    use std::collections::HashMap;

    type Dump = HashMap<(u32, String), Vec<([i64; 4], Vec<f32>)>>;

    fn read_dump(path: &str) -> Dump {
        let b = std::fs::read(path).unwrap();
        let mut o = 0;
        let mut out: Dump = HashMap::new();
        while o < b.len() {
            let ev = u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
            let n = u16::from_le_bytes(b[o + 4..o + 6].try_into().unwrap()) as usize;
            o += 6;
            let name = String::from_utf8(b[o..o + n].to_vec()).unwrap();
            o += n;
            let mut ne = [0i64; 4];
            for (i, d) in ne.iter_mut().enumerate() {
                *d = i64::from_le_bytes(b[o + 8 * i..o + 8 * i + 8].try_into().unwrap());
            }
            o += 32;
            let cnt = ne.iter().product::<i64>() as usize;
            let data = b[o..o + 4 * cnt].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
            o += 4 * cnt;
            out.entry((ev, name)).or_default().push((ne, data));
        }
        out
    }

    fn report(what: &str, ours: &[f32], theirs: &[f32]) -> bool {
        assert_eq!(ours.len(), theirs.len(), "{what}: lengths");
        let neq = ours.iter().zip(theirs).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
        let max = ours.iter().zip(theirs).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        let scale = theirs.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        if neq > 0 {
            eprintln!("{what:28} DIFF {neq}/{} max {max:.3e} (rel {:.2e})", ours.len(), max / scale.max(1e-30));
        }
        neq == 0
    }

    #[test]
    #[ignore]
    fn llama_op_parity() {
        let Ok(path) = std::env::var("PS_LLAMA_DUMP") else { return };
        let file = std::env::var("PS_MODEL").unwrap_or("SmolLM2-135M-Instruct.Q4_1.gguf".into());
        let path_of = |f: &str| if f.starts_with('/') { f.to_string() } else { format!("{}/../models/cache/{f}", env!("CARGO_MANIFEST_DIR")) };
        let bytes = std::fs::read(path_of(&file)).unwrap();
        let model = Arc::new(QuantDecoder::load(Arc::new(bytes)).unwrap());
        let lm = CpuLm::new(model.clone(), 512);
        let cfg = &model.config;
        let dump = read_dump(&path);
        let (d, hd, nh, nkv) = (cfg.hidden_size, cfg.head_dim(), cfg.num_attention_heads, cfg.num_key_value_heads);
        let (qd, kvd) = (nh * hd, nkv * hd);
        let eps = cfg.rms_norm_eps as f32;
        let mut evals: Vec<u32> = dump.keys().map(|k| k.0).collect();
        evals.sort();
        evals.dedup();
        let mut start = 0usize;
        let mut all_ok = true;
        for ev in evals {
            let get = |name: &str| dump.get(&(ev, name.to_string()));
            let first = |name: &str| get(name).map(|v| v[0].1.clone());
            let last = |name: &str| get(name).map(|v| v.last().unwrap().1.clone());
            let Some(embd) = last("embd") else { continue };
            let n = embd.len() / d;
            let mut ok = |what: String, ours: &[f32], theirs: &[f32]| {
                let r = report(&format!("ev{ev} {what}"), ours, theirs);
                all_ok &= r;
                r
            };
            let mut prev = embd.clone();
            for (li, layer) in model.layers.iter().enumerate() {
                let x = prev.clone();
                let mut h = vec![0.0; n * d];
                rms_norm(&x, &layer.attn_norm, eps, &mut h);
                let attn_norm = last(&format!("attn_norm-{li}")).unwrap();
                ok(format!("attn_norm-{li}"), &h, &attn_norm);
                let (mut q, mut k, mut v) = (vec![0.0; n * qd], vec![0.0; n * kvd], vec![0.0; n * kvd]);
                layer.q.matmul(&attn_norm, n, &mut q);
                layer.k.matmul(&attn_norm, n, &mut k);
                layer.v.matmul(&attn_norm, n, &mut v);
                let qs = get(&format!("Qcur-{li}")).unwrap();
                let ks = get(&format!("Kcur-{li}")).unwrap();
                let vs = get(&format!("Vcur-{li}")).unwrap();
                ok(format!("Qcur(matmul)-{li}"), &q, &qs[0].1);
                ok(format!("Kcur(matmul)-{li}"), &k, &ks[0].1);
                ok(format!("Vcur(matmul)-{li}"), &v, &vs[0].1);
                if let Some([bq, bk, bv]) = &layer.bias {
                    let (mut q, mut k, mut v) = (qs[0].1.clone(), ks[0].1.clone(), vs[0].1.clone());
                    add_rows(&mut q, bq);
                    add_rows(&mut k, bk);
                    add_rows(&mut v, bv);
                    ok(format!("Qcur(bias)-{li}"), &q, &qs[1].1);
                    ok(format!("Kcur(bias)-{li}"), &k, &ks[1].1);
                    ok(format!("Vcur(bias)-{li}"), &v, &vs[1].1);
                }
                // the last record before RoPE: the (biased) projection, reshaped
                let q_pre = qs[qs.len() - 2].1.clone();
                let k_pre = ks[ks.len() - 2].1.clone();
                let (mut q, mut k) = (q_pre.clone(), k_pre.clone());
                for t in 0..n {
                    lm.rope(&mut q[t * qd..(t + 1) * qd], start + t, nh);
                    lm.rope(&mut k[t * kvd..(t + 1) * kvd], start + t, nkv);
                }
                let q_rope = last(&format!("Qcur-{li}")).unwrap();
                ok(format!("Qcur(rope)-{li}"), &q, &q_rope);
                ok(format!("Kcur(rope)-{li}"), &k, &last(&format!("Kcur-{li}")).unwrap());
                let kc = first(&format!("cache_k_l{li} (view)")).unwrap();
                let vc = get(&format!("cache_v_l{li} (view)")).unwrap()[0].1.clone();
                let mut att = vec![0.0; n * qd];
                attention(&q_rope, &kc[..(start + n) * kvd], &vc[..(start + n) * kvd], start, n, nh, nkv, hd, &mut att);
                let kqv = last(&format!("kqv_out-{li}")).unwrap();
                ok(format!("kqv_out-{li}"), &att, &kqv);
                let mut proj = vec![0.0; n * d];
                layer.o.matmul(&kqv, n, &mut proj);
                // qwen2's graph leaves the projection unnamed; then `ffn_inp` checks it
                let attn_out = last(&format!("attn_out-{li}")).unwrap_or_else(|| proj.clone());
                ok(format!("attn_out-{li}"), &proj, &attn_out);
                // the last layer keeps only the output rows from here on
                let ffn_inp = last(&format!("ffn_inp-{li}")).unwrap();
                let m = ffn_inp.len() / d;
                let mut xi = x[(n - m) * d..].to_vec();
                add_into(&mut xi, &attn_out[(n - m) * d..]);
                ok(format!("ffn_inp-{li}"), &xi, &ffn_inp);
                let mut h = vec![0.0; m * d];
                rms_norm(&ffn_inp, &layer.ffn_norm, eps, &mut h);
                let ffn_norm = last(&format!("ffn_norm-{li}")).unwrap();
                ok(format!("ffn_norm-{li}"), &h, &ffn_norm);
                let ff = cfg.intermediate_size;
                let (mut g, mut u) = (vec![0.0; m * ff], vec![0.0; m * ff]);
                layer.gate.matmul(&ffn_norm, m, &mut g);
                layer.up.matmul(&ffn_norm, m, &mut u);
                let (gate, up) = (last(&format!("ffn_gate-{li}")).unwrap(), last(&format!("ffn_up-{li}")).unwrap());
                ok(format!("ffn_gate-{li}"), &g, &gate);
                ok(format!("ffn_up-{li}"), &u, &up);
                let mut sw = gate.clone();
                swiglu(&mut sw, &up);
                let swig = last(&format!("ffn_swiglu-{li}")).unwrap();
                ok(format!("ffn_swiglu-{li}"), &sw, &swig);
                let mut down = vec![0.0; m * d];
                layer.down.matmul(&swig, m, &mut down);
                let ffn_out = last(&format!("ffn_out-{li}")).unwrap();
                ok(format!("ffn_out-{li}"), &down, &ffn_out);
                let mut lo = ffn_inp.clone();
                add_into(&mut lo, &ffn_out);
                let l_out = last(&format!("l_out-{li}")).unwrap();
                ok(format!("l_out-{li}"), &lo, &l_out);
                prev = l_out;
            }
            let m = prev.len() / d;
            let mut normed = vec![0.0; m * d];
            rms_norm(&prev, &model.norm, eps, &mut normed);
            let rn = last("result_norm").unwrap();
            ok("result_norm".into(), &normed, &rn);
            let mut logits = vec![0.0; m * cfg.vocab_size];
            model.output.matmul(&rn, m, &mut logits);
            ok("result_output".into(), &logits, &last("result_output").unwrap());
            start += n;
        }
        eprintln!("all ops bit-exact: {all_ok}");
    }
}
