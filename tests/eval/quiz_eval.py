#!/usr/bin/env python3
"""Quiz quality: `index-builder quiz --json` (the app's quiz) on the fixed topic list.

    python3 tests/eval/quiz_eval.py --python-docs python-docs.bundle --demo demo.bundle --model M.gguf \
        [--n 6] [--learner alternate] [--ids q1,q2] [--out F.jsonl] [--audit F.md] [--check]

Topics: tests/eval/data/own/quiz_topics.jsonl (10, fixed before any item was generated; odd ids
may tune prompts, even ids are held out). Figures per topic and overall: items shown, items that
passed validation at the first attempt, items shown out of all planned (after repairs; the rest
were skipped with a reason), the failing checks, coverage evenness (Shannon H over the outline
sections of the items' evidence; Pielou's J = H / ln k, k the sections among the quiz's 25 MMR
chunks), the Bloom levels reached, and the time per shown item. `--audit` writes the items as
Markdown for a hand audit (is the key right, are the distractors plausible, is the Bloom tag right).
"""
import argparse
import collections
import math
import json
import os
import statistics
import subprocess
import sys
import time

# Items made from the book with no model, by the validator's `by_*` flag: what each is made from.
BOOK_MADE = {
    "definition": "the book's definitions",
    "reason": "the reasons it gives",
    "example": "the members it lists",
    "contrast": "its comparison tables",
    "running": "its code, run",
    "statement": "its claims, three turned",
}

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from retrieval_eval import load_jsonl  # noqa: E402


def run_topic(args, bundle, topic):
    cmd = [args.index_builder, "quiz", "--bundle", bundle, "--model", args.model, "--topic", topic["topic"],
           "--n", str(args.n), "--json"] + (["--learner", args.learner] if args.learner else []) + args.quiz_arg
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} failed:\n{p.stderr}")
    lines = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    summary = None
    for l in p.stderr.splitlines():
        if l.startswith('{"summary"'):
            summary = json.loads(l)["summary"]
    return lines, summary, p.stderr, wall


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/pathshala/target"))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python-docs", required=True, help="the Python 3.11 docs bundle (scripts/eval-python-docs.sh builds it)")
    ap.add_argument("--demo", required=True, help="the demo course bundle (with its subjects)")
    ap.add_argument("--model", required=True)
    ap.add_argument("--n", type=int, default=6)
    ap.add_argument("--learner", default="alternate")
    ap.add_argument("--ids", default=None, help="comma-separated topic ids, run in that order (default: all ten)")
    ap.add_argument("--topics", default=os.path.join(here, "data", "own", "quiz_topics.jsonl"))
    ap.add_argument("--bundle", action="append", default=[], metavar="NAME=PATH",
                    help="a further bundle the topics file may name (e.g. bn-heldout=…, for quiz_topics_bn_heldout.jsonl)")
    ap.add_argument("--index-builder", default=os.path.join(target, "release", "index-builder"))
    ap.add_argument("--quiz-arg", action="append", default=[], help="passed on to `index-builder quiz` (tuning)")
    ap.add_argument("--out", default=None, help="JSONL: every item or skip line with its topic id, then one summary line per topic")
    ap.add_argument("--audit", default=None, help="Markdown file of the shown items, for a hand audit")
    ap.add_argument("--check", action="store_true", help="exit 1 unless every topic ran and every shown item passed validation (the harness test)")
    args = ap.parse_args()
    extra = dict(b.split("=", 1) for b in args.bundle)
    for path in (args.python_docs, args.demo, args.model, args.index_builder, args.topics, *extra.values()):
        if not os.path.exists(path):
            sys.exit(f"error: {path} does not exist")
    topics = load_jsonl(args.topics)
    if args.ids:
        by_id = {t["id"]: t for t in topics}
        want = args.ids.split(",")
        if any(i not in by_id for i in want):
            sys.exit(f"error: unknown topic id in {args.ids}")
        topics = [by_id[i] for i in want]
    bundles = {"python-docs": args.python_docs, "demo": args.demo, **extra}
    if any(t["bundle"] not in bundles for t in topics):
        sys.exit(f"error: a topic names a bundle not given: {sorted({t['bundle'] for t in topics} - set(bundles))}")
    out = open(args.out, "w") if args.out else None
    audit = open(args.audit, "w") if args.audit else None
    if audit:
        audit.write(f"# Quiz items for a hand audit\n\nModel: `{os.path.basename(args.model)}`; `--n {args.n} --learner {args.learner}`.\n\n")
    totals = collections.Counter()
    failing = collections.Counter()
    blooms = collections.Counter()
    ms, js, hs, j_items = [], [], [], []
    bad = []
    print(f"{'topic':<28} {'shown':>5} {'first':>5} {'skip':>4} {'H':>5} {'J':>5} {'k':>3} {'s/item':>7}  levels")
    for t in topics:
        lines, summary, stderr, wall = run_topic(args, bundles[t["bundle"]], t)
        items = [l for l in lines if "question" in l]
        skips = [l for l in lines if "skipped" in l]
        if summary is None:
            if items or "does not cover" not in stderr and "নেই" not in stderr:
                sys.exit(f"error: no summary for {t['id']}:\n{stderr}")
            print(f"{t['topic'][:28]:<28} not covered")
            bad.append(t["id"])
            continue
        first = sum(1 for i in items if i["validator"]["attempts"] == 1)
        made = {k: sum(1 for i in items if i["validator"].get("by_" + k)) for k in BOOK_MADE}
        totals.update(shown=len(items), first=first, skipped=len(skips), planned=len(items) + len(skips), **made)
        for l in lines:
            for name, ok in (l.get("validator", {}).get("checks") or l.get("checks") or {}).items():
                if not ok:
                    failing[name] += 1
            for r in l.get("validator", {}).get("rejected", []) if "validator" in l else l.get("rejected", []):
                failing["rejected: " + r] += 1
        for i in items:
            blooms[i["bloom"]] += 1
            ms.append(i["ms"])
            if not i["validator"]["passed"]:
                bad.append(t["id"])
        js.append(summary["pielou_j"])
        hs.append(summary["entropy"])
        # J with k the most sections n items can cover (min(n, k)): 1.0 when no section repeats.
        m = min(len(items), summary["k_sections"])
        j_items.append(summary["entropy"] / math.log(m) if m > 1 else float("nan"))
        per = statistics.mean(i["ms"] for i in items) / 1000 if items else float("nan")
        levels = " ".join(i["bloom"][:3] + ("+" if i["correct"] else "-" if i["correct"] is False else "") for i in items)
        print(f"{t['topic'][:28]:<28} {len(items):>5} {first:>5} {len(skips):>4} {summary['entropy']:>5.2f} {summary['pielou_j']:>5.2f} {summary['k_sections']:>3} {per:>7.1f}  {levels}", flush=True)
        if out:
            for l in lines:
                out.write(json.dumps({"topic_id": t["id"], **l}, ensure_ascii=False) + "\n")
            out.write(json.dumps({"topic_id": t["id"], "summary": summary, "wall_s": wall}, ensure_ascii=False) + "\n")
            out.flush()
        if audit:
            audit.write(f"## {t['id']}: {t['topic']} ▸ {summary['subtopic']}\n\n")
            for n, i in enumerate(items, 1):
                letters = "ABCD"
                audit.write(f"**{t['id']}.{n}** [{i['bloom']}] {i['question']}\n\n")
                for k, (o, r) in enumerate(zip(i["options"], i["rationales"])):
                    mark = "**(key)** " if k == i["answer_index"] else ""
                    audit.write(f"- {letters[k]}) {mark}{o} — _{r}_\n")
                e = i["evidence"][0]
                how = next((f"{BOOK_MADE[k]} (no model)" for k in BOOK_MADE if i["validator"].get("by_" + k)), f"attempts {i['validator']['attempts']}")
                audit.write(f"\nkey fact: {e.get('quote', '')}\n\nconcepts: {', '.join(i['concepts'])}; evidence: {' ▸ '.join(e['heading_path'])} (chunk {e['chunk']}); {how}\n\n")
            audit.flush()
    n = totals["shown"]
    print()
    print(f"items shown: {n}; passed at the first attempt: {totals['first']} ({totals['first'] / max(n, 1):.2f} of shown); " + "; ".join(f"from {BOOK_MADE[k]}: {totals[k]}" for k in BOOK_MADE))
    print(f"plans: {totals['planned']}; shown after repairs: {n} ({n / max(totals['planned'], 1):.2f}); skipped: {totals['skipped']}")
    if js:
        print(f"evenness: mean H {statistics.mean(hs):.2f}, mean J {statistics.mean(js):.2f} (k: sections among the 25 MMR chunks) over {len(js)} quizzes")
        ok = [j for j in j_items if j == j]
        if ok:
            print(f"  J with k = min(items, sections): mean {statistics.mean(ok):.2f} over {len(ok)} quizzes with 2+ items")
    if ms:
        print(f"time per shown item: mean {statistics.mean(ms) / 1000:.1f} s, median {statistics.median(ms) / 1000:.1f} s")
    print("levels:", ", ".join(f"{b} {blooms[b]}" for b in ["remember", "understand", "apply", "analyse", "evaluate", "create"]))
    print("failed checks (all attempts):", ", ".join(f"{k} {v}" for k, v in failing.most_common()) or "none")
    if args.check and (bad or n == 0):
        sys.exit(f"error: topics not covered or items shown without passing validation: {bad}")


if __name__ == "__main__":
    main()
