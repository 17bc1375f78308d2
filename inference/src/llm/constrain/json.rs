//! [`JsonDecoder`]: generation whose output is a `serde_json::Value` of a [`Schema`].

use super::automaton::JsonState;
use super::schema::{Schema, SchemaError};
use super::trie::TokenTrie;
use crate::llm::generate::{Finish, GenerateOptions, Generator, TokenConstraint};
use crate::llm::lm::{Eval, LanguageModel, LmError, now};
use crate::llm::token_bytes::TokenBytes;
use serde_json::Value;
use std::sync::Arc;

/// Why constrained generation gave no value.
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    #[error(transparent)]
    Schema(#[from] SchemaError),
    #[error(transparent)]
    Model(#[from] LmError),
    #[error("the vocabulary has no single-byte token for byte {0:#04x}; constrained decoding needs a byte-level BPE vocabulary")]
    MissingByte(u8),
    #[error("{budget} tokens cannot hold this schema's shortest output of {need} bytes; raise max_new_tokens or shorten the prompt")]
    Budget { need: usize, budget: usize },
    #[error("generation was cancelled before the JSON was complete")]
    Cancelled,
    #[error("constrained output {text:?} does not parse ({reason}); this is a bug in llm/constrain")]
    Invalid { text: String, reason: String },
}

/// A value generated under a schema.
#[derive(Clone, Debug)]
pub struct JsonOutput {
    pub value: Value,
    /// The exact text generated (compact JSON).
    pub text: String,
    pub ids: Vec<u32>,
    pub finish: Finish,
}

/// Constrained decoding for one vocabulary; build once, use with any schema.
pub struct JsonDecoder {
    vocab: Arc<TokenBytes>,
    trie: TokenTrie,
}

impl JsonDecoder {
    /// Indexes the vocabulary. Printable ASCII and UTF-8 continuation bytes must each be a token
    /// by itself, so that the shortest completion can always be spelled.
    pub fn new(vocab: &TokenBytes) -> Result<Self, JsonError> {
        let mut single = [false; 256];
        for id in 0..vocab.len() as u32 {
            if let [b] = vocab.get(id) {
                single[*b as usize] = true;
            }
        }
        if let Some(b) = (0x20..0x7F).chain(0x80..0xC0).find(|&b| !single[b as usize]) {
            return Err(JsonError::MissingByte(b));
        }
        Ok(JsonDecoder { vocab: Arc::new(vocab.clone()), trie: TokenTrie::new(vocab) })
    }

    /// The per-step mask for `schema`, for a caller's own loop; `end_ids` (EOS) are allowed only
    /// where the output is complete.
    pub fn constraint<'a>(&'a self, schema: &'a Schema, end_ids: &[u32]) -> JsonConstraint<'a> {
        JsonConstraint {
            decoder: self,
            schema,
            state: JsonState::new(schema),
            end_ids: end_ids.to_vec(),
            allowed: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Generates after `prompt_ids` until the value is complete. `opts.stop_ids` may end a root
    /// number; stop strings are ignored (they could cut the JSON). `on_text` streams as in
    /// `generate_text`; returning `false` cancels.
    pub fn generate(
        &self,
        lm: &mut dyn LanguageModel,
        schema: &Schema,
        prompt_ids: &[u32],
        opts: &GenerateOptions,
        on_text: impl FnMut(Option<u32>, &str) -> bool,
    ) -> Result<JsonOutput, JsonError> {
        now(self.generate_on(lm, schema, prompt_ids, opts, on_text))
    }

    /// [`JsonDecoder::generate`] on any [`Eval`] (a session reuses its cached prefix).
    pub async fn generate_on<E: Eval + ?Sized>(
        &self,
        lm: &mut E,
        schema: &Schema,
        prompt_ids: &[u32],
        opts: &GenerateOptions,
        mut on_text: impl FnMut(Option<u32>, &str) -> bool,
    ) -> Result<JsonOutput, JsonError> {
        let budget = opts.max_new_tokens.min(lm.context_length().saturating_sub(prompt_ids.len()));
        let need = schema.min_output_len();
        if need > budget {
            return Err(JsonError::Budget { need, budget });
        }
        let opts = GenerateOptions { stop_strings: Vec::new(), ..opts.clone() };
        let mut c = self.constraint(schema, &opts.stop_ids);
        let g = Generator::new(prompt_ids, opts.clone(), Some(self.vocab.clone())).constrained(&mut c).run(lm, &mut on_text).await?;
        if !c.state.can_finish(schema) {
            return Err(match g.finish {
                Finish::Cancelled => JsonError::Cancelled,
                _ => JsonError::Invalid { text: g.text, reason: format!("incomplete at {:?}", g.finish) },
            });
        }
        let bytes = self.vocab.concat(&g.ids);
        let text = String::from_utf8(bytes).map_err(|e| JsonError::Invalid { text: g.text.clone(), reason: e.to_string() })?;
        let value: Value = serde_json::from_str(&text).map_err(|e| JsonError::Invalid { text: text.clone(), reason: e.to_string() })?;
        schema.validate(&value).map_err(|reason| JsonError::Invalid { text: text.clone(), reason })?;
        Ok(JsonOutput { value, text, ids: g.ids, finish: g.finish })
    }
}

/// [`TokenConstraint`] for one schema and one generation.
pub struct JsonConstraint<'a> {
    decoder: &'a JsonDecoder,
    schema: &'a Schema,
    state: JsonState,
    end_ids: Vec<u32>,
    allowed: Vec<bool>,
    scratch: Vec<JsonState>,
}

impl JsonConstraint<'_> {
    /// Where the output stands.
    pub fn state(&self) -> &JsonState {
        &self.state
    }
}

impl TokenConstraint for JsonConstraint<'_> {
    fn mask(&mut self, logits: &mut [f32], remaining: usize) -> bool {
        self.allowed.resize(logits.len().max(self.decoder.vocab.len()), false);
        self.decoder.trie.allowed(self.schema, &self.state, remaining, &mut self.allowed, &mut self.scratch);
        self.allowed[self.decoder.vocab.len()..].fill(false);
        let finish = self.state.can_finish(self.schema);
        for &e in &self.end_ids {
            if let Some(a) = self.allowed.get_mut(e as usize) {
                *a = finish;
            }
        }
        let mut any = false;
        for (l, &a) in logits.iter_mut().zip(&self.allowed) {
            if a {
                any = true;
            } else {
                *l = f32::NEG_INFINITY;
            }
        }
        any
    }

    fn accept(&mut self, id: u32) {
        let ok = self.state.step_all(self.schema, self.decoder.vocab.get(id));
        debug_assert!(ok, "token {id} was chosen against the mask");
    }

    fn is_complete(&self) -> bool {
        self.state.is_complete()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::generate::Sampling;

    /// Every byte is a token, plus a few longer ones; logits are seeded noise favouring long
    /// tokens, so walks wander until the budget forces them closed.
    fn vocab() -> TokenBytes {
        let mut pieces: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        for p in ["{\"", "\":", "\",\"", "\"}", "name", "age", " the", "12", "true", "]}", "é"] {
            pieces.push(p.as_bytes().to_vec());
        }
        pieces.push(Vec::new()); // EOS
        TokenBytes::from_fn(pieces.len(), |i| if pieces[i].is_empty() { None } else { Some(pieces[i].clone()) })
    }

    struct Noise {
        cache: usize,
        seed: u64,
        vocab: usize,
    }

    impl LanguageModel for Noise {
        fn vocab_size(&self) -> usize {
            self.vocab
        }
        fn context_length(&self) -> usize {
            1 << 20
        }
        fn cached(&self) -> usize {
            self.cache
        }
        fn truncate(&mut self, len: usize) {
            self.cache = len;
        }
        fn eval(&mut self, tokens: &[u32], _all: bool) -> Result<Vec<f32>, LmError> {
            self.cache += tokens.len();
            Ok((0..self.vocab)
                .map(|i| {
                    self.seed ^= self.seed << 13;
                    self.seed ^= self.seed >> 7;
                    self.seed ^= self.seed << 17;
                    (self.seed % 1000) as f32 / 100.0 + if i >= 256 { 3.0 } else { 0.0 }
                })
                .collect())
        }
    }

    #[test]
    fn every_output_parses_within_the_budget() {
        let v = vocab();
        let eos = (v.len() - 1) as u32;
        let dec = JsonDecoder::new(&v).unwrap();
        let schemas = [
            r#"{"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0, "maximum": 150},
                "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 1}}, "required": ["name", "age", "tags"]}"#,
            r#"{"type": "array", "items": {"type": "number"}, "minItems": 2}"#,
            r#"{"type": "integer", "minimum": 10, "maximum": 99}"#,
        ];
        for text in schemas {
            let s = Schema::parse(text).unwrap();
            for seed in 1..40u64 {
                let max = s.min_output_len() + (seed as usize % 30);
                let opts = GenerateOptions {
                    max_new_tokens: max,
                    stop_ids: vec![eos],
                    sampling: Sampling { temperature: 1.5, top_k: 0, top_p: 1.0, min_p: 0.0, seed, ..Sampling::default() },
                    ..Default::default()
                };
                let mut lm = Noise { cache: 0, seed: seed * 7919, vocab: v.len() };
                let out = dec.generate(&mut lm, &s, &[0], &opts, |_, _| true).unwrap_or_else(|e| panic!("{text} seed {seed}: {e}"));
                assert!(out.ids.len() <= max, "{} tokens for a budget of {max}", out.ids.len());
                assert_eq!(serde_json::from_str::<Value>(&out.text).unwrap(), out.value);
            }
        }
        let s = Schema::parse(schemas[0]).unwrap();
        let opts = GenerateOptions { max_new_tokens: 5, ..Default::default() };
        let mut lm = Noise { cache: 0, seed: 1, vocab: v.len() };
        assert!(matches!(dec.generate(&mut lm, &s, &[0], &opts, |_, _| true), Err(JsonError::Budget { .. })));
    }

    #[test]
    fn a_vocabulary_without_single_bytes_is_refused() {
        let v = TokenBytes::from_fn(3, |i| Some(vec![b'a'; i + 1]));
        assert!(matches!(JsonDecoder::new(&v), Err(JsonError::MissingByte(0x20))));
    }
}
