//! reStructuredText, hand-written for the subset that Sphinx documentation (e.g. the Python
//! docs' `*.rst.txt` sources) uses: sections, paragraphs, literal and doctest blocks, lists,
//! definition and field lists, grid and simple tables, and the common Sphinx directives.

use inference::corpus::{Block, BlockKind};

use super::collapse_ws;

/// Characters that may form section adornments.
const ADORNMENT: &str = "=-`:'\"~^_*+#<>";

/// Directives whose content is metadata, navigation or layout: dropped with their body.
const DROPPED: &[&str] = &[
    "index",
    "toctree",
    "highlight",
    "sectionauthor",
    "moduleauthor",
    "module",
    "currentmodule",
    "testsetup",
    "testcleanup",
    "only",
    "contents",
    "tabularcolumns",
    "literalinclude",
    "include",
    "image",
    "figure",
    "raw",
    "meta",
    "default-role",
    "role",
    "audit-event",
    "audit-event-table",
    "availability",
    "program",
    "default-domain",
    "codeauthor",
    "ifconfig",
    "toctree-hidden",
];

/// Directives whose body is code, kept verbatim.
const CODE: &[&str] = &[
    "code-block",
    "sourcecode",
    "code",
    "doctest",
    "testcode",
    "testoutput",
    "parsed-literal",
    "math",
];

/// Object descriptions (Python and C domains, Sphinx generic ones): `signature: body`.
const OBJECTS: &[&str] = &[
    "function",
    "class",
    "method",
    "attribute",
    "data",
    "exception",
    "describe",
    "object",
    "opcode",
    "classmethod",
    "staticmethod",
    "decorator",
    "decoratormethod",
    "coroutinefunction",
    "coroutinemethod",
    "abstractmethod",
    "awaitablefunction",
    "awaitablemethod",
    "property",
    "type",
    "member",
    "macro",
    "var",
    "struct",
    "union",
    "enum",
    "enumerator",
    "cmdoption",
    "option",
    "envvar",
    "pdbcommand",
    "2to3fixer",
    "fixer",
    "confval",
    "monitoring-event",
    "cfunction",
    "cmember",
    "cmacro",
    "ctype",
    "cvar",
];

#[derive(Clone, Debug)]
struct Line {
    /// 1-based line number in the file.
    no: u32,
    /// Text with tabs expanded and trailing whitespace removed, relative to its container.
    text: String,
}

impl Line {
    fn indent(&self) -> usize {
        self.text.len() - self.text.trim_start_matches(' ').len()
    }

    fn is_blank(&self) -> bool {
        self.text.is_empty()
    }
}

pub fn parse(source: &str) -> Vec<Block> {
    let lines: Vec<Line> = source
        .lines()
        .enumerate()
        .map(|(i, l)| Line {
            no: i as u32 + 1,
            text: expand_tabs(l).trim_end().to_string(),
        })
        .collect();
    let mut parser = Parser { styles: Vec::new() };
    parser.body(&lines, true)
}

/// Whether a `.txt` file is reStructuredText: it has explicit markup (`.. directive::`,
/// `.. _target:`) or a section title adornment.
pub fn looks_like_rst(source: &str) -> bool {
    let lines: Vec<&str> = source.lines().map(str::trim_end).collect();
    lines.iter().enumerate().any(|(i, line)| {
        if let Some(rest) = line.strip_prefix(".. ") {
            return rest.starts_with('_') || directive(rest).is_some();
        }
        i > 0 && adornment_char(line).is_some() && line.chars().count() >= 3 && {
            let title = lines[i - 1].trim();
            !title.is_empty()
                && adornment_char(title).is_none()
                && line.chars().count() >= title.chars().count()
        }
    })
}

struct Parser {
    /// Section styles `(char, has overline)` in order of first appearance; index + 1 = level.
    styles: Vec<(char, bool)>,
}

impl Parser {
    /// Parses a sequence of body elements. `top` allows section titles (only at the top level).
    fn body(&mut self, lines: &[Line], top: bool) -> Vec<Block> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            let line = &lines[i];
            if line.is_blank() {
                i += 1;
                continue;
            }
            if line.indent() > 0 {
                // A block quote: its content is ordinary body elements.
                let (quote, next) = indented_block(lines, i, 1);
                out.extend(self.body(&quote, false));
                i = next;
                continue;
            }
            let t = line.text.as_str();
            i = if is_doctest(t) {
                let end = paragraph_end(lines, i);
                out.push(Block::new(
                    BlockKind::Code,
                    join_lines(&lines[i..end]),
                    line.no,
                ));
                end
            } else if let Some(next) = top.then(|| self.section(lines, i, &mut out)).flatten() {
                next
            } else if adornment_char(t).is_some() && t.len() >= 4 {
                i + 1 // a transition
            } else if t == ".." || t.starts_with(".. ") {
                self.explicit(lines, i, &mut out)
            } else if is_grid_border(t) {
                let end = paragraph_end(lines, i);
                out.push(Block::new(
                    BlockKind::Table,
                    join_lines(&lines[i..end]),
                    line.no,
                ));
                end
            } else if is_simple_border(t) {
                let end = simple_table_end(lines, i);
                out.push(Block::new(
                    BlockKind::Table,
                    join_lines(&lines[i..end]),
                    line.no,
                ));
                end
            } else if let Some(width) = list_marker(lines, i) {
                self.list_item(lines, i, width, &mut out)
            } else if let Some((name, value)) = field(t) {
                let (rest, next) = indented_block(lines, i + 1, 1);
                if !matches!(
                    name,
                    "tocdepth" | "orphan" | "nocomments" | "nosearch" | "noindex"
                ) {
                    let body = std::iter::once(value)
                        .chain(rest.iter().map(|l| l.text.trim()))
                        .collect::<Vec<_>>();
                    let text = format!("{}: {}", strip_inline(name), inline(&body.join(" ")));
                    out.push(Block::new(BlockKind::Paragraph, text, line.no));
                }
                next
            } else if lines
                .get(i + 1)
                .is_some_and(|n| !n.is_blank() && n.indent() > 0)
            {
                self.definition_item(lines, i, &mut out)
            } else {
                self.paragraph(lines, i, &mut out)
            };
        }
        out
    }

    /// A section title at `i` (underlined, or overlined and underlined); returns the next index.
    fn section(&mut self, lines: &[Line], i: usize, out: &mut Vec<Block>) -> Option<usize> {
        let t = lines[i].text.as_str();
        let (style, title, next) = if let Some(c) = adornment_char(t) {
            let title = lines.get(i + 1)?;
            let under = lines.get(i + 2)?;
            if title.is_blank()
                || adornment_char(title.text.trim()).is_some()
                || adornment_char(&under.text) != Some(c)
            {
                return None;
            }
            ((c, true), title.text.trim(), i + 3)
        } else {
            let under = lines.get(i + 1)?;
            let c = adornment_char(&under.text)?;
            let len = under.text.chars().count();
            if len < 4 && len < t.chars().count() {
                return None;
            }
            ((c, false), t, i + 2)
        };
        let level = match self.styles.iter().position(|s| *s == style) {
            Some(p) => p + 1,
            None => {
                self.styles.push(style);
                self.styles.len()
            }
        };
        out.push(Block::new(
            BlockKind::Heading(level.min(u8::MAX as usize) as u8),
            inline(title),
            lines[i].no,
        ));
        Some(next)
    }

    /// A paragraph, with the literal block it may introduce (`::`).
    fn paragraph(&mut self, lines: &[Line], i: usize, out: &mut Vec<Block>) -> usize {
        let mut end = i + 1;
        while end < lines.len() && !lines[end].is_blank() && lines[end].indent() == 0 {
            end += 1;
        }
        let text = lines[i..end]
            .iter()
            .map(|l| l.text.trim())
            .collect::<Vec<_>>()
            .join(" ");
        let Some(stem) = text.strip_suffix("::") else {
            out.push(Block::new(BlockKind::Paragraph, inline(&text), lines[i].no));
            return end;
        };
        // `Text::` → `Text:`; `Text ::` → `Text`; a lone `::` disappears.
        let shown = if stem.ends_with(char::is_whitespace) || stem.is_empty() {
            stem.trim_end().to_string()
        } else {
            format!("{stem}:")
        };
        if !shown.is_empty() {
            out.push(Block::new(
                BlockKind::Paragraph,
                inline(&shown),
                lines[i].no,
            ));
        }
        let mut j = end;
        while j < lines.len() && lines[j].is_blank() {
            j += 1;
        }
        let Some(first) = lines.get(j) else { return j };
        if first.indent() > 0 {
            let (code, next) = indented_block(lines, j, 1);
            out.push(Block::new(
                BlockKind::Code,
                join_lines(trim_blank(&code)),
                first.no,
            ));
            next
        } else if first.text.starts_with(|c: char| c.is_ascii_punctuation()) && j > end {
            // A quoted literal block: unindented lines starting with the same punctuation.
            let quote = first.text.chars().next();
            let mut k = j;
            while k < lines.len() && !lines[k].is_blank() && lines[k].text.chars().next() == quote {
                k += 1;
            }
            out.push(Block::new(
                BlockKind::Code,
                join_lines(&lines[j..k]),
                first.no,
            ));
            k
        } else {
            j
        }
    }

    /// One bullet or enumerated list item whose marker (with its spaces) is `width` wide.
    fn list_item(&mut self, lines: &[Line], i: usize, width: usize, out: &mut Vec<Block>) -> usize {
        let first = Line {
            no: lines[i].no,
            text: lines[i].text[width..].trim_start().to_string(),
        };
        let (rest, next) = indented_block(lines, i + 1, 1);
        let mut body = Vec::with_capacity(rest.len() + 1);
        if !first.is_blank() {
            body.push(first);
        }
        body.extend(rest);
        let mut children = self.body(&body, false);
        if let Some(head) = children
            .first_mut()
            .filter(|b| b.kind == BlockKind::Paragraph)
        {
            head.kind = BlockKind::ListItem;
        }
        out.extend(children);
        next
    }

    /// A definition list item: a term line followed by an indented definition.
    fn definition_item(&mut self, lines: &[Line], i: usize, out: &mut Vec<Block>) -> usize {
        // `term : classifier` — the classifier is not part of the term.
        let term = lines[i].text.split(" : ").next().unwrap_or_default();
        let (def, next) = indented_block(lines, i + 1, 1);
        let mut children = self.body(&def, false);
        // Nested definitions (sub-terms) become blocks of their own, so none grows huge.
        let split = children
            .iter()
            .position(|b| b.kind == BlockKind::Definition)
            .unwrap_or(children.len());
        let nested = children.split_off(split);
        let text = format!("{}: {}", inline(term), texts(&children, "\n"));
        out.push(Block::new(BlockKind::Definition, text, lines[i].no));
        out.extend(nested);
        next
    }

    /// Explicit markup at `i` (`.. something`): directives, footnotes, targets, comments.
    fn explicit(&mut self, lines: &[Line], i: usize, out: &mut Vec<Block>) -> usize {
        let rest = lines[i].text[2..].trim_start();
        let no = lines[i].no;
        if rest.is_empty() && lines.get(i + 1).is_none_or(Line::is_blank) {
            return i + 1; // an empty comment, which only separates blocks
        }
        let (body, next) = indented_block(lines, i + 1, 1);
        if let Some(label_end) = rest.strip_prefix('[').and_then(|r| r.find(']')) {
            // A footnote or citation: keep its text.
            let first = &rest[label_end + 2..];
            let body_text = body
                .iter()
                .map(|l| l.text.trim())
                .collect::<Vec<_>>()
                .join(" ");
            out.push(Block::new(
                BlockKind::Paragraph,
                inline(&format!("{first} {body_text}")),
                no,
            ));
        } else if let Some((name, arg)) = directive(rest) {
            self.directive(name, arg, &body, no, out);
        }
        // Anything else is a hyperlink target, a substitution definition or a comment.
        next
    }

    fn directive(&mut self, name: &str, arg: &str, body: &[Line], no: u32, out: &mut Vec<Block>) {
        // Domain-qualified names (`py:function`, `c:macro`) behave like the bare name.
        let base = name.rsplit(':').next().unwrap_or(name);
        if DROPPED.contains(&name) || DROPPED.contains(&base) {
            return;
        }
        if CODE.contains(&base) {
            let mut k = 0;
            while k < body.len()
                && (field(body[k].text.trim_start()).is_some() || body[k].is_blank())
            {
                k += 1;
            }
            let code = dedent(trim_blank(&body[k..]));
            let text = if code.is_empty() && base == "math" {
                arg.to_string()
            } else {
                join_lines(&code)
            };
            out.push(Block::new(BlockKind::Code, text, no));
            return;
        }
        let (args, content) = split_directive(arg, body);
        match base {
            "productionlist" => {
                // The argument is a grammar name (`python-grammar`) or, in old sources, the first rule.
                let first = arg.contains(':').then(|| Line {
                    no,
                    text: arg.to_string(),
                });
                let rules: Vec<Line> = first.into_iter().chain(body.iter().cloned()).collect();
                let text = join_lines(&dedent(trim_blank(&rules))).replace('`', "");
                out.push(Block::new(BlockKind::Definition, text, no));
            }
            _ if OBJECTS.contains(&base) => {
                let prefix = match base {
                    "class" | "exception" | "classmethod" | "staticmethod" | "abstractmethod"
                    | "property" => {
                        format!("{base} ")
                    }
                    "coroutinefunction" | "coroutinemethod" => "coroutine ".to_string(),
                    "decorator" | "decoratormethod" => "@".to_string(),
                    _ => String::new(),
                };
                let signature = args
                    .iter()
                    .map(|a| format!("{prefix}{}", a.replace('\\', "")))
                    .collect::<Vec<_>>();
                let mut children = self.body(&content, false);
                // Nested object descriptions (methods of a class) become blocks of their own.
                let split = children
                    .iter()
                    .position(|b| b.kind == BlockKind::Definition)
                    .unwrap_or(children.len());
                let nested = children.split_off(split);
                let mut text = signature.join("; ");
                if !children.is_empty() {
                    text = format!("{text}: {}", texts(&children, "\n"));
                }
                out.push(Block::new(BlockKind::Definition, text, no));
                out.extend(nested);
            }
            "note" | "warning" | "seealso" | "impl-detail" | "attention" | "caution" | "danger"
            | "error" | "hint" | "important" | "tip" | "admonition" | "topic" | "sidebar"
            | "versionadded" | "versionchanged" | "deprecated" | "deprecated-removed" => {
                let mut args = args.join(" ");
                let label = match base {
                    "seealso" => "See also".to_string(),
                    "impl-detail" => "CPython implementation detail".to_string(),
                    "admonition" | "topic" | "sidebar" => std::mem::take(&mut args),
                    "versionadded" | "versionchanged" | "deprecated" | "deprecated-removed" => {
                        let mut words = args.splitn(2, ' ');
                        let version = words.next().unwrap_or_default().to_string();
                        let (label, rest) = match base {
                            "versionadded" => (format!("New in version {version}"), words.next()),
                            "versionchanged" => {
                                (format!("Changed in version {version}"), words.next())
                            }
                            "deprecated" => {
                                (format!("Deprecated since version {version}"), words.next())
                            }
                            _ => {
                                let mut rest = words.next().unwrap_or_default().splitn(2, ' ');
                                let removed = rest.next().unwrap_or_default();
                                (
                                    format!(
                                        "Deprecated since version {version}, will be removed in version {removed}"
                                    ),
                                    rest.next(),
                                )
                            }
                        };
                        args = rest.unwrap_or_default().to_string();
                        label
                    }
                    other => {
                        let mut c = other.chars();
                        c.next()
                            .map(|f| f.to_uppercase().chain(c).collect())
                            .unwrap_or_default()
                    }
                };
                let children = self.body(&content, false);
                // Code, tables and definitions inside an aside stay whole, after it.
                let (atomic, prose): (Vec<Block>, Vec<Block>) =
                    children.into_iter().partition(|b| b.kind.is_atomic());
                let mut parts: Vec<String> = Vec::new();
                if !args.is_empty() {
                    parts.push(inline(&args));
                }
                parts.extend(prose.into_iter().map(|b| b.text));
                let text = match (label.is_empty(), parts.is_empty()) {
                    (_, true) => format!("{label}."),
                    (true, false) => parts.join("\n"),
                    (false, false) => format!("{label}: {}", parts.join("\n")),
                };
                out.push(Block::new(BlockKind::Aside, text, no));
                out.extend(atomic);
            }
            "rubric" | "centered" => out.push(Block::new(
                BlockKind::Paragraph,
                inline(&args.join(" ")),
                no,
            )),
            "table" | "list-table" | "csv-table" => {
                if !args.is_empty() {
                    out.push(Block::new(
                        BlockKind::Paragraph,
                        inline(&args.join(" ")),
                        no,
                    ));
                }
                out.push(Block::new(
                    BlockKind::Table,
                    join_lines(trim_blank(&content)),
                    no,
                ));
            }
            // Containers (`glossary`, `container`, `tab`, unknown extensions): keep their content.
            _ => out.extend(self.body(&content, false)),
        }
    }
}

/// Splits a directive body into argument lines and content: arguments run until the first
/// blank line or option (`:name: value`); options are skipped; the rest is dedented content.
fn split_directive(arg: &str, body: &[Line]) -> (Vec<String>, Vec<Line>) {
    let mut args: Vec<String> = Vec::new();
    if !arg.is_empty() {
        args.push(arg.to_string());
    }
    let mut k = 0;
    while k < body.len() && !body[k].is_blank() && field(body[k].text.trim_start()).is_none() {
        args.push(body[k].text.trim().to_string());
        k += 1;
    }
    while k < body.len() && !body[k].is_blank() && field(body[k].text.trim_start()).is_some() {
        let indent = body[k].indent();
        k += 1;
        while k < body.len() && !body[k].is_blank() && body[k].indent() > indent {
            k += 1; // an option value continued on more lines
        }
    }
    (args, dedent(&body[k..]))
}

/// The name and first-line argument of a directive (`name:: argument`), from the text after `.. `.
fn directive(rest: &str) -> Option<(&str, &str)> {
    let (name, arg) = rest.split_once("::")?;
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "-_:+.".contains(c))
        && !name.starts_with(['_', '|', '[']);
    valid.then(|| (name, arg.trim()))
}

/// A field list marker `:name: value` (not a role like `:func:`f``).
fn field(t: &str) -> Option<(&str, &str)> {
    let rest = t.strip_prefix(':')?;
    let end = rest.find(':')?;
    let name = &rest[..end];
    let after = &rest[end + 1..];
    let valid = !name.is_empty()
        && !name.starts_with(char::is_whitespace)
        && !name.ends_with(char::is_whitespace)
        && (after.is_empty() || after.starts_with(' '));
    valid.then(|| (name, after.trim()))
}

/// The adornment character if `t` is a line of one repeated adornment character (2+ long).
fn adornment_char(t: &str) -> Option<char> {
    let mut chars = t.chars();
    let c = chars.next()?;
    (ADORNMENT.contains(c) && t.len() >= 2 && chars.all(|d| d == c)).then_some(c)
}

fn is_doctest(t: &str) -> bool {
    t == ">>>" || t.starts_with(">>> ")
}

fn is_grid_border(t: &str) -> bool {
    (t.starts_with("+-") || t.starts_with("+="))
        && t.ends_with('+')
        && t.chars().all(|c| "+-=".contains(c))
}

/// A simple table border: columns of `=` separated by spaces, at least two columns.
fn is_simple_border(t: &str) -> bool {
    t.starts_with('=')
        && t.chars().all(|c| c == '=' || c == ' ')
        && t.split_whitespace().count() >= 2
}

/// A simple table ends at a border followed by a blank line (or the end of the input).
fn simple_table_end(lines: &[Line], i: usize) -> usize {
    let mut j = i + 1;
    while j < lines.len() {
        if is_simple_border(&lines[j].text) && lines.get(j + 1).is_none_or(Line::is_blank) {
            return j + 1;
        }
        j += 1;
    }
    paragraph_end(lines, i)
}

/// The index just after the run of non-blank lines starting at `i`.
fn paragraph_end(lines: &[Line], i: usize) -> usize {
    let mut end = i;
    while end < lines.len() && !lines[end].is_blank() {
        end += 1;
    }
    end
}

/// The width of a bullet or enumerated list marker (with the spaces after it) at line `i`.
fn list_marker(lines: &[Line], i: usize) -> Option<usize> {
    let t = lines[i].text.as_str();
    let marker_end = |len: usize| -> Option<usize> {
        let rest = &t[len..];
        if rest.is_empty() {
            return Some(len);
        }
        rest.starts_with(' ')
            .then(|| t.len() - rest.trim_start().len())
    };
    let mut chars = t.chars();
    let first = chars.next()?;
    if "-*+•‣⁃".contains(first) {
        return marker_end(first.len_utf8());
    }
    // Enumerators: `1.`, `1)`, `(1)`, `#.`, `a.`, `(iv)`.
    let (inner, len) = if let Some(body) = t.strip_prefix('(') {
        let close = body.find(')')?;
        (&body[..close], close + 2)
    } else {
        let close = t.find(['.', ')'])?;
        (&t[..close], close + 1)
    };
    let is_enum = inner == "#"
        || (!inner.is_empty() && inner.len() <= 4 && inner.chars().all(|c| c.is_ascii_digit()))
        || (inner.len() == 1 && inner.chars().all(|c| c.is_ascii_alphabetic()))
        || (!inner.is_empty() && inner.len() <= 6 && inner.chars().all(|c| "ivxlcdm".contains(c)))
        || (!inner.is_empty() && inner.len() <= 6 && inner.chars().all(|c| "IVXLCDM".contains(c)));
    if !is_enum {
        return None;
    }
    let width = marker_end(len)?;
    // Like docutils: an enumerated item's second line must be blank, indented or another item,
    // otherwise this is an ordinary paragraph starting with a number or letter.
    let next_ok = lines
        .get(i + 1)
        .is_none_or(|n| n.is_blank() || n.indent() > 0 || list_marker(lines, i + 1).is_some());
    next_ok.then_some(width)
}

/// The lines from `start` that are blank or indented at least `min` columns, dedented, with
/// trailing blank lines dropped (leading ones are kept: they end a directive's arguments);
/// and the index after them.
fn indented_block(lines: &[Line], start: usize, min: usize) -> (Vec<Line>, usize) {
    let mut end = start;
    while end < lines.len() && (lines[end].is_blank() || lines[end].indent() >= min) {
        end += 1;
    }
    while end > start && lines[end - 1].is_blank() {
        end -= 1;
    }
    (dedent(&lines[start..end]), end)
}

/// Removes the common indentation of the non-blank lines.
fn dedent(lines: &[Line]) -> Vec<Line> {
    let indent = lines
        .iter()
        .filter(|l| !l.is_blank())
        .map(Line::indent)
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| Line {
            no: l.no,
            text: l.text.get(indent..).unwrap_or("").to_string(),
        })
        .collect()
}

/// The lines without leading and trailing blank lines.
fn trim_blank(lines: &[Line]) -> &[Line] {
    let first = lines
        .iter()
        .position(|l| !l.is_blank())
        .unwrap_or(lines.len());
    let last = lines
        .iter()
        .rposition(|l| !l.is_blank())
        .map_or(first, |p| p + 1);
    &lines[first..last]
}

fn join_lines(lines: &[Line]) -> String {
    lines
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn texts(blocks: &[Block], sep: &str) -> String {
    blocks
        .iter()
        .map(|b| b.text.as_str())
        .collect::<Vec<_>>()
        .join(sep)
}

fn expand_tabs(line: &str) -> String {
    if !line.contains('\t') {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len() + 8);
    let mut col = 0;
    for c in line.chars() {
        if c == '\t' {
            let n = 8 - col % 8;
            out.extend(std::iter::repeat_n(' ', n));
            col += n;
        } else {
            out.push(c);
            col += 1;
        }
    }
    out
}

/// Inline markup stripped and whitespace collapsed: the plain text of a paragraph or title.
fn inline(text: &str) -> String {
    collapse_ws(&strip_inline(text))
}

/// Removes reST inline markup, keeping the text a reader sees: roles (`:func:`len``) → `len`,
/// `:ref:`title <target>`` → `title`, ``` ``literal`` ``` → `literal`, `*emph*`, `**strong**`,
/// `` `link <url>`_ `` → `link`, `|subst|` → `subst`; footnote references are dropped and
/// backslash escapes resolved.
pub(crate) fn strip_inline(s: &str) -> String {
    let c: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < c.len() {
        if c[i] == '\\' {
            match c.get(i + 1) {
                Some(&n) if !n.is_whitespace() => out.push(n),
                _ => {}
            }
            i += 2;
            continue;
        }
        if start_ok(&c, i)
            && let Some((text, next)) = inline_at(&c, i)
        {
            out.push_str(&text);
            i = next;
            continue;
        }
        out.push(c[i]);
        i += 1;
    }
    out
}

/// Whether inline markup may start at `i` (preceded by whitespace, start or opening punctuation,
/// and not an isolated quoted character like `'*'`).
fn start_ok(c: &[char], i: usize) -> bool {
    let Some(prev) = i.checked_sub(1).map(|p| c[p]) else {
        return true;
    };
    if !(prev.is_whitespace() || "-:/'\"<([{".contains(prev) || is_unicode_punct(prev)) {
        return false;
    }
    let closer = match prev {
        '\'' => '\'',
        '"' => '"',
        '<' => '>',
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '‘' => '’',
        '“' => '”',
        '«' => '»',
        _ => return true,
    };
    c.get(i + 1) != Some(&closer)
}

/// Whether inline markup may end just before `k`.
fn end_ok(c: &[char], k: usize) -> bool {
    c.get(k).is_none_or(|&n| {
        n.is_whitespace() || "-.,:;!?\\/'\")]}>".contains(n) || is_unicode_punct(n)
    })
}

/// Non-ASCII punctuation and symbols (dashes, quotes, the Bengali danda `।`): they delimit
/// inline markup like ASCII punctuation does. Letters and combining marks of any script do not.
fn is_unicode_punct(c: char) -> bool {
    !c.is_ascii() && !c.is_alphanumeric() && !c.is_whitespace()
}

/// Finds the end-string `end` after position `from`: preceded by non-whitespace and followed
/// by something [`end_ok`] accepts. Returns its index.
/// Inside literals (`literal`) a backslash does not escape the end-string.
fn find_end(c: &[char], from: usize, end: &str, literal: bool) -> Option<usize> {
    let e: Vec<char> = end.chars().collect();
    let mut k = from;
    while k + e.len() <= c.len() {
        if c[k..k + e.len()] == e[..]
            && k > from
            && !c[k - 1].is_whitespace()
            && (literal || c[k - 1] != '\\')
            && end_ok(c, k + e.len())
        {
            return Some(k);
        }
        k += 1;
    }
    None
}

/// Recognises inline markup starting at `i`; returns its plain text and the index after it.
fn inline_at(c: &[char], i: usize) -> Option<(String, usize)> {
    let at = |k: usize| c.get(k).copied();
    let text = |a: usize, b: usize| c[a..b].iter().collect::<String>();
    let nonspace_after = |k: usize| at(k).is_some_and(|n| !n.is_whitespace());
    match c[i] {
        '`' if at(i + 1) == Some('`') => {
            if !nonspace_after(i + 2) {
                return None;
            }
            let k = find_end(c, i + 2, "``", true)?;
            Some((text(i + 2, k), k + 2))
        }
        '`' => interpreted(c, i, None),
        ':' => {
            // `:role:`text``, where the role name may contain `:` (`:py:func:`).
            let mut p = i + 1;
            while p < c.len() && (c[p].is_alphanumeric() || "-_+.:".contains(c[p])) {
                if c[p] == ':' && at(p + 1) == Some('`') && p > i + 1 {
                    let role = text(i + 1, p);
                    return interpreted(c, p + 1, Some(&role));
                }
                p += 1;
            }
            None
        }
        '*' if at(i + 1) == Some('*') => {
            if !nonspace_after(i + 2) {
                return None;
            }
            let k = find_end(c, i + 2, "**", false)?;
            Some((text(i + 2, k), k + 2))
        }
        '*' => {
            if !nonspace_after(i + 1) {
                return None;
            }
            let k = find_end(c, i + 1, "*", false)?;
            Some((text(i + 1, k), k + 1))
        }
        '|' => {
            if !nonspace_after(i + 1) {
                return None;
            }
            let k = find_end_with_suffix(c, i + 1, '|')?;
            Some((text(i + 1, k.0), k.1))
        }
        '[' => {
            // Footnote and citation references `[1]_`, `[#note]_`: dropped.
            let close = (i + 1..c.len()).find(|&k| c[k] == ']')?;
            let label = &c[i + 1..close];
            let ok = !label.is_empty()
                && label
                    .iter()
                    .all(|ch| ch.is_alphanumeric() || "#*-_.".contains(*ch));
            (ok && at(close + 1) == Some('_') && end_ok(c, close + 2))
                .then(|| (String::new(), close + 2))
        }
        '_' if at(i + 1) == Some('`') => interpreted(c, i + 1, Some("target")),
        _ => None,
    }
}

/// Finds a closing `close` after `from` optionally followed by `_`/`__`; returns its index and
/// the index after the suffix.
fn find_end_with_suffix(c: &[char], from: usize, close: char) -> Option<(usize, usize)> {
    let mut k = from + 1;
    while k < c.len() {
        if c[k] == close && !c[k - 1].is_whitespace() && c[k - 1] != '\\' {
            let mut after = k + 1;
            while after < c.len() && c[after] == '_' && after < k + 3 {
                after += 1;
            }
            if end_ok(c, after) {
                return Some((k, after));
            }
        }
        k += 1;
    }
    None
}

/// Interpreted text or a hyperlink reference starting with the backquote at `i`.
fn interpreted(c: &[char], i: usize, role: Option<&str>) -> Option<(String, usize)> {
    if c.get(i + 1).is_none_or(|n| n.is_whitespace() || *n == '`') {
        return None;
    }
    let mut k = i + 1;
    while k < c.len() {
        if c[k] == '`' && !c[k - 1].is_whitespace() && c[k - 1] != '\\' {
            let mut after = k + 1;
            // Suffixes: `_`, `__` (references) or `:role:`.
            while after < c.len() && c[after] == '_' && after < k + 3 {
                after += 1;
            }
            if after == k + 1 && c.get(after) == Some(&':') {
                let mut p = after + 1;
                while p < c.len() && (c[p].is_alphanumeric() || "-_+.".contains(c[p])) {
                    p += 1;
                }
                if p > after + 1 && c.get(p) == Some(&':') {
                    after = p + 1;
                }
            }
            if end_ok(c, after) {
                let inner: String = c[i + 1..k].iter().collect();
                return Some((role_text(role, &inner), after));
            }
        }
        k += 1;
    }
    None
}

/// What Sphinx shows for interpreted text: the title of `title <target>`, without `~`/`!`.
fn role_text(role: Option<&str>, inner: &str) -> String {
    let inner = inner.trim();
    let shown = match inner.strip_suffix('>').and_then(|s| s.rsplit_once('<')) {
        Some((title, _)) if !title.trim().is_empty() => title.trim_end().to_string(),
        Some((_, target)) => target.to_string(),
        None => inner.trim_start_matches(['~', '!']).to_string(),
    };
    let shown = shown.replace('\\', "");
    match role.map(|r| r.rsplit(':').next().unwrap_or(r)) {
        Some("pep") => format!("PEP {shown}"),
        Some("rfc") => format!("RFC {shown}"),
        _ => shown,
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
    fn inline_markup() {
        assert_eq!(
            strip_inline("Use :func:`len` and :meth:`~list.append`."),
            "Use len and list.append."
        );
        assert_eq!(
            strip_inline(":ref:`the FAQ <faq-label>` says"),
            "the FAQ says"
        );
        assert_eq!(strip_inline("a ``literal *x*`` b"), "a literal *x* b");
        assert_eq!(strip_inline("*emph* and **strong**!"), "emph and strong!");
        assert_eq!(
            strip_inline("`Python <https://python.org>`_ site"),
            "Python site"
        );
        assert_eq!(
            strip_inline("see `Section`_ and `anon`__."),
            "see Section and anon."
        );
        assert_eq!(
            strip_inline("def f(*args, **kwargs): pass"),
            "def f(*args, **kwargs): pass"
        );
        assert_eq!(strip_inline("a '*' b '*' c"), "a '*' b '*' c");
        assert_eq!(strip_inline("2 * 3 * 4"), "2 * 3 * 4");
        assert_eq!(strip_inline("word\\ [#]_ end, :pep:`8`"), "word end, PEP 8");
        assert_eq!(
            strip_inline("|version| and :py:class:`int`"),
            "version and int"
        );
        assert_eq!(strip_inline("escaped \\*star\\*"), "escaped *star*");
        assert_eq!(
            strip_inline("a backslash (``\\``) here"),
            "a backslash (\\) here"
        );
        assert_eq!(strip_inline("pass ``y``—and “*this*”"), "pass y—and “this”");
    }

    #[test]
    fn sections_levels_by_first_appearance() {
        let src = "\
=====
Title
=====

Intro with :func:`print`.

Section ``one``
---------------

Text.

Sub *section*
^^^^^^^^^^^^^

Section two
-----------
";
        assert_eq!(
            kinds(&parse(src)),
            vec![
                (Heading(1), "Title", 1),
                (Paragraph, "Intro with print.", 5),
                (Heading(2), "Section one", 7),
                (Paragraph, "Text.", 10),
                (Heading(3), "Sub section", 12),
                (Heading(2), "Section two", 15),
            ]
        );
    }

    #[test]
    fn literal_blocks() {
        let src = "\
For example::

   def f(x):
       return x

Lone marker:

::

    a = 1

Expanded form ::

  b = 2

>>> 1 + 1
2

After.
";
        assert_eq!(
            kinds(&parse(src)),
            vec![
                (Paragraph, "For example:", 1),
                (Code, "def f(x):\n    return x", 3),
                (Paragraph, "Lone marker:", 6),
                (Code, "a = 1", 10),
                (Paragraph, "Expanded form", 12),
                (Code, "b = 2", 14),
                (Code, ">>> 1 + 1\n2", 16),
                (Paragraph, "After.", 19),
            ]
        );
    }

    #[test]
    fn directives() {
        let src = "\
.. _label:

.. index:: single: loop

.. highlight:: python3

.. code-block:: python
   :linenos:

   for x in y:
       pass

.. note::
   Notes are *asides*.

.. versionchanged:: 3.2
   Added :func:`foo`.

.. versionadded:: 3.11

.. function:: spam(a, b)
              spam(a)
   :noindex:

   Return *spam*.

   .. versionadded:: 3.1

.. class:: Eggs(x)

   An egg.

   .. method:: fry()

      Fry it.

.. this is a comment
   spanning lines

.. productionlist:: python-grammar
   stmt: `expr` NEWLINE
       : | `other`
";
        assert_eq!(
            kinds(&parse(src)),
            vec![
                (Code, "for x in y:\n    pass", 7),
                (Aside, "Note: Notes are asides.", 13),
                (Aside, "Changed in version 3.2: Added foo.", 16),
                (Aside, "New in version 3.11.", 19),
                (
                    Definition,
                    "spam(a, b); spam(a): Return spam.\nNew in version 3.1.",
                    21
                ),
                (Definition, "class Eggs(x): An egg.", 29),
                (Definition, "fry(): Fry it.", 33),
                (Definition, "stmt: expr NEWLINE\n    : | other", 40),
            ]
        );
    }

    #[test]
    fn lists_definitions_tables() {
        let src = "\
* first item
  continued
* `link <http://x>`_

1. one
#. two

(a) alpha

term
   The *definition*.

:Author: Someone

+---+---+
| a | b |
+===+===+
| 1 | 2 |
+---+---+

=====  =====
col 1  col 2
=====  =====
1      2
=====  =====

1995 was a year. This sentence starts with a number.
";
        assert_eq!(
            kinds(&parse(src)),
            vec![
                (ListItem, "first item continued", 1),
                (ListItem, "link", 3),
                (ListItem, "one", 5),
                (ListItem, "two", 6),
                (ListItem, "alpha", 8),
                (Definition, "term: The definition.", 10),
                (Paragraph, "Author: Someone", 13),
                (
                    Table,
                    "+---+---+\n| a | b |\n+===+===+\n| 1 | 2 |\n+---+---+",
                    15
                ),
                (
                    Table,
                    "=====  =====\ncol 1  col 2\n=====  =====\n1      2\n=====  =====",
                    21
                ),
                (
                    Paragraph,
                    "1995 was a year. This sentence starts with a number.",
                    27
                ),
            ]
        );
    }

    #[test]
    fn nested_list_with_code() {
        let src = "- outer::\n\n      code here\n\n  - inner\n";
        assert_eq!(
            kinds(&parse(src)),
            vec![
                (ListItem, "outer:", 1),
                (Code, "code here", 3),
                (ListItem, "inner", 5)
            ]
        );
    }

    #[test]
    fn bengali_sections() {
        let src = "পাইথন পরিচিতি\n=============\n\nপাইথন একটি *সহজ* ভাষা।\n\nচলক\n---\n\n``x = 5`` একটি চলক।\n";
        assert_eq!(
            kinds(&parse(src)),
            vec![
                (Heading(1), "পাইথন পরিচিতি", 1),
                (Paragraph, "পাইথন একটি সহজ ভাষা।", 4),
                (Heading(2), "চলক", 6),
                (Paragraph, "x = 5 একটি চলক।", 9),
            ]
        );
    }

    #[test]
    fn sniffing() {
        assert!(looks_like_rst("Title\n=====\n\nText.\n"));
        assert!(looks_like_rst("Text.\n\n.. note:: hi\n"));
        assert!(!looks_like_rst(
            "Just some notes.\n\nMore notes -- with dashes.\n"
        ));
        assert!(!looks_like_rst("A long title line\n---\n"));
    }

    const PROGRAMMING_FAQ: &str = "/usr/share/doc/python3.11/html/_sources/faq/programming.rst.txt";

    #[test]
    fn python_programming_faq() {
        let Ok(source) = std::fs::read_to_string(PROGRAMMING_FAQ) else {
            eprintln!("skipping: {PROGRAMMING_FAQ} is not installed");
            return;
        };
        let blocks = parse(&source);
        let heading = |text: &str| {
            blocks
                .iter()
                .find(|b| b.text == text)
                .unwrap_or_else(|| panic!("no block {text:?}"))
        };
        assert_eq!(heading("Programming FAQ").kind, Heading(1));
        assert_eq!(heading("General Questions").kind, Heading(2));
        let debugger = heading(
            "Is there a source code level debugger with breakpoints, single-stepping, etc.?",
        );
        assert_eq!((debugger.kind, debugger.line), (Heading(3), 14));
        assert_eq!(
            heading("How do I get int literal attribute instead of SyntaxError?").kind,
            Heading(3)
        );
        // Inline markup is gone from prose; code blocks keep their indentation.
        assert!(
            blocks.iter().any(|b| b.kind == Paragraph
                && b.text.contains("the built-in function breakpoint allows"))
        );
        assert!(
            blocks
                .iter()
                .filter(|b| b.kind != Code)
                .all(|b| !b.text.contains(":func:`"))
        );
        assert!(
            blocks
                .iter()
                .any(|b| b.kind == Code && b.text.contains("\n    "))
        );
        assert!(
            blocks
                .iter()
                .any(|b| b.kind == Code && b.text.starts_with(">>> 1.__class__"))
        );
    }
}
