//! Text analysis shared by indexing and querying: normalisation, word splitting, stemming.
//!
//! The analyser is Unicode-aware. Words follow UAX #29 word boundaries, so Bengali words
//! (letters plus their vowel signs and virama) stay whole and Python identifiers such as
//! `__init__` or `os.path` are kept as one token. Compound identifiers also emit their parts
//! (`os.path` → `os.path`, `os`, `path`) so a question that says "path module" still matches.
//! English words are lower-cased and Snowball-stemmed; other scripts are left as they are.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::OnceLock;
use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

/// NFC-normalise text, the form every stored string is in.
pub fn nfc(text: &str) -> String {
    text.nfc().collect()
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Raw words of `text` in order: NFC, lower-cased, UAX #29 boundaries, no punctuation.
pub fn words(text: &str) -> Vec<String> {
    let text = nfc(text).replace('\u{2019}', "'");
    text.unicode_words()
        .map(|w| w.trim_matches(|c: char| c == '.' || c == '\''))
        .filter(|w| !w.is_empty())
        .map(|w| strip_contraction(&w.to_lowercase()))
        .collect()
}

/// `what's` → `what`, `variable's` → `variable`, `doesn't` → `does`, `can't` → `can`.
fn strip_contraction(word: &str) -> String {
    match word {
        "can't" => return "can".into(),
        "won't" => return "will".into(),
        _ => {}
    }
    if let Some(stem) = word.strip_suffix("n't") {
        return stem.to_string();
    }
    match word.rsplit_once('\'') {
        Some((stem, "s" | "ve" | "re" | "d" | "ll" | "m")) if !stem.is_empty() => stem.to_string(),
        _ => word.to_string(),
    }
}

/// Index terms of `text`: [`words`] plus identifier parts, stemmed when Latin.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in words(text) {
        push_word_terms(&word, &mut out);
    }
    out
}

/// Index terms of a query: like [`terms`] but without stop words, which carry no evidence.
pub fn query_terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in words(text) {
        if is_stopword(&word) {
            continue;
        }
        push_word_terms(&word, &mut out);
    }
    out
}

fn push_word_terms(word: &str, out: &mut Vec<String>) {
    out.push(stem(word));
    // `os.path.join` → `os`, `path`, `join`; `safe_substitute` → `safe_substitute`, `safe`,
    // `substitute`; `__init__` → `init`.
    let dotted: Vec<&str> = word.split('.').filter(|p| !p.is_empty()).collect();
    for part in &dotted {
        if dotted.len() > 1 && !is_stopword(part) {
            out.push(stem(part));
        }
        let pieces: Vec<&str> = part.split('_').filter(|p| !p.is_empty()).collect();
        let has_underscore = part.contains('_');
        if has_underscore {
            if dotted.len() > 1 && pieces.len() == 1 {
                continue; // already pushed as the dotted part
            }
            for piece in pieces {
                if !is_stopword(piece) {
                    out.push(stem(piece));
                }
            }
        }
    }
}

/// Snowball English stem for plain ASCII-letter words, a light inflection stripper for Bengali
/// words; other tokens pass through unchanged.
pub fn stem(word: &str) -> String {
    if word.len() > 2 && word.bytes().all(|b| b.is_ascii_lowercase()) {
        stemmer().stem(word).into_owned()
    } else if word.chars().next().is_some_and(is_bengali) {
        bengali_stem(word)
    } else {
        word.to_string()
    }
}

/// Whether `c` is in Unicode's Bengali block (letters, signs, digits; the দাঁড়ি '।' is U+0964, outside it).
pub fn is_bengali(c: char) -> bool {
    ('\u{0980}'..='\u{09FF}').contains(&c)
}

/// Whether `text` is written mostly in Bengali letters (more of them than Latin ones).
pub fn mostly_bengali(text: &str) -> bool {
    let (mut bengali, mut latin) = (0usize, 0usize);
    for c in text.chars() {
        if is_bengali(c) && c.is_alphabetic() {
            bengali += 1;
        } else if c.is_ascii_alphabetic() {
            latin += 1;
        }
    }
    bengali > latin
}

/// Case and number endings (বিভক্তি, নির্দেশক, বহুবচন) of Bengali nouns, longest first, NFC.
/// `ক্লোরোফিলের` → `ক্লোরোফিল`, `পাতাগুলো` → `পাতা`, `উদ্ভিদকে` → `উদ্ভিদ`.
const BENGALI_SUFFIXES: &[&str] = &[
    "গুলোতে", "গুলিতে", "দেরকে", "গুলোর", "গুলির", "গুলো", "গুলি", "দের", "েরা", "কে", "তে", "টির", "টার", "টি", "টা", "ের", "রা", "য়", "র", "ে",
];

fn bengali_stem(word: &str) -> String {
    static NFC_SUFFIXES: OnceLock<Vec<String>> = OnceLock::new();
    let suffixes = NFC_SUFFIXES.get_or_init(|| BENGALI_SUFFIXES.iter().map(|s| nfc(s)).collect());
    for suffix in suffixes {
        if let Some(stem) = word.strip_suffix(suffix.as_str()) {
            // Keep at least two letters, and never leave a dangling virama.
            let dangling = stem.ends_with('\u{09CD}');
            if stem.chars().filter(|c| c.is_alphabetic()).count() >= 2 && !dangling {
                return stem.to_string();
            }
        }
    }
    word.to_string()
}

/// Function words of English and Bengali that a query's evidence need not contain.
pub fn is_stopword(word: &str) -> bool {
    static SET: OnceLock<std::collections::HashSet<String>> = OnceLock::new();
    SET.get_or_init(|| STOPWORDS.iter().map(|w| nfc(w)).collect()).contains(word)
}

const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "before", "being", "between", "both", "but", "by", "can", "could", "did",
    "do", "does", "doing", "don't", "each", "few", "for", "from", "get", "gets", "give", "go",
    "had", "has", "have", "having", "he", "her", "here", "him", "his", "how", "i", "i'm", "if",
    "in", "into", "is", "it", "it's", "its", "just", "let", "like", "make", "me", "might", "more",
    "most", "much", "must", "my", "need", "no", "nor", "not", "now", "of", "off", "on", "once",
    "one", "only", "or", "other", "our", "out", "over", "own", "please", "same", "she", "should",
    "so", "some", "such", "tell", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "thing", "things", "this", "those", "through", "to", "too", "two", "under",
    "until", "up", "us", "use", "using", "very", "want", "was", "way", "we", "were", "what",
    "when", "where", "whether", "which", "while", "who", "whom", "why", "will", "with", "without",
    "would", "you", "your", "ও", "আমি", "আমাকে", "আর", "এই", "এক", "এবং", "একটি", "কী", "কি",
    "কে", "কেন", "কোন", "করে", "কিভাবে", "কীভাবে", "থেকে", "দিয়ে", "না", "বা", "যে", "সে", "হয়",
    "এ", "এর", "তা", "টা", "টি", "মানে", "তাহলে", "যদি", "কিন্তু", "আমার", "তুমি", "তোমার", "আপনি",
    "আপনার", "কত", "কখন", "কোথায়", "কেমন", "হবে", "হলে", "করা", "করতে", "করলে", "জন্য", "মধ্যে",
    "সাথে", "একটু", "দাও", "বলো", "বলুন", "বোঝাও", "বুঝিয়ে",
    // Bengali written in Latin letters (how many learners type): the same function words.
    "ami", "amake", "amar", "amra", "tumi", "tomar", "apni", "apnar", "ki", "keno", "kivabe",
    "kibhabe", "kemon", "kemne", "kon", "kono", "koto", "kothay", "kokhon", "ei", "oi", "er", "ar",
    "hoy", "hoye", "hobe", "hoyeche", "kore", "kora", "korle", "korte", "kori", "theke", "diye",
    "dao", "jonno", "moddhe", "sathe", "shathe", "ta", "ti", "gulo", "guli", "ekta", "ekti", "eta",
    "ota", "seta", "achhe", "chilo", "jabe", "pari", "parbo", "bolo", "bujhiye", "ektu", "abar",
    "tahole", "jodi", "kintu", "ebong", "nai", "na", "e", "mane",
    // … and more of them: pronouns, particles, postpositions, the verbs that carry a sentence
    // ("bujha jay", "lage", "hoyeo"), none of them an English word a question needs.
    "se", "shey", "tara", "tader", "oder", "eder", "amader", "tomader", "apnader", "eita", "oita",
    "sheta", "sei", "shei", "je", "ja", "jeta", "jake", "kake", "kar", "naki", "tai", "jeno", "moto",
    "niye", "upor", "upore", "kache", "hoile", "hoyeo", "holeo", "korleo", "tobe", "tobu", "nahole",
    "noy", "nei", "jay", "jai", "gelo", "geche", "ache", "ase", "ashe", "thake", "lage", "lagbe",
    "parbe", "dite", "nite", "bola", "boli", "bolte", "bujha", "bujhi", "bujhte", "bujhlam", "dekha",
    "dekhte", "hoyna", "hoyni", "hocche", "hochhe", "korbo", "korchi", "korche", "koreche", "kobe",
    "koyta", "konta", "gula", "te", "o",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopwords_match_in_any_normal_form() {
        assert!(is_stopword("the"));
        assert!(is_stopword(&nfc("দিয়ে")));
        assert!(query_terms("আমি কীভাবে খাদ্য তৈরি করে").iter().all(|t| t != "আমি" && t != "করে"));
        assert_eq!(query_terms("chlorophyll er kaj ki?"), ["chlorophyl", "kaj"], "romanised Bengali function words too");
        assert_eq!(query_terms("litmus paper diye bujha jay naki?"), ["litmus", "paper"]);
    }

    #[test]
    fn identifiers_stay_whole_and_emit_parts() {
        let t = terms("Define __init__ and call os.path.join(x)");
        assert!(t.contains(&"__init__".to_string()), "{t:?}");
        assert!(t.contains(&"init".to_string()), "{t:?}");
        assert!(t.contains(&"os.path.join".to_string()), "{t:?}");
        assert!(t.contains(&"join".to_string()), "{t:?}");
        let t = terms("string.Template.safe_substitute");
        assert!(t.contains(&"safe_substitute".to_string()), "{t:?}");
        assert!(t.contains(&"substitut".to_string()), "{t:?}");
        assert!(terms("Define it").contains(&"defin".to_string()));
    }

    #[test]
    fn bengali_words_are_whole_and_lightly_stemmed() {
        let t = terms("সালোকসংশ্লেষণ প্রক্রিয়ায় উদ্ভিদ খাদ্য তৈরি করে।");
        assert_eq!(t[0], "সালোকসংশ্লেষণ");
        assert_eq!(t.len(), 6, "{t:?}");
        assert_eq!(stem(&nfc("ক্লোরোফিলের")), nfc("ক্লোরোফিল"));
        assert_eq!(stem(&nfc("পাতাগুলো")), nfc("পাতা"));
        assert_eq!(stem(&nfc("উদ্ভিদকে")), nfc("উদ্ভিদ"));
        assert_eq!(stem(&nfc("পানি")), nfc("পানি"));
    }

    #[test]
    fn bengali_or_latin_by_the_letters() {
        assert!(mostly_bengali("উদ্ভিদ দিনে-রাতে সব সময় শ্বসন করে (CO2)।"));
        assert!(mostly_bengali("lambda function কী, sort করার সময় key হিসেবে কীভাবে দেয়?"));
        assert!(!mostly_bengali("photosynthesis er equation e keno 6CO₂ + 12H₂O lekha hoy?"));
        assert!(!mostly_bengali("Why do plants respire at night?"));
        assert!(!mostly_bengali("42 + 7"));
    }

    #[test]
    fn nfc_makes_composed_and_decomposed_equal() {
        // Bengali "ো" written as one code point vs. e-kar + aa-kar.
        assert_eq!(words("কো"), words("কে\u{09BE}"));
        assert_eq!(words("café"), words("cafe\u{301}"));
    }

    #[test]
    fn contractions_lose_their_suffix() {
        assert_eq!(
            words("What's a variable's type? It doesn't matter, I've seen it"),
            vec!["what", "a", "variable", "type", "it", "does", "matter", "i", "seen", "it"]
        );
    }

    #[test]
    fn query_terms_drop_stopwords() {
        assert_eq!(query_terms("How do I use the for loop?"), vec!["loop"]);
    }
}

/// `text` with its ASCII digits written in Bengali digits (০–৯), as a Bangla page writes numbers.
pub fn bengali_digits(text: &str) -> String {
    text.chars().map(|c| c.to_digit(10).and_then(|d| char::from_u32('০' as u32 + d)).unwrap_or(c)).collect()
}
