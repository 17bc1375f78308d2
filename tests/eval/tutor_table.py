"""Markdown table of `index-builder tutor-eval --json` results (one file per run).

Usage: python3 tests/eval/tutor_table.py RUN.json [RUN.json ...]

Per run: pass rate per tier (passed / problems), first-attempt rate, DWPM = 2·A_easy + 3·A_medium
+ 5·A_hard (final and first attempt), mean seconds per problem.
"""

import json
import sys


def rate(t, key):
    return f"{t[key] / t['problems']:.2f} ({t[key]}/{t['problems']})" if t["problems"] else "-"


def main(paths):
    print("| run | model | attempts | easy | medium | hard | all | DWPM | first-attempt DWPM | s/problem |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for p in paths:
        d = json.load(open(p))
        tiers = d["tiers"]
        cells = [rate(tiers[t], "passed") if t in tiers else "-" for t in ("easy", "medium", "hard")]
        dw = lambda k: f"{d[k]:.2f}" if d.get(k) is not None else "-"
        print(
            f"| {d['mode']}{'+draftsteps' if d.get('draft_steps') else '+draft' if d.get('draft_first') else ''} | {d['model']} | {d['attempts']} | {' | '.join(cells)} | {rate(d['all'], 'passed')} | {dw('dwpm')} | {dw('dwpm_first_attempt')} | {d['all']['seconds'] / max(1, d['all']['problems']):.0f} |"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
