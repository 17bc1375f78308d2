//! GGUF model files, format only: header, metadata, tensor infos, block dequantization.
//!
//! This module knows nothing of model architectures; each model reads the keys and tensors
//! it needs through [`Gguf`].
//! It parses from a byte slice, so it works the same natively and in wasm.
//!
//! # Layout (GGUF v2 and v3, little-endian)
//!
//! ```text
//! "GGUF"  u32 version  u64 tensor_count  u64 metadata_count
//! metadata_count x { string key, u32 value_type, value }
//! tensor_count   x { string name, u32 n_dims, n_dims x u64 dim, u32 ggml_type, u64 offset }
//! padding to `general.alignment` (default 32)
//! tensor data; each tensor at data_start + offset, offsets aligned
//!
//! string = u64 length, UTF-8 bytes
//! array  = u32 element_type, u64 length, elements
//! ```
//!
//! Dimensions are stored innermost first, as ggml's `ne`: a weight of `dims = [896, 4864]`
//! has 4864 rows of 896 values, and each row is a whole number of blocks of its type.
//!
//! # Limits
//!
//! Every count and length is checked against a hard limit ([`MAX_TENSORS`], [`MAX_METADATA`],
//! [`MAX_STRING_LEN`], [`MAX_ARRAY_LEN`], [`MAX_ARRAY_DEPTH`], [`MAX_DIMS`]) and against the
//! bytes left before anything is allocated, and every tensor must lie inside the file, so a
//! hostile or truncated file is an error, never a panic or a huge allocation.

mod error;
pub mod quant;
mod reader;
mod value;

use std::collections::HashMap;
use std::fmt;

pub use error::GgufError;
pub use quant::{GgmlType, dequantize_row};
pub use value::{Array, Value};

use reader::Reader;

/// The four bytes every GGUF file starts with.
pub const MAGIC: &[u8; 4] = b"GGUF";
/// The oldest GGUF version read (v1 used 32-bit lengths).
pub const OLDEST_SUPPORTED_VERSION: u32 = 2;
/// The newest GGUF version read.
pub const VERSION: u32 = 3;
/// Alignment of tensor data when `general.alignment` is absent.
pub const DEFAULT_ALIGNMENT: u64 = 32;
/// Most tensors a file may declare.
pub const MAX_TENSORS: u64 = 1 << 16;
/// Most metadata entries a file may declare.
pub const MAX_METADATA: u64 = 1 << 16;
/// Longest string, in bytes (chat templates are the longest, at tens of kilobytes).
pub const MAX_STRING_LEN: u64 = 1 << 24;
/// Longest metadata array (vocabularies and merge lists are the longest, at a few hundred thousand).
pub const MAX_ARRAY_LEN: u64 = 1 << 24;
/// Deepest nesting of arrays in arrays.
pub const MAX_ARRAY_DEPTH: usize = 4;
/// Most dimensions of a tensor (`GGML_MAX_DIMS`).
pub const MAX_DIMS: u32 = 4;
/// Largest `general.alignment` accepted.
pub const MAX_ALIGNMENT: u64 = 1 << 20;

/// Where one tensor is and how it is stored.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorInfo {
    /// Tensor name, such as `blk.0.attn_q.weight`.
    pub name: String,
    /// Dimensions, innermost first (ggml's `ne`); `dims[0]` is the row length.
    pub dims: Vec<u64>,
    /// Storage type.
    pub ty: GgmlType,
    /// Offset of the data from the start of the data section.
    pub offset: u64,
    n_bytes: u64,
}

impl TensorInfo {
    /// Number of values.
    pub fn n_elements(&self) -> u64 {
        self.dims.iter().product()
    }

    /// Values per row (`dims[0]`, or 1 for a scalar).
    pub fn row_len(&self) -> u64 {
        self.dims.first().copied().unwrap_or(1)
    }

    /// Number of rows (the product of all dimensions but the first).
    pub fn n_rows(&self) -> u64 {
        self.dims.iter().skip(1).product()
    }

    /// Bytes of one row.
    pub fn row_bytes(&self) -> u64 {
        self.row_len() / self.ty.block_size() as u64 * self.ty.type_size() as u64
    }

    /// Bytes of the whole tensor.
    pub fn n_bytes(&self) -> u64 {
        self.n_bytes
    }

    /// Dimensions outermost first, as PyTorch and numpy write shapes.
    pub fn shape(&self) -> Vec<u64> {
        self.dims.iter().rev().copied().collect()
    }
}

/// A parsed GGUF file borrowing its bytes; tensors are sliced and decoded only when asked.
pub struct Gguf<'a> {
    bytes: &'a [u8],
    version: u32,
    metadata: Vec<(String, Value)>,
    keys: HashMap<String, usize>,
    tensors: Vec<TensorInfo>,
    names: HashMap<String, usize>,
    alignment: u64,
    data_start: u64,
}

impl<'a> Gguf<'a> {
    /// Parses the header, metadata and tensor infos of a whole GGUF file, and checks that
    /// every tensor lies inside `bytes`.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, GgufError> {
        let mut r = Reader::new(bytes);
        let magic = r.take(4, "the magic")?;
        if magic != MAGIC {
            return Err(GgufError::BadMagic { found: magic.escape_ascii().to_string() });
        }
        let version = r.u32("the version")?;
        if !(OLDEST_SUPPORTED_VERSION..=VERSION).contains(&version) {
            let swapped = version.swap_bytes();
            return Err(if (OLDEST_SUPPORTED_VERSION..=VERSION).contains(&swapped) {
                GgufError::BigEndian
            } else {
                GgufError::UnsupportedVersion { version }
            });
        }
        let tensor_count = r.u64("the tensor count")?;
        let metadata_count = r.u64("the metadata count")?;
        check_limit("the tensor count", tensor_count, MAX_TENSORS)?;
        check_limit("the metadata count", metadata_count, MAX_METADATA)?;
        // Smallest entries: an empty key, a type and a u8 (13 bytes); an empty name, no dims,
        // a type and an offset (24 bytes).
        r.check_fits(&format!("{metadata_count} metadata entries"), metadata_count, 13)?;
        r.check_fits(&format!("{tensor_count} tensor infos"), tensor_count, 24)?;

        let mut metadata = Vec::with_capacity(metadata_count as usize);
        let mut keys = HashMap::with_capacity(metadata_count as usize);
        for i in 0..metadata_count {
            let key = r.string(&format!("metadata key {i}"))?;
            let what = format!("metadata value {key}");
            let ty = r.u32(&what)?;
            let value = r.value(ty, &what, 0)?;
            if keys.insert(key.clone(), metadata.len()).is_some() {
                return Err(GgufError::Corrupt { what: format!("metadata key {key} appears twice") });
            }
            metadata.push((key, value));
        }

        let alignment = match keys.get("general.alignment").map(|&i| &metadata[i].1) {
            None => DEFAULT_ALIGNMENT,
            Some(v) => match v.as_integer() {
                Some(a) if a > 0 && a <= MAX_ALIGNMENT as i128 && (a as u64).is_power_of_two() => a as u64,
                _ => return Err(GgufError::Corrupt { what: format!("general.alignment is {v:?}, not a power of two up to {MAX_ALIGNMENT}") }),
            },
        };

        let mut tensors = Vec::with_capacity(tensor_count as usize);
        let mut names = HashMap::with_capacity(tensor_count as usize);
        for i in 0..tensor_count {
            let info = read_tensor_info(&mut r, i)?;
            if names.insert(info.name.clone(), tensors.len()).is_some() {
                return Err(GgufError::Corrupt { what: format!("tensor {} appears twice", info.name) });
            }
            tensors.push(info);
        }

        let data_start = (r.pos() as u64).next_multiple_of(alignment);
        let len = bytes.len() as u64;
        for t in &tensors {
            if !t.offset.is_multiple_of(alignment) {
                return Err(GgufError::Corrupt {
                    what: format!("tensor {} starts at data offset {}, not a multiple of the alignment {alignment}", t.name, t.offset),
                });
            }
            let start = data_start.checked_add(t.offset);
            if start.and_then(|s| s.checked_add(t.n_bytes)).is_none_or(|end| end > len) {
                return Err(GgufError::Truncated { what: format!("tensor {}", t.name), needed: t.n_bytes, offset: start.unwrap_or(u64::MAX), len });
            }
        }

        Ok(Gguf { bytes, version, metadata, keys, tensors, names, alignment, data_start })
    }

    /// The GGUF version (2 or 3).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Alignment of tensor data in bytes.
    pub fn alignment(&self) -> u64 {
        self.alignment
    }

    /// File offset where the tensor data section starts.
    pub fn data_start(&self) -> u64 {
        self.data_start
    }

    /// All metadata entries in file order.
    pub fn metadata_entries(&self) -> &[(String, Value)] {
        &self.metadata
    }

    /// The value of metadata key `key`, such as `general.architecture`.
    pub fn metadata(&self, key: &str) -> Option<&Value> {
        self.keys.get(key).map(|&i| &self.metadata[i].1)
    }

    fn require(&self, key: &str) -> Result<&Value, GgufError> {
        self.metadata(key).ok_or_else(|| GgufError::MissingKey { key: key.to_string() })
    }

    fn integer<T: TryFrom<i128>>(&self, key: &str, expected: &'static str) -> Result<T, GgufError> {
        let v = self.require(key)?;
        let n = v.as_integer().ok_or_else(|| wrong_type(key, expected, v.type_name()))?;
        T::try_from(n).map_err(|_| wrong_type(key, expected, format!("{} {n}", v.type_name())))
    }

    /// Metadata `key` as `u32`; any integer type that holds the value losslessly is accepted.
    pub fn get_u32(&self, key: &str) -> Result<u32, GgufError> {
        self.integer(key, "u32")
    }

    /// Metadata `key` as `u64`; any integer type that holds the value losslessly is accepted.
    pub fn get_u64(&self, key: &str) -> Result<u64, GgufError> {
        self.integer(key, "u64")
    }

    /// Metadata `key` as `i32`; any integer type that holds the value losslessly is accepted.
    pub fn get_i32(&self, key: &str) -> Result<i32, GgufError> {
        self.integer(key, "i32")
    }

    /// Metadata `key` as `f32`; any numeric type is accepted and rounded to `f32`.
    pub fn get_f32(&self, key: &str) -> Result<f32, GgufError> {
        let v = self.require(key)?;
        match v {
            Value::F32(x) => Ok(*x),
            other => other.as_f64().map(|x| x as f32).ok_or_else(|| wrong_type(key, "f32", v.type_name())),
        }
    }

    /// Metadata `key` as `bool`.
    pub fn get_bool(&self, key: &str) -> Result<bool, GgufError> {
        match self.require(key)? {
            Value::Bool(b) => Ok(*b),
            v => Err(wrong_type(key, "bool", v.type_name())),
        }
    }

    /// Metadata `key` as a string.
    pub fn get_str(&self, key: &str) -> Result<&str, GgufError> {
        let v = self.require(key)?;
        v.as_str().ok_or_else(|| wrong_type(key, "string", v.type_name()))
    }

    /// Metadata `key` as an array of strings, such as `tokenizer.ggml.tokens`.
    pub fn get_str_array(&self, key: &str) -> Result<&[String], GgufError> {
        match self.require(key)? {
            Value::Array(Array::String(v)) => Ok(v.as_slice()),
            v => Err(wrong_type(key, "array of string", v.type_name())),
        }
    }

    /// Metadata `key` as an array of `i32`, such as `tokenizer.ggml.token_type`.
    pub fn get_i32_array(&self, key: &str) -> Result<&[i32], GgufError> {
        match self.require(key)? {
            Value::Array(Array::I32(v)) => Ok(v.as_slice()),
            v => Err(wrong_type(key, "array of i32", v.type_name())),
        }
    }

    /// Metadata `key` as an array of `f32`, such as `tokenizer.ggml.scores`.
    pub fn get_f32_array(&self, key: &str) -> Result<&[f32], GgufError> {
        match self.require(key)? {
            Value::Array(Array::F32(v)) => Ok(v.as_slice()),
            v => Err(wrong_type(key, "array of f32", v.type_name())),
        }
    }

    /// `general.architecture`, such as `llama` or `qwen2`; model keys are prefixed with it.
    pub fn architecture(&self) -> Result<&str, GgufError> {
        self.get_str("general.architecture")
    }

    /// All tensor infos in file order.
    pub fn tensors(&self) -> &[TensorInfo] {
        &self.tensors
    }

    /// The info of tensor `name`.
    pub fn tensor_info(&self, name: &str) -> Option<&TensorInfo> {
        self.names.get(name).map(|&i| &self.tensors[i])
    }

    fn require_tensor(&self, name: &str) -> Result<&TensorInfo, GgufError> {
        self.tensor_info(name).ok_or_else(|| GgufError::MissingTensor { name: name.to_string() })
    }

    /// The raw stored bytes of tensor `name`, for any type.
    pub fn tensor_bytes(&self, name: &str) -> Result<&'a [u8], GgufError> {
        let t = self.require_tensor(name)?;
        // `parse` checked that the range lies inside `bytes`, so it fits in usize.
        let start = (self.data_start + t.offset) as usize;
        Ok(&self.bytes[start..start + t.n_bytes as usize])
    }

    /// Tensor `name` decoded to `f32`, rows in file order (`dims[0]` values each).
    pub fn dequantize(&self, name: &str) -> Result<Vec<f32>, GgufError> {
        let t = self.require_tensor(name)?;
        if !t.ty.is_supported() {
            return Err(GgufError::UnsupportedTensorType { name: name.to_string(), ty: t.ty });
        }
        let bytes = self.tensor_bytes(name)?;
        let mut out = vec![0.0; t.n_elements() as usize];
        dequantize_row(t.ty, bytes, &mut out)?;
        Ok(out)
    }
}

impl fmt::Debug for Gguf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gguf")
            .field("version", &self.version)
            .field("len", &self.bytes.len())
            .field("metadata", &self.metadata.len())
            .field("tensors", &self.tensors.len())
            .field("alignment", &self.alignment)
            .field("data_start", &self.data_start)
            .finish()
    }
}

fn check_limit(what: &str, value: u64, limit: u64) -> Result<(), GgufError> {
    if value > limit { Err(GgufError::LimitExceeded { what: what.to_string(), value, limit }) } else { Ok(()) }
}

fn wrong_type(key: &str, expected: &'static str, found: String) -> GgufError {
    GgufError::WrongType { key: key.to_string(), expected, found }
}

/// Tensor info `i`: name, dims, type, offset, with its size computed and checked.
fn read_tensor_info(r: &mut Reader<'_>, i: u64) -> Result<TensorInfo, GgufError> {
    let name = r.string(&format!("the name of tensor {i}"))?;
    let what = format!("the info of tensor {name}");
    let n_dims = r.u32(&what)?;
    check_limit(&format!("the dimension count of tensor {name}"), n_dims.into(), MAX_DIMS.into())?;
    let dims = (0..n_dims).map(|_| r.u64(&what)).collect::<Result<Vec<_>, _>>()?;
    let id = r.u32(&what)?;
    let ty = GgmlType::from_id(id).ok_or_else(|| GgufError::UnknownTensorType { name: name.clone(), id })?;
    let offset = r.u64(&what)?;

    let row_len = dims.first().copied().unwrap_or(1);
    let block = ty.block_size() as u64;
    if !row_len.is_multiple_of(block) {
        return Err(GgufError::Corrupt { what: format!("tensor {name} has rows of {row_len} values, not a multiple of the {ty} block size {block}") });
    }
    let n_bytes = dims
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= i64::MAX as u64)
        .and_then(|n| (n / block).checked_mul(ty.type_size() as u64))
        .ok_or_else(|| GgufError::Corrupt { what: format!("tensor {name} has impossible dimensions {dims:?}") })?;
    Ok(TensorInfo { name, dims, ty, offset, n_bytes })
}
