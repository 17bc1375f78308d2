//! Cov(T, E): how much of the question the evidence supports.
//!
//! T is the question's key terms (stop words removed, stemmed). Each term is weighted by its
//! IDF in the course, so rare, specific words — a library name, an API, a topic — count most,
//! and a term the course never mentions at all weighs the most of any. Cov is the weighted
//! share of key terms that occur in the evidence (text or heading path). When it falls under
//! the threshold the answer is "the course does not cover this" rather than a guess.

use crate::bm25::Bm25Index;
use std::collections::HashSet;

#[derive(Clone, Debug, PartialEq)]
pub struct Coverage {
    /// Weighted share of key terms supported, in [0, 1]; 1 when the question has no key terms.
    pub score: f32,
    /// Key terms found in the evidence.
    pub supported: Vec<String>,
    /// Key terms the evidence does not contain.
    pub missing: Vec<String>,
    /// Missing terms that occur nowhere in the course.
    pub unknown: Vec<String>,
    /// Unknown terms that are not everyday words either (per the vocabulary given): names of
    /// libraries, APIs or topics the course never mentions, e.g. `pandas`, `slugify`, `Kotlin`.
    pub jargon: Vec<String>,
    /// Key terms the course never writes (or the evidence lacks) that stood for course terms
    /// sounding alike or meaning the same in the other script, each with those terms.
    pub alikes: Vec<(String, Vec<String>)>,
}

/// Coverage of `question`'s key terms by the evidence texts. `is_common_word` tells everyday
/// words (e.g. a tokenizer's whole-word vocabulary) from jargon; without it the only jargon is
/// a dotted API name the course does not have ([`unknown_api`]). A term the course never writes
/// stands for its alikes (`alikes`, [`super::alikes`]: the course's terms that sound like it
/// or mean the same in the other script): it is supported when one of them is in the evidence,
/// weighs what the rarest of them weighs, and is not a stranger to the course.
pub fn coverage(question: &str, evidence: &[&str], bm25: &Bm25Index, alikes: &[(String, Vec<String>)], is_common_word: Option<&dyn Fn(&str) -> bool>) -> Coverage {
    let question_terms = crate::text::query_terms(question);
    let surface: std::collections::HashMap<String, String> =
        crate::text::words(question).into_iter().map(|w| (crate::text::stem(&w), w)).collect();
    let evidence_terms: HashSet<String> = evidence.iter().flat_map(|t| crate::text::terms(t)).collect();
    // A question in Latin letters whose best passage is in Bengali ones (English or romanised
    // Bangla over a Bangla chapter) writes every word in the other script: a Latin word the
    // course never writes is then a word of the learner's language ("Why do plants respire at
    // night?"), not a name the course lacks; it is missing, and the share of the question the
    // evidence supports decides. A Bangla question that writes one word in Latin letters
    // ("সাবান তৈরির saponification …") still names something the course may lack.
    let foreign_script = !crate::text::mostly_bengali(question) && evidence.first().is_some_and(|e| crate::text::mostly_bengali(e));
    let mut seen = HashSet::new();
    let (mut total, mut covered) = (0.0f32, 0.0f32);
    let mut out = Coverage { score: 1.0, supported: vec![], missing: vec![], unknown: vec![], jargon: vec![], alikes: vec![] };
    for t in &question_terms {
        if !seen.insert(t) {
            continue;
        }
        let alike: &[String] = alikes.iter().find(|(a, _)| a == t).map_or(&[], |(_, found)| found);
        if !alike.is_empty() {
            out.alikes.push((t.clone(), alike.to_vec()));
        }
        let w = if alike.is_empty() { bm25.idf(t) } else { alike.iter().map(|a| bm25.idf(a)).fold(0.0, f32::max) };
        total += w;
        if evidence_terms.contains(t) || alike.iter().any(|a| evidence_terms.contains(a)) {
            covered += w;
            out.supported.push(t.clone());
        } else if let Some(share) = compound_share(t, &evidence_terms) {
            // Bengali compounds: "অম্লবৃষ্টি" is supported in part by the book's "বৃষ্টি".
            covered += w * share;
            out.supported.push(t.clone());
        } else {
            if bm25.doc_freq(t) == 0 && alike.is_empty() {
                out.unknown.push(t.clone());
                // Compound identifiers count through their parts, which are terms too.
                let simple = !t.contains(['.', '_']);
                let word = surface.get(t).map(String::as_str).unwrap_or(t);
                // The vocabulary speaks for Latin-script words only.
                let latin = word.chars().all(|c| c.is_ascii_alphanumeric());
                // A literal (`0x1A`, `3x2`, the `0b2` of `3.12.0b2`) is a value, not a name.
                let literal = word.starts_with(|c: char| c.is_ascii_digit());
                if let Some(common) = is_common_word {
                    if simple && latin && !literal && !foreign_script && word.chars().count() >= 3 && !common(word) && !inflected(word, common) {
                        out.jargon.push(t.clone());
                    }
                }
                if unknown_api(t, bm25) {
                    out.jargon.push(t.clone());
                }
            }
            out.missing.push(t.clone());
        }
    }
    if total > 0.0 {
        out.score = covered / total;
    }
    out
}

/// An inflection of an everyday word that the vocabulary lacks: `nicer`, `safest` (of `nice`,
/// `safe`), `easier`, `tidiest` (of `easy`, `tidy`), `baking`, `baked` (of `bake`), `stopped` (of
/// `stop`). A multilingual vocabulary (e5's) holds few English inflections whole. Not a plural:
/// `pandas` is no inflection of `panda`.
fn inflected(word: &str, common: &dyn Fn(&str) -> bool) -> bool {
    let e = [word.strip_suffix('r'), word.strip_suffix("st")].into_iter().flatten().filter(|b| b.len() >= 3 && b.ends_with('e'));
    let y = [word.strip_suffix("ier"), word.strip_suffix("iest")].into_iter().flatten().filter(|b| b.len() >= 2).map(|b| format!("{b}y"));
    let verb = [word.strip_suffix("ing"), word.strip_suffix("ed")].into_iter().flatten().filter(|b| b.len() >= 2).flat_map(|b| {
        let undoubled = b.len() >= 4 && b.as_bytes()[b.len() - 1] == b.as_bytes()[b.len() - 2];
        [Some(b.to_string()), Some(format!("{b}e")), undoubled.then(|| b[..b.len() - 1].to_string())].into_iter().flatten()
    });
    e.map(str::to_string).chain(y).chain(verb).filter(|b| b.len() >= 3).any(|b| common(&b))
}

/// A release of the software a course documents: `(major, minor)`.
pub type Version = (u32, u32);

/// The newest release a course's text documents, as Sphinx writes it ("New in version 3.11",
/// "Changed in version 3.11", "Deprecated since version 3.11"); `None` for a course that names
/// no versions (a science book).
pub fn newest_documented_version<'a>(texts: impl IntoIterator<Item = &'a str>) -> Option<Version> {
    let mut newest = None;
    for text in texts {
        for mark in ["in version ", "since version "] {
            for (i, _) in text.match_indices(mark) {
                newest = newest.max(version(&text[i + mark.len()..]));
            }
        }
    }
    newest
}

/// A release newer than the course's `newest` that the question names ("since Python 3.12",
/// "version 3.13", "py3.13"): what changed there is not in the course. Returns the words
/// that name it.
pub fn newer_release(question: &str, newest: Version) -> Option<String> {
    let words = crate::text::words(question);
    words.iter().enumerate().find_map(|(i, w)| {
        let joined = ["python", "py"].iter().find_map(|p| w.strip_prefix(p).filter(|r| r.starts_with(|c: char| c.is_ascii_digit())));
        let named = || i.checked_sub(1).is_some_and(|p| matches!(words[p].as_str(), "python" | "cpython" | "py" | "version" | "since"));
        let v = match joined {
            Some(rest) => version(rest)?,
            None if named() => version(w)?,
            None => return None,
        };
        let newer = v > newest && v.0 <= newest.0 + 1;
        newer.then(|| if joined.is_some() { w.clone() } else { format!("{} {w}", words[i - 1]) })
    })
}

/// `3.12`, `3.12.0b2`, `3.12:` → `(3, 12)`.
fn version(s: &str) -> Option<Version> {
    let (major, rest) = s.split_once('.')?;
    let minor: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let ok = |d: &str| (1..=3).contains(&d.len()) && d.chars().all(|c| c.is_ascii_digit());
    if !ok(major) || !ok(&minor) {
        return None;
    }
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// A dotted name the course never writes (`str.reverse`, `itertools.batched`, `parser.add_flag`)
/// is an API the course does not have: when the course writes other attributes of the same owner
/// (`str.format`, `parser.add_argument`), or, for an owner it never writes (the learner's own
/// variable, `mylist.remove_all`), when the attribute is nowhere in the course either. Attributes
/// of `self` and `cls` are the learner's own; version numbers and abbreviations (`e.g`) are not
/// names.
fn unknown_api(term: &str, bm25: &Bm25Index) -> bool {
    let parts: Vec<&str> = term.split('.').collect();
    let [.., owner, attr] = parts.as_slice() else { return false };
    let name = |s: &str| s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !name(owner) || !name(attr) || attr.len() < 2 || owner.len() < 2 || matches!(*owner, "self" | "cls") {
        return false;
    }
    let (lead, inner) = (format!("{owner}."), format!(".{owner}."));
    if bm25.any_term(|t| t.starts_with(&lead) || t.contains(&inner)) {
        return true;
    }
    bm25.doc_freq(&crate::text::stem(attr)) == 0
}

/// For a Bengali term the evidence lacks: the largest share of it (by letters) made of one evidence
/// term of at least 4 letters that it contains, or that contains it. Bengali writes compounds as
/// one word ("অম্লবৃষ্টি", acid rain) that a book may write apart ("এসিড বৃষ্টি"), and no stemmer
/// splits them. `None` for other scripts or when no part covers half the term.
fn compound_share(term: &str, evidence: &HashSet<String>) -> Option<f32> {
    let bengali = |s: &str| s.chars().any(crate::text::is_bengali);
    let n = term.chars().count();
    if n < 4 || !bengali(term) {
        return None;
    }
    evidence
        .iter()
        .filter(|e| bengali(e))
        .filter_map(|e| {
            let m = e.chars().count();
            let part = if m >= 4 && term.contains(e.as_str()) {
                m
            } else if e.contains(term) {
                n
            } else {
                return None;
            };
            Some(part as f32 / n.max(m) as f32)
        })
        .filter(|&s| s >= 0.5)
        .max_by(f32::total_cmp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bm25::Bm25Params;
    use crate::text::terms;

    #[test]
    fn unknown_terms_weigh_most() {
        let docs: Vec<Vec<String>> = ["lists hold items in order", "a dictionary maps keys to values", "loops repeat code", "merge two sorted lists"]
            .iter()
            .map(|d| terms(d))
            .collect();
        let bm25 = Bm25Index::build(&docs, Bm25Params::default());
        let common = |w: &str| ["merge", "two", "lists", "pandas"].contains(&w);
        let c = coverage("How do I merge two pandas DataFrames?", &["merge two sorted lists"], &bm25, &[], Some(&common));
        assert!(c.unknown.contains(&"panda".to_string()), "{c:?}");
        assert_eq!(c.jargon, vec!["datafram".to_string()], "{c:?}");
        assert!(c.score < 0.5, "{c:?}");
        let c = coverage("What does a dictionary map?", &["a dictionary maps keys to values"], &bm25, &[], None);
        assert_eq!(c.score, 1.0, "{c:?}");
        assert!(c.jargon.is_empty());
    }

    #[test]
    fn an_api_the_course_does_not_have_is_jargon() {
        let book = ["Call str.format to fill a template.", "list.append adds an item; list.sort sorts it.", "parser.add_argument names an option.", "self.count = 0 in __init__"];
        let docs: Vec<Vec<String>> = book.iter().map(|d| terms(d)).collect();
        let bm25 = Bm25Index::build(&docs, Bm25Params::default());
        let jargon = |q: &str| coverage(q, &book, &bm25, &[], None).jargon;
        assert_eq!(jargon("Does `str.reverse()` reverse a string in place?"), ["str.reverse"]);
        assert_eq!(jargon("How do I use parser.add_flag('--debug')?"), ["parser.add_flag"]);
        assert_eq!(jargon("Why does mylist.remove_all(3) fail?"), ["mylist.remove_all"]);
        for q in ["What does list.append do?", "Why does mylist.sort() return None?", "Where do I set self.total?", "Is Python 3.12 out, e.g. in 2023?", "How does str.format work?"] {
            assert!(jargon(q).is_empty(), "{q}: {:?}", jargon(q));
        }
    }

    #[test]
    fn literals_and_inflections_of_everyday_words_are_not_jargon() {
        let docs: Vec<Vec<String>> = ["int converts a string to a number", "nested lists"].iter().map(|d| terms(d)).collect();
        let bm25 = Bm25Index::build(&docs, Bm25Params::default());
        let common = |w: &str| ["why", "does", "fail", "made", "grid", "what", "there", "something", "nice", "easy", "safe", "with", "how", "use", "poke", "bake", "stop", "panda"].contains(&w);
        let jargon = |q: &str| coverage(q, &["int converts a string to a number"], &bm25, &[], Some(&common)).jargon;
        for q in ["Why does int('0x1A') fail?", "I made a 3x2 grid", "What is 3.12.0b2?", "Is there something nicer, easier or safest?", "Why does baking stop? It stopped."] {
            assert!(jargon(q).is_empty(), "{q}: {:?}", jargon(q));
        }
        assert_eq!(jargon("Is there something nicer with pandas?"), ["panda"], "pandas is no inflection of an everyday word");
        assert_eq!(jargon("How do I use docker?"), ["docker"]);
    }

    #[test]
    fn a_release_after_the_course_is_named() {
        let book = ["Changed in version 3.11: starred elements are allowed.", "New in version 3.8.", "Deprecated since version 3.10: use x.", "pi is 3.14159"];
        assert_eq!(newest_documented_version(book), Some((3, 11)));
        assert_eq!(newest_documented_version(["Photosynthesis makes sugar."]), None);
        let newer = |q: &str| newer_release(q, (3, 11));
        assert_eq!(newer("Since Python 3.12, can I nest quotes in f-strings?").as_deref(), Some("python 3.12"));
        assert_eq!(newer("What did version 3.13.1 change?").as_deref(), Some("version 3.13.1"));
        assert_eq!(newer("Does py3.14 have a JIT?").as_deref(), Some("py3.14"));
        for q in ["Is this new in Python 3.11?", "Does Python 3.8 have the walrus?", "What are versions like 3.12.0b2?", "round 3.14159 to 3.14", "Python 2.7 prints differently", "Does Python 10.2 exist?"] {
            assert_eq!(newer(q), None, "{q}");
        }
    }

    #[test]
    fn a_latin_question_over_a_bengali_passage_names_no_foreign_terms() {
        let book = ["উদ্ভিদ দিনে-রাতে সব সময় শ্বসন করে।", "A list holds items in order."];
        let docs: Vec<Vec<String>> = book.iter().map(|d| terms(d)).collect();
        let bm25 = Bm25Index::build(&docs, Bm25Params::default());
        // Neither "plants" nor "respire" is a whole word of the vocabulary.
        let common = |w: &str| ["is", "it", "true", "only", "at", "night"].contains(&w);
        let jargon = |q: &str, passage: &str| coverage(q, &[passage], &bm25, &[], Some(&common)).jargon;
        assert!(jargon("Is it true plants only respire at night?", book[0]).is_empty(), "English over the Bangla chapter");
        assert_eq!(jargon("Is it true plants only respire at night?", book[1]), ["plant", "respir"], "over an English passage they are names the book lacks");
        assert_eq!(jargon("সাবান তৈরির saponification কীভাবে হয়?", book[0]), ["saponif"], "a Bangla question's one Latin word still names something");
    }

    #[test]
    fn a_bengali_compound_is_covered_by_its_parts() {
        let ev: HashSet<String> = ["এসিড", "বৃষ্টি", "কর"].iter().map(|s| s.to_string()).collect();
        let share = compound_share("অম্লবৃষ্টি", &ev).expect("বৃষ্টি is part of the compound");
        assert!(share > 0.5 && share < 1.0, "{share}");
        assert_eq!(compound_share("পানি", &ev), None);
        assert_eq!(compound_share("acidrain", &ev), None, "Bengali only");
        let docs: Vec<Vec<String>> = ["এসিড বৃষ্টি হয়", "গাছ"].iter().map(|d| terms(d)).collect();
        let bm25 = Bm25Index::build(&docs, Bm25Params::default());
        let c = coverage("অম্লবৃষ্টি", &["এসিড বৃষ্টি হয়"], &bm25, &[], None);
        assert!((c.score - 0.6).abs() < 1e-6, "6 of its 10 letters: {c:?}");
        assert!(c.missing.is_empty());
    }

    #[test]
    fn a_loanword_in_latin_letters_is_covered_by_the_books_bengali() {
        let book = ["ক্লোরোপ্লাস্টের স্ট্রোমায় শর্করা তৈরি হয়।", "পাতা সবুজ।"];
        let docs: Vec<Vec<String>> = book.iter().map(|d| terms(d)).collect();
        let bm25 = Bm25Index::build(&docs, Bm25Params::default());
        let sounds = crate::retrieve::sounds::SoundIndex::new(bm25.terms());
        let q = "What happens in the stroma?";
        let alikes: Vec<(String, Vec<String>)> =
            sounds.alikes(q, &crate::text::query_terms(q), &bm25).into_iter().map(|(t, f)| (t, f.into_iter().map(str::to_string).collect())).collect();
        let common = |w: &str| w == "happens";
        let c = coverage(q, &book[..1], &bm25, &alikes, Some(&common));
        assert!(c.supported.contains(&"stroma".to_string()) && c.jargon.is_empty(), "{c:?}");
        // Not in the evidence: missing, but still no stranger to the course.
        let c = coverage(q, &book[1..], &bm25, &alikes, Some(&common));
        assert!(c.missing.contains(&"stroma".to_string()) && !c.unknown.contains(&"stroma".to_string()) && c.jargon.is_empty(), "{c:?}");
        // Without its alike it is missing over the Bangla passage (a word of the learner's
        // language), and a foreign name over an English one.
        let c = coverage(q, &book[..1], &bm25, &[], Some(&common));
        assert!(c.missing.contains(&"stroma".to_string()) && c.jargon.is_empty(), "{c:?}");
        let c = coverage(q, &["Leaves are green."], &bm25, &[], Some(&common));
        assert_eq!(c.jargon, ["stroma"]);
    }
}
