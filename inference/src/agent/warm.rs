//! The agents' fixed prompt prefixes, read before the first message needs them.
//!
//! Each agent keeps its fixed prefix in the session ([`Session::keep`]) the first time it runs,
//! so the first message of a page load reads the router's prefix, then Ask's, then the check's
//! judge's before its own words: with Qwen2.5-Coder-0.5B in the browser the router's alone took
//! ~8.5 s of the first answer's wait. The app's worker steps a [`Warmup`] once the course is
//! ready, while the learner is still reading the page: one chunk of tokens per step, the session
//! free between steps, so a message that arrives meanwhile waits for one chunk at most (in the
//! browser not even that: the worker drops the step at the session's next pause) and resumes
//! from what was read (a partly read prefix is kept too).

use super::{ask, route};
use crate::bundle::Bundle;
use crate::embed::SentenceEncoder;
use crate::llm::{Session, SessionError};

/// Prefixes to read, in order, a chunk at a time.
pub struct Warmup {
    prefixes: Vec<(&'static str, Vec<u32>)>,
    next: usize,
    read: usize,
    chunk: usize,
    /// The session's evaluated-token count after the last step: when it moved in between,
    /// another task is using the model and the warm-up ends.
    evaluated: Option<usize>,
}

impl Warmup {
    /// The prefixes a course's first question uses, in the order it uses them: the router's
    /// (when it asks the chat model: `routing` and no classifier for the course's encoder),
    /// Ask's, and the check's judge's (when answers are checked). `chunk`: tokens per step
    /// (0: a whole prefix per step).
    pub fn for_course(
        bundle: &Bundle,
        encoder: Option<&SentenceEncoder>,
        session: &Session,
        settings: &ask::AskSettings,
        routing: Option<&route::RouteConfig>,
        chunk: usize,
    ) -> Result<Warmup, SessionError> {
        let mut prefixes = Vec::new();
        if let Some(cfg) = routing
            && let Some(ids) = route::model_prefix(bundle, encoder, session, cfg)?
        {
            prefixes.push((route::PREFIX, ids));
        }
        // A course with Bengali text gets Bangla questions: their worked example is kept too.
        let bangla = bundle.sections.iter().any(|s| s.heading_path.iter().any(|h| h.chars().any(crate::text::is_bengali)));
        prefixes.extend(ask::prefixes(session, &bundle.header.title, bangla, settings)?);
        if settings.verify.enabled && !settings.closed_book {
            prefixes.push((ask::verify::JUDGE_PREFIX, ask::judge_prefix(session)?));
        }
        prefixes.retain(|(_, ids)| !ids.is_empty());
        Ok(Warmup { prefixes, next: 0, read: 0, chunk, evaluated: None })
    }

    /// Reads the next chunk. `false` once every prefix is kept, or once another task has used
    /// the model since the last step (a learner's request reads the prefixes it needs itself).
    pub async fn step(&mut self, session: &mut Session) -> Result<bool, SessionError> {
        if self.evaluated.is_some_and(|n| n != session.evaluated()) {
            return Ok(false);
        }
        while let Some((name, ids)) = self.prefixes.get(self.next) {
            // Kept whole already (by an agent, or an earlier load of the same course).
            if session.kept_ids(name).is_some_and(|kept| kept.starts_with(ids)) {
                (self.next, self.read) = (self.next + 1, 0);
                continue;
            }
            let end = if self.chunk == 0 { ids.len() } else { (self.read + self.chunk).min(ids.len()) };
            session.keep(name, &ids[..end]).await?;
            self.read = end;
            if end == ids.len() {
                (self.next, self.read) = (self.next + 1, 0);
            }
            self.evaluated = Some(session.evaluated());
            return Ok(self.next < self.prefixes.len());
        }
        Ok(false)
    }

    /// Names and lengths of the prefixes this warm-up reads.
    pub fn prefixes(&self) -> Vec<(&'static str, usize)> {
        self.prefixes.iter().map(|(name, ids)| (*name, ids.len())).collect()
    }
}
