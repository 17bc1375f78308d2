"""HumanEval → the problems file of `index-builder tutor-eval`, with tiers and a fixed subset.

Usage: humaneval_problems.py HumanEval.jsonl.gz problems.jsonl subset.jsonl

One JSON object per line:
  id           "HumanEval/0"
  tier         "easy" | "medium" | "hard": thirds by canonical-solution length (below)
  description  ""  (the task is the starter code: signature + docstring)
  starter      the HumanEval prompt (imports, signature, docstring)
  entry_point  the function the tests call
  inputs       up to 3 argument lists the tutor runs each step on: the calls written in the
               docstring (`>>> f(1, 2)`, `f(1, 2) ➞ 3`), else the first calls in the tests
               (arguments only, never the expected values)
  tests        HumanEval's `check(candidate)` code followed by `check(<entry_point>)`
  reference    the canonical solution (the body), never shown to the model
  reference_chars  len(canonical_solution.strip())

Tiers: problems sorted by (reference_chars, task number); the first 55 are easy, the next 55
medium, the last 54 hard.

Subset (subset.jsonl, 30 problems): within each tier, problems in task-number order, indices
floor(i * n / 10) for i = 0..9 (n = tier size): 10 evenly spaced problems per tier.
"""

import ast
import gzip
import json
import sys


def balanced_args(text, start):
    """Arguments of the call whose '(' is at text[start]; None when unbalanced."""
    depth, i, quote = 0, start, None
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return text[start + 1 : i]
        i += 1
    return None


def calls(text, name, limit=3):
    """Argument lists of `name(...)` calls in text that parse as Python, first `limit`, no repeats."""
    out, i = [], 0
    needle = name + "("
    while len(out) < limit:
        i = text.find(needle, i)
        if i < 0:
            break
        before = text[i - 1] if i > 0 else " "
        if before.isalnum() or before == "_" or before == ".":
            i += len(needle)
            continue
        args = balanced_args(text, i + len(name))
        i += len(needle)
        if args is None or not args.strip() or "\n" in args:
            continue
        try:
            ast.parse(f"f({args})", mode="eval")
        except SyntaxError:
            continue
        if args not in out:
            out.append(args)
    return out


def docstring_of(prompt, entry):
    """The prompt after the entry point's `def` line."""
    at = prompt.find(f"def {entry}(")
    if at < 0:
        return ""
    nl = prompt.find("\n", at)
    return prompt[nl:] if nl >= 0 else ""


def main(src, out_all, out_subset):
    rows = [json.loads(l) for l in gzip.open(src, "rt", encoding="utf-8") if l.strip()]
    assert len(rows) == 164, len(rows)
    num = lambda r: int(r["task_id"].split("/")[1])
    for r in rows:
        r["reference_chars"] = len(r["canonical_solution"].strip())
    order = sorted(rows, key=lambda r: (r["reference_chars"], num(r)))
    tier = {}
    for i, r in enumerate(order):
        tier[r["task_id"]] = "easy" if i < 55 else "medium" if i < 110 else "hard"
    problems = []
    for r in sorted(rows, key=num):
        entry = r["entry_point"]
        inputs = calls(docstring_of(r["prompt"], entry), entry) or calls(r["test"], "candidate")
        problems.append(
            {
                "id": r["task_id"],
                "tier": tier[r["task_id"]],
                "description": "",
                "starter": r["prompt"],
                "entry_point": entry,
                "inputs": inputs,
                "tests": r["test"].strip("\n") + f"\n\n\ncheck({entry})\n",
                "reference": r["canonical_solution"],
                "reference_chars": r["reference_chars"],
            }
        )
    with open(out_all, "w", encoding="utf-8") as f:
        for p in problems:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    subset = []
    for t in ("easy", "medium", "hard"):
        in_tier = [p for p in problems if p["tier"] == t]
        n = len(in_tier)
        subset += [in_tier[i * n // 10] for i in range(10)]
    with open(out_subset, "w", encoding="utf-8") as f:
        for p in subset:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    no_inputs = sum(1 for p in problems if not p["inputs"])
    print(f"humaneval: {len(problems)} problems → {out_all} (easy ≤ {order[54]['reference_chars']} chars, medium ≤ {order[109]['reference_chars']}, hard ≤ {order[-1]['reference_chars']}; {no_inputs} without step inputs)")
    print(f"humaneval: subset of {len(subset)} → {out_subset}: " + " ".join(p["id"].split("/")[1] for p in subset))


if __name__ == "__main__":
    main(*sys.argv[1:4])
