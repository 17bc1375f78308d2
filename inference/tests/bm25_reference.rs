//! BM25 scores against an independent implementation (tests/reference/bm25_reference.py).

mod common;
use inference::bm25::{Bm25Index, Bm25Params};

fn tokens(v: &serde_json::Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect()
}

#[test]
fn scores_match_the_reference() {
    let fx = common::fixture("bm25_reference.json");
    let docs: Vec<Vec<String>> = fx["docs"].as_array().unwrap().iter().map(tokens).collect();
    let params = Bm25Params { k1: fx["k1"].as_f64().unwrap() as f32, b: fx["b"].as_f64().unwrap() as f32 };
    let index = Bm25Index::build(&docs, params);
    let mut compared = 0;
    for (q, row) in fx["queries"].as_array().unwrap().iter().zip(fx["scores"].as_array().unwrap()) {
        let got = index.score_all(&tokens(q));
        for (d, want) in row.as_array().unwrap().iter().enumerate() {
            let want = want.as_f64().unwrap() as f32;
            assert!((got[d] - want).abs() < 1e-4, "query {q} doc {d}: got {} want {want}", got[d]);
            compared += 1;
        }
    }
    assert!(compared >= 100, "fixture too small: {compared}");
}
