//! "Which is a member of this kind?" items from the members the book lists
//! (`agent::quiz::example`), "how do these two differ?" items from its comparison tables
//! (`agent::quiz::contrast`) and "which of these three hold?" items on both
//! (`agent::quiz::completion`) on a small Bangla course: a Bangla quiz at Understand alternates
//! the first two with "why" items and climbs to the third after a right answer, a teacher's
//! beginner Bangla MCQs alternate members with definitions, intermediate ones table rows with
//! reasons and advanced ones the third on lists and on tables (then "is a classmate's answer
//! right?", `agent::quiz::judge`, on reasons and rows), and each item's wrong options are
//! the other side of the contrast the book draws, through the gates; the model writes and judges
//! none of it.
//! (The chapter was written for this test; the held-out reading is in docs/EVALUATION.md,
//! "Quiz".)

mod common;
use inference::agent::author::{self, AuthorConfig, AuthorEnv, AuthorRequest, Body, Difficulty, Made as Authored, Prepared, Task};
use inference::agent::quiz::{Bloom, Branch, Item, Made, Quiz, QuizConfig, QuizEnv, Subtopic, completion, judge};
use inference::bundle::{Bundle, CourseInfo};
use inference::corpus::{Block, BlockKind, Document};
use inference::llm::{LoadOptions, Session, now};
use std::sync::Arc;

const MODEL: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

fn bundle() -> Bundle {
    let para = |t: &str, line| Block::new(BlockKind::Paragraph, t, line);
    let heat = vec![
        Block::new(BlockKind::Heading(1), "অধ্যায় ৬: তাপ ও বল", 1),
        Block::new(BlockKind::Heading(2), "তাপ পরিবহন", 2),
        para("যেসব পদার্থের মধ্য দিয়ে সহজে তাপ পরিবাহিত হয়, সেগুলো তাপের সুপরিবাহী; যেমন রুপা, তামা, অ্যালুমিনিয়াম, লোহা। ধাতুতে মুক্ত ইলেকট্রন থাকে বলে এরা তাপ ভালো পরিবহন করে।", 3),
        para("আর যেসব পদার্থের মধ্য দিয়ে তাপ সহজে যেতে পারে না, তাদের বলা হয় তাপের কুপরিবাহী; যেমন কাঠ, প্লাস্টিক, কাচ, কাপড়। রান্নার পাতিলের হাতল কাঠের হয়, কারণ কাঠ তাপের কুপরিবাহী।", 4),
        para("শীতে লেপ আমাদের উষ্ণ রাখে, কারণ তুলার ফাঁকে আটকে থাকা বায়ু শরীরের তাপ বাইরে যেতে দেয় না।", 5),
        Block::new(BlockKind::Heading(2), "বলের প্রকারভেদ", 6),
        para("দুটি বস্তু পরস্পরকে ছুঁয়ে থাকলে যে বল কাজ করে, তাকে স্পর্শ বল বলে। যেমন পেশিজ বল, ঘর্ষণ বল, টান বল।", 7),
        para("দূর থেকে, কোনো স্পর্শ ছাড়াই যে বল কাজ করে, তাকে অস্পর্শ বল বলা হয়। যেমন মহাকর্ষ বল, চৌম্বক বল, স্থির বৈদ্যুতিক বল।", 8),
        para("বরফের ওপর হাঁটা কঠিন, কারণ বরফের মসৃণ তলে ঘর্ষণ বল খুব কম থাকে।", 9),
        para("দুটি তলের আপেক্ষিক গতিতে বাধা দেয় যে বল, তাকে ঘর্ষণ বল বলে। তাপ পরিমাপের যন্ত্রকে থার্মোমিটার বলে।", 10),
    ];
    let table = vec![
        Block::new(BlockKind::Heading(1), "অধ্যায় ৭: কোষ বিভাজন", 1),
        para("মাইটোসিস বিভাজনে একটি কোষ থেকে দুটি অপত্য কোষ তৈরি হয়, তাই একে সমীকরণিক বিভাজন বলে। দেহের বৃদ্ধি ঘটে, কারণ দেহকোষ মাইটোসিস প্রক্রিয়ায় বিভাজিত হয়।", 2),
        para("জননকোষে ক্রোমোজোম সংখ্যা অর্ধেক থাকে, কারণ জননমাতৃকোষ মিয়োসিস প্রক্রিয়ায় বিভাজিত হয়। ক্রসিং ওভারের ফলে সন্তানদের মধ্যে বৈচিত্র্য দেখা যায়।", 3),
        para("নিচের ছকে দুটি বিভাজনের পার্থক্য দেখানো হলো:", 4),
        Block::new(BlockKind::Table, "বিষয় | মাইটোসিস | মিয়োসিস\nকোথায় ঘটে | দেহকোষে | জননমাতৃকোষে\nঅপত্য কোষের সংখ্যা | দুটি | চারটি\nক্রসিং ওভার | ঘটে না | ঘটে\nক্রোমোজোম সংখ্যা | মাতৃকোষের সমান | মাতৃকোষের অর্ধেক", 5),
    ];
    let docs = vec![Document { file: "science-bn/06-heat-force.md".into(), blocks: heat }, Document { file: "science-bn/07-cell-division.md".into(), blocks: table }];
    common::lexical_bundle("Bangla test course", &docs, CourseInfo { subjects: vec!["school science (Class 8)".into()], lang: Some("bn".into()) })
}

/// Whether each of a multiple-completion item's statements holds as the book says: of its key
/// (the board's combinations: "i ও iii" leaves out ii), each names a member its list gives or
/// a value its table gives the thing the stem names; the one left out does not.
fn statements_hold_as_the_book_says(item: &Item) {
    assert!(completion::asks(&item.question), "{}", item.question);
    assert_eq!(item.bloom, Bloom::Analyse);
    assert_eq!(item.options, completion::OPTIONS);
    let lines: Vec<&str> = item.question.lines().collect();
    let lead = lines[0];
    let quote = &item.evidence[0].quote;
    let key = [[0, 1].as_slice(), &[0, 2], &[1, 2], &[0, 1, 2]][item.answer_index];
    for (j, line) in lines[1..4].iter().enumerate() {
        let statement = line.split_once(". ").unwrap().1;
        let holds = match statement.split_once(": ") {
            // A table's row: the value in the column of the thing the lead names.
            Some((aspect, value)) => {
                let header: Vec<&str> = quote.lines().next().unwrap().split(" | ").collect();
                let side = (1..3).find(|&k| lead.starts_with(header[k])).expect("the lead names a thing compared");
                let row: Vec<&str> = quote.lines().find(|l| l.starts_with(&format!("{aspect} | "))).expect("the book's row").split(" | ").collect();
                assert!(row[1..].contains(&value), "{value} is one of the row's values: {row:?}");
                row[side] == value
            }
            // A list's member: in the sentence the item rests on, or a member of another kind.
            None => quote.contains(statement),
        };
        assert_eq!(holds, key.contains(&j), "statement {} ({statement}) against the key {:?}: {}", j + 1, item.options[item.answer_index], item.question);
    }
}

#[test]
fn a_bangla_quiz_asks_which_is_a_member_among_the_other_sides() {
    let Some(bytes) = common::model_bytes(MODEL) else { return };
    let mut session = Session::load(Arc::new(bytes), &LoadOptions::quantized(Session::CONTEXT)).expect("the model loads");
    let b = bundle();
    let cfg = QuizConfig { min_passage_chars: 40, ..QuizConfig::default() };
    let mut env = QuizEnv { bundle: &b, encoder: None, session: &mut session };
    let subtopic = Subtopic { section: 0, name: b.sections[0].heading().to_string(), heading_path: b.sections[0].heading_path.clone() };
    let mut quiz = now(Quiz::start(&env, "তাপ ও বল", subtopic, None, &cfg)).unwrap();
    assert_eq!((quiz.language.as_str(), quiz.start), ("Bangla", Bloom::Understand));
    let evaluated = env.session.evaluated();
    let (mut members, mut whys, mut kinds, mut order, mut accepted) = (0, 0, Vec::new(), Vec::new(), 0);
    // Right every time: Understand and up, where a Bangla book's items are "why" and members,
    // and above it which statements on a list or a table hold.
    let mut branch = Branch::First;
    while let Some(plan) = quiz.plan(branch, &cfg) {
        let Some(Made::Item { item, validation }) = common::make_or_replan(&mut quiz, &mut env, plan, &cfg) else { break };
        assert!(validation.passed, "{validation:?}");
        if judge::asks(&item.question) {
            accepted += usize::from(corrects_with_the_books_answer(&item, &validation));
            order.push("judge");
        } else if completion::asks(&item.question) {
            statements_hold_as_the_book_says(&item);
            assert!(validation.by_example || validation.by_contrast, "{validation:?}");
            if validation.by_example {
                kinds.push(item.question.lines().next().unwrap().to_string());
            }
            order.push("completion");
        } else if validation.by_example {
            members += 1;
            assert_eq!(item.bloom, Bloom::Understand);
            let kind = item.question.strip_prefix("নিচের কোনটি ").and_then(|q| q.strip_suffix('?')).expect("the board's shape").to_string();
            let key = &item.options[item.answer_index];
            assert!(item.evidence[0].quote.contains(key.as_str()), "the book lists the key");
            // Every wrong option is a member the book lists for the other side of the contrast.
            let other = match kind.as_str() {
                "তাপের সুপরিবাহী" => ["কাঠ", "প্লাস্টিক", "কাচ", "কাপড়"].as_slice(),
                "তাপের কুপরিবাহী" => &["রুপা", "তামা", "অ্যালুমিনিয়াম", "লোহা"],
                "স্পর্শ বল" => &["মহাকর্ষ বল", "চৌম্বক বল", "স্থির বৈদ্যুতিক বল"],
                "অস্পর্শ বল" => &["পেশিজ বল", "ঘর্ষণ বল", "টান বল"],
                k => panic!("no such kind in the book: {k}"),
            };
            for (i, o) in item.options.iter().enumerate().filter(|&(i, _)| i != item.answer_index) {
                assert!(other.contains(&o.as_str()), "{o} in {:?}", item.options);
                assert!(item.rationales[i].contains(&format!("{} উদাহরণে নয়: “", inference::agent::quiz::contrast::genitive(&kind))), "{}", item.rationales[i]);
            }
            kinds.push(kind);
            order.push("member");
        } else if validation.by_reason {
            whys += 1;
            order.push("why");
        } else if validation.by_contrast {
            order.push("row");
        } else {
            // A passage that only defines: its definition, whatever the level.
            assert!(validation.by_definition, "{validation:?}");
            order.push("definition");
        }
        quiz.show(item, validation);
        let key = quiz.current().unwrap().item.answer_index;
        assert!(quiz.answer(key).unwrap().correct);
        branch = Branch::Right;
    }
    assert_eq!(env.session.evaluated(), evaluated, "the model read nothing");
    assert_eq!(kinds.len(), 4, "each list asked once: {kinds:?}");
    // The kind asked less comes first at Understand: "why" (first in a tie); after a right
    // answer, which statements hold (an Analyse item, planned at Apply); after that, at
    // Evaluate and up, whether a classmate's answer is right, while reasons and rows last;
    // then the rest.
    assert_eq!(order[..3], ["why", "completion", "judge"], "{order:?}");
    let count = |kind: &str| order.iter().filter(|&&o| o == kind).count();
    assert!(whys >= 1 && count("completion") >= 2 && count("judge") >= 3, "{whys} why items, {members} member items: {order:?}");
    // Some classmates are right, not all: accepting the answer is no give-away either way.
    assert!(accepted < count("judge"), "{accepted} of {} judge items accept the answer", count("judge"));
}

/// Whether a "judge" item's key accepts the classmate's answer where it is the book's, and
/// else corrects it with the book's: a reason as the sentence gives it, or a row's two values
/// in the table's order.
fn corrects_with_the_books_answer(item: &Item, validation: &inference::agent::quiz::Validation) -> bool {
    assert_eq!(item.bloom, Bloom::Evaluate);
    const ACCEPT: &str = "ঠিক; বইয়েও তা-ই আছে";
    let said = item.question.split_once("লিখেছে: “").unwrap().1.split_once('”').unwrap().0;
    let accepted = item.options[item.answer_index] == ACCEPT;
    let key = if accepted { said } else { item.options[item.answer_index].strip_prefix("ঠিক নয়; উত্তর হবে: ").expect("the key corrects the answer") };
    assert!(accepted || said != key, "{}", item.question);
    assert!(item.options.contains(&ACCEPT.to_string()), "{:?}", item.options);
    // No correction repeats the book's answer where the key accepts it.
    assert!(!accepted || !item.options.iter().any(|o| o.strip_prefix("ঠিক নয়; উত্তর হবে: ") == Some(key)), "{:?}", item.options);
    let quote = &item.evidence[0].quote;
    if validation.by_reason {
        assert!(quote.contains(key), "{key} in {quote}");
    } else {
        assert!(validation.by_contrast, "{validation:?}");
        let row: Vec<&str> = quote.lines().nth(1).unwrap().split(" | ").collect();
        assert_eq!(key, format!("{} ও {}", row[1], row[2]), "{}", item.question);
    }
    accepted
}

#[test]
fn beginner_bangla_mcqs_alternate_definitions_and_members() {
    let Some(bytes) = common::model_bytes(MODEL) else { return };
    let mut session = Session::load(Arc::new(bytes), &LoadOptions::quantized(Session::CONTEXT)).expect("the model loads");
    let b = bundle();
    let cfg = AuthorConfig::default();
    let mut env = AuthorEnv { bundle: &b, encoder: None, session: &mut session };
    let request = AuthorRequest { text: String::new(), query: "তাপ ও বল".into(), sections: vec![], mcq: 4, cq: 0, difficulty: Difficulty::Beginner, lang: None, avoid: Default::default() };
    let Prepared::Ready(mut job) = now(author::prepare(&mut env, request, &cfg)).unwrap() else { panic!("the topic is covered") };
    let evaluated = env.session.evaluated();
    let mut made = Vec::new();
    for _ in 0..4 {
        match now(job.make(&mut env, Task::Mcq, &cfg)).unwrap() {
            Authored::Item(mut item) => {
                assert!(item.gates.values().all(|&ok| ok), "{:?}", item.gates);
                let Body::Mcq(mcq) = &item.body else { panic!("an MCQ") };
                made.push((item.by_definition, item.by_example, mcq.question.clone()));
                if item.by_example {
                    // Verified without the judge (the key is a member the book lists), accepted.
                    now(job.verify(&mut env, &mut item, &cfg)).unwrap();
                    let v = item.verification.as_ref().unwrap();
                    assert!(v.accepted && v.faithfulness == 1.0, "{v:?}");
                }
            }
            Authored::Missing { reason, .. } => panic!("{reason}: {made:#?}"),
        }
    }
    assert_eq!(env.session.evaluated(), evaluated, "the model wrote and judged nothing");
    // A definition first, then a member, in turn while both last.
    let kinds: Vec<(bool, bool)> = made.iter().map(|m| (m.0, m.1)).collect();
    assert_eq!(kinds[..2], [(true, false), (false, true)], "{made:#?}");
    assert!(kinds.iter().all(|&(d, e)| d != e), "{made:#?}");
}

#[test]
fn intermediate_bangla_mcqs_alternate_reasons_and_the_rows_of_a_comparison_table() {
    let Some(bytes) = common::model_bytes(MODEL) else { return };
    let mut session = Session::load(Arc::new(bytes), &LoadOptions::quantized(Session::CONTEXT)).expect("the model loads");
    let b = bundle();
    let cfg = AuthorConfig::default();
    let mut env = AuthorEnv { bundle: &b, encoder: None, session: &mut session };
    let request = AuthorRequest { text: String::new(), query: "মাইটোসিস ও মিয়োসিস".into(), sections: vec![], mcq: 4, cq: 0, difficulty: Difficulty::Intermediate, lang: None, avoid: Default::default() };
    let Prepared::Ready(mut job) = now(author::prepare(&mut env, request, &cfg)).unwrap() else { panic!("the topic is covered") };
    let evaluated = env.session.evaluated();
    let mut made = Vec::new();
    for _ in 0..4 {
        match now(job.make(&mut env, Task::Mcq, &cfg)).unwrap() {
            Authored::Item(mut item) => {
                assert!(item.gates.values().all(|&ok| ok), "{:?}", item.gates);
                let Body::Mcq(mcq) = item.body.clone() else { panic!("an MCQ") };
                if item.by_contrast {
                    // The book's pairing is the key; the three others pair the two values otherwise.
                    assert!(mcq.question.starts_with("মাইটোসিস ও মিয়োসিস") && mcq.question.contains(" যথাক্রমে"), "{}", mcq.question);
                    let key = &mcq.options[mcq.answer_index];
                    assert!(item.sources[0].quote.ends_with(&key.replace(" ও ", " | ")), "the row's two cells in order: {key}");
                    assert_eq!(mcq.options.iter().filter(|o| o.starts_with("উভয় ক্ষেত্রেই ")).count(), 2);
                    assert!(item.sources[0].quote.starts_with("বিষয় | মাইটোসিস | মিয়োসিস\n"));
                    now(job.verify(&mut env, &mut item, &cfg)).unwrap();
                    let v = item.verification.as_ref().unwrap();
                    assert!(v.accepted && v.faithfulness == 1.0, "{v:?}");
                }
                made.push((item.by_reason, item.by_contrast, mcq.question.clone()));
            }
            Authored::Missing { reason, .. } => panic!("{reason}: {made:#?}"),
        }
    }
    assert_eq!(env.session.evaluated(), evaluated, "the model wrote and judged nothing");
    // A reason first, then a row, in turn while both last.
    let kinds: Vec<(bool, bool)> = made.iter().map(|m| (m.0, m.1)).collect();
    assert_eq!(kinds[..2], [(true, false), (false, true)], "{made:#?}");
    assert!(kinds.iter().all(|&(r, c)| r != c), "{made:#?}");
}

/// An authored MCQ as the quiz shows it, resting on `quote`.
fn as_shown(mcq: &author::Mcq, quote: &str, bloom: Bloom) -> Item {
    Item {
        question: mcq.question.clone(),
        options: mcq.options.clone(),
        answer_index: mcq.answer_index,
        rationales: mcq.rationales.clone(),
        bloom,
        concepts: vec![],
        evidence: vec![inference::agent::quiz::ItemEvidence { chunk: 0, section: 0, file: String::new(), heading_path: vec![], quote: quote.to_string() }],
    }
}

#[test]
fn advanced_bangla_mcqs_ask_which_statements_hold_then_judge_a_classmates_answer() {
    let Some(bytes) = common::model_bytes(MODEL) else { return };
    let mut session = Session::load(Arc::new(bytes), &LoadOptions::quantized(Session::CONTEXT)).expect("the model loads");
    let b = bundle();
    let cfg = AuthorConfig::default();
    let mut env = AuthorEnv { bundle: &b, encoder: None, session: &mut session };
    let evaluated = env.session.evaluated();
    // The heat and force chapter lists members of kinds; the cell division one has a table,
    // whose two things give one item each, and reasons: after those two, a classmate's answer
    // to a row and to a reason.
    for (topic, from_table, n) in [("তাপ ও বল", false, 2), ("মাইটোসিস ও মিয়োসিস", true, 5)] {
        let request = AuthorRequest { text: String::new(), query: topic.into(), sections: vec![], mcq: n, cq: 0, difficulty: Difficulty::Advanced, lang: None, avoid: Default::default() };
        let Prepared::Ready(mut job) = now(author::prepare(&mut env, request, &cfg)).unwrap() else { panic!("the topic is covered") };
        let (mut leads, mut judged) = (Vec::new(), Vec::new());
        for _ in 0..n {
            match now(job.make(&mut env, Task::Mcq, &cfg)).unwrap() {
                Authored::Item(mut item) => {
                    assert!(item.gates.values().all(|&ok| ok), "{:?}", item.gates);
                    let Body::Mcq(mcq) = item.body.clone() else { panic!("an MCQ") };
                    if leads.len() < 2 {
                        assert_eq!((item.by_example, item.by_contrast), (!from_table, from_table));
                        statements_hold_as_the_book_says(&as_shown(&mcq, &item.sources[0].quote, Bloom::Analyse));
                        leads.push(mcq.question.lines().next().unwrap().to_string());
                    } else {
                        assert!(judge::asks(&mcq.question), "{}", mcq.question);
                        let validation = inference::agent::quiz::Validation { by_reason: item.by_reason, by_contrast: item.by_contrast, ..Default::default() };
                        let _ = corrects_with_the_books_answer(&as_shown(&mcq, &item.sources[0].quote, Bloom::Evaluate), &validation);
                        judged.push(if item.by_reason { "why" } else { "row" });
                    }
                    // Verified without the judge, and fit for the level (several steps).
                    now(job.verify(&mut env, &mut item, &cfg)).unwrap();
                    let v = item.verification.as_ref().unwrap();
                    assert!(v.accepted && v.faithfulness == 1.0 && v.detail.level == 1.0, "{}: {v:?}", mcq.question);
                }
                Authored::Missing { reason, .. } => panic!("{topic}: {reason}: {leads:?} {judged:?}"),
            }
        }
        leads.sort();
        if from_table {
            assert_eq!(leads, ["মাইটোসিসের ক্ষেত্রে—", "মিয়োসিসের ক্ষেত্রে—"]);
            assert!(judged.contains(&"why") && judged.contains(&"row"), "{judged:?}");
        } else {
            assert!(leads.iter().all(|l| l.ends_with(" উদাহরণ—")) && leads[0] != leads[1], "{leads:?}");
        }
    }
    assert_eq!(env.session.evaluated(), evaluated, "the model wrote and judged nothing");
}
