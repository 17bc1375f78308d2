//! GGUF reader on small files: a fixture written by llama.cpp's gguf-py
//! (`tests/reference/gguf_reference.py`) and hand-built byte strings.
//! Every bad input is an error, never a panic.

use std::panic::{AssertUnwindSafe, catch_unwind};

use inference::gguf::quant::{self, QK, QK_K};
use inference::gguf::{Array, GgmlType, Gguf, GgufError, Value, dequantize_row};
use serde_json::Value as Json;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/gguf");

fn synthetic() -> (Vec<u8>, Json) {
    let bytes = std::fs::read(format!("{FIXTURES}/synthetic.gguf")).expect("synthetic.gguf");
    let json = std::fs::read_to_string(format!("{FIXTURES}/synthetic.json")).expect("synthetic.json");
    (bytes, serde_json::from_str(&json).expect("valid JSON"))
}

/// Little-endian GGUF writer for hand-built files.
#[derive(Default)]
struct Builder(Vec<u8>);

impl Builder {
    fn header(version: u32, tensors: u64, kvs: u64) -> Self {
        let mut b = Builder::default();
        b.raw(b"GGUF").u32(version).u64(tensors).u64(kvs);
        b
    }
    fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.extend_from_slice(bytes);
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.raw(&v.to_le_bytes())
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.raw(&v.to_le_bytes())
    }
    fn str(&mut self, s: &str) -> &mut Self {
        self.u64(s.len() as u64).raw(s.as_bytes())
    }
    /// A metadata entry holding a u32.
    fn kv_u32(&mut self, key: &str, v: u32) -> &mut Self {
        self.str(key).u32(4).u32(v)
    }
    fn tensor(&mut self, name: &str, dims: &[u64], ty: u32, offset: u64) -> &mut Self {
        self.str(name).u32(dims.len() as u32);
        for &d in dims {
            self.u64(d);
        }
        self.u32(ty).u64(offset)
    }
    /// Pads to `align` and appends `data`.
    fn data(&mut self, align: usize, data: &[u8]) -> Vec<u8> {
        while !self.0.len().is_multiple_of(align) {
            self.0.push(0);
        }
        self.raw(data);
        std::mem::take(&mut self.0)
    }
}

fn parse_err(bytes: &[u8]) -> GgufError {
    match catch_unwind(|| Gguf::parse(bytes).map(|_| ())) {
        Ok(Err(e)) => e,
        Ok(Ok(())) => panic!("parsed a bad file"),
        Err(_) => panic!("panicked on a bad file"),
    }
}

fn close(a: f32, b: f32, scale: f32) -> bool {
    (a - b).abs() <= 1e-6 * scale.max(1e-30) || a == b
}

#[test]
fn synthetic_matches_gguf_py() {
    let (bytes, want) = synthetic();
    let g = Gguf::parse(&bytes).unwrap();
    assert_eq!(g.version() as u64, want["version"].as_u64().unwrap());
    assert_eq!(g.alignment(), 64);
    assert_eq!(g.data_start(), want["data_start"].as_u64().unwrap());
    assert_eq!(g.architecture().unwrap(), "synthetic");

    let meta = want["metadata"].as_object().unwrap();
    assert_eq!(g.metadata_entries().len(), meta.len());
    for (key, value) in g.metadata_entries() {
        let want_value = &meta[key];
        let types: Vec<&str> = want_value["type"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
        let py = &want_value["value"];
        match value {
            Value::U8(_) | Value::U16(_) | Value::U32(_) | Value::U64(_) => assert_eq!(value.as_integer().unwrap() as u64, py.as_u64().unwrap(), "{key}"),
            Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => assert_eq!(value.as_integer().unwrap() as i64, py.as_i64().unwrap(), "{key}"),
            Value::F32(v) => assert_eq!(*v, py.as_f64().unwrap() as f32, "{key}"),
            Value::F64(v) => assert_eq!(*v, py.as_f64().unwrap(), "{key}"),
            Value::Bool(v) => assert_eq!(*v, py.as_bool().unwrap(), "{key}"),
            Value::String(v) => assert_eq!(v, py.as_str().unwrap(), "{key}"),
            Value::Array(Array::String(v)) => assert_eq!(v, &py.as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect::<Vec<_>>()),
            Value::Array(Array::I32(v)) => assert_eq!(v.iter().map(|&x| x as i64).collect::<Vec<_>>(), py.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect::<Vec<_>>()),
            Value::Array(Array::F32(v)) => assert_eq!(v.iter().map(|&x| x as f64).collect::<Vec<_>>(), py.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect::<Vec<_>>()),
            // gguf-py flattens nested arrays; the file holds [[1, 2], [3]].
            Value::Array(Array::Array(v)) => {
                assert_eq!(types, ["ARRAY", "ARRAY", "INT32"]);
                assert_eq!(v, &[Array::I32(vec![1, 2]), Array::I32(vec![3])]);
            }
            other => panic!("{key}: unexpected {other:?}"),
        }
        let expected = match types[0] {
            "ARRAY" => format!("array of {}", types[1].to_lowercase().replace("int", "i").replace("ui", "u").replace("float", "f")),
            t => t.to_lowercase().replace("uint", "u").replace("int", "i").replace("float", "f"),
        };
        assert_eq!(value.type_name(), expected, "{key}");
    }

    assert_eq!(g.get_u32("test.u32").unwrap(), 4_000_000_000);
    assert_eq!(g.get_u32("test.u8").unwrap(), 200);
    assert_eq!(g.get_i32("test.i16").unwrap(), -30000);
    assert_eq!(g.get_u64("test.u64").unwrap(), (1 << 60) + 3);
    assert_eq!(g.get_f32("test.f32").unwrap(), 0.15625);
    assert!(g.get_bool("test.bool").unwrap());
    assert_eq!(g.get_str("test.string").unwrap(), "নমস্কার, GGUF");
    assert_eq!(g.get_str("test.empty_string").unwrap(), "");
    assert_eq!(g.get_str_array("test.str_array").unwrap(), ["a", "", "ক্", "<|im_start|>"]);
    assert_eq!(g.get_i32_array("test.i32_array").unwrap(), [1, -2, 3]);
    assert_eq!(g.get_f32_array("test.f32_array").unwrap(), [0.5, -1.25]);

    let tensors = want["tensors"].as_array().unwrap();
    assert_eq!(g.tensors().len(), tensors.len());
    let mut types = Vec::new();
    for t in tensors {
        let name = t["name"].as_str().unwrap();
        let info = g.tensor_info(name).unwrap();
        assert_eq!(info.ty.name(), t["type"].as_str().unwrap());
        let dims: Vec<u64> = t["dims"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap()).collect();
        assert_eq!(info.dims, dims, "{name}");
        assert_eq!(info.offset, t["offset"].as_u64().unwrap(), "{name}");
        assert_eq!(g.tensor_bytes(name).unwrap().len() as u64, info.n_bytes());
        let want: Vec<f32> = t["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
        let got = g.dequantize(name).unwrap();
        assert_eq!(got.len(), want.len(), "{name}");
        let scale = want.iter().fold(0f32, |m, v| m.max(v.abs()));
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert!(close(*a, *b, scale), "{name}[{i}]: {a} != {b}");
        }
        types.push(info.ty);
    }
    for ty in GgmlType::SUPPORTED_NAMES.split(", ") {
        assert!(types.iter().any(|t| t.name() == ty), "fixture lacks {ty}");
    }
}

#[test]
fn empty_file_with_defaults_parses() {
    let bytes = Builder::header(3, 0, 0).data(1, &[]);
    let g = Gguf::parse(&bytes).unwrap();
    assert_eq!((g.version(), g.alignment(), g.tensors().len()), (3, 32, 0));
    assert_eq!(g.data_start(), 32);
    assert!(g.metadata("general.architecture").is_none());
    assert_eq!(g.architecture().unwrap_err().to_string(), "cannot find general.architecture in metadata");
    assert_eq!(g.get_u32("llama.context_length").unwrap_err().to_string(), "cannot find llama.context_length in metadata");
    let v2 = Builder::header(2, 0, 0).data(1, &[]);
    assert_eq!(Gguf::parse(&v2).unwrap().version(), 2);
}

#[test]
fn hand_built_tensor_reads_and_typed_getters_check_types() {
    let mut b = Builder::header(3, 2, 2);
    b.kv_u32("general.alignment", 16).str("general.name").u32(8).str("tiny");
    b.tensor("w", &[32, 2], GgmlType::Q8_0.id(), 0).tensor("q2", &[256], GgmlType::Q2_K.id(), 80);
    let mut data = Vec::new();
    for row in 0..2u8 {
        data.extend_from_slice(&half::f16::from_f32(0.5).to_le_bytes());
        data.extend((0..32).map(|i| (i as i8 - 16 + row as i8) as u8));
    }
    data.resize(80, 0);
    data.extend(std::iter::repeat_n(0u8, 84));
    let bytes = b.data(16, &data);
    let g = Gguf::parse(&bytes).unwrap();
    assert_eq!(g.alignment(), 16);
    let w = g.dequantize("w").unwrap();
    assert_eq!(w.len(), 64);
    assert_eq!((w[0], w[16], w[31], w[32], w[63]), (-8.0, 0.0, 7.5, -7.5, 8.0));
    let info = g.tensor_info("w").unwrap();
    assert_eq!((info.row_len(), info.n_rows(), info.row_bytes(), info.shape()), (32, 2, 34, vec![2, 32]));

    assert_eq!(g.tensor_bytes("q2").unwrap().len(), 84);
    assert_eq!(
        g.dequantize("q2").unwrap_err().to_string(),
        "unsupported tensor type Q2_K in q2: this runtime reads F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K; re-quantize the model with one of them"
    );
    assert_eq!(g.dequantize("nope").unwrap_err().to_string(), "cannot find tensor nope in the GGUF file");
    assert_eq!(g.get_u32("general.name").unwrap_err().to_string(), "general.name in metadata is string, expected u32");
    assert_eq!(g.get_str("general.alignment").unwrap_err().to_string(), "general.alignment in metadata is u32, expected string");
    assert_eq!(g.get_str_array("general.name").unwrap_err().to_string(), "general.name in metadata is string, expected array of string");
}

#[test]
fn integer_getters_reject_values_out_of_range() {
    let mut b = Builder::header(3, 0, 2);
    b.str("big").u32(10).u64(1 << 40).str("neg").u32(5).raw(&(-1i32).to_le_bytes());
    let bytes = b.data(1, &[]);
    let g = Gguf::parse(&bytes).unwrap();
    assert_eq!(g.get_u64("big").unwrap(), 1 << 40);
    assert_eq!(g.get_u32("big").unwrap_err().to_string(), "big in metadata is u64 1099511627776, expected u32");
    assert_eq!(g.get_i32("neg").unwrap(), -1);
    assert!(g.get_u32("neg").is_err());
    assert_eq!(g.get_f32("big").unwrap(), (1u64 << 40) as f32);
}

#[test]
fn bad_headers_are_errors_that_say_what_to_do() {
    let err = parse_err(b"<!DOCTYPE html><html>");
    assert!(err.to_string().starts_with("not a GGUF file: it starts with \"<!DO\""), "{err}");
    assert!(matches!(parse_err(b"GGU"), GgufError::Truncated { .. }));
    assert!(matches!(parse_err(&Builder::header(1, 0, 0).0), GgufError::UnsupportedVersion { version: 1 }));
    let err = parse_err(&Builder::header(4, 0, 0).0);
    assert_eq!(err.to_string(), "GGUF version 4 is not supported: this runtime reads versions 2 and 3; convert the model again with a current llama.cpp");
    assert!(matches!(parse_err(&Builder::header(3u32.swap_bytes(), 0, 0).0), GgufError::BigEndian));
    assert!(matches!(parse_err(&Builder::header(3, u64::MAX, 0).0), GgufError::LimitExceeded { .. }));
    assert!(matches!(parse_err(&Builder::header(3, 0, u64::MAX).0), GgufError::LimitExceeded { .. }));
    // Within the limits but far more entries than bytes: refused before allocating.
    assert!(matches!(parse_err(&Builder::header(3, 60_000, 0).0), GgufError::Truncated { .. }));
    assert!(matches!(parse_err(&Builder::header(3, 0, 60_000).0), GgufError::Truncated { .. }));
}

#[test]
fn absurd_lengths_and_values_are_errors() {
    let kv = |f: &dyn Fn(&mut Builder)| {
        let mut b = Builder::header(3, 0, 1);
        f(&mut b);
        b.raw(&[0; 64]);
        parse_err(&b.0)
    };
    assert!(matches!(kv(&|b| { b.u64(u64::MAX); }), GgufError::LimitExceeded { .. }));
    assert!(matches!(kv(&|b| { b.u64(1 << 20); }), GgufError::Truncated { .. }));
    assert!(matches!(kv(&|b| { b.str("k").u32(13); }), GgufError::Corrupt { .. }));
    assert!(matches!(kv(&|b| { b.str("k").u32(7).raw(&[2]); }), GgufError::Corrupt { .. }));
    assert!(matches!(kv(&|b| { b.u64(2).raw(&[0xff, 0xfe]); }), GgufError::Corrupt { .. }));
    assert!(matches!(kv(&|b| { b.str("k").u32(8).u64(u64::MAX); }), GgufError::LimitExceeded { .. }));
    assert!(matches!(kv(&|b| { b.str("k").u32(9).u32(8).u64(u64::MAX); }), GgufError::LimitExceeded { .. }));
    // 16M strings claimed in a 100-byte file: refused before allocating.
    assert!(matches!(kv(&|b| { b.str("k").u32(9).u32(8).u64((1 << 24) - 1); }), GgufError::Truncated { .. }));
    assert!(matches!(kv(&|b| { b.str("k").u32(9).u32(6).u64((1 << 24) - 1); }), GgufError::Truncated { .. }));
    assert!(matches!(kv(&|b| { b.str("k").u32(9).u32(99).u64(1); }), GgufError::Corrupt { .. }));
    assert!(matches!(kv(&|b| { b.str("k").u32(9).u32(7).u64(2).raw(&[1, 3]); }), GgufError::Corrupt { .. }));
    let nested = kv(&|b| {
        b.str("k").u32(9);
        for _ in 0..5 {
            b.u32(9).u64(1);
        }
    });
    assert!(matches!(nested, GgufError::LimitExceeded { .. }), "{nested}");
    for alignment in [0, 3, 1 << 30] {
        let e = kv(&|b| { b.kv_u32("general.alignment", alignment); });
        assert!(e.to_string().contains("general.alignment"), "{e}");
    }
    let mut dup = Builder::header(3, 0, 2);
    dup.kv_u32("a", 1).kv_u32("a", 2);
    assert!(parse_err(&dup.0).to_string().contains("appears twice"));
}

#[test]
fn bad_tensor_infos_are_errors() {
    let one = |dims: &[u64], ty: u32, offset: u64, data: usize| {
        let mut b = Builder::header(3, 1, 0);
        b.tensor("blk.0.ffn_down.weight", dims, ty, offset);
        parse_err(&b.data(32, &vec![0; data]))
    };
    assert!(matches!(one(&[32, 1, 1, 1, 1], 0, 0, 4096), GgufError::LimitExceeded { .. }));
    assert!(matches!(one(&[32], 99, 0, 4096), GgufError::UnknownTensorType { id: 99, .. }));
    assert!(one(&[30], GgmlType::Q4_0.id(), 0, 4096).to_string().contains("not a multiple of the Q4_0 block size 32"));
    assert!(one(&[1 << 32, 1 << 32, 1 << 32], 0, 0, 4096).to_string().contains("impossible dimensions"));
    assert!(one(&[32], 0, 8, 4096).to_string().contains("not a multiple of the alignment 32"));
    assert!(matches!(one(&[32], 0, u64::MAX - 31, 4096), GgufError::Corrupt { .. } | GgufError::Truncated { .. }));
    assert_eq!(
        one(&[64, 2], 0, 0, 100).to_string(),
        "truncated GGUF: tensor blk.0.ffn_down.weight needs 512 bytes at offset 96 but the file has 196; download it again"
    );
    let mut dup = Builder::header(3, 2, 0);
    dup.tensor("t", &[1], 0, 0).tensor("t", &[1], 0, 32);
    assert!(parse_err(&dup.data(32, &[0; 64])).to_string().contains("tensor t appears twice"));
}

#[test]
fn every_truncation_of_the_synthetic_file_is_an_error() {
    let (bytes, _) = synthetic();
    let g = Gguf::parse(&bytes).unwrap();
    let end = g.tensors().iter().map(|t| g.data_start() + t.offset + t.n_bytes()).max().unwrap() as usize;
    for n in 0..end {
        let e = parse_err(&bytes[..n]);
        assert!(e.to_string().contains("download it again"), "{n}: {e}");
    }
    for n in end..=bytes.len() {
        assert!(Gguf::parse(&bytes[..n]).is_ok(), "{n}");
    }
}

/// xorshift64*: deterministic, no crates.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Parses and decodes every tensor of `bytes`; any panic fails the test.
fn survives(bytes: &[u8]) -> bool {
    catch_unwind(AssertUnwindSafe(|| {
        let Ok(g) = Gguf::parse(bytes) else { return false };
        for t in g.tensors() {
            if t.n_elements() <= 1 << 20 {
                let _ = g.dequantize(&t.name);
            }
        }
        let _ = (g.get_str_array("tokenizer.ggml.tokens"), g.get_u32("general.alignment"));
        true
    }))
    .expect("no panic on a mutated file")
}

#[test]
fn mutated_synthetic_files_never_panic() {
    let (original, _) = synthetic();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let header = Gguf::parse(&original).unwrap().data_start() as usize;
    let mut bytes = original.clone();
    let mut parsed = 0;
    for _ in 0..20_000 {
        bytes.copy_from_slice(&original);
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(header);
            match rng.below(4) {
                0 => bytes[at] = rng.next() as u8,
                1 => bytes[at] ^= 1 << rng.below(8),
                2 => bytes[at] = [0, 0xff, 0x7f, 0x80][rng.below(4)],
                _ => {
                    let v = [u64::MAX, 1 << 24, 1 << 31, 0, rng.next()][rng.below(5)].to_le_bytes();
                    let n = v.len().min(bytes.len() - at);
                    bytes[at..at + n].copy_from_slice(&v[..n]);
                }
            }
        }
        parsed += survives(&bytes) as usize;
    }
    assert!(parsed > 0, "some mutations (in strings and values) still parse");
}

#[test]
fn dequantize_row_checks_lengths() {
    let mut out = [0f32; 32];
    assert!(dequantize_row(GgmlType::Q4_0, &[0; 17], &mut out).is_err());
    assert!(dequantize_row(GgmlType::Q4_0, &[0; 18], &mut out[..31]).is_err());
    assert!(dequantize_row(GgmlType::Q4_0, &[0; 18], &mut out).is_ok());
    assert!(dequantize_row(GgmlType::F32, &[0; 3], &mut out[..1]).is_err());
    let e = dequantize_row(GgmlType::Q4_K, &[0; 144], &mut out).unwrap_err();
    assert_eq!(e.to_string(), "cannot dequantize 144 bytes of Q4_K into 32 values: Q4_K stores 256 values in 144 bytes");
    assert!(matches!(dequantize_row(GgmlType::IQ2_XXS, &[0; 66], &mut [0f32; 256]), Err(GgufError::UnsupportedTensorType { .. })));
    assert!(dequantize_row(GgmlType::F32, &[], &mut []).is_ok());
}

#[test]
fn blocks_decode_by_hand() {
    let one = half::f16::from_f32(1.0).to_le_bytes();
    let two = half::f16::from_f32(2.0).to_le_bytes();

    // Q4_0: byte j holds values j (low nibble) and j + 16 (high nibble), minus 8.
    let mut b = [0u8; quant::Q4_0_BYTES];
    b[..2].copy_from_slice(&two);
    b[2] = 0xF0;
    let mut y = [0f32; QK];
    quant::dequantize_block_q4_0(&b, &mut y);
    assert_eq!((y[0], y[16], y[1]), (-16.0, 14.0, -16.0));

    // Q5_1: fifth bit j of qh belongs to value j, bit j + 16 to value j + 16.
    let mut b = [0u8; quant::Q5_1_BYTES];
    b[..2].copy_from_slice(&one);
    b[2..4].copy_from_slice(&half::f16::from_f32(-1.0).to_le_bytes());
    b[4..8].copy_from_slice(&(1u32 | 1 << 16).to_le_bytes());
    b[8] = 0x21;
    quant::dequantize_block_q5_1(&b, &mut y);
    assert_eq!((y[0], y[16], y[1], y[17]), (16.0, 17.0, -1.0, -1.0));

    // Q4_K/Q5_K scales: six bits each; the high two bits of 4..8 live in bytes 0..8.
    let mut sc = [0u8; 12];
    sc[0] = 0b11_000001;
    sc[4] = 0b01_000010;
    sc[8] = 0x53;
    assert_eq!(quant::get_scale_min_k4(0, &sc), (1, 2));
    assert_eq!(quant::get_scale_min_k4(4, &sc), (0x33, 0x15));

    // Q6_K: value 0 = ql low nibble | qh bits 0..2 << 4, minus 32, times d * scale[0].
    let mut b = [0u8; quant::Q6_K_BYTES];
    b[0] = 0x05;
    b[128] = 0b10;
    b[192] = (-3i8) as u8;
    b[208..].copy_from_slice(&one);
    let mut y = [0f32; QK_K];
    quant::dequantize_block_q6_k(&b, &mut y);
    assert_eq!(y[0], -3.0 * (0x25 as f32 - 32.0));
    assert_eq!(y[1], -3.0 * -32.0);
}
