//! Second-stage scoring of fused candidates.
//!
//! [`Reranker`] is the interface; [`FeatureReranker`] is the default scorer. It reads the
//! candidate with the whole question rather than one list's view of it: the bi-encoder's
//! cosine, the BM25 score, how much of the question the section's heading names, and how many
//! of the question's key terms the chunk contains (IDF-weighted). Headings matter because a
//! course book names its sections after the question they answer.

use crate::bundle::Bundle;
use crate::index::build::chunk_document;
use std::collections::HashSet;

/// A fused candidate handed to a reranker.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    pub chunk: u32,
    /// Score from fusion (or the single list).
    pub score: f32,
}

/// What a reranker sees of the question.
pub struct RerankQuery<'a> {
    pub text: &'a str,
    /// Key terms ([`crate::text::query_terms`]).
    pub terms: &'a [String],
    /// Unit-length query embedding, when an encoder is loaded.
    pub vector: Option<&'a [f32]>,
    /// The encoder's cosine scale.
    pub calibration: crate::embed::Calibration,
}

pub trait Reranker {
    fn name(&self) -> &str;
    /// One score per candidate, larger is better.
    fn score(&self, bundle: &Bundle, query: &RerankQuery<'_>, candidates: &[Candidate]) -> Vec<f32>;
}

/// Weights of the default reranker's features (each feature is in [0, 1]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FeatureReranker {
    pub w_dense: f32,
    /// Cosine between the question and the section heading (when the bundle has heading vectors).
    pub w_heading_dense: f32,
    pub w_lexical: f32,
    pub w_heading: f32,
    pub w_terms: f32,
}

impl Default for FeatureReranker {
    fn default() -> Self {
        FeatureReranker { w_dense: 0.4, w_heading_dense: 0.3, w_lexical: 0.1, w_heading: 0.1, w_terms: 0.1 }
    }
}

/// IDF-weighted share of `terms` that occur in `have`.
fn weighted_share(terms: &[String], have: &HashSet<String>, bundle: &Bundle) -> f32 {
    let (mut total, mut hit) = (0.0, 0.0);
    for t in terms.iter().collect::<HashSet<_>>() {
        let w = bundle.bm25.idf(t);
        total += w;
        if have.contains(t) {
            hit += w;
        }
    }
    if total > 0.0 { hit / total } else { 0.0 }
}

/// What [`FeatureReranker`] reads of one candidate, each in [0, 1].
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Features {
    /// Calibrated cosine between the question and the chunk.
    pub dense: f32,
    /// Calibrated cosine between the question and the chunk's section heading.
    pub heading_dense: f32,
    /// BM25 score over the best candidate's.
    pub lexical: f32,
    /// IDF-weighted share of the question's terms the heading (0.7) and heading path (0.3) name.
    pub heading: f32,
    /// IDF-weighted share of the question's terms in the chunk (with its heading path).
    pub terms: f32,
}

impl FeatureReranker {
    /// Each candidate's features, in order.
    pub fn features(bundle: &Bundle, query: &RerankQuery<'_>, candidates: &[Candidate]) -> Vec<Features> {
        let bm25_all = bundle.bm25.score_all(query.terms);
        let bm25_max = candidates.iter().map(|c| bm25_all[c.chunk as usize]).fold(0.0f32, f32::max).max(1e-6);
        candidates
            .iter()
            .map(|c| {
                let section = bundle.section_of(c.chunk);
                let chunk = &bundle.chunks[c.chunk as usize];
                let dense = match (query.vector, bundle.vectors.as_ref()) {
                    (Some(q), Some(v)) => query.calibration.apply(crate::embed::dot(q, v.vector(c.chunk))).max(0.0),
                    _ => 0.0,
                };
                let heading_dense = match (query.vector, bundle.heading_vector(chunk.section)) {
                    (Some(q), Some(h)) => query.calibration.apply(crate::embed::dot(q, h)).max(0.0),
                    _ => 0.0,
                };
                let lexical = bm25_all[c.chunk as usize] / bm25_max;
                let heading_terms: HashSet<String> = crate::text::terms(section.heading()).into_iter().collect();
                let path_terms: HashSet<String> = crate::text::terms(&section.heading_path.join(" ")).into_iter().collect();
                let heading = 0.7 * weighted_share(query.terms, &heading_terms, bundle) + 0.3 * weighted_share(query.terms, &path_terms, bundle);
                let doc_terms: HashSet<String> = crate::text::terms(&chunk_document(section, chunk)).into_iter().collect();
                let terms = weighted_share(query.terms, &doc_terms, bundle);
                Features { dense, heading_dense, lexical, heading, terms }
            })
            .collect()
    }
}

impl Reranker for FeatureReranker {
    fn name(&self) -> &str {
        "features"
    }

    fn score(&self, bundle: &Bundle, query: &RerankQuery<'_>, candidates: &[Candidate]) -> Vec<f32> {
        Self::features(bundle, query, candidates)
            .into_iter()
            .map(|f| self.w_dense * f.dense + self.w_heading_dense * f.heading_dense + self.w_lexical * f.lexical + self.w_heading * f.heading + self.w_terms * f.terms)
            .collect()
    }
}
