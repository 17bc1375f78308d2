//! Agents: the features a learner uses, built from retrieval and a [`Session`](crate::llm::Session).
//!
//! Each agent is a step-driven state machine that knows nothing of the UI: the host (the app's
//! worker, the CLI, a test) calls its `step` and renders the events it returns; model work is
//! asynchronous so WebGPU can read back without blocking, and ready at once everywhere else
//! ([`crate::llm::now`]).
//!
//! - [`ask`]: grounded conceptual Q&A (ACE-TA "Ask"): retrieval → evidence → prompt → answer →
//!   every sentence checked against the passage it cites.
//! - [`author`]: teacher authoring (TeachMateGPT): board-style MCQs and creative questions with
//!   their evidence, six deterministic gates, a repair ladder, a verification report, export.
//! - [`quiz`]: the adaptive quiz (ACE-TA): subtopics from the outline, Bloom-tagged MCQs written
//!   under a schema from MMR evidence, validated (shape, then the model answering from the passage),
//!   one level up after a right answer, one down on the same passage after a wrong one.
//! - [`route`]: the router (ACE-TA's router, TeachMateGPT's intent and ambiguity control): rules,
//!   then label scoring on the course's model, decide where each message goes.
//! - [`tutor`] (feature `sandbox`): the step-by-step Code Tutor (ACE-TA): plan, checked step code,
//!   the learner's lines compared by behaviour, final tests.
//! - [`warm`]: the agents' fixed prompt prefixes read ahead of the first message.

pub mod ask;
pub mod author;
pub mod quiz;
pub mod route;
#[cfg(feature = "sandbox")]
pub mod tutor;
pub mod warm;
