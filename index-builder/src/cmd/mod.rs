pub mod build;
pub mod info;
pub mod search;
