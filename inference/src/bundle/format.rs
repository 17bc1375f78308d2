//! Byte layout of a bundle (see the diagram in `bundle/mod.rs`).

use super::{BodyRef, BundleBody, BundleError, BundleHeader, CourseInfo};
use crate::embed::EncoderId;
use crate::index::ChunkConfig;
use serde::Deserialize;

/// Format 1's header: [`BundleHeader`] without `course`.
#[derive(Deserialize)]
struct HeaderV1 {
    title: String,
    builder_version: String,
    encoder: Option<EncoderId>,
    corpus_checksum: String,
    embed_mode: String,
    chunk_config: ChunkConfig,
    files: u32,
    sections: u32,
    chunks: u32,
}

impl From<HeaderV1> for BundleHeader {
    fn from(h: HeaderV1) -> BundleHeader {
        let HeaderV1 { title, builder_version, encoder, corpus_checksum, embed_mode, chunk_config, files, sections, chunks } = h;
        BundleHeader { title, builder_version, encoder, corpus_checksum, embed_mode, chunk_config, files, sections, chunks, course: CourseInfo::default() }
    }
}

fn decode_header<H: serde::de::DeserializeOwned + Into<BundleHeader>>(raw: &[u8]) -> Result<BundleHeader, BundleError> {
    let (header, used) = bincode::serde::decode_from_slice::<H, _>(raw, config()).map_err(|e| BundleError::Decode(format!("header: {e}")))?;
    if used != raw.len() {
        return Err(BundleError::Decode("header has trailing bytes".into()));
    }
    Ok(header.into())
}

/// Formats 1 and 2's payload: [`BundleBody`] without `predictions`.
#[derive(Deserialize)]
struct BodyV2 {
    sections: Vec<crate::index::Section>,
    chunks: Vec<crate::index::Chunk>,
    bm25: crate::bm25::Bm25Index,
    vectors: Option<crate::vector::VectorIndex>,
    heading_vectors: Option<Vec<f32>>,
}

impl From<BodyV2> for BundleBody {
    fn from(b: BodyV2) -> BundleBody {
        let BodyV2 { sections, chunks, bm25, vectors, heading_vectors } = b;
        BundleBody { sections, chunks, bm25, vectors, heading_vectors, predictions: Vec::new(), term_vectors: None }
    }
}

/// Formats 3 and 4's payload: [`BundleBody`] without `term_vectors`.
#[derive(Deserialize)]
struct BodyV4 {
    sections: Vec<crate::index::Section>,
    chunks: Vec<crate::index::Chunk>,
    bm25: crate::bm25::Bm25Index,
    vectors: Option<crate::vector::VectorIndex>,
    heading_vectors: Option<Vec<f32>>,
    predictions: Vec<crate::index::predict::Prediction>,
}

impl From<BodyV4> for BundleBody {
    fn from(b: BodyV4) -> BundleBody {
        let BodyV4 { sections, chunks, bm25, vectors, heading_vectors, predictions } = b;
        BundleBody { sections, chunks, bm25, vectors, heading_vectors, predictions, term_vectors: None }
    }
}

fn decode_body<B: serde::de::DeserializeOwned + Into<BundleBody>>(payload: &[u8]) -> Result<BundleBody, BundleError> {
    let (body, used) = bincode::serde::decode_from_slice::<B, _>(payload, config()).map_err(|e| BundleError::Decode(format!("payload: {e}")))?;
    if used != payload.len() {
        return Err(BundleError::Decode("trailing bytes after the payload".into()));
    }
    Ok(body.into())
}

pub const MAGIC: [u8; 8] = *b"PTSHALA\0";
/// Bumped whenever the header's or the payload's layout or meaning changes. 2: the header's
/// `course` (subjects and language). 3: the payload's `predictions`. 4: a prediction may have
/// fewer wrong outputs than a "what does Python show?" item's three (one stated misreading is
/// enough for a "why" or "judge" item or a creative question; same layout as 3). 5: the
/// payload's `term_vectors`.
pub const FORMAT_VERSION: u32 = 5;
/// Oldest format this code still reads.
pub const OLDEST_SUPPORTED_VERSION: u32 = 1;

/// Decoding never allocates more than this, whatever lengths a corrupt file claims.
const DECODE_LIMIT: usize = 1 << 31;

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<DECODE_LIMIT>()
}

pub(super) fn write(header: &BundleHeader, body: &BodyRef<'_>) -> Result<Vec<u8>, BundleError> {
    let header = bincode::serde::encode_to_vec(header, config()).map_err(|e| BundleError::Encode(e.to_string()))?;
    let payload = bincode::serde::encode_to_vec(body, config()).map_err(|e| BundleError::Encode(e.to_string()))?;
    let mut out = Vec::with_capacity(28 + header.len() + payload.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: u64, what: &'static str) -> Result<&'a [u8], BundleError> {
        let available = (self.bytes.len() - self.pos) as u64;
        if n > available {
            return Err(BundleError::Truncated { what, needed: n, available });
        }
        let n = n as usize;
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, BundleError> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().expect("4 bytes")))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, BundleError> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into().expect("8 bytes")))
    }
}

fn header_and_rest(bytes: &[u8]) -> Result<(BundleHeader, Body<'_>), BundleError> {
    let mut cur = Cursor { bytes, pos: 0 };
    let magic = cur.take(8, "the magic bytes").map_err(|_| BundleError::NotABundle)?;
    if magic != MAGIC {
        return Err(BundleError::NotABundle);
    }
    let version = cur.u32("the format version")?;
    if version > FORMAT_VERSION {
        return Err(BundleError::TooNew { found: version, supported: FORMAT_VERSION });
    }
    if version < OLDEST_SUPPORTED_VERSION {
        return Err(BundleError::TooOld { found: version, oldest: OLDEST_SUPPORTED_VERSION });
    }
    let len = cur.u32("the header length")?;
    let raw = cur.take(len as u64, "the header")?;
    let header = match version {
        1 => decode_header::<HeaderV1>(raw)?,
        _ => decode_header::<BundleHeader>(raw)?,
    };
    Ok((header, Body { cur, version }))
}

/// What follows the header, and the format it is in.
struct Body<'a> {
    cur: Cursor<'a>,
    version: u32,
}

/// Read only the header: what the bundle is, without decoding its index.
pub fn read_header(bytes: &[u8]) -> Result<BundleHeader, BundleError> {
    header_and_rest(bytes).map(|(h, _)| h)
}

pub(super) fn read(bytes: &[u8]) -> Result<(BundleHeader, BundleBody), BundleError> {
    let (header, Body { mut cur, version }) = header_and_rest(bytes)?;
    let len = cur.u64("the payload length")?;
    let stored = cur.u32("the payload checksum")?;
    let payload = cur.take(len, "the payload")?;
    let computed = crc32fast::hash(payload);
    if stored != computed {
        return Err(BundleError::Checksum { stored, computed });
    }
    let body = match version {
        1 | 2 => decode_body::<BodyV2>(payload)?,
        3 | 4 => decode_body::<BodyV4>(payload)?,
        _ => decode_body::<BundleBody>(payload)?,
    };
    if cur.pos != bytes.len() {
        return Err(BundleError::Decode("trailing bytes after the payload".into()));
    }
    Ok((header, body))
}
