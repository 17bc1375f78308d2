//! The inference worker: a Web Worker that owns the course and models, so the page never blocks.
//!
//! It answers [`Request`]s with [`Reply`]s (JSON over `postMessage`). Loading, retrieval and
//! generation are async tasks on the worker's event loop; generation yields between steps, so a
//! Stop message is handled between two tokens.

mod ask;
mod author;
mod engine;
pub mod loader;
mod quiz;

use crate::protocol::{self, ReadyInfo, Reply, Request, StorageInfo};
use crate::storage::Store;
use engine::Engine;
use inference::agent::ask::AskSettings;
use loader::{Failure, Fetcher, now_ms};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

#[derive(Default)]
struct State {
    engine: RefCell<Option<Rc<Engine>>>,
    loading: Cell<bool>,
    asking: Cell<bool>,
    stop: Cell<bool>,
    /// Under `?route=0`: messages go to Ask as if the learner chose it.
    no_routing: Cell<bool>,
    /// The quiz's settings (`?quiz=quick` or the CLI's).
    quiz_cfg: RefCell<inference::agent::quiz::QuizConfig>,
    quiz: quiz::Slot,
    author: author::Slot,
}

fn scope() -> web_sys::DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(reply: Reply) {
    let _ = scope().post_message(&JsValue::from_str(&protocol::encode(&reply)));
}

/// Installs the message handler; called by the `worker` binary's `main`.
pub fn start() {
    // A panic (an allocation past wasm's 4 GB, a bug) would otherwise end the worker silently and
    // leave the page waiting: report it.
    std::panic::set_hook(Box::new(|info| {
        let message = match info.payload().downcast_ref::<&str>() {
            Some(s) => s.to_string(),
            None => info.payload().downcast_ref::<String>().cloned().unwrap_or_else(|| info.to_string()),
        };
        post(Reply::Error { id: None, message: format!("The course worker stopped: {message}. Reload the page to try again."), retry: true });
    }));
    let state = Rc::new(State::default());
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        let Some(text) = event.data().as_string() else { return };
        match protocol::decode::<Request>(&text) {
            Ok(req) => handle(&state, req),
            Err(message) => post(Reply::Error { id: None, message, retry: false }),
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(Reply::Started);
}

fn not_ready(id: Option<u32>) {
    post(Reply::Error { id, message: "The course is still loading; try again when the status says ready.".into(), retry: false });
}

fn handle(state: &Rc<State>, req: Request) {
    let engine = state.engine.borrow().clone();
    match req {
        Request::Stop => state.stop.set(true),
        Request::Load { assets, runtime, answer_tokens, passages, check, route, quiz_quick } => {
            if state.loading.get() || engine.is_some() {
                return;
            }
            state.no_routing.set(route == Some(false));
            *state.quiz_cfg.borrow_mut() = protocol::quiz_settings(quiz_quick);
            state.loading.set(true);
            let state = state.clone();
            spawn_local(async move {
                let ask = protocol::ask_settings(runtime, answer_tokens, passages, check);
                let loaded = load(assets, runtime, ask).await;
                state.loading.set(false);
                match loaded {
                    Ok((engine, info)) => {
                        let engine = Rc::new(engine);
                        *state.engine.borrow_mut() = Some(engine.clone());
                        post(Reply::Ready(info));
                        // The first message's prompt prefixes, read while the learner reads the page.
                        ask::warm(&engine, !state.no_routing.get(), &state.asking).await;
                    }
                    Err(f) => post(Reply::Error { id: None, message: f.message, retry: f.retry }),
                }
            });
        }
        Request::Search { id, question, lexical } => {
            let Some(engine) = engine else { return not_ready(Some(id)) };
            if lexical {
                let t0 = now_ms();
                let hits = engine.lexical(&question, 10);
                post(Reply::Results(protocol::Results { id, question, lexical, abstained: false, coverage: 1.0, hits, nearest: Vec::new(), ms: now_ms() - t0 }));
                return;
            }
            spawn_local(async move {
                match ask::search(&engine, id, question).await {
                    Ok(reply) => post(reply),
                    Err(message) => post(Reply::Error { id: Some(id), message, retry: false }),
                }
            });
        }
        Request::Ask { id, question, followup, route } => {
            let Some(engine) = engine else { return not_ready(Some(id)) };
            if state.asking.get() {
                post(Reply::Error { id: Some(id), message: "An answer is still being written; stop it first.".into(), retry: false });
                return;
            }
            state.asking.set(true);
            state.stop.set(false);
            let state = state.clone();
            spawn_local(async move {
                let route = route.or(state.no_routing.get().then_some(protocol::Label::Conceptual));
                if let Err(message) = ask::message(&engine, id, &question, followup.as_deref(), route, &state.stop, &post).await {
                    post(Reply::Error { id: Some(id), message: format!("The answer failed: {message}"), retry: false });
                }
                state.asking.set(false);
            });
        }
        Request::QuizTopic { id, topic } => {
            let Some(engine) = engine else { return not_ready(Some(id)) };
            let state = state.clone();
            spawn_local(async move {
                let cfg = state.quiz_cfg.borrow().clone();
                match quiz::topic(&engine, id, &topic, &cfg).await {
                    Ok(reply) => post(reply),
                    Err(message) => post(Reply::Error { id: Some(id), message: format!("The quiz could not start: {message}"), retry: false }),
                }
            });
        }
        Request::QuizStart { id, topic, subtopic, start, known } => {
            let Some(engine) = engine else { return not_ready(Some(id)) };
            let state = state.clone();
            spawn_local(async move {
                let cfg = state.quiz_cfg.borrow().clone();
                if let Err(message) = quiz::start(&engine, &state.quiz, &cfg, id, &topic, subtopic, start, known, &post).await {
                    post(Reply::Error { id: Some(id), message: format!("The quiz failed: {message}"), retry: false });
                }
            });
        }
        Request::QuizAnswer { id, choice, last } => {
            let Some(engine) = engine else { return not_ready(Some(id)) };
            let state = state.clone();
            spawn_local(async move {
                if let Err(message) = quiz::answer(&engine, &state.quiz, id, choice, last, &post).await {
                    post(Reply::Error { id: Some(id), message: format!("The quiz failed: {message}"), retry: false });
                }
            });
        }
        Request::QuizEnd { id } => quiz::end(&state.quiz, id),
        Request::AuthorStart { id, request } => {
            let Some(engine) = engine else { return not_ready(Some(id)) };
            let state = state.clone();
            spawn_local(async move {
                if let Err(message) = author::start(&engine, &state.author, id, request, &post).await {
                    post(Reply::Error { id: Some(id), message: format!("Writing the questions failed: {message}"), retry: false });
                }
            });
        }
        Request::AuthorStop { id } => state.author.stop(id),
        Request::AuthorRecheck { id, item } => {
            let Some(engine) = engine else { return not_ready(Some(id)) };
            let state = state.clone();
            spawn_local(async move {
                if let Err(message) = author::recheck(&engine, &state.author, id, *item, &post).await {
                    post(Reply::Error { id: Some(id), message: format!("Checking the edited question failed: {message}"), retry: false });
                }
            });
        }
        Request::Section { id } => {
            let Some(engine) = engine else { return not_ready(None) };
            match engine.section(id) {
                Some(view) => post(Reply::Section(view)),
                None => post(Reply::Error { id: None, message: format!("The book has no section {id}."), retry: false }),
            }
        }
        Request::Bench { questions } => {
            let Some(engine) = engine else { return not_ready(None) };
            spawn_local(async move {
                let json = match bench(&engine, &questions).await {
                    Ok(json) => json,
                    Err(e) => serde_json::json!({ "error": e }).to_string(),
                };
                post(Reply::Bench { json });
            });
        }
        Request::Storage => spawn_local(async { post(storage_info().await) }),
        Request::ClearStorage => spawn_local(async {
            let cleared = async {
                Store::open().await?.clear().await?;
                // The Code view's and the quiz's saved progress and the question bank too: Clear
                // leaves nothing of this site behind.
                for kind in crate::storage::records::ALL {
                    crate::storage::records::clear(kind).await?;
                }
                Ok::<(), crate::storage::StoreError>(())
            };
            match cleared.await {
                Ok(()) => post(storage_info().await),
                Err(e) => post(Reply::Error { id: None, message: format!("Could not delete the saved files: {e}"), retry: false }),
            }
        }),
    }
}

async fn load(assets: Option<protocol::AssetList>, runtime: protocol::Runtime, ask: AskSettings) -> Result<(Engine, ReadyInfo), Failure> {
    let t0 = now_ms();
    let store = Store::open().await?;
    let list = match assets {
        Some(list) => list,
        None => store.complete().await?.ok_or_else(|| {
            Failure::new("You seem to be offline and nothing is saved on this device yet. Connect to the internet once so the course can be downloaded, then press Retry.")
        })?,
    };
    let mut fetcher = Fetcher::new(&store, &list, &post).await?;
    let engine = Engine::load(&mut fetcher, runtime, ask).await?;
    // Every file of this version is stored: record it and drop files of older versions.
    let t1 = now_ms();
    store.prune(&list).await?;
    fetcher.mark("record complete set", t1);
    let llm = fetcher.asset(protocol::names::LLM)?.url.rsplit('/').next().unwrap_or_default().to_string();
    let info = ReadyInfo {
        title: engine.bundle.header.title.clone(),
        sections: engine.bundle.sections.len() as u32,
        chunks: engine.bundle.chunks.len() as u32,
        outline: engine.outline(),
        from_cache: fetcher.downloaded == 0,
        downloaded_bytes: fetcher.downloaded,
        load_ms: now_ms() - t0,
        encoder: engine.encoder.as_ref().map(|e| e.id().name.clone()),
        llm: match &engine.runtime_note {
            None => format!("{llm} ({:?})", engine.runtime),
            Some(note) => format!("{llm} ({:?}; {note})", engine.runtime),
        },
        threads: inference::kernels::threads() as u32,
        timings: fetcher.timings.clone(),
    };
    Ok((engine, info))
}

/// Milliseconds per question (embedding + retrieval), after one warm-up query.
async fn bench(engine: &Engine, questions: &[String]) -> Result<String, String> {
    engine.search("warm up").await?;
    let mut ms = Vec::new();
    let mut abstained = 0;
    for q in questions {
        let t0 = now_ms();
        let r = engine.search(q).await?;
        ms.push(now_ms() - t0);
        abstained += r.abstained as usize;
    }
    Ok(serde_json::json!({ "queries": questions.len(), "ms": ms, "abstained": abstained }).to_string())
}

async fn storage_info() -> Reply {
    let read = async {
        let store = Store::open().await?;
        let entries = store.entries().await?;
        let complete_version = store.complete().await?.map(|l| l.version);
        Ok::<_, crate::storage::StoreError>((entries, complete_version))
    };
    match read.await {
        Ok((entries, complete_version)) => {
            let (usage, quota) = crate::storage::estimate().await;
            Reply::Storage(StorageInfo { entries, complete_version, usage, quota })
        }
        Err(e) => Reply::Error { id: None, message: format!("Could not read the saved files: {e}"), retry: false },
    }
}
