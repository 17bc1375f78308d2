//! Activations quantized for integer dot products, bit for bit as llama.cpp's x86 CPU backend
//! does before every quantized matmul (`quantize_row_q8_0`, `quantize_row_q8_1`,
//! `quantize_row_q8_K`): the same scales, rounding (to nearest, ties to even) and f16 storage.
//! This is what makes our logits equal llama.cpp's, not merely close.

use half::f16;

use crate::gguf::quant::{QK, QK_K};

/// Rounds an f32 through f16, as ggml stores `d` and `s` of Q8_0/Q8_1 blocks.
#[inline(always)]
pub fn round_f16(x: f32) -> f32 {
    f16::from_f32(x).to_f32()
}

/// `x.round_ties_even()` for |x| < 2^22 (here |x| ≤ 127.5) by adding and removing 1.5·2^23, so
/// no libm call (`rintf`) is needed where the baseline x86-64 target lacks SSE4.1's `roundss`.
#[inline(always)]
fn round_even_small(x: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0; // 1.5 · 2^23
    (x + MAGIC) - MAGIC
}

/// 32 activations as signed bytes with one scale (`block_q8_0`).
#[derive(Clone, Copy, Debug)]
pub struct BlockQ8_0 {
    /// Scale, already rounded through f16.
    pub d: f32,
    pub qs: [i8; QK],
}

/// 32 activations as signed bytes, scale and `d * Σq` (`block_q8_1`), for Q4_1/Q5_1 weights.
#[derive(Clone, Copy, Debug)]
pub struct BlockQ8_1 {
    pub d: f32,
    /// `d * Σ qs`, rounded through f16.
    pub s: f32,
    pub qs: [i8; QK],
}

/// 256 activations as signed bytes with an f32 scale and sums of each 16 (`block_q8_K`).
#[derive(Clone, Copy, Debug)]
pub struct BlockQ8K {
    pub d: f32,
    pub qs: [i8; QK_K],
    pub bsums: [i16; QK_K / 16],
}

fn amax(x: &[f32]) -> f32 {
    x.iter().fold(0.0f32, |m, v| m.max(v.abs()))
}

/// `quantize_row_q8_0` (AVX2 path): `d = amax / 127`, `q = round(x * 127 / amax)`.
pub fn quantize_q8_0(x: &[f32], out: &mut Vec<BlockQ8_0>) {
    out.clear();
    for x in x.chunks_exact(QK) {
        let m = amax(x);
        let id = if m != 0.0 { 127.0 / m } else { 0.0 };
        let mut qs = [0i8; QK];
        for (q, &v) in qs.iter_mut().zip(x) {
            *q = round_even_small(v * id) as i8;
        }
        out.push(BlockQ8_0 { d: round_f16(m / 127.0), qs });
    }
}

/// `quantize_row_q8_1` (AVX2 path): as Q8_0, plus `s = d * Σq` with the unrounded `d`.
pub fn quantize_q8_1(x: &[f32], out: &mut Vec<BlockQ8_1>) {
    out.clear();
    for x in x.chunks_exact(QK) {
        let m = amax(x);
        let d = m / 127.0;
        let id = if m != 0.0 { 127.0 / m } else { 0.0 };
        let mut qs = [0i8; QK];
        let mut sum = 0i32;
        for (q, &v) in qs.iter_mut().zip(x) {
            *q = round_even_small(v * id) as i8;
            sum += *q as i32;
        }
        out.push(BlockQ8_1 { d: round_f16(d), s: round_f16(d * sum as f32), qs });
    }
}

/// `quantize_row_q8_K_ref`: the scale is set by the value of largest magnitude, with its sign
/// (`iscale = -127 / max`), values are clamped to 127, `d = 1 / iscale` stays f32.
pub fn quantize_q8_k(x: &[f32], out: &mut Vec<BlockQ8K>) {
    quantize_q8_k_with(x, out, false);
}

/// `ggml_quantize_mat_q8_K_4x8` (x86), which quantizes activation rows four at a time for
/// repacked Q4_K weights: as [`quantize_q8_k`], except that when `+m` and `-m` both have the
/// largest magnitude the sign is `+`, whichever comes first.
pub fn quantize_q8_k_4x8(x: &[f32], out: &mut Vec<BlockQ8K>) {
    quantize_q8_k_with(x, out, true);
}

fn quantize_q8_k_with(x: &[f32], out: &mut Vec<BlockQ8K>, positive_wins: bool) {
    out.clear();
    for x in x.chunks_exact(QK_K) {
        let (mut max, mut amax) = (0.0f32, 0.0f32);
        for &v in x {
            if v.abs() > amax || (positive_wins && v.abs() == amax && v > 0.0) {
                amax = v.abs();
                max = v;
            }
        }
        let mut b = BlockQ8K { d: 0.0, qs: [0; QK_K], bsums: [0; QK_K / 16] };
        if amax != 0.0 {
            let iscale = -127.0 / max;
            for (q, &v) in b.qs.iter_mut().zip(x) {
                *q = (round_even_small(iscale * v) as i32).min(127) as i8;
            }
            for (s, q) in b.bsums.iter_mut().zip(b.qs.chunks_exact(16)) {
                *s = q.iter().map(|&v| v as i16).sum();
            }
            b.d = 1.0 / iscale;
        }
        out.push(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_rounding_equals_ties_to_even() {
        let mut x = -130.0f32;
        while x <= 130.0 {
            for v in [x, x + 0.5, x.next_up(), (x + 0.5).next_down()] {
                assert_eq!(round_even_small(v), v.round_ties_even(), "{v}");
            }
            x += 0.25;
        }
    }

    #[test]
    fn q8_0_scales_by_the_largest_magnitude_and_rounds_ties_to_even() {
        let mut x = [0.0f32; 32];
        x[0] = -2.0;
        x[1] = 1.0;
        x[2] = 2.0 * 0.5 / 127.0 * 1.0; // 0.5 steps: ties go to even
        x[3] = 2.0 * 1.5 / 127.0;
        let mut out = Vec::new();
        quantize_q8_0(&x, &mut out);
        assert_eq!(out[0].qs[..4], [-127, 64, 0, 2]);
        assert_eq!(out[0].d, round_f16(2.0 / 127.0));
    }

    #[test]
    fn q8_1_sum_uses_the_unrounded_scale() {
        let x: Vec<f32> = (0..32).map(|i| i as f32 / 7.0).collect();
        let mut out = Vec::new();
        quantize_q8_1(&x, &mut out);
        let sum: i32 = out[0].qs.iter().map(|&q| q as i32).sum();
        let d = (31.0f32 / 7.0) / 127.0;
        assert_eq!(out[0].s, round_f16(d * sum as f32));
        assert_eq!(out[0].qs[31], 127);
    }

    #[test]
    fn q8_k_4x8_prefers_the_positive_maximum_on_ties() {
        let mut x = vec![0.5f32; 256];
        x[3] = -2.0;
        x[7] = 2.0;
        let (mut first, mut positive) = (Vec::new(), Vec::new());
        quantize_q8_k(&x, &mut first);
        quantize_q8_k_4x8(&x, &mut positive);
        // quantize_row_q8_K_ref takes the first (-2): iscale = 63.5; the 4x8 quantizer takes +2.
        assert_eq!((first[0].qs[3], first[0].qs[7], first[0].d), (-127, 127, 1.0 / 63.5));
        assert_eq!((positive[0].qs[3], positive[0].qs[7], positive[0].d), (127, -127, -1.0 / 63.5));
        // Without a tie both agree.
        x[3] = -1.0;
        quantize_q8_k(&x, &mut first);
        quantize_q8_k_4x8(&x, &mut positive);
        assert_eq!(first[0].qs, positive[0].qs);
    }

    #[test]
    fn q8_k_keeps_the_sign_of_the_largest_value() {
        let mut x = vec![0.25f32; 256];
        x[5] = -4.0;
        let mut out = Vec::new();
        quantize_q8_k(&x, &mut out);
        let b = &out[0];
        // iscale = -127 / -4 = 31.75: -4 → -127, 0.25 → 7.9375 → 8.
        assert_eq!((b.qs[5], b.qs[0]), (-127, 8));
        assert_eq!(b.d, 1.0 / 31.75);
        assert_eq!(b.bsums[0], 15 * 8 - 127);
        // A positive maximum flips the sign of iscale; 127 is the clamp.
        let mut out = Vec::new();
        quantize_q8_k(&[1.0f32; 256], &mut out);
        assert_eq!(out[0].qs[0], -127);
        assert_eq!(out[0].d, -1.0 / 127.0);
    }
}
