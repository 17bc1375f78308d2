//! The validator's deterministic half: an item's shape, without a model.

use super::{Item, prompt};
use crate::agent::ask::verify::terms;
use crate::agent::author::gates;
use crate::agent::route::Lang;
use std::collections::{BTreeMap, HashSet};

/// Options a validator rejects whatever the item: they let a learner answer without the topic.
const CATCH_ALL: &[&str] = &[
    "all of the above",
    "none of the above",
    "all of these",
    "none of these",
    "both a and b",
    "উপরের সবগুলো",
    "উপরের সবকটি",
    "উপরের কোনোটিই নয়",
    "কোনোটিই নয়",
    "সবগুলো",
];

/// Stem words two items may share before the later one counts as a repeat (Jaccard).
pub const MAX_STEM_OVERLAP: f64 = 0.7;

/// One check's name and whether the item passed it, in the order they run.
pub type Checks = BTreeMap<String, bool>;

fn norm(s: &str) -> String {
    s.to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ").trim_end_matches(['.', '।', '!', '?']).to_string()
}

/// The deterministic checks: four distinct non-empty options (not two wordings of one answer),
/// no catch-all option, a valid answer index, no option or reason cut off at the schema's
/// length limit, a whole reason for every option, no option that
/// repeats the stem, no mention of the passage or of code the question does not show, no near
/// repeat of an earlier question, not the worked example, and the quiz's language. Returns
/// every check and, for the first that failed, the reason as the writer is told it.
pub fn deterministic(item: &Item, earlier: &[&str], bangla: bool) -> (Checks, Option<String>) {
    let mut checks = Checks::new();
    let mut reason: Option<String> = None;
    let mut record = |name: &str, ok: bool, why: &str| {
        checks.insert(name.to_string(), ok);
        if !ok && reason.is_none() {
            reason = Some(why.to_string());
        }
    };
    // A "what does Python show?" item's options are outputs: case and line breaks tell them
    // apart ("0 1 2" is not "0⏎1⏎2"), and they hold the values of the code the stem shows.
    let outputs = super::predict::asks(&item.question);
    let options: Vec<String> = item.options.iter().map(|o| norm(o)).collect();
    record("four_options", options.len() == 4 && options.iter().all(|o| !o.is_empty()), "it did not have four non-empty options");
    let shown: Vec<String> = item.options.iter().map(|o| o.trim().lines().map(str::trim_end).collect::<Vec<_>>().join("\n")).collect();
    let distinct: HashSet<&String> = if outputs { shown.iter().collect() } else { options.iter().collect() };
    record("distinct_options", distinct.len() == options.len(), "two options were the same");
    // One option's words all inside another's ("Something that can be understood through simple
    // language or observation" and "An idea refers to something that can be understood …"): two
    // ways of saying one answer. Words of the stem do not count, nor code values ("[1, 2, 3]"
    // and "[1, 2, 3, 4]" differ by what they hold), and a short option may differ by one word
    // ("only contains numbers", "only contains complex numbers").
    let stem_words = terms(&item.question);
    let option_terms: Vec<HashSet<String>> = item
        .options
        .iter()
        .map(|o| terms(o).into_iter().filter(|w| w.chars().any(char::is_alphabetic) && !stem_words.contains(w)).collect())
        .collect();
    // A reason and its contrary ([`super::cause::contrary`]: "… বেশি থাকে", "… কম থাকে") differ
    // in one word on purpose.
    let same_words = option_terms.iter().enumerate().any(|(i, a)| {
        option_terms.iter().enumerate().any(|(j, b)| {
            i != j && a.len() >= 5 && a.intersection(b).count() as f64 >= 0.9 * a.len() as f64 && !super::cause::contraries(&item.options[i], &item.options[j])
        })
    });
    // A "why" or "judge" item sets a rule against its misreading, in many of the same words on
    // purpose, and a "judge" item's options answer the classmate the stem quotes.
    // A comparison item pairs the same two values differently on purpose; a multiple-completion
    // item's options are the board's combinations of the statements its stem numbers; a
    // Bangla "judge" item's corrections answer the question its stem quotes.
    let curated = super::predict::explains(&item.question)
        || super::predict::judges(&item.question)
        || super::contrast::compares(&item.question)
        || super::completion::asks(&item.question)
        || super::judge::asks(&item.question);
    record("options_differ", outputs || curated || !same_words, "two options said the same thing in different words");
    record(
        "no_all_or_none",
        !options.iter().any(|o| CATCH_ALL.iter().any(|c| o == c || o.starts_with(&format!("{c} ")) || o.ends_with(&format!(" {c}")))),
        "an option was \"all of the above\" or \"none of the above\"",
    );
    record("answer_index", item.answer_index < item.options.len().min(4), "it had no valid correct option");
    // The schema closes a string at its length limit: one that long and not ending as a
    // sentence or a value ends was cut off ("… will be represented by two bytes instead of").
    let cut = |t: &str, max: usize| {
        let t = t.trim();
        t.chars().count() + 2 >= max && !t.ends_with(['.', '!', '?', ')', ']', '}', '"', '\'', '`', '”', '’', '।'])
    };
    record("options_whole", !item.options.iter().any(|o| cut(o, prompt::OPTION_MAX_CHARS)), "an option was too long and was cut off; keep every option short");
    // A reason is a sentence, not its opening ("The passage states").
    let reasoned = |r: &String| {
        let r0 = r.trim();
        let r = r0.trim_end_matches([',', ';', ':', ' ']);
        let last = r.rsplit(' ').next().unwrap_or("").to_lowercase();
        r.split_whitespace().count() >= 5 && !["states", "says", "that", "because", "is", "the", "and", "or"].contains(&last.as_str()) && !cut(r0, prompt::REASON_MAX_CHARS)
    };
    record("rationales", item.rationales.len() == item.options.len() && item.rationales.iter().all(reasoned), "an option's reason was missing or cut off");
    let stem = norm(&item.question);
    record(
        "option_not_in_stem",
        outputs || curated || !options.iter().any(|o| o == &stem || (o.split(' ').count() >= 4 && stem.contains(o.as_str()))),
        "an option repeated the question's own words",
    );
    // An option is an answer, not a question or a question word ("কোনটি", "What is called?"),
    // and not most of the stem again.
    let asks = |o: &String| {
        let o = o.trim().to_lowercase();
        o.ends_with('?') || ["which", "what", "কোনটি", "কী", "কি", "কাকে"].contains(&o.trim_end_matches(['.', '।']))
    };
    let stem_terms = terms(&item.question);
    let restates = |o: &str| {
        // Words only: numbers and code values ("[1, 2, 3]") may well come from the stem.
        let t: HashSet<String> = terms(o).into_iter().filter(|w| w.chars().any(char::is_alphabetic)).collect();
        t.len() >= 3 && t.intersection(&stem_terms).count() as f64 / t.len() as f64 >= 0.8
    };
    record("options_are_answers", outputs || curated || !item.options.iter().any(|o| asks(o) || restates(o)), "an option was a question or repeated the question");
    // The learner never sees the passage, nor a program the question does not show.
    let lower = item.question.to_lowercase();
    // "Key fact": what the writer's turn calls the sentence an item rests on (session 30's q2.1).
    let cites = |t: &str| ["passage", "the text", "the paragraph", "key fact", "অনুচ্ছেদ"].iter().any(|p| t.contains(p));
    record(
        "no_passage_reference",
        !cites(&lower) && !item.options.iter().any(|o| cites(&o.to_lowercase())),
        "it mentioned \"the passage\" or \"the key fact\", which the learner does not see",
    );
    let shows_code = ['`', '\n', '(', '='].iter().any(|c| item.question.contains(*c));
    let points_at_code =
        ["snippet", "this code", "the code above", "the given code", "this program", "the program above", "the defined function", "the function above", "the following", "the last line"]
            .iter()
            .any(|p| lower.contains(p));
    record("shows_what_it_asks_about", shows_code || !points_at_code, "it asked about code or a program it did not show");
    let words = terms(&item.question);
    let repeat = earlier.iter().any(|e| jaccard(&words, &terms(e)) >= MAX_STEM_OVERLAP);
    // "Which of these statements is true?" asks every time; its claims differ.
    record("not_a_repeat", !repeat || super::statement::asks(&item.question), "it repeated an earlier question");
    // A small model may copy the worked example instead of writing about the passage.
    let all: String = std::iter::once(item.question.as_str()).chain(item.options.iter().map(String::as_str)).collect::<Vec<_>>().join(" ");
    let (_, example) = super::prompt::example(bangla);
    record("not_the_example", jaccard(&terms(&all), &terms(&example)) < 0.3, "it copied the example instead of asking about the passage");
    // Items are written in the quiz's language (formulas, units and numbers count for neither).
    let (lang, name) = if bangla { (Lang::Bn, "it was not written in Bangla") } else { (Lang::En, "it was not written in English") };
    record("language", gates::script_share(&all, lang) >= gates::MCQ_SCRIPT, name);
    (checks, reason)
}

fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 { 0.0 } else { a.intersection(b).count() as f64 / union as f64 }
}

/// Where the correct option goes (0–3): spread by the question's text, so the key is not
/// always first, and the same item always lands the same way.
pub fn key_position(question: &str) -> usize {
    spread(question, 4)
}

/// A place among `n` that `text` picks, spread evenly over texts and the same every time (FNV-1a).
pub fn spread(text: &str, n: usize) -> usize {
    let h = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    (h % n as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::quiz::Bloom;

    fn item(q: &str, options: [&str; 4]) -> Item {
        Item {
            question: q.into(),
            options: options.iter().map(|s| s.to_string()).collect(),
            answer_index: 1,
            rationales: vec!["This option is what the book describes.".into(); 4],
            bloom: Bloom::Understand,
            concepts: vec![],
            evidence: vec![],
        }
    }

    #[test]
    fn a_good_item_passes_every_check() {
        let i = item("A learner writes x = [1, 2] and then x.append(3). What does x hold?", ["[1, 2]", "[1, 2, 3]", "[3, 1, 2]", "3"]);
        let (checks, reason) = deterministic(&i, &["What does len() return for an empty list?"], false);
        assert!(checks.values().all(|&ok| ok), "{checks:?}");
        assert_eq!(reason, None);
    }

    #[test]
    fn outputs_are_told_apart_as_shown_and_may_hold_the_stems_values() {
        let q = format!("{}\n\nfruits = ['mango', 'Banana', 'guava']\nfor f in fruits:\n    print(f, end=' ')", crate::agent::quiz::predict::ASK_PROGRAM);
        let run = item(&q, ["mango Banana guava", "mango\nBanana\nguava", "mango banana guava", "It raises an error"]);
        let (checks, reason) = deterministic(&run, &[], false);
        assert_eq!(reason, None, "{checks:?}");
        let same = item(&q, ["mango Banana guava", "mango Banana guava  ", "mango", "It raises an error"]);
        assert!(deterministic(&same, &[], false).1.unwrap().contains("same"), "a trailing space does not show");
        // Printed dictionaries that differ in one count share every word.
        let counts = item(&q, ["{'n': 3, 'a': 4, 'r': 1, 'y': 1}", "{'n': 1, 'a': 1, 'r': 1, 'y': 1}", "{'n': 3, 'a': 4, 'r': 1}", "It raises an error"]);
        assert_eq!(deterministic(&counts, &[], false).1, None);
        // Prose options are still held to the stem: the same words in other case are one answer.
        let prose = item("Which fruits does the list hold?", ["mango Banana guava", "mango banana guava", "mango", "guava"]);
        assert!(deterministic(&prose, &[], false).1.is_some());
    }

    #[test]
    fn each_flaw_is_named() {
        let q = "Which method adds an item to the end of a list?";
        let first_failure = |i: &Item, earlier: &[&str]| deterministic(i, earlier, false).1.unwrap();
        assert!(first_failure(&item(q, ["append", "Append.", "pop", "sort"]), &[]).contains("same"));
        assert!(first_failure(&item(q, ["append", "pop", "sort", "All of the above"]), &[]).contains("all of the above"));
        assert!(first_failure(&item(q, ["append", "pop", "sort", "উপরের সবগুলো"]), &[]).contains("all of the above"));
        assert!(first_failure(&item(q, ["append", "pop", "", "sort"]), &[]).contains("four non-empty"));
        assert!(first_failure(&item(q, ["adds an item to the end", "pop", "sort", "x"]), &[]).contains("question's own words"));
        assert!(first_failure(&item(q, ["append", "pop", "What is called?", "x"]), &[]).contains("was a question"));
        assert!(first_failure(&item("What does the passage say about lists?", ["append", "pop", "sort", "x"]), &[]).contains("the passage"));
        assert!(first_failure(&item("What do we mean by 'an idea' in the given passage?", ["a", "b", "c", "d"]), &[]).contains("the passage"));
        assert!(first_failure(&item(q, ["append", "The passage states it", "sort", "x"]), &[]).contains("the passage"));
        assert!(first_failure(&item("What does the key fact about dictionaries say?", ["a", "b", "c", "d"]), &[]).contains("the passage"));
        assert!(first_failure(&item("What does the code snippet show?", ["a", "b", "c", "d"]), &[]).contains("did not show"));
        assert!(first_failure(&item("What type of error would cause this program to stop?", ["a", "b", "c", "d"]), &[]).contains("did not show"));
        // A question that shows its code may point at it.
        assert!(deterministic(&item("What does this code print: `print(len([1, 2]))`?", ["1", "2", "3", "0"]), &[], false).1.is_none());
        assert!(first_failure(
            &item(q, ["append", "Something that can be understood through simple language or observation", "An idea refers to something that can be understood through simple language or observation", "x"]),
            &[]
        )
        .contains("same thing"));
        let mut cut = item(q, ["append", "pop", "sort", "x"]);
        cut.rationales[1] = "The passage states".into();
        assert!(first_failure(&cut, &[]).contains("cut off"));
        // Short options one word apart, and code values that share numbers, are different answers.
        assert!(deterministic(&item("Why can [None, 'hello', 10] not be sorted?", ["It only contains numbers.", "It only contains complex numbers.", "It mixes types that cannot be compared.", "It is empty."]), &[], false).1.is_none());
        assert!(deterministic(&item("A learner writes x = [1, 2, 3] and x.append(4). What is x?", ["[1, 2, 3]", "[1, 2, 3, 4]", "[4, 1, 2, 3]", "4"]), &[], false).1.is_none());
        cut.rationales[1] = "It adds one item at the end, as the book says that".into();
        assert!(first_failure(&cut, &[]).contains("cut off"));
        // An option or a reason stopped at the schema's length limit (session 29's q1.3, q2.3).
        let long = "'H' stands for 'two-byte unsigned binary number'. This type code specifies that each element in the array will be represented by two bytes instead of";
        assert_eq!(long.chars().count(), 149);
        assert!(first_failure(&item(q, ["append", long, "sort", "x"]), &[]).contains("option was too long"));
        let whole = "'H' stands for 'two-byte unsigned binary number'. This type code specifies that each element in the array will be represented by two bytes, not 16.";
        assert!(deterministic(&item(q, ["append", whole, "sort", "x"]), &[], false).1.is_none());
        let mut reason = String::from("While true under certain conditions (for example, when all of the keys are lowercase strings), this statement contradicts the given example");
        while reason.chars().count() < prompt::REASON_MAX_CHARS {
            reason.push_str(" of the hash codes");
        }
        cut.rationales[1] = reason.chars().take(prompt::REASON_MAX_CHARS).collect();
        assert!(first_failure(&cut, &[]).contains("cut off"), "a reason stopped at the limit: {}", cut.rationales[1]);
        assert!(first_failure(&item(q, ["append", "pop", "কোনটি", "x"]), &[]).contains("was a question"));
        assert!(first_failure(&item(q, ["append", "pop", "which method adds an item to the end", "x"]), &[]).contains("repeated the question"));
        assert!(first_failure(&item(q, ["append", "pop", "sort", "x"]), &["Which method adds an item to the end of a list"]).contains("earlier"));
        let mut bad_index = item(q, ["append", "pop", "sort", "x"]);
        bad_index.answer_index = 4;
        assert!(first_failure(&bad_index, &[]).contains("valid correct option"));
        // "all" inside an ordinary option is fine.
        assert!(deterministic(&item(q, ["append", "pop", "sort all items", "x"]), &[], false).1.is_none());
        // The worked example copied, and an English item in a Bangla quiz.
        let copied = item(
            "A nurse takes a patient's temperature with a clinical thermometer. Why is the reading still correct?",
            ["The kink near the bulb stops the liquid from falling back when it cools.", "Mercury does not contract when it cools.", "The narrow tube makes the liquid rise faster.", "The liquid keeps expanding."],
        );
        assert!(first_failure(&copied, &[]).contains("copied the example"));
        let bn = item("সালোকসংশ্লেষণে কোন গ্যাস নির্গত হয়?", ["অক্সিজেন", "কার্বন ডাইঅক্সাইড", "নাইট্রোজেন", "হাইড্রোজেন"]);
        assert!(deterministic(&bn, &[], true).1.is_none());
        assert!(deterministic(&item(q, ["append", "pop", "sort", "x"]), &[], true).1.unwrap().contains("Bangla"));
    }

    #[test]
    fn key_positions_spread() {
        let seen: HashSet<usize> = (0..40).map(|i| key_position(&format!("question {i}"))).collect();
        assert_eq!(seen.len(), 4);
        assert_eq!(key_position("same"), key_position("same"));
    }
}
