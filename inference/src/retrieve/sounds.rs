//! Latin-letter words matched to a course's Bengali words by their sound.
//!
//! Learners of a Bangla course type science words in English or in romanised Bangla
//! ("chloroplast", "stroma", "gorom") where the book writes them in Bengali script
//! (ক্লোরোপ্লাস্ট, স্ট্রোমা, গরম). Loanwords and romanised words keep their consonants across the
//! two scripts, so both sides are reduced to a key of consonant classes (vowels, aspiration and
//! doubled letters dropped): a Latin term the course never writes is matched to the course's
//! Bengali terms with the same key, for BM25 and for the coverage gate. A key of fewer than
//! three consonants matches too many words ("pata" would find পাতা, পথ and ফোঁটা) and is not used.

use crate::bm25::Bm25Index;
use std::collections::HashMap;

/// Fewest consonant classes a key needs before it is trusted to find a word.
const MIN_KEY: usize = 3;
/// Fewest consonant classes a key needs to say a Latin word is romanised Bangla, not a foreign
/// name ("agun" sounds like the book's আগুন; which word it is, two consonants cannot tell).
const MIN_ROMANISED_KEY: usize = 2;

/// The course's Bengali terms by their consonant key.
#[derive(Debug, Default)]
pub struct SoundIndex {
    by_key: HashMap<String, Vec<String>>,
}

impl SoundIndex {
    /// Index the Bengali-script terms among `terms` (a course's vocabulary).
    pub fn new<'a>(terms: impl IntoIterator<Item = &'a str>) -> SoundIndex {
        let mut by_key: HashMap<String, Vec<String>> = HashMap::new();
        for t in terms {
            if let Some(key) = bengali_key(t) {
                by_key.entry(key).or_default().push(t.to_string());
            }
        }
        SoundIndex { by_key }
    }

    /// Whether the Latin-letter `word` (lower case, at least 3 letters) sounds like some
    /// Bengali word of the course by a key of two consonants or more: romanised Bangla, not a
    /// name foreign to the course ("agun", "rong"; a foreign name such as "lambda" or
    /// "kotlin" sounds like none).
    pub fn sounds_bengali(&self, word: &str) -> bool {
        if self.by_key.is_empty() || word.chars().count() < 3 || !word.chars().all(|c| c.is_ascii_lowercase()) {
            return false;
        }
        latin_keys_of(word, MIN_ROMANISED_KEY).iter().any(|k| self.by_key.contains_key(k))
    }

    /// The course's Bengali terms that sound like the Latin-letter `word` (lower case, as
    /// [`crate::text::words`] gives it, not stemmed: a stem loses sounds, "solution" → "solut");
    /// empty for other scripts, short keys, or no match.
    fn bengali(&self, word: &str) -> Vec<&str> {
        if self.by_key.is_empty() || word.chars().count() < 4 || !word.chars().all(|c| c.is_ascii_lowercase()) {
            return Vec::new();
        }
        let mut out: Vec<&str> = Vec::new();
        for key in latin_keys_of(word, MIN_KEY) {
            for t in self.by_key.get(&key).into_iter().flatten() {
                if !out.contains(&t.as_str()) {
                    out.push(t);
                }
            }
        }
        out
    }
}

impl SoundIndex {
    /// The question's key terms (`terms`, as [`crate::text::query_terms`] gives them) that the
    /// course never writes but that sound like some of its Bengali terms, each with those terms
    /// (read from the word as typed: a stem loses sounds).
    pub fn alikes(&self, question: &str, terms: &[String], bm25: &Bm25Index) -> Vec<(String, Vec<&str>)> {
        let mut out: Vec<(String, Vec<&str>)> = Vec::new();
        for word in crate::text::words(question) {
            let t = crate::text::stem(&word);
            if !terms.contains(&t) || bm25.doc_freq(&t) > 0 || out.iter().any(|(o, _)| *o == t) {
                continue;
            }
            let found = self.bengali(&word);
            if !found.is_empty() {
                out.push((t, found));
            }
        }
        out
    }
}

/// Push a class unless it repeats the last one (doubled and aspirated letters count once).
fn push(key: &mut String, class: char) {
    if !key.ends_with(class) {
        key.push(class);
    }
}

/// The consonant key of a Bengali-script word (NFC), or `None` for another script or a key
/// shorter than [`MIN_ROMANISED_KEY`].
fn bengali_key(word: &str) -> Option<String> {
    let chars: Vec<char> = word.chars().collect();
    if !chars.iter().any(|c| ('\u{0995}'..='\u{09B9}').contains(c)) || chars.iter().any(|c| c.is_ascii()) {
        return None;
    }
    const VIRAMA: char = '\u{09CD}';
    const NUKTA: char = '\u{09BC}';
    let mut key = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let after_virama = i > 0 && chars[i - 1] == VIRAMA;
        let nukta = chars.get(i + 1) == Some(&NUKTA);
        let class = match c {
            // য় (a glide), and য/ব written as a phala under another consonant: vowel-like.
            'য' if nukta || after_virama => continue,
            'ব' if after_virama => continue,
            // ক্ষ is said "kh".
            'ষ' if after_virama && i >= 2 && chars[i - 2] == 'ক' => continue,
            'ড' | 'ঢ' if nukta => 'R',
            'ক' | 'খ' => 'K',
            'গ' | 'ঘ' => 'G',
            'চ' | 'ছ' => 'C',
            'জ' | 'ঝ' | 'য' => 'J',
            'ট' | 'ঠ' | 'ত' | 'থ' | 'ৎ' => 'T',
            'ড' | 'ঢ' | 'দ' | 'ধ' => 'D',
            'ণ' | 'ন' | 'ঞ' | 'ঙ' | 'ং' => 'N',
            'প' | 'ফ' => 'P',
            'ব' | 'ভ' => 'B',
            'ম' => 'M',
            'র' | 'ঋ' | 'ৃ' | '\u{09DC}' | '\u{09DD}' => 'R',
            'ল' => 'L',
            'শ' | 'ষ' | 'স' => 'S',
            'হ' if key.is_empty() => 'H',
            _ => continue,
        };
        push(&mut key, class);
    }
    (key.chars().count() >= MIN_ROMANISED_KEY).then_some(key)
}

/// The consonant keys of a lower-case Latin word of at least `min` consonants: one, or two when
/// it has a "ch", which may be said "k" (chlorophyll, chemical) or "ch" (romanised "chal", চাল).
fn latin_keys_of(word: &str, min: usize) -> Vec<String> {
    let mut keys = vec![latin_key(word, 'C')];
    if word.contains("ch") {
        let k = latin_key(word, 'K');
        if k != keys[0] {
            keys.push(k);
        }
    }
    keys.retain(|k| k.chars().count() >= min);
    keys
}

fn latin_key(word: &str, ch: char) -> String {
    let w: Vec<char> = word.chars().collect();
    let mut key = String::new();
    let mut i = 0;
    while i < w.len() {
        let next = w.get(i + 1).copied();
        let soft = matches!(next, Some('e' | 'i' | 'y'));
        // -tion and -sion are said "shon".
        if w[i..].starts_with(&['t', 'i', 'o', 'n']) || w[i..].starts_with(&['s', 'i', 'o', 'n']) {
            push(&mut key, 'S');
            push(&mut key, 'N');
            i += 4;
            continue;
        }
        let (class, len) = match (w[i], next) {
            ('c', Some('h')) => (Some(ch), 2),
            ('c', Some('k')) => (Some('K'), 2),
            // "ng" is one sound, unless the g is soft (orange: n, then j).
            ('n', Some('g')) if !matches!(w.get(i + 2), Some('e' | 'i' | 'y')) => (Some('N'), 2),
            ('c', _) if soft => (Some('S'), 1),
            ('g', _) if soft => (Some('J'), 1),
            ('k' | 'c' | 'q', _) => (Some('K'), 1),
            ('x', _) => {
                push(&mut key, 'K');
                (Some('S'), 1)
            }
            ('g', _) => (Some('G'), 1),
            ('j' | 'z', _) => (Some('J'), 1),
            ('t', _) => (Some('T'), 1),
            ('d', _) => (Some('D'), 1),
            ('n', _) => (Some('N'), 1),
            ('p' | 'f', _) => (Some('P'), 1),
            ('b' | 'v', _) => (Some('B'), 1),
            ('m', _) => (Some('M'), 1),
            ('r', _) => (Some('R'), 1),
            ('l', _) => (Some('L'), 1),
            ('s', _) => (Some('S'), 1),
            // An h after a consonant is aspiration; at the start it is said.
            ('h', _) if key.is_empty() && i == 0 => (Some('H'), 1),
            _ => (None, 1),
        };
        if let Some(c) = class {
            push(&mut key, c);
        }
        i += len;
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::terms;

    fn index(text: &str) -> SoundIndex {
        let vocab = terms(text);
        SoundIndex::new(vocab.iter().map(String::as_str))
    }

    #[test]
    fn loanwords_and_romanised_words_find_the_books_bengali() {
        let book = index("ক্লোরোপ্লাস্টের স্ট্রোমা ও গ্রানা। ক্যালভিন চক্র। লিটমাস কাগজ। ফেনলফথ্যালিন। স্টার্চ। পানি গরম করলে। ক্লোরোফিল। সমীকরণ। হাইড্রোজেন। সলিউশন। মিথাইল অরেঞ্জ।");
        for (latin, bengali) in [
            ("chloroplast", "ক্লোরোপ্লাস্ট"),
            ("stroma", "স্ট্রোমা"),
            ("calvin", "ক্যালভিন"),
            ("litmus", "লিটমাস"),
            ("phenolphthalein", "ফেনলফথ্যালিন"),
            ("starch", "স্টার্চ"),
            ("gorom", "গরম"),
            ("chlorophyll", "ক্লোরোফিল"),
            ("somikoron", "সমীকরণ"),
            ("hydrogen", "হাইড্রোজেন"),
            ("orange", "অরেঞ্জ"),
            ("solution", "সলিউশন"),
        ] {
            let found = book.bengali(latin);
            assert!(found.iter().any(|t| t.starts_with(bengali)), "{latin}: {found:?}");
        }
    }

    #[test]
    fn short_keys_other_scripts_and_strangers_find_nothing() {
        let book = index("পাতা পথ ফোঁটা। এসিড। ক্লোরোপ্লাস্ট।");
        assert!(book.bengali("pata").is_empty(), "two consonants match too much");
        assert!(book.bengali("acid").is_empty());
        assert!(book.bengali("ক্লোরোপ্লাস্ট").is_empty(), "Bengali needs no bridge");
        assert!(book.bengali("dictionary").is_empty());
        assert!(index("lists and loops").bengali("chloroplast").is_empty(), "an English course has no Bengali terms");
    }

    #[test]
    fn romanised_words_of_two_consonants_are_bangla_not_foreign_names() {
        let book = index("আগুনে গরম করা যাবে না। রং বদলায়। লবণ। পাতা।");
        for w in ["agun", "rong", "pata", "gorom"] {
            assert!(book.sounds_bengali(w), "{w}");
        }
        for w in ["lambda", "kotlin", "decorator", "ab", "Agun"] {
            assert!(!book.sounds_bengali(w), "{w}");
        }
        assert!(book.bengali("pata").is_empty(), "two consonants still find no word");
        assert!(!index("lists and loops").sounds_bengali("agun"), "an English course has no Bengali terms");
    }
}
