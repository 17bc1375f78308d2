#!/usr/bin/env python3
"""Teacher authoring (issue 15) on our own fixed requests: gate pass after the ladder (per gate), the
first attempt's outcome (kept, or the first check it failed), ladder rungs, shortfalls,
verification accept rate, time per item.

    python3 tests/eval/author_eval.py --model models/cache/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf \
        --demo-bundle $CARGO_TARGET_DIR/demo.bundle --docs-bundle $CARGO_TARGET_DIR/python-docs.bundle \
        --ids a2,a4 --out docs/results/author/qwen0.5b.jsonl

Requests: tests/eval/data/own/author_requests.jsonl (fixed before any item was generated; odd ids
are for tuning, even ids held out), or another file with --requests (author_cq_requests.jsonl:
creative questions on Python courses; its bundles "py2", "py4", "py5", "py6" given as --bundle NAME=PATH). Every item and every report is written to --out (one JSON line
per item with the request's id, then one `{"report": ...}` line per request) for hand audits.
Missing inputs fail loudly.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
REQUESTS = os.path.join(HERE, "data", "own", "author_requests.jsonl")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--demo-bundle")
    ap.add_argument("--docs-bundle")
    ap.add_argument("--bundle", action="append", default=[], metavar="NAME=PATH", help="a request file's bundle by name (repeatable)")
    ap.add_argument("--requests", default=REQUESTS)
    ap.add_argument("--no-verify", action="store_true", help="skip verification (generation alone)")
    ap.add_argument("--ids", help="comma-separated request ids, in the order to run (default: all)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--exe", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/pathshala/target")), "release", "index-builder"))
    a = ap.parse_args()
    bundles = {"demo": a.demo_bundle, "python-docs": a.docs_bundle}
    bundles.update(b.split("=", 1) for b in a.bundle)
    for p in [a.model, a.exe, a.requests]:
        if not os.path.exists(p):
            sys.exit(f"error: {p} is missing")
    reqs = [json.loads(l) for l in open(a.requests, encoding="utf-8") if l.strip()]
    if a.ids:
        by_id = {r["id"]: r for r in reqs}
        reqs = [by_id[i] for i in a.ids.split(",")]
    for r in reqs:
        if not bundles.get(r["bundle"]) or not os.path.exists(bundles[r["bundle"]]):
            sys.exit(f"error: request {r['id']} needs bundle {r['bundle']!r}: {bundles.get(r['bundle'])} is missing")
    out = open(a.out, "a", encoding="utf-8")
    for r in reqs:
        bundle = bundles[r["bundle"]]
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
            report_path = f.name
        cmd = [a.exe, "author", "--bundle", bundle, "--model", a.model, "--request", r["request"], "--lang", r["lang"], "--report", report_path]
        if a.no_verify:
            cmd.append("--no-verify")
        print(f"== {r['id']}: {r['request']}", flush=True)
        p = subprocess.run(cmd, capture_output=True, text=True)
        sys.stderr.write(p.stderr)
        if p.returncode != 0:
            sys.exit(f"error: {' '.join(cmd)} failed ({p.returncode})")
        for line in p.stdout.splitlines():
            item = json.loads(line)
            item["request_id"] = r["id"]
            out.write(json.dumps(item, ensure_ascii=False) + "\n")
        report = json.load(open(report_path, encoding="utf-8"))
        report["request_id"] = r["id"]
        out.write(json.dumps({"report": report}, ensure_ascii=False) + "\n")
        out.flush()
    out.close()
    summarise(a.out)


def summarise(path):
    items, reports = [], []
    for line in open(path, encoding="utf-8"):
        v = json.loads(line)
        (reports if "report" in v else items).append(v.get("report", v))
    ladder = Counter(i["ladder"] for i in items)
    asked = sum(r.get("asked", {}).get("mcq", 0) + r.get("asked", {}).get("cq", 0) for r in reports)
    gates = Counter()
    for i in items:
        for g, ok in i["gates"].items():
            gates[(g, ok)] += 1
    print(f"requests {len(reports)}, asked {asked}, written {len(items)} (strict {ladder['strict']}, retry {ladder['retry']}, relaxed {ladder['relaxed']}), missing {asked - len(items)}")
    names = sorted({g for g, _ in gates})
    for g in names:
        print(f"  gate {g}: {gates[(g, True)]}/{gates[(g, True)] + gates[(g, False)]} pass on the kept attempt")
    # The first attempt of each written item: kept as written, or the first check it failed (each
    # attempt is told the first check that failed). Items never written are in the reports'
    # `missing`, with their last attempt's reason.
    first = Counter("passed every check" if not i.get("rejected") else i["rejected"][0] for i in items if "rejected" in i)
    if first:
        print(f"first attempt of the {sum(first.values())} written items:")
        for why, n in first.most_common():
            print(f"  {n} × {why}")
    book = Counter("from the book's code" if i.get("from_running") else "from a definition" if i.get("from_definition") else "by the model" for i in items)
    print("written " + ", ".join(f"{n} {k}" for k, n in book.most_common()))
    acc = sum(1 for i in items if (i.get("verification") or {}).get("accepted"))
    print(f"verification: {acc}/{len(items)} accepted")
    times = [t["ms"] / 1000 for r in reports for t in r.get("times", [])]
    if times:
        times.sort()
        print(f"time per written item: median {times[len(times) // 2]:.0f} s, max {times[-1]:.0f} s (n={len(times)})")


if __name__ == "__main__":
    main()
