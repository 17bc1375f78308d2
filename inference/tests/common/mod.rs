//! Helpers shared by integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// Where fetched models live: `$PATHSHALA_MODELS` or `<repo>/models/cache`.
pub fn models_dir() -> PathBuf {
    std::env::var_os("PATHSHALA_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models/cache"))
}

/// The encoder folder: `<models>/all-MiniLM-L6-v2`.
pub fn encoder_dir() -> PathBuf {
    models_dir().join("all-MiniLM-L6-v2")
}

/// The bytes of a fetched model file. A missing file fails the test (run `models/fetch.sh
/// llm`), unless a developer opts in to skipping with `PATHSHALA_SKIP_MISSING_MODELS=1`: then
/// `None`, with a note.
pub fn model_bytes(file: &str) -> Option<Vec<u8>> {
    let path = models_dir().join(file);
    match std::fs::read(&path) {
        Ok(b) => Some(b),
        Err(e) if std::env::var_os("PATHSHALA_SKIP_MISSING_MODELS").is_some_and(|v| v == "1") => {
            eprintln!("note: {} is missing ({e}); skipping as PATHSHALA_SKIP_MISSING_MODELS=1 asks", path.display());
            None
        }
        Err(e) => panic!("{}: {e}; fetch it with `models/fetch.sh llm` (or set PATHSHALA_SKIP_MISSING_MODELS=1 to skip)", path.display()),
    }
}

/// A missing input file or folder (`what`): fails the test, naming the script that fetches it,
/// unless `PATHSHALA_SKIP_MISSING_MODELS=1` asks to skip (then a note; the caller returns).
pub fn missing(what: &std::path::Path, fetch: &str) {
    if std::env::var_os("PATHSHALA_SKIP_MISSING_MODELS").is_some_and(|v| v == "1") {
        eprintln!("note: {} is missing; skipping as PATHSHALA_SKIP_MISSING_MODELS=1 asks", what.display());
    } else {
        panic!("{} is missing; fetch it with `{fetch}` (or set PATHSHALA_SKIP_MISSING_MODELS=1 to skip)", what.display());
    }
}

/// A bundle of `docs` without vectors (BM25 only), read back from its bytes as the app reads it.
pub fn lexical_bundle(title: &str, docs: &[inference::corpus::Document], course: inference::bundle::CourseInfo) -> inference::bundle::Bundle {
    use inference::index::build::{BuildOptions, EmbedMode, build};
    let opts = BuildOptions {
        title: title.into(),
        chunk_config: Default::default(),
        bm25: Default::default(),
        embed_mode: EmbedMode::Plain,
        batch_size: 16,
        builder_version: "test".into(),
        corpus_checksum: "x".into(),
        course,
    };
    let b = build(docs, None, &opts, |_, _| {}).unwrap();
    inference::bundle::Bundle::from_bytes(&b.to_bytes().unwrap()).unwrap()
}

/// A JSON array of token ids.
pub fn ids(v: &serde_json::Value) -> Vec<u32> {
    v.as_array().expect("an array of ids").iter().map(|x| x.as_u64().expect("a token id") as u32).collect()
}

/// Load the real all-MiniLM-L6-v2. Fails with instructions when it has not been fetched.
pub fn encoder() -> inference::embed::SentenceEncoder {
    let dir = encoder_dir();
    let read = |n: &str| {
        std::fs::read(dir.join(n)).unwrap_or_else(|e| panic!("{}: {e}; run `models/fetch.sh encoder` first", dir.join(n).display()))
    };
    inference::embed::SentenceEncoder::load(
        "all-MiniLM-L6-v2",
        &read("config.json"),
        &read("model.safetensors"),
        &read("tokenizer.json"),
        inference::embed::DEFAULT_MAX_TOKENS,
    )
    .expect("encoder loads")
}

pub fn fixture(name: &str) -> serde_json::Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    serde_json::from_slice(&std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).expect("fixture is JSON")
}

/// A small deterministic PRNG (xorshift64*), so tests need no extra crates.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// Roughly normal: sum of uniforms.
    pub fn normal(&mut self) -> f32 {
        (0..4).map(|_| (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32).sum::<f32>() - 2.0
    }
}

/// Load the real multilingual-e5-small (4-bit). Fails with instructions when it has not been fetched.
pub fn e5_encoder() -> inference::embed::SentenceEncoder {
    let path = models_dir().join("e5-small/e5-small-q4.bin");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}; run `models/fetch.sh e5` first", path.display()));
    inference::embed::SentenceEncoder::load_e5s1(&bytes).expect("e5 loads")
}

/// The quiz's item for `plan`, or where the plan gives none, for a like plan on a fresh passage
/// (as the app's worker does); `None` when no passage is left.
pub fn make_or_replan(
    quiz: &mut inference::agent::quiz::Quiz,
    env: &mut inference::agent::quiz::QuizEnv<'_>,
    mut plan: inference::agent::quiz::Plan,
    cfg: &inference::agent::quiz::QuizConfig,
) -> Option<inference::agent::quiz::Made> {
    loop {
        match inference::llm::now(quiz.make(env, &plan, cfg)).unwrap() {
            inference::agent::quiz::Made::Skipped { reason, .. } => {
                let next = quiz.replan(&plan, cfg)?;
                quiz.skip(plan, reason);
                plan = next;
            }
            made => return Some(made),
        }
    }
}

/// A small English course that states claims and defines no term ("Lists are mutable sequences
/// of any values.", "The method sort() changes a list in place."): where "which of these
/// statements is true?" items come from (`quiz_statements.rs`, `author_pipeline.rs`).
pub fn claims_course() -> inference::bundle::Bundle {
    use inference::corpus::{Block, BlockKind, Document};
    let para = |t: &str, line| Block::new(BlockKind::Paragraph, t, line);
    let blocks = vec![
        Block::new(BlockKind::Heading(1), "Chapter 2: Lists and Tuples", 1),
        para("Two ways to keep values.", 2),
        Block::new(BlockKind::Heading(2), "2.1 Lists", 3),
        para("A list keeps its items in the order they were added. Lists are mutable sequences of any values. The method append() adds one item at the end of a list. The method pop() removes the last item of a list. Python counts list positions from 0.", 4),
        Block::new(BlockKind::Heading(2), "2.2 Tuples", 5),
        para("Tuples are immutable sequences of values. A tuple with one item needs a trailing comma. The method count() returns how often a value occurs in a tuple. The method index() returns the position of a value in a tuple.", 6),
        Block::new(BlockKind::Heading(2), "2.3 Sorting", 7),
        para("The method sort() changes a list in place. The function sorted() always makes a new list. A reverse sort puts the largest item first. The method reverse() turns a list back to front.", 8),
    ];
    let docs = vec![Document { file: "python/02-lists.md".into(), blocks }];
    lexical_bundle("English test course", &docs, inference::bundle::CourseInfo { subjects: vec!["introductory Python programming".into()], lang: Some("en".into()) })
}
