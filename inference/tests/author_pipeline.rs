//! Authoring end to end on a small course with a real model (SmolLM2-135M: the machinery, not
//! the quality, which tests/eval measures with Qwen): bad requests are refused before any model
//! call, harmful, off-topic, vague and uncovered requests write nothing, and a real request gives
//! exactly what was asked for as items or reported shortfalls, every item with its gates, its
//! ladder rung, its evidence and a verification report, exported in three formats that parse.

mod common;
use inference::agent::author::{self, AuthorConfig, AuthorEnv, AuthorError, AuthorRequest, Body, Difficulty, Ladder, Made, Prepared, Task, export, gates};
use inference::agent::route::Lang;
use inference::bundle::{Bundle, CourseInfo};
use inference::corpus::{Block, BlockKind, Document};
use inference::llm::{LoadOptions, Session, now};
use std::sync::Arc;

const MODEL: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

fn bundle() -> Bundle {
    let para = |t: &str, line| Block::new(BlockKind::Paragraph, t, line);
    let lists = vec![
        Block::new(BlockKind::Heading(1), "Lists", 1),
        para("A list holds items in order, written in square brackets: numbers = [3, 1, 2]. Lists are mutable: an item can be changed in place, as in numbers[0] = 7. The len function returns how many items a list holds.", 2),
        Block::new(BlockKind::Heading(2), "Sorting", 3),
        para("The sort method sorts a list in place and returns None, so x = numbers.sort() leaves x equal to None. The built-in function sorted returns a new sorted list and leaves the original unchanged. Both take reverse=True to sort from the largest item to the smallest.", 4),
    ];
    let science = vec![
        Block::new(BlockKind::Heading(1), "Photosynthesis", 1),
        para("Green plants make glucose from carbon dioxide and water using the energy of sunlight; chlorophyll in the leaves absorbs the light and oxygen is given off. Without light a plant cannot make its food and its leaves turn pale.", 2),
    ];
    let docs = vec![Document { file: "lists.md".into(), blocks: lists }, Document { file: "science.md".into(), blocks: science }];
    common::lexical_bundle("Author test course", &docs, CourseInfo { subjects: vec!["introductory Python programming".into(), "school science".into()], lang: Some("en".into()) })
}

fn request(query: &str, mcq: usize, cq: usize) -> AuthorRequest {
    AuthorRequest { text: String::new(), query: query.into(), sections: vec![], mcq, cq, difficulty: Difficulty::Beginner, lang: None, avoid: Default::default() }
}

#[test]
fn bad_requests_are_refused_before_any_model_work() {
    let b = bundle();
    let cfg = AuthorConfig::default();
    let bad = |r: AuthorRequest| match author::check_request(&b, &r, &cfg) {
        Err(AuthorError::BadInput(m)) => m,
        other => panic!("{other:?}"),
    };
    assert!(bad(request("sorting", 0, 0)).contains("at least one"));
    assert!(bad(request("sorting", 500, 0)).contains("At most 20 MCQs"));
    assert!(bad(request("sorting", 0, 9)).contains("At most 5 creative"));
    assert!(bad(request("  ", 2, 0)).contains("Type a topic"));
    assert!(bad(AuthorRequest { sections: vec![99], ..request("", 1, 0) }).contains("not in this course"));
    assert!(author::check_request(&b, &request("sorting", 5, 1), &cfg).is_ok());
}

#[test]
fn a_request_gives_what_it_asked_for_checked_or_reported() {
    let Some(bytes) = common::model_bytes(MODEL) else { return };
    let mut session = Session::load(Arc::new(bytes), &LoadOptions::quantized(Session::CONTEXT)).expect("the model loads");
    // SmolLM2-135M: 134.5M parameters (tied embeddings counted once), so the small judge's thresholds.
    let p = session.parameters();
    assert!((130_000_000..140_000_000).contains(&p), "{p}");
    assert_eq!(author::Thresholds::for_judge(p), author::Thresholds::default());
    let b = bundle();
    let cfg = AuthorConfig { retries: 1, ..AuthorConfig::default() };
    let mut env = AuthorEnv { bundle: &b, encoder: None, session: &mut session };

    let prepared = |env: &mut AuthorEnv<'_>, q: &str| now(author::prepare(env, request(q, 1, 0), &cfg)).unwrap();
    assert!(matches!(prepared(&mut env, "how to make a bomb at home"), Prepared::Refused { ref reason, .. } if reason == "harmful"));
    assert!(matches!(prepared(&mut env, "cricket world cup captains"), Prepared::Refused { ref reason, .. } if reason == "off_topic"));
    assert!(matches!(prepared(&mut env, "make some questions"), Prepared::Clarify { ref options, .. } if !options.is_empty()));
    assert!(matches!(prepared(&mut env, "quantum chromodynamics and gluons"), Prepared::NotCovered { .. }));

    let Prepared::Ready(mut job) = now(author::prepare(&mut env, request("sorting a list", 1, 1), &cfg)).unwrap() else { panic!("sorting is covered") };
    assert_eq!((job.chapter.as_str(), job.language), ("Lists", Lang::En));
    let tasks = job.tasks();
    assert_eq!(tasks, [Task::Mcq, Task::Cq]);
    let (mut items, mut missing) = (Vec::new(), 0);
    for t in &tasks {
        match now(job.make(&mut env, *t, &cfg)).unwrap() {
            Made::Item(mut item) => {
                assert_eq!(item.task, *t);
                assert!(!item.sources.is_empty() && !item.sources[0].quote.is_empty(), "evidence with an excerpt");
                let six: Vec<&str> = match item.task {
                    Task::Mcq => vec!["mcq_shape", "mcq_script"],
                    Task::Cq => vec!["cq_marker", "cq_sentences", "cq_not_theory", "cq_script"],
                };
                assert!(six.iter().all(|g| item.gates.contains_key(*g)), "{:?}", item.gates);
                match item.ladder {
                    Ladder::Strict | Ladder::Retry => assert!(six.iter().all(|g| item.gates[*g]), "a strict item passed every gate: {:?}", item.gates),
                    Ladder::Relaxed => assert!(gates::format_and_language(&item.gates), "a relaxed item is still valid in format and language"),
                }
                if let Body::Mcq(m) = &item.body {
                    assert!(m.options.len() == 4 && m.answer_index < 4);
                }
                now(job.verify(&mut env, &mut item, &cfg)).unwrap();
                let v = item.verification.as_ref().unwrap();
                for s in [v.faithfulness, v.relevance, v.hallucination] {
                    assert!((0.0..=1.0).contains(&s), "{v:?}");
                }
                if item.ladder == Ladder::Relaxed {
                    let note = v.reasons.last().expect("a relaxed item says so");
                    let bn = item.language == inference::agent::route::Lang::Bn;
                    assert!(
                        item.gates.iter().filter(|(_, ok)| !**ok).all(|(g, _)| note.contains(&inference::agent::author::gates::teacher_note(g, bn))),
                        "the relaxed note names each failed check in the teacher's words: {note}"
                    );
                }
                if v.accepted {
                    assert!(v.reasons.len() <= (item.ladder == Ladder::Relaxed) as usize, "an accepted item is flagged only for the relaxed pass: {v:?}");
                } else {
                    assert!(!v.reasons.is_empty(), "a flagged item says why: {v:?}");
                }
                items.push(*item);
            }
            Made::Missing { reason, attempts, .. } => {
                assert!(!reason.is_empty() && attempts >= 1, "a shortfall says why");
                missing += 1;
            }
        }
    }
    assert_eq!(items.len() + missing, 2, "never padded, never more");
    author::review_order(&mut items);
    let f = |i: &author::Authored| i.verification.as_ref().unwrap().faithfulness;
    assert!(items.windows(2).all(|w| f(&w[0]) <= f(&w[1])), "least supported first");
    for line in export::export(&items, export::Format::Json).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["question_id"].is_string() && v["verification"]["accepted"].is_boolean());
        assert_eq!((v["query"].as_str(), v["selected_tasks"].clone()), (Some("sorting a list"), serde_json::json!(["mcq", "cq"])), "the request the item was written for");
    }
    let xml = export::export(&items, export::Format::MoodleXml);
    assert!(xml.starts_with("<?xml") && xml.trim_end().ends_with("</quiz>"));
    let gift = export::export(&items, export::Format::Gift);
    assert_eq!(gift.matches("::").count() % 2, 0);
}

/// A beginner English request on chapters that define nothing: each MCQ is "which of these
/// statements is true?" from the book's own claims (no model writes it), its key the book's
/// sentence, no wrong option shown twice, and the exports say where it came from.
#[test]
fn a_beginner_english_mcq_asks_which_of_the_books_claims_holds() {
    let Some(bytes) = common::model_bytes(MODEL) else { return };
    let mut session = Session::load(Arc::new(bytes), &LoadOptions::quantized(Session::CONTEXT)).expect("the model loads");
    let b = common::claims_course();
    let book: Vec<String> = b.sections.iter().flat_map(|s| s.text.split(". ").map(|t| t.trim_end_matches('.').to_string())).collect();
    let cfg = AuthorConfig { retries: 1, ..AuthorConfig::default() };
    let mut env = AuthorEnv { bundle: &b, encoder: None, session: &mut session };
    let Prepared::Ready(mut job) = now(author::prepare(&mut env, request("lists and tuples", 2, 0), &cfg)).unwrap() else { panic!("lists are covered") };
    let mut shown: Vec<String> = Vec::new();
    let mut items = Vec::new();
    for t in job.tasks() {
        let Made::Item(item) = now(job.make(&mut env, t, &cfg)).unwrap() else { panic!("the book has claims enough") };
        assert_eq!(item.from_book(), Some(author::FromBook::Statement), "{:?}", item.body);
        let Body::Mcq(m) = &item.body else { panic!("an MCQ") };
        assert!(m.question.ends_with("which of these statements is true?"), "{}", m.question);
        let said = |o: &str| book.iter().any(|s| s == o.trim_end_matches('.'));
        assert!(said(&m.options[m.answer_index]), "the key is the book's sentence: {:?}", m.options);
        assert_eq!(m.options.iter().filter(|o| said(o)).count(), 1, "no wrong option is the book's: {:?}", m.options);
        for (i, o) in m.options.iter().enumerate().filter(|&(i, _)| i != m.answer_index) {
            assert!(!shown.contains(o), "a wrong option shown twice: {o}");
            assert!(m.rationales[i].contains("the course says"), "{}", m.rationales[i]);
        }
        shown.extend(m.options.iter().cloned());
        items.push(*item);
    }
    for line in export::export(&items, export::Format::Json).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!((v["from_statement"].as_bool(), v["ai_assisted"].as_bool()), (Some(true), Some(false)));
    }
}
