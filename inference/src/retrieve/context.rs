//! CCR (drop overlapping and near-duplicate evidence across tiers) and CCI (give each piece of
//! evidence its parent section's context, under a budget).

use crate::bundle::Bundle;
use std::collections::HashSet;

/// Share of the smaller span two chunks of the same section have in common.
pub fn span_overlap(bundle: &Bundle, a: u32, b: u32) -> f32 {
    let (x, y) = (&bundle.chunks[a as usize], &bundle.chunks[b as usize]);
    if x.section != y.section {
        return 0.0;
    }
    let inter = x.end.min(y.end).saturating_sub(x.start.max(y.start)) as f32;
    let smaller = (x.end - x.start).min(y.end - y.start).max(1) as f32;
    inter / smaller
}

/// A text with its word 3-shingles, computed once for repeated comparisons.
struct Shingled<'a> {
    text: &'a str,
    set: HashSet<(String, String, String)>,
}

impl<'a> Shingled<'a> {
    fn new(text: &'a str) -> Self {
        let w = crate::text::words(text);
        Shingled { text, set: w.windows(3).map(|s| (s[0].clone(), s[1].clone(), s[2].clone())).collect() }
    }

    /// Jaccard similarity of the shingle sets (texts too short to shingle: equal or not).
    fn similarity(&self, other: &Shingled<'_>) -> f32 {
        let (x, y) = (&self.set, &other.set);
        if x.is_empty() || y.is_empty() {
            return if self.text.trim() == other.text.trim() { 1.0 } else { 0.0 };
        }
        x.intersection(y).count() as f32 / x.union(y).count() as f32
    }
}

/// Jaccard similarity of word 3-shingles.
pub fn near_duplicate(a: &str, b: &str) -> f32 {
    Shingled::new(a).similarity(&Shingled::new(b))
}

/// CCR: walk `ranked` best first and keep a chunk only if it neither overlaps a kept chunk of
/// the same section by more than `max_overlap` of the smaller span nor nearly repeats a kept
/// chunk's text (Jaccard ≥ `max_similarity`). Stops after `limit` kept.
/// At most `per_section` chunks come from one section.
pub fn dedupe(bundle: &Bundle, ranked: &[(u32, f32)], max_overlap: f32, max_similarity: f32, per_section: usize, limit: usize) -> Vec<(u32, f32)> {
    // Kept chunks with their shingles, so each text is analysed once.
    let mut kept: Vec<(u32, f32, Shingled<'_>)> = Vec::new();
    for &(c, s) in ranked {
        if kept.len() >= limit {
            break;
        }
        let section = bundle.chunks[c as usize].section;
        let same_section = kept.iter().filter(|k| bundle.chunks[k.0 as usize].section == section).count();
        if same_section >= per_section.max(1) || kept.iter().any(|k| span_overlap(bundle, c, k.0) > max_overlap) {
            continue;
        }
        let candidate = Shingled::new(bundle.chunk_text(c));
        if kept.iter().all(|k| candidate.similarity(&k.2) < max_similarity) {
            kept.push((c, s, candidate));
        }
    }
    kept.into_iter().map(|(c, s, _)| (c, s)).collect()
}

/// CCI: context for a chunk from its section's ancestors: the nearest enclosing section that has
/// its own text contributes its opening sentences (up to `budget` characters), unless the chunk
/// already starts at the beginning of its own section's text and that section is the one.
pub fn parent_context(bundle: &Bundle, chunk: u32, budget: usize) -> Option<String> {
    if budget == 0 {
        return None;
    }
    let c = &bundle.chunks[chunk as usize];
    let section = &bundle.sections[c.section as usize];
    // Inside a long section, the section's own opening is the nearest context.
    let (source, text) = if c.start > 0 {
        (section, section.text.as_str())
    } else {
        let mut parent = section.parent;
        loop {
            let p = &bundle.sections[parent? as usize];
            if !p.text.trim().is_empty() {
                break (p, p.text.as_str());
            }
            parent = p.parent;
        }
    };
    let snippet = clip(text, budget);
    if snippet.is_empty() {
        return None;
    }
    Some(format!("{}: {}", source.heading_path.join(" › "), snippet))
}

/// The passage a model reads for `chunk`: whole blocks of its section, at most `budget`
/// characters, that overlap the chunk and hold the most of the question's terms (`weight` gives
/// each of `question`'s terms its weight, e.g. BM25 IDF). A section that fits is read whole; a
/// long chunk is narrowed to the blocks about the question instead of being cut after its
/// opening, and a short one is widened with the blocks around it (the answer to "why does
/// `from package import *` miss submodules" is in the paragraph before the one retrieval found).
/// Among windows that hold as much of the question, the longer one is kept, then the one that
/// starts the chunk. A window of one block longer than `budget` is returned whole (the caller clips).
pub fn focus(bundle: &Bundle, chunk: u32, question: &HashSet<String>, weight: &dyn Fn(&str) -> f32, budget: usize) -> String {
    let c = &bundle.chunks[chunk as usize];
    let section = &bundle.sections[c.section as usize];
    let text = section.text.as_str();
    if text.trim().chars().count() <= budget {
        return text.trim().to_string();
    }
    let blocks = &section.blocks;
    let span = |b: usize| &text[blocks[b].start as usize..blocks[b].end as usize];
    let overlaps = |b: usize| blocks[b].start < c.end && blocks[b].end > c.start;
    let Some(first) = (0..blocks.len()).find(|&b| overlaps(b)) else { return bundle.chunk_text(chunk).to_string() };
    let last = (first..blocks.len()).take_while(|&b| overlaps(b)).last().unwrap_or(first);
    let terms: Vec<HashSet<String>> = (0..blocks.len()).map(|b| crate::text::query_terms(span(b)).into_iter().filter(|t| question.contains(t)).collect()).collect();
    let chars: Vec<usize> = (0..blocks.len()).map(|b| span(b).chars().count()).collect();
    // (score, length, starts the chunk, earlier) — the best window wins.
    let mut best: Option<((f32, usize, bool, std::cmp::Reverse<usize>), usize, usize)> = None;
    for i in 0..=last {
        // Ordered, so the weights are summed in the same order every time: a hash set's order
        // changes per instance, and with it the sum's last bits, which decided near-ties between
        // windows (the same question got passages cut differently from run to run).
        let mut held: std::collections::BTreeSet<&String> = Default::default();
        let mut len = 0;
        for j in i..blocks.len() {
            len += chars[j] + if j > i { 2 } else { 0 };
            if len > budget && j > i {
                break;
            }
            held.extend(terms[j].iter());
            if j < first {
                continue;
            }
            let score: f32 = held.iter().map(|t| weight(t)).sum();
            let key = (score, len, i == first, std::cmp::Reverse(i));
            if best.as_ref().is_none_or(|(k, _, _)| key > *k) {
                best = Some((key, i, j));
            }
            if len > budget {
                break;
            }
        }
    }
    let (_, i, j) = best.expect("the chunk's own blocks are a window");
    text[blocks[i].start as usize..blocks[j].end as usize].trim().to_string()
}

/// At most `budget` characters of `text`, cut at a sentence or word end.
pub fn clip(text: &str, budget: usize) -> String {
    if text.chars().count() <= budget {
        return text.trim().to_string();
    }
    let cut: String = text.chars().take(budget).collect();
    // Byte offsets: the stop may be several bytes long (the Bangla দাঁড়ি '।' is three).
    let stop = cut.char_indices().rev().find(|&(_, c)| matches!(c, '.' | '?' | '!' | '।' | '\n'));
    let end = stop.filter(|&(i, _)| i > budget / 3).map(|(i, c)| i + c.len_utf8()).or_else(|| cut.rfind(' ')).unwrap_or(cut.len());
    format!("{}…", cut[..end].trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_duplicate_scores() {
        let a = "the quick brown fox jumps over the lazy dog";
        assert_eq!(near_duplicate(a, a), 1.0);
        assert!(near_duplicate(a, "completely different words are here now") < 0.1);
    }

    #[test]
    fn clip_cuts_at_sentence() {
        let t = "First sentence here. Second sentence is longer than the budget allows.";
        assert_eq!(clip(t, 30), "First sentence here.…");
        assert_eq!(clip("short", 30), "short");
    }

    #[test]
    fn clip_cuts_after_a_bangla_stop() {
        let t = "ল্যাটিন acidus থেকে Acid শব্দটি এসেছে। অম্ল স্বাদে টক এবং নীল লিটমাসকে লাল করে, আরও অনেক কথা।";
        assert_eq!(clip(t, 60), "ল্যাটিন acidus থেকে Acid শব্দটি এসেছে।…");
    }
}
