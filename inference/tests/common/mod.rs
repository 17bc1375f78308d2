//! Helpers shared by integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The encoder folder: `$PATHSHALA_MODELS/all-MiniLM-L6-v2` or `<repo>/models/cache/all-MiniLM-L6-v2`.
pub fn encoder_dir() -> PathBuf {
    let root = std::env::var_os("PATHSHALA_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models/cache"));
    root.join("all-MiniLM-L6-v2")
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
        &inference::device::default_device(),
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
