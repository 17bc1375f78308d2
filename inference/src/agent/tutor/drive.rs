//! The whole tutor loop with a scripted learner (ACE-TA's evaluation: the learner types the
//! tutor's lines), the one-shot baseline, and the final test attempts both end with.

use super::code::clean_snippet;
use super::prompt;
use super::session::{Prepared, TutorSession};
use super::{CodeRunner, Task, TutorConfig, TutorError, TutorModel};
use crate::llm::Sampling;
use serde::{Deserialize, Serialize};

/// How one task went.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TutorReport {
    /// The final program passed the task's tests.
    pub passed: bool,
    /// Which final attempt (1-based) passed.
    pub passed_at: Option<usize>,
    /// Test runs made (at most `final_attempts`).
    pub final_attempts: usize,
    /// The plan as it ended (after any re-plan); empty for one-shot.
    pub plan: Vec<String>,
    /// Steps the learner finished.
    pub steps_done: usize,
    /// Model generations of code: step tries (first tries and refinements) and whole programs.
    pub generations: usize,
    /// Step tries after the first.
    pub refinements: usize,
    pub replans: usize,
    /// The learner's submissions, over all steps.
    pub submissions: usize,
    /// The step the tutor could not write code for, and why.
    pub stuck: Option<String>,
    /// The last program tested.
    pub program: String,
    /// Why the last test run failed.
    pub problem: Option<String>,
}

/// Tutors `task` from plan to tests. `learner` gets the session with a step ready (its
/// `view()`; the evaluation's learner reads the tutor's lines from `steps[current].reference`)
/// and returns the lines it types; after `reveal_after` wrong tries the tutor's lines are taken.
pub fn run_tutor(
    model: &mut TutorModel,
    runner: &mut dyn CodeRunner,
    task: &Task,
    cfg: &TutorConfig,
    learner: &mut dyn FnMut(&TutorSession) -> String,
) -> Result<TutorReport, TutorError> {
    let mut s = TutorSession::start(model, task.clone(), cfg)?;
    let mut report = TutorReport::default();
    loop {
        match s.prepare(model, runner, cfg)? {
            Prepared::Finished => break,
            Prepared::Stuck { index, problem } => {
                report.stuck = Some(format!("step {} ({}): {problem}", index + 1, s.steps[index].text));
                break;
            }
            Prepared::Step(_) => {
                let mut accepted = false;
                for _ in 0..cfg.reveal_after.max(1) {
                    let lines = learner(&s);
                    report.submissions += 1;
                    if s.submit(Some(&mut *model), runner, cfg, &lines)?.accepted() {
                        accepted = true;
                        break;
                    }
                }
                if !accepted {
                    s.reveal()?;
                }
            }
        }
    }
    report.plan = s.plan();
    report.steps_done = s.current;
    report.generations = s.generations;
    report.refinements = s.steps.iter().map(|st| st.tries.len().saturating_sub(1)).sum();
    report.replans = s.replans;
    finish(model, runner, task, cfg, s.code.clone(), cfg.final_attempts, &mut report)?;
    Ok(report)
}

/// The one-shot baseline: the model writes the whole program at once (greedy), then the same
/// final attempts as the tutor (`attempts` of them).
pub fn one_shot(model: &mut TutorModel, runner: &mut dyn CodeRunner, task: &Task, cfg: &TutorConfig, attempts: usize) -> Result<TutorReport, TutorError> {
    let program = draft(model, task, cfg)?;
    let mut report = TutorReport { generations: 1, ..TutorReport::default() };
    finish(model, runner, task, cfg, program, attempts, &mut report)?;
    Ok(report)
}

/// The whole program in one greedy generation (the one-shot baseline, and the tutor's draft).
pub fn draft(model: &mut TutorModel, task: &Task, cfg: &TutorConfig) -> Result<String, TutorError> {
    let text = model.complete(&prompt::one_shot(task), cfg.program_tokens, &program_stops(task), &Sampling::greedy())?;
    Ok(format!("{}{}", task.start_code(), clean_snippet(&text, task.is_function())))
}

/// Runs `program` against the tests up to `attempts` times; between runs the model rewrites it
/// with the failure in the prompt (greedy first, then sampled).
pub fn finish(
    model: &mut TutorModel,
    runner: &mut dyn CodeRunner,
    task: &Task,
    cfg: &TutorConfig,
    mut program: String,
    attempts: usize,
    report: &mut TutorReport,
) -> Result<(), TutorError> {
    for attempt in 1..=attempts.max(1) {
        let t = TutorSession::test(task, runner, cfg, &program);
        report.final_attempts = attempt;
        report.problem = t.problem.clone();
        if t.passed {
            report.passed = true;
            report.passed_at = Some(attempt);
            break;
        }
        if attempt < attempts {
            let failure = t.problem.unwrap_or_default();
            let sampling =
                if attempt == 1 { Sampling::greedy() } else { Sampling { temperature: 0.7, seed: cfg.seed.wrapping_add(100 + attempt as u64), ..Sampling::default() } };
            let text = model.complete(&prompt::fix_program(task, &program, &failure), cfg.program_tokens, &program_stops(task), &sampling)?;
            report.generations += 1;
            program = format!("{}{}", task.start_code(), clean_snippet(&text, task.is_function()));
        }
    }
    report.program = program;
    Ok(())
}

fn program_stops(task: &Task) -> Vec<String> {
    let mut s = vec!["```".to_string()];
    if task.is_function() {
        s.extend(["\nif __name__", "\nprint(", "\nassert ", "\n# Test", "\n# Example"].map(String::from));
    }
    s
}
