//! Markdown (CommonMark with tables, strikethrough and definition lists) via pulldown-cmark.

use inference::corpus::{Block, BlockKind};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::LineIndex;

/// Containers that change how the text inside them is classified.
#[derive(Clone, Copy, PartialEq)]
enum Container {
    Item,
    Quote,
    /// `<dt>`/`<dd>` of a definition list.
    Term,
    Definition,
}

/// A block being accumulated.
enum Leaf {
    /// Inline text; its kind is decided by the enclosing containers when it is flushed.
    Text,
    Heading(u8),
    Code,
    Table {
        rows: Vec<String>,
        row: Vec<String>,
    },
}

struct Builder {
    blocks: Vec<Block>,
    containers: Vec<Container>,
    leaf: Option<(Leaf, u32)>,
    buf: String,
    /// A definition list's current term, waiting for its definition.
    term: Option<(String, u32)>,
}

pub fn parse(source: &str) -> Vec<Block> {
    let lines = LineIndex::new(source);
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_DEFINITION_LIST;
    let mut b = Builder {
        blocks: Vec::new(),
        containers: Vec::new(),
        leaf: None,
        buf: String::new(),
        term: None,
    };
    for (event, range) in Parser::new_ext(source, options).into_offset_iter() {
        let line = lines.line(range.start);
        match event {
            Event::Start(tag) => b.start(tag, line),
            Event::End(tag) => b.end(tag),
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                b.text(&t, line)
            }
            Event::SoftBreak => b.text(" ", line),
            Event::HardBreak => b.text("\n", line),
            Event::Rule => b.flush(),
            Event::Html(_)
            | Event::InlineHtml(_)
            | Event::FootnoteReference(_)
            | Event::TaskListMarker(_) => {}
        }
    }
    b.flush();
    b.blocks
}

impl Builder {
    fn start(&mut self, tag: Tag, line: u32) {
        match tag {
            Tag::Paragraph => {
                // Paragraphs inside an item, quote or definition join the text already there.
                if self.containers.is_empty() {
                    self.flush();
                } else if !self.buf.is_empty() {
                    self.buf.push('\n');
                }
            }
            Tag::Heading { level, .. } => {
                self.flush();
                self.leaf = Some((Leaf::Heading(heading_level(level)), line));
            }
            Tag::CodeBlock(_) => {
                self.flush();
                self.leaf = Some((Leaf::Code, line));
            }
            Tag::Table(_) => {
                self.flush();
                self.leaf = Some((
                    Leaf::Table {
                        rows: Vec::new(),
                        row: Vec::new(),
                    },
                    line,
                ));
            }
            Tag::TableCell => self.buf.clear(),
            Tag::Item
            | Tag::BlockQuote(_)
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition => {
                self.flush();
                self.containers.push(match tag {
                    Tag::Item => Container::Item,
                    Tag::BlockQuote(_) => Container::Quote,
                    Tag::DefinitionListTitle => Container::Term,
                    _ => Container::Definition,
                });
                self.leaf = Some((Leaf::Text, line));
            }
            Tag::List(_) | Tag::DefinitionList | Tag::FootnoteDefinition(_) | Tag::HtmlBlock => {
                self.flush()
            }
            Tag::MetadataBlock(_) => {}
            _ => {} // inline tags: their text arrives as Text events
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph if self.containers.is_empty() => {
                self.flush();
            }
            TagEnd::Heading(_) | TagEnd::CodeBlock | TagEnd::Table => self.flush(),
            TagEnd::TableCell => {
                let cell = super::collapse_ws(&std::mem::take(&mut self.buf));
                if let Some((Leaf::Table { row, .. }, _)) = &mut self.leaf {
                    row.push(cell);
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some((Leaf::Table { rows, row }, _)) = &mut self.leaf {
                    rows.push(std::mem::take(row).join(" | "));
                }
            }
            TagEnd::Item
            | TagEnd::BlockQuote(_)
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition => {
                self.flush();
                self.containers.pop();
            }
            TagEnd::DefinitionList => {
                // A term without a definition is still worth keeping.
                if let Some((term, line)) = self.term.take() {
                    self.blocks
                        .push(Block::new(BlockKind::Definition, term, line));
                }
            }
            _ => {}
        }
    }

    fn text(&mut self, text: &str, line: u32) {
        if self.leaf.is_none() {
            self.leaf = Some((Leaf::Text, line));
        }
        self.buf.push_str(text);
    }

    /// Emits the block being accumulated, if any.
    fn flush(&mut self) {
        let Some((leaf, line)) = self.leaf.take() else {
            return;
        };
        let text = std::mem::take(&mut self.buf);
        let (kind, text) = match leaf {
            Leaf::Heading(level) => (BlockKind::Heading(level), super::collapse_ws(&text)),
            Leaf::Code => (BlockKind::Code, text.trim_end_matches('\n').to_string()),
            Leaf::Table { rows, .. } => (BlockKind::Table, rows.join("\n")),
            Leaf::Text => {
                let text = text
                    .lines()
                    .map(super::collapse_ws)
                    .filter(|l| !l.is_empty())
                    .collect::<Vec<_>>()
                    .join("\n");
                if text.is_empty() {
                    // An item or quote whose text is all in nested blocks: keep the line
                    // for whatever text follows in the same container.
                    if !self.containers.is_empty() {
                        self.leaf = Some((Leaf::Text, line));
                    }
                    return;
                }
                match self.containers.last() {
                    Some(Container::Term) => {
                        self.term = Some((text, line));
                        return;
                    }
                    Some(Container::Definition) => {
                        let (text, line) = match self.term.take() {
                            Some((term, term_line)) => (format!("{term}: {text}"), term_line),
                            None => (text, line),
                        };
                        self.blocks
                            .push(Block::new(BlockKind::Definition, text, line));
                        return;
                    }
                    Some(Container::Item) => (BlockKind::ListItem, text),
                    _ if self.containers.contains(&Container::Quote) => (BlockKind::Aside, text),
                    _ => (BlockKind::Paragraph, text),
                }
            }
        };
        self.blocks.push(Block::new(kind, text, line));
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BlockKind::*;

    fn kinds(blocks: &[Block]) -> Vec<(BlockKind, &str, u32)> {
        blocks
            .iter()
            .map(|b| (b.kind, b.text.as_str(), b.line))
            .collect()
    }

    #[test]
    fn structure() {
        let src = "\
# Loops

Python has *two* loops: `for` and
[while](https://example.com).

Setext title
------------

```python
for i in range(3):
    print(i)
```

    indented code
      keeps indentation

| a | b |
|---|---|
| 1 | `x` |

- first item
  continues
- second item

  with two paragraphs

> A quote
> over two lines.

### Deep
";
        let blocks = parse(src);
        assert_eq!(
            kinds(&blocks),
            vec![
                (Heading(1), "Loops", 1),
                (Paragraph, "Python has two loops: for and while.", 3),
                (Heading(2), "Setext title", 6),
                (Code, "for i in range(3):\n    print(i)", 9),
                (Code, "indented code\n  keeps indentation", 14),
                (Table, "a | b\n1 | x", 17),
                (ListItem, "first item continues", 21),
                (ListItem, "second item\nwith two paragraphs", 23),
                (Aside, "A quote over two lines.", 27),
                (Heading(3), "Deep", 30),
            ]
        );
    }

    #[test]
    fn nested_lists_and_code_in_items() {
        let src = "1. outer\n   - inner\n2. code:\n\n   ```\n   x = 1\n   ```\n";
        let blocks = parse(src);
        assert_eq!(
            kinds(&blocks),
            vec![
                (ListItem, "outer", 1),
                (ListItem, "inner", 2),
                (ListItem, "code:", 3),
                (Code, "x = 1", 5)
            ]
        );
    }

    #[test]
    fn definition_list() {
        let src = "Variable\n: A named value.\n\nLoop\n: Repetition.\n";
        let blocks = parse(src);
        assert_eq!(
            kinds(&blocks),
            vec![
                (Definition, "Variable: A named value.", 1),
                (Definition, "Loop: Repetition.", 4)
            ]
        );
    }

    #[test]
    fn bengali() {
        let src = "# অধ্যায় ১: পাইথন পরিচিতি\n\nপাইথন একটি সহজ প্রোগ্রামিং ভাষা।\nএটি শেখা সহজ।\n\n## চলক\n\nচলক হলো একটি নাম।\n";
        let blocks = parse(src);
        assert_eq!(
            kinds(&blocks),
            vec![
                (Heading(1), "অধ্যায় ১: পাইথন পরিচিতি", 1),
                (Paragraph, "পাইথন একটি সহজ প্রোগ্রামিং ভাষা। এটি শেখা সহজ।", 3),
                (Heading(2), "চলক", 6),
                (Paragraph, "চলক হলো একটি নাম।", 8),
            ]
        );
    }
}
