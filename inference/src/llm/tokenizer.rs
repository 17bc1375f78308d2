//! The byte-level BPE tokenizer stored in a GGUF file (`tokenizer.ggml.model` = `gpt2`).
//!
//! Tokenization follows llama.cpp (`src/llama-vocab.cpp`) step by step:
//! 1. special tokens are cut out of the text first, longest first (control tokens only when the
//!    text may hold them, user-defined tokens always);
//! 2. the rest is split by the regexes of the file's pre-tokenizer type (`tokenizer.ggml.pre`);
//! 3. each piece is mapped to GPT-2's byte characters and merged by BPE rank.
//!
//! Steps 2 and 3 are a `tokenizers::Tokenizer` (Split pre-tokenizers, ByteLevel, BPE) built from
//! the metadata. `inference/tests/llm_tokenizer_vectors.rs` checks every supported type against
//! llama.cpp's own test vectors.

use crate::gguf::{Gguf, GgufError};
use serde_json::{Value, json};
use tokenizers::Tokenizer;

/// llama.cpp's token types (`tokenizer.ggml.token_type`).
const TOKEN_TYPE_UNKNOWN: i32 = 2;
const TOKEN_TYPE_CONTROL: i32 = 3;
const TOKEN_TYPE_USER_DEFINED: i32 = 4;

/// Why the tokenizer could not be built or used.
#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    #[error(transparent)]
    Gguf(#[from] GgufError),
    #[error("tokenizer model {0:?} is not supported: this runtime reads byte-level BPE (\"gpt2\") tokenizers; use a llama-, qwen2- or SmolLM-style GGUF")]
    UnsupportedModel(String),
    #[error("pre-tokenizer {0:?} is not supported yet: this runtime knows {known}; add its regexes from llama.cpp's llama-vocab.cpp to llm/tokenizer.rs and its test vectors to tests/llm_tokenizer_vectors.rs", known = SUPPORTED_PRE.join(", "))]
    UnsupportedPre(String),
    #[error("tokenizer: {0}")]
    Tokenizers(String),
}

/// The pre-tokenizer types (`tokenizer.ggml.pre`) this runtime reproduces exactly: each is an
/// alias, in llama.cpp, of a type whose test vectors pass.
pub const SUPPORTED_PRE: &[&str] = &[
    "gpt-2", "phi-2", "llama3", "llama-v3", "llama-bpe", "falcon3", "qwen2", "deepseek-r1-qwen", "qwen35", "smollm",
    "starcoder", "refact", "command-r", "mpt", "falcon", "deepseek-coder",
];

/// GPT-2's regex as llama.cpp writes it (no trailing `\s+`: llama.cpp keeps unmatched text as
/// its own piece, which a `Split` with `Isolated` behaviour does too).
const RE_GPT2: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)";
/// Llama 3: case-insensitive contractions, digits in threes.
const RE_LLAMA3: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Qwen2: Llama 3's regex with single digits.
const RE_QWEN2: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Qwen3.5: Qwen2's regex with combining marks kept in words.
const RE_QWEN35: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Every digit on its own (StarCoder, SmolLM), before the GPT-2 regex.
const RE_DIGIT: &str = r"\p{N}";
const RE_FALCON: &[&str] = &[r"[\p{P}\$\+<=>\^~\|`]+", RE_GPT2, "[0-9][0-9][0-9]"];
const RE_DEEPSEEK_CODER: &[&str] = &["[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", "[一-龥ࠀ-一가-퟿]+", r"\p{N}"];

/// How llama.cpp prepares text for BPE for one `tokenizer.ggml.pre` value.
struct PreTokenizer {
    /// Applied in order; each splits the pieces the previous one left.
    regexes: &'static [&'static str],
    /// A piece already in the vocabulary is one token, whatever the merges say (Llama 3).
    ignore_merges: bool,
    /// llama.cpp's default for `add_bos` when the file does not say.
    add_bos: bool,
}

/// The regexes of llama.cpp's `llm_tokenizer_bpe` (`src/llama-vocab.cpp`) for `pre`, or `None`
/// when not supported.
fn pre_tokenizer(pre: &str) -> Option<PreTokenizer> {
    let (regexes, ignore_merges, add_bos): (&'static [&'static str], bool, bool) = match pre {
        "gpt-2" | "phi-2" | "mpt" => (&[RE_GPT2], false, false),
        "llama3" | "llama-v3" | "llama-bpe" | "falcon3" => (&[RE_LLAMA3], true, true),
        "qwen2" | "deepseek-r1-qwen" => (&[RE_QWEN2], false, false),
        "qwen35" => (&[RE_QWEN35], false, false),
        "smollm" | "starcoder" | "refact" | "command-r" => (&[RE_DIGIT, RE_GPT2], false, false),
        "falcon" => (RE_FALCON, false, false),
        "deepseek-coder" => (RE_DEEPSEEK_CODER, false, false),
        _ => return None,
    };
    Some(PreTokenizer { regexes, ignore_merges, add_bos })
}

/// A GGUF tokenizer: text to token ids and back.
pub struct GgufTokenizer {
    /// Pre-tokenizer and BPE only: special tokens are handled here, not by `tokenizers`.
    bpe: Tokenizer,
    /// Beginning-of-sequence id, when the file names one.
    pub bos_id: Option<u32>,
    /// End-of-sequence id, when the file names one.
    pub eos_id: Option<u32>,
    /// Whether llama.cpp prepends `bos_id` when it tokenizes a prompt.
    pub add_bos: bool,
    tokens: Vec<String>,
    types: Vec<i32>,
    /// Control, user-defined and unknown tokens, longest text first (llama.cpp's order).
    specials: Vec<u32>,
}

/// A stretch of the input: raw text still to tokenize, or a special token already found.
enum Fragment<'t> {
    Text(&'t str),
    Token(u32),
}

impl GgufTokenizer {
    /// Builds the tokenizer from `tokenizer.ggml.*` metadata.
    pub fn from_gguf(gguf: &Gguf) -> Result<Self, TokenizerError> {
        let model = gguf.get_str("tokenizer.ggml.model")?;
        if model != "gpt2" {
            return Err(TokenizerError::UnsupportedModel(model.to_string()));
        }
        // Without the key llama.cpp uses its "default" regexes and warns that quality degrades;
        // we refuse instead.
        let pre_name = gguf.get_str("tokenizer.ggml.pre").unwrap_or("default");
        let pre = pre_tokenizer(pre_name).ok_or_else(|| TokenizerError::UnsupportedPre(pre_name.to_string()))?;
        let tokens = gguf.get_str_array("tokenizer.ggml.tokens")?;
        let merges = gguf.get_str_array("tokenizer.ggml.merges")?;
        let types = match gguf.get_i32_array("tokenizer.ggml.token_type") {
            Ok(t) => t.to_vec(),
            Err(GgufError::MissingKey { .. }) => Vec::new(),
            Err(e) => return Err(e.into()),
        };

        let mut steps: Vec<Value> = pre
            .regexes
            .iter()
            .map(|re| json!({"type": "Split", "pattern": {"Regex": re}, "behavior": "Isolated", "invert": false}))
            .collect();
        steps.push(json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}));
        let vocab: serde_json::Map<String, Value> =
            tokens.iter().enumerate().map(|(i, t)| (t.clone(), json!(i))).collect();
        let spec = json!({
            "version": "1.0",
            "truncation": null,
            "padding": null,
            "added_tokens": [],
            "normalizer": null,
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": steps},
            "post_processor": null,
            "decoder": null,
            "model": {
                "type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
                "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false,
                "ignore_merges": pre.ignore_merges, "vocab": vocab, "merges": merges,
            },
        });
        let bpe = Tokenizer::from_bytes(spec.to_string().as_bytes()).map_err(|e| TokenizerError::Tokenizers(e.to_string()))?;

        let mut specials: Vec<u32> = (0..tokens.len() as u32)
            .filter(|&i| {
                let ty = types.get(i as usize).copied();
                matches!(ty, Some(TOKEN_TYPE_CONTROL | TOKEN_TYPE_USER_DEFINED | TOKEN_TYPE_UNKNOWN))
                    && !tokens[i as usize].is_empty()
            })
            .collect();
        specials.sort_by_key(|&i| std::cmp::Reverse(tokens[i as usize].len()));
        let add_bos = match gguf.get_bool("tokenizer.ggml.add_bos_token") {
            Ok(b) => b,
            Err(GgufError::MissingKey { .. }) => pre.add_bos,
            Err(e) => return Err(e.into()),
        };
        Ok(GgufTokenizer {
            bpe,
            bos_id: gguf.get_u32("tokenizer.ggml.bos_token_id").ok(),
            eos_id: gguf.get_u32("tokenizer.ggml.eos_token_id").ok(),
            add_bos,
            tokens: tokens.to_vec(),
            types,
            specials,
        })
    }

    /// Token ids of a prompt: `bos_id` first when `add_bos`, special tokens (`<|im_start|>`, …)
    /// matched whole. For a rendered chat template.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, TokenizerError> {
        let mut ids = Vec::new();
        if self.add_bos {
            ids.extend(self.bos_id);
        }
        self.encode_into(text, true, &mut ids)?;
        Ok(ids)
    }

    /// Token ids of `text` as plain text: no BOS, and control tokens written in it are ordinary
    /// characters (llama.cpp's `add_special = false, parse_special = false`). For text a user
    /// typed, so that `<|im_end|>` in a question cannot end a turn.
    pub fn encode_plain(&self, text: &str) -> Result<Vec<u32>, TokenizerError> {
        let mut ids = Vec::new();
        self.encode_into(text, false, &mut ids)?;
        Ok(ids)
    }

    fn encode_into(&self, text: &str, parse_special: bool, ids: &mut Vec<u32>) -> Result<(), TokenizerError> {
        for fragment in self.split_specials(text, parse_special) {
            match fragment {
                Fragment::Token(id) => ids.push(id),
                Fragment::Text(t) => {
                    let enc = self.bpe.encode(t, false).map_err(|e| TokenizerError::Tokenizers(e.to_string()))?;
                    ids.extend_from_slice(enc.get_ids());
                }
            }
        }
        Ok(())
    }

    /// llama.cpp's `tokenizer_st_partition`: for each special token, longest first, cut every
    /// occurrence out of the text fragments still unprocessed.
    fn split_specials<'t>(&self, text: &'t str, parse_special: bool) -> Vec<Fragment<'t>> {
        let mut fragments = vec![Fragment::Text(text)];
        for &id in &self.specials {
            if !parse_special && self.types[id as usize] != TOKEN_TYPE_USER_DEFINED {
                continue;
            }
            let special = self.tokens[id as usize].as_str();
            if !fragments.iter().any(|f| matches!(f, Fragment::Text(t) if t.contains(special))) {
                continue;
            }
            let mut next = Vec::with_capacity(fragments.len() + 2);
            for fragment in fragments {
                let Fragment::Text(mut rest) = fragment else {
                    next.push(fragment);
                    continue;
                };
                while let Some(at) = rest.find(special) {
                    if at > 0 {
                        next.push(Fragment::Text(&rest[..at]));
                    }
                    next.push(Fragment::Token(id));
                    rest = &rest[at + special.len()..];
                }
                if !rest.is_empty() {
                    next.push(Fragment::Text(rest));
                }
            }
            fragments = next;
        }
        fragments
    }

    /// Text of `ids`. Control tokens are dropped when `skip_special` and written as their text
    /// otherwise; user-defined tokens are always text (as llama.cpp's `token_to_piece`). Bytes
    /// that do not form UTF-8 become U+FFFD.
    pub fn decode(&self, ids: &[u32], skip_special: bool) -> Result<String, TokenizerError> {
        let mut bytes = Vec::new();
        for &id in ids {
            let token = self.tokens.get(id as usize).ok_or_else(|| {
                TokenizerError::Tokenizers(format!("token id {id} is outside the vocabulary of {} tokens", self.tokens.len()))
            })?;
            match self.types.get(id as usize).copied() {
                Some(TOKEN_TYPE_CONTROL | TOKEN_TYPE_UNKNOWN) if skip_special => {}
                Some(TOKEN_TYPE_CONTROL | TOKEN_TYPE_UNKNOWN | TOKEN_TYPE_USER_DEFINED) => bytes.extend_from_slice(token.as_bytes()),
                _ => {
                    for c in token.chars() {
                        match byte_of(c) {
                            Some(b) => bytes.push(b),
                            None => bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                        }
                    }
                }
            }
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Id of token `text` (exact vocabulary entry), such as `<|im_end|>`.
    pub fn token_id(&self, text: &str) -> Option<u32> {
        self.tokens.iter().position(|t| t == text).map(|i| i as u32)
    }

    /// Vocabulary entry of `id` as stored (GPT-2 byte characters for ordinary tokens), such as
    /// `<|im_start|>`.
    pub fn token_text(&self, id: u32) -> Option<&str> {
        self.tokens.get(id as usize).map(String::as_str)
    }

    /// Vocabulary size.
    pub fn vocab_size(&self) -> usize {
        self.tokens.len()
    }
}

/// GPT-2's `bytes_to_unicode`, inverted: the byte a vocabulary character stands for. Printable
/// bytes stand for themselves; the other 68, in order, are U+0100 to U+0143.
fn byte_of(c: char) -> Option<u8> {
    let c = c as u32;
    match c {
        0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF => Some(c as u8),
        0x100..=0x120 => Some((c - 0x100) as u8),
        0x121..=0x142 => Some((c - 0x121 + 0x7F) as u8),
        0x143 => Some(0xAD),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_map_is_gpt2s() {
        // Space is Ġ (U+0120), newline Ċ (U+010A), 0x7F ġ (U+0121), 0xAD Ń (U+0143).
        assert_eq!(byte_of('Ġ'), Some(b' '));
        assert_eq!(byte_of('Ċ'), Some(b'\n'));
        assert_eq!(byte_of('ġ'), Some(0x7F));
        assert_eq!(byte_of('Ń'), Some(0xAD));
        assert_eq!(byte_of('a'), Some(b'a'));
        assert_eq!(byte_of(' '), None);
        let mut seen: Vec<u8> = (0..0x200u32).filter_map(char::from_u32).filter_map(byte_of).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 256);
    }

    #[test]
    fn every_supported_pre_has_regexes() {
        for pre in SUPPORTED_PRE {
            assert!(pre_tokenizer(pre).is_some_and(|p| !p.regexes.is_empty()), "{pre}");
        }
        assert!(pre_tokenizer("default").is_none());
    }
}
