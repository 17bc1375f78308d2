//! The course bundle: one versioned file holding the whole curriculum index.
//!
//! The same type is written by `index-builder build` and read by the app.
//!
//! ```text
//! offset  size  field
//! 0       8     magic  b"PTSHALA\0"
//! 8       4     format version, u32 LE
//! 12      4     header length H, u32 LE
//! 16      H     header, bincode (BundleHeader: builder version, encoder id + sha256, corpus checksum, counts)
//! 16+H    8     payload length P, u64 LE
//! 24+H    4     payload crc32, u32 LE
//! 28+H    P     payload, bincode (sections, chunks, BM25 postings, HNSW vectors)
//! ```
//!
//! The header is readable on its own (to show what a bundle is before loading it); the payload is
//! checked against its crc32 before it is decoded, and every cross-reference is validated after,
//! so a corrupt file is an error, never a panic.

mod error;
mod format;

pub use error::BundleError;
pub use format::{FORMAT_VERSION, MAGIC, OLDEST_SUPPORTED_VERSION, read_header};

use crate::bm25::Bm25Index;
use crate::embed::EncoderId;
use crate::index::predict::Prediction;
use crate::index::{Chunk, ChunkConfig, Section};
use crate::retrieve::meanings::TermVectors;
use crate::vector::VectorIndex;
use serde::{Deserialize, Serialize};

/// What a bundle is, readable without decoding the payload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BundleHeader {
    pub title: String,
    /// `index-builder` version that wrote the bundle.
    pub builder_version: String,
    /// The sentence encoder whose vectors the bundle holds (`None`: lexical search only).
    pub encoder: Option<EncoderId>,
    /// Hex sha256 over the sorted input files (path and bytes): same course in, same checksum.
    pub corpus_checksum: String,
    /// Text embedded for each chunk: see [`crate::index::build::EmbedMode`].
    pub embed_mode: String,
    pub chunk_config: ChunkConfig,
    pub files: u32,
    pub sections: u32,
    pub chunks: u32,
    /// What the course teaches and in which language (format 2; empty in format 1 bundles).
    pub course: CourseInfo,
}

/// The course's subjects and language, as its teacher declared them (`index-builder build
/// --subject … --lang …`): the router judges messages against the subjects, not against what the
/// book happens to cover.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CourseInfo {
    /// e.g. "introductory Python programming", "school science (Class 8)".
    pub subjects: Vec<String>,
    /// The course's language: `"en"`, `"bn"` (None: not declared).
    pub lang: Option<String>,
}

/// The decoded payload.
#[derive(Debug, Serialize, Deserialize)]
pub struct BundleBody {
    pub sections: Vec<Section>,
    pub chunks: Vec<Chunk>,
    pub bm25: Bm25Index,
    pub vectors: Option<VectorIndex>,
    /// One unit vector per section heading (flattened, sections × dim), when embedded.
    pub heading_vectors: Option<Vec<f32>>,
    /// "What does Python show?" questions from the course's sessions (format 3; empty before,
    /// and for a course without Python sessions; from format 4 also lines with fewer wrong
    /// outputs, for "why" and "judge" items): [`crate::index::predict`].
    pub predictions: Vec<Prediction>,
    /// One 8-bit vector per course term, for matching a question's words across scripts by
    /// meaning (format 5; built with a multilingual encoder only): [`crate::retrieve::meanings`].
    pub term_vectors: Option<TermVectors>,
}

/// A loaded course: header plus index, ready for retrieval.
#[derive(Debug)]
pub struct Bundle {
    pub header: BundleHeader,
    pub sections: Vec<Section>,
    pub chunks: Vec<Chunk>,
    pub bm25: Bm25Index,
    pub vectors: Option<VectorIndex>,
    /// One unit vector per section heading (flattened, sections × dim), when embedded.
    pub heading_vectors: Option<Vec<f32>>,
    /// "What does Python show?" questions checked by running them: [`crate::index::predict`].
    pub predictions: Vec<Prediction>,
    /// The course's terms as the encoder places them: [`crate::retrieve::meanings`].
    pub term_vectors: Option<TermVectors>,
    /// [`Bundle::newest_version`], read from the text when first asked for (not stored).
    newest_version: std::sync::OnceLock<Option<crate::retrieve::coverage::Version>>,
    /// [`Bundle::sounds`], built from the BM25 vocabulary when first asked for (not stored).
    sounds: std::sync::OnceLock<crate::retrieve::sounds::SoundIndex>,
}

impl Bundle {
    /// A bundle from its parts.
    pub fn new(header: BundleHeader, body: BundleBody) -> Bundle {
        let BundleBody { sections, chunks, bm25, vectors, heading_vectors, predictions, term_vectors } = body;
        Bundle { header, sections, chunks, bm25, vectors, heading_vectors, predictions, term_vectors, newest_version: std::sync::OnceLock::new(), sounds: std::sync::OnceLock::new() }
    }

    /// The newest software release the course documents: a question about a later one is not
    /// covered. Scans the sections' text once, on the first question rather than at load.
    pub fn newest_version(&self) -> Option<crate::retrieve::coverage::Version> {
        *self.newest_version.get_or_init(|| crate::retrieve::coverage::newest_documented_version(self.sections.iter().map(|s| s.text.as_str())))
    }

    /// The course's Bengali terms by sound, for questions typed in Latin letters (empty for a
    /// course without Bengali). Built from the vocabulary on the first question.
    pub fn sounds(&self) -> &crate::retrieve::sounds::SoundIndex {
        self.sounds.get_or_init(|| crate::retrieve::sounds::SoundIndex::new(self.bm25.terms()))
    }

    /// Serialise to the on-disk form.
    pub fn to_bytes(&self) -> Result<Vec<u8>, BundleError> {
        format::write(&self.header, &BodyRef {
            sections: &self.sections,
            chunks: &self.chunks,
            bm25: &self.bm25,
            vectors: self.vectors.as_ref(),
            heading_vectors: self.heading_vectors.as_deref(),
            predictions: &self.predictions,
            term_vectors: self.term_vectors.as_ref(),
        })
    }

    /// Parse and validate a bundle. Never panics on bad input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, BundleError> {
        let (header, body) = format::read(bytes)?;
        let mut bundle = Bundle::new(header, body);
        bundle.bm25.rebuild_lookup();
        if let Some(v) = bundle.vectors.as_mut() {
            v.rebuild_lookup();
        }
        bundle.validate()?;
        Ok(bundle)
    }

    /// Refuse to search a bundle's vectors with a different encoder than the one that made them.
    pub fn check_encoder(&self, encoder: &EncoderId) -> Result<(), BundleError> {
        match &self.header.encoder {
            Some(e) if e.sha256 == encoder.sha256 && e.dim == encoder.dim => Ok(()),
            Some(e) => Err(BundleError::EncoderMismatch {
                bundle: format!("{} ({}…)", e.name, &e.sha256[..e.sha256.len().min(12)]),
                loaded: format!("{} ({}…)", encoder.name, &encoder.sha256[..encoder.sha256.len().min(12)]),
            }),
            None => Err(BundleError::NoVectors),
        }
    }

    /// The embedding of a section's heading, when the bundle has them.
    pub fn heading_vector(&self, section: u32) -> Option<&[f32]> {
        let dim = self.vectors.as_ref()?.dim;
        let start = section as usize * dim;
        self.heading_vectors.as_ref()?.get(start..start + dim)
    }

    pub fn chunk_text(&self, chunk: u32) -> &str {
        self.chunks[chunk as usize].text(&self.sections)
    }

    pub fn section_of(&self, chunk: u32) -> &Section {
        &self.sections[self.chunks[chunk as usize].section as usize]
    }

    /// Whether `section` is `root` or lies under it in the outline.
    pub fn section_within(&self, section: u32, root: u32) -> bool {
        let mut at = Some(section);
        while let Some(s) = at {
            if s == root {
                return true;
            }
            at = self.sections.get(s as usize).and_then(|x| x.parent);
        }
        false
    }

    /// Other chunks with the same parent; for top-tier chunks, the section's other top-tier chunks.
    pub fn siblings(&self, chunk: u32) -> Vec<u32> {
        let c = &self.chunks[chunk as usize];
        match c.parent {
            Some(p) => self.chunks[p as usize].children.iter().copied().filter(|&s| s != chunk).collect(),
            None => self
                .chunks
                .iter()
                .filter(|o| o.section == c.section && o.parent.is_none() && o.id != chunk)
                .map(|o| o.id)
                .collect(),
        }
    }

    fn validate(&self) -> Result<(), BundleError> {
        let bad = |what: String| Err(BundleError::Invalid(what));
        let (ns, nc) = (self.sections.len(), self.chunks.len());
        if self.header.sections as usize != ns || self.header.chunks as usize != nc {
            return bad(format!("header counts {} sections / {} chunks, payload has {ns} / {nc}", self.header.sections, self.header.chunks));
        }
        for (i, s) in self.sections.iter().enumerate() {
            if s.id as usize != i || s.heading_path.is_empty() {
                return bad(format!("section {i} is malformed"));
            }
            if s.parent.is_some_and(|p| p as usize >= ns) || s.children.iter().any(|&c| c as usize >= ns) {
                return bad(format!("section {i} links outside the bundle"));
            }
            for b in &s.blocks {
                if !(b.start <= b.end && s.text.is_char_boundary(b.start as usize) && s.text.is_char_boundary(b.end as usize) && (b.end as usize) <= s.text.len()) {
                    return bad(format!("section {i} has a block outside its text"));
                }
            }
        }
        for (i, c) in self.chunks.iter().enumerate() {
            let in_range = |x: Option<u32>| x.is_none_or(|x| (x as usize) < nc);
            if c.id as usize != i || c.section as usize >= ns || !in_range(c.parent) || !in_range(c.prev) || !in_range(c.next) || c.children.iter().any(|&x| x as usize >= nc) {
                return bad(format!("chunk {i} links outside the bundle"));
            }
            let text = &self.sections[c.section as usize].text;
            let (a, b) = (c.start as usize, c.end as usize);
            if !(a <= b && b <= text.len() && text.is_char_boundary(a) && text.is_char_boundary(b)) {
                return bad(format!("chunk {i} spans outside its section"));
            }
        }
        if self.bm25.num_docs() != nc {
            return bad(format!("BM25 indexes {} documents for {nc} chunks", self.bm25.num_docs()));
        }
        self.bm25.validate().map_err(BundleError::Invalid)?;
        if self.vectors.is_none() && self.heading_vectors.is_some() {
            return bad("heading vectors without chunk vectors".into());
        }
        if let Some(v) = &self.vectors {
            v.validate(nc).map_err(BundleError::Invalid)?;
            if self.header.encoder.as_ref().is_some_and(|e| e.dim != v.dim) {
                return bad("vector size differs from the encoder's".into());
            }
            if let Some(h) = &self.heading_vectors {
                if h.len() != ns * v.dim || h.iter().any(|x| !x.is_finite()) {
                    return bad("heading vectors do not match the sections".into());
                }
            }
        }
        if self.term_vectors.as_ref().is_some_and(|t| !t.is_consistent() || t.scales.iter().any(|x| !x.is_finite())) {
            return bad("term vectors do not match their terms".into());
        }
        for p in &self.predictions {
            let ok = self.sections.get(p.section as usize).is_some_and(|s| s.text.is_char_boundary(p.offset as usize) && (p.offset as usize) < s.text.len());
            if !ok || p.wrong.is_empty() {
                return bad(format!("a prediction question points outside section {}", p.section));
            }
        }
        Ok(())
    }
}

/// Borrowed payload for writing without cloning.
#[derive(Serialize)]
struct BodyRef<'a> {
    sections: &'a [Section],
    chunks: &'a [Chunk],
    bm25: &'a Bm25Index,
    vectors: Option<&'a VectorIndex>,
    heading_vectors: Option<&'a [f32]>,
    predictions: &'a [Prediction],
    term_vectors: Option<&'a TermVectors>,
}
