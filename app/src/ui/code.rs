//! The Code view's state: the problem being practised (a [`TutorSession`] built from the
//! teacher's steps in `problems.json`, no model needed, or planned by the model from a task the
//! learner wrote, each step prepared by the model when it comes up), the learner's editor, the
//! last run and the tutor's feedback. Pure logic, tested natively; the component renders it and the
//! [`super::sandbox::SandboxClient`] carries its requests.

use crate::protocol::Progress;
use crate::sandbox_protocol::{SandboxReply, SandboxRequest, RUN_TIMEOUT_MS, uses_model};
use crate::ui::sandbox::SandboxEvent;
use inference::agent::tutor::code::pad_block_openers;
use inference::agent::tutor::{Feedback, Prepared, Task, TestRun, TutorSession, Verdict};
use inference::sandbox::{RunResult, RunStatus, SyntaxIssue};
use serde::{Deserialize, Serialize};
use std::rc::Rc;
use yew::Reducible;

/// One practice problem of `problems.json`: a task and the teacher's steps with their lines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Problem {
    pub id: String,
    pub title: String,
    pub task: Task,
    /// (what the step does, the teacher's lines for it).
    pub steps: Vec<(String, String)>,
}

impl Problem {
    pub fn session(&self) -> TutorSession {
        let steps: Vec<(&str, &str)> = self.steps.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        TutorSession::with_reference(self.task.clone(), &steps)
    }
}

/// What is kept in IndexedDB: enough to carry on after a reload.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Saved {
    pub problem: Option<String>,
    pub session: Option<TutorSession>,
    pub editor: String,
    #[serde(default)]
    pub tests: Option<TestRun>,
    /// The task box, as typed.
    #[serde(default)]
    pub task_text: String,
}

/// How the last run ended, for `code-output`.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    Running,
    Ran(RunResult),
    /// The program did not parse; nothing ran.
    Syntax(SyntaxIssue),
    /// No answer within the time limit: the worker was terminated and replaced.
    TimedOut { after_ms: u64 },
    /// The worker trapped (memory) or panicked: replaced.
    Killed(String),
}

impl Output {
    /// `data-status`: running | ok | error | timeout | killed.
    pub fn status(&self) -> &'static str {
        match self {
            Output::Running => "running",
            Output::Ran(r) => match r.status {
                RunStatus::Ok => "ok",
                RunStatus::Error => "error",
                RunStatus::Timeout => "timeout",
                RunStatus::Killed(_) => "killed",
            },
            Output::Syntax(_) => "error",
            Output::TimedOut { .. } => "timeout",
            Output::Killed(_) => "killed",
        }
    }
}

/// The tutor's answer, for `code-feedback`.
#[derive(Clone, Debug, PartialEq)]
pub enum Said {
    Checking,
    Feedback(Feedback),
    /// The check itself ran out of time (a loop that never ends in the learner's lines).
    TimedOut,
    Killed(String),
    Testing,
    Tested(TestRun),
    /// The model is planning the learner's task.
    Planning,
    /// The tutor's model is being downloaded (the first time) or read, for a plan or a step.
    Fetching(Progress),
    /// The model is writing the current step.
    Preparing,
    /// The model could not write code that runs for step `index` (0-based).
    Stuck { index: usize, problem: String },
    /// A model request failed; the message says what to do.
    Unavailable(String),
}

impl Said {
    /// `data-verdict`: checking | accepted | empty | syntax | differs | timeout | killed | testing | passed | failed | planning | fetching | preparing | stuck | unavailable.
    pub fn verdict(&self) -> &'static str {
        match self {
            Said::Checking => "checking",
            Said::Feedback(f) => match f.verdict {
                Verdict::Accepted { .. } => "accepted",
                Verdict::Empty => "empty",
                Verdict::Syntax { .. } => "syntax",
                Verdict::Differs { .. } => "differs",
            },
            Said::TimedOut => "timeout",
            Said::Killed(_) => "killed",
            Said::Testing => "testing",
            Said::Tested(t) if t.passed => "passed",
            Said::Tested(_) => "failed",
            Said::Planning => "planning",
            Said::Fetching(_) => "fetching",
            Said::Preparing => "preparing",
            Said::Stuck { .. } => "stuck",
            Said::Unavailable(_) => "unavailable",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Run,
    Check,
    Test,
    Plan,
    Prepare,
}

impl Kind {
    /// What the tutor says while a request of this kind is worked on (a Run shows in the output).
    fn said(self) -> Option<Said> {
        match self {
            Kind::Run => None,
            Kind::Check => Some(Said::Checking),
            Kind::Test => Some(Said::Testing),
            Kind::Plan => Some(Said::Planning),
            Kind::Prepare => Some(Said::Preparing),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct CodeState {
    pub problems: Rc<Vec<Problem>>,
    pub problem: Option<String>,
    /// Sessions hold no PartialEq; compared through their JSON (see `PartialEq` use in Yew props).
    pub session: Option<Rc<SessionBox>>,
    pub editor: String,
    /// The task box (a task in the learner's words, for the model to plan).
    pub task_text: String,
    pub output: Option<Output>,
    pub said: Option<Said>,
    pub tests: Option<TestRun>,
    /// The request in flight.
    pub busy: Option<(u32, Kind)>,
    /// The last request id handed out.
    pub last_id: u32,
    /// Progress was read back from IndexedDB (or there was none): saving may begin.
    pub restored: bool,
    /// Bumped whenever something worth saving changed.
    pub revision: u32,
    /// The last revision written to IndexedDB.
    pub saved_revision: u32,
    /// Why the last save failed (a full quota); cleared by the next save that succeeds.
    pub save_error: Option<String>,
    /// A model request (plan or step) that failed, timed out or was killed: the Retry button
    /// sends it again.
    pub failed: Option<Kind>,
}

/// A [`TutorSession`] with equality by identity (Yew props need `PartialEq`).
#[derive(Debug)]
pub struct SessionBox(pub TutorSession);

impl PartialEq for SessionBox {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

pub enum CodeAction {
    Problems(Vec<Problem>),
    Restore(Option<Saved>),
    /// `None`: free practice.
    Pick(Option<String>),
    /// The learner's own task, typed in the task box.
    TaskText(String),
    Edit(String),
    /// A request was sent.
    Sent { id: u32, kind: Kind },
    Event(SandboxEvent),
    Reveal,
    /// Revision `n` is in IndexedDB.
    Saved(u32),
    /// Saving failed: why.
    SaveFailed(String),
}

impl CodeState {
    pub fn session(&self) -> Option<&TutorSession> {
        self.session.as_deref().map(|b| &b.0)
    }

    pub fn problem(&self) -> Option<&Problem> {
        let id = self.problem.as_ref()?;
        self.problems.iter().find(|p| &p.id == id)
    }

    pub fn saved(&self) -> Saved {
        Saved {
            problem: self.problem.clone(),
            session: self.session().cloned(),
            editor: self.editor.clone(),
            tests: self.tests.clone(),
            task_text: self.task_text.clone(),
        }
    }

    /// The code above the editor (read-only): the steps done so far and the current step's comment.
    pub fn code_above(&self) -> String {
        match self.session() {
            Some(s) => s.view().map(|v| v.code).unwrap_or_else(|| s.code.clone()),
            None => String::new(),
        }
    }

    /// Whether every step is done.
    pub fn finished(&self) -> bool {
        self.session().is_some_and(|s| s.current >= s.steps.len())
    }

    /// The next request id.
    pub fn next_id(&self) -> u32 {
        self.last_id + 1
    }

    /// The program a Run executes: the code above plus the editor (a trailing block opener gets
    /// `pass`), then, for a function task, a call on the first check input so there is output.
    pub fn run_request(&self, id: u32) -> SandboxRequest {
        let source = match self.session() {
            None => self.editor.clone(),
            Some(s) => {
                let editor = if self.finished() { String::new() } else { self.editor.clone() };
                let mut src = pad_block_openers(&format!("{}{}", self.code_above(), editor));
                if let (Some(f), Some(args)) = (&s.task.entry_point, s.task.inputs.first()) {
                    src = format!("{}\nprint({f}({args}))\n", src.trim_end());
                }
                src
            }
        };
        SandboxRequest::Run { id, source, stdin: String::new(), timeout_ms: RUN_TIMEOUT_MS }
    }

    /// The tutor's check of the editor's lines (`None` when there is no step to check).
    pub fn check_request(&self, id: u32) -> Option<SandboxRequest> {
        let s = self.session().filter(|s| !self.finished() && s.view().is_some())?;
        Some(SandboxRequest::Check { id, session: Box::new(s.clone()), lines: self.editor.clone() })
    }

    /// The model plans the task in the task box (`None` when it is empty).
    pub fn plan_request(&self, id: u32) -> Option<SandboxRequest> {
        let description = self.task_text.trim();
        (!description.is_empty()).then(|| SandboxRequest::Plan { id, task: Task { description: description.to_string(), ..Task::default() } })
    }

    /// Whether the current step of a model session still needs the model's code (after the
    /// learner finished the step before); not after the model got stuck or failed.
    pub fn needs_prepare(&self) -> bool {
        let blocked = matches!(self.said, Some(Said::Stuck { .. } | Said::Unavailable(_) | Said::TimedOut | Said::Killed(_)));
        self.awaiting_model().is_some() && !blocked
    }

    /// The model session whose current step has no code from the model yet.
    fn awaiting_model(&self) -> Option<&TutorSession> {
        self.session().filter(|s| uses_model(s) && s.current < s.steps.len() && s.view().is_none())
    }

    /// The model prepares the current step.
    pub fn prepare_request(&self, id: u32) -> Option<SandboxRequest> {
        let s = self.session().filter(|_| self.needs_prepare())?;
        Some(SandboxRequest::Prepare { id, session: Box::new(s.clone()) })
    }

    /// The failed model request again (`None` when nothing failed or it no longer applies).
    pub fn retry_request(&self, id: u32) -> Option<(SandboxRequest, Kind)> {
        match self.failed? {
            Kind::Plan => Some((self.plan_request(id)?, Kind::Plan)),
            Kind::Prepare => Some((SandboxRequest::Prepare { id, session: Box::new(self.awaiting_model()?.clone()) }, Kind::Prepare)),
            _ => None,
        }
    }

    /// The finished program against the tests.
    pub fn test_request(&self, id: u32) -> Option<SandboxRequest> {
        let s = self.session().filter(|_| self.finished())?;
        Some(SandboxRequest::Test { id, task: s.task.clone(), program: s.code.clone() })
    }

    /// Lines of the code above the editor (to map a program line to the learner's lines).
    pub fn offset(&self) -> usize {
        self.code_above().lines().count()
    }

    fn set_session(&mut self, s: Option<TutorSession>) {
        self.session = s.map(|s| Rc::new(SessionBox(s)));
    }

    /// The editor for the current step: its indentation, ready to type.
    fn fresh_editor(&self) -> String {
        self.session().and_then(|s| s.view()).map(|v| " ".repeat(v.indent)).unwrap_or_default()
    }
}

impl Reducible for CodeState {
    type Action = CodeAction;

    fn reduce(self: Rc<Self>, action: CodeAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            CodeAction::Problems(p) => s.problems = Rc::new(p),
            CodeAction::Restore(saved) => {
                if let Some(saved) = saved {
                    s.problem = saved.problem;
                    s.set_session(saved.session);
                    s.editor = saved.editor;
                    s.tests = saved.tests;
                    s.task_text = saved.task_text;
                }
                s.restored = true;
            }
            CodeAction::Pick(id) => {
                let session = id.as_ref().and_then(|id| s.problems.iter().find(|p| &p.id == id)).map(Problem::session);
                s.problem = id.filter(|_| session.is_some());
                s.set_session(session);
                s.editor = s.fresh_editor();
                s.output = None;
                s.said = None;
                s.tests = None;
                s.busy = None;
                s.failed = None;
                s.revision += 1;
            }
            // Typing is saved too (debounced by the view), so a reload or a crashed tab keeps it.
            CodeAction::Edit(text) => {
                s.editor = text;
                s.revision += 1;
            }
            CodeAction::TaskText(text) => {
                s.task_text = text;
                s.revision += 1;
            }
            CodeAction::Sent { id, kind } => {
                s.last_id = s.last_id.max(id);
                s.busy = Some((id, kind));
                if matches!(kind, Kind::Plan | Kind::Prepare) {
                    s.failed = None;
                }
                match kind {
                    Kind::Run => s.output = Some(Output::Running),
                    _ => s.said = kind.said(),
                }
                s.revision += 1;
            }
            CodeAction::Event(e) => s.apply(e),
            CodeAction::Saved(n) => {
                s.saved_revision = s.saved_revision.max(n);
                s.save_error = None;
            }
            CodeAction::SaveFailed(why) => s.save_error = Some(why),
            CodeAction::Reveal => {
                if let Some(mut session) = s.session().cloned() {
                    if session.reveal().is_ok() {
                        s.set_session(Some(session));
                        s.editor = s.fresh_editor();
                        s.said = None;
                        s.revision += 1;
                    }
                }
            }
        }
        Rc::new(s)
    }
}

impl CodeState {
    fn apply(&mut self, e: SandboxEvent) {
        match &e {
            SandboxEvent::Reply(SandboxReply::Progress { id, progress }) => {
                if self.busy.is_some_and(|(b, _)| b == *id) {
                    self.said = Some(Said::Fetching(progress.clone()));
                }
                return;
            }
            // The model has arrived and the request's own work begins.
            SandboxEvent::Reply(SandboxReply::Begun { id }) => {
                if let Some((_, kind)) = self.busy.filter(|(b, _)| b == id)
                    && matches!(self.said, Some(Said::Fetching(_)))
                {
                    self.said = kind.said();
                }
                return;
            }
            _ => {}
        }
        let id = match &e {
            SandboxEvent::Reply(SandboxReply::Ready | SandboxReply::Crashed { .. }) => return,
            SandboxEvent::Reply(r) => match r.id() {
                Some(id) => id,
                None => return,
            },
            SandboxEvent::TimedOut { id, .. } | SandboxEvent::Killed { id, .. } => *id,
        };
        let Some((busy, kind)) = self.busy.filter(|(b, _)| *b == id) else { return };
        let _ = busy;
        self.busy = None;
        match (kind, e) {
            (_, SandboxEvent::Reply(SandboxReply::Syntax { issue, .. })) => self.output = Some(Output::Syntax(issue)),
            (_, SandboxEvent::Reply(SandboxReply::Ran { result, .. })) => self.output = Some(Output::Ran(result)),
            (_, SandboxEvent::Reply(SandboxReply::Checked { session, feedback, .. })) => {
                let accepted = feedback.accepted();
                self.set_session(Some(*session));
                if accepted {
                    self.editor = self.fresh_editor();
                }
                self.said = Some(Said::Feedback(feedback));
                self.revision += 1;
            }
            (_, SandboxEvent::Reply(SandboxReply::Planned { session, prepared, .. })) => {
                if kind == Kind::Plan {
                    // A new task: the learner's own, not one of the problems.
                    self.problem = None;
                    self.tests = None;
                    self.output = None;
                }
                self.set_session(Some(*session));
                self.editor = self.fresh_editor();
                self.said = match prepared {
                    Prepared::Stuck { index, problem } => Some(Said::Stuck { index, problem }),
                    Prepared::Step(_) | Prepared::Finished => None,
                };
                self.revision += 1;
            }
            (_, SandboxEvent::Reply(SandboxReply::Failed { message, .. })) => self.said = Some(Said::Unavailable(message)),
            (_, SandboxEvent::Reply(SandboxReply::Tested { run, .. })) => {
                self.tests = Some(run.clone());
                self.said = Some(Said::Tested(run));
                self.revision += 1;
            }
            (Kind::Run, SandboxEvent::TimedOut { after_ms, .. }) => self.output = Some(Output::TimedOut { after_ms }),
            (Kind::Run, SandboxEvent::Killed { message, .. }) => self.output = Some(Output::Killed(message)),
            (_, SandboxEvent::TimedOut { .. }) => self.said = Some(Said::TimedOut),
            (_, SandboxEvent::Killed { message, .. }) => self.said = Some(Said::Killed(message)),
            (_, SandboxEvent::Reply(_)) => {}
        }
        if matches!(kind, Kind::Plan | Kind::Prepare) && matches!(self.said, Some(Said::Unavailable(_) | Said::TimedOut | Said::Killed(_))) {
            self.failed = Some(kind);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems() -> Vec<Problem> {
        serde_json::from_str(include_str!("../../../static/problems.json")).expect("problems.json parses")
    }

    #[test]
    fn every_problem_builds_a_session_with_its_steps() {
        let all = problems();
        assert!(all.len() >= 4);
        for p in &all {
            let s = p.session();
            assert_eq!(s.steps.len(), p.steps.len(), "{}", p.id);
            assert!(s.view().is_some(), "{}", p.id);
            assert!(p.task.entry_point.is_some() && !p.task.tests.is_empty() && !p.task.inputs.is_empty(), "{}", p.id);
        }
    }

    #[test]
    fn pick_run_and_reveal_walk_the_steps() {
        let mut s = Rc::new(CodeState::default());
        s = s.reduce(CodeAction::Problems(problems()));
        let first = s.problems[0].id.clone();
        s = s.reduce(CodeAction::Pick(Some(first.clone())));
        assert_eq!(s.problem.as_deref(), Some(first.as_str()));
        assert!(s.code_above().contains("# Step 1"));
        let SandboxRequest::Run { source, .. } = s.run_request(1) else { panic!() };
        assert!(source.contains("# Step 1") && source.trim_end().ends_with(')'), "{source}");
        s = s.reduce(CodeAction::Sent { id: 1, kind: Kind::Run });
        assert_eq!(s.output.as_ref().map(Output::status), Some("running"));
        s = s.reduce(CodeAction::Event(SandboxEvent::TimedOut { id: 1, after_ms: 7000 }));
        assert_eq!(s.output.as_ref().map(Output::status), Some("timeout"));
        assert!(s.busy.is_none());
        // A stale answer is ignored.
        s = s.reduce(CodeAction::Event(SandboxEvent::Killed { id: 1, message: "late".into() }));
        assert_eq!(s.output.as_ref().map(Output::status), Some("timeout"));
        let steps = s.session().unwrap().steps.len();
        for _ in 0..steps {
            s = s.reduce(CodeAction::Reveal);
        }
        assert!(s.finished());
        assert!(s.check_request(2).is_none() && s.test_request(2).is_some());
        let saved: Saved = serde_json::from_str(&serde_json::to_string(&s.saved()).unwrap()).unwrap();
        let r = Rc::new(CodeState::default()).reduce(CodeAction::Restore(Some(saved)));
        assert!(r.finished() && r.restored);
    }

    /// Typing is a change worth saving: the editor and the task box are in what is saved and
    /// come back on restore; a failed save is kept until a save succeeds.
    #[test]
    fn typing_is_saved_and_restored_and_a_failed_save_is_kept_until_one_succeeds() {
        let mut s = Rc::new(CodeState::default());
        s = s.reduce(CodeAction::Edit("x = 1".into()));
        assert_eq!(s.revision, 1);
        s = s.reduce(CodeAction::TaskText("add two numbers".into()));
        assert_eq!(s.revision, 2);
        s = s.reduce(CodeAction::SaveFailed("the browser's storage for this site is full (QuotaExceededError)".into()));
        assert!(s.save_error.is_some() && s.saved_revision < s.revision);
        s = s.reduce(CodeAction::Saved(2));
        assert!(s.save_error.is_none() && s.saved_revision == s.revision);
        let json = serde_json::to_string(&s.saved()).unwrap();
        let r = Rc::new(CodeState::default()).reduce(CodeAction::Restore(Some(serde_json::from_str(&json).unwrap())));
        assert_eq!((r.editor.as_str(), r.task_text.as_str()), ("x = 1", "add two numbers"));
        // Progress saved before the task box was kept still loads.
        let old: Saved = serde_json::from_str(r#"{"problem":null,"session":null,"editor":"print(1)"}"#).unwrap();
        assert_eq!((old.editor.as_str(), old.task_text.as_str()), ("print(1)", ""));
    }

    /// Every problem can be completed by typing the teacher's lines, and the finished program
    /// passes its tests (the native sandbox, with the browser's limits).
    #[test]
    fn every_problem_is_solvable_by_its_reference_and_judges_alternatives() {
        use inference::agent::tutor::{SandboxRunner, TutorSession};
        let cfg = crate::sandbox::tutor_config();
        for p in problems() {
            let mut s = p.session();
            for (text, lines) in &p.steps {
                let f = s.submit(None, &mut SandboxRunner, &cfg, lines).unwrap();
                assert!(f.accepted(), "{}: step {text:?}: {}", p.id, f.message);
            }
            let t = TutorSession::test(&s.task, &mut SandboxRunner, &cfg, &s.code);
            assert!(t.passed, "{}: {:?}\n{}", p.id, t.problem, s.code);
        }
        // The browser test's lines for sum-evens: a wrong one gets the flaw, an alternative passes.
        let p = problems().into_iter().find(|p| p.id == "sum-evens").unwrap();
        let mut s = p.session();
        for lines in ["    total = 0", "    for n in numbers:"] {
            assert!(s.submit(None, &mut SandboxRunner, &cfg, lines).unwrap().accepted());
        }
        let wrong = s.submit(None, &mut SandboxRunner, &cfg, "        if n % 2 == 1:\n            total += n").unwrap();
        assert!(matches!(wrong.verdict, Verdict::Differs { .. }), "{wrong:?}");
        let alt = s.submit(None, &mut SandboxRunner, &cfg, "        if n % 2 == 0:\n            total = total + n").unwrap();
        assert!(alt.accepted(), "{alt:?}");
    }

    #[test]
    fn a_task_in_the_learners_words_is_planned_then_prepared_step_by_step() {
        let mut s = Rc::new(CodeState::default());
        assert!(s.plan_request(1).is_none(), "an empty task box plans nothing");
        s = s.reduce(CodeAction::TaskText("  Print the numbers 1 to 3.  ".into()));
        let Some(SandboxRequest::Plan { task, .. }) = s.plan_request(1) else { panic!() };
        assert_eq!(task.description, "Print the numbers 1 to 3.");
        s = s.reduce(CodeAction::Sent { id: 1, kind: Kind::Plan });
        assert_eq!(s.said.as_ref().map(Said::verdict), Some("planning"));
        // The first time, the tutor's model downloads: progress shows, the request goes on, and
        // when the model is in, planning shows again. Progress for another request is ignored.
        let progress = crate::protocol::Progress {
            phase: crate::protocol::Phase::Downloading,
            name: "models/coder.gguf".into(),
            done: 10,
            total: 100,
            all_done: 10,
            all_total: 100,
            rate: 5.0,
            eta_s: Some(18.0),
            note: None,
        };
        s = s.reduce(CodeAction::Event(SandboxEvent::Reply(SandboxReply::Progress { id: 7, progress: progress.clone() })));
        assert_eq!(s.said.as_ref().map(Said::verdict), Some("planning"));
        s = s.reduce(CodeAction::Event(SandboxEvent::Reply(SandboxReply::Progress { id: 1, progress })));
        assert_eq!(s.said.as_ref().map(Said::verdict), Some("fetching"));
        assert_eq!(s.busy, Some((1, Kind::Plan)), "progress is not the answer");
        s = s.reduce(CodeAction::Event(SandboxEvent::Reply(SandboxReply::Begun { id: 1 })));
        assert_eq!(s.said.as_ref().map(Said::verdict), Some("planning"));
        // The model's plan: step 1 prepared, step 2 not yet.
        let mut session = TutorSession::with_plan(task, &["Loop over 1 to 3", "Print each number"]);
        session.steps[0].reference = Some("for i in range(1, 4):".into());
        session.generations = 1;
        let view = session.view().unwrap();
        let planned = SandboxReply::Planned { id: 1, session: Box::new(session.clone()), prepared: Prepared::Step(view) };
        s = s.reduce(CodeAction::Event(SandboxEvent::Reply(planned)));
        assert!(s.said.is_none() && s.problem.is_none() && s.busy.is_none());
        assert!(s.check_request(2).is_some() && !s.needs_prepare());
        // The learner finished step 1: step 2 needs the model.
        session.steps[0].done = Some(inference::agent::tutor::Acceptance::Exact);
        session.current = 1;
        session.code = "# Step 1: Loop over 1 to 3\nfor i in range(1, 4):\n".into();
        let fb = Feedback { verdict: Verdict::Accepted { how: inference::agent::tutor::Acceptance::Exact }, message: "Right.".into(), hint: None, answer: None, p_yes: None };
        s = s.reduce(CodeAction::Sent { id: 2, kind: Kind::Check });
        s = s.reduce(CodeAction::Event(SandboxEvent::Reply(SandboxReply::Checked { id: 2, session: Box::new(session.clone()), feedback: fb })));
        assert!(s.needs_prepare() && s.check_request(3).is_none());
        assert!(matches!(s.prepare_request(3), Some(SandboxRequest::Prepare { .. })));
        // The model got stuck: no endless retries.
        s = s.reduce(CodeAction::Sent { id: 3, kind: Kind::Prepare });
        let stuck = SandboxReply::Planned { id: 3, session: Box::new(session), prepared: Prepared::Stuck { index: 1, problem: "NameError".into() } };
        s = s.reduce(CodeAction::Event(SandboxEvent::Reply(stuck)));
        assert_eq!(s.said.as_ref().map(Said::verdict), Some("stuck"));
        assert!(!s.needs_prepare());
    }

    #[test]
    fn a_failed_plan_or_step_can_be_sent_again() {
        let mut s = Rc::new(CodeState::default()).reduce(CodeAction::TaskText("Print 1.".into()));
        s = s.reduce(CodeAction::Sent { id: 1, kind: Kind::Plan });
        assert!(s.retry_request(2).is_none(), "nothing failed yet");
        let offline = "Cannot download models/coder.gguf: the site is unreachable. Connect to the internet and press Retry.";
        s = s.reduce(CodeAction::Event(SandboxEvent::Reply(SandboxReply::Failed { id: 1, message: offline.into() })));
        assert_eq!(s.said.as_ref().map(Said::verdict), Some("unavailable"));
        let Some((SandboxRequest::Plan { task, .. }, Kind::Plan)) = s.retry_request(2) else { panic!("{:?}", s.failed) };
        assert_eq!(task.description, "Print 1.");
        s = s.reduce(CodeAction::Sent { id: 2, kind: Kind::Plan });
        assert!(s.failed.is_none() && s.retry_request(3).is_none());
        // Planned; the learner finished step 1; the model's step 2 runs out of time.
        let mut session = TutorSession::with_plan(task, &["Make a number", "Print it"]);
        session.steps[0].reference = Some("n = 1".into());
        session.steps[0].done = Some(inference::agent::tutor::Acceptance::Exact);
        session.current = 1;
        session.code = "# Step 1: Make a number\nn = 1\n".into();
        s = s.reduce(CodeAction::Event(SandboxEvent::Reply(SandboxReply::Planned { id: 2, session: Box::new(session), prepared: Prepared::Finished })));
        assert!(s.needs_prepare());
        s = s.reduce(CodeAction::Sent { id: 3, kind: Kind::Prepare });
        s = s.reduce(CodeAction::Event(SandboxEvent::TimedOut { id: 3, after_ms: 600_000 }));
        assert!(!s.needs_prepare(), "no endless retries by itself");
        assert!(matches!(s.retry_request(4), Some((SandboxRequest::Prepare { .. }, Kind::Prepare))));
        // A run of the learner's own in between leaves the step to retry.
        s = s.reduce(CodeAction::Sent { id: 4, kind: Kind::Run });
        s = s.reduce(CodeAction::Event(SandboxEvent::TimedOut { id: 4, after_ms: 7000 }));
        assert!(matches!(s.retry_request(5), Some((_, Kind::Prepare))));
        s = s.reduce(CodeAction::Sent { id: 5, kind: Kind::Prepare });
        assert!(s.retry_request(6).is_none());
    }

    #[test]
    fn free_practice_runs_the_editor_as_is() {
        let s = Rc::new(CodeState::default()).reduce(CodeAction::Edit("while True: pass".into()));
        let SandboxRequest::Run { source, timeout_ms, .. } = s.run_request(1) else { panic!() };
        assert_eq!(source, "while True: pass");
        assert_eq!(timeout_ms, RUN_TIMEOUT_MS);
    }
}
