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

/// Decisions, dictionaries and sets: the misreadings of how a chain of conditions, a loop's
/// `else`, a dictionary, a set, `or` and negative division work.
fn decisions_course() -> Bundle {
    let para = |t: &str, line| Block::new(BlockKind::Paragraph, t, line);
    let code = |t: &str, line| Block::new(BlockKind::Code, t, line);
    let output = |t: &str, line| [para("Output:", line), code(t, line + 1)];
    let mut blocks = vec![
        Block::new(BlockKind::Heading(1), "Decisions and dictionaries", 1),
        para("An if statement runs its block only when its condition is true; elif and else add more branches.", 2),
        code("marks = 80\nif marks >= 80:\n    print('Grade: A+')\nelif marks >= 70:\n    print('Grade: A')\nprint('Well done,', 'Rina')", 3),
    ];
    blocks.extend(output("Grade: A+\nWell done, Rina", 10));
    blocks.push(code("for n in [3, 8, 5, 10]:\n    if n % 2 == 0:\n        print('first even:', n)\n        break\nelse:\n    print('no even number')", 12));
    blocks.extend(output("first even: 8", 19));
    blocks.push(code("stock = {'rice': 10, 'dal': 0, 'oil': 4}\nfor item in stock:\n    print(item)", 21));
    blocks.extend(output("rice\ndal\noil", 25));
    // A countdown whose changed versions never end (`while n is not None`, `n = 1`).
    blocks.push(code("n = 3\nwhile n:\n    print(n)\n    n -= 1\nprint('Go!')", 28));
    blocks.extend(output("3\n2\n1\nGo!", 34));
    blocks.push(Block::new(BlockKind::Heading(2), "and, or, not", 39));
    blocks.push(code(">>> -7 // 2\n-4\n>>> votes = ['Rina', 'Tanvir', 'Rina', 'Mitu', 'Rina']\n>>> len(set(votes))\n3\n>>> typed = ''\n>>> typed or 'Guest'\n'Guest'\n>>> marks = 40\n>>> marks >= 40\nTrue", 40));
    let docs = vec![Document { file: "python/decisions.md".into(), blocks }];
    common::lexical_bundle("Python test course", &docs, CourseInfo { subjects: vec!["introductory Python programming".into()], lang: Some("en".into()) })
}

fn decisions_course_with(predictions: Vec<inference::index::predict::Prediction>) -> Bundle {
    let mut b = decisions_course();
    b.predictions = predictions;
    b
}

#[test]
fn decisions_dictionaries_and_sets_are_misread_too() {
    let b = decisions_course();
    let (found, report) = mine(&b.sections);
    // Four programs and four lines at the prompt, every one reproduced; the countdown's
    // endless changed versions stop (the file's run did not time out).
    assert!(report.failed_files.is_empty(), "{report:?}");
    assert_eq!((report.askable, report.reproduced), (8, 8), "{report:?}");
    // A yes/no line has one wrong output: no question of its own, but a "why" and a "judge"
    // item (and the countdown, misread one way only, a "why" item).
    let yes = found.iter().find(|p| p.code == "marks >= 40\n").expect("kept for why and judge items");
    assert!(!yes.is_multiple_choice());
    assert_eq!((report.kept, report.kept_explained), (6, 2), "{report:?}");
    assert_eq!(yes.wrong.iter().map(|w| (w.rule.as_str(), w.output.as_str())).collect::<Vec<_>>(), [("compare_equal", "False")]);
    let b = decisions_course_with(found.clone());
    let levels = predict::levels(&b, yes);
    assert_eq!(levels, [Bloom::Understand, Bloom::Evaluate], "never a four-option item of its own");
    let evidence = inference::agent::quiz::ItemEvidence { chunk: 0, section: yes.section, file: String::new(), heading_path: Vec::new(), quote: String::new() };
    let why = predict::why_item(yes, None, &predict::chapter_rules(&b, yes), evidence).expect("a why item");
    assert!(why.question.starts_with(predict::WHY) && why.question.ends_with(">>> marks >= 40\nTrue"), "{}", why.question);
    assert_eq!(why.options[why.answer_index], inference::index::predict::principle("compare_equal").unwrap());
    let wrong_of = |needle: &str| -> Vec<(String, String)> {
        let p = found.iter().find(|p| p.code.contains(needle)).unwrap_or_else(|| panic!("{needle}: asked about"));
        p.wrong.iter().map(|w| (w.rule.clone(), w.output.clone())).collect()
    };
    let has = |needle: &str, rule: &str, output: &str| {
        let wrong = wrong_of(needle);
        assert!(wrong.contains(&(rule.into(), output.into())), "{needle} {rule}: {wrong:?}");
    };
    has("marks >= 80", "elif_as_if", "Grade: A+\nGrade: A\nWell done, Rina");
    has("first even", "loop_else", "first even: 8\nno even number");
    has("for item in stock", "dict_values", "10\n0\n4");
    has("for item in stock", "dict_items", "('rice', 10)\n('dal', 0)\n('oil', 4)");
    has("-7 // 2", "floor_negative", "-3");
    has("len(set(votes))", "set_duplicates", "5");
    has("typed or", "or_value", "True");
    // The `elif` read as an `if` names its one changed line (a creative question's part d).
    let chain = found.iter().find(|p| p.code.contains("marks >= 80")).unwrap();
    let w = chain.wrong.iter().find(|w| w.rule == "elif_as_if").unwrap();
    assert_eq!(w.code, "if marks >= 70:");
    assert!(chain.rationale(w).contains("An `elif` is tested only when every condition above it"), "{}", chain.rationale(w));
}

#[test]
fn a_first_quiz_opens_with_a_line_of_the_book_run_without_the_model() {
    let Some((mut session, b)) = teacher(course()) else { return };
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
    // A retake by a learner who answered it right: another line of the passage first.
    let mut retake = now(Quiz::start(&env, "strings", quiz.subtopic.clone(), None, &cfg)).unwrap();
    retake.know(&b, vec![item.question.clone()]);
    let Made::Item { item: other, .. } = now(retake.make(&mut env, &retake.plan(Branch::First, &cfg).unwrap(), &cfg)).unwrap() else { panic!("an item") };
    assert!(other.question != item.question && other.evidence[0].chunk == item.evidence[0].chunk, "{}", other.question);

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

/// The course model and `b` with its lines run (for authoring and the quiz).
fn teacher(mut b: Bundle) -> Option<(Session, Bundle)> {
    let bytes = common::model_bytes(MODEL)?;
    let session = Session::load(Arc::new(bytes), &LoadOptions::quantized(Session::CONTEXT)).expect("the model loads");
    b.predictions = mine(&b.sections).0;
    Some((session, b))
}

#[test]
fn a_teachers_mcqs_from_the_books_code_why_it_shows_what_it_shows_and_loops_traced() {
    use inference::agent::author::{self, AuthorConfig, AuthorEnv, AuthorRequest, Body, Difficulty, Made as Authored, Prepared, Task, export};
    let Some((mut session, b)) = teacher(course()) else { return };
    let cfg = AuthorConfig::default();
    let mut env = AuthorEnv { bundle: &b, encoder: None, session: &mut session };
    let request = AuthorRequest { text: String::new(), query: "string slicing and negative indexes".into(), sections: vec![], mcq: 2, cq: 0, difficulty: Difficulty::Intermediate, lang: None, avoid: Default::default() };
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
    // Asked again by a teacher who has both: two other questions on other lines.
    let again = AuthorRequest { avoid: author::Avoid::of(&items), ..AuthorRequest::parse("2 MCQs on string slicing and negative indexes, intermediate") };
    let Prepared::Ready(mut job) = now(author::prepare(&mut env, again, &cfg)).unwrap() else { panic!("the topic is covered") };
    for _ in 0..2 {
        let Authored::Item(item) = now(job.make(&mut env, Task::Mcq, &cfg)).unwrap() else { panic!("the chapter has other lines to run") };
        assert!(item.by_running, "from the book's code again");
        assert!(items.iter().all(|i| i.sources[0].quote != item.sources[0].quote && i.body != item.body && i.question_id != item.question_id), "{:?}", item.body);
    }
    // An advanced one traces a loop: what a program with one prints.
    let request = AuthorRequest { text: String::new(), query: "loops".into(), sections: vec![], mcq: 1, cq: 0, difficulty: Difficulty::Advanced, lang: None, avoid: Default::default() };
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
    let Some((mut session, b)) = teacher(course()) else { return };
    let cfg = AuthorConfig::default();
    let mut env = AuthorEnv { bundle: &b, encoder: None, session: &mut session };
    let request = AuthorRequest { text: String::new(), query: "string slicing and negative indexes".into(), sections: vec![], mcq: 0, cq: 1, difficulty: Difficulty::Intermediate, lang: None, avoid: Default::default() };
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
    // The same request again, from a teacher who has this item (the app's bank, or the CLI's
    // earlier output): another line, another story, another id.
    let avoid = author::Avoid::of([&*item]);
    assert_eq!(author::Avoid::from_json_records(&export::export(std::slice::from_ref(&*item), export::Format::Json)), Ok(avoid.clone()));
    let again = AuthorRequest { avoid, ..AuthorRequest::parse("1 creative question on string slicing and negative indexes") };
    let Prepared::Ready(mut job) = now(author::prepare(&mut env, again, &cfg)).unwrap() else { panic!("the topic is covered") };
    let Authored::Item(other) = now(job.make(&mut env, Task::Cq, &cfg)).unwrap() else { panic!("the section has other lines to run") };
    let Body::Cq(other_cq) = &other.body else { panic!("a CQ") };
    assert!(other.by_running, "from the book's code again");
    assert_ne!(other.sources[0].quote, item.sources[0].quote);
    assert_ne!(other_cq.clue, cq.clue);
    assert_ne!(other.question_id, item.question_id);
}

#[test]
fn a_teachers_request_naming_a_heading_of_stop_words_asks_for_that_section() {
    use inference::agent::author::{self, AuthorConfig, AuthorEnv, AuthorRequest, Body, Difficulty, Made as Authored, Prepared, Task};
    let Some((mut session, b)) = teacher(decisions_course()) else { return };
    let cfg = AuthorConfig::default();
    let mut env = AuthorEnv { bundle: &b, encoder: None, session: &mut session };
    // Every word of "and, or and not" is a stop word: not vague, it names a heading.
    let request = AuthorRequest::parse("1 creative question on and, or and not");
    assert_eq!(request.query, "or not", "the request's own reading drops \"and\"");
    let Prepared::Ready(mut job) = now(author::prepare(&mut env, request, &cfg)).unwrap() else { panic!("the request names a section") };
    let Authored::Item(item) = now(job.make(&mut env, Task::Cq, &cfg)).unwrap() else { panic!("the section has lines to run") };
    assert!(item.by_running, "{:?}", item.body);
    let Body::Cq(cq) = &item.body else { panic!("a CQ") };
    assert!(cq.clue.contains(">>> "), "{}", cq.clue);
    assert_eq!(b.sections[item.sources[0].section as usize].heading(), "and, or, not");
    // A request naming nothing is still asked which topic.
    let request = AuthorRequest { text: String::new(), query: "some questions please".into(), sections: vec![], mcq: 1, cq: 0, difficulty: Difficulty::Intermediate, lang: None, avoid: Default::default() };
    assert!(matches!(now(author::prepare(&mut env, request, &cfg)).unwrap(), Prepared::Clarify { .. }));
}
