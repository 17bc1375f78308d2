//! The one interface generation, label scoring and constrained decoding drive: a causal language
//! model together with its key/value cache (llama.cpp's `llama_context`).

use crate::model::llama::LlamaError;
use std::any::Any;

/// Why a model step failed.
pub type LmError = LlamaError;

/// A causal language model and its cache of past positions.
///
/// Implemented by the quantized CPU runtime and by the Burn model (`BurnLm`). Positions are
/// appended by [`LanguageModel::eval`] and dropped by [`LanguageModel::truncate`], so a shared
/// prompt prefix is computed once and reused (label scoring, constrained decoding).
pub trait LanguageModel {
    /// Number of logits per position.
    fn vocab_size(&self) -> usize;
    /// Most positions the cache holds.
    fn context_length(&self) -> usize;
    /// Positions already in the cache.
    fn cached(&self) -> usize;
    /// Forgets positions `len..`; `truncate(0)` starts a new sequence.
    fn truncate(&mut self, len: usize);
    /// Runs `tokens` after the cached positions and returns logits, `vocab_size()` per row: the
    /// last token's only, or one row per token when `all`.
    fn eval(&mut self, tokens: &[u32], all: bool) -> Result<Vec<f32>, LmError>;
    /// The Burn model behind this one, if any: hosts that may not block (WebGPU in the browser)
    /// drive it through [`super::BurnLm::eval_async`] instead of [`LanguageModel::eval`].
    fn as_burn(&mut self) -> Option<&mut super::BurnLm> {
        None
    }
    /// The weights' precision and size, in words (for `--bench` reports).
    fn describe(&self) -> String {
        String::new()
    }
    /// A copy of the cache's first `len` positions, which [`LanguageModel::restore`] puts back
    /// (a session's named prompt prefixes); `None` when this runtime cannot copy its cache.
    fn snapshot(&self, _len: usize) -> Option<KvSnapshot> {
        None
    }
    /// Replaces the cache with `snapshot`'s positions; false when it is not this runtime's.
    fn restore(&mut self, _snapshot: &KvSnapshot) -> bool {
        false
    }
}

/// Cached keys and values of a prompt prefix, in the form of the runtime that made them.
pub struct KvSnapshot {
    /// Positions held.
    pub len: usize,
    /// Bytes the copy takes (for reports).
    pub bytes: usize,
    pub(crate) data: Box<dyn Any>,
}

/// What the generation loop and label scoring run on: a bare [`LanguageModel`] (the caller
/// manages its cache) or a [`super::Session`] (which reuses cached prefixes). Evaluation is
/// asynchronous so that WebGPU in the browser can read logits back without blocking; every other
/// runtime is ready at once, so native and CPU callers drive it with [`now`].
#[allow(async_fn_in_trait)]
pub trait Eval {
    fn vocab_size(&self) -> usize;
    fn context_length(&self) -> usize;
    /// Forgets positions `len..`.
    fn truncate(&mut self, len: usize);
    /// Makes the cache hold a prefix of `ids` shorter than `ids` (as long a one as it can
    /// reuse) and returns its length; the caller evaluates the rest.
    fn reuse(&mut self, ids: &[u32]) -> usize;
    /// [`LanguageModel::eval`], reading back asynchronously where the runtime needs it.
    async fn eval(&mut self, tokens: &[u32], all: bool) -> Result<Vec<f32>, LmError>;
}

impl<T: LanguageModel + ?Sized> Eval for T {
    fn vocab_size(&self) -> usize {
        LanguageModel::vocab_size(self)
    }
    fn context_length(&self) -> usize {
        LanguageModel::context_length(self)
    }
    fn truncate(&mut self, len: usize) {
        LanguageModel::truncate(self, len)
    }
    fn reuse(&mut self, _ids: &[u32]) -> usize {
        LanguageModel::truncate(self, 0);
        0
    }
    async fn eval(&mut self, tokens: &[u32], all: bool) -> Result<Vec<f32>, LmError> {
        #[cfg(target_arch = "wasm32")]
        if let Some(burn) = self.as_burn() {
            return burn.eval_async(tokens, all).await;
        }
        LanguageModel::eval(self, tokens, all)
    }
}

/// Runs a future that is ready at once: model work on any runtime but WebGPU in the browser
/// (natively every readback is synchronous). Panics, naming the cause, if it would have to wait.
pub fn now<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => {
            panic!("this model reads its results back asynchronously (WebGPU in the browser): await it instead of calling it synchronously")
        }
    }
}
