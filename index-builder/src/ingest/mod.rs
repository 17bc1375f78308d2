//! Turning course files into [`Document`]s.
//!
//! One module per format; [`load`] picks the parser from the file name, [`collect`] finds the
//! files to load. Every parser returns blocks in reading order; [`load`] NFC-normalises them and
//! drops empty ones, so parsers do not have to.

mod html;
mod markdown;
mod pdf;
mod rst;
mod text;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use inference::corpus::{Block, BlockKind, Document};
use unicode_normalization::UnicodeNormalization;

/// The formats [`load`] understands, by file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Markdown,
    Rst,
    /// `.txt`: reStructuredText or plain text, decided by looking at the content.
    Txt,
    Html,
    Pdf,
}

fn format_of(path: &Path) -> Option<Format> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    if name.ends_with(".rst.txt") || name.ends_with(".rst") || name.ends_with(".rest") {
        return Some(Format::Rst);
    }
    let ext = name.rsplit_once('.')?.1;
    Some(match ext {
        "md" | "markdown" => Format::Markdown,
        "txt" | "text" => Format::Txt,
        "html" | "htm" | "xhtml" => Format::Html,
        "pdf" => Format::Pdf,
        _ => return None,
    })
}

/// Whether [`load`] can read this file (judged by its name only).
pub fn is_supported(path: &Path) -> bool {
    format_of(path).is_some()
}

/// Parses one course file. `path` must lie under `root`; the document's `file` is the path
/// relative to `root`, with `/` separators.
pub fn load(root: &Path, path: &Path) -> Result<Document> {
    let file = relative_name(root, path);
    let format = format_of(path).with_context(|| {
        format!(
            "{}: unsupported file type; use Markdown (.md), reStructuredText (.rst, .rst.txt), \
             HTML (.html), PDF (.pdf) or plain text (.txt)",
            path.display()
        )
    })?;
    let blocks = match format {
        Format::Pdf => {
            let bytes = std::fs::read(path).with_context(|| {
                format!(
                    "cannot read {}: check that it exists and is readable",
                    path.display()
                )
            })?;
            pdf::parse(&bytes)
                .with_context(|| format!("cannot extract text from {}", path.display()))?
        }
        Format::Markdown => markdown::parse(&read_text(path)?),
        Format::Rst => rst::parse(&read_text(path)?),
        Format::Html => html::parse(&read_text(path)?),
        Format::Txt => {
            let source = read_text(path)?;
            if rst::looks_like_rst(&source) {
                rst::parse(&source)
            } else {
                text::parse(&source)
            }
        }
    };
    Ok(Document {
        file,
        blocks: finish(blocks),
    })
}

/// Expands `paths` into `(root, file)` pairs for [`load`]; `file`'s name in the bundle is its path
/// relative to `root`. With `root` given, that is every file's root. Otherwise one input keeps its
/// own root (a directory is its own root, a file's root is its folder), and several inputs share
/// their deepest common folder, so `build docs/tutorial docs/faq` names files `tutorial/…` and
/// `faq/…` and two `index.md` files never collide. Directories contribute every supported file
/// below them (sorted, hidden entries skipped) except the notes a folder keeps about itself
/// ([`about_the_folder`]: its README, licence, changelog), which describe the files for whoever
/// keeps them, not the subject for a learner; a file named as an input is always taken.
/// Unsupported files are skipped.
pub fn collect(paths: &[PathBuf], root: Option<&Path>) -> Vec<(PathBuf, PathBuf)> {
    let own_root = |p: &Path| -> PathBuf {
        if p.is_dir() { p.to_path_buf() } else { p.parent().map(Path::to_path_buf).unwrap_or_default() }
    };
    let shared_root: Option<PathBuf> = match (root, paths) {
        (Some(r), _) => Some(r.to_path_buf()),
        (None, [_]) | (None, []) => None,
        (None, many) => {
            let absolute: Vec<PathBuf> = many.iter().map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone())).collect();
            let mut common = absolute[0].parent().map(Path::to_path_buf).unwrap_or_default();
            while !absolute.iter().all(|p| p.starts_with(&common)) {
                if !common.pop() {
                    break;
                }
            }
            Some(common)
        }
    };
    let mut out = Vec::new();
    for path in paths {
        let path = match &shared_root {
            Some(_) => std::path::absolute(path).unwrap_or_else(|_| path.clone()),
            None => path.clone(),
        };
        let root = shared_root.clone().unwrap_or_else(|| own_root(&path));
        if path.is_dir() {
            let walker = walkdir::WalkDir::new(&path)
                .follow_links(true)
                .sort_by_file_name()
                .into_iter()
                .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
            for entry in walker.filter_map(|e| e.ok()) {
                if entry.file_type().is_file() && is_supported(entry.path()) && !about_the_folder(entry.path()) {
                    out.push((root.clone(), entry.into_path()));
                }
            }
        } else if is_supported(&path) {
            out.push((root, path));
        }
    }
    out
}

/// A folder's notes about itself, by name whatever the extension: `README.md`, `LICENSE.txt`,
/// `CHANGELOG.rst`, `CONTRIBUTING.md`, `AUTHORS`.
pub fn about_the_folder(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name.split('.').next().unwrap_or("").to_ascii_lowercase();
    matches!(stem.as_str(), "readme" | "license" | "licence" | "changelog" | "changes" | "contributing" | "copying" | "authors")
}

fn relative_name(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if parts.is_empty() {
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    } else {
        parts.join("/")
    }
}

/// Reads a text file as UTF-8 with `\n` line endings and no byte-order mark.
fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| {
        format!(
            "cannot read {}: check that it exists and is readable",
            path.display()
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{} is not valid UTF-8 (first bad byte at offset {}): re-save it as UTF-8",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    Ok(clean_source(&text))
}

/// Normalises line endings, strips a BOM and applies NFC, so parsers see canonical text.
fn clean_source(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.replace("\r\n", "\n")
        .replace('\r', "\n")
        .nfc()
        .collect()
}

/// NFC-normalises block text and drops blocks that ended up empty.
fn finish(blocks: Vec<Block>) -> Vec<Block> {
    blocks
        .into_iter()
        .filter_map(|mut b| {
            let text: String = b.text.nfc().collect();
            b.text = if b.kind == BlockKind::Code {
                text.trim_end().to_string()
            } else {
                text.trim().to_string()
            };
            if b.text.trim().is_empty() {
                None
            } else {
                Some(b)
            }
        })
        .collect()
}

/// Collapses every run of whitespace into one space and trims the ends.
fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Maps byte offsets of a source text to 1-based line numbers.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { starts }
    }

    fn line(&self, offset: usize) -> u32 {
        (self.starts.partition_point(|&s| s <= offset)).max(1) as u32
    }
}

fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || ('\u{09E6}'..='\u{09EF}').contains(&c)
}

/// Recognises a numbered heading line of plain text or PDF: `1 Introduction`, `2.3 Methods`,
/// `2.3. Methods`, `Chapter 3`, `Chapter 3: Loops`, `অধ্যায় ১`. Returns its level (number of
/// numbering components; chapter-like words give 1, section-like words 2).
fn numbered_heading_level(line: &str) -> Option<u8> {
    let line = line.trim();
    let chars = line.chars().count();
    if !(2..=80).contains(&chars) || line.ends_with(['.', ',', ';', '?', '!', '।']) {
        return None;
    }
    let (first, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim_start();
    let is_number = |w: &str| !w.is_empty() && w.chars().all(is_digit);
    let word: String = first.nfc().collect::<String>().to_lowercase();
    let chapter_words: [&str; 6] = ["chapter", "part", "unit", "lesson", "অধ্যায়", "পর্ব"];
    let section_words: [&str; 3] = ["section", "পরিচ্ছেদ", "অনুচ্ছেদ"];
    let numbered_word = |words: &[&str]| {
        words.iter().any(|w| w.nfc().collect::<String>() == word)
            && rest
                .split(|c: char| c.is_whitespace() || c == ':' || c == '.' || c == '-')
                .next()
                .is_some_and(|n| {
                    is_number(n) || n.chars().all(|c| "ivxlcIVXLC".contains(c)) && !n.is_empty()
                })
    };
    if numbered_word(&chapter_words) {
        return Some(1);
    }
    if numbered_word(&section_words) {
        return Some(2);
    }
    // `1 Title`, `1.2 Title`, `1.2. Title` — but not `1. Title`, which is usually a list item.
    let trailing_dot = first.ends_with('.');
    let parts: Vec<&str> = first.trim_end_matches('.').split('.').collect();
    if !parts.iter().all(|p| is_number(p)) || rest.is_empty() {
        return None;
    }
    if parts.len() == 1 && trailing_dot {
        return None;
    }
    let start = rest.chars().next()?;
    // A title starts with a capital letter or a letter of a caseless script (e.g. Bengali).
    if !(start.is_uppercase() || start.is_alphabetic() && !start.is_lowercase()) {
        return None;
    }
    // Titles are short phrases; long lines are sentences that happen to start with a number.
    if rest.split_whitespace().count() > 12 {
        return None;
    }
    Some(parts.len().min(6) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_headings() {
        assert_eq!(numbered_heading_level("1 Introduction"), Some(1));
        assert_eq!(numbered_heading_level("2.3 Methods"), Some(2));
        assert_eq!(numbered_heading_level("2.3. Methods"), Some(2));
        assert_eq!(numbered_heading_level("Chapter 3"), Some(1));
        assert_eq!(numbered_heading_level("Chapter 3: Loops"), Some(1));
        assert_eq!(numbered_heading_level("অধ্যায় ১"), Some(1));
        assert_eq!(numbered_heading_level("১.২ চলক"), Some(2));
        assert_eq!(numbered_heading_level("1. Install Python"), None);
        assert_eq!(numbered_heading_level("3 apples were eaten."), None);
        assert_eq!(numbered_heading_level("42"), None);
        assert_eq!(numbered_heading_level("Chapters are long"), None);
    }

    #[test]
    fn format_detection() {
        assert_eq!(
            format_of(Path::new("a/faq/programming.rst.txt")),
            Some(Format::Rst)
        );
        assert_eq!(format_of(Path::new("x.MD")), Some(Format::Markdown));
        assert_eq!(format_of(Path::new("x.txt")), Some(Format::Txt));
        assert_eq!(format_of(Path::new("x.htm")), Some(Format::Html));
        assert_eq!(format_of(Path::new("x.pdf")), Some(Format::Pdf));
        assert_eq!(format_of(Path::new("x.png")), None);
        assert_eq!(format_of(Path::new("Makefile")), None);
    }

    #[test]
    fn relative_names_use_slashes() {
        assert_eq!(
            relative_name(Path::new("/c"), Path::new("/c/faq/a.rst.txt")),
            "faq/a.rst.txt"
        );
        assert_eq!(
            relative_name(Path::new("/c/a.md"), Path::new("/c/a.md")),
            "a.md"
        );
    }

    #[test]
    fn line_index() {
        let idx = LineIndex::new("a\nbc\n\nd");
        assert_eq!(idx.line(0), 1);
        assert_eq!(idx.line(2), 2);
        assert_eq!(idx.line(5), 3);
        assert_eq!(idx.line(6), 4);
    }

    #[test]
    fn load_and_collect_real_files() {
        let dir = std::env::temp_dir().join(format!("pathshala-ingest-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/b.md"), "# বাংলা\n\nপাঠ্য\r\n").unwrap();
        std::fs::write(dir.join("a.txt"), "Title\n=====\n\nBody.\n").unwrap();
        std::fs::write(dir.join("c.png"), b"\x89PNG").unwrap();
        std::fs::write(dir.join(".hidden.md"), "# no").unwrap();
        std::fs::write(dir.join("README.md"), "Chapters written for this course; text under MIT.").unwrap();
        std::fs::write(dir.join("sub/LICENSE.txt"), "MIT").unwrap();
        let found = collect(std::slice::from_ref(&dir), None);
        let names: Vec<String> = found.iter().map(|(r, f)| relative_name(r, f)).collect();
        assert_eq!(names, ["a.txt", "sub/b.md"], "a folder's README and licence are not course text");
        let named = collect(&[dir.join("README.md")], None);
        assert_eq!(named.len(), 1, "a file named as an input is taken");
        let doc = load(&found[1].0, &found[1].1).unwrap();
        assert_eq!(doc.file, "sub/b.md");
        assert_eq!(doc.blocks[0], Block::new(BlockKind::Heading(1), "বাংলা", 1));
        let doc = load(&found[0].0, &found[0].1).unwrap();
        assert_eq!(doc.blocks[0], Block::new(BlockKind::Heading(1), "Title", 1));
        let err = load(&dir, &dir.join("c.png")).unwrap_err().to_string();
        assert!(err.contains("unsupported"), "{err}");
        std::fs::write(dir.join("bad.txt"), b"caf\xe9").unwrap();
        let err = load(&dir, &dir.join("bad.txt")).unwrap_err().to_string();
        assert!(err.contains("UTF-8"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
