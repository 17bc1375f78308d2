//! Dense vector search: an HNSW graph (instant-distance) over unit-length embeddings,
//! plus exact search for checking it and for small collections.

use instant_distance::{Builder, HnswMap, Search};
use serde::{Deserialize, Serialize};

/// A unit-length embedding; distance is `1 - cosine`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Embedding(pub Vec<f32>);

impl instant_distance::Point for Embedding {
    fn distance(&self, other: &Self) -> f32 {
        1.0 - crate::embed::dot(&self.0, &other.0)
    }
}

/// HNSW over chunk embeddings. Values are chunk ids.
#[derive(Serialize, Deserialize)]
pub struct VectorIndex {
    pub dim: usize,
    hnsw: HnswMap<Embedding, u32>,
    /// Vectors by chunk id, flattened (rebuilt on load; the graph keeps its own order).
    #[serde(skip)]
    by_chunk: Vec<f32>,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex").field("dim", &self.dim).field("len", &self.len()).finish()
    }
}

/// Build parameters; ef values from the HNSW paper's recommended range.
pub const EF_CONSTRUCTION: usize = 200;
pub const EF_SEARCH: usize = 128;

impl VectorIndex {
    /// `vectors[i]` is chunk `i`'s embedding. Deterministic for a given input (fixed seed).
    pub fn build(vectors: Vec<Vec<f32>>, dim: usize) -> Self {
        let ids: Vec<u32> = (0..vectors.len() as u32).collect();
        let points = vectors.into_iter().map(Embedding).collect();
        let hnsw = Builder::default()
            .ef_construction(EF_CONSTRUCTION)
            .ef_search(EF_SEARCH)
            .seed(0x5041_5448)
            .build(points, ids);
        let mut index = VectorIndex { dim, hnsw, by_chunk: Vec::new() };
        index.rebuild_lookup();
        index
    }

    pub fn rebuild_lookup(&mut self) {
        let n = self.hnsw.values.len();
        let mut by_chunk = vec![f32::NAN; n * self.dim];
        for ((_, point), &chunk) in self.hnsw.iter().zip(&self.hnsw.values) {
            let start = chunk as usize * self.dim;
            if point.0.len() == self.dim && start + self.dim <= by_chunk.len() {
                by_chunk[start..start + self.dim].copy_from_slice(&point.0);
            }
        }
        self.by_chunk = by_chunk;
    }

    pub fn len(&self) -> usize {
        self.hnsw.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Check the graph is internally consistent (every chunk has exactly one vector of `dim`).
    pub fn validate(&self, chunks: usize) -> Result<(), String> {
        if self.len() != chunks {
            return Err(format!("{} vectors for {chunks} chunks", self.len()));
        }
        if self.hnsw.iter().any(|(_, p)| p.0.len() != self.dim) {
            return Err(format!("a vector is not {}-dimensional", self.dim));
        }
        if self.by_chunk.iter().any(|v| !v.is_finite()) {
            return Err("a chunk has no vector, or a vector is not finite".into());
        }
        Ok(())
    }

    /// The embedding of a chunk.
    pub fn vector(&self, chunk: u32) -> &[f32] {
        let start = chunk as usize * self.dim;
        &self.by_chunk[start..start + self.dim]
    }

    /// Approximate `k` nearest chunks by cosine similarity, best first.
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(u32, f32)> {
        let mut search = Search::default();
        self.hnsw
            .search(&Embedding(query.to_vec()), &mut search)
            .take(k)
            .map(|item| (*item.value, 1.0 - item.distance))
            .collect()
    }

    /// Exact `k` nearest chunks by cosine similarity, best first.
    pub fn search_exact(&self, query: &[f32], k: usize) -> Vec<(u32, f32)> {
        let scores: Vec<f32> = (0..self.len() as u32).map(|c| crate::embed::dot(self.vector(c), query)).collect();
        let mut order: Vec<u32> = (0..scores.len() as u32).collect();
        order.sort_by(|&a, &b| scores[b as usize].total_cmp(&scores[a as usize]).then(a.cmp(&b)));
        order.into_iter().take(k).map(|c| (c, scores[c as usize])).collect()
    }
}
