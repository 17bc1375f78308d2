//! Decoding loop: batched prefill, then one token at a time, greedy or sampled.
//!
use super::lm::{LanguageModel, LmError};

/// How the next token is chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum Sampling {
    /// Argmax of the logits (llama.cpp with temperature 0).
    Greedy,
    /// Softmax at `temperature` over the `top_k` most likely tokens, drawn with a seeded xorshift.
    TopK { temperature: f32, top_k: usize, seed: u64 },
}

/// Options of [`generate`].
#[derive(Clone, Debug)]
pub struct GenerateOptions {
    pub max_new_tokens: usize,
    /// Generation stops after any of these (not included in the output).
    pub stop_ids: Vec<u32>,
    pub sampling: Sampling,
}

/// Index of the largest value; the first one on ties, as llama.cpp's greedy sampler.
pub fn argmax(logits: &[f32]) -> u32 {
    let mut best = 0;
    for (i, &v) in logits.iter().enumerate() {
        if v > logits[best] {
            best = i;
        }
    }
    best as u32
}

struct XorShift(u64);

impl XorShift {
    fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn sample_top_k(logits: &[f32], temperature: f32, top_k: usize, rng: &mut XorShift) -> u32 {
    let mut idx: Vec<usize> = (0..logits.len()).collect();
    let k = top_k.clamp(1, logits.len());
    idx.select_nth_unstable_by(k - 1, |&a, &b| logits[b].total_cmp(&logits[a]));
    idx.truncate(k);
    let t = temperature.max(1e-6);
    let max = idx.iter().map(|&i| logits[i]).fold(f32::NEG_INFINITY, f32::max);
    let w: Vec<f32> = idx.iter().map(|&i| ((logits[i] - max) / t).exp()).collect();
    let mut r = rng.next_f32() * w.iter().sum::<f32>();
    for (&i, &wi) in idx.iter().zip(&w) {
        if r < wi {
            return i as u32;
        }
        r -= wi;
    }
    idx[k - 1] as u32
}

/// Generates after `prompt_ids` (the cache is cleared first); returns the new token ids.
///
/// `on_token` sees each id as it is chosen; return `false` from it to stop early.
pub fn generate(
    lm: &mut dyn LanguageModel,
    prompt_ids: &[u32],
    opts: &GenerateOptions,
    mut on_token: impl FnMut(u32) -> bool,
) -> Result<Vec<u32>, LmError> {
    lm.truncate(0);
    let mut rng = XorShift(match opts.sampling {
        Sampling::TopK { seed, .. } => seed | 1,
        Sampling::Greedy => 1,
    });
    let mut out = Vec::new();
    let mut values = lm.eval(prompt_ids, false)?;
    while out.len() < opts.max_new_tokens {
        let next = match opts.sampling {
            Sampling::Greedy => argmax(&values),
            Sampling::TopK { temperature, top_k, .. } => sample_top_k(&values, temperature, top_k, &mut rng),
        };
        if opts.stop_ids.contains(&next) {
            break;
        }
        out.push(next);
        if !on_token(next) || out.len() == opts.max_new_tokens {
            break;
        }
        values = lm.eval(&[next], false)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argmax_takes_the_first_of_ties() {
        assert_eq!(argmax(&[0.0, 2.0, 1.0, 2.0]), 1);
    }

    #[test]
    fn top_k_one_is_greedy_and_seeds_repeat() {
        let logits = [0.1, 3.0, 2.9, -1.0, 0.5];
        let mut rng = XorShift(7);
        assert!((0..20).all(|_| sample_top_k(&logits, 1.0, 1, &mut rng) == 1));
        let draw = |seed| {
            let mut rng = XorShift(seed);
            (0..50).map(|_| sample_top_k(&logits, 1.0, 3, &mut rng)).collect::<Vec<_>>()
        };
        assert_eq!(draw(42), draw(42));
        assert!(draw(42).iter().all(|&t| [1, 2, 4].contains(&t)), "only the top 3 are drawn");
        assert!(draw(42).contains(&2), "the runner-up is drawn sometimes");
    }
}
