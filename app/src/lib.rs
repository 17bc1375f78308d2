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
pub mod markdown;
pub mod protocol;
pub mod sandbox;
pub mod sandbox_protocol;
pub mod storage;
pub mod ui;
pub mod worker;
