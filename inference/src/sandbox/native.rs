//! Native runs: a worker thread per program, watched from the calling thread.
//!
//! The worker owns a fresh interpreter whose user-signal channel the watcher holds. At the
//! deadline the watcher sends a signal that stops the program with `KeyboardInterrupt` at its
//! next instruction ([`interrupt_soon`]), every 10 ms, since the "a signal is pending" flag in
//! RustPython 0.5 is process-wide, so another interpreter may consume a wake-up meant for this
//! one. One second later it gives up:
//! it reports `Timeout`, sends a signal that unwinds the worker (its interpreter is leaked, not
//! dropped) and abandons the thread — one stuck inside a long native operation runs on until
//! that operation ends.

use super::memory;
use super::vm::{Control, execute, interrupt_soon};
use super::{RunOptions, RunResult};
use rustpython_vm::signal::user_signal_channel;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Worker stack: deep Python recursion uses native stack; RustPython checks it, but the limit
/// is only useful with room under it.
const STACK: usize = 256 << 20;
/// How long after the deadline the program may take to honour the interrupt.
const GRACE: Duration = Duration::from_millis(1000);
/// How long interpreter start-up may take before the timeout clock starts anyway.
const STARTUP: Duration = Duration::from_secs(10);

/// Unwind payload that ends an abandoned worker.
struct Abandon;

pub(crate) fn run(source: &str, opts: &RunOptions) -> RunResult {
    let t0 = Instant::now();
    let control = Arc::new(Control::new(opts));
    let (sig_tx, sig_rx) = user_signal_channel();
    let (done_tx, done_rx) = mpsc::channel();
    let guarded = opts.max_memory_bytes.is_some() && memory::installed();
    let worker = {
        let control = control.clone();
        let source = source.to_owned();
        let opts = opts.clone();
        std::thread::Builder::new()
            .name("pathshala-sandbox".into())
            .stack_size(STACK)
            .spawn(move || {
                if guarded && let Some(budget) = opts.max_memory_bytes {
                    memory::arm(budget, &control.memory_killed);
                }
                let r = catch_unwind(AssertUnwindSafe(|| {
                    execute(&source, &opts, &control, None, Some(sig_rx))
                }));
                memory::disarm();
                let _ = done_tx.send(r.map_err(|p| {
                    if p.is::<Abandon>() {
                        None
                    } else {
                        Some(panic_text(&p))
                    }
                }));
            })
    };
    if let Err(e) = worker {
        let mut r = control.result(None, 0, false);
        r.status = super::RunStatus::Error;
        r.stderr = format!("the sandbox could not start a thread for the program: {e}");
        return r;
    }

    // Ends the program at its next instruction (see `interrupt_soon`).
    let stop = |why: &'static str| {
        let _ = sig_tx.send(Box::new(move |vm| {
            interrupt_soon(vm, why);
            Ok(())
        }));
    };
    let mut started_at: Option<Instant> = None;
    let mut result = loop {
        match done_rx.recv_timeout(Duration::from_millis(10)) {
            Ok(Ok(exception)) => break control.result(exception, 0, false),
            Ok(Err(panic)) => break internal_error(&control, panic),
            Err(mpsc::RecvTimeoutError::Disconnected) => break internal_error(&control, None),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let now = Instant::now();
                if control.memory_killed.load(Ordering::SeqCst) {
                    // The worker is parked inside the allocator for good; abandon it.
                    break control.result(None, 0, true);
                }
                if started_at.is_none() && control.started.load(Ordering::SeqCst) {
                    started_at = Some(now);
                }
                let deadline = match started_at {
                    Some(s) => s + Duration::from_millis(opts.timeout_ms),
                    None => t0 + STARTUP + Duration::from_millis(opts.timeout_ms),
                };
                if now >= deadline {
                    control.timed_out.store(true, Ordering::SeqCst);
                    if now >= deadline + GRACE {
                        let _ = sig_tx.send(Box::new(|_vm| resume_unwind(Box::new(Abandon))));
                        break control.result(None, 0, true);
                    }
                    stop("time limit exceeded");
                }
                if control.output_killed.load(Ordering::SeqCst) {
                    // Caught the output-limit interrupt and kept going: interrupt again.
                    stop("output limit exceeded");
                }
            }
        }
    };
    result.duration_ms = t0.elapsed().as_millis() as u64;
    result.memory_guarded = guarded;
    result
}

/// The interpreter panicked (a RustPython bug): say so rather than hide it.
fn internal_error(control: &Control, panic: Option<String>) -> RunResult {
    let mut r = control.result(None, 0, false);
    if r.status == super::RunStatus::Ok {
        r.status = super::RunStatus::Error;
        r.exception = Some(super::PyError {
            type_name: "InternalError".into(),
            message: format!(
                "the Python interpreter failed: {} — please report this program",
                panic.unwrap_or_else(|| "the worker ended without a result".into())
            ),
            line: None,
        });
    }
    r
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".into()
    }
}
