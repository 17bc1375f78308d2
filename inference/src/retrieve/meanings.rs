//! Words of the other script matched by meaning: a Bengali question word to the course's
//! English terms, an English (or romanised) one to its Bengali terms.
//!
//! A learner of the Bangla science book asks "In the iodine test on a leaf …" or "chloroplast কে
//! কেন plant এর food factory বলে?"; one of a mixed course asks about its English Python chapter
//! in Bangla ("তালিকার … শেষেরটা"). Such words are in no chunk, so BM25 cannot find their
//! passages and the coverage gate counts them as missing — or, for a Latin word that is not a
//! whole word of the encoder's vocabulary ("factory" is not, in e5's), as a name foreign to the
//! course. A multilingual encoder places a word near its translation: with e5 and the `query: `
//! prefix on both sides, "factory" → কারখানা (0.92), "food" → খাবার, "তালিকা" → "list" (0.94), while
//! the best match of a foreign name stays lower ("lambda" → লবণ 0.89, "Kotlin" → "quotient"
//! 0.88). So `index-builder build` stores one vector per course word (every spelling, embedded as
//! a query, 8-bit, with its index term) when the encoder is multilingual, and at query time a
//! question's words are matched to the course terms of the *other* script whose vector is at
//! least [`MIN_COSINE`] from theirs ([`super::alikes`]): a word the course never writes is
//! searched beside its match and counted by the gate, as [`super::sounds`] does for words that
//! sound alike; a word the course writes but the evidence lacks is counted by the gate only.

use crate::bm25::Bm25Index;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Least cosine between a question word and a course term of the other script for the two to
/// count as one word (e5-small, `query: ` on both sides; chosen on the Bangla tuning half).
pub const MIN_COSINE: f32 = 0.90;

/// Unit vectors of single words, embedded as queries by the bundle's encoder ([`embed_words`]).
pub type EmbedWords<'a> = dyn Fn(&[&str]) -> Vec<Vec<f32>> + 'a;

/// Most course terms a bundle keeps vectors for (the most widespread first): 8,000 × 388 bytes.
pub const MAX_TERMS: usize = 8000;

/// One 8-bit vector per course term, for matching words across scripts by meaning.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TermVectors {
    /// The index term (as [`crate::text::terms`] gives it) of each vector's word; a term with
    /// several spellings appears once per spelling.
    pub terms: Vec<String>,
    pub dim: u32,
    /// `terms.len() × dim` values; value `i` of vector `t` is `values[t * dim + i] as f32 * scales[t]`.
    pub values: Vec<i8>,
    pub scales: Vec<f32>,
}

/// The course's words worth a vector, each with its term: every spelling of a letter word (not
/// a stop word, not a number, 2–40 characters) that the course writes, the most frequent first,
/// at most [`MAX_TERMS`]. Every spelling, not one per term: a stem's forms sit at different
/// distances from a translation ("iodine" is nearer আয়োডিন than আয়োডিনের).
pub fn course_words<'a>(texts: impl IntoIterator<Item = &'a str>, bm25: &Bm25Index) -> Vec<(String, String)> {
    let mut count: HashMap<String, u32> = HashMap::new();
    for text in texts {
        for w in crate::text::words(text) {
            let n = w.chars().count();
            if !(2..=40).contains(&n) || !is_letter_word(&w) || crate::text::is_stopword(&w) {
                continue;
            }
            *count.entry(w).or_default() += 1;
        }
    }
    let mut out: Vec<(u32, String, String)> =
        count.into_iter().map(|(w, n)| (n, crate::text::stem(&w), w)).filter(|(_, t, _)| bm25.doc_freq(t) > 0).collect();
    out.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.2.cmp(&b.2)));
    out.truncate(MAX_TERMS);
    out.into_iter().map(|(_, t, w)| (t, w)).collect()
}

impl TermVectors {
    /// Quantize unit vectors, one per term, to 8 bits each (a scale per vector).
    pub fn new(terms: Vec<String>, vectors: &[Vec<f32>]) -> TermVectors {
        assert_eq!(terms.len(), vectors.len(), "one vector per term");
        let dim = vectors.first().map_or(0, Vec::len);
        let mut values = Vec::with_capacity(terms.len() * dim);
        let mut scales = Vec::with_capacity(terms.len());
        for v in vectors {
            assert_eq!(v.len(), dim, "vectors of one width");
            let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
            let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
            values.extend(v.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8));
            scales.push(scale);
        }
        TermVectors { terms, dim: dim as u32, values, scales }
    }

    /// Whether the parts agree in size (a corrupt bundle is an error, not a panic).
    pub fn is_consistent(&self) -> bool {
        let n = self.terms.len();
        self.scales.len() == n && self.values.len() == n * self.dim as usize
    }

    fn cosine(&self, t: usize, v: &[f32]) -> f32 {
        let dim = self.dim as usize;
        let row = &self.values[t * dim..(t + 1) * dim];
        row.iter().zip(v).map(|(&a, b)| a as f32 * b).sum::<f32>() * self.scales[t]
    }

    /// The course term of the other script nearest `v` (a unit vector of a word in `bengali`
    /// script or not), when at least [`MIN_COSINE`] away.
    fn nearest_across(&self, v: &[f32], bengali: bool) -> Option<&str> {
        if v.len() != self.dim as usize {
            return None;
        }
        (0..self.terms.len())
            .filter(|&t| is_bengali_word(&self.terms[t]) != bengali)
            .map(|t| (t, self.cosine(t, v)))
            .filter(|&(_, c)| c >= MIN_COSINE)
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(t, _)| self.terms[t].as_str())
    }

    /// The question's key terms that `wanted` picks, each with the course term of the other
    /// script that means the same, where one does. `embed` gives unit vectors of words embedded
    /// as queries; it is asked once, for the picked words only (none: no call).
    pub fn alikes(&self, question: &str, wanted: &dyn Fn(&str) -> bool, embed: &EmbedWords<'_>) -> Vec<(String, Vec<String>)> {
        if self.terms.is_empty() {
            return Vec::new();
        }
        let mut words: Vec<(String, String)> = Vec::new();
        for w in crate::text::words(question) {
            let t = crate::text::stem(&w);
            if w.chars().count() < 2 || !is_letter_word(&w) || crate::text::is_stopword(&w) || !wanted(&t) || words.iter().any(|(o, _)| *o == t) {
                continue;
            }
            words.push((t, w));
        }
        if words.is_empty() {
            return Vec::new();
        }
        let spellings: Vec<&str> = words.iter().map(|(_, w)| w.as_str()).collect();
        let vectors = embed(&spellings);
        words
            .into_iter()
            .zip(vectors)
            .filter_map(|((t, w), v)| self.nearest_across(&v, is_bengali_word(&w)).map(|found| (t, vec![found.to_string()])))
            .collect()
    }
}

/// Unit vectors of single words as [`TermVectors`] holds them: each embedded as a query by
/// `encoder` (none on an error: the words then match nothing).
pub fn embed_words(encoder: &crate::embed::SentenceEncoder, words: &[&str]) -> Vec<Vec<f32>> {
    encoder.embed(words, crate::embed::Role::Query).unwrap_or_default()
}

/// Term vectors for a course's words, when `encoder` is multilingual (else none: an English-only
/// encoder places a Bengali word nowhere near its translation). `embed` embeds them as queries,
/// in batches (the caller's progress and cache).
pub fn build<'a>(
    texts: impl IntoIterator<Item = &'a str>,
    bm25: &Bm25Index,
    encoder: &crate::embed::SentenceEncoder,
    embed: impl FnOnce(&[&str]) -> Result<Vec<Vec<f32>>, crate::embed::EncoderError>,
) -> Result<Option<TermVectors>, crate::embed::EncoderError> {
    if !encoder.is_multilingual() {
        return Ok(None);
    }
    let words = course_words(texts, bm25);
    let spellings: Vec<&str> = words.iter().map(|(_, w)| w.as_str()).collect();
    let vectors = embed(&spellings)?;
    Ok(Some(TermVectors::new(words.into_iter().map(|(t, _)| t).collect(), &vectors)))
}

/// A word of letters: no digits, no identifier or path punctuation (Bengali's vowel signs,
/// virama and nukta are marks, not letters, and count as part of the word).
fn is_letter_word(w: &str) -> bool {
    w.chars().any(char::is_alphabetic) && !w.chars().any(|c| c.is_numeric() || c.is_ascii_punctuation())
}

fn is_bengali_word(w: &str) -> bool {
    w.chars().any(crate::text::is_bengali)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIM: usize = 64;

    /// A unit vector of width [`DIM`] from its first values.
    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let mut out: Vec<f32> = v.iter().map(|x| x / n).collect();
        out.resize(DIM, 0.0);
        out
    }

    /// A word the table does not know: a direction of its own (by its letters), far from all.
    fn elsewhere(word: &str) -> Vec<f32> {
        let h = word.chars().fold(7usize, |h, c| h.wrapping_mul(31).wrapping_add(c as usize));
        let mut v = vec![0.0; DIM];
        v[4 + h % (DIM - 4)] = 1.0;
        v
    }

    /// A toy "encoder": each word's vector is looked up in a table.
    fn table() -> Vec<(&'static str, Vec<f32>)> {
        vec![
            ("কারখানা", unit(&[1.0, 0.0, 0.0, 0.1])),
            ("factory", unit(&[1.0, 0.05, 0.0, 0.1])),
            ("list", unit(&[0.0, 1.0, 0.0, 0.0])),
            ("তালিকার", unit(&[0.0, 1.0, 0.1, 0.0])),
            ("লবণ", unit(&[0.0, 0.0, 1.0, 0.0])),
            ("lambda", unit(&[0.0, 0.0, 1.0, 0.6])),
        ]
    }

    fn embed(words: &[&str]) -> Vec<Vec<f32>> {
        let t = table();
        words.iter().map(|w| t.iter().find(|(k, _)| k == w).map(|(_, v)| v.clone()).unwrap_or_else(|| elsewhere(w))).collect()
    }

    fn course() -> (Bm25Index, TermVectors) {
        let text = "কারখানা লবণ। A list holds items.";
        let bm25 = Bm25Index::build(&[crate::text::terms(text)], Default::default());
        let words = course_words([text], &bm25);
        let vectors = embed(&words.iter().map(|(_, w)| w.as_str()).collect::<Vec<_>>());
        (bm25, TermVectors::new(words.into_iter().map(|(t, _)| t).collect(), &vectors))
    }

    #[test]
    fn a_word_finds_its_translation_in_the_other_script_only() {
        let (bm25, tv) = course();
        assert!(tv.is_consistent());
        let ask = |q: &str| tv.alikes(q, &|t| bm25.doc_freq(t) == 0, &embed);
        assert_eq!(ask("chloroplast কে কেন food factory বলে?"), vec![("factori".to_string(), vec!["কারখানা".to_string()])]);
        assert_eq!(ask("তালিকার শেষেরটা কীভাবে পাব?"), vec![(crate::text::stem("তালিকার"), vec!["list".to_string()])]);
        assert!(ask("what is a lambda?").is_empty(), "a foreign name's best match is too far: {:?}", ask("what is a lambda?"));
    }

    #[test]
    fn no_unknown_words_no_call() {
        let (bm25, tv) = course();
        let found = tv.alikes("list items", &|t| bm25.doc_freq(t) == 0, &|_: &[&str]| panic!("nothing to embed"));
        assert!(found.is_empty());
    }

    #[test]
    fn vectors_survive_eight_bits() {
        let v = unit(&[0.3, -0.7, 0.2, 0.5]);
        let tv = TermVectors::new(vec!["x".into()], std::slice::from_ref(&v));
        assert!((tv.cosine(0, &v) - 1.0).abs() < 0.01, "{}", tv.cosine(0, &v));
    }
}
