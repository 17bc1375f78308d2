//! The page's side of the Python sandbox worker: one request at a time, timed by the page, and a
//! fresh worker whenever the old one cannot be trusted to answer.
//!
//! - A request is posted once the worker is [`SandboxReply::Ready`]; the page's timer starts at
//!   [`SandboxReply::Begun`] and allows [`SandboxRequest::budget_ms`]. Past it the worker is
//!   terminated (a one-line `while True: pass`), the request ends as [`SandboxEvent::TimedOut`]
//!   and a new worker starts at once, so the next run finds it warm. While the worker downloads
//!   the tutor's model, each [`SandboxReply::Progress`] restarts that clock.
//! - A trap (a failed allocation past the memory budget, a stack overflow) arrives as the
//!   worker's `error` event; a panic as [`SandboxReply::Crashed`]. Either ends the request as
//!   [`SandboxEvent::Killed`] and the worker is replaced the same way.

use crate::protocol;
use crate::sandbox_protocol::{SandboxReply, SandboxRequest, START_MS};
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use yew::Callback;

/// What the page hears about a request.
#[derive(Clone, Debug)]
pub enum SandboxEvent {
    /// The worker answered.
    Reply(SandboxReply),
    /// No answer within the budget: the worker was terminated and replaced.
    TimedOut { id: u32, after_ms: u64 },
    /// The worker trapped or panicked: replaced.
    Killed { id: u32, message: String },
}

struct Pending {
    id: u32,
    text: String,
    budget_ms: u64,
    posted: bool,
    timer: Option<i32>,
}

struct Inner {
    worker: Option<web_sys::Worker>,
    ready: bool,
    pending: Option<Pending>,
    on_event: Callback<SandboxEvent>,
    check_ms: u64,
    test_ms: u64,
}

/// Owns the sandbox worker. Cheap to clone (shared).
#[derive(Clone)]
pub struct SandboxClient {
    inner: Rc<RefCell<Inner>>,
}

impl PartialEq for SandboxClient {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

impl SandboxClient {
    /// Starts a worker; `check_ms`/`test_ms` are the tutor's per-run limits (for budgets).
    pub fn new(on_event: Callback<SandboxEvent>, check_ms: u64, test_ms: u64) -> SandboxClient {
        let inner = Rc::new(RefCell::new(Inner {
            worker: None,
            ready: false,
            pending: None,
            on_event,
            check_ms,
            test_ms,
        }));
        let client = SandboxClient { inner };
        client.spawn();
        client
    }

    /// Whether a request is in flight.
    pub fn busy(&self) -> bool {
        self.inner.borrow().pending.is_some()
    }

    /// Sends `req`; a request still in flight is dropped (its answer will be ignored).
    pub fn send(&self, req: &SandboxRequest) {
        let budget_ms = {
            let i = self.inner.borrow();
            req.budget_ms(i.check_ms, i.test_ms)
        };
        {
            let mut i = self.inner.borrow_mut();
            if let Some(t) = i.pending.take().and_then(|p| p.timer) {
                clear_timer(t);
            }
            i.pending = Some(Pending { id: req.id(), text: protocol::encode(req), budget_ms, posted: false, timer: None });
        }
        if self.inner.borrow().worker.is_none() {
            self.spawn();
        }
        self.flush();
        // A worker that never says Ready (a broken build) must not leave the request hanging.
        self.arm(START_MS + budget_ms, req.id());
    }

    fn flush(&self) {
        let mut i = self.inner.borrow_mut();
        if !i.ready {
            return;
        }
        let Some(worker) = i.worker.clone() else { return };
        if let Some(p) = i.pending.as_mut().filter(|p| !p.posted) {
            p.posted = true;
            let _ = worker.post_message(&JsValue::from_str(&p.text));
        }
    }

    /// (Re)starts the timer of request `id`.
    fn arm(&self, ms: u64, id: u32) {
        let weak: Weak<RefCell<Inner>> = Rc::downgrade(&self.inner);
        let started = now();
        // Freed when it runs; a timer that is cleared leaks its few bytes (one per request).
        let closure = Closure::once_into_js(move || {
            let Some(inner) = weak.upgrade() else { return };
            let client = SandboxClient { inner };
            if client.inner.borrow().pending.as_ref().is_some_and(|p| p.id == id) {
                let after_ms = (now() - started).max(0.0) as u64;
                client.restart();
                client.finish(SandboxEvent::TimedOut { id, after_ms });
            }
        });
        let handle = web_sys::window()
            .and_then(|w| w.set_timeout_with_callback_and_timeout_and_arguments_0(closure.unchecked_ref(), ms.min(i32::MAX as u64) as i32).ok());
        let mut i = self.inner.borrow_mut();
        if let Some(p) = i.pending.as_mut().filter(|p| p.id == id) {
            if let Some(old) = p.timer.replace(handle.unwrap_or(0)) {
                clear_timer(old);
            }
        }
    }

    /// Ends the pending request with `event`.
    fn finish(&self, event: SandboxEvent) {
        let on_event = {
            let mut i = self.inner.borrow_mut();
            if let Some(t) = i.pending.take().and_then(|p| p.timer) {
                clear_timer(t);
            }
            i.on_event.clone()
        };
        on_event.emit(event);
    }

    /// Terminates the worker and starts a fresh one.
    fn restart(&self) {
        if let Some(w) = self.inner.borrow_mut().worker.take() {
            w.terminate();
        }
        self.spawn();
    }

    fn spawn(&self) {
        let worker = match web_sys::Worker::new("./sandbox_loader.js") {
            Ok(w) => w,
            Err(e) => {
                let id = self.inner.borrow().pending.as_ref().map(|p| p.id);
                if let Some(id) = id {
                    self.finish(SandboxEvent::Killed { id, message: format!("cannot start the Python sandbox: {e:?}") });
                }
                return;
            }
        };
        let weak = Rc::downgrade(&self.inner);
        let w2 = worker.clone();
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let Some(inner) = weak.upgrade() else { return };
            let client = SandboxClient { inner };
            // A message from a worker that was already replaced.
            if client.inner.borrow().worker.as_ref() != Some(&w2) {
                return;
            }
            let Some(text) = event.data().as_string() else { return };
            let reply = match protocol::decode::<SandboxReply>(&text) {
                Ok(r) => r,
                Err(message) => SandboxReply::Crashed { id: None, message },
            };
            client.on_reply(reply);
        });
        let weak = Rc::downgrade(&self.inner);
        let w3 = worker.clone();
        let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
            event.prevent_default();
            let Some(inner) = weak.upgrade() else { return };
            let client = SandboxClient { inner };
            if client.inner.borrow().worker.as_ref() != Some(&w3) {
                return;
            }
            let id = client.inner.borrow().pending.as_ref().map(|p| p.id);
            match id {
                // The learner's program trapped it: a fresh worker, warm for the next run.
                Some(id) => {
                    client.restart();
                    client.finish(SandboxEvent::Killed { id, message: event.message() });
                }
                // It failed on its own (cannot load, e.g. offline before the app was cached):
                // no new one until the next request, so a broken worker never loops.
                None => {
                    if let Some(w) = client.inner.borrow_mut().worker.take() {
                        w.terminate();
                    }
                }
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let mut i = self.inner.borrow_mut();
        i.worker = Some(worker);
        i.ready = false;
        if let Some(p) = i.pending.as_mut() {
            p.posted = false;
        }
        drop(i);
        // A handler may be running when its worker is replaced (it calls `restart`), so handlers
        // are never dropped: two small closures per worker started.
        on_message.forget();
        on_error.forget();
    }

    fn on_reply(&self, reply: SandboxReply) {
        match &reply {
            SandboxReply::Ready => {
                self.inner.borrow_mut().ready = true;
                self.flush();
                return;
            }
            // Work starts (again, after the model arrived): the request's clock starts, and the
            // page hears of it; so too for the model's progress. Neither ends the request.
            SandboxReply::Begun { id } | SandboxReply::Progress { id, .. } => {
                let budget = self.inner.borrow().pending.as_ref().filter(|p| p.id == *id).map(|p| p.budget_ms);
                if let Some(ms) = budget {
                    self.arm(ms, *id);
                    let on_event = self.inner.borrow().on_event.clone();
                    on_event.emit(SandboxEvent::Reply(reply));
                }
                return;
            }
            _ => {}
        }
        let id = reply.id();
        let pending = self.inner.borrow().pending.as_ref().map(|p| p.id);
        if id.is_none() || id != pending {
            return;
        }
        if let SandboxReply::Crashed { id: Some(id), message } = reply {
            self.restart();
            self.finish(SandboxEvent::Killed { id, message });
            return;
        }
        self.finish(SandboxEvent::Reply(reply));
    }
}

fn clear_timer(handle: i32) {
    if let Some(w) = web_sys::window() {
        w.clear_timeout_with_handle(handle);
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(w) = self.worker.take() {
            w.terminate();
        }
    }
}
