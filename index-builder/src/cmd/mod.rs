pub mod build;
pub mod hnsw_recall;
pub mod info;
pub mod sandbox;
pub mod search;
