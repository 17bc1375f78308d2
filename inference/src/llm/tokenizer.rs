//! The byte-level BPE tokenizer stored in a GGUF file (`tokenizer.ggml.model` = `gpt2`).
//!
//! The vocabulary, merges and token types are turned into a `tokenizers::Tokenizer` with a
//! byte-level pre-tokenizer and decoder. Control and user-defined tokens (`<|im_start|>`, …) are
//! added as special tokens, so they are matched whole in the text, as llama.cpp does when it
//! tokenizes with `parse_special`.

use crate::gguf::{Gguf, GgufError};
use serde_json::{Value, json};
use tokenizers::Tokenizer;

/// llama.cpp's token types (`tokenizer.ggml.token_type`).
const TOKEN_TYPE_CONTROL: i32 = 3;
const TOKEN_TYPE_USER_DEFINED: i32 = 4;

/// Why the tokenizer could not be built or used.
#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    #[error(transparent)]
    Gguf(#[from] GgufError),
    #[error("tokenizer model {0:?} is not supported: this runtime reads byte-level BPE (\"gpt2\") tokenizers; use a llama-, qwen2- or SmolLM-style GGUF")]
    UnsupportedModel(String),
    #[error("pre-tokenizer {0:?} is not supported yet: this runtime knows \"smollm\", \"gpt2\" and \"default\"; add its regex to llm/tokenizer.rs")]
    UnsupportedPre(String),
    #[error("tokenizer: {0}")]
    Tokenizers(String),
}

/// A GGUF tokenizer: text to token ids and back.
pub struct GgufTokenizer {
    inner: Tokenizer,
    /// Beginning-of-sequence id, when the file names one.
    pub bos_id: Option<u32>,
    /// End-of-sequence id, when the file names one.
    pub eos_id: Option<u32>,
    /// Whether llama.cpp prepends `bos_id` when it tokenizes a prompt.
    pub add_bos: bool,
    tokens: Vec<String>,
}

impl GgufTokenizer {
    /// Builds the tokenizer from `tokenizer.ggml.*` metadata.
    pub fn from_gguf(gguf: &Gguf) -> Result<Self, TokenizerError> {
        let model = gguf.get_str("tokenizer.ggml.model")?;
        if model != "gpt2" {
            return Err(TokenizerError::UnsupportedModel(model.to_string()));
        }
        let pre = gguf.get_str("tokenizer.ggml.pre").unwrap_or("default");
        let tokens = gguf.get_str_array("tokenizer.ggml.tokens")?;
        let merges = gguf.get_str_array("tokenizer.ggml.merges")?;
        let types = gguf.get_i32_array("tokenizer.ggml.token_type").ok();

        let byte_level = json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true});
        let pre_tokenizer = match pre {
            // SmolLM: digits one by one, then the GPT-2 regex (llama.cpp LLAMA_VOCAB_PRE_TYPE_SMOLLM).
            "smollm" => json!({"type": "Sequence", "pretokenizers": [
                {"type": "Digits", "individual_digits": true},
                byte_level,
            ]}),
            "gpt2" | "default" => byte_level,
            other => return Err(TokenizerError::UnsupportedPre(other.to_string())),
        };

        let vocab: serde_json::Map<String, Value> =
            tokens.iter().enumerate().map(|(i, t)| (t.clone(), json!(i))).collect();
        let added: Vec<Value> = tokens
            .iter()
            .enumerate()
            .filter(|(i, _)| types.is_some_and(|t| matches!(t.get(*i), Some(&TOKEN_TYPE_CONTROL | &TOKEN_TYPE_USER_DEFINED))))
            .map(|(i, t)| {
                json!({"id": i, "content": t, "single_word": false, "lstrip": false, "rstrip": false,
                       "normalized": false, "special": true})
            })
            .collect();
        let spec = json!({
            "version": "1.0",
            "truncation": null,
            "padding": null,
            "added_tokens": added,
            "normalizer": null,
            "pre_tokenizer": pre_tokenizer,
            "post_processor": null,
            "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
            "model": {
                "type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
                "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
                "vocab": vocab, "merges": merges,
            },
        });
        let inner = Tokenizer::from_bytes(spec.to_string().as_bytes()).map_err(|e| TokenizerError::Tokenizers(e.to_string()))?;
        Ok(GgufTokenizer {
            inner,
            bos_id: gguf.get_u32("tokenizer.ggml.bos_token_id").ok(),
            eos_id: gguf.get_u32("tokenizer.ggml.eos_token_id").ok(),
            add_bos: gguf.get_bool("tokenizer.ggml.add_bos_token").unwrap_or(false),
            tokens: tokens.to_vec(),
        })
    }

    /// Token ids of `text`, special tokens matched whole; `bos_id` first when `add_bos`.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, TokenizerError> {
        let enc = self.inner.encode(text, false).map_err(|e| TokenizerError::Tokenizers(e.to_string()))?;
        let mut ids = Vec::with_capacity(enc.len() + 1);
        if self.add_bos {
            ids.extend(self.bos_id);
        }
        ids.extend_from_slice(enc.get_ids());
        Ok(ids)
    }

    /// Text of `ids`; special tokens are dropped when `skip_special`.
    pub fn decode(&self, ids: &[u32], skip_special: bool) -> Result<String, TokenizerError> {
        self.inner.decode(ids, skip_special).map_err(|e| TokenizerError::Tokenizers(e.to_string()))
    }

    /// Id of token `text` (exact vocabulary entry), such as `<|im_end|>`.
    pub fn token_id(&self, text: &str) -> Option<u32> {
        self.tokens.iter().position(|t| t == text).map(|i| i as u32)
    }

    /// Vocabulary size.
    pub fn vocab_size(&self) -> usize {
        self.tokens.len()
    }
}

/// One chat message for [`chatml_prompt`].
#[derive(Clone, Debug)]
pub struct ChatMessage<'a> {
    /// `system`, `user` or `assistant`.
    pub role: &'a str,
    pub content: &'a str,
}

/// SmolLM2's ChatML template rendered by hand, ending with the assistant's turn opened.
///
/// `<|im_start|>{role}\n{content}<|im_end|>\n` per message, then `<|im_start|>assistant\n`.
pub fn chatml_prompt(messages: &[ChatMessage]) -> String {
    let mut s = String::new();
    for m in messages {
        s.push_str("<|im_start|>");
        s.push_str(m.role);
        s.push('\n');
        s.push_str(m.content);
        s.push_str("<|im_end|>\n");
    }
    s.push_str("<|im_start|>assistant\n");
    s
}
