//! Kernels for x86-64 CPUs with AVX-512 and VNNI: a prompt sixteen tokens per vector, one token
//! (decode) two rows per vector.
//!
//! The kernels of [`super::dot`] keep one token's eight integer lanes in a vector and work through
//! a row token by token. Here the sixteen lanes of a 512-bit vector are sixteen *tokens*: the
//! activations of a group of 16 tokens are interleaved four bytes at a time ([`Packed`]), so one
//! `vpdpbusd` against four weight bytes broadcast to every lane gives each token's lane `l` of
//! ggml's kernels at once (the sum of four products, bytes `4l..4l+4` of a block). Every integer
//! sum is exact, and every float operation is the one [`super::dot`]'s AVX2 kernels do for that
//! token, in the same order (`fma(d·dy, lane, acc)` per lane and block, then ggml's
//! `hsum_float_8`; Q4_K's `fma(Σ, d·dy, acc)` per 64 values): the results are bit for bit those
//! of the AVX2 kernels, so greedy tokens stay equal to llama.cpp's.
//!
//! `vpdpbusd` multiplies unsigned bytes by signed ones, and only the signed operand can be a
//! broadcast from memory. So the weights are that operand (Q4_K's nibbles are valid signed bytes
//! too), the activations are packed as `y + 128` (unsigned), and each sum starts from `−128·Σw`
//! over its weights: `Σ w·(y + 128) − 128·Σw = Σ w·y`. Q6_K's per-16 scales would need a
//! multiply per lane and block that way; its weights are instead multiplied by their scales once
//! per row into 16 bits and summed against 16-bit activations by `vpdpwssd` (two products per
//! lane and instruction). A row is unpacked once ([`Row`]) for all the groups that read it.
//!
//! One token ([`one_token_rows`], [`one_token_k_rows`]) puts two weight rows in the two halves
//! of a vector, each with the AVX2 kernel's eight lanes and FMA sequence: the values unsigned
//! (`w + offset`) with each lane started at `−offset·Σy`, or, for Q6_K, ggml's `maddubs`/`madd`
//! on both rows' scales; Q4_K's GEMV sums are exact integers, taken two sub-blocks at a time.

use core::arch::x86_64::*;

use super::act::{BlockQ8_0, BlockQ8K};
use super::dot::hsum_float_8;
use super::avx2::prefetch_ahead;
use crate::gguf::quant::{K_SCALE_SIZE, Q4_0_BYTES, Q4_K_BYTES, Q5_0_BYTES, Q6_K_BYTES, Q8_0_BYTES, QK, QK_K, get_scale_min_k4};

/// Tokens per vector.
pub const G: usize = 16;

/// Whether this CPU has what these kernels need (checked once).
pub fn available() -> bool {
    use std::sync::OnceLock;
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx512vnni")
            && is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("f16c")
    })
}

/// Activations of a batch's first tokens in groups of 16, interleaved for these kernels: per group and
/// weight block, rows of 16 lanes (one per token) — the block's 4-byte pieces, then its scales
/// (f32 bits), then for Q8_K the sums of each 32 (from ggml's `bsums`).
pub struct Packed {
    /// Groups of 16 tokens packed, the last one padded with zeros when the batch ends inside it.
    pub groups: usize,
    /// Tokens the groups hold (from the first); later ones go through the one-token kernels.
    pub tokens: usize,
    bpr: usize,
    per_block: usize,
    data: Vec<[i32; G]>,
}

/// Activations prepared for these kernels: whole groups of 16 tokens (prefill), or one token
/// (decode).
pub enum Batch {
    Groups(Packed),
    One(OneToken),
    /// One token for Q4_K or Q6_K weights (the Q8_K activations need nothing more).
    OneK,
}

impl Packed {
    /// Bytes of one group's activations.
    pub fn group_bytes(&self) -> usize {
        self.bpr * self.per_block * G * 4
    }

    #[inline(always)]
    fn block(&self, g: usize, i: usize) -> &[[i32; G]] {
        let at = (g * self.bpr + i) * self.per_block;
        &self.data[at..at + self.per_block]
    }
}

/// One token's Q8_0 activations (decode) for [`one_token_rows`]: per block, each lane's starting
/// value `−offset·Σ` of its four activations, where the weight type's values are stored as
/// `w + offset` (unsigned; Q4_0 8, Q5_0 16, Q8_0 128).
pub struct OneToken {
    corr: Vec<[i32; QK / 4]>,
}

impl OneToken {
    pub fn new(ty: crate::gguf::GgmlType, a: &[BlockQ8_0]) -> Option<Self> {
        use crate::gguf::GgmlType::*;
        let offset = match ty {
            Q4_0 => 8,
            Q5_0 => 16,
            Q8_0 => 128,
            _ => return None,
        };
        let corr = a.iter().map(|y| std::array::from_fn(|l| -offset * y.qs[4 * l..4 * l + 4].iter().map(|&q| q as i32).sum::<i32>())).collect();
        Some(OneToken { corr })
    }
}

/// Tokens in a last, partial group worth padding it for: a group costs about as much as seven
/// tokens through [`super::dot`]'s kernels, and fewer than four stay with those.
const MIN_PARTIAL: usize = 4;

/// Groups, and tokens they hold, for the first `n` tokens of a batch.
fn groups_for(n: usize) -> (usize, usize) {
    if n % G >= MIN_PARTIAL { (n.div_ceil(G), n) } else { (n / G, n / G * G) }
}

/// Interleaves the first `n` tokens' activations (`bpr` blocks each) into groups of 16 lanes:
/// `fill(y, rows)` writes one token's block `y` as its `per_block` lane values.
fn pack<B>(a: &[B], n: usize, bpr: usize, per_block: usize, fill: impl Fn(&B, &mut [i32])) -> Packed {
    let (groups, tokens) = groups_for(n);
    let mut data = vec![[0i32; G]; groups * bpr * per_block];
    let mut one = vec![0i32; per_block];
    for g in 0..groups {
        for i in 0..bpr {
            let rows = &mut data[(g * bpr + i) * per_block..][..per_block];
            for t in 0..G.min(tokens - g * G) {
                fill(&a[(g * G + t) * bpr + i], &mut one);
                for (row, &v) in rows.iter_mut().zip(&one) {
                    row[t] = v;
                }
            }
        }
    }
    Packed { groups, tokens, bpr, per_block, data }
}

/// Four signed bytes plus 128 each, as one little-endian word.
fn biased(q: &[i8]) -> i32 {
    i32::from_le_bytes(std::array::from_fn(|k| (q[k] as u8) ^ 0x80))
}

/// Two 16-bit values as one word, `lo` first.
fn pair(lo: i16, hi: i16) -> i32 {
    (lo as u16 as u32 | (hi as u16 as u32) << 16) as i32
}

/// Packs Q8_0 activations (`n` tokens of `bpr` blocks) as `y + 128`, then the scale.
pub fn pack_q8_0(a: &[BlockQ8_0], n: usize, bpr: usize) -> Packed {
    pack(a, n, bpr, QK / 4 + 1, |y, rows| {
        for l in 0..QK / 4 {
            rows[l] = biased(&y.qs[4 * l..]);
        }
        rows[QK / 4] = y.d.to_bits() as i32;
    })
}

/// Packs Q8_K activations (`n` tokens of `bpr` super-blocks) for [`q6_k`]: values as 16-bit
/// pairs, the scale, and `bsums` as 16-bit pairs.
pub fn pack_q8_k16(a: &[BlockQ8K], n: usize, bpr: usize) -> Packed {
    pack(a, n, bpr, QK_K / 2 + 1 + QK_K / 32, |y, rows| {
        for p in 0..QK_K / 2 {
            rows[p] = pair(y.qs[2 * p] as i16, y.qs[2 * p + 1] as i16);
        }
        rows[QK_K / 2] = y.d.to_bits() as i32;
        for l in 0..QK_K / 32 {
            rows[QK_K / 2 + 1 + l] = pair(y.bsums[2 * l], y.bsums[2 * l + 1]);
        }
    })
}

/// Packs Q8_K activations (`n` tokens of `bpr` super-blocks) for [`q4_k`]: `y + 128`, the
/// scale, and the sums of each 32.
pub fn pack_q8_k(a: &[BlockQ8K], n: usize, bpr: usize) -> Packed {
    pack(a, n, bpr, QK_K / 4 + 1 + QK_K / QK, |y, rows| {
        for p in 0..QK_K / 4 {
            rows[p] = biased(&y.qs[4 * p..]);
        }
        rows[QK_K / 4] = y.d.to_bits() as i32;
        for c in 0..QK_K / QK {
            rows[QK_K / 4 + 1 + c] = y.bsums[2 * c] as i32 + y.bsums[2 * c + 1] as i32;
        }
    })
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
#[inline]
fn load(row: &[i32; G]) -> __m512i {
    // SAFETY: 64 bytes from a 64-byte array; the load is unaligned.
    unsafe { _mm512_loadu_si512(row.as_ptr() as *const __m512i) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
#[inline]
fn f16_at(b: &[u8], i: usize) -> f32 {
    let h = u16::from_le_bytes([b[i], b[i + 1]]);
    _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h as i32)))
}

/// The 32 signed weights of a Q4_0 block.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
#[inline]
fn unpack_q4_0(b: &[u8]) -> __m256i {
    _mm256_sub_epi8(unsigned_q4_0(b), _mm256_set1_epi8(8))
}

/// The 32 signed weights of a Q5_0 block.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
#[inline]
fn unpack_q5_0(b: &[u8]) -> __m256i {
    _mm256_sub_epi8(unsigned_q5_0(b), _mm256_set1_epi8(16))
}

/// The 32 signed weights of a Q8_0 block.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
#[inline]
fn unpack_q8_0(b: &[u8]) -> __m256i {
    // SAFETY: 32 bytes from a block of 34.
    unsafe { _mm256_loadu_si256(b[2..34].as_ptr() as *const __m256i) }
}

/// One weight row unpacked once for all the token groups that read it: its values as 4-byte
/// pieces, each lane's starting value (`−128·Σ` of the weights it multiplies), and the block
/// scales (Q4_K: also `dmin` and the six-bit scales and mins of each 32; Q6_K: the values times
/// their scales as 16-bit pairs in `w4`, and the scales as 16-bit pairs in `sc`).
#[derive(Default)]
pub struct Row {
    w4: Vec<i32>,
    corr: Vec<i32>,
    d: Vec<f32>,
    dmin: Vec<f32>,
    sc: Vec<i32>,
    mn: Vec<i32>,
}

impl Row {
    fn clear(&mut self) {
        for v in [&mut self.w4, &mut self.corr, &mut self.sc, &mut self.mn] {
            v.clear();
        }
        self.d.clear();
        self.dmin.clear();
    }

    /// Appends 32 signed weights and their eight lanes' starting values.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
    #[inline]
    fn push32(&mut self, x: __m256i, d: f32) {
        let sums = _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_set1_epi8(1), x);
        let corr = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32::<7>(sums));
        let (mut a, mut b) = ([0i32; QK / 4], [0i32; QK / 4]);
        // SAFETY: 32-byte stores into 32-byte arrays.
        unsafe {
            _mm256_storeu_si256(a.as_mut_ptr() as *mut __m256i, x);
            _mm256_storeu_si256(b.as_mut_ptr() as *mut __m256i, corr);
        }
        self.w4.extend_from_slice(&a);
        self.corr.extend_from_slice(&b);
        self.d.push(d);
    }

    /// Unpacks a Q4_0, Q5_0 or Q8_0 row.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
    pub fn unpack(&mut self, ty: crate::gguf::GgmlType, w: &[u8]) {
        use crate::gguf::GgmlType::*;
        self.clear();
        match ty {
            Q4_0 => w.as_chunks::<Q4_0_BYTES>().0.iter().for_each(|b| self.push32(unpack_q4_0(b), f16_at(b, 0))),
            Q5_0 => w.as_chunks::<Q5_0_BYTES>().0.iter().for_each(|b| self.push32(unpack_q5_0(b), f16_at(b, 0))),
            Q8_0 => w.as_chunks::<Q8_0_BYTES>().0.iter().for_each(|b| self.push32(unpack_q8_0(b), f16_at(b, 0))),
            Q4_K => w.as_chunks::<Q4_K_BYTES>().0.iter().for_each(|b| self.push_q4_k(b)),
            Q6_K => w.as_chunks::<Q6_K_BYTES>().0.iter().for_each(|b| self.push_q6_k(b)),
            ty => unreachable!("no packed kernel for {ty:?}"),
        }
    }

    /// Appends a Q6_K super-block: its unsigned six-bit values (ggml's layout) times their
    /// signed per-16 scales, as 16-bit pairs, and the scales as pairs.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
    fn push_q6_k(&mut self, b: &[u8]) {
        let (sc, d) = b[QK_K / 2 + QK_K / 4..].split_at(QK_K / 16);
        let at = self.w4.len();
        self.w4.resize(at + QK_K / 2, 0);
        let w = &mut self.w4[at..];
        // Values 32k .. 32k + 32; each 16 of them times its scale, as 16-bit values.
        for (k, q) in q6_k_values(b).iter().enumerate() {
            for half in 0..2 {
                let m = 2 * k + half;
                let v16 = _mm256_cvtepu8_epi16(if half == 0 { _mm256_castsi256_si128(*q) } else { _mm256_extracti128_si256::<1>(*q) });
                let scaled = _mm256_mullo_epi16(v16, _mm256_set1_epi16(sc[m] as i8 as i16));
                // SAFETY: 32 bytes into the 8 pairs of values 16m .. 16m + 16.
                unsafe { _mm256_storeu_si256(w[8 * m..8 * m + 8].as_mut_ptr() as *mut __m256i, scaled) };
            }
        }
        let scale = |m: usize| sc[m] as i8 as i16;
        self.sc.extend((0..QK_K / 32).map(|l| pair(scale(2 * l), scale(2 * l + 1))));
        self.d.push(f16_at(d, 0));
    }

    /// Appends a Q4_K super-block: sub-block 2c holds the low nibbles of `qs[32c..32c + 32]`,
    /// 2c + 1 the high ones.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
    #[inline]
    fn push_q4_k(&mut self, b: &[u8]) {
        let packed: &[u8; K_SCALE_SIZE] = b[4..4 + K_SCALE_SIZE].try_into().expect("12 scale bytes");
        let qs = &b[4 + K_SCALE_SIZE..];
        for c in 0..QK_K / 64 {
            // SAFETY: 32 bytes from the block's 128 bytes of nibbles.
            let v = unsafe { _mm256_loadu_si256(qs[32 * c..32 * c + 32].as_ptr() as *const __m256i) };
            for x in [_mm256_and_si256(v, _mm256_set1_epi8(0x0F)), _mm256_and_si256(_mm256_srli_epi16::<4>(v), _mm256_set1_epi8(0x0F))] {
                let (mut a, mut s) = ([0i32; QK / 4], [0i32; QK / 4]);
                let sums = _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_set1_epi8(1), x);
                // SAFETY: 32-byte stores into 32-byte arrays.
                unsafe {
                    _mm256_storeu_si256(a.as_mut_ptr() as *mut __m256i, x);
                    _mm256_storeu_si256(s.as_mut_ptr() as *mut __m256i, sums);
                }
                self.w4.extend_from_slice(&a);
                self.corr.push(-128 * s.iter().sum::<i32>());
            }
        }
        for c in 0..QK_K / QK {
            let (sc, mn) = get_scale_min_k4(c, packed);
            self.sc.push(sc as i32);
            self.mn.push(mn as i32);
        }
        self.d.push(f16_at(b, 0));
        self.dmin.push(f16_at(b, 2));
    }
}

/// ggml's `hsum_float_8` of each token's eight lanes: ((x4 + x0) + (x6 + x2)) + ((x5 + x1) + (x7 + x3)),
/// stored to the group's 16 outputs.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
#[inline]
fn hsum8_store(acc: &[__m512; 8], out: &mut [f32]) {
    let s = _mm512_add_ps(
        _mm512_add_ps(_mm512_add_ps(acc[4], acc[0]), _mm512_add_ps(acc[6], acc[2])),
        _mm512_add_ps(_mm512_add_ps(acc[5], acc[1]), _mm512_add_ps(acc[7], acc[3])),
    );
    // SAFETY: 64 bytes into the group's 16 outputs.
    unsafe { _mm512_storeu_ps(out[..G].as_mut_ptr(), s) };
}

/// `R` unpacked Q4_0, Q5_0 or Q8_0 rows times one packed group: `out[r][t]` for its 16 tokens.
/// The rows share each load of the activations (they come from L2 for long rows).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
pub fn signed32<const R: usize>(rows: [&Row; R], p: &Packed, g: usize, out: [&mut [f32]; R]) {
    const L: usize = QK / 4;
    let mut acc = [[_mm512_setzero_ps(); L]; R];
    for i in 0..rows[0].d.len() {
        let y = p.block(g, i);
        let yd = _mm512_castsi512_ps(load(&y[L]));
        let w: [&[i32; L]; R] = std::array::from_fn(|r| rows[r].w4[L * i..][..L].try_into().unwrap());
        let corr: [&[i32; L]; R] = std::array::from_fn(|r| rows[r].corr[L * i..][..L].try_into().unwrap());
        let scale: [__m512; R] = std::array::from_fn(|r| _mm512_mul_ps(_mm512_set1_ps(rows[r].d[i]), yd));
        for l in 0..L {
            let yl = load(&y[l]);
            for r in 0..R {
                let v = _mm512_dpbusd_epi32(_mm512_set1_epi32(corr[r][l]), yl, _mm512_set1_epi32(w[r][l]));
                acc[r][l] = _mm512_fmadd_ps(scale[r], _mm512_cvtepi32_ps(v), acc[r][l]);
            }
        }
    }
    for (acc, out) in acc.iter().zip(out) {
        hsum8_store(acc, out);
    }
}

/// `R` unpacked Q4_K rows times one packed Q8_K group, as [`super::dot`]'s `q4_k` computes
/// tokens in whole groups of four (llama.cpp's repacked GEMM): per 64 values
/// `fma(Σ scale·Σq·y, d·dy, acc)` and `fma(Σ min·bsum, dmin·dy, acc_min)`; `acc − acc_min`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
pub fn q4_k<const R: usize>(rows: [&Row; R], p: &Packed, g: usize, out: [&mut [f32]; R]) {
    const SUBS: usize = QK_K / QK;
    let (mut acc, mut acc_min) = ([_mm512_setzero_ps(); R], [_mm512_setzero_ps(); R]);
    for i in 0..rows[0].d.len() {
        let y = p.block(g, i);
        let w: [&[i32; QK_K / 4]; R] = std::array::from_fn(|r| rows[r].w4[i * QK_K / 4..][..QK_K / 4].try_into().unwrap());
        let corr: [&[i32; SUBS]; R] = std::array::from_fn(|r| rows[r].corr[i * SUBS..][..SUBS].try_into().unwrap());
        let sc: [&[i32; SUBS]; R] = std::array::from_fn(|r| rows[r].sc[i * SUBS..][..SUBS].try_into().unwrap());
        let mn: [&[i32; SUBS]; R] = std::array::from_fn(|r| rows[r].mn[i * SUBS..][..SUBS].try_into().unwrap());
        let yd = _mm512_castsi512_ps(load(&y[QK_K / 4]));
        for pair in 0..SUBS / 2 {
            let (mut sum, mut mins) = ([_mm512_setzero_si512(); R], [_mm512_setzero_si512(); R]);
            for c in [2 * pair, 2 * pair + 1] {
                let mut s: [__m512i; R] = std::array::from_fn(|r| _mm512_set1_epi32(corr[r][c]));
                for k in 8 * c..8 * c + 8 {
                    let yk = load(&y[k]);
                    for r in 0..R {
                        s[r] = _mm512_dpbusd_epi32(s[r], yk, _mm512_set1_epi32(w[r][k]));
                    }
                }
                let bsum = load(&y[QK_K / 4 + 1 + c]);
                for r in 0..R {
                    sum[r] = _mm512_add_epi32(sum[r], _mm512_mullo_epi32(s[r], _mm512_set1_epi32(sc[r][c])));
                    mins[r] = _mm512_add_epi32(mins[r], _mm512_mullo_epi32(bsum, _mm512_set1_epi32(mn[r][c])));
                }
            }
            for r in 0..R {
                let dy = _mm512_mul_ps(_mm512_set1_ps(rows[r].d[i]), yd);
                let dminy = _mm512_mul_ps(_mm512_set1_ps(rows[r].dmin[i]), yd);
                acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum[r]), dy, acc[r]);
                acc_min[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(mins[r]), dminy, acc_min[r]);
            }
        }
    }
    for ((acc, acc_min), out) in acc.iter().zip(&acc_min).zip(out) {
        // SAFETY: 64 bytes into the group's 16 outputs.
        unsafe { _mm512_storeu_ps(out[..G].as_mut_ptr(), _mm512_sub_ps(*acc, *acc_min)) };
    }
}

/// `R` unpacked Q6_K rows times one group packed by [`pack_q8_k16`], as [`super::dot`]'s `q6_k`
/// (ggml's AVX2 kernel): per super-block, lane `l` is `Σ_j scale·Σ q·y` over bytes `4l..4l+4` of
/// each 32, minus `32·(bsum[2l]·scale[2l] + bsum[2l+1]·scale[2l+1])`; then
/// `fma(d·dy, lane, acc)` per lane and ggml's `hsum_float_8`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
pub fn q6_k<const R: usize>(rows: [&Row; R], p: &Packed, g: usize, out: [&mut [f32]; R]) {
    let mut acc = [[_mm512_setzero_ps(); 8]; R];
    for i in 0..rows[0].d.len() {
        let y = p.block(g, i);
        let w: [&[i32; QK_K / 2]; R] = std::array::from_fn(|r| rows[r].w4[i * QK_K / 2..][..QK_K / 2].try_into().unwrap());
        let sc: [&[i32; 8]; R] = std::array::from_fn(|r| rows[r].sc[i * 8..][..8].try_into().unwrap());
        let yd = _mm512_castsi512_ps(load(&y[QK_K / 2]));
        let scale: [__m512; R] = std::array::from_fn(|r| _mm512_mul_ps(yd, _mm512_set1_ps(rows[r].d[i])));
        for l in 0..8 {
            let mut s = [_mm512_setzero_si512(); R];
            for j in 0..QK_K / QK {
                let k = 16 * j + 2 * l;
                let (y0, y1) = (load(&y[k]), load(&y[k + 1]));
                for r in 0..R {
                    s[r] = _mm512_dpwssd_epi32(s[r], y0, _mm512_set1_epi32(w[r][k]));
                    s[r] = _mm512_dpwssd_epi32(s[r], y1, _mm512_set1_epi32(w[r][k + 1]));
                }
            }
            let bsums = load(&y[QK_K / 2 + 1 + l]);
            for r in 0..R {
                let offset = _mm512_dpwssd_epi32(_mm512_setzero_si512(), bsums, _mm512_set1_epi32(sc[r][l]));
                let lane = _mm512_sub_epi32(s[r], _mm512_slli_epi32::<5>(offset));
                acc[r][l] = _mm512_fmadd_ps(scale[r], _mm512_cvtepi32_ps(lane), acc[r][l]);
            }
        }
    }
    for (acc, out) in acc.iter().zip(out) {
        hsum8_store(acc, out);
    }
}

/// The 32 values of a Q4_0 block plus 8 (unsigned).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
#[inline]
fn unsigned_q4_0(b: &[u8]) -> __m256i {
    // SAFETY: 16 bytes from a block of 18.
    let q = unsafe { _mm_loadu_si128(b[2..18].as_ptr() as *const __m128i) };
    _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16::<4>(q), q), _mm256_set1_epi8(0x0F))
}

/// The 32 values of a Q5_0 block plus 16 (unsigned; fifth bits spread to bytes as ggml's
/// `bytes_from_bits_32`).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
#[inline]
fn unsigned_q5_0(b: &[u8]) -> __m256i {
    let qh = u32::from_le_bytes([b[2], b[3], b[4], b[5]]);
    // SAFETY: 16 bytes from a block of 22.
    let q = unsafe { _mm_loadu_si128(b[6..22].as_ptr() as *const __m128i) };
    let nib = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16::<4>(q), q), _mm256_set1_epi8(0x0F));
    _mm256_or_si256(nib, _mm256_maskz_mov_epi8(qh, _mm256_set1_epi8(0x10)))
}

/// The 32 values of a Q8_0 block plus 128 (unsigned).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
#[inline]
fn unsigned_q8_0(b: &[u8]) -> __m256i {
    _mm256_xor_si256(unpack_q8_0(b), _mm256_set1_epi8(-128))
}

/// Two weight rows times one token (decode), each row in one half of a 512-bit vector, with
/// exactly the lanes and the `fma(d·dy, lane, acc)` sequence of [`super::dot`]'s AVX2 kernels:
/// the values are unsigned (`w + offset`) and each lane starts from `−offset·Σy`
/// ([`OneToken`]), so one `vpdpbusd` gives both rows' eight lanes of a block.
macro_rules! one_token {
    ($(#[$doc:meta])* $name:ident, $bytes:expr, $unsigned:ident) => {
        $(#[$doc])*
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
        fn $name(wa: &[u8], wb: &[u8], y: &[BlockQ8_0], one: &OneToken) -> (f32, f32) {
            let mut acc = _mm512_setzero_ps();
            let blocks = wa.as_chunks::<{ $bytes }>().0.iter().zip(wb.as_chunks::<{ $bytes }>().0);
            for (((ba, bb), y), corr) in blocks.zip(y).zip(&one.corr) {
                prefetch_ahead(ba);
                prefetch_ahead(bb);
                let u = _mm512_inserti64x4::<1>(_mm512_castsi256_si512($unsigned(ba)), $unsigned(bb));
                // SAFETY: 32-byte loads from 32-byte arrays.
                let (yq, c) = unsafe {
                    (
                        _mm512_broadcast_i64x4(_mm256_loadu_si256(y.qs.as_ptr() as *const __m256i)),
                        _mm512_broadcast_i64x4(_mm256_loadu_si256(corr.as_ptr() as *const __m256i)),
                    )
                };
                let v = _mm512_dpbusd_epi32(c, u, yq);
                let scale = _mm512_mask_blend_ps(0xFF00, _mm512_set1_ps(f16_at(ba, 0) * y.d), _mm512_set1_ps(f16_at(bb, 0) * y.d));
                acc = _mm512_fmadd_ps(scale, _mm512_cvtepi32_ps(v), acc);
            }
            let hi = _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(acc)));
            (hsum_float_8(_mm512_castps512_ps256(acc)), hsum_float_8(hi))
        }
    };
}

one_token!(one_q4_0, Q4_0_BYTES, unsigned_q4_0);
one_token!(one_q5_0, Q5_0_BYTES, unsigned_q5_0);
one_token!(one_q8_0, Q8_0_BYTES, unsigned_q8_0);

/// Rows `r0..` of a Q4_0 (not repacked), Q5_0 or Q8_0 matrix times one token, two rows at a
/// time (see the `one_token!` kernels); `row(r)` gives row `r`'s bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
pub fn one_token_rows<'a>(ty: crate::gguf::GgmlType, row: impl Fn(usize) -> &'a [u8], y: &[BlockQ8_0], one: &OneToken, r0: usize, out: &mut [f32]) {
    use crate::gguf::GgmlType::*;
    let kernel = |a: &[u8], b: &[u8]| match ty {
        Q4_0 => one_q4_0(a, b, y, one),
        Q5_0 => one_q5_0(a, b, y, one),
        Q8_0 => one_q8_0(a, b, y, one),
        ty => unreachable!("no one-token kernel for {ty:?}"),
    };
    by_pairs(row, r0, out, kernel)
}

/// `out[i]` for rows `r0 + i` by a kernel of two rows at a time; an odd last row goes in both
/// halves.
#[inline(always)]
fn by_pairs<'a>(row: impl Fn(usize) -> &'a [u8], r0: usize, out: &mut [f32], kernel: impl Fn(&[u8], &[u8]) -> (f32, f32)) {
    let last = r0 + out.len() - 1;
    let mut pairs = out.chunks_exact_mut(2);
    for (i, o) in (&mut pairs).enumerate() {
        (o[0], o[1]) = kernel(row(r0 + 2 * i), row(r0 + 2 * i + 1));
    }
    if let [o] = pairs.into_remainder() {
        *o = kernel(row(last), row(last)).0;
    }
}

/// One Q4_K row times one token (decode), as [`super::dot`]'s `q4_k` computes a token outside
/// whole groups of four (llama.cpp's GEMV): the super-block's `Σ scale·Σq·y` and `Σ min·bsum`
/// exact in integers (here two sub-blocks per `vpdpbusd`), then `fma(Σ, d·dy, acc)` and
/// `fma(mins, dmin·dy, acc_min)` once per super-block; `acc − acc_min`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
fn one_q4_k(w: &[u8], y: &[BlockQ8K]) -> f32 {
    let (mut acc, mut acc_min) = (0.0f32, 0.0f32);
    for (b, y) in w.as_chunks::<Q4_K_BYTES>().0.iter().zip(y) {
        prefetch_ahead(b);
        let packed: &[u8; K_SCALE_SIZE] = b[4..4 + K_SCALE_SIZE].try_into().expect("12 scale bytes");
        let qs = &b[4 + K_SCALE_SIZE..];
        let mut s = _mm512_setzero_si512();
        let mut mins = 0i32;
        for c in 0..QK_K / 64 {
            let (s0, m0) = get_scale_min_k4(2 * c, packed);
            let (s1, m1) = get_scale_min_k4(2 * c + 1, packed);
            // SAFETY: 32 bytes of the block's nibbles; 64 of the token's 256 values.
            let (v, yq) = unsafe {
                (_mm256_loadu_si256(qs[32 * c..].as_ptr() as *const __m256i), _mm512_loadu_si512(y.qs[64 * c..].as_ptr() as *const __m512i))
            };
            let m4 = _mm256_set1_epi8(0x0F);
            let u = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(_mm256_and_si256(v, m4)), _mm256_and_si256(_mm256_srli_epi16::<4>(v), m4));
            let p = _mm512_dpbusd_epi32(_mm512_setzero_si512(), u, yq);
            let sc = _mm512_mask_blend_epi32(0xFF00, _mm512_set1_epi32(s0 as i32), _mm512_set1_epi32(s1 as i32));
            s = _mm512_add_epi32(s, _mm512_mullo_epi32(p, sc));
            mins +=
                m0 as i32 * (y.bsums[4 * c] as i32 + y.bsums[4 * c + 1] as i32) + m1 as i32 * (y.bsums[4 * c + 2] as i32 + y.bsums[4 * c + 3] as i32);
        }
        let sum = _mm512_reduce_add_epi32(s);
        acc = (sum as f32).mul_add(f16_at(b, 0) * y.d, acc);
        acc_min = (mins as f32).mul_add(f16_at(b, 2) * y.d, acc_min);
    }
    acc - acc_min
}

/// A Q6_K super-block's 256 unsigned six-bit values, in order (ggml's layout).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
#[inline]
fn q6_k_values(b: &[u8]) -> [__m256i; 8] {
    let (ql, qh) = (&b[..QK_K / 2], &b[QK_K / 2..QK_K / 2 + QK_K / 4]);
    let (m4, m2) = (_mm256_set1_epi8(0x0F), _mm256_set1_epi8(3));
    let mut out = [_mm256_setzero_si256(); 8];
    for n in 0..2 {
        // SAFETY: 32-byte loads from the block's 128 bytes of `ql` and 64 of `qh`.
        let (l0, l1, h) = unsafe {
            (
                _mm256_loadu_si256(ql[64 * n..].as_ptr() as *const __m256i),
                _mm256_loadu_si256(ql[64 * n + 32..].as_ptr() as *const __m256i),
                _mm256_loadu_si256(qh[32 * n..].as_ptr() as *const __m256i),
            )
        };
        let hi = |v: __m256i| _mm256_slli_epi16::<4>(_mm256_and_si256(v, m2));
        out[4 * n] = _mm256_or_si256(_mm256_and_si256(l0, m4), hi(h));
        out[4 * n + 1] = _mm256_or_si256(_mm256_and_si256(l1, m4), hi(_mm256_srli_epi16::<2>(h)));
        out[4 * n + 2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16::<4>(l0), m4), hi(_mm256_srli_epi16::<4>(h)));
        out[4 * n + 3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16::<4>(l1), m4), hi(_mm256_srli_epi16::<6>(h)));
    }
    out
}

/// Two Q6_K rows times one token (decode), one per half of a 512-bit vector, as
/// [`super::dot`]'s `q6_k` (ggml's AVX2 kernel): per 32 values `maddubs(q, y)` then `madd` by
/// the per-16 scales, minus `32·madd(bsums, scales)`, then `fma(d·dy, lane, acc)` per
/// super-block and ggml's `hsum_float_8` per row.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
fn one_q6_k(wa: &[u8], wb: &[u8], y: &[BlockQ8K]) -> (f32, f32) {
    let mut acc = _mm512_setzero_ps();
    let blocks = wa.as_chunks::<Q6_K_BYTES>().0.iter().zip(wb.as_chunks::<Q6_K_BYTES>().0);
    for ((ba, bb), y) in blocks.zip(y) {
        prefetch_ahead(ba);
        prefetch_ahead(bb);
        let (qa, qb) = (q6_k_values(ba), q6_k_values(bb));
        let at = QK_K / 2 + QK_K / 4;
        // SAFETY: 16 scale bytes of each block; 32 bytes of the token's sums.
        let (sa, sb, bsums) = unsafe {
            (
                _mm256_cvtepi8_epi16(_mm_loadu_si128(ba[at..].as_ptr() as *const __m128i)),
                _mm256_cvtepi8_epi16(_mm_loadu_si128(bb[at..].as_ptr() as *const __m128i)),
                _mm256_loadu_si256(y.bsums.as_ptr() as *const __m256i),
            )
        };
        // Scales of both rows as 32 16-bit values: row a's 16, then row b's.
        let scales = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(sa), sb);
        let mut s = _mm512_setzero_si512();
        for j in 0..QK_K / QK {
            let u = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(qa[j]), qb[j]);
            // SAFETY: 32 of the token's 256 values.
            let yq = unsafe { _mm512_broadcast_i64x4(_mm256_loadu_si256(y.qs[32 * j..].as_ptr() as *const __m256i)) };
            // 16-bit lanes 0..8 of each row take scale 2j, lanes 8..16 scale 2j + 1.
            let (lo, hi) = (2 * j as i16, 2 * j as i16 + 1);
            let idx = _mm512_set_epi16(
                16 + hi,
                16 + hi,
                16 + hi,
                16 + hi,
                16 + hi,
                16 + hi,
                16 + hi,
                16 + hi,
                16 + lo,
                16 + lo,
                16 + lo,
                16 + lo,
                16 + lo,
                16 + lo,
                16 + lo,
                16 + lo,
                hi,
                hi,
                hi,
                hi,
                hi,
                hi,
                hi,
                hi,
                lo,
                lo,
                lo,
                lo,
                lo,
                lo,
                lo,
                lo,
            );
            let sc = _mm512_permutexvar_epi16(idx, scales);
            s = _mm512_add_epi32(s, _mm512_madd_epi16(_mm512_maddubs_epi16(u, yq), sc));
        }
        let offset = _mm512_madd_epi16(_mm512_broadcast_i64x4(bsums), scales);
        let lanes = _mm512_sub_epi32(s, _mm512_slli_epi32::<5>(offset));
        let scale = _mm512_mask_blend_ps(
            0xFF00,
            _mm512_set1_ps(y.d * f16_at(ba, QK_K / 2 + QK_K / 4 + QK_K / 16)),
            _mm512_set1_ps(y.d * f16_at(bb, QK_K / 2 + QK_K / 4 + QK_K / 16)),
        );
        acc = _mm512_fmadd_ps(scale, _mm512_cvtepi32_ps(lanes), acc);
    }
    let hi = _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(acc)));
    (hsum_float_8(_mm512_castps512_ps256(acc)), hsum_float_8(hi))
}

/// Rows `r0..` of a Q4_K or Q6_K matrix times one token; `row(r)` gives row `r`'s bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
pub fn one_token_k_rows<'a>(ty: crate::gguf::GgmlType, row: impl Fn(usize) -> &'a [u8], y: &[BlockQ8K], r0: usize, out: &mut [f32]) {
    use crate::gguf::GgmlType::*;
    match ty {
        Q4_K => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = one_q4_k(row(r0 + i), y);
            }
        }
        Q6_K => by_pairs(row, r0, out, |a, b| one_q6_k(a, b, y)),
        ty => unreachable!("no one-token K-quant kernel for {ty:?}"),
    }
}
