//! ggml tensor types and their block layouts, after llama.cpp's `ggml-quants.c`.
//!
//! A quantized row is a run of blocks; each block stores [`GgmlType::block_size`] values
//! in [`GgmlType::type_size`] bytes, little-endian, with `f16` scales.
//! The `dequantize_block_*` functions decode one block and are the building blocks
//! for a future quantized matmul; [`dequantize_row`] decodes a whole row of any supported type.

use std::fmt;

use half::{bf16, f16};

use super::GgufError;

/// Values per block of the 32-value formats (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0).
pub const QK: usize = 32;
/// Values per super-block of the K-quants (Q4_K, Q5_K, Q6_K).
pub const QK_K: usize = 256;
/// Size in bytes of the packed 6-bit scales and mins of Q4_K and Q5_K.
pub const K_SCALE_SIZE: usize = 12;

/// Bytes per Q4_0 block: `d`, 16 bytes of nibbles.
pub const Q4_0_BYTES: usize = 2 + QK / 2;
/// Bytes per Q4_1 block: `d`, `m`, 16 bytes of nibbles.
pub const Q4_1_BYTES: usize = 2 + 2 + QK / 2;
/// Bytes per Q5_0 block: `d`, 32 high bits, 16 bytes of nibbles.
pub const Q5_0_BYTES: usize = 2 + 4 + QK / 2;
/// Bytes per Q5_1 block: `d`, `m`, 32 high bits, 16 bytes of nibbles.
pub const Q5_1_BYTES: usize = 2 + 2 + 4 + QK / 2;
/// Bytes per Q8_0 block: `d`, 32 signed bytes.
pub const Q8_0_BYTES: usize = 2 + QK;
/// Bytes per Q4_K super-block: `d`, `dmin`, 12 bytes of scales, 128 bytes of nibbles.
pub const Q4_K_BYTES: usize = 2 + 2 + K_SCALE_SIZE + QK_K / 2;
/// Bytes per Q5_K super-block: `d`, `dmin`, scales, 32 bytes of high bits, 128 bytes of nibbles.
pub const Q5_K_BYTES: usize = 2 + 2 + K_SCALE_SIZE + QK_K / 8 + QK_K / 2;
/// Bytes per Q6_K super-block: 128 bytes of low nibbles, 64 of high bits, 16 signed scales, `d`.
pub const Q6_K_BYTES: usize = QK_K / 2 + QK_K / 4 + QK_K / 16 + 2;

/// A ggml tensor type as stored in GGUF tensor infos (`enum ggml_type`).
///
/// Every type llama.cpp can write is named, so that a file using one this runtime cannot
/// decode still parses and the error names the type; [`GgmlType::is_supported`] says which decode.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GgmlType {
    F32,
    F16,
    Q4_0,
    Q4_1,
    Q5_0,
    Q5_1,
    Q8_0,
    Q8_1,
    Q2_K,
    Q3_K,
    Q4_K,
    Q5_K,
    Q6_K,
    Q8_K,
    IQ2_XXS,
    IQ2_XS,
    IQ3_XXS,
    IQ1_S,
    IQ4_NL,
    IQ3_S,
    IQ2_S,
    IQ4_XS,
    I8,
    I16,
    I32,
    I64,
    F64,
    IQ1_M,
    BF16,
    TQ1_0,
    TQ2_0,
    MXFP4,
    NVFP4,
    Q1_0,
}

impl GgmlType {
    /// The types [`dequantize_row`] decodes, as named in error messages.
    pub const SUPPORTED_NAMES: &'static str = "F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K";

    /// The type with ggml id `id`, or `None` for an id no llama.cpp release has used.
    pub fn from_id(id: u32) -> Option<Self> {
        use GgmlType::*;
        Some(match id {
            0 => F32,
            1 => F16,
            2 => Q4_0,
            3 => Q4_1,
            6 => Q5_0,
            7 => Q5_1,
            8 => Q8_0,
            9 => Q8_1,
            10 => Q2_K,
            11 => Q3_K,
            12 => Q4_K,
            13 => Q5_K,
            14 => Q6_K,
            15 => Q8_K,
            16 => IQ2_XXS,
            17 => IQ2_XS,
            18 => IQ3_XXS,
            19 => IQ1_S,
            20 => IQ4_NL,
            21 => IQ3_S,
            22 => IQ2_S,
            23 => IQ4_XS,
            24 => I8,
            25 => I16,
            26 => I32,
            27 => I64,
            28 => F64,
            29 => IQ1_M,
            30 => BF16,
            34 => TQ1_0,
            35 => TQ2_0,
            39 => MXFP4,
            40 => NVFP4,
            41 => Q1_0,
            _ => return None,
        })
    }

    /// (ggml id, name, values per block, bytes per block), as in ggml's `type_traits`.
    const fn traits(self) -> (u32, &'static str, usize, usize) {
        use GgmlType::*;
        match self {
            F32 => (0, "F32", 1, 4),
            F16 => (1, "F16", 1, 2),
            Q4_0 => (2, "Q4_0", QK, Q4_0_BYTES),
            Q4_1 => (3, "Q4_1", QK, Q4_1_BYTES),
            Q5_0 => (6, "Q5_0", QK, Q5_0_BYTES),
            Q5_1 => (7, "Q5_1", QK, Q5_1_BYTES),
            Q8_0 => (8, "Q8_0", QK, Q8_0_BYTES),
            Q8_1 => (9, "Q8_1", QK, 36),
            Q2_K => (10, "Q2_K", QK_K, 84),
            Q3_K => (11, "Q3_K", QK_K, 110),
            Q4_K => (12, "Q4_K", QK_K, Q4_K_BYTES),
            Q5_K => (13, "Q5_K", QK_K, Q5_K_BYTES),
            Q6_K => (14, "Q6_K", QK_K, Q6_K_BYTES),
            Q8_K => (15, "Q8_K", QK_K, 292),
            IQ2_XXS => (16, "IQ2_XXS", QK_K, 66),
            IQ2_XS => (17, "IQ2_XS", QK_K, 74),
            IQ3_XXS => (18, "IQ3_XXS", QK_K, 98),
            IQ1_S => (19, "IQ1_S", QK_K, 50),
            IQ4_NL => (20, "IQ4_NL", QK, 18),
            IQ3_S => (21, "IQ3_S", QK_K, 110),
            IQ2_S => (22, "IQ2_S", QK_K, 82),
            IQ4_XS => (23, "IQ4_XS", QK_K, 136),
            I8 => (24, "I8", 1, 1),
            I16 => (25, "I16", 1, 2),
            I32 => (26, "I32", 1, 4),
            I64 => (27, "I64", 1, 8),
            F64 => (28, "F64", 1, 8),
            IQ1_M => (29, "IQ1_M", QK_K, 56),
            BF16 => (30, "BF16", 1, 2),
            TQ1_0 => (34, "TQ1_0", QK_K, 54),
            TQ2_0 => (35, "TQ2_0", QK_K, 66),
            MXFP4 => (39, "MXFP4", QK, 17),
            NVFP4 => (40, "NVFP4", 64, 36),
            Q1_0 => (41, "Q1_0", 128, 18),
        }
    }

    /// The ggml id written in GGUF tensor infos.
    pub const fn id(self) -> u32 {
        self.traits().0
    }

    /// The name llama.cpp uses, such as `Q4_K`.
    pub const fn name(self) -> &'static str {
        self.traits().1
    }

    /// Values per block; a row length must be a multiple of it.
    pub const fn block_size(self) -> usize {
        self.traits().2
    }

    /// Bytes per block.
    pub const fn type_size(self) -> usize {
        self.traits().3
    }

    /// Whether [`dequantize_row`] decodes this type.
    pub const fn is_supported(self) -> bool {
        use GgmlType::*;
        matches!(self, F32 | F16 | BF16 | Q8_0 | Q4_0 | Q4_1 | Q5_0 | Q5_1 | Q4_K | Q5_K | Q6_K)
    }
}

impl fmt::Display for GgmlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Decodes `bytes`, a whole number of blocks of type `ty`, into `out`, one value per element.
///
/// `out.len()` must be a multiple of the block size and `bytes.len()` exactly the matching
/// number of blocks; anything else, or an unsupported type, is an error, not a panic.
pub fn dequantize_row(ty: GgmlType, bytes: &[u8], out: &mut [f32]) -> Result<(), GgufError> {
    let (bs, ts) = (ty.block_size(), ty.type_size());
    if !out.len().is_multiple_of(bs) || bytes.len() != out.len() / bs * ts {
        return Err(GgufError::RowSize { ty, bytes: bytes.len(), outputs: out.len() });
    }
    match ty {
        GgmlType::F32 => blocks(bytes, out, |b: &[u8; 4], y: &mut [f32; 1]| y[0] = f32::from_le_bytes(*b)),
        GgmlType::F16 => blocks(bytes, out, |b: &[u8; 2], y: &mut [f32; 1]| y[0] = f16::from_le_bytes(*b).to_f32()),
        GgmlType::BF16 => blocks(bytes, out, |b: &[u8; 2], y: &mut [f32; 1]| y[0] = bf16::from_le_bytes(*b).to_f32()),
        GgmlType::Q4_0 => blocks(bytes, out, dequantize_block_q4_0),
        GgmlType::Q4_1 => blocks(bytes, out, dequantize_block_q4_1),
        GgmlType::Q5_0 => blocks(bytes, out, dequantize_block_q5_0),
        GgmlType::Q5_1 => blocks(bytes, out, dequantize_block_q5_1),
        GgmlType::Q8_0 => blocks(bytes, out, dequantize_block_q8_0),
        GgmlType::Q4_K => blocks(bytes, out, dequantize_block_q4_k),
        GgmlType::Q5_K => blocks(bytes, out, dequantize_block_q5_k),
        GgmlType::Q6_K => blocks(bytes, out, dequantize_block_q6_k),
        _ => return Err(GgufError::UnsupportedTensorType { name: "a row".into(), ty }),
    }
    Ok(())
}

/// Applies `f` to each `B`-byte block of `bytes` and its `N` outputs; lengths are checked by the caller.
fn blocks<const B: usize, const N: usize>(bytes: &[u8], out: &mut [f32], f: impl Fn(&[u8; B], &mut [f32; N])) {
    let (input, _) = bytes.as_chunks::<B>();
    let (output, _) = out.as_chunks_mut::<N>();
    for (b, y) in input.iter().zip(output) {
        f(b, y);
    }
}

fn f16_at(b: &[u8], i: usize) -> f32 {
    f16::from_le_bytes([b[i], b[i + 1]]).to_f32()
}

/// Q4_0: `d`, then 32 4-bit values, low nibbles first; `y = (q - 8) * d`.
pub fn dequantize_block_q4_0(b: &[u8; Q4_0_BYTES], y: &mut [f32; QK]) {
    let d = f16_at(b, 0);
    for (j, &q) in b[2..].iter().enumerate() {
        y[j] = ((q & 0x0F) as i32 - 8) as f32 * d;
        y[j + QK / 2] = ((q >> 4) as i32 - 8) as f32 * d;
    }
}

/// Q4_1: `d`, `m`, then 32 4-bit values; `y = q * d + m`.
pub fn dequantize_block_q4_1(b: &[u8; Q4_1_BYTES], y: &mut [f32; QK]) {
    let (d, m) = (f16_at(b, 0), f16_at(b, 2));
    for (j, &q) in b[4..].iter().enumerate() {
        y[j] = (q & 0x0F) as f32 * d + m;
        y[j + QK / 2] = (q >> 4) as f32 * d + m;
    }
}

/// Q5_0: `d`, 32 fifth bits `qh`, then 32 low nibbles; `y = (q - 16) * d`.
pub fn dequantize_block_q5_0(b: &[u8; Q5_0_BYTES], y: &mut [f32; QK]) {
    let d = f16_at(b, 0);
    let qh = u32::from_le_bytes([b[2], b[3], b[4], b[5]]);
    for (j, &q) in b[6..].iter().enumerate() {
        let h0 = ((qh >> j) << 4) & 0x10;
        let h1 = (qh >> (j + 12)) & 0x10;
        y[j] = (((q & 0x0F) as u32 | h0) as i32 - 16) as f32 * d;
        y[j + QK / 2] = (((q >> 4) as u32 | h1) as i32 - 16) as f32 * d;
    }
}

/// Q5_1: `d`, `m`, 32 fifth bits `qh`, then 32 low nibbles; `y = q * d + m`.
pub fn dequantize_block_q5_1(b: &[u8; Q5_1_BYTES], y: &mut [f32; QK]) {
    let (d, m) = (f16_at(b, 0), f16_at(b, 2));
    let qh = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    for (j, &q) in b[8..].iter().enumerate() {
        let h0 = ((qh >> j) << 4) & 0x10;
        let h1 = (qh >> (j + 12)) & 0x10;
        y[j] = ((q & 0x0F) as u32 | h0) as f32 * d + m;
        y[j + QK / 2] = ((q >> 4) as u32 | h1) as f32 * d + m;
    }
}

/// Q8_0: `d`, then 32 signed bytes; `y = q * d`.
pub fn dequantize_block_q8_0(b: &[u8; Q8_0_BYTES], y: &mut [f32; QK]) {
    let d = f16_at(b, 0);
    for (y, &q) in y.iter_mut().zip(&b[2..]) {
        *y = q as i8 as f32 * d;
    }
}

/// Scale and min of sub-block `j` (0..8) from the 12 packed 6-bit values of Q4_K and Q5_K
/// (`get_scale_min_k4` in llama.cpp).
pub fn get_scale_min_k4(j: usize, q: &[u8; K_SCALE_SIZE]) -> (u8, u8) {
    if j < 4 {
        (q[j] & 63, q[j + 4] & 63)
    } else {
        ((q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4), (q[j + 4] >> 4) | ((q[j] >> 6) << 4))
    }
}

fn k_scales(b: &[u8]) -> &[u8; K_SCALE_SIZE] {
    b[4..4 + K_SCALE_SIZE].try_into().expect("12 scale bytes")
}

/// Q4_K: `d`, `dmin`, packed scales, 128 bytes of nibbles; eight sub-blocks of 32 with
/// `y = d * scale * q - dmin * min`.
pub fn dequantize_block_q4_k(b: &[u8; Q4_K_BYTES], y: &mut [f32; QK_K]) {
    let (d, dmin) = (f16_at(b, 0), f16_at(b, 2));
    let scales = k_scales(b);
    let qs = &b[4 + K_SCALE_SIZE..];
    for (chunk, (q, y)) in qs.chunks_exact(32).zip(y.chunks_exact_mut(64)).enumerate() {
        let (sc1, m1) = get_scale_min_k4(2 * chunk, scales);
        let (sc2, m2) = get_scale_min_k4(2 * chunk + 1, scales);
        let (d1, m1) = (d * sc1 as f32, dmin * m1 as f32);
        let (d2, m2) = (d * sc2 as f32, dmin * m2 as f32);
        for l in 0..32 {
            y[l] = d1 * (q[l] & 0x0F) as f32 - m1;
            y[l + 32] = d2 * (q[l] >> 4) as f32 - m2;
        }
    }
}

/// Q5_K: like Q4_K with a fifth bit per value from `qh` (two bits of each `qh` byte per 64 values).
pub fn dequantize_block_q5_k(b: &[u8; Q5_K_BYTES], y: &mut [f32; QK_K]) {
    let (d, dmin) = (f16_at(b, 0), f16_at(b, 2));
    let scales = k_scales(b);
    let qh = &b[4 + K_SCALE_SIZE..4 + K_SCALE_SIZE + QK_K / 8];
    let qs = &b[4 + K_SCALE_SIZE + QK_K / 8..];
    for (chunk, (ql, y)) in qs.chunks_exact(32).zip(y.chunks_exact_mut(64)).enumerate() {
        let (sc1, m1) = get_scale_min_k4(2 * chunk, scales);
        let (sc2, m2) = get_scale_min_k4(2 * chunk + 1, scales);
        let (d1, m1) = (d * sc1 as f32, dmin * m1 as f32);
        let (d2, m2) = (d * sc2 as f32, dmin * m2 as f32);
        let (u1, u2) = (1u8 << (2 * chunk), 2u8 << (2 * chunk));
        for l in 0..32 {
            let h1 = if qh[l] & u1 != 0 { 16 } else { 0 };
            let h2 = if qh[l] & u2 != 0 { 16 } else { 0 };
            y[l] = d1 * ((ql[l] & 0x0F) + h1) as f32 - m1;
            y[l + 32] = d2 * ((ql[l] >> 4) + h2) as f32 - m2;
        }
    }
}

/// Q6_K: 128 bytes of low nibbles `ql`, 64 bytes of high bit pairs `qh`, 16 signed scales, `d`;
/// `y = d * scale * (q - 32)` over sixteen sub-blocks of 16.
pub fn dequantize_block_q6_k(b: &[u8; Q6_K_BYTES], y: &mut [f32; QK_K]) {
    let (ql, rest) = b.split_at(QK_K / 2);
    let (qh, rest) = rest.split_at(QK_K / 4);
    let (sc, d) = rest.split_at(QK_K / 16);
    let d = f16_at(d, 0);
    for n in 0..2 {
        let (ql, qh, sc) = (&ql[64 * n..], &qh[32 * n..], &sc[8 * n..]);
        let y = &mut y[128 * n..];
        for l in 0..32 {
            let is = l / 16;
            let q1 = ((ql[l] & 0x0F) | ((qh[l] & 3) << 4)) as i32 - 32;
            let q2 = ((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) as i32 - 32;
            let q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) as i32 - 32;
            let q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) as i32 - 32;
            y[l] = d * sc[is] as i8 as f32 * q1 as f32;
            y[l + 32] = d * sc[is + 2] as i8 as f32 * q2 as f32;
            y[l + 64] = d * sc[is + 4] as i8 as f32 * q3 as f32;
            y[l + 96] = d * sc[is + 6] as i8 as f32 * q4 as f32;
        }
    }
}
