//! PDF via pdf-extract's text layer. Characters are collected with their positions and font
//! sizes, grouped into lines and paragraphs; headings are lines set clearly larger than the
//! body text (the biggest size is level 1) or short numbered lines (`2.3 Methods`,
//! `Chapter 3`). A block's `line` is its page number.

use std::collections::HashMap;

use anyhow::{Context, Result, anyhow, bail};
use inference::corpus::{Block, BlockKind};
use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};

use super::{collapse_ws, numbered_heading_level};

/// A line counts as a heading when its font is this much larger than the body text's.
const HEADING_RATIO: f64 = 1.15;

pub fn parse(bytes: &[u8]) -> Result<Vec<Block>> {
    // pdf-extract panics on some malformed files; report that as an ordinary error.
    let lines = std::panic::catch_unwind(|| extract_lines(bytes)).map_err(|_| {
        anyhow!("the PDF text extractor crashed on this file: re-export or print it to a new PDF and try again")
    })??;
    if lines.iter().all(|l| l.text.trim().is_empty()) {
        bail!(
            "no text layer: run OCR first (for example `ocrmypdf input.pdf output.pdf`) and ingest the OCRed file"
        );
    }
    Ok(blocks(lines))
}

/// One line of text as laid out on a page.
#[derive(Debug)]
struct TextLine {
    page: u32,
    /// Baseline height in PDF units (larger is higher on the page).
    y: f64,
    /// Largest effective font size of the line's visible characters.
    size: f64,
    text: String,
}

fn extract_lines(bytes: &[u8]) -> Result<Vec<TextLine>> {
    let mut doc = pdf_extract::Document::load_mem(bytes)
        .context("not a readable PDF: check that the file is complete and not damaged")?;
    if doc.is_encrypted() {
        doc.decrypt("").map_err(|e| {
            anyhow!("the PDF is encrypted ({e}): save an unprotected copy and ingest that")
        })?;
    }
    let mut collector = Collector::default();
    pdf_extract::output_doc(&doc, &mut collector).context("cannot read the PDF's text layer")?;
    collector.finish_line();
    Ok(collector.lines)
}

/// An [`OutputDev`] that groups characters into lines, keeping font sizes.
#[derive(Default)]
struct Collector {
    page: u32,
    lines: Vec<TextLine>,
    current: Option<TextLine>,
    last_end: f64,
    last_y: f64,
    new_word: bool,
}

impl Collector {
    fn finish_line(&mut self) {
        if let Some(line) = self.current.take()
            && !line.text.trim().is_empty()
        {
            self.lines.push(line);
        }
    }
}

impl OutputDev for Collector {
    fn begin_page(
        &mut self,
        page_num: u32,
        _: &MediaBox,
        _: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        self.finish_line();
        self.page = page_num;
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        self.finish_line();
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _: f64,
        font_size: f64,
        ch: &str,
    ) -> Result<(), OutputError> {
        let size = font_size * (trm.m11 * trm.m22 - trm.m12 * trm.m21).abs().sqrt();
        let (x, y) = (trm.m31, trm.m32);
        let same_line = self.current.is_some() && (y - self.last_y).abs() <= size * 0.5;
        if !same_line {
            self.finish_line();
            self.current = Some(TextLine {
                page: self.page,
                y,
                size: 0.0,
                text: String::new(),
            });
        }
        let line = self.current.as_mut().expect("a current line");
        if same_line && self.new_word && x > self.last_end + size * 0.1 && !line.text.ends_with(' ')
        {
            line.text.push(' ');
        }
        // Typographic ligatures (`ﬁ` in "Speciﬁcation") would hide words from search.
        match ch {
            "\u{FB00}" => line.text.push_str("ff"),
            "\u{FB01}" => line.text.push_str("fi"),
            "\u{FB02}" => line.text.push_str("fl"),
            "\u{FB03}" => line.text.push_str("ffi"),
            "\u{FB04}" => line.text.push_str("ffl"),
            _ => line.text.push_str(ch),
        }
        if !ch.trim().is_empty() {
            line.size = line.size.max(size);
        }
        self.new_word = false;
        self.last_y = y;
        self.last_end = x + width * size;
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        self.new_word = true;
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}

/// Sizes rounded to half a point, so that tiny differences do not make new heading levels.
fn size_key(size: f64) -> i64 {
    (size * 2.0).round() as i64
}

/// Turns lines into headings, list items and paragraphs.
fn blocks(mut lines: Vec<TextLine>) -> Vec<Block> {
    for line in &mut lines {
        line.text = collapse_ws(&line.text);
    }
    drop_page_furniture(&mut lines);

    // The body size is the median font size, weighted by characters.
    let mut sizes: Vec<(f64, usize)> = lines
        .iter()
        .map(|l| (l.size, l.text.chars().count()))
        .collect();
    sizes.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: usize = sizes.iter().map(|s| s.1).sum();
    let mut seen = 0;
    let body = sizes.iter().find(|s| {
        seen += s.1;
        seen * 2 >= total
    });
    let body = body.map_or(0.0, |s| s.0);

    let is_big =
        |l: &TextLine| l.size > body * HEADING_RATIO && l.text.split_whitespace().count() <= 20;
    let mut heading_sizes: Vec<i64> = lines
        .iter()
        .filter(|l| is_big(l))
        .map(|l| size_key(l.size))
        .collect();
    heading_sizes.sort_unstable_by(|a, b| b.cmp(a));
    heading_sizes.dedup();
    let font_level = |l: &TextLine| {
        let rank = heading_sizes.iter().position(|&s| s == size_key(l.size))?;
        Some((rank + 1).min(6) as u8)
    };

    let mut out: Vec<Block> = Vec::new();
    // The line before, for joining: (page, y, size, kind of the block it went into).
    let mut prev: Option<(u32, f64, f64, BlockKind)> = None;
    for line in &lines {
        let level = if is_big(line) {
            font_level(line)
        } else {
            numbered_heading_level(&line.text)
        };
        let bullet = line
            .text
            .strip_prefix(['•', '◦', '▪', '‣', '–', '-', '*'])
            .filter(|r| r.starts_with(' '));
        let kind = match (level, bullet) {
            (Some(level), _) => BlockKind::Heading(level),
            (None, Some(_)) => BlockKind::ListItem,
            (None, None) => BlockKind::Paragraph,
        };
        let text = bullet.map_or(line.text.as_str(), str::trim_start);
        let continues = prev.is_some_and(|(page, y, size, prev_kind)| {
            let gap = y - line.y;
            let close = page == line.page && gap > 0.0 && gap <= size.max(line.size) * 1.8;
            close
                && match (prev_kind, kind) {
                    // Multi-line titles: same size, consecutive lines.
                    (BlockKind::Heading(a), BlockKind::Heading(b)) => {
                        a == b && (size - line.size).abs() < 0.5
                    }
                    // A list item's wrapped lines, and a paragraph's lines.
                    (BlockKind::ListItem | BlockKind::Paragraph, BlockKind::Paragraph) => true,
                    _ => false,
                }
        });
        match out.last_mut().filter(|_| continues) {
            Some(block) => join_line(&mut block.text, text),
            None => out.push(Block::new(kind, text, line.page)),
        }
        let kind = if continues {
            out.last().map_or(kind, |b| b.kind)
        } else {
            kind
        };
        prev = Some((line.page, line.y, line.size, kind));
    }
    out
}

/// Appends a wrapped line, undoing end-of-line hyphenation (`exam-` + `ple`).
fn join_line(text: &mut String, next: &str) {
    let hyphenated = text.ends_with('-')
        && text.chars().rev().nth(1).is_some_and(char::is_alphabetic)
        && next.chars().next().is_some_and(char::is_lowercase);
    if hyphenated {
        text.pop();
    } else {
        text.push(' ');
    }
    text.push_str(next);
}

/// Drops page numbers and running headers/footers (lines repeated on most pages).
fn drop_page_furniture(lines: &mut Vec<TextLine>) {
    let pages = lines
        .iter()
        .map(|l| l.page)
        .collect::<std::collections::HashSet<_>>()
        .len();
    let key = |l: &TextLine| {
        l.text
            .chars()
            .filter(|c| !c.is_numeric())
            .collect::<String>()
    };
    let mut counts: HashMap<String, usize> = HashMap::new();
    if pages >= 3 {
        for line in lines.iter() {
            *counts.entry(key(line)).or_default() += 1;
        }
    }
    lines.retain(|l| {
        let page_number = l
            .text
            .chars()
            .all(|c| c.is_numeric() || c.is_whitespace() || c == '-')
            || l.text.len() <= 8 && l.text.chars().all(|c| "ivxlcdmIVXLCDM ".contains(c));
        let repeated = pages >= 3
            && counts
                .get(&key(l))
                .is_some_and(|&n| n * 2 > pages && !key(l).trim().is_empty());
        !page_number && !repeated
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use BlockKind::*;

    /// A minimal PDF with Helvetica text: one list of `(font size, baseline y, text)` per page.
    fn make_pdf(pages: &[&[(f64, f64, &str)]]) -> Vec<u8> {
        let mut objects: Vec<String> = vec![
            "<< /Type /Catalog /Pages 2 0 R >>".into(),
            String::new(), // the page tree, filled in below
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
                .into(),
        ];
        let mut kids = Vec::new();
        for page in pages {
            let content: String = page
                .iter()
                .map(|(size, y, text)| {
                    let text = text
                        .replace('\\', "\\\\")
                        .replace('(', "\\(")
                        .replace(')', "\\)");
                    format!("BT /F1 {size} Tf 72 {y} Td ({text}) Tj ET\n")
                })
                .collect();
            let page_id = objects.len() + 1;
            kids.push(format!("{page_id} 0 R"));
            objects.push(format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
                page_id + 1
            ));
            objects.push(format!(
                "<< /Length {} >>\nstream\n{content}endstream",
                content.len()
            ));
        }
        objects[1] = format!(
            "<< /Type /Pages /Kids [{}] /Count {} >>",
            kids.join(" "),
            pages.len()
        );
        let mut pdf = b"%PDF-1.4\n".to_vec();
        let mut offsets = Vec::new();
        for (i, obj) in objects.iter().enumerate() {
            offsets.push(pdf.len());
            pdf.extend(format!("{} 0 obj\n{obj}\nendobj\n", i + 1).bytes());
        }
        let xref = pdf.len();
        pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
        for off in offsets {
            pdf.extend(format!("{off:010} 00000 n \n").bytes());
        }
        pdf.extend(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .bytes(),
        );
        pdf
    }

    fn kinds(blocks: &[Block]) -> Vec<(BlockKind, &str, u32)> {
        blocks
            .iter()
            .map(|b| (b.kind, b.text.as_str(), b.line))
            .collect()
    }

    #[test]
    fn headings_from_font_size_and_numbering() {
        let pdf = make_pdf(&[
            &[
                (24.0, 720.0, "Python Basics"),
                (16.0, 680.0, "1 Introduction"),
                (11.0, 650.0, "Python is a programming language that is easy"),
                (11.0, 636.0, "to learn and fun to use for every-"),
                (11.0, 622.0, "body."),
                (11.0, 590.0, "A second paragraph starts here."),
                (11.0, 560.0, "- a bulleted item"),
                (11.0, 520.0, "1.1 Variables at body size"),
                (11.0, 490.0, "Names refer to values."),
                (11.0, 40.0, "1"),
            ],
            &[
                (16.0, 720.0, "2 Loops"),
                (11.0, 690.0, "Loops repeat (things)."),
                (11.0, 40.0, "2"),
            ],
        ]);
        let blocks = parse(&pdf).unwrap();
        assert_eq!(
            kinds(&blocks),
            vec![
                (Heading(1), "Python Basics", 1),
                (Heading(2), "1 Introduction", 1),
                (
                    Paragraph,
                    "Python is a programming language that is easy to learn and fun to use for everybody.",
                    1
                ),
                (Paragraph, "A second paragraph starts here.", 1),
                (ListItem, "a bulleted item", 1),
                (Heading(2), "1.1 Variables at body size", 1),
                (Paragraph, "Names refer to values.", 1),
                (Heading(2), "2 Loops", 2),
                (Paragraph, "Loops repeat (things).", 2),
            ]
        );
    }

    #[test]
    fn no_text_layer() {
        let pdf = make_pdf(&[&[]]);
        let err = parse(&pdf).unwrap_err().to_string();
        assert!(err.contains("no text layer: run OCR first"), "{err}");
    }

    #[test]
    fn garbage_is_an_error() {
        let err = parse(b"%PDF-1.4 this is not really a pdf").unwrap_err();
        assert!(format!("{err:#}").contains("PDF"), "{err:#}");
    }
}
