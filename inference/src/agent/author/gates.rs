//! TeachMateGPT's six deterministic gates, run on every authored item before verification.
//!
//! | gate | item | rule |
//! |---|---|---|
//! | `mcq_shape` | MCQ | exactly 4 non-empty options and an answer index 0–3 |
//! | `mcq_script` | MCQ | letters of the target script ≥ 0.55 of all letters |
//! | `cq_marker` | CQ | the clue starts with the stimulus marker ("উদ্দীপক:" / "Stimulus:") |
//! | `cq_sentences` | CQ | the stimulus has ≥ 5 different sentences |
//! | `cq_not_theory` | CQ | the stimulus does not open with a definition (a "theory dump") |
//! | `cq_script` | CQ | target-script letters ≥ 0.85 and no letter of another script |
//!
//! Letters are counted by [`script_share`]: formulas, units, chemical symbols and numerals
//! (CO₂, H₂O, 6CO₂ + 6H₂O, km/h, pH) and the roman numbers of numbered statements (i, ii, iii)
//! are not letters of any script. Sentences are split by
//! [`sentences`]: at `.` `!` `?` `।` followed by a space or the end (a `.` between digits, as
//! in 3.5, does not end one). The theory-dump detector is [`theory_dump`].

use crate::agent::route::Lang;
use crate::text::is_bengali;
use std::collections::BTreeMap;

/// The stimulus marker a creative question's clue starts with.
pub fn marker(lang: Lang) -> &'static str {
    match lang {
        Lang::Bn => "উদ্দীপক:",
        _ => "Stimulus:",
    }
}

/// Each gate's name and whether the item passed it.
pub type Gates = BTreeMap<String, bool>;

/// Least share of target-script letters in an MCQ.
pub const MCQ_SCRIPT: f64 = 0.55;
/// Least share of target-script letters in a CQ (and no letter of another script).
pub const CQ_SCRIPT: f64 = 0.85;
/// Fewest sentences of a CQ's stimulus.
pub const CQ_SENTENCES: usize = 5;

/// Whether a letter belongs to the target script of `lang` (Bengali block for Bangla, Latin
/// otherwise).
fn in_script(c: char, lang: Lang) -> bool {
    match lang {
        Lang::Bn => is_bengali(c),
        _ => c.is_ascii_alphabetic() || ('\u{00C0}'..='\u{024F}').contains(&c),
    }
}

/// Units and symbols written in Latin letters in any language's science text.
const UNITS: &[&str] = &[
    "km", "m", "cm", "mm", "nm", "kg", "g", "mg", "l", "ml", "s", "ms", "min", "h", "hr", "km/h", "m/s", "m/s2", "m/s²", "n", "j", "kj", "w", "kw",
    "v", "a", "pa", "kpa", "hz", "khz", "mol", "k", "°c", "°f", "c", "ph", "dna", "rna", "atp", "adp", "nadph", "nadp",
];

/// Whether a whitespace-separated token is a formula, unit, chemical symbol or number (not
/// language): it holds a digit or a sub/superscript, is a known unit, or is a short run of
/// element-like capitals (`CO`, `NaCl`, `O`).
fn notation(token: &str) -> bool {
    let t = token.trim_matches(|c: char| !c.is_alphanumeric() && !"₀₁₂₃₄₅₆₇₈₉⁰¹²³⁴⁵⁶⁷⁸⁹°/".contains(c));
    if t.is_empty() {
        return true;
    }
    if t.chars().any(|c| c.is_numeric() || "₀₁₂₃₄₅₆₇₈₉⁰¹²³⁴⁵⁶⁷⁸⁹".contains(c)) {
        return true;
    }
    if UNITS.contains(&t.to_lowercase().as_str()) {
        return true;
    }
    // The numbers of a multiple-completion item's statements ("i.", "ii", "iii"), as a board
    // paper writes them in any language.
    if ["i", "ii", "iii", "iv"].contains(&t) {
        return true;
    }
    // Element symbols run together: each capital followed by at most one lower-case letter.
    let chars: Vec<char> = t.chars().collect();
    if chars.len() <= 6 && chars.first().is_some_and(|c| c.is_ascii_uppercase()) && chars.iter().all(char::is_ascii_alphabetic) {
        let mut i = 0;
        while i < chars.len() {
            if !chars[i].is_ascii_uppercase() {
                return false;
            }
            i += 1;
            if i < chars.len() && chars[i].is_ascii_lowercase() {
                i += 1;
            }
        }
        return chars.len() <= 2 || chars.iter().filter(|c| c.is_ascii_uppercase()).count() >= 2;
    }
    false
}

/// Letters of the target script, and letters of any other script, in `text` (notation tokens
/// left out).
pub fn script_counts(text: &str, lang: Lang) -> (usize, usize) {
    let mut target = 0;
    let mut other = 0;
    for token in text.split_whitespace().filter(|t| !notation(t)) {
        for c in token.chars().filter(|c| c.is_alphabetic()) {
            if in_script(c, lang) {
                target += 1;
            } else {
                other += 1;
            }
        }
    }
    (target, other)
}

/// Target-script letters over all letters (1 when there are none: pure notation).
pub fn script_share(text: &str, lang: Lang) -> f64 {
    let (t, o) = script_counts(text, lang);
    if t + o == 0 { 1.0 } else { t as f64 / (t + o) as f64 }
}

/// Sentences of `text` (see the module docs).
pub fn sentences(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        cur.push(c);
        let end = matches!(c, '.' | '!' | '?' | '।');
        let next = chars.get(i + 1);
        let between_digits = c == '.' && i > 0 && chars[i - 1].is_ascii_digit() && next.is_some_and(|n| n.is_ascii_digit());
        if end && !between_digits && next.is_none_or(|n| n.is_whitespace() || matches!(n, '"' | '\'' | '”' | '’')) {
            let s = cur.trim().to_string();
            if s.chars().filter(|c| c.is_alphabetic()).count() >= 2 {
                out.push(s);
            }
            cur.clear();
        }
    }
    let s = cur.trim().to_string();
    if s.chars().filter(|c| c.is_alphabetic()).count() >= 2 {
        out.push(s);
    }
    out
}

/// Phrases that make a sentence a definition or a textbook statement rather than a scene.
const DEFINITION: &[&str] = &[
    " is defined as", " are defined as", " is called ", " are called ", " refers to ", " is the process", " is a process", " is a type of",
    " is known as", " means ", "definition", "কাকে বলে", "বলা হয়", "বলে।", "হলো এমন", "হল এমন", "প্রক্রিয়াকে", "সংজ্ঞা", "বলতে বোঝায়",
    "বলতে বুঝি", "হলো একটি প্রক্রিয়া", "হল একটি প্রক্রিয়া",
];

/// Whether a stimulus opens as a theory dump: its first sentence defines something (a
/// definition phrase), or names one of the `concepts` (the section's heading words) as its
/// subject within its first three words.
pub fn theory_dump(stimulus: &str, concepts: &[String]) -> bool {
    let Some(first) = sentences(stimulus).into_iter().next() else {
        return false;
    };
    let lower = format!(" {} ", first.to_lowercase());
    if DEFINITION.iter().any(|d| lower.contains(d)) {
        return true;
    }
    let opening: Vec<String> = first.split_whitespace().take(3).map(|w| w.to_lowercase().trim_matches(|c: char| !c.is_alphanumeric()).to_string()).collect();
    concepts.iter().any(|c| {
        let c = c.to_lowercase();
        !c.is_empty() && opening.iter().any(|w| w.chars().count() >= 4 && (c == *w || c.split_whitespace().next() == Some(w.as_str())))
    })
}

/// The MCQ gates of an item's question and options.
pub fn mcq(question: &str, options: &[String], answer_index: usize, lang: Lang) -> Gates {
    let mut g = Gates::new();
    g.insert("mcq_shape".into(), options.len() == 4 && options.iter().all(|o| !o.trim().is_empty()) && answer_index < 4);
    let all = std::iter::once(question).chain(options.iter().map(String::as_str)).collect::<Vec<_>>().join(" ");
    g.insert("mcq_script".into(), script_share(&all, lang) >= MCQ_SCRIPT);
    g
}

/// The CQ gates of a clue (marker + stimulus) and its four parts' questions; `concepts` feed the
/// theory-dump detector.
pub fn cq(clue: &str, parts: &[String], concepts: &[String], lang: Lang) -> Gates {
    let mut g = Gates::new();
    let m = marker(lang);
    let trimmed = clue.trim_start();
    g.insert("cq_marker".into(), trimmed.starts_with(m));
    let story = trimmed.strip_prefix(m).unwrap_or(trimmed);
    let told = sentences(story);
    // Different sentences: a small model can fill the count by saying one sentence three times.
    let mut said: Vec<&str> = told.iter().map(|x| x.trim()).collect();
    said.sort_unstable();
    said.dedup();
    g.insert("cq_sentences".into(), said.len() >= CQ_SENTENCES);
    // A story, not a definition and not a list of questions.
    let asks = told.iter().filter(|s| s.ends_with('?')).count();
    g.insert("cq_not_theory".into(), !theory_dump(story, concepts) && asks <= 1);
    let all = std::iter::once(story).chain(parts.iter().map(String::as_str)).collect::<Vec<_>>().join(" ");
    let (t, o) = script_counts(&all, lang);
    let share = if t + o == 0 { 0.0 } else { t as f64 / (t + o) as f64 };
    g.insert("cq_script".into(), share >= CQ_SCRIPT && (o == 0 || lang != Lang::Bn));
    g
}

/// The gates a relaxed pass still needs: the item's format and language (MCQ: shape and script;
/// CQ: marker, sentences and script). Grounding and the opener may be marginal.
pub fn format_and_language(g: &Gates) -> bool {
    ["mcq_shape", "mcq_script", "cq_marker", "cq_sentences", "cq_script"].iter().all(|k| g.get(*k).copied().unwrap_or(true))
}

/// A failed check as a teacher reads it in the review (the verification report's relaxed-pass
/// note), in Bangla or English; a name it does not know is shown as it is.
pub fn teacher_note(gate: &str, bn: bool) -> String {
    let (mcq_script, cq_script) = ((MCQ_SCRIPT * 100.0).round() as u32, (CQ_SCRIPT * 100.0).round() as u32);
    let text = match (gate, bn) {
        ("mcq_shape", false) => "not exactly four options with one correct answer".to_string(),
        ("mcq_shape", true) => "ঠিক চারটি বিকল্প ও একটি সঠিক উত্তর নেই".to_string(),
        ("mcq_script", false) => format!("under {mcq_script}% of its letters are in the requested language"),
        ("mcq_script", true) => format!("চাওয়া ভাষার অক্ষর {mcq_script}%-এর কম"),
        ("distinct_options", false) => "two options say the same".to_string(),
        ("distinct_options", true) => "দুটি বিকল্প একই কথা বলে".to_string(),
        ("cq_marker", false) => format!("the stimulus does not start with \"{}\"", marker(Lang::En)),
        ("cq_marker", true) => format!("উদ্দীপক \"{}\" দিয়ে শুরু হয়নি", marker(Lang::Bn)),
        ("cq_sentences", false) => format!("the stimulus has fewer than {CQ_SENTENCES} different sentences"),
        ("cq_sentences", true) => format!("উদ্দীপকে {CQ_SENTENCES}টির কম ভিন্ন বাক্য"),
        ("cq_not_theory", false) => "the stimulus reads like a definition or names the concept".to_string(),
        ("cq_not_theory", true) => "উদ্দীপক সংজ্ঞার মতো শোনায় বা ধারণার নাম বলে দেয়".to_string(),
        ("cq_script", false) => format!("under {cq_script}% of its letters are in the requested language, or it mixes scripts"),
        ("cq_script", true) => format!("বাংলা অক্ষর {cq_script}%-এর কম, বা অন্য লিপির অক্ষর আছে"),
        ("stimulus_not_copied", false) => "the stimulus copies the book's sentences".to_string(),
        ("stimulus_not_copied", true) => "উদ্দীপকে বইয়ের বাক্য হুবহু নেওয়া".to_string(),
        ("cq_on_topic", false) => "the questions do not name the section's topic".to_string(),
        ("cq_on_topic", true) => "প্রশ্নগুলোতে অংশের বিষয়ের নাম নেই".to_string(),
        // The MCQ writer's checks (the quiz's validator, `quiz::check`).
        ("four_options", false) => "fewer than four non-empty options".to_string(),
        ("four_options", true) => "চারটি পূর্ণ বিকল্প নেই".to_string(),
        ("options_differ", false) => "two options say the same in different words".to_string(),
        ("options_differ", true) => "দুটি বিকল্প ভিন্ন শব্দে একই কথা বলে".to_string(),
        ("no_all_or_none", false) => "an option is \"all/none of the above\"".to_string(),
        ("no_all_or_none", true) => "\"উপরের সবগুলো/কোনোটিই নয়\" ধরনের বিকল্প আছে".to_string(),
        ("answer_index", false) => "no valid correct option".to_string(),
        ("answer_index", true) => "সঠিক উত্তর চিহ্নিত নেই".to_string(),
        ("options_whole", false) => "an option is cut off".to_string(),
        ("options_whole", true) => "একটি বিকল্প অসম্পূর্ণ".to_string(),
        ("rationales", false) => "an option's reason is missing or cut off".to_string(),
        ("rationales", true) => "কোনো বিকল্পের ব্যাখ্যা নেই বা অসম্পূর্ণ".to_string(),
        ("option_not_in_stem", false) => "an option repeats the question".to_string(),
        ("option_not_in_stem", true) => "একটি বিকল্প প্রশ্নেরই পুনরাবৃত্তি".to_string(),
        ("options_are_answers", false) => "an option is a question or restates the question".to_string(),
        ("options_are_answers", true) => "একটি বিকল্প প্রশ্নের মতো বা প্রশ্নটিই আবার বলে".to_string(),
        ("shows_what_it_asks_about", false) => "it asks about code or a passage it does not show".to_string(),
        ("shows_what_it_asks_about", true) => "যে কোড বা অনুচ্ছেদের কথা জিজ্ঞেস করে তা দেখায় না".to_string(),
        ("no_passage_reference", false) => "it mentions \"the passage\", which the learner does not see".to_string(),
        ("no_passage_reference", true) => "শিক্ষার্থী দেখে না এমন \"অনুচ্ছেদ\"-এর কথা বলে".to_string(),
        ("not_a_repeat", false) => "it repeats an earlier question".to_string(),
        ("not_a_repeat", true) => "আগের একটি প্রশ্নের পুনরাবৃত্তি".to_string(),
        ("not_the_example", false) => "it copies the writer's worked example, not the book".to_string(),
        ("not_the_example", true) => "বই নয়, লেখার নমুনা উদাহরণটি নকল করেছে".to_string(),
        ("language", false) => format!("under {mcq_script}% of its letters are in the requested language"),
        ("language", true) => format!("চাওয়া ভাষার অক্ষর {mcq_script}%-এর কম"),
        ("key_supported", false) => "the book does not clearly support the keyed answer".to_string(),
        ("key_supported", true) => "বই সঠিক উত্তরটিকে স্পষ্ট সমর্থন করে না".to_string(),
        (other, _) => other.to_string(),
    };
    if bn { crate::text::bengali_digits(&text) } else { text }
}

/// The first failing gate, as the writer is told it.
pub fn failure(g: &Gates, lang: Lang) -> Option<String> {
    let lang_name = if lang == Lang::Bn { "Bangla" } else { "English" };
    let why = |k: &str| -> String {
        match k {
            "mcq_shape" => "it did not have exactly four options and one correct answer".into(),
            "mcq_script" => format!("it was not written in {lang_name}"),
            "cq_marker" => "the stimulus was missing".into(),
            "cq_sentences" => format!("the stimulus had fewer than {CQ_SENTENCES} different sentences; write {CQ_SENTENCES} to 8 short sentences"),
            "cq_not_theory" => "the stimulus opened with a definition, named the concept or asked questions; tell a situation someone sees or does".into(),
            "cq_script" => format!("it was not written only in {lang_name} letters"),
            other => other.to_string(),
        }
    };
    ["mcq_shape", "mcq_script", "cq_marker", "cq_sentences", "cq_not_theory", "cq_script"].iter().find(|k| g.get(**k) == Some(&false)).map(|k| why(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gate_has_a_teacher_note_in_both_languages() {
        // Every name an authored item's gates can hold: these gates, the CQ's two in
        // `author::make_cq`, and the MCQ writer's checks (the quiz validator's, run here).
        let item = crate::agent::quiz::Item {
            question: "What does append do?".into(),
            options: ["Adds an item".into(), "Removes".into(), "Sorts".into(), "Copies".into()].to_vec(),
            answer_index: 0,
            rationales: vec!["Right.".into(); 4],
            bloom: crate::agent::quiz::Bloom::Remember,
            concepts: vec![],
            evidence: vec![],
        };
        let (checks, _) = crate::agent::quiz::check::deterministic(&item, &[], false);
        let mut names: Vec<String> = mcq("q", &[], 0, Lang::En).into_keys().chain(cq("c", &[], &[], Lang::En).into_keys()).chain(checks.into_keys()).collect();
        names.extend(["stimulus_not_copied", "cq_on_topic", "key_supported"].map(String::from));
        assert!(names.len() >= 20, "{names:?}");
        for name in &names {
            let name = name.as_str();
            let (en, bn) = (teacher_note(name, false), teacher_note(name, true));
            assert!(!en.contains('_') && !bn.contains('_'), "{name}: {en} / {bn}");
            assert!(bn.chars().any(is_bengali) && !bn.chars().any(|c| c.is_ascii_digit()), "{name}: {bn}");
        }
        assert_eq!(teacher_note("mcq_script", false), "under 55% of its letters are in the requested language");
        assert_eq!(teacher_note("cq_sentences", true), "উদ্দীপকে ৫টির কম ভিন্ন বাক্য");
    }

    #[test]
    fn formulas_units_and_numbers_are_not_letters_of_another_script() {
        let bn = "সালোকসংশ্লেষণে 6CO₂ + 6H₂O থেকে গ্লুকোজ তৈরি হয় এবং O₂ বের হয়, গতি 40 km/h।";
        assert_eq!(script_counts(bn, Lang::Bn).1, 0, "no foreign letters");
        assert!(script_share(bn, Lang::Bn) > 0.99);
        let mixed = "সালোকসংশ্লেষণকে ইংরেজিতে Photosynthesis বলা হয়।";
        assert!(script_counts(mixed, Lang::Bn).1 > 0, "an English word is another script");
        assert!(script_share("Water is H2O and carbon dioxide is CO2.", Lang::En) > 0.99);
        assert!(script_share("পানি হলো পানি", Lang::En) < 0.01);
        assert!(notation("NaCl") && notation("CO") && notation("O") && notation("pH") && !notation("The") && !notation("Photosynthesis"));
    }

    #[test]
    fn sentences_split_at_bangla_and_latin_stops_not_at_decimals() {
        assert_eq!(sentences("রাফি গাছ দেখল। পাতা সবুজ। সে অবাক হলো!").len(), 3);
        assert_eq!(sentences("The rod grew by 3.5 mm. It was hot. Why?").len(), 3);
        assert_eq!(sentences("One sentence without a stop").len(), 1);
    }

    #[test]
    fn a_definition_opener_is_a_theory_dump_and_a_scene_is_not() {
        let c = vec!["সালোকসংশ্লেষণ".to_string(), "Photosynthesis".to_string()];
        assert!(theory_dump("সালোকসংশ্লেষণ হলো একটি প্রক্রিয়া যার মাধ্যমে উদ্ভিদ খাদ্য তৈরি করে। তারপর…", &c));
        assert!(theory_dump("যে প্রক্রিয়ায় উদ্ভিদ খাদ্য তৈরি করে তাকে সালোকসংশ্লেষণ বলে। তারপর…", &c));
        assert!(theory_dump("Photosynthesis is the process by which plants make food.", &c));
        assert!(!theory_dump("রিনা তার বারান্দার টবে একটি গাছ রাখল। কয়েক দিন পর সে দেখল গাছটি জানালার দিকে হেলে পড়েছে।", &c));
    }

    #[test]
    fn the_gates_name_what_failed() {
        let opts = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let ok = mcq("সালোকসংশ্লেষণে কোন গ্যাস নির্গত হয়?", &opts(&["অক্সিজেন", "কার্বন ডাইঅক্সাইড", "নাইট্রোজেন", "CO₂"]), 0, Lang::Bn);
        assert!(ok.values().all(|&b| b), "{ok:?}");
        let three = mcq("Which gas?", &opts(&["a", "b", "c"]), 0, Lang::En);
        assert_eq!(failure(&three, Lang::En).unwrap(), "it did not have exactly four options and one correct answer");
        let english = mcq("Which gas is released?", &opts(&["Oxygen", "Nitrogen", "Hydrogen", "Helium"]), 1, Lang::Bn);
        assert!(failure(&english, Lang::Bn).unwrap().contains("Bangla"));
        let story = "উদ্দীপক: রিনা টবে একটি গাছ রাখল। সে রোজ পানি দিল। এক সপ্তাহ পর গাছটি জানালার দিকে হেলে গেল। তার ভাই বলল গাছটি আলো খুঁজছে। রিনা গাছটি ঘুরিয়ে দিল।";
        let parts = opts(&["ক্লোরোফিল কী?", "পাতা সবুজ কেন?", "গাছটি হেলে গেল কেন?", "রিনার কাজটি মূল্যায়ন করো।"]);
        let g = cq(story, &parts, &[], Lang::Bn);
        assert!(g.values().all(|&b| b), "{g:?}");
        let short = cq("উদ্দীপক: রিনা টবে একটি গাছ রাখল। সে রোজ পানি দিল।", &parts, &[], Lang::Bn);
        assert!(failure(&short, Lang::Bn).unwrap().contains("fewer than 5"));
        let repeated = cq("উদ্দীপক: রিনা টবে একটি গাছ রাখল। সে রোজ পানি দিল। সে রোজ পানি দিল। সে রোজ পানি দিল। রিনা গাছটি ঘুরিয়ে দিল।", &parts, &[], Lang::Bn);
        assert_eq!(repeated.get("cq_sentences"), Some(&false), "one sentence said three times counts once");
        assert!(format_and_language(&g) && !format_and_language(&short));
        let latin = cq(story, &opts(&["What is chlorophyll?", "খ?", "গ?", "ঘ?"]), &[], Lang::Bn);
        assert_eq!(latin.get("cq_script"), Some(&false));
        assert_eq!(cq(story.trim_start_matches("উদ্দীপক: "), &parts, &[], Lang::Bn).get("cq_marker"), Some(&false));
        let questions = "Stimulus: What are exceptions? Why use them? How are they handled? What if a file is missing? Rina ran her program.";
        assert!(failure(&cq(questions, &opts(&["a?", "b?", "c?", "d?"]), &[], Lang::En), Lang::En).unwrap().contains("asked questions"));
    }
}
