#!/usr/bin/env python3
"""Fits Ask's check (`agent::ask::CheckRule`: a unit is shown when lexical >= min_lexical and
margin + lexical_weight * lexical >= min_score) against the evaluation judge's support verdicts.

    python3 tests/eval/answer_eval.py ... --set own-tuning --in-corpus-only \\
        --ask-arg=--min-score=-100 --ask-arg=--min-lexical=0 --out DIR   # every unit shown
    python3 tests/eval/check_fit.py DIR [--precision 0.9]

The run must show every unit (so each carries the checking model's margin and its lexical
support); the judge's verdict on each raw sentence ("raw:j" pairs) is the label. Only a tuning
run may be fitted on. For each rule of a grid it reports the units kept, the share of them the
judge finds supported, the supported units kept and the answers left with none (withheld); then
the current rule and, per lexical weight, the rule that keeps most supported units at the
precision asked for (the middle of its best interval of min_score).
"""
import argparse
import json
import os
import sys


def load(folder):
    answers = [json.loads(l) for l in open(os.path.join(folder, "answers-grounded.jsonl"), encoding="utf-8") if l.strip()]
    verdicts = {}
    for l in open(os.path.join(folder, "judge-pairs.jsonl"), encoding="utf-8"):
        p = json.loads(l)
        verdicts[p["id"]] = p["judge_yes"]
    units = []  # (question id, margin, lexical, judged supported)
    for a in answers:
        if a.get("error") or not a.get("sentences"):
            continue
        for j, s in enumerate(a["sentences"]):
            v = verdicts.get(f"grounded:{a['id']}:raw:{j}")
            if s.get("repeated") or s.get("margin") is None or v is None:
                continue
            units.append((a["id"], s["margin"], s["lexical"], v))
    return answers, units


def score(units, w, min_lex, min_score):
    kept = [u for u in units if u[2] >= min_lex and u[1] + w * u[2] >= min_score]
    yes = sum(1 for u in kept if u[3])
    answered = {u[0] for u in kept}
    return len(kept), yes, answered


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="folder of an answer_eval run with every unit shown")
    ap.add_argument("--precision", type=float, default=0.9, help="least share of kept units the judge finds supported")
    ap.add_argument("--current", default="3,3.0,0.34", help="a rule to report: min_score,lexical_weight,min_lexical (default: the 0.5B's)")
    a = ap.parse_args()
    for f in ("answers-grounded.jsonl", "judge-pairs.jsonl"):
        if not os.path.exists(os.path.join(a.run, f)):
            sys.exit(f"error: {os.path.join(a.run, f)} is missing")
    answers, units = load(a.run)
    if not units:
        sys.exit("error: no unit carries a margin and a judge verdict (was every unit shown and judged?)")
    questions = {x["id"] for x in answers if not x.get("error") and x.get("sentences")}
    total_yes = sum(1 for u in units if u[3])
    print(f"{len(units)} units of {len(questions)} answers; the judge finds {total_yes} supported ({total_yes / len(units):.2f})")

    def line(name, w, lex, s):
        k, y, answered = score(units, w, lex, s)
        prec = y / k if k else 0.0
        print(f"{name:<34} w {w:<4} lexical >= {lex:<5} score >= {s:<7.3f} kept {k:>4}  supported {prec:.3f}  "
              f"supported kept {y:>4} / {total_yes} ({y / total_yes:.2f})  answers with none {len(questions) - len(answered)}")

    cs, cw, cl = (float(x) for x in a.current.split(","))
    line("rule given (--current)", cw, cl, cs)
    for w in (0.0, 1.0, 2.0, 3.0, 4.0, 6.0):
        best = None
        for lex in (0.0, 0.2, 0.34, 0.5, 0.6, 0.7):
            values = sorted({round(u[1] + w * u[2], 4) for u in units})
            cuts = [values[0] - 1] + [(x + y) / 2 for x, y in zip(values, values[1:])] + [values[-1] + 1]
            ok = []
            for c in cuts:
                k, y, _ = score(units, w, lex, c)
                if k and y / k >= a.precision:
                    ok.append((y, -k, c))
            if not ok:
                continue
            top = max(ok)
            # The middle of the best interval: every cut that keeps the same units.
            same = [c for y, nk, c in ok if (y, nk) == top[:2]]
            mid = (min(same) + max(same)) / 2
            if best is None or (top[0], top[1]) > (best[0], best[1]):
                best = (top[0], top[1], lex, mid)
        if best:
            line(f"best at precision >= {a.precision}", w, best[2], round(best[3], 3))


if __name__ == "__main__":
    main()
