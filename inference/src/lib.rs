//! Pathshala's answering library: course bundle, retrieval and models. No UI.
//!
//! See ARCHITECTURE.md at the repository root for the map.

pub mod agent;
pub mod bm25;
pub mod bundle;
pub mod corpus;
pub mod device;
pub mod embed;
pub mod gguf;
pub mod index;
pub mod kernels;
pub mod llm;
pub mod model;
pub mod retrieve;
#[cfg(feature = "sandbox")]
pub mod sandbox;
pub mod text;
pub mod vector;
