//! Dot products of one quantized weight row with quantized activations (ggml's `vec_dot_*`).
//!
//! Integer sums per block are exact, as in llama.cpp; only the f32 accumulation across blocks
//! may round in another order (~1e-7 relative). Loops are written so LLVM vectorizes them
//! (SSE2/AVX2 natively, SIMD128 in wasm); [`super::matmul`] compiles them once more with AVX2.

use super::act::{BlockQ8_0, BlockQ8_1, BlockQ8K};
use crate::gguf::quant::{
    K_SCALE_SIZE, Q4_0_BYTES, Q4_1_BYTES, Q4_K_BYTES, Q5_0_BYTES, Q5_1_BYTES, Q5_K_BYTES, Q6_K_BYTES, Q8_0_BYTES, QK,
    QK_K, get_scale_min_k4,
};

#[inline(always)]
fn f16_at(b: &[u8], i: usize) -> f32 {
    f16_bits(u16::from_le_bytes([b[i], b[i + 1]]))
}

/// f16 bits to f32 without a call: IEEE conversion by shifts, subnormals through one multiply.
#[inline(always)]
pub fn f16_bits(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1F) as u32;
    let man = (h & 0x3FF) as u32;
    let bits = if exp == 0 {
        // zero or subnormal: man · 2^-24
        let v = man as f32 * (1.0 / 16_777_216.0);
        return if sign != 0 { -v } else { v };
    } else if exp == 0x1F {
        sign | 0x7F80_0000 | (man << 13)
    } else {
        sign | ((exp + 112) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

/// Σ a·b over the first and the last 16 of 32 signed bytes: the primitive every kernel below is
/// built on (Q6_K scales each 16 separately).
#[inline(always)]
pub fn dot_i8_portable(a: &[i8; QK], b: &[i8; QK]) -> (i32, i32) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::*;
        // SAFETY: 32-byte arrays; unaligned v128 loads are allowed in wasm.
        unsafe {
            let (a0, a1) = (v128_load(a.as_ptr() as *const v128), v128_load(a.as_ptr().add(16) as *const v128));
            let (b0, b1) = (v128_load(b.as_ptr() as *const v128), v128_load(b.as_ptr().add(16) as *const v128));
            let half = |a: v128, b: v128| {
                let s = i32x4_add(
                    i32x4_extadd_pairwise_i16x8(i16x8_extmul_low_i8x16(a, b)),
                    i32x4_extadd_pairwise_i16x8(i16x8_extmul_high_i8x16(a, b)),
                );
                i32x4_extract_lane::<0>(s) + i32x4_extract_lane::<1>(s) + i32x4_extract_lane::<2>(s) + i32x4_extract_lane::<3>(s)
            };
            return (half(a0, b0), half(a1, b1));
        }
    }
    #[allow(unreachable_code)]
    {
        let (mut lo, mut hi) = (0i32, 0i32);
        for i in 0..QK / 2 {
            lo += (a[i] as i16 * b[i] as i16) as i32;
            hi += (a[i + 16] as i16 * b[i + 16] as i16) as i32;
        }
        (lo, hi)
    }
}

/// [`dot_i8_portable`] with AVX2: `maddubs` on |a| and sign-adjusted b, then `madd`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub fn dot_i8_avx2(a: &[i8; QK], b: &[i8; QK]) -> (i32, i32) {
    use core::arch::x86_64::*;
    // SAFETY: both arrays are 32 bytes; loads are unaligned.
    unsafe {
        let x = _mm256_loadu_si256(a.as_ptr() as *const __m256i);
        let y = _mm256_loadu_si256(b.as_ptr() as *const __m256i);
        let ax = _mm256_sign_epi8(x, x);
        let sy = _mm256_sign_epi8(y, x);
        let p = _mm256_madd_epi16(_mm256_maddubs_epi16(ax, sy), _mm256_set1_epi16(1));
        let hsum = |s: __m128i| {
            let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
            let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
            _mm_cvtsi128_si32(s)
        };
        (hsum(_mm256_castsi256_si128(p)), hsum(_mm256_extracti128_si256::<1>(p)))
    }
}

#[inline(always)]
fn bytemuck_i8(b: &[u8]) -> &[i8; QK] {
    let b: &[u8; QK] = b.try_into().expect("32 bytes");
    // SAFETY: u8 and i8 have the same size and alignment, and every bit pattern is valid.
    unsafe { &*(b as *const [u8; QK] as *const [i8; QK]) }
}

/// The kernels, generated once portable and once with AVX2 (`$feat`) around the dot primitive `$dot`.
macro_rules! kernels {
    ($($feat:literal)?; $dot:path) => {
$(#[target_feature(enable = $feat)])?
#[inline]
fn dot32(a: &[i8; QK], b: &[i8; QK]) -> i32 {
    let (lo, hi) = $dot(a, b);
    lo + hi
}

/// Q4_0 weights (`(q - 8)·d`) with Q8_0 activations.
$(#[target_feature(enable = $feat)])?
#[inline]
pub fn q4_0(w: &[u8], a: &[BlockQ8_0]) -> f32 {
    let mut sum = 0.0f32;
    for (b, y) in w.as_chunks::<Q4_0_BYTES>().0.iter().zip(a) {
        let mut x = [0i8; QK];
        for j in 0..QK / 2 {
            x[j] = (b[2 + j] & 0x0F) as i8 - 8;
            x[j + QK / 2] = (b[2 + j] >> 4) as i8 - 8;
        }
        sum += dot32(&x, &y.qs) as f32 * (f16_at(b, 0) * y.d);
    }
    sum
}

/// Q4_1 weights (`q·d + m`) with Q8_1 activations: `d·dy·Σq·qy + m·sy`.
$(#[target_feature(enable = $feat)])?
#[inline]
pub fn q4_1(w: &[u8], a: &[BlockQ8_1]) -> f32 {
    let mut sum = 0.0f32;
    for (b, y) in w.as_chunks::<Q4_1_BYTES>().0.iter().zip(a) {
        let mut x = [0i8; QK];
        for j in 0..QK / 2 {
            x[j] = (b[4 + j] & 0x0F) as i8;
            x[j + QK / 2] = (b[4 + j] >> 4) as i8;
        }
        sum += (f16_at(b, 0) * y.d) * dot32(&x, &y.qs) as f32 + f16_at(b, 2) * y.s;
    }
    sum
}

$(#[target_feature(enable = $feat)])?
#[inline]
fn q5_values(qh: u32, qs: &[u8], offset: i8) -> [i8; QK] {
    let mut x = [0i8; QK];
    for j in 0..QK / 2 {
        let h0 = (((qh >> j) << 4) & 0x10) as u8;
        let h1 = ((qh >> (j + 12)) & 0x10) as u8;
        x[j] = ((qs[j] & 0x0F) | h0) as i8 - offset;
        x[j + QK / 2] = ((qs[j] >> 4) | h1) as i8 - offset;
    }
    x
}

/// Q5_0 weights (`(q - 16)·d`, fifth bits in `qh`) with Q8_0 activations.
$(#[target_feature(enable = $feat)])?
#[inline]
pub fn q5_0(w: &[u8], a: &[BlockQ8_0]) -> f32 {
    let mut sum = 0.0f32;
    for (b, y) in w.as_chunks::<Q5_0_BYTES>().0.iter().zip(a) {
        let x = q5_values(u32::from_le_bytes([b[2], b[3], b[4], b[5]]), &b[6..], 16);
        sum += dot32(&x, &y.qs) as f32 * (f16_at(b, 0) * y.d);
    }
    sum
}

/// Q5_1 weights (`q·d + m`) with Q8_1 activations.
$(#[target_feature(enable = $feat)])?
#[inline]
pub fn q5_1(w: &[u8], a: &[BlockQ8_1]) -> f32 {
    let mut sum = 0.0f32;
    for (b, y) in w.as_chunks::<Q5_1_BYTES>().0.iter().zip(a) {
        let x = q5_values(u32::from_le_bytes([b[4], b[5], b[6], b[7]]), &b[8..], 0);
        sum += (f16_at(b, 0) * y.d) * dot32(&x, &y.qs) as f32 + f16_at(b, 2) * y.s;
    }
    sum
}

/// Q8_0 weights with Q8_0 activations.
$(#[target_feature(enable = $feat)])?
#[inline]
pub fn q8_0(w: &[u8], a: &[BlockQ8_0]) -> f32 {
    let mut sum = 0.0f32;
    for (b, y) in w.as_chunks::<Q8_0_BYTES>().0.iter().zip(a) {
        let x: &[i8; QK] = bytemuck_i8(&b[2..2 + QK]);
        sum += dot32(x, &y.qs) as f32 * (f16_at(b, 0) * y.d);
    }
    sum
}


/// Σ over eight sub-blocks of 32: `scale[j] · Σ q·qy`, exact in i32.
$(#[target_feature(enable = $feat)])?
#[inline]
fn scaled_sums_32(q: &[i8; QK_K], qy: &[i8; QK_K], scales: &[u8; 8]) -> i32 {
    let mut isum = 0i32;
    for j in 0..QK_K / QK {
        let s = dot32(q[j * QK..][..QK].try_into().unwrap(), qy[j * QK..][..QK].try_into().unwrap());
        isum += scales[j] as i32 * s;
    }
    isum
}

$(#[target_feature(enable = $feat)])?
#[inline]
fn k4_scales(b: &[u8]) -> ([u8; 8], [u8; 8]) {
    let packed: &[u8; K_SCALE_SIZE] = b[4..4 + K_SCALE_SIZE].try_into().expect("12 scale bytes");
    let (mut sc, mut mn) = ([0u8; 8], [0u8; 8]);
    for j in 0..8 {
        (sc[j], mn[j]) = get_scale_min_k4(j, packed);
    }
    (sc, mn)
}

$(#[target_feature(enable = $feat)])?
#[inline]
fn k_mins(y: &BlockQ8K, mins: &[u8; 8]) -> i32 {
    (0..QK_K / 16).map(|j| y.bsums[j] as i32 * mins[j / 2] as i32).sum()
}

/// Q4_K weights with Q8_K activations: `d·dy·Σ scale·Σq·qy − dmin·dy·Σ min·bsum`.
$(#[target_feature(enable = $feat)])?
#[inline]
pub fn q4_k(w: &[u8], a: &[BlockQ8K]) -> f32 {
    let mut sum = 0.0f32;
    for (b, y) in w.as_chunks::<Q4_K_BYTES>().0.iter().zip(a) {
        let (sc, mn) = k4_scales(b);
        let qs = &b[4 + K_SCALE_SIZE..];
        let mut q = [0i8; QK_K];
        for c in 0..QK_K / 64 {
            for l in 0..32 {
                q[64 * c + l] = (qs[32 * c + l] & 0x0F) as i8;
                q[64 * c + 32 + l] = (qs[32 * c + l] >> 4) as i8;
            }
        }
        let isum = scaled_sums_32(&q, &y.qs, &sc);
        sum += f16_at(b, 0) * y.d * isum as f32 - f16_at(b, 2) * y.d * k_mins(y, &mn) as f32;
    }
    sum
}

/// Q5_K weights with Q8_K activations (Q4_K plus a fifth bit from `qh`).
$(#[target_feature(enable = $feat)])?
#[inline]
pub fn q5_k(w: &[u8], a: &[BlockQ8K]) -> f32 {
    let mut sum = 0.0f32;
    for (b, y) in w.as_chunks::<Q5_K_BYTES>().0.iter().zip(a) {
        let (sc, mn) = k4_scales(b);
        let qh = &b[4 + K_SCALE_SIZE..4 + K_SCALE_SIZE + QK_K / 8];
        let qs = &b[4 + K_SCALE_SIZE + QK_K / 8..];
        let mut q = [0i8; QK_K];
        for c in 0..QK_K / 64 {
            let (u1, u2) = (1u8 << (2 * c), 2u8 << (2 * c));
            for l in 0..32 {
                let h1 = if qh[l] & u1 != 0 { 16 } else { 0 };
                let h2 = if qh[l] & u2 != 0 { 16 } else { 0 };
                q[64 * c + l] = ((qs[32 * c + l] & 0x0F) + h1) as i8;
                q[64 * c + 32 + l] = ((qs[32 * c + l] >> 4) + h2) as i8;
            }
        }
        let isum = scaled_sums_32(&q, &y.qs, &sc);
        sum += f16_at(b, 0) * y.d * isum as f32 - f16_at(b, 2) * y.d * k_mins(y, &mn) as f32;
    }
    sum
}

/// Q6_K weights (`d·scale·(q − 32)`, sixteen sub-blocks of 16) with Q8_K activations.
$(#[target_feature(enable = $feat)])?
#[inline]
pub fn q6_k(w: &[u8], a: &[BlockQ8K]) -> f32 {
    let mut sum = 0.0f32;
    for (b, y) in w.as_chunks::<Q6_K_BYTES>().0.iter().zip(a) {
        let (ql, rest) = b.split_at(QK_K / 2);
        let (qh, rest) = rest.split_at(QK_K / 4);
        let (sc, d) = rest.split_at(QK_K / 16);
        let mut q = [0i8; QK_K];
        for n in 0..2 {
            let (ql, qh) = (&ql[64 * n..], &qh[32 * n..]);
            let q = &mut q[128 * n..];
            for l in 0..32 {
                q[l] = ((ql[l] & 0x0F) | ((qh[l] & 3) << 4)) as i8 - 32;
                q[l + 32] = ((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) as i8 - 32;
                q[l + 64] = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) as i8 - 32;
                q[l + 96] = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) as i8 - 32;
            }
        }
        let mut isum = 0i32;
        for j in 0..QK_K / QK {
            let (lo, hi) = $dot(q[j * QK..][..QK].try_into().unwrap(), y.qs[j * QK..][..QK].try_into().unwrap());
            isum += sc[2 * j] as i8 as i32 * lo + sc[2 * j + 1] as i8 as i32 * hi;
        }
        sum += f16_at(d, 0) * y.d * isum as f32;
    }
    sum
}


    };
}

/// Kernels without target features: scalar natively, SIMD128 in wasm.
pub mod portable {
    use super::*;
    kernels!(; dot_i8_portable);
}

/// Kernels for x86-64 CPUs with AVX2; call only after detecting it.
#[cfg(target_arch = "x86_64")]
pub mod avx2 {
    use super::*;
    kernels!("avx2,fma"; dot_i8_avx2);
}

/// f32 weights with f32 activations.
#[inline(always)]
pub fn f32_row(w: &[u8], a: &[f32]) -> f32 {
    let mut sum = 0.0f32;
    for (b, &x) in w.chunks_exact(4).zip(a) {
        sum += f32::from_le_bytes([b[0], b[1], b[2], b[3]]) * x;
    }
    sum
}

/// f16 weights with activations already rounded through f16 (ggml's F16 `vec_dot_type`).
#[inline(always)]
pub fn f16_row(w: &[u8], a: &[f32]) -> f32 {
    let mut sum = 0.0f32;
    for (b, &x) in w.chunks_exact(2).zip(a) {
        sum += f16_at(b, 0) * x;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gguf::{GgmlType, dequantize_row};
    use half::f16;
    use crate::kernels::act::{quantize_q8_0, quantize_q8_1, quantize_q8_k};
    use portable::*;

    /// Deterministic pseudo-random bytes.
    fn bytes(n: usize, seed: u32) -> Vec<u8> {
        let mut s = seed.wrapping_mul(2_654_435_761).max(1);
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                (s >> 11) as u8
            })
            .collect()
    }

    /// A weight row of `blocks` blocks with sane f16 scales (random bytes elsewhere).
    fn row(ty: GgmlType, blocks: usize, seed: u32) -> Vec<u8> {
        let mut w = bytes(blocks * ty.type_size(), seed);
        let scale = f16::from_f32(0.01).to_bits().to_le_bytes();
        for b in w.chunks_exact_mut(ty.type_size()) {
            let at: &[usize] = match ty {
                GgmlType::Q6_K => &[Q6_K_BYTES - 2],
                GgmlType::Q4_1 | GgmlType::Q5_1 | GgmlType::Q4_K | GgmlType::Q5_K => &[0, 2],
                _ => &[0],
            };
            for &i in at {
                b[i..i + 2].copy_from_slice(&scale);
            }
        }
        w
    }

    /// The integer kernel equals the dequantized weights times the dequantized activations.
    fn check(ty: GgmlType, n: usize, kernel: impl Fn(&[u8], &[f32]) -> (f32, Vec<f32>)) {
        for seed in 1..6 {
            let w = row(ty, n / ty.block_size(), seed);
            let x: Vec<f32> = bytes(n, seed + 100).iter().map(|&b| (b as f32 - 127.5) / 40.0).collect();
            let (got, xq) = kernel(&w, &x);
            let mut wf = vec![0.0; n];
            dequantize_row(ty, &w, &mut wf).unwrap();
            let want: f64 = wf.iter().zip(&xq).map(|(a, b)| *a as f64 * *b as f64).sum();
            let tol = 1e-4 * wf.iter().zip(&xq).map(|(a, b)| (a * b).abs() as f64).sum::<f64>().max(1.0);
            assert!((got as f64 - want).abs() <= tol, "{ty:?} seed {seed}: {got} vs {want}");
        }
    }

    fn deq_q8_0(a: &[BlockQ8_0]) -> Vec<f32> {
        a.iter().flat_map(|b| b.qs.iter().map(move |&q| q as f32 * b.d)).collect()
    }
    fn deq_q8_k(a: &[BlockQ8K]) -> Vec<f32> {
        a.iter().flat_map(|b| b.qs.iter().map(move |&q| q as f32 * b.d)).collect()
    }

    #[test]
    fn every_kernel_matches_dequantized_arithmetic() {
        let q80 = |x: &[f32]| {
            let mut a = Vec::new();
            quantize_q8_0(x, &mut a);
            a
        };
        let q8k = |x: &[f32]| {
            let mut a = Vec::new();
            quantize_q8_k(x, &mut a);
            a
        };
        // Q8_1: Σ (q·d + m)·qy·dy = d·dy·Σq·qy + m·(dy·Σqy), and s is dy·Σqy rounded to f16.
        let q81 = |x: &[f32]| {
            let mut a = Vec::new();
            quantize_q8_1(x, &mut a);
            a
        };
        check(GgmlType::Q4_0, 256, |w, x| (q4_0(w, &q80(x)), deq_q8_0(&q80(x))));
        check(GgmlType::Q5_0, 256, |w, x| (q5_0(w, &q80(x)), deq_q8_0(&q80(x))));
        check(GgmlType::Q8_0, 256, |w, x| (q8_0(w, &q80(x)), deq_q8_0(&q80(x))));
        check(GgmlType::Q4_K, 512, |w, x| (q4_k(w, &q8k(x)), deq_q8_k(&q8k(x))));
        check(GgmlType::Q5_K, 512, |w, x| (q5_k(w, &q8k(x)), deq_q8_k(&q8k(x))));
        check(GgmlType::Q6_K, 512, |w, x| (q6_k(w, &q8k(x)), deq_q8_k(&q8k(x))));
        for (ty, kernel) in [(GgmlType::Q4_1, q4_1 as fn(&[u8], &[BlockQ8_1]) -> f32), (GgmlType::Q5_1, q5_1)] {
            check(ty, 256, |w, x| {
                let a = q81(x);
                let deq: Vec<f32> = a.iter().flat_map(|b| b.qs.iter().map(move |&q| q as f32 * b.d)).collect();
                // The `m·s` term uses s (rounded); compare against the same.
                let got = kernel(w, &a);
                let m_terms: f32 = w.chunks_exact(ty.type_size()).zip(&a).map(|(b, y)| f16_at(b, 2) * (y.s - y.d * y.qs.iter().map(|&q| q as f32).sum::<f32>())).sum();
                (got - m_terms, deq)
            });
        }
    }
}
