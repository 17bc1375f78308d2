//! BERT encoder (the architecture of all-MiniLM-L6-v2 and multilingual-e5-small) on the CPU.
//!
//! Weights are read by their `transformers` names (`embeddings.word_embeddings.weight`,
//! `encoder.layer.{i}.attention.self.query.weight`, …). A batch's sequences are packed end to
//! end, without padding: each linear layer is one f32 matrix product over all of the batch's
//! tokens (the `gemm` crate, the GEMM Burn's CPU backend calls, over rayon's threads natively),
//! attention runs per sequence over that sequence's own tokens, and GELU, softmax and layer
//! norm are plain loops the compiler vectorises. The same code runs in wasm (SIMD128).

use super::decoder::{exp_nonpositive, fma_dispatch};
use super::weights::{BertSource, Weights, WeightsError, transpose_out_in};
use serde::Deserialize;

/// Hyper-parameters, mirroring the model's `config.json`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct BertConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "default_act")]
    pub hidden_act: String,
}

fn default_type_vocab() -> usize {
    2
}
fn default_eps() -> f64 {
    1e-12
}
fn default_act() -> String {
    "gelu".into()
}

impl BertConfig {
    /// all-MiniLM-L6-v2 (sentence-transformers, config.json of the published model).
    pub fn all_minilm_l6_v2() -> Self {
        BertConfig {
            vocab_size: 30522,
            hidden_size: 384,
            num_hidden_layers: 6,
            num_attention_heads: 12,
            intermediate_size: 1536,
            max_position_embeddings: 512,
            type_vocab_size: 2,
            layer_norm_eps: 1e-12,
            hidden_act: "gelu".into(),
        }
    }
}

/// A linear layer: `[in, out]` weights (PyTorch's `[out, in]` transposed once at load: `gemm`
/// packs row-major `[in, out]` faster than `[out, in]` read through strides, which embedded the
/// tutorial's chunks ~7 % slower) and a bias.
struct Linear {
    w: Vec<f32>,
    b: Vec<f32>,
    d_in: usize,
    d_out: usize,
}

impl Linear {
    fn load(w: &impl BertSource, name: &str, d_in: usize, d_out: usize) -> Result<Self, WeightsError> {
        let pytorch = w.values(&format!("{name}.weight"), &[d_out, d_in])?;
        Ok(Linear { w: transpose_out_in(&pytorch, d_in, d_out), b: w.values(&format!("{name}.bias"), &[d_out])?, d_in, d_out })
    }

    /// One layer whose outputs are those of `parts` side by side (they share their input).
    fn side_by_side(parts: &[Linear]) -> Linear {
        let d_in = parts[0].d_in;
        let d_out: usize = parts.iter().map(|p| p.d_out).sum();
        let mut w = Vec::with_capacity(d_in * d_out);
        for i in 0..d_in {
            for p in parts {
                w.extend_from_slice(&p.w[i * p.d_out..(i + 1) * p.d_out]);
            }
        }
        Linear { w, b: parts.iter().flat_map(|p| p.b.iter().copied()).collect(), d_in, d_out }
    }

    /// `x` (`n × d_in`, row-major) times the weights plus the bias: `n × d_out`.
    fn forward(&self, x: &[f32]) -> Vec<f32> {
        let n = x.len() / self.d_in;
        let mut out = Vec::with_capacity(n * self.d_out);
        for _ in 0..n {
            out.extend_from_slice(&self.b);
        }
        let (dst, lhs, rhs) = (Mat::rows(&mut out, self.d_out), Ref::rows(x, self.d_in), Ref::rows(&self.w, self.d_out));
        matmul(dst, lhs, rhs, n, self.d_out, self.d_in, 1.0, true);
        out
    }
}

/// Layer normalisation over rows of `gamma.len()` values (population variance, as PyTorch).
struct LayerNorm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
    eps: f32,
}

impl LayerNorm {
    fn load(w: &impl BertSource, name: &str, d: usize, eps: f64) -> Result<Self, WeightsError> {
        // Checkpoints use `weight`/`bias`; very old ones `gamma`/`beta`.
        let (g, b) = if w.has(&format!("{name}.weight")) { ("weight", "bias") } else { ("gamma", "beta") };
        Ok(LayerNorm { gamma: w.values(&format!("{name}.{g}"), &[d])?, beta: w.values(&format!("{name}.{b}"), &[d])?, eps: eps as f32 })
    }

    fn forward(&self, x: &mut [f32]) {
        for_rows(x, self.gamma.len(), |row| layer_norm(row, &self.gamma, &self.beta, self.eps));
    }
}

struct Layer {
    /// Query, key and value in one `[d, 3d]` matrix: one product reads the input once.
    qkv: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

pub struct BertModel {
    dim: usize,
    heads: usize,
    /// `[vocab, dim]`; `None` when the caller looks words up itself (a quantized table).
    words: Option<Vec<f32>>,
    positions: Vec<f32>,
    max_positions: usize,
    /// Token type 0's row: every sequence here is a single segment.
    token_type: Vec<f32>,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
}

impl BertModel {
    pub fn from_safetensors(cfg: &BertConfig, bytes: &[u8]) -> Result<Self, WeightsError> {
        Self::load(cfg, &Weights::parse(bytes)?, true)
    }

    /// The model from `w`; without `words`, the word-embedding table is left to the caller
    /// (see [`Self::forward`]).
    pub fn load(cfg: &BertConfig, w: &impl BertSource, words: bool) -> Result<Self, WeightsError> {
        let (d, eps) = (cfg.hidden_size, cfg.layer_norm_eps);
        let words = match words {
            true => Some(w.values("embeddings.word_embeddings.weight", &[cfg.vocab_size, d])?),
            false => None,
        };
        let types = w.values("embeddings.token_type_embeddings.weight", &[cfg.type_vocab_size, d])?;
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for i in 0..cfg.num_hidden_layers {
            let p = format!("encoder.layer.{i}");
            let (q, k, v) = (
                Linear::load(w, &format!("{p}.attention.self.query"), d, d)?,
                Linear::load(w, &format!("{p}.attention.self.key"), d, d)?,
                Linear::load(w, &format!("{p}.attention.self.value"), d, d)?,
            );
            layers.push(Layer {
                qkv: Linear::side_by_side(&[q, k, v]),
                attention_out: Linear::load(w, &format!("{p}.attention.output.dense"), d, d)?,
                attention_norm: LayerNorm::load(w, &format!("{p}.attention.output.LayerNorm"), d, eps)?,
                intermediate: Linear::load(w, &format!("{p}.intermediate.dense"), d, cfg.intermediate_size)?,
                output: Linear::load(w, &format!("{p}.output.dense"), cfg.intermediate_size, d)?,
                output_norm: LayerNorm::load(w, &format!("{p}.output.LayerNorm"), d, eps)?,
            });
        }
        Ok(BertModel {
            dim: d,
            heads: cfg.num_attention_heads,
            words,
            positions: w.values("embeddings.position_embeddings.weight", &[cfg.max_position_embeddings, d])?,
            max_positions: cfg.max_position_embeddings,
            token_type: types[..d].to_vec(),
            embedding_norm: LayerNorm::load(w, "embeddings.LayerNorm", d, eps)?,
            layers,
        })
    }

    /// Appends the word vector of token `id` (clamped into the table) to `out`. Panics on a
    /// model loaded without its table.
    pub fn push_word(&self, id: u32, out: &mut Vec<f32>) {
        let table = self.words.as_ref().expect("a model loaded without its word table takes word vectors from its caller");
        let rows = table.len() / self.dim;
        let i = (id as usize).min(rows - 1);
        out.extend_from_slice(&table[i * self.dim..(i + 1) * self.dim]);
    }

    /// Contextual token states of a batch of sequences packed end to end.
    ///
    /// # Shapes
    /// - `words`: the tokens' word vectors, `[Σ lens, hidden]` row-major, sequence after sequence
    /// - `lens`: each sequence's token count (at most the model's positions)
    /// - output: `[Σ lens, hidden]`
    pub fn forward(&self, mut x: Vec<f32>, lens: &[usize]) -> Vec<f32> {
        let d = self.dim;
        assert_eq!(x.len(), lens.iter().sum::<usize>() * d, "word vectors for every token");
        let mut row = 0;
        for &len in lens {
            assert!(len <= self.max_positions, "a sequence of {len} tokens; the model has {} positions", self.max_positions);
            for p in 0..len {
                let v = &mut x[(row + p) * d..(row + p + 1) * d];
                for ((v, pos), ty) in v.iter_mut().zip(&self.positions[p * d..(p + 1) * d]).zip(&self.token_type) {
                    *v = *v + pos + ty;
                }
            }
            row += len;
        }
        self.embedding_norm.forward(&mut x);
        for layer in &self.layers {
            x = layer.forward(x, lens, self.heads);
        }
        x
    }
}

impl Layer {
    fn forward(&self, x: Vec<f32>, lens: &[usize], heads: usize) -> Vec<f32> {
        let d = self.attention_out.d_in;
        let qkv = self.qkv.forward(&x);
        let ctx = attention(&qkv, lens, heads, d);
        let mut h = self.attention_out.forward(&ctx);
        add(&mut h, &x);
        self.attention_norm.forward(&mut h);
        let mut up = self.intermediate.forward(&h);
        for_rows(&mut up, self.intermediate.d_out, gelu);
        let mut out = self.output.forward(&up);
        add(&mut out, &h);
        self.output_norm.forward(&mut out);
        out
    }
}

/// Bidirectional multi-head attention of each sequence over its own tokens.
///
/// # Shapes
/// - `qkv`: `[Σ lens, 3·d]` (each row: query, key, value), output: `[Σ lens, d]`
fn attention(qkv: &[f32], lens: &[usize], heads: usize, d: usize) -> Vec<f32> {
    let hd = d / heads;
    let scale = 1.0 / (hd as f32).sqrt();
    let mut ctx = vec![0f32; qkv.len() / 3];
    // Each sequence owns its rows of the output.
    let mut jobs = Vec::with_capacity(lens.len());
    let (mut rest, mut start) = (ctx.as_mut_slice(), 0);
    for &len in lens {
        let (mine, tail) = rest.split_at_mut(len * d);
        jobs.push((start, len, mine));
        rest = tail;
        start += len;
    }
    each(jobs, |(start, len, out)| {
        let rows = &qkv[start * 3 * d..(start + len) * 3 * d];
        let mut scores = vec![0f32; len * len];
        for h in 0..heads {
            let q = Ref { v: &rows[h * hd..], rs: 3 * d, cs: 1 };
            // Kᵀ: element (i, j) is key j's value i.
            let kt = Ref { v: &rows[d + h * hd..], rs: 1, cs: 3 * d };
            matmul(Mat::rows(&mut scores, len), q, kt, len, len, hd, scale, false);
            for_rows_serial(&mut scores, len, softmax);
            let v = Ref { v: &rows[2 * d + h * hd..], rs: 3 * d, cs: 1 };
            let dst = Mat { v: &mut out[h * hd..], rs: d };
            matmul(dst, Ref::rows(&scores, len), v, len, hd, len, 1.0, false);
        }
    });
    ctx
}

fn add(x: &mut [f32], y: &[f32]) {
    for (x, y) in x.iter_mut().zip(y) {
        *x += y;
    }
}

// The element-wise steps, compiled for FMA/AVX-512 where the CPU has them (the crate's
// baseline is SSE2: ggml's exp would call libm's `fmaf` for every step).
fma_dispatch! {
    /// See [`softmax_body`].
    fn softmax(row: &mut [f32]) => softmax_body
}

fma_dispatch! {
    /// See [`gelu_body`].
    fn gelu(row: &mut [f32]) => gelu_body
}

fma_dispatch! {
    /// See [`layer_norm_body`].
    fn layer_norm(row: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) => layer_norm_body
}

/// `row` ← softmax(`row`), e^x as ggml computes it (its values, without its f64 step).
#[inline(always)]
fn softmax_body(row: &mut [f32]) {
    // Sixteen running maxima and sums side by side, so that each loop vectorises.
    const LANES: usize = 16;
    let mut lanes = [f32::NEG_INFINITY; LANES];
    let (chunks, tail) = row.as_chunks::<LANES>();
    for c in chunks {
        for (m, v) in lanes.iter_mut().zip(c) {
            *m = m.max(*v);
        }
    }
    let max = lanes.iter().chain(tail).fold(f32::NEG_INFINITY, |m, &v| m.max(v));
    for v in row.iter_mut() {
        *v = exp_nonpositive(*v - max);
    }
    let mut lanes = [0f32; LANES];
    let (chunks, tail) = row.as_chunks::<LANES>();
    for c in chunks {
        for (s, v) in lanes.iter_mut().zip(c) {
            *s += v;
        }
    }
    let inv = 1.0 / (lanes.iter().sum::<f32>() + tail.iter().sum::<f32>());
    row.iter_mut().for_each(|v| *v *= inv);
}

/// The exact GELU, `x·Φ(x) = ½x(1 + erf(x/√2))` (PyTorch's default), of each value.
#[inline(always)]
fn gelu_body(row: &mut [f32]) {
    for v in row.iter_mut() {
        *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// Normalised to mean 0 and variance 1 (the population variance, as PyTorch), then scaled and
/// shifted.
#[inline(always)]
fn layer_norm_body(row: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) {
    let d = row.len() as f32;
    let mean = row.iter().sum::<f32>() / d;
    let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / d;
    let inv = 1.0 / (var + eps).sqrt();
    for ((v, g), b) in row.iter_mut().zip(gamma).zip(beta) {
        *v = (*v - mean) * inv * g + b;
    }
}

/// erf as a rational function of `x` clamped to ±4 (beyond it erf is ±1 in f32): the
/// approximation of Eigen's and XLA's `generic_fast_erf_float`, no branches, no table, so it
/// vectorises (libm's `erff` does neither and took a tenth of the encoder's time).
#[inline(always)]
fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = -2.726_142_3e-10f32;
    for c in [2.770_681_4e-8, -2.101_024e-6, -5.692_506_4e-5, -7.349_906_3e-4, -2.954_600_1e-3, -1.609_603_3e-2] {
        p = p * x2 + c;
    }
    let mut q = -1.456_607_2e-5f32;
    for c in [-2.133_740_6e-4, -1.682_827e-3, -7.373_329_2e-3, -1.426_473_9e-2] {
        q = q * x2 + c;
    }
    x * p / q
}

/// A read-only strided matrix view: element (i, j) at `v[i·rs + j·cs]`.
#[derive(Clone, Copy)]
struct Ref<'a> {
    v: &'a [f32],
    rs: usize,
    cs: usize,
}

impl<'a> Ref<'a> {
    fn rows(v: &'a [f32], width: usize) -> Self {
        Ref { v, rs: width, cs: 1 }
    }

    fn fits(&self, rows: usize, cols: usize) -> bool {
        rows == 0 || cols == 0 || (rows - 1) * self.rs + (cols - 1) * self.cs < self.v.len()
    }
}

/// A writable matrix view with unit column stride: element (i, j) at `v[i·rs + j]`.
struct Mat<'a> {
    v: &'a mut [f32],
    rs: usize,
}

impl<'a> Mat<'a> {
    fn rows(v: &'a mut [f32], width: usize) -> Self {
        Mat { v, rs: width }
    }
}

/// `dst (m × n) = [dst +] scale · lhs (m × k) · rhs (k × n)`; natively over rayon's threads
/// when the product is large enough to share.
#[allow(clippy::too_many_arguments)]
fn matmul(dst: Mat, lhs: Ref, rhs: Ref, m: usize, n: usize, k: usize, scale: f32, accumulate: bool) {
    assert!(Ref { v: dst.v, rs: dst.rs, cs: 1 }.fits(m, n) && lhs.fits(m, k) && rhs.fits(k, n), "matrix views out of bounds");
    #[cfg(not(target_arch = "wasm32"))]
    let parallelism = if m * n * k >= 1 << 20 && !in_pool() { gemm::Parallelism::Rayon(0) } else { gemm::Parallelism::None };
    #[cfg(target_arch = "wasm32")]
    let parallelism = gemm::Parallelism::None;
    // SAFETY: every element the product reads or writes lies inside its slice (asserted
    // above); `dst` is borrowed mutably, so nothing else aliases it.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.v.as_mut_ptr(),
            1,
            dst.rs as isize,
            accumulate,
            lhs.v.as_ptr(),
            lhs.cs as isize,
            lhs.rs as isize,
            rhs.v.as_ptr(),
            rhs.cs as isize,
            rhs.rs as isize,
            1.0,
            scale,
            false,
            false,
            false,
            parallelism,
        );
    }
}

/// Whether this thread is one of rayon's (a product inside a parallel job stays on it).
#[cfg(not(target_arch = "wasm32"))]
fn in_pool() -> bool {
    rayon::current_thread_index().is_some()
}

/// `f` on each item, over rayon's threads natively and in wasm built with shared memory.
fn each<T: Send>(items: Vec<T>, f: impl Fn(T) + Sync + Send) {
    #[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
    if items.len() > 1 {
        use rayon::prelude::*;
        items.into_par_iter().for_each(f);
        return;
    }
    items.into_iter().for_each(f)
}

/// `f` on each row of `width` values, rows shared among the threads in blocks of ~64 K values
/// (a query's few tokens stay on one thread: no waking of parked Web Workers for them).
fn for_rows(x: &mut [f32], width: usize, f: impl Fn(&mut [f32]) + Sync + Send) {
    const BLOCK: usize = 1 << 16;
    let rows_per = (BLOCK / width.max(1)).max(1);
    each(x.chunks_mut(rows_per * width).collect(), |block| for_rows_serial(block, width, &f));
}

fn for_rows_serial(x: &mut [f32], width: usize, f: impl Fn(&mut [f32])) {
    x.chunks_exact_mut(width).for_each(f)
}

/// Mean of each sequence's token states, L2-normalised: one `hidden`-long vector per sequence.
pub fn mean_pool_normalize(states: &[f32], lens: &[usize], hidden: usize) -> Vec<Vec<f32>> {
    let mut start = 0;
    lens.iter()
        .map(|&len| {
            let mut mean = vec![0f32; hidden];
            for row in states[start * hidden..(start + len) * hidden].chunks_exact(hidden) {
                add(&mut mean, row);
            }
            start += len;
            let count = (len as f32).max(1e-9);
            mean.iter_mut().for_each(|v| *v /= count);
            let norm = mean.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
            mean.iter_mut().for_each(|v| *v /= norm);
            mean
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_the_integral() {
        let mut worst = 0f32;
        for i in -6000..=6000 {
            let x = i as f32 / 1000.0;
            worst = worst.max((erf(x) - erf_reference(x)).abs());
        }
        assert!(worst < 2e-6, "largest difference from erf: {worst}");
    }

    fn erf_reference(x: f32) -> f32 {
        // 2/√π ∫₀ˣ e^(−t²) dt by Simpson's rule in f64 (std has no erf).
        let n = 20_000;
        let h = x as f64 / n as f64;
        let f = |t: f64| (-t * t).exp();
        let mut s = f(0.0) + f(x as f64);
        for i in 1..n {
            s += f(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
        }
        (s * h / 3.0 * 2.0 / std::f64::consts::PI.sqrt()) as f32
    }

    #[test]
    fn matmul_takes_strided_views() {
        // lhs 2×3, rhs given transposed (3×2 read through strides), dst with a wider row.
        let lhs = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let rhs_t = [1.0, 0.0, 1.0, 0.0, 1.0, 1.0]; // rows of rhsᵀ: (1,0,1), (0,1,1)
        let mut dst = vec![10.0; 6];
        matmul(Mat { v: &mut dst, rs: 3 }, Ref::rows(&lhs, 3), Ref { v: &rhs_t, rs: 1, cs: 3 }, 2, 2, 3, 0.5, true);
        assert_eq!(dst, vec![10.0 + 2.0, 10.0 + 2.5, 10.0, 10.0 + 5.0, 10.0 + 5.5, 10.0]);
    }

    #[test]
    fn softmax_rows_sum_to_one() {
        let mut row = [1.0f32, 2.0, 3.0, -1e9];
        softmax(&mut row);
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!((row[2] / row[1] - std::f32::consts::E).abs() < 1e-4);
        assert!(row[3] < 1e-30, "far below the maximum: e^-87 at most ({})", row[3]);
    }
}
