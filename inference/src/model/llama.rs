//! Llama decoder (SmolLM2, TinyLlama, Llama 2/3 …) loaded from a GGUF file.
//!
//! Tensors use llama.cpp names (`token_embd.weight`, `blk.{i}.attn_q.weight`, …). Every GGUF
//! tensor is dequantized to `f32` on the host when loaded; what stays in memory then depends on the
//! [`WeightFormat`] chosen at load:
//!
//! | tensor | [`WeightFormat::F32`] | [`WeightFormat::Q8`] / [`WeightFormat::Q4`] |
//! |---|---|---|
//! | `attn_q/k/v/output`, `ffn_gate/up/down` (Linear, `[d_in, d_out]`) | f32 | Burn per-block quantized: symmetric 8-bit (`Q8S`, −127..127) or 4-bit (`Q4S`, −7..7), one f32 scale per 32 consecutive values along `d_out` |
//! | output head (`output.weight`, or `token_embd` when tied), `[d_in, vocab]` | f32, one tensor | as the Linears, split in column chunks of ≤ 8192 outputs (the on-the-fly dequantized copy stays ≤ 19 MB for d = 576) |
//! | token embedding (`token_embd`) | f32 Burn `Embedding` on the device | host table, i8 values with one f32 scale per 32 values along the hidden size, same value range as the Linears; rows are dequantized on the host for the tokens looked up |
//! | `attn_norm`, `ffn_norm`, `output_norm` | f32 | f32 |
//! | rotary cos/sin tables | f32 | f32 |
//! | activations, attention, KV cache, logits | f32 | f32 |
//!
//! How Burn 0.22 computes with a quantized weight: `linear` routes it to `q_matmul`. On flex
//! (CPU, native and wasm) the default `QTensorOps::q_matmul` dequantizes the whole weight to f32
//! and runs the float matmul (a transient f32 copy per call; flex keeps one i8 per value, for
//! Q4 too, and f32 scales), which makes Q8 decode ~200× slower than f32 there
//! (docs/BENCHMARKS.md). On wgpu/WebGPU (cubecl) the matmul can take the packed weights
//! (`PackedU32`, 4 × 8-bit or 8 × 4-bit per `u32`) with their scales as a quantized input, or
//! dequantizes first (naive kernel). llama.cpp's converter permutes the rows of `attn_q`/`attn_k`
//! so that rotary embeddings rotate consecutive pairs `(x[2i], x[2i+1])` (ggml rope mode 0),
//! which is what [`RotaryEmbedding`] does; the Hugging Face "rotate half" layout would be wrong here.

use crate::gguf::{Gguf, GgufError};
use burn::module::{Module, Param};
use burn::nn::{Embedding, Linear};
use burn::tensor::activation::{silu, softmax};
use burn::tensor::quantization::{QuantScheme, QuantValue, ScaleDtype};
use burn::tensor::{DType, Device, Int, Tensor, TensorData};

/// How the matmul weights of a [`Llama`] are kept in memory (chosen at load; see the module docs
/// for every tensor's precision).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WeightFormat {
    /// Everything f32 (4 bytes per weight).
    #[default]
    F32,
    /// Burn per-block quantization: symmetric 8-bit values, one f32 scale per block of 32.
    Q8,
    /// Burn per-block quantization: symmetric 4-bit values (−7..7), one f32 scale per block of 32.
    Q4,
}

/// Values per quantization block (along the innermost dimension).
pub const QUANT_BLOCK: usize = 32;

impl WeightFormat {
    /// `f32`, `q8` or `q4`.
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "f32" => Some(Self::F32),
            "q8" => Some(Self::Q8),
            "q4" => Some(Self::Q4),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::Q8 => "q8",
            Self::Q4 => "q4",
        }
    }

    /// Burn's scheme for the matmul weights on `device`, none for f32. Starts from the device's
    /// default scheme so that the store (packing) is one the backend supports. Scales are f32:
    /// with f16 scales Chromium's SwiftShader WebGPU rejects Burn's quantize shader (presumably
    /// no `shader-f16`; docs/BENCHMARKS.md), and adapters without that feature would too.
    pub fn scheme(self, device: &Device) -> Option<QuantScheme> {
        let value = match self {
            Self::F32 => return None,
            Self::Q8 => QuantValue::Q8S,
            Self::Q4 => QuantValue::Q4S,
        };
        Some(device.settings().quantization.scheme.with_value(value).per_block([QUANT_BLOCK as u8], ScaleDtype::F32))
    }

    /// Largest quantized magnitude (symmetric range).
    fn qmax(self) -> f32 {
        match self {
            Self::F32 => 0.0,
            Self::Q8 => 127.0,
            Self::Q4 => 7.0,
        }
    }
}

/// Token embedding table quantized on the host (rows are looked up and dequantized there).
#[derive(Clone, Debug)]
pub struct HostQuantEmbedding {
    /// `[vocab, dim]` quantized values.
    values: Vec<i8>,
    /// One per `QUANT_BLOCK` values of a row.
    scales: Vec<f32>,
    dim: usize,
    vocab: usize,
}

impl HostQuantEmbedding {
    /// Symmetric absmax per block of `QUANT_BLOCK` values along a row, f32 scales.
    fn new(rows: &[f32], vocab: usize, dim: usize, qmax: f32) -> Self {
        assert_eq!(rows.len(), vocab * dim);
        assert_eq!(dim % QUANT_BLOCK, 0, "embedding size {dim} is not a multiple of {QUANT_BLOCK}");
        let mut values = Vec::with_capacity(rows.len());
        let mut scales = Vec::with_capacity(rows.len() / QUANT_BLOCK);
        for block in rows.chunks(QUANT_BLOCK) {
            let amax = block.iter().fold(0.0f32, |m, &x| m.max(x.abs()));
            let scale = amax / qmax;
            let inv = if scale > 0.0 { 1.0 / scale } else { 0.0 };
            values.extend(block.iter().map(|&x| (x * inv).round().clamp(-qmax, qmax) as i8));
            scales.push(scale);
        }
        HostQuantEmbedding { values, scales, dim, vocab }
    }

    /// Rows of `tokens`, dequantized, as `[1, tokens.len(), dim]`.
    fn forward(&self, tokens: &[u32], device: &Device) -> Tensor<3> {
        let mut out = Vec::with_capacity(tokens.len() * self.dim);
        for &t in tokens {
            let t = (t as usize).min(self.vocab - 1);
            let row = &self.values[t * self.dim..(t + 1) * self.dim];
            let scales = &self.scales[t * self.dim / QUANT_BLOCK..(t + 1) * self.dim / QUANT_BLOCK];
            for (block, &s) in row.chunks(QUANT_BLOCK).zip(scales) {
                out.extend(block.iter().map(|&q| q as f32 * s));
            }
        }
        Tensor::from_data(TensorData::new(out, [1, tokens.len(), self.dim]), device)
    }

    /// Bytes held: one per value plus an f32 scale per block.
    pub fn bytes(&self) -> usize {
        self.values.len() + 4 * self.scales.len()
    }
}

/// One line of [`Llama::precision_report`]: a kind of tensor, its precision, how many and their size.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorPrecision {
    pub kind: &'static str,
    pub precision: String,
    pub count: usize,
    pub params: usize,
    /// Bytes as stored: f32 4 per value; Burn-quantized weights at their packed size (bits per
    /// value / 8, plus a scale per block: what wgpu/WebGPU hold; flex holds one i8 per value, for
    /// Q4 too); the host embedding as [`HostQuantEmbedding::bytes`].
    pub bytes: usize,
}

/// Hyper-parameters, read from `{arch}.*` metadata keys.
#[derive(Clone, Debug, PartialEq)]
pub struct LlamaConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub intermediate_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub num_key_value_heads: usize,
    pub rope_theta: f32,
    pub rms_norm_eps: f64,
    pub max_position_embeddings: usize,
}

impl LlamaConfig {
    /// Reads the configuration of a `llama` GGUF.
    pub fn from_gguf(gguf: &Gguf) -> Result<Self, GgufError> {
        let arch = gguf.architecture()?;
        let key = |k: &str| format!("{arch}.{k}");
        let heads = gguf.get_u32(&key("attention.head_count"))? as usize;
        let vocab_size = match gguf.get_u32(&key("vocab_size")) {
            Ok(v) => v as usize,
            Err(_) => gguf.get_str_array("tokenizer.ggml.tokens")?.len(),
        };
        Ok(LlamaConfig {
            vocab_size,
            hidden_size: gguf.get_u32(&key("embedding_length"))? as usize,
            intermediate_size: gguf.get_u32(&key("feed_forward_length"))? as usize,
            num_hidden_layers: gguf.get_u32(&key("block_count"))? as usize,
            num_attention_heads: heads,
            num_key_value_heads: gguf.get_u32(&key("attention.head_count_kv")).map(|v| v as usize).unwrap_or(heads),
            rope_theta: gguf.get_f32(&key("rope.freq_base")).unwrap_or(10_000.0),
            rms_norm_eps: gguf.get_f32(&key("attention.layer_norm_rms_epsilon"))? as f64,
            max_position_embeddings: gguf.get_u32(&key("context_length"))? as usize,
        })
    }

    pub fn head_dim(&self) -> usize {
        self.hidden_size / self.num_attention_heads
    }
}

/// Why a model could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LlamaError {
    #[error(transparent)]
    Gguf(#[from] GgufError),
    #[error("tensor {name} has dims {found:?}, expected {expected:?} (innermost first); the GGUF does not match its metadata")]
    Shape { name: String, found: Vec<u64>, expected: Vec<u64> },
    #[error("cannot read the logits back: {0}")]
    Readback(String),
    #[error("position {pos} is past the context length {max}; clear the cache or shorten the prompt")]
    ContextFull { pos: usize, max: usize },
    #[error("token id {id} is outside the vocabulary of {vocab} tokens")]
    BadToken { id: u32, vocab: usize },
    #[error("{0}")]
    Unsupported(String),
}

/// Cos/sin tables for rotary embeddings over consecutive pairs.
#[derive(Module, Debug)]
pub struct RotaryEmbedding {
    /// `[max_seq, head_dim / 2]`
    cos: Tensor<2>,
    /// `[max_seq, head_dim / 2]`
    sin: Tensor<2>,
}

impl RotaryEmbedding {
    fn new(cfg: &LlamaConfig, device: &Device) -> Self {
        let half = cfg.head_dim() / 2;
        let max = cfg.max_position_embeddings;
        // As ggml's rope cache: theta starts at the position and is multiplied by
        // base^(-2/head_dim) once per pair, in f32.
        let scale = cfg.rope_theta.powf(-2.0 / cfg.head_dim() as f32);
        let (mut cos, mut sin) = (Vec::with_capacity(max * half), Vec::with_capacity(max * half));
        for p in 0..max {
            let mut theta = p as f32;
            for _ in 0..half {
                cos.push(theta.cos());
                sin.push(theta.sin());
                theta *= scale;
            }
        }
        RotaryEmbedding {
            cos: Tensor::from_data(TensorData::new(cos, [max, half]), device),
            sin: Tensor::from_data(TensorData::new(sin, [max, half]), device),
        }
    }

    /// # Shapes
    /// - `x`: `[batch, heads, seq, head_dim]`, positions `start..start + seq`
    fn forward(&self, x: Tensor<4>, start: usize) -> Tensor<4> {
        let [b, h, s, d] = x.dims();
        let half = d / 2;
        let cos = self.cos.clone().slice([start..start + s, 0..half]).reshape([1, 1, s, half, 1]);
        let sin = self.sin.clone().slice([start..start + s, 0..half]).reshape([1, 1, s, half, 1]);
        let x = x.reshape([b, h, s, half, 2]);
        let x0 = x.clone().slice([0..b, 0..h, 0..s, 0..half, 0..1]);
        let x1 = x.slice([0..b, 0..h, 0..s, 0..half, 1..2]);
        let y0 = x0.clone() * cos.clone() - x1.clone() * sin.clone();
        let y1 = x0 * sin + x1 * cos;
        Tensor::cat(vec![y0, y1], 4).reshape([b, h, s, d])
    }
}

/// Root-mean-square norm with a learned scale.
#[derive(Module, Debug)]
pub struct RmsNorm {
    weight: Param<Tensor<1>>,
    eps: f64,
}

impl RmsNorm {
    /// # Shapes
    /// - `x`: `[batch, seq, hidden]`
    fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        let [_, _, d] = x.dims();
        let rms = x.clone().powf_scalar(2.0).mean_dim(2).add_scalar(self.eps).sqrt(); // [b, s, 1]
        (x / rms) * self.weight.val().reshape([1, 1, d])
    }
}

/// SwiGLU feed-forward: `down(silu(gate(x)) * up(x))`.
#[derive(Module, Debug)]
pub struct Mlp {
    gate: Linear,
    up: Linear,
    down: Linear,
}

impl Mlp {
    fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        self.down.forward(silu(self.gate.forward(x.clone())) * self.up.forward(x))
    }
}

/// Grouped-query self-attention with rotary embeddings.
#[derive(Module, Debug)]
pub struct Attention {
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    num_heads: usize,
    num_kv_heads: usize,
    head_dim: usize,
}

/// Keys and values seen so far, one entry per layer; not a Module, passed `&mut`.
#[derive(Clone, Debug, Default)]
pub struct LlamaCache {
    /// Per layer `(keys, values)`, each `[batch, kv_heads, past, head_dim]`.
    kv: Vec<Option<(Tensor<4>, Tensor<4>)>>,
    /// Number of positions already in the cache.
    pos: usize,
}

impl LlamaCache {
    pub fn new(cfg: &LlamaConfig) -> Self {
        LlamaCache { kv: (0..cfg.num_hidden_layers).map(|_| None).collect(), pos: 0 }
    }

    /// Positions already processed.
    pub fn len(&self) -> usize {
        self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.pos == 0
    }

    /// Forgets every position, for a new prompt.
    pub fn clear(&mut self) {
        self.kv.iter_mut().for_each(|e| *e = None);
        self.pos = 0;
    }

    /// Forgets positions `len..` (a no-op when `len >= self.len()`).
    pub fn truncate(&mut self, len: usize) {
        if len == 0 {
            return self.clear();
        }
        if len >= self.pos {
            return;
        }
        for (k, v) in self.kv.iter_mut().flatten() {
            let [b, h, _, d] = k.dims();
            *k = k.clone().slice([0..b, 0..h, 0..len, 0..d]);
            *v = v.clone().slice([0..b, 0..h, 0..len, 0..d]);
        }
        self.pos = len;
    }
}

impl Attention {
    /// # Shapes
    /// - `x`: `[batch, seq, hidden]`; `mask`: `[1, 1, seq, past + seq]` additive, or none for one token
    fn forward(
        &self,
        x: Tensor<3>,
        rope: &RotaryEmbedding,
        start: usize,
        mask: Option<Tensor<4>>,
        cache: &mut Option<(Tensor<4>, Tensor<4>)>,
    ) -> Tensor<3> {
        let [b, s, _] = x.dims();
        let (h, kvh, d) = (self.num_heads, self.num_kv_heads, self.head_dim);
        let q = self.q.forward(x.clone()).reshape([b, s, h, d]).swap_dims(1, 2); // [b, h, s, d]
        let k = self.k.forward(x.clone()).reshape([b, s, kvh, d]).swap_dims(1, 2); // [b, kvh, s, d]
        let v = self.v.forward(x).reshape([b, s, kvh, d]).swap_dims(1, 2);
        let q = rope.forward(q, start);
        let k = rope.forward(k, start);
        let (k, v) = match cache.take() {
            Some((pk, pv)) => (Tensor::cat(vec![pk, k], 2), Tensor::cat(vec![pv, v], 2)),
            None => (k, v),
        };
        *cache = Some((k.clone(), v.clone()));
        let t = k.dims()[2];
        let rep = h / kvh;
        // Query head i reads key/value head i / rep. [b, h, t, d]
        let repeat = |x: Tensor<4>| x.reshape([b, kvh, 1, t, d]).repeat_dim(2, rep).reshape([b, h, t, d]);
        let (k, v) = if rep > 1 { (repeat(k), repeat(v)) } else { (k, v) };
        let mut scores = q.matmul(k.swap_dims(2, 3)).div_scalar((d as f32).sqrt()); // [b, h, s, t]
        if let Some(m) = mask {
            scores = scores + m;
        }
        let ctx = softmax(scores, 3).matmul(v); // [b, h, s, d]
        self.o.forward(ctx.swap_dims(1, 2).reshape([b, s, h * d]))
    }
}

/// Pre-norm decoder block.
#[derive(Module, Debug)]
pub struct DecoderLayer {
    attn_norm: RmsNorm,
    attn: Attention,
    ffn_norm: RmsNorm,
    mlp: Mlp,
}

/// The whole decoder with its output head.
#[derive(Module, Debug)]
pub struct Llama {
    /// f32 embedding on the device ([`WeightFormat::F32`]).
    embed: Option<Embedding>,
    /// Quantized embedding on the host (quantized formats).
    #[module(skip)]
    embed_q: Option<HostQuantEmbedding>,
    layers: Vec<DecoderLayer>,
    norm: RmsNorm,
    /// `[hidden, vocab]`, in column chunks when quantized (outputs concatenated).
    lm_head: Vec<Linear>,
    rope: RotaryEmbedding,
    max_seq: usize,
    #[module(skip)]
    format: WeightFormat,
}

/// Output columns per chunk of a quantized output head.
const HEAD_CHUNK: usize = 8192;

/// Tensor `name` as f32 after checking its ggml dims (innermost first).
fn load(g: &Gguf, name: &str, dims: &[usize]) -> Result<Vec<f32>, LlamaError> {
    let info = g.tensor_info(name).ok_or_else(|| GgufError::MissingTensor { name: name.to_string() })?;
    let expected: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
    if info.dims != expected {
        return Err(LlamaError::Shape { name: name.to_string(), found: info.dims.clone(), expected });
    }
    Ok(g.dequantize(name)?)
}

/// A linear layer from a ggml weight with dims `[d_in, d_out]` (rows of `d_in`), no bias.
fn linear(g: &Gguf, name: &str, d_in: usize, d_out: usize, format: WeightFormat, device: &Device) -> Result<Linear, LlamaError> {
    let w = load(g, name, &[d_in, d_out])?;
    Ok(linear_from_rows(&w, d_in, d_out, 0..d_out, format, device))
}

/// Burn's `Linear` wants `[d_in, d_out]`; ggml stores `[d_out][d_in]` row-major: transpose
/// (output rows `outs` only), then quantize on the device as `format` says.
fn linear_from_rows(
    w: &[f32],
    d_in: usize,
    d_out: usize,
    outs: std::ops::Range<usize>,
    format: WeightFormat,
    device: &Device,
) -> Linear {
    assert_eq!(w.len(), d_in * d_out);
    let n = outs.len();
    let mut t = vec![0.0f32; d_in * n];
    for (j, o) in outs.enumerate() {
        for i in 0..d_in {
            t[i * n + j] = w[o * d_in + i];
        }
    }
    let weight = Tensor::<2>::from_data(TensorData::new(t, [d_in, n]), device);
    let weight = match format.scheme(device) {
        // Burn quantizes blocks of 32 along the innermost dimension (`d_out`).
        Some(scheme) if n % QUANT_BLOCK == 0 => weight.quantize_dynamic(&scheme),
        _ => weight,
    };
    Linear { weight: Param::from_tensor(weight), bias: None }
}

/// The output head from ggml rows `[vocab][d]`: one f32 Linear, or quantized column chunks.
fn head_from_rows(w: &[f32], d: usize, vocab: usize, format: WeightFormat, device: &Device) -> Vec<Linear> {
    let chunk = if format == WeightFormat::F32 { vocab } else { HEAD_CHUNK };
    (0..vocab).step_by(chunk.max(1)).map(|s| linear_from_rows(w, d, vocab, s..(s + chunk).min(vocab), format, device)).collect()
}

/// Precision and stored bytes of one weight tensor (see [`TensorPrecision::bytes`]).
fn describe(t: &Tensor<2>) -> (String, usize) {
    let n = t.shape().num_elements();
    match t.dtype() {
        DType::QFloat(s) => {
            let block = s.block_size().map(|b| b.num_elements()).unwrap_or(n);
            let scale_bytes = match s.scale_dtype() {
                ScaleDtype::F32 => 4,
                ScaleDtype::F16 | ScaleDtype::BF16 => 2,
                _ => 1,
            };
            (
                format!("{:?} block {block} ({:?} scales)", s.value, s.scale_dtype()),
                n * s.size_bits_value() / 8 + n.div_ceil(block) * scale_bytes,
            )
        }
        dt => (format!("{dt:?}"), n * dt.size()),
    }
}

fn rms_norm(g: &Gguf, name: &str, d: usize, eps: f64, device: &Device) -> Result<RmsNorm, LlamaError> {
    let w = load(g, name, &[d])?;
    Ok(RmsNorm { weight: Param::from_tensor(Tensor::from_data(TensorData::new(w, [d]), device)), eps })
}

impl Llama {
    /// Loads every tensor of a `llama` GGUF, dequantized to f32 ([`WeightFormat::F32`]).
    pub fn from_gguf(cfg: &LlamaConfig, g: &Gguf, device: &Device) -> Result<Self, LlamaError> {
        Self::from_gguf_with(cfg, g, device, WeightFormat::F32)
    }

    /// Loads a `llama` GGUF keeping the matmul weights as `format` says (module docs: the
    /// precision of every tensor).
    pub fn from_gguf_with(cfg: &LlamaConfig, g: &Gguf, device: &Device, format: WeightFormat) -> Result<Self, LlamaError> {
        let (d, ff, eps) = (cfg.hidden_size, cfg.intermediate_size, cfg.rms_norm_eps);
        let (hd, kvh) = (cfg.head_dim(), cfg.num_key_value_heads);
        let emb = load(g, "token_embd.weight", &[d, cfg.vocab_size])?;
        let lm_head = if g.tensor_info("output.weight").is_some() {
            let w = load(g, "output.weight", &[d, cfg.vocab_size])?;
            head_from_rows(&w, d, cfg.vocab_size, format, device)
        } else {
            // Tied embeddings.
            head_from_rows(&emb, d, cfg.vocab_size, format, device)
        };
        let (embed, embed_q) = if format == WeightFormat::F32 || d % QUANT_BLOCK != 0 {
            let t = Tensor::from_data(TensorData::new(emb, [cfg.vocab_size, d]), device);
            (Some(Embedding { weight: Param::from_tensor(t) }), None)
        } else {
            (None, Some(HostQuantEmbedding::new(&emb, cfg.vocab_size, d, format.qmax())))
        };
        let linear = |name: &str, d_in: usize, d_out: usize| linear(g, name, d_in, d_out, format, device);
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for i in 0..cfg.num_hidden_layers {
            let p = format!("blk.{i}");
            layers.push(DecoderLayer {
                attn_norm: rms_norm(g, &format!("{p}.attn_norm.weight"), d, eps, device)?,
                attn: Attention {
                    q: linear(&format!("{p}.attn_q.weight"), d, cfg.num_attention_heads * hd)?,
                    k: linear(&format!("{p}.attn_k.weight"), d, kvh * hd)?,
                    v: linear(&format!("{p}.attn_v.weight"), d, kvh * hd)?,
                    o: linear(&format!("{p}.attn_output.weight"), cfg.num_attention_heads * hd, d)?,
                    num_heads: cfg.num_attention_heads,
                    num_kv_heads: kvh,
                    head_dim: hd,
                },
                ffn_norm: rms_norm(g, &format!("{p}.ffn_norm.weight"), d, eps, device)?,
                mlp: Mlp {
                    gate: linear(&format!("{p}.ffn_gate.weight"), d, ff)?,
                    up: linear(&format!("{p}.ffn_up.weight"), d, ff)?,
                    down: linear(&format!("{p}.ffn_down.weight"), ff, d)?,
                },
            });
        }
        Ok(Llama {
            embed,
            embed_q,
            layers,
            norm: rms_norm(g, "output_norm.weight", d, eps, device)?,
            lm_head,
            rope: RotaryEmbedding::new(cfg, device),
            max_seq: cfg.max_position_embeddings,
            format,
        })
    }

    /// The format the matmul weights were loaded in.
    pub fn weight_format(&self) -> WeightFormat {
        self.format
    }

    /// Every weight tensor's precision and stored size, grouped by kind (rotary tables, 2 ×
    /// `[context, head_dim / 2]` f32, are not weights and not counted).
    pub fn precision_report(&self) -> Vec<TensorPrecision> {
        let mut out: Vec<TensorPrecision> = Vec::new();
        let mut add = |kind: &'static str, precision: String, params: usize, bytes: usize| {
            match out.iter_mut().find(|e| e.kind == kind && e.precision == precision) {
                Some(e) => {
                    e.count += 1;
                    e.params += params;
                    e.bytes += bytes;
                }
                None => out.push(TensorPrecision { kind, precision, count: 1, params, bytes }),
            }
        };
        let mut lin = |kind: &'static str, l: &Linear| {
            let w = l.weight.val();
            let (p, b) = describe(&w);
            add(kind, p, w.shape().num_elements(), b);
        };
        for layer in &self.layers {
            for l in [&layer.attn.q, &layer.attn.k, &layer.attn.v, &layer.attn.o] {
                lin("attention matmuls", l);
            }
            for l in [&layer.mlp.gate, &layer.mlp.up, &layer.mlp.down] {
                lin("feed-forward matmuls", l);
            }
        }
        for l in &self.lm_head {
            lin("output head", l);
        }
        let mut add = |kind: &'static str, precision: String, count: usize, params: usize, bytes: usize| {
            out.push(TensorPrecision { kind, precision, count, params, bytes });
        };
        match (&self.embed, &self.embed_q) {
            (_, Some(e)) => add(
                "token embedding (host)",
                format!("i8 in ±{} block {QUANT_BLOCK} (F32 scales)", self.format.qmax()),
                1,
                e.values.len(),
                e.bytes(),
            ),
            (Some(e), None) => {
                let n = e.weight.shape().num_elements();
                add("token embedding", "F32".into(), 1, n, 4 * n);
            }
            (None, None) => {}
        }
        let norms: usize =
            self.layers.iter().map(|l| l.attn_norm.weight.shape().num_elements() + l.ffn_norm.weight.shape().num_elements()).sum::<usize>()
                + self.norm.weight.shape().num_elements();
        add("RMSNorm scales", "F32".into(), 2 * self.layers.len() + 1, norms, 4 * norms);
        out
    }

    /// Bytes of all weight tensors as stored ([`Llama::precision_report`]).
    pub fn weight_bytes(&self) -> usize {
        self.precision_report().iter().map(|e| e.bytes).sum()
    }

    /// Runs `tokens` after the positions already in `cache` and returns the logits of the last one.
    ///
    /// # Shapes
    /// - output: `[1, vocab]`
    pub fn forward(&self, tokens: &[u32], cache: &mut LlamaCache, device: &Device) -> Result<Tensor<2>, LlamaError> {
        self.forward_rows(tokens, cache, device, false)
    }

    /// As [`Llama::forward`], with the logits of every token when `all`.
    ///
    /// # Shapes
    /// - output: `[tokens.len(), vocab]` when `all`, else `[1, vocab]`
    pub fn forward_rows(
        &self,
        tokens: &[u32],
        cache: &mut LlamaCache,
        device: &Device,
        all: bool,
    ) -> Result<Tensor<2>, LlamaError> {
        let s = tokens.len();
        let start = cache.pos;
        if start + s > self.max_seq {
            return Err(LlamaError::ContextFull { pos: start + s, max: self.max_seq });
        }
        if cache.kv.len() != self.layers.len() {
            cache.kv = (0..self.layers.len()).map(|_| None).collect();
        }
        let mut x = match (&self.embed, &self.embed_q) {
            (_, Some(table)) => table.forward(tokens, device),
            (Some(embed), None) => {
                let ids: Vec<i64> = tokens.iter().map(|&t| t as i64).collect();
                embed.forward(Tensor::<2, Int>::from_data(TensorData::new(ids, [1, s]), device))
            }
            (None, None) => unreachable!("a Llama has an embedding"),
        }; // [1, s, hidden]
        // Causal mask over [past + new] keys: query i sees keys up to start + i.
        let mask = (s > 1).then(|| {
            let t = start + s;
            let m: Vec<f32> =
                (0..s).flat_map(|i| (0..t).map(move |j| if j > start + i { f32::NEG_INFINITY } else { 0.0 })).collect();
            Tensor::<4>::from_data(TensorData::new(m, [1, 1, s, t]), device)
        });
        for (layer, kv) in self.layers.iter().zip(cache.kv.iter_mut()) {
            let h = layer.attn.forward(layer.attn_norm.forward(x.clone()), &self.rope, start, mask.clone(), kv);
            x = x + h;
            x = x.clone() + layer.mlp.forward(layer.ffn_norm.forward(x));
        }
        cache.pos += s;
        let [_, _, d] = x.dims();
        let from = if all { 0 } else { s - 1 };
        let rows = self.norm.forward(x.slice([0..1, from..s, 0..d])).reshape([s - from, d]);
        if let [head] = self.lm_head.as_slice() {
            return Ok(head.forward(rows));
        }
        Ok(Tensor::cat(self.lm_head.iter().map(|h| h.forward(rows.clone())).collect(), 1))
    }
}
