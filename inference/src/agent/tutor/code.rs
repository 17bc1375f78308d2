//! Python source as the tutor handles it, without running anything: logical lines, block openers
//! and their `pass` padding, where a step's comment may go, the probe that records a step's
//! variables, the names a step assigns, and the driver that calls the task's function.

/// Marks a line of stdout that reports what the task's function returned.
pub const RET_MARK: &str = "@@pathshala:ret";
/// Marks a line of stdout that lists the variables in scope at the end of a step.
pub const PROBE_MARK: &str = "@@pathshala:probe";
/// Separates `name=repr` fields on a probe line (repr never writes this byte raw).
pub const PROBE_SEP: char = '\x1f';

/// One statement line of Python: a physical line plus its continuation lines (open brackets,
/// triple-quoted strings, backslashes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Logical {
    /// 0-based physical line where it starts.
    pub first: usize,
    /// 0-based physical line where it ends.
    pub last: usize,
    /// Columns of leading whitespace (a tab advances to the next multiple of 8, as in Python).
    pub indent: usize,
    /// Its last code character (outside strings and comments) is `:`, so a block must follow.
    pub opener: bool,
    /// The first word: `for`, `return`, a name, …
    pub keyword: String,
}

/// Columns of leading whitespace of `line`.
pub fn indent_of(line: &str) -> usize {
    let mut col = 0;
    for c in line.chars() {
        match c {
            ' ' => col += 1,
            '\t' => col = (col / 8 + 1) * 8,
            _ => break,
        }
    }
    col
}

/// Splits `src` into logical lines, skipping blank and comment-only lines. Strings (with
/// prefixes, escapes and triple quotes) and comments are skipped well enough for this purpose;
/// unterminated constructs end at the end of the source.
pub fn logical_lines(src: &str) -> Vec<Logical> {
    let mut out = Vec::new();
    let mut quote: Option<(char, bool)> = None; // (quote char, triple)
    let mut depth = 0i32;
    let mut open: Option<Logical> = None;
    let mut last_code = ' ';
    let mut backslash = false;
    for (n, line) in src.lines().enumerate() {
        let continuing = open.is_some() && (quote.is_some() || depth > 0 || backslash);
        if !continuing {
            if let Some(mut l) = open.take() {
                l.opener = last_code == ':';
                out.push(l);
            }
            quote = None;
            depth = 0;
            let t = line.trim_start();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let keyword: String = t.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            open = Some(Logical { first: n, last: n, indent: indent_of(line), opener: false, keyword });
            last_code = ' ';
        }
        if let Some(l) = open.as_mut() {
            l.last = n;
        }
        backslash = false;
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            match quote {
                Some((q, triple)) => {
                    if c == '\\' {
                        i += 1;
                    } else if c == q && (!triple || (chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q))) {
                        if triple {
                            i += 2;
                        }
                        quote = None;
                        last_code = q;
                    }
                }
                None => match c {
                    '#' => break,
                    '\'' | '"' => {
                        let triple = chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c);
                        quote = Some((c, triple));
                        if triple {
                            i += 2;
                        }
                        last_code = c;
                    }
                    '(' | '[' | '{' => {
                        depth += 1;
                        last_code = c;
                    }
                    ')' | ']' | '}' => {
                        depth = (depth - 1).max(0);
                        last_code = c;
                    }
                    '\\' if i + 1 == chars.len() => backslash = true,
                    c if !c.is_whitespace() => last_code = c,
                    _ => {}
                },
            }
            i += 1;
        }
        // A single-quoted string cannot span lines (without a backslash).
        if let Some((_, false)) = quote {
            if !line.ends_with('\\') {
                quote = None;
            }
        }
    }
    if let Some(mut l) = open.take() {
        l.opener = last_code == ':' && quote.is_none();
        out.push(l);
    }
    out
}

/// The source with a minimal body (`pass`) under a last line that opens a block, so it runs:
/// `for x in xs:` becomes `for x in xs:\n    pass`. Other sources come back unchanged (with a
/// final newline).
pub fn pad_block_openers(src: &str) -> String {
    let mut out = with_newline(src);
    if let Some(l) = logical_lines(src).last().filter(|l| l.opener) {
        out.push_str(&" ".repeat(l.indent + 4));
        out.push_str("pass\n");
    }
    out
}

/// `src` ending in exactly one newline (empty stays empty).
pub fn with_newline(src: &str) -> String {
    let t = src.trim_end_matches(['\n', '\r', ' ', '\t']);
    if t.is_empty() { String::new() } else { format!("{t}\n") }
}

/// Indentations the next line after `code` may have: one level deeper when the last line opens
/// a block, otherwise any enclosing block's level, deepest first; none below `min`.
pub fn indent_candidates(code: &str, min: usize) -> Vec<usize> {
    let lines = logical_lines(code);
    let Some(last) = lines.last() else { return vec![min] };
    if last.opener {
        return vec![last.indent + 4];
    }
    let mut stack: Vec<usize> = vec![0];
    for l in &lines {
        while stack.last().is_some_and(|&s| s > l.indent) {
            stack.pop();
        }
        if stack.last() != Some(&l.indent) {
            stack.push(l.indent);
        }
    }
    let mut out: Vec<usize> = stack.into_iter().rev().filter(|&i| i >= min).collect();
    if out.is_empty() {
        out.push(min);
    }
    out
}

/// The probe: one line that prints every plain variable in scope (name and clipped repr) on a
/// [`PROBE_MARK`] line. Callables, modules and names starting with `_` are left out.
pub fn probe_line(indent: usize) -> String {
    format!(
        "{}print('{PROBE_MARK}', *[_k + '=' + repr(_v)[:200] for _k, _v in sorted(dict(locals()).items()) if not _k.startswith('_') and not callable(_v) and type(_v).__name__ != 'module'], sep='\\x1f')\n",
        " ".repeat(indent)
    )
}

/// `code` followed by `snippet`, with a probe (see [`probe_line`]) where the snippet ends: as
/// the body of a last block opener, before a last `return`/`break`/`continue`/`raise`, or
/// after the last statement. With an empty snippet there is no probe, only padding.
pub fn with_probe(code: &str, snippet: &str) -> String {
    let code = with_newline(code);
    let snippet = with_newline(snippet);
    let start = code.lines().count();
    let src = format!("{code}{snippet}");
    let Some(last) = logical_lines(&src).into_iter().rfind(|l| l.first >= start) else {
        return pad_block_openers(&src);
    };
    let lines: Vec<&str> = src.lines().collect();
    let mut out = String::with_capacity(src.len() + 256);
    let push = |out: &mut String, range: &[&str]| {
        for l in range {
            out.push_str(l);
            out.push('\n');
        }
    };
    if last.opener {
        push(&mut out, &lines[..=last.last]);
        out.push_str(&probe_line(last.indent + 4));
        push(&mut out, &lines[last.last + 1..]);
    } else if matches!(last.keyword.as_str(), "return" | "break" | "continue" | "raise") {
        push(&mut out, &lines[..last.first]);
        out.push_str(&probe_line(last.indent));
        push(&mut out, &lines[last.first..]);
    } else {
        push(&mut out, &lines[..=last.last]);
        out.push_str(&probe_line(last.indent));
        push(&mut out, &lines[last.last + 1..]);
    }
    out
}

/// Lines that call the task's function on each input and print the result on a [`RET_MARK`]
/// line: `print('@@pathshala:ret', repr(f(1, 2)))`.
pub fn driver(entry_point: &str, inputs: &[String]) -> String {
    inputs.iter().map(|args| format!("print('{RET_MARK}', repr({entry_point}({args})))\n")).collect()
}

/// The arguments of the first call of any of `names` in `text` (`f(1, [2, 3])` → `1, [2, 3]`),
/// brackets and strings respected; `None` when there is none or it is not closed.
pub fn first_call(text: &str, names: &[&str]) -> Option<String> {
    let mut best: Option<(usize, usize)> = None; // (start of args, index of the name)
    for name in names.iter().filter(|n| !n.is_empty()) {
        let pat = format!("{name}(");
        let mut from = 0;
        while let Some(at) = text[from..].find(&pat) {
            let at = from + at;
            let before = text[..at].chars().next_back();
            if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                if best.is_none_or(|(b, _)| at + pat.len() < b) {
                    best = Some((at + pat.len(), at));
                }
                break;
            }
            from = at + pat.len();
        }
    }
    let (start, _) = best?;
    let mut depth = 1;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text[start..].char_indices() {
        match quote {
            Some(_) if escaped => escaped = false,
            Some(_) if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(text[start..start + i].to_string());
                    }
                }
                _ => {}
            },
        }
    }
    None
}

/// The whole statement (logical line) containing physical line `line` (1-based), trimmed.
pub fn statement_at(src: &str, line: usize) -> String {
    let lines: Vec<&str> = src.lines().collect();
    let n = line.saturating_sub(1);
    let (first, last) = logical_lines(src).into_iter().find(|l| l.first <= n && n <= l.last).map_or((n, n), |l| (l.first, l.last));
    lines.get(first..=last.min(lines.len().saturating_sub(1))).map(|ls| ls.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ")).unwrap_or_default()
}

/// Names a snippet gives a value to or changes: assignment targets (`x = …`, `a, b = …`,
/// `x += …`, `d[k] = …` → `d`), loop variables, `with … as x`, `except … as e`, and receivers of
/// mutating methods (`xs.append(…)` → `xs`). In order of first appearance.
pub fn assigned_names(snippet: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let add = |name: &str, out: &mut Vec<String>| {
        if is_identifier(name) && !is_keyword(name) && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    };
    let lines: Vec<&str> = snippet.lines().collect();
    for l in logical_lines(snippet) {
        let text = lines[l.first..=l.last].join("\n");
        let t = text.trim_start();
        if let Some(rest) = t.strip_prefix("for ").or_else(|| t.strip_prefix("async for ")) {
            if let Some(targets) = top_level_find(rest, " in ").map(|at| &rest[..at]) {
                targets_into(targets, &mut |n| add(n, &mut out));
            }
        } else if t.starts_with("with ") || t.starts_with("except") {
            for part in t.split(" as ").skip(1) {
                let name: String = part.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                add(&name, &mut out);
            }
        } else if !matches!(l.keyword.as_str(), "def" | "class" | "import" | "from" | "if" | "elif" | "while" | "return" | "assert") {
            let mut rest = t;
            while let Some(at) = assignment_at(rest) {
                let target = rest[..at].trim_end_matches(['+', '-', '*', '/', '%', '&', '|', '^', '<', '>', '@', ' ']);
                let target = target.split(':').next().unwrap_or(target); // `x: int = 0`
                targets_into(target, &mut |n| add(n, &mut out));
                rest = &rest[at + 1..];
            }
        }
        for m in MUTATORS {
            let mut from = 0;
            while let Some(at) = text[from..].find(m) {
                let dot = from + at;
                let name: String = text[..dot].chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<Vec<_>>().into_iter().rev().collect();
                add(&name, &mut out);
                from = dot + m.len();
            }
        }
    }
    out
}

const MUTATORS: &[&str] = &[
    ".append(", ".extend(", ".insert(", ".add(", ".update(", ".pop(", ".remove(", ".discard(", ".sort(", ".reverse(", ".clear(",
    ".setdefault(", ".popitem(", ".appendleft(",
];

/// Byte index of the first top-level assignment `=` in `s` (not `==`, `!=`, `<=`, `>=`, `:=`,
/// nor inside brackets or strings).
fn assignment_at(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) => {
                if c == b'\\' {
                    i += 1;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                b'\'' | b'"' => quote = Some(c),
                b'#' => return None,
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                b'=' if depth == 0 => {
                    let prev = if i > 0 { b[i - 1] } else { b' ' };
                    let next = b.get(i + 1).copied().unwrap_or(b' ');
                    let shift = i >= 2 && (&b[i - 2..i] == b"<<" || &b[i - 2..i] == b">>");
                    if next == b'=' {
                        i += 1;
                    } else if !(matches!(prev, b'=' | b'!' | b':') || (matches!(prev, b'<' | b'>') && !shift)) {
                        return Some(i);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// Byte index of `pat` in `s` outside brackets and strings.
fn top_level_find(s: &str, pat: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ if depth == 0 && s[i..].starts_with(pat) => return Some(i),
                _ => {}
            },
        }
    }
    None
}

/// Calls `f` with each base name in an assignment target list: `a, (b, *c)` → a, b, c;
/// `d[k]` → d; `obj.x` → obj.
fn targets_into(targets: &str, f: &mut dyn FnMut(&str)) {
    let mut depth = 0i32;
    let mut word = String::new();
    let mut take = true; // the next word starts a target (not inside a subscript)
    for c in targets.chars().chain(std::iter::once(',')) {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            if take {
                f(&word);
            }
            word.clear();
            take = false;
        }
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' | '(' | '*' | ' ' if depth == 0 => take = take || c != ' ',
            _ => {}
        }
        if c == ',' && depth == 0 {
            take = true;
        }
    }
}

fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c.is_alphabetic() || c == '_') && cs.all(|c| c.is_alphanumeric() || c == '_')
}

fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "False" | "None" | "True" | "and" | "as" | "assert" | "async" | "await" | "break" | "class" | "continue" | "def" | "del" | "elif"
            | "else" | "except" | "finally" | "for" | "from" | "global" | "if" | "import" | "in" | "is" | "lambda" | "nonlocal" | "not"
            | "or" | "pass" | "raise" | "return" | "try" | "while" | "with" | "yield"
    )
}

/// Tidies what a model wrote for one step: right-trims lines, drops blank lines at either end,
/// and (for a function task, `inside_function`) cuts it where it starts top-level code that is
/// not a definition or an import (example calls, `print(...)`, `if __name__ == ...`).
pub fn clean_snippet(text: &str, inside_function: bool) -> String {
    let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    if inside_function {
        let top = |l: &&str| {
            let t = l.trim_start();
            !l.is_empty()
                && indent_of(l) == 0
                && !["def ", "class ", "import ", "from ", "@", "#", "async def "].iter().any(|k| t.starts_with(k))
                && !t.starts_with(|c: char| c == ')' || c == ']' || c == '}' || c == '"' || c == '\'')
        };
        if let Some(cut) = lines.iter().position(top) {
            lines.truncate(cut);
        }
    }
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| !is_code_line(l)) {
        lines.pop();
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Splits a worked solution's body (the code after the starter) into at most `max_steps`
/// consecutive parts, each a run of whole statements that can be a tutor step: every statement
/// at the body's outer level starts a part (with its block; `elif`/`else`/`except`/`finally`
/// stay with the statement they continue); a body of fewer than three parts has its largest
/// plain block split into its opening line and its inner statements; parts past `max_steps` are
/// merged, smallest neighbours first. Each part keeps its indentation and ends in a newline;
/// blank lines go, comments stay with the lines they precede.
pub fn segments(body: &str, max_steps: usize) -> Vec<String> {
    let lines: Vec<&str> = body.lines().map(str::trim_end).collect();
    let logical = logical_lines(body);
    let Some(base) = logical.iter().map(|l| l.indent).min() else { return Vec::new() };
    // A part is a range of logical lines [start, end).
    let continues = |l: &Logical| matches!(l.keyword.as_str(), "elif" | "else" | "except" | "finally");
    let mut parts: Vec<(usize, usize)> = Vec::new();
    for (i, l) in logical.iter().enumerate() {
        if l.indent == base && !(continues(l) && !parts.is_empty()) {
            parts.push((i, i + 1));
        } else if let Some(p) = parts.last_mut() {
            p.1 = i + 1;
        } else {
            parts.push((i, i + 1));
        }
    }
    // Too few parts: open up the largest block with no continuation clause.
    while parts.len() < 3.min(max_steps) {
        let splittable = |&(a, b): &(usize, usize)| {
            logical[a].opener
                && b - a >= 3
                && !logical[a + 1..b].iter().any(|l| l.indent == logical[a].indent && continues(l))
        };
        let Some(k) = (0..parts.len()).filter(|&k| splittable(&parts[k])).max_by_key(|&k| parts[k].1 - parts[k].0) else { break };
        let (a, b) = parts[k];
        let inner = logical[a + 1].indent;
        let mut split = vec![(a, a + 1)];
        for i in a + 1..b {
            if logical[i].indent == inner && !(continues(&logical[i]) && split.len() > 1) {
                split.push((i, i + 1));
            } else {
                split.last_mut().expect("the opening line").1 = i + 1;
            }
        }
        parts.splice(k..=k, split);
    }
    let size = |&(a, b): &(usize, usize)| logical[b - 1].last + 1 - logical[a].first;
    while parts.len() > max_steps.max(1) {
        let k = (0..parts.len() - 1).min_by_key(|&k| size(&parts[k]) + size(&parts[k + 1])).expect("two parts");
        parts[k].1 = parts[k + 1].1;
        parts.remove(k + 1);
    }
    // Physical lines: a part runs from its first statement (with the comments right above it)
    // to the line before the next part's.
    let starts: Vec<usize> = parts
        .iter()
        .map(|&(a, _)| {
            let mut first = logical[a].first;
            while first > 0 && lines[first - 1].trim_start().starts_with('#') {
                first -= 1;
            }
            first
        })
        .collect();
    (0..parts.len())
        .map(|k| {
            let from = if k == 0 { 0 } else { starts[k] };
            let to = if k + 1 < parts.len() { starts[k + 1] } else { lines.len() };
            lines[from..to].iter().filter(|l| !l.trim().is_empty()).map(|l| format!("{l}\n")).collect()
        })
        .collect()
}

/// The snippet's code for comparison: no comments, no blank lines, no trailing spaces.
pub fn normalized(snippet: &str) -> Vec<String> {
    snippet
        .lines()
        .map(str::trim_end)
        .filter(|l| is_code_line(l))
        .map(|l| {
            // Runs of spaces inside a line do not matter; leading ones do.
            let ind = l.len() - l.trim_start().len();
            format!("{}{}", &l[..ind], l.trim_start().split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .collect()
}

/// A line that is neither blank nor only a comment.
fn is_code_line(line: &str) -> bool {
    let t = line.trim_start();
    !t.is_empty() && !t.starts_with('#')
}

/// The text of the comment line a snippet opens with (`None` when its first line is code).
pub fn leading_comment(snippet: &str) -> Option<&str> {
    let first = snippet.lines().find(|l| !l.trim().is_empty())?.trim();
    first.strip_prefix('#').map(str::trim)
}

/// The snippet without the comment line it opens with; unchanged when that line is code or
/// when nothing but comments would be left.
pub fn without_leading_comment(snippet: &str) -> String {
    let rest: Vec<&str> = snippet.lines().skip_while(|l| l.trim().is_empty()).skip(1).collect();
    match leading_comment(snippet) {
        Some(_) if rest.iter().any(|l| is_code_line(l)) => {
            let mut out = rest.join("\n");
            if snippet.ends_with('\n') {
                out.push('\n');
            }
            out
        }
        _ => snippet.to_string(),
    }
}

/// The plan step of a part that is only `return <constant>` right after a block that returns
/// early: "If the loop ends without returning, return False" after a `for`/`while`, "Otherwise,
/// return -1" after an `if`. A small model describes such a line with the block's own condition
/// ("Return False if the number was seen"), the opposite of what it does. `None` for any other
/// part; `before` is the code of the parts before it.
pub fn fallthrough_return(before: &str, part: &str) -> Option<String> {
    let mut lines = part.lines().filter(|l| is_code_line(l));
    let (line, None) = (lines.next()?, lines.next()) else { return None };
    let value = line.trim().strip_prefix("return ")?.trim();
    let constant = matches!(value, "True" | "False" | "None" | "[]" | "{}" | "()" | "\"\"" | "''")
        || value.strip_prefix('-').unwrap_or(value).parse::<f64>().is_ok() && value.chars().all(|c| c.is_ascii_digit() || c == '.' || c == '-');
    if !constant {
        return None;
    }
    let indent = indent_of(line);
    let prev: Vec<&str> = before.lines().filter(|l| is_code_line(l)).collect();
    let header = prev.iter().rposition(|l| indent_of(l) <= indent)?;
    let returns_inside = prev[header + 1..].iter().any(|l| l.trim() == "return" || l.trim_start().starts_with("return "));
    let head = prev[header];
    if indent_of(head) != indent || !returns_inside {
        return None;
    }
    let word = head.trim_start().split(|c: char| !c.is_alphanumeric()).next().unwrap_or_default();
    match word {
        "for" | "while" => Some(format!("If the loop ends without returning, return {value}")),
        "if" | "elif" => Some(format!("Otherwise, return {value}")),
        _ => None,
    }
}

/// Smallest indentation of the snippet's non-blank lines.
pub fn base_indent(snippet: &str) -> Option<usize> {
    snippet.lines().filter(|l| !l.trim().is_empty()).map(indent_of).min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_returned_after_an_early_return_is_described_by_the_code() {
        let lp = "    seen = set()\n    for n in l:\n        if -n in seen:\n            return True\n        seen.add(n)\n";
        assert_eq!(fallthrough_return(lp, "    return False\n").as_deref(), Some("If the loop ends without returning, return False"));
        let iff = "    if not words:\n        return -1\n";
        assert_eq!(fallthrough_return(iff, "\n    return 0\n").as_deref(), Some("Otherwise, return 0"));
        // No early return in the loop, a computed value, more lines, or another indentation: the model's.
        assert_eq!(fallthrough_return("    for n in l:\n        total += n\n", "    return False\n"), None);
        assert_eq!(fallthrough_return(lp, "    return balance == 0\n"), None);
        assert_eq!(fallthrough_return(lp, "    x = 1\n    return False\n"), None);
        assert_eq!(fallthrough_return(lp, "        return False\n"), None);
        assert_eq!(fallthrough_return("    with f:\n        return 1\n", "    return 0\n"), None);
        assert_eq!(fallthrough_return("", "    return None\n"), None);
        assert_eq!(fallthrough_return(lp, "    return inf\n"), None, "a name, not a number");
    }

    #[test]
    fn a_snippets_leading_comment() {
        assert_eq!(leading_comment("\n    # Count the vowels\n    n = 0\n"), Some("Count the vowels"));
        assert_eq!(leading_comment("    n = 0  # start\n"), None);
        assert_eq!(without_leading_comment("\n    # Count the vowels\n    n = 0\n    # then\n"), "    n = 0\n    # then\n");
        assert_eq!(without_leading_comment("    n = 0  # start\n"), "    n = 0  # start\n");
        assert_eq!(without_leading_comment("    # only a comment\n"), "    # only a comment\n");
    }

    #[test]
    fn segments_follow_statements_and_blocks() {
        let body = "    count = 0\n\n    for letter in word:\n        if letter in 'aeiou':\n            count += 1\n    return count\n";
        assert_eq!(segments(body, 6), vec!["    count = 0\n", "    for letter in word:\n        if letter in 'aeiou':\n            count += 1\n", "    return count\n"]);
        // Merged down to the most steps allowed, smallest neighbours first.
        assert_eq!(segments(body, 2).len(), 2);
        assert_eq!(segments(body, 2).concat(), "    count = 0\n    for letter in word:\n        if letter in 'aeiou':\n            count += 1\n    return count\n");
        // `else` stays with its `if`; a lone block opens up into its opening line and body.
        let body = "    if n < 0:\n        return -n\n    else:\n        return n\n";
        assert_eq!(segments(body, 6), vec!["    if n < 0:\n        return -n\n    else:\n        return n\n"]);
        let body = "    for x in xs:\n        y = x * 2\n        # keep it\n        out.append(y)\n";
        assert_eq!(segments(body, 6), vec!["    for x in xs:\n", "        y = x * 2\n", "        # keep it\n        out.append(y)\n"]);
        // One-liners and empty bodies.
        assert_eq!(segments("    return ' '.join(map(str, range(n + 1)))\n", 6), vec!["    return ' '.join(map(str, range(n + 1)))\n"]);
        assert!(segments("\n", 6).is_empty());
    }

    #[test]
    fn logical_lines_join_brackets_strings_and_backslashes() {
        let src = "def f(a,\n      b):\n    \"\"\" Doc: with (\n    a colon:\n    \"\"\"\n\n    # comment:\n    x = [1,\n         2]  # not an opener:\n    s = 'a:' \\\n        + 'b'\n    for i in x:\n";
        let l = logical_lines(src);
        let spans: Vec<(usize, usize, usize, bool)> = l.iter().map(|l| (l.first, l.last, l.indent, l.opener)).collect();
        assert_eq!(spans, [(0, 1, 0, true), (2, 4, 4, false), (7, 8, 4, false), (9, 10, 4, false), (11, 11, 4, true)]);
        assert_eq!(l[0].keyword, "def");
        assert_eq!(l[4].keyword, "for");
        assert_eq!(indent_of("\t  x"), 10);
    }

    #[test]
    fn block_openers_get_a_pass_body() {
        assert_eq!(pad_block_openers("total = 0\nfor x in xs:"), "total = 0\nfor x in xs:\n    pass\n");
        assert_eq!(pad_block_openers("def f(x):\n    if x > 1:  # big\n"), "def f(x):\n    if x > 1:  # big\n        pass\n");
        assert_eq!(pad_block_openers("d = {'a':\n  1}\n"), "d = {'a':\n  1}\n", "a colon inside brackets opens nothing");
        assert_eq!(pad_block_openers("s = 'x:'"), "s = 'x:'\n");
        assert_eq!(pad_block_openers("else:"), "else:\n    pass\n");
        assert_eq!(pad_block_openers(""), "");
    }

    #[test]
    fn indent_candidates_follow_the_block_stack() {
        let code = "def f(xs):\n    \"\"\"Doc.\"\"\"\n    total = 0\n    for x in xs:\n        total += x\n";
        assert_eq!(indent_candidates(code, 4), [8, 4]);
        assert_eq!(indent_candidates(code, 0), [8, 4, 0]);
        assert_eq!(indent_candidates("def f(xs):\n    for x in xs:\n", 4), [8]);
        assert_eq!(indent_candidates("", 0), [0]);
        assert_eq!(indent_candidates("x = 1\n", 4), [4]);
    }

    #[test]
    fn the_probe_goes_where_the_step_ends() {
        let code = "def f(xs):\n    total = 0\n";
        let p = with_probe(code, "    for x in xs:\n");
        assert_eq!(p, format!("def f(xs):\n    total = 0\n    for x in xs:\n{}", probe_line(8)));
        let p = with_probe(code, "    return total\n");
        assert_eq!(p, format!("def f(xs):\n    total = 0\n{}    return total\n", probe_line(4)));
        let p = with_probe(code, "    for x in xs:\n        total += x\n");
        assert!(p.ends_with(&format!("        total += x\n{}", probe_line(8))));
        let p = with_probe("for x in xs:\n", "");
        assert_eq!(p, "for x in xs:\n    pass\n", "no probe without a snippet, but padding");
        assert!(probe_line(0).starts_with("print('@@pathshala:probe', *[_k"));
    }

    #[test]
    fn assigned_names_cover_the_common_statements() {
        let s = "total = 0\na, (b, *c) = 1, (2, 3)\nx += 1\nd[k] = v\nobj.attr = 1\nfor i, y in enumerate(xs):\n    if y == 2:\n        out.append(y)\nwith open(f) as fh:\n    pass\nn: int = 3\ny = z = 0\nprint(f(a=1))\nr <<= 2\nq <= 2\n";
        assert_eq!(assigned_names(s), ["total", "a", "b", "c", "x", "d", "obj", "i", "y", "out", "fh", "n", "z", "r"]);
        assert!(assigned_names("return a == b\n").is_empty());
        assert_eq!(assigned_names("result = [x for x in xs if x > 0]\n"), ["result"]);
    }

    #[test]
    fn snippets_are_cleaned() {
        let t = "\n    for x in xs:\n        total += x   \n    return total\n\nprint(f([1, 2]))\nassert f([]) == 0\n";
        assert_eq!(clean_snippet(t, true), "    for x in xs:\n        total += x\n    return total\n");
        assert_eq!(clean_snippet("def helper(x):\n    return x\n# done\n", true), "def helper(x):\n    return x\n");
        assert_eq!(clean_snippet("x = int(input())\nprint(x)\n", false), "x = int(input())\nprint(x)\n");
        assert_eq!(normalized("  x  =  1 # c\n\n# only a comment\n  y=2\n"), ["  x = 1 # c", "  y=2"]);
        assert_eq!(base_indent("\n        a\n    b\n"), Some(4));
    }

    #[test]
    fn calls_and_statements_are_found() {
        assert_eq!(first_call("assert candidate([1, (2)], ')') == 3", &["candidate", "f"]).as_deref(), Some("[1, (2)], ')'"));
        assert_eq!(first_call("assert abs(f(1.5) - 0.5) < 1e-6", &["candidate", "f"]).as_deref(), Some("1.5"));
        assert_eq!(first_call("assert my_f(2) == 1", &["f"]), None);
        assert_eq!(first_call("assert f(2", &["f"]), None);
        let src = "x = 1\nassert candidate([\n    1, 2\n]) == 3, 'msg'\ny = 2\n";
        assert_eq!(statement_at(src, 3), "assert candidate([ 1, 2 ]) == 3, 'msg'");
        assert_eq!(statement_at(src, 1), "x = 1");
    }

    #[test]
    fn the_driver_calls_the_entry_point_on_each_input() {
        let d = driver("add", &["1, 2".into(), "[3], k=4".into()]);
        assert_eq!(d, "print('@@pathshala:ret', repr(add(1, 2)))\nprint('@@pathshala:ret', repr(add([3], k=4)))\n");
    }
}
