//! One component per file; props are data plus callbacks, none touches the store.

pub mod answer;
pub mod author;
pub mod ask;
pub mod book;
pub mod code;
pub mod find;
pub mod quiz;
pub mod status;
pub mod storage;
