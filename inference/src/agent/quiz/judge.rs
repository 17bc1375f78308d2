//! "Is a classmate's answer right?" items (Bloom's Evaluate) in a language the model does not
//! write: an Understand item whose answer the book gives — why, for a reason it states
//! ([`super::cause`]), or how two things its table compares differ ([`super::contrast`]) — with
//! the misreading among its wrong options as a classmate's answer:
//!
//! "“ধমনি ও শিরার প্রাচীর যথাক্রমে—” — এ প্রশ্নের উত্তরে রিয়া লিখেছে: “পাতলা ও পুরু ও
//! স্থিতিস্থাপক”। রিয়ার উত্তর সম্পর্কে কোনটি ঠিক?"
//!
//! The options: the answer accepted ("ঠিক; বইয়েও তা-ই আছে"), and three corrections ("ঠিক নয়;
//! উত্তর হবে: …"), the book's answer and the item's two other wrong options. A learner must judge
//! the answer against the book and then know the right one: two steps, where the underlying item
//! asks one. Each option's reason is the underlying item's, so the key rests on the book's words
//! alone, as that item's does. (A line of the book's Python session judged:
//! [`super::predict::judge_item`].)

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
/// answer (a verifier's text; the classmate's answer in the stem is wrong on purpose). `None`
/// for another item.
pub fn claimed(question: &str, key: &str) -> Option<String> {
    if !asks(question) {
        return None;
    }
    let asked = question.strip_prefix('“')?.split_once(&format!("” {SAYS}"))?.0;
    Some(format!("{asked} {}", key.strip_prefix(CORRECTED)?))
}

/// The item that judges `base`'s wrong option `claim` as a classmate's answer; `None` when
/// `claim` is the key, `base` has not four options, or an option or reason would be too long.
pub fn item(base: &Item, claim: usize) -> Option<Item> {
    if base.options.len() != 4 || base.rationales.len() != 4 || claim == base.answer_index || claim >= 4 {
        return None;
    }
    let name = NAMES[check::spread(&base.question, NAMES.len())];
    let whose = genitive(name);
    let question = format!("“{}” {SAYS} {name} লিখেছে: “{}”। {whose} {ASK}", base.question.trim_end(), base.options[claim].trim_end_matches(['।', ' ']));
    // A reason is the underlying item's after a few words of verdict, its quote shortened to
    // stay under the limit (a reason cut at the limit reads as cut off).
    let fit = |lead: &str, reason: &str| format!("{lead}{}", clip(reason, prompt::REASON_MAX_CHARS - 4 - lead.chars().count()));
    let mistaken = format!("{whose} উত্তর ভুল। ");
    let mut options = vec![RIGHT.to_string()];
    let mut rationales = vec![fit(&mistaken, &base.rationales[claim])];
    for j in (0..4).filter(|&j| j != claim && j != base.answer_index) {
        options.push(format!("{CORRECTED}{}", base.options[j]));
        rationales.push(fit("উত্তরটি ভুল ঠিকই, কিন্তু এ সংশোধনও ভুল। ", &base.rationales[j]));
    }
    let at = check::key_position(&question);
    options.insert(at, format!("{CORRECTED}{}", base.options[base.answer_index]));
    rationales.insert(at, fit(&mistaken, &base.rationales[base.answer_index]));
    if options.iter().any(|o| o.chars().count() > prompt::OPTION_MAX_CHARS) {
        return None;
    }
    Some(Item { question, options, answer_index: at, rationales, bloom: Bloom::Evaluate, concepts: base.concepts.clone(), evidence: base.evidence.clone() })
}

/// The wrong option of `base` a classmate would give: the first whose reason opens with
/// `misreading` (the reason turned, the pairing swapped). `None` where there is none: a reason
/// the book gives for another thing is no one's answer (a learner rules it out by its topic).
pub fn misread(base: &Item, misreading: &str) -> Option<usize> {
    (0..base.options.len()).find(|&j| j != base.answer_index && base.rationales.get(j).is_some_and(|r| r.starts_with(misreading)))
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
    fn the_classmate_gives_the_misreading_and_the_key_corrects_it_with_the_books_answer() {
        let b = base();
        let claim = misread(&b, "ক্রম উল্টে গেছে").unwrap();
        assert_eq!(claim, 0);
        let item = item(&b, claim).unwrap();
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
        assert!(item.rationales[accept].contains("ক্রম উল্টে গেছে"), "{}", item.rationales[accept]);
        assert!(item.rationales[item.answer_index].starts_with("রিয়ার উত্তর ভুল। ") || !item.question.contains("রিয়া"));
        assert_eq!(claimed(&item.question, &item.options[item.answer_index]).as_deref(), Some("ধমনি ও শিরার প্রাচীর যথাক্রমে— পুরু ও পাতলা"));
        let (checks, reason) = check::deterministic(&item, &[], true);
        assert_eq!(reason, None, "{checks:?}");
    }

    #[test]
    fn no_item_judges_the_key() {
        let b = base();
        assert!(item(&b, b.answer_index).is_none());
        assert_eq!(misread(&b, "উল্টো কথা"), None);
        assert_eq!(claimed("ধমনি ও শিরার প্রাচীর যথাক্রমে—", "পুরু ও পাতলা"), None);
    }
}
