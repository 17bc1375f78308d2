//! Label scoring: how likely the model finds each candidate continuation of one prompt.
//!
//! The prompt is evaluated once; each candidate reuses its cached positions (`truncate`), so
//! routing, judging and verifying cost one prefill plus a few tokens per label.

use super::lm::{Eval, LanguageModel, LmError, now};

/// Log-probability of one candidate after the prefix.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelScore {
    /// Sum of the natural-log probabilities of the candidate's tokens.
    pub logprob_sum: f64,
    /// `logprob_sum / tokens`.
    pub mean_logprob: f64,
    pub tokens: usize,
}

/// The winning label and every label's probability, renormalised over the candidates.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelChoice {
    pub best: usize,
    /// Softmax of the scores used; sums to 1.
    pub probs: Vec<f64>,
}

/// Scores each of `candidates` as the continuation of `prefix_ids`. Leaves the cache holding the
/// prefix.
pub fn score_labels(lm: &mut dyn LanguageModel, prefix_ids: &[u32], candidates: &[Vec<u32>]) -> Result<Vec<LabelScore>, LmError> {
    now(score_labels_on(lm, prefix_ids, candidates))
}

/// [`score_labels`] on any [`Eval`]: a session reuses the prefix it has cached.
pub async fn score_labels_on<E: Eval + ?Sized>(lm: &mut E, prefix_ids: &[u32], candidates: &[Vec<u32>]) -> Result<Vec<LabelScore>, LmError> {
    if prefix_ids.is_empty() {
        return Err(LmError::Unsupported("label scoring needs a prompt: start it with BOS or the chat template".into()));
    }
    if let Some(i) = candidates.iter().position(|c| c.is_empty()) {
        return Err(LmError::Unsupported(format!("label candidate {i} has no tokens; give every label some text")));
    }
    let vocab = lm.vocab_size();
    let start = lm.reuse(prefix_ids);
    let first = lm.eval(&prefix_ids[start..], false).await?;
    let first = log_softmax(&first[..vocab]);
    let mut scores = Vec::with_capacity(candidates.len());
    for cand in candidates {
        lm.truncate(prefix_ids.len());
        let mut sum = first[cand[0] as usize];
        if cand.len() > 1 {
            // Row i predicts cand[i + 1]; the last token's own row is not needed.
            let rows = lm.eval(&cand[..cand.len() - 1], true).await?;
            for (row, &next) in rows.chunks_exact(vocab).zip(&cand[1..]) {
                sum += log_softmax(row)[next as usize];
            }
        }
        scores.push(LabelScore { logprob_sum: sum, mean_logprob: sum / cand.len() as f64, tokens: cand.len() });
    }
    lm.truncate(prefix_ids.len());
    Ok(scores)
}

/// The most likely label by total log-probability, or by mean per token when `per_token`
/// (fairer to labels of different lengths); ties go to the first.
pub fn choose_label(scores: &[LabelScore], per_token: bool) -> LabelChoice {
    let s: Vec<f64> = scores.iter().map(|x| if per_token { x.mean_logprob } else { x.logprob_sum }).collect();
    let best = s.iter().enumerate().fold(0, |b, (i, &v)| if v > s[b] { i } else { b });
    LabelChoice { best, probs: softmax(&s) }
}

/// [`choose_label`] after contextual calibration (Zhao et al. 2021, "Calibrate Before Use"):
/// each label's total log-probability minus its total under a content-free input (the same
/// prompt with "N/A" in place of the message), which cancels a small model's standing bias
/// towards one label (SmolLM2-135M says "No" to nearly every yes/no question).
pub fn choose_label_calibrated(scores: &[LabelScore], baseline: &[LabelScore]) -> LabelChoice {
    assert_eq!(scores.len(), baseline.len(), "one baseline score per label");
    let shifted: Vec<LabelScore> = scores
        .iter()
        .zip(baseline)
        .map(|(s, b)| {
            let d = s.logprob_sum - b.logprob_sum;
            LabelScore { logprob_sum: d, mean_logprob: d / s.tokens as f64, tokens: s.tokens }
        })
        .collect();
    choose_label(&shifted, false)
}

/// Natural-log softmax in f64, shifted by the maximum so it cannot overflow.
pub fn log_softmax(logits: &[f32]) -> Vec<f64> {
    let max = logits.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
    let log_sum = logits.iter().map(|&v| (v as f64 - max).exp()).sum::<f64>().ln() + max;
    logits.iter().map(|&v| v as f64 - log_sum).collect()
}

fn softmax(s: &[f64]) -> Vec<f64> {
    let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = s.iter().map(|v| (v - max).exp()).collect();
    let sum: f64 = e.iter().sum();
    e.iter().map(|v| v / sum).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Logits depend on the previous token only: `table[prev]`; counts evaluated positions.
    struct Bigram {
        table: Vec<Vec<f32>>,
        cache: Vec<u32>,
        evaluated: usize,
    }

    impl LanguageModel for Bigram {
        fn vocab_size(&self) -> usize {
            self.table.len()
        }
        fn context_length(&self) -> usize {
            64
        }
        fn cached(&self) -> usize {
            self.cache.len()
        }
        fn truncate(&mut self, len: usize) {
            self.cache.truncate(len);
        }
        fn eval(&mut self, tokens: &[u32], all: bool) -> Result<Vec<f32>, LmError> {
            self.cache.extend_from_slice(tokens);
            self.evaluated += tokens.len();
            let rows = if all { tokens } else { &tokens[tokens.len() - 1..] };
            Ok(rows.iter().flat_map(|&t| self.table[t as usize].clone()).collect())
        }
    }

    #[test]
    fn scores_are_log_probabilities_and_the_prefix_runs_once() {
        let table = vec![vec![0.0, 2.0, 0.0], vec![1.0, 1.0, 3.0], vec![0.0, 0.0, 0.0]];
        let mut lm = Bigram { table: table.clone(), cache: vec![], evaluated: 0 };
        let s = score_labels(&mut lm, &[0, 0, 0], &[vec![1], vec![2], vec![1, 2]]).unwrap();
        let lp = |row: usize, t: usize| log_softmax(&table[row])[t];
        assert!((s[0].logprob_sum - lp(0, 1)).abs() < 1e-12);
        assert!((s[2].logprob_sum - (lp(0, 1) + lp(1, 2))).abs() < 1e-12);
        assert!((s[2].mean_logprob - s[2].logprob_sum / 2.0).abs() < 1e-12);
        assert_eq!(lm.evaluated, 3 + 1, "prefix once, then only the second label's first token");
        assert_eq!(lm.cached(), 3);
        let c = choose_label(&s, false);
        assert_eq!(c.best, 0);
        assert!((c.probs.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(c.probs[0] > c.probs[1]);
        // Calibration removes the bias a content-free prompt shows: label 1 wins once label 0's
        // baseline advantage is taken away.
        let base = [
            LabelScore { logprob_sum: -0.1, mean_logprob: -0.1, tokens: 1 },
            LabelScore { logprob_sum: -3.0, mean_logprob: -3.0, tokens: 1 },
        ];
        let s2 = [
            LabelScore { logprob_sum: -0.5, mean_logprob: -0.5, tokens: 1 },
            LabelScore { logprob_sum: -1.0, mean_logprob: -1.0, tokens: 1 },
        ];
        assert_eq!(choose_label(&s2, false).best, 0);
        assert_eq!(choose_label_calibrated(&s2, &base).best, 1);
        assert!(score_labels(&mut lm, &[0], &[vec![]]).is_err());
        assert!(score_labels(&mut lm, &[], &[vec![1]]).is_err());
    }

    #[test]
    fn log_softmax_is_stable() {
        let l = log_softmax(&[1000.0, 1000.0, f32::NEG_INFINITY]);
        assert!((l[0] - 0.5f64.ln()).abs() < 1e-12 && l[2] == f64::NEG_INFINITY);
    }
}
