//! Code tutor (ACE-TA): a task becomes a plan of small logic steps; each step gets the smallest
//! snippet that runs; the learner types each step and is checked by behaviour, not by text.
//!
//! The loop, UI-free and model-driven:
//!
//! 1. **Plan** ([`TutorSession::start`]): the model writes 1–`max_steps` logic steps, no code,
//!    as JSON under a schema (constrained decoding, so even a small model's plan parses); with
//!    `draft_first` it first writes a whole solution, hidden from the learner, and plans from it.
//! 2. **Step** ([`TutorSession::prepare`]): the model continues the code so far after the
//!    comment `# Step k: …` (whose indentation the model picks by likelihood), or, with
//!    `draft_steps`, the step's part of the draft comes first. The code so far
//!    plus the snippet, with a `pass` body under a trailing block opener, is syntax-checked and
//!    run on the task's inputs; on failure the error is fed back, up to `max_refinements` times,
//!    then the rest of the task is re-planned.
//! 3. **Learner** ([`TutorSession::submit`]): the learner's lines are syntax-checked (hint, no
//!    sandbox), run with a probe at the end of the step, and compared with the reference step
//!    (`behaviour::compare`): same output, same returns, same values of the step's variables
//!    (names may differ). Where only the inner state differs the model judges by label scoring.
//!    Otherwise the main flaw comes back as a hint; the answer only after `reveal_after` tries.
//! 4. **Tests** ([`TutorSession::test`], [`drive::finish`]): the finished program runs against
//!    the task's tests, with up to `final_attempts` attempts.
//!
//! [`drive`] runs the whole loop with a scripted learner (the evaluation's, who types the
//! reference) and the one-shot baseline. Code runs through a [`CodeRunner`]: the native sandbox
//! here ([`SandboxRunner`]), the browser's sandbox worker in the app.

pub mod behaviour;
pub mod code;
pub mod drive;
pub mod model;
pub mod prompt;
mod session;

pub use behaviour::{Behaviour, Difference, Ended};
pub use drive::{TutorReport, one_shot, run_tutor};
pub use model::TutorModel;
pub use session::{Acceptance, Feedback, JUDGE_TOLERANCE, Prepared, Step, StepView, TestRun, Try, TutorSession, Verdict};

use crate::llm::SessionError;
use crate::llm::{ChatError, JsonError, LmError, TokenizerError};
use crate::sandbox::{RunOptions, RunResult};
use serde::{Deserialize, Serialize};

/// A programming task.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// What to write, in natural language (may be empty when the starter code says it).
    #[serde(default)]
    pub description: String,
    /// Code the program starts from, e.g. a signature and docstring (may be empty).
    #[serde(default)]
    pub starter: String,
    /// The function that step checks and tests call; `None` for a script reading stdin.
    #[serde(default)]
    pub entry_point: Option<String>,
    /// What each step is run on: argument lists (`"[1, 2], 3"`) for a function, stdin texts for
    /// a script.
    #[serde(default)]
    pub inputs: Vec<String>,
    /// Python run after the finished program; it raises when the program is wrong.
    #[serde(default)]
    pub tests: String,
}

impl Task {
    /// Whether the program is a function the checks call (not a script).
    pub fn is_function(&self) -> bool {
        self.entry_point.is_some()
    }

    /// The starter without leading blank lines, ending in one newline (empty when there is none).
    pub fn start_code(&self) -> String {
        let lines: Vec<&str> = self.starter.lines().map(str::trim_end).skip_while(|l| l.is_empty()).collect();
        code::with_newline(&lines.join("\n"))
    }

    /// Least indentation of step code: inside the function when the starter defines it.
    pub fn min_indent(&self) -> usize {
        match &self.entry_point {
            Some(f) if self.starter.contains(&format!("def {f}(")) => 4,
            _ => 0,
        }
    }
}

/// Limits of the tutor loop.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TutorConfig {
    /// Most steps in a plan.
    pub max_steps: usize,
    /// Tries after the first at one step's code before the rest is re-planned (ACE-TA: 5).
    pub max_refinements: usize,
    /// Re-plans per task before the tutor gives up on a step.
    pub max_replans: usize,
    /// Runs of the finished program against the tests (ACE-TA: 3).
    pub final_attempts: usize,
    /// Learner tries at a step before [`Feedback::answer`] carries the tutor's lines.
    pub reveal_after: usize,
    pub plan_tokens: usize,
    pub step_tokens: usize,
    pub program_tokens: usize,
    /// Ask the model for a hint when the learner's lines are wrong (costs a generation).
    pub model_hints: bool,
    /// Limits of each check run of a step.
    pub check: RunOptions,
    /// Limits of the final test run.
    pub test: RunOptions,
    /// Seed of the sampled retries (first tries are greedy).
    pub seed: u64,
    /// The model first writes a whole solution (hidden from the learner); the plan describes it
    /// and step prompts show it. A small model plans far better from its own draft (see
    /// docs/EVALUATION.md, "Code tutor: HumanEval").
    pub draft_first: bool,
    /// With a draft: the draft is cut into steps at its statements ([`code::segments`]), the
    /// model describes each part in plain language, and each step's first try is the draft's
    /// own lines (the model writes a step only when those fail its check). The tutored program
    /// is then the draft unless a check forces a change.
    #[serde(default)]
    pub draft_steps: bool,
}

impl Default for TutorConfig {
    fn default() -> Self {
        TutorConfig {
            max_steps: 6,
            max_refinements: 5,
            max_replans: 1,
            final_attempts: 3,
            reveal_after: 3,
            plan_tokens: 256,
            step_tokens: 160,
            program_tokens: 512,
            model_hints: true,
            check: RunOptions { timeout_ms: 3_000, max_output_bytes: 64 << 10, ..RunOptions::default() },
            test: RunOptions { timeout_ms: 20_000, max_output_bytes: 256 << 10, ..RunOptions::default() },
            seed: 0,
            draft_first: false,
            draft_steps: false,
        }
    }
}

/// Runs Python for the tutor: the native sandbox, or the app's sandbox worker.
pub trait CodeRunner {
    fn run(&mut self, source: &str, opts: &RunOptions) -> RunResult;
}

/// [`CodeRunner`] over [`crate::sandbox::run`] (a fresh interpreter per run).
#[cfg(not(target_arch = "wasm32"))]
pub struct SandboxRunner;

#[cfg(not(target_arch = "wasm32"))]
impl CodeRunner for SandboxRunner {
    fn run(&mut self, source: &str, opts: &RunOptions) -> RunResult {
        crate::sandbox::run(source, opts)
    }
}

/// Why the tutor could not go on.
#[derive(Debug, thiserror::Error)]
pub enum TutorError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Model(#[from] LmError),
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
    #[error(transparent)]
    Template(#[from] ChatError),
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error("the prompt needs {need} tokens but the model holds {have}; shorten the task or its starter code")]
    Context { need: usize, have: usize },
    #[error("no step is ready for the learner; call `prepare` first (or the plan is finished)")]
    NotReady,
}
