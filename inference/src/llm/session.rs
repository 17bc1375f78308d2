//! [`Session`]: one loaded chat model and everything every agent needs from it.
//!
//! A session owns the model and its cache, the tokenizer, the chat template, the vocabulary's
//! bytes (text streaming, constrained JSON) and **named prefix snapshots**: each agent keeps the
//! fixed start of its prompts (Ask's role and rules, the router's instruction, the tutor's
//! examples) as a copy of the cache, so it resumes from there instead of reading it again after
//! another agent used the model. Between snapshots, the longest common prefix with what the
//! cache holds is reused too. The generation loop ([`Generator`]), label scoring and JSON
//! decoding all run on a session through [`Eval`].
//!
//! [`Session::load`] is the one place that chooses a runtime.

use super::chat::{ChatError, ChatMessage, ChatTemplate};
use super::constrain::{JsonDecoder, JsonError, JsonOutput, Schema};
use super::generate::{GenerateOptions, Generation, Generator};
use super::lm::{Eval, KvSnapshot, LanguageModel, LmError, now};
use super::score::{LabelScore, score_labels_on};
use super::{BurnLm, CpuLm, GgufTokenizer, QuantDecoder, TokenBytes, TokenizerError};
use crate::gguf::{Gguf, GgufError};
use crate::model::llama::WeightFormat;
use burn::tensor::Device;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Why a session could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("the language model file is not valid GGUF: {0}; download it again")]
    Gguf(#[from] GgufError),
    #[error("architecture `{0}` is not supported on Burn yet; the quantized runtime runs `llama` and `qwen2` models")]
    Architecture(String),
    #[error("the model's chat template cannot be used: {0}")]
    Template(#[from] ChatError),
    #[error(transparent)]
    Model(#[from] LmError),
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error("the prompt needs {need} positions but the model holds {have}; shorten it")]
    Context { need: usize, have: usize },
}

/// Which runtime runs a chat model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Runtime {
    /// Burn's flex CPU backend, weights dequantized to f32 (`llama` only).
    Burn,
    /// The quantized CPU runtime: weights stay in their GGUF blocks (no copy), integer SIMD
    /// kernels with llama.cpp's numerics (AVX2 natively, SIMD128 in wasm).
    #[default]
    Quantized,
    /// Burn on a GPU (WebGPU in the browser, Vulkan/Metal natively), matmul weights kept 8-bit
    /// (Q8, block 32); logits read back asynchronously (`llama` only).
    WebGpu,
}

impl Runtime {
    pub fn from_param(p: &str) -> Option<Runtime> {
        match p {
            "burn" | "flex" => Some(Runtime::Burn),
            "quantized" | "cpu" => Some(Runtime::Quantized),
            "webgpu" | "gpu" | "wgpu" => Some(Runtime::WebGpu),
            _ => None,
        }
    }
}

/// How to load a session: the runtime, the Burn device it needs (Burn and WebGPU) and the
/// matmul weights' format there, and the positions the cache holds.
pub struct LoadOptions<'a> {
    pub runtime: Runtime,
    pub device: Option<&'a Device>,
    pub weights: WeightFormat,
    pub context: usize,
}

impl LoadOptions<'_> {
    /// The quantized CPU runtime with `context` positions.
    pub fn quantized(context: usize) -> LoadOptions<'static> {
        LoadOptions { runtime: Runtime::Quantized, device: None, weights: WeightFormat::Q8, context }
    }
}

/// A prompt prefix whose cache is kept.
struct Prefix {
    name: String,
    ids: Vec<u32>,
    kv: KvSnapshot,
}

/// What a host does between two pieces of model work ([`Session::pause_with`]): the browser's
/// worker lets its event loop run, so a learner's answer or a Stop is read while the model works
/// on something else (one eval is at most `chunk` tokens, one token of a generation, or one
/// candidate's read while scoring). Native hosts set none: their model work never waits.
pub struct Pause {
    /// Most tokens read in one piece: a longer read is split into pieces of this many.
    pub chunk: usize,
    /// Called after each piece; a future it returns is awaited before the next piece.
    pub between: Box<dyn FnMut() -> Option<Wait>>,
}

/// What a [`Pause`] awaits between two pieces.
pub type Wait = std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>;

/// A loaded chat model: see the module docs.
pub struct Session {
    lm: Box<dyn LanguageModel>,
    pub tokenizer: GgufTokenizer,
    /// The model's own chat template (ChatML when the file has none).
    pub template: ChatTemplate,
    /// End of sequence and `<|im_end|>`: generation stops before these.
    pub stop_ids: Vec<u32>,
    vocab: Arc<TokenBytes>,
    json: Option<Arc<JsonDecoder>>,
    runtime: Runtime,
    /// The ids whose positions the cache holds.
    ids: Vec<u32>,
    prefixes: Vec<Prefix>,
    /// Tokens the model has evaluated through this session, all calls together.
    evaluated: usize,
    parameters: u64,
    pause: Option<Pause>,
}

impl Session {
    /// Default positions a conversation may hold (prompt with evidence plus answer). Bangla
    /// costs Qwen's tokenizer about one token per letter (160 tokens for a 148-letter sentence),
    /// so a Bangla creative question (worked example, passage, 5–8 sentences out) needs ≈ 3,500;
    /// 4,096 costs Qwen2.5-Coder-0.5B ≈ 50 MB more cache than 2,048.
    pub const CONTEXT: usize = 4096;

    /// Loads a GGUF chat model on the runtime `opts` names. The quantized runtime keeps the
    /// file's blocks as they are (the bytes are shared, not copied).
    pub fn load(bytes: Arc<Vec<u8>>, opts: &LoadOptions) -> Result<Session, SessionError> {
        let gguf = Gguf::parse(&bytes)?;
        let tokenizer = GgufTokenizer::from_gguf(&gguf)?;
        let template = ChatTemplate::from_gguf(&gguf)?;
        let vocab = TokenBytes::from_gguf(&gguf)?;
        let parameters = gguf.tensors().iter().map(|t| t.dims.iter().product::<u64>()).sum();
        let lm: Box<dyn LanguageModel> = match (opts.runtime, opts.device) {
            (Runtime::Burn | Runtime::WebGpu, Some(device)) => {
                let arch = gguf.architecture()?;
                if arch != "llama" {
                    return Err(SessionError::Architecture(arch.to_string()));
                }
                use crate::model::llama::{Llama, LlamaConfig};
                let cfg = LlamaConfig::from_gguf(&gguf)?;
                let format = opts.weights;
                let model = Llama::from_gguf_with(&cfg, &gguf, device, format)?;
                Box::new(BurnLm::new(model, cfg, device.clone()))
            }
            (Runtime::Burn | Runtime::WebGpu, None) => {
                return Err(SessionError::Model(LmError::Unsupported("a Burn runtime needs a device".into())));
            }
            (Runtime::Quantized, _) => {
                drop(gguf);
                Box::new(CpuLm::new(Arc::new(QuantDecoder::load(bytes)?), opts.context))
            }
        };
        let mut session = Session::new(lm, tokenizer, template, vocab, opts.runtime);
        session.parameters = parameters;
        Ok(session)
    }

    /// A session over an already built model.
    pub fn new(lm: Box<dyn LanguageModel>, tokenizer: GgufTokenizer, template: ChatTemplate, vocab: TokenBytes, runtime: Runtime) -> Session {
        let mut stop_ids = Vec::new();
        stop_ids.extend(tokenizer.eos_id);
        stop_ids.extend(tokenizer.token_id("<|im_end|>"));
        Session { lm, tokenizer, template, stop_ids, vocab: Arc::new(vocab), json: None, runtime, ids: Vec::new(), prefixes: Vec::new(), evaluated: 0, parameters: 0, pause: None }
    }

    /// Pauses every later eval as `pause` says (see [`Pause`]). The synchronous calls
    /// (`complete_now`, …) then panic when a pause waits: a paused session is awaited.
    pub fn pause_with(&mut self, pause: Pause) {
        self.pause = Some(pause);
    }

    pub fn runtime(&self) -> Runtime {
        self.runtime
    }

    /// The model's parameter count, from its file (0 when built without one). Thresholds on a
    /// model's judgements depend on the model (see `agent::author::Thresholds::for_judge`).
    pub fn parameters(&self) -> u64 {
        self.parameters
    }

    /// The weights' precision and size, in words.
    pub fn describe(&self) -> String {
        self.lm.describe()
    }

    /// Each token's bytes.
    pub fn vocab(&self) -> Arc<TokenBytes> {
        self.vocab.clone()
    }

    /// The model itself, for measurements that bypass the session (its cache bookkeeping is
    /// reset: the next prompt is read from the start or a kept prefix).
    pub fn model_mut(&mut self) -> &mut dyn LanguageModel {
        self.ids.clear();
        self.lm.as_mut()
    }

    /// Token ids of `text` (special tokens such as `<|im_start|>` read whole).
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, SessionError> {
        Ok(self.tokenizer.encode(text)?)
    }

    /// Ids of a chat: the template's rendering of `fixed` (the messages every prompt of one kind
    /// starts with), then of the rest, each encoded on its own so that the first part's ids are
    /// the same whatever follows (a [`Session::keep`] prefix). Returns the ids and how many of
    /// them are the fixed part's.
    pub fn chat_ids(&self, fixed: &[ChatMessage], rest: &[ChatMessage]) -> Result<(Vec<u32>, usize), SessionError> {
        let all: Vec<ChatMessage> = fixed.iter().chain(rest).cloned().collect();
        let full = self.template.render(&all, true)?;
        if fixed.is_empty() {
            return Ok((self.encode(&full)?, 0));
        }
        let head = self.template.render(fixed, false)?;
        match full.strip_prefix(head.as_str()) {
            Some(tail) => {
                let mut ids = self.encode(&head)?;
                let n = ids.len();
                ids.extend(self.encode(tail)?);
                Ok((ids, n))
            }
            // A template that renders the first messages differently when more follow.
            None => Ok((self.encode(&full)?, 0)),
        }
    }

    /// Keeps the cache of `ids` under `name` (replacing an older prefix of that name), so a
    /// later prompt that starts with them resumes from there. Reads only what the cache does
    /// not already hold.
    pub async fn keep(&mut self, name: &str, ids: &[u32]) -> Result<(), SessionError> {
        if ids.is_empty() || self.prefixes.iter().any(|p| p.name == name && p.ids == ids) {
            return Ok(());
        }
        self.fits(ids.len())?;
        let start = self.reuse(ids);
        Eval::eval(self, &ids[start..], false).await?;
        self.prefixes.retain(|p| p.name != name);
        if let Some(kv) = self.lm.snapshot(ids.len()) {
            self.prefixes.push(Prefix { name: name.to_string(), ids: ids.to_vec(), kv });
        }
        Ok(())
    }

    /// Tokens the model has evaluated through this session so far (prompt reading, generation,
    /// scoring): what reused prefixes save shows here.
    pub fn evaluated(&self) -> usize {
        self.evaluated
    }

    /// The ids kept under `name`, if any.
    pub fn kept_ids(&self, name: &str) -> Option<&[u32]> {
        self.prefixes.iter().find(|p| p.name == name).map(|p| p.ids.as_slice())
    }

    /// The fixed part's ids of every prompt that starts with the messages `fixed`, as
    /// [`Session::chat_ids`] counts them (empty when the template gives the fixed part no ids
    /// of its own).
    pub fn fixed_ids(&self, fixed: &[ChatMessage]) -> Result<Vec<u32>, SessionError> {
        let (mut ids, n) = self.chat_ids(fixed, &[ChatMessage { role: "user", content: "" }])?;
        ids.truncate(n);
        Ok(ids)
    }

    /// Names and sizes (positions, bytes) of the kept prefixes.
    pub fn kept(&self) -> Vec<(&str, usize, usize)> {
        self.prefixes.iter().map(|p| (p.name.as_str(), p.kv.len, p.kv.bytes)).collect()
    }

    fn fits(&self, need: usize) -> Result<(), SessionError> {
        let have = self.lm.context_length();
        if need > have {
            return Err(SessionError::Context { need, have });
        }
        Ok(())
    }

    /// A generation after `ids`, to step ([`Generator::step`] with this session).
    pub fn generator(&self, ids: &[u32], opts: GenerateOptions) -> Generator<'static> {
        Generator::new(ids, GenerateOptions { stop_ids: self.stop_ids_or(&opts), ..opts }, Some(self.vocab.clone()))
    }

    fn stop_ids_or(&self, opts: &GenerateOptions) -> Vec<u32> {
        if opts.stop_ids.is_empty() { self.stop_ids.clone() } else { opts.stop_ids.clone() }
    }

    /// Generates text after `ids` to the end (stop ids default to the model's).
    pub async fn complete(&mut self, ids: &[u32], opts: GenerateOptions) -> Result<Generation, SessionError> {
        self.fits(ids.len() + 1)?;
        let g = self.generator(ids, opts);
        Ok(g.run(self, |_, _| true).await?)
    }

    /// Generates JSON of `schema` after `ids` (always parses, see `llm::constrain`).
    pub async fn json(&mut self, ids: &[u32], schema: &Schema, opts: GenerateOptions) -> Result<JsonOutput, SessionError> {
        self.fits(ids.len() + 1)?;
        let decoder = match &self.json {
            Some(d) => d.clone(),
            None => {
                let d = Arc::new(JsonDecoder::new(&self.vocab)?);
                self.json = Some(d.clone());
                d
            }
        };
        let opts = GenerateOptions { stop_ids: self.stop_ids_or(&opts), ..opts };
        Ok(decoder.generate_on(self, schema, ids, &opts, |_, _| true).await?)
    }

    /// Log-probability of each candidate continuation (ids) after `prefix` (read once).
    pub async fn score(&mut self, prefix: &[u32], candidates: &[Vec<u32>]) -> Result<Vec<LabelScore>, SessionError> {
        self.fits(prefix.len() + candidates.iter().map(Vec::len).max().unwrap_or(0))?;
        Ok(score_labels_on(self, prefix, candidates).await?)
    }

    /// [`Session::complete`] for callers that cannot await (natively, or the CPU runtime).
    pub fn complete_now(&mut self, ids: &[u32], opts: GenerateOptions) -> Result<Generation, SessionError> {
        now(self.complete(ids, opts))
    }

    /// [`Session::json`] for callers that cannot await.
    pub fn json_now(&mut self, ids: &[u32], schema: &Schema, opts: GenerateOptions) -> Result<JsonOutput, SessionError> {
        now(self.json(ids, schema, opts))
    }

    /// [`Session::score`] for callers that cannot await.
    pub fn score_now(&mut self, prefix: &[u32], candidates: &[Vec<u32>]) -> Result<Vec<LabelScore>, SessionError> {
        now(self.score(prefix, candidates))
    }

    /// [`Session::keep`] for callers that cannot await.
    pub fn keep_now(&mut self, name: &str, ids: &[u32]) -> Result<(), SessionError> {
        now(self.keep(name, ids))
    }
}

impl Eval for Session {
    fn vocab_size(&self) -> usize {
        self.lm.vocab_size()
    }

    fn context_length(&self) -> usize {
        self.lm.context_length()
    }

    fn truncate(&mut self, len: usize) {
        self.lm.truncate(len);
        self.ids.truncate(self.lm.cached());
    }

    /// The longest of: the common prefix with what the cache holds, and a kept prefix that
    /// `ids` starts with (restored). At least one id is always left to read.
    fn reuse(&mut self, ids: &[u32]) -> usize {
        if self.lm.cached() != self.ids.len() {
            // The model was used around the session: nothing cached can be trusted.
            self.ids.clear();
            self.lm.truncate(0);
        }
        let limit = ids.len().saturating_sub(1);
        let common = self.ids.iter().zip(ids).take_while(|(a, b)| a == b).count().min(limit);
        let kept = self.prefixes.iter().filter(|p| p.ids.len() <= ids.len() && ids.starts_with(&p.ids)).max_by_key(|p| p.ids.len());
        if let Some(p) = kept.filter(|p| p.ids.len().min(limit) > common) {
            if self.lm.restore(&p.kv) {
                self.ids = p.ids.clone();
                Eval::truncate(self, limit);
                return self.ids.len();
            }
        }
        Eval::truncate(self, common);
        common
    }

    /// Reads `tokens` in pieces of the [`Pause`]'s chunk, pausing after each (in one piece
    /// when no pause is set); the logits are those one read would give: the last token's, or
    /// every token's rows in order.
    async fn eval(&mut self, tokens: &[u32], all: bool) -> Result<Vec<f32>, LmError> {
        let chunk = self.pause.as_ref().map_or(usize::MAX, |p| p.chunk.max(1));
        let mut logits = Vec::new();
        let mut rest = tokens;
        loop {
            let (piece, after) = rest.split_at(rest.len().min(chunk));
            let out = Eval::eval(self.lm.as_mut(), piece, all).await?;
            self.ids.extend_from_slice(piece);
            self.evaluated += piece.len();
            if logits.is_empty() && (all || after.is_empty()) {
                logits = out;
            } else if all {
                logits.extend(out);
            }
            if let Some(wait) = self.pause.as_mut().and_then(|p| (p.between)()) {
                wait.await;
            }
            if after.is_empty() {
                return Ok(logits);
            }
            rest = after;
        }
    }
}
