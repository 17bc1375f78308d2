#!/usr/bin/env python3
"""Fit the retrieval reranker's feature weights on tuning questions; score any weights on any set.

    python3 tests/eval/rerank_fit.py --bundle python-docs.bundle --fit own-tuning,fresh \
        --report own-heldout,dev,fresh2 [--features dense,heading_dense,lexical,heading,terms] \
        [--step 0.1] [--weights 0.4,0.3,0.1,0.1,0.1]

`index-builder search --json --features` lists each question's fused candidates (before
reranking) with what `retrieve::rerank::FeatureReranker` reads of them; this script ranks them
again under other weights, keeps one candidate per section (CCR's rule that decides which
sections reach the top five; its overlap and near-duplicate rules are not replayed) and scores
the top five. Sets:
  - `own-tuning`, `own-heldout`, `dev`, `bn-tuning`, `bn-heldout`: the section-level hit rule of
    retrieval_eval.py (gold file and gold heading);
  - `fresh`, `fresh2`: the Python questions of `tests/eval/data/own/ask_questions_fresh*.jsonl`
    (written against a named book file; no heading), scored by file.
`--fit` searches every weight vector on a grid of `--step` over the simplex and keeps the one with
the best mean MRR over the fit sets (ties: the higher recall@5, then the default's nearest).
Weights are printed in `--features` order. Needs numpy (`pip install numpy`); nothing in the tests uses this script.
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from retrieval_eval import is_hit, load_jsonl, load_set  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ALL = ["dense", "heading_dense", "lexical", "heading", "terms", "fused"]
DEFAULT = {"dense": 0.4, "heading_dense": 0.3, "lexical": 0.1, "heading": 0.1, "terms": 0.1}
PY_ROOT = "/usr/share/doc/python3.11/html/_sources/"


def questions(name, dev):
    """[(question, hit(candidate) -> bool)] of the in-course questions of a set."""
    if name in ("fresh", "fresh2"):
        rows = load_jsonl(os.path.join(HERE, "data", "own", f"ask_questions_{name}.jsonl"))
        rows = [r for r in rows if r["course"] == "python"]
        return [(r, (lambda c, f=r["source"][len(PY_ROOT):]: c["file"] == f)) for r in rows]
    qa, _ = load_set(name, dev)
    return [(q, (lambda c, q=q: is_hit(c, q))) for q in qa]


def candidates(binary, bundle, qs, cache):
    if cache and os.path.exists(cache):
        return load_jsonl(cache)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
        for q, _ in qs:
            f.write(json.dumps({"id": q["id"], "question": q["question"]}) + "\n")
        path = f.name
    try:
        out = subprocess.run([binary, "search", "--bundle", bundle, "--queries", path, "--json", "--features"],
                             check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    rows = [json.loads(l) for l in out.splitlines()]
    if cache:
        with open(cache, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    return rows


class Set:
    """One set's candidates: per question, each section's candidates' features and whether the
    section is a hit (one candidate per section reaches the top, the best-scored)."""

    def __init__(self, qs, rows, features):
        by_id = {r["id"]: r for r in rows}
        self.questions = []
        for q, hit in qs:
            cs = by_id[q["id"]]["candidates"]
            top = max((c["fused"] for c in cs), default=1.0) or 1.0
            sections = list(dict.fromkeys(c["section"] for c in cs))
            cs = sorted(cs, key=lambda c: sections.index(c["section"]))
            x = np.array([[dict(c, fused=c["fused"] / top)[k] for k in features] for c in cs], dtype=np.float64).reshape(len(cs), len(features))
            starts = np.array([next(j for j, c in enumerate(cs) if c["section"] == sec) for sec in sections], dtype=np.int64)
            hits = np.array([any(hit(c) for c in cs if c["section"] == sec) for sec in sections], dtype=bool)
            self.questions.append((x, starts, hits))

    def __len__(self):
        return len(self.questions)

    def scores(self, w, top=5):
        """(recall@top, MRR over the top, hit@1) for each weight vector (rows of `w`)."""
        w = np.atleast_2d(np.asarray(w, dtype=np.float64))
        found = np.zeros(len(w))
        rr = np.zeros(len(w))
        first = np.zeros(len(w))
        for x, starts, hits in self.questions:
            if not hits.any():
                continue
            by_section = np.maximum.reduceat(x @ w.T, starts, axis=0)  # sections × weights
            gold = by_section[hits].max(axis=0)
            rank = 1 + (by_section[~hits] > gold).sum(axis=0)
            ok = rank <= top
            found += ok
            rr += np.where(ok, 1.0 / rank, 0.0)
            first += rank == 1
        n = len(self.questions)
        return np.stack([found / n, rr / n, first / n], axis=1)

    def score(self, w, top=5):
        return tuple(self.scores([w], top)[0])


def grid(k, step):
    units = round(1 / step)
    for cut in itertools.combinations(range(units + k - 1), k - 1):
        parts = np.diff([-1, *cut, units + k - 1]) - 1
        yield parts * step


def main():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/pathshala/target"))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--fit", default="", help="sets to fit on, comma-separated")
    ap.add_argument("--report", default="", help="sets to report on, comma-separated")
    ap.add_argument("--features", default=",".join(DEFAULT))
    ap.add_argument("--weights", help="score these weights instead of fitting")
    ap.add_argument("--step", type=float, default=0.1)
    ap.add_argument("--cache", help="folder for the candidates of each set (reused when present)")
    ap.add_argument("--dev", default=os.path.join(HERE, "data", "dev"))
    ap.add_argument("--index-builder", default=os.path.join(target, "release", "index-builder"))
    a = ap.parse_args()
    for path in (a.bundle, a.index_builder):
        if not os.path.exists(path):
            sys.exit(f"missing input: {path}")
    features = a.features.split(",")
    unknown = [f for f in features if f not in ALL]
    if unknown:
        sys.exit(f"unknown features {unknown}; known: {ALL}")
    if a.cache:
        os.makedirs(a.cache, exist_ok=True)
    sets = {}
    for name in dict.fromkeys(filter(None, a.fit.split(",") + a.report.split(","))):
        qs = questions(name, a.dev)
        rows = candidates(a.index_builder, a.bundle, qs, a.cache and os.path.join(a.cache, f"{name}.jsonl"))
        sets[name] = Set(qs, rows, features)
    default = [DEFAULT.get(f, 0.0) for f in features]
    if a.weights:
        chosen = [float(x) for x in a.weights.split(",")]
    elif a.fit:
        fit = [sets[n] for n in a.fit.split(",")]
        ws = np.array(list(grid(len(features), a.step)))
        per = np.mean([s.scores(ws) for s in fit], axis=0)  # weights × (recall, MRR, hit@1)
        near = -np.abs(ws - np.asarray(default)).sum(axis=1)
        best = max(range(len(ws)), key=lambda i: (round(per[i, 1], 6), round(per[i, 0], 6), near[i]))
        chosen = list(map(float, ws[best]))
    else:
        chosen = default
    print("features:", ",".join(features))
    print("default: ", ",".join(f"{w:g}" for w in default))
    print("chosen:  ", ",".join(f"{w:g}" for w in chosen))
    print(f"| set | n | default recall@5 / MRR / hit@1 | chosen recall@5 / MRR / hit@1 |")
    print("|---|---|---|---|")
    for name, s in sets.items():
        d, c = s.score(default), s.score(chosen)
        print(f"| {name}{' (fit)' if name in a.fit.split(',') else ''} | {len(s)} | {d[0]:.3f} / {d[1]:.3f} / {d[2]:.3f} | {c[0]:.3f} / {c[1]:.3f} / {c[2]:.3f} |")


if __name__ == "__main__":
    main()
