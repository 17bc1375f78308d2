//! The GGUF reader against llama.cpp's gguf-py on two real models
//! (fixtures from `tests/reference/gguf_reference.py`), and hostile variants of a real header.
//!
//! The model files live in `models/cache/`; each test prints a note and passes when its
//! file is missing (`tests/reference/gguf_fetch.sh` fetches them).

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};

use inference::gguf::{Gguf, GgufError, dequantize_row};
use serde_json::Value as Json;

const SMOLLM2: (&str, &str) = ("SmolLM2-135M-Instruct.Q4_1.gguf", "smollm2-135m-q4_1.json");
const QWEN: (&str, &str) = ("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "qwen2.5-coder-0.5b-q4_k_m.json");

/// The model file and its fixture; a missing file fails (or is skipped on request, `None`).
fn load((file, fixture): (&str, &str)) -> Option<(Vec<u8>, Json)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let path = format!("{root}/models/cache/{file}");
    let Ok(bytes) = std::fs::read(&path) else {
        common::missing(std::path::Path::new(&path), "models/fetch.sh llm");
        return None;
    };
    let json = std::fs::read_to_string(format!("{root}/inference/tests/fixtures/gguf/{fixture}")).expect("fixture");
    Some((bytes, serde_json::from_str(&json).expect("valid JSON")))
}

fn u(v: &Json) -> u64 {
    v.as_u64().unwrap()
}

fn check_model(bytes: &[u8], want: &Json) {
    assert_eq!(bytes.len() as u64, u(&want["size"]), "a different download of {}", want["file"]);
    let g = Gguf::parse(bytes).unwrap();
    assert_eq!(g.version() as u64, u(&want["version"]));
    assert_eq!(g.alignment(), u(&want["alignment"]));
    assert_eq!(g.data_start(), u(&want["data_start"]));
    assert_eq!(g.metadata_entries().len() as u64, u(&want["metadata_count"]));

    let m = &want["metadata"];
    let arch = g.architecture().unwrap();
    assert_eq!(arch, m["general.architecture"].as_str().unwrap());
    assert_eq!(g.get_str("general.name").unwrap(), m["general.name"].as_str().unwrap());
    for (key, field) in [
        ("context_length", "context_length"),
        ("embedding_length", "embedding_length"),
        ("block_count", "block_count"),
        ("attention.head_count", "head_count"),
        ("attention.head_count_kv", "head_count_kv"),
    ] {
        assert_eq!(g.get_u32(&format!("{arch}.{key}")).unwrap() as u64, u(&m[field]), "{key}");
    }
    assert_eq!(g.get_f32(&format!("{arch}.rope.freq_base")).unwrap(), m["rope_freq_base"].as_f64().unwrap() as f32);
    assert_eq!(g.get_f32(&format!("{arch}.attention.layer_norm_rms_epsilon")).unwrap(), m["rms_epsilon"].as_f64().unwrap() as f32);
    assert_eq!(g.get_u32("tokenizer.ggml.eos_token_id").unwrap() as u64, u(&m["eos_token_id"]));

    let tokens = g.get_str_array("tokenizer.ggml.tokens").unwrap();
    assert_eq!(tokens.len() as u64, u(&m["token_count"]));
    for (got, want) in tokens.iter().zip(m["first_tokens"].as_array().unwrap()) {
        assert_eq!(got, want.as_str().unwrap());
    }
    assert_eq!(tokens.last().unwrap(), m["last_token"].as_str().unwrap());
    let merges = g.get_str_array("tokenizer.ggml.merges").unwrap();
    assert_eq!(merges.len() as u64, u(&m["merge_count"]));
    for (got, want) in merges.iter().zip(m["first_merges"].as_array().unwrap()) {
        assert_eq!(got, want.as_str().unwrap());
    }
    let token_types = g.get_i32_array("tokenizer.ggml.token_type").unwrap();
    assert_eq!(token_types.iter().map(|&t| t as i64).sum::<i64>(), m["token_type_sum"].as_i64().unwrap());
    let template = g.get_str("tokenizer.chat_template").unwrap();
    assert_eq!(template.chars().count() as u64, u(&m["chat_template_len"]));
    assert!(template.starts_with(m["chat_template_prefix"].as_str().unwrap()));

    let infos = want["tensor_infos"].as_array().unwrap();
    assert_eq!(g.tensors().len(), infos.len());
    for (t, w) in g.tensors().iter().zip(infos) {
        assert_eq!(t.name, w[0].as_str().unwrap());
        assert_eq!(t.ty.name(), w[1].as_str().unwrap(), "{}", t.name);
        assert_eq!(t.dims, w[2].as_array().unwrap().iter().map(u).collect::<Vec<_>>(), "{}", t.name);
        assert_eq!(t.offset, u(&w[3]), "{}", t.name);
    }
    let mut counts = std::collections::BTreeMap::new();
    for t in g.tensors() {
        *counts.entry(t.ty.name()).or_insert(0u64) += 1;
    }
    let want_counts: std::collections::BTreeMap<&str, u64> =
        want["tensor_types"].as_object().unwrap().iter().map(|(k, v)| (k.as_str(), u(v))).collect();
    assert_eq!(counts, want_counts);

    for w in want["tensors"].as_array().unwrap() {
        check_tensor(&g, w);
    }
}

/// First values of chosen rows, and sum, sum of squares and max |x| over the whole tensor,
/// decoded a chunk of rows at a time so a 136M-value embedding never sits in memory.
fn check_tensor(g: &Gguf<'_>, w: &Json) {
    let name = w["name"].as_str().unwrap();
    let t = g.tensor_info(name).unwrap();
    assert_eq!(t.ty.name(), w["type"].as_str().unwrap());
    assert_eq!(t.n_rows(), u(&w["n_rows"]));
    let bytes = g.tensor_bytes(name).unwrap();
    let (row_len, row_bytes) = (t.row_len() as usize, t.row_bytes() as usize);
    let scale = w["max_abs"].as_f64().unwrap() as f32;

    for (row, values) in w["rows"].as_object().unwrap() {
        let row: usize = row.parse().unwrap();
        let mut out = vec![0f32; row_len];
        dequantize_row(t.ty, &bytes[row * row_bytes..(row + 1) * row_bytes], &mut out).unwrap();
        for (i, v) in values.as_array().unwrap().iter().enumerate() {
            let want = v.as_f64().unwrap() as f32;
            assert!((out[i] - want).abs() <= 1e-6 * scale, "{name} row {row} [{i}]: {} != {want}", out[i]);
        }
    }

    let rows_per_chunk = 4096;
    let mut out = vec![0f32; row_len * rows_per_chunk];
    let (mut sum, mut sum_sq, mut max_abs) = (0f64, 0f64, 0f32);
    for chunk in bytes.chunks(row_bytes * rows_per_chunk) {
        let out = &mut out[..chunk.len() / row_bytes * row_len];
        dequantize_row(t.ty, chunk, out).unwrap();
        for &x in out.iter() {
            sum += x as f64;
            sum_sq += x as f64 * x as f64;
            max_abs = max_abs.max(x.abs());
        }
    }
    let rel = |a: f64, b: f64, scale: f64| (a - b).abs() <= 1e-3 * scale.max(1.0);
    let (want_sum, want_sq) = (w["sum"].as_f64().unwrap(), w["sum_sq"].as_f64().unwrap());
    // Sums of mixed signs cancel; compare relative to the sum of squares' magnitude too.
    assert!(rel(sum, want_sum, want_sum.abs().max(want_sq.sqrt())), "{name}: sum {sum} != {want_sum}");
    assert!(rel(sum_sq, want_sq, want_sq), "{name}: sum of squares {sum_sq} != {want_sq}");
    assert_eq!(max_abs, scale, "{name}: max |x|");
    if t.n_elements() <= 1 << 22 {
        let all = g.dequantize(name).unwrap();
        assert_eq!(all.len() as u64, t.n_elements());
        assert_eq!(all.iter().map(|&x| x as f64).sum::<f64>(), sum);
    }
}

#[test]
fn smollm2_q4_1_matches_gguf_py() {
    let Some((bytes, want)) = load(SMOLLM2) else { return };
    check_model(&bytes, &want);
}

#[test]
fn qwen2_5_coder_q4_k_m_matches_gguf_py() {
    let Some((bytes, want)) = load(QWEN) else { return };
    check_model(&bytes, &want);
}

/// Parses, and if that works decodes the small tensors; any panic fails the test.
fn survives(bytes: &[u8]) -> bool {
    catch_unwind(AssertUnwindSafe(|| {
        let Ok(g) = Gguf::parse(bytes) else { return false };
        for t in g.tensors().iter().filter(|t| t.n_elements() <= 1 << 16) {
            let _ = g.dequantize(&t.name);
        }
        true
    }))
    .expect("no panic on a hostile file")
}

#[test]
fn truncated_smollm2_is_an_error_at_every_length_tried() {
    let Some((bytes, _)) = load(SMOLLM2) else { return };
    let g = Gguf::parse(&bytes).unwrap();
    let header = g.data_start() as usize;
    let last = g.tensors().iter().map(|t| g.data_start() + t.offset + t.n_bytes()).max().unwrap() as usize;
    assert_eq!(last, bytes.len());
    let mut lengths: Vec<usize> = (0..4096).chain((0..header).step_by(4999)).chain(header - 600..header + 64).collect();
    lengths.extend((header..bytes.len()).step_by(bytes.len() / 97));
    lengths.push(bytes.len() - 1);
    for n in lengths {
        match catch_unwind(|| Gguf::parse(&bytes[..n]).map(|_| ())) {
            Ok(Err(GgufError::Truncated { .. })) => {}
            other => panic!("prefix of {n} bytes: {other:?}"),
        }
    }
    let e = Gguf::parse(&bytes[..bytes.len() - 1]).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "truncated GGUF: tensor output_norm.weight needs 2304 bytes at offset {} but the file has {}; download it again",
            bytes.len() - 2304,
            bytes.len() - 1
        )
    );
}

#[test]
fn mutated_smollm2_headers_never_panic() {
    let Some((original, _)) = load(SMOLLM2) else { return };
    let header = Gguf::parse(&original).unwrap().data_start() as usize;
    let mut bytes = original.clone();
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    // Early metadata, the tensor infos at the end of the header, or anywhere in it.
    let tensor_infos = header - 24 * 1024;
    let (mut parsed, mut tries) = (0, 0);
    for _ in 0..1500 {
        let mut changed = Vec::new();
        for _ in 0..1 + next() % 3 {
            let at = match next() % 3 {
                0 => (next() % 2048) as usize,
                1 => tensor_infos + (next() as usize % (header - tensor_infos)),
                _ => next() as usize % header,
            };
            let width = [1, 1, 4, 8][(next() % 4) as usize].min(header - at);
            changed.push(at..at + width);
            let value = match next() % 5 {
                0 => u64::MAX,
                1 => 0,
                2 => 1 << (next() % 64),
                3 => next() % 16,
                _ => next(),
            };
            bytes[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
        }
        parsed += survives(&bytes) as usize;
        tries += 1;
        for r in changed {
            bytes[r.clone()].copy_from_slice(&original[r]);
        }
    }
    eprintln!("{parsed} of {tries} mutated headers still parsed");
}

#[test]
fn header_level_errors_on_a_real_file() {
    let Some((original, _)) = load(SMOLLM2) else { return };
    let mut bytes = original[..Gguf::parse(&original).unwrap().data_start() as usize + 64].to_vec();
    let mut with = |at: usize, patch: &[u8]| {
        let saved = bytes[at..at + patch.len()].to_vec();
        bytes[at..at + patch.len()].copy_from_slice(patch);
        let e = catch_unwind(|| Gguf::parse(&bytes).map(|_| ())).expect("no panic").unwrap_err();
        bytes[at..at + patch.len()].copy_from_slice(&saved);
        e
    };
    assert!(matches!(with(0, &b"GGML"[..]), GgufError::BadMagic { .. }));
    assert!(matches!(with(4, &1u32.to_le_bytes()), GgufError::UnsupportedVersion { version: 1 }));
    assert!(matches!(with(4, &9u32.to_le_bytes()), GgufError::UnsupportedVersion { version: 9 }));
    assert!(matches!(with(8, &u64::MAX.to_le_bytes()), GgufError::LimitExceeded { .. }));
    assert!(matches!(with(16, &u64::MAX.to_le_bytes()), GgufError::LimitExceeded { .. }));
    assert!(matches!(with(24, &u64::MAX.to_le_bytes()), GgufError::LimitExceeded { .. }));
}
