#!/usr/bin/env python3
"""How a quiz covers its subtopic, without the model's writing time.

    python3 tests/eval/quiz_plans.py --python-docs P --demo D --model M [--n 8] [--before]

For each of the 10 fixed quiz topics (tests/eval/data/own/quiz_topics.jsonl), with the subtopic
session 29's run quizzed (docs/results/quiz/qwen0.5b-n3-s29.jsonl), `index-builder quiz
--plans-only` lists the passages the first N items would rest on if the learner answered each
right. Reports how many lie in the chosen subtopic (its section or one under it), the sections
per quiz and the entropy H over them; `--before` plans as the quiz did before session 34
(`--no-subtopic-first`).
"""
import argparse
import json
import math
import os
import subprocess
import sys
from collections import Counter


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/pathshala/target"))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python-docs", required=True)
    ap.add_argument("--demo", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--n", default="8")
    ap.add_argument("--before", action="store_true")
    ap.add_argument("--index-builder", default=os.path.join(target, "release", "index-builder"))
    a = ap.parse_args()
    for path in (a.python_docs, a.demo, a.model, a.index_builder):
        if not os.path.exists(path):
            sys.exit(f"error: {path} does not exist")
    root = os.path.dirname(os.path.dirname(here))
    topics = [json.loads(l) for l in open(os.path.join(here, "data", "own", "quiz_topics.jsonl"), encoding="utf-8") if l.strip()]
    subtopic = {}
    for l in open(os.path.join(root, "docs", "results", "quiz", "qwen0.5b-n3-s29.jsonl"), encoding="utf-8"):
        r = json.loads(l)
        if "subtopic" in r:
            subtopic.setdefault(r["topic_id"], r["subtopic"])
    inside = total = 0
    hs, ds = [], []
    for t in topics:
        bundle = a.python_docs if t["bundle"] == "python-docs" else a.demo
        cmd = [a.index_builder, "quiz", "--bundle", bundle, "--model", a.model, "--topic", t["topic"], "--plans-only", "--n", a.n]
        if t["id"] in subtopic:
            cmd += ["--subtopic", subtopic[t["id"]]]
        if a.before:
            cmd.append("--no-subtopic-first")
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"error: {t['id']}: {p.stderr.strip()[-500:]}")
        rows = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
        k = sum(r["inside"] for r in rows)
        sections = Counter(tuple(r["heading_path"]) for r in rows)
        h = -sum(v / len(rows) * math.log(v / len(rows)) for v in sections.values()) if rows else 0.0
        inside, total = inside + k, total + len(rows)
        hs.append(h)
        ds.append(len(sections))
        print(f"{t['id']} {subtopic.get(t['id'])}: {k}/{len(rows)} on the subtopic; " + " | ".join(" ▸ ".join(r["heading_path"][-2:]) for r in rows))
    print(json.dumps({"before": a.before, "n": int(a.n), "on_subtopic": inside, "items": total,
                      "mean_sections": round(sum(ds) / len(ds), 2), "mean_H": round(sum(hs) / len(hs), 2)}))


if __name__ == "__main__":
    main()
