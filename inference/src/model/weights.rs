//! Reading named tensors out of a safetensors file as f32 values.

use safetensors::{Dtype, SafeTensors};

#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    #[error("not a safetensors file: {0}")]
    Format(#[from] safetensors::SafeTensorError),
    #[error("cannot find tensor `{0}` in the weights; is this the right model file?")]
    Missing(String),
    #[error("tensor `{name}` has shape {got:?}, expected {want:?}")]
    Shape { name: String, got: Vec<usize>, want: Vec<usize> },
    #[error("tensor `{name}` is {dtype:?}; only F32, F16 and BF16 weights are supported")]
    Dtype { name: String, dtype: Dtype },
}

/// Named tensors of one safetensors file, with an optional name prefix tried first
/// (`bert.` in checkpoints saved from a task model).
pub struct Weights<'a> {
    st: SafeTensors<'a>,
    prefix: String,
}

impl<'a> Weights<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<Self, WeightsError> {
        let st = SafeTensors::deserialize(bytes)?;
        let prefix = if st.names().iter().any(|n| n.starts_with("bert.")) { "bert." } else { "" };
        Ok(Weights { st, prefix: prefix.to_string() })
    }

    pub fn has(&self, name: &str) -> bool {
        self.st.tensor(&format!("{}{name}", self.prefix)).is_ok() || self.st.tensor(name).is_ok()
    }

    fn floats(&self, name: &str) -> Result<(Vec<f32>, Vec<usize>), WeightsError> {
        let view = self
            .st
            .tensor(&format!("{}{name}", self.prefix))
            .or_else(|_| self.st.tensor(name))
            .map_err(|_| WeightsError::Missing(name.to_string()))?;
        let bytes = view.data();
        let values = match view.dtype() {
            Dtype::F32 => bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            Dtype::F16 => bytes.chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
            Dtype::BF16 => bytes.chunks_exact(2).map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
            dtype => return Err(WeightsError::Dtype { name: name.to_string(), dtype }),
        };
        Ok((values, view.shape().to_vec()))
    }

}

/// Where a BERT encoder's weights come from, by their `transformers` names: a safetensors file
/// ([`Weights`]) or a quantized container ([`super::e5s1::E5s1`]).
pub trait BertSource {
    fn has(&self, name: &str) -> bool;
    /// The row-major values of a tensor of exactly `shape` (a linear weight is PyTorch's
    /// `[out, in]`).
    fn values(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, WeightsError>;
}

/// `[out, in]` row-major values as `[in, out]` row-major.
pub fn transpose_out_in(values: &[f32], d_in: usize, d_out: usize) -> Vec<f32> {
    let mut t = vec![0.0f32; values.len()];
    for o in 0..d_out {
        for i in 0..d_in {
            t[i * d_out + o] = values[o * d_in + i];
        }
    }
    t
}

impl BertSource for Weights<'_> {
    fn has(&self, name: &str) -> bool {
        Weights::has(self, name)
    }

    fn values(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, WeightsError> {
        let (values, got) = self.floats(name)?;
        if got != shape {
            return Err(WeightsError::Shape { name: name.to_string(), got, want: shape.to_vec() });
        }
        Ok(values)
    }
}
