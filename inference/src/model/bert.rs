//! BERT encoder (the architecture of all-MiniLM-L6-v2 and other sentence encoders).
//!
//! Struct names follow the upstream `transformers` classes so weight names line up:
//! `embeddings.word_embeddings.weight`, `encoder.layer.{i}.attention.self.query.weight`, …

use super::weights::{BertSource, Weights, WeightsError};
use burn::module::{Module, Param};
use burn::nn::{Embedding, LayerNorm, LayerNormConfig, Linear};
use burn::tensor::activation::{gelu, softmax};
use burn::tensor::{Device, Int, Tensor};
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

#[derive(Module, Debug)]
pub struct BertEmbeddings {
    /// `None` when the caller looks words up itself (a quantized table kept on the host).
    word_embeddings: Option<Embedding>,
    position_embeddings: Embedding,
    token_type_embeddings: Embedding,
    layer_norm: LayerNorm,
}

#[derive(Module, Debug)]
pub struct BertAttention {
    query: Linear,
    key: Linear,
    value: Linear,
    output: Linear,
    layer_norm: LayerNorm,
    num_heads: usize,
}

#[derive(Module, Debug)]
pub struct BertLayer {
    attention: BertAttention,
    intermediate: Linear,
    output: Linear,
    layer_norm: LayerNorm,
}

#[derive(Module, Debug)]
pub struct BertModel {
    embeddings: BertEmbeddings,
    layers: Vec<BertLayer>,
}

fn linear(w: &impl BertSource, name: &str, d_in: usize, d_out: usize, device: &Device) -> Result<Linear, WeightsError> {
    Ok(Linear {
        weight: Param::from_tensor(w.linear_weight(&format!("{name}.weight"), d_in, d_out, device)?),
        bias: Some(Param::from_tensor(w.tensor(&format!("{name}.bias"), [d_out], device)?)),
    })
}

fn layer_norm(w: &impl BertSource, name: &str, d: usize, eps: f64, device: &Device) -> Result<LayerNorm, WeightsError> {
    let mut ln = LayerNormConfig::new(d).with_epsilon(eps).init(device);
    // Checkpoints use `weight`/`bias`; very old ones `gamma`/`beta`.
    let (g, b) = if w.has(&format!("{name}.weight")) { ("weight", "bias") } else { ("gamma", "beta") };
    ln.gamma = Param::from_tensor(w.tensor(&format!("{name}.{g}"), [d], device)?);
    ln.beta = Some(Param::from_tensor(w.tensor(&format!("{name}.{b}"), [d], device)?));
    Ok(ln)
}

fn embedding(w: &impl BertSource, name: &str, n: usize, d: usize, device: &Device) -> Result<Embedding, WeightsError> {
    Ok(Embedding { weight: Param::from_tensor(w.tensor(&format!("{name}.weight"), [n, d], device)?) })
}

impl BertModel {
    pub fn from_safetensors(cfg: &BertConfig, bytes: &[u8], device: &Device) -> Result<Self, WeightsError> {
        Self::load(cfg, &Weights::parse(bytes)?, true, device)
    }

    /// The model from `w`; without `words`, the word-embedding table is left to the caller
    /// (see [`Self::forward_words`]).
    pub fn load(cfg: &BertConfig, w: &impl BertSource, words: bool, device: &Device) -> Result<Self, WeightsError> {
        let (d, eps) = (cfg.hidden_size, cfg.layer_norm_eps);
        let word_embeddings = match words {
            true => Some(embedding(w, "embeddings.word_embeddings", cfg.vocab_size, d, device)?),
            false => None,
        };
        let embeddings = BertEmbeddings {
            word_embeddings,
            position_embeddings: embedding(w, "embeddings.position_embeddings", cfg.max_position_embeddings, d, device)?,
            token_type_embeddings: embedding(w, "embeddings.token_type_embeddings", cfg.type_vocab_size, d, device)?,
            layer_norm: layer_norm(w, "embeddings.LayerNorm", d, eps, device)?,
        };
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for i in 0..cfg.num_hidden_layers {
            let p = format!("encoder.layer.{i}");
            layers.push(BertLayer {
                attention: BertAttention {
                    query: linear(w, &format!("{p}.attention.self.query"), d, d, device)?,
                    key: linear(w, &format!("{p}.attention.self.key"), d, d, device)?,
                    value: linear(w, &format!("{p}.attention.self.value"), d, d, device)?,
                    output: linear(w, &format!("{p}.attention.output.dense"), d, d, device)?,
                    layer_norm: layer_norm(w, &format!("{p}.attention.output.LayerNorm"), d, eps, device)?,
                    num_heads: cfg.num_attention_heads,
                },
                intermediate: linear(w, &format!("{p}.intermediate.dense"), d, cfg.intermediate_size, device)?,
                output: linear(w, &format!("{p}.output.dense"), cfg.intermediate_size, d, device)?,
                layer_norm: layer_norm(w, &format!("{p}.output.LayerNorm"), d, eps, device)?,
            });
        }
        Ok(BertModel { embeddings, layers })
    }

    /// Contextual token states.
    ///
    /// # Shapes
    /// - `input_ids`, `mask` (1 = token, 0 = padding): `[batch, seq]`
    /// - output: `[batch, seq, hidden]`
    pub fn forward(&self, input_ids: Tensor<2, Int>, mask: Tensor<2>) -> Tensor<3> {
        let table = self.embeddings.word_embeddings.as_ref().expect("a model loaded without its word table takes word vectors: forward_words");
        self.forward_words(table.forward(input_ids), mask)
    }

    /// [`Self::forward`] from the word vectors of the tokens (`[batch, seq, hidden]`).
    pub fn forward_words(&self, words: Tensor<3>, mask: Tensor<2>) -> Tensor<3> {
        let [batch, seq, _] = words.dims();
        let device = words.device();
        let positions = Tensor::<1, Int>::arange(0..seq as i64, &device).reshape([1, seq]).repeat_dim(0, batch);
        let types = Tensor::<2, Int>::zeros([batch, seq], &device);
        let e = &self.embeddings;
        let x = words
            + e.position_embeddings.forward(positions)
            + e.token_type_embeddings.forward(types);
        let mut x = e.layer_norm.forward(x);
        // Additive mask: 0 for tokens, a large negative number for padding. [batch, 1, 1, seq]
        let bias = (mask.clone() - 1.0).mul_scalar(1e9).reshape([batch, 1, 1, seq]);
        for layer in &self.layers {
            x = layer.forward(x, bias.clone());
        }
        x
    }
}

impl BertLayer {
    fn forward(&self, x: Tensor<3>, bias: Tensor<4>) -> Tensor<3> {
        let x = self.attention.forward(x, bias);
        let h = self.output.forward(gelu(self.intermediate.forward(x.clone())));
        self.layer_norm.forward(x + h)
    }
}

impl BertAttention {
    /// # Shapes
    /// - `x`: `[batch, seq, hidden]`, `bias`: `[batch, 1, 1, seq]`
    fn forward(&self, x: Tensor<3>, bias: Tensor<4>) -> Tensor<3> {
        let [batch, seq, hidden] = x.dims();
        let (heads, head_dim) = (self.num_heads, hidden / self.num_heads);
        let split = |t: Tensor<3>| t.reshape([batch, seq, heads, head_dim]).swap_dims(1, 2); // [b, h, s, d]
        let q = split(self.query.forward(x.clone()));
        let k = split(self.key.forward(x.clone()));
        let v = split(self.value.forward(x.clone()));
        let scores = q.matmul(k.swap_dims(2, 3)).div_scalar((head_dim as f32).sqrt()) + bias;
        let ctx = softmax(scores, 3).matmul(v); // [b, h, s, d]
        let ctx = ctx.swap_dims(1, 2).reshape([batch, seq, hidden]);
        self.layer_norm.forward(x + self.output.forward(ctx))
    }
}

/// Mean of token states over the mask, then L2-normalised.
///
/// # Shapes
/// - `states`: `[batch, seq, hidden]`, `mask`: `[batch, seq]`
/// - output: `[batch, hidden]`
pub fn mean_pool_normalize(states: Tensor<3>, mask: Tensor<2>) -> Tensor<2> {
    let [batch, seq, _] = states.dims();
    let m = mask.reshape([batch, seq, 1]);
    let summed = (states * m.clone()).sum_dim(1).squeeze_dim::<2>(1); // [b, hidden]
    let count = m.sum_dim(1).squeeze_dim::<2>(1).clamp_min(1e-9); // [b, 1]
    let mean = summed / count;
    let norm = mean.clone().powf_scalar(2.0).sum_dim(1).sqrt().clamp_min(1e-12);
    mean / norm
}
