//! Choosing the next token from logits: llama.cpp's sampler chain with a seeded generator.
//!
//! The order is llama.cpp's default: repetition penalty, top-k, top-p, min-p, temperature, draw.
//! Temperature 0 is greedy (after the penalty), and so is any chain that leaves one token.

/// How the next token is chosen; the default is greedy, llama.cpp's other defaults otherwise.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampling {
    /// 0 is greedy: the largest logit, the first on ties (llama.cpp's `--temp 0`).
    pub temperature: f32,
    /// Keep the `top_k` most likely tokens; 0 keeps all.
    pub top_k: usize,
    /// Keep the most likely tokens whose probabilities sum to `top_p` (nucleus); 1 keeps all.
    pub top_p: f32,
    /// Drop tokens less likely than `min_p` times the most likely one; 0 keeps all.
    pub min_p: f32,
    /// Divides positive logits (multiplies negative ones) of tokens among the last
    /// `repeat_last_n` of prompt and output; 1 is off.
    pub repeat_penalty: f32,
    pub repeat_last_n: usize,
    /// Seed of the draws; the same seed and logits give the same tokens.
    pub seed: u64,
}

impl Default for Sampling {
    fn default() -> Self {
        Sampling { temperature: 0.0, top_k: 40, top_p: 0.95, min_p: 0.05, repeat_penalty: 1.0, repeat_last_n: 64, seed: 0 }
    }
}

impl Sampling {
    /// Greedy decoding, no penalty.
    pub fn greedy() -> Self {
        Sampling::default()
    }

    /// Whether the choice is the argmax.
    pub fn is_greedy(&self) -> bool {
        self.temperature <= 0.0
    }
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

/// llama.cpp's repetition penalty over the last `last_n` ids of `history`: each distinct token's
/// logit is divided by `penalty` when positive and multiplied by it otherwise.
pub fn apply_repeat_penalty(logits: &mut [f32], history: &[u32], penalty: f32, last_n: usize) {
    if penalty == 1.0 || last_n == 0 {
        return;
    }
    let recent = &history[history.len().saturating_sub(last_n)..];
    let mut seen = recent.to_vec();
    seen.sort_unstable();
    seen.dedup();
    for id in seen {
        if let Some(l) = logits.get_mut(id as usize) {
            *l = if *l <= 0.0 { *l * penalty } else { *l / penalty };
        }
    }
}

/// A sampler with its random state: one per generation.
pub struct Sampler {
    params: Sampling,
    rng: SplitMix64,
    /// (id, logit), then (id, probability), reused between steps.
    cand: Vec<(u32, f32)>,
}

impl Sampler {
    pub fn new(params: Sampling) -> Self {
        Sampler { rng: SplitMix64(params.seed), params, cand: Vec::new() }
    }

    /// Chooses the next id. `history` is prompt and output so far (for the penalty); the penalty
    /// is applied to `logits` in place. Tokens at minus infinity (masked) are never chosen unless
    /// all are.
    pub fn sample(&mut self, logits: &mut [f32], history: &[u32]) -> u32 {
        let p = &self.params;
        apply_repeat_penalty(logits, history, p.repeat_penalty, p.repeat_last_n);
        if p.is_greedy() {
            return argmax(logits);
        }
        let cand = &mut self.cand;
        cand.clear();
        cand.extend(logits.iter().enumerate().filter(|(_, l)| l.is_finite()).map(|(i, &l)| (i as u32, l)));
        if cand.len() <= 1 {
            return cand.first().map_or_else(|| argmax(logits), |c| c.0);
        }
        // Most likely first; ties by id so the order (and the draw) never depends on the sort.
        let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if p.top_k > 0 && p.top_k < cand.len() {
            cand.select_nth_unstable_by(p.top_k - 1, order);
            cand.truncate(p.top_k);
        }
        cand.sort_unstable_by(order);
        softmax(cand, 1.0);
        if p.top_p < 1.0 {
            let mut sum = 0.0;
            let keep = cand.iter().position(|c| {
                sum += c.1;
                sum >= p.top_p
            });
            cand.truncate(keep.map_or(cand.len(), |k| k + 1));
        }
        if p.min_p > 0.0 {
            let floor = cand[0].1 * p.min_p;
            let keep = cand.iter().take_while(|c| c.1 >= floor).count().max(1);
            cand.truncate(keep);
        }
        // Back to logits (the log of a probability differs from the logit by a constant), then
        // the temperature.
        for c in cand.iter_mut() {
            c.1 = c.1.ln();
        }
        softmax(cand, p.temperature);
        let mut r = self.rng.next_f64() * cand.iter().map(|c| c.1 as f64).sum::<f64>();
        for c in cand.iter() {
            if r < c.1 as f64 {
                return c.0;
            }
            r -= c.1 as f64;
        }
        cand.iter().rev().find(|c| c.1 > 0.0).unwrap_or(&cand[0]).0
    }
}

/// Replaces logits by probabilities at temperature `t`, in place.
fn softmax(cand: &mut [(u32, f32)], t: f32) {
    let max = cand.iter().map(|c| c.1).fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for c in cand.iter_mut() {
        c.1 = ((c.1 - max) / t).exp();
        sum += c.1;
    }
    for c in cand.iter_mut() {
        c.1 /= sum;
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): small, seedable, the same on every target.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random(temperature: f32, top_k: usize, top_p: f32, min_p: f32, seed: u64) -> Sampling {
        Sampling { temperature, top_k, top_p, min_p, seed, ..Sampling::default() }
    }

    fn draws(params: Sampling, logits: &[f32], n: usize) -> Vec<u32> {
        let mut s = Sampler::new(params);
        (0..n).map(|_| s.sample(&mut logits.to_vec(), &[])).collect()
    }

    #[test]
    fn argmax_takes_the_first_of_ties() {
        assert_eq!(argmax(&[0.0, 2.0, 1.0, 2.0]), 1);
    }

    #[test]
    fn greedy_is_argmax_after_the_penalty() {
        let mut s = Sampler::new(Sampling::greedy());
        assert_eq!(s.sample(&mut [0.1, 3.0, 2.9], &[1]), 1, "no penalty by default");
        let mut s = Sampler::new(Sampling { repeat_penalty: 1.5, ..Sampling::greedy() });
        assert_eq!(s.sample(&mut [0.1, 3.0, 2.9], &[1]), 2, "3.0 / 1.5 = 2.0 < 2.9");
    }

    #[test]
    fn penalty_follows_llama_cpp() {
        let mut l = [2.0, -2.0, 1.0, 4.0];
        // Token 3 is outside the window of the last 3; token 0 counts once though repeated.
        apply_repeat_penalty(&mut l, &[3, 0, 1, 0], 2.0, 3);
        assert_eq!(l, [1.0, -4.0, 1.0, 4.0]);
    }

    #[test]
    fn seeds_repeat_and_differ() {
        let logits = [0.1, 3.0, 2.9, -1.0, 0.5, 2.5];
        let a = draws(random(1.0, 0, 1.0, 0.0, 42), &logits, 64);
        assert_eq!(a, draws(random(1.0, 0, 1.0, 0.0, 42), &logits, 64));
        assert_ne!(a, draws(random(1.0, 0, 1.0, 0.0, 43), &logits, 64));
    }

    #[test]
    fn filters_keep_the_right_tokens() {
        let logits = [0.1, 3.0, 2.9, -1.0, 0.5, 2.5];
        let top3 = draws(random(1.0, 3, 1.0, 0.0, 7), &logits, 200);
        assert!(top3.iter().all(|t| [1, 2, 5].contains(t)), "top-k 3: {top3:?}");
        assert!([1, 2, 5].iter().all(|t| top3.contains(t)), "each of the top 3 is drawn sometimes");
        assert!(draws(random(1.0, 1, 1.0, 0.0, 7), &logits, 50).iter().all(|&t| t == 1), "top-k 1 is greedy");
        // Probabilities ≈ [.03 .37 .33 .01 .03 .22]: top-p 0.6 keeps the two best.
        let nucleus = draws(random(1.0, 0, 0.6, 0.0, 7), &logits, 200);
        assert!(nucleus.iter().all(|t| [1, 2].contains(t)) && nucleus.contains(&2), "top-p: {nucleus:?}");
        // min-p 0.7 of 0.37 is 0.26: tokens 1 and 2.
        let minp = draws(random(1.0, 0, 1.0, 0.7, 7), &logits, 200);
        assert!(minp.iter().all(|t| [1, 2].contains(t)) && minp.contains(&2), "min-p: {minp:?}");
    }

    #[test]
    fn low_temperature_sharpens_and_masked_tokens_are_never_drawn() {
        let logits = [1.0, 1.2, f32::NEG_INFINITY, 0.9];
        let cold = draws(random(0.05, 0, 1.0, 0.0, 3), &logits, 200);
        assert!(cold.iter().filter(|&&t| t == 1).count() > 190, "temperature 0.05 nearly greedy");
        let hot = draws(random(5.0, 0, 1.0, 0.0, 3), &logits, 300);
        assert!(!hot.contains(&2), "minus infinity is masked");
        assert!([0, 1, 3].iter().all(|t| hot.contains(t)));
        let only = [f32::NEG_INFINITY, f32::NEG_INFINITY, 0.0];
        assert_eq!(draws(random(1.0, 0, 1.0, 0.0, 3), &only, 5), vec![2; 5]);
    }
}
