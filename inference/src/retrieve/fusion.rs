//! Combining the lexical and dense ranked lists.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Fusion {
    /// Every candidate of either list; ordered by the mean of its min-max normalised scores
    /// (a list that missed a candidate contributes 0).
    Union,
    /// Weighted reciprocal rank fusion: `Σ w / (k + rank)`, rank starting at 1; each list's
    /// weight comes with the list.
    Rrf { k: f32 },
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion::Rrf { k: 60.0 }
    }
}

fn normalized(list: &[(u32, f32)]) -> HashMap<u32, f32> {
    let max = list.iter().map(|x| x.1).fold(f32::MIN, f32::max);
    let min = list.iter().map(|x| x.1).fold(f32::MAX, f32::min);
    let span = (max - min).max(1e-6);
    list.iter().map(|&(id, s)| (id, if list.len() == 1 { 1.0 } else { (s - min) / span })).collect()
}

/// Fuse best-first lists, each with its weight, into one best-first list (ties: chunk id).
/// Union weighs each list's normalised scores by its share of the total weight.
pub fn fuse(lists: &[(&[(u32, f32)], f32)], fusion: Fusion) -> Vec<(u32, f32)> {
    let mut scores: HashMap<u32, f32> = HashMap::new();
    let total: f32 = lists.iter().filter(|l| !l.0.is_empty()).map(|l| l.1).sum::<f32>().max(1e-6);
    match fusion {
        Fusion::Union => {
            for &(list, w) in lists {
                for (id, s) in normalized(list) {
                    *scores.entry(id).or_default() += w * s / total;
                }
            }
        }
        Fusion::Rrf { k } => {
            for &(list, w) in lists {
                for (rank, &(id, _)) in list.iter().enumerate() {
                    *scores.entry(id).or_default() += w / (k + rank as f32 + 1.0);
                }
            }
        }
    }
    let mut out: Vec<(u32, f32)> = scores.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_rewards_agreement() {
        let lex = [(1, 9.0), (2, 5.0), (3, 1.0)];
        let dense = [(3, 0.9), (1, 0.8), (4, 0.7)];
        let fused = fuse(&[(&lex, 1.0), (&dense, 1.0)], Fusion::default());
        assert_eq!(fused[0].0, 1); // ranks 1 and 2
        assert_eq!(fused.len(), 4);
        let expected = 1.0 / 61.0 + 1.0 / 62.0;
        assert!((fused[0].1 - expected).abs() < 1e-6);
    }

    #[test]
    fn rrf_weights_shift_the_order() {
        let lex = [(1, 9.0)];
        let dense = [(2, 0.9)];
        let fused = fuse(&[(&lex, 1.0), (&dense, 2.0)], Fusion::Rrf { k: 60.0 });
        assert_eq!(fused[0].0, 2);
    }

    #[test]
    fn union_keeps_everything_once() {
        let lex = [(1, 9.0), (2, 5.0), (5, 1.0)];
        let dense = [(2, 0.9), (3, 0.1)];
        let fused = fuse(&[(&lex, 1.0), (&dense, 1.0)], Fusion::Union);
        assert_eq!(fused.len(), 4);
        // id 2: (0.5 + 1.0) / 2 beats id 1: (1.0 + 0) / 2.
        assert_eq!(fused[0], (2, 0.75));
        assert_eq!(fused[1], (1, 0.5));
    }
}
