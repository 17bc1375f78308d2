//! Everything loaded once per visit: the course bundle, the sentence encoder and the chat model.

use super::loader::{Failure, Fetcher, now_ms};
use crate::protocol::{Hit, OutlineItem, Runtime, SectionRef, SectionView, names};
use inference::agent::ask::{self, AskSettings};
use inference::bundle::Bundle;
use inference::embed::{DEFAULT_MAX_TOKENS, E5_NAME, SentenceEncoder};
use inference::gguf::Gguf;
use inference::llm::{LoadOptions, Pause, Session};
use inference::model::llama::WeightFormat;
use inference::retrieve::Retrieval;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// How long model work runs before the worker's event loop gets a turn (messages are read).
const PAUSE_MS: f64 = 50.0;

pub struct Engine {
    pub bundle: Bundle,
    pub encoder: Option<SentenceEncoder>,
    pub session: RefCell<Session>,
    /// The runtime the chat model runs on, and why it is not the one asked for (WebGPU failed).
    pub runtime: Runtime,
    pub runtime_note: Option<String>,
    /// The Ask agent's settings (the CLI's defaults unless the page asked otherwise).
    pub ask: AskSettings,
    /// Tasks waiting for the session now ([`Engine::session`]).
    waiting: Cell<usize>,
}

impl Engine {
    /// Loads every asset through `fetch` (IndexedDB or network), building each part as soon as
    /// its files are there so their bytes can be dropped.
    pub async fn load(fetch: &mut Fetcher<'_>, runtime: Runtime, ask: AskSettings) -> Result<Engine, Failure> {
        let device = inference::device::default_device();
        let bytes = fetch.get(names::BUNDLE).await?;
        fetch.preparing("course.bundle");
        let t0 = now_ms();
        let bundle = Bundle::from_bytes(&bytes).map_err(|e| Failure { message: format!("The course bundle cannot be read: {e}"), retry: false })?;
        drop(bytes);
        fetch.mark("parse bundle", t0);
        let encoder = match &bundle.header.encoder {
            Some(id) => {
                // multilingual-e5-small is one file (its 4-bit container); MiniLM three.
                let (loaded, t0) = if id.name == E5_NAME {
                    let weights = fetch.get(names::ENCODER_WEIGHTS).await?;
                    fetch.preparing(&id.name);
                    let t0 = now_ms();
                    (SentenceEncoder::load_e5s1(&weights), t0)
                } else {
                    let config = fetch.get(names::ENCODER_CONFIG).await?;
                    let tokenizer = fetch.get(names::ENCODER_TOKENIZER).await?;
                    let weights = fetch.get(names::ENCODER_WEIGHTS).await?;
                    fetch.preparing(&id.name);
                    let t0 = now_ms();
                    (SentenceEncoder::load(&id.name, &config, &weights, &tokenizer, DEFAULT_MAX_TOKENS), t0)
                };
                let enc = loaded.map_err(|e| Failure { message: format!("The sentence encoder cannot be loaded: {e}"), retry: false })?;
                bundle.check_encoder(enc.id()).map_err(|e| Failure { message: e.to_string(), retry: false })?;
                fetch.mark("build encoder", t0);
                Some(enc)
            }
            None => None,
        };
        let gguf = fetch.get(names::LLM).await?;
        fetch.preparing(&fetch.asset(names::LLM)?.url);
        let t0 = now_ms();
        let (mut runtime, mut runtime_note) = (runtime, None);
        // Burn runs `llama` models only; others (Qwen2) stay on the quantized CPU runtime.
        let arch = Gguf::parse(&gguf).ok().and_then(|g| g.architecture().ok().map(str::to_string)).unwrap_or_default();
        if runtime != Runtime::Quantized && arch != "llama" {
            runtime_note = Some(format!("the GPU runtime runs llama models only; this {arch} model runs on the CPU."));
            runtime = Runtime::Quantized;
        }
        let gpu = match runtime {
            Runtime::WebGpu => match webgpu_device().await {
                Ok(device) => Some(device),
                Err(e) => {
                    runtime = Runtime::Quantized;
                    runtime_note = Some(format!("WebGPU could not be used ({e}); the model runs on the CPU."));
                    None
                }
            },
            _ => None,
        };
        let device_for = gpu.as_ref().or(Some(&device)).filter(|_| runtime != Runtime::Quantized);
        let opts = LoadOptions { runtime, device: device_for, weights: if runtime == Runtime::WebGpu { WeightFormat::Q8 } else { WeightFormat::F32 }, context: Session::CONTEXT };
        let mut session = Session::load(std::sync::Arc::new(gguf), &opts)
            .map_err(|e| Failure { message: format!("The language model cannot be loaded: {e}"), retry: false })?;
        session.pause_with(pause(if ask.prompt_chunk > 0 { ask.prompt_chunk } else { 64 }));
        fetch.mark("build llm", t0);
        Ok(Engine { bundle, encoder, session: RefCell::new(session), runtime, runtime_note, ask, waiting: Cell::new(0) })
    }

    /// The chat session, once no other task holds it: a task keeps it across the session's
    /// pauses, so Ask, the quiz and authoring take turns instead of borrowing it twice.
    pub async fn session(&self) -> std::cell::RefMut<'_, Session> {
        loop {
            if let Ok(s) = self.session.try_borrow_mut() {
                return s;
            }
            let _waits = Waiting::new(&self.waiting);
            super::ask::yield_now().await;
        }
    }

    /// Whether another task waits for the session: work nobody waits for (a quiz item made
    /// ahead) gives way.
    pub fn wanted(&self) -> bool {
        self.waiting.get() > 0
    }

    /// Hybrid retrieval, as `index-builder search` and the Ask agent run it.
    pub async fn search(&self, question: &str) -> Result<Retrieval, String> {
        ask::search(&self.bundle, self.encoder.as_ref(), question, &self.ask.retrieval).await.map_err(|e| e.to_string())
    }

    /// BM25 over the book: the best chunk of each of the top sections.
    pub fn lexical(&self, question: &str, sections: usize) -> Vec<Hit> {
        let terms = inference::text::query_terms(question);
        let mut hits: Vec<Hit> = Vec::new();
        for (chunk, _) in self.bundle.bm25.search(&terms, sections * 4) {
            let c = &self.bundle.chunks[chunk as usize];
            if hits.iter().any(|h| h.section == c.section) {
                continue;
            }
            hits.push(self.hit(chunk));
            if hits.len() == sections {
                break;
            }
        }
        hits
    }

    pub fn hit(&self, chunk: u32) -> Hit {
        let c = &self.bundle.chunks[chunk as usize];
        let s = &self.bundle.sections[c.section as usize];
        Hit {
            section: c.section,
            chunk,
            heading_path: s.heading_path.clone(),
            tier: c.tier.name().to_string(),
            file: s.file.clone(),
            line: c.line_start,
            text: self.bundle.chunk_text(chunk).chars().take(400).collect(),
        }
    }

    pub fn section_ref(&self, id: u32) -> SectionRef {
        SectionRef { section: id, heading_path: self.bundle.sections[id as usize].heading_path.clone() }
    }

    pub fn section(&self, id: u32) -> Option<SectionView> {
        let s = self.bundle.sections.get(id as usize)?;
        Some(SectionView {
            id,
            heading_path: s.heading_path.clone(),
            file: s.file.clone(),
            line: s.line,
            text: s.text.clone(),
            parent: s.parent.map(|p| self.section_ref(p)),
            children: s.children.iter().map(|&c| self.section_ref(c)).collect(),
        })
    }

    pub fn outline(&self) -> Vec<OutlineItem> {
        self.bundle
            .sections
            .iter()
            .map(|s| OutlineItem {
                id: s.id,
                heading: s.heading_path.last().cloned().unwrap_or_default(),
                depth: s.heading_path.len().saturating_sub(1) as u16,
                parent: s.parent,
            })
            .collect()
    }
}

/// The browser's WebGPU device for Burn, acquired asynchronously (before any tensor is made).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
async fn webgpu_device() -> Result<inference::device::Device, String> {
    inference::device::Device::wgpu_options().init_async().await.map_err(|e| format!("{e:?}"))
}

#[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
async fn webgpu_device() -> Result<inference::device::Device, String> {
    Err("WebGPU is only in the single-threaded browser build".into())
}

/// One task counted as waiting for the session while it lives (uncounted when dropped, also
/// mid-wait).
struct Waiting<'a>(&'a Cell<usize>);

impl<'a> Waiting<'a> {
    fn new(count: &'a Cell<usize>) -> Self {
        count.set(count.get() + 1);
        Waiting(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

/// The session's pause in the worker: pieces of `chunk` tokens, and a turn of the event loop once
/// [`PAUSE_MS`] of model work have passed, so an answer, a Stop or a question is read (and a
/// task that no longer needs its work abandons it, [`unless`]) within about that time.
fn pause(chunk: usize) -> Pause {
    let last = Rc::new(Cell::new(now_ms()));
    Pause {
        chunk,
        between: Box::new(move || {
            if now_ms() - last.get() < PAUSE_MS {
                return None;
            }
            let last = last.clone();
            Some(Box::pin(async move {
                super::ask::yield_now().await;
                last.set(now_ms());
            }))
        }),
    }
}

/// Runs `work` to its end, or drops it (`None`) once `needless` says its result is no longer
/// wanted; asked each time the work pauses. Dropping model work mid-way is safe: the session
/// keeps track of what its cache holds.
pub async fn unless<F: std::future::Future>(needless: impl Fn() -> bool, work: F) -> Option<F::Output> {
    let mut work = std::pin::pin!(work);
    std::future::poll_fn(|cx| {
        if needless() {
            return std::task::Poll::Ready(None);
        }
        work.as_mut().poll(cx).map(Some)
    })
    .await
}
