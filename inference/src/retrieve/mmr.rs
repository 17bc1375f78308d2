//! Maximal marginal relevance: relevant evidence that does not repeat itself (quiz evidence).

/// Pick `n` of `candidates` (id, relevance), trading relevance against similarity to what is
/// already picked: `λ·rel(d) − (1−λ)·max sim(d, picked)`. Relevance is min-max normalised.
pub fn mmr(candidates: &[(u32, f32)], n: usize, lambda: f32, sim: impl Fn(u32, u32) -> f32) -> Vec<u32> {
    if candidates.is_empty() {
        return Vec::new();
    }
    let max = candidates.iter().map(|c| c.1).fold(f32::MIN, f32::max);
    let min = candidates.iter().map(|c| c.1).fold(f32::MAX, f32::min);
    let span = (max - min).max(1e-6);
    let rel: Vec<f32> = candidates.iter().map(|c| (c.1 - min) / span).collect();
    let mut picked: Vec<u32> = Vec::new();
    let mut left: Vec<usize> = (0..candidates.len()).collect();
    while picked.len() < n && !left.is_empty() {
        let (best_pos, _) = left
            .iter()
            .enumerate()
            .map(|(pos, &i)| {
                let redundancy = picked.iter().map(|&p| sim(candidates[i].0, p)).fold(0.0f32, f32::max);
                (pos, lambda * rel[i] - (1.0 - lambda) * redundancy)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
            .expect("non-empty");
        picked.push(candidates[left.remove(best_pos)].0);
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_near_duplicates() {
        // 1 and 2 are identical; 3 is different and slightly less relevant.
        let c = [(1, 1.0), (2, 0.99), (3, 0.9), (4, 0.0)];
        let sim = |a: u32, b: u32| if (a == 1 && b == 2) || (a == 2 && b == 1) { 1.0 } else { 0.0 };
        assert_eq!(mmr(&c, 2, 0.7, sim), vec![1, 3]);
        // λ = 1 is plain relevance order.
        assert_eq!(mmr(&c, 2, 1.0, sim), vec![1, 2]);
    }
}
