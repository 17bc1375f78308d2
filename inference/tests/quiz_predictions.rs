//! "What does Python show?" items (`index::predict`, `agent::quiz::predict`) on a small Python
//! course: the sandbox reproduces the book's outputs from the fewest lines they need, wrong
//! options are what Python shows for common misreadings, and an Apply quiz item is one of them
//! with the model reading nothing. (The course was written for this test; the figures on the
//! Python docs and the demo course are in docs/EVALUATION.md, "Quiz".)
#![cfg(feature = "sandbox")]

mod common;
use inference::agent::quiz::{Bloom, Branch, Made, Quiz, QuizConfig, QuizEnv, Subtopic, predict};
use inference::bundle::{Bundle, CourseInfo};
use inference::corpus::{Block, BlockKind, Document};
use inference::index::predict::{NO_ERROR, mine};
use inference::llm::{LoadOptions, Session, now};
use std::sync::Arc;

const MODEL: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

fn course() -> Bundle {
    let para = |t: &str, line| Block::new(BlockKind::Paragraph, t, line);
    let code = |t: &str, line| Block::new(BlockKind::Code, t, line);
    let blocks = vec![
        Block::new(BlockKind::Heading(1), "Strings and lists", 1),
        para("A string is a sequence of characters. Each character has a position, its index, counted from zero.", 2),
        code(">>> word = 'Python'\n>>> n = 3\n>>> word[0:2]\n'Py'\n>>> word[-2]\n'o'\n>>> word[0] = 'J'\nTraceback (most recent call last):\nTypeError: 'str' object does not support item assignment", 3),
        para("Slicing takes the characters from the start index up to, but not including, the end index. A negative index counts from the right.", 12),
        Block::new(BlockKind::Heading(2), "Loops", 13),
        para("A for loop runs its body once for each value that range() produces, starting at zero.", 14),
        code("for i in range(4):\n    print(i, end=\" \")\nprint()", 15),
        para("Output:", 18),
        code("0 1 2 3", 19),
        para("The loop stops before it reaches the value given to range(), so four values are printed.", 21),
        code("total = 0\nfor price in [20, 35]:\n    total += price\nprint(f\"Total: {total:.2f} taka\")", 26),
        para("Output:", 30),
        code("Total: 55.00 taka", 31),
        code("count = 0\ndef add(n):\n    count = n + 1\n    return count\nprint(add(4), count)", 32),
        para("Output:", 37),
        code("5 0", 38),
        code("name = \"rahim\"\nname.title()\nmarks = [70, 45]\nsorted(marks)\nprint(name, marks, str(7) + str(1))", 39),
        para("Output:", 44),
        code("rahim [70, 45] 71", 45),
        code("def double(n):\n    print(n * 2)\nx = double(4)\nprint(\"x is\", x)", 46),
        para("Output:", 50),
        code("8\nx is None", 51),
        code("import random\nprint(random.random())", 22),
        para("Output:", 24),
        code("0.123", 25),
    ];
    let docs = vec![Document { file: "python/strings.md".into(), blocks }];
    common::lexical_bundle("Python test course", &docs, CourseInfo { subjects: vec!["introductory Python programming".into()], lang: Some("en".into()) })
}

#[test]
fn the_books_outputs_are_reproduced_and_misread() {
    let b = course();
    let (found, report) = mine(&b.sections);
    // word[0:2], word[-2] and five programs; not the assignment that raised, nor the
    // program that prints a random number (it is never asked about).
    assert_eq!(report.askable, 7, "{report:?}");
    assert_eq!(report.reproduced, 7, "{report:?}");
    assert!(report.failed_files.is_empty());
    let slice = found.iter().find(|p| p.code == "word[0:2]\n").expect("the slice is asked about");
    assert_eq!(slice.setup, vec!["word = 'Python'\n".to_string()], "only the line it needs, not `n = 3`");
    assert_eq!(slice.output, "'Py'");
    let outputs: Vec<&str> = slice.wrong.iter().map(|w| w.output.as_str()).collect();
    assert_eq!(slice.wrong[0].rule, "slice_end");
    assert_eq!(outputs[0], "'Pyt'", "the end index read as included");
    assert!(outputs.contains(&"Py"), "the value without its quotes: {outputs:?}");
    let program = found.iter().find(|p| p.program).expect("the loop program is asked about");
    let outputs: Vec<&str> = program.wrong.iter().map(|w| w.output.as_str()).collect();
    assert!(outputs.contains(&"0 1 2 3 4"), "range's end read as included: {outputs:?}");
    assert!(outputs.contains(&"1 2 3 4"), "range read as starting at 1: {outputs:?}");
    assert!(!outputs.contains(&NO_ERROR) || outputs.len() == 3);
    assert!(found.iter().all(|p| !p.code.contains("random")));
    // A print() read as inside the loop, an f-string read as plain text, its format specifier
    // left out; the item's three wrong options test three different rules.
    let total = found.iter().find(|p| p.code.contains("total")).expect("the total program is asked about");
    let outputs: Vec<&str> = total.wrong.iter().map(|w| w.output.as_str()).collect();
    for expected in ["Total: 20.00 taka\nTotal: 55.00 taka", "Total: {total:.2f} taka", "Total: 55 taka", "Total: 35.00 taka"] {
        assert!(outputs.contains(&expected), "{expected:?} in {outputs:?}");
    }
    let rules: std::collections::HashSet<&str> = total.wrong.iter().take(3).map(|w| w.rule.as_str()).collect();
    assert_eq!(rules.len(), 3, "{:?}", total.wrong);
    let moved = total.wrong.iter().find(|w| w.rule == "print_in_loop").unwrap();
    assert!(total.rationale(moved).starts_with("The print() after the loop is not indented under it"), "no changed line to quote: {}", total.rationale(moved));
    // A function's variable read as the one outside; string and sorted() results read as
    // changing what they were called on; str() + str() read as adding.
    let wrong_of = |needle: &str| -> Vec<(String, String)> {
        let p = found.iter().find(|p| p.code.contains(needle)).unwrap_or_else(|| panic!("{needle}: asked about"));
        p.wrong.iter().map(|w| (w.rule.clone(), w.output.clone())).collect()
    };
    assert!(wrong_of("def add").contains(&("local_scope".into(), "5 5".into())), "{:?}", wrong_of("def add"));
    let names = wrong_of("name.title()");
    for (rule, output) in [("str_immutable", "Rahim [70, 45] 71"), ("sorted_inplace", "rahim [45, 70] 71"), ("str_concat", "rahim [70, 45] 8")] {
        assert!(names.contains(&(rule.into(), output.into())), "{rule}: {names:?}");
    }
    // A function that prints read as giving back what it prints.
    assert!(wrong_of("def double").contains(&("print_return".into(), "8\nx is 8".into())), "{:?}", wrong_of("def double"));
}

#[test]
fn a_first_quiz_opens_with_a_line_of_the_book_run_without_the_model() {
    let Some(bytes) = common::model_bytes(MODEL) else { return };
    let mut session = Session::load(Arc::new(bytes), &LoadOptions::quantized(Session::CONTEXT)).expect("the model loads");
    let mut b = course();
    b.predictions = mine(&b.sections).0;
    let b = Bundle::from_bytes(&b.to_bytes().unwrap()).expect("the bundle keeps its questions");
    assert!(b.predictions.len() >= 2);
    let cfg = QuizConfig { min_passage_chars: 20, ..QuizConfig::default() };
    let mut env = QuizEnv { bundle: &b, encoder: None, session: &mut session };
    let subtopic = Subtopic { section: 0, name: b.sections[0].heading().to_string(), heading_path: b.sections[0].heading_path.clone() };
    let mut quiz = now(Quiz::start(&env, "strings", subtopic.clone(), None, &cfg)).unwrap();
    assert!(!quiz.runnable.is_empty());
    assert_eq!(quiz.start, Bloom::Apply, "no earlier level: a passage with a line to run opens the quiz at Apply");
    let again = now(Quiz::start(&env, "strings", subtopic, Some(Bloom::Remember), &cfg)).unwrap();
    assert_eq!(again.start, Bloom::Remember, "the learner's last level wins");
    let evaluated = env.session.evaluated();
    let plan = quiz.plan(Branch::First, &cfg).unwrap();
    assert_eq!(plan.bloom, Bloom::Apply);
    assert!(quiz.runnable.contains(&(plan.chunk, Bloom::Apply)), "an Apply item is planned on a passage with a line to run at that level");
    let Made::Item { item, validation } = now(quiz.make(&mut env, &plan, &cfg)).unwrap() else { panic!("an item") };
    assert!(validation.passed && validation.by_running, "{validation:?}");
    assert!(item.question.starts_with(predict::ASK) || item.question.starts_with(predict::ASK_PROGRAM), "{}", item.question);
    assert_eq!(item.options.len(), 4);
    let key = &item.options[item.answer_index];
    assert!(item.evidence[0].quote.ends_with(key.as_str()), "the key is the book's output: {key} / {}", item.evidence[0].quote);
    assert_eq!(item.bloom, Bloom::Apply, "the plan's level");
    assert_eq!(env.session.evaluated(), evaluated, "the model read nothing");

    // A wrong answer: why the book's code shows what it shows, for the option chosen.
    let (key, options) = (item.answer_index, item.options.clone());
    quiz.show(item, validation);
    let chosen = (key + 1) % 4;
    assert!(!quiz.answer(chosen).unwrap().correct);
    let plan = quiz.plan(Branch::Wrong, &cfg).unwrap();
    let Made::Item { item: why, .. } = now(quiz.make(&mut env, &plan, &cfg)).unwrap() else { panic!("a why item") };
    assert!(predict::explains(&why.question) && why.bloom == Bloom::Understand, "{}", why.question);
    if !options[chosen].contains('\n') && options[chosen] != NO_ERROR {
        assert!(why.question.contains(&format!("and not `{}`", options[chosen])), "{}", why.question);
    }
    // A quiz that starts at Understand asks why, too.
    let mut understand = now(Quiz::start(&env, "strings", quiz.subtopic.clone(), Some(Bloom::Understand), &cfg)).unwrap();
    let plan = understand.plan(Branch::First, &cfg).unwrap();
    let Made::Item { item, .. } = now(understand.make(&mut env, &plan, &cfg)).unwrap() else { panic!("an item") };
    assert!(predict::explains(&item.question), "{}", item.question);
    assert_eq!(env.session.evaluated(), evaluated, "the model read nothing");
}

/// The course model and the course with its lines run, for authoring.
fn teacher() -> Option<(Session, Bundle)> {
    let bytes = common::model_bytes(MODEL)?;
    let session = Session::load(Arc::new(bytes), &LoadOptions::quantized(Session::CONTEXT)).expect("the model loads");
    let mut b = course();
    b.predictions = mine(&b.sections).0;
    Some((session, b))
}

#[test]
fn a_teachers_mcqs_from_the_books_code_why_it_shows_what_it_shows_and_loops_traced() {
    use inference::agent::author::{self, AuthorConfig, AuthorEnv, AuthorRequest, Body, Difficulty, Made as Authored, Prepared, Task, export};
    let Some((mut session, b)) = teacher() else { return };
    let cfg = AuthorConfig::default();
    let mut env = AuthorEnv { bundle: &b, encoder: None, session: &mut session };
    let request = AuthorRequest { text: String::new(), query: "string slicing and negative indexes".into(), sections: vec![], mcq: 2, cq: 0, difficulty: Difficulty::Intermediate, lang: None };
    let Prepared::Ready(mut job) = now(author::prepare(&mut env, request, &cfg)).unwrap() else { panic!("the topic is covered") };
    let evaluated = env.session.evaluated();
    let mut items: Vec<author::Authored> = Vec::new();
    for n in 0..2 {
        let Authored::Item(item) = now(job.make(&mut env, Task::Mcq, &cfg)).unwrap() else { panic!("the chapter has lines to run") };
        assert!(item.by_running && !item.by_definition);
        assert!(item.gates.values().all(|&ok| ok), "{:?}", item.gates);
        let Body::Mcq(mcq) = &item.body else { panic!("an MCQ") };
        if n == 0 {
            assert!(predict::asks(&mcq.question), "{}", mcq.question);
            assert!(item.sources[0].quote.ends_with(mcq.options[mcq.answer_index].as_str()), "the key is the book's output");
        } else {
            // Then why another line shows what it shows: the stem shows the book's output.
            let shown = mcq.question.lines().last().unwrap_or_default();
            assert!(predict::explains(&mcq.question) && item.sources[0].quote.ends_with(shown), "{}", mcq.question);
            assert_ne!(items[0].sources[0].quote, item.sources[0].quote, "not the line the first item asked about");
        }
        items.push(*item);
    }
    assert_eq!(env.session.evaluated(), evaluated, "the model wrote nothing");
    // An advanced one traces a loop: what a program with one prints.
    let request = AuthorRequest { text: String::new(), query: "loops".into(), sections: vec![], mcq: 1, cq: 0, difficulty: Difficulty::Advanced, lang: None };
    let Prepared::Ready(mut job) = now(author::prepare(&mut env, request, &cfg)).unwrap() else { panic!("the topic is covered") };
    let evaluated = env.session.evaluated();
    let Authored::Item(item) = now(job.make(&mut env, Task::Mcq, &cfg)).unwrap() else { panic!("the chapter has a loop to run") };
    let Body::Mcq(mcq) = &item.body else { panic!("an MCQ") };
    assert!(item.by_running && predict::asks(&mcq.question) && mcq.question.contains("for "), "{}", mcq.question);
    assert_eq!(env.session.evaluated(), evaluated, "the model wrote nothing");
    let record = export::record(&items[0]);
    assert_eq!((record["ai_assisted"].as_bool(), record["from_running"].as_bool()), (Some(false), Some(true)));
    let xml = export::moodle_xml(&items);
    assert!(xml.contains("&lt;pre&gt;") && xml.contains("from the book's code, run"), "code is exported as code");
    assert!(export::moodle_xml(&items[1..]).contains("&lt;pre&gt;"), "a \"why\" stem's code too");
}

#[test]
fn a_teachers_creative_question_on_the_books_code_with_its_marking_guide() {
    use inference::agent::author::{self, AuthorConfig, AuthorEnv, AuthorRequest, Body, Difficulty, Made as Authored, Prepared, Task, code_cq, export};
    let Some((mut session, b)) = teacher() else { return };
    let cfg = AuthorConfig::default();
    let mut env = AuthorEnv { bundle: &b, encoder: None, session: &mut session };
    let request = AuthorRequest { text: String::new(), query: "string slicing and negative indexes".into(), sections: vec![], mcq: 0, cq: 1, difficulty: Difficulty::Intermediate, lang: None };
    let Prepared::Ready(mut job) = now(author::prepare(&mut env, request, &cfg)).unwrap() else { panic!("the topic is covered") };
    let evaluated = env.session.evaluated();
    let Authored::Item(item) = now(job.make(&mut env, Task::Cq, &cfg)).unwrap() else { panic!("the section has lines to run") };
    assert_eq!(env.session.evaluated(), evaluated, "the model wrote nothing");
    assert!(item.by_running && item.gates.values().all(|&ok| ok), "{:?}", item.gates);
    let Body::Cq(cq) = &item.body else { panic!("a CQ") };
    // The stimulus shows the book's lines as code; the friend's answer is one of the misreadings
    // the build ran, and part d's answer gives the book's output and the change that makes it.
    let code: Vec<String> = cq.clue.split("\n\n").filter(|p| code_cq::is_code(p)).map(code_cq::unindent).collect();
    assert!(code.first().is_some_and(|c| c.starts_with(">>> word = 'Python'")), "{}", cq.clue);
    let p = b.predictions.iter().find(|p| item.sources[0].quote == p.quote()).expect("the item rests on a line the build ran");
    assert!(p.wrong.iter().any(|w| cq.clue.contains(&format!("answered at once: `{}`", w.output))), "{}", cq.clue);
    assert_eq!(cq.parts.iter().map(|p| p.marks).collect::<Vec<_>>(), [1, 2, 3, 4]);
    assert!(cq.parts.iter().all(|p| !p.answer.is_empty()), "every part has its answer");
    assert_eq!(cq.parts[2].answer, format!("Python shows {}.", p.output));
    assert!(cq.parts[3].answer.starts_with("No: ") && cq.parts[3].answer.contains(&p.output), "{}", cq.parts[3].answer);
    let xml = export::moodle_xml(std::slice::from_ref(&*item));
    assert!(xml.contains("&lt;pre&gt;&amp;gt;&amp;gt;&amp;gt; word = ") && xml.contains("Answer: Python shows"), "code as code, answers for the marker: {xml}");
}
