//! Times `QMatrix::matmul` on the real weight matrices of one layer of a GGUF model, the way a
//! prompt's prefill calls them (one batch of `n` tokens), and prints the throughput per tensor.
//!
//!     cargo run --release -p inference --example matmul_bench -- MODEL.gguf [tokens] [layer | name prefix]
//!
//! A third argument that is not a number picks tensors by name (`token_embd`, `output`).
//!
//! The activations are deterministic pseudo-random values; the kernels' speed does not depend on them.

use std::sync::Arc;
use std::time::Instant;

use inference::gguf::Gguf;
use inference::kernels::QMatrix;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: matmul_bench MODEL.gguf [tokens] [layer | name prefix]");
    let n: usize = args.get(2).map_or(512, |s| s.parse().expect("tokens"));
    let which = args.get(3).map_or("0", |s| s.as_str());
    let bytes = Arc::new(std::fs::read(path).expect("read the model"));
    let g = Gguf::parse(&bytes).expect("parse the model");
    let prefix = match which.parse::<usize>() {
        Ok(layer) => format!("blk.{layer}."),
        Err(_) => which.to_string(),
    };
    let mut total = (0.0f64, 0.0f64);
    for info in g.tensors().iter().filter(|t| t.name.starts_with(&prefix) && t.dims.len() == 2) {
        let (cols, rows) = (info.dims[0] as usize, info.dims[1] as usize);
        let start = (g.data_start() + info.offset) as usize;
        let Some(w) = QMatrix::new(info.ty, rows, cols, bytes.clone(), start) else {
            continue;
        };
        let mut seed = 0x9E37_79B9u32;
        let x: Vec<f32> = (0..n * cols)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                (seed as f32 / u32::MAX as f32) * 2.0 - 1.0
            })
            .collect();
        let mut out = vec![0.0f32; n * rows];
        w.matmul(&x, n, &mut out); // warm-up
        let reps = 3;
        let t = Instant::now();
        for _ in 0..reps {
            w.matmul(&x, n, &mut out);
        }
        let s = t.elapsed().as_secs_f64() / reps as f64;
        let gops = 2.0 * (rows * cols * n) as f64 / s / 1e9;
        total.0 += s;
        total.1 += 2.0 * (rows * cols * n) as f64;
        println!(
            "{:<28} {:?} {rows:>5}x{cols:<5} n={n}: {:>8.2} ms  {gops:>6.1} GOP/s  (checksum {:.4})",
            info.name,
            info.ty,
            s * 1e3,
            out.iter().map(|v| *v as f64).sum::<f64>()
        );
    }
    println!("{prefix}*: {:.2} ms, {:.1} GOP/s", total.0 * 1e3, total.1 / total.0 / 1e9);
}
