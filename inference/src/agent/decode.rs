//! Greedy decoding one token per call, for hosts that must do other work between tokens.
//!
//! [`crate::llm::generate`] runs the whole loop at once; a browser worker instead calls
//! [`Decoder::step`], yields to its event loop (where a Stop message can arrive), and calls again.

use crate::llm::generate::argmax;
use crate::llm::{GgufTokenizer, LanguageModel, LmError};

/// A generation in progress: the prompt is evaluated, tokens come one [`Decoder::step`] at a time.
pub struct Decoder<'m> {
    lm: &'m mut dyn LanguageModel,
    stop_ids: Vec<u32>,
    max_new_tokens: usize,
    logits: Vec<f32>,
    tokens: Vec<u32>,
    done: bool,
}

impl<'m> Decoder<'m> {
    /// Clears the model's cache and evaluates the prompt (the prefill, the long step).
    pub fn start(lm: &'m mut dyn LanguageModel, prompt_ids: &[u32], stop_ids: &[u32], max_new_tokens: usize) -> Result<Self, LmError> {
        lm.truncate(0);
        let logits = lm.eval(prompt_ids, false)?;
        Ok(Decoder { lm, stop_ids: stop_ids.to_vec(), max_new_tokens, logits, tokens: Vec::new(), done: max_new_tokens == 0 })
    }

    /// The next token (greedy, temperature 0), or `None` once a stop id or the length limit is
    /// reached. Each call after the first token runs one decode step.
    pub fn step(&mut self) -> Result<Option<u32>, LmError> {
        if self.done {
            return Ok(None);
        }
        let next = argmax(&self.logits);
        if self.stop_ids.contains(&next) {
            self.done = true;
            return Ok(None);
        }
        self.tokens.push(next);
        if self.tokens.len() >= self.max_new_tokens {
            self.done = true;
        } else {
            self.logits = self.lm.eval(&[next], false)?;
        }
        Ok(Some(next))
    }

    /// Tokens generated so far.
    pub fn tokens(&self) -> &[u32] {
        &self.tokens
    }

    /// True when the last step hit `max_new_tokens` rather than a stop id.
    pub fn truncated(&self) -> bool {
        self.done && self.tokens.len() >= self.max_new_tokens
    }
}

/// Turns a growing list of token ids into text deltas, holding back a character that byte-level
/// BPE has split across tokens until it is complete.
#[derive(Default)]
pub struct TextStream {
    ids: Vec<u32>,
    shown: String,
}

impl TextStream {
    /// Adds a token; returns the newly completed text, if any.
    pub fn push(&mut self, id: u32, tokenizer: &GgufTokenizer) -> Option<String> {
        self.ids.push(id);
        let full = tokenizer.decode(&self.ids, true).ok()?;
        // A split character decodes as U+FFFD at the end until its last byte arrives.
        if full.len() > self.shown.len() && full.is_char_boundary(self.shown.len()) && !full.ends_with('\u{FFFD}') {
            let delta = full[self.shown.len()..].to_string();
            self.shown = full;
            Some(delta)
        } else {
            None
        }
    }

    /// All text so far.
    pub fn text(&self) -> &str {
        &self.shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts up from the last token; vocabulary of 10.
    struct Counter {
        cached: usize,
    }

    impl LanguageModel for Counter {
        fn vocab_size(&self) -> usize {
            10
        }
        fn context_length(&self) -> usize {
            100
        }
        fn cached(&self) -> usize {
            self.cached
        }
        fn truncate(&mut self, len: usize) {
            self.cached = self.cached.min(len);
        }
        fn eval(&mut self, tokens: &[u32], _all: bool) -> Result<Vec<f32>, LmError> {
            self.cached += tokens.len();
            let next = (tokens.last().copied().unwrap_or(0) + 1) % 10;
            Ok((0..10).map(|i| if i == next { 1.0 } else { 0.0 }).collect())
        }
    }

    #[test]
    fn steps_until_a_stop_id() {
        let mut lm = Counter { cached: 5 };
        let mut d = Decoder::start(&mut lm, &[3], &[7], 10).unwrap();
        let mut got = Vec::new();
        while let Some(t) = d.step().unwrap() {
            got.push(t);
        }
        assert_eq!(got, [4, 5, 6]);
        assert!(!d.truncated());
        assert_eq!(d.step().unwrap(), None, "stays done");
    }

    #[test]
    fn stops_at_the_length_limit_without_an_extra_step() {
        let mut lm = Counter { cached: 0 };
        let mut d = Decoder::start(&mut lm, &[0, 1], &[], 2).unwrap();
        assert_eq!(d.step().unwrap(), Some(2));
        assert_eq!(d.step().unwrap(), Some(3));
        assert_eq!(d.step().unwrap(), None);
        assert!(d.truncated());
        drop(d);
        assert_eq!(lm.cached, 3, "prompt + one decode step; the last token is never evaluated");
    }
}
