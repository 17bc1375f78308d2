#!/usr/bin/env python3
"""Routing quality: every message of a set through `index-builder route --json` (the app's router).

    python3 tests/eval/route_eval.py --bundle demo.bundle --model M.gguf [--set dev|blind|blind2|…|blind10|FILE.jsonl [--course C]|own[-tuning|-heldout]|own2[-tuning|-heldout]|ask-SET] [--out F.jsonl]

The bundle is the demo course built with its subjects (scripts/demo.sh: "introductory Python
programming", "school science (Class 8)"). Figures: accuracy, per-class precision and recall, the
confusion table (rows: gold, columns: routed), harmful recall (must be 1.0), over-clarification
(clear course messages — gold conceptual, quiz or code — sent to a clarifying question; target 0),
the share decided by rules, and the median time per routing. Our own sets (`own`: routing.jsonl,
`own2`: routing_more.jsonl) split by id: odd ids tune, even ids are held out
(tests/eval/data/own/README.md); `blind`, `blind2`, … `blind10` (routing_blind*.jsonl) are held out whole, and the
shared dev set is never tuned on. `ask-SET` routes the questions of one of retrieval_eval.py's
sets (`ask-dev`, `ask-own-tuning`, `ask-own-heldout`, `ask-bn-tuning`, `ask-bn-heldout`, …),
the questions the book answers, each labelled conceptual: real course questions, longer and
more technical than the routing sets' messages, that must reach Ask (route them over the bundle
of their course: the Python docs, or the demo course for Bangla).
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from answer_eval import number, run_jsonl  # noqa: E402
from retrieval_eval import load_jsonl, load_set as load_qa_set  # noqa: E402

LABELS = ["greeting", "harmful", "off_topic", "ambiguous", "conceptual", "quiz", "code"]


def load_set(name, data, course=None):
    if name.endswith(".jsonl"):
        rows = load_jsonl(name)
        # A file of questions for the book (`ask_questions_fresh*.jsonl`: id, question, course,
        # lang): each one is for Ask, so labelled conceptual; `--course` keeps one course's.
        if rows and "question" in rows[0] and "label" not in rows[0]:
            rows = [{"id": r["id"], "text": r["question"], "label": "conceptual", "lang": r.get("lang", "en")} for r in rows if course in (None, r.get("course"))]
        return rows
    if name.startswith("ask-"):
        # Ask's question sets (retrieval_eval.py's names): every question the book answers is
        # for Ask, so each is labelled conceptual (their out-of-course ones are left out: some
        # are off-topic, others Python questions the book does not cover).
        inside, _ = load_qa_set(name[len("ask-"):], os.path.join(data, "dev"))
        return [{"id": q["id"], "text": q["question"], "label": "conceptual", "lang": q.get("lang", "en")} for q in inside]
    if name == "dev":
        return load_jsonl(os.path.join(data, "dev", "routing.jsonl"))
    whole = {"blind": "routing_blind.jsonl", "blind2": "routing_blind2.jsonl", "blind3": "routing_blind3.jsonl", "blind4": "routing_blind4.jsonl", "blind5": "routing_blind5.jsonl", "blind6": "routing_blind6.jsonl", "blind7": "routing_blind7.jsonl", "blind8": "routing_blind8.jsonl", "blind9": "routing_blind9.jsonl", "blind10": "routing_blind10.jsonl"}
    if name in whole:
        return load_jsonl(os.path.join(data, "own", whole[name]))
    base, _, part = name.partition("-")
    files = {"own": "routing.jsonl", "own2": "routing_more.jsonl"}
    if base not in files or part not in ("", "tuning", "heldout"):
        sys.exit(f"unknown set {name}; use dev, blind, blind2, … blind10, FILE.jsonl, ask-SET, or own / own2 with -tuning or -heldout (or neither: all)")
    rows = load_jsonl(os.path.join(data, "own", files[base]))
    if not part:
        return rows
    want = 1 if part == "tuning" else 0
    return [r for r in rows if number(r["id"]) % 2 == want]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/pathshala/target"))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--set", default="dev")
    ap.add_argument("--data", default=os.path.join(here, "data"))
    ap.add_argument("--course", default=None, help="with a file of questions for the book: only this course's (python, science)")
    ap.add_argument("--index-builder", default=os.path.join(target, "release", "index-builder"))
    ap.add_argument("--route-arg", action="append", default=[], help="passed on to `index-builder route` (tuning)")
    ap.add_argument("--out", default=None, help="JSONL: each message with its gold label and the route")
    ap.add_argument("--check", action="store_true", help="exit 1 unless every message was routed (the harness test)")
    ap.add_argument("--min-accuracy", type=float, default=None, help="exit 1 if accuracy is lower (a regression check)")
    args = ap.parse_args()
    for path in (args.bundle, args.model, args.index_builder):
        if not os.path.exists(path):
            sys.exit(f"error: {path} does not exist")
    rows = load_set(args.set, args.data, args.course)
    routed = run_jsonl(
        lambda p: [args.index_builder, "route", "--bundle", args.bundle, "--model", args.model, "--queries", p, "--json", *args.route_arg],
        [{"id": r["id"], "text": r["text"], **({"followup": r["followup"]} if r.get("followup") else {})} for r in rows],
    )
    by_id = {r["id"]: r for r in routed}
    pairs = [(r, by_id.get(r["id"], {"error": "no output line"})) for r in rows]
    got = lambda o: o.get("final_label") or "error"
    confusion = {g: {p: 0 for p in LABELS + ["error"]} for g in LABELS}
    for r, o in pairs:
        confusion[r["label"]][got(o)] += 1
    per_class = {}
    for l in LABELS:
        tp = confusion[l][l]
        gold = sum(confusion[l].values())
        pred = sum(confusion[g][l] for g in LABELS)
        per_class[l] = {"gold": gold, "precision": round(tp / pred, 3) if pred else None, "recall": round(tp / gold, 3) if gold else None}
    course = [(r, o) for r, o in pairs if r["label"] in ("conceptual", "quiz", "code")]
    result = {
        "set": args.set,
        "model": os.path.basename(args.model),
        "messages": len(rows),
        "accuracy": round(sum(got(o) == r["label"] for r, o in pairs) / len(rows), 3),
        "harmful_recall": per_class["harmful"]["recall"],
        "over_clarification": sum(1 for r, o in course if got(o) == "ambiguous"),
        "decided_by_rule": sum(1 for _, o in pairs if o.get("decided_by") == "rule"),
        "errors": sum(1 for _, o in pairs if "error" in o),
        "median_ms": round(statistics.median([o["ms"] for _, o in pairs if "ms" in o]), 1) if routed else None,
        "per_class": per_class,
        "confusion": confusion,
        "wrong": [{"id": r["id"], "text": r["text"], "gold": r["label"], "got": got(o), "by": o.get("decided_by")} for r, o in pairs if got(o) != r["label"]],
    }
    print(json.dumps(result, indent=1, ensure_ascii=False))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            for r, o in pairs:
                f.write(json.dumps({**r, "route": o}, ensure_ascii=False) + "\n")
    if args.min_accuracy is not None and result["accuracy"] < args.min_accuracy:
        sys.exit(f"FAIL: accuracy {result['accuracy']} < {args.min_accuracy}")
    if args.check and (result["errors"] or len(routed) != len(rows)):
        sys.exit(f"the harness did not route every message: {result['errors']} errors, {len(routed)} of {len(rows)} lines")


if __name__ == "__main__":
    main()
