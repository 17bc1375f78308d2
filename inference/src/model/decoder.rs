//! Llama and Qwen2 decoders on the quantized CPU kernels ([`crate::kernels`]), computed the
//! way llama.cpp's CPU backend computes them, so that greedy tokens agree with it exactly.
//!
//! # Precision
//! - Weight matrices stay in their GGUF block type (Q4_0/1, Q5_0/1, Q8_0, Q4_K, Q5_K, Q6_K, F16,
//!   F32) and are never dequantized; activations are quantized per row to Q8_0, Q8_1 or Q8_K
//!   (ggml's `vec_dot_type`) and multiplied in integers.
//! - Norms, biases, RoPE, SwiGLU and residuals run in f32; RMSNorm sums squares in f64.
//! - Keys and values are rounded to f16 as llama.cpp caches them (kept as f32 values, so
//!   attention needs no conversion, which wasm would do in software). Attention follows llama.cpp's flash-attention CPU path:
//!   for fewer than 64 query rows, queries are rounded to f16 and values accumulate in an f16
//!   accumulator with an online softmax; for 64 or more rows, scores and sums are f32.
//! - The embedding row of each token is dequantized to f32 (ggml `get_rows`).
//!
//! # Layout
//! llama.cpp's converter permutes `attn_q`/`attn_k` rows of llama models so rotary embeddings
//! rotate consecutive pairs (ggml rope mode 0); Qwen2 rotates the two halves (NeoX mode).

use std::sync::Arc;


use super::llama::{LlamaConfig, LlamaError};
use crate::gguf::{GgmlType, Gguf, GgufError};
use crate::kernels::{MATMUL_TYPES, QMatrix};
use crate::llm::lm::LanguageModel;

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

/// Keys and values of past positions, rounded through f16, preallocated for the whole context.
struct KvCache {
    /// Per layer, `capacity × kv_dim` keys then values.
    k: Vec<Vec<f32>>,
    v: Vec<Vec<f32>>,
    len: usize,
    capacity: usize,
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
                h[a] = x0 * cos[i] - x1 * sin[i];
                h[b] = x0 * sin[i] + x1 * cos[i];
            }
        }
    }

    /// Runs `tokens` and shows every intermediate tensor to `trace` under llama.cpp's graph names
    /// (`attn_norm-{il}`, `Qcur-{il}` …, `result_norm`, `result_output`), row-major `n × width`;
    /// for comparing with llama.cpp's `llama-eval-callback` layer by layer. Returns all logits.
    pub fn trace(&mut self, tokens: &[u32], trace: &mut dyn FnMut(&str, &[f32])) -> Result<Vec<f32>, LlamaError> {
        let x = self.forward_traced(tokens, Some(trace))?;
        let model = self.model.clone();
        let mut normed = vec![0.0f32; x.len()];
        rms_norm(&x, &model.norm, model.config.rms_norm_eps as f32, &mut normed);
        trace("result_norm", &normed);
        let mut logits = vec![0.0f32; tokens.len() * model.config.vocab_size];
        model.output.matmul(&normed, tokens.len(), &mut logits);
        trace("result_output", &logits);
        Ok(logits)
    }

    /// Runs `tokens` at positions `cache.len..`; returns the final hidden rows (`n × hidden`).
    fn forward(&mut self, tokens: &[u32]) -> Result<Vec<f32>, LlamaError> {
        self.forward_traced(tokens, None)
    }

    fn forward_traced(&mut self, tokens: &[u32], mut trace: Option<&mut dyn FnMut(&str, &[f32])>) -> Result<Vec<f32>, LlamaError> {
        let mut show = |name: &str, li: usize, data: &[f32]| {
            if let Some(t) = trace.as_mut() {
                t(&format!("{name}-{li}"), data);
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
            show("attn_norm", li, &h);
            layer.q.matmul(&h, n, &mut q);
            layer.k.matmul(&h, n, &mut k);
            layer.v.matmul(&h, n, &mut v);
            if let Some([bq, bk, bv]) = &layer.bias {
                add_rows(&mut q, bq);
                add_rows(&mut k, bk);
                add_rows(&mut v, bv);
            }
            show("Vcur", li, &v);
            for t in 0..n {
                self.rope(&mut q[t * qd..(t + 1) * qd], start + t, nh);
                self.rope(&mut k[t * kvd..(t + 1) * kvd], start + t, nkv);
            }
            show("Qcur", li, &q);
            show("Kcur", li, &k);
            let (kc, vc) = (&mut self.cache.k[li], &mut self.cache.v[li]);
            for (dst, src) in kc[start * kvd..(start + n) * kvd].iter_mut().zip(&k) {
                *dst = to_f16_precision(*src);
            }
            for (dst, src) in vc[start * kvd..(start + n) * kvd].iter_mut().zip(&v) {
                *dst = to_f16_precision(*src);
            }
            attention(&q, &kc[..(start + n) * kvd], &vc[..(start + n) * kvd], start, n, nh, nkv, hd, &mut att);
            show("kqv_out", li, &att);
            layer.o.matmul(&att, n, &mut proj);
            show("attn_out", li, &proj);
            add_into(&mut x, &proj);
            show("ffn_inp", li, &x);

            rms_norm(&x, &layer.ffn_norm, eps, &mut h);
            show("ffn_norm", li, &h);
            layer.gate.matmul(&h, n, &mut g);
            layer.up.matmul(&h, n, &mut u);
            show("ffn_gate", li, &g);
            show("ffn_up", li, &u);
            for (g, u) in g.iter_mut().zip(&u) {
                *g = *g / (1.0 + (-*g).exp()) * u;
            }
            show("ffn_swiglu", li, &g);
            layer.down.matmul(&g, n, &mut proj);
            show("ffn_out", li, &proj);
            add_into(&mut x, &proj);
            show("l_out", li, &x);
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
/// cached keys/values, into `out` (`n × heads·hd`), as llama.cpp's flash-attention CPU path.
#[allow(clippy::too_many_arguments)]
fn attention(q: &[f32], k: &[f32], v: &[f32], start: usize, n: usize, nh: usize, nkv: usize, hd: usize, out: &mut [f32]) {
    let (qd, kvd) = (nh * hd, nkv * hd);
    let group = nh / nkv;
    let scale = 1.0 / (hd as f32).sqrt();
    let f16_path = n < FA_TILE_ROWS;
    let (kf_all, vf_all) = (k, v);
    let row = |t: usize, o: &mut [f32]| {
        let visible = start + t + 1;
        let mut scores = vec![0.0f32; visible];
        let mut acc = vec![0.0f32; hd];
        let mut qf = vec![0.0f32; hd];
        for h in 0..nh {
            let kh = h / group;
            let qh = &q[t * qd + h * hd..t * qd + (h + 1) * hd];
            let o = &mut o[h * hd..(h + 1) * hd];
            let key = |j: usize| &kf_all[j * kvd + kh * hd..j * kvd + (kh + 1) * hd];
            let value = |j: usize| &vf_all[j * kvd + kh * hd..j * kvd + (kh + 1) * hd];
            if f16_path {
                for (d, &x) in qf.iter_mut().zip(qh) {
                    *d = to_f16_precision(x);
                }
                let (mut m, mut s) = (f32::NEG_INFINITY, 0.0f32);
                acc.fill(0.0);
                for j in 0..visible {
                    let score = dot_f32(key(j), &qf) * scale;
                    let (mut ms, mut vs) = (1.0f32, 1.0f32);
                    if score > m {
                        let old = m;
                        m = score;
                        ms = (old - m).exp();
                        acc.iter_mut().for_each(|a| *a *= ms);
                        round_f16(&mut acc);
                    } else {
                        vs = (score - m).exp();
                    }
                    for (a, x) in acc.iter_mut().zip(value(j)) {
                        *a += x * vs;
                    }
                    round_f16(&mut acc);
                    s = s * ms + vs;
                }
                let inv = if s == 0.0 { 0.0 } else { 1.0 / s };
                for (o, a) in o.iter_mut().zip(&acc) {
                    *o = a * inv;
                }
            } else {
                let mut m = f32::NEG_INFINITY;
                for (j, sc) in scores.iter_mut().enumerate() {
                    *sc = dot_f32(key(j), qh) * scale;
                    m = m.max(*sc);
                }
                let mut s = 0.0f64;
                for sc in scores.iter_mut() {
                    *sc = (*sc - m).exp();
                    s += *sc as f64;
                }
                o.fill(0.0);
                for (j, &p) in scores.iter().enumerate() {
                    for (o, x) in o.iter_mut().zip(value(j)) {
                        *o += p * x;
                    }
                }
                let inv = (1.0 / s) as f32;
                o.iter_mut().for_each(|x| *x *= inv);
            }
        }
    };
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        out.par_chunks_mut(qd).enumerate().for_each(|(t, o)| row(t, o));
    }
    #[cfg(target_arch = "wasm32")]
    out.chunks_mut(qd).enumerate().for_each(|(t, o)| row(t, o));
}

/// Σ a·b in f32, eight partial sums (vectorizes).
#[inline]
fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    let mut p = [0.0f32; 8];
    let (ac, ar) = a.as_chunks::<8>();
    let (bc, br) = b.as_chunks::<8>();
    for (x, y) in ac.iter().zip(bc) {
        for i in 0..8 {
            p[i] += x[i] * y[i];
        }
    }
    let tail: f32 = ar.iter().zip(br).map(|(x, y)| x * y).sum();
    ((p[0] + p[4]) + (p[2] + p[6])) + ((p[1] + p[5]) + (p[3] + p[7])) + tail
}

/// Rounds every value through f16 (llama.cpp keeps this accumulator in f16).
#[inline]
fn round_f16(x: &mut [f32]) {
    for v in x {
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

    fn eval(&mut self, tokens: &[u32], all: bool) -> Result<Vec<f32>, LlamaError> {
        if tokens.is_empty() {
            return Ok(Vec::new());
        }
        let x = self.forward(tokens)?;
        let model = self.model.clone();
        let d = model.config.hidden_size;
        let rows = if all { tokens.len() } else { 1 };
        let last = &x[(tokens.len() - rows) * d..];
        let mut normed = vec![0.0f32; rows * d];
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
            }
        }
    }
}
