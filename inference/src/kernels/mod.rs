//! CPU kernels over GGUF blocks: weights stay quantized in memory (the file's own bytes) and
//! every matmul quantizes its activations as llama.cpp does, then sums in integers.
//!
//! - [`act`]: activation quantizers (Q8_0, Q8_1, Q8_K), bit-exact with ggml's x86 backend.
//! - [`dot`]: one weight row · one activation row, per weight type.
//! - [`timing`]: wall time in matmuls and attention, for `--bench`.
//! - [`vnni`]: kernels for AVX-512 VNNI CPUs (a prompt sixteen tokens per vector, one token two
//!   rows per vector), with the same results as [`dot`]'s.
//! - [`avx2`]: on AVX2 CPUs without VNNI, a prompt's Q4_K, Q6_K, Q4_0, Q5_0 and Q8_0 products
//!   eight tokens per vector and one token's without unpacking to memory (the weights prefetched
//!   ahead), with the same results as [`dot`]'s.
//! - `simd128` (wasm): a prompt eight tokens per two vectors in the browser, equal to [`dot`]'s
//!   to f32 rounding.
//! - [`QMatrix::matmul`]: all rows × a batch of tokens, over rayon's threads natively and in the
//!   threaded wasm build (built with `+atomics`: a pool of Web Workers, `init_thread_pool`), on
//!   one thread in the single-threaded wasm build; compiled a second time with AVX2 and picked at run
//!   time on x86-64.

pub mod act;
pub mod dot;
pub mod timing;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub mod simd128;
#[cfg(target_arch = "x86_64")]
pub mod vnni;
#[cfg(target_arch = "x86_64")]
pub mod avx2;

use std::sync::Arc;

/// `initThreadPool(n)` for the page's JavaScript: starts `n` Web Workers sharing this module's
/// memory; call it once, before the first matmul (rayon cannot spawn threads itself in wasm).
#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
pub use wasm_bindgen_rayon::init_thread_pool;

/// How many threads the matmuls and attention run on.
pub fn threads() -> usize {
    #[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
    return rayon::current_num_threads().max(1);
    #[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
    1
}

use act::{BlockQ8_0, BlockQ8_1, BlockQ8K, quantize_q8_0, quantize_q8_1, quantize_q8_k, quantize_q8_k_4x8, round_f16};

use crate::gguf::quant::{QK, QK_K};
use crate::gguf::{GgmlType, dequantize_row};

/// What this runtime can multiply without dequantizing first.
pub const MATMUL_TYPES: &str = "F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K";

/// A weight matrix of `rows` rows of `cols` values, stored as ggml blocks of type `ty`.
#[derive(Clone)]
pub struct QMatrix {
    pub ty: GgmlType,
    pub rows: usize,
    pub cols: usize,
    bytes: Arc<Vec<u8>>,
    start: usize,
    row_bytes: usize,
}

impl std::fmt::Debug for QMatrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "QMatrix({:?}, {}x{})", self.ty, self.rows, self.cols)
    }
}

/// An input prepared for one kind of kernel ([`QMatrix::prep_kind`]).
struct Prepared {
    acts: Acts,
    packing: Packing,
}

/// Which matrices can share a [`Prepared`] input.
#[derive(Clone, Copy, PartialEq, Debug)]
enum PrepKind {
    /// Q4_0 (not repacked), Q5_0 and Q8_0 in a batch: the same Q8_0 activations and packing.
    Q8_0,
    /// Q4_0 in eights of rows (llama.cpp's `q4_0_8x8`): Q8_0 activations, never packed.
    Q4_0Repacked,
    Type(GgmlType),
}

/// Activations of `n` rows, quantized for one weight type's dot product.
enum Acts {
    Q8_0(Vec<BlockQ8_0>),
    Q8_1(Vec<BlockQ8_1>),
    Q8K(Vec<BlockQ8K>),
    F32(Vec<f32>),
}

impl QMatrix {
    /// Wraps `bytes[start..]` as `rows` rows of `cols` values of type `ty`; `None` when the type
    /// has no kernel here (see [`MATMUL_TYPES`]), `cols` is not whole blocks, or bytes are missing.
    pub fn new(ty: GgmlType, rows: usize, cols: usize, bytes: Arc<Vec<u8>>, start: usize) -> Option<Self> {
        use GgmlType::*;
        if !matches!(ty, F32 | F16 | Q4_0 | Q4_1 | Q5_0 | Q5_1 | Q8_0 | Q4_K | Q5_K | Q6_K) {
            return None;
        }
        if cols == 0 || !cols.is_multiple_of(ty.block_size()) {
            return None;
        }
        let row_bytes = cols / ty.block_size() * ty.type_size();
        let end = start.checked_add(row_bytes.checked_mul(rows)?)?;
        (end <= bytes.len()).then_some(QMatrix { ty, rows, cols, bytes, start, row_bytes })
    }

    /// Bytes of row `r`.
    #[inline(always)]
    pub fn row_bytes(&self, r: usize) -> &[u8] {
        let at = self.start + r * self.row_bytes;
        &self.bytes[at..at + self.row_bytes]
    }

    /// Bytes the weights take.
    pub fn size_bytes(&self) -> usize {
        self.rows * self.row_bytes
    }

    /// Row `r` as f32 (an embedding lookup).
    pub fn dequantize_row_into(&self, r: usize, out: &mut [f32]) {
        dequantize_row(self.ty, self.row_bytes(r), out).expect("QMatrix::new checked type and size");
    }

    /// `out[t][r] = Σ_c W[r][c] · x[t][c]` for `n` rows of `x` (`n × cols`, row-major);
    /// `out` is `n × rows`.
    pub fn matmul(&self, x: &[f32], n: usize, out: &mut [f32]) {
        timing::timed(timing::Part::Matmul, || self.matmul_untimed(x, n, out))
    }

    fn matmul_untimed(&self, x: &[f32], n: usize, out: &mut [f32]) {
        self.matmul_with(x, n, out, Kernels::Best)
    }

    /// `out = W·x` for several matrices reading the same input `x` (`n` rows), such as a layer's
    /// q/k/v or gate/up: the input is quantized (and packed) once per kind of kernel instead of
    /// once per matrix. Each `out` is as [`Self::matmul`]'s.
    pub fn matmul_same_input(x: &[f32], n: usize, jobs: &mut [(&QMatrix, &mut [f32])]) {
        timing::timed(timing::Part::Matmul, || {
            let mut prepared: Vec<(PrepKind, Prepared)> = Vec::new();
            for (w, out) in jobs.iter_mut() {
                let kind = w.prep_kind(n);
                let at = match prepared.iter().position(|(k, _)| *k == kind) {
                    Some(at) => at,
                    None => {
                        prepared.push((kind, w.prepare(x, n, Kernels::Best)));
                        prepared.len() - 1
                    }
                };
                w.matmul_prepared(&prepared[at].1, n, out);
            }
        })
    }

    /// [`Self::matmul`] without timing, by the kernels `kernels` allows (tests compare them).
    fn matmul_with(&self, x: &[f32], n: usize, out: &mut [f32], kernels: Kernels) {
        self.matmul_prepared(&self.prepare(x, n, kernels), n, out)
    }

    /// What [`Self::prepare`] makes of an input depends on this alone: matrices of one kind can
    /// share it. A single token's VNNI form depends on the weight type's offset, so there the
    /// kind is the type itself.
    fn prep_kind(&self, n: usize) -> PrepKind {
        use GgmlType::*;
        match self.ty {
            Q4_0 if self.rows.is_multiple_of(8) => PrepKind::Q4_0Repacked,
            _ if n == 1 => PrepKind::Type(self.ty),
            // The relaxed build's batch kernels take Q4_0 and Q5_0 but not Q8_0.
            Q8_0 if cfg!(all(target_arch = "wasm32", feature = "relaxed-simd")) => PrepKind::Type(Q8_0),
            Q4_0 | Q5_0 | Q8_0 => PrepKind::Q8_0,
            ty => PrepKind::Type(ty),
        }
    }

    /// The input quantized as this matrix's kernels read it, and packed for [`vnni`]'s (in the
    /// browser `simd128`'s) where they take it.
    fn prepare(&self, x: &[f32], n: usize, kernels: Kernels) -> Prepared {
        assert_eq!(x.len(), n * self.cols, "activations are n × cols");
        let acts = self.quantize(x, n);
        let packing = match kernels {
            Kernels::PerToken => None,
            _ => self.pack(&acts, n, self.cols / self.ty.block_size(), kernels),
        };
        Prepared { acts, packing }
    }

    fn matmul_prepared(&self, p: &Prepared, n: usize, out: &mut [f32]) {
        assert_eq!(out.len(), n * self.rows, "output is n × rows");
        let (acts, packing) = (&p.acts, &p.packing);
        let bpr = self.cols / self.ty.block_size();
        if n == 1 {
            for_row_chunks(out, self.rows, 1, self.rows * self.cols, |r0, chunk| rows(self, acts, packing, bpr, 1, r0, chunk));
        } else {
            let mut out_t = vec![0.0f32; n * self.rows];
            for_row_chunks(&mut out_t, self.rows, n, self.rows * self.cols * n, |r0, chunk| {
                rows(self, acts, packing, bpr, n, r0, chunk)
            });
            // Transposed in 16 × 16 tiles, so neither side is walked with a large stride: each
            // task 16 tokens' outputs.
            const B: usize = 16;
            let rows = self.rows;
            for_row_chunks(out, n, rows, n * rows, |t0, out| {
                for r0 in (0..rows).step_by(B) {
                    for t in t0..t0 + out.len() / rows {
                        for r in r0..(r0 + B).min(rows) {
                            out[(t - t0) * rows + r] = out_t[r * n + t];
                        }
                    }
                }
            });
        }
    }

    /// A batch made ready for [`vnni`]'s kernels (groups of 16 tokens interleaved, or one
    /// token's lane offsets), where the CPU has AVX-512 VNNI and the weight type has such a kernel;
    /// else Q4_K's and Q6_K's for [`avx2`]'s (groups of 8 tokens, or one) where it has AVX2.
    #[cfg(target_arch = "x86_64")]
    fn pack(&self, acts: &Acts, n: usize, bpr: usize, kernels: Kernels) -> Packing {
        use GgmlType::*;
        use vnni::Batch;
        // Q4_0 in eights of rows is multiplied as llama.cpp's repacked `q4_0_8x8` (one f32
        // accumulator per row), which these lanes do not follow.
        let repacked = self.ty == Q4_0 && self.rows.is_multiple_of(8);
        if !vnni::available() || kernels == Kernels::Avx2 {
            // Tokens in whole fours (for Q4_K llama.cpp's GEMM order; the rest take its GEMV's).
            return match (self.ty, acts) {
                _ if !avx2::available() || repacked => None,
                (Q4_K | Q6_K, Acts::Q8K(_)) if n == 1 => Some(X86Batch::Avx2One),
                (Q4_K | Q6_K, Acts::Q8K(a)) if n >= 4 => Some(X86Batch::Avx2(avx2::Packed::q8_k(a, n - n % 4, bpr))),
                (Q4_0 | Q5_0 | Q8_0, Acts::Q8_0(_)) if n == 1 => Some(X86Batch::Avx2One),
                (Q4_0 | Q5_0 | Q8_0, Acts::Q8_0(a)) => Some(X86Batch::Avx2(avx2::Packed::q8_0(a, n, bpr))),
                _ => None,
            };
        }
        let batch = match (self.ty, acts) {
            _ if repacked => None,
            (Q4_0 | Q5_0 | Q8_0, Acts::Q8_0(a)) if n == 1 => vnni::OneToken::new(self.ty, a).map(Batch::One),
            (Q4_0 | Q5_0 | Q8_0, Acts::Q8_0(a)) => Some(Batch::Groups(vnni::pack_q8_0(a, n, bpr))),
            (Q4_K | Q6_K, Acts::Q8K(_)) if n == 1 => Some(Batch::OneK),
            // Only Q4_K's tokens in whole fours (llama.cpp's GEMM order; the rest take its GEMV's).
            (Q4_K, Acts::Q8K(a)) => Some(Batch::Groups(vnni::pack_q8_k(a, n - n % 4, bpr))),
            (Q6_K, Acts::Q8K(a)) => Some(Batch::Groups(vnni::pack_q8_k16(a, n, bpr))),
            _ => None,
        };
        batch.map(X86Batch::Vnni)
    }

    /// In the browser: a prompt's activations widened and interleaved for `simd128`; in the
    /// relaxed-SIMD build, one token's or a prompt's made ready for `simd128::relaxed` where it
    /// takes the type.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    fn pack(&self, acts: &Acts, n: usize, bpr: usize, _kernels: Kernels) -> Packing {
        use simd128::Batch;
        #[cfg(feature = "relaxed-simd")]
        if n == 1 && simd128::relaxed::takes_one(self.ty) {
            let y = if let Acts::Q8_0(a) = acts { &a[..] } else { &[] };
            return Some(Batch::One(simd128::relaxed::OneToken::new(self.ty, y)));
        }
        #[cfg(feature = "relaxed-simd")]
        if simd128::relaxed::takes(self.ty, n) {
            return match acts {
                Acts::Q8_0(a) => Some(Batch::Quads(simd128::relaxed::Packed::q8_0(a, n, bpr))),
                Acts::Q8K(a) => Some(Batch::Quads(simd128::relaxed::Packed::q8_k(a, n, bpr))),
                _ => None,
            };
        }
        match acts {
            _ if !simd128::takes(self.ty, n) => None,
            Acts::Q8_0(a) => Some(Batch::Groups(simd128::Packed::q8_0(a, n, bpr))),
            Acts::Q8K(a) => Some(Batch::Groups(simd128::Packed::q8_k(a, n, bpr))),
            _ => None,
        }
    }

    #[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
    fn pack(&self, _acts: &Acts, _n: usize, _bpr: usize, _kernels: Kernels) -> Packing {
        None
    }

    /// Activations in the form this weight type's kernel reads (ggml's `vec_dot_type`).
    fn quantize(&self, x: &[f32], n: usize) -> Acts {
        use GgmlType::*;
        match self.ty {
            Q4_0 | Q5_0 | Q8_0 => Acts::Q8_0(quantized(x, QK, quantize_q8_0)),
            Q4_1 | Q5_1 => Acts::Q8_1(quantized(x, QK, quantize_q8_1)),
            Q4_K => {
                // llama.cpp (x86) repacks Q4_K: rows in whole groups of four are quantized by
                // `ggml_quantize_mat_q8_K_4x8`, the rest by `quantize_row_q8_K`.
                let grouped = n - n % 4;
                let mut v = quantized(&x[..grouped * self.cols], QK_K, quantize_q8_k_4x8);
                let mut rest = Vec::new();
                quantize_q8_k(&x[grouped * self.cols..], &mut rest);
                v.extend(rest);
                Acts::Q8K(v)
            }
            Q5_K | Q6_K => Acts::Q8K(quantized(x, QK_K, quantize_q8_k)),
            F16 => Acts::F32(x.iter().map(|&v| round_f16(v)).collect()),
            _ => Acts::F32(x.to_vec()),
        }
    }
}

/// `quantize(x)` over the thread pool in pieces of whole blocks of `block` values (each
/// quantizer works block by block, so the pieces join into what one call makes).
fn quantized<B: Send>(x: &[f32], block: usize, quantize: fn(&[f32], &mut Vec<B>)) -> Vec<B> {
    /// Blocks per task.
    #[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
    const PIECE: usize = 64;
    #[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
    if x.len() > PIECE * block && worth_threads(x.len()) {
        use rayon::prelude::*;
        let pieces: Vec<Vec<B>> = x
            .par_chunks(PIECE * block)
            .map(|x| {
                let mut v = Vec::new();
                quantize(x, &mut v);
                v
            })
            .collect();
        return pieces.into_iter().flatten().collect();
    }
    let _ = block;
    let mut v = Vec::new();
    quantize(x, &mut v);
    v
}

/// Whether `work` multiply-adds are worth handing to the thread pool. In the browser a parked
/// Web Worker takes ~0.1 ms to wake (Atomics.wait/notify), as long as a small matmul takes on one
/// thread: measured, SmolLM2's decode on 2 workers ran at 11 tok/s against 19 on one thread when
/// every matmul went to the pool. Natively waking a thread costs microseconds: always.
#[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
pub(crate) fn worth_threads(work: usize) -> bool {
    #[cfg(target_arch = "wasm32")]
    return work >= 4 << 20;
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = work;
        true
    }
}

/// Splits `out` (`rows × n`) into chunks of whole rows and runs `f(first_row, chunk)` on each,
/// over rayon's pool (natively, and in wasm built with shared memory) when the `work`
/// (multiply-adds) is [`worth_threads`].
fn for_row_chunks(out: &mut [f32], rows: usize, n: usize, work: usize, f: impl Fn(usize, &mut [f32]) + Sync + Send) {
    #[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
    if worth_threads(work) {
        use rayon::prelude::*;
        let threads = rayon::current_num_threads().max(1);
        let per = rows.div_ceil(threads * 4).max(16);
        out.par_chunks_mut(per * n).enumerate().for_each(|(i, chunk)| f(i * per, chunk));
        return;
    }
    let _ = (rows, n, work);
    f(0, out)
}

/// Tokens whose activations one pass over a thread's rows reads: a multiple of 4, so that
/// Q4_K's groups of four tokens (llama.cpp's GEMM) are the same as over the whole batch.
const TOKEN_CHUNK: usize = 32;

/// Which kernels a matmul may use.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kernels {
    /// The fastest this CPU has.
    Best,
    /// [`dot`]'s alone (one token at a time through each row; tests).
    #[cfg_attr(not(test), allow(dead_code))]
    PerToken,
    /// [`avx2`]'s batch kernels even where [`vnni`]'s are there (tests; elsewhere as `Best`).
    #[cfg_attr(not(test), allow(dead_code))]
    Avx2,
}

/// A batch's activations packed for [`vnni`]'s kernels, or [`avx2`]'s on CPUs without VNNI.
#[cfg(target_arch = "x86_64")]
enum X86Batch {
    Vnni(vnni::Batch),
    Avx2(avx2::Packed),
    /// One token for [`avx2`]'s Q4_K, Q6_K, Q4_0, Q5_0 or Q8_0 kernels (the activations need
    /// nothing more).
    Avx2One,
}

/// A batch's activations packed for the batch kernels (in the browser `simd128`'s), if any.
#[cfg(target_arch = "x86_64")]
type Packing = Option<X86Batch>;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
type Packing = Option<simd128::Batch>;
#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
type Packing = Option<std::convert::Infallible>;

/// Rows `r0..` of `w` times all `n` activation rows into `out` (`rows × n`): by [`vnni`]'s
/// kernels where `packing` is there, else by [`dot`]'s.
fn rows(w: &QMatrix, acts: &Acts, packing: &Packing, bpr: usize, n: usize, r0: usize, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        match (packing, acts) {
            (Some(X86Batch::Avx2(p)), Acts::Q8_0(_)) => {
                // SAFETY: packed only where avx2::available() found the features. Every token.
                return unsafe { rows_avx2_batched(w, p, n, r0, out) };
            }
            (Some(X86Batch::Avx2(p)), Acts::Q8K(a)) => {
                // SAFETY: packed only where avx2::available() found the features.
                unsafe { rows_avx2_batched(w, p, n, r0, out) };
                let tail = &a[p.tokens * bpr..];
                for (i, o) in out.chunks_exact_mut(n).enumerate() {
                    // SAFETY: as above. Fewer than four tokens (for Q4_K llama.cpp's GEMV order).
                    match w.ty {
                        GgmlType::Q4_K => unsafe { dot::avx2::q4_k(w.row_bytes(r0 + i), tail, bpr, &mut o[p.tokens..]) },
                        _ => unsafe { dot::avx2::q6_k(w.row_bytes(r0 + i), tail, bpr, &mut o[p.tokens..]) },
                    }
                }
                return;
            }
            (Some(X86Batch::Avx2One), Acts::Q8K(y)) => {
                // SAFETY: as above.
                unsafe { avx2::one_token_k_rows(w.ty, |r| w.row_bytes(r), y, r0, out) };
                return;
            }
            (Some(X86Batch::Avx2One), Acts::Q8_0(y)) => {
                // SAFETY: as above.
                unsafe { avx2::one_token_32_rows(w.ty, |r| w.row_bytes(r), y, r0, out) };
                return;
            }
            (Some(X86Batch::Vnni(vnni::Batch::Groups(p))), _) => {
                // SAFETY: made only where vnni::available() found the features.
                unsafe { rows_vnni(w, p, n, r0, out) };
                if p.tokens < n {
                    // SAFETY: as above.
                    unsafe { tail_vnni(w, acts, bpr, n, p.tokens, r0, out) };
                }
                return;
            }
            (Some(X86Batch::Vnni(vnni::Batch::One(one))), Acts::Q8_0(y)) => {
                // SAFETY: as above.
                unsafe { vnni::one_token_rows(w.ty, |r| w.row_bytes(r), y, one, r0, out) };
                return;
            }
            (Some(X86Batch::Vnni(vnni::Batch::OneK)), Acts::Q8K(y)) => {
                // SAFETY: as above.
                unsafe { vnni::one_token_k_rows(w.ty, |r| w.row_bytes(r), y, r0, out) };
                return;
            }
            _ => {}
        }
        if avx2::available() {
            // SAFETY: the CPU has AVX2, FMA and F16C (checked just above).
            return unsafe { rows_avx2(w, acts, bpr, n, r0, out) };
        }
        rows_generic(w, acts, bpr, n, r0, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        match (packing, acts) {
            (Some(simd128::Batch::Groups(p)), _) => return simd128::rows(w.ty, |r| w.row_bytes(r), p, n, r0, out),
            #[cfg(feature = "relaxed-simd")]
            (Some(simd128::Batch::Quads(p)), _) => return simd128::relaxed::rows(w.ty, |r| w.row_bytes(r), p, n, r0, out),
            #[cfg(feature = "relaxed-simd")]
            (Some(simd128::Batch::One(one)), Acts::Q8_0(y)) => {
                return simd128::relaxed::one_token_rows(w.ty, |r| w.row_bytes(r), y, &[], one, r0, out);
            }
            #[cfg(feature = "relaxed-simd")]
            (Some(simd128::Batch::One(one)), Acts::Q8K(y)) => {
                return simd128::relaxed::one_token_rows(w.ty, |r| w.row_bytes(r), &[], y, one, r0, out);
            }
            _ => {}
        }
        let _ = packing;
        rows_generic(w, acts, bpr, n, r0, out)
    }
}

/// The tokens `from..n` after a batch's groups, one at a time by [`vnni`]'s one-token kernels
/// (the AVX2 kernels' values for each token; Q4_K's tail is past its whole fours, where both
/// take llama.cpp's GEMV order).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
fn tail_vnni(w: &QMatrix, acts: &Acts, bpr: usize, n: usize, from: usize, r0: usize, out: &mut [f32]) {
    debug_assert!(w.ty != GgmlType::Q4_K || from >= n - n % 4, "Q4_K's grouped tokens are packed");
    let mut col = vec![0.0f32; out.len() / n];
    for t in from..n {
        match acts {
            Acts::Q8_0(a) => {
                let y = &a[t * bpr..(t + 1) * bpr];
                let one = vnni::OneToken::new(w.ty, y).expect("a type with a one-token kernel");
                vnni::one_token_rows(w.ty, |r| w.row_bytes(r), y, &one, r0, &mut col);
            }
            Acts::Q8K(a) => vnni::one_token_k_rows(w.ty, |r| w.row_bytes(r), &a[t * bpr..(t + 1) * bpr], r0, &mut col),
            _ => unreachable!("packed only for Q8_0 and Q8_K activations"),
        }
        for (i, &v) in col.iter().enumerate() {
            out[i * n + t] = v;
        }
    }
}

/// Bytes of packed activations [`vnni`]'s kernels read per unpacked row (1 MB measured best of
/// 0.5, 1 and 2 MB on Qwen2.5-Coder-0.5B/1.5B layers, `examples/matmul_bench.rs`): as many groups of 16
/// tokens as fit, so a row is unpacked as few times as the activations stay in L2 meanwhile.
#[cfg(target_arch = "x86_64")]
const VNNI_CHUNK_BYTES: usize = 1 << 20;

/// Whole groups of 16 tokens by [`vnni`]'s kernels, as many at a time over every row as fit
/// [`VNNI_CHUNK_BYTES`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
fn rows_vnni(w: &QMatrix, p: &vnni::Packed, n: usize, r0: usize, out: &mut [f32]) {
    /// Rows per kernel call: they share each load of the activations (4 for Q4_K measured no
    /// faster; the others' eight accumulators per row leave registers for 2).
    const R: usize = 2;
    let per_chunk = (VNNI_CHUNK_BYTES / p.group_bytes()).max(1);
    let grouped = Grouped { n, groups: p.groups, tokens: p.tokens, per_chunk };
    // The closures have this function's target features, the kernels'.
    grouped.rows::<vnni::Row, { vnni::G }, R>(
        out,
        |row, r| row.unpack(w.ty, w.row_bytes(r0 + r)),
        |rows, g, t| match w.ty {
            GgmlType::Q4_K => vnni::q4_k(rows, p, g, t.each_mut().map(|t| &mut t[..])),
            GgmlType::Q6_K => vnni::q6_k(rows, p, g, t.each_mut().map(|t| &mut t[..])),
            _ => vnni::signed32(rows, p, g, t.each_mut().map(|t| &mut t[..])),
        },
        |row, g, t| match w.ty {
            GgmlType::Q4_K => vnni::q4_k([row], p, g, [&mut t[..]]),
            GgmlType::Q6_K => vnni::q6_k([row], p, g, [&mut t[..]]),
            _ => vnni::signed32([row], p, g, [&mut t[..]]),
        },
    );
}

/// Bytes of packed activations [`avx2`]'s kernels read per unpacked row: as many groups of 8
/// tokens as stay in L2 meanwhile (128 KB to 1 MB measured alike within this host's noise, on
/// the 1.5B's layers, `examples/matmul_bench.rs`).
#[cfg(target_arch = "x86_64")]
const AVX2_CHUNK_BYTES: usize = 256 << 10;

/// Whole groups of 8 tokens by [`avx2`]'s Q4_K, Q6_K or blocks-of-32 kernel, as many at a time
/// over every row as fit [`AVX2_CHUNK_BYTES`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
fn rows_avx2_batched(w: &QMatrix, p: &avx2::Packed, n: usize, r0: usize, out: &mut [f32]) {
    /// Rows per kernel call, sharing each load of the activations.
    const R: usize = 2;
    let per_chunk = (AVX2_CHUNK_BYTES / p.group_bytes()).max(1);
    let grouped = Grouped { n, groups: p.groups, tokens: p.tokens, per_chunk };
    // The closures have this function's target features, the kernels'.
    grouped.rows::<avx2::Row, { avx2::G }, R>(
        out,
        |row, r| row.unpack(w.ty, w.row_bytes(r0 + r)),
        |rows, g, t| match w.ty {
            GgmlType::Q4_K => avx2::q4_k(rows, p, g, t.each_mut().map(|t| &mut t[..])),
            GgmlType::Q6_K => avx2::q6_k(rows, p, g, t.each_mut().map(|t| &mut t[..])),
            _ => avx2::signed32(rows, p, g, t.each_mut().map(|t| &mut t[..])),
        },
        |row, g, t| match w.ty {
            GgmlType::Q4_K => avx2::q4_k([row], p, g, [&mut t[..]]),
            GgmlType::Q6_K => avx2::q6_k([row], p, g, [&mut t[..]]),
            _ => avx2::signed32([row], p, g, [&mut t[..]]),
        },
    );
}

/// A batch's tokens in groups of `G` for kernels that take `R` unpacked rows (or one) times one
/// group: `groups` groups holding the first `tokens` of `n`, `per_chunk` groups read per
/// unpacking of a row.
#[cfg(target_arch = "x86_64")]
struct Grouped {
    n: usize,
    groups: usize,
    tokens: usize,
    per_chunk: usize,
}

#[cfg(target_arch = "x86_64")]
impl Grouped {
    /// `out` (`rows × n`) for the grouped tokens: per chunk of groups, each row unpacked once
    /// (`unpack(row, r)`), then `many` on `R` rows at a time (`one` on a last row alone) per group.
    #[inline(always)]
    fn rows<Row: Default, const G: usize, const R: usize>(
        &self,
        out: &mut [f32],
        mut unpack: impl FnMut(&mut Row, usize),
        mut many: impl FnMut([&Row; R], usize, &mut [[f32; G]; R]),
        mut one: impl FnMut(&Row, usize, &mut [f32; G]),
    ) {
        let n = self.n;
        let rows = out.len() / n;
        let mut unpacked: [Row; R] = std::array::from_fn(|_| Row::default());
        for g0 in (0..self.groups).step_by(self.per_chunk) {
            let g1 = (g0 + self.per_chunk).min(self.groups);
            let mut r = 0;
            while r < rows {
                let k = if rows - r >= R { R } else { 1 };
                for (j, row) in unpacked.iter_mut().take(k).enumerate() {
                    unpack(row, r + j);
                }
                for g in g0..g1 {
                    let mut t = [[0.0f32; G]; R];
                    if k == R {
                        many(std::array::from_fn(|j| &unpacked[j]), g, &mut t);
                    } else {
                        one(&unpacked[0], g, &mut t[0]);
                    }
                    let at = g * G..self.tokens.min((g + 1) * G);
                    for (j, t) in t.iter().take(k).enumerate() {
                        out[(r + j) * n + at.start..(r + j) * n + at.end].copy_from_slice(&t[..at.len()]);
                    }
                }
                r += k;
            }
        }
    }
}

/// The row loop, instantiated once per kernel set (`dot::portable`, `dot::avx2`).
macro_rules! row_loop {
    ($w:expr, $acts:expr, $bpr:expr, $n:expr, $r0:expr, $out:expr, $k:ident) => {{
        let (w, acts, bpr, n, r0, out) = ($w, $acts, $bpr, $n, $r0, $out);
        macro_rules! each {
            // Tokens in chunks of TOKEN_CHUNK, each chunk's activations read by every row
            // while they are in cache (a whole prompt's do not fit in L2).
            ($a:expr, $per_row:expr, $dot:path) => {
                for t0 in (0..n).step_by(TOKEN_CHUNK) {
                    let t1 = (t0 + TOKEN_CHUNK).min(n);
                    let a = &$a[t0 * $per_row..t1 * $per_row];
                    for (i, o) in out.chunks_exact_mut(n).enumerate() {
                        $dot(w.row_bytes(r0 + i), a, $per_row, &mut o[t0..t1]);
                    }
                }
            };
        }
        use GgmlType::*;
        match (w.ty, acts) {
            // llama.cpp (x86) repacks Q4_0 matrices whose rows come in eights (`q4_0_8x8`)
            (Q4_0, Acts::Q8_0(a)) if w.rows.is_multiple_of(8) => each!(a, bpr, dot::$k::q4_0_repacked),
            (Q4_0, Acts::Q8_0(a)) => each!(a, bpr, dot::$k::q4_0),
            (Q5_0, Acts::Q8_0(a)) => each!(a, bpr, dot::$k::q5_0),
            (Q8_0, Acts::Q8_0(a)) => each!(a, bpr, dot::$k::q8_0),
            (Q4_1, Acts::Q8_1(a)) => each!(a, bpr, dot::$k::q4_1),
            (Q5_1, Acts::Q8_1(a)) => each!(a, bpr, dot::$k::q5_1),
            (Q4_K, Acts::Q8K(a)) => each!(a, bpr, dot::$k::q4_k),
            (Q5_K, Acts::Q8K(a)) => each!(a, bpr, dot::$k::q5_k),
            (Q6_K, Acts::Q8K(a)) => each!(a, bpr, dot::$k::q6_k),
            (F16, Acts::F32(a)) => each!(a, w.cols, dot::f16_row),
            (F32, Acts::F32(a)) => each!(a, w.cols, dot::f32_row),
            (ty, _) => unreachable!("activations are quantized for {ty:?} by QMatrix::quantize"),
        }
    }};
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
fn rows_avx2(w: &QMatrix, acts: &Acts, bpr: usize, n: usize, r0: usize, out: &mut [f32]) {
    row_loop!(w, acts, bpr, n, r0, out, avx2)
}

fn rows_generic(w: &QMatrix, acts: &Acts, bpr: usize, n: usize, r0: usize, out: &mut [f32]) {
    row_loop!(w, acts, bpr, n, r0, out, portable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matmul_of_q8_0_matches_the_f32_product_for_batches() {
        // 3 rows × 64 cols of Q8_0 with d = 1: weights are the bytes themselves.
        let (rows, cols) = (40, 64);
        let mut bytes = Vec::new();
        for r in 0..rows {
            for b in 0..cols / 32 {
                bytes.extend_from_slice(&half::f16::from_f32(1.0).to_le_bytes());
                bytes.extend((0..32).map(|i| ((r * 7 + b * 3 + i) % 11) as u8));
            }
        }
        let w = QMatrix::new(GgmlType::Q8_0, rows, cols, Arc::new(bytes), 0).unwrap();
        // Activations that quantize exactly: integers with |max| = 127 in every block.
        let n = 6; // one whole tile of 4 and a remainder of 2
        let x: Vec<f32> = (0..n * cols).map(|i| if i % 32 == 0 { 127.0 } else { (i % 9) as f32 - 4.0 }).collect();
        let mut out = vec![0.0; n * rows];
        w.matmul(&x, n, &mut out);
        let mut one = vec![0.0; rows];
        for t in 0..n {
            let mut row = vec![0.0; cols];
            for r in 0..rows {
                w.dequantize_row_into(r, &mut row);
                let want: f32 = row.iter().zip(&x[t * cols..(t + 1) * cols]).map(|(a, b)| a * b).sum();
                assert_eq!(out[t * rows + r], want, "token {t} row {r}");
            }
            w.matmul(&x[t * cols..(t + 1) * cols], 1, &mut one);
            assert_eq!(one, out[t * rows..(t + 1) * rows], "batch of 1 equals batch of {n}");
        }
    }

    /// The AVX-512 VNNI kernels give the AVX2 kernels' values bit for bit: one token (decode),
    /// whole and padded groups of 16 tokens, and the tokens after them.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn batched_kernels_equal_per_token_ones_bit_for_bit() {
        if !vnni::available() {
            eprintln!("this CPU has no AVX-512 VNNI: the batched kernels are not used here");
            return;
        }
        use GgmlType::*;
        // Q4_0 with 12 rows (not eights: llama.cpp's repacked layout takes those).
        // Odd row counts take the one-row kernels for their last row.
        let cases = [(Q4_0, 12, 8), (Q5_0, 41, 8), (Q8_0, 24, 8), (Q4_K, 17, 2), (Q6_K, 15, 2)];
        assert_kernels_agree(Kernels::Best, &cases, &[1, 2, 5, 16, 17, 19, 20, 23, 31, 36, 48, 67, 100]);
    }

    /// [`avx2`]'s batch kernels give the per-token AVX2 kernels' values bit for bit: whole and
    /// half groups of 8 tokens, and the fewer than four after them (Q4_K's GEMV order); odd row
    /// counts; blocks of 32 from two tokens on.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_batched_kernels_equal_per_token_ones_bit_for_bit() {
        assert!(avx2::available(), "the x86-64 CPUs this is tested on have AVX2");
        use GgmlType::*;
        let cases = [(Q4_K, 17, 2), (Q4_K, 2, 3), (Q4_K, 1, 1), (Q6_K, 15, 2), (Q8_0, 24, 8), (Q5_0, 41, 8), (Q4_0, 12, 8), (Q5_0, 1, 3)];
        assert_kernels_agree(Kernels::Avx2, &cases, &[1, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 19, 20, 23, 31, 36, 48, 67, 100]);
    }

    /// `kernels` and [`dot`]'s alone give the same values, bit for bit, for matrices of
    /// `(type, rows, blocks per row)` and batches of each size in `tokens`.
    #[cfg(target_arch = "x86_64")]
    fn assert_kernels_agree(kernels: Kernels, cases: &[(GgmlType, usize, usize)], tokens: &[usize]) {
        for &(ty, rows, blocks) in cases {
            let bytes: Vec<u8> = (0..rows).flat_map(|r| dot::tests::row(ty, blocks, r as u32 + 1)).collect();
            let cols = blocks * ty.block_size();
            let w = QMatrix::new(ty, rows, cols, Arc::new(bytes), 0).unwrap();
            for &n in tokens {
                let x: Vec<f32> =
                    dot::tests::bytes(n * cols, n as u32).iter().enumerate().map(|(i, &b)| (b as f32 - 127.5) / (1.0 + (i % 7) as f32)).collect();
                let (mut batched, mut per_token) = (vec![0.0; n * rows], vec![0.0; n * rows]);
                w.matmul_with(&x, n, &mut batched, kernels);
                w.matmul_with(&x, n, &mut per_token, Kernels::PerToken);
                for (i, (a, b)) in batched.iter().zip(&per_token).enumerate() {
                    assert_eq!(a.to_bits(), b.to_bits(), "{ty:?} n = {n}, token {} row {}: {a} vs {b}", i / rows, i % rows);
                }
            }
        }
    }

    /// Matrices reading one input through `matmul_same_input` (sharing its quantization where
    /// their kernels read the same form) give what each gives alone, bit for bit.
    #[test]
    fn shared_input_matmuls_equal_separate_ones() {
        use GgmlType::*;
        let cols = 256;
        let mats: Vec<QMatrix> = [(Q5_0, 20), (Q8_0, 8), (Q4_0, 12), (Q4_0, 16), (Q4_K, 9), (Q6_K, 7), (Q5_0, 3)]
            .into_iter()
            .enumerate()
            .map(|(m, (ty, rows))| {
                let blocks = cols / ty.block_size();
                let bytes: Vec<u8> = (0..rows).flat_map(|r| dot::tests::row(ty, blocks, (10 * m + r) as u32 + 1)).collect();
                QMatrix::new(ty, rows, cols, Arc::new(bytes), 0).unwrap()
            })
            .collect();
        for n in [1, 3, 20] {
            let x: Vec<f32> = dot::tests::bytes(n * cols, 7 + n as u32).iter().map(|&b| (b as f32 - 127.5) / 9.0).collect();
            let mut shared: Vec<Vec<f32>> = mats.iter().map(|w| vec![0.0; n * w.rows]).collect();
            let mut jobs: Vec<(&QMatrix, &mut [f32])> = mats.iter().zip(shared.iter_mut()).map(|(w, o)| (w, o.as_mut_slice())).collect();
            QMatrix::matmul_same_input(&x, n, &mut jobs);
            for (w, got) in mats.iter().zip(&shared) {
                let mut alone = vec![0.0; n * w.rows];
                w.matmul(&x, n, &mut alone);
                assert!(got.iter().zip(&alone).all(|(a, b)| a.to_bits() == b.to_bits()), "{:?} n = {n}", w.ty);
            }
        }
    }

    #[test]
    fn unsupported_types_and_short_buffers_are_refused() {
        let bytes: Arc<Vec<u8>> = Arc::new(vec![0u8; 34]);
        assert!(QMatrix::new(GgmlType::Q8_0, 1, 32, bytes.clone(), 0).is_some());
        assert!(QMatrix::new(GgmlType::Q8_0, 2, 32, bytes.clone(), 0).is_none());
        assert!(QMatrix::new(GgmlType::Q8_0, 1, 33, bytes.clone(), 0).is_none());
        assert!(QMatrix::new(GgmlType::Q2_K, 1, 256, bytes, 0).is_none());
    }
}
