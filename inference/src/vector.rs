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

/// instant-distance 0.6's `HnswMap<Embedding, u32>` as it serializes (fields in order: the
/// graph's `ef_search`, points, base layer of 2·M neighbours per point, upper layers of M, then
/// the values), for [`VectorIndex::validate_graph`]. A neighbour is a point id or [`NO_POINT`].
#[derive(Deserialize, Serialize)]
struct GraphLayout {
    ef_search: usize,
    points: Vec<Embedding>,
    zero: Vec<([u32; GRAPH_M], [u32; GRAPH_M])>,
    layers: Vec<Vec<[u32; GRAPH_M]>>,
    values: Vec<u32>,
}

/// instant-distance's M (neighbours per node in the upper layers; twice that in the base layer).
const GRAPH_M: usize = 32;
/// instant-distance's empty neighbour slot.
const NO_POINT: u32 = u32::MAX;

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
        self.validate_graph()
    }

    /// Checks every point id the search will follow: instant-distance indexes its points and
    /// layers with them unchecked, so a graph damaged on disk (past the checksum: a bug, a bad
    /// write before the crc was taken) would panic in the middle of a search instead of failing
    /// to load. The crate keeps the graph private, so it is read back through its serde form.
    fn validate_graph(&self) -> Result<(), String> {
        let bytes = bincode::serde::encode_to_vec(&self.hnsw, bincode::config::standard()).map_err(|e| e.to_string())?;
        let (g, _): (GraphLayout, usize) = bincode::serde::decode_from_slice(&bytes, bincode::config::standard()).map_err(|e| format!("the vector graph: {e}"))?;
        let n = g.points.len();
        if g.zero.len() != n || g.values.len() != n {
            return Err(format!("the vector graph has {n} points, {} base nodes and {} values", g.zero.len(), g.values.len()));
        }
        let ok = |ids: &[u32], len: usize| ids.iter().all(|&id| id == NO_POINT || (id as usize) < len);
        if !g.zero.iter().all(|(a, b)| ok(a, n) && ok(b, n)) {
            return Err("the vector graph links to a point it does not have".into());
        }
        // Layer `l` holds the first `len` points; each layer is no larger than the one below.
        let mut below = n;
        for layer in &g.layers {
            if layer.len() > below || layer.is_empty() || !layer.iter().all(|node| ok(node, layer.len())) {
                return Err("the vector graph's upper layers are inconsistent".into());
            }
            below = layer.len();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> VectorIndex {
        let vectors: Vec<Vec<f32>> = (0..40)
            .map(|i| {
                let v: Vec<f32> = (0..8).map(|j| ((i * 7 + j * 3) % 11) as f32 - 5.0).collect();
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
                v.into_iter().map(|x| x / norm).collect()
            })
            .collect();
        VectorIndex::build(vectors, 8)
    }

    /// The graph round-trips through the layout (so the layout matches the crate's), and a
    /// neighbour id past the points fails validation instead of panicking in a later search.
    #[test]
    fn a_damaged_graph_fails_validation() {
        let good = index();
        good.validate(40).unwrap();
        assert!(!good.search(good.vector(3), 5).is_empty());
        let cfg = bincode::config::standard();
        let layout_bytes = bincode::serde::encode_to_vec(&good.hnsw, cfg).unwrap();
        let (mut layout, _): (GraphLayout, usize) = bincode::serde::decode_from_slice(&layout_bytes, cfg).unwrap();
        assert_eq!(bincode::serde::encode_to_vec(&layout, cfg).unwrap(), layout_bytes, "layout differs from instant-distance's");
        layout.zero[5].0[0] = 40;
        let damaged = bincode::serde::encode_to_vec(&layout, cfg).unwrap();
        let (hnsw, _): (HnswMap<Embedding, u32>, usize) = bincode::serde::decode_from_slice(&damaged, cfg).unwrap();
        let mut bad = VectorIndex { dim: 8, hnsw, by_chunk: Vec::new() };
        bad.rebuild_lookup();
        let err = bad.validate(40).unwrap_err();
        assert!(err.contains("links to a point"), "{err}");
    }
}
