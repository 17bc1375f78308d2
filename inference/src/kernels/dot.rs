//! Dot products of one quantized weight row with quantized activations (ggml's `vec_dot_*`).
//!
//! Bit for bit as llama.cpp's x86 kernels (AVX2 code, also used by its AVX512 builds): integer
//! sums in eight i32 lanes of four products each, converted to f32 and accumulated per lane with
//! FMA (`fma(d·dy, lane, acc)`), then summed in ggml's `hsum_float_8` order; Q4_1/Q5_1 add the
//! `m·s` terms apart (fused, as GCC compiles ggml); Q4_0 (rows in eights) and Q4_K follow
//! llama.cpp's repacked GEMV/GEMM, Q5_K and Q6_K its AVX2 kernels. [`super::matmul`] compiles
//! the kernels once more with AVX2, FMA and F16C (block scales); the portable build computes the
//! same values natively (FMA by libm). In wasm, which has no FMA, speed comes first: four f32
//! lanes (SIMD128) and unfused multiply-adds, equal to llama.cpp's results only to f32 rounding.

use super::act::{BlockQ8_0, BlockQ8_1, BlockQ8K};
use crate::gguf::quant::{
    K_SCALE_SIZE, Q4_0_BYTES, Q4_1_BYTES, Q4_K_BYTES, Q5_0_BYTES, Q5_1_BYTES, Q5_K_BYTES, Q6_K_BYTES, Q8_0_BYTES, QK,
    QK_K, get_scale_min_k4,
};

#[inline(always)]
fn f16_at(b: &[u8], i: usize) -> f32 {
    f16_bits(u16::from_le_bytes([b[i], b[i + 1]]))
}

/// f16 bits to f32 without a call or a branch (exact, as F16C's `vcvtph2ps`): the magnitude's
/// bits moved into f32's exponent and mantissa fields, then scaled by 2^112 to rebias the
/// exponent (subnormals come out exact too); infinities and NaNs selected apart.
#[inline(always)]
pub fn f16_bits(h: u16) -> f32 {
    let h = h as u32;
    let scaled = f32::from_bits((h & 0x7FFF) << 13) * f32::from_bits(0x7780_0000);
    let special = f32::from_bits(0x7F80_0000 | ((h & 0x03FF) << 13));
    let mag = if h & 0x7C00 == 0x7C00 { special } else { scaled };
    f32::from_bits(mag.to_bits() | ((h & 0x8000) << 16))
}

/// Σ a·b over the first and the last 16 of 32 signed bytes (portable; SIMD128 in wasm).
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

/// `a·b + c` rounded once: an FMA instruction, or libm's `fmaf`. wasm has no FMA; there this is
/// `a·b + c` with two roundings (speed over bit-exactness, see the module docs).
#[inline(always)]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    #[cfg(target_arch = "wasm32")]
    {
        a * b + c
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        a.mul_add(b, c)
    }
}

/// ggml's `hsum_float_8`: `(x4+x0 + x6+x2) + (x5+x1 + x7+x3)` in that order.
#[inline(always)]
pub fn hsum8(x: &[f32; 8]) -> f32 {
    let r = [x[4] + x[0], x[5] + x[1], x[6] + x[2], x[7] + x[3]];
    (r[0] + r[2]) + (r[1] + r[3])
}

/// `Σ a·b` of 32 signed bytes as ggml's x86 kernels hold it: eight i32 lanes, lane `l` summing
/// bytes `4l..4l+4` (`mul_sum_i8_pairs_float`, or `dpbusd` with AVX512-VNNI: the same sums).
#[inline(always)]
pub fn lanes_portable(a: &[i8; QK], b: &[i8; QK]) -> [i32; 8] {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::*;
        let ((a0, a1), (b0, b1)) = (wasm::load2(a), wasm::load2(b));
        let mut out = [0i32; 8];
        // SAFETY: two 16-byte stores into a 32-byte array.
        unsafe {
            v128_store(out.as_mut_ptr() as *mut v128, wasm::quads16(a0, b0));
            v128_store(out.as_mut_ptr().add(4) as *mut v128, wasm::quads16(a1, b1));
        }
        return out;
    }
    #[allow(unreachable_code)]
    {
        let mut l = [0i32; 8];
        for (k, l) in l.iter_mut().enumerate() {
            for j in 4 * k..4 * k + 4 {
                *l += a[j] as i32 * b[j] as i32;
            }
        }
        l
    }
}

/// ggml's AVX2 accumulator, portably: eight f32 lanes, each block adding
/// `fma(scale, lane, acc)`, summed once by [`hsum8`]. In wasm (SIMD128): four f32 lanes, each
/// the sum of two of ggml's, multiplied and added unfused (fast, equal to f32 rounding).
pub struct PortableAcc {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    v: core::arch::wasm32::v128,
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    f: [f32; 8],
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm {
    use super::*;
    use core::arch::wasm32::*;

    /// Σ a·b of 16 signed bytes at `a`, `b` as four i32 lanes.
    #[inline(always)]
    pub fn lanes16(a: v128, b: v128) -> v128 {
        i32x4_add(i32x4_extadd_pairwise_i16x8(i16x8_extmul_low_i8x16(a, b)), i32x4_extadd_pairwise_i16x8(i16x8_extmul_high_i8x16(a, b)))
    }

    /// Σ a·b of 16 signed bytes as ggml's four lanes of four consecutive products.
    #[inline(always)]
    pub fn quads16(a: v128, b: v128) -> v128 {
        let lo = i32x4_extadd_pairwise_i16x8(i16x8_extmul_low_i8x16(a, b));
        let hi = i32x4_extadd_pairwise_i16x8(i16x8_extmul_high_i8x16(a, b));
        i32x4_add(i32x4_shuffle::<0, 2, 4, 6>(lo, hi), i32x4_shuffle::<1, 3, 5, 7>(lo, hi))
    }

    #[inline(always)]
    pub fn load2(a: &[i8; QK]) -> (v128, v128) {
        // SAFETY: 32-byte array; unaligned v128 loads are allowed in wasm.
        unsafe { (v128_load(a.as_ptr() as *const v128), v128_load(a.as_ptr().add(16) as *const v128)) }
    }

    /// [`super::q5_values_portable`] with SIMD128: each bit of `qh` spread to a byte by swizzle,
    /// or-mask and compare.
    #[inline(always)]
    pub fn q5_values(qh: u32, qs: &[u8; QK / 2], offset: i8) -> [i8; QK] {
        // SAFETY: 16-byte load from a 16-byte array; stores into a 32-byte array.
        unsafe {
            let q = v128_load(qs.as_ptr() as *const v128);
            let lo = v128_and(q, u8x16_splat(0x0F));
            let hi = v128_and(u16x8_shr(q, 4), u8x16_splat(0x0F));
            let all = u32x4_splat(qh);
            let mask = u64x2_splat(0x7fbfdfeff7fbfdfe);
            let bits = |sel: v128| {
                let b = v128_or(i8x16_swizzle(all, sel), mask);
                v128_and(i8x16_eq(b, u8x16_splat(0xFF)), u8x16_splat(0x10))
            };
            let b0 = bits(u8x16(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1));
            let b1 = bits(u8x16(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
            let off = i8x16_splat(offset);
            let mut x = [0i8; QK];
            v128_store(x.as_mut_ptr() as *mut v128, i8x16_sub(v128_or(lo, b0), off));
            v128_store(x.as_mut_ptr().add(16) as *mut v128, i8x16_sub(v128_or(hi, b1), off));
            x
        }
    }
}

impl PortableAcc {
    #[inline(always)]
    fn new() -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return PortableAcc { v: core::arch::wasm32::f32x4_splat(0.0) };
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        PortableAcc { f: [0.0; 8] }
    }
    #[inline(always)]
    fn add(&mut self, a: &[i8; QK], b: &[i8; QK], scale: f32) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            use core::arch::wasm32::*;
            let ((a0, a1), (b0, b1)) = (wasm::load2(a), wasm::load2(b));
            let l = i32x4_add(wasm::lanes16(a0, b0), wasm::lanes16(a1, b1));
            self.v = f32x4_add(self.v, f32x4_mul(f32x4_splat(scale), f32x4_convert_i32x4(l)));
        }
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        self.add_lanes(&lanes_portable(a, b), scale);
    }
    #[inline(always)]
    fn add_lanes(&mut self, lanes: &[i32; 8], scale: f32) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            use core::arch::wasm32::*;
            // SAFETY: two 16-byte loads from a 32-byte array.
            let l = unsafe { i32x4_add(v128_load(lanes.as_ptr() as *const v128), v128_load(lanes.as_ptr().add(4) as *const v128)) };
            self.v = f32x4_add(self.v, f32x4_mul(f32x4_splat(scale), f32x4_convert_i32x4(l)));
        }
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        for (a, &l) in self.f.iter_mut().zip(lanes) {
            *a = fma(scale, l as f32, *a);
        }
    }
    #[inline(always)]
    fn sum(self) -> f32 {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            use core::arch::wasm32::*;
            let v = self.v;
            return (f32x4_extract_lane::<0>(v) + f32x4_extract_lane::<2>(v)) + (f32x4_extract_lane::<1>(v) + f32x4_extract_lane::<3>(v));
        }
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        hsum8(&self.f)
    }
}

/// `Σ_j scale16[j] · Σ_{16 values} q·y` over a 256-value super-block, kept in ggml's eight
/// lanes: lane `l` of each 32 values (bytes `4l..4l+4`) scaled by its half's scale (portable).
#[inline(always)]
pub fn lanes256_portable(q: &[i8; QK_K], y: &[i8; QK_K], scale16: &[i16; QK_K / 16]) -> [i32; 8] {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::*;
        let (mut lo, mut hi) = (i32x4_splat(0), i32x4_splat(0));
        for j in 0..QK_K / QK {
            let (a0, a1) = wasm::load2(q[j * QK..][..QK].try_into().unwrap());
            let (b0, b1) = wasm::load2(y[j * QK..][..QK].try_into().unwrap());
            lo = i32x4_add(lo, i32x4_mul(wasm::quads16(a0, b0), i32x4_splat(scale16[2 * j] as i32)));
            hi = i32x4_add(hi, i32x4_mul(wasm::quads16(a1, b1), i32x4_splat(scale16[2 * j + 1] as i32)));
        }
        let mut out = [0i32; 8];
        // SAFETY: two 16-byte stores into a 32-byte array.
        unsafe {
            v128_store(out.as_mut_ptr() as *mut v128, lo);
            v128_store(out.as_mut_ptr().add(4) as *mut v128, hi);
        }
        return out;
    }
    #[allow(unreachable_code)]
    {
        let mut acc = [0i32; 8];
        for j in 0..QK_K / QK {
            let l = lanes_portable(q[j * QK..][..QK].try_into().unwrap(), y[j * QK..][..QK].try_into().unwrap());
            for (i, (a, l)) in acc.iter_mut().zip(l).enumerate() {
                *a += scale16[2 * j + i / 4] as i32 * l;
            }
        }
        acc
    }
}

/// Q4_K's `Σ scale·Σ q·y` per 64 values of a super-block: `q` its eight sub-blocks' values
/// (0..16), `sc16[2c]` sub-block `c`'s scale (portable).
#[inline(always)]
pub fn q4_k_sums64_portable(q: &[[i8; QK]; QK_K / QK], sc16: &[i16; QK_K / 16], y: &[i8; QK_K]) -> [i32; QK_K / 64] {
    let mut s = [0i32; QK_K / 64];
    for c in 0..QK_K / QK {
        let p: i32 = lanes_portable(&q[c], y[c * QK..][..QK].try_into().unwrap()).iter().sum();
        s[c / 2] += sc16[2 * c] as i32 * p;
    }
    s
}

#[cfg(target_arch = "x86_64")]
pub use x86::{Avx2Acc, hsum_float_8, lanes_avx2, lanes256_avx2, q4_k_sums64_avx2, q5_values_avx2, q5_vector};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use core::arch::x86_64::*;

    /// `Σ a·b` of 32 signed bytes as 8 i32 lanes: `maddubs(|a|, sign(b, a))`, then `madd` by 1.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn lanes(a: &[i8; QK], b: &[i8; QK]) -> __m256i {
        // SAFETY: both arrays are 32 bytes; loads are unaligned.
        unsafe {
            let x = _mm256_loadu_si256(a.as_ptr() as *const __m256i);
            let y = _mm256_loadu_si256(b.as_ptr() as *const __m256i);
            _mm256_maddubs_epi16(_mm256_sign_epi8(x, x), _mm256_sign_epi8(y, x))
        }
    }

    /// [`super::lanes_portable`] with AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn lanes_avx2(a: &[i8; QK], b: &[i8; QK]) -> [i32; 8] {
        let p = _mm256_madd_epi16(lanes(a, b), _mm256_set1_epi16(1));
        let mut out = [0i32; 8];
        // SAFETY: a 32-byte store into a 32-byte array.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, p) };
        out
    }

    /// Accumulates `scale · Σ a·b` in eight f32 lanes with FMA, summed once (as ggml's AVX2 kernels).
    pub struct Avx2Acc(__m256);

    impl Avx2Acc {
        #[target_feature(enable = "avx2,fma")]
        #[inline]
        pub fn new() -> Self {
            Avx2Acc(_mm256_setzero_ps())
        }
        #[target_feature(enable = "avx2,fma")]
        #[inline]
        pub fn add(&mut self, a: &[i8; QK], b: &[i8; QK], scale: f32) {
            let p = _mm256_madd_epi16(lanes(a, b), _mm256_set1_epi16(1));
            self.0 = _mm256_fmadd_ps(_mm256_set1_ps(scale), _mm256_cvtepi32_ps(p), self.0);
        }
        #[target_feature(enable = "avx2,fma")]
        #[inline]
        pub fn add_lanes(&mut self, lanes: &[i32; 8], scale: f32) {
            // SAFETY: a 32-byte load from a 32-byte array.
            let p = unsafe { _mm256_loadu_si256(lanes.as_ptr() as *const __m256i) };
            self.0 = _mm256_fmadd_ps(_mm256_set1_ps(scale), _mm256_cvtepi32_ps(p), self.0);
        }
        #[target_feature(enable = "avx2,fma")]
        #[inline]
        pub fn sum(self) -> f32 {
            hsum_float_8(self.0)
        }
    }

    /// ggml's `hsum_float_8`: the halves added, then pairs, then the two left:
    /// `((x4 + x0) + (x6 + x2)) + ((x5 + x1) + (x7 + x3))`. Every AVX kernel's final sum.
    #[target_feature(enable = "avx")]
    #[inline]
    pub fn hsum_float_8(x: __m256) -> f32 {
        let r = _mm_add_ps(_mm256_extractf128_ps::<1>(x), _mm256_castps256_ps128(x));
        let r = _mm_add_ps(r, _mm_movehl_ps(r, r));
        _mm_cvtss_f32(_mm_add_ss(r, _mm_movehdup_ps(r)))
    }

    /// [`super::q5_values_portable`] with AVX2: each bit of `qh` spread to a byte by shuffle,
    /// or-mask and compare (ggml's `bytes_from_bits_32`).
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn q5_values_avx2(qh: u32, qs: &[u8; QK / 2], offset: i8) -> [i8; QK] {
        let mut x = [0i8; QK];
        // SAFETY: a 32-byte store into a 32-byte array.
        unsafe { _mm256_storeu_si256(x.as_mut_ptr() as *mut __m256i, q5_vector(qh, qs, offset)) };
        x
    }

    /// [`q5_values_avx2`] in a register.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn q5_vector(qh: u32, qs: &[u8; QK / 2], offset: i8) -> __m256i {
        // SAFETY: 16 bytes are loaded from a 16-byte array.
        let q = unsafe { _mm_loadu_si128(qs.as_ptr() as *const __m128i) };
        let nib = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16::<4>(q), q), _mm256_set1_epi8(0x0F));
        let shuf = _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0);
        let bytes = _mm256_shuffle_epi8(_mm256_set1_epi32(qh as i32), shuf);
        let bytes = _mm256_or_si256(bytes, _mm256_set1_epi64x(0x7fbfdfeff7fbfdfe_u64 as i64));
        let bits = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi64x(-1));
        let v = _mm256_or_si256(nib, _mm256_and_si256(bits, _mm256_set1_epi8(0x10)));
        _mm256_sub_epi8(v, _mm256_set1_epi8(offset))
    }

    /// [`super::q4_k_sums64_portable`] with AVX2: the values (unsigned) by `maddubs`, each
    /// sub-block's pairs by its scale with `madd`, and the four sums by one `hadd` tree.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn q4_k_sums64_avx2(q: &[[i8; QK]; QK_K / QK], sc16: &[i16; QK_K / 16], y: &[i8; QK_K]) -> [i32; QK_K / 64] {
        let mut v = [_mm256_setzero_si256(); QK_K / 64];
        for c in 0..QK_K / QK {
            // SAFETY: 32-byte loads from a 32-byte array and from 32 bytes of a 256-byte one.
            let (x, yy) = unsafe {
                (_mm256_loadu_si256(q[c].as_ptr() as *const __m256i), _mm256_loadu_si256(y[c * QK..].as_ptr() as *const __m256i))
            };
            let p = _mm256_madd_epi16(_mm256_maddubs_epi16(x, yy), _mm256_set1_epi16(sc16[2 * c]));
            v[c / 2] = _mm256_add_epi32(v[c / 2], p);
        }
        let s = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
        let s = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
        let mut out = [0i32; QK_K / 64];
        // SAFETY: a 16-byte store into a 16-byte array.
        unsafe { _mm_storeu_si128(out.as_mut_ptr() as *mut __m128i, s) };
        out
    }

    /// [`super::lanes256_portable`] with AVX2: per-16 scales applied by `madd` on the i16 pairs
    /// (as ggml's Q6_K kernel), the eight lanes kept.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn lanes256_avx2(q: &[i8; QK_K], y: &[i8; QK_K], scale16: &[i16; QK_K / 16]) -> [i32; 8] {
        let mut acc = _mm256_setzero_si256();
        for j in 0..QK_K / QK {
            let p = lanes(q[j * QK..][..QK].try_into().unwrap(), y[j * QK..][..QK].try_into().unwrap());
            let sc = _mm256_set_m128i(_mm_set1_epi16(scale16[2 * j + 1]), _mm_set1_epi16(scale16[2 * j]));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, sc));
        }
        let mut out = [0i32; 8];
        // SAFETY: a 32-byte store into a 32-byte array.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, acc) };
        out
    }
}

/// The 32 five-bit values of a Q5 block minus `offset`: nibbles from `qs`, fifth bits from `qh`.
#[inline(always)]
pub fn q5_values_portable(qh: u32, qs: &[u8; QK / 2], offset: i8) -> [i8; QK] {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return wasm::q5_values(qh, qs, offset);
    #[allow(unreachable_code)]
    let mut x = [0i8; QK];
    for j in 0..QK / 2 {
        let h0 = (((qh >> j) << 4) & 0x10) as u8;
        let h1 = ((qh >> (j + 12)) & 0x10) as u8;
        x[j] = ((qs[j] & 0x0F) | h0) as i8 - offset;
        x[j + QK / 2] = ((qs[j] >> 4) | h1) as i8 - offset;
    }
    x
}

/// Tokens whose dot products share one unpacking of a weight block.
pub const TILE: usize = 4;

#[inline(always)]
fn bytemuck_i8(b: &[u8]) -> &[i8; QK] {
    let b: &[u8; QK] = b.try_into().expect("32 bytes");
    // SAFETY: u8 and i8 have the same size and alignment, and every bit pattern is valid.
    unsafe { &*(b as *const [u8; QK] as *const [i8; QK]) }
}

/// The kernels, generated once portable and once with AVX2 (`$feat`), around ggml's lane
/// accumulator of scaled 32-value dot products (`$acc`), its lanes of a 32-value (`$lanes`) and
/// of a scaled 256-value dot product (`$lanes256`), Q5 values (`$q5`) and Q4_K's sums per 64
/// values (`$q4k64`).
macro_rules! kernels {
    ($($feat:literal)?; $acc:ident, $lanes:path, $lanes256:path, $q5:path, $q4k64:path) => {
        /// One f32 accumulator, `fma(Σq·qy, d·dy, acc)` per block: llama.cpp's repacked
        /// `q4_0_8x8` GEMV/GEMM.
        struct RowAcc(f32);

        impl RowAcc {
            #[inline(always)]
            fn new() -> Self {
                RowAcc(0.0)
            }
            $(#[target_feature(enable = $feat)])?
            #[inline]
            fn add(&mut self, a: &[i8; QK], b: &[i8; QK], scale: f32) {
                let s: i32 = $lanes(a, b).iter().sum();
                self.0 = fma(s as f32, scale, self.0);
            }
            #[inline(always)]
            fn sum(self) -> f32 {
                self.0
            }
        }

        /// Runs `$body` (which sees the block `b`, its unpacked values `x` and a closure
        /// `add(t, y_block_scale_source)`) over a tile of up to [`TILE`] tokens per weight row,
        /// so that each weight block is unpacked once per tile (batched prefill).
        // Over a tile of up to TILE tokens per weight row, each weight block is unpacked once
        // (batched prefill). `$unpack` makes the block's 32 values; the block scale `d` is at
        // byte 0; `$min` is the block's min term (0 without one) and `$extra` its product with
        // the activation block (`m·s` for Q4_1/Q5_1), given as its two factors and accumulated
        // with FMA apart from the lanes (`summs` in ggml). `$A` is the accumulator type.
        macro_rules! tiled32 {
            ($A:ident, $w:expr, $a:expr, $bpr:expr, $out:expr, $bytes:expr, |$b:ident| $unpack:block, $min:expr, |$m:ident, $y:ident| $extra:expr, $with_min:literal) => {{
                // Types without a min term skip its FMA and the final add (ggml's kernels have none).
                let with_min: bool = $with_min;
                let (w, a, bpr, out) = ($w, $a, $bpr, $out);
                let blocks = w.as_chunks::<{ $bytes }>().0;
                if out.len() == 1 {
                    // One token (decode): a single accumulator stays in registers.
                    let mut acc = $A::new();
                    let mut extra = 0.0f32;
                    for ($b, $y) in blocks.iter().zip(a) {
                        let x = $unpack;
                        let $m: f32 = $min;
                        acc.add(&x, &$y.qs, f16_at($b, 0) * $y.d);
                        if with_min {
                            let (ea, eb): (f32, f32) = $extra;
                            extra = fma(ea, eb, extra);
                        }
                    }
                    out[0] = if with_min { acc.sum() + extra } else { acc.sum() };
                    return;
                }
                let mut chunks = out.chunks_exact_mut(TILE);
                let mut t0 = 0;
                for out in &mut chunks {
                    // A whole tile: fixed bounds, so the accumulators stay in registers.
                    let (mut a0, mut a1, mut a2, mut a3) = ($A::new(), $A::new(), $A::new(), $A::new());
                    let mut extra = [0.0f32; TILE];
                    let row = |k: usize| &a[(t0 + k) * bpr..(t0 + k + 1) * bpr];
                    let (y0, y1, y2, y3) = (row(0), row(1), row(2), row(3));
                    for (((($b, y0), y1), y2), y3) in blocks.iter().zip(y0).zip(y1).zip(y2).zip(y3) {
                        let x = $unpack;
                        let d = f16_at($b, 0);
                        let $m: f32 = $min;
                        let ys = [y0, y1, y2, y3];
                        a0.add(&x, &ys[0].qs, d * ys[0].d);
                        a1.add(&x, &ys[1].qs, d * ys[1].d);
                        a2.add(&x, &ys[2].qs, d * ys[2].d);
                        a3.add(&x, &ys[3].qs, d * ys[3].d);
                        if with_min {
                            for (e, $y) in extra.iter_mut().zip(ys) {
                                let (ea, eb): (f32, f32) = $extra;
                                *e = fma(ea, eb, *e);
                            }
                        }
                    }
                    let sums = [a0.sum(), a1.sum(), a2.sum(), a3.sum()];
                    for ((o, s), e) in out.iter_mut().zip(sums).zip(extra) {
                        *o = if with_min { s + e } else { s };
                    }
                    t0 += TILE;
                }
                for (t, o) in chunks.into_remainder().iter_mut().enumerate() {
                    let mut acc = $A::new();
                    let mut extra = 0.0f32;
                    for (i, $b) in blocks.iter().enumerate() {
                        let x = $unpack;
                        let $y = &a[(t0 + t) * bpr + i];
                        let $m: f32 = $min;
                        acc.add(&x, &$y.qs, f16_at($b, 0) * $y.d);
                        if with_min {
                            let (ea, eb): (f32, f32) = $extra;
                            extra = fma(ea, eb, extra);
                        }
                    }
                    *o = if with_min { acc.sum() + extra } else { acc.sum() };
                }
            }};
        }

        /// Q4_0 weights (`(q - 8)·d`) with Q8_0 activations; `out` has one value per token.
        $(#[target_feature(enable = $feat)])?
        #[inline]
        pub fn q4_0(w: &[u8], a: &[BlockQ8_0], bpr: usize, out: &mut [f32]) {
            tiled32!($acc, w, a, bpr, out, Q4_0_BYTES, |b| {
                let mut x = [0i8; QK];
                for j in 0..QK / 2 {
                    x[j] = (b[2 + j] & 0x0F) as i8 - 8;
                    x[j + QK / 2] = (b[2 + j] >> 4) as i8 - 8;
                }
                x
            }, 0.0, |_m, _y| (0.0, 0.0), false)
        }

        /// Q4_0 weights as llama.cpp multiplies them on x86 when the matrix has a multiple of 8
        /// rows: repacked to `q4_0_8x8` (`ggml_gemv/gemm_q4_0_8x8_q8_0`), one f32 accumulator per
        /// row and token, `fma(Σq·qy, d·dy, acc)` per block of 32.
        $(#[target_feature(enable = $feat)])?
        #[inline]
        pub fn q4_0_repacked(w: &[u8], a: &[BlockQ8_0], bpr: usize, out: &mut [f32]) {
            tiled32!(RowAcc, w, a, bpr, out, Q4_0_BYTES, |b| {
                let mut x = [0i8; QK];
                for j in 0..QK / 2 {
                    x[j] = (b[2 + j] & 0x0F) as i8 - 8;
                    x[j + QK / 2] = (b[2 + j] >> 4) as i8 - 8;
                }
                x
            }, 0.0, |_m, _y| (0.0, 0.0), false)
        }

        /// Q4_1 weights (`q·d + m`) with Q8_1 activations: `d·dy·Σq·qy + m·sy`.
        $(#[target_feature(enable = $feat)])?
        #[inline]
        pub fn q4_1(w: &[u8], a: &[BlockQ8_1], bpr: usize, out: &mut [f32]) {
            tiled32!($acc, w, a, bpr, out, Q4_1_BYTES, |b| {
                let mut x = [0i8; QK];
                for j in 0..QK / 2 {
                    x[j] = (b[4 + j] & 0x0F) as i8;
                    x[j + QK / 2] = (b[4 + j] >> 4) as i8;
                }
                x
            }, f16_at(b, 2), |m, y| (m, y.s), true)
        }

        $(#[target_feature(enable = $feat)])?
        #[inline]
        fn q5_values(qh: u32, qs: &[u8], offset: i8) -> [i8; QK] {
            $q5(qh, qs[..QK / 2].try_into().unwrap(), offset)
        }

        /// Q5_0 weights (`(q - 16)·d`, fifth bits in `qh`) with Q8_0 activations.
        $(#[target_feature(enable = $feat)])?
        #[inline]
        pub fn q5_0(w: &[u8], a: &[BlockQ8_0], bpr: usize, out: &mut [f32]) {
            tiled32!($acc, w, a, bpr, out, Q5_0_BYTES, |b| { q5_values(u32::from_le_bytes([b[2], b[3], b[4], b[5]]), &b[6..], 16) },
                0.0, |_m, _y| (0.0, 0.0), false)
        }

        /// Q5_1 weights (`q·d + m`) with Q8_1 activations.
        $(#[target_feature(enable = $feat)])?
        #[inline]
        pub fn q5_1(w: &[u8], a: &[BlockQ8_1], bpr: usize, out: &mut [f32]) {
            tiled32!($acc, w, a, bpr, out, Q5_1_BYTES, |b| { q5_values(u32::from_le_bytes([b[4], b[5], b[6], b[7]]), &b[8..], 0) },
                f16_at(b, 2), |m, y| (m, y.s), true)
        }

        /// Q8_0 weights with Q8_0 activations.
        $(#[target_feature(enable = $feat)])?
        #[inline]
        pub fn q8_0(w: &[u8], a: &[BlockQ8_0], bpr: usize, out: &mut [f32]) {
            tiled32!($acc, w, a, bpr, out, Q8_0_BYTES, |b| { *bytemuck_i8(&b[2..2 + QK]) }, 0.0, |_m, _y| (0.0, 0.0), false)
        }

        $(#[target_feature(enable = $feat)])?
        #[inline]
        fn k4_scales(b: &[u8]) -> ([i16; QK_K / 16], [u8; 8]) {
            let packed: &[u8; K_SCALE_SIZE] = b[4..4 + K_SCALE_SIZE].try_into().expect("12 scale bytes");
            let (mut sc, mut mn) = ([0i16; QK_K / 16], [0u8; 8]);
            for j in 0..8 {
                let (s, m) = get_scale_min_k4(j, packed);
                sc[2 * j] = s as i16;
                sc[2 * j + 1] = s as i16;
                mn[j] = m;
            }
            (sc, mn)
        }

        /// Q4_K weights with Q8_K activations, as llama.cpp computes them on x86: there Q4_K
        /// matrices (rows a multiple of 8) are always repacked to `q4_K_8x8` and multiplied by
        /// `ggml_gemv_q4_K_8x8_q8_K` (tokens past the last whole group of four) or
        /// `ggml_gemm_q4_K_8x8_q8_K` (groups of four tokens). Both keep `Σ scale·Σq·qy` and
        /// `Σ min·bsum` exact in integers and accumulate `fma(sum, d·dy, acc)`,
        /// `fma(mins, dmin·dy, acc_min)`, the GEMV once per super-block, the GEMM once per 64
        /// values; the result is `acc − acc_min`.
        $(#[target_feature(enable = $feat)])?
        #[inline]
        pub fn q4_k(w: &[u8], a: &[BlockQ8K], bpr: usize, out: &mut [f32]) {
            let grouped = out.len() - out.len() % 4;
            // On the stack for the row loop's tiles of tokens (a call per row in decode).
            let (mut stack, mut heap) = ([(0.0f32, 0.0f32); 32], Vec::new());
            let accs: &mut [(f32, f32)] = if out.len() <= stack.len() {
                &mut stack[..out.len()]
            } else {
                heap.resize(out.len(), (0.0, 0.0));
                &mut heap
            };
            for (i, b) in w.as_chunks::<Q4_K_BYTES>().0.iter().enumerate() {
                let (sc, mn) = k4_scales(b);
                let qs = &b[4 + K_SCALE_SIZE..];
                let mut q = [[0i8; QK]; QK_K / QK];
                for c in 0..QK_K / 64 {
                    for l in 0..32 {
                        q[2 * c][l] = (qs[32 * c + l] & 0x0F) as i8;
                        q[2 * c + 1][l] = (qs[32 * c + l] >> 4) as i8;
                    }
                }
                let (d, dmin) = (f16_at(b, 0), f16_at(b, 2));
                for (t, (acc, acc_min)) in accs.iter_mut().enumerate() {
                    let y = &a[t * bpr + i];
                    let (dy, dminy) = (d * y.d, dmin * y.d);
                    // Exact integers per 64 values: Σ scale·Σq·y and Σ min·bsum.
                    let sums = $q4k64(&q, &sc, &y.qs);
                    let mut mins = [0i32; QK_K / 64];
                    for c in 0..QK_K / QK {
                        mins[c / 2] += mn[c] as i32 * (y.bsums[2 * c] as i32 + y.bsums[2 * c + 1] as i32);
                    }
                    if t < grouped {
                        for (s, m) in sums.into_iter().zip(mins) {
                            *acc = fma(s as f32, dy, *acc);
                            *acc_min = fma(m as f32, dminy, *acc_min);
                        }
                    } else {
                        *acc = fma(sums.iter().sum::<i32>() as f32, dy, *acc);
                        *acc_min = fma(mins.iter().sum::<i32>() as f32, dminy, *acc_min);
                    }
                }
            }
            for (o, &mut (acc, acc_min)) in out.iter_mut().zip(accs) {
                *o = acc - acc_min;
            }
        }

        /// Q5_K weights with Q8_K activations (Q4_K plus a fifth bit from `qh`), as ggml's AVX2
        /// kernel: lanes scaled per sub-block of 32, one `fma(d·dy, lane, acc)` per super-block;
        /// the mins apart, `summs = fma(−dmin·dy, Σ min·bsum, summs)`, added last.
        $(#[target_feature(enable = $feat)])?
        #[inline]
        pub fn q5_k(w: &[u8], a: &[BlockQ8K], bpr: usize, out: &mut [f32]) {
            let mut accs: Vec<($acc, f32)> = (0..out.len()).map(|_| ($acc::new(), 0.0f32)).collect();
            for (i, b) in w.as_chunks::<Q5_K_BYTES>().0.iter().enumerate() {
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
                let (d, dmin) = (f16_at(b, 0), f16_at(b, 2));
                for (t, (acc, summs)) in accs.iter_mut().enumerate() {
                    let y = &a[t * bpr + i];
                    let mins: i32 = (0..8).map(|j| mn[j] as i32 * (y.bsums[2 * j] as i32 + y.bsums[2 * j + 1] as i32)).sum();
                    *summs = fma(-y.d * dmin, mins as f32, *summs);
                    acc.add_lanes(&$lanes256(&q, &y.qs, &sc), y.d * d);
                }
            }
            for (o, (acc, summs)) in out.iter_mut().zip(accs) {
                *o = acc.sum() + summs;
            }
        }

        /// Q6_K weights (`d·scale·(q − 32)`, sixteen sub-blocks of 16) with Q8_K activations, as
        /// ggml's AVX2 kernel: unsigned 6-bit values, lane `l` of each 32 scaled by its half's
        /// scale, minus `32·(bsum[2l]·scale[2l] + bsum[2l+1]·scale[2l+1])` (the offset, by
        /// 16-sums), then one `fma(d·dy, lane, acc)` per super-block.
        $(#[target_feature(enable = $feat)])?
        #[inline]
        pub fn q6_k(w: &[u8], a: &[BlockQ8K], bpr: usize, out: &mut [f32]) {
            let mut accs: Vec<$acc> = (0..out.len()).map(|_| $acc::new()).collect();
            for (i, b) in w.as_chunks::<Q6_K_BYTES>().0.iter().enumerate() {
                let (ql, rest) = b.split_at(QK_K / 2);
                let (qh, rest) = rest.split_at(QK_K / 4);
                let (sc, d) = rest.split_at(QK_K / 16);
                let mut q = [0i8; QK_K];
                for n in 0..2 {
                    let (ql, qh) = (&ql[64 * n..], &qh[32 * n..]);
                    let q = &mut q[128 * n..];
                    for l in 0..32 {
                        q[l] = ((ql[l] & 0x0F) | ((qh[l] & 3) << 4)) as i8;
                        q[l + 32] = ((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) as i8;
                        q[l + 64] = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) as i8;
                        q[l + 96] = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) as i8;
                    }
                }
                let mut sc16 = [0i16; QK_K / 16];
                for (s, &c) in sc16.iter_mut().zip(sc) {
                    *s = c as i8 as i16;
                }
                let d = f16_at(d, 0);
                for (t, acc) in accs.iter_mut().enumerate() {
                    let y = &a[t * bpr + i];
                    let mut lanes = $lanes256(&q, &y.qs, &sc16);
                    for (l, v) in lanes.iter_mut().enumerate() {
                        *v -= 32 * (y.bsums[2 * l] as i32 * sc16[2 * l] as i32 + y.bsums[2 * l + 1] as i32 * sc16[2 * l + 1] as i32);
                    }
                    acc.add_lanes(&lanes, y.d * d);
                }
            }
            for (o, acc) in out.iter_mut().zip(accs) {
                *o = acc.sum();
            }
        }
    };
}

/// Kernels without target features: scalar natively, SIMD128 in wasm.
pub mod portable {
    use super::*;
    kernels!(; PortableAcc, lanes_portable, lanes256_portable, q5_values_portable, q4_k_sums64_portable);
}

/// Kernels for x86-64 CPUs with AVX2, FMA and F16C; call only after detecting them.
#[cfg(target_arch = "x86_64")]
pub mod avx2 {
    use super::*;

    /// f16 at `b[i..i + 2]` by F16C's one instruction (shadows the portable one for these kernels).
    #[target_feature(enable = "avx2,fma,f16c")]
    #[inline]
    fn f16_at(b: &[u8], i: usize) -> f32 {
        use core::arch::x86_64::*;
        let h = u16::from_le_bytes([b[i], b[i + 1]]);
        _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h as i32)))
    }

    kernels!("avx2,fma,f16c"; Avx2Acc, lanes_avx2, lanes256_avx2, q5_values_avx2, q4_k_sums64_avx2);
}

/// f32 weights with f32 activations.
#[inline(always)]
pub fn f32_row(w: &[u8], a: &[f32], cols: usize, out: &mut [f32]) {
    for (t, o) in out.iter_mut().enumerate() {
        let mut sum = 0.0f32;
        for (b, &x) in w.as_chunks::<4>().0.iter().zip(&a[t * cols..(t + 1) * cols]) {
            sum += f32::from_le_bytes(*b) * x;
        }
        *o = sum;
    }
}

/// f16 weights with activations already rounded through f16 (ggml's F16 `vec_dot_type`).
#[inline(always)]
pub fn f16_row(w: &[u8], a: &[f32], cols: usize, out: &mut [f32]) {
    for (t, o) in out.iter_mut().enumerate() {
        let mut sum = 0.0f32;
        for (b, &x) in w.as_chunks::<2>().0.iter().zip(&a[t * cols..(t + 1) * cols]) {
            sum += f16_bits(u16::from_le_bytes(*b)) * x;
        }
        *o = sum;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::gguf::{GgmlType, dequantize_row};
    use half::f16;
    use crate::kernels::act::{quantize_q8_0, quantize_q8_1, quantize_q8_k};
    use portable::*;

    /// One activation row through a kernel of the tiled signature.
    fn one<A>(k: unsafe fn(&[u8], &[A], usize, &mut [f32]), w: &[u8], a: &[A]) -> f32 {
        let mut o = [0.0f32];
        // SAFETY: callers pass AVX2 kernels only after detecting AVX2 and FMA.
        unsafe { k(w, a, a.len(), &mut o) };
        o[0]
    }

    /// Deterministic pseudo-random bytes.
    pub(crate) fn bytes(n: usize, seed: u32) -> Vec<u8> {
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
    pub(crate) fn row(ty: GgmlType, blocks: usize, seed: u32) -> Vec<u8> {
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
    fn f16_bits_equals_half_on_every_value() {
        for h in 0..=u16::MAX {
            let (ours, theirs) = (f16_bits(h), f16::from_bits(h).to_f32());
            assert!(ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()), "{h:#06x}: {ours} vs {theirs}");
        }
    }

    /// The AVX2 kernels and the portable ones compute the same values, bit for bit.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_kernels_equal_portable_ones() {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") && is_x86_feature_detected!("f16c")) {
            return;
        }
        let x: Vec<f32> = bytes(512, 7).iter().map(|&b| (b as f32 - 127.5) / 40.0).collect();
        let (mut a0, mut a1, mut ak) = (Vec::new(), Vec::new(), Vec::new());
        quantize_q8_0(&x, &mut a0);
        quantize_q8_1(&x, &mut a1);
        quantize_q8_k(&x, &mut ak);
        let close = |a: f32, b: f32| a.to_bits() == b.to_bits();
        for seed in 1..5 {
            // AVX2 and FMA were detected above, as `one` requires.
            {
                let w = row(GgmlType::Q4_0, 16, seed);
                assert!(close(one(avx2::q4_0, &w, &a0), one(q4_0, &w, &a0)));
                assert!(close(one(avx2::q4_0_repacked, &w, &a0), one(q4_0_repacked, &w, &a0)));
                let w = row(GgmlType::Q4_1, 16, seed);
                assert!(close(one(avx2::q4_1, &w, &a1), one(q4_1, &w, &a1)));
                let w = row(GgmlType::Q5_0, 16, seed);
                assert!(close(one(avx2::q5_0, &w, &a0), one(q5_0, &w, &a0)));
                let w = row(GgmlType::Q5_1, 16, seed);
                assert!(close(one(avx2::q5_1, &w, &a1), one(q5_1, &w, &a1)));
                let w = row(GgmlType::Q8_0, 16, seed);
                assert!(close(one(avx2::q8_0, &w, &a0), one(q8_0, &w, &a0)));
                let w = row(GgmlType::Q4_K, 2, seed);
                assert!(close(one(avx2::q4_k, &w, &ak), one(q4_k, &w, &ak)));
                let w = row(GgmlType::Q5_K, 2, seed);
                assert!(close(one(avx2::q5_k, &w, &ak), one(q5_k, &w, &ak)));
                let w = row(GgmlType::Q6_K, 2, seed);
                assert!(close(one(avx2::q6_k, &w, &ak), one(q6_k, &w, &ak)));
            }
        }
    }

    #[test]
    fn accumulation_is_ggml_avx2_order() {
        // Eight lanes with FMA, then (x4+x0 + x6+x2) + (x5+x1 + x7+x3): with 2^24 in lane 0 and
        // 1 in lanes 2 and 6, (x6+x2) = 2 is added whole, where a running sum drops each 1.
        let mut acc = PortableAcc::new();
        let mut l = [0i32; 8];
        l[0] = 1 << 24;
        l[2] = 1;
        l[6] = 1;
        acc.add_lanes(&l, 1.0);
        assert_eq!(acc.sum(), 16_777_218.0);
        // The lanes are sums of four consecutive products.
        let a: [i8; QK] = std::array::from_fn(|i| i as i8);
        let b = [1i8; QK];
        assert_eq!(lanes_portable(&a, &b), [6, 22, 38, 54, 70, 86, 102, 118]);
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 checked.
            assert_eq!(unsafe { lanes_avx2(&a, &b) }, lanes_portable(&a, &b));
        }
    }

    /// Q4_K: groups of four tokens go through llama.cpp's GEMM order, the rest its GEMV order;
    /// both are the same sums up to f32 rounding.
    #[test]
    fn q4_k_gemm_and_gemv_orders_agree_closely() {
        let x: Vec<f32> = bytes(512, 9).iter().map(|&b| (b as f32 - 127.5) / 40.0).collect();
        let w = row(GgmlType::Q4_K, 2, 3);
        let mut a = Vec::new();
        quantize_q8_k(&x, &mut a);
        let five: Vec<BlockQ8K> = (0..5).flat_map(|_| a.iter().copied()).collect();
        let mut out = [0.0f32; 5];
        q4_k(&w, &five, 2, &mut out);
        assert_eq!(out[4], one(q4_k, &w, &a), "the fifth token takes the GEMV path");
        assert!((out[0] - out[4]).abs() <= 1e-5 * out[4].abs().max(1.0));
        assert!(out[..4].iter().all(|&v| v == out[0]));
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
        check(GgmlType::Q4_0, 256, |w, x| (one(q4_0, w, &q80(x)), deq_q8_0(&q80(x))));
        check(GgmlType::Q4_0, 256, |w, x| (one(q4_0_repacked, w, &q80(x)), deq_q8_0(&q80(x))));
        check(GgmlType::Q5_0, 256, |w, x| (one(q5_0, w, &q80(x)), deq_q8_0(&q80(x))));
        check(GgmlType::Q8_0, 256, |w, x| (one(q8_0, w, &q80(x)), deq_q8_0(&q80(x))));
        check(GgmlType::Q4_K, 512, |w, x| (one(q4_k, w, &q8k(x)), deq_q8_k(&q8k(x))));
        check(GgmlType::Q5_K, 512, |w, x| (one(q5_k, w, &q8k(x)), deq_q8_k(&q8k(x))));
        check(GgmlType::Q6_K, 512, |w, x| (one(q6_k, w, &q8k(x)), deq_q8_k(&q8k(x))));
        for (ty, kernel) in [(GgmlType::Q4_1, q4_1 as unsafe fn(&[u8], &[BlockQ8_1], usize, &mut [f32])), (GgmlType::Q5_1, q5_1)] {
            check(ty, 256, |w, x| {
                let a = q81(x);
                let deq: Vec<f32> = a.iter().flat_map(|b| b.qs.iter().map(move |&q| q as f32 * b.d)).collect();
                // The `m·s` term uses s (rounded); compare against the same.
                let got = one(kernel, w, &a);
                let m_terms: f32 = w.chunks_exact(ty.type_size()).zip(&a).map(|(b, y)| f16_at(b, 2) * (y.s - y.d * y.qs.iter().map(|&q| q as f32).sum::<f32>())).sum();
                (got - m_terms, deq)
            });
        }
    }
}
