//! Kernels for x86-64 CPUs with AVX2 but not AVX-512 VNNI: a prompt eight tokens per vector, and
//! one token (decode) without unpacking to memory. Blocks of 32 (Q4_0, Q5_0, Q8_0; [`signed32`])
//! keep ggml's eight lanes per block apart, so there tokens in lanes save the unpacking of a
//! weight block for every token and ggml's sign trick per token, not multiplies.
//!
//! [`super::dot`]'s kernels take a prompt token by token: for Q4_K each 32 values end in a
//! horizontal sum of one token's lanes, and that, not the multiplies, bounded them (~40 GOP/s on
//! two Zen 2 cores against Q6_K's ~110). Here, as in [`super::vnni`], the eight lanes of a
//! vector are eight *tokens*: a group's activations are interleaved four bytes at a time
//! ([`Packed`]) and four weight bytes broadcast to every lane meet each token's four activations
//! in one `vpmaddubsw` (unsigned weights × signed activations: Q4_K's nibbles and Q6_K's six-bit
//! values are unsigned as they are). Q4_K: a 32-value sub-block's 16-bit sums stay exact
//! (8 × 2 × 15 × 128 < 2^15), so one `vpmaddwd` by its scale gives each token's `scale·Σq·y`.
//! Q6_K: each four values' sum by its 16's scale (`vpmaddwd`), ggml's eight lanes kept apart.
//! Every integer is the one [`super::dot`]'s kernels compute and every float operation is theirs
//! in the same order (Q4_K: `fma(Σ, d·dy, acc)` per 64 values for tokens in whole fours, as
//! llama.cpp's repacked GEMM; Q6_K: `fma(d·dy, lane, acc)` per super-block and `hsum_float_8`):
//! the results are bit for bit those of the per-token kernels, so greedy tokens stay equal to
//! llama.cpp's. One token ([`one_q4_k`], [`one_q6_k`]) is ggml's AVX2 `vec_dot` shape, with
//! Q4_K in its repacked GEMV's order.

use core::arch::x86_64::*;

use super::act::{BlockQ8_0, BlockQ8K};
use super::dot::hsum_float_8;
use crate::gguf::quant::{K_SCALE_SIZE, Q4_0_BYTES, Q4_K_BYTES, Q5_0_BYTES, Q6_K_BYTES, Q8_0_BYTES, QK, QK_K};

/// Tokens per vector.
pub const G: usize = 8;

/// Whether this CPU has AVX2, FMA and F16C (checked once): these kernels and [`super::dot`]'s
/// AVX2 build need them.
pub fn available() -> bool {
    use std::sync::OnceLock;
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") && is_x86_feature_detected!("f16c"))
}

/// Lane rows of one token group's super-block: 64 four-byte pieces of the values, the scale
/// (f32 bits), and ggml's `bsums` (sums of each 16) as eight 16-bit pairs.
const PER_BLOCK_K: usize = QK_K / 4 + 1 + QK_K / 32;

/// Lane rows of one token group's block of 32 (Q8_0): eight four-byte pieces of the values and
/// the scale (f32 bits).
const PER_BLOCK_32: usize = QK / 4 + 1;

/// Q8_K or Q8_0 activations of a batch's first tokens in groups of 8, interleaved for [`q4_k`]
/// and [`q6_k`], or for [`signed32`].
pub struct Packed {
    /// Groups of 8 tokens, the last one padded with zeros when the tokens end inside it.
    pub groups: usize,
    /// Tokens the groups hold (from the first).
    pub tokens: usize,
    bpr: usize,
    /// Lane rows per block ([`PER_BLOCK_K`] or [`PER_BLOCK_32`]).
    per_block: usize,
    data: Vec<[i32; G]>,
}

impl Packed {
    /// Interleaves the first `n` tokens' activations (`bpr` blocks each, `per_block` lane rows
    /// each, written by `fill(block, lane rows, lane)`).
    fn new<B>(a: &[B], n: usize, bpr: usize, per_block: usize, fill: impl Fn(&B, &mut [[i32; G]], usize)) -> Packed {
        let groups = n.div_ceil(G);
        let mut data = vec![[0i32; G]; groups * bpr * per_block];
        for t in 0..n {
            let (g, lane) = (t / G, t % G);
            for i in 0..bpr {
                fill(&a[t * bpr + i], &mut data[(g * bpr + i) * per_block..][..per_block], lane);
            }
        }
        Packed { groups, tokens: n, bpr, per_block, data }
    }

    /// Interleaves the first `n` tokens' Q8_K activations (`bpr` super-blocks each).
    pub fn q8_k(a: &[BlockQ8K], n: usize, bpr: usize) -> Packed {
        Packed::new(a, n, bpr, PER_BLOCK_K, |y, rows, lane| {
            for (k, q) in y.qs.as_chunks::<4>().0.iter().enumerate() {
                rows[k][lane] = i32::from_le_bytes(q.map(|v| v as u8));
            }
            rows[QK_K / 4][lane] = y.d.to_bits() as i32;
            for l in 0..QK_K / 32 {
                rows[QK_K / 4 + 1 + l][lane] = pair(y.bsums[2 * l], y.bsums[2 * l + 1]);
            }
        })
    }

    /// Interleaves `n` tokens' Q8_0 activations (`bpr` blocks each).
    pub fn q8_0(a: &[BlockQ8_0], n: usize, bpr: usize) -> Packed {
        Packed::new(a, n, bpr, PER_BLOCK_32, |y, rows, lane| {
            for (k, q) in y.qs.as_chunks::<4>().0.iter().enumerate() {
                rows[k][lane] = i32::from_le_bytes(q.map(|v| v as u8));
            }
            rows[QK / 4][lane] = y.d.to_bits() as i32;
        })
    }

    /// Bytes of one group's activations.
    pub fn group_bytes(&self) -> usize {
        self.bpr * self.per_block * G * 4
    }

    /// Block `i` of group `g`, `N` lane rows.
    #[inline(always)]
    fn block<const N: usize>(&self, g: usize, i: usize) -> &[[i32; G]; N] {
        debug_assert_eq!(N, self.per_block, "packed for another kernel");
        self.data[(g * self.bpr + i) * N..][..N].try_into().expect("a whole block")
    }
}

/// Two 16-bit values as one word, `lo` first.
fn pair(lo: i16, hi: i16) -> i32 {
    (lo as u16 as u32 | (hi as u16 as u32) << 16) as i32
}

/// One weight row unpacked once for all the token groups that read it: its values as unsigned
/// bytes in four-byte pieces and its super-blocks' `d`. Q4_K: sub-block `2c` the low nibbles of
/// `qs[32c..32c + 32]`, `2c + 1` the high ones; each sub-block's scale and min twice as 16-bit
/// pairs; `dmin`. Q6_K: values in ggml's order; each 16's scale twice as a pair (`sc`), and
/// the scales of 16s `2l`, `2l + 1` as a pair (`sc2`).
///
/// Q4_0, Q5_0 and Q8_0 (blocks of 32): the signed values in `w4` and their absolute values in
/// `wabs` (ggml's sign trick: `maddubs(|w|, sign(y, w))`), four-byte pieces; `d` per block.
#[derive(Default)]
pub struct Row {
    w4: Vec<i32>,
    wabs: Vec<i32>,
    sc: Vec<i32>,
    mn: Vec<i32>,
    sc2: Vec<i32>,
    d: Vec<f32>,
    dmin: Vec<f32>,
}

impl Row {
    /// Unpacks a Q4_K, Q6_K, Q4_0, Q5_0 or Q8_0 row.
    #[target_feature(enable = "avx2,fma,f16c")]
    pub fn unpack(&mut self, ty: crate::gguf::GgmlType, w: &[u8]) {
        use crate::gguf::GgmlType::*;
        match ty {
            Q4_K => self.unpack_q4_k(w),
            Q6_K => self.unpack_q6_k(w),
            Q4_0 => self.unpack_32(w, |b| values_q4_0(b)),
            Q5_0 => self.unpack_32(w, |b| values_q5_0(b)),
            Q8_0 => self.unpack_32(w, |b| values_q8_0(b)),
            ty => unreachable!("no batch kernel for {ty:?}"),
        }
    }

    /// A row of `BYTES`-byte blocks of 32 values whose scale is the f16 at byte 0 and whose
    /// signed values `values(block)` gives.
    #[target_feature(enable = "avx2,fma,f16c")]
    #[inline]
    fn unpack_32<const BYTES: usize>(&mut self, w: &[u8], values: impl Fn(&[u8; BYTES]) -> __m256i) {
        let blocks = w.as_chunks::<BYTES>().0;
        self.w4.resize(blocks.len() * QK / 4, 0);
        self.wabs.resize(blocks.len() * QK / 4, 0);
        self.d.resize(blocks.len(), 0.0);
        for (i, b) in blocks.iter().enumerate() {
            let v = values(b);
            // SAFETY: 32-byte stores into this row's values 32i .. 32i + 32.
            unsafe {
                _mm256_storeu_si256(self.w4[8 * i..8 * i + 8].as_mut_ptr() as *mut __m256i, v);
                _mm256_storeu_si256(self.wabs[8 * i..8 * i + 8].as_mut_ptr() as *mut __m256i, _mm256_sign_epi8(v, v));
            }
            self.d[i] = f16_at(b, 0);
        }
    }

    #[target_feature(enable = "avx2,fma,f16c")]
    fn unpack_q6_k(&mut self, w: &[u8]) {
        let blocks = w.as_chunks::<Q6_K_BYTES>().0;
        self.w4.resize(blocks.len() * QK_K / 4, 0);
        self.sc.resize(blocks.len() * QK_K / 16, 0);
        self.sc2.resize(blocks.len() * QK_K / 32, 0);
        self.d.resize(blocks.len(), 0.0);
        for (i, b) in blocks.iter().enumerate() {
            let w4 = &mut self.w4[i * QK_K / 4..][..QK_K / 4];
            for (m, q) in q6_k_values(b).into_iter().enumerate() {
                // SAFETY: a 32-byte store into this row's values 32m .. 32m + 32.
                unsafe { _mm256_storeu_si256(w4[8 * m..8 * m + 8].as_mut_ptr() as *mut __m256i, q) };
            }
            let scale = |j: usize| b[QK_K / 2 + QK_K / 4 + j] as i8 as i16;
            for (j, o) in self.sc[i * QK_K / 16..][..QK_K / 16].iter_mut().enumerate() {
                *o = pair(scale(j), scale(j));
            }
            for (l, o) in self.sc2[i * QK_K / 32..][..QK_K / 32].iter_mut().enumerate() {
                *o = pair(scale(2 * l), scale(2 * l + 1));
            }
            self.d[i] = f16_at(b, Q6_K_BYTES - 2);
        }
    }

    #[target_feature(enable = "avx2,fma,f16c")]
    fn unpack_q4_k(&mut self, w: &[u8]) {
        let blocks = w.as_chunks::<Q4_K_BYTES>().0;
        self.w4.resize(blocks.len() * QK_K / 4, 0);
        self.sc.resize(blocks.len() * QK_K / QK, 0);
        self.mn.resize(blocks.len() * QK_K / QK, 0);
        self.d.resize(blocks.len(), 0.0);
        self.dmin.resize(blocks.len(), 0.0);
        let mask = _mm256_set1_epi8(0x0F);
        for (i, b) in blocks.iter().enumerate() {
            let qs = &b[4 + K_SCALE_SIZE..];
            let w4 = &mut self.w4[i * QK_K / 4..][..QK_K / 4];
            for c in 0..QK_K / 64 {
                // SAFETY: 32 bytes from the block's 128 bytes of nibbles; two 32-byte stores into
                // the 64 bytes of this row's values c·64 .. c·64 + 64.
                unsafe {
                    let v = _mm256_loadu_si256(qs[32 * c..].as_ptr() as *const __m256i);
                    let at = w4[16 * c..16 * c + 16].as_mut_ptr() as *mut __m256i;
                    _mm256_storeu_si256(at, _mm256_and_si256(v, mask));
                    _mm256_storeu_si256(at.add(1), _mm256_and_si256(_mm256_srli_epi16::<4>(v), mask));
                }
            }
            let (sc, mn) = scales_mins_k4(&b[4..4 + K_SCALE_SIZE]);
            for (o, &s) in self.sc[i * QK_K / QK..][..QK_K / QK].iter_mut().zip(&sc) {
                *o = pair(s as i16, s as i16);
            }
            for (o, &m) in self.mn[i * QK_K / QK..][..QK_K / QK].iter_mut().zip(&mn) {
                *o = pair(m as i16, m as i16);
            }
            self.d[i] = f16_at(b, 0);
            self.dmin[i] = f16_at(b, 2);
        }
    }
}

#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
fn f16_at(b: &[u8], i: usize) -> f32 {
    let h = u16::from_le_bytes([b[i], b[i + 1]]);
    _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h as i32)))
}

#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
fn load(row: &[i32; G]) -> __m256i {
    // SAFETY: 32 bytes from a 32-byte array; the load is unaligned.
    unsafe { _mm256_loadu_si256(row.as_ptr() as *const __m256i) }
}

/// `R` unpacked Q4_K rows times one packed group: `out[r][t]` for its 8 tokens, as
/// [`super::dot`]'s `q4_k` computes tokens in whole groups of four (llama.cpp's repacked GEMM):
/// per 64 values `fma(Σ scale·Σq·y, d·dy, acc)` and `fma(Σ min·bsum, dmin·dy, acc_min)`, then
/// `acc − acc_min`. The rows share each load of the activations.
#[target_feature(enable = "avx2,fma,f16c")]
pub fn q4_k<const R: usize>(rows: [&Row; R], p: &Packed, g: usize, out: [&mut [f32]; R]) {
    const SUBS: usize = QK_K / QK;
    let (mut acc, mut acc_min) = ([_mm256_setzero_ps(); R], [_mm256_setzero_ps(); R]);
    for i in 0..rows[0].d.len() {
        let y = p.block::<PER_BLOCK_K>(g, i);
        let w: [&[i32; QK_K / 4]; R] = std::array::from_fn(|r| rows[r].w4[i * QK_K / 4..][..QK_K / 4].try_into().unwrap());
        let sc: [&[i32; SUBS]; R] = std::array::from_fn(|r| rows[r].sc[i * SUBS..][..SUBS].try_into().unwrap());
        let mn: [&[i32; SUBS]; R] = std::array::from_fn(|r| rows[r].mn[i * SUBS..][..SUBS].try_into().unwrap());
        let yd = _mm256_castsi256_ps(load(&y[QK_K / 4]));
        for pr in 0..SUBS / 2 {
            let mut sum = [_mm256_setzero_si256(); R];
            for c in [2 * pr, 2 * pr + 1] {
                let mut s16 = [_mm256_setzero_si256(); R];
                for k in 8 * c..8 * c + 8 {
                    let yk = load(&y[k]);
                    for r in 0..R {
                        s16[r] = _mm256_add_epi16(s16[r], _mm256_maddubs_epi16(_mm256_set1_epi32(w[r][k]), yk));
                    }
                }
                for r in 0..R {
                    sum[r] = _mm256_add_epi32(sum[r], _mm256_madd_epi16(s16[r], _mm256_set1_epi32(sc[r][c])));
                }
            }
            // Each 32's two bsums by its min.
            let (b0, b1) = (load(&y[QK_K / 4 + 1 + 2 * pr]), load(&y[QK_K / 4 + 2 + 2 * pr]));
            for r in 0..R {
                let mins = _mm256_add_epi32(_mm256_madd_epi16(b0, _mm256_set1_epi32(mn[r][2 * pr])), _mm256_madd_epi16(b1, _mm256_set1_epi32(mn[r][2 * pr + 1])));
                let dy = _mm256_mul_ps(_mm256_set1_ps(rows[r].d[i]), yd);
                let dminy = _mm256_mul_ps(_mm256_set1_ps(rows[r].dmin[i]), yd);
                acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum[r]), dy, acc[r]);
                acc_min[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(mins), dminy, acc_min[r]);
            }
        }
    }
    for ((acc, acc_min), out) in acc.iter().zip(&acc_min).zip(out) {
        // SAFETY: 32 bytes into the group's 8 outputs.
        unsafe { _mm256_storeu_ps(out[..G].as_mut_ptr(), _mm256_sub_ps(*acc, *acc_min)) };
    }
}

/// `R` unpacked Q6_K rows times one packed group: `out[r][t]` for its 8 tokens, as
/// [`super::dot`]'s `q6_k` (ggml's AVX2 kernel): per super-block, lane `l` is
/// `Σ_j scale·Σ q·y` over bytes `4l..4l+4` of each 32 `j` (the scale of its 16), minus
/// `32·(bsum[2l]·scale[2l] + bsum[2l+1]·scale[2l+1])`; then `fma(d·dy, lane, acc)` per lane and
/// ggml's `hsum_float_8`.
#[target_feature(enable = "avx2,fma,f16c")]
pub fn q6_k<const R: usize>(rows: [&Row; R], p: &Packed, g: usize, out: [&mut [f32]; R]) {
    let mut acc = [[_mm256_setzero_ps(); 8]; R];
    for i in 0..rows[0].d.len() {
        let y = p.block::<PER_BLOCK_K>(g, i);
        let w: [&[i32; QK_K / 4]; R] = std::array::from_fn(|r| rows[r].w4[i * QK_K / 4..][..QK_K / 4].try_into().unwrap());
        let sc: [&[i32; QK_K / 16]; R] = std::array::from_fn(|r| rows[r].sc[i * QK_K / 16..][..QK_K / 16].try_into().unwrap());
        let sc2: [&[i32; QK_K / 32]; R] = std::array::from_fn(|r| rows[r].sc2[i * QK_K / 32..][..QK_K / 32].try_into().unwrap());
        let yd = _mm256_castsi256_ps(load(&y[QK_K / 4]));
        let scale: [__m256; R] = std::array::from_fn(|r| _mm256_mul_ps(yd, _mm256_set1_ps(rows[r].d[i])));
        for l in 0..8 {
            let mut s = [_mm256_setzero_si256(); R];
            for j in 0..QK_K / QK {
                let k = 8 * j + l;
                let yk = load(&y[k]);
                for r in 0..R {
                    let p = _mm256_maddubs_epi16(_mm256_set1_epi32(w[r][k]), yk);
                    s[r] = _mm256_add_epi32(s[r], _mm256_madd_epi16(p, _mm256_set1_epi32(sc[r][2 * j + l / 4])));
                }
            }
            let bsums = load(&y[QK_K / 4 + 1 + l]);
            for r in 0..R {
                let offset = _mm256_madd_epi16(bsums, _mm256_set1_epi32(sc2[r][l]));
                let lane = _mm256_sub_epi32(s[r], _mm256_slli_epi32::<5>(offset));
                acc[r][l] = _mm256_fmadd_ps(scale[r], _mm256_cvtepi32_ps(lane), acc[r][l]);
            }
        }
    }
    for (acc, out) in acc.iter().zip(out) {
        // SAFETY: 32 bytes into the group's 8 outputs.
        unsafe { _mm256_storeu_ps(out[..G].as_mut_ptr(), hsum_lanes(acc)) };
    }
}

/// A Q4_0 block's 32 values (`q - 8`), low nibbles first.
#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
fn values_q4_0(b: &[u8; Q4_0_BYTES]) -> __m256i {
    // SAFETY: 16 bytes of nibbles from the block's 18.
    let q = unsafe { _mm_loadu_si128(b[2..].as_ptr() as *const __m128i) };
    let v = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16::<4>(q), q), _mm256_set1_epi8(0x0F));
    _mm256_sub_epi8(v, _mm256_set1_epi8(8))
}

/// A Q5_0 block's 32 values (`q - 16`, fifth bits from `qh`).
#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
fn values_q5_0(b: &[u8; Q5_0_BYTES]) -> __m256i {
    super::dot::q5_vector(u32::from_le_bytes([b[2], b[3], b[4], b[5]]), b[6..].try_into().expect("16 bytes"), 16)
}

/// A Q8_0 block's 32 values.
#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
fn values_q8_0(b: &[u8; Q8_0_BYTES]) -> __m256i {
    // SAFETY: 32 bytes of values from the block's 34.
    unsafe { _mm256_loadu_si256(b[2..].as_ptr() as *const __m256i) }
}

/// One token (decode) times rows `r0..` of a Q4_0, Q5_0 or Q8_0 matrix, in ggml's AVX2
/// `vec_dot` order (as [`super::dot`]'s kernels) without storing the values: two rows per pass,
/// whose accumulators are two independent chains; `row(r)` gives row `r`'s bytes.
#[target_feature(enable = "avx2,fma,f16c")]
pub fn one_token_32_rows<'a>(ty: crate::gguf::GgmlType, row: impl Fn(usize) -> &'a [u8], y: &[BlockQ8_0], r0: usize, out: &mut [f32]) {
    use crate::gguf::GgmlType::*;
    match ty {
        Q4_0 => one_32(row, y, r0, out, |b| values_q4_0(b)),
        Q5_0 => one_32(row, y, r0, out, |b| values_q5_0(b)),
        Q8_0 => one_32(row, y, r0, out, |b| values_q8_0(b)),
        ty => unreachable!("no one-token kernel for {ty:?}"),
    }
}

#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
fn one_32<'a, const BYTES: usize>(row: impl Fn(usize) -> &'a [u8], y: &[BlockQ8_0], r0: usize, out: &mut [f32], values: impl Fn(&[u8; BYTES]) -> __m256i) {
    // `fma(d·dy, Σ lanes, acc)` for one block: ggml's `mul_sum_i8_pairs_float`.
    let add = |acc: __m256, b: &[u8; BYTES], y: &BlockQ8_0| {
        let x = values(b);
        // SAFETY: 32 bytes from y's 32 values.
        let yv = unsafe { _mm256_loadu_si256(y.qs.as_ptr() as *const __m256i) };
        let p = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_sign_epi8(x, x), _mm256_sign_epi8(yv, x)), _mm256_set1_epi16(1));
        _mm256_fmadd_ps(_mm256_set1_ps(f16_at(b, 0) * y.d), _mm256_cvtepi32_ps(p), acc)
    };
    let last = r0 + out.len() - 1;
    let mut pairs = out.chunks_exact_mut(2);
    for (k, o) in (&mut pairs).enumerate() {
        let (w0, w1) = (row(r0 + 2 * k).as_chunks::<BYTES>().0, row(r0 + 2 * k + 1).as_chunks::<BYTES>().0);
        let (mut a0, mut a1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
        for ((b0, b1), y) in w0.iter().zip(w1).zip(y) {
            prefetch_ahead(b0);
            prefetch_ahead(b1);
            a0 = add(a0, b0, y);
            a1 = add(a1, b1, y);
        }
        o[0] = hsum_float_8(a0);
        o[1] = hsum_float_8(a1);
    }
    let rest = pairs.into_remainder();
    if let Some(o) = rest.first_mut() {
        let w = row(last).as_chunks::<BYTES>().0;
        *o = hsum_float_8(w.iter().zip(y).fold(_mm256_setzero_ps(), |acc, (b, y)| {
            prefetch_ahead(b);
            add(acc, b, y)
        }));
    }
}

/// How far ahead of the block being read a one-token kernel asks for the weights' cache lines.
/// One token reads every weight once, so decode waits on memory: without software prefetch a
/// Zen 2 core streamed ~6 GB/s (the 0.5B's 145 MB output matrix in 23 ms on one thread), with it
/// ~10 GB/s. 4 KB measured best of 0.5, 1, 2, 4, 8 and 16 KB (0.5B decode 29 → 40 tok/s).
const PREFETCH_BYTES: usize = 4096;

/// Asks for the cache lines [`PREFETCH_BYTES`] past each 64 bytes of `block` (a hint: an
/// address past the matrix is never read).
#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
pub(super) fn prefetch_ahead<const BYTES: usize>(block: &[u8; BYTES]) {
    for at in (0..BYTES).step_by(64) {
        _mm_prefetch::<_MM_HINT_T0>(block.as_ptr().wrapping_add(PREFETCH_BYTES + at) as *const i8);
    }
}

/// `R` unpacked rows of blocks of 32 (Q4_0, Q5_0, Q8_0) times one packed group of Q8_0
/// activations: `out[r][t]` for its 8 tokens, as [`super::dot`]'s kernels (ggml's AVX2
/// `vec_dot_q8_0_q8_0` and kin): lane `l` of a block is `Σ w·y` over its bytes `4l..4l + 4`
/// (`maddubs(|w|, sign(y, w))`, then `madd` by 1), `fma(d·dy, lane, acc)` per block and lane,
/// then ggml's `hsum_float_8`. The rows share each load of the activations.
#[target_feature(enable = "avx2,fma,f16c")]
pub fn signed32<const R: usize>(rows: [&Row; R], p: &Packed, g: usize, out: [&mut [f32]; R]) {
    let ones = _mm256_set1_epi16(1);
    let mut acc = [[_mm256_setzero_ps(); QK / 4]; R];
    for i in 0..rows[0].d.len() {
        let y = p.block::<PER_BLOCK_32>(g, i);
        let w: [&[i32; QK / 4]; R] = std::array::from_fn(|r| rows[r].w4[i * QK / 4..][..QK / 4].try_into().unwrap());
        let wabs: [&[i32; QK / 4]; R] = std::array::from_fn(|r| rows[r].wabs[i * QK / 4..][..QK / 4].try_into().unwrap());
        let yd = _mm256_castsi256_ps(load(&y[QK / 4]));
        let scale: [__m256; R] = std::array::from_fn(|r| _mm256_mul_ps(_mm256_set1_ps(rows[r].d[i]), yd));
        for l in 0..QK / 4 {
            let yl = load(&y[l]);
            for r in 0..R {
                let sy = _mm256_sign_epi8(yl, _mm256_set1_epi32(w[r][l]));
                let lane = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi32(wabs[r][l]), sy), ones);
                acc[r][l] = _mm256_fmadd_ps(scale[r], _mm256_cvtepi32_ps(lane), acc[r][l]);
            }
        }
    }
    for (acc, out) in acc.iter().zip(out) {
        // SAFETY: 32 bytes into the group's 8 outputs.
        unsafe { _mm256_storeu_ps(out[..G].as_mut_ptr(), hsum_lanes(acc)) };
    }
}

/// Per token lane, ggml's `hsum_float_8` of the eight accumulators `acc[0..8]` (lane `l` of a
/// token's sum is `acc[l]`): `((x4 + x0) + (x6 + x2)) + ((x5 + x1) + (x7 + x3))`.
#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
fn hsum_lanes(acc: &[__m256; 8]) -> __m256 {
    _mm256_add_ps(
        _mm256_add_ps(_mm256_add_ps(acc[4], acc[0]), _mm256_add_ps(acc[6], acc[2])),
        _mm256_add_ps(_mm256_add_ps(acc[5], acc[1]), _mm256_add_ps(acc[7], acc[3])),
    )
}

/// A Q6_K super-block's 256 six-bit values (unsigned) in ggml's order, 32 per vector.
#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
fn q6_k_values(b: &[u8]) -> [__m256i; 8] {
    let (ql, qh) = (&b[..QK_K / 2], &b[QK_K / 2..QK_K / 2 + QK_K / 4]);
    let (m4, m2) = (_mm256_set1_epi8(0x0F), _mm256_set1_epi8(3));
    let mut q = [_mm256_setzero_si256(); 8];
    for h in 0..2 {
        // SAFETY: 32-byte loads inside the block's 128 bytes of low bits and 64 of high bits.
        let (l1, l2, hb) = unsafe {
            (
                _mm256_loadu_si256(ql[64 * h..].as_ptr() as *const __m256i),
                _mm256_loadu_si256(ql[64 * h + 32..].as_ptr() as *const __m256i),
                _mm256_loadu_si256(qh[32 * h..].as_ptr() as *const __m256i),
            )
        };
        let high = |s: i32| _mm256_slli_epi16::<4>(_mm256_and_si256(_mm256_srl_epi16(hb, _mm_cvtsi32_si128(s)), m2));
        q[4 * h] = _mm256_or_si256(_mm256_and_si256(l1, m4), high(0));
        q[4 * h + 1] = _mm256_or_si256(_mm256_and_si256(l2, m4), high(2));
        q[4 * h + 2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16::<4>(l1), m4), high(4));
        q[4 * h + 3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16::<4>(l2), m4), high(6));
    }
    q
}

/// One token (decode) times rows `r0..` of a Q4_K or Q6_K matrix, a row per call of
/// [`one_q4_k`] or [`one_q6_k`]; `row(r)` gives row `r`'s bytes.
#[target_feature(enable = "avx2,fma,f16c")]
pub fn one_token_k_rows<'a>(ty: crate::gguf::GgmlType, row: impl Fn(usize) -> &'a [u8], y: &[BlockQ8K], r0: usize, out: &mut [f32]) {
    use crate::gguf::GgmlType::*;
    match ty {
        Q4_K => out.iter_mut().enumerate().for_each(|(i, o)| *o = one_q4_k(row(r0 + i), y)),
        Q6_K => out.iter_mut().enumerate().for_each(|(i, o)| *o = one_q6_k(row(r0 + i), y)),
        ty => unreachable!("no one-token kernel for {ty:?}"),
    }
}

/// Σ of eight i32 lanes (exact).
#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
fn hsum_i32(v: __m256i) -> i32 {
    let s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let s = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
    _mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32::<1>(s)))
}

/// A Q4_K super-block's eight six-bit scales and eight mins (ggml's `utmp` unpacking of the 12
/// bytes; the same values as [`crate::gguf::quant::get_scale_min_k4`]).
#[inline(always)]
fn scales_mins_k4(packed: &[u8]) -> ([u8; 8], [u8; 8]) {
    let word = |i: usize| u32::from_le_bytes(packed[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    let (u0, u1, u2) = (word(0), word(1), word(2));
    let (k1, k2, k3) = (0x3f3f_3f3fu32, 0x0f0f_0f0fu32, 0x0303_0303u32);
    let sc = [u0 & k1, (u2 & k2) | (((u0 >> 6) & k3) << 4)];
    let mn = [u1 & k1, ((u2 >> 4) & k2) | (((u1 >> 6) & k3) << 4)];
    let bytes = |w: [u32; 2]| {
        let (a, b) = (w[0].to_le_bytes(), w[1].to_le_bytes());
        [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]
    };
    (bytes(sc), bytes(mn))
}

/// One Q4_K row times one token in llama.cpp's GEMV order (as [`super::dot`]'s `q4_k` for a
/// token past the last whole four): per super-block the exact `Σ scale·Σq·y` and
/// `Σ min·bsum`, then `fma(Σ, d·dy, acc)` and `fma(mins, dmin·dy, acc_min)`; `acc − acc_min`.
#[target_feature(enable = "avx2,fma,f16c")]
pub fn one_q4_k(w: &[u8], y: &[BlockQ8K]) -> f32 {
    let (mut acc, mut acc_min) = (0.0f32, 0.0f32);
    let mask = _mm256_set1_epi8(0x0F);
    for (b, y) in w.as_chunks::<Q4_K_BYTES>().0.iter().zip(y) {
        prefetch_ahead(b);
        let (sc, mn) = scales_mins_k4(&b[4..4 + K_SCALE_SIZE]);
        // Each sub-block's scale in every 16-bit lane: sub-block c's bytes of the widened scales.
        // SAFETY: 8 bytes from the 8 scales.
        let sc16 = _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(unsafe { _mm_loadl_epi64(sc.as_ptr() as *const __m128i) }));
        let qs = &b[4 + K_SCALE_SIZE..];
        let mut v = _mm256_setzero_si256();
        for c in 0..QK_K / 64 {
            // SAFETY: 32-byte loads from the block's 128 bytes of nibbles and from y's 256 values.
            let (q, ylo, yhi) = unsafe {
                (
                    _mm256_loadu_si256(qs[32 * c..].as_ptr() as *const __m256i),
                    _mm256_loadu_si256(y.qs[64 * c..].as_ptr() as *const __m256i),
                    _mm256_loadu_si256(y.qs[64 * c + 32..].as_ptr() as *const __m256i),
                )
            };
            let at = |s: usize| _mm256_shuffle_epi8(sc16, _mm256_set1_epi16((((2 * s + 1) << 8) | 2 * s) as i16));
            let lo = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_and_si256(q, mask), ylo), at(2 * c));
            let hi = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16::<4>(q), mask), yhi), at(2 * c + 1));
            v = _mm256_add_epi32(v, _mm256_add_epi32(lo, hi));
        }
        // SAFETY: 8 bytes from the 8 mins; y's 16 bsums as two 16-byte halves.
        let mins = unsafe {
            let m = _mm_cvtepu8_epi16(_mm_loadl_epi64(mn.as_ptr() as *const __m128i));
            let bs = _mm_hadd_epi16(
                _mm_loadu_si128(y.bsums.as_ptr() as *const __m128i),
                _mm_loadu_si128(y.bsums[8..].as_ptr() as *const __m128i),
            );
            let p = _mm_madd_epi16(m, bs);
            let p = _mm_add_epi32(p, _mm_unpackhi_epi64(p, p));
            _mm_cvtsi128_si32(_mm_add_epi32(p, _mm_shuffle_epi32::<1>(p)))
        };
        let (d, dmin) = (f16_at(b, 0), f16_at(b, 2));
        acc = (hsum_i32(v) as f32).mul_add(d * y.d, acc);
        acc_min = (mins as f32).mul_add(dmin * y.d, acc_min);
    }
    acc - acc_min
}

/// One Q6_K row times one token as ggml's AVX2 kernel (and [`super::dot`]'s `q6_k`): six-bit
/// values (unsigned) by `maddubs`, lane `l` of each 32 by its half's scale, minus
/// `32·(bsum[2l]·scale[2l] + bsum[2l+1]·scale[2l+1])`; one `fma(d·dy, lane, acc)` per
/// super-block and ggml's `hsum_float_8`.
#[target_feature(enable = "avx2,fma,f16c")]
pub fn one_q6_k(w: &[u8], y: &[BlockQ8K]) -> f32 {
    let mut acc = _mm256_setzero_ps();
    for (b, y) in w.as_chunks::<Q6_K_BYTES>().0.iter().zip(y) {
        prefetch_ahead(b);
        let (sc, d) = b[QK_K / 2 + QK_K / 4..].split_at(QK_K / 16);
        // SAFETY: every load below reads 16 or 32 bytes inside the block or y's arrays.
        unsafe {
            let scales = _mm_loadu_si128(sc.as_ptr() as *const __m128i);
            let bsums = _mm256_loadu_si256(y.bsums.as_ptr() as *const __m256i);
            let offset = _mm256_slli_epi32::<5>(_mm256_madd_epi16(bsums, _mm256_cvtepi8_epi16(scales)));
            let mut sum = _mm256_setzero_si256();
            for (m, q) in q6_k_values(b).into_iter().enumerate() {
                let yv = _mm256_loadu_si256(y.qs[32 * m..].as_ptr() as *const __m256i);
                let pick = _mm_set_epi64x(0x0101_0101_0101_0101 * (2 * m as i64 + 1), 0x0101_0101_0101_0101 * 2 * m as i64);
                let scale = _mm256_cvtepi8_epi16(_mm_shuffle_epi8(scales, pick));
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_maddubs_epi16(q, yv), scale));
            }
            let lanes = _mm256_sub_epi32(sum, offset);
            acc = _mm256_fmadd_ps(_mm256_set1_ps(y.d * f16_at(d, 0)), _mm256_cvtepi32_ps(lanes), acc);
        }
    }
    hsum_float_8(acc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gguf::quant::get_scale_min_k4;

    #[test]
    fn scales_and_mins_are_get_scale_min_k4s() {
        let bytes = crate::kernels::dot::tests::bytes(12 * 50, 3);
        for packed in bytes.as_chunks::<K_SCALE_SIZE>().0 {
            let (sc, mn) = scales_mins_k4(packed);
            for j in 0..8 {
                assert_eq!((sc[j], mn[j]), get_scale_min_k4(j, packed), "{packed:?} j = {j}");
            }
        }
    }
}
