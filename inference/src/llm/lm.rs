//! The one interface generation, label scoring and constrained decoding drive: a causal language
//! model together with its key/value cache (llama.cpp's `llama_context`).

use crate::model::llama::LlamaError;

/// Why a model step failed.
pub type LmError = LlamaError;

/// A causal language model and its cache of past positions.
///
/// Implemented by the quantized CPU runtime and by the Burn model (`BurnLm`). Positions are
/// appended by [`LanguageModel::eval`] and dropped by [`LanguageModel::truncate`], so a shared
/// prompt prefix is computed once and reused (label scoring, constrained decoding).
pub trait LanguageModel {
    /// Number of logits per position.
    fn vocab_size(&self) -> usize;
    /// Most positions the cache holds.
    fn context_length(&self) -> usize;
    /// Positions already in the cache.
    fn cached(&self) -> usize;
    /// Forgets positions `len..`; `truncate(0)` starts a new sequence.
    fn truncate(&mut self, len: usize);
    /// Runs `tokens` after the cached positions and returns logits, `vocab_size()` per row: the
    /// last token's only, or one row per token when `all`.
    fn eval(&mut self, tokens: &[u32], all: bool) -> Result<Vec<f32>, LmError>;
    /// The Burn model behind this one, if any: hosts that may not block (WebGPU in the browser)
    /// drive it through [`super::BurnLm::eval_async`] instead of [`LanguageModel::eval`].
    fn as_burn(&mut self) -> Option<&mut super::BurnLm> {
        None
    }
}
