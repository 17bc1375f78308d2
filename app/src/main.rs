//! Pathshala in the browser: loads the course bundle and the sentence encoder, then searches the
//! course with the same hybrid retrieval as `index-builder search`.
//!
//! `?bench=URL` runs the questions of a JSON list at URL after loading and writes per-query
//! latencies into `data-testid="bench"` (used by `tests/browser/bench.mjs`).

mod fetch;

use inference::bundle::Bundle;
use inference::embed::{DEFAULT_MAX_TOKENS, SentenceEncoder};
use inference::retrieve::{FeatureReranker, Query, Reranker, RetrievalConfig, Retrieval, retrieve};
use std::rc::Rc;
use yew::prelude::*;

/// Everything loaded once per visit.
pub struct Engine {
    bundle: Bundle,
    encoder: Option<SentenceEncoder>,
}

impl Engine {
    async fn search(&self, question: &str) -> Result<Retrieval, String> {
        let vector = match &self.encoder {
            Some(e) if e.can_read(question) => Some(e.embed_async(&[question]).await.map_err(|e| e.to_string())?.remove(0)),
            _ => None,
        };
        let common = |w: &str| self.encoder.as_ref().is_some_and(|e| e.is_whole_word(w));
        let query = Query { text: question, vector: vector.as_deref(), is_common_word: self.encoder.as_ref().map(|_| &common as &dyn Fn(&str) -> bool) };
        let reranker = FeatureReranker::default();
        Ok(retrieve(&self.bundle, &RetrievalConfig::default(), &query, Some(&reranker as &dyn Reranker)))
    }
}

async fn load() -> Result<Engine, String> {
    let bytes = fetch::bytes("course.bundle").await?;
    let bundle = Bundle::from_bytes(&bytes).map_err(|e| e.to_string())?;
    let encoder = match &bundle.header.encoder {
        Some(id) => {
            let dir = format!("models/{}", id.name);
            let config = fetch::bytes(&format!("{dir}/config.json")).await?;
            let weights = fetch::bytes(&format!("{dir}/model.safetensors")).await?;
            let tokenizer = fetch::bytes(&format!("{dir}/tokenizer.json")).await?;
            let device = inference::device::default_device();
            let enc = SentenceEncoder::load(&id.name, &config, &weights, &tokenizer, DEFAULT_MAX_TOKENS, &device).map_err(|e| e.to_string())?;
            bundle.check_encoder(enc.id()).map_err(|e| e.to_string())?;
            Some(enc)
        }
        None => None,
    };
    Ok(Engine { bundle, encoder })
}

#[derive(Clone, PartialEq)]
enum Status {
    Loading,
    Ready,
    Error(String),
}

#[function_component]
fn App() -> Html {
    let status = use_state(|| Status::Loading);
    let engine = use_state(|| None::<Rc<Engine>>);
    let result = use_state(|| None::<Rc<(String, Retrieval)>>);
    let bench = use_state(String::new);
    let input = use_node_ref();

    {
        let (status, engine, bench) = (status.clone(), engine.clone(), bench.clone());
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                match load().await {
                    Ok(e) => {
                        let e = Rc::new(e);
                        engine.set(Some(e.clone()));
                        status.set(Status::Ready);
                        if let Some(url) = fetch::query_param("bench") {
                            bench.set(run_bench(&e, &url).await.unwrap_or_else(|err| format!("{{\"error\": {err:?}}}")));
                        }
                    }
                    Err(err) => status.set(Status::Error(err)),
                }
            });
        });
    }

    let onsubmit = {
        let (engine, result, input) = (engine.clone(), result.clone(), input.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(engine) = (*engine).clone() else { return };
            let Some(el) = input.cast::<web_sys::HtmlInputElement>() else { return };
            let q = el.value();
            if q.trim().is_empty() {
                return;
            }
            let result = result.clone();
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(r) = engine.search(&q).await {
                    result.set(Some(Rc::new((q, r))));
                }
            });
        })
    };

    let (state, message) = match &*status {
        Status::Loading => ("loading", "Loading the course and the encoder…".to_string()),
        Status::Ready => ("ready", engine.as_ref().map(|e| format!("{} — {} sections", e.bundle.header.title, e.bundle.sections.len())).unwrap_or_default()),
        Status::Error(m) => ("error", m.clone()),
    };
    html! {
        <main>
            <h1>{ "Pathshala" }</h1>
            <p data-testid="status" data-state={state}>{ message }</p>
            <form {onsubmit}>
                <input ref={input} data-testid="search-input" placeholder="Ask about the course…" />
                <button data-testid="search-submit" type="submit">{ "Search" }</button>
            </form>
            { view_result(engine.as_deref(), result.as_deref()) }
            if !bench.is_empty() { <pre data-testid="bench">{ (*bench).clone() }</pre> }
        </main>
    }
}

fn view_result(engine: Option<&Engine>, result: Option<&(String, Retrieval)>) -> Html {
    let (Some(engine), Some((question, r))) = (engine, result) else { return html! {} };
    let nearest = r.nearest_sections.iter().map(|&s| {
        let s = &engine.bundle.sections[s as usize];
        html! { <li>{ s.heading_path.join(" ▸ ") }</li> }
    });
    html! {
        <section data-testid="results" data-state={ if r.abstained { "abstained" } else { "done" } }>
            <p>{ format!("“{question}” — coverage {:.2}", r.coverage.score) }</p>
            if r.abstained {
                <p>{ "The course book does not cover this. Nearest sections:" }</p>
                <ul>{ for nearest }</ul>
            } else {
                <ol>
                    { for r.evidence.iter().map(|e| html! {
                        <li data-testid="evidence" data-heading={ e.heading_path.last().cloned().unwrap_or_default() }>
                            <strong>{ e.heading_path.join(" ▸ ") }</strong>
                            <small>{ format!(" {} · {}:{}", e.tier, e.file, e.line_start) }</small>
                            <p>{ e.text.chars().take(400).collect::<String>() }</p>
                        </li>
                    }) }
                </ol>
            }
        </section>
    }
}

/// Time each question of the JSON list at `url` (embedding + retrieval), in milliseconds.
async fn run_bench(engine: &Engine, url: &str) -> Result<String, String> {
    let text = String::from_utf8(fetch::bytes(url).await?).map_err(|e| e.to_string())?;
    let questions: Vec<String> = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let perf = web_sys::window().and_then(|w| w.performance()).ok_or("no performance clock")?;
    // One warm-up query: the first call compiles kernels and fills caches.
    engine.search("warm up").await?;
    let mut ms = Vec::new();
    let mut abstained = 0;
    for q in &questions {
        let t0 = perf.now();
        let r = engine.search(q).await?;
        ms.push(perf.now() - t0);
        abstained += r.abstained as usize;
    }
    Ok(serde_json::json!({ "queries": questions.len(), "ms": ms, "abstained": abstained }).to_string())
}

fn main() {
    yew::Renderer::<App>::new().render();
}
