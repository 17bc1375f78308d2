//! A bounds-checked little-endian cursor over the header, and the metadata value decoder.
//!
//! Every length read from the file is checked against its limit and against the bytes left
//! before anything is allocated, so a hostile header costs at most a few times its own size.

use super::value::{Array, Value};
use super::{GgufError, MAX_ARRAY_DEPTH, MAX_ARRAY_LEN, MAX_STRING_LEN};

pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0 }
    }

    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    pub(super) fn remaining(&self) -> u64 {
        (self.bytes.len() - self.pos) as u64
    }

    /// The error for `what` needing `needed` bytes from here.
    pub(super) fn truncated(&self, what: &str, needed: u64) -> GgufError {
        GgufError::Truncated { what: what.to_string(), needed, offset: self.pos as u64, len: self.bytes.len() as u64 }
    }

    /// Fails unless `count` items of at least `min_size` bytes each can fit in the bytes left.
    pub(super) fn check_fits(&self, what: &str, count: u64, min_size: u64) -> Result<(), GgufError> {
        let needed = count.saturating_mul(min_size);
        if needed > self.remaining() { Err(self.truncated(what, needed)) } else { Ok(()) }
    }

    pub(super) fn take(&mut self, n: u64, what: &str) -> Result<&'a [u8], GgufError> {
        if n > self.remaining() {
            return Err(self.truncated(what, n));
        }
        let start = self.pos;
        self.pos += n as usize;
        Ok(&self.bytes[start..self.pos])
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], GgufError> {
        Ok(self.take(N as u64, what)?.try_into().expect("took N bytes"))
    }

    pub(super) fn u32(&mut self, what: &str) -> Result<u32, GgufError> {
        self.array(what).map(u32::from_le_bytes)
    }

    pub(super) fn u64(&mut self, what: &str) -> Result<u64, GgufError> {
        self.array(what).map(u64::from_le_bytes)
    }

    /// A length-prefixed UTF-8 string.
    pub(super) fn string(&mut self, what: &str) -> Result<String, GgufError> {
        let len = self.u64(what)?;
        if len > MAX_STRING_LEN {
            return Err(GgufError::LimitExceeded { what: format!("the length of {what}"), value: len, limit: MAX_STRING_LEN });
        }
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| GgufError::Corrupt { what: format!("{what} is not valid UTF-8") })
    }

    /// A value of GGUF type `ty`; `what` names it in errors, `depth` counts enclosing arrays.
    pub(super) fn value(&mut self, ty: u32, what: &str, depth: usize) -> Result<Value, GgufError> {
        Ok(match ty {
            0 => Value::U8(self.array::<1>(what)?[0]),
            1 => Value::I8(i8::from_le_bytes(self.array(what)?)),
            2 => Value::U16(u16::from_le_bytes(self.array(what)?)),
            3 => Value::I16(i16::from_le_bytes(self.array(what)?)),
            4 => Value::U32(self.u32(what)?),
            5 => Value::I32(i32::from_le_bytes(self.array(what)?)),
            6 => Value::F32(f32::from_le_bytes(self.array(what)?)),
            7 => Value::Bool(bool_from(self.array::<1>(what)?[0], what)?),
            8 => Value::String(self.string(what)?),
            9 => Value::Array(self.array_value(what, depth)?),
            10 => Value::U64(self.u64(what)?),
            11 => Value::I64(i64::from_le_bytes(self.array(what)?)),
            12 => Value::F64(f64::from_le_bytes(self.array(what)?)),
            id => return Err(unknown_type(id, what)),
        })
    }

    /// An array: element type, length, elements.
    fn array_value(&mut self, what: &str, depth: usize) -> Result<Array, GgufError> {
        if depth >= MAX_ARRAY_DEPTH {
            return Err(GgufError::LimitExceeded { what: format!("array nesting in {what}"), value: depth as u64 + 1, limit: MAX_ARRAY_DEPTH as u64 });
        }
        let ty = self.u32(what)?;
        let len = self.u64(what)?;
        if len > MAX_ARRAY_LEN {
            return Err(GgufError::LimitExceeded { what: format!("the length of {what}"), value: len, limit: MAX_ARRAY_LEN });
        }
        // Strings and arrays have 8- and 12-byte headers; everything else is fixed size.
        let min_size = match ty {
            0 | 1 | 7 => 1,
            2 | 3 => 2,
            4..=6 => 4,
            8 | 10..=12 => 8,
            9 => 12,
            id => return Err(unknown_type(id, what)),
        };
        self.check_fits(what, len, min_size)?;
        let n = len as usize;
        Ok(match ty {
            0 => Array::U8(self.take(len, what)?.to_vec()),
            1 => Array::I8(self.fixed(n, what, i8::from_le_bytes)?),
            2 => Array::U16(self.fixed(n, what, u16::from_le_bytes)?),
            3 => Array::I16(self.fixed(n, what, i16::from_le_bytes)?),
            4 => Array::U32(self.fixed(n, what, u32::from_le_bytes)?),
            5 => Array::I32(self.fixed(n, what, i32::from_le_bytes)?),
            6 => Array::F32(self.fixed(n, what, f32::from_le_bytes)?),
            7 => Array::Bool(self.take(len, what)?.iter().map(|&b| bool_from(b, what)).collect::<Result<_, _>>()?),
            8 => Array::String((0..n).map(|_| self.string(what)).collect::<Result<_, _>>()?),
            9 => Array::Array((0..n).map(|_| self.array_value(what, depth + 1)).collect::<Result<_, _>>()?),
            10 => Array::U64(self.fixed(n, what, u64::from_le_bytes)?),
            11 => Array::I64(self.fixed(n, what, i64::from_le_bytes)?),
            _ => Array::F64(self.fixed(n, what, f64::from_le_bytes)?),
        })
    }

    /// `n` fixed-size little-endian numbers.
    fn fixed<T, const N: usize>(&mut self, n: usize, what: &str, decode: fn([u8; N]) -> T) -> Result<Vec<T>, GgufError> {
        let bytes = self.take((n * N) as u64, what)?;
        Ok(bytes.as_chunks::<N>().0.iter().map(|c| decode(*c)).collect())
    }
}

fn bool_from(b: u8, what: &str) -> Result<bool, GgufError> {
    match b {
        0 => Ok(false),
        1 => Ok(true),
        other => Err(GgufError::Corrupt { what: format!("{what} holds {other} where a bool (0 or 1) belongs") }),
    }
}

fn unknown_type(id: u32, what: &str) -> GgufError {
    GgufError::Corrupt { what: format!("{what} has unknown value type {id}") }
}
