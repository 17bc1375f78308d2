//! Messages between the page and the Python sandbox worker (`src/bin/sandbox.rs`): JSON text over
//! `postMessage`, like [`crate::protocol`].
//!
//! The worker runs one request at a time and says [`SandboxReply::Begun`] before it starts, so
//! the page can time the run itself (from `Begun`, not from posting) and terminate the worker
//! when no answer comes by `timeout_ms` + [`GRACE_MS`].

use crate::protocol::Progress;
use inference::agent::tutor::{Feedback, Prepared, Task, TestRun, TutorSession};
use inference::sandbox::{RunResult, SyntaxIssue};
use serde::{Deserialize, Serialize};

/// Time the page allows on top of a request's own limit: interpreter start-up, the result's
/// trip back, a busy machine. A one-line `while True: pass` (which the in-VM clock cannot stop)
/// ends as `timeout` this long after its limit.
pub const GRACE_MS: u64 = 2_000;

/// How long a fresh worker may take to compile its wasm and say [`SandboxReply::Ready`].
pub const START_MS: u64 = 30_000;

/// Time limit of a learner's Run.
pub const RUN_TIMEOUT_MS: u64 = 5_000;

/// Output limit of a learner's Run (stdout + stderr).
pub const RUN_MAX_OUTPUT: usize = 256 << 10;

/// Heap budget of one run in the worker (wasm memory is never returned, so keep it modest).
pub const RUN_MAX_MEMORY: usize = 256 << 20;

/// Time a model request may take (loading the model from IndexedDB, then planning or writing a
/// step on the CPU, its own checks included) before the page gives up on the worker; a download
/// of the model restarts this clock at each [`SandboxReply::Progress`].
pub const MODEL_MS: u64 = 600_000;

/// Python call depth in the browser. A worker's native stack (V8's, about 1 MB) holds about 700
/// plain Python calls of RustPython, fewer through builtins (`sorted(key=…)`: about 150); past it
/// the worker throws "Maximum call stack size exceeded" and is replaced (status `killed`). 400
/// keeps plain recursion a `RecursionError` with room to spare.
pub const RUN_MAX_RECURSION: usize = 400;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum SandboxRequest {
    /// Syntax first (no run); then, when it parses, run it.
    Run { id: u32, source: String, stdin: String, timeout_ms: u64 },
    /// The tutor's check of the learner's lines for the current step (syntax, then behaviour).
    Check { id: u32, session: Box<TutorSession>, lines: String },
    /// The finished program against the task's tests.
    Test { id: u32, task: Task, program: String },
    /// The model plans a task the learner wrote and prepares its first step.
    Plan { id: u32, task: Task },
    /// The model prepares the session's current step (after the learner finished the one before).
    Prepare { id: u32, session: Box<TutorSession> },
}

impl SandboxRequest {
    pub fn id(&self) -> u32 {
        match self {
            SandboxRequest::Run { id, .. }
            | SandboxRequest::Check { id, .. }
            | SandboxRequest::Test { id, .. }
            | SandboxRequest::Plan { id, .. }
            | SandboxRequest::Prepare { id, .. } => *id,
        }
    }

    /// How long the page lets the worker work on this request (after `Begun`) before it
    /// terminates it: the runs it makes, each with its limit, plus [`GRACE_MS`].
    pub fn budget_ms(&self, check_ms: u64, test_ms: u64) -> u64 {
        GRACE_MS
            + match self {
                SandboxRequest::Run { timeout_ms, .. } => *timeout_ms,
                // The learner's lines and the reference, each on every input (one run for a function).
                // A model session's check may also ask the model (judgement, hint).
                SandboxRequest::Check { session, .. } if uses_model(session) => MODEL_MS,
                SandboxRequest::Check { session, .. } => {
                    let runs = if session.task.is_function() { 1 } else { session.task.inputs.len().max(1) };
                    2 * runs as u64 * check_ms
                }
                SandboxRequest::Plan { .. } | SandboxRequest::Prepare { .. } => MODEL_MS,
                // The test run, and one more to report what a failing call returned.
                SandboxRequest::Test { .. } => test_ms + check_ms,
            }
    }
}

/// Whether a session was written by the model (its checks then use the model too), rather than
/// from a teacher's reference lines.
pub fn uses_model(session: &TutorSession) -> bool {
    session.generations > 0 || session.draft.is_some() || session.steps.iter().any(|s| s.reference.is_none())
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum SandboxReply {
    /// The worker's wasm is running and it listens.
    Ready,
    /// The worker started on request `id`.
    Begun { id: u32 },
    /// The program did not parse: nothing was run.
    Syntax { id: u32, issue: SyntaxIssue },
    Ran { id: u32, result: RunResult },
    Checked { id: u32, session: Box<TutorSession>, feedback: Feedback },
    Tested { id: u32, run: TestRun },
    /// The model's plan, with the current step prepared (or why it could not be).
    Planned { id: u32, session: Box<TutorSession>, prepared: Prepared },
    /// A model request failed (no model downloaded yet, the prompt too long, …): `message` says
    /// what to do.
    Failed { id: u32, message: String },
    /// Request `id` is fetching the tutor's model (the first time, a download): not an answer;
    /// the page restarts the request's clock on each one.
    Progress { id: u32, progress: Progress },
    /// The worker panicked (it is restarted).
    Crashed { id: Option<u32>, message: String },
}

impl SandboxReply {
    /// The request this answers (`None` for `Ready`, and for a crash outside any request).
    pub fn id(&self) -> Option<u32> {
        match self {
            SandboxReply::Ready => None,
            SandboxReply::Crashed { id, .. } => *id,
            SandboxReply::Begun { id }
            | SandboxReply::Syntax { id, .. }
            | SandboxReply::Ran { id, .. }
            | SandboxReply::Checked { id, .. }
            | SandboxReply::Tested { id, .. }
            | SandboxReply::Planned { id, .. }
            | SandboxReply::Failed { id, .. }
            | SandboxReply::Progress { id, .. } => Some(*id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{decode, encode};

    #[test]
    fn requests_round_trip_and_budgets_cover_each_run() {
        let run = SandboxRequest::Run { id: 3, source: "print(1)".into(), stdin: String::new(), timeout_ms: 1000 };
        assert!(matches!(decode::<SandboxRequest>(&encode(&run)).unwrap(), SandboxRequest::Run { id: 3, timeout_ms: 1000, .. }));
        assert_eq!(run.budget_ms(3000, 20_000), 1000 + GRACE_MS);
        let task = Task { entry_point: Some("f".into()), inputs: vec!["1".into(), "2".into()], ..Task::default() };
        let check = SandboxRequest::Check { id: 4, session: Box::new(TutorSession::with_reference(task, &[("Return one", "    return 1")])), lines: "return 1".into() };
        assert_eq!(check.budget_ms(3000, 20_000), 6000 + GRACE_MS);
        let text = encode(&check);
        assert!(matches!(decode::<SandboxRequest>(&text).unwrap(), SandboxRequest::Check { id: 4, .. }));
        let failed = SandboxReply::Failed { id: 5, message: "no model".into() };
        assert_eq!(decode::<SandboxReply>(&encode(&failed)).unwrap().id(), Some(5), "every answer carries its request's id");
        assert_eq!(SandboxReply::Ready.id(), None);
        let reply = SandboxReply::Crashed { id: Some(1), message: "x".into() };
        assert!(matches!(decode::<SandboxReply>(&encode(&reply)).unwrap(), SandboxReply::Crashed { id: Some(1), .. }));
    }
}
