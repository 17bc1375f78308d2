//! Items that ask what Python shows for a line of the book's own session
//! ([`crate::index::predict`]): the key is the book's output, each wrong option what Python
//! shows when one spot is misread, every one of them produced by running code while the bundle
//! was built. No model writes them.

use super::{Bloom, Item, ItemEvidence, prompt};
use crate::agent::ask::verify::terms;
use std::collections::HashSet;
use crate::bundle::Bundle;
use crate::index::predict::{NO_ERROR, Prediction, WRONG, WrongOutput, aside, belief, concept, principle};

/// The stem's first line, for a session line and for a program.
pub const ASK: &str = "What does Python show for the last line?";
pub const ASK_PROGRAM: &str = "What does this program print?";

/// The first line of a "why" item's stem ([`why_item`]), before ", and not …?" or "?".
pub const WHY: &str = "Why does Python show this for the last line";
pub const WHY_PROGRAM: &str = "Why does this program print this";

/// Whether a stem is one of these items' (a model that copies the stem without the code writes
/// no such item: [`super::check::deterministic`] wants the code shown).
pub fn asks(question: &str) -> bool {
    question.starts_with(ASK) || question.starts_with(ASK_PROGRAM)
}

/// Whether a stem is a "why" item's ([`why_item`]).
pub fn explains(question: &str) -> bool {
    question.starts_with(WHY) || question.starts_with(WHY_PROGRAM)
}

/// The first words of a "judge the reasoning" item's stem ([`judge_item`]).
pub const JUDGE: &str = "A classmate says the last line shows";

/// Whether a stem is a "judge the reasoning" item's ([`judge_item`]).
pub fn judges(question: &str) -> bool {
    question.starts_with(JUDGE)
}

/// Whether a stem shows the book's code below its question (every item of this module's).
pub fn shows_code(question: &str) -> bool {
    asks(question) || explains(question) || judges(question)
}

/// The question of `chunk` that an item with this stem asks about.
pub fn asked<'a>(bundle: &'a Bundle, chunk: u32, question: &str) -> Option<&'a Prediction> {
    within(bundle, chunk).into_iter().find(|p| stem(p) == question)
}

/// The misreadings of every question in `p`'s file (its chapter): [`why_item`]'s `nearby`.
pub fn chapter_rules<'a>(bundle: &'a Bundle, p: &Prediction) -> Vec<&'a str> {
    let file = &bundle.sections[p.section as usize].file;
    bundle.predictions.iter().filter(|q| &bundle.sections[q.section as usize].file == file).flat_map(|q| q.wrong.iter().map(|w| w.rule.as_str())).collect()
}

fn stem(p: &Prediction) -> String {
    format!("{}\n\n{}", if p.program { ASK_PROGRAM } else { ASK }, p.transcript())
}

/// The questions whose asked line lies in `chunk`'s text, in reading order.
pub fn within(bundle: &Bundle, chunk: u32) -> Vec<&Prediction> {
    let c = &bundle.chunks[chunk as usize];
    bundle.predictions.iter().filter(|p| p.section == c.section && (c.start..c.end).contains(&p.offset)).collect()
}

/// Tracing code through the rules of the language applies them, however many lines the state
/// runs through (a slice, `//`, a list changed through another name); following the control
/// flow of a loop or a branch round by round analyses the program.
pub fn level(p: &Prediction) -> Bloom {
    let flows = |code: &str| code.lines().any(|l| ["for ", "while ", "if ", "elif "].iter().any(|k| l.trim_start().starts_with(k)));
    if flows(&p.code) || p.setup.iter().any(|s| flows(s)) { Bloom::Analyse } else { Bloom::Apply }
}

/// The levels an item on `p` can be asked at: its own ([`level`], where its wrong outputs fill
/// an item: [`Prediction::is_multiple_choice`]), Understand when a "why"
/// item explains its output ([`why_item`]), Evaluate when a classmate's misreading of it can be
/// judged ([`judge_item`]).
pub fn levels(bundle: &Bundle, p: &Prediction) -> Vec<Bloom> {
    let heading_path = bundle.sections.get(p.section as usize).map(|s| s.heading_path.clone()).unwrap_or_default();
    let none = || ItemEvidence { chunk: 0, section: p.section, file: String::new(), heading_path: heading_path.clone(), quote: String::new() };
    let nearby = chapter_rules(bundle, p);
    let why = why_item(p, None, &nearby, none()).is_some();
    let judge = judge_item(p, &nearby, none()).is_some();
    std::iter::once(level(p)).filter(|_| p.is_multiple_choice()).chain(why.then_some(Bloom::Understand)).chain(judge.then_some(Bloom::Evaluate)).collect()
}

/// The item for `p`: the key where [`super::check::key_position`] puts it, the first
/// [`WRONG`] wrong outputs (the commonest misreadings first), a reason for each.
pub fn item(p: &Prediction, evidence: ItemEvidence) -> Item {
    let question = stem(p);
    let mut options: Vec<String> = p.wrong.iter().take(WRONG).map(|w| w.output.clone()).collect();
    let mut rationales: Vec<String> = p.wrong.iter().take(WRONG).map(|w| super::clip(&p.rationale(w), prompt::REASON_MAX_CHARS)).collect();
    let code = p.code.trim_end();
    let right = if p.program {
        "This is what the program prints: the book shows the same output.".to_string()
    } else if code.contains('\n') || code.chars().count() > 60 {
        "This is what Python shows: the book runs these lines and shows this output.".to_string()
    } else {
        format!("This is what Python shows for `{code}`, as the book shows when it runs these lines.")
    };
    let key = super::check::key_position(&question);
    options.insert(key, p.output.clone());
    rationales.insert(key, super::clip(&right, prompt::REASON_MAX_CHARS));
    let mut concepts: Vec<String> = Vec::new();
    for c in p.wrong.iter().take(WRONG).filter_map(|w| concept(&w.rule)) {
        if !concepts.iter().any(|k| k == c) {
            concepts.push(c.to_string());
        }
    }
    Item { question, options, answer_index: key, rationales, bloom: level(p), concepts, evidence: vec![evidence] }
}

/// After a wrong answer `chosen` to `p`'s item (`None`: prepared before the learner answers),
/// an easier one on the same lines (Understand): why Python shows the book's output. The right
/// option is the rule of the language the learner's misreading breaks ([`principle`]; not yet
/// answered, of the shown misreadings that are not beside the lesson ([`side`]), the first one
/// the section names ([`about`])); the wrong ones are misreadings stated as rules
/// ([`belief`]): that one first, then those behind `p`'s other wrong outputs, then `nearby`
/// ones (the chapter's other questions', those of the same concept first). `None` when the
/// misreadings give no rule or fewer than three false ones.
pub fn why_item(p: &Prediction, chosen: Option<&str>, nearby: &[&str], evidence: ItemEvidence) -> Option<Item> {
    // Rules the line's section is about first (min() is not what "Returning two values" teaches).
    let heading = terms(&evidence.heading_path.join(" "));
    let mut shown: Vec<&str> = p.wrong.iter().take(WRONG).flat_map(|w| w.rule.split('+')).filter(|r| !side(r, &heading)).collect();
    shown.sort_by_key(|r| !about(r, &heading));
    let mine: Vec<&str> = p.wrong.iter().filter(|w| Some(w.output.as_str()) == chosen).flat_map(|w| w.rule.split('+')).collect();
    // The misreading to explain: the learner's, else the first shown one that breaks a rule.
    let (rule, right) = mine.iter().chain(&shown).find_map(|&r| principle(r).map(|x| (r, x)))?;
    let beliefs = beliefs(p, rule, &right, nearby)?;
    let head = if p.program { WHY_PROGRAM } else { WHY };
    let ask = match chosen.filter(|c| *c != NO_ERROR && !c.contains('\n') && c.chars().count() <= 40) {
        Some(c) => format!("{head}, and not `{c}`?"),
        None => format!("{head}?"),
    };
    let question = if p.program { format!("{ask}\n\n{}\n\nOutput:\n{}", p.code.trim_end(), p.output) } else { format!("{ask}\n\n{}", p.quote()) };
    let mut options: Vec<String> = beliefs.iter().map(|(_, b)| b.clone()).collect();
    let mut rationales: Vec<String> = beliefs
        .iter()
        .map(|(r, _)| super::clip(&format!("That is a misreading, not how Python works: {}", principle(r).unwrap_or_default()), prompt::REASON_MAX_CHARS))
        .collect();
    let key = super::check::key_position(&question);
    let code = p.code.trim_end();
    let why = if p.program {
        "This rule is why the program prints what the book shows.".to_string()
    } else if code.contains('\n') || code.chars().count() > 40 || p.output.contains('\n') || p.output.chars().count() > 40 {
        "This rule is why Python shows what the book shows for the last line.".to_string()
    } else {
        format!("This rule is why `{code}` shows {}.", p.output)
    };
    rationales.insert(key, super::clip(&why, prompt::REASON_MAX_CHARS));
    options.insert(key, right);
    let concepts = concept(rule).map(|c| vec![c.to_string()]).unwrap_or_default();
    Some(Item { question, options, answer_index: key, rationales, bloom: Bloom::Understand, concepts, evidence: vec![evidence] })
}

/// Whether misreading `rule` is beside what its lines teach, as the rule a "why" or a "judge"
/// item is about: an [`aside`], including how every print() or f-string works (a "why" on
/// print()'s spaces for an `if` on a dictionary, or for `print(a, b)` after a swap), unless the
/// line's section (`heading`: its heading path's terms) is about it ("f-strings and format
/// specifications"). Whatever the line's shape: `aside`'s `program` case for every line.
fn side(rule: &str, heading: &HashSet<String>) -> bool {
    aside(rule, true) && !about(rule, heading)
}

/// Whether the section's heading path (`heading`, its terms) names `rule`'s concept ("String
/// methods" for `.strip()` read as `.lstrip()`; "print() and its arguments" for print()'s spaces).
fn about(rule: &str, heading: &HashSet<String>) -> bool {
    concept(rule).is_some_and(|c| !terms(c).is_disjoint(heading))
}

/// Three misreadings stated as rules for an item on `p` explaining `rule` (its rule `right`):
/// `rule`'s own first, then those behind `p`'s shown wrong outputs, its other ones, then
/// `nearby` ones (the chapter's, those of `rule`'s concept first); `None` when fewer.
fn beliefs<'a>(p: &'a Prediction, rule: &'a str, right: &str, nearby: &[&'a str]) -> Option<Vec<(&'a str, String)>> {
    let shown = p.wrong.iter().take(WRONG).flat_map(|w| w.rule.split('+'));
    let mut nearby: Vec<&str> = nearby.iter().flat_map(|r| r.split('+')).collect();
    nearby.sort_by_key(|r| concept(r) != concept(rule));
    let rest = p.wrong.iter().flat_map(|w| w.rule.split('+')).chain(nearby);
    let mut out: Vec<(&str, String)> = Vec::new();
    for r in std::iter::once(rule).chain(shown).chain(rest) {
        if let Some(b) = belief(r).filter(|b| !out.iter().any(|(_, x)| x == b) && *b != right) {
            out.push((r, b));
        }
        if out.len() == WRONG {
            return Some(out);
        }
    }
    None
}

/// An Evaluate item on `p`: a classmate's answer for the last line, one of its wrong outputs,
/// and the misreading behind it as their reason ([`belief`]); is the classmate right? The right
/// option rejects it with the rule the misreading breaks ([`principle`]; its reason names the
/// book's output); the wrong ones accept it, or reject it for a false reason (other misreadings
/// stated as rules). Only for a line whose output and that wrong output are one short line each (the
/// stem names them), and a misreading that is not [`side`]; `None` otherwise.
pub fn judge_item(p: &Prediction, nearby: &[&str], evidence: ItemEvidence) -> Option<Item> {
    let short = |o: &str| !o.contains('\n') && o.chars().count() <= 40 && o != NO_ERROR;
    if p.program || !short(&p.output) {
        return None;
    }
    let heading = terms(&evidence.heading_path.join(" "));
    let mut wrong: Vec<&WrongOutput> = p.wrong.iter().take(WRONG).filter(|w| !w.rule.contains('+') && short(&w.output) && !side(&w.rule, &heading)).collect();
    wrong.sort_by_key(|w| !about(&w.rule, &heading));
    let (w, rule, right) = wrong.into_iter().find_map(|w| principle(&w.rule).map(|r| (w, w.rule.as_str(), r)))?;
    let reason = belief(rule)?;
    let others: Vec<(&str, String)> = beliefs(p, rule, &right, nearby)?.into_iter().filter(|(r, _)| *r != rule).take(2).collect();
    if others.len() < 2 {
        return None;
    }
    let question = format!("{JUDGE} `{}` because “{reason}” Is the classmate right?\n\n{}", w.output, p.transcript());
    let mut options = vec![format!("Yes: the last line shows `{}`.", w.output)];
    let mut rationales = vec![format!("That accepts a misreading: {right}")];
    for (r, b) in &others {
        options.push(format!("No: {b}"));
        rationales.push(format!("The verdict is right, but the reason is not how Python works: {}", principle(r).unwrap_or_default()));
    }
    let key = super::check::key_position(&question);
    // No option names the book's output: the key would be the only one that did.
    options.insert(key, format!("No: {right}"));
    rationales.insert(key, format!("The classmate's reason is a misreading: {right} The last line shows {}.", p.output));
    let rationales = rationales.iter().map(|r| super::clip(r, prompt::REASON_MAX_CHARS)).collect();
    let concepts = concept(rule).map(|c| vec![c.to_string()]).unwrap_or_default();
    Some(Item { question, options, answer_index: key, rationales, bloom: Bloom::Evaluate, concepts, evidence: vec![evidence] })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::predict::fixtures::{sliced, wrong};

    fn evidence() -> ItemEvidence {
        ItemEvidence { chunk: 0, section: 0, file: "f".into(), heading_path: vec!["Strings".into()], quote: String::new() }
    }

    #[test]
    fn the_item_keys_the_books_output_and_explains_each_misreading() {
        let item = item(&sliced(), evidence());
        assert_eq!(item.question, "What does Python show for the last line?\n\n>>> word = 'Python'\n>>> word[2:5]");
        assert_eq!(item.options[item.answer_index], "'tho'");
        assert_eq!(item.options.len(), 4);
        let i = item.options.iter().position(|o| o == "'thon'").unwrap();
        assert!(item.rationales[i].contains("`word[2:6]`") && item.rationales[i].contains("end index"), "{}", item.rationales[i]);
        assert_eq!(item.bloom, Bloom::Apply);
        assert_eq!(item.concepts, vec!["slicing".to_string(), "how the interpreter shows values".to_string()]);
        let (checks, reason) = super::super::check::deterministic(&item, &[], false);
        assert_eq!(reason, None, "{checks:?}");
    }

    #[test]
    fn after_a_wrong_answer_the_why_item_sets_the_broken_rule_against_misreadings() {
        let ev = evidence();
        let p = sliced();
        let item = why_item(&p, Some("'yth'"), &[], ev.clone()).unwrap();
        assert!(explains(&item.question) && !asks(&item.question));
        assert_eq!(item.question, "Why does Python show this for the last line, and not `'yth'`?\n\n>>> word = 'Python'\n>>> word[2:5]\n'tho'");
        assert_eq!(item.options[item.answer_index], "Python counts positions from 0: the first item is at index 0.");
        assert_eq!(item.bloom, Bloom::Understand);
        // The learner's own misreading first among the wrong options, then the item's others.
        let others: Vec<&str> = item.options.iter().enumerate().filter(|(i, _)| *i != item.answer_index).map(|(_, o)| o.as_str()).collect();
        assert_eq!(others, ["slice_from_one", "slice_end", "display"].map(|r| belief(r).unwrap()));
        assert!(item.rationales[item.answer_index].contains("`word[2:5]` shows 'tho'"), "{}", item.rationales[item.answer_index]);
        let (checks, reason) = super::super::check::deterministic(&item, &[], false);
        assert_eq!(reason, None, "{checks:?}");
        // Prepared before the answer: the commonest misreading, no option named.
        let early = why_item(&p, None, &[], ev.clone()).unwrap();
        assert!(early.question.starts_with("Why does Python show this for the last line?\n"));
        assert_eq!(early.options[early.answer_index], principle("slice_end").unwrap());
        // Misreadings that state no rule give no item; the chapter's others fill the options.
        let mut keys = sliced();
        keys.wrong = vec![wrong("'yth'", "other_key", ""), wrong("x", "no_error", ""), wrong("'tho'", "slice_end", "")];
        assert!(why_item(&keys, Some("'yth'"), &[], ev.clone()).is_none());
        let filled = why_item(&keys, Some("'yth'"), &["range_end", "alias+display"], ev.clone()).unwrap();
        assert_eq!(filled.options[filled.answer_index], principle("slice_end").unwrap());
        assert!(filled.options.iter().any(|o| *o == belief("alias").unwrap()));
        // A method read as another: the one called, doing what the other does.
        let mut methods = sliced();
        methods.wrong = vec![wrong("1", "method:count:index", ""), wrong("'THO'", "method:lower:upper", ""), wrong("'tho'", "slice_end", "")];
        let m = why_item(&methods, Some("1"), &[], ev).unwrap();
        assert_eq!(m.options[m.answer_index], "`.count(x)` gives how many times x occurs.");
        assert!(m.options.iter().any(|o| o == "`.count(x)` gives the index where x first occurs."), "{:?}", m.options);
    }

    #[test]
    fn a_why_or_judge_item_made_ahead_explains_what_the_section_teaches() {
        let on = |heading: &str| ItemEvidence { heading_path: vec!["Chapter 2".into(), heading.into()], ..evidence() };
        // `print(a, b)` after a swap: how print() spaces its arguments is not the lesson there,
        // unless the learner chose that misreading; it is in a section on print().
        let mut swap = sliced();
        swap.setup = vec!["a, b = 5, 9\n".into(), "a, b = b, a\n".into()];
        swap.code = "print(a, b)\n".into();
        swap.output = "9 5".into();
        swap.wrong = vec![wrong("95", "print_sep", "print(a, b, sep='')"), wrong("9 9", "alias", ""), wrong("5 9", "display", "")];
        let swapping = on("2.6 Swapping two variables");
        let print_sep = principle("print_sep").unwrap();
        assert!(why_item(&swap, None, &["range_end"], swapping.clone()).is_none_or(|w| w.options[w.answer_index] != print_sep));
        assert!(judge_item(&swap, &["range_end", "slice_end"], swapping.clone()).is_none_or(|j| !j.question.contains("`95`")));
        let chosen = why_item(&swap, Some("95"), &["range_end"], swapping).unwrap();
        assert_eq!(chosen.options[chosen.answer_index], print_sep);
        let printing = on("2.2 print() and its arguments");
        let why = why_item(&swap, None, &["range_end"], printing.clone()).unwrap();
        assert_eq!(why.options[why.answer_index], print_sep);
        assert!(judge_item(&swap, &["range_end", "slice_end"], printing).is_some_and(|j| j.question.contains("`95`")));
        // Of two misreadings, the one the section is about first.
        let mut two = sliced();
        two.wrong = vec![wrong("'yth'", "index_from_one", "word[1:4]"), wrong("'thon'", "slice_end", "word[2:6]"), wrong("tho", "display", "")];
        let first = why_item(&two, None, &[], on("1.3 Positions")).unwrap();
        assert_eq!(first.options[first.answer_index], principle("index_from_one").unwrap());
        let why = why_item(&two, None, &[], on("1.3 Slicing")).unwrap();
        assert_eq!(why.options[why.answer_index], principle("slice_end").unwrap());
    }

    #[test]
    fn a_classmates_misreading_is_judged_by_the_rule_it_breaks() {
        let p = sliced();
        let item = judge_item(&p, &[], evidence()).unwrap();
        assert!(judges(&item.question) && shows_code(&item.question) && item.bloom == Bloom::Evaluate);
        assert_eq!(item.question, "A classmate says the last line shows `'thon'` because “A slice includes the item at its end index.” Is the classmate right?\n\n>>> word = 'Python'\n>>> word[2:5]");
        assert_eq!(item.options[item.answer_index], format!("No: {}", principle("slice_end").unwrap()));
        let others: Vec<&str> = item.options.iter().enumerate().filter(|(i, _)| *i != item.answer_index).map(|(_, o)| o.as_str()).collect();
        assert_eq!(others, ["Yes: the last line shows `'thon'`.".to_string(), format!("No: {}", belief("slice_from_one").unwrap()), format!("No: {}", belief("display").unwrap())]);
        assert!(!item.options.iter().any(|o| o.contains("'tho'") && !o.contains("'thon'")), "no option names the book's output");
        let (checks, reason) = super::super::check::deterministic(&item, &[], false);
        assert_eq!(reason, None, "{checks:?}");
        // A program, or an output too long to quote: none.
        let mut program = sliced();
        program.program = true;
        assert!(judge_item(&program, &[], evidence()).is_none());
    }

    #[test]
    fn every_misreading_with_a_belief_states_its_rule_alone() {
        let swaps = ["method:append:extend", "method:find:rfind", "builtin:max:min", "builtin:int:round"];
        for rule in crate::index::predict::RULES.iter().chain(&swaps) {
            if let Some(b) = belief(rule) {
                let p = principle(rule).unwrap();
                assert!(!p.starts_with("That") && p != b, "{rule}: {p}");
                // A creative question's knowledge part can ask for it.
                assert!(crate::index::predict::recall(rule).is_some_and(|q| q.ends_with('?')), "{rule}");
            }
        }
        assert!(swaps.iter().all(|r| belief(r).is_some()));
    }
}
