//! Building the curriculum index: outline (section tree), COPE chunks, BM25, vectors.
//!
//! Architecture invariant: this module is pure computation over [`crate::corpus::Document`]s;
//! reading files is the builder's job, and the result is stored as a [`crate::bundle::Bundle`].

pub mod chunk;
pub mod outline;
pub mod predict;

pub use chunk::{Chunk, ChunkConfig, Tier, TierWindow};
pub use outline::{Section, SectionKind};
pub mod build;
