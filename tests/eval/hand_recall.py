#!/usr/bin/env python3
"""Key-fact recall of an Ask run scored by hand labels instead of the judge.

    python3 tests/eval/hand_recall.py --set own-heldout --answers RUN/answers-grounded.jsonl \
        --labels tests/eval/data/hand_facts_heldout_s54.jsonl [...] [--todo todo.jsonl]

For every in-corpus question of the set and each of its key facts, the pair (shown answer, fact)
takes the label of any labels file holding the same text and claim (labels: `{"id", "kind":
"fact", "text", "claim", "yes", "note"}`, as `judge_labels*.jsonl`), so a run whose answers
repeat an earlier run's needs labels only for the answers that changed. An abstention states
no fact. Prints the recall (the mean over questions of the share of their facts stated, as
answer_eval.py's `key_fact_recall`) and, when the run's `judge-pairs.jsonl` lies beside the
answers, the agreement of its stored verdicts (the judge and, since session 55, the words rule:
`answer_eval.verdict`) with the labels. Two labels files that disagree on a pair: the
later one's label counts. Pairs with no label: written to
`--todo` for a person to label (same fields, without `yes`), and the script exits 1 — a
figure with unlabelled pairs is not a figure.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from answer_eval import load_set  # noqa: E402
from retrieval_eval import load_jsonl  # noqa: E402


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", required=True)
    ap.add_argument("--data", default=os.path.join(here, "data"))
    ap.add_argument("--answers", required=True, help="a run's answers-grounded.jsonl (answer_eval.py --out)")
    ap.add_argument("--labels", nargs="+", required=True)
    ap.add_argument("--todo", default=None, help="write the pairs that have no label here")
    args = ap.parse_args()
    for path in (args.answers, *args.labels):
        if not os.path.exists(path):
            sys.exit(f"error: {path} does not exist")
    qa, _ = load_set(args.set, args.data)
    answers = {r["id"]: r for r in load_jsonl(args.answers)}
    missing = [q["id"] for q in qa if q["id"] not in answers]
    if missing:
        sys.exit(f"error: {args.answers} has no answer for {len(missing)} questions ({missing[:3]} …)")
    labels = {}
    for path in args.labels:
        for l in load_jsonl(path):
            if l.get("kind", "fact") == "fact":
                labels[(l["text"], l["claim"])] = l["yes"]
    pairs_path = os.path.join(os.path.dirname(args.answers), "judge-pairs.jsonl")
    judged = {p["id"]: p.get("judge_yes") for p in load_jsonl(pairs_path)} if os.path.exists(pairs_path) else {}
    recall, todo, agree = [], [], []
    for q in qa:
        r = answers[q["id"]]
        stated = 0
        for i, fact in enumerate(q["key_facts"]):
            if r.get("error") or r["abstained"] or not r.get("answer"):
                continue
            key = (r["answer"], fact)
            if key not in labels:
                todo.append({"id": f"{q['id']}:fact:{i}", "kind": "fact", "text": r["answer"], "claim": fact})
                continue
            stated += labels[key]
            verdict = judged.get(f"grounded:{q['id']}:fact:{i}")
            if verdict is not None:
                agree.append(verdict == labels[key])
        recall.append(stated / len(q["key_facts"]))
    if todo:
        if args.todo:
            with open(args.todo, "w", encoding="utf-8") as f:
                for t in todo:
                    f.write(json.dumps(t, ensure_ascii=False) + "\n")
        sys.exit(f"error: {len(todo)} pairs have no label" + (f" (written to {args.todo})" if args.todo else " (--todo FILE writes them)"))
    result = {
        "set": args.set,
        "questions": len(qa),
        "key_fact_recall_by_hand": round(sum(recall) / len(recall), 3),
        "judge_agreement": {"labels": len(agree), "agreement": round(sum(agree) / len(agree), 3) if agree else None},
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
