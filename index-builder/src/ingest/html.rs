//! HTML via scraper: headings, paragraphs, lists, code, tables, quotes and definition lists in
//! reading order; navigation, scripts and page chrome are skipped.

use inference::corpus::{Block, BlockKind};
use scraper::{ElementRef, Html, Node, Selector};

use super::{LineIndex, collapse_ws};

/// Elements whose content is never course text.
const SKIPPED: &[&str] = &[
    "script", "style", "nav", "header", "footer", "noscript", "template", "head", "title", "svg",
    "button", "iframe", "object", "canvas", "select", "option", "textarea", "form",
];

/// Elements that start a new line of text when flattening.
const BLOCK_LEVEL: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "aside",
    "blockquote",
    "pre",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "table",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "figure",
    "figcaption",
    "details",
    "summary",
    "hr",
    "br",
    "address",
    "center",
    "hgroup",
    "body",
    "caption",
    "fieldset",
];

pub fn parse(source: &str) -> Vec<Block> {
    let doc = Html::parse_document(source);
    let mut walker = Walker {
        blocks: Vec::new(),
        inline: String::new(),
        locator: Locator::new(source),
    };
    // The main content when the page marks it (Sphinx: `role="main"`), else the whole body.
    let main = Selector::parse(r#"main, [role="main"]"#).expect("valid selector");
    let body = Selector::parse("body").expect("valid selector");
    let root = doc
        .select(&main)
        .next()
        .or_else(|| doc.select(&body).next())
        .unwrap_or_else(|| doc.root_element());
    walker.container(root);
    walker.flush();
    let mut blocks = walker.blocks;
    if !blocks.iter().any(|b| b.kind == BlockKind::Heading(1)) {
        // No <h1>: the page title is the chapter title.
        let title = Selector::parse("title").expect("valid selector");
        if let Some(title) = doc
            .select(&title)
            .next()
            .map(|t| collapse_ws(&t.text().collect::<String>()))
            && !title.is_empty()
        {
            let line = source
                .find("<title")
                .map_or(1, |p| LineIndex::new(source).line(p));
            blocks.insert(0, Block::new(BlockKind::Heading(1), title, line));
        }
    }
    blocks
}

struct Walker<'s> {
    blocks: Vec<Block>,
    /// Loose inline text between block elements.
    inline: String,
    locator: Locator<'s>,
}

impl Walker<'_> {
    fn push(&mut self, kind: BlockKind, text: String) {
        if text.trim().is_empty() {
            return;
        }
        let line = self.locator.locate(&text);
        self.blocks.push(Block::new(kind, text, line));
    }

    /// Emits loose inline text collected so far as a paragraph.
    fn flush(&mut self) {
        let text = collapse_ws(&std::mem::take(&mut self.inline));
        self.push(BlockKind::Paragraph, text);
    }

    /// Walks the children of a container element in reading order.
    fn container(&mut self, el: ElementRef) {
        for child in el.children() {
            match child.value() {
                Node::Text(t) => self.inline.push_str(t),
                Node::Element(_) => {
                    if let Some(child) = ElementRef::wrap(child) {
                        self.element(child);
                    }
                }
                _ => {}
            }
        }
    }

    fn element(&mut self, el: ElementRef) {
        let name = el.value().name();
        if skipped(el) {
            return;
        }
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.flush();
                let level = name[1..].parse().unwrap_or(1);
                self.push(BlockKind::Heading(level), collapse_ws(&flatten(el, &[])));
            }
            "p" => {
                self.flush();
                self.push(BlockKind::Paragraph, collapse_ws(&flatten(el, &[])));
            }
            "pre" => {
                self.flush();
                let code: String = el.text().collect();
                self.push(
                    BlockKind::Code,
                    code.trim_end().trim_start_matches('\n').to_string(),
                );
            }
            "table" => {
                self.flush();
                self.push(BlockKind::Table, table(el));
            }
            "blockquote" | "aside" => {
                self.flush();
                self.push(BlockKind::Aside, flatten(el, &[]));
            }
            "ul" | "ol" | "menu" => {
                self.flush();
                self.container(el);
                self.flush();
            }
            "li" => {
                self.flush();
                // Nested lists, code and tables are blocks of their own, after the item's text.
                let nested = ["ul", "ol", "pre", "table", "dl", "blockquote"];
                self.push(BlockKind::ListItem, collapse_ws(&flatten(el, &nested)));
                for child in el.child_elements() {
                    self.nested(child, &nested);
                }
            }
            "dl" => {
                self.flush();
                self.definitions(el);
            }
            "br" => self.inline.push(' '),
            "hr" => self.flush(),
            _ if BLOCK_LEVEL.contains(&name) => {
                self.flush();
                self.container(el);
                self.flush();
            }
            // Inline elements (a, em, code, span, …): their text joins the surrounding text.
            _ => self.container(el),
        }
    }

    /// Processes descendants of `el` that are among `names` (and were left out of its text).
    fn nested(&mut self, el: ElementRef, names: &[&str]) {
        if names.contains(&el.value().name()) {
            self.element(el);
        } else if !skipped(el) {
            for child in el.child_elements() {
                self.nested(child, names);
            }
        }
    }

    /// A definition list: one `term: definition` block per group of `<dt>`s and their `<dd>`s.
    /// Nested definition lists (e.g. the methods of a class) become blocks of their own.
    fn definitions(&mut self, dl: ElementRef) {
        // HTML5 allows `<div>` wrappers around dt/dd groups.
        let items = dl.child_elements().flat_map(|c| {
            if c.value().name() == "div" {
                c.child_elements().collect()
            } else {
                vec![c]
            }
        });
        let mut terms: Vec<String> = Vec::new();
        let mut defs: Vec<ElementRef> = Vec::new();
        for item in items {
            match item.value().name() {
                "dt" => {
                    if !defs.is_empty() {
                        self.definition(&mut terms, &mut defs);
                    }
                    terms.push(collapse_ws(&flatten(item, &[])));
                }
                "dd" => defs.push(item),
                _ => {}
            }
        }
        if !terms.is_empty() || !defs.is_empty() {
            self.definition(&mut terms, &mut defs);
        }
    }

    fn definition(&mut self, terms: &mut Vec<String>, defs: &mut Vec<ElementRef>) {
        let term = std::mem::take(terms).join("; ");
        let def = defs
            .iter()
            .map(|d| flatten(*d, &["dl"]))
            .collect::<Vec<_>>()
            .join("\n");
        let text = match (term.is_empty(), def.is_empty()) {
            (false, false) => format!("{term}: {def}"),
            (false, true) => term,
            _ => def,
        };
        self.push(BlockKind::Definition, text);
        for dd in defs.drain(..) {
            for child in dd.child_elements() {
                self.nested(child, &["dl"]);
            }
        }
    }
}

/// Elements skipped entirely: [`SKIPPED`] ones, page chrome marked by ARIA roles, and
/// Sphinx's `¶` permalinks.
fn skipped(el: ElementRef) -> bool {
    let v = el.value();
    SKIPPED.contains(&v.name())
        || matches!(
            v.attr("role"),
            Some("navigation" | "banner" | "contentinfo" | "search")
        )
        || (v.name() == "a" && v.classes().any(|c| c == "headerlink"))
}

/// The text of `el` with a newline at each block-level boundary, leaving out skipped elements
/// and descendants named in `exclude`. Whitespace is collapsed except inside `<pre>`, whose
/// lines are kept as they are; blank lines are dropped.
fn flatten(el: ElementRef, exclude: &[&str]) -> String {
    fn push_collapsed(out: &mut String, text: &str) {
        for c in text.chars() {
            if !c.is_whitespace() {
                out.push(c);
            } else if !out.is_empty() && !out.ends_with([' ', '\n']) {
                out.push(' ');
            }
        }
    }
    fn walk(el: ElementRef, exclude: &[&str], out: &mut String) {
        for child in el.children() {
            match child.value() {
                Node::Text(t) => push_collapsed(out, t),
                Node::Element(e) => {
                    let Some(child) = ElementRef::wrap(child) else {
                        continue;
                    };
                    if skipped(child) || exclude.contains(&e.name()) {
                        continue;
                    }
                    let block = BLOCK_LEVEL.contains(&e.name()) || matches!(e.name(), "td" | "th");
                    if block {
                        out.push('\n');
                    }
                    if e.name() == "pre" {
                        out.push_str(child.text().collect::<String>().trim_matches('\n'));
                    } else {
                        walk(child, exclude, out);
                    }
                    if block {
                        out.push('\n');
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = String::new();
    walk(el, exclude, &mut out);
    out.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A table as text rows, cells joined by ` | `; the caption, if any, comes first.
fn table(el: ElementRef) -> String {
    let mut rows = Vec::new();
    let caption = Selector::parse("caption").expect("valid selector");
    if let Some(c) = el.select(&caption).next() {
        rows.push(collapse_ws(&flatten(c, &[])));
    }
    let tr = Selector::parse("tr").expect("valid selector");
    for row in el.select(&tr) {
        let cells: Vec<String> = row
            .child_elements()
            .filter(|c| matches!(c.value().name(), "td" | "th"))
            .map(|c| collapse_ws(&flatten(c, &[])))
            .collect();
        if !cells.is_empty() {
            rows.push(cells.join(" | "));
        }
    }
    rows.retain(|r| !r.is_empty());
    rows.join("\n")
}

/// Finds approximate source lines for blocks by searching for their first word, moving forward.
struct Locator<'s> {
    source: &'s str,
    index: LineIndex,
    cursor: usize,
    last_line: u32,
}

impl<'s> Locator<'s> {
    fn new(source: &'s str) -> Self {
        let cursor = source.find("<body").unwrap_or(0);
        let index = LineIndex::new(source);
        let last_line = index.line(cursor);
        Locator {
            source,
            index,
            cursor,
            last_line,
        }
    }

    /// Moves to the first place after the cursor where the text's first words occur close
    /// together (tags may sit between them), and returns its line; stays put if none.
    fn locate(&mut self, text: &str) -> u32 {
        let words: Vec<&str> = text
            .split_whitespace()
            .filter(|w| !w.contains(['&', '<', '>', '"', '\'']))
            .take(3)
            .collect();
        let Some(first) = words.first() else {
            return self.last_line;
        };
        // Search a window ahead only: a miss must not cost a scan of the whole page.
        let mut end = (self.cursor + 64 * 1024).min(self.source.len());
        while !self.source.is_char_boundary(end) {
            end += 1;
        }
        let rest = &self.source[self.cursor..end];
        let found = rest.match_indices(first).map(|(p, _)| p).find(|&p| {
            let mut at = p + first.len();
            words[1..].iter().all(|w| match rest[at..].find(w) {
                Some(q) if q <= 200 => {
                    at += q + w.len();
                    true
                }
                _ => false,
            })
        });
        if let Some(pos) = found {
            self.cursor += pos;
            self.last_line = self.index.line(self.cursor);
        }
        self.last_line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BlockKind::*;

    fn kinds(blocks: &[Block]) -> Vec<(BlockKind, &str)> {
        blocks.iter().map(|b| (b.kind, b.text.as_str())).collect()
    }

    #[test]
    fn structure() {
        let src = r##"<!DOCTYPE html>
<html><head><title>Loops — Course</title><style>p { color: red }</style></head>
<body>
<nav><a href="/">Home</a></nav>
<header>Site header</header>
<div class="related" role="navigation"><ul><li>index</li></ul></div>
<h1>Loops<a class="headerlink" href="#loops">¶</a></h1>
<p>Python has <em>two</em>
   loops: <code>for</code> and <a href="w">while</a>.</p>
<div>Loose text in a div.</div>
<pre><code>for i in range(3):
    print(i)
</code></pre>
<ul><li>first <b>item</b><ul><li>nested</li></ul></li><li>second</li></ul>
<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
<blockquote><p>Quoted.</p><p>Twice.</p></blockquote>
<dl><dt>term</dt><dd><p>its definition</p></dd><dt>other</dt><dd>more</dd></dl>
<h3>Deep</h3>
<script>var x = "not text";</script>
<footer>Copyright</footer>
</body></html>"##;
        let blocks = parse(src);
        assert_eq!(
            kinds(&blocks),
            vec![
                (Heading(1), "Loops"),
                (Paragraph, "Python has two loops: for and while."),
                (Paragraph, "Loose text in a div."),
                (Code, "for i in range(3):\n    print(i)"),
                (ListItem, "first item"),
                (ListItem, "nested"),
                (ListItem, "second"),
                (Table, "a | b\n1 | 2"),
                (Aside, "Quoted.\nTwice."),
                (Definition, "term: its definition"),
                (Definition, "other: more"),
                (Heading(3), "Deep"),
            ]
        );
        assert_eq!(blocks[0].line, 7);
        assert_eq!(blocks[3].line, 11);
    }

    #[test]
    fn title_when_no_h1_and_bengali() {
        let src = "<html><head><title>পাইথন পরিচিতি</title></head><body><h2>চলক</h2><p>চলক হলো একটি নাম।</p></body></html>";
        assert_eq!(
            kinds(&parse(src)),
            vec![
                (Heading(1), "পাইথন পরিচিতি"),
                (Heading(2), "চলক"),
                (Paragraph, "চলক হলো একটি নাম।")
            ]
        );
    }
}
