//! Llama decoder (SmolLM2, TinyLlama, Llama 2/3 …) loaded from a GGUF file.
//!
//! Tensors use llama.cpp names (`token_embd.weight`, `blk.{i}.attn_q.weight`, …). Weights are
//! dequantized to `f32` when loaded. llama.cpp's converter permutes the rows of `attn_q`/`attn_k`
//! so that rotary embeddings rotate consecutive pairs `(x[2i], x[2i+1])` (ggml rope mode 0),
//! which is what [`RotaryEmbedding`] does; the Hugging Face "rotate half" layout would be wrong here.

use crate::gguf::{Gguf, GgufError};
use burn::module::{Module, Param};
use burn::nn::{Embedding, Linear};
use burn::tensor::activation::{silu, softmax};
use burn::tensor::{Device, Int, Tensor, TensorData};

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
#[derive(Debug, Default)]
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
    embed: Embedding,
    layers: Vec<DecoderLayer>,
    norm: RmsNorm,
    /// `[hidden, vocab]`
    lm_head: Linear,
    rope: RotaryEmbedding,
    max_seq: usize,
}

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
fn linear(g: &Gguf, name: &str, d_in: usize, d_out: usize, device: &Device) -> Result<Linear, LlamaError> {
    let w = load(g, name, &[d_in, d_out])?;
    Ok(linear_from_rows(&w, d_in, d_out, device))
}

/// Burn's `Linear` wants `[d_in, d_out]`; ggml stores `[d_out][d_in]` row-major: transpose.
fn linear_from_rows(w: &[f32], d_in: usize, d_out: usize, device: &Device) -> Linear {
    let mut t = vec![0.0f32; w.len()];
    for o in 0..d_out {
        for i in 0..d_in {
            t[i * d_out + o] = w[o * d_in + i];
        }
    }
    Linear { weight: Param::from_tensor(Tensor::from_data(TensorData::new(t, [d_in, d_out]), device)), bias: None }
}

fn rms_norm(g: &Gguf, name: &str, d: usize, eps: f64, device: &Device) -> Result<RmsNorm, LlamaError> {
    let w = load(g, name, &[d])?;
    Ok(RmsNorm { weight: Param::from_tensor(Tensor::from_data(TensorData::new(w, [d]), device)), eps })
}

impl Llama {
    /// Loads every tensor of a `llama` GGUF, dequantized to f32.
    pub fn from_gguf(cfg: &LlamaConfig, g: &Gguf, device: &Device) -> Result<Self, LlamaError> {
        let (d, ff, eps) = (cfg.hidden_size, cfg.intermediate_size, cfg.rms_norm_eps);
        let (hd, kvh) = (cfg.head_dim(), cfg.num_key_value_heads);
        let emb = load(g, "token_embd.weight", &[d, cfg.vocab_size])?;
        let lm_head = if g.tensor_info("output.weight").is_some() {
            linear(g, "output.weight", d, cfg.vocab_size, device)?
        } else {
            // Tied embeddings.
            linear_from_rows(&emb, d, cfg.vocab_size, device)
        };
        let embed = Embedding { weight: Param::from_tensor(Tensor::from_data(TensorData::new(emb, [cfg.vocab_size, d]), device)) };
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for i in 0..cfg.num_hidden_layers {
            let p = format!("blk.{i}");
            layers.push(DecoderLayer {
                attn_norm: rms_norm(g, &format!("{p}.attn_norm.weight"), d, eps, device)?,
                attn: Attention {
                    q: linear(g, &format!("{p}.attn_q.weight"), d, cfg.num_attention_heads * hd, device)?,
                    k: linear(g, &format!("{p}.attn_k.weight"), d, kvh * hd, device)?,
                    v: linear(g, &format!("{p}.attn_v.weight"), d, kvh * hd, device)?,
                    o: linear(g, &format!("{p}.attn_output.weight"), cfg.num_attention_heads * hd, d, device)?,
                    num_heads: cfg.num_attention_heads,
                    num_kv_heads: kvh,
                    head_dim: hd,
                },
                ffn_norm: rms_norm(g, &format!("{p}.ffn_norm.weight"), d, eps, device)?,
                mlp: Mlp {
                    gate: linear(g, &format!("{p}.ffn_gate.weight"), d, ff, device)?,
                    up: linear(g, &format!("{p}.ffn_up.weight"), d, ff, device)?,
                    down: linear(g, &format!("{p}.ffn_down.weight"), ff, d, device)?,
                },
            });
        }
        Ok(Llama {
            embed,
            layers,
            norm: rms_norm(g, "output_norm.weight", d, eps, device)?,
            lm_head,
            rope: RotaryEmbedding::new(cfg, device),
            max_seq: cfg.max_position_embeddings,
        })
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
        let ids: Vec<i64> = tokens.iter().map(|&t| t as i64).collect();
        let ids = Tensor::<2, Int>::from_data(TensorData::new(ids, [1, s]), device);
        let mut x = self.embed.forward(ids); // [1, s, hidden]
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
        Ok(self.lm_head.forward(rows))
    }
}
