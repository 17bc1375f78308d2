//! Constrained decoding: outputs that always parse as JSON of a given schema.
//!
//! [`Schema`] compiles a JSON Schema subset; [`JsonDecoder`] (one per vocabulary) masks, at each
//! step, every token whose bytes would not keep the output a completable prefix, and forces the
//! shortest completion when the token budget runs short, so the result always parses.

mod automaton;
mod json;
mod schema;
mod trie;

pub use automaton::JsonState;
pub use json::{JsonConstraint, JsonDecoder, JsonError, JsonOutput};
pub use schema::{MAX_ALTERNATIVES, MAX_DEPTH, Schema, SchemaError};
pub use trie::TokenTrie;
