//! Items from the reasons the book gives: "… কেন?" ("why …?") with the book's own reason as
//! the key.
//!
//! A Bangla textbook explains with a few connectives: "E, কারণ C।" ("E, because C"), "C, তাই
//! E।" and "C, ফলে E।" ("C, so E"), and a sentence that opens with "তাই", "এ কারণেই" or "ফলে"
//! leaning on the one before ("… সবুজ আলোর বেশির ভাগ প্রতিফলিত হয়। এ কারণেই পাতা আমাদের চোখে
//! সবুজ দেখায়।"). Turned round, each is the explain-why item of Bangladesh's board MCQs and
//! TeachMateGPT's cue for an intermediate one: "E কেন?", its key C, right by construction. The
//! wrong options are the key with one word turned to its opposite ("বেশি" for "কম", a learner
//! who half remembers the reason: [`contrary`]), and reasons the chapter gives for other things
//! (true, but not why E); each option's reason quotes the book. No model writes any of it, so
//! it works where the small models cannot write Bangla (see [`super::define`], the recall items
//! made the same way).
//!
//! [`causes`] finds them in a text; [`pool`] in a course's chapters; [`item`] makes the item.

use super::define::{ANAPHORA, POINTING, PRONOUNS, unlisted};
use super::{Bloom, Item, ItemEvidence, clip, prompt};
use crate::agent::ask::verify::{prose_sentences, terms};
use crate::agent::author::gates;
use crate::agent::route::Lang;
use crate::bundle::Bundle;
use crate::index::outline::SectionKind;
use std::collections::HashSet;

/// A reason the book gives for something.
#[derive(Clone, Debug, PartialEq)]
pub struct Cause {
    /// What the book explains ("দিনে উদ্ভিদ মোটের ওপর অক্সিজেন ত্যাগ করে").
    pub effect: String,
    /// The reason it gives ("দিনের আলোয় সালোকসংশ্লেষণের হার শ্বসনের হারের চেয়ে বেশি থাকে").
    pub cause: String,
    /// The book's words, verbatim: the sentence, after the one before when the sentence opens
    /// with the connective.
    pub sentence: String,
    pub section: u32,
    /// The heading of its section ([`pool`] sets it; empty from [`causes`]).
    pub heading: String,
}

impl Cause {
    /// The question that asks for the reason.
    pub fn question(&self) -> String {
        format!("{} কেন?", self.effect)
    }
}

/// How the reason of a wrong option that turns the book's reason opens.
pub const TURNED: &str = "উল্টো কথা";
/// "E, কারণ C": the effect comes first.
const BECAUSE: &[&str] = &[", কারণ ", "; কারণ ", ", কেননা ", "; কেননা "];
/// "C, তাই E": the cause comes first.
const SO: &[&str] = &[", তাই ", "; তাই ", ", ফলে ", "; ফলে ", ", এর ফলে ", ", এ কারণে ", ", এ কারণেই ", ", এ জন্য ", ", এজন্য ", ", সে জন্য "];
/// A sentence that opens with these explains the sentence before.
const OPENERS: &[&str] = &["এ কারণেই ", "এ কারণে ", "এই কারণে ", "সে কারণে ", "সেই কারণে ", "এর ফলে ", "ফলে ", "এ জন্যই ", "এ জন্য ", "এজন্য ", "সে জন্য ", "তাই "];
/// Connectives that lean on the sentence before, left out of a clause's start.
const LEADS: &[&str] = &["তাই ", "তবে ", "কিন্তু ", "আবার ", "অন্যদিকে ", "ফলে ", "অর্থাৎ ", "এ ছাড়া ", "সুতরাং ", "কারণ ", "এরপর ", "তারপর ", "পরে ", "আর "];
/// Lead-ins left out of a reason's start.
const LEAD_INS: &[&str] = &["মনে রাখতে হবে, ", "মনে রাখো, ", "মনে রাখবে, ", "লক্ষ করো, ", "লক্ষ করো: "];
/// An effect that ends with these is an instruction ("সাবধানে ব্যবহার করবে"), not something the
/// book explains.
const INSTRUCTIONS: &[&str] = &["করবে", "রাখবে", "নেবে", "দেবে", "ধরবে", "খাবে", "করো", "রাখো", "নাও", "দাও", "দেখো", "করুন"];
/// Words of a reason and their opposites: one turned gives a reason a learner who half
/// remembers it picks ("… শ্বসনের হারের চেয়ে কম থাকে").
const OPPOSITES: &[(&str, &str)] = &[
    ("বেশি", "কম"),
    ("বাড়ে", "কমে"),
    ("বাড়লে", "কমলে"),
    ("বাড়ায়", "কমায়"),
    ("বাড়তে", "কমতে"),
    ("বাড়িয়ে", "কমিয়ে"),
    ("বৃদ্ধি", "হ্রাস"),
    ("উচ্চ", "নিম্ন"),
    ("দ্রুত", "ধীরে"),
    ("গ্রহণ", "ত্যাগ"),
    ("দুর্বল", "তীব্র"),
    ("অম্লীয়", "ক্ষারীয়"),
    ("অম্লে", "ক্ষারে"),
    ("ধনাত্মক", "ঋণাত্মক"),
    ("ভারী", "হালকা"),
    ("গরম", "ঠান্ডা"),
    ("উষ্ণ", "শীতল"),
    ("প্রসারিত", "সংকুচিত"),
    ("প্রসারণ", "সংকোচন"),
    ("দিনে", "রাতে"),
    ("ভেতরে", "বাইরে"),
    ("শোষিত", "প্রতিফলিত"),
    ("শোষণ", "প্রতিফলন"),
    ("আকর্ষণ", "বিকর্ষণ"),
    ("দ্রবণীয়", "অদ্রবণীয়"),
    ("সুপরিবাহী", "কুপরিবাহী"),
    ("পরিবাহী", "অপরিবাহী"),
    ("স্বচ্ছ", "অস্বচ্ছ"),
    ("সবাত", "অবাত"),
    ("জারণ", "বিজারণ"),
    ("উপস্থিতিতে", "অনুপস্থিতিতে"),
    ("সমান", "অসমান"),
];
/// Opposites turned one way only: "নিচে পানির চাপ সবচেয়ে বেশি" → "ওপরে …", but "যত উপরে ওঠা
/// যায়" is no "যত নিচে ওঠা যায়".
const ONE_WAY: &[(&str, &str)] = &[("নিচে", "ওপরে")];
/// Forms of "যাওয়া" after a participle: "কমে যায়" turns into "বেড়ে যায়", not "বাড়ে যায়".
const GOES: &[&str] = &["যায়", "যেতে", "গেলে", "গেছে", "যাবে", "গিয়ে"];
/// Verbs a reason may end with that [`contrary`] negates when no word has an opposite.
const VERBS: &[&str] = &["হয়", "করে", "থাকে", "পারে", "দেয়", "যায়", "আসে", "ঘটে", "নেয়", "রাখে", "পায়", "লাগে", "বাড়ে", "কমে", "চলে", "মেশে", "বাঁচে", "মারে", "ধরে"];
/// Most characters of an effect (the question) and of a reason (an option).
const EFFECT_CHARS: usize = 160;
const CAUSE_CHARS: usize = prompt::OPTION_MAX_CHARS - 10;
/// Characters of a sentence a reason quotes.
const QUOTE_CHARS: usize = 180;

/// The reasons `text`'s prose sentences give (section `section`), in order.
pub fn causes(text: &str, section: u32) -> Vec<Cause> {
    let sentences = prose_sentences(text);
    let mut out = Vec::new();
    for (k, &(place, s)) in sentences.iter().enumerate() {
        let s = unlisted(s);
        let Some(body) = s.strip_suffix('।') else { continue };
        let found = if let Some((effect, cause)) = BECAUSE.iter().find_map(|c| body.split_once(c)) {
            Some((effect.to_string(), cause.to_string(), s.to_string()))
        } else if let Some((cause, effect)) = SO.iter().find_map(|c| body.split_once(c)) {
            Some((effect.to_string(), cause.to_string(), s.to_string()))
        } else if let Some(effect) = OPENERS.iter().find_map(|o| body.strip_prefix(o)) {
            // The sentence before, when it is the one just before in the text: its last clause.
            sentences.get(k.wrapping_sub(1)).filter(|(p, _)| p + 1 == place).and_then(|&(_, before)| {
                let before = unlisted(before);
                let body = before.strip_suffix('।')?;
                // The whole sentence where it fits an option ("০ °C থেকে ৪ °C পর্যন্ত … সংকুচিত
                // হয়; ৪ °C-এর পর থেকে … প্রসারিত হয়": its last clause alone lacks the subject),
                // else its last clause unless that leans on the one before it.
                let last = body.rsplit("; ").next()?;
                let last = if body.chars().count() <= CAUSE_CHARS || leans(last) { body } else { last };
                Some((effect.to_string(), last.to_string(), format!("{before} {s}")))
            })
        } else if let Some((cause, effect)) = since(body) {
            Some((effect, cause, s.to_string()))
        } else {
            None
        };
        let Some((effect, cause, sentence)) = found else { continue };
        // An effect up to a semicolon ("… পাতা হলুদ হয়ে যায়; একে ক্লোরোসিস বলে") or a relative
        // clause ("… ভর সংখ্যা বলা হয়, যাকে A দিয়ে প্রকাশ করা হয়").
        let effect = effect.split("; ").next().unwrap_or("");
        let effect = lead_free([", যাকে ", ", যা "].iter().fold(effect, |e, r| e.split(r).next().unwrap_or(e)));
        // A reason that opens with a connective ("তবে জীবাণু পুরোপুরি মারে না", of the alum
        // the sentence before names) or under a glossary head ("ফিটকিরি: ঘোলা পানির ময়লা …")
        // has its subject elsewhere.
        let Some(cause) = reason(&cause) else { continue };
        if lead_free(&cause) != cause.trim().trim_end_matches([',', ';', ' ']) {
            continue;
        }
        let cause = lead_free(&cause);
        // "তাপ যেহেতু শক্তি, তাই …" ("since"); "মনে রাখতে হবে, পারদ বিষাক্ত" (a lead-in).
        let cause = cause.split_whitespace().filter(|&w| w != "যেহেতু").collect::<Vec<_>>().join(" ");
        let cause = LEAD_INS.iter().find_map(|l| cause.strip_prefix(l)).map_or(cause.clone(), str::to_string);
        if askable(&effect, &cause) {
            out.push(Cause { effect, cause, sentence, section, heading: String::new() });
        }
    }
    out
}

/// A reason given inside one clause: "C বলে E" ("ইলেকট্রনের ভর খুবই কম বলে পরমাণুর ভর মূলত …
/// নির্ভর করে") — "বলে" after a verb or a quality, not the "বলে" of naming ("… তাকে X বলে"),
/// saying ("লিটমাস শুধু বলে …") or "বলে দেয়" — and "C থাকায় E" / "C হওয়ায় E" ("… বায়ুচাপ
/// বেশি থাকায় শরবত … উঠে আসে"), its verb given back ("থাকে", "হয়"). (reason, effect).
fn since(body: &str) -> Option<(String, String)> {
    let words: Vec<&str> = body.split_whitespace().collect();
    let n = words.len();
    let at = (2..n.saturating_sub(3)).find(|&k| because(&words, k) || ["থাকায়", "হওয়ায়"].contains(&words[k]))?;
    let verb = match words[at] {
        "থাকায়" => Some("থাকে"),
        "হওয়ায়" => Some("হয়"),
        _ => None,
    };
    let cause = words[..at].iter().copied().chain(verb).collect::<Vec<_>>().join(" ");
    // Its own clause: after a semicolon ("…মানা হয়; শুধু তলের ছোট ছোট অংশগুলো … হেলে থাকায়").
    let cause = cause.rsplit("; ").next().unwrap_or(&cause).to_string();
    let effect = words[at + 1..].join(" ");
    Some((cause, effect))
}

/// Whether `words[k]` is the "বলে" of a reason: after a verb or a quality ("… কম বলে …"), not
/// before "দেয়", "মনে" ("বলে দেয়", "বলে মনে হয়").
fn because(words: &[&str], k: usize) -> bool {
    let before = if k > 0 { words[k - 1].trim_end_matches(',') } else { "" };
    words[k] == "বলে"
        && (VERBS.contains(&before) || ["না", "নয়", "বেশি", "কম", "আছে", "দরকার"].contains(&before))
        && words.get(k + 1).is_some_and(|after| !["দেয়", "দেন", "মনে", "যে", "জানা"].contains(after))
}

/// A clause without a connective that leans on the sentence before.
fn lead_free(clause: &str) -> String {
    let mut c = clause.trim().trim_end_matches([',', ';', ' ']);
    while let Some(rest) = LEADS.iter().find_map(|l| c.strip_prefix(l)) {
        c = rest.trim_start();
    }
    c.to_string()
}

/// A reason without what follows a colon (an equation: "… স্তর তৈরি করে: Ca(OH)2 + CO2 →
/// …"); `None` under a glossary head of a few words ("ফিটকিরি (…): ঘোলা পানির ময়লা …"),
/// whose clause has its subject in the head.
fn reason(clause: &str) -> Option<String> {
    match clause.split_once(": ") {
        Some((head, _)) if head.split_whitespace().count() <= 4 => None,
        Some((before, _)) => Some(before.to_string()),
        None => Some(clause.to_string()),
    }
}

/// Whether an effect and its reason make an item: Bangla clauses of three words and two or more,
/// short enough for a question and an option, the effect not leaning on the sentence before
/// ("একে …", "এরা …": the question would not stand alone).
fn askable(effect: &str, cause: &str) -> bool {
    let words = |s: &str| s.split_whitespace().count();
    let bangla = |s: &str| gates::script_share(s, Lang::Bn) >= gates::MCQ_SCRIPT;
    words(effect) >= 3
        && words(cause) >= 2
        && effect.chars().count() <= EFFECT_CHARS
        && cause.chars().count() <= CAUSE_CHARS
        // Neither leans on a sentence the learner does not see ("… এটি সবাত শ্বসনের তুলনায় …",
        // "তখন পেশিকোষ …"); a personal pronoun in the reason ("খাদ্যের জন্য তারা …") is the
        // question's own subject.
        && !effect.split_whitespace().any(|w| ANAPHORA.contains(&w) || PRONOUNS.contains(&w) || ["সেখানে", "তাতে"].contains(&w) || w.starts_with("সেদিক"))
        // "পাতটি বেঁকে যায়", "কয়েনটিকে … দেখায়", "চক্রটি চলতে থাকে": the object of an
        // activity or a passage the learner does not see.
        && !effect.split_whitespace().next().is_some_and(definite)
        // A second reason inside the effect or the reason ("… করে বলে ক্ষারক, কিন্তু … হয় না
        // বলে ক্ষার নয়").
        && ![effect, cause].iter().any(|c| {
            let w: Vec<&str> = c.split_whitespace().collect();
            (0..w.len()).any(|k| because(&w, k))
        })
        && !effect.starts_with("তার ")
        && !cause.split_whitespace().next().is_some_and(|w| ANAPHORA.contains(&w) || PRONOUNS.contains(&w))
        // An example ("যেমন …") explains nothing; nor does a reason with a demonstrative
        // ("বাতাস এই গ্যাস …") before its own clauses could name what it points at ("…
        // সারা দেহে; এতে বেশি চাপ …" points inside the reason).
        && !EXAMPLES.iter().any(|e| cause.starts_with(e))
        && !cause.split_whitespace().any(|w| POINTING.contains(&w))
        && !cause.split("; ").next().unwrap_or(cause).split_whitespace().any(|w| DEMONSTRATIVES.contains(&w.trim_end_matches([',', ';'])))
        && !effect.split_whitespace().last().is_some_and(|w| INSTRUCTIONS.contains(&w))
        && !effect.contains(['?', ':'])
        && !cause.contains('?')
        && bangla(effect)
        && bangla(cause)
}

/// Words that point at something a sentence before named ("উজ্জ্বল আলোতে এটি ছোট হয়ে যায়" of
/// the pupil, "… পর এ রোগ অনেক কমেছে" of goitre, "পরিণত অবস্থায় এদের নিউক্লিয়াস থাকে না" of
/// red cells, "স্থান ও সময়ভেদে এতে জলীয় বাষ্প …" of air): a reason holding one does not stand
/// alone.
const DEMONSTRATIVES: &[&str] = &["এ", "এর", "এটি", "এটা", "সেটি", "সেটা", "এগুলো", "সেগুলো", "এরা", "এদের", "এতে"];
/// Words that open an example, not a reason.
const EXAMPLES: &[&str] = &["যেমন", "উদাহরণ", "অর্থাৎ"];

/// Whether `word` is a noun with the definite article ("পাতটি", "কয়েনটিকে", "চক্রটি"), not a
/// count ("দুটি", "একটি", "কয়েকটি") nor a word that ends so ("মাটি").
fn definite(word: &str) -> bool {
    const COUNTS: &[&str] = &["এক", "দু", "দুই", "তিন", "চার", "পাঁচ", "ছয়", "সাত", "আট", "নয়", "দশ", "কয়েক", "অনেক", "প্রতি", "কোনো", "কত", "অন্য"];
    ["টিকে", "টির", "টি", "টাকে", "টা"].iter().find_map(|d| word.strip_suffix(d)).is_some_and(|stem| {
        // "মাটি", "রুটি": the word itself ends so.
        stem.chars().count() >= 3 && !COUNTS.contains(&stem) && !stem.chars().all(|c| c.is_ascii_digit() || ('০'..='৯').contains(&c))
    })
}

/// Whether `cause` opens with a word that points at the sentence it came from ("এটি …",
/// "খাদ্যের জন্য তারা …", "বাতাস এই গ্যাস …"): fine as the key under its own question, unclear as another question's option.
fn leans(cause: &str) -> bool {
    cause.split_whitespace().take(3).any(|w| {
        let w = w.trim_end_matches([',', ';']);
        ANAPHORA.contains(&w) || PRONOUNS.contains(&w) || ["তা", "তাতে", "সেখানে"].contains(&w) || w.starts_with("এদের") || w.starts_with("তাদের")
    })
}

/// `cause` with one word turned to its opposite ([`OPPOSITES`], the first that has one), else
/// with its final verb negated ("… মারে না" ↔ "… মারে"); `None` when neither applies.
pub fn contrary(cause: &str) -> Option<String> {
    contraries_of(cause, 1).into_iter().next()
}

/// Up to `n` contraries of `cause`: each with one word turned to its opposite, in the clause's
/// order; else (no word has one) the final verb negated or its negation dropped.
pub fn contraries_of(cause: &str, n: usize) -> Vec<String> {
    let words: Vec<&str> = cause.split_whitespace().collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if out.len() == n {
            return out;
        }
        if let Some(t) = turned(&words, i) {
            let bare = w.trim_end_matches([',', ';']);
            let mut turned: Vec<String> = words.iter().map(|w| w.to_string()).collect();
            turned[i] = format!("{t}{}", &w[bare.len()..]);
            out.push(turned.join(" "));
        }
    }
    if out.is_empty() && n > 0 {
        match words.as_slice() {
            [head @ .., "না"] if head.len() >= 3 => out.push(head.join(" ")),
            [.., last] if VERBS.contains(last) => out.push(format!("{cause} না")),
            _ => {}
        }
    }
    out
}

/// The opposite of `words[i]`, where it has one that can stand in its place: not a word of a
/// doubled pair ("ধীরে ধীরে" turns whole or not at all), not one whose opposite the clause
/// already says ("অম্লীয় না ক্ষারীয়": turning either says one word twice).
fn turned(words: &[&str], i: usize) -> Option<&'static str> {
    let bare = words[i].trim_end_matches([',', ';']);
    let t = OPPOSITES
        .iter()
        .find_map(|&(a, b)| if bare == a { Some(b) } else if bare == b { Some(a) } else { None })
        .or_else(|| ONE_WAY.iter().find_map(|&(a, b)| (bare == a).then_some(b)))
        .map(|t| if t == "বাড়ে" && words.get(i + 1).is_some_and(|n| GOES.contains(n)) { "বেড়ে" } else { t })?;
    let doubled = words.get(i + 1).is_some_and(|n| n.trim_end_matches([',', ';']) == bare) || i > 0 && words[i - 1] == bare;
    (!doubled && !words.iter().any(|w| w.trim_end_matches([',', ';']) == t)).then_some(t)
}

/// Whether two options are one reason turned ([`contraries_of`]): the same words but for words
/// turned to their opposites, or one negated (they share their words on purpose).
pub fn contraries(a: &str, b: &str) -> bool {
    let (x, y): (Vec<&str>, Vec<&str>) = (a.split_whitespace().collect(), b.split_whitespace().collect());
    if x.len() == y.len() {
        let opposite = |p: &str, q: &str| {
            let (p, q) = (p.trim_end_matches([',', ';']), q.trim_end_matches([',', ';']));
            OPPOSITES.iter().chain(ONE_WAY).any(|&(m, n)| (p == m && q == n) || (p == n && q == m)) || (p == "বেড়ে" && q == "কমে") || (p == "কমে" && q == "বেড়ে")
        };
        let differing: Vec<(&str, &str)> = x.iter().zip(&y).filter(|(p, q)| p != q).map(|(p, q)| (*p, *q)).collect();
        return !differing.is_empty() && differing.iter().all(|(p, q)| opposite(p, q));
    }
    contrary(a).as_deref() == Some(b) || contrary(b).as_deref() == Some(a)
}

/// Every reason the course's taught sections (not exercises) in `files` (all files when empty)
/// give, in outline order.
pub fn pool(bundle: &Bundle, files: &[&str]) -> Vec<Cause> {
    bundle
        .sections
        .iter()
        .filter(|s| (files.is_empty() || files.contains(&s.file.as_str())) && s.kind != SectionKind::Exercise)
        .flat_map(|s| causes(&s.text, s.id).into_iter().map(|c| Cause { heading: s.heading().to_string(), ..c }))
        .collect()
}

/// A course's reasons for making items ([`super::Pools`] of [`pool`]).
pub type Pools<'b> = super::Pools<'b, Cause>;

impl<'b> Pools<'b> {
    pub fn new(bundle: &'b Bundle) -> Self {
        Self::with(bundle, pool)
    }

    /// [`item`] with its chapter's reasons as the other wrong options, else the course's.
    pub fn item(&mut self, c: &Cause, evidence: ItemEvidence) -> Option<Item> {
        self.chapter_then_course(c.section, |p| item(c, p, evidence.clone()))
    }
}

/// The reasons chunk `chunk` gives (its section's sentences that lie in the chunk).
pub fn askable_in(bundle: &Bundle, chunk: u32) -> Vec<Cause> {
    let section = bundle.section_of(chunk);
    let text = bundle.chunk_text(chunk);
    causes(text, section.id).into_iter().map(|c| Cause { heading: section.heading().to_string(), ..c }).collect()
}

/// The item that asks for `c`'s reason, with up to two [`contraries_of`] it and reasons
/// of `pool` for other things as the wrong options: not a rewording of the key (half its words
/// or more), not a reason for the same effect nor one naming a word of it, not one leaning on
/// its own sentence; of similar
/// length to the key (a much longer or shorter option gives the answer away), from the nearest
/// sections. `None` when fewer than three wrong options are found.
pub fn item(c: &Cause, pool: &[Cause], evidence: ItemEvidence) -> Option<Item> {
    let question = c.question();
    let key_terms = terms(&c.cause);
    let effect_terms = terms(&c.effect);
    let question_terms = terms(&question);
    let jaccard = |a: &HashSet<String>, b: &HashSet<String>| {
        let union = a.union(b).count();
        if union == 0 { 0.0 } else { a.intersection(b).count() as f64 / union as f64 }
    };
    let len = |s: &str| s.chars().count() as f64;
    let ratio = |s: &str| (len(s) / len(&c.cause)).max(len(&c.cause) / len(s));
    let mut others: Vec<&Cause> = pool
        .iter()
        .filter(|d| {
            let t = terms(&d.cause);
            d.sentence != c.sentence
                && !leans(&d.cause)
                && jaccard(&t, &key_terms) < 0.5
                // A reason about the question's own subject may well be a reason for it too
                // ("প্রাণীরা উদ্ভিদ … খেয়ে বাঁচে" for "সব প্রাণী পরভোজী কেন?").
                && t.is_disjoint(&effect_terms)
                && jaccard(&terms(&d.effect), &effect_terms) < 0.5
                && !contraries(&d.cause, &c.cause)
                && ratio(&d.cause) <= 2.5
                // An option in the question's own words reads as its answer.
                && !(t.len() >= 2 && t.is_subset(&question_terms))
        })
        .collect();
    // Of those, one sharing words with the key reads as a rival reason.
    others.sort_by_key(|d| (ratio(&d.cause) > 1.8, std::cmp::Reverse(terms(&d.cause).intersection(&key_terms).count()), d.section.abs_diff(c.section)));
    let bangla_quote = |s: &str| clip(s, QUOTE_CHARS);
    let mut options: Vec<String> = Vec::new();
    let mut rationales: Vec<String> = Vec::new();
    // Two turned where the reason has two words with opposites: the learner then chooses among
    // three readings of one reason, not between the reason and its one contrary.
    for turned in contraries_of(&c.cause, 2) {
        options.push(turned);
        rationales.push(format!("{TURNED}। বইয়ে আছে: “{}”", bangla_quote(&c.sentence)));
    }
    for d in others {
        if options.len() == 3 {
            break;
        }
        if options.iter().any(|o| o == &d.cause || contraries(o, &d.cause)) {
            continue;
        }
        options.push(d.cause.clone());
        rationales.push(format!("কথাটি বইয়ে আছে, তবে অন্য প্রসঙ্গে: “{}”", bangla_quote(&d.sentence)));
    }
    if options.len() < 3 {
        return None;
    }
    let key = super::check::key_position(&question);
    options.insert(key, c.cause.clone());
    rationales.insert(key, format!("বইয়ে আছে: “{}”", bangla_quote(&c.sentence)));
    debug_assert!(rationales.iter().all(|r| r.chars().count() <= prompt::REASON_MAX_CHARS));
    let concept = if c.heading.is_empty() { c.effect.clone() } else { c.heading.clone() };
    Some(Item { question, options, answer_index: key, rationales, bloom: Bloom::Understand, concepts: vec![concept], evidence: vec![evidence] })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> Option<(String, String)> {
        causes(s, 0).into_iter().next().map(|c| (c.effect, c.cause))
    }

    #[test]
    fn the_books_connectives_give_an_effect_and_its_reason() {
        assert_eq!(
            one("মানুষসহ সব প্রাণী পরভোজী, কারণ খাদ্যের জন্য তারা অন্য জীবের ওপর নির্ভরশীল।"),
            Some(("মানুষসহ সব প্রাণী পরভোজী".into(), "খাদ্যের জন্য তারা অন্য জীবের ওপর নির্ভরশীল".into()))
        );
        assert_eq!(
            one("দিনের আলোয় সালোকসংশ্লেষণের হার শ্বসনের হারের চেয়ে বেশি থাকে, তাই দিনে উদ্ভিদ মোটের ওপর অক্সিজেন ত্যাগ করে।"),
            Some(("দিনে উদ্ভিদ মোটের ওপর অক্সিজেন ত্যাগ করে".into(), "দিনের আলোয় সালোকসংশ্লেষণের হার শ্বসনের হারের চেয়ে বেশি থাকে".into()))
        );
        // A sentence that opens with the connective leans on the one before (its last clause);
        // the effect stops at a semicolon.
        let text = "ক্লোরোফিল লাল ও নীল আলো বেশি শোষণ করে, কিন্তু সবুজ আলো খুব কম শোষণ করে; সবুজ আলোর বেশির ভাগ প্রতিফলিত হয়। এ কারণেই পাতা আমাদের চোখে সবুজ দেখায়।";
        let c = &causes(text, 0)[0];
        assert_eq!(
            (c.effect.as_str(), c.cause.as_str()),
            ("পাতা আমাদের চোখে সবুজ দেখায়", "ক্লোরোফিল লাল ও নীল আলো বেশি শোষণ করে, কিন্তু সবুজ আলো খুব কম শোষণ করে; সবুজ আলোর বেশির ভাগ প্রতিফলিত হয়")
        );
        assert_eq!(c.sentence, text);
        assert_eq!(c.question(), "পাতা আমাদের চোখে সবুজ দেখায় কেন?");
        assert_eq!(
            one("ক্লোরোফিল অণুর কেন্দ্রে একটি ম্যাগনেসিয়াম (Mg) পরমাণু থাকে। তাই মাটিতে ম্যাগনেসিয়ামের অভাব হলে ক্লোরোফিল কম তৈরি হয় এবং পাতা হলুদ হয়ে যায়; একে ক্লোরোসিস বলে।"),
            Some(("মাটিতে ম্যাগনেসিয়ামের অভাব হলে ক্লোরোফিল কম তৈরি হয় এবং পাতা হলুদ হয়ে যায়".into(), "ক্লোরোফিল অণুর কেন্দ্রে একটি ম্যাগনেসিয়াম (Mg) পরমাণু থাকে".into()))
        );
        // "তাই E, কারণ C": the reason is the কারণ clause; a list's glossary head and an equation
        // after a colon are no part of a reason.
        assert_eq!(
            one("তাই জামার তরকারির হলুদ দাগ সাবান দিয়ে ধুলে লাল হয়ে যায়, কারণ সাবান ক্ষারীয়।").map(|c| c.0),
            Some("জামার তরকারির হলুদ দাগ সাবান দিয়ে ধুলে লাল হয়ে যায়".into())
        );
        assert_eq!(
            one("চুনকামের পর দেয়াল কয়েক দিনে ঝকঝকে সাদা হয়, কারণ কলিচুন বাতাসের CO2-এর সঙ্গে বিক্রিয়া করে সাদা ক্যালসিয়াম কার্বনেটের স্তর তৈরি করে: Ca(OH)2 + CO2 → CaCO3 + H2O।").map(|c| c.1),
            Some("কলিচুন বাতাসের CO2-এর সঙ্গে বিক্রিয়া করে সাদা ক্যালসিয়াম কার্বনেটের স্তর তৈরি করে".into())
        );
        // An effect that leans on the sentence before asks nothing; nor does a sentence
        // without a connective, or one whose opener has no sentence just before.
        assert_eq!(one("অ্যালকোহল দাহ্য, তাই একে কখনো সরাসরি আগুনে গরম করা যাবে না।"), None);
        assert_eq!(one("ক্লোরোফিল ছাড়া সালোকসংশ্লেষণ হয় না।"), None);
        assert_eq!(one("এ কারণেই পাতা আমাদের চোখে সবুজ দেখায়।"), None);
        // A reason that opens with a connective or sits under a glossary head has its subject
        // elsewhere; an example is no reason; the last clause before an opener that leans on
        // the clause before it gives way to the whole sentence.
        assert_eq!(one("তবে জীবাণু পুরোপুরি মারে না, তাই পানি ফুটিয়ে খেতে হয়।"), None);
        assert_eq!(one("ফিটকিরি (KAl(SO4)2·12H2O): ঘোলা পানির ময়লা জমাট বাঁধিয়ে তলায় থিতিয়ে দেয়, ফলে পানি পরিষ্কার হয়।"), None);
        assert_eq!(one("যেমন সোডিয়াম হাইড্রোক্সাইড (NaOH), পটাশিয়াম হাইড্রোক্সাইড (KOH)। তাই সব ক্ষারই ক্ষারক, কিন্তু সব ক্ষারক ক্ষার নয়।"), None);
        assert_eq!(
            one("লিটমাস শুধু বলে দ্রবণটি অম্লীয় না ক্ষারীয়; কতটা অম্লীয়, তা বলে না। সে জন্য pH কাগজ দরকার।").map(|c| c.1),
            Some("লিটমাস শুধু বলে দ্রবণটি অম্লীয় না ক্ষারীয়; কতটা অম্লীয়, তা বলে না".into())
        );
        // "since" and a lead-in are no part of a reason; an instruction is not explained.
        assert_eq!(one("তাপ যেহেতু শক্তি, তাই শক্তির এককেই তাপ মাপা হয়।").map(|c| c.1), Some("তাপ শক্তি".into()));
        assert_eq!(one("মনে রাখতে হবে, পারদ বিষাক্ত; তাই থার্মোমিটার ভেঙে গেলে খালি হাতে পারদ ধরা উচিত নয়।").map(|c| c.1), Some("পারদ বিষাক্ত".into()));
        assert_eq!(one("অ্যাসিটোকারমিন ত্বকে বা কাপড়ে লাগলে দাগ পড়ে, তাই সাবধানে ব্যবহার করবে।"), None);
        // Too long a sentence before: its last clause.
        let long = "ক্লোরোফিল লাল ও নীল আলো বেশি শোষণ করে, কিন্তু সবুজ আলো খুব কম শোষণ করে, আর এ কথা বিজ্ঞানীরা বহু পরীক্ষায় দেখেছেন এবং বইয়ে লিখেছেন; সবুজ আলোর বেশির ভাগ প্রতিফলিত হয়। এ কারণেই পাতা আমাদের চোখে সবুজ দেখায়।";
        assert_eq!(one(long).map(|c| c.1), Some("সবুজ আলোর বেশির ভাগ প্রতিফলিত হয়".into()));
        // A reason inside one clause: "C বলে E", "C থাকায় E"; not the "বলে" of naming or saying.
        assert_eq!(
            one("ইলেকট্রনের ভর খুবই কম বলে পরমাণুর ভর মূলত প্রোটন ও নিউট্রনের ভরের ওপর নির্ভর করে।"),
            Some(("পরমাণুর ভর মূলত প্রোটন ও নিউট্রনের ভরের ওপর নির্ভর করে".into(), "ইলেকট্রনের ভর খুবই কম".into()))
        );
        assert_eq!(
            one("গ্লাসের শরবতের উপর বাইরের বায়ুচাপ বেশি থাকায় শরবত স্ট্র দিয়ে উপরে উঠে আসে।"),
            Some(("শরবত স্ট্র দিয়ে উপরে উঠে আসে".into(), "গ্লাসের শরবতের উপর বাইরের বায়ুচাপ বেশি থাকে".into()))
        );
        assert_eq!(one("লিটমাস শুধু বলে দ্রবণটি অম্লীয় না ক্ষারীয়, তা সহজে বোঝা যায়।"), None);
        assert_eq!(one("কপার অক্সাইড এসিড প্রশমিত করে বলে ক্ষারক, কিন্তু পানিতে দ্রবীভূত হয় না বলে ক্ষার নয়।"), None);
        // An effect about an activity's object or a place named before.
        assert_eq!(one("গরম করলে পিতল লোহার চেয়ে বেশি প্রসারিত হয় বলে পাতটি বেঁকে যায়।"), None);
        assert_eq!(one("মুখে কুপরিবাহী ছিপি থাকায় সেদিক দিয়েও তাপ সহজে যেতে পারে না।"), None);
        assert_eq!(one("ঘরের দেয়াল এর চেয়ে কাছে থাকে বলে ছোট ঘরে প্রতিধ্বনি শোনা যায় না।"), None);
        assert_eq!(
            one("মনে রাখবে, প্রতিফলনের সূত্র ঠিকই মানা হয়; শুধু তলের ছোট ছোট অংশগুলো নানা দিকে হেলে থাকায় রশ্মিগুলো ছড়িয়ে যায়।").map(|c| c.1),
            Some("শুধু তলের ছোট ছোট অংশগুলো নানা দিকে হেলে থাকে".into())
        );
        assert_eq!(one("লবণের নামের শেষ অংশ বলে দেয় এটি কোন অম্ল থেকে এসেছে।"), None);
        // "কারণ" as a noun is no connective.
        assert_eq!(one("এসিড বৃষ্টির প্রধান কারণ হলো কলকারখানার ধোঁয়া।"), None);
    }

    #[test]
    fn a_contrary_reason_turns_one_word_or_the_verb() {
        assert_eq!(contrary("দিনের আলোয় সালোকসংশ্লেষণের হার শ্বসনের হারের চেয়ে বেশি থাকে").as_deref(), Some("দিনের আলোয় সালোকসংশ্লেষণের হার শ্বসনের হারের চেয়ে কম থাকে"));
        assert_eq!(contrary("সাবান ক্ষারীয়,").as_deref(), Some("সাবান অম্লীয়,"));
        assert_eq!(contrary("জীবাণু পুরোপুরি মারে না").as_deref(), Some("জীবাণু পুরোপুরি মারে"));
        assert_eq!(contrary("ক্লোরোফিল অণুর কেন্দ্রে একটি পরমাণু থাকে").as_deref(), Some("ক্লোরোফিল অণুর কেন্দ্রে একটি পরমাণু থাকে না"));
        assert_eq!(contrary("খাদ্যের জন্য তারা নির্ভরশীল"), None);
        // A doubled word turns whole or not at all; a pointing word leaves the reason unclear.
        assert_eq!(contrary("শব্দদূষণ ধীরে ধীরে শ্রবণক্ষমতা কমিয়ে দেয়").as_deref(), Some("শব্দদূষণ ধীরে ধীরে শ্রবণক্ষমতা বাড়িয়ে দেয়"));
        assert_eq!(one("উজ্জ্বল আলোতে এটি ছোট হয়ে যায়, অন্ধকারে বড় হয়; ফলে চোখে প্রয়োজনমতো আলো ঢোকে।"), None);
        assert_eq!(
            one("ইলেকট্রনের ভর খুবই কম। তাই প্রোটন ও নিউট্রনের মোট সংখ্যাকে ভর সংখ্যা বলা হয়, যাকে A দিয়ে প্রকাশ করা হয়।").map(|c| c.0),
            Some("প্রোটন ও নিউট্রনের মোট সংখ্যাকে ভর সংখ্যা বলা হয়".into())
        );
        // A participle turns into its own form; a place turns one way only.
        assert_eq!(contrary("ঘাটে ঘর্ষণ কমে যায়").as_deref(), Some("ঘাটে ঘর্ষণ বেড়ে যায়"));
        assert_eq!(contrary("নিচে পানির চাপ সবচেয়ে বেশি").as_deref(), Some("ওপরে পানির চাপ সবচেয়ে বেশি"));
        assert_eq!(contrary("যত উপরে ওঠা যায় বাতাস পাতলা হয়").as_deref(), Some("যত উপরে ওঠা যায় বাতাস পাতলা হয় না"));
        // Turning "অম্লীয়" in "অম্লীয় না ক্ষারীয়" would say one word twice.
        assert_eq!(contrary("দ্রবণটি অম্লীয় না ক্ষারীয় তা বলে না").as_deref(), Some("দ্রবণটি অম্লীয় না ক্ষারীয় তা বলে"));
        assert!(contraries("এটি বেশি থাকে", "এটি কম থাকে") && !contraries("এটি বেশি থাকে", "এটি বেশি পড়ে"));
        // Each opposable word turned on its own; two such are contraries of each other too.
        let two = contraries_of("কালো তল তাপ বেশি শোষণ করে", 2);
        assert_eq!(two, ["কালো তল তাপ কম শোষণ করে", "কালো তল তাপ বেশি প্রতিফলন করে"]);
        assert!(contraries(&two[0], &two[1]) && contraries("কালো তল তাপ বেশি শোষণ করে", &two[1]));
    }

    fn ev() -> ItemEvidence {
        ItemEvidence { chunk: 0, section: 0, file: "f".into(), heading_path: vec![], quote: String::new() }
    }

    #[test]
    fn an_item_asks_why_with_the_contrary_and_other_reasons() {
        let text = "দিনের আলোয় সালোকসংশ্লেষণের হার শ্বসনের হারের চেয়ে বেশি থাকে, তাই দিনে উদ্ভিদ মোটের ওপর অক্সিজেন ত্যাগ করে।\n\n\
                    মানুষসহ সব প্রাণী পরভোজী, কারণ খাদ্যের জন্য তারা অন্য জীবের ওপর নির্ভরশীল।\n\n\
                    বাতাসের কার্বন ডাইঅক্সাইড বৃষ্টির পানিতে মিশে দুর্বল কার্বনিক এসিড তৈরি করে, তাই স্বাভাবিক বৃষ্টির পানি সামান্য অম্লীয়।\n\n\
                    বাতাস এই গ্যাস শত শত কিলোমিটার উড়িয়ে নেয়, তাই দূষণ এক দেশে হলেও এসিড বৃষ্টি হতে পারে অন্য দেশে।\n\n\
                    গাছ বায়ু থেকে কার্বন ডাইঅক্সাইড শোষণ করে, তাই বন উজাড় হলে বায়ুতে কার্বন ডাইঅক্সাইড বাড়ে।\n\n\
                    উদ্ভিদ শিকড় দিয়ে মাটি থেকে পানি শোষণ করে, তাই মাটি শুকিয়ে গেলে গাছ নেতিয়ে পড়ে।";
        let pool = causes(text, 2);
        assert_eq!(pool.len(), 5, "\"বাতাস এই গ্যাস …\" points at a sentence the learner does not see");
        let i = item(&pool[0], &pool, ev()).unwrap();
        assert_eq!(i.question, "দিনে উদ্ভিদ মোটের ওপর অক্সিজেন ত্যাগ করে কেন?");
        assert_eq!(i.options[i.answer_index], pool[0].cause);
        assert!(i.options.contains(&"দিনের আলোয় সালোকসংশ্লেষণের হার শ্বসনের হারের চেয়ে কম থাকে".to_string()), "{:?}", i.options);
        // "তারা" points into its own sentence: not another question's option.
        assert!(!i.options.iter().any(|o| o.contains("তারা")), "{:?}", i.options);
        // A reason about the question's own subject (উদ্ভিদ) might be a second key.
        assert!(!i.options.iter().any(|o| o.contains("শিকড়")), "{:?}", i.options);
        assert!(i.rationales[i.answer_index].contains("তাই দিনে উদ্ভিদ"));
        assert_eq!(i.bloom, Bloom::Understand);
        let (checks, reason) = super::super::check::deterministic(&i, &[], true);
        assert_eq!(reason, None, "{checks:?}");
        // Too few other reasons: no item.
        assert!(item(&pool[0], &pool[..2], ev()).is_none());
    }
}
