//! One message: the router, then for a question on the book retrieval, the Ask agent's plan and
//! token-by-token generation that yields to the event loop between steps so a Stop message is
//! handled at once.

use super::engine::Engine;
use super::loader::now_ms;
use crate::protocol::{AnswerStats, QuoteRef, Reply, Results, SourceRef};
use inference::agent::ask::{AskEnv, AskEvent, AskRun};
use inference::agent::route::{self, Label, RouteConfig, RouteEnv, RouteError};
use inference::agent::warm::Warmup;
use std::cell::Cell;

/// Lets the worker's event loop run (a `setTimeout(0)`), e.g. to receive Stop.
pub async fn yield_now() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        use wasm_bindgen::JsCast;
        let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
        let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Reads the agents' fixed prompt prefixes once the course is ready, a chunk at a time, while the
/// learner reads the page ([`Warmup`]); ends when done, or once a message is being answered
/// (`asking`) or another task used the model. A message arriving mid-chunk stops the chunk at
/// the session's next pause (what was read stays kept), so its sources and the book's sentence
/// do not wait for the chunk. A failure here is the agent's to report when it runs.
pub async fn warm(engine: &Engine, routing: bool, asking: &Cell<bool>) {
    let route_cfg = RouteConfig::default();
    let warmup = {
        let session = engine.session().await;
        Warmup::for_course(&engine.bundle, engine.encoder.as_ref(), &session, &engine.ask, routing.then_some(&route_cfg), engine.ask.prompt_chunk)
    };
    let Ok(mut warmup) = warmup else { return };
    loop {
        yield_now().await;
        // Another task holds the model: it is using it, so the warm-up is over (and never
        // waits for the session, which would make work done ahead give way, `Engine::wanted`).
        let Ok(mut session) = engine.session.try_borrow_mut() else { return };
        if asking.get() || !matches!(super::engine::unless(|| asking.get() || engine.wanted(), warmup.step(&mut session)).await, Some(Ok(true))) {
            return;
        }
    }
}

/// Hybrid search results for the Find panel.
pub async fn search(engine: &Engine, id: u32, question: String) -> Result<Reply, String> {
    let t0 = now_ms();
    let r = engine.search(&question).await?;
    Ok(Reply::Results(Results {
        id,
        abstained: r.abstained,
        coverage: r.coverage.score,
        hits: r.evidence.iter().map(|e| engine.hit(e.chunk)).collect(),
        nearest: r.nearest_sections.iter().map(|&s| engine.section_ref(s)).collect(),
        question,
        lexical: false,
        ms: now_ms() - t0,
    }))
}

/// Routes the message (or takes the learner's `chosen` label) and posts where it went; a question
/// for the book is then answered.
pub async fn message(engine: &Engine, id: u32, question: &str, followup: Option<&str>, chosen: Option<Label>, stop: &Cell<bool>, post: &dyn Fn(Reply)) -> Result<(), String> {
    let t0 = now_ms();
    let route = {
        let mut session = engine.session().await;
        let mut env = RouteEnv { bundle: &engine.bundle, encoder: engine.encoder.as_ref(), session: &mut session };
        let cfg = RouteConfig::default();
        match chosen {
            Some(label) => route::chosen(&mut env, question, followup, label, &cfg).await,
            None => route::route(&mut env, question, followup, &cfg).await,
        }
    };
    let route = match route {
        Ok(route) => route,
        // Empty, too long, no words: Ask says so, as it always has.
        Err(RouteError::BadInput(_)) => return answer(engine, id, question, stop, post, t0).await,
        Err(e) => return Err(e.to_string()),
    };
    let label = route.label;
    post(Reply::Routed { id, route, ms: now_ms() - t0 });
    if label == Label::Conceptual {
        yield_now().await;
        answer(engine, id, &route::joined(question, followup), stop, post, t0).await?;
    }
    Ok(())
}

/// Answers `question` with the Ask agent, posting its events as replies: sources and the
/// book's sentence, reading progress, tokens, the check, then the checked answer or an
/// abstention. Yields to the event loop after each step, so Stop is handled between tokens.
/// Times count from `t0`, when the message arrived (routing included).
async fn answer(engine: &Engine, id: u32, question: &str, stop: &Cell<bool>, post: &dyn Fn(Reply), t0: f64) -> Result<(), String> {
    let mut session = engine.session().await;
    let mut env = AskEnv { bundle: &engine.bundle, encoder: engine.encoder.as_ref(), session: &mut session };
    let mut run = AskRun::new(question, engine.ask.clone());
    let (mut prompt_tokens, mut first_token_ms, mut answer_end) = (0, None, None);
    let stats = |prompt_tokens, first: Option<f64>, tokens: usize, end: Option<f64>| {
        let end = end.unwrap_or_else(now_ms);
        AnswerStats {
            prompt_tokens,
            first_token_ms: first.map(|t| t - t0),
            tokens,
            tokens_per_s: first.filter(|_| tokens > 1).map(|t| (tokens - 1) as f64 / ((end - t) / 1000.0).max(1e-6)),
            total_ms: now_ms() - t0,
        }
    };
    loop {
        if stop.get() {
            run.stop();
        }
        let Some(event) = run.step(&mut env).await.map_err(|e| e.to_string())? else { break };
        match event {
            AskEvent::Sources { sources, quote, prompt_tokens: n } => {
                prompt_tokens = n;
                let sources = sources
                    .iter()
                    .map(|s| {
                        let c = &engine.bundle.chunks[s.chunk as usize];
                        SourceRef { n: s.n, section: s.section, heading_path: s.heading_path.clone(), start: c.start, end: c.end }
                    })
                    .collect();
                let quote = quote.map(|q| QuoteRef { n: q.n, section: q.section, heading_path: q.heading_path, text: q.text });
                post(Reply::AskSources { id, sources, quote, prompt_tokens: n });
            }
            AskEvent::Reading { done, total } => post(Reply::Reading { id, done, total }),
            // A "no" is followed by the abstention, which says so.
            AskEvent::Sufficiency { .. } => {}
            // The book's sentence that opens the answer: shown as the answer's text, though
            // the model has written nothing yet (its first token is what `stats` times).
            AskEvent::Lead(text) => post(Reply::Token { id, text }),
            AskEvent::Token(text) => {
                first_token_ms.get_or_insert_with(now_ms);
                if !text.is_empty() {
                    post(Reply::Token { id, text });
                }
            }
            AskEvent::Checking { done, total } => {
                answer_end.get_or_insert_with(now_ms);
                post(Reply::Checking { id, done, total });
            }
            // The app leaves `AskConfig::retry` off (`protocol::ask_settings`), so no second try
            // comes; were one to, the checked answer (`Done`) still replaces the streamed text.
            AskEvent::Retrying(_) => {}
            AskEvent::Answered(a) => {
                let stats = stats(prompt_tokens, first_token_ms, a.tokens, answer_end);
                post(Reply::Done { id, text: a.shown, dropped: a.dropped, stopped: a.stopped, stats });
            }
            AskEvent::Abstained { reason, nearest, answer, .. } => {
                let stats = answer.map(|a| stats(prompt_tokens, first_token_ms, a.tokens, answer_end));
                post(Reply::Abstained { id, reason, nearest: nearest.iter().map(|&s| engine.section_ref(s)).collect(), stats });
            }
        }
        yield_now().await;
    }
    Ok(())
}
