#!/usr/bin/env python3
"""Choosing the router's harmful margins from cross-validated classifier scores.

    index-builder route-train --cv 5 --out cv.jsonl
    python3 tests/eval/route_cv.py cv.jsonl [--margins -1,-0.5,0,0.5]

Each line of cv.jsonl is a message of the classifier's bank (tuning data only) scored by a
classifier trained on the other folds: the whole message's log-probabilities, each sentence's
(`pieces`, when it has two or more) and whether the harmful lexicon fires. For every pair of
margins (the whole message's, a sentence's) it reports harmful recall (lexicon, or harmful
within the margin of the best other label) and how many other messages would be refused.
"""
import argparse
import json


def harm(scores):
    h = scores["harmful"]
    return h - max(v for k, v in scores.items() if k != "harmful")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cv")
    ap.add_argument("--margins", default="-1.5,-1,-0.5,0,0.5")
    ap.add_argument("--piece-margins", default="none,-0.5,0,0.5,1,2")
    ap.add_argument("--show", type=str, default=None, help="print the harmful messages missed at WHOLE,PIECE")
    a = ap.parse_args()
    rows = [json.loads(l) for l in open(a.cv, encoding="utf-8") if l.strip()]
    harmful = [r for r in rows if r["label"] == "harmful"]
    other = [r for r in rows if r["label"] != "harmful"]
    print(f"{len(rows)} messages, {len(harmful)} harmful; lexicon alone: {sum(r['lexicon'] for r in harmful)} harmful, "
          f"{sum(r['lexicon'] for r in other)} others")

    def refused(r, m, pm):
        if r["lexicon"] or harm(r["scores"]) >= m:
            return True
        return pm is not None and any(harm(p) >= pm for p in r.get("pieces", []))

    best = lambda sc: max(sc, key=sc.get)
    acc = sum(r["label"] == ("harmful" if refused(r, 0.0, 1.0) else best(r["scores"])) for r in rows) / len(rows)
    print(f"classifier accuracy (the lexicon and harmful margins 0 / 1.0 first, then the best label; no other rule): {acc:.3f}")
    pms = [None if p == "none" else float(p) for p in a.piece_margins.split(",")]
    print("whole margin | piece margin | harmful recall | others refused")
    for m in (float(x) for x in a.margins.split(",")):
        for pm in pms:
            tp = sum(refused(r, m, pm) for r in harmful)
            fp = sum(refused(r, m, pm) for r in other)
            print(f"{m:>12} | {str(pm):>12} | {tp}/{len(harmful)} ({tp / len(harmful):.3f}) | {fp}/{len(other)}")
    if a.show:
        m, pm = a.show.split(",")
        pm = None if pm == "none" else float(pm)
        for r in harmful:
            if not refused(r, float(m), pm):
                print("MISSED", round(harm(r["scores"]), 2), r["text"])


if __name__ == "__main__":
    main()
