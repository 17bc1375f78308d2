//! Recovering the hierarchy (chapter ▸ section ▸ subsection) from heading blocks.

use crate::corpus::{BlockKind, Document};
use serde::{Deserialize, Serialize};

/// One node of the course hierarchy with the text that belongs to it directly
/// (not to its subsections).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Section {
    pub id: u32,
    /// Source file relative to the input root.
    pub file: String,
    /// Headings from the chapter down to this section, e.g. `["Errors and Exceptions", "Handling Exceptions"]`.
    pub heading_path: Vec<String>,
    pub kind: SectionKind,
    pub parent: Option<u32>,
    pub children: Vec<u32>,
    /// Body text: blocks joined by blank lines; code keeps its layout.
    pub text: String,
    /// Byte ranges of the blocks in `text`, with whether each must stay whole and its source line.
    pub blocks: Vec<BlockSpan>,
    /// Source line of the heading (or first block).
    pub line: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockSpan {
    pub start: u32,
    pub end: u32,
    pub atomic: bool,
    pub line: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SectionKind {
    Chapter,
    Section,
    Exercise,
}

impl Section {
    /// The section's own heading.
    pub fn heading(&self) -> &str {
        self.heading_path.last().map(String::as_str).unwrap_or("")
    }

    /// Depth in the hierarchy: 1 for a chapter.
    pub fn depth(&self) -> usize {
        self.heading_path.len()
    }
}

const EXERCISE_WORDS: &[&str] = &["exercise", "exercises", "অনুশীলনী", "অনুশীলন", "প্রশ্ন"];
/// Words that name an exercise section only when the heading says nothing else ("Problems",
/// "Practice problems"; not "Common Problems" of the regex HOWTO, "Using DLLs in Practice").
const EXERCISE_ONLY_WORDS: &[&str] = &["problems", "problem", "practice", "review", "questions"];

fn is_exercise(heading: &str) -> bool {
    let words = crate::text::words(&heading.to_lowercase());
    let content: Vec<&String> = words.iter().filter(|w| !crate::text::is_stopword(w) && !w.chars().all(|c| c.is_ascii_digit() || c == '.')).collect();
    words.iter().any(|w| EXERCISE_WORDS.contains(&w.as_str()))
        || !content.is_empty() && content.iter().all(|w| EXERCISE_ONLY_WORDS.contains(&w.as_str()))
}

/// Turn documents into a flat, parent-linked list of sections, in reading order.
///
/// Each document becomes one chapter. Its first heading is the chapter title (or the file name
/// when the file has none); deeper headings nest by level, and a heading that skips levels
/// nests under the nearest shallower one.
pub fn outline(documents: &[Document]) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    for doc in documents {
        outline_document(doc, &mut sections);
    }
    sections
}

fn outline_document(doc: &Document, sections: &mut Vec<Section>) {
    // Stack of (heading level, section id) from the chapter down.
    let mut stack: Vec<(u8, u32)> = Vec::new();
    let mut blocks = doc.blocks.iter().peekable();

    let chapter_title = match blocks.peek() {
        Some(b) if matches!(b.kind, BlockKind::Heading(_)) => {
            let b = blocks.next().expect("peeked");
            let BlockKind::Heading(level) = b.kind else { unreachable!() };
            (b.text.trim().to_string(), level, b.line)
        }
        _ => (title_from_file(&doc.file), 0, 1),
    };
    let chapter = new_section(sections, doc, vec![chapter_title.0], None, chapter_title.2);
    stack.push((chapter_title.1, chapter));

    for block in blocks {
        match block.kind {
            BlockKind::Heading(level) => {
                // Pop to the nearest shallower heading; the chapter always stays.
                while stack.len() > 1 && stack.last().expect("non-empty").0 >= level {
                    stack.pop();
                }
                let parent = stack.last().expect("chapter stays").1;
                let mut path = sections[parent as usize].heading_path.clone();
                path.push(block.text.trim().to_string());
                let id = new_section(sections, doc, path, Some(parent), block.line);
                sections[parent as usize].children.push(id);
                stack.push((level, id));
            }
            _ => {
                let text = block.text.trim_end();
                if text.trim().is_empty() {
                    continue;
                }
                let id = stack.last().expect("chapter stays").1;
                let section = &mut sections[id as usize];
                if !section.text.is_empty() {
                    section.text.push_str("\n\n");
                }
                let start = section.text.len() as u32;
                section.text.push_str(text);
                section.blocks.push(BlockSpan {
                    start,
                    end: section.text.len() as u32,
                    atomic: block.kind.is_atomic(),
                    line: block.line,
                });
            }
        }
    }
}

fn new_section(sections: &mut Vec<Section>, doc: &Document, heading_path: Vec<String>, parent: Option<u32>, line: u32) -> u32 {
    let id = sections.len() as u32;
    let kind = if parent.is_none() {
        SectionKind::Chapter
    } else if is_exercise(heading_path.last().expect("non-empty path")) {
        SectionKind::Exercise
    } else {
        SectionKind::Section
    };
    sections.push(Section {
        id,
        file: doc.file.clone(),
        heading_path,
        kind,
        parent,
        children: Vec::new(),
        text: String::new(),
        blocks: Vec::new(),
        line,
    });
    id
}

/// `tutorial/errors.rst.txt` → `errors`.
fn title_from_file(file: &str) -> String {
    let name = file.rsplit('/').next().unwrap_or(file);
    name.split('.').next().unwrap_or(name).replace(['_', '-'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Block;

    #[test]
    fn exercise_headings_are_told_from_teaching_ones_that_name_problems() {
        for h in ["Exercises", "Exercise 3", "Practice problems", "Problems", "12.3 Problems", "Review questions", "অনুশীলনী", "সৃজনশীল প্রশ্ন"] {
            assert!(is_exercise(h), "{h}");
        }
        for h in ["Common Problems", "Using DLLs in Practice", "Problems with floating point", "Lists"] {
            assert!(!is_exercise(h), "{h}");
        }
    }

    fn doc(blocks: Vec<Block>) -> Document {
        Document { file: "ch/intro.md".into(), blocks }
    }

    #[test]
    fn nests_by_level_and_skips() {
        let d = doc(vec![
            Block::new(BlockKind::Heading(1), "Intro", 1),
            Block::new(BlockKind::Paragraph, "Chapter text.", 2),
            Block::new(BlockKind::Heading(2), "Variables", 3),
            Block::new(BlockKind::Heading(4), "Names", 4),
            Block::new(BlockKind::Code, "x = 1", 5),
            Block::new(BlockKind::Heading(2), "Exercises", 6),
        ]);
        let s = outline(&[d]);
        assert_eq!(s.len(), 4);
        assert_eq!(s[0].heading_path, vec!["Intro"]);
        assert_eq!(s[0].text, "Chapter text.");
        assert_eq!(s[2].heading_path, vec!["Intro", "Variables", "Names"]);
        assert_eq!(s[2].parent, Some(1));
        assert!(s[2].blocks[0].atomic);
        assert_eq!(s[3].parent, Some(0));
        assert_eq!(s[3].kind, SectionKind::Exercise);
        assert_eq!(s[0].children, vec![1, 3]);
    }

    #[test]
    fn headless_file_takes_its_name() {
        let d = doc(vec![Block::new(BlockKind::Paragraph, "Just text.", 1)]);
        let s = outline(&[d]);
        assert_eq!(s[0].heading_path, vec!["intro"]);
        assert_eq!(s[0].kind, SectionKind::Chapter);
    }
}
