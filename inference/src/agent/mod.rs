//! Agents: the features a learner uses, built from retrieval and the language model.
//!
//! Each agent is one file and knows nothing of the UI: it takes what retrieval found and a
//! [`ChatModel`], and returns text and structured results the app renders.
//!
//! - [`ask`]: grounded conceptual Q&A (ACE-TA "Ask"): evidence → structured prompt → cited answer.
//! - [`decode`]: step-wise greedy decoding for hosts that must yield between tokens (the browser
//!   worker answers Stop messages between steps).
//! - [`tutor`] (feature `sandbox`): the step-by-step Code Tutor (ACE-TA): plan, checked step code,
//!   the learner's lines compared by behaviour, final tests.

pub mod ask;
pub mod decode;
#[cfg(feature = "sandbox")]
pub mod tutor;

use std::sync::Arc;

use crate::gguf::{Gguf, GgufError};
use crate::llm::chat::{ChatError, ChatTemplate};
use crate::llm::{CpuLm, GgufTokenizer, LanguageModel, LmError, QuantDecoder, TokenizerError};
use burn::tensor::Device;

/// Why a chat model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("the language model file is not valid GGUF: {0}; download it again")]
    Gguf(#[from] GgufError),
    #[error("architecture `{0}` is not supported yet; this runtime runs `llama` models (e.g. SmolLM2)")]
    Architecture(String),
    #[error("the model's chat template cannot be used: {0}")]
    Template(#[from] ChatError),
    #[error(transparent)]
    Model(#[from] LmError),
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
}

/// A language model with its tokenizer and the ids that end a turn.
pub struct ChatModel {
    pub lm: Box<dyn LanguageModel>,
    pub tokenizer: GgufTokenizer,
    /// The model's own chat template (ChatML when the file has none).
    pub template: ChatTemplate,
    /// End of sequence and `<|im_end|>`: generation stops before these.
    pub stop_ids: Vec<u32>,
}

impl ChatModel {
    /// Default positions a conversation may hold (prompt with evidence plus answer).
    pub const CONTEXT: usize = 2048;

    /// Loads a chat model from GGUF bytes on the quantized CPU runtime ([`CpuLm`]): the weights
    /// stay as the file's blocks (no copy), so a 135M Q4 model takes ~100 MB, not 540.
    ///
    /// The one place that chooses the runtime; every agent follows.
    pub fn load(bytes: Arc<Vec<u8>>) -> Result<ChatModel, AgentError> {
        Self::load_with_context(bytes, Self::CONTEXT)
    }

    /// As [`ChatModel::load`] with a cache of `context` positions (capped at the model's own
    /// context length). The cache is f32 keys and values: layers × 2 × kv-heads × head-dim × 4
    /// bytes per position (≈ 24 KB for Qwen2.5-0.5B, 56 KB for 1.5B).
    pub fn load_with_context(bytes: Arc<Vec<u8>>, context: usize) -> Result<ChatModel, AgentError> {
        let (tokenizer, template) = {
            let gguf = Gguf::parse(&bytes)?;
            (GgufTokenizer::from_gguf(&gguf)?, ChatTemplate::from_gguf(&gguf)?)
        };
        let model = Arc::new(QuantDecoder::load(bytes)?);
        let lm: Box<dyn LanguageModel> = Box::new(CpuLm::new(model, context));
        Ok(Self::with(lm, tokenizer, template))
    }

    /// Loads on a Burn device with f32 weights (`llama` only).
    pub fn load_burn(bytes: &[u8], device: &Device) -> Result<ChatModel, AgentError> {
        Self::load_burn_with(bytes, device, crate::model::llama::WeightFormat::F32)
    }

    /// Loads on a Burn device (`llama` only) with the matmul weights held as `format`: the
    /// WebGPU runtime uses [`WeightFormat::Q8`](crate::model::llama::WeightFormat::Q8), a
    /// quarter of f32's memory. On WebGPU in the browser the model must be driven through
    /// [`LanguageModel::as_burn`] and its asynchronous readback.
    pub fn load_burn_with(bytes: &[u8], device: &Device, format: crate::model::llama::WeightFormat) -> Result<ChatModel, AgentError> {
        let gguf = Gguf::parse(bytes)?;
        let arch = gguf.architecture()?;
        if arch != "llama" {
            return Err(AgentError::Architecture(arch.to_string()));
        }
        use crate::model::llama::{Llama, LlamaConfig};
        let cfg = LlamaConfig::from_gguf(&gguf)?;
        let model = Llama::from_gguf_with(&cfg, &gguf, device, format)?;
        let lm: Box<dyn LanguageModel> = Box::new(crate::llm::BurnLm::new(model, cfg, device.clone()));
        Ok(Self::with(lm, GgufTokenizer::from_gguf(&gguf)?, ChatTemplate::from_gguf(&gguf)?))
    }

    /// As [`ChatModel::load`] from borrowed bytes (copied once).
    pub fn from_gguf(bytes: &[u8], _device: &Device) -> Result<ChatModel, AgentError> {
        Self::load(Arc::new(bytes.to_vec()))
    }

    fn with(lm: Box<dyn LanguageModel>, tokenizer: GgufTokenizer, template: ChatTemplate) -> ChatModel {
        let mut stop_ids = Vec::new();
        stop_ids.extend(tokenizer.eos_id);
        stop_ids.extend(tokenizer.token_id("<|im_end|>"));
        ChatModel { lm, tokenizer, template, stop_ids }
    }
}
