//! The quiz in the worker: the subtopic menu, then items made by the quiz agent one at a time.
//!
//! While the learner reads an item, the next one is prepared for the likelier answer (right:
//! one level up) and then, if the learner has still not answered, for the other; an answer
//! whose item is ready gets it at once, otherwise the worker makes it then. The model pauses
//! every few tokens (`engine::pause`), so an answer is read, and its feedback shown, while an
//! item is being made; an item made ahead for the answer not given is then dropped mid-way, and
//! one made ahead gives way to any other task that needs the model (a question in Ask).

use super::ask::yield_now;
use super::engine::{Engine, unless};
use super::loader::now_ms;
use crate::protocol::{Bloom, Branch, Reply, Subtopic};
use inference::agent::quiz::{self, Item, Made, Plan, Quiz, QuizConfig, QuizEnv, Validation};
use std::cell::RefCell;

/// One running quiz.
pub struct QuizTask {
    pub id: u32,
    quiz: Quiz,
    cfg: QuizConfig,
    /// Items made ahead for the current item's answers.
    prepared: Vec<(Branch, Item, Validation)>,
    /// The learner is waiting for the item of this branch, since this time (ms).
    waiting: Option<(Branch, f64)>,
    /// An item is being made (the pump runs).
    busy: bool,
    over: bool,
}

/// The worker's quiz slot.
pub type Slot = RefCell<Option<QuizTask>>;

/// The subtopic menu for a topic (or a whole request: "quiz me on loops").
pub async fn topic(engine: &Engine, id: u32, topic: &str, cfg: &QuizConfig) -> Result<Reply, String> {
    let t0 = now_ms();
    let topic = quiz::topic_of(topic);
    let mut session = engine.session().await;
    let mut env = QuizEnv { bundle: &engine.bundle, encoder: engine.encoder.as_ref(), session: &mut session };
    let result = quiz::subtopics(&mut env, &topic, cfg).await.map_err(|e| e.to_string())?;
    Ok(Reply::QuizTopic { id, topic, result, ms: now_ms() - t0 })
}

/// Starts quiz `id` and shows its first item; `known`: questions answered right last time
/// ([`Quiz::known`]).
#[allow(clippy::too_many_arguments)]
pub async fn start(engine: &Engine, slot: &Slot, cfg: &QuizConfig, id: u32, topic: &str, subtopic: Subtopic, start: Option<Bloom>, known: Vec<String>, post: &dyn Fn(Reply)) -> Result<(), String> {
    let t0 = now_ms();
    let mut quiz = {
        let mut session = engine.session().await;
        let env = QuizEnv { bundle: &engine.bundle, encoder: engine.encoder.as_ref(), session: &mut session };
        Quiz::start(&env, topic, subtopic, start, cfg).await.map_err(|e| e.to_string())?
    };
    quiz.know(&engine.bundle, known);
    *slot.borrow_mut() = Some(QuizTask { id, quiz, cfg: cfg.clone(), prepared: Vec::new(), waiting: Some((Branch::First, t0)), busy: false, over: false });
    pump(engine, slot, post).await
}

/// The learner answered: feedback, then the next item (at once when it was prepared).
pub async fn answer(engine: &Engine, slot: &Slot, id: u32, choice: usize, last: bool, post: &dyn Fn(Reply)) -> Result<(), String> {
    let run = {
        let mut guard = slot.borrow_mut();
        let Some(task) = guard.as_mut().filter(|t| t.id == id) else { return Ok(()) };
        let Some(feedback) = task.quiz.answer(choice) else { return Ok(()) };
        let branch = if feedback.correct { Branch::Right } else { Branch::Wrong };
        // After a wrong answer to the book's code: why it shows what it shows, for the option
        // the learner chose (no model, at once; one prepared earlier explained the commonest).
        if branch == Branch::Wrong {
            if let Some(Made::Item { item, validation }) = task.quiz.why_item(&engine.bundle) {
                task.prepared.retain(|(b, ..)| *b != Branch::Wrong);
                task.prepared.push((Branch::Wrong, item, validation));
            }
        }
        post(Reply::QuizFeedback { id, feedback });
        if last {
            task.over = true;
            false
        } else {
            task.waiting = Some((branch, now_ms()));
            !task.busy
        }
    };
    if run { pump(engine, slot, post).await } else { Ok(()) }
}

/// Ends quiz `id`: nothing more is prepared for it.
pub fn end(slot: &Slot, id: u32) {
    let mut guard = slot.borrow_mut();
    if guard.as_ref().is_some_and(|t| t.id == id) {
        *guard = None;
    }
}

/// What the pump does next.
enum Next {
    Deliver(Branch, f64),
    Make(Branch, Plan),
    Done,
}

/// Makes items for quiz `id` until nothing is needed: the one the learner waits for first, then
/// the current item's two possible successors. Yields after each item so answers are read; ends
/// when the quiz does (a quiz started meanwhile has its own pump).
async fn pump(engine: &Engine, slot: &Slot, post: &dyn Fn(Reply)) -> Result<(), String> {
    let Some(id) = slot.borrow_mut().as_mut().map(|t| {
        t.busy = true;
        t.id
    }) else {
        return Ok(());
    };
    let result = pump_inner(engine, slot, id, post).await;
    if let Some(t) = slot.borrow_mut().as_mut().filter(|t| t.id == id) {
        t.busy = false;
    }
    result
}

async fn pump_inner(engine: &Engine, slot: &Slot, id: u32, post: &dyn Fn(Reply)) -> Result<(), String> {
    loop {
        let next = {
            let guard = slot.borrow();
            let Some(t) = guard.as_ref().filter(|t| t.id == id && !t.over) else { return Ok(()) };
            next_step(t)
        };
        match next {
            Next::Done => return Ok(()),
            Next::Deliver(branch, since) => {
                let mut guard = slot.borrow_mut();
                let Some(t) = guard.as_mut().filter(|t| t.id == id) else { return Ok(()) };
                let i = t.prepared.iter().position(|p| p.0 == branch).expect("next_step saw it");
                let (_, item, validation) = t.prepared.swap_remove(i);
                t.prepared.clear();
                t.waiting = None;
                let attempts = validation.attempts;
                t.quiz.show(item.clone(), validation);
                post(Reply::QuizItem { id: t.id, number: t.quiz.rounds.len(), item, attempts, wait_ms: now_ms() - since });
            }
            Next::Make(branch, plan) => {
                let made = make(engine, slot, id, branch, plan, post).await?;
                let mut guard = slot.borrow_mut();
                let Some(t) = guard.as_mut().filter(|t| t.id == id) else { return Ok(()) };
                match made {
                    Outcome::Made(item, validation) => t.prepared.push((branch, item, validation)),
                    // The next step says what is needed now.
                    Outcome::Abandoned => {}
                    Outcome::Failed if t.waiting.is_some_and(|w| w.0 == branch) => {
                        t.over = true;
                        let reason = "No further question could be written from this part of the book that passed the checks.".to_string();
                        post(Reply::QuizOver { id: t.id, reason });
                        return Ok(());
                    }
                    // A branch nobody waits for yet: leave it; it is tried again if needed.
                    Outcome::Failed => return Ok(()),
                }
            }
        }
        yield_now().await;
    }
}

fn next_step(t: &QuizTask) -> Next {
    let cfg = &t.cfg;
    let has = |b: Branch| t.prepared.iter().any(|p| p.0 == b);
    if let Some((branch, since)) = t.waiting {
        if has(branch) {
            return Next::Deliver(branch, since);
        }
        return match t.quiz.plan(branch, cfg) {
            Some(plan) => Next::Make(branch, plan),
            None => Next::Done,
        };
    }
    // The learner reads the current item: prepare the likelier answer's item, then the other.
    if t.quiz.current().is_some_and(|r| r.learner_answer.is_none()) {
        for branch in [Branch::Right, Branch::Wrong] {
            if !has(branch) {
                if let Some(plan) = t.quiz.plan(branch, cfg) {
                    return Next::Make(branch, plan);
                }
            }
        }
    }
    Next::Done
}

/// What making one item came to.
enum Outcome {
    Made(Item, Validation),
    /// No item passed the checks.
    Failed,
    /// Dropped mid-way: nobody needs it now ([`needless`]).
    Abandoned,
}

/// One item for `plan` of quiz `id`, moving to a fresh passage when a plan's item is skipped.
async fn make(engine: &Engine, slot: &Slot, id: u32, branch: Branch, mut plan: Plan, post: &dyn Fn(Reply)) -> Result<Outcome, String> {
    let Some(cfg) = slot.borrow().as_ref().filter(|t| t.id == id).map(|t| t.cfg.clone()) else { return Ok(Outcome::Abandoned) };
    for _ in 0..cfg.plans_per_item {
        let mut quiz = match slot.borrow().as_ref().filter(|t| t.id == id) {
            Some(t) => t.quiz.clone(),
            None => return Ok(Outcome::Abandoned),
        };
        post(Reply::QuizPreparing { id, branch, bloom: plan.bloom });
        let made = {
            let mut session = engine.session().await;
            let mut env = QuizEnv { bundle: &engine.bundle, encoder: engine.encoder.as_ref(), session: &mut session };
            match unless(|| needless(engine, slot, id, branch), quiz.make(&mut env, &plan, &cfg)).await {
                Some(made) => made.map_err(|e| e.to_string())?,
                None => return Ok(Outcome::Abandoned),
            }
        };
        let mut guard = slot.borrow_mut();
        let Some(t) = guard.as_mut().filter(|t| t.id == id) else { return Ok(Outcome::Abandoned) };
        t.quiz.adopt_calibration(&quiz);
        match made {
            Made::Item { item, validation } => return Ok(Outcome::Made(item, validation)),
            Made::Skipped { reason, .. } => {
                post(Reply::QuizSkipped { id, reason: reason.clone() });
                let next = t.quiz.replan(&plan, &cfg);
                t.quiz.skip(plan, reason);
                match next {
                    Some(p) => plan = p,
                    None => return Ok(Outcome::Failed),
                }
            }
        }
    }
    Ok(Outcome::Failed)
}

/// Whether the item being made for `branch` of quiz `id` is no longer needed: the quiz ended or
/// was replaced, the learner's answer went the other way or its item is ready meanwhile (a
/// "why" item for the option chosen), or it was being made ahead while another task waits for
/// the model.
fn needless(engine: &Engine, slot: &Slot, id: u32, branch: Branch) -> bool {
    match slot.borrow().as_ref() {
        Some(t) if t.id == id && !t.over => match t.waiting {
            Some((waited, _)) => waited != branch || t.prepared.iter().any(|p| p.0 == waited),
            None => engine.wanted(),
        },
        _ => true,
    }
}
