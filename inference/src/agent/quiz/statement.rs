//! "Which of these statements is true?" items from the book's own sentences, for a course in a
//! language the model writes (English), where the model's own items are weak: four claims of
//! one chapter, one as the book words it and three that no longer hold — a word of its main
//! clause turned ("Tuples are mutable" for "… immutable", "… can be changed" for "… cannot be
//! changed", "A total starts at 1" for "… at 0", "… to the beginning of a list" for "… to the
//! end …") or, between claims of one part of the chapter, the claim said of another thing of
//! the same kind ("The intersection a & b holds everything that is in a or in b"). The wrong
//! options come from the claims nearest the key, the whole chapter where its part has too few,
//! each about something the chapter's headings or code name (not an example's own things), and
//! the question names the part of the book all four come from. The learner must judge every claim on its own
//! against what the book says (Bloom's Remember: recognising the book's claim among ones that
//! do not hold); no model writes any of it, so the key is right by construction and each wrong
//! option's reason quotes the book's sentence. The quiz asks one where a recall item has no
//! definition of the book to ask.
//!
//! A claim is turned only in its main clause (before a comma, "if", "which" …: turning a word in
//! a condition changes the condition, not the claim), and a turned claim is kept only when no
//! sentence of its chapter says it (the new word with most of its content words), so a claim
//! the book makes elsewhere is never marked false. Sentences that lean on the one before
//! ("This …", "However, …"), open with a condition, point at an example, tell the reader what
//! to do, count the book's own kinds ("Powers have two surprising rules") or are mostly code are
//! not used.
//!
//! [`statements`] finds the usable sentences in a text, [`turn`] turns one, [`swap`] moves one
//! to another claim's subject, [`items`] makes the items of a passage.

use super::{Bloom, Item, ItemEvidence, check, prompt};
use crate::agent::ask::verify::{balanced, prose_sentences, terms};
use crate::bundle::Bundle;
use crate::index::outline::SectionKind;
use std::collections::HashSet;

/// A claim of the book with one word turned so that it no longer holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Turned {
    /// The claim as the book makes it.
    pub book: String,
    /// The same claim turned.
    pub text: String,
    /// The words taken out and put in.
    pub was: String,
    pub now: String,
    pub how: Turn,
}

/// How a claim was turned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// A word put for its opposite.
    Opposite,
    /// A number put for the next one ("at 0" → "at 1", "six times" → "seven times").
    Number,
    /// Negated, or its negation taken away.
    Negation,
    /// Said of another claim's subject ([`swap`]).
    Swap,
}

/// The question every such item asks, after the section's name.
const ASK: &str = "which of these statements is true?";
/// Most characters of a claim (an option).
const CLAIM_CHARS: usize = prompt::OPTION_MAX_CHARS - 10;
/// Fewest characters of a claim.
const MIN_CLAIM_CHARS: usize = 30;
/// Words either of which, said in place of the other, makes a claim false.
const OPPOSITES: &[(&str, &str)] = &[
    ("mutable", "immutable"),
    ("always", "never"),
    ("larger", "smaller"),
    ("largest", "smallest"),
    ("faster", "slower"),
    ("increases", "decreases"),
    ("increase", "decrease"),
    ("ascending", "descending"),
    ("local", "global"),
    ("True", "False"),
    ("true", "false"),
    ("maximum", "minimum"),
    ("highest", "lowest"),
    ("higher", "lower"),
    ("shorter", "longer"),
    ("inclusive", "exclusive"),
    ("optional", "required"),
    ("ordered", "unordered"),
    ("private", "public"),
    ("explicitly", "implicitly"),
    ("explicit", "implicit"),
    ("statically", "dynamically"),
    ("static", "dynamic"),
    ("absolute", "relative"),
    ("hashable", "unhashable"),
    ("uppercase", "lowercase"),
    ("rises", "falls"),
    ("gains", "loses"),
    ("attract", "repel"),
    ("soluble", "insoluble"),
    ("transparent", "opaque"),
    ("conductors", "insulators"),
    ("acidic", "alkaline"),
    ("beginning", "end"),
    ("before", "after"),
    ("left", "right"),
    ("inner", "outer"),
    ("keys", "values"),
    ("rows", "columns"),
    ("int", "float"),
    ("positive", "negative"),
    ("shortest", "longest"),
];
/// Words of [`OPPOSITES`] turned only after "the": elsewhere they mean something else ("left
/// over", "may end with"). ("first"/"last" are not turned at all: "Starting with the last item
/// is safe" holds as well as the book's "first", and "the last one … and the second …" is no
/// sentence.)
const AFTER_THE: &[&str] = &["left", "right", "beginning", "end"];
/// Things of [`OPPOSITES`] turned only after the main verb: said of the other thing a claim's
/// subject may well hold too ("Keys are not copied …" → "Values are not copied …").
const OBJECTS: &[&str] = &["keys", "values", "rows", "columns", "int", "float"];
/// Words after a number that count the book's own kinds, not something Python does.
const COUNTED: &[&str] = &["main", "kinds", "ways", "rules", "types", "things", "important", "surprising", "common", "parts", "steps", "forms", "styles", "useful", "basic", "different"];
/// Numbers in words, which [`counts_kinds`] reads; a count in words is never turned ("Adding
/// three tuples with + gives a new, longer tuple" still holds; "the union of three sets …
/// either set" is no sentence), only the digit of a rule ([`count`]: "starts at 0").
const NUMBER_WORDS: &[&str] = &["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
/// A verb and its negation, either way: the first found in a claim's main clause is turned.
const NEGATIONS: &[(&str, &str)] = &[
    ("cannot", "can"),
    ("can", "cannot"),
    ("is not", "is"),
    ("are not", "are"),
    ("does not", "does"),
    ("do not", "do"),
    ("must not", "must"),
    ("is", "is not"),
    ("are", "are not"),
];
/// Verbs a claim makes its point with, in the form after a singular subject ("Python shows …"):
/// [`turn`] negates the first in its main clause ("Python does not show …").
const VERBS: &[&str] = &[
    "returns", "shows", "prints", "gives", "takes", "holds", "contains", "keeps", "changes", "makes", "adds", "removes", "raises", "stops", "starts",
    "ends", "runs", "works", "creates", "needs", "uses", "means", "stores", "counts", "rounds", "throws", "joins", "splits", "repeats", "skips",
    "finds", "checks", "compares", "calls", "reads", "writes", "converts", "turns", "sorts", "includes", "allows", "lets", "accepts", "expects",
    "requires", "produces", "matters", "belongs", "refers", "evaluates", "executes", "ignores", "copies", "replaces", "moves", "inserts", "leaves",
    "goes", "comes", "becomes", "depends", "exists", "applies", "matches", "has", "does", "happens", "fails", "lasts", "grows", "shrinks", "waits",
    "treats", "looks", "tells", "knows", "remembers", "forgets", "absorbs", "reflects", "releases", "dissolves", "conducts", "deletes", "arranges",
    "reports", "protects", "describes", "represents", "defines", "builds", "saves", "sends", "displays", "asks", "receives", "divides", "multiplies",
    "subtracts", "collects", "combines", "separates", "picks", "chooses", "decides", "controls", "updates", "modifies", "handles", "catches", "opens",
    "closes", "loads", "generates", "assigns", "binds", "wraps", "unpacks", "appends", "extends", "clears", "discards", "accesses", "continues",
    "jumps", "iterates", "passes", "formats", "pads", "strips", "specifies", "indicates", "follows", "precedes", "causes", "prevents", "avoids",
    "guarantees", "ensures", "supports", "provides", "offers", "exceeds", "reaches", "truncates", "drops", "forms", "carries", "traps",
    "heats", "cools", "melts", "freezes", "boils", "burns", "reacts", "neutralises", "neutralizes", "enters", "transports",
];
/// Verbs of [`VERBS`] that say what a thing is or has rather than what it does: a claim with
/// one is not moved to another thing ([`swap`]).
const STATES: &[&str] = &["has", "does", "makes", "uses", "means", "needs", "matters", "belongs", "refers", "exists", "happens", "depends", "looks", "lets", "allows"];
/// Words after a verb that its negation would stand oddly before ("are also needed" is not
/// "are not also needed").
const ADVERBS: &[&str] = &["also", "only", "just", "even", "still", "already", "usually", "often", "sometimes", "simply", "really", "always", "never", "necessarily", "exactly"];
/// Where a claim's main clause ends: a condition, a reason or a relative clause follows.
const CLAUSE_ENDS: &[&str] = &[
    ",", ";", ":", " (", " if ", " when ", " unless ", " while ", " whether ", " until ", " because ", " although ", " since ", " so that ", " which ",
    " that ", " where ", " who ", " as long as ", " only ", " but ", " except ",
];
/// Where `sentence`'s main clause ends ([`CLAUSE_ENDS`]): "while" ends it unless it names the
/// loop ("A while loop repeats …").
fn clause_end(sentence: &str) -> usize {
    let ends = |e: &'static str| sentence.match_indices(e).map(|(at, _)| at).find(move |&at| e != " while " || !sentence[at + e.len()..].starts_with("loop"));
    CLAUSE_ENDS.iter().filter_map(|e| ends(e)).min().unwrap_or(sentence.len())
}

/// First words of an instruction to the reader ("Set total = 0 …", "Press Ctrl+C …"), not a
/// claim; the base form of any verb of [`VERBS`] opens one too.
const INSTRUCTIONS: &[&str] = &[
    "set", "press", "use", "put", "write", "remember", "try", "avoid", "be", "don't", "never", "always", "type", "choose", "think", "keep", "make", "give",
    "check", "add", "call", "run", "read", "print", "change", "convert", "open", "close", "start", "end", "store", "save", "compare", "look", "notice",
    "imagine", "consider", "suppose", "pick", "test", "follow", "indent", "name", "define", "create", "delete", "replace",
];

/// First words of a sentence that leans on the one before it, or opens with a condition.
const LEANS: &[&str] = &[
    "This", "That", "These", "Those", "It", "Its", "They", "Their", "Them", "Such", "Here", "There", "However", "Also", "Therefore", "Thus", "Hence", "So",
    "But", "And", "Or", "Then", "Otherwise", "Instead", "Similarly", "Likewise", "Finally", "First", "Second", "Third", "Next", "Now", "Note", "See", "For",
    "If", "When", "Whenever", "Unless", "While", "Whether", "Until", "Because", "Although", "Though", "Since", "As", "Before", "After", "Once", "Where",
    "Again", "Both", "Each", "Either", "Neither", "Other", "Another", "Some", "Most", "Many", "One", "Only", "Even", "Of", "In", "On", "At", "To", "By",
    "With", "Without", "Unlike", "Like", "We", "You", "I", "Let",
];
/// A sentence with these points at an example or at other text, or speaks of the book itself.
const POINTS: &[&str] = &[
    "for example", "for instance", "e.g.", "i.e.", "the following", "as follows", "below", "above", "this example", "the example", "previous", "earlier",
    "later", "next section", "this section", "this chapter", "this tutorial", "this document", "this guide", "this howto", "see ", "we ", "you'll", "we'll",
    "let's", "here", "shown", "etc.", "...", "…", "last line", "first line", "this line", "the line", "last example", "first example", "passage",
    "the text", "paragraph", "key fact", "the same", "like this", " also ", " too", "the next", "session", "chapter", "as well", "one of",
    "first program", "second program", " section", "so the answer", " gave ", " printed ", " worked", " vanished", "on the right", "on the left", "once again", "instead.", "the counting",
];
/// Words that point back at what came before ("… a second way of doing this", "The start must
/// then be smaller …"); "it" and "they" mostly name the sentence's own subject past its first
/// word.
const POINTERS: &[&str] = &["this", "these", "those", "such", "then"];
/// Capitalised words a claim may hold past its first word; any other is a name from an
/// example ("Rafi", "Bangladesh") or a heading the learner does not see.
const NAMES_ALLOWED: &[&str] = &["Python", "True", "False", "None", "I"];

/// Openings of a sentence about the example just shown ("The list has four items, …", "The
/// order is the order in which the values were written", "The original tuple is not altered").
const ABOUT_AN_EXAMPLE: &[&str] = &[
    "the list has", "the list is", "the program", "the output", "the result", "the answer", "the loop", "the code", "the example", "the last", "the second",
    "the third", "the call", "the error", "the shell", "the other", "the indented", "another", "the one ", "the two ", "the three ", "the four ",
    "the names", "inside the loop", "the most ", "the start ", "the order ", "the original ", "the name ", "the rest ", "the new ", "the old ",
    "the number of names",
];
/// Words after which a word of [`VERBS`] is a noun ("Future releases may …").
const AUXILIARIES: &[&str] = &["may", "can", "will", "must", "should", "would", "could", "are", "is", "were", "was", "do", "does", "have", "has"];

/// Whether `sentence` can be a claim: a whole English sentence of option length that stands
/// alone (no leaning first word, no pointing at an example), mostly words rather than code.
fn claim(sentence: &str) -> bool {
    let n = sentence.chars().count();
    let first = sentence.split_whitespace().next().unwrap_or("").trim_end_matches(',');
    let lower = sentence.to_lowercase();
    let code = sentence.chars().filter(|c| "()[]{}=_<>*/\\'\"`%#@".contains(*c)).count();
    (MIN_CLAIM_CHARS..=CLAIM_CHARS).contains(&n)
        && sentence.starts_with(|c: char| c.is_ascii_uppercase())
        && sentence.ends_with('.')
        && !sentence.contains(['?', '!'])
        && sentence.split_whitespace().count() >= 5
        && balanced(sentence)
        // Not one that leaves its last verb's object to the reader ("…, but lists are.").
        && !sentence.trim_end_matches('.').rsplit(' ').next().is_some_and(|w| AUXILIARIES.contains(&w))
        && code <= 2
        && !LEANS.contains(&first)
        && !instruction(first)
        && !counts_kinds(sentence)
        // Not a fragment that names a mistake ("Using a local variable outside its function.").
        && !(first.ends_with("ing") && main_verb(sentence).is_none() && ![" is ", " are "].iter().any(|v| sentence.contains(v)))
        && !POINTS.iter().any(|p| lower.contains(p))
        && !ABOUT_AN_EXAMPLE.iter().any(|p| lower.starts_with(p))
        && !sentence.split_whitespace().skip(1).any(|w| name(w.trim_matches(|c: char| !c.is_alphanumeric())))
        && !lower.split_whitespace().any(|w| POINTERS.contains(&w.trim_matches(|c: char| !c.is_alphanumeric())))
}

/// Whether `sentence` counts the book's own kinds of something ("Powers have two surprising
/// rules", "Python has two division operators"): only the book's wording says how many, so
/// neither the claim nor its turn can be judged.
fn counts_kinds(sentence: &str) -> bool {
    let words: Vec<&str> = sentence.split_whitespace().map(|w| w.trim_end_matches(['.', ','])).collect();
    words.windows(2).any(|w| NUMBER_WORDS.contains(&w[0]) && COUNTED.contains(&w[1]) || ["has", "have"].contains(&w[0]) && NUMBER_WORDS.contains(&w[1]))
}

/// Whether `word`, a sentence's first, tells the reader to do something ([`INSTRUCTIONS`]).
fn instruction(word: &str) -> bool {
    let word = word.to_lowercase();
    INSTRUCTIONS.contains(&word.as_str()) || VERBS.iter().any(|v| base(v) == word)
}

/// Whether `word` is a name: a capital then small letters only, not one of [`NAMES_ALLOWED`]
/// (code such as `ValueError` or `HTML` is no name).
fn name(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_uppercase()) && word.chars().count() > 1 && chars.all(|c| c.is_lowercase()) && !NAMES_ALLOWED.contains(&word)
}

/// The sentences of `text` that can be claims ([`claim`]), in order.
pub fn statements(text: &str) -> Vec<&str> {
    prose_sentences(text).into_iter().map(|(_, s)| s).filter(|s| claim(s)).collect()
}

/// Where `word` (one or more words) first stands whole in `text[..end]`, matched as written or,
/// at the very start, with a capital.
fn find_word(text: &str, word: &str, end: usize) -> Option<usize> {
    let head = &text[..end];
    let whole = |at: usize| {
        let before = head[..at].chars().next_back();
        let after = head[at + word.len()..].chars().next();
        before.is_none_or(|c| !c.is_alphanumeric() && c != '_' && c != '-') && after.is_none_or(|c| !c.is_alphanumeric() && c != '_' && c != '-')
    };
    let mut from = 0;
    while let Some(k) = head[from..].find(word) {
        let at = from + k;
        if whole(at) {
            return Some(at);
        }
        from = at + word.len();
    }
    let mut chars = word.chars();
    let capital: String = chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default();
    (capital != word && head.starts_with(&capital) && whole(0)).then_some(0)
}

/// Where `sentence`'s main verb starts (a verb of [`VERBS`] or [`NEGATIONS`], or "can",
/// "must" in its main clause, after a subject of one to six words), and whether it goes with a
/// singular subject (`Some(true)`), a plural one (`Some(false)`) or either (`None`).
fn main_verb(sentence: &str) -> Option<(usize, Option<bool>)> {
    let end = clause_end(sentence);
    let verbs = VERBS.iter().map(|v| (find_verb(sentence, v, end), Some(true)));
    let others = NEGATIONS.iter().map(|&(a, _)| (a, number(a))).chain([("must", None)]).map(|(v, n)| (find_word(sentence, v, end), n));
    let (at, singular) = verbs.chain(others).filter_map(|(at, n)| Some((at?, n))).min_by_key(|&(at, _)| at)?;
    let words = sentence[..at].split_whitespace().count();
    (1..=6).contains(&words).then_some((at, singular))
}

/// Whether a verb of [`NEGATIONS`] goes with a singular subject.
fn number(verb: &str) -> Option<bool> {
    match verb.split(' ').next() {
        Some("is" | "does") => Some(true),
        Some("are" | "do") => Some(false),
        _ => None,
    }
}

/// `claim` said of the subject of `other` instead of its own ("The intersection a & b holds
/// everything that is in a or in b" from the union's claim and the intersection's): two claims
/// of one section swapped, a wrong option as plausible as the book's words. `None` when either
/// has no main verb found, their verbs disagree in number, or the subjects are alike.
pub fn swap(claim: &str, other: &str) -> Option<Turned> {
    let (at, n) = main_verb(claim)?;
    let (other_at, other_n) = main_verb(other)?;
    // What a thing does, not what it is or has ("A tuple with two items has a position number"
    // may well hold too).
    let acts = |s: &str, at: usize| s[at..].split_whitespace().next().is_some_and(|v| VERBS.contains(&v) && !STATES.contains(&v));
    if !acts(claim, at) || !acts(other, other_at) {
        return None;
    }
    if n.zip(other_n).is_some_and(|(a, b)| a != b) {
        return None;
    }
    let (was, now) = (claim[..at].trim_end(), other[..other_at].trim_end());
    let (a, b) = (terms(was), terms(now));
    if a.is_empty() || b.is_empty() || a.is_subset(&b) || b.is_subset(&a) || !kin(was, now) {
        return None;
    }
    Some(Turned { book: claim.to_string(), text: format!("{now} {}", &claim[at..]), was: was.to_string(), now: now.to_string(), how: Turn::Swap })
}

/// Whether two subjects are things of one kind, so that what is said of one could be said of
/// the other: they share a word ("The function len()", "The function set()"), or both are code
/// ("The union a | b", "The intersection a & b"). A claim moved to a thing of another kind
/// ("A set removes a pair") is too plainly wrong.
fn kin(a: &str, b: &str) -> bool {
    const ARTICLES: &[&str] = &["the", "a", "an"];
    let words = |s: &str| -> Vec<String> { s.split_whitespace().map(|w| w.to_lowercase()).filter(|w| !ARTICLES.contains(&w.as_str()) && w.chars().any(char::is_alphabetic)).collect() };
    let code = |s: &str| s.contains(['(', '[', '|', '&', '*', '+', '=', '<', '>', '%', '.']);
    let (wa, wb) = (words(a), words(b));
    wa.iter().any(|w| wb.contains(w)) || code(a) && code(b)
}

/// [`find_word`] for a verb: not one an auxiliary follows, which makes it a noun ("Future
/// releases may …"), nor one after a verb of a plural subject ("Keyword arguments make calls
/// …").
fn find_verb(sentence: &str, verb: &str, end: usize) -> Option<usize> {
    let at = find_word(sentence, verb, end)?;
    let next = sentence[at + verb.len()..].split_whitespace().next().unwrap_or("");
    let before = sentence[..at].split_whitespace().next_back().unwrap_or("");
    (!AUXILIARIES.contains(&next) && !VERBS.iter().any(|v| base(v) == before)).then_some(at)
}

/// `text` with the article before byte `at` ("a", "an") made to fit the word that starts there
/// ("a absolute import" → "an absolute import").
fn fit_article(text: String, at: usize) -> String {
    let before = text[..at].trim_end();
    let word_at = before.rfind(' ').map_or(0, |k| k + 1);
    let article = &before[word_at..];
    if !["a", "an", "A", "An"].contains(&article) {
        return text;
    }
    let vowel = text[at..].starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']);
    let fitted = match (article.starts_with('A'), vowel) {
        (true, true) => "An",
        (true, false) => "A",
        (false, true) => "an",
        (false, false) => "a",
    };
    format!("{}{fitted}{}", &text[..word_at], &text[word_at + article.len()..])
}

/// `sentence` with one word of its main clause turned so that the claim no longer holds: the
/// first word of [`OPPOSITES`] put for its opposite (not where the sentence says both) or number
/// put for the next ([`count`]), else the first verb negated or its negation taken away
/// ([`negate`]). `None` when its main clause has none of them.
pub fn turn(sentence: &str) -> Option<Turned> {
    let end = clause_end(sentence);
    let put = |at: usize, was: &str, now: &str, how: Turn| {
        let now = if at == 0 {
            let mut c = now.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
        } else {
            now.to_string()
        };
        let text = fit_article(format!("{}{now}{}", &sentence[..at], &sentence[at + was.len()..]), at);
        Turned { book: sentence.to_string(), text, was: sentence[at..at + was.len()].to_string(), now, how }
    };
    let lower = sentence.to_lowercase();
    let opposite = OPPOSITES
        .iter()
        .flat_map(|&(a, b)| [(a, b), (b, a)])
        .filter(|&(_, b)| find_word(sentence, b, sentence.len()).is_none())
        .filter_map(|(a, b)| Some((find_word(sentence, a, end)?, a, b.to_string())))
        // "does not always" is not "does not never"; a name in code ("int()", "x.keys") is
        // not a word.
        .filter(|&(at, a, _)| !sentence[..at].ends_with("not ") && !sentence[..at].ends_with("no ") && !sentence[..at].ends_with('.') && !sentence[at + a.len()..].starts_with('('))
        .filter(|&(at, a, _)| !AFTER_THE.contains(&a) || sentence[..at].to_lowercase().ends_with("the "))
        .filter(|&(at, a, _)| !OBJECTS.contains(&a.to_lowercase().as_str()) || main_verb(sentence).is_some_and(|(verb, _)| at > verb))
        // "true"/"false" said of something, not naming it ("true division").
        .filter(|&(at, a, _)| {
            let after = sentence[at + a.len()..].split_whitespace().next().unwrap_or("");
            !["true", "false"].contains(&a) || after.is_empty() || after.starts_with(|c: char| !c.is_alphabetic()) || ["if", "when", "for", "or", "and", "only", "otherwise", "because", "unless"].contains(&after.trim_end_matches(['.', ',']))
        })
        // Not where the sentence says the new word's like already ("at the start or the end").
        .filter(|&(_, a, _)| a != "end" || !["start", "begin", "front"].iter().any(|w| lower.contains(w)))
        // Values are keys' opposite only in a dictionary.
        .filter(|&(_, a, _)| a != "values" || lower.contains("dictionar"));
    let opposite = opposite.map(|(at, a, b)| (at, a, b, Turn::Opposite));
    let counted = count(sentence, end).map(|(at, a, b)| (at, a, b, Turn::Number));
    match opposite.chain(counted).min_by_key(|&(at, ..)| at) {
        Some((at, a, b, how)) => Some(put(at, a, b.as_str(), how)),
        None => negate(sentence, end),
    }
}

/// The first one-digit number in `sentence[..end]` and the one after it ("A total starts at 0"
/// → "… at 1"): where it starts, the number, the new one.
fn count(sentence: &str, end: usize) -> Option<(usize, &str, String)> {
    let mut at = 0;
    for word in sentence[..end].split(' ') {
        let bare = word.trim_end_matches([',', '.', ';']);
        // One digit: larger numbers are mostly an example's data ("… saves 150 taka").
        let next = bare.parse::<u32>().ok().filter(|_| bare.len() == 1).map(|n| (n + 1).to_string());
        // Not the first word ("Two …" counts a subject), nor a number the sentence says already,
        // nor one in a denial ("from 1, not from 0" → "from 2, not from 0" says nothing).
        if let Some(next) = next.filter(|n| at > 0 && find_word(sentence, n, sentence.len()).is_none() && !sentence.contains(" not ")) {
            return Some((at, &sentence[at..at + bare.len()], next));
        }
        at += word.len() + 1;
    }
    None
}

/// [`turn`]'s second way: the first verb of the main clause (before byte `end`) negated, or its
/// negation taken away.
fn negate(sentence: &str, end: usize) -> Option<Turned> {
    // No article stands before a verb ("sequence a is" is no "an is").
    let put = |at: usize, was: &str, now: &str| {
        let text = format!("{}{now}{}", &sentence[..at], &sentence[at + was.len()..]);
        Turned { book: sentence.to_string(), text, was: sentence[at..at + was.len()].to_string(), now: now.to_string(), how: Turn::Negation }
    };
    // The first verb of the main clause, its longer form where two start there ("is not"
    // before "is"); not before an adverb ("is not only …" says more than its negation).
    // Never the first word (a claim opens with its subject), nor "is" that a verb follows (the
    // operator `is`: "The operator is checks …").
    let verbs = VERBS.iter().filter_map(|&v| Some((find_verb(sentence, v, end).filter(|&at| at > 0)?, v, format!("does not {}", base(v)))));
    let negations = NEGATIONS.iter().filter_map(|&(a, b)| {
        let at = find_word(sentence, a, end).filter(|&at| at > 0)?;
        let next = sentence[at + a.len()..].split_whitespace().next().unwrap_or("");
        (!VERBS.contains(&next)).then(|| (at, a, b.to_string()))
    });
    let negated: Vec<(usize, &str, String)> = verbs.chain(negations).collect();
    let (at, a, b) = negated.into_iter().min_by_key(|&(at, a, _)| (at, std::cmp::Reverse(a.len())))?;
    let next = sentence[at + a.len()..].split_whitespace().next().unwrap_or("");
    // A claim that denies something already ("… from 0, not from 1") is not negated once more,
    // nor is a definition ("… is called a slice": a book never defines by denial).
    let denies = |t: &str| {
        let t = t.to_lowercase().replace(['.', ',', ';', ':'], " ");
        [" not ", "cannot", "n't ", " never ", " no ", " none ", " nothing "].iter().any(|n| t.contains(n))
    };
    let adds_not = b.contains("not") || b == "cannot";
    // A classification denied gives itself away ("A counter is not a variable that …").
    // Nor a way of doing something ("A common mistake is to forget …", "… is putting …").
    let copula = ["is", "are"].contains(&a);
    let defines = ["called", "known", "named"].contains(&next) || copula && (["a", "an", "the", "to"].contains(&next) || next.ends_with("ing")) || [" called ", " known as ", " named "].iter().any(|w| sentence.contains(w));
    // Nor one of several things a sentence says in a row ("A for loop takes each item, stores
    // it … and runs …"): "not" would deny the first alone.
    let rest = &sentence[at..];
    let listed = sentence.matches(',').count() > 1 || rest.find(',').is_some_and(|c| [" and ", " or "].iter().any(|w| rest[c..].contains(w)));
    let before = sentence[..at].split_whitespace().next_back().unwrap_or("");
    // Nor a claim of every thing ("Every call does not give back a value" reads as "not every").
    let every = ["Every", "All", "Any"].iter().any(|w| sentence.starts_with(&format!("{w} ")));
    // Nor the first of two verbs or clauses: a "not" put in denies half ("… does not stop the
    // program and reports …"), one taken out leaves the second against it ("Python allows … to
    // change and raises a RuntimeError").
    let paired = rest.match_indices(" and ").any(|(k, w)| rest[k + w.len()..].split_whitespace().take(3).any(|v| VERBS.contains(&v)));
    if ADVERBS.contains(&next) || ADVERBS.contains(&before) || paired || adds_not && (denies(&format!(" {sentence} ")) || defines || listed || every) {
        return None;
    }
    // "does not have to be" is "has to be"; "do not need" is "need".
    if let ("does not" | "do not", Some(verb)) = (a, next.chars().all(|c| c.is_ascii_lowercase()).then_some(next)) {
        let inflected = if a == "does not" { third_person(verb) } else { verb.to_string() };
        let from = at + a.len() + 1 + verb.len();
        let text = format!("{}{inflected}{}", &sentence[..at], &sentence[from.min(sentence.len())..]);
        return Some(Turned { book: sentence.to_string(), text, was: format!("{a} {verb}"), now: inflected, how: Turn::Negation });
    }
    Some(put(at, a, &b))
}

/// A verb's form after a singular subject: "have" → "has", "match" → "matches", "copy" →
/// "copies", "return" → "returns".
fn third_person(verb: &str) -> String {
    match verb {
        "have" => "has".into(),
        "do" | "go" => format!("{verb}es"),
        v if ["s", "sh", "ch", "x", "z"].iter().any(|e| v.ends_with(e)) => format!("{v}es"),
        v if v.ends_with('y') && !["ay", "ey", "oy", "uy"].iter().any(|e| v.ends_with(e)) => format!("{}ies", &v[..v.len() - 1]),
        v => format!("{v}s"),
    }
}

/// A verb's form after "does not": "returns" → "return", "matches" → "match", "copies" → "copy".
fn base(verb: &str) -> String {
    match verb {
        "has" => "have".into(),
        "does" => "do".into(),
        "goes" => "go".into(),
        v if v.ends_with("ies") => format!("{}y", &v[..v.len() - 3]),
        v if ["sses", "shes", "ches", "xes", "zes"].iter().any(|e| v.ends_with(e)) => v[..v.len() - 2].to_string(),
        v => v[..v.len() - 1].to_string(),
    }
}

/// Whether a sentence of `chapter` says what `t` says: for an opposite, one holding its new
/// word and most of its content words; for a negation or a swap, one (not the book's own) with
/// most of its content words and the same polarity (a swap's new subject has sentences of its
/// own, which name it with other words said of it: naming it is not enough).
fn said(t: &Turned, chapter: &[&str]) -> bool {
    let negative = |s: &str| {
        let s = format!(" {} ", s.to_lowercase());
        [" not ", "cannot", "n't", " never ", " no "].iter().any(|n| s.contains(n))
    };
    let want = terms(&t.text);
    let most = |s: &str| want.intersection(&terms(s)).count() as f64 >= 0.75 * want.len().max(1) as f64;
    chapter.iter().any(|s| match t.how {
        Turn::Opposite | Turn::Number => {
            let lower = s.to_lowercase();
            most(s) && find_word(&lower, &t.now.to_lowercase(), lower.len()).is_some()
        }
        Turn::Negation | Turn::Swap => *s != t.book && most(s) && negative(s) == negative(&t.text),
    })
}

/// Whether `section` is a chapter's opening, which says what the chapter will teach ("In this
/// chapter you will meet …") rather than teaching it.
fn preview(section: &crate::index::outline::Section) -> bool {
    section.heading_path.len() == 1 && !section.children.is_empty()
}

/// The claims of section `section` and of the sections right above, below and beside it (not
/// a chapter's opening), its own first, then those of the rest of its chapter, nearest first:
/// the wrong options come from the part of the book nearest the key, and each claim carries its
/// section, so the question can name the part all four come from.
fn near_claims(bundle: &Bundle, section: u32) -> Vec<Claim<'_>> {
    let own = &bundle.sections[section as usize];
    let mut siblings = own.parent.map(|p| bundle.sections[p as usize].children.clone()).unwrap_or_default();
    siblings.sort_by_key(|&id| id.abs_diff(section));
    let family: Vec<u32> = std::iter::once(section).chain(own.children.iter().copied()).chain(own.parent).chain(siblings).collect();
    let mut chapter: Vec<u32> = bundle.sections.iter().filter(|s| s.file == own.file && s.kind != SectionKind::Exercise).map(|s| s.id).collect();
    chapter.sort_by_key(|&id| id.abs_diff(section));
    let mut seen = HashSet::new();
    let ids = family.iter().map(|&id| (id, true)).chain(chapter.into_iter().map(|id| (id, false))).filter(|&(id, _)| seen.insert(id));
    ids.map(|(id, near)| (&bundle.sections[id as usize], near))
        .filter(|(s, _)| !preview(s))
        .flat_map(|(s, near)| statements(&s.text).into_iter().map(move |text| Claim { section: s.id, near, text }))
        .collect()
}

/// A claim of the book, from section `section`; `near` when that section is the key's, right
/// above, below or beside it.
#[derive(Clone, Copy)]
struct Claim<'a> {
    section: u32,
    near: bool,
    text: &'a str,
}

/// The heading of the deepest section that holds all of `sections` (of one chapter): what an
/// item whose options come from them is about.
fn scope(bundle: &Bundle, sections: &[u32]) -> String {
    let paths: Vec<&[String]> = sections.iter().map(|&id| bundle.sections[id as usize].heading_path.as_slice()).collect();
    let shared = (0..paths.iter().map(|p| p.len()).min().unwrap_or(0)).take_while(|&i| paths.iter().all(|p| p[i] == paths[0][i])).count();
    paths.first().and_then(|p| p[..shared].last()).cloned().unwrap_or_default()
}

/// Whether `claim` gives no reason or explanation beside what it states: a word turned in it
/// would be given away by the rest ("… always changes the original string, because strings are
/// immutable").
fn one_clause(claim: &str) -> bool {
    ![" because ", " since ", " so ", ", so", ";", ":", " which means "].iter().any(|e| claim.contains(e))
}

/// The items on the claims of `text` (a passage of section `section`), its `focus` first, none
/// on a claim in `used`: each claim as the key with three other claims of its section and those
/// around it ([`near_claims`], nearest first) turned or swapped as the wrong options, none said
/// elsewhere in the chapter nor an option the learner was `shown` already.
pub fn items<'a>(bundle: &'a Bundle, section: u32, text: &'a str, focus: Option<&str>, used: &[&str], shown: &[&str], evidence: impl Fn(String) -> ItemEvidence + 'a) -> impl Iterator<Item = Item> + 'a {
    let section = &bundle.sections[section as usize];
    // A key is a claim that could be turned: a sentence that states something, not one that
    // only says what comes ("… needs a closer look").
    let mut keys: Vec<&str> = if preview(section) { Vec::new() } else { statements(text).into_iter().filter(|s| !used.contains(s) && turn(s).is_some()).collect() };
    keys.sort_by_key(|s| Some(*s) != focus);
    let all: Vec<&str> = bundle.sections.iter().filter(|s| s.file == section.file).flat_map(|s| prose_sentences(&s.text).into_iter().map(|(_, t)| t)).collect();
    let heading = section.heading().to_string();
    // A claim that opens with a name from an example ("Rafi has 150 taka …"): its first word is
    // one the chapter never writes in small letters.
    let lower: HashSet<String> = all.iter().flat_map(|t| t.split_whitespace().skip(1)).map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string()).collect();
    let named = |c: &str| {
        let first = c.split_whitespace().next().unwrap_or("");
        name(first) && !lower.contains(&first.to_lowercase())
    };
    // A claim whose subject the chapter's headings name, or code names ("The method
    // append()", "A counter" under "Counters and accumulators"): one about an example's own
    // things ("A district receives an empty list …", "The minus sign puts …") needs the example
    // to be judged, so it is no wrong option; a key names something a heading does.
    let headings: HashSet<String> = bundle.sections.iter().filter(|s| s.file == section.file).flat_map(|s| terms(s.heading())).chain(["python".to_string()]).collect();
    let grounded = |c: &str| {
        // Its first three words where no main verb is found.
        let three = c.split_whitespace().take(3).map(|w| w.len() + 1).sum::<usize>().min(c.len());
        let subject = &c[..main_verb(c).map_or(three, |(at, _)| at)];
        subject.contains(['(', '_', '=', '[', '.', '*', '+', '%', '/', '<', '>']) || terms(subject).iter().any(|t| headings.contains(t))
    };
    keys.retain(|k| !named(k) && terms(k).iter().any(|t| headings.contains(t)));
    // The claims a wrong option may be made from, read once for every key.
    let claims: Vec<Claim> = near_claims(bundle, section.id).into_iter().filter(|c| !named(c.text) && grounded(c.text)).collect();
    let shown: Vec<String> = shown.iter().map(|s| s.to_string()).collect();
    keys.into_iter().filter_map(move |key| {
        let key_terms = terms(key);
        // Not the key, nor a claim much like it (its turn would contradict the key alone).
        let others: Vec<Claim> = claims
            .iter()
            .copied()
            .filter(|c| {
                let other = terms(c.text);
                c.text != key && one_clause(c.text) && other.intersection(&key_terms).count() * 2 < other.len().min(key_terms.len()).max(1)
            })
            .collect();
        // Each other claim turned, nearest first, or said of another near claim's subject (a
        // claim moved to a thing of another part of the chapter is plainly wrong: "The union
        // a | b removes a pair").
        let turned = others.iter().filter_map(|c| Some((c.section, turn(c.text)?)));
        let near: Vec<Claim> = others.iter().copied().filter(|c| c.near).collect();
        let swapped = near.iter().enumerate().flat_map(|(i, c)| near.iter().skip(i + 1).chain(near.iter().take(i)).filter_map(move |o| Some((c.section, swap(c.text, o.text)?))));
        let candidates: Vec<(u32, Turned)> = turned.chain(swapped).filter(|(_, t)| !shown.contains(&t.text) && !said(t, &all)).take(24).collect();
        // A "not" the key lacks marks a wrong option: at most one such. No claim is turned
        // twice.
        let denies = |t: &str| [" not ", "cannot", "n't ", " never "].iter().any(|n| format!(" {t} ").contains(n));
        let marked = |t: &Turned| denies(&t.text) && !denies(&t.book) && !denies(key);
        let (mut wrong, mut from): (Vec<Turned>, Vec<u32>) = (Vec::new(), vec![section.id]);
        for (at, t) in candidates {
            if wrong.len() < 3 && !wrong.iter().any(|w| w.book == t.book || w.text == t.text) && (!marked(&t) || !wrong.iter().any(|w| marked(w))) {
                wrong.push(t);
                from.push(at);
            }
        }
        item(&scope(bundle, &from), &heading, key, &wrong, evidence(key.to_string()))
    })
}

/// The item: `key` (of the section headed `heading`) where [`check::key_position`] puts it
/// among the three `wrong` claims, asked of the part of the book headed `scope` that holds
/// them all. `None` without three.
pub fn item(scope: &str, heading: &str, key: &str, wrong: &[Turned], evidence: ItemEvidence) -> Option<Item> {
    if wrong.len() < 3 {
        return None;
    }
    let question = if (1..=60).contains(&scope.chars().count()) && !scope.ends_with('?') { format!("In “{scope}”, {ASK}") } else { format!("W{}", &ASK[1..]) };
    let at = check::key_position(&format!("{question} {key}"));
    let mut options: Vec<String> = wrong.iter().map(|w| w.text.clone()).collect();
    let mut rationales: Vec<String> = wrong.iter().map(|w| format!("Not true: the course says “{}” (“{}”, not “{}”).", w.book, w.was, w.now)).collect();
    options.insert(at, key.to_string());
    rationales.insert(at, format!("True: the course says this in “{heading}”."));
    if rationales.iter().any(|r| r.chars().count() > prompt::REASON_MAX_CHARS) {
        return None;
    }
    let concepts = vec![heading.to_string()];
    Some(Item { question, options, answer_index: at, rationales, bloom: Bloom::Remember, concepts, evidence: vec![evidence] })
}

/// Whether `question` is such an item's stem (every one asks the same, its claims differ: the
/// key is never a claim an earlier item rested on).
pub fn asks(question: &str) -> bool {
    question.ends_with(ASK) || question == format!("W{}", &ASK[1..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_is_turned_in_its_main_clause_only() {
        let t = |s: &str| turn(s).map(|t| t.text);
        assert_eq!(t("Tuples are immutable sequences of items.").as_deref(), Some("Tuples are mutable sequences of items."));
        assert_eq!(t("A list can be changed in place by its methods.").as_deref(), Some("A list cannot be changed in place by its methods."));
        assert_eq!(t("Strings cannot be changed once they are made.").as_deref(), Some("Strings can be changed once they are made."));
        assert_eq!(t("Keys are compared by their values.").as_deref(), Some("Keys are not compared by their values."));
        assert_eq!(t("Keys are not copied when the dictionary grows.").as_deref(), Some("Keys are copied when the dictionary grows."));
        assert_eq!(t("True is printed for every even number here.").as_deref(), Some("False is printed for every even number here."));
        // A sentence that says both words of a pair is not turned by them.
        assert_eq!(t("Lists are mutable and tuples are immutable.").as_deref(), Some("Lists are not mutable and tuples are immutable."));
        // Nothing to turn before the clause ends.
        assert_eq!(turn("The loop starting here, and a break is never reached."), None);
        assert_eq!(turn("A name is not only a label for an object."), None);
        // Whole words only: "island" holds no "is", "mutable" in "immutable" is not "mutable".
        assert_eq!(find_word("an island", "is", 9), None);
        assert_eq!(find_word("immutable", "mutable", 9), None);
        assert_eq!(t("A relative import names the package it starts from.").as_deref(), Some("An absolute import names the package it starts from."));
        assert_eq!(turn("Future releases may change the default."), None, "a noun before an auxiliary is no verb");
        // A verb after a singular subject is negated; not before an adverb.
        assert_eq!(t("Floor division throws away the fractional part.").as_deref(), Some("Floor division does not throw away the fractional part."));
        assert_eq!(t("The method matches the whole string.").as_deref(), Some("The method does not match the whole string."));
        assert_eq!(turn("Brackets are also needed to average the marks."), None);
        assert_eq!(turn("Python starts counting from 0, not from 1."), None, "it denies already");
        assert_eq!(turn("Formatting is deferred until it cannot be avoided."), None, "\"cannot\" denies too");
        assert_eq!(t("An accumulator does not have to be a number.").as_deref(), Some("An accumulator has to be a number."));
        assert_eq!(t("Sets do not keep any order.").as_deref(), Some("Sets keep any order."));
        assert_eq!(turn("A part of a string is called a slice."), None, "a definition is not denied");
        assert_eq!(turn("A counter is a variable that counts how many times something happens."), None, "nor a classification");
        assert_eq!(turn("A common mistake is to forget the f."), None, "nor a way of doing something");
        assert_eq!(turn("A counter does not always count loop repetitions."), None, "\"does not always\" is no \"does not never\"");
        assert_eq!(t("Item i of sequence a is selected by a[i].").as_deref(), Some("Item i of sequence a is not selected by a[i]."), "no article before a verb");
        assert_eq!(turn("The pass statement does nothing."), None, "it denies already");
    }

    #[test]
    fn a_loop_word_a_count_and_a_place_are_turned_too() {
        let t = |s: &str| turn(s).map(|t| (t.text, t.how));
        // "while" names the loop; it ends no clause.
        assert_eq!(t("A while loop repeats a block of code as long as a condition is true."), Some(("A while loop does not repeat a block of code as long as a condition is true.".into(), Turn::Negation)));
        assert_eq!(t("A total starts at 0 and grows on each iteration."), Some(("A total starts at 1 and grows on each iteration.".into(), Turn::Number)));
        assert_eq!(turn("Adding two tuples with + gives a new, longer tuple.").map(|t| t.how), Some(Turn::Negation), "a count in words is not turned");
        assert_eq!(t("A step of 2 takes every second character.").map(|t| t.0).as_deref(), Some("A step of 3 takes every second character."));
        assert!(!turn("Starting with the first item is safe.").unwrap().text.contains("last"), "first/last are not turned");
        assert_eq!(turn("People usually count from 1, not from 0."), None, "no count turned in a denial");
        assert_eq!(t("The method append() adds one item to the end of a list."), Some(("The method append() adds one item to the beginning of a list.".into(), Turn::Opposite)));
        assert_eq!(t("The condition is checked before every repetition."), Some(("The condition is checked after every repetition.".into(), Turn::Opposite)));
        assert_eq!(t("A for loop over a dictionary iterates over its keys."), Some(("A for loop over a dictionary iterates over its values.".into(), Turn::Opposite)));
        // "left over" is no place; "values" outside a dictionary are no keys; a name in code is
        // no word.
        assert_eq!(t("The number left over after a division is the remainder.").map(|t| t.1), Some(Turn::Opposite));
        assert!(!turn("The number left over after a division is the remainder.").unwrap().text.contains("right"));
        assert_eq!(turn("A function can return several values separated by commas.").map(|t| t.text).as_deref(), Some("A function cannot return several values separated by commas."));
        assert_eq!(turn("The function int() turns text into a whole number.").map(|t| t.text).as_deref(), Some("The function int() does not turn text into a whole number."));
        // One verb of several in a row is not denied; a comma after its object is no row.
        assert_eq!(turn("A for loop takes each item, stores it in a name and runs the body."), None);
        assert_eq!(t("The method reverse() turns the list back to front, in place.").map(|t| t.0).as_deref(), Some("The method reverse() does not turn the list back to front, in place."));
        // Not a plural subject's verb read as a noun.
        assert_eq!(turn("Keyword arguments make calls easier to read."), None);
        assert_eq!(turn("Python then stops the program and reports an error."), None, "two verbs");
        assert_eq!(turn("Python does not allow the size to change and raises an error."), None, "two verbs, either way");
        assert_eq!(turn("The first one receives the index and the second receives the item."), None, "two clauses");
        assert_eq!(turn("Every call gives back a value."), None, "a claim of every thing");
        assert_eq!(t("The operator / is true division.").map(|t| t.0).as_deref(), Some("The operator / is not true division."), "a name is no truth value");
        assert_eq!(t("The test is true when the list is empty.").map(|t| t.0).as_deref(), Some("The test is false when the list is empty."));
        assert_eq!(turn("The method reverse() simply turns a list back to front."), None, "an adverb before");
    }

    #[test]
    fn instructions_and_elliptic_sentences_are_no_claims() {
        assert_eq!(
            statements("Set total = 0 before the loop starts. Press Ctrl+C to stop a stuck program. Strings are immutable, but lists are. Using a local variable outside its function. The one inside the function is local to it. Powers have two surprising rules. Python has two division operators. The order is the order in which the values were written. The start must then be larger than the stop."),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn a_claim_said_of_another_claims_subject_is_wrong() {
        let t = swap("The union a | b holds everything that is in a or in b.", "The intersection a & b holds what is in both.").unwrap();
        assert_eq!(t.text, "The intersection a & b holds everything that is in a or in b.");
        assert_eq!((t.was.as_str(), t.now.as_str()), ("The union a | b", "The intersection a & b"));
        assert_eq!(swap("Lists are mutable sequences.", "A tuple is a fixed sequence."), None, "verbs of two numbers");
        assert_eq!(swap("A list holds items.", "A list of lists holds rows."), None, "alike subjects");
        assert_eq!(swap("A set removes nothing twice.", "The statement del d[key] removes a pair."), None, "things of two kinds");
        assert_eq!(swap("Every item in a tuple has a position number.", "A tuple with two items is called a pair."), None, "what a thing has is not moved");
        assert!(swap("The function len() gives the number of pairs.", "The function set() turns a list into a set.").is_some());
    }

    #[test]
    fn only_standalone_sentences_of_option_length_are_claims() {
        let text = "Lists are mutable sequences of arbitrary objects. This means they can change. \
                    For example, x.append(3) adds one. If the list is empty, pop raises an error. \
                    Tuples are immutable and usually hold items of different kinds.";
        assert_eq!(statements(text), ["Lists are mutable sequences of arbitrary objects.", "Tuples are immutable and usually hold items of different kinds."]);
    }

    #[test]
    fn a_turned_claim_the_chapter_makes_elsewhere_is_not_used() {
        let t = turn("Tuples are immutable sequences of items.").unwrap();
        assert!(said(&t, &["Tuples are mutable sequences of items, in some other language."]));
        assert!(!said(&t, &["Lists are mutable sequences of objects."]));
        let n = turn("Keys are compared by their values.").unwrap();
        assert!(said(&n, &["Keys are not compared by their values in this sense."]));
        assert!(!said(&n, &[n.book.as_str()]), "the book's own sentence is not a denial");
        let s = swap("The union a | b holds everything in a or in b.", "The intersection a & b holds what is in both.").unwrap();
        assert!(said(&s, &["The intersection a & b holds everything in a or in b, loosely speaking."]));
        assert!(!said(&s, &[s.book.as_str()]), "the book's own sentence does not say it");
    }

    #[test]
    fn the_item_keys_the_books_claim_and_quotes_it_for_each_turned_one() {
        let wrong: Vec<Turned> = ["Tuples are immutable sequences of items.", "A list can be changed in place by its methods.", "Keys are compared by their values."]
            .iter()
            .map(|s| turn(s).unwrap())
            .collect();
        let ev = ItemEvidence { chunk: 0, section: 0, file: "f".into(), heading_path: vec!["Lists".into()], quote: "Sets are unordered collections of items.".into() };
        let item = item("Lists", "Lists", "Sets are unordered collections of items.", &wrong, ev).unwrap();
        assert_eq!(item.question, "In “Lists”, which of these statements is true?");
        assert!(asks(&item.question));
        assert_eq!(item.options[item.answer_index], "Sets are unordered collections of items.");
        assert_eq!(item.bloom, Bloom::Remember);
        assert!(item.rationales.iter().enumerate().all(|(i, r)| (i == item.answer_index) == r.starts_with("True")));
        assert!(item.rationales.iter().any(|r| r.contains("“Tuples are immutable sequences of items.”")));
        let (checks, reason) = check::deterministic(&item, &[], false);
        assert!(reason.is_none(), "{reason:?} {checks:?}");
        assert!(super::item("Lists", "Lists", "k", &wrong[..2], item.evidence[0].clone()).is_none(), "three wrong claims or none");
    }
}
