//! A Bangla creative question from the reasons the book gives ([`crate::agent::quiz::cause`])
//! and a term it defines ([`crate::agent::quiz::define`]): no model writes it.
//!
//! The stimulus (উদ্দীপক) tells two learners who notice two things the book explains — the
//! effects of two of its reasons, in the book's words, never the reasons themselves — and
//! disagree whether one rule lies behind both. The four parts, each with its answer from the
//! book (the marking guide a teacher checks scripts against):
//! - ক, knowledge (1 mark): a term the request's sections define, asked back;
//! - খ, comprehension (2): why something else the book explains happens; it stands without the
//!   stimulus;
//! - গ, application (3): why the first thing noticed happens (its reason);
//! - ঘ, higher order (4): compare the two reasons and judge the learners' disagreement (the guide
//!   gives both reasons; the judgement is the teacher's to mark).

use super::{Creative, Part, gates, part_meta};
use crate::agent::quiz::cause::Cause;
use crate::agent::quiz::define::Definition;
use crate::agent::route::Lang;

/// The two learners of a stimulus, chosen by the seed.
const NAMES: [(&str, &str); 6] = [("রিনা", "তানভীর"), ("নাদিয়া", "আরিফ"), ("মিতু", "সামি"), ("আনিকা", "রাফি"), ("সাদিয়া", "ফাহিম"), ("টুম্পা", "ইমরান")];

/// Whether `c`'s effect is something a learner can notice happen: it ends with a verb ("… দুধ
/// উপচে পড়ে", "… সবুজ দেখায়", "… দেবে যায় না"), not a class or a quality ("সব প্রাণী
/// পরভোজী", "বল একটি ভেক্টর রাশি"), not a name the book gives ("… বলা হয়", "… বলে"), not a
/// rule to follow ("… উচিত নয়", "… করা যাবে না"), not a convention ("… ব্যবহার করা হয়").
pub fn noticeable(c: &Cause) -> bool {
    let words: Vec<&str> = c.effect.split_whitespace().collect();
    let last: Vec<&str> = words.iter().rev().take(2).copied().collect();
    let rule = matches!(last.as_slice(), ["হয়", "বলা"] | ["বলে", ..] | ["উচিত", ..] | ["নয়", "উচিত"] | ["যাবে", "করা"] | ["না", "যাবে"]);
    // A convention or a duty, not an event: "… কিলোপ্যাসকেল ব্যবহার করা হয়", "… শক্তির
    // এককেই তাপ মাপা হয়", "… পারদকে নিচে নামাতে হয়".
    let tail: Vec<&str> = words.iter().rev().take(3).copied().collect();
    let convention = matches!(last.as_slice(), ["হয়", duty, ..] if duty.ends_with("তে"))
        || tail.first() == Some(&"হয়") && tail.iter().any(|w| ["ব্যবহার", "মাপা", "প্রকাশ", "পরিমাপ", "নির্ণয়", "লেখা", "ধরা"].contains(w));
    // The verb: the last word, or the one before a negation.
    let verb = match last.as_slice() {
        ["না", v, ..] => v,
        [v, ..] => v,
        [] => return false,
    };
    // Nouns that end like a verb: "… রিকেটস প্রতিরোধের সহজ উপায়".
    let noun = ["উপায়", "সময়", "বিষয়", "অধ্যায়", "ভয়", "ক্ষয়", "আশ্রয়"].contains(verb);
    let finite = !noun && (verb.ends_with('\u{09C7}') || verb.ends_with("\u{09AF}\u{09BC}") || verb.ends_with('\u{09DF}'));
    finite && !rule && !convention
}

/// The creative question whose stimulus notices `first` and `second`, whose part খ asks
/// `other` back and part ক `def` (it must have a question); `headline` names it, `concepts`
/// feed the theory-dump gate, `seed` picks the names. `None` when a gate fails.
pub fn creative(first: &Cause, second: &Cause, other: &Cause, def: &Definition, headline: &str, concepts: &[String], seed: u64) -> Option<(Creative, gates::Gates)> {
    let (a, b) = NAMES[(seed % NAMES.len() as u64) as usize];
    let marker = gates::marker(Lang::Bn);
    let clue = format!(
        "{marker} {a} ও {b} দুই বন্ধু; বিজ্ঞান ক্লাসের পর চারপাশে যা দেখে, তারা খাতায় লিখে রাখে। একদিন {a} লক্ষ করল, {}। সেদিনই {b} দেখাল, {}। {a} বলল, দুটি ঘটনার পেছনে একই নিয়ম কাজ করছে। {b} বলল, দুটির কারণ আলাদা হতে পারে। তারা ঠিক করল, শিক্ষকের সাহায্যে ঘটনা দুটির কারণ খুঁজে বের করবে।",
        first.effect, second.effect
    );
    let book = |s: &str| format!("বইয়ে আছে: “{s}”");
    let knowledge = (def.question.clone()?, format!("{}। {}", def.term, book(&def.sentence)));
    let comprehension = (format!("{} কেন? ব্যাখ্যা করো।", other.effect), format!("{}। {}", other.cause, book(&other.sentence)));
    let application = (format!("উদ্দীপকে {a} যা লক্ষ করল, তার কারণ ব্যাখ্যা করো।"), format!("{}। {}", first.cause, book(&first.sentence)));
    let higher = (
        "উদ্দীপকের ঘটনা দুটির কারণ তুলনা করে দুই বন্ধুর মধ্যে কার কথা যথার্থ, বিশ্লেষণ করো।".to_string(),
        format!(
            "প্রথম ঘটনার কারণ: {}। দ্বিতীয় ঘটনার কারণ: {}। উত্তরে কারণ দুটির মিল ও অমিল দেখিয়ে সিদ্ধান্ত দিতে হবে। {} {}",
            first.cause,
            second.cause,
            book(&first.sentence),
            book(&second.sentence)
        ),
    );
    let parts: Vec<Part> = [knowledge, comprehension, application, higher]
        .into_iter()
        .enumerate()
        .map(|(i, (question, answer))| {
            let (label, skill, marks) = part_meta(i, Lang::Bn);
            Part { label: label.into(), skill: skill.into(), question, marks, answer }
        })
        .collect();
    let questions: Vec<String> = parts.iter().map(|p| p.question.clone()).collect();
    let g = gates::cq(&clue, &questions, concepts, Lang::Bn);
    g.values().all(|&ok| ok).then(|| (Creative { headline: headline.to_string(), clue, parts }, g))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::quiz::{cause, define};

    #[test]
    fn a_creative_question_tells_what_was_noticed_and_asks_why() {
        let text = "গ্রীষ্মকালে রেললাইনের লোহা বেশি প্রসারিত হয়, তাই দুটি লাইনের জোড়ার মাঝে সামান্য ফাঁক রাখা হয়।\n\n\
                    চুলায় কানায় কানায় ভরা দুধের পাত্র বসালে দুধ উপচে পড়ে, কারণ পাত্রের চেয়ে দুধ বেশি প্রসারিত হয়।\n\n\
                    মাটির হাঁড়িতে রাখা খাবার অনেকক্ষণ গরম থাকে, কারণ পোড়ামাটি তাপের কুপরিবাহী।\n\n\
                    যে প্রক্রিয়ায় তাপ পেলে কোনো বস্তুর আয়তন বেড়ে যায়, তাকে প্রসারণ বলে।";
        let reasons = cause::causes(text, 0);
        assert_eq!(reasons.len(), 3);
        let def = &define::definitions(text, 0)[0];
        let (cq, g) = creative(&reasons[0], &reasons[1], &reasons[2], def, "প্রসারণ", &["প্রসারণ".into()], 0).unwrap();
        assert!(g.values().all(|&ok| ok), "{g:?}");
        assert!(cq.clue.starts_with("উদ্দীপক:"));
        assert!(cq.clue.contains("দুটি লাইনের জোড়ার মাঝে সামান্য ফাঁক রাখা হয়") && cq.clue.contains("দুধ উপচে পড়ে"));
        // The stimulus tells what was noticed, never why.
        assert!(!cq.clue.contains("বেশি প্রসারিত"), "{}", cq.clue);
        assert_eq!(cq.parts.iter().map(|p| p.marks).collect::<Vec<_>>(), [1, 2, 3, 4]);
        assert_eq!(cq.parts[0].question, "যে প্রক্রিয়ায় তাপ পেলে কোনো বস্তুর আয়তন বেড়ে যায়, তাকে কী বলে?");
        assert!(cq.parts[0].answer.starts_with("প্রসারণ।"));
        assert_eq!(cq.parts[1].question, "মাটির হাঁড়িতে রাখা খাবার অনেকক্ষণ গরম থাকে কেন? ব্যাখ্যা করো।");
        assert!(cq.parts[2].answer.starts_with("গ্রীষ্মকালে রেললাইনের লোহা বেশি প্রসারিত হয়।"), "{}", cq.parts[2].answer);
        assert!(cq.parts[3].answer.contains("পাত্রের চেয়ে দুধ বেশি প্রসারিত হয়"));
        // A name the book gives is not something noticed.
        let named = cause::causes("প্রয়োজনের সময় ATP ভেঙে শক্তি পাওয়া যায়। এ কারণে ATP-কে কোষের শক্তির মুদ্রা বলা হয়।", 0);
        assert!(!noticeable(&named[0]) && noticeable(&reasons[0]));
        // A class or a quality is not something that happens.
        let class = cause::causes("মানুষসহ সব প্রাণী পরভোজী, কারণ খাদ্যের জন্য তারা অন্য জীবের ওপর নির্ভরশীল।", 0);
        assert!(!noticeable(&class[0]));
        let negated = cause::causes("মরুভূমির উটের পায়ের তলা চ্যাপ্টা ও চওড়া, তাই উট বালুতে দেবে যায় না।", 0);
        assert!(noticeable(&negated[0]));
        let unit = cause::causes("প্যাসকেল খুব ছোট একক, তাই অনেক সময় কিলোপ্যাসকেল (kPa) ব্যবহার করা হয়।", 0);
        assert!(!noticeable(&unit[0]));
        let way = cause::causes("ত্বকে রোদের প্রভাবে ভিটামিন ডি তৈরি হয়। তাই সকালের রোদে খেলাধুলা করা রিকেটস প্রতিরোধের সহজ উপায়।", 0);
        assert!(!noticeable(&way[0]));
    }
}
