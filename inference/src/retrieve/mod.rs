//! Hybrid retrieval: BM25 top-K and dense top-K, fused, reranked, de-duplicated (CCR),
//! given their section context (CCI) and gated by coverage (fail-closed).
//!
//! Architecture invariant: retrieval does no IO and runs no model. The caller embeds the
//! question (synchronously natively, asynchronously in the browser) and passes the vector in.

pub mod context;
pub mod coverage;
pub mod fusion;
pub mod meanings;
pub mod mmr;
pub mod rerank;
pub mod sounds;

pub use coverage::Coverage;
pub use fusion::Fusion;
pub use rerank::{Candidate, FeatureReranker, RerankQuery, Reranker};

use crate::bundle::Bundle;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Lexical,
    Dense,
    Hybrid,
}

#[derive(Clone, Debug)]
pub struct RetrievalConfig {
    pub mode: Mode,
    /// Candidates taken from each list.
    pub k: usize,
    pub fusion: Fusion,
    /// Fusion weights of the BM25, chunk-vector and heading-vector lists.
    pub w_lexical: f32,
    pub w_dense: f32,
    pub w_heading: f32,
    pub rerank: bool,
    /// Evidence items returned.
    pub top_n: usize,
    /// CCI: characters of parent-section context per evidence item (0: none).
    pub context_budget: usize,
    /// CCR: drop a chunk sharing more than this share of its span with a better one.
    pub max_overlap: f32,
    /// CCR: drop a chunk whose word 3-shingles are this similar to a better one.
    pub max_similarity: f32,
    /// CCR: at most this many evidence items from one section.
    pub max_per_section: usize,
    /// Fail closed below this coverage.
    pub min_coverage: f32,
    /// Fail closed when the best dense cosine is below this (only with a query vector).
    pub min_dense: f32,
    /// A best cosine at least this high overrides low coverage: the question is a paraphrase of
    /// a passage in words the book does not use.
    pub strong_dense: f32,
    /// How raw cosines are put on the scale the thresholds and reranker weights were set on
    /// (MiniLM's); `None`: the bundle's encoder's own ([`crate::embed::Calibration::for_encoder`]).
    pub calibration: Option<crate::embed::Calibration>,
}

impl RetrievalConfig {
    /// The cosine scale for `bundle`'s vectors.
    pub fn calibration(&self, bundle: &Bundle) -> crate::embed::Calibration {
        self.calibration.unwrap_or_else(|| bundle.header.encoder.as_ref().map(|e| crate::embed::Calibration::for_encoder(&e.name)).unwrap_or_default())
    }
}

impl Default for RetrievalConfig {
    fn default() -> Self {
        RetrievalConfig {
            mode: Mode::Hybrid,
            k: 20,
            fusion: Fusion::default(),
            w_lexical: 1.0,
            w_dense: 1.0,
            w_heading: 1.0,
            rerank: true,
            top_n: 5,
            context_budget: 300,
            max_overlap: 0.5,
            max_similarity: 0.8,
            max_per_section: 1,
            min_coverage: 0.35,
            min_dense: 0.3,
            strong_dense: 0.5,
            calibration: None,
        }
    }
}

/// One piece of evidence, with everything needed to cite and show it.
#[derive(Clone, Debug, Serialize)]
pub struct Evidence {
    pub chunk: u32,
    pub section: u32,
    pub score: f32,
    pub tier: &'static str,
    pub file: String,
    pub heading_path: Vec<String>,
    pub text: String,
    /// CCI: the parent section's context, when it adds something.
    pub context: Option<String>,
    pub line_start: u32,
    pub line_end: u32,
}

#[derive(Clone, Debug)]
pub struct Retrieval {
    pub evidence: Vec<Evidence>,
    pub coverage: Coverage,
    /// Best dense cosine among candidates (when a query vector was given).
    pub best_dense: Option<f32>,
    /// True when the course does not support an answer: show `nearest` instead of answering.
    pub abstained: bool,
    /// The gate abstained only because few of the question's key terms are in the evidence
    /// (no course-foreign name, no distant vector): words can miss a paraphrase, a romanised
    /// or cross-language question, so a host with the course LLM lets its evidence-sufficiency
    /// check decide ([`crate::agent::ask::Sufficiency`]); without one, this stays a refusal.
    pub uncertain: bool,
    /// Sections of the best candidates, for "the nearest sections are …" when abstaining.
    pub nearest_sections: Vec<u32>,
}

/// The question as retrieval needs it.
pub struct Query<'a> {
    pub text: &'a str,
    /// Unit-length embedding from the bundle's encoder; `None` limits search to BM25.
    pub vector: Option<&'a [f32]>,
    /// Everyday words (e.g. [`crate::embed::SentenceEncoder::is_whole_word`]); lets the coverage
    /// gate tell a course-foreign name (`pandas`) from an everyday word the book does not use.
    pub is_common_word: Option<&'a dyn Fn(&str) -> bool>,
    /// Unit vectors of single words embedded as queries by the bundle's encoder: lets a word
    /// the course never writes find the course's word of the other script that means the same
    /// ([`meanings`]; used only with a bundle that stores its terms' vectors).
    pub embed_words: Option<&'a meanings::EmbedWords<'a>>,
}

impl<'a> Query<'a> {
    /// Run `f` on the question with `encoder`'s vocabulary as its everyday words and its word
    /// vectors ([`meanings::embed_words`]); without an encoder, with neither.
    pub fn with_encoder<R>(text: &str, vector: Option<&[f32]>, encoder: Option<&crate::embed::SentenceEncoder>, f: impl FnOnce(&Query<'_>) -> R) -> R {
        let common = |w: &str| encoder.is_some_and(|e| e.is_whole_word(w));
        let words = |ws: &[&str]| encoder.map(|e| meanings::embed_words(e, ws)).unwrap_or_default();
        let query = Query {
            text,
            vector,
            is_common_word: encoder.map(|_| &common as &dyn Fn(&str) -> bool),
            embed_words: encoder.map(|_| &words as &meanings::EmbedWords),
        };
        f(&query)
    }
}

/// Course terms standing for a question's key terms the course never writes: each such term
/// with the course's terms that sound like it ([`sounds`]) or mean the same in the other
/// script ([`meanings`]). Searched beside the question's terms and counted by the gate.
pub type Alikes = Vec<(String, Vec<String>)>;

/// The alikes of the question's key terms `terms`.
pub fn alikes(bundle: &Bundle, query: &Query<'_>, terms: &[String]) -> Alikes {
    let mut out: Alikes = bundle
        .sounds()
        .alikes(query.text, terms, &bundle.bm25)
        .into_iter()
        .map(|(t, found)| (t, found.into_iter().map(str::to_string).collect()))
        .collect();
    if let (Some(tv), Some(embed)) = (bundle.term_vectors.as_ref(), query.embed_words) {
        let sounded: Vec<String> = out.iter().map(|(t, _)| t.clone()).collect();
        let unknown = |t: &str| terms.iter().any(|x| x == t) && bundle.bm25.doc_freq(t) == 0 && !sounded.iter().any(|x| x == t);
        out.extend(tv.alikes(query.text, &unknown, embed));
    }
    out
}

/// The question's key terms and, once each, the course terms that stood for them.
fn searched_terms(terms: &[String], alikes: &Alikes) -> Vec<String> {
    let mut searched: Vec<&String> = Vec::new();
    for b in alikes.iter().flat_map(|(_, found)| found) {
        if !searched.contains(&b) {
            searched.push(b);
        }
    }
    terms.iter().chain(searched).cloned().collect()
}

/// Ranked candidates before CCR/CCI: fused lists, reranked when configured.
/// `terms` are the question's key terms ([`crate::text::query_terms`]); their `alikes` are searched
/// beside them.
fn candidates(bundle: &Bundle, cfg: &RetrievalConfig, query: &Query<'_>, terms: &[String], alikes: &Alikes, reranker: Option<&dyn Reranker>) -> (Vec<(u32, f32)>, Option<f32>) {
    let terms = searched_terms(terms, alikes);
    let cal = cfg.calibration(bundle);
    let lexical = if cfg.mode != Mode::Dense { bundle.bm25.search(&terms, cfg.k) } else { Vec::new() };
    let dense = match (cfg.mode, query.vector, bundle.vectors.as_ref()) {
        (Mode::Lexical, _, _) | (_, None, _) | (_, _, None) => Vec::new(),
        (_, Some(q), Some(v)) => v.search(q, cfg.k),
    };
    let best_dense = dense.first().map(|d| cal.apply(d.1));
    let headings = match (cfg.mode, query.vector) {
        (Mode::Lexical, _) | (_, None) => Vec::new(),
        (_, Some(q)) => heading_search(bundle, q, cfg.k),
    };
    let mut ranked = match cfg.mode {
        Mode::Lexical => lexical,
        Mode::Dense if headings.is_empty() => dense,
        Mode::Dense => fusion::fuse(&[(&dense, cfg.w_dense), (&headings, cfg.w_heading)], cfg.fusion),
        Mode::Hybrid => fusion::fuse(&[(&lexical, cfg.w_lexical), (&dense, cfg.w_dense), (&headings, cfg.w_heading)], cfg.fusion),
    };
    if let (true, Some(r)) = (cfg.rerank, reranker) {
        let cands: Vec<Candidate> = ranked.iter().map(|&(chunk, score)| Candidate { chunk, score }).collect();
        let rq = RerankQuery { text: query.text, terms: &terms, vector: query.vector, calibration: cal };
        let scores = r.score(bundle, &rq, &cands);
        ranked = cands.iter().zip(scores).map(|(c, s)| (c.chunk, s)).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    }
    (ranked, best_dense)
}

/// The fused candidates before reranking, best first, each with its fusion score and what the
/// default reranker reads of it ([`rerank::Features`]): for fitting the reranker's weights
/// (`index-builder search --features`).
pub fn candidate_features(bundle: &Bundle, cfg: &RetrievalConfig, query: &Query<'_>) -> Vec<(u32, f32, rerank::Features)> {
    let terms = crate::text::query_terms(query.text);
    let alikes = alikes(bundle, query, &terms);
    let (ranked, _) = candidates(bundle, &RetrievalConfig { rerank: false, ..cfg.clone() }, query, &terms, &alikes, None);
    let searched = searched_terms(&terms, &alikes);
    let rq = RerankQuery { text: query.text, terms: &searched, vector: query.vector, calibration: cfg.calibration(bundle) };
    let cands: Vec<Candidate> = ranked.iter().map(|&(chunk, score)| Candidate { chunk, score }).collect();
    let features = FeatureReranker::features(bundle, &rq, &cands);
    ranked.into_iter().zip(features).map(|((c, s), f)| (c, s, f)).collect()
}

/// Sections whose heading is nearest the query, each standing for its chunk nearest the query.
fn heading_search(bundle: &Bundle, q: &[f32], k: usize) -> Vec<(u32, f32)> {
    let (Some(vectors), Some(_)) = (bundle.vectors.as_ref(), bundle.heading_vectors.as_ref()) else { return Vec::new() };
    let mut by_section: Vec<Vec<u32>> = vec![Vec::new(); bundle.sections.len()];
    for c in &bundle.chunks {
        by_section[c.section as usize].push(c.id);
    }
    let scores: Vec<f32> = (0..bundle.sections.len() as u32)
        .map(|s| match (bundle.heading_vector(s), by_section[s as usize].is_empty()) {
            (Some(h), false) => crate::embed::dot(q, h).max(1e-6),
            _ => 0.0,
        })
        .collect();
    crate::bm25::top_k(&scores, k)
        .into_iter()
        .map(|(s, score)| {
            let best = by_section[s as usize]
                .iter()
                .copied()
                .max_by(|&a, &b| crate::embed::dot(q, vectors.vector(a)).total_cmp(&crate::embed::dot(q, vectors.vector(b))).then(b.cmp(&a)))
                .expect("sections without chunks score 0");
            (best, score)
        })
        .collect()
}

/// Evidence for answering a question, or an abstention.
pub fn retrieve(bundle: &Bundle, cfg: &RetrievalConfig, query: &Query<'_>, reranker: Option<&dyn Reranker>) -> Retrieval {
    let terms = crate::text::query_terms(query.text);
    let alikes = alikes(bundle, query, &terms);
    let (ranked, best_dense) = candidates(bundle, cfg, query, &terms, &alikes, reranker);
    let kept = context::dedupe(bundle, &ranked, cfg.max_overlap, cfg.max_similarity, cfg.max_per_section, cfg.top_n);
    let evidence: Vec<Evidence> = kept.iter().map(|&(c, s)| evidence(bundle, c, s, cfg.context_budget)).collect();
    let docs: Vec<String> = evidence.iter().map(|e| format!("{}\n{}", e.heading_path.join(" "), e.text)).collect();
    let doc_refs: Vec<&str> = docs.iter().map(String::as_str).collect();
    // Everyday words: the encoder's vocabulary, and romanised Bangla of the course's words.
    let everyday = |w: &str| query.is_common_word.is_some_and(|c| c(w)) || bundle.sounds().sounds_bengali(w);
    let common = query.is_common_word.map(|_| &everyday as &dyn Fn(&str) -> bool);
    let mut coverage = coverage::coverage(query.text, &doc_refs, &bundle.bm25, &alikes, common);
    if let (Some(tv), Some(embed)) = (bundle.term_vectors.as_ref(), query.embed_words) {
        // A term the course writes but the evidence lacks may be there in the other script
        // (a Bangla question over an English chapter): the gate counts it so, the search did not.
        let absent = |t: &str| coverage.missing.iter().any(|m| m == t) && bundle.bm25.doc_freq(t) > 0;
        let more = tv.alikes(query.text, &absent, embed);
        if !more.is_empty() {
            let all: Alikes = alikes.iter().cloned().chain(more).collect();
            coverage = coverage::coverage(query.text, &doc_refs, &bundle.bm25, &all, common);
        }
    }
    if let Some(release) = bundle.newest_version().and_then(|v| coverage::newer_release(query.text, v)) {
        coverage.jargon.push(release);
    }
    let gates = cfg.calibration(bundle).gates;
    let too_far = gates && best_dense.is_some_and(|d| d < cfg.min_dense);
    let paraphrase = gates && best_dense.is_some_and(|d| d >= cfg.strong_dense);
    let uncovered = coverage.score < cfg.min_coverage && !paraphrase;
    let refused = evidence.is_empty() || !coverage.jargon.is_empty() || too_far;
    let abstained = refused || uncovered;
    let uncertain = uncovered && !refused;
    let mut nearest_sections = Vec::new();
    for &(c, _) in &ranked {
        let s = bundle.chunks[c as usize].section;
        if !nearest_sections.contains(&s) {
            nearest_sections.push(s);
        }
        if nearest_sections.len() == 3 {
            break;
        }
    }
    Retrieval { evidence, coverage, best_dense, abstained, uncertain, nearest_sections }
}

/// Build the evidence record of one chunk, heading path restored.
pub fn evidence(bundle: &Bundle, chunk: u32, score: f32, context_budget: usize) -> Evidence {
    let c = &bundle.chunks[chunk as usize];
    let s = &bundle.sections[c.section as usize];
    Evidence {
        chunk,
        section: c.section,
        score,
        tier: c.tier.name(),
        file: s.file.clone(),
        heading_path: s.heading_path.clone(),
        text: bundle.chunk_text(chunk).to_string(),
        context: context::parent_context(bundle, chunk, context_budget),
        line_start: c.line_start,
        line_end: c.line_end,
    }
}

/// Quiz evidence: a wide, diverse set (union of 50 candidates, MMR λ = 0.7 down to 25).
pub fn quiz_evidence(bundle: &Bundle, query: &Query<'_>) -> Vec<Evidence> {
    let cfg = RetrievalConfig { k: 50, fusion: Fusion::Union, rerank: false, ..Default::default() };
    let terms = crate::text::query_terms(query.text);
    let alikes = alikes(bundle, query, &terms);
    let (ranked, _) = candidates(bundle, &cfg, query, &terms, &alikes, None);
    let ranked: Vec<(u32, f32)> = ranked.into_iter().take(50).collect();
    let sim = |a: u32, b: u32| match bundle.vectors.as_ref() {
        Some(v) => crate::embed::dot(v.vector(a), v.vector(b)),
        None => context::near_duplicate(bundle.chunk_text(a), bundle.chunk_text(b)),
    };
    let picked = mmr::mmr(&ranked, 25, 0.7, sim);
    let score = |c: u32| ranked.iter().find(|r| r.0 == c).map_or(0.0, |r| r.1);
    picked.into_iter().map(|c| evidence(bundle, c, score(c), 0)).collect()
}
