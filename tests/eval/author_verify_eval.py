#!/usr/bin/env python3
"""Verification (SAVER, issue 15) against hand labels: how well the caution flag finds the planted
faults (wrong key, fact not in the evidence, off-chapter item, a distractor that is also correct).

    python3 tests/eval/author_verify_eval.py --model models/cache/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf \
        --bundle $CARGO_TARGET_DIR/demo.bundle --out docs/results/author/verify-qwen0.5b.jsonl

Sets: tests/eval/data/own/author_verify_{en,bn}.jsonl (written and labelled by hand before any
scoring). Items with an odd number in their id are the tuning half (thresholds are chosen there),
even ones the held-out half (reported). `--results FILE` re-reads scores instead of running the model.
Missing inputs fail loudly.
"""
import argparse
import itertools
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SETS = [os.path.join(HERE, "data", "own", f"author_verify_{l}.jsonl") for l in ("en", "bn")]


def half(item_id):
    n = int(re.sub(r"\D", "", item_id.split("-")[-1]))
    return "tuning" if n % 2 == 1 else "held-out"


def prf(rows, th):
    """Precision and recall of the flag (the positive class: the item has a planted fault)."""
    tp = fp = fn = tn = 0
    for r in rows:
        flagged = not (r["faithfulness"] >= th[0] and r["relevance"] >= th[1] and r["hallucination"] <= th[2])
        bad = r["label"] == "flag"
        tp += flagged and bad
        fp += flagged and not bad
        fn += (not flagged) and bad
        tn += (not flagged) and not bad
    p = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    return p, rec, (tp, fp, fn, tn)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model")
    ap.add_argument("--bundle")
    ap.add_argument("--out")
    ap.add_argument("--results", action="append", help="scores written by an earlier run (no model run; repeatable)")
    ap.add_argument("--langs", default="en,bn", help="which sets to score: en, bn or both")
    ap.add_argument("--exe", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/pathshala/target")), "release", "index-builder"))
    a = ap.parse_args()
    for p in SETS:
        if not os.path.exists(p):
            sys.exit(f"error: {p} is missing")
    if a.results:
        rows = [json.loads(l) for f in a.results for l in open(f, encoding="utf-8") if l.strip()]
    else:
        for p in [a.model, a.bundle, a.exe]:
            if not p or not os.path.exists(p):
                sys.exit(f"error: {p} is missing (give --model and --bundle, or --results)")
        rows = []
        out = open(a.out, "w", encoding="utf-8") if a.out else None
        for s in [p for p in SETS if any(p.endswith(f"_{l}.jsonl") for l in a.langs.split(","))]:
            print(f"== {os.path.basename(s)}", flush=True)
            p = subprocess.Popen([a.exe, "author", "--bundle", a.bundle, "--model", a.model, "--verify-items", s], stdout=subprocess.PIPE, text=True)
            for line in p.stdout:
                r = json.loads(line)
                rows.append(r)
                if out:
                    out.write(line)
                    out.flush()
                print(f"{r['id']:8} {r['label']:6} {str(r['fault']):20} F {r['faithfulness']:.2f} R {r['relevance']:.2f} H {r['hallucination']:.2f}", flush=True)
            if p.wait() != 0:
                sys.exit("error: index-builder author --verify-items failed")
    tuning = [r for r in rows if half(r["id"]) == "tuning"]
    held = [r for r in rows if half(r["id"]) == "held-out"]
    default = (0.5, 0.5, 0.5)
    grid = [x / 20 for x in range(0, 21)]
    best = max(itertools.product(grid, grid, grid), key=lambda th: (lambda p, r: (2 * p * r / (p + r) if p + r else 0.0))(*prf(tuning, th)[:2]))
    for name, th in [("midpoints 0.5/0.5/0.5", default), (f"fitted on tuning θF={best[0]} θR={best[1]} θH={best[2]}", best)]:
        for setname, subset in [("tuning", tuning), ("held-out", held)]:
            for lang in ("en", "bn", "all"):
                rs = [r for r in subset if lang == "all" or r["id"].startswith(lang)]
                if not rs:
                    continue
                p, rec, c = prf(rs, th)
                print(f"{name:45} {setname:8} {lang:3} n={len(rs):3}  flag precision {p:.2f} recall {rec:.2f}  (tp {c[0]} fp {c[1]} fn {c[2]} tn {c[3]})")
    faults = sorted({str(r["fault"]) for r in rows})
    print("flag rate per fault, held-out, fitted thresholds:")
    for f in faults:
        rs = [r for r in held if str(r["fault"]) == f]
        if rs:
            flagged = sum(1 for r in rs if prf([dict(r, label="flag")], best)[2][0])
            print(f"  {f:22} {flagged}/{len(rs)}")


if __name__ == "__main__":
    main()
