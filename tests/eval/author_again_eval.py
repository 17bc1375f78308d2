#!/usr/bin/env python3
"""A teacher asks again (issue 15): each request of tests/eval/data/own/author_again_requests.jsonl
is run --rounds times (default 3), each round avoiding the items of the rounds before
(`index-builder author --avoid`), and the rounds' items are compared.

    python3 tests/eval/author_again_eval.py --model models/cache/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf \
        --bundle py8=$CARGO_TARGET_DIR/py-heldout8.bundle --dir /tmp/again

Per round: items written and missing; items repeating an earlier round's item (the same question or
story, word for word), resting on a sentence an earlier round's item rests on, or with the same four
options as an earlier round's MCQ (the same rule asked again in other words); items made from the
book (a definition asked back, the book's code run) or by the model; items the verification flags.
Each round's output stays in --dir (`ID-ROUND.jsonl`, `.err`, `.report.json`) for reading; with
--summarise the rounds already there are read, nothing is run. Missing inputs fail loudly.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REQUESTS = os.path.join(HERE, "data", "own", "author_again_requests.jsonl")


def items(path):
    return [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]


def question(r):
    return (r.get("mcq") or {}).get("question") or (r.get("creative") or {}).get("clue") or ""


def options(r):
    m = r.get("mcq") or {}
    return tuple(sorted(m.get("options", []))) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model")
    ap.add_argument("--bundle", action="append", default=[], metavar="NAME=PATH", help="a request's bundle by name (repeatable)")
    ap.add_argument("--requests", default=REQUESTS)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--summarise", action="store_true", help="read the rounds in --dir; run nothing")
    ap.add_argument("--exe", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/pathshala/target")), "release", "index-builder"))
    a = ap.parse_args()
    if not os.path.exists(a.requests):
        sys.exit(f"error: {a.requests} is missing")
    reqs = [json.loads(l) for l in open(a.requests, encoding="utf-8") if l.strip()]
    bundles = dict(b.split("=", 1) for b in a.bundle)
    os.makedirs(a.dir, exist_ok=True)
    if not a.summarise:
        for p in [a.model, a.exe]:
            if not p or not os.path.exists(p):
                sys.exit(f"error: {p} is missing (--model, --exe)")
        for r in reqs:
            if not bundles.get(r["bundle"]) or not os.path.exists(bundles[r["bundle"]]):
                sys.exit(f"error: request {r['id']} needs bundle {r['bundle']!r}: {bundles.get(r['bundle'])} is missing")
        for r in reqs:
            for k in range(1, a.rounds + 1):
                base = os.path.join(a.dir, f"{r['id']}-{k}")
                cmd = [a.exe, "author", "--bundle", bundles[r["bundle"]], "--model", a.model, "--request", r["request"], "--lang", r["lang"], "--report", base + ".report.json"]
                for j in range(1, k):
                    cmd += ["--avoid", os.path.join(a.dir, f"{r['id']}-{j}.jsonl")]
                print(f"== {r['id']} round {k}: {r['request']}", file=sys.stderr, flush=True)
                with open(base + ".jsonl", "w") as out, open(base + ".err", "w") as err:
                    if subprocess.run(cmd, stdout=out, stderr=err).returncode != 0:
                        sys.exit(f"error: {' '.join(cmd)} failed; see {base}.err")
    rows = []
    for k in range(1, a.rounds + 1):
        total = {"round": k, "asked": 0, "written": 0, "missing": 0, "same_question": 0, "same_evidence": 0, "same_options": 0, "from_book": 0, "by_model": 0, "flagged": 0}
        for r in reqs:
            base = os.path.join(a.dir, f"{r['id']}-{k}")
            if not os.path.exists(base + ".jsonl") or not os.path.exists(base + ".report.json"):
                sys.exit(f"error: {base}.jsonl or its report is missing (run without --summarise first)")
            earlier = [i for j in range(1, k) for i in items(os.path.join(a.dir, f"{r['id']}-{j}.jsonl"))]
            report = json.load(open(base + ".report.json"))
            total["asked"] += sum(report.get("asked", {}).values())
            total["missing"] += len(report.get("missing", []))
            for i in items(base + ".jsonl"):
                total["written"] += 1
                total["same_question"] += any(question(i) == question(e) for e in earlier)
                quotes = {s["excerpt"] for s in i["sources"]}
                total["same_evidence"] += any(quotes & {s["excerpt"] for s in e["sources"]} for e in earlier)
                total["same_options"] += options(i) is not None and any(options(i) == options(e) for e in earlier)
                total["from_book" if not i["ai_assisted"] else "by_model"] += 1
                total["flagged"] += bool(i["verification"]) and not i["verification"]["accepted"]
        rows.append(total)
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for t in rows:
        print("| " + " | ".join(str(t[k]) for k in keys) + " |")


if __name__ == "__main__":
    main()
