//! Teacher authoring in the worker: a request is prepared, then its items are written, gated and
//! verified one at a time; a Stop is read while the model works (it pauses every few tokens) and
//! drops the item being written. An edited item gets its gates and verification again.

use super::ask::yield_now;
use super::engine::{Engine, unless};
use super::loader::now_ms;
use crate::protocol::{AuthorOutcome, Reply, SectionRef};
use inference::agent::author::{self, AuthorConfig, AuthorEnv, AuthorRequest, Authored, Calibration, Made, Prepared};
use std::cell::{Cell, RefCell};

/// The worker's authoring state: the request being written (its id), a stop flag, and the
/// judge's calibration (kept across requests and edits).
#[derive(Default)]
pub struct Slot {
    running: Cell<Option<u32>>,
    stop: Cell<bool>,
    calibration: RefCell<Calibration>,
}

impl Slot {
    pub fn stop(&self, id: u32) {
        if self.running.get() == Some(id) {
            self.stop.set(true);
        }
    }
}

/// Writes request `id` (see the module docs).
pub async fn start(engine: &Engine, slot: &Slot, id: u32, request: AuthorRequest, post: &dyn Fn(Reply)) -> Result<(), String> {
    if slot.running.get().is_some() {
        return Err("Questions are still being written; stop them first.".into());
    }
    slot.running.set(Some(id));
    slot.stop.set(false);
    let result = run(engine, slot, id, request, post).await;
    slot.running.set(None);
    result
}

async fn run(engine: &Engine, slot: &Slot, id: u32, request: AuthorRequest, post: &dyn Fn(Reply)) -> Result<(), String> {
    let t0 = now_ms();
    let cfg = AuthorConfig::default();
    let prepared = {
        let mut session = engine.session().await;
        let mut env = AuthorEnv { bundle: &engine.bundle, encoder: engine.encoder.as_ref(), session: &mut session };
        author::prepare(&mut env, request, &cfg).await.map_err(|e| e.to_string())?
    };
    let section = |s: u32| SectionRef { section: s, heading_path: engine.bundle.sections.get(s as usize).map(|x| x.heading_path.clone()).unwrap_or_default() };
    let mut job = match prepared {
        Prepared::Ready(job) => job,
        other => {
            let outcome = match other {
                Prepared::Refused { message, .. } => AuthorOutcome::Refused { message },
                Prepared::Clarify { question, options } => AuthorOutcome::Clarify { question, options },
                Prepared::NotCovered { message, nearest } => AuthorOutcome::NotCovered { message, nearest: nearest.into_iter().map(section).collect() },
                Prepared::Ready(_) => unreachable!(),
            };
            post(Reply::AuthorPrepared { id, outcome, ms: now_ms() - t0 });
            post(Reply::AuthorDone { id, ms: now_ms() - t0 });
            return Ok(());
        }
    };
    job.calibrate(slot.calibration.borrow().clone());
    let tasks = job.tasks();
    post(Reply::AuthorPrepared { id, outcome: AuthorOutcome::Ready { chapter: job.chapter.clone(), concept: job.concept.clone(), total: tasks.len() }, ms: now_ms() - t0 });
    for (i, task) in tasks.iter().enumerate() {
        if slot.stop.get() {
            break;
        }
        post(Reply::AuthorWriting { id, number: i + 1, total: tasks.len(), task: *task });
        yield_now().await;
        let t = now_ms();
        let made = {
            let mut session = engine.session().await;
            let mut env = AuthorEnv { bundle: &engine.bundle, encoder: engine.encoder.as_ref(), session: &mut session };
            let work = async {
                Ok::<_, String>(match job.make(&mut env, *task, &cfg).await.map_err(|e| e.to_string())? {
                    Made::Item(mut item) => {
                        job.verify(&mut env, &mut item, &cfg).await.map_err(|e| e.to_string())?;
                        Made::Item(item)
                    }
                    missing => missing,
                })
            };
            // Stop drops the item being written: the model pauses every few tokens.
            match unless(|| slot.stop.get(), work).await {
                Some(made) => made?,
                None => break,
            }
        };
        match made {
            Made::Item(item) => post(Reply::AuthorItem { id, item, ms: now_ms() - t }),
            Made::Missing { task, reason, .. } => post(Reply::AuthorMissing { id, task, reason }),
        }
        yield_now().await;
    }
    *slot.calibration.borrow_mut() = job.calibration().clone();
    post(Reply::AuthorDone { id, ms: now_ms() - t0 });
    Ok(())
}

/// The gates and verification of an item the teacher edited.
pub async fn recheck(engine: &Engine, slot: &Slot, id: u32, mut item: Authored, post: &dyn Fn(Reply)) -> Result<(), String> {
    author::recheck(&mut item);
    let cfg = AuthorConfig::default();
    let mut cal = slot.calibration.borrow().clone();
    {
        let mut session = engine.session().await;
        let mut env = AuthorEnv { bundle: &engine.bundle, encoder: engine.encoder.as_ref(), session: &mut session };
        author::verify_alone(&mut env, &mut item, &cfg, &mut cal).await.map_err(|e| e.to_string())?;
    }
    *slot.calibration.borrow_mut() = cal;
    post(Reply::AuthorRechecked { id, item: Box::new(item) });
    Ok(())
}
