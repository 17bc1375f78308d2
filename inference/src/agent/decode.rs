//! Greedy decoding one token per call, for hosts that must do other work between tokens.
//!
//! [`crate::llm::generate`] runs the whole loop at once; a browser worker instead calls
//! [`Decoder::step`] (or [`Decoder::step_async`] on WebGPU, where logits are read back
//! asynchronously), yields to its event loop (where a Stop message can arrive), and calls again;
//! the prompt itself is read in chunks, one per step. The decoder holds no model: each step is
//! given one, so the same loop drives every runtime.

use crate::llm::generate::argmax;
use crate::llm::{BurnLm, GgufTokenizer, LanguageModel, LmError};

/// What one [`Decoder::step`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Evaluated part of the prompt: `done` of `total` tokens.
    Reading { done: usize, total: usize },
    /// Chose the next token.
    Token(u32),
    /// A stop id or the length limit was reached (or the prompt was empty).
    Done,
}

/// What a step needs from the model.
enum Work {
    /// Nothing: the step is this.
    Ready(Step),
    /// Evaluate `tokens` after the cache (clearing it first when `fresh`), give the logits to
    /// [`Decoder::feed`]; the step is `then`.
    Eval { tokens: Vec<u32>, fresh: bool, then: Step },
}

/// A generation in progress: the prompt is evaluated in chunks, then tokens come one
/// [`Decoder::step`] at a time, greedily (temperature 0).
pub struct Decoder {
    prompt: Vec<u32>,
    fed: usize,
    chunk: usize,
    stop_ids: Vec<u32>,
    max_new_tokens: usize,
    logits: Vec<f32>,
    tokens: Vec<u32>,
    done: bool,
}

impl Decoder {
    /// The model's cache is cleared at the first step; the prompt is evaluated `prefill_chunk`
    /// tokens per step, so a host can yield between chunks of a long prompt too.
    pub fn new(prompt_ids: &[u32], stop_ids: &[u32], max_new_tokens: usize, prefill_chunk: usize) -> Self {
        Decoder {
            prompt: prompt_ids.to_vec(),
            fed: 0,
            chunk: prefill_chunk.max(1),
            stop_ids: stop_ids.to_vec(),
            max_new_tokens,
            logits: Vec::new(),
            tokens: Vec::new(),
            done: max_new_tokens == 0 || prompt_ids.is_empty(),
        }
    }

    /// Does one unit of work on `lm`: a chunk of the prompt, or one token (each token after the
    /// first costs one decode step).
    pub fn step(&mut self, lm: &mut dyn LanguageModel) -> Result<Step, LmError> {
        match self.next() {
            Work::Ready(step) => Ok(step),
            Work::Eval { tokens, fresh, then } => {
                if fresh {
                    lm.truncate(0);
                }
                self.logits = lm.eval(&tokens, false)?;
                Ok(then)
            }
        }
    }

    /// [`Decoder::step`] with an asynchronous readback: the form WebGPU in the browser needs.
    pub async fn step_async(&mut self, lm: &mut BurnLm) -> Result<Step, LmError> {
        match self.next() {
            Work::Ready(step) => Ok(step),
            Work::Eval { tokens, fresh, then } => {
                if fresh {
                    lm.truncate(0);
                }
                self.logits = lm.eval_async(&tokens, false).await?;
                Ok(then)
            }
        }
    }

    /// Decides the next step on the CPU; the model call, if any, is left to the caller.
    fn next(&mut self) -> Work {
        if self.done {
            return Work::Ready(Step::Done);
        }
        if self.fed < self.prompt.len() {
            let (start, end) = (self.fed, (self.fed + self.chunk).min(self.prompt.len()));
            self.fed = end;
            let tokens = self.prompt[start..end].to_vec();
            return Work::Eval { tokens, fresh: start == 0, then: Step::Reading { done: end, total: self.prompt.len() } };
        }
        let next = argmax(&self.logits);
        if self.stop_ids.contains(&next) {
            self.done = true;
            return Work::Ready(Step::Done);
        }
        self.tokens.push(next);
        if self.tokens.len() >= self.max_new_tokens {
            self.done = true;
            return Work::Ready(Step::Token(next));
        }
        Work::Eval { tokens: vec![next], fresh: false, then: Step::Token(next) }
    }

    /// Tokens generated so far.
    pub fn tokens(&self) -> &[u32] {
        &self.tokens
    }

    /// True when generation ended at `max_new_tokens` rather than at a stop id.
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

    fn run(d: &mut Decoder, lm: &mut Counter) -> (Vec<Step>, Vec<u32>) {
        let mut steps = Vec::new();
        loop {
            let s = d.step(lm).unwrap();
            steps.push(s);
            if s == Step::Done {
                return (steps, d.tokens().to_vec());
            }
        }
    }

    #[test]
    fn reads_the_prompt_in_chunks_then_steps_until_a_stop_id() {
        let mut lm = Counter { cached: 5 };
        let mut d = Decoder::new(&[0, 1, 2, 3], &[7], 10, 3);
        let (steps, tokens) = run(&mut d, &mut lm);
        assert_eq!(steps[..2], [Step::Reading { done: 3, total: 4 }, Step::Reading { done: 4, total: 4 }]);
        assert_eq!(tokens, [4, 5, 6]);
        assert!(!d.truncated());
        assert_eq!(d.step(&mut lm).unwrap(), Step::Done, "stays done");
        assert_eq!(lm.cached, 4 + 3, "the old cache was cleared: prompt + one decode step per token");
    }

    #[test]
    fn stops_at_the_length_limit_without_an_extra_step() {
        let mut lm = Counter { cached: 0 };
        let mut d = Decoder::new(&[0, 1], &[], 2, 64);
        let (steps, tokens) = run(&mut d, &mut lm);
        assert_eq!(steps, [Step::Reading { done: 2, total: 2 }, Step::Token(2), Step::Token(3), Step::Done]);
        assert_eq!(tokens, [2, 3]);
        assert!(d.truncated());
        assert_eq!(lm.cached, 3, "prompt + one decode step; the last token is never evaluated");
        let mut empty = Decoder::new(&[], &[], 5, 8);
        assert_eq!(empty.step(&mut lm).unwrap(), Step::Done);
    }
}
