import json, sys, math
import os
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../..')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repair_lib import terms, prose
sys.path.insert(0, os.path.join(ROOT, "tests/eval"))
from answer_eval import load_set
qa, _ = load_set("own-tuning", os.path.join(ROOT, "tests/eval/data"))
Q = {q["id"]: q["question"] for q in qa}
path, out, budget = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [json.loads(l) for l in open(path)]
docs = [terms(s["text"]) for a in rows for s in a.get("sources", [])]
N = len(docs)
idf = lambda t: math.log(1 + N / (1 + sum(1 for d in docs if t in d)))
res = []
for a in rows:
    q = terms(Q[a["id"]])
    cands = []
    for rank, s in enumerate(a.get("sources", [])):
        for i, x in enumerate(prose(s["text"])):
            ov = sum(idf(t) for t in terms(x) & q)
            if ov > 0: cands.append((ov / (1 + rank), rank, i, s["n"], x))
    a = dict(a)
    if not cands:
        a["answer"] = None; a["abstained"] = True; res.append(a); continue
    top = max(cands, key=lambda c: c[0])
    cands = sorted([c for c in cands if c[1] == top[1]], key=lambda c: -c[0])
    pick, used = [], 0
    for c in cands:
        if used + len(c[4]) > budget: continue
        pick.append(c); used += len(c[4]) + 1
    pick.sort(key=lambda c: c[2])
    a["answer"] = " ".join(c[4] for c in pick)
    a["abstained"] = False
    res.append(a)
with open(out, "w") as f:
    for a in res: f.write(json.dumps(a, ensure_ascii=False) + "\n")
