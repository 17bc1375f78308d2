//! Items that ask what Python shows for a line of the book's own session
//! ([`crate::index::predict`]): the key is the book's output, each wrong option what Python
//! shows when one spot is misread, every one of them produced by running code while the bundle
//! was built. No model writes them.

use super::{Bloom, Item, ItemEvidence, prompt};
use crate::bundle::Bundle;
use crate::index::predict::{Prediction, WRONG, concept};

/// The stem's first line, for a session line and for a program.
pub const ASK: &str = "What does Python show for the last line?";
pub const ASK_PROGRAM: &str = "What does this program print?";

/// Whether a stem is one of these items' (a model that copies the stem without the code writes
/// no such item: [`super::check::deterministic`] wants the code shown).
pub fn asks(question: &str) -> bool {
    question.starts_with(ASK) || question.starts_with(ASK_PROGRAM)
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

/// The item for `p`: the key where [`super::check::key_position`] puts it, the first
/// [`WRONG`] wrong outputs (the commonest misreadings first), a reason for each.
pub fn item(p: &Prediction, evidence: ItemEvidence) -> Item {
    let question = format!("{}\n\n{}", if p.program { ASK_PROGRAM } else { ASK }, p.transcript());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::predict::WrongOutput;

    fn wrong(output: &str, rule: &str, code: &str) -> WrongOutput {
        WrongOutput { output: output.into(), rule: rule.into(), code: code.into(), earlier: false }
    }

    #[test]
    fn the_item_keys_the_books_output_and_explains_each_misreading() {
        let p = Prediction {
            section: 0,
            offset: 0,
            setup: vec!["word = 'Python'\n".into()],
            setup_output: vec![String::new()],
            code: "word[2:5]\n".into(),
            output: "'tho'".into(),
            wrong: vec![wrong("'thon'", "slice_end", "word[2:6]"), wrong("'yth'", "slice_from_one", "word[1:4]"), wrong("tho", "display", "print(word[2:5])")],
            program: false,
        };
        let ev = ItemEvidence { chunk: 0, section: 0, file: "f".into(), heading_path: vec!["Strings".into()], quote: String::new() };
        let item = item(&p, ev);
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
}
