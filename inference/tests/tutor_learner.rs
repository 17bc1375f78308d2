//! The Code Tutor's learner side with the real sandbox and no model: syntax hints, runs compared
//! by behaviour (alternative code accepted), the main flaw as a hint, the answer only later, and
//! the final tests.
#![cfg(feature = "sandbox")]

use inference::agent::tutor::{Acceptance, Difference, SandboxRunner, Task, TutorConfig, TutorSession, Verdict};

#[global_allocator]
static ALLOC: inference::sandbox::memory::SandboxAlloc = inference::sandbox::memory::SandboxAlloc;

fn total_task() -> Task {
    Task {
        description: String::new(),
        starter: "def total(xs):\n    \"\"\"Sum of the numbers in xs.\n    >>> total([1, 2, 3])\n    6\n    \"\"\"\n".into(),
        entry_point: Some("total".into()),
        inputs: vec!["[1, 2, 3]".into(), "[]".into()],
        tests: "assert total([1, 2, 3]) == 6\nassert total([]) == 0\nassert total([-1, 1, 5]) == 5\n".into(),
    }
}

fn session() -> TutorSession {
    TutorSession::with_reference(
        total_task(),
        &[
            ("Start a running sum at 0", "    s = 0\n"),
            ("Go through each number", "    for x in xs:\n"),
            ("Add the number to the sum", "        s += x\n"),
            ("Return the sum", "    return s\n"),
        ],
    )
}

fn cfg() -> TutorConfig {
    TutorConfig { model_hints: false, ..TutorConfig::default() }
}

#[test]
fn the_reference_walkthrough_is_accepted_and_passes_the_tests() {
    let mut s = session();
    let view = s.view().expect("a step is ready");
    assert_eq!((view.index, view.total, view.indent), (0, 4, 4));
    assert!(view.code.ends_with("    \"\"\"\n    # Step 1: Start a running sum at 0\n"), "{}", view.code);
    for lines in ["    s = 0\n", "    for x in xs:\n", "        s += x\n", "    return s\n"] {
        let f = s.submit(None, &mut SandboxRunner, &cfg(), lines).unwrap();
        assert_eq!(f.verdict, Verdict::Accepted { how: Acceptance::Exact }, "{lines:?}: {f:?}");
    }
    assert!(s.view().is_none());
    assert!(s.code.contains("    # Step 4: Return the sum\n    return s\n"));
    let t = TutorSession::test(&s.task, &mut SandboxRunner, &cfg(), &s.code);
    assert!(t.passed, "{t:?}\n{}", s.code);
}

#[test]
fn different_code_with_the_same_behaviour_is_accepted() {
    let mut s = session();
    let f = s.submit(None, &mut SandboxRunner, &cfg(), "    acc = 1 - 1\n").unwrap();
    assert_eq!(f.verdict, Verdict::Accepted { how: Acceptance::SameBehaviour }, "{f:?}");
    assert!(f.message.contains("differently"));
    assert!(s.code.ends_with("    # Step 1: Start a running sum at 0\n    acc = 1 - 1\n"), "the learner's lines join the program");
}

#[test]
fn a_loop_header_runs_with_a_pass_body_and_renamed_loop_variables_are_fine() {
    let mut s = session();
    s.reveal().unwrap();
    let f = s.submit(None, &mut SandboxRunner, &cfg(), "    for number in xs:").unwrap();
    assert_eq!(f.verdict, Verdict::Accepted { how: Acceptance::SameBehaviour }, "{f:?}");
}

#[test]
fn syntax_errors_come_back_with_a_hint_and_no_run() {
    let mut s = session();
    s.reveal().unwrap();
    let f = s.submit(None, &mut SandboxRunner, &cfg(), "    for x in xs\n").unwrap();
    let Verdict::Syntax { line, issue } = &f.verdict else { panic!("{f:?}") };
    assert_eq!(*line, 1);
    assert!(issue.hint.contains("colon"), "{issue:?}");
    assert!(f.message.starts_with("Line 1 of your lines"), "{}", f.message);
    assert!(f.answer.is_none());
}

#[test]
fn a_wrong_value_gets_the_main_flaw_and_the_answer_only_after_three_tries() {
    let mut s = session();
    for attempt in 1..=3 {
        let f = s.submit(None, &mut SandboxRunner, &cfg(), "    s = 1\n").unwrap();
        let Verdict::Differs { difference } = &f.verdict else { panic!("{f:?}") };
        assert!(matches!(difference, Difference::Value { expected, .. } if expected == "0"), "{difference:?}");
        assert!(f.message.contains("hold 0"), "{}", f.message);
        assert!(!f.message.contains("s = 0"), "the hint does not give the code away");
        assert_eq!(f.answer.is_some(), attempt == 3, "attempt {attempt}: {f:?}");
    }
    assert_eq!(s.current, 0, "nothing accepted");
}

#[test]
fn runtime_errors_wrong_returns_and_indentation_are_explained() {
    let mut s = session();
    s.reveal().unwrap();
    s.reveal().unwrap();
    let f = s.submit(None, &mut SandboxRunner, &cfg(), "        s += y\n").unwrap();
    assert!(matches!(&f.verdict, Verdict::Differs { difference: Difference::Raised { type_name, .. } } if type_name == "NameError"), "{f:?}");
    assert!(f.message.contains("NameError") && f.message.contains("line 1 of your lines") && f.message.contains("spelling"), "{}", f.message);
    s.reveal().unwrap();
    let f = s.submit(None, &mut SandboxRunner, &cfg(), "    return 0\n").unwrap();
    assert!(matches!(&f.verdict, Verdict::Differs { difference: Difference::Return { input: 0, .. } }), "{f:?}");
    assert!(f.message.contains("`total([1, 2, 3])`") && f.message.contains("returns 0"), "{}", f.message);
    let f = s.submit(None, &mut SandboxRunner, &cfg(), "        return s\n").unwrap();
    assert!(f.message.starts_with("Check the indentation"), "{}", f.message);
}

#[test]
fn a_script_task_is_checked_on_its_stdin_inputs() {
    let task = Task {
        description: "Read a number and print its double.".into(),
        inputs: vec!["4\n".into(), "10\n".into()],
        tests: String::new(),
        ..Task::default()
    };
    let mut s = TutorSession::with_reference(task, &[("Read the number", "n = int(input())\n"), ("Print its double", "print(n * 2)\n")]);
    assert_eq!(s.view().unwrap().indent, 0);
    let f = s.submit(None, &mut SandboxRunner, &cfg(), "n = int(input( ))\n").unwrap();
    assert_eq!(f.verdict, Verdict::Accepted { how: Acceptance::SameBehaviour }, "{f:?}");
    let f = s.submit(None, &mut SandboxRunner, &cfg(), "print(n + n + 1)\n").unwrap();
    assert!(matches!(&f.verdict, Verdict::Differs { difference: Difference::Output { .. } }), "{f:?}");
    assert!(f.message.contains("\"9\"") && f.message.contains("\"8\""), "{}", f.message);
    assert!(s.submit(None, &mut SandboxRunner, &cfg(), "print(2 * n)\n").unwrap().accepted());
}

#[test]
fn failing_programs_report_the_failed_test() {
    let t = TutorSession::test(&total_task(), &mut SandboxRunner, &cfg(), "def total(xs):\n    return 0\n");
    assert!(!t.passed);
    let p = t.problem.unwrap();
    assert_eq!(p, "AssertionError on the line `assert total([1, 2, 3]) == 6`; `total([1, 2, 3])` returned 0");
    let slow = "def total(xs):\n    while True:\n        pass\n";
    let cfg = TutorConfig { test: inference::sandbox::RunOptions { timeout_ms: 300, ..cfg().test }, ..cfg() };
    let t = TutorSession::test(&total_task(), &mut SandboxRunner, &cfg, slow);
    assert!(t.problem.unwrap().contains("did not finish"));
}
