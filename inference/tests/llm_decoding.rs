//! Decoding with SmolLM2-135M-Instruct (Q4_1): label scoring, seeded sampling, stop strings and
//! JSON-schema constrained generation, all through the `LanguageModel` trait, on the quantized
//! CPU runtime the app uses by default (`CpuLm`).
//!
//! A missing model file fails the tests (`models/fetch.sh llm`), unless
//! `PATHSHALA_SKIP_MISSING_MODELS=1` asks to skip.

mod common;

use std::time::{Duration, Instant};

use std::sync::Arc;

use inference::gguf::Gguf;
use inference::llm::constrain::JsonState;
use inference::llm::score::log_softmax;
use inference::llm::{
    ChatMessage, CpuLm, Finish, GenerateOptions, GgufTokenizer, JsonDecoder, LanguageModel, Sampling, Schema, TokenBytes, TokenConstraint,
    QuantDecoder, chatml_prompt, choose_label, choose_label_calibrated, generate_text, score_labels,
};
use serde_json::Value;

const MODEL: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

struct Loaded {
    lm: CpuLm,
    tok: GgufTokenizer,
    vocab: TokenBytes,
}

impl Loaded {
    /// Prompt ids of one user turn (with an optional system turn) of the chat template.
    fn chat(&self, system: Option<&str>, user: &str) -> Vec<u32> {
        let mut msgs = Vec::new();
        if let Some(s) = system {
            msgs.push(ChatMessage { role: "system", content: s });
        }
        msgs.push(ChatMessage { role: "user", content: user });
        self.tok.encode(&chatml_prompt(&msgs)).unwrap()
    }

    /// Ids of `text` as a continuation: no BOS.
    fn piece(&self, text: &str) -> Vec<u32> {
        let mut ids = self.tok.encode(text).unwrap();
        if self.tok.add_bos && ids.first() == self.tok.bos_id.as_ref() {
            ids.remove(0);
        }
        ids
    }

    fn stop_ids(&self) -> Vec<u32> {
        let mut s: Vec<u32> = self.tok.eos_id.into_iter().collect();
        s.extend(self.tok.token_id("<|im_end|>"));
        s
    }
}

fn load() -> Option<Loaded> {
    let bytes = common::model_bytes(MODEL)?;
    let g = Gguf::parse(&bytes).unwrap();
    let (tok, vocab) = (GgufTokenizer::from_gguf(&g).unwrap(), TokenBytes::from_gguf(&g).unwrap());
    let model = QuantDecoder::load(Arc::new(bytes)).unwrap();
    Some(Loaded { tok, vocab, lm: CpuLm::new(Arc::new(model), 2048) })
}

#[test]
fn token_bytes_agree_with_the_tokenizer() {
    let Some(m) = load() else { return };
    let mut checked = 0;
    for id in 0..m.vocab.len() as u32 {
        let text = m.tok.decode(&[id], false).unwrap();
        if m.vocab.is_special(id) || text.contains('\u{FFFD}') {
            continue;
        }
        assert_eq!(m.vocab.get(id), text.as_bytes(), "token {id}");
        checked += 1;
    }
    assert!(checked > 45_000, "{checked}");
    // A character split across tokens comes back whole from the bytes.
    let ids = m.piece("পাঠশালা 🎓");
    assert_eq!(String::from_utf8(m.vocab.concat(&ids)).unwrap(), "পাঠশালা 🎓");
}

const SYSTEM: &str = "You are a helpful assistant.";

#[test]
fn label_scoring_picks_the_obvious_label() {
    let Some(mut m) = load() else { return };
    // Factual choices: the raw scores suffice.
    let cases = [
        ("What is the capital of France?", vec!["Berlin", "Paris", "Madrid"], 1),
        ("Which animal says meow: a cat or a dog?", vec!["Dog", "Cat"], 1),
        ("Which of these is a programming language: Python, Banana, or Ocean?", vec!["Banana", "Python", "Ocean"], 1),
    ];
    for (question, labels, right) in cases {
        let prefix = m.chat(Some(SYSTEM), question);
        let cands: Vec<Vec<u32>> = labels.iter().map(|l| m.piece(l)).collect();
        let scores = score_labels(&mut m.lm, &prefix, &cands).unwrap();
        let choice = choose_label(&scores, false);
        eprintln!("{question:?}: {labels:?} probs {:.3?}", choice.probs);
        assert_eq!(labels[choice.best], labels[right], "{question}");
        assert!(choice.probs[right] > 0.6, "{question}: {:?}", choice.probs);
        assert!(scores.iter().all(|s| s.logprob_sum < 0.0 && s.tokens > 0));
    }
    // A router's yes/no question. The 135M model answers "No" to nearly everything, so the
    // scores are calibrated against the same question about "N/A".
    let router = |msg: &str| format!("Is the following message about Python programming?\nMessage: \"{msg}\"\nAnswer yes or no.");
    let yes_no = [m.piece("Yes"), m.piece("No")];
    let prompt = m.chat(None, &router("N/A"));
    let baseline = score_labels(&mut m.lm, &prompt, &yes_no).unwrap();
    let messages = [
        ("How do I write a list comprehension in Python?", 0),
        ("How do I install numpy?", 0),
        ("What is the capital of France?", 1),
        ("Who won the football match yesterday?", 1),
    ];
    for (msg, right) in messages {
        let prompt = m.chat(None, &router(msg));
        let scores = score_labels(&mut m.lm, &prompt, &yes_no).unwrap();
        let raw = choose_label(&scores, false);
        let cal = choose_label_calibrated(&scores, &baseline);
        eprintln!("{msg:?}: P(yes) raw {:.3}, calibrated {:.3}", raw.probs[0], cal.probs[0]);
        assert_eq!(cal.best, right, "{msg}");
    }
}

/// Scores from the shared prefix equal log-softmax over one full forward pass of prefix+label.
#[test]
fn label_scores_match_a_full_recomputation() {
    let Some(mut m) = load() else { return };
    let prefix = m.chat(Some(SYSTEM), "Name a programming language.");
    // Multi-token labels exercise the rows after the first.
    let labels = ["Python", "Rust programming language", "Bengali poetry", "x"];
    let cands: Vec<Vec<u32>> = labels.iter().map(|l| m.piece(l)).collect();
    assert!(cands[1].len() >= 2);
    let scores = score_labels(&mut m.lm, &prefix, &cands).unwrap();
    let vocab = m.lm.vocab_size();
    for (cand, score) in cands.iter().zip(&scores) {
        m.lm.truncate(0);
        let all: Vec<u32> = prefix.iter().chain(cand).copied().collect();
        let rows = m.lm.eval(&all, true).unwrap();
        let full: f64 =
            cand.iter().enumerate().map(|(i, &t)| log_softmax(&rows[(prefix.len() - 1 + i) * vocab..][..vocab])[t as usize]).sum();
        eprintln!("{cand:?}: shared prefix {:.5}, full pass {full:.5}", score.logprob_sum);
        assert!((score.logprob_sum - full).abs() < 1e-3, "{cand:?}: {} vs {full}", score.logprob_sum);
        assert_eq!(score.tokens, cand.len());
    }
    assert!(scores[0].logprob_sum > scores[2].logprob_sum, "Python over Bengali poetry");
}

fn sampled(seed: u64) -> Sampling {
    Sampling { temperature: 1.0, top_k: 40, top_p: 0.95, min_p: 0.05, seed, ..Sampling::default() }
}

#[test]
fn seeded_sampling_repeats_and_seeds_differ() {
    let Some(mut m) = load() else { return };
    let prompt = m.chat(None, "Write a short poem about the sea.");
    let stop_ids = m.stop_ids();
    let mut run = |sampling: Sampling| {
        let opts = GenerateOptions { max_new_tokens: 24, stop_ids: stop_ids.clone(), sampling, ..Default::default() };
        generate_text(&mut m.lm, &m.vocab, &prompt, &opts, |_, _| true).unwrap()
    };
    let a = run(sampled(1));
    let b = run(sampled(1));
    let c = run(sampled(2));
    let d = run(sampled(3));
    let greedy = run(Sampling::greedy());
    eprintln!("seed 1: {:?}\nseed 2: {:?}\nseed 3: {:?}\ngreedy: {:?}", a.text, c.text, d.text, greedy.text);
    assert_eq!(a.ids, b.ids, "the same seed repeats");
    assert!(a.ids != c.ids && c.ids != d.ids && a.ids != d.ids, "seeds differ");
    assert_eq!(greedy.ids, run(Sampling { seed: 9, ..Sampling::greedy() }).ids, "greedy ignores the seed");
    // A strong repetition penalty changes greedy output of a repetitive prompt.
    let prompt = m.chat(None, "Repeat the word 'cat' ten times.");
    let opts = GenerateOptions { max_new_tokens: 16, stop_ids: m.stop_ids(), ..Default::default() };
    let plain = generate_text(&mut m.lm, &m.vocab, &prompt, &opts, |_, _| true).unwrap();
    let opts = GenerateOptions { sampling: Sampling { repeat_penalty: 1.8, ..Sampling::greedy() }, ..opts };
    let penalised = generate_text(&mut m.lm, &m.vocab, &prompt, &opts, |_, _| true).unwrap();
    eprintln!("plain {:?}\npenalised {:?}", plain.text, penalised.text);
    assert_ne!(plain.ids, penalised.ids);
}

#[test]
fn stop_strings_cut_the_text() {
    let Some(mut m) = load() else { return };
    let prompt = m.chat(None, "List three fruits, one per line.");
    let opts = GenerateOptions { max_new_tokens: 40, stop_ids: m.stop_ids(), ..Default::default() };
    let full = generate_text(&mut m.lm, &m.vocab, &prompt, &opts, |_, _| true).unwrap();
    eprintln!("full: {:?} ({:?})", full.text, full.finish);
    assert_eq!(full.text, m.tok.decode(&full.ids, true).unwrap(), "streamed text is the tokenizer's decoding");
    // Stop at the second line: the text ends right before it, and so does what was streamed.
    let line = full.text.lines().nth(1).expect("at least two lines").to_string();
    let stop = format!("\n{}", &line[..line.len().min(4)]);
    let at = full.text.find(&stop).unwrap();
    let opts = GenerateOptions { stop_strings: vec!["never appears".into(), stop.clone()], ..opts };
    let mut streamed = String::new();
    let cut = generate_text(&mut m.lm, &m.vocab, &prompt, &opts, |_, piece| {
        streamed.push_str(piece);
        true
    })
    .unwrap();
    eprintln!("stopped at {stop:?}: {:?}", cut.text);
    assert_eq!(cut.text, full.text[..at]);
    assert_eq!(streamed, cut.text);
    assert_eq!(cut.finish, Finish::StopString(1));
    assert!(cut.ids.len() < full.ids.len());
    // Cancelling from the callback after 3 tokens.
    let mut n = 0;
    let cancelled = generate_text(&mut m.lm, &m.vocab, &prompt, &opts, |_, _| {
        n += 1;
        n < 3
    })
    .unwrap();
    assert_eq!((cancelled.ids.len(), cancelled.finish), (3, Finish::Cancelled));
}

const SCHEMAS: &[(&str, &str)] = &[
    (
        "Is Python a programming language? Reply in JSON with your answer, confidence, reason and topics.",
        r#"{"type": "object", "properties": {
            "answer": {"enum": ["yes", "no"]},
            "confidence": {"type": "integer", "minimum": 0, "maximum": 100},
            "reason": {"type": "string", "maxLength": 80},
            "topics": {"type": "array", "items": {"type": "string", "maxLength": 20}, "minItems": 1, "maxItems": 3}},
          "required": ["answer", "confidence", "reason", "topics"]}"#,
    ),
    (
        "Write one multiple-choice question about Python lists as JSON.",
        r#"{"type": "object", "properties": {
            "question": {"type": "string", "minLength": 5, "maxLength": 120},
            "options": {"type": "array", "items": {"type": "string", "maxLength": 40}, "minItems": 2, "maxItems": 4},
            "correct": {"type": "integer", "minimum": 0, "maximum": 3},
            "difficulty": {"enum": ["easy", "medium", "hard"]}},
          "required": ["question", "options", "correct"]}"#,
    ),
    (
        "List two fruits with their weight in grams as JSON.",
        r#"{"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string", "maxLength": 30},
            "is_fruit": {"type": "boolean"},
            "grams": {"type": "number"},
            "note": {"type": "null"}},
          "required": ["name", "is_fruit", "grams"]}, "minItems": 1, "maxItems": 3}"#,
    ),
    ("How many legs does a spider have? Answer with a number.", r#"{"type": "integer", "minimum": 0, "maximum": 1000}"#),
    ("Which is a fruit? Answer in JSON.", r#"{"enum": ["apple", "car", "river"]}"#),
];

#[test]
fn json_schema_outputs_always_parse() {
    let Some(mut m) = load() else { return };
    let dec = JsonDecoder::new(&m.vocab).unwrap();
    let mut runs = 0;
    for (question, text) in SCHEMAS {
        let schema = Schema::parse(text).unwrap();
        let prompt = m.chat(Some("You reply with JSON only."), question);
        // Greedy with room, then sampled, then budgets barely above the shortest output.
        let tight = schema.min_output_len() + 3;
        for (max, sampling) in [(120, Sampling::greedy()), (120, sampled(7)), (tight, Sampling::greedy()), (tight, sampled(11))] {
            let opts = GenerateOptions { max_new_tokens: max, stop_ids: m.stop_ids(), sampling, ..Default::default() };
            let out =
                dec.generate(&mut m.lm, &schema, &prompt, &opts, |_, _| true).unwrap_or_else(|e| panic!("{question} ({max} tokens): {e}"));
            eprintln!("{max:>3} tokens, {:>3} used, {:?}: {}", out.ids.len(), out.finish, out.text);
            // Independent checks: parse the decoded ids with serde_json and compare shapes.
            let decoded = m.tok.decode(&out.ids, true).unwrap();
            let v: Value = serde_json::from_str(&decoded).unwrap_or_else(|e| panic!("{e}: {decoded}"));
            assert_eq!(v, out.value);
            schema.validate(&v).unwrap();
            assert!(out.ids.len() <= max);
            runs += 1;
        }
    }
    // The first schema, checked by hand rather than by `validate`.
    let schema = Schema::parse(SCHEMAS[0].1).unwrap();
    let prompt = m.chat(Some("You reply with JSON only."), SCHEMAS[0].0);
    let opts = GenerateOptions { max_new_tokens: 100, stop_ids: m.stop_ids(), ..Default::default() };
    let v = dec.generate(&mut m.lm, &schema, &prompt, &opts, |_, _| true).unwrap().value;
    let o = v.as_object().unwrap();
    let keys: Vec<&str> = o.keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 4, "{v}");
    assert!(["yes", "no"].contains(&o["answer"].as_str().unwrap()));
    assert!((0..=100).contains(&o["confidence"].as_i64().unwrap()));
    assert!(o["reason"].as_str().unwrap().chars().count() <= 80);
    assert!((1..=3).contains(&o["topics"].as_array().unwrap().len()));
    eprintln!("{runs} constrained generations parsed");
}

/// Masking the 49k vocabulary at each state of a real generation.
#[test]
fn json_mask_is_fast() {
    let Some(mut m) = load() else { return };
    let dec = JsonDecoder::new(&m.vocab).unwrap();
    let schema = Schema::parse(SCHEMAS[0].1).unwrap();
    let prompt = m.chat(Some("You reply with JSON only."), SCHEMAS[0].0);
    let opts = GenerateOptions { max_new_tokens: 120, stop_ids: m.stop_ids(), ..Default::default() };
    let out = dec.generate(&mut m.lm, &schema, &prompt, &opts, |_, _| true).unwrap();
    let mut c = dec.constraint(&schema, &m.stop_ids());
    let mut logits = vec![0.0f32; m.lm.vocab_size()];
    let mut times: Vec<Duration> = Vec::new();
    for (i, &id) in out.ids.iter().enumerate() {
        logits.fill(0.0);
        let t = Instant::now();
        assert!(c.mask(&mut logits, 120 - i));
        times.push(t.elapsed());
        assert!(logits[id as usize].is_finite(), "the generated token is allowed");
        c.accept(id);
    }
    assert!(c.is_complete());
    assert!(JsonState::new(&schema).step_all(&schema, out.text.as_bytes()));
    times.sort();
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    let (median, max) = (times[times.len() / 2], times[times.len() - 1]);
    eprintln!("mask over {} tokens: mean {mean:.2?}, median {median:.2?}, max {max:.2?} per step ({} steps)", logits.len(), times.len());
    assert!(median < Duration::from_millis(10), "median {median:?}");
}

/// Polls `future` until it is ready, waking itself: a host whose pauses really wait (the
/// browser's event loop), which [`inference::llm::now`] refuses.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// A future that is pending once, then ready: one turn of a host's event loop.
struct OneTurn(bool);

impl std::future::Future for OneTurn {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        if self.0 {
            std::task::Poll::Ready(())
        } else {
            self.0 = true;
            std::task::Poll::Pending
        }
    }
}

#[test]
fn a_paused_session_reads_in_pieces_waits_between_them_and_gives_the_same_results() {
    use inference::llm::{LoadOptions, Pause, Session};
    use std::cell::Cell;
    use std::rc::Rc;
    let Some(bytes) = common::model_bytes(MODEL) else { return };
    let bytes = Arc::new(bytes);
    let mut plain = Session::load(bytes.clone(), &LoadOptions::quantized(2048)).unwrap();
    let mut paused = Session::load(bytes, &LoadOptions::quantized(2048)).unwrap();
    let pauses = Rc::new(Cell::new(0));
    let counted = pauses.clone();
    paused.pause_with(Pause {
        chunk: 8,
        between: Box::new(move || {
            counted.set(counted.get() + 1);
            Some(Box::pin(OneTurn(false)))
        }),
    });
    let messages = [ChatMessage { role: "user", content: "Name three colours of the rainbow." }];
    let (ids, _) = plain.chat_ids(&[], &messages).unwrap();
    assert!(ids.len() > 16, "a prompt of {} tokens is read in several pieces", ids.len());
    let opts = GenerateOptions { max_new_tokens: 12, ..Default::default() };
    let want = plain.complete_now(&ids, opts.clone()).unwrap();
    let got = block_on(paused.complete(&ids, opts)).unwrap();
    assert_eq!(got.ids, want.ids, "{:?} vs {:?}", got.text, want.text);
    // One pause after each piece of the prompt and after each token evaluated (the last token
    // ends the generation unevaluated).
    let pieces = ids.len().div_ceil(8);
    assert_eq!(pauses.get(), pieces + got.ids.len() - 1, "{} prompt tokens, {} generated", ids.len(), got.ids.len());
    // Scoring reads every row: pieces of it give the rows one read gives.
    let labels: Vec<Vec<u32>> = ["Red, orange and yellow.", "Blue"].iter().map(|l| plain.encode(l).unwrap()).collect();
    let want = plain.score_now(&ids, &labels).unwrap();
    let got = block_on(paused.score(&ids, &labels)).unwrap();
    for (w, g) in want.iter().zip(&got) {
        assert!((w.logprob_sum - g.logprob_sum).abs() < 1e-3, "{} vs {}", w.logprob_sum, g.logprob_sum);
    }
    // A paused session is awaited: the synchronous call says so instead of running on.
    let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| paused.complete_now(&ids, GenerateOptions { max_new_tokens: 2, ..Default::default() })));
    assert!(refused.is_err());
}
