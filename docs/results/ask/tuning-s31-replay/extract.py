"""The passages' sentences sharing the question's words, best first within BUDGET characters, in
the passages' order: `extract.py ANSWERS OUT BUDGET [--one-passage]` (only the passage holding the
best sentence, scored ÷ rank, as `verify::quote` does)."""
import json, sys, math, os
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../..')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repair_lib import terms, prose
sys.path.insert(0, os.path.join(ROOT, "tests/eval"))
from answer_eval import load_set
qa, _ = load_set("own-tuning", os.path.join(ROOT, "tests/eval/data"))
Q = {q["id"]: q["question"] for q in qa}
path, out, budget = sys.argv[1], sys.argv[2], int(sys.argv[3])
one = "--one-passage" in sys.argv
rows = [json.loads(l) for l in open(path)]
# document frequency over all passages of the run, as a stand-in for IDF
docs = [terms(s["text"]) for a in rows for s in a.get("sources", [])]
idf = lambda t: math.log(1 + len(docs) / (1 + sum(1 for d in docs if t in d)))
res = []
for a in rows:
    q = terms(Q[a["id"]])
    cands = []
    for rank, s in enumerate(a.get("sources", [])):
        for i, x in enumerate(prose(s["text"])):
            ov = sum(idf(t) for t in terms(x) & q)
            if ov > 0: cands.append((ov / (1 + rank), rank, i, s["n"], x))
    if one and cands:
        top = max(cands, key=lambda c: c[0])
        cands = [c for c in cands if c[1] == top[1]]
    cands.sort(key=lambda c: -c[0])
    pick, used = [], 0
    for c in cands:
        if used + len(c[4]) > budget: continue
        pick.append(c); used += len(c[4]) + 1
    pick.sort(key=lambda c: (c[1], c[2]))
    a = dict(a)
    a["answer"] = " ".join(c[4] if one else f"{c[4]} [{c[3]}]" for c in pick) or None
    a["abstained"] = not pick
    res.append(a)
with open(out, "w") as f:
    for a in res: f.write(json.dumps(a, ensure_ascii=False) + "\n")
print(out, sum(1 for a in res if not a["abstained"]))
