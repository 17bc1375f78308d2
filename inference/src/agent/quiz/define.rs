//! Items from the book's own definitions: "…, তাকে কী বলে?" / "What is … called?" with the
//! defined term as the key and other terms the course defines as the wrong options.
//!
//! A textbook states its key terms in a few fixed shapes: "যেসব জীব … তৈরি করতে পারে, তাদের
//! স্বভোজী বলে।", "গ্রানার চারপাশের তরল অংশকে বলে স্ট্রোমা।", "ক্লোরোফিল হলো … রঞ্জক পদার্থ।",
//! "A file that contains a Python program is called a script." Turned round, such a sentence is
//! the classic recall item of Bangladesh's board MCQs ("… তাকে কী বলে?"): the key is right by
//! construction (the book says so), the wrong options are terms the same chapter defines (a
//! learner who half knows the chapter confuses exactly these), and each option's reason is the
//! book's own sentence about that term. No model writes any of it, so it works where the small
//! models cannot write the course's language (docs/EVALUATION.md, "Quiz": neither Qwen2.5-Coder
//! model wrote a usable Bangla item).
//!
//! [`definitions`] finds them in a text; [`item`] makes the item for one, drawing its wrong
//! options from a pool ([`pool`]).

use super::{Bloom, Item, ItemEvidence, clip, prompt};
use crate::agent::ask::verify::prose_sentences;
use crate::agent::route::Lang;
use crate::bundle::Bundle;
use crate::index::outline::SectionKind;
use crate::text::stem;

/// A term the book defines, or names at the head of a line ("ক্লোরোফিল: আলো শোষণকারী …").
#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    pub term: String,
    /// The question that asks for the term; `None` for a line that only names it (too loose to
    /// ask about, but its term is a wrong option for another item).
    pub question: Option<String>,
    /// The book's sentence, verbatim.
    pub sentence: String,
    pub section: u32,
    pub lang: Lang,
    /// The heading of its section ([`pool`] sets it; empty from [`definitions`]).
    pub heading: String,
    /// The sentence names the term as what the rest describes ("… তাকে X বলে", "… is called
    /// X"), not only "X হলো …" or "X: …", which also head lines about a phrase ("মূল ঘটনা হলো …").
    pub naming: bool,
}

/// Bangla pronouns that point back at a definition's description ("…, তাদের স্বভোজী বলে").
pub(super) const PRONOUNS: &[&str] = &["তাকে", "তাদের", "একে", "এদের", "এটিকে", "এগুলোকে", "সেগুলোকে", "এটাকে"];
/// Most words of a term.
const TERM_WORDS: usize = 3;
/// Characters of a sentence a reason quotes.
const QUOTE_CHARS: usize = 190;

/// The definitions among `text`'s prose sentences (section `section`).
pub fn definitions(text: &str, section: u32) -> Vec<Definition> {
    prose_sentences(text)
        .into_iter()
        .filter_map(|(_, s)| {
            let s = unlisted(s);
            let (term, question, naming, lang) =
                bangla(s).map(|(t, q, naming)| (t, q, naming, Lang::Bn)).or_else(|| english(s).map(|(t, q)| (t, Some(q), true, Lang::En)))?;
            // A question that names its answer gives it away (one that names a word of it, see
            // [`item`]).
            let question = question.filter(|q| !names(q, &term));
            Some(Definition { term, question, sentence: s.to_string(), section, lang, naming, heading: String::new() })
        })
        .collect()
}

/// A sentence without a list item's marker ("- ", "১. ", "2) ").
pub(super) fn unlisted(s: &str) -> &str {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix("- ").or_else(|| s.strip_prefix("* ")) {
        return rest.trim_start();
    }
    let digits = s.chars().take_while(|c| c.is_ascii_digit() || ('০'..='৯').contains(c)).map(char::len_utf8).sum::<usize>();
    if digits > 0 {
        if let Some(rest) = s[digits..].strip_prefix(". ").or_else(|| s[digits..].strip_prefix(") ")) {
            return rest.trim_start();
        }
    }
    s
}

fn is_bengali_word(w: &str) -> bool {
    let letters: Vec<char> = w.chars().filter(|c| c.is_alphabetic()).collect();
    !letters.is_empty() && letters.iter().all(|&c| crate::text::is_bengali(c)) && w.chars().all(|c| c.is_alphabetic() || crate::text::is_bengali(c) || c == '-')
}

/// Whether `text` holds every word of `term` (stemmed): a question that would give its answer
/// away, or a sentence about the term.
fn names(text: &str, term: &str) -> bool {
    let stems: Vec<String> = crate::text::words(term).iter().map(|w| stem(w)).collect();
    let words: Vec<String> = crate::text::words(text).iter().map(|w| stem(w)).collect();
    !stems.is_empty() && stems.iter().all(|s| words.contains(s))
}

/// The words `words[..end]` without a parenthesis at their end ("ক্ষারক (Base)"): the index
/// where it opens, or `end`.
fn before_paren(words: &[&str], end: usize) -> usize {
    if end == 0 || !words[end - 1].ends_with(')') {
        return end;
    }
    (0..end).rev().find(|&i| words[i].starts_with('(')).unwrap_or(end)
}

/// A term of 1–[`TERM_WORDS`] Bengali words, without the modifiers before it and the particle ও
/// after it; not a clause.
fn term_of(words: &[&str]) -> Option<String> {
    // Modifiers before the term: an adverb ("… বলকে বিশেষভাবে অভিকর্ষ বলে", "এদের একসঙ্গে
    // নিউক্লিয়ন বলা হয়"), "পরস্পরের" ("of each other"), a demonstrative and the genitive after it
    // ("ওই মাধ্যমের প্রতিসরণাঙ্ক").
    const MODIFIERS: &[&str] = &["একসঙ্গে", "একত্রে", "পরস্পরের", "সাধারণত", "মূলত", "প্রধানত", "সংক্ষেপে", "সহজে", "আবার", "এককথায়"];
    let mut words = words;
    while let [first, rest @ ..] = words {
        if rest.is_empty() {
            break;
        }
        if first.ends_with("ভাবে") || MODIFIERS.contains(first) {
            words = rest;
        } else if POINTING.contains(first) || ANAPHORA.contains(first) {
            words = match rest {
                [genitive, tail @ ..] if !tail.is_empty() && (genitive.ends_with("ের") || genitive.ends_with("র")) => tail,
                _ => rest,
            };
        } else {
            break;
        }
    }
    // A clause is no term ("… তা ব্যবহৃত হয় বলে …").
    let verb = words.last().is_some_and(|w| ["হয়", "করে", "হয়ে", "থাকে", "যায়", "আছে", "নয়", "হলে", "করা"].contains(w));
    if words.is_empty() || words.len() > TERM_WORDS || verb || !words.iter().all(|w| is_bengali_word(w)) {
        return None;
    }
    // "… একে প্রত্যক্ষ বিভাজনও বলে" ("also called"): the particle ও is not part of the term.
    let term = words.join(" ");
    Some(match term.strip_suffix('ও') {
        Some(stem) if stem.chars().last().is_some_and(|c| ('\u{0995}'..='\u{09B9}').contains(&c) || c == '\u{09CE}') => stem.to_string(),
        _ => term,
    })
}

/// Words that open a description leaning on the sentence before ("এই উপরমুখী বলটিকে …", "তখন
/// দড়ির উপর …"): the question would not stand alone.
pub(super) const ANAPHORA: &[&str] = &["এই", "এ", "সেই", "ঐ", "ওই", "তখন", "এসব", "এগুলো", "এরা", "এটি", "এটা", "সেটি", "তারা", "সে", "এদের", "এর", "এতে", "এখানে", "এখন", "একই", "উক্ত"];

/// Demonstratives that point back wherever they stand early in a description ("পদার্থবিজ্ঞানে
/// এই ঠেলা বা টানাকে …").
pub(super) const POINTING: &[&str] = &["এই", "সেই", "ঐ", "ওই", "উক্ত", "এসব"];

/// `lead` turned into the question `{lead}{tail}`, unless it is too short or leans on the
/// sentence before.
fn ask(lead: &str, tail: &str, min_words: usize) -> Option<String> {
    let words: Vec<&str> = lead.split_whitespace().collect();
    // "এগুলোতে", "সেগুলোর", "এসবের": a plural demonstrative with its case ending.
    let plural = |w: &str| ["এগুলো", "সেগুলো", "ওগুলো", "এসব", "ওসব"].iter().any(|p| w.starts_with(p));
    let leans = words.first().is_some_and(|w| ANAPHORA.contains(w) || plural(w)) || words.iter().take(3).any(|w| POINTING.contains(w));
    (words.len() >= min_words && !leans).then(|| format!("{lead}{tail}"))
}

/// A Bangla definition: (term, question, whether the sentence names the term).
fn bangla(s: &str) -> Option<(String, Option<String>, bool)> {
    let body = s.strip_suffix('।')?.trim();
    let all: Vec<&str> = body.split_whitespace().collect();
    if all.len() < 4 {
        return glossary(s).map(|(t, q)| (t, q, false));
    }
    // "… বলে" or "… বলা হয়" ("is called"), asked back the same way.
    let (words, verb): (&[&str], &str) = match all.as_slice() {
        [head @ .., "বলা", "হয়"] => (head, "বলা হয়"),
        [head @ .., "বলে"] => (head, "বলে"),
        _ => (&all[..], ""),
    };
    let n = words.len();
    // "… , তাকে/তাদের T বলে।" and "… প্রক্রিয়াকে T (Neutralisation) বলা হয়।"
    if !verb.is_empty() {
        let end = before_paren(words, n);
        let at = (end.saturating_sub(TERM_WORDS + 1)..end.saturating_sub(1)).rev().find(|&j| {
            let w = words[j].trim_end_matches(',');
            PRONOUNS.contains(&w) || (w.ends_with("কে") && w.chars().count() > 3)
        });
        if let Some(j) = at {
            let term = term_of(&words[j + 1..end])?;
            let lead = unheaded(&words[..j].join(" "));
            let w = words[j].trim_end_matches(',');
            let min = if PRONOUNS.contains(&w) { 3 } else { 2 };
            // "… সমান থাকে বলে একে সমীকরণিক বিভাজনও বলা হয়": "because …, it is called" names
            // again what the sentence before described.
            let because = PRONOUNS.contains(&w) && lead.ends_with(" বলে");
            return Some((term, ask(&lead, &format!(" {w} কী {verb}?"), min).filter(|_| !because), true));
        }
    }
    // "গ্রানার চারপাশের তরল অংশকে বলে স্ট্রোমা।", "… অংশকে বলা হয় স্ট্রোমা।"
    let said = |k: usize| match (all[k], all.get(k + 1)) {
        ("বলে", _) => Some((k + 1, "বলে")),
        ("বলা", Some(&"হয়")) => Some((k + 2, "বলা হয়")),
        _ => None,
    };
    if let Some((k, (after, verb))) = (2..all.len() - 1).find_map(|k| all[k - 1].ends_with("কে").then(|| said(k)).flatten().map(|v| (k, v))) {
        let end = before_paren(&all, all.len());
        if end > after {
            let term = term_of(&all[after..end])?;
            let question = ask(&unheaded(&all[..k].join(" ")), &format!(" কী {verb}?"), 2);
            return Some((term, question, true));
        }
    }
    let n = all.len();
    // "যে শ্বসন প্রক্রিয়ায় … মুক্ত হয়, সেটিই সবাত শ্বসন।"
    if let Some(j) = (n.saturating_sub(TERM_WORDS + 1)..n - 1).find(|&j| ["সেটিই", "সেটাই", "তা-ই", "তাকেই"].contains(&all[j])) {
        let end = before_paren(&all, n);
        if end > j + 1 {
            let term = term_of(&all[j + 1..end])?;
            let lead = unheaded(&all[..j].join(" "));
            return Some((term, ask(&lead, " তাকে কী বলে?", 3), true));
        }
    }
    // "গাঁজন (Fermentation) বলতে বোঝায় … আংশিক ভাঙন।", "T বলতে … বোঝায়।"
    if let Some(k) = (1..n.min(TERM_WORDS + 3)).find(|&k| all[k] == "বলতে") {
        let rest: Vec<&str> = all[k + 1..].iter().copied().filter(|&w| w != "বোঝায়" && w != "বুঝায়").collect();
        let term = term_of(&all[..before_paren(&all, k)])?;
        if rest.len() >= 4 {
            return Some((term, ask(&rest.join(" "), " — একে কী বলে?", 4), true));
        }
    }
    // "ক্লোরোফিল হলো … রঞ্জক পদার্থ, যা সূর্যের আলো শোষণ করে।" A description in words: not a
    // value ("পরম শূন্য হলো −২৭৩.১৫ °C; …"), and only up to a semicolon.
    if let Some(k) = (1..=(TERM_WORDS + 1).min(n - 1)).find(|&k| ["হলো", "হল", "হচ্ছে"].contains(&all[k])) {
        let rest = all[k + 1..].join(" ");
        let description = rest.split(';').next().unwrap_or("").trim();
        let in_words = description.split_whitespace().next().is_some_and(is_bengali_word);
        if in_words && description.split_whitespace().count() >= 4 {
            if let Some(term) = term_of(&all[..before_paren(&all, k)]) {
                return Some((term, ask(description, "?", 4).map(|q| format!("কোনটি {q}")), false));
            }
        }
    }
    glossary(s).map(|(t, q)| (t, q, false))
}

/// A definition's description without what comes before a colon (the glossary head "প্রশমন: অম্ল
/// ও ক্ষারকের … প্রক্রিয়াকে", a lead-in) and without a connective that leans on the sentence
/// before ("তাই", "তবে", …).
pub(super) fn unheaded(lead: &str) -> String {
    // A glossary head, or a lead-in ("একটি মজার বিষয় লক্ষ করো: …"), before a colon.
    let lead = lead.split_once(": ").map_or(lead, |(_, rest)| rest.trim());
    ["তাই ", "তবে ", "কিন্তু ", "আবার ", "অন্যদিকে ", "ফলে "].iter().find_map(|c| lead.strip_prefix(c)).unwrap_or(lead).to_string()
}

/// "ক্লোরোফিল: আলো শোষণকারী সবুজ রঞ্জক পদার্থ।", "কার্বন ডাইঅক্সাইড (CO₂): …": a named
/// term, no question ("যেমন: …", "for example", names none).
fn glossary(s: &str) -> Option<(String, Option<String>)> {
    let (head, rest) = s.split_once(':')?;
    if rest.trim().split_whitespace().count() < 3 {
        return None;
    }
    let words: Vec<&str> = head.split_whitespace().collect();
    let end = before_paren(&words, words.len());
    let term = term_of(&words[..end])?;
    // Lead-ins, and the parts of a worked example or an experiment.
    let filler = [
        "যেমন", "উদাহরণ", "অর্থাৎ", "তবে", "ফলে", "কারণ", "সুতরাং", "মনে রাখো", "লক্ষ করো", "দ্রষ্টব্য", "সমাধান", "উত্তর", "উদ্দেশ্য", "উপকরণ",
        "কার্যপদ্ধতি", "পদ্ধতি", "পর্যবেক্ষণ", "সিদ্ধান্ত", "সতর্কতা", "ফলাফল", "প্রশ্ন", "নোট",
    ];
    (!filler.contains(&term.as_str()) && !crate::text::is_stopword(&term)).then_some((term, None))
}

/// An English definition: (term, question). "A file that contains a Python program is called
/// a script." → ("script", "What is a file that contains a Python program called?").
fn english(s: &str) -> Option<(String, String)> {
    const VERBS: &[(&str, &str, &str)] = &[
        (" is called ", "is", "called"),
        (" are called ", "are", "called"),
        (" is known as ", "is", "known as"),
        (" are known as ", "are", "known as"),
        (" is referred to as ", "is", "referred to as"),
    ];
    let body = s.strip_suffix('.')?;
    let (at, (pat, aux, verb)) = VERBS.iter().find_map(|v| body.find(v.0).map(|at| (at, v)))?;
    let (lead, rest) = (body[..at].trim(), &body[at + pat.len()..]);
    // The subject alone: no other verb before ("Text in Python is written … and is called a
    // string"), three words at least, not a pronoun.
    // A noun phrase: it opens with a determiner or a gerund ("A file …", "Writing the code …"),
    // has no comma ("Often, the first argument …") and no verb ("… a method is called with …").
    let lw: Vec<&str> = lead.split_whitespace().collect();
    let first = lw.first()?.to_lowercase();
    let opens = ["a", "an", "the", "each", "every", "any", "all"].contains(&first.as_str()) || (first.ends_with("ing") && first.len() > 4);
    if lw.len() < 3 || !opens || lead.contains(',') || lw.iter().any(|w| ["is", "are", "was", "were", "and", "or", "but"].contains(&w.to_lowercase().as_str())) {
        return None;
    }
    let end = rest.find([',', ';', '(', ':']).unwrap_or(rest.len());
    let mut tw: Vec<&str> = rest[..end].split_whitespace().collect();
    // "is called with …", "is called instead of …": the verb, not a name.
    if tw.first().is_some_and(|w| ["with", "instead", "by", "from", "on", "in", "when", "if", "to", "for", "after", "before", "once"].contains(&w.to_lowercase().as_str())) {
        return None;
    }
    if tw.first().is_some_and(|w| ["a", "an", "the"].contains(&w.to_lowercase().as_str())) {
        tw.remove(0);
    }
    // "Writing the code … is called defining it."
    if tw.len() > 1 && tw.last().is_some_and(|w| ["it", "them", "one"].contains(&w.to_lowercase().as_str())) {
        tw.pop();
    }
    if tw.is_empty() || tw.len() > TERM_WORDS || tw.iter().any(|w| ["because", "when", "if", "and", "or", "since", "which"].contains(&w.to_lowercase().as_str())) {
        return None;
    }
    // "A file …" → "a file …", "Writing the code" → "writing the code".
    let lead = format!("{first}{}", &lead[lw[0].len()..]);
    Some((tw.join(" "), format!("What {aux} {lead} {verb}?")))
}

/// Every definition of the course's taught sections (not exercises) in `files` (all files when
/// empty), in outline order: those that name their term, and those whose term the text of those
/// files names again in another sentence — a term ("ক্লোরোফিল হলো …"), not a phrase that heads
/// one line ("মূল ঘটনা হলো …", "প্রতিকার: …").
pub fn pool(bundle: &Bundle, files: &[&str]) -> Vec<Definition> {
    let sections: Vec<&crate::index::outline::Section> = bundle.sections.iter().filter(|s| files.is_empty() || files.contains(&s.file.as_str())).collect();
    let sentences: Vec<Vec<String>> = sections
        .iter()
        .flat_map(|s| prose_sentences(&s.text).into_iter().map(|(_, x)| crate::text::words(x).iter().map(|w| stem(w)).collect()).collect::<Vec<_>>())
        .collect();
    let recurs = |term: &str| {
        let stems: Vec<String> = crate::text::words(term).iter().map(|w| stem(w)).collect();
        sentences.iter().filter(|words| stems.iter().all(|t| words.contains(t))).count() >= 2
    };
    sections
        .iter()
        .filter(|s| s.kind != SectionKind::Exercise)
        .flat_map(|s| definitions(&s.text, s.id).into_iter().map(|d| Definition { heading: s.heading().to_string(), ..d }))
        .filter(|d| d.naming || recurs(&d.term))
        .collect()
}

/// A course's definitions for making items ([`super::Pools`] of [`pool`]).
pub type Pools<'b> = super::Pools<'b, Definition>;

impl<'b> Pools<'b> {
    pub fn new(bundle: &'b Bundle) -> Self {
        Self::with(bundle, pool)
    }

    /// The definitions in chunk `chunk` an item can ask for: with a question, and in its
    /// chapter's pool (the term recurs).
    pub fn askable(&mut self, chunk: u32) -> Vec<Definition> {
        let section = self.bundle.section_of(chunk).id;
        let text = self.bundle.chunk_text(chunk);
        let chapter = self.chapter(section);
        definitions(text, section).into_iter().filter(|d| d.question.is_some() && chapter.iter().any(|p| p.sentence == d.sentence && p.term == d.term)).collect()
    }

    /// [`item`] with its chapter's terms as the wrong options, else the course's.
    pub fn item(&mut self, def: &Definition, evidence: ItemEvidence) -> Option<Item> {
        self.chapter_then_course(def.section, |p| item(def, p, evidence.clone()))
    }
}

/// The item that asks for `def`'s term (it must have a question), its wrong options the terms
/// of `pool` in `def`'s language nearest to it in the outline (its own section first): not the
/// term itself nor a word of the question, three distinct ones. `None` when the pool has fewer.
pub fn item(def: &Definition, pool: &[Definition], evidence: ItemEvidence) -> Option<Item> {
    let question = def.question.clone()?;
    let key_stems: Vec<String> = crate::text::words(&def.term).iter().map(|w| stem(w)).collect();
    let mut others: Vec<&Definition> = pool
        .iter()
        // Not a term the question names, nor one the key's sentence or the key names; and not
        // one whose sentence or section heading names the key (মহাকর্ষ বল under "অস্পর্শ বল":
        // a kind of it, a second right answer).
        .filter(|d| {
            d.lang == def.lang
                && !names(&question, &d.term)
                && !names(&def.term, &d.term)
                && !names(&d.term, &def.term)
                && !names(&d.sentence, &def.term)
                && !names(&d.heading, &def.term)
        })
        .filter(|d| crate::text::words(&d.term).iter().map(|w| stem(w)).collect::<Vec<_>>() != key_stems)
        .collect();
    // Terms the book defines before those it only names; among them, those whose sentence
    // shares most words with this one's (the same part of the topic), then the nearest.
    // A word of the key the question names ("যে শ্বসন প্রক্রিয়ায় …" for "সবাত শ্বসন") gives
    // it away unless wrong options share it ("অবাত শ্বসন"): those come first.
    let named: Vec<String> = crate::text::words(&def.term).into_iter().filter(|w| names(&question, w)).collect();
    let near: std::collections::HashSet<String> = crate::agent::ask::verify::terms(&def.sentence);
    let shared = |d: &Definition| crate::agent::ask::verify::terms(&d.sentence).intersection(&near).count();
    let shares_named = |d: &Definition| named.iter().any(|w| names(&d.term, w));
    others.sort_by_key(|d| (!shares_named(d), d.question.is_none(), std::cmp::Reverse(shared(d)), d.section.abs_diff(def.section)));
    let mut wrong: Vec<&Definition> = Vec::new();
    for d in others {
        if !wrong.iter().any(|w| w.term.to_lowercase() == d.term.to_lowercase()) {
            wrong.push(d);
        }
        if wrong.len() == 3 {
            break;
        }
    }
    // At least two wrong options share a word of the key the question names (one may not:
    // the learner still chooses among three).
    if wrong.len() < 3 || named.iter().any(|w| wrong.iter().filter(|d| names(&d.term, w)).count() < 2) {
        return None;
    }
    let bangla = def.lang == Lang::Bn;
    let quote = |s: &str| clip(s, QUOTE_CHARS);
    let right = if bangla { format!("বইয়ে আছে: “{}”", quote(&def.sentence)) } else { format!("The book says: “{}”", quote(&def.sentence)) };
    let mut options: Vec<String> = wrong.iter().map(|d| d.term.clone()).collect();
    let mut rationales: Vec<String> = wrong
        .iter()
        .map(|d| if bangla { format!("উত্তর {} নয়। বইয়ে {} সম্পর্কে আছে: “{}”", d.term, d.term, quote(&d.sentence)) } else { format!("Not {}: the book says “{}”", d.term, quote(&d.sentence)) })
        .collect();
    let key = super::check::key_position(&question);
    options.insert(key, def.term.clone());
    rationales.insert(key, right);
    debug_assert!(rationales.iter().all(|r| r.chars().count() <= prompt::REASON_MAX_CHARS));
    Some(Item { question, options, answer_index: key, rationales, bloom: Bloom::Remember, concepts: vec![def.term.clone()], evidence: vec![evidence] })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> Option<(String, Option<String>)> {
        definitions(s, 0).into_iter().next().map(|d| (d.term, d.question))
    }

    #[test]
    fn bangla_definitions_turn_into_questions() {
        assert_eq!(
            one("যেসব জীব এভাবে নিজের খাদ্য নিজে তৈরি করতে পারে, তাদের স্বভোজী বলে।"),
            Some(("স্বভোজী".into(), Some("যেসব জীব এভাবে নিজের খাদ্য নিজে তৈরি করতে পারে, তাদের কী বলে?".into())))
        );
        assert_eq!(one("গ্রানার চারপাশের তরল অংশকে বলে স্ট্রোমা।"), Some(("স্ট্রোমা".into(), Some("গ্রানার চারপাশের তরল অংশকে কী বলে?".into()))));
        assert_eq!(
            one("অম্ল ও ক্ষারকের বিক্রিয়ায় লবণ ও পানি উৎপন্ন হওয়ার প্রক্রিয়াকে প্রশমন (Neutralisation) বলে।"),
            Some(("প্রশমন".into(), Some("অম্ল ও ক্ষারকের বিক্রিয়ায় লবণ ও পানি উৎপন্ন হওয়ার প্রক্রিয়াকে কী বলে?".into())))
        );
        assert_eq!(
            one("ক্লোরোফিল হলো ক্লোরোপ্লাস্টের থাইলাকয়েড পর্দায় অবস্থিত সবুজ রঞ্জক পদার্থ, যা সূর্যের আলো শোষণ করে।"),
            Some(("ক্লোরোফিল".into(), Some("কোনটি ক্লোরোপ্লাস্টের থাইলাকয়েড পর্দায় অবস্থিত সবুজ রঞ্জক পদার্থ, যা সূর্যের আলো শোষণ করে?".into())))
        );
        // The glossary head that is the answer is left out of the question.
        let (term, q) = one("সালোকসংশ্লেষণ: যে প্রক্রিয়ায় সবুজ উদ্ভিদ সূর্যালোকের উপস্থিতিতে খাদ্য তৈরি করে, তাকে সালোকসংশ্লেষণ বলে।").unwrap();
        assert_eq!((term.as_str(), q.as_deref()), ("সালোকসংশ্লেষণ", Some("যে প্রক্রিয়ায় সবুজ উদ্ভিদ সূর্যালোকের উপস্থিতিতে খাদ্য তৈরি করে, তাকে কী বলে?")));
        // A line that names a term gives no question; a list marker is not part of it.
        assert_eq!(one("৪. ক্লোরোফিল: আলো শোষণকারী সবুজ রঞ্জক পদার্থ।"), Some(("ক্লোরোফিল".into(), None)));
        // "বলা হয়", "সেটিই", "বলতে বোঝায়", "হলো" after a parenthesis.
        assert_eq!(
            one("যে প্রক্রিয়ায় পানি বাষ্প হয়ে বাতাসে মিশে যায়, তাকে বাষ্পীভবন বলা হয়।"),
            Some(("বাষ্পীভবন".into(), Some("যে প্রক্রিয়ায় পানি বাষ্প হয়ে বাতাসে মিশে যায়, তাকে কী বলা হয়?".into())))
        );
        assert_eq!(one("যে বল দুটি তলের আপেক্ষিক গতিতে বাধা দেয়, সেটিই ঘর্ষণ।"), Some(("ঘর্ষণ".into(), Some("যে বল দুটি তলের আপেক্ষিক গতিতে বাধা দেয়, তাকে কী বলে?".into()))));
        assert_eq!(
            one("পরিস্রাবণ (Filtration) বলতে বোঝায় ছাঁকনির সাহায্যে তরল থেকে অদ্রবণীয় কঠিন কণা আলাদা করা।"),
            Some(("পরিস্রাবণ".into(), Some("ছাঁকনির সাহায্যে তরল থেকে অদ্রবণীয় কঠিন কণা আলাদা করা — একে কী বলে?".into())))
        );
        assert_eq!(one("ঘনত্ব (Density) হলো বস্তুর একক আয়তনে থাকা ভরের পরিমাণ।"), Some(("ঘনত্ব".into(), Some("কোনটি বস্তুর একক আয়তনে থাকা ভরের পরিমাণ?".into()))));
        // "… also called …": the particle ও is not part of the term.
        assert_eq!(one("সবচেয়ে সরল এই বিভাজনকে প্রত্যক্ষ বিভাজনও বলা হয়।").map(|d| d.0), Some("প্রত্যক্ষ বিভাজন".into()));
        // A value is no description; "because …, it is called" leans on the sentence before; a
        // connective at the start is left out.
        assert_eq!(one("পরম শূন্য হলো −২৭৩.১৫ °C; হিসাবে আমরা −২৭৩ °C ধরি।"), None);
        assert_eq!(one("কোষ দুটি সমান ভাগে ভাগ হয় বলে একে সমবিভাজন বলা হয়।"), Some(("সমবিভাজন".into(), None)));
        assert_eq!(
            one("তবে যে বিভাজনে নিউক্লিয়াস সরাসরি দুই ভাগ হয়, তাকে প্রত্যক্ষ বিভাজন বলে।").and_then(|d| d.1),
            Some("যে বিভাজনে নিউক্লিয়াস সরাসরি দুই ভাগ হয়, তাকে কী বলে?".into())
        );
        // Modifiers before a term are not part of it.
        assert_eq!(one("প্রোটন ও নিউট্রন নিউক্লিয়াসে থাকে, তাই এদের একসঙ্গে নিউক্লিয়ন বলা হয়।").map(|d| d.0), Some("নিউক্লিয়ন".into()));
        assert_eq!(one("যেসব পরমাণুর পারমাণবিক সংখ্যা একই কিন্তু ভর সংখ্যা ভিন্ন, তাদের পরস্পরের আইসোটোপ বলে।").map(|d| d.0), Some("আইসোটোপ".into()));
        assert_eq!(one("শূন্য মাধ্যম থেকে আলো কোনো মাধ্যমে গেলে এই অনুপাতকে ওই মাধ্যমের প্রতিসরণাঙ্ক বলে।").map(|d| d.0), Some("প্রতিসরণাঙ্ক".into()));
        assert_eq!(one("যেসব উপাদান আমরা দেহের গঠন ও শক্তির জন্য গ্রহণ করি, সেগুলোকে এককথায় খাদ্য বলা হয়।").map(|d| d.0), Some("খাদ্য".into()));
        assert_eq!(one("এগুলোতে সব প্রয়োজনীয় উপাদান থাকে, তাই এদের উন্নত খাদ্য বলা হয়।").map(|d| d.1), Some(None));
        // An adverb before the term is not part of it.
        assert_eq!(one("পৃথিবী ও কোনো বস্তুর মধ্যকার আকর্ষণকে সাধারণভাবে অভিকর্ষ বলে।").map(|d| d.0), Some("অভিকর্ষ".into()));
        // A description that leans on the sentence before asks nothing.
        assert_eq!(one("এই বাধাদানকারী বলকে ঘর্ষণ বলে।"), Some(("ঘর্ষণ".into(), None)));
        assert_eq!(one("বিজ্ঞানে এই ধরনের টানকে আকর্ষণ বলা হয়।"), Some(("আকর্ষণ".into(), None)));
        // Not definitions.
        assert_eq!(one("দিনের আলোয় সালোকসংশ্লেষণের হার শ্বসনের হারের চেয়ে বেশি থাকে, তাই দিনে উদ্ভিদ অক্সিজেন ত্যাগ করে।"), None);
        assert_eq!(one("এ কথা সবাই বলে।"), None);
    }

    #[test]
    fn english_definitions_turn_into_questions() {
        assert_eq!(
            one("A file that contains a Python program is called a script."),
            Some(("script".into(), Some("What is a file that contains a Python program called?".into())))
        );
        assert_eq!(one("The order in which statements run is called control flow."), Some(("control flow".into(), Some("What is the order in which statements run called?".into()))));
        // The subject is a pronoun, or the sentence has another verb first.
        assert_eq!(one("This style is called snake_case."), None);
        assert_eq!(one("Text in Python is written between quotation marks and is called a string."), None);
        assert_eq!(one("Lists are mutable, and their items can be changed in place by assignment."), None);
    }

    fn ev_of(d: &Definition) -> ItemEvidence {
        ItemEvidence { chunk: 0, section: d.section, file: "f".into(), heading_path: vec![], quote: d.sentence.clone() }
    }

    #[test]
    fn an_item_asks_for_the_term_among_nearby_ones() {
        let text = "যেসব জীব এভাবে নিজের খাদ্য নিজে তৈরি করতে পারে, তাদের স্বভোজী বলে।\n\n\
                    খাদ্যের জন্য যেসব জীব অন্য জীবের ওপর নির্ভরশীল, তাদের পরভোজী বলে।\n\n\
                    গ্রানার চারপাশের তরল অংশকে বলে স্ট্রোমা।\n\n\
                    A file that contains a Python program is called a script.";
        let mut pool = definitions(text, 3);
        assert_eq!(pool.len(), 4);
        let target = pool[0].clone();
        let ev = ItemEvidence { chunk: 0, section: 3, file: "f".into(), heading_path: vec![], quote: target.sentence.clone() };
        assert!(item(&target, &pool, ev.clone()).is_none(), "two Bangla terms besides the key are too few");
        pool.extend(definitions("ক্ষারক: অম্লকে প্রশমিত করে লবণ ও পানি দেয় এমন পদার্থ।", 9));
        let i = item(&target, &pool, ev).unwrap();
        assert_eq!(i.options[i.answer_index], "স্বভোজী");
        let mut wrong: Vec<&str> = i.options.iter().filter(|o| *o != "স্বভোজী").map(String::as_str).collect();
        wrong.sort();
        assert_eq!(wrong, ["ক্ষারক", "পরভোজী", "স্ট্রোমা"], "Bangla terms only, a named one too");
        assert!(i.rationales[i.answer_index].contains("তাদের স্বভোজী বলে"));
        let k = i.options.iter().position(|o| o == "স্ট্রোমা").unwrap();
        assert!(i.rationales[k].contains("গ্রানার চারপাশের তরল অংশকে বলে স্ট্রোমা"), "{}", i.rationales[k]);
        // A question naming a word of its key needs wrong options that share it.
        let two: Vec<Definition> = ["যে শ্বসনে অক্সিজেন লাগে, তাকে সবাত শ্বসন বলে।", "যে শ্বসনে অক্সিজেন লাগে না, তাকে অবাত শ্বসন বলে।"].iter().flat_map(|t| definitions(t, 3)).collect();
        let mut pool2 = pool.clone();
        pool2.extend(two.clone());
        let ev2 = ItemEvidence { quote: two[0].sentence.clone(), ..ev_of(&two[0]) };
        assert!(item(&two[0], &pool2, ev2.clone()).is_none(), "only one wrong option shares 'শ্বসন'");
        pool2.extend(definitions("যে শ্বসনে কোষের বাইরে শক্তি মেলে, তাকে বাহ্যিক শ্বসন বলে।", 4));
        let i = item(&two[0], &pool2, ev2.clone()).unwrap();
        assert_eq!(i.options.iter().filter(|o| o.ends_with("শ্বসন")).count(), 3, "two of three wrong options share it: {:?}", i.options);
        pool2.extend(definitions("যে শ্বসন শুধু রাতে ঘটে, তাকে রাত্রিকালীন শ্বসন বলে।", 4));
        let i = item(&two[0], &pool2, ev2).unwrap();
        assert!(i.options.iter().all(|o| o.ends_with("শ্বসন")), "{:?}", i.options);
        assert_eq!(i.bloom, Bloom::Remember);
        let (checks, reason) = super::super::check::deterministic(&i, &[], true);
        assert_eq!(reason, None, "{checks:?}");
    }
}
