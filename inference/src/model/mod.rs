//! Model architectures, one file each. Model code takes a `&Device` and never names a backend.

pub mod bert;
pub mod decoder;
pub mod e5s1;
pub mod llama;
pub mod weights;
