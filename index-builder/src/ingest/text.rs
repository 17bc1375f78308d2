//! Plain text: paragraphs separated by blank lines; headings are underlined lines
//! (`====` → level 1, `----` → level 2, others → 3) or short numbered lines (`2.3 Methods`,
//! `Chapter 3`, `অধ্যায় ১`); blocks indented by four or more spaces are code.

use inference::corpus::{Block, BlockKind};

use super::{collapse_ws, numbered_heading_level};

pub fn parse(source: &str) -> Vec<Block> {
    let lines: Vec<&str> = source.lines().map(str::trim_end).collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].is_empty() {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < lines.len() && !lines[end].is_empty() {
            end += 1;
        }
        push_paragraph(&lines[i..end], i as u32 + 1, &mut blocks);
        i = end;
    }
    blocks
}

/// Classifies one blank-line-separated group of lines starting at line `no`.
fn push_paragraph(group: &[&str], no: u32, blocks: &mut Vec<Block>) {
    // Underlined titles may be glued to the text after them: `Title\n=====\nText...`.
    if let [title, underline, rest @ ..] = group
        && let Some(level) = underline_level(title, underline)
    {
        blocks.push(Block::new(
            BlockKind::Heading(level),
            collapse_ws(title),
            no,
        ));
        if !rest.is_empty() {
            push_paragraph(rest, no + 2, blocks);
        }
        return;
    }
    if let [line] = group
        && let Some(level) = numbered_heading_level(line)
    {
        blocks.push(Block::new(BlockKind::Heading(level), collapse_ws(line), no));
        return;
    }
    let indent = |l: &&str| l.len() - l.trim_start().len();
    if group.iter().all(|l| indent(l) >= 4) {
        let min = group.iter().map(indent).min().unwrap_or(0);
        let code = group
            .iter()
            .map(|l| &l[min..])
            .collect::<Vec<_>>()
            .join("\n");
        blocks.push(Block::new(BlockKind::Code, code, no));
        return;
    }
    let text = group.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    blocks.push(Block::new(BlockKind::Paragraph, collapse_ws(&text), no));
}

/// The heading level if `underline` is a row of `=`, `-`, `~`, `*` or `#` under `title`.
fn underline_level(title: &str, underline: &str) -> Option<u8> {
    let u = underline.trim();
    let c = u.chars().next()?;
    if !"=-~*#".contains(c) || !u.chars().all(|d| d == c) || u.chars().count() < 3 {
        return None;
    }
    // At least half the title's length: combining marks make scripts like Bengali look longer.
    if title.starts_with(char::is_whitespace)
        || u.chars().count() * 2 < title.trim().chars().count()
    {
        return None;
    }
    Some(match c {
        '=' => 1,
        '-' => 2,
        _ => 3,
    })
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
    fn paragraphs_and_headings() {
        let src = "\
Chapter 3: Loops

A loop repeats
a block of code.

3.1 The for loop

    for i in range(3):
        print(i)

Exercises
---------
1. Print 1 to 10.

অধ্যায় ৪

পাইথনে ফাংশন খুব গুরুত্বপূর্ণ।
";
        assert_eq!(
            kinds(&parse(src)),
            vec![
                (Heading(1), "Chapter 3: Loops", 1),
                (Paragraph, "A loop repeats a block of code.", 3),
                (Heading(2), "3.1 The for loop", 6),
                (Code, "for i in range(3):\n    print(i)", 8),
                (Heading(2), "Exercises", 11),
                (Paragraph, "1. Print 1 to 10.", 13),
                (Heading(1), "অধ্যায় ৪", 15),
                (Paragraph, "পাইথনে ফাংশন খুব গুরুত্বপূর্ণ।", 17),
            ]
        );
    }
}
