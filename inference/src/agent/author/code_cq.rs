//! A creative question on a line or program of the book that was run when the bundle was built
//! ([`crate::index::predict`]), for a Python course: no model writes it.
//!
//! Bangladesh's ICT creative questions open with a program as their stimulus. This one tells a
//! learner's situation around the book's own lines: a learner types them, and a friend says what
//! the last line shows for a reason that is one of the misreadings run at build time (so the
//! friend is wrong, and what their answer would take is known). The four parts:
//! - a, knowledge (1 mark): a term the book defines in the line's own section
//!   ([`crate::agent::quiz::define`]), asked back, else a rule of the language the lines rest
//!   on ([`recall`]);
//! - b, comprehension (2): explain, with an example, a rule of the language the lines rest on
//!   ([`principle`]); it stands without the stimulus;
//! - c, application (3): what Python shows for the last line, worked out line by line (the
//!   book's output);
//! - d, higher order (4): whether the friend is right, by the rule their reason breaks, and the
//!   change to the code that would make their answer true (the misreading's own code, where it
//!   is one line of what is asked about).
//!
//! Each part carries its answer, the marking guide a teacher checks scripts against.

use super::{Creative, Part, gates, part_meta};
use crate::agent::quiz::define::Definition;
use crate::agent::route::Lang;
use crate::index::predict::{NO_ERROR, Prediction, WrongOutput, aside, belief, concept, principle, recall};

/// The learner and the friend of a stimulus, chosen by the lines' hash.
const NAMES: [(&str, &str); 6] = [("Rina", "Tanvir"), ("Nadia", "Arif"), ("Mitu", "Sami"), ("Anika", "Rafi"), ("Sadia", "Fahim"), ("Tumpa", "Imran")];

/// The longest line of an answer the friend gives, in characters.
const SHORT: usize = 40;

/// Most lines of a friend's answer to a program.
const LINES: usize = 5;

/// Whether the friend can give `o` as their answer: one short line, or for a program a few.
fn answerable(o: &str, program: bool) -> bool {
    let lines = o.lines().count();
    o != NO_ERROR && !o.trim().is_empty() && lines <= if program { LINES } else { 1 } && o.lines().all(|l| l.chars().count() <= SHORT)
}

/// A paragraph of a stimulus that is code or a program's output: every line indented by four
/// spaces (as Markdown writes a code block); the app and the exports show it as code.
pub fn is_code(paragraph: &str) -> bool {
    let mut lines = paragraph.lines().filter(|l| !l.trim().is_empty()).peekable();
    lines.peek().is_some() && lines.all(|l| l.starts_with(INDENT))
}

/// A code paragraph's lines without their four spaces.
pub fn unindent(paragraph: &str) -> String {
    paragraph.lines().map(|l| l.strip_prefix(INDENT).unwrap_or(l)).collect::<Vec<_>>().join("\n")
}

const INDENT: &str = "    ";

fn indent(code: &str) -> String {
    code.lines().map(|l| format!("{INDENT}{l}")).collect::<Vec<_>>().join("\n")
}

/// The change that makes the book's code show `w`'s output, as (the book's line, the line as
/// changed): the asked line of a session, or the one line of a program the changed statement
/// differs in (`w.code` is that statement, written back from its syntax tree, so lines are
/// compared without their spaces and with one kind of quote; a changed line must keep at least
/// half of the book's). `None` when the misreading changes an earlier line of a session or
/// more than one line of a program.
fn change<'a>(p: &'a Prediction, w: &'a WrongOutput) -> Option<(&'a str, &'a str)> {
    if !p.program {
        let new = w.code.trim();
        return (!w.earlier && !new.contains('\n') && !new.is_empty() && new.chars().count() <= 60).then(|| (p.code.trim(), new));
    }
    let lines = |code: &'a str| code.trim_end().lines().filter(|l| !l.trim().is_empty()).collect::<Vec<_>>();
    let (old, new) = (lines(&p.code), lines(&w.code));
    let plain = |l: &str| l.chars().filter(|c| !c.is_whitespace()).map(|c| if c == '"' { '\'' } else { c }).collect::<Vec<char>>();
    // How much of two lines is the same: the common start and end.
    let kept = |a: &[char], b: &[char]| {
        let start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let end = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
        (start + end).min(a.len().min(b.len()))
    };
    let mut best: Option<(usize, &str, &str)> = None;
    for window in (0..=old.len().saturating_sub(new.len())).map(|i| &old[i..i + new.len()]).filter(|w| w.len() == new.len() && !new.is_empty()) {
        let mut diff = window.iter().zip(&new).filter(|(a, b)| plain(a) != plain(b));
        let (Some((a, b)), None) = (diff.next(), diff.next()) else { continue };
        let (pa, pb) = (plain(a), plain(b));
        let same = kept(&pa, &pb);
        if 2 * same >= pa.len().max(pb.len()) && best.is_none_or(|(s, ..)| same > s) {
            best = Some((same, a.trim(), b.trim()));
        }
    }
    best.filter(|(_, _, b)| b.chars().count() <= 60).map(|(_, a, b)| (a, b))
}

/// The creative question on `p` headed `headline`, its knowledge part `def` where the book
/// defines a term in the line's section, else a rule of the language its lines rest on asked back
/// ([`recall`]); its comprehension part another rule the lines rest on, else one of the same
/// concept that a line of `nearby` (the book's other lines near it, nearest first) is misread
/// by, with that line as its example; `seed` picks the names. `None` when no misreading of `p` gives the friend a
/// short answer with a stated reason, or when the result fails a gate (`concepts`: the
/// theory-dump detector's; the gates come with it). Part d asks for the change that makes the friend right where it is
/// one line of what is asked about.
pub fn creative(p: &Prediction, def: Option<&Definition>, headline: &str, concepts: &[String], nearby: &[&Prediction], seed: u64) -> Option<(Creative, gates::Gates)> {
    let single = |w: &&WrongOutput| !w.rule.contains('+');
    let is_aside = |r: &str| aside(r, p.program);
    // The friend's answer: the commonest misreading that states a rule; not one most lines
    // share (a string's quotes), which would make the question about the prompt, not about
    // what the lines teach. One whose change is one line first (part d asks for it), else (a
    // session's earlier line) one without.
    let friend = |with_change: bool| {
        p.wrong
            .iter()
            .filter(single)
            // Never an aside (a string's quotes; one of a program's many print() calls): the
            // question would be about the prompt, not what the lines teach.
            .filter(|w| !aside(&w.rule, p.program) && answerable(&w.output, p.program))
            .find_map(|w| {
                // A program's friend misreads one line, which part d's change names.
                let change = match change(p, w) {
                    Some(c) => c,
                    None if !with_change && !p.program => ("", ""),
                    None => return None,
                };
                Some((w, belief(&w.rule)?, principle(&w.rule)?, change))
            })
    };
    let (w, reason, rule, (old, new)) = friend(true).or_else(|| friend(false))?;
    // The other rules the lines rest on (each misread by one of `p`'s wrong outputs): part a
    // asks one back where the book defines no term, part b explains one; the friend's own
    // (part d's) where none is left. Asides (a string's quotes; in a program, what every
    // print() does) only for part a, and only where nothing else has a question.
    let mut others: Vec<&str> = Vec::new();
    for x in p.wrong.iter().filter(single) {
        if x.rule != w.rule && !others.contains(&x.rule.as_str()) && principle(&x.rule).is_some_and(|r| r != rule) {
            others.push(&x.rule);
        }
    }
    let knowledge = match def {
        Some(d) => {
            let mut term = d.term.clone();
            if let Some(c) = term.get(..1) {
                term.replace_range(..1, &c.to_uppercase());
            }
            (d.question.clone()?, format!("{term}. The book says: “{}”", d.sentence))
        }
        None => {
            let asked = |r: &&str| recall(r).is_some();
            let r = match others.iter().position(|r| !is_aside(r) && asked(r)) {
                Some(i) => others.remove(i),
                None => [w.rule.as_str()].into_iter().chain(others.iter().copied()).find(asked)?,
            };
            (recall(r)?, principle(r)?)
        }
    };
    // Part b: another rule of these lines; else, rather than the friend's rule a third time, a
    // rule of the same concept that a nearby line of the book is misread by (its example).
    let related = || {
        nearby.iter().filter(|q| q.quote() != p.quote()).find_map(|q| {
            let r = q.wrong.iter().filter(single).map(|x| x.rule.as_str()).find(|r| !aside(r, q.program) && concept(r).is_some() && concept(r) == concept(&w.rule))?;
            principle(r).filter(|x| *x != rule).map(|x| (x, *q))
        })
    };
    let (other, example_of) = match others.iter().find(|r| !is_aside(r)).and_then(|r| principle(r)) {
        Some(x) => (x, p),
        None => related().unwrap_or_else(|| (rule.clone(), p)),
    };
    let (a, b) = NAMES[(seed % NAMES.len() as u64) as usize];
    let lang = Lang::En;
    let marker = gates::marker(lang);
    let shown = &w.output;
    let clue = if p.program {
        format!(
            "{marker} {a} is practising Python at home after class. {a} wrote this program for an exercise:\n\n{}\n\nBefore running it, {a} asked {b} what it would print. {b} said at once that it would print the lines below, reading the line `{old}` by this rule: “{reason}”\n\n{}\n\n{a} was not sure, so the two friends decided to trace it line by line before running it. Whoever turned out to be wrong would explain the rule to the other.",
            indent(p.code.trim_end()),
            indent(shown)
        )
    } else {
        format!(
            "{marker} {a} is practising Python at home after class. {a} typed these lines into the Python shell, one after another:\n\n{}\n\nBefore pressing Enter on the last line, {a} asked {b} what Python would show. {b} answered at once: `{shown}`, because “{reason}” {a} was not sure, so the two friends decided to work it out line by line before pressing Enter. Whoever turned out to be wrong would explain the rule to the other.",
            indent(&p.transcript())
        )
    };
    let output = p.output.trim_end();
    // A sentence after an output of several lines starts a line of its own.
    let (shows, then) = if output.contains('\n') { (format!(":\n{output}"), "\n") } else { (format!(" {output}."), " ") };
    let example = {
        let (code, shown) = (example_of.code.trim(), example_of.output.trim_end());
        if !example_of.program && !shown.contains('\n') && shown.chars().count() <= SHORT && !code.contains('\n') {
            format!(" The book's example: `{code}` shows {shown}.")
        } else {
            String::new()
        }
    };
    let judge = format!("Is {b} right? Explain with the rule that decides it");
    let (c_question, c_answer, d_question, d_answer) = match (p.program, new.is_empty()) {
        (true, _) => (
            format!("What does {a}'s program print? Trace it line by line."),
            format!("It prints{shows}"),
            format!("{judge}, then change one line of the program so that it really prints what {b} said."),
            format!("No: {rule} The program prints{shows}{then}With `{old}` written `{new}`, it prints what {b} said."),
        ),
        (false, false) => (
            format!("What does Python show for the last line {a} typed? Work it out line by line."),
            format!("Python shows{shows}"),
            format!("{judge}, then change the last line so that it really shows `{shown}`."),
            format!("No: {rule} The last line shows{shows}{then}Written `{new}`, it shows `{shown}`."),
        ),
        (false, true) => (
            format!("What does Python show for the last line {a} typed? Work it out line by line."),
            format!("Python shows{shows}"),
            format!("{judge}."),
            format!("No: {rule} The last line shows{shows}"),
        ),
    };
    let texts = [
        knowledge,
        (format!("Explain with an example: “{other}”"), format!("{other}{example}")),
        (c_question, c_answer),
        (d_question, d_answer),
    ];
    let parts = texts
        .into_iter()
        .enumerate()
        .map(|(i, (question, answer))| {
            let (label, skill, marks) = part_meta(i, lang);
            Part { label: label.into(), skill: skill.into(), question, marks, answer }
        })
        .collect::<Vec<_>>();
    let questions: Vec<String> = parts.iter().map(|p| p.question.clone()).collect();
    let g = gates::cq(&clue, &questions, concepts, lang);
    g.values().all(|&ok| ok).then(|| (Creative { headline: headline.to_string(), clue, parts }, g))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::predict::fixtures::{sliced, wrong};

    fn made(p: &Prediction, def: Option<&Definition>, headline: &str, concepts: &[String], seed: u64) -> Option<Creative> {
        creative(p, def, headline, concepts, &[], seed).map(|(c, _)| c)
    }

    fn definition() -> Definition {
        Definition {
            term: "slice".into(),
            question: Some("What is a part of a string taken out with two indexes called?".into()),
            sentence: "A part of a string taken out with two indexes is called a slice.".into(),
            section: 0,
            lang: Lang::En,
            heading: "Strings".into(),
            naming: true,
        }
    }

    #[test]
    fn the_friend_is_wrong_by_a_misreading_and_every_part_has_its_answer() {
        let c = made(&sliced(), Some(&definition()), "Strings", &["Strings".into()], 0).unwrap();
        assert!(c.clue.starts_with("Stimulus: Rina is practising Python"), "{}", c.clue);
        assert!(c.clue.contains("\n\n    >>> word = 'Python'\n    >>> word[2:5]\n\n"), "the book's lines as code: {}", c.clue);
        let code: Vec<&str> = c.clue.split("\n\n").filter(|p| is_code(p)).collect();
        assert_eq!(code.iter().map(|p| unindent(p)).collect::<Vec<_>>(), [">>> word = 'Python'\n>>> word[2:5]"]);
        assert!(c.clue.contains("Tanvir answered at once: `'thon'`, because “A slice includes the item at its end index.”"), "{}", c.clue);
        assert!(!c.clue.contains("'tho'`") && !c.clue.contains(" 'tho'"), "the stimulus does not give the answer away");
        let labels: Vec<(&str, u32)> = c.parts.iter().map(|p| (p.label.as_str(), p.marks)).collect();
        assert_eq!(labels, [("a", 1), ("b", 2), ("c", 3), ("d", 4)]);
        assert_eq!(c.parts[0].question, "What is a part of a string taken out with two indexes called?");
        assert!(c.parts[0].answer.starts_with("Slice. The book says:"), "{}", c.parts[0].answer);
        // b explains another rule of the same lines; c is the book's output; d rejects the
        // friend by the rule their reason breaks and gives the change that makes them right.
        assert_eq!(c.parts[1].question, format!("Explain with an example: “{}”", principle("slice_from_one").unwrap()));
        assert!(c.parts[1].answer.ends_with("The book's example: `word[2:5]` shows 'tho'."), "{}", c.parts[1].answer);
        assert_eq!(c.parts[2].answer, "Python shows 'tho'.");
        assert_eq!(c.parts[3].answer, format!("No: {} The last line shows 'tho'. Written `word[2:6]`, it shows `'thon'`.", principle("slice_end").unwrap()));
        assert!(gates::cq(&c.clue, &c.parts.iter().map(|p| p.question.clone()).collect::<Vec<_>>(), &["Strings".into()], Lang::En).values().all(|&ok| ok));
        // Another seed, other names.
        let other = made(&sliced(), Some(&definition()), "Strings", &[], 1).unwrap();
        assert!(other.clue.contains("Nadia") && other.parts[3].question.starts_with("Is Arif right?"));
        // Without a definition, a asks back a rule the friend did not misread; b explains the
        // friend's, not how the prompt shows a string (incidental to most lines).
        let c = made(&sliced(), None, "Strings", &[], 0).unwrap();
        assert_eq!(c.parts[0].question, recall("slice_from_one").unwrap());
        assert_eq!(c.parts[1].question, format!("Explain with an example: “{}”", principle("slice_end").unwrap()));
        // The friend never misreads only the quotes: the next misreading, else none.
        let mut quotes = sliced();
        quotes.wrong.rotate_right(1);
        assert_eq!(quotes.wrong[0].rule, "display");
        assert!(made(&quotes, None, "Strings", &[], 0).unwrap().parts[3].answer.contains("`word[2:6]`"));
        quotes.wrong.truncate(1);
        assert!(made(&quotes, None, "Strings", &[], 0).is_none());
    }

    #[test]
    fn a_line_misread_one_way_explains_a_nearby_rule_of_its_concept() {
        let line = |code: &str, output: &str, w: WrongOutput| Prediction { setup: vec![], setup_output: vec![], code: code.into(), output: output.into(), wrong: vec![w], ..sliced() };
        let yes = line("8 <= 8\n", "True", wrong("False", "compare_equal", "8 < 8"));
        let or = line("0 or 5\n", "5", wrong("0", "and_or", "0 and 5"));
        let slice = sliced();
        // Alone: parts a, b and d all on the one rule.
        let alone = creative(&yes, None, "Comparisons", &[], &[], 0).unwrap().0;
        assert_eq!(alone.parts[1].question, format!("Explain with an example: “{}”", principle("compare_equal").unwrap()));
        assert!(alone.parts[1].answer.ends_with("The book's example: `8 <= 8` shows True."), "{}", alone.parts[1].answer);
        // With the book's lines near it: part b explains a rule of the same concept (not the
        // slicing one), with that line as its example; the friend and part d are unchanged.
        let c = creative(&yes, None, "Comparisons", &[], &[&yes, &slice, &or], 0).unwrap().0;
        assert_eq!(c.parts[1].question, format!("Explain with an example: “{}”", principle("and_or").unwrap()));
        assert!(c.parts[1].answer.ends_with("The book's example: `0 or 5` shows 5."), "{}", c.parts[1].answer);
        assert_eq!(c.parts[0], alone.parts[0]);
        assert_eq!(c.parts[3], alone.parts[3]);
    }

    #[test]
    fn a_program_changes_one_line_and_an_earlier_line_is_judged_without_one() {
        let program = Prediction {
            code: "total = 0\nfor n in range(1, 4):\n    total = total + n\n\nprint(\"sum:\", total)\n".into(),
            output: "sum: 6".into(),
            // The changed statement, written back from its syntax tree.
            wrong: vec![wrong("sum: 10", "range_end", "for n in range(1, 5):\n    total = total + n\n"), wrong("x", "no_error", "")],
            setup: vec![],
            setup_output: vec![],
            program: true,
            ..sliced()
        };
        let c = made(&program, None, "Loops", &[], 2).unwrap();
        assert!(c.clue.contains("wrote this program"), "{}", c.clue);
        assert!(c.clue.contains("reading the line `for n in range(1, 4):` by this rule: “range() includes its end value.”\n\n    sum: 10\n\n"), "the friend's lines as a block: {}", c.clue);
        let mut lines = program.clone();
        lines.output = "sum: 6\ndone".into();
        assert!(made(&lines, None, "Loops", &[], 2).unwrap().parts[3].answer.contains(":\nsum: 6\ndone\nWith `"), "an output of several lines ends its sentence");
        // A misreading of every print() is not a program's friend's: the build applied it once.
        let mut sep = program.clone();
        sep.wrong[0].rule = "print_sep".into();
        assert!(made(&sep, None, "Loops", &[], 2).is_none());
        // Nor one that changes two lines; a one-line statement is found among the program's
        // (other quotes, other spaces).
        let mut two = program.clone();
        two.wrong[0].code = "for n in range(1, 5):\n    total = total - n\n".into();
        assert!(made(&two, None, "Loops", &[], 2).is_none());
        let mut print = program.clone();
        print.wrong[0] = wrong("sum:6", "other_key", "print('sum:',total, sep='')");
        print.wrong[0].rule = "range_end".into();
        assert!(made(&print, None, "Loops", &[], 2).unwrap().parts[3].answer.contains("With `print(\"sum:\", total)` written `print('sum:',total, sep='')`"));
        assert!(c.clue.contains("\n    for n in range(1, 4):\n        total = total + n\n"), "{}", c.clue);
        assert_eq!(c.parts[3].answer, format!("No: {} The program prints sum: 6. With `for n in range(1, 4):` written `for n in range(1, 5):`, it prints what Sami said.", principle("range_end").unwrap()));
        // No term defined near it: a asks the rule back; b falls back on the same rule where
        // no other is stated.
        assert_eq!((c.parts[0].question.as_str(), c.parts[0].answer.clone()), ("Does range() produce its end value?", principle("range_end").unwrap()));
        assert_eq!(c.parts[1].question, format!("Explain with an example: “{}”", principle("range_end").unwrap()));
        // A misreading of an earlier line of a session has no change of the last line to ask
        // for: part d asks only whether the friend is right.
        let mut earlier = sliced();
        earlier.wrong.iter_mut().for_each(|w| w.earlier = true);
        let c = made(&earlier, None, "Strings", &[], 0).unwrap();
        assert_eq!((c.parts[3].question.as_str(), c.parts[3].answer.clone()), ("Is Tanvir right? Explain with the rule that decides it.", format!("No: {} The last line shows 'tho'.", principle("slice_end").unwrap())));
        // One with a change comes first.
        earlier.wrong[1].earlier = false;
        assert!(made(&earlier, None, "Strings", &[], 0).unwrap().parts[3].answer.contains("Written `word[1:4]`"));
    }
}
