//! A prompt's matmuls in the browser (SIMD128): eight tokens in the lanes of two vectors, as
//! [`super::vnni`] does natively, for the weight types read with Q8_0 activations (Q4_0, Q5_0,
//! Q8_0) and Q8_K ones (Q4_K, Q6_K).
//!
//! Per block, [`dot`]'s kernels widen and multiply one token's activations at a time and scale
//! each token's lanes apart; measured in Chromium, that per-token work, not the multiply, is what
//! limits them (docs/BENCHMARKS.md). Here a matmul's activations are widened to i16 once and
//! interleaved by pairs of values, four tokens per vector (`[t0: y2p, y2p+1, t1: …, t3: …]`), so
//! one weight pair broadcast to all lanes (`v128.load32_splat`) and one `i32x4.dot_i16x8_s`
//! give four tokens two products each. Each block's integer sums are exact (the K-quants'
//! sub-block scales and mins applied in integers, Q6_K's offset of 32 taken off its values
//! before widening); per block and token they are converted to f32 and multiplied by `d·dy`,
//! so results equal the one-token kernels' up to f32 rounding (wasm promises no more: module
//! docs of [`dot`]).
//!
//! [`dot`]: super::dot

use super::act::{BlockQ8_0, BlockQ8K};
use super::dot::{f16_bits, q5_values_portable};
use crate::gguf::GgmlType;
use crate::gguf::quant::{K_SCALE_SIZE, Q4_0_BYTES, Q4_K_BYTES, Q5_0_BYTES, Q6_K_BYTES, Q8_0_BYTES, QK, QK_K, get_scale_min_k4};
use core::arch::wasm32::*;

#[cfg(feature = "relaxed-simd")]
pub mod relaxed;

/// Activations made ready for this module's kernels (or, in the relaxed build, for
/// [`relaxed`]'s one-token ones).
pub enum Batch {
    Groups(Packed),
    #[cfg(feature = "relaxed-simd")]
    Quads(relaxed::Packed),
    #[cfg(feature = "relaxed-simd")]
    One(relaxed::OneToken),
}

/// Tokens per group: two vectors of four.
pub const G: usize = 8;

/// Bytes of packed activations read per unpacked weight row: as many groups as fit (a row is
/// unpacked once per chunk; the chunk stays in L2 while every row reads it).
const CHUNK_BYTES: usize = 1 << 20;

/// Whether a matmul of `n` tokens with weights of `ty` takes these kernels.
pub fn takes(ty: GgmlType, n: usize) -> bool {
    use GgmlType::*;
    n >= 4 && matches!(ty, Q4_0 | Q5_0 | Q8_0 | Q4_K | Q6_K)
}

/// The activations of `n` tokens (`bpr` blocks each), widened and interleaved by groups of [`G`]
/// tokens (the last group padded with zeros, scale 0).
pub struct Packed {
    groups: usize,
    bpr: usize,
    /// Values per block: 32 (Q8_0) or 256 (Q8_K).
    block: usize,
    /// `[group][block][pair][token][2]`.
    values: Vec<i16>,
    /// `[group][block][token]`: the activation block's scale.
    scales: Vec<f32>,
    /// Q8_K only, `[group][block][32 values][token]`: their sum (for Q4_K's mins).
    sums: Vec<i32>,
}

impl Packed {
    pub fn q8_0(a: &[BlockQ8_0], n: usize, bpr: usize) -> Packed {
        let mut p = Packed::empty(n, bpr, QK);
        for t in 0..n {
            for b in 0..bpr {
                p.put(t, b, &a[t * bpr + b].qs, a[t * bpr + b].d);
            }
        }
        p
    }

    pub fn q8_k(a: &[BlockQ8K], n: usize, bpr: usize) -> Packed {
        let mut p = Packed::empty(n, bpr, QK_K);
        p.sums = vec![0; p.groups * bpr * (QK_K / QK) * G];
        for t in 0..n {
            let (g, k) = (t / G, t % G);
            for b in 0..bpr {
                let y = &a[t * bpr + b];
                p.put(t, b, &y.qs, y.d);
                for j in 0..QK_K / QK {
                    p.sums[((g * bpr + b) * (QK_K / QK) + j) * G + k] = y.bsums[2 * j] as i32 + y.bsums[2 * j + 1] as i32;
                }
            }
        }
        p
    }

    fn empty(n: usize, bpr: usize, block: usize) -> Packed {
        let groups = n.div_ceil(G);
        Packed { groups, bpr, block, values: vec![0; groups * bpr * block * G], scales: vec![0.0; groups * bpr * G], sums: Vec::new() }
    }

    /// Token `t`'s block `b`: its values `qs` and scale `d`.
    fn put(&mut self, t: usize, b: usize, qs: &[i8], d: f32) {
        let (g, k) = (t / G, t % G);
        let at = (g * self.bpr + b) * self.block * G;
        self.scales[(g * self.bpr + b) * G + k] = d;
        for (p, pair) in qs.chunks_exact(2).enumerate() {
            self.values[at + p * 2 * G + 2 * k] = pair[0] as i16;
            self.values[at + p * 2 * G + 2 * k + 1] = pair[1] as i16;
        }
    }

    fn group_values(&self, g: usize) -> &[i16] {
        &self.values[g * self.bpr * self.block * G..][..self.bpr * self.block * G]
    }
}

/// One weight row unpacked: values (i16 here with their offset taken off; unsigned bytes in
/// [`relaxed`]) and, per block, its scale (and the K-quants' min scale, sub-block scales and
/// mins).
struct Row<V> {
    values: Vec<V>,
    d: Vec<f32>,
    dmin: Vec<f32>,
    /// `[block][sub-block]`: Q4_K's 8 scales of 32 values, Q6_K's 16 of 16.
    scales: Vec<i32>,
    /// `[block][sub-block of 32]`: Q4_K's mins.
    mins: Vec<i32>,
}

impl<V: Copy + Default> Row<V> {
    fn new(bpr: usize, block: usize) -> Row<V> {
        Row { values: vec![V::default(); bpr * block], d: vec![0.0; bpr], dmin: vec![0.0; bpr], scales: vec![0; bpr * 16], mins: vec![0; bpr * 8] }
    }
}

impl Row<i16> {
    fn unpack(&mut self, ty: GgmlType, row: &[u8]) {
        let f16 = |b: &[u8], i: usize| f16_bits(u16::from_le_bytes([b[i], b[i + 1]]));
        match ty {
            GgmlType::Q4_0 | GgmlType::Q5_0 | GgmlType::Q8_0 => {
                let size = match ty {
                    GgmlType::Q4_0 => Q4_0_BYTES,
                    GgmlType::Q5_0 => Q5_0_BYTES,
                    _ => Q8_0_BYTES,
                };
                for ((b, v), d) in row.chunks_exact(size).zip(self.values.chunks_exact_mut(QK)).zip(&mut self.d) {
                    *d = f16(b, 0);
                    match ty {
                        GgmlType::Q4_0 => {
                            for j in 0..QK / 2 {
                                v[j] = (b[2 + j] & 0x0F) as i16 - 8;
                                v[j + QK / 2] = (b[2 + j] >> 4) as i16 - 8;
                            }
                        }
                        GgmlType::Q5_0 => {
                            let qh = u32::from_le_bytes([b[2], b[3], b[4], b[5]]);
                            let x = q5_values_portable(qh, b[6..6 + QK / 2].try_into().expect("16 bytes"), 16);
                            v.iter_mut().zip(x).for_each(|(v, x)| *v = x as i16);
                        }
                        _ => v.iter_mut().zip(&b[2..2 + QK]).for_each(|(v, &x)| *v = x as i8 as i16),
                    }
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
                    let (qs, v) = (&b[4 + K_SCALE_SIZE..], &mut self.values[i * QK_K..][..QK_K]);
                    for c in 0..QK_K / 64 {
                        for l in 0..32 {
                            v[64 * c + l] = (qs[32 * c + l] & 0x0F) as i16;
                            v[64 * c + 32 + l] = (qs[32 * c + l] >> 4) as i16;
                        }
                    }
                }
            }
            GgmlType::Q6_K => {
                for (i, b) in row.chunks_exact(Q6_K_BYTES).enumerate() {
                    let (ql, rest) = b.split_at(QK_K / 2);
                    let (qh, rest) = rest.split_at(QK_K / 4);
                    let (sc, d) = rest.split_at(QK_K / 16);
                    self.d[i] = f16(d, 0);
                    for (s, &c) in self.scales[i * 16..][..16].iter_mut().zip(sc) {
                        *s = c as i8 as i32;
                    }
                    let v = &mut self.values[i * QK_K..][..QK_K];
                    for n in 0..2 {
                        let (ql, qh, v) = (&ql[64 * n..], &qh[32 * n..], &mut v[128 * n..]);
                        for l in 0..32 {
                            v[l] = ((ql[l] & 0x0F) | ((qh[l] & 3) << 4)) as i16 - 32;
                            v[l + 32] = ((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) as i16 - 32;
                            v[l + 64] = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) as i16 - 32;
                            v[l + 96] = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) as i16 - 32;
                        }
                    }
                }
            }
            ty => unreachable!("{ty:?} has no kernel here ({:?})", takes(ty, G)),
        }
    }
}

/// Rows `r0..` of a `ty` matrix (row `r`'s bytes from `row_bytes`) times the packed tokens into
/// `out` (`rows × n`, row-major).
pub fn rows<'w>(ty: GgmlType, row_bytes: impl Fn(usize) -> &'w [u8], p: &Packed, n: usize, r0: usize, out: &mut [f32]) {
    let row = &mut Row::<i16>::new(p.bpr, p.block);
    chunked(
        p.groups,
        p.bpr * p.block * G * 2,
        n,
        out,
        row,
        |row, r| row.unpack(ty, row_bytes(r0 + r)),
        |row, g| match ty {
            GgmlType::Q4_K => group_q4_k(row, p, g),
            GgmlType::Q6_K => group_q6_k(row, p, g),
            _ => group_q8_0(row, p, g),
        },
    );
}

/// The loop of [`rows`] (and of the relaxed build's): `groups` groups of [`G`] tokens of
/// `group_bytes` packed bytes each, as many at a time as fit [`CHUNK_BYTES`]; per chunk each
/// row `r` of `out` (`rows × n`) is unpacked once into `row` (`unpack(row, r)`) and multiplied
/// with every group of the chunk (`group(row, g)`).
fn chunked<R>(
    groups: usize,
    group_bytes: usize,
    n: usize,
    out: &mut [f32],
    row: &mut R,
    unpack: impl Fn(&mut R, usize),
    group: impl Fn(&R, usize) -> [f32; G],
) {
    let rows = out.len() / n;
    let per_chunk = (CHUNK_BYTES / group_bytes).max(1);
    for g0 in (0..groups).step_by(per_chunk) {
        let g1 = (g0 + per_chunk).min(groups);
        for r in 0..rows {
            unpack(row, r);
            for g in g0..g1 {
                let sums = group(row, g);
                let t0 = g * G;
                let k = G.min(n - t0);
                out[r * n + t0..r * n + t0 + k].copy_from_slice(&sums[..k]);
            }
        }
    }
}

/// Σ over `pairs` weight pairs from `w` of pair · activations, for the two vectors of four
/// tokens at `y` (`pairs × 16` values): exact i32 sums.
#[inline(always)]
fn pair_sums(w: &[i16], y: &[i16], pairs: usize) -> (v128, v128) {
    assert!(w.len() >= 2 * pairs && y.len() >= pairs * 2 * G);
    let (mut lo, mut hi) = (i32x4_splat(0), i32x4_splat(0));
    for p in 0..pairs {
        // SAFETY: in bounds (asserted above); wasm allows unaligned loads.
        unsafe {
            let pair = v128_load32_splat(w.as_ptr().add(2 * p) as *const u32);
            let y = y.as_ptr().add(p * 2 * G);
            lo = i32x4_add(lo, i32x4_dot_i16x8(pair, v128_load(y as *const v128)));
            hi = i32x4_add(hi, i32x4_dot_i16x8(pair, v128_load(y.add(G) as *const v128)));
        }
    }
    (lo, hi)
}

/// Eight 4-byte lanes (f32 scales, i32 sums) from memory.
#[inline(always)]
fn load8<T: Copy>(x: &[T]) -> (v128, v128) {
    const { assert!(size_of::<T>() == 4) };
    assert!(x.len() >= G);
    // SAFETY: 8 values (asserted); unaligned loads are allowed.
    unsafe { (v128_load(x.as_ptr() as *const v128), v128_load(x.as_ptr().add(4) as *const v128)) }
}

#[inline(always)]
fn store8(lo: v128, hi: v128) -> [f32; G] {
    let mut out = [0.0f32; G];
    // SAFETY: two 16-byte stores into 32 bytes.
    unsafe {
        v128_store(out.as_mut_ptr() as *mut v128, lo);
        v128_store(out.as_mut_ptr().add(4) as *mut v128, hi);
    }
    out
}

/// `f32(s) · d · dy` added to `acc`, four tokens.
#[inline(always)]
fn scaled(acc: v128, s: v128, d: f32, dy: v128) -> v128 {
    f32x4_add(acc, f32x4_mul(f32x4_convert_i32x4(s), f32x4_mul(f32x4_splat(d), dy)))
}

/// Q4_0, Q5_0, Q8_0: per block of 32 and token, `f32(Σ w·y) · (d·dy)`.
#[inline(always)]
fn group_q8_0(w: &Row<i16>, p: &Packed, g: usize) -> [f32; G] {
    let (values, scales) = (p.group_values(g), &p.scales[g * p.bpr * G..][..p.bpr * G]);
    let (mut lo, mut hi) = (f32x4_splat(0.0), f32x4_splat(0.0));
    for (((wv, &d), y), s) in w.values.chunks_exact(QK).zip(&w.d).zip(values.chunks_exact(QK * G)).zip(scales.chunks_exact(G)) {
        let (sl, sh) = pair_sums(wv, y, QK / 2);
        let (dl, dh) = load8(s);
        (lo, hi) = (scaled(lo, sl, d, dl), scaled(hi, sh, d, dh));
    }
    store8(lo, hi)
}

/// Q4_K: per super-block and token, `f32(Σ_j sc_j·Σ w·y) · (d·dy)` less
/// `f32(Σ_j m_j·Σ y) · (dmin·dy)` (the two summed apart and subtracted last, as ggml does).
#[inline(always)]
fn group_q4_k(w: &Row<i16>, p: &Packed, g: usize) -> [f32; G] {
    let (values, scales) = (p.group_values(g), &p.scales[g * p.bpr * G..][..p.bpr * G]);
    let sums = &p.sums[g * p.bpr * 8 * G..][..p.bpr * 8 * G];
    let (mut lo, mut hi, mut lo_min, mut hi_min) = (f32x4_splat(0.0), f32x4_splat(0.0), f32x4_splat(0.0), f32x4_splat(0.0));
    for b in 0..p.bpr {
        let (wv, y) = (&w.values[b * QK_K..][..QK_K], &values[b * QK_K * G..][..QK_K * G]);
        let (mut al, mut ah, mut ml, mut mh) = (i32x4_splat(0), i32x4_splat(0), i32x4_splat(0), i32x4_splat(0));
        for j in 0..QK_K / QK {
            let (sl, sh) = pair_sums(&wv[j * QK..], &y[j * QK * G..], QK / 2);
            let (sc, m) = (i32x4_splat(w.scales[b * 16 + j]), i32x4_splat(w.mins[b * 8 + j]));
            (al, ah) = (i32x4_add(al, i32x4_mul(sl, sc)), i32x4_add(ah, i32x4_mul(sh, sc)));
            let (yl, yh) = load8(&sums[(b * 8 + j) * G..]);
            (ml, mh) = (i32x4_add(ml, i32x4_mul(yl, m)), i32x4_add(mh, i32x4_mul(yh, m)));
        }
        let (dl, dh) = load8(&scales[b * G..]);
        (lo, hi) = (scaled(lo, al, w.d[b], dl), scaled(hi, ah, w.d[b], dh));
        (lo_min, hi_min) = (scaled(lo_min, ml, w.dmin[b], dl), scaled(hi_min, mh, w.dmin[b], dh));
    }
    store8(f32x4_sub(lo, lo_min), f32x4_sub(hi, hi_min))
}

/// Q6_K: per super-block and token, `f32(Σ_l sc_l·Σ (q − 32)·y) · (d·dy)` over 16 sub-blocks of 16.
#[inline(always)]
fn group_q6_k(w: &Row<i16>, p: &Packed, g: usize) -> [f32; G] {
    let (values, scales) = (p.group_values(g), &p.scales[g * p.bpr * G..][..p.bpr * G]);
    let (mut lo, mut hi) = (f32x4_splat(0.0), f32x4_splat(0.0));
    for b in 0..p.bpr {
        let (wv, y) = (&w.values[b * QK_K..][..QK_K], &values[b * QK_K * G..][..QK_K * G]);
        let (mut al, mut ah) = (i32x4_splat(0), i32x4_splat(0));
        for l in 0..QK_K / 16 {
            let (sl, sh) = pair_sums(&wv[l * 16..], &y[l * 16 * G..], 8);
            let sc = i32x4_splat(w.scales[b * 16 + l]);
            (al, ah) = (i32x4_add(al, i32x4_mul(sl, sc)), i32x4_add(ah, i32x4_mul(sh, sc)));
        }
        let (dl, dh) = load8(&scales[b * G..]);
        (lo, hi) = (scaled(lo, al, w.d[b], dl), scaled(hi, ah, w.d[b], dh));
    }
    store8(lo, hi)
}
