pub mod ask;
pub mod build;
pub mod generate;
pub mod hnsw_recall;
pub mod info;
pub mod sandbox;
pub mod search;
pub mod tutor_eval;
