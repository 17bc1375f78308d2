//! From parsed documents to a [`Bundle`]: outline → chunks → BM25 → embeddings → HNSW.

use super::chunk::{ChunkConfig, chunk_sections};
use super::outline::{Section, outline};
use crate::bm25::{Bm25Index, Bm25Params};
use crate::bundle::{Bundle, BundleHeader};
use crate::corpus::Document;
use crate::embed::{EncoderError, SentenceEncoder};
use crate::index::Chunk;
use crate::vector::VectorIndex;

/// What text stands for a chunk when it is embedded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmbedMode {
    /// The chunk text alone.
    Plain,
    /// The heading path, then the chunk text: every fine chunk carries its section's context.
    Contextual,
}

impl EmbedMode {
    pub fn name(self) -> &'static str {
        match self {
            EmbedMode::Plain => "plain",
            EmbedMode::Contextual => "contextual",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "plain" => Some(EmbedMode::Plain),
            "contextual" => Some(EmbedMode::Contextual),
            _ => None,
        }
    }
}

pub struct BuildOptions {
    pub title: String,
    pub chunk_config: ChunkConfig,
    pub bm25: Bm25Params,
    pub embed_mode: EmbedMode,
    pub batch_size: usize,
    pub builder_version: String,
    pub corpus_checksum: String,
}

/// Heading path and text of a chunk, as BM25 indexes it and as rerankers read it.
pub fn chunk_document(section: &Section, chunk: &Chunk) -> String {
    let text = &section.text[chunk.start as usize..chunk.end as usize];
    format!("{}\n{}", section.heading_path.join(" › "), text)
}

/// What the encoder embeds for a chunk.
pub fn embed_text(section: &Section, chunk: &Chunk, mode: EmbedMode) -> String {
    match mode {
        EmbedMode::Plain => section.text[chunk.start as usize..chunk.end as usize].to_string(),
        EmbedMode::Contextual => chunk_document(section, chunk),
    }
}

/// Build the whole index. `progress(done, total)` is called as chunks are embedded.
pub fn build(documents: &[Document], encoder: Option<&SentenceEncoder>, opts: &BuildOptions, mut progress: impl FnMut(usize, usize)) -> Result<Bundle, EncoderError> {
    let sections = outline(documents);
    let chunks = chunk_sections(&sections, &opts.chunk_config);
    let docs: Vec<Vec<String>> = chunks
        .iter()
        .map(|c| crate::text::terms(&chunk_document(&sections[c.section as usize], c)))
        .collect();
    let bm25 = Bm25Index::build(&docs, opts.bm25);
    let vectors = match encoder {
        Some(enc) => {
            let texts: Vec<String> = chunks.iter().map(|c| embed_text(&sections[c.section as usize], c, opts.embed_mode)).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let mut done = 0;
            let vecs = enc.embed_many(&refs, opts.batch_size, |n| {
                done += n;
                progress(done, refs.len());
            })?;
            Some(VectorIndex::build(vecs, enc.dim()))
        }
        None => None,
    };
    let header = BundleHeader {
        title: opts.title.clone(),
        builder_version: opts.builder_version.clone(),
        encoder: encoder.map(|e| e.id().clone()),
        corpus_checksum: opts.corpus_checksum.clone(),
        embed_mode: opts.embed_mode.name().to_string(),
        chunk_config: opts.chunk_config,
        files: documents.len() as u32,
        sections: sections.len() as u32,
        chunks: chunks.len() as u32,
    };
    Ok(Bundle { header, sections, chunks, bm25, vectors })
}
