//! Agents: the features a learner uses, built from retrieval and the language model.
//!
//! Each agent is one file and knows nothing of the UI: it takes what retrieval found and a
//! [`ChatModel`], and returns text and structured results the app renders.
//!
//! - [`ask`]: grounded conceptual Q&A (ACE-TA "Ask"): evidence → structured prompt → cited answer.
//! - [`decode`]: step-wise greedy decoding for hosts that must yield between tokens (the browser
//!   worker answers Stop messages between steps).

pub mod ask;
pub mod decode;

use crate::gguf::{Gguf, GgufError};
use crate::llm::{GgufTokenizer, LanguageModel, LmError, TokenizerError};
use burn::tensor::Device;

/// Why a chat model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("the language model file is not valid GGUF: {0}; download it again")]
    Gguf(#[from] GgufError),
    #[error("architecture `{0}` is not supported yet; this runtime runs `llama` models (e.g. SmolLM2)")]
    Architecture(String),
    #[error(transparent)]
    Model(#[from] LmError),
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
}

/// A language model with its tokenizer and the ids that end a turn.
pub struct ChatModel {
    pub lm: Box<dyn LanguageModel>,
    pub tokenizer: GgufTokenizer,
    /// End of sequence and `<|im_end|>`: generation stops before these.
    pub stop_ids: Vec<u32>,
}

impl ChatModel {
    /// Loads a chat model from GGUF bytes; the bytes may be dropped afterwards.
    ///
    /// The one place that chooses the runtime: swap the `lm` line for another
    /// [`LanguageModel`] (e.g. a quantized CPU runtime) and every agent follows.
    pub fn from_gguf(bytes: &[u8], device: &Device) -> Result<ChatModel, AgentError> {
        let gguf = Gguf::parse(bytes)?;
        let arch = gguf.architecture()?;
        if arch != "llama" {
            return Err(AgentError::Architecture(arch.to_string()));
        }
        let tokenizer = GgufTokenizer::from_gguf(&gguf)?;
        let lm: Box<dyn LanguageModel> = {
            use crate::model::llama::{Llama, LlamaConfig};
            let cfg = LlamaConfig::from_gguf(&gguf)?;
            let model = Llama::from_gguf(&cfg, &gguf, device)?;
            Box::new(crate::llm::BurnLm::new(model, cfg, device.clone()))
        };
        let mut stop_ids = Vec::new();
        stop_ids.extend(tokenizer.eos_id);
        stop_ids.extend(tokenizer.token_id("<|im_end|>"));
        Ok(ChatModel { lm, tokenizer, stop_ids })
    }
}
