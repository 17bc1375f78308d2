use super::GgmlType;

/// Why a GGUF file could not be read, and what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum GgufError {
    #[error("not a GGUF file: it starts with {found:?} instead of \"GGUF\"; check that the download is a .gguf model and not an HTML page or another format")]
    BadMagic { found: String },
    #[error("GGUF version {version} is not supported: this runtime reads versions 2 and 3; convert the model again with a current llama.cpp")]
    UnsupportedVersion { version: u32 },
    #[error("big-endian GGUF files are not supported; convert the model again without --bigendian")]
    BigEndian,
    #[error("truncated GGUF: {what} needs {needed} bytes at offset {offset} but the file has {len}; download it again")]
    Truncated { what: String, needed: u64, offset: u64, len: u64 },
    #[error("corrupt GGUF: {what} is {value}, over the limit of {limit}; download the file again or use a smaller model")]
    LimitExceeded { what: String, value: u64, limit: u64 },
    #[error("corrupt GGUF: {what}; download the file again")]
    Corrupt { what: String },
    #[error("unknown tensor type id {id} in {name}: the file is corrupt or needs a newer runtime; re-quantize the model with one of {}", GgmlType::SUPPORTED_NAMES)]
    UnknownTensorType { name: String, id: u32 },
    #[error("unsupported tensor type {ty} in {name}: this runtime reads {}; re-quantize the model with one of them", GgmlType::SUPPORTED_NAMES)]
    UnsupportedTensorType { name: String, ty: GgmlType },
    #[error("cannot find {key} in metadata")]
    MissingKey { key: String },
    #[error("{key} in metadata is {found}, expected {expected}")]
    WrongType { key: String, expected: &'static str, found: String },
    #[error("cannot find tensor {name} in the GGUF file")]
    MissingTensor { name: String },
    #[error("cannot dequantize {bytes} bytes of {ty} into {outputs} values: {ty} stores {} values in {} bytes", .ty.block_size(), .ty.type_size())]
    RowSize { ty: GgmlType, bytes: usize, outputs: usize },
}
