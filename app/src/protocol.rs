//! Messages between the page and the inference worker: JSON text over `postMessage`.
//!
//! The page sends [`Request`]s; the worker answers with [`Reply`]s. Ids tie replies to the
//! question that caused them, so a late reply to an old question is ignored.

use serde::{Deserialize, Serialize};

/// One file the app needs, as listed in `assets.json` next to `index.html`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Asset {
    /// Role of the file: one of [`names`].
    pub name: String,
    /// Relative to `index.html`.
    pub url: String,
    pub bytes: u64,
    /// Hex sha256 of the file: checked after every download and every read from IndexedDB.
    pub sha256: String,
    pub version: String,
    /// Downloaded the first time a feature needs it (the tutor's coder model when a learner
    /// first plans a task of their own), not when the course loads.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub on_demand: bool,
}

/// `assets.json`: every file of one site version.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AssetList {
    /// Changes whenever any file changes.
    pub version: String,
    pub assets: Vec<Asset>,
}

impl AssetList {
    pub fn get(&self, name: &str) -> Option<&Asset> {
        self.assets.iter().find(|a| a.name == name)
    }

    /// Bytes of the files the course loads (on-demand files are not counted).
    pub fn total_bytes(&self) -> u64 {
        self.assets.iter().filter(|a| !a.on_demand).map(|a| a.bytes).sum()
    }
}

/// Which runtime runs the chat model in the worker. The page picks [`Runtime::WebGpu`] when the
/// browser has a hardware WebGPU adapter, else [`Runtime::Quantized`]; `?llm=` overrides.
pub use inference::llm::Runtime;

/// The router's decision and its label.
pub use inference::agent::route::{Label, Route};

/// Why Ask gave no answer.
pub use inference::agent::ask::AbstainReason;

/// The quiz's items, levels, subtopic menu and feedback.
pub use inference::agent::quiz::{Bloom, Branch, Feedback, Item, LevelScore, Subtopic, Topic};

/// The author's requests and items.
pub use inference::agent::author::{AuthorRequest, Authored, Task};

/// What a teacher's request gave before any item was written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AuthorOutcome {
    /// Harmful or off-topic: nothing is written.
    Refused { message: String },
    /// No topic named: a clarifying question and sections to choose from.
    Clarify { question: String, options: Vec<String> },
    /// The book does not cover it: its nearest sections.
    NotCovered { message: String, nearest: Vec<SectionRef> },
    /// Items are being written from this chapter and concept.
    Ready { chapter: String, concept: String, total: usize },
}

/// The Ask agent's settings in the worker: `index-builder ask`'s defaults (the same prompt and
/// check for the same bundle and question), read in steps the worker can yield between, with
/// the page's `?answer_tokens=` / `?passages=` / `?check=0` overrides (for measuring slow runtimes).
pub fn ask_settings(runtime: Runtime, answer_tokens: Option<usize>, passages: Option<usize>, check: Option<bool>) -> inference::agent::ask::AskSettings {
    let mut s = inference::agent::ask::AskSettings { prompt_chunk: if runtime == Runtime::WebGpu { 256 } else { 64 }, ..Default::default() };
    s.ask.max_new_tokens = answer_tokens.unwrap_or(s.ask.max_new_tokens);
    s.ask.passages = passages.unwrap_or(s.ask.passages).max(1);
    s.verify.enabled = check.unwrap_or(s.verify.enabled);
    s
}

/// The quiz's settings in the worker: `index-builder quiz`'s defaults, or under `?quiz=quick`
/// a single attempt on a single passage per item.
pub fn quiz_settings(quick: bool) -> inference::agent::quiz::QuizConfig {
    let d = inference::agent::quiz::QuizConfig::default();
    if quick { inference::agent::quiz::QuizConfig { repairs: 0, plans_per_item: 1, ..d } } else { d }
}

/// Asset roles.
pub mod names {
    pub const BUNDLE: &str = "bundle";
    pub const ENCODER_CONFIG: &str = "encoder-config";
    pub const ENCODER_WEIGHTS: &str = "encoder-weights";
    pub const ENCODER_TOKENIZER: &str = "encoder-tokenizer";
    pub const LLM: &str = "llm";
    /// The Code tutor's model (on demand); without it the tutor uses [`LLM`].
    pub const TUTOR_LLM: &str = "tutor-llm";
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Request {
    /// Load the course and models: from IndexedDB when cached, else downloaded. `None` when
    /// `assets.json` could not be fetched (offline): the last complete set in IndexedDB is used.
    Load {
        assets: Option<AssetList>,
        /// The LLM runtime: [`Runtime::default`] unless `?llm=` says otherwise (for measuring).
        #[serde(default)]
        runtime: Runtime,
        /// Most tokens per answer and most passages per prompt, when not the Ask agent's
        /// defaults (`?answer_tokens=`, `?passages=`: for measuring slow runtimes).
        #[serde(default)]
        answer_tokens: Option<usize>,
        #[serde(default)]
        passages: Option<usize>,
        /// `?check=0`: answers shown unchecked (for measuring the model alone on a slow runtime).
        #[serde(default)]
        check: Option<bool>,
        /// `?route=0`: every message goes to Ask without the router's model call (for measuring
        /// Ask alone on a slow runtime; the harmful lexicon still refuses).
        #[serde(default)]
        route: Option<bool>,
        /// `?quiz=quick`: one writing attempt per item and one passage per item (for a browser
        /// test on a tiny model); otherwise `index-builder quiz`'s defaults.
        #[serde(default)]
        quiz_quick: bool,
    },
    /// Hybrid retrieval (`lexical: false`) or BM25 over the book (`lexical: true`).
    Search { id: u32, question: String, lexical: bool },
    /// The message is routed ([`Reply::Routed`]); a question for the book then gets retrieval
    /// and a grounded answer streamed as [`Reply::Token`]s, or an abstention. `followup`: the
    /// learner's answer to the clarifying question asked about `question`; `route`: the label
    /// the learner chose instead of the router's ("not what I meant").
    Ask {
        id: u32,
        question: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        followup: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        route: Option<Label>,
    },
    /// Stop the answer being written (between tokens).
    Stop,
    /// The subtopic menu for a quiz topic ([`Reply::QuizTopic`]).
    QuizTopic { id: u32, topic: String },
    /// Starts a quiz (`id` names it from now on) on one subtopic at level `start` (the learner's
    /// last level there; none: the quiz's own opening level): the first item comes as
    /// [`Reply::QuizItem`], and the next one is prepared while the learner reads.
    /// `known`: questions the learner answered right in the last quiz on this subtopic.
    QuizStart {
        id: u32,
        topic: String,
        subtopic: Subtopic,
        start: Option<Bloom>,
        #[serde(default)]
        known: Vec<String>,
    },
    /// The learner's answer to the quiz's current item: [`Reply::QuizFeedback`], then the next
    /// item unless `last`.
    QuizAnswer { id: u32, choice: usize, last: bool },
    /// The quiz is over or left: nothing more is prepared for it.
    QuizEnd { id: u32 },
    /// A teacher's request: [`Reply::AuthorPrepared`], then one [`Reply::AuthorItem`] or
    /// [`Reply::AuthorMissing`] per item asked for, then [`Reply::AuthorDone`].
    AuthorStart { id: u32, request: AuthorRequest },
    /// Stop writing request `id`'s items (after the item being written).
    AuthorStop { id: u32 },
    /// The teacher edited an item: its gates and verification again ([`Reply::AuthorRechecked`]).
    AuthorRecheck { id: u32, item: Box<Authored> },
    /// One section of the book, for reading.
    Section { id: u32 },
    /// What IndexedDB holds.
    Storage,
    /// Delete everything cached; the next visit downloads again.
    ClearStorage,
    /// Time hybrid retrieval (embedding + search) of each question, after one warm-up query.
    Bench { questions: Vec<String> },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Reply {
    /// The worker's wasm is running and listening (requests sent earlier are queued by the page).
    Started,
    Progress(Progress),
    Ready(ReadyInfo),
    Results(Results),
    /// Where the message went, and what is shown instead of an answer when no agent answers
    /// it here (a greeting, a refusal, an off-topic note, a clarifying question, the quiz or
    /// the Code view); `ms`: the routing's time.
    Routed { id: u32, route: Route, ms: f64 },
    /// The evidence an answer will be written from (numbered as the model sees it) and the
    /// book's sentence that best answers the question, before the model reads anything.
    AskSources { id: u32, sources: Vec<SourceRef>, quote: Option<QuoteRef>, prompt_tokens: usize },
    /// The model is reading the prompt: `done` of `total` tokens.
    Reading { id: u32, done: usize, total: usize },
    Token { id: u32, text: String },
    /// The answer's sentences are being checked against the passages: `done` of `total`.
    Checking { id: u32, done: usize, total: usize },
    /// The checked answer: only sentences the book supports, each citing its passage; `dropped`
    /// sentences were left out.
    Done { id: u32, text: String, dropped: usize, stopped: bool, stats: AnswerStats },
    /// No answer: the course does not cover the question (no model call), the model's answer
    /// was not supported by the book, or the question could not be searched.
    Abstained { id: u32, reason: AbstainReason, nearest: Vec<SectionRef>, stats: Option<AnswerStats> },
    /// The quiz's subtopic menu, or the course does not cover the topic.
    QuizTopic { id: u32, topic: String, result: Topic, ms: f64 },
    /// What the worker is writing now for quiz `id` (`branch`: for which answer).
    QuizPreparing { id: u32, branch: Branch, bloom: Bloom },
    /// An item to show (validated; `number` counts from 1); `wait_ms`: from the learner's answer
    /// (or the start) to now; `attempts`: writing attempts it took.
    QuizItem { id: u32, number: usize, item: Item, attempts: usize, wait_ms: f64 },
    QuizFeedback { id: u32, feedback: Feedback },
    /// An item failed validation after its repairs and was skipped.
    QuizSkipped { id: u32, reason: String },
    /// No more items can be written (every passage used, or none passed validation).
    QuizOver { id: u32, reason: String },
    AuthorPrepared { id: u32, outcome: AuthorOutcome, ms: f64 },
    /// Item `number` (from 1) of `total` is being written.
    AuthorWriting { id: u32, number: usize, total: usize, task: Task },
    /// A written, gated and verified item; `ms`: its writing and verification.
    AuthorItem { id: u32, item: Box<Authored>, ms: f64 },
    /// An item asked for could not be written (never padded).
    AuthorMissing { id: u32, task: Task, reason: String },
    /// Every item of request `id` is written (or the teacher stopped it).
    AuthorDone { id: u32, ms: f64 },
    AuthorRechecked { id: u32, item: Box<Authored> },
    Section(SectionView),
    Storage(StorageInfo),
    /// Per-question milliseconds of a [`Request::Bench`], as JSON.
    Bench { json: String },
    /// `id`: the question that failed, or `None` for loading; `retry`: a Retry button helps.
    Error { id: Option<u32>, message: String, retry: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Reading and verifying a cached copy from IndexedDB.
    Checking,
    Downloading,
    /// Parsing the bundle, building the models.
    Preparing,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub phase: Phase,
    /// The file (its URL) or the step being worked on.
    pub name: String,
    pub done: u64,
    pub total: u64,
    /// Over all files.
    pub all_done: u64,
    pub all_total: u64,
    /// Bytes per second of the current download.
    pub rate: f64,
    /// Seconds left for all downloads at the current rate.
    pub eta_s: Option<f64>,
    /// Something the learner should know, e.g. a damaged cached copy being downloaded again.
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutlineItem {
    pub id: u32,
    pub heading: String,
    pub depth: u16,
    pub parent: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReadyInfo {
    pub title: String,
    pub sections: u32,
    pub chunks: u32,
    pub outline: Vec<OutlineItem>,
    /// True when nothing was downloaded.
    pub from_cache: bool,
    pub downloaded_bytes: u64,
    pub load_ms: f64,
    pub encoder: Option<String>,
    pub llm: String,
    /// Threads the CPU runtime's matmuls run on (1 in the single-threaded worker build).
    pub threads: u32,
    /// Milliseconds per loading step (reading or downloading each file, building each model).
    pub timings: Vec<(String, f64)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SectionRef {
    pub section: u32,
    pub heading_path: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    pub section: u32,
    pub chunk: u32,
    pub heading_path: Vec<String>,
    pub tier: String,
    pub file: String,
    pub line: u32,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub id: u32,
    pub question: String,
    pub lexical: bool,
    pub abstained: bool,
    pub coverage: f32,
    pub hits: Vec<Hit>,
    pub nearest: Vec<SectionRef>,
    pub ms: f64,
}

/// A numbered passage an answer may cite, with where it lies in its section's text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceRef {
    pub n: usize,
    pub section: u32,
    pub heading_path: Vec<String>,
    /// Byte range of the passage in the section's text.
    pub start: u32,
    pub end: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SectionView {
    pub id: u32,
    pub heading_path: Vec<String>,
    pub file: String,
    pub line: u32,
    pub text: String,
    pub parent: Option<SectionRef>,
    pub children: Vec<SectionRef>,
}

/// The book's sentence shown with an answer, in its passage `n` of section `section`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuoteRef {
    pub n: usize,
    pub section: u32,
    pub heading_path: Vec<String>,
    pub text: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AnswerStats {
    pub prompt_tokens: usize,
    /// From the question's arrival: retrieval, prompt, prefill, first token.
    pub first_token_ms: Option<f64>,
    pub tokens: usize,
    /// Decode speed after the first token.
    pub tokens_per_s: Option<f64>,
    pub total_ms: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredEntry {
    pub name: String,
    pub url: String,
    pub bytes: u64,
    pub sha256: String,
    pub version: String,
    pub stored_at_ms: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StorageInfo {
    pub entries: Vec<StoredEntry>,
    /// The site version whose every file is stored (`complete` record).
    pub complete_version: Option<String>,
    pub usage: Option<f64>,
    pub quota: Option<f64>,
}

/// Encodes a message for `postMessage`.
pub fn encode<T: Serialize>(msg: &T) -> String {
    serde_json::to_string(msg).expect("messages serialise")
}

/// Decodes a message; an error names what arrived.
pub fn decode<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| format!("unreadable message ({e}): {}", text.chars().take(120).collect::<String>()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_as_tagged_json() {
        let r = Request::Ask { id: 3, question: "Why?".into(), followup: None, route: None };
        let text = encode(&r);
        assert_eq!(text, r#"{"type":"Ask","id":3,"question":"Why?"}"#);
        assert_eq!(decode::<Request>(&text).unwrap(), r);
        let r = Request::Ask { id: 4, question: "explain".into(), followup: Some("Lists".into()), route: Some(Label::Quiz) };
        assert_eq!(encode(&r), r#"{"type":"Ask","id":4,"question":"explain","followup":"Lists","route":"quiz"}"#);
        assert_eq!(decode::<Request>(&encode(&r)).unwrap(), r);
        let t = Reply::Token { id: 3, text: " [1]".into() };
        assert_eq!(decode::<Reply>(&encode(&t)).unwrap(), t);
        assert!(decode::<Reply>("{\"type\":\"Nope\"}").unwrap_err().contains("Nope"));
    }

    #[test]
    fn the_worker_asks_with_the_clis_settings() {
        let cli = inference::agent::ask::AskSettings::default();
        let app = ask_settings(Runtime::Quantized, None, None, None);
        // Only how the prompt is read differs (in steps, so Stop is handled): not what it says.
        assert_eq!((&app.ask, &app.verify, app.closed_book), (&cli.ask, &cli.verify, cli.closed_book));
        assert_eq!(format!("{:?}", app.retrieval), format!("{:?}", cli.retrieval));
        assert_eq!(ask_settings(Runtime::Quantized, Some(2), Some(0), None).ask.passages, 1);
        assert!(!ask_settings(Runtime::WebGpu, None, None, Some(false)).verify.enabled);
        let (cli, app) = (inference::agent::quiz::QuizConfig::default(), quiz_settings(false));
        assert_eq!(format!("{cli:?}"), format!("{app:?}"), "the quiz runs with the CLI's settings");
        assert_eq!((quiz_settings(true).repairs, quiz_settings(true).plans_per_item), (0, 1));
    }

    #[test]
    fn asset_list_reads_assets_json() {
        let json = r#"{"version":"v1","assets":[{"name":"bundle","url":"course.bundle","bytes":10,"sha256":"ab","version":"ab"},
            {"name":"tutor-llm","url":"models/coder.gguf","bytes":500,"sha256":"cd","version":"cd","on_demand":true}]}"#;
        let list: AssetList = serde_json::from_str(json).unwrap();
        assert_eq!(list.get(names::BUNDLE).unwrap().url, "course.bundle");
        assert!(!list.get(names::BUNDLE).unwrap().on_demand);
        assert!(list.get(names::TUTOR_LLM).unwrap().on_demand);
        assert_eq!(list.total_bytes(), 10, "the course loads without the on-demand file");
        assert!(list.get(names::LLM).is_none());
        let back: AssetList = serde_json::from_str(&serde_json::to_string(&list).unwrap()).unwrap();
        assert_eq!(back, list);
        assert!(!serde_json::to_string(&list.assets[0]).unwrap().contains("on_demand"));
    }
}
