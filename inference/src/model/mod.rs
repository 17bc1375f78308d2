//! Model architectures, one file each. Burn model code takes a `&Device` and never names a
//! backend; the sentence encoder (`bert`) runs on the CPU alone.

pub mod bert;
pub mod decoder;
pub mod e5s1;
pub mod llama;
pub mod weights;
