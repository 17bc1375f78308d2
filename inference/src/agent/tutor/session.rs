//! One task being tutored: the plan, the code so far, the step in progress. Serializable, so a
//! host (the app's worker) can keep it between messages; the model and the runner are passed in
//! to each call.

use super::behaviour::{Behaviour, Difference, compare};
use super::code::{self, assigned_names, clean_snippet, driver, normalized, pad_block_openers, with_probe};
use super::prompt::{self, Prompt};
use super::{CodeRunner, Task, TutorConfig, TutorError, TutorModel};
use crate::llm::{Sampling, Schema};
use crate::sandbox::{RunResult, RunStatus, SyntaxIssue, check_syntax};
use serde::{Deserialize, Serialize};

/// One step of the plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The logic step in plain language.
    pub text: String,
    /// Indentation of the step's comment (set when the step is prepared).
    pub indent: usize,
    /// The tutor's checked lines for the step (`None` until prepared).
    pub reference: Option<String>,
    /// The tutor's tries, the accepted one last.
    pub tries: Vec<Try>,
    /// The learner's submissions so far.
    pub submissions: usize,
    /// How the step was finished.
    pub done: Option<Acceptance>,
    /// The tutor's draft's lines for this step (`TutorConfig::draft_steps`): its first try.
    #[serde(default)]
    pub draft_lines: Option<String>,
}

/// One try of the tutor at a step's code.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Try {
    pub snippet: String,
    /// What went wrong (`None`: it ran).
    pub problem: Option<String>,
}

/// How a step was accepted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Acceptance {
    /// The learner typed the tutor's lines (up to spacing and comments).
    Exact,
    /// Different code with the same behaviour on the step's checks.
    SameBehaviour,
    /// Same visible results, different inner values; the model judged it right.
    Judged { p_yes: f64 },
    /// The learner took the tutor's lines.
    Revealed,
}

/// What the learner sees of the step in progress (never the tutor's lines).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepView {
    /// 0-based.
    pub index: usize,
    pub total: usize,
    pub text: String,
    /// The code so far, ending with this step's comment; the learner types what follows.
    pub code: String,
    /// Where the step's lines start (spaces).
    pub indent: usize,
}

/// What [`TutorSession::prepare`] found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Prepared {
    Step(StepView),
    /// Every step is done: run the tests.
    Finished,
    /// The tutor could not write code that runs for this step, even after re-planning.
    Stuck { index: usize, problem: String },
}

/// The verdict on the learner's lines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Verdict {
    Accepted { how: Acceptance },
    /// Nothing was typed.
    Empty,
    /// Not Python yet; `line` is within the learner's lines.
    Syntax { line: usize, issue: SyntaxIssue },
    /// Runs, but not like the step should.
    Differs { difference: Difference },
}

/// The answer to a submission.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Feedback {
    pub verdict: Verdict,
    /// Plain language: what is right, or the main flaw.
    pub message: String,
    /// A model-written hint (no code), when enabled and wrong.
    pub hint: Option<String>,
    /// The tutor's lines, only after `reveal_after` unsuccessful tries.
    pub answer: Option<String>,
    /// The model's probability that the lines do what the step asks, when it was asked (the
    /// visible results agreed and only inner values differed).
    pub p_yes: Option<f64>,
}

impl Feedback {
    pub fn accepted(&self) -> bool {
        matches!(self.verdict, Verdict::Accepted { .. })
    }
}

/// A run of a whole program against the task's tests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestRun {
    pub passed: bool,
    /// Why it failed, in words the model and the learner can use.
    pub problem: Option<String>,
    pub duration_ms: u64,
}

/// A task being tutored.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TutorSession {
    pub task: Task,
    pub steps: Vec<Step>,
    /// The step in progress (0-based); `steps.len()` when all are done.
    pub current: usize,
    /// The program so far: the starter, then each finished step's comment and lines.
    pub code: String,
    pub replans: usize,
    /// Model generations of step code (first tries and refinements).
    pub generations: usize,
    /// The tutor's worked solution the plan was drawn from (`TutorConfig::draft_first`); never
    /// shown to the learner.
    #[serde(default)]
    pub draft: Option<String>,
    #[serde(skip)]
    reference_behaviour: Option<Behaviour>,
}

/// How far (in log-odds) the model may rate the learner's lines below the tutor's own and still
/// accept them; chosen on one hand-made example (two right alternatives at -0.38 and -0.30, three
/// wrong ones at -0.62 to -0.95 with Qwen2.5-Coder-0.5B), so treat it as a starting point.
pub const JUDGE_TOLERANCE: f64 = 0.5;

/// Stop strings for code continuations: the end of the code block, and top-level example code
/// after a function.
fn code_stops(task: &Task, step: bool) -> Vec<String> {
    let mut s = vec!["```".to_string()];
    if task.is_function() {
        s.extend(["\nif __name__", "\nprint(", "\nassert ", "\n# Test", "\n# Example"].map(String::from));
    }
    if step {
        s.push("# Step".into());
    }
    s
}

fn retry_sampling(cfg: &TutorConfig, attempt: usize) -> Sampling {
    if attempt == 0 {
        return Sampling::greedy();
    }
    Sampling { temperature: 0.7, seed: cfg.seed.wrapping_add(attempt as u64), ..Sampling::default() }
}

impl TutorSession {
    /// Plans the task: the model writes the steps (JSON under a schema, no code); with
    /// `cfg.draft_first` it first writes a whole solution and the plan describes that.
    pub fn start(model: &mut TutorModel, task: Task, cfg: &TutorConfig) -> Result<TutorSession, TutorError> {
        let draft = match cfg.draft_first || cfg.draft_steps {
            true => Some(super::drive::draft(model, &task, cfg)?),
            false => None,
        };
        let code = task.start_code();
        let parts = match (&draft, cfg.draft_steps) {
            (Some(d), true) => code::segments(d.strip_prefix(code.as_str()).unwrap_or(d), cfg.max_steps),
            _ => Vec::new(),
        };
        let steps = if parts.is_empty() {
            plan_steps(model, &prompt::plan(&task, cfg.max_steps, draft.as_deref()), cfg)?
        } else {
            // A comment the draft wrote above a part's lines says what they do: it becomes the
            // step's sentence and leaves the lines (the step's own `# Step k:` comment replaces it).
            let (comments, parts): (Vec<Option<String>>, Vec<String>) = parts
                .into_iter()
                .map(|p| match code::leading_comment(&p).and_then(prompt::part_sentence) {
                    Some(c) => (Some(c), code::without_leading_comment(&p)),
                    None => (None, p),
                })
                .unzip();
            let mut texts: Vec<String> = Vec::with_capacity(parts.len());
            for (k, (part, comment)) in parts.iter().zip(comments).enumerate() {
                // Else a constant returned after an early return is said from the code; else the
                // model's sentence.
                let text = match comment.or_else(|| code::fallthrough_return(&parts[..k].concat(), part)) {
                    Some(c) => c,
                    None => describe_part(model, &task, &parts, &texts)?.unwrap_or_else(|| "Write the next lines of the solution".into()),
                };
                texts.push(text);
            }
            texts.iter().zip(parts).map(|(text, part)| Step { draft_lines: Some(part), ..new_step(text) }).collect()
        };
        Ok(TutorSession { task, steps, current: 0, code, replans: 0, generations: draft.is_some() as usize, draft, reference_behaviour: None })
    }

    /// A session with a given plan (no model call), e.g. one a teacher wrote.
    pub fn with_plan(task: Task, steps: &[&str]) -> TutorSession {
        let code = task.start_code();
        let steps = steps.iter().map(|s| new_step(s)).collect();
        TutorSession { task, steps, current: 0, code, replans: 0, generations: 0, draft: None, reference_behaviour: None }
    }

    /// A fixed plan with the tutor's lines for each step, e.g. a teacher's worked solution (no
    /// model needed to practise it). Steps are compared as written, so later ones assume the names
    /// the earlier reference lines use.
    pub fn with_reference(task: Task, steps: &[(&str, &str)]) -> TutorSession {
        let mut s = Self::with_plan(task, &steps.iter().map(|(t, _)| *t).collect::<Vec<_>>());
        let mut code = s.code.clone();
        for (k, (step, (_, reference))) in s.steps.iter_mut().zip(steps).enumerate() {
            let reference = clean_snippet(reference, false);
            step.indent = code::base_indent(&reference).unwrap_or_else(|| code::indent_candidates(&code, 0)[0]);
            code = format!("{code}{}{reference}", prompt::step_comment(k + 1, &step.text, step.indent));
            step.reference = Some(reference);
        }
        s
    }

    /// The steps' texts.
    pub fn plan(&self) -> Vec<String> {
        self.steps.iter().map(|s| s.text.clone()).collect()
    }

    /// The step in progress as the learner sees it.
    pub fn view(&self) -> Option<StepView> {
        let s = self.steps.get(self.current)?;
        s.reference.as_ref()?;
        Some(StepView { index: self.current, total: self.steps.len(), text: s.text.clone(), code: self.code_with_comment(), indent: s.indent })
    }

    fn code_with_comment(&self) -> String {
        let s = &self.steps[self.current];
        format!("{}{}", self.code, prompt::step_comment(self.current + 1, &s.text, s.indent))
    }

    /// Makes the current step ready for the learner: the model writes its code, which must run
    /// (up to `max_refinements` fixes with the error fed back, then a re-plan of the rest).
    pub fn prepare(&mut self, model: &mut TutorModel, runner: &mut dyn CodeRunner, cfg: &TutorConfig) -> Result<Prepared, TutorError> {
        loop {
            if self.current >= self.steps.len() {
                return Ok(Prepared::Finished);
            }
            if self.steps[self.current].reference.is_some() {
                return Ok(Prepared::Step(self.view().expect("prepared")));
            }
            let k = self.current;
            let plan = self.plan();
            // The draft's part, with the indentation it has in the draft.
            let draft_lines = self.steps[k].draft_lines.clone().and_then(|d| code::base_indent(&d).map(|i| (d, i)));
            self.steps[k].indent = match &draft_lines {
                Some((_, indent)) => *indent,
                // Where the step goes: the indentation the model finds most likely for its comment.
                None => {
                    let candidates = code::indent_candidates(&self.code, self.task.min_indent());
                    let comments: Vec<String> = candidates.iter().map(|&i| prompt::step_comment(k + 1, &plan[k], i)).collect();
                    let best = model.most_likely(&prompt::step(&self.task, &plan, self.draft.as_deref(), &self.code, 0, None), &comments)?;
                    candidates[best]
                }
            };
            let code = self.code_with_comment();
            let mut last: Option<(String, String)> = None;
            for attempt in 0..=cfg.max_refinements {
                let retry = last.as_ref().map(|(_, e)| e.as_str());
                let snippet = match (&draft_lines, attempt) {
                    (Some((d, _)), 0) => d.clone(),
                    _ => {
                        let p = prompt::step(&self.task, &plan, self.draft.as_deref(), &code, self.steps[k].indent, retry);
                        let text = model.complete(&p, cfg.step_tokens, &code_stops(&self.task, true), &retry_sampling(cfg, attempt))?;
                        self.generations += 1;
                        clean_snippet(&text, self.task.is_function())
                    }
                };
                let problem = self.check_snippet(runner, cfg, &code, &snippet);
                self.steps[k].tries.push(Try { snippet: snippet.clone(), problem: problem.clone() });
                match problem {
                    None => {
                        self.steps[k].reference = Some(snippet);
                        self.reference_behaviour = None;
                        break;
                    }
                    Some(e) => last = Some((snippet, e)),
                }
            }
            if self.steps[k].reference.is_some() {
                continue;
            }
            let error = last.map(|(_, e)| e).unwrap_or_default();
            if self.replans >= cfg.max_replans {
                return Ok(Prepared::Stuck { index: k, problem: error });
            }
            self.replans += 1;
            let p = prompt::replan(&self.task, &self.code, &plan[k], &error, cfg.max_steps, self.draft.as_deref());
            let fresh = plan_steps(model, &p, cfg)?;
            self.steps.truncate(k);
            self.steps.extend(fresh);
        }
    }

    /// Syntax-checks and runs `code` + `snippet` on the task's inputs; the problem, if any.
    fn check_snippet(&self, runner: &mut dyn CodeRunner, cfg: &TutorConfig, code: &str, snippet: &str) -> Option<String> {
        if normalized(snippet).is_empty() {
            // A later step may already be done by the code above; the first never is.
            return (self.current == 0).then(|| "No code was written for this step.".to_string());
        }
        let src = pad_block_openers(&format!("{code}{snippet}"));
        if let Err(issue) = check_syntax(&src) {
            return Some(format!("SyntaxError on the line `{}`: {} ({})", line_of(&src, issue.line), issue.message, issue.hint));
        }
        let last_step = self.current + 1 == self.steps.len();
        for r in self.check_runs(runner, cfg, &src) {
            match r.status {
                RunStatus::Ok => {}
                RunStatus::Error => return Some(describe_error(&r, &src, &self.task)),
                RunStatus::Timeout | RunStatus::Killed(_) if last_step => {
                    return Some(format!("The program did not finish within {} ms: is there a loop that never ends?", cfg.check.timeout_ms));
                }
                // A loop a later step finishes.
                RunStatus::Timeout | RunStatus::Killed(_) => {}
            }
        }
        None
    }

    /// Runs `src` on the task's inputs: one run calling the function on each, or one run per stdin.
    fn check_runs(&self, runner: &mut dyn CodeRunner, cfg: &TutorConfig, src: &str) -> Vec<RunResult> {
        match &self.task.entry_point {
            Some(f) => vec![runner.run(&format!("{src}\n{}", driver(f, &self.task.inputs)), &cfg.check)],
            None if self.task.inputs.is_empty() => vec![runner.run(src, &cfg.check)],
            None => self
                .task
                .inputs
                .iter()
                .map(|stdin| runner.run(src, &crate::sandbox::RunOptions { stdin: stdin.clone(), ..cfg.check.clone() }))
                .collect(),
        }
    }

    /// Checks the learner's lines for the current step: syntax (no run), then behaviour against
    /// the tutor's lines, then (inner values differ only) the model's judgement. On acceptance the
    /// lines join the program and the next step becomes current. Without a model there is no
    /// judgement and no model-written hint.
    pub fn submit(&mut self, mut model: Option<&mut TutorModel>, runner: &mut dyn CodeRunner, cfg: &TutorConfig, lines: &str) -> Result<Feedback, TutorError> {
        let Some(reference) = self.steps.get(self.current).and_then(|s| s.reference.clone()) else {
            return Err(TutorError::NotReady);
        };
        let lines = clean_snippet(lines, false);
        self.steps[self.current].submissions += 1;
        let k = self.current;
        let code = self.code_with_comment();
        if normalized(&lines).is_empty() && !normalized(&reference).is_empty() {
            return Ok(self.wrong(Verdict::Empty, format!("Type the lines for step {}: {}", k + 1, self.steps[k].text), None, cfg));
        }
        let src = pad_block_openers(&format!("{code}{lines}"));
        if let Err(issue) = check_syntax(&src) {
            let offset = code.lines().count();
            let line = issue.line.saturating_sub(offset).max(1);
            let message = format!("Line {line} of your lines is not valid Python yet: {}. {}", issue.message, issue.hint);
            return Ok(self.wrong(Verdict::Syntax { line, issue }, message, None, cfg));
        }
        let exact = normalized(&lines) == normalized(&reference);
        let learner = Behaviour::observe(&self.check_runs(runner, cfg, &with_probe(&code, &lines)));
        if self.reference_behaviour.is_none() {
            self.reference_behaviour = Some(Behaviour::observe(&self.check_runs(runner, cfg, &with_probe(&code, &reference))));
        }
        let difference = compare(self.reference_behaviour.as_ref().expect("set above"), &learner, &assigned_names(&reference));
        let mut p_yes = None;
        let how = match &difference {
            _ if exact => Some(Acceptance::Exact),
            None => Some(Acceptance::SameBehaviour),
            Some(d) if d.inner_only() && model.is_some() => {
                let p = self.judge(model.as_deref_mut().expect("checked"), &reference, &lines, &learner)?;
                p_yes = Some(p);
                (p > 0.5).then_some(Acceptance::Judged { p_yes: p })
            }
            Some(_) => None,
        };
        if let Some(how) = how {
            let message = match how {
                Acceptance::Exact => "Correct.".to_string(),
                _ => "Correct: your lines work differently from mine, and that is fine.".to_string(),
            };
            self.accept(lines, how.clone());
            return Ok(Feedback { verdict: Verdict::Accepted { how }, message, hint: None, answer: None, p_yes });
        }
        let difference = difference.expect("not accepted, so different");
        let mut message = self.describe(&difference, &code);
        if let (Some(want), Some(got)) = (code::base_indent(&reference), code::base_indent(&lines)) {
            if want != got {
                message = format!("Check the indentation: this step's lines start {want} spaces in, yours start {got}. {message}");
            }
        }
        let hint = match model {
            Some(m) if cfg.model_hints => self.model_hint(m, &code, &reference, &lines, &message)?,
            _ => None,
        };
        let mut f = self.wrong(Verdict::Differs { difference }, message, hint, cfg);
        f.p_yes = p_yes;
        Ok(f)
    }

    fn wrong(&self, verdict: Verdict, message: String, hint: Option<String>, cfg: &TutorConfig) -> Feedback {
        let s = &self.steps[self.current];
        let answer = (s.submissions >= cfg.reveal_after).then(|| s.reference.clone()).flatten();
        Feedback { verdict, message, hint, answer, p_yes: None }
    }

    fn accept(&mut self, lines: String, how: Acceptance) {
        self.code = format!("{}{}", self.code_with_comment(), lines);
        self.steps[self.current].done = Some(how);
        self.current += 1;
        self.reference_behaviour = None;
    }

    /// The learner takes the tutor's lines for the current step.
    pub fn reveal(&mut self) -> Result<String, TutorError> {
        let Some(reference) = self.steps.get(self.current).and_then(|s| s.reference.clone()) else {
            return Err(TutorError::NotReady);
        };
        self.accept(reference.clone(), Acceptance::Revealed);
        Ok(reference)
    }

    /// The model's judgement of the learner's lines, as a probability: the log-odds of "Yes"
    /// over "No" for them, minus the same for the tutor's own lines, plus [`JUDGE_TOLERANCE`],
    /// through a logistic. So lines rated within the tolerance of the tutor's pass (> 0.5). The
    /// prompt shows what both versions computed on the first check.
    fn judge(&self, model: &mut TutorModel, reference: &str, lines: &str, learner: &Behaviour) -> Result<f64, TutorError> {
        let step = &self.steps[self.current].text;
        let first = |b: &Behaviour, names: &[String]| {
            b.probes.first().map_or(String::new(), |p| {
                p.iter().filter(|(k, _)| names.contains(k)).map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ")
            })
        };
        let reference_b = self.reference_behaviour.as_ref().expect("observed before judging");
        let on = self.check_name(0);
        let (rv, lv) = (first(reference_b, &assigned_names(reference)), first(learner, &assigned_names(lines)));
        let values = prompt::Values { on: &on, reference: &rv, learner: &lv };
        let values = (!rv.is_empty() || !lv.is_empty()).then_some(&values);
        let yes_no = |s: Vec<f64>| s[0] - s[1];
        let mine = yes_no(model.score(&prompt::judge(step, reference, lines, values), &["Yes", "No"])?);
        let same = prompt::Values { learner: &rv, ..values.cloned().unwrap_or_default() };
        let theirs = yes_no(model.score(&prompt::judge(step, reference, reference, values.map(|_| &same)), &["Yes", "No"])?);
        Ok(1.0 / (1.0 + (-(mine - theirs + JUDGE_TOLERANCE)).exp()))
    }

    /// The `i`-th check in words: "`f(1, 2)`" or "the input \"4\\n\"".
    fn check_name(&self, i: usize) -> String {
        match (&self.task.entry_point, self.task.inputs.get(i)) {
            (Some(f), Some(args)) => format!("`{f}({args})`"),
            (None, Some(stdin)) => format!("the input {stdin:?}"),
            _ => "the step's check".into(),
        }
    }

    /// The main flaw in plain language, without the tutor's code.
    fn describe(&self, d: &Difference, code: &str) -> String {
        let call = |i: usize| self.check_name(i);
        let offset = code.lines().count();
        match d {
            Difference::Raised { type_name, message, line } => {
                let at = match line {
                    Some(l) if *l > offset => format!(" on line {} of your lines", l - offset),
                    _ => String::new(),
                };
                format!("Your lines stop with {type_name}{at}: {message}. {}", error_advice(type_name))
            }
            Difference::Output { expected: Some(e), got: Some(g) } => {
                format!("The program prints {g:?} where this step should make it print {e:?}.")
            }
            Difference::Output { expected: Some(e), got: None } => format!("The program should also print {e:?} by the end of this step."),
            Difference::Output { expected: None, got: Some(g) } => format!("The program prints {g:?}, which this step should not print."),
            Difference::Output { .. } => "The program's output differs from what this step should print.".into(),
            Difference::Return { input, expected, got } => {
                format!("For {} the function returns {got} but after this step it should return {expected}.", call(*input))
            }
            Difference::Value { expected, .. } => format!(
                "After this step some variable should hold {expected} (checking {}); none of yours does. Which value does the step compute?",
                call(0)
            ),
            Difference::Flow { expected, got } => format!(
                "The end of this step is reached {got} time(s) where it should be reached {expected} time(s): check the loop or the condition."
            ),
            Difference::Timeout => "Your lines do not finish in time: is there a loop whose condition never becomes false?".into(),
        }
    }

    /// A model-written hint, or `None` when it would give the code away.
    fn model_hint(&self, model: &mut TutorModel, code: &str, reference: &str, lines: &str, problem: &str) -> Result<Option<String>, TutorError> {
        let p = prompt::hint(&self.steps[self.current].text, code, reference, lines, problem);
        let text = model.complete(&p, 80, &["```".to_string(), "\n\n".to_string()], &Sampling::greedy())?;
        let text = text.trim().to_string();
        let gives_away = normalized(reference).iter().map(|l| l.trim()).filter(|l| l.len() >= 6).any(|l| text.contains(l));
        Ok((!text.is_empty() && !gives_away).then_some(text))
    }

    /// Runs `program` against the task's tests.
    pub fn test(task: &Task, runner: &mut dyn CodeRunner, cfg: &TutorConfig, program: &str) -> TestRun {
        let src = format!("{}\n\n{}", code::with_newline(program), task.tests);
        let r = runner.run(&src, &cfg.test);
        let problem = match r.status {
            RunStatus::Ok => None,
            RunStatus::Error => Some(describe_error(&r, &src, task) + &Self::returned(task, runner, cfg, program, &r, &src)),
            RunStatus::Timeout => Some(format!("The tests did not finish within {} ms: is there a loop that never ends?", cfg.test.timeout_ms)),
            RunStatus::Killed(why) => Some(format!("The program was stopped ({why}).")),
        };
        TestRun { passed: problem.is_none(), problem, duration_ms: r.duration_ms }
    }
}

impl TutorSession {
    /// For a failed `assert f(args) == …` in the tests: what the program returns for those
    /// arguments (`; \`f(2)\` returned 3`), found by one more run.
    fn returned(task: &Task, runner: &mut dyn CodeRunner, cfg: &TutorConfig, program: &str, r: &RunResult, src: &str) -> String {
        let (Some(entry), Some(e)) = (&task.entry_point, &r.exception) else { return String::new() };
        let Some(line) = e.line.filter(|&l| e.type_name == "AssertionError" && l > code::with_newline(program).lines().count()) else {
            return String::new();
        };
        let Some(args) = code::first_call(&code::statement_at(src, line), &["candidate", entry]) else { return String::new() };
        let run = runner.run(&format!("{}\n{}", code::with_newline(program), driver(entry, &[args.clone()])), &cfg.check);
        match (&run.status, run.stdout.lines().find_map(|l| l.strip_prefix(code::RET_MARK))) {
            (RunStatus::Ok, Some(got)) => format!("; `{entry}({args})` returned {}", got.trim()),
            (RunStatus::Error, _) => format!("; `{entry}({args})` raised {}", describe_error(&run, "", task)),
            _ => String::new(),
        }
    }
}

fn new_step(text: &str) -> Step {
    Step { text: prompt::one_line(text), indent: 0, reference: None, tries: Vec::new(), submissions: 0, done: None, draft_lines: None }
}

/// Tokens for one part's sentence (the shots' are under 20).
const DESCRIBE_TOKENS: usize = 48;

/// The model's sentence for the part after `done`. A small model may repeat an earlier step (it
/// is a comment just above in the prompt); then the sentence opens with one of the three
/// likeliest other words of [`prompt::STEP_VERBS`] and the model goes on from there, until one
/// says something new (else the repeat stays).
fn describe_part(model: &mut TutorModel, task: &Task, parts: &[String], done: &[String]) -> Result<Option<String>, TutorError> {
    let p = prompt::describe_part(task, parts, done);
    let stops = ["\n".to_string(), "```".to_string()];
    let repeats = |t: &String| done.iter().any(|d| prompt::same_step(d, t));
    let text = prompt::part_sentence(&model.complete(&p, DESCRIBE_TOKENS, &stops, &Sampling::greedy())?);
    let Some(repeated) = text.clone().filter(repeats) else { return Ok(text) };
    let opening = repeated.split_whitespace().next().unwrap_or_default();
    let words: Vec<String> = prompt::STEP_VERBS.iter().filter(|v| !v.eq_ignore_ascii_case(opening)).map(|v| format!(" {v}")).collect();
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let scores = model.score(&p, &refs)?;
    let mut order: Vec<usize> = (0..words.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    for &i in order.iter().take(3) {
        let opened = Prompt { prefill: format!("{}{}", p.prefill, words[i]), ..p.clone() };
        let rest = model.complete(&opened, DESCRIBE_TOKENS, &stops, &Sampling::greedy())?;
        if let Some(t) = prompt::part_sentence(&format!("{}{rest}", words[i])).filter(|t| !repeats(t)) {
            return Ok(Some(t));
        }
    }
    Ok(Some(repeated))
}

/// Asks for a plan (JSON under the plan schema) and reads its steps.
fn plan_steps(model: &mut TutorModel, p: &Prompt, cfg: &TutorConfig) -> Result<Vec<Step>, TutorError> {
    let schema = Schema::parse(&prompt::plan_schema(cfg.max_steps)).map_err(crate::llm::JsonError::from)?;
    // A light repetition penalty keeps a small model from writing the same step twice.
    let sampling = Sampling { repeat_penalty: 1.1, repeat_last_n: 256, ..Sampling::greedy() };
    let v = model.json(p, &schema, cfg.plan_tokens, &sampling)?;
    let steps: Vec<Step> = v["steps"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s.as_str()).map(new_step).filter(|s| !s.text.is_empty()).collect())
        .unwrap_or_default();
    if steps.is_empty() {
        // The schema asks for at least one step; keep the loop going with the task itself.
        return Ok(vec![new_step("Write the code that solves the task")]);
    }
    Ok(steps)
}

/// Line `n` (1-based) of `src`, trimmed.
fn line_of(src: &str, n: usize) -> String {
    src.lines().nth(n.saturating_sub(1)).unwrap_or("").trim().to_string()
}

/// An exception in words: type, message and the line it came from.
fn describe_error(r: &RunResult, src: &str, task: &Task) -> String {
    let Some(e) = &r.exception else {
        return r.stderr.lines().last().unwrap_or("the program failed").to_string();
    };
    let at = match e.line {
        Some(l) => {
            let text = code::statement_at(src, l);
            if text.is_empty() {
                String::new()
            } else if text.contains(code::RET_MARK) {
                let f = task.entry_point.as_deref().unwrap_or("the function");
                let call = text.split_once("repr(").and_then(|(_, c)| c.strip_suffix("))")).unwrap_or(f);
                format!(" when calling `{call}`")
            } else {
                format!(" on the line `{text}`")
            }
        }
        None => String::new(),
    };
    let message = if e.message.is_empty() { String::new() } else { format!(": {}", e.message) };
    format!("{}{message}{at}", e.type_name)
}

/// What a learner can do about a common exception.
fn error_advice(type_name: &str) -> &'static str {
    match type_name {
        "NameError" => "Check the spelling, and that every name gets a value before it is used.",
        "TypeError" => "Check that each value has the type the operation needs (a number, a string, a list…).",
        "IndexError" => "An index is past the end of a list: remember indexes run from 0 to len - 1.",
        "KeyError" => "A key is missing from the dictionary: check it exists before reading it.",
        "ZeroDivisionError" => "Something is divided by zero: check the divisor first.",
        "AttributeError" => "The value has no such method or attribute: check its type and the name.",
        "ValueError" => "A value has the right type but the wrong content (e.g. int('a')).",
        "UnboundLocalError" => "A variable is used before it gets a value in this function.",
        "RecursionError" => "The function calls itself without reaching a stopping case.",
        _ => "Read the message and look at the line it names.",
    }
}
