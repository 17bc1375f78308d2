//! [`LanguageModel`] over the Burn [`Llama`] (any Burn device; logits read back synchronously).

use super::lm::{LanguageModel, LmError};
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
}
