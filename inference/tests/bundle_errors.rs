//! The bundle reader turns every bad input into an error, never a panic.

mod common;
use inference::bundle::{Bundle, BundleError, FORMAT_VERSION, read_header};
use inference::corpus::{Block, BlockKind, Document};
use inference::index::build::{BuildOptions, EmbedMode, build};

fn small_bundle() -> Bundle {
    let docs = vec![
        Document {
            file: "loops.md".into(),
            blocks: vec![
                Block::new(BlockKind::Heading(1), "Loops", 1),
                Block::new(BlockKind::Paragraph, "A for loop walks over the items of a list. A while loop repeats while a condition holds.", 2),
                Block::new(BlockKind::Heading(2), "Breaking out", 3),
                Block::new(BlockKind::Paragraph, "The break statement leaves the innermost loop.", 4),
                Block::new(BlockKind::Code, "for x in range(3):\n    if x == 1:\n        break", 5),
            ],
        },
        Document {
            file: "bn.md".into(),
            blocks: vec![
                Block::new(BlockKind::Heading(1), "সালোকসংশ্লেষণ", 1),
                Block::new(BlockKind::Paragraph, "সবুজ উদ্ভিদ সূর্যের আলো ব্যবহার করে খাদ্য তৈরি করে।", 2),
            ],
        },
    ];
    let opts = BuildOptions {
        title: "Test".into(),
        chunk_config: Default::default(),
        bm25: Default::default(),
        embed_mode: EmbedMode::Contextual,
        batch_size: 8,
        builder_version: "test".into(),
        corpus_checksum: "00".into(),
        course: Default::default(),
    };
    build(&docs, None, &opts, |_, _| {}).expect("builds")
}

#[test]
fn round_trips() {
    let b = small_bundle();
    let bytes = b.to_bytes().unwrap();
    let back = Bundle::from_bytes(&bytes).unwrap();
    assert_eq!(back.header, b.header);
    assert_eq!(back.sections, b.sections);
    assert_eq!(back.chunks, b.chunks);
    assert_eq!(back.bm25.search(&["break".into()], 3), b.bm25.search(&["break".into()], 3));
    assert_eq!(read_header(&bytes).unwrap().title, "Test");
    // Deterministic: same input, same bytes.
    assert_eq!(small_bundle().to_bytes().unwrap(), bytes);
}

#[test]
fn rejects_bad_magic() {
    assert!(matches!(Bundle::from_bytes(b"GGUF\x03\0\0\0 not a bundle"), Err(BundleError::NotABundle)));
    assert!(matches!(Bundle::from_bytes(b""), Err(BundleError::NotABundle)));
}

#[test]
fn rejects_future_and_past_versions() {
    let mut bytes = small_bundle().to_bytes().unwrap();
    bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let err = Bundle::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, BundleError::TooNew { .. }), "{err}");
    assert!(err.to_string().contains("update"), "{err}");
    bytes[8..12].copy_from_slice(&0u32.to_le_bytes());
    let err = Bundle::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, BundleError::TooOld { .. }), "{err}");
    assert!(err.to_string().contains("index-builder build"), "{err}");
}

#[test]
fn rejects_truncated_data_at_every_length() {
    let bytes = small_bundle().to_bytes().unwrap();
    for len in 0..bytes.len() {
        let err = Bundle::from_bytes(&bytes[..len]).expect_err("truncated input must fail");
        let msg = err.to_string();
        assert!(!msg.is_empty());
    }
}

#[test]
fn rejects_flipped_payload_bytes_by_checksum() {
    let bytes = small_bundle().to_bytes().unwrap();
    let mut bad = bytes.clone();
    let last = bad.len() - 3;
    bad[last] ^= 0x40;
    assert!(matches!(Bundle::from_bytes(&bad), Err(BundleError::Checksum { .. })));
}

/// Recompute the payload crc so corruption reaches the decoder and validator.
fn refresh_crc(bytes: &mut [u8]) {
    let hlen = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let p = 16 + hlen;
    if bytes.len() < p + 12 {
        return;
    }
    let crc = crc32fast::hash(&bytes[p + 12..]);
    bytes[p + 8..p + 12].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn mutated_bundles_never_panic() {
    let bytes = small_bundle().to_bytes().unwrap();
    let mut rng = common::Rng(0x9E37_79B9_7F4A_7C15);
    let mut errors = 0;
    for _ in 0..3000 {
        let mut m = bytes.clone();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(m.len());
            match rng.below(3) {
                0 => m[i] ^= 1 << rng.below(8),
                1 => m[i] = rng.next_u64() as u8,
                _ => m[i] = m[i].wrapping_add(1),
            }
        }
        if rng.below(4) > 0 {
            refresh_crc(&mut m);
        }
        match std::panic::catch_unwind(|| Bundle::from_bytes(&m).map(|b| b.chunks.len())) {
            Ok(Ok(_)) => {}
            Ok(Err(_)) => errors += 1,
            Err(_) => panic!("reader panicked on a mutated bundle"),
        }
    }
    assert!(errors > 1000, "most mutations should be caught: {errors}");
}

/// The small bundle with 8-dimensional unit vectors for its chunks and headings.
fn bundle_with_vectors() -> Bundle {
    let mut b = small_bundle();
    let unit = |seed: usize| {
        let v: Vec<f32> = (0..8).map(|j| ((seed * 5 + j * 3) % 7) as f32 - 3.0 + 0.5).collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / n).collect::<Vec<f32>>()
    };
    b.vectors = Some(inference::vector::VectorIndex::build((0..b.chunks.len()).map(unit).collect(), 8));
    b.heading_vectors = Some((0..b.sections.len()).flat_map(|s| unit(s + 100)).collect());
    b
}

/// Damage behind the checksum reaches the vector graph too; a bundle that loads must search
/// without a panic (instant-distance indexes with the graph's ids unchecked).
#[test]
fn mutated_bundles_with_vectors_never_panic_in_search() {
    let bytes = bundle_with_vectors().to_bytes().unwrap();
    let query = bundle_with_vectors().vectors.unwrap().vector(0).to_vec();
    let mut rng = common::Rng(0x2545_F491_4F6C_DD1D);
    let (mut loaded, mut errors) = (0, 0);
    for _ in 0..3000 {
        let mut m = bytes.clone();
        // Mostly in the payload's tail, where the vectors and the graph are.
        for _ in 0..1 + rng.below(3) {
            let i = m.len() / 2 + rng.below(m.len() / 2);
            m[i] = match rng.below(3) {
                0 => m[i] ^ (1 << rng.below(8)),
                1 => rng.next_u64() as u8,
                _ => m[i].wrapping_add(1),
            };
        }
        refresh_crc(&mut m);
        let outcome = std::panic::catch_unwind(|| {
            Bundle::from_bytes(&m).map(|b| b.vectors.as_ref().map(|v| (v.search(&query, 5).len(), v.search_exact(&query, 5).len())))
        });
        match outcome {
            Ok(Ok(_)) => loaded += 1,
            Ok(Err(_)) => errors += 1,
            Err(_) => panic!("a mutated bundle with vectors loaded and then panicked in search"),
        }
    }
    assert!(errors > 1000 && loaded > 50, "loaded {loaded}, refused {errors}");
}

#[test]
fn lexical_bundle_refuses_dense_search() {
    let b = small_bundle();
    let id = inference::embed::EncoderId { name: "x".into(), sha256: "ab".into(), dim: 384, max_tokens: 256 };
    assert!(matches!(b.check_encoder(&id), Err(BundleError::NoVectors)));
}

#[test]
fn graph_siblings_share_a_parent() {
    let b = small_bundle();
    for c in &b.chunks {
        for s in b.siblings(c.id) {
            assert_eq!(b.chunks[s as usize].parent, c.parent);
            assert_ne!(s, c.id);
        }
    }
}

#[test]
fn reads_a_format_1_bundle_without_the_course_info() {
    // Format 1's header is format 2's without `course`: re-encode the header without it.
    #[derive(serde::Serialize)]
    struct V1<'a> {
        title: &'a str,
        builder_version: &'a str,
        encoder: &'a Option<inference::embed::EncoderId>,
        corpus_checksum: &'a str,
        embed_mode: &'a str,
        chunk_config: &'a inference::index::ChunkConfig,
        files: u32,
        sections: u32,
        chunks: u32,
    }
    let mut b = small_bundle();
    b.header.course.subjects = vec!["photosynthesis".into()];
    let bytes = b.to_bytes().unwrap();
    let h = &b.header;
    let v1 = V1 {
        title: &h.title,
        builder_version: &h.builder_version,
        encoder: &h.encoder,
        corpus_checksum: &h.corpus_checksum,
        embed_mode: &h.embed_mode,
        chunk_config: &h.chunk_config,
        files: h.files,
        sections: h.sections,
        chunks: h.chunks,
    };
    let header = bincode::serde::encode_to_vec(&v1, bincode::config::standard()).unwrap();
    let old_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    // Formats 1 and 2's payload is format 5's without `predictions` (here empty: one 0 byte) and
    // `term_vectors` (here none: one 0 byte).
    let payload = &bytes[16 + old_len + 12..];
    assert!(payload.ends_with(&[0, 0]));
    let payload = &payload[..payload.len() - 2];
    let mut old = Vec::new();
    old.extend_from_slice(&bytes[..8]);
    old.extend_from_slice(&1u32.to_le_bytes());
    old.extend_from_slice(&(header.len() as u32).to_le_bytes());
    old.extend_from_slice(&header);
    old.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    old.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    old.extend_from_slice(payload);
    let back = Bundle::from_bytes(&old).expect("a format 1 bundle still reads");
    assert_eq!(back.header.title, "Test");
    assert_eq!(back.header.course, Default::default());
    assert_eq!(back.sections, b.sections);
}

#[test]
fn predictions_round_trip_and_one_outside_its_section_or_without_a_wrong_output_is_refused() {
    use inference::index::predict::{Prediction, WrongOutput};
    let mut b = small_bundle();
    let wrong = |o: &str| WrongOutput { output: o.into(), rule: "slice_end".into(), code: "x[0:3]".into(), earlier: false };
    b.predictions = vec![Prediction {
        section: 0,
        offset: 0,
        setup: vec!["x = 'Python'\n".into()],
        setup_output: vec![String::new()],
        code: "x[0:2]\n".into(),
        output: "'Py'".into(),
        wrong: vec![wrong("'Pyt'"), wrong("Py"), wrong("It raises an error")],
        program: false,
    }];
    let back = Bundle::from_bytes(&b.to_bytes().unwrap()).expect("reads back");
    assert_eq!(back.predictions, b.predictions);
    // One wrong output is a line for "why" and "judge" items (format 4); none is no question.
    b.predictions[0].wrong.truncate(1);
    let back = Bundle::from_bytes(&b.to_bytes().unwrap()).expect("one wrong output reads back");
    assert!(!back.predictions[0].is_multiple_choice());
    b.predictions[0].wrong.clear();
    assert!(matches!(Bundle::from_bytes(&b.to_bytes().unwrap()), Err(BundleError::Invalid(_))));
    b.predictions[0].wrong = vec![wrong("'Pyt'")];
    b.predictions[0].section = b.sections.len() as u32;
    assert!(matches!(Bundle::from_bytes(&b.to_bytes().unwrap()), Err(BundleError::Invalid(_))));
}

/// Format 5 payload bytes, re-framed as an older `version` with the given payload.
fn reframed(bytes: &[u8], version: u32, payload: &[u8]) -> Vec<u8> {
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut old = Vec::new();
    old.extend_from_slice(&bytes[..8]);
    old.extend_from_slice(&version.to_le_bytes());
    old.extend_from_slice(&bytes[12..16 + header_len]);
    old.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    old.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    old.extend_from_slice(payload);
    old
}

#[test]
fn reads_a_format_4_bundle_without_term_vectors() {
    let b = small_bundle();
    let bytes = b.to_bytes().unwrap();
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    // Format 4's payload is format 5's without `term_vectors` (here none: one 0 byte).
    let payload = &bytes[16 + header_len + 12..];
    assert_eq!(payload.last(), Some(&0));
    let back = Bundle::from_bytes(&reframed(&bytes, 4, &payload[..payload.len() - 1])).expect("a format 4 bundle still reads");
    assert_eq!(back.sections, b.sections);
    assert!(back.term_vectors.is_none());
}

#[test]
fn term_vectors_round_trip_and_ones_that_do_not_match_their_terms_are_refused() {
    use inference::retrieve::meanings::TermVectors;
    let mut b = small_bundle();
    let v = |x: f32| vec![x, 1.0 - x, 0.5];
    b.term_vectors = Some(TermVectors::new(vec!["loop".into(), "উদ্ভিদ".into()], &[v(0.2), v(0.9)]));
    let back = Bundle::from_bytes(&b.to_bytes().unwrap()).expect("reads back");
    let (t, u) = (back.term_vectors.as_ref().unwrap(), b.term_vectors.as_ref().unwrap());
    assert_eq!((&t.terms, &t.values, &t.scales, t.dim), (&u.terms, &u.values, &u.scales, u.dim));
    b.term_vectors.as_mut().unwrap().terms.pop();
    assert!(matches!(Bundle::from_bytes(&b.to_bytes().unwrap()), Err(BundleError::Invalid(_))));
}
