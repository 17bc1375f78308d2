//! "Which of these statements is true?" recall items (`agent::quiz::statement`) on a small English
//! course that defines no term: after wrong answers the quiz steps down to Remember and asks
//! them, the model writing none; each key is a sentence of the book, each wrong option a
//! sentence of the book with one word turned, which the book does not say, and its reason quotes
//! the book's sentence. (The chapter was written for this test; the held-out quality figures are
//! in docs/EVALUATION.md, "Quiz".)

mod common;
use inference::agent::quiz::{Bloom, Branch, Made, Quiz, QuizConfig, QuizEnv, Subtopic};
use inference::llm::{LoadOptions, Session, now};
use std::sync::Arc;

const MODEL: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";


#[test]
fn a_recall_item_without_a_definition_asks_which_of_the_books_claims_holds() {
    let Some(bytes) = common::model_bytes(MODEL) else { return };
    let mut session = Session::load(Arc::new(bytes), &LoadOptions::quantized(Session::CONTEXT)).expect("the model loads");
    let b = common::claims_course();
    let book: Vec<String> = b.sections.iter().flat_map(|s| s.text.split(". ").map(|t| t.trim_end_matches('.').to_string())).collect();
    let said = |t: &str| book.iter().any(|s| s == t.trim_end_matches('.'));
    let cfg = QuizConfig { min_passage_chars: 40, ..QuizConfig::default() };
    assert!(cfg.writes("English"));
    let mut env = QuizEnv { bundle: &b, encoder: None, session: &mut session };
    let root = 0;
    let subtopic = Subtopic { section: root, name: b.sections[0].heading().to_string(), heading_path: b.sections[0].heading_path.clone() };
    let mut quiz = now(Quiz::start(&env, "lists and tuples", subtopic, Some(Bloom::Remember), &cfg)).unwrap();
    assert_eq!(quiz.language, "English");
    let evaluated = env.session.evaluated();
    let mut keys = Vec::new();
    // A learner who is always wrong stays at Remember, where these items are asked.
    let mut branch = Branch::First;
    for _ in 0..3 {
        let Some(plan) = quiz.plan(branch, &cfg) else { break };
        assert_eq!(plan.bloom, Bloom::Remember);
        let Some(Made::Item { item, validation }) = common::make_or_replan(&mut quiz, &mut env, plan, &cfg) else { break };
        assert!(validation.passed && validation.by_statement, "{validation:?}");
        assert_eq!(item.bloom, Bloom::Remember);
        assert!(item.question.ends_with("which of these statements is true?"), "{}", item.question);
        let key = item.options[item.answer_index].clone();
        assert!(said(&key), "the key is the book's sentence: {key}");
        for (i, o) in item.options.iter().enumerate().filter(|&(i, _)| i != item.answer_index) {
            assert!(!said(o), "a wrong option is not what the book says: {o}");
            let quoted = item.rationales[i].split('“').nth(1).and_then(|r| r.split('”').next()).unwrap_or_default();
            assert!(said(quoted), "its reason quotes the book's sentence: {}", item.rationales[i]);
        }
        assert!(!keys.contains(&key), "no claim is the key twice");
        keys.push(key);
        quiz.show(item, validation);
        let wrong = (quiz.current().unwrap().item.answer_index + 1) % 4;
        assert!(!quiz.answer(wrong).unwrap().correct);
        branch = Branch::Wrong;
    }
    assert_eq!(keys.len(), 3, "three such items: {keys:?}");
    assert_eq!(env.session.evaluated(), evaluated, "the model read nothing");
}
