#!/usr/bin/env python3
"""Reference GGUF parses and dequantizations from llama.cpp's own gguf-py.

What it makes
-------------
In ``inference/tests/fixtures/gguf/``:

``synthetic.gguf`` + ``synthetic.json``
    A tiny GGUF written by ``gguf.GGUFWriter`` (alignment 64) with one metadata
    value of every type (nested array included) and one small tensor of every
    type the Rust reader decodes (F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
    Q4_K, Q5_K, Q6_K).  Quantized tensors are random bytes with finite f16
    scales, so every bit of every block layout is exercised.  The JSON holds
    the metadata and every dequantized value.  No model file needed.

``smollm2-135m-q4_1.json``, ``qwen2.5-coder-0.5b-q4_k_m.json``
    For each real model file (if present in models/cache/): file size, version,
    alignment, data start, every tensor info (name, type, dims, offset), a few
    metadata values, and for a handful of tensors covering every type present
    the first 512 dequantized values of the first and last rows plus sum,
    sum of squares (f64) and max |x| over the whole tensor.

How
---
    python3 -m venv /root/.cache/pathshala-gguf-venv
    /root/.cache/pathshala-gguf-venv/bin/pip install gguf numpy   # gguf 0.19.0, numpy 2.4
    /root/.cache/pathshala-gguf-venv/bin/python tests/reference/gguf_reference.py

Dequantization is ``gguf.quants.dequantize`` (numpy ports of ggml-quants.c),
parsing is ``gguf.GGUFReader``; the Rust reader shares no code with either.
"""

import json
import pathlib
import sys

import numpy as np
import gguf
from gguf import GGMLQuantizationType as T
from gguf import GGUFValueType as V

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "inference/tests/fixtures/gguf"
CACHE = ROOT / "models/cache"
FIRST = 512

MODELS = [
    (
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        "smollm2-135m-q4_1.json",
        ["token_embd.weight", "blk.0.attn_q.weight", "blk.0.ffn_down.weight",
         "blk.29.ffn_up.weight", "blk.0.attn_norm.weight", "output_norm.weight"],
    ),
    (
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "qwen2.5-coder-0.5b-q4_k_m.json",
        ["token_embd.weight", "output.weight", "blk.0.ffn_down.weight",
         "blk.0.attn_v.weight", "blk.0.attn_q.bias", "blk.23.ffn_down.weight",
         "output_norm.weight"],
    ),
]


def f32_list(a):
    """float32 values as the shortest decimal that round-trips through f32."""
    return [float(str(x)) for x in np.asarray(a, np.float32)]


def rows_of(t):
    """Raw tensor data as (rows, bytes-or-values per row)."""
    data = t.data
    return data.reshape(-1, data.shape[-1]) if data.ndim > 1 else data.reshape(1, -1)


def dequant_rows(raw, qtype):
    if qtype in (T.F32, T.F16):
        return np.asarray(raw, np.float32)
    return gguf.quants.dequantize(raw, qtype).astype(np.float32)


def tensor_summary(t):
    raw = rows_of(t)
    n_rows = raw.shape[0]
    s = sq = 0.0
    mx = 0.0
    for i in range(0, n_rows, 4096):
        x = dequant_rows(raw[i:i + 4096], t.tensor_type).astype(np.float64)
        s += float(x.sum())
        sq += float((x * x).sum())
        mx = max(mx, float(np.abs(x).max()))
    rows = {}
    for r in sorted({0, n_rows - 1}):
        rows[str(r)] = f32_list(dequant_rows(raw[r:r + 1], t.tensor_type)[0][:FIRST])
    return {
        "name": t.name,
        "type": t.tensor_type.name,
        "dims": [int(d) for d in t.shape],
        "n_rows": n_rows,
        "rows": rows,
        "sum": s,
        "sum_sq": sq,
        "max_abs": mx,
    }


def field(r, key):
    f = r.fields.get(key)
    return None if f is None else f.contents()


def model_fixture(path, names):
    r = gguf.GGUFReader(path)
    arch = field(r, "general.architecture")
    types = {}
    for t in r.tensors:
        types[t.tensor_type.name] = types.get(t.tensor_type.name, 0) + 1
    by_name = {t.name: t for t in r.tensors}
    chosen = list(names)
    for ty in types:  # make sure every type in the file is covered
        if not any(by_name[n].tensor_type.name == ty for n in chosen):
            chosen.append(next(t.name for t in r.tensors if t.tensor_type.name == ty))
    tokens = field(r, "tokenizer.ggml.tokens")
    template = field(r, "tokenizer.chat_template")
    return {
        "file": path.name,
        "size": path.stat().st_size,
        "version": int(field(r, "GGUF.version")),
        "alignment": int(r.alignment),
        "data_start": int(r.data_offset),
        "metadata_count": len([k for k in r.fields if not k.startswith("GGUF.")]),
        "metadata": {
            "general.architecture": arch,
            "general.name": field(r, "general.name"),
            "context_length": int(field(r, f"{arch}.context_length")),
            "embedding_length": int(field(r, f"{arch}.embedding_length")),
            "block_count": int(field(r, f"{arch}.block_count")),
            "head_count": int(field(r, f"{arch}.attention.head_count")),
            "head_count_kv": int(field(r, f"{arch}.attention.head_count_kv")),
            "rope_freq_base": float(field(r, f"{arch}.rope.freq_base")),
            "rms_epsilon": float(field(r, f"{arch}.attention.layer_norm_rms_epsilon")),
            "eos_token_id": int(field(r, "tokenizer.ggml.eos_token_id")),
            "token_count": len(tokens),
            "first_tokens": tokens[:32],
            "last_token": tokens[-1],
            "merge_count": len(field(r, "tokenizer.ggml.merges")),
            "first_merges": field(r, "tokenizer.ggml.merges")[:8],
            "token_type_sum": int(np.sum(field(r, "tokenizer.ggml.token_type"))),
            "chat_template_prefix": template[:200],
            "chat_template_len": len(template),
        },
        "tensor_types": types,
        "tensor_infos": [[t.name, t.tensor_type.name, [int(d) for d in t.shape], int(t.data_offset - r.data_offset)] for t in r.tensors],
        "tensors": [tensor_summary(by_name[n]) for n in chosen],
    }


def random_blocks(rng, qtype, n_blocks):
    """Random block bytes with finite, moderate f16 scales at the positions ggml-quants.c reads them."""
    block_size, type_size = gguf.GGML_QUANT_SIZES[qtype]
    b = rng.integers(0, 256, size=(n_blocks, type_size), dtype=np.uint8)
    scale_offsets = {T.Q4_0: [0], T.Q4_1: [0, 2], T.Q5_0: [0], T.Q5_1: [0, 2], T.Q8_0: [0],
                     T.Q4_K: [0, 2], T.Q5_K: [0, 2], T.Q6_K: [type_size - 2]}[qtype]
    for off in scale_offsets:
        d = rng.uniform(-0.05, 0.05, size=n_blocks).astype(np.float16)
        b[:, off:off + 2] = d.view(np.uint8).reshape(n_blocks, 2)
    return b


def synthetic():
    rng = np.random.default_rng(20240611)
    path = OUT / "synthetic.gguf"
    w = gguf.GGUFWriter(str(path), "synthetic")
    w.add_custom_alignment(64)
    meta = [
        ("test.u8", 200, V.UINT8), ("test.i8", -100, V.INT8), ("test.u16", 60000, V.UINT16),
        ("test.i16", -30000, V.INT16), ("test.u32", 4000000000, V.UINT32), ("test.i32", -2000000000, V.INT32),
        ("test.f32", 0.15625, V.FLOAT32), ("test.bool", True, V.BOOL), ("test.string", "নমস্কার, GGUF", V.STRING),
        ("test.u64", 2**60 + 3, V.UINT64), ("test.i64", -(2**60) - 3, V.INT64), ("test.f64", 1e-300, V.FLOAT64),
        ("test.empty_string", "", V.STRING),
    ]
    for key, val, vt in meta:
        w.add_key_value(key, val, vt)
    w.add_array("test.str_array", ["a", "", "ক্", "<|im_start|>"])
    w.add_array("test.i32_array", [1, -2, 3])
    w.add_array("test.f32_array", [0.5, -1.25])
    w.add_array("test.nested", [[1, 2], [3]])
    tensors = []
    # (name, type, rows, row_len)
    for name, qtype, rows, row_len in [
        ("f32", T.F32, 3, 7), ("f16", T.F16, 2, 64), ("bf16", T.BF16, 2, 64),
        ("q4_0", T.Q4_0, 3, 64), ("q4_1", T.Q4_1, 3, 64), ("q5_0", T.Q5_0, 3, 64), ("q5_1", T.Q5_1, 3, 64),
        ("q8_0", T.Q8_0, 3, 64), ("q4_k", T.Q4_K, 2, 512), ("q5_k", T.Q5_K, 2, 512), ("q6_k", T.Q6_K, 2, 512),
    ]:
        if qtype == T.F32:
            data = rng.standard_normal((rows, row_len)).astype(np.float32)
            w.add_tensor(name, data)
        elif qtype == T.F16:
            data = rng.standard_normal((rows, row_len)).astype(np.float16)
            w.add_tensor(name, data)
        elif qtype == T.BF16:
            f = rng.standard_normal((rows, row_len)).astype(np.float32)
            data = (f.view(np.uint32) >> 16).astype(np.uint16).view(np.uint8).reshape(rows, row_len * 2)
            w.add_tensor(name, data, raw_dtype=qtype)
        else:
            bs, _ = gguf.GGML_QUANT_SIZES[qtype]
            data = random_blocks(rng, qtype, rows * row_len // bs).reshape(rows, -1)
            w.add_tensor(name, data, raw_dtype=qtype)
        tensors.append(name)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()

    r = gguf.GGUFReader(str(path))
    metadata = {}
    for key, f in r.fields.items():
        if key.startswith("GGUF."):
            continue
        metadata[key] = {"type": [V(t).name for t in f.types], "value": f.contents()}
    out = {
        "file": path.name,
        "size": path.stat().st_size,
        "version": int(field(r, "GGUF.version")),
        "alignment": int(r.alignment),
        "data_start": int(r.data_offset),
        "metadata": metadata,
        "tensors": [],
    }
    for t in r.tensors:
        values = dequant_rows(rows_of(t), t.tensor_type).reshape(-1)
        out["tensors"].append({
            "name": t.name, "type": t.tensor_type.name, "dims": [int(d) for d in t.shape],
            "offset": int(t.data_offset - r.data_offset), "values": f32_list(values),
        })
    (OUT / "synthetic.json").write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    print("wrote", path, path.stat().st_size, "bytes")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    synthetic()
    for file, fixture, names in MODELS:
        path = CACHE / file
        if not path.exists():
            print(f"skip {file}: not in {CACHE} (run tests/reference/gguf_fetch.sh)", file=sys.stderr)
            continue
        data = model_fixture(path, names)
        (OUT / fixture).write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
        print("wrote", fixture, data["tensor_types"])


if __name__ == "__main__":
    main()
