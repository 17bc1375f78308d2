//! COPE chunking: three tiers of windows over each section's text, linked into a graph.
//!
//! Every section's body is cut into *units* — sentences of prose, whole code blocks, tables
//! and definitions — and each tier packs consecutive units into windows of at most `window`
//! characters that overlap by about `overlap` characters. A unit longer than the window (a
//! long code listing) becomes a chunk of its own rather than being cut. A window whose span
//! equals a coarser tier's window is not repeated, so a short section is one macro chunk.
//!
//! Edges: `parent` is the coarser-tier chunk of the same section that overlaps most,
//! `children` the inverse, `prev`/`next` the neighbours in the same tier and section;
//! siblings are the parent's other children (see [`crate::bundle::Bundle::siblings`]).

use super::outline::Section;
use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Tier {
    Macro,
    Meso,
    Micro,
}

impl Tier {
    pub const ALL: [Tier; 3] = [Tier::Macro, Tier::Meso, Tier::Micro];

    pub fn name(self) -> &'static str {
        match self {
            Tier::Macro => "macro",
            Tier::Meso => "meso",
            Tier::Micro => "micro",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierWindow {
    /// Most characters in one chunk (a single longer unit is kept whole).
    pub window: usize,
    /// Characters shared with the next chunk.
    pub overlap: usize,
}

/// Window sizes per tier. Defaults: macro 3600/650, meso 1900/320, micro 1100/180 characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkConfig {
    pub macro_: TierWindow,
    pub meso: TierWindow,
    pub micro: TierWindow,
}

impl Default for ChunkConfig {
    fn default() -> Self {
        ChunkConfig {
            macro_: TierWindow { window: 3600, overlap: 650 },
            meso: TierWindow { window: 1900, overlap: 320 },
            micro: TierWindow { window: 1100, overlap: 180 },
        }
    }
}

impl ChunkConfig {
    pub fn tier(&self, tier: Tier) -> TierWindow {
        match tier {
            Tier::Macro => self.macro_,
            Tier::Meso => self.meso,
            Tier::Micro => self.micro,
        }
    }
}

/// A span of one section's text at one tier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    pub id: u32,
    pub section: u32,
    pub tier: Tier,
    /// Byte range in the section's `text`.
    pub start: u32,
    pub end: u32,
    /// Source lines covered (first block's line to last block's line).
    pub line_start: u32,
    pub line_end: u32,
    pub parent: Option<u32>,
    pub children: Vec<u32>,
    pub prev: Option<u32>,
    pub next: Option<u32>,
}

impl Chunk {
    pub fn text<'a>(&self, sections: &'a [Section]) -> &'a str {
        &sections[self.section as usize].text[self.start as usize..self.end as usize]
    }
}

/// A piece that is never split: a sentence of prose or a whole atomic block.
#[derive(Clone, Copy, Debug)]
struct Unit {
    start: usize,
    end: usize,
    line: u32,
}

fn units(section: &Section) -> Vec<Unit> {
    let mut out = Vec::new();
    for b in &section.blocks {
        let (start, end) = (b.start as usize, b.end as usize);
        if b.atomic {
            out.push(Unit { start, end, line: b.line });
            continue;
        }
        let text = &section.text[start..end];
        for (offset, sentence) in text.split_sentence_bound_indices() {
            let trimmed = sentence.trim_end();
            if trimmed.trim().is_empty() {
                continue;
            }
            let lead = trimmed.len() - trimmed.trim_start().len();
            out.push(Unit { start: start + offset + lead, end: start + offset + trimmed.len(), line: b.line });
        }
    }
    out
}

fn char_len(text: &str, start: usize, end: usize) -> usize {
    text[start..end].chars().count()
}

/// Windows over `units` as index ranges `[i, j)`.
fn windows(text: &str, units: &[Unit], w: TierWindow) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < units.len() {
        let mut j = i + 1;
        while j < units.len() && char_len(text, units[i].start, units[j].end) <= w.window {
            j += 1;
        }
        out.push((i, j));
        if j == units.len() {
            break;
        }
        // Start the next window at the earliest unit whose tail to `j` fits the overlap.
        let mut k = j;
        while k > i + 1 && char_len(text, units[k - 1].start, units[j - 1].end) <= w.overlap {
            k -= 1;
        }
        i = k;
    }
    out
}

/// Chunk every section at every tier and link the graph. Chunk ids are indices.
pub fn chunk_sections(sections: &[Section], config: &ChunkConfig) -> Vec<Chunk> {
    let mut chunks: Vec<Chunk> = Vec::new();
    for section in sections {
        let units = units(section);
        if units.is_empty() {
            continue;
        }
        let mut coarser: Vec<u32> = Vec::new();
        for tier in Tier::ALL {
            let mut this_tier: Vec<u32> = Vec::new();
            for (i, j) in windows(&section.text, &units, config.tier(tier)) {
                let (start, end) = (units[i].start as u32, units[j - 1].end as u32);
                // Parent: the coarser chunk overlapping most (ties: the first).
                let parent = coarser
                    .iter()
                    .copied()
                    .map(|c| (c, overlap(&chunks[c as usize], start, end)))
                    .filter(|&(_, o)| o > 0)
                    .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
                    .map(|(c, _)| c);
                if let Some(p) = parent {
                    let p = &chunks[p as usize];
                    if p.start == start && p.end == end {
                        continue; // same span as a coarser chunk: that one stands in
                    }
                }
                let id = chunks.len() as u32;
                chunks.push(Chunk {
                    id,
                    section: section.id,
                    tier,
                    start,
                    end,
                    line_start: units[i].line,
                    line_end: units[j - 1].line,
                    parent,
                    children: Vec::new(),
                    prev: this_tier.last().copied(),
                    next: None,
                });
                if let Some(&prev) = this_tier.last() {
                    chunks[prev as usize].next = Some(id);
                }
                if let Some(p) = parent {
                    chunks[p as usize].children.push(id);
                }
                this_tier.push(id);
            }
            if !this_tier.is_empty() {
                coarser = this_tier;
            }
        }
    }
    chunks
}

fn overlap(c: &Chunk, start: u32, end: u32) -> u32 {
    c.end.min(end).saturating_sub(c.start.max(start))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{Block, BlockKind, Document};
    use crate::index::outline::outline;

    fn long_section() -> Vec<Section> {
        let mut blocks = vec![Block::new(BlockKind::Heading(1), "Loops", 1)];
        for i in 0..40 {
            blocks.push(Block::new(
                BlockKind::Paragraph,
                format!("Sentence number {i} explains how a for loop walks over a list. Another sentence adds detail {i}."),
                2 + i,
            ));
            if i == 20 {
                let code = (0..30).map(|k| format!("for x in range({k}):\n    print(x)")).collect::<Vec<_>>().join("\n");
                blocks.push(Block::new(BlockKind::Code, code, 100));
            }
        }
        outline(&[Document { file: "loops.md".into(), blocks }])
    }

    #[test]
    fn tiers_respect_windows_and_keep_code_whole() {
        let sections = long_section();
        let config = ChunkConfig::default();
        let chunks = chunk_sections(&sections, &config);
        let code_block = sections[0].blocks.iter().find(|b| b.atomic).unwrap();
        for tier in Tier::ALL {
            let tier_chunks: Vec<_> = chunks.iter().filter(|c| c.tier == tier).collect();
            assert!(!tier_chunks.is_empty(), "{tier:?}");
            for c in &tier_chunks {
                let len = c.text(&sections).chars().count();
                let holds_code = c.start <= code_block.start && c.end >= code_block.end;
                assert!(len <= config.tier(tier).window || holds_code, "{tier:?} chunk of {len} chars");
                // A code block is either wholly inside or wholly outside.
                let cuts = (c.start > code_block.start && c.start < code_block.end)
                    || (c.end > code_block.start && c.end < code_block.end);
                assert!(!cuts, "chunk cuts the code block");
            }
            // Consecutive windows leave no gap, and overlap unless a whole code block is between.
            for pair in tier_chunks.windows(2) {
                assert!(pair[1].start <= pair[0].end + 2, "{tier:?} windows leave a gap");
                let code_at_seam = pair[0].end == code_block.end || pair[1].start == code_block.start;
                assert!(pair[1].start < pair[0].end || code_at_seam, "{tier:?} windows must overlap");
                assert_eq!(pair[0].next, Some(pair[1].id));
                assert_eq!(pair[1].prev, Some(pair[0].id));
            }
            assert_eq!(tier_chunks.first().unwrap().start, 0);
            assert_eq!(tier_chunks.last().unwrap().end as usize, sections[0].text.len());
        }
    }

    #[test]
    fn graph_edges_are_consistent() {
        let sections = long_section();
        let chunks = chunk_sections(&sections, &ChunkConfig::default());
        for c in &chunks {
            match c.tier {
                Tier::Macro => assert!(c.parent.is_none()),
                _ => {
                    let p = &chunks[c.parent.expect("finer tiers have parents") as usize];
                    assert!(p.tier < c.tier);
                    assert!(p.children.contains(&c.id));
                    assert!(p.start < c.end && c.start < p.end, "parent overlaps child");
                }
            }
        }
    }

    #[test]
    fn short_section_is_one_chunk() {
        let sections = outline(&[Document {
            file: "a.md".into(),
            blocks: vec![
                Block::new(BlockKind::Heading(1), "A", 1),
                Block::new(BlockKind::Paragraph, "Short. Text.", 2),
            ],
        }]);
        let chunks = chunk_sections(&sections, &ChunkConfig::default());
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].tier, Tier::Macro);
        assert_eq!(chunks[0].text(&sections), "Short. Text.");
    }
}
