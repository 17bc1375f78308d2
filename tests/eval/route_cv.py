#!/usr/bin/env python3
"""Choosing the router's harmful margins from cross-validated classifier scores.

    index-builder route-train --cv 5 --out cv.jsonl
    python3 tests/eval/route_cv.py cv.jsonl [--margins -1,-0.5,0,0.5] [--unnamed none,4,6,8]

Each line of cv.jsonl is a message of the classifier's bank (tuning data only) scored by a
classifier trained on the other folds: the whole message's log-probabilities, each sentence's
(`pieces`, when it has two or more), whether the harmful lexicon fires and whether the message
names anything harmful (`named`, `rules::names_harm`; `pieces_named` for each sentence). For every pair of margins (the whole
message's, a sentence's) and every least margin for a message that names nothing harmful
(`Margins::harmful_unnamed`; none: no such floor) it reports harmful recall (lexicon, or harmful
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
    ap.add_argument("--unnamed", default="none", help="least margins for a message naming nothing harmful")
    ap.add_argument("--show", type=str, default=None, help="print the harmful messages missed and the others refused at WHOLE,PIECE[,UNNAMED]")
    a = ap.parse_args()
    rows = [json.loads(l) for l in open(a.cv, encoding="utf-8") if l.strip()]
    harmful = [r for r in rows if r["label"] == "harmful"]
    other = [r for r in rows if r["label"] != "harmful"]
    print(f"{len(rows)} messages, {len(harmful)} harmful; lexicon alone: {sum(r['lexicon'] for r in harmful)} harmful, "
          f"{sum(r['lexicon'] for r in other)} others")

    def refused(r, m, pm, um=None):
        # A sentence is judged by its own words (`pieces_named`), the whole message by its own.
        floor = lambda x, named: x if um is None or named or x is None else max(x, um)
        if r["lexicon"] or harm(r["scores"]) >= floor(m, r.get("named", True)):
            return True
        names = r.get("pieces_named") or [r.get("named", True)] * len(r.get("pieces", []))
        return pm is not None and any(harm(p) >= floor(pm, n) for p, n in zip(r.get("pieces", []), names))

    best = lambda sc: max(sc, key=sc.get)
    acc = sum(r["label"] == ("harmful" if refused(r, 0.0, 1.0) else best(r["scores"])) for r in rows) / len(rows)
    print(f"classifier accuracy (the lexicon and harmful margins 0 / 1.0 first, then the best label; no other rule): {acc:.3f}")
    opt = lambda x: None if x == "none" else float(x)
    pms = [opt(p) for p in a.piece_margins.split(",")]
    ums = [opt(u) for u in a.unnamed.split(",")]
    print("whole margin | piece margin | unnamed floor | harmful recall | others refused")
    for m in (float(x) for x in a.margins.split(",")):
        for pm in pms:
            for um in ums:
                tp = sum(refused(r, m, pm, um) for r in harmful)
                fp = sum(refused(r, m, pm, um) for r in other)
                print(f"{m:>12} | {str(pm):>12} | {str(um):>13} | {tp}/{len(harmful)} ({tp / len(harmful):.3f}) | {fp}/{len(other)}")
    if a.show:
        m, pm, *um = a.show.split(",")
        m, pm, um = float(m), opt(pm), opt(um[0]) if um else None
        for r in harmful:
            if not refused(r, m, pm, um):
                print("MISSED", round(harm(r["scores"]), 2), r["text"])
        for r in other:
            if refused(r, m, pm, um):
                print("REFUSED", r["label"], round(harm(r["scores"]), 2), r["text"])


if __name__ == "__main__":
    main()
