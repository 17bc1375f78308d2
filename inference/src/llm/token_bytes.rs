//! The exact bytes of every token, for incremental text (stop strings) and constrained decoding.
//!
//! Decoding token by token through the tokenizer loses bytes: a token holding half of a UTF-8
//! character decodes to U+FFFD. Byte-level BPE stores each byte as a printable character (GPT-2's
//! `bytes_to_unicode`), so inverting that map on the vocabulary gives each token's raw bytes.

use super::tokenizer::TokenizerError;
use crate::gguf::Gguf;

/// llama.cpp's token types (`tokenizer.ggml.token_type`): normal tokens have text, the rest
/// (control, unknown, unused) print nothing. User-defined tokens are literal text.
const TOKEN_TYPE_NORMAL: i32 = 1;
const TOKEN_TYPE_USER_DEFINED: i32 = 4;
const TOKEN_TYPE_BYTE: i32 = 6;

/// Raw bytes of each token id; special tokens have none.
#[derive(Clone, Debug)]
pub struct TokenBytes {
    /// Token `i` is `data[offsets[i]..offsets[i + 1]]`.
    data: Vec<u8>,
    offsets: Vec<u32>,
    special: Vec<bool>,
}

impl TokenBytes {
    /// Reads `tokenizer.ggml.tokens` (and `token_type`) of a byte-level BPE (`gpt2`) GGUF.
    pub fn from_gguf(gguf: &Gguf) -> Result<Self, TokenizerError> {
        let model = gguf.get_str("tokenizer.ggml.model")?;
        if model != "gpt2" {
            return Err(TokenizerError::UnsupportedModel(model.to_string()));
        }
        let tokens = gguf.get_str_array("tokenizer.ggml.tokens")?;
        let types = gguf.get_i32_array("tokenizer.ggml.token_type").ok();
        Ok(Self::from_byte_level(tokens, types))
    }

    /// From a byte-level BPE vocabulary (GPT-2 characters) and optional llama.cpp token types.
    pub fn from_byte_level(tokens: &[String], types: Option<&[i32]>) -> Self {
        let decode = unicode_to_byte();
        Self::from_fn(tokens.len(), |i| {
            let ty = types.and_then(|t| t.get(i).copied()).unwrap_or(TOKEN_TYPE_NORMAL);
            match ty {
                TOKEN_TYPE_NORMAL | TOKEN_TYPE_BYTE => {
                    // A character outside the byte map cannot come from a byte-level vocabulary:
                    // keep its UTF-8 so nothing is lost.
                    let mut out = Vec::new();
                    for c in tokens[i].chars() {
                        match decode.get(c as usize).copied().flatten() {
                            Some(b) => out.push(b),
                            None => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                        }
                    }
                    Some(out)
                }
                TOKEN_TYPE_USER_DEFINED => Some(tokens[i].as_bytes().to_vec()),
                _ => None,
            }
        })
    }

    /// From a function giving each token's bytes, `None` for special tokens.
    pub fn from_fn(n: usize, mut bytes: impl FnMut(usize) -> Option<Vec<u8>>) -> Self {
        let (mut data, mut offsets, mut special) = (Vec::new(), Vec::with_capacity(n + 1), Vec::with_capacity(n));
        offsets.push(0);
        for i in 0..n {
            let b = bytes(i);
            special.push(b.is_none());
            data.extend_from_slice(b.as_deref().unwrap_or_default());
            offsets.push(data.len() as u32);
        }
        TokenBytes { data, offsets, special }
    }

    /// Bytes of token `id`; empty for special tokens and ids outside the vocabulary.
    pub fn get(&self, id: u32) -> &[u8] {
        let i = id as usize;
        if i + 1 >= self.offsets.len() {
            return &[];
        }
        &self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Whether `id` is a control token (`<|im_end|>`, …) that prints nothing.
    pub fn is_special(&self, id: u32) -> bool {
        self.special.get(id as usize).copied().unwrap_or(true)
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.special.len()
    }

    /// Whether the vocabulary is empty.
    pub fn is_empty(&self) -> bool {
        self.special.is_empty()
    }

    /// Concatenated bytes of `ids` (special tokens skipped).
    pub fn concat(&self, ids: &[u32]) -> Vec<u8> {
        ids.iter().flat_map(|&id| self.get(id).iter().copied()).collect()
    }
}

/// GPT-2's `bytes_to_unicode`, inverted: character code point to byte.
fn unicode_to_byte() -> Vec<Option<u8>> {
    let mut map = vec![None; 512];
    let mut extra = 0;
    for b in 0..=255u8 {
        let printable = matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
        let c = if printable {
            b as usize
        } else {
            extra += 1;
            255 + extra
        };
        map[c] = Some(b);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_level_characters_map_back_to_bytes() {
        // "Ġ" is the space, "Ċ" the newline, "Ã©" the two bytes of "é".
        let vocab: Vec<String> = ["Ġhello", "Ċ", "Ã©", "<|im_end|>", "Ã"].iter().map(|s| s.to_string()).collect();
        let t = TokenBytes::from_byte_level(&vocab, Some(&[1, 1, 1, 3, 1]));
        assert_eq!(t.get(0), b" hello");
        assert_eq!(t.get(1), b"\n");
        assert_eq!(t.get(2), "é".as_bytes());
        assert_eq!(t.get(3), b"");
        assert!(t.is_special(3) && !t.is_special(0));
        assert_eq!(t.get(4), &[0xC3], "half a character keeps its byte");
        assert_eq!(t.concat(&[4, 2]), [0xC3, 0xC3, 0xA9]);
        assert_eq!(t.get(99), b"");
    }
}
