//! Items from the examples the book gives: "নিচের কোনটি X?" ("which of these is an X?") with
//! one of the book's examples of X as the key.
//!
//! A textbook names the members of a kind right after defining it: "যেসব পদার্থের মধ্য দিয়ে
//! সহজে তাপ পরিবাহিত হয়, সেগুলো তাপের সুপরিবাহী; যেমন রুপা, তামা, অ্যালুমিনিয়াম, লোহা।",
//! "… তাকে ক্ষার বলে। যেমন সোডিয়াম হাইড্রোক্সাইড (NaOH), …", "… তাকে অস্পর্শ বল বলা হয়।
//! যেমন:" over a list ("১. মহাকর্ষ বল: …"). Turned round, such a sentence is the commonest
//! item of Bangladesh's board MCQs ("কোনটি ক্ষার?"; TeachMateGPT's beginner cue "কোনটি"), and
//! classifying an instance is Bloom's Understand. The key is right by construction (the book
//! lists it); the wrong options are the members the book lists for a neighbouring kind — the
//! other side of the contrast the section draws (কুপরিবাহী against সুপরিবাহী, স্পর্শ বল against
//! অস্পর্শ বল), which a learner who half knows the section confuses — never of a kind the key's
//! kind names or is named by (every ক্ষার is a ক্ষারক), nor a member both lists share. Each
//! option's reason quotes the book. No model writes any of it (see [`super::define`], made the
//! same way).
//!
//! [`examples`] finds them in a text; [`pool`] in a course's chapters; [`item`] makes the item.

use super::define::{self, PRONOUNS, unlisted};
use super::contrast::genitive;
use super::{Bloom, Item, ItemEvidence, clip, prompt};
use crate::agent::ask::verify::sentences;
use crate::agent::author::gates;
use crate::agent::route::Lang;
use crate::bundle::Bundle;
use crate::index::outline::SectionKind;
use crate::text::stem;

/// The members of a kind the book lists.
#[derive(Clone, Debug, PartialEq)]
pub struct Examples {
    /// The kind ("তাপের কুপরিবাহী").
    pub term: String,
    /// Its members as the book names them, without their parentheses ("কাঠ", "প্লাস্টিক").
    pub examples: Vec<String>,
    /// The book's words, verbatim: the sentence that lists them (after the definition it
    /// follows, when it opens with "যেমন").
    pub sentence: String,
    pub section: u32,
    /// The heading of its section ([`pool`] sets it; empty from [`examples`]).
    pub heading: String,
}

impl Examples {
    /// The question that asks for a member.
    pub fn question(&self) -> String {
        format!("নিচের কোনটি {}?", self.term)
    }

    /// What a reason quotes: the sentence, with the members after a "যেমন:" whose list lies
    /// below it; from "যেমন" on when the whole is too long to quote (the list is the point).
    pub(super) fn quoted(&self) -> String {
        let full = match self.sentence.strip_suffix(':') {
            Some(head) => format!("{head}: {}।", self.examples.join(", ")),
            None => self.sentence.clone(),
        };
        match full.rfind("যেমন") {
            Some(at) if full.chars().count() > QUOTE_CHARS && at > 0 => format!("… {}", &full[at..]),
            _ => full,
        }
    }
}

/// Most words of a member ("সোডিয়াম হাইড্রোক্সাইড", "হৃৎপিণ্ডের পেশিকোষ"); more is an event
/// ("ঠেলা দিলে ভ্যানগাড়ি চলে"), not a thing.
const MEMBER_WORDS: usize = 3;
/// Most words of a kind.
const TERM_WORDS: usize = 3;
/// Characters of a sentence a reason quotes.
const QUOTE_CHARS: usize = 160;
/// Words that make a member an event or a clause: verbs, and a conditional's ending.
const VERBS: &[&str] = &[
    "হয়", "করে", "থাকে", "পারে", "দেয়", "যায়", "আসে", "ঘটে", "নেয়", "রাখে", "পায়", "লাগে", "বাড়ে", "কমে", "চলে", "থামে", "ছোটে", "পড়ে", "ওঠে", "হলে", "করা",
    "হওয়া", "নয়", "না", "আছে", "হলো", "হল",
];

/// The lists of members in `text` (section `section`): "X; যেমন …", "X, যেমন …", "X (যেমন …)",
/// a definition of X then "যেমন …", and a definition of X ending "যেমন:" over a list whose
/// items each head with a member ("১. মহাকর্ষ বল: …"). X is the term a definition names, the
/// words after "সেগুলো"/"তাদের" in a definition ("…, সেগুলো তাপের সুপরিবাহী"), or else the
/// words before "যেমন" when they are one of `defined` (the terms the chapter defines:
/// "সাধারণত ধাতুর অক্সাইড ও হাইড্রোক্সাইড ক্ষারক, যেমন CuO, CaO, NaOH").
pub fn examples(text: &str, section: u32, defined: &[String]) -> Vec<Examples> {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let parts: Vec<&str> = sentences(unlisted(line)).into_iter().map(str::trim).collect();
        for (j, &s) in parts.iter().enumerate() {
            let found = if let Some(rest) = opens_with_example(s) {
                // The definition just before, in the same paragraph.
                let Some(&before) = j.checked_sub(1).and_then(|k| parts.get(k)) else { continue };
                let members = if rest.trim_end_matches([':', ' ']).is_empty() { headed(&lines[i + 1..]) } else { members(rest) };
                kind(before, defined).zip(members).map(|(term, members)| (term, members, format!("{before} {s}")))
            } else if let Some((before, rest)) = split_at_example(s) {
                kind(before, defined).zip(members(rest)).map(|(term, members)| (term, members, s.to_string()))
            } else {
                None
            };
            let Some((term, examples, sentence)) = found else { continue };
            // A member that names its kind ("অম্লীয় দ্রবণ" of "অম্ল") gives the answer away.
            let examples: Vec<String> = examples.into_iter().filter(|m| !names(m, &term) && !names(&term, m)).collect();
            if !examples.is_empty() {
                out.push(Examples { term, examples, sentence, section, heading: String::new() });
            }
        }
    }
    out
}

/// The rest of a sentence that opens with "যেমন" ("যেমন সোডিয়াম …", "যেমন:").
fn opens_with_example(s: &str) -> Option<&str> {
    let rest = s.strip_prefix("যেমন")?;
    (rest.is_empty() || rest.starts_with([' ', ':', ','])).then(|| rest.trim_start_matches([' ', ':', ',']))
}

/// A sentence cut at its "যেমন" after a comma, a semicolon or an opening parenthesis: (the
/// words before, the list after), the list up to the parenthesis' end.
fn split_at_example(s: &str) -> Option<(&str, &str)> {
    for sep in ["; যেমন", ", যেমন", " (যেমন"] {
        if let Some(at) = s.find(sep) {
            let rest = &s[at + sep.len()..];
            if !(rest.is_empty() || rest.starts_with([' ', ':', ','])) {
                continue;
            }
            let rest = rest.trim_start_matches([' ', ':', ',']);
            let rest = if sep.starts_with(" (") { rest.split(')').next().unwrap_or(rest) } else { rest };
            return Some((s[..at].trim(), rest));
        }
    }
    None
}

/// The kind a clause defines or names (see [`examples`]).
fn kind(clause: &str, defined: &[String]) -> Option<String> {
    let clause = clause.trim().trim_end_matches([',', ';', ':', ' ']);
    let sentence = if clause.ends_with('।') { clause.to_string() } else { format!("{clause}।") };
    if let Some(d) = define::definitions(&sentence, 0).into_iter().find(|d| d.lang == Lang::Bn) {
        return Some(d.term);
    }
    let body = sentence.trim_end_matches('।');
    let words: Vec<&str> = body.split_whitespace().collect();
    // "যেসব পদার্থের …, সেগুলো তাপের সুপরিবাহী", "…, তাদের বলা হয় তাপের কুপরিবাহী", "… যে বল
    // কাজ করে, তা হলো স্পর্শ বল".
    let relative = words.iter().any(|w| ["যে", "যেসব", "যেগুলো", "যারা", "যার"].contains(&w.trim_end_matches(',')));
    if let Some(p) = words.iter().rposition(|w| PRONOUNS.contains(w) || ["সেগুলো", "এগুলো", "তা"].contains(w)).filter(|_| relative) {
        let mut rest = &words[p + 1..];
        for lead in [&["বলা", "হয়"][..], &["বলে"][..], &["হলো"][..]] {
            if rest.starts_with(lead) {
                rest = &rest[lead.len()..];
            }
        }
        let rest = without_paren(rest);
        if (1..=TERM_WORDS).contains(&rest.len()) && rest.iter().all(|w| is_bengali_word(w)) && !VERBS.contains(rest.last()?) {
            return Some(rest.join(" "));
        }
    }
    // The words before "যেমন" end with a term the chapter defines.
    let words = without_paren(&words);
    (1..=TERM_WORDS.min(words.len())).rev().map(|n| words[words.len() - n..].join(" ")).find(|t| defined.iter().any(|d| same_term(d, t)))
}

/// `words` without a parenthesis at their end ("ক্ষারক (Base)").
fn without_paren<'a>(words: &'a [&'a str]) -> &'a [&'a str] {
    match words.last() {
        Some(w) if w.ends_with(')') => words.iter().rposition(|w| w.starts_with('(')).map_or(words, |k| &words[..k]),
        _ => words,
    }
}

fn is_bengali_word(w: &str) -> bool {
    let letters: Vec<char> = w.chars().filter(|c| c.is_alphabetic()).collect();
    !letters.is_empty() && letters.iter().all(|&c| crate::text::is_bengali(c))
}

fn stems(s: &str) -> Vec<String> {
    crate::text::words(s).iter().map(|w| stem(w)).collect()
}

fn same_term(a: &str, b: &str) -> bool {
    let (a, b) = (stems(a), stems(b));
    !a.is_empty() && a == b
}

/// Whether `text` holds every word of `term` (stemmed).
pub(super) fn names(text: &str, term: &str) -> bool {
    let (words, term) = (stems(text), stems(term));
    !term.is_empty() && term.iter().all(|t| words.contains(t))
}

/// Whether `text` says `term`, its words together in order (stemmed): "যে ক্ষারক পানিতে দ্রবণীয়
/// …" says ক্ষারক, "কোনো স্পর্শ ছাড়াই যে বল …" does not say স্পর্শ বল.
fn says(text: &str, term: &str) -> bool {
    let (words, term) = (stems(text), stems(term));
    !term.is_empty() && words.windows(term.len()).any(|w| w == term.as_slice())
}

/// The members a list names ("রুপা, তামা, অ্যালুমিনিয়াম, লোহা", "জর্দা ও গুল"): each a thing
/// of at most [`MEMBER_WORDS`] words, none an event, a formula or a number; `None` when any is
/// not (the list is of something else).
fn members(list: &str) -> Option<Vec<String>> {
    let list = list.split(['।', ';']).next()?.trim().trim_end_matches(['.', ',', ' ']);
    let list = list.strip_suffix("ইত্যাদি").unwrap_or(list).trim().trim_end_matches(',');
    // Commas outside parentheses ("সোডিয়াম হাইড্রোক্সাইড (NaOH, কস্টিক সোডা), …").
    let mut pieces = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in list.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                pieces.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(&list[start..]);
    let mut out = Vec::new();
    for piece in pieces {
        for part in piece.split(" ও ").flat_map(|p| p.split(" এবং ")).flat_map(|p| p.split(" বা ")) {
            let member = member(part)?;
            if !out.contains(&member) {
                out.push(member);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// One member without its parentheses, or `None` when it is no thing (see [`members`]).
fn member(part: &str) -> Option<String> {
    let mut bare = String::new();
    let mut depth = 0usize;
    for c in part.chars() {
        match c {
            '(' if bare.ends_with(' ') || bare.is_empty() => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => bare.push(c),
            _ => {}
        }
    }
    // "বিভিন্ন ব্যাকটেরিয়া": the quantifier is no part of the member.
    let mut words: Vec<&str> = bare.split_whitespace().collect();
    if words.len() > 1 && ["বিভিন্ন", "নানা", "নানান", "কিছু", "অনেক", "সব", "বহু", "নানারকম"].contains(&words[0]) {
        words.remove(0);
    }
    let thing = (1..=MEMBER_WORDS).contains(&words.len())
        && !words.iter().any(|w| VERBS.contains(w) || (w.ends_with("লে") && w.chars().count() >= 3) || w.ends_with("ভাবে"))
        && !bare.contains(['→', '=', '+', ':', '"', '“', '”'])
        && !bare.chars().any(|c| ('০'..='৯').contains(&c))
        && !(words.iter().all(|w| w.chars().all(|c| c.is_ascii_digit() || c == '.')));
    thing.then(|| words.join(" "))
}

/// The members a list under "যেমন:" heads its items with ("১. মহাকর্ষ বল: …", "কাঠ"; a
/// bundle keeps a Markdown list item without its bullet): the lines that follow while each is a
/// list item, a line headed "member: …" or a member alone, at least two; `None` when a list
/// item heads with no member.
fn headed(lines: &[&str]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for line in lines {
        let item = unlisted(line);
        let marked = item.len() != line.len();
        let head = match item.split_once(':') {
            Some((h, _)) if marked || h.split_whitespace().count() <= MEMBER_WORDS => h,
            None if marked || (item.split_whitespace().count() <= MEMBER_WORDS && !item.ends_with('।')) => item,
            _ => break,
        };
        match member(head.trim_end_matches(['।', ' '])) {
            Some(m) => out.push(m),
            None if marked => return None,
            None => break,
        }
    }
    (out.len() >= 2).then_some(out)
}

/// Every list of members the course's taught sections (not exercises) in `files` (all files
/// when empty) give, in outline order, each kind found by the terms those files define.
pub fn pool(bundle: &Bundle, files: &[&str]) -> Vec<Examples> {
    let defined: Vec<String> = define::pool(bundle, files).into_iter().map(|d| d.term).collect();
    bundle
        .sections
        .iter()
        .filter(|s| (files.is_empty() || files.contains(&s.file.as_str())) && s.kind != SectionKind::Exercise)
        .flat_map(|s| examples(&s.text, s.id, &defined).into_iter().map(|e| Examples { heading: s.heading().to_string(), ..e }))
        .collect()
}

/// A course's lists of members for making items ([`super::Pools`] of [`pool`]).
pub type Pools<'b> = super::Pools<'b, Examples>;

impl<'b> Pools<'b> {
    pub fn new(bundle: &'b Bundle) -> Self {
        Self::with(bundle, pool)
    }

    /// The lists chunk `chunk` gives (those of its chapter's [`pool`] whose sentence lies in
    /// the chunk).
    pub fn askable(&mut self, chunk: u32) -> Vec<Examples> {
        let section = self.bundle.section_of(chunk).id;
        let text = self.bundle.chunk_text(chunk);
        self.chapter(section).iter().filter(|e| e.section == section && text.contains(first_line(&e.sentence))).cloned().collect()
    }

    /// [`item`] with its chapter's other kinds' members as the wrong options, else the
    /// course's.
    pub fn item(&mut self, e: &Examples, evidence: ItemEvidence) -> Option<Item> {
        self.chapter_then_course(e.section, |p| item(e, p, evidence.clone()))
    }
}

/// The part of a sentence a chunk must hold for the sentence to be in it (its first line: a
/// list under "যেমন:" may fall in the next chunk).
fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

/// The item that asks for a member of `e`'s kind, its key the first member the question does
/// not name, its wrong options three of [`others`]. `None` when fewer than three are found.
pub fn item(e: &Examples, pool: &[Examples], evidence: ItemEvidence) -> Option<Item> {
    let question = e.question();
    let key = e.examples.iter().find(|m| !names(&question, m))?.clone();
    let wrong = others(e, pool, &question, std::slice::from_ref(&key), 3);
    if wrong.len() < 3 {
        return None;
    }
    let mut options: Vec<String> = wrong.iter().map(|(m, _)| m.clone()).collect();
    let mut rationales: Vec<String> = wrong.iter().map(|(m, p)| format!("{}: “{}”", listed_elsewhere(m, p, e), quote(&p.quoted()))).collect();
    let at = super::check::key_position(&question);
    options.insert(at, key.clone());
    rationales.insert(at, format!("{key} {}। বইয়ে আছে: “{}”", e.term, quote(&e.quoted())));
    debug_assert!(rationales.iter().all(|r| r.chars().count() <= prompt::REASON_MAX_CHARS));
    debug_assert!(gates::script_share(&question, Lang::Bn) >= gates::MCQ_SCRIPT);
    Some(Item { question, options, answer_index: at, rationales, bloom: Bloom::Understand, concepts: vec![e.term.clone()], evidence: vec![evidence] })
}

/// A sentence of the book's, cut to what a reason quotes.
pub(super) fn quote(s: &str) -> String {
    clip(s, QUOTE_CHARS)
}

/// Why member `m` of `p`'s kind is no member of `e`'s, no more than the book says: it lists
/// `m` under another kind (the kinds may overlap: "রাবার অপরিবাহী, চৌম্বক পদার্থ নয়" would
/// claim an insulator cannot be magnetic).
pub(super) fn listed_elsewhere(m: &str, p: &Examples, e: &Examples) -> String {
    format!("বইয়ে {m} আছে {} উদাহরণে, {} উদাহরণে নয়", genitive(&p.term), genitive(&e.term))
}

/// Ranks of a scale's levels, lowest first ("প্রথম স্তরের খাদক" … "সর্বোচ্চ খাদক").
const LEVELS: &[&str] = &["প্রথম", "দ্বিতীয়", "তৃতীয়", "চতুর্থ", "পঞ্চম"];
/// The top of such a scale.
const TOP: &str = "সর্বোচ্চ";

/// Whether two kinds are levels of one scale whose members may belong to both: neighbouring
/// levels ("প্রথম স্তরের খাদক", "দ্বিতীয় স্তরের খাদক": a carp the book puts on the first eats
/// at the second too), or the top and any level above the first (the tiger the book calls
/// "সর্বোচ্চ খাদক" eats deer, a first-level consumer, and so is second-level too). The other
/// words of their names must agree.
fn neighbouring_levels(a: &str, b: &str) -> bool {
    let rank = |t: &str| t.split_whitespace().find_map(|w| if w == TOP { Some(usize::MAX) } else { LEVELS.iter().position(|l| *l == w) });
    let rest = |t: &str| -> Vec<String> { t.split_whitespace().filter(|w| *w != TOP && !LEVELS.contains(w) && *w != "স্তরের").map(|w| stem(w)).collect() };
    match (rank(a), rank(b)) {
        (Some(x), Some(y)) if x != y && rest(a) == rest(b) => match (x.min(y), x.max(y)) {
            (low, usize::MAX) => low >= 1,
            (low, high) => high - low == 1,
        },
        _ => false,
    }
}

/// Up to `n` members `pool` lists for other kinds than `e`'s, none named by `question` nor
/// one of `taken`, each with its kind: not a kind `e`'s kind names or is named by, nor one
/// whose sentence says the other (a kind of it), nor one sharing a member with it (not
/// disjoint), nor a neighbouring level of one scale ([`neighbouring_levels`]); of the kinds sharing a word with `e`'s first ("তাপের কুপরিবাহী" for "তাপের
/// সুপরিবাহী"), then of its own section, then the nearest.
pub(super) fn others<'p>(e: &Examples, pool: &'p [Examples], question: &str, taken: &[String], n: usize) -> Vec<(String, &'p Examples)> {
    let norm = |m: &str| m.to_lowercase();
    // Every member the course lists for this kind.
    let own: Vec<String> = pool.iter().filter(|p| same_term(&p.term, &e.term)).flat_map(|p| p.examples.iter().map(|m| norm(m))).chain(e.examples.iter().map(|m| norm(m))).collect();
    let term_stems = stems(&e.term);
    let related = |p: &Examples| {
        same_term(&p.term, &e.term)
            || neighbouring_levels(&p.term, &e.term)
            || names(&p.term, &e.term)
            || names(&e.term, &p.term)
            || says(&p.sentence, &e.term)
            || says(&e.sentence, &p.term)
            || p.examples.iter().any(|m| own.contains(&norm(m)))
    };
    let mut others: Vec<&Examples> = pool.iter().filter(|p| !related(p)).collect();
    let shares = |p: &Examples| stems(&p.term).iter().any(|s| term_stems.contains(s));
    others.sort_by_key(|p| (!shares(p), p.section != e.section, p.section.abs_diff(e.section)));
    // Of the close kinds (sharing a word with it or in its section) one member of each in turn,
    // so the wrong options are not all of the one opposite kind, which a learner who knows one
    // feature of it rules out at once ("স্বচ্ছ" against "অস্বচ্ছ" and "ঈষদচ্ছ"); then the
    // nearest others' members.
    let (close, far): (Vec<&Examples>, Vec<&Examples>) = others.into_iter().partition(|p| shares(p) || p.section == e.section);
    let fits = |m: &String| !names(m, &e.term) && !names(question, m) && !taken.iter().any(|t| norm(t) == norm(m));
    let turns = close.iter().map(|p| p.examples.len()).max().unwrap_or(0);
    let in_turn = (0..turns).flat_map(|t| close.iter().filter_map(move |&p| p.examples.get(t).map(|m| (m, p))));
    let rest = far.iter().flat_map(|&p| p.examples.iter().map(move |m| (m, p)));
    let mut wrong: Vec<(String, &Examples)> = Vec::new();
    for (m, p) in in_turn.chain(rest) {
        if wrong.len() < n && fits(m) && !wrong.iter().any(|(w, _)| norm(w) == norm(m)) {
            wrong.push((m.clone(), p));
        }
    }
    wrong
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str, defined: &[&str]) -> Vec<(String, Vec<String>)> {
        let defined: Vec<String> = defined.iter().map(|d| d.to_string()).collect();
        examples(text, 0, &defined).into_iter().map(|e| (e.term, e.examples)).collect()
    }

    fn owned(term: &str, members: &[&str]) -> (String, Vec<String>) {
        (term.to_string(), members.iter().map(|m| m.to_string()).collect())
    }

    #[test]
    fn the_books_lists_give_a_kind_and_its_members() {
        // "X; যেমন …" after a definition's pronoun; "তাদের বলা হয় X".
        let text = "যেসব পদার্থের মধ্য দিয়ে সহজে তাপ পরিবাহিত হয়, সেগুলো তাপের সুপরিবাহী; যেমন রুপা, তামা, অ্যালুমিনিয়াম, লোহা। ধাতুতে মুক্ত ইলেকট্রন থাকে বলে এরা তাপ ভালো পরিবহন করে। আর যেসব পদার্থের মধ্য দিয়ে তাপ সহজে যেতে পারে না, তাদের বলা হয় তাপের কুপরিবাহী; যেমন কাঠ, প্লাস্টিক, কাচ, কাপড়, বায়ু।";
        assert_eq!(
            found(text, &[]),
            vec![owned("তাপের সুপরিবাহী", &["রুপা", "তামা", "অ্যালুমিনিয়াম", "লোহা"]), owned("তাপের কুপরিবাহী", &["কাঠ", "প্লাস্টিক", "কাচ", "কাপড়", "বায়ু"])]
        );
        // A definition, then "যেমন …"; commas inside parentheses and the parentheses dropped.
        let text = "যে ক্ষারক পানিতে দ্রবণীয় এবং দ্রবণে হাইড্রোক্সাইড আয়ন (OH-) দেয়, তাকে ক্ষার (Alkali) বলে। যেমন সোডিয়াম হাইড্রোক্সাইড (NaOH, কস্টিক সোডা), পটাশিয়াম হাইড্রোক্সাইড (KOH), ক্যালসিয়াম হাইড্রোক্সাইড (Ca(OH)2, কলিচুন)।";
        assert_eq!(found(text, &[]), vec![owned("ক্ষার", &["সোডিয়াম হাইড্রোক্সাইড", "পটাশিয়াম হাইড্রোক্সাইড", "ক্যালসিয়াম হাইড্রোক্সাইড"])]);
        // "X, যেমন …" where X is a term the chapter defines; not where it is not.
        let text = "সাধারণত ধাতুর অক্সাইড ও হাইড্রোক্সাইড ক্ষারক, যেমন CuO, CaO, NaOH।";
        assert_eq!(found(text, &["ক্ষারক"]), vec![owned("ক্ষারক", &["CuO", "CaO", "NaOH"])]);
        assert_eq!(found(text, &[]), vec![]);
        assert_eq!(found("তাই ধূমপান ও তামাকজাত দ্রব্য, যেমন জর্দা ও গুল, থেকে দূরে থাকা উচিত।", &["ক্ষারক"]), vec![]);
        // A definition ending "যেমন:" over a list whose items head with the members.
        assert_eq!(found("দুটি বস্তু পরস্পরকে ছুঁয়ে থাকলেই যে বল কাজ করে, তা হলো স্পর্শ বল (Contact force)। যেমন ঘর্ষণ বল, টান বল।", &[]), vec![owned("স্পর্শ বল", &["ঘর্ষণ বল", "টান বল"])]);
        let text = "দূর থেকে, কোনো স্পর্শ ছাড়াই যে বল কাজ করে, তাকে অস্পর্শ বল (Non-contact force) বলা হয়। যেমন:\n\n১. মহাকর্ষ বল: মহাবিশ্বের যেকোনো দুটি বস্তু পরস্পরকে আকর্ষণ করে।\n\n২. চৌম্বক বল: চুম্বক দূর থেকেই লোহার আলপিন বা পেরেককে টেনে নেয়।\n\n৩. স্থির বৈদ্যুতিক বল: চিরুনি কাগজের টুকরো টানে।\n\nএসব বল দূর থেকে কাজ করে।";
        assert_eq!(found(text, &[]), vec![owned("অস্পর্শ বল", &["মহাকর্ষ বল", "চৌম্বক বল", "স্থির বৈদ্যুতিক বল"])]);
        // The same list as a bundle keeps Markdown bullets: without them.
        let text = "দূর থেকে, কোনো স্পর্শ ছাড়াই যে বল কাজ করে, তাকে অস্পর্শ বল বলা হয়। যেমন:\nমহাকর্ষ বল: মহাবিশ্বের যেকোনো দুটি বস্তু পরস্পরকে আকর্ষণ করে।\nচৌম্বক বল\nএসব বল দূর থেকে কাজ করে।";
        assert_eq!(found(text, &[]), vec![owned("অস্পর্শ বল", &["মহাকর্ষ বল", "চৌম্বক বল"])]);
        // Events are no members; nor formulas.
        assert_eq!(found("বস্তুর ওপর কাজ করে বল, যেমন ঠেলা দিলে ভ্যানগাড়ি চলে।", &["বল"]), vec![]);
        assert_eq!(found("বস্তুর ওপর কাজ করে বল, যেমন ঠেলা, টান।", &["বল"]), vec![owned("বল", &["ঠেলা", "টান"])]);
        assert_eq!(found("যেসব যৌগ পানিতে দ্রবীভূত হলে হাইড্রোজেন আয়ন (H+) উৎপন্ন করে, তাদের অম্ল বলে। যেমন: HCl → H+ + Cl-।", &[]), vec![]);
        // "X (যেমন …)" inside a sentence.
        assert_eq!(found("- কোনোটির রং না বদলালে দ্রবণ নিরপেক্ষ (যেমন বিশুদ্ধ পানি)।", &["নিরপেক্ষ"]), vec![owned("নিরপেক্ষ", &["বিশুদ্ধ পানি"])]);
    }

    fn ev(e: &Examples) -> ItemEvidence {
        ItemEvidence { chunk: 0, section: e.section, file: "f".into(), heading_path: vec![], quote: e.sentence.clone() }
    }

    #[test]
    fn an_item_asks_for_a_member_among_the_other_sides() {
        let text = "যেসব পদার্থের মধ্য দিয়ে সহজে তাপ পরিবাহিত হয়, সেগুলো তাপের সুপরিবাহী; যেমন রুপা, তামা, অ্যালুমিনিয়াম, লোহা। আর যেসব পদার্থের মধ্য দিয়ে তাপ সহজে যেতে পারে না, তাদের বলা হয় তাপের কুপরিবাহী; যেমন কাঠ, প্লাস্টিক, কাচ, কাপড়, বায়ু।";
        let mut pool = examples(text, 3, &[]);
        // A kind and its own kind: every ক্ষার is a ক্ষারক.
        pool.extend(examples("যে ক্ষারক পানিতে দ্রবণীয়, তাকে ক্ষার বলে। যেমন সোডিয়াম হাইড্রোক্সাইড, পটাশিয়াম হাইড্রোক্সাইড, চুনের পানি।", 4, &[]));
        pool.extend(examples("সাধারণত ধাতুর অক্সাইড ও হাইড্রোক্সাইড ক্ষারক, যেমন কপার অক্সাইড, ক্যালসিয়াম অক্সাইড, সোডিয়াম হাইড্রোক্সাইড।", 4, &["ক্ষারক".to_string()]));
        let bad = pool[1].clone();
        let i = item(&bad, &pool, ev(&bad)).unwrap();
        assert_eq!(i.question, "নিচের কোনটি তাপের কুপরিবাহী?");
        assert_eq!(i.options[i.answer_index], "কাঠ");
        let mut wrong: Vec<&str> = i.options.iter().filter(|o| *o != "কাঠ").map(String::as_str).collect();
        wrong.sort();
        assert_eq!(wrong, ["অ্যালুমিনিয়াম", "তামা", "রুপা"], "the other side of the contrast first: {:?}", i.options);
        let k = i.options.iter().position(|o| o == "তামা").unwrap();
        assert!(i.rationales[k].starts_with("বইয়ে তামা আছে তাপের সুপরিবাহীর উদাহরণে, তাপের কুপরিবাহীর উদাহরণে নয়: “"), "{}", i.rationales[k]);
        assert!(i.rationales[i.answer_index].starts_with("কাঠ তাপের কুপরিবাহী। বইয়ে আছে: “"), "{}", i.rationales[i.answer_index]);
        assert_eq!(i.bloom, Bloom::Understand);
        let (checks, reason) = super::super::check::deterministic(&i, &[], true);
        assert_eq!(reason, None, "{checks:?}");
        // ক্ষার: no member of ক্ষারক (its own kind) is a wrong option.
        let alkali = pool.iter().find(|e| e.term == "ক্ষার").unwrap().clone();
        let i = item(&alkali, &pool, ev(&alkali)).unwrap();
        assert!(!i.options.iter().any(|o| o.contains("অক্সাইড")), "{:?}", i.options);
        // Levels of one scale overlap at their neighbours and at the top.
        assert!(neighbouring_levels("প্রথম স্তরের খাদক", "দ্বিতীয় স্তরের খাদক"));
        assert!(!neighbouring_levels("প্রথম স্তরের খাদক", "তৃতীয় স্তরের খাদক"));
        assert!(neighbouring_levels("দ্বিতীয় স্তরের খাদক", "সর্বোচ্চ খাদক"));
        assert!(!neighbouring_levels("প্রথম স্তরের খাদক", "সর্বোচ্চ খাদক"));
        assert!(!neighbouring_levels("তাপের সুপরিবাহী", "তাপের কুপরিবাহী"));
        // Too few other kinds: no item.
        assert!(item(&alkali, &pool[2..], ev(&alkali)).is_none());
    }
}
