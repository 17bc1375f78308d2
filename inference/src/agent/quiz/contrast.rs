//! Items from the book's comparison tables: "মাইটোসিস ও মিয়োসিসের অপত্য কোষের সংখ্যা
//! যথাক্রমে—" with the table's own row as the key ("দুটি ও চারটি").
//!
//! A textbook sets two things side by side in a table ("বিষয় | মাইটোসিস | মিয়োসিস", one row per
//! aspect: "অপত্য কোষের সংখ্যা | দুটি | চারটি"), and "পার্থক্য" (difference) is TeachMateGPT's
//! cue for an intermediate item; comparing is Bloom's Understand. Each row whose two cells differ
//! gives an item whose four options are the four ways a learner can pair the two values with the
//! two things, in the board's "respectively" (যথাক্রমে) shape: the book's pairing (the key), the
//! two swapped, and either value for both — three wrong by construction, and exactly the
//! confusions of a learner who half remembers which is which. A row whose value repeats a word
//! of a thing's name ("স্থায়ী চুম্বক": "দীর্ঘস্থায়ী") asks nothing. Each option's reason quotes the row. No model writes any of it (see
//! [`super::define`], made the same way).
//!
//! [`contrasts`] finds the tables in a text; [`item`] makes the item for one row.

use super::{Bloom, Item, ItemEvidence, prompt};
use crate::agent::author::gates;
use crate::agent::route::Lang;
use crate::bundle::Bundle;

/// A table that sets two things side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Contrast {
    /// The two things compared (the table's second and third headers).
    pub sides: [String; 2],
    /// Its rows whose two cells differ: (aspect, [value for the first, for the second]).
    pub rows: Vec<(String, [String; 2])>,
    /// The table's header line, verbatim (with one row's line, an item's evidence).
    pub header: String,
    /// Each row's line, verbatim, in the order of `rows`.
    pub lines: Vec<String>,
    pub section: u32,
}

/// How the reason of the option that swaps the pairing opens.
const SWAPPED: &str = "ক্রম উল্টে গেছে";
/// Headers of a table's first column when its other two columns are the things compared.
const ASPECT_HEADERS: &[&str] = &["বিষয়", "বৈশিষ্ট্য", "পার্থক্যের বিষয়", "তুলনার বিষয়", "পার্থক্য", "তুলনার দিক", "দিক", "ভিত্তি", "পার্থক্যের ভিত্তি", "বিষয়বস্তু"];
/// Most characters of a cell an option holds.
const VALUE_CHARS: usize = 60;
/// Most words of a thing compared.
const SIDE_WORDS: usize = 3;

/// A table of a text as the bundle keeps it ("a | b | c" lines): its header line and rows, in
/// cells, each row with its line verbatim.
struct Grid<'t> {
    header: Vec<String>,
    header_line: &'t str,
    rows: Vec<(Vec<String>, &'t str)>,
    /// The few lines before it (an introduction: "নিচের ছকে পার্থক্যগুলো দেখানো হলো:").
    before: String,
}

/// The tables of `text`: runs of lines of two or more cells, as many in each line.
fn grids(text: &str) -> Vec<Grid<'_>> {
    let lines: Vec<&str> = text.lines().collect();
    let cells = |l: &str| -> Vec<String> { l.split(" | ").map(|c| c.trim().to_string()).collect() };
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let head = cells(lines[i]);
        if head.len() < 2 || !lines[i].contains(" | ") {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < lines.len() && lines[j].contains(" | ") && cells(lines[j]).len() == head.len() {
            j += 1;
        }
        let before = lines[..i].iter().rev().take(3).copied().collect::<Vec<_>>().join(" ");
        let rows = lines[i + 1..j].iter().map(|l| (cells(l), *l)).filter(|(c, _)| c.iter().all(|x| !x.is_empty())).collect();
        out.push(Grid { header: head, header_line: lines[i], rows, before });
        i = j;
    }
    out
}

/// Whether a header names a thing compared: Bangla, one to [`SIDE_WORDS`] words.
fn side(s: &str) -> bool {
    let words = s.split_whitespace().count();
    (1..=SIDE_WORDS).contains(&words) && gates::script_share(s, Lang::Bn) >= gates::MCQ_SCRIPT
}

/// The comparison tables of `text` (section `section`): an aspect column, headed by an aspect
/// word ("বিষয়", "বৈশিষ্ট্য", …) or the table introduced as a difference or a comparison ("…
/// পার্থক্যগুলো দেখানো হলো:"), then one column per thing compared — two things, or three or
/// more ("বৈশিষ্ট্য | লোহিত কণিকা | শ্বেত কণিকা | অণুচক্রিকা"), each pair of them one
/// [`Contrast`]; or two columns headed by the two things, each row a pair of statements ("জারণ
/// | বিজারণ" over "অক্সিজেন যুক্ত হয় | অক্সিজেন অপসারিত হয়"; its aspects empty). Every row
/// whose cells are filled (Ask shows them all: [`sentences`]).
pub fn tables(text: &str, section: u32) -> Vec<Contrast> {
    let mut out = Vec::new();
    for g in grids(text) {
        let h = &g.header;
        let introduced = ["পার্থক্য", "তুলনা"].iter().any(|w| g.before.contains(w));
        let distinct = |cols: &[String]| cols.iter().enumerate().all(|(i, a)| cols[..i].iter().all(|b| b != a));
        // The columns of the things compared, and whether the first is the aspect.
        let (things, aspect): (Vec<usize>, bool) = match h.len() {
            n if n >= 3 && (ASPECT_HEADERS.contains(&h[0].as_str()) || introduced) && h[1..].iter().all(|x| side(x)) && distinct(&h[1..]) => ((1..n).collect(), true),
            2 if side(&h[0]) && side(&h[1]) && h[0] != h[1] => (vec![0, 1], false),
            _ => continue,
        };
        let lines: Vec<String> = g.rows.iter().map(|(_, l)| l.to_string()).collect();
        for (k, &i) in things.iter().enumerate() {
            for &j in &things[k + 1..] {
                let rows: Vec<(String, [String; 2])> = g.rows.iter().map(|(c, _)| (if aspect { c[0].clone() } else { String::new() }, [c[i].clone(), c[j].clone()])).collect();
                if !rows.is_empty() {
                    out.push(Contrast { sides: [h[i].clone(), h[j].clone()], rows, header: g.header_line.to_string(), lines: lines.clone(), section });
                }
            }
        }
    }
    out
}

/// Two things a table of `text` sets as rows ("প্রকার | বৈশিষ্ট্য | উদাহরণ" over "স্থলজ
/// বাস্তুতন্ত্র | …" and "জলজ বাস্তুতন্ত্র | …"), turned to set them side by side: a
/// [`Contrast`] whose aspects are the other columns' headers. `named` tells whether the
/// question names a row's thing; the first two such rows.
pub fn rows_compared(text: &str, section: u32, named: &dyn Fn(&str) -> bool) -> Option<Contrast> {
    grids(text).into_iter().filter(|g| g.header.len() >= 3).find_map(|g| {
        let found: Vec<&(Vec<String>, &str)> = g.rows.iter().filter(|(c, _)| side(&c[0]) && named(&c[0])).take(2).collect();
        let [a, b] = found.as_slice() else { return None };
        let rows = (1..g.header.len()).map(|k| (g.header[k].clone(), [a.0[k].clone(), b.0[k].clone()])).collect();
        Some(Contrast { sides: [a.0[0].clone(), b.0[0].clone()], rows, header: g.header_line.to_string(), lines: vec![a.1.to_string(), b.1.to_string()], section })
    })
}

/// The [`tables`] of `text` with only the rows an item can ask: their two cells differ and fit
/// an option; at least two such rows.
pub fn contrasts(text: &str, section: u32) -> Vec<Contrast> {
    tables(text, section)
        .into_iter()
        .filter_map(|mut t| {
            let keep: Vec<usize> = (0..t.rows.len()).filter(|&r| askable(&t, r)).collect();
            t.rows = keep.iter().map(|&r| t.rows[r].clone()).collect();
            t.lines = keep.iter().map(|&r| t.lines[r].clone()).collect();
            (t.rows.len() >= 2).then_some(t)
        })
        .collect()
}

/// Whether row `r` of `t` makes an item: its cells differ (one holding the other makes "both:
/// …" half right, unless it denies it: "ঘটে", "ঘটে না") and fit an option, and it does not give
/// itself away.
fn askable(t: &Contrast, r: usize) -> bool {
    let (aspect, [a, b]) = &t.rows[r];
    if aspect.is_empty() {
        // A two-column table's pair of statements: no aspect to ask by.
        return false;
    }
    let (al, bl) = (a.to_lowercase(), b.to_lowercase());
    let denied = |long: &str, short: &str| [" না", " নয়"].iter().any(|n| long.strip_suffix(n) == Some(short));
    let inside = (al.contains(&bl) || bl.contains(&al)) && !denied(&al, &bl) && !denied(&bl, &al);
    let differ = al != bl && !inside;
    let fits = a.chars().count() <= VALUE_CHARS && b.chars().count() <= VALUE_CHARS;
    // A value that repeats a word of a thing's name ("স্থায়ী চুম্বক": "দীর্ঘস্থায়ী"; "তীক্ষ্ণতা":
    // "মশার শব্দ তীক্ষ্ণ") is matched by the name, not by knowing it.
    let names = |value: &str| {
        value.split_whitespace().any(|v| {
            t.sides.iter().flat_map(|h| h.split_whitespace()).any(|w| {
                // The name's word inside the value's, or the value's word most of the name's
                // ("তীক্ষ্ণ" of "তীক্ষ্ণতা"; not "সমান" of "সমান্তরাল").
                let n = |s: &str| s.chars().count();
                (n(w) >= 4 && v.contains(w)) || (n(v) >= 4 && w.starts_with(v) && 4 * n(v) >= 3 * n(w))
            })
        })
    };
    // An aspect the names say ("বীজপত্র" of "একবীজপত্রী" and "দ্বিবীজপত্রী"), a list of examples
    // (member items ask those one at a time: [`super::example`]) or a cell that is a list
    // itself asks nothing a name or one known member does not answer.
    let said = aspect.split_whitespace().any(|w| w.chars().count() >= 4 && t.sides.iter().any(|h| h.contains(w)));
    let examples = aspect.starts_with("উদাহরণ");
    let list = [a, b].iter().any(|v| v.matches(',').count() >= 2);
    differ && fits && !names(a) && !names(b) && !said && !examples && !list
}

/// Each row of `t` as a sentence of the book's words: "সংঘটনের স্থান: সালোকসংশ্লেষণ —
/// ক্লোরোপ্লাস্ট; শ্বসন — সাইটোপ্লাজম ও মাইটোকন্ড্রিয়া" (Ask opens an answer on how the two
/// differ with them).
pub fn sentences(t: &Contrast) -> Vec<String> {
    let [x, y] = &t.sides;
    let cell = |v: &str| v.replace("; ", ", ");
    t.rows
        .iter()
        .map(|(aspect, [a, b])| if aspect.is_empty() { format!("{x} — {}; {y} — {}", cell(a), cell(b)) } else { format!("{aspect}: {x} — {}; {y} — {}", cell(a), cell(b)) })
        .collect()
}

/// The comparison tables chunk `chunk` holds.
pub fn askable_in(bundle: &Bundle, chunk: u32) -> Vec<Contrast> {
    contrasts(bundle.chunk_text(chunk), bundle.section_of(chunk).id)
}

/// `word` in the genitive ("মিয়োসিস" → "মিয়োসিসের", "তাপমাত্রা" → "তাপমাত্রার", "DNA" →
/// "DNA-এর").
pub fn genitive(word: &str) -> String {
    match word.chars().last() {
        Some(c) if ('\u{0995}'..='\u{09B9}').contains(&c) || matches!(c, '\u{09CE}' | '\u{09DC}' | '\u{09DD}' | '\u{09DF}' | '\u{09BC}') => format!("{word}ের"),
        Some(c) if ('\u{09BE}'..='\u{09CC}').contains(&c) || ('\u{0985}'..='\u{0994}').contains(&c) => format!("{word}র"),
        _ => format!("{word}-এর"),
    }
}

/// Words that ask ("কোথায় ঘটে", "নিউক্লিয়াস কতবার ভাগ হয়"): such an aspect is the question.
const ASKING: &[&str] = &["কোথায়", "কখন", "কোন", "কোনটি", "কত", "কতবার", "কয়টি", "কী", "কি", "কীভাবে", "কেমন", "কীসের", "কিসের"];
/// Last words of an aspect that is a verb phrase ("নির্ভর করে", "বোঝায়").
const VERB_ENDS: &[&str] = &["করে", "হয়", "বোঝায়", "ঘটে", "থাকে", "দেয়", "পায়", "যায়", "চলে", "লাগে"];

/// The question on a row's aspect, in the board's "respectively" shape: "মাইটোসিস ও মিয়োসিসের
/// অপত্য কোষের সংখ্যা যথাক্রমে—", "মাইটোসিস ও মিয়োসিস যথাক্রমে কোথায় ঘটে?", "তীক্ষ্ণতা ও প্রাবল্য
/// যথাক্রমে নির্ভর করে—", "একটি যন্ত্র নষ্ট হলে শ্রেণি বর্তনী ও সমান্তরাল বর্তনীর ক্ষেত্রে যথাক্রমে—".
pub fn question(c: &Contrast, row: usize) -> String {
    let aspect = c.rows[row].0.trim_end_matches(['?', ':', ' ']);
    let [x, y] = &c.sides;
    let words: Vec<&str> = aspect.split_whitespace().collect();
    let last = words.last().copied().unwrap_or("");
    if words.iter().any(|w| ASKING.contains(w)) {
        format!("{x} ও {y} যথাক্রমে {aspect}?")
    } else if last.ends_with("লে") {
        format!("{aspect} {x} ও {} ক্ষেত্রে যথাক্রমে—", genitive(y))
    } else if VERB_ENDS.contains(&last) {
        format!("{x} ও {y} যথাক্রমে {aspect}—")
    } else {
        format!("{x} ও {} {aspect} যথাক্রমে—", genitive(y))
    }
}

/// Whether `question` is such an item's (its options pair the same values differently on
/// purpose).
pub fn compares(question: &str) -> bool {
    question.contains(" যথাক্রমে")
}

/// The item on row `row` of `c`: the book's pairing of its two values with the two things
/// ("দুটি ও চারটি"), the pairing swapped, and each value for both. The evidence quotes the
/// header and the row.
pub fn item(c: &Contrast, row: usize, evidence: ItemEvidence) -> Option<Item> {
    let (_, [a, b]) = c.rows.get(row)?;
    // A cell's first clause: "নেই; দিনরাত সব সময় চলে" would read as two pairings.
    let (a, b) = (a.split("; ").next()?, b.split("; ").next()?);
    let [x, y] = &c.sides;
    let (xg, yg) = (genitive(x), genitive(y));
    let question = question(c, row);
    let book = format!("বইয়ের সারণিতে: {x} — {a}; {y} — {b}।");
    // "দুটি ও চারটি"; values that hold "ও" or a comma themselves are set apart by a semicolon.
    let joint = if [a, b].iter().any(|v| v.contains(" ও ") || v.contains(',')) { "; " } else { " ও " };
    let both = "উভয় ক্ষেত্রেই";
    let key = format!("{a}{joint}{b}");
    let mut options = vec![format!("{b}{joint}{a}"), format!("{both} {a}"), format!("{both} {b}")];
    let mut rationales = vec![format!("{SWAPPED}। {book}"), format!("{yg} ক্ষেত্রে তা নয়: {b}। {book}"), format!("{xg} ক্ষেত্রে তা নয়: {a}। {book}")];
    // The swapped pairing in any slot, not always next to the key: else a learner skips the
    // two "both" options and guesses between two.
    let turn = super::check::spread(&format!("{question} {a}"), 3);
    options.rotate_left(turn);
    rationales.rotate_left(turn);
    if options.iter().chain(std::iter::once(&key)).any(|o| o.chars().count() > prompt::OPTION_MAX_CHARS - 10) || rationales.iter().any(|r| r.chars().count() > prompt::REASON_MAX_CHARS) {
        return None;
    }
    let at = super::check::key_position(&question);
    options.insert(at, key);
    rationales.insert(at, book.clone());
    Some(Item { question, options, answer_index: at, rationales, bloom: Bloom::Understand, concepts: vec![x.clone(), y.clone()], evidence: vec![evidence] })
}

/// What an item on row `row` rests on: the table's header line and the row's.
pub fn quote(c: &Contrast, row: usize) -> String {
    format!("{}\n{}", c.header, c.lines[row])
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "দুটি বিভাজনই নিউক্লিয়াসের বিভাজন, কিন্তু এদের উদ্দেশ্য ও ফলাফল আলাদা। নিচের ছকে পার্থক্যগুলো দেখানো হলো:\n\nবিষয় | মাইটোসিস | মিয়োসিস\nকোথায় ঘটে | দেহকোষে | জননমাতৃকোষে\nঅপত্য কোষের সংখ্যা | দুটি | চারটি\nক্রসিং ওভার | ঘটে না | ঘটে\nনিউক্লিয়াসের ধরন | একই | একই";

    #[test]
    fn a_comparison_table_gives_its_differing_rows() {
        let c = contrasts(TABLE, 4);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].sides, ["মাইটোসিস".to_string(), "মিয়োসিস".to_string()]);
        // "ঘটে না" / "ঘটে": one denies the other; a row whose cells agree asks nothing, nor one
        // whose cell holds the other's ("both: CO2 ও পানি" would be half right).
        let aspects: Vec<&str> = c[0].rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(aspects, ["কোথায় ঘটে", "অপত্য কোষের সংখ্যা", "ক্রসিং ওভার"]);
        let half = contrasts("বিষয় | সালোকসংশ্লেষণ | শ্বসন\nকাঁচামাল | CO2 ও পানি | গ্লুকোজ ও অক্সিজেন\nউৎপাদ | গ্লুকোজ ও অক্সিজেন | CO2 ও পানি\nশুষ্ক ওজন | বাড়ে | কমে\nশক্তি | জমা হয় | মুক্ত হয়, CO2 ও পানি", 0);
        assert_eq!(half[0].rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), ["কাঁচামাল", "উৎপাদ", "শুষ্ক ওজন", "শক্তি"]);
        assert_eq!(quote(&c[0], 1), "বিষয় | মাইটোসিস | মিয়োসিস\nঅপত্য কোষের সংখ্যা | দুটি | চারটি");
        // Ask shows every row, the quiz asks only those that differ.
        let all = tables(TABLE, 4);
        assert_eq!(all[0].rows.len(), 4);
        assert_eq!(sentences(&all[0])[1], "অপত্য কোষের সংখ্যা: মাইটোসিস — দুটি; মিয়োসিস — চারটি");
        // Two columns of paired statements; two things set as rows, turned side by side.
        let redox = tables("জারণ | বিজারণ\nঅক্সিজেন যুক্ত হয় | অক্সিজেন অপসারিত হয়\nইলেকট্রন ত্যাগ ঘটে | ইলেকট্রন গ্রহণ ঘটে", 0);
        assert_eq!(sentences(&redox[0])[0], "জারণ — অক্সিজেন যুক্ত হয়; বিজারণ — অক্সিজেন অপসারিত হয়");
        assert!(contrasts("জারণ | বিজারণ\nঅক্সিজেন যুক্ত হয় | অক্সিজেন অপসারিত হয়\nইলেকট্রন ত্যাগ ঘটে | ইলেকট্রন গ্রহণ ঘটে", 0).is_empty(), "no aspect to ask by");
        let kinds = "প্রকার | বৈশিষ্ট্য | উদাহরণ\nস্থলজ বাস্তুতন্ত্র | স্থলভাগে গড়ে ওঠে | বন, মরুভূমি\nজলজ বাস্তুতন্ত্র | পানিতে গড়ে ওঠে | পুকুর, সাগর";
        let t = rows_compared(kinds, 0, &|s| s.contains("বাস্তুতন্ত্র")).unwrap();
        assert_eq!(sentences(&t), ["বৈশিষ্ট্য: স্থলজ বাস্তুতন্ত্র — স্থলভাগে গড়ে ওঠে; জলজ বাস্তুতন্ত্র — পানিতে গড়ে ওঠে", "উদাহরণ: স্থলজ বাস্তুতন্ত্র — বন, মরুভূমি; জলজ বাস্তুতন্ত্র — পুকুর, সাগর"]);
        assert!(rows_compared(kinds, 0, &|s| s.starts_with("জলজ")).is_none(), "one thing named compares nothing");
        // Three things side by side: each pair of them.
        let cells = tables("বৈশিষ্ট্য | লোহিত কণিকা | শ্বেত কণিকা | অণুচক্রিকা\nনিউক্লিয়াস | নেই | আছে | নেই\nবর্ণ | লাল | বর্ণহীন | বর্ণহীন\nপ্রধান কাজ | অক্সিজেন পরিবহন | রোগ প্রতিরোধ | রক্ত জমাট বাঁধানো", 0);
        let pairs: Vec<[&str; 2]> = cells.iter().map(|t| [t.sides[0].as_str(), t.sides[1].as_str()]).collect();
        assert_eq!(pairs, [["লোহিত কণিকা", "শ্বেত কণিকা"], ["লোহিত কণিকা", "অণুচক্রিকা"], ["শ্বেত কণিকা", "অণুচক্রিকা"]]);
        assert_eq!(sentences(&cells[1])[0], "নিউক্লিয়াস: লোহিত কণিকা — নেই; অণুচক্রিকা — নেই");
        assert_eq!(contrasts("বৈশিষ্ট্য | লোহিত কণিকা | শ্বেত কণিকা | অণুচক্রিকা\nনিউক্লিয়াস | নেই | আছে | নেই\nবর্ণ | লাল | বর্ণহীন | বর্ণহীন\nপ্রধান কাজ | অক্সিজেন পরিবহন | রোগ প্রতিরোধ | রক্ত জমাট বাঁধানো", 0)[1].rows.len(), 2, "rows whose two cells agree ask nothing");
        // A table of things and their properties compares nothing.
        assert!(contrasts("পদার্থ | আনুমানিক pH | প্রকৃতি\nলেবুর রস | 2 – 2.5 | অম্লীয়\nসাবান-পানি | 9 – 10 | ক্ষারীয়\nচুনের পানি | 12.4 | তীব্র ক্ষারীয়", 0).is_empty());
        assert_eq!(genitive("মিয়োসিস"), "মিয়োসিসের");
        assert_eq!(genitive("তাপমাত্রা"), "তাপমাত্রার");
        assert_eq!(genitive("পানি"), "পানির");
        assert_eq!(genitive("DNA"), "DNA-এর");
    }

    #[test]
    fn a_row_pairs_its_values_four_ways() {
        let c = &contrasts(TABLE, 4)[0];
        let ev = ItemEvidence { chunk: 0, section: 4, file: "f".into(), heading_path: vec![], quote: quote(c, 1) };
        let i = item(c, 1, ev).unwrap();
        assert_eq!(i.question, "মাইটোসিস ও মিয়োসিসের অপত্য কোষের সংখ্যা যথাক্রমে—");
        assert!(compares(&i.question));
        assert_eq!(i.options[i.answer_index], "দুটি ও চারটি");
        let mut wrong: Vec<&str> = i.options.iter().enumerate().filter(|&(k, _)| k != i.answer_index).map(|(_, o)| o.as_str()).collect();
        wrong.sort();
        assert_eq!(wrong, ["উভয় ক্ষেত্রেই চারটি", "উভয় ক্ষেত্রেই দুটি", "চারটি ও দুটি"]);
        assert!(i.rationales.iter().all(|r| r.ends_with("বইয়ের সারণিতে: মাইটোসিস — দুটি; মিয়োসিস — চারটি।")));
        let both_two = i.options.iter().position(|o| o == "উভয় ক্ষেত্রেই দুটি").unwrap();
        assert!(i.rationales[both_two].starts_with("মিয়োসিসের ক্ষেত্রে তা নয়: চারটি।"), "{}", i.rationales[both_two]);
        assert_eq!(i.bloom, Bloom::Understand);
        let (checks, reason) = super::super::check::deterministic(&i, &[], true);
        assert_eq!(reason, None, "{checks:?}");
        // An aspect that asks, and one that is a verb or a condition.
        assert_eq!(question(c, 0), "মাইটোসিস ও মিয়োসিস যথাক্রমে কোথায় ঘটে?");
        let t = &contrasts("বিষয় | তীক্ষ্ণতা | প্রাবল্য\nনির্ভর করে | কম্পাঙ্কের ওপর | বিস্তারের ওপর\nএকক | হার্জ | ডেসিবেল\nএকটি বাল্ব নষ্ট হলে | সব নেভে | বাকিগুলো জ্বলে", 0)[0];
        assert_eq!(question(t, 0), "তীক্ষ্ণতা ও প্রাবল্য যথাক্রমে নির্ভর করে—");
        assert_eq!(question(t, 2), "একটি বাল্ব নষ্ট হলে তীক্ষ্ণতা ও প্রাবল্যের ক্ষেত্রে যথাক্রমে—");
        // A value that repeats a word of a thing's name gives itself away.
        let named = contrasts("বিষয় | স্থায়ী চুম্বক | তড়িৎ চুম্বক\nস্থায়িত্ব | দীর্ঘস্থায়ী | প্রবাহ থাকা পর্যন্ত\nউপাদান | ইস্পাত | নরম লোহা ও কুণ্ডলী\nশক্তি বদলানো | যায় না | যায়", 0);
        assert_eq!(named[0].rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), ["উপাদান", "শক্তি বদলানো"]);
        // Rows the names answer, of examples, or of lists ask nothing.
        let seeds = contrasts("বিষয় | একবীজপত্রী | দ্বিবীজপত্রী\nবীজপত্র | একটি | দুটি\nমূল | গুচ্ছমূল | প্রধান মূল\nশিরাবিন্যাস | সমান্তরাল | জালিকা\nউদাহরণ | ধান | আম\nফুল | তিন, ছয়, নয় অংশ | চার, পাঁচ অংশ", 0);
        assert_eq!(seeds[0].rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), ["মূল", "শিরাবিন্যাস"]);
        let parallel = contrasts("বিষয় | শ্রেণি বর্তনী | সমান্তরাল বর্তনী\nবিভব পার্থক্য | ভাগ হয়ে যায় | সব শাখায় সমান\nপথ | একটি | একাধিক", 0);
        assert_eq!(parallel[0].rows.len(), 2, "সমান is not সমান্তরাল");
    }
}
