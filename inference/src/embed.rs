//! Sentence embeddings: tokenizer + [`BertModel`] + mean pooling + L2 norm.

use crate::model::bert::{BertConfig, BertModel, mean_pool_normalize};
use crate::model::weights::WeightsError;
use burn::tensor::{Device, Int, Tensor, TensorData};
use sha2::{Digest, Sha256};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

#[derive(Debug, thiserror::Error)]
pub enum EncoderError {
    #[error("encoder weights: {0}")]
    Weights(#[from] WeightsError),
    #[error("encoder config.json is not valid: {0}")]
    Config(#[from] serde_json::Error),
    #[error("tokenizer.json could not be loaded: {0}")]
    Tokenizer(String),
    #[error("reading encoder output failed: {0}")]
    Readback(String),
}

/// The encoder's identity as recorded in a bundle: a bundle's vectors only make sense with the
/// exact weights that made them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EncoderId {
    pub name: String,
    /// Hex sha256 of the weights file.
    pub sha256: String,
    pub dim: usize,
    pub max_tokens: usize,
}

/// A sentence encoder ready to embed text.
pub struct SentenceEncoder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    id: EncoderId,
}

/// all-MiniLM-L6-v2's `max_seq_length` in sentence-transformers.
pub const DEFAULT_MAX_TOKENS: usize = 256;

impl SentenceEncoder {
    /// Load from the bytes of `config.json`, `model.safetensors` and `tokenizer.json`.
    pub fn load(name: &str, config_json: &[u8], weights: &[u8], tokenizer_json: &[u8], max_tokens: usize, device: &Device) -> Result<Self, EncoderError> {
        let cfg: BertConfig = serde_json::from_slice(config_json)?;
        let model = BertModel::from_safetensors(&cfg, weights, device)?;
        let mut tokenizer = Tokenizer::from_bytes(tokenizer_json).map_err(|e| EncoderError::Tokenizer(e.to_string()))?;
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: max_tokens, ..Default::default() }))
            .map_err(|e| EncoderError::Tokenizer(e.to_string()))?;
        tokenizer.with_padding(Some(PaddingParams { strategy: PaddingStrategy::BatchLongest, ..Default::default() }));
        let id = EncoderId {
            name: name.to_string(),
            sha256: hex(&Sha256::digest(weights)),
            dim: cfg.hidden_size,
            max_tokens,
        };
        Ok(SentenceEncoder { model, tokenizer, device: device.clone(), id })
    }

    pub fn id(&self) -> &EncoderId {
        &self.id
    }

    pub fn dim(&self) -> usize {
        self.id.dim
    }

    /// Whether `word` is one whole token of the tokenizer's vocabulary (an everyday word for a
    /// WordPiece English vocabulary; rare names split into pieces).
    pub fn is_whole_word(&self, word: &str) -> bool {
        self.tokenizer.token_to_id(&word.to_lowercase()).is_some()
    }

    /// Whether the encoder can read `text`: its vocabulary covers the words (on average at most
    /// three word pieces a word, none of them mostly unknown). An English-only encoder shreds
    /// Bengali into letters, and its vectors for such text are noise, so callers search that text
    /// lexically instead.
    pub fn can_read(&self, text: &str) -> bool {
        let words = crate::text::words(text).len();
        let Ok(enc) = self.tokenizer.encode(text, false) else { return false };
        let ids = enc.get_ids();
        let unk = self.tokenizer.token_to_id("[UNK]");
        let unknown = ids.iter().filter(|&&i| Some(i) == unk).count();
        words == 0 || (ids.len() <= 3 * words && unknown * 4 <= ids.len())
    }

    /// Token ids of one text, with special tokens, truncated as the encoder sees it.
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, EncoderError> {
        let enc = self.tokenizer.encode(text, true).map_err(|e| EncoderError::Tokenizer(e.to_string()))?;
        Ok(enc.get_ids().to_vec())
    }

    fn forward(&self, texts: &[&str]) -> Result<Tensor<2>, EncoderError> {
        let encs = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EncoderError::Tokenizer(e.to_string()))?;
        let (batch, seq) = (encs.len(), encs[0].get_ids().len());
        let ids: Vec<i64> = encs.iter().flat_map(|e| e.get_ids().iter().map(|&i| i as i64)).collect();
        let mask: Vec<f32> = encs.iter().flat_map(|e| e.get_attention_mask().iter().map(|&m| m as f32)).collect();
        let ids = Tensor::<2, Int>::from_data(TensorData::new(ids, [batch, seq]), &self.device);
        let mask = Tensor::<2>::from_data(TensorData::new(mask, [batch, seq]), &self.device);
        Ok(mean_pool_normalize(self.model.forward(ids, mask.clone()), mask))
    }

    /// Unit-length embeddings of `texts`, one `dim`-long vector each.
    ///
    /// Reads the result back synchronously: native only. In the browser use [`Self::embed_async`].
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EncoderError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let out = self.forward(texts)?;
        let data = out.try_into_data().map_err(|e| EncoderError::Readback(format!("{e:?}")))?;
        self.split(data)
    }

    /// [`Self::embed`] with an asynchronous readback, as WebGPU requires.
    pub async fn embed_async(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EncoderError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let out = self.forward(texts)?;
        let data = out.into_data_async().await.map_err(|e| EncoderError::Readback(format!("{e:?}")))?;
        self.split(data)
    }

    fn split(&self, data: TensorData) -> Result<Vec<Vec<f32>>, EncoderError> {
        let flat: Vec<f32> = data.try_to_vec::<f32>().map_err(|e| EncoderError::Readback(format!("{e:?}")))?;
        Ok(flat.chunks_exact(self.id.dim).map(<[f32]>::to_vec).collect())
    }

    /// Embed many texts in batches of similar length (less padding), keeping input order.
    ///
    /// Natively the batches are shared among the CPU's threads: Burn's CPU GEMM alone keeps
    /// only part of the machine busy on matrices this small.
    pub fn embed_many(&self, texts: &[&str], batch_size: usize, progress: impl FnMut(usize) + Send) -> Result<Vec<Vec<f32>>, EncoderError> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len()));
        let batches: Vec<&[usize]> = order.chunks(batch_size.max(1)).collect();
        let mut out = vec![Vec::new(); texts.len()];
        let progress = std::sync::Mutex::new(progress);
        let run = |batch: &[usize]| -> Result<Vec<(usize, Vec<f32>)>, EncoderError> {
            let strs: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            let vecs = self.embed(&strs)?;
            (progress.lock().expect("progress lock"))(batch.len());
            Ok(batch.iter().copied().zip(vecs).collect())
        };
        let workers = worker_count().min(batches.len()).max(1);
        let results: Vec<Result<Vec<(usize, Vec<f32>)>, EncoderError>> = if workers == 1 {
            batches.iter().map(|b| run(b)).collect()
        } else {
            let next = std::sync::atomic::AtomicUsize::new(0);
            let done = std::sync::Mutex::new(Vec::new());
            std::thread::scope(|scope| {
                for _ in 0..workers {
                    scope.spawn(|| loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(batch) = batches.get(i) else { break };
                        let r = run(batch);
                        done.lock().expect("results lock").push(r);
                    });
                }
            });
            done.into_inner().expect("results lock")
        };
        for r in results {
            for (i, v) in r? {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

#[cfg(not(target_family = "wasm"))]
fn worker_count() -> usize {
    std::thread::available_parallelism().map(usize::from).unwrap_or(1)
}

#[cfg(target_family = "wasm")]
fn worker_count() -> usize {
    1
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Dot product; the cosine similarity of unit vectors.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
