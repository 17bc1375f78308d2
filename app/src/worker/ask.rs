//! Answering one question: retrieval, the Ask agent's plan, then token-by-token generation that
//! yields to the event loop between steps so a Stop message is handled at once.

use super::engine::Engine;
use super::loader::now_ms;
use crate::protocol::{AnswerStats, Reply, Results, SourceRef};
use inference::agent::ask::{self, Plan};
use inference::agent::decode::{Decoder, Step, TextStream};
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

/// Answers `question`, posting sources, reading progress, tokens and the final answer.
pub async fn answer(engine: &Engine, id: u32, question: &str, stop: &Cell<bool>, post: &dyn Fn(Reply)) -> Result<(), String> {
    let t0 = now_ms();
    let cfg = engine.ask.clone();
    let retrieval = engine.search(question).await?;
    let mut chat = engine.chat.borrow_mut();
    let chat = &mut *chat;
    let render = |p: &ask::AskPrompt| p.render(&chat.template).map_err(|e| format!("the chat template failed: {e}"));
    let count = |p: &ask::AskPrompt| render(p).and_then(|t| chat.tokenizer.encode(&t).map_err(|e| e.to_string())).map_or(usize::MAX, |ids| ids.len());
    let prompt = match ask::plan(&engine.bundle.header.title, question, &retrieval, &cfg, &count) {
        Plan::Abstain { nearest_sections } => {
            post(Reply::Abstained { id, nearest: nearest_sections.iter().map(|&s| engine.section_ref(s)).collect() });
            return Ok(());
        }
        Plan::Answer(p) => p,
    };
    let ids = chat.tokenizer.encode(&render(&prompt)?).map_err(|e| e.to_string())?;
    let sources = prompt
        .sources
        .iter()
        .map(|s| {
            let c = &engine.bundle.chunks[s.chunk as usize];
            SourceRef { n: s.n, section: s.section, heading_path: s.heading_path.clone(), start: c.start, end: c.end }
        })
        .collect();
    post(Reply::AskSources { id, sources, prompt_tokens: ids.len() });
    yield_now().await;

    let mut decoder = Decoder::new(&ids, &chat.stop_ids, cfg.max_new_tokens, engine.prefill_chunk());
    let mut text = TextStream::default();
    let mut first_token_ms = None;
    let mut stopped = false;
    loop {
        if stop.get() {
            stopped = true;
            break;
        }
        // A Burn model reads its logits back asynchronously (required on WebGPU).
        let step = match chat.lm.as_burn() {
            Some(burn) => decoder.step_async(burn).await,
            None => decoder.step(chat.lm.as_mut()),
        };
        match step.map_err(|e| e.to_string())? {
            Step::Reading { done, total } => post(Reply::Reading { id, done, total }),
            Step::Token(t) => {
                first_token_ms.get_or_insert_with(now_ms);
                if let Some(delta) = text.push(t, &chat.tokenizer) {
                    post(Reply::Token { id, text: delta });
                }
            }
            Step::Done => break,
        }
        yield_now().await;
    }
    let tokens = decoder.tokens().len();
    let end = now_ms();
    let idf = |t: &str| engine.bundle.bm25.idf(t);
    let attributed = ask::attribute(text.text(), &prompt.sources, &idf);
    let stats = AnswerStats {
        prompt_tokens: ids.len(),
        first_token_ms: first_token_ms.map(|t| t - t0),
        tokens,
        tokens_per_s: first_token_ms.filter(|_| tokens > 1).map(|t| (tokens - 1) as f64 / ((end - t) / 1000.0).max(1e-6)),
        total_ms: end - t0,
    };
    post(Reply::Done { id, text: attributed.text, matched: attributed.matched, stopped, stats });
    Ok(())
}
