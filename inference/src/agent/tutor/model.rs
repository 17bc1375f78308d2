//! The tutor's use of the language model: free text after a prompt (with stop strings), JSON of
//! a schema, and label scores — all through one cache that keeps the longest prompt prefix
//! already computed, so consecutive steps of a plan pay only for their new tokens.

use super::TutorError;
use super::prompt::Prompt;
use crate::agent::ChatModel;
use crate::gguf::Gguf;
use crate::llm::sample::Sampler;
use crate::llm::score::log_softmax;
use crate::llm::stream::TextStream;
use crate::llm::{GenerateOptions, JsonDecoder, LanguageModel, Sampling, Schema, TokenBytes};
use std::sync::Arc;

/// A chat model owned by the tutor, with what constrained decoding and prefix reuse need.
pub struct TutorModel {
    pub chat: ChatModel,
    vocab: Arc<TokenBytes>,
    json: JsonDecoder,
    /// Token ids whose positions the model's cache holds, and the logits after the last one.
    cached: Vec<u32>,
    logits: Vec<f32>,
}

impl TutorModel {
    /// Positions the tutor's model holds: a task's description and starter code, the code so far
    /// and the step's examples. HumanEval's longest tutor prompt (HumanEval/129) needs 2,111
    /// tokens, more than the 2,048 that Ask's [`ChatModel::CONTEXT`] holds; 4,096 costs
    /// Qwen2.5-Coder-0.5B ≈ 100 MB of cache.
    pub const CONTEXT: usize = 4096;

    /// Loads a GGUF chat model (see [`ChatModel::load`]) with [`TutorModel::CONTEXT`] positions.
    pub fn load(bytes: Arc<Vec<u8>>) -> Result<TutorModel, TutorError> {
        let vocab = TokenBytes::from_gguf(&Gguf::parse(&bytes).map_err(crate::agent::AgentError::from)?)?;
        let chat = ChatModel::load_with_context(bytes, Self::CONTEXT)?;
        Self::new(chat, vocab)
    }

    /// Wraps a loaded model; `vocab` is its vocabulary's bytes ([`TokenBytes::from_gguf`]).
    pub fn new(chat: ChatModel, vocab: TokenBytes) -> Result<TutorModel, TutorError> {
        let json = JsonDecoder::new(&vocab)?;
        Ok(TutorModel { chat, vocab: Arc::new(vocab), json, cached: Vec::new(), logits: Vec::new() })
    }

    /// Token ids of a rendered prompt.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, TutorError> {
        Ok(self.chat.tokenizer.encode(text)?)
    }

    fn lm(&mut self) -> &mut dyn LanguageModel {
        self.chat.lm.as_mut()
    }

    fn fits(&self, ids: usize, new: usize) -> Result<(), TutorError> {
        let have = self.chat.lm.context_length();
        if ids + new > have {
            return Err(TutorError::Context { need: ids + new, have });
        }
        Ok(())
    }

    /// Makes the cache hold exactly `ids` (reusing the longest common prefix) and returns the
    /// logits after the last one.
    fn sync(&mut self, ids: &[u32]) -> Result<Vec<f32>, TutorError> {
        assert!(!ids.is_empty(), "a prompt has at least one token");
        if self.chat.lm.cached() != self.cached.len() {
            // Someone else used the model: nothing cached can be trusted.
            self.cached.clear();
            self.lm().truncate(0);
        }
        let common = self.cached.iter().zip(ids).take_while(|(a, b)| a == b).count();
        if common == ids.len() && common == self.cached.len() && !self.logits.is_empty() {
            return Ok(self.logits.clone());
        }
        let keep = common.min(ids.len() - 1);
        self.lm().truncate(keep);
        self.cached.truncate(keep);
        self.logits = self.lm().eval(&ids[keep..], false)?;
        self.cached.extend_from_slice(&ids[keep..]);
        Ok(self.logits.clone())
    }

    /// Appends one token and returns the logits after it.
    fn push(&mut self, id: u32) -> Result<Vec<f32>, TutorError> {
        self.logits = self.lm().eval(&[id], false)?;
        self.cached.push(id);
        Ok(self.logits.clone())
    }

    /// Generates after `prompt` until a stop id, a stop string (not included) or `max_new`
    /// tokens.
    pub fn complete(&mut self, prompt: &Prompt, max_new: usize, stops: &[String], sampling: &Sampling) -> Result<String, TutorError> {
        let text = prompt.render(&self.chat.template)?;
        let ids = self.encode(&text)?;
        self.fits(ids.len(), max_new)?;
        let mut logits = self.sync(&ids)?;
        let mut sampler = Sampler::new(sampling.clone());
        let mut history = ids;
        let vocab = self.vocab.clone();
        let mut stream = TextStream::new(&vocab, stops);
        for n in 0..max_new {
            let next = sampler.sample(&mut logits, &history);
            if self.chat.stop_ids.contains(&next) {
                break;
            }
            history.push(next);
            stream.push(next);
            if stream.stopped().is_some() || n + 1 == max_new {
                break;
            }
            logits = self.push(next)?;
        }
        stream.finish();
        Ok(stream.into_text())
    }

    /// Generates JSON of `schema` after `prompt` (always parses, see `llm::constrain`).
    pub fn json(&mut self, prompt: &Prompt, schema: &Schema, max_new: usize, sampling: &Sampling) -> Result<serde_json::Value, TutorError> {
        let text = prompt.render(&self.chat.template)?;
        let ids = self.encode(&text)?;
        self.fits(ids.len(), max_new)?;
        let opts = GenerateOptions { max_new_tokens: max_new, stop_ids: self.chat.stop_ids.clone(), sampling: sampling.clone(), ..Default::default() };
        let out = self.json.generate(self.chat.lm.as_mut(), schema, &ids, &opts, |_, _| true);
        // The decoder cleared the cache and fed the prompt and (all but maybe the last of) its output.
        self.cached = ids;
        if let Ok(o) = &out {
            self.cached.extend_from_slice(&o.ids);
        }
        self.cached.truncate(self.chat.lm.cached());
        self.logits.clear();
        Ok(out?.value)
    }

    /// Log-probability of each candidate answer after `prompt` (one shared prefix).
    pub fn score(&mut self, prompt: &Prompt, candidates: &[&str]) -> Result<Vec<f64>, TutorError> {
        let text = prompt.render(&self.chat.template)?;
        let full: Vec<Vec<u32>> = candidates.iter().map(|c| self.encode(&format!("{text}{c}"))).collect::<Result<_, _>>()?;
        self.score_ids(&full)
    }

    /// Log-probability of each id sequence after the prefix they all share.
    fn score_ids(&mut self, full: &[Vec<u32>]) -> Result<Vec<f64>, TutorError> {
        let shared = full.iter().skip(1).fold(full[0].len(), |n, f| n.min(f.iter().zip(&full[0]).take_while(|(a, b)| a == b).count()));
        let shared = shared.min(full.iter().map(|f| f.len() - 1).min().unwrap_or(0)).max(1);
        self.fits(full.iter().map(Vec::len).max().unwrap_or(0), 0)?;
        let vocab = self.chat.lm.vocab_size();
        let mut out = Vec::with_capacity(full.len());
        for f in full {
            let first = self.sync(&f[..shared])?;
            let mut sum = log_softmax(&first[..vocab])[f[shared] as usize];
            if f.len() > shared + 1 {
                let rows = self.lm().eval(&f[shared..f.len() - 1], true)?;
                self.cached.extend_from_slice(&f[shared..f.len() - 1]);
                self.logits = rows[rows.len() - vocab..].to_vec();
                for (row, &next) in rows.chunks_exact(vocab).zip(&f[shared + 1..]) {
                    sum += log_softmax(row)[next as usize];
                }
            }
            out.push(sum);
        }
        Ok(out)
    }

    /// Which of `texts` the model finds most likely right after the rendered `prompt` (its
    /// prefill included); index of the best.
    pub fn most_likely(&mut self, prompt: &Prompt, texts: &[String]) -> Result<usize, TutorError> {
        if texts.len() < 2 {
            return Ok(0);
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let s = self.score(prompt, &refs)?;
        Ok(s.iter().enumerate().fold(0, |b, (i, &v)| if v > s[b] { i } else { b }))
    }
}
