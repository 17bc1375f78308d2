//! The page's side of the worker: spawns `worker_loader.js` and passes messages both ways.
//!
//! Messages posted before the worker's wasm has started would be lost (it sets its handler only
//! once running), so requests wait in a queue until the worker says [`Reply::Started`].

use crate::protocol::{self, Reply, Request};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use yew::Callback;

pub struct Bridge {
    worker: web_sys::Worker,
    /// `None` once the worker has started.
    queue: Rc<RefCell<Option<Vec<String>>>>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl Bridge {
    /// Starts the worker; every reply (and a failure to start) goes to `on_reply`.
    pub fn spawn(on_reply: Callback<Reply>) -> Result<Bridge, String> {
        // Relative: the site works under any sub-path. Trunk writes the loader shim.
        let worker = web_sys::Worker::new("./worker_loader.js").map_err(|e| format!("cannot start the inference worker: {e:?}"))?;
        let queue: Rc<RefCell<Option<Vec<String>>>> = Rc::new(RefCell::new(Some(Vec::new())));
        let replies = on_reply.clone();
        let (w, q) = (worker.clone(), queue.clone());
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let Some(text) = event.data().as_string() else { return };
            match protocol::decode::<Reply>(&text) {
                Ok(Reply::Started) => {
                    for msg in q.borrow_mut().take().unwrap_or_default() {
                        let _ = w.post_message(&JsValue::from_str(&msg));
                    }
                }
                Ok(reply) => replies.emit(reply),
                Err(message) => replies.emit(Reply::Error { id: None, message, retry: false }),
            }
        });
        let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
            event.prevent_default();
            on_reply.emit(Reply::Error {
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
        Ok(Bridge { worker, queue, _on_message: on_message, _on_error: on_error })
    }

    pub fn send(&self, req: &Request) {
        let msg = protocol::encode(req);
        match self.queue.borrow_mut().as_mut() {
            Some(waiting) => waiting.push(msg),
            None => {
                let _ = self.worker.post_message(&JsValue::from_str(&msg));
            }
        }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}
