//! Pathshala in the browser: an installable offline PWA that loads the course bundle and models
//! once (IndexedDB), runs retrieval and the LLM in a Web Worker and answers grounded questions.
//!
//! - [`ui`]: the page (Yew): status, Ask, Find, Book, Storage; [`ui::bridge`] talks to the worker.
//! - [`worker`]: the inference worker (its own binary, `src/bin/worker.rs`).
//! - [`sandbox`]: the Python sandbox worker (its own binary, `src/bin/sandbox.rs`), restarted
//!   by the page after a timeout; [`sandbox_protocol`] its messages.
//! - [`protocol`]: the typed messages between them.
//! - [`storage`]: IndexedDB; [`markdown`]: safe answer rendering; [`i18n`]: English and Bangla.

pub mod fetch;
pub mod i18n;
pub mod protocol;
pub mod storage;
pub mod worker;

// The threaded worker build (`+atomics`, app/threaded) is the inference worker alone: the page,
// the sandbox and their dependencies (Yew, RustPython) are not compiled into it.
#[cfg(not(target_feature = "atomics"))]
pub mod markdown;
#[cfg(not(target_feature = "atomics"))]
pub mod sandbox;
#[cfg(not(target_feature = "atomics"))]
pub mod sandbox_protocol;
#[cfg(not(target_feature = "atomics"))]
pub mod ui;
