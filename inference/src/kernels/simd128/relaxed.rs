//! Relaxed SIMD's integer dot product (`i32x4.relaxed_dot_i8x16_i7x16_add_s`: sixteen signed
//! bytes times sixteen 7-bit ones, summed by fours into four i32 lanes, plus an accumulator),
//! in the build made with the crate's `relaxed-simd` feature (Chrome ≥ 114; the page loads that
//! build only where the browser validates the instruction, `app/threaded/worker_loader.js`).
//! Every function here is compiled with `relaxed-simd` enabled, so the rest of the program (and
//! every other crate) stays SIMD128 only.
//!
//! One instruction does what SIMD128 needs four or five for (two widening multiplies, two
//! pairwise adds): sixteen products per instruction instead of eight (`i32x4.dot_i16x8_s`, the
//! batch kernels of [`super`]) or of ~3.5 (the one-token kernels of [`super::super::dot`]).
//! The 7-bit operand must lie in 0..=127 for the result to be the same on every CPU (x86's
//! `pmaddubsw` reads it unsigned), so it is always the side that is known to be small:
//! - the weights, unpacked without their offset (Q4_0 and Q4_K 0..=15, Q5_0 0..=31, Q6_K
//!   0..=63); the offset times the activations' sum is taken off in integers (Q4_0: 8, Q5_0:
//!   16 per block of 32; Q6_K: 32 per sub-block of 16, times its scale);
//! - Q8_0's weights are signed bytes, so the activations are the 7-bit side: split into their
//!   positive and negative parts (both 0..=127: the quantizer keeps |q| ≤ 127), two products
//!   subtracted.
//!
//! Every block's integer sum is exact, so results equal the other kernels' up to f32 rounding
//! (per block `f32(sum) · d · dy`, summed in four lanes), as wasm's other kernels do.

use super::super::act::{BlockQ8_0, BlockQ8K};
use super::super::dot::f16_bits;
use super::{G, Row, load8, scaled as scaled8, store8};
use crate::gguf::GgmlType;
use crate::gguf::quant::{K_SCALE_SIZE, Q4_0_BYTES, Q4_K_BYTES, Q5_0_BYTES, Q6_K_BYTES, Q8_0_BYTES, QK, QK_K, get_scale_min_k4};
use core::arch::wasm32::*;

/// `Σ_{4 bytes} a·b + c` per i32 lane; `b` in 0..=127.
#[inline]
#[target_feature(enable = "relaxed-simd")]
fn dot(a: v128, b: v128, c: v128) -> v128 {
    i32x4_relaxed_dot_i8x16_i7x16_add(a, b, c)
}

/// `dot(a0, b0, dot(a1, b1, c))` by the 16-bit form (see [`quad_sums`]): the two products'
/// pairs summed in i16 and widened once; `b0`, `b1` in 0..=63.
#[inline]
#[target_feature(enable = "relaxed-simd")]
fn dot2(a0: v128, b0: v128, a1: v128, b1: v128, c: v128) -> v128 {
    let pairs = i16x8_add(i16x8_relaxed_dot_i8x16_i7x16(a0, b0), i16x8_relaxed_dot_i8x16_i7x16(a1, b1));
    i32x4_add(c, i32x4_extadd_pairwise_i16x8(pairs))
}

#[inline]
#[target_feature(enable = "relaxed-simd")]
fn load(b: &[u8]) -> v128 {
    assert!(b.len() >= 16);
    // SAFETY: 16 bytes (asserted); wasm allows unaligned loads.
    unsafe { v128_load(b.as_ptr() as *const v128) }
}

#[inline]
#[target_feature(enable = "relaxed-simd")]
fn load_i8(b: &[i8]) -> v128 {
    assert!(b.len() >= 16);
    // SAFETY: as `load`.
    unsafe { v128_load(b.as_ptr() as *const v128) }
}

#[inline]
#[target_feature(enable = "relaxed-simd")]
fn f16(b: &[u8], i: usize) -> f32 {
    f16_bits(u16::from_le_bytes([b[i], b[i + 1]]))
}

#[inline]
#[target_feature(enable = "relaxed-simd")]
fn hsum(v: v128) -> f32 {
    (f32x4_extract_lane::<0>(v) + f32x4_extract_lane::<2>(v)) + (f32x4_extract_lane::<1>(v) + f32x4_extract_lane::<3>(v))
}

/// `acc + f32(s) · scale`, four lanes.
#[inline]
#[target_feature(enable = "relaxed-simd")]
fn scaled(acc: v128, s: v128, scale: f32) -> v128 {
    f32x4_add(acc, f32x4_mul(f32x4_convert_i32x4(s), f32x4_splat(scale)))
}

/// Whether one token's matmul with weights of `ty` takes these kernels.
pub fn takes_one(ty: GgmlType) -> bool {
    use GgmlType::*;
    matches!(ty, Q4_0 | Q5_0 | Q8_0 | Q4_K | Q6_K)
}

/// One token's Q8_0 activations made ready for a weight type, once per matmul.
pub enum OneToken {
    /// Q4_0, Q5_0: per block, the offset's share of each lane (`−offset · Σ` of the four
    /// values of the two halves that lane sums), the dot product's starting accumulator.
    Offset(Vec<v128>),
    /// Q8_0: per block, the positive and the negative parts of its two halves.
    Split(Vec<[v128; 4]>),
    /// Q4_K, Q6_K: the Q8_K activations as they are (their 16-sums are in the blocks).
    K,
}

impl OneToken {
    /// For weights of `ty` and the token's Q8_0 blocks `y` (empty for Q8_K activations).
    #[target_feature(enable = "relaxed-simd")]
    pub fn new(ty: GgmlType, y: &[BlockQ8_0]) -> OneToken {
        use GgmlType::*;
        let ones = i8x16_splat(1);
        match ty {
            Q4_0 | Q5_0 => {
                let offset = i32x4_splat(if ty == Q4_0 { -8 } else { -16 });
                OneToken::Offset(
                    y.iter().map(|b| i32x4_mul(offset, dot(load_i8(&b.qs), ones, dot(load_i8(&b.qs[16..]), ones, i32x4_splat(0))))).collect(),
                )
            }
            Q8_0 => OneToken::Split(
                y.iter()
                    .map(|b| {
                        let (y0, y1) = (load_i8(&b.qs), load_i8(&b.qs[16..]));
                        let zero = i8x16_splat(0);
                        [i8x16_max(y0, zero), i8x16_max(y1, zero), i8x16_max(i8x16_neg(y0), zero), i8x16_max(i8x16_neg(y1), zero)]
                    })
                    .collect(),
            ),
            _ => OneToken::K,
        }
    }
}

/// Rows `r0..` of a `ty` matrix times one token into `out` (one value per row).
#[target_feature(enable = "relaxed-simd")]
pub fn one_token_rows<'w>(
    ty: GgmlType,
    row_bytes: impl Fn(usize) -> &'w [u8],
    y: &[BlockQ8_0],
    yk: &[BlockQ8K],
    one: &OneToken,
    r0: usize,
    out: &mut [f32],
) {
    match (ty, one) {
        (GgmlType::Q4_0, OneToken::Offset(c)) => out.iter_mut().enumerate().for_each(|(i, o)| *o = row_q4_0(row_bytes(r0 + i), y, c)),
        (GgmlType::Q5_0, OneToken::Offset(c)) => out.iter_mut().enumerate().for_each(|(i, o)| *o = row_q5_0(row_bytes(r0 + i), y, c)),
        (GgmlType::Q8_0, OneToken::Split(s)) => out.iter_mut().enumerate().for_each(|(i, o)| *o = row_q8_0(row_bytes(r0 + i), y, s)),
        (GgmlType::Q4_K, OneToken::K) => out.iter_mut().enumerate().for_each(|(i, o)| *o = row_q4_k(row_bytes(r0 + i), yk)),
        (GgmlType::Q6_K, OneToken::K) => out.iter_mut().enumerate().for_each(|(i, o)| *o = row_q6_k(row_bytes(r0 + i), yk)),
        (ty, _) => unreachable!("{ty:?}: activations made ready for another type"),
    }
}

#[inline]
#[target_feature(enable = "relaxed-simd")]
fn row_q4_0(w: &[u8], y: &[BlockQ8_0], c: &[v128]) -> f32 {
    let mask = u8x16_splat(0x0F);
    let mut acc = f32x4_splat(0.0);
    for ((b, y), &c) in w.as_chunks::<Q4_0_BYTES>().0.iter().zip(y).zip(c) {
        let q = load(&b[2..]);
        let s = dot2(load_i8(&y.qs), v128_and(q, mask), load_i8(&y.qs[16..]), u8x16_shr(q, 4), c);
        acc = scaled(acc, s, f16(b, 0) * y.d);
    }
    hsum(acc)
}

/// Q5_0's 32 values (0..=31) of a block: nibbles of `qs` and fifth bits of `qh`, as two vectors.
#[inline]
#[target_feature(enable = "relaxed-simd")]
fn q5_unsigned(b: &[u8]) -> (v128, v128) {
    let qh = u32::from_le_bytes([b[2], b[3], b[4], b[5]]);
    let q = load(&b[6..]);
    let all = u32x4_splat(qh);
    let mask = u64x2_splat(0x7fbf_dfef_f7fb_fdfe);
    // Each bit of `qh` spread to its byte: the byte of `qh` holding it, all other bits set,
    // compared with 0xFF.
    let bits = |sel: v128| v128_and(i8x16_eq(v128_or(i8x16_swizzle(all, sel), mask), u8x16_splat(0xFF)), u8x16_splat(0x10));
    let b0 = bits(u8x16(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1));
    let b1 = bits(u8x16(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
    (v128_or(v128_and(q, u8x16_splat(0x0F)), b0), v128_or(u8x16_shr(q, 4), b1))
}

#[inline]
#[target_feature(enable = "relaxed-simd")]
fn row_q5_0(w: &[u8], y: &[BlockQ8_0], c: &[v128]) -> f32 {
    let mut acc = f32x4_splat(0.0);
    for ((b, y), &c) in w.as_chunks::<Q5_0_BYTES>().0.iter().zip(y).zip(c) {
        let (lo, hi) = q5_unsigned(b);
        let s = dot2(load_i8(&y.qs), lo, load_i8(&y.qs[16..]), hi, c);
        acc = scaled(acc, s, f16(b, 0) * y.d);
    }
    hsum(acc)
}

#[inline]
#[target_feature(enable = "relaxed-simd")]
fn row_q8_0(w: &[u8], y: &[BlockQ8_0], split: &[[v128; 4]]) -> f32 {
    let mut acc = f32x4_splat(0.0);
    for ((b, y), [p0, p1, n0, n1]) in w.as_chunks::<Q8_0_BYTES>().0.iter().zip(y).zip(split) {
        let (w0, w1) = (load(&b[2..]), load(&b[18..]));
        let zero = i32x4_splat(0);
        let s = i32x4_sub(dot(w0, *p0, dot(w1, *p1, zero)), dot(w0, *n0, dot(w1, *n1, zero)));
        acc = scaled(acc, s, f16(b, 0) * y.d);
    }
    hsum(acc)
}

/// Q4_K: per super-block `f32(Σ_j sc_j · Σ q·y) · d·dy`, less `f32(Σ_j m_j · Σ y) · dmin·dy`
/// summed apart and subtracted last.
#[inline]
#[target_feature(enable = "relaxed-simd")]
fn row_q4_k(w: &[u8], y: &[BlockQ8K]) -> f32 {
    let mask = u8x16_splat(0x0F);
    let (mut acc, mut acc_min) = (f32x4_splat(0.0), 0.0f32);
    for (b, y) in w.as_chunks::<Q4_K_BYTES>().0.iter().zip(y) {
        let packed: &[u8; K_SCALE_SIZE] = b[4..4 + K_SCALE_SIZE].try_into().expect("12 scale bytes");
        let qs = &b[4 + K_SCALE_SIZE..];
        let (mut s, mut mins) = (i32x4_splat(0), 0i32);
        for c in 0..QK_K / 64 {
            let (sl, ml) = get_scale_min_k4(2 * c, packed);
            let (sh, mh) = get_scale_min_k4(2 * c + 1, packed);
            let (q0, q1) = (load(&qs[32 * c..]), load(&qs[32 * c + 16..]));
            let yq = &y.qs[64 * c..];
            let lo = dot2(load_i8(yq), v128_and(q0, mask), load_i8(&yq[16..]), v128_and(q1, mask), i32x4_splat(0));
            let hi = dot2(load_i8(&yq[32..]), u8x16_shr(q0, 4), load_i8(&yq[48..]), u8x16_shr(q1, 4), i32x4_splat(0));
            s = i32x4_add(s, i32x4_add(i32x4_mul(lo, i32x4_splat(sl as i32)), i32x4_mul(hi, i32x4_splat(sh as i32))));
            let bs = &y.bsums[4 * c..];
            mins += ml as i32 * (bs[0] as i32 + bs[1] as i32) + mh as i32 * (bs[2] as i32 + bs[3] as i32);
        }
        acc = scaled(acc, s, f16(b, 0) * y.d);
        acc_min += mins as f32 * (f16(b, 2) * y.d);
    }
    hsum(acc) - acc_min
}

/// Q6_K's 256 values (0..=63) of a super-block in sixteen vectors, sub-block `l` in `v[l]`.
#[inline]
#[target_feature(enable = "relaxed-simd")]
fn q6_unsigned(b: &[u8]) -> [v128; 16] {
    let (ql, qh) = (&b[..QK_K / 2], &b[QK_K / 2..QK_K / 2 + QK_K / 4]);
    let (m4, m30) = (u8x16_splat(0x0F), u8x16_splat(0x30));
    let mut v = [i32x4_splat(0); 16];
    for n in 0..2 {
        for h in 0..2 {
            let (l0, l1, hb) = (load(&ql[64 * n + 16 * h..]), load(&ql[64 * n + 32 + 16 * h..]), load(&qh[32 * n + 16 * h..]));
            // Shifts of 16-bit lanes: the masks keep each byte's own bits.
            v[8 * n + h] = v128_or(v128_and(l0, m4), v128_and(u16x8_shl(hb, 4), m30));
            v[8 * n + 2 + h] = v128_or(v128_and(l1, m4), v128_and(u16x8_shl(hb, 2), m30));
            v[8 * n + 4 + h] = v128_or(v128_and(u16x8_shr(l0, 4), m4), v128_and(hb, m30));
            v[8 * n + 6 + h] = v128_or(v128_and(u16x8_shr(l1, 4), m4), v128_and(u16x8_shr(hb, 2), m30));
        }
    }
    v
}

/// Q6_K: per super-block `f32(Σ_l sc_l · Σ (q − 32)·y) · d·dy`, the offset taken off as
/// `32 · Σ_l sc_l · bsum_l`.
#[inline]
#[target_feature(enable = "relaxed-simd")]
fn row_q6_k(w: &[u8], y: &[BlockQ8K]) -> f32 {
    let mut acc = f32x4_splat(0.0);
    for (b, y) in w.as_chunks::<Q6_K_BYTES>().0.iter().zip(y) {
        let sc = &b[QK_K / 2 + QK_K / 4..][..QK_K / 16];
        let q = q6_unsigned(b);
        let offset: i32 = sc.iter().zip(&y.bsums).map(|(&s, &bs)| s as i8 as i32 * bs as i32).sum();
        let mut s = i32x4(-32 * offset, 0, 0, 0);
        for (l, q) in q.iter().enumerate() {
            s = i32x4_add(s, i32x4_mul(dot(load_i8(&y.qs[16 * l..]), *q, i32x4_splat(0)), i32x4_splat(sc[l] as i8 as i32)));
        }
        acc = scaled(acc, s, f16(b, QK_K / 2 + QK_K / 4 + QK_K / 16) * y.d);
    }
    hsum(acc)
}

/// Whether a prompt's matmul (`n` ≥ 4 tokens) with weights of `ty` takes [`rows`]; Q8_0's signed
/// weights stay on [`super`]'s 16-bit kernels.
pub fn takes(ty: GgmlType, n: usize) -> bool {
    use GgmlType::*;
    n >= 4 && matches!(ty, Q4_0 | Q5_0 | Q4_K | Q6_K)
}

/// The activations of `n` tokens (`bpr` blocks each) as bytes interleaved by fours of values,
/// four tokens per vector, by groups of [`G`] tokens (the last group padded with zeros, scale
/// 0), with their sums by sixteens (for the weights' offsets and Q4_K's mins).
pub struct Packed {
    groups: usize,
    bpr: usize,
    /// Values per block: 32 (Q8_0) or 256 (Q8_K).
    block: usize,
    /// `[group][block][four values][token][4]`.
    values: Vec<i8>,
    /// `[group][block][token]`: the activation block's scale.
    scales: Vec<f32>,
    /// `[group][block][sixteen values][token]`: their sum.
    sums: Vec<i32>,
}

impl Packed {
    pub fn q8_0(a: &[BlockQ8_0], n: usize, bpr: usize) -> Packed {
        let mut p = Packed::empty(n, bpr, QK);
        for t in 0..n {
            for b in 0..bpr {
                let y = &a[t * bpr + b];
                let sums = [y.qs[..16].iter().map(|&v| v as i32).sum(), y.qs[16..].iter().map(|&v| v as i32).sum()];
                p.put(t, b, &y.qs, y.d, &sums);
            }
        }
        p
    }

    pub fn q8_k(a: &[BlockQ8K], n: usize, bpr: usize) -> Packed {
        let mut p = Packed::empty(n, bpr, QK_K);
        for t in 0..n {
            for b in 0..bpr {
                let y = &a[t * bpr + b];
                p.put(t, b, &y.qs, y.d, &y.bsums.map(i32::from));
            }
        }
        p
    }

    fn empty(n: usize, bpr: usize, block: usize) -> Packed {
        let groups = n.div_ceil(G);
        Packed {
            groups,
            bpr,
            block,
            values: vec![0; groups * bpr * block * G],
            scales: vec![0.0; groups * bpr * G],
            sums: vec![0; groups * bpr * (block / 16) * G],
        }
    }

    /// Token `t`'s block `b`: its values `qs`, scale `d` and sums by sixteens.
    fn put(&mut self, t: usize, b: usize, qs: &[i8], d: f32, sums: &[i32]) {
        let (g, k) = (t / G, t % G);
        let at = (g * self.bpr + b) * self.block * G;
        self.scales[(g * self.bpr + b) * G + k] = d;
        for (q, four) in qs.chunks_exact(4).enumerate() {
            self.values[at + q * 4 * G + 4 * k..][..4].copy_from_slice(four);
        }
        let s16 = self.block / 16;
        for (j, &s) in sums.iter().enumerate() {
            self.sums[((g * self.bpr + b) * s16 + j) * G + k] = s;
        }
    }

    fn group_values(&self, g: usize) -> &[i8] {
        &self.values[g * self.bpr * self.block * G..][..self.bpr * self.block * G]
    }

    /// Bytes one group's values take.
    fn group_bytes(&self) -> usize {
        self.bpr * self.block * G
    }
}

/// A weight row unpacked to unsigned bytes, the offset left on.
impl Row<u8> {
    #[target_feature(enable = "relaxed-simd")]
    fn store(&mut self, at: usize, v: v128) {
        assert!(at + 16 <= self.values.len());
        // SAFETY: 16 bytes in bounds (asserted); unaligned stores are allowed.
        unsafe { v128_store(self.values.as_mut_ptr().add(at) as *mut v128, v) }
    }

    #[target_feature(enable = "relaxed-simd")]
    fn unpack(&mut self, ty: GgmlType, row: &[u8]) {
        let mask = u8x16_splat(0x0F);
        match ty {
            GgmlType::Q4_0 => {
                for (i, b) in row.chunks_exact(Q4_0_BYTES).enumerate() {
                    self.d[i] = f16(b, 0);
                    let q = load(&b[2..]);
                    self.store(i * QK, v128_and(q, mask));
                    self.store(i * QK + 16, u8x16_shr(q, 4));
                }
            }
            GgmlType::Q5_0 => {
                for (i, b) in row.chunks_exact(Q5_0_BYTES).enumerate() {
                    self.d[i] = f16(b, 0);
                    let (lo, hi) = q5_unsigned(b);
                    self.store(i * QK, lo);
                    self.store(i * QK + 16, hi);
                }
            }
            GgmlType::Q4_K => {
                for (i, b) in row.chunks_exact(Q4_K_BYTES).enumerate() {
                    (self.d[i], self.dmin[i]) = (f16(b, 0), f16(b, 2));
                    let packed: &[u8; K_SCALE_SIZE] = b[4..4 + K_SCALE_SIZE].try_into().expect("12 scale bytes");
                    for j in 0..QK_K / QK {
                        let (s, m) = get_scale_min_k4(j, packed);
                        (self.scales[i * 16 + j], self.mins[i * 8 + j]) = (s as i32, m as i32);
                    }
                    let qs = &b[4 + K_SCALE_SIZE..];
                    for c in 0..QK_K / 64 {
                        let (q0, q1) = (load(&qs[32 * c..]), load(&qs[32 * c + 16..]));
                        let at = i * QK_K + 64 * c;
                        self.store(at, v128_and(q0, mask));
                        self.store(at + 16, v128_and(q1, mask));
                        self.store(at + 32, u8x16_shr(q0, 4));
                        self.store(at + 48, u8x16_shr(q1, 4));
                    }
                }
            }
            GgmlType::Q6_K => {
                for (i, b) in row.chunks_exact(Q6_K_BYTES).enumerate() {
                    self.d[i] = f16(b, QK_K / 2 + QK_K / 4 + QK_K / 16);
                    for (s, &c) in self.scales[i * 16..][..16].iter_mut().zip(&b[QK_K / 2 + QK_K / 4..]) {
                        *s = c as i8 as i32;
                    }
                    for (l, v) in q6_unsigned(b).into_iter().enumerate() {
                        self.store(i * QK_K + 16 * l, v);
                    }
                }
            }
            ty => unreachable!("{ty:?} has no kernel here ({:?})", takes(ty, G)),
        }
    }
}

/// Rows `r0..` of a `ty` matrix (row `r`'s bytes from `row_bytes`) times the packed tokens into
/// `out` (`rows × n`, row-major).
#[target_feature(enable = "relaxed-simd")]
pub fn rows<'w>(ty: GgmlType, row_bytes: impl Fn(usize) -> &'w [u8], p: &Packed, n: usize, r0: usize, out: &mut [f32]) {
    let row = &mut Row::<u8>::new(p.bpr, p.block);
    super::chunked(
        p.groups,
        p.group_bytes(),
        n,
        out,
        row,
        |row, r| row.unpack(ty, row_bytes(r0 + r)),
        |row, g| match ty {
            GgmlType::Q4_K => group_q4_k(row, p, g),
            GgmlType::Q6_K => group_q6_k(row, p, g),
            GgmlType::Q4_0 => group_q8_0(row, p, g, -8),
            _ => group_q8_0(row, p, g, -16),
        },
    );
}

/// Σ over `quads` fours of unsigned weights from `w` of four · activations, for the two vectors
/// of four tokens at `y` (`quads × 32` bytes), added to `(lo, hi)`: exact i32 sums.
///
/// By the 16-bit form of the dot product (`i16x8.relaxed_dot_i8x16_i7x16_s`: pairs of products
/// summed into i16 lanes, two per token), `RUN` fours at a time summed in i16 and then widened:
/// on x86 without AVX-VNNI the 32-bit form is `pmaddubsw` + `pmaddwd` by ones + add, so most of
/// its cost is the widening, here done once per run (measured in Chromium on a VNNI-less x86:
/// docs/BENCHMARKS.md). A pair is at most 2 · 127 · the weights' largest value, so
/// `RUN` · that must stay below 2¹⁵: 8 for 0..=15, 4 for 0..=31, 2 for 0..=63.
#[inline]
#[target_feature(enable = "relaxed-simd")]
fn quad_sums<const RUN: usize>(w: &[u8], y: &[i8], quads: usize, (mut lo, mut hi): (v128, v128)) -> (v128, v128) {
    assert!(w.len() >= 4 * quads && y.len() >= quads * 4 * G && quads.is_multiple_of(RUN));
    for r in (0..quads).step_by(RUN) {
        let (mut l16, mut h16) = (i16x8_splat(0), i16x8_splat(0));
        for q in r..r + RUN {
            // SAFETY: in bounds (asserted above); wasm allows unaligned loads.
            unsafe {
                let four = v128_load32_splat(w.as_ptr().add(4 * q) as *const u32);
                let y = y.as_ptr().add(q * 4 * G);
                l16 = i16x8_add(l16, i16x8_relaxed_dot_i8x16_i7x16(v128_load(y as *const v128), four));
                h16 = i16x8_add(h16, i16x8_relaxed_dot_i8x16_i7x16(v128_load(y.add(16) as *const v128), four));
            }
        }
        lo = i32x4_add(lo, i32x4_extadd_pairwise_i16x8(l16));
        hi = i32x4_add(hi, i32x4_extadd_pairwise_i16x8(h16));
    }
    (lo, hi)
}

/// Q4_0 and Q5_0: per block of 32 and token, `f32(Σ q·y + offset·Σ y) · (d·dy)`.
#[inline]
#[target_feature(enable = "relaxed-simd")]
fn group_q8_0(w: &Row<u8>, p: &Packed, g: usize, offset: i32) -> [f32; G] {
    let (values, scales) = (p.group_values(g), &p.scales[g * p.bpr * G..][..p.bpr * G]);
    let sums = &p.sums[g * p.bpr * 2 * G..][..p.bpr * 2 * G];
    let (mut lo, mut hi) = (f32x4_splat(0.0), f32x4_splat(0.0));
    let (four_bits, offset) = (offset == -8, i32x4_splat(offset));
    for b in 0..p.bpr {
        let ((s0l, s0h), (s1l, s1h)) = (load8(&sums[2 * b * G..]), load8(&sums[(2 * b + 1) * G..]));
        let start = (i32x4_mul(i32x4_add(s0l, s1l), offset), i32x4_mul(i32x4_add(s0h, s1h), offset));
        let (wv, y) = (&w.values[b * QK..], &values[b * QK * G..]);
        let (sl, sh) = if four_bits { quad_sums::<8>(wv, y, QK / 4, start) } else { quad_sums::<4>(wv, y, QK / 4, start) };
        let (dl, dh) = load8(&scales[b * G..]);
        (lo, hi) = (scaled8(lo, sl, w.d[b], dl), scaled8(hi, sh, w.d[b], dh));
    }
    store8(lo, hi)
}

/// Q4_K: per super-block and token, `f32(Σ_j sc_j·Σ q·y) · (d·dy)` less
/// `f32(Σ_j m_j·Σ y) · (dmin·dy)` (the two summed apart and subtracted last, as ggml does).
#[inline]
#[target_feature(enable = "relaxed-simd")]
fn group_q4_k(w: &Row<u8>, p: &Packed, g: usize) -> [f32; G] {
    let (values, scales) = (p.group_values(g), &p.scales[g * p.bpr * G..][..p.bpr * G]);
    let sums = &p.sums[g * p.bpr * 16 * G..][..p.bpr * 16 * G];
    let zero = (i32x4_splat(0), i32x4_splat(0));
    let (mut lo, mut hi, mut lo_min, mut hi_min) = (f32x4_splat(0.0), f32x4_splat(0.0), f32x4_splat(0.0), f32x4_splat(0.0));
    for b in 0..p.bpr {
        let (wv, y) = (&w.values[b * QK_K..][..QK_K], &values[b * QK_K * G..][..QK_K * G]);
        let (mut al, mut ah, mut ml, mut mh) = (i32x4_splat(0), i32x4_splat(0), i32x4_splat(0), i32x4_splat(0));
        for j in 0..QK_K / QK {
            let (sl, sh) = quad_sums::<8>(&wv[j * QK..], &y[j * QK * G..], QK / 4, zero);
            let (sc, m) = (i32x4_splat(w.scales[b * 16 + j]), i32x4_splat(w.mins[b * 8 + j]));
            (al, ah) = (i32x4_add(al, i32x4_mul(sl, sc)), i32x4_add(ah, i32x4_mul(sh, sc)));
            let ((y0l, y0h), (y1l, y1h)) = (load8(&sums[(b * 16 + 2 * j) * G..]), load8(&sums[(b * 16 + 2 * j + 1) * G..]));
            (ml, mh) = (i32x4_add(ml, i32x4_mul(i32x4_add(y0l, y1l), m)), i32x4_add(mh, i32x4_mul(i32x4_add(y0h, y1h), m)));
        }
        let (dl, dh) = load8(&scales[b * G..]);
        (lo, hi) = (scaled8(lo, al, w.d[b], dl), scaled8(hi, ah, w.d[b], dh));
        (lo_min, hi_min) = (scaled8(lo_min, ml, w.dmin[b], dl), scaled8(hi_min, mh, w.dmin[b], dh));
    }
    store8(f32x4_sub(lo, lo_min), f32x4_sub(hi, hi_min))
}

/// Q6_K: per super-block and token, `f32(Σ_l sc_l·(Σ q·y − 32·Σ y)) · (d·dy)` over 16
/// sub-blocks of 16.
#[inline]
#[target_feature(enable = "relaxed-simd")]
fn group_q6_k(w: &Row<u8>, p: &Packed, g: usize) -> [f32; G] {
    let (values, scales) = (p.group_values(g), &p.scales[g * p.bpr * G..][..p.bpr * G]);
    let sums = &p.sums[g * p.bpr * 16 * G..][..p.bpr * 16 * G];
    let zero = (i32x4_splat(0), i32x4_splat(0));
    let (mut lo, mut hi) = (f32x4_splat(0.0), f32x4_splat(0.0));
    for b in 0..p.bpr {
        let (wv, y) = (&w.values[b * QK_K..][..QK_K], &values[b * QK_K * G..][..QK_K * G]);
        let (mut al, mut ah, mut ol, mut oh) = (i32x4_splat(0), i32x4_splat(0), i32x4_splat(0), i32x4_splat(0));
        for l in 0..QK_K / 16 {
            let (sl, sh) = quad_sums::<2>(&wv[l * 16..], &y[l * 16 * G..], 4, zero);
            let sc = i32x4_splat(w.scales[b * 16 + l]);
            (al, ah) = (i32x4_add(al, i32x4_mul(sl, sc)), i32x4_add(ah, i32x4_mul(sh, sc)));
            let (yl, yh) = load8(&sums[(b * 16 + l) * G..]);
            (ol, oh) = (i32x4_add(ol, i32x4_mul(yl, sc)), i32x4_add(oh, i32x4_mul(yh, sc)));
        }
        (al, ah) = (i32x4_sub(al, i32x4_shl(ol, 5)), i32x4_sub(ah, i32x4_shl(oh, 5)));
        let (dl, dh) = load8(&scales[b * G..]);
        (lo, hi) = (scaled8(lo, al, w.d[b], dl), scaled8(hi, ah, w.d[b], dh));
    }
    store8(lo, hi)
}
