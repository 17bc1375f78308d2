//! HNSW (instant-distance) against exact search: recall@10 ≥ 0.99.

mod common;
use inference::vector::VectorIndex;

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    v.iter_mut().for_each(|x| *x /= n);
    v
}

/// Clustered unit vectors, shaped like sentence embeddings of a course (topics with spread).
fn clustered(rng: &mut common::Rng, n: usize, centers: &[Vec<f32>]) -> Vec<Vec<f32>> {
    (0..n)
        .map(|_| {
            let c = &centers[rng.below(centers.len())];
            unit(c.iter().map(|x| x + 0.06 * rng.normal()).collect())
        })
        .collect()
}

#[test]
fn recall_at_10_is_at_least_0_99() {
    let (dim, n) = (384, 4000);
    let mut rng = common::Rng(42);
    let centers: Vec<Vec<f32>> = (0..60).map(|_| unit((0..dim).map(|_| rng.normal()).collect())).collect();
    let index = VectorIndex::build(clustered(&mut rng, n, &centers), dim);
    index.validate(n).unwrap();
    let queries = clustered(&mut rng, 200, &centers);
    let (mut found, mut total) = (0, 0);
    for q in &queries {
        let exact: Vec<u32> = index.search_exact(q, 10).into_iter().map(|x| x.0).collect();
        let approx: Vec<u32> = index.search(q, 10).into_iter().map(|x| x.0).collect();
        found += exact.iter().filter(|e| approx.contains(e)).count();
        total += exact.len();
    }
    let recall = found as f32 / total as f32;
    eprintln!("HNSW recall@10 = {recall:.4} over {} queries, {n} vectors", queries.len());
    assert!(recall >= 0.99, "recall@10 = {recall}");
}
