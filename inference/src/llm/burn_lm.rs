//! [`LanguageModel`] over the Burn [`Llama`] on any Burn device.
//!
//! [`LanguageModel::eval`] reads logits back synchronously (CPU backends, native wgpu); in the
//! browser on WebGPU a synchronous read panics, so hosts there call [`BurnLm::eval_async`] and
//! [`BurnLm::generate_greedy_async`], which never block.

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

    /// Greedy continuation of `prompt_ids` (cache cleared first), up to `max_new_tokens` or a
    /// stop id (not returned), reading logits back asynchronously; sampling happens on the CPU.
    pub async fn generate_greedy_async(&mut self, prompt_ids: &[u32], stop_ids: &[u32], max_new_tokens: usize) -> Result<Vec<u32>, LmError> {
        self.cache.clear();
        let mut out = Vec::new();
        let mut logits = self.eval_async(prompt_ids, false).await?;
        while out.len() < max_new_tokens {
            let next = super::sample::argmax(&logits);
            if stop_ids.contains(&next) {
                break;
            }
            out.push(next);
            if out.len() == max_new_tokens {
                break;
            }
            logits = self.eval_async(&[next], false).await?;
        }
        Ok(out)
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

    fn as_burn(&mut self) -> Option<&mut BurnLm> {
        Some(self)
    }
}
