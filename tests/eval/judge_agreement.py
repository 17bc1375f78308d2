#!/usr/bin/env python3
"""Agreement of the evaluation judge with a person's labels.

    python3 tests/eval/judge_agreement.py --judge models/cache/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \
        [--labels L.jsonl …] [--out verdicts.jsonl] [--judge-arg=--excerpt=N] \
        [--margins verdicts.jsonl …] [--sweep fact|support]

Each line of the labels file is one judgement a person made by reading, with the judge's own
inputs: `{"id", "kind": "fact"|"support", "text", "claim", "yes": bool, "note"}` (`fact`: does the
answer `text` state the fact `claim`; `support`: does the passage `text` support the sentence
`claim`). The pairs come from answers on the tuning half of our own set (never the reported sets);
by default the five files of `tests/eval/data/judge_labels*.jsonl` (529 labels).
`index-builder judge` (the prompts answer_eval.py uses) gives each a margin and
`answer_eval.verdict` (its threshold; for facts, also the fact's words in one sentence) the
verdict; the script prints the share
on which judge and person agree, overall, per kind and per label. answer_eval.py's figures count
only while this is at least 0.85.

`--margins` takes the judge's margins from an earlier `--out` (the same judge and excerpt: label
scoring is deterministic) instead of judging again; `--sweep KIND` prints, for thresholds from
1.0 to 2.5, the agreement on that kind's labels overall and per labels file, to choose the
threshold on some files and check it on the others.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from answer_eval import verdict, run_jsonl  # noqa: E402
from retrieval_eval import load_jsonl  # noqa: E402


def share(rows):
    return {"n": len(rows), "agreement": round(sum(r["agree"] for r in rows) / len(rows), 3) if rows else None}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/pathshala/target"))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--judge", required=True)
    ap.add_argument("--labels", nargs="+", default=[os.path.join(here, "data", f"judge_labels{n}.jsonl") for n in ("", "2", "3", "4", "5")])
    ap.add_argument("--judge-arg", action="append", default=[], help="passed on to `index-builder judge` (e.g. --judge-arg=--excerpt=400)")
    ap.add_argument("--index-builder", default=os.path.join(target, "release", "index-builder"))
    ap.add_argument("--out", default=None, help="JSONL: each label with the judge's verdict and margin")
    ap.add_argument("--margins", nargs="+", default=[], help="earlier --out files whose margins stand for the judge's (same kind, text and claim)")
    ap.add_argument("--sweep", choices=("fact", "support"), default=None)
    args = ap.parse_args()
    for path in (args.judge, *args.labels, args.index_builder):
        if not os.path.exists(path):
            sys.exit(f"error: {path} does not exist")
    labels = [{**l, "file": os.path.basename(path)} for path in args.labels for l in load_jsonl(path)]
    if len({l["id"] for l in labels}) != len(labels):
        sys.exit("error: label ids repeat")
    thresholds = json.loads(subprocess.run([args.index_builder, "judge", "--thresholds"], capture_output=True, text=True, check=True).stdout)
    known = {(r["kind"], r["text"], r["claim"]): r["margin"] for path in args.margins for r in load_jsonl(path)}
    fresh = [{"id": l["id"], "kind": l["kind"], "text": l["text"], "claim": l["claim"]} for l in labels if (l["kind"], l["text"], l["claim"]) not in known]
    judged = run_jsonl(lambda path: [args.index_builder, "judge", "--model", args.judge, "--pairs", path, *args.judge_arg], fresh) if fresh else []
    margins = {j["id"]: j["margin"] for j in judged}
    by_id = {}
    for l in labels:
        margin = known.get((l["kind"], l["text"], l["claim"]), margins.get(l["id"]))
        by_id[l["id"]] = {"margin": margin, "yes": verdict(l["kind"], l["text"], l["claim"], margin, thresholds)}
    rows = [{**l, "judge_yes": by_id[l["id"]]["yes"], "margin": by_id[l["id"]]["margin"], "agree": by_id[l["id"]]["yes"] == l["yes"]} for l in labels]
    result = {
        "judge": os.path.basename(args.judge),
        "all": share(rows),
        "fact": share([r for r in rows if r["kind"] == "fact"]),
        "support": share([r for r in rows if r["kind"] == "support"]),
        "labelled_yes": share([r for r in rows if r["yes"]]),
        "labelled_no": share([r for r in rows if not r["yes"]]),
        "disagreements": [r["id"] for r in rows if not r["agree"]],
    }
    print(json.dumps(result, indent=1))
    if args.sweep:
        kind = [r for r in rows if r["kind"] == args.sweep]
        if not kind:
            sys.exit(f"error: no {args.sweep} labels to sweep")
        files = sorted({r["file"] for r in kind})
        print(f"{args.sweep} labels, agreement by threshold: all ({len(kind)})  " + "  ".join(f"{f} ({sum(r['file'] == f for r in kind)})" for f in files))
        for t in [x / 10 for x in range(10, 26)]:
            agree = lambda rs: sum(verdict(r["kind"], r["text"], r["claim"], r["margin"], {**thresholds, args.sweep: t}) == r["yes"] for r in rs) / len(rs)
            print(f"{t:4.1f}  {agree(kind):.3f}  " + "  ".join(f"{agree([r for r in kind if r['file'] == f]):.3f}" for f in files))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
