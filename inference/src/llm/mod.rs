//! The on-device LLM runtime: GGUF tokenizer, chat prompt, sampling, the generation loop, label
//! scoring and schema-constrained decoding, all over the [`LanguageModel`] trait.
//!
//! Model code lives in `model/` (`model::llama`); this module holds what surrounds it.

pub mod burn_lm;
pub mod chat;
pub mod constrain;
pub mod generate;
pub mod lm;
pub mod sample;
pub mod score;
pub mod session;
pub mod stream;
pub mod token_bytes;
pub mod tokenizer;

pub use crate::model::decoder::{CpuLm, QuantDecoder};
pub use burn_lm::BurnLm;
pub use lm::{Eval, KvSnapshot, LanguageModel, LmError, now};

pub use chat::{ChatError, ChatMessage, ChatTemplate, chatml_prompt, inert};
pub use constrain::{JsonDecoder, JsonError, JsonOutput, Schema, SchemaError};
pub use generate::{Event, Finish, GenerateOptions, Generation, Generator, TokenConstraint, generate, generate_text};
pub use sample::{Sampler, Sampling};
pub use score::{LabelChoice, LabelScore, choose_label, choose_label_calibrated, score_labels, score_labels_on};
pub use session::{LoadOptions, Pause, Runtime, Session, SessionError};
pub use token_bytes::TokenBytes;
pub use tokenizer::{GgufTokenizer, TokenizerError};
