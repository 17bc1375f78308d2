//! The Python sandbox worker: a Web Worker of its own (`src/bin/sandbox.rs`) that runs a
//! learner's program with `inference::sandbox::run_in_place` and answers the tutor's checks.
//!
//! It is disposable by design. The page ([`crate::ui::sandbox::SandboxClient`]) times every
//! request from [`SandboxReply::Begun`] and terminates this worker when no answer comes in time
//! (a one-line `while True: pass` never gives the in-VM clock a line change to stop at), when it
//! traps (a failed allocation: the memory budget) or when it panics; the next request goes to a
//! fresh worker. Every run builds a fresh interpreter, so nothing survives from one run to the next.
//!
//! Limits: the in-VM deadline (`performance.now()` checked from a trace hook), the output cap and
//! the recursion limit of [`RunOptions`]; memory through [`SandboxAlloc`] (the binary's global
//! allocator), armed with [`RUN_MAX_MEMORY`] for each request; past it the allocation fails and
//! the worker traps.

use crate::protocol;
use crate::sandbox_protocol::{RUN_MAX_MEMORY, RUN_MAX_OUTPUT, RUN_MAX_RECURSION, SandboxReply, SandboxRequest};
use crate::sandbox_protocol::uses_model;
use inference::agent::tutor::{CodeRunner, TutorConfig, TutorModel, TutorSession};
use inference::sandbox::{RunOptions, RunResult, RunStatus, check_syntax, memory, run_in_place};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

pub use inference::sandbox::memory::SandboxAlloc;

thread_local! {
    /// The request being worked on, for the panic hook's report.
    static CURRENT: Cell<Option<u32>> = const { Cell::new(None) };
    /// The tutor's language model, loaded from IndexedDB at the first model request and kept
    /// while this worker lives (a replaced worker loads it again).
    static MODEL: RefCell<Option<TutorModel>> = const { RefCell::new(None) };
}

/// Set by the memory guard when a run passes its budget (read by nobody: the worker traps).
static BREACH: AtomicBool = AtomicBool::new(false);

fn scope() -> web_sys::DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(reply: &SandboxReply) {
    let _ = scope().post_message(&JsValue::from_str(&protocol::encode(reply)));
}

fn clock() -> Rc<dyn Fn() -> f64> {
    let perf = scope().performance();
    Rc::new(move || perf.as_ref().map_or(0.0, |p| p.now()))
}

/// The tutor's limits in the browser (its checks run here, one after another).
pub fn tutor_config() -> TutorConfig {
    let base = TutorConfig::default();
    let limit = |o: RunOptions, ms: u64| RunOptions {
        timeout_ms: ms,
        max_recursion_depth: RUN_MAX_RECURSION,
        max_memory_bytes: Some(RUN_MAX_MEMORY),
        ..o
    };
    TutorConfig { check: limit(base.check, 2_000), test: limit(base.test, 5_000), model_hints: false, ..base }
}

/// The tutor's limits for a task the model plans: draft steps (the mode that works with small
/// models, docs/EVALUATION.md), model-written hints, at most 5 steps.
pub fn model_tutor_config() -> TutorConfig {
    TutorConfig { draft_steps: true, model_hints: true, max_steps: 5, ..tutor_config() }
}

/// Loads the tutor's model unless this worker already has it: the course's on-demand coder
/// model ([`names::TUTOR_LLM`]) when `assets.json` lists one — downloaded, verified and stored
/// the first time, with progress posted as [`SandboxReply::Progress`] for request `id` — else
/// the course's own chat model, which the inference worker has already stored.
///
/// [`names::TUTOR_LLM`]: crate::protocol::names::TUTOR_LLM
async fn ensure_model(id: u32) -> Result<(), String> {
    if MODEL.with(|m| m.borrow().is_some()) {
        return Ok(());
    }
    use crate::protocol::names;
    let store = crate::storage::Store::open().await.map_err(|e| e.to_string())?;
    let list = store
        .complete()
        .await
        .map_err(|e| e.to_string())?
        .ok_or("The course is not on this device yet: wait until the status line says ready, then try again.")?;
    let bytes = match list.get(names::TUTOR_LLM) {
        Some(asset) => {
            let progress = move |reply: protocol::Reply| {
                if let protocol::Reply::Progress(progress) = reply {
                    post(&SandboxReply::Progress { id, progress });
                }
            };
            let mut fetcher = crate::worker::loader::Fetcher::on_demand(&store, &list, names::TUTOR_LLM, &progress).await.map_err(|f| f.message)?;
            let bytes = fetcher.get(names::TUTOR_LLM).await.map_err(|f| f.message)?;
            fetcher.preparing(&asset.url);
            bytes
        }
        None => store
            .data(names::LLM)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("The language model is missing from this device's storage: reload the page to download it again.")?,
    };
    let model = TutorModel::load(std::sync::Arc::new(bytes)).map_err(|e| format!("The language model cannot be loaded: {e}"))?;
    MODEL.with(|m| *m.borrow_mut() = Some(model));
    // The request's own work starts now: the page's clock for it starts again.
    post(&SandboxReply::Begun { id });
    Ok(())
}

/// Whether `req` needs the language model.
fn needs_model(req: &SandboxRequest) -> bool {
    match req {
        SandboxRequest::Plan { .. } | SandboxRequest::Prepare { .. } => true,
        SandboxRequest::Check { session, .. } => uses_model(session),
        _ => false,
    }
}

/// [`CodeRunner`] over [`run_in_place`] with the worker's clock, for the tutor.
pub struct InPlaceRunner {
    clock: Rc<dyn Fn() -> f64>,
}

impl CodeRunner for InPlaceRunner {
    fn run(&mut self, source: &str, opts: &RunOptions) -> RunResult {
        guarded(|| run_in_place(source, opts, Some(self.clock.clone())))
    }
}

/// Runs `f` with the memory budget armed.
fn guarded<T>(f: impl FnOnce() -> T) -> T {
    memory::arm(RUN_MAX_MEMORY, &BREACH);
    let out = f();
    memory::disarm();
    out
}

fn handle(req: SandboxRequest) -> SandboxReply {
    let clock = clock();
    match req {
        SandboxRequest::Run { id, source, stdin, timeout_ms } => {
            if let Err(issue) = check_syntax(&source) {
                return SandboxReply::Syntax { id, issue };
            }
            let opts = RunOptions {
                stdin,
                timeout_ms,
                max_output_bytes: RUN_MAX_OUTPUT,
                max_recursion_depth: RUN_MAX_RECURSION,
                max_memory_bytes: Some(RUN_MAX_MEMORY),
            };
            let mut result = guarded(|| run_in_place(&source, &opts, Some(clock)));
            result.memory_guarded = memory::installed();
            // A request the VM refuses up front (`[0] * 10**9` is past wasm32's address space)
            // is the same limit as an allocation past the budget: report both alike.
            if result.exception.as_ref().is_some_and(|e| e.type_name == "MemoryError") {
                result.status = RunStatus::Killed("memory limit".into());
                result.exception = None;
            }
            SandboxReply::Ran { id, result }
        }
        SandboxRequest::Check { id, session, lines } => {
            let mut session: TutorSession = *session;
            let mut runner = InPlaceRunner { clock };
            let checked = match uses_model(&session) {
                true => with_model(|m| session.submit(Some(m), &mut runner, &model_tutor_config(), &lines)),
                false => session.submit(None, &mut runner, &tutor_config(), &lines),
            };
            match checked {
                Ok(feedback) => SandboxReply::Checked { id, session: Box::new(session), feedback },
                Err(e) => SandboxReply::Crashed { id: Some(id), message: e.to_string() },
            }
        }
        SandboxRequest::Plan { id, task } => {
            let mut runner = InPlaceRunner { clock };
            let cfg = model_tutor_config();
            let planned = with_model(|m| {
                let mut session = TutorSession::start(m, task, &cfg)?;
                let prepared = session.prepare(m, &mut runner, &cfg)?;
                Ok((session, prepared))
            });
            match planned {
                Ok((session, prepared)) => SandboxReply::Planned { id, session: Box::new(session), prepared },
                Err(e) => SandboxReply::Failed { id, message: format!("The tutor could not plan this task: {e}") },
            }
        }
        SandboxRequest::Prepare { id, session } => {
            let mut session: TutorSession = *session;
            let mut runner = InPlaceRunner { clock };
            match with_model(|m| session.prepare(m, &mut runner, &model_tutor_config())) {
                Ok(prepared) => SandboxReply::Planned { id, session: Box::new(session), prepared },
                Err(e) => SandboxReply::Failed { id, message: format!("The tutor could not write the next step: {e}") },
            }
        }
        SandboxRequest::Test { id, task, program } => {
            let mut runner = InPlaceRunner { clock };
            SandboxReply::Tested { id, run: TutorSession::test(&task, &mut runner, &tutor_config(), &program) }
        }
    }
}

/// Runs `f` with the loaded model ([`ensure_model`] first).
fn with_model<T>(f: impl FnOnce(&mut TutorModel) -> Result<T, inference::agent::tutor::TutorError>) -> Result<T, inference::agent::tutor::TutorError> {
    MODEL.with(|m| f(m.borrow_mut().as_mut().expect("ensure_model ran first")))
}

/// Installs the message handler and says [`SandboxReply::Ready`]; called by the `sandbox` binary.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let message = match info.payload().downcast_ref::<&str>() {
            Some(s) => s.to_string(),
            None => info.payload().downcast_ref::<String>().cloned().unwrap_or_else(|| info.to_string()),
        };
        post(&SandboxReply::Crashed { id: CURRENT.with(Cell::get), message });
    }));
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        let Some(text) = event.data().as_string() else { return };
        let req = match protocol::decode::<SandboxRequest>(&text) {
            Ok(r) => r,
            Err(message) => return post(&SandboxReply::Crashed { id: None, message }),
        };
        let id = req.id();
        CURRENT.with(|c| c.set(Some(id)));
        post(&SandboxReply::Begun { id });
        if needs_model(&req) {
            // Reading the model from IndexedDB is asynchronous; the page sends one request at a time.
            wasm_bindgen_futures::spawn_local(async move {
                match ensure_model(id).await {
                    Ok(()) => post(&handle(req)),
                    Err(message) => post(&SandboxReply::Failed { id, message }),
                }
                CURRENT.with(|c| c.set(None));
            });
            return;
        }
        post(&handle(req));
        CURRENT.with(|c| c.set(None));
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&SandboxReply::Ready);
}
