//! Syntax check without running: RustPython's parser plus plain-language hints.

use rustpython_vm::compiler::{self, CompileOpts, Mode};
use serde::{Deserialize, Serialize};

/// Where the program stops being Python, and what to do about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyntaxIssue {
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    /// The parser's message.
    pub message: String,
    /// A plain-language suggestion.
    pub hint: String,
}

impl std::fmt::Display for SyntaxIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {} (hint: {})",
            self.line, self.column, self.message, self.hint
        )
    }
}

/// Parses (and compiles, without running) `source`.
pub fn check_syntax(source: &str) -> Result<(), SyntaxIssue> {
    match compiler::compile(
        source,
        Mode::Exec,
        super::PROGRAM_NAME,
        CompileOpts::default(),
    ) {
        Ok(_) => Ok(()),
        Err(e) => {
            let (mut line, mut column) = e.python_location();
            let mut message = e.to_string();
            // The parser notices a missing closing bracket only where the next statement starts;
            // point at the bracket that was left open instead.
            let lower = message.to_lowercase().replace('`', "'");
            if lower.contains("expected ')'")
                || lower.contains("expected ']'")
                || lower.contains("expected '}'")
            {
                if let Some((open, l, c)) = unclosed_before(source, line) {
                    if l < line {
                        message = format!("'{open}' was never closed");
                        (line, column) = (l, c);
                    }
                }
            }
            let hint = hint_for(source, line, &message);
            Err(SyntaxIssue {
                line: line.max(1),
                column: column.max(1),
                message,
                hint,
            })
        }
    }
}

/// A plain-language hint for a parser message on `line` (1-based) of `source`.
pub(crate) fn hint_for(source: &str, line: usize, message: &str) -> String {
    let m = message.to_lowercase().replace('`', "'");
    let text = source.lines().nth(line.saturating_sub(1)).unwrap_or("");
    let prev = if line >= 2 {
        source.lines().nth(line - 2).unwrap_or("")
    } else {
        ""
    };
    let starts_block = |t: &str| {
        let t = t.trim_start();
        [
            "if ", "elif ", "else", "for ", "while ", "def ", "class ", "try", "except", "finally",
            "with ",
        ]
        .iter()
        .any(|k| t.starts_with(k))
    };
    if m.contains("was never closed") || m.contains("unclosed") {
        return "A bracket opened here is never closed: add the matching ')', ']' or '}' (count them on this and the following lines).".into();
    }
    if m.contains("unmatched") || m.contains("does not match opening parenthesis") {
        return "There is a closing bracket without a matching opening one, or the kinds differ: check '(' with ')', '[' with ']' and '{' with '}'.".into();
    }
    if m.contains("missing closing quote")
        || m.contains("unterminated string")
        || m.contains("eol while scanning")
        || m.contains("unterminated triple-quoted")
    {
        return "A string is not closed: end it with the same quote it starts with (' or \"); for text over several lines use triple quotes.".into();
    }
    if m.contains("expected an indented block") {
        return "The line before ends with ':' so the next line must be indented (4 spaces) — or write 'pass' if the block is meant to be empty.".into();
    }
    if m.contains("unexpected indent") || m.contains("unexpected indentation") {
        return "This line is indented more than the code around it. Lines in the same block must start in the same column; remove the extra spaces.".into();
    }
    if m.contains("unindent")
        || m.contains("dedent")
        || m.contains("indentation")
        || m.contains("inconsistent use of tabs")
    {
        return "The indentation does not line up with any enclosing block. Use 4 spaces per level and do not mix tabs and spaces.".into();
    }
    if m.contains("expected ':'")
        || ((starts_block(text) || starts_block(prev))
            && !text.trim_end().ends_with(':')
            && m.contains("expected"))
    {
        return "Lines that start a block (if, elif, else, for, while, def, class, try, except, with) must end with a colon ':'.".into();
    }
    if m.contains("invalid syntax")
        && text.contains('=')
        && starts_block(text)
        && !text.contains("==")
    {
        return "Inside a condition use '==' to compare; a single '=' assigns.".into();
    }
    if m.contains("print") && !text.contains('(') {
        return "In Python 3, print is a function: write print(...) with parentheses.".into();
    }
    if m.contains("expected ')'") || m.contains("expected ']'") || m.contains("expected '}'") {
        return "A bracket is left open or something is missing between items — check for a missing comma or closing bracket.".into();
    }
    if m.contains("keyword") || m.contains("cannot assign") || m.contains("invalid target") {
        return "The left side of '=' must be a name (not a keyword, number or expression); to compare use '=='.".into();
    }
    if m.contains("eof") || m.contains("end of file") {
        return "The program ends in the middle of a statement: something (a bracket, a quote, a block) is not finished.".into();
    }
    "Look at this line and the one before it for a missing ':', bracket, quote or comma, or a typo in a keyword.".into()
}

/// The innermost bracket still open at the start of `line` (1-based): (bracket, line, column).
/// Strings and comments are skipped roughly (enough for hints).
fn unclosed_before(source: &str, line: usize) -> Option<(char, usize, usize)> {
    let mut stack: Vec<(char, usize, usize)> = Vec::new();
    for (i, text) in source.lines().enumerate() {
        if i + 1 >= line {
            break;
        }
        let mut quote: Option<char> = None;
        for (j, ch) in text.chars().enumerate() {
            match (quote, ch) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '#') => break,
                (None, '\'' | '"') => quote = Some(ch),
                (None, '(' | '[' | '{') => stack.push((ch, i + 1, j + 1)),
                (None, ')' | ']' | '}') => {
                    stack.pop();
                }
                _ => {}
            }
        }
    }
    stack.pop()
}
