//! "Is a classmate's answer right?" items (Bloom's Evaluate) in a language the model does not
//! write: an Understand item whose answer the book gives — why, for a reason it states
//! ([`super::cause`]), or how two things its table compares differ ([`super::contrast`]) — with
//! one of its options as a classmate's answer, mostly a misreading among its wrong ones:
//!
//! "“ধমনি ও শিরার প্রাচীর যথাক্রমে—” — এ প্রশ্নের উত্তরে রিয়া লিখেছে: “পাতলা; পুরু ও
//! স্থিতিস্থাপক”। রিয়ার উত্তর সম্পর্কে কোনটি ঠিক?"
//!
//! The options: the answer accepted ("ঠিক; বইয়েও তা-ই আছে") and three corrections ("ঠিক নয়;
//! উত্তর হবে: …") to the underlying item's other options, the book's answer among them unless the
//! classmate gave it. About one classmate in four gives the book's answer, and a row's misreading
//! is any of its wrong pairings, so neither "the classmate is always wrong" nor "the key reverses
//! the answer" gives the key away ([`answer`]). A learner must judge the answer against the book
//! and then know the right one: two steps, where the underlying item asks one. Each option's
//! reason is the underlying item's, so the key rests on the book's words alone, as that item's
//! does. (A line of the book's Python session judged: [`super::predict::judge_item`].)

use super::contrast::genitive;
use super::{Bloom, Item, check, clip, prompt};

/// Classmates' names, one per stem (spread by its text).
const NAMES: [&str; 6] = ["রিয়া", "তামিম", "নাফিস", "সুমি", "জয়", "মিতা"];
/// What joins the underlying question to the classmate's answer.
const SAYS: &str = "— এ প্রশ্নের উত্তরে";
/// What the stem asks.
const ASK: &str = "উত্তর সম্পর্কে কোনটি ঠিক?";
/// The option that accepts the classmate's answer.
const RIGHT: &str = "ঠিক; বইয়েও তা-ই আছে";
/// How each correction opens.
const CORRECTED: &str = "ঠিক নয়; উত্তর হবে: ";

/// Whether `question` is such an item's (its options answer the classmate the stem quotes).
pub fn asks(question: &str) -> bool {
    question.contains(SAYS) && question.ends_with(ASK)
}

/// What such an item with `key` as its keyed option claims: the underlying question and its
/// answer, the key's correction or, where the classmate is right, the classmate's answer (a
/// verifier's text; a wrong classmate's answer is wrong on purpose). `None` for another item.
pub fn claimed(question: &str, key: &str) -> Option<String> {
    if !asks(question) {
        return None;
    }
    let (asked, rest) = question.strip_prefix('“')?.split_once(&format!("” {SAYS}"))?;
    let answer = if key == RIGHT { rest.split_once("লিখেছে: “")?.1.split_once('”')?.0 } else { key.strip_prefix(CORRECTED)? };
    Some(format!("{asked} {answer}"))
}

/// The option of `base` a classmate gives: about one item in four (by the question's text) the
/// book's answer, so that accepting it is the key as often as any other option; else, in turn by
/// the question's text, one of the wrong options whose reason opens with `misreading` (the
/// reason turned), or any wrong option where `misreading` is `None` (a row's three wrong
/// pairings: not always the swapped one, whose key is then plain to see). `None` where no wrong
/// option qualifies: a reason the book gives for another thing is no one's answer (a learner
/// rules it out by its topic).
pub fn answer(base: &Item, misreading: Option<&str>) -> Option<usize> {
    let wrong: Vec<usize> = (0..base.options.len())
        .filter(|&j| j != base.answer_index && misreading.is_none_or(|m| base.rationales.get(j).is_some_and(|r| r.starts_with(m))))
        .collect();
    if wrong.is_empty() {
        return None;
    }
    match check::spread(&format!("{} {}", base.question, base.options[base.answer_index]), 4) {
        0 => Some(base.answer_index),
        k => Some(wrong[(k - 1) % wrong.len()]),
    }
}

/// The item that judges `base`'s option `given` as a classmate's answer: "ঠিক; বইয়েও তা-ই আছে"
/// and the corrections to each other option, the key accepting the answer where `given` is
/// `base`'s key and else correcting it to the key; `None` when `base` has not four options or
/// an option would be too long.
pub fn item(base: &Item, given: usize) -> Option<Item> {
    if base.options.len() != 4 || base.rationales.len() != 4 || given >= 4 {
        return None;
    }
    let name = NAMES[check::spread(&base.question, NAMES.len())];
    let whose = genitive(name);
    let question = format!("“{}” {SAYS} {name} লিখেছে: “{}”। {whose} {ASK}", base.question.trim_end(), base.options[given].trim_end_matches(['।', ' ']));
    // A reason is the underlying item's after a few words of verdict, its quote shortened to
    // stay under the limit (a reason cut at the limit reads as cut off).
    let fit = |lead: &str, reason: &str| format!("{lead}{}", clip(reason, prompt::REASON_MAX_CHARS - 4 - lead.chars().count()));
    let right = given == base.answer_index;
    let verdict = if right { format!("{whose} উত্তর ঠিক। ") } else { format!("{whose} উত্তর ভুল। ") };
    // Short, so the book's words after it fit whole (a teacher-reader found reasons cut off).
    let wrong_fix = if right { "এ সংশোধন ভুল। " } else { "এ সংশোধনও ভুল। " };
    let key = if right { RIGHT.to_string() } else { format!("{CORRECTED}{}", base.options[base.answer_index]) };
    let key_reason = fit(&verdict, &base.rationales[base.answer_index]);
    let mut options = Vec::new();
    let mut rationales = Vec::new();
    if !right {
        options.push(RIGHT.to_string());
        rationales.push(fit(&verdict, &base.rationales[given]));
    }
    for j in (0..4).filter(|&j| j != given && j != base.answer_index) {
        options.push(format!("{CORRECTED}{}", base.options[j]));
        rationales.push(fit(wrong_fix, &base.rationales[j]));
    }
    let at = check::key_position(&question);
    options.insert(at, key);
    rationales.insert(at, key_reason);
    if options.iter().any(|o| o.chars().count() > prompt::OPTION_MAX_CHARS) {
        return None;
    }
    Some(Item { question, options, answer_index: at, rationales, bloom: Bloom::Evaluate, concepts: base.concepts.clone(), evidence: base.evidence.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::quiz::ItemEvidence;

    fn base() -> Item {
        Item {
            question: "ধমনি ও শিরার প্রাচীর যথাক্রমে—".into(),
            options: vec!["পাতলা ও পুরু".into(), "পুরু ও পাতলা".into(), "উভয় ক্ষেত্রেই পুরু".into(), "উভয় ক্ষেত্রেই পাতলা".into()],
            answer_index: 1,
            rationales: vec![
                "ক্রম উল্টে গেছে। বইয়ের সারণিতে: ধমনি — পুরু; শিরা — পাতলা।".into(),
                "বইয়ের সারণিতে: ধমনি — পুরু; শিরা — পাতলা।".into(),
                "শিরার ক্ষেত্রে তা নয়: পাতলা। বইয়ের সারণিতে: ধমনি — পুরু; শিরা — পাতলা।".into(),
                "ধমনির ক্ষেত্রে তা নয়: পুরু। বইয়ের সারণিতে: ধমনি — পুরু; শিরা — পাতলা।".into(),
            ],
            bloom: Bloom::Understand,
            concepts: vec!["ধমনি".into(), "শিরা".into()],
            evidence: vec![ItemEvidence { chunk: 3, section: 1, file: "f.md".into(), heading_path: vec!["ধমনি ও শিরা".into()], quote: "বিষয় | ধমনি | শিরা\nপ্রাচীর | পুরু | পাতলা".into() }],
        }
    }

    #[test]
    fn a_wrong_classmate_is_corrected_with_the_books_answer() {
        let b = base();
        let item = item(&b, 0).unwrap();
        assert!(asks(&item.question), "{}", item.question);
        assert!(item.question.starts_with("“ধমনি ও শিরার প্রাচীর যথাক্রমে—” — এ প্রশ্নের উত্তরে ") && item.question.contains("লিখেছে: “পাতলা ও পুরু”।"), "{}", item.question);
        assert_eq!(item.options[item.answer_index], "ঠিক নয়; উত্তর হবে: পুরু ও পাতলা");
        assert_eq!(item.bloom, Bloom::Evaluate);
        assert_eq!(item.evidence, b.evidence);
        // The answer accepted, the key, and the two other wrong options as wrong corrections.
        assert!(item.options.contains(&RIGHT.to_string()));
        assert!(item.options.contains(&"ঠিক নয়; উত্তর হবে: উভয় ক্ষেত্রেই পুরু".to_string()));
        assert!(!item.options.iter().any(|o| o.ends_with("পাতলা ও পুরু")));
        let accept = item.options.iter().position(|o| o == RIGHT).unwrap();
        assert!(item.rationales[accept].contains("উত্তর ভুল। ক্রম উল্টে গেছে"), "{}", item.rationales[accept]);
        assert_eq!(claimed(&item.question, &item.options[item.answer_index]).as_deref(), Some("ধমনি ও শিরার প্রাচীর যথাক্রমে— পুরু ও পাতলা"));
        let (checks, reason) = check::deterministic(&item, &[], true);
        assert_eq!(reason, None, "{checks:?}");
    }

    #[test]
    fn a_right_classmate_is_accepted_and_every_correction_is_wrong() {
        let b = base();
        let item = item(&b, b.answer_index).unwrap();
        assert!(item.question.contains("লিখেছে: “পুরু ও পাতলা”।"), "{}", item.question);
        assert_eq!(item.options[item.answer_index], RIGHT);
        assert!(item.rationales[item.answer_index].contains("উত্তর ঠিক। বইয়ের সারণিতে"), "{}", item.rationales[item.answer_index]);
        let corrections: Vec<&String> = item.options.iter().filter(|o| o.starts_with(CORRECTED)).collect();
        assert_eq!(corrections.len(), 3);
        assert!(!corrections.iter().any(|o| o.ends_with("পুরু ও পাতলা")));
        assert_eq!(claimed(&item.question, RIGHT).as_deref(), Some("ধমনি ও শিরার প্রাচীর যথাক্রমে— পুরু ও পাতলা"));
        let (checks, reason) = check::deterministic(&item, &[], true);
        assert_eq!(reason, None, "{checks:?}");
    }

    #[test]
    fn the_classmate_gives_the_book_about_one_time_in_four_and_else_a_misreading() {
        let mut right = 0;
        let mut wrong_given = std::collections::HashSet::new();
        for (i, aspect) in ["প্রাচীর", "গহ্বর", "কপাটিকা", "রক্তের চাপ", "প্রবাহের দিক", "রক্তের রং", "অবস্থান", "স্পন্দন"].iter().enumerate() {
            let b = Item { question: format!("ধমনি ও শিরার {aspect} যথাক্রমে—"), answer_index: i % 4, ..base() };
            match answer(&b, None) {
                Some(g) if g == b.answer_index => right += 1,
                Some(g) => {
                    wrong_given.insert(g);
                }
                None => panic!("a row always has wrong pairings"),
            }
            // A reason's classmate gives only the reason turned.
            let turned = answer(&b, Some("ক্রম উল্টে গেছে"));
            assert!(turned.is_none_or(|g| g == b.answer_index || b.rationales[g].starts_with("ক্রম উল্টে গেছে")));
        }
        assert!((1..=4).contains(&right), "{right} of 8 right");
        assert!(wrong_given.len() >= 2, "{wrong_given:?}");
        assert_eq!(answer(&base(), Some("উল্টো কথা")), None);
    }
}
