//! The on-device LLM runtime: GGUF tokenizer, chat prompt and the generation loop.
//!
//! Model code lives in `model/` (`model::llama`); this module holds what surrounds it.

pub mod burn_lm;
pub mod chat;
pub mod generate;
pub mod lm;
pub mod tokenizer;

pub use burn_lm::BurnLm;
pub use lm::{LanguageModel, LmError};

pub use generate::{GenerateOptions, Sampling, generate};
pub use chat::{ChatMessage, chatml_prompt};
pub use tokenizer::{GgufTokenizer, TokenizerError};
