use anyhow::{Context, Result, bail};
use inference::bundle::Bundle;
use std::path::PathBuf;

/// Recall@k of the bundle's HNSW against exact search, using chunk vectors as queries.
#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    bundle: PathBuf,
    /// Queries: every n-th chunk's vector.
    #[arg(long, default_value_t = 5)]
    every: usize,
    #[arg(long, default_value_t = 10)]
    k: usize,
}

pub fn run(a: Args) -> Result<()> {
    let bytes = std::fs::read(&a.bundle).with_context(|| format!("cannot read {}", a.bundle.display()))?;
    let b = Bundle::from_bytes(&bytes)?;
    let Some(v) = b.vectors.as_ref() else { bail!("the bundle has no vectors (built with --no-embed)") };
    let (mut found, mut total, mut queries) = (0usize, 0usize, 0usize);
    let t0 = std::time::Instant::now();
    let mut hnsw_secs = 0.0;
    for c in (0..b.chunks.len() as u32).step_by(a.every.max(1)) {
        let q = v.vector(c).to_vec();
        let exact: Vec<u32> = v.search_exact(&q, a.k).into_iter().map(|x| x.0).collect();
        let t = std::time::Instant::now();
        let approx: Vec<u32> = v.search(&q, a.k).into_iter().map(|x| x.0).collect();
        hnsw_secs += t.elapsed().as_secs_f64();
        found += exact.iter().filter(|e| approx.contains(e)).count();
        total += exact.len();
        queries += 1;
    }
    println!(
        "{{\"queries\": {queries}, \"vectors\": {}, \"k\": {}, \"recall\": {:.4}, \"hnsw_ms_per_query\": {:.3}, \"total_s\": {:.1}}}",
        v.len(),
        a.k,
        found as f64 / total.max(1) as f64,
        hnsw_secs * 1e3 / queries.max(1) as f64,
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
