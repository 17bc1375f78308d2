//! The decoding loop: batched prefill, then one token at a time, sampled, optionally constrained.
//!
//! [`Generator`] is the loop, one step per call; [`generate`] works on ids alone and
//! [`generate_text`] also detokenizes, streams text and stops at stop strings. Constrained
//! decoding (`constrain::JsonDecoder`) runs the same loop with a [`TokenConstraint`].

use super::lm::{Eval, LanguageModel, LmError, now};
use super::sample::Sampler;
pub use super::sample::{Sampling, argmax};
use super::stream::TextStream;
use super::token_bytes::TokenBytes;
use std::sync::Arc;

/// Options of [`generate`] and [`generate_text`].
#[derive(Clone, Debug)]
pub struct GenerateOptions {
    /// Most tokens generated (also capped by the context length). 0: the prompt is only read
    /// (the cache then holds it, for a [`crate::llm::Session::score`] or generation after it).
    pub max_new_tokens: usize,
    /// Generation stops at any of these ids (not included in the output): EOS, `<|im_end|>`.
    pub stop_ids: Vec<u32>,
    /// Generation stops once the text contains any of these; the stop string and what follows
    /// it are not returned. Needs text: [`generate_text`].
    pub stop_strings: Vec<String>,
    pub sampling: Sampling,
    /// Prompt-lookup drafts (greedy, unconstrained generation only; 0: off): after each chosen
    /// token, up to this many tokens that followed the latest earlier occurrence of the last
    /// [`DRAFT_MATCH`] tokens (in the prompt or the output) are evaluated with it in one batch;
    /// those the model would have chosen itself are kept, the rest forgotten. An answer that
    /// copies its passages is then read in batches, as a prompt is. The tokens are the model's own
    /// choices; only the logits' rounding can differ, where a batch's kernels round differently
    /// from one token's (wasm, Q4_K's grouped order).
    pub draft: usize,
}

/// Tokens a prompt-lookup draft must match before it is tried ([`GenerateOptions::draft`]).
pub const DRAFT_MATCH: usize = 3;

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions { max_new_tokens: 256, stop_ids: Vec::new(), stop_strings: Vec::new(), sampling: Sampling::greedy(), draft: 0 }
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

/// One generation, a step at a time: the prompt is read in chunks, then tokens come one
/// [`Generator::step`] each, sampled (greedy by default), optionally under a
/// [`TokenConstraint`], until a stop id, a stop string, the length limit or a complete
/// constrained output. The one decoding loop: [`generate`], [`generate_text`], constrained JSON,
/// the browser worker and every agent drive it. It holds no model; each step is given one
/// ([`Eval`]: a bare [`LanguageModel`] or a session that reuses cached prefixes), so the host
/// can yield between steps (a Stop message) and read back asynchronously (WebGPU).
pub struct Generator<'a> {
    prompt: Vec<u32>,
    /// `prompt[..read]` is in the model's cache.
    read: Option<usize>,
    chunk: usize,
    opts: GenerateOptions,
    sampler: Sampler,
    stream: Option<TextStream>,
    constraint: Option<&'a mut dyn TokenConstraint>,
    history: Vec<u32>,
    ids: Vec<u32>,
    logits: Vec<f32>,
    budget: usize,
    finish: Option<Finish>,
    /// Text held back by the stream, released once at the end.
    flushed: bool,
    /// Draft tokens the model agreed with, already in its cache, to be chosen next.
    pending: std::collections::VecDeque<u32>,
    /// Draft tokens tried and kept, for [`Generator::drafted`].
    drafted: (usize, usize),
}

/// What one [`Generator::step`] did.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Evaluated part of the prompt: `done` of `total` tokens (reused cached positions count).
    Reading { done: usize, total: usize },
    /// Chose `id`; `text` is what it releases (empty while a character or a possible stop
    /// string is incomplete, and always without a vocabulary).
    Token { id: u32, text: String },
    /// Text held back until the end (an incomplete character), released as generation ends.
    Text(String),
    /// Generation has ended ([`Generator::finish`] says why); further steps return this again.
    Done,
}

impl<'a> Generator<'a> {
    /// A generation after `prompt_ids`, which the model's cache is made to hold at the first
    /// step (reusing what [`Eval::reuse`] can). Text (and stop strings) need `vocab`.
    pub fn new(prompt_ids: &[u32], opts: GenerateOptions, vocab: Option<Arc<TokenBytes>>) -> Self {
        let stream = vocab.map(|v| TextStream::new(v, &opts.stop_strings));
        Generator {
            prompt: prompt_ids.to_vec(),
            read: None,
            chunk: usize::MAX,
            sampler: Sampler::new(opts.sampling.clone()),
            opts,
            stream,
            constraint: None,
            history: prompt_ids.to_vec(),
            ids: Vec::new(),
            logits: Vec::new(),
            budget: 0,
            finish: None,
            flushed: false,
            pending: Default::default(),
            drafted: (0, 0),
        }
    }

    /// Reads the prompt at most `tokens` per step (a host that yields between steps stays
    /// responsive during a long prompt).
    pub fn prompt_chunk(mut self, tokens: usize) -> Self {
        self.chunk = tokens.max(1);
        self
    }

    /// Restricts every token to `constraint`.
    pub fn constrained(mut self, constraint: &'a mut dyn TokenConstraint) -> Self {
        self.constraint = Some(constraint);
        self
    }

    /// Does one unit of work: positions the cache, reads a chunk of the prompt, or chooses one
    /// token (and evaluates it, unless generation ends with it).
    pub async fn step<E: Eval + ?Sized>(&mut self, m: &mut E) -> Result<Event, LmError> {
        if self.finish.is_some() {
            return Ok(self.flush());
        }
        let read = match self.read {
            Some(r) => r,
            None => {
                self.budget = self.opts.max_new_tokens.min(m.context_length().saturating_sub(self.prompt.len()));
                let read_only = self.opts.max_new_tokens == 0 && self.prompt.len() <= m.context_length();
                if (self.budget == 0 && !read_only) || self.prompt.is_empty() {
                    self.finish = Some(Finish::Length);
                    return Ok(self.flush());
                }
                let r = m.reuse(&self.prompt);
                self.read = Some(r);
                r
            }
        };
        if read < self.prompt.len() {
            let end = read.saturating_add(self.chunk).min(self.prompt.len());
            self.logits = m.eval(&self.prompt[read..end], false).await?;
            self.read = Some(end);
            return Ok(Event::Reading { done: end, total: self.prompt.len() });
        }
        if self.ids.len() >= self.budget {
            self.finish = Some(Finish::Length);
            return Ok(self.flush());
        }
        // A draft token the model agreed with is already evaluated: chosen without sampling.
        let drafted = self.pending.pop_front();
        let next = match drafted {
            Some(id) => id,
            None => {
                if let Some(c) = self.constraint.as_deref_mut() {
                    if !c.mask(&mut self.logits, self.budget - self.ids.len()) {
                        return Err(LmError::Unsupported(
                            "the constraint allows no token here; the vocabulary cannot spell what the schema needs".into(),
                        ));
                    }
                }
                self.sampler.sample(&mut self.logits, &self.history)
            }
        };
        if self.opts.stop_ids.contains(&next) {
            self.finish = Some(Finish::StopId(next));
            return Ok(self.flush());
        }
        self.ids.push(next);
        self.history.push(next);
        if let Some(c) = self.constraint.as_deref_mut() {
            c.accept(next);
        }
        let text = self.stream.as_mut().map_or(String::new(), |s| s.push(next).to_string());
        if let Some(i) = self.stream.as_ref().and_then(|s| s.stopped()) {
            self.finish = Some(Finish::StopString(i));
        } else if self.constraint.as_deref().is_some_and(|c| c.is_complete()) {
            self.finish = Some(Finish::Complete);
        } else if self.ids.len() >= self.budget {
            self.finish = Some(Finish::Length);
        } else if drafted.is_none() {
            self.logits = self.evaluate(m, next).await?;
        }
        Ok(Event::Token { id: next, text })
    }

    /// Evaluates the chosen token `next` (the last of `history`), with a prompt-lookup draft
    /// after it where [`GenerateOptions::draft`] allows one; returns the logits after the last
    /// token kept, the draft tokens kept waiting in `pending`.
    async fn evaluate<E: Eval + ?Sized>(&mut self, m: &mut E, next: u32) -> Result<Vec<f32>, LmError> {
        let room = self.budget - self.ids.len();
        let draft = if self.opts.draft > 0 && self.constraint.is_none() && self.opts.sampling.is_greedy() {
            lookup(&self.history, DRAFT_MATCH, self.opts.draft.min(room.saturating_sub(1)))
        } else {
            Vec::new()
        };
        if draft.is_empty() {
            return m.eval(&[next], false).await;
        }
        let mut batch = Vec::with_capacity(1 + draft.len());
        batch.push(next);
        batch.extend_from_slice(&draft);
        let rows = m.eval(&batch, true).await?;
        let vocab = rows.len() / batch.len();
        // Row i holds the logits after batch[i]: keep draft[i] while the model would choose it
        // (the history grows by each kept token while checking, and is put back after: the kept
        // tokens join it when they are chosen).
        let before = self.history.len();
        let mut kept = 0;
        while kept < draft.len() {
            let mut row = rows[kept * vocab..(kept + 1) * vocab].to_vec();
            if self.sampler.sample(&mut row, &self.history) != draft[kept] {
                break;
            }
            self.history.push(draft[kept]);
            kept += 1;
        }
        self.history.truncate(before);
        self.drafted.0 += draft.len();
        self.drafted.1 += kept;
        // The cache holds the prompt, every chosen token and the draft: forget what was not kept.
        m.truncate(self.prompt.len() + self.ids.len() + kept);
        self.pending.extend(&draft[..kept]);
        Ok(rows[kept * vocab..(kept + 1) * vocab].to_vec())
    }

    /// Draft tokens tried and kept so far ([`GenerateOptions::draft`]).
    pub fn drafted(&self) -> (usize, usize) {
        self.drafted
    }

    /// Ends the generation at the caller's request (a Stop button); the next step is `Done`.
    pub fn cancel(&mut self) {
        self.finish.get_or_insert(Finish::Cancelled);
    }

    /// Why generation ended, once it has.
    pub fn finish(&self) -> Option<&Finish> {
        self.finish.as_ref()
    }

    /// Whether the next step would return [`Event::Done`] (held text already released).
    pub fn is_done(&self) -> bool {
        self.finish.is_some() && self.flushed
    }

    /// Every generated id (including one that completed a stop string; never a stop id).
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// Text of the generated ids, cut before a stop string.
    pub fn text(&self) -> &str {
        self.stream.as_ref().map_or("", |s| s.text())
    }

    fn flush(&mut self) -> Event {
        if self.flushed {
            return Event::Done;
        }
        self.flushed = true;
        match self.stream.as_mut().map(|s| s.finish().to_string()) {
            Some(rest) if !rest.is_empty() => Event::Text(rest),
            _ => Event::Done,
        }
    }

    /// Steps to the end, showing each id with the text it releases to `on_text` (the text held
    /// back to the end comes last with no id); `false` from it cancels.
    pub async fn run<E: Eval + ?Sized>(mut self, m: &mut E, mut on_text: impl FnMut(Option<u32>, &str) -> bool) -> Result<Generation, LmError> {
        loop {
            match self.step(m).await? {
                Event::Reading { .. } => {}
                Event::Token { id, text } => {
                    if !on_text(Some(id), &text) {
                        self.cancel();
                    }
                }
                Event::Text(rest) => {
                    on_text(None, &rest);
                }
                Event::Done => break,
            }
        }
        let finish = self.finish.clone().unwrap_or(Finish::Length);
        let text = self.stream.map_or(String::new(), |s| s.into_text());
        Ok(Generation { ids: self.ids, text, finish })
    }
}

/// Up to `most` tokens that followed the latest earlier occurrence of `history`'s last `n`
/// tokens in `history` (prompt-lookup decoding's draft); empty when they occur nowhere before.
pub fn lookup(history: &[u32], n: usize, most: usize) -> Vec<u32> {
    if most == 0 || history.len() <= n {
        return Vec::new();
    }
    let tail = &history[history.len() - n..];
    (0..history.len() - n)
        .rev()
        .find(|&i| &history[i..i + n] == tail)
        .map(|i| history[i + n..].iter().take(most).copied().collect())
        .unwrap_or_default()
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
    let g = Generator::new(prompt_ids, opts.clone(), None);
    Ok(now(g.run(lm, |id, _| id.is_none_or(&mut on_token)))?.ids)
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
    on_text: impl FnMut(Option<u32>, &str) -> bool,
) -> Result<Generation, LmError> {
    now(Generator::new(prompt_ids, opts.clone(), Some(Arc::new(vocab.clone()))).run(lm, on_text))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model whose next token after `t` is `(t + 1) % cycle` (a vocabulary of 8), answering
    /// every row when asked (`all`), counting its evaluations.
    struct Counter {
        cache: Vec<u32>,
        cycle: usize,
        context: usize,
        evals: usize,
    }

    impl Counter {
        /// Next token `(t + 1) % 8`, a 12-position context.
        fn new() -> Self {
            Counter { cache: vec![], cycle: 8, context: 12, evals: 0 }
        }
    }

    impl LanguageModel for Counter {
        fn vocab_size(&self) -> usize {
            8
        }
        fn context_length(&self) -> usize {
            self.context
        }
        fn cached(&self) -> usize {
            self.cache.len()
        }
        fn truncate(&mut self, len: usize) {
            self.cache.truncate(len);
        }
        fn eval(&mut self, tokens: &[u32], all: bool) -> Result<Vec<f32>, LmError> {
            self.evals += 1;
            self.cache.extend_from_slice(tokens);
            let rows = if all { tokens } else { &tokens[tokens.len() - 1..] };
            let mut l = vec![0.0; 8 * rows.len()];
            for (i, &t) in rows.iter().enumerate() {
                l[i * 8 + (t as usize + 1) % self.cycle] = 5.0;
            }
            Ok(l)
        }
    }

    #[test]
    fn drafts_from_the_prompt_change_no_token_and_save_evaluations() {
        let run = |prompt: &[u32], draft: usize, max: usize| {
            let mut lm = Counter { cycle: 6, context: 64, ..Counter::new() };
            let opts = GenerateOptions { max_new_tokens: max, stop_ids: vec![7], draft, ..Default::default() };
            let mut g = Generator::new(prompt, opts, None);
            while now(g.step(&mut lm)).unwrap() != Event::Done {}
            let ids = g.ids().to_vec();
            // The cache holds the prompt and every chosen token but the last (never evaluated).
            assert_eq!(lm.cache, [prompt, &ids[..ids.len() - 1]].concat(), "draft {draft}");
            (ids, lm.evals, g.drafted())
        };
        // The prompt holds the cycle the model follows: drafts are right.
        let prompt = [0, 1, 2, 3, 4, 5, 0, 1, 2];
        let (plain, evals, none) = run(&prompt, 0, 20);
        let (drafted, fewer, (tried, kept)) = run(&prompt, 4, 20);
        assert_eq!(drafted, plain);
        assert_eq!(none, (0, 0));
        assert!(kept > 0 && kept <= tried && fewer < evals, "{evals} evaluations without drafts, {fewer} with; {kept} of {tried} kept");
        // The prompt's continuation is not the model's: drafts are tried and dropped, the tokens stay.
        let prompt = [0, 1, 2, 3, 6, 6, 0, 1, 2];
        let (plain, _, _) = run(&prompt, 0, 7);
        let (drafted, _, (tried, kept)) = run(&prompt, 4, 7);
        assert_eq!((drafted, kept), (plain, 0));
        assert!(tried > 0);
        assert_eq!(lookup(&[5, 1, 2, 9, 1, 2], 2, 3), [9, 1, 2]);
        assert_eq!(lookup(&[1, 2, 3], 2, 3), Vec::<u32>::new());
    }

    fn letters() -> TokenBytes {
        TokenBytes::from_fn(8, |i| if i == 7 { None } else { Some(vec![b'a' + i as u8]) })
    }

    #[test]
    fn stops_at_ids_lengths_context_and_callbacks() {
        let mut lm = Counter::new();
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
    fn no_new_tokens_reads_the_prompt_only() {
        let mut lm = Counter::new();
        let opts = GenerateOptions { max_new_tokens: 0, ..Default::default() };
        assert!(generate(&mut lm, &[1, 2, 3], &opts, |_| true).unwrap().is_empty());
        assert_eq!(lm.cache, [1, 2, 3], "the cache holds the prompt");
        // A prompt longer than the context is not read.
        let mut lm = Counter::new();
        assert!(generate(&mut lm, &[0; 13], &opts, |_| true).unwrap().is_empty());
        assert!(lm.cache.is_empty());
    }

    #[test]
    fn text_stops_before_the_stop_string() {
        let mut lm = Counter::new();
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
