//! The tutor's use of the language model: free text after a prompt (with stop strings), JSON of
//! a schema, and label scores — all on one [`Session`], whose cache keeps the longest prompt
//! prefix already computed, so consecutive steps of a plan pay only for their new tokens.

use super::TutorError;
use super::prompt::Prompt;
use crate::llm::{GenerateOptions, LoadOptions, Sampling, Schema, Session};
use std::sync::Arc;

/// The tutor's session, with the prompt rendering and synchronous calls the tutor's loop uses.
pub struct TutorModel {
    pub session: Session,
}

impl TutorModel {
    /// Positions the tutor's model holds: a task's description and starter code, the code so far
    /// and the step's examples. HumanEval's longest tutor prompt (HumanEval/129) needs 2,111
    /// tokens, more than the 2,048 that Ask's [`Session::CONTEXT`] holds; 4,096 costs
    /// Qwen2.5-Coder-0.5B ≈ 100 MB of cache.
    pub const CONTEXT: usize = 4096;

    /// Loads a GGUF chat model on the quantized runtime with [`TutorModel::CONTEXT`] positions.
    pub fn load(bytes: Arc<Vec<u8>>) -> Result<TutorModel, TutorError> {
        Ok(TutorModel { session: Session::load(bytes, &LoadOptions::quantized(Self::CONTEXT))? })
    }

    /// Token ids of a rendered prompt.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, TutorError> {
        Ok(self.session.encode(text)?)
    }

    fn fits(&self, ids: usize, new: usize) -> Result<(), TutorError> {
        let have = crate::llm::Eval::context_length(&self.session);
        if ids + new > have {
            return Err(TutorError::Context { need: ids + new, have });
        }
        Ok(())
    }

    fn ids(&self, prompt: &Prompt) -> Result<Vec<u32>, TutorError> {
        self.encode(&prompt.render(&self.session.template)?)
    }

    /// Generates after `prompt` until a stop id, a stop string (not included) or `max_new`
    /// tokens.
    pub fn complete(&mut self, prompt: &Prompt, max_new: usize, stops: &[String], sampling: &Sampling) -> Result<String, TutorError> {
        let ids = self.ids(prompt)?;
        self.fits(ids.len(), max_new)?;
        let opts = GenerateOptions { max_new_tokens: max_new, stop_strings: stops.to_vec(), sampling: sampling.clone(), ..Default::default() };
        Ok(self.session.complete_now(&ids, opts)?.text)
    }

    /// Generates JSON of `schema` after `prompt` (always parses, see `llm::constrain`).
    pub fn json(&mut self, prompt: &Prompt, schema: &Schema, max_new: usize, sampling: &Sampling) -> Result<serde_json::Value, TutorError> {
        let ids = self.ids(prompt)?;
        self.fits(ids.len(), max_new)?;
        let opts = GenerateOptions { max_new_tokens: max_new, sampling: sampling.clone(), ..Default::default() };
        Ok(self.session.json_now(&ids, schema, opts)?.value)
    }

    /// Log-probability of each candidate answer after `prompt` (one shared prefix). Each
    /// candidate is tokenized together with the prompt, as the model would read it.
    pub fn score(&mut self, prompt: &Prompt, candidates: &[&str]) -> Result<Vec<f64>, TutorError> {
        let text = prompt.render(&self.session.template)?;
        let full: Vec<Vec<u32>> = candidates.iter().map(|c| self.encode(&format!("{text}{c}"))).collect::<Result<_, _>>()?;
        let shared = full.iter().skip(1).fold(full[0].len(), |n, f| n.min(f.iter().zip(&full[0]).take_while(|(a, b)| a == b).count()));
        let shared = shared.min(full.iter().map(|f| f.len() - 1).min().unwrap_or(0)).max(1);
        self.fits(full.iter().map(Vec::len).max().unwrap_or(0), 0)?;
        let tails: Vec<Vec<u32>> = full.iter().map(|f| f[shared..].to_vec()).collect();
        Ok(self.session.score_now(&full[0][..shared], &tails)?.into_iter().map(|s| s.logprob_sum).collect())
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
