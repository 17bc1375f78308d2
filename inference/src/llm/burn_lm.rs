//! [`LanguageModel`] over the Burn [`Llama`] on any Burn device.
//!
//! [`LanguageModel::eval`] reads logits back synchronously (CPU backends, native wgpu); in the
//! browser on WebGPU a synchronous read panics, so there the generation loop calls
//! [`BurnLm::eval_async`] (through [`super::lm::Eval`]), which never blocks.

use super::lm::{KvSnapshot, LanguageModel, LmError};
use crate::model::llama::{Llama, LlamaCache, LlamaConfig};
use burn::tensor::Device;

/// A Burn llama-family model with its cache, on one device.
pub struct BurnLm {
    pub model: Llama,
    pub cache: LlamaCache,
    pub config: LlamaConfig,
    pub device: Device,
}

impl BurnLm {
    pub fn new(model: Llama, config: LlamaConfig, device: Device) -> Self {
        BurnLm { cache: LlamaCache::new(&config), model, config, device }
    }
}

impl BurnLm {
    /// [`LanguageModel::eval`] with an asynchronous readback (`into_data_async`): the only form
    /// that works on WebGPU in the browser.
    pub async fn eval_async(&mut self, tokens: &[u32], all: bool) -> Result<Vec<f32>, LmError> {
        if let Some(&id) = tokens.iter().find(|&&t| t as usize >= self.config.vocab_size) {
            return Err(LmError::BadToken { id, vocab: self.config.vocab_size });
        }
        let logits = self.model.forward_rows(tokens, &mut self.cache, &self.device, all)?;
        logits
            .into_data_async()
            .await
            .map_err(|e| LmError::Readback(format!("{e:?}")))?
            .try_to_vec::<f32>()
            .map_err(|e| LmError::Readback(format!("{e:?}")))
    }
}

impl LanguageModel for BurnLm {
    fn vocab_size(&self) -> usize {
        self.config.vocab_size
    }

    fn context_length(&self) -> usize {
        self.config.max_position_embeddings
    }

    fn cached(&self) -> usize {
        self.cache.len()
    }

    fn truncate(&mut self, len: usize) {
        self.cache.truncate(len);
    }

    fn eval(&mut self, tokens: &[u32], all: bool) -> Result<Vec<f32>, LmError> {
        if let Some(&id) = tokens.iter().find(|&&t| t as usize >= self.config.vocab_size) {
            return Err(LmError::BadToken { id, vocab: self.config.vocab_size });
        }
        let logits = self.model.forward_rows(tokens, &mut self.cache, &self.device, all)?;
        logits
            .try_into_data()
            .map_err(|e| LmError::Readback(format!("{e:?}")))?
            .try_to_vec::<f32>()
            .map_err(|e| LmError::Readback(format!("{e:?}")))
    }

    fn describe(&self) -> String {
        let m = &self.model;
        let kinds: Vec<String> = m.precision_report().iter().map(|e| format!("{} {}: {} ({:.1} MB)", e.count, e.kind, e.precision, e.bytes as f64 / 1e6)).collect();
        format!(
            "weights ({}, {:.1} MB): {}; rotary tables, activations, KV cache and logits f32",
            m.weight_format().name(),
            m.weight_bytes() as f64 / 1e6,
            kinds.join(", ")
        )
    }

    fn snapshot(&self, len: usize) -> Option<KvSnapshot> {
        // Burn tensors are immutable and shared: the copy is a handle per layer, not the data.
        let mut cache = self.cache.clone();
        cache.truncate(len);
        Some(KvSnapshot { len: cache.len(), bytes: 0, data: Box::new(cache) })
    }

    fn restore(&mut self, snapshot: &KvSnapshot) -> bool {
        match snapshot.data.downcast_ref::<LlamaCache>() {
            Some(cache) => {
                self.cache = cache.clone();
                true
            }
            None => false,
        }
    }

    fn as_burn(&mut self) -> Option<&mut BurnLm> {
        Some(self)
    }
}
