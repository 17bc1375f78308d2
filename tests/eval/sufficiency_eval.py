#!/usr/bin/env python3
"""Fail-closed with the course LLM: refusals of answerable and of out-of-course questions, by the
coverage gate alone and by the gate followed by Ask's evidence-sufficiency check.

    python3 tests/eval/sufficiency_eval.py --bundle B --model M.gguf --set own-tuning --save runs.jsonl [--sweep]
    python3 tests/eval/sufficiency_eval.py --load runs.jsonl --set own-tuning --sweep   # no model run

It runs `index-builder search --model M --json` (the gate, then the check on the passages Ask
would give the model) over the set's in-corpus and out-of-corpus questions. Ask refuses a
question when the gate refuses it outright, or when the check's yes-minus-no margin is below
`--min-margin` (gate passed) / `--min-margin-uncertain` (gate doubted: few of its words in the
evidence). Without those flags the thresholds are Ask's defaults, as the binary reports them.
`--sweep` prints the refusal rates over a grid of both thresholds (for the tuning halves only).
Sets as in retrieval_eval.py. Targets (issue 16): >= 0.90 of out-of-course questions refused,
<= 0.03 of answerable ones refused.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from retrieval_eval import SETS, load_set, run_search  # noqa: E402


def refused(r, t, tu):
    """Whether Ask refuses, for thresholds t (gate passed) and tu (gate doubted); None: defaults."""
    if r["abstained"] and not r["uncertain"]:
        return True
    if r["sufficiency_margin"] is None:
        return r["abstained"]
    if t is None:
        return not r["sufficient"]
    return r["sufficiency_margin"] < (tu if r["abstained"] else t)


def rates(qa, ooc, res, t=None, tu=None):
    fr = sum(refused(res[q["id"]], t, tu) for q in qa)
    ro = sum(refused(res[q["id"]], t, tu) for q in ooc)
    return fr, ro


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/pathshala/target"))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bundle")
    ap.add_argument("--model")
    ap.add_argument("--dev", default=os.path.join(here, "data", "dev"))
    ap.add_argument("--set", default="dev", choices=SETS)
    ap.add_argument("--index-builder", default=os.path.join(target, "release", "index-builder"))
    ap.add_argument("--save", help="write the search lines here (JSONL)")
    ap.add_argument("--load", help="score saved search lines instead of running the model")
    ap.add_argument("--min-margin", type=float)
    ap.add_argument("--min-margin-uncertain", type=float)
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--show", action="store_true", help="list each question's gate and margin")
    args = ap.parse_args()

    qa, ooc = load_set(args.set, args.dev)
    if not qa or not ooc:
        sys.exit(f"error: set {args.set} has {len(qa)} in-corpus and {len(ooc)} out-of-corpus questions")
    if args.load:
        with open(args.load, encoding="utf-8") as f:
            res = {r["id"]: r for r in map(json.loads, f) if r}
        missing = [q["id"] for q in qa + ooc if q["id"] not in res]
        if missing:
            sys.exit(f"error: {args.load} lacks {len(missing)} questions of {args.set}, e.g. {missing[:3]}")
    else:
        if not (args.bundle and args.model):
            sys.exit("error: --bundle and --model are needed (or --load)")
        for p in (args.bundle, args.model, args.index_builder):
            if not os.path.exists(p):
                sys.exit(f"error: {p} does not exist")
        flags = ["--model", args.model]
        res = run_search(args.index_builder, args.bundle, qa + ooc, flags, 5)
        if args.save:
            with open(args.save, "w", encoding="utf-8") as f:
                for q in qa + ooc:
                    f.write(json.dumps(res[q["id"]], ensure_ascii=False) + "\n")

    n, m = len(qa), len(ooc)
    gate_fr = sum(res[q["id"]]["abstained"] for q in qa)
    gate_ro = sum(res[q["id"]]["abstained"] for q in ooc)
    t, tu = args.min_margin, args.min_margin_uncertain
    if (t is None) != (tu is None):
        sys.exit("error: give both --min-margin and --min-margin-uncertain, or neither")
    fr, ro = rates(qa, ooc, res, t, tu)
    ms = [r["llm_ms"] for r in res.values() if r.get("llm_ms") is not None]
    doubted = sum(res[q["id"]]["abstained"] and res[q["id"]]["uncertain"] for q in qa + ooc)
    thresholds = "Ask's defaults" if t is None else f"margin >= {t:+.2f} (passed) / {tu:+.2f} (doubted)"
    print(f"set {args.set}: {n} answerable + {m} out-of-course; {doubted} doubted by the gate; check ran on {len(ms)}"
          + (f", median {statistics.median(ms) / 1000:.1f} s" if ms else ""))
    print("| decision | answerable refused | out-of-course refused |")
    print("|---|---|---|")
    print(f"| coverage gate alone | {gate_fr}/{n} ({gate_fr / n:.2f}) | {gate_ro}/{m} ({gate_ro / m:.2f}) |")
    print(f"| gate + sufficiency check ({thresholds}) | {fr}/{n} ({fr / n:.2f}) | {ro}/{m} ({ro / m:.2f}) |")
    if args.show:
        for kind, rows in (("in", qa), ("out", ooc)):
            for q in rows:
                r = res[q["id"]]
                gate = "refused" if r["abstained"] and not r["uncertain"] else "doubted" if r["abstained"] else "passed"
                mg = r["sufficiency_margin"]
                print(f"  {kind:3} {q['id']!s:>12} {gate:8} {'' if mg is None else f'{mg:+6.2f}'}  {q['question'][:70]}")
    if args.sweep:
        grid = [x / 2 for x in range(-8, 9)]
        print("\nsweep: answerable refused / out-of-course refused, rows = min margin (gate passed), columns = min margin (doubted)")
        print("| t \\ tu | " + " | ".join(f"{u:+.1f}" for u in grid) + " |")
        print("|---" * (len(grid) + 1) + "|")
        for a in grid:
            cells = [rates(qa, ooc, res, a, u) for u in grid]
            print(f"| {a:+.1f} | " + " | ".join(f"{f}/{o}" for f, o in cells) + " |")


if __name__ == "__main__":
    main()
