//! Multiple-completion items, the board's "বহুপদী সমাপ্তিসূচক" MCQs: three numbered statements
//! on one thing, "নিচের কোনটি সঠিক?", and the four options every Bangladeshi board paper gives
//! them — "i ও ii", "i ও iii", "ii ও iii", "i, ii ও iii".
//!
//! A learner must judge each statement on its own against what the book says of the thing, and
//! then combine the three: the board's shape for a harder item (TeachMateGPT's "advanced":
//! several steps), and Bloom's Analyse (telling which of several claims hold for a thing). They
//! are made from what [`super::example`] and [`super::contrast`] read, no model:
//!
//! - **members of a kind**: "তাপের কুপরিবাহীর উদাহরণ—" over members the book lists for it and,
//!   unless all three hold, one it lists for another kind (chosen as that module's wrong
//!   options are: `example::others`);
//! - **a comparison table**: "মাইটোসিসের ক্ষেত্রে—" over three of its rows as "অপত্য কোষের
//!   সংখ্যা: দুটি", the one that does not hold carrying the other thing's value.
//!
//! Which statement does not hold follows from where the key goes ([`super::check::key_position`]:
//! "i ও ii" puts it third, "i, ii ও iii" has none). Each option's reason names the statement
//! that makes it wrong, or the one it leaves out, with the book's words.

use super::contrast::{Contrast, genitive};
use super::example::{self, Examples};
use super::{Bloom, Item, ItemEvidence, check, prompt};

/// The four options, in the board's order.
pub const OPTIONS: [&str; 4] = ["i ও ii", "i ও iii", "ii ও iii", "i, ii ও iii"];
/// The statements' numbers.
const NUMERALS: [&str; 3] = ["i", "ii", "iii"];
/// What the stem asks after its statements.
const ASK: &str = "নিচের কোনটি সঠিক?";
/// Most characters of a statement.
const STATEMENT_CHARS: usize = 70;

/// One statement, whether the book bears it out, and what the book says of it (a reason's
/// words).
struct Statement {
    text: String,
    holds: bool,
    why: String,
}

/// Whether `question` is such an item's (its options are the board's combinations, not answers
/// of their own).
pub fn asks(question: &str) -> bool {
    question.ends_with(ASK) && question.contains("\niii. ")
}

/// What a multiple-completion item with its key at `at` claims: its lead and the statements
/// the key holds true ("তাপের সুপরিবাহীর উদাহরণ— রুপা তামা"; a verifier's text, as a
/// written item's stem and key are); `None` for another item.
pub fn claimed(question: &str, at: usize) -> Option<String> {
    if !asks(question) || at >= OPTIONS.len() {
        return None;
    }
    let lines: Vec<&str> = question.lines().collect();
    let holding = (0..3).filter(|&j| false_at(at) != Some(j)).filter_map(|j| lines.get(1 + j)?.split_once(". ").map(|(_, s)| s));
    Some(std::iter::once(lines[0]).chain(holding).collect::<Vec<_>>().join(" "))
}

/// The statement that does not hold when the key is option `at` (none for "i, ii ও iii").
fn false_at(at: usize) -> Option<usize> {
    [Some(2), Some(1), Some(0), None][at]
}

/// The item: `lead` over the three statements; `all` is the key's reason when all three hold.
fn item(lead: &str, statements: Vec<Statement>, at: usize, all: String, concepts: Vec<String>, evidence: ItemEvidence) -> Option<Item> {
    debug_assert_eq!(statements.iter().position(|s| !s.holds), false_at(at));
    if statements.iter().any(|s| s.text.chars().count() > STATEMENT_CHARS) {
        return None;
    }
    let listed: Vec<String> = statements.iter().zip(NUMERALS).map(|(s, n)| format!("{n}. {}", s.text)).collect();
    let question = format!("{lead}\n{}\n{ASK}", listed.join("\n"));
    let combos: [&[usize]; 4] = [&[0, 1], &[0, 2], &[1, 2], &[0, 1, 2]];
    let rationales: Vec<String> = combos
        .iter()
        .enumerate()
        .map(|(k, combo)| {
            let wrong = combo.iter().find(|&&j| !statements[j].holds);
            let left_out = (0..3).find(|j| !combo.contains(j));
            match (k == at, wrong, statements.iter().position(|s| !s.holds)) {
                (true, _, Some(f)) => format!("{} ঠিক; {} ঠিক নয়: {}।", OPTIONS[k], NUMERALS[f], statements[f].why),
                (true, _, None) => format!("তিনটিই ঠিক: {all}।"),
                (false, Some(&f), _) => format!("{} ঠিক নয়: {}।", NUMERALS[f], statements[f].why),
                (false, None, _) => {
                    let m = left_out.unwrap_or(2);
                    format!("{}-ও ঠিক: {}।", NUMERALS[m], statements[m].why)
                }
            }
        })
        .collect();
    // A reason that ends with the book's quoted sentence has its stop inside the quote.
    let rationales: Vec<String> = rationales.into_iter().map(|r| if r.ends_with("”।") { r.trim_end_matches('।').to_string() } else { r }).collect();
    if rationales.iter().any(|r| r.chars().count() > prompt::REASON_MAX_CHARS) {
        return None;
    }
    Some(Item { question, options: OPTIONS.iter().map(|o| o.to_string()).collect(), answer_index: at, rationales, bloom: Bloom::Analyse, concepts, evidence: vec![evidence] })
}

/// "a, b ও c".
fn and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [head @ .., last] => format!("{} ও {last}", head.join(", ")),
    }
}

/// The item on `e`'s kind: its members the lead does not name and, unless all three hold, a
/// member `pool` lists for another kind (`example::others`). `None` when the kind has fewer
/// than two members, or three where all must hold, or no other kind lists one.
pub fn from_list(e: &Examples, pool: &[Examples], evidence: ItemEvidence) -> Option<Item> {
    let eg = genitive(&e.term);
    let lead = format!("{eg} উদাহরণ—");
    let members: Vec<String> = e.examples.iter().filter(|m| !example::names(&lead, m)).cloned().collect();
    let at = check::key_position(&format!("{lead} {}", members.join(", ")));
    let holding = if false_at(at).is_some() { 2 } else { 3 };
    if members.len() < holding {
        return None;
    }
    let mut statements: Vec<Statement> = members[..holding].iter().map(|m| Statement { text: m.clone(), holds: true, why: format!("বইয়ে {m} আছে {eg} উদাহরণে") }).collect();
    if let Some(f) = false_at(at) {
        let (m, p) = example::others(e, pool, &lead, &members, 1).into_iter().next()?;
        statements.insert(f, Statement { why: example::listed_elsewhere(&m, p, e), text: m, holds: false });
    }
    let named = and(&members[..holding]);
    let all = format!("বইয়ে {named} আছে {eg} উদাহরণে: “{}”", example::quote(&e.quoted()));
    let all = if all.chars().count() + 12 > prompt::REASON_MAX_CHARS { format!("বইয়ে {named} আছে {eg} উদাহরণে") } else { all };
    item(&lead, statements, at, all, vec![e.term.clone()], evidence)
}

impl example::Pools<'_> {
    /// [`from_list`] with its chapter's other kinds' members as the statement that does not
    /// hold, else the course's.
    pub fn completion(&mut self, e: &Examples, evidence: ItemEvidence) -> Option<Item> {
        self.chapter_then_course(e.section, |p| from_list(e, p, evidence.clone()))
    }
}

/// The three rows of `c` an item on side `side` states: the first three for the first thing,
/// the last three for the second (the table's rows as [`super::contrast::contrasts`] keeps
/// them); `None` for fewer than three.
fn rows(c: &Contrast, side: usize) -> Option<[usize; 3]> {
    let n = c.rows.len();
    (n >= 3).then(|| if side == 0 { [0, 1, 2] } else { [n - 3, n - 2, n - 1] })
}

/// What an item on side `side` of `c` rests on: the table's header line and its three rows'.
pub fn table_quote(c: &Contrast, side: usize) -> Option<String> {
    let rows = rows(c, side)?;
    Some(format!("{}\n{}", c.header, rows.map(|r| c.lines[r].as_str()).join("\n")))
}

/// The item on side `side` (0 or 1) of a comparison table ([`super::contrast::contrasts`]: its
/// askable rows): "{thing}-এর ক্ষেত্রে—" over three rows as "aspect: value", the one that does
/// not hold with the other thing's value. `None` for fewer than three rows.
pub fn from_table(c: &Contrast, side: usize, evidence: ItemEvidence) -> Option<Item> {
    let rows = rows(c, side)?;
    let (x, y) = (&c.sides[side], &c.sides[1 - side]);
    let lead = format!("{} ক্ষেত্রে—", genitive(x));
    let aspects: Vec<&str> = rows.iter().map(|&r| c.rows[r].0.trim_end_matches(['?', ':', ' '])).collect();
    let at = check::key_position(&format!("{lead} {}", aspects.join(", ")));
    // A cell's first clause: "নেই; দিনরাত সব সময় চলে" would read as two statements.
    let value = |r: usize, k: usize| c.rows[r].1[k].split("; ").next().unwrap_or("").trim().to_string();
    let statements: Vec<Statement> = rows
        .iter()
        .zip(&aspects)
        .enumerate()
        .map(|(j, (&r, aspect))| {
            let (a, b) = (value(r, side), value(r, 1 - side));
            if false_at(at) == Some(j) {
                Statement { text: format!("{aspect}: {b}"), holds: false, why: format!("বইয়ের সারণিতে {aspect}: {x} — {a}; {y} — {b}") }
            } else {
                Statement { text: format!("{aspect}: {a}"), holds: true, why: format!("বইয়ের সারণিতে {aspect}: {x} — {a}") }
            }
        })
        .collect();
    let all = format!("বইয়ের সারণিতে {x}: {}", rows.iter().zip(&aspects).map(|(&r, aspect)| format!("{aspect} — {}", value(r, side))).collect::<Vec<_>>().join("; "));
    item(&lead, statements, at, all, vec![x.clone(), y.clone()], evidence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::quiz::{contrast, example};

    fn ev(quote: &str) -> ItemEvidence {
        ItemEvidence { chunk: 0, section: 3, file: "f".into(), heading_path: vec![], quote: quote.into() }
    }

    /// The statements of an item's stem.
    fn statements(i: &Item) -> Vec<&str> {
        i.question.lines().filter_map(|l| l.split_once(". ").filter(|(n, _)| NUMERALS.contains(n)).map(|(_, s)| s)).collect()
    }

    #[test]
    fn a_kinds_members_are_stated_with_one_of_another_kind() {
        let text = "যেসব পদার্থের মধ্য দিয়ে সহজে তাপ পরিবাহিত হয়, সেগুলো তাপের সুপরিবাহী; যেমন রুপা, তামা, অ্যালুমিনিয়াম, লোহা। আর যেসব পদার্থের মধ্য দিয়ে তাপ সহজে যেতে পারে না, তাদের বলা হয় তাপের কুপরিবাহী; যেমন কাঠ, প্লাস্টিক, কাচ, কাপড়, বায়ু।";
        let pool = example::examples(text, 3, &[]);
        let mut keys = std::collections::HashSet::new();
        for e in &pool {
            let i = from_list(e, &pool, ev(&e.sentence)).unwrap();
            keys.insert(i.answer_index);
            assert!(asks(&i.question));
            assert!(i.question.starts_with(&format!("{} উদাহরণ—\ni. ", genitive(&e.term))), "{}", i.question);
            assert_eq!(i.options, OPTIONS);
            assert_eq!(i.bloom, Bloom::Analyse);
            let said = statements(&i);
            assert_eq!(said.len(), 3);
            // The key's statements are the kind's members; any other is the other kind's.
            let other = pool.iter().find(|p| p.term != e.term).unwrap();
            for (j, s) in said.iter().enumerate() {
                let in_key = match i.answer_index {
                    0 => j != 2,
                    1 => j != 1,
                    2 => j != 0,
                    _ => true,
                };
                let list = if in_key { &e.examples } else { &other.examples };
                assert!(list.iter().any(|m| m == s), "{s} in {:?}: {}", list, i.question);
            }
            let (checks, reason) = check::deterministic(&i, &[], true);
            assert_eq!(reason, None, "{checks:?}\n{}", i.question);
            // Every wrong option's reason names a statement.
            for (k, r) in i.rationales.iter().enumerate() {
                if k != i.answer_index {
                    assert!(r.contains(" ঠিক নয়: বইয়ে ") || r.contains("-ও ঠিক: বইয়ে "), "{r}");
                }
            }
        }
        // A kind with one member states too little.
        let one = example::examples("যে ক্ষারক পানিতে দ্রবণীয়, তাকে ক্ষার বলে। যেমন চুনের পানি।", 4, &[]);
        let mut both = pool.clone();
        both.extend(one.clone());
        assert!(from_list(&one[0], &both, ev("q")).is_none());
    }

    #[test]
    fn a_tables_rows_are_stated_for_each_thing() {
        let table = "নিচের ছকে পার্থক্যগুলো দেখানো হলো:\n\nবিষয় | মাইটোসিস | মিয়োসিস\nকোথায় ঘটে | দেহকোষে | জননমাতৃকোষে\nঅপত্য কোষের সংখ্যা | দুটি | চারটি\nক্রসিং ওভার | ঘটে না | ঘটে\nক্রোমোসোম সংখ্যা | অপরিবর্তিত থাকে | অর্ধেক হয়";
        let c = &contrast::contrasts(table, 3)[0];
        assert_eq!(c.rows.len(), 4);
        for side in 0..2 {
            let i = from_table(c, side, ev(&table_quote(c, side).unwrap())).unwrap();
            let (x, y) = (&c.sides[side], &c.sides[1 - side]);
            assert!(i.question.starts_with(&format!("{} ক্ষেত্রে—\n", genitive(x))), "{}", i.question);
            let rows = rows(c, side).unwrap();
            for (j, s) in statements(&i).into_iter().enumerate() {
                let (aspect, values) = &c.rows[rows[j]];
                let holds = false_at(i.answer_index) != Some(j);
                assert_eq!(s, format!("{aspect}: {}", values[if holds { side } else { 1 - side }]), "{}", i.question);
            }
            let (checks, reason) = check::deterministic(&i, &[], true);
            assert_eq!(reason, None, "{checks:?}\n{}", i.question);
            if let Some(f) = false_at(i.answer_index) {
                let r = &i.rationales[i.answer_index];
                assert!(r.contains(&format!("{} ঠিক নয়: বইয়ের সারণিতে", NUMERALS[f])) && r.contains(y.as_str()), "{r}");
            }
        }
        assert_eq!(table_quote(c, 1).unwrap().lines().count(), 4, "the header and three rows");
        // Two rows state too little.
        let two = &contrast::contrasts("বিষয় | মাইটোসিস | মিয়োসিস\nকোথায় ঘটে | দেহকোষে | জননমাতৃকোষে\nঅপত্য কোষের সংখ্যা | দুটি | চারটি", 0)[0];
        assert!(from_table(two, 0, ev("q")).is_none());
    }

    #[test]
    fn each_key_position_states_its_false_statement_where_the_board_puts_it() {
        // The key "i ও iii" leaves out ii: ii is the false one; "i, ii ও iii": none.
        assert_eq!((0..4).map(false_at).collect::<Vec<_>>(), [Some(2), Some(1), Some(0), None]);
        let st = |holds: [bool; 3]| holds.iter().enumerate().map(|(j, &h)| Statement { text: format!("বাক্য {j}"), holds: h, why: format!("কারণ {j}") }).collect::<Vec<_>>();
        let i = item("লিড—", st([true, false, true]), 1, "সব".into(), vec![], ev("q")).unwrap();
        assert_eq!(i.rationales[1], "i ও iii ঠিক; ii ঠিক নয়: কারণ 1।");
        assert_eq!(i.rationales[0], "ii ঠিক নয়: কারণ 1।");
        assert_eq!(i.rationales[2], "ii ঠিক নয়: কারণ 1।");
        assert_eq!(i.rationales[3], "ii ঠিক নয়: কারণ 1।");
        let i = item("লিড—", st([true, true, true]), 3, "সব আছে".into(), vec![], ev("q")).unwrap();
        assert_eq!(i.rationales, ["iii-ও ঠিক: কারণ 2।", "ii-ও ঠিক: কারণ 1।", "i-ও ঠিক: কারণ 0।", "তিনটিই ঠিক: সব আছে।"]);
        assert_eq!(i.question, "লিড—\ni. বাক্য 0\nii. বাক্য 1\niii. বাক্য 2\nনিচের কোনটি সঠিক?");
        assert_eq!(claimed(&i.question, 3).unwrap(), "লিড— বাক্য 0 বাক্য 1 বাক্য 2");
        assert_eq!(claimed(&i.question, 1).unwrap(), "লিড— বাক্য 0 বাক্য 2");
        assert_eq!(claimed("নিচের কোনটি তাপের সুপরিবাহী?", 1), None);
    }
}
