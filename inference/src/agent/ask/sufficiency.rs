//! The evidence-sufficiency check: after the coverage gate, the course LLM says whether the
//! passages answer the question (TeachMateGPT's fail-closed step), by label scoring.
//!
//! It is asked inside Ask's own conversation: the answer prompt's user turn (the passages, then
//! the question) with [`CHECK`] appended, so the kept system turn and the passages are read once
//! for both the check and the answer; only the check's short tail and the answer's turn end
//! differ. The margin is the log-probability of "Yes" minus that of "No". A question the gate
//! let through needs [`Sufficiency::min_margin`]; one the gate doubted
//! ([`crate::retrieve::Retrieval::uncertain`]: few of its words in the evidence) needs
//! [`Sufficiency::min_margin_uncertain`].
//!
//! Measured with the course model it does not help yet (see [`Sufficiency::default`]): it is off
//! by default, and `index-builder search --model` / `ask --sufficiency` run it for measuring.

use super::{AskError, AskPrompt};
use crate::llm::{ChatMessage, Session};

/// The line added after the question.
pub const CHECK: &str = "Before answering: can this question be answered from the passages above? Answer Yes or No.";

/// When the check runs and what margin it needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Sufficiency {
    pub enabled: bool,
    /// Least yes-minus-no margin for a question the coverage gate let through.
    pub min_margin: f64,
    /// Least margin for a question the gate doubted (answered only when the model is sure).
    pub min_margin_uncertain: f64,
}

impl Default for Sufficiency {
    /// Off: with Qwen2.5-Coder-0.5B the margin does not separate answerable questions from
    /// out-of-course ones (AUC 0.33 on our English tuning half, docs/EVALUATION.md), so it would
    /// refuse answerable questions without catching unanswerable ones. The thresholds are where a
    /// model that can judge would start.
    fn default() -> Self {
        Sufficiency { enabled: false, min_margin: 0.0, min_margin_uncertain: 0.0 }
    }
}

impl Sufficiency {
    /// Whether a check's `margin` lets the question be answered.
    pub fn sufficient(&self, margin: f64, uncertain: bool) -> bool {
        margin >= if uncertain { self.min_margin_uncertain } else { self.min_margin }
    }
}

/// Ids of the check and how many of them are the kept system turn's.
pub fn ids(session: &Session, prompt: &AskPrompt) -> Result<(Vec<u32>, usize), AskError> {
    let user = format!("{}\n\n{CHECK}", prompt.user);
    let mut messages = prompt.messages();
    *messages.last_mut().expect("a prompt has a user turn") = ChatMessage { role: "user", content: &user };
    Ok(session.chat_ids(&messages[..prompt.fixed()], &messages[prompt.fixed()..])?)
}

/// The check's yes-minus-no log-probability for `prompt`. Reads only what the session's cache
/// does not hold: after a read of the shared part, the tail of a few tokens.
pub async fn margin(session: &mut Session, prefix: &str, check_ids: &[u32], kept: usize) -> Result<f64, AskError> {
    session.keep(prefix, &check_ids[..kept]).await?;
    let yes = session.encode("Yes")?;
    let no = session.encode("No")?;
    let scores = session.score(check_ids, &[yes, no]).await?;
    Ok(scores[0].logprob_sum - scores[1].logprob_sum)
}

/// The check for `prompt` on its own (what `index-builder search --model` runs): reads what the
/// session's cache does not hold of the check's prompt, then scores it.
pub async fn check(session: &mut Session, prompt: &AskPrompt) -> Result<f64, AskError> {
    let (ids, kept) = ids(session, prompt)?;
    margin(session, prompt.prefix(), &ids, kept).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uncertain_need_more() {
        let s = Sufficiency { enabled: true, min_margin: -1.0, min_margin_uncertain: 2.0 };
        assert!(s.sufficient(0.5, false));
        assert!(!s.sufficient(0.5, true));
        assert!(s.sufficient(2.0, true));
        assert!(!s.sufficient(-1.5, false));
    }
}
