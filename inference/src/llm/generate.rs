//! The decoding loop: batched prefill, then one token at a time, sampled, optionally constrained.
//!
//! [`generate`] works on ids alone; [`generate_text`] also detokenizes, streams text and stops
//! at stop strings. Constrained decoding (`constrain::JsonDecoder`) runs the same loop with a
//! [`TokenConstraint`].

use super::lm::{LanguageModel, LmError};
use super::sample::Sampler;
pub use super::sample::{Sampling, argmax};
use super::stream::TextStream;
use super::token_bytes::TokenBytes;

/// Options of [`generate`] and [`generate_text`].
#[derive(Clone, Debug)]
pub struct GenerateOptions {
    /// Most tokens generated (also capped by the context length).
    pub max_new_tokens: usize,
    /// Generation stops at any of these ids (not included in the output): EOS, `<|im_end|>`.
    pub stop_ids: Vec<u32>,
    /// Generation stops once the text contains any of these; the stop string and what follows
    /// it are not returned. Needs text: [`generate_text`].
    pub stop_strings: Vec<String>,
    pub sampling: Sampling,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions { max_new_tokens: 256, stop_ids: Vec::new(), stop_strings: Vec::new(), sampling: Sampling::greedy() }
    }
}

/// Why generation ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Finish {
    /// `max_new_tokens` or the context length was reached.
    Length,
    /// The model chose this stop id.
    StopId(u32),
    /// The text reached `stop_strings[i]`.
    StopString(usize),
    /// The callback returned `false`.
    Cancelled,
    /// The constraint accepted a complete output.
    Complete,
}

/// What [`generate_text`] produced.
#[derive(Clone, Debug)]
pub struct Generation {
    /// Every generated id, including the one that completed a stop string, without stop ids.
    pub ids: Vec<u32>,
    /// Text of `ids`, cut before the stop string.
    pub text: String,
    pub finish: Finish,
}

/// Restricts which tokens may come next (a grammar, a schema).
pub trait TokenConstraint {
    /// Sets the logits of forbidden tokens to minus infinity. `remaining` tokens may still be
    /// generated, this one included. Returns false when no token is allowed.
    fn mask(&mut self, logits: &mut [f32], remaining: usize) -> bool;
    /// Advances past the chosen token.
    fn accept(&mut self, id: u32);
    /// Whether the output is complete, so generation ends.
    fn is_complete(&self) -> bool;
}

/// Generates after `prompt_ids` (the cache is cleared first); returns the new token ids.
///
/// `on_token` sees each id as it is chosen; return `false` from it to stop early (cancel).
/// Stop strings need text, so this panics when `opts.stop_strings` is set: use [`generate_text`].
pub fn generate(
    lm: &mut dyn LanguageModel,
    prompt_ids: &[u32],
    opts: &GenerateOptions,
    mut on_token: impl FnMut(u32) -> bool,
) -> Result<Vec<u32>, LmError> {
    assert!(opts.stop_strings.is_empty(), "stop strings are matched on text: call generate_text with the vocabulary's TokenBytes");
    Ok(run(lm, prompt_ids, opts, None, None, &mut |id, _| id.is_none_or(&mut on_token))?.ids)
}

/// Generates after `prompt_ids` (the cache is cleared first) and detokenizes with `vocab`.
///
/// `on_text` sees each id with the text it releases (empty while a character or a possible stop
/// string is incomplete); return `false` from it to stop early (cancel). Text still held back at
/// the end comes in one last call with no id.
pub fn generate_text(
    lm: &mut dyn LanguageModel,
    vocab: &TokenBytes,
    prompt_ids: &[u32],
    opts: &GenerateOptions,
    mut on_text: impl FnMut(Option<u32>, &str) -> bool,
) -> Result<Generation, LmError> {
    run(lm, prompt_ids, opts, Some(vocab), None, &mut on_text)
}

/// The loop behind [`generate`], [`generate_text`] and constrained decoding.
pub(crate) fn run(
    lm: &mut dyn LanguageModel,
    prompt_ids: &[u32],
    opts: &GenerateOptions,
    vocab: Option<&TokenBytes>,
    mut constraint: Option<&mut dyn TokenConstraint>,
    on_step: &mut dyn FnMut(Option<u32>, &str) -> bool,
) -> Result<Generation, LmError> {
    lm.truncate(0);
    let budget = opts.max_new_tokens.min(lm.context_length().saturating_sub(prompt_ids.len()));
    let mut sampler = Sampler::new(opts.sampling.clone());
    let mut stream = vocab.map(|v| TextStream::new(v, &opts.stop_strings));
    let mut history = prompt_ids.to_vec();
    let mut ids = Vec::new();
    let mut logits = if budget > 0 { lm.eval(prompt_ids, false)? } else { Vec::new() };
    let finish = loop {
        if ids.len() >= budget {
            break Finish::Length;
        }
        if let Some(c) = constraint.as_deref_mut() {
            if !c.mask(&mut logits, budget - ids.len()) {
                return Err(LmError::Unsupported(
                    "the constraint allows no token here; the vocabulary cannot spell what the schema needs".into(),
                ));
            }
        }
        let next = sampler.sample(&mut logits, &history);
        if opts.stop_ids.contains(&next) {
            break Finish::StopId(next);
        }
        ids.push(next);
        history.push(next);
        if let Some(c) = constraint.as_deref_mut() {
            c.accept(next);
        }
        let piece = stream.as_mut().map_or("", |s| s.push(next));
        if !on_step(Some(next), piece) {
            break Finish::Cancelled;
        }
        if let Some(i) = stream.as_ref().and_then(|s| s.stopped()) {
            break Finish::StopString(i);
        }
        if constraint.as_deref().is_some_and(|c| c.is_complete()) {
            break Finish::Complete;
        }
        if ids.len() >= budget {
            break Finish::Length;
        }
        logits = lm.eval(&[next], false)?;
    };
    let text = match stream {
        Some(mut s) => {
            let rest = s.finish().to_string();
            if !rest.is_empty() {
                on_step(None, &rest);
            }
            s.into_text()
        }
        None => String::new(),
    };
    Ok(Generation { ids, text, finish })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model whose next token is always `(last + 1) % vocab`, with a 12-position context.
    struct Counter {
        cache: Vec<u32>,
    }

    impl LanguageModel for Counter {
        fn vocab_size(&self) -> usize {
            8
        }
        fn context_length(&self) -> usize {
            12
        }
        fn cached(&self) -> usize {
            self.cache.len()
        }
        fn truncate(&mut self, len: usize) {
            self.cache.truncate(len);
        }
        fn eval(&mut self, tokens: &[u32], _all: bool) -> Result<Vec<f32>, LmError> {
            self.cache.extend_from_slice(tokens);
            let mut l = vec![0.0; 8];
            l[(*tokens.last().unwrap() as usize + 1) % 8] = 5.0;
            Ok(l)
        }
    }

    fn letters() -> TokenBytes {
        TokenBytes::from_fn(8, |i| if i == 7 { None } else { Some(vec![b'a' + i as u8]) })
    }

    #[test]
    fn stops_at_ids_lengths_context_and_callbacks() {
        let mut lm = Counter { cache: vec![] };
        let opts = GenerateOptions { max_new_tokens: 10, stop_ids: vec![5], ..Default::default() };
        assert_eq!(generate(&mut lm, &[1], &opts, |_| true).unwrap(), [2, 3, 4]);
        let opts = GenerateOptions { max_new_tokens: 3, ..Default::default() };
        assert_eq!(generate(&mut lm, &[1], &opts, |_| true).unwrap(), [2, 3, 4]);
        let mut seen = 0;
        assert_eq!(
            generate(&mut lm, &[1], &GenerateOptions::default(), |_| {
                seen += 1;
                seen < 2
            })
            .unwrap(),
            [2, 3]
        );
        // 9 prompt positions leave 3 in the context of 12.
        assert_eq!(generate(&mut lm, &[0; 9], &GenerateOptions::default(), |_| true).unwrap(), [1, 2, 3]);
    }

    #[test]
    fn text_stops_before_the_stop_string() {
        let mut lm = Counter { cache: vec![] };
        let opts = GenerateOptions { max_new_tokens: 10, stop_strings: vec!["de".into()], ..Default::default() };
        let mut streamed = String::new();
        let g = generate_text(&mut lm, &letters(), &[0], &opts, |_, t| {
            streamed.push_str(t);
            true
        })
        .unwrap();
        assert_eq!((g.text.as_str(), g.finish.clone()), ("bc", Finish::StopString(0)));
        assert_eq!(g.ids, [1, 2, 3, 4]);
        assert_eq!(streamed, "bc");
        // Special tokens print nothing.
        let opts = GenerateOptions { max_new_tokens: 4, ..Default::default() };
        let g = generate_text(&mut lm, &letters(), &[4], &opts, |_, _| true).unwrap();
        assert_eq!((g.text.as_str(), g.finish), ("fga", Finish::Length));
        let g = generate_text(&mut lm, &letters(), &[5], &opts, |_, _| true).unwrap();
        assert_eq!(g.text, "gab");
    }
}
