#!/usr/bin/env python3
"""Retrieval quality on the shared dev sets: recall@5 and MRR per configuration, and abstain rates.

    python3 tests/eval/retrieval_eval.py --bundle python-docs.bundle [--set dev|own-tuning|own-heldout] \
        [--index-builder $CARGO_TARGET_DIR/release/index-builder] [--configs default,bm25,...] [--json]

`--set dev` (default) is the shared dev set copied to tests/eval/data/dev (25 + 10, never tuned
on); `own-tuning` / `own-heldout` are the odd / even ids of our own set in tests/eval/data/own
(104 in-corpus + 44 out-of-course; tune on the first, report the second); `bn-tuning` /
`bn-heldout` the Bangla set over the demo course (qa_bn.jsonl, out_of_corpus_bn.jsonl: 60 + 20,
kinds bn / mixed / cross, recall reported per kind too).

It runs `index-builder search --queries Q.jsonl --top 5 --json` once per configuration and scores
the results. A result is a hit when it comes from the gold file and one heading of its heading
path equals the gold heading after stripping reST inline markup and folding whitespace
(the rule in shared/eval/README.md).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

CONFIGS = {
    # name: extra search flags
    "bm25": ["--mode", "bm25", "--no-rerank"],
    "dense": ["--mode", "dense", "--no-rerank"],
    "hybrid-union": ["--fusion", "union", "--no-rerank"],
    "hybrid-rrf": ["--fusion", "rrf", "--no-rerank"],
    "hybrid-rrf+rerank (default)": [],
}


def norm_heading(h):
    # :role:`text <target>` → text; the `!` (no link) and `~` (short form) of :role:`!name` and
    # :role:`~a.b` are markup too (the builder keeps `a.b` whole, as index-builder's rst.rs).
    h = re.sub(r":[\w:+-]+:`[!~]?([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", h)
    h = re.sub(r"\\(.)", r"\1", h)  # backslash escapes: `Importing \* From a Package`
    h = h.replace("``", "")
    h = re.sub(r"`([^`]*)`_*", r"\1", h)
    h = re.sub(r"\*\*?([^*]+)\*\*?", r"\1", h)
    return " ".join(h.split())


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


SETS = ["dev", "own-tuning", "own-heldout", "own", "bn-tuning", "bn-heldout", "bn"]


def load_set(name, dev):
    """(in-corpus questions, out-of-corpus questions) of a set named as `--set` takes it."""
    here = os.path.dirname(os.path.abspath(__file__))
    if name == "dev":
        qa = load_jsonl(os.path.join(dev, "qa_python_faq.jsonl")) + load_jsonl(os.path.join(dev, "qa_python_tutorial.jsonl"))
        return qa, load_jsonl(os.path.join(dev, "out_of_corpus.jsonl"))
    own = os.path.join(here, "data", "own")
    keep = {"tuning": 1, "heldout": 0}.get(name.split("-")[-1])
    pick = lambda rows: [r for r in rows if keep is None or int(re.search(r"(\d+)$", r["id"]).group(1)) % 2 == keep]
    if name.startswith("bn"):
        return pick(load_jsonl(os.path.join(own, "qa_bn.jsonl"))), pick(load_jsonl(os.path.join(own, "out_of_corpus_bn.jsonl")))
    qa = pick(load_jsonl(os.path.join(own, "qa_tutorial_faq.jsonl")) + load_jsonl(os.path.join(own, "qa_reference_howto.jsonl")))
    return qa, pick(load_jsonl(os.path.join(own, "out_of_corpus.jsonl")))


def run_search(binary, bundle, queries, flags, top):
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
        for q in queries:
            f.write(json.dumps({"id": q["id"], "question": q["question"]}) + "\n")
        qpath = f.name
    try:
        out = subprocess.run(
            [binary, "search", "--bundle", bundle, "--queries", qpath, "--top", str(top), "--json", *flags],
            check=True, capture_output=True, text=True,
        ).stdout
    finally:
        os.unlink(qpath)
    return {r["id"]: r for r in map(json.loads, out.splitlines())}


def is_hit(result, q):
    gold = norm_heading(q["gold_heading"])
    return result["file"] == q["gold_file"] and any(norm_heading(h) == gold for h in result["heading_path"])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/pathshala/target"))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--dev", default=os.path.join(repo, "tests", "eval", "data", "dev"))
    ap.add_argument("--set", default="dev", choices=SETS)
    ap.add_argument("--index-builder", default=os.path.join(target, "release", "index-builder"))
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--extra", default="", help="extra flags for every search, space-separated")
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--min-recall", type=float, default=None, help="exit 1 if the default configuration's recall is lower")
    args = ap.parse_args()

    qa, ooc = load_set(args.set, args.dev)
    if not qa:
        sys.exit(f"error: no questions in set {args.set}")
    print(f"| configuration | recall@{args.top} | MRR | abstain in-corpus | abstain out-of-corpus |")
    print("|---|---|---|---|---|")
    default_recall = None
    for name in args.configs.split(","):
        flags = CONFIGS[name] + (args.extra.split() if args.extra else [])
        res = run_search(args.index_builder, args.bundle, qa + ooc, flags, args.top)
        hits, rr, abst_in = 0, 0.0, 0
        by_kind = {}
        for q in qa:
            r = res[q["id"]]
            abst_in += r["abstained"]
            ranks = [i for i, x in enumerate(r["results"]) if is_hit(x, q)]
            k = by_kind.setdefault(q.get("kind", "all"), [0, 0])
            k[1] += 1
            if ranks:
                k[0] += 1
                hits += 1
                rr += 1.0 / (ranks[0] + 1)
            elif args.show_misses:
                got = [" > ".join(x["heading_path"][-2:]) for x in r["results"][:3]]
                print(f"  miss {q['id']}: gold {q['gold_file']} :: {q['gold_heading']!r}; got {got}", file=sys.stderr)
        abst_out = sum(res[q["id"]]["abstained"] for q in ooc)
        if args.show_misses:
            for q in qa + ooc:
                r = res[q["id"]]
                print(f"  {q['id']}: abstained={r['abstained']} cov={r['coverage']:.2f} dense={r['best_dense']} missing={r['missing_terms']} unknown={r.get('unknown_terms')} jargon={r.get('jargon_terms')}", file=sys.stderr)
        n = len(qa)
        kinds = "" if len(by_kind) < 2 else " — " + ", ".join(f"{k} {h}/{t}" for k, (h, t) in sorted(by_kind.items()))
        print(f"| {name} | {hits / n:.2f} ({hits}/{n}){kinds} | {rr / n:.3f} | {abst_in}/{n} | {abst_out}/{len(ooc)} |")
        if "default" in name:
            default_recall = hits / n
    if args.min_recall is not None and default_recall is not None and default_recall < args.min_recall:
        print(f"FAIL: default recall@{args.top} {default_recall:.2f} < {args.min_recall}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
