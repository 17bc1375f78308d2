//! Recall items from the book's own definitions (`agent::quiz::define`) on a small Bangla course:
//! a Bangla quiz shows only such items, each asking for a term the chapter defines, with three
//! other defined terms as wrong options and the book's sentences as reasons, and the model writes
//! none of it; a teacher's beginner MCQs in Bangla come out the same way, through the gates.
//! (The chapter was written for this test; the held-out quality figures are in
//! docs/EVALUATION.md, "Quiz".)

mod common;
use inference::agent::author::{self, AuthorConfig, AuthorEnv, AuthorRequest, Body, Difficulty, Made as Authored, Prepared, Task};
use inference::agent::quiz::{Bloom, Branch, Made, Quiz, QuizConfig, QuizEnv, Subtopic};
use inference::agent::route::Lang;
use inference::bundle::{Bundle, CourseInfo};
use inference::corpus::{Block, BlockKind, Document};
use inference::llm::{LoadOptions, Session, now};
use std::sync::Arc;

const MODEL: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

fn bundle() -> Bundle {
    let para = |t: &str, line| Block::new(BlockKind::Paragraph, t, line);
    let water = vec![
        Block::new(BlockKind::Heading(1), "অধ্যায় ৩: পানির অবস্থান্তর", 1),
        para("পানি কঠিন, তরল ও গ্যাস তিন অবস্থাতেই থাকতে পারে। তাপ দিলে বা তাপ সরালে পানির অবস্থা বদলে যায়।", 2),
        Block::new(BlockKind::Heading(2), "বাষ্পীভবন", 3),
        para("যে প্রক্রিয়ায় তরল পানি তাপ পেয়ে ধীরে ধীরে বাষ্পে পরিণত হয়, তাকে বাষ্পীভবন বলে। রোদে ভেজা কাপড় শুকানো বাষ্পীভবনের একটি উদাহরণ।", 4),
        para("তরলকে তাপ দিতে থাকলে যে নির্দিষ্ট তাপমাত্রায় তা ফুটতে শুরু করে, তাকে স্ফুটনাঙ্ক বলা হয়। সমুদ্রপৃষ্ঠে পানির স্ফুটনাঙ্ক ১০০ ডিগ্রি সেলসিয়াস।", 5),
        Block::new(BlockKind::Heading(2), "ঘনীভবন", 6),
        para("জলীয় বাষ্প ঠান্ডা হয়ে আবার পানির ফোঁটায় পরিণত হওয়ার প্রক্রিয়াকে ঘনীভবন বলে। শীতের সকালে ঘাসের ওপর জমে থাকা পানির ফোঁটা ঘনীভবনের ফল।", 7),
        para("ঘাসের ডগায় ভোরবেলা জমে থাকা এই পানির ফোঁটাকে শিশির বলে। এই শিশিরকেই এলাকাভেদে শিশিরবিন্দু বলা হয়।", 8),
        Block::new(BlockKind::Heading(2), "গলন ও হিমায়ন", 9),
        para("যে নির্দিষ্ট তাপমাত্রায় কোনো কঠিন পদার্থ গলে তরলে পরিণত হয়, সেটিই গলনাঙ্ক। বরফের গলনাঙ্ক শূন্য ডিগ্রি সেলসিয়াস।", 10),
        para("তরল পানি ঠান্ডা হয়ে বরফে পরিণত হওয়ার প্রক্রিয়াকে বলা হয় হিমায়ন। ফ্রিজে পানি রাখলে হিমায়ন ঘটে।", 11),
        para("ঊর্ধ্বপাতন হলো কঠিন পদার্থের তরলে পরিণত না হয়ে সরাসরি বাষ্পে পরিণত হওয়ার প্রক্রিয়া। কর্পূর ও ন্যাপথলিনের ঊর্ধ্বপাতন ঘটে।", 12),
    ];
    let docs = vec![Document { file: "science-bn/03-water.md".into(), blocks: water }];
    common::lexical_bundle("Bangla test course", &docs, CourseInfo { subjects: vec!["school science (Class 8)".into()], lang: Some("bn".into()) })
}

#[test]
fn a_bangla_quiz_asks_the_books_definitions_without_the_model() {
    let Some(bytes) = common::model_bytes(MODEL) else { return };
    let mut session = Session::load(Arc::new(bytes), &LoadOptions::quantized(Session::CONTEXT)).expect("the model loads");
    let b = bundle();
    let cfg = QuizConfig { min_passage_chars: 40, ..QuizConfig::default() };
    assert!(!cfg.writes("Bangla") && cfg.writes("English"));
    let mut env = QuizEnv { bundle: &b, encoder: None, session: &mut session };
    let root = 0;
    let subtopic = Subtopic { section: root, name: b.sections[0].heading().to_string(), heading_path: b.sections[0].heading_path.clone() };
    let mut quiz = now(Quiz::start(&env, "পানির অবস্থান্তর", subtopic, Some(Bloom::Understand), &cfg)).unwrap();
    assert_eq!(quiz.language, "Bangla");
    assert!(!quiz.passages.is_empty());
    let evaluated = env.session.evaluated();
    let (mut branch, mut shown, mut keys) = (Branch::First, 0, Vec::new());
    while let Some(plan) = quiz.plan(branch, &cfg) {
        let Some(Made::Item { item, validation }) = common::make_or_replan(&mut quiz, &mut env, plan, &cfg) else { break };
        assert!(validation.passed && validation.by_definition, "{validation:?}");
        assert_eq!(item.bloom, Bloom::Remember, "a definition is recall, whatever level was planned");
        assert_eq!(item.options.len(), 4);
        let key = &item.options[item.answer_index];
        assert!(!item.question.contains(key.as_str()), "the stem does not name its answer: {}", item.question);
        assert!(item.evidence[0].quote.contains(key.as_str()), "the key is the term the quoted sentence defines");
        assert!(item.rationales[item.answer_index].starts_with("বইয়ে আছে"), "{}", item.rationales[item.answer_index]);
        for (i, o) in item.options.iter().enumerate().filter(|&(i, _)| i != item.answer_index) {
            assert!(item.rationales[i].contains(&format!("উত্তর {o} নয়")), "{}", item.rationales[i]);
        }
        assert!(!keys.contains(key), "no definition is asked twice");
        keys.push(key.clone());
        quiz.show(item, validation);
        shown += 1;
        // Right, wrong, right …: adaptation plans other levels; the items stay recall.
        let right = shown % 2 == 1;
        let answer = if right { quiz.current().unwrap().item.answer_index } else { (quiz.current().unwrap().item.answer_index + 1) % 4 };
        assert_eq!(quiz.answer(answer).unwrap().correct, right);
        branch = if right { Branch::Right } else { Branch::Wrong };
    }
    assert_eq!(env.session.evaluated(), evaluated, "the model read nothing");
    keys.sort();
    // Seven terms defined in six shapes, each asked once, though two passages define two each
    // ("ঊর্ধ্বপাতন হলো …" counts because the chapter names ঊর্ধ্বপাতন again).
    assert_eq!(keys, ["ঊর্ধ্বপাতন", "গলনাঙ্ক", "ঘনীভবন", "বাষ্পীভবন", "শিশির", "স্ফুটনাঙ্ক", "হিমায়ন"]);
}

#[test]
fn a_beginners_bangla_mcq_is_the_books_definition() {
    let Some(bytes) = common::model_bytes(MODEL) else { return };
    let mut session = Session::load(Arc::new(bytes), &LoadOptions::quantized(Session::CONTEXT)).expect("the model loads");
    let b = bundle();
    let cfg = AuthorConfig::default();
    let mut env = AuthorEnv { bundle: &b, encoder: None, session: &mut session };
    let request = AuthorRequest { text: String::new(), query: "ঘনীভবন ও বাষ্পীভবন".into(), sections: vec![], mcq: 2, cq: 0, difficulty: Difficulty::Beginner, lang: None, avoid: Default::default() };
    let Prepared::Ready(mut job) = now(author::prepare(&mut env, request, &cfg)).unwrap() else { panic!("the topic is covered") };
    assert_eq!(job.language, Lang::Bn);
    let evaluated = env.session.evaluated();
    let mut questions = Vec::new();
    for _ in 0..2 {
        let Authored::Item(item) = now(job.make(&mut env, Task::Mcq, &cfg)).unwrap() else { panic!("the evidence defines terms") };
        assert!(item.by_definition);
        assert!(item.gates.values().all(|&ok| ok), "{:?}", item.gates);
        let Body::Mcq(mcq) = &item.body else { panic!("an MCQ") };
        assert!(item.sources[0].quote.contains(mcq.options[mcq.answer_index].as_str()));
        questions.push(mcq.question.clone());
    }
    assert_ne!(questions[0], questions[1]);
    assert_eq!(env.session.evaluated(), evaluated, "the model wrote nothing");
}
