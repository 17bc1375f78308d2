//! The parsed form of course files, before indexing.
//!
//! Every ingest format (Markdown, reStructuredText, HTML, PDF, plain text) is turned into a
//! [`Document`]: a flat list of [`Block`]s in reading order. Headings are blocks too; the
//! hierarchy (book ▸ chapter ▸ section ▸ subsection) is recovered from them by
//! [`crate::index::outline`].
//!
//! Architecture invariant: nothing here does IO or knows a file format.

use serde::{Deserialize, Serialize};

/// One course file, parsed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// Path relative to the input root, with `/` separators (e.g. `faq/programming.rst.txt`).
    pub file: String,
    /// Blocks in reading order. Text is NFC-normalised and has no markup left except code.
    pub blocks: Vec<Block>,
}

/// A unit of content that chunking never splits in the middle when it can avoid it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Block {
    pub kind: BlockKind,
    /// Plain text. Code keeps its exact lines and indentation.
    pub text: String,
    /// 1-based line in the source file where the block starts (page number for PDF).
    pub line: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BlockKind {
    /// A heading; `1` is a chapter title, larger numbers are deeper.
    Heading(u8),
    Paragraph,
    /// A code or literal block. Never split.
    Code,
    /// A table rendered as text rows. Never split.
    Table,
    /// One list item (bullets and numbers removed).
    ListItem,
    /// A term and its definition, `term: definition`. Never split.
    Definition,
    /// A note, warning, quote or other aside.
    Aside,
}

impl BlockKind {
    /// Blocks that must stay whole inside one chunk.
    pub fn is_atomic(self) -> bool {
        matches!(self, BlockKind::Code | BlockKind::Table | BlockKind::Definition)
    }
}

impl Block {
    pub fn new(kind: BlockKind, text: impl Into<String>, line: u32) -> Self {
        Block { kind, text: text.into(), line }
    }
}
