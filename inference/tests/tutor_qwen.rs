//! The Code Tutor with the real Qwen2.5-Coder-0.5B-Instruct (skipped when the file is absent:
//! `models/fetch.sh llm`). Each test is one short model call or a few; about a minute in all on
//! two cores.
#![cfg(feature = "sandbox")]

mod common;

use inference::agent::tutor::{self, Prepared, SandboxRunner, Task, TutorConfig, TutorModel, TutorSession};
use std::sync::Arc;

#[global_allocator]
static ALLOC: inference::sandbox::memory::SandboxAlloc = inference::sandbox::memory::SandboxAlloc;

fn model() -> Option<TutorModel> {
    let bytes = common::model_bytes("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")?;
    Some(TutorModel::load(Arc::new(bytes)).expect("the tutor model loads"))
}

fn add_task() -> Task {
    Task {
        starter: "def add_squares(a: int, b: int) -> int:\n    \"\"\" Return a*a + b*b.\n    >>> add_squares(2, 3)\n    13\n    \"\"\"\n".into(),
        entry_point: Some("add_squares".into()),
        inputs: vec!["2, 3".into()],
        tests: "assert add_squares(2, 3) == 13\nassert add_squares(0, -4) == 16\n".into(),
        ..Task::default()
    }
}

#[test]
fn plan_parses_and_the_first_step_runs() {
    let Some(mut m) = model() else { return };
    let cfg = TutorConfig { model_hints: false, ..TutorConfig::default() };
    let mut s = TutorSession::start(&mut m, add_task(), &cfg).unwrap();
    let plan = s.plan();
    assert!((1..=cfg.max_steps).contains(&plan.len()), "{plan:?}");
    assert!(plan.iter().all(|p| p.len() >= 5 && !p.contains('\n')), "{plan:?}");
    match s.prepare(&mut m, &mut SandboxRunner, &cfg).unwrap() {
        Prepared::Step(view) => {
            assert_eq!(view.index, 0);
            assert!(view.code.contains("# Step 1: "), "{}", view.code);
            let reference = s.steps[0].reference.clone().unwrap();
            assert!(!reference.trim().is_empty());
            assert!(inference::sandbox::check_syntax(&tutor::code::pad_block_openers(&(view.code + &reference))).is_ok());
            // The tutor's own lines are accepted.
            let f = s.submit(Some(&mut m), &mut SandboxRunner, &cfg, &reference).unwrap();
            assert!(f.accepted(), "{f:?}");
        }
        other => panic!("the first step should be ready: {other:?}"),
    }
}

#[test]
fn one_shot_solves_a_trivial_task() {
    let Some(mut m) = model() else { return };
    let r = tutor::one_shot(&mut m, &mut SandboxRunner, &add_task(), &TutorConfig::default(), 1).unwrap();
    assert!(r.passed, "{r:?}");
}

#[test]
fn the_judge_prefers_a_correct_alternative_to_a_wrong_one() {
    let Some(mut m) = model() else { return };
    let cfg = TutorConfig { model_hints: false, ..TutorConfig::default() };
    // No variable of either learner holds the reference's values, so the model judges.
    let fresh = || TutorSession::with_reference(add_task(), &[("Compute the square of a and the square of b", "    sq_a = a * a\n    sq_b = b * b\n")]);
    let good = fresh().submit(Some(&mut m), &mut SandboxRunner, &cfg, "    squares = [a * a, b * b]\n").unwrap();
    let bad = fresh().submit(Some(&mut m), &mut SandboxRunner, &cfg, "    s = a + b\n").unwrap();
    let (pg, pb) = (good.p_yes.expect("judged"), bad.p_yes.expect("judged"));
    eprintln!("p_yes: correct alternative {pg:.3}, wrong {pb:.3}");
    assert!(pg > pb, "good {good:?}\nbad {bad:?}");
    assert!(good.accepted() && !bad.accepted(), "good {good:?}\nbad {bad:?}");
}

#[test]
fn a_draft_first_session_keeps_its_draft_and_plans_from_it() {
    let Some(mut m) = model() else { return };
    let cfg = TutorConfig { model_hints: false, draft_first: true, ..TutorConfig::default() };
    let s = TutorSession::start(&mut m, add_task(), &cfg).unwrap();
    let draft = s.draft.clone().expect("a draft");
    assert!(draft.starts_with("def add_squares(") && draft.contains("return"), "{draft}");
    let t = TutorSession::test(&s.task, &mut SandboxRunner, &cfg, &draft);
    assert!(t.passed, "the draft of a trivial task passes: {t:?}\n{draft}");
    assert!(!s.plan().is_empty() && s.plan().iter().all(|p| !p.contains("def ")), "{:?}", s.plan());
    assert!(s.view().is_none(), "no step is ready before prepare");
}

/// Draft steps: the tutor's worked solution is cut at its statements, each part gets a
/// plain-language step, and the tutored program is the draft (here, with a scripted learner who
/// types the tutor's lines).
#[test]
fn draft_steps_tutor_the_drafts_own_lines() {
    let Some(mut m) = model() else { return };
    let task = Task {
        starter: "def count_evens(xs: list) -> int:\n    \"\"\" Count the even numbers in xs.\n    >>> count_evens([1, 2, 4, 7])\n    2\n    \"\"\"\n".into(),
        entry_point: Some("count_evens".into()),
        inputs: vec!["[1, 2, 4, 7]".into()],
        tests: "assert count_evens([1, 2, 4, 7]) == 2\nassert count_evens([]) == 0\nassert count_evens([0, -2, 3]) == 2\n".into(),
        ..Task::default()
    };
    let cfg = TutorConfig { model_hints: false, draft_steps: true, ..TutorConfig::default() };
    let s = TutorSession::start(&mut m, task.clone(), &cfg).unwrap();
    let draft = s.draft.clone().expect("a draft");
    let parts: Vec<String> = s.steps.iter().map(|st| st.draft_lines.clone().expect("every step has its part of the draft")).collect();
    // The code lines: a comment the draft opened a part with is that step's sentence instead.
    let lines = |t: &str| t.lines().filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#')).map(str::to_string).collect::<Vec<_>>();
    assert_eq!(lines(&format!("{}{}", task.start_code(), parts.concat())), lines(&draft), "the parts are the draft");
    assert!(parts.iter().all(|p| tutor::code::leading_comment(p).is_none()), "{parts:?}");
    assert!(s.plan().iter().all(|p| p.len() >= 5 && !p.contains("def ")), "{:?}", s.plan());
    let report = tutor::run_tutor(&mut m, &mut SandboxRunner, &task, &cfg, &mut |s| s.steps[s.current].reference.clone().unwrap_or_default()).unwrap();
    let one = tutor::one_shot(&mut m, &mut SandboxRunner, &task, &cfg, 1).unwrap();
    // Greedy: the draft is the one-shot program, so the tutor passes whenever one-shot does.
    assert!(!one.passed || report.passed, "one-shot passed but the tutor did not: {report:?}");
    if report.passed_at == Some(1) {
        assert_eq!(report.generations, 1, "the draft only: no step was rewritten: {report:?}");
    }
}
