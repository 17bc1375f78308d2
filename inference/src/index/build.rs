//! From parsed documents to a [`Bundle`]: outline → chunks → BM25 → embeddings → HNSW.

use super::chunk::{ChunkConfig, chunk_sections};
use super::outline::{Section, outline};
use crate::bm25::{Bm25Index, Bm25Params};
use crate::bundle::{Bundle, BundleBody, BundleHeader, CourseInfo};
use crate::corpus::Document;
use crate::embed::{EncoderError, EncoderId, Role, SentenceEncoder};
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
    /// The course's declared subjects and language, recorded in the header.
    pub course: CourseInfo,
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

/// Everything but the vectors: the part of a build that needs no model.
pub struct Prepared {
    pub sections: Vec<Section>,
    pub chunks: Vec<Chunk>,
    pub bm25: Bm25Index,
    /// What the encoder should embed for each chunk, in chunk order.
    pub embed_texts: Vec<String>,
    /// What the encoder should embed for each section's heading, in section order.
    pub heading_texts: Vec<String>,
    pub files: u32,
}

/// Outline, chunk and index the documents.
pub fn prepare(documents: &[Document], opts: &BuildOptions) -> Prepared {
    let sections = outline(documents);
    let chunks = chunk_sections(&sections, &opts.chunk_config);
    let docs: Vec<Vec<String>> = chunks
        .iter()
        .map(|c| crate::text::terms(&chunk_document(&sections[c.section as usize], c)))
        .collect();
    let bm25 = Bm25Index::build(&docs, opts.bm25);
    let embed_texts = chunks.iter().map(|c| embed_text(&sections[c.section as usize], c, opts.embed_mode)).collect();
    let heading_texts = sections.iter().map(heading_text).collect();
    Prepared { sections, chunks, bm25, embed_texts, heading_texts, files: documents.len() as u32 }
}

/// A section's heading as the encoder sees it: the heading, then the path above it for context.
pub fn heading_text(section: &Section) -> String {
    let mut path = section.heading_path.iter().rev();
    let leaf = path.next().map(String::as_str).unwrap_or("");
    let above: Vec<&str> = path.map(String::as_str).collect();
    if above.is_empty() { leaf.to_string() } else { format!("{leaf} ({})", above.join(" › ")) }
}

/// Vectors from one encoder: one per chunk and one per section heading.
pub struct Embeddings {
    pub encoder: EncoderId,
    pub chunks: Vec<Vec<f32>>,
    pub headings: Vec<Vec<f32>>,
}

/// Attach the vectors and make the bundle.
pub fn finish(prepared: Prepared, embeddings: Option<Embeddings>, opts: &BuildOptions) -> Bundle {
    let Prepared { sections, chunks, bm25, files, .. } = prepared;
    let (encoder, vectors, heading_vectors) = match embeddings {
        Some(Embeddings { encoder, chunks: vecs, headings }) => {
            assert_eq!(vecs.len(), chunks.len(), "one vector per chunk");
            assert_eq!(headings.len(), sections.len(), "one vector per section");
            let dim = encoder.dim;
            (Some(encoder), Some(VectorIndex::build(vecs, dim)), Some(headings.concat()))
        }
        None => (None, None, None),
    };
    let header = BundleHeader {
        title: opts.title.clone(),
        builder_version: opts.builder_version.clone(),
        encoder,
        corpus_checksum: opts.corpus_checksum.clone(),
        embed_mode: opts.embed_mode.name().to_string(),
        chunk_config: opts.chunk_config,
        files,
        sections: sections.len() as u32,
        chunks: chunks.len() as u32,
        course: opts.course.clone(),
    };
    Bundle::new(header, BundleBody { sections, chunks, bm25, vectors, heading_vectors, predictions: Vec::new(), term_vectors: None })
}

/// Build the whole index, embedding every chunk. `progress(done, total)` follows the embedding.
pub fn build(documents: &[Document], encoder: Option<&SentenceEncoder>, opts: &BuildOptions, mut progress: impl FnMut(usize, usize) + Send) -> Result<Bundle, EncoderError> {
    let prepared = prepare(documents, opts);
    let vectors = match encoder {
        Some(enc) => {
            let refs: Vec<&str> = prepared.embed_texts.iter().map(String::as_str).collect();
            let mut done = 0;
            let vecs = enc.embed_many(&refs, Role::Passage, opts.batch_size, |n| {
                done += n;
                progress(done, refs.len());
            })?;
            let heads: Vec<&str> = prepared.heading_texts.iter().map(String::as_str).collect();
            let headings = enc.embed_many(&heads, Role::Passage, opts.batch_size, |_| {})?;
            Some(Embeddings { encoder: enc.id().clone(), chunks: vecs, headings })
        }
        None => None,
    };
    let mut bundle = finish(prepared, vectors, opts);
    if let Some(enc) = encoder {
        bundle.term_vectors = term_vectors(&bundle, enc, opts.batch_size)?;
    }
    Ok(bundle)
}

/// The course terms' vectors ([`crate::retrieve::meanings`]) from its sections' text and
/// headings, when `encoder` is multilingual.
pub fn term_vectors(bundle: &Bundle, encoder: &SentenceEncoder, batch_size: usize) -> Result<Option<crate::retrieve::meanings::TermVectors>, EncoderError> {
    let texts = bundle.sections.iter().flat_map(|s| std::iter::once(s.text.as_str()).chain(s.heading_path.iter().map(String::as_str)));
    crate::retrieve::meanings::build(texts, &bundle.bm25, encoder, |words| encoder.embed_many(words, Role::Query, batch_size, |_| {}))
}
