//! Okapi BM25 over chunks, with Lucene's IDF: `ln(1 + (N - n + 0.5) / (n + 0.5))`.
//!
//! Each distinct query term counts once. Documents are the analysed heading path plus text of
//! a chunk (see [`crate::text::terms`]); the caller decides what goes in.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bm25Params {
    pub k1: f32,
    pub b: f32,
}

impl Default for Bm25Params {
    fn default() -> Self {
        Bm25Params { k1: 1.2, b: 0.75 }
    }
}

/// An inverted index: for every term, the documents containing it and how often.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bm25Index {
    pub params: Bm25Params,
    /// Sorted by term so the stored form is deterministic.
    postings: Vec<(String, Vec<(u32, u32)>)>,
    doc_len: Vec<u32>,
    avg_len: f32,
    #[serde(skip)]
    lookup: HashMap<String, usize>,
}

impl Bm25Index {
    /// Index documents given as term lists; document ids are their positions.
    pub fn build(docs: &[Vec<String>], params: Bm25Params) -> Self {
        let mut map: HashMap<&str, Vec<(u32, u32)>> = HashMap::new();
        for (d, terms) in docs.iter().enumerate() {
            let mut tf: HashMap<&str, u32> = HashMap::new();
            for t in terms {
                *tf.entry(t.as_str()).or_default() += 1;
            }
            for (t, n) in tf {
                map.entry(t).or_default().push((d as u32, n));
            }
        }
        let mut postings: Vec<(String, Vec<(u32, u32)>)> = map
            .into_iter()
            .map(|(t, mut p)| {
                p.sort_unstable();
                (t.to_string(), p)
            })
            .collect();
        postings.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let doc_len: Vec<u32> = docs.iter().map(|d| d.len() as u32).collect();
        let total: u64 = doc_len.iter().map(|&l| l as u64).sum();
        let avg_len = if docs.is_empty() { 0.0 } else { total as f32 / docs.len() as f32 };
        let mut index = Bm25Index { params, postings, doc_len, avg_len, lookup: HashMap::new() };
        index.rebuild_lookup();
        index
    }

    /// Restore the term lookup after deserialising.
    pub fn rebuild_lookup(&mut self) {
        self.lookup = self.postings.iter().enumerate().map(|(i, (t, _))| (t.clone(), i)).collect();
    }

    /// Check a deserialised index refers only to its own documents.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.num_docs() as u32;
        if !self.avg_len.is_finite() || self.avg_len < 0.0 {
            return Err("BM25 average length is not a number".into());
        }
        for (term, list) in &self.postings {
            if list.iter().any(|&(d, tf)| d >= n || tf == 0) {
                return Err(format!("BM25 postings of `{term}` point outside the index"));
            }
        }
        if self.lookup.len() != self.postings.len() {
            return Err("BM25 terms are duplicated".into());
        }
        Ok(())
    }

    pub fn num_docs(&self) -> usize {
        self.doc_len.len()
    }

    /// Number of documents containing `term`.
    pub fn doc_freq(&self, term: &str) -> usize {
        self.lookup.get(term).map_or(0, |&i| self.postings[i].1.len())
    }

    /// The index's terms, in order.
    pub fn terms(&self) -> impl Iterator<Item = &str> {
        self.postings.iter().map(|(t, _)| t.as_str())
    }

    /// Whether any term of the index satisfies `pred` (a scan of the vocabulary).
    pub fn any_term(&self, pred: impl Fn(&str) -> bool) -> bool {
        self.postings.iter().any(|(t, _)| pred(t))
    }

    /// Lucene IDF of a term; a term that occurs nowhere gets the largest possible IDF.
    pub fn idf(&self, term: &str) -> f32 {
        let n = self.num_docs() as f32;
        let df = self.doc_freq(term) as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// Scores of every document for the query terms (distinct terms, each counted once).
    pub fn score_all(&self, query: &[String]) -> Vec<f32> {
        let mut scores = vec![0.0f32; self.num_docs()];
        let mut seen: Vec<&str> = Vec::new();
        let Bm25Params { k1, b } = self.params;
        for term in query {
            if seen.contains(&term.as_str()) {
                continue;
            }
            seen.push(term);
            let Some(&i) = self.lookup.get(term.as_str()) else { continue };
            let idf = self.idf(term);
            for &(d, tf) in &self.postings[i].1 {
                let tf = tf as f32;
                let norm = 1.0 - b + b * self.doc_len[d as usize] as f32 / self.avg_len.max(f32::EPSILON);
                scores[d as usize] += idf * tf * (k1 + 1.0) / (tf + k1 * norm);
            }
        }
        scores
    }

    /// The `k` best documents with a positive score, best first (ties: lower id first).
    pub fn search(&self, query: &[String], k: usize) -> Vec<(u32, f32)> {
        top_k(&self.score_all(query), k)
    }
}

/// Indices of the `k` largest positive values, best first, ties broken by index.
pub fn top_k(scores: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut hits: Vec<(u32, f32)> = scores
        .iter()
        .enumerate()
        .filter(|(_, s)| **s > 0.0)
        .map(|(i, &s)| (i as u32, s))
        .collect();
    let by_score = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if hits.len() > k {
        hits.select_nth_unstable_by(k, by_score);
        hits.truncate(k);
    }
    hits.sort_unstable_by(by_score);
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn rare_terms_outrank_common_ones() {
        let docs = vec![toks("the cat sat"), toks("the dog sat"), toks("the cat ran far away")];
        let idx = Bm25Index::build(&docs, Bm25Params::default());
        let hits = idx.search(&toks("cat sat"), 3);
        assert_eq!(hits[0].0, 0);
        assert!(idx.idf("cat") > idx.idf("the"));
        assert!(idx.idf("unseen") > idx.idf("cat"));
        assert!(idx.search(&toks("nothing"), 3).is_empty());
    }

    #[test]
    fn duplicate_query_terms_count_once() {
        let docs = vec![toks("a b"), toks("b c")];
        let idx = Bm25Index::build(&docs, Bm25Params::default());
        assert_eq!(idx.score_all(&toks("a a b")), idx.score_all(&toks("a b")));
    }

    #[test]
    fn top_k_is_ordered_and_truncated() {
        let s = [0.5, 2.0, 0.0, 2.0, 1.0];
        assert_eq!(top_k(&s, 3), vec![(1, 2.0), (3, 2.0), (4, 1.0)]);
    }
}
