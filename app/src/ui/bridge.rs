//! The page's side of the worker: spawns it and passes messages both ways.
//!
//! Two builds of the same worker: the threaded one (`mt/worker_loader.js`, a module worker whose
//! matmuls run on a pool of Web Workers sharing its memory, one per core; CPU only, no
//! WebGPU) when the model
//! runs on the quantized CPU runtime, the page is cross-origin isolated (the service worker's
//! headers; never on a first visit) and the browser has more than one core; the single-threaded
//! one (`worker_loader.js`, Trunk's shim, with WebGPU) otherwise, or when the threaded one fails
//! to start (an old browser; offline before it was ever fetched). The worker starts with the
//! first request, the load, which names the runtime. `?threads=N` asks for a pool of N
//! (`?threads=0`: the single-threaded build).
//!
//! Messages posted before the worker's wasm has started would be lost (it sets its handler only
//! once running), so requests wait in a queue until the worker says [`Reply::Started`].

use crate::protocol::{self, Reply, Request};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use yew::Callback;

pub struct Bridge {
    inner: Rc<Inner>,
}

struct Inner {
    worker: RefCell<Option<web_sys::Worker>>,
    /// `None` once the worker has started.
    queue: RefCell<Option<Vec<String>>>,
    threaded: Cell<bool>,
    on_reply: Callback<Reply>,
    handlers: RefCell<Vec<Closure<dyn FnMut(JsValue)>>>,
}

/// The pool size the page asks for: `Some(n)` to start the threaded build with `n` threads
/// (0: the loader's default, a thread per core), `None` for the single-threaded build.
fn threaded_pool() -> Option<u32> {
    let asked: Option<u32> = crate::fetch::query_param("threads").and_then(|n| n.parse().ok());
    match asked {
        Some(0) => None,
        _ if !isolated() => None,
        Some(n) => Some(n),
        None if cores() > 1 => Some(0),
        None => None,
    }
}

/// Whether this page may run the threaded worker (cross-origin isolated).
pub fn isolated() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &"crossOriginIsolated".into()).ok().and_then(|v| v.as_bool()).unwrap_or(false)
}

/// Logical cores the browser reports.
pub fn cores() -> u32 {
    web_sys::window().map(|w| w.navigator().hardware_concurrency() as u32).unwrap_or(1).max(1)
}

impl Bridge {
    /// The page's end of the worker, which starts with the first request; every reply (and a
    /// failure to start) goes to `on_reply`.
    pub fn spawn(on_reply: Callback<Reply>) -> Result<Bridge, String> {
        if web_sys::window().is_none() {
            return Err("cannot start the inference worker: no window".into());
        }
        let inner = Rc::new(Inner {
            worker: RefCell::new(None),
            queue: RefCell::new(Some(Vec::new())),
            threaded: Cell::new(false),
            on_reply,
            handlers: RefCell::new(Vec::new()),
        });
        Ok(Bridge { inner })
    }

    pub fn send(&self, req: &Request) {
        if self.inner.worker.borrow().is_none() {
            // Only the quantized CPU runtime has a threaded build.
            let cpu = match req {
                Request::Load { runtime, .. } => *runtime == protocol::Runtime::Quantized,
                _ => true,
            };
            let started = match threaded_pool().filter(|_| cpu) {
                Some(n) => Inner::start(&self.inner, Some(n)).or_else(|_| Inner::start(&self.inner, None)),
                None => Inner::start(&self.inner, None),
            };
            if let Err(message) = started {
                self.inner.on_reply.emit(Reply::Error { id: None, message, retry: false });
                return;
            }
        }
        let msg = protocol::encode(req);
        match self.inner.queue.borrow_mut().as_mut() {
            Some(waiting) => waiting.push(msg),
            None => {
                if let Some(w) = self.inner.worker.borrow().as_ref() {
                    let _ = w.post_message(&JsValue::from_str(&msg));
                }
            }
        }
    }
}

impl Inner {
    /// Starts the threaded build with a pool of `pool` threads (0: one per core), or the
    /// single-threaded one (`None`).
    fn start(this: &Rc<Inner>, pool: Option<u32>) -> Result<(), String> {
        // Relative URLs: the site works under any sub-path.
        let worker = match pool {
            Some(n) => {
                let opts = web_sys::WorkerOptions::new();
                opts.set_type(web_sys::WorkerType::Module);
                let url = if n == 0 { "./mt/worker_loader.js".to_string() } else { format!("./mt/worker_loader.js?threads={n}") };
                web_sys::Worker::new_with_options(&url, &opts)
            }
            None => web_sys::Worker::new("./worker_loader.js"),
        }
        .map_err(|e| format!("cannot start the inference worker: {e:?}"))?;
        this.threaded.set(pool.is_some());
        let weak = Rc::downgrade(this);
        let on_message = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            let Some(inner) = weak.upgrade() else { return };
            let event: web_sys::MessageEvent = event.unchecked_into();
            let Some(text) = event.data().as_string() else { return };
            match protocol::decode::<Reply>(&text) {
                Ok(Reply::Started) => {
                    let waiting = inner.queue.borrow_mut().take().unwrap_or_default();
                    if let Some(w) = inner.worker.borrow().as_ref() {
                        for msg in waiting {
                            let _ = w.post_message(&JsValue::from_str(&msg));
                        }
                    }
                }
                Ok(reply) => inner.on_reply.emit(reply),
                Err(message) => inner.on_reply.emit(Reply::Error { id: None, message, retry: false }),
            }
        });
        let weak = Rc::downgrade(this);
        let on_error = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            let Some(inner) = weak.upgrade() else { return };
            let event: web_sys::ErrorEvent = event.unchecked_into();
            event.prevent_default();
            // The threaded build could not start (no shared memory, not fetched yet and offline):
            // the single-threaded one takes over with the same queued requests.
            if inner.threaded.get() && inner.queue.borrow().is_some() {
                web_sys::console::warn_1(&format!("threaded worker failed to start ({}); using the single-threaded one", event.message()).into());
                if let Some(w) = inner.worker.borrow_mut().take() {
                    w.terminate();
                }
                if let Err(message) = Inner::start(&inner, None) {
                    inner.on_reply.emit(Reply::Error { id: None, message, retry: false });
                }
                return;
            }
            inner.on_reply.emit(Reply::Error {
                id: None,
                message: format!(
                    "The inference worker stopped: {}. Reload the page; if it happens again, this browser may be out of memory (close other tabs).",
                    event.message()
                ),
                retry: false,
            });
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        this.handlers.borrow_mut().extend([on_message, on_error]);
        *this.worker.borrow_mut() = Some(worker);
        Ok(())
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        if let Some(w) = self.inner.worker.borrow_mut().take() {
            w.terminate();
        }
    }
}
