//! all-MiniLM-L6-v2 in Burn against sentence-transformers (fixture made by
//! tests/reference/minilm_reference.py).

mod common;

#[test]
fn token_ids_match_the_reference_tokenizer() {
    let enc = common::encoder();
    let fx = common::fixture("minilm_reference.json");
    for (s, ids) in fx["sentences"].as_array().unwrap().iter().zip(fx["token_ids"].as_array().unwrap()) {
        let want: Vec<u32> = ids.as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
        assert_eq!(enc.token_ids(s.as_str().unwrap()).unwrap(), want, "sentence {s}");
    }
}

#[test]
fn embeddings_match_sentence_transformers() {
    let enc = common::encoder();
    let fx = common::fixture("minilm_reference.json");
    let sentences: Vec<&str> = fx["sentences"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    // One padded batch: padding must not change any embedding.
    let got = enc.embed(&sentences, inference::embed::Role::Passage).unwrap();
    for (i, want) in fx["embeddings"].as_array().unwrap().iter().enumerate() {
        let want: Vec<f32> = want.as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
        let cos = inference::embed::dot(&got[i], &want);
        let max_diff = got[i].iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(cos >= 0.999, "sentence {i} ({:?}): cosine {cos}", sentences[i]);
        assert!(max_diff < 1e-3, "sentence {i}: max abs diff {max_diff}");
        let norm: f32 = got[i].iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "not unit length: {norm}");
    }
}

/// The router and then Ask embed one message: the second asks the encoder again for nothing.
#[test]
fn a_repeated_query_reuses_its_vector() {
    use inference::agent::ask::query_vector;
    let enc = common::encoder();
    assert_eq!(enc.remembered_query("What is a list?"), None);
    let v = inference::llm::now(query_vector(Some(&enc), "What is a list?")).unwrap().unwrap();
    assert_eq!(enc.remembered_query("What is a list?").as_ref(), Some(&v));
    assert_eq!(enc.remembered_query("What is a tuple?"), None);
    let fresh = enc.embed(&["What is a list?"], inference::embed::Role::Query).unwrap().remove(0);
    assert_eq!(fresh, v, "the kept vector is the one a new embedding gives");
}

#[test]
fn wrong_weights_give_a_clear_error() {
    let dir = common::encoder_dir();
    let cfg = std::fs::read(dir.join("config.json")).unwrap();
    let tok = std::fs::read(dir.join("tokenizer.json")).unwrap();
    let err = inference::embed::SentenceEncoder::load("x", &cfg, b"not safetensors", &tok, 256)
        .err()
        .expect("garbage weights are rejected");
    assert!(err.to_string().contains("safetensors"), "{err}");
}
